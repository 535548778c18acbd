"""Plots of Chapters 2-3 (Deep Implicit Attention, Bal 2021): each function takes results and returns a figure.

Chapter 2: :func:`solver_race`, :func:`mnist_training`, :func:`couplings` (and
:func:`coupling_animation`), :func:`settling`, :func:`confusion`, :func:`fixed_point_stability`, :func:`stability_over_training`, :func:`learned_correction`,
:func:`full_cpu`, :func:`early_frames`. Styling comes from the
book's style sheet (``mfattn.companion.mfattn``), applied by ``ChapterRun``.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from ..companion.checks import check_array, check_choice, check_real, contract
# the shared input checks, the coupling figures and Chapter 3's figures live in modules of their own; re-exported here
from .figures_checks import SITES, _check_norms, _check_steps, _series
from .figures_couplings import coupling_animation, coupling_graph, couplings, early_frames, settling
from .figures_transformer import ONSAGER_LABELS, _check_curves, _check_scaling, onsager, tap_cost, transformer_steps

__all__ = ["solver_race", "mnist_training", "coupling_graph", "couplings", "coupling_animation",
           "settling", "confusion", "fixed_point_stability", "stability_over_training",
           "learned_correction", "full_cpu", "early_frames", "running_mean", "transformer_steps", "tap_cost", "onsager"]

SOLVER_COLORS = {"plain": "C0", "anderson": "C1", "broyden": "C2"}


@contract(race="mapping", rhos="reals:>0", tol="real:>0")
def solver_race(race: dict, rhos: Sequence[float], methods: Sequence[str], tol: float) -> plt.Figure:
    """Batch-mean relative residual against evaluations of f, one panel per spectral radius ρ.
    ``race[rho, method] = (SolverStats, seconds)``."""
    if isinstance(methods, str) or not hasattr(methods, "__iter__"):
        raise TypeError(f"methods must be a list of solver names; got {methods!r}"[:200])
    for method in methods:
        check_choice("each entry of methods", method, tuple(SOLVER_COLORS))
    missing = [(rho, m) for rho in rhos for m in methods if (rho, m) not in race]
    if missing:
        raise ValueError(f"race lacks the (rho, method) entries {missing[:3]}")
    rhos = list(rhos)
    fig, axes = plt.subplots(1, len(rhos), figsize=(3.2 * len(rhos), 3.2), sharey=True)
    for ax, rho in zip(axes, rhos):
        for method in methods:
            trace = race[rho, method][0].trace.numpy()
            ax.semilogy(np.arange(1, len(trace) + 1), trace.mean(1), color=SOLVER_COLORS[method], label=method)
        ax.axhline(tol, color="0.5", ls=":", lw=1)
        ax.set(title=rf"$\rho$ = {rho}", xlabel="evaluations of $f$")
    axes[0].set_ylabel("relative residual (batch mean)")
    axes[0].legend()
    return fig


@contract(x="array:1", w="int:1")
def running_mean(x: np.ndarray, w: int) -> np.ndarray:
    """Mean over windows of ``w`` consecutive values (length len(x) - w + 1; ``w`` at most len(x))."""
    if w > len(x):
        raise ValueError(f"w must be at most len(x) = {len(x)} (a window of the series); got {w}")
    return _running_mean(x, w)


@contract(x="array:1", w="int:1")
def _running_mean(x: np.ndarray, w: int) -> np.ndarray:
    """:func:`running_mean` with ``w`` clamped to ``[1, len(x)]`` (the figures' windows on short histories)."""
    w = max(1, min(w, len(x)))
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[w:] - c[:-w]) / w


@contract(h="mapping:loss|eval_step|test_accuracy|forward_iterations|backward_iterations", test_examples="int:1")
def mnist_training(h: dict, test_examples: int) -> plt.Figure:
    """Training loss (and running mean), test accuracy (on ``test_examples`` digits: the whole test set at paper
    scale, a subset in the quick profile), Anderson iterations per step. The step logs (``loss``, the iterations) must
    have one length, ``eval_step`` and ``test_accuracy`` (a fraction in [0, 1]) another; NaN marks a missing value."""
    n = len(_series("h['loss']", h["loss"], finite=False))
    for key in ("forward_iterations", "backward_iterations"):
        _series(f"h[{key!r}]", h[key], length=n, other="h['loss']", finite=False)
    _series("h['test_accuracy']", h["test_accuracy"], length=len(_series("h['eval_step']", h["eval_step"])),
            other="h['eval_step']", finite=False, minimum=0.0, maximum=1.0)
    steps = np.arange(1, len(h["loss"]) + 1)
    w = max(5, len(steps) // 20)
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
    ax = axes[0]
    ax.plot(steps, h["loss"], color="C0", alpha=0.25, lw=0.8)
    ax.plot(steps[w - 1:], _running_mean(h["loss"], w), color="C0", label=f"running mean ({w} steps)")
    ax.set(xlabel="optimiser step", ylabel="training cross-entropy", title="training loss")
    ax.legend()
    ax = axes[1]
    ax.plot(h["eval_step"], 100 * h["test_accuracy"], "o-", ms=3, color="C3")
    ax.axhline(10, color="0.5", ls=":", lw=1)
    ax.set(xlabel="optimiser step", ylabel="test accuracy (%)", title=f"test accuracy ({test_examples} digits)")
    ax = axes[2]
    ax.plot(steps, h["forward_iterations"], color="C1", lw=0.8, label="forward")
    ax.plot(steps, h["backward_iterations"], color="C2", lw=0.8, label="backward (adjoint)")
    ax.axhline(40, color="0.5", ls=":", lw=1)
    ax.set(xlabel="optimiser step", ylabel="solver iterations (batch mean)", ylim=(0, 42), title="Anderson iterations")
    ax.legend()
    return fig


def confusion(cm: np.ndarray) -> plt.Figure:
    """A confusion matrix: counts written, shading by the fraction of each true digit."""
    cm = check_array("cm", cm, integer=True)
    if cm.shape != (10, 10) or (cm < 0).any():
        raise ValueError(f"cm must be a (10, 10) matrix of counts (>= 0); got shape {cm.shape}"
                         + (" with a negative entry" if cm.shape == (10, 10) else ""))
    fig, ax = plt.subplots(figsize=(4.6, 4))
    rates = cm / cm.sum(1, keepdims=True)
    ax.imshow(rates, cmap="Blues", vmin=0, vmax=1)
    for i in range(10):
        for j in range(10):
            if cm[i, j]:
                ax.text(j, i, cm[i, j], ha="center", va="center", fontsize=7,
                        color="white" if rates[i, j] > 0.5 else "0.2")
    ax.set(xlabel="predicted digit", ylabel="true digit", xticks=range(10), yticks=range(10),
           title=f"confusion on {cm.sum()} test digits")
    ax.grid(False)
    return fig


@contract(budget="mapping:fixed point", rho="mapping")
def fixed_point_stability(budget: dict, rho: dict) -> plt.Figure:
    """Left: test accuracy after k plain mean-field steps from m_0 = X (``budget``: {"k": acc, ...,
    "fixed point": acc}). Right: histogram of the spectral radius of ∂f/∂m at the solver's last iterate (the fixed
    point where the solver converged) over digits (``rho``: {label: (n,) array}), on log-spaced bins shared by every
    series, with the stability boundary ρ = 1. ``budget``'s keys are step counts k as strings ("1", "2", ...), at
    least one, its values accuracies in [0, 1]; each series of ``rho`` holds radii >= 0 (NaN: no value)."""
    for key, value in budget.items():
        if key != "fixed point" and not (isinstance(key, str) and key.isdigit() and key == str(int(key))):
            raise ValueError(f"budget's keys must be step counts k as strings ('1', '2', ...) and 'fixed point'; "
                             f"got {key!r}")
        check_real(f"budget[{key!r}]", value, minimum=0.0, maximum=1.0)
    if len(budget) < 2:
        raise ValueError("budget must hold the accuracy after at least one step count k beside 'fixed point'")
    for label, r in rho.items():
        _series(f"rho[{label!r}]", r, finite=False, minimum=0.0)
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.4), layout="constrained")
    ax = axes[0]
    ks = sorted(int(k) for k in budget if k != "fixed point")
    ax.semilogx(ks, [100 * budget[str(k)] for k in ks], "o-", color="C0", label="k plain steps from $m_0 = X$")
    ax.axhline(100 * budget["fixed point"], color="C3", ls="--", lw=1, label="fixed point (Anderson)")
    ax.annotate("1 step: one transformer-like block", (ks[0], 100 * budget[str(ks[0])]), xytext=(10, 0),
                textcoords="offset points", fontsize=8, va="center")
    ax.set(xlabel="mean-field steps $k$", ylabel="test accuracy (%)", title="accuracy against the solver budget")
    ax.legend(fontsize=8, loc="lower right")
    ax = axes[1]
    # One set of log-spaced bins for every series: the radii of two models can differ by three decades (the full
    # profile's plain-iteration variant reaches ~1400 where the blog model sits near 1), and linear bins sized to
    # the widest would put the other in one bin.
    finite = {label: np.asarray(r, float)[np.isfinite(r) & (np.asarray(r, float) > 0)] for label, r in rho.items()}
    pooled = np.concatenate([r for r in finite.values()] + [np.ones(1)])
    lo, hi = min(pooled.min(), 0.9), max(pooled.max(), 1.1)
    edges = np.geomspace(lo, hi, 1 + max(30, int(np.ceil(np.log10(hi / lo) / 0.02))))   # bins ~5 % wide
    for c, (label, r) in enumerate(finite.items()):
        ax.hist(r, bins=edges, color=f"C{c + 1}", alpha=0.6, label=label)
    ax.axvline(1.0, color="k", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set(xlabel=r"spectral radius $\rho(\partial f/\partial m)$ at the last iterate", ylabel="test digits",
           title="linear stability (log axis)")
    ax.legend(fontsize=8)
    return fig


@contract(ot="mapping:step|rho_q25|rho_q75|rho_median", h="mapping:forward_iterations|backward_iterations",
          window="int:1")
def stability_over_training(ot: dict, h: dict, window: int = 200) -> plt.Figure:
    """Left: the spectral radius of ∂f/∂m at the fixed point over training (``ot`` from
    :func:`mfattn.implicit.stability.spectral_radius_over_training`: median and interquartile band over the
    digits, dotted ρ = 1). Right: Anderson evaluations per forward and adjoint solve (running mean over
    ``window`` steps of the training history ``h``). ``ot``'s radii (>= 0; NaN: no value) have one entry per step."""
    step = _series("ot['step']", ot["step"], minimum=0.0)
    if np.any(np.diff(step) <= 0):   # kept snapshots in training order: a line drawn back over itself otherwise
        raise ValueError(f"ot['step'] must increase (the kept steps in training order); got {step[:8].tolist()}")
    q = {key: _series(f"ot[{key!r}]", ot[key], length=len(step), other="ot['step']", finite=False, minimum=0.0)
         for key in ("rho_q25", "rho_median", "rho_q75")}
    with np.errstate(invalid="ignore"):   # NaN (no value) is not compared
        order = (q["rho_q25"] <= q["rho_median"] * (1 + 1e-12)) & (q["rho_median"] <= q["rho_q75"] * (1 + 1e-12))
    if np.any(~order & np.isfinite(q["rho_q25"] + q["rho_median"] + q["rho_q75"])):
        raise ValueError("ot's quartiles must be ordered, rho_q25 <= rho_median <= rho_q75, at every step; got a "
                         "step where they are not")
    for key in ("forward_iterations", "backward_iterations"):
        it = _series(f"h[{key!r}]", h[key], finite=False, minimum=0.0)   # evaluation counts (all NaN: not logged)
        if np.isnan(it).any() and not np.isnan(it).all():   # a running mean has no value across a gap
            raise ValueError(f"h[{key!r}] must be logged at every step or at none (all NaN); got "
                             f"{int(np.isnan(it).sum())} NaN of {it.size}")
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.4), layout="constrained")
    ax = axes[0]
    ax.fill_between(ot["step"], ot["rho_q25"], ot["rho_q75"], color="C1", alpha=0.3, lw=0, label="interquartile range")
    ax.plot(ot["step"], ot["rho_median"], "o-", ms=3, color="C1", label="median over test digits")
    ax.axhline(1.0, color="k", ls=":", lw=1)
    ax.set(xlabel="optimiser step", ylabel=r"$\rho(\partial f/\partial m)$ at $m^*$",
           title="stability of the fixed point during training")
    ax.legend(fontsize=8)
    ax = axes[1]
    for key, label, color in (("forward_iterations", "forward solve", "C0"), ("backward_iterations", "adjoint solve", "C2")):
        it = np.asarray(h[key], dtype=float)
        if np.isfinite(it).any():
            w = max(1, min(window, len(it) // 10))
            ax.plot(np.arange(w, len(it) + 1), _running_mean(it, w), color=color, label=label)
    ax.axhline(40, color="0.5", ls=":", lw=1)
    ax.set(xlabel="optimiser step", ylabel="Anderson evaluations per solve", title="solver work during training")
    ax.legend(fontsize=8)
    return fig


@contract(points="mapping:f|f_affine|f_gaussian|reaction", r2="real", r2_gaussian="real", cosine="real",
          max_points="int:1")
def learned_correction(points: dict, r2: float, r2_gaussian: float, cosine: float,
                       max_points: int = 4000) -> plt.Figure:
    """The trained layer's correction ``f = f_θ(g)`` at the fixed point, every component of every site and
    digit (a fixed subsample of ``max_points``): left against its best site-shared affine map of ``g``
    (``r2``: the variance it explains); middle against the Gaussian correction of the means ``(I − P⁻¹) g`` at
    its best prior precision, fitted (``r2_gaussian``: a prior's local response, not what decides
    deq-correction-onsager-form); right against the
    reaction term ``V_i m_i`` of the learned couplings at ``P = I`` (``cosine``). ``r2`` and ``r2_gaussian`` are at most
    1, ``cosine`` in [-1, 1], and every entry of ``points`` holds one value per value of ``f``."""
    check_real("r2", r2, maximum=1.0)
    check_real("r2_gaussian", r2_gaussian, maximum=1.0)
    if not abs(cosine) <= 1.0 + 1e-9:   # a cosine computed in floating point may pass 1 by a rounding
        raise ValueError(f"cosine must be a cosine, in [-1, 1]; got {cosine!r}")
    size = np.asarray(points["f"]).size
    if not size:
        raise ValueError("points['f'] must hold at least one value")
    for key in ("f_affine", "f_gaussian", "reaction"):
        if np.asarray(points[key]).size != size:
            raise ValueError(f"points[{key!r}] must hold one value per value of points['f'] ({size}); got "
                             f"{np.asarray(points[key]).size}")
    f = np.asarray(points["f"]).ravel()
    idx = np.linspace(0, len(f) - 1, min(max_points, len(f))).astype(int)
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 3.8), layout="constrained")
    for ax, key, xlabel, title in ((axes[0], "f_affine", "best site-shared affine map of $g$",
                                    rf"how linear $f_\theta$ is ($R^2$ = {r2:.3f})"),
                                   (axes[1], "f_gaussian", r"Gaussian correction $(I - P^{-1})\,g$, best $P$",
                                    rf"against the fitted Gaussian correction ($R^2$ = {r2_gaussian:.3f})"),
                                   (axes[2], "reaction", r"reaction term $V_i m_i$ (learned $J$, $P = I$)",
                                    rf"against the reaction term (cos = {cosine:.2f})")):
        other = np.asarray(points[key]).ravel()
        ax.plot(other[idx], f[idx], ".", ms=2, alpha=0.4, color="C0")
        lo, hi = np.nanmin([other[idx].min(), f[idx].min()]), np.nanmax([other[idx].max(), f[idx].max()])
        ax.plot([lo, hi], [lo, hi], color="k", ls=":", lw=1)
        ax.set(xlabel=xlabel, ylabel=r"$f_\theta(g)$ at the fixed point", title=title)
    return fig


@contract(fr="mapping:eval_step|test_accuracy|forward_iterations_per_100|backward_iterations_per_100|coupling_norms|"
                "snapshot_step", settle="array:1", steps_per_epoch="int:1")
def full_cpu(fr: dict, settle: np.ndarray, steps_per_epoch: int = 1000) -> plt.Figure:
    """The stored full-protocol CPU run: test accuracy per half epoch, Anderson iterations, the final
    norm matrix, and the settling of the norm matrix (``settle`` per snapshot). Each log of ``fr`` has one entry per
    evaluation (accuracies in [0, 1]), per block of 100 steps or per snapshot (``coupling_norms`` (S, N, N)), and
    ``settle`` (distances >= 0) one per snapshot."""
    n_eval = len(_series("fr['eval_step']", fr["eval_step"]))
    _series("fr['test_accuracy']", fr["test_accuracy"], length=n_eval, other="fr['eval_step']", minimum=0.0,
            maximum=1.0)
    blocks = len(_series("fr['forward_iterations_per_100']", fr["forward_iterations_per_100"], finite=False))
    _series("fr['backward_iterations_per_100']", fr["backward_iterations_per_100"], length=blocks,
            other="fr['forward_iterations_per_100']", finite=False)
    norms = check_array("fr['coupling_norms']", fr["coupling_norms"], ndim=3)
    if not len(norms) or (norms < 0).any():
        raise ValueError(f"fr['coupling_norms'] must hold at least one snapshot (S, N, N) of norms (>= 0); got shape "
                         f"{norms.shape}" + (" with a negative entry" if len(norms) else ""))
    snaps = len(_series("fr['snapshot_step']", fr["snapshot_step"], length=len(norms), other="fr['coupling_norms']"))
    _series("settle", settle, length=snaps, other="fr['snapshot_step']", minimum=0.0)
    spe = steps_per_epoch
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.3), layout="constrained")
    ax = axes[0]
    ax.plot(fr["eval_step"][1:] / spe, 100 * fr["test_accuracy"][1:], "o-", ms=3, color="C3")
    ax.axhline(99.1, color="0.4", ls="--", lw=1, label="blog: 99.1%")
    ax.set(xlabel="epoch", ylabel="test accuracy (%)", ylim=(96, 100), title="all 10,000 test digits")
    ax.legend()
    ax = axes[1]
    t = (np.arange(len(fr["forward_iterations_per_100"])) + 0.5) * 100 / spe
    ax.plot(t, fr["forward_iterations_per_100"], color="C1", label="forward")
    ax.plot(t, fr["backward_iterations_per_100"], color="C2", label="backward")
    ax.axhline(40, color="0.5", ls=":", lw=1)
    ax.set(xlabel="epoch", ylabel="iterations per step", ylim=(0, 42), title="Anderson iterations")
    ax.legend()
    ax = axes[2]
    im = ax.imshow(fr["coupling_norms"][-1], cmap="viridis", vmin=0)
    ax.set(xlabel="site j", ylabel="site i", xticks=[0, 8, 16], yticks=[0, 8, 16], title=r"$\|J_{ij}\|_F$ after 20 epochs")
    ax.grid(False)
    fig.colorbar(im, ax=ax, shrink=0.8)
    ax = axes[3]
    ax.semilogy(fr["snapshot_step"][:-1] / spe, settle[:-1], color="C0")
    ax.set(xlabel="epoch", ylabel="relative distance to final", title="settling of the norm matrix")
    return fig
