"""The Lyapunov spectrum (mfattn.dynamics.lyapunov) against λ_max, Floquet multipliers and log|det| of the
reference map's Jacobian in delay coordinates (finite differences)."""

import numpy as np
import pytest

from mfattn.dynamics import engine, floquet, lyapunov
from mfattn.dynamics.model import paper_model

from dynamics_delay_map import attentions, next_attention

BETAS = [0.8, 1.26405, 1.266, 1.28, 1.4]


def test_largest_exponent_is_engine_lambda_max():
    # Column 1 starts on largest_lyapunov's vector and Gram-Schmidt never changes its direction:
    # λ_1 equals λ_max to rounding, on periodic, quasi-periodic and chaotic orbits.
    spec = lyapunov.lyapunov_spectrum(BETAS, 4, 3000, 2000)
    lam = engine.largest_lyapunov(BETAS, 3000, 2000)
    np.testing.assert_allclose(spec[:, 0], lam, rtol=0, atol=1e-12)
    assert spec[0, 0] < -0.05 and spec[-1, 0] > 0.03


def _mean_log_det(model, beta, t0, t1):
    """Mean over t in [t0, t1) of log|det ∂A_t/∂A_{t-L}| (the delay map's Jacobian is block companion, so
    its determinant is ± that of its last block), by central differences of map.py."""
    A = attentions(model, beta, t1)
    L, h, out = model.context_size, 1e-6, []
    for t in range(t0, t1):
        z = A[t - 1::-1][:L].copy()
        J = np.empty((3, 3))
        for j in range(3):
            zp, zm = z.copy(), z.copy()
            zp[L - 1, j] += h
            zm[L - 1, j] -= h
            J[:, j] = (next_attention(model, beta, zp, t) - next_attention(model, beta, zm, t)) / (2 * h)
        out.append(np.log(abs(np.linalg.det(J))))
    return np.mean(out)


@pytest.mark.parametrize("beta, tol", [(1.2, 1e-7), (1.266, 1e-2)])
def test_spectrum_sums_to_mean_log_det(beta, tol):
    # Σ_{i<=12} λ_i = <log|det J_t|> up to a boundary term (the volume distortion between the stored
    # 27-number state and the delay coordinates at the window's two ends) / 500 steps: exact on the
    # period-4 orbit at β = 1.2 (same phase at both ends; 2e-9 is the differences' error), ~2e-3 on the
    # chaotic orbit at β = 1.266. Leaving out one exponent or one term of the tangent map moves it by O(0.1).
    model = paper_model()
    spec = lyapunov.lyapunov_spectrum([beta], 12, 1500, 1000)[0]
    ref = _mean_log_det(model, beta, 1000, 1500)
    assert np.isfinite(ref)
    assert abs(spec.sum() - ref) < tol, (spec.sum(), ref)


def test_spectrum_of_a_periodic_orbit_is_log_of_its_multipliers():
    # On the period-4 orbit (β = 1.0, 1.2) λ_i = log|μ_i| / 4 for all 12 exponents; the complex pair gives
    # λ_1 = λ_2, which reach 0 together at the Neimark-Sacker point. Inside a complex pair the finite-time
    # exponents oscillate about their common value (1e-3 after 2000 steps); the pair sums (volumes of
    # invariant subspaces) converge much faster (1e-6).
    betas = [1.0, 1.2]
    spec = lyapunov.lyapunov_spectrum(betas, 12, 6000, 4000)
    ref = np.log(np.abs(floquet.floquet_multipliers(betas, 4, 4000).multipliers)) / 4
    np.testing.assert_allclose(spec, ref, atol=1e-3)
    np.testing.assert_allclose(np.cumsum(spec, 1)[:, 1::2], np.cumsum(ref, 1)[:, 1::2], atol=1e-6)


def test_qr_every_does_not_change_the_spectrum():
    # QR every 4 steps instead of every step: the same exponents to 1e-5 on the chaotic orbit at β = 1.28
    # (the spread of e^{-100} over 4 steps costs the smallest exponent a few 1e-6).
    a = lyapunov.lyapunov_spectrum([1.28], 6, 2000, 1000)
    b = lyapunov.lyapunov_spectrum([1.28], 6, 2000, 1000, qr_every=4)
    np.testing.assert_allclose(a, b, atol=1e-5)


def test_spectrum_of_a_beta_barely_depends_on_its_batch():
    # The basis's columns 2..k are drawn per grid point; column 1 follows engine.largest_lyapunov, whose start
    # vector has the batch's shape, so finite-time exponents may differ by the run's statistical error only.
    alone = lyapunov.lyapunov_spectrum([1.28], 3, 3000, 2000)[0]
    batch = lyapunov.lyapunov_spectrum([1.0, 1.28, 1.4], 3, 3000, 2000)[1]
    np.testing.assert_allclose(alone, batch, atol=2e-3)
