"""Chapters 4-5's stored full-profile numbers: the summary a chapter's full run writes (:func:`save`,
``data/full/<chapter>/summary.json``) and the numbers the rules read from it (:func:`stored_numbers`: the stored
values with those derived from them). Split from :mod:`.claims` so that chapter 5's claims read them without
importing the module that declares chapter 4's claims (no import circle)."""

from __future__ import annotations

import copy

import math
from pathlib import Path
from typing import Any

from mfattn.companion import profiles, stats, store
from mfattn.companion.checks import check_choice, check_path, check_rule
from mfattn.companion.verdicts import Undecidable

from .claims_iterative import _pc_starts_text
from .claims_rules import number  # noqa: F401

__all__ = ["CHAPTERS", "summary_path", "save", "full_numbers", "stored_numbers"]

CHAPTERS = ("structural", "designs")


def check_root(root: Any, optional: bool = True) -> Path | None:
    """``root`` as a Path (None where ``optional``: nothing stored), else a TypeError naming it."""
    if root is None and optional:
        return None
    path = check_path("root", root)
    if path.exists() and not path.is_dir():   # /dev/null or a file: no project folder, not "nothing stored"
        raise ValueError(f"root must be the project folder (a folder); {path} is a file or a device")
    return path


def check_run(run: Any, *methods: str) -> None:
    """``run`` must be a chapter run with ``methods`` (the claims call its ``verdict``, the glue its ``number``)."""
    for m in methods:
        if not callable(getattr(run, m, None)):
            raise TypeError(f"run must be the chapter's run (a ChapterRun, with a {m} method); got {type(run).__name__}")


def summary_path(root: Path, chapter: str) -> Path:
    """Where the full profile of ``chapter`` stores its numbers."""
    check_choice("chapter", chapter, CHAPTERS)
    return check_root(root, optional=False) / "data" / "full" / chapter / "summary.json"


def save(root: Path, chapter: str, summary: dict[str, Any]) -> Path:
    """Write a chapter's full-profile numbers (a flat dict of numbers, strings and lists of numbers) atomically. A
    value that is a mapping (a nested dict) is refused: the summary is flat. A list may hold lists of numbers (per-draw
    rows, as chapter 3's range_gbal_draws: one list of errors per draw), saved as they come; their shape is the
    reader's to check."""
    def plain(v):
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return float(v) if hasattr(v, "__float__") and not isinstance(v, (int, str)) else v

    check_rule("summary", summary, "mapping")
    for k, v in summary.items():
        if not isinstance(k, str):
            raise TypeError(f"summary's keys must be names (strings); got {k!r}")
        if _holds_mapping(v):
            raise TypeError(f"summary[{k!r}] must be a number, a string or a list of them (the summary is flat); got a "
                            "nested mapping")
    path = summary_path(root, chapter)
    store.atomic_write_json(path, store.finite_or_none({k: plain(v) for k, v in summary.items()}))  # NaN: null
    return path


def _holds_mapping(v: Any) -> bool:
    from collections.abc import Mapping

    return isinstance(v, Mapping) or isinstance(v, (list, tuple)) and any(_holds_mapping(x) for x in v)


def full_numbers(root: Path | None, chapter: str) -> dict[str, Any]:
    """The stored full-profile summary of ``chapter``, or {} when there is none."""
    check_choice("chapter", chapter, CHAPTERS)
    path = None if check_root(root) is None else summary_path(root, chapter)
    return store.read_object(path) if path is not None and path.exists() else {}


# --- the numbers the rules read ----------------------------------------------------------------------------

def _pooled_gap(s: dict[str, Any], prefix: str) -> dict[str, float] | None:
    """One-layer minus multi-hop held-out MSE / Var(y), paired per seed and pooled over seeds
    (:func:`mfattn.companion.stats.pooled_over_seeds`), when the summary stores per-seed values; else None.
    The within-seed variance is taken as 0: each seed's MSE is on 10 000 held-out sequences, whose noise is
    far below the seed-to-seed spread, so the interval is the seeds' t interval."""
    one, multi = s.get(f"{prefix}nmse_one_seeds"), s.get(f"{prefix}nmse_multi_seeds")
    if one is None or multi is None or any(x is None for x in [*one, *multi]):   # a seed stored as NaN: null
        return None
    if len(one) != len(multi) or len(one) < 2:
        raise ValueError(f"{prefix}nmse_one_seeds and {prefix}nmse_multi_seeds must pair at least two seeds")
    return stats.pooled_over_seeds([a - b for a, b in zip(one, multi)], [0.0] * len(one))


def _multihop_numbers(s: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The pooled per-seed test of multi-hop against one-layer and its sentence (or why there is none)."""
    seeds = s.get(f"{prefix}seeds")
    pooled = _pooled_gap(s, prefix)
    if pooled is None:
        return {f"{prefix}spread_text": f"means over {seeds:.0f} seeds; the seed-to-seed spread is not stored, so "
                                        "the pooled test across seeds cannot be made"}
    return {f"{prefix}pooled": pooled["effect"], f"{prefix}pooled_lo": pooled["lo"],
            f"{prefix}pooled_hi": pooled["hi"], f"{prefix}pooled_tau": pooled["tau"],
            f"{prefix}spread_text": f"one-layer minus multi-hop, pooled over {pooled['k']:.0f} seeds: "
                                    f"{pooled['effect']:.3f} (95 % interval {pooled['lo']:.3f} to {pooled['hi']:.3f}, "
                                    f"seed-to-seed sd {pooled['tau']:.3f})"}


def _derived_structural(s: dict[str, Any], sizes: dict[str, Any]) -> dict[str, Any]:
    """Chapter 4's derived numbers: counts from the profile where the summary predates storing them, the slot
    objective's largest drop, binomial spreads, and what the rules read from the per-unit values stored since the
    issue-42 re-run (the enumeration's deviation per mechanism, the key-norm gap's smallest instance, the ARI gap
    per mixture, the paper's slot update at its fixed point, predictive coding at each noise level)."""
    out: dict[str, Any] = {k: s.get(k, sizes[k]) for k in ("slot_trials", "pc_trials", "hop_trials")}
    out["enum_instances"] = s.get("enum_instances", sizes["enum_instances"])
    if "slot_min_step" in s:  # the largest decrease of the objective (0 if it never decreased)
        out["slot_max_drop"] = max(0.0, -s["slot_min_step"])
    if "pc_acc_fixed" in s:   # binomial standard error of the fraction over the instances
        p = s["pc_acc_fixed"]
        out["pc_acc_se"] = math.sqrt(p * (1 - p) / out["pc_trials"])
    if all(f"enum_errors_{m}" in s for m in ("cross", "self", "causal")):
        out["enum_error_cross_self"] = max(max(s["enum_errors_cross"]), max(s["enum_errors_self"]))
        out["enum_error_causal"] = max(s["enum_errors_causal"])
    if "enum_sets_self" in s:
        out["enum_self_count"] = s["enum_sets_self"]
    if "keynorm_gaps_raw" in s:
        out["keynorm_gap_raw_min"] = min(s["keynorm_gaps_raw"])
    if "slot_ari_slots" in s and "slot_ari_hopfield" in s:
        out["slot_ari_gap"] = s["slot_ari_slots"] - s["slot_ari_hopfield"]
        sd = s.get("slot_ari_gap_sd")
        out["slot_spread_text"] = (f"paired sd over mixtures {sd:.2f}, standard error of the mean gap "
                                   f"{sd / math.sqrt(out['slot_trials']):.3f}" if sd is not None
                                   else "spread over the mixtures not stored")
    if all(k in s for k in ("slot_sigmas", "slot_ari_slots_all", "slot_ari_hopfield_all", "slot_sigma")):
        i = s["slot_sigmas"].index(s["slot_sigma"])
        gaps = [a - b for a, b in zip(s["slot_ari_slots_all"][i], s["slot_ari_hopfield_all"][i])]
        out.update(slot_ari_gaps=gaps, slot_gap_positive=sum(g > 0 for g in gaps),
                   slot_gap_negative=sum(g < 0 for g in gaps))
    out.update(_paper_slot_numbers(s, out.get("slot_ari_gaps")))
    if "slot_paper_norm_by_step" in s and "slot_forms_radius" in s:
        out["slot_paper_norm_final"] = s["slot_paper_norm_by_step"][-1]
        out["slot_paper_outside"] = out["slot_paper_norm_final"] / s["slot_forms_radius"]
    if all(k in s for k in ("pc_noise_levels", "pc_acc_fixed_by_noise", "pc_acc_oracle_by_noise")):
        for j in (1, 2):
            out.update({f"pc_noise_{j}": s["pc_noise_levels"][j], f"pc_acc_noise_{j}": s["pc_acc_fixed_by_noise"][j],
                        f"pc_oracle_noise_{j}": s["pc_acc_oracle_by_noise"][j]})
    out["pc_starts_text"] = _pc_starts_text({**s, **out})
    if "pc_starts_acc" in s:
        out.update(pc_starts_min=min(s["pc_starts_acc"]), pc_starts_max=max(s["pc_starts_acc"]),
                   pc_starts_same_min=min(s["pc_starts_same"]))
    if "pc_win_weights" in s:
        w = sorted(s["pc_win_weights"])
        out["pc_win_median"] = (w[(len(w) - 1) // 2] + w[len(w) // 2]) / 2
    return out


def _paper_slot_numbers(s: dict[str, Any], gaps: list[float] | None) -> dict[str, Any]:
    """The paper's own slot update beside the comparison (from the comparison's starts, stored since the second
    referee round): its ARI gap over the Hopfield prior per mixture, and its dead slots (mass below one point) at
    that start and at the fixed-point study's; the sentences the notes quote (saying so where not stored)."""
    out: dict[str, Any] = {}
    hop = None
    if all(k in s for k in ("slot_sigmas", "slot_ari_hopfield_all", "slot_sigma")):
        hop = s["slot_ari_hopfield_all"][s["slot_sigmas"].index(s["slot_sigma"])]
    same, dead = s.get("slot_paper_same_ari_all"), s.get("slot_paper_same_dead_all")
    if same is not None and hop is not None and dead is not None and len(same) == len(hop):
        g = [a - b for a, b in zip(same, hop)]
        se = stats.t_interval(g)
        out.update(slot_paper_gaps=g, slot_paper_gap=sum(g) / len(g), slot_paper_same_ari=sum(same) / len(same),
                   slot_paper_same_dead_mean=sum(dead) / len(dead))
        out["slot_paper_text"] = (
            f"The paper's own update from the same starts: mean ARI {out['slot_paper_same_ari']:.2f}, "
            f"{out['slot_paper_gap']:.3f} above the Hopfield prior (95 % interval {se['lo']:.3f} to {se['hi']:.3f}; "
            f"positive in {sum(x > 0 for x in g)} mixtures, negative in {sum(x < 0 for x in g)}), with "
            f"{sum(dead) / len(dead):.2f} of its slots dead per mixture (mass below one point; at least one in "
            f"{sum(k > 0 for k in dead)} of {len(dead)} mixtures): its slots compete by mass, and the lighter ones "
            "lose every point.")
    else:
        out["slot_paper_text"] = "The paper's own update from the same starts is not stored."
    dead_fp = s.get("slot_paper_dead_all")
    outside = s.get("slot_paper_outside_all")
    if dead_fp is not None and outside is not None:
        out["slot_paper_dead_mean"] = sum(dead_fp) / len(dead_fp)
        out["slot_dead_text"] = (
            f"At that fixed point {sum(dead_fp) / len(dead_fp):.2f} of the slots per mixture are dead (mass below one "
            f"point; at least one in {sum(k > 0 for k in dead_fp)} of {len(dead_fp)} mixtures): a dead slot's norm "
            f"falls toward 0, and where most slots of a mixture die its median slot norm does too (smallest "
            f"{min(outside):.1e} radii).")
    else:
        out["slot_dead_text"] = "Dead slots at the fixed point are not stored."
    return out


def _derived(s: dict[str, Any], chapter: str) -> dict[str, Any]:
    """Numbers the rules and notes read that the summary does not hold as such: counts from the full profile's
    sizes where the summary predates storing them, binomial spreads, the seed-pooled multi-hop test."""
    # the full profile's sizes as declared (read, not asked for: get_profile(..., "full") would admit a chapter's work
    # budget for the whole process, and deciding a claim runs no chapter)
    sizes = copy.deepcopy(profiles.PROFILES[chapter]["full"])
    out: dict[str, Any] = {}
    if chapter == "structural":
        out.update(_derived_structural(s, sizes))
    else:
        out["exp_seeds"] = s.get("exp_seeds", len(sizes["exp_seeds"]))
        for prefix in ("", "abl_"):
            if f"{prefix}seeds" in s:
                out.update(_multihop_numbers(s, prefix))
        ps = (2, 5, 10, 25)
        if all(f"{n}_mse_{p}" in s for n in ("paper", "cavi") for p in ps):
            out["cavi_ratio_min"] = min(s[f"cavi_mse_{p}"] / s[f"paper_mse_{p}"] for p in ps)
        if all(f"{n}_mse_{p}" in s for n in ("paper", "digamma29", "digamma", "cavi") for p in ps):
            from .claims_designs_expanding import ladder as _ladder   # the three steps from the paper's update to CAVI

            try:
                lad = _ladder(s)
            except Undecidable:   # an MSE that is not a positive number: the ladder's rule says so
                lad = None
            if lad is not None:
                out.update(ladder_estimate=math.exp(lad["estimate"]), ladder_first_window=math.exp(lad["first window"]),
                           ladder_accumulating=math.exp(lad["accumulating vs CAVI"]))
        if all(f"loss_ratio_{d}_{p}" in s for d in (10, 50) for p in ps):
            out["loss_ratio_within"] = sum(s[f"loss_ratio_{d}_{p}"] < 1.5 for d in (10, 50) for p in ps)
    return out


def stored_numbers(root: Path | None, chapter: str) -> tuple[dict[str, Any], str]:
    """The stored summary of ``chapter`` with the numbers derived from it ({} when absent), and the command
    that makes it. A number stored as NaN (e.g. the replay share when the replay was not stored) is left out,
    so the claim that needs it is "not tested"."""
    if chapter not in CHAPTERS:
        raise ValueError(f"chapter must be one of {CHAPTERS}; got {chapter!r}")
    remedy = (f"`python -m mfattn reproduce --profile full --chapter {chapter}` writes "
              f"data/full/{chapter}/summary.json")
    s = full_numbers(root, chapter)
    if not s:
        return {}, remedy
    s = {k: v for k, v in s.items() if v is not None and not (isinstance(v, float) and not math.isfinite(v))}
    return {**s, **_derived(s, chapter)}, remedy


# --- the declared claims -------------------------------------------------------------------------------------


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
