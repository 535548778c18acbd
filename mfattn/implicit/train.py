"""Training the MNIST mean-field model: resumable, deterministic, cached.

One call, :func:`train_mnist`, runs the blog's protocol (Adam, lr 5e-4, batch 60) or a
shortened version of it, and returns a :class:`TrainResult` with the learning curves,
the solver's iteration counts, snapshots of the coupling norms ||J_ij||_F and the test
predictions. Guarantees:

* **Deterministic.** The initial weights depend only on ``seed``; the order of the training
  examples in epoch ``e`` only on ``(seed, e)``. On CPU a run is bit-reproducible.
* **Resumable.** A checkpoint (weights, optimiser state, position, logs) is written
  atomically at the end of every epoch and, optionally, every ``checkpoint_every``
  steps. A run that is interrupted (killed, Ctrl-C, a crash) and started again with
  the same configuration continues from its last checkpoint and ends with exactly the
  weights an uninterrupted run would have.
* **Cached.** Results live in ``cache_dir("deq", "mnist", <hash of the config and of the
  code>)``; a finished run with the same configuration and code is loaded instead of recomputed.

This module is the training loop (and ``python -m mfattn.implicit.train``). The run's configuration,
folder, checkpoints and results are :mod:`mfattn.implicit.runs`; evaluation and the readings of a
run's logs are :mod:`mfattn.implicit.evaluation`. Their public names are importable from here too.
"""

from __future__ import annotations

import argparse
import io
import math
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import torch
import torch.nn.functional as F

from ..companion import caches, store
from .evaluation import _convergence_warning, _coupling_norms, confusion_matrix, evaluate, settling_curve
from .mnist import load_mnist
from .models import build_model
from .runs import (_EVAL_KEYS, _LOG_KEYS, RESULT_VERSION, TrainConfig, TrainResult, _entry_key, _load_checkpoint,
                   _load_result, _save_checkpoint, _save_weights, _weights_path, code_version, finished_result,
                   run_dir, run_progress)
from ..companion.checks import check_bool, contract

__all__ = ["TrainConfig", "TrainResult", "TrainingInterrupted", "train_mnist", "make_optimizer", "evaluate",
           "confusion_matrix", "epoch_order", "run_dir", "VARIANTS", "profile_config", "settling_curve",
           "run_progress", "code_version", "finished_result", "main"]


class TrainingInterrupted(RuntimeError):
    """Raised by ``interrupt_after`` (a test aid that simulates a crash after a given step)."""


@contract(n="int:1", seed="int:0", epoch="int:0", alloc=lambda a: [("n", 8 * a["n"])])
def epoch_order(n: int, seed: int, epoch: int) -> torch.Tensor:
    """The permutation of ``n`` training examples used in ``epoch`` (depends only on seed and epoch; numpy integers
    are read as the Python integers they hold)."""
    gen = torch.Generator().manual_seed(1_000_003 * int(seed) + int(epoch))
    return torch.randperm(n, generator=gen)


@contract(lr="real:>0")
def make_optimizer(model: torch.nn.Module, lr: float) -> torch.optim.Optimizer:
    """Adam at ``lr`` with the fused kernel (one call updates every parameter tensor).

    Same update rule as ``torch.optim.Adam``'s default loop; for a 26k-parameter model the
    per-tensor loop costs more than the arithmetic (benchmarks/bench_mnist_step.py).
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    if next(model.parameters(), None) is None:
        raise ValueError(f"model must have parameters to optimise; got a {type(model).__name__} without any")
    return torch.optim.Adam(model.parameters(), lr=lr, fused=True)


def train_mnist(config: TrainConfig | None = None, *, data_root=None, device: str | torch.device = "cpu",
                folder: str | Path | None = None, use_cache: bool = True, progress: bool | None = None,
                interrupt_after: int | None = None,
                callback: Callable[[int, dict[str, float]], None] | None = None) -> TrainResult:
    """Train :class:`mfattn.implicit.models.MeanFieldMNIST` on MNIST with ``config``; resume or load if possible.

    Parameters
    ----------
    config : the run's :class:`TrainConfig` (default: the blog's full protocol).
    data_root : MNIST folder (see :func:`mfattn.implicit.mnist.load_mnist`).
    device : where to train; ``"cuda"`` for the full profile on a GPU.
    folder : where checkpoints and results go (default :func:`run_dir`).
    use_cache : return a finished result with the same configuration without training;
        with ``False`` any stored result or checkpoint is ignored and overwritten.
    progress : show a tqdm bar (None: only on a terminal).
    interrupt_after : test aid; raise :class:`TrainingInterrupted` right after this global
        step, keeping only what the checkpoints saved, as a killed process would.
    callback : called as ``callback(step, log)`` after every optimiser step.
    """
    from tqdm import tqdm

    config = config or TrainConfig()
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    device = torch.device(device)
    folder = Path(folder) if folder is not None else run_dir(config, device)
    folder.mkdir(parents=True, exist_ok=True)
    found = _load_result(folder) if use_cache else None  # verified; a failing entry is recomputed (with a warning)
    if found is not None:
        return found

    train = load_mnist("train", data_root, limit=config.train_limit)
    test = load_mnist("test", data_root, limit=config.test_limit)
    x_train, y_train = train.tensors()
    x_test, y_test = test.tensors()
    n = len(y_train)
    batches_per_epoch = n // config.batch_size  # the last, partial batch is dropped
    if batches_per_epoch < 1:
        raise ValueError(f"train_limit={config.train_limit} gives fewer examples ({n}) than one batch "
                         f"(batch_size={config.batch_size})")
    steps_per_epoch = min(batches_per_epoch, config.steps_per_epoch or batches_per_epoch)

    model = build_model(config.seed, dim=config.dim, channels=config.channels, **config.attention).to(device)
    optimizer = make_optimizer(model, config.lr)
    logs = {k: [] for k in _LOG_KEYS}
    evals = {k: [] for k in _EVAL_KEYS}
    snapshots: list[np.ndarray] = [_coupling_norms(model)]
    snapshot_steps = [0]
    epoch, step_in_epoch, elapsed = 0, 0, 0.0

    ckpt_path = folder / "checkpoint.pt"
    state = _load_checkpoint(ckpt_path) if use_cache and ckpt_path.is_file() else None
    if state is not None:
        if state["config"] != config.to_dict():
            raise ValueError(f"{ckpt_path} was written for another configuration; delete it or pass "
                             f"use_cache=False")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        logs, evals = state["logs"], state["evals"]
        snapshots, snapshot_steps = [t.numpy() for t in state["snapshots"]], state["snapshot_steps"]
        epoch, step_in_epoch, elapsed = state["epoch"], state["step_in_epoch"], state["elapsed"]

    def checkpoint() -> None:
        _save_checkpoint(ckpt_path, {
            "config": config.to_dict(), "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "logs": logs, "evals": evals, "snapshots": [torch.from_numpy(np.asarray(a)) for a in snapshots],
            "snapshot_steps": snapshot_steps,
            "epoch": epoch, "step_in_epoch": step_in_epoch, "elapsed": elapsed + time.perf_counter() - t0})

    def run_eval(step: int) -> None:
        res = evaluate(model, x_test, y_test, config.eval_batch_size)
        for k, v in zip(_EVAL_KEYS, (step, epoch + step_in_epoch / steps_per_epoch, res["loss"],
                                     res["accuracy"])):
            evals[k].append(v)

    t0 = time.perf_counter()
    if not evals["eval_step"]:
        run_eval(0)  # the untrained model: the start of the test curve
        if config.weights_every:
            _save_weights(folder, 0, model)
    total = config.epochs * steps_per_epoch
    bar = tqdm(total=total, initial=epoch * steps_per_epoch + step_in_epoch, disable=progress is False if
               progress is not None else None, desc="train", unit="step", leave=False)
    model.train()
    try:
        while epoch < config.epochs:
            order = epoch_order(n, config.seed, epoch)
            while step_in_epoch < steps_per_epoch:
                idx = order[step_in_epoch * config.batch_size:(step_in_epoch + 1) * config.batch_size]
                xb, yb = x_train[idx].to(device), y_train[idx].to(device)
                optimizer.zero_grad(set_to_none=True)
                with warnings.catch_warnings():
                    # Unconverged solves are logged per step (forward_converged, residuals)
                    # instead of warning 1000 times an epoch.
                    warnings.simplefilter("ignore", _convergence_warning())
                    logits = model(xb)
                    loss = F.cross_entropy(logits, yb)
                    loss.backward()
                optimizer.step()
                step_in_epoch += 1
                step = epoch * steps_per_epoch + step_in_epoch

                stats = model.attention.last_stats
                fwd, bwd = stats.get("forward"), stats.get("backward")
                log = {"loss": loss.item(),
                       "batch_accuracy": (logits.argmax(1) == yb).double().mean().item(),
                       "forward_iterations": float(fwd.iterations.double().mean()) if fwd is not None else np.nan,
                       "backward_iterations": float(bwd.iterations.double().mean()) if bwd is not None else np.nan,
                       "forward_residual": float(fwd.residual.double().max()) if fwd is not None else np.nan,
                       "forward_converged": float(fwd.converged.double().mean()) if fwd is not None else np.nan}
                for k in _LOG_KEYS:
                    logs[k].append(log[k])
                if step % config.snapshot_every == 0:
                    snapshots.append(_coupling_norms(model))
                    snapshot_steps.append(step)
                if config.eval_every and step % config.eval_every == 0 and step_in_epoch < steps_per_epoch:
                    run_eval(step)
                if config.weights_every and step % config.weights_every == 0:
                    _save_weights(folder, step, model)
                bar.update(1)
                bar.set_postfix(epoch=epoch + 1, loss=f"{log['loss']:.3f}",
                                fwd_it=f"{log['forward_iterations']:.1f}",
                                bwd_it=f"{log['backward_iterations']:.1f}")
                if callback is not None:
                    callback(step, log)
                if config.checkpoint_every and step % config.checkpoint_every == 0 \
                        and step_in_epoch < steps_per_epoch:
                    checkpoint()
                if interrupt_after is not None and step >= interrupt_after:
                    raise TrainingInterrupted(f"interrupted after step {step} (interrupt_after)")
            run_eval(epoch * steps_per_epoch + step_in_epoch)
            epoch, step_in_epoch = epoch + 1, 0
            checkpoint()
    finally:
        bar.close()

    total_steps = config.epochs * steps_per_epoch
    if snapshot_steps[-1] != total_steps:
        snapshots.append(_coupling_norms(model))
        snapshot_steps.append(total_steps)
    if config.weights_every and not _weights_path(folder, total_steps).is_file():
        _save_weights(folder, total_steps, model)
    final = evaluate(model, x_test, y_test, config.eval_batch_size)
    wall = elapsed + time.perf_counter() - t0
    history = {**{k: np.asarray(v, dtype=np.float64) for k, v in logs.items()},
               **{k: np.asarray(v, dtype=np.float64) for k, v in evals.items()},
               "snapshot_step": np.asarray(snapshot_steps), "coupling_norms": np.stack(snapshots),
               "test_labels": y_test.numpy(), "test_pred": final["pred"]}
    counts = model.parameter_counts()
    summary = {"config": config.to_dict(), "test_accuracy": final["accuracy"],
               "test_loss": final["loss"] if math.isfinite(final["loss"]) else None,  # standard JSON: no NaN
               "steps": total_steps, "steps_per_epoch": steps_per_epoch, "train_examples": n,
               "test_examples": len(y_test), "wall_time_s": wall, "device": str(device),
               "parameters_raw": counts["raw"], "parameters_effective": counts["effective"],
               "mean_forward_iterations": float(np.nanmean(history["forward_iterations"])),
               "mean_backward_iterations": float(np.nanmean(history["backward_iterations"]))
               if np.isfinite(history["backward_iterations"]).any() else None,
               "torch": torch.__version__, "version": RESULT_VERSION}
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    store.atomic_write_bytes(folder / "model.pt", buf.getvalue())
    store.atomic_save_npz(folder / "history.npz", **history)
    parts = ["history.npz", "model.pt", *(p.relative_to(folder).as_posix() for p in sorted(folder.glob("weights/step_*.pt")))]
    # written last: marks the run finished, and records the SHA-256 of every part (checked when it is loaded)
    caches.save_cached_json(folder / "result.json", summary, key=_entry_key(folder / "result.json"),
                            code=code_version(), files={name: folder / name for name in parts})
    return TrainResult(config, history, summary, folder)


#: The variant table of the chapter: attention options changed from the blog's model.
VARIANTS: dict[str, dict[str, Any]] = {
    "blog model (correction on g)": {},
    "correction on m": {"correction": "m"},
    "naive mean field (no correction)": {"lin_response": False},
    "plain iteration instead of Anderson": {"solver": "plain"},
    "phantom gradient instead of implicit": {"grad": "phantom"},
}


_PROFILE_KEYS = ("steps_per_epoch", "epochs", "train_limit", "test_limit", "snapshot_every", "eval_every")


def profile_config(sizes: dict[str, Any], seed: int = 0, *, variant: bool = False,
                   **attention: Any) -> TrainConfig:
    """The :class:`TrainConfig` of the chapter's MNIST run for profile ``sizes`` (from
    :func:`mfattn.companion.profiles.get_profile`). ``variant=True`` uses the variant table's length
    (``variant_steps`` steps of one epoch when set, else the full protocol). Without ``variant_steps`` the
    blog model's row of the variant table is the chapter's run itself (same training: test evaluations and
    kept weights do not change it), so it is not trained twice.

    The notebook and ``python -m mfattn.implicit.train`` both build their runs here, so a training run
    started from the command line fills the same cache the notebook reads.
    """
    if not isinstance(sizes, Mapping):
        raise TypeError(f"sizes must be a profile's sizes (a dict from get_profile('deq', ...)); "
                        f"got {type(sizes).__name__}")
    missing = [k for k in _PROFILE_KEYS if k not in sizes]
    if missing:
        raise ValueError(f"sizes lacks {missing}: expected a profile's sizes from get_profile('deq', ...)")
    variant = check_bool("variant", variant)
    steps = sizes["steps_per_epoch"]
    epochs = sizes["epochs"]
    if variant and not attention and not sizes.get("variant_steps"):
        variant = False  # the blog model over the full protocol: the chapter's own run
    if variant and sizes.get("variant_steps"):
        steps, epochs = sizes["variant_steps"], 1
    return TrainConfig(epochs=epochs, seed=seed, train_limit=sizes["train_limit"],
                       test_limit=sizes["test_limit"], steps_per_epoch=steps,
                       snapshot_every=sizes["snapshot_every"],
                       eval_every=None if variant else sizes["eval_every"],
                       checkpoint_every=100, attention=dict(attention),  # a mid-run checkpoint every ~20 s
                       weights_every=None if variant else sizes["eval_every"])


def main(argv: list[str] | None = None) -> int:
    """``python -m mfattn.implicit.train [--profile full] [--seed S ...] [--variants] [--device cuda]``.

    Trains the chapter's MNIST runs into the cache the notebook reads (resuming any
    interrupted run), so the full profile can be prepared ahead of ``mfattn reproduce``.
    """
    from ..companion.profiles import get_profile, resolve_device
    parser = argparse.ArgumentParser(prog="python -m mfattn.implicit.train", description=main.__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick", choices=("quick", "full"))
    parser.add_argument("--seed", type=int, nargs="*", default=None, help="seeds (default: the profile's)")
    parser.add_argument("--variants", action="store_true", help="also train the variant table (first seed)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--data", default=None, help="MNIST folder (default: $MFATTN_DATA or data/mnist)")
    parser.add_argument("--progress", metavar="JSON", nargs="?", const="-", default=None,
                        help="do not train: report how far each seed's run got (to JSON if a path is given)")
    parser.add_argument("--folder", default=None,
                        help="with one --seed: the run's folder (default: the cache folder of the current code)")
    args = parser.parse_args(argv)
    if args.threads < 1:   # torch's own refusal names set_num_threads, not the option
        parser.error(f"--threads must be a positive integer; got {args.threads}")
    try:  # a user error (a negative seed, no MNIST copy offline) is one line, no traceback
        torch.set_num_threads(args.threads)
        sizes, device = get_profile("deq", args.profile), resolve_device(args.device)
        seeds = args.seed or sizes["seeds"]
        if args.progress is not None:
            if args.folder is not None and len(seeds) != 1:
                parser.error("--folder needs exactly one --seed")
            if args.progress != "-":
                store.check_file_target(args.progress, "--progress")
            if args.folder is not None and Path(args.folder).exists() and not Path(args.folder).is_dir():
                raise NotADirectoryError(f"--folder: {args.folder} is not a folder")
            report = {f"seed {s}": run_progress(profile_config(sizes, s), device, folder=args.folder) for s in seeds}
            if args.progress == "-":
                for name, rep in report.items():
                    if rep is None:
                        print(f"{name}: not started")
                        continue
                    acc = rep["evals"]["test_accuracy"]
                    print(f"{name}: {'finished' if rep['finished'] else 'in progress'}, {rep['epochs_done']}/"
                          f"{rep['epochs']} epochs, {rep['steps_done']} steps, last test accuracy "
                          f"{acc[-1] if acc else float('nan'):.4f}, {rep['seconds']:.0f} s")
            else:
                store.atomic_write_json(args.progress, {"profile": args.profile, "runs": report})
            return 0
        for seed in seeds:
            res = train_mnist(profile_config(sizes, seed), data_root=args.data, device=device)
            print(f"seed {seed}: test accuracy {res.test_accuracy:.4f} ({res.folder})", flush=True)
        if args.variants:
            for name, options in VARIANTS.items():
                res = train_mnist(profile_config(sizes, seeds[0], variant=True, **options), data_root=args.data,
                                  device=device)
                print(f"{name}: test accuracy {res.test_accuracy:.4f} ({res.folder})", flush=True)
        return 0

    except (ValueError, RuntimeError, OSError) as err:  # one line on stderr, exit 2 (no usage text)
        parser.exit(2, f"{parser.prog}: error: {err}\n")

if __name__ == "__main__":
    raise SystemExit(main())
