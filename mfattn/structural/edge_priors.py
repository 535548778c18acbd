"""Other priors over edge sets (Singh & Buckley 2023, Sec. 6.1 and App. A.8.2): gates, temperature, positions.

The one-parent prior of :mod:`~mfattn.structural.edges` gives a softmax. Change the prior and the same
posterior expectation gives other familiar layers; each identity is checked here by enumeration.

* **Binary edges, factorised Bernoulli prior.** Let every edge ``E_ij`` be present or absent on its own,
  ``p(E) = prod_ij rho_ij^{E_ij} (1 - rho_ij)^{1 - E_ij}``, with potential ``exp(E_ij s_ij / T)``. The
  posterior factorises over edges and each edge is a sigmoid gate,

      p(E_ij = 1 | x) = sigma(s_ij / T + logit rho_ij),                                          (1)

  so the expected value ``sum_j E[E_ij] v_j`` is a gated sum (no normalisation over keys: any number of
  parents). If the value an edge carries is weighted by its own score, ``v(x, E)_i = sum_j E_ij s_ij u_j``
  (hidden units ``j`` with input weights as keys and output weights ``u_j`` as values, the bias inside
  ``s``), the expectation with an even prior is ``sum_j s_ij sigma(s_ij / T) u_j``: a feed-forward layer
  with the SiLU nonlinearity at ``T = 1``, which tends to ReLU as ``T -> 0`` (the largest gap is
  ``0.2785 T``, at ``|s| = 1.2785 T``). :func:`binary_edges_brute_force` sums over all ``2^(m n)`` edge sets.
* **Temperature.** Dividing the edge potentials by ``T`` sharpens the posterior over edge sets: ``T -> 0``
  puts all its mass on the most probable edge set (hard attention), ``T -> infinity`` returns the prior.
* **Relative positions.** A factorised prior that depends on the offset, ``p(E_i = j) ∝ exp(b_{i-j})`` on
  ``A_i``, adds ``b_{i-j}`` to every score: relative-position biases (T5, ALiBi's ``-slope (i - j)``) are a
  prior over edges. :func:`relative_position_log_prior` builds it; the enumeration lives in
  :func:`mfattn.structural.edges.brute_force_graph_attention` (``log_prior=``).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ..companion.checks import check_bool, check_real, contract

__all__ = ["MAX_BINARY_EDGES", "RELU_GAP", "enumerate_binary_edge_sets", "binary_edges_brute_force",
           "sigmoid_gate", "gated_values", "relative_position_log_prior", "priors_study"]

#: Brute force over binary edge sets enumerates 2^(m n) adjacency matrices: at most 2^16 = 65 536.
MAX_BINARY_EDGES = 16
#: max_s |s sigma(s) - relu(s)| = u sigma(-u) at u = 1.27846 (u = 1 + e^{-u}): the SiLU-ReLU gap at T = 1.
RELU_GAP = 0.27846454276107374


@contract(m="int:1", n="int:1",   # the product capped: a huge m or n is refused by name, not raised to a power
          alloc=lambda a: [("n", 2 ** min(a["m"] * a["n"], 62) * min(a["m"] * a["n"], 62) * 9)])
def enumerate_binary_edge_sets(m: int, n: int) -> torch.Tensor:
    """Every adjacency matrix of ``m`` queries and ``n`` keys: bool (2^(m n), m, n), in binary counting order."""
    for name, value in (("m", m), ("n", n)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
        if value > MAX_BINARY_EDGES:   # checked alone first: a huge integer must not reach the product's message
            raise ValueError(f"{name} must be at most {MAX_BINARY_EDGES} (brute force over 2^(m n) adjacency "
                             f"matrices); got an integer of {value.bit_length()} bits" if value.bit_length() > 64
                             else f"{name} must be at most {MAX_BINARY_EDGES}; got {value}")
    if m * n > MAX_BINARY_EDGES:
        raise ValueError(f"brute force over binary edge sets is limited to m * n <= {MAX_BINARY_EDGES} edges "
                         f"(2^{MAX_BINARY_EDGES} adjacency matrices); got m = {m}, n = {n}")
    codes = torch.arange(2 ** (m * n))
    bits = (codes[:, None] >> torch.arange(m * n)) & 1
    return bits.bool().reshape(-1, m, n)


def _same_dtype(scores: torch.Tensor, values: torch.Tensor) -> None:
    if values.dtype != scores.dtype:
        raise TypeError(f"scores and values must have one dtype; got scores {scores.dtype} and values {values.dtype} "
                        f"(cast explicitly)")


def _finite(out: torch.Tensor, what: str) -> torch.Tensor:
    if not bool(torch.isfinite(out).all()):   # s / T + logit rho past float64's range: softmax of inf is NaN
        raise ValueError(f"scores / temperature + log_odds (and values) overflow the {what}; give a larger "
                         f"temperature or smaller scores, log_odds or values")
    return out


def _check_temperature(temperature: float) -> float:
    return check_real("temperature", temperature, minimum=0.0, strict=True)


def _check_log_odds(log_odds, scores: torch.Tensor) -> None:
    # a log-odds tensor is one per edge (or broadcast over edges): it must not widen the scores' shape
    if isinstance(log_odds, torch.Tensor) and log_odds.dtype != scores.dtype:
        raise TypeError(f"scores and log_odds must have one dtype; got scores {scores.dtype} and log_odds "
                        f"{log_odds.dtype} (cast explicitly)")
    if isinstance(log_odds, torch.Tensor):
        try:
            shape = torch.broadcast_shapes(log_odds.shape, scores.shape)
        except RuntimeError:
            shape = None
        if shape != scores.shape:
            raise ValueError(f"log_odds must broadcast to the scores' shape {tuple(scores.shape)}; "
                             f"got shape {tuple(log_odds.shape)}")


@contract(scores="tensor:2", values="tensor:2", log_odds="realt", temperature="real:>0")
def binary_edges_brute_force(scores: torch.Tensor, values: torch.Tensor, log_odds: float | torch.Tensor = 0.0,
                             temperature: float = 1.0, weight_by_score: bool = False):
    """Posterior edge marginals and expected value under the factorised Bernoulli prior, by enumeration.

    ``p(E | x) ∝ prod_ij exp(E_ij (s_ij / T + logit rho_ij))`` over all ``2^(m n)`` adjacency matrices (the
    ``(1 - rho)`` factors are absorbed in the normalisation); the value function is
    ``v(x, E)_i = sum_j E_ij c_ij v_j`` with ``c_ij = s_ij`` if ``weight_by_score`` else 1.

    scores : (m, n); values : (n, d_v); log_odds : logit of the prior edge probability, scalar or (m, n).
    Returns marginals (m, n) and the expected value (m, d_v).
    """
    _check_temperature(temperature)
    check_bool("weight_by_score", weight_by_score)
    _check_log_odds(log_odds, scores)
    if scores.dim() != 2 or values.dim() != 2 or values.shape[0] != scores.shape[1]:
        raise ValueError(f"scores must be (m, n) and values (n, d_v); got {tuple(scores.shape)} and {tuple(values.shape)}")
    _same_dtype(scores, values)
    m, n = scores.shape
    edge_sets = enumerate_binary_edge_sets(m, n).to(scores)  # (S, m, n) as 0/1
    field = _finite(scores / temperature + torch.as_tensor(log_odds, dtype=scores.dtype), "edge field")
    post = torch.softmax((edge_sets * field).sum((-1, -2)), dim=0)  # (S,)
    marginals = torch.einsum("s,smn->mn", post, edge_sets)
    weight = scores if weight_by_score else torch.ones_like(scores)
    value = torch.einsum("s,smn,mn,nd->md", post, edge_sets, weight, values)
    return _finite(marginals, "posterior"), _finite(value, "expected value")


@contract(scores="tensor", log_odds="realt", temperature="real:>0")
def sigmoid_gate(scores: torch.Tensor, log_odds: float | torch.Tensor = 0.0, temperature: float = 1.0) -> torch.Tensor:
    """Eq. (1) in closed form: ``sigma(s / T + logit rho)``, same shape as ``scores``."""
    _check_temperature(temperature)
    _check_log_odds(log_odds, scores)
    return torch.sigmoid(scores / temperature + torch.as_tensor(log_odds, dtype=scores.dtype))


@contract(scores="tensor:>=2", values="tensor:>=2", log_odds="realt", temperature="real:>0")
def gated_values(scores: torch.Tensor, values: torch.Tensor, log_odds: float | torch.Tensor = 0.0,
                 temperature: float = 1.0, weight_by_score: bool = False) -> torch.Tensor:
    """The expected value of :func:`binary_edges_brute_force` in closed form: ``sum_j gate_ij c_ij v_j`` (..., m, d_v)."""
    check_bool("weight_by_score", weight_by_score)
    if values.shape[-2] != scores.shape[-1]:
        raise ValueError(f"values must have one row per key ({scores.shape[-1]}, the last dimension of scores); "
                         f"got shape {tuple(values.shape)}")
    _same_dtype(scores, values)
    try:
        np.broadcast_shapes(tuple(scores.shape[:-2]), tuple(values.shape[:-2]))
    except ValueError:
        raise ValueError(f"scores (..., m, n) and values (..., n, d_v) must have batch shapes that broadcast; got "
                         f"{tuple(scores.shape)} and {tuple(values.shape)}") from None
    gate = sigmoid_gate(scores, log_odds, temperature)
    return _finite((gate * (scores if weight_by_score else 1.0)) @ values, "gated values")


@contract(n="int:1", bias="tensor:1")
def relative_position_log_prior(n: int, bias: torch.Tensor, causal: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """A prior over parents that depends on the offset ``i - j`` only.

    bias : (n,) values ``b_0..b_{n-1}`` for offsets 0..n-1 (``causal``), or (2n - 1,) for offsets
    -(n-1)..n-1. Returns (allowed bool (n, n), log_prior (n, n) with ``log_prior[i, j] = b_{i-j}``).
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    if not isinstance(causal, bool):
        raise TypeError(f"causal must be True or False; got {causal!r}")
    need = n if causal else 2 * n - 1
    if bias.dim() != 1 or bias.shape[0] != need:
        raise ValueError(f"bias must be a 1-D tensor of {need} offsets for n = {n} (causal={causal}); "
                         f"got shape {tuple(bias.shape)}")
    offset = torch.arange(n)[:, None] - torch.arange(n)[None, :]
    allowed = offset >= 0 if causal else torch.ones(n, n, dtype=torch.bool)
    index = offset.clamp_min(0) if causal else offset + n - 1
    return allowed, bias[index]


@contract(n="int:1", d="int:1", temperatures="reals:>0", instances="int:1", generator="generator",
          alloc=lambda a: [("instances", a["instances"] * 4096 * 16 * 8),
                           ("d", 8 * 4096 * 12 * a["d"] + 32 * a["n"] * a["d"])])   # the (S, m, n, d) value sum
def priors_study(n: int, d: int, temperatures, instances: int, generator: torch.Generator,
                 limits: tuple[float, float] = (1e-3, 1e3)) -> dict:
    """Chapter 4's checks of the other priors (float64; per instance the draws are: scores (3, 4) and values
    (4, d) of the binary-edge case (4096 edge sets), a log-odds (3, 4); then q, k, v (n, d) and the offset bias (n,) of the
    relative-position case).

    Returns the largest errors of the sigmoid gate and of the (plain and score-weighted) gated values against
    enumeration, over instances and ``temperatures``; of relative-position attention against enumeration with
    the offset prior, at T = 1 and (tempered posterior over edge sets) at every temperature and both ``limits``; the SiLU-ReLU gap ``max_s |s sigma(s / T) - relu(s)|`` on a grid per temperature; and,
    the distance of attention to the hard (argmax) output at ``limits[0]`` and to the prior-averaged output at
    ``limits[1]`` (median over instances of the largest difference: an instance whose two best scores tie
    to within about T stays soft).
    """
    from .edges import brute_force_graph_attention, graph_attention

    if not (isinstance(limits, (tuple, list)) and len(limits) == 2):
        raise TypeError(f"limits must be a pair (T_low, T_high) of temperatures; got {limits!r}")
    for end, value in zip(("limits[0]", "limits[1]"), limits):
        check_real(end, value, minimum=0.0, strict=True)
    for name, values in (("temperatures", list(temperatures)), ("limits", list(limits))):
        if any(not math.isfinite(1.0 / float(t)) for t in values):   # beta = 1 / T must be a finite float
            raise ValueError(f"{name} must hold temperatures whose inverse 1 / T is finite; got {values!r:.80}")
    if not limits[0] < limits[1]:
        raise ValueError(f"limits must be (T_low, T_high) with T_low < T_high (the hard end first); got {limits!r}")
    err_gate = err_value = err_ffn = err_rel = err_temp = 0.0
    hard_gaps, prior_gaps = [], []
    t_lo, t_hi = limits
    for _ in range(instances):
        s = 2 * torch.randn(3, 4, generator=generator, dtype=torch.float64)
        u = torch.randn(4, d, generator=generator, dtype=torch.float64)
        lo = torch.randn(3, 4, generator=generator, dtype=torch.float64)
        for t in temperatures:
            marg, val = binary_edges_brute_force(s, u, lo, t)
            err_gate = max(err_gate, (marg - sigmoid_gate(s, lo, t)).abs().max().item())
            err_value = max(err_value, (val - gated_values(s, u, lo, t)).abs().max().item())
            _, ffn = binary_edges_brute_force(s, u, 0.0, t, weight_by_score=True)
            err_ffn = max(err_ffn, (ffn - (s * torch.sigmoid(s / t)) @ u).abs().max().item())
        q, k, v = (torch.randn(n, d, generator=generator, dtype=torch.float64) for _ in range(3))
        allowed, log_prior = relative_position_log_prior(n, torch.randn(n, generator=generator, dtype=torch.float64))
        brute = brute_force_graph_attention(q, k, v, allowed, 1.0, log_prior)
        err_rel = max(err_rel, (brute - graph_attention(q, k, v, allowed, 1.0, log_prior)).abs().max().item())
        for t in (*temperatures, t_lo, t_hi):  # the tempered posterior over edge sets = softmax(s / T + b)
            tempered = brute_force_graph_attention(q, k, v, allowed, 1 / t, log_prior)
            err_temp = max(err_temp, (tempered - graph_attention(q, k, v, allowed, 1 / t, log_prior)).abs().max().item())
        # temperature: beta = 1 / T in the potential, the offset prior untempered
        scores = (q @ k.T).masked_fill(~allowed, -math.inf)
        hard = v[scores.argmax(-1)]
        prior_mean = torch.softmax(log_prior.masked_fill(~allowed, -math.inf), -1) @ v
        hard_gaps.append((graph_attention(q, k, v, allowed, 1 / t_lo, log_prior) - hard).abs().max().item())
        prior_gaps.append((graph_attention(q, k, v, allowed, 1 / t_hi, log_prior) - prior_mean).abs().max().item())
    grid = torch.linspace(-8, 8, 16001, dtype=torch.float64)
    relu_gap = {t: (grid * torch.sigmoid(grid / t) - grid.clamp_min(0)).abs().max().item() for t in temperatures}
    return {"gate_error": err_gate, "value_error": err_value, "ffn_error": err_ffn, "relpos_error": err_rel,
            "temp_error": err_temp,
            "relu_gap": relu_gap, "hard_gap": float(np.median(hard_gaps)), "prior_gap": float(np.median(prior_gaps)),
            "t_lo": t_lo, "t_hi": t_hi}
