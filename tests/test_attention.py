"""Mean-field attention layers (mfattn.implicit.meanfield, vector_tap) against closed forms and exact counts."""

import numpy as np
import pytest
import torch

from mfattn.implicit.meanfield import (SYMMETRIES, MeanFieldAttention, couplings_to_matrix, symmetrise_couplings)
from mfattn.implicit.vector_tap import VectorSpinTAP

torch.set_num_threads(1)
F64 = torch.float64
TIGHT = dict(max_iter=300, tol=1e-13, backward_max_iter=300, backward_tol=1e-13)


def source(B, n, d, seed=0, dtype=F64):
    return torch.randn(B, n, d, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def test_naive_linear_layer_is_the_linear_solve():
    # Without the correction, m = M m + X  =>  m* = (I - M)^-1 X (M: the Nd x Nd couplings).
    layer = MeanFieldAttention(5, 3, lin_response=False, generator=torch.Generator().manual_seed(1),
                               **TIGHT).double()
    x = source(4, 5, 3)
    m = layer(x)
    M = layer.coupling_matrix()
    exact = torch.linalg.solve(torch.eye(15, dtype=F64) - M, x.reshape(4, 15).T).T.reshape(4, 5, 3)
    assert (m - exact).abs().max() < 1e-10
    assert layer.last_stats["forward"].all_converged


@pytest.mark.parametrize("interaction,correction", [("linear", "g"), ("linear", "m"), ("softmax", "g"),
                                                    ("mixer", "m")])
def test_fixed_point_solves_the_update(interaction, correction):
    layer = MeanFieldAttention(6, 4, interaction=interaction, correction=correction,
                               generator=torch.Generator().manual_seed(2), **TIGHT).double()
    x = source(3, 6, 4, seed=3)
    with torch.no_grad():
        m = layer(x)
        g = layer.sum_over_couplings(m, layer.prepare(x)) + x
        net_in = g if correction == "g" else m
        assert (m - (g - layer.correction(net_in))).abs().max() < 1e-11


@pytest.mark.parametrize("options", [dict(correction="g"), dict(correction="m"),
                                     dict(interaction="softmax", heads=2, dim_head=2),
                                     dict(interaction="mixer")])
def test_gradcheck_with_respect_to_all_parameters(options):
    layer = MeanFieldAttention(3, 2, generator=torch.Generator().manual_seed(4), **TIGHT, **options).double()
    names = [n for n, _ in layer.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_() for p in layer.parameters())
    x = source(2, 3, 2, seed=5).requires_grad_()

    def fn(x, *ps):
        return torch.func.functional_call(layer, dict(zip(names, ps)), (x,))

    # fast_mode: checks random projections uᵀ J v of the full Jacobian (same oracle, fewer solves).
    assert torch.autograd.gradcheck(fn, (x, *params), eps=1e-6, atol=1e-6, rtol=1e-5, fast_mode=True)


@pytest.mark.parametrize("options", [dict(correction="g"), dict(correction="m"), dict(lin_response=False)])
def test_closed_form_adjoint_map_equals_autograd(options):
    # The implicit backward of the linear interaction iterates v -> J_fᵀ v in closed form
    # (no autograd per iteration); it must be autograd's vector-Jacobian product.
    layer = MeanFieldAttention(5, 3, generator=torch.Generator().manual_seed(7), **options).double()
    x = source(4, 5, 3, seed=8)
    cache = layer.prepare(x).detach()
    m = source(4, 5, 3, seed=9).requires_grad_()
    v = source(4, 5, 3, seed=10)
    (expected,) = torch.autograd.grad(layer.update(m, x, cache), m, v)
    with torch.no_grad():
        closed = layer.adjoint_vjp(m.detach(), x, cache)(v)
    torch.testing.assert_close(closed, expected, rtol=1e-12, atol=1e-12)


def test_training_mode_under_no_grad_and_eval_mode_with_grad():
    layer = MeanFieldAttention(17, 10, generator=torch.Generator().manual_seed(6))
    x = source(8, 17, 10, dtype=torch.float32)
    layer.train()
    with torch.no_grad():
        m0 = layer(x)                       # the reference implementation crashes here
    assert not m0.requires_grad
    layer.eval()
    m1 = layer(x)                           # and returns no gradient here
    m1.square().sum().backward()
    assert layer.weight.grad is not None and layer.weight.grad.abs().sum() > 0
    assert layer.last_stats["backward"].all_converged
    assert torch.equal(m0, m1.detach())     # same value with and without a graph


@pytest.mark.parametrize("symmetry", SYMMETRIES)
def test_symmetries_and_effective_parameter_counts(symmetry):
    n, d = 4, 3
    W = torch.randn(n, n, d, d, generator=torch.Generator().manual_seed(7), dtype=F64)
    J = symmetrise_couplings(W, symmetry)
    assert J.diagonal(dim1=0, dim2=1).abs().max() == 0
    if symmetry in ("internal", "both"):
        assert torch.equal(J, J.transpose(2, 3))
    if symmetry in ("site", "both"):
        assert torch.allclose(J, J.transpose(0, 1), atol=0, rtol=1e-15)
    if symmetry in ("energy", "both"):
        M = couplings_to_matrix(J)
        assert torch.allclose(M, M.T, atol=0, rtol=1e-15)
    # The free parameters are the rank of the linear map W -> J.
    jac = torch.autograd.functional.jacobian(lambda w: symmetrise_couplings(w, symmetry), W)
    rank = int(torch.linalg.matrix_rank(jac.reshape(W.numel(), W.numel())))
    layer = MeanFieldAttention(n, d, symmetry=symmetry)
    counts = layer.parameter_counts()
    assert counts["couplings_effective"] == rank
    assert counts["couplings_raw"] == n * n * d * d
    assert counts["raw"] == sum(p.numel() for p in layer.parameters())
    assert counts["effective"] == counts["raw"] - counts["couplings_raw"] + rank


def test_coupling_norms_and_cached_couplings():
    layer = MeanFieldAttention(5, 3, generator=torch.Generator().manual_seed(8))
    norms = layer.coupling_norms()
    assert norms.shape == (5, 5) and norms.diagonal().abs().max() == 0
    assert torch.allclose(norms[1, 2], layer.couplings()[1, 2].norm())
    calls = []
    original = layer.coupling_matrix
    layer.coupling_matrix = lambda: calls.append(1) or original()
    layer(source(2, 5, 3, dtype=torch.float32))
    assert len(calls) == 1 and layer.last_stats["forward"].iterations.max() > 3


def test_vector_spin_tap_is_exact_for_a_gaussian_prior_including_gradients():
    n, d = 5, 3
    layer = VectorSpinTAP(n, d, generator=torch.Generator().manual_seed(9), max_iter=300, tol=1e-13,
                          backward_max_iter=300, backward_tol=1e-13).double()
    x = source(4, n, d, seed=10).requires_grad_()
    w = source(4, n, d, seed=11)
    m = layer(x)
    exact = layer.closed_form(x)
    assert (m - exact).abs().max() < 1e-10
    # Cavity variances reproduce the exact single-site covariances: χ_i = [(P - J)^-1]_ii.
    C = layer.closed_form_covariance().view(n, d, n, d)
    chi = torch.linalg.inv(layer.prior_precision - layer.last_cavity)
    assert (chi - torch.stack([C[i, :, i, :] for i in range(n)])).abs().max() < 1e-12
    # Gradients through both nested fixed points (V*, then m*) match the closed form's.
    g_layer = torch.autograd.grad((m * w).sum(), [layer.weight, x])
    g_exact = torch.autograd.grad((exact * w).sum(), [layer.weight, x])
    for a, b in zip(g_layer, g_exact):
        assert (a - b).abs().max() < 1e-8
    # Without linear response the cavity variances vanish (naive mean field: χ = P^-1).
    naive = VectorSpinTAP(n, d, lin_response=False, generator=torch.Generator().manual_seed(9)).double()
    naive(x.detach())
    assert naive.last_cavity.abs().max() == 0


def test_cost_exponent_fits_the_power_law_above_the_overhead():
    from mfattn.implicit.vector_tap import cost_exponent

    nd = 2.0 ** np.arange(3, 13)                        # 8 ... 4096
    seconds = 1e-3 + 1e-10 * nd ** 3                     # a fixed overhead, then the cubic law
    # Above Nd = 512 the cubic term is >= 13x the overhead: the fitted exponent is within 0.05 of 3 ...
    assert abs(cost_exponent(nd, seconds, 512) - 3) < 0.05
    # ... while a fit over every size, overheads included, badly underestimates it.
    assert cost_exponent(nd, seconds, 0) < 2.0
    assert abs(cost_exponent(nd, 7 * nd ** 2.5, 0) - 2.5) < 1e-10  # an exact power law, any window
    with pytest.raises(ValueError, match="fit_min_nd"):
        cost_exponent(nd, seconds, 4096)                 # one size cannot give a slope


def test_explicit_cost_scaling_returns_the_measurement_and_its_fit_window():
    from mfattn.implicit.vector_tap import explicit_cost_scaling

    sc = explicit_cost_scaling([(2, 2), (4, 2), (4, 4)], 8, repeats=1)
    assert sc["Nd"].tolist() == [4, 8, 16] and sc["fit"].tolist() == [False, True, True]
    assert (sc["fit_min_nd"], sc["fit_max_nd"]) == (8.0, 16.0) and np.all(sc["seconds"] > 0)
    assert np.isfinite(sc["exponent"])


def test_stored_explicit_cost_exponent_is_near_cubic():
    """The book's one cost measurement (Chapter 3's full profile, quoted by Chapter 2): the update's
    arithmetic is an (Nd)x(Nd) inversion, exactly cubic; the wall-time exponent over Nd >= 512 may sit
    below 3 (kernels run faster on larger matrices), not above it by much, and far above the 2 of a
    matrix-vector product."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "full" / "transformer" / "summary.json"
    slope = json.loads(path.read_text())["tap_slope"]
    assert 2.5 < slope < 3.3, slope


def test_bad_input_is_named():
    layer = MeanFieldAttention(4, 3)
    with pytest.raises(ValueError, match=r"x must have shape \(B, num_spins=4, dim=3\)"):
        layer(torch.zeros(2, 5, 3))
    with pytest.raises(TypeError, match="x must be a floating-point tensor"):
        layer(torch.zeros(2, 4, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="x contains NaN"):
        layer(torch.full((2, 4, 3), float("nan")))
    with pytest.raises(ValueError, match="interaction must be one of"):
        MeanFieldAttention(4, 3, interaction="conv")
    with pytest.raises(ValueError, match="symmetry='internal' needs interaction='linear'"):
        MeanFieldAttention(4, 3, interaction="softmax", symmetry="internal")
    with pytest.raises(ValueError, match="correction must be one of"):
        MeanFieldAttention(4, 3, correction="x")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['lam'\]"):
        MeanFieldAttention(4, 3, solver_options={"lam": 1e-4})
    with pytest.raises(ValueError, match="num_spins must be a positive integer"):
        MeanFieldAttention(0, 3)
    with pytest.raises(ValueError, match="prior_precision must be positive definite"):
        VectorSpinTAP(3, 2, prior_precision=-1.0)
