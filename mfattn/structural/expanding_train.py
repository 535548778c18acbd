"""Training expanding and standard attention on the toy task, every (p, seed) in one batched loop.

:func:`train_expanding` is the run behind the chapter's Figure 3 and its verdicts; every (p, seed) is one
replica with its own random streams (:func:`~.optim.derive_seed`), so a replica's run does not depend on
which other replicas are trained beside it. Results are cached under ``cache_dir("designs")`` keyed by
the configuration and a digest of the modules that compute them.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import torch

from ..companion import store
from ..companion.checks import check_choice as _check_choice, check_int as _check_int
from .expanding_core import SLOPES, UPDATES, _check_hyper_prior
from .expanding_task import ExpandingTask, expanding_forward, make_expanding_weights, sample_expanding_batch, \
    standard_forward
from .optim import AdamState, adam_update, derive_seed

__all__ = ["train_expanding"]


def _train_expanding(ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, slope,
                     update, score, learn_prior, models, record_every, progress, first_window=None):
    from tqdm import tqdm

    reps = [(p, s) for s in seeds for p in ps]
    R = len(reps)
    tasks = [ExpandingTask(d=d, n=n, p=p) for p, _ in reps]
    weights = [make_expanding_weights(d, torch.Generator().manual_seed(derive_seed(s, f"exp-task:{p}")))
               for p, s in reps]
    bound = 1.0 / math.sqrt(d)
    out: dict[str, Any] = {"ps": np.array([p for p, _ in reps]), "seeds": np.array([s for _, s in reps])}
    state = {}
    for model in models:
        # one stream per (p, seed) for the initial weights and the data: a replica's run does not
        # depend on which other replicas are trained beside it
        W = torch.stack([torch.empty(2 * d + 1, d).uniform_(
            -bound, bound, generator=torch.Generator().manual_seed(derive_seed(s, f"exp-init:{model}:{d}:{p!r}")))
            for p, s in reps]).requires_grad_(True)
        params = [W]
        if model == "expanding" and learn_prior:
            # softplus⁻¹ of the initial hyper-prior, one pair per replica
            raw = torch.log(torch.expm1(torch.tensor([[alpha0, beta0]] * R, dtype=torch.float32)))
            params.append(raw.requires_grad_(True))
        # weight decay regularises the attention weights only, not the hyper-prior
        state[model] = (params, [AdamState.zeros_like([q]) for q in params], np.zeros((R, steps), dtype=np.float32))
    # one data stream per replica, drawn once per step for every model (common random numbers)
    gen = [torch.Generator().manual_seed(derive_seed(s, f"exp-data:{d}:{p!r}")) for p, s in reps]
    window = np.zeros((R, steps, batch_size), dtype=np.int32)
    reach = np.zeros((R, steps, batch_size), dtype=np.int16)
    iters = np.zeros((R, steps, batch_size), dtype=np.int16)
    dist = np.zeros((R, steps, batch_size), dtype=np.int16)
    prior = np.zeros((R, -(-steps // record_every), 2), dtype=np.float32)   # steps 0, record_every, ...
    for step in tqdm(range(steps), disable=None if progress else True, desc=f"expanding d={d}"):
        X, y, distance = sample_expanding_batch(tasks, weights, batch_size, gen)
        dist[:, step] = distance.numpy()
        for model, (params, states, loss) in state.items():
            W = params[0]
            if model == "expanding":
                if learn_prior:
                    ab = torch.nn.functional.softplus(params[1])
                    a0, b0 = ab[:, 0], ab[:, 1]
                else:
                    a0, b0 = torch.full((R,), alpha0), torch.full((R,), beta0)
                pred, res = expanding_forward(W, X, a0, b0, slope=slope, update=update, score=score,
                                              detach_prior=not learn_prior, first_window=first_window,
                                              return_result=True)
                window[:, step] = res.window.reshape(R, batch_size).numpy()
                reach[:, step] = res.reach.reshape(R, batch_size).numpy()
                iters[:, step] = res.iterations.reshape(R, batch_size).numpy()
                if step % record_every == 0:
                    prior[:, step // record_every] = torch.stack([a0, b0], -1).detach().numpy()
            else:
                pred = standard_forward(W, X)
            per_rep = ((pred - y) ** 2).mean(1)
            grads = torch.autograd.grad(per_rep.sum(), params)
            for j, (q, g_q) in enumerate(zip(params, grads)):
                adam_update([q], [g_q], states[j], lr=lr, weight_decay=weight_decay if j == 0 else 0.0)
            loss[:, step] = per_rep.detach().numpy()
    for model, (params, _, loss) in state.items():
        out[f"loss/{model}"] = loss
        out[f"distance/{model}"] = dist
        if model == "expanding":
            out["window"] = window
            out["reach"] = reach
            out["iterations"] = iters
            out["prior"] = prior
        out[f"W/{model}"] = params[0].detach().numpy()
    return out


def _code_digest() -> str:
    """Digest of the modules that compute a training run (the mechanism, the task, this one, the optimiser)."""
    from . import expanding_core, expanding_task, optim
    return store.code_digest(expanding_core, expanding_task, __file__, optim)


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
    ps = tuple(float(p) for p in ps)
    for p in ps:
        if not 0.0 < p <= 1.0:
            raise ValueError(f"every p must lie in (0, 1]; got {p}")
    _check_int("d", d, 1)
    _check_int("n", n, 3)
    _check_int("steps", steps, 1)
    _check_int("batch_size", batch_size, 1)
    _check_int("record_every", record_every, 1)
    _check_choice("slope", slope, SLOPES)
    _check_choice("update", update, UPDATES)
    _check_choice("score", score, ("row", "column"))
    for m in models:
        _check_choice("model", m, ("expanding", "standard"))
    seeds = tuple(_check_int("seed", s, 0) for s in seeds)
    _check_hyper_prior(alpha0, beta0)
    config = {"version": 2, "code": _code_digest(), "ps": ps, "d": d, "n": n, "seeds": seeds, "steps": steps,
              "batch_size": batch_size, "lr": lr, "weight_decay": weight_decay, "alpha0": alpha0,
              "beta0": beta0, "slope": slope, "update": update, "score": score,
              "learn_prior": learn_prior, "models": tuple(models), "record_every": record_every,
              "torch": torch.__version__.split("+")[0]}
    if first_window is not None:
        config["first_window"] = _check_int("first_window", first_window, 2)
    if learn_prior:
        config["prior_weight_decay"] = 0.0   # the hyper-prior is trained without weight decay
    path = store.cache_dir("designs") / f"expanding-{store.config_hash(config)}.npz"
    if cache and path.exists():
        return store.load_npz(path)
    out = _train_expanding(ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, slope,
                           update, score, learn_prior, tuple(models), record_every, progress, first_window)
    out["config"] = np.array(store.config_hash(config))
    if cache:
        store.atomic_save_npz(path, **out)
    return out
