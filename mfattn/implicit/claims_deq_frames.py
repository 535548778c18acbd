"""Chapter 2's stored training frames, read for its claims (:mod:`.claims_deq_numbers` flattens these numbers with the
rest): how the coupling-norm pattern of the blog model organises over training (seed 0's condensed run and, where a
chapter run analysed every seed, each stored run), a lower bound of the couplings' asymmetry from their norms, and the
forward solves' converged share late in training."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mfattn.companion import store

# --- the stored frames of seed 0 ---------------------------------------------------------------------------------


def _organisation_numbers(norms: np.ndarray, snaps: np.ndarray) -> dict[str, Any]:
    """How the stored coupling-norm pattern of seed 0 approaches its final one
    (:func:`mfattn.implicit.organisation.organisation_curves`): at the end of the first epoch (5 % of training) its
    correlation with the final pattern (``epoch1_corr``, shape) and the share of the way from initialisation to the
    final norms it has covered (``epoch1_closed``, shape and size), the same at the first kept frame (``first_*``) and
    the epoch from which both thresholds of the verdict are met (``holds_epoch``), the frame-to-frame noise of the
    curves over the last quarter of training (``late_*_sd``); the cls site's share of the final coupling weight
    against the patch sites' (with the frame-to-frame noise of their gap); and a lower bound of the coupling
    matrix's asymmetry from the norms alone (``norm_asymmetry_bound``, :func:`_norm_asymmetry`)."""
    from .organisation import organisation_curves, row_shares

    norms = np.asarray(norms, float)
    corr, closed = organisation_curves(norms)
    try:                                                    # the patch sites alone: without the cls row and column
        corr_patch, _ = organisation_curves(norms[:, 1:, 1:])
    except ValueError:                                      # a patch block that never changes: no shape to read
        corr_patch = np.full(len(norms), np.nan)
    # the shape of what training added (N_t − N_0 against N_T − N_0, off the diagonal): the initial pattern removed
    off = ~np.eye(norms.shape[1], dtype=bool)
    added = (norms - norms[0])[:, off]
    added = added - added.mean(axis=1, keepdims=True)
    scale = np.linalg.norm(added, axis=1) * np.linalg.norm(added[-1])
    corr_change = np.divide(added @ added[-1], scale, out=np.zeros(len(norms)), where=scale > 0)
    per_epoch = snaps[-1] / 20                                      # 20 epochs in the full protocol
    first = int(np.argmin(np.abs(snaps - per_epoch)))
    # other readings of the shape at one epoch: rank (Spearman) and log-norm correlations with the final pattern, and
    # the frames either side of step 1,000 (which frame is read is the statistic's own noise: half the change between
    # the neighbouring frames, the curves' local slope per frame)
    ranks = np.argsort(np.argsort(norms[:, off], axis=1), axis=1).astype(float)
    logs = np.log(np.clip(norms[:, off], 1e-300, None))
    near = [max(first - 1, 0), min(first + 1, len(snaps) - 1)]
    half = int(np.argmax(closed >= 0.5))
    rows_end, rows_init = row_shares(norms[-1]), row_shares(norms[0])
    gap = np.array([row_shares(n)[0] - row_shares(n)[1:].max() for n in norms])
    late = slice(3 * len(snaps) // 4, None)                        # the last quarter of training: the pattern settled
    both = (corr >= 0.9) & (closed >= 0.5)
    return {"epoch1_corr": corr[first], "epoch1_closed": closed[first], "epoch1_at": snaps[first] / per_epoch,
            "epoch1_corr_patch": corr_patch[first], "epoch1_corr_change": corr_change[first],
            "epoch1_frames": int(np.sum((snaps > 0) & (snaps <= per_epoch))), "snapshot_every": float(snaps[1] - snaps[0]),
            "epoch1_corr_rank": _pearson(ranks[first], ranks[-1]), "epoch1_corr_log": _pearson(logs[first], logs[-1]),
            "epoch1_corr_before": corr[near[0]], "epoch1_corr_after": corr[near[1]],
            "epoch1_corr_step": abs(corr[near[1]] - corr[near[0]]) / max(near[1] - near[0], 1),
            "epoch1_closed_step": abs(closed[near[1]] - closed[near[0]]) / max(near[1] - near[0], 1),
            "first_corr": corr[1], "first_closed": closed[1], "first_step": float(snaps[1]),
            "holds_epoch": snaps[int(np.argmax(both))] / per_epoch if both.any() else float("nan"),
            "late_corr_sd": float(np.diff(corr[late]).std(ddof=1)), "late_closed_sd": float(np.diff(closed[late]).std(ddof=1)),
            "half_closed_epoch": snaps[half] / per_epoch, "mid_corr": corr[len(corr) // 4],
            "mid_closed": closed[len(corr) // 4], "mid_epoch": snaps[len(corr) // 4] / per_epoch,
            "norm_growth": np.linalg.norm(norms[-1]) / np.linalg.norm(norms[0]),
            "cls_row_share": rows_end[0], "patch_row_share_max": rows_end[1:].max(),
            "uniform_row_share": 1 / len(rows_end), "row_share_init_spread": rows_init.max() - rows_init.min(),
            "cls_gap_late_sd": float(np.diff(gap[late]).std(ddof=1)), "norm_asymmetry_bound": _norm_asymmetry(norms[-1]),
            "norm_asymmetry_bound_init": _norm_asymmetry(norms[0])}


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation of two patterns (0 where either has no variation)."""
    x, y = x - x.mean(), y - y.mean()
    d = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / d if d > 0 else 0.0


def _organisation_seeds(folder: Path) -> dict[str, list]:
    """:func:`_organisation_numbers` of every stored blog-model run (``data/full/deq/runs``, :mod:`~.trained`), seed by
    seed as ``<key>_seeds`` lists; {} where none is stored (the condensed seed-0 run then stands alone)."""
    index = store.read_json(folder / "index.json") if (folder / "index.json").is_file() else None
    runs = sorted(((e["seed"], e["file"]) for name, e in ((index or {}).get("runs") or {}).items()
                   if name.startswith("blog-seed")), key=lambda t: t[0])
    per = []
    for _, name in runs:
        h = store.load_npz(store.inside(folder, name, "run file", nested=False))
        late = {}
        if "history.forward_converged" in h:   # the forward solves' converged share over the last quarter (5 of 20 epochs)
            conv = np.asarray(h["history.forward_converged"], float)
            late["blog_conv_late"] = float(np.nanmean(conv[3 * len(conv) // 4:]))
            late["blog_conv_last_epoch"] = float(np.nanmean(conv[19 * len(conv) // 20:]))   # the last of 20 epochs
        per.append({**_organisation_numbers(h["history.coupling_norms"], h["history.snapshot_step"]), **late})
    if not per:
        return {}
    keys = [k for k in per[0] if all(k in p for p in per)]
    return {**{f"{k}_seeds": [float(p[k]) for p in per] for k in keys}, "organisation_seeds": len(per)}


def _late_convergence(folder: Path, key: str) -> dict[str, list]:
    """``var_<key>_conv_late_seeds``: the forward solves' converged share over the last quarter of training of every
    stored run of variant ``key`` (``<key>-seed<n>.npz``, in the seeds' order); {} where none is stored."""
    index = store.read_json(folder / "index.json") if (folder / "index.json").is_file() else None
    runs = sorted(((e["seed"], e["file"]) for name, e in ((index or {}).get("runs") or {}).items()
                   if name.startswith(f"{key}-seed")), key=lambda t: t[0])
    late = []
    for _, name in runs:
        h = store.load_npz(store.inside(folder, name, "run file", nested=False))
        if "history.forward_converged" not in h:
            return {}
        conv = np.asarray(h["history.forward_converged"], float)
        late.append(float(np.nanmean(conv[3 * len(conv) // 4:])))
    return {f"var_{key}_conv_late_seeds": late} if late else {}


def _norm_asymmetry(norm: np.ndarray) -> float:
    """‖N − Nᵀ‖/‖N + Nᵀ‖ of the norm matrix N_ij = ‖J_ij‖: a lower bound of the coupling matrix's asymmetry
    ‖M − Mᵀ‖/‖M + Mᵀ‖ when J_ji = J_jiᵀ (internal symmetry), by the triangle inequality: |‖J_ij‖ − ‖J_ji‖| ≤
    ‖J_ij − J_ji‖ bounds the numerator from below, ‖J_ij + J_ji‖ ≤ ‖J_ij‖ + ‖J_ji‖ the denominator from above."""
    return float(np.linalg.norm(norm - norm.T) / np.linalg.norm(norm + norm.T))


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
