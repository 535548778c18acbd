"""The sentences Chapter 2 glues about its full-protocol variant table, written from the stored numbers.

A markdown cell cannot compute, and a number or a comparison typed into it outlives the re-run that changes it (the
variant paragraph once said "below the blog model in each seed" after a re-run had made one seed a tie). So every
number of that paragraph, and every word that depends on one ("below", "clears", "separates"), comes from here:
:func:`variant_glue` maps the flattened numbers of :func:`.claims_deq_numbers.deq_numbers` (the ``var_*`` and
``gain_*`` keys of the variant table) to the texts the chapter glues. A key whose numbers are not stored reads "n/a".
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from mfattn.companion import stats
from mfattn.companion.premises import LEVEL

from .claims_deq_couplings import INTERACTION_FLOOR, INTERACTION_MARGIN, _FORMER_FLOOR
from .claims_deq_seeds import disagreement, over_seeds_text

__all__ = ["variant_glue", "glue", "INTERACTIONS", "KEYS"]

#: The variants that swap the learned couplings for another mixing function: table key, name in prose.
INTERACTIONS = (("softmax", "softmax couplings"), ("mixer", "MLP mixer"))


def _gap(s: Mapping[str, Any], key: str) -> str:
    """The blog model's mean minus the variant's median, in words ("0.46 points below the blog model")."""
    gap = s["var_blog"] - s[f"var_{key}_median"]
    return f"{abs(gap):.2f} points {'below' if gap > 0 else 'above'} the blog model's mean ({s['var_blog']:.2f} %)"


def _share(x: float) -> str:
    """A share of steps as a percentage, never rounded up to 100 % (99.96 % reads 99.9 %)."""
    return "100 %" if x >= 1.0 else f"{math.floor(1000 * x) / 10:.1f} %"


def _floor_words(median: float, floor: float) -> str:
    diff = median - floor
    return f"{'clears' if diff > 0 else 'misses'} it by {abs(diff):.2f} points"


def _paired(s: Mapping[str, Any], key: str, name: str) -> str:
    """How many seeds of a variant the exact paired test separates from the blog model of the same seed."""
    n10, n01 = s[f"gain_{key}_n10"], s[f"gain_{key}_n01"]
    apart = sum(stats.exact_paired_test(int(a), int(b))["p"] < LEVEL for a, b in zip(n10, n01))
    return (f"{apart} of {len(n10)} seeds of the {name} (training loss {s[f'var_{key}_loss']:.3g}, the blog model's "
            f"{s['var_blog_loss']:.3g})")


def _naive(s: Mapping[str, Any]) -> dict[str, str]:
    losses = (s["var_naive_loss"], s["var_blog_loss"])
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in losses):
        # a loss stored as null or NaN is not stored: no ratio, and no comparison read off a NaN
        return {"full-naive-gain": s["gain_naive_text"], "full-naive-over-seeds": over_seeds_text(s, "gain_naive"),
                "full-naive-disagreement": disagreement(s, "gain_naive"), "full-naive-loss-ratio": "n/a"}
    ratio = s["var_naive_loss"] / s["var_blog_loss"]
    return {"full-naive-gain": s["gain_naive_text"], "full-naive-over-seeds": over_seeds_text(s, "gain_naive"),
            "full-naive-disagreement": disagreement(s, "gain_naive"),
            "full-naive-loss-ratio": f"{ratio:.1f} times {'as high as' if ratio >= 1 else 'the size of'}"}


def _interactions(s: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    stored = [(k, name) for k, name in INTERACTIONS if f"var_{k}_median" in s and f"gain_{k}_n10" in s]
    for key, _ in stored:
        out[f"full-{key}-accs"] = s[f"var_{key}_accs"]
        out[f"full-{key}-median"] = f"{s[f'var_{key}_median']:.2f} %"
        out[f"full-{key}-mean"] = f"{s[f'var_{key}']:.2f} %"
        out[f"full-{key}-gap"] = _gap(s, key)
        out[f"full-{key}-floor"] = _floor_words(s[f"var_{key}_median"], INTERACTION_FLOOR)
        out[f"full-{key}-former-floor"] = _floor_words(s[f"var_{key}_median"], _FORMER_FLOOR)
        if f"var_{key}_loss_list" in s:
            out[f"full-{key}-losses"] = ", ".join(f"{x:.2g}" for x in s[f"var_{key}_loss_list"])
    if "var_blog_loss" in s:
        out["full-blog-loss"] = f"{s['var_blog_loss']:.2g}"
    if s.get("floor_mean_acc_list") and s.get("floor_flat_acc_list"):     # the conv features without the layer
        out["full-floor-mean"] = ", ".join(f"{x:.2f} %" for x in s["floor_mean_acc_list"])
        out["full-floor-flat"] = ", ".join(f"{x:.2f} %" for x in s["floor_flat_acc_list"])
        out["full-floor-gain"] = f"{s['var_blog'] - s['floor_flat']:.2f} points"
    if stored:
        out["full-interaction-conv"] = "; ".join(
            f"{name}, seed by seed, {', '.join(_share(c) for c in s[f'var_{k}_conv_list'])} of the training steps"
            for k, name in stored)
        broke = [f"{name} seed {seed} ({acc:.2f} %; its forward solves reached the tolerance in {_share(conv)} of the "
                 "steps)" for k, name in stored for seed, (acc, conv) in
                 enumerate(zip(s[f"var_{k}_acc_list"], s[f"var_{k}_conv_list"])) if acc < 50]
        out["full-interaction-broke"] = (f"training did not learn the task in {' and '.join(broke)}" if broke else
                                         "every stored run of these variants learned the task")
        out["full-interaction-paired"] = "; ".join(_paired(s, k, name) for k, name in stored)
    out["full-interaction-margin"] = f"{INTERACTION_MARGIN:.2f}"
    out["full-interaction-floor"] = f"{INTERACTION_FLOOR:.0f} %"
    out["full-interaction-former-floor"] = f"{_FORMER_FLOOR:.0f} %"
    return out


KEYS = ("full-naive-gain", "full-naive-over-seeds", "full-naive-disagreement", "full-naive-loss-ratio",
        "full-interaction-conv", "full-interaction-broke", "full-interaction-paired", "full-interaction-margin", "full-interaction-floor",
        "full-interaction-former-floor", "full-anderson-40", "full-blog-loss", "full-floor-mean", "full-floor-flat",
        "full-floor-gain") + tuple(
            f"full-{k}-{w}" for k, _ in INTERACTIONS for w in ("accs", "median", "mean", "gap", "floor", "former-floor",
                                                            "losses"))


def variant_glue(s: Mapping[str, Any]) -> dict[str, str]:
    """``{glue key: text}`` for every key of :data:`KEYS` from the flattened numbers ``s`` ("n/a" where the variant
    table does not store what a text needs, e.g. before the naive or the interaction runs exist)."""
    if not isinstance(s, Mapping):
        raise TypeError(f"s must be the flattened numbers of chapter 2 (a mapping); got {type(s).__name__}")
    out = dict.fromkeys(KEYS, "n/a")
    if "gain_naive_d" in s and "var_blog_loss" in s:
        out.update(_naive(s))
    if "var_blog" in s:
        out.update(_interactions(s))
    if "blog_anderson_converged_40_seeds" in s:   # Anderson at the blog's 40 evaluations on each seed's final layer
        out["full-anderson-40"] = ", ".join(_share(v) for v in s["blog_anderson_converged_40_seeds"])
    return out


def glue(run, s: Mapping[str, Any]) -> None:
    """Glue every text of :func:`variant_glue` into the chapter's run (``run.number(key, text)``)."""
    from collections.abc import Mapping

    from mfattn.companion.verdicts import check_run

    check_run(run, "number")
    if not isinstance(s, Mapping):
        raise TypeError(f"s must be the stored numbers (a mapping); got {type(s).__name__}")
    for key, text in variant_glue(s).items():
        run.number(key, text)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
