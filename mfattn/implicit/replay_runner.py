"""The replay itself: the child process that runs the first steps of every stored run through the trainer that
trained it (old or today's code alike) and evaluates its models, and the bit-for-bit comparison of two replays
(:func:`compare_logs`). :mod:`mfattn.implicit.replay` certifies a change of the training code with it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import store
from ..companion.checks import check_strings
from .runs import _LOG_KEYS

__all__ = ["LOG_KEYS", "TRAINED_KEYS", "compare_logs", "ensemble_groups"]

#: The per-step logs a replay compares (``history`` keys of a run), then the initial model's evaluation.
LOG_KEYS = (*_LOG_KEYS, "eval.loss", "eval.accuracy", "eval.pred")

#: What a replay adds for every run: the trainer's checkpoint after the last replayed step (a SHA-256 of weights, Adam
#: state, logs, snapshots and the step-0 evaluation on the whole test set; not its wall time, record or key), which trainer replayed it (0 solo, 1 ensemble), and evaluations of the stored final
#: weights and of every kept weight set (none when a run kept none).
TRAINED_KEYS = ("state.sha256", "trainer", "final.loss", "final.accuracy", "final.pred", "kept.loss", "kept.accuracy",
                "kept.pred")

# Run in a child process by the old and by today's code alike, so it uses only what both have: train_mnist's and
# train_ensemble's interrupt_after and callback, their checkpoint.pt, build_model, evaluate, load_mnist.
# Arguments: index.json, steps, eval images, out, then the solo runs' names, "--", the ensemble groups ("a,b,c").
_RUNNER = r"""
import hashlib, json, sys, tempfile
from pathlib import Path
import numpy as np, torch
torch.set_num_threads(1)
from mfattn.implicit.runs import _LOG_KEYS, TrainConfig, code_version
from mfattn.implicit.train import TrainingInterrupted, train_mnist
from mfattn.implicit.ensemble_train import train_ensemble
from mfattn.implicit.models import build_model
from mfattn.implicit.evaluation import evaluate
from mfattn.implicit.mnist import load_mnist
from mfattn.companion.caches import RECORD
index, steps, n_eval, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cut = sys.argv.index("--")
solo, groups = sys.argv[5:cut], [g.split(",") for g in sys.argv[cut + 1:]]
runs = json.load(open(index))["runs"]
x_test, y_test = load_mnist("test", limit=n_eval).tensors()
arrays = {"code": np.asarray(code_version())}

def digest(obj):
    h = hashlib.sha256()
    def walk(o, at):
        if isinstance(o, torch.Tensor):
            h.update(f"{at}:{o.dtype}:{tuple(o.shape)}".encode()); h.update(o.detach().contiguous().numpy().tobytes())
        elif isinstance(o, dict):
            for k in sorted(o, key=str):
                walk(o[k], f"{at}/{k}")
        elif isinstance(o, (list, tuple)):
            for i, v in enumerate(o):
                walk(v, f"{at}/{i}")
        else:
            h.update(f"{at}={o!r}".encode())
    walk(obj, "")
    return np.frombuffer(h.digest(), dtype=np.uint8).copy()

def state_after(folder):
    ck = torch.load(Path(folder) / "checkpoint.pt", map_location="cpu", weights_only=True)
    return digest({k: v for k, v in ck.items() if k not in ("elapsed", RECORD, "key")})

def put_eval(name, part, res):
    arrays[f"{name}/{part}.loss"] = np.asarray(res["loss"], dtype=np.float64)
    arrays[f"{name}/{part}.accuracy"] = np.asarray(res["accuracy"], dtype=np.float64)
    arrays[f"{name}/{part}.pred"] = np.asarray(res["pred"])

for name in solo:
    config = TrainConfig.from_dict(runs[name]["config"])
    logs = []
    with tempfile.TemporaryDirectory() as folder:
        try:
            train_mnist(config, folder=folder, use_cache=False, progress=False, interrupt_after=steps,
                        callback=lambda step, log: logs.append(log))
        except TrainingInterrupted:
            pass
        arrays[name + "/state.sha256"] = state_after(folder)
    for key in _LOG_KEYS:
        arrays[name + "/" + key] = np.asarray([log[key] for log in logs], dtype=np.float64)
    arrays[name + "/trainer"] = np.asarray(0)
for members in groups:
    configs = [TrainConfig.from_dict(runs[n]["config"]) for n in members]
    logs = []
    with tempfile.TemporaryDirectory() as folder:
        try:
            train_ensemble(configs, folder=folder, use_cache=False, progress=False, interrupt_after=steps,
                           callback=lambda step, member_logs: logs.append(member_logs))
        except TrainingInterrupted:
            pass
        group_state = state_after(folder)
    for i, name in enumerate(members):
        for key in _LOG_KEYS:
            arrays[name + "/" + key] = np.asarray([member_logs[i][key] for member_logs in logs], dtype=np.float64)
        arrays[name + "/state.sha256"] = group_state
        arrays[name + "/trainer"] = np.asarray(1)
for name in solo + [n for g in groups for n in g]:
    config = TrainConfig.from_dict(runs[name]["config"])
    model = build_model(config.seed, dim=config.dim, channels=config.channels, **config.attention)
    put_eval(name, "eval", evaluate(model, x_test, y_test, config.eval_batch_size))
    stored = np.load(Path(index).parent / runs[name]["file"])
    final = {k[6:]: torch.from_numpy(np.array(stored[k])) for k in stored.files if k.startswith("model.")}
    model.load_state_dict(final)
    put_eval(name, "final", evaluate(model, x_test, y_test, config.eval_batch_size))
    kept = {k[5:]: np.array(stored[k]) for k in stored.files if k.startswith("kept.")}   # each (K, ...): K kept sets
    results = []
    for i in range(len(next(iter(kept.values()))) if kept else 0):
        model.load_state_dict({k: torch.from_numpy(v[i]) for k, v in kept.items()})
        results.append(evaluate(model, x_test, y_test, config.eval_batch_size))
    put_eval(name, "kept", {"loss": np.asarray([r["loss"] for r in results], dtype=np.float64),
                            "accuracy": np.asarray([r["accuracy"] for r in results], dtype=np.float64),
                            "pred": np.asarray([np.asarray(r["pred"]) for r in results], dtype=np.int64)})
np.savez(out, **arrays)
"""


def ensemble_groups(runs: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Which trainer trained each stored run, as the replay runs them again: ``(solo, groups)``.

    ``runs`` maps a name to its index entry with ``"ensemble"`` added from the run's stored summary: ``{"member": i,
    "seeds": [...]}`` for a member of an ensemble (:func:`mfattn.implicit.ensemble_train.train_ensemble`), None for a
    run of the solo loop (:func:`mfattn.implicit.train.train_mnist`). A group is one ensemble as it was trained: its
    members (the same configuration but for the seed, the same list of seeds), ordered by member index; an ensemble
    whose members are not all named is refused (its batch would differ from the one that trained it)."""
    if not isinstance(runs, dict) or not all(isinstance(e, dict) and isinstance(e.get("config"), dict)
                                             for e in runs.values()):
        raise TypeError("runs must be an index's runs {name: {'config': {...}, 'ensemble': ..., ...}}")
    solo, groups = [], {}
    for name in sorted(runs):
        entry, config = runs[name], runs[name]["config"]
        ensemble = entry.get("ensemble")
        if ensemble is None:
            solo.append(name)
            continue
        if not (isinstance(ensemble, dict) and isinstance(ensemble.get("member"), int)
                and isinstance(ensemble.get("seeds"), list) and 0 <= ensemble["member"] < len(ensemble["seeds"])
                and ensemble["seeds"][ensemble["member"]] == config.get("seed")):
            raise ValueError(f"runs[{name!r}]['ensemble'] must be None or {{'member': i, 'seeds': [...]}} with its own "
                             f"seed at index i; got {ensemble!r}")
        # one ensemble = the members whose configuration differs in the seed only, with the same list of seeds: the
        # summaries record member and seeds only; one variant per ensemble is how mfattn.implicit.prepare.jobs
        # trained them (the ensemble trainer would also take members differing in MEMBER_OPTIONS)
        shared = {**{k: v for k, v in config.items() if k != "seed"}, "seeds": ensemble["seeds"]}
        groups.setdefault(repr(sorted((k, repr(v)) for k, v in shared.items())), []).append((ensemble["member"], name))
    out = []
    for members in groups.values():
        members.sort()
        if [i for i, _ in members] != list(range(len(members))):
            raise ValueError(f"runs: the ensemble of {[n for _, n in members]} lacks members (indices "
                             f"{[i for i, _ in members]}); replay the whole ensemble")
        out.append([n for _, n in members])
    return solo, out



def compare_logs(old: dict[str, np.ndarray], new: dict[str, np.ndarray], names: list[str],
                 keys: tuple[str, ...] = LOG_KEYS) -> dict[str, Any]:
    """Per run: ``{"identical": bool, "steps": n, "first_difference": key or None, "max_abs_difference": float}``,
    comparing every array of ``keys`` (default :data:`LOG_KEYS`; a certified replay adds :data:`TRAINED_KEYS`) bit
    for bit (NaN equals NaN: a log with no backward solve). Arrays of different shapes (a replay of other length than
    the other, e.g. one cut short) or dtypes differ: not identical, and ``max_abs_difference`` is inf when the shapes
    differ (no element-wise difference exists); ``steps`` counts ``new``'s ``loss``. Within one of ``old`` and
    ``new`` a run's per-step logs must be 1-d of one length (ValueError naming it), and ``names`` must name each run
    once."""
    keys = tuple(check_strings("keys", keys, "log keys"))
    if "loss" not in keys:
        raise ValueError(f"keys must include 'loss' (it counts the replayed steps); got {list(keys)}")
    for label, logs in (("old", old), ("new", new)):
        if not isinstance(logs, dict):
            raise TypeError(f"{label} must be a dict of a replay's arrays ('<run>/<key>'); got {type(logs).__name__}")
    names = check_strings("names", names, "run names")
    if not names or len(set(names)) != len(names):
        raise ValueError(f"names must name each compared run once (at least one); got {names[:5]!r}")
    for label, logs in (("old", old), ("new", new)):
        lacking = [f"{n}/{k}" for n in names for k in keys if f"{n}/{k}" not in logs]
        if lacking:
            raise ValueError(f"{label} lacks the replay's arrays {lacking[:3]}{'...' if len(lacking) > 3 else ''}")
        bad = [f"{n}/{k}" for n in names for k in keys
               if not isinstance(logs[f"{n}/{k}"], np.ndarray) or logs[f"{n}/{k}"].dtype.kind not in "biuf"]
        if bad:
            raise TypeError(f"{label}[{bad[0]!r}] must be a numeric numpy array (a replay's log); got "
                            f"{type(logs[bad[0]]).__name__}")
        for n in names:     # one replay's per-step logs: one length (steps), as the runner writes them
            shapes = {k: logs[f"{n}/{k}"].shape for k in keys if k in _LOG_KEYS}
            if len(set(shapes.values())) > 1 or any(len(v) != 1 for v in shapes.values()):
                raise ValueError(f"{label}: the per-step logs of run {n!r} must be 1-d arrays of one length (the "
                                 f"replayed steps); got shapes {shapes}"[:300])
    out: dict[str, Any] = {}
    for name in names:
        first, worst = None, 0.0
        for key in keys:
            a, b = np.asarray(old[f"{name}/{key}"]), np.asarray(new[f"{name}/{key}"])
            same = a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
            if not same:
                first = first or key
                if a.shape == b.shape and a.size:
                    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
                    worst = max(worst, float(np.nanmax(diff)) if np.isfinite(diff).any() else float("inf"))
                else:
                    worst = float("inf")
        out[name] = {"identical": first is None, "steps": int(np.asarray(new[f"{name}/loss"]).size),
                     "first_difference": first, "max_abs_difference": worst}
    return out



def _runs_dir(folder: str | Path | None) -> Path:
    """The folder of stored runs: ``folder``, or the checkout's data/full/deq/runs."""
    from .trained import runs_folder

    return runs_folder() if folder is None else Path(store.check_path("folder", folder))


def _read_index(folder: Path) -> dict[str, Any]:
    """``folder``/index.json's runs ``{name: entry}``, each entry with its ``config`` and ``code``; else a clear
    error naming the file."""
    if not folder.is_dir():
        raise NotADirectoryError(f"folder: {folder} is not a folder of stored runs")
    path = folder / "index.json"
    index = store.read_json(path)
    runs = index.get("runs") if isinstance(index, dict) else None
    if not isinstance(runs, dict) or not all(isinstance(e, dict) and isinstance(e.get("config"), dict)
                                             and isinstance(e.get("code"), str) for e in runs.values()):
        raise ValueError(f"{path}: not an index of stored runs ({{'runs': {{name: {{'config', 'code', ...}}}}}} "
                         "expected)" if index is not None else f"{path}: no index of stored runs there")
    return runs


def _summary(runs_dir: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """A stored run's summary (its ``summary`` member, JSON): how it was trained."""
    import json

    arrays = store.load_npz(store.inside(runs_dir, entry["file"], "index file", nested=False))
    return json.loads(str(arrays["summary"]))


def _replay(tree: Path, index: Path, steps: int, n_eval: int, solo: list[str], groups: list[list[str]],
            out: Path) -> subprocess.Popen:
    from .mnist import mnist_dir

    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "MFATTN_DATA": str(mnist_dir(None)[0]), "MFATTN_OFFLINE": "1",
           "MFATTN_CACHE": str(out.parent / f"cache-{out.stem}")}
    return subprocess.Popen([sys.executable, "-c", _RUNNER, str(index), str(steps), str(n_eval), str(out), *solo, "--",
                             *(",".join(g) for g in groups)], cwd=tree, env=env)
