"""What every verdict stands on (:mod:`mfattn.companion.premises`).

- Every claim of a paper quotes the paper: the phrase is found in the work's text (``../shared/papers/``).
- Every threshold's reason is checked against the stored full-profile numbers: its check reads the stored
  distribution and must find the reason true (a reason that stops being true fails here).
- Every verdict is tried under its alternatives (other statistics, each threshold at ± its measured noise, other
  readings), and the ledger stores the verdict under each and robust / fragile.
- Every claim declares the units its numbers rest on; one unit caps the grade unless one suffices.
- The CHANGELOG names every verdict that changed since 0.3.0 and every verdict marked fragile.
And the statistics the alternatives use, against independent oracles (exact enumeration, tables).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest

from mfattn.companion import ledger, premises, stats, store, verdicts
from mfattn.companion.premises import Alternative, PremiseError, Quote, Spread, Threshold
from mfattn.companion.verdicts import Claim, ClaimError

ROOT = store.project_root()
CLAIMS = verdicts.declared()
CHAPTER_OF = {c.id: ch for ch in verdicts.CLAIM_MODULES for c in verdicts.declared(ch)}
PAPER_CLAIMS = [c for c in CLAIMS if c.origin == "paper"]
RULED = [c for c in CLAIMS if not c.rests_on_tests]
THRESHOLDS = [(c, t) for c in CLAIMS for t in c.thresholds if t.check is not None]
TEXTS = premises.papers_dir()
STORED = {ch: verdicts._module(ch).stored_numbers(ROOT, ch)[0] for ch in verdicts.CLAIM_MODULES} if ROOT else {}


# --- the building blocks -----------------------------------------------------------------------------------

def test_a_quote_is_a_short_phrase_and_chinese_needs_its_translation():
    Quote("1. Introduction", "a vector generalization of the random Ising spinmodel")
    with pytest.raises(PremiseError, match="at most 30 words"):
        Quote("1", " ".join(["word"] * 31))
    with pytest.raises(PremiseError, match="translation"):
        Quote("摘要", "非平衡相变")
    q = Quote("摘要", "非平衡相变", translation="non-equilibrium phase transitions")
    assert q.as_dict("dmft") == {"paper": "poclopez2024", "section": "摘要", "text": "非平衡相变",
                                 "translation": "non-equilibrium phase transitions"}
    with pytest.raises(PremiseError, match="paper"):
        Quote("1", "text", paper="nobody2020")


def test_quotes_match_with_whitespace_hyphens_and_curly_quotes_normalised():
    assert premises.normalise("Mean-field  theory\n“fixed–point”") == premises.normalise('Meanfield theory "fixedpoint"')
    assert premises.normalise("A\u00adB") == "ab"


def test_a_threshold_names_its_basis_and_a_check_unless_it_rests_on_a_theorem():
    ok = lambda s: (s["x"] < 1, f"x = {s['x']}")  # noqa: E731
    Threshold("tol", 1e-12, "round-off", "float64 sums of 10^4 terms round off below 1e-12", ok)
    Threshold("level", 0.05, "convention", "the usual 95 % two-sided level of a test")
    with pytest.raises(PremiseError, match="needs a check"):
        Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain is below one")
    with pytest.raises(PremiseError, match="basis"):
        Threshold("tol", 1.0, "hunch", "because it seemed about right to us", ok)
    with pytest.raises(PremiseError, match="noise"):
        Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain", ok, noise=-1.0)
    assert Threshold("tol", 1.0, "seed spread", "the seed-to-seed spread of the gain", ok,
                     noise=lambda s: s["sd"]).examine({"x": 2, "sd": 0.5}) == {
        "name": "tol", "value": 1.0, "basis": "seed spread", "reason": "the seed-to-seed spread of the gain",
        "noise": 0.5, "borne_out": False, "found": "x = 2"}


def _toy(**kw) -> Claim:
    def rule_at(factor):
        return lambda s: "holds" if s["a"] < s["b"] / factor else "partly" if s["a"] < s["b"] else "fails"
    spec = dict(rule_at=rule_at, examples={"holds": {"a": 0.4, "b": 1}, "partly": {"a": 0.6, "b": 1},
                                           "fails": {"a": 2, "b": 1}},
                thresholds=(Threshold("factor", 2.0, "seed spread", "the ratio's seed-to-seed spread is 0.2",
                                      lambda s: (s["sd"] <= 0.2, f"s.d. {s['sd']}"), noise=lambda s: s["sd"]),),
                spread=Spread("seed", lambda s: {"a": s["per_seed"]}))
    spec.update(kw)
    return Claim("toy-claim", "Nobody 2024", "a is below b.", "a and b", "holds if a < b / 2, partly if a < b",
                 ("fig-toy",), **spec)


def test_each_threshold_is_moved_by_its_measured_noise_and_a_verdict_it_moves_is_fragile():
    c = _toy()
    robust = c.decide({"a": 0.3, "b": 1, "sd": 0.1, "per_seed": [0.2, 0.3, 0.4]})
    assert robust.verdict == "reproduced" and robust.premises["robustness"] == "robust"
    assert [a["name"] for a in robust.premises["alternatives"]] == [
        "factor = 1.9 (2 − its noise 0.1)", "factor = 2.1 (2 + its noise 0.1)"]
    fragile = c.decide({"a": 0.49, "b": 1, "sd": 0.1, "per_seed": [0.4, 0.5, 0.6]})
    assert fragile.verdict == "reproduced" and fragile.premises["robustness"] == "fragile"
    assert fragile.premises["moved_by"] == ["factor = 2.1 (2 + its noise 0.1)"]
    assert fragile.premises["alternatives"][1]["verdict"] == "reproduced with differences"
    assert fragile.premises["spread"] == {"unit": "seed", "values": {"a": [0.4, 0.5, 0.6]}, "n": 3,
                                          "range": {"a": [0.4, 0.6]}}
    assert fragile.premises["thresholds"][0]["borne_out"] is True


def test_declared_alternatives_that_cannot_decide_move_nothing():
    def undecided(s):
        raise verdicts.Undecidable("no per-item bits stored")
    c = _toy(alternatives=(Alternative("exact paired test", "statistic", undecided),
                           Alternative("median instead of mean", "statistic", lambda s: "fails")))
    d = c.decide({"a": 0.3, "b": 1, "sd": 0.1, "per_seed": [0.2, 0.3, 0.4]})
    rows = {a["name"]: a for a in d.premises["alternatives"]}
    assert rows["exact paired test"]["verdict"] == "cannot decide" and "per-item" in rows["exact paired test"]["why"]
    assert d.premises["moved_by"] == ["median instead of mean"]


def test_a_claim_resting_on_one_unit_is_graded_at_best_with_differences_unless_one_suffices():
    c = _toy()
    one = c.decide({"a": 0.3, "b": 1, "sd": 0.1, "per_seed": [0.3]})
    assert one.verdict == "reproduced with differences" and "rests on one seed only" in one.note
    assert one.premises["robustness"] == "robust"      # the alternatives are capped alike
    sure = _toy(spread=Spread("seed", lambda s: {"a": s["per_seed"]}, one_suffices="a deterministic identity"))
    assert sure.decide({"a": 0.3, "b": 1, "sd": 0.1, "per_seed": [0.3]}).verdict == "reproduced"
    assert _toy(spread=Spread.deterministic("an enumeration")).decide(
        {"a": 0.3, "b": 1, "sd": 0.1}).verdict == "reproduced"
    with pytest.raises(PremiseError, match="per-unit"):
        Spread("seed")


def test_thresholds_with_a_noise_need_the_rules_factory():
    t = Threshold("factor", 2.0, "seed spread", "the ratio's seed-to-seed spread is 0.2", lambda s: (True, ""),
                  noise=0.1)
    with pytest.raises(ClaimError, match="rule_at"):
        Claim("toy-claim", "N", "c", "m", "how it is decided here", ("fig-x",), rule=lambda s: "fails",
              thresholds=(t,), examples={"fails": {}})


# --- the statistics of the alternatives, against independent oracles -----------------------------------------

def _binomial_p(low: int, n: int) -> float:
    return float(min(Fraction(1), 2 * sum(Fraction(math.comb(n, i), 2 ** n) for i in range(low + 1))))


@pytest.mark.parametrize("a, b", [(0, 0), (3, 0), (9, 1), (120, 80), (400, 455), (1500, 1620)])
def test_the_exact_paired_test_is_the_two_sided_binomial_tail(a, b):
    assert stats.exact_paired_test(a, b)["p"] == pytest.approx(_binomial_p(min(a, b), a + b), rel=1e-9)


def test_the_sign_test_needs_six_units_to_reach_five_percent():
    assert stats.sign_test([1, 2, 3])["p"] == 0.25
    assert stats.sign_test([1] * 5)["p"] == 0.0625 and stats.sign_test([1] * 6)["p"] == 0.03125
    assert stats.sign_test([1, -1, 0, 2])["positive"] == 2      # zeros dropped
    assert stats.SIGN_TEST_MIN_UNITS == 6


@pytest.mark.parametrize("x", [[0.3, -0.1, 0.25, 0.4, 0.05, 0.2, 0.15],
                               [0.3, -0.1, 0.3, 0.4, -0.05, 0.2, 0.15, 0.1, -0.2, 0.5, 0.6, -0.7, 0.8, 0.9, 1.0, 1.1,
                                1.2, -1.3]])
def test_the_signed_rank_test_matches_a_direct_enumeration(x):
    """Seven units (enumerated inside) and eighteen with ties (its dynamic programme) against 2^k sign patterns."""
    a = np.abs(x)
    ranks = np.array([np.mean([i + 1 for i, b in enumerate(sorted(a)) if b == v]) for v in a])  # mid-ranks
    w = sum(r for r, v in zip(ranks, x) if v > 0)
    null = [sum(r for r, s in zip(ranks, signs) if s) for signs in itertools.product((0, 1), repeat=len(x))]
    centre = sum(ranks) / 2
    p = sum(abs(n - centre) >= abs(w - centre) - 1e-9 for n in null) / len(null)
    got = stats.signed_rank_test(x)
    assert got["w_plus"] == w and got["p"] == pytest.approx(p)


def test_the_t_interval_over_units_is_students():
    got = stats.t_interval([0.13, 0.25, 0.28])
    sd = float(np.std([0.13, 0.25, 0.28], ddof=1))
    assert got["lo"] == pytest.approx(np.mean([0.13, 0.25, 0.28]) - 4.3027 * sd / math.sqrt(3), abs=1e-6)
    with pytest.raises(ValueError, match="at least two"):
        stats.t_interval([0.1])


def test_the_untruncated_interval_is_never_wider_than_the_truncated_one():
    rng = np.random.default_rng(1)
    for _ in range(50):
        d, v = rng.normal(0.1, 0.05, 3), rng.uniform(1e-4, 1e-2, 3)
        a, b = stats.pooled_over_seeds(d, v), stats.pooled_over_seeds(d, v, truncate=False)
        assert b["hi"] - b["lo"] <= a["hi"] - a["lo"] + 1e-15 and a["effect"] == b["effect"]
    # seeds that agree better than their within-seed variances predict: the truncation is what widens it
    tight, loose = stats.pooled_over_seeds([0.2, 0.2001, 0.1999], [1e-2] * 3), \
        stats.pooled_over_seeds([0.2, 0.2001, 0.1999], [1e-2] * 3, truncate=False)
    assert loose["hi"] - loose["lo"] < 0.01 < tight["hi"] - tight["lo"]


# --- every declared claim ----------------------------------------------------------------------------------

@pytest.mark.parametrize("claim", PAPER_CLAIMS, ids=[c.id for c in PAPER_CLAIMS])
def test_every_claim_of_a_paper_says_where_the_paper_makes_it(claim):
    assert claim.quote is not None, f"{claim.id}: a claim of a paper quotes the paper (section and phrase)"


@pytest.mark.skipif(TEXTS is None, reason="the works' texts (../shared/papers or $MFATTN_PAPERS) are not at hand")
@pytest.mark.parametrize("claim", [c for c in CLAIMS if c.quote is not None],
                         ids=[c.id for c in CLAIMS if c.quote is not None])
def test_every_quote_is_found_in_its_works_text(claim):
    assert premises.quote_found(claim.quote, CHAPTER_OF[claim.id]), \
        f"{claim.id}: {claim.quote.text!r} is not in {premises.PAPERS[claim.quote.paper or premises.CHAPTER_PAPER[CHAPTER_OF[claim.id]]][0]}"


@pytest.mark.parametrize("claim", RULED, ids=[c.id for c in RULED])
def test_every_verdict_is_tried_under_its_alternatives_and_declares_its_units(claim):
    assert claim.alternatives or any(t.noise is not None for t in claim.thresholds), \
        f"{claim.id}: no alternative statistic, threshold or reading is declared"
    assert claim.spread is not None, f"{claim.id}: the units its numbers rest on are not declared"


@pytest.mark.skipif(ROOT is None, reason="outside a checkout")
@pytest.mark.parametrize("claim, threshold", THRESHOLDS, ids=[f"{c.id}:{t.name}" for c, t in THRESHOLDS])
def test_every_thresholds_reason_is_true_of_the_stored_numbers(claim, threshold):
    numbers = STORED[CHAPTER_OF[claim.id]]
    if not numbers:
        pytest.skip(f"no stored full-profile numbers for {CHAPTER_OF[claim.id]}")
    ok, found = threshold.check(numbers)
    assert ok, f"{claim.id}: the reason of {threshold.name} = {threshold.value} is not true of the stored data: {found}"


@pytest.mark.skipif(ROOT is None or not (ROOT / "data" / "full" / "ledger.json").is_file(),
                    reason="no stored full-profile ledger")
def test_every_stored_verdict_carries_its_alternatives_and_robust_or_fragile():
    stored = ledger.read_ledger("full")
    for c in RULED:
        e = stored[c.id]
        if e["verdict"] == "not tested":      # nothing decided (inconclusive, a failed positive control): its reason
            assert e.get("note", "").strip(), c.id   # stands, with the alternatives that would decide it where computable
            assert (e.get("robustness") == "fragile") == bool(e.get("moved_by")), c.id
            continue
        assert e.get("robustness") in ("robust", "fragile") and e.get("alternatives"), c.id
        assert (e["robustness"] == "fragile") == bool(e["moved_by"]), c.id
    for c in PAPER_CLAIMS:
        assert stored[c.id].get("quote", {}).get("text"), c.id


@pytest.mark.skipif(ROOT is None or not (ROOT / "data" / "full" / "ledger.json").is_file(),
                    reason="no stored full-profile ledger")
def test_changelog_names_every_verdict_changed_since_0_3_0_and_every_fragile_one():
    released = json.loads((ROOT / "tests" / "data" / "ledger-0.3.0-verdicts.json").read_text())["verdicts"]
    stored = ledger.read_ledger("full")
    entry = re.split(r"^## ", (ROOT / "CHANGELOG.md").read_text(), flags=re.MULTILINE)[1]
    changed = entry.split("### Verdicts that changed since 0.3.0", 1)[1].split("\n### ", 1)[0]
    fragile = entry.split("### Fragile verdicts", 1)[1].split("\n### ", 1)[0]
    moved = sorted(cid for cid in set(stored) | set(released)
                   if stored.get(cid, {}).get("verdict") != released.get(cid))
    missing = [cid for cid in moved if f"`{cid}`" not in changed]
    assert not missing, f"the newest CHANGELOG entry does not name these changed verdicts: {missing}"
    frail = sorted(cid for cid, e in stored.items() if e.get("robustness") == "fragile")
    missing = [cid for cid in frail if f"`{cid}`" not in fragile]
    assert not missing, f"the newest CHANGELOG entry does not name these fragile verdicts: {missing}"
    extra = sorted(set(re.findall(r"`([a-z0-9-]+)`", fragile)) & set(stored) - set(frail))
    assert not extra, f"the CHANGELOG calls these verdicts fragile, the ledger robust: {extra}"


def test_the_alternatives_over_seeds_decide_on_their_own_interval_or_test():
    """A gain of +0.13, +0.25, +0.28 over three seeds (the shape of chapter 2's learned-Onsager gains): the
    truncated interval may cover 0, the t-interval over seeds does not; a sign test over three seeds cannot decide;
    the exact paired test over the pooled items decides on its own counts."""
    decide = lambda s, effect, lo, hi: "holds" if lo > 0 else "fails"  # noqa: E731
    alts = {a.name.split(" over")[0].split(",")[0]: a for a in premises.over_units(
        "d", decide, variances="v", only=("a", "b"))}
    s = {"d": [0.13, 0.25, 0.28], "v": [0.004, 0.004, 0.004], "a": [40, 60, 70], "b": [10, 12, 8]}
    assert alts["Student-t interval"].rule(s) == "holds"
    assert alts["untruncated Hartung-Knapp interval"].rule(s) == (
        "holds" if stats.pooled_over_seeds(s["d"], s["v"], truncate=False)["lo"] > 0 else "fails")
    with pytest.raises(verdicts.Undecidable, match="cannot reach 5 %"):
        alts["sign test"].rule(s)
    assert alts["exact paired test"].rule(s) == "holds"
    assert alts["exact paired test"].rule({**s, "a": [10, 12, 8]}) == "fails"
    ten = {"d": [0.1] * 9 + [-0.01]}
    assert alts["sign test"].rule(ten) == "holds" and alts["exact signed-rank test"].rule(ten) == "holds"
    assert alts["sign test"].rule({"d": [0.1] * 7 + [-0.1] * 3}) == "fails"
