"""Trained runs as data: chapter 2's full-profile MNIST runs kept in the repository, read back with no pickle.

A finished run (:class:`mfattn.implicit.runs.TrainResult`: ``model.pt``, ``history.npz``, the weights kept over
training and ``result.json`` in the training cache) is written to one ``.npz`` of numbers and strings::

    model.<parameter>      the final weights (float32, the solo run's shapes)
    kept.<parameter>       (K, ...) the weights kept over training, at the steps ``kept_step`` (K,)
    history.<key>          the run's logs (:class:`TrainResult` ``history``)
    summary                the run's ``result.json`` summary, as a JSON string (its configuration included)
    code                   :func:`mfattn.implicit.runs.code_version` of the code that trained it

``data/full/deq/runs/index.json`` lists every file with its SHA-256, job, seed and code. :func:`restore` checks
the hash, refuses a file whose code is not today's (training code changed since: the run would have to be
trained again) unless a certified replay links the two (:mod:`mfattn.implicit.replay`: the old and today's code
train every stored run's first steps bit-identically on one machine), and writes the run back into the training cache exactly where :func:`train_mnist` looks, so the
chapter's analyses (stability, gradient check, learned correction, organisation) re-run from the stored
weights without retraining. ``python -m mfattn.implicit.trained --export`` writes the files from the cache
(never trains); ``--restore`` fills the cache from them.
"""

from __future__ import annotations

import argparse
import io
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..companion import caches, store
from .replay import LINEAGE, load_lineage, reaches
from .variants import _run_device
from .runs import TrainConfig, TrainResult, _check_device, _entry_key, code_version, finished_result, run_dir

__all__ = ["run_arrays", "export_run", "export_finished", "restore", "runs_folder", "main"]


def runs_folder(root: str | Path | None = None) -> Path:
    """``<project>/data/full/deq/runs`` (or ``root``/data/full/deq/runs)."""
    base = store.check_path("root", root) if root is not None else store.project_root()
    if root is not None and base.exists() and not base.is_dir():
        raise ValueError(f"root must be a project folder (a directory); {base} is "
                         f"{'a regular file' if base.is_file() else 'not a directory'}")
    if base is None:
        raise FileNotFoundError("no project folder found for data/full/deq/runs (pass root=)")
    return base / "data" / "full" / "deq" / "runs"


def run_arrays(result: TrainResult) -> dict[str, np.ndarray]:
    """The arrays of one finished run (see the module docstring), read from its cache folder."""
    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be a TrainResult; got {type(result).__name__}")
    out: dict[str, np.ndarray] = {}
    final = torch.load(result.folder / "model.pt", map_location="cpu", weights_only=True)
    out.update({f"model.{k}": v.numpy() for k, v in final.items()})
    steps = result.weight_steps()
    if steps:
        kept = [torch.load(result.folder / "weights" / f"step_{s:06d}.pt", map_location="cpu", weights_only=True)
                for s in steps]
        out.update({f"kept.{k}": np.stack([w[k].numpy() for w in kept]) for k in kept[0]})
    out["kept_step"] = np.asarray(steps, dtype=np.int64)
    out.update({f"history.{k}": np.asarray(v) for k, v in result.history.items()})
    out["summary"] = np.asarray(json.dumps(result.summary, sort_keys=True))
    out["code"] = np.asarray(code_version())
    return out


def export_run(result: TrainResult, path: str | Path) -> dict[str, Any]:
    """Write ``result`` to ``path`` (atomically); its index entry (file name, SHA-256, seed, code)."""
    path = Path(path)
    store.atomic_save_npz(path, **run_arrays(result))
    return {"file": path.name, "sha256": store.sha256_file(path), "seed": result.config.seed,
            "config": result.config.to_dict(), "code": code_version(), "test_accuracy": result.test_accuracy}


def export_finished(sizes: dict[str, Any], folder: str | Path, device: str = "cpu") -> dict[str, Any]:
    """Export every finished run of Chapter 2's job table (:func:`mfattn.implicit.prepare.jobs`) to ``folder`` and
    write ``index.json``; runs not finished are listed under ``"missing"`` (never trained here)."""
    from .prepare import _check_sizes, run_names

    _check_sizes(sizes)
    _run_device(device)
    folder = store.check_target_folder(folder, "folder")   # a path (not None), and never the root or a system folder
    folder.mkdir(parents=True, exist_ok=True)
    index: dict[str, Any] = {"runs": {}, "missing": []}
    old = store.read_json(folder / "index.json") if (folder / "index.json").is_file() else None
    for name, config in run_names(sizes).items():
        result = finished_result(config, device)
        previous = (old or {}).get("runs", {}).get(name) if isinstance(old, dict) else None
        target = folder / f"{name}.npz"
        kept = isinstance(previous, dict) and target.is_file() and store.sha256_file(target) == previous.get("sha256")
        if result is None:
            # not trained on this machine: a run already exported there stays listed (an export never drops a stored
            # run: `--export` on a fresh machine emptied the stored index of 36 runs)
            if kept:
                index["runs"][name] = previous
            else:
                index["missing"].append(name)
            continue
        if previous and previous.get("code") == code_version() and target.is_file() \
                and store.sha256_file(target) == previous["sha256"]:
            index["runs"][name] = previous          # already exported from the same code: kept as it is
        else:
            index["runs"][name] = export_run(result, target)
    store.atomic_write_json(folder / "index.json", index)
    return index


def _write_run(arrays: dict[str, np.ndarray], config: TrainConfig, device: str) -> TrainResult:
    folder = run_dir(config, device)
    folder.mkdir(parents=True, exist_ok=True)

    def save(name: str, state: dict[str, np.ndarray]) -> None:
        buf = io.BytesIO()
        torch.save({k: torch.from_numpy(np.array(v)) for k, v in state.items()}, buf)
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        store.atomic_write_bytes(folder / name, buf.getvalue())

    save("model.pt", {k[6:]: v for k, v in arrays.items() if k.startswith("model.")})
    parts = ["history.npz", "model.pt"]
    kept = {k[5:]: v for k, v in arrays.items() if k.startswith("kept.")}
    for i, step in enumerate(arrays["kept_step"].tolist()):
        parts.append(f"weights/step_{step:06d}.pt")
        save(parts[-1], {k: v[i] for k, v in kept.items()})
    store.atomic_save_npz(folder / "history.npz", **{k[8:]: v for k, v in arrays.items() if k.startswith("history.")})
    summary = json.loads(str(arrays["summary"]))
    summary["restored_from"] = "data/full/deq/runs"
    summary["trained_by_code"] = str(arrays["code"])  # today's may differ: a certified replay links them
    caches.save_cached_json(folder / "result.json", summary, key=_entry_key(folder / "result.json"),
                            code=code_version(), files={name: folder / name for name in parts})
    return finished_result(config, device)


def restore(folder: str | Path | None = None, device: str = "cpu") -> dict[str, TrainResult]:
    """Fill the training cache from the stored runs in ``folder`` (default :func:`runs_folder`); ``{name: result}``
    for every run now in the cache. A file whose SHA-256 differs from its index entry is refused (ValueError naming
    it); a run trained by other code than today's, with no certified replay link to it, is skipped with a warning
    (it must be trained again). A folder without ``index.json`` (a checkout without the stored runs) holds no runs:
    it restores nothing and returns ``{}``, as an index with no runs does. ``device``: ``"cpu"``, ``"cuda"`` or
    ``"cuda:N"`` (the runs are written where a run of that device lives; no CUDA needed)."""
    _check_device(device)
    _run_device(device)
    if folder is not None:
        folder = store.check_path("folder", folder)
        if not folder.is_dir():
            raise NotADirectoryError(f"folder: {folder} is not a folder of stored runs (it holds index.json and the "
                                     "runs' .npz files)")
    folder = runs_folder() if folder is None else folder
    index = store.read_json(folder / "index.json") if (folder / "index.json").is_file() else None
    runs = {} if index is None else (index.get("runs") or {}) if isinstance(index, dict) else None
    if not isinstance(runs, dict) or not all(isinstance(e, dict) and {"config", "file", "sha256"} <= set(e)
                                             for e in runs.values()):
        raise ValueError(f"{folder / 'index.json'}: not an index of stored runs ({{'runs': {{name: {{'config', 'file', "
                         "'sha256', 'code'}}}}}} expected); restore it from the checkout")
    out: dict[str, TrainResult] = {}
    links, today = load_lineage(folder), code_version()
    for name, entry in runs.items():
        config = TrainConfig.from_dict(entry["config"])
        if not reaches(str(entry.get("code")), today, links, name):
            warnings.warn(f"{folder / entry['file']}: trained by other code ({entry.get('code')}, today {today}, "
                          f"and no certified replay links the two: {LINEAGE}); not restored",
                          caches.CacheWarning, stacklevel=2)
            continue
        found = finished_result(config, device)
        if found is None:
            path = store.inside(folder, entry["file"], "index file", nested=False)
            if store.sha256_file(path) != entry["sha256"]:
                raise ValueError(f"{path}: its SHA-256 differs from index.json's; refusing a changed file")
            arrays = store.load_npz(path)
            if str(arrays.get("code")) != str(entry.get("code")):
                raise ValueError(f"{path}: its code ({arrays.get('code')}) is not its index entry's")
            trained_on = str(json.loads(str(arrays["summary"])).get("device", "cpu")).split(":")[0]
            if trained_on != torch.device(device).type:   # CPU and CUDA runs differ in the last bits (runs.run_dir)
                raise ValueError(f"device: {path} was trained on {trained_on}; restoring it as a {device} run would "
                                 f"put it where a {device} run's results live (restore with device='{trained_on}')")
            found = _write_run(arrays, config, device)
        out[name] = found
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m mfattn.implicit.trained (--export | --restore)``: the full profile's runs."""
    from ..companion.profiles import get_profile

    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.trained", description=main.__doc__)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--export", action="store_true", help="write the finished runs to data/full/deq/runs")
    action.add_argument("--restore", action="store_true", help="fill the training cache from data/full/deq/runs")
    args = parser.parse_args(argv)
    if args.export:
        index = export_finished(get_profile("deq", "full"), runs_folder())
        print(f"{len(index['runs'])} runs stored; not finished: {', '.join(index['missing']) or 'none'}")
    else:
        print(f"{len(restore())} runs in the training cache")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
