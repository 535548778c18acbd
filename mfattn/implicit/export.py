"""The stored CPU run of Chapter 2's full protocol: a finished training run condensed for the repository.

``data/full/deq_mnist_seed0_cpu.npz`` keeps what the chapter plots of one 20-epoch run (seed 0) without
the training cache: the coupling-norm snapshots, the test evaluations, the loss and the solver iterations
averaged over blocks of 100 steps, and the final test predictions. It is written from the cache only
(never trains)::

    python -m mfattn.implicit.export --profile full --seed 0 --out data/full/deq_mnist_seed0_cpu.npz
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import numpy as np

from ..companion.checks_scalars import _seed_option
from ..companion import store
from .train import TrainResult, finished_result, profile_config, run_dir

__all__ = ["condensed_run", "export_run", "main"]

#: Keys of the condensed run, in the stored file's order.
KEYS = ("snapshot_step", "coupling_norms", "eval_step", "test_accuracy", "test_loss", "loss_per_100",
        "forward_iterations_per_100", "backward_iterations_per_100", "test_labels", "test_pred")


def _per_block(x: np.ndarray, block: int = 100) -> np.ndarray:
    """Means over consecutive blocks of ``block`` steps (a last partial block is dropped)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x) // block
    return x[:n * block].reshape(n, block).mean(axis=1)


#: The history's logs of one length each: per optimiser step, per test evaluation, per snapshot, per test digit.
_SAME_LENGTH = (("loss", "forward_iterations", "backward_iterations"), ("eval_step", "test_accuracy", "test_loss"),
                ("snapshot_step", "coupling_norms"), ("test_labels", "test_pred"))


def _check_history(result: Any) -> None:
    """``result`` must be a TrainResult whose history holds every log :func:`condensed_run` reads, the logs of one
    kind (:data:`_SAME_LENGTH`) of one length; a clear error naming ``result.history`` otherwise."""
    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be a TrainResult (a finished run); got {type(result).__name__}")
    h = result.history
    missing = [k for group in _SAME_LENGTH for k in group if k not in h]
    if missing:
        raise ValueError(f"result.history lacks {missing}: expected a finished run's history")
    for group in _SAME_LENGTH:
        lengths = {k: len(h[k]) if hasattr(h[k], "__len__") else None for k in group}
        if len(set(lengths.values())) != 1 or None in lengths.values():
            raise ValueError(f"result.history's logs {list(group)} must have one length (one entry per "
                             f"{'step' if group[0] == 'loss' else 'entry'}); got {lengths}")


def condensed_run(result: TrainResult) -> dict[str, np.ndarray]:
    """The arrays of :data:`KEYS` from a finished run's history (step logs averaged per 100 steps); the history's step
    logs (and its evaluation, snapshot and prediction logs) must each have one length."""
    _check_history(result)
    h = result.history
    return {"snapshot_step": np.asarray(h["snapshot_step"], dtype=np.int64),
            "coupling_norms": np.asarray(h["coupling_norms"], dtype=np.float32),
            "eval_step": np.asarray(h["eval_step"], dtype=np.float64),
            "test_accuracy": np.asarray(h["test_accuracy"], dtype=np.float64),
            "test_loss": np.asarray(h["test_loss"], dtype=np.float64),
            "loss_per_100": _per_block(h["loss"]),
            "forward_iterations_per_100": _per_block(h["forward_iterations"]),
            "backward_iterations_per_100": _per_block(h["backward_iterations"]),
            "test_labels": np.asarray(h["test_labels"], dtype=np.int64),
            "test_pred": np.asarray(h["test_pred"], dtype=np.int64)}


def export_run(profile: str = "full", seed: int = 0, path: Optional[str | Path] = None,
               device: str = "cpu") -> dict[str, Any]:
    """Condense the finished run of ``profile`` and ``seed`` found in the cache and write it to ``path``
    (atomically); raises FileNotFoundError, naming the cache folder, when the run is not finished."""
    from ..companion.checks import check_path
    from ..companion.profiles import get_profile
    from .variants import _run_device

    config = profile_config(get_profile("deq", profile), seed)
    _run_device(device)
    if path is not None:
        check_path("path", path)
    folder = run_dir(config, device)
    result = finished_result(config, device)  # verified; never trains
    if result is None:
        raise FileNotFoundError(f"the {profile} run of seed {seed} is not finished in {folder}, or its stored "
                                f"result fails verification (train it with python -m mfattn.implicit.train "
                                f"--profile {profile} --seed {seed})")
    arrays = condensed_run(result)
    if path is not None:
        store.atomic_save_npz(path, **arrays)
    return arrays


def main(argv: Optional[list[str]] = None) -> int:
    """``python -m mfattn.implicit.export [--profile full] [--seed 0] --out NPZ``: condense a finished run."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.export", description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="full", choices=("quick", "full"))
    parser.add_argument("--seed", type=_seed_option, default=0)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--out", required=True, help="the .npz file to write")
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer; got {args.seed}")
    try:
        store.check_file_target(args.out, "--out")
        arrays = export_run(args.profile, args.seed, args.out, args.device)
    except (OSError, ValueError) as err:  # one line on stderr, exit 2 (no usage text)
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    print(f"wrote {args.out}: final test accuracy {arrays['test_accuracy'][-1]:.4f}, "
          f"{len(arrays['snapshot_step'])} coupling snapshots")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
