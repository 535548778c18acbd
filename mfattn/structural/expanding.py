"""Expanding attention: a geometric prior over how far back the query's parent lies.

Singh & Buckley (2023) replace attention's implicit uniform prior over edges by a geometric
prior on the distance t ≥ 1 from the query, p(t | q) ∝ (1 - q)^t, with a conjugate
Beta(α, β) hyper-prior on q. Mean-field (coordinate) inference alternates

    attention:  a_t ∝ exp(s_t + t · slope(α, β)),   t inside the window t < m(α, β)
    hyper-prior: α ← α + 1,  β ← β + Σ_t a_t · t

where s_t = q·k_t/√d are the usual scores. Only the m = ⌈H⌉ most recent tokens are scored,
with H = log(0.05)/log(1 - q̃) the horizon holding 95 % of the prior's mass, so the context
window grows while the posterior says the parent lies further back. Two slopes are offered:

    paper: slope = log(1 - q̃)           (the geometric log-prior itself)
    code : slope = -1 / H(q̃)            (the public code: a linear ramp reaching -1 at the horizon)

The hyper-prior update of the paper (and code) *accumulates*: α and β grow on every sweep, so the
same single edge is counted once per iteration. It comes with two estimates of q: ``plugin``
q̃ = α/(α+β) (the paper's step 1 and the public code), and ``digamma`` q̃ = 1 - exp(ψ(β) - ψ(α+β)),
i.e. log(1 - q̃) = E_Beta[log(1 - q)]. ``cavi`` is coordinate-ascent variational inference for
the model t ~ Geometric(q) on {1, 2, ...}, q ~ Beta(α₀, β₀), with q(t) q(q) factorised:

    q(t) ∝ exp(s_t + t · E[log(1 - q)])                  (E over the current Beta(α, β))
    q(q) = Beta(α₀ + 1, β₀ + E[t - 1])                  (recomputed from the prior every sweep)

iterated to its fixed point (|ΔH| < tol); the window is the 95 % horizon of the current prior.

Everything is batched: α, β, the horizon, the window and a stopping flag are (B,) tensors and
the window is a mask, so one iteration is a few tensor ops for the whole batch.
:func:`lazy_expanding_attention` computes only the dot products inside the window (the point of
the design); :func:`relative_operations` is the cost measure of the paper's Figure 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np
import torch

from ..companion import caches, store
from ..companion.checks import check_choice as _check_choice, check_int as _check_int, check_real
from .optim import AdamState, adam_update, derive_seed

__all__ = [
    "SLOPES", "UPDATES", "OPS_MODES", "geometric_horizon", "effective_q", "prior_slope",
    "ExpandingResult", "expanding_attention", "lazy_expanding_attention", "relative_operations",
    "ExpandingTask", "make_expanding_weights", "sample_expanding_batch", "expanding_forward",
    "standard_forward", "train_expanding",
]

SLOPES = ("paper", "code")
#: ``plugin``/``digamma``: the paper's accumulating hyper-prior updates with the plug-in or the digamma
#: estimate of q; ``cavi``: coordinate-ascent VI (α = α₀ + 1, β = β₀ + E[t - 1] every sweep).
UPDATES = ("plugin", "digamma", "cavi")
OPS_MODES = ("paper", "code")


# ----------------------------------------------------------------------------- the prior
def geometric_horizon(q: torch.Tensor, mass: float = 0.95) -> torch.Tensor:
    """H(q) = log(1 - mass) / log(1 - q): the distance by which the geometric prior holds ``mass``."""
    return math.log(1.0 - mass) / torch.log1p(-q)


def effective_q(alpha: torch.Tensor, beta: torch.Tensor, update: str = "plugin") -> torch.Tensor:
    """The hyper-prior's point estimate of q.

    plugin : q̃ = α / (α + β)                          (the posterior mean; the public code)
    digamma, cavi: q̃ = 1 - exp(ψ(β) - ψ(α + β)),  so log(1 - q̃) = E_{Beta(α,β)}[log(1 - q)]
    """
    _check_choice("update", update, UPDATES)
    if update == "plugin":
        return alpha / (alpha + beta)
    return -torch.expm1(torch.digamma(beta) - torch.digamma(alpha + beta))


def prior_slope(q: torch.Tensor, slope: str = "paper", mass: float = 0.95) -> torch.Tensor:
    """Log-prior per unit distance: paper log(1 - q); code -1/H(q) (H the ``mass`` horizon)."""
    _check_choice("slope", slope, SLOPES)
    if slope == "paper":
        return torch.log1p(-q)
    return -1.0 / geometric_horizon(q, mass)


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
    return (h > T) | (h < h_old) | (h - h_old < tol)


def expanding_attention(scores: torch.Tensor, values: torch.Tensor, alpha0, beta0, *,
                        slope: str = "paper", update: str = "plugin", mass: float = 0.95,
                        max_iter: int = 100, tol: float = 0.01, detach_prior: bool = False,
                        return_history: bool = False) -> ExpandingResult:
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
    The output and the recorded window are those of the stopping iteration. ``detach_prior``
    cuts the gradient through α, β (the public code's behaviour: its α, β never get gradients).
    """
    _check_choice("slope", slope, SLOPES)
    _check_choice("update", update, UPDATES)
    _check_int("max_iter", max_iter, 1)
    check_real("tol", tol, minimum=0.0)
    _check_hyper_prior(alpha0, beta0)
    if scores.dim() != 2:
        raise ValueError(f"scores must have shape (B, T); got {tuple(scores.shape)}")
    B, T = scores.shape
    if T < 2:
        raise ValueError(f"sequences need at least 2 tokens (a query and one key); got T = {T}")
    if values.dim() != 3 or values.shape[:2] != (B, T):
        raise ValueError(f"values must have shape (B, T, dv) = ({B}, {T}, dv); got {tuple(values.shape)}")
    if not 0.0 < mass < 1.0:
        raise ValueError(f"mass must lie in (0, 1); got {mass}")
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
            res = expanding_attention(scores.detach(), values.detach(), alpha.detach(), beta.detach(),
                                      slope=slope, update=update, mass=mass, max_iter=max_iter, tol=tol,
                                      detach_prior=False, return_history=return_history)
        sl = res.slope_final
        inside = (dist[None, :] >= 1) & (dist[None, :] < torch.clamp(res.window, max=T)[:, None].to(dtype))
        att = torch.softmax((scores + dist[None, :] * sl[:, None]).masked_fill(~inside, float("-inf")), dim=-1)
        output = (att[..., None] * values).sum(1)
        return res._replace(output=output, attention=att)
    slope_final = torch.zeros(B, dtype=dtype, device=device)
    alpha_prior, beta_prior = alpha, beta
    for i in range(max_iter):
        q = effective_q(alpha, beta, update)
        h = geometric_horizon(q, mass)
        m = torch.clamp(torch.ceil(h.detach()), min=2).long()
        inside = (dist[None, :] >= 1) & (dist[None, :] < torch.clamp(m, max=T)[:, None].to(dtype))
        sl = prior_slope(q, slope, mass)
        logits = scores + dist[None, :] * sl[:, None]
        a_new = torch.softmax(logits.masked_fill(~inside, float("-inf")), dim=-1)
        slope_final = torch.where(active, sl.detach(), slope_final)
        upd = active[:, None]
        att = torch.where(upd, a_new, att)
        window = torch.where(active, m, window)
        horizon = torch.where(active, h, horizon)
        iterations = torch.where(active, torch.full_like(iterations, i + 1), iterations)
        if update == "cavi":   # recomputed from the prior: E[t - 1] under the current attention
            alpha = torch.where(active, alpha_prior + 1, alpha)
            beta = torch.where(active, beta_prior + (a_new * (dist - 1).clamp(min=0)).sum(-1), beta)
        else:                  # the paper's accumulating update
            alpha = torch.where(active, alpha + 1, alpha)
            beta = torch.where(active, beta + (a_new * dist).sum(-1), beta)
        if history is not None:
            history.append({"q": q.detach().clone(), "horizon": h.detach().clone(), "window": m.clone(),
                            "attention": a_new.detach().clone(), "active": active.clone()})
        hd = h.detach()
        stop = _stop(hd, h_old, T, tol, update)
        h_old = torch.where(active, hd, h_old)
        active = active & ~stop
        if not bool(active.any()):
            break
    output = (att[..., None] * values).sum(1)
    return ExpandingResult(output, att, window, horizon, iterations, alpha, beta, history, slope_final)


def lazy_expanding_attention(query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                             alpha0: float, beta0: float, *, slope: str = "paper",
                             update: str = "plugin", mass: float = 0.95, max_iter: int = 100,
                             tol: float = 0.01, scale: float | None = None):
    """Expanding attention that scores only the keys inside the current window.

    query: (B, dk) for the last token; keys (B, T, dk), values (B, T, dv). The dot products
    q·k_t/√dk are computed once each, as the largest window in the batch grows, never for the
    tokens the window does not reach. Same result as :func:`expanding_attention` on the full
    scores (the masked entries have zero weight). Returns (ExpandingResult, n_dot_products),
    where n_dot_products is the number of key rows scored per sequence.
    """
    _check_choice("slope", slope, SLOPES)
    _check_choice("update", update, UPDATES)
    _check_int("max_iter", max_iter, 1)
    check_real("tol", tol, minimum=0.0)
    _check_hyper_prior(alpha0, beta0)
    if query.dim() != 2 or keys.dim() != 3 or keys.shape[0] != query.shape[0] or keys.shape[2] != query.shape[1]:
        raise ValueError(f"query must be (B, dk) and keys (B, T, dk); got {tuple(query.shape)}, {tuple(keys.shape)}")
    B, T, _ = keys.shape
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
    result = ExpandingResult(output, att, window, horizon, iterations, alpha, beta, None, None)
    return result, reach - 1


def relative_operations(window, iterations, n: int, d: int, mode: str = "paper", floor: int = 28):
    """Cost of expanding attention per query relative to full attention's n·d, per step.

    window: ⌈H⌉ of each query (m), iterations: number of iterations performed (k).
    paper: (m·d + k) / (n·d) with m = min(window, n)
    code : m·(d + k) / (n·d) with m = max(floor, min(window, n)), the public figure script
           (which adds 1 to its stored 0-based iteration index; pass the count here).
    Returns a numpy array of the same shape; average it over training steps for the figure.
    """
    _check_choice("relative-operations mode", mode, OPS_MODES)
    w = np.minimum(np.asarray(window, dtype=float), n)
    k = np.asarray(iterations, dtype=float)
    if mode == "paper":
        return (w * d + k) / (n * d)
    return np.maximum(floor, w) * (d + k) / (n * d)


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
        if not 0.0 < self.p <= 1.0:
            raise ValueError(f"p (recency bias) must lie in (0, 1]; got {self.p}")


def make_expanding_weights(d: int, generator: torch.Generator):
    """W_y ~ N(1, 1)^{1×d} and W_r ~ U[0, 1)^{d×d}, in the public code's order."""
    W_y = torch.normal(mean=torch.ones(1, d), std=1.0, generator=generator)
    W_r = torch.rand(d, d, generator=generator)
    return W_y, W_r


def sample_expanding_batch(tasks: Sequence[ExpandingTask], weights, batch_size: int,
                           generator: torch.Generator | Sequence[torch.Generator]):
    """A batch for each of R tasks (same d and n, any p).

    weights: list of (W_y, W_r) per task. ``generator``: one generator for all R tasks (drawn at
    once), or a list of R generators, one stream per task, so that a task's batch does not depend
    on which other tasks are drawn with it. Returns X (R, B, n, d), y (R, B), distance (R, B) long.
    """
    if not isinstance(generator, torch.Generator):
        generator = list(generator)
        if len(generator) != len(tasks):
            raise ValueError(f"generator: one per task ({len(tasks)}); got {len(generator)}")
        parts = [sample_expanding_batch([t], [w], batch_size, g) for t, w, g in zip(tasks, weights, generator)]
        return tuple(torch.cat(xs) for xs in zip(*parts))
    R, B = len(tasks), _check_int("batch_size", batch_size, 1)
    d, n = tasks[0].d, tasks[0].n
    if any(t.d != d or t.n != n for t in tasks):
        raise ValueError("all tasks of one batch must share d and n")
    std = torch.tensor([t.noise_std for t in tasks])[:, None, None, None]
    scale = torch.tensor([t.x0_scale for t in tasks])[:, None, None, None]
    p = torch.tensor([t.p for t in tasks], dtype=torch.float64)[:, None]
    W_y = torch.stack([w[0] for w in weights])                  # (R, 1, d)
    W_r = torch.stack([w[1] for w in weights])                  # (R, d, d)
    with torch.no_grad():
        x0 = torch.rand(R, B, 1, d, generator=generator) * scale
        noise = torch.randn(R, B, n - 2, d, generator=generator) * std
        x1 = x0 @ W_r[:, None] + torch.randn(R, B, 1, d, generator=generator) * std
        u = torch.rand(R, B, generator=generator, dtype=torch.float64)
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
        y = (x0[:, :, 0, :] @ W_y.transpose(-1, -2))[..., 0]
    return X, y, distance


# ----------------------------------------------------------------------------- models
def _qkv(X: torch.Tensor, W: torch.Tensor):
    d = X.shape[-1]
    proj = X @ W.transpose(-1, -2)[:, None]
    return proj.split([d, d, W.shape[1] - 2 * d], dim=-1)


def _last_scores(q, k, score: str):
    """Scores of the last token: ``row`` q_T·k_t (the paper), ``column`` q_t·k_T (the code's expanding)."""
    if score == "row":
        s = (k @ q[..., -1, :, None])[..., 0]
    elif score == "column":
        s = (q @ k[..., -1, :, None])[..., 0]
    else:
        raise ValueError(f"score must be 'row' or 'column'; got {score!r}")
    return s / math.sqrt(q.shape[-1])


def expanding_forward(W: torch.Tensor, X: torch.Tensor, alpha0, beta0, *, slope="paper",
                      update="plugin", score="row", detach_prior=False, return_result=False, **kw):
    """Expanding-attention prediction at the query. W: (R, 2d+1, d), X: (R, B, T, d) → (R, B)."""
    R, B, T, _ = X.shape
    q, k, v = _qkv(X, W)
    s = _last_scores(q, k, score).reshape(R * B, T)
    # in X's dtype: a Python 0.1 made a float32 tensor first would enter float64 runs rounded
    a0 = torch.as_tensor(alpha0, dtype=X.dtype).reshape(-1, 1).expand(R, B).reshape(-1)
    b0 = torch.as_tensor(beta0, dtype=X.dtype).reshape(-1, 1).expand(R, B).reshape(-1)
    res = expanding_attention(s, v.reshape(R * B, T, -1), a0, b0, slope=slope, update=update,
                              detach_prior=detach_prior, **kw)
    pred = res.output[:, 0].reshape(R, B)
    return (pred, res) if return_result else pred


def standard_forward(W: torch.Tensor, X: torch.Tensor, *, return_attention=False):
    """Ordinary attention of the query over the other T-1 tokens (the code's self_attend=False)."""
    q, k, v = _qkv(X, W)
    s = _last_scores(q, k, "row")
    s = torch.cat([s[..., :-1], torch.full_like(s[..., -1:], float("-inf"))], -1)
    a = torch.softmax(s, -1)
    pred = (a[..., None] * v).sum(-2)[..., 0]
    return (pred, a) if return_attention else pred


def _train_expanding(ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, slope,
                     update, score, learn_prior, models, record_every, progress):
    from tqdm import tqdm

    reps = [(p, s) for s in seeds for p in ps]
    R = len(reps)
    tasks = [ExpandingTask(d=d, n=n, p=p) for p, _ in reps]
    weights = [make_expanding_weights(d, torch.Generator().manual_seed(derive_seed(s, f"exp-task:{p}")))
               for p, s in reps]
    bound = 1.0 / math.sqrt(d)
    out: dict[str, Any] = {"ps": np.array([p for p, _ in reps]), "seeds": np.array([s for _, s in reps])}
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
        states = [AdamState.zeros_like([q]) for q in params]
        # same data for all models of a replica (common random numbers)
        gen = [torch.Generator().manual_seed(derive_seed(s, f"exp-data:{d}:{p!r}")) for p, s in reps]
        loss = np.zeros((R, steps), dtype=np.float32)
        window = np.zeros((R, steps, batch_size), dtype=np.int32)
        iters = np.zeros((R, steps, batch_size), dtype=np.int16)
        dist = np.zeros((R, steps, batch_size), dtype=np.int16)
        prior = np.zeros((R, -(-steps // record_every), 2), dtype=np.float32)   # steps 0, record_every, ...
        for step in tqdm(range(steps), disable=None if progress else True, desc=f"expanding d={d} {model}"):
            X, y, distance = sample_expanding_batch(tasks, weights, batch_size, gen)
            if model == "expanding":
                if learn_prior:
                    ab = torch.nn.functional.softplus(params[1])
                    a0, b0 = ab[:, 0], ab[:, 1]
                else:
                    a0, b0 = torch.full((R,), alpha0), torch.full((R,), beta0)
                pred, res = expanding_forward(W, X, a0, b0, slope=slope, update=update, score=score,
                                              detach_prior=not learn_prior, return_result=True)
                window[:, step] = res.window.reshape(R, batch_size).numpy()
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
            dist[:, step] = distance.numpy()
        out[f"loss/{model}"] = loss
        out[f"distance/{model}"] = dist
        if model == "expanding":
            out["window"] = window
            out["iterations"] = iters
            out["prior"] = prior
        out[f"W/{model}"] = W.detach().numpy()
    return out


def _code_digest() -> str:
    """Digest of the modules that compute a training run (this one and the shared optimiser)."""
    from . import optim
    return store.code_digest(__file__, optim)


def train_expanding(ps: Sequence[float] = (1 / 2, 1 / 5, 1 / 10, 1 / 25), d: int = 10, n: int = 50, *,
                    seeds: Sequence[int] = (0,), steps: int = 2000, batch_size: int = 1,
                    lr: float = 5e-4, weight_decay: float = 2.0, alpha0: float = 0.1, beta0: float = 0.9,
                    slope: str = "paper", update: str = "plugin", score: str = "row",
                    learn_prior: bool = False, models: Sequence[str] = ("expanding", "standard"),
                    record_every: int = 100, cache: bool = True, progress: bool = False) -> dict[str, Any]:
    """Train expanding and standard attention on the toy task for every recency bias p at once.

    Every (p, seed) is one replica with its own task weights and model; all replicas of a model
    share one training loop (one tensor op per step). Defaults follow the public code (batch 1,
    Adam lr 5e-4 with weight decay 2, α₀ = 0.1, β₀ = 0.9), at fewer steps; ``slope``/``update``
    choose the paper's or the code's prior, ``score='column'`` the code's q_t·k_T scores,
    ``learn_prior`` trains α₀, β₀ by gradient (softplus-parametrised; the code never does).

    Returns numpy arrays: ``ps``, ``seeds`` (R,), per model ``loss/<model>`` (R, steps) and
    ``distance/<model>`` (R, steps, B) the true distance of x0; for expanding ``window`` and
    ``iterations`` (R, steps, B) and ``prior`` (R, steps//record_every, 2) = (α₀, β₀).
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
    if learn_prior:
        config["prior_weight_decay"] = 0.0   # the hyper-prior is trained without weight decay
    path = store.cache_dir("designs") / f"expanding-{store.config_hash(config)}.npz"
    # verified (key, content hash): a damaged, planted or copied entry is recomputed with a CacheWarning
    found = caches.load_cached_npz(path) if cache else None
    if found is not None:
        return found
    out = _train_expanding(ps, d, n, seeds, steps, batch_size, lr, weight_decay, alpha0, beta0, slope,
                           update, score, learn_prior, tuple(models), record_every, progress)
    out["config"] = np.array(store.config_hash(config))
    if cache:
        caches.save_cached_npz(path, out)
    return out
