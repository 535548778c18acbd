"""Chapter 2's claim on the learned Onsager correction of the MNIST layer (deq-learned-onsager): does the net f_θ that
parametrises the action of the cavity variances improve the trained model over naive mean field (f_θ = 0), decided on
the paired per-digit gains of the three seeds (:mod:`.claims_deq_mnist` gathers it with the chapter's other MNIST
claims)."""

from __future__ import annotations

import math

import numpy as np

from mfattn.companion import premises, verdicts
from mfattn.companion.premises import Alternative, Quote, Spread, Threshold
from mfattn.companion.stored_kinds import check_kind
from mfattn.companion.verdicts import Claim

from .claims_deq_numbers import ACCURACY_BAND, BAL, BLOG_ACCURACY, _band_check
from .claims_deq_seeds import disagreement, measured, over_seeds_text
from .claims_deq_couplings import _gain_shown
from .claims_deq_layer import READING_G, READING_M, TC, TP

__all__ = ["learned_onsager_claim", "fixed_effect_interval"]

def _onsager_decide(floor: float):
    """The claim's rule on an interval of the gain (points): above 0 and naive mean field outside the blog's accuracy
    claim, holds; above 0, partly (the gain shown, the layer works without it); at or below 0 (the data exclude any
    gain), fails. An interval that covers both a gain and none is inconclusive: neither shown nor excluded, so the
    claim is not decided by it (Undecidable: "not tested", the note gives the numbers), never graded as if the gain
    were shown. A test that does not reject gives (−∞, +∞): inconclusive too."""
    def decide(s, effect, lo, hi):
        if lo > 0:
            return "holds" if s["var_naive"] < floor else "partly"
        if hi <= 0:
            return "fails"
        raise verdicts.Undecidable(
            "inconclusive: " + (f"the interval {lo:+.2f} to {hi:+.2f} covers both a gain and none"
                                if math.isfinite(lo) and math.isfinite(hi) else "the test does not reject 'no gain'")
            + ": the gain is neither shown nor excluded")
    return decide


def _fixed_effect(key: str, floor: float):
    """The per-seed gains pooled with inverse-variance weights and no between-seed variance (the three trained models
    as fixed, the reading that τ̂ = 0 and Cochran's Q support but three seeds cannot establish), the normal 95 %
    interval, decided by the claim's rule."""
    decide = _onsager_decide(floor)

    def rule(s):
        return decide(s, *fixed_effect_interval(s, key))
    return rule


def fixed_effect_interval(s, key: str = "gain_naive") -> tuple[float, float, float]:
    """(effect, lo, hi) of :func:`_fixed_effect`'s pooling, for the note; a NaN or infinite stored per-seed gain is
    :class:`~mfattn.companion.verdicts.Undecidable`."""
    from collections.abc import Mapping

    if not isinstance(s, Mapping):
        raise TypeError(f"s must be the stored numbers (a mapping); got {type(s).__name__}")
    if not isinstance(key, str):
        raise TypeError(f"key must be the name of a stored gain (a string such as 'gain_naive'); got "
                        f"{type(key).__name__}")
    if f"{key}_d" not in s or f"{key}_v" not in s:
        raise ValueError(f"key {key!r} names no stored per-seed gain (s lacks {key}_d or {key}_v)")
    s = verdicts.finite_numbers(s)   # a NaN per-seed gain or variance: Undecidable naming it, never (nan, nan, nan)
    d, v = np.asarray(s[f"{key}_d"], float), np.maximum(np.asarray(s[f"{key}_v"], float), 1e-12)
    w = 1 / v
    effect, half = float(np.sum(w * d) / np.sum(w)), 1.959964 / math.sqrt(float(np.sum(w)))
    return effect, effect - half, effect + half


def _onsager_at(floor: float, key: str = "gain_naive"):
    decide = _onsager_decide(floor)
    # an interval of (−∞, +∞) (a test that does not reject) is inconclusive, and so is one with a NaN end (neither end
    # compares): decide raises Undecidable, never a grade; so the interval is read past verdicts.FiniteNumbers
    # read past the guard, so the ends' kind is checked here (a number: a mapping or a string is a TypeError naming it)
    return lambda s: decide(s, s.get(key, math.nan), check_kind(f"{key}_lo", verdicts.raw_numbers(s)[f"{key}_lo"]),
                            check_kind(f"{key}_hi", verdicts.raw_numbers(s)[f"{key}_hi"]))


def _floor_check(s):
    ok, found = _band_check(s)
    return ok, f"the floor is 99.1 − the band of deq-mnist-accuracy; {found}"


def _primary_reading(s):
    """What the primary interval says, in words: shown, excluded, or inconclusive (not tested)."""
    lo, hi = s["gain_naive_lo"], s["gain_naive_hi"]
    if lo > 0:
        return "The primary interval lies above 0: the gain is shown. "
    if hi <= 0:
        return "The primary interval lies at or below 0: the data exclude a gain. "
    meets = (f"; naive mean field at {s['var_naive']:.2f} % meets the blog's accuracy claim (at least "
             f"{BLOG_ACCURACY - ACCURACY_BAND:.1f} %), so a shown gain would read 'with differences'"
             if s["var_naive"] >= BLOG_ACCURACY - ACCURACY_BAND else "")
    try:
        fe = fixed_effect_interval(s)
        fixed = (f" The fixed-effect pooling (the three trained models as fixed) gives {fe[0]:+.2f} ({fe[1]:+.2f} to "
                 f"{fe[2]:+.2f}): a gain for these models, which the random-effects interval does not carry to "
                 f"another training seed.")
    except KeyError:
        fixed = ""
    return (f"The primary interval ({lo:+.2f} to {hi:+.2f}) covers both a gain and none: inconclusive, neither shown "
            f"nor excluded, so the claim is not decided (not tested){meets}.{fixed} ")


def _correction_note(s):
    return (_primary_reading(s) + f"Naive mean field, with no correction, reaches {s['var_naive_accs']} (mean {s['var_naive']:.2f} % ± "
            f"{s['var_naive_sd']:.2f}) against {s['var_blog_accs']} (mean {s['var_blog']:.2f} %); the blog model's "
            f"paired gain pooled over seeds (the primary convention, the truncated Hartung-Knapp interval): "
            f"{s['gain_naive_text']}; {over_seeds_text(s, 'gain_naive')}. Training loss {s['var_naive_loss']:.3g} "
            f"against {s['var_blog_loss']:.3g}. With f_θ on m (the blog's displayed update): {s['var_m_accs']}; its "
            f"gain over naive mean field {s['gain_m_over_naive_text']}; {over_seeds_text(s, 'gain_m_over_naive')}; its "
            f"forward solves reach the tolerance in only {s['var_m_convs']} of the training steps" + (
                " (" + ", ".join(f"{100 * v:.1f} %" for v in s["var_m_conv_late_seeds"]) + " over the last quarter: "
                "that model ends training almost never at its fixed point)" if "var_m_conv_late_seeds" in s else "")
            + ". "
            f"{disagreement(s, 'gain_naive')}")


def _loss_gain(s) -> str:
    """Holds if the blog model's final training loss is below naive mean field's in every seed and naive mean field
    falls outside the blog's accuracy band; partly if below in every seed but naive meets it; fails otherwise."""
    blog, naive = s["var_blog_loss_list"], s["var_naive_loss_list"]
    if len(blog) != len(naive) or not blog:
        raise verdicts.Undecidable("the blog model's and naive mean field's training losses are not stored per seed")
    if not all(b < n for b, n in zip(blog, naive)):
        return "fails"
    return "holds" if s["var_naive"] < BLOG_ACCURACY - ACCURACY_BAND else "partly"


def learned_onsager_claim() -> Claim:
    decide = _onsager_decide(BLOG_ACCURACY - ACCURACY_BAND)
    statistics = premises.over_units("gain_naive_d", decide, variances="gain_naive_v",
                                     only=("gain_naive_n10", "gain_naive_n01"))
    on_m = premises.over_units("gain_m_over_naive_d", decide, variances="gain_m_over_naive_v",
                               only=("gain_m_over_naive_n10", "gain_m_over_naive_n01"))
    return Claim(
        "deq-learned-onsager", f"{BAL} (f_θ parametrising the action of the cavity variances; our test of it)",
        "The learned self-correction f_θ measurably improves the mean-field layer's test accuracy over naive mean "
        "field (the same layer without f_θ)",
        measured="Test accuracy of the blog model against the same model without the correction (naive mean field), "
                 "paired on the 10,000 test digits in each of 3 seeds", origin="ours",
        quote=Quote("3.4. Fast and neural: parametrizing the Onsager selfcorrection term",
                    "is a neural network parametrizing the action of the cavity variances on the spin means"),
        reading=READING_G, rule_at=lambda floor: _onsager_at(floor),
        how="One test across seeds: the blog model's accuracy minus naive mean field's on the same 10,000 test digits "
            "in each seed (paired), pooled over the seeds by random effects with the truncated Hartung-Knapp 95 % "
            "interval (the primary convention: truncated at the usual random-effects variance so that three seeds "
            "that agree by chance do not give a spuriously narrow interval, Röver, Knapp & Friede 2015). Confirmed if "
            "the interval lies above 0 and naive mean field falls outside the blog's own accuracy claim (below "
            "99.1 − 0.3 %, the band of deq-mnist-accuracy): without f_θ the layer does not do what the blog says it "
            "does; with differences if above 0 but naive mean field meets that claim (f_θ helps measurably, the layer "
            "works without it); not tested if the interval covers both a gain and none (inconclusive: neither shown "
            "nor excluded; the note gives the numbers and the alternatives show which statistics would show the "
            "gain); refuted only if the interval lies at or below 0 (the data "
            "exclude any gain). The untruncated interval, a t-interval over the seeds and the exact paired test over "
            "the 30,000 digits pooled are its alternatives; a sign test over three seeds cannot reach 5 %. The blog "
            "does not claim that the layer fails without f_θ: the claim is ours.",
        thresholds=(Threshold("floor", BLOG_ACCURACY - ACCURACY_BAND, "resolution", "the lower edge of the blog's "
                              "accuracy claim: 99.1 % less three binomial SEs of a 10,000-digit accuracy",
                              _floor_check, noise=lambda s: measured("var_naive_sd", 1 / math.sqrt(s["var_naive_seeds"]))(s)),),
        alternatives=(*statistics,
                      Alternative(f"{READING_M}: m minus naive mean field, the primary interval", "reading",
                                  _onsager_at(BLOG_ACCURACY - ACCURACY_BAND, "gain_m_over_naive")),
                      *(Alternative(f"f_θ on m: {a.name}", "reading", a.rule) for a in on_m
                        if a.name.startswith("exact paired")),
                      Alternative("fixed-effect pooling of the per-seed gains (inverse-variance weights, no "
                                  "between-seed variance: the three trained models as fixed; τ̂ = 0 and Cochran's Q "
                                  "allow it, three seeds cannot establish it), normal 95 % interval", "statistic",
                                  _fixed_effect("gain_naive", BLOG_ACCURACY - ACCURACY_BAND)),
                      Alternative("the training objective instead of test accuracy: the blog model's final training "
                                  "loss below naive mean field's in every seed (paired), the same grades (a gain the "
                                  "layer measurably has, on the loss it is trained on)", "statistic", _loss_gain)),
        spread=Spread("seed", lambda s: {"paired gain (points)": s["gain_naive_d"],
                                         "naive accuracy (%)": s["var_naive_acc_list"]}),
        evidence=("fig-deq-full-cpu", "tests/test_variants.py::test_seed_summary_pairs_each_variant_with_the_blog_model_of_its_seed",
                  TC + "test_the_pooled_paired_gain_decides_the_learned_correction",
                  TP + "test_the_learned_correction_is_not_decided_by_an_inconclusive_interval",
                  TP + "test_no_rule_of_chapter_2_turns_an_inconclusive_interval_into_a_refutation"),
        note=_correction_note, numbers=_gain_shown("naive"),
        examples={"holds": {"gain_naive_lo": 0.01, "gain_naive_hi": 0.5, "var_naive": 98.79},
                  "partly": {"gain_naive_lo": 0.01, "gain_naive_hi": 0.5, "var_naive": 98.8},
                  "fails": {"gain_naive_lo": -0.5, "gain_naive_hi": 0.0, "var_naive": 90.0}})




from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
