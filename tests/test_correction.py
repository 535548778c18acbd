"""The trained layer's correction against the Gaussian adaptive-TAP one (mfattn.implicit.correction), the
weights a training run keeps, and the spectral radius over training read from them."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from mfattn.implicit import correction, stability, train
from mfattn.implicit.models import build_model
from mfattn.implicit.vector_tap import VectorSpinTAP

from conftest import find_data_dir, needs_data

#: The MNIST folder the loader finds (``$MFATTN_DATA``, ``data/mnist``, ``../shared/data/mnist``), or None.
MNIST = find_data_dir("mnist")
needs_mnist = needs_data("mnist")


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def test_affine_fit_recovers_an_exact_map_and_the_explained_variance_of_a_noisy_one():
    rng = np.random.default_rng(0)
    u = rng.normal(size=(400, 7, 3))
    A, b = rng.normal(size=(2, 3)), rng.normal(size=2)
    fit = correction.affine_fit(u, u @ A.T + b)
    np.testing.assert_allclose(fit["A"], A, atol=1e-10)
    np.testing.assert_allclose(fit["b"], b, atol=1e-10)
    assert fit["r2"] == pytest.approx(1.0, abs=1e-12)
    # noise of variance s² on outputs of variance v: R² → v / (v + s²) (here 1 / (1 + 1) per output on average)
    y = u @ A.T + b
    noise = rng.normal(size=y.shape) * y.std(axis=(0, 1))
    expected = 1 - (noise ** 2).sum() / ((y + noise - (y + noise).mean(axis=(0, 1))) ** 2).sum()
    assert correction.affine_fit(u, y + noise)["r2"] == pytest.approx(expected, abs=0.02)
    assert 0.4 < expected < 0.6


@pytest.mark.parametrize("p", [1.0, 2.5])
def test_gaussian_cavity_is_the_explicit_layers_converged_cavity(p):
    tap = VectorSpinTAP(5, 3, prior_precision=p, generator=_gen(1)).double()
    x = torch.randn(2, 5, 3, generator=_gen(2), dtype=torch.float64)
    with torch.no_grad():
        tap(x)                                                   # iterates the V equations to tolerance
    V = correction.gaussian_cavity(tap.couplings().detach(), p)
    torch.testing.assert_close(V, tap.last_cavity, atol=1e-7, rtol=0)
    assert V.abs().max() > 1e-3                                  # non-trivial cavities


def test_the_reaction_term_cancels_in_the_gaussian_means():
    """m = (P − J)⁻¹ X (the explicit layer's exact means) satisfies m = g − (I − P⁻¹) g with g = J m + X."""
    P = torch.tensor([[2.0, 0.3, 0.0], [0.3, 1.5, 0.1], [0.0, 0.1, 1.8]], dtype=torch.float64)
    tap = VectorSpinTAP(4, 3, prior_precision=P, generator=_gen(3)).double()
    x = torch.randn(3, 4, 3, generator=_gen(4), dtype=torch.float64)
    with torch.no_grad():
        m = tap.closed_form(x)
        g = x + torch.einsum("ijab,zjb->zia", tap.couplings(), m)
        c = correction.gaussian_correction(tap.prior_precision[0], g)   # P as the layer stores it
    torch.testing.assert_close(g - c, m, atol=1e-12, rtol=0)
    assert (c.norm() / g.norm()) > 0.1                           # the correction is not zero here (P ≠ I)


def test_coupling_asymmetry_is_zero_for_an_energy_and_positive_for_internal_symmetry():
    from mfattn.implicit.meanfield import symmetrise_couplings

    w = torch.randn(6, 6, 4, 4, generator=_gen(5), dtype=torch.float64)
    assert correction.coupling_asymmetry(symmetrise_couplings(w, "energy")) < 1e-15
    assert correction.coupling_asymmetry(symmetrise_couplings(w, "both")) < 1e-15
    internal = correction.coupling_asymmetry(symmetrise_couplings(w, "internal"))
    assert 0.5 < internal < 1.5                                   # independent J_ij, J_ji: ‖M−Mᵀ‖ ≈ ‖M+Mᵀ‖
    anti = w - w.permute(1, 0, 3, 2)
    assert correction.coupling_asymmetry(anti) == float("inf")    # M + Mᵀ = 0
    assert correction.coupling_asymmetry(w - 0.5 * anti) < 1e-15


def test_correction_report_reads_the_layers_own_fixed_point():
    model = build_model(3)
    images = torch.rand(40, 1, 28, 28, generator=_gen(6))
    fields = correction.fixed_point_fields(model, images)
    with torch.no_grad():
        m = model.attention(model.sources(images))
        f_theta = model.attention.correction(fields["g"])
    torch.testing.assert_close(fields["m"], m)
    torch.testing.assert_close(fields["f"], f_theta, atol=1e-3, rtol=0)   # the solver's tolerance 1e-4
    rep = correction.correction_report(model, images)
    assert rep["residual"] < 1e-3 and rep["digits"] == 40
    assert 0 <= rep["r2_affine"] <= rep["r2_per_site"] <= 1
    assert 0.5 < rep["asymmetry"] < 1.5 and -1 <= rep["reaction_cosine"] <= 1
    # the plotted points are the fits the numbers come from: each explains the variance its R² says
    f = rep["points"]["f"]
    for key, r2 in (("f_affine", rep["r2_affine"]), ("f_gaussian", rep["r2_gaussian"])):
        resid, spread = f - rep["points"][key], f - f.reshape(-1, f.shape[-1]).mean(axis=0)
        assert abs(1 - (resid ** 2).sum() / (spread ** 2).sum() - r2) < 1e-9, key


def _tiny_run(folder, **kw):
    cfg = train.TrainConfig(epochs=2, steps_per_epoch=10, train_limit=600, test_limit=60, weights_every=5,
                            checkpoint_every=3, **kw)
    return train.train_mnist(cfg, data_root=MNIST, folder=folder, progress=False)


@needs_mnist
def test_kept_weights_survive_an_interruption_and_the_last_are_the_final_model(tmp_path):
    a = _tiny_run(tmp_path / "a")
    with pytest.raises(train.TrainingInterrupted):
        train.train_mnist(a.config, data_root=MNIST, folder=tmp_path / "b", progress=False, interrupt_after=12)
    b = train.train_mnist(a.config, data_root=MNIST, folder=tmp_path / "b", progress=False)
    assert a.weight_steps() == b.weight_steps() == [0, 5, 10, 15, 20]
    for step in a.weight_steps():
        sa, sb = a.load_model_at(step).state_dict(), b.load_model_at(step).state_dict()
        assert all(torch.equal(sa[k], sb[k]) for k in sa)
    final, last = a.load_model().state_dict(), a.load_model_at(20).state_dict()
    assert all(torch.equal(final[k], last[k]) for k in final)
    init = build_model(0).state_dict()
    assert all(torch.equal(init[k], a.load_model_at(0).state_dict()[k]) for k in init)
    with pytest.raises(ValueError, match="step must be one of"):
        a.load_model_at(7)


@needs_mnist
def test_spectral_radius_over_training_matches_the_models_own_at_each_kept_step(tmp_path):
    res = _tiny_run(tmp_path / "r")
    images = torch.rand(6, 1, 28, 28, generator=_gen(7))
    over = stability.spectral_radius_over_training(res, images, [0, 20], iters=100)
    for row, step in enumerate((0, 20)):
        model = res.load_model_at(step)
        with torch.no_grad():
            x = model.sources(images)
        rho, _ = stability.fixed_point_spectral_radius(model.attention, x, iters=100)
        np.testing.assert_allclose(over["rho"][row], rho, rtol=1e-12)
    assert over["rho_median"][1] != over["rho_median"][0]        # training moved the Jacobian
    with pytest.raises(ValueError, match="not kept"):
        stability.spectral_radius_over_training(res, images, [3])


def test_the_blog_models_full_variant_row_is_the_chapters_own_run():
    from mfattn.companion.profiles import get_profile

    full, quick = get_profile("deq", "full"), get_profile("deq", "quick")
    assert train.profile_config(full, 2, variant=True) == train.profile_config(full, 2)
    assert train.profile_config(full, 2, variant=True, correction="m").weights_every is None
    assert train.profile_config(quick, 0, variant=True) != train.profile_config(quick, 0)   # 100-step variants


def test_gaussian_fit_recovers_a_prior_and_is_bounded_by_the_affine_fit():
    """Oracles: f = (I − P⁻¹) g exactly for an SPD P gives r2 = 1 and P⁻¹ back; a map outside the family (an
    antisymmetric part, a negative eigenvalue of P⁻¹, a bias) gives r2 below the unconstrained affine fit's, at a
    point that meets the optimality conditions (KKT); and the optimum is no worse than random feasible S."""
    from mfattn.implicit.correction import affine_fit, gaussian_fit

    rng = np.random.default_rng(0)
    d = 6
    g = rng.normal(size=(400, 3, d))
    B = rng.normal(size=(d, d))
    P = B @ B.T + d * np.eye(d)
    f = g - g @ np.linalg.inv(P).T
    fit = gaussian_fit(g, f)
    assert fit["r2"] == pytest.approx(1.0, abs=1e-10)
    np.testing.assert_allclose(fit["P_inv"], np.linalg.inv(P), atol=1e-7)
    A = np.eye(d) - np.diag(np.linspace(-1, 1.5, d)) + 0.3 * (B - B.T) / np.abs(B).max()
    f2 = g @ A.T + 0.2 + 0.05 * rng.normal(size=g.shape)
    fit2, aff = gaussian_fit(g, f2), affine_fit(g, f2)
    assert fit2["r2"] < aff["r2"] - 0.01 and fit2["kkt"] < 1e-6
    assert np.linalg.eigvalsh(fit2["P_inv"]).min() >= -1e-12
    u2, y2 = g.reshape(-1, d), f2.reshape(-1, d)
    total = ((y2 - y2.mean(0)) ** 2).sum()
    for _ in range(20):                                   # no random feasible S does better
        C = rng.normal(size=(d, d))
        S = C @ C.T * rng.uniform(0, 0.3)
        r2 = 1 - ((y2 - (u2 - u2 @ S.T)) ** 2).sum() / total
        assert r2 <= fit2["r2"] + 1e-12
    with pytest.raises(ValueError, match="g and f"):
        gaussian_fit(g, f[..., :-1])
    with pytest.raises(ValueError, match="finite"):
        gaussian_fit(np.full((20, d), np.nan), f[:20, 0])
