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
