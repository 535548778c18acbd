"""Contract specs of public API added while the contract registry was written (main after 38851a1): caches,
report tables, chapter 6's sections and controls, chapter 2's init-scale and organisation studies."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_specs_dynamics import _one_context
from contracts_specs_foundations import gen, rng, seed

FILES = "reads or writes the output/cache/ledger folders: bad inputs in tests/test_bad_inputs.py and the cache tests"
STORED = "reads or summarises stored results; its inputs are package-made"
FIG = "draws a figure or an HTML table from stored entries (their producers are generated or tested)"
MNIST = "needs MNIST training runs (TrainResult); the configuration is checked by TrainConfig"
RUN = dict(domain={"steps": "int>=1", "transient": "int>=0"}, skip=("model", "backend", "device", "init", "out_dir"))


def _rotation(d, grid=False):
    """A RotationResult as rotation_number/arnold_tongues make it (lyapunov=True): q-cycles with λ_max < 0 at ρ = 1/q,
    one unlocked point (q at the cap) and one without ρ."""
    from mfattn.dynamics.rotation import RotationResult

    q = d(st.sampled_from([2, 3, 5, 7]))
    shape = (2, 3) if grid else (4,)
    n = int(np.prod(shape))
    rho, distinct = np.full(n, 1.0 / q), np.full(n, q)
    rho[-1], distinct[0] = np.nan, 200
    full = lambda v: np.full(shape, v)  # noqa: E731
    return RotationResult(betas=np.linspace(1.0, 1.3, n).reshape(shape), gamma=full(220.0), epsilon=full(0.0),
                          rho=rho.reshape(shape), distinct=distinct.reshape(shape), radius=full(1.0), cap=200,
                          lyapunov=full(-0.1))


def _mnist_model(d):
    from mfattn.implicit.models import build_model

    return build_model(seed(d) % 7)


#: The sizes init_config reads from a profile (tests/test_init_scale.py).
INIT_SIZES = {"init_epochs": 1, "init_steps": 5, "train_limit": 600, "test_limit": 100, "snapshot_every": 5}


def _paper_model():
    from mfattn.dynamics.model import paper_model
    return paper_model()


SPECS = {
    "mfattn.companion.caches:content_digest": Spec(lambda d: {"obj": {"x": d(st.floats(0, 1)), "n": 3}}),
    "mfattn.companion.ledger_text:numbers_text": Spec(lambda d: {"numbers": {"x": d(st.floats(0, 1)), "n": 3}}),
    "mfattn.dynamics.diagnostics:island_count": Spec(lambda d: {"section": rng(d).uniform(-1, 1, (80, 3))},
                                                     domain={"max_q": "int>=1"}),
    "mfattn.dynamics.lyapunov:finite_time_lyapunov": Spec(lambda d: {"betas": [d(st.floats(1.0, 1.4))], "window": 10,
                                                                     "steps": 60, "transient": 20},
                                                          **{**RUN, "domain": {**RUN["domain"], "window": "int>=1"}}),
    "mfattn.dynamics.rotation:miss_share": Spec(lambda d: {"a": rng(d).normal(size=(8, 3)), "b": rng(d).normal(size=(6, 3)),
                                                           "h": d(st.floats(0.01, 1))}, domain={"h": ">0"}),
    "mfattn.dynamics.rotation:section_resolution": Spec(lambda d: {"x": rng(d).normal(size=(30, 3))},
                                                        domain={"share": "(0,1)", "levels": "int>=1"}),
    "mfattn.dynamics.verdict_numbers:window_decay_times": Spec(lambda d: {"x": rng(d).normal(size=400), "max_lag": 8},
                                                               domain={"max_lag": "int>=1", "period": "int>=1"},
                                                               nonfinite_ok=True),
    "mfattn.dynamics.verdict_numbers:memory_numbers": Spec(lambda d: {"x": rng(d).normal(size=400), "max_lag": 8},
                                                           domain={"max_lag": "int>=1", "period": "int>=1",
                                                                   "window_lag": "int>=1"}),
    "mfattn.dynamics.verdict_numbers:map_deviations": Spec(lambda d: {"model": _paper_model(), "n": d(st.integers(1, 4))},
                                                           domain={"n": "int>=1", "seed": "int>=0"}, skip=("model",)),
    "mfattn.dynamics.verdict_numbers:attractor_kinds": Spec(lambda d: {"period": np.array([4, 0]),
                                                                       "lam": np.array([-0.1, 0.01])},
                                                            domain={"L": "int>=1", "tol": ">=0"}),
    # a RotationResult is package-made (rotation_number / arnold_tongues, generated): not mutated
    "mfattn.dynamics.rotation:cycle_fraction": Spec(lambda d: {"result": _rotation(d),
                                                               "rho_tol": d(st.floats(1e-4, 1e-2))},
                                                    domain={"rho_tol": ">0"}, skip=("result",)),
    "mfattn.dynamics.rotation:tongue_widths": Spec(lambda d: {"tongues": _rotation(d, grid=True),
                                                              "rho_tol": d(st.floats(1e-4, 1e-2))},
                                                   domain={"rho_tol": ">0"}, skip=("tongues",)),
    "mfattn.dynamics.sweep:sweep_many": Spec(lambda d: {"parts": {"a": ([d(st.floats(1.0, 1.4)), 1.26],
                                                                        _one_context())},
                                                        "steps": 40, "transient": 10, "chunk_size": 20},
                                             **{**RUN, "skip": (*RUN["skip"], "progress")}),
    "mfattn.dynamics.model:symmetrised_model": Spec(lambda d: {"which": d(st.sampled_from(["output-value",
                                                                                           "query-key"])),
                                                               "seed": d(st.integers(0, 50))},
                                                    domain={"seed": "int>=0"}),
    "mfattn.implicit.correction:gaussian_fit": Spec(lambda d: {"g": rng(d).normal(size=(12, 2)),
                                                               "f": rng(d).normal(size=(12, 2)), "max_iter": 50},
                                                    domain={"max_iter": "int>=1", "tol": ">0"}),
    "mfattn.implicit.init_scale:init_config": Spec(lambda d: {"sizes": dict(INIT_SIZES), "seed": seed(d),
                                                              "factor": d(st.floats(0.1, 10))},
                                                   domain={"seed": "int>=0", "factor": ">0"}),
    "mfattn.companion.report_text:paper_of": Spec(lambda d: {"chapter": d(st.sampled_from(
        ["ising", "deq", "transformer", "structural", "designs", "dmft", "none"]))}),
    "mfattn.dynamics.backends:ops_for": Spec(lambda d: {"backend": d(st.sampled_from(["numpy", "torch"])),
                                                        "device": d(st.sampled_from([None, "cpu"]))}, skip=("device",)),
    # an untrained model and random digits (the chapter runs it on the trained layer, tests/test_stability.py)
    "mfattn.implicit.stability:gradient_check": Spec(
        lambda d: {"model": _mnist_model(d), "images": torch.rand(2, 1, 28, 28, generator=gen(d)),
                   "labels": torch.randint(0, 10, (2,), generator=gen(d)), "directions": 1},
        domain={"directions": "int>=1", "max_iter": "int>=1", "eps": "(0,1)", "tol": "(0,1)", "seed": "int>=0"},
        skip=("model",)),
    "mfattn.implicit.init_scale:blog_std": Spec(lambda d: {"dim": d(st.integers(1, 64))}, domain={"dim": "int>=1"}),
    "mfattn.implicit.init_scale:factor_key": Spec(lambda d: {"factor": d(st.floats(0.1, 10))}, domain={"factor": ">0"}),
    "mfattn.implicit.organisation:organisation_curves": Spec(lambda d: {"norms": np.abs(rng(d).normal(size=(3, 4, 4)))}),
    "mfattn.implicit.organisation:check_frames": Spec(lambda d: {"norms": np.abs(rng(d).normal(size=(3, 4, 4)))}),
    "mfattn.implicit.organisation:row_shares": Spec(lambda d: {"frame": np.abs(rng(d).normal(size=(4, 4))) + 0.1}),
    "mfattn.implicit.organisation:column_shares": Spec(lambda d: {"frame": np.abs(rng(d).normal(size=(4, 4))) + 0.1}),
}


def _entries(d):
    """A few entries of the stored full-profile ledger (read, never written), one of them without numbers."""
    from mfattn.companion.ledger import read_ledger

    stored = sorted(read_ledger("full").values(), key=lambda e: e["claim_id"])
    start = d(st.integers(0, max(len(stored) - 3, 0)))
    picked = [dict(e) for e in stored[start:start + 3]]
    if picked:
        picked[-1] = {k: v for k, v in picked[-1].items() if k not in ("numbers", "key")}
    return picked


def _entry(d):
    """One of them (possibly the one without numbers)."""
    entries = _entries(d) or [{"claim_id": "x-claim", "verdict": "reproduced", "profile": "quick"}]
    return entries[d(st.integers(0, len(entries) - 1))]


K2 = "mfattn.companion."
SPECS.update({
    K2 + "report_text:report_summary": Spec(lambda d: {"entries": _entries(d)}),
    K2 + "report_text:report_details": Spec(lambda d: {"entries": _entries(d), "papers": None}),
    K2 + "report_table:rows": Spec(lambda d: {"entries": _entries(d)}),
    # the ledger's path and reader (read only) and its Markdown blocks, on stored entries
    K2 + "ledger:ledger_path": Spec(lambda d: {"profile": d(st.sampled_from(["full", "quick"])),
                                               "seed": d(st.integers(0, 1000))}, domain={"seed": "int>=0"}),
    K2 + "ledger:read_ledger": Spec(lambda d: {"profile": d(st.sampled_from(["full", "quick"])),
                                               "seed": d(st.integers(0, 1000))}, domain={"seed": "int>=0"}),
    K2 + "ledger_text:claim_block": Spec(lambda d: {"e": _entry(d), "cross_refs": d(st.booleans()), "label": d(st.booleans())}),
    K2 + "ledger_text:verdict_table": Spec(lambda d: {"entries": _entries(d), "cross_refs": d(st.booleans()),
                                                      "show_chapter": d(st.booleans()), "anchors": d(st.booleans())}),
    K2 + "ledger_text:key_number": Spec(lambda d: {"e": _entry(d)}),
    K2 + "ledger_text:basis": Spec(lambda d: {"e": _entry(d)}),
    K2 + "report_keys:key_words": Spec(lambda d: {"name": d(st.sampled_from(["acc_seed_sd", "first torus beta", "rho_blog_median",
                                                                       "slope_1", "x"])), "draw": d(st.floats(0, 1))},
                                       skip=("draw",), call=lambda fn, kw: fn(kw["name"])),
    K2 + "report_keys:key_text": Spec(lambda d: {"name": d(st.sampled_from(["acc_seed_sd", "slope_1", "first torus beta"])),
                                                 "value": d(st.floats(-1e3, 1e3))}),
})
# the report's entries (in temporary output folders: the quick ledger is read there) and its table
from contracts_strategies_a import in_output, is_type  # noqa: E402

SPECS.update({
    K2 + "report_text:report_entries": Spec(lambda d: {"chapters": d(st.sampled_from([["ising"], ["ising", "deq"]]))},
                                            check=is_type(list), call=in_output),
    K2 + "report_table:table_html": Spec(lambda d: {"entries": _entries(d), "table_id": "t-claims"}, check=is_type(str)),
    K2 + "report_table:show": Spec(lambda d: {"entries": _entries(d)}),
})
SPECS.update({
    "mfattn.implicit.init_scale:train_runs": Exempt(MNIST),
    "mfattn.implicit.init_scale:init_rows": Exempt(STORED),
    "mfattn.implicit.runs:finished_result": Exempt(FILES),
})
