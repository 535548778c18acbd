"""What the sixth outside table of hostile calls (part A) found in the fixed-point solver (mfattn.deq), the Ising
foundation (mfattn.ising) and chapter 1's studies (mfattn.meanfield: accuracy, families, finite_size, stress): each row
(its id) refused at the boundary by one exception whose message names the parameter (before: a result for input
outside the documented domain, or an error from inside numpy/torch), the loops that had no work estimate (refused
under a budget below their work), and valid calls next to them that must still work, with the same numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn import deq, ising
from mfattn.meanfield import accuracy, families, finite_size, stress
# the fixtures of the fifth table's rows (the same model, vector model, state and map), and its default budgets
from test_outside5_foundations import H4, J4, JV, P2, X2, Z0, _contraction_map, _default_budgets  # noqa: F401

ROWS = [
    # mfattn.meanfield.accuracy: declared shapes
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 1, np.array([0.5])[None, :], field_std=0.3, budget=50),
                 ValueError, r"^dampings must be a number or a 1-d sequence of numbers; got shape \(1, 1\)",
                 id="a0176"),
    pytest.param(lambda: accuracy.damping_sweep(4, [[0.5]], 1, [0.5], budget=50), ValueError,
                 r"^betas must be a number or a 1-d sequence", id="a0176-betas"),
    pytest.param(lambda: accuracy.plefka_parameter(np.array([[0.5]]), np.full(4, 0.1)), ValueError,
                 r"^beta of shape \(1, 1\) must broadcast against m\[\.\.\., 0\] of shape \(\) without enlarging it",
                 id="a0181"),
    # mfattn.deq
    pytest.param(lambda: deq.solve(lambda z: (0.5 * z + 1).to_sparse(), Z0), TypeError,
                 r"^f must return a dense \(strided\) tensor of the state's shape \(2, 4\); got layout "
                 r"torch.sparse_coo",
                 id="a0485"),
    pytest.param(lambda: deq.deq_fixed_point(_contraction_map(), Z0,
                                             params=[torch.zeros(2, dtype=torch.complex64, requires_grad=True)]),
                 TypeError, r"^params\[0\] must be a real floating-point tensor; got dtype torch.complex64",
                 id="a0501"),
    pytest.param(lambda: deq.deq_fixed_point(_contraction_map(), Z0,
                                             params=[torch.zeros(2).to_sparse().requires_grad_()]),
                 TypeError, r"^params\[0\] must be a dense tensor; got layout torch.sparse_coo", id="a0502"),
    pytest.param(lambda: deq.deq_fixed_point(_contraction_map(), Z0, backward={"max_iter": 10**15}), ValueError,
                 r"^max_iter=1e\+15 makes deq_fixed_point\(\)'s backward \(adjoint\) solve do .*MFATTN_MAX_WORK",
                 id="a0504"),
    pytest.param(lambda: deq.deq_fixed_point(_contraction_map(), Z0, grad="phantom", backward={"steps": 10**15}),
                 ValueError, r"^backward\['steps'\]=1000000000000000 makes deq_fixed_point\(\)'s phantom gradient do",
                 id="a0504-phantom"),
    # mfattn.ising
    pytest.param(lambda: ising.exact_marginals_sweep(J4, H4, [1e200]), ValueError,
                 r"^betas: the states' coupling log-weights reach 7.92e\+199 .*more than 1e\+12", id="a0547"),
    pytest.param(lambda: ising.exact_marginals(J4 * 1e13, H4), ValueError,
                 r"^J: the states' coupling log-weights reach .*ask for smaller couplings", id="a0547-J"),
    pytest.param(lambda: ising.gaussian_vector_tap(JV, X2, P2, V=np.stack([-np.eye(2)] * 4)), ValueError,
                 r"^V must hold positive semi-definite cavity variances \(covariances\); V\[0\] has the eigenvalue -1",
                 id="a0550"),
    pytest.param(lambda: ising.gaussian_vector_tap(JV, X2, P2, V=np.stack([np.array([[0.0, 1e-6], [0.0, 0.0]])] * 4),
                                                   adapt=False),
                 ValueError, r"^V must be symmetric \(a covariance\); max \|V - Vᵀ\| = 1e-06", id="a0550-asym"),
    pytest.param(lambda: ising.gaussian_vector_tap(JV, X2, P2 + np.array([[0, 1e-9], [0, 0]])), ValueError,
                 r"^prior_cov must be symmetric \(a covariance\); max \|prior_cov - prior_covᵀ\| = 1e-09", id="a0553"),
    pytest.param(lambda: ising.gaussian_closed_form(JV, X2, P2 + np.array([[0, 1e-9], [0, 0]])), ValueError,
                 r"^prior_cov must be symmetric", id="a0553-closed"),
    # duplicated names: a result keyed by name would overwrite one
    pytest.param(lambda: accuracy.compare_mean_field(4, [0.5], 1, methods=("naive", "naive"), max_iter=50), ValueError,
                 r"^methods must name each theory once; got \['naive'\] more than once", id="a0571"),
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 1, [0.5], methods=("tap", "tap"), budget=20), ValueError,
                 r"^methods must name each theory once", id="a0571-sweep"),
    pytest.param(lambda: families.compare_families(4, 0.5, 1, families=("ferro", "ferro"), max_iter=10), ValueError,
                 r"^families must name each entry once .*got \['ferro'\] more than once", id="a0580"),
    pytest.param(lambda: families.compare_families(4, 0.5, 1, families=("ferro",), methods=("tap", "tap"), max_iter=10),
                 ValueError, r"^methods must name each entry once", id="a0580-methods"),
    pytest.param(lambda: finite_size.line_by_size([4, 4], [0.5], 1, damping=0.5, budget=10), ValueError,
                 r"^ns must name each number of spins once .*got \[4\] more than once", id="a0590"),
    pytest.param(lambda: finite_size.line_by_size([4], [[0.5]], 1, damping=0.5, budget=10), ValueError,
                 r"^betas must be a number or a 1-d sequence of inverse temperatures; got shape \(1, 1\)",
                 id="a0590-betas"),
    pytest.param(lambda: stress.breakdown_stress(4, [0.5], 1, max_iter=20, methods=("naive", "naive")), ValueError,
                 r"^methods must name each theory once", id="a0590-stress"),
]


@pytest.mark.parametrize("call, kind, pattern", ROWS)
def test_the_row_is_refused_at_the_boundary_naming_the_parameter(call, kind, pattern):
    with pytest.raises(kind, match=pattern):
        call()


#: The loops the table found without a work estimate (a0512, a0536, a0543) and the hangs whose estimates were checked
#: (a0515, a0563, a0584, a0593): each refused at once, naming its parameter, under a budget below its work.
HANGS = [
    pytest.param(lambda: deq.linear_contraction(6000, 0.5), r"^n=6000 makes linear_contraction\(\) do 6.48e\+11 ",
                 id="a0512"),
    pytest.param(lambda: ising.naive_mean_field(np.array([[0.0, -3.0], [-3.0, 0.0]]), np.zeros(2), damping=1.0,
                                                m0=[0.5, 0.5], max_iter=3 * 10**6, on_fail="ignore"),
                 r"^max_iter=3000000 makes naive_mean_field\(\) do 1.5e\+11 ", id="a0515"),
    pytest.param(lambda: ising.exact_marginals(ising.sk_couplings(22, 0.5, 0), np.zeros(22), chunk=1),
                 r"^chunk=1 makes exact_marginals\(\) do 2.1e\+11 ", id="a0536"),
    pytest.param(lambda: ising.exact_marginals_sweep(ising.sk_couplings(18, 1.0, 0), np.zeros(18),
                                                     np.linspace(0.1, 1, 2000)),
                 r"^len\(betas\)=2000 makes exact_marginals_sweep\(\) do 1.7e\+11 ", id="a0543"),
    pytest.param(lambda: accuracy.damping_sweep(4, [0.5], 1, [1e-9], methods=("naive",), budget=1),
                 r"^dampings=1e-09 makes damping_sweep\(\) do 5e\+13 ", id="a0563"),
    pytest.param(lambda: stress.breakdown_stress(1500, [0.5], 1, max_iter=30, methods=("adaptive_tap",)),
                 r"^n=1500 makes breakdown_stress\(\) do 2.26e\+11 ", id="a0584"),
    pytest.param(lambda: finite_size.line_by_size([4], [0.5], 1, damping=1e-9, budget=1),
                 r"^damping=1e-09 makes line_by_size\(\) do 1.5e\+14 ", id="a0593"),
]


@pytest.mark.parametrize("call, pattern", HANGS)
def test_the_hang_rows_have_a_work_estimate(call, pattern, monkeypatch):
    monkeypatch.setenv("MFATTN_MAX_WORK", "1e6")
    with pytest.raises(ValueError, match=pattern + r".*MFATTN_MAX_WORK"):
        call()


# --- valid calls next to the rows: they still work, with the same numbers ---------------------------------------
def test_a_0d_tol_is_read_as_its_value():   # a0495
    f = lambda z: 0.5 * z + 1   # noqa: E731
    z, stats = deq.solve(f, Z0.clone(), tol=torch.tensor(1e-6, dtype=torch.float64), divergence_factor=np.array(1e6))
    z_ref, stats_ref = deq.solve(f, Z0.clone(), tol=1e-6)
    assert torch.equal(z, z_ref) and torch.equal(stats.trace, stats_ref.trace) and stats.tol == 1e-6


def test_real_dense_params_and_the_default_backward_still_give_gradients():
    W = torch.nn.Parameter(deq.linear_contraction(4, 0.5, generator=torch.Generator().manual_seed(1)))
    z, stats = deq.deq_fixed_point(lambda z: z @ W.T + 1.0, Z0, params=[W], backward={"max_iter": 10**5})
    z.sum().backward()
    assert W.grad is not None and torch.isfinite(W.grad).all() and stats["backward"].all_converged


def test_leading_axes_of_m_and_x_are_kept():   # a0027, a0031, a0186: documented
    m = np.array([0.1, -0.2, 0.3])
    assert accuracy.plefka_parameter(0.5, m[None]).shape == (1,)
    assert accuracy.plefka_parameter(0.5, m[None])[0] == accuracy.plefka_parameter(0.5, m)
    assert accuracy.plefka_parameter(np.array([[0.5], [1.0]]), np.full((2, 3, 4), 0.5)).shape == (2, 3)
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert np.array_equal(accuracy.median_over_instances(x[None]), [[2.0, 5.0]])
    assert accuracy.median_over_instances(np.ones((3, 2, 2))[None]).shape == (1, 3, 2)


def test_saturated_fields_give_the_limit_m_pm1():   # a0526: documented
    strong = ising.naive_mean_field(J4, H4 * 1e308)
    moderate = ising.naive_mean_field(J4, H4 * 1e3)
    assert np.array_equal(strong.m, moderate.m) and np.array_equal(strong.chi, moderate.chi)
    assert np.allclose(np.abs(strong.m), 1.0, atol=1e-10) and strong.converged


def test_zero_and_positive_cavity_variances_are_valid():   # a0551: documented (V = 0 is the default)
    default = ising.gaussian_vector_tap(JV, X2, P2)
    zero = ising.gaussian_vector_tap(JV, X2, P2, V=np.zeros((4, 2, 2)))
    assert np.array_equal(default.m, zero.m)
    B = 0.1 * np.random.default_rng(3).standard_normal((4, 2, 2))
    fixed = ising.gaussian_vector_tap(JV, X2, P2, V=np.einsum("iab,icb->iac", B, B), adapt=False)
    assert np.allclose(fixed.m, ising.gaussian_closed_form(JV, X2, P2), atol=1e-9)


def test_exact_enumeration_at_large_but_resolvable_betas():
    r = ising.exact_marginals_sweep(J4, H4, [30.0, 1e11])
    assert np.isfinite(r.m).all() and np.abs(r.m).max() > 0.05   # the fields still break the ground pair's tie


def test_distinct_names_and_1d_grids_still_run():
    sweep = accuracy.damping_sweep(4, 0.5, 1, 0.5, methods=("naive", "tap"), budget=20)
    assert sweep.converged.shape == (2, 1, 1, 1)
    assert set(finite_size.line_by_size([3, 4], [0.5], 1, damping=0.5, budget=10)["by_n"]) == {"3", "4"}
