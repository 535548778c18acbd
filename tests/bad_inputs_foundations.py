"""Bad-input rows of the foundations (``mfattn.ising``, ``mfattn.deq``) and of Chapter 1's study on them
(``mfattn.meanfield.accuracy``), gathered by test_bad_inputs.py.

Each row: (id, call, exception type(s), pattern naming the parameter).
"""

import numpy as np
import torch

from mfattn import deq, ising
from mfattn.meanfield import accuracy

J2 = np.array([[0.0, 0.3], [0.3, 0.0]])
H2 = np.array([0.1, -0.2])
NAN, INF = float("nan"), float("inf")


def _solve(**kw):
    z0 = torch.zeros(2, 3, dtype=torch.float64)
    return deq.solve(lambda z: 0.5 * z + 1.0, z0, **kw)


def _fixed_point(**kw):
    z0 = torch.zeros(2, 3, dtype=torch.float64)
    return deq.deq_fixed_point(lambda z: 0.5 * z + 1.0, z0, **kw)


_MEAN_FIELD = [("naive", ising.naive_mean_field), ("tap", ising.tap), ("adaptive-tap", ising.adaptive_tap)]

ROWS = [
    # SK couplings
    ("ising-sk-n-small", lambda: ising.sk_couplings(1, 0.5), ValueError, "n must be an integer >= 2"),
    ("ising-sk-n-float", lambda: ising.sk_couplings(4.5, 0.5), ValueError, "n must be an integer"),
    ("ising-sk-beta-negative", lambda: ising.sk_couplings(4, -1.0), ValueError, "beta"),
    ("ising-sk-beta-nan", lambda: ising.sk_couplings(4, NAN), ValueError, "beta"),
    ("ising-sk-beta-inf", lambda: ising.sk_couplings(4, INF), ValueError, "beta"),
    # exact enumeration
    ("ising-exact-J-not-square", lambda: ising.exact_marginals(np.zeros((2, 3)), H2), ValueError, "J must be a square"),
    ("ising-exact-J-asymmetric", lambda: ising.exact_marginals(np.array([[0, 1.0], [0.5, 0]]), H2), ValueError,
     "J must be symmetric"),
    ("ising-exact-J-diagonal", lambda: ising.exact_marginals(np.eye(2), H2), ValueError, "zero diagonal"),
    ("ising-exact-J-nan", lambda: ising.exact_marginals(np.array([[0, NAN], [NAN, 0]]), H2), ValueError,
     "J contains NaN"),
    ("ising-exact-J-strings", lambda: ising.exact_marginals([["a", "b"], ["c", "d"]], H2), TypeError, "J must be"),
    ("ising-exact-J-empty", lambda: ising.exact_marginals(np.zeros((0, 0)), np.zeros(0)), ValueError,
     "at least one spin"),
    ("ising-exact-h-shape", lambda: ising.exact_marginals(J2, np.zeros(3)), ValueError, "h must have shape"),
    ("ising-exact-h-inf", lambda: ising.exact_marginals(J2, np.array([INF, 0.0])), ValueError, "h contains"),
    ("ising-sweep-betas-nan", lambda: ising.exact_marginals_sweep(J2, H2, [0.5, NAN]), ValueError, "betas"),
    ("ising-compare-n", lambda: accuracy.compare_mean_field(1, [0.5], 2), ValueError, "n"),
    ("ising-compare-instances", lambda: accuracy.compare_mean_field(4, [0.5], 0), ValueError, "instances"),
    ("ising-compare-method", lambda: accuracy.compare_mean_field(4, [0.5], 2, methods=("bethe",)), ValueError,
     "method"),
    ("ising-compare-betas-empty", lambda: accuracy.compare_mean_field(4, [], 2), ValueError, "betas"),
    ("ising-compare-which", lambda: accuracy.compare_mean_field(4, [0.5], 1, methods=("naive",)).at_parameter("tap"),
     ValueError, "which"),
    ("ising-sweep-method", lambda: accuracy.damping_sweep(4, [0.5], 1, [0.5], methods=("bethe",)), ValueError, "method"),
    ("ising-sweep-budget", lambda: accuracy.damping_sweep(4, [0.5], 1, [0.5], budget=0), ValueError, "budget"),
    ("ising-sweep-damping", lambda: accuracy.damping_sweep(4, [0.5], 1, [1.5]), ValueError, "dampings"),
    ("ising-relaxing-history-2d", lambda: accuracy.still_relaxing(np.ones((2, 2))), ValueError, "history"),
    ("ising-relaxing-history-text", lambda: accuracy.still_relaxing(["a", "b"]), ValueError, "history"),
    ("ising-relaxing-tol", lambda: accuracy.still_relaxing(np.ones(8), tol=0.0), ValueError, "tol"),
    ("ising-relaxing-patience", lambda: accuracy.still_relaxing(np.ones(8), patience=NAN), ValueError, "patience"),
]
for name, fn in _MEAN_FIELD:
    ROWS += [
        (f"ising-{name}-damping-zero", lambda fn=fn: fn(J2, H2, damping=0.0), ValueError, "damping"),
        (f"ising-{name}-damping-large", lambda fn=fn: fn(J2, H2, damping=1.5), ValueError, "damping"),
        (f"ising-{name}-tol-zero", lambda fn=fn: fn(J2, H2, tol=0.0), ValueError, "tol"),
        (f"ising-{name}-tol-inf", lambda fn=fn: fn(J2, H2, tol=INF), ValueError, "tol"),
        (f"ising-{name}-tol-nan", lambda fn=fn: fn(J2, H2, tol=NAN), ValueError, "tol"),
        (f"ising-{name}-max-iter", lambda fn=fn: fn(J2, H2, max_iter=0), ValueError, "max_iter"),
        (f"ising-{name}-on-fail", lambda fn=fn: fn(J2, H2, on_fail="shout"), ValueError, "on_fail"),
        (f"ising-{name}-m0-shape", lambda fn=fn: fn(J2, H2, m0=np.zeros(3)), ValueError, r"m0 must have shape \(2,\)"),
        (f"ising-{name}-m0-range", lambda fn=fn: fn(J2, H2, m0=np.array([2.0, 0.0])), ValueError, r"m0 must lie in \(-1, 1\)"),
        (f"ising-{name}-J-shape", lambda fn=fn: fn(np.zeros(3), H2), ValueError, "J must be a square"),
    ]
ROWS += [
    ("ising-tap-onsager", lambda: ising.tap(J2, H2, onsager="plefka"), ValueError, "onsager"),
    # fixed-point solvers
    ("deq-method", lambda: _solve(method="newton"), ValueError, "method"),
    ("deq-max-iter-zero", lambda: _solve(max_iter=0), ValueError, "max_iter"),
    ("deq-max-iter-float", lambda: _solve(max_iter=2.5), ValueError, "max_iter"),
    ("deq-tol-zero", lambda: _solve(tol=0.0), ValueError, "tol"),
    ("deq-tol-inf", lambda: _solve(tol=INF), ValueError, "tol"),
    ("deq-tol-nan", lambda: _solve(tol=NAN), ValueError, "tol"),
    ("deq-option-unknown", lambda: _solve(momentum=0.9), ValueError, "momentum"),
    ("deq-on-fail", lambda: _solve(on_fail="shout"), ValueError, "on_fail"),
    ("deq-damping", lambda: _solve(damping=0.0), ValueError, "damping"),
    ("deq-memory", lambda: _solve(memory=0), ValueError, "memory"),
    ("deq-ridge", lambda: _solve(ridge=-1.0), ValueError, "ridge"),
    ("deq-divergence-factor", lambda: _solve(divergence_factor=0.5), ValueError, "divergence_factor"),
    ("deq-z0-type", lambda: deq.solve(lambda z: z, [0.0, 1.0]), TypeError, "z0"),
    ("deq-map-shape", lambda: deq.solve(lambda z: z[:, :2], torch.zeros(2, 3)), ValueError, "shape"),
    ("deq-map-dtype", lambda: deq.solve(lambda z: z.float(), torch.zeros(2, 3, dtype=torch.float64)),
     TypeError, "f must return the state's dtype"),
    ("deq-grad", lambda: _fixed_point(grad="adjoint"), ValueError, "grad"),
    ("deq-forward-option", lambda: _fixed_point(forward={"momentum": 1}), ValueError, "momentum"),
    ("deq-solver-defaults", lambda: deq.solver_defaults("newton"), ValueError, "method"),
    ("deq-contraction-n", lambda: deq.linear_contraction(0, 0.5), ValueError, "n must be a positive integer"),
    ("deq-contraction-rho", lambda: deq.linear_contraction(3, -0.5), ValueError, "rho"),
    ("deq-contraction-rho-nan", lambda: deq.linear_contraction(3, NAN), ValueError, "rho"),
]
