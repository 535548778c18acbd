r"""A referee's control: the blog's MNIST model *trained* with the public code's Anderson solver in the loop.

The book trains the blog model with its own Anderson (:func:`mfattn.deq.solve`: history 8, ridge scaled to the
residuals, one stopping decision per sample) and then finds that the public code's solver
(:func:`mfattn.implicit.reference_solver.reference_anderson`: history :math:`m = 5`, absolute ridge
:math:`\lambda = 10^{-4}`, one relative residual :math:`\lVert F - X \rVert / (10^{-5} + \lVert F \rVert)` for the
whole batch) rarely reaches its tolerance on the trained layer. Would it, had the layer been trained with it? Here
the same run (seed, data order, Adam 5e-4, batch 60, 20 epochs) is trained with the public solver for the forward
solve *and* the implicit backward (adjoint) solve, as the public code does (``examples/mnist.py`` of
mcbal/deep-implicit-attention: ``solver_fwd_max_iter=40, solver_fwd_tol=1e-4, solver_bwd_max_iter=40,
solver_bwd_tol=1e-4``).

How: :func:`public_anderson` swaps the module-global :func:`mfattn.deq.solve` (which
:func:`mfattn.deq.deq_fixed_point` looks up at each call) for :func:`public_solve` while the block runs, and
:func:`train_public` runs the book's training loop :func:`mfattn.implicit.train.train_mnist` inside it. Like the
public code, :func:`public_solve` returns the iterate of lowest residual (its ``lowest_xest``); where the forward
runs with gradients (training) it returns ``f`` at that iterate (the public code re-applies ``f`` once to put the
tape back on), and the adjoint solve starts from zeros (the public code's ``torch.zeros_like(grad)``). The loop's
cache key does not know the solver changed, so the run lives in its own folder,
``cache_dir("deq", "mnist-public-anderson", <hash of config, code and this module>)``, never in the book's
``cache_dir("deq", "mnist", ...)``: no normal run is read or written. ::

    python -m mfattn.implicit.public_trained --seed 0 --out data/full/deq/public_trained.json
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np
import torch

from .. import deq
from ..companion.checks_scalars import _seed_option
from ..companion import store
from ..companion.checks import contract
from . import reference_solver
from .variants import _run_device
from .runs import RESULT_VERSION, TrainConfig, TrainResult, _check_device, code_version

__all__ = ["PUBLIC_ANDERSON", "PUBLIC_FORWARD", "PUBLIC_BACKWARD", "public_solve", "public_anderson",
           "public_config", "public_run_dir", "train_public", "analyse", "main"]

#: The public solver's own settings (its ``anderson`` defaults): history, absolute ridge, mixing.
PUBLIC_ANDERSON = {"m": 5, "lam": 1e-4, "beta": 1.0}
#: The public MNIST example's solves (examples/mnist.py, commit 5662265): forward and backward alike.
PUBLIC_FORWARD = {"max_iter": 40, "tol": 1e-4}
PUBLIC_BACKWARD = {"max_iter": 40, "tol": 1e-4}

_BOOK_SOLVE = deq.solve
#: Bookkeeping options passed on by deq_fixed_point; the book's memory, ridge and damping are refused.
_PASSED_OPTIONS = {"label", "on_fail", "eps", "divergence_factor"}


def _pooled(x: torch.Tensor, fx: torch.Tensor) -> float:
    """The public solver's residual of one evaluation: one number for the whole batch (B, D)."""
    return float((fx - x).norm() / (1e-5 + fx.norm()))


@contract(z0="tensor:>=1", max_iter="int:3", tol="real:>0")
def public_solve(f: Callable[[torch.Tensor], torch.Tensor], z0: torch.Tensor, *, method: str = "anderson",
                 max_iter: int = 40, tol: float = 1e-4, **options: Any) -> tuple[torch.Tensor, deq.SolverStats]:
    """:func:`mfattn.deq.solve`'s interface on the public code's Anderson (other methods go to the book's solve).

    ``z0`` (B, ...) is flattened to (B, D) for :func:`reference_anderson` with :data:`PUBLIC_ANDERSON`; a solve
    labelled ``backward...`` (the adjoint solve of :func:`mfattn.deq.deq_fixed_point`) starts from zeros, as the
    public code's does. Every evaluation's (x, f(x)) is kept, so that the iterate of lowest pooled residual (the
    public code's result) can be returned: ``f`` at it when gradients are on (the training forward), the iterate
    itself otherwise (evaluation, the adjoint solve). The :class:`~mfattn.deq.SolverStats` are the batch's, given
    to every sample: ``iterations`` the evaluations used, ``residual`` the pooled residual of that iterate,
    ``converged`` residual < tol, ``trace`` (K, B) the pooled residual of each evaluation, ``diverged`` non-finite
    or unconverged with a last residual above the first."""
    if not callable(f):
        raise TypeError(f"f must be a callable z -> f(z) on states of z0's shape; got {type(f).__name__}")
    if method != "anderson":
        return _BOOK_SOLVE(f, z0, method=method, max_iter=max_iter, tol=tol, **options)
    unknown = sorted(set(options) - _PASSED_OPTIONS)
    if unknown:
        raise ValueError(f"public_solve runs the public code's Anderson (m=5, lam=1e-4); option(s) {unknown} of "
                         f"the book's solver have no meaning there")
    if z0.numel() == 0:
        raise ValueError(f"z0 must have a non-empty batch (B, ...); got shape {tuple(z0.shape)}")
    if z0.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"z0 must be a float32 or float64 tensor (the public Anderson's solve needs one); got dtype "
                        f"{z0.dtype}")
    shape, B = z0.shape, z0.shape[0]
    label = str(options.get("label", ""))
    x0 = z0.detach().reshape(B, -1)
    x0 = torch.zeros_like(x0) if label.startswith("backward") else x0.clone()
    xs: list[torch.Tensor] = []
    fs: list[torch.Tensor] = []

    def flat(x: torch.Tensor) -> torch.Tensor:
        out = f(x.reshape(shape))
        if not isinstance(out, torch.Tensor) or out.shape != shape:
            got = f"shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else type(out).__name__
            raise ValueError(f"f must return a tensor of z0's shape {tuple(shape)}; got {got}")
        if out.dtype != z0.dtype:
            raise TypeError(f"f must return a tensor of z0's dtype {z0.dtype}; got dtype {out.dtype}")
        out = out.reshape(B, -1)
        xs.append(x.clone()), fs.append(out.clone())          # the solver overwrites its ring buffers
        return out

    grad_on = torch.is_grad_enabled()
    with torch.no_grad():
        try:
            reference_solver.reference_anderson(flat, x0, max_iter=max_iter, tol=tol, **PUBLIC_ANDERSON)
        except deq.SolverDivergedError:
            if options.get("on_fail", "warn") != "ignore":   # as deq.solve: "ignore" returns it flagged diverged
                raise
    rel = np.array([_pooled(x, fx) for x, fx in zip(xs, fs)])
    # the public code picks the lowest residual among the steps after its two starting evaluations (first minimum)
    tail = np.where(np.isfinite(rel[2:]), rel[2:], np.inf) if len(rel) > 2 else rel
    pick = (2 if len(rel) > 2 else 0) + int(np.argmin(tail))
    res = float(rel[pick])
    out = (fs if grad_on else xs)[pick].reshape(shape)
    full = lambda v, dtype: torch.full((B,), v, dtype=dtype, device=z0.device)   # noqa: E731
    converged = bool(res < tol)
    diverged = (not np.isfinite(res)) or (not converged and rel[-1] > rel[0])
    stats = deq.SolverStats(
        iterations=full(len(xs), torch.int64), residual=full(res, z0.dtype), converged=full(converged, torch.bool),
        trace=torch.as_tensor(rel, dtype=z0.dtype, device=z0.device)[:, None].expand(len(rel), B).clone(),
        diverged=full(bool(diverged), torch.bool), method="anderson", tol=float(tol), max_iter=max_iter)
    deq._report(stats, options.get("on_fail", "warn"), label or "fixed-point")
    return out, stats


@contextlib.contextmanager
def public_anderson() -> Iterator[None]:
    """While the block runs, :func:`mfattn.deq.solve` is :func:`public_solve` (so every DEQ layer's forward and
    backward Anderson solves use the public solver); the book's solve is put back on exit, also on an exception."""
    if deq.solve is public_solve:
        raise RuntimeError("public_anderson() is already active")
    original, deq.solve = deq.solve, public_solve
    try:
        yield
    finally:
        deq.solve = original


@contract(seed="int:0", every="int:1")
def public_config(seed: int = 0, profile: str = "full", every: int = 1000, **overrides: Any) -> TrainConfig:
    """The chapter's blog-model run of ``profile`` (:func:`mfattn.implicit.train.profile_config`) for ``seed``,
    with test evaluations and kept weights every ``every`` steps (the training itself does not depend on them) and
    ``overrides`` of :class:`TrainConfig` fields (tests: ``train_limit``, ``steps_per_epoch``...)."""
    from ..companion.profiles import get_profile
    from .train import profile_config
    fields = [f.name for f in dataclasses.fields(TrainConfig)]
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise TypeError(f"overrides names unknown TrainConfig field(s) {unknown}; its fields: {fields}")
    cfg = profile_config(get_profile("deq", profile), seed)
    return dataclasses.replace(cfg, **{"eval_every": every, "weights_every": every, **overrides})


def public_run_dir(config: TrainConfig, device: torch.device | str = "cpu") -> Path:
    """The folder of ``config``'s public-solver run: keyed by the config, device, the book's training code and
    this module and the reference solver (a change of either gives a new folder), outside the book's run cache."""
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    _check_device(device)
    _run_device(device)
    key = store.config_hash({"config": config.to_dict(), "device": torch.device(device).type,
                             "version": RESULT_VERSION, "code": code_version(),
                             "public": store.code_digest(reference_solver, sys.modules[__name__]),
                             "solver": {**PUBLIC_ANDERSON, "forward": PUBLIC_FORWARD, "backward": PUBLIC_BACKWARD}})
    return store.cache_dir("deq", "mnist-public-anderson", key)


def train_public(config: TrainConfig, *, data_root=None, device: str | torch.device = "cpu",
                 folder: str | Path | None = None, use_cache: bool = True,
                 progress: Optional[bool] = None) -> TrainResult:
    """Train (or resume, or load) ``config`` with the public solver in the loop, in :func:`public_run_dir` (or
    ``folder``, which must lie outside the book's run cache). The layer's forward and backward settings are the
    config's (the blog's 40 evaluations, tol 1e-4: :data:`PUBLIC_FORWARD`, :data:`PUBLIC_BACKWARD`)."""
    from ..companion.checks import check_bool
    from .train import train_mnist
    if not isinstance(config, TrainConfig):
        raise TypeError(f"config must be a TrainConfig; got {type(config).__name__}")
    if progress is not None:   # 'False' (a string) would read as True
        check_bool("progress", progress)
    check_bool("use_cache", use_cache)
    _run_device(device, present=True)
    folder = Path(folder) if folder is not None else public_run_dir(config, device)
    book = store.cache_dir("deq", "mnist").resolve()
    if folder.resolve() == book or book in folder.resolve().parents:
        raise ValueError(f"{folder} is inside the book's run cache {book}: a public-solver run must not share it")
    with public_anderson():
        return train_mnist(config, data_root=data_root, device=device, folder=folder, use_cache=use_cache,
                           progress=progress)


def _check_pixels(images: torch.Tensor) -> None:
    """``images`` normalised as :mod:`.mnist` normalises test digits: every entry within ``(p − MNIST_MEAN) /
    MNIST_STD`` for a pixel p in [0, 1] (up to 1e-3); else a ValueError naming ``images`` (digits scaled by 1e30
    overflow the layer and its solver's residuals come back NaN)."""
    from .mnist import MNIST_MEAN, MNIST_STD

    lo, hi = (0.0 - MNIST_MEAN) / MNIST_STD - 1e-3, (1.0 - MNIST_MEAN) / MNIST_STD + 1e-3
    if images.numel() and not (float(images.min()) >= lo and float(images.max()) <= hi):
        raise ValueError(f"images must be normalised MNIST digits (entries between {lo:.4f} and {hi:.4f}, pixels in "
                         f"[0, 1] mapped by (p - {MNIST_MEAN}) / {MNIST_STD}); got entries from "
                         f"{float(images.min()):.4g} to {float(images.max()):.4g}")


@contract(every="int:1", batch="int:1", digits="int:1")
def analyse(result: TrainResult, images: torch.Tensor, labels: torch.Tensor, *, every: int = 1000,
            batch: int = 60, digits: int = 1000) -> dict[str, Any]:
    """The numbers of a trained public-solver run: its test accuracy (with the public solver, as trained, and with
    the book's), and at every kept step that is a multiple of ``every`` (and the last) whether the public solver
    reaches its tolerance (:func:`reference_converged_over_training`) on the first ``batch`` test images (B, 1, 28,
    28) and, the book's protocol, the share of the batches of ``batch`` among the first ``digits``; each summarised
    over the last quarter (steps >= 0.75 of the last) and over all. ``every``, ``batch`` and ``digits`` are positive
    integers with ``batch <= digits <= len(images)``; ``images`` normalised as :mod:`.mnist` normalises them (entries
    from (0 − 0.1307) / 0.3081 to (1 − 0.1307) / 0.3081); ``labels`` (B,) integer labels of ``images``."""
    from ..companion.checks import check_tensor
    from .evaluation import evaluate
    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be a TrainResult (a trained public-solver run); got {type(result).__name__}")
    check_tensor("images", images, shape=(None, 1, 28, 28), real=True)
    check_tensor("labels", labels, shape=(len(images),))
    if labels.is_floating_point() or labels.dtype == torch.bool:
        raise TypeError(f"labels must be an integer tensor of digit labels; got dtype {labels.dtype}")
    if not batch <= digits <= len(images):
        raise ValueError(f"digits must lie between batch ({batch}) and the number of images ({len(images)}): the "
                         f"book's protocol reads whole batches of the first digits; got digits={digits}")
    _check_pixels(images)
    kept = result.weight_steps()
    steps = [s for s in kept if s % every == 0 or s == kept[-1]]
    one = reference_solver.reference_converged_over_training(result, images[:batch], steps, batch=batch,
                                                             **PUBLIC_FORWARD)
    many = reference_solver.reference_converged_over_training(result, images[:digits], steps, batch=batch,
                                                              **PUBLIC_FORWARD)
    late = one["step"] >= 0.75 * one["step"][-1]
    book = evaluate(result.load_model(), images, labels)["accuracy"]          # outside the patch: the book's solver
    h = result.history
    n = len(h["forward_converged"])
    conv, res = one["converged"], one["residual"]
    fwd_conv, bwd_evals = h["forward_converged"], h["backward_iterations"]
    return {
        "seed": result.config.seed, "test_accuracy": result.test_accuracy, "test_accuracy_book_solver": book,
        "test_examples": int(result.summary["test_examples"]), "steps": int(result.summary["steps"]),
        "wall_time_s": float(result.summary["wall_time_s"]),
        "analysed_steps": one["step"].tolist(), "batch": batch, "converged": conv.tolist(), "residual": res.tolist(),
        "converged_last_quarter": float(conv[late].mean()), "converged_all": float(conv.mean()),
        "residual_final": float(res[-1]), "residual_median_last_quarter": float(np.median(res[late])),
        "residual_median_all": float(np.median(res)),
        "book_protocol": {"digits": digits, "converged": many["converged"].tolist(),
                          "residual": many["residual"].tolist(),
                          "converged_last_quarter": float(many["converged"][late].mean()),
                          "converged_all": float(many["converged"].mean()),
                          "residual_final": float(many["residual"][-1])},
        # the loop logs the adjoint's evaluations only: all 40 used = unconverged (or converged at the 40th)
        "training": {"forward_converged_all": float(np.mean(fwd_conv)),
                     "forward_converged_last_quarter": float(np.mean(fwd_conv[int(0.75 * n):])),
                     "mean_forward_evaluations": float(np.mean(h["forward_iterations"])),
                     "mean_backward_evaluations": float(np.nanmean(bwd_evals)),
                     "backward_all_evaluations_share": float(np.mean(bwd_evals >= PUBLIC_BACKWARD["max_iter"])),
                     "backward_all_evaluations_share_last_quarter":
                         float(np.mean(bwd_evals[int(0.75 * n):] >= PUBLIC_BACKWARD["max_iter"]))},
        "solver": {**PUBLIC_ANDERSON, "forward": PUBLIC_FORWARD, "backward": PUBLIC_BACKWARD,
                   "source": "mcbal/deep-implicit-attention examples/mnist.py (solver_fwd_*, solver_bwd_*), "
                             "commit 5662265",
                   "result": "lowest-residual iterate; f at it in the training forward; adjoint started at zeros"},
        "config": result.config.to_dict(), "run": f"{Path(result.folder).parent.name}/{Path(result.folder).name}"}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Train the public-solver run of ``--seed`` (resuming a killed one), analyse it, write ``--out`` atomically."""
    from .mnist import load_mnist
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=_seed_option, default=0)
    ap.add_argument("--profile", default="full", choices=("quick", "full"))
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    store.check_file_target(args.out, "--out")
    config = public_config(args.seed, args.profile, args.every)
    result = train_public(config, progress=False)
    print(f"seed {args.seed}: test accuracy {result.test_accuracy:.4f} ({result.folder})", flush=True)
    t0 = time.perf_counter()
    x_test, y_test = load_mnist("test", None, limit=config.test_limit).tensors()
    numbers = analyse(result, x_test, y_test, every=args.every)
    numbers["analysis_s"] = time.perf_counter() - t0
    store.atomic_write_json(args.out, numbers)
    print(f"converged (batch of 60): last quarter {numbers['converged_last_quarter']:.3f}, all "
          f"{numbers['converged_all']:.3f}; final residual {numbers['residual_final']:.3g}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
