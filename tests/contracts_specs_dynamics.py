"""Contract specs of ``mfattn.dynamics`` (chapter 6), see contracts_registry.py."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_specs_foundations import RESULT, rng, seed

Y = "mfattn.dynamics."
RUN = dict(domain={"steps": "int>=1", "transient": "int>=0"}, skip=("model", "backend", "device", "progress",
                                                                     "block_callback", "sampler", "out_dir", "init"))


def betas(d):
    return [d(st.floats(1.0, 1.4)), 1.26]


def run(d, steps=40, transient=10, **extra):
    return {"betas": betas(d), "steps": steps, "transient": transient, **extra}


def _one_context():
    from mfattn.dynamics.basins import random_contexts

    return {k: v[0] for k, v in random_contexts(1, 0).items()}


def model():
    from mfattn.dynamics.model import paper_model

    return paper_model()


def m_o(d, T=40, B=2):
    return rng(d).uniform(-0.5, 0.5, (B, T, 3))


def _rotation_result(d):
    from mfattn.dynamics.rotation import rotation_number

    return rotation_number(betas(d), steps=60, transient=20, cap=20, chunk_size=20, lyapunov=True)


def _floquet_result(d):
    from mfattn.dynamics.floquet import floquet_multipliers

    return floquet_multipliers(betas(d), steps=60)


def _sweep_result(d):
    from mfattn.dynamics.sweep import sweep

    return sweep(betas(d), steps=60, transient=20, chunk_size=20, strobe_points=10)


SIZES = {"steps": 10**12}
SPECS = {
    # engine and its callers
    Y + "engine:simulate": Spec(lambda d: run(d), sizes=SIZES, **RUN),
    Y + "engine:largest_lyapunov": Spec(lambda d: run(d), **RUN),  # steps: compute, not memory (no history kept)
    Y + "sweep:sweep": Spec(lambda d: run(d, chunk_size=20, strobe_points=10),
                            sizes={"chunk_size": 10**12, "strobe_points": 10**12}, **{**RUN, "domain": {**RUN["domain"], "chunk_size": "int>=1",
                                                               "strobe_points": "int>=1", "max_period": "int>=1",
                                                               "band_width": ">0", "period_tol": ">0"}}),
    Y + "sweep:bifurcation_diagram": Spec(lambda d: run(d, chunk_size=20, lyapunov=False), **RUN),
    Y + "sweep:all_values_image": Spec(lambda d: {"res": _sweep_result(d), "rows": 10}, domain={"rows": "int>=1"},
                                       sizes={"rows": 10**12}, skip=("res",)),
    Y + "sweep:SweepResult": Exempt(RESULT + "; sweep() builds it, and its readers refuse anything else by "
                                                           "name (save_diagram, window_control, summary, the figures)"),
    Y + "engine:SimulationResult": Exempt(RESULT + "; simulate() builds it; planes, time_series and summary "
                                                                "refuse anything else by name"),
    Y + "lyapunov:lyapunov_spectrum": Spec(lambda d: run(d, k=2),
                                           **{**RUN, "domain": {**RUN["domain"], "qr_every": "int>=1"}}),
    Y + "rotation:stroboscopic_points": Spec(lambda d: run(d, 60, 20), sizes=SIZES, **RUN),
    Y + "rotation:rotation_number": Spec(lambda d: run(d, 60, 20, cap=20, chunk_size=20), nonfinite_ok=True,
                                         **RUN),  # rho: NaN where too few points give no rotation number
    Y + "rotation:arnold_tongues": Spec(lambda d: {"betas": betas(d), "epsilons": [0.02], "steps": 60, "transient": 20,
                                                   "cap": 20}, nonfinite_ok=True, **RUN),
    Y + "rotation:locked_fraction": Spec(lambda d: {"rho": d(st.floats(0, 0.5))}, domain={"max_q": "int>=1", "tol": ">0"}),
    Y + "rotation:plateaus": Spec(lambda d: {"result": _rotation_result(d)}, skip=("result",), nonfinite_ok=True,
                                  domain={"max_gap": "int>=0", "min_points": "int>=1", "rho_tol": ">0"}),
    Y + "rotation:RotationResult": Exempt(RESULT + "; rotation_number/arnold_tongues build it; "
                                                                 "staircase_and_tongues refuses anything else by name"),
    Y + "floquet:floquet_multipliers": Spec(lambda d: {"betas": betas(d), "steps": 60}, nonfinite_ok=True,
                                            **{**RUN, "domain": {"steps": "int>=1", "period": "int>=1",
                                                                 "newton": "int>=0", "tol": ">0"}}),
    Y + "floquet:neimark_sacker": Spec(lambda d: {"result": _floquet_result(d)}, skip=("result",), nonfinite_ok=True),
    Y + "floquet:FloquetResult": Exempt(RESULT + "; floquet_multipliers builds it; floquet_and_spectrum "
                                                               "refuses anything else by name"),
    Y + "basins:random_contexts": Spec(lambda d: {"n": d(st.integers(1, 3)), "seed": seed(d)},
                                       domain={"n": "int>=1", "seed": "int>=0"}, sizes={"n": 10**12},
                                       skip=("model",)),
    Y + "basins:same_attractor": Spec(lambda d: {"a": rng(d).normal(size=(4, 3)), "b": rng(d).normal(size=(4, 3)),
                                                 "period_a": 4, "period_b": 4}, domain={"tol": ">=0"}),
    Y + "basins:basin_fractions": Spec(lambda d: {"betas": betas(d), "n_contexts": 2, "steps": 60, "transient": 20,
                                                  "points": 10}, sizes={"n_contexts": 10**12, **SIZES},
                                       **{**RUN, "domain": {**RUN["domain"], "n_contexts": "int>=1", "points": "int>=1",
                                                            "tol": ">=0"}}),
    Y + "basins:Attractor": Exempt(RESULT + "; basin_fractions builds it; figures.basins checks its list"),
    # last-bit perturbed starts (issue 43)
    Y + "perturbed:last_bit_starts": Spec(lambda d: {"context": _one_context(), "n": d(st.integers(1, 3)),
                                                     "seed": seed(d)},
                                          domain={"n": "int>=1", "seed": "int>=0", "ulps": "int>=1"},
                                          sizes={"n": 10**12}),
    Y + "perturbed:attractor_census": Spec(lambda d: {"betas": betas(d), "context": _one_context(), "n_starts": 2,
                                                      "steps": 400, "transient": 100, "points": 64},
                                           sizes={"n_starts": 10**12, **SIZES},
                                           **{**RUN, "domain": {**RUN["domain"], "n_starts": "int>=1",
                                                                "seed": "int>=0", "ulps": "int>=1", "tol": ">0"}}),
    Y + "perturbed:CensusAttractor": Exempt(RESULT + "; attractor_census builds it; census_rows checks "
                                                                   "its lists"),
    # finite N
    Y + "finite_n:class_sizes": Spec(lambda d: {"model": model(), "N": d(st.integers(3, 50))}, domain={"N": "int>=2"},
                                     skip=("model",)),
    Y + "finite_n:binomial_sampler": Spec(lambda d: {"model": model(), "N": 10, "rng": rng(d)}, domain={"N": "int>=1"},
                                          skip=("model",)),
    Y + "finite_n:direct_sampler": Spec(lambda d: {"model": model(), "N": 10, "rng": rng(d)}, domain={"N": "int>=1"},
                                        skip=("model",)),
    Y + "finite_n:simulate_finite": Spec(lambda d: run(d, 30, 5, N=20, seed=seed(d)), sizes={"steps": 10**12},
                                         **{**RUN, "domain": {**RUN["domain"], "N": "int>=1"}}),
    Y + "finite_n:error_vs_n": Spec(lambda d: {"betas": betas(d), "Ns": [10, 20], "steps": 5, "reps": 2},
                                    domain={"steps": "int>=1", "reps": "int>=1"}, sizes={"reps": 10**12},
                                    skip=("model", "init")),
    Y + "finite_n:network_token_model": Spec(lambda d: {"model": model()}, skip=("model",)),
    Y + "finite_n:simulate_network": Spec(lambda d: {"betas": betas(d), "N": 20, "steps": 20},
                                          domain={"N": "int>=1", "steps": "int>=1", "transient": "int>=0"},
                                          sizes={"N": 10**9, "steps": 10**12}, skip=("model",)),
    Y + "finite_n:network_error_vs_n": Spec(lambda d: {"beta": d(st.floats(1, 1.4)), "Ns": [10], "steps": 5, "reps": 2},
                                            domain={"steps": "int>=1", "reps": "int>=1"}, sizes={"reps": 10**12},
                                            skip=("model",)),
    Y + "finite_n:lattice_chi2_z": Spec(lambda d: {"xa": rng(d).integers(0, 5, 30) / 5, "xb": rng(d).integers(0, 5, 30) / 5,
                                                   "N": 5}, domain={"N": "int>=1"}, nonfinite_ok=True,
                                        allow={"xa": ("integer",), "xb": ("integer",)}),
    Y + "finite_n:NetworkResult": Exempt(RESULT + "; simulate_network builds it (its inputs checked there)"),
    # the map and the model
    Y + "map:initial_state": Spec(lambda d: {"model": model()}),
    Y + "map:step": Spec(lambda d: {"model": model(), "state": __import__("mfattn.dynamics.map").dynamics.map.
                                    initial_state(model()), "t": 0, "beta": d(st.floats(0.5, 2))},
                         domain={"t": "int>=0", "beta": ">=0"}, skip=("model", "state")),
    Y + "map:trajectory": Spec(lambda d: {"model": model(), "beta": d(st.floats(0.5, 2)), "steps": 20},
                               domain={"steps": "int>=1", "beta": ">=0"}, sizes={"steps": 10**12}, skip=("model",)),
    Y + "model:paper_weights": Spec(lambda d: {"seed": d(st.integers(1, 5))},
                                    domain={"seed": "int>=0", "num_features": "int>=1", "semantic_size": "int>=1",
                                            "pe_bits": "int>=1", "segments": "int>=1"},
                                    sizes={"semantic_size": 10**9}),
    Y + "model:paper_model": Spec(lambda d: {"seed": d(st.integers(1, 5))},
                                  domain={"seed": "int>=0", "num_features": "int>=1", "semantic_size": "int>=1",
                                          "pe_bits": "int>=1", "segments": "int>=1"}, sizes={"semantic_size": 10**9},
                                  skip=("weights",)),
    Y + "model:token_context": Spec(lambda d: {"model": model()}),
    Y + "model:MeanFieldModel": Exempt(RESULT + "; the map's constants, built from checked weights by "
                                                              "paper_model / symmetrised_model (generated)"),
    Y + "tangent_space:stored_dimension": Spec(lambda d: {"model": model()}),
    Y + "tangent_space:state_dimension": Spec(lambda d: {"model": model()}),
    Y + "tangent_space:TangentFlow": Spec(lambda d: {"betas": betas(d), "k": 2}, domain={"k": "int>=1"},
                                          skip=("model", "backend", "device", "init")),
    # diagnostics of saved trajectories
    Y + "diagnostics:quantize": Spec(lambda d: {"values": rng(d).uniform(-1, 1, 10), "max_y": 1.0},
                                     domain={"max_y": ">0", "bins": "int>=1"}),
    Y + "diagnostics:bin_counts": Spec(lambda d: {"m1": rng(d).uniform(-1, 1, (2, 20)), "max_y": 1.0},
                                       domain={"bins": "int>=1"}, sizes={"bins": 10**12}),
    Y + "diagnostics:bin_count_bounds": Spec(lambda d: {"levels": [np.array([0, 1])], "max_y": 1.0, "fine": 64,
                                                        "bins": 5},
                                             domain={"max_y": ">0", "fine": "int>=1", "bins": "int>=1"}),
    Y + "diagnostics:classify": Spec(lambda d: {"counts": np.array([3, 100, 4000])},
                                     domain={"periodic_below": "int>=1", "chaotic_from": "int>=1"}),
    Y + "diagnostics:confusion": Spec(lambda d: {"classes": np.array([0, 1]), "period": np.array([4, 0]),
                                                 "lam": np.array([-0.1, 0.0])}, domain={"tol": ">=0"}),
    Y + "diagnostics:orbit_period": Spec(lambda d: {"m_o": m_o(d)}, domain={"max_period": "int>=1", "tol": ">=0"}),
    Y + "diagnostics:section_band": Spec(lambda d: {"m_o": m_o(d)}, domain={"width": ">0"}),
    Y + "diagnostics:stroboscopic_section": Spec(lambda d: {"m_o": m_o(d)}, domain={"period": "int>=1"}),
    Y + "diagnostics:poincare_section": Spec(lambda d: {"m_o": m_o(d)}),
    Y + "diagnostics:power_spectrum": Spec(lambda d: {"x": rng(d).normal(size=32)}),
    Y + "diagnostics:autocorrelation": Spec(lambda d: {"x": rng(d).normal(size=32), "max_lag": 8},
                                            domain={"max_lag": "int>=0"}),
    Y + "diagnostics:envelope_decay_time": Spec(lambda d: {"x": rng(d).normal(size=64), "max_lag": 8},
                                                domain={"max_lag": "int>=1"}, nonfinite_ok=True),
    Y + "diagnostics:attractor_distance": Spec(lambda d: {"a": rng(d).normal(size=(6, 3)), "b": rng(d).normal(size=(5, 3))},
                                               domain={"q": "[0,1]"}),
    Y + "verdict_numbers:decay_times": Spec(lambda d: {"x": rng(d).normal(size=64), "max_lag": 8},
                                            domain={"max_lag": "int>=1", "period": "int>=1"}),
    Y + "verdict_numbers:plain": Spec(lambda d: {"obj": {"x": np.float64(d(st.floats(0, 1))), "a": np.arange(3),
                                                         "t": (1, d(st.floats(-1, 1))), "s": "text"}}),
}

# --- chapter 6's verdict rules on small stored-like numbers (a rule factory is called, then its rule decides)
GRADES = ("holds", "partly", "fails")


def _grade(kwargs, result):
    assert result in GRADES, result


def _slopes(d):
    """Two stored slopes near -1/2 with their standard errors (one slope may lack one)."""
    return {"a": d(st.floats(-0.8, -0.3)), "a_se": d(st.floats(0.001, 0.1)), "b": d(st.floats(-0.8, -0.3))}


def _horizon(d):
    """Stored RMS errors of the class sampler at the chaotic beta (t = 10) over five decades of N, with the Fig. 4
    lambda_max there (0.14: N >= 1e4 inside the 5 % regime)."""
    ns = [1e3, 1e4, 1e5, 1e6, 1e7]
    noise = rng(d).uniform(0.9, 1.1, len(ns))
    return {"error_ns": ns, "horizon_errors_10": [float(c * n ** -0.5) for c, n in zip(noise, ns)],
            "f4_betas": [1.0, 1.28], "f4_lyapunov": [-0.1, 0.14]}


def _map_numbers(d):
    from mfattn.dynamics.claims_map import MAP

    return MAP.examples[d(st.sampled_from(["holds", "partly", "fails"]))]


def _tongue_numbers(d):
    from mfattn.dynamics.claims_tongues import TONGUES

    return TONGUES.examples[d(st.sampled_from(["holds", "partly", "fails"]))]


def _plateaus(d):
    lo = rng(d).uniform(1.2, 1.3, 7)
    return [{"fraction": f, "beta_lo": float(b), "beta_hi": float(b) + w}
            for f, b, w in zip(["1/4", "2/7", "1/3", "3/11", "2/9", "1/5", "3/10"], lo,
                               [1e-3, 2e-4, 5e-5, 1e-5, 3e-3, 1e-6, 4e-4])]


def _text(kwargs, result):
    assert isinstance(result, str) and result, result


def _claim(d):
    from mfattn.dynamics.claims_map import MAP

    return MAP


SPECS.update({
    Y + "claims_limit:slope_rule": Spec(lambda d: {"band": d(st.floats(0.01, 0.3)), "weak": d(st.floats(-0.5, 0.0)),
                                                   "one_sided": d(st.booleans()), "s": _slopes(d)},
                                        call=lambda fn, kw: fn("a", "b", **{k: v for k, v in kw.items() if k != "s"})(
                                            kw["s"]), skip=("s",), check=_grade),
    Y + "claims_limit:horizon_at": Spec(lambda d: {"band": d(st.floats(0.01, 0.3)), "weak": d(st.floats(-0.5, 0.0)),
                                                   "cut": d(st.floats(0.04, 0.2)), "t": 10,
                                                   "largest": d(st.sampled_from([None, 3, 4, 5])),
                                                   "one_sided": d(st.booleans()), "s": _horizon(d)},
                                        call=lambda fn, kw: fn(**{k: v for k, v in kw.items() if k != "s"})(kw["s"]),
                                        domain={"cut": ">0", "t": "int>=0", "largest": "int>=2"},
                                        allow={"cut": ("inf",)}, skip=("s",), check=_grade),
    Y + "claims_map:map_at": Spec(lambda d: {"round_off": d(st.floats(1e-14, 1e-10)), "context": d(st.booleans()),
                                             "forms": d(st.sampled_from([("expansion_vs_classes", "classes_vs_direct"),
                                                                         ("classes_vs_direct",)])),
                                             "s": _map_numbers(d)},
                                  call=lambda fn, kw: fn(**{k: v for k, v in kw.items() if k != "s"})(kw["s"]),
                                  domain={"round_off": ">0"}, skip=("s",), check=_grade),
    Y + "claims_tongues:tongues_at": Spec(lambda d: {"rho_tol": d(st.floats(1e-4, 1e-2)), "eps": 0.02,
                                                     "start": 0.0, "min_width": d(st.integers(1, 2)),
                                                     "s": _tongue_numbers(d)},
                                          call=lambda fn, kw: fn(**{k: v for k, v in kw.items() if k != "s"})(kw["s"]),
                                          domain={"rho_tol": ">0", "eps": ">=0", "start": ">=0", "min_width": "int>=1"},
                                          skip=("s",), check=_grade),
    Y + "claims_tongues:circle_rotations": Spec(lambda d: {"s": _tongue_numbers(d), "eps": d(st.sampled_from([0.0, 0.02])),
                                                           "draw": d(st.floats(0, 1))},   # room for every mutation
                                                call=lambda fn, kw: fn(kw["s"], eps=kw["eps"]), skip=("draw",),
                                                domain={"eps": ">=0"}),
    Y + "claims_stored:plateau_summary": Spec(lambda d: {"found": _plateaus(d)[:d(st.integers(0, 7))],
                                                         "top": d(st.integers(0, 6))}, domain={"top": "int>=0"},
                                              check=_text),
    Y + "claims_beyond:ledger_safe": Spec(lambda d: {"claim": _claim(d), "x": d(st.floats(0, 1))},
                                          call=lambda fn, kw: fn(kw["claim"]), skip=("x",)),
})
