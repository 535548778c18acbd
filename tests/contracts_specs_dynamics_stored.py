"""Contract specs of chapter 6's readers, comparisons and figures (issue 44 item 5), see contracts_registry.py.

The inputs are tiny runs of the producing functions (cached in :mod:`contracts_strategies_b`) or small synthetic
data of the documented form; a figure function is called in the forked child, which closes nothing and exits.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contracts_registry import Spec
from contracts_specs_foundations import rng
import contracts_strategies_b as B

Y = "mfattn.dynamics."


def _periods(d, n=2):
    return np.array([d(st.sampled_from([0, 4])) for _ in range(n)])


def _sections_pair(d):
    return {"sections_a": B.sections(d), "sections_b": B.sections(d), "period_a": _periods(d),
            "period_b": _periods(d)}


def _floquet_state(d):
    f = B.floquet(B.pick(d, 2))
    return {"betas": list(f.betas), "state": f.state, "period": int(f.period)}


def _window_control(d):
    i = B.pick(d, len(B.BETAS))
    return {"short": B.sweep_result(i), "long": B.long_sweep(i), "short_window": 180, "long_window": 380}


def _context(d):
    from mfattn.dynamics.basins import random_contexts

    return {k: v[0] for k, v in random_contexts(1, B.pick(d, 3)).items()}


def _fig_diagrams(d):
    return {"diagrams": {"fig3a": B.sweep_of(d), "fig3b": B.sweep_of(d)}}


def _fig_all_values(d):
    from mfattn.dynamics.sweep import all_values_image

    diagrams = _fig_diagrams(d)["diagrams"]
    return {"diagrams": diagrams, "images": {k: all_values_image(v, 20) for k, v in diagrams.items()}}


def _fig_planes(d):
    res = B.simulation()
    return {"betas": np.asarray(res.betas), "result": res, "periods": _periods(d, 3)}


def _fig_floquet(d):
    from mfattn.dynamics.floquet import neimark_sacker

    flq = B.floquet(B.pick(d, 2))
    return {"flq": flq, "ns": neimark_sacker(flq), "spec_betas": np.array([1.0, 1.2]),
            "spec": rng(d).uniform(-0.3, 0.1, (2, 3))}


def _fig_staircase(d):
    from mfattn.dynamics.rotation import plateaus

    rot = B.rotation(B.pick(d, len(B.BETAS)))
    found = [{"fraction": "1/4", "beta_lo": 1.0, "beta_hi": 1.1, "rho": 0.25}]
    return {"rot": rot, "found": found + plateaus(rot), "ns": {"beta": 1.1, "rotation": 0.2},
            "tongues": B.tongues()}


def _fig_finite_n(d):
    r = rng(d)
    Ns = np.array([10, 100, 1000])   # counts of semantic units: integers
    return {"samples": {"binomial": r.integers(-10, 11, 20) / 10, "direct": r.integers(-10, 11, 20) / 10}, "N0": 10,
            "t0": 40, "errs": np.outer([1.0, 2.0], Ns ** -0.5) * r.uniform(0.9, 1.1, (2, 3)), "Ns": Ns,
            "error_betas": [1.0, 1.28], "error_t": 40}


def _fig_network(d):
    r = rng(d)
    Ns = np.array([10, 100, 1000])   # counts of semantic units: integers
    return {"samples": {"network": r.integers(-10, 11, 20) / 10, "binomial": r.integers(-10, 11, 20) / 10},
            "N0": 10, "t0": 40, "Ns": Ns, "errs": Ns ** -0.5 * r.uniform(0.9, 1.1, 3), "beta": 1.28}


FIGURE = dict(skip=("ax",))
SPECS = {
    Y + "diagnostics:compare_attractors": Spec(_sections_pair, domain={"factor": ">0", "atol": ">=0"}),
    Y + "rotation:compare_sections": Spec(lambda d: {**_sections_pair(d), "lyapunov_a": rng(d).uniform(-1e-3, 1e-3, 2),
                                                     "lyapunov_b": rng(d).uniform(-1e-3, 1e-3, 2)},
                                          domain={"share": "[0,1]", "rho_tol": ">=0", "atol": ">=0", "cap": "int>=2"}),
    Y + "floquet:monodromy": Spec(_floquet_state, domain={"period": "int>=1", "epsilon": ">=0", "gamma": ">0"},
                                  sizes={"period": 10**12}, skip=("model", "backend", "device")),
    Y + "verdict_numbers:context_deviation": Spec(lambda d: {"ours": _context(d), "reference": _context(d)}),
    Y + "verdict_numbers:window_control": Spec(_window_control, domain={"short_window": "int>=1",
                                                                        "long_window": "int>=1"}),
    Y + "verdict_numbers:symmetric_control": Spec(lambda d: {"betas": [d(st.floats(1.0, 1.3)), 1.26], "steps": 30,
                                                             "transient": 5},
                                                  domain={"steps": "int>=1", "transient": "int>=0"},
                                                  sizes={"steps": 10**12}, skip=("backend", "device", "out_dir")),
    Y + "perturbed:attractor_kind": Spec(lambda d: {"row": B.census_row(d)}, domain={"chaotic_above": ">=0"}),
    Y + "perturbed:census_rows": Spec(lambda d: {"census": B.census(d)}),
    Y + "model:load_context": Spec(lambda d: {"path": B.context_file()}, skip=("path",)),
    Y + "sweep:save_diagram": Spec(lambda d: {"path": B.tmpdir() / "diagram.npz", "res": B.sweep_of(d), "rows": 20},
                                   domain={"levels": "int>=2", "rows": "int>=1"},
                                   sizes={"rows": 10**12, "levels": 10**12}, skip=("path",)),
    # figures (tiny runs of the producers, or synthetic arrays of the documented shapes)
    Y + "figures:fmt_lam": Spec(lambda d: {"x": d(st.floats(-0.3, 0.3))}),
    Y + "figures:draw_diagram": Spec(lambda d: {"ax": None, "res": B.sweep_of(d),
                                                "color_by": d(st.sampled_from(["class", "lyapunov"]))},
                                     call=B.in_new_axes, domain={"lam_range": ">0"}, **FIGURE),
    Y + "figures:bifurcation": Spec(_fig_diagrams),
    Y + "figures:all_values": Spec(_fig_all_values),
    Y + "figures:bins_vs_lyapunov": Spec(_fig_diagrams),
    Y + "figures:planes": Spec(_fig_planes),
    Y + "figures:time_series": Spec(lambda d: {"betas": np.asarray(B.simulation().betas), "result": B.simulation(),
                                               "pick": {"periodic": 0, "chaotic": d(st.integers(1, 2))}}),
    Y + "figures:sections": Spec(lambda d: {"res": B.sweep_of(d)}),
    Y + "figures:coexisting": Spec(lambda d: {"results": {1.0: B.sweep_result(0), 1.3: B.sweep_result(0)},
                                              "grid": np.array(B.BETAS[0]),
                                              "coexist": np.array([False, d(st.booleans()), True])}),
    Y + "figures:lyapunov_map": Spec(lambda d: {"betas": np.array([1.0, 1.1, 1.2]), "gammas": np.array([200.0, 220.0]),
                                                "lam": rng(d).uniform(-0.2, 0.2, (2, 3))}),
    Y + "figures:finite_n": Spec(_fig_finite_n, domain={"N0": "int>=1", "t0": "int>=1", "error_t": "int>=1"}),
    Y + "figures:finite_n_diagrams": Spec(lambda d: {"panels": {"a": [rng(d).uniform(-1, 1, 5) for _ in range(3)],
                                                                "b": [rng(d).uniform(-1, 1, 4) for _ in range(3)]},
                                                     "grid": np.array([1.0, 1.1, 1.2])}),
    Y + "figures:floquet_and_spectrum": Spec(_fig_floquet),
    Y + "figures:staircase_and_tongues": Spec(_fig_staircase),
    Y + "figures:basins": Spec(lambda d: {"found": B.attractors(d), "contexts": d(st.integers(2, 64))},
                               domain={"contexts": "int>=1"}),
    Y + "figures:network_oracle": Spec(_fig_network, domain={"N0": "int>=1", "t0": "int>=1"}),
}

# chapter 6's claims and stored numbers: the checkout's own data/full/dmft (the documented form), and a recorder run
def _full(d):
    from mfattn.dynamics.claims_stored import full_numbers

    return full_numbers(B.ROOT)


SPECS.update({
    Y + "claims:record": Spec(lambda d: {"run": B.Recorder(), "root": B.ROOT}),
    Y + "claims_beyond:record_beyond": Spec(lambda d: {"run": B.Recorder(), "root": B.ROOT}),
    # "late share" / "late max lambda": NaN by design where a diagram has no β beyond LATE (fig3b's range)
    Y + "claims_stored:full_numbers": Spec(lambda d: {"root": B.ROOT}, nonfinite_ok=True),
    Y + "claims_stored:stored_numbers": Spec(lambda d: {"root": B.ROOT, "chapter": "dmft"}, nonfinite_ok=True),
    Y + "claims_stored:beyond_full_numbers": Spec(lambda d: {"root": B.ROOT}),
    Y + "claims_stored:beyond_numbers": Spec(lambda d: {"b": _full(d)["beyond"], "params": _full(d)["params"]}),
    Y + "claims_stored:glue_values": Spec(lambda d: {"full": _full(d)}),
    Y + "verdict_numbers:summary": Spec(B.summary_inputs),
})
