"""Chapter 2's verdict premises (mfattn.implicit.claims, issue 40): where the blog makes each claim, the reasons of the
thresholds against the stored numbers (and that each check can say no), the per-seed numbers behind every paired
comparison, the alternatives that make a verdict fragile, the two readings of where f_θ acts, and the one-seed cap.

The stored-data tests read ``data/full`` (the 21 variant runs with their per-digit bits, the initialisation study,
seed 0's frames and summary) and skip where it is absent; nothing is trained.
"""

import json
import math

import numpy as np
import pytest
import torch

from mfattn.companion import premises, stats, store, verdicts
from mfattn.implicit import claims, claims_deq_prose
from mfattn.implicit.claims_deq_numbers import _norm_asymmetry
from mfattn.implicit.correction import coupling_asymmetry
from mfattn.implicit.variants import unpack_correct

from rule_boundaries import check_case, check_every_rule_covered

ROOT = store.project_root()
DEQ = {c.id: c for c in claims.DECLARED["deq"]}
STORED = claims.full_numbers(ROOT, "deq") if ROOT is not None else {}
needs_stored = pytest.mark.skipif(not STORED, reason="no stored full-profile runs of chapter 2")


def _decide(claim_id, numbers=None):
    return DEQ[claim_id].decide(STORED if numbers is None else numbers, chapter="deq")


# --- where the blog makes each claim ---------------------------------------------------------------------------

#: Claims the blog's text does not make as the book states them: ours, each quoting at most what it builds on (a
#: configuration line, a design requirement, the §4.4 sentence about the large-scale regime).
OURS = {"deq-anderson", "deq-anderson-plain", "deq-learned-onsager", "deq-softmax-couplings", "deq-mixer-couplings",
        "deq-one-step-mnist", "deq-stability-training", "deq-cls-organisation", "deq-energy", "deq-implicit-gradient",
        "deq-correction-onsager-form", "deq-init-scale", "deq-init-scale-learning", "deq-anderson-public",
        "deq-softmax-reliability", "deq-mixer-reliability"}
#: Ours, and no sentence of the blog says or denies them: no quote beside a verdict that the blog could be read into.
UNQUOTED = {"deq-one-step-mnist", "deq-stability-training"}


def test_the_claims_the_blog_does_not_make_are_ours_and_every_other_quotes_it():
    assert {c.id for c in DEQ.values() if c.origin == "ours"} == OURS
    assert {c.id for c in DEQ.values() if c.quote is None} == UNQUOTED
    assert DEQ["deq-energy"].origin == "ours"     # built on §4.5's "one energy function"; its MNIST code leaves it off
    assert DEQ["deq-energy"].quote.section.startswith("4.5")


@pytest.mark.skipif(premises.papers_dir() is None, reason="the works' texts are not at hand")
@pytest.mark.parametrize("claim_id", sorted(set(DEQ) - UNQUOTED))
def test_every_quote_of_chapter_2_is_verbatim_in_the_blog(claim_id):
    assert premises.quote_found(DEQ[claim_id].quote, "deq"), DEQ[claim_id].quote.text


@pytest.mark.skipif(premises.papers_dir() is None, reason="the works' texts are not at hand")
def test_the_chapter_does_not_quote_words_the_blog_does_not_have():
    """The chapter once put "repeated at every iteration" in the blog's mouth: the blog does not say it (it lists the
    cavity variances among its "iteratively determined fixed-point variables"), and the prose no longer quotes it."""
    assert not premises.quote_found(premises.Quote("x", "repeated at every iteration"), "deq")
    assert premises.quote_found(premises.Quote("x", "Iteratively determined fixed-point variables"), "deq")
    prose = _markdown()
    assert '"repeated at every' not in prose and "“repeated at every" not in prose


def _markdown() -> str:
    nb = json.loads((ROOT / "book" / "02_deep_implicit_attention.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


@pytest.mark.skipif(premises.papers_dir() is None, reason="the works' texts are not at hand")
def test_the_book_paraphrases_are_not_quoted_as_the_blogs_words():
    for paraphrase in ("almost all organisation happens early in training",
                       "the initialisation σ² = 1/(N d²) is crucial for stability"):
        assert not premises.quote_found(premises.Quote("x", paraphrase), "deq")
    assert "blog names no time" not in DEQ["deq-early-organisation"].how


def test_both_readings_of_where_f_acts_are_declared():
    """The blog's displayed update corrects m; the code that produced 99.1 % corrects g: the claims on the blog model
    say which reading they are decided on and try the other."""
    for claim_id in ("deq-mnist-accuracy", "deq-anderson", "deq-learned-onsager"):
        c = DEQ[claim_id]
        assert "6c9687d" in c.reading and any(a.kind == "reading" and "on the means m" in a.name or
                                               a.name.startswith("f_θ on m") for a in c.alternatives), claim_id


# --- the per-seed numbers behind each paired comparison -----------------------------------------------------------

@needs_stored
@pytest.mark.parametrize("ref, var, key", [("blog", "naive", "gain_naive"), ("blog", "mixer", "gain_mixer"),
                                           ("blog", "softmax", "gain_softmax"), ("m", "naive", "gain_m_over_naive")])
def test_the_per_seed_differences_variances_and_discordant_digits_are_the_stored_bits(ref, var, key):
    rows = json.loads((ROOT / "data" / "full" / "deq_variants.json").read_text())["rows"]
    by = {(r["key"], r["seed"]): r for r in rows}
    d, v, n10, n01 = [], [], [], []
    for seed in (0, 1, 2):
        a = unpack_correct(by[(ref, seed)]["correct"], 10_000)
        b = unpack_correct(by[(var, seed)]["correct"], 10_000)
        n10.append(int((a & ~b).sum())), n01.append(int((~a & b).sum()))
        d.append((n10[-1] - n01[-1]) / 100)
        v.append(1e4 * ((n10[-1] + n01[-1]) / 1e4 - ((n10[-1] - n01[-1]) / 1e4) ** 2) / 1e4)
    assert STORED[f"{key}_d"] == pytest.approx(d, abs=1e-12) and STORED[f"{key}_v"] == pytest.approx(v, rel=1e-12)
    assert STORED[f"{key}_n10"] == n10 and STORED[f"{key}_n01"] == n01
    pooled = stats.pooled_over_seeds(d, v)
    assert STORED[f"{key}_lo"] == pytest.approx(pooled["lo"], abs=1e-9)


# --- the learned correction: fragile under the alternatives a referee tries ----------------------------------------

@needs_stored
def test_the_learned_correction_is_not_decided_by_an_inconclusive_interval():
    """Per-seed gains +0.18, +0.18, 0.00 (59/41, 60/42, 57/57 discordant digits: seed 2 ties): the truncated
    Hartung-Knapp interval (primary, −0.13 to +0.38), the untruncated one and a t-interval over the seeds cover both a
    gain and none: inconclusive, neither shown nor excluded, so not tested (not graded as if shown, not refuted). The
    exact paired test over the 30,000 digits pooled (p = 0.049), the fixed-effect pooling (+0.12, +0.01 to +0.24, a
    referee's recomputation) and the training loss show a gain, and naive mean field (98.99 %) meets the blog's
    accuracy claim: with differences, so they move it (fragile); on the reading f_θ on m the exact pooled test finds
    the correction on m worse than none (refuted). A sign test over three seeds cannot decide."""
    assert STORED["gain_naive_d"] == pytest.approx([0.18, 0.18, 0.0], abs=1e-9)
    assert STORED["gain_naive_n10"] == [59, 60, 57] and STORED["gain_naive_n01"] == [41, 42, 57]
    assert STORED["gain_naive_lo"] < 0 and stats.pooled_over_seeds(STORED["gain_naive_d"], STORED["gain_naive_v"],
                                                                   truncate=False)["lo"] < 0
    d = _decide("deq-learned-onsager")
    assert d.verdict == "not tested" and d.premises["robustness"] == "fragile"
    assert "inconclusive" in d.note and "neither shown nor excluded" in d.note
    alts = {a["name"].split(" over")[0].split(",")[0].split(" of the")[0]: a["verdict"] for a in d.premises["alternatives"]}
    assert alts["untruncated Hartung-Knapp interval"] == alts["Student-t interval"] == "cannot decide"
    assert alts["exact paired test"] == "confirmed with differences"
    assert alts["fixed-effect pooling"] == "confirmed with differences"
    assert alts["sign test"] == alts["exact signed-rank test"] == "cannot decide"
    assert "f_θ on m: exact paired test over the items, pooled over the seeds (the trained models as fixed)" in \
        d.premises["moved_by"]
    from mfattn.implicit.claims_deq_mnist import fixed_effect_interval
    effect, lo, hi = fixed_effect_interval(STORED)
    assert (round(effect, 3), round(lo, 3), round(hi, 3)) == (0.125, 0.009, 0.241)
    assert "exact paired test over the 30,000 digits pooled p = 0.049" in d.note


@pytest.mark.parametrize("lo, hi, grade", [(-0.04, 0.48, None), (-0.5, 1e-6, None), (-0.5, 0.0, "fails"),
                                           (-math.inf, math.inf, None), (0.01, 0.5, "partly")])
def test_no_rule_of_chapter_2_turns_an_inconclusive_interval_into_a_refutation(lo, hi, grade):
    """An interval that covers both a gain and none (or a test that does not reject: −∞ to +∞) is inconclusive: the
    learned correction is then not decided (not tested), never 'fails' and never graded as if the gain were shown; only
    an interval at or below 0 refutes. The learning half of the initial scale grades it with differences, at each
    larger scale; and the plain-iteration comparison is not tested (not refuted) where its positive control, Anderson,
    fails."""
    naive_meets = {"var_naive": 98.9}
    numbers = {"gain_naive_lo": lo, "gain_naive_hi": hi, **naive_meets}
    if grade is None:
        with pytest.raises(verdicts.Undecidable, match="inconclusive"):
            DEQ["deq-learned-onsager"].rule(numbers)
    else:
        assert DEQ["deq-learned-onsager"].rule(numbers) == grade
    top = {"init_top_factor": 10.0, "init_gain_x10_lo": -1.0, "init_gain_x10_hi": 1.0}
    from mfattn.implicit.claims_deq_layer import _init_learning_decide
    assert _init_learning_decide(top, (lo + hi) / 2, lo, hi) == ("fails" if grade == "fails" else "partly")
    with pytest.raises(verdicts.Undecidable, match="Anderson itself"):
        DEQ["deq-anderson-plain"].rule({"blog_conv_late_seeds": [0.4, 0.9], "var_plain_conv_late_seeds": [0.1, 0.1]})


def test_the_learned_correction_is_robust_where_the_statistics_agree():
    """Three seeds that all gain 0.4 points with a clear margin: every statistic confirms, nothing moves it."""
    s = {"gain_naive": 0.4, "gain_naive_lo": 0.2, "gain_naive_hi": 0.6, "var_naive": 98.7, "var_naive_sd": 0.05,
         "var_naive_seeds": 3, "gain_naive_d": [0.35, 0.4, 0.45], "gain_naive_v": [0.01] * 3,
         "gain_naive_n10": [80] * 3, "gain_naive_n01": [40] * 3, "gain_m_over_naive": 0.4, "gain_m_over_naive_lo": 0.1,
         "gain_m_over_naive_d": [0.4] * 3, "gain_m_over_naive_v": [0.01] * 3, "gain_m_over_naive_n10": [80] * 3,
         "gain_m_over_naive_n01": [40] * 3, "acc_list": [99.1] * 3, "acc_sd": 0.05}
    c = DEQ["deq-learned-onsager"]
    assert c.grade(s) == "holds"
    got = verdicts.sensitivity("holds", c.all_alternatives(s), s, c.verdict_of)
    assert got["robustness"] == "robust"


@needs_stored
def test_the_learning_half_of_the_init_scale_claim_is_fragile_at_root_ten():
    """Five epochs, three seeds: at √10 σ seed 0 broke down (a gain of +80 points) while seeds 1 and 2 lost 0.17 points
    each: no pooled interval over the seeds excludes 0, the exact paired test over the digits does; at 10^0.75 σ and
    10 σ training broke down in every seed. Stability: lost at every larger scale, robust."""
    assert STORED["init_gain_x3.16_d"] == pytest.approx([80.08, 0.17, 0.17], abs=1e-9)
    learning = _decide("deq-init-scale-learning")
    assert learning.verdict == "confirmed with differences" and learning.premises["robustness"] == "fragile"
    assert learning.premises["moved_by"] == ["exact paired test over the items, pooled over the seeds (the trained "
                                             "models as fixed)",
                                             "reading: the largest scale alone (10 σ), as deq-init-scale reads the "
                                             "stability half"]
    stability = _decide("deq-init-scale")
    assert stability.verdict == "confirmed" and stability.premises["robustness"] == "robust"   # ours: the neural layer


# --- thresholds: their reasons hold of the stored data, and a changed dataset could refute them --------------------

FALSIFY = [("deq-mnist-accuracy", "band", {"acc_sd": 0.2}), ("deq-learned-onsager", "floor", {"acc_sd": 0.2}),
           ("deq-mixer-couplings", "margin", {"pair_se_near_max": 0.2}),
           ("deq-softmax-couplings", "margin", {"var_blog_sd": 0.3}),
           ("deq-implicit-gradient", "exact", {"grad_rel_error": 1e-5}),
           ("deq-one-step-mnist", "equal", {"acc_sd": 0.2}), ("deq-stability-training", "z", {"rho_train_changes": 3}),
           ("deq-energy", "tol", {"corr_asymmetry": 5e-6}), ("deq-cls-organisation", "apart", {"cls_gap_late_sd": 0.01})]


@needs_stored
@pytest.mark.parametrize("claim_id, name, change", FALSIFY, ids=[f"{c}:{n}" for c, n, _ in FALSIFY])
def test_each_thresholds_check_holds_of_the_stored_data_and_can_say_no(claim_id, name, change):
    threshold = next(t for t in DEQ[claim_id].thresholds if t.name == name)
    assert threshold.check(STORED)[0], threshold.check(STORED)[1]
    assert not threshold.check({**STORED, **change})[0]


def test_every_checked_threshold_of_chapter_2_is_tried_to_fail():
    checked = {(c.id, t.name) for c in DEQ.values() for t in c.thresholds if t.check is not None}
    tried = {(c, n) for c, n, _ in FALSIFY} | {("deq-softmax-couplings", "margin")}
    assert checked <= tried, sorted(checked - tried)


@needs_stored
def test_the_coupling_swap_margin_is_the_seed_spread_plus_three_stored_paired_ses():
    """The margin's reason names the paired SE of two models near 99 %: the stored per-seed paired SEs of the
    variants within a point of the blog model (naive, m) reach 0.113, so 0.089 + 3 × 0.113 = 0.43, within the check's
    0.05 of 0.40. Every seed graded alone: the mixer's seed 1 never learned the task (30.74 %, below the 92 % floor):
    refuted; its median seed (98.67, 0.44 below 99.11) would read with differences. The softmax seeds (95.07, 96.21,
    93.32 %) end below the mean-pooled linear readout of their own conv features in seeds 0 and 2 (96.45, 96.36 %):
    refuted; against the raw-pixel floor alone (92 %) they would read with differences (fragile)."""
    near = [se for k in ("naive", "m") for se in STORED[f"gain_{k}_se"]]     # the variants within a point
    assert max(near) == pytest.approx(STORED["pair_se_near_max"]) and 0.11 < max(near) < 0.12
    assert abs(claims.INTERACTION_MARGIN - (STORED["var_blog_sd"] + 3 * max(near))) < 0.05   # the check's tolerance
    mixer = _decide("deq-mixer-couplings")       # median 98.67: 0.44 below 99.11, outside the 0.40 margin
    # seed 0 is 0.15 points under its flattened front end, not measurably (paired one-sided p 0.12): with differences
    assert mixer.verdict == "confirmed with differences" and mixer.premises["robustness"] == "fragile"
    assert "seed 1 never learned the task" in mixer.note and "Learns MNIST in 2 of 3 seeds" in mixer.note
    softmax = _decide("deq-softmax-couplings")
    assert softmax.verdict == "refuted" and softmax.premises["robustness"] == "fragile"
    rows = {a["name"]: a["verdict"] for a in softmax.premises["alternatives"]}
    assert rows["the raw-pixel floor alone (92 %), the conv features' own floor not counted"] == \
        "confirmed with differences"
    assert rows["the front end's other readout (flattened, with positions, the same seed)"] == "refuted"
    assert STORED["floor_mean_acc_list"] == pytest.approx([96.45, 96.08, 96.36], abs=0.005)
    assert all(98.8 < x < 99.0 for x in STORED["floor_flat_acc_list"])
    assert "seeds 0, 2 of this variant end at or below the mean-pooled floor" in softmax.note


@needs_stored
@pytest.mark.parametrize("key", ["softmax", "mixer"])
def test_the_blogs_large_scale_claim_on_other_couplings_is_declared_and_left_undecided(key):
    """§4.4 speaks of swapping the mixing function in the large-scale regime, inside a transformer: a 26k MNIST layer
    does not test it. The MNIST result is ours; the blog's reading is declared, and cannot be decided here."""
    c = DEQ[f"deq-{key}-couplings"]
    assert c.origin == "ours" and "large-scale" in c.reading
    d = _decide(c.id)
    row = next(a for a in d.premises["alternatives"] if a["name"].startswith("the blog's own claim (§4.4)"))
    assert row["verdict"] == "cannot decide" and "large-scale regime" in row["why"]


def test_the_asymmetry_words_match_the_function():
    """0 for an energy, about 1 for random couplings with internal symmetry only, ∞ for an antisymmetric M (the
    function's own values); the norm matrix gives a lower bound of it (the alternative that needs only the frames)."""
    g = torch.Generator().manual_seed(0)
    n, d = 6, 4
    raw = torch.randn(n, n, d, d, generator=g, dtype=torch.float64)
    anti = raw - raw.permute(1, 0, 3, 2)
    assert coupling_asymmetry(anti) == math.inf and coupling_asymmetry(raw + raw.permute(1, 0, 3, 2)) == 0.0
    values, bounds = [], []
    for _ in range(200):
        J = torch.randn(n, n, d, d, generator=g, dtype=torch.float64)
        J = (J + J.transpose(-1, -2)) / 2
        J[range(n), range(n)] = 0
        values.append(coupling_asymmetry(J))
        bounds.append(_norm_asymmetry(torch.linalg.norm(J, dim=(-2, -1)).numpy()) <= values[-1] + 1e-12)
    assert abs(np.mean(values) - 1) < 0.05 and all(bounds)
    measured = DEQ["deq-energy"].measured
    assert "∞ for an antisymmetric M" in measured and "1 for an antisymmetric" not in measured


# --- spread: one seed caps the grade ------------------------------------------------------------------------------

ONE_SEED = ("deq-one-step-mnist", "deq-stability-training", "deq-correction-onsager-form", "deq-energy",
            "deq-early-organisation", "deq-cls-organisation")


@needs_stored
@pytest.mark.parametrize("claim_id", ONE_SEED)
def test_claims_once_on_seed_0_alone_now_rest_on_three_seeds(claim_id):
    """Issue 41, item 10: the analyses that read seed 0 alone run on every stored seed; each claim's spread holds three
    seeds' values and no one-seed cap applies (a one-unit spread would still be capped: the last line)."""
    spread = premises.spread_of(DEQ[claim_id].spread, STORED)
    assert spread["n"] == 3 and "one_suffices" not in spread
    assert all(len(v) == 3 for v in spread["values"].values())
    assert premises.one_unit_cap({**spread, "n": 1})("holds") == "partly"


@needs_stored
def test_only_the_implicit_gradient_says_why_one_trained_layer_suffices():
    spread = premises.spread_of(DEQ["deq-implicit-gradient"].spread, STORED)
    assert spread["n"] == 1 and "identity" in spread["one_suffices"]
    assert [c.id for c in DEQ.values() if c.spread.one_suffices] == ["deq-implicit-gradient"]


@needs_stored
def test_the_stored_verdicts_of_chapter_2_and_what_moves_them():
    expected = {"deq-mnist-accuracy": ("reproduced", "robust"), "deq-anderson": ("confirmed with differences", "fragile"),
                "deq-anderson-plain": ("confirmed with differences", "fragile"), "deq-implicit-gradient": ("confirmed", "robust"),
                "deq-learned-onsager": ("not tested", "fragile"),   # inconclusive; the fixed-effect pooling shows a gain
                "deq-softmax-couplings": ("refuted", "fragile"),   # below its own front end read linearly
                "deq-mixer-couplings": ("confirmed with differences", "fragile"),   # seed 0 below its front end's flattened readout
                "deq-mixer-reliability": ("confirmed with differences", "robust"),  # 1 of 3, p = 0.5
                "deq-softmax-reliability": ("confirmed", "fragile"),
                "deq-anderson-public": ("refuted", "robust"),
                "deq-one-step-mnist": ("refuted", "robust"),
                "deq-stability-training": ("not tested", "fragile"),   # a trend ‖J‖_F shares: not shown either way
                "deq-correction-onsager-form": ("refuted", "robust"),      # ours: the cosine is at chance level
                "deq-energy": ("refuted", "robust"), "deq-init-scale": ("confirmed", "robust"),
                "deq-init-scale-learning": ("confirmed with differences", "fragile"),
                "deq-early-organisation": ("not reproduced", "robust"),
                "deq-cls-organisation": ("confirmed", "robust")}
    got = {c.id: (d.verdict, d.premises.get("robustness")) for c, d in verdicts.decide_chapter(ROOT, "deq")}
    assert got == expected


# --- boundary cases: each threshold just either side ----------------------------------------------------------------

U = 1 / 17
BOUNDARY_CASES = [
    ("deq-anderson-public", {"ref_anderson_conv_last_seeds": [0.9, 0.95]}, "holds"),
    ("deq-anderson-public", {"ref_anderson_conv_last_seeds": [0.8999, 0.95]}, "partly"),
    ("deq-anderson-public", {"ref_anderson_conv_last_seeds": [0.4999, 0.95]}, "fails"),
    ("deq-mixer-reliability", {"var_mixer_acc_list": [50.0, 99.0, 99.0], "acc_list": [99.1] * 3}, "holds"),
    ("deq-mixer-reliability", {"var_mixer_acc_list": [49.99, 99.0, 99.0, 99.0, 99.0], "acc_list": [99.1] * 5},
     "partly"),
    ("deq-mixer-reliability", {"var_mixer_acc_list": [49.99, 99.0, 99.0], "acc_list": [99.1] * 3}, "partly"),
    ("deq-mixer-reliability", {"var_mixer_acc_list": [49.99] * 5, "acc_list": [99.1] * 5}, "fails"),
    ("deq-softmax-reliability", {"var_softmax_acc_list": [50.0, 99.0, 99.0], "acc_list": [99.1] * 3}, "holds"),
    ("deq-softmax-reliability", {"var_softmax_acc_list": [49.99, 99.0, 99.0, 99.0, 99.0], "acc_list": [99.1] * 5},
     "partly"),
    ("deq-softmax-reliability", {"var_softmax_acc_list": [49.99] * 5, "acc_list": [99.1] * 5}, "fails"),
    ("deq-mnist-accuracy", {"acc_mean": 99.3999}, "holds"), ("deq-mnist-accuracy", {"acc_mean": 99.41}, "partly"),
    ("deq-mnist-accuracy", {"acc_mean": 98.1}, "partly"), ("deq-mnist-accuracy", {"acc_mean": 98.09}, "fails"),
    ("deq-anderson", {"blog_conv_late_seeds": [0.95, 0.9]}, "holds"),
    ("deq-anderson", {"blog_conv_late_seeds": [0.95, 0.8999]}, "partly"),
    ("deq-anderson", {"blog_conv_late_seeds": [0.5, 0.95]}, "partly"),
    ("deq-anderson", {"blog_conv_late_seeds": [0.4999, 0.95]}, "fails"),
    ("deq-anderson-plain", {"blog_conv_late_seeds": [0.9, 0.95], "var_plain_conv_late_seeds": [0.4999, 0.1]}, "holds"),
    ("deq-anderson-plain", {"blog_conv_late_seeds": [0.9, 0.95], "var_plain_conv_late_seeds": [0.5, 0.1]}, "partly"),
    ("deq-anderson-plain", {"blog_conv_late_seeds": [0.8999, 0.95], "var_plain_conv_late_seeds": [0.1, 0.1]}, "partly"),
    ("deq-anderson-plain", {"blog_conv_late_seeds": [0.4999, 0.95], "var_plain_conv_late_seeds": [0.1, 0.1]}, None),
    ("deq-anderson-plain", {"blog_conv_late_seeds": [0.95, 0.96], "var_plain_conv_late_seeds": [0.95, 0.1]}, "fails"),
    ("deq-learned-onsager", {"gain_naive_lo": 1e-4, "gain_naive_hi": 0.5, "var_naive": 98.7999}, "holds"),
    ("deq-learned-onsager", {"gain_naive_lo": 1e-4, "gain_naive_hi": 0.5, "var_naive": 98.8}, "partly"),
    ("deq-learned-onsager", {"gain_naive_lo": -0.5, "gain_naive_hi": 0.0, "var_naive": 90.0}, "fails"),
    # every seed graded alone, the claim as far as every seed shows it
    ("deq-mixer-couplings", {"var_mixer_acc_list": [98.801, 99.0, 99.3], "var_blog": 99.2}, "holds"),
    ("deq-mixer-couplings", {"var_mixer_acc_list": [98.8, 99.0, 99.3], "var_blog": 99.2}, "partly"),
    ("deq-softmax-couplings", {"var_softmax_acc_list": [92.001, 99.0, 99.3], "var_blog": 99.2}, "partly"),
    ("deq-softmax-couplings", {"var_softmax_acc_list": [92.0, 99.0, 99.3], "var_blog": 99.2}, "fails"),
    ("deq-softmax-couplings", {"var_softmax_acc_list": [98.801, 98.9, 99.0], "var_blog": 99.2}, "holds"),
    ("deq-mixer-couplings", {"var_mixer_acc_list": [98.9, 92.0, 99.0], "var_blog": 99.2}, "fails"),
    ("deq-implicit-gradient", {"grad_rel_error": 1e-4, "grad_converged": True}, "holds"),
    ("deq-implicit-gradient", {"grad_rel_error": 1.001e-2, "grad_converged": True}, "fails"),
    ("deq-implicit-gradient", {"grad_rel_error": 1e-2, "grad_converged": True}, "partly"),
    ("deq-one-step-mnist", {"step_gap": 0.3}, "holds"), ("deq-one-step-mnist", {"step_gap": 0.3001}, "partly"),
    ("deq-one-step-mnist", {"step_gap": 1.0}, "partly"), ("deq-one-step-mnist", {"step_gap": 1.0001}, "fails"),
    ("deq-stability-training", {"rho_train_changes": 16, "rho_train_change_corr": 0.4901, "rho_train_corr": 0.1}, "holds"),
    ("deq-stability-training", {"rho_train_changes": 16, "rho_train_change_corr": 0.49, "rho_train_corr": 0.5001}, "partly"),
    ("deq-stability-training", {"rho_train_changes": 16, "rho_train_change_corr": 0.49, "rho_train_corr": 0.5}, "fails"),
    ("deq-stability-training", {"rho_train_changes": 16, "rho_train_change_corr": -0.4901, "rho_train_corr": 0.9}, "fails"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": 0.9001}, "holds"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": -0.5001}, "partly"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": 0.4999}, "fails"),
    ("deq-energy", {"corr_asymmetry": 9.99e-7}, "holds"), ("deq-energy", {"corr_asymmetry": 1e-6}, "partly"),
    ("deq-energy", {"corr_asymmetry": 0.0999}, "partly"), ("deq-energy", {"corr_asymmetry": 0.1}, "fails"),
    ("deq-init-scale", {"init_conv_blog": 1.0, "init_conv_top": 0.4999, "init_broke": 0, "init_conv_top_max": 0.6,
                        "init_conv_blog_min": 1.0}, "holds"),
    ("deq-init-scale", {"init_conv_blog": 1.0, "init_conv_top": 0.5, "init_broke": 0, "init_conv_top_max": 0.6,
                        "init_conv_blog_min": 1.0}, "partly"),
    ("deq-init-scale", {"init_conv_blog": 1.0, "init_conv_top": 0.9, "init_broke": 0, "init_conv_top_max": 1.0,
                        "init_conv_blog_min": 1.0}, "fails"),
    ("deq-init-scale-learning", {"init_gain_lo_min": 1e-4, "init_gain_lo": 1e-4, "init_gain_hi_min": 1.0}, "holds"),
    ("deq-init-scale-learning", {"init_gain_lo_min": 0.0, "init_gain_lo": 1e-4, "init_gain_hi_min": 1.0}, "partly"),
    ("deq-init-scale-learning", {"init_gain_lo_min": 0.0, "init_gain_lo": 0.0, "init_gain_hi_min": 1e-4}, "partly"),
    ("deq-init-scale-learning", {"init_gain_lo_min": 0.0, "init_gain_lo": 0.0, "init_gain_hi_min": 0.0}, "fails"),
    ("deq-early-organisation", {"epoch1_corr": 0.9, "epoch1_closed": 0.5}, "holds"),
    ("deq-early-organisation", {"epoch1_corr": 0.9, "epoch1_closed": 0.4999}, "partly"),
    ("deq-early-organisation", {"epoch1_corr": 0.8999, "epoch1_closed": 0.4999}, "fails"),
    ("deq-cls-organisation", {"cls_row_share": 0.065, "patch_row_share_max": 0.06, "row_share_init_spread": 0.0049,
                              "uniform_row_share": U}, "holds"),
    ("deq-cls-organisation", {"cls_row_share": 0.065, "patch_row_share_max": 0.06, "row_share_init_spread": 0.00501,
                              "uniform_row_share": U}, "partly"),
    ("deq-cls-organisation", {"cls_row_share": U, "patch_row_share_max": 0.06, "row_share_init_spread": 0.004,
                              "uniform_row_share": U}, "fails"),
]


@pytest.mark.parametrize("claim_id, numbers, grade", BOUNDARY_CASES)
def test_chapter_2_rules_either_side_of_each_threshold(claim_id, numbers, grade):
    check_case(DEQ[claim_id], numbers, grade)


def test_every_chapter_2_rule_has_boundary_cases_of_each_grade():
    check_every_rule_covered(BOUNDARY_CASES, list(DEQ.values()))


# --- the referee's findings on chapter 2 (issue 40): premises answered from the stored numbers --------------------------

@needs_stored
def test_the_correction_claim_reads_the_reaction_term_it_replaces():
    """The blog's f_θ stands in for V_i⟨S_i⟩, 'the action of the cavity variances on the spin means': the verdict reads
    that term (cosine 0.04 with f_θ, at the chance level of random site-shared maps: refuted; the claim that a
    trained f_θ equals the term is ours). The Gaussian correction (I − P⁻¹) g, a prior's local response that
    naive mean field with a learned prior has too, is reported but is no reading of the claim."""
    c = DEQ["deq-correction-onsager-form"]
    assert "cavity variances on the spin means" in c.quote.text and "reaction term" in c.reading
    d = _decide(c.id)
    assert d.verdict == "refuted" and d.premises["robustness"] == "robust" and c.origin == "ours"
    assert abs(STORED["corr_reaction_cosine"]) < 0.1 and 0.25 <= STORED["corr_r2_gaussian"] < 0.36
    assert not any("Gaussian correction" in a.name for a in c.alternatives)
    assert "prior's local response" in d.note and f"{STORED['corr_r2_gaussian']:.3f}" in d.note
    assert "the cosine seed by seed: 0.0387, 0.0369, 0.0706" in d.note


@needs_stored
def test_the_early_organisation_is_read_as_almost_all_and_the_lenient_rung_is_declared():
    """After one epoch the pattern correlates 0.755, 0.806 and 0.706 with the final one in seeds 0-2 (57, 65 and 50 %
    of its variance) and 20-23 % of the way is covered. 'Almost all' read as written (both aspects at their 'holds'
    lines, either one for 'with differences'): no seed is near a line (largest 0.806 against 0.9), not reproduced in
    every seed, at every frame read up to 5 epochs, on every correlation; robust. The former lenient rung (√½ ≈ 0.7071
    counted as partial), on which seed 2 sat 0.001 below, is a declared alternative that agrees."""
    d = _decide("deq-early-organisation")
    assert d.verdict == "not reproduced" and d.premises["robustness"] == "robust"
    rows = {a["name"]: a["verdict"] for a in d.premises["alternatives"]}
    assert all(v == "not reproduced" for v in rows.values())
    assert any(n.startswith("'most of the shape' counts as partial") for n in rows)
    assert all(x < 0.6 for x in STORED["epoch1_corr_rank_seeds"]) and 0.02 < STORED["epoch1_corr_step"] < 0.04
    assert d.note.startswith("The lenient rung") and "largest correlation after one epoch is 0.806" in d.note
    corr = STORED["epoch1_corr_seeds"]
    assert max(corr) < 0.9 - STORED["epoch1_corr_step"] and 0 < 0.5 ** 0.5 - corr[2] < 0.0015
    assert max(STORED["mid_corr_seeds"]) < 0.9 + 0.01 and max(STORED["mid_closed_seeds"]) < 0.5


def test_the_explicit_layer_loses_its_fixed_point_at_the_larger_initial_scales():
    """The blog says the initial scale is crucial for its explicit adaptive-TAP layer (§3.3): at initialisation, at the
    MNIST sizes (N = 17, d = 10), ten draws per scale, I − J is positive definite at σ (smallest eigenvalue about 0.69)
    and the forward solve (Anderson, 40 evaluations, 1e-4) converges for every source; at √10 σ positive definite in 9
    of 10 draws but nearly singular in all (below 0.06) and the solve converges for 12.5 % of the sources; at 10 σ
    indefinite in every draw (χ not positive semidefinite) and the solve converges for none. The numbers the note of
    deq-init-scale quotes."""
    import warnings

    from mfattn.implicit.claims_deq_layer import EXPLICIT_AT_INIT
    from mfattn.implicit.meanfield import couplings_to_matrix
    from mfattn.implicit.vector_tap import VectorSpinTAP

    n, d = 17, 10
    got = {}
    for factor in (1.0, 10 ** 0.5, 10.0):
        low, conv = [], []
        for seed in range(10):
            g = torch.Generator().manual_seed(seed)
            layer = VectorSpinTAP(n, d, weight_init_std=factor / math.sqrt(n * d * d), generator=g, max_iter=40,
                                  tol=1e-4)
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                M = couplings_to_matrix(layer.couplings()).double()
                low.append(float(torch.linalg.eigvalsh(torch.eye(n * d, dtype=torch.float64) - M).min()))
                layer(torch.randn(8, n, d, generator=g))
            conv.append(float(layer.last_stats["magnetisation"]["forward"].converged.float().mean()))
        got[factor] = (np.array(low), float(np.mean(conv)))
    low, conv = got[1.0]
    assert (low > 0.65).all() and (low < 0.72).all() and conv == 1.0
    low, conv = got[10 ** 0.5]
    assert (low > 0).sum() == 9 and low.max() < 0.06 and conv == pytest.approx(0.125)
    low, conv = got[10.0]
    assert (low < -1.9).all() and conv == 0.0
    assert "10 of 10 draws at σ" in EXPLICIT_AT_INIT and "9 of 10 at √10 σ" in EXPLICIT_AT_INIT
    assert "12.5 % of them at √10 σ" in EXPLICIT_AT_INIT and "below 0.06" in EXPLICIT_AT_INIT


@needs_stored
def test_the_chapters_typed_numbers_on_the_other_couplings_are_the_stored_ones():
    """The variant paragraph types no number of the stored table and no word that depends on one: the naive gain, the
    softmax and mixer accuracies, their gaps and floors come by glue from :mod:`mfattn.implicit.claims_deq_prose`
    (a re-run once made "below the blog model in each seed" false while the prose kept it); the breakdown of an older
    softmax run (14 %, commit 226f19f) is not described as the stored result."""
    prose = _markdown()
    flat = " ".join(prose.split())
    for key in claims_deq_prose.KEYS + ("verdict-deq-learned-onsager", "verdict-deq-softmax-couplings",
                                         "verdict-deq-mixer-couplings"):
        if key not in ("full-mixer-accs", "full-mixer-median", "full-mixer-mean", "full-mixer-floor",
                       "full-mixer-former-floor", "full-mixer-losses"):
            assert "{glue:text}`" + key + "`" in flat, key
    for typed in ("below the blog model of the same seed in each", "+0.13, +0.25 and +0.28", "94.90 %", "0.46 points",
                  "about twice as high", "practically every forward solve"):
        assert typed not in flat, typed
    sm = STORED.get("var_softmax_acc_list", [])
    assert all(f"{a:.2f} %" not in flat for a in sm)
    assert "the run ended at 14 %" not in prose and "names the breakdown" not in prose
    older = [" ".join(par.split()) for par in prose.split("\n\n") if "at 14 %" in " ".join(par.split())]
    assert older and all("older code (commit 226f19f) and since re-run" in par for par in older)
    assert "where a trained layer tends to sit" not in prose
    flat = " ".join(prose.split())
    assert "median spectral radius {glue:text}`full-rho-blog-median`" in flat
    assert "above 1 for {glue:text}`full-rho-blog-unstable` of those measured" in flat
    # the correction, energy, early-organisation and stability-training paragraphs read every seed's stored number by
    # glue (no typed copy a re-run could leave behind); the few they still type are the stored runs' own
    for key in ("full-corr-reaction-cosine-seeds", "full-corr-r2-gaussian", "full-corr-r2-affine",
                "full-corr-asymmetry-seeds", "full-epoch1-corr-seeds", "full-epoch1-closed-seeds",
                "full-rho-train-change-corr-seeds", "full-res-train-change-corr-seeds",
                "full-rho-train-heldout-r2-seeds", "verdict-deq-early-organisation", "verdict-deq-stability-training",
                "verdict-deq-correction-onsager-form", "verdict-deq-energy"):
        assert "{glue:text}`" + key + "`" in flat, key
    assert "from below by about {glue:text}`full-norm-asymmetry-bound`" in flat
    corr = STORED.get("epoch1_corr_seeds", [STORED["epoch1_corr"]])
    if len(corr) == 3:   # "seed 2 misses that rung by about 0.001" (the lenient rung, a declared alternative)
        from mfattn.implicit.claims_deq_organisation import EARLY_MOST
        assert corr[0] > EARLY_MOST and corr[1] > EARLY_MOST and 0 < EARLY_MOST - corr[2] < 0.0015
        assert "seed 2 misses that rung by about 0.001" in flat
        first = STORED["first_corr_seeds"], STORED["first_closed_seeds"]
        assert f"the correlations are {min(first[0]):.2f} to {max(first[0]):.2f}" in flat
        assert f"{100 * min(first[1]):.0f} to {100 * max(first[1]):.0f} % of the way" in flat


def test_a_trend_the_placebos_share_cannot_decide_the_stability_claim():
    """A referee's control: where ρ's changes do not co-move beyond the band and the couplings' norm or log step track
    the work as well as ρ in levels, the claim is not shown (undecidable), not refuted; ρ ahead of both placebos is
    'with differences'; co-moving changes ahead of the norm's hold; anti-correlated changes refute."""
    from mfattn.implicit.claims_deq_stability import _co_moving_at
    rule = _co_moving_at(1.96, 0.5)
    s = {"rho_train_changes": 19, "rho_train_change_corr": 0.2, "rho_train_corr": 0.95, "placebo_jnorm_corr": 0.99,
         "placebo_logstep_corr": 0.9, "placebo_jnorm_change_corr": 0.1}
    with pytest.raises(verdicts.Undecidable, match="not shown"):
        rule(s)
    assert rule({**s, "placebo_jnorm_corr": 0.9}) == "partly"
    assert rule({**s, "rho_train_change_corr": 0.5}) == "holds"
    with pytest.raises(verdicts.Undecidable):       # co-moving, but no more than the couplings' norm does
        rule({**s, "rho_train_change_corr": 0.5, "placebo_jnorm_change_corr": 0.6})
    assert rule({**s, "rho_train_change_corr": -0.5}) == "fails"
    assert _co_moving_at(1.96, 0.5, placebo=False)(s) == "partly"


@needs_stored
def test_the_mixer_verdict_rests_on_the_seed_that_did_not_learn_not_on_the_margin():
    """MLP-mixer couplings: 98.67, 30.74 and 98.96 %. The accuracy claim grades the runs that learned against the front
    end read with the mixer's access to positions (flattened: 98.82, 98.94 %): seed 0 is 0.15 points under it, but on
    the same test digits 76 against 61 discordant (one-sided exact McNemar p = 0.12), not measurably below: with
    differences (measurably below learned J); read with no paired test it would be refuted (fragile). The broken run
    is the reliability claim's, which three runs cannot decide (3 of 3 against 0 of 3 would have p = 0.05)."""
    d = _decide("deq-mixer-couplings")
    assert d.verdict == "confirmed with differences" and d.premises["robustness"] == "fragile"
    assert STORED["floor_flat_mixer_n10_list"][0] == 76 and STORED["floor_flat_mixer_n01_list"][0] == 61
    assert 0.1 < STORED["floor_flat_mixer_p_list"][0] < 0.15
    assert any(m.startswith("the front end's accuracy as the floor with no paired test") for m in d.premises["moved_by"])
    assert "not measurably below" in d.note
    soft = STORED["floor_mean_softmax_p_list"]
    assert soft[0] < 1e-6 and soft[2] < 1e-6        # softmax seeds 0 and 2 are measurably below their front end
    assert d.note.startswith("Graded over the runs whose training learned the task (98.67 % and 98.96 %")
    r = _decide("deq-mixer-reliability")
    assert r.verdict == "confirmed with differences"   # 1 of 3 broke down, not significantly more often (p = 0.5)


def test_the_reliability_claims_count_the_runs_that_broke_down():
    """The breakdown test is the hypergeometric tail (Fisher exact, one-sided), checked by enumeration; the rule
    reaches every outcome: none broke down holds, some but not significantly more than the blog model's partly,
    significantly more fails; three seeds cannot refute (3 of 3 against 0 of 3 has p = 0.05, not below it), so a
    breakdown among three runs is not tested."""
    import itertools
    from mfattn.implicit.claims_deq_couplings import breakdown_p

    def enumerated(broke, runs, ref_broke, ref_runs):
        k, total = broke + ref_broke, runs + ref_runs
        draws = list(itertools.combinations(range(total), k))
        return sum(sum(i < runs for i in d) >= broke for d in draws) / len(draws)
    for case in ((1, 3, 0, 3), (3, 3, 0, 3), (2, 5, 1, 4), (0, 3, 0, 3)):
        assert breakdown_p(*case) == pytest.approx(enumerated(*case), abs=1e-12)
    assert breakdown_p(1, 3, 0, 3) == pytest.approx(0.5) and breakdown_p(3, 3, 0, 3) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="broke"):
        breakdown_p(4, 3, 0, 3)
    rule = DEQ["deq-mixer-reliability"].rule
    assert rule({"var_mixer_acc_list": [98.0, 97.0, 99.0], "acc_list": [99.1] * 3}) == "holds"
    assert rule({"var_mixer_acc_list": [98.0, 30.0, 99.0], "acc_list": [99.1] * 3}) == "partly"   # as worded
    from mfattn.implicit.claims_deq_couplings import _reliability_at
    with pytest.raises(verdicts.Undecidable, match="so few runs"):     # the former rule, a declared reading
        _reliability_at(0.0499, power=True)({"var_mixer_acc_list": [98.0, 30.0, 99.0], "acc_list": [99.1] * 3}, "mixer")
    assert rule({"var_mixer_acc_list": [98.0, 30.0, 99.0, 98.0, 97.0], "acc_list": [99.1] * 5}) == "partly"
    assert rule({"var_mixer_acc_list": [30.0] * 4, "acc_list": [99.1] * 4}) == "fails"


@needs_stored
def test_the_front_end_floor_is_read_with_its_paired_test_and_the_earlier_breakdown_is_a_declared_reading():
    """The paired counts behind each variant's floor agree with the variant table's McNemar helper on the stored bits,
    and the one-sided p is the binomial tail. The softmax run that broke down on older code (commit 226f19f, 14.08 %,
    recorded in data/full/deq/earlier_runs.json) is counted in a declared reading of deq-softmax-reliability: 1 of 4
    against 0 of 3, not significantly more often, with differences: the verdict is fragile."""
    import math
    from pathlib import Path
    from mfattn.companion import store
    from mfattn.implicit.variants import mcnemar, unpack_correct
    root = Path(__file__).resolve().parents[1] / "data" / "full"
    floors = {r["seed"]: r for r in store.read_json(root / "deq" / "feature_floor.json")["rows"] if r["readout"] == "flat"}
    mixer = [r for r in store.read_json(root / "deq_variants.json")["rows"] if r["key"] == "mixer" and r["seed"] == 0][0]
    n = mixer["test_examples"]
    got = mcnemar(unpack_correct(floors[0]["correct"], n), unpack_correct(mixer["correct"], n))
    assert (got["b"], got["c"]) == (STORED["floor_flat_mixer_n10_list"][0], STORED["floor_flat_mixer_n01_list"][0])
    b, c = int(got["b"]), int(got["c"])
    assert STORED["floor_flat_mixer_p_list"][0] == pytest.approx(
        sum(math.comb(b + c, i) for i in range(b, b + c + 1)) / 2 ** (b + c))
    earlier = store.read_json(root / "deq" / "earlier_runs.json")
    assert earlier["commit"] == "226f19f" and [r["test_accuracy"] for r in earlier["runs"]] == [0.1408]
    d = _decide("deq-softmax-reliability")
    rows = {a["name"]: a["verdict"] for a in d.premises["alternatives"]}
    assert [v for k, v in rows.items() if k.startswith("every run of this protocol")] == ["confirmed with differences"]
    assert d.verdict == "confirmed" and d.premises["robustness"] == "fragile"


@needs_stored
def test_the_correction_form_is_also_read_on_the_models_whose_f_acts_on_the_means():
    """deq-correction-onsager-form on the stored m models (f_θ on the means, the blog's displayed update): the reaction
    term's cosine 0.298 / 0.256 / 0.240, above chance but below the 0.5 line (and the 0.3 line): not reproduced on
    that reading too; the blog models' cosines recomputed by the same module equal the stored ones."""
    from pathlib import Path
    from mfattn.companion import store
    got = store.read_json(Path(__file__).resolve().parents[1] / "data" / "full" / "deq" / "correction_on_m.json")["rows"]
    blog = [r["reaction_cosine"] for r in sorted(got["blog"], key=lambda r: r["seed"])]
    assert blog == pytest.approx(STORED["corr_reaction_cosine_seeds"], abs=1e-3)
    on_m = STORED["corr_m_reaction_cosine_seeds"]
    assert len(on_m) == 3 and all(q < c < 0.3 for c, q in zip(on_m, STORED["corr_m_chance_q95_seeds"]))
    d = _decide("deq-correction-onsager-form")
    rows = {a["name"]: a["verdict"] for a in d.premises["alternatives"]}
    assert [v for k, v in rows.items() if k.startswith("f_θ acting on the means")] == ["refuted", "refuted"]
    assert d.verdict == "refuted" and "free matrix V_i per site" in d.premises.get("how", DEQ["deq-correction-onsager-form"].how)


def test_the_reliability_rule_rejects_at_the_level_so_three_runs_can_refute():
    """Fisher's one-sided test rejects at p ≤ 5 %: 3 of 3 broken runs against 0 of 3 (p = 0.05 exactly) reads refuted,
    2 of 3 (p = 0.2) with differences; the former rule (reject below 5 %, untestable where the runs are so few) is the
    declared reading."""
    rule = DEQ["deq-mixer-reliability"].rule
    assert rule({"var_mixer_acc_list": [30.0, 30.0, 30.0], "acc_list": [99.1] * 3}) == "fails"
    assert rule({"var_mixer_acc_list": [30.0, 30.0, 99.0], "acc_list": [99.1] * 3}) == "partly"


@pytest.mark.parametrize("p, grade", [(0.0499, "fails"), (0.05, "partly"), (0.0501, "partly")])
def test_a_seed_is_below_its_front_end_only_where_the_paired_test_says_so(p, grade):
    """Either side of the paired test's 5 % level: a mixer seed 0.3 points under its flattened front end counts as
    below it (refuted) only at p < 0.05; otherwise it is at its front end and, 0.6 points under the blog model, with
    differences. With no paired test stored the shortfall alone decides (refuted)."""
    rule = DEQ["deq-mixer-couplings"].rule
    s = {"var_mixer_acc_list": [98.5], "var_blog": 99.1, "floor_flat_acc_list": [98.8],
         "floor_mean_acc_list": [96.4], "floor_flat_mixer_p_list": [p]}
    assert rule(s) == grade
    assert rule({k: v for k, v in s.items() if k != "floor_flat_mixer_p_list"}) == "fails"
