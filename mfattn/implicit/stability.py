"""Linear stability of the mean-field fixed point, and what a truncated iteration returns (Chapters 2-3).

At a fixed point ``m* = f(m*)`` of the layer's update ``f`` (:meth:`MeanFieldAttention.update`), a small
perturbation ``δ`` evolves under plain iteration as ``δ ← J_f δ`` with ``J_f = ∂f/∂m`` at ``m*``. Plain
iteration ``m_{k+1} = f(m_k)`` converges to ``m*`` only if the spectral radius ``ρ(J_f) < 1``; for
``ρ(J_f) > 1`` the fixed point repels it. Plain iteration is not a stack of identical transformer blocks
beyond its first step from ``m_0 = X``: ``f`` re-injects the sources ``X`` and keeps the couplings (the
attention) that ``X`` set, while a stacked block recomputes attention from its own input and adds that input
(``tests/test_transformer.py`` shows step 2 differing). For ``ρ(J_f) > 1`` a root finder (Anderson,
Broyden), which solves ``f(m) − m = 0``, can still reach the fixed point, but is not guaranteed to: an
invertible ``I − J_f`` (an isolated root, a defined implicit gradient) is necessary, not sufficient.
Anderson's convergence theory is local and assumes a contraction; with a finite history it can stall on a
linear map whose ``I − J`` is invertible but indefinite, and where ``f`` has several fixed points the one it
returns depends on the start (``tests/test_deq.py``).

* :func:`adjoint_map` is ``v ↦ J_fᵀ v`` at ``m*`` per sample: the layer's closed-form adjoint
  (:meth:`MeanFieldAttention.adjoint_vjp`, learned couplings) or autograd (softmax, mixer).
* :func:`jacobian_spectral_radius` estimates ``ρ(J_f) = ρ(J_fᵀ)`` per sample by power iteration on that map.
* :func:`dense_jacobian` builds ``J_f`` itself (B, Nd, Nd) by autograd, the independent check on small layers.
* :func:`spectral_radius_over_training` follows ρ(J_f) through training from the weights a run kept.
* :func:`unit_crossing` finds where a median ρ passes 1 and where it stays above (:func:`crossing_text`: in words).
* :func:`change_correlation` correlates the changes of two series between kept steps (their common trend removed);
  :func:`change_correlation_difference` compares two such correlations with a paired bootstrap.
* :func:`gradient_check` compares a trained model's implicit gradient with central finite differences of its
  loss, in float64 with tight solves, along random parameter directions (the trained layer, ρ(J_f) > 1 included).
* :func:`accuracy_by_steps` evaluates a trained :class:`~mfattn.implicit.models.MeanFieldMNIST` when its
  layer returns ``k`` plain steps from ``m_0 = X`` (step 1: one transformer-like block) instead of the fixed point.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np
import torch

from ..companion.checks import check_alloc, check_array, check_bool, check_int, check_tensor, contract
from .meanfield import MeanFieldAttention, _check_source

__all__ = ["adjoint_map", "jacobian_spectral_radius", "dense_jacobian", "anderson_fixed_point",
           "fixed_point_spectral_radius", "truncated_logits", "accuracy_by_steps",
           "spectral_radius_over_training", "unit_crossing", "crossing_text", "change_correlation", "change_correlation_difference", "gradient_check",
           "resolvent_norm", "held_out_r2"]


def _check_layer(layer: Any) -> MeanFieldAttention:
    if not isinstance(layer, MeanFieldAttention):
        raise TypeError(f"layer must be a MeanFieldAttention; got {type(layer).__name__}")
    return layer


def _fixed_point(layer: MeanFieldAttention, x: torch.Tensor, m_star: Optional[torch.Tensor]) -> torch.Tensor:
    if m_star is None:
        from ..deq import SolverDivergedError

        try:
            with torch.no_grad():
                return layer(x)
        except SolverDivergedError as err:   # the map is undefined at these sources: say which argument
            raise ValueError(f"x: the layer has no fixed point for these sources (largest |x| "
                             f"{float(x.abs().max()):.3g}): {err}"[:400]) from None
    if not isinstance(m_star, torch.Tensor) or m_star.shape != x.shape:
        raise ValueError(f"m_star must be a tensor of the shape of x {tuple(x.shape)}; got "
                         f"{tuple(m_star.shape) if isinstance(m_star, torch.Tensor) else type(m_star).__name__}")
    return m_star.detach()


@contract(x="tensor:3", m_star="tensor?")
def adjoint_map(layer: MeanFieldAttention, x: torch.Tensor,
                m_star: Optional[torch.Tensor] = None) -> Callable[[torch.Tensor], torch.Tensor]:
    """``v ↦ J_fᵀ v`` for (B, N, d) ``v``, ``J_f = ∂f/∂m`` of the layer's update at ``m_star`` (B, N, d)
    (default: the layer's own fixed point for the sources ``x``). Samples do not mix: sample b's
    ``J_f`` depends on ``x[b], m_star[b]`` only. A ``v`` of another shape than ``x`` is a ValueError."""
    vjp = _adjoint_map(layer, x, m_star)
    shape = tuple(x.shape)

    def checked(v: torch.Tensor) -> torch.Tensor:
        if not isinstance(v, torch.Tensor):
            raise TypeError(f"v must be a torch.Tensor of the shape of x {shape}; got {type(v).__name__}")
        if tuple(v.shape) != shape:
            raise ValueError(f"v must have the shape of x {shape}; got {tuple(v.shape)}")
        return vjp(v)
    return checked


def _adjoint_map(layer: MeanFieldAttention, x: torch.Tensor,
                 m_star: Optional[torch.Tensor] = None) -> Callable[[torch.Tensor], torch.Tensor]:
    """:func:`adjoint_map` whose map does not check ``v`` (for the package's own loops over it)."""
    layer = _check_layer(layer)
    x = _check_source(x, layer.num_spins, layer.dim, next(layer.parameters()).dtype).detach()
    m_star = _fixed_point(layer, x, m_star)
    with torch.no_grad():
        cache = layer.prepare(x)
        closed = layer.adjoint_vjp(m_star, x, cache)
    if closed is not None:
        def vjp(v: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return closed(v)
        return vjp
    with torch.enable_grad():
        m = m_star.clone().requires_grad_()
        fm = layer.update(m, x, cache)

    def vjp(v: torch.Tensor) -> torch.Tensor:
        return torch.autograd.grad(fm, m, v, retain_graph=True)[0]
    return vjp


@contract(x="tensor:3", m_star="tensor?", iters="int:1", seed="int:0")
def jacobian_spectral_radius(layer: MeanFieldAttention, x: torch.Tensor, m_star: Optional[torch.Tensor] = None,
                             *, iters: int = 300, seed: int = 0) -> torch.Tensor:
    """(B,) spectral radius ``ρ(∂f/∂m)`` of the layer's update at the fixed point, per sample, by power
    iteration on ``v ↦ J_fᵀ v`` (:func:`adjoint_map`; ``J_fᵀ`` has the eigenvalues of ``J_f``).

    ``ρ ≈ exp(mean_k log ‖J_fᵀ v_k‖)`` over the second half of ``iters`` normalised iterates: the mean of
    the log growth, not the last ratio, because a dominant complex pair makes the ratio oscillate and
    a non-normal ``J_f`` makes the first iterates grow transiently. Start: a normal vector from ``seed``
    (row b depends only on ``seed`` and b). Plain iteration converges near ``m*`` iff ``ρ < 1``.
    """
    iters = check_int("iters", iters, 2)
    check_int("seed", seed, 0)
    vjp = _adjoint_map(layer, x, m_star)
    B, n, d = x.shape
    gen = torch.Generator().manual_seed(seed)
    v = torch.randn(B, n * d, generator=gen, dtype=torch.float64).to(x.dtype).to(x.device).view(B, n, d)
    v = v / v.flatten(1).norm(dim=1).clamp_min(torch.finfo(x.dtype).tiny)[:, None, None]
    logs = []
    for _ in range(iters):
        w = vjp(v)
        norm = w.flatten(1).norm(dim=1)
        logs.append(torch.log(norm.double().clamp_min(1e-300)))
        v = w / norm.clamp_min(torch.finfo(x.dtype).tiny)[:, None, None]
    return torch.exp(torch.stack(logs[iters // 2:]).mean(dim=0))


@contract(x="tensor:3", m_star="tensor?",
          alloc=lambda a: [("x", 16 * a["x"].shape[0] * (a["x"].shape[1] * a["x"].shape[2]) ** 2)])
def dense_jacobian(layer: MeanFieldAttention, x: torch.Tensor, m_star: Optional[torch.Tensor] = None) -> torch.Tensor:
    """(B, N·d, N·d) Jacobian ``∂f/∂m`` of the update at ``m_star`` per sample, by autograd (for small layers
    and tests: ``Nd`` backward passes)."""
    layer = _check_layer(layer)
    x = _check_source(x, layer.num_spins, layer.dim, next(layer.parameters()).dtype).detach()
    m_star = _fixed_point(layer, x, m_star)
    B, n, d = x.shape
    out = []
    for b in range(B):
        xb = x[b:b + 1]
        cache = layer.prepare(xb)
        jac = torch.autograd.functional.jacobian(lambda m: layer.update(m.view(1, n, d), xb, cache).reshape(-1),
                                                 m_star[b].reshape(-1))
        out.append(jac.detach())
    return torch.stack(out)


#: sample-rows per batched call of :func:`resolvent_norm` (bounds the intermediates vmap holds)
_ROWS_PER_CALL = 4096


@contract(x="tensor:3", m_star="tensor?",
          alloc=lambda a: [("x", 16 * a["x"].shape[0] * (a["x"].shape[1] * a["x"].shape[2]) ** 2)])
def resolvent_norm(layer: MeanFieldAttention, x: torch.Tensor, m_star: Optional[torch.Tensor] = None) -> torch.Tensor:
    """(B,) ``‖(I − J_f)⁻¹‖₂ = 1 / σ_min(I − J_f)`` at ``m_star`` per sample: how close ``I − J_f`` is to singular,
    which is what a Newton-like solver's work follows (Anderson's steps solve with ``I − J_f``), where ``ρ(J_f)``
    says only whether plain iteration contracts. ``J_f`` (B, N·d, N·d) is built from ``N·d`` vector-Jacobian
    products over the whole batch (:func:`adjoint_map`: row k of every sample's ``J_f`` at once); float64 SVD."""
    vjp = _adjoint_map(layer, x, m_star)
    B, n, d = x.shape
    basis = torch.eye(n * d, dtype=x.dtype, device=x.device)

    def row(e):
        return vjp(e.expand(B, n * d).reshape(B, n, d))

    # rows in chunks (vmap over the basis, _ROWS_PER_CALL sample-rows per call); a map
    # vmap cannot batch (autograd's) falls back to one row at a time
    chunk, rows, batched = max(1, _ROWS_PER_CALL // B), [], True
    for start in range(0, n * d, chunk):
        part = basis[start:start + chunk]
        if batched:
            try:
                rows.append(torch.vmap(row)(part).detach())
                continue
            except (RuntimeError, NotImplementedError):
                batched = False
        rows.append(torch.stack([row(e).detach() for e in part]))
    rows = torch.cat(rows)
    jac = rows.reshape(n * d, B, n * d).transpose(0, 1).double()    # row k of sample b's J_f: J_fᵀ e_k
    eye = torch.eye(n * d, dtype=torch.float64, device=jac.device)
    return 1.0 / torch.linalg.svdvals(eye - jac)[:, -1]


@torch.no_grad()
@contract(x="tensor:3", max_iter="int:1", tol="real:>0")
def anderson_fixed_point(layer: MeanFieldAttention, x: torch.Tensor, max_iter: int = 100,
                         tol: float = 1e-4) -> tuple[torch.Tensor, torch.Tensor]:
    """``(m*, converged)``: the fixed point of ``layer`` for the sources ``x`` (B, N, d) found by Anderson
    acceleration with ``max_iter`` evaluations, whatever solver the layer itself uses (a layer trained
    with plain iteration is examined at its fixed point, which plain iteration may not reach), and the
    (B,) bool of the samples that reached ``tol`` (default 1e-4, the MNIST layer's own, reachable in float32)."""
    import copy
    import warnings

    from ..deq import ConvergenceWarning

    layer = copy.deepcopy(_check_layer(layer))
    layer.solver, layer.max_iter, layer.tol = "anderson", check_int("max_iter", max_iter, 1), float(tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = layer(x)
    return m, layer.last_stats["forward"].converged


@contract(x="nantensor:3", max_iter="int:1", iters="int:1")
def fixed_point_spectral_radius(layer: MeanFieldAttention, x: torch.Tensor, *, max_iter: int = 100,
                                iters: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """``(rho, converged)``, (B,) each: the spectral radius of ``∂f/∂m`` (:func:`jacobian_spectral_radius`) at the
    fixed point Anderson finds (:func:`anderson_fixed_point`), and whether it reached it. Samples whose sources
    or fixed point are not finite (a layer whose training diverged) get ``rho = nan`` instead of an error."""
    rho, converged, _, _ = _rho_at_fixed_point(_check_layer(layer), x.detach(), max_iter, iters)
    return rho, converged


def _rho_at_fixed_point(layer, x, max_iter, iters):
    """``(rho, converged, m, usable)``: :func:`fixed_point_spectral_radius`'s numbers, with the fixed point
    ``m`` (B', N, d) Anderson found for the finite samples and ``usable`` (B,) bool, the samples whose sources
    and fixed point are finite (those ``m`` holds, in order; ``m`` is None where there are none)."""
    rho = np.full(len(x), np.nan)
    converged = np.zeros(len(x), dtype=bool)
    usable = np.zeros(len(x), dtype=bool)
    ok = torch.isfinite(x).flatten(1).all(dim=1)
    if not bool(ok.any()):
        return rho, converged, None, usable
    m, conv = anderson_fixed_point(layer, x[ok], max_iter=max_iter)
    finite = torch.isfinite(m).flatten(1).all(dim=1)
    idx = torch.nonzero(ok).flatten().cpu()
    converged[idx.numpy()] = conv.cpu().numpy()
    if not bool(finite.any()):
        return rho, converged, None, usable
    est = jacobian_spectral_radius(layer, x[ok][finite], m[finite], iters=iters)
    rho[idx[finite.cpu()].numpy()] = est.cpu().numpy()
    usable[idx[finite.cpu()].numpy()] = True
    return rho, converged, m[finite], usable


@torch.no_grad()
@contract(images="tensor:4", steps="ints:0")
def truncated_logits(model, images: torch.Tensor, steps: Sequence[int]) -> dict[str, torch.Tensor]:
    """Logits (B, 10) of a :class:`~mfattn.implicit.models.MeanFieldMNIST` whose mean-field layer returns
    ``k`` plain steps ``m_{k+1} = f(m_k)`` from ``m_0 = X`` (the sources) for each ``k`` in ``steps``
    (keys ``"k"``), and the fixed point found by the model's own solver (key ``"fixed point"``)."""
    steps = sorted({check_int("steps", k, 0) for k in steps})
    was_training = model.training
    model.eval()
    try:
        x = model.sources(images)
        layer = model.attention
        cache = layer.prepare(x)
        out, m = {}, x
        for k in range(max(steps, default=0) + 1):
            if k in steps:
                out[str(k)] = model.head(m[:, 0])
            m = layer.update(m, x, cache)
        out["fixed point"] = model.head(layer(x)[:, 0])
    finally:
        model.train(was_training)
    return out


@contract(images="tensor:4", labels="inttensor:1", steps="ints:0", batch_size="int:1")
def accuracy_by_steps(model, images: torch.Tensor, labels: torch.Tensor, steps: Sequence[int] = (1, 2, 5, 10, 40),
                      batch_size: int = 1000) -> dict[str, float]:
    """Test accuracy of a trained MNIST model after ``k`` plain mean-field steps from ``m_0 = X`` for each
    ``k`` in ``steps``, and at the fixed point (:func:`truncated_logits`); non-finite logits count as errors."""
    batch_size = check_int("batch_size", batch_size, 1)
    if len(images) != len(labels):
        raise ValueError(f"images and labels must have one length; got {len(images)} and {len(labels)}")
    correct: dict[str, float] = {}
    device = next(model.parameters()).device
    import warnings
    from ..deq import ConvergenceWarning

    for start in range(0, len(labels), batch_size):
        xb, yb = images[start:start + batch_size].to(device), labels[start:start + batch_size].to(device)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            logits = truncated_logits(model, xb, steps)
        for key, lg in logits.items():
            ok = (lg.argmax(1) == yb) & torch.isfinite(lg).all(dim=1)
            correct[key] = correct.get(key, 0.0) + float(ok.sum())
    return {key: c / len(labels) for key, c in correct.items()}


def spectral_radius_over_training(result: Any, images: torch.Tensor, steps: Optional[Sequence[int]] = None, *,
                                  iters: int = 300, max_iter: int = 100, resolvent: bool = False) -> dict[str, np.ndarray]:
    """The spectral radius of ``∂f/∂m`` at the fixed point over training, from the weights a run kept.

    ``result``: a :class:`~mfattn.implicit.train.TrainResult` trained with ``weights_every``; ``images``
    (B, 1, 28, 28) test digits; ``steps``: which kept steps (default all). For each step, the model with that
    step's weights is examined at the fixed point Anderson finds (:func:`fixed_point_spectral_radius`).
    Returns ``step`` (S,), ``rho`` (S, B; nan where the fixed point is not finite), the quartiles
    ``rho_q25, rho_median, rho_q75`` (S,), ``unstable`` (S,), the fraction of digits with ``ρ > 1``, and
    ``converged`` (S,), the fraction Anderson brought to tolerance within ``max_iter`` evaluations; with
    ``resolvent=True`` also ``resolvent`` (S, B) and ``resolvent_median`` (S,), ``‖(I − J_f)⁻¹‖₂`` at the same fixed
    points (:func:`resolvent_norm`; nan where the fixed point is not finite).
    """
    kept = result.weight_steps() if hasattr(result, "weight_steps") else None
    if kept is None:
        raise TypeError(f"result must be a TrainResult; got {type(result).__name__}")
    if not kept:
        raise ValueError("result kept no weights (train with weights_every set)")
    check_tensor("images", images, shape=(None, 1, 28, 28), real=True)
    resolvent = check_bool("resolvent", resolvent)
    if steps is not None and (isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__")):
        raise TypeError(f"steps must be a list of kept steps or None (all); got {steps!r}"[:200])
    steps = kept if steps is None else [check_int("steps", s, 0) for s in steps]
    if not steps:
        raise ValueError("steps must name at least one kept step (or be None: all of them)")
    missing = sorted(set(steps) - set(kept))
    if missing:
        raise ValueError(f"steps {missing[:5]} were not kept; kept steps: {kept[0]}, {kept[1] if len(kept) > 1 else ''}"
                         f" ... {kept[-1]}")
    rhos, conv, resolvents = [], [], []
    for step in steps:
        model = result.load_model_at(step)
        model.eval()
        with torch.no_grad():
            x = model.sources(images)
        # one Anderson solve per kept step serves both ρ and the resolvent (the same fixed points)
        rho, ok, m, usable = _rho_at_fixed_point(_check_layer(model.attention), x.detach(), max_iter, iters)
        rhos.append(rho)
        conv.append(ok.mean())
        if resolvent:
            res = np.full(len(x), np.nan)
            if m is not None:
                res[usable] = resolvent_norm(model.attention, x[torch.from_numpy(usable)], m).cpu().numpy()
            resolvents.append(res)
    rho = np.stack(rhos)
    q25, med, q75 = np.nanpercentile(rho, [25, 50, 75], axis=1)
    out = {"step": np.asarray(steps), "rho": rho, "rho_q25": q25, "rho_median": med, "rho_q75": q75,
           "unstable": np.nanmean(rho > 1, axis=1), "converged": np.asarray(conv)}
    if resolvent:
        out["resolvent"] = np.stack(resolvents)
        out["resolvent_median"] = np.nanmedian(out["resolvent"], axis=1)
    return out


@contract(steps="reals", level="real")
def unit_crossing(steps: Sequence[float], values: Sequence[float], level: float = 1.0) -> tuple[float, float]:
    """``(first, stays)``: the first step whose value exceeds ``level``, and the first step from which every
    later value exceeds it (the value stays above); ``-1.0`` for either where there is none.
    ``steps`` and ``values``: (n,) in increasing order of step (the kept steps of a training run)."""
    s, v = np.asarray(steps, dtype=float), check_array("values", values, finite=False, allow_int=True)
    if s.ndim != 1 or s.shape != v.shape:
        raise ValueError(f"steps and values must be 1-d and of one length; got shapes {s.shape} and {v.shape}")
    if np.any(np.diff(s) <= 0):   # "first" and "from which on" read the steps in order
        raise ValueError(f"steps must be strictly increasing; got {s.tolist()[:8]}")
    above = v > level
    tail = np.flip(np.cumprod(np.flip(above))).astype(bool)       # above here and at every later step
    return (float(s[above][0]) if above.any() else -1.0, float(s[tail][0]) if tail.any() else -1.0)


@contract(first="real", stays="real")
def crossing_text(first: float, stays: float) -> str:
    """:func:`unit_crossing`'s result as words (numbers glued into the chapter's prose). A ``first < 0`` reads as no
    crossing; ``stays`` must be ``-1`` (never) or a step ``>= first`` (a ValueError otherwise, as unit_crossing
    never returns one)."""
    if first < 0:
        return "at no kept step"
    if 0 <= stays < first:
        raise ValueError(f"stays must be -1 (never) or a step >= first ({first:g}); got {stays:g}")
    if stays == first:
        return f"from step {first:,.0f} on"
    if stays >= 0:
        return f"first at step {first:,.0f}, and at every kept step from step {stays:,.0f} on"
    return f"first at step {first:,.0f}, but not at the last kept step"


def change_correlation(a: Sequence[float], b: Sequence[float]) -> tuple[float, int]:
    """``(r, n)``: the Pearson correlation of the first differences of two series ``a`` and ``b`` ((m,) each, in
    the order of the kept steps, finite) and the number ``n = m − 1`` of differences. Two series that both rise
    correlate whatever drives them; their changes from one kept step to the next correlate only where they move
    together (for n unrelated pairs |r| stays below about 1.96/√n in 95 % of cases). NaN where a series'
    changes are all equal."""
    x, y = check_array("a", a, finite=False, allow_int=True), check_array("b", b, finite=False, allow_int=True)
    if x.ndim != 1 or x.shape != y.shape or x.size < 4 or not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError(f"a and b must be finite 1-d series of one length, at least 4; got shapes {x.shape} and {y.shape}")
    dx, dy = np.diff(x), np.diff(y)
    if dx.std() == 0 or dy.std() == 0:
        return float("nan"), int(dx.size)
    return float(np.corrcoef(dx, dy)[0, 1]), int(dx.size)


def change_correlation_difference(a: Sequence[float], b: Sequence[float], y: Sequence[float], draws: int = 2000,
                                  seed: int = 0) -> dict[str, float]:
    """How much better the changes of ``a`` track the changes of ``y`` than the changes of ``b`` do (three (m,) series
    over the same kept steps, finite, m ≥ 4): ``diff = r(Δa, Δy) − r(Δb, Δy)`` (:func:`change_correlation`) and its
    standard error from a paired bootstrap over the m − 1 changes (the same resampled changes for both correlations,
    so their dependence through Δy is kept; ``draws`` resamples from ``seed``; resamples where a series' changes are
    all equal are left out). Returns ``{"diff", "se", "n"}``; NaN where a correlation is undefined."""
    x, z, w = (check_array(name, v, finite=False, allow_int=True) for name, v in (("a", a), ("b", b), ("y", y)))
    if x.ndim != 1 or not (x.shape == z.shape == w.shape) or x.size < 4 or not all(np.isfinite(v).all() for v in (x, z, w)):
        raise ValueError(f"a, b and y must be finite 1-d series of one length, at least 4; got shapes {x.shape}, "
                         f"{z.shape} and {w.shape}")
    draws, seed = check_int("draws", draws, minimum=2, maximum=100_000), check_int("seed", seed, minimum=0)
    check_alloc("draws", 5 * 8 * draws * (x.size - 1), what="the bootstrap's resampled changes")
    ra, n = change_correlation(x, w)
    rb, _ = change_correlation(z, w)
    dx, dz, dw = np.diff(x), np.diff(z), np.diff(w)
    idx = np.random.default_rng(seed).integers(0, n, size=(draws, n))

    def corr(u, v):   # row-wise Pearson correlation of the resampled changes, NaN where a row is constant
        u, v = u - u.mean(1, keepdims=True), v - v.mean(1, keepdims=True)
        den = np.sqrt((u * u).sum(1) * (v * v).sum(1))
        return np.where(den > 0, (u * v).sum(1) / np.where(den > 0, den, 1.0), np.nan)

    boot = corr(dx[idx], dw[idx]) - corr(dz[idx], dw[idx])
    boot = boot[np.isfinite(boot)]
    se = float(boot.std(ddof=1)) if boot.size > 1 else float("nan")
    return {"diff": float(ra - rb), "se": se, "n": float(n)}


def held_out_r2(predictor: Sequence[float], target: Sequence[float]) -> float:
    """Out-of-sample R² of ``target`` from ``predictor`` ((m,) each, in the order of the kept steps, m ≥ 6): the line
    fitted on the first half of the steps predicts the second half; ``1 − SSE/SST`` on that half (SST about the held-out
    half's own mean, so a prediction no better than that mean scores ≤ 0, and a trend carried over scores > 0 only
    as far as the fitted slope and offset carry). NaN where R² is undefined: the first half's predictor is constant
    (no line to fit) or the held-out target is (SST = 0); :mod:`.seed_numbers` keeps that NaN as "no value"."""
    x, y = check_array("predictor", predictor, allow_int=True), check_array("target", target, allow_int=True)
    if x.ndim != 1 or x.shape != y.shape or x.size < 6:
        raise ValueError(f"predictor and target must be 1-d series of one length, at least 6; got shapes {x.shape} "
                         f"and {y.shape}")
    half = x.size // 2
    if np.ptp(x[:half]) == 0:
        return float("nan")
    slope, offset = np.polyfit(x[:half], y[:half], 1)
    rest = y[half:]
    sst = float(((rest - rest.mean()) ** 2).sum())
    return float("nan") if sst == 0 else 1.0 - float(((rest - (slope * x[half:] + offset)) ** 2).sum()) / sst


@contract(images="tensor:4", labels="inttensor:1", seed="int:0")
def gradient_check(model: Any, images: torch.Tensor, labels: torch.Tensor, *, directions: int = 4,
                   eps: float = 1e-5, tol: float = 1e-12, max_iter: int = 500, seed: int = 0) -> dict[str, Any]:
    """The model's gradient (the implicit one, as trained) against central finite differences of its loss.

    A float64 copy of ``model`` (a :class:`~mfattn.implicit.models.MeanFieldMNIST`; the original is untouched)
    solves forward and adjoint to ``tol`` within ``max_iter`` evaluations. For ``directions`` random unit
    directions ``v`` over all parameters (seeded by ``seed``) it compares ``⟨∇L, v⟩`` with
    ``(L(θ + εv) − L(θ − εv)) / 2ε`` (error O(ε²) plus the solves' ``tol/ε``) of the mean cross-entropy ``L`` on
    ``images`` (B, 1, 28, 28) and ``labels`` (B,). Returns ``rel_error`` (the largest
    ``|FD − implicit| / max(|FD|, |implicit|)`` over the directions), ``implicit`` and ``fd`` (lists), and
    ``converged``: whether every forward solve of the check reached ``tol`` (else the comparison is not at a
    fixed point and says nothing about the implicit gradient)."""
    import copy

    import torch.nn.functional as F

    check_int("directions", directions, minimum=1)
    check_int("max_iter", max_iter, minimum=1)
    if not (isinstance(eps, (int, float)) and 0 < eps < 1) or not (isinstance(tol, (int, float)) and 0 < tol < 1):
        raise ValueError(f"eps and tol must be numbers in (0, 1); got eps={eps!r}, tol={tol!r}")
    classes = getattr(getattr(model, "head", None), "out_features", None)
    if len(labels) != len(images) or bool((labels < 0).any()) or (
            classes is not None and bool((labels >= classes).any())):
        raise ValueError(f"labels must hold one class index in [0, {classes}) per image ({len(images)}); got "
                         f"{len(labels)} labels in [{int(labels.min()) if len(labels) else None}, "
                         f"{int(labels.max()) if len(labels) else None}]")
    net = copy.deepcopy(model).double()
    att = net.attention
    att.tol = att.backward_tol = float(tol)
    att.max_iter = att.backward_max_iter = int(max_iter)
    images, labels = images.double(), labels.long()
    params = [p for p in net.parameters() if p.requires_grad]
    converged = []

    def loss() -> torch.Tensor:
        out = F.cross_entropy(net(images), labels)
        converged.append(bool(att.last_stats["forward"].converged.all()))
        return out

    grads = torch.autograd.grad(loss(), params)
    gen = torch.Generator().manual_seed(seed)
    implicit, fd = [], []
    with torch.no_grad():
        for _ in range(directions):
            v = [torch.randn(p.shape, generator=gen, dtype=torch.float64) for p in params]
            norm = torch.sqrt(sum((x * x).sum() for x in v))
            v = [x / norm for x in v]
            implicit.append(float(sum((g * x).sum() for g, x in zip(grads, v))))
            values = []
            for sign in (1.0, -1.0):
                for p, x in zip(params, v):
                    p.add_(sign * eps * x)
                values.append(float(loss()))
                for p, x in zip(params, v):
                    p.sub_(sign * eps * x)
            fd.append((values[0] - values[1]) / (2 * eps))
    errors = [abs(a - b) / max(abs(a), abs(b), 1e-300) for a, b in zip(fd, implicit)]
    return {"rel_error": max(errors), "implicit": implicit, "fd": fd, "converged": all(converged),
            "digits": int(len(images)), "directions": directions, "eps": eps, "tol": tol}
