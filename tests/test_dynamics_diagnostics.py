"""Orbit diagnostics (mfattn.dynamics.diagnostics): the paper's bin rule, periods, sections."""

import numpy as np

from mfattn.dynamics.diagnostics import bin_counts, classify, orbit_period, poincare_section
from mfattn.dynamics.engine import simulate


def test_orbit_at_beta3_has_period_24():
    res = simulate([3.0], steps=6000, transient=4000)
    assert orbit_period(res.m_o, max_period=200, tol=1e-10)[0] == 24


def test_classification_rules():
    t = np.arange(20000)
    periodic = np.sin(2 * np.pi * t / 24)[None]
    quasi = np.sin(2 * np.pi * t * (np.sqrt(5) - 1) / 2 / 7)[None]
    noise = np.random.default_rng(0).uniform(-1, 1, (1, 20000))
    counts = bin_counts(np.concatenate([periodic, quasi, noise]), max_y=1.0)
    assert counts[0] <= 24 and counts[2] > 2500
    assert list(classify(counts)) == [0, 1, 2] or counts[1] >= 2500


def test_poincare_section_interpolates_crossings():
    t = np.linspace(0, 20 * np.pi, 20001)
    m = np.stack([np.cos(t), np.sin(t), 0 * t], axis=1)
    pts = poincare_section(m)[0]  # upward crossings of sin: cos = 1
    assert pts.size == 9
    np.testing.assert_allclose(pts, 1.0, atol=1e-5)
