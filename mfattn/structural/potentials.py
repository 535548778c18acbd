"""Edge potentials, the partition function over edge sets, and attention as its gradient.

Singh & Buckley (2023, Sec. 4, Eqs 3-7) reach attention in three steps, each checked here in float64:

1. **The partition function.** With a factorised prior ``pi_ij = p(E_i = j)`` (zero outside the allowed
   parents ``A_i``) and edge log-potentials ``s_ij``, the normaliser of the joint ``p(x, E)`` summed over
   every edge set is

       ln Z = ln sum_E prod_i pi_{i,E_i} e^{s_{i,E_i}} = sum_i ln sum_{j in A_i} pi_ij e^{s_ij}.        (1)

   :func:`log_partition_enumerated` sums over the edge sets, :func:`log_partition` uses the factorisation.

2. **The gradient as an expectation** (Eq. 7). Add a source ``lambda_i . v_j`` to every edge's
   log-potential; then ``d ln Z / d lambda_i = E_{p(E|x)}[v_{E_i}]``, the attention output, and
   ``d ln Z / d q_i = beta E[k_{E_i}]`` for ``s_ij = beta q_i . k_j``. :func:`expectation_by_gradient` takes
   both gradients by autograd through the *enumerated* ``ln Z``.

3. **The Gaussian/Laplace step.** With Gaussian potentials ``x_i | parent j ~ N(k_j, I / beta)``,

       ln N(x_i; k_j, I/beta) = beta x_i . k_j - beta |x_i|^2/2 - beta |k_j|^2/2 - (d/2) ln(2 pi / beta),   (2)

   the ``|x_i|^2`` term is the same for every parent and cancels from the posterior, but ``|k_j|^2`` does
   not: the posterior is ``softmax_j(beta x_i . k_j - beta |k_j|^2 / 2)``. Dropping that term as a
   "constant" (dot-product attention) is exact only when all allowed keys have the same norm. Put
   differently: the unnormalised dot-product potential ``exp(beta x . k_j - beta |x|^2/2)`` has a
   partition function ``Z_j = (2 pi / beta)^{d/2} exp(beta |k_j|^2 / 2)`` that depends on the key, so the
   likelihood ``p(x | E)`` carries a factor ``1 / Z(E)`` that softmax attention ignores
   (:func:`dot_potential_partition` checks Z_j by quadrature). For an unknown node ``x`` collapsing
   the edge gives ``ln p(x) = ln sum_j pi_j N(x; k_j, I/beta)``, whose gradient is again an expectation,
   ``beta E[k_E - x]``, and the Newton (Laplace) step on the Gaussian part, ``x + grad / beta``, lands on
   ``sum_j a_j k_j``: one attention step (:func:`laplace_step`).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..companion.checks import check_int, check_real
from .edges import check_allowed, enumerate_structures
from ..companion.checks import contract

__all__ = ["log_partition", "log_partition_enumerated", "expectation_by_gradient", "gaussian_log_potential",
           "gaussian_posterior", "dot_potential_partition", "collapsed_log_likelihood", "laplace_step",
           "identity_study"]


def _check_same_dim(x: torch.Tensor, k: torch.Tensor, x_batch: int = 2) -> None:
    """x (..., [m,] d) and k (..., n, d): one dtype, one d >= 1, batch shapes that broadcast (``x_batch``: the trailing
    dimensions of x that are no batch, 2 for (m, d) and 1 for one node (d,))."""
    if x.dtype != k.dtype:
        raise TypeError(f"x and k must have one dtype; got x {x.dtype} and k {k.dtype} (cast explicitly)")
    if x.shape[-1] != k.shape[-1]:
        raise ValueError(f"k must have the dimension of x ({x.shape[-1]}) in its last axis; got shape {tuple(k.shape)}")
    if x.shape[-1] < 1:
        raise ValueError(f"x and k must have a dimension d >= 1; got shapes {tuple(x.shape)} and {tuple(k.shape)}")
    try:
        np.broadcast_shapes(tuple(x.shape[:-x_batch]), tuple(k.shape[:-2]))
    except ValueError:
        raise ValueError(f"x and k must have batch shapes that broadcast; got shapes {tuple(x.shape)} and "
                         f"{tuple(k.shape)}") from None


def _finite(out: torch.Tensor, what: str, names: str) -> torch.Tensor:
    if not bool(torch.isfinite(out).all()):
        raise ValueError(f"{names} overflow the {what} (past float64's range); give smaller values or a beta nearer 1")
    return out


def _log_prior(allowed: torch.Tensor, log_prior: torch.Tensor | None, like: torch.Tensor) -> torch.Tensor:
    if log_prior is not None and log_prior.shape != allowed.shape:
        raise ValueError(f"log_prior must have the shape of allowed {tuple(allowed.shape)} (one entry per edge); "
                         f"got shape {tuple(log_prior.shape)}")
    if log_prior is not None and log_prior.dtype != like.dtype:
        raise TypeError(f"scores and log_prior must have one dtype; got scores {like.dtype} and log_prior "
                        f"{log_prior.dtype} (cast explicitly)")
    lp = torch.zeros(allowed.shape, dtype=like.dtype, device=like.device) if log_prior is None else log_prior.to(like)
    lp = lp.masked_fill(~allowed.to(like.device), -math.inf)
    return lp - torch.logsumexp(lp, -1, keepdim=True)


@contract(scores="tensor:>=2", allowed="anytensor:2", log_prior="tensor?")
def log_partition(scores: torch.Tensor, allowed: torch.Tensor, log_prior: torch.Tensor | None = None) -> torch.Tensor:
    """Eq. (1) by the factorisation: ``sum_i logsumexp_{j in A_i}(s_ij + ln pi_ij)``.

    scores : (..., m, n) edge log-potentials; allowed : bool (m, n); log_prior : (m, n) or None (uniform
    over A_i). Returns (...).
    """
    check_allowed(allowed, scores.shape[-2], scores.shape[-1])
    return _finite(torch.logsumexp(scores + _log_prior(allowed, log_prior, scores), dim=-1).sum(-1), "log partition",
                   "scores")


@contract(scores="tensor:>=2", allowed="anytensor:2", log_prior="tensor?")
def log_partition_enumerated(scores: torch.Tensor, allowed: torch.Tensor,
                             log_prior: torch.Tensor | None = None) -> torch.Tensor:
    """Eq. (1) by brute force: ``logsumexp`` over every edge set in the prior's support (at most 6 x 6). (...)."""
    check_allowed(allowed, scores.shape[-2], scores.shape[-1])
    structures = enumerate_structures(allowed.cpu()).to(scores.device)  # (S, m)
    rows = torch.arange(scores.shape[-2], device=scores.device)
    per_edge = (scores + _log_prior(allowed, log_prior, scores))[..., rows, structures]  # (..., S, m)
    return _finite(torch.logsumexp(per_edge.sum(-1), dim=-1), "log partition", "scores")


@contract(q="tensor:>=2", k="tensor:>=2", v="tensor:>=2", allowed="anytensor:2", beta="real:>=0")
def expectation_by_gradient(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
                            beta: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Eq. 7: the posterior expectations as gradients of the enumerated ``ln Z``.

    ``ln Z(q, lambda)`` with ``s_ij = beta q_i . k_j + lambda_i . v_j``, summed over every edge set;
    returns ``(d ln Z / d lambda at 0, d ln Z / d q)``, of shapes (..., m, d_v) and (..., m, d): the
    attention output ``E[v_{E_i}]`` and ``beta E[k_{E_i}]``.
    """
    check_real("beta (the inverse temperature of the edge potential)", beta, minimum=0.0)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError(f"q, k and v must have one dtype; got q {q.dtype}, k {k.dtype} and v {v.dtype} (cast "
                        f"explicitly)")
    if k.shape[-1] != q.shape[-1] or v.shape[-2] != k.shape[-2]:
        raise ValueError(f"q (..., m, d), k (..., n, d) and v (..., n, d_v) must share d and n; got shapes "
                         f"{tuple(q.shape)}, {tuple(k.shape)} and {tuple(v.shape)}")
    try:
        np.broadcast_shapes(tuple(q.shape[:-2]), tuple(k.shape[:-2]), tuple(v.shape[:-2]))
    except ValueError:
        raise ValueError(f"q, k and v must have batch shapes that broadcast; got shapes {tuple(q.shape)}, "
                         f"{tuple(k.shape)} and {tuple(v.shape)}") from None
    if not bool(torch.isfinite(beta * q @ k.transpose(-1, -2)).all()):
        raise ValueError(f"beta = {beta:g} times q·k overflows the scores; take a smaller beta")
    q = q.detach().clone().requires_grad_(True)
    source = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device, requires_grad=True)
    scores = beta * q @ k.transpose(-1, -2) + source @ v.transpose(-1, -2)
    grad_source, grad_q = torch.autograd.grad(log_partition_enumerated(scores, allowed).sum(), (source, q))
    return grad_source, grad_q


@contract(x="tensor:>=2", k="tensor:>=2", beta="real:>0")
def gaussian_log_potential(x: torch.Tensor, k: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    """Eq. (2): ``ln N(x_i; k_j, I / beta)`` for every pair, by explicit differences. (..., m, n)."""
    check_real("beta (the precision of the Gaussian potential)", beta, minimum=0.0, strict=True)
    _check_same_dim(x, k)
    d = x.shape[-1]
    sq = (x[..., :, None, :] - k[..., None, :, :]).pow(2).sum(-1)
    return _finite(-0.5 * beta * sq - 0.5 * d * math.log(2 * math.pi / beta), "log potential", "beta, x and k")


@contract(x="tensor:>=2", k="tensor:>=2", allowed="anytensor:2", beta="real:>0")
def gaussian_posterior(x: torch.Tensor, k: torch.Tensor, allowed: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    """``p(E_i = j | x)`` under normalised Gaussian potentials and a uniform prior over ``A_i``: (..., m, n).

    Equal to ``softmax_j(beta x_i . k_j - beta |k_j|^2 / 2)``; equal to dot-product attention only when
    the allowed keys of each query share one norm.
    """
    check_allowed(allowed, x.shape[-2], k.shape[-2])
    return torch.softmax(gaussian_log_potential(x, k, beta).masked_fill(~allowed, -math.inf), dim=-1)


@contract(k="tensor", beta="real:>0", half_width="real:>0", points="int:2",
          alloc=lambda a: [("points", 24 * a["points"] * max(1, a["k"].numel()))])
def dot_potential_partition(k: torch.Tensor, beta: float = 1.0, half_width: float = 12.0,
                            points: int = 20001) -> tuple[torch.Tensor, torch.Tensor]:
    """The partition function of the dot-product potential ``exp(beta x k_j - beta x^2 / 2)`` for scalar
    keys (d = 1): by the trapezoidal rule on ``|x - k_j| <= half_width / sqrt(beta)`` and in closed form,
    ``sqrt(2 pi / beta) exp(beta k_j^2 / 2)``. k : (n,). Returns (quadrature, closed form), each (n,)."""
    check_real("beta (the precision of the Gaussian potential)", beta, minimum=0.0, strict=True)
    check_int("points", points, 3)
    if k.dim() != 1 or k.shape[0] < 1:
        raise ValueError(f"k must be a 1-D tensor of at least one scalar key; got shape {tuple(k.shape)}")
    u = torch.linspace(-half_width, half_width, points, dtype=torch.float64) / math.sqrt(beta)
    x = k.to(torch.float64)[:, None] + u  # a grid centred on each key's mode
    quad = torch.trapezoid(torch.exp(beta * x * k[:, None] - 0.5 * beta * x ** 2), x, dim=-1)
    closed = math.sqrt(2 * math.pi / beta) * torch.exp(0.5 * beta * k.to(torch.float64) ** 2)
    if not (torch.isfinite(quad).all() and torch.isfinite(closed).all() and torch.all(quad > 0)):
        raise ValueError(f"beta ({beta!r}), half_width ({half_width!r}) and k: the partition function or its "
                         f"quadrature leaves float64's range (sqrt(2 pi / beta) exp(beta k^2 / 2) and the trapezoidal "
                         f"sum over |x - k| <= half_width / sqrt(beta) must be finite and positive)")
    return quad, closed


@contract(x="tensor:>=1", k="tensor:>=2", beta="real:>0")
def collapsed_log_likelihood(x: torch.Tensor, k: torch.Tensor, beta: float = 1.0) -> torch.Tensor:
    """``ln p(x) = ln sum_j (1/n) N(x; k_j, I / beta)`` for an unknown node x (..., d) and parents k (..., n, d):
    the edge marginalised out under a uniform one-parent prior. Returns (...)."""
    check_real("beta (the precision of the Gaussian potential)", beta, minimum=0.0, strict=True)
    _check_same_dim(x, k, x_batch=1)
    if k.shape[-2] == 0:
        raise ValueError(f"k must hold at least one parent (shape (..., n, d) with n >= 1); got shape {tuple(k.shape)}")
    lp = torch.distributions.MultivariateNormal(k, covariance_matrix=torch.eye(k.shape[-1], dtype=k.dtype) / beta)
    return _finite(torch.logsumexp(lp.log_prob(x[..., None, :]), dim=-1) - math.log(k.shape[-2]),
                   "log-likelihood", "beta, x and k")


@contract(x="tensor:>=1", k="tensor:>=2", beta="real:>0")
def laplace_step(x: torch.Tensor, k: torch.Tensor, beta: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """The Newton (Laplace) step on the collapsed likelihood's Gaussian part: ``x + grad ln p(x) / beta``, with
    the gradient by autograd; and the attention step it should equal, ``sum_j a_j k_j`` with ``a`` the
    posterior over parents from Bayes' rule on the normalised Gaussians. Both (..., d)."""
    _check_same_dim(x, k, x_batch=1)
    x = x.detach().clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(collapsed_log_likelihood(x, k, beta).sum(), x)
    _finite(grad, "log-likelihood's gradient", "beta, x and k")
    allowed = torch.ones(1, k.shape[-2], dtype=torch.bool)
    a = gaussian_posterior(x.detach()[..., None, :], k, allowed, beta)[..., 0, :]  # (..., n)
    return x.detach() + grad / beta, torch.einsum("...n,...nd->...d", a, k)


@contract(n="int:1", d="int:1", beta="real:>0", instances="int:1", generator="generator",
          alloc=lambda a: [("instances", 32 * a["instances"] * a["n"] * a["d"]),
                           # the enumerated keys k[:, structures, :]: instances × n**n edge sets × n × d
                           ("d", 8 * a["instances"] * a["n"] ** min(a["n"], 7) * a["n"] * a["d"])])
def identity_study(n: int, d: int, beta: float, instances: int, generator: torch.Generator) -> dict:
    """Chapter 4's checks of Eqs 3-7 on random self-attention instances (float64; draws in this order:
    q, k, v of shape (instances, n, d), then the unknown nodes x (instances, d)).

    Returns the largest errors of ln Z (factorised vs enumerated), of d ln Z / d lambda against the enumerated
    E[v] and of d ln Z / d q against beta E[k]; of the Laplace step against attention; the key-norm gaps
    (max |softmax(beta q.k) - Gaussian posterior| per instance, with the drawn keys and with the keys
    rescaled to one common norm) and both attention matrices of every instance in both cases; and the relative
    error of the quadrature of the dot-product potential's partition function and the spread of ln Z_j over keys.
    """
    from .edges import brute_force_graph_attention, graph_structure_posterior

    q, k, v = (torch.randn(instances, n, d, generator=generator, dtype=torch.float64) for _ in range(3))
    x = torch.randn(instances, d, generator=generator, dtype=torch.float64)
    allowed = torch.ones(n, n, dtype=torch.bool)
    scores = beta * q @ k.transpose(-1, -2)
    if not bool(torch.isfinite(scores).all()):
        raise ValueError(f"beta = {beta:g} times q·k overflows the scores; take a smaller beta")
    out = {"logz_error": (log_partition(scores, allowed) - log_partition_enumerated(scores, allowed)).abs().max().item()}
    grad_v, grad_q = expectation_by_gradient(q, k, v, allowed, beta)
    structures, post = graph_structure_posterior(q, k, allowed, beta)
    expected_k = torch.einsum("ts,tsmd->tmd", post, k[:, structures, :])
    out["grad_v_error"] = (grad_v - brute_force_graph_attention(q, k, v, allowed, beta)).abs().max().item()
    out["grad_q_error"] = (grad_q - beta * expected_k).abs().max().item()
    step, attention = laplace_step(x, k, beta)
    out["laplace_error"] = (step - attention).abs().max().item()
    soft = torch.softmax(scores, dim=-1)
    k_equal = k / k.norm(dim=-1, keepdim=True) * math.sqrt(d)  # every key on the sphere of radius sqrt(d)
    out["soft"], out["gauss"] = soft, gaussian_posterior(q, k, allowed, beta)
    out["gap_raw"] = (out["soft"] - out["gauss"]).abs().amax((-1, -2)).numpy()
    out["gauss_equal"] = gaussian_posterior(q, k_equal, allowed, beta)
    out["soft_equal"] = torch.softmax(beta * q @ k_equal.transpose(-1, -2), -1)
    out["gap_equal"] = (out["soft_equal"] - out["gauss_equal"]).abs().amax((-1, -2)).numpy()
    quad, closed = dot_potential_partition(k[0, :, 0], beta)
    out["z_quad_error"] = ((quad - closed) / closed).abs().max().item()
    out["log_z_spread"] = (closed.log().max() - closed.log().min()).item()
    return out
