"""Rotation numbers of the stroboscopic map (mfattn.dynamics.rotation): the Floquet angle at the torus's
birth, a mode-locked plateau, and the torus frequency read independently from the power spectrum."""

from fractions import Fraction

import numpy as np

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


def test_plateaus_group_neighbouring_locked_points():
    rho = np.array([0.2419, 0.25, 0.25 + 3e-5, 0.25, 0.2601, 2 / 7, 0.2702, 2 / 7 + 1e-5, 2 / 7, np.nan])
    res = rotation.RotationResult(np.linspace(1.0, 1.9, 10), None, None, rho, np.full(10, 200), np.ones(10), 200)
    found = rotation.plateaus(res)
    assert [(p["fraction"], p["beta_lo"], p["points"]) for p in found] == [("1/4", 1.1, 3), ("2/7", 1.7, 2)]


def _staircase(rho, distinct=None):
    rho = np.asarray(rho, float)
    b = 1.0 + 0.01 * np.arange(rho.size)
    distinct = np.full(rho.size, 200) if distinct is None else np.asarray(distinct)
    return rotation.RotationResult(b, None, None, rho, distinct, np.ones(rho.size), 200), b.tolist()


Q, F, S, T = 0.25, 4 / 15, 2 / 7, 3 / 11
NAN = np.nan
#        0    1  2        3  4    5  6       7       8  9  10    11 12 13 14 15   16     17     18     19 20 21
STAIR = [NAN, Q, Q + 3e-5, Q, NAN, Q, Q, 0.2601, F, F, 0.27, S, S, T, S, S, 0.201, 0.211, 0.221, S, S, NAN]


def test_plateaus_merge_runs_of_one_fraction_across_short_unlabelled_gaps():
    distinct = [200, 4, 4, 4, 9, 8, 8, 200, 15, 15, 200, 7, 14, 11, 7, 7, 200, 200, 200, 28, 28, 200]
    res, b = _staircase(STAIR, distinct)
    got = [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"]), p["points"], p["runs"], p["strobe_cycles"])
           for p in rotation.plateaus(res)]
    # 1/4: runs 1-3 and 5-6 across one unlabelled point; 4/15 after a gap is another fraction: never joined;
    # 2/7 at 11-12 and 14-15: the point between is labelled 3/11 (a lone point, no plateau of its own), so no
    # merge; 14-15 and 19-20: three unlabelled points <= the default max_gap, merged.
    assert got == [("1/4", 1, 6, 5, 2, [4, 8]), ("4/15", 8, 9, 2, 1, [15]), ("2/7", 11, 12, 2, 1, [7, 14]),
                   ("2/7", 14, 20, 4, 2, [7, 28])]
    widths = [p["width"] for p in rotation.plateaus(res)]
    np.testing.assert_allclose(widths, [0.05, 0.01, 0.01, 0.06], atol=1e-12)
    # a gap longer than max_gap is not bridged; max_gap=0 gives the runs as found
    got = [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"])) for p in rotation.plateaus(res, max_gap=2)]
    assert got == [("1/4", 1, 6), ("4/15", 8, 9), ("2/7", 11, 12), ("2/7", 14, 15), ("2/7", 19, 20)]
    assert len(rotation.plateaus(res, max_gap=0)) == 6


def test_plateaus_never_merge_two_different_fractions_whatever_the_gap():
    res, b = _staircase([Q, Q, NAN, F, F, NAN, Q, Q, S, S, T, T])
    for gap in (0, 1, 5, 100):
        got = [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"])) for p in rotation.plateaus(res, gap)]
        assert got == [("1/4", 0, 1), ("4/15", 3, 4), ("1/4", 6, 7), ("2/7", 8, 9), ("3/11", 10, 11)], gap


def test_stored_fragments_are_merged_like_the_staircase():
    # A list stored before plateaus() merged (no "runs"): the grid step is read from it; the result is what
    # plateaus() gives on the staircase itself. A list from today's plateaus() comes back unchanged.
    res, b = _staircase(STAIR)
    old = [{k: p[k] for k in ("fraction", "rho", "beta_lo", "beta_hi", "points", "strobe_cycles")}
           for p in rotation.plateaus(res, max_gap=0)]
    merged = rotation.merge_stored_plateaus(old)
    keys = ("fraction", "beta_lo", "beta_hi", "points", "runs")
    new = rotation.plateaus(res)
    assert [tuple(p[k] for k in keys) for p in merged][:2] == [tuple(p[k] for k in keys) for p in new][:2]
    # the stored list cannot see the lone 3/11 point between the two 2/7 runs (dropped by min_points): merged
    assert [(p["fraction"], b.index(p["beta_lo"]), b.index(p["beta_hi"])) for p in merged][2:] == [("2/7", 11, 20)]
    assert rotation.merge_stored_plateaus(new) == new
    assert [p["runs"] for p in rotation.merge_stored_plateaus(old, max_gap=0)] == [1] * 6


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
