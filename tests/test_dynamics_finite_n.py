"""The finite-N network (mfattn.dynamics.finite_n): exact binomial sampler against drawing every unit."""

import numpy as np
import pytest

from mfattn.dynamics import finite_n
from mfattn.dynamics.model import paper_model


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
    model = paper_model()
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


def test_bad_finite_input():
    with pytest.raises(ValueError, match="N must be"):
        finite_n.simulate_finite([1.0], N=0, steps=10, transient=0)


# ----------------------------------------------------------------------------------------------
# The explicit network (simulate_network): the oracle of the binomial sampler and of the map
# ----------------------------------------------------------------------------------------------
def _lattice_counts(xa, xb, N):
    """Counts of two samples of m = k/N on the integer lattice k (values rounded to it, no bin edges)."""
    ia, ib = np.rint(xa * N).astype(int), np.rint(xb * N).astype(int)
    lo, hi = min(ia.min(), ib.min()), max(ia.max(), ib.max())
    return np.bincount(ia - lo, minlength=hi - lo + 1), np.bincount(ib - lo, minlength=hi - lo + 1)


def _chi2_z(xa, xb, N):
    """Two-sample χ² on the lattice (cells with > 10 counts), as z = (χ² − dof)/√(2 dof)."""
    ha, hb = _lattice_counts(xa, xb, N)
    keep = (ha + hb) > 10
    chi2 = (((ha - hb)[keep] ** 2) / (ha + hb)[keep]).sum()
    dof = keep.sum() - 1
    return (chi2 - dof) / np.sqrt(2 * dof)


def _ks(xa, xb, N):
    """Two-sample Kolmogorov-Smirnov statistic √(n m/(n+m)) sup|F_a − F_b| on the lattice."""
    ha, hb = _lattice_counts(xa, xb, N)
    n, m = ha.sum(), hb.sum()
    return np.abs(np.cumsum(ha) / n - np.cumsum(hb) / m).max() * np.sqrt(n * m / (n + m))


def test_network_is_the_oracle_of_the_binomial_sampler():
    # N = 99 tiles the paper's weights once: the network and the binomial sampler must give the same
    # law of m^o_t after t = 12 sampled steps (β = 1.4, 4000 realisations each), feature by feature.
    # Thresholds: χ² z < 4 (level ≈ 1e-4 per feature) and KS < 1.95 (level ≈ 1e-3 for continuous
    # laws, conservative on a lattice). Power: the same statistics reject the sampler run at
    # β = 1.54 (10 % off) with z ≈ 6 (checked below), so a wrong unit law or scaling would be caught.
    model = paper_model()
    start = finite_n.network_token_model(model)
    N, reps, t = 99, 4000, 12
    net = finite_n.simulate_network(np.full(reps, 1.4), N, t, t - 1, seed=3).m_o[:, 0]
    samp = finite_n.simulate_finite(np.full(reps, 1.4), N, t, t - 1, seed=4, model=start).m_o[:, 0]
    for a in range(3):
        assert _chi2_z(net[:, a], samp[:, a], N) < 4, a
        assert _ks(net[:, a], samp[:, a], N) < 1.95, a
    off = finite_n.simulate_finite(np.full(reps, 1.54), N, t, t - 1, seed=4, model=start).m_o[:, 0, 0]
    assert _chi2_z(net[:, 0], off, N) > 4


def test_network_first_step_law_is_exact():
    # One step from the token: each semantic unit is +1 with probability (1 + tanh(β W^o_i·A_0))/2,
    # A_0 = m^v_0, so m^o_1 has mean Σ_c frac_c W^o_c tanh(β W^o_c·A_0) and variance Σ_c n_c(1 − T_c²)/N².
    model = paper_model()
    start = finite_n.network_token_model(model)
    N, reps, beta = 297, 20000, 2.0
    x = finite_n.simulate_network(np.full(reps, beta), N, 2, 1, seed=11).m_o[:, 0]
    M = model.num_features
    T = np.tanh(beta * model.o_classes @ start.token[M:2 * M])
    n_c = finite_n.class_sizes(model, N)
    mean = model.coef[:M] @ T
    var = (model.class_sign[:M] ** 2) @ (n_c * (1 - T ** 2)) / N ** 2
    np.testing.assert_allclose(x.mean(0), mean, atol=5 * np.sqrt(var / reps).max())
    np.testing.assert_allclose(x.var(0), var, rtol=5 * np.sqrt(2 / reps))


def test_network_converges_to_the_mean_field_map_as_n_grows():
    # RMS distance to the map (started from the network's own first-token statistics) at t = 39, β = 1:
    # it must fall as N^{-1/2} over two decades of N (fitted slope −0.5 ± 0.12; 48 realisations per N).
    from mfattn.dynamics import engine

    start = finite_n.network_token_model(paper_model())
    mf = engine.simulate([1.0], 40, 39, model=start).m_o[0, 0]
    Ns = np.array([396, 3960, 39600])
    err = [np.sqrt(((finite_n.simulate_network(np.full(48, 1.0), int(N), 40, 39, seed=k).m_o[:, 0] - mf) ** 2)
                   .sum(-1).mean()) for k, N in enumerate(Ns)]
    slope = np.polyfit(np.log(Ns), np.log(err), 1)[0]
    assert abs(slope + 0.5) < 0.12, (slope, err)
    assert err[-1] < 0.03, err
    # a soft attention (γ = 4, logits O(1)) makes the test see the scaling U = N²√M of the logits
    soft = engine.simulate([1.5], 40, 39, model=start, gamma=4.0).m_o[0, 0]
    net = finite_n.simulate_network(np.full(48, 1.5), 39600, 40, 39, seed=7, gamma=4.0).m_o[:, 0]
    assert np.sqrt(((net - soft) ** 2).sum(-1).mean()) < 0.03


def test_network_realisation_does_not_depend_on_its_batch():
    a = finite_n.simulate_network([1.2, 1.3, 1.4], 99, 20, 10, seed=5)
    b = finite_n.simulate_network([1.0, 1.0, 1.4], 99, 20, 10, seed=5)
    np.testing.assert_array_equal(a.m_o[2], b.m_o[2])
    assert a.tokens.shape == (3, 4, 101) and set(np.unique(a.tokens)) == {-1, 1}
