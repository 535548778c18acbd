"""Training multi-hop attention and its baselines: every seed of a model in one batched loop (Chapter 5).

:func:`train_multihop` trains the models of :mod:`.multihop` (and the output-scale controls) on the toy task
under the paired protocol (one data stream per seed for every model, the faster arithmetic) or replays the
public code's run in its random-number order (``protocol="code"``, torch's arithmetic). Results are cached
under ``cache_dir("designs")`` keyed by the configuration and a digest of the modules that compute them.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Sequence

import numpy as np
import torch

from ..companion import caches, store
from ..companion.checks import check_alloc, check_choice as _check_choice, check_int as _check_int, check_positive
from ..companion.checks import contract
from . import optim as _optim
from .multihop import _ALL_MODELS, _BASE, MODEL_NAMES, OPERATOR_MODES, PROTOCOLS, forward, init_params
from .multihop_task import ROLE_NAMES, SHUFFLES, MultihopTask, _draw_root, make_task_weights, sample_multihop_batches
from .optim import AdamState, adam_update, derive_seed, generator as _generator

__all__ = ["train_multihop"]


def _model_streams(task, models, seeds, protocol, stream_steps, batch_size, shuffle, code_order):
    """Task weights, initial parameters and data/shuffle generators for every (model, seed)."""
    weights, inits, data_gens, shuffle_gens = [], {}, {}, {}
    for s in seeds:
        if protocol == "code":
            g = _generator(s)
            weights.append(make_task_weights(task, g))
            for j, m in enumerate(code_order):
                p = init_params(m, task.d, g)
                if m in models:
                    inits[m, s] = p
                    data_gens[m, s] = _clone(g)
                if any(later in models for later in code_order[j + 1:]):
                    # the code draws this model's whole data stream before the next model's weights
                    _skip_batches(task, batch_size, g, stream_steps)
        else:
            weights.append(make_task_weights(task, _generator(derive_seed(s, "task"))))
            data = _generator(derive_seed(s, "data"))
            for m in models:
                inits[m, s] = init_params(m, task.d, _generator(derive_seed(s, f"init:{_BASE.get(m, m)}")))
                data_gens[m, s] = data                 # shared: common random numbers
        for m in models:
            shuffle_gens[m, s] = _generator(derive_seed(s, "shuffle" if protocol == "paired"
                                                        else f"shuffle:{m}"))
    return weights, inits, data_gens, shuffle_gens


def _skip_batches(task: MultihopTask, batch_size: int, generator: torch.Generator, count: int) -> None:
    """Advance ``generator`` past ``count`` batches: the same draws as sample_multihop_batch, unused."""
    B, n, d, std = batch_size, task.n, task.d, task.noise_std
    z_noise, z_one = torch.zeros(B, n - 3, d), torch.zeros(B, 1, d)
    for _ in range(count):
        _draw_root(task, B, generator)
        torch.normal(mean=z_noise, std=std, generator=generator)
        torch.normal(mean=z_one, std=std, generator=generator)
        torch.normal(mean=z_one, std=std, generator=generator)


def _clone(g: torch.Generator) -> torch.Generator:
    c = torch.Generator()
    c.set_state(g.get_state())
    return c


def _train(task, models, seeds, *, steps, batch_size, lr, weight_decay, hops, operator, protocol,
           stream_steps, shuffle, record_every, test_size, code_order, progress):
    from tqdm import tqdm

    S = len(seeds)
    weights, inits, data_gens, shuffle_gens = _model_streams(
        task, models, seeds, protocol, stream_steps, batch_size, shuffle, code_order)
    params = {m: [torch.cat([inits[m, s][i] for s in seeds]).requires_grad_(True)
                  for i in range(len(inits[m, seeds[0]]))] for m in models}
    states = {m: AdamState.zeros_like(params[m]) for m in models}
    flat_params = [p for m in models for p in params[m]]
    ends = np.cumsum([len(params[m]) for m in models])
    slices = {m: slice(e - len(params[m]), e) for m, e in zip(models, ends)}
    record_steps = list(range(0, steps, record_every))
    losses = {m: np.zeros((S, len(record_steps))) for m in models}
    shared = protocol == "paired"
    fast = protocol == "paired"   # the replay of the public code keeps torch's arithmetic
    for step in tqdm(range(steps), disable=None if progress else True, desc="multihop"):
        batches = {}
        for m in models:
            if shared and batches:
                batches[m] = next(iter(batches.values()))
                continue
            # one batch per seed from its own streams (the draws per seed, the arithmetic for all at once)
            X, y, _ = sample_multihop_batches(task, weights, batch_size, [data_gens[m, s] for s in seeds],
                                              shuffle=shuffle, shuffle_generators=[shuffle_gens[m, s] for s in seeds])
            batches[m] = (X, y)
        per_seed, total = {}, None
        for m in models:
            X, y = batches[m]
            pred = forward(m, params[m], X, hops=hops, operator=operator, fast=fast)
            per_seed[m] = ((pred - y) ** 2).mean(dim=1)       # (S,) the code's MSELoss per seed
            total = per_seed[m].sum() if total is None else total + per_seed[m].sum()
        # one backward pass for every model: their graphs are disjoint and the sum passes each its gradient 1
        # unchanged, so each model's gradients are those of its own loss, computed by the same operations
        grads = torch.autograd.grad(total, flat_params)
        for m in models:
            adam_update(params[m], grads[slices[m]], states[m], lr=lr, weight_decay=weight_decay)
            if step % record_every == 0:
                losses[m][:, step // record_every] = per_seed[m].detach().numpy()
    # held-out evaluation on fresh sequences (per-sample shuffles)
    out: dict[str, Any] = {"record_steps": np.array(record_steps)}
    test_gens = [_generator(derive_seed(s, "test")) for s in seeds]
    Xt, yt, roles = sample_multihop_batches(task, weights, test_size, test_gens, shuffle="sample", shuffle_generators=[
        _generator(derive_seed(s, "test-shuffle")) for s in seeds])
    var_y = yt.var(dim=1).numpy()
    out["var_y"] = var_y
    for m in models:
        with torch.no_grad():
            pred, att = forward(m, params[m], Xt, hops=hops, operator=operator, return_attention=True, fast=fast)
        mass = torch.stack([(att * (roles == r)).sum(-1).mean(-1) for r in range(len(ROLE_NAMES))], -1)
        out[f"loss/{m}"] = losses[m]
        out[f"test_mse/{m}"] = ((pred - yt) ** 2).mean(-1).numpy()
        out[f"mass/{m}"] = mass.numpy()                       # (S, 4) over ROLE_NAMES
        for i, p in enumerate(params[m]):
            out[f"param{i}/{m}"] = p.detach().numpy()
    return out


def _code_digest() -> str:
    """Digest of the modules that compute a run: the models and task, this training loop, the optimiser."""
    from . import multihop, multihop_task
    return store.code_digest(multihop, multihop_task, __file__, _optim)


def _model_names(models: Any) -> tuple:
    """``models`` as a tuple of names, or a TypeError naming it (read before the allocation estimate)."""
    if isinstance(models, (str, bytes)) or not hasattr(models, "__iter__"):
        raise TypeError(f"models must be a sequence of model names ({', '.join(_ALL_MODELS)}); got "
                        f"{type(models).__name__}")
    return tuple(models)


@contract(seeds="ints:0", steps="int:1", batch_size="int:1", lr="real:>0", weight_decay="real:>=0", hops="int:1",
          stream_steps="int:1", record_every="int:1", test_size="int:1",
          alloc=lambda a: [("batch_size", 32 * a["batch_size"] * len(a["seeds"]) * len(_model_names(a["models"]))
                            * (a["task"].n * a["task"].d if a["task"] is not None else 15))])
def train_multihop(models: Sequence[str] = MODEL_NAMES, seeds: Sequence[int] = (0, 1, 2), *,
                   task: MultihopTask | None = None, steps: int = 2000, batch_size: int = 200,
                   lr: float = 1e-3, weight_decay: float = 2.0, hops: int = 2,
                   operator: str | None = None, protocol: str = "paired",
                   stream_steps: int = 20_000, shuffle: str | None = None, record_every: int = 100,
                   test_size: int = 2000, cache: bool = True, progress: bool = False,
                   code_order: Sequence[str] = ("multihop", "one_layer")) -> dict[str, Any]:
    """Train every model in ``models`` for every seed, all seeds of a model in one tensor op.

    Each step draws one batch per (model, seed), computes the per-seed MSE of the query's
    prediction, and takes one Adam step (lr, L2 ``weight_decay``) per seed. The defaults are the
    paper's protocol (batch 200, lr 1e-3, weight decay 2) at fewer steps.

    ``protocol="code"`` draws, for each seed, from one generator seeded with the seed, in the
    public code's order: W_y, W_r, then for each model of ``code_order`` its initial weights and
    ``stream_steps`` batches (the code trains ``LongAttention`` = multihop with the code operator,
    then ``CausalSelfAttention`` = one_layer). With ``steps = stream_steps = 20000``, hops = 2,
    code task and operator, this reproduces ``multiple_training.json`` up to float summation order.

    Returns a dict of numpy arrays: ``record_steps`` (L,), ``var_y`` (S,) (variance of y on the
    held-out set, the normaliser of the MSE), and per model m: ``loss/m`` (S, L) training MSE at
    the record steps, ``test_mse/m`` (S,) on ``test_size`` fresh sequences, ``mass/m`` (S, 4) the
    query's mean attention mass on noise/x0/x1/x2 (:data:`ROLE_NAMES`), ``param{i}/m`` weights.
    Cached under ``cache_dir("designs")`` keyed by the whole configuration.
    """
    task = task or MultihopTask()
    models = _model_names(models)
    if not models:
        raise ValueError("models must name at least one of " + ", ".join(_ALL_MODELS))
    for m in models:
        _check_choice("models", m, _ALL_MODELS)
    if len(set(models)) != len(models):   # a repeated model would train twice and be stored once
        raise ValueError(f"models must name each model once; got {list(models)}")
    check_positive("lr", lr)
    seeds = tuple(_check_int("seed", s, 0) for s in seeds)
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct non-negative integers; got {seeds!r}")
    _check_int("steps", steps, 1)
    _check_int("batch_size", batch_size, 1)
    _check_int("record_every", record_every, 1)
    # the recorded losses, (seeds, steps / record_every) float64 per model, and the list of recorded steps
    check_alloc("steps", 16 * (len(models) * len(seeds) + 4) * -(-steps // record_every), what="the recorded losses")
    _check_int("test_size", test_size, 2)
    _check_int("hops (K)", hops, 1)
    _check_choice("protocol", protocol, PROTOCOLS)
    operator = _check_choice("operator mode", operator or task.mode, OPERATOR_MODES)
    shuffle = _check_choice("shuffle", shuffle or ("batch" if protocol == "code" else "sample"), SHUFFLES)
    if protocol == "code":
        for m in code_order:
            _check_choice("code_order entry", m, MODEL_NAMES)
        missing = [m for m in models if m not in code_order]
        if missing:
            raise ValueError(f"protocol='code' trains only the models of code_order {tuple(code_order)}; "
                             f"got {missing}")
        if steps > stream_steps:
            raise ValueError(f"steps ({steps}) must be ≤ stream_steps ({stream_steps}) under protocol='code'")
    # the digest of the computing modules: a code change gives a new key, never a stale result
    config = {"version": 2, "code": _code_digest(), "task": asdict(task),
              "models": models, "seeds": seeds, "steps": steps,
              "batch_size": batch_size, "lr": lr, "weight_decay": weight_decay, "hops": hops,
              "operator": operator, "protocol": protocol,
              "stream_steps": stream_steps if protocol == "code" else None, "shuffle": shuffle,
              "record_every": record_every, "test_size": test_size,
              "code_order": tuple(code_order) if protocol == "code" else None,
              "torch": torch.__version__.split("+")[0]}
    path = store.cache_dir("designs") / f"multihop-{store.config_hash(config)}.npz"
    # verified (key, content hash): a damaged, planted or copied entry is recomputed with a CacheWarning
    found = caches.load_cached_npz(path) if cache else None
    if found is not None:
        return found
    out = _train(task, models, seeds, steps=steps, batch_size=batch_size, lr=lr,
                 weight_decay=weight_decay, hops=hops, operator=operator, protocol=protocol,
                 stream_steps=stream_steps, shuffle=shuffle, record_every=record_every,
                 test_size=test_size, code_order=tuple(code_order), progress=progress)
    if cache:
        caches.save_cached_npz(path, out)
    return out
