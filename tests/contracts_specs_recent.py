"""Contract specs of public API added while the contract registry was written (main after 38851a1): caches,
report tables, chapter 6's sections and controls, chapter 2's init-scale and organisation studies."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_specs_foundations import rng

FILES = "reads or writes the output/cache/ledger folders: bad inputs in tests/test_bad_inputs.py and the cache tests"
STORED = "reads or summarises stored results; its inputs are package-made"
FIG = "draws a figure or an HTML table from stored entries (their producers are generated or tested)"
MNIST = "needs MNIST training runs (TrainResult); the configuration is checked by TrainConfig"
RUN = dict(domain={"steps": "int>=1", "transient": "int>=0"}, skip=("model", "backend", "device", "init", "out_dir"))

def _paper_model():
    from mfattn.dynamics.model import paper_model
    return paper_model()


SPECS = {
    "mfattn.companion.caches:content_digest": Spec(lambda d: {"obj": {"x": d(st.floats(0, 1)), "n": 3}}),
    "mfattn.companion.ledger:numbers_text": Spec(lambda d: {"numbers": {"x": d(st.floats(0, 1)), "n": 3}}),
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
    "mfattn.implicit.init_scale:blog_std": Spec(lambda d: {"dim": d(st.integers(1, 64))}, domain={"dim": "int>=1"}),
    "mfattn.implicit.init_scale:factor_key": Spec(lambda d: {"factor": d(st.floats(0.1, 10))}, domain={"factor": ">0"}),
    "mfattn.implicit.organisation:organisation_curves": Spec(lambda d: {"norms": np.abs(rng(d).normal(size=(3, 4, 4)))}),
    "mfattn.implicit.organisation:check_frames": Spec(lambda d: {"norms": np.abs(rng(d).normal(size=(3, 4, 4)))}),
    "mfattn.implicit.organisation:row_shares": Spec(lambda d: {"frame": np.abs(rng(d).normal(size=(4, 4))) + 0.1}),
    "mfattn.implicit.organisation:column_shares": Spec(lambda d: {"frame": np.abs(rng(d).normal(size=(4, 4))) + 0.1}),
}
for _key in ("caches:cache_record", "caches:check_cache_record", "caches:save_cached_npz", "caches:load_cached_npz",
             "caches:cached_npz", "caches:save_cached_json", "caches:load_cached_json",
             "store:inside", "report_text:report_entries"):
    SPECS["mfattn.companion." + _key] = Exempt(FILES)
for _key in ("report_text:report_summary", "report_text:report_details", "ledger:key_number", "ledger:basis",
             "report_text:paper_of", "report_table:rows", "report_keys:key_words", "report_keys:key_text"):
    SPECS["mfattn.companion." + _key] = Exempt("formats ledger entries made by make_entry (checked there)")
for _key in ("report_table:table_html", "report_table:show"):
    SPECS["mfattn.companion." + _key] = Exempt(FIG)
SPECS.update({
    "mfattn.dynamics.backends:ops_for": Exempt("the engine's op table for a backend name and device (checked by "
                                               "check_choice/check_device; generated through simulate)"),
    "mfattn.dynamics.claims_stored:full_numbers": Exempt(STORED),
    "mfattn.dynamics.claims_stored:stored_numbers": Exempt(STORED),
    "mfattn.dynamics.model:symmetrised_model": Exempt("a variant of paper_model (its sizes are paper_model's, generated)"),
    "mfattn.dynamics.rotation:cycle_fraction": Exempt("labels a RotationResult the package made (rotation_number)"),
    "mfattn.dynamics.rotation:tongue_widths": Exempt("reduces a RotationResult the package made (arnold_tongues)"),
    "mfattn.dynamics.rotation:compare_sections": Exempt("compares the sections of two stored runs"),
    "mfattn.dynamics.sweep:sweep_many": Exempt("several sweeps in one batched run: each part is a sweep (generated)"),
    "mfattn.dynamics.verdict_numbers:symmetric_control": Exempt("a chapter-6 control run of sweeps (generated)"),
    "mfattn.dynamics.verdict_numbers:context_deviation": Exempt("compares two contexts the engine made (or the paper "
                                                                "code's stored one, read by load_context)"),
    "mfattn.dynamics.verdict_numbers:window_control": Exempt("reduces two sweeps the package made (sweep_many)"),
    "mfattn.implicit.correction:gaussian_fit": Exempt("fits stored fixed-point fields of a trained model"),
    "mfattn.implicit.figures:early_frames": Exempt(FIG),
    "mfattn.implicit.init_scale:init_config": Exempt("builds a TrainConfig from a profile's sizes (checked by profiles "
                                                     "and TrainConfig)"),
    "mfattn.implicit.init_scale:train_runs": Exempt(MNIST),
    "mfattn.implicit.init_scale:init_rows": Exempt(STORED),
    "mfattn.implicit.stability:gradient_check": Exempt("gradcheck of a trained model on MNIST digits (tests/test_deq.py)"),
    "mfattn.implicit.runs:finished_result": Exempt(FILES),
})
