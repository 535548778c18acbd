"""The arithmetic of the explicit layer's linear-response update, counted (Chapter 3).

Bal (2021) states that the "slow and explicit" layer costs O(N³d³). That is a statement about arithmetic, and a
wall-time exponent (:func:`mfattn.implicit.vector_tap.explicit_cost_scaling`) only approximates it: the kernels
run closer to their peak on larger matrices, the fitted exponent depends on the window of sizes, and it moves
between runs. This module counts the floating-point operations instead, which is deterministic.

:func:`_counted_cavity_update` executes one :meth:`~mfattn.implicit.vector_tap.VectorSpinTAP.cavity_update` in
numpy float64 with every inversion done by an in-place Gauss-Jordan elimination with partial pivoting, counting
each addition, subtraction, multiplication and division as it is executed (a vectorised operation counts its
elements; pivot search and row swaps count nothing). Its count is exactly :func:`linear_response_flops`,
``2(Nd)³ + 2(Nd)² + 6Nd³ + 6Nd² + 4Nd``; :func:`cost_count` executes it where that is cheap and evaluates the
closed form at every size, so the stored count at the largest sizes rests on executed counts at the smaller ones.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import torch

from ..companion.checks import check_alloc, contract
from .meanfield import couplings_to_matrix
from .vector_tap import VectorSpinTAP

__all__ = ["linear_response_flops", "cost_count"]


def _gauss_jordan_inverse(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The inverse of the square matrix ``a`` and the number of floating-point operations executed.

    In-place Gauss-Jordan with partial pivoting: for each pivot one division (its reciprocal), ``n``
    multiplications (the pivot row) and ``2n²`` for the rank-one update of the whole matrix (the pivot row's
    coefficient is zero: it is updated by nothing, but the operations are executed and counted). Total
    ``2n³ + n² + n``. The row swaps of the pivoting are undone as column swaps at the end (no arithmetic).
    """
    a = np.array(a, dtype=np.float64, copy=True)
    n = a.shape[0]
    if a.shape != (n, n):
        raise ValueError(f"a must be square; got shape {a.shape}")
    swaps, flops = [], 0
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0.0:
            raise np.linalg.LinAlgError("singular matrix")
        if p != k:
            a[[k, p]] = a[[p, k]]
            swaps.append((k, p))
        pivinv = 1.0 / a[k, k]
        flops += 1
        a[k, k] = 1.0
        a[k] *= pivinv
        flops += n
        coef = a[:, k].copy()
        coef[k] = 0.0
        a[:, k] = 0.0
        a[k, k] = pivinv
        a -= np.outer(coef, a[k])
        flops += 2 * n * n
    for k, p in reversed(swaps):          # (P A)⁻¹ P = A⁻¹: swap the columns back, last swap first
        a[:, [k, p]] = a[:, [p, k]]
    return a, flops


def _counted_cavity_update(layer: VectorSpinTAP, V: torch.Tensor) -> tuple[np.ndarray, int]:
    """One adaptive-TAP update of the cavity variances, as :meth:`VectorSpinTAP.cavity_update` computes it
    (``χ = (P − V)⁻¹``, ``Λ = V + χ⁻¹``, ``C = (Λ − J)⁻¹``, ``V ← Λ − (C_ii)⁻¹``), with every operation counted.
    Returns the new ``V`` (N, d, d) and the count (:func:`linear_response_flops`)."""
    n, d = layer.num_spins, layer.dim
    with torch.no_grad():
        M = couplings_to_matrix(layer.couplings()).double().numpy()
    P = layer.prior_precision.double().numpy()
    V = V.detach().double().numpy()
    flops = 0

    def inv(a):
        nonlocal flops
        out, f = _gauss_jordan_inverse(a)
        flops += f
        return out

    diff = P - V
    flops += diff.size
    chi = np.stack([inv(b) for b in diff])
    lam = V + np.stack([inv(b) for b in chi])
    flops += lam.size
    A = np.zeros((n * d, n * d))
    for i in range(n):                    # block-diagonal assembly: copies, no arithmetic
        A[i * d:(i + 1) * d, i * d:(i + 1) * d] = lam[i]
    A -= M
    flops += A.size
    C = inv(A)
    C_diag = np.stack([C[i * d:(i + 1) * d, i * d:(i + 1) * d] for i in range(n)])
    out = lam - np.stack([inv(b) for b in C_diag])
    flops += out.size
    return out, flops


@contract(num_spins="int:1", dim="int:1")
def linear_response_flops(num_spins: int, dim: int) -> int:
    """Floating-point operations of one linear-response update of the explicit layer (N spins of dimension d),
    as :func:`_counted_cavity_update` executes it: one Gauss-Jordan inversion of the (Nd)×(Nd) system
    (``2(Nd)³ + (Nd)² + Nd``), its assembly (``(Nd)²``), three inversions of d×d blocks per site
    (``3N(2d³ + d² + d)``) and three block additions (``3Nd²``):
    ``2(Nd)³ + 2(Nd)² + 6Nd³ + 6Nd² + 4Nd``, cubic in Nd with lower-order terms of relative size
    ``≈ 1/(Nd) + 3/N²``."""
    n, d = int(num_spins), int(dim)
    nd = n * d
    return 2 * nd ** 3 + 2 * nd ** 2 + 6 * n * d ** 3 + 6 * n * d ** 2 + 4 * nd


def _check_sizes(sizes: Any) -> list[tuple[int, int]]:
    """``sizes`` as a non-empty list of ``(N, d)`` pairs of positive integers (a ValueError naming it otherwise)."""
    try:
        pairs = [tuple(p) for p in sizes]
    except TypeError:
        pairs = None
    ok = bool(pairs) and all(len(p) == 2 and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                  and v >= 1 for v in p) for p in pairs)
    if not ok:
        raise ValueError(f"sizes must be a non-empty sequence of (N, d) pairs of positive integers; got {sizes!r}")
    return [(int(n), int(d)) for n, d in pairs]


@contract(execute_max_nd="int:0", seed="int:0")
def cost_count(sizes: Sequence[tuple[int, int]], execute_max_nd: int, *, seed: int = 0) -> dict[str, Any]:
    """The operation count of one linear-response update for every ``(N, d)`` of ``sizes``.

    ``flops``: :func:`linear_response_flops` at every size; ``counted``: the count of the executed update
    (:func:`_counted_cavity_update` on a :class:`~mfattn.implicit.vector_tap.VectorSpinTAP` drawn from ``seed``,
    V = 0 as in :func:`~mfattn.implicit.vector_tap.explicit_tap_cost`) where ``Nd <= execute_max_nd``, NaN
    elsewhere (an executed count at Nd = 4096 would take an hour of numpy); ``max_dev``: the largest relative
    difference of the counted update's V from the layer's own ``cavity_update`` over the executed sizes (the
    count is of the computation the layer does).

    Returns ``{"N", "d", "Nd", "flops", "counted": (S,) arrays, "max_dev": float, "executed": int}``.
    """
    sizes = _check_sizes(sizes)
    # the executed updates hold a few (Nd)×(Nd) float64 matrices at a time
    check_alloc("sizes", 8 * 4 * max(min(n * d, execute_max_nd) ** 2 for n, d in sizes))
    gen = torch.Generator().manual_seed(seed)
    rows, dev, executed = [], 0.0, 0
    for n, d in sizes:
        counted = math.nan
        if n * d <= execute_max_nd:
            layer = VectorSpinTAP(n, d, generator=gen).double()
            V = torch.zeros(n, d, d, dtype=torch.float64)
            got, counted = _counted_cavity_update(layer, V)
            with torch.no_grad():
                ref = layer.cavity_update(V, couplings_to_matrix(layer.couplings())).numpy()
            dev = max(dev, float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-300)))
            executed += 1
        rows.append((n, d, n * d, float(linear_response_flops(n, d)), float(counted)))
    arr = np.array(rows, dtype=float).reshape(-1, 5)
    return {"N": arr[:, 0], "d": arr[:, 1], "Nd": arr[:, 2], "flops": arr[:, 3], "counted": arr[:, 4],
            "max_dev": dev, "executed": executed}
