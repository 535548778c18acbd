"""Numbers of :mod:`mfattn.companion.stats` that the other tests left free to change (found by sampled mutation
testing, issue 44 item 6): each test checks a statistic on small inputs against an independent oracle (an
exact quantile from mpmath's incomplete beta function, a count of coin-flip outcomes, an enumeration of every
sign pattern, or the textbook DerSimonian-Laird / Hartung-Knapp formulas written out here).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

mpmath = pytest.importorskip("mpmath")   # torch pulls it in (sympy); skip where it is absent

from mfattn.companion import stats

Z975 = 1.959964


def _t975_exact(df: int) -> float:
    """Student's t 0.975 quantile from its distribution function, 1 − I_{ν/(ν+t²)}(ν/2, 1/2) / 2 (mpmath)."""
    with mpmath.workdps(20):
        nu = mpmath.mpf(df)
        cdf = lambda t: 1 - mpmath.betainc(nu / 2, mpmath.mpf(1) / 2, 0, nu / (nu + t * t), regularized=True) / 2  # noqa: E731
        return float(mpmath.findroot(lambda t: cdf(t) - mpmath.mpf("0.975"), 2.0))


@pytest.mark.parametrize("df", range(1, 31))
def test_the_t_table_is_the_exact_quantile_to_four_decimals(df):
    assert abs(stats.t_quantile_975(df) - _t975_exact(df)) <= 5e-5 + 1e-9


@pytest.mark.parametrize("df", [31, 40, 100])
def test_beyond_the_table_the_expansion_is_cornish_fisher_to_the_second_order(df):
    # Abramowitz & Stegun 26.7.5: adding the published third-order term leaves an O(1/df^4) remainder, which
    # a wrong first- or second-order coefficient would exceed
    z = Z975
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    assert abs(stats.t_quantile_975(df) + g3 / df**3 - _t975_exact(df)) < 3e-6
    assert abs(stats.t_quantile_975(df) - _t975_exact(df)) < 1e-3


def test_paired_difference_and_its_paired_proportions_variance():
    a = np.array([True, True, False, False, True])
    b = np.array([False, True, True, False, False])
    # p10 = 2/5, p01 = 1/5: difference 1/5, variance (3/5 − 1/25) / 5
    diff, var = stats.paired_difference(a, b)
    assert diff == pytest.approx(0.2, abs=1e-15)
    assert var == pytest.approx((0.6 - 0.04) / 5, abs=1e-15)


def _dl_hk(d, v, truncate=True):
    """DerSimonian-Laird τ² and the Hartung-Knapp interval, written out from the textbook formulas."""
    k = len(d)
    w = [1 / x for x in v]
    sw = sum(w)
    fixed = sum(wi * di for wi, di in zip(w, d)) / sw
    q = sum(wi * (di - fixed) ** 2 for wi, di in zip(w, d))
    tau2 = max(0.0, (q - (k - 1)) / (sw - sum(wi * wi for wi in w) / sw))
    ws = [1 / (x + tau2) for x in v]
    sws = sum(ws)
    mu = sum(wi * di for wi, di in zip(ws, d)) / sws
    var_hk = sum(wi * (di - mu) ** 2 for wi, di in zip(ws, d)) / ((k - 1) * sws)
    half = _t975_exact(k - 1) * math.sqrt(max(var_hk, 1 / sws if truncate else 0.0))
    return mu, mu - half, mu + half, math.sqrt(tau2)


@pytest.mark.parametrize("d, v", [([0.01, 0.03, 0.08], [1e-4, 2e-4, 1.5e-4]),          # τ > 0
                                  ([0.02, 0.021, 0.019, 0.0205], [4e-4, 3e-4, 5e-4, 2e-4])])  # τ = 0, floor decides
@pytest.mark.parametrize("truncate", [True, False])
def test_pooled_over_seeds_is_dersimonian_laird_with_the_hartung_knapp_interval(d, v, truncate):
    r = stats.pooled_over_seeds(d, v, truncate=truncate)
    mu, lo, hi, tau = _dl_hk(d, v, truncate)
    assert r["k"] == len(d)
    assert r["effect"] == pytest.approx(mu, rel=1e-12)
    assert r["tau"] == pytest.approx(tau, rel=1e-9, abs=1e-15)
    assert r["lo"] == pytest.approx(lo, rel=1e-4)      # the t table is to four decimals
    assert r["hi"] == pytest.approx(hi, rel=1e-4)
    assert r["same_sign"] == 1.0


def test_one_seed_gives_the_within_seed_normal_interval():
    r = stats.pooled_over_seeds([0.02], [1e-4])
    assert r["effect"] == 0.02 and r["tau"] == 0.0 and r["k"] == 1.0 and r["same_sign"] == 1.0
    assert r["lo"] == pytest.approx(0.02 - Z975 * 0.01, rel=1e-12)
    assert r["hi"] == pytest.approx(0.02 + Z975 * 0.01, rel=1e-12)


def test_same_sign_is_zero_for_a_zero_effect_or_a_seed_of_the_other_sign():
    assert stats.pooled_over_seeds([0.01, -0.01], [1e-4, 1e-4])["same_sign"] == 0.0   # effect exactly 0
    assert stats.pooled_over_seeds([0.05, -0.001, 0.04], [1e-4, 1e-4, 1e-4])["same_sign"] == 0.0
    assert stats.pooled_over_seeds([-0.05, -0.02], [1e-4, 1e-4])["same_sign"] == 1.0


def test_t_interval_over_two_units():
    r = stats.t_interval([1.0, 3.0])     # mean 2, sd √2, half = t(1) · √2 / √2
    assert r == pytest.approx({"mean": 2.0, "lo": 2.0 - 12.7062, "hi": 2.0 + 12.7062, "sd": math.sqrt(2), "k": 2.0})
    with pytest.raises(ValueError, match="at least two"):
        stats.t_interval([1.0])


def _two_sided_binomial(low, n):
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(low + 1)) / 2**n)


@pytest.mark.parametrize("values, pos, neg", [([1, 2, 3, 4, 5, 6], 6, 0), ([1, 2, 3, 4, 5, -6, 0], 5, 1),
                                              ([1, -1, 2, -2], 2, 2)])
def test_sign_test_counts_coin_flips(values, pos, neg):
    # p by brute force over every outcome of pos + neg fair coins: as extreme as min(pos, neg) on either side
    n, low = pos + neg, min(pos, neg)
    count = sum(1 for flips in itertools.product((0, 1), repeat=n) if min(sum(flips), n - sum(flips)) <= low)
    r = stats.sign_test(values)
    assert (r["positive"], r["negative"]) == (pos, neg)
    assert r["p"] == pytest.approx(min(1.0, count / 2**n), rel=1e-12)
    assert r["p"] == pytest.approx(_two_sided_binomial(low, n), rel=1e-12)


def test_sign_test_of_nothing_and_the_exact_paired_test():
    assert stats.sign_test([0.0, 0.0])["p"] == 1.0
    assert stats.exact_paired_test(0, 0)["p"] == 1.0
    assert stats.exact_paired_test(3, 0)["p"] == pytest.approx(0.25, abs=1e-15)      # 2 · (1/2)³
    assert stats.exact_paired_test(1, 5)["p"] == pytest.approx(14 / 64, abs=1e-15)   # 2 · (1 + 6) / 2⁶
    assert stats.exact_paired_test(stats.MAX_ITEMS, 0)["only_a"] == stats.MAX_ITEMS
    with pytest.raises(ValueError, match="only_a"):
        stats.exact_paired_test(stats.MAX_ITEMS + 1, 0)


def _signed_rank_by_enumeration(x):
    x = np.asarray([v for v in x if v != 0], float)
    a = np.abs(x)
    ranks = np.array([np.sum(a < v) + (np.sum(a == v) + 1) / 2 for v in a])   # mid-ranks
    w = ranks[x > 0].sum()
    c = ranks.sum() / 2
    signs = (np.arange(2**x.size)[:, None] >> np.arange(x.size)) & 1     # every sign pattern, one a row
    null = signs @ ranks
    return w, float(np.mean(np.abs(null - c) >= abs(w - c) - 1e-9))


@pytest.mark.parametrize("values", [
    [0.5, -0.25, 0.75, 1.5, 2.0, -3.0, 0.1, 0.0],                          # k ≤ 16: the test enumerates too
    [0.5, -0.25, 0.75, 1.5, 2.0, -3.0, 0.1, 0.3, 0.3, -0.4, 0.9, 1.1, 0.6, 0.7, -0.8, 0.2, 0.05, 0.0],  # k = 17: by DP
    [0.5, 0.25, 0.75, 1.5, 2.0, 3.0, 0.1, 0.3, 0.3, 0.4, 0.9, 1.1, 0.6, 0.7, 0.8, 0.2, -0.05]])       # one small negative
def test_signed_rank_test_against_every_sign_pattern(values):
    w, p = _signed_rank_by_enumeration(values)
    r = stats.signed_rank_test(values)
    assert r["w_plus"] == w
    assert r["p"] == pytest.approx(p, rel=1e-9)


def test_signed_rank_test_takes_at_most_5000_units():
    assert stats.MAX_RANK_UNITS == 5000     # the documented limit (its refusal below would otherwise run long)
    with pytest.raises(ValueError, match="at most 5000 non-zero units"):
        stats.signed_rank_test(np.arange(1, 5002, dtype=float))
