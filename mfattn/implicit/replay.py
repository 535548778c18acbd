"""Replaying the stored training runs: does a change of the training code leave training as it was?

Chapter 2's stored runs (``data/full/deq/runs``, :mod:`mfattn.implicit.trained`) are keyed by
:func:`mfattn.implicit.runs.code_version`, a digest of the training code's files. Any change of those files
gives a new digest, and the runs would have to be trained again (hours on a CPU) even when the change cannot
touch a valid run's numbers: a check that refuses bad input, a message. :func:`certify` decides that question by
experiment, not by reading the change: it runs the *old* code (a commit, checked out in a temporary worktree) and
today's code side by side on this machine, each in its own single-threaded process, and compares **bit for bit**:

* the first ``steps`` optimiser steps of every stored run, each through the trainer that trained it
  (:func:`ensemble_groups`: the ensembles as their stored summaries record them, the solo loop for the rest): per step
  the loss, batch accuracy, the solver's forward and backward iterations, residual and converged fraction;
* the trainer's own checkpoint after the last replayed step (a SHA-256 of all of it but its wall time, its cache
  record and key: weights, Adam state, logs, snapshots and the step-0 evaluation on the whole test set);
* an evaluation of each run's initial model, and of its stored final and kept weights, on the first ``n_eval`` test
  images (loss, accuracy, every prediction).

Only if every number of every run is identical does it write the link ``old digest -> today's digest`` to
``lineage.json`` beside the runs, with the machine, the commits and the steps; :func:`mfattn.implicit.trained.restore` then restores a run trained by the old code under
today's digest. A single differing bit refuses the link (the runs must be retrained).

Why not compare with the stored logs directly: those were written on another CPU, whose vector kernels round
differently (the loss of blog-seed0 differs by 2.4e-7 after 30 steps on this one), so only old and new code on
one machine give a bit-level answer.

What a link shows, and what it does not: the replay covers the arithmetic every training step shares (model,
layer, solver forward and implicit backward, Adam), in the trainer that trained each run, up to the last replayed
step, and the forward pass of the trained weights. It does not run the steps after the replayed ones, or a resumed
run. A change that acts only there must be argued apart: each link carries the certifier's statement of what
changed (``change``) and what it replayed (``covers``), and :func:`stored_nonfinite` counts what a raise-only change
on non-finite numbers could have met in the stored runs.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import store
from ..companion.checks import check_strings
from ..companion.machine import cpu_model
from .runs import _LOG_KEYS

__all__ = ["LINEAGE", "LOG_KEYS", "TRAINED_KEYS", "MIN_STEPS", "MIN_EVAL_IMAGES", "load_lineage", "reaches",
           "compare_logs", "ensemble_groups", "certify", "stored_nonfinite", "lineage_text", "main"]

#: The file, beside the stored runs' index, that holds the certified links between code digests.
LINEAGE = "lineage.json"
#: The least a link must have replayed to be certified: steps of every run, test images of each initial model.
MIN_STEPS, MIN_EVAL_IMAGES = 100, 1000
#: The per-step logs a replay compares (``history`` keys of a run), then the initial model's evaluation.
LOG_KEYS = (*_LOG_KEYS, "eval.loss", "eval.accuracy", "eval.pred")

#: What a link made by :func:`certify` replayed (older links covered the first two only, through the solo trainer).
COVERS = ("steps", "initial evaluation", "state after the last step", "trainer that trained the run",
          "stored weights' evaluation")
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


def load_lineage(folder: str | Path) -> list[dict[str, Any]]:
    """The certified links ``[{"from": digest, "to": digest, "steps", "eval_images", "runs", ...}]`` of
    ``folder``/lineage.json ([] when the folder has none).

    ``folder`` must be an existing folder; a ``lineage.json`` that is not a regular file, or a link that is
    incomplete or does not say every run it replayed was identical, is refused (ValueError naming the file)."""
    folder = Path(store.check_path("folder", folder))
    if not folder.is_dir():
        raise NotADirectoryError(f"folder: {folder} is not a folder of stored runs")
    path = folder / LINEAGE
    if not path.exists() and not path.is_symlink():
        return []
    data = store.read_json(path)                   # a regular file only (a folder or FIFO is refused there)
    links = data.get("links") if isinstance(data, dict) else None
    if not isinstance(links, list) or not all(_certified(link) for link in links):
        raise ValueError(f"{path}: not a lineage of certified links ({{'links': [{{'from', 'to', 'steps', "
                         "'eval_images', 'runs': {name: {'identical': true, 'steps': n}}}}]}} expected); restore it "
                         "from the checkout")
    return links


def _certified(link: Any) -> bool:
    """Whether ``link`` is a complete link whose every replayed run was identical."""
    return (isinstance(link, dict) and all(isinstance(link.get(k), str) and link[k] for k in ("from", "to"))
            and all(isinstance(link.get(k), int) and not isinstance(link[k], bool) and link[k] >= floor
                    for k, floor in (("steps", MIN_STEPS), ("eval_images", MIN_EVAL_IMAGES)))
            and isinstance(link.get("runs"), dict) and len(link["runs"]) > 0
            and all(isinstance(r, dict) and r.get("identical") is True and r.get("steps") == link["steps"]
                    for r in link["runs"].values()))


def reaches(code: str, today: str, links: list[dict[str, Any]], run: str | None = None) -> bool:
    """Whether runs trained by ``code`` may stand for today's code ``today``: the same digest, or a chain of
    certified links from one to the other (each link replayed ``run``, when it is given)."""
    if not isinstance(code, str) or not isinstance(today, str):
        raise TypeError(f"code and today must be digests (strings); got {code!r}, {today!r}")
    if not code or not today:
        raise ValueError(f"code and today must be non-empty digests; got {code!r}, {today!r}")
    if not isinstance(links, list):
        raise TypeError(f"links must be a list of certified links (load_lineage); got {type(links).__name__}")
    if not all(_certified(ln) for ln in links):
        raise ValueError("links must hold certified links only (from, to, steps, eval_images, and runs that were "
                         "all identical: load_lineage's); got one that is not")
    if run is not None and not isinstance(run, str):
        raise TypeError(f"run must be None or a run's name; got {run!r}")
    seen, frontier = {code}, [code]
    while frontier:
        current = frontier.pop()
        if current == today:
            return True
        for link in links:
            if link["from"] == current and link["to"] not in seen and (run is None or run in link["runs"]):
                seen.add(link["to"])
                frontier.append(link["to"])
    return False


def compare_logs(old: dict[str, np.ndarray], new: dict[str, np.ndarray], names: list[str],
                 keys: tuple[str, ...] = LOG_KEYS) -> dict[str, Any]:
    """Per run: ``{"identical": bool, "steps": n, "first_difference": key or None, "max_abs_difference": float}``,
    comparing every array of ``keys`` (default :data:`LOG_KEYS`; a certified replay adds :data:`TRAINED_KEYS`) bit
    for bit (NaN equals NaN: a log with no backward solve). Arrays of different shapes (a replay of other length than
    the other, e.g. one cut short) or dtypes differ: not identical, and ``max_abs_difference`` is inf when the shapes
    differ (no element-wise difference exists); ``steps`` counts ``new``'s ``loss``."""
    keys = tuple(check_strings("keys", keys, "log keys"))
    if "loss" not in keys:
        raise ValueError(f"keys must include 'loss' (it counts the replayed steps); got {list(keys)}")
    for label, logs in (("old", old), ("new", new)):
        if not isinstance(logs, dict):
            raise TypeError(f"{label} must be a dict of a replay's arrays ('<run>/<key>'); got {type(logs).__name__}")
    names = check_strings("names", names, "run names")
    for label, logs in (("old", old), ("new", new)):
        lacking = [f"{n}/{k}" for n in names for k in keys if f"{n}/{k}" not in logs]
        if lacking:
            raise ValueError(f"{label} lacks the replay's arrays {lacking[:3]}{'...' if len(lacking) > 3 else ''}")
        bad = [f"{n}/{k}" for n in names for k in keys
               if not isinstance(logs[f"{n}/{k}"], np.ndarray) or logs[f"{n}/{k}"].dtype.kind not in "biuf"]
        if bad:
            raise TypeError(f"{label}[{bad[0]!r}] must be a numeric numpy array (a replay's log); got "
                            f"{type(logs[bad[0]]).__name__}")
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


def stored_nonfinite(folder: str | Path | None = None) -> dict[str, int]:
    """How many stored numbers are NaN or infinite, over every stored run: ``loss`` (training losses),
    ``test_loss`` (evaluations), ``weights`` (final and kept weights), of ``numbers`` in all; and ``residual``, the
    logged forward residuals (the batch's largest, per training step) that are, of ``steps``. All 0 is what makes a raise-only change of
    the training code (``deq.solve`` refusing a map that is NaN or inf at every iterate) unable to have fired on a
    stored trajectory: such a solve would have made that step's loss, or every later weight, non-finite."""
    runs_dir = _runs_dir(folder)
    counts = {"runs": 0, "loss": 0, "test_loss": 0, "weights": 0, "numbers": 0, "residual": 0, "steps": 0}
    for entry in _read_index(runs_dir).values():
        arrays = store.load_npz(store.inside(runs_dir, entry["file"], "index file", nested=False))
        counts["runs"] += 1
        for key, a in arrays.items():
            kind = ("loss" if key == "history.loss" else "test_loss" if key == "history.test_loss" else
                    "weights" if key.startswith(("model.", "kept.")) else None)
            if kind is not None:
                counts[kind] += int((~np.isfinite(a)).sum())
                counts["numbers"] += int(a.size)
            elif key == "history.forward_residual":   # the batch's largest per step: non-finite if one sample's was
                counts["residual"] += int((~np.isfinite(a)).sum())
                counts["steps"] += int(a.size)
    return counts


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


def certify(old_commit: str, change: str, *, steps: int = MIN_STEPS, n_eval: int = MIN_EVAL_IMAGES,
            names: list[str] | None = None, folder: str | Path | None = None) -> dict[str, Any]:
    """Replay the stored runs with the code of ``old_commit`` and with today's; write the link if all agree.

    ``steps`` optimiser steps of each run (``names``: default every run in the index) and the initial model's
    evaluation on ``n_eval`` test images, both codes at once in two single-threaded processes. Returns the link
    (``identical`` per run); it is added to ``lineage.json`` only when every run is identical, and the old code's
    digest must be the stored runs' (ValueError otherwise). ``change`` says, in a sentence, what changed between
    the two codes (kept in the link: the replay shows that the shared arithmetic did not move; what changed, and
    why the stored runs cannot have met it, is the certifier's statement)."""
    import torch

    from ..companion.checks import check_int
    from .runs import code_version

    if not isinstance(change, str) or len(change.strip()) < 20:
        raise ValueError(f"change must say in a sentence what changed between the two codes; got {change!r:.80}")
    check_int("steps", steps, MIN_STEPS, 2000)
    check_int("n_eval", n_eval, MIN_EVAL_IMAGES, 10_000)
    runs_dir = _runs_dir(folder)
    stored_runs = _read_index(runs_dir)
    names = sorted(stored_runs) if names is None else check_strings("names", names, "run names")
    unknown = sorted(set(names) - set(stored_runs))
    if unknown:
        raise ValueError(f"names: {unknown} are not stored runs; stored: {sorted(stored_runs)}")
    every = {n: stored_runs[n]["config"].get("checkpoint_every") for n in names}
    off = sorted(n for n, c in every.items() if not (isinstance(c, int) and c > 0 and steps % c == 0))
    if off:   # the state after the last step is read from the checkpoint the trainer writes there
        raise ValueError(f"steps must be a multiple of every replayed run's checkpoint_every; {steps} is not for "
                         f"{off[:3]} (checkpoint_every {every[off[0]]!r})")
    trained_as = {n: _summary(runs_dir, stored_runs[n]).get("ensemble") for n in names}
    solo, groups = ensemble_groups({n: {**stored_runs[n], "ensemble": trained_as[n]} for n in names})
    root = store.project_root()
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{old_commit}^{{commit}}"], cwd=root, text=True,
                            capture_output=True)
    if commit.returncode != 0:
        raise ValueError(f"old_commit: {old_commit!r} is not a commit of {root}")
    commit_id = commit.stdout.strip()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, text=True, capture_output=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="mfattn-replay-") as tmp:
        tmp_path = Path(tmp)
        old_tree = tmp_path / "old"
        subprocess.run(["git", "worktree", "add", "--detach", str(old_tree), commit_id], cwd=root, check=True,
                       capture_output=True)
        try:
            jobs = [_replay(old_tree, runs_dir / "index.json", steps, n_eval, solo, groups, tmp_path / "old.npz"),
                    _replay(root, runs_dir / "index.json", steps, n_eval, solo, groups, tmp_path / "new.npz")]
            if any(job.wait() != 0 for job in jobs):
                raise RuntimeError("a replay process failed (its error is printed above)")
            old, new = dict(np.load(tmp_path / "old.npz")), dict(np.load(tmp_path / "new.npz"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=root, capture_output=True)
    stored = {stored_runs[n]["code"] for n in names}
    if stored != {str(old["code"])}:
        raise ValueError(f"old_commit: its training code {old['code']} did not train the stored runs ({sorted(stored)})")
    if str(new["code"]) != code_version():
        raise RuntimeError(f"the replay ran code {new['code']}, not today's {code_version()}")
    runs = compare_logs(old, new, names, LOG_KEYS + TRAINED_KEYS)
    for name in names:
        runs[name]["trainer"] = "solo" if name in solo else "ensemble"
    link = {"from": str(old["code"]), "to": str(new["code"]), "change": change.strip(), "from_commit": commit_id,
            "to_commit": head,
            "steps": steps, "eval_images": n_eval, "machine": platform.machine(),
            "cpu": cpu_model(), "torch": torch.__version__,
            "made": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "covers": list(COVERS),
            "runs": runs}
    if all(r["identical"] for r in runs.values()):
        links = [ln for ln in load_lineage(runs_dir) if (ln["from"], ln["to"]) != (link["from"], link["to"])]
        store.atomic_write_json(runs_dir / LINEAGE, {"links": [*links, link]})
    return link


def _steps_per_epoch(config: dict[str, Any]) -> int:
    """A stored configuration's optimiser steps per epoch (the full training set of 60,000 images by default)."""
    return int(config.get("steps_per_epoch") or -(-int(config.get("train_limit") or 60_000)
                                                  // int(config.get("batch_size") or 60)))


def _link_text(ln: dict[str, Any], total: list[int] | None = None, first_event: int | None = None) -> str:
    """What one certified link replayed, in words (a link made before :data:`COVERS` replayed the solo loop only);
    ``total``: the stored runs' lengths in steps, to say how much of them the replayed steps are; ``first_event``: the
    first step at which any run ends an epoch, evaluates, snapshots or keeps weights (what the replay does not reach
    when it stops before)."""
    where = f"({ln.get('cpu', 'a CPU not named')}, torch {ln.get('torch', '?')}, {str(ln.get('made', ''))[:10]})"
    if "covers" not in ln:
        return (f"{ln['from']} → {ln['to']}: solo replays of all {len(ln['runs'])} runs' first {ln['steps']} "
                f"optimiser steps give bit-identical logged summaries (loss, batch accuracy, the solver's iterations, "
                f"residual and converged fraction) under both codes, and so does an evaluation of each initial "
                f"(untrained) model on {ln['eval_images']} test images {where}")
    trainers = [r.get("trainer") for r in ln["runs"].values()]
    of = (f" of {total[0]:,}" if len(total) == 1 else f" of {total[0]:,}-{total[-1]:,}") if total else ""
    return (f"{ln['from']} → {ln['to']}: replays of all {len(ln['runs'])} runs' first {ln['steps']}{of} optimiser steps"
            + (" (before any epoch's end, periodic evaluation, snapshot or kept-weight save)"
               if first_event is not None and ln["steps"] < first_event else "") +
            f", each through the trainer that trained it ({trainers.count('ensemble')} as members of the ensembles they "
            f"were trained in, {trainers.count('solo')} solo), give under both codes bit-identical logged "
            f"summaries (loss, batch accuracy, the solver's iterations, residual and converged fraction), the "
            f"trainer's checkpoint after step {ln['steps']} (weights, Adam state, logs and the step-0 evaluation on "
            f"the whole test set), and evaluations (loss, accuracy, every prediction) of each initial "
            f"model, each stored final weight set and every kept weight set on the first {ln['eval_images']:,} test "
            f"images (the stored evaluations used the whole test set), on one machine {where}; the runs were trained on "
            f"another. Not replayed: the later steps, resuming from a checkpoint, a GPU")


def lineage_text(folder: str | Path | None = None) -> str:
    """One sentence for the book: which code trained the stored runs and what links it to today's."""
    from .runs import code_version
    runs_dir = _runs_dir(folder)
    stored_runs = _read_index(runs_dir)
    if not stored_runs:
        return "no run is stored"
    codes = sorted({e["code"] for e in stored_runs.values()})
    today, links = code_version(), load_lineage(runs_dir)
    if codes == [today]:
        return f"the {len(stored_runs)} stored runs were trained by today's training code ({today})"
    chain = [ln for ln in links if ln["to"] == today]
    bad = stored_nonfinite(runs_dir)
    ok = all(reaches(e["code"], today, links, n) for n, e in stored_runs.items())
    changes = " ".join(ln.get("change", "") for ln in chain)
    total = sorted({int(e["config"].get("epochs") or 0) * _steps_per_epoch(e["config"]) for e in stored_runs.values()})
    first = min(v for e in stored_runs.values() for v in (*(e["config"].get(k) for k in (
        "snapshot_every", "eval_every", "weights_every")), _steps_per_epoch(e["config"])) if v)
    return (f"the {len(stored_runs)} stored runs were trained by the training code {', '.join(codes)}; what today's "
            f"({today}) changed: {changes or 'not stated'} Of the runs' {bad['numbers']:,} stored losses, "
            f"evaluation losses and weights, {bad['loss'] + bad['test_loss'] + bad['weights']} are non-finite, and "
            f"of their {bad['steps']:,} logged forward residuals (the batch's largest, per training step), "
            f"{bad['residual']}. A replay checks the arithmetic the codes share: "
            f"{'; '.join(_link_text(ln, total, first) for ln in chain) or 'no link'}"
            if ok else f"the stored runs were trained by code {', '.join(codes)}, and no certified replay links it to "
            f"today's ({today}): they must be trained again")


def main(argv: list[str] | None = None) -> int:
    """``python -m mfattn.implicit.replay --certify COMMIT [--steps N]``: certify today's training code."""
    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.replay", description=main.__doc__)
    parser.add_argument("--certify", required=True, metavar="COMMIT", help="the commit whose code trained the runs")
    parser.add_argument("--change", required=True, help="what changed between the two codes, in a sentence")
    parser.add_argument("--steps", type=int, default=MIN_STEPS, help=f"optimiser steps replayed per run (default "
                        f"and least {MIN_STEPS})")
    parser.add_argument("--eval-images", type=int, default=MIN_EVAL_IMAGES, help="test images of the initial evaluation")
    parser.add_argument("--runs", nargs="*", help="run names (default: every stored run)")
    args = parser.parse_args(argv)
    link = certify(args.certify, args.change, steps=args.steps, n_eval=args.eval_images, names=args.runs)
    differ = {n: r for n, r in link["runs"].items() if not r["identical"]}
    print(f"{link['from']} -> {link['to']}: {len(link['runs']) - len(differ)} of {len(link['runs'])} runs identical "
          f"over {link['steps']} steps" + (f"; differ: {differ}" if differ else "; link written"))
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())
