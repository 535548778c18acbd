"""Input checking shared by the Ising theories of :mod:`mfattn.ising` (couplings, fields, solver settings, starting
magnetisations), and the warning their iterations raise."""

from __future__ import annotations

from typing import Any

import numpy as np

from mfattn.companion.checks import check_array, check_choice, check_int, check_positive, check_real

__all__ = ["MeanFieldWarning"]


class MeanFieldWarning(RuntimeWarning):
    """A mean-field iteration stopped without converging, or its susceptibility lost positivity."""


# --- input checking ----------------------------------------------------------------------------------
def _as_float64(x: Any, name: str) -> np.ndarray:
    """A finite real float64 array (numpy array, torch tensor or nested list): no complex, no integer array."""
    return check_array(name, x)


def _check_model(J: Any, h: Any, name: str = "J") -> tuple[np.ndarray, np.ndarray]:
    """Validate couplings (n, n) symmetric, zero diagonal, and fields (n,)."""
    J = _as_float64(J, name)
    if J.ndim != 2 or J.shape[0] != J.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix; got shape {J.shape}")
    n = J.shape[0]
    if n == 0:
        raise ValueError("J must describe at least one spin; got shape (0, 0)")
    scale = max(1.0, float(np.abs(J).max()))
    if not np.allclose(J, J.T, rtol=0, atol=1e-12 * scale):
        raise ValueError(f"J must be symmetric (J_ij = J_ji); max |J - J.T| = {np.abs(J - J.T).max():.3g}")
    if np.abs(np.diag(J)).max() > 1e-12 * scale:
        raise ValueError("J must have a zero diagonal (self-couplings are constants for S_i = ±1)")
    h = _as_float64(h, "h")
    if h.shape != (n,):
        raise ValueError(f"h must have shape ({n},) to match J of shape {J.shape}; got {h.shape}")
    return J, h


def _check_solver(damping: float, tol: float, max_iter: int, on_fail: str) -> None:
    check_real("damping (fraction of the new update taken)", damping, minimum=0.0, maximum=1.0, strict=True)
    check_positive("tol", tol)
    check_int("max_iter", max_iter, 1)
    check_choice("on_fail", on_fail, ("warn", "raise", "ignore"))


def _start(m0: Any, n: int) -> np.ndarray:
    """The initial magnetisations: zeros, or ``m0`` checked to be (n,) inside the open cube (-1, 1)^n."""
    if m0 is None:
        return np.zeros(n)
    m0 = _as_float64(m0, "m0")
    if m0.shape != (n,):
        raise ValueError(f"m0 must have shape ({n},), one magnetisation per spin; got {m0.shape}")
    if np.abs(m0).max() >= 1.0:
        raise ValueError(f"m0 must lie in (-1, 1) (magnetisations of ±1 spins); got max |m0| = {np.abs(m0).max():.3g}")
    return m0.copy()
