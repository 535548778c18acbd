"""One declared test across seeds: a paired accuracy difference pooled over seeds, with its interval; and the
alternative statistics a referee tries on the same per-seed numbers (untruncated interval, a t-interval over
the seeds, a sign test, an exact signed-rank test, an exact paired test over the items).

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

from .checks import check_array, check_bool
from .checks_scalars import is_integer

__all__ = ["t_quantile_975", "paired_difference", "pooled_over_seeds", "t_interval", "sign_test", "exact_paired_test",
           "signed_rank_test", "SIGN_TEST_MIN_UNITS", "MAX_ITEMS", "MAX_RANK_UNITS"]

#: Student's t 0.975 quantiles for 1 to 30 degrees of freedom (to 4 decimals).
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t_quantile_975(df: int) -> float:
    """Student's t 0.975 quantile with ``df`` degrees of freedom (a table to 30, then the Cornish-Fisher
    expansion around the normal quantile, accurate to 1e-3 there)."""
    if not is_integer(df) or df < 1:
        raise ValueError(f"df must be a positive integer; got {df!r}")
    if df > 10**300:   # the expansion divides by df as a float (the quantile is the normal one long before)
        raise ValueError(f"df must be a positive integer of at most 1e300; got one of {len(str(int(df)))} digits")
    df = int.__int__(df) if isinstance(df, int) else int(df)   # a numpy integer would overflow in df ** 2
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def paired_difference(correct_a: np.ndarray, correct_b: np.ndarray) -> tuple[float, float]:
    """Accuracy of ``a`` minus accuracy of ``b`` on the same items, and the variance of that difference
    ((p_10 + p_01 − (p_10 − p_01)²) / n, the paired-proportions variance). Both arrays are boolean (n,)."""
    arrays = []
    for name, value in (("correct_a", correct_a), ("correct_b", correct_b)):
        try:
            arrays.append(np.asarray(value))
        except (TypeError, ValueError, RuntimeError, NotImplementedError) as err:   # a meta tensor, a ragged list
            raise TypeError(f"{name} must be a boolean array (numpy, or a CPU tensor); got {type(value).__name__} "
                            f"({str(err).splitlines()[0][:80]})") from None
    a, b = arrays
    if a.dtype != bool or b.dtype != bool or a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(f"correct_a and correct_b must be boolean arrays of one equal, non-zero length; got "
                         f"{a.dtype} {a.shape} and {b.dtype} {b.shape}")
    n = a.size
    p10, p01 = np.mean(a & ~b), np.mean(~a & b)
    return float(p10 - p01), float((p10 + p01 - (p10 - p01) ** 2) / n)


def pooled_over_seeds(deltas: Sequence[float], variances: Sequence[float], truncate: bool = True) -> dict[str, float]:
    """Random-effects pooled difference of per-seed differences ``deltas`` with within-seed ``variances``.

    Returns ``effect`` (pooled), ``lo``, ``hi`` (95 % interval), ``tau`` (between-seed standard deviation),
    ``k`` (seeds) and ``same_sign`` (1.0 if every seed's difference has the effect's sign, else 0.0). With one
    seed the interval is the within-seed normal interval (it says nothing about other seeds). ``truncate=False``
    gives the untruncated Hartung-Knapp interval (its variance may fall below the random-effects one when the
    seeds agree more than their within-seed variances predict): the alternative a referee tries first.
    """
    check_bool("truncate", truncate)
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
        weight = float(np.sum(w * others) / np.sum(w))
        if not (math.isfinite(weight) and weight > 0):   # weights underflow: variances too large to weigh the seeds
            raise ValueError(f"variances are too large to weigh the seeds (largest {float(v.max()):.3g}: their "
                             f"weights 1/variance underflow); give variances of proportions or points")
        tau2 = max(0.0, (q - (k - 1)) / weight)
        ws = 1 / (v + tau2)
        if not (math.isfinite(tau2) and math.isfinite(q) and float(np.sum(ws)) > 0):
            raise ValueError(f"deltas overflow the pooled test (largest |delta| {float(np.abs(d).max()):.3g} against "
                             f"variances down to {float(v.min()):.3g}); give differences of proportions or points")
        effect = float(np.sum(ws * d) / np.sum(ws))
        var_hk = float(np.sum(ws * (d - effect) ** 2) / ((k - 1) * np.sum(ws)))
        floor = 1 / float(np.sum(ws)) if truncate else 0.0
        half = t_quantile_975(k - 1) * math.sqrt(max(var_hk, floor))
    same = float(all(np.sign(x) == np.sign(effect) and x != 0 for x in d)) if effect != 0 else 0.0
    return {"effect": effect, "lo": effect - half, "hi": effect + half, "tau": math.sqrt(tau2), "k": float(k),
            "same_sign": same}


def t_interval(values: Sequence[float]) -> dict[str, float]:
    """The mean of per-unit ``values`` (e.g. one difference per seed) with its 95 % Student-t interval over the
    units (k − 1 degrees of freedom; it ignores the within-unit variances): ``mean``, ``lo``, ``hi``, ``sd``
    (between units), ``k``. Needs two units or more."""
    x = check_array("values", values)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"values must be a 1-d sequence of at least two per-unit values; got shape {x.shape}")
    k = x.size
    with np.errstate(over="ignore", invalid="ignore"):   # an overflow is refused below, by name
        mean, sd = float(x.mean()), float(x.std(ddof=1))
    half = t_quantile_975(k - 1) * sd / math.sqrt(k)
    if not all(math.isfinite(v) for v in (mean, sd, half)):
        raise ValueError(f"values must be small enough for their mean and spread to be finite floats; got {x.tolist()}")
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "sd": sd, "k": float(k)}


#: The most items an exact paired test counts (its tail is summed term by term: 10⁷ terms take ~1 s).
MAX_ITEMS = 10**7

#: The fewest units with which a two-sided sign test can reach 5 %: its smallest p-value is 2^(1 − k)
#: (0.0625 for 5 units, 0.031 for 6). With fewer units the sign test cannot decide.
SIGN_TEST_MIN_UNITS = 6


def _binomial_two_sided(low: int, n: int) -> float:
    """Two-sided exact p-value of a count as extreme as ``low`` (the smaller side) of ``n`` fair coin flips."""
    if n == 0:
        return 1.0
    if n <= 2000:   # exact in integers
        return min(1.0, 2 * sum(math.comb(n, i) for i in range(low + 1)) / 2 ** n)
    i = np.arange(low, dtype=float)   # log C(n, i + 1) = log C(n, i) + log(n − i) − log(i + 1), summed in numpy
    logs = np.concatenate([[0.0], np.cumsum(np.log(n - i) - np.log(i + 1))]) - n * math.log(2)
    top = float(logs.max())
    return min(1.0, 2 * math.exp(top) * float(np.sum(np.exp(logs - top))))


def sign_test(values: Sequence[float]) -> dict[str, float]:
    """Exact two-sided sign test of per-unit ``values`` around 0 (zeros dropped): ``positive``, ``negative``,
    ``p``. With fewer than :data:`SIGN_TEST_MIN_UNITS` non-zero units it cannot reach 5 %."""
    x = check_array("values", values, ndim=1)
    if x.size == 0:
        raise ValueError("values must hold at least one unit's value; got none")
    pos, neg = int(np.sum(x > 0)), int(np.sum(x < 0))
    return {"positive": float(pos), "negative": float(neg), "p": _binomial_two_sided(min(pos, neg), pos + neg)}


def exact_paired_test(only_a: int, only_b: int) -> dict[str, float]:
    """Exact (binomial) McNemar test on paired items: ``only_a`` items right under a only, ``only_b`` under b
    only (pooled over seeds, it treats the trained models as fixed: it says whether *these* models differ, not
    how another seed would). Returns ``only_a``, ``only_b`` and the two-sided ``p``."""
    for name, n in (("only_a", only_a), ("only_b", only_b)):
        if not is_integer(n) or not 0 <= n <= MAX_ITEMS:
            raise ValueError(f"{name} must be a count of items (an integer from 0 to {MAX_ITEMS:.0e}); got {n!r}")
    return {"only_a": float(only_a), "only_b": float(only_b),
            "p": _binomial_two_sided(int(min(only_a, only_b)), int(only_a + only_b))}


#: The most units the exact signed-rank test takes (its null distribution is built in O(k³) operations).
MAX_RANK_UNITS = 5000


def signed_rank_test(values: Sequence[float]) -> dict[str, float]:
    """Exact two-sided Wilcoxon signed-rank test of per-unit ``values`` around 0 (zeros dropped, ties by mid-rank):
    ``w_plus`` and ``p``. The null distribution of W+ (each rank's sign a fair coin) is built exactly: by
    enumerating the 2^k sign patterns for k ≤ 16, by dynamic programming over the rank sums (mid-ranks doubled to
    integers) above, up to :data:`MAX_RANK_UNITS` units."""
    x = check_array("values", values, ndim=1)
    if x.size == 0:
        raise ValueError("values must hold at least one unit's value; got none")
    x = x[x != 0]
    k = x.size
    if k > MAX_RANK_UNITS:
        raise ValueError(f"values: at most {MAX_RANK_UNITS} non-zero units for the exact test; got {k}")
    if k == 0:
        return {"w_plus": 0.0, "p": 1.0}
    order = np.argsort(np.abs(x), kind="stable")
    ranks = np.empty(k)
    ranks[order] = np.arange(1, k + 1)
    for v in np.unique(np.abs(x)):        # mid-ranks for ties
        tie = np.abs(x) == v
        ranks[tie] = ranks[tie].mean()
    w_plus = float(ranks[x > 0].sum())
    centre = ranks.sum() / 2
    if k <= 16:
        signs = (np.arange(2 ** k)[:, None] >> np.arange(k)) & 1
        null = signs @ ranks
        p = float(np.mean(np.abs(null - centre) >= abs(w_plus - centre) - 1e-9))
    else:   # probabilities of each doubled rank sum, one rank at a time (exact up to float64 round-off)
        doubled = np.rint(2 * ranks).astype(np.int64)
        prob = np.zeros(int(doubled.sum()) + 1)
        prob[0] = 1.0
        for r in doubled:
            prob[r:] = 0.5 * prob[r:] + 0.5 * prob[:-r].copy() if r else prob[r:]
            prob[:r] *= 0.5
        sums = np.arange(prob.size) / 2
        p = float(min(1.0, prob[np.abs(sums - centre) >= abs(w_plus - centre) - 1e-9].sum()))
    return {"w_plus": w_plus, "p": p}
