"""Whether a theory's own solutions cross Plefka's line x = 1 (:mod:`.claims_ising_plefka` decides chapter 1's line
claims on it): the median x of its damping-0.05 solutions per sweep β, the median's standard error over the
instances, and a crossing only where the median lies more than :data:`CROSS_Z` standard errors above the line."""

from __future__ import annotations

import math

import numpy as np

#: A crossing: the median x more than this many standard errors of the median above the line at some sweep β (a
#: one-sided 2.3 % chance for one β of a median at the line; TAP's is 4.8 standard errors above at β = 1.2).
CROSS_Z = 2.0


def _median_se(x: np.ndarray) -> float:
    """Standard error of a median over the instances: 1.2533 σ/√n, σ from the interquartile range."""
    q1, q3 = np.quantile(x, [0.25, 0.75])
    return 1.2533 * (q3 - q1) / 1.349 / math.sqrt(x.size)


def _own_x(s, k: str) -> list[tuple[float, float] | None]:
    """Per sweep β, the median of theory ``k``'s own x over its damping-0.05 solutions and its standard error (None
    where fewer than 3 instances have one)."""
    out = []
    for row in s[f"{k}_at_strong_inst"]:
        x = np.array([v for v in row if v is not None])
        out.append((float(np.median(x)), _median_se(x)) if x.size >= 3 else None)
    return out


def _crosses(s, k: str, line: float = 1.0) -> bool:
    """Whether theory ``k``'s own solutions cross ``line``: their median x exceeds it by more than CROSS_Z standard
    errors at some sweep β."""
    return any(got is not None and got[0] - CROSS_Z * got[1] > line for got in _own_x(s, k))


def _z_above(s, k: str, line: float = 1.0) -> float:
    """The largest (median x − line) / standard error over the sweep β where the median reaches the line."""
    z = [(m - line) / se for m, se in filter(None, _own_x(s, k)) if m >= line and se > 0]
    return max(z) if z else -math.inf
