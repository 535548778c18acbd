"""Expanding attention's mechanism: a geometric prior over how far back the query's parent lies.

Singh & Buckley (2023, Sec. 5) replace attention's implicit uniform prior over edges by a geometric
prior on the distance t ≥ 1 from the query, p(t | q) ∝ (1 - q)^t, with a conjugate Beta(α, β)
hyper-prior on q. Their iteration alternates

    attention:   a_t ∝ exp(s_t + t · slope(α, β)),   t inside the window t < m(α, β)
    hyper-prior: α ← α + 1,  β ← β + Σ_t a_t · t     (accumulating: once per sweep)

where s_t = q·k_t/√d are the usual scores. This is *not* coordinate-ascent mean-field inference
of the model it states: the same single edge is counted once per sweep, so α and β grow with the
number of sweeps. Only the m = ⌈H⌉ most recent tokens are scored, with H = log(0.05)/log(1 - q̃)
the horizon holding 95 % of the prior's mass, so the context window grows while the posterior says
the parent lies further back. Two slopes are offered:

    paper: slope = log(1 - q̃)           (the geometric log-prior itself)
    code : slope = -1 / H(q̃)            (the public code: a linear ramp reaching -1 at the horizon)

and three updates (``UPDATES``): ``plugin`` and ``digamma``, the paper's accumulating update with the
plug-in estimate q̃ = α/(α+β) (the paper's step 1 and the public code) or the digamma estimate
q̃ = 1 - exp(ψ(β) - ψ(α+β)), i.e. log(1 - q̃) = E_Beta[log(1 - q)]; and ``cavi``, coordinate-ascent
variational inference for t ~ Geometric(q) on {1, 2, ...}, q ~ Beta(α₀, β₀), with q(t) q(q)
factorised:

    q(t) ∝ exp(s_t + t · E[log(1 - q)])                  (E over the current Beta(α, β))
    q(q) = Beta(α₀ + 1, β₀ + E[t - 1])                  (recomputed from the prior every sweep)

iterated to its fixed point (|ΔH| < tol). Its window is the 95 % horizon of the *current* q(q), so
it moves down as well as up: q(t) is truncated to a window that changes between sweeps, and the
ELBO of the untruncated model need not rise at a sweep where the window shrinks (a CAVI step on a
fixed support never lowers it; see :func:`.expanding_prior.expanding_elbo`).

Everything is batched: α, β, the horizon, the window and a stopping flag are (B,) tensors and
the window is a mask, so one iteration is a few tensor ops for the whole batch. The paper's rules
stop a sequence when its horizon passes T, shrinks or grows by less than ``tol``; the output and
the recorded window are those of the *stopping* sweep, so a sequence whose last sweep shrank the
horizon ends with the narrower window (not the widest it reached, which ``reach`` records).

The loop in :func:`expanding_attention` is the readable form; on the CPU the same sweeps run in
:func:`_sweep_without_graph` (no gradient, e.g. ``detach_prior``) or :func:`_sweep_with_graph`, which do every
row's floating-point operations in the same order (bit-identical results and gradients) in fewer tensor ops.
The prior (horizon, estimates of q, slopes) and the ELBO are in :mod:`.expanding_prior`, importable from here.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import torch

from ..companion.checks import check_choice as _check_choice, check_int as _check_int, check_real
from ..companion.checks import contract
# the prior, its estimates of q and the ELBO live in .expanding_prior; importable from here as before
from .expanding_prior import (SLOPES, UPDATES, _estimate_q, _horizon, effective_q,  # noqa: F401
                              expanding_elbo, geometric_horizon, prior_slope)

__all__ = ["SLOPES", "UPDATES", "geometric_horizon", "effective_q", "prior_slope", "ExpandingResult",
           "expanding_attention", "expanding_elbo"]


# ----------------------------------------------------------------------------- the mechanism
class ExpandingResult(NamedTuple):
    """Output of :func:`expanding_attention` (B = batch, T = sequence length incl. the query)."""

    output: torch.Tensor        # (B, dv)   Σ_t a_t v_t
    attention: torch.Tensor     # (B, T)    a_t, zero outside the window and on the query itself
    window: torch.Tensor        # (B,) long ⌈H⌉ at the last iteration (may exceed T, as in the code)
    horizon: torch.Tensor       # (B,)      H at the last iteration
    iterations: torch.Tensor    # (B,) long number of iterations performed (≥ 1)
    alpha: torch.Tensor         # (B,)      hyper-prior after the updates
    beta: torch.Tensor          # (B,)
    history: list | None        # per iteration: dict(q, horizon, window, attention, active)
    slope_final: torch.Tensor | None = None   # (B,) the prior slope of the last iteration
    reach: torch.Tensor | None = None         # (B,) long: the widest window min(m, T) of any sweep run, so
    #                                           reach - 1 keys were scored (the first window always is)


_RESULT_NEW = ExpandingResult.__new__


def _checked_result(cls, *args, **kwargs):
    """ExpandingResult(...) checks that its fields fit one batch: attention (B, T), output (B, dv) (or None while
    the sweeps build it), the per-sequence fields (B,) (slope_final and reach may be None). ``_replace`` and
    ``_make`` copy a checked result without this check."""
    result = _RESULT_NEW(cls, *args, **kwargs)
    att = result.attention
    if not isinstance(att, torch.Tensor) or att.dim() != 2:
        raise ValueError(f"attention must be a (B, T) tensor; got "
                         f"{tuple(att.shape) if isinstance(att, torch.Tensor) else type(att).__name__}")
    B = att.shape[0]
    per_row = (("output", result.output, 2, True), ("window", result.window, 1, False),
               ("horizon", result.horizon, 1, False), ("iterations", result.iterations, 1, False),
               ("alpha", result.alpha, 1, False), ("beta", result.beta, 1, False),
               ("slope_final", result.slope_final, 1, True), ("reach", result.reach, 1, True))
    for name, value, ndim, optional in per_row:
        if value is None and optional:
            continue
        if not isinstance(value, torch.Tensor) or value.dim() != ndim or value.shape[0] != B:
            want = f"({B}, dv)" if ndim == 2 else f"({B},)"
            got = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
            raise ValueError(f"{name} must be a tensor of shape {want}, one row per row of attention "
                             f"{tuple(att.shape)}; got {got}")
        counts = name in ("window", "iterations", "reach")   # whole numbers (long); the others real (a complex H or
        if counts == value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:   # α is no prior)
            raise TypeError(f"{name} must be a{'n integer' if counts else ' real floating-point'} tensor; got "
                            f"dtype {value.dtype}")
    if not att.is_floating_point():
        raise TypeError(f"attention must be a real floating-point tensor; got dtype {att.dtype}")
    if result.history is not None and not isinstance(result.history, list):
        raise TypeError(f"history must be a list of per-sweep dicts or None; got {type(result.history).__name__}")
    return result


ExpandingResult.__new__ = staticmethod(_checked_result)


def _weighted_sum(att: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Σ_t a_t v_t: (B, T), (B, T, dv) -> (B, dv), summed over the last, contiguous axis, so that a
    sequence's result does not depend on how many others are in the batch (a batched matmul's does)."""
    return (att[:, None, :] * values.transpose(1, 2).contiguous()).sum(-1)


def _check_hyper_prior(alpha0, beta0) -> None:
    for name, value in (("alpha0", alpha0), ("beta0", beta0)):
        v = torch.as_tensor(value).detach()
        if not bool(torch.all(v > 0) & torch.all(torch.isfinite(v))):
            raise ValueError(f"{name} (Beta hyper-prior) must be positive and finite; got {value!r}")


def _stop(h: torch.Tensor, h_old: torch.Tensor, T: int, tol: float, update: str) -> torch.Tensor:
    """Which sequences stop after this sweep. The paper's rules: the horizon passes T, shrinks, or grows
    by less than ``tol``; CAVI: the horizon (a function of β, the only moving parameter) moved by < tol."""
    if update == "cavi":
        return (h - h_old).abs() < tol
    # h < h_old is h - h_old < 0 ≤ tol (the sign of a float difference is exact), so one comparison covers both
    return (h > T) | (h - h_old < tol)


def _row_modes(B: int, slope, update, first_window):
    """Per-row options as masks: each of ``slope``, ``update`` a name or one name per row, ``first_window``
    None, an int (≥ 2) or one of those per row. Returns (code_slope, digamma_estimate, cavi, first) with
    each mask a Python bool when every row agrees (the uniform fast path) else a (B,) bool tensor, and
    ``first`` None, an int, or a (B,) long tensor with 0 for "the prior's own first window"."""
    def mask(values, name, choices, true):
        if isinstance(values, str):
            _check_choice(name, values, choices)
            return values in true
        values = list(values)
        if len(values) != B:
            raise ValueError(f"{name}: one per sequence ({B}); got {len(values)}")
        for v in values:
            _check_choice(name, v, choices)
        flags = [v in true for v in values]
        return flags[0] if len(set(flags)) == 1 else torch.tensor(flags)

    code = mask(slope, "slope", SLOPES, ("code",))
    dig = mask(update, "update", UPDATES, ("digamma", "cavi"))
    cavi = mask(update, "update", UPDATES, ("cavi",))
    if first_window is None or isinstance(first_window, int):
        if first_window is not None:
            _check_int("first_window", first_window, 2)
        return code, dig, cavi, first_window
    fw = [0 if f is None else _check_int("first_window", f, 2) for f in first_window]
    if len(fw) != B:
        raise ValueError(f"first_window: one per sequence ({B}); got {len(fw)}")
    first = fw[0] if len(set(fw)) == 1 else torch.tensor(fw)
    return code, dig, cavi, (None if isinstance(first, int) and first == 0 else first)


def _pick(mask, if_true, if_false):
    """``if_true`` where ``mask`` (a bool or a (B,) mask), computing only the branch a uniform mask needs."""
    if isinstance(mask, bool):
        return if_true() if mask else if_false()
    return torch.where(mask, if_true(), if_false())


@contract(scores="tensor:2", values="tensor:3", alpha0="realt", beta0="realt", mass="real:(0,1)", max_iter="int:1",
          tol="real:>=0")
def expanding_attention(scores: torch.Tensor, values: torch.Tensor, alpha0, beta0, *,
                        slope: str = "paper", update: str = "plugin", mass: float = 0.95,
                        max_iter: int = 100, tol: float = 0.01, detach_prior: bool = False,
                        first_window: int | None = None, return_history: bool = False) -> ExpandingResult:
    """Expanding attention of the last token of each sequence, batched over sequences.

    scores: (B, T), s_t of the query (token T-1) against every token; token j lies at distance
    t = T-1-j, and the query itself (t = 0) is never attended. values: (B, T, dv).
    alpha0, beta0: the Beta hyper-prior, scalars or (B,) (tensors with gradients allowed).

    Iteration i (all sequences at once, each frozen once it stops):
      q̃ = effective_q(α, β);  H = H(q̃);  m = ⌈H⌉ (at least 2);
      a_t = softmax_t(s_t + t·slope(q̃)) over 1 ≤ t ≤ min(m, T) - 1;
      plugin/digamma (the paper's accumulating updates): α ← α + 1;  β ← β + Σ_t t a_t;
        stop if H > T, H < H_prev or H - H_prev < tol (the public code's rules; H_prev = 0 first);
      cavi (coordinate ascent): α = α₀ + 1;  β = β₀ + Σ_t (t - 1) a_t;  stop when |H - H_prev| < tol
        (the fixed point; the window follows H up and down) or after ``max_iter`` sweeps.
    The output and the recorded window are those of the stopping iteration (for the paper's rules, the
    narrower window where the last sweep shrank the horizon); ``reach`` records the widest window any
    sweep scored. ``first_window``: the window m of the first sweep instead of ⌈H(q̃₀)⌉ (to separate
    the first window from the estimate, e.g. CAVI from the paper's plug-in first window of 29).
    ``detach_prior`` cuts the gradient through α, β (the public code's behaviour: its α, β never get
    gradients). ``slope``, ``update`` and ``first_window`` may also be given per sequence (length B), so
    that several variants run in one loop; each row then computes exactly what it computes alone.
    """
    _check_int("max_iter", max_iter, 1)
    check_real("tol", tol, minimum=0.0)
    _check_hyper_prior(alpha0, beta0)
    if scores.dim() != 2:
        raise ValueError(f"scores must have shape (B, T); got {tuple(scores.shape)}")
    B, T = scores.shape
    if T < 2 or B < 1:
        raise ValueError(f"scores must hold at least one sequence of at least 2 tokens (a query and one key); got "
                         f"shape {tuple(scores.shape)}")
    if values.dim() != 3 or values.shape[:2] != (B, T):
        raise ValueError(f"values must have shape (B, T, dv) = ({B}, {T}, dv); got {tuple(values.shape)}")
    if values.dtype != scores.dtype:   # the output Σ a_t v_t would be cast silently (or fail inside torch)
        raise TypeError(f"scores and values must have one dtype; got scores {scores.dtype} and values {values.dtype}")
    for name, x in (("alpha0", alpha0), ("beta0", beta0)):   # a scalar or one per sequence (else torch's expand error)
        sized = torch.is_tensor(x) or isinstance(x, (list, tuple, np.ndarray))
        shape = tuple(torch.as_tensor(x).shape) if sized else ()
        if shape not in ((), (1,), (B,)):
            raise ValueError(f"{name} must be a number or one per sequence ({B},); got shape {shape}")
    if not 0.0 < mass < 1.0:
        raise ValueError(f"mass must lie in (0, 1); got {mass}")
    code, dig, cavi, first = _row_modes(B, slope, update, first_window)
    dtype, device = scores.dtype, scores.device
    alpha = torch.as_tensor(alpha0, dtype=dtype, device=device).expand(B).clone()
    beta = torch.as_tensor(beta0, dtype=dtype, device=device).expand(B).clone()
    if alpha.detach().min() <= 0 or beta.detach().min() <= 0:
        raise ValueError("alpha0 and beta0 must be positive")
    dist = torch.arange(T - 1, -1, -1, dtype=dtype, device=device)          # (T,) t = T-1-j
    active = torch.ones(B, dtype=torch.bool, device=device)
    h_old = torch.zeros(B, dtype=dtype, device=device)
    iterations = torch.zeros(B, dtype=torch.long, device=device)
    att = torch.zeros(B, T, dtype=dtype, device=device)
    window = torch.zeros(B, dtype=torch.long, device=device)
    horizon = torch.zeros(B, dtype=dtype, device=device)
    history = [] if return_history else None
    if detach_prior:
        # The prior carries no gradient, so the fixed-point search runs without a graph and only
        # the final softmax, whose slope and window are then constants, is differentiated.
        with torch.no_grad():
            if return_history or device.type != "cpu":
                res = expanding_attention(scores.detach(), values.detach(), alpha.detach(), beta.detach(),
                                          slope=slope, update=update, mass=mass, max_iter=max_iter, tol=tol,
                                          detach_prior=False, first_window=first_window,
                                          return_history=return_history)
            else:
                res = _sweep_without_graph(scores.detach(), alpha.detach(), beta.detach(), dist, code, dig, cavi,
                                           first, mass, max_iter, tol)
        sl = res.slope_final
        inside = (dist[None, :] >= 1) & (dist[None, :] < torch.clamp(res.window, max=T)[:, None].to(dtype))
        att = torch.softmax((scores + dist[None, :] * sl[:, None]).masked_fill(~inside, float("-inf")), dim=-1)
        output = _weighted_sum(att, values)
        return res._replace(output=output, attention=att)
    # The same arithmetic in fewer tensor ops per sweep, with (_sweep_with_graph) or without a graph; the loop
    # below is the readable form (and the one that records the history).
    graph = torch.is_grad_enabled() and (scores.requires_grad or alpha.requires_grad or beta.requires_grad)
    if history is None and device.type == "cpu" and not graph:
        res = _sweep_without_graph(scores, alpha, beta, dist, code, dig, cavi, first, mass, max_iter, tol)
        return res._replace(output=_weighted_sum(res.attention, values))
    if history is None and device.type == "cpu":
        res = _sweep_with_graph(scores, alpha, beta, dist, code, dig, cavi, first, mass, max_iter, tol)
        return res._replace(output=_weighted_sum(res.attention, values))
    slope_final = torch.zeros(B, dtype=dtype, device=device)
    reach = torch.zeros(B, dtype=torch.long, device=device)
    alpha_prior, beta_prior = alpha, beta
    # loop invariants (the loop is a few dozen tiny tensor ops per sweep: their count is its cost)
    dist_row = dist[None, :]
    keyed = dist_row >= 1                                     # the query itself is never attended
    t_minus_1 = (dist - 1).clamp(min=0)
    for i in range(max_iter):
        # the unchecked forms of effective_q and geometric_horizon (the loop's inputs are its own)
        q = _pick(dig, lambda: _estimate_q(alpha, beta, True), lambda: _estimate_q(alpha, beta, False))
        h = _horizon(q, mass)
        hd = h.detach()
        m = torch.clamp(torch.ceil(hd), min=2)                # float; dist < m is dist < min(m, T) as dist < T
        if i == 0 and first is not None:
            m = (torch.full_like(m, first) if isinstance(first, int) else
                 torch.where(first > 0, first.to(m.dtype), m))
        inside = keyed & (dist_row < m[:, None])
        sl = _pick(code, lambda: -1.0 / h, lambda: torch.log1p(-q))   # prior_slope(q, slope, mass)
        a_new = torch.softmax((scores + dist_row * sl[:, None]).masked_fill(~inside, float("-inf")), dim=-1)
        m = m.long()
        slope_final = torch.where(active, sl.detach(), slope_final)
        att = torch.where(active[:, None], a_new, att)
        window = torch.where(active, m, window)
        reach = torch.where(active, torch.maximum(reach, m.clamp(max=T)), reach)
        horizon = torch.where(active, h, horizon)
        iterations = iterations + active                      # one more sweep for the sequences still running
        # cavi: recomputed from the prior, E[t - 1] under the current attention; else the paper's accumulating update
        alpha = torch.where(active, _pick(cavi, lambda: alpha_prior + 1, lambda: alpha + 1), alpha)
        beta = torch.where(active, _pick(cavi, lambda: beta_prior + (a_new * t_minus_1).sum(-1),
                                         lambda: beta + (a_new * dist).sum(-1)), beta)
        if history is not None:
            history.append({"q": q.detach().clone(), "horizon": hd.clone(), "window": m.clone(),
                            "attention": a_new.detach().clone(), "active": active.clone()})
        stop = _pick(cavi, lambda: _stop(hd, h_old, T, tol, "cavi"), lambda: _stop(hd, h_old, T, tol, "plugin"))
        h_old = torch.where(active, hd, h_old)
        active = active & ~stop
        if not bool(active.any()):
            break
    output = _weighted_sum(att, values)
    return ExpandingResult(output, att, window, horizon, iterations, alpha, beta, history, slope_final, reach)


class _StopRecords:
    """The sweep loops' bookkeeping: rows keep sweeping after they stop (their values are never read again), and
    each row's records (B,) arrays, and its attention, are written once, at its stopping sweep."""

    def __init__(self, B: int):
        self.active = np.ones(B, dtype=bool)                   # rows still running
        self.running, self.rec, self.att, self.done = B, None, None, None

    def sweep(self, i: int, stop: np.ndarray, now: tuple, att=None) -> bool:
        """Record the rows that stop at sweep ``i`` (``stop``: its stopping rule) with the values ``now``;
        True when no row runs on."""
        if self.rec is None:                                   # every row ran the first sweep
            self.rec, self.att, self.done, ends = list(now), att, np.ones(len(stop), dtype=np.int64), stop
        else:
            ends = stop & self.active
        self.active = self.active & ~ends
        left = int(np.count_nonzero(self.active))
        if i and left < self.running:                          # rows whose last sweep this was
            self._write(ends, now, att, i + 1)
        self.running = left
        return not left

    def finish(self, max_iter: int, now: tuple, att=None) -> None:
        """After ``max_iter`` sweeps without every row stopping: the rows that ran every sweep."""
        if max_iter > 1:
            self._write(self.active, now, att, max_iter)

    def _write(self, rows, now, att, sweeps) -> None:
        self.rec = [np.where(rows, x, r) for x, r in zip(now, self.rec)]
        if att is not None:
            self.att = torch.where(torch.from_numpy(rows)[:, None], att, self.att)
        self.done = np.where(rows, sweeps, self.done)


def _sweep_with_graph(scores, alpha, beta, dist, code, dig, cavi, first, mass: float, max_iter: int,
                      tol: float) -> ExpandingResult:
    """The sweep loop of :func:`expanding_attention` when a gradient flows through the prior (``learn_prior``):
    every differentiable step of the readable loop, in its order and with its operands, so that the graph and
    the gradient are the same to the last bit; the steps that carry no gradient (the window, its mask, the
    stopping rule, the records of the window, reach, sweeps and slope) run in numpy as in
    :func:`_sweep_without_graph` (records by :class:`_StopRecords`). Arguments as there; returns an
    :class:`ExpandingResult` with ``output`` None and no history.
    """
    B, T = scores.shape
    t = torch.from_numpy
    dist_row, dist_n = dist[None, :], dist.numpy()
    outside_of = (dist_n[None, :] >= np.arange(T + 1)[:, None]) | (dist_n < 1)   # as in _sweep_without_graph
    t_minus_1 = (dist - 1).clamp(min=0)
    cavi_n = cavi if isinstance(cavi, bool) else cavi.numpy()
    alpha_prior, beta_prior = alpha, beta
    att = torch.zeros(B, T, dtype=scores.dtype)
    horizon = torch.zeros(B, dtype=scores.dtype)
    h_old = np.zeros(B, dtype=dist_n.dtype)
    reach = np.zeros(B, dtype=np.int64)
    records = _StopRecords(B)
    for i in range(max_iter):
        q = _pick(dig, lambda: _estimate_q(alpha, beta, True), lambda: _estimate_q(alpha, beta, False))
        h = _horizon(q, mass)
        hd = h.detach().numpy()
        m = np.maximum(np.ceil(hd), 2)
        if i == 0 and first is not None:
            m = (np.full_like(m, first) if isinstance(first, int) else
                 np.where(first.numpy() > 0, first.numpy().astype(m.dtype), m))
        outside = t(outside_of[np.fmin(m, T).astype(np.int64)])
        sl = _pick(code, lambda: -1.0 / h, lambda: torch.log1p(-q))   # prior_slope(q, slope, mass)
        a_new = torch.softmax((scores + dist_row * sl[:, None]).masked_fill(outside, float("-inf")), dim=-1)
        m = m.astype(np.int64)
        reach = np.maximum(reach, np.minimum(m, T))
        running_t = t(records.active)
        att = torch.where(running_t[:, None], a_new, att)
        horizon = torch.where(running_t, h, horizon)
        alpha = torch.where(running_t, _pick(cavi, lambda: alpha_prior + 1, lambda: alpha + 1), alpha)
        beta = torch.where(running_t, _pick(cavi, lambda: beta_prior + (a_new * t_minus_1).sum(-1),
                                            lambda: beta + (a_new * dist).sum(-1)), beta)
        diff = hd - h_old
        stop = np.where(cavi_n, np.abs(diff) < tol, (hd > T) | (diff < tol))
        h_old = hd
        now = (sl.detach().numpy(), m, reach)
        if records.sweep(i, stop, now):
            break
    else:
        records.finish(max_iter, now)
    sl, window, reach = (t(np.ascontiguousarray(x)) for x in records.rec)
    return ExpandingResult(None, att, window, horizon, t(records.done), alpha, beta, None, sl, reach)


def _sweep_without_graph(scores, alpha, beta, dist, code, dig, cavi, first, mass: float, max_iter: int,
                         tol: float) -> ExpandingResult:
    """The sweep loop of :func:`expanding_attention` when no gradient is taken (its ``detach_prior`` search),
    with the same floating-point operations per row in the same order, at a fraction of the cost per sweep.

    scores (B, T) on the CPU; alpha, beta (B,) the hyper-prior; dist (T,) t = T-1-j; ``code``, ``dig``,
    ``cavi``, ``first`` as :func:`_row_modes` returns them. Three changes, none to any row's arithmetic:

    * the readable loop (also run with ``return_history``) gates every update by the running rows; here rows
      sweep on after they stop and :class:`_StopRecords` writes each record once;
    * the per-sequence quantities (B,) are numpy arrays and their exactly rounded steps (+, -, ×, 1/x, ceil,
      max, comparisons, choices) run in numpy, which costs a fraction of a torch call on a few dozen numbers;
      every transcendental step (ψ, expm1, log1p, the softmax) and every sum over the window stays in torch,
      on the same elements in the same places. ``c / x`` is written ``(1/x)·c``, as torch computes it;
    * the two branches of a per-row choice share their common terms (α + β, log(1 - q̃)) and the β update's
      per-row choice is folded into loop invariants.

    Returns an :class:`ExpandingResult` with ``output`` None and no history.
    """
    B, T = scores.shape
    c = math.log(1.0 - mass)
    t = torch.from_numpy

    def flags(mask):                                           # a Python bool or a (B,) numpy bool array
        return mask if isinstance(mask, bool) else mask.numpy()

    code, dig, cavi = flags(code), flags(dig), flags(cavi)
    dist_n = dist.numpy()
    # row k: the tokens outside a window of k (dist ≥ k) and the query itself (dist 0), k = 0..T
    outside_of = (dist_n[None, :] >= np.arange(T + 1)[:, None]) | (dist_n < 1)
    minus_inf = torch.tensor(float("-inf"), dtype=scores.dtype)
    alpha = alpha_prior = alpha.numpy()
    beta = beta_prior = beta.numpy()
    if isinstance(cavi, bool):                                 # E[t - 1] (CAVI) or E[t] (accumulating) per row
        weight = (dist - 1).clamp(min=0) if cavi else dist
    else:
        weight = torch.where(t(cavi)[:, None], (dist - 1).clamp(min=0), dist)
    alpha_cavi = alpha_prior + 1
    h_old = np.zeros(B, dtype=alpha.dtype)
    reach = np.zeros(B, dtype=np.int64)
    records = _StopRecords(B)
    for i in range(max_iter):
        ab = alpha + beta
        if dig is True:
            q = -torch.expm1(torch.digamma(t(beta)) - torch.digamma(t(ab))).numpy()
        elif dig is False:
            q = alpha / ab
        else:
            q = np.where(dig, -torch.expm1(torch.digamma(t(beta)) - torch.digamma(t(ab))).numpy(), alpha / ab)
        log1mq = torch.log1p(t(-q)).numpy()
        h = np.reciprocal(log1mq) * c                          # _horizon(q, mass) = c / log(1 - q̃)
        m = np.maximum(np.ceil(h), 2)
        if i == 0 and first is not None:
            m = (np.full_like(m, first) if isinstance(first, int) else
                 np.where(first.numpy() > 0, first.numpy().astype(m.dtype), m))
        if code is True:                                       # -1 / H (the code) or log(1 - q̃) (the paper)
            sl = np.reciprocal(h) * -1.0
        elif code is False:
            sl = log1mq
        else:
            sl = np.where(code, np.reciprocal(h) * -1.0, log1mq)
        # dist ≥ m as dist ≥ min(m, T) (dist < T); m is whole, and fmin maps a NaN m (a NaN row) to T
        outside = t(outside_of[np.fmin(m, T).astype(np.int64)])
        a_new = torch.softmax(torch.where(outside, minus_inf, scores + dist[None, :] * t(sl)[:, None]), dim=-1)
        m = m.astype(np.int64)
        reach = np.maximum(reach, np.minimum(m, T))
        expected = (a_new * weight).sum(-1).numpy()
        if cavi is True:
            alpha, beta = alpha_cavi, beta_prior + expected
            stop = np.abs(h - h_old) < tol
        elif cavi is False:
            alpha, beta = alpha + 1, beta + expected
            stop = (h > T) | (h - h_old < tol)
        else:
            alpha = np.where(cavi, alpha_cavi, alpha + 1)
            beta = np.where(cavi, beta_prior, beta) + expected
            diff = h - h_old
            stop = np.where(cavi, np.abs(diff) < tol, (h > T) | (diff < tol))
        h_old = h
        now = (sl, m, reach, h, alpha, beta)
        if records.sweep(i, stop, now, a_new):
            break
    else:
        records.finish(max_iter, now, a_new)
    sl, window, reach, horizon, alpha, beta = (t(np.ascontiguousarray(x)) for x in records.rec)
    return ExpandingResult(None, records.att, window, horizon, t(records.done), alpha, beta, None, sl, reach)
