"""Orbit diagnostics (mfattn.dynamics.diagnostics): the paper's bin rule, periods, sections."""

import numpy as np

import pytest

from mfattn.dynamics.diagnostics import (attractor_distance, bin_counts, classify, confusion, envelope_decay_time,
                                         orbit_period, poincare_section, stroboscopic_section)
from mfattn.dynamics.engine import simulate


def test_orbit_at_beta3_has_period_24():
    res = simulate([3.0], steps=6000, transient=4000)
    assert orbit_period(res.m_o, max_period=200, tol=1e-10)[0] == 24


def test_classification_rules():
    t = np.arange(20000)
    periodic = np.sin(2 * np.pi * t / 24)[None]
    # a quasi-periodic circle map: the angle advances by an irrational fraction of a turn per step, the
    # value is a smooth function of the angle: 20000 samples of 0.4 cos fill the 0.4 · 5001 ≈ 2000 bins
    # it spans (between 80 and 2500).
    quasi = (0.4 * np.cos(2 * np.pi * t * (np.sqrt(5) - 1) / 2))[None]
    noise = np.random.default_rng(0).uniform(-1, 1, (1, 20000))
    counts = bin_counts(np.concatenate([periodic, quasi, noise]), max_y=1.0)
    assert counts[0] <= 24 and 80 <= counts[1] < 2500 and counts[2] > 2500, counts
    assert list(classify(counts)) == [0, 1, 2]
    with pytest.raises(ValueError, match="max_y must be given"):
        bin_counts(periodic)


def test_confusion_matrix_counts_each_beta_once():
    cls = np.array([0, 0, 1, 1, 1, 2, 2])
    per = np.array([4, 0, 96, 0, 0, 0, 0])
    lam = np.array([-0.1, 0.0, -0.01, 0.0, 0.05, 0.1, 0.0])
    c = confusion(cls, per, lam)
    assert c.sum() == 7
    np.testing.assert_array_equal(c, [[1, 1, 0], [1, 1, 1], [0, 1, 1]])


def test_stroboscopic_section_takes_every_lth_state_at_a_phase():
    m = np.arange(40 * 3, dtype=float).reshape(40, 3)
    s = stroboscopic_section(m, period=4, phase=1, t0=6)   # row r is step 6 + r; t ≡ 1 mod 4 at r = 3, 7, ...
    np.testing.assert_array_equal(s, m[3::4])


def test_envelope_decay_time_of_damped_and_undamped_oscillations():
    t = np.arange(40000)
    rng = np.random.default_rng(1)
    # AR(2) with complex roots of modulus r: the autocorrelation's envelope is r^τ, decay time -1/log r
    r, x = 0.98, np.zeros(40000)
    e = rng.standard_normal(40000)
    for k in range(2, 40000):
        x[k] = 2 * r * np.cos(0.7) * x[k - 1] - r * r * x[k - 2] + e[k]
    tau = envelope_decay_time(x, 400)
    assert abs(tau - (-1 / np.log(r))) < 0.3 * (-1 / np.log(r)), tau
    assert envelope_decay_time(np.sin(0.3 * t) + np.sin(0.3 * np.sqrt(2) * t), 400) == float("inf")
    # a response locked to a period-4 forcing never decays; removed by phase means, the AR decay time is back
    forced = x + 3 * np.std(x) * np.array([1.0, -0.5, 0.2, -0.7])[t % 4]
    assert envelope_decay_time(forced, 400) == float("inf")
    assert abs(envelope_decay_time(forced, 400, period=4) - tau) <= 2


def test_attractor_distance_separates_two_circles_not_two_samples_of_one():
    th = np.random.default_rng(2).uniform(0, 2 * np.pi, (2, 300))
    circ = lambda a, r: np.stack([r * np.cos(a), r * np.sin(a)], 1)  # noqa: E731
    d_same, s_same = attractor_distance(circ(th[0], 1.0), circ(th[1], 1.0))
    d_diff, s_diff = attractor_distance(circ(th[0], 1.0), circ(th[1], 1.2))
    assert d_same < 3 * s_same and d_diff > 5 * s_diff and abs(d_diff - 0.2) < 0.01


def test_poincare_section_interpolates_crossings():
    t = np.linspace(0, 20 * np.pi, 20001)
    m = np.stack([np.cos(t), np.sin(t), 0 * t], axis=1)
    pts = poincare_section(m)[0]  # upward crossings of sin: cos = 1
    assert pts.size == 9
    np.testing.assert_allclose(pts, 1.0, atol=1e-5)


def test_island_count_tells_a_chain_of_islands_from_one_closed_curve():
    from mfattn.dynamics.diagnostics import island_count
    k = np.arange(4000)
    phi = 2 * np.pi * k * (2 / 7)                       # the chain is visited in the order of a 2/7 rotation
    theta = 2 * np.pi * k * 0.0123                      # slow motion around each island
    chain = np.stack([np.cos(phi) + 0.1 * np.cos(theta), np.sin(phi) + 0.1 * np.sin(theta), 0 * k], 1)
    assert island_count(chain) == 7
    circle = np.stack([np.cos(2 * np.pi * k * 0.2563), np.sin(2 * np.pi * k * 0.2563), 0 * k], 1)
    assert island_count(circle) == 1                    # one invariant circle, whatever its rotation number
    assert island_count(np.tile(np.eye(3)[:, :3], (100, 1)) * [1, 2, 3]) == 3   # a 3-cycle
    assert island_count(np.ones((100, 3))) == 1         # a fixed point
    # islands whose balls overlap are not told apart (the count is conservative: it never splits one curve)
    fat = np.stack([np.cos(phi) + 0.6 * np.cos(theta), np.sin(phi) + 0.6 * np.sin(theta), 0 * k], 1)
    assert island_count(fat) == 1
    with pytest.raises(ValueError, match="section"):
        island_count(chain[:10])
