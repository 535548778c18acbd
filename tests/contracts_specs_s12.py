"""Contract specs of public API added in the twelfth session (the certified replay of the stored runs), see
contracts_registry.py."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec

I = "mfattn.implicit."


def _logs(d):
    """Two runs' logs of a replay, as the runner writes them (a few steps, then the initial evaluation)."""
    n = d(st.integers(1, 4))
    out = {}
    for name in ("a", "b"):
        for key in ("loss", "batch_accuracy", "forward_iterations", "backward_iterations", "forward_residual",
                    "forward_converged", "eval.loss", "eval.accuracy"):
            out[f"{name}/{key}"] = np.linspace(0.1, 1.0, n)
        out[f"{name}/eval.pred"] = np.arange(n) % 10
    return out


def _compare_valid(d):
    logs = _logs(d)
    return {"old": logs, "new": dict(logs), "names": ["a", "b"]}


def _compare_check(kwargs, result):
    assert set(result) == set(kwargs["names"]) and all(r["identical"] for r in result.values())


_LINK = {"steps": 100, "eval_images": 1000, "runs": {"r": {"identical": True, "steps": 100}}}

SPECS = {
    "mfattn.companion.checks_scalars:check_bool": Spec(lambda d: {"name": "flag", "value": d(st.booleans())}, skip=("name",),
                                                       names={"value": ("flag",)}, check=lambda kw, r: r is kw["value"]),
    "mfattn.companion.checks_scalars:check_strings": Spec(
        lambda d: {"name": "modules", "value": d(st.lists(st.text(min_size=1, max_size=3), max_size=3)),
                   "what": "module names"},
        skip=("name", "what"), names={"value": ("modules",)}, check=lambda kw, r: r == list(kw["value"])),
    I + "replay_runner:compare_logs": Spec(_compare_valid, check=_compare_check),
    I + "replay:reaches": Spec(lambda d: {"code": d(st.sampled_from(["a", "b"])), "today": "c",
                                          "links": [{"from": "a", "to": "b", **_LINK}, {"from": "b", "to": "c", **_LINK}],
                                          "run": d(st.sampled_from([None, "r"]))},
                               check=lambda kw, r: r is True),
    I + "replay:load_lineage": Exempt("reads data/full/deq/runs/lineage.json; tests/test_replay.py feeds it missing, "
                                      "malformed and uncertified files"),
    I + "replay:certify": Exempt("checks out another commit and replays stored training runs in two processes "
                                 "(minutes); tests/test_replay.py checks its refusals of unknown runs and commits"),
    I + "replay:stored_nonfinite": Exempt("reads every stored run in data/full/deq/runs (23 MB); tests/test_replay.py "
                                          "checks its count on them"),
    I + "replay:lineage_text": Exempt("reads data/full/deq/runs (index.json, lineage.json); tests/test_replay.py"),
    I + "replay:main": Exempt("the command line: argparse refuses bad arguments"),
}
