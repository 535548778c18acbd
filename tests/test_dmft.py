"""Tests of the mean-field map of the 1-bit transformer (mfattn.dynamics.engine) and its finite-N sampler."""

from pathlib import Path

import numpy as np
import pytest

from mfattn.dynamics import engine as dmft, finite_n

REFERENCE = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "dmft-reference"
FIG4_BETAS = [1.255, 1.26405, 1.266, 1.27, 1.28, 1.4]


@pytest.fixture(scope="module")
def model():
    return dmft.paper_model()


# -- the paper configuration ---------------------------------------------------------------------
def test_seed1_correlations_and_token(model):
    # The fixtures: C^o over semantic units and m^v_0 of the initial token (seed 1).
    third = 1 / 3
    expected = np.array([[1, third, third], [third, 1, -third], [third, -third, 1]])
    np.testing.assert_allclose(model.correlation("o"), expected, atol=1e-15)
    M = model.num_features
    np.testing.assert_allclose(model.token[M:2 * M], [0.346535, 0.326733, 0.980198], atol=5e-7)
    # exact fractions: 35/101, 33/101, 99/101
    np.testing.assert_allclose(model.token[M:2 * M], np.array([35, 33, 99]) / 101, rtol=0, atol=1e-15)


def test_weights_are_pm1_segments():
    W = dmft.paper_weights()
    for x in "ovqk":
        assert W[x].shape == (3, 101)
        assert set(np.unique(W[x])) <= {-1.0, 1.0}
        for a in range(3):  # three constant segments of 33 semantic units
            for s in range(3):
                assert np.unique(W[x][a, 33 * s:33 * (s + 1)]).size == 1


def test_mean_field_sum_over_columns_matches_direct_sum(model):
    # s^x(A) = (1/N_SE) Σ_i W^x_i tanh(β W^o_i·A) over all 99 units == the class sum of the map.
    W = model.weights
    rng = np.random.default_rng(3)
    A = rng.uniform(-1, 1, 3)
    beta = 1.7
    direct = {x: W[x][:, :99] @ np.tanh(beta * W["o"][:, :99].T @ A) / 99 for x in "ovkq"}
    T = np.tanh(beta * model.o_classes @ A)
    s = model.coef @ T
    np.testing.assert_allclose(s, np.concatenate([direct[x] for x in "ovkq"]), atol=1e-15)


# -- batching, backends, dynamics ---------------------------------------------------------------
def test_batched_equals_single_bit_for_bit():
    betas = np.linspace(0.5, 3.0, 257)
    pick = [0, 100, 171, 256]
    batch = dmft.simulate(betas, steps=1500, transient=500)
    for i in pick:
        single = dmft.simulate(betas[i:i + 1], steps=1500, transient=500)
        assert np.array_equal(single.m_o[0], batch.m_o[i])
        for k in single.context:
            assert np.array_equal(single.context[k][0], batch.context[k][i])


def test_torch_backend_matches_numpy_to_rounding():
    betas = [1.0, 1.266, 3.0]
    a = dmft.simulate(betas, steps=60, transient=0, backend="numpy")
    b = dmft.simulate(betas, steps=60, transient=0, backend="torch")
    np.testing.assert_allclose(b.m_o, a.m_o, atol=1e-12)


def test_orbit_at_beta3_has_period_24():
    res = dmft.simulate([3.0], steps=6000, transient=4000)
    assert dmft.orbit_period(res.m_o, max_period=200, tol=1e-10)[0] == 24


def test_cross_check_reference_context_beta3():
    if not REFERENCE.is_dir():
        pytest.skip(f"shared reference data not found at {REFERENCE} (needs ../shared/data/dmft-reference)")
    ref = dmft.load_context(REFERENCE / "context_beta3.0.npz")
    res = dmft.simulate([3.0], steps=120_000, transient=119_990)
    ours = res.context_of(0)
    for key in ("mv_window", "mk_window", "mq_window", "att_window"):
        np.testing.assert_allclose(ours[key], ref[key], atol=1e-12, err_msg=key)


def test_from_context_continues_the_orbit():
    # A run from a saved context continues the same periodic orbit (positions stay in phase).
    first = dmft.simulate([3.0], steps=4000, transient=3900)
    again = dmft.simulate([3.0], steps=4000 + 4, transient=4, init=first.context_of(0))
    np.testing.assert_allclose(again.m_o[0, :96], first.m_o[0, 4:100], atol=1e-12)


def test_lyapunov_signs_at_fig4_betas():
    # Fig 4 betas run from the β = 1.28 context, as in the paper; reduced length.
    ctx = dmft.simulate([1.28], steps=20_000, transient=19_990).context_of(0)
    res = dmft.simulate(FIG4_BETAS, steps=20_000, transient=10_000, init=ctx, lyapunov=True)
    lam = dict(zip(FIG4_BETAS, res.lyapunov))
    assert abs(lam[1.255]) < 1e-3 and abs(lam[1.26405]) < 1e-3  # quasi-periodic: λ ≈ 0
    assert lam[1.27] < -0.02  # periodic
    for b in (1.266, 1.28, 1.4):  # chaotic
        assert lam[b] > 0.02, (b, lam[b])
    assert dmft.orbit_period(res.m_o[3:4], max_period=200)[0] == 28
    # the tangent leaves the primal trajectory untouched
    plain = dmft.simulate(FIG4_BETAS, steps=20_000, transient=10_000, init=ctx)
    assert np.array_equal(plain.m_o, res.m_o)


def test_lyapunov_matches_finite_difference_growth():
    # On a chaotic β, λ from the tangent equals the growth rate of a tiny perturbation (short horizon).
    ctx = dmft.simulate([1.4], steps=3000, transient=2990).context_of(0)
    lam = dmft.largest_lyapunov([1.4], steps=3000, transient=0, init=ctx, tangent_seed=1)[0]
    assert 0.03 < lam < 0.15


def test_classification_rules():
    t = np.arange(20000)
    periodic = np.sin(2 * np.pi * t / 24)[None]
    quasi = np.sin(2 * np.pi * t * (np.sqrt(5) - 1) / 2 / 7)[None]
    noise = np.random.default_rng(0).uniform(-1, 1, (1, 20000))
    counts = dmft.bin_counts(np.concatenate([periodic, quasi, noise]), max_y=1.0)
    assert counts[0] <= 24 and counts[2] > 2500
    assert list(dmft.classify(counts)) == [0, 1, 2] or counts[1] >= 2500


def test_poincare_section_interpolates_crossings():
    t = np.linspace(0, 20 * np.pi, 20001)
    m = np.stack([np.cos(t), np.sin(t), 0 * t], axis=1)
    pts = dmft.poincare_section(m)[0]  # upward crossings of sin: cos = 1
    assert pts.size == 9
    np.testing.assert_allclose(pts, 1.0, atol=1e-5)


def test_sweep_resumes_identically(tmp_path):
    betas = np.linspace(1.2, 1.5, 12)
    kw = dict(steps=3000, transient=1000, chunk_size=5, out_dir=tmp_path, lyapunov=True, progress=False)
    full = dmft.sweep(betas, **kw)
    folder = next(tmp_path.iterdir())
    (folder / "chunk-00001.npz").unlink()  # an interrupted run: one chunk missing
    resumed = dmft.sweep(betas, **kw)
    assert np.array_equal(full.lyapunov, resumed.lyapunov)
    assert all(np.array_equal(a, b) for a, b in zip(full.band, resumed.band))
    assert np.array_equal(full.bin_counts(), resumed.bin_counts())
    direct = dmft.simulate(betas[5:10], steps=3000, transient=1000, lyapunov=True)
    assert np.array_equal(direct.lyapunov, full.lyapunov[5:10])


def test_sweep_from_batched_contexts_matches_single_runs():
    betas = np.linspace(1.2, 1.4, 7)
    starts = dmft.simulate(betas, steps=2000, transient=1990).context  # one context per β
    res = dmft.sweep(betas, steps=3000, transient=2000, init=starts, chunk_size=3, progress=False)
    for i in (0, 4, 6):
        one = dmft.simulate(betas[i:i + 1], steps=3000, transient=2000, init={k: v[i] for k, v in starts.items()})
        assert np.array_equal(dmft.poincare_section(one.m_o)[0].astype(np.float32), res.poincare[i])
        assert np.array_equal(dmft.section_band(one.m_o)[0].astype(np.float32), res.band[i])


# -- bad input ------------------------------------------------------------------------------------
def test_bad_input():
    with pytest.raises(ValueError, match="betas must hold at least one value"):
        dmft.simulate([], steps=10, transient=0)
    with pytest.raises(ValueError, match="context_size L must be a power of two"):
        dmft.paper_model(context_size=3)
    with pytest.raises(ValueError, match="backend must be one of"):
        dmft.simulate([1.0], steps=10, transient=0, backend="jax")
    with pytest.raises(ValueError, match="transient"):
        dmft.simulate([1.0], steps=10, transient=10)
    with pytest.raises(ValueError, match="init must be 'token'"):
        dmft.simulate([1.0], steps=10, transient=0, init="random")
    with pytest.raises(ValueError, match="context mv_window must have shape"):
        dmft.simulate([1.0], steps=10, transient=0, init={"mv_window": np.zeros((3, 3)),
                                                          "mk_window": np.zeros((4, 3)), "att_window": np.zeros(3)})
    with pytest.raises(ValueError, match="N must be"):
        finite_n.simulate_finite([1.0], N=0, steps=10, transient=0)


# -- finite N -------------------------------------------------------------------------------------
def test_binomial_sampler_matches_direct_sampler():
    # Exact class-level sampler vs drawing every unit: same law of the sampled m^o at small N.
    N, reps, t = 30, 4000, 12
    betas = np.full(reps, 1.4)
    a = finite_n.simulate_finite(betas, N=N, steps=t, transient=t - 1, seed=1, sampler="binomial")
    b = finite_n.simulate_finite(betas, N=N, steps=t, transient=t - 1, seed=2, sampler="direct")
    xa, xb = a.m_o[:, 0, 0], b.m_o[:, 0, 0]
    se = np.sqrt(xa.var() / reps + xb.var() / reps)
    assert abs(xa.mean() - xb.mean()) < 4 * se
    assert abs(xa.var() / xb.var() - 1) < 4 * np.sqrt(2 / reps)
    # histograms on the common lattice of values (multiples of 1/N): two-sample chi-square
    edges = np.linspace(-1 - 1 / N, 1 + 1 / N, 2 * N + 3)
    ha, _ = np.histogram(xa, edges)
    hb, _ = np.histogram(xb, edges)
    keep = (ha + hb) > 10
    chi2 = (((ha - hb)[keep] ** 2) / (ha + hb)[keep]).sum()
    dof = keep.sum() - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof)


def test_one_step_law_of_binomial_sampler():
    # One step from the token: the sampled class means have mean tanh(h_c) and variance (1 − T²)/n_c.
    model = dmft.paper_model()
    N, reps = 300, 20000
    res = finite_n.simulate_finite(np.full(reps, 2.0), N=N, steps=2, transient=1, seed=5)
    T = np.tanh(2.0 * model.o_classes @ model.token[3:6])
    n_c = finite_n.class_sizes(model, N)
    mean = model.coef[:3] @ T
    var = (model.class_sign[:3] ** 2 / N ** 2) @ (n_c * (1 - T ** 2))
    x = res.m_o[:, 0, :]
    np.testing.assert_allclose(x.mean(0), mean, atol=5 * np.sqrt(var / reps).max())
    np.testing.assert_allclose(x.var(0), var, rtol=5 * np.sqrt(2 / reps))


def test_finite_n_converges_to_mean_field_with_slope_minus_half():
    # β = 1.0, t = 40: fluctuations stay linear for N >= 10^3 (at quasi-periodic or chaotic β the
    # attention's sharp softmax makes small-N errors O(1) first; the slope is then only asymptotic).
    Ns = [10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6]
    err = finite_n.error_vs_n([1.0], Ns, steps=40, reps=400, seed=0)[0]
    slope = np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert abs(slope + 0.5) < 0.1, slope
