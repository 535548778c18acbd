"""Where coordinate-ascent VI for expanding attention ends, from several starts.

CAVI on the geometric-prior model (:func:`mfattn.structural.expanding_core.expanding_attention` with
``update="cavi"``) alternates q(t) ∝ exp(s_t + t E[log(1 − q)]) over the current window with
q(q) = Beta(α₀ + 1, β₀ + E[t − 1]). Each sweep never lowers the ELBO on a fixed support, but the objective is
not concave in (q(t), q(q)) jointly, so a score vector can have several fixed points: two starts can end with
different horizons and different ELBOs. The chapter's runs start every query from one place (the hyper-prior's
first window); :func:`cavi_start_dependence` measures how much the end depends on that choice, by starting the
same score vectors from several first windows (narrow, the hyper-prior's, the paper's 29, the whole sequence)
and recording, per score vector, the spread of the end horizons and of the ELBOs, and how far the
hyper-prior start's ELBO lies below the best one found.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch

from ..companion.checks import check_int, check_real, contract
from . import expanding_core as ex

__all__ = ["cavi_start_dependence"]


@contract(scores="tensor:2", alpha0="real:>0", beta0="real:>0", first_windows="ints:2", tol="real:>0",
          max_iter="int:1", same="real:>0")
def cavi_start_dependence(scores: torch.Tensor, alpha0: float = 0.1, beta0: float = 0.9,
                          first_windows: Sequence[int] = (2, 10, 29), tol: float = 1e-9, max_iter: int = 1000,
                          same: float = 1e-6) -> dict[str, Any]:
    """CAVI on each row of ``scores`` (B, T) from the hyper-prior's first window and from each of
    ``first_windows`` (each capped at T), run to its fixed point (horizon moving by less than ``tol``).

    Returns (per score vector, lists of B floats): ``cavi_start_horizons`` (per start, B values), the number of
    distinct end points (horizons more than ``same`` apart, relative) ``cavi_start_distinct``, the ELBO range over
    the starts ``cavi_start_elbo_range`` and the hyper-prior start's ELBO below the best ``cavi_start_elbo_gap``;
    and ``cavi_start_share`` (the share of score vectors with more than one end point), ``cavi_start_names``.
    """
    B, T = scores.shape
    # Python numbers from here on (a 0-d tensor for tol passed the contract, then failed a comparison deep inside)
    tol = check_real("tol", tol, minimum=0.0, strict=True)
    max_iter = check_int("max_iter", max_iter, 1)
    alpha0, beta0 = check_real("alpha0", alpha0, minimum=0.0, strict=True), check_real("beta0", beta0, minimum=0.0,
                                                                                         strict=True)
    same = check_real("same", same, minimum=0.0, strict=True)
    values = torch.zeros(B, T, 1, dtype=scores.dtype)
    starts: list[tuple[str, int | None]] = [("hyper-prior", None)]
    starts += [(f"first window {min(w, T)}", min(int(w), T)) for w in first_windows]
    horizons, elbos = [], []
    for _, first in starts:
        res = ex.expanding_attention(scores, values, alpha0, beta0, update="cavi", tol=tol, max_iter=max_iter,
                                     first_window=first)
        horizons.append(res.horizon.detach().numpy().astype(np.float64))
        elbos.append(ex.expanding_elbo(scores, res.attention, res.alpha, res.beta, alpha0, beta0)
                     .detach().numpy().astype(np.float64))
    h, e = np.stack(horizons), np.stack(elbos)                                # (starts, B)
    distinct = []
    for col in h.T:
        reps: list[float] = []
        for v in col:
            if not any(abs(v - r) <= same * max(1.0, abs(r)) for r in reps):
                reps.append(float(v))
        distinct.append(len(reps))
    return {"cavi_start_names": [n for n, _ in starts],
            "cavi_start_horizons": [[float(x) for x in row] for row in h],
            "cavi_start_distinct": distinct,
            "cavi_start_elbo_range": [float(x) for x in e.max(0) - e.min(0)],
            "cavi_start_elbo_gap": [float(x) for x in e.max(0) - e[0]],
            "cavi_start_share": float(np.mean(np.asarray(distinct) > 1))}
