"""Plots of Chapter 1 (the foundations): mean-field theories of the SK model against exact enumeration.

Each function takes the results of :mod:`mfattn.ising` and returns a matplotlib figure; the chapter
hands it to ``run.figure``. Styling comes from the book's style sheet (``mfattn.companion.mfattn``).
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from .accuracy import Comparison

__all__ = ["LABELS", "COLORS", "rmse", "scatter", "stability", "damping"]

LABELS = {"naive": "naive mean field", "tap": "TAP (SK)", "tap_site": "TAP (site)", "adaptive_tap": "adaptive TAP"}
COLORS = {"naive": "C0", "tap": "C1", "tap_site": "C3", "adaptive_tap": "C2"}


def _mark_at(ax, cmp: Comparison) -> float:
    """A dotted line where the median Plefka/AT parameter of the exact state crosses 1; returns that β."""
    x = np.median(cmp.at_parameter(), axis=-1)
    beta = float(cmp.betas[np.argmax(x >= 1)]) if (x >= 1).any() else float("inf")
    if np.isfinite(beta):
        ax.axvline(beta, color="0.4", ls=":", lw=1)
    return beta


def rmse(cmp: Comparison, title: str) -> plt.Figure:
    """RMSE of magnetisations and of linear-response correlations vs β; ▼ on the top edge where a method
    first failed on some instance (one row per method)."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    breakdown = cmp.breakdown_beta()
    for ax, which, sub in zip(axes, ("m", "c"), ("magnetisations $m_i$", "correlations $C_{ij}$ (linear response)")):
        err = cmp.mean_rmse(which)
        for k, name in enumerate(cmp.methods):
            ax.semilogy(cmp.betas, err[k], "o-", ms=3.5, color=COLORS[name], label=LABELS[name])
            if np.isfinite(breakdown[name]):
                ax.plot(breakdown[name], 1.0 - 0.05 * k, "v", ms=8, color=COLORS[name], clip_on=False,
                        transform=ax.get_xaxis_transform())
        ax.set(xlabel=r"inverse temperature $\beta$", ylabel="RMSE vs exact", title=sub)
    axes[0].legend()
    fig.suptitle(title, y=1.02)
    return fig


def scatter(cmp: Comparison, b: int) -> plt.Figure:
    """Exact against approximate magnetisations of every spin of every instance at ``cmp.betas[b]``."""
    fig, axes = plt.subplots(1, len(cmp.methods), figsize=(9.5, 3.3), sharex=True, sharey=True, squeeze=False)
    exact = cmp.m_exact[b].ravel()
    for ax, (k, name) in zip(axes[0], enumerate(cmp.methods)):
        ax.plot([-1, 1], [-1, 1], color="0.6", lw=1)
        ax.scatter(exact, cmp.m_approx[k, b].ravel(), s=8, color=COLORS[name], alpha=0.7)
        ax.set(title=LABELS[name], xlabel="exact $m_i$", xlim=(-1, 1), ylim=(-1, 1), aspect="equal")
    axes[0, 0].set_ylabel("approximate $m_i$")
    fig.suptitle(rf"$\beta$ = {cmp.betas[b]:g}, all spins of {cmp.m_exact.shape[1]} instances", y=1.02)
    return fig


def stability(cmp: Comparison, damping_used: float) -> plt.Figure:
    """Left: median smallest eigenvalue of χ over the instances where the method converged, and of the
    exact C. Right: fraction of instances whose damped iteration did not converge (solid) and whose
    converged solution has a non-positive-definite χ⁻¹ (dashed). Dotted: Plefka/AT parameter = 1."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharex=True)
    ax = axes[0]
    ax.plot(cmp.betas, np.median(cmp.exact_lambda_min, axis=-1), "k-", lw=2, label="exact $C$")
    for k, name in enumerate(cmp.methods):
        lam = np.where(cmp.converged[k], cmp.lambda_min[k], np.nan)
        with np.errstate(all="ignore"):
            med = np.array([np.median(row[np.isfinite(row)]) if np.isfinite(row).any() else np.nan for row in lam])
        ax.plot(cmp.betas, med, "o-", ms=3.5, color=COLORS[name], label=LABELS[name])
    ax.axhline(0, color="0.3", lw=0.8)
    ax.set(xlabel=r"$\beta$", ylabel=r"median $\lambda_{\min}(\chi)$, converged instances",
           title=r"smallest eigenvalue of $\chi$")
    ax.legend()
    ax = axes[1]
    for k, name in enumerate(cmp.methods):
        ax.plot(cmp.betas, (~cmp.converged[k]).mean(-1), "-", color=COLORS[name], label=LABELS[name])
        ax.plot(cmp.betas, (cmp.converged[k] & ~cmp.chi_positive[k]).mean(-1), "--", color=COLORS[name])
    ax.plot([], [], "-", color="0.3", label="not converged")
    ax.plot([], [], "--", color="0.3", label=r"converged, $\chi^{-1}$ not positive definite")
    ax.legend(loc="center right", fontsize="small")
    ax.set(xlabel=r"$\beta$", ylabel="fraction of instances", ylim=(-0.03, 1.03),
           title=f"failures at damping {damping_used:g}")
    for ax in axes:
        _mark_at(ax, cmp)
    return fig


def damping(betas: Any, dampings: Any, converged: np.ndarray, stable: np.ndarray,
            methods: tuple[str, ...]) -> plt.Figure:
    """Per method, the fraction of instances with a stable converged solution against β, one line per
    damping (output of :func:`mfattn.meanfield.accuracy.damping_sweep`)."""
    fig, axes = plt.subplots(1, len(methods), figsize=(9.5, 3.2), sharey=True, squeeze=False)
    styles = ["-", "--", ":", "-."]
    for ax, (k, name) in zip(axes[0], enumerate(methods)):
        for d, a in enumerate(dampings):
            ax.plot(betas, stable[k, d].mean(-1), styles[d % 4], marker="o", ms=3, color=COLORS[name],
                    label=f"damping {a:g}")
        ax.set(title=LABELS[name], xlabel=r"$\beta$", ylim=(-0.03, 1.03))
        ax.legend(fontsize="small")
    axes[0, 0].set_ylabel("fraction converged and stable")
    return fig
