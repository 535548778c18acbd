"""Fixed-point solvers and implicit differentiation (mfattn.deq), against closed forms."""

import warnings

import pytest
import torch

from mfattn.deq import (SOLVERS, ConvergenceWarning, SolverDivergedError, SolverStats, deq_fixed_point,
                        solve, solver_defaults)

torch.set_num_threads(1)
F64 = torch.float64


def contraction(n: int, rho: float, seed: int, symmetric: bool = True) -> torch.Tensor:
    """(n, n) matrix with spectral radius exactly ``rho``."""
    g = torch.Generator().manual_seed(seed)
    A = torch.randn(n, n, generator=g, dtype=F64)
    if symmetric:
        A = 0.5 * (A + A.T)
    return A * (rho / torch.linalg.eigvals(A).abs().max())


def linear_problem(n=12, B=3, rho=0.8, seed=0, symmetric=False):
    J = contraction(n, rho, seed, symmetric)
    g = torch.Generator().manual_seed(seed + 1)
    X = torch.randn(B, n, generator=g, dtype=F64)
    w = torch.randn(B, n, generator=g, dtype=F64)
    return J, X, w


@pytest.mark.parametrize("method", SOLVERS)
def test_linear_deq_matches_closed_form_and_its_gradients(method):
    # z = J z + X:  z* = (I - J)^-1 X;  L = Σ w·z*:  dL/dX = (I - J)^-T w,  dL/dJ = Σ_b λ_b z*_bᵀ.
    J, X, w = linear_problem()
    J.requires_grad_()
    X.requires_grad_()
    opts = dict(method=method, max_iter=400, tol=1e-13)
    z, stats = deq_fixed_point(lambda z: z @ J.T + X, torch.zeros_like(X), [J, X], forward=opts,
                               backward=opts)
    I = torch.eye(J.shape[0], dtype=F64)
    with torch.no_grad():
        z_exact = torch.linalg.solve(I - J, X.T).T
        lam = torch.linalg.solve((I - J).T, w.T).T
    gJ, gX = torch.autograd.grad((z * w).sum(), [J, X])
    assert (z - z_exact).abs().max() < 1e-8
    assert (gX - lam).abs().max() < 1e-8
    assert (gJ - lam.T @ z_exact).abs().max() < 1e-8
    assert stats["forward"].all_converged and stats["backward"].all_converged
    assert stats["backward"].iterations.shape == (3,)


def test_closed_form_adjoint_map_gives_the_closed_form_gradients():
    # Same linear DEQ, with the adjoint map given in closed form (J_fᵀ v = v J for rows).
    J, X, w = linear_problem()
    J.requires_grad_()
    X.requires_grad_()
    opts = dict(max_iter=400, tol=1e-13)
    calls = []

    def vjp(z_star):
        calls.append(z_star.shape)
        return lambda v: v @ J.detach()

    z, stats = deq_fixed_point(lambda z: z @ J.T + X, torch.zeros_like(X), [J, X], forward=opts,
                               backward=opts, vjp=vjp)
    I = torch.eye(J.shape[0], dtype=F64)
    with torch.no_grad():
        z_exact = torch.linalg.solve(I - J, X.T).T
        lam = torch.linalg.solve((I - J).T, w.T).T
    gJ, gX = torch.autograd.grad((z * w).sum(), [J, X])
    assert calls == [X.shape]  # built once, at the fixed point, when the backward runs
    assert (gX - lam).abs().max() < 1e-8
    assert (gJ - lam.T @ z_exact).abs().max() < 1e-8
    assert stats["backward"].all_converged


@pytest.mark.parametrize("closed_form", [False, True])
@pytest.mark.parametrize("backward", [False, True])
def test_graph_is_freed_with_or_without_a_backward_pass(closed_form, backward):
    # The implicit-gradient hook must not keep the step's graph alive (a hook holding the
    # tensor it is registered on forms a cycle the garbage collector cannot free): a tensor
    # saved in the graph upstream of the DEQ dies with the last reference to the output.
    import gc
    import weakref

    J, X, w = linear_problem()
    scale = torch.full_like(X, 0.5).requires_grad_()
    source = X * scale                                    # saves X and scale for its backward
    probe = weakref.ref(X)
    vjp = (lambda z_star: (lambda v: v @ J)) if closed_form else None
    z, _ = deq_fixed_point(lambda z: z @ J.T + source, torch.zeros_like(source), [scale], vjp=vjp)
    if backward:
        (z * w).sum().backward()
        assert scale.grad is not None
    del z, source, X
    gc.collect()
    assert probe() is None


def test_gradcheck_with_respect_to_parameters_of_a_nonlinear_deq():
    # z = tanh(z Wᵀ + x U ᵀ + b): gradients w.r.t. W, U, b (parameters) and x (input).
    g = torch.Generator().manual_seed(3)
    n, B = 5, 2
    W = (0.5 * contraction(n, 0.9, 4, symmetric=False)).requires_grad_()
    U = torch.randn(n, n, generator=g, dtype=F64).requires_grad_()
    b = torch.randn(n, generator=g, dtype=F64).requires_grad_()
    x = torch.randn(B, n, generator=g, dtype=F64).requires_grad_()
    opts = dict(method="anderson", max_iter=200, tol=1e-14)

    def layer(W, U, b, x):
        f = lambda z: torch.tanh(z @ W.T + x @ U.T + b)
        return deq_fixed_point(f, torch.zeros_like(x), [W, U, b, x], forward=opts, backward=opts)[0]

    assert torch.autograd.gradcheck(layer, (W, U, b, x), eps=1e-6, atol=1e-7, rtol=1e-6)


@pytest.mark.parametrize("steps", [1, 3])
def test_phantom_gradient_is_the_truncated_neumann_series(steps):
    # For z = Jz + X, backpropagating through k undamped steps from z* gives
    # dL/dX = Σ_{i<k} (Jᵀ)^i w exactly.
    J, X, w = linear_problem(rho=0.6)
    X.requires_grad_()
    z, stats = deq_fixed_point(lambda z: z @ J.T + X, torch.zeros_like(X), [X],
                               forward=dict(max_iter=200, tol=1e-12), backward={"steps": steps},
                               grad="phantom")
    gX, = torch.autograd.grad((z * w).sum(), [X])
    expect = sum(w @ torch.linalg.matrix_power(J, i) for i in range(steps))
    assert (gX - expect).abs().max() < 1e-12
    assert stats["backward"] is None


def test_anderson_needs_far_fewer_iterations_than_plain_near_rho_097():
    J = contraction(60, 0.97, seed=5)
    g = torch.Generator().manual_seed(6)
    X = torch.randn(4, 60, generator=g, dtype=F64)
    its = {}
    for method in SOLVERS:
        z, st = solve(lambda z: z @ J.T + X, torch.zeros_like(X), method=method, max_iter=3000, tol=1e-8)
        assert st.all_converged, method
        its[method] = st.iterations.double().mean().item()
    # Plain iteration needs ~log(tol)/log(ρ) ≈ 600 steps; Anderson(8) about 10x fewer.
    assert its["plain"] > 400
    assert its["anderson"] < its["plain"] / 5
    assert its["broyden"] < its["plain"] / 5


def test_anderson_reaches_tight_tolerances():
    # A fixed absolute ridge (1e-4 in the reference code) stalls here; the relative one does not.
    J, X, _ = linear_problem(n=40, rho=0.95, seed=7, symmetric=True)
    # Small states (|z| ~ 1e-3): the residual Gram matrix is ~1e-6 and shrinks with the residual.
    z, st = solve(lambda z: z @ J.T + 1e-3 * X, torch.zeros_like(X), method="anderson", max_iter=300,
                  tol=1e-13)
    exact = torch.linalg.solve(torch.eye(40, dtype=F64) - J, X.T).T * 1e-3
    assert st.all_converged and st.iterations.max() < 150
    # error <= ‖z‖·tol/(1-ρ) ≈ 2e-14 (‖z‖ ≈ 1e-2)
    assert (z - exact).norm(dim=1).max() < 1e-13


def test_divergent_map_is_reported_not_silently_returned():
    J, X, _ = linear_problem(rho=1.3, symmetric=True)
    with pytest.warns(ConvergenceWarning, match="diverged"):
        z, st = solve(lambda z: z @ J.T + X, torch.zeros_like(X), method="plain", max_iter=100, tol=1e-6)
    assert not st.converged.any() and st.diverged.all()
    with pytest.raises(SolverDivergedError, match="did not converge"):
        solve(lambda z: z @ J.T + X, torch.zeros_like(X), method="plain", max_iter=100, tol=1e-6,
              on_fail="raise")


def test_invertible_i_minus_j_does_not_make_anderson_converge_beyond_rho_one():
    """z = J z + X with ρ(J) = 1.3 has one fixed point, (I − J)⁻¹X, and I − J is invertible. Plain iteration
    diverges (test above); Anderson with its default history of 8 does not converge either, within 300
    evaluations, on n = 60. Invertibility is necessary, not sufficient: on a linear map Anderson is a GMRES
    limited to its history (Walker & Ni 2011), which stalls when I − J has eigenvalues on both sides of zero
    (eigenvalues of J above 1). With a history as long as the state (60) it converges, and with the same
    ρ(J) = 1.3 but every eigenvalue of J below 1 (I − J positive definite) so does the default history."""
    n = 60
    J = contraction(n, 1.3, seed=0)
    X = torch.randn(4, n, generator=torch.Generator().manual_seed(1), dtype=F64)
    eye = torch.eye(n, dtype=F64)
    ev = torch.linalg.eigvalsh(eye - J)
    assert ev.abs().min() > 0.03 and (ev < 0).sum() == 4          # invertible (|λ| ≥ 0.037), indefinite

    def anderson(J, memory):
        exact = torch.linalg.solve(eye - J, X.T).T
        z, st = solve(lambda z: z @ J.T + X, torch.zeros_like(X), method="anderson", max_iter=300, tol=1e-8,
                      memory=memory, on_fail="ignore")
        return st, ((z - exact).norm(dim=1) / exact.norm(dim=1)).max().item()

    st, err = anderson(J, 8)
    assert not st.converged.any() and err > 1e-3                  # measured: relative error 3.2e-3 after 300
    st, err = anderson(J, n)
    assert st.all_converged and st.iterations.max() < 80 and err < 1e-6   # measured: 52 evaluations
    Q, _ = torch.linalg.qr(torch.randn(n, n, generator=torch.Generator().manual_seed(2), dtype=F64))
    J_below = Q @ torch.diag(torch.linspace(-1.3, 0.5, n, dtype=F64)) @ Q.T     # ρ = 1.3, I − J ≥ 0.5
    st, err = anderson(J_below, 8)
    assert st.all_converged and st.iterations.max() < 60 and err < 1e-6   # measured: 22 evaluations


def test_anderson_reaches_a_repelling_fixed_point_and_which_one_depends_on_the_start():
    """z = tanh(W z + x), W symmetric with eigenvalues 2 (once) and 0.5: a fixed point near 0 whose Jacobian
    diag(1 − z²) W has spectral radius ≈ 1.98, and attracting ones (ρ < 1) further out. Anderson from z = 0
    converges to the repelling one, where plain iteration cannot stay: started 1e-8 from it, plain iteration
    ends at another fixed point. Anderson keeps the repelling point for starts within 0.1 of zero and follows
    it continuously under a small change of x (I − J_f is invertible there), but from starts of size 1 it
    returns one fixed point or another depending on the start."""
    n, B = 8, 100
    gen = torch.Generator().manual_seed(0)
    Q, _ = torch.linalg.qr(torch.randn(n, n, generator=gen, dtype=F64))
    W = Q @ torch.diag(torch.tensor([2.0] + [0.5] * (n - 1), dtype=F64)) @ Q.T
    x = 0.05 * torch.randn(1, n, generator=gen, dtype=F64)

    def anderson(z0, x):
        return solve(lambda z: torch.tanh(z @ W.T + x), z0, method="anderson", max_iter=200, tol=1e-12,
                     on_fail="ignore")

    def rho(z, x):                                                 # (B,) spectral radius of ∂f/∂z at z
        jac = (1 - torch.tanh(z @ W.T + x) ** 2)[:, :, None] * W
        return torch.linalg.eigvals(jac).abs().max(dim=1).values

    z_star, st = anderson(torch.zeros(1, n, dtype=F64), x)
    assert st.all_converged and 1.9 < rho(z_star, x).item() < 2.0    # repelling: measured 1.976
    z = z_star + 1e-8 * torch.randn(1, n, generator=gen, dtype=F64)
    for _ in range(300):                                           # plain iteration leaves it
        z = torch.tanh(z @ W.T + x)
    assert (z - z_star).norm() > 1.0 and rho(z, x).item() < 1.0    # measured: 2.13 away, ρ = 0.50
    assert (torch.tanh(z @ W.T + x) - z).norm() < 1e-10

    for scale, same in ((1e-3, 1.0), (0.1, 1.0)):                  # small starts: the repelling point, always
        z, st = anderson(scale * torch.randn(B, n, generator=gen, dtype=F64), x.expand(B, n))
        assert st.all_converged and ((z - z_star).norm(dim=1) < 1e-10).double().mean() == same
    z, st = anderson(torch.randn(B, n, generator=gen, dtype=F64), x.expand(B, n))
    kept = (z - z_star).norm(dim=1) < 1e-10
    assert st.all_converged and 0.05 < kept.double().mean() < 0.95  # measured: 16 of 100 starts
    # the other 84 reach the two attracting fixed points (ρ = 0.50), 2.1 away
    assert ((z - z_star).norm(dim=1)[~kept] > 1.0).all() and (rho(z[~kept], x) < 1).all()

    dx = 1e-3 * torch.randn(B, n, generator=gen, dtype=F64)        # small change of the input
    z, st = anderson(torch.zeros(B, n, dtype=F64), x + dx)
    moved = (z - z_star).norm(dim=1) / dx.norm(dim=1)
    assert st.all_converged and (moved < 10).all() and (rho(z, x + dx) > 1.5).all()   # measured: moved ≤ 2.0


def test_nan_in_one_sample_stops_that_sample_only():
    J, X, _ = linear_problem(B=3, rho=0.5)

    def f(z):
        out = z @ J.T + X
        out[1] = out[1] * torch.where(z[1].abs().sum() > 0, torch.nan, 1.0)
        return out

    with pytest.warns(ConvergenceWarning, match="1 of 3"):
        z, st = solve(f, torch.zeros_like(X), method="anderson", max_iter=60, tol=1e-10)
    assert st.converged.tolist() == [True, False, True]
    assert st.diverged.tolist() == [False, True, False]
    assert torch.isfinite(z).all()



def test_a_map_that_returns_nan_at_once_is_reported_diverged_not_answered_by_z0():
    z0 = torch.ones(2, 3, dtype=F64)
    # by default (on_fail "warn" or "raise") a map that is NaN at every iterate is refused: no NaN answer
    for on_fail in ("warn", "raise"):
        with pytest.raises(SolverDivergedError, match=r"NaN or inf at every iterate of 2 of 2 sample\(s\)"):
            solve(lambda z: z * torch.nan, z0, method="anderson", max_iter=40, on_fail=on_fail)
    z, st = solve(lambda z: z * torch.nan, z0, method="anderson", max_iter=40, on_fail="ignore")
    assert st.diverged.all() and not st.converged.any() and st.iterations.tolist() == [1, 1]
    assert torch.isnan(z).all()                 # not the initial guess passed off as an answer
    # one undefined sample among defined ones is refused too, and named
    with pytest.raises(SolverDivergedError, match=r"1 of 2 sample\(s\) \(the first: sample 1\)"):
        solve(lambda z: z * torch.tensor([[1.0], [torch.nan]], dtype=F64) * 0.5, z0, method="plain")


def test_the_message_counts_the_iterations_run_not_the_budget():
    # f(z) = z + 1 never converges; the divergence guard does not fire (the residual is constant)
    with pytest.warns(ConvergenceWarning, match=r"after 25 iteration\(s\) \(max_iter 25\)"):
        solve(lambda z: z + 1, torch.zeros(1, 2, dtype=F64), method="plain", max_iter=25)
    # a blow-up stopped by the guard after a few evaluations says so
    with pytest.warns(ConvergenceWarning, match=r"after (\d) iteration\(s\) \(max_iter 500\)"):
        solve(lambda z: 10 * z + 1, torch.zeros(1, 2, dtype=F64), method="plain", max_iter=500)


def test_a_generous_max_iter_costs_memory_only_for_the_iterations_run(chapter_budget):
    # (a chapter's work budget: 10**6 iterations of a 10**6-entry state is 1e12 units at worst)
    # 10**6 iterations of history for a (1000, 1000) state would be 8 TB; the solver stores what it ran (a
    # max_iter whose worst case exceeds the work budget, 10**9 here, is refused up front: test_work_budgets.py)
    z, st = solve(lambda z: 0.5 * z + 1, torch.zeros(1000, 1000, dtype=F64), method="plain",
                  max_iter=10**6, tol=1e-12)
    assert st.converged.all() and 30 < int(st.iterations.max()) < 100
    assert (z - 2).abs().max() < 1e-11
    # the doubling buffer gives the same answer as a budget it never exceeds
    z2, st2 = solve(lambda z: 0.5 * z + 1, torch.zeros(1000, 1000, dtype=F64), method="plain", max_iter=100,
                    tol=1e-12)
    assert torch.equal(z, z2) and torch.equal(st.trace, st2.trace)

def test_per_sample_results_do_not_depend_on_the_batch():
    J = contraction(20, 0.9, seed=8, symmetric=True)
    g = torch.Generator().manual_seed(9)
    X = torch.randn(5, 20, generator=g, dtype=F64) * torch.logspace(-3, 3, 5, dtype=F64)[:, None]
    for method in SOLVERS:
        z, st = solve(lambda z: torch.tanh(z @ J.T) + X, torch.zeros_like(X), method=method, max_iter=200,
                      tol=1e-10)
        z1, st1 = solve(lambda z: torch.tanh(z @ J.T) + X[2:3], torch.zeros_like(X[2:3]), method=method,
                        max_iter=200, tol=1e-10)
        assert st.iterations[2] == st1.iterations[0], method
        assert (z[2] - z1[0]).abs().max() < 1e-12, method
        assert st.trace.shape == (int(st.iterations.max()), 5)
        assert torch.equal(st.trace[-1], st.residual)


@pytest.mark.parametrize("method", SOLVERS)
def test_a_sample_started_at_its_fixed_point_stops_at_once_beside_slower_ones(method):
    # Its residual is zero, so a stopped sample that keeps being iterated with the batch meets
    # an all-zero Anderson Gram matrix (a singular system): nothing of that may leak into its
    # result, its statistics or the other samples'.
    J, X, _ = linear_problem(B=3, rho=0.9)
    exact = torch.linalg.solve(torch.eye(12, dtype=F64) - J, X.T).T
    z0 = torch.zeros_like(X)
    z0[1] = exact[1]
    f = lambda z: z @ J.T + X  # noqa: E731
    z, st = solve(f, z0, method=method, max_iter=400, tol=1e-10)
    assert st.converged.all() and not st.diverged.any()
    assert st.iterations[1] == 1 and st.iterations.max() > 5
    assert torch.equal(z[1], f(z0)[1])      # f at the starting point, returned as it was
    assert (z - exact).abs().max() < 1e-8
    assert torch.isfinite(st.trace).all()


@pytest.mark.parametrize("max_iter", [1, 2, 3])
def test_short_budgets_work_and_return_the_mapped_point(max_iter):
    J, X, _ = linear_problem(rho=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        z, st = solve(lambda z: z @ J.T + X, torch.zeros_like(X), method="anderson", max_iter=max_iter)
    assert st.iterations.tolist() == [max_iter] * 3
    if max_iter == 1:
        assert torch.equal(z, X)   # f(z0) with z0 = 0, not z0 itself
    # The returned point is f(x) of an iterate whose residual is reported: ‖f(z) - z‖ for z = f(x)
    # is at most ρ times that iterate's residual.
    assert (st.residual <= 1.0).all()


def test_no_grad_and_backward_statistics():
    J, X, w = linear_problem()
    X.requires_grad_()
    with torch.no_grad():
        z, stats = deq_fixed_point(lambda z: z @ J.T + X, torch.zeros_like(X), [X])
    assert not z.requires_grad and stats["backward"] is None
    z, stats = deq_fixed_point(lambda z: z @ J.T + X, torch.zeros_like(X), [X],
                               backward=dict(method="broyden", max_iter=50, tol=1e-10))
    assert stats["backward"] is None
    (z * w).sum().backward()
    assert isinstance(stats["backward"], SolverStats) and stats["backward"].method == "broyden"
    assert stats["backward"].all_converged


def test_higher_order_gradients_are_refused_not_wrong():
    J, X, w = linear_problem()
    X.requires_grad_()
    z, _ = deq_fixed_point(lambda z: z @ J.T + X, torch.zeros_like(X), [X])
    with pytest.raises(RuntimeError, match="higher-order gradients"):
        torch.autograd.grad((z * w).sum(), X, create_graph=True)


def test_non_convergence_warns_with_its_residual():
    J, X, _ = linear_problem(rho=0.97, symmetric=True)
    with pytest.warns(ConvergenceWarning, match=r"max relative residual [0-9.e-]+ > tol 1e-10"):
        solve(lambda z: z @ J.T + X, torch.zeros_like(X), method="plain", max_iter=5, tol=1e-10)


def test_bad_input_is_named():
    J, X, _ = linear_problem()
    f = lambda z: z @ J.T + X
    with pytest.raises(ValueError, match="method must be one of"):
        solve(f, X, method="newton")
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['lam'\]"):
        solve(f, X, method="anderson", lam=1e-4)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['ridge'\] for method 'plain'"):
        solve(f, X, method="plain", ridge=1e-4)
    with pytest.raises(ValueError, match="max_iter must be"):
        solve(f, X, max_iter=0)
    with pytest.raises(ValueError, match="tol must be"):
        solve(f, X, tol=-1.0)
    with pytest.raises(ValueError, match="f must return a tensor of the state's shape"):
        solve(lambda z: z[:, :3], X)
    with pytest.raises(ValueError, match="grad must be one of"):
        deq_fixed_point(f, X, None, grad="unrolled")
    with pytest.raises(TypeError, match="vjp must be None or a callable"):
        deq_fixed_point(f, X, None, vjp=X)
    with pytest.raises(ValueError, match="unknown option"):
        deq_fixed_point(f, X, None, backward={"memroy": 3})


def test_defaults_are_not_shared_between_calls():
    # The reference code keeps its solver defaults in a class-level dict that every instance
    # mutates; here each call starts from the same defaults.
    J, X, _ = linear_problem(rho=0.5)
    f = lambda z: z @ J.T + X
    _, s1 = deq_fixed_point(f, torch.zeros_like(X), None, forward={"max_iter": 3, "on_fail": "ignore"})
    _, s2 = deq_fixed_point(f, torch.zeros_like(X), None)
    assert s1["forward"].max_iter == 3 and s2["forward"].max_iter == 40


def test_solver_defaults_are_fresh_copies_and_named():
    d = solver_defaults("anderson")
    d["memory"] = 99
    assert solver_defaults("anderson")["memory"] == 8 and solver_defaults("broyden")["memory"] is None
    with pytest.raises(ValueError, match="method must be one of"):
        solver_defaults("newton")


def test_fixed_points_agree_with_torchdeq():
    # Optional cross-check against TorchDEQ (MIT), when it is installed.
    tdeq = pytest.importorskip("torchdeq.solver")
    J = contraction(30, 0.95, seed=10)
    X = torch.randn(4, 30, generator=torch.Generator().manual_seed(11), dtype=F64)
    f = lambda z: torch.tanh(z @ J.T + X)
    for ours, theirs in (("plain", "fixed_point_iter"), ("anderson", "anderson"), ("broyden", "broyden")):
        z_ref, _, _ = tdeq.get_solver(theirs)(f, torch.zeros_like(X), max_iter=500, tol=1e-11, stop_mode="rel")
        z, st = solve(f, torch.zeros_like(X), method=ours, max_iter=500, tol=1e-11)
        assert st.all_converged
        assert (z - z_ref).abs().max() < 1e-8, ours


def test_linear_contraction_has_the_asked_spectral_radius():
    from mfattn import deq

    W = deq.linear_contraction(40, 0.97, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(W, W.T)
    eig = torch.linalg.eigvalsh(W)
    assert eig.abs().max().item() == pytest.approx(0.97, abs=1e-12)
    torch.testing.assert_close(eig, torch.linspace(-0.97, 0.97, 40, dtype=F64), atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match="rho must be"):
        deq.linear_contraction(4, -1.0)
