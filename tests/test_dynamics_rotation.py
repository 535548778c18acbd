"""Rotation numbers of the stroboscopic map (mfattn.dynamics.rotation): the Floquet angle at the torus's
birth, a mode-locked plateau, and the torus frequency read independently from the power spectrum."""

from fractions import Fraction

import numpy as np
import pytest

from mfattn.dynamics import engine, floquet, rotation


def test_rotation_number_starts_at_the_neimark_sacker_angle():
    # Just above the bifurcation the invariant circle is small and rotates by θ_NS/2π per period.
    ns = floquet.neimark_sacker(floquet.floquet_multipliers(np.linspace(1.243, 1.244, 6), 4, 8000, newton=5))
    r = rotation.rotation_number([ns["beta"] + 1e-3], 40_000, 30_000)
    assert np.isfinite(r.rho[0]) and r.radius[0] > 1e-3
    assert abs(r.rho[0] - ns["rotation"]) < 2e-3, (r.rho[0], ns["rotation"])
    below = rotation.rotation_number([1.2], 8000, 4000)  # the period-4 orbit: a stroboscopic fixed point
    assert np.isnan(below.rho[0]) and below.distinct[0] == 1


def test_period_28_window_is_locked_at_two_sevenths():
    # β = 1.27 (the paper's periodic window, period 28 = 7 L): a 7-cycle of the stroboscopic map at ρ = 2/7.
    ctx = engine.simulate([1.28], 24_000, 23_999).context_of(0)
    r = rotation.rotation_number([1.27], 24_000, 4000, ctx)
    assert r.distinct[0] == 7 and r.locked[0]
    assert abs(r.rho[0] - 2 / 7) < 1 / 5000  # the mean over 5000 iterates of a 7-cycle
    assert rotation.locked_fraction(r.rho[0], max_q=20, tol=2e-4) == Fraction(2, 7)


def test_rotation_number_matches_the_torus_frequency_of_the_spectrum():
    # Independent oracle: on the torus at β = 1.255 the series m^o_1(t) has lines at k/L ± ρ/L; the
    # strongest line away from the forcing gives ρ = dist(L f, Z), to the spectrum's resolution L/T.
    T, L = 2 ** 15, 4
    ctx = engine.simulate([1.28], 24_000, 23_999).context_of(0)
    x = engine.simulate([1.255], 20_000 + T, 20_000, ctx).m_o[0, :, 0]
    p = np.abs(np.fft.rfft((x - x.mean()) * np.hanning(T))) ** 2
    f = np.fft.rfftfreq(T)
    near_forcing = np.min(np.abs(f[:, None] - np.arange(3)[None] / L), axis=1) < 5 / T
    f_star = f[np.argmax(np.where(near_forcing, 0, p))]
    rho_spec = abs(L * f_star - np.round(L * f_star))
    r = rotation.rotation_number([1.255], 24_000, 4000, ctx)
    assert abs(r.rho[0] - rho_spec) < 3 * L / T, (r.rho[0], rho_spec)


def _staircase(rho, distinct=None):
    """A staircase whose points at 1/4, 4/15, 2/7, 3/11 are cycles of that many points (λ < 0), unless ``distinct``
    says otherwise; every other point is a torus (200 points, λ = 0)."""
    rho = np.asarray(rho, float)
    b = 1.0 + 0.01 * np.arange(rho.size)
    if distinct is None:
        q = {Q: 4, F: 15, S: 7, T: 11}
        distinct = [next((n for v, n in q.items() if r == v), 200) for r in rho]
    distinct = np.asarray(distinct)
    lam = np.where(distinct < 200, -0.01, 0.0)
    return rotation.RotationResult(b, None, None, rho, distinct, np.ones(rho.size), 200, lam), b.tolist()


Q, F, S, T = 0.25, 4 / 15, 2 / 7, 3 / 11
NAN = np.nan
#        0    1  2        3  4    5  6       7       8  9  10    11 12 13 14 15   16     17     18     19 20 21
STAIR = [NAN, Q, Q + 3e-5, Q, NAN, Q, Q, 0.2601, F, F, 0.27, S, S, T, S, S, 0.201, 0.211, 0.221, S, S, NAN]


def test_plateaus_merge_runs_of_one_fraction_across_short_unlabelled_gaps():
    distinct = [200, 4, 4, 4, 9, 8, 8, 200, 15, 15, 200, 7, 14, 11, 7, 7, 200, 200, 200, 28, 28, 200]
    res, b = _staircase(STAIR, distinct)
    got = [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"]), p["points"], p["runs"], p["strobe_cycles"])
           for p in rotation.plateaus(res)]
    # 1/4: runs 1-3 and 5-6 (a 4-cycle, then its doubling, 8 points at 2/8) across one unlocked point; 4/15 after a
    # gap is another fraction: never joined; 2/7 at 11-12 and 14-15: the point between is a locked 3/11 cycle (a
    # window of one grid point), so no merge; 14-15 and 19-20: three unlocked points <= the default max_gap, merged.
    assert got == [("1/4", 1, 6, 5, 2, [4, 8]), ("4/15", 8, 9, 2, 1, [15]), ("2/7", 11, 12, 2, 1, [7, 14]),
                   ("3/11", 13, 13, 1, 1, [11]), ("2/7", 14, 20, 4, 2, [7, 28])]
    widths = [p["width"] for p in rotation.plateaus(res)]
    np.testing.assert_allclose(widths, [0.05, 0.01, 0.01, 0.0, 0.06], atol=1e-12)
    # a gap longer than max_gap is not bridged; max_gap=0 gives the runs as found
    got = [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"])) for p in rotation.plateaus(res, max_gap=2)]
    assert got == [("1/4", 1, 6), ("4/15", 8, 9), ("2/7", 11, 12), ("3/11", 13, 13), ("2/7", 14, 15), ("2/7", 19, 20)]
    assert len(rotation.plateaus(res, max_gap=0)) == 7


def test_plateaus_never_merge_two_different_fractions_whatever_the_gap():
    res, b = _staircase([Q, Q, NAN, F, F, NAN, Q, Q, S, S, T, T])
    for gap in (0, 1, 5, 100):
        got = [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"])) for p in rotation.plateaus(res, gap)]
        assert got == [("1/4", 0, 1), ("4/15", 3, 4), ("1/4", 6, 7), ("2/7", 8, 9), ("3/11", 10, 11)], gap


def test_dense_sections_tell_one_circle_from_two_where_500_points_cannot():
    # A circle whose rotation number is near 1/4 (as the torus near its birth, ρ ≈ 0.2438-0.256): 500 iterates cover
    # four short arcs, and 500 later iterates four other arcs, so the last-500-points comparison calls one circle two.
    # 10⁴ iterates cover the circle: one attractor. A circle 1 % larger is another attractor at either size.
    from mfattn.dynamics.diagnostics import compare_attractors
    rng = np.random.default_rng(0)
    n, rho = 10_000, 0.25 + 3e-5
    circ = lambda k, r: np.stack([r * np.cos(2 * np.pi * rho * k), r * np.sin(2 * np.pi * rho * k),  # noqa: E731
                                  0.1 * r * np.cos(2 * np.pi * rho * k)], 1)
    a, b = circ(np.arange(n), 0.05), circ(np.arange(n) + 7_000, 0.05)
    old = compare_attractors(a[None, -500:], b[None, -500:], [0], [0])
    assert old["differ"][0]                                          # one circle called two
    same = rotation.compare_sections(a[None], b[None], [0], [0], [0.0], [0.0])
    assert not same["differ"][0] and same["miss"][0] <= 0.05, same
    other = rotation.compare_sections(a[None], circ(np.arange(n), 0.0505)[None], [0], [0], [0.0], [0.0])
    assert other["differ"][0]
    cloud = lambda: rng.uniform(-1, 1, (n, 3)) * [0.05, 0.03, 0.01]  # noqa: E731  two samples of one chaotic set
    assert not rotation.compare_sections(cloud()[None], cloud()[None], [0], [0])["differ"][0]
    assert rotation.compare_sections(a[None], a[None], [0], [28])["differ"][0]          # periods differ


def _result(rho, distinct, lam, betas=None):
    rho = np.asarray(rho, float)
    b = np.linspace(1.0, 1.0 + 0.01 * (rho.size - 1), rho.size) if betas is None else betas
    return rotation.RotationResult(b, None, None, rho, np.asarray(distinct), np.ones(rho.shape), 200,
                                   np.asarray(lam, float))


def test_a_plateau_is_a_periodic_orbit_not_a_rho_near_a_fraction():
    # A torus (200 distinct points, λ = 0) whose ρ passes within 1e-4 of 1/4 at three grid points: the old
    # ±1e-4 rule called that a plateau; it is not locked. A 7-cycle with λ < 0 is; its period doubling (14
    # points, ρ = 4/14) belongs to the same plateau; a 7-cycle with λ > 0 (chaotic numbers) is not locked.
    rho = [0.2499, 0.24999, 0.25, 0.25001, 0.2501, 2 / 7, 2 / 7, 2 / 7, 2 / 7, 2 / 7]
    distinct = [200, 200, 200, 200, 200, 7, 14, 7, 7, 200]
    lam = [0.0, 0.0, 0.0, 0.0, 0.0, -0.01, -0.002, 0.05, -0.01, -0.01]
    res = _result(rho, distinct, lam)
    assert rotation.cycle_fraction(res) == [None] * 5 + [Fraction(2, 7)] * 2 + [None, Fraction(2, 7), None]
    found = rotation.plateaus(res)
    assert [(p["fraction"], p["points"], p["runs"], p["strobe_cycles"]) for p in found] == [("2/7", 3, 2, [7, 14])]
    assert found[0]["lambda_max"] == -0.002
    with pytest.raises(ValueError, match="λ_max"):
        rotation.plateaus(rotation.RotationResult(res.betas, None, None, res.rho, res.distinct, res.radius, 200))


def test_tongue_widths_count_the_locked_points_of_each_row():
    # rows ε = 0, 0.04, 0.08 over 5 β: a 1/3 region opening from nothing, a 1/4 point, a torus everywhere else
    rho = np.array([[0.3, 0.31, 0.32, 0.33, 0.34], [0.3, 0.25, 1 / 3, 1 / 3, 0.34], [1 / 3, 1 / 3, 1 / 3, 1 / 3, 0.34]])
    distinct = np.where(np.isclose(rho, 1 / 3), 3, np.where(rho == 0.25, 4, 200))
    lam = np.where(distinct < 200, -0.01, 0.0)
    BB, EE = np.meshgrid(np.linspace(1.2, 1.3, 5), [0.0, 0.04, 0.08])
    res = rotation.RotationResult(BB, None, EE, rho, distinct, np.ones(rho.shape), 200, lam)
    assert rotation.tongue_widths(res) == {"1/3": [0, 2, 4], "1/4": [0, 1, 0]}
