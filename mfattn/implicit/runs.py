"""The MNIST training runs on disk: their configuration, cache folder, checkpoints and results.

A run is determined by a :class:`TrainConfig` and by the code that trains it (:func:`code_version`):
both go into the hash that names its folder, ``cache_dir("deq", "mnist", <hash>)`` (:func:`run_dir`).
The folder holds, as the run goes, ``checkpoint.pt`` (weights, optimiser state, position and logs;
written atomically with its cache record, read back with tensors and plain types only and verified),
the kept weights ``weights/step_NNNNNN.pt``, and at the end ``model.pt``, ``history.npz`` and
``result.json`` (written last: it marks the run finished and records the SHA-256 of the other parts).
:class:`TrainResult` is what a finished folder reads back as (:func:`finished_result`);
:func:`run_progress` says how far an unfinished one got. The training loop that writes them is
:mod:`mfattn.implicit.train`.
"""

from __future__ import annotations

import dataclasses
import io
import math
import pickle
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import torch

from ..companion import caches, store
from .evaluation import confusion_matrix
from .models import ATTENTION_DEFAULTS, build_model

__all__ = ["RESULT_VERSION", "TrainConfig", "TrainResult", "code_version", "run_dir", "finished_result",
           "run_progress"]

#: Bump when the meaning of stored results changes, so old caches are not reused.
RESULT_VERSION = 1


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
        # a numpy integer (np.int64(1)) or float (np.float32(5e-4)) is a valid number: kept as the Python number of
        # its value, so the configuration, its to_dict and its cache key are those of the plain int or float
        for name in ("epochs", "batch_size", "seed", "train_limit", "test_limit", "steps_per_epoch", "dim",
                     "channels", "snapshot_every", "eval_every", "checkpoint_every", "eval_batch_size",
                     "weights_every", "lr"):
            value = getattr(self, name)
            if isinstance(value, np.integer) or name == "lr" and isinstance(value, np.floating):
                object.__setattr__(self, name, value.item())
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
        if not (isinstance(self.lr, (int, float)) and not isinstance(self.lr, bool) and math.isfinite(self.lr)
                and self.lr > 0):
            raise ValueError(f"lr must be a positive finite number; got {self.lr!r}")
        if not isinstance(self.attention, dict):
            raise ValueError(f"attention must be a dict of layer options; got {type(self.attention).__name__}")
        unknown = sorted(set(self.attention) - set(ATTENTION_DEFAULTS) - {"anderson_m", "damping", "weight_init_std"})
        if unknown:
            raise ValueError(f"attention has unknown option(s) {unknown}; known: {sorted(ATTENTION_DEFAULTS)}")
        try:  # the layer checks its own options (choices, counts, tolerances): here, not steps into a run
            build_model(0, dim=self.dim, channels=self.channels, **self.attention)
        except (TypeError, ValueError) as err:
            raise ValueError(f"attention={self.attention!r} is not a valid layer setting: {err}") from None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        if not isinstance(d, Mapping):
            raise TypeError(f"d must be a mapping of TrainConfig fields (as to_dict writes it); got {type(d).__name__}")
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(map(str, set(d) - set(names)))
        if unknown:
            raise ValueError(f"d has unknown field(s) {unknown}; TrainConfig's: {names}")
        return cls(**d)


def code_version() -> str:
    """A digest of the code that determines a training result (solver, layer, model, loop): a change
    of solver or layer code (even one that only moves the last bits of a float) gives new cache keys
    instead of stale results."""
    from .. import deq, deq_steppers
    from . import ensemble, evaluation, meanfield, meanfield_kernels, mnist, models

    # the loops' files by path, not by import: mfattn.implicit.train and .ensemble_train import this module. The
    # ensemble trainer trained most stored runs and mnist.py reads their data: a change there is a change of training
    here = Path(__file__)
    return store.code_digest(deq, deq_steppers, meanfield, meanfield_kernels, models, here.with_name("train.py"),
                             evaluation, __file__, ensemble, here.with_name("ensemble_train.py"), mnist)


def _check_device(device: Any) -> None:
    """A ValueError (TypeError for another type) naming ``device`` unless torch reads it as a device; no CUDA needed
    (a CUDA run's folder is named on any machine)."""
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got {type(device).__name__}")
    try:
        torch.device(device)
    except RuntimeError:
        raise ValueError(f"device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got {device!r:.60}") from None


def _check_folder(folder: Any) -> Path:
    """``folder`` as a Path; refused (naming the path) when it exists and is not a directory."""
    from ..companion.checks import check_path

    folder = check_path("folder", folder)
    if folder.exists() and not folder.is_dir():
        kind = "a regular file" if folder.is_file() else "not a directory (a device, FIFO or socket)"
        raise ValueError(f"folder must be a run's folder (a directory); {folder} is {kind}")
    return folder


def _log_length(log: Any) -> int | None:
    """The number of entries of one log of a history (an array, tensor, list or tuple); None for anything else."""
    shape = getattr(log, "shape", None)
    if shape is not None:
        return int(shape[0]) if len(shape) else None
    return len(log) if isinstance(log, (list, tuple)) else None


def run_dir(config: TrainConfig, device: torch.device | str = "cpu") -> Path:
    """The cache folder of ``config`` on ``device``'s type (CPU and CUDA results differ in the
    last bits) for the current :func:`code_version`."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    _check_device(device)
    key = store.config_hash({"config": config.to_dict(), "device": torch.device(device).type,
                             "version": RESULT_VERSION, "code": code_version()})
    return store.cache_dir("deq", "mnist", key)


@dataclass
class TrainResult:
    """What a training run leaves behind (all arrays are numpy).

    ``steps`` log, per optimiser step: ``loss``, ``batch_accuracy``, ``forward_iterations`` and
    ``backward_iterations`` (mean over the batch), ``forward_residual`` (max over the batch),
    ``forward_converged`` (fraction of the batch below tol). ``evals`` log
    ``eval_step``, ``eval_epoch``, ``test_loss``, ``test_accuracy``. ``snapshot_step`` (S,) and
    ``coupling_norms`` (S, N, N) hold ||J_ij||_F during training (first: initialisation, last:
    end). ``test_labels``/``test_pred`` are the final predictions. ``config`` must be a :class:`TrainConfig`,
    ``history`` and ``summary`` mappings, ``folder`` the run's folder (a path; a string is read as one) or None for a
    result held in memory only (:meth:`load_model` and :meth:`load_model_at` then have no weights to read).
    """

    config: TrainConfig
    history: dict[str, np.ndarray]
    summary: dict[str, Any]
    folder: Path

    def __post_init__(self) -> None:
        if not isinstance(self.config, TrainConfig):
            raise TypeError(f"config must be a TrainConfig; got {type(self.config).__name__}")
        for name in ("history", "summary"):
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(f"{name} must be a mapping (dict); got {type(getattr(self, name)).__name__}")
        unknown = sorted(map(str, set(self.history) - set(_HISTORY_KEYS)))
        if unknown:
            raise ValueError(f"history has unknown log(s) {unknown[:5]}; a run's logs: {list(_HISTORY_KEYS)}")
        for group in _HISTORY_GROUPS:   # the logs of one kind (per step, evaluation, snapshot, test digit): one length
            lengths = {k: _log_length(self.history[k]) for k in group if k in self.history}
            if None in lengths.values() or len(set(lengths.values())) > 1:
                raise ValueError(f"history's logs {list(lengths)} must be arrays of one length (one entry per "
                                 f"{'step' if group[0] == 'loss' else 'entry'}); got lengths {lengths}")
        if self.folder is not None:
            from ..companion.checks import check_path

            self.folder = check_path("folder", self.folder)

    @property
    def test_accuracy(self) -> float:
        return float(self.summary["test_accuracy"])

    def confusion(self) -> np.ndarray:
        """Counts C[true, predicted] (10, 10) of the final test predictions (``history``'s ``test_labels`` and
        ``test_pred``; a ValueError when the history holds none)."""
        missing = [k for k in ("test_labels", "test_pred") if k not in self.history]
        if missing:
            raise ValueError(f"history holds no final test predictions (it lacks {missing}): no confusion matrix")
        return confusion_matrix(self.history["test_labels"], self.history["test_pred"])

    def _weights_folder(self) -> Path:
        if self.folder is None:
            raise ValueError("folder is None: this result is held in memory only, it has no weights to read")
        return self.folder

    def _load_state(self, model: torch.nn.Module, path: Path) -> None:
        """Load the weights at ``path`` into ``model`` (built from ``config``); a ValueError naming both when the
        weights are another architecture's (torch's size-mismatch RuntimeError otherwise)."""
        state = torch.load(path, map_location="cpu", weights_only=True)
        try:
            model.load_state_dict(state)
        except RuntimeError as err:
            cfg = self.config
            raise ValueError(f"the weights in {path} do not fit config (dim={cfg.dim}, channels={cfg.channels}, "
                             f"attention={cfg.attention}): {str(err).splitlines()[-1].strip()[:200]}") from None

    def load_model(self, device=None):
        """The trained model (weights read from ``model.pt``; a ValueError when they do not fit ``config``), on
        ``device`` when given ('cpu', 'cuda', 'cuda:N' or a torch.device)."""
        if device is not None:
            _check_device(device)
        cfg = self.config
        folder = self._weights_folder()
        model = build_model(cfg.seed, dim=cfg.dim, channels=cfg.channels, **cfg.attention)
        self._load_state(model, folder / "model.pt")
        return model.to(device) if device is not None else model


    def weight_steps(self) -> list[int]:
        """The steps whose weights were kept (``weights_every``), in order; [] when none were."""
        folder = self._weights_folder() / "weights"
        return sorted(int(p.stem.split("_")[1]) for p in folder.glob("step_*.pt")) if folder.is_dir() else []

    def load_model_at(self, step: int, device=None):
        """The model with the weights it had after ``step`` optimiser steps (one of :meth:`weight_steps`), on
        ``device`` when given (as :meth:`load_model`)."""
        from ..companion.checks import check_int

        step = check_int("step", step, 0)
        if device is not None:
            _check_device(device)
        steps = self.weight_steps()
        if step not in steps:
            raise ValueError(f"step must be one of the kept steps {steps[:3]}...{steps[-2:]}; got {step!r}"
                             if steps else f"no weights were kept for this run (weights_every=None); step={step!r}")
        cfg = self.config
        model = build_model(cfg.seed, dim=cfg.dim, channels=cfg.channels, **cfg.attention)
        self._load_state(model, _weights_path(self.folder, step))
        return model.to(device) if device is not None else model


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
#: The logs of a run's ``history`` by kind, each kind one length: per step, per test evaluation, per snapshot (the
#: coupling norms' first axis), per test digit.
_HISTORY_GROUPS = (_LOG_KEYS, _EVAL_KEYS, ("snapshot_step", "coupling_norms"), ("test_labels", "test_pred"))
_HISTORY_KEYS = tuple(k for group in _HISTORY_GROUPS for k in group)


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
    there is none (or it fails verification: a CacheWarning names it). A finished run in ``folder`` of another
    configuration than ``config`` is a ValueError naming both."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    found = _load_result(_check_folder(folder) if folder is not None else run_dir(config, device))
    if found is not None and store.config_hash(found.config.to_dict()) != store.config_hash(config.to_dict()):
        differ = sorted(k for k, v in config.to_dict().items() if found.config.to_dict().get(k) != v)
        raise ValueError(f"folder {found.folder} holds the run of another config (its {differ} differ from "
                         f"config's): {found.config}"[:400])
    return found


def run_progress(config: TrainConfig, device: torch.device | str = "cpu",
                 folder: str | Path | None = None) -> dict[str, Any] | None:
    """How far the run of ``config`` got: finished or not, epochs and steps done, the test
    evaluations so far, mean solver iterations over the last 500 steps, CPU/GPU seconds spent.
    None when the run never wrote a checkpoint."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    _check_device(device)
    folder = _check_folder(folder) if folder is not None else run_dir(config, device)
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
