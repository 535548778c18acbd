"""Behaviour of the verdict machinery that the other tests left free to change (found by mutation testing of
:mod:`mfattn.companion.premises` and :mod:`mfattn.companion.verdicts`).

Each test pins a grade, a threshold, a ledger field or a message that a one-line change of those modules would
alter without any other test noticing: the identity rule at its exact thresholds, the decade its premises keep
from them and the decade either way its alternatives move them by, a claim that rests on its tests, the numbers
a decision quotes, what ``record`` hands to the run, and the refusals of wrongly declared premises.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest

from mfattn.companion import premises, stats, store, verdicts
from mfattn.companion.premises import PremiseError, Quote, Spread, Threshold
from mfattn.companion.verdicts import Claim, ClaimError

ROOT = store.project_root()
_OK = lambda s: (True, "checked")  # noqa: E731


# --- the identity rule and its premises ----------------------------------------------------------------------

def _identity_claim() -> Claim:
    return Claim("x-identity", "S", "an identity", "largest deviation", verdicts.IDENTITY_HOW, ("fig-x",),
                 origin="ours", **verdicts.identity_claim("dev_a", "dev_b"))


@pytest.mark.parametrize("a, b, grade", [(1e-12, 0.0, "partly"),       # at tol exactly: not below it
                                         (9.99e-13, 0.0, "holds"),
                                         (1e-6, 0.0, "fails"),         # at near exactly: not below it
                                         (9.99e-7, 0.0, "partly"),
                                         (1e-13, 5e-7, "partly"),      # the largest deviation decides
                                         (5e-7, 1e-13, "partly"),
                                         (1e-13, 2e-6, "fails"),
                                         (0.0, float("nan"), "fails")])
def test_the_identity_rule_at_its_exact_thresholds_reads_the_largest_deviation(a, b, grade):
    assert verdicts.identity("dev_a", "dev_b")({"dev_a": a, "dev_b": b}) == grade


def test_an_identity_claim_decides_at_1e_12_and_1e_6():
    c = _identity_claim()
    assert c.threshold_values == {"tol": 1e-12, "near": 1e-6}
    for x, verdict in ((9e-13, "confirmed"), (2e-12, "confirmed with differences"),
                       (9e-7, "confirmed with differences"), (1.5e-6, "refuted")):
        assert c.decide({"dev_a": 0.0, "dev_b": x}).verdict == verdict, x


@pytest.mark.parametrize("x, ok", [(5e-14, True), (1e-13, False), (5e-13, False), (5e-12, False), (1e-11, False),
                                   (1e-9, True), (1e-7, False), (5e-7, False), (5e-6, False), (1e-5, False),
                                   (2e-5, True)])
def test_an_identity_thresholds_reason_holds_only_a_decade_or_more_from_both_thresholds(x, ok):
    """The stored deviation must lie at least a decade from 1e-12 and from 1e-6 (below 1e-13, between 1e-11 and
    1e-7, or above 1e-5, all strictly): where it does not, the tolerance's exact place decides the verdict."""
    c = _identity_claim()
    for t in c.thresholds:
        got, found = t.check({"dev_a": x, "dev_b": 0.0})
        assert got is ok, (t.name, x, found)
        assert found.startswith(f"largest stored deviation {x:.1e}: ")
        assert ("at least a decade from both thresholds" in found) is ok
    # the largest deviation is the one read: 1e-9 alone is clear of both, beside 5e-7 it is not
    assert c.thresholds[0].check({"dev_a": 1e-9, "dev_b": 5e-7})[0] is False
    assert c.thresholds[0].check({"dev_a": 5e-7, "dev_b": 1e-9})[0] is False


def test_an_identity_stored_as_null_is_not_tested_and_its_reason_stands():
    c = _identity_claim()
    d = c.decide({"dev_a": None, "dev_b": 0.0})
    assert d.verdict == "not tested" and "dev_a is stored as null (not measured)" in d.note
    assert c.thresholds[0].check({"dev_a": None, "dev_b": 0.0}) == (
        True, "a deviation is stored as null (not measured): the claim is not tested")
    assert c.thresholds[1].examine({"dev_a": None, "dev_b": 0.0})["borne_out"] is True


def test_an_identity_claims_alternatives_move_each_threshold_a_decade_either_way():
    c = _identity_claim()
    d = c.decide({"dev_a": 3e-9, "dev_b": 1e-10})
    assert d.verdict == "confirmed with differences" and d.grade == "partly"
    assert [(a["name"], a["kind"], a["verdict"]) for a in d.premises["alternatives"]] == [
        ("tol = 1e-13 (1e-12 / 10)", "threshold", "confirmed with differences"),
        ("tol = 1e-11 (1e-12 × 10)", "threshold", "confirmed with differences"),
        ("near = 1e-07 (1e-06 / 10)", "threshold", "confirmed with differences"),
        ("near = 1e-05 (1e-06 × 10)", "threshold", "confirmed with differences")]
    assert d.premises["robustness"] == "robust" and d.premises["moved_by"] == []
    assert [(t["name"], t["value"], t["basis"], t["noise"], t["borne_out"]) for t in d.premises["thresholds"]] == [
        ("tol", 1e-12, "round-off", 10.0, True), ("near", 1e-6, "round-off", 10.0, True)]
    # an identity needs no seeds: its spread says why one evaluation suffices, and nothing caps its grade
    assert d.premises["spread"] == {"unit": "none (deterministic)",
                                    "one_suffices": "an identity of float64 arithmetic: no seed or start enters it"}
    # 5e-12 is partly at tol = 1e-12 but holds at tol × 10: the verdict is fragile, moved by that one threshold
    frail = c.decide({"dev_a": 5e-12, "dev_b": 0.0})
    assert frail.premises["robustness"] == "fragile"
    assert frail.premises["moved_by"] == ["tol = 1e-11 (1e-12 × 10)"]


def test_a_deterministic_spread_is_stored_as_its_unit_and_reason():
    assert premises.spread_of(Spread.deterministic("an enumeration"), {"x": 1}) == {
        "unit": "none (deterministic)", "one_suffices": "an enumeration"}
    assert premises.spread_of(None, {"x": 1}) is None


# --- a claim that rests on its tests ------------------------------------------------------------------------

def _tested(**kw) -> Claim:
    spec = dict(tests_grade="partly", origin="ours")
    spec.update(kw)
    return Claim("x-tested", "S", "c", "m", "rests on the tests named in its evidence (their asserted bounds)",
                 ("fig-x", "tests/test_x.py::test_y"), **spec)


def test_a_claim_resting_on_its_tests_takes_their_grade_with_or_without_numbers():
    c = _tested()
    assert c.rests_on_tests and c.grade({}) == "partly" and c.grade({"a": 1}) == "partly"
    d = c.decide(None)
    assert (d.verdict, d.grade, d.numbers, d.premises) == ("confirmed with differences", "partly", {}, {})
    assert d.note == "Rests on the tests named in the evidence (their asserted bounds)."
    assert d.how == "rests on the tests named in its evidence (their asserted bounds)"
    shown = _tested(note="a = {a:.2f}", numbers=("a",), spread=Spread("seed", lambda s: {"a": s["per_seed"]}),
                    quote=Quote("1. Intro", "a phrase"), tests_grade="holds", origin="paper")
    d = shown.decide({"a": 0.123456, "per_seed": [0.1, 0.2]}, chapter="ising")
    assert (d.verdict, d.grade, d.note, d.numbers) == ("reproduced", "holds", "a = 0.12", {"a": 0.123})
    assert d.premises == {"quote": {"paper": "bal2021", "section": "1. Intro", "text": "a phrase"},
                          "spread": {"unit": "seed", "values": {"a": [0.1, 0.2]}, "n": 2, "range": {"a": [0.1, 0.2]}}}


def test_a_claim_resting_on_its_tests_needs_a_grade_and_names_them():
    with pytest.raises(ClaimError, match="needs tests_grade"):
        _tested(tests_grade="maybe")
    with pytest.raises(ClaimError, match="must name them in its evidence"):
        Claim("x-tested", "S", "c", "m", "rests on the tests", ("fig-x",), tests_grade="holds")
    with pytest.raises(ClaimError, match="no examples"):
        _tested(examples={"fails": {}})


# --- the numbers a decision quotes, and what record hands to the run ----------------------------------------

def test_the_ledger_quotes_numbers_to_three_digits_and_keeps_strings_flags_and_non_finite_values():
    c = Claim("x-y", "S", "c", "m", "holds if x < 1", ("fig-x",), rule=verdicts.below("x", 1.0),
              numbers=("x", "flag", "label", "inf", "n", "gone"), examples={"fails": {"x": 2.0}})
    d = c.decide({"x": 0.123456, "flag": True, "label": "abc", "inf": math.inf, "n": 12345, "gone": None})
    assert json.dumps(d.numbers, sort_keys=True) == (
        '{"flag": true, "inf": "inf", "label": "abc", "n": 12300.0, "x": 0.123}')
    assert d.verdict == "reproduced"


def test_numbers_given_by_a_function_leave_out_those_not_measured():
    c = Claim("x-y", "S", "c", "m", "holds if x < 1", ("fig-x",), rule=verdicts.below("x", 1.0),
              numbers=lambda s: {"x": s["x"], "y": None, "twice": 2 * s["x"]}, examples={"fails": {"x": 2.0}})
    assert c.decide({"x": 0.5}).numbers == {"x": 0.5, "twice": 1.0}


class _Run:
    def __init__(self, chapter: str = "ising"):
        self.chapter, self.calls = SimpleNamespace(name=chapter), []

    def verdict(self, *args, **kw):
        self.calls.append((args, kw))


def test_record_hands_each_decision_to_the_run_with_its_chapter():
    c = Claim("x-y", "S", "a is small", "a", "holds if a < 1, partly if a < 2", ("fig-x",),
              rule=verdicts.below("a", 1.0, 2.0), note="a = {a}", numbers=("a",), quote=Quote("1. Intro", "phrase"),
              examples={"holds": {"a": 0}, "partly": {"a": 1.5}, "fails": {"a": 3}})
    run = _Run("ising")
    got = verdicts.record(run, [c, c], {"a": 1.5})
    assert [d.verdict for d in got] == ["reproduced with differences"] * 2 and len(run.calls) == 2
    args, kw = run.calls[0]
    assert args == ("x-y", "S", "a is small", "reproduced with differences", ["fig-x"])
    assert kw["note"] == "a = 1.5" and kw["numbers"] == {"a": 1.5} and kw["origin"] == "paper"
    assert kw["how"] == "holds if a < 1, partly if a < 2" and kw["measured"] == "a"
    assert kw["premises"]["quote"]["paper"] == "bal2021"      # the paper filled in from the run's chapter


@pytest.mark.skipif(ROOT is None, reason="outside a checkout")
def test_a_chapters_claims_are_decided_and_recorded_from_its_stored_numbers():
    claims = verdicts.declared("ising")
    decided = verdicts.decide_chapter(ROOT, "ising")
    assert [c.id for c, _ in decided] == [c.id for c in claims]
    assert all(d.verdict in (*c.scale, verdicts.NOT_TESTED) for c, d in decided)
    run = _Run("ising")
    got = verdicts.record_chapter(run, ROOT, "ising", claims[:1])
    assert len(got) == 1 and [a[0] for a, _ in run.calls] == [claims[0].id]
    assert got[0].verdict == decided[0][1].verdict
    run = _Run("ising")
    assert len(verdicts.record_chapter(run, ROOT, "ising")) == len(claims) == len(run.calls)


@pytest.mark.skipif(ROOT is None, reason="outside a checkout")
def test_redecide_gives_every_declared_claim_its_chapter_and_verdict():
    got = verdicts.redecide(ROOT)
    chapter_of = {c.id: ch for ch in verdicts.CLAIM_MODULES for c in verdicts.declared(ch)}
    assert set(got) == set(chapter_of)
    for cid, e in got.items():
        assert e["chapter"] == chapter_of[cid]
        assert e["verdict"] in (*verdicts.SCALES[e["origin"]], verdicts.NOT_TESTED), cid


# --- premises declared wrongly are refused, saying what is wrong -----------------------------------------------

@pytest.mark.parametrize("noise", ["0.1", True, [0.1]])
def test_a_thresholds_noise_must_be_a_number_or_a_function(noise):
    with pytest.raises(PremiseError, match="noise must be a number, a function of the numbers or None"):
        Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain", _OK, noise=noise)


def test_a_thresholds_reason_is_a_sentence_of_twenty_characters_or_more():
    Threshold("tol", 1.0, "seed spread", "  " + "r" * 20 + "  ", _OK)
    with pytest.raises(PremiseError, match="the reason is a sentence"):
        Threshold("tol", 1.0, "seed spread", "r" * 19 + "   ", _OK)


@pytest.mark.parametrize("unit", ["", "   ", None])
def test_a_spread_names_its_unit(unit):
    with pytest.raises(PremiseError, match="unit must be a non-empty string"):
        Spread(unit, lambda s: {})


def test_a_quote_refused_shows_its_beginning():
    long = "".join(chr(0x4E00 + i) for i in range(70))
    with pytest.raises(PremiseError) as err:
        Quote("摘要", long, translation="a long phrase")
    assert str(err.value) == (f"quote: a phrase of at most 30 words (60 Chinese characters); got 0 words and 70 "
                              f"characters: {long[:60]!r}...")
    short = "".join(chr(0x4E00 + i) for i in range(40))
    with pytest.raises(PremiseError) as err:
        Quote("摘要", short)
    assert str(err.value) == f"quote {short[:30]!r}: a phrase in Chinese needs the book's translation"


def test_a_sign_test_over_too_few_units_says_its_smallest_p():
    alts = {a.name: a for a in premises.over_units("d", lambda s, e, lo, hi: "holds" if lo > 0 else "fails")}
    with pytest.raises(verdicts.Undecidable) as err:
        alts["sign test over the seeds"].rule({"d": [0.1, 0.2, 0.3]})
    assert str(err.value) == "a sign test over 3 seeds cannot reach 5 % (its smallest p is 0.25)"
    with pytest.raises(verdicts.Undecidable, match=r"over 5 seeds \(6 stored, 1 a tie, dropped\) cannot reach 5 % \(its smallest p is 0.0625\)"):
        alts["exact signed-rank test over the seeds"].rule({"d": [0.1, 0.2, 0.3, 0.0, 0.4, 0.5]})


def test_over_units_names_a_bad_key_or_unit():
    decide = lambda s, e, lo, hi: "fails"  # noqa: E731
    with pytest.raises(PremiseError, match="deltas must be the key of the stored deltas; got ''"):
        premises.over_units("", decide)
    with pytest.raises(PremiseError, match="variances must be the key of the stored variances; got ''"):
        premises.over_units("d", decide, variances="")
    with pytest.raises(PremiseError, match="unit must be a word; got ''"):
        premises.over_units("d", decide, unit="")


def test_the_papers_folder_is_the_one_named_by_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MFATTN_PAPERS", str(tmp_path))
    assert premises.papers_dir() == tmp_path
    assert premises.paper_text("bal2021") is None      # the folder holds no text
    (tmp_path / premises.PAPERS["bal2021"][0]).write_text("Mean-field  THEORY\n")
    assert premises.paper_text("bal2021") == "meanfield theory"
    monkeypatch.setenv("MFATTN_PAPERS", str(tmp_path / "absent"))
    assert premises.papers_dir() is None and premises.paper_text("bal2021") is None


@pytest.mark.parametrize("x, grade", [(0.99, "holds"), (1.0, "partly"), (1.99, "partly"), (2.0, "fails")])
def test_below_is_strict_at_both_thresholds(x, grade):
    assert verdicts.below("a", 1.0, 2.0)({"a": x}) == grade


@pytest.mark.parametrize("x, grade", [(2.01, "holds"), (2.0, "partly"), (1.01, "partly"), (1.0, "fails")])
def test_above_is_strict_at_both_thresholds(x, grade):
    assert verdicts.above("a", 2.0, 1.0)({"a": x}) == grade


def test_a_quote_may_be_exactly_thirty_words_or_sixty_chinese_characters():
    Quote("1", " ".join(["word"] * 30))
    Quote("摘要", "".join(chr(0x4E00 + i) for i in range(60)), translation="sixty characters")
    with pytest.raises(PremiseError, match="at most 30 words"):
        Quote("摘要", "".join(chr(0x4E00 + i) for i in range(61)), translation="sixty-one characters")


@pytest.mark.parametrize("only", [("a",), ["a", "b"], ("a", 1), ("a", "b", "c")])
def test_over_units_takes_the_two_keys_of_the_per_unit_counts_or_none(only):
    with pytest.raises(PremiseError, match="only must be None or the two keys of the per-unit counts"):
        premises.over_units("d", lambda s, e, lo, hi: "fails", only=only)


@pytest.mark.parametrize("name", ["", "   ", None])
def test_an_alternative_is_named(name):
    with pytest.raises(PremiseError, match="alternative: name must be a non-empty string"):
        premises.Alternative(name, "statistic", lambda s: "fails")


@pytest.mark.parametrize("field", ["source", "claim", "measured", "how"])
@pytest.mark.parametrize("value", ["", "   ", None])
def test_a_claim_states_its_source_claim_measure_and_rule(field, value):
    spec = dict(id="x-y", source="S", claim="c", measured="m", how="holds if a < 1", evidence=("fig-x",),
                rule=verdicts.below("a", 1.0), examples={"fails": {"a": 2}})
    with pytest.raises(ClaimError, match=f"{field} must be a non-empty string"):
        Claim(**{**spec, field: value})


@pytest.mark.skipif(ROOT is None or not (ROOT.parent / "shared" / "papers").is_dir(),
                    reason="the works' texts are not beside the checkout")
def test_without_the_environment_the_papers_are_read_beside_the_checkout(monkeypatch):
    monkeypatch.delenv("MFATTN_PAPERS", raising=False)
    assert premises.papers_dir() == ROOT.parent / "shared" / "papers"
    assert premises.paper_text("bal2021")      # the text is at hand: quotes are checked, not skipped


@pytest.mark.parametrize("name", ["", "two words", "1st", None])
def test_a_threshold_is_named_by_a_keyword_of_the_rules_factory(name):
    with pytest.raises(PremiseError, match="threshold name must be a keyword"):
        Threshold(name, 1.0, "seed spread", "the seed-to-seed spread of the gain", _OK)


@pytest.mark.parametrize("cid", ["", "Upper-case", "two words", "-leading", None])
def test_a_claim_id_is_lowercase_words_joined_by_hyphens(cid):
    with pytest.raises(ClaimError, match="claim id must be lowercase words"):
        Claim(cid, "S", "c", "m", "holds if a < 1", ("fig-x",), rule=verdicts.below("a", 1.0),
              examples={"fails": {"a": 2}})


def _on_seeds(values) -> Claim:
    return Claim("x-y", "S", "c", "m", "holds if a < 1", ("fig-x",), rule=verdicts.below("a", 1.0),
                 note="a = {a}", examples={"fails": {"a": 2}}, spread=Spread("seed", values))


def test_one_seed_caps_the_grade_and_says_so_after_the_note():
    d = _on_seeds(lambda s: {"a": [s["a"]]}).decide({"a": 0.3})
    assert d.verdict == "reproduced with differences" and d.grade == "partly"
    assert d.note == "a = 0.3 It rests on one seed only: graded at best with differences."
    bare = Claim("x-y", "S", "c", "m", "holds if a < 1", ("fig-x",), rule=verdicts.below("a", 1.0),
                 examples={"fails": {"a": 2}}, spread=Spread("seed", lambda s: {"a": [s["a"]]})).decide({"a": 0.3})
    assert bare.note == "It rests on one seed only: graded at best with differences."


def test_the_units_a_claim_rests_on_are_the_fewest_over_its_key_numbers():
    c = _on_seeds(lambda s: {"a": [0.3, 0.2, 0.4], "b": [0.5]})
    assert premises.spread_of(c.spread, {"a": 0.3})["n"] == 1
    d = c.decide({"a": 0.3})
    assert d.premises["spread"]["n"] == 1 and d.verdict == "reproduced with differences"
    assert _on_seeds(lambda s: {"a": [0.3, 0.2, 0.4], "b": [0.5, 0.1]}).decide({"a": 0.3}).verdict == "reproduced"


def test_the_sign_test_and_the_signed_rank_test_decide_on_their_own_p():
    """Nine small gains and one large loss: the sign test (9 of 10 positive) rejects "no difference", the
    signed-rank test (the loss carries the largest rank) does not."""
    d = [1.0] * 9 + [-10.0]
    assert stats.sign_test(d)["p"] < premises.LEVEL < stats.signed_rank_test(d)["p"]
    rejects = lambda s, effect, lo, hi: "holds" if lo == hi == effect else "fails"  # noqa: E731
    alts = {a.name: a for a in premises.over_units("d", rejects)}
    assert alts["sign test over the seeds"].rule({"d": d}) == "holds"
    assert alts["exact signed-rank test over the seeds"].rule({"d": d}) == "fails"


def test_a_paper_and_a_chapter_are_named_by_their_keys():
    with pytest.raises(PremiseError, match="paper must be one of"):
        premises.paper_text("nobody2020")
    with pytest.raises(PremiseError, match="paper must be one of"):
        premises.paper_text(None)
    q = Quote("1", "a phrase")
    for chapter in ("nochapter", None):
        with pytest.raises(PremiseError, match="chapter must be one of"):
            premises.quote_found(q, chapter)


@pytest.mark.parametrize("noise", [0.0, -0.5, float("nan"), float("inf"), "0.1"])
def test_a_measured_noise_must_be_a_positive_number(noise):
    t = Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain", _OK, noise=lambda s: s["sd"])
    with pytest.raises(PremiseError, match="its measured noise is .*, not a positive number"):
        t.noise_of({"sd": noise})
    assert t.noise_of({"sd": 0.25}) == 0.25


@pytest.mark.parametrize("value", [True, "1.0", float("nan"), float("inf"), None])
def test_a_thresholds_value_is_a_finite_real_number(value):
    with pytest.raises(PremiseError, match="value must be a finite real number"):
        Threshold("tol", value, "seed spread", "the seed-to-seed spread of the gain", _OK)


def test_the_range_over_units_leaves_out_values_that_are_not_finite():
    got = premises.spread_of(Spread("seed", lambda s: {"a": [0.1, float("nan"), 0.3, float("inf")],
                                                       "b": [float("nan")]}), {})
    assert got == {"unit": "seed", "values": {"a": [0.1, None, 0.3, None], "b": [None]}, "n": 1,
                   "range": {"a": [0.1, 0.3]}}


def test_the_identity_examples_lie_just_across_each_threshold():
    ex = verdicts.identity_examples("a", "b")
    assert set(ex) == set(verdicts.GRADES)
    assert all(1e-13 < v < 1e-12 for v in ex["holds"].values())
    assert 1e-12 < max(ex["partly"].values()) < 1e-11
    assert 1e-6 < max(ex["fails"].values()) < 1e-5
    rule = verdicts.identity("a", "b")
    assert {g: rule(x) for g, x in ex.items()} == {g: g for g in verdicts.GRADES}


def test_the_t_interval_over_units_decides_from_two_units():
    alts = {a.name: a for a in premises.over_units("d", lambda s, e, lo, hi: "holds" if lo > 0 else "fails")}
    t = alts["Student-t interval over the seeds (their spread only)"]
    assert t.rule({"d": [0.30, 0.31]}) == "holds" and t.rule({"d": [0.3, -0.1]}) == "fails"
    with pytest.raises(verdicts.Undecidable, match="a t-interval over seeds needs two seeds or more; 1 stored"):
        t.rule({"d": [0.3]})


@pytest.mark.parametrize("noise, log", [(0.0, False), (-1.0, False), (float("inf"), False), (1.0, True),
                                        (0.5, True)])
def test_a_declared_noise_is_positive_and_a_factor_above_one_on_a_log_scale(noise, log):
    with pytest.raises(PremiseError, match="noise must be a positive finite number"):
        Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain", _OK, noise=noise, log=log)
    Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain", _OK, noise=1.01, log=log)


@pytest.mark.parametrize("section, text", [("   ", "a phrase"), ("", "a phrase"), ("1", "  "), ("1", None)])
def test_a_quote_names_its_section_and_phrase(section, text):
    with pytest.raises(PremiseError, match="must be a non-empty string"):
        Quote(section, text)


def test_a_claim_without_numbers_still_shows_its_quote_and_reading():
    c = Claim("x-y", "S", "c", "m", "holds if a < 1", ("fig-x",), rule=verdicts.below("a", 1.0),
              examples={"fails": {"a": 2}}, quote=Quote("2. Method", "a phrase"), reading="a read as the mean")
    for numbers in ({}, None, {"b": 1}):
        d = c.decide(numbers, chapter="structural")
        assert d.verdict == "not tested"
        assert d.premises == {"quote": {"paper": "singh2023", "section": "2. Method", "text": "a phrase"},
                              "reading": "a read as the mean"}


def test_a_spread_with_no_key_numbers_rests_on_no_unit():
    assert premises.spread_of(Spread("seed", lambda s: {}), {}) == {"unit": "seed", "values": {}, "n": 0, "range": {}}


def test_the_untruncated_interval_weighs_the_seeds_by_their_variances_the_t_interval_does_not():
    """Two precise seeds near +0.2 and one imprecise seed at -0.3: the inverse-variance weighted (Hartung-Knapp,
    untruncated) interval lies above 0, the unweighted t-interval over the three seeds covers 0."""
    s = {"d": [0.2, 0.21, -0.3], "v": [1e-6, 1e-6, 1.0]}
    alts = {a.name.split(" over")[0]: a for a in premises.over_units(
        "d", lambda s, e, lo, hi: "holds" if lo > 0 else "fails", variances="v")}
    assert stats.pooled_over_seeds(s["d"], s["v"], truncate=False)["lo"] > 0 > stats.t_interval(s["d"])["lo"]
    assert alts["untruncated Hartung-Knapp interval"].rule(s) == "holds"
    assert alts["Student-t interval"].rule(s) == "fails"


@pytest.mark.parametrize("x, ok", [(9e-14, True), (1.1e-13, False), (9e-12, False), (1.5e-11, True),
                                   (9e-8, True), (1.1e-7, False), (9e-6, False), (1.5e-5, True)])
def test_an_identity_thresholds_reason_just_either_side_of_a_decade(x, ok):
    """Just beyond a decade from both thresholds (9e-14, 1.5e-11, 9e-8, 1.5e-5) the stored deviation is clear of
    them; just within a decade of one (1.1e-13, 9e-12, 1.1e-7, 9e-6) it is not."""
    got, _ = _identity_claim().thresholds[0].check({"dev_a": x, "dev_b": 0.0})
    assert got is ok


def test_a_partial_threshold_on_the_wrong_side_is_refused():
    with pytest.raises(ClaimError, match=r"below\('a'\): the partial threshold 1.0 must not be below 2.0"):
        verdicts.below("a", 2.0, 1.0)
    with pytest.raises(ClaimError, match=r"above\('a'\): the partial threshold 2.0 must not be above 1.0"):
        verdicts.above("a", 1.0, 2.0)
    assert verdicts.below("a", 1.0, 1.0)({"a": 1.0}) == "fails" and verdicts.above("a", 1.0, 1.0)({"a": 1.0}) == "fails"


@pytest.mark.parametrize("reason", [None, 42, ""])
def test_a_thresholds_reason_is_a_string(reason):
    with pytest.raises(PremiseError, match="the reason is a sentence"):
        Threshold("tol", 1.0, "seed spread", reason, _OK)
