"""Plots of Chapter 1 (the foundations): mean-field theories of the SK model against exact enumeration.

Each function takes the results of :mod:`mfattn.meanfield.accuracy` and returns a matplotlib figure; the
chapter hands it to ``run.figure``. Styling comes from the book's style sheet (``mfattn.companion.mfattn``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..companion.checks import check_int, check_real
from .accuracy import Comparison, DampingSweep, median_over_instances

__all__ = ["LABELS", "COLORS", "rmse", "scatter", "stability", "damping"]

LABELS = {"naive": "naive mean field", "tap": "TAP (SK)", "tap_site": "TAP (site)", "adaptive_tap": "adaptive TAP"}
COLORS = {"naive": "C0", "tap": "C1", "tap_site": "C3", "adaptive_tap": "C2"}


def _check_cmp(cmp) -> None:
    """A figure's comparison is the one :func:`.accuracy.compare_mean_field` builds: a TypeError naming it otherwise."""
    if not isinstance(cmp, Comparison):
        raise TypeError(f"cmp must be a Comparison (compare_mean_field's result); got {type(cmp).__name__}")


def _check_sweep(sweep) -> None:
    if not isinstance(sweep, DampingSweep):
        raise TypeError(f"sweep must be a DampingSweep (damping_sweep's result); got {type(sweep).__name__}")


def _mark_at(ax, exact: float, own: dict[str, float], clear: dict[str, bool] | None = None) -> None:
    """Where the median Plefka/AT parameter reaches 1: a grey dotted line for the exact state, and for each
    method's own solutions a diamond on the top edge, one row per method (crossings often coincide; nothing
    where the crossing is not on the grid): filled where the median clearly crosses (``clear``: more than
    :data:`~mfattn.meanfield.claims_ising_plefka.CROSS_Z` standard errors above 1 at some β, the verdicts' own line),
    open where it only reaches 1."""
    if np.isfinite(exact):
        ax.axvline(exact, color="0.4", ls=":", lw=1.2)
    for k, (name, beta) in enumerate(own.items()):
        if np.isfinite(beta):
            filled = clear is None or clear.get(name, True)
            ax.plot(beta, 1.0 - 0.05 * k, "D", ms=5, color=COLORS[name], clip_on=False,
                    mfc=COLORS[name] if filled else "none", transform=ax.get_xaxis_transform())


def clearly_crosses(x: np.ndarray) -> bool:
    """Whether the median over the instances of ``x`` (β, instances; NaN where unsolved) exceeds 1 by more than
    CROSS_Z standard errors of the median at some β (the rule of :mod:`mfattn.meanfield.claims_ising_plefka`)."""
    from .claims_ising_plefka import CROSS_Z, _median_se
    if getattr(np.asarray(x) if not hasattr(x, "dtype") else x, "dtype", None) == bool:   # flags are no parameters
        raise TypeError("x must be an array of Plefka parameters (β, instances); got a bool array")
    try:
        x = np.asarray(x, float)
    except (TypeError, ValueError):   # numpy's "could not convert string to float" named no argument
        raise TypeError(f"x must be an array of Plefka parameters (β, instances); got {type(x).__name__}") from None
    for row in x:
        row = row[np.isfinite(row)]
        if row.size >= 3 and np.median(row) - CROSS_Z * _median_se(row) > 1.0:
            return True
    return False


#: The fewest solved instances behind a point of :func:`rmse` drawn on its method's line.
FEW_INSTANCES = 10


def rmse(cmp: Comparison, title: str) -> plt.Figure:
    """RMSE of magnetisations and of linear-response correlations vs β. On the top edge, one row per method:
    ▼ where some instance first truly failed (its iteration stalled, or its solution is unstable), ▽ where
    an iteration first stopped short of the tolerance while still relaxing, if that came earlier. A mean over fewer
    than :data:`FEW_INSTANCES` instances (or a quarter of them, if fewer) is drawn as an open marker off the line:
    a few solved instances are not the method's error."""
    _check_cmp(cmp)
    if not isinstance(title, str):
        raise TypeError(f"title must be a string; got {type(title).__name__}")
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    stalled, unstable, relaxing = (cmp.breakdown_beta(m) for m in ("stalled", "unstable", "relaxing"))
    counted = cmp.ok().sum(-1)                                                      # [method, beta]
    few = counted < min(FEW_INSTANCES, max(1, cmp.ok().shape[-1] // 4))
    for ax, which, sub in zip(axes, ("m", "c"), ("magnetisations $m_i$", "correlations $C_{ij}$ (linear response)")):
        err = cmp.mean_rmse(which)
        for k, name in enumerate(cmp.methods):
            ax.semilogy(cmp.betas, np.where(few[k], np.nan, err[k]), "o-", ms=3.5, color=COLORS[name],
                        label=LABELS[name])
            ax.semilogy(cmp.betas[few[k]], err[k][few[k]], "o", ms=3.5, mfc="none", color=COLORS[name])
            hard = min(stalled[name], unstable[name])
            for beta, face in ((hard, COLORS[name]), (relaxing[name] if relaxing[name] < hard else np.inf, "none")):
                if np.isfinite(beta):
                    ax.plot(beta, 1.0 - 0.05 * k, "v", ms=8, color=COLORS[name], mfc=face, clip_on=False,
                            transform=ax.get_xaxis_transform())
        ax.set(xlabel=r"inverse temperature $\beta$", ylabel="RMSE vs exact", title=sub)
    axes[0].legend()
    fig.suptitle(title, y=1.02)
    return fig


def scatter(cmp: Comparison, b: int) -> plt.Figure:
    """Exact against approximate magnetisations of every spin of every instance at ``cmp.betas[b]``."""
    _check_cmp(cmp)
    check_int("b", b, 0, len(cmp.betas) - 1)
    fig, axes = plt.subplots(1, len(cmp.methods), figsize=(9.5, 3.3), sharex=True, sharey=True, squeeze=False)
    exact = cmp.m_exact[b].ravel()
    for ax, (k, name) in zip(axes[0], enumerate(cmp.methods)):
        ax.plot([-1, 1], [-1, 1], color="0.6", lw=1)
        ax.scatter(exact, cmp.m_approx[k, b].ravel(), s=8, color=COLORS[name], alpha=0.7)
        ax.set(title=LABELS[name], xlabel="exact $m_i$", xlim=(-1, 1), ylim=(-1, 1), aspect="equal")
    axes[0, 0].set_ylabel("approximate $m_i$")
    fig.suptitle(rf"$\beta$ = {cmp.betas[b]:g}, all spins of {cmp.m_exact.shape[1]} instances", y=1.02)
    return fig


def stability(cmp: Comparison, damping_used: float, sweep: DampingSweep) -> plt.Figure:
    """Left: median Plefka/AT parameter x of the exact state and of each method's own converged solutions,
    at ``damping_used`` (solid, the comparison) and at the sweep's strongest damping (dashed). Middle: median
    smallest eigenvalue of χ over the instances where the method converged, and of the exact C. Right:
    fraction of instances whose damped iteration stalled (solid), stopped short of the tolerance while still
    relaxing (thin dash-dotted), or converged to a χ⁻¹ that is not positive definite (dashed). Middle and right,
    where the median x reaches 1: a grey dotted line for the exact state, a diamond on the top edge for each
    method's own solutions at the strongest damping."""
    _check_cmp(cmp)
    _check_sweep(sweep)
    check_real("damping_used", damping_used, minimum=0.0, maximum=1.0, strict=True)
    if tuple(sweep.methods) != tuple(cmp.methods):   # the panels pair the k-th method of each
        raise ValueError(f"sweep must solve the comparison's methods {cmp.methods}; got {sweep.methods}")
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.7), sharex=True)
    ax = axes[0]
    ax.plot(cmp.betas, median_over_instances(cmp.at_parameter("exact")), "k-", lw=2, label="exact state")
    for k, name in enumerate(cmp.methods):
        ax.plot(cmp.betas, median_over_instances(cmp.at_parameter(name)), "o-", ms=3, color=COLORS[name],
                label=LABELS[name])
        ax.plot(sweep.betas, median_over_instances(sweep.at_parameter[k, -1]), "--", color=COLORS[name])
    ax.plot([], [], "--", color="0.3", label=f"own solutions, damping {sweep.dampings[-1]:g}")
    ax.axhline(1.0, color="0.3", lw=0.8)
    ax.set(xlabel=r"$\beta$", ylabel=r"median $x = \beta^2\,\overline{(1-m_i^2)^2}$", title="Plefka (AT) parameter")
    ax.legend(fontsize="small")
    ax = axes[1]
    ax.plot(cmp.betas, np.median(cmp.exact_lambda_min, axis=-1), "k-", lw=2, label="exact $C$")
    for k, name in enumerate(cmp.methods):
        ax.plot(cmp.betas, median_over_instances(np.where(cmp.converged[k], cmp.lambda_min[k], np.nan)), "o-",
                ms=3.5, color=COLORS[name], label=LABELS[name])
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set(xlabel=r"$\beta$", ylabel=r"median $\lambda_{\min}(\chi)$, converged instances",
           title=r"smallest eigenvalue of $\chi$")
    ax = axes[2]
    for k, name in enumerate(cmp.methods):
        for mode, style, lw in (("stalled", "-", 1.5), ("relaxing", "-.", 1.0), ("unstable", "--", 1.5)):
            ax.plot(cmp.betas, cmp.failed(mode)[k].mean(-1), style, lw=lw, color=COLORS[name])
    for mode, style, lw in (("stalled", "-", 1.5), ("still relaxing", "-.", 1.0),
                            (r"converged, $\chi^{-1}$ not positive definite", "--", 1.5)):
        ax.plot([], [], style, lw=lw, color="0.3", label=mode)
    ax.plot([], [], ":", lw=1.2, color="0.4", label="exact state's x reaches 1")
    ax.plot([], [], "D", ms=5, color="0.4", label=f"own solutions' x crosses 1 ({sweep.dampings[-1]:g})")
    ax.plot([], [], "D", ms=5, color="0.4", mfc="none", label="reaches 1, within 2 SE of it")
    ax.legend(loc="upper left", fontsize="small")
    ax.set(xlabel=r"$\beta$", ylabel="fraction of instances", ylim=(-0.03, 1.03),
           title=f"failures at damping {damping_used:g}")
    own = {name: sweep.at_crossing(name) for name in sweep.methods}
    clear = {name: clearly_crosses(sweep.at_parameter[k, -1]) for k, name in enumerate(sweep.methods)}
    for ax in axes[1:]:
        _mark_at(ax, cmp.at_crossing("exact"), own, clear)
    return fig


def damping(sweep: DampingSweep) -> plt.Figure:
    """Per method, the fraction of instances with a stable converged solution against β, one line per
    damping of :func:`mfattn.meanfield.accuracy.damping_sweep`; the legend counts the (β, instance) points
    whose iteration stopped short of the tolerance while still relaxing, and those where it stalled."""
    _check_sweep(sweep)
    fig, axes = plt.subplots(1, len(sweep.methods), figsize=(9.5, 3.2), sharey=True, squeeze=False)
    styles = ["-", "--", ":", "-."]
    stalled = sweep.stalled()
    for ax, (k, name) in zip(axes[0], enumerate(sweep.methods)):
        for d, a in enumerate(sweep.dampings):
            ax.plot(sweep.betas, sweep.stable[k, d].mean(-1), styles[d % 4], marker="o", ms=3, color=COLORS[name],
                    label=f"{a:g}: {sweep.relaxing[k, d].sum()} relaxing, {stalled[k, d].sum()} stalled")
        ax.set(title=LABELS[name], xlabel=r"$\beta$", ylim=(-0.03, 1.03))
        ax.legend(loc="lower left", fontsize="x-small", title="damping", title_fontsize="x-small")  # below the curves
    axes[0, 0].set_ylabel("fraction converged and stable")
    return fig
