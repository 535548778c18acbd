"""Every declared claim is decided by a rule that can come out otherwise.

For each claim of every chapter (``mfattn.companion.verdicts.declared()``) the counterfactual numbers
declared beside its rule give each of its three grades, the failing one included; a claim without a rule
names the tests it rests on. The last tests here read the stored full-profile results: they check the
*stored ledger* against the rules (``test_stored_...``), not the code that made the numbers (each claim's
numbers are exercised by the tests named in its chapter's test files).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mfattn.companion import ledger, stats, store, verdicts
from mfattn.companion.verdicts import GRADES, Claim, ClaimError

CLAIMS = verdicts.declared()
RULED = [c for c in CLAIMS if not c.rests_on_tests]
ROOT = store.project_root()


def test_every_chapter_declares_its_claims_once():
    ids = [c.id for c in CLAIMS]
    assert len(ids) == len(set(ids)), "a claim id is declared twice"
    chapters = {ch for ch in verdicts.CLAIM_MODULES}
    assert all(verdicts.declared(ch) for ch in chapters), "a chapter declares no claim"


@pytest.mark.parametrize("claim", RULED, ids=[c.id for c in RULED])
def test_counterfactual_numbers_reach_every_outcome_of_the_rule(claim: Claim):
    """Each of the three grades (holds / partly / fails) is declared with numbers that give it."""
    assert set(claim.examples) == set(GRADES), f"{claim.id}: examples for {sorted(claim.examples)} only"
    for grade, numbers in claim.examples.items():
        assert claim.grade(numbers) == grade, f"{claim.id}: its {grade!r} example gives {claim.grade(numbers)!r}"
    words = {claim.verdict_of(g) for g in claim.examples}
    assert words == set(claim.scale), "every verdict word of the claim's scale is reachable"


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_a_claim_says_how_it_is_decided_and_why(claim: Claim):
    assert len(claim.how) > 40 and claim.measured.strip()
    if claim.rests_on_tests:
        assert "test" in claim.how.lower(), f"{claim.id}: a claim without a rule says it rests on the tests"
        assert any(e.startswith("tests/") for e in claim.evidence)


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_evidence_tests_exist(claim: Claim):
    assert ROOT is not None
    missing = ledger.check_evidence([e for e in claim.evidence if e.startswith("tests/")], [], ROOT)
    assert not missing, f"{claim.id}: {missing}"


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_every_claim_names_a_test_of_the_code_behind_its_numbers(claim: Claim):
    """Beside its figures, each claim names at least one test that exercises the code that made its numbers (a
    test that only reads stored results, ``test_stored_*``, checks the stored result, not the code)."""
    code_tests = [e for e in claim.evidence if e.startswith("tests/") and "::test_stored" not in e]
    assert code_tests, f"{claim.id}: evidence names no test of the code ({claim.evidence})"


@pytest.mark.parametrize("claim", RULED, ids=[c.id for c in RULED])
def test_without_numbers_a_claim_is_not_tested_and_says_why(claim: Claim):
    d = claim.decide({}, "run the full profile")
    assert d.verdict == "not tested" and "run the full profile" in d.note
    partial = claim.decide({"unrelated": 1.0}, "run X")
    assert partial.verdict == "not tested" and "lack" in partial.note


def test_a_rule_that_cannot_fail_is_refused():
    with pytest.raises(ClaimError, match="cannot fail"):
        Claim("x-y", "s", "c", "m", "how it is decided", ("fig-x",), rule=lambda s: "holds",
              examples={"holds": {}})
    always = Claim("x-y", "s", "c", "m", "how it is decided", ("fig-x",), rule=lambda s: "holds",
                   examples={"holds": {}, "fails": {"a": 1}})
    with pytest.raises(ClaimError, match="gives 'holds'"):
        verdicts.check_claims([always])


def test_breaking_a_declared_rule_is_caught(monkeypatch):
    """Move a threshold of a real claim: its own counterfactual examples no longer give their grades."""
    claim = next(c for c in CLAIMS if c.id == "ising-tap-onsager")
    verdicts.check_claims([claim])
    broken = Claim(**{**claim.__dict__, "rule": lambda s: "holds" if s["tap_m"] < s["naive_m"] else "fails"})
    with pytest.raises(ClaimError):
        verdicts.check_claims([broken])


def test_claims_of_ours_are_confirmed_or_refuted_and_papers_reproduced_or_not():
    ours = Claim("x-y", "s", "c", "m", "how it is decided", ("fig-x",), rule=verdicts.below("a", 1, 2),
                 origin="ours", examples={"holds": {"a": 0}, "partly": {"a": 1.5}, "fails": {"a": 3}})
    assert [ours.decide(ours.examples[g]).verdict for g in GRADES] == ["confirmed", "confirmed with differences",
                                                                       "refuted"]
    paper = Claim(**{**ours.__dict__, "origin": "paper"})
    assert [paper.decide(paper.examples[g]).verdict for g in GRADES] == list(verdicts.SCALES["paper"])
    with pytest.raises(ValueError, match="verdict"):   # the ledger refuses a word of the other scale
        ledger.make_entry("x-y", "s", "c", "confirmed", ["fig-x"], how="h", origin="paper")


@pytest.mark.parametrize("rule, at, grade", [(verdicts.identity("a"), 9.9e-13, "holds"),
                                             (verdicts.identity("a"), 1.1e-12, "partly"),
                                             (verdicts.identity("a"), 1.1e-6, "fails"),
                                             (verdicts.identity("a"), float("nan"), "fails"),
                                             (verdicts.above("a", 2, 1), 2.1, "holds"),
                                             (verdicts.above("a", 2, 1), 1.1, "partly"),
                                             (verdicts.above("a", 2, 1), 0.9, "fails")])
def test_shared_rules_at_their_thresholds(rule, at, grade):
    assert rule({"a": at}) == grade


# --- one declared test across seeds -------------------------------------------------------------------------

def test_t_quantiles_are_students():
    # reference values of Student's t 0.975 quantile (tables; scipy.stats.t.ppf)
    for df, q in ((1, 12.7062), (2, 4.3027), (9, 2.2622), (30, 2.0423)):
        assert stats.t_quantile_975(df) == pytest.approx(q, abs=1e-4)
    assert stats.t_quantile_975(60) == pytest.approx(2.0003, abs=1e-3)
    assert stats.t_quantile_975(1000) == pytest.approx(1.9623, abs=1e-3)


def test_paired_difference_is_the_difference_of_accuracies_with_the_paired_variance():
    rng = np.random.default_rng(0)
    a, b = rng.random(1000) < 0.9, rng.random(1000) < 0.8
    d, v = stats.paired_difference(a, b)
    assert d == pytest.approx(a.mean() - b.mean(), abs=1e-15)
    diff = a.astype(float) - b.astype(float)            # the same variance from the per-item differences
    assert v == pytest.approx(diff.var() / diff.size, rel=1e-12)


def test_pooled_over_seeds_with_equal_seeds_is_the_common_effect_with_a_t_interval():
    got = stats.pooled_over_seeds([0.01, 0.01, 0.01], [1e-6, 1e-6, 1e-6])
    assert got["effect"] == pytest.approx(0.01) and got["tau"] == 0 and got["same_sign"] == 1.0
    # the interval is never narrower than the random-effects one: 4.3027 * sqrt(1e-6 / 3)
    assert got["hi"] - got["effect"] == pytest.approx(4.3027 * math.sqrt(1e-6 / 3), rel=1e-6)


def test_pooled_over_seeds_widens_with_seed_to_seed_spread_and_flags_a_sign_change():
    tight = stats.pooled_over_seeds([0.010, 0.011, 0.009], [1e-6] * 3)
    loose = stats.pooled_over_seeds([0.03, -0.005, 0.005], [1e-6] * 3)
    assert tight["lo"] > 0 and loose["lo"] < 0 < loose["hi"]
    assert loose["tau"] > 0.01 and loose["same_sign"] == 0.0


@pytest.mark.parametrize("deltas, variances, match", [([], [], "non-zero"), ([0.1], [0.1, 0.2], "equal"),
                                                      ([float("nan")], [0.1], "finite"), ([0.1], [-1.0], ">= 0")])
def test_pooled_over_seeds_refuses_bad_input(deltas, variances, match):
    with pytest.raises(ValueError, match=match):
        stats.pooled_over_seeds(deltas, variances)


# --- checks of the stored results (not of the code that made them) ----------------------------------------

@pytest.mark.skipif(ROOT is None or not (ROOT / "data" / "full" / "ledger.json").is_file(),
                    reason="no stored full-profile ledger (outside a checkout)")
def test_stored_ledger_is_what_the_declared_rules_decide_from_the_stored_numbers():
    """Re-deciding every claim from the stored numbers gives the stored full-profile ledger (a check of the
    stored ledger: `python -m mfattn verdicts --write` re-decides it)."""
    stored = ledger.read_ledger("full")
    decided = verdicts.redecide(ROOT)
    assert set(decided) == set(stored), (sorted(set(decided) - set(stored)), sorted(set(stored) - set(decided)))
    for cid, d in decided.items():
        e = stored[cid]
        for key in ("verdict", "how", "note", "numbers", "origin", "evidence", "claim", "source", "chapter"):
            assert e.get(key) == d[key], f"{cid}: stored {key} {e.get(key)!r} but the rule gives {d[key]!r}"
        premises = ledger.clean_premises(cid, d["premises"])
        for key in ledger.PREMISE_FIELDS:
            assert e.get(key) == premises.get(key), f"{cid}: stored {key} {e.get(key)!r} but the rule gives {premises.get(key)!r}"


def test_a_rule_that_cannot_decide_its_numbers_says_not_tested_and_why():
    def rule(s):
        if s["points beyond"] == 0:
            raise verdicts.Undecidable("no point beyond the line converged")
        return "holds" if s["x"] > 1 else "fails"
    c = Claim("x-y", "s", "c", "m", "how it is decided", ("fig-x",), rule=rule,
              examples={"holds": {"points beyond": 1, "x": 2}, "fails": {"points beyond": 1, "x": 0}})
    d = c.decide({"points beyond": 0, "x": 2})
    assert d.verdict == "not tested" and "no point beyond the line converged" in d.note


def test_chapter_1_at_line_rule_reads_the_last_measured_beta_beyond_the_crossing():
    """TAP theories that stop converging beyond the AT line are judged where they were last measured, not at
    the grid's end (a non-converged iteration is not an inaccurate theory): the damping-0.5 statistic, now an
    alternative of the claim, whose primary reads the damping-0.05 solutions of every instance."""
    claim = next(c for c in CLAIMS if c.id == "ising-at-accuracy")
    old = next(a for a in claim.alternatives if "the rule before the premises" in a.name).rule
    s = {"betas": [0.5, 1.0, 1.5, 2.0], "instances": 4, "tap_own_at": 1.2, "atap_own_at": 1.2,
         "naive_by_beta": [1, 1, 1, 1], "tap_by_beta": [.1, .1, .2, None], "atap_by_beta": [.1, .1, .2, None],
         "tap_ok_by_beta": [4, 4, 4, 0], "atap_ok_by_beta": [4, 4, 4, 0]}
    assert old(s) == "fails"                    # still ahead at β = 1.5, the last measured point: against the claim
    s.update(tap_by_beta=[.1, .1, None, None], tap_ok_by_beta=[4, 4, 0, 0])
    with pytest.raises(verdicts.Undecidable):
        old(s)


def test_apply_decisions_rewrites_the_ledger_keeping_each_runs_info(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    path = ledger.ledger_path("full")
    path.parent.mkdir(parents=True)
    this = "tests/test_verdict_rules.py::test_apply_decisions_rewrites_the_ledger_keeping_each_runs_info"
    old = {cid: {**ledger.make_entry(cid, "S", "C.", "reproduced", [this], how="rule"), "chapter": "ising",
                 "profile": "full", "seed": 0, "run_started": "2026-01-01T00:00:00", "git_commit": "old",
                 "figures_shown": []} for cid in ("a-claim", "gone-claim")}
    store.atomic_write_json(path, old)
    decided = {"a-claim": {"chapter": "ising", "source": "S", "claim": "C.", "verdict": "not reproduced",
                           "evidence": [this], "numbers": {"x": 1.0}, "note": "n", "how": "rule", "measured": "m",
                           "origin": "paper"},
               "new-claim": {"chapter": "ising", "source": "S", "claim": "D.", "verdict": "refuted", "evidence": [this],
                             "numbers": {}, "note": "", "how": "rule", "measured": "", "origin": "ours"}}
    report = ledger.apply_decisions(decided, "abc1234")
    assert report == {"changed": ["a-claim: reproduced -> not reproduced"], "added": ["new-claim"],
                      "dropped": ["gone-claim"]}
    new = ledger.read_ledger("full")
    assert set(new) == {"a-claim", "new-claim"}
    assert new["a-claim"]["run_started"] == "2026-01-01T00:00:00" and new["a-claim"]["git_commit"] == "abc1234"
    assert new["a-claim"]["basis"] == "full profile" and new["a-claim"]["verdict"] == "not reproduced"
    bad = {"a-claim": {**decided["a-claim"], "verdict": "confirmed"}}   # a word of the other scale is refused
    with pytest.raises(ValueError, match="verdict"):
        ledger.apply_decisions(bad, "abc1234")


@pytest.mark.skipif(ROOT is None or not (ROOT / "data" / "full" / "ledger.json").is_file(),
                    reason="no stored full-profile ledger (outside a checkout)")
def test_stored_ledger_passes_the_command_lines_check(capsys):
    from mfattn.__main__ import main

    assert main(["verdicts", "--check"]) == 0
    assert "differ from the stored ledger" in capsys.readouterr().out
