"""Contract specs of the foundations: ``mfattn.ising``, ``mfattn.deq``, ``mfattn.meanfield.accuracy``,
``mfattn.companion.stats`` and ``mfattn.companion.checks`` (see contracts_registry.py)."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec

F64 = torch.float64


def seed(draw) -> int:
    return draw(st.integers(0, 2**16))


def gen(draw) -> torch.Generator:
    return torch.Generator().manual_seed(seed(draw))


def rng(draw) -> np.random.Generator:
    return np.random.default_rng(seed(draw))


def randn(draw, *shape) -> torch.Tensor:
    return torch.randn(*shape, generator=gen(draw), dtype=F64)


def sk(draw, n=None):
    from mfattn import ising

    n = n or draw(st.integers(2, 5))
    return ising.sk_couplings(n, draw(st.floats(0.1, 0.6)), seed=seed(draw)), rng(draw).normal(0, 0.3, n)


def _shape_of(*dims):
    def check(kw, r):
        got = tuple(getattr(r, "shape", ()))
        assert got == tuple(dims), f"shape {got}, expected {dims}"
    return check


def _mean_field_spec(**extra):
    def valid(draw):
        J, h = sk(draw)
        return {"J": J, "h": h}
    return Spec(valid, domain={"damping": "(0,1]", "tol": ">0", "max_iter": "int>=1"},
                check=lambda kw, r: (r.m.shape == kw["h"].shape and np.all(np.abs(r.m) <= 1)) or
                (_ for _ in ()).throw(AssertionError(f"m of shape {r.m.shape}")), nonfinite_ok=True, **extra)


def _solve_valid(draw):
    rho = draw(st.floats(0.1, 0.8))
    return {"f": lambda z: rho * torch.tanh(z) + 1.0, "z0": randn(draw, 2, 3)}


RESULT = "a result container the package builds (its fields are outputs, not inputs)"
SPECS = {
    # --- mfattn.ising
    "mfattn.ising:sk_couplings": Spec(lambda d: {"n": d(st.integers(2, 6)), "beta": d(st.floats(0, 2)),
                                                 "seed": seed(d)},
                                      domain={"n": "int>=2", "beta": ">=0"}, sizes={"n": 10**6},
                                      check=lambda kw, r: r.shape == (kw["n"],) * 2 or (_ for _ in ()).throw(
                                          AssertionError(r.shape))),
    "mfattn.ising_exact:exact_marginals": Spec(lambda d: dict(zip(("J", "h"), sk(d))), domain={"chunk": "int>=1"}),
    "mfattn.ising_exact:exact_marginals_sweep": Spec(lambda d: {**dict(zip(("G", "h"), sk(d))),
                                                          "betas": [d(st.floats(0.1, 1.0)), 0.5]},
                                               domain={"chunk": "int>=1"}),
    "mfattn.ising:naive_mean_field": _mean_field_spec(),
    "mfattn.ising:tap": _mean_field_spec(),
    "mfattn.ising:adaptive_tap": _mean_field_spec(),
    "mfattn.ising_vector:gaussian_closed_form": Spec(lambda d: _gaussian(d)),
    "mfattn.ising_vector:gaussian_vector_tap": Spec(lambda d: _gaussian(d), domain={"damping": "(0,1]", "tol": ">0",
                                                                           "max_iter": "int>=1"}),
    "mfattn.ising_vector:gaussian_vector_check": Spec(lambda d: {"n": d(st.integers(2, 4)), "d": d(st.integers(1, 3)),
                                                          "rng": rng(d), "trials": 1},
                                               domain={"n": "int>=1", "d": "int>=1", "trials": "int>=1", "tol": ">0"},
                                               sizes={"n": 10**6}),
    "mfattn.ising_vector:gaussian_vector_bound": Spec(lambda d: {"n": d(st.integers(2, 4)), "d": d(st.integers(1, 3)),
                                                          "rng": rng(d)},
                                               domain={"n": "int>=1", "d": "int>=1"}, sizes={"n": 10**6}),
    "mfattn.ising_exact:ExactResult": Exempt(RESULT + ": exact_marginals and exact_marginals_sweep build it (generated here)"),
    "mfattn.ising:MeanFieldResult": Exempt(RESULT + ": naive_mean_field, tap and adaptive_tap build it (generated "
                                                    "here)"),
    "mfattn.ising_vector:VectorTAPResult": Exempt(RESULT + ": gaussian_vector_tap builds it (generated here)"),
    # --- mfattn.deq
    "mfattn.deq:solve": Spec(_solve_valid, domain={"max_iter": "int>=1", "tol": ">0"}, skip=("f",)),
    "mfattn.deq:deq_fixed_point": Spec(_solve_valid, skip=("f",)),
    "mfattn.deq:solver_defaults": Spec(lambda d: {"method": d(st.sampled_from(["anderson", "broyden", "plain"]))}),
    "mfattn.deq:linear_contraction": Spec(lambda d: {"n": d(st.integers(1, 5)), "rho": d(st.floats(0.0, 0.99)),
                                                     "generator": gen(d)},
                                          domain={"n": "int>=1", "rho": ">=0"}, sizes={"n": 10**6}),
    "mfattn.deq:SolverStats": Exempt(RESULT),
    # --- mfattn.meanfield.accuracy
    "mfattn.meanfield.accuracy_comparison:still_relaxing": Spec(lambda d: {"history": np.abs(rng(d).normal(size=12))},
                                                     domain={"tol": ">0", "patience": ">0"}),
    "mfattn.meanfield.accuracy_comparison:plefka_parameter": Spec(lambda d: {"beta": d(st.floats(0, 2)),
                                                                  "m": rng(d).uniform(-0.9, 0.9, 4)},
                                                       allow={"m": ("nan-entry",)}, nonfinite_ok=True),
    "mfattn.meanfield.accuracy_comparison:median_over_instances": Spec(lambda d: {"x": rng(d).normal(size=(3, 4))},
                                                            allow={"x": ("nan-entry", "inf-entry")},
                                                            nonfinite_ok=True),
    "mfattn.meanfield.accuracy_comparison:compare_mean_field": Spec(
        lambda d: {"n": d(st.integers(3, 5)), "betas": [0.2, d(st.floats(0.3, 1.0))], "instances": 1},
        domain={"n": "int>=2", "instances": "int>=1", "max_iter": "int>=1", "damping": "(0,1]"},
        sizes={"instances": 10**9}, nonfinite_ok=True, skip=("max_iter",)),
    "mfattn.meanfield.accuracy_damping:damping_sweep": Spec(
        lambda d: {"n": 3, "betas": [0.3], "instances": 1, "dampings": [d(st.floats(0.2, 1.0))], "budget": 50},
        domain={"n": "int>=2", "instances": "int>=1", "budget": "int>=1"}, sizes={"instances": 10**9},
        nonfinite_ok=True),
    "mfattn.meanfield.accuracy_comparison:Comparison": Exempt(RESULT + ": compare_mean_field builds it (generated here); the "
                                                   "functions that take one (summarise, the figures) check its type"),
    # --- mfattn.meanfield.families (couplings not drawn from SK)
    "mfattn.meanfield.families:family_couplings": Spec(
        lambda d: {"family": d(st.sampled_from(("diluted", "ferro", "hopfield"))), "n": d(st.integers(2, 6)),
                   "beta": d(st.floats(0.1, 1.0)), "rng": rng(d)},
        domain={"n": "int>=2", "beta": ">0"}, sizes={"n": 10**6}, skip=("rng",), names={"family": ("family",)}),
    "mfattn.meanfield.families:compare_families": Spec(
        lambda d: {"n": d(st.integers(3, 5)), "beta": d(st.floats(0.2, 0.8)), "instances": 1, "families": ("ferro",),
                   "methods": ("tap", "adaptive_tap")},
        domain={"n": "int>=2", "instances": "int>=1", "beta": ">0", "field_std": ">=0", "seed": "int>=0",
                "max_iter": "int>=1"}, sizes={"instances": 10**9}, nonfinite_ok=True, skip=("max_iter",)),
    "mfattn.meanfield.accuracy_damping:DampingSweep": Exempt(RESULT + ": damping_sweep builds it (generated here); the "
                                                     "functions that take one (summarise, the figures) check its type"),
    # --- mfattn.meanfield.stress (ising-breakdown where its antecedent is met)
    "mfattn.meanfield.stress:breakdown_stress": Spec(
        lambda d: {"n": d(st.integers(3, 5)), "betas": [d(st.floats(0.3, 1.5))], "instances": 1,
                   "methods": ("naive", "adaptive_tap"), "max_iter": 200},
        domain={"n": "int>=2", "instances": "int>=1", "j0": ">=0", "damping": "(0,1]", "max_iter": "int>=1",
                "seed": "int>=0"}, sizes={"instances": 10**9}, nonfinite_ok=True),
    # --- mfattn.meanfield.finite_size (ising-at-accuracy at other numbers of spins)
    "mfattn.meanfield.finite_size:line_by_size": Spec(
        lambda d: {"ns": [3, d(st.integers(4, 5))], "betas": [d(st.floats(0.3, 1.5))], "instances": 1, "budget": 20},
        domain={"instances": "int>=1", "damping": "(0,1]", "budget": "int>=1", "seed": "int>=0",
                "field_std": ">=0"}, sizes={"instances": 10**9}, nonfinite_ok=True),
    # --- mfattn.companion.stats
    "mfattn.companion.stats:t_quantile_975": Spec(lambda d: {"df": d(st.integers(1, 500))},
                                                  domain={"df": "int>=1"}),
    "mfattn.companion.stats:paired_difference": Spec(lambda d: dict(zip(("correct_a", "correct_b"),
                                                                        rng(d).random((2, 20)) < 0.6))),
    "mfattn.companion.stats:pooled_over_seeds": Spec(lambda d: {"deltas": [d(st.floats(-1, 1)), 0.1, -0.2],
                                                                "variances": [0.01, d(st.floats(0.001, 1)), 0.02]}),
}


def _gaussian(draw):
    r = rng(draw)
    n, dim = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    A = r.normal(0, 0.2 / n, (n, n, dim, dim))
    J = A + A.transpose(1, 0, 3, 2)
    J[np.arange(n), np.arange(n)] = 0.0
    return {"J": J, "X": r.normal(size=(n, dim)), "prior_cov": np.eye(dim)}


def _check_spec(draw):
    return {"name": "beta", "value": draw(st.floats(0.1, 5))}


for _key, _valid in [("checks_scalars:check_real", _check_spec), ("checks_scalars:check_positive", _check_spec),
                     ("checks_scalars:check_probability", lambda d: {"name": "p", "value": d(st.floats(0, 1))}),
                     ("checks_scalars:check_int", lambda d: {"name": "steps", "value": d(st.integers(1, 9)), "minimum": 1}),
                     ("checks_scalars:check_choice", lambda d: {"name": "method", "value": "plain", "choices": ("plain", "a")}),
                     ("checks_arrays:check_generator", lambda d: {"name": "generator", "value": gen(d)}),
                     ("checks_arrays:check_tensor", lambda d: {"name": "x", "value": randn(d, 2, 3), "ndim": 2, "real": True}),
                     ("checks_arrays:check_array", lambda d: {"name": "x", "value": rng(d).normal(size=3)}),
                     ("checks_arrays:check_device", lambda d: {"name": "device", "value": "cpu"}),
                     ("checks_arrays:check_grid", lambda d: {"name": "betas", "value" if False else "values": [0.5, 1.0]}),
                     ("checks_budgets:check_alloc", lambda d: {"name": "n", "nbytes": d(st.integers(0, 2**20))}),
                     ("checks_budgets:max_bytes", lambda d: {}),
                     ("checks:check_rule", lambda d: {"name": "sigma", "value": d(st.floats(0.1, 9)), "rule": "real:>0"})]:
    SPECS[f"mfattn.companion.{_key}"] = Spec(_valid, skip=("name", "ndim", "shape", "dtype", "minimum",
                                                           "maximum", "choices", "kind", "what", "rule"),
                                             names={"value": ("beta", "p", "steps", "x", "generator",
                                                              "method", "device", "sigma"),
                                                    "values": ("betas",)})
SPECS["mfattn.companion.checks:contract"] = Exempt("a decorator factory: its rules are parsed at import (a typo fails "
                                                  "there) and every decorated function is generated here")


# --- chapter 1's formatters and summaries, on package-made results at tiny sizes (issue 44 item 5) ---------------
from contracts_strategies_a import comparison, families_result, is_type, sizes_result, stored, stress_result  # noqa: E402


def _summarise(d):
    cmp, sweep = comparison()
    return {"cmp": cmp, "beta": d(st.sampled_from([0.2, 0.6, 1.0])), "sweep": sweep,
            "vector_dev": d(st.sampled_from([None, 1e-9])), "vector_roundoff": d(st.sampled_from([None, (1e-12, 1e-11)]))}


SPECS.update({
    "mfattn.meanfield.accuracy:summarise": Spec(_summarise, domain={"beta": ">0", "vector_dev": ">=0"},
                                                check=is_type(dict), nonfinite_ok=True),
    "mfattn.meanfield.families:ratio_text": Spec(lambda d: {"result": families_result(),
                                                            "worse": d(st.sampled_from(["tap", "tap_site", "naive"]))},
                                                 check=is_type(str)),
    "mfattn.meanfield.families:table": Spec(lambda d: {"result": families_result()}, check=is_type(str)),
    "mfattn.meanfield.stress:counts": Spec(lambda d: {"stress": stress_result(),
                                                      "method": d(st.sampled_from(["naive", "adaptive_tap"]))}),
    "mfattn.meanfield.stress:table": Spec(lambda d: {"stress": stress_result()}, check=is_type(str)),
    "mfattn.meanfield.finite_size:table": Spec(lambda d: {"result": sizes_result()}, check=is_type(str)),
})
# the stored full-profile numbers of chapter 1 (data/full/ising/summary.json, flattened as its claims read them)
for _name in ("ordered_every_beta", "ordering_beta_note", "per_beta_note"):
    SPECS["mfattn.meanfield.claims_ising_betas:" + _name] = Spec(lambda d: {"s": stored("ising")}, check=is_type(str))
for _name in ("at_every_size", "size_rows"):
    SPECS["mfattn.meanfield.claims_ising_sizes:" + _name] = Spec(lambda d: {"s": stored("ising")})
