"""What expanding attention costs: the lazy windowed computation and the operation counts.

:func:`lazy_expanding_attention` computes only the dot products inside the window, as the widest
window of the batch grows (the point of the design; ``benchmarks/bench_windowed_attention.py``
times it against full attention). Two counts of the cost per query relative to full attention's n·d:

* :func:`relative_operations`: the paper's (m·d + k)/(n·d) with m the *final* window and k the
  iterations (Singh & Buckley 2023, Fig. 3 right), or the public code's m·(d + k)/(n·d);
* :func:`operations_as_run`: (r·d + k)/(n·d) with r the *widest* window any sweep scored (the
  ``reach`` of :class:`~.expanding_core.ExpandingResult`). The first window is always scored, so
  r ≥ the first window even where the posterior later shrinks the window: the paper's count, which
  uses the final m, undercounts those queries.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..companion.checks import check_choice as _check_choice, check_int as _check_int, check_real, contract
from .expanding_core import (SLOPES, UPDATES, ExpandingResult, _check_hyper_prior, _stop, effective_q,
                             geometric_horizon, prior_slope)

__all__ = ["OPS_MODES", "lazy_expanding_attention", "relative_operations", "operations_as_run"]

OPS_MODES = ("paper", "code")


@contract(query="tensor:2", keys="tensor:3", values="tensor:3", alpha0="real", beta0="real", mass="real:(0,1)",
          max_iter="int:1", tol="real:>=0", scale="real:>0?")
def lazy_expanding_attention(query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                             alpha0: float, beta0: float, *, slope: str = "paper",
                             update: str = "plugin", mass: float = 0.95, max_iter: int = 100,
                             tol: float = 0.01, scale: float | None = None):
    """Expanding attention that scores only the keys inside the current window.

    query: (B, dk) for the last token; keys (B, T, dk), values (B, T, dv). The dot products
    q·k_t/√dk are computed once each, as the largest window in the batch grows, never for the
    tokens the window does not reach. Same result as :func:`expanding_attention` on the full
    scores (the masked entries have zero weight). Returns (ExpandingResult, n_dot_products),
    where n_dot_products is the number of key rows scored per sequence (those of the batch's widest
    window; ``result.reach - 1`` is what each sequence alone would have scored).
    """
    _check_choice("slope", slope, SLOPES)
    _check_choice("update", update, UPDATES)
    _check_int("max_iter", max_iter, 1)
    check_real("tol", tol, minimum=0.0)
    _check_hyper_prior(alpha0, beta0)
    if query.dim() != 2 or keys.dim() != 3 or keys.shape[0] != query.shape[0] or keys.shape[2] != query.shape[1]:
        raise ValueError(f"query must be (B, dk) and keys (B, T, dk); got {tuple(query.shape)}, {tuple(keys.shape)}")
    if values.shape[:2] != keys.shape[:2]:
        raise ValueError(f"values must have one row per key, (B, T, dv) = ({keys.shape[0]}, {keys.shape[1]}, dv); "
                         f"got {tuple(values.shape)}")
    B, T, _ = keys.shape
    if T < 2:
        raise ValueError(f"keys must hold at least 2 tokens (the query's and one key); got T = {T}")
    if not query.dtype == keys.dtype == values.dtype:
        raise TypeError(f"query, keys and values must have one dtype; got query {query.dtype}, keys {keys.dtype} and "
                        f"values {values.dtype}")
    scale = 1.0 / math.sqrt(query.shape[1]) if scale is None else scale
    dtype = keys.dtype
    dist = torch.arange(T - 1, -1, -1, dtype=dtype, device=keys.device)
    alpha = torch.full((B,), float(alpha0), dtype=dtype, device=keys.device)
    beta = torch.full((B,), float(beta0), dtype=dtype, device=keys.device)
    active = torch.ones(B, dtype=torch.bool, device=keys.device)
    h_old = torch.zeros(B, dtype=dtype, device=keys.device)
    iterations = torch.zeros(B, dtype=torch.long, device=keys.device)
    window = torch.zeros(B, dtype=torch.long, device=keys.device)
    horizon = torch.zeros(B, dtype=dtype, device=keys.device)
    scored = torch.empty(B, 0, dtype=dtype, device=keys.device)   # scores of the last `reach` tokens
    reach = 1                                                      # the query itself: never scored
    a_win = None
    reach_b = torch.zeros(B, dtype=torch.long, device=keys.device)   # per sequence: the widest window
    for i in range(max_iter):
        q = effective_q(alpha, beta, update)
        h = geometric_horizon(q, mass)
        m = torch.clamp(torch.ceil(h), min=2).long().clamp(max=T)
        need = int(m[active].max()) if bool(active.any()) else reach
        if need > reach:   # score only the newly reached tokens (distances reach .. need-1)
            new = torch.einsum("btd,bd->bt", keys[:, T - need:T - reach], query) * scale
            scored = torch.cat([new, scored], dim=1)
            reach = need
        d_win = dist[T - reach:T - 1]                              # distances reach-1 .. 1
        logits = scored + d_win[None, :] * prior_slope(q, slope, mass)[:, None]
        inside = d_win[None, :] < m[:, None].to(dtype)
        a_new = torch.softmax(logits.masked_fill(~inside, float("-inf")), dim=-1)
        if a_win is None or a_win.shape[1] != a_new.shape[1]:
            a_win = torch.zeros_like(a_new) if a_win is None else torch.cat(
                [torch.zeros(B, a_new.shape[1] - a_win.shape[1], dtype=dtype, device=keys.device), a_win], 1)
        a_win = torch.where(active[:, None], a_new, a_win)
        hm = torch.ceil(h).long().clamp(min=2)
        window = torch.where(active, hm, window)
        reach_b = torch.where(active, torch.maximum(reach_b, m), reach_b)
        horizon = torch.where(active, h, horizon)
        iterations = torch.where(active, torch.full_like(iterations, i + 1), iterations)
        if update == "cavi":
            alpha = torch.where(active, alpha0 + 1.0, alpha)
            beta = torch.where(active, beta0 + (a_new * (d_win - 1)).sum(-1), beta)
        else:
            alpha = torch.where(active, alpha + 1, alpha)
            beta = torch.where(active, beta + (a_new * d_win).sum(-1), beta)
        stop = _stop(h, h_old, T, tol, update)
        h_old = torch.where(active, h, h_old)
        active = active & ~stop
        if not bool(active.any()):
            break
    output = torch.einsum("bt,btv->bv", a_win, values[:, T - reach:T - 1])
    att = torch.zeros(B, T, dtype=dtype, device=keys.device)
    att[:, T - reach:T - 1] = a_win
    result = ExpandingResult(output, att, window, horizon, iterations, alpha, beta, None, None, reach_b)
    return result, reach - 1


@contract(window="numbers", iterations="numbers")
def relative_operations(window, iterations, n: int, d: int, mode: str = "paper", floor: int = 28):
    """Cost of expanding attention per query relative to full attention's n·d, per step.

    window: ⌈H⌉ of each query (m), iterations: number of iterations performed (k).
    paper: (m·d + k) / (n·d) with m = min(window, n)
    code : m·(d + k) / (n·d) with m = max(floor, min(window, n)), the public figure script
           (which adds 1 to its stored 0-based iteration index; pass the count here).
    Returns a numpy array of the same shape; average it over training steps for the figure.
    """
    _check_choice("relative-operations mode", mode, OPS_MODES)
    n, d, floor = _check_int("n", n, 1), _check_int("d", d, 1), _check_int("floor", floor, 0)
    w = np.minimum(np.asarray(window, dtype=float), n)
    k = np.asarray(iterations, dtype=float)
    if w.shape != k.shape:   # one count per window (numpy would broadcast a mismatch silently)
        raise ValueError(f"window and iterations must have one shape (one count per query); got {w.shape} and "
                         f"{k.shape}")
    if w.size and w.min() < 0:
        raise ValueError(f"window must be window sizes >= 0; got {w.min():g}")
    if k.size and k.min() < 0:
        raise ValueError(f"iterations must be counts >= 0; got {k.min():g}")
    if mode == "paper":
        return (w * d + k) / (n * d)
    return np.maximum(floor, w) * (d + k) / (n * d)


@contract(reach="numbers", iterations="numbers")
def operations_as_run(reach, iterations, n: int, d: int):
    """Cost per query as the implementation runs it, relative to full attention's n·d: (r·d + k)/(n·d).

    reach: the widest window min(m, n) that any sweep scored (≥ the first window; a raw window m above n is
    clipped to n), iterations: k.
    Compare :func:`relative_operations` (mode ``paper``), which charges the final window instead.
    Returns a numpy array of the same shape.
    """
    _check_int("n", n, 2)
    _check_int("d", d, 1)
    r, k = np.asarray(reach, dtype=float), np.asarray(iterations, dtype=float)
    if r.shape != k.shape:
        raise ValueError(f"reach and iterations must have one shape (one count per query); got {r.shape} and {k.shape}")
    if r.size and r.min() < 0:
        raise ValueError(f"reach must be window sizes >= 0 (a window above n is clipped to n); got {r.min():g}")
    if k.size and k.min() < 0:
        raise ValueError(f"iterations must be counts >= 0; got {k.min():g}")
    r = np.minimum(r, n)
    return (r * d + k) / (n * d)
