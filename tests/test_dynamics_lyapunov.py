"""The Lyapunov spectrum (mfattn.dynamics.lyapunov) against λ_max, Floquet multipliers and log|det| of the
reference map's Jacobian in delay coordinates (finite differences of map.py, the softmax weight in log space)."""

import numpy as np
import pytest

from mfattn.dynamics import engine, floquet, lyapunov
from mfattn.dynamics import map as mf_map
from mfattn.dynamics.model import paper_model

from dynamics_delay_map import attentions, state_after, stored_state

BETAS = [0.8, 1.26405, 1.266, 1.28, 1.4]


def test_largest_exponent_is_engine_lambda_max():
    # Column 1 starts on largest_lyapunov's vector and Gram-Schmidt never changes its direction:
    # λ_1 equals λ_max to rounding, on periodic, quasi-periodic and chaotic orbits.
    spec = lyapunov.lyapunov_spectrum(BETAS, 4, 3000, 2000)
    lam = engine.largest_lyapunov(BETAS, 3000, 2000)
    np.testing.assert_allclose(spec[:, 0], lam, rtol=0, atol=1e-12)
    assert spec[0, 0] < -0.05 and spec[-1, 0] > 0.03


def _oldest_slot(model, beta, A, t):
    """At step t of the orbit A (steps, M): map.step's state, the oldest slot o (written at step t-L+1 from
    A_{t-L}) and log p_o, its softmax weight (by log-sum-exp: p_o can be e^-90 on chaotic orbits)."""
    L, M = model.context_size, model.num_features
    st = state_after(model, beta, A[t - 1::-1][:L].copy(), t)
    o = (t - L + 1) % L
    logit = (st["mk"] * st["mq"]).sum(1) * (220.0 / np.sqrt(M))
    return st, o, logit[o] - logit.max() - np.log(np.exp(logit - logit.max()).sum())


def _log_det(model, beta, A, t, h=1e-6):
    """log|det ∂A_t/∂A_{t-L}| (the delay map's Jacobian is block companion, so its determinant is ± that of its
    last block). A_{t-L} enters A_t only through the oldest slot o, whose weight p_o can be tiny on chaotic
    orbits (e^-24 at β = 1.266 in 500 steps, e^-90 at 1.4): a central difference of A_t itself then loses its
    digits (its change h p_o falls below A_t's rounding; at 1.4 the determinant comes out 0). So the chain rule
    is split: ∂A_t/∂A_{t-L} = p_o [I | (m^v_o - A_t) g m^q_tᵀ] D, log p_o from the logits and
    D = ∂(m^v_o, m^k_o)/∂A_{t-L} (6 × 3, a tanh layer) by central differences of map.step. Where p_o is not
    small it equals the plain difference of A_t to ~1e-10."""
    L, M = model.context_size, model.num_features
    st, o, log_p = _oldest_slot(model, beta, A, t)

    def slot(a):  # (m^v_o, m^k_o) written at step t-L+1 from A_{t-L} = a
        s, _ = mf_map.step(model, {"mv": np.zeros((L, M)), "mk": np.zeros((L, M)), "mq": np.zeros(M), "A": a},
                           t - L + 1, beta)
        return np.concatenate([s["mv"][o], s["mk"][o]])

    a = A[t - L]
    D = np.stack([(slot(a + h * e) - slot(a - h * e)) / (2 * h) for e in np.eye(M)], axis=1)
    K = np.concatenate([np.eye(M), np.outer(st["mv"][o] - st["A"], 220.0 / np.sqrt(M) * st["mq"])], axis=1)
    return M * log_p + np.linalg.slogdet(K @ D)[1]


def _log_volume(model, beta, A, t, h=1e-6):
    """log of the LM-volume that the embedding z = (A_{t-1}, …, A_{t-L}) -> stored state after step t gives a
    unit cube: ½ log det(DΦᵀ DΦ), DΦ (M + 2LM, LM) by central differences (well conditioned: the window's tanh
    layer alone has full rank)."""
    L, M = model.context_size, model.num_features
    z = A[t - 1::-1][:L].ravel()
    f = lambda x: stored_state(model, beta, x.reshape(L, M), t)  # noqa: E731
    J = np.stack([(f(z + h * e) - f(z - h * e)) / (2 * h) for e in np.eye(L * M)], axis=1)
    return 0.5 * np.linalg.slogdet(J.T @ J)[1]


@pytest.mark.parametrize("beta, tol", [(1.2, 1e-7), (1.266, 1e-6)])
def test_spectrum_sums_to_mean_log_det(beta, tol):
    # Σ_{i<=12} λ_i T is the log growth of the 12-volume of the tangent basis in the stored 27-number state over
    # the engine's steps t0+1 … t1 (QR after step t0 closes the transient). Step t is the delay map z_{t-1} -> z_t
    # (z_t = (A_{t-1}, …, A_{t-L})), whose new entry is A_{t-1}; the stored state is an embedding of z, whose
    # volume distortion enters at the two ends. So, exactly:
    #     Σλ T = Σ_{t=t0}^{t1-1} log|det ∂A_t/∂A_{t-L}| + log vol(t1) - log vol(t0).
    # On the period-4 orbit at β = 1.2 the boundary term vanishes (same phase at both ends). On the chaotic orbit
    # at β = 1.266 single steps' log|det| vary by tens and the boundary term is O(1e-3) per step, both depending
    # on the orbit segment (so on the platform: off by one step, the window's mean moved by 0.04), so both are
    # computed, not bounded. The QR itself resolves a step's contraction only down to the rounding of the O(1)
    # directions (~1e-16): where the oldest slot's weight p_o falls far below that (3 % of the steps at 1.266
    # have p_o < e^-30; a window holding p_o = e^-47 came out 0.46 off), the smallest exponents are lost. The
    # identity is therefore checked on a window where every p_o >= e^-20 (the QR's relative error per step is
    # then <= 1e-16 / 1e-9), begun 20 steps after the last smaller p_o (the basis must span the delay
    # coordinates' image again, which takes L steps after a step the QR could not resolve): the last 500 steps of
    # the first such run of 520 after step 1000 (~30 % of the windows at 1.266: the intermittent orbit's laminar
    # phases). Measured on the first 10 disjoint such windows of the orbit: |residual| <= 1e-9 (without the
    # 20-step margin up to 6e-3, with e^-30 instead of e^-20 up to 3e-5); 2e-12 at 1.2. Tolerance 1e-6.
    # A wrong tangent map fails it: measured 3e-3 for a tangent 0.1 % too long per step, 0.06 without the
    # softmax's mean term, 5e-4 without the m^q term (β = 1.266); leaving out an exponent, O(1).
    model, T = paper_model(), 500
    A = attentions(model, beta, 20_001)
    start = 1000   # a run of steps with every p_o >= e^-20; the window is its last T steps, 20 after its start
    for t in range(1000, 20_000):
        if _oldest_slot(model, beta, A, t)[2] < -20:
            start = t + 1
        elif t + 1 - start == T + 20:
            break
    assert t + 1 - start == T + 20, "no 520-step run with every p_o >= e^-20 in steps 1000-20000"
    t0 = start + 20
    t1 = t0 + T
    spec = lyapunov.lyapunov_spectrum([beta], 12, t1 + 1, t0 + 1)[0]
    log_det = np.array([_log_det(model, beta, A, t) for t in range(t0, t1)])
    boundary = _log_volume(model, beta, A, t1) - _log_volume(model, beta, A, t0)
    assert np.all(np.isfinite(log_det)) and np.isfinite(boundary)
    assert abs(spec.sum() - (log_det.mean() + boundary / T)) < tol, (t0, spec.sum(), log_det.mean(), boundary / T)


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
    # QR every 4 steps instead of every step, on the chaotic orbit at β = 1.28. In exact arithmetic the two give
    # the same exponents (the QR of a product is the product of the QRs: Σ_{i<=k} log R_ii is the k-volume's
    # growth whatever the schedule), so any difference is rounding. The leading directions are resolved to the
    # last digits: λ_1..λ_3 agree to 3e-14 (max over 64 orbit segments of 1000 steps). The trailing ones are
    # not: single steps at 1.28 contract some directions by e^-60 (the oldest slot's softmax weight), beyond
    # double precision whether the QR comes after 1 step or 4, and the digits each schedule loses depend on the
    # orbit segment (so on the platform): λ_4..λ_6 differ by up to 3e-7, 4e-5, 7e-5 over the 64 segments
    # (the old 1e-5 tolerance failed by 2e-5 on one platform, passed on another). Their finite-time spread over
    # 1000-step windows is 0.05-0.06 (std over those segments), so 5e-4, under 1 % of it, says the schedule
    # changes no statistic of the run. 999 steps (not a multiple of 4) make the window's ends cut a block:
    # without the QR at either end, all six exponents move by 2e-4 to 1.4e-3.
    a = lyapunov.lyapunov_spectrum([1.28], 6, 2001, 1002)
    b = lyapunov.lyapunov_spectrum([1.28], 6, 2001, 1002, qr_every=4)
    np.testing.assert_allclose(a[:, :3], b[:, :3], rtol=0, atol=1e-10)
    np.testing.assert_allclose(a[:, 3:], b[:, 3:], rtol=0, atol=5e-4)


def test_spectrum_of_a_beta_barely_depends_on_its_batch():
    # The basis's columns 2..k are drawn per grid point; column 1 follows engine.largest_lyapunov, whose start
    # vector has the batch's shape, so finite-time exponents may differ by the run's statistical error only.
    alone = lyapunov.lyapunov_spectrum([1.28], 3, 3000, 2000)[0]
    batch = lyapunov.lyapunov_spectrum([1.0, 1.28, 1.4], 3, 3000, 2000)[1]
    np.testing.assert_allclose(alone, batch, atol=2e-3)


def test_lambda_from_the_token_averages_the_terms_it_sums():
    # From the token with transient = 0, step 0 is the token itself: a run of n steps takes n - 1 steps of the
    # map and sums n - 1 log growths. Each growth is the same in every run (renormalising changes the tangent's
    # length, never its direction), so the run of t + 1 steps with transient t returns growth t alone; λ must be
    # their plain mean (the old code divided their sum by n: λ short by a factor (n - 1)/n, 10 % at n = 10).
    betas, n = [0.8, 1.28], 10
    terms = np.array([engine.largest_lyapunov(betas, t + 1, t) for t in range(1, n)])   # (n - 1, B)
    np.testing.assert_allclose(engine.largest_lyapunov(betas, n, 0), terms.mean(0), rtol=1e-12, atol=0)
    # the spectrum sums its QR growths over the same steps: with k = 1 its λ_1 is the same mean
    spec = lyapunov.lyapunov_spectrum(betas, 1, n, 0)[:, 0]
    np.testing.assert_allclose(spec, terms.mean(0), rtol=1e-12, atol=0)
    np.testing.assert_allclose(lyapunov.lyapunov_spectrum(betas, 3, n, 0), lyapunov.lyapunov_spectrum(betas, 3, n, 1),
                               rtol=1e-12, atol=0)   # transient 0 and 1 sum the same steps: the same exponents


def test_finite_time_exponents_average_to_lambda_max():
    # windows that tile the saved steps average to engine.largest_lyapunov's λ_max (same tangent, same steps);
    # on the chaotic orbit at 1.28 the windows of 500 steps spread by 0.05 (finite-time fluctuation), on the
    # period-4 orbit at 0.8 by 4e-4 only (its leading multipliers are a complex pair: the tangent turns with
    # them and a window's mean growth oscillates by O(1/window) about log|μ|/4)
    ctx = engine.simulate([1.28], 3000, 2999).context_of(0)
    win = lyapunov.finite_time_lyapunov([0.8, 1.28], 500, 5000, 3000, ctx)
    lam = engine.largest_lyapunov([0.8, 1.28], 5000, 3000, ctx)
    assert win.shape == (2, 4)
    np.testing.assert_allclose(win.mean(1), lam, rtol=1e-10, atol=0)
    assert np.ptp(win[1]) > 1e-2 and np.ptp(win[0]) < 1e-3
    with pytest.raises(ValueError, match="window"):
        lyapunov.finite_time_lyapunov([1.0], 3000, 5000, 3000)
