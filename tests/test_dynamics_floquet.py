"""Floquet multipliers (mfattn.dynamics.floquet) against finite differences and the Neimark-Sacker point."""

import numpy as np
import pytest

from mfattn.dynamics import engine, floquet
from mfattn.dynamics.model import paper_model
from mfattn.dynamics.tangent_space import state_dimension, stored_dimension

from dynamics_delay_map import advance, attentions, jacobian


def _sorted(mu):
    mu = np.asarray(mu)
    return mu[np.lexsort((mu.imag, -np.round(np.abs(mu), 8)))]


@pytest.mark.parametrize("beta", [0.8, 1.2])
def test_multipliers_match_finite_differences_of_the_reference_map(beta):
    # Oracle: map.py in delay coordinates z = (A_{t-1..t-L}) (12 numbers), its 4-step monodromy by central
    # differences (h = 1e-6, error ~1e-9), eigenvalues. Ours: the engine's analytic tangent on the
    # 27-number stored state. Same spectrum (conjugate maps) up to the 15 exact zeros we drop.
    model = paper_model()
    T = 4000
    A = attentions(model, beta, T)
    z = A[::-1][:4]  # A_{T-1}, ..., A_{T-4}
    np.testing.assert_allclose(advance(model, beta, z, T, 4), z, atol=1e-12)  # on the period-4 orbit
    fd = np.linalg.eigvals(jacobian(model, beta, z, T, 4))
    ours = floquet.floquet_multipliers([beta], 4, T).multipliers[0]
    assert ours.size == state_dimension(model) == 12
    np.testing.assert_allclose(_sorted(ours), _sorted(fd), atol=1e-6)


def test_newton_follows_the_unstable_orbit_and_matches_finite_differences():
    # Beyond the Neimark-Sacker point (β = 1.25) iteration reaches a torus, not the period-4 orbit: NaN.
    # Newton on F^4(x) = x finds the unstable orbit; its multipliers equal those of a finite-difference
    # monodromy of the stored 27-number map (engine.simulate from perturbed contexts).
    model = paper_model()
    plain = floquet.floquet_multipliers([1.25], 4, 8000)
    assert not plain.periodic[0] and np.isnan(plain.multipliers).all()
    res = floquet.floquet_multipliers([1.25], 4, 8000, newton=6)
    assert res.periodic[0] and res.residual[0] < 1e-12
    x, h, D = res.state[0], 1e-7, stored_dimension(model)

    def f4(y):
        M, L = 3, 4
        win = y[M:].reshape(L, 2 * M)
        ctx = {"mv_window": win[:, :M], "mk_window": win[:, M:], "att_window": y[:M]}
        c = engine.simulate([1.25], 2 * L, 2 * L - 1, ctx).context_of(0)
        return np.concatenate([c["att_window"], np.concatenate([c["mv_window"], c["mk_window"]], 1).ravel()])

    J = np.stack([(f4(x + h * e) - f4(x - h * e)) / (2 * h) for e in np.eye(D)], axis=1)
    fd = np.linalg.eigvals(J)
    fd = fd[np.argsort(-np.abs(fd))][:12]
    np.testing.assert_allclose(_sorted(res.multipliers[0]), _sorted(fd), atol=1e-5)
    assert abs(res.multipliers[0, 0]) > 1 and abs(res.multipliers[0, 0].imag) > 0.5  # unstable complex pair


def test_neimark_sacker_point_of_the_period_4_orbit():
    # |μ_1| crosses 1 as a complex pair between β = 1.24 and 1.25 (the torus of the paper's Fig. 3b is
    # born there); the interpolated point is within 1e-4 of the bisection on a 10x finer grid.
    coarse = floquet.floquet_multipliers(np.linspace(1.23, 1.26, 4), 4, 8000, newton=5)
    ns = floquet.neimark_sacker(coarse)
    assert ns["complex"] and 1.24 < ns["beta"] < 1.25
    fine = floquet.floquet_multipliers(np.linspace(1.243, 1.244, 11), 4, 8000, newton=5)
    ns_fine = floquet.neimark_sacker(fine)
    assert abs(ns_fine["beta"] - ns["beta"]) < 1e-4
    assert 0.2 < ns_fine["rotation"] < 0.3  # θ/2π: about a quarter turn per period at birth


def test_stored_representation_has_exactly_lm_nonzero_multipliers():
    # The 27 x 27 monodromy has rank L M = 12: the window is rewritten from the last L attentions.
    res = floquet.floquet_multipliers([1.0], 4, 4000)
    _, J = floquet.monodromy([1.0], res.state, 4)
    s = np.linalg.svd(J[0], compute_uv=False)
    assert s[11] > 1e-6 and s[12] < 1e-12
