"""Chapter 3's stored numbers, flattened for its rules (:mod:`.claims_transformer` declares the claims that read them).

The full profile writes two files under ``data/full/transformer/``: ``summary.json``, seed 0's numbers (one float
each, :func:`mfattn.implicit.claims.save`), and ``per_unit.json`` (:func:`save_per_unit`), the units those numbers
are read over: the token spread of every batch element, the Onsager study's per-instance errors, each for three
independent draws of data, weights and fits (the profile's ``seed_offsets``), and the wall time and the operation
count of every size of the explicit layer's cost fit. :func:`stored_numbers` reads both and derives, for every statistic a rule or an
alternative uses, one value per draw (``<key>_seeds``); nothing here trains or times anything.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from mfattn.companion import store
from mfattn.companion.checks import check_grid, check_path, contract

from .claims_deq_numbers import REMEDY, full_numbers

__all__ = ["PER_UNIT", "NETS", "REFERENCES", "save_per_unit", "stored_numbers", "onsager_statistics", "fit_with_se"]

#: The file of the per-unit values, beside ``summary.json``.
PER_UNIT = "per_unit.json"
#: The Onsager study's nets (input -> the tag of its keys; ``m_fixed``: f(m) fitted and tested at one β at a time)
#: and its references (:func:`mfattn.implicit.onsager.amortisation_study`): the corrections that treat every site of
#: an instance alike (the best one per instance, SK-TAP's, the best single a·m per training β) and TAP's per-site
#: closed form Σ_j J_ij²(1 − m_j²) m_i, no learning.
NETS = {"g": "g", "m": "m", "m+s": "ms", "m+b2": "mb2", "m_fixed": "mfixed", "g_bal": "gbal", "m_bal": "mbal"}
REFERENCES = {"shared": "shared", "sktap": "sktap", "sitetap": "sitetap", "lin_fixed": "linfixed",
              "global_g": "globalg", "global_m": "globalm"}


def _plain(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):      # a 0-d array (a fit's R²) becomes its number
        return _plain(x.tolist())
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if x is None:                      # a number stored as null (NaN read back from a file): kept as null
        return None
    return float(x)


@contract(seed="int:0", seed_offsets="ints:0", draws="mapping", spread_by_rho="mapping",
          scaling="mapping:Nd|seconds|fit_min_nd|exponent", train_betas="reals:>=0", test_betas="reals:>=0",
          count="mapping:Nd|N|d|flops|counted|max_dev?")
def save_per_unit(root: Path, *, seed: int, seed_offsets: Sequence[int], draws: Mapping[int, Mapping[str, Any]],
                  spread_by_rho: Mapping[float, Mapping[str, Any]], scaling: Mapping[str, Any],
                  train_betas: Sequence[float], test_betas: Sequence[float],
                  count: Mapping[str, Any] | None = None) -> Path:
    """Write ``data/full/transformer/per_unit.json``: for each seed offset its draw's token spreads at the end of the
    iteration (one per batch element, with and without the source, at the chapter's ρ), the dense heads' share
    outside the blocks, the Onsager study's arrays (:func:`~mfattn.implicit.onsager.amortisation_study`) and, where
    computed, the sharpened-attention control (:func:`~mfattn.implicit.transformer.sharpness_study`); seed 0's
    token spreads at every ρ; the explicit layer's per-size wall times and, where ``count`` is given
    (:func:`mfattn.implicit.explicit_cost.cost_count` of the same sizes), its per-size operation counts (closed
    form, and executed where that was cheap: NaN, stored as null, elsewhere)."""
    root = check_path("root", root)
    if list(draws) != list(seed_offsets):
        raise ValueError(f"draws must be keyed by seed_offsets {list(seed_offsets)}; got {list(draws)}")
    content = {"seed": int(seed), "seed_offsets": [int(k) for k in seed_offsets],
               "train_betas": _plain(train_betas), "test_betas": _plain(test_betas),
               "draws": {str(k): {"spread_res": _plain(v["spread_res"]), "spread_nores": _plain(v["spread_nores"]),
                                  "off_block_dense": float(v["off_block_dense"]),
                                  **({"off_block_value": float(v["off_block_value"])} if "off_block_value" in v else {}),
                                  **({"sharp": {name: _plain(a) for name, a in v["sharp"].items()}} if "sharp" in v
                                     else {}),
                                  "onsager": {name: _plain(a) for name, a in v["onsager"].items()}}
                         for k, v in draws.items()},
               "spread_by_rho": {f"{rho:g}": {"with source": _plain(s["with source"][-1]),
                                              "without source": _plain(s["without source"][-1])}
                                 for rho, s in spread_by_rho.items()},
               "tap": {"nd": _plain(scaling["Nd"]), "seconds": _plain(scaling["seconds"]),
                       "fit_min_nd": float(scaling["fit_min_nd"]), "exponent": float(scaling["exponent"])}}
    if count is not None:
        if [float(x) for x in count["Nd"]] != [float(x) for x in scaling["Nd"]]:
            raise ValueError("count and scaling must be of the same sizes")
        content["tap"].update(N=_plain(count["N"]), d=_plain(count["d"]), flops=_plain(count["flops"]),
                              counted=_plain(count["counted"]), count_max_dev=float(count["max_dev"]))
    path = root / "data" / "full" / "transformer" / PER_UNIT
    store.atomic_write_json(path, store.finite_or_none(content))   # a diverged (NaN) error is stored as null
    return path


def _per_unit(root: Path | None) -> dict[str, Any]:
    path = None if root is None else Path(root) / "data" / "full" / "transformer" / PER_UNIT
    return store.read_object(path) if path is not None and path.exists() else {}


# --- the Onsager study, one draw ------------------------------------------------------------------------------------

@contract(study="mapping", train_betas="reals", test_betas="reals", name="str")
def onsager_statistics(study: Mapping[str, Any], train_betas: Sequence[float], test_betas: Sequence[float],
                       name: str) -> dict[str, float]:
    """The statistics of one correction (``name``: a net's input or a reference) on one draw's test set.

    ``median`` (the chapter's primary: the median over the test β inside the training range of the error pooled
    over each β's instances and sites), ``pooled`` (pooled over every in-range instance at once), ``mean`` and
    ``worst`` (mean and largest over the in-range β), ``worst_beta`` (where the largest is), ``instance`` (the
    median of the per-instance errors), ``worse`` (the share of in-range instances not better than no correction,
    error ≥ 1), ``worse_betas`` (how many in-range β have a pooled error ≥ 1), ``mean_upper`` (the mean over the
    in-range β but the lowest) and ``above`` (the median over the
    test β above the training range; NaN for a correction fitted at the training β only)."""
    # the β as Python floats (a torch tensor of them passed the contract, then failed a comparison with an array)
    train_betas, test_betas = check_grid("train_betas", train_betas).tolist(), check_grid("test_betas", test_betas).tolist()
    missing = [k for k in (f"corr_err_{name}", f"corr_diff_{name}", "test_beta", "c_norm") if k not in study]
    if missing:
        raise ValueError(f"study lacks {missing}: name {name!r} names no stored correction of this draw")
    if len(study[f"corr_err_{name}"]) != len(test_betas):
        raise ValueError(f"test_betas must give the β of each of the {len(study[f'corr_err_{name}'])} stored errors "
                         f"corr_err_{name}; got {len(test_betas)}")
    if not (len(study["test_beta"]) == len(study[f"corr_diff_{name}"]) == len(study["c_norm"])):
        raise ValueError("study's per-instance test_beta, corr_diff and c_norm must have one entry per instance")
    inside_any = [b for b in test_betas if min(train_betas) - 1e-9 <= b <= max(train_betas) + 1e-9]
    in_any = [b for b in study["test_beta"] if min(train_betas) - 1e-9 <= b <= max(train_betas) + 1e-9]
    if not inside_any or not in_any:
        raise ValueError(f"train_betas [{min(train_betas):g}, {max(train_betas):g}] holds no test β or instance of the "
                         "study (the statistics are over the training range)")
    betas, per_beta = np.asarray(test_betas, float), np.asarray(study[f"corr_err_{name}"], float)
    inside = (betas >= min(train_betas) - 1e-9) & (betas <= max(train_betas) + 1e-9)
    above = betas > max(train_betas) + 1e-9
    beta_i = np.asarray(study["test_beta"], float)
    in_i = (beta_i >= min(train_betas) - 1e-9) & (beta_i <= max(train_betas) + 1e-9)
    diff, norm = np.asarray(study[f"corr_diff_{name}"], float), np.asarray(study["c_norm"], float)
    inst = diff[in_i] / norm[in_i]
    return {"median": float(np.median(per_beta[inside])),
            "pooled": float(math.sqrt((diff[in_i] ** 2).sum() / (norm[in_i] ** 2).sum())),
            "mean": float(per_beta[inside].mean()), "worst": float(per_beta[inside].max()),
            # the mean over the training β without the lowest (a narrower range of coupling strengths: a referee's
            # reading; NaN where the range holds a single β)
            "mean_upper": float(per_beta[inside][1:].mean()) if inside.sum() > 1 else math.nan,
            "worst_beta": float(betas[inside][int(np.argmax(per_beta[inside]))]),
            "instance": float(np.median(inst)), "worse": float((inst >= 1).mean()),
            "worse_betas": float((per_beta[inside] >= 1).sum()),
            "above": float(np.median(per_beta[above])) if above.any() and np.isfinite(per_beta[above]).any()
            else math.nan}


# --- the cost fit ----------------------------------------------------------------------------------------------------

@contract(nd="reals:>0", seconds="reals:>0", fit_min_nd="real:>=0")
def fit_with_se(nd: Sequence[float], seconds: Sequence[float], fit_min_nd: float) -> dict[str, float]:
    """The least-squares slope of log seconds against log Nd over ``Nd >= fit_min_nd`` (as
    :func:`mfattn.implicit.vector_tap.cost_exponent`), its standard error from the residuals over the sizes
    (n − 2 degrees of freedom) and the number of sizes."""
    nd, sec = np.asarray(nd, float), np.asarray(seconds, float)
    fit_min_nd = float(fit_min_nd)   # a 0-d tensor or array is a number too: compared as one
    if nd.shape != sec.shape:
        raise ValueError(f"seconds must hold one time per size of nd; got {sec.size} times for {nd.size} sizes")
    fit = nd >= fit_min_nd
    x, y = np.log(nd[fit]), np.log(sec[fit])
    if x.size < 3:
        raise ValueError(f"a standard error of the slope needs three sizes or more in the window (nd >= fit_min_nd = "
                         f"{fit_min_nd:g}); got {x.size}")
    slope, icept = np.polyfit(x, y, 1)
    r = y - (slope * x + icept)
    se = math.sqrt(float(r @ r) / (x.size - 2) / float(((x - x.mean()) ** 2).sum()))
    return {"slope": float(slope), "se": se, "n": int(x.size)}


# --- everything the rules read ----------------------------------------------------------------------------------------

def _flatten(s: dict[str, Any], u: Mapping[str, Any]) -> dict[str, Any]:
    """The summary ``s`` with the per-draw statistics of ``u`` (per_unit.json); each part only where it is stored."""
    out = dict(s)
    if "draws" in u:
        out.update(_draw_numbers(u))
    if "tap" in u:
        tap = u["tap"]       # the explicit layer's cost: the slope's standard error over the sizes of the fit
        fit = fit_with_se(tap["nd"], tap["seconds"], tap["fit_min_nd"])
        out.update(tap_nd=[float(x) for x in tap["nd"]], tap_seconds=[float(x) for x in tap["seconds"]],
                   tap_slope_refit=fit["slope"], tap_slope_se=fit["se"], tap_fit_sizes=fit["n"])
        if "flops" in tap:
            out.update(_count_numbers(tap))
    return out


def _count_numbers(tap: Mapping[str, Any]) -> dict[str, Any]:
    """The operation count's exponent over the cost fit's window, the share of its lower-order terms there (all but
    2(Nd)³), and whether every executed count equals the stored closed form."""
    nd, flops = np.asarray(tap["nd"], float), np.asarray(tap["flops"], float)
    counted = np.array([math.nan if x is None else float(x) for x in tap["counted"]])
    window = nd >= float(tap["fit_min_nd"])
    done = np.isfinite(counted)
    return {"tap_flops": flops.tolist(), "tap_count_exponent": fit_with_se(nd, flops, tap["fit_min_nd"])["slope"],
            "tap_count_exponent_all": float(np.polyfit(np.log(nd), np.log(flops), 1)[0]),
            "tap_count_lower_share": float(np.max(1 - 2 * nd[window] ** 3 / flops[window])),
            "tap_count_executed": int(done.sum()),
            "tap_count_executed_max_nd": float(nd[done].max()) if done.any() else 0.0,
            "tap_count_agrees": bool(done.any() and np.array_equal(counted[done], flops[done])),
            "tap_count_max_dev": float(tap["count_max_dev"])}


def _draw_numbers(u: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    offsets = [str(k) for k in u["seed_offsets"]]
    out["seed_offsets"] = [int(k) for k in offsets]
    draws = [u["draws"][k] for k in offsets]
    train, test = u["train_betas"], u["test_betas"]
    for name, tag in {**NETS, **REFERENCES}.items():
        if not all(f"corr_err_{name}" in d["onsager"] for d in draws):
            continue
        per = [onsager_statistics(d["onsager"], train, test, name) for d in draws]
        for stat in per[0]:
            out[f"corr_{stat}_{tag}_seeds"] = [p[stat] for p in per]
        out[f"corr_in_{tag}_over_seeds"] = float(np.mean(out[f"corr_median_{tag}_seeds"]))
        out[f"corr_in_{tag}_sd"] = float(np.std(out[f"corr_median_{tag}_seeds"], ddof=1)) if len(per) > 1 else math.nan
        out[f"corr_beta_{tag}"] = np.asarray(draws[0]["onsager"][f"corr_err_{name}"], float).tolist()  # null: NaN
    out["test_betas"], out["train_betas"] = [float(b) for b in test], [float(b) for b in train]
    # the fixed-strength net against the best single a·m_i fitted at the same β (its per-β oracle), per draw and β
    if all("corr_err_m_fixed" in d["onsager"] and "corr_err_lin_fixed" in d["onsager"] for d in draws):
        out["ratio_mfixed_linfixed_seeds"] = [
            [float(a) / float(b) for a, b in zip(d["onsager"]["corr_err_m_fixed"], d["onsager"]["corr_err_lin_fixed"])
             if a is not None and b is not None and b > 0] for d in draws]
    # inside the iteration: each net's error of the magnetisations over naive mean field's, per training β of a draw
    inside = [i for i, b in enumerate(test) if min(train) - 1e-9 <= b <= max(train) + 1e-9]
    for name, tag in NETS.items():
        if all(f"m_err_{name}" in d["onsager"] and "m_err_naive" in d["onsager"] for d in draws):
            ratios = [np.asarray(d["onsager"][f"m_err_{name}"], float)[inside]
                      / np.asarray(d["onsager"]["m_err_naive"], float)[inside] for d in draws]
            out[f"merr_median_{tag}_seeds"] = [float(np.median(r)) for r in ratios]
            out[f"merr_worst_{tag}_seeds"] = [float(np.max(r)) for r in ratios]
    out["dropped_seeds"] = [[int(x) for x in d["onsager"]["dropped"]] for d in draws]
    # the rank collapse: per batch element, per draw (the chapter's ρ), and seed 0's at every ρ
    for key in ("spread_res", "spread_nores"):
        out[f"{key}_batch_seeds"] = [[float(x) for x in d[key]] for d in draws]
        out[f"{key}_seeds"] = [float(np.median(d[key])) for d in draws]
    out["spread_res_min_seeds"] = [float(np.min(d["spread_res"])) for d in draws]
    out["spread_nores_max"] = float(max(np.max(d["spread_nores"]) for d in draws))
    worst = int(np.argmin(out["spread_res_seeds"]))       # the draw that decides the rule
    out["spread_res_median_se"] = float(_median_se(draws[worst]["spread_res"]))
    out["spread_res_by_rho"] = {rho: float(np.median(v["with source"])) for rho, v in u["spread_by_rho"].items()}
    out["spread_nores_by_rho"] = {rho: float(np.median(v["without source"])) for rho, v in u["spread_by_rho"].items()}
    out["off_block_dense_seeds"] = [float(d["off_block_dense"]) for d in draws]
    if all("off_block_value" in d for d in draws):      # stored since the value-map reading (§4.2's X W_V)
        out["off_block_value_seeds"] = [float(d["off_block_value"]) for d in draws]
        out["off_block_value_max"] = max(out["off_block_value_seeds"])
    if all("sharp" in d for d in draws):                # the rank collapse against the attention's sharpness
        scales = sorted({k.split("_")[-1] for k in draws[0]["sharp"] if k.startswith("lambda2_")}, key=float)
        out["sharp_scales"] = [float(x) for x in scales]
        for x in scales:
            out[f"sharp_lambda2_{x}_seeds"] = [float(np.median(d["sharp"][f"lambda2_{x}"])) for d in draws]
            out[f"sharp_nores_{x}_seeds"] = [float(np.median(d["sharp"][f"spread_nores_{x}"])) for d in draws]
            out[f"sharp_nores_max_{x}_seeds"] = [float(np.max(d["sharp"][f"spread_nores_{x}"])) for d in draws]
            out[f"sharp_res_{x}_seeds"] = [float(np.median(d["sharp"][f"spread_res_{x}"])) for d in draws]
            if all(f"strength_fold_{x}" in d["sharp"] for d in draws):
                out[f"strength_fold_{x}_seeds"] = [float(np.asarray(d["sharp"][f"strength_fold_{x}"]))
                                                   for d in draws]
    if all("range_err_g_bal" in d["onsager"] for d in draws):   # the error against the range of coupling strengths
        out["range_low"] = [float(x) for x in draws[0]["onsager"]["range_low"]]
        out["range_gbal_draws"] = [[float(x) for x in d["onsager"]["range_err_g_bal"]] for d in draws]
    return out


def _median_se(values: Sequence[float], resamples: int = 2000) -> float:
    """The bootstrap standard error of a batch's median (a fixed generator: the same stored values give the same
    number)."""
    x = np.asarray(values, float)
    rng = np.random.default_rng(0)
    return float(np.median(x[rng.integers(0, x.size, (resamples, x.size))], axis=1).std(ddof=1))


def stored_numbers(root: Path | None, chapter: str = "transformer") -> tuple[dict[str, Any], str]:
    """The numbers Chapter 3's rules read ({} when ``summary.json`` is not stored) and the command that makes them:
    seed 0's summary, and where ``per_unit.json`` is stored, every per-draw statistic derived from it."""
    if chapter != "transformer":
        raise ValueError(f"chapter must be 'transformer'; got {chapter!r}")
    s = full_numbers(root, "transformer")
    if not s:
        return {}, REMEDY["transformer"]
    u = _per_unit(root)
    out = _flatten(s, u) if u else s
    bound = store.read_json(Path(root) / "data" / "full" / "transformer" / BOUND) if root is not None else None
    if bound and u and [d["offset"] for d in bound["draws"]] == list(u["seed_offsets"]):
        out = {**out, **_bound_numbers(bound)}
    return out, REMEDY["transformer"]


#: What any function of one site's scalar state can do in the stand-in (:mod:`mfattn.implicit.onsager_bound`).
BOUND = "onsager_bound.json"


def _bound_numbers(bound: Mapping[str, Any]) -> dict[str, Any]:
    """Per draw, the best function of g (and of m) and the best single coefficient a·g (a·m), over the whole training
    range (``bound_g_seeds``, ``bound_lin_g_seeds``, ...) and over each range from the largest β down
    (``bound_g_range_draws``: per draw, per range; ``bound_range_low``)."""
    out: dict[str, Any] = {"bound_range_low": [r["low"] for r in bound["draws"][0]["g"]]}
    if all("two_part" in d for d in bound["draws"]):   # the two-part site state (h_i, Σ_j J_ij m_j)
        for k in ("linear", "binned", "net"):
            out[f"two_{k}_seeds"] = [float(d["two_part"][k]) for d in bound["draws"]]
    if all("two_part_ranges" in d for d in bound["draws"]):   # the same on each narrower range, largest β down
        out["two_range_low"] = [float(r["low"]) for r in bound["draws"][0]["two_part_ranges"]]
        for k in ("linear", "binned", "net"):
            out[f"two_range_{k}_draws"] = [[float(r[k]) for r in d["two_part_ranges"]] for d in bound["draws"]]
    for x in ("g", "m"):
        out[f"bound_{x}_seeds"] = [d[x][-1]["binned"] for d in bound["draws"]]
        out[f"bound_lin_{x}_seeds"] = [d[x][-1]["linear"] for d in bound["draws"]]
        out[f"bound_{x}_range_draws"] = [[r["binned"] for r in d[x]] for d in bound["draws"]]
        out[f"bound_lin_{x}_range_draws"] = [[r["linear"] for r in d[x]] for d in bound["draws"]]
    return out


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
