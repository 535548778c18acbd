"""The mean-field layer's kernels (:class:`mfattn.implicit.meanfield.MeanFieldAttention`): the fused update of
learned couplings on flat states, the correction net written for it, the sources' check and the couplings' count.

``_linear_step`` is the solver's inner loop ``m -> g − f_θ(g or m)`` with ``g = x + m Mᵀ`` (one function serves the
layer's checked update, its solver and the ensemble trainer's solo map, so they share every operation bit for bit).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.nn.functional as F


def _effective_coupling_count(n: int, d: int, symmetry: Optional[str]) -> int:
    """Free parameters of the couplings after symmetry and the zero diagonal."""
    pairs = n * (n - 1)
    if symmetry is None:
        return pairs * d * d
    if symmetry == "internal":
        return pairs * d * (d + 1) // 2
    if symmetry == "site":
        return pairs // 2 * d * d
    if symmetry == "both":
        return pairs // 2 * d * (d + 1) // 2
    return pairs // 2 * d * d  # "energy": J_ji is J_ijᵀ, J_ij itself is free


def _check_source(x: Any, n: int, d: int, dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor of shape (B, {n}, {d}); got {type(x).__name__}")
    if x.dim() != 3 or x.shape[1] != n or x.shape[2] != d or x.shape[0] < 1:
        raise ValueError(f"x must have shape (B, num_spins={n}, dim={d}); got {tuple(x.shape)}")
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor; got dtype {x.dtype}")
    if dtype is not None and x.dtype != dtype:
        raise TypeError(f"x has dtype {x.dtype} but the layer's parameters are {dtype}: cast x, or the layer "
                        f"(layer.double() / layer.float())")
    if not bool(torch.isfinite(x).all()):
        raise ValueError("x contains NaN or inf")
    return x


def _feed_forward_t(h2: torch.Tensor, W1: torch.Tensor, b1: torch.Tensor, W2: torch.Tensor,
                    b2col: torch.Tensor) -> torch.Tensor:
    """``f_θ(h)ᵀ`` (d, R) for rows ``h2`` (R, d): ``W2 gelu(W1 hᵀ + b1) + b2``.

    Returned transposed: CPU GEMM kernels are several times slower for the narrow (R, d)
    output of ``F.linear(a, W2)`` than for its transpose (same sums, different layout).
    """
    return torch.addmm(b2col, W2, F.gelu(F.linear(h2, W1, b1)).t())


def _linear_step(m2: torch.Tensor, x2: torch.Tensor, MT: torch.Tensor, weights: Optional[tuple]) -> torch.Tensor:
    """The mean-field update with learned couplings on flat states (the solver's inner loop).

    ``m2, x2``: (B, N·d) state and source; ``MT``: (N·d, N·d), the transposed coupling
    matrix; ``weights``: ``None`` (naive step) or ``(W1, b1, W2, b2col, on_g)`` of the
    correction net. Returns (B, N·d): ``g = x + m Mᵀ``, then ``g − f_θ(g or m)`` site by site.
    One function serves :meth:`MeanFieldAttention.update` and the solver, which calls it with
    everything fetched once per forward: at these sizes, module attribute look-ups and
    reshapes cost as much as the arithmetic.
    """
    g2 = torch.addmm(x2, m2, MT)
    if weights is None:
        return g2
    W1, b1, W2, b2col, on_g = weights
    d = W1.shape[1]
    h = g2 if on_g else m2
    return torch.sub(g2.view(-1, d), _feed_forward_t(h.reshape(-1, d), W1, b1, W2, b2col).t()).view(g2.shape)
