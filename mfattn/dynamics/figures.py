"""Plotting functions of chapter 6 (Poc-López & Aguilera 2024): each takes computed results, returns a Figure.

The chapter computes (:mod:`~mfattn.dynamics.sweep`, :mod:`~mfattn.dynamics.engine`,
:mod:`~mfattn.dynamics.finite_n`) and saves with ``run.figure``; the style sheet is applied by
``ChapterRun``. Orbits are coloured two ways throughout: by the paper's bin rule
(:data:`CLASS_COLORS`) and by the largest Lyapunov exponent (:data:`LAM_CMAP`, clipped).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LinearSegmentedColormap, TwoSlopeNorm

from .diagnostics import CLASS_NAMES, autocorrelation, power_spectrum

__all__ = ["CLASS_COLORS", "LAM_CMAP", "fmt_lam", "draw_diagram", "bifurcation", "all_values", "bins_vs_lyapunov",
           "planes", "time_series", "sections", "coexisting", "lyapunov_map", "finite_n", "finite_n_diagrams"]

CLASS_COLORS = ["#1f77b4", "#2ca02c", "#d62728"]  # periodic, quasi-periodic, chaotic
# λ colours: blue (periodic, λ < 0), dark grey (λ ≈ 0, quasi-periodic), red (chaotic); grey stays visible on white.
LAM_CMAP = LinearSegmentedColormap.from_list("lam", ["#08306b", "#2171b5", "#404040", "#cb181d", "#67000d"])


def fmt_lam(x: float) -> str:
    """λ_max for titles and prose: three decimals, or one significant digit when |λ| < 10^-3."""
    return f"{x:+.3f}" if abs(x) >= 1e-3 else f"{x:+.0e}"


def diagram_points(res, use="band"):
    """x (β), y (m^o_1), index of β: periodic orbits draw all their distinct values, others their section."""
    cls = res.classes()
    xs, ys, idx = [], [], []
    for i, b in enumerate(res.betas):
        pts = res.periodic_points(i) if cls[i] == 0 else (res.band[i] if use == "band" else res.strobe[i][:, 0])
        xs.append(np.full(pts.size, b)); ys.append(pts); idx.append(np.full(pts.size, i))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(idx)


def draw_diagram(ax, res, color_by, use="band", s=None, lam_range=0.15):
    """Scatter a :class:`~mfattn.dynamics.sweep.SweepResult` on ``ax``, coloured by "class" or "lyapunov"."""
    x, y, i = diagram_points(res, use)
    s = s or min(1.5, 300 / res.betas.size)   # marker area: coarse grids get bigger points
    if color_by == "class":
        ax.scatter(x, y, c=np.array(CLASS_COLORS)[res.classes()[i]], s=s, lw=0, rasterized=True)
    else:
        lam = np.clip(res.lyapunov[i], -lam_range, lam_range)
        return ax.scatter(x, y, c=lam, cmap=LAM_CMAP, norm=TwoSlopeNorm(0, -lam_range, lam_range), s=s,
                          lw=0, rasterized=True)


def bifurcation(diagrams):
    """Fig. 3a/3b: one row per diagram (dict of SweepResult), coloured by the bin rule and by λ_max."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharey="row", layout="constrained")
    for row, key in enumerate(("fig3a", "fig3b")):
        res = diagrams[key]
        draw_diagram(axes[row, 0], res, "class")
        sc = draw_diagram(axes[row, 1], res, "lyapunov")
        for ax in axes[row]:
            ax.set(xlabel=r"$\beta$", xlim=(res.betas[0], res.betas[-1]))
        axes[row, 0].set_ylabel(r"$m^o_1$ on $|m^o_2| \leq 10^{-3}$")
        fig.colorbar(sc, ax=axes[row, 1], label=r"$\lambda_{\max}$ (clipped)")
    for c, name in zip(CLASS_COLORS, CLASS_NAMES):
        axes[0, 0].plot([], [], "o", color=c, label=name)
    axes[0, 0].legend(loc="lower left", markerscale=0.8)
    axes[0, 0].set_title("coloured by the paper's bin rule"); axes[0, 1].set_title(r"coloured by $\lambda_{\max}$")
    return fig


def all_values(diagrams, images):
    """Fig. 3's first form: every saved m^o_1 of each β (``images[key]`` (rows, B) bool from
    :func:`~mfattn.dynamics.sweep.all_values_image`), blue where the bin rule says periodic, black otherwise."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), layout="constrained")
    for ax, key in zip(axes, ("fig3a", "fig3b")):
        res, img = diagrams[key], images[key]
        per = res.classes() == 0
        rgb = np.ones(img.shape + (3,))
        rgb[img & ~per[None, :]] = 0.0
        rgb[img & per[None, :]] = (0.12, 0.47, 0.71)
        ax.imshow(rgb, origin="lower", aspect="auto", interpolation="nearest",
                  extent=(res.betas[0], res.betas[-1], -1, 1))
        ys = np.nonzero(img.any(1))[0]
        pad = 0.05
        ax.set(xlabel=r"$\beta$", ylabel=r"$m^o_1$ (every saved step)",
               ylim=(ys[0] / img.shape[0] * 2 - 1 - pad, (ys[-1] + 1) / img.shape[0] * 2 - 1 + pad))
    axes[0].plot([], [], "s", color=(0.12, 0.47, 0.71), label="periodic (bin rule)")
    axes[0].plot([], [], "s", color="k", label="not periodic")
    axes[0].legend(loc="lower left", fontsize=8)
    return fig


def bins_vs_lyapunov(diagrams):
    """Bin count against λ_max for every β of both diagrams, with the rule's thresholds 80 and 2500."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    for ax, key in zip(axes, ("fig3a", "fig3b")):
        res = diagrams[key]
        cnt, cls = res.bin_counts(), res.classes()
        lam = np.maximum(res.lyapunov, -1.0)
        ax.scatter(cnt, lam, c=np.array(CLASS_COLORS)[cls], s=6)
        ax.axhline(0, color="0.3", lw=0.8)
        for v in (80, 2500):
            ax.axvline(v, color="0.5", ls="--", lw=0.8)
        ax.set(xscale="log", xlabel="occupied bins of 5001", ylabel=r"$\lambda_{\max}$ (floored at $-1$)",
               title=rf"$\beta \in [{res.betas[0]:g}, {res.betas[-1]:g}]$")
    return fig


def planes(betas, result, periods, other=None, other_periods=None, differ=None, names=("", "")):
    """Fig. 4: the (m^o_1, m^o_2) plane of each β of a SimulationResult (periodic orbits as points).

    ``other`` (optional): the same β from another start; where ``differ[i]`` its attractor is drawn too,
    in orange, and the title gives both λ_max (``names`` label the two starts)."""
    fig, axes = plt.subplots(2, 3, figsize=(11, 7), layout="constrained")
    runs = [(result, periods, "k", "C0")] + ([(other, other_periods, "C1", "C1")] if other is not None else [])
    for ax, i in zip(axes.ravel(), range(len(betas))):
        title = rf"$\beta$ = {betas[i]:g}"
        for j, (r, per, cc, cp) in enumerate(runs):
            if j == 1 and not differ[i]:
                continue
            m = r.m_o[i]
            if per[i]:
                ax.plot(m[:per[i], 0], m[:per[i], 1], "o", ms=3, color=cp, label=names[j] or None)
            else:
                ax.plot(m[:, 0], m[:, 1], ",", color=cc, alpha=0.5, rasterized=True)
                ax.plot([], [], "s", color=cc, label=names[j] or None)
            p = f", period {per[i]}" if per[i] else ""
            title += "\n" + (names[j] + ": " if len(runs) > 1 and differ[i] else "") + \
                rf"$\lambda_{{\max}}$ = {fmt_lam(r.lyapunov[i])}{p}"
        if len(runs) > 1 and differ[i]:
            ax.legend(fontsize=7, loc="lower right")
        ax.set(title=title, xlabel=r"$m^o_1$", ylabel=r"$m^o_2$")
        ax.title.set_fontsize(9)
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    return fig


def time_series(betas, result, pick):
    """Fig. 5: trajectory window, power spectrum (f = 1/L marked) and autocorrelation per picked orbit."""
    fig, axes = plt.subplots(3, 2, figsize=(11, 8.5), layout="constrained")
    for col, (name, i) in enumerate(pick.items()):
        x = result.m_o[i, :, 0]
        axes[0, col].plot(np.arange(400), x[:400], lw=0.8)
        axes[0, col].set(title=rf"{name}, $\beta$ = {betas[i]:g}", xlabel="step (after transient)",
                         ylabel=r"$m^o_1$")
        f, p = power_spectrum(x)
        axes[1, col].loglog(f[1:], p[1:], lw=0.6)
        axes[1, col].axvline(1 / 4, color="C3", ls="--", lw=1, label="$f = 1/L$")
        axes[1, col].set(xlabel="frequency (1/step)", ylabel="power"); axes[1, col].legend()
        ac = autocorrelation(x, 400)
        axes[2, col].plot(ac, lw=0.8)
        axes[2, col].set(xlabel="lag (steps)", ylabel="autocorrelation", ylim=(-1.05, 1.05))
    return fig


def sections(res):
    """The paper's band section next to the stroboscopic section (t ≡ 0 mod L), coloured by the bin rule."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True, layout="constrained")
    for ax, use, title in zip(axes, ("band", "strobe"), (r"band $|m^o_2| \leq 10^{-3}$ (paper)",
                                                          r"stroboscopic: every $L$-th state, $t \equiv 0$ (mod $L$)")):
        draw_diagram(ax, res, "class", use=use)
        ax.set(xlabel=r"$\beta$", title=title, xlim=(res.betas[0], res.betas[-1]))
    axes[0].set_ylabel(r"$m^o_1$")
    return fig


def coexisting(results, grid, coexist):
    """Stroboscopic sections from several starting contexts (dict β_start -> SweepResult); ``coexist`` marked."""
    fig, axes = plt.subplots(len(results), 1, figsize=(10, 1.9 * len(results)), sharex=True, sharey=True,
                             layout="constrained")
    for ax, (cb, r) in zip(axes, results.items()):
        draw_diagram(ax, r, "lyapunov", use="strobe")
        ax.set_title(rf"from the final context of a token run at $\beta$ = {cb:g}", fontsize=9)
        ax.set_ylabel(r"$m^o_1$")
        for b in grid[coexist]:
            ax.axvline(b, color="orange", alpha=0.25, lw=1.5, zorder=0)
    axes[-1].set(xlabel=r"$\beta$", xlim=(grid[0], grid[-1]))
    return fig


def lyapunov_map(betas, gammas, lam):
    """λ_max over (β, γ), ``lam`` (len(gammas), len(betas)), clipped to ±0.15; the paper's γ = 220 dashed."""
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    im = ax.pcolormesh(betas, gammas, np.clip(lam, -0.15, 0.15), cmap=LAM_CMAP, norm=TwoSlopeNorm(0, -0.15, 0.15),
                       shading="nearest", rasterized=True)
    ax.axhline(220, color="k", ls="--", lw=0.8)
    ax.set(xlabel=r"$\beta$", ylabel=r"$\gamma$")
    fig.colorbar(im, ax=ax, label=r"$\lambda_{\max}$ (clipped)")
    return fig


def finite_n(samples, N0, t0, errs, Ns, error_betas, error_t):
    """Left: histograms of the sampled m^o_1 per sampler (dict name -> (reps,)) at N0 after t0 steps.
    Right: RMS distance to the mean field against N (``errs`` (len(error_betas), len(Ns))), N^{-1/2} law."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    edges = np.linspace(-1 - 1 / N0, 1 + 1 / N0, 2 * N0 + 3)
    for name, x in samples.items():
        axes[0].hist(x, edges, histtype="step", lw=1.5, label=f"{name}: mean {x.mean():+.3f}, var {x.var():.4f}")
    axes[0].set(xlabel=rf"$\hat m^o_1$ at t = {t0 - 1}, N = {N0}, $\beta$ = 1.4", ylabel="count")
    axes[0].legend(fontsize=8)
    for b, e in zip(error_betas, errs):
        slope = np.polyfit(np.log(Ns), np.log(e), 1)[0]
        axes[1].loglog(Ns, e, "o-", label=rf"$\beta$ = {b:g} (slope {slope:.2f})")
    axes[1].loglog(Ns, errs[0, 0] * (Ns / Ns[0]) ** -0.5, "k--", lw=0.8, label=r"$N^{-1/2}$")
    axes[1].set(xlabel="N (semantic units)", ylabel=rf"RMS $|\hat m^o_t - m^o_t|$ at t = {error_t - 1}")
    axes[1].legend(fontsize=8)
    return fig


def finite_n_diagrams(panels, grid):
    """One stroboscopic-section diagram per panel (dict title -> list of per-β section arrays), side by side."""
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 3.4), sharey=True, layout="constrained")
    for ax, (name, pts) in zip(axes, panels.items()):
        x = np.concatenate([np.full(p.size, b) for b, p in zip(grid, pts)])
        ax.scatter(x, np.concatenate(pts), s=min(1.5, 100 / grid.size), lw=0, color="k", rasterized=True)
        ax.set(title=name, xlabel=r"$\beta$")
    axes[0].set_ylabel(r"$m^o_1$ (stroboscopic section)")
    return fig
