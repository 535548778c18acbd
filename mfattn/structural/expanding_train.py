"""Training expanding and standard attention on the toy task, every (p, seed) in one batched loop.

:func:`train_expanding` is the run behind the chapter's Figure 3 and its verdicts; every (p, seed) is one
replica with its own random streams (:func:`~.optim.derive_seed`), so a replica's run does not depend on
which other replicas are trained beside it. :func:`train_expanding_variants` trains several settings of the
prior (slope, update, scores, first window) in one loop on the same data: each variant's result is
bit-identical to :func:`train_expanding` with its settings, and is cached under the same key. Results are
cached under ``cache_dir("designs")`` keyed by the configuration and a digest of the modules that compute them.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from ..companion import caches, store
from ..companion.checks import check_alloc, check_choice as _check_choice, check_int as _check_int, check_rule, contract
from .expanding_core import SLOPES, UPDATES, _check_hyper_prior
from .expanding_task import ExpandingTask, expanding_forward, make_expanding_weights, sample_expanding_batch, \
    standard_forward
from .optim import AdamState, adam_update, derive_seed

__all__ = ["train_expanding", "train_expanding_variants"]

#: The settings a variant may choose, with :func:`train_expanding`'s defaults.
VARIANT_DEFAULTS = {"slope": "paper", "update": "plugin", "score": "row", "learn_prior": False,
                    "models": ("expanding", "standard"), "first_window": None}


def _train(specs: list[dict], ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, record_every,
           progress) -> list[dict[str, Any]]:
    """Train the expanding models of every spec (stacked along the replica axis) and one standard model, all on
    one data stream per (p, seed). At most one spec may learn its prior (it is then the only one)."""
    from tqdm import tqdm

    reps = [(p, s) for s in seeds for p in ps]
    R = len(reps)
    tasks = [ExpandingTask(d=d, n=n, p=p) for p, _ in reps]
    weights = [make_expanding_weights(d, torch.Generator().manual_seed(derive_seed(s, f"exp-task:{p}")))
               for p, s in reps]
    bound = 1.0 / math.sqrt(d)
    exp_specs = [sp for sp in specs if "expanding" in sp["models"]]
    V = len(exp_specs)
    learn = V == 1 and exp_specs[0]["learn_prior"]
    if any(sp["learn_prior"] for sp in exp_specs) and not learn:
        raise ValueError("a variant that learns its prior trains alone")

    def init(model):   # one stream per (p, seed): the same initial weights for every variant of a model
        return torch.stack([torch.empty(2 * d + 1, d).uniform_(-bound, bound, generator=torch.Generator().manual_seed(
            derive_seed(s, f"exp-init:{model}:{d}:{p!r}"))) for p, s in reps])

    state = {}
    if V:
        params = [init("expanding").repeat(V, 1, 1).requires_grad_(True)]
        if learn:   # softplus⁻¹ of the initial hyper-prior, one pair per replica
            params.append(torch.log(torch.expm1(torch.tensor([[alpha0, beta0]] * R, dtype=torch.float32)))
                          .requires_grad_(True))
        # weight decay regularises the attention weights only, not the hyper-prior
        state["expanding"] = (params, [AdamState.zeros_like([q]) for q in params], np.zeros((V * R, steps), np.float32))
    if any("standard" in sp["models"] for sp in specs):
        params = [init("standard").requires_grad_(True)]
        state["standard"] = (params, [AdamState.zeros_like(params)], np.zeros((R, steps), np.float32))
    row = {k: [sp[k] for sp in exp_specs for _ in range(R)] for k in ("slope", "update", "score", "first_window")}
    gen = [torch.Generator().manual_seed(derive_seed(s, f"exp-data:{d}:{p!r}")) for p, s in reps]
    shape = (V * R, steps, batch_size)
    window, reach = np.zeros(shape, np.int32), np.zeros(shape, np.int16)
    iters, dist = np.zeros(shape, np.int16), np.zeros((R, steps, batch_size), np.int16)
    prior = np.zeros((V * R, -(-steps // record_every), 2), dtype=np.float32)   # steps 0, record_every, ...
    for step in tqdm(range(steps), disable=None if progress else True, desc=f"expanding d={d}"):
        X, y, distance = sample_expanding_batch(tasks, weights, batch_size, gen)
        dist[:, step] = distance.numpy()
        for model, (params, states, loss) in state.items():
            W = params[0]
            if model == "expanding":
                if learn:
                    ab = torch.nn.functional.softplus(params[1])
                    a0, b0 = ab[:, 0], ab[:, 1]
                else:
                    a0, b0 = torch.full((V * R,), alpha0), torch.full((V * R,), beta0)
                Xv, yv = (X, y) if V == 1 else (X.repeat(V, 1, 1, 1), y.repeat(V, 1))
                pred, res = expanding_forward(W, Xv, a0, b0, **row, detach_prior=not learn, return_result=True)
                window[:, step] = res.window.reshape(V * R, batch_size).numpy()
                reach[:, step] = res.reach.reshape(V * R, batch_size).numpy()
                iters[:, step] = res.iterations.reshape(V * R, batch_size).numpy()
                if step % record_every == 0:
                    prior[:, step // record_every] = torch.stack([a0, b0], -1).detach().numpy()
            else:
                pred, yv = standard_forward(W, X), y
            per_rep = ((pred - yv) ** 2).mean(1)
            grads = torch.autograd.grad(per_rep.sum(), params)
            for j, (q, g_q) in enumerate(zip(params, grads)):
                adam_update([q], [g_q], states[j], lr=lr, weight_decay=weight_decay if j == 0 else 0.0)
            loss[:, step] = per_rep.detach().numpy()
    outs, v = [], 0
    for sp in specs:
        out: dict[str, Any] = {"ps": np.array([p for p, _ in reps]), "seeds": np.array([s for _, s in reps])}
        if "expanding" in sp["models"]:
            sl = slice(v * R, (v + 1) * R)
            params, _, loss = state["expanding"]
            out.update({"loss/expanding": loss[sl], "distance/expanding": dist, "window": window[sl],
                        "reach": reach[sl], "iterations": iters[sl], "prior": prior[sl],
                        "W/expanding": params[0].detach()[sl].numpy()})
            v += 1
        if "standard" in sp["models"]:
            params, _, loss = state["standard"]
            out.update({"loss/standard": loss, "distance/standard": dist, "W/standard": params[0].detach().numpy()})
        outs.append(out)
    return outs


def _code_digest() -> str:
    """Digest of the modules that compute a training run (the mechanism, the task, this one, the optimiser)."""
    from . import expanding_core, expanding_prior, expanding_task, optim
    return store.code_digest(expanding_core, expanding_prior, expanding_task, __file__, optim)


def _spec(kw: Mapping[str, Any]) -> dict[str, Any]:
    unknown = set(kw) - set(VARIANT_DEFAULTS)
    if unknown:
        raise ValueError(f"a variant sets only {', '.join(VARIANT_DEFAULTS)}; got {sorted(unknown)}")
    sp = {**VARIANT_DEFAULTS, **kw}
    _check_choice("slope", sp["slope"], SLOPES)
    _check_choice("update", sp["update"], UPDATES)
    _check_choice("score", sp["score"], ("row", "column"))
    sp["models"] = tuple(sp["models"])
    for m in sp["models"]:
        _check_choice("model", m, ("expanding", "standard"))
    if not sp["models"] or len(set(sp["models"])) != len(sp["models"]):
        raise ValueError(f"models must name each of expanding, standard at most once, at least one; got "
                         f"{list(sp['models'])}")
    if sp["first_window"] is not None:
        _check_int("first_window", sp["first_window"], 2)
    sp["learn_prior"] = bool(sp["learn_prior"])
    return sp


def _config(sp, ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, record_every) -> dict:
    config = {"version": 2, "code": _code_digest(), "ps": ps, "d": d, "n": n, "seeds": seeds, "steps": steps,
              "batch_size": batch_size, "lr": lr, "weight_decay": weight_decay, "alpha0": alpha0,
              "beta0": beta0, "slope": sp["slope"], "update": sp["update"], "score": sp["score"],
              "learn_prior": sp["learn_prior"], "models": sp["models"], "record_every": record_every,
              "torch": torch.__version__.split("+")[0]}
    if sp["first_window"] is not None:
        config["first_window"] = sp["first_window"]
    if sp["learn_prior"]:
        config["prior_weight_decay"] = 0.0   # the hyper-prior is trained without weight decay
    return config


def train_expanding_variants(variants: Mapping[str, Mapping[str, Any]],
                             ps: Sequence[float] = (1 / 2, 1 / 5, 1 / 10, 1 / 25), d: int = 10, n: int = 50, *, seeds: Sequence[int] = (0,), steps: int = 2000,
                             batch_size: int = 1, lr: float = 5e-4, weight_decay: float = 2.0, alpha0: float = 0.1,
                             beta0: float = 0.9, record_every: int = 100, cache: bool = True,
                             progress: bool = False) -> dict[str, dict[str, Any]]:
    """:func:`train_expanding` for several variants at once: ``variants`` maps a name to the settings that
    differ (``slope``, ``update``, ``score``, ``learn_prior``, ``models``, ``first_window``). The variants not in
    the cache train in one loop on one data stream (a variant that learns its prior trains on its own); each
    result equals, bit for bit, :func:`train_expanding` with the same settings and is cached under its key.
    Returns {name: run}."""
    check_rule("variants", variants, "mapping")
    check_rule("ps", ps, "reals:(0,1]")
    ps = tuple(float(p) for p in ps)
    for p in ps:
        if not 0.0 < p <= 1.0:
            raise ValueError(f"every p must lie in (0, 1]; got {p}")
    _check_int("d", d, 1)
    _check_int("n", n, 3)
    _check_int("steps", steps, 1)
    _check_int("batch_size", batch_size, 1)
    _check_int("record_every", record_every, 1)
    seeds = tuple(_check_int("seed", s, 0) for s in seeds)
    for name, values in (("ps", ps), ("seeds", seeds)):   # a repeated (p, seed) replica would be pooled twice
        if not values or len(set(values)) != len(values):
            raise ValueError(f"{name} must be distinct values, at least one; got {list(values)}")
    if not variants:
        raise ValueError("variants must name at least one variant; got none")
    # the per-step records: window (int32), reach, iterations, distance (int16) per query, a loss per replica
    check_alloc("steps", (10 * batch_size + 8) * len(variants) * len(ps) * len(seeds) * steps,
                what="the per-step records")
    _check_hyper_prior(alpha0, beta0)
    common = (ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, record_every)
    specs = {name: _spec(kw) for name, kw in variants.items()}
    out, todo = {}, {}
    for name, sp in specs.items():
        key = store.config_hash(_config(sp, *common))
        path = store.cache_dir("designs") / f"expanding-{key}.npz"
        # verified (key, content hash): a damaged, planted or copied entry is recomputed with a CacheWarning
        found = caches.load_cached_npz(path) if cache else None
        if found is not None:
            out[name] = found
        else:
            todo[name] = (sp, key, path)
    groups = [[name] for name, (sp, _, _) in todo.items() if sp["learn_prior"]]
    groups += [[name for name, (sp, _, _) in todo.items() if not sp["learn_prior"]]]
    for group in (g for g in groups if g):
        runs = _train([todo[name][0] for name in group], *common, progress)
        for name, run in zip(group, runs):
            run["config"] = np.array(todo[name][1])
            if cache:
                caches.save_cached_npz(todo[name][2], run)
            out[name] = run
    return {name: out[name] for name in variants}


@contract(ps="reals:(0,1]", d="int:1", n="int:3", seeds="ints:0", steps="int:1", batch_size="int:1", lr="real:>0",
          weight_decay="real:>=0", alpha0="real:>0", beta0="real:>0", record_every="int:1",
          alloc=lambda a: [("batch_size", 32 * a["batch_size"] * len(a["ps"]) * len(a["seeds"]) * a["n"] * a["d"])])
def train_expanding(ps: Sequence[float] = (1 / 2, 1 / 5, 1 / 10, 1 / 25), d: int = 10, n: int = 50, *,
                    seeds: Sequence[int] = (0,), steps: int = 2000, batch_size: int = 1,
                    lr: float = 5e-4, weight_decay: float = 2.0, alpha0: float = 0.1, beta0: float = 0.9,
                    slope: str = "paper", update: str = "plugin", score: str = "row",
                    learn_prior: bool = False, models: Sequence[str] = ("expanding", "standard"),
                    record_every: int = 100, first_window: int | None = None, cache: bool = True,
                    progress: bool = False) -> dict[str, Any]:
    """Train expanding and standard attention on the toy task for every recency bias p at once.

    Every (p, seed) is one replica with its own task weights and model; all replicas of a model
    share one training loop (one tensor op per step). Defaults follow the public code (batch 1,
    Adam lr 5e-4 with weight decay 2, α₀ = 0.1, β₀ = 0.9), at fewer steps; ``slope``/``update``
    choose the paper's or the code's prior, ``score='column'`` the code's q_t·k_T scores,
    ``learn_prior`` trains α₀, β₀ by gradient (softplus-parametrised; the code never does);
    ``first_window`` fixes the first sweep's window (see :func:`~.expanding_core.expanding_attention`).

    Returns numpy arrays: ``ps``, ``seeds`` (R,), per model ``loss/<model>`` (R, steps) and
    ``distance/<model>`` (R, steps, B) the true distance of x0; for expanding ``window`` and
    ``iterations`` (R, steps, B), ``reach`` (R, steps, B) the widest window any sweep scored, and
    ``prior`` (R, steps//record_every, 2) = (α₀, β₀).
    Cached under ``cache_dir("designs")`` keyed by the configuration.
    """
    variant = {"slope": slope, "update": update, "score": score, "learn_prior": learn_prior, "models": models,
               "first_window": first_window}
    return train_expanding_variants({"run": variant}, ps, d, n, seeds=seeds, steps=steps, batch_size=batch_size,
                                     lr=lr, weight_decay=weight_decay, alpha0=alpha0, beta0=beta0,
                                     record_every=record_every, cache=cache, progress=progress)["run"]
