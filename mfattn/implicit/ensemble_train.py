"""Training S MNIST runs as one batched model (:class:`mfattn.implicit.ensemble.EnsembleMNIST`).

:func:`train_ensemble` takes S :class:`mfattn.implicit.runs.TrainConfig` that differ only in ``seed``
and in the shape-keeping attention options (:data:`mfattn.implicit.ensemble.MEMBER_OPTIONS`), and
trains them together. Member ``s`` sees exactly what its solo run (:func:`mfattn.implicit.train.train_mnist`)
sees:

* **its own data order**: the batch of step ``t`` of epoch ``e`` is
  ``epoch_order(n, seeds[s], e)[t·B:(t+1)·B]``, as in the solo loop;
* **its own initial weights**: those of ``build_model(seeds[s], ...)``;
* **its own loss and gradient**: the ensemble minimises ``L = Σ_s mean_b CE(logits_sb, y_sb)``, whose
  gradient with respect to member ``s``'s (stacked) weights is the gradient of its own mean
  cross-entropy, since no weight is shared;
* **its own Adam update**: fused Adam is elementwise, so the stacked update is S solo updates;
* **its own logs**: loss, batch accuracy and the solver's iterations/residual/converged fraction
  from its rows of the per-sample :class:`mfattn.deq.SolverStats`, test evaluations, ``‖J_ij‖_F``
  snapshots and kept weights, on the solo schedule (``history`` has the keys of :class:`TrainResult`).

So each member ends with its solo run's weights up to float rounding (tests/test_ensemble.py
measures how far). The run writes one folder per member (``model.pt``, ``history.npz``,
``result.json``) and checkpoints the ensemble (weights, Adam state, position, logs) at the end of
every epoch and every ``checkpoint_every`` steps, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import io
import math
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ..companion import caches, store
from .ensemble import EnsembleMNIST, member_statistics
from .mnist import load_mnist
from .runs import _EVAL_KEYS, _LOG_KEYS, RESULT_VERSION, TrainConfig, TrainResult, code_version
from .train import TrainingInterrupted, epoch_order, make_optimizer

__all__ = ["train_ensemble", "ensemble_code_version", "train_into_cache"]

#: TrainConfig fields the members may set differently (the rest must agree: one batch, one schedule).
_MEMBER_FIELDS = ("seed", "attention")


def ensemble_code_version() -> str:
    """Digest of the code an ensemble result depends on: the solo training code (:func:`code_version`)
    and the two ensemble modules."""
    from . import ensemble

    return store.code_digest(ensemble, __file__) + code_version()


def _check_configs(configs: Any) -> list[TrainConfig]:
    if isinstance(configs, TrainConfig) or not isinstance(configs, (list, tuple)) or not configs:
        raise TypeError(f"configs must be a non-empty list of TrainConfig (one per member); got "
                        f"{type(configs).__name__}")
    for i, c in enumerate(configs):
        if not isinstance(c, TrainConfig):
            raise TypeError(f"configs[{i}] must be a TrainConfig; got {type(c).__name__}")
    shared = {k: v for k, v in configs[0].to_dict().items() if k not in _MEMBER_FIELDS}
    for i, c in enumerate(configs[1:], 1):
        for k, v in c.to_dict().items():
            if k not in _MEMBER_FIELDS and shared[k] != v:
                raise ValueError(f"configs: the members must share {k!r} (one batch size, one schedule); "
                                 f"configs[0] has {shared[k]!r}, configs[{i}] has {v!r}")
    return list(configs)


@torch.no_grad()
def _evaluate(model: EnsembleMNIST, x: torch.Tensor, y: torch.Tensor, batch_size: int) -> list[dict[str, Any]]:
    """:func:`mfattn.implicit.evaluation.evaluate` for every member: the same test batches shown to all."""
    was_training = model.training
    model.eval()
    weight = next(model.parameters())
    S = model.size
    loss, preds = torch.zeros(S, dtype=torch.float64), []
    for start in range(0, len(y), batch_size):
        xb = x[start:start + batch_size].to(weight.device, weight.dtype)
        yb = y[start:start + batch_size].to(weight.device)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # unconverged solves (e.g. plain iteration)
            logits = model(xb)                                                     # (S, b, 10)
        # Summed per member as the solo evaluation sums its batch's cross-entropy.
        loss += torch.tensor([F.cross_entropy(logits[s], yb, reduction="sum").item() for s in range(S)],
                             dtype=torch.float64)
        preds.append(logits.argmax(2).cpu())
    model.train(was_training)
    pred = torch.cat(preds, dim=1)
    return [{"loss": float(loss[s]) / len(y), "accuracy": (pred[s] == y).double().mean().item(),
             "pred": pred[s].numpy()} for s in range(S)]


def _save_state(path: Path, state: dict[str, torch.Tensor]) -> None:
    buf = io.BytesIO()
    torch.save({k: v.detach().cpu() for k, v in state.items()}, buf)
    store.atomic_write_bytes(path, buf.getvalue())


def _member_folder(folder: Path, i: int, seed: int) -> Path:
    return folder / f"member_{i:02d}_seed_{seed}"


def train_ensemble(configs: Sequence[TrainConfig], *, data_root=None, device: str | torch.device = "cpu",
                   dtype: torch.dtype | None = None, folder: str | Path | None = None, use_cache: bool = True,
                   progress: bool | None = None, interrupt_after: int | None = None,
                   callback: Callable[[int, list[dict[str, float]]], None] | None = None) -> list[TrainResult]:
    """Train the runs ``configs`` (one :class:`TrainConfig` per member) as one ensemble; resume or load if possible.

    Parameters
    ----------
    configs : S configurations differing only in ``seed`` and ``attention`` (members may differ in
        :data:`mfattn.implicit.ensemble.MEMBER_OPTIONS` only).
    data_root, device : as :func:`mfattn.implicit.train.train_mnist`.
    dtype : the weights' precision (default float32, the solo runs'); float64 for exactness tests.
    folder : where the checkpoint and the members' folders go (default: a cache folder keyed by the
        configurations, device, dtype and :func:`ensemble_code_version`).
    use_cache : return the finished results of the same configurations without training, or resume from
        a checkpoint; with ``False`` anything stored is ignored and overwritten.
    progress : show a tqdm bar (None: only on a terminal).
    interrupt_after : test aid; raise :class:`mfattn.implicit.train.TrainingInterrupted` after this step.
    callback : called as ``callback(step, logs)`` after every optimiser step, ``logs`` one dict per member.

    Returns one :class:`TrainResult` per member, in the order of ``configs``; ``history`` and ``summary``
    have the solo run's keys (``summary["ensemble"]`` names the ensemble's seeds).
    """
    from tqdm import tqdm

    configs = _check_configs(configs)
    _check_progress(progress)
    if not isinstance(use_cache, bool):
        raise TypeError(f"use_cache must be True or False; got {use_cache!r}")
    if dtype is not None and dtype not in (torch.float32, torch.float64):
        raise ValueError(f"dtype must be None, torch.float32 or torch.float64; got {dtype!r}")
    if interrupt_after is not None and (not isinstance(interrupt_after, int) or interrupt_after < 1):
        raise ValueError(f"interrupt_after must be None or a positive integer; got {interrupt_after!r}")
    device = torch.device(device)
    dtype = dtype or torch.float32
    cfg = configs[0]
    seeds = [c.seed for c in configs]
    key = {"configs": [c.to_dict() for c in configs], "device": device.type, "dtype": str(dtype),
           "version": RESULT_VERSION}
    code = ensemble_code_version()
    folder = Path(folder) if folder is not None else store.cache_dir(
        "deq", "ensemble", store.config_hash({**key, "code": code}))
    folder.mkdir(parents=True, exist_ok=True)
    members = [_member_folder(folder, i, s) for i, s in enumerate(seeds)]
    if use_cache:
        found = [caches.load_cached_json(m / "result.json", key=f"{m.name}/result.json", code=code) for m in members]
        if all(s is not None for s in found):
            return [TrainResult(c, store.load_npz(m / "history.npz"), s, m) for c, m, s in zip(configs, members, found)]

    train = load_mnist("train", data_root, limit=cfg.train_limit)
    test = load_mnist("test", data_root, limit=cfg.test_limit)
    x_train, y_train = train.tensors()
    x_test, y_test = test.tensors()
    n = len(y_train)
    batches_per_epoch = n // cfg.batch_size
    if batches_per_epoch < 1:
        raise ValueError(f"train_limit={cfg.train_limit} gives fewer examples ({n}) than one batch "
                         f"(batch_size={cfg.batch_size})")
    steps_per_epoch = min(batches_per_epoch, cfg.steps_per_epoch or batches_per_epoch)
    S, B = len(configs), cfg.batch_size

    model = EnsembleMNIST(seeds, dim=cfg.dim, channels=cfg.channels, attention=[c.attention for c in configs],
                          device=device, dtype=dtype)
    optimizer = make_optimizer(model, cfg.lr)
    logs = [{k: [] for k in _LOG_KEYS} for _ in range(S)]
    evals = [{k: [] for k in _EVAL_KEYS} for _ in range(S)]
    snapshots = [model.coupling_norms().detach().cpu()]                      # each (S, N, N)
    snapshot_steps = [0]
    epoch, step_in_epoch, elapsed = 0, 0, 0.0

    ckpt_path = folder / "checkpoint.pt"
    ckpt_key = f"{folder.name}/checkpoint.pt"
    if use_cache and ckpt_path.is_file():
        state = torch.load(ckpt_path, map_location="cpu", weights_only=True)
        why = caches.check_cache_record(state.pop(caches.RECORD, None), state, ckpt_key, code)
        if why is None and state["key"] != key:
            why = "was written for other configurations"
        if why is not None:
            warnings.warn(f"cache entry {ckpt_path} {why}; starting the run afresh", caches.CacheWarning, stacklevel=2)
        else:
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            logs, evals, snapshots = state["logs"], state["evals"], state["snapshots"]
            snapshot_steps, epoch = state["snapshot_steps"], state["epoch"]
            step_in_epoch, elapsed = state["step_in_epoch"], state["elapsed"]

    def checkpoint() -> None:
        state = {"key": key, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "logs": logs,
                 "evals": evals, "snapshots": snapshots, "snapshot_steps": snapshot_steps, "epoch": epoch,
                 "step_in_epoch": step_in_epoch, "elapsed": elapsed + time.perf_counter() - t0}
        buf = io.BytesIO()
        torch.save({**state, caches.RECORD: caches.cache_record(state, ckpt_key, code)}, buf)
        store.atomic_write_bytes(ckpt_path, buf.getvalue())

    def run_eval(step: int) -> None:
        for s, res in enumerate(_evaluate(model, x_test, y_test, cfg.eval_batch_size)):
            for k, v in zip(_EVAL_KEYS, (step, epoch + step_in_epoch / steps_per_epoch, res["loss"], res["accuracy"])):
                evals[s][k].append(v)

    def keep_weights(step: int) -> None:
        for s, m in enumerate(members):
            (m / "weights").mkdir(parents=True, exist_ok=True)
            _save_state(m / "weights" / f"step_{step:06d}.pt", model.member_state_dict(s))

    t0 = time.perf_counter()
    if not evals[0]["eval_step"]:
        run_eval(0)
        if cfg.weights_every:
            keep_weights(0)
    total = cfg.epochs * steps_per_epoch
    bar = tqdm(total=total, initial=epoch * steps_per_epoch + step_in_epoch, disable=progress is False if
               progress is not None else None, desc=f"train x{S}", unit="step", leave=False)
    model.train()
    try:
        while epoch < cfg.epochs:
            orders = [epoch_order(n, seed, epoch) for seed in seeds]            # each member its own order
            while step_in_epoch < steps_per_epoch:
                rows = torch.stack([o[step_in_epoch * B:(step_in_epoch + 1) * B] for o in orders])   # (S, B)
                xb = x_train[rows].to(device, dtype)                             # (S, B, 1, 28, 28)
                yb = y_train[rows].to(device)
                optimizer.zero_grad(set_to_none=True)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)  # unconverged solves are logged per step
                    logits = model(xb)                                           # (S, B, 10)
                    # Σ_s of each member's mean cross-entropy: member s gets its solo gradient (each
                    # mean computed as the solo loop does, so that it is rounded the same way).
                    losses = torch.stack([F.cross_entropy(logits[s], yb[s]) for s in range(S)])
                    losses.sum().backward()
                optimizer.step()
                step_in_epoch += 1
                step = epoch * steps_per_epoch + step_in_epoch

                fwd, bwd = model.last_stats.get("forward"), model.last_stats.get("backward")
                f_stats = member_statistics(fwd, S) if fwd is not None else None
                b_stats = member_statistics(bwd, S) if bwd is not None else None
                accuracy = (logits.argmax(2) == yb).double().mean(1)
                step_logs = []
                for s in range(S):
                    log = {"loss": losses[s].item(), "batch_accuracy": accuracy[s].item(),
                           "forward_iterations": f_stats[s]["iterations"] if f_stats else np.nan,
                           "backward_iterations": b_stats[s]["iterations"] if b_stats else np.nan,
                           "forward_residual": f_stats[s]["residual"] if f_stats else np.nan,
                           "forward_converged": f_stats[s]["converged"] if f_stats else np.nan}
                    for k in _LOG_KEYS:
                        logs[s][k].append(log[k])
                    step_logs.append(log)
                if step % cfg.snapshot_every == 0:
                    snapshots.append(model.coupling_norms().detach().cpu())
                    snapshot_steps.append(step)
                if cfg.eval_every and step % cfg.eval_every == 0 and step_in_epoch < steps_per_epoch:
                    run_eval(step)
                if cfg.weights_every and step % cfg.weights_every == 0:
                    keep_weights(step)
                bar.update(1)
                if callback is not None:
                    callback(step, step_logs)
                if cfg.checkpoint_every and step % cfg.checkpoint_every == 0 and step_in_epoch < steps_per_epoch:
                    checkpoint()
                if interrupt_after is not None and step >= interrupt_after:
                    raise TrainingInterrupted(f"interrupted after step {step} (interrupt_after)")
            run_eval(epoch * steps_per_epoch + step_in_epoch)
            epoch, step_in_epoch = epoch + 1, 0
            checkpoint()
    finally:
        bar.close()

    if snapshot_steps[-1] != total:
        snapshots.append(model.coupling_norms().detach().cpu())
        snapshot_steps.append(total)
    if cfg.weights_every and not (members[0] / "weights" / f"step_{total:06d}.pt").is_file():
        keep_weights(total)
    finals = _evaluate(model, x_test, y_test, cfg.eval_batch_size)
    wall = elapsed + time.perf_counter() - t0
    norms = torch.stack(snapshots).numpy()                                     # (K, S, N, N)
    results = []
    for s, (c, m, final) in enumerate(zip(configs, members, finals)):
        history = {**{k: np.asarray(v, dtype=np.float64) for k, v in logs[s].items()},
                   **{k: np.asarray(v, dtype=np.float64) for k, v in evals[s].items()},
                   "snapshot_step": np.asarray(snapshot_steps), "coupling_norms": norms[:, s],
                   "test_labels": y_test.numpy(), "test_pred": final["pred"]}
        counts = model.member_model(s).parameter_counts()
        bwd_its = history["backward_iterations"]
        summary = {"config": c.to_dict(), "test_accuracy": final["accuracy"],
                   "test_loss": final["loss"] if math.isfinite(final["loss"]) else None,
                   "steps": total, "steps_per_epoch": steps_per_epoch, "train_examples": n,
                   "test_examples": len(y_test), "wall_time_s": wall, "device": str(device), "dtype": str(dtype),
                   "parameters_raw": counts["raw"], "parameters_effective": counts["effective"],
                   "mean_forward_iterations": float(np.nanmean(history["forward_iterations"])),
                   "mean_backward_iterations": float(np.nanmean(bwd_its)) if np.isfinite(bwd_its).any() else None,
                   "ensemble": {"seeds": seeds, "member": s}, "torch": torch.__version__, "version": RESULT_VERSION}
        m.mkdir(parents=True, exist_ok=True)
        _save_state(m / "model.pt", model.member_state_dict(s))
        store.atomic_save_npz(m / "history.npz", **history)
        parts = ["history.npz", "model.pt", *(p.relative_to(m).as_posix() for p in sorted(m.glob("weights/step_*.pt")))]
        # written last: marks the member finished, with the SHA-256 of its parts
        caches.save_cached_json(m / "result.json", summary, key=f"{m.name}/result.json", code=code,
                                files={name: m / name for name in parts})
        results.append(TrainResult(c, history, summary, m))
    return results


def _check_progress(progress: Any) -> None:
    """``progress`` must be None (a bar only on a terminal), True or False: a string such as 'False' is truthy."""
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be None, True or False; got {type(progress).__name__} {progress!r:.40}")


def train_into_cache(configs: Sequence[TrainConfig], *, data_root=None, device: str | torch.device = "cpu",
                     progress: bool | None = None) -> list[TrainResult]:
    """The runs ``configs`` trained as one ensemble (:func:`train_ensemble`), each member then stored where its
    solo run lives (:func:`mfattn.implicit.runs.run_dir`), so :func:`mfattn.implicit.train.train_mnist` and
    :func:`mfattn.implicit.runs.finished_result` find it without training.

    Why this is the solo run: a member's weights, logs and predictions are bit-equal to its solo run's
    (tests/test_ensemble.py checks it over 60 steps; the benchmark over 233). The stored summary keeps
    ``"ensemble"`` (the seeds trained together) so the provenance is never lost. Runs already finished in the
    cache are not trained again; float32 only (the solo runs' precision).
    """
    from .runs import _entry_key, finished_result, run_dir

    configs = _check_configs(configs)
    _check_progress(progress)   # before the cache is read: a string 'False' would show a bar, or pass unread
    todo = [c for c in configs if finished_result(c, device) is None]
    if todo:
        for config, member in zip(todo, train_ensemble(todo, data_root=data_root, device=device, progress=progress)):
            folder = run_dir(config, device)
            folder.mkdir(parents=True, exist_ok=True)
            parts = ["history.npz", "model.pt",
                     *(p.relative_to(member.folder).as_posix() for p in sorted(member.folder.glob("weights/step_*.pt")))]
            for name in parts:
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                store.atomic_write_bytes(folder / name, (member.folder / name).read_bytes())
            # written last (as the solo loop does): marks the run finished, with the SHA-256 of its parts
            caches.save_cached_json(folder / "result.json", member.summary, key=_entry_key(folder / "result.json"),
                                    code=code_version(), files={name: folder / name for name in parts})
    return [finished_result(c, device) for c in configs]
