"""Contract specs of issue 44's budgets and of the store's split (readers, writers), see contracts_registry.py.

The readers and writers touch files: they are exempt from generation (a forked child must not write into the
test session's folders) and their hostile inputs (FIFOs, devices, crafted ``.npz`` headers, zip bombs, NaN in
JSON, system folders, non-JSON objects) are the cases of tests/test_reliability.py.
"""

from __future__ import annotations

from hypothesis import strategies as st

from contracts_registry import Exempt, Spec

K = "mfattn.companion."
FILES = ("reads or writes files: its hostile inputs (special files, oversized or crafted files, system folders) "
         "are the cases of tests/test_reliability.py")


def _scores():
    import torch

    return torch.zeros(3, 2, dtype=torch.float64)


CHAPTERS = ["ising", "deq", "transformer", "structural", "designs", "dmft"]

SPECS = {
    K + "store_write:finite_or_none": Spec(lambda d: {"obj": {"x": d(st.floats(0, 1))}}),
    K + "checks:check_work": Spec(lambda d: {"name": "steps", "units": d(st.integers(0, 10**6))},
                                  domain={"units": ">=0"}, sizes={"units": 10**30},
                                  skip=("name", "what", "unit", "env"), names={"units": ("steps",)}),
    K + "checks:max_work": Spec(lambda d: {}),
    K + "checks:env_positive": Spec(lambda d: {"name": "MFATTN_TEST_UNSET_BUDGET", "unit": "bytes"},
                                    skip=("name", "unit")),
    K + "store_read:max_json_bytes": Spec(lambda d: {}),
    K + "profiles:work_factor": Spec(lambda d: {}),
    K + "profiles:run_work": Spec(lambda d: {"chapter": d(st.sampled_from(CHAPTERS)), "sizes": {}}),
    K + "profiles:check_run_work": Spec(lambda d: {"chapter": "dmft", "profile": "quick",
                                                   "overrides": {"steps": d(st.integers(1, 10**5))}}),
    K + "work:work_of": Spec(lambda d: {"key": "mfattn.dynamics.engine:simulate",
                                        "arguments": {"betas": [1.0, 1.2], "steps": d(st.integers(1, 10**6))}}),
    K + "work:check_call_work": Spec(lambda d: {"key": "mfattn.structural.edges:sinkhorn_edge_marginals",
                                                "arguments": {"q": _scores(), "k": _scores(),
                                                              "iters": d(st.integers(1, 10**6))}},
                                     skip=("what",)),
    # a record (a parameter's name and a function), no computation: every registry entry is checked by
    # tests/test_reliability.py (test_every_work_entry_names_a_function_with_its_loop_parameter)
    K + "work:Entry": Spec(lambda d: {"parameter": d(st.sampled_from(["steps", "n", "trials", "instances"])),
                                      "work": lambda arguments: ("steps", 1, "one step")}),
}
for _key in ("store_write:make_folder", "store_write:check_target_folder", "store_write:temporary_path",
             "store_write:clean_stale_temporaries", "store_write:atomic_write_bytes", "store_write:atomic_write_text",
             "store_write:atomic_write_json", "store_write:atomic_save_npz", "store_read:read_json",
             "store_read:read_entries", "store_read:load_npz", "store_read:check_regular_file",
             "store_read:read_text_file"):
    SPECS[K + _key] = Exempt(FILES)
