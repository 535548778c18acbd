"""Chapter 2's figures of the learned couplings: the coupling graph, its snapshots over training (a figure and an
animation), the early frames and how the norm matrix settles."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from ..companion.checks import check_array, contract
from .figures_checks import _check_norms, _check_steps

__all__ = ["coupling_graph", "couplings", "coupling_animation", "settling", "early_frames"]


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
