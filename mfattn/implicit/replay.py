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
import platform
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import store
from ..companion.checks import check_int, check_strings
from ..companion.machine import cpu_model
# the replay itself lives in a module of its own; re-exported here with its helpers
from .replay_runner import (_RUNNER, LOG_KEYS, TRAINED_KEYS, _read_index, _replay, _runs_dir, _summary, compare_logs,
                            ensemble_groups)
from .runs import _LOG_KEYS

__all__ = ["LINEAGE", "LOG_KEYS", "TRAINED_KEYS", "MIN_STEPS", "MIN_EVAL_IMAGES", "load_lineage", "reaches",
           "compare_logs", "ensemble_groups", "certify", "stored_nonfinite", "lineage_text", "main"]

#: The file, beside the stored runs' index, that holds the certified links between code digests.
LINEAGE = "lineage.json"
#: The least a link must have replayed to be certified: steps of every run, test images of each initial model.
MIN_STEPS, MIN_EVAL_IMAGES = 100, 1000
#: What a link made by :func:`certify` replayed (older links covered the first two only, through the solo trainer).
COVERS = ("steps", "initial evaluation", "state after the last step", "trainer that trained the run",
          "stored weights' evaluation")


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
    if not names or len(set(names)) != len(names):
        raise ValueError(f"names must name each replayed run once (at least one: a link must cover a run); got "
                         f"{names[:5]!r}")
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
    check_int("--steps", args.steps, MIN_STEPS, 2000)   # named as given on the command line, before any work
    check_int("--eval-images", args.eval_images, MIN_EVAL_IMAGES, 10_000)
    link = certify(args.certify, args.change, steps=args.steps, n_eval=args.eval_images, names=args.runs)
    differ = {n: r for n, r in link["runs"].items() if not r["identical"]}
    print(f"{link['from']} -> {link['to']}: {len(link['runs']) - len(differ)} of {len(link['runs'])} runs identical "
          f"over {link['steps']} steps" + (f"; differ: {differ}" if differ else "; link written"))
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())
