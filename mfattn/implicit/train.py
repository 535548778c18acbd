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
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import math
import pickle
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F

from ..companion import caches, store
from .mnist import load_mnist
from .models import ATTENTION_DEFAULTS, build_model

__all__ = ["TrainConfig", "TrainResult", "TrainingInterrupted", "train_mnist", "make_optimizer", "evaluate",
           "confusion_matrix", "epoch_order", "run_dir", "VARIANTS", "profile_config", "settling_curve",
           "run_progress", "code_version", "finished_result", "main"]

#: Bump when the meaning of stored results changes, so old caches are not reused.
RESULT_VERSION = 1


class TrainingInterrupted(RuntimeError):
    """Raised by ``interrupt_after`` (a test aid that simulates a crash after a given step)."""


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run (and hence its cache key).

    ``epochs``, ``batch_size`` and ``lr`` default to the blog's protocol (20 epochs of
    Adam at 5e-4, batch 60). For quick runs, ``train_limit``/``test_limit`` keep the
    first examples of each split and ``steps_per_epoch`` cuts epochs short.
    ``attention`` overrides :data:`mfattn.implicit.models.ATTENTION_DEFAULTS`, e.g.
    ``{"correction": "m"}`` or ``{"grad": "phantom"}``. ``weights_every`` keeps the model's weights at
    step 0, every ``weights_every`` steps and at the end (``weights/step_NNNNNN.pt``, about 160 kB each),
    so the trained layer can be analysed over training (its Jacobian's spectral radius, its correction).
    """

    epochs: int = 20
    batch_size: int = 60
    lr: float = 5e-4
    seed: int = 0
    train_limit: int | None = None
    test_limit: int | None = None
    steps_per_epoch: int | None = None
    dim: int = 10
    channels: int = 32
    attention: dict[str, Any] = field(default_factory=dict)
    snapshot_every: int = 100
    eval_every: int | None = None
    checkpoint_every: int | None = None
    eval_batch_size: int = 1000
    weights_every: int | None = None

    def __post_init__(self) -> None:
        for name in ("epochs", "batch_size", "dim", "channels", "snapshot_every", "eval_batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        for name in ("train_limit", "test_limit", "steps_per_epoch", "eval_every", "checkpoint_every",
                     "weights_every"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise ValueError(f"{name} must be a positive integer or None; got {value!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer; got {self.seed!r}")
        if not (isinstance(self.lr, (int, float)) and self.lr > 0):
            raise ValueError(f"lr must be a positive number; got {self.lr!r}")
        unknown = sorted(set(self.attention) - set(ATTENTION_DEFAULTS) - {"anderson_m", "damping", "weight_init_std"})
        if unknown:
            raise ValueError(f"attention has unknown option(s) {unknown}; known: {sorted(ATTENTION_DEFAULTS)}")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        return cls(**d)


def code_version() -> str:
    """A digest of the code that determines a training result (solver, layer, model, loop): a change
    of solver or layer code (even one that only moves the last bits of a float) gives new cache keys
    instead of stale results."""
    from .. import deq
    from . import meanfield, models

    return store.code_digest(deq, meanfield, models, __file__)


def run_dir(config: TrainConfig, device: torch.device | str = "cpu") -> Path:
    """The cache folder of ``config`` on ``device``'s type (CPU and CUDA results differ in the
    last bits) for the current :func:`code_version`."""
    key = store.config_hash({"config": config.to_dict(), "device": torch.device(device).type,
                             "version": RESULT_VERSION, "code": code_version()})
    return store.cache_dir("deq", "mnist", key)


def epoch_order(n: int, seed: int, epoch: int) -> torch.Tensor:
    """The permutation of ``n`` training examples used in ``epoch`` (depends only on seed and epoch)."""
    gen = torch.Generator().manual_seed(1_000_003 * seed + epoch)
    return torch.randperm(n, generator=gen)


@torch.no_grad()
def evaluate(model, x: torch.Tensor, y: torch.Tensor, batch_size: int = 1000) -> dict[str, Any]:
    """Mean cross-entropy, accuracy and predictions (n,) of ``model`` on ``(x, y)``, in eval mode."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    loss, preds = 0.0, []
    for start in range(0, len(y), batch_size):
        xb, yb = x[start:start + batch_size].to(device), y[start:start + batch_size].to(device)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", _convergence_warning())  # e.g. the plain-iteration variant
            logits = model(xb)
        loss += F.cross_entropy(logits, yb, reduction="sum").item()
        preds.append(logits.argmax(1).cpu())
    model.train(was_training)
    pred = torch.cat(preds)
    return {"loss": loss / len(y), "accuracy": (pred == y).double().mean().item(), "pred": pred.numpy()}


def confusion_matrix(labels: np.ndarray, pred: np.ndarray, classes: int = 10) -> np.ndarray:
    """Counts C[true, predicted] (classes, classes); labels and predictions are integers in [0, classes)."""
    labels, pred = np.asarray(labels), np.asarray(pred)
    if labels.shape != pred.shape or (labels.size and not 0 <= min(labels.min(), pred.min()) <= max(labels.max(), pred.max()) < classes):
        raise ValueError(f"labels and pred must be integers in [0, {classes}) of one shape; got {labels.shape}, {pred.shape}")
    return np.bincount(labels * classes + pred, minlength=classes * classes).reshape(classes, classes)


@dataclass
class TrainResult:
    """What a training run leaves behind (all arrays are numpy).

    ``steps`` log, per optimiser step: ``loss``, ``batch_accuracy``, ``forward_iterations`` and
    ``backward_iterations`` (mean over the batch), ``forward_residual`` (max over the batch),
    ``forward_converged`` (fraction of the batch below tol). ``evals`` log
    ``eval_step``, ``eval_epoch``, ``test_loss``, ``test_accuracy``. ``snapshot_step`` (S,) and
    ``coupling_norms`` (S, N, N) hold ||J_ij||_F during training (first: initialisation, last:
    end). ``test_labels``/``test_pred`` are the final predictions.
    """

    config: TrainConfig
    history: dict[str, np.ndarray]
    summary: dict[str, Any]
    folder: Path

    @property
    def test_accuracy(self) -> float:
        return float(self.summary["test_accuracy"])

    def confusion(self) -> np.ndarray:
        return confusion_matrix(self.history["test_labels"], self.history["test_pred"])

    def load_model(self, device=None):
        """The trained model (weights read from ``model.pt``)."""
        cfg = self.config
        model = build_model(cfg.seed, dim=cfg.dim, channels=cfg.channels, **cfg.attention)
        state = torch.load(self.folder / "model.pt", map_location="cpu", weights_only=True)
        model.load_state_dict(state)
        return model.to(device) if device is not None else model


    def weight_steps(self) -> list[int]:
        """The steps whose weights were kept (``weights_every``), in order; [] when none were."""
        folder = self.folder / "weights"
        return sorted(int(p.stem.split("_")[1]) for p in folder.glob("step_*.pt")) if folder.is_dir() else []

    def load_model_at(self, step: int, device=None):
        """The model with the weights it had after ``step`` optimiser steps (one of :meth:`weight_steps`)."""
        steps = self.weight_steps()
        if step not in steps:
            raise ValueError(f"step must be one of the kept steps {steps[:3]}...{steps[-2:]}; got {step!r}"
                             if steps else f"no weights were kept for this run (weights_every=None); step={step!r}")
        cfg = self.config
        model = build_model(cfg.seed, dim=cfg.dim, channels=cfg.channels, **cfg.attention)
        model.load_state_dict(torch.load(_weights_path(self.folder, step), map_location="cpu", weights_only=True))
        return model.to(device) if device is not None else model


def _coupling_norms(model) -> np.ndarray:
    """(N, N) ||J_ij||_F of learned couplings; NaN for the interaction variants, whose couplings
    depend on the input (softmax) or do not exist (MLP-mixer)."""
    layer = model.attention
    if layer.interaction == "linear":
        return layer.coupling_norms().detach().cpu().numpy()
    return np.full((layer.num_spins, layer.num_spins), np.nan, dtype=np.float32)


def _weights_path(folder: Path, step: int) -> Path:
    return folder / "weights" / f"step_{step:06d}.pt"


def _save_weights(folder: Path, step: int, model: torch.nn.Module) -> None:
    """Keep ``model``'s weights after ``step`` steps (atomically; a resumed run rewrites the same bytes)."""
    path = _weights_path(folder, step)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, buf)
    store.atomic_write_bytes(path, buf.getvalue())


_LOG_KEYS = ("loss", "batch_accuracy", "forward_iterations", "backward_iterations", "forward_residual",
             "forward_converged")
_EVAL_KEYS = ("eval_step", "eval_epoch", "test_loss", "test_accuracy")


def _convergence_warning() -> type[Warning]:
    from ..deq import ConvergenceWarning
    return ConvergenceWarning


def _save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    """Write ``state`` atomically with its cache record (key, code, content hash: :mod:`~mfattn.companion.caches`)."""
    buf = io.BytesIO()
    torch.save({**state, caches.RECORD: caches.cache_record(state, _entry_key(path), code_version())}, buf)
    store.atomic_write_bytes(path, buf.getvalue())


def _entry_key(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _load_checkpoint(path: Path) -> dict[str, Any] | None:
    """A checkpoint of tensors and plain types, verified against its record; None (with a
    :class:`~mfattn.companion.caches.CacheWarning` naming it: the run starts afresh) when it is truncated,
    planted, another run's or other code's. A pickle that is more than tensors and plain types (one that
    could run code) is refused."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        raise ValueError(f"refusing to load {path}: not only tensors and plain types; delete it to start afresh") from err
    except (RuntimeError, EOFError, OSError, ValueError) as err:  # truncated or damaged (torch's zip reader)
        if isinstance(err, (FileNotFoundError, PermissionError)):
            raise
        why = f"is truncated or damaged ({type(err).__name__}: {str(err).splitlines()[0][:100]})"
    else:
        record = state.pop(caches.RECORD, None) if isinstance(state, dict) else None
        why = caches.check_cache_record(record, state, _entry_key(path), code_version())
        if why is None:
            return state
    warnings.warn(f"cache entry {path} {why}; starting the run afresh", caches.CacheWarning, stacklevel=2)
    return None


def _load_result(folder: Path) -> TrainResult | None:
    """The finished run stored in ``folder``, verified (its record, its content, the SHA-256 of its history,
    model and kept weights); None when there is none, or (with a CacheWarning naming it) when it fails."""
    summary = caches.load_cached_json(folder / "result.json", key=_entry_key(folder / "result.json"),
                                      code=code_version())
    if summary is None:
        return None
    history = store.load_npz(folder / "history.npz")
    return TrainResult(TrainConfig.from_dict(summary["config"]), history, summary, folder)


def finished_result(config: TrainConfig, device: torch.device | str = "cpu",
                    folder: str | Path | None = None) -> TrainResult | None:
    """The finished, verified run of ``config`` in the cache (or ``folder``), never training; None if
    there is none (or it fails verification: a CacheWarning names it)."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    return _load_result(Path(folder) if folder is not None else run_dir(config, device))


def make_optimizer(model: torch.nn.Module, lr: float) -> torch.optim.Optimizer:
    """Adam at ``lr`` with the fused kernel (one call updates every parameter tensor).

    Same update rule as ``torch.optim.Adam``'s default loop; for a 26k-parameter model the
    per-tensor loop costs more than the arithmetic (benchmarks/bench_mnist_step.py).
    """
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


def settling_curve(norms: np.ndarray) -> np.ndarray:
    """Distance of each snapshot of the norm matrix to the final one (pattern and growth of the norms alike).

    ``||A_t - A_T||_F / ||A_T||_F`` for the snapshots ``A_t`` (S, N, N) of ``||J_ij||_F``; returns (S,).
    """
    norms = np.asarray(norms, dtype=np.float64)
    if norms.ndim != 3 or norms.shape[1] != norms.shape[2]:
        raise ValueError(f"norms must have shape (S, N, N); got {norms.shape}")
    final = norms[-1]
    return np.linalg.norm((norms - final).reshape(len(norms), -1), axis=1) / np.linalg.norm(final)


def run_progress(config: TrainConfig, device: torch.device | str = "cpu",
                 folder: str | Path | None = None) -> dict[str, Any] | None:
    """How far the run of ``config`` got: finished or not, epochs and steps done, the test
    evaluations so far, mean solver iterations over the last 500 steps, CPU/GPU seconds spent.
    None when the run never wrote a checkpoint."""
    folder = Path(folder) if folder is not None else run_dir(config, device)
    res = _load_result(folder)
    state = _load_checkpoint(folder / "checkpoint.pt") if res is None and (folder / "checkpoint.pt").is_file() else None
    if res is not None:
        h, epochs, finished, wall = res.history, config.epochs, True, res.summary["wall_time_s"]
        evals = {k: h[k].tolist() for k in _EVAL_KEYS}
        fwd = h["forward_iterations"]
    elif state is not None:
        epochs, finished, wall, evals = state["epoch"], False, state["elapsed"], state["evals"]
        fwd = np.asarray(state["logs"]["forward_iterations"])
    else:
        return None
    return {"finished": finished, "epochs_done": epochs, "epochs": config.epochs, "steps_done": len(fwd),
            "evals": evals, "mean_forward_iterations_last_500": float(np.mean(fwd[-500:])) if len(fwd) else None,
            "seconds": wall, "config": config.to_dict(), "device": torch.device(device).type}


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
