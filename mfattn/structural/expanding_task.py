"""Expanding attention's toy task (Singh & Buckley 2023, Fig. 3) and the two models trained on it.

:class:`ExpandingTask` and :func:`sample_expanding_batch` draw sequences of n tokens whose root x₀ lies a
geometric distance back from the query; :func:`expanding_forward` predicts the target with expanding
attention (:func:`~.expanding_core.expanding_attention`) and :func:`standard_forward` with ordinary
attention over every earlier token. Shapes: R replicas (one per (p, seed)), B sequences, T tokens of d.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import torch

from ..companion.checks import check_alloc, check_int as _check_int, check_rule, contract
from .expanding_core import expanding_attention

__all__ = ["ExpandingTask", "make_expanding_weights", "sample_expanding_batch", "expanding_forward",
           "standard_forward"]


# ----------------------------------------------------------------------------- the toy task
@dataclass(frozen=True)
class ExpandingTask:
    """The toy task of the paper's Figure 3.

    A sequence of n tokens in R^d: n-2 noise tokens ~ N(0, noise_std²), a root
    x0 ~ U[0, x0_scale)^d and the query x1 = x0 W_r + ε, last. The root lies at distance
    t = min(G + 1, n - 1) from the query, G ~ Geometric(p) on {1, 2, ...} (the public code's
    placement). Target y = W_y x0.
    """

    d: int = 10
    n: int = 50
    p: float = 0.1
    noise_std: float = 0.1
    x0_scale: float = 2.0

    def __post_init__(self) -> None:
        _check_int("d", self.d, 1)
        _check_int("n", self.n, 3)
        check_rule("p (recency bias)", self.p, "real:(0,1]")
        check_rule("noise_std", self.noise_std, "real:>=0"), check_rule("x0_scale", self.x0_scale, "real:>0")


@contract(d="int:1", generator="generator", alloc=lambda a: [("d", 8 * a["d"] * (a["d"] + 1))])
def make_expanding_weights(d: int, generator: torch.Generator):
    """W_y ~ N(1, 1)^{1×d} and W_r ~ U[0, 1)^{d×d}, in the public code's order."""
    W_y = torch.normal(mean=torch.ones(1, d), std=1.0, generator=generator)
    W_r = torch.rand(d, d, generator=generator)
    return W_y, W_r


def _check_shapes(W: torch.Tensor, X: torch.Tensor) -> None:
    d = X.shape[-1]
    if W.shape[0] != X.shape[0] or W.shape[-1] != d or W.shape[1] < 2 * d + 1:
        raise ValueError(f"W must be (R, 2d+1, d) for X (R, B, T, d); got W {tuple(W.shape)}, X {tuple(X.shape)}")
    if W.dtype != X.dtype:   # torch's matmul refuses a mix in its own words
        raise TypeError(f"W and X must have one dtype; got W {W.dtype} and X {X.dtype}")


def sample_expanding_batch(tasks: Sequence[ExpandingTask], weights, batch_size: int,
                           generator: torch.Generator | Sequence[torch.Generator]):
    """A batch for each of R tasks (same d and n, any p).

    weights: list of (W_y, W_r) per task. ``generator``: one generator for all R tasks (drawn at
    once), or a list of R generators, one stream per task, so that a task's batch does not depend
    on which other tasks are drawn with it. Returns X (R, B, n, d), y (R, B), distance (R, B) long.
    """
    if isinstance(tasks, (str, bytes)) or not isinstance(tasks, Sequence) or not tasks \
            or not all(isinstance(t, ExpandingTask) for t in tasks):
        raise TypeError(f"tasks must be a non-empty list of ExpandingTask; got {type(tasks).__name__}")
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) or len(weights) != len(tasks) or not all(
            isinstance(w, (tuple, list)) and len(w) == 2 and all(isinstance(t, torch.Tensor) for t in w) for w in weights):
        raise TypeError(f"weights must be one (W_y, W_r) pair of tensors per task ({len(tasks)}); got "
                        f"{type(weights).__name__}")
    per_task = not isinstance(generator, torch.Generator)
    if per_task and (isinstance(generator, (str, bytes)) or not isinstance(generator, Sequence)
                     or not all(isinstance(g, torch.Generator) for g in generator)):
        raise TypeError(f"generator must be a torch.Generator or one per task; got {type(generator).__name__}")
    if per_task:
        generator = list(generator)
        if len(generator) != len(tasks):
            raise ValueError(f"generator: one per task ({len(tasks)}); got {len(generator)}")
        if len({id(g) for g in generator}) != len(generator):   # one stream per task, else draws interleave
            raise ValueError("generator: one generator object of its own per task; got one object twice")
    R, B = len(tasks), _check_int("batch_size", batch_size, 1)
    d, n = tasks[0].d, tasks[0].n
    check_alloc("batch_size", 4 * R * B * n * (2 * d + 2), what="the batch")
    if any(t.d != d or t.n != n for t in tasks):
        raise ValueError("all tasks of one batch must share d and n")
    bad = next((i for i, (w_y, w_r) in enumerate(weights) if tuple(w_y.shape) != (1, d) or tuple(w_r.shape) != (d, d)),
               None)
    if bad is not None:   # make_expanding_weights' shapes; another would broadcast or fail inside torch
        raise ValueError(f"weights[{bad}] must be (W_y, W_r) of shapes (1, {d}) and ({d}, {d}); got "
                         f"{tuple(weights[bad][0].shape)} and {tuple(weights[bad][1].shape)}")
    bad = next((i for i, w in enumerate(weights) if any(t.dtype != torch.float32 or not bool(torch.isfinite(t).all())
                                                         for t in w)), None)
    if bad is not None:   # the batch is drawn in float32: another dtype would be cast, NaN would spread silently
        raise ValueError(f"weights[{bad}] must be finite float32 tensors (make_expanding_weights); got "
                         f"{weights[bad][0].dtype} and {weights[bad][1].dtype}, finite: "
                         f"{all(bool(torch.isfinite(t).all()) for t in weights[bad])}")
    std = torch.tensor([t.noise_std for t in tasks])[:, None, None, None]
    scale = torch.tensor([t.x0_scale for t in tasks])[:, None, None, None]
    p = torch.tensor([t.p for t in tasks], dtype=torch.float64)[:, None]
    W_y = torch.stack([w[0] for w in weights])                  # (R, 1, d)
    W_r = torch.stack([w[1] for w in weights])                  # (R, d, d)
    with torch.no_grad():
        if per_task:   # each task's four draws from its own stream, in this order; the rest is batched
            draws = [(torch.rand(1, B, 1, d, generator=g), torch.randn(1, B, n - 2, d, generator=g),
                      torch.randn(1, B, 1, d, generator=g), torch.rand(1, B, generator=g, dtype=torch.float64))
                     for g in generator]
            x0, noise, eps, u = (torch.cat(z) for z in zip(*draws))
        else:
            x0 = torch.rand(R, B, 1, d, generator=generator)
            noise = torch.randn(R, B, n - 2, d, generator=generator)
            eps = torch.randn(R, B, 1, d, generator=generator)
            u = torch.rand(R, B, generator=generator, dtype=torch.float64)
        x0, noise = x0 * scale, noise * std
        # x0 W_r as a sum over the last axis: a task's result does not depend on how many are drawn with it
        x1 = (x0[..., :, None, :] * W_r.transpose(-1, -2)[:, None, None]).sum(-1) + eps * std
        # G ~ Geometric(p) on {1, 2, ...} by inversion; p = 1 gives G = 1
        G = torch.where(p < 1, torch.floor(torch.log1p(-u) / torch.log1p(-p.clamp(max=1 - 1e-12))) + 1,
                        torch.ones_like(u))
        distance = torch.clamp(G + 1, max=n - 1).long()
        pos = (n - 1 - distance)                                 # index of x0
        idx = torch.arange(n - 1)[None, None, :]
        # noise tokens fill the other n-2 slots in order (they are i.i.d., so order is immaterial)
        src = torch.where(idx < pos[..., None], idx, idx - 1).clamp(min=0)
        body = torch.gather(noise, 2, src[..., None].expand(R, B, n - 1, d))
        body = torch.where((idx == pos[..., None])[..., None], x0.expand(R, B, n - 1, d), body)
        X = torch.cat([body, x1], dim=2)
        y = (x0[:, :, 0, :] * W_y).sum(-1)                       # W_y x0, (R, B)
    return X, y, distance


# ----------------------------------------------------------------------------- models
def _qkv(X: torch.Tensor, W: torch.Tensor):
    d = X.shape[-1]
    proj = X @ W.transpose(-1, -2)[:, None]
    return proj.split([d, d, W.shape[1] - 2 * d], dim=-1)


def _last_scores(q, k, score: str):
    """Scores of the last token: ``row`` q_T·k_t (the paper), ``column`` q_t·k_T (the code's expanding).

    Written as a product and a sum over the last (contiguous) axis rather than a matmul: a batched
    matmul's summation order depends on how many sequences it is given, this one does not, so a
    replica trains bit-identically alone and in a batch (also at the paper's d = 10, n = 50).
    """
    if score == "row":
        s = (k * q[..., -1:, :]).sum(-1)
    elif score == "column":
        s = (q * k[..., -1:, :]).sum(-1)
    else:
        raise ValueError(f"score must be 'row' or 'column'; got {score!r}")
    return s / math.sqrt(q.shape[-1])


@contract(W="tensor:3", X="tensor:4", alpha0="realt:>0", beta0="realt:>0")
def expanding_forward(W: torch.Tensor, X: torch.Tensor, alpha0, beta0, *, slope="paper",
                      update="plugin", score="row", first_window=None, detach_prior=False, return_result=False,
                      **kw):
    """Expanding-attention prediction at the query. W: (R, 2d+1, d), X: (R, B, T, d) → (R, B).

    ``slope``, ``update``, ``score`` and ``first_window`` are one value for every replica or one per
    replica (length R): several variants then train in one loop, each replica computing exactly what
    it computes alone (see :func:`~.expanding_core.expanding_attention`).
    """
    _check_shapes(W, X)
    R, B, T, _ = X.shape
    for name, x in (("alpha0", alpha0), ("beta0", beta0)):   # a number or one per replica
        if torch.is_tensor(x) and x.numel() not in (1, R):
            raise ValueError(f"{name} must be a number or one per replica ({R}); got shape {tuple(x.shape)}")
    for name, value in (("slope", slope), ("update", update), ("score", score)):
        if not isinstance(value, (str, list, tuple)):   # a Path or a number failed deep in the per-row expansion
            raise TypeError(f"{name} must be a name or a list of one name per replica ({R}); got "
                            f"{type(value).__name__} {value!r:.40}")
    q, k, v = _qkv(X, W)

    def per_row(value):   # one per replica -> one per sequence
        return value if value is None or isinstance(value, (str, int)) else [x for x in value for _ in range(B)]

    if isinstance(score, str):
        s = _last_scores(q, k, score)
    else:
        if len(score) != R:
            raise ValueError(f"score: one per replica ({R}); got {len(score)}")
        col = torch.tensor([sc == "column" for sc in score])[:, None, None]
        for sc in set(score):
            _last_scores(q[:1, :1], k[:1, :1], sc)             # names an unknown score
        s = torch.where(col, _last_scores(q, k, "column"), _last_scores(q, k, "row"))
    s = s.reshape(R * B, T)
    # in X's dtype: a Python 0.1 made a float32 tensor first would enter float64 runs rounded
    a0 = torch.as_tensor(alpha0, dtype=X.dtype).reshape(-1, 1).expand(R, B).reshape(-1)
    b0 = torch.as_tensor(beta0, dtype=X.dtype).reshape(-1, 1).expand(R, B).reshape(-1)
    res = expanding_attention(s, v.reshape(R * B, T, -1), a0, b0, slope=per_row(slope), update=per_row(update),
                              first_window=per_row(first_window), detach_prior=detach_prior, **kw)
    pred = res.output[:, 0].reshape(R, B)
    return (pred, res) if return_result else pred


@contract(W="tensor:3", X="tensor:4")
def standard_forward(W: torch.Tensor, X: torch.Tensor, *, return_attention=False):
    """Ordinary attention of the query over the other T-1 tokens (the code's self_attend=False)."""
    _check_shapes(W, X)
    q, k, v = _qkv(X, W)
    s = _last_scores(q, k, "row")
    s = torch.cat([s[..., :-1], torch.full_like(s[..., -1:], float("-inf"))], -1)
    a = torch.softmax(s, -1)
    pred = (a * v[..., 0]).sum(-1)                       # a sum over the last axis (see _last_scores)
    return (pred, a) if return_attention else pred
