"""The input checks Chapters 2-3's figures share: coupling-norm matrices on the MNIST model's sites, series of one
length and the training steps they are titled by."""

from __future__ import annotations

import numpy as np

from ..companion.checks import check_array

__all__ = ["SITES"]

#: Sites of the MNIST model's coupling matrices: the cls token and the 4 × 4 patches (the graph's fixed layout).
SITES = 17


def _check_norms(name: str, norms, frames: bool):
    """Coupling-norm matrices (S, 17, 17) (``frames``) or one (17, 17): finite and non-negative."""
    a = check_array(name, norms, ndim=3 if frames else 2)
    if a.shape[-2:] != (SITES, SITES) or (frames and not len(a)):
        want = "(S, 17, 17) with S >= 1" if frames else "(17, 17)"
        raise ValueError(f"{name} must have shape {want} (cls and the 4 x 4 patches); got {a.shape}")
    if (a < 0).any():
        raise ValueError(f"{name} must hold norms (>= 0); got a negative entry")
    return a


def _series(name: str, values, *, length: int | None = None, other: str = "", finite: bool = True,
            minimum: float | None = None, strict: bool = False, maximum: float | None = None) -> np.ndarray:
    """``values`` as a 1-d float array, checked before anything is drawn: ``length`` entries (one per entry of
    ``other``) when given, finite unless ``finite=False`` (NaN then marks a missing value), within ``minimum`` (above
    it when ``strict``) and ``maximum`` (a NaN is not compared); a clear error naming ``name`` otherwise."""
    a = check_array(name, values, ndim=1, allow_int=True, finite=finite)
    if length is not None and len(a) != length:
        raise ValueError(f"{name} must have one entry per entry of {other} ({length}); got {len(a)}")
    low = minimum is not None and bool(np.any(a <= minimum) if strict else np.any(a < minimum))
    if low or (maximum is not None and bool(np.any(a > maximum))):
        lo = "" if minimum is None else (f"> {minimum:g}" if strict else f">= {minimum:g}")
        hi = "" if maximum is None else f"<= {maximum:g}"
        raise ValueError(f"{name} must hold values {' and '.join(p for p in (lo, hi) if p)}; got values from "
                         f"{np.nanmin(a):g} to {np.nanmax(a):g}")
    return a


def _check_steps(name: str, steps, length: int, other: str):
    a = check_array(name, steps, ndim=1, allow_int=True)
    if len(a) != length:
        raise ValueError(f"{name} must have one entry per frame of {other} ({length}); got {len(a)}")
    return a.astype(np.int64) if np.all(a == np.round(a)) else a   # training steps are titled as integers
