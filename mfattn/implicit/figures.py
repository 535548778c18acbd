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

__all__ = ["solver_race", "mnist_training", "coupling_graph", "couplings", "coupling_animation",
           "settling", "confusion", "fixed_point_stability", "stability_over_training",
           "learned_correction", "full_cpu", "early_frames", "running_mean", "transformer_steps", "tap_cost", "onsager"]

SOLVER_COLORS = {"plain": "C0", "anderson": "C1", "broyden": "C2"}

#: Sites of the MNIST model's coupling matrices: the cls token and the 4 × 4 patches (the graph's fixed layout).
SITES = 17


def _check_norms(name: str, norms, frames: bool):
    """Coupling-norm matrices (S, 17, 17) (``frames``) or one (17, 17): finite and non-negative."""
    a = check_array(name, norms, ndim=3 if frames else 2)
    if a.shape[-2:] != (SITES, SITES) or (frames and not len(a)):
        want = "(S, 17, 17) with S >= 1" if frames else "(17, 17)"
        raise ValueError(f"{name} must have shape {want} (cls and the 4 x 4 patches); got {a.shape}")
    if (a < 0).any():
        raise ValueError(f"{name} must hold norms (>= 0); got a negative entry")
    return a


def _series(name: str, values, *, length: int | None = None, other: str = "", finite: bool = True,
            minimum: float | None = None, strict: bool = False, maximum: float | None = None) -> np.ndarray:
    """``values`` as a 1-d float array, checked before anything is drawn: ``length`` entries (one per entry of
    ``other``) when given, finite unless ``finite=False`` (NaN then marks a missing value), within ``minimum`` (above
    it when ``strict``) and ``maximum`` (a NaN is not compared); a clear error naming ``name`` otherwise."""
    a = check_array(name, values, ndim=1, allow_int=True, finite=finite)
    if length is not None and len(a) != length:
        raise ValueError(f"{name} must have one entry per entry of {other} ({length}); got {len(a)}")
    low = minimum is not None and bool(np.any(a <= minimum) if strict else np.any(a < minimum))
    if low or (maximum is not None and bool(np.any(a > maximum))):
        lo = "" if minimum is None else (f"> {minimum:g}" if strict else f">= {minimum:g}")
        hi = "" if maximum is None else f"<= {maximum:g}"
        raise ValueError(f"{name} must hold values {' and '.join(p for p in (lo, hi) if p)}; got values from "
                         f"{np.nanmin(a):g} to {np.nanmax(a):g}")
    return a


def _check_steps(name: str, steps, length: int, other: str):
    a = check_array(name, steps, ndim=1, allow_int=True)
    if len(a) != length:
        raise ValueError(f"{name} must have one entry per frame of {other} ({length}); got {len(a)}")
    return a.astype(np.int64) if np.all(a == np.round(a)) else a   # training steps are titled as integers


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


@contract(vmax="real:>0", top="int:1")
def coupling_graph(ax, norms: np.ndarray, vmax: float, top: int = 40) -> None:
    """Draw the ``top`` strongest DIRECTED couplings of a (17, 17) norm matrix on the 4 × 4 patch grid (cls above).

    An arrow j → i has the width and colour of ``‖J_ij‖_F``: site i listens to site j
    (``g_i = Σ_j J_ij m_j + X_i``). ``J_ij`` and ``J_ji`` are separate arrows (the model imposes only
    ``J_ij = J_ijᵀ``, not ``‖J_ij‖ = ‖J_ji‖``), bent so that the two directions of a pair do not overlap.
    """
    if not hasattr(ax, "add_patch"):
        raise TypeError(f"ax must be a matplotlib Axes; got {type(ax).__name__}")
    norms = _check_norms("norms", norms, frames=False)
    if vmax < norms.max():
        raise ValueError(f"vmax must be at least the largest norm ({norms.max():g}: it sets the colour scale's top); "
                         f"got {vmax!r}")
    from matplotlib.patches import FancyArrowPatch

    pos = np.array([[1.5, 1.3]] + [[c, -r] for r in range(4) for c in range(4)], dtype=float)
    n = len(norms)
    i_idx, j_idx = np.nonzero(~np.eye(n, dtype=bool))
    strength_all = norms[i_idx, j_idx]
    order = np.argsort(strength_all)[::-1][:top]
    for k in order[::-1]:                      # weakest first, so the strongest are drawn on top
        i, j = i_idx[k], j_idx[k]
        strength = strength_all[k] / vmax
        ax.add_patch(FancyArrowPatch(pos[j], pos[i], connectionstyle="arc3,rad=0.18", arrowstyle="-|>",
                                     mutation_scale=6 + 6 * strength, shrinkA=6, shrinkB=6,
                                     color=plt.cm.viridis(strength), lw=0.4 + 2.6 * strength,
                                     alpha=0.35 + 0.65 * strength, zorder=1))
    ax.scatter(pos[1:, 0], pos[1:, 1], s=60, color="0.2", zorder=2)
    ax.scatter(*pos[0], s=110, color="C3", zorder=2)
    ax.annotate("cls", pos[0], xytext=(8, 0), textcoords="offset points", va="center", color="C3")
    ax.set(xlim=(-0.5, 3.5), ylim=(-3.5, 1.8), aspect="equal", xticks=[], yticks=[])
    ax.grid(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)


def couplings(norms: np.ndarray, snap_steps: np.ndarray) -> plt.Figure:
    """The coupling graph (top) and the norm matrix (bottom) at four snapshots, one colour scale."""
    norms = _check_norms("norms", norms, frames=True)
    snap_steps = _check_steps("snap_steps", snap_steps, len(norms), "norms")
    if not norms.max() > 0:
        raise ValueError("norms must hold a positive norm somewhere (the colour scale's top)")
    picks = np.unique(np.round(np.linspace(0, len(snap_steps) - 1, 4)).astype(int))
    vmax = norms.max()
    fig, axes = plt.subplots(2, len(picks), figsize=(2.7 * len(picks), 5.0), squeeze=False,
                             gridspec_kw={"height_ratios": [1.3, 1], "hspace": 0.05})
    for col, p in enumerate(picks):
        coupling_graph(axes[0, col], norms[p], vmax)
        axes[0, col].set_title(f"step {snap_steps[p]}")
        im = axes[1, col].imshow(norms[p], cmap="viridis", vmin=0, vmax=vmax)
        axes[1, col].set(xlabel="site j", ylabel="site i" if col == 0 else None, xticks=[0, 8, 16], yticks=[0, 8, 16])
        axes[1, col].grid(False)
    fig.colorbar(im, ax=axes[1, :].tolist(), shrink=0.8, label=r"$\|J_{ij}\|_F$")
    fig.suptitle(r"directed couplings $\|J_{ij}\|_F$, arrow $j \to i$ (top: the 40 strongest; bottom: all, row $i$ "
                 r"listens to column $j$; site 0 = cls)", y=0.99)
    return fig


@contract(frames_max="int:1")
def coupling_animation(norms: np.ndarray, snap_steps: np.ndarray, frames_max: int = 21) -> str:
    """The couplings as a small JavaScript animation (HTML), one frame per chosen snapshot."""
    norms = _check_norms("norms", norms, frames=True)
    snap_steps = _check_steps("snap_steps", snap_steps, len(norms), "norms")
    if not norms.max() > 0:
        raise ValueError("norms must hold a positive norm somewhere (the colour scale's top)")
    from matplotlib import animation

    vmax = norms.max()
    frames = np.unique(np.round(np.linspace(0, len(snap_steps) - 1, min(len(snap_steps), frames_max))).astype(int))
    fig, (ax_g, ax_m) = plt.subplots(1, 2, figsize=(7.2, 3.4), dpi=72, gridspec_kw={"width_ratios": [1.1, 1]})

    def frame(k):
        ax_g.clear()
        ax_m.clear()
        coupling_graph(ax_g, norms[k], vmax)
        ax_m.imshow(norms[k], cmap="viridis", vmin=0, vmax=vmax)
        ax_m.set(xlabel="site j", ylabel="site i", xticks=[0, 8, 16], yticks=[0, 8, 16])
        ax_m.grid(False)
        fig.suptitle(f"step {snap_steps[k]}")

    anim = animation.FuncAnimation(fig, frame, frames=frames, interval=250)
    with plt.rc_context({"savefig.dpi": 72}):  # keep the page light: ~20 small frames
        html = anim.to_jshtml(default_mode="once")
    plt.close(fig)
    return html


def settling(snap_steps: np.ndarray, settle: np.ndarray) -> plt.Figure:
    """Relative distance of the coupling-norm matrix to its final value against the optimiser step (``settle``:
    distances >= 0, one per snapshot)."""
    settle = check_array("settle", settle, ndim=1)
    if (settle < 0).any():
        raise ValueError(f"settle must hold relative distances (>= 0); got {float(settle.min())} at index "
                         f"{int(np.argmin(settle))}")
    snap_steps = _check_steps("snap_steps", snap_steps, len(settle), "settle")
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.semilogy(snap_steps[:-1], settle[:-1], "o-", ms=3)
    ax.set(xlabel="optimiser step", ylabel=r"$\|A_t - A_{\rm final}\|_F \,/\, \|A_{\rm final}\|_F$",
           title=r"settling of the norm matrix $A = (\|J_{ij}\|_F)$")
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
    n = len(_series("ot['step']", ot["step"]))
    for key in ("rho_median", "rho_q25", "rho_q75"):
        _series(f"ot[{key!r}]", ot[key], length=n, other="ot['step']", finite=False, minimum=0.0)
    for key in ("forward_iterations", "backward_iterations"):
        _series(f"h[{key!r}]", h[key], finite=False)
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


@contract(steps_per_epoch="int:1", show_epochs="reals:>=0")
def early_frames(norms: np.ndarray, snaps: np.ndarray, steps_per_epoch: int = 1000,
                 show_epochs: Sequence[float] = (0, 0.25, 0.5, 1)) -> plt.Figure:
    """Top: the norm matrix ‖J_ij‖_F at the kept frames nearest ``show_epochs`` (inside the first epoch: epochs from 0
    to 1) and at the end, one colour scale. Bottom: against the epoch, the correlation of each frame's off-diagonal
    pattern with the final one and the share of the way from the initial to the final norms covered
    (:func:`mfattn.implicit.organisation.organisation_curves`), with the thresholds of *deq-early-organisation*."""
    from .organisation import organisation_curves

    norms = _check_norms("norms", norms, frames=True)
    snaps = _check_steps("snaps", snaps, len(norms), "norms")
    if max(show_epochs) > 1:
        raise ValueError(f"show_epochs must lie inside the first epoch (0 to 1: the top row's early frames); got "
                         f"{list(show_epochs)}"[:200])
    corr, closed = organisation_curves(norms)
    epochs = np.asarray(snaps, dtype=float) / steps_per_epoch
    picks = [int(np.argmin(np.abs(epochs - e))) for e in show_epochs] + [len(epochs) - 1]
    fig = plt.figure(figsize=(2.3 * len(picks), 5.6), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1, 1.1])
    axes = top.subplots(1, len(picks))
    vmax = norms.max()
    for ax, p in zip(axes, picks):
        im = ax.imshow(norms[p], cmap="viridis", vmin=0, vmax=vmax)
        ax.set(title=f"epoch {epochs[p]:g}", xticks=[0, 8, 16], yticks=[0, 8, 16])
        ax.grid(False)
    axes[0].set_ylabel("site i (0 = cls)")
    top.colorbar(im, ax=list(axes), shrink=0.8, label=r"$\|J_{ij}\|_F$")
    ax = bottom.subplots()
    ax.plot(epochs[1:], corr[1:], "o-", ms=3, color="C0", label="correlation with the final pattern (shape)")
    ax.plot(epochs[1:], closed[1:], "s-", ms=3, color="C3", label="share of the way to the final norms (shape and size)")
    ax.axhline(0.9, color="C0", ls=":", lw=1)
    ax.axhline(0.5, color="C3", ls=":", lw=1)
    ax.axvline(1, color="0.5", ls="--", lw=1)
    ax.set(xscale="log", xlabel="epoch (log scale; dashed: end of the first epoch)", ylim=(0, 1.02),
           title="how far the couplings have organised (dotted: the verdict's thresholds)")
    ax.legend(loc="lower right", fontsize=8)
    return fig


# ------------------------------------------------------------------------------------------ Chapter 3
@contract(study="mapping:distance|spread", rhos="reals:>0", rho_show="real:>0", steps="int:1", title="str")
def transformer_steps(study: dict, rhos: Sequence[float], rho_show: float, steps: int, title: str) -> plt.Figure:
    """Left: distance of the naive iterates to the exact fixed point per ρ (median, range; dot: one step);
    right: token spread with and without the source at ``rho_show`` (rank collapse)."""
    missing = [rho for rho in rhos if rho not in study["distance"]]
    if missing:
        raise ValueError(f"rhos {missing} are not in the study (its distance is stored at {list(study['distance'])})")
    if rho_show not in study["spread"]:
        raise ValueError(f"rho_show {rho_show!r} is not in the study (its spread is stored at {list(study['spread'])})")
    if any(len(study["distance"][rho]) != steps + 1 for rho in rhos):
        raise ValueError(f"steps must be the study's number of steps ({len(study['distance'][rhos[0]]) - 1}); "
                         f"got {steps}")
    distance, spread = study["distance"], study["spread"]
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.7))
    ax = axes[0]
    k = np.arange(steps + 1)
    for c, rho in enumerate(rhos):
        med = np.median(distance[rho], axis=1)
        ax.semilogy(k, med, "-", color=f"C{c}", label=rf"$\rho$ = {rho:g}")
        ax.fill_between(k, distance[rho].min(axis=1), distance[rho].max(axis=1), color=f"C{c}", alpha=0.15, lw=0)
        ax.plot(1, med[1], "o", color=f"C{c}", ms=6)
    ax.annotate("one step =\ntransformer block", xy=(1, np.median(distance[rhos[0]][1])), xytext=(6, 1e-9),
                arrowprops=dict(arrowstyle="->", color="0.3"), fontsize=9)
    ax.set(xlabel="naive mean-field steps $k$ (from $m_0 = X$)", ylabel=r"$\|m_k - m^*\| / \|m^*\|$",
           title="distance to the DEQ fixed point", ylim=(1e-16, 1e5))
    ax.legend(loc="upper right", ncol=2, fontsize=8)
    ax = axes[1]
    for style, key in (("-", "with source"), ("--", "without source")):
        s = spread[rho_show][key]
        ax.semilogy(k, np.median(s, axis=1), style, color="k",
                    label=f"{key} (residual {'kept' if key == 'with source' else 'dropped'})")
        ax.fill_between(k, s.min(axis=1), s.max(axis=1), color="0.5", alpha=0.2, lw=0)
    ax.set(xlabel="steps $k$", ylabel=r"token spread $\|m - \bar m\| / \|m\|$",
           title=rf"rank collapse ($\rho$ = {rho_show:g})", ylim=(1e-17, 3))
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, 0.9), fontsize=8)
    fig.suptitle(title, y=1.02)
    return fig


def _check_scaling(scaling: dict) -> None:
    """``scaling`` must hold numpy arrays ``Nd`` and ``seconds`` of positive values (log-log axes) of one length, a bool
    mask ``fit`` of that length with at least one True, and a finite ``exponent``."""
    for key in ("Nd", "seconds", "fit"):
        if not isinstance(scaling[key], np.ndarray):
            raise TypeError(f"scaling[{key!r}] must be a numpy array (explicit_cost_scaling's); got "
                            f"{type(scaling[key]).__name__}")
    n = len(_series("scaling['Nd']", scaling["Nd"], minimum=0.0, strict=True))
    _series("scaling['seconds']", scaling["seconds"], length=n, other="scaling['Nd']", minimum=0.0, strict=True)
    fit = scaling["fit"]
    if fit.dtype != bool or fit.shape != (n,) or not fit.any():
        raise ValueError(f"scaling['fit'] must be a bool mask of one entry per size ({n}) marking at least one; got "
                         f"dtype {fit.dtype}, shape {fit.shape}, {int(np.count_nonzero(fit))} marked")
    check_real("scaling['exponent']", scaling["exponent"])


@contract(scaling="mapping:Nd|seconds|fit|exponent")
def tap_cost(scaling: dict) -> plt.Figure:
    """Seconds per linear-response update of the explicit layer against Nd (log-log), the fit window
    marked, with the fitted power law and a slope-3 guide (``scaling``: :func:`~mfattn.implicit.vector_tap.explicit_cost_scaling`).
    Sizes and seconds must be > 0, and the fit mask must mark at least one size."""
    _check_scaling(scaling)
    nd, sec, fit, p = scaling["Nd"], scaling["seconds"], scaling["fit"], scaling["exponent"]
    fig, ax = plt.subplots(figsize=(4.8, 3.5))
    ax.loglog(nd, sec, "o-", color="C0", label="linear-response update (measured)")
    ax.loglog(nd[fit], sec[fit], "o", color="C3", label=f"fit window: exponent {p:.2f}")
    ax.loglog(nd[fit], sec[fit][-1] * (nd[fit] / nd[fit][-1]) ** p, "-", color="C3", lw=1)
    ax.loglog(nd, sec[fit][-1] * (nd / nd[fit][-1]) ** 3, "--", color="0.5", label=r"$\propto (Nd)^3$")
    ax.set(xlabel="$N d$ (size of the linear-response system)", ylabel="seconds per update (best of 3)",
           title="explicit vector-spin adaptive TAP, float64")
    ax.legend(fontsize=8)
    return fig


ONSAGER_LABELS = {"g": r"$f_\theta(g_i)$ (correction on $g$)", "m": r"$f_\theta(m_i)$ (correction on $m$)",
                  "m+s": r"$f_\theta(m_i, s_i)$"}


def _check_curves(res: dict, keys: Sequence[str], test_betas) -> None:
    """Each curve ``res[key]`` must hold one error per test β (NaN: no value) before anything is drawn."""
    n = len(_series("test_betas", test_betas))
    for key in keys:
        _series(f"res[{key!r}]", res[key], length=n, other="test_betas", finite=False)


@contract(res="mapping:m_err_naive", test_betas="array:1", train_betas="reals:>=0", title="str")
def onsager(res: dict, inputs: Sequence[str], test_betas: np.ndarray, train_betas: Sequence[float],
            title: str) -> plt.Figure:
    """Error of the learned corrections at the adaptive-TAP solution (left) and of the magnetisations when
    used inside the iteration (right), against β; grey: the training range."""
    if isinstance(inputs, str) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs must be a list of net inputs; got {inputs!r}"[:200])
    for name in inputs:
        check_choice("each entry of inputs", name, tuple(ONSAGER_LABELS))
        if f"corr_err_{name}" not in res or f"m_err_{name}" not in res:
            raise ValueError(f"res lacks corr_err_{name} or m_err_{name} (inputs names a net it does not hold)")
    _check_curves(res, [f"{k}_err_{name}" for name in inputs for k in ("corr", "m")] + ["m_err_naive"], test_betas)
    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.7), sharex=True)
    for ax in axes:
        ax.axvspan(min(train_betas) - 0.03, max(train_betas) + 0.03, color="0.9", zorder=0)
    for c, name in enumerate(inputs):
        axes[0].semilogy(test_betas, res[f"corr_err_{name}"], "o-", ms=4, color=f"C{c}", label=ONSAGER_LABELS[name])
        axes[1].semilogy(test_betas, res[f"m_err_{name}"], "o-", ms=4, color=f"C{c}", label=ONSAGER_LABELS[name])
    axes[1].semilogy(test_betas, res["m_err_naive"], "s--", ms=4, color="k", label="naive mean field")
    axes[0].set(xlabel=r"$\beta$", ylabel=r"$\|f_\theta - V m\| / \|V m\|$", title="predicted correction at the aTAP solution")
    axes[1].set(xlabel=r"$\beta$", ylabel="RMSE of $m$ vs adaptive TAP", title="used inside the mean-field iteration")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    fig.suptitle(title, y=1.02)
    return fig
