"""Chapter 2's trained models compared, from their stored per-digit results (:mod:`.claims_deq_numbers` flattens
these numbers with the rest): every pair of variants on the same 10,000 test digits, seed by seed and pooled over the
seeds (:func:`paired_seeds`, the variant table), the initialisation study's scales against the blog's, each coupling
variant against its own front end without the layer, and the runs that did not learn the task."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from mfattn.companion import stats, store


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


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
