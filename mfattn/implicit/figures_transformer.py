"""Chapter 3's figures: the transformer's solver steps, the cost of TAP against the system size, and the errors of
the learned Onsager corrections over β."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from ..companion.checks import check_choice, check_real, contract
from .figures_checks import _series

__all__ = ["ONSAGER_LABELS", "transformer_steps", "tap_cost", "onsager"]


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
