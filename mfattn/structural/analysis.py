"""Measurements on trained multi-hop and expanding-attention runs (Chapter 5, Singh & Buckley 2023).

The runs come from :func:`.multihop.train_multihop` and :func:`.expanding.train_expanding` (dicts of
numpy arrays, one row per (p, seed) or seed); the stored results of the public code from
:func:`.multihop.reference_path`. Nothing here trains: these functions turn runs into the numbers the
chapter quotes and its verdicts rest on. The multi-hop measurements are in :mod:`.analysis_multihop` and the
ELBO's gradient and CAVI's residual in :mod:`.analysis_vi`; their names are importable from here as before.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import torch

from ..companion.checks import check_path, check_rule, contract
from . import expanding as ex
from .analysis_multihop import (multihop_numbers, per_seed_nmse, replay_deviations, replay_record,  # noqa: F401
                                stored_replay, stuck_seeds)
from .analysis_vi import cavi_residual, elbo_gradient, elbo_gradients  # noqa: F401

__all__ = ["replay_deviations", "stuck_seeds", "stored_replay", "prior_example", "operations",
           "window_coverage", "code_measure", "stored_code_measure", "prior_options", "inference_comparison",
           "multihop_numbers", "cavi_residual", "windowed_benchmark", "operations_as_run", "reference_loss_ratios",
           "elbo_gradient", "elbo_gradients", "per_seed_nmse", "per_unit_values", "PRIOR_VARIANTS", "CODE_SETTING",
           "expanding_runs", "replay_record", "code_measure_record"]


def _check_runs(runs: Any, dims: Sequence[int], name: str = "runs") -> None:
    """``runs`` a dict with a run at each of ``dims`` (the dims themselves checked by the caller's contract)."""
    check_rule(name, runs, "mapping")
    _check_distinct("dims", dims)
    missing = [d for d in dims if d not in runs]
    if missing:
        raise ValueError(f"{name} holds no run at d = {missing}; it has d = {sorted(runs)}")


def _check_distinct(name: str, values: Sequence) -> None:
    """Each of ``values`` once: a repeated d or p would be pooled (or its runs counted) twice."""
    seen = [float(v) for v in values]
    if len(set(seen)) != len(seen):
        raise ValueError(f"{name} must not repeat a value (it would be counted twice); got {list(values)}")


def _check_losses(name: str, loss: Any) -> np.ndarray:
    """A run's logged losses: a non-empty list of finite numbers (a mean over none, or over NaN, is no ratio)."""
    arr = np.asarray(loss, dtype=float) if isinstance(loss, (list, tuple, np.ndarray)) else None
    if arr is None or arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be a non-empty list of finite losses; got "
                         f"{loss if arr is None else f'{arr.size} values' if arr.ndim == 1 else arr.shape}"
                         f"{'' if arr is None or np.all(np.isfinite(arr)) else ' (not all finite)'}")
    return arr


def _check_reference(name: str, ref: Any, keys: str, standard: bool) -> None:
    """``ref`` the public code's stored runs (``expanding_<d>.json``): a non-empty list of dicts, each with the
    ``keys`` its reader needs under ``expanding`` (and a ``standard`` run with its ``loss`` if ``standard``), one per
    geo_p."""
    if isinstance(ref, (str, bytes, Mapping)) or not isinstance(ref, Sequence) or not ref \
            or not all(isinstance(r, Mapping) for r in ref):
        raise TypeError(f"{name} must be a non-empty list of the public code's stored runs (dicts); got "
                        f"{type(ref).__name__}")
    for i, r in enumerate(ref):
        check_rule(f"{name}[{i}]", r, "mapping:expanding|standard" if standard else "mapping:expanding")
        check_rule(f"{name}[{i}]['expanding']", r["expanding"], "mapping:" + keys)
        check_rule(f"{name}[{i}]['expanding']['geo_p']", r["expanding"]["geo_p"], "real:(0,1]")
        if standard:
            check_rule(f"{name}[{i}]['standard']", r["standard"], "mapping:loss")
    _check_distinct(f"{name}'s geo_p", [r["expanding"]["geo_p"] for r in ref])


def _rows_at(run: Mapping, p: float, where: str) -> np.ndarray:
    """The rows of ``run`` at recency bias ``p`` (every seed of it), as the callers select them; a ``p`` the run
    was not trained at selects none, and every mean over them would be NaN: refused, naming ``ps``."""
    sel = np.isclose(run["ps"], p)
    if not sel.any():
        raise ValueError(f"ps: p = {p:g} is not among {where}'s recency biases {sorted({float(q) for q in run['ps']})}")
    return sel


def _check_dim(d: int, run: Mapping, where: str, name: str = "d") -> None:
    """``d`` the dimension ``run`` was trained at (its weights ``W/expanding`` are (R, 2d + 1, d)): the measures
    divide by d, so a run of another d would give numbers for a model it is not, silently. ``name``: the
    parameter that gave ``d`` (``d``, or ``runs`` for a dict keyed by d)."""
    if "W/expanding" in run:
        shape = np.shape(run["W/expanding"])
        if shape and shape[-1] != d:
            raise ValueError(f"{name} must give the dimension {where} was trained at: its W/expanding {shape} is "
                             f"of d = {shape[-1]}; got d = {d}")


def _check_tail(tail: int, run: Mapping, where: str) -> None:
    """``tail`` logged steps at most: a longer tail would silently average every step instead."""
    steps = np.shape(run["loss/expanding"])[-1]
    if tail > steps:
        raise ValueError(f"tail must be at most the {steps} logged steps of {where}; got {tail}")


@contract(run="mapping:ps|W/expanding", d="int:1", data_generator="generator", weight_generator="generator",
          p="real:(0,1]")
def prior_example(run: dict, d: int, data_generator: torch.Generator, weight_generator: torch.Generator,
                  p: float = 0.1) -> dict[str, Any]:
    """One held-out input for the model of ``run`` trained at recency bias ``p``: the iteration history
    of :func:`.expanding.expanding_forward`, and the input (of 64 drawn) whose window grows most among
    those ending with their parent inside the window (``pick``, its true distance ``t_true``)."""
    _check_dim(d, run, "run")
    _rows_at(run, p, "run")
    i_p = int(np.argmin(np.abs(run["ps"] - p)))
    W0 = torch.tensor(run["W/expanding"][i_p])[None]
    w0 = ex.make_expanding_weights(d, weight_generator)
    X1, _, dist1 = ex.sample_expanding_batch([ex.ExpandingTask(d=d, p=p)], [w0], 64, data_generator)
    with torch.no_grad():
        _, res = ex.expanding_forward(W0, X1, 0.1, 0.9, slope="paper", return_result=True, return_history=True)
    found = (torch.clamp(res.window, max=50) > dist1[0]) & (res.iterations >= 3)
    pick = int(torch.argmax(torch.where(found, res.window, torch.zeros_like(res.window))))
    return {"result": res, "pick": pick, "t_true": int(dist1[0, pick]), "iterations": int(res.iterations[pick])}


@contract(dims="ints:1", ps="reals:(0,1]", n="int:2")
def operations_as_run(runs: dict, dims: Sequence[int], ps: Sequence[float], n: int = 50) -> dict:
    """Per (d, p): mean (r·d + k)/(n·d) over every step and seed, r the widest window any sweep scored
    (``reach``; NaN for a run stored without it). ``n`` is the runs' sequence length (a run that scored a window wider
    than ``n`` is refused), each p one the runs were trained at."""
    _check_runs(runs, dims)
    out = {}
    for d in dims:
        r = runs[d]
        _check_dim(d, r, f"runs[{d}]", "runs")
        if "reach" in r and np.size(r["reach"]) and np.max(r["reach"]) > n:   # reach <= the runs' own n
            raise ValueError(f"n must be the runs' sequence length: runs[{d}] scored windows of up to "
                             f"{np.max(r['reach']):g} tokens; got n = {n}")
        for p in ps:
            sel = _rows_at(r, p, f"runs[{d}]")
            out[d, p] = (float(ex.operations_as_run(r["reach"][sel], r["iterations"][sel], n, d).mean())
                         if "reach" in r else float("nan"))
    return out


@contract(tail_fraction="real:(0,1]")
def reference_loss_ratios(ref_exp: list, tail_fraction: float = 0.2) -> dict[float, float]:
    """The public code's stored runs (``expanding_<d>.json``): per p, expanding over standard attention's
    training MSE over the last ``tail_fraction`` of the logged losses."""
    _check_reference("ref_exp", ref_exp, "geo_p|loss", standard=True)
    out = {}
    for r in ref_exp:
        e = _check_losses(f"ref_exp[{len(out)}]['expanding']['loss']", r["expanding"]["loss"])
        s_ = _check_losses(f"ref_exp[{len(out)}]['standard']['loss']", r["standard"]["loss"])
        tail = max(1, int(len(e) * tail_fraction))
        if not s_[-tail:].mean() > 0:   # the ratio's denominator
            raise ValueError(f"ref_exp[{len(out)}]['standard']['loss'] must have a positive mean over its last "
                             f"{tail} losses (the ratio's denominator); got {s_[-tail:].mean():g}")
        out[float(r["expanding"]["geo_p"])] = float(e[-tail:].mean() / s_[-tail:].mean())
    return out


@contract(dims="ints:1", ps="reals:(0,1]")
def operations(runs: dict, dims: Sequence[int], ps: Sequence[float]) -> tuple[dict, dict]:
    """Per (d, p): mean relative operations (paper's md + k, code's m(d + k)) over every step and seed,
    and the ratio of expanding to standard attention's training MSE over the last fifth of training."""
    _check_runs(runs, dims)
    rel, loss_ratio = {}, {}
    for d in dims:
        r = runs[d]
        _check_dim(d, r, f"runs[{d}]", "runs")
        for p in ps:
            sel = _rows_at(r, p, f"runs[{d}]")                     # every seed of this p
            rel[d, p] = tuple(ex.relative_operations(r["window"][sel], r["iterations"][sel], 50, d, mode).mean()
                              for mode in ("paper", "code"))
            tail = max(1, r["loss/expanding"].shape[1] // 5)
            loss_ratio[d, p] = r["loss/expanding"][sel][:, -tail:].mean() / r["loss/standard"][sel][:, -tail:].mean()
    return rel, loss_ratio


@contract(dims="ints:1", ps="reals:(0,1]", first_window="int:1", n="int:1")
def window_coverage(runs: dict, dims: Sequence[int], ps: Sequence[float], first_window: int = 29,
                    n: int = 50) -> dict[str, Any]:
    """Over the second half of training: per (d, p) the fraction of queries whose final window (capped at
    n = 50) passes the parent, and the mean window per true distance; pooled over everything, how often
    a parent inside / beyond the first window is reached.

    ``far_lift`` tests adaptation against a window that ignores the input: per (d, p, seed) run, the share
    of far parents (t ≥ ``first_window``) that the final window reaches, minus the share that the *same*
    windows would reach if each were paired with a far parent drawn independently of it (the product of
    the run's window and far-distance distributions, P(W > T) with W ⟂ T). A window that grows for every
    input, or at random, gives a lift of 0 however many far parents it reaches. ``far_lift_runs``: the
    per-run lifts (runs with no far parent left out); ``far_lift_mean``/``_lo``: their mean and the lower
    end of its 95 % t-interval.
    """
    from ..companion.stats import t_quantile_975

    _check_runs(runs, dims)
    _check_distinct("ps", ps)
    if first_window >= n:   # no parent lies at t >= n: every far share would be a mean over none (NaN)
        raise ValueError(f"first_window must be below the sequence length n = {n} (a far parent lies at t >= "
                         f"first_window, and t < n); got {first_window}")
    covered, curves, lifts = {}, {}, []
    for d in dims:
        r = runs[d]
        half = r["window"].shape[1] // 2
        for p in ps:
            sel = _rows_at(r, p, f"runs[{d}]")                     # pool the seeds of this p
            w = np.minimum(r["window"][sel, half:].ravel(), n)
            t = r["distance/expanding"][sel, half:].ravel()
            covered[d, p] = np.mean(w > t)
            bins = np.unique(t)
            curves[d, p] = (bins, np.array([w[t == b].mean() for b in bins]))
            for i in np.flatnonzero(sel):                          # one (d, p, seed) run at a time
                wi = np.minimum(r["window"][i, half:].ravel(), n)
                ti = r["distance/expanding"][i, half:].ravel()
                far_i = ti >= first_window
                if far_i.any():
                    w_sorted = np.sort(wi)
                    # P(W > t) for each far t, W from this run's windows: independent pairing
                    chance = 1.0 - np.searchsorted(w_sorted, ti[far_i], side="right") / wi.size
                    lifts.append(float(np.mean(wi[far_i] > ti[far_i]) - chance.mean()))
    far_w = np.concatenate([np.minimum(runs[d]["window"][:, runs[d]["window"].shape[1] // 2:], n).ravel()
                            for d in dims])
    far_t = np.concatenate([runs[d]["distance/expanding"][:, runs[d]["window"].shape[1] // 2:].ravel() for d in dims])
    far, near = far_t >= first_window, far_t < first_window
    lift = np.array(lifts)
    if lift.size >= 2 and lift.std(ddof=1) > 0:
        lo = float(lift.mean() - t_quantile_975(lift.size - 1) * lift.std(ddof=1) / np.sqrt(lift.size))
    else:
        lo = float(lift.mean()) if lift.size else float("nan")
    return {"covered": covered, "curves": curves, "far_found": np.mean(far_w[far] > far_t[far]),
            "near_found": np.mean(far_w[near] > far_t[near]), "far_lift_runs": lift,
            "far_lift_mean": float(lift.mean()) if lift.size else float("nan"), "far_lift_lo": lo,
            "far_lift_n": int(lift.size)}


@contract(code_run="mapping:ps|window|iterations", ps="reals:(0,1]")
def code_measure(ref_exp: list, code_run: dict, ps: Sequence[float]) -> list[tuple[float, float, float]]:
    """(p, stored run's code measure m(d + k)/(nd), ours) for each p: the public code's stored d = 50 run
    against our run in its setting."""
    _check_reference("ref_exp", ref_exp, "geo_p|window|iterations", standard=False)
    missing = [p for p in ps if float(p) not in {float(q) for q in code_run["ps"]}]
    if missing:
        raise ValueError(f"ps {missing} are not among code_run's recency biases {sorted(set(code_run['ps']))}")
    stored = {r["expanding"]["geo_p"]: ex.relative_operations(r["expanding"]["window"],
                                                              np.array(r["expanding"]["iterations"]) + 1,
                                                              50, 50, "code").mean() for r in ref_exp}
    ours: dict[float, list] = {}
    for i, p in enumerate(code_run["ps"]):
        ours.setdefault(float(p), []).append(
            ex.relative_operations(code_run["window"][i], code_run["iterations"][i], 50, 50, "code").mean())
    return [(p, stored[min(stored, key=lambda k: abs(k - p))], float(np.mean(ours[p]))) for p in ps]


@contract(full_exp="mapping:ps|stored_code_measure|code_measure_per_seed")
def stored_code_measure(full_exp: dict) -> list[tuple[float, float, np.ndarray]]:
    """(p, stored single run, our per-seed values) from ``data/full/designs/expanding_code_d50.json``."""
    ps, stored, per_seed = full_exp["ps"], full_exp["stored_code_measure"], full_exp["code_measure_per_seed"]
    if len(ps) != len(stored):
        raise ValueError(f"full_exp['ps'] and full_exp['stored_code_measure'] must have one entry per p; got "
                         f"{len(ps)} and {len(stored)}")
    check_rule("full_exp['code_measure_per_seed']", per_seed, "mapping")
    missing = [f"{p:g}" for p in ps if f"{p:g}" not in per_seed]
    if missing:
        raise ValueError(f"full_exp['code_measure_per_seed'] holds no values for p = {missing}; it has "
                         f"{sorted(per_seed)}")
    for p, s_ in zip(ps, stored):
        check_rule(f"full_exp['stored_code_measure'] at p = {p:g}", s_, "real:>0")
        seeds = per_seed[f"{p:g}"]
        check_rule(f"full_exp['code_measure_per_seed'][{p:g}]", seeds, "mapping")
        values = list(seeds.values())
        if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) and v > 0
                                 for v in values):
            raise ValueError(f"full_exp['code_measure_per_seed'][{p:g}] must map each seed to a positive finite "
                             f"measure, at least one; got {values}")
    return [(p, s_, np.array(list(full_exp["code_measure_per_seed"][f"{p:g}"].values())))
            for p, s_ in zip(full_exp["ps"], full_exp["stored_code_measure"])]


@contract(variants="mapping", ps="reals:(0,1]", d="int:1", tail="int:1")
def prior_options(variants: dict, ps: Sequence[float], d: int, tail: int) -> tuple[str, dict[str, list[float]]]:
    """A text table of each variant's mean relative operations (paper's measure) and final training MSE
    (mean over the last ``tail`` steps) per p, and the operations per variant."""
    lines = [f"{'variant':<22}" + "".join(f"{'ops p=1/' + str(round(1 / p)):>12}" for p in ps)
             + "".join(f"{'MSE p=1/' + str(round(1 / p)):>12}" for p in ps)]
    ops = {}
    for name, r in variants.items():
        _check_dim(d, r, f"variants[{name!r}]")
        _check_tail(tail, r, f"variants[{name!r}]")
        sels = [_rows_at(r, p, f"variants[{name!r}]") for p in ps]  # every seed of each p
        ops[name] = [ex.relative_operations(r["window"][s], r["iterations"][s], 50, d, "paper").mean() for s in sels]
        mse = [r["loss/expanding"][s][:, -tail:].mean() for s in sels]
        lines.append(f"{name:<22}" + "".join(f"{o:12.2f}" for o in ops[name]) + "".join(f"{m:12.1f}" for m in mse))
    return "\n".join(lines), ops


@contract(variants="mapping", ps="reals:(0,1]", d="int:1", tail="int:1", n="int:1")
def inference_comparison(variants: dict, ps: Sequence[float], d: int, tail: int, n: int = 50) -> dict[str, dict]:
    """Per variant (name -> run of :func:`.expanding.train_expanding`) and p: the mean final window (capped
    at n), iterations per query, the paper's relative operations (md + k)/(nd), all over every training step
    and seed, and the training MSE over the last ``tail`` steps (at most the logged steps; each p one the variants
    were trained at; ``d`` the dimension they were trained at, refused otherwise). Returns {name: {key: [value per
    p]}}."""
    out = {}
    for name, r in variants.items():
        _check_dim(d, r, f"variants[{name!r}]")
        _check_tail(tail, r, f"variants[{name!r}]")
        if "distance/expanding" in r and np.size(r["distance/expanding"]) and np.max(r["distance/expanding"]) >= n:
            raise ValueError(f"n must be the runs' sequence length: variants[{name!r}] holds parents at distance up "
                             f"to {np.max(r['distance/expanding']):g} (< n); got n = {n}")
        sels = [_rows_at(r, p, f"variants[{name!r}]") for p in ps]
        out[name] = {"window": [float(np.minimum(r["window"][s], n).mean()) for s in sels],
                     "iterations": [float(r["iterations"][s].mean()) for s in sels],
                     "ops": [float(ex.relative_operations(r["window"][s], r["iterations"][s], n, d, "paper").mean())
                             for s in sels],
                     "mse": [float(r["loss/expanding"][s][:, -tail:].mean()) for s in sels]}
    return out


def _per_seed(run: dict, p: float, value) -> list[float]:
    """``value(i)`` for each (p, seed) row ``i`` of ``run`` at recency bias ``p``, in the order of its seeds."""
    return [float(value(i)) for i in np.flatnonzero(np.isclose(run["ps"], p))]


@contract(paper="mapping", ablation="mapping", exp_runs="mapping", code_runs="mapping", variants="mapping",
          coverage="mapping:far_lift_runs", vi_scores="tensor:2", ps="reals:(0,1]", tail="int:1",
          head_fraction="real:(0,1]", alpha0="real:>0", beta0="real:>0")
def per_unit_values(paper: dict, ablation: dict, exp_runs: dict, code_runs: dict, variants: dict, coverage: dict,
                    vi_scores: torch.Tensor, ps: Sequence[float], tail: int, head_fraction: float = 0.02,
                    alpha0: float = 0.1, beta0: float = 0.9) -> dict[str, list[float]]:
    """The per-unit values (per seed, per run, per score vector) behind chapter 5's means, which the verdicts'
    spreads and alternatives read (the means themselves are stored as before, from the same arrays):

    - multi-hop, per seed, on the paper's task and the ablation (``abl_``): the query's attention mass on x0 and
      x1 of every model, ``[abl_]mass_<role>_<model>_seeds``;
    - expanding attention, per (d, p) and seed, paper's setting (``exp_``) and code's (``code_``): the training MSE
      of each model over the last fifth (``tail_mse``: the loss ratios' numerator and denominator) and over the
      first ``head_fraction`` of training (``head_mse``: where a run started, to tell a run that never trained);
      the paper's relative operations and the operations as run, ``ops[_run]_<d>_<p>_seeds``;
    - the prior's variants at the first d, per p and seed: the training MSE over the last ``tail`` steps (as
      :func:`inference_comparison`) and the mean final window, ``<variant>_{mse,window}_<p>_seeds``;
    - the window's lift over windows blind to the input, per (d, p, seed) run (``far_lift_runs``);
    - the largest ELBO gradient per score vector at the end state of the paper's update, of CAVI at its fixed point
      and of CAVI stopped by the training's tolerance (0.01 on the horizon), ``*_elbo_grad_vectors``."""
    out: dict[str, list[float]] = {}
    short = {"one_layer": "one", "multihop": "multi", "two_layer": "two", "one_layer_x2": "one_x2",
             "multihop_norm": "multi_norm"}
    for prefix, result in (("", paper), ("abl_", ablation)):
        for m, k in short.items():
            if f"mass/{m}" in result:
                for role, name in ((1, "x0"), (2, "x1")):
                    out[f"{prefix}mass_{name}_{k}_seeds"] = [float(x) for x in result[f"mass/{m}"][:, role]]
    for prefix, runs in (("exp", exp_runs), ("code", code_runs)):
        for d, r in runs.items():
            _check_dim(d, r, f"{prefix}_runs[{d}]", f"{prefix}_runs")
            steps = r["loss/expanding"].shape[1]
            n_tail, n_head = max(1, steps // 5), max(1, int(steps * head_fraction))
            for p in ps:
                key = f"{d}_{round(1 / p)}"
                for m in ("expanding", "standard"):
                    loss = r[f"loss/{m}"]
                    out[f"{prefix}_tail_mse_{m}_{key}_seeds"] = _per_seed(r, p, lambda i: loss[i, -n_tail:].mean())
                    out[f"{prefix}_head_mse_{m}_{key}_seeds"] = _per_seed(r, p, lambda i: loss[i, :n_head].mean())
                if prefix == "exp":
                    out[f"ops_{key}_seeds"] = _per_seed(r, p, lambda i: ex.relative_operations(
                        r["window"][i], r["iterations"][i], 50, d, "paper").mean())
                    if "reach" in r:
                        out[f"ops_run_{key}_seeds"] = _per_seed(r, p, lambda i: ex.operations_as_run(
                            r["reach"][i], r["iterations"][i], 50, d).mean())
    names = {"paper": "plug-in, paper slope", "digamma29": "digamma, first window 29",
             "digamma": "digamma, paper slope", "cavi": "CAVI, paper slope"}
    for name, variant in names.items():
        if variant in variants:
            r = variants[variant]
            for p in ps:
                out[f"{name}_mse_{round(1 / p)}_seeds"] = _per_seed(r, p, lambda i: r["loss/expanding"][i, -tail:].mean())
                out[f"{name}_window_{round(1 / p)}_seeds"] = _per_seed(r, p, lambda i: np.minimum(r["window"][i], 50).mean())
    out["far_lift_runs"] = [float(x) for x in coverage["far_lift_runs"]]
    for name, update, tol in (("paper", "plugin", None), ("cavi", "cavi", None), ("cavi_tol01", "cavi", 0.01)):
        out[f"{name}_elbo_grad_vectors"] = [float(x) for x in elbo_gradients(vi_scores, alpha0, beta0, update, tol)]
    return out


def windowed_benchmark(path) -> tuple[str, dict[str, Any]]:
    """The stored benchmark of lazy windowed attention (``benchmarks/bench_windowed_attention.py --save``): a
    text table (n, CPU ms of full / lazy, time ratio, operation ratio) and the numbers at the longest context."""
    import json

    path = check_path("path", path)
    data = json.loads(path.read_text())
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(data, dict) or "meta" not in data or not isinstance(rows, list) or not rows \
            or not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"path {str(path)!r} must hold a benchmark of bench_windowed_attention.py --save: "
                         "{'meta': ..., 'rows': [one dict per n, at least one]}")
    need = ("n", "full_ms", "lazy_ms", "dense_ms", "ops_ratio")
    lacking = sorted({k for r in rows for k in need if k not in r})
    if lacking:
        raise ValueError(f"path {str(path)!r}: the benchmark's rows lack {lacking}")
    lines = [f"{'n':>7} {'full ms':>9} {'lazy ms':>9} {'dense ms':>9} {'time lazy/full':>15} {'ops lazy/full':>14}"
             f" {'ops as run':>11}"]
    for r in data["rows"]:
        lines.append(f"{r['n']:>7} {r['full_ms']:>9.3f} {r['lazy_ms']:>9.3f} {r['dense_ms']:>9.3f} "
                     f"{r['lazy_ms'] / r['full_ms']:>15.2f} {r['ops_ratio']:>14.3f} "
                     f"{r.get('ops_ratio_as_run', float('nan')):>11.3f}")
    first, last = data["rows"][0], data["rows"][-1]
    extra = {"rows": len(data["rows"]), "below_full": sum(r["lazy_ms"] < r["full_ms"] for r in data["rows"])}
    return "\n".join(lines), {"meta": data["meta"], "n_max": last["n"], "time_ratio_max_n": last["lazy_ms"] / last["full_ms"],
                              "ops_ratio_max_n": last["ops_ratio"], "n_min": first["n"],
                              "time_ratio_min_n": first["lazy_ms"] / first["full_ms"], "ops_ratio_min_n": first["ops_ratio"],
                              **extra}


@contract(code_run="mapping:ps|seeds|window|iterations", ps="reals:(0,1]", steps="int:1")
def code_measure_record(code_run: dict, ref_exp: list, ps: Sequence[float], steps: int) -> dict[str, Any]:
    """The content of ``data/full/designs/expanding_code_d50.json``, written by the full profile from its own run
    in the public code's setting at d = 50: the code's measure per (p, seed) beside the stored run's."""
    from ..companion.manifest import git_commit

    stored = dict((p, s_) for p, s_, _ in code_measure(ref_exp, code_run, ps))
    per_seed: dict[str, dict[str, float]] = {}
    for i, (p, seed) in enumerate(zip(code_run["ps"], code_run["seeds"])):
        per_seed.setdefault(f"{p:g}", {})[str(int(seed))] = float(
            ex.relative_operations(code_run["window"][i], code_run["iterations"][i], 50, 50, "code").mean())
    return {"description": "Expanding attention in the public code's setting (slope -t/H, plug-in update, scores "
                           "q_t.k_T, alpha0 = 0.1, beta0 = 0.9, batch 1, Adam 5e-4, weight decay 2) at d = 50, n = 50; "
                           "relative operations m(d+k)/(nd) averaged over all steps, next to the stored run.",
            "made_with": f"python -m mfattn reproduce --profile full --chapter designs ({steps} steps)",
            "git_commit": git_commit(), "ps": [float(p) for p in ps],
            "stored_code_measure": [float(stored[p]) for p in ps], "code_measure_per_seed": per_seed}


#: The settings of the prior that chapter 5 trains beside the paper's (plug-in update, paper slope), at d = 10.
PRIOR_VARIANTS = {"digamma, paper slope": {"update": "digamma"}, "plug-in, code slope": {"slope": "code"},
                  "learnable prior": {"learn_prior": True}, "CAVI, paper slope": {"update": "cavi"},
                  "digamma, first window 29": {"update": "digamma", "first_window": 29}}
#: The public code's setting: slope -t/H, plug-in update, column scores q_t·k_T.
CODE_SETTING = {"slope": "code", "update": "plugin", "score": "column"}


@contract(sizes="mapping:exp_ps|exp_seeds|exp_batch|exp_dims|exp_steps|exp_code_steps")
def expanding_runs(sizes: dict) -> tuple[dict, dict, dict]:
    """Chapter 5's expanding-attention runs for a profile's ``sizes``: the paper's setting at every d (expanding and
    standard), the prior's variants at the first d (expanding only) and the code's setting at every d (both
    models). At each d the settings train in one loop on one data stream
    (:func:`.expanding.train_expanding_variants`: each bit-identical to its own run, cached under its key); the
    ``exp_code_extra_seeds`` of the code's setting at (``exp_code_extra_d``, ``exp_code_extra_p``) train on their own
    and are appended to that d's code-setting run. Returns ({d: run}, {variant name: run}, {d: code-setting run})."""
    check_rule("sizes['exp_dims']", sizes["exp_dims"], "ints:1")
    check_rule("sizes['exp_batch']", sizes["exp_batch"], "int:1")
    check_rule("sizes['exp_steps']", sizes["exp_steps"], "int:1")
    check_rule("sizes['exp_code_steps']", sizes["exp_code_steps"], "int:1")
    common = dict(ps=sizes["exp_ps"], seeds=sizes["exp_seeds"], batch_size=sizes["exp_batch"])
    d0, same = sizes["exp_dims"][0], sizes["exp_code_steps"] == sizes["exp_steps"]
    exp_runs, variants, code_runs = {}, {}, {}
    for d in sizes["exp_dims"]:
        todo: dict[str, dict] = {"plug-in, paper slope": {}}
        if d == d0:
            todo.update({k: {**kw, "models": ("expanding",)} for k, kw in PRIOR_VARIANTS.items()})
        if same:
            todo["code setting"] = CODE_SETTING
        runs = ex.train_expanding_variants(todo, d=d, steps=sizes["exp_steps"], **common)
        exp_runs[d] = runs["plug-in, paper slope"]
        code_runs[d] = runs["code setting"] if same else ex.train_expanding(d=d, steps=sizes["exp_code_steps"],
                                                                            **CODE_SETTING, **common)
        if d == d0:
            variants = {k: runs[k] for k in ("plug-in, paper slope", *PRIOR_VARIANTS)}
    extra = sizes.get("exp_code_extra_seeds") or []
    if extra:   # more seeds of the code's setting at one (d, p), appended to its runs (each row its own replica)
        from .analysis_premises import merge_runs

        d_x, p_x = sizes["exp_code_extra_d"], sizes["exp_code_extra_p"]
        more = ex.train_expanding(d=d_x, steps=sizes["exp_code_steps"], ps=[p_x], seeds=extra,
                                  batch_size=sizes["exp_batch"], **CODE_SETTING)
        code_runs[d_x] = merge_runs(code_runs[d_x], more)
    return exp_runs, variants, code_runs
