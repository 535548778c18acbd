"""Chapter 3's figures with the controls of its verdicts: on the Onsager figure the β̂²-only net, the best correction
shared by all sites, TAP's per-site term (no learning) and f(m) fitted at one β at a time; on the cost figure the
operation count beside the wall time.

Kept apart from :mod:`mfattn.implicit.figures`, whose source is part of the code digest of chapter 2's stored
figures (a change there would make them stale, and re-making them means re-training chapter 2's thirty MNIST runs):
this module draws the controls on top of :func:`mfattn.implicit.figures.onsager` and
:func:`mfattn.implicit.figures.tap_cost`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from ..companion.checks import check_array, contract
from . import figures

__all__ = ["CONTROL_LABELS", "onsager_with_controls", "tap_cost_with_count"]

#: The legend of each control net's input (beside :data:`mfattn.implicit.figures.ONSAGER_LABELS`).
CONTROL_LABELS = {"m+b2": r"$f_\theta(m_i, \hat\beta^2)$ (temperature only)"}


def onsager_with_controls(res: dict, inputs: Sequence[str], test_betas: np.ndarray, train_betas: Sequence[float],
                          title: str) -> plt.Figure:
    """:func:`mfattn.implicit.figures.onsager` for the nets of ``inputs`` that it knows, then each control net of
    ``inputs`` (:data:`CONTROL_LABELS`) in the next colour, the nets fitted with every training β weighted alike
    (``g_bal``, ``m_bal``: dashed, where stored), and (left, dotted grey) the error of the best correction that treats
    every site of an instance alike (``res["corr_err_shared"]``, where stored)."""
    if not isinstance(res, Mapping):
        raise TypeError(f"res must be a mapping of the study's curves (dict); got {type(res).__name__}")
    if isinstance(inputs, str) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs must be a list of net inputs; got {inputs!r}"[:200])
    unknown = [name for name in inputs if name not in figures.ONSAGER_LABELS and name not in CONTROL_LABELS]
    if unknown:
        raise ValueError(f"inputs: unknown net input(s) {unknown}; expected among "
                         f"{sorted({**figures.ONSAGER_LABELS, **CONTROL_LABELS})}")
    controls = [name for name in inputs if name in CONTROL_LABELS]
    curves = [f"{k}_err_{name}" for name in controls for k in ("corr", "m")]
    curves += [f"{k}_err_{name}" for name in ("g_bal", "m_bal") if f"corr_err_{name}" in res for k in ("corr", "m")]
    curves += [key for key in ("corr_err_shared", "corr_err_sitetap", "corr_err_m_fixed") if key in res]
    lacking = [key for key in curves if key not in res]
    if lacking:
        raise ValueError(f"res lacks {lacking} (inputs names a control net it does not hold, or a net fitted "
                         f"with every β weighted alike is stored without its m_err)")
    figures._check_curves(res, curves, test_betas)
    base = [name for name in inputs if name in figures.ONSAGER_LABELS]
    fig = figures.onsager(res, base, test_betas, train_betas, title)
    left, right = fig.axes[:2]
    for c, name in enumerate([name for name in inputs if name in CONTROL_LABELS], start=len(base)):
        left.semilogy(test_betas, res[f"corr_err_{name}"], "o-", ms=4, color=f"C{c}", label=CONTROL_LABELS[name])
        right.semilogy(test_betas, res[f"m_err_{name}"], "o-", ms=4, color=f"C{c}", label=CONTROL_LABELS[name])
    if "corr_err_shared" in res:
        left.semilogy(test_betas, res["corr_err_shared"], ":", color="0.4", label="best site-shared $a\\,m_i$")
    if "corr_err_sitetap" in res:
        left.semilogy(test_betas, res["corr_err_sitetap"], "-.", color="0.2",
                      label=r"per-site TAP $\sum_j J_{ij}^2(1-m_j^2)\,m_i$ (no learning)")
    for name, colour, label in (("g_bal", "C0", r"$f_\theta(g_i)$, every training $\beta$ weighted alike"),
                                ("m_bal", "C1", r"$f_\theta(m_i)$, every training $\beta$ weighted alike")):
        if f"corr_err_{name}" in res:      # the fits the verdicts read (dashed, in their plain fit's colour)
            left.semilogy(test_betas, res[f"corr_err_{name}"], "s--", ms=3, color=colour, label=label)
            right.semilogy(test_betas, res[f"m_err_{name}"], "s--", ms=3, color=colour, label=label)
    if "corr_err_m_fixed" in res:
        left.semilogy(test_betas, res["corr_err_m_fixed"], "x", ms=6, color="C1",
                      label=r"$f_\theta(m_i)$ fitted at each $\beta$ alone")
    for ax in (left, right):     # below the axes: inside, the legend of eleven curves would hide some of them
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return fig


@contract(scaling="mapping:Nd|seconds|fit|exponent", count="mapping:Nd|flops")
def tap_cost_with_count(scaling: dict, count: dict) -> plt.Figure:
    """:func:`mfattn.implicit.figures.tap_cost` with the operation count of the same update
    (:func:`mfattn.implicit.explicit_cost.cost_count`), scaled to the largest measured time, and its fitted exponent
    over the same window: the arithmetic is cubic, the wall time grows a little slower. ``count`` must be at the sizes
    of ``scaling`` (its ``Nd``), with positive operation counts."""
    figures._check_scaling(scaling)
    sizes = check_array("count['Nd']", count["Nd"], ndim=1, allow_int=True)
    if not np.array_equal(sizes, np.asarray(scaling["Nd"], float)):
        raise ValueError(f"count['Nd'] must be the sizes of scaling['Nd'] {np.asarray(scaling['Nd']).tolist()} (the "
                         f"count of the timed updates); got {sizes.tolist()}"[:300])
    flops = check_array("count['flops']", count["flops"], ndim=1, allow_int=True)
    if len(flops) != len(sizes) or not (flops > 0).all():
        raise ValueError(f"count['flops'] must hold one positive operation count per size ({len(sizes)}); got "
                         f"{flops.tolist()}"[:300])
    fig = figures.tap_cost(scaling)
    ax = fig.axes[0]
    nd, flops, fit = np.asarray(count["Nd"], float), np.asarray(count["flops"], float), np.asarray(scaling["fit"])
    p = float(np.polyfit(np.log(nd[fit]), np.log(flops[fit]), 1)[0])
    ax.loglog(nd, flops * scaling["seconds"][-1] / flops[-1], "k-", lw=0.8,
              label=f"operation count (scaled): exponent {p:.3f}")
    ax.legend(fontsize=8)
    return fig
