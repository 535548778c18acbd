"""Orbit diagnostics of the mean-field map: the paper's bin rule, periods, sections, spectra.

All functions take saved trajectories of ``m^o`` (``(B, T, M)`` or ``(T, M)``) or series ``(T,)``.
The paper (Poc-López & Aguilera 2024, for Fig. 3) classifies an orbit by how many of 5001 bins over
``[−max|m^o|, max|m^o|]`` its saved ``m^o_1`` values occupy (:func:`bin_counts`, :func:`classify`);
:func:`section_band` is its section ``|m^o_2| <= 10^{-3}``, :func:`poincare_section` a true one.
"""

from __future__ import annotations

import numpy as np

from ..companion.checks import check_int, check_real

__all__ = ["CLASS_NAMES", "quantize", "bin_counts", "classify", "orbit_period", "section_band",
           "poincare_section", "power_spectrum", "autocorrelation"]

CLASS_NAMES = ("periodic", "quasi-periodic", "chaotic")


def _orbits(m_o, name: str = "m_o") -> np.ndarray:
    """``m_o`` as a (B, T, M) float array (a (T, M) trajectory gets B = 1); else a clear error."""
    try:
        x = np.asarray(m_o, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers of shape (B, T, M) or (T, M)") from None
    if x.ndim == 2:
        x = x[None]
    if x.ndim != 3 or x.shape[1] < 2:
        raise ValueError(f"{name} must have shape (B, T, M) or (T, M) with T >= 2 steps; got {np.shape(m_o)}")
    return x


def _feature(name: str, value, M: int) -> int:
    return check_int(name, value, 0, M - 1)


def quantize(values: np.ndarray, max_y: float, bins: int = 5001) -> np.ndarray:
    """The paper's bin index of each value: ``int(bins (v/max_y + 1)/2)``."""
    if not max_y > 0:
        raise ValueError(f"max_y must be positive; got {max_y!r}")
    return (bins * (np.asarray(values) / max_y + 1) / 2).astype(np.int64)


def bin_counts(m1: np.ndarray, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
    """Number of distinct bins (of ``bins`` over [−max_y, max_y]) that each row's values occupy.

    m1 : (B, T) samples of m^o_1 after the transient. ``max_y`` defaults to max |m1| over the grid
    (the paper takes the largest |m^o| of the whole diagram). Returns (B,) int.
    """
    check_int("bins", bins, 2)
    m1 = np.asarray(m1, dtype=np.float64)
    if m1.ndim != 2:
        raise ValueError(f"m1 must have shape (B, T) (one row of m^o_1 samples per β); got {m1.shape}")
    if max_y is None:
        max_y = float(np.abs(m1).max())
    q = np.sort(quantize(m1, max_y, bins), axis=1)
    return 1 + (np.diff(q, axis=1) != 0).sum(axis=1)


def classify(counts, periodic_below: int = 80, chaotic_from: int = 2500) -> np.ndarray:
    """The paper's rule on bin counts: 0 periodic (< 80), 1 quasi-periodic (< 2500), 2 chaotic."""
    check_int("periodic_below", periodic_below, 1)
    check_int("chaotic_from", chaotic_from, 1)
    if chaotic_from <= periodic_below:
        raise ValueError(f"chaotic_from ({chaotic_from}) must exceed periodic_below ({periodic_below})")
    c = np.asarray(counts)
    return np.where(c < periodic_below, 0, np.where(c < chaotic_from, 1, 2))


def orbit_period(m_o: np.ndarray, max_period: int = 2000, tol: float = 1e-9) -> np.ndarray:
    """Smallest p with max_t |m_{t+p} − m_t| <= tol over the saved window; 0 where none (B,) int.

    m_o : (B, T, M) or (T, M). Needs T > 2 max_period for a reliable answer.
    """
    check_int("max_period", max_period, 1)
    check_real("tol", tol, minimum=0.0)
    x = _orbits(m_o)
    B, T, _ = x.shape
    periods = np.zeros(B, dtype=np.int64)
    pmax = min(max_period, T // 2)
    for i in range(B):
        xi = x[i]
        for p in range(1, pmax + 1):
            if np.max(np.abs(xi[p:] - xi[:-p])) <= tol:
                periods[i] = p
                break
    return periods


def section_band(m_o: np.ndarray, plot: int = 0, cut: int = 1, width: float = 1e-3) -> list[np.ndarray]:
    """The paper's section: values of m^o_{plot} at steps where |m^o_{cut}| <= width. List of B arrays."""
    x = _orbits(m_o)
    _feature("plot", plot, x.shape[2]), _feature("cut", cut, x.shape[2])
    check_real("width", width, minimum=0.0, strict=True)
    return [xi[np.abs(xi[:, cut]) <= width, plot] for xi in x]


def poincare_section(m_o: np.ndarray, plot: int = 0, cut: int = 1, direction: int = 1) -> list[np.ndarray]:
    """A true Poincaré section: m^o_{plot} linearly interpolated where m^o_{cut} changes sign.

    ``direction=+1`` keeps upward crossings (m_cut < 0 <= m_cut next), −1 downward. List of B arrays.
    """
    x = _orbits(m_o)
    _feature("plot", plot, x.shape[2]), _feature("cut", cut, x.shape[2])
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (upward crossings) or -1 (downward); got {direction!r}")
    return [_crossings(xi[:, plot], xi[:, cut], direction) for xi in x]


def _crossings(y, z, direction):
    z0, z1 = z[:-1], z[1:]
    idx = np.nonzero((z0 < 0) & (z1 >= 0))[0] if direction > 0 else np.nonzero((z0 > 0) & (z1 <= 0))[0]
    frac = -z0[idx] / (z1[idx] - z0[idx])
    return y[idx] + frac * (y[idx + 1] - y[idx])


def power_spectrum(x: np.ndarray):
    """Power spectrum of a demeaned, Hann-windowed series: (frequencies in cycles/step, power)."""
    x = np.asarray(x, dtype=np.float64)
    x = (x - x.mean()) * np.hanning(x.size)
    f = np.fft.rfftfreq(x.size)
    return f, np.abs(np.fft.rfft(x)) ** 2 / x.size


def autocorrelation(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalised autocorrelation ρ(τ), τ = 0..max_lag, of a demeaned series (FFT, unbiased by count)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be a 1-d series; got shape {x.shape}")
    check_int("max_lag", max_lag, 0, x.size - 1)
    x = x - np.mean(x)
    n = x.size
    f = np.fft.rfft(x, 2 * n)
    ac = np.fft.irfft(f * np.conj(f))[:max_lag + 1] / (n - np.arange(max_lag + 1))
    return ac / ac[0] if ac[0] > 0 else ac
