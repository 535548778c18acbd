"""Chapters 4-5's claims on Singh & Buckley (2023), each with the rule that decides it from the full profile.

A full-profile run of a chapter stores the numbers its verdicts rest on in ``data/full/<chapter>/summary.json``
(a flat dict; :func:`save`); :data:`DECLARED` declares each claim with its rule
(:class:`mfattn.companion.verdicts.Claim`), :func:`stored_numbers` reads that file (adding the few numbers
derived from it, e.g. the seed-pooled difference where per-seed values are stored) and :func:`record` decides
every claim of a chapter from it. :func:`glue_full` glues stored numbers as ``full-<key>`` for the prose. A
quick run therefore shows the paper-scale verdicts, never its own short-run numbers; without a stored summary
every claim is "not tested", with the reason.

Chapter 4's claims are declared by topic, with their premises (quotes, thresholds checked against the stored
numbers, alternatives, spread): :mod:`.claims_exact` (enumerations and the derivation's steps),
:mod:`.claims_iterative` (Hopfield, slots, predictive coding) and the shared rules in :mod:`.claims_rules`.
"""

from __future__ import annotations

from pathlib import Path

from mfattn.companion import verdicts

from .claims_exact import EXACT_FIRST, EXACT_LAST
from .claims_iterative import ITERATIVE
from .claims_rules import PAPER, TE, TI, TM, TP, TS, TX, needs, number  # noqa: F401  (re-exported)

__all__ = ["DECLARED", "FULL_GLUE", "DESIGNS_GLUE", "summary_path", "save", "full_numbers", "stored_numbers", "glue_full", "record",
           "number"]

from .claims_summary import CHAPTERS, full_numbers, save, stored_numbers, summary_path  # noqa: F401  (re-exported)
from .claims_summary import check_root, check_run
from mfattn.companion.checks import check_rule

#: The stored chapter-4 numbers the prose quotes, glued as ``full-<key>`` by the chapter (:func:`glue_full`), with
#: their formats.
FULL_GLUE = {
    "enum_max_error": "{:.0e}",
    "hop_rate_lo": "{:.2f}",
    "hop_rate_hi": "{:.2f}",
    "slot_ari_slots": "{:.2f}",
    "slot_ari_hopfield": "{:.2f}",
    "pc_acc_fixed": "{:.2f}",
    "pc_starts_min": "{:.3f}",
    "pc_starts_max": "{:.3f}",
    "pc_starts_same_min": "{:.2f}",
    "pc_win_median": "{:.3f}",
    "slot_ari_gap": "{:.2f}",
    "keynorm_gap_raw": "{:.2f}",
    "mask_max_error": "{:.0e}",
    "slot_forms_norm_paper": "{:.0f}",
    "slot_gap_sigma": "{:g}",
    "slot_sigma_max": "{:g}",
    "slot_ari_slots_max": "{:.2f}",
    "slot_ari_hopfield_max": "{:.2f}",
    "enum_roundoff_max": "{:.0e}",
    "slot_ari_gap_sd": "{:.2f}",
    "slot_paper_max_rise": "{:.0e}",
    "slot_paper_ari": "{:.2f}",
    "pc_acc_oracle": "{:.3f}",
    "pc_acc_grad": "{:.3f}",
    "slot_paper_same_ari": "{:.2f}",
    "slot_paper_gap": "{:.2f}",
    "slot_paper_same_dead_mean": "{:.1f}",
    "slot_paper_dead_mean": "{:.1f}",
}


#: Stored chapter-5 numbers the prose quotes beyond those its notebook passes to :func:`glue_full` (the second
#: referee round's: the task's premise, the window inside its first window, the multi-hop controls' intervals).
DESIGNS_GLUE = {
    **{f"{p}nmse_{m}": "{:.3f}" for p in ("wd0_", "codeop_") for m in ("one", "multi", "two")},
    **{f"{a}premise_nmse_{t}_median": "{:.3f}" for a in ("", "abl_") for t in ("x0", "x1", "single")},
    "near_rho_mean": "{:.2f}", "near_rho_lo": "{:.2f}", "near_rho_n": "{:.0f}", "near_lift_mean": "{:+.3f}",
    **{f"{a}ctrl_{n}_{k}": "{:+.3f}" for a in ("", "abl_") for n in ("x2", "norm", "plain", "control")
       for k in ("mean", "lo", "hi")},
    **{f"{a}ctrl_{n}_positive": "{:.0f}" for a in ("", "abl_") for n in ("x2", "norm", "plain", "control")},
    "nmse_seeds_n": "{:.0f}", "abl_nmse_seeds_n": "{:.0f}", "seeds": "{:.0f}", "nmse_one_x2": "{:.3f}",
    "abl_uniform_count": "{:.0f}", "abl_nmse_one_x2": "{:.2f}",
    **{f"{a}ctrl_share_{n}_{k}": "{:.0%}" for a in ("", "abl_") for n in ("x2", "norm") for k in ("median", "of_mean")},
    **{f"{a}{k}": f for a in ("", "abl_") for k, f in (("stuck_seed", "{:.0f}"), ("stuck_one", "{:.2f}"),
                                                      ("stuck_multi_norm", "{:.2f}"), ("gap_closed_best", "{:.0%}"),
                                                      ("ctrl_norm_nostuck_lo", "{:+.3f}"))},
    **{f"ref_code_ops_{d}_{p}": "{:.2f}" for d in (10, 50) for p in (2, 5, 10, 25)},
    **{f"code_loss_ratio_{d}_{p}": "{:.2f}" for d in (10, 50) for p in (2, 5, 10, 25)},
    "code_kept_50_25": "{:.0f}", "code_worse_50_25": "{:.0f}",
    **{f"code_tail_{m}_50_25_s1": "{:.3g}" for m in ("expanding", "standard")},
}


def glue_full(run, root: Path | None, chapter: str, formats: dict[str, str]) -> None:
    """Glue ``full-<key>`` for each key of ``formats`` (key -> format string), and of :data:`DESIGNS_GLUE` for chapter
    5: a stored number or one derived from the stored ones (the chapter's ``stored_numbers``); "(not stored)" if
    absent. A format that cannot format its number is a ValueError naming it, before anything is glued; the format
    of a key the numbers do not hold is not tried (there is no number to format: it glues "(not stored)")."""
    check_run(run, "number")
    check_root(root)
    check_rule("formats", formats, "mapping")
    bad = [k for k, fmt in formats.items() if not isinstance(k, str) or not isinstance(fmt, str)]
    if bad:
        raise TypeError(f"formats must map each stored key (a string) to a format string; got {bad[0]!r}: "
                        f"{formats[bad[0]]!r}"[:200])
    if chapter == "designs":
        from .claims_designs import stored_numbers as designs_numbers   # chapter 5's derived numbers

        s = designs_numbers(root, chapter)[0] if root is not None else {}
        formats = {**DESIGNS_GLUE, **formats}
    else:
        s = stored_numbers(root, chapter)[0] if root is not None else {}
    texts = {}
    for key, fmt in formats.items():
        try:
            texts[key] = fmt.format(s[key]) if key in s else "(not stored)"
        except (ValueError, TypeError, IndexError, KeyError, AttributeError) as err:
            raise ValueError(f"formats[{key!r}] = {fmt!r} cannot format the stored {key} ({s[key]!r:.40}): "
                             f"{err}") from None
    for key, text in texts.items():
        run.number(f"full-{key}", text)



#: Chapter 4's claims in the book's order: exact enumerations (claims_exact), iterative attention
#: (claims_iterative), the derivation's steps and the paper's other priors (claims_exact), the paper's slot update.
_STRUCTURAL = [*EXACT_FIRST, *ITERATIVE[:4], *EXACT_LAST[:3], *ITERATIVE[4:], *EXACT_LAST[3:]]

DECLARED: dict[str, list[verdicts.Claim]] = {"structural": _STRUCTURAL}  # chapter 5's: claims_designs.py


def record(run, root: Path | None, chapter: str) -> None:
    """One ``run.verdict`` per declared claim of ``chapter``, decided by its stored full-profile summary (the claims
    of chapter 5 are declared in :mod:`.claims_designs`)."""
    if chapter not in CHAPTERS:
        raise ValueError(f"chapter must be one of {CHAPTERS}; got {chapter!r}")
    check_run(run, "verdict")
    verdicts.record_chapter(run, check_root(root), chapter)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
