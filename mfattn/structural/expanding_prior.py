"""Expanding attention's model (Singh & Buckley 2023, Sec. 5): the geometric prior p(t | q) ∝ (1 - q)^t on the
distance t ≥ 1 of the query's parent, the point estimates of q under its Beta(α, β) hyper-prior, the prior's slope
per unit distance, and the ELBO of the untruncated model. The iteration that uses them is
:func:`.expanding_core.expanding_attention`; every name here is importable from :mod:`.expanding_core` and
:mod:`.expanding` as before.
"""

from __future__ import annotations

import math

import torch

from ..companion.checks import check_choice as _check_choice, contract

__all__ = ["SLOPES", "UPDATES", "geometric_horizon", "effective_q", "prior_slope", "expanding_elbo"]

SLOPES = ("paper", "code")
#: ``plugin``/``digamma``: the paper's accumulating hyper-prior updates with the plug-in or the digamma
#: estimate of q; ``cavi``: coordinate-ascent VI (α = α₀ + 1, β = β₀ + E[t - 1] every sweep).
UPDATES = ("plugin", "digamma", "cavi")


# ----------------------------------------------------------------------------- the prior
@contract(q="realt:(0,1)", mass="real:(0,1)")
def geometric_horizon(q: torch.Tensor, mass: float = 0.95) -> torch.Tensor:
    """H(q) = log(1 - mass) / log(1 - q): the distance by which the geometric prior holds ``mass``."""
    return _horizon(q, mass)


def _horizon(q: torch.Tensor, mass: float) -> torch.Tensor:
    """:func:`geometric_horizon` without its argument checks (the sweep loop's inner call: the checks, a
    finiteness scan and two reductions per call, cost more than the arithmetic on the loop's tiny tensors)."""
    return math.log(1.0 - mass) / torch.log1p(-q)


@contract(alpha="realt:>0", beta="realt:>0")
def effective_q(alpha: torch.Tensor, beta: torch.Tensor, update: str = "plugin") -> torch.Tensor:
    """The hyper-prior's point estimate of q.

    plugin : q̃ = α / (α + β)                          (the posterior mean; the public code)
    digamma, cavi: q̃ = 1 - exp(ψ(β) - ψ(α + β)),  so log(1 - q̃) = E_{Beta(α,β)}[log(1 - q)]
    """
    _check_choice("update", update, UPDATES)
    if torch.is_tensor(alpha) and torch.is_tensor(beta) and alpha.dtype != beta.dtype:
        raise TypeError(f"alpha and beta must have one dtype; got alpha {alpha.dtype} and beta {beta.dtype}")
    try:   # one q per (alpha, beta) pair: shapes that do not broadcast are a mismatch, not torch's error
        torch.broadcast_shapes(torch.as_tensor(alpha).shape, torch.as_tensor(beta).shape)
    except RuntimeError:
        raise ValueError(f"alpha and beta must have one shape (or broadcast to one); got "
                         f"{tuple(torch.as_tensor(alpha).shape)} and {tuple(torch.as_tensor(beta).shape)}") from None
    return _estimate_q(alpha, beta, update != "plugin")


def _estimate_q(alpha: torch.Tensor, beta: torch.Tensor, digamma: bool) -> torch.Tensor:
    """:func:`effective_q` without its argument checks (see :func:`_horizon`): digamma or plug-in."""
    if not digamma:
        return alpha / (alpha + beta)
    return -torch.expm1(torch.digamma(beta) - torch.digamma(alpha + beta))


@contract(q="realt:(0,1)", mass="real:(0,1)")
def prior_slope(q: torch.Tensor, slope: str = "paper", mass: float = 0.95) -> torch.Tensor:
    """Log-prior per unit distance: paper log(1 - q); code -1/H(q) (H the ``mass`` horizon)."""
    _check_choice("slope", slope, SLOPES)
    if slope == "paper":
        return torch.log1p(-q)
    return -1.0 / geometric_horizon(q, mass)


# ----------------------------------------------------------------------------- the ELBO
@contract(scores="tensor:2", attention="tensor:2", alpha="realt:>0", beta="realt:>0", alpha0="realt:>0", beta0="realt:>0")
def expanding_elbo(scores: torch.Tensor, attention: torch.Tensor, alpha, beta, alpha0, beta0) -> torch.Tensor:
    """ELBO of the untruncated model t ~ Geometric(q) on {1, 2, ...}, q ~ Beta(α₀, β₀), evidence exp(s_t).

    scores, attention: (B, T) with token j at distance t = T-1-j; attention is q(t) (zero outside its
    support, and always zero on the query itself, t = 0, which the model excludes; entries in [0, 1]), alpha, beta
    the Beta q(q). Returns (B,):

        E[s_t] + E[log q] + E[t - 1] E[log(1 - q)] + E_q(q)[log Beta(q; α₀, β₀) - log Beta(q; α, β)] + H[q(t)]

    with E[log q] = ψ(α) - ψ(α+β), E[log(1-q)] = ψ(β) - ψ(α+β). A CAVI sweep on a fixed support never
    lowers it; a sweep whose window shrinks the support can.
    """
    if attention.shape != scores.shape:
        raise ValueError(f"attention must have the shape of scores {tuple(scores.shape)}; got {tuple(attention.shape)}")
    if attention.dtype != scores.dtype:   # the ELBO would be computed at the wider dtype, the other cast silently
        raise TypeError(f"scores and attention must have one dtype; got scores {scores.dtype} and attention "
                        f"{attention.dtype}")
    if attention.numel() and (bool((attention < 0).any()) or bool((attention > 1).any())):
        raise ValueError("attention must be q(t), probabilities in [0, 1]; got an entry outside")
    if attention.shape[1] and bool((attention[:, -1] != 0).any()):   # the query (t = 0): outside the model's t >= 1
        raise ValueError("attention must be zero on the query itself (the last token, t = 0): the model's parent "
                         "lies at t >= 1; got a non-zero weight there")
    for name, x in (("alpha", alpha), ("beta", beta), ("alpha0", alpha0), ("beta0", beta0)):
        if torch.is_tensor(x) and x.numel() not in (1, scores.shape[0]) or torch.is_tensor(x) and x.dim() > 1:
            raise ValueError(f"{name} must be a number or one per row of scores ({scores.shape[0]}); got shape "
                             f"{tuple(x.shape)}")
    B, T = scores.shape
    dtype = scores.dtype
    dist = torch.arange(T - 1, -1, -1, dtype=dtype, device=scores.device)
    alpha, beta = (torch.as_tensor(x, dtype=dtype).expand(B) for x in (alpha, beta))
    alpha0, beta0 = (torch.as_tensor(x, dtype=dtype).expand(B) for x in (alpha0, beta0))
    dg = torch.digamma(alpha + beta)
    e_log_q, e_log_1mq = torch.digamma(alpha) - dg, torch.digamma(beta) - dg

    def log_b(x, y):
        return torch.lgamma(x) + torch.lgamma(y) - torch.lgamma(x + y)

    on = attention > 0
    a_log_a = torch.where(on, attention * torch.log(torch.where(on, attention, torch.ones_like(attention))), 0.0)
    e_s = torch.where(on, attention * scores, 0.0).sum(-1)
    e_t1 = (attention * (dist - 1).clamp(min=0)).sum(-1)
    kl = ((alpha - alpha0) * e_log_q + (beta - beta0) * e_log_1mq - log_b(alpha, beta) + log_b(alpha0, beta0))
    elbo = e_s + e_log_q + e_t1 * e_log_1mq - kl - a_log_a.sum(-1)
    if not bool(torch.isfinite(elbo).all()) and bool(torch.isfinite(scores).all()):
        # finite inputs whose Beta terms overflow (lgamma(α₀ + β₀) at β₀ = 1e308 is inf, inf − inf NaN)
        raise ValueError(f"alpha, beta, alpha0, beta0 overflow the ELBO's Beta terms (lgamma of their sum is inf); "
                         f"take them below ~1e300; got alpha0 {float(alpha0.max()):g}, beta0 {float(beta0.max()):g}, "
                         f"alpha {float(alpha.max()):g}, beta {float(beta.max()):g}")
    return elbo
