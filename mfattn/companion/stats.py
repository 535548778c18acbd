"""One declared test across seeds: a paired accuracy difference pooled over seeds, with its interval.

A claim about a difference between two variants of a trained model is decided across seeds, never by a
p-value threshold in each seed. Each seed pairs the two models on the same test digits; the per-seed
differences are pooled by a random-effects model (DerSimonian & Laird 1986), whose interval uses the
Hartung-Knapp variance with Student's t on k − 1 degrees of freedom (truncated below at the usual
random-effects variance, Röver, Knapp & Friede 2015, so that seeds that agree by chance do not give a
spuriously narrow interval).

What one seed can and cannot show: the paired test of one seed (McNemar) says whether *that trained
model* differs from the other on these digits; it says nothing about how much another training seed
would differ. Only the spread between seeds (τ) measures that, and with k seeds the interval's t factor
is large (4.30 for k = 3): three seeds detect only effects well above their seed-to-seed spread.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .checks import check_array

__all__ = ["t_quantile_975", "paired_difference", "pooled_over_seeds"]

#: Student's t 0.975 quantiles for 1 to 30 degrees of freedom (to 4 decimals).
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t_quantile_975(df: int) -> float:
    """Student's t 0.975 quantile with ``df`` degrees of freedom (a table to 30, then the Cornish-Fisher
    expansion around the normal quantile, accurate to 1e-3 there)."""
    if isinstance(df, bool) or not isinstance(df, (int, np.integer)) or df < 1:
        raise ValueError(f"df must be a positive integer; got {df!r}")
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def paired_difference(correct_a: np.ndarray, correct_b: np.ndarray) -> tuple[float, float]:
    """Accuracy of ``a`` minus accuracy of ``b`` on the same items, and the variance of that difference
    ((p_10 + p_01 − (p_10 − p_01)²) / n, the paired-proportions variance). Both arrays are boolean (n,)."""
    a, b = np.asarray(correct_a), np.asarray(correct_b)
    if a.dtype != bool or b.dtype != bool or a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(f"correct_a and correct_b must be boolean arrays of one equal, non-zero length; got "
                         f"{a.dtype} {a.shape} and {b.dtype} {b.shape}")
    n = a.size
    p10, p01 = np.mean(a & ~b), np.mean(~a & b)
    return float(p10 - p01), float((p10 + p01 - (p10 - p01) ** 2) / n)


def pooled_over_seeds(deltas: Sequence[float], variances: Sequence[float]) -> dict[str, float]:
    """Random-effects pooled difference of per-seed differences ``deltas`` with within-seed ``variances``.

    Returns ``effect`` (pooled), ``lo``, ``hi`` (95 % interval), ``tau`` (between-seed standard deviation),
    ``k`` (seeds) and ``same_sign`` (1.0 if every seed's difference has the effect's sign, else 0.0). With one
    seed the interval is the within-seed normal interval (it says nothing about other seeds).
    """
    d, v = check_array("deltas", deltas, finite=False), check_array("variances", variances, finite=False)
    if d.ndim != 1 or d.shape != v.shape or d.size == 0 or not (np.isfinite(d).all() and np.isfinite(v).all()):
        raise ValueError(f"deltas and variances must be finite 1-d sequences of one equal, non-zero length; got "
                         f"{d.shape} and {v.shape}")
    if (v < 0).any():
        raise ValueError(f"variances must be >= 0; got {v.tolist()}")
    v = np.maximum(v, 1e-12)          # a seed with no discordant item: its variance is below resolution
    k = d.size
    w = 1 / v
    fixed = float(np.sum(w * d) / np.sum(w))
    if k == 1:
        half = 1.959964 * math.sqrt(v[0])
        tau2 = 0.0
        effect = fixed
    else:
        q = float(np.sum(w * (d - fixed) ** 2))
        # Σw − Σw²/Σw = Σ_i w_i (Σ_{j≠i} w_j) / Σw, summed without the cancellation of the first form
        others = np.array([np.sum(np.delete(w, i)) for i in range(k)])
        tau2 = max(0.0, (q - (k - 1)) / float(np.sum(w * others) / np.sum(w)))
        ws = 1 / (v + tau2)
        if not (math.isfinite(tau2) and math.isfinite(q) and float(np.sum(ws)) > 0):
            raise ValueError(f"deltas overflow the pooled test (largest |delta| {float(np.abs(d).max()):.3g} against "
                             f"variances down to {float(v.min()):.3g}); give differences of proportions or points")
        effect = float(np.sum(ws * d) / np.sum(ws))
        var_hk = float(np.sum(ws * (d - effect) ** 2) / ((k - 1) * np.sum(ws)))
        half = t_quantile_975(k - 1) * math.sqrt(max(var_hk, 1 / float(np.sum(ws))))
    same = float(all(np.sign(x) == np.sign(effect) and x != 0 for x in d)) if effect != 0 else 0.0
    return {"effect": effect, "lo": effect - half, "hi": effect + half, "tau": math.sqrt(tau2), "k": float(k),
            "same_sign": same}
