"""Measurements on the multi-hop runs (Chapter 5): our replay of the public code's run against its stored losses,
the stored replay's summary and record, the seeds that never train, and the held-out MSE and attention mass per
model. Importable from :mod:`.analysis` as before.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..companion.checks import check_array, check_rule, contract
from .multihop import relative_error

__all__ = ["replay_deviations", "stuck_seeds", "stored_replay", "multihop_numbers", "per_seed_nmse", "replay_record"]


def _check_seeds(ref_multi: Mapping, seeds: Sequence[int], keys: Sequence[str] = ("long", "standard")) -> None:
    """Each of ``seeds`` once, each in ``ref_multi`` with a non-empty list of finite losses per model of ``keys``."""
    missing = [s for s in seeds if str(s) not in ref_multi]
    if missing:
        raise ValueError(f"seeds {missing} are not in ref_multi; it holds seeds {sorted(ref_multi)}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat a seed (it would be counted twice); got {list(seeds)}")
    for s in seeds:
        check_rule(f"ref_multi[{str(s)!r}]", ref_multi[str(s)], "mapping:" + "|".join(keys))
        for k in keys:
            losses = ref_multi[str(s)][k]
            arr = np.asarray(losses, dtype=float) if isinstance(losses, (list, tuple, np.ndarray)) else None
            if arr is None or arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
                raise ValueError(f"ref_multi[{str(s)!r}][{k!r}] must be a non-empty list of finite losses")


def _check_var_y(result: Mapping) -> None:
    """``result['var_y']``: the held-out targets' variance per seed, positive and finite (the NMSE divides by it)."""
    var_y = np.asarray(result["var_y"], dtype=float)
    if var_y.size == 0 or not (np.all(np.isfinite(var_y)) and np.all(var_y > 0)):
        raise ValueError(f"result['var_y'] must be positive finite variances (the NMSE divides by them); got "
                         f"{var_y.tolist() if var_y.size <= 8 else var_y.shape}")


@contract(repro="mapping:record_steps|loss/multihop|loss/one_layer", ref_multi="mapping", seeds="ints:0")
def replay_deviations(repro: dict, ref_multi: dict, seeds: Sequence[int]) -> dict[str, np.ndarray]:
    """Relative deviation (seeds, logged steps) of our replay from the public code's stored losses."""
    _check_seeds(ref_multi, seeds)
    logged = repro["record_steps"]
    out = {}
    for m, key in (("multihop", "long"), ("one_layer", "standard")):
        if np.shape(repro[f"loss/{m}"]) != (len(seeds), len(logged)):
            raise ValueError(f"repro['loss/{m}'] must hold one row per seed of seeds ({len(seeds)}) and one loss per "
                             f"logged step ({len(logged)}); got shape {np.shape(repro[f'loss/{m}'])}")
        short = [s for s in seeds if len(ref_multi[str(s)][key]) < len(logged)]
        if short:
            raise ValueError(f"ref_multi holds fewer than the {len(logged)} logged losses of repro for seeds {short} "
                             f"({key!r})")
        stored = np.array([ref_multi[str(s)][key][:len(logged)] for s in seeds])
        out[m] = relative_error(repro[f"loss/{m}"], stored)
    return out


@contract(ref_multi="mapping", key="choice:long|standard", seeds="ints:0")
def stuck_seeds(ref_multi: dict, key: str, seeds: Sequence[int] = range(10)) -> list[int]:
    """Seeds of the stored run whose final loss of model ``key`` is above half of its initial loss."""
    _check_seeds(ref_multi, seeds, (key,))
    return [s for s in seeds if ref_multi[str(s)][key][-1] > 0.5 * ref_multi[str(s)][key][0]]


@contract(replay="mapping:variants")
def stored_replay(replay: dict) -> dict[str, dict[str, Any]]:
    """Per shuffle variant of the stored full replay (``data/full/designs/multihop_code_replay.json``):
    how many logged losses, the fractions within 1e-5 and exact, per model, and the multi-hop seeds
    that drift."""
    check_rule("replay['variants']", replay["variants"], "mapping")
    if not replay["variants"]:
        raise ValueError("replay['variants'] must hold at least one shuffle variant; got none")
    out = {}
    for variant, v in replay["variants"].items():
        where = f"replay['variants'][{variant!r}]"
        check_rule(where, v, "mapping:multihop|one_layer")
        for m in ("multihop", "one_layer"):
            check_rule(f"{where}[{m!r}]", v[m], "mapping:relative_deviation")
            dev = check_array(f"{where}[{m!r}]['relative_deviation']", v[m]["relative_deviation"], ndim=2,
                              allow_int=True)
            if dev.size == 0:
                raise ValueError(f"{where}[{m!r}]['relative_deviation'] must hold at least one logged loss; got "
                                 f"shape {dev.shape}")
            if np.min(dev) < 0:   # |a - b| / |b|
                raise ValueError(f"{where}[{m!r}]['relative_deviation'] must hold relative deviations >= 0; got "
                                 f"{np.min(dev):g}")
        devs = {m: np.array(v[m]["relative_deviation"]) for m in ("multihop", "one_layer")}
        every = np.concatenate([d.ravel() for d in devs.values()])
        out[variant] = {"points": every.size, "within_fraction": float(np.mean(every < 1e-5)),
                        "within": f"{np.mean(every < 1e-5):.0%}",
                        "exact": f"{np.mean(every == 0):.0%}",
                        "one-within": f"{np.mean(devs['one_layer'] < 1e-5):.0%}",
                        "one-max": f"{devs['one_layer'].max():.0e}",
                        "multi-within": f"{np.mean(devs['multihop'] < 1e-5):.0%}",
                        "multi-off-seeds": ", ".join(str(s) for s in range(len(devs["multihop"]))
                                                   if devs["multihop"][s].max() >= 1e-5),
                        "multi-max": f"{devs['multihop'].max():.0e}"}
    return out


@contract(result="mapping:var_y|test_mse/one_layer|test_mse/multihop|test_mse/two_layer|mass/one_layer|mass/multihop"
                 "|mass/two_layer")
def multihop_numbers(result: dict) -> dict[str, float]:
    """Held-out MSE / Var(y) per model (mean over seeds), the share of the one-to-two-layer gap that multi-hop
    closes, and the mean attention mass on x0 and x1 per model, from one run of :func:`.multihop.train_multihop`."""
    _check_var_y(result)
    nmse = {m: float(np.mean(result[f"test_mse/{m}"] / result["var_y"])) for m in ("one_layer", "multihop", "two_layer")}
    if not nmse["one_layer"] != nmse["two_layer"]:   # the gap closed is a share of their difference
        raise ValueError(f"result: the one-layer and two-layer models' NMSE must differ (gap_closed is a share of "
                         f"their gap); got {nmse['one_layer']:g} and {nmse['two_layer']:g}")
    out = {"nmse_one": nmse["one_layer"], "nmse_multi": nmse["multihop"], "nmse_two": nmse["two_layer"],
           "gap_closed": (nmse["one_layer"] - nmse["multihop"]) / (nmse["one_layer"] - nmse["two_layer"])}
    for m, short in (("one_layer", "one"), ("multihop", "multi"), ("two_layer", "two")):
        for role, name in ((1, "x0"), (2, "x1")):
            out[f"mass_{name}_{short}"] = float(result[f"mass/{m}"][:, role].mean())
    return out


@contract(result="mapping:var_y", prefix="str")
def per_seed_nmse(result: dict, prefix: str = "") -> dict[str, list[float]]:
    """Held-out MSE / Var(y) per seed of every model in ``result`` (the pooled tests' input), keyed
    ``<prefix>nmse_<short>_seeds`` (one, multi, two, one_x2, multi_norm)."""
    short = {"one_layer": "one", "multihop": "multi", "two_layer": "two", "one_layer_x2": "one_x2",
             "multihop_norm": "multi_norm"}
    _check_var_y(result)
    out = {}
    for m, k in short.items():
        if f"test_mse/{m}" in result:
            v = result[f"test_mse/{m}"] / result["var_y"]
            out[f"{prefix}nmse_{k}_seeds"] = [float(x) for x in v]
            out[f"{prefix}nmse_{k}"] = float(np.mean(v))
    return out


@contract(steps="int:1")
def replay_record(repro: dict, ref_multi: dict, seeds: Sequence[int], steps: int) -> dict[str, Any]:
    """The content of ``data/full/designs/multihop_code_replay.json``, written by the full profile from its own
    replay (shuffle per batch, the code's): losses at the logged steps and their deviation from the stored run."""
    from ..companion.manifest import git_commit

    dev = replay_deviations(repro, ref_multi, seeds)
    variant = {m: {"loss": repro[f"loss/{m}"].tolist(), "relative_deviation": dev[m].tolist()}
               for m in ("multihop", "one_layer")}
    return {"description": "Replay of the public code's multi-hop run (run_multihop.py) in its RNG order with "
                           "mfattn.structural.multihop.train_multihop(protocol='code'); losses at the code's logged "
                           "steps (every 1000), and their relative deviation from multiple_training.json.",
            "made_with": f"python -m mfattn reproduce --profile full --chapter designs (train_multihop(('multihop', "
                         f"'one_layer'), {tuple(seeds)}, task=MultihopTask(mode='code'), steps={steps}, "
                         "protocol='code', record_every=1000))",
            "git_commit": git_commit(), "variants": {"batch": variant}}
