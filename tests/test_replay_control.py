"""A positive control of the replay's runner (mfattn.implicit.replay; review M4 of the thirteenth session).

A certified link says "old and today's code trained every stored run identically". That statement is only worth
something if the runner would have seen a difference. Here it is shown some: copies of the package in which one
trainer's learning rate is moved by one unit in the last place, in the solo loop (train.py) or in the ensemble
trainer (ensemble_train.py). On a tiny fixture of stored runs (one solo run, one ensemble of two), the runner of a
mutant and of today's code must differ for exactly the runs that trainer trained and agree bit for bit on the
others (the negative control: two processes, two trees, the same arithmetic).

Two sizes of "one ulp", because they differ in what they reach. Fused Adam on the CPU applies the rate in float32:
the next float32 above it moves the weights from the first update on, so a step log differs from step 1 on (step 0's
logs are taken before any update; over these four steps the forward residual moves first, the loss not yet). The
next float64 above it rounds back to the same float32: every step's arithmetic is unchanged, the logs are identical,
and only the checkpoint's recorded rate (Adam's param_groups) differs. The runner sees that one through the hash of
the state after the last step, which is why the state is hashed whole.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from mfattn.companion import store
from mfattn.implicit import replay
from mfattn.implicit.models import build_model
from mfattn.implicit.runs import _LOG_KEYS, TrainConfig

from conftest import needs_data

STEPS, N_EVAL = 4, 20
ULP32 = "float(__import__('numpy').nextafter(__import__('numpy').float32({0}), __import__('numpy').float32(1)))"
ULP64 = "__import__('math').nextafter({0}, 1.0)"
# (trainer, ulp) -> (file, the line as it is today, its mutant): the learning rate each trainer hands to Adam
MUTANTS = {
    (trainer, ulp): (file, f"make_optimizer(model, {lr})", f"make_optimizer(model, {form.format(lr)})")
    for trainer, file, lr in (("solo", "train.py", "config.lr"), ("ensemble", "ensemble_train.py", "cfg.lr"))
    for ulp, form in (("float32", ULP32), ("float64", ULP64))
}


def _fixture(folder: Path) -> dict:
    """index.json and stored weights of three tiny runs: solo ``s`` (seed 0), ensemble members ``e0``, ``e1``."""
    base = dict(epochs=1, batch_size=20, train_limit=200, test_limit=N_EVAL, eval_batch_size=N_EVAL,
                snapshot_every=2, checkpoint_every=2)
    runs = {}
    for name, seed in (("s", 0), ("e0", 0), ("e1", 1)):
        config = TrainConfig(seed=seed, **base)
        model = build_model(seed + 7, dim=config.dim, channels=config.channels)   # "trained" weights: another draw
        np.savez(folder / f"{name}.npz", **{f"model.{k}": v.numpy() for k, v in model.state_dict().items()})
        runs[name] = {"config": config.to_dict(), "code": "fixture", "file": f"{name}.npz"}
    (folder / "index.json").write_text(json.dumps({"runs": runs}))
    return runs


def _tree(root: Path, into: Path, mutant: tuple[str, str, str] | None) -> Path:
    shutil.copytree(root / "mfattn", into / "mfattn", ignore=shutil.ignore_patterns("__pycache__"))
    if mutant is not None:
        file, line, changed = mutant
        path = into / "mfattn" / "implicit" / file
        text = path.read_text()
        assert text.count(line) == 1, f"{file} no longer has {line!r}: update the control's mutant"
        path.write_text(text.replace(line, changed))
    return into


@needs_data("mnist")
def test_the_runner_sees_a_one_ulp_change_in_each_trainer_and_only_there(tmp_path):
    runs_dir = tmp_path / "runs"
    runs_dir.mkdir()
    _fixture(runs_dir)
    root = store.project_root()
    trees = {"today": _tree(root, tmp_path / "today", None),
             **{"-".join(kind): _tree(root, tmp_path / "-".join(kind), m) for kind, m in MUTANTS.items()}}
    jobs = {kind: replay._replay(tree, runs_dir / "index.json", STEPS, N_EVAL, ["s"], [["e0", "e1"]],
                                 tmp_path / f"{kind}.npz") for kind, tree in trees.items()}
    assert all(job.wait(timeout=600) == 0 for job in jobs.values())
    out = {kind: dict(np.load(tmp_path / f"{kind}.npz")) for kind in jobs}
    keys = replay.LOG_KEYS + replay.TRAINED_KEYS
    assert out["today"]["s/loss"].size == STEPS and out["today"]["s/trainer"] == 0 and out["today"]["e1/trainer"] == 1
    trained_by = {"solo": ["s"], "ensemble": ["e0", "e1"]}
    for trainer, ulp in MUTANTS:
        kind = f"{trainer}-{ulp}"
        got = replay.compare_logs(out["today"], out[kind], ["s", "e0", "e1"], keys)
        for name, result in got.items():
            if name not in trained_by[trainer]:
                assert result["identical"], (kind, name, result)
                continue
            assert not result["identical"], (kind, name, result)
            assert (out["today"][f"{name}/state.sha256"] != out[kind][f"{name}/state.sha256"]).any()
            if ulp == "float32":     # the arithmetic moved: a step log differs, from the first update on
                assert result["first_difference"] in _LOG_KEYS, (kind, name, result)
                today, mutant = ({k: o[f"{name}/{k}"] for k in _LOG_KEYS} for o in (out["today"], out[kind]))
                assert all(today[k][:1].tobytes() == mutant[k][:1].tobytes() for k in _LOG_KEYS)
                assert any(today[k][1:].tobytes() != mutant[k][1:].tobytes() for k in _LOG_KEYS)
            else:                    # the same float32 rate: only the recorded rate differs
                assert result["first_difference"] == "state.sha256", (kind, name, result)
                assert replay.compare_logs(out["today"], out[kind], [name])[name]["identical"]
        # the stored weights' evaluation reads no trainer: the same in every tree
        for name in ("s", "e0", "e1"):
            assert out["today"][f"{name}/final.pred"].tobytes() == out[kind][f"{name}/final.pred"].tobytes()
