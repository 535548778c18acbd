"""Chapter 2's stored numbers, flattened for its rules (:mod:`.claims` declares the claims that read them).

Chapter 2 reads the full-protocol MNIST runs (``data/full/deq_mnist_progress.json``: three seeds, 20 epochs on all
60,000 digits), their variant table (``data/full/deq_variants.json``, with the test digits each run got right), the
stored CPU run of seed 0 (``data/full/deq_mnist_seed0_cpu.npz``), the initialisation study
(``data/full/deq/init_scale.json``, with its digits) and the chapter's own numbers (``data/full/deq/summary.json``);
Chapter 3 its summary (``data/full/transformer/summary.json``). Everything here reads and derives: every number is
from a stored file, nothing is trained or re-run.

Every comparison of two trained variants is paired on the same 10,000 test digits in each seed; besides the pooled
result (the primary convention, :func:`mfattn.companion.stats.pooled_over_seeds`) the per-seed differences, their
within-seed variances and the discordant digits are stored as lists (``<key>_d``, ``_v``, ``_n10``, ``_n01``), so
that every alternative statistic a referee tries (:func:`mfattn.companion.premises.over_units`) reads them.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from mfattn.companion import stats, store
from mfattn.companion.checks import check_int, check_real

from .claims_deq_seeds import seed_values

#: The public names (:mod:`.claims` re-exports them); the helpers below them (``paired_seeds``, ``binomial_se``) and
#: those of :mod:`.claims_deq_seeds` serve the chapter's claim modules only.
__all__ = ["BAL", "BLOG_ACCURACY", "ACCURACY_BAND", "THREE_SE_10K", "REMEDY", "save", "deq_numbers", "full_numbers",
           "stored_numbers", "stored_cost_exponent", "stability_prose"]

BAL = "Bal 2021"
#: The blog's MNIST test accuracy (%) and the band around it within which a model meets that claim (points):
#: three binomial standard errors of a 10,000-digit accuracy near 99.1 % (3 × 0.094 = 0.28 points), the
#: noise of the blog's single run, rounded up to the blog's one decimal.
BLOG_ACCURACY, ACCURACY_BAND = 99.1, 0.3
#: Three binomial standard errors of a 10,000-digit accuracy near 99 % (3 × 0.0995 points), in points.
THREE_SE_10K = 0.3
REMEDY = {"deq": "`python -m mfattn reproduce --profile full --chapter deq` writes data/full/deq/summary.json from the "
                 "cached MNIST runs; the runs themselves: `python -m mfattn.implicit.train --profile full --seed 0 1 2` "
                 "(progress: data/full/deq_mnist_progress.json) and `python -m mfattn.implicit.variants --profile full "
                 "--seeds 0 1 2 --interactions --train`, then `... --out data/full/deq_variants.json` (the variant table)",
          "transformer": "`python -m mfattn reproduce --profile full --chapter transformer` writes "
                         "data/full/transformer/summary.json"}


def binomial_se(accuracy: float, n: int = 10_000) -> float:
    """Binomial standard error (points) of an accuracy ``accuracy`` (%, 0 to 100) measured on ``n`` (>= 1) digits."""
    check_real("accuracy", accuracy, minimum=0.0, maximum=100.0)
    check_int("n", n, 1)
    p = accuracy / 100
    return 100 * math.sqrt(p * (1 - p) / n)


def _band_check(s):
    """The band is three binomial SEs of a 10,000-digit accuracy at 99.1 % (0.28, rounded up to the blog's one decimal),
    and the seeds spread less than one such SE: the binomial noise, not the seed spread, is a single run's noise."""
    se = binomial_se(BLOG_ACCURACY)
    per_seed = [binomial_se(a) for a in s["acc_list"]]
    ok = 3 * se <= ACCURACY_BAND < 3 * se + 0.05 and s["acc_sd"] < se
    return ok, (f"3 binomial SEs at 99.1 %: {3 * se:.3f} points (per seed {', '.join(f'{x:.3f}' for x in per_seed)} "
                f"for one SE); seed-to-seed s.d. {s['acc_sd']:.3f}, {'below' if s['acc_sd'] < se else 'not below'} one SE")


def save(root: Path, chapter: str, summary: dict[str, Any]) -> Path:
    """Write a chapter's full-profile numbers to ``data/full/<chapter>/summary.json`` (atomically): numbers, and lists
    of numbers (every seed's ``<key>_seeds``, :mod:`mfattn.implicit.seed_numbers`)."""
    from collections.abc import Mapping

    from mfattn.companion.checks import check_path

    root = check_path("root", root)
    _check_chapter(chapter)
    if not isinstance(summary, Mapping):
        raise TypeError(f"summary must be a mapping of names to numbers; got {type(summary).__name__}")
    path = root / "data" / "full" / chapter / "summary.json"
    def number(v):
        return bool(v) if isinstance(v, (bool, np.bool_)) else None if v is None else float(v)

    store.atomic_write_json(path, store.finite_or_none(  # a missing (NaN) number is stored as null
        {k: ([number(x) for x in v] if isinstance(v, (list, tuple)) else number(v)) for k, v in summary.items()}))
    return path


# --- paired comparisons over seeds ------------------------------------------------------------------------------

def paired_seeds(runs: list[dict[str, Any]], ref: dict[int, dict[str, Any]]) -> dict[str, list]:
    """Model ``ref`` (by seed) minus each run of ``runs`` on the same test digits, seed by seed, from the stored
    per-digit bits: ``seed``, ``d`` (difference of accuracies, points), ``v`` (its paired variance, points²),
    ``n10`` (digits right under ``ref`` only), ``n01`` (right under the run only). Seeds without digits that
    pair are left out (no run of that seed in ``ref``, no bits, or another count of digits). A run with bits
    (``correct``) must say how many digits they are (``test_examples``)."""
    from collections.abc import Mapping

    from .variants import unpack_correct

    if isinstance(runs, (str, bytes, Mapping)) or not hasattr(runs, "__iter__"):
        raise TypeError(f"runs must be a list of runs (dicts); got {type(runs).__name__}")
    if not isinstance(ref, Mapping):
        raise TypeError(f"ref must map each seed to its run (a dict); got {type(ref).__name__}")
    for name, group in (("runs", list(runs)), ("ref", list(ref.values()))):
        for r in group:
            if not isinstance(r, Mapping):
                raise TypeError(f"{name} must hold runs (dicts); got an entry of type {type(r).__name__}")
            if r.get("correct") and "test_examples" not in r:
                raise ValueError(f"{name}: the run of seed {r.get('seed', 0)!r} has per-digit bits ('correct') but "
                                 "no count of digits ('test_examples')")
    out: dict[str, list] = {"seed": [], "d": [], "v": [], "n10": [], "n01": []}
    for r in sorted(runs, key=lambda r: r.get("seed", 0)):
        b = ref.get(r.get("seed", 0))
        if b is None or not r.get("correct") or not b.get("correct") or r["test_examples"] != b["test_examples"]:
            continue
        n = int(r["test_examples"])
        a_ok, v_ok = unpack_correct(b["correct"], n), unpack_correct(r["correct"], n)
        d, v = stats.paired_difference(a_ok, v_ok)
        out["seed"].append(int(r.get("seed", 0)))
        out["d"].append(100 * d), out["v"].append(1e4 * v)
        out["n10"].append(int(np.sum(a_ok & ~v_ok))), out["n01"].append(int(np.sum(~a_ok & v_ok)))
    return out


def _pooled_gain(runs: list[dict[str, Any]], ref: dict[int, dict[str, Any]]) -> dict[str, Any] | None:
    """``ref`` minus the runs, pooled over the seeds (the primary convention: random effects, truncated
    Hartung-Knapp interval), in points, with the per-seed lists of :func:`paired_seeds` (``_d``, ``_v``, ``_se``,
    ``_n10``, ``_n01``); None without a seed whose digits pair."""
    per = paired_seeds(runs, ref)
    if not per["d"]:
        return None
    p = stats.pooled_over_seeds(per["d"], per["v"])
    return {"": p["effect"], "_lo": p["lo"], "_hi": p["hi"], "_tau": p["tau"], "_k": p["k"], "_d": per["d"],
            "_v": per["v"], "_se": [math.sqrt(v) for v in per["v"]], "_n10": per["n10"], "_n01": per["n01"]}


def _gain_text(gain: dict[str, Any] | None) -> str:
    return ("no stored per-digit results to pair" if gain is None else
            f"{gain['']:+.2f} points, 95 % interval {gain['_lo']:+.2f} to {gain['_hi']:+.2f}, seed-to-seed s.d. "
            f"τ = {gain['_tau']:.2f} ({gain['_k']:.0f} seeds)")


def _variant_numbers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per variant of the table (key k): accuracy over seeds (``var_k`` mean, ``_sd``, ``_median``, ``_min``, ``_max``,
    ``_seeds``, ``_accs`` in words, ``_acc_list`` per seed, ``_loss``), its forward solves' converged share (``_conv``,
    ``_conv_list``, ``_conv_min``, ``_conv_max``, ``_conv_sd``), and the pooled paired gain of the blog model over
    it with its per-seed lists (``gain_k``, ``_lo``, ``_hi``, ``_tau``, ``_k``, ``_d``, ``_v``, ``_se``, ``_n10``, ``_n01``,
    points; ``gain_k_text`` in words). The correction on m is also paired against naive mean field
    (``gain_m_over_naive...``: the learned correction's gain where f_θ acts on m, the blog's displayed update)."""
    by_key: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_key.setdefault(r["key"], []).append(r)
    for runs in by_key.values():
        runs.sort(key=lambda r: r.get("seed", 0))
    blog = {r.get("seed", 0): r for r in by_key.get("blog", [])}
    out: dict[str, Any] = {}
    for key, runs in by_key.items():
        acc = 100 * np.array([r["test_accuracy"] for r in runs])
        conv = np.array([r["forward_converged"] for r in runs], float)
        broke = [f"seed {r.get('seed', 0)}" for r in runs if r["test_accuracy"] < 0.5]
        out.update({f"var_{key}": acc.mean(), f"var_{key}_sd": acc.std(ddof=1) if len(acc) > 1 else float("nan"),
                    f"var_{key}_median": float(np.median(acc)), f"var_{key}_min": acc.min(), f"var_{key}_max": acc.max(),
                    f"var_{key}_seeds": len(acc), f"var_{key}_accs": ", ".join(f"{a:.2f} %" for a in acc),
                    f"var_{key}_acc_list": [float(a) for a in acc],
                    f"var_{key}_loss": float(np.mean([r["final_loss"] for r in runs])),
                    f"var_{key}_loss_list": [float(r["final_loss"]) for r in runs],
                    f"var_{key}_conv": float(conv.mean()), f"var_{key}_conv_list": [float(c) for c in conv],
                    f"var_{key}_conv_min": float(conv.min()), f"var_{key}_conv_max": float(conv.max()),
                    f"var_{key}_conv_sd": float(conv.std(ddof=1)) if len(conv) > 1 else float("nan"),
                    f"var_{key}_convs": ", ".join(f"{r['forward_converged']:.0%}" for r in runs),
                    f"var_{key}_broke": (f" Training did not learn the task in {', '.join(broke)} (final accuracy below 50 %; "
                                         f"the run's history says whether it learned and lost it or never learned): "
                                         f"the accuracy verdict grades the runs that learned, the reliability verdict "
                                         f"counts this one."
                                         if broke else "")})
        if key == "blog":
            continue
        gain = _pooled_gain(runs, blog)
        out.update({f"gain_{key}{k}": v for k, v in (gain or {}).items()})
        out[f"gain_{key}_text"] = _gain_text(gain)
    if "m" in by_key and "naive" in by_key:                 # the reading "f_θ acts on m": m minus naive mean field
        gain = _pooled_gain(by_key["naive"], {r.get("seed", 0): r for r in by_key["m"]})
        out.update({f"gain_m_over_naive{k}": v for k, v in (gain or {}).items()})
        out["gain_m_over_naive_text"] = _gain_text(gain)
    plain = by_key.get("plain", [])
    if plain and blog:
        out.update(plain_acc_max=100 * max(r["test_accuracy"] for r in plain),
                   plain_conv_max=max(r["forward_converged"] for r in plain),
                   blog_conv_min=min(r["forward_converged"] for r in blog.values()),
                   plain_convs=", ".join(f"{r['forward_converged']:.0%}" for r in plain))
        seed0 = next((r for r in plain if r.get("seed", 0) == 0), plain[0])
        out.update(plain_fwd=seed0["forward_iterations"], plain_bwd=seed0["backward_iterations"],
                   plain_loss=seed0["final_loss"])
    near = [se for key in by_key if key != "blog" and f"gain_{key}_se" in out
            and abs(out[f"var_{key}"] - out["var_blog"]) < 1.0 for se in out[f"gain_{key}_se"]]
    if near:                  # the paired SE of two models within a point of each other: the noise of "as good as"
        out["pair_se_near_max"], out["pair_se_near_min"] = max(near), min(near)
    return out


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


def _floor_numbers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The conv features' own floor (:mod:`.feature_floor`: the same patch embedding with a linear readout, no layer),
    per readout in the seeds' order: ``floor_<readout>_acc_list`` (%), its mean ``floor_<readout>``, the training
    losses; {} where the study is not stored."""
    out: dict[str, Any] = {}
    for readout in ("mean", "flat"):
        got = sorted((r for r in rows if r.get("readout") == readout), key=lambda r: r["seed"])
        if got:
            acc = [100 * float(r["test_accuracy"]) for r in got]
            out.update({f"floor_{readout}_acc_list": acc, f"floor_{readout}": float(np.mean(acc)),
                        f"floor_{readout}_loss_list": [float(r["final_loss"]) for r in got],
                        f"floor_{readout}_seed_list": [int(r["seed"]) for r in got]})
    return out


def _below_floor(rows: list[dict[str, Any]], floor_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each coupling variant's runs against the same seed's front end without the layer (:mod:`.feature_floor`), on the
    same test digits: ``floor_<readout>_<key>_n10_list`` (digits only the front end gets right),
    ``..._n01_list`` (only the variant) and ``..._p_list``, the one-sided exact McNemar p that the variant is below
    its front end (P[X ≥ n10] for X ~ Binomial(n10 + n01, 1/2)), in the seeds' order; {} where nothing pairs."""
    from .variants import unpack_correct

    out: dict[str, Any] = {}
    for readout in ("mean", "flat"):
        floors = {int(r["seed"]): r for r in floor_rows if r.get("readout") == readout and r.get("correct")}
        for key in ("softmax", "mixer"):
            runs = sorted((r for r in rows if r.get("key") == key and r.get("correct")), key=lambda r: r["seed"])
            got: dict[str, list] = {"n10": [], "n01": [], "p": []}
            for r in runs:
                f = floors.get(int(r["seed"]))
                if f is None or int(f["test_examples"]) != int(r["test_examples"]):
                    got = {}
                    break
                n = int(r["test_examples"])
                a, v = unpack_correct(f["correct"], n), unpack_correct(r["correct"], n)
                n10, n01 = int(np.sum(a & ~v)), int(np.sum(~a & v))
                tail = sum(math.comb(n10 + n01, i) for i in range(n10, n10 + n01 + 1)) / 2 ** (n10 + n01)
                got["n10"].append(n10), got["n01"].append(n01), got["p"].append(float(tail))
            if got and got["p"]:
                out.update({f"floor_{readout}_{key}_{k}_list": v for k, v in got.items()})
    return out


def _did_not_learn(rows: list[dict[str, Any]], folder: Path) -> dict[str, str]:
    """``var_<key>_broke`` for every variant with a seed below 50 % whose stored run (``<key>-seed<n>.npz``) holds
    its test accuracy at every evaluation: whether it never learned the task or learned it and lost it."""
    out: dict[str, list[str]] = {}
    for r in sorted(rows, key=lambda r: (r["key"], r.get("seed", 0))):
        if r["test_accuracy"] >= 0.5:
            continue
        path = folder / f"{r['key']}-seed{r.get('seed', 0)}.npz"
        if not path.is_file():
            return {}
        acc = np.asarray(store.load_npz(path).get("history.test_accuracy", []), float)
        if acc.size == 0:
            return {}
        words = ("never learned the task: its test accuracy stayed below 50 % at every one of its "
                 f"{acc.size} evaluations (at most {100 * acc.max():.1f} %)" if acc.max() < 0.5 else
                 f"learned the task (up to {100 * acc.max():.1f} % at an evaluation) and lost it")
        out.setdefault(r["key"], []).append(f"seed {r.get('seed', 0)} {words}, ending at {100 * r['test_accuracy']:.2f} %")
    return {f"var_{k}_broke": f" In the stored runs {'; '.join(v)}: the accuracy verdict grades the runs that learned, the "
                                f"reliability verdict counts this one." for k, v in out.items()}


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


# --- the initialisation study -------------------------------------------------------------------------------------

def _init_numbers(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The initialisation study (:mod:`mfattn.implicit.init_scale`, stored rows): the blog's scale (``init_x1``)
    against the larger ones: share of converged forward solves per scale (mean and per seed, ``init_conv_x<f>``,
    ``_list``) at the blog's and at the largest scale, seeds whose training broke down (final accuracy below 50 %) at a
    larger scale, and the blog scale's paired gain over each larger one, pooled with its per-seed lists
    (``init_gain_x<f>``, ``_lo``, ``_hi``, ``_d``, ``_v``, ``_n10``, ``_n01``; the largest and smallest lower bound,
    ``init_gain_lo``, ``init_gain_lo_min``, and the smallest upper bound, ``init_gain_hi_min``)."""
    if not rows:
        return {}
    by: dict[float, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(float(r["factor"]), []).append(r)
    if 1.0 not in by or len(by) < 2:
        return {}
    for runs in by.values():
        runs.sort(key=lambda r: r["seed"])
    blog = {r["seed"]: r for r in by[1.0]}
    top = max(by)
    out = {"init_conv_blog": float(np.mean([r["forward_converged"] for r in by[1.0]])),
           "init_conv_top": float(np.mean([r["forward_converged"] for r in by[top]])), "init_top_factor": top,
           "init_seeds": len(blog), "init_steps": float(rows[0]["steps"]),
           "init_broke": sum(r["test_accuracy"] < 0.5 for f, runs in by.items() if f > 1.0 for r in runs),
           "init_acc_blog": 100 * float(np.mean([r["test_accuracy"] for r in by[1.0]])),
           "init_acc_top": 100 * float(np.mean([r["test_accuracy"] for r in by[top]])),
           "init_conv_blog_min": float(min(r["forward_converged"] for r in by[1.0])),
           "init_conv_top_max": float(max(r["forward_converged"] for r in by[top]))}
    lows, highs = [], []
    for f, runs in by.items():
        out[f"init_conv_x{f:.3g}"] = float(np.mean([r["forward_converged"] for r in runs]))
        out[f"init_conv_x{f:.3g}_list"] = [float(r["forward_converged"]) for r in runs]
        out[f"init_acc_x{f:.3g}_list"] = [100 * float(r["test_accuracy"]) for r in runs]
        gain = None if f == 1.0 else _pooled_gain(runs, blog)
        if gain is not None:
            if f > 1.0:   # the claim is about larger scales; a smaller one's gain is stored beside them, not decided on
                lows.append(gain["_lo"]), highs.append(gain["_hi"])
            out.update({f"init_gain_x{f:.3g}{k}": v for k, v in gain.items()})
    out["init_gain_lo"] = max(lows) if lows else float("nan")
    out["init_gain_lo_min"] = min(lows) if lows else float("nan")
    out["init_gain_hi_min"] = min(highs) if highs else float("nan")
    return out


# --- all of it ----------------------------------------------------------------------------------------------------

def deq_numbers(root: Path | None) -> dict[str, Any]:
    """Numbers of Chapter 2's stored full-protocol results ({} when the MNIST runs, the variant table or the
    seed-0 run are not stored; the chapter's own summary adds its numbers where it is stored)."""
    _check_root(root)
    if root is None:
        return {}
    full = Path(root) / "data" / "full"
    progress = store.read_json(full / "deq_mnist_progress.json") or {}
    table = store.read_json(full / "deq_variants.json") or {}
    npz = full / "deq_mnist_seed0_cpu.npz"
    runs = [r for r in progress.get("runs", {}).values() if r and r.get("finished")]
    if not runs or not table.get("rows") or not npz.is_file():
        return {}
    acc = 100 * np.array([r["evals"]["test_accuracy"][-1] for r in runs])
    summary = store.read_json(full / "deq" / "summary.json") or {}      # this chapter's own full-profile numbers
    if "rho_train_cross" in summary and "rho_train_stays" in summary:
        from .stability import crossing_text

        summary["rho_cross_text"] = "above 1 " + crossing_text(summary["rho_train_cross"], summary["rho_train_stays"])
    if "acc_step_1" in summary and "acc_fixed" in summary:
        summary["step_gap"] = 100 * (summary["acc_fixed"] - summary["acc_step_1"])
        steps = [summary[k] for k in summary if k.startswith("acc_step_") and not k.endswith("_seeds")
                 and summary[k] is not None]     # seed 0's budgets (the per-seed lists are read below)
        summary["step_gap_best"] = 100 * (summary["acc_fixed"] - max(steps))   # the best stored budget of plain steps
    if summary.get("acc_fixed_seeds") and summary.get("acc_step_1_seeds"):           # the same, seed by seed
        budgets = [k for k in summary if k.startswith("acc_step_") and k.endswith("_seeds")]
        per = [dict(zip(budgets, vals)) for vals in zip(*(summary[k] for k in budgets))]
        summary["step_gap_seeds"] = [100 * (f - a) for f, a in zip(summary["acc_fixed_seeds"], summary["acc_step_1_seeds"])]
        summary["step_gap_best_seeds"] = [100 * (f - max(v for v in p.values() if v is not None))
                                          for f, p in zip(summary["acc_fixed_seeds"], per)]
    frames = store.load_npz(npz)
    organisation = _organisation_numbers(frames["coupling_norms"], frames["snapshot_step"])
    if summary.get("analysis_seeds"):   # a chapter run that analysed every seed: their stored runs' frames too
        organisation.update(_organisation_seeds(full / "deq" / "runs"))
        organisation.update(_late_convergence(full / "deq" / "runs", "m"))
        organisation.update(_late_convergence(full / "deq" / "runs", "plain"))
    init = store.read_json(full / "deq" / "init_scale.json") or {}
    out = {**summary, **_init_numbers(init.get("rows", [])), "seeds": len(acc), "acc_mean": acc.mean(),
            "acc_sd": acc.std(ddof=1) if len(acc) > 1 else float("nan"), "acc_min": acc.min(), "acc_max": acc.max(),
            "acc_median": float(np.median(acc)), "acc_list": [float(a) for a in acc],
            "accs": ", ".join(f"{a:.2f} %" for a in acc),
            **_variant_numbers(table["rows"]), **organisation}
    out.update(_did_not_learn(table["rows"], full / "deq" / "runs"))
    on_m = (store.read_json(full / "deq" / "correction_on_m.json") or {}).get("rows", {}).get("m", [])
    if on_m:   # deq-correction-onsager-form on the models whose f_θ acts on the means (mfattn.implicit.correction_on_m)
        cos = [float(r["reaction_cosine"]) for r in sorted(on_m, key=lambda r: r["seed"])]
        out.update(corr_m_reaction_cosine=cos[0], corr_m_reaction_cosine_seeds=cos,
                   corr_m_chance_q95_seeds=[float(r["chance_q95"]) for r in sorted(on_m, key=lambda r: r["seed"])])
    earlier = (store.read_json(full / "deq" / "earlier_runs.json") or {}).get("runs", [])
    for key in ("softmax", "mixer"):   # runs on older code, since re-run: a declared reading of the reliability claims
        out[f"earlier_{key}_acc_list"] = [100 * float(r["test_accuracy"]) for r in earlier if r.get("key") == key]
    floor_rows = (store.read_json(full / "deq" / "feature_floor.json") or {}).get("rows", [])
    out.update(_floor_numbers(floor_rows))
    out.update(_below_floor(table["rows"], floor_rows))
    public = store.read_json(full / "deq" / "public_trained.json") or {}
    if public:   # the blog model trained with the public code's solver in the loop (mfattn.implicit.public_trained)
        out.update(pub_trained_seed=public["seed"], pub_trained_acc=100 * public["test_accuracy"],
                   pub_trained_conv_last=public["book_protocol"]["converged_last_quarter"],
                   pub_trained_conv_all=public["book_protocol"]["converged_all"],
                   pub_trained_residual_final=public["book_protocol"]["residual_final"],
                   pub_trained_fwd_conv_last=public["training"]["forward_converged_last_quarter"],
                   pub_trained_bwd_full=public["training"]["backward_all_evaluations_share"])
    out.update({f"{k}_per_seed": ", ".join(f"{v:.3g}" for v in seed_values(out, k)) if k in out or f"{k}_seeds" in out
                else "not stored" for k in PER_SEED_TEXT})
    return out


#: Numbers whose seed-by-seed values the notes quote (``<key>_per_seed``: "v0, v1, v2", or seed 0's alone).
PER_SEED_TEXT = ("step_gap", "rho_train_change_corr", "res_train_change_corr", "rho_train_heldout_r2",
                 "rho_minus_jnorm_change_corr", "rho_minus_jnorm_change_se",
                 "res_train_heldout_r2", "corr_reaction_cosine", "corr_asymmetry", "epoch1_corr", "epoch1_closed",
                 "cls_row_share", "patch_row_share_max", "epoch1_corr_patch", "blog_conv_late",
                 "epoch1_corr_change", "corr_reaction_cosine_valid", "corr_sym_min_eig", "rho_train_corr",
                 "placebo_jnorm_corr", "placebo_logstep_corr", "placebo_jnorm_change_corr", "corr_chance_cosine",
                 "corr_chance_cosine_q95", "ref_anderson_conv", "ref_anderson_conv_last", "ref_anderson_residual_final",
                 "ref_anderson_first_miss", "row_share_init_spread")


def full_numbers(root: Path | None, chapter: str) -> dict[str, Any]:
    """The stored full-profile numbers of ``chapter`` ({} when absent); Chapter 2 reads its MNIST runs."""
    _check_root(root)
    _check_chapter(chapter)
    if chapter == "deq":
        return deq_numbers(root)
    path = None if root is None else Path(root) / "data" / "full" / chapter / "summary.json"
    return store.read_json(path) if path is not None and path.exists() else {}


def stored_numbers(root: Path | None, chapter: str) -> tuple[dict[str, Any], str]:
    """The numbers the rules of ``chapter`` ("deq" or "transformer") read ({} when not stored) and the commands
    that make them."""
    if chapter not in REMEDY:
        raise ValueError(f"chapter must be 'deq' or 'transformer'; got {chapter!r}")
    return full_numbers(root, chapter), REMEDY[chapter]


def _check_chapter(chapter: Any) -> None:
    """A chapter's name: a folder name under data/full (letters, digits, '_', '-'), never a path."""
    import re

    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a chapter's name (a string such as 'deq'); got {type(chapter).__name__}")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", chapter):
        raise ValueError(f"chapter must be a chapter's name (letters, digits, '_', '-'); got {chapter!r}")


def _check_root(root: Any) -> None:
    """A project folder (a path) or None (nothing stored)."""
    if root is not None and (isinstance(root, bool) or not isinstance(root, (str, os.PathLike))):
        raise TypeError(f"root must be the project folder (a path) or None; got {type(root).__name__}")


def stored_cost_exponent(root: Path | None) -> str:
    """The explicit layer's cost exponent of the stored full profile of Chapter 3, as prose (both chapters
    quote this one measurement); says so when it is not stored."""
    _check_root(root)
    s = full_numbers(root, "transformer")
    if "tap_slope" not in s:
        return "not stored yet (run the full profile of Chapter 3)"
    window = (f" over Nd = {s['tap_fit_min_nd']:.0f} to {s['tap_fit_max_nd']:.0f}" if "tap_fit_min_nd" in s
              else " over its three largest sizes")
    return f"exponent {s['tap_slope']:.2f}{window}"


def _share(x: float) -> str:
    """A fraction as a percentage that never reads 0 % or 100 % unless it is (99.8 %, not 100 %)."""
    text = f"{100 * x:.0f}%"
    return f"{math.floor(1000 * x) / 10:.1f}%" if text == "100%" and x < 1 else \
        f"{math.ceil(1000 * x) / 10:.1f}%" if text == "0%" and x > 0 else text


def stability_prose(root: Path | None) -> str:
    """The stored full-profile stability numbers of Chapter 2 (``data/full/deq/summary.json``) as prose."""
    _check_root(root)
    s = {} if root is None else store.read_json(Path(root) / "data" / "full" / "deq" / "summary.json") or {}
    if "rho_blog_median" not in s:
        return "not stored yet (data/full/deq/summary.json is written by the full profile of this chapter)"
    needed = ("stability_digits", "rho_blog_median", "rho_blog_max", "rho_blog_unstable", "rho_plain_median",
              "rho_plain_unstable", "acc_step_1", "acc_fixed")
    missing = [k for k in needed if k not in s]
    if missing:
        raise ValueError(f"root: {Path(root) / 'data' / 'full' / 'deq' / 'summary.json'} lacks {missing}, which the "
                         "stability prose quotes (a summary of another version: re-run the full profile)")
    for k in needed:
        x = s[k]
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise ValueError(f"root: the stored {k} must be a finite number; got {x!r:.60}")
    conv = (f"; Anderson reached the tolerance on {_share(s['blog_anderson_converged'])} of them with 100 evaluations"
            + (f" ({_share(s['blog_anderson_converged_40'])} within the blog's 40)" if "blog_anderson_converged_40" in s
               else "") + ", and over those "
            f"alone the median is {s['rho_blog_median_converged']:.2f}" if s.get("rho_blog_median_converged") is not None
            else "; over all of them, whether or not Anderson reached the tolerance: the stored run does not say which did")
    return (f"for seed 0 after 20 epochs, on {s['stability_digits']:.0f} test digits, the median is "
            f"{s['rho_blog_median']:.2f} (largest {s['rho_blog_max']:.2f}, {_share(s['rho_blog_unstable'])} above 1{conv}), and "
            f"for the model trained with plain iteration {s['rho_plain_median']:.2f} ({_share(s['rho_plain_unstable'])} "
            f"not below 1); one plain step from m = X classifies {100 * s['acc_step_1']:.1f}% of the test digits, "
            f"the fixed point {100 * s['acc_fixed']:.1f}%")
