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
