"""Transformers as one naive mean-field step (Chapter 3; Bal 2021).

With softmax couplings ``J_ij = Σ_h A^h_ij W_O^h W_V^h`` computed from the sources, one naive mean-field step
``m ← X + Σ_j J_ij m_j`` from ``m = X`` is ``X + MultiheadAttention(X)`` (:func:`to_multihead_attention`), and
with the self-correction net in place of the Onsager term it is an encoder block without LayerNorm
(:func:`to_transformer_block`). :func:`naive_trajectory` iterates the step, :func:`softmax_naive_fixed_point`
gives its exact fixed point ``(I − A ⊗ W_O W_V)⁻¹ X``, :func:`naive_contraction_rate` its rate, and
:func:`token_spread` measures rank collapse.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch
from torch import nn

from .correction import coupling_asymmetry  # the one definition, shared with Chapter 2 (re-exported here)
from .meanfield import MeanFieldAttention, _check_source
from ..companion.checks import check_bool, check_tensor, contract

__all__ = ["value_map_off_block", "to_multihead_attention", "to_transformer_block", "naive_trajectory", "softmax_naive_fixed_point",
           "naive_contraction_rate", "token_spread", "one_step_identities", "steps_study", "sharpness_study",
           "softmax_couplings",
           "off_head_block_fraction", "coupling_asymmetry"]


def _check_softmax_layer(layer: Any) -> None:
    if not isinstance(layer, MeanFieldAttention) or layer.interaction != "softmax":
        raise ValueError("layer must be a MeanFieldAttention with interaction='softmax'")


def to_multihead_attention(layer: MeanFieldAttention) -> nn.MultiheadAttention:
    """``torch.nn.MultiheadAttention`` (batch_first, no biases) with the softmax layer's weights:
    ``W_Q, W_K, W_V`` as its input projection and ``W_O`` as its output projection.

    Then ``x + mha(x, x, x)[0]`` is one naive mean-field step from ``m = x`` (:func:`naive_trajectory`).
    Needs ``values=True`` and ``heads·dim_head == dim`` (torch's layout).
    """
    _check_softmax_layer(layer)
    if layer.to_v is None or layer.heads * layer.dim_head != layer.dim:
        raise ValueError("to_multihead_attention needs values=True and heads*dim_head == dim")
    d = layer.dim
    w = layer.to_q.weight
    mha = nn.MultiheadAttention(d, layer.heads, bias=False, batch_first=True, dtype=w.dtype, device=w.device)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([layer.to_q.weight, layer.to_k.weight, layer.to_v.weight]))
        mha.out_proj.weight.copy_(layer.to_out.weight)
    return mha


def to_transformer_block(layer: MeanFieldAttention) -> nn.TransformerEncoderLayer:
    """A post-norm ``torch.nn.TransformerEncoderLayer`` without LayerNorm (norms replaced by
    identities, dropout 0, GELU) equal to one mean-field step with the correction on ``g``:

        g = x + Attn(x),   block(x) = g + FFN(g)   with   FFN = −f_θ,

    i.e. the transformer's feed-forward sub-block is the negated self-correction net. The
    block is returned in training mode (torch's inference fast path needs LayerNorms).
    """
    _check_softmax_layer(layer)
    if layer.correction is None or layer.correction_on != "g":
        raise ValueError("to_transformer_block needs lin_response=True and correction='g'")
    mha = to_multihead_attention(layer)
    lin1, lin2 = layer.correction[0], layer.correction[2]
    w = lin1.weight
    block = nn.TransformerEncoderLayer(layer.dim, layer.heads, dim_feedforward=lin1.out_features, dropout=0.0,
                                       activation="gelu", batch_first=True, dtype=w.dtype, device=w.device)
    block.norm1, block.norm2 = nn.Identity(), nn.Identity()
    with torch.no_grad():
        block.self_attn.in_proj_weight.copy_(mha.in_proj_weight)
        block.self_attn.in_proj_bias.zero_()
        block.self_attn.out_proj.weight.copy_(mha.out_proj.weight)
        block.self_attn.out_proj.bias.zero_()
        block.linear1.weight.copy_(lin1.weight)
        block.linear1.bias.copy_(lin1.bias)
        block.linear2.weight.copy_(-lin2.weight)
        block.linear2.bias.copy_(-lin2.bias)
    return block.train()


@contract(x="tensor:3", steps="int:0", m0="tensor?",
          alloc=lambda a: [("steps", (a["steps"] + 2) * a["x"].numel() * a["x"].element_size())])
def naive_trajectory(layer: MeanFieldAttention, x: torch.Tensor, steps: int, *, residual: bool = True,
                     lin_response: bool = False, m0: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Iterates of the mean-field update started from ``m_0 = x`` (or ``m0``):
    ``m_{k+1} = Σ_j J_ij m_j + [x_i if residual] (− f_θ if lin_response)``.

    Step 1 from ``m_0 = x`` without the correction is a transformer attention block with its
    residual connection; ``residual=False`` drops the source term (the skip connection).

    Returns (steps+1, B, N, d), index k holding ``m_k``.
    """
    if not isinstance(layer, MeanFieldAttention):
        raise TypeError(f"layer must be a MeanFieldAttention; got {type(layer).__name__}")
    x = _check_source(x, layer.num_spins, layer.dim)
    steps = int(steps)
    if steps < 0:
        raise ValueError(f"steps must be >= 0; got {steps}")
    residual, lin_response = check_bool("residual", residual), check_bool("lin_response", lin_response)
    if m0 is not None and m0.shape != x.shape:
        raise ValueError(f"m0 must have the shape of x {tuple(x.shape)}; got {tuple(m0.shape)}")
    cache = layer.prepare(x)
    src = x if residual else torch.zeros_like(x)
    m = x if m0 is None else m0
    out = [m]
    with torch.no_grad():
        for _ in range(steps):
            m = layer.update(m, src, cache, lin_response=lin_response)
            out.append(m)
    return torch.stack(out)


@contract(x="tensor:3", alloc=lambda a: [("x", 16 * a["x"].shape[0] * (a["x"].shape[1] * a["x"].shape[2]) ** 2)])
def softmax_naive_fixed_point(layer: MeanFieldAttention, x: torch.Tensor, *, residual: bool = True) -> torch.Tensor:
    """Exact fixed point of the naive softmax-coupled update, by one linear solve:
    ``m = Σ_h (A^h ⊗ W_O^h W_V^h) m + x``  =>  ``m* = (I − Σ_h A^h ⊗ M^h)⁻¹ x`` per sample.

    Returns (B, N, d) (zeros when ``residual=False``: the only fixed point of a contraction).
    """
    _check_softmax_layer(layer)
    x = _check_source(x, layer.num_spins, layer.dim)
    residual = check_bool("residual", residual)
    B, n, d = x.shape
    with torch.no_grad():
        A = layer.attention_matrix(x)                                          # (B, h, N, N)
        maps = layer._head_maps().to(x.dtype)                                  # (h, d, d)
        T = torch.einsum("bhij,hcd->bicjd", A, maps).reshape(B, n * d, n * d)
        eye = torch.eye(n * d, dtype=x.dtype, device=x.device)
        src = x if residual else torch.zeros_like(x)
        return torch.linalg.solve(eye - T, src.reshape(B, n * d, 1)).reshape(B, n, d)


@contract(x="tensor:3", alloc=lambda a: [("x", 16 * a["x"].shape[0] * (a["x"].shape[1] * a["x"].shape[2]) ** 2)])
def naive_contraction_rate(layer: MeanFieldAttention, x: torch.Tensor, *, eigen: bool = False) -> torch.Tensor:
    """(B,) spectral radius of the naive update's Jacobian ``Σ_h A^h ⊗ W_O^h W_V^h`` (softmax
    layer): below 1 the DEQ fixed point exists and the iterates approach it at this rate.

    With one head ``ρ(A ⊗ M) = ρ(A) ρ(M) = ρ(M)``, because a softmax matrix is row-stochastic
    with positive entries (``ρ(A) = 1``); that d×d computation is used unless ``eigen=True``,
    which diagonalises the (Nd)×(Nd) Jacobian of every sample (any number of heads)."""
    _check_softmax_layer(layer)
    x = _check_source(x, layer.num_spins, layer.dim)
    eigen = check_bool("eigen", eigen)
    B, n, d = x.shape
    with torch.no_grad():
        if layer.heads == 1 and not eigen:
            rho = torch.linalg.eigvals(layer._head_maps()[0].to(x.dtype)).abs().max()
            return rho.expand(B).clone()
        A = layer.attention_matrix(x)
        T = torch.einsum("bhij,hcd->bicjd", A, layer._head_maps().to(x.dtype)).reshape(B, n * d, n * d)
        return torch.linalg.eigvals(T).abs().max(dim=1).values


@contract(x="tensor:3", alloc=lambda a: [("x", 16 * a["x"].shape[0] * (a["x"].shape[1] * a["x"].shape[2]) ** 2)])
def softmax_couplings(layer: MeanFieldAttention, x: torch.Tensor) -> torch.Tensor:
    """(B, N, N, d, d) couplings of the softmax layer for the sources ``x``: ``J_ij = Σ_h A^h_ij W_O^h W_V^h``,
    so that ``Σ_j J_ij m_j`` is :meth:`MeanFieldAttention.sum_over_couplings` (tested)."""
    _check_softmax_layer(layer)
    x = _check_source(x, layer.num_spins, layer.dim)
    with torch.no_grad():
        return torch.einsum("bhij,hcd->bijcd", layer.attention_matrix(x), layer._head_maps().to(x.dtype))


@contract(J="tensor:>=2", heads="int:1")
def off_head_block_fraction(J: torch.Tensor, heads: int) -> float:
    """``‖J outside the head blocks‖_F / ‖J‖_F`` for couplings (..., d, d) whose feature axis is split into
    ``heads`` slices of ``d / heads``: 0 when every ``J_ij`` is block-diagonal, one block per head."""
    d = J.shape[-1]
    if heads < 1 or d % heads:
        raise ValueError(f"heads must divide the dimension d = {d}; got {heads!r}")
    if not bool(J.ne(0).any()):
        raise ValueError("J is zero: the share of its norm outside the head blocks is undefined")
    dh = d // heads
    block = torch.block_diag(*[torch.ones(dh, dh, dtype=J.dtype, device=J.device)] * heads).bool()
    return (J[..., ~block].norm() / J.norm().clamp_min(torch.finfo(J.dtype).tiny)).item()


@contract(num_spins="int:1", dim="int:1", x="tensor:3", heads="int:1")
def value_map_off_block(num_spins: int, dim: int, x: torch.Tensor, generator: torch.Generator, heads: int = 4) -> float:
    """:func:`off_head_block_fraction` of a ``heads``-head softmax layer (float64) with a standard per-head value map
    W_V^h reading all ``dim`` features (the blog's §4.2 update, ``X W_V``) and no output projection (W_O = I), its
    weights drawn from ``generator``, for the sources ``x`` (B, num_spins, dim): about √(1 − 1/H) for a random map,
    not 0 (the head blocks hold only without a value map, or with one that is itself block-diagonal)."""
    if dim % heads:
        raise ValueError(f"heads must divide dim = {dim}; got heads = {heads}")
    if tuple(x.shape[1:]) != (num_spins, dim):
        raise ValueError(f"x must have shape (B, num_spins = {num_spins}, dim = {dim}); got {tuple(x.shape)}")
    layer = MeanFieldAttention(num_spins, dim, interaction="softmax", heads=heads, values=True, lin_response=False,
                               generator=generator).double()
    with torch.no_grad():
        layer.to_out.weight.copy_(torch.eye(dim, dtype=torch.float64))
    return off_head_block_fraction(softmax_couplings(layer, x.double()), heads)


@contract(m="tensor:>=2")
def token_spread(m: torch.Tensor) -> torch.Tensor:
    """Relative distance of the tokens from their mean, ``‖m − 1 m̄ᵀ‖_F / ‖m‖_F`` over the last
    two axes (N, d); 0 means every token carries the same vector (rank collapse)."""
    if m.shape[-2] == 0 or m.shape[-1] == 0:   # no token, or tokens of no feature: 0/0, not a collapse
        raise ValueError(f"m must hold at least one token of at least one feature, (..., N, d); got shape "
                         f"{tuple(m.shape)}")
    centred = m - m.mean(dim=-2, keepdim=True)
    return centred.flatten(-2).norm(dim=-1) / m.flatten(-2).norm(dim=-1).clamp_min(torch.finfo(m.dtype).tiny)


@contract(x="tensor:3", generators="mapping:1|2")
def one_step_identities(x: torch.Tensor, generators: dict[int, torch.Generator]) -> dict[str, float]:
    """max |difference| of the two identities for softmax layers with 1 and 2 heads (weights from
    ``generators[heads]``): one naive step = ``x + MultiheadAttention(x)``; one corrected step = an encoder
    block without LayerNorm. ``x`` (B, N, d) float64."""
    check_tensor("x", x, dtype=torch.float64)   # the layers are float64: a float32 x would fail inside torch
    _, N, d = x.shape
    out = {}
    for heads in (1, 2):
        layer = MeanFieldAttention(N, d, interaction="softmax", heads=heads, generator=generators[heads]).double()
        mha, block, name = to_multihead_attention(layer), to_transformer_block(layer), f"{heads} head{'s' * (heads > 1)}"
        with torch.no_grad():
            naive_step = naive_trajectory(layer, x, 1)[1]
            corrected_step = naive_trajectory(layer, x, 1, lin_response=True)[1]
            out[f"naive step vs X + MultiheadAttention ({name})"] = \
                (naive_step - (x + mha(x, x, x, need_weights=False)[0])).abs().max().item()
            out[f"corrected step vs encoder block w/o LayerNorm ({name})"] = (corrected_step - block(x)).abs().max().item()
    return out


@contract(x="tensor:3", rhos="reals:>=0", steps="int:0",
          alloc=lambda a: [("steps", 8 * (a["steps"] + 2) * a["x"].numel() * len(a["rhos"]))])
def steps_study(base: MeanFieldAttention, x: torch.Tensor, rhos, steps: int) -> dict[str, dict]:
    """For each contraction rate ρ (``base``'s output projection rescaled): relative distance of the naive
    iterates to the exact fixed point (steps + 1, B), token spread with and without the source, the
    Anderson DEQ's mean iterations and largest relative error against the exact fixed point, and the
    smallest spectral radius over the batch of ``∂f/∂m`` at that fixed point (``jacobian_rho``; power
    iteration, :func:`mfattn.implicit.stability.jacobian_spectral_radius`)."""
    import copy

    from .stability import jacobian_spectral_radius

    rho0 = naive_contraction_rate(base, x)[0].item()
    out = {"distance": {}, "spread": {}, "anderson_iters": {}, "anderson_dev": {}, "jacobian_rho": {}}
    for rho in rhos:
        layer = copy.deepcopy(base)
        with torch.no_grad():
            layer.to_out.weight.mul_(rho / rho0)
            m_star = softmax_naive_fixed_point(layer, x)
            traj = naive_trajectory(layer, x, steps)                          # (steps+1, B, N, d)
            out["distance"][rho] = ((traj - m_star).flatten(2).norm(dim=-1) / m_star.flatten(1).norm(dim=-1)).numpy()
            out["spread"][rho] = {"with source": token_spread(traj).numpy(),
                                  "without source": token_spread(naive_trajectory(layer, x, steps, residual=False)).numpy()}
            m_deq = layer(x)                                                       # Anderson, as in the DEQ layer
        out["anderson_iters"][rho] = layer.last_stats["forward"].iterations.double().mean().item()
        # relative error; the error bound is cond(I - A⊗M) times the solver's tolerance (1e-12)
        out["anderson_dev"][rho] = ((m_deq - m_star).flatten(1).norm(dim=1) / m_star.flatten(1).norm(dim=1)).max().item()
        # Linear stability of the fixed point Anderson returns: ρ(∂f/∂m) there, by power iteration (smallest
        # over the batch: above 1, every sample's fixed point repels plain iteration).
        out["jacobian_rho"][rho] = jacobian_spectral_radius(layer, x, m_deq.detach(), iters=400).min().item()
    return out


@contract(x="tensor:3", rho="real:>0", steps="int:0", scales="reals:>0",
          alloc=lambda a: [("steps", 8 * (a["steps"] + 2) * a["x"].numel() * len(a["scales"]))])
def sharpness_study(base: MeanFieldAttention, x: torch.Tensor, rho: float, steps: int,
                    scales=(1.0, 10.0)) -> dict[str, np.ndarray]:
    """Rank collapse against the sharpness of the attention: for each scale s of the query map (W_Q → s W_Q, logits
    × s), at contraction rate ``rho`` (``base``'s output projection rescaled, as :func:`steps_study` does), the
    second-largest eigenvalue modulus of each sample's attention matrix, ``lambda2`` (B,) (one head: the rate
    |λ₂(A)|^k at which the rows of A^k merge, so the tokens collapse without the source), and the token spread after
    ``steps`` iterates without and with the source, ``spread_nores`` and ``spread_res`` (B,), and ``strength_fold``,
    the 95th over the 5th percentile of a site's coupling strength Σ_j A_ij² over the sites and samples (how much the
    strength of softmax couplings varies with the input, the range an amortised correction must span). Keys ``<name>_<s>``
    with s formatted by ``{:g}``."""
    import copy

    _check_softmax_layer(base)
    rho0 = naive_contraction_rate(base, x)[0].item()
    out: dict[str, np.ndarray] = {}
    for s in scales:
        layer = copy.deepcopy(base)
        with torch.no_grad():
            layer.to_out.weight.mul_(rho / rho0)
            layer.to_q.weight.mul_(float(s))
            A = layer.attention_matrix(x)[:, 0]
            ev = torch.linalg.eigvals(A).abs().sort(dim=-1, descending=True).values
            out[f"lambda2_{s:g}"] = ev[:, 1].numpy()
            # how much a site's coupling strength Σ_j A_ij² varies over sites and inputs: its 95th over 5th percentile
            lo, hi = torch.quantile((A ** 2).sum(dim=-1).flatten(), torch.tensor([0.05, 0.95], dtype=A.dtype))
            out[f"strength_fold_{s:g}"] = np.array(float(hi / lo))
            out[f"spread_nores_{s:g}"] = token_spread(naive_trajectory(layer, x, steps, residual=False)[-1]).numpy()
            out[f"spread_res_{s:g}"] = token_spread(naive_trajectory(layer, x, steps)[-1]).numpy()
    return out
