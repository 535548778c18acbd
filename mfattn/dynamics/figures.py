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

from ..companion.checks import check_array, check_int, check_rule, contract
from .diagnostics import CLASS_NAMES, autocorrelation, power_spectrum

__all__ = ["CLASS_COLORS", "LAM_CMAP", "fmt_lam", "draw_diagram", "bifurcation", "all_values", "bins_vs_lyapunov",
           "planes", "time_series", "sections", "coexisting", "lyapunov_map", "finite_n", "finite_n_diagrams"]

CLASS_COLORS = ["#1f77b4", "#2ca02c", "#d62728"]  # periodic, quasi-periodic, chaotic
# λ colours: blue (periodic, λ < 0), dark grey (λ ≈ 0, quasi-periodic), red (chaotic); grey stays visible on white.
LAM_CMAP = LinearSegmentedColormap.from_list("lam", ["#08306b", "#2171b5", "#404040", "#cb181d", "#67000d"])


def _result(name: str, value, kind: str):
    """``value`` must be a result of ``kind`` (SweepResult, SimulationResult, FloquetResult, RotationResult)."""
    from .engine import SimulationResult
    from .floquet import FloquetResult
    from .rotation import RotationResult
    from .sweep import SweepResult

    cls = {"SweepResult": SweepResult, "SimulationResult": SimulationResult, "FloquetResult": FloquetResult,
           "RotationResult": RotationResult}[kind]
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a {kind}; got {type(value).__name__}")
    return value


def _results(name: str, value, kind: str, keys=()):
    """A mapping of results of ``kind`` (holding ``keys``)."""
    check_rule(name, value, "mapping:" + "|".join(keys))
    for k, v in value.items():
        _result(f"{name}[{k!r}]", v, kind)
    return value


def _orbits_of(bname: str, betas, name: str, result, limit: int | None = None, lyapunov: bool = False) -> int:
    """``result`` is a SimulationResult with saved orbits (and λ_max when ``lyapunov``), one per β of ``betas`` (at
    most ``limit``)."""
    _result(name, result, "SimulationResult")
    n = len(betas)
    if result.m_o is None or (lyapunov and result.lyapunov is None):
        raise ValueError(f"{name} must hold its saved orbits" + (" and λ_max" if lyapunov else "")
                         + f" (simulate(..., save=True{', lyapunov=True' if lyapunov else ''}))")
    if len(result.m_o) != n or n == 0:
        raise ValueError(f"{bname} must hold one β per orbit of {name} ({len(result.m_o)}); got {n}")
    if limit is not None and n > limit:
        raise ValueError(f"{bname} must hold at most {limit} β (one panel each); got {n}")
    return n


def _lengths(n: int, **arrays) -> None:
    """Each of ``arrays`` holds one entry per β (``n``)."""
    for name, value in arrays.items():
        if np.ndim(value) != 1 or len(value) != n:
            raise ValueError(f"{name} must hold one entry per β ({n}); got shape {np.shape(value)}")
        if name.endswith("periods") and np.min(value) < 0:
            raise ValueError(f"{name} must hold periods >= 0 (0: none found); got {np.min(value)!r}")


def _positive_counts(name: str, value):
    arr = check_array(name, value, integer=True, ndim=1)
    if arr.size == 0 or arr.min() < 1:
        raise ValueError(f"{name} must be a non-empty 1-d array of positive integers; got {value!r}"[:200])
    return arr


@contract(x="real")
def fmt_lam(x: float) -> str:
    """λ_max for titles and prose: three decimals, or one significant digit when |λ| < 10^-3."""
    return f"{x:+.3f}" if abs(x) >= 1e-3 else f"{x:+.0e}"


@contract(use="choice:band|strobe")
def diagram_points(res, use="band"):
    """x (β), y (m^o_1), index of β: periodic orbits draw all their distinct values, others their section (the
    last 1000 stroboscopic points: denser sections, kept for comparing attractors, would only blacken the plot)."""
    _result("res", res, "SweepResult")
    cls = res.classes()
    xs, ys, idx = [], [], []
    for i, b in enumerate(res.betas):
        pts = res.periodic_points(i) if cls[i] == 0 else (res.band[i] if use == "band" else res.strobe[i][-1000:, 0])
        xs.append(np.full(pts.size, b)); ys.append(pts); idx.append(np.full(pts.size, i))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(idx)


@contract(color_by="choice:class|lyapunov", use="choice:band|strobe", s="real:>0?", lam_range="real:>0")
def draw_diagram(ax, res, color_by, use="band", s=None, lam_range=0.15):
    """Scatter a :class:`~mfattn.dynamics.sweep.SweepResult` on ``ax``, coloured by "class" or "lyapunov"."""
    _result("res", res, "SweepResult")
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
    _results("diagrams", diagrams, "SweepResult", ("fig3a", "fig3b"))
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
    _results("diagrams", diagrams, "SweepResult", ("fig3a", "fig3b"))
    check_rule("images", images, "mapping:fig3a|fig3b")
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
    _results("diagrams", diagrams, "SweepResult", ("fig3a", "fig3b"))
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


@contract(betas="array:1", periods="intarray", other_periods="intarray?")
def planes(betas, result, periods, other=None, other_periods=None, differ=None, names=("", "")):
    """Fig. 4: the (m^o_1, m^o_2) plane of each β of a SimulationResult (periodic orbits as points).

    ``other`` (optional): the same β from another start; where ``differ[i]`` its attractor is drawn too,
    in orange, and the title gives both λ_max (``names`` label the two starts). At most 6 β (a 2 × 3 grid), one per
    orbit of ``result``; ``periods`` (and ``other_periods``, ``differ``) one per β."""
    n = _orbits_of("betas", betas, "result", result, limit=6, lyapunov=True)
    _lengths(n, periods=periods)
    if other is not None:
        _orbits_of("betas", betas, "other", other, lyapunov=True)
        if other_periods is None or differ is None:
            raise ValueError("other_periods and differ must be given with other (its periods, and where it differs)")
        _lengths(n, other_periods=other_periods, differ=differ)
    if isinstance(names, (str, bytes)) or len(names) != 2:
        raise ValueError(f"names must be two labels (result's start, other's start); got {names!r}"[:200])
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


@contract(betas="array:1", pick="mapping")
def time_series(betas, result, pick):
    """Fig. 5: trajectory window, power spectrum (f = 1/L marked) and autocorrelation per picked orbit (``pick``: one or
    two names -> index of a β of ``betas``, one per orbit of ``result``)."""
    n = _orbits_of("betas", betas, "result", result)
    if not 1 <= len(pick) <= 2:
        raise ValueError(f"pick must name one or two orbits (the figure's two columns); got {len(pick)}")
    for name, i in pick.items():
        check_int(f"pick[{name!r}]", i, -n, n - 1)
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
    _result("res", res, "SweepResult")
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True, layout="constrained")
    for ax, use, title in zip(axes, ("band", "strobe"), (r"band $|m^o_2| \leq 10^{-3}$ (paper)",
                                                          r"stroboscopic: every $L$-th state, $t \equiv 0$ (mod $L$)")):
        draw_diagram(ax, res, "class", use=use)
        ax.set(xlabel=r"$\beta$", title=title, xlim=(res.betas[0], res.betas[-1]))
    axes[0].set_ylabel(r"$m^o_1$")
    return fig


@contract(grid="array:1")
def coexisting(results, grid, coexist):
    """Stroboscopic sections from several starting contexts (dict β_start -> SweepResult); ``coexist`` marked."""
    _results("results", results, "SweepResult")
    if not results:
        raise ValueError("results must hold at least one SweepResult (one panel per starting context); got none")
    if np.size(grid) == 0:
        raise ValueError("grid must hold at least one β; got none")
    coexist = np.asarray(coexist)
    if coexist.dtype != bool or coexist.shape != np.shape(grid):
        raise TypeError(f"coexist must be a bool array of grid's shape {np.shape(grid)}; got {coexist.dtype} "
                        f"{coexist.shape}")
    fig, axes = plt.subplots(len(results), 1, figsize=(10, 1.9 * len(results)), sharex=True, sharey=True,
                             layout="constrained")
    axes = np.atleast_1d(axes)   # one result: a single Axes
    for ax, (cb, r) in zip(axes, results.items()):
        draw_diagram(ax, r, "lyapunov", use="strobe")
        ax.set_title(rf"from the final context of a token run at $\beta$ = {cb:g}", fontsize=9)
        ax.set_ylabel(r"$m^o_1$")
        for b in grid[coexist]:
            ax.axvline(b, color="orange", alpha=0.25, lw=1.5, zorder=0)
    axes[-1].set(xlabel=r"$\beta$", xlim=(grid[0], grid[-1]))
    return fig


@contract(betas="array:1", gammas="array:1", lam="array:2")
def lyapunov_map(betas, gammas, lam):
    """λ_max over (β, γ), ``lam`` (len(gammas), len(betas)), clipped to ±0.15; the paper's γ = 220 dashed."""
    if np.shape(lam) != (len(gammas), len(betas)) or np.size(lam) == 0:
        raise ValueError(f"lam must have shape (len(gammas), len(betas)) = ({len(gammas)}, {len(betas)}), non-empty; "
                         f"got {np.shape(lam)}")
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    im = ax.pcolormesh(betas, gammas, np.clip(lam, -0.15, 0.15), cmap=LAM_CMAP, norm=TwoSlopeNorm(0, -0.15, 0.15),
                       shading="nearest", rasterized=True)
    ax.axhline(220, color="k", ls="--", lw=0.8)
    ax.set(xlabel=r"$\beta$", ylabel=r"$\gamma$")
    fig.colorbar(im, ax=ax, label=r"$\lambda_{\max}$ (clipped)")
    return fig


@contract(samples="mapping", N0="int:1", t0="int:1", errs="array:2", error_betas="reals", error_t="int:1")
def finite_n(samples, N0, t0, errs, Ns, error_betas, error_t):
    """Left: histograms of the sampled m^o_1 per sampler (dict name -> (reps,)) at N0 after t0 steps.
    Right: RMS distance to the mean field against N (``errs`` (len(error_betas), len(Ns))), N^{-1/2} law."""
    Ns = _positive_counts("Ns", Ns)
    if np.shape(errs) != (len(error_betas), Ns.size) or np.min(errs) <= 0:
        raise ValueError(f"errs must be positive, (len(error_betas), len(Ns)) = ({len(error_betas)}, {Ns.size}); "
                         f"got shape {np.shape(errs)}")
    errs = np.asarray(errs, dtype=float)   # float64 (numpy's fit refuses float128)
    for name, x in samples.items():
        check_array(f"samples[{name!r}]", x, ndim=1)
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


@contract(panels="mapping", grid="array:1")
def finite_n_diagrams(panels, grid):
    """One stroboscopic-section diagram per panel (dict title -> list of per-β section arrays), side by side."""
    if not panels:
        raise ValueError("panels must hold at least one panel (title -> per-β sections); got none")
    for name, pts in panels.items():
        if isinstance(pts, (str, bytes)) or len(pts) != len(grid):
            raise ValueError(f"panels[{name!r}] must hold one section per β of grid ({len(grid)})")
        for p in pts:
            check_array(f"panels[{name!r}]", p)
    grid = np.asarray(grid)   # a list of β as well as an array
    panels = {name: [np.asarray(p) for p in pts] for name, pts in panels.items()}
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 3.4), sharey=True, layout="constrained")
    axes = np.atleast_1d(axes)   # one panel: a single Axes
    for ax, (name, pts) in zip(axes, panels.items()):
        x = np.concatenate([np.full(p.size, b) for b, p in zip(grid, pts)])
        ax.scatter(x, np.concatenate(pts), s=min(1.5, 100 / grid.size), lw=0, color="k", rasterized=True)
        ax.set(title=name, xlabel=r"$\beta$")
    axes[0].set_ylabel(r"$m^o_1$ (stroboscopic section)")
    return fig


# ----------------------------------------------------------------------------------------------
# Beyond the paper: Floquet multipliers, Lyapunov spectrum, rotation numbers, tongues, basins, network
# ----------------------------------------------------------------------------------------------
__all__ += ["floquet_and_spectrum", "staircase_and_tongues", "basins", "network_oracle"]


@contract(ns="mapping:beta|angle|rotation", spec_betas="array:1", spec="array:2")
def floquet_and_spectrum(flq, ns, spec_betas, spec):
    """Left: |μ| of the period-4 orbit's leading multipliers against β (unit circle dashed, the Neimark-Sacker
    point marked). Middle: the multipliers in the complex plane, coloured by β. Right: the Lyapunov
    spectrum ``spec`` (len(spec_betas), k) over the zoom, with λ = 0 and β_NS marked."""
    _result("flq", flq, "FloquetResult")
    if np.shape(spec)[0] != len(spec_betas) or 0 in np.shape(spec):
        raise ValueError(f"spec must have shape (len(spec_betas), k) = ({len(spec_betas)}, k), non-empty; got "
                         f"{np.shape(spec)}")
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), layout="constrained")
    mod = np.abs(flq.multipliers)
    for i in range(min(6, mod.shape[1])):
        axes[0].plot(flq.betas, mod[:, i], lw=1.2, color=f"C{i // 2}", ls="-" if i % 2 == 0 else ":")
    axes[0].axhline(1, color="k", ls="--", lw=0.8)
    axes[0].set(xlabel=r"$\beta$", ylabel=r"$|\mu_i|$ (period-4 orbit)", title="Floquet multipliers")
    sc = axes[1].scatter(flq.multipliers.real[:, :6].ravel(), flq.multipliers.imag[:, :6].ravel(),
                         c=np.repeat(flq.betas, min(6, mod.shape[1])), s=6, cmap="viridis")
    t = np.linspace(0, 2 * np.pi, 400)
    axes[1].plot(np.cos(t), np.sin(t), "k--", lw=0.8)
    axes[1].set(xlabel=r"Re $\mu$", ylabel=r"Im $\mu$", aspect="equal", title="in the complex plane")
    fig.colorbar(sc, ax=axes[1], label=r"$\beta$")
    if np.isfinite(ns["beta"]):
        axes[0].axvline(ns["beta"], color="C3", lw=0.8)
        axes[0].annotate(rf"NS: $\beta$ = {ns['beta']:.4f}, $\theta/2\pi$ = {ns['rotation']:.3f}",
                         (ns["beta"], 1.0), xytext=(0.03, 0.9), textcoords="axes fraction", fontsize=8)
        z = np.exp(1j * ns["angle"])
        axes[1].plot([z.real, z.real], [z.imag, -z.imag], "o", mfc="none", color="C3", ms=8)
    for j in range(spec.shape[1]):
        axes[2].plot(spec_betas, spec[:, j], lw=1, label=rf"$\lambda_{j + 1}$")
    axes[2].axhline(0, color="k", lw=0.6)
    if np.isfinite(ns["beta"]):
        axes[2].axvline(ns["beta"], color="C3", lw=0.8)
    axes[2].set(xlabel=r"$\beta$", ylabel="exponent per step", title="Lyapunov spectrum (zoom)",
                ylim=(max(-0.6, float(np.nanmin(spec)) - 0.02), float(np.nanmax(spec)) + 0.02))
    axes[2].legend(fontsize=7, ncol=2)
    return fig


@contract(ns="mapping:beta|rotation", other_label="str")
def staircase_and_tongues(rot, found, ns, tongues, other=None, other_label="second start"):
    """Left: the devil's staircase ρ(β) of the stroboscopic map over the zoom (plateaus ``found`` labelled,
    θ_NS/2π at β_NS marked); ``other`` (a second :class:`~.rotation.RotationResult` on the same grid, from another
    start) is drawn where its ρ differs (coexisting attractors: the staircase has two branches there). Right: ρ over
    (β, ε) from the token; grey where the stroboscopic orbit is a fixed point (the period-4 orbit: locked at 0),
    dots where it is a short cycle (locked), the paper's ε = 0.02 dashed."""
    _result("rot", rot, "RotationResult")
    _result("tongues", tongues, "RotationResult")
    if np.ndim(rot.betas) != 1:
        raise ValueError(f"rot must be a 1-d staircase (rotation_number's result); got a grid of shape "
                         f"{np.shape(rot.betas)}")
    if np.ndim(tongues.betas) != 2:
        raise ValueError(f"tongues must be an Arnold-tongue grid (arnold_tongues' result, ε rows × β columns); got "
                         f"shape {np.shape(tongues.betas)}")
    if other is not None:
        _result("other", other, "RotationResult")
        if np.shape(other.betas) != np.shape(rot.betas) or not np.array_equal(other.betas, rot.betas):
            raise ValueError(f"other must be a staircase on rot's grid ({np.size(rot.betas)} β from "
                             f"{np.ravel(rot.betas)[0]:g}); got a grid of shape {np.shape(other.betas)}")
    from collections.abc import Mapping

    if isinstance(found, (str, bytes)) or not isinstance(found, (list, tuple)) or not all(
            isinstance(p, Mapping) and {"fraction", "beta_lo", "beta_hi", "rho"} <= set(p) for p in found):
        raise TypeError(f"found must be plateaus' list of dicts (fraction, beta_lo, beta_hi, rho); got "
                        f"{type(found).__name__}")
    fig, axes = plt.subplots(1, 2, figsize=(12.5, 4.0), layout="constrained")
    ax = axes[0]
    ax.plot(rot.betas, rot.rho, ".", ms=2.5, color="0.3", label=r"$\rho$")
    if other is not None:
        off = ~np.isclose(other.rho, rot.rho, rtol=0, atol=1e-3, equal_nan=True)
        ax.plot(other.betas[off], other.rho[off], ".", ms=3, color="C1", label=rf"$\rho$, {other_label} (differs)")
    fractions = list(dict.fromkeys(p["fraction"] for p in found))  # one colour and one label per fraction
    for p in found:
        ax.plot([p["beta_lo"], p["beta_hi"]], [p["rho"]] * 2, "-", lw=4, alpha=0.6,
                color=f"C{fractions.index(p['fraction']) % 10}")
    for k, f in enumerate(fractions):
        first = next(p for p in found if p["fraction"] == f)
        ax.annotate(f, (first["beta_lo"], first["rho"]), xytext=(-4, 6), textcoords="offset points", fontsize=9,
                    ha="right", color=f"C{k % 10}")
    if np.isfinite(ns["beta"]):
        ax.plot([ns["beta"]], [ns["rotation"]], "*", color="C3", ms=10, label=r"$\theta_{NS}/2\pi$ at $\beta_{NS}$")
    ax.set(xlabel=r"$\beta$", ylabel=r"rotation number $\rho$ (turns per $L$ steps)", title="devil's staircase")
    ax.legend(fontsize=8, loc="lower left")
    ax = axes[1]
    rho = np.ma.masked_invalid(tongues.rho)
    im = ax.pcolormesh(tongues.betas[0], tongues.epsilon[:, 0], rho, cmap="viridis", shading="nearest",
                       vmin=0, vmax=0.5, rasterized=True)
    # grey: the stroboscopic orbit is a fixed point (1 distinct point); light grey: no ρ yet (still spiralling in)
    grey = np.where(tongues.distinct == 1, 0.0, np.where(np.isnan(tongues.rho), 1.0, np.nan))
    ax.pcolormesh(tongues.betas[0], tongues.epsilon[:, 0], np.ma.masked_invalid(grey), shading="nearest",
                  cmap=LinearSegmentedColormap.from_list("g", ["0.6", "0.88"]), vmin=0, vmax=1, rasterized=True)
    ax.plot(tongues.betas[tongues.locked], tongues.epsilon[tongues.locked], "o", ms=2.5, mfc="w", mec="k", mew=0.3,
            label="short cycle (locked)")
    ax.legend(fontsize=7, loc="upper left")
    ax.axhline(0.02, color="w", ls="--", lw=0.8)
    ax.set(xlabel=r"$\beta$", ylabel=r"forcing amplitude $\epsilon$", title=r"locked regions over $(\beta, \epsilon)$")
    fig.colorbar(im, ax=ax, label=r"$\rho$")
    return fig


@contract(contexts="int:1")
def basins(found, contexts):
    """Stacked bars: fraction of ``contexts`` random initial contexts reaching each attractor at each β
    (``found``: one list of :class:`~mfattn.dynamics.basins.Attractor` per β), labelled by kind and λ_max."""
    from .basins import Attractor

    if isinstance(found, (str, bytes)) or not isinstance(found, (list, tuple)) or not all(
            isinstance(atts, (list, tuple)) and atts and all(isinstance(a, Attractor) for a in atts) for atts in found):
        raise TypeError(f"found must be basin_fractions' result (a list, per β, of lists of Attractor); got "
                        f"{type(found).__name__}")
    if not found:
        raise ValueError("found must hold the attractors of at least one β (basin_fractions' result); got none")
    for atts in found:   # each β's basins share all the contexts out
        total = sum(a.fraction for a in atts)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"found: the basin fractions at β = {atts[0].beta:g} must sum to 1; got {total:.6g}")
    fig, ax = plt.subplots(figsize=(8, 3.6), layout="constrained")
    colors = {"period": "#2171b5", "quasi-periodic": "#404040", "chaotic": "#cb181d"}
    for x, atts in enumerate(found):
        bottom = 0.0
        for a in atts:
            c = colors["period"] if a.period else colors[a.kind]
            ax.bar(x, a.fraction, bottom=bottom, color=c, edgecolor="w", alpha=0.85)
            if a.fraction > 0.06:
                ax.text(x, bottom + a.fraction / 2, f"{a.kind}\n" + rf"$\lambda$ = {fmt_lam(a.lyapunov)}",
                        ha="center", va="center", fontsize=7, color="w")
            bottom += a.fraction
    ax.set_xticks(range(len(found)), [f"{atts[0].beta:g}" for atts in found])
    ax.set(xlabel=r"$\beta$", ylabel=f"fraction of {contexts} random contexts", ylim=(0, 1))
    return fig


@contract(samples="mapping", N0="int:1", t0="int:1", errs="array:1", beta="real")
def network_oracle(samples, N0, t0, Ns, errs, beta):
    """Left: m^o_1 at t = t0 − 1 of the explicit network and of the binomial sampler at N = N0 (lattice
    counts). Right: RMS distance of the explicit network to the mean-field map against N, with N^{-1/2}."""
    Ns = _positive_counts("Ns", Ns)
    if np.shape(errs) != Ns.shape or np.min(errs) <= 0:
        raise ValueError(f"errs must be positive, one per N ({Ns.size}); got shape {np.shape(errs)}")
    for name, x in samples.items():
        check_array(f"samples[{name!r}]", x, ndim=1)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    for k, (name, x) in enumerate(samples.items()):
        vals, counts = np.unique(np.rint(x * N0).astype(int), return_counts=True)
        axes[0].step(vals / N0, counts, where="mid", lw=1.4, color=f"C{k}", label=f"{name}: mean {x.mean():+.3f}")
    axes[0].set(xlabel=rf"$m^o_1$ at t = {t0 - 1}, N = {N0}, $\beta$ = {beta:g}", ylabel="count")
    axes[0].legend(fontsize=8)
    Ns, errs = np.asarray(Ns, dtype=float), np.asarray(errs, dtype=float)   # float64 (numpy's fit refuses float128)
    slope = np.polyfit(np.log(Ns), np.log(errs), 1)[0]
    axes[1].loglog(Ns, errs, "o-", label=f"explicit network (slope {slope:.2f})")
    axes[1].loglog(Ns, errs[0] * (Ns / Ns[0]) ** -0.5, "k--", lw=0.8, label=r"$N^{-1/2}$")
    axes[1].set(xlabel="N (semantic units)", ylabel=r"RMS $|\hat m^o_t - m^o_t|$ at t = 39")
    axes[1].legend(fontsize=8)
    return fig
