"""The numbers chapter 5's verdicts read beyond ``data/full/designs/summary.json`` as stored: per-unit values
derived from it (per-seed ratios of the expanding runs, per-seed steps of the CAVI ladder) and from the other files
the full profile and the benchmark store (the replay's per-curve deviations, the code measure per seed, the
wall-clock rows). Nothing here computes a result: it reads stored files and rearranges them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from collections.abc import Mapping

from mfattn.companion import stats, store
from mfattn.companion.checks import check_int, check_path, contract
from mfattn.companion.verdicts import Undecidable

from .claims_rules import number

#: No public API: read by :func:`.claims_designs.stored_numbers`, called through the module.
__all__: list[str] = ["PS", "DIMS"]

PS = (2, 5, 10, 25)     # 1/p of the figure's recency biases
DIMS = (10, 50)


@contract(s="mapping", key="str")
def per_seed(s, key: str, at_least: int = 0) -> list[float]:
    """``s[key]`` as a list of per-unit numbers (KeyError where absent; :class:`Undecidable` where it is not a
    list of finite numbers, e.g. a seed stored as null, NaN or an infinity, or where it holds fewer than
    ``at_least`` of them: an empty list has no first or last value, one value no standard deviation)."""
    check_int("at_least", at_least, minimum=0)
    xs = s[key]
    if not isinstance(xs, (list, tuple)):
        raise Undecidable(f"{key} is not a list of per-unit values ({xs!r})")
    if len(xs) < at_least:
        raise Undecidable(f"{key} holds {len(xs)} per-unit value{'' if len(xs) == 1 else 's'}; the rule needs at "
                          f"least {at_least}")
    return [number({f"{key}[{i}]": x}, f"{key}[{i}]") for i, x in enumerate(xs)]


def per_array(s, key: str, at_least: int = 0) -> np.ndarray:
    """:func:`per_seed` as an array."""
    return np.array(per_seed(s, key, at_least))


def _read(path: Path) -> Any:
    return store.read_json(path) if path.is_file() else None


def replay_numbers(replay: dict | None) -> dict[str, Any]:
    """Per curve (multi-hop seeds 0-9, then one-layer seeds 0-9) of the stored replay
    (``multihop_code_replay.json``): its largest and its first relative deviation from the public code's stored
    losses, and the points per curve. Each model's ``relative_deviation`` is a table (curves × points, at least one
    point) of finite numbers; the two models' curves have the same points."""
    _check_file("replay", replay)
    if not replay or "batch" not in replay.get("variants", {}):
        return {}
    v = replay["variants"]["batch"]
    devs = []
    for m in ("multihop", "one_layer"):
        try:
            dev = np.asarray(v[m]["relative_deviation"], float)
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"replay['variants']['batch'][{m!r}] must hold 'relative_deviation', a table of curves × "
                             "points of numbers") from None
        if dev.ndim != 2 or dev.shape[1] == 0 or not np.isfinite(dev).all():
            raise ValueError(f"replay: the {m} curves' relative_deviation must be a table of curves × points (at least "
                             f"one point) of finite numbers; got shape {dev.shape}")
        devs.append(dev)
    if devs[0].shape[1] != devs[1].shape[1]:
        raise ValueError(f"replay: the multihop and one_layer curves must have the same points; got {devs[0].shape[1]} "
                         f"and {devs[1].shape[1]}")
    every = np.concatenate(devs)
    return {"replay_curve_max_dev": [float(x) for x in every.max(1)],
            "replay_curve_first_dev": [float(x) for x in every[:, 0]],
            "replay_curve_points": int(every.shape[1]),
            "replay_dev_points": [float(x) for x in every.ravel()]}


def bench_numbers(bench: dict | None) -> dict[str, Any]:
    """The stored benchmark of lazy windowed attention (``data/benchmarks/bench_windowed_attention.json``), per
    context length: n, CPU and wall-clock time of full and lazy attention (medians of its repeats). ``rows`` is a list
    of rows (dicts) with n, lazy_ms, full_ms and ops_ratio."""
    _check_file("bench", bench)
    if not bench or not bench.get("rows"):
        return {}
    rows = bench["rows"]
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, (list, tuple)) \
            or not all(isinstance(r, Mapping) for r in rows):
        raise TypeError(f"bench['rows'] must be a list of rows (dicts); got {type(rows).__name__} {rows!r:.60}")
    for i, r in enumerate(rows):
        for k in ("n", "lazy_ms", "full_ms", "ops_ratio"):
            _number_at(f"bench['rows'][{i}][{k!r}]", r.get(k))
    return {"bench_ns": [float(r["n"]) for r in rows],
            "bench_cpu_ratios": [r["lazy_ms"] / r["full_ms"] for r in rows],
            "bench_wall_ratios": [r["lazy_wall_ms"] / r["full_wall_ms"] for r in rows if "lazy_wall_ms" in r],
            "bench_lazy_ms": [float(r["lazy_ms"]) for r in rows], "bench_full_ms": [float(r["full_ms"]) for r in rows],
            "bench_ops_ratios": [float(r.get("ops_ratio_as_run", r["ops_ratio"])) for r in rows],
            "bench_repeats": float(bench.get("meta", {}).get("repeats", float("nan")))}


def code_measure_numbers(full_exp: dict | None) -> dict[str, Any]:
    """Our runs in the public code's setting at d = 50 (``expanding_code_d50.json``): the code's relative operations
    m(d + k)/(nd) per p and seed, and the public code's stored single run's."""
    _check_file("full_exp", full_exp)
    if not full_exp:
        return {}
    out: dict[str, Any] = {}
    for p, stored in zip(full_exp["ps"], full_exp["stored_code_measure"]):
        _number_at("full_exp['ps'] (each p)", p)
        _number_at("full_exp['stored_code_measure'] (each value)", stored)
        per = full_exp["code_measure_per_seed"][f"{p:g}"]
        if not isinstance(per, Mapping):
            raise TypeError(f"full_exp['code_measure_per_seed'][{p:g}] must map each seed to its value; got "
                            f"{type(per).__name__}")
        for seed, x in per.items():
            _number_at(f"full_exp['code_measure_per_seed'][{p:g}][{seed!r}]", x)
        key = round(1 / p)
        out[f"code_ops_50_{key}_seeds"] = [float(x) for x in full_exp["code_measure_per_seed"][f"{p:g}"].values()]
        out[f"ref_code_ops_50_{key}"] = float(stored)
    return out


def _check_file(name: str, value: Any) -> None:
    """A stored file's contents as read (a dict) or None (not stored)."""
    if value is not None and not isinstance(value, Mapping):
        raise TypeError(f"{name} must be the stored file's contents (a dict) or None; got {type(value).__name__}")


def _number_at(where: str, x: Any) -> None:
    """A stored value the numbers are read from: a finite real number (not text, not a bool)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{where} must be a finite number; got {x!r:.60}")


def _ratio_seeds(s: dict, num: str, den: str) -> list[float] | None:
    a, b = s.get(num), s.get(den)
    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
        return None
    if any(not isinstance(x, (int, float)) for x in a + b):
        return None
    return [x / y if y > 0 else float("nan") for x, y in zip(a, b)]


def _worse_counts(s: dict, d: int, p: int, band: float = 1.5, stuck: float = 0.5) -> dict[str, Any]:
    """In the code's setting (d, 1/p): the seeds whose standard attention trained (its last fifth's MSE below
    ``stuck`` × its first 2 %'s, the accuracy rule's reading), how many of them leave expanding attention worse than
    the accuracy band's factor ``band``, and at (50, 25) seed index 1's two final MSEs (the prose names that seed:
    it is the one the machine's rounding moved)."""
    keys = {f"{w}_{m}": s.get(f"code_{w}_mse_{m}_{d}_{p}_seeds") for w in ("head", "tail")
            for m in ("expanding", "standard")}
    if not all(isinstance(v, list) and v and all(isinstance(x, (int, float)) and x > 0 for x in v)
               for v in keys.values()) or len({len(v) for v in keys.values()}) != 1:
        return {}
    from .claims_designs_expanding import stuck_seeds   # the accuracy rule's own reading (imported here: it imports us)

    a = {k: np.array(v, float) for k, v in keys.items()}
    kept = np.ones(a["tail_standard"].size, dtype=bool)
    kept[stuck_seeds(s, "code_loss_ratio", d, p, stuck)] = False
    out = {f"code_kept_{d}_{p}": int(kept.sum()),
           f"code_worse_{d}_{p}": int(np.sum(a["tail_expanding"][kept] / a["tail_standard"][kept] > band))}
    if (d, p) == (50, 25) and a["tail_standard"].size > 1:
        out.update({"code_tail_expanding_50_25_s1": float(a["tail_expanding"][1]),
                    "code_tail_standard_50_25_s1": float(a["tail_standard"][1])})
    return out


def designs_derived(s: dict[str, Any], root: Path | None) -> dict[str, Any]:
    """The per-unit numbers derived from the summary ``s`` and the chapter's other stored files under ``root`` (an
    existing folder, the checkout; None: the summary alone)."""
    if not isinstance(s, Mapping):
        raise TypeError(f"s must be the stored summary (a mapping); got {type(s).__name__}")
    if root is not None and not check_path("root", root).is_dir():
        raise ValueError(f"root must be an existing folder (the checkout whose data/ holds the stored files); got {root}")
    out: dict[str, Any] = {}
    if root is not None:
        folder = Path(root) / "data" / "full" / "designs"
        out.update(replay_numbers(_read(folder / "multihop_code_replay.json")))
        out.update(code_measure_numbers(_read(folder / "expanding_code_d50.json")))
        out.update(bench_numbers(_read(Path(root) / "data" / "benchmarks" / "bench_windowed_attention.json")))
    for prefix in ("", "abl_"):   # the multi-hop differences the verdicts read, pooled over the seeds (for the prose)
        seeds = {m: s.get(f"{prefix}nmse_{m}_seeds") for m in ("one", "multi", "two", "one_x2", "multi_norm")}
        if all(isinstance(v, list) and len(v) >= 2 and all(isinstance(x, (int, float)) for x in v)
               for v in seeds.values()) and len({len(v) for v in seeds.values()}) == 1:
            a = {m: np.array(v, float) for m, v in seeds.items()}
            best = "one" if a["one"].mean() <= a["one_x2"].mean() else "one_x2"
            for name, d in (("x2", a["one_x2"] - a["multi"]), ("norm", a["one"] - a["multi_norm"]),
                            ("plain", a["one"] - a["multi"]), ("control", a[best] - a["two"])):
                got = stats.pooled_over_seeds(list(d), [0.0] * len(d))
                out.update({f"{prefix}ctrl_{name}_mean": float(d.mean()), f"{prefix}ctrl_{name}_lo": got["lo"],
                            f"{prefix}ctrl_{name}_hi": got["hi"], f"{prefix}ctrl_{name}_positive": int(np.sum(d > 0))})
            out[f"{prefix}nmse_seeds_n"] = len(a["one"])
            gain = a["one"] - a["multi"]   # what the controls take of multi-hop's gain, per seed and in the mean
            if np.all(gain != 0):
                out.update({f"{prefix}ctrl_share_x2_median": float(np.median((a["one"] - a["one_x2"]) / gain)),
                            f"{prefix}ctrl_share_norm_median": float(np.median((a["multi_norm"] - a["multi"]) / gain))})
            out.update({f"{prefix}ctrl_share_x2_of_mean": float((a["one"] - a["one_x2"]).mean() / gain.mean()),
                        f"{prefix}ctrl_share_norm_of_mean": float((a["multi_norm"] - a["multi"]).mean() / gain.mean())})
            stuck = int(np.argmax(a["one"]))
            best_m = float(a[best].mean())
            out.update({f"{prefix}stuck_seed": stuck, f"{prefix}stuck_one": float(a["one"][stuck]),
                        f"{prefix}stuck_multi_norm": float(a["multi_norm"][stuck]),
                        f"{prefix}gap_closed_best": (best_m - float(a["multi"].mean())) / (best_m - float(a["two"].mean()))})
            keep = np.arange(len(a["one"])) != stuck
            got = stats.pooled_over_seeds(list((a["one"] - a["multi_norm"])[keep]), [0.0] * int(keep.sum()))
            out.update({f"{prefix}ctrl_norm_nostuck_lo": got["lo"]})
    for key in ("near_rho", "near_lift"):   # the window inside its first window: mean and 95 % t-interval over runs
        runs = s.get(f"{key}_runs")
        if isinstance(runs, list) and len(runs) >= 2 and all(isinstance(x, (int, float)) for x in runs):
            got = stats.t_interval(list(runs))
            out.update({f"{key}_mean": float(np.mean(runs)), f"{key}_lo": got["lo"], f"{key}_hi": got["hi"],
                        f"{key}_n": len(runs)})
    for prefix, key in (("exp", "loss_ratio"), ("code", "code_loss_ratio")):
        for d in DIMS:
            for p in PS:
                r = _ratio_seeds(s, f"{prefix}_tail_mse_expanding_{d}_{p}_seeds",
                                 f"{prefix}_tail_mse_standard_{d}_{p}_seeds")
                if r is not None:
                    out[f"{key}_{d}_{p}_seeds"] = r
                if prefix == "code":
                    out.update(_worse_counts(s, d, p))
    for p in PS:   # the CAVI ladder per seed: the same seed's data and initial weights in every variant
        for a, b in (("paper", "digamma29"), ("digamma29", "digamma"), ("digamma", "cavi"), ("paper", "cavi")):
            r = _ratio_seeds(s, f"{b}_mse_{p}_seeds", f"{a}_mse_{p}_seeds")
            if r is not None:
                out[f"{b}_over_{a}_mse_{p}_seeds"] = r
    steps = {}
    for name, (a, b) in (("estimate", ("paper", "digamma29")), ("first window", ("digamma29", "digamma")),
                         ("accumulating vs CAVI", ("digamma", "cavi"))):
        rows = [out.get(f"{b}_over_{a}_mse_{p}_seeds") for p in PS]
        if all(r is not None and all(x > 0 for x in r) for r in rows) and len({len(r) for r in rows}) == 1:
            steps[name] = [float(np.mean([math.log(r[i]) for r in rows])) for i in range(len(rows[0]))]
    if len(steps) == 3:
        out.update({f"ladder_log_{k.split()[0]}_seeds": v for k, v in steps.items()})
    return out


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
