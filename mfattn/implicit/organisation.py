"""How the trained MNIST layer's couplings organise: the coupling-norm pattern against its final one, and the
share of the coupling weight each site carries (Chapter 2, the blog's coupling-graph animation).

The frames are snapshots ``A_t`` (S, N, N) of the norm matrix ``A_ij = ‖J_ij‖_F`` kept during training
(``snapshot_step`` (S,)); row ``i`` holds the couplings through which site ``i`` listens to the others
(``g_i = Σ_j J_ij m_j + X_i``), site 0 is the cls token the classifier reads.

Two readings of "organised", because a pattern can have its final *shape* long before its final *size*:

* ``correlation[t]``: Pearson correlation of the off-diagonal entries of ``A_t`` with those of ``A_T`` (shape only;
  its square is the share of the final pattern's variance that frame ``t`` explains);
* ``closed[t] = 1 − ‖A_t − A_T‖_F / ‖A_0 − A_T‖_F``: the share of the way from initialisation to the final
  couplings covered by frame ``t`` (shape and size; 0 at initialisation, 1 at the end).
"""

from __future__ import annotations

import numpy as np
from ..companion.checks import contract

__all__ = ["check_frames", "organisation_curves", "row_shares", "column_shares"]


@contract(norms="array")
def check_frames(norms) -> np.ndarray:
    """``norms`` as a float64 array (S, N, N), S ≥ 2, finite and non-negative, the sum of their squares finite (no
    overflow in the shares and correlations); a ValueError naming it otherwise."""
    arr = np.asarray(norms)
    if arr.dtype.kind not in "fiu" or arr.ndim != 3 or arr.shape[1] != arr.shape[2] or arr.shape[0] < 2 \
            or arr.shape[1] < 3:
        raise ValueError(f"norms must be a real array (S, N, N) with S ≥ 2 frames and N ≥ 3 sites; got "
                         f"{arr.dtype} {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("norms must be finite and non-negative (norms of coupling blocks)")
    with np.errstate(over="ignore"):
        if not np.isfinite(np.square(arr).sum()):
            raise ValueError(f"norms must be small enough for float64 sums of their squares (norms of coupling "
                             f"blocks); got a largest entry of {arr.max():.3g}")
    return arr


@contract(norms="array")
def organisation_curves(norms) -> tuple[np.ndarray, np.ndarray]:
    """``(correlation, closed)``, each (S,), of every frame against the last (module docstring).

    A frame with no off-diagonal variation has correlation 0 by convention (no pattern); ``closed`` needs the
    first and last frames to differ."""
    a = check_frames(norms)
    off = ~np.eye(a.shape[1], dtype=bool)
    x = a[:, off] - a[:, off].mean(axis=1, keepdims=True)                 # (S, N(N-1)) centred
    y = x[-1]
    denom = np.linalg.norm(x, axis=1) * np.linalg.norm(y)
    corr = np.divide(x @ y, denom, out=np.zeros(len(a)), where=denom > 0)
    span = np.linalg.norm(a[0] - a[-1])
    if span == 0:
        raise ValueError("norms: the first and last frames are equal, so no distance is closed")
    closed = 1.0 - np.linalg.norm((a - a[-1]).reshape(len(a), -1), axis=1) / span
    return corr, closed


@contract(frame="array:2")
def row_shares(frame) -> np.ndarray:
    """Share of the total coupling weight in each row of one norm matrix (N, N): what each site listens to (N,)."""
    a = _one_frame(frame)
    return a.sum(axis=1) / a.sum()


@contract(frame="array:2")
def column_shares(frame) -> np.ndarray:
    """Share of the total coupling weight in each column (N,): how strongly the others listen to each site."""
    a = _one_frame(frame)
    return a.sum(axis=0) / a.sum()


def _one_frame(frame) -> np.ndarray:
    shape = np.shape(frame)
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 3:   # else check_frames speaks of its stacked copy
        raise ValueError(f"frame must be one frame of coupling norms (N, N) with N ≥ 3 sites; got shape {shape}")
    a = check_frames(np.asarray(frame)[None].repeat(2, axis=0))[0]
    if a.sum() == 0:
        raise ValueError("frame: all coupling norms are zero, so no site carries a share")
    return a
