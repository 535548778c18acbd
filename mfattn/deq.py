"""Fixed-point solvers over batched states and deep-equilibrium (DEQ) layers.

A DEQ layer outputs the fixed point ``z* = f(z*; θ)``. :func:`solve` finds it for a batch of states
(B, ...) by damped iteration (``plain``), type-II Anderson acceleration (``anderson``, Walker & Ni
2011, ridge scaled to each sample's residual Gram matrix) or limited-memory "good" Broyden
(``broyden``, on ``g(z) = f(z) - z``). Each sample has its own residual, stopping decision and
statistics (its result does not depend on its batch-mates) and gets ``f`` at its best iterate,
never the un-mapped iterate. A guard ends a sample's run where its residual turns NaN/inf or grows
``divergence_factor`` times above its best; such samples are flagged ``diverged`` and reported.

:func:`deq_fixed_point` adds gradients by the implicit function theorem: for a loss ``L`` with
``g = ∂L/∂z*``, ``dL/dθ = (∂f/∂θ)ᵀ y`` where the adjoint fixed point ``y = J_fᵀ y + g``
(``J_f = ∂f/∂z`` at ``z*``) is found with the same solvers. The cheaper "phantom" gradient
backpropagates through a few damped steps ``z ← (1-τ) z + τ f(z)`` from the detached solution
(``steps=1, tau=1``: the Jacobian-free gradient of Fung et al. 2022).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

import numpy as np
import torch

from .companion.checks import (check_alloc, check_choice, check_generator, check_int, check_positive, check_real,
                               check_tensor, check_work, contract)
from .companion.checks_scalars import _takes_one
from .companion.work import MIN_UNITS_PER_ITERATION, check_call_work
# the iteration's steppers live in a module of their own (one job each); the solver below drives them
from .deq_steppers import _Anderson, _bdot, _Broyden, _check_stats_fields, _Plain  # noqa: F401

__all__ = ["SolverStats", "ConvergenceWarning", "SolverDivergedError", "SOLVERS", "solve", "solver_defaults",
           "deq_fixed_point", "linear_contraction"]

SOLVERS = ("plain", "anderson", "broyden")
ON_FAIL = ("warn", "raise", "ignore")

# Options each method accepts beyond max_iter/tol, with their defaults.
_COMMON = {"eps": 1e-12, "divergence_factor": 1e6, "on_fail": "warn", "label": "fixed-point"}
_METHOD_OPTIONS = {
    "plain": {"damping": 1.0},
    "anderson": {"memory": 8, "ridge": None, "damping": 1.0},
    "broyden": {"memory": None, "damping": 1.0},
}


def solver_defaults(method: str) -> dict[str, Any]:
    """The default options of ``method`` (one of :data:`SOLVERS`), a fresh dict."""
    return {**_COMMON, **_METHOD_OPTIONS[check_choice("method", method, SOLVERS)]}


class ConvergenceWarning(RuntimeWarning):
    """A fixed-point solve stopped before reaching its tolerance (or diverged)."""


class SolverDivergedError(RuntimeError):
    """Raised instead of a warning when ``on_fail="raise"`` and a solve fails."""


@dataclass
class SolverStats:
    """Per-sample statistics of one batched fixed-point solve.

    Attributes:
        iterations: (B,) int64, evaluations of ``f`` the sample used before it stopped.
        residual:   (B,) relative residual ``‖f(z)-z‖ / (‖f(z)‖+eps)`` of the returned point.
        converged:  (B,) bool, residual < tol.
        trace:      (K, B) relative residual at each evaluation (K: evaluations of the batch);
                    after a sample stopped, its column repeats ``residual`` (so for converged
                    samples ``trace[-1] == residual``).
        diverged:   (B,) bool, stopped by the NaN/divergence guard, or ended with a residual
                    above its first one.
        method, tol, max_iter: the settings used.
    """

    iterations: torch.Tensor
    residual: torch.Tensor
    converged: torch.Tensor
    trace: torch.Tensor
    diverged: torch.Tensor = field(default=None)  # type: ignore[assignment]
    method: str = "anderson"
    tol: float = 1e-4
    max_iter: int = 40

    @property
    def all_converged(self) -> bool:
        return bool(self.converged.all())

    def summary(self) -> dict[str, float]:
        """Batch summary as plain floats: mean/max iterations, max residual, fractions. The statistics must be
        tensors of a non-empty batch (as :func:`solve` makes them): anything else is refused, naming the field."""
        _check_stats_fields(self)   # tensors of one kind each, dense, with values, one per sample
        if bool((self.iterations < 0).any()) or bool((self.iterations > self.max_iter).any()):
            # evaluations of f: a count, at most max_iter (solve and the public code's solver stop there)
            raise ValueError(f"SolverStats.iterations must be counts of evaluations in [0, max_iter = "
                             f"{self.max_iter}]; got {int(self.iterations.min())} to {int(self.iterations.max())}")
        if self.converged.dtype != torch.bool:
            raise TypeError(f"SolverStats.converged must be a bool tensor; got {self.converged.dtype}")
        if self.converged.shape != self.residual.shape or bool((self.converged & ~(self.residual < self.tol)).any()):
            # converged means residual < tol (solve makes them so): a NaN or large residual flagged converged is
            # a hand-made record, and its summary would report a converged fraction the residuals contradict
            raise ValueError(f"SolverStats.converged must flag only samples with residual < tol ({self.tol:g}); "
                             f"got a converged sample with residual "
                             f"{self.residual[self.converged & ~(self.residual < self.tol)][:1].tolist()}"
                             if self.converged.shape == self.residual.shape else
                             f"SolverStats.converged {tuple(self.converged.shape)} and residual "
                             f"{tuple(self.residual.shape)} must be one per sample")
        return {"mean_iterations": float(self.iterations.double().mean()),
                "max_iterations": int(self.iterations.max()),
                "max_residual": float(self.residual.max()),
                "converged_fraction": float(self.converged.double().mean()),
                "diverged_fraction": float(self.diverged.double().mean())}


def _resolve_options(method: str, max_iter: int, tol: float, options: dict[str, Any]) -> dict[str, Any]:
    check_choice("method", method, SOLVERS)
    check_int("max_iter", max_iter, 1)
    check_positive("tol", tol)
    allowed = {**_COMMON, **_METHOD_OPTIONS[method]}
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for method {method!r}; known: {sorted(allowed)}")
    opts = {**allowed, **options}
    check_choice("on_fail", opts["on_fail"], ON_FAIL)
    check_real("damping", opts["damping"], minimum=0.0, maximum=2.0, strict=True)
    if opts.get("memory") is not None:
        check_int("memory", opts["memory"], 1)
    if opts.get("ridge") is not None:
        check_real("ridge", opts["ridge"], minimum=0.0)
    check_real("divergence_factor", opts["divergence_factor"], minimum=1.0, strict=True, allow_inf=True)
    check_real("eps", opts["eps"], minimum=0.0)
    return opts


def _report(stats: SolverStats, on_fail: str, label: str) -> None:
    if on_fail == "ignore" or stats.all_converged:
        return
    failed = ~stats.converged
    nfail, B = int(failed.sum()), stats.converged.numel()
    worst = float(stats.residual[failed].max())
    msg = (f"{label} solve ({stats.method}) did not converge for {nfail} of {B} sample(s): "
           f"max relative residual {worst:.3g} > tol {stats.tol:.3g} after "
           f"{int(stats.iterations[failed].max())} iteration(s) (max_iter {stats.max_iter})")
    ndiv = int(stats.diverged.sum())
    if ndiv:
        msg += (f"; {ndiv} sample(s) diverged (residual NaN/inf or growing): the map is not a "
                f"contraction there — lower the coupling scale, damp, or use another method")
    if on_fail == "raise":
        raise SolverDivergedError(msg)
    warnings.warn(msg, ConvergenceWarning, stacklevel=3)


def _buffers(a: dict) -> list[tuple[str, int]]:
    """The bytes :func:`solve`'s method allocates before its loop (its history buffers: Anderson's ``2 B·m·n`` and
    ``B·m²`` and its ``m³`` scaled identities, Broyden's ``2 B·m·n``, and the first block of ``min(max_iter, 64)``
    evaluations), by the option that sets them; none for arguments of a wrong kind (the body's checks name them) and
    none for buffers of at most 16 MiB."""
    z0, options, max_iter = a["z0"], a["options"], a["max_iter"]
    memory = options.get("memory")
    counts = (max_iter, memory if memory is not None else 1)
    if not isinstance(z0, torch.Tensor) or any(isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1
                                               for c in counts):
        return []
    max_iter, memory = int(max_iter), None if memory is None else int(memory)   # exact Python ints, however large
    size = z0.element_size() * z0.numel()   # B·n entries
    method = a["method"]
    m = memory if memory is not None else (8 if method == "anderson" else min(max_iter, 64))
    batch = z0.shape[0] if z0.dim() >= 1 else 1
    history = (2 * m * size + z0.element_size() * (batch * m * m + m ** 3) if method == "anderson" else
               2 * m * size if method == "broyden" else 0)
    need = history + min(max_iter, 64) * size
    # below 16 MiB there is nothing to refuse, and the check (it reads the free memory) would cost each small solve
    return [("memory" if memory is not None else "z0", need)] if need > 2**24 else []


@contract(alloc=_buffers)  # its loop's work (max_iter x entries of z0) is checked before the body: companion.work
def solve(f: Callable[[torch.Tensor], torch.Tensor], z0: torch.Tensor, *, method: str = "anderson",
          max_iter: int = 40, tol: float = 1e-4, **options: Any) -> tuple[torch.Tensor, SolverStats]:
    """Solve ``z = f(z)`` for a batch of states ``z0`` of shape (B, ...).

    Args:
        f: maps a tensor of shape ``z0.shape`` to the same shape; samples should not interact.
        z0: (B, ...) initial guess.
        method: ``"plain"``, ``"anderson"`` or ``"broyden"``.
        max_iter: maximum evaluations of ``f`` (>= 1).
        tol: a sample stops once ``‖f(z)-z‖ / (‖f(z)‖+eps) < tol`` (norms per sample); a 0-d tensor or array (here
            and for the real options) is read as its value.
        options: ``damping`` (β, all methods, default 1), ``memory`` (Anderson history, default 8;
            Broyden rank, default ``min(max_iter, 64)``), ``ridge`` (Anderson, relative to the mean
            diagonal of the per-sample residual-difference Gram matrix; default 1e-10 in
            float64, 1e-5 otherwise), ``eps`` (1e-12), ``divergence_factor`` (1e6: stop a
            sample whose absolute residual exceeds this multiple of its best),
            ``on_fail`` (``"warn"``, ``"raise"``, ``"ignore"``), ``label`` (for messages). A map that is NaN or
            inf at every iterate of a sample raises :class:`SolverDivergedError` unless ``on_fail="ignore"``.

    Returns:
        ``(z, stats)``: ``z`` (shape of ``z0``) is ``f`` evaluated at each sample's best iterate; ``stats`` is a
        :class:`SolverStats`. Runs without building a graph of the iterations (``f`` may still call
        ``torch.autograd.grad`` internally). Every ``f(x)`` is kept until the end, for the best-iterate pick:
        memory for the iterations run (``iterations · B · n`` numbers), the price of fewer operations per iteration.
    """
    if not callable(f):
        raise TypeError(f"f must be a callable z -> f(z) (the map whose fixed point is sought); got {type(f).__name__}")
    _takes_one("f", f)
    opts = _resolve_options(method, max_iter, tol, options)
    if not isinstance(z0, torch.Tensor):
        raise TypeError(f"z0 must be a torch.Tensor; got {type(z0).__name__}")
    if z0.dim() < 1 or z0.shape[0] < 1 or z0.numel() == 0:
        raise ValueError(f"z0 must have a non-empty batch dimension (B, ...); got shape {tuple(z0.shape)}")
    check_tensor("z0", z0, real=True)
    if z0.dtype == torch.bfloat16:   # the statistics below go through numpy, which has no bfloat16
        raise TypeError("z0 must be float16, float32 or float64; got torch.bfloat16 (numpy, which keeps the solver's "
                        "statistics, has no bfloat16: cast z0 and the map)")
    # a 0-d tensor or array is a valid number (the checks above read its value): the loop compares and scales
    # with its value, a Python float (a tensor would meet numpy's arrays below, which cannot compare with it)
    if isinstance(tol, (torch.Tensor, np.ndarray)):
        tol = float(tol)
    for key in ("damping", "ridge", "eps", "divergence_factor"):
        if isinstance(opts.get(key), (torch.Tensor, np.ndarray)):
            opts[key] = float(opts[key])
    shape, B = z0.shape, z0.shape[0]
    eps, dfac = opts["eps"], opts["divergence_factor"]

    flat = z0.dim() == 2  # (B, n) states need no reshaping on the way in and out

    def F(x: torch.Tensor) -> torch.Tensor:
        out = f(x if flat else x.view(shape))
        if not isinstance(out, torch.Tensor) or out.shape != shape or out.layout != torch.strided:
            if isinstance(out, torch.Tensor) and out.shape == shape:   # sparse: no copy into the dense history
                raise TypeError(f"f must return a dense (strided) tensor of the state's shape {tuple(shape)}; got "
                                f"layout {out.layout} (call .to_dense() in f)")
            got = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
            raise ValueError(f"f must return a tensor of the state's shape {tuple(shape)}; got {got}")
        if out.dtype != z0.dtype or out.device != z0.device:
            raise TypeError(f"f must return the state's dtype and device ({z0.dtype}, {z0.device}); "
                            f"got ({out.dtype}, {out.device}): cast z0 or the map so that they agree")
        return out if flat else out.reshape(B, -1)

    with torch.no_grad():
        x = z0.detach().reshape(B, -1).clone()
        stepper: Any = (_Plain(opts["damping"]) if method == "plain" else
                        _Anderson(x, opts["memory"], opts["ridge"], opts["damping"]) if method == "anderson" else
                        _Broyden(x, opts["memory"] or min(max_iter, 64), opts["damping"]))

        dev = x.device
        # The loop keeps only each sample's smallest relative residual so far (NaN sticks). A
        # stopped sample is still iterated with the batch, but nothing after its stop enters its
        # result: results, statistics and the divergence guard are rebuilt from the histories
        # afterwards (fewer operations per iteration; every operation acts row by row).
        rel_hist, abs_hist = [], []
        # Each f(x), for the best-iterate pick; grown by doubling (memory for the iterations run).
        fx_hist = x.new_empty(min(max_iter, 64), B, x.shape[1])
        lowest = None
        for k in range(1, max_iter + 1):
            if k > len(fx_hist):
                grown = x.new_empty(min(2 * len(fx_hist), max_iter), B, x.shape[1])
                grown[:k - 1].copy_(fx_hist)
                fx_hist = grown
            fx = fx_hist[k - 1]
            fx.copy_(F(x))
            g = fx - x
            abs_r = torch.linalg.vector_norm(g, dim=1)
            rel_r = abs_r / torch.linalg.vector_norm(fx, dim=1).add_(eps)
            rel_hist.append(rel_r), abs_hist.append(abs_r)
            lowest = rel_r if lowest is None else torch.minimum(lowest, rel_r)
            # Every comparison with NaN is False, and an overflow to inf gives rel = NaN:
            # a sample stops when converged or when its residual is NaN.
            if k == max_iter or not bool((lowest >= tol).any()):
                break
            x = stepper.step(x, fx, g)

        # The statistics are bookkeeping on (K, B) numbers: numpy does it at about a
        # microsecond per operation, a few times less than tensor operations cost.
        rel = torch.stack(rel_hist).cpu().numpy()                              # (K, B)
        ab = torch.stack(abs_hist).cpu().numpy()
        cols = np.arange(B)
        # Iterating at evaluation k: no earlier evaluation converged or was NaN.
        active = np.ones_like(rel, dtype=bool)
        active[1:] = np.logical_and.accumulate(rel >= tol, axis=0)[:-1]
        # Live evaluations: iterating, finite, and not far above the best residual so far.
        # A sample's run ends at its first evaluation that is not live (the guard).
        prev_min = np.full_like(ab, np.inf)
        prev_min[1:] = np.minimum.accumulate(ab, axis=0)[:-1]
        live = np.logical_and.accumulate(active & (ab <= dfac * prev_min) & np.isfinite(rel), axis=0)
        act = active.copy()
        act[1:] &= live[:-1]
        masked = np.where(live, rel, np.inf)
        best_k = masked.argmin(axis=0)                                         # first minimum
        best_rel = masked[best_k, cols]
        iterations = act.sum(axis=0)
        converged = (live & (rel < tol)).any(axis=0)
        guarded = (act & ~live).any(axis=0)
        last_abs = ab[np.maximum(iterations - 1, 0), cols]
        diverged = guarded | (~converged & (last_abs > ab[0]))
        trace = np.where(act, rel, best_rel)

        pick = torch.from_numpy(best_k * B + cols).to(dev)
        best_f = fx_hist.view(-1, x.shape[1]).index_select(0, pick)
        # (a sample with no finite evaluation keeps its first, non-finite f(x), flagged diverged)
        best_rel, iterations, converged, diverged, trace = (
            torch.from_numpy(a).to(dev) for a in (best_rel, iterations, converged, diverged, trace))
        stats = SolverStats(iterations=iterations, residual=best_rel, converged=converged, trace=trace,
                            diverged=diverged, method=method, tol=float(tol), max_iter=max_iter)
        undefined = ~torch.isfinite(fx_hist[:len(rel_hist)]).all(-1).any(0).cpu().numpy()  # f, not rel (overflow)
    if undefined.any() and opts["on_fail"] != "ignore":
        raise SolverDivergedError(
            f"{opts['label']} solve: f returned NaN or inf at every iterate of {int(undefined.sum())} of {B} "
            f"sample(s) (the first: sample {int(undefined.argmax())}): the map is not defined there; check its "
            f"inputs and scale (on_fail='ignore' returns the non-finite values, flagged diverged)")
    _report(stats, opts["on_fail"], opts["label"])
    return best_f.view(shape), stats


_FORWARD_DEFAULTS = {"method": "anderson", "max_iter": 40, "tol": 1e-4}
GRAD_MODES = ("implicit", "phantom")


def _split(spec: Optional[dict], defaults: dict, name: str) -> dict:
    if spec is not None and not isinstance(spec, dict):
        raise TypeError(f"{name} must be a dict of solver options; got {type(spec).__name__}")
    return {**defaults, **(spec or {})}


def deq_fixed_point(f: Callable[[torch.Tensor], torch.Tensor], z0: torch.Tensor,
                    params: Optional[Iterable[torch.Tensor]] = None, *,
                    forward: Optional[dict] = None, backward: Optional[dict] = None,
                    grad: str = "implicit",
                    vjp: Optional[Callable[[torch.Tensor], Callable[[torch.Tensor], torch.Tensor]]] = None,
                    ) -> tuple[torch.Tensor, dict]:
    """Fixed point ``z* = f(z*)`` with gradients by implicit differentiation.

    Args:
        f: the layer's map, closing over its input and parameters; shape (B, ...) -> (B, ...).
        z0: (B, ...) initial guess (no gradient flows into it).
        params: the tensors ``f`` depends on. Only used to skip building a graph when none of
            them requires a gradient (``None``: decide from grad mode alone). Gradients reach
            every tensor ``f`` closes over, listed or not.
        forward: solver options for the forward solve, passed to :func:`solve`
            (default ``method="anderson", max_iter=40, tol=1e-4``).
        backward: for ``grad="implicit"``: solver options for the adjoint fixed point
            ``y = J_fᵀ y + g`` (defaults: the forward's method/max_iter/tol);
            for ``grad="phantom"``: ``{"steps": 1, "tau": 1.0}``.
        grad: ``"implicit"`` (implicit function theorem) or ``"phantom"``.
        vjp: optional closed form of the adjoint map for ``grad="implicit"``: ``vjp(z_star)``
            returns a function ``v -> J_f(z*)ᵀ v`` ((B, ...) -> (B, ...), building no graph).
            The adjoint solve then calls it instead of ``torch.autograd.grad``: same result
            to rounding, several times cheaper per iteration for small layers, where the
            autograd engine's overhead dominates. Gradients with respect to the parameters
            still go through autograd, once.

    Returns:
        ``(z_star, stats)``: ``z_star`` has the value returned by the forward solve in every
        grad mode (training and evaluation give identical outputs); ``stats`` is a dict
        ``{"forward": SolverStats, "backward": SolverStats | None}`` whose ``"backward"``
        entry is filled in when the backward pass runs (the latest adjoint solve).
        Works under ``torch.no_grad()`` in any module mode.
    """
    check_choice("grad", grad, GRAD_MODES)
    check_tensor("z0", z0, real=True)
    if not callable(f):
        raise TypeError(f"f must be a callable z -> f(z) (the layer's map); got {type(f).__name__}")
    if params is not None:
        if isinstance(params, torch.Tensor) or not isinstance(params, Iterable):
            raise TypeError(f"params must be None or an iterable of tensors (e.g. module.parameters()); "
                            f"got {type(params).__name__}")
        params = list(params)
        if not all(isinstance(p, torch.Tensor) for p in params):
            raise TypeError(f"params must hold tensors only; got {sorted({type(p).__name__ for p in params})}")
        for i, p in enumerate(params):   # real floating and dense, as f's gradients are (no scan of the values)
            check_tensor(f"params[{i}]", p, real=True, finite=False)
    if vjp is not None and not callable(vjp):
        raise TypeError(f"vjp must be None or a callable z_star -> (v -> J_fᵀ v); got {type(vjp).__name__}")
    fwd = _split(forward, _FORWARD_DEFAULTS, "forward")
    if grad == "implicit":
        bwd = _split(backward, {k: fwd[k] for k in ("method", "max_iter", "tol")}, "backward")
        _resolve_options(bwd.get("method"), bwd.get("max_iter"), bwd.get("tol"),
                         {k: v for k, v in bwd.items() if k not in ("method", "max_iter", "tol")})
        # the adjoint solve runs at backward time, on a state of z0's size: its work is checked now, with the call
        check_call_work("mfattn.deq:solve", {"z0": z0, "max_iter": bwd["max_iter"]},
                        what="deq_fixed_point()'s backward (adjoint) solve")
    else:
        bwd = _split(backward, {"steps": 1, "tau": 1.0}, "backward")
        unknown = sorted(set(bwd) - {"steps", "tau"})
        if unknown:
            raise ValueError(f"unknown phantom-gradient option(s) {unknown}; known: ['steps', 'tau']")
        check_int("phantom steps", bwd["steps"], 1)
        check_real("phantom tau", bwd["tau"], minimum=0.0, maximum=1.0, strict=True)
        # each step is one evaluation of f on z0's entries (at least MIN_UNITS_PER_ITERATION: its Python overhead)
        steps = int(bwd["steps"])
        check_work(f"backward['steps']={steps}", steps * max(z0.numel(), MIN_UNITS_PER_ITERATION),
                   what="deq_fixed_point()'s phantom gradient", unit="state-entry evaluations (steps × entries of z0)")
    fwd.setdefault("label", "forward fixed-point")

    stats: dict[str, Optional[SolverStats]] = {"forward": None, "backward": None}
    z_star, stats["forward"] = solve(f, z0.detach(), **fwd)

    needs_graph = torch.is_grad_enabled()
    if needs_graph and params is not None:
        needs_graph = any(isinstance(p, torch.Tensor) and p.requires_grad for p in params)
    if not needs_graph:
        return z_star, stats

    if grad == "phantom":
        z = z_star.detach()
        for _ in range(bwd["steps"]):
            z = (1 - bwd["tau"]) * z + bwd["tau"] * f(z)
        # Same value as the forward solution; gradient of the unrolled steps.
        return z_star.detach() + (z - z.detach()), stats

    z_leaf = z_star.detach().requires_grad_()
    fz = f(z_leaf)
    if not fz.requires_grad:
        return z_star, stats
    adj_opts = {k: v for k, v in bwd.items() if k not in ("method", "max_iter", "tol")}
    adj_opts.setdefault("label", "backward (adjoint) fixed-point")

    inside = [False]

    def implicit_hook(g: torch.Tensor) -> torch.Tensor:
        # The vector-Jacobian products below start from fz and would re-enter this hook.
        if inside[0] or g is None:
            return g
        if torch.is_grad_enabled():
            # backward(create_graph=True): the adjoint solve below builds no graph, so a
            # second derivative would be silently wrong.
            raise RuntimeError("deq_fixed_point: higher-order gradients (create_graph=True) through the "
                               "implicit backward are not supported; use grad='phantom' for those")

        if vjp is not None:
            with torch.no_grad():
                closed = vjp(z_leaf.detach())

            if not callable(closed):
                raise TypeError(f"vjp(z_star) must return a function v -> J_fᵀ v; got {type(closed).__name__}")

            def adjoint(y: torch.Tensor) -> torch.Tensor:
                out = closed(y)
                if not isinstance(out, torch.Tensor):
                    raise TypeError(f"vjp(z_star) must return a function v -> J_fᵀ v returning a tensor; got "
                                    f"{type(out).__name__}")
                if out.shape != y.shape:   # a (1, n) row would broadcast against g: a wrong gradient
                    raise ValueError(f"vjp(z_star) must return a function v -> J_fᵀ v of v's shape {tuple(y.shape)}; "
                                     f"got {tuple(out.shape)}")
                return out + g
        else:
            # y = J_fᵀ y + g through autograd, on a graph of f at z* built here: a hook that
            # held fz itself would form a cycle (fz -> its grad_fn -> this hook -> fz) that
            # Python's garbage collector cannot free, leaking every step's graph.
            with torch.enable_grad():
                f_star = f(z_leaf)

            def adjoint(y: torch.Tensor) -> torch.Tensor:
                return torch.autograd.grad(f_star, z_leaf, y, retain_graph=True)[0] + g

        inside[0] = True
        try:
            y, stats["backward"] = solve(adjoint, g.detach().clone(), method=bwd["method"],
                                         max_iter=bwd["max_iter"], tol=bwd["tol"], **adj_opts)
        finally:
            inside[0] = False
        return y

    fz.register_hook(implicit_hook)
    return z_star.detach() + (fz - fz.detach()), stats


@contract()  # its work (the QR and two products of n x n matrices, n³ each) is checked first: companion.work
def linear_contraction(n: int, rho: float, *, generator: Optional[torch.Generator] = None,
                       dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """A symmetric (n, n) test map ``W`` with spectral radius exactly ``rho``.

    ``W = rho · Q diag(linspace(-1, 1, n)) Qᵀ`` with ``Q`` a random orthogonal basis (QR of a
    Gaussian matrix drawn from ``generator``): eigenvalues evenly spread over ``[-rho, rho]``, so
    plain iteration of ``z ↦ W z + b`` contracts at rate ``rho`` and solvers can be raced on it.
    """
    check_int("n", n, 1)
    check_real("rho", rho, minimum=0.0)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype (e.g. torch.float64); got {dtype!r}")
    if rho > torch.finfo(dtype).max:   # |W_ij| <= rho: the cast would make entries infinite
        raise ValueError(f"rho must be at most the largest {dtype} ({torch.finfo(dtype).max:g}); got {rho!r}")
    if generator is not None:
        check_generator("generator", generator)
    check_alloc("n", 4 * n * n * 8)
    q, _ = torch.linalg.qr(torch.randn(n, n, generator=generator, dtype=torch.float64))
    return (rho * q @ torch.diag(torch.linspace(-1, 1, n, dtype=torch.float64)) @ q.T).to(dtype)
