"""Chapter 1's claims on the mean-field theories Deep Implicit Attention builds on, each with the rule that
decides it from the full profile: accuracy at high temperature in :mod:`.claims_ising_accuracy`, stability, Plefka's
line and the Gaussian vector-spin identity in :mod:`.claims_ising_line`; this module stores and flattens the numbers.

The full-profile run of Chapter 1 stores its numbers in ``data/full/ising/summary.json``
(:func:`mfattn.meanfield.accuracy.summarise` makes them, :func:`save` writes them); :data:`DECLARED` declares each
claim with its rule (:class:`mfattn.companion.verdicts.Claim`) and :func:`record` decides them from that file.
A quick run therefore shows the verdicts of the paper-scale result, never its own short-run numbers.
Where the file is missing, every claim is "not tested" with the reason.
"""

from __future__ import annotations

import itertools
import math
import numbers
from pathlib import Path
from typing import Any

from ..companion import store, verdicts
from ..companion.checks import contract
from .claims_ising_accuracy import ACCURACY_CLAIMS
from .claims_ising_families import FAMILY_CLAIMS
from .claims_ising_line import LINE_CLAIMS

__all__ = ["SUMMARY", "KEYS", "save", "full_numbers", "stored_numbers", "glue_full", "failure_text", "CLAIMS",
           "DECLARED", "record"]

SUMMARY = Path("data", "full", "ising", "summary.json")


def _check_names(name: str, value: Any, depth: int = 0) -> None:
    """Every key of the mapping ``value`` (and of the mappings nested in it, lists included) is a string: a TypeError
    naming where one is not."""
    from collections.abc import Mapping

    if depth > 16:   # finite_or_none refuses what nests deeper than JSON is meant to
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{name} must have string names (JSON keys); got the key {key!r} "
                                f"({type(key).__name__})"[:200])
            _check_names(f"{name}[{key!r}]", item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_names(f"{name}[{i}]", item, depth + 1)


def save(root: Path, summary: dict[str, Any]) -> Path:
    """Write the summary atomically to ``root / SUMMARY``. Its names (the keys of ``summary`` and of every mapping in
    it) must be strings, as JSON stores them (an int key would come back as text: a TypeError naming it); its numbers
    are stored as :func:`mfattn.companion.store.finite_or_none` writes them: NaN and infinities as null, a numpy array
    or torch tensor as its numbers (a 0-d tensor as one number)."""
    from collections.abc import Mapping

    from ..companion.checks import check_path

    if not isinstance(summary, Mapping):
        raise TypeError(f"summary must be a mapping of names to numbers; got {type(summary).__name__}")
    _check_names("summary", summary)
    path = check_path("root", root) / SUMMARY
    store.atomic_write_json(path, store.finite_or_none(summary))  # a missing (NaN) number is stored as null
    return path


#: The top-level numbers every stored summary holds (:func:`mfattn.meanfield.accuracy.summarise` writes them).
_REQUIRED = ("n", "instances", "beta", "at_beta", "vector_max_dev", "damping_betas", "dampings", "methods")


def full_numbers(root: Path | None) -> dict[str, Any]:
    """The stored full-profile summary, or {} when there is none. A stored file that is not a JSON object is refused,
    naming the file (a :class:`~mfattn.companion.store.RefusedFileError`), never read as "no summary"; so is ``root``
    that is a file, not a folder (a ValueError naming it)."""
    if root is not None:
        from ..companion.checks import check_path

        root = check_path("root", root)
        if root.exists() and not root.is_dir():
            raise ValueError(f"root must be the project's folder (it holds {SUMMARY}); got the file {root}")
    path = None if root is None else root / SUMMARY
    if path is None or not path.exists():
        return {}
    s = store.read_json(path)
    if not isinstance(s, dict):
        raise store.RefusedFileError(path, "chapter 1's summary (a JSON object written by mfattn.meanfield.claims.save)",
                                     f"it holds a JSON {type(s).__name__}")
    return s


def _check_summary(s: dict[str, Any]) -> None:
    """A stored summary holds the numbers every summary has (:data:`_REQUIRED`), each method's entry a mapping: a
    ValueError naming the file and what it lacks otherwise (not a summary :func:`save` wrote)."""
    missing = [key for key in _REQUIRED if key not in s]
    if missing or not isinstance(s["methods"], dict) or not all(isinstance(e, dict) for e in s["methods"].values()):
        raise ValueError(f"the stored summary {SUMMARY} " + (f"lacks {missing}" if missing else "has a 'methods' that is "
                         "not a mapping of method -> numbers") + ": it was not written by mfattn.meanfield.claims.save "
                         "(re-run the full profile of chapter 1)")


def _beta(b: float | None) -> str:
    return "none on the grid" if b is None else f"{b:.2f}"


def _check_first(m: dict[str, Any], key: str) -> None:
    """``m[key]`` (present) as a summary stores it: ``first_<mode>`` a β (a finite number) or None,
    ``first_<mode>_instances`` a count; refused naming the key otherwise (TypeError: text; ValueError: NaN, inf)."""
    value = m[key]
    if key.endswith("_instances"):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TypeError(f"m[{key!r}] must be a count of instances (an integer >= 0); got {value!r}"[:200])
        return
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise TypeError(f"m[{key!r}] must be a β (a number) or None (no failure on the grid); got {value!r}"[:200])
    if value is not None and not math.isfinite(value):
        raise ValueError(f"m[{key!r}] must be a finite β or None (no failure on the grid); got {value!r}")


@contract(m="mapping:first_any", instances="int:1")
def failure_text(m: dict[str, Any], instances: int) -> str:
    """Where a method first failed, on how many of ``instances`` instances and how: from a summary's entry
    ``summary["methods"][name]`` (:func:`mfattn.meanfield.accuracy.summarise`), in words the prose quotes. Each
    ``first_<mode>`` it reads is a β or None and each ``first_<mode>_instances`` a count (else a TypeError or
    ValueError naming it) no larger than ``instances`` (else a ValueError naming
    ``instances``); a key it reads that ``m`` lacks is a KeyError naming it (a summary written by older code,
    which :func:`glue_full` skips)."""
    _check_first(m, "first_any")
    for key in ("first_any_instances", *(f"first_{k}_instances" for k in ("relaxing", "stalled", "unstable"))):
        if key in m and isinstance(m[key], int) and not isinstance(m[key], bool) and m[key] > instances:
            raise ValueError(f"instances ({instances}) must be at least m[{key!r}] ({m[key]}): more instances cannot "
                             "fail than were solved")
    if m["first_any"] is None:
        return "never fails on the grid"
    for key in ("first_any_instances", *(f"first_{k}{end}" for k in ("relaxing", "stalled", "unstable")
                                         for end in ("", "_instances"))):
        if key in m:
            _check_first(m, key)
    what = {"relaxing": "still relaxing when its budget ran out", "stalled": "stalled", "unstable": "unstable"}
    at = [f"{m[f'first_{k}_instances']} {v}" for k, v in what.items() if m[f"first_{k}"] == m["first_any"]]
    text = (f"first fails at β ≈ {m['first_any']:.2f}, on {m['first_any_instances']} of {instances} instances "
            f"({', '.join(at)})")
    if m["first_stalled"] != m["first_any"]:
        text += (f"; its iteration first stalls at β ≈ {m['first_stalled']:.2f} ({m['first_stalled_instances']} "
                 "instances)" if m["first_stalled"] is not None else "; its iteration never stalls on the grid")
    return text


def _largest(x: list[float | None]) -> str:
    x = [v for v in x if v is not None]
    return f"{max(x):.2f}" if x else "none converged"


#: What the prose quotes of each method, ``full-<name>-<method>``, from its entry of the stored summary.
_PER_METHOD = {
    "rmse": lambda m, s: f"{m['rmse_m']:.1e}", "rmse-c": lambda m, s: f"{m['rmse_c']:.1e}",
    "first-fail": lambda m, s: _beta(m["first_any"]), "failure": lambda m, s: failure_text(m, s["instances"]),
    "points-relaxing": lambda m, s: str(m["points_relaxing"]), "points-stalled": lambda m, s: str(m["points_stalled"]),
    "stable-weak": lambda m, s: f"{m['stable_fraction_by_damping'][0]:.0%}",
    "stable-strong": lambda m, s: f"{m['stable_fraction_by_damping'][-1]:.0%}",
    "at-beta-own": lambda m, s: _beta(m["at_beta"]), "at-beta-own-strong": lambda m, s: _beta(m["at_beta_by_damping"][-1]),
    "at-max-own": lambda m, s: _largest(m["at_by_beta"]), "at-max-strong": lambda m, s: _largest(m["at_by_beta_strong"]),
    "stable-beyond-own": lambda m, s: ("no β beyond" if m["stable_beyond_own_at_by_damping"][-1] is None
                                       else f"{m['stable_beyond_own_at_by_damping'][-1]:.0%}"),
    "relaxing-strong": lambda m, s: str(m["relaxing_points_by_damping"][-1]),
    "stalled-strong": lambda m, s: str(m["stalled_points_by_damping"][-1]),
}


def glue_full(run, root: Path | None) -> None:
    """Glue the stored paper-scale numbers the prose quotes as ``full-<name>``: ``"(not stored)"`` where the
    summary is absent or was written before the number was (re-running the full profile stores it)."""
    verdicts.check_run(run, "number")
    s = full_numbers(root)
    texts = {}
    if s:
        _check_summary(s)
        texts.update({"n": str(s["n"]), "instances": str(s["instances"]), "at-beta": _beta(s["at_beta"]),
                      "vector-max-dev": f"{s['vector_max_dev']:.0e}"})
        for (what, f), (k, m) in itertools.product(_PER_METHOD.items(), s["methods"].items()):
            try:
                texts[f"{what}-{k}"] = f(m, s)
            except KeyError:  # a summary written by older code
                pass
        flat = _numbers(s)
        if "atap_at_strong_inst" in flat and "naive_strong_inst" in flat:   # each instance's own line (claims_ising_plefka)
            from .claims_ising_plefka import instance_crossings
            for key, name in (("tap", "tap"), ("atap", "adaptive_tap")):
                got = instance_crossings(flat, key)
                texts[f"instances-cross-{name}"] = f"{got['cross']} of {s['instances']}"
                texts[f"instances-kept-{name}"] = f"{got['kept']} of {got['kept'] + got['lost']}"
    names = ["n", "instances", "at-beta", "vector-max-dev"] + [f"instances-{w}-{k}" for w in ("cross", "kept")
                                                               for k in ("tap", "adaptive_tap")] + [
        f"{what}-{k}" for k in ("naive", "tap", "adaptive_tap", "tap_site") for what in _PER_METHOD]
    for name in names:
        run.number(f"full-{name}", texts.get(name, "(not stored)"))


#: The methods of the stored summary, by the short key the rules use.
KEYS = (("naive", "naive"), ("tap", "tap"), ("atap", "adaptive_tap"), ("tsite", "tap_site"))


def _numbers(s: dict[str, Any]) -> dict[str, Any]:
    """The stored summary flattened into the names the rules and notes use (a number a summary written by older code
    lacks is left out: the rules that need it say "not tested")."""
    _check_summary(s)
    m = s["methods"]
    out = {"beta": s["beta"], "n": s["n"], "instances": s["instances"], "vec": s["vector_max_dev"],
           "at_beta": s["at_beta"], "at_text": _beta(s["at_beta"])}
    for key, name in KEYS:
        if name not in m:
            continue
        e = m[name]
        out.update({f"{key}_m": e["rmse_m"], f"{key}_c": e["rmse_c"],
                    f"{key}_fail": "none" if e["first_any"] is None else f"{e['first_any']:.2f}",
                    f"{key}_s0": e["stable_fraction_by_damping"][0], f"{key}_s1": e["stable_fraction_by_damping"][-1],
                    f"{key}_unstable": e["points_unstable"], f"{key}_not_converged": e["points_not_converged"],
                    f"{key}_stable_d": e["stable_fraction_by_damping"], f"{key}_conv_d": e["converged_fraction_by_damping"]})
        if "rmse_m_quartiles" in e:
            q = e["rmse_m_quartiles"]
            out.update({f"{key}_m_iqr": f"{q[0]:.1e} to {q[2]:.1e}", f"{key}_m_q": q})
        if "rmse_m_by_beta" in e:
            out[f"{key}_by_beta"] = e["rmse_m_by_beta"]
        if "rmse_c_by_beta" in e:       # stored since the ninth referee round
            out[f"{key}_c_by_beta"] = e["rmse_c_by_beta"]
        if "at_beta_by_damping" in e:  # written since the method's own Plefka parameter is stored
            out.update({f"{key}_own_at": e["at_beta_by_damping"][-1], f"{key}_ok_by_beta": e["ok_by_beta"],
                        f"{key}_beyond_own": e["stable_beyond_own_at_by_damping"][-1],
                        f"{key}_beyond_own_d": e["stable_beyond_own_at_by_damping"],
                        f"{key}_beyond_own_d2": e["stable_beyond_own_at_by_damping"][-2],
                        f"{key}_beyond_exact": e["stable_beyond_at_by_damping"][-1],
                        f"{key}_at_strong": e["at_by_beta_strong"], f"{key}_failure": failure_text(e, s["instances"])})
        if "rmse_m_per_instance" in e:  # written since the per-instance errors are stored
            out.update({f"{key}_m_inst": e["rmse_m_per_instance"], f"{key}_c_inst": e["rmse_c_per_instance"],
                        f"{key}_c_q": e["rmse_c_quartiles"], f"{key}_strong_inst": e["strong_rmse_m_per_instance"],
                        f"{key}_strong_by_beta": e["strong_rmse_m_by_beta"], f"{key}_strong_ok": e["strong_ok_by_beta"],
                        f"{key}_at_strong_inst": e["at_strong_per_instance"]})
    if "betas" in s:
        out["betas"] = s["betas"]
    if "rms_c_exact" in s:
        out.update(rms_c_exact=s["rms_c_exact"], exact_c_inst=s["rms_c_exact_per_instance"])
    if "vector_max_dev_tight" in s:
        out.update(vec_tight=s["vector_max_dev_tight"], vec_bound=s["vector_bound"])
    if "families" in s:   # the control on couplings not drawn from SK (.claims_ising_families)
        f = s["families"]
        out.update(fam_beta=f["beta"], fam_n=f["n"], fam_instances=f["instances"])
        for family, per in f["families"].items():
            out.update({f"fam_{family}_{key}_m_inst": per[name]["rmse_m"] for key, name in KEYS if name in per})
            if "second_moment" in per:   # stored since the SK-relative readings match each family's strength
                out[f"fam_{family}_moment"] = per["second_moment"]
        for family, per in f.get("sk_matched", {}).items():
            out[f"fam_{family}_sk_beta"] = per["beta"]
            out.update({f"fam_{family}_sk_{key}_m_inst": per[name]["rmse_m"] for key, name in KEYS if name in per})
    if "finite_size" in s:   # ising-at-accuracy at other numbers of spins (.finite_size, .claims_ising_sizes)
        out["size_scan"] = s["finite_size"]
    if "baselines" in s:   # couplings-free estimates, per sweep β and instance (ising-at-accuracy's readings)
        out["zero_strong_inst"] = s["baselines"]["zero_strong_per_instance"]
        out["field_strong_inst"] = s["baselines"]["field_strong_per_instance"]
    if "stress" in s:   # ising-breakdown where its antecedent is met (.stress)
        out["stress"] = s["stress"]
    out.update(b0=s["damping_betas"][0], b1=s["damping_betas"][-1], a0=s["dampings"][0], a1=s["dampings"][-1],
               damping_betas=s["damping_betas"])
    return out


#: The fields' width study (:mod:`mfattn.meanfield.field_width`, ``python -m mfattn.meanfield.field_width``): the
#: chapter's instances at β = 0.5 with the fields scaled to other widths, read by the rules as a declared alternative.
FIELD_WIDTH = Path("data", "full", "ising", "field_width.json")


def _mean_known(x: list[float | None]) -> float | None:
    known_values = [v for v in x if v is not None]
    return float(sum(known_values) / len(known_values)) if known_values else None


def _width_numbers(study: dict[str, Any], s: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The fields' width study flattened as the rules read the summary, per width (``"0.6"`` -> ``{"tap_m",
    "tap_m_inst", ..., "rms_c_exact", "exact_c_inst", "beta", "width", "mean_abs_m"}``: each mean over the instances
    a theory solved, as :func:`mfattn.meanfield.accuracy.summarise` takes it), or {} where the study is not of the
    summary's instances (its n, number of instances and β must match)."""
    if not study or (study.get("n"), study.get("instances"), study.get("beta")) != (s["n"], s["instances"], s["beta"]):
        return {}
    out = {}
    for row in study["widths"]:
        flat: dict[str, Any] = {"beta": study["beta"], "width": row["width"], "mean_abs_m": row["mean_abs_m"],
                                "exact_c_inst": row["exact_c_inst"], "rms_c_exact": _mean_known(row["exact_c_inst"])}
        for key, _ in KEYS:
            for which in ("m", "c"):
                flat[f"{key}_{which}_inst"] = row[f"{key}_{which}_inst"]
                flat[f"{key}_{which}"] = _mean_known(row[f"{key}_{which}_inst"])
        out[f"{row['width']:g}"] = flat
    return out


def stored_numbers(root: Path | None, chapter: str = "ising") -> tuple[dict[str, Any], str]:
    """The flattened stored summary ({} when absent), with the fields' width study as ``fw`` (width -> the same
    names at that width) where it is stored for the summary's instances, and the command that makes it. ``chapter``
    is ``"ising"`` (the one chapter this module stores; another is a ValueError naming it)."""
    from ..companion.checks import check_choice

    check_choice("chapter", chapter, ("ising",))
    s = full_numbers(root)
    out = _numbers(s) if s else {}
    path = None if root is None else root / FIELD_WIDTH
    if out and path is not None and path.exists():
        study = store.read_json(path)
        if not isinstance(study, dict) or not isinstance(study.get("widths", []), list):
            raise store.RefusedFileError(path, "the fields' width study (a JSON object with a list 'widths', written "
                                               "by python -m mfattn.meanfield.field_width)",
                                         f"it holds a JSON {type(study).__name__}" if not isinstance(study, dict)
                                         else "its 'widths' is not a list")
        widths = _width_numbers(study, s)
        if widths:
            out["fw"] = widths
    return out, f"`python -m mfattn reproduce --profile full --chapter ising` writes {SUMMARY}"


CLAIMS = ACCURACY_CLAIMS + FAMILY_CLAIMS + LINE_CLAIMS
DECLARED = {"ising": CLAIMS}


def record(run, root: Path | None) -> None:
    """One ``run.verdict`` per declared claim, decided by the stored full-profile summary."""
    verdicts.record_chapter(run, root, "ising")


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
