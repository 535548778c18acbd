"""The sixth outside table's rows in the companion (part A, second round): the argument checkers called with hostile
options, the one-number rules fed no mapping, the finite reads and the rule factories' thresholds, a Claim's id,
note and examples, Claim.decide's remedy and chapter, and the premises' helpers. Each row is refused at the boundary
by one error naming the parameter, or documented where the result is the one the docstring states."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from mfattn.companion import checks, premises, stored_kinds, verdicts
from mfattn.companion.grades import ClaimError, Undecidable

CL = next(c for c in verdicts.declared("ising") if c.id == "ising-tap-onsager")
CLE = dict(CL.examples["fails"])


def _factory(t):
    return lambda s: "holds" if s["a"] < t else "fails"


def _toy(**change):
    fields = dict(id="x-claim", source="s", claim="c", measured="m", how="how it is decided", evidence=("fig-x",),
                  rule=lambda s: "holds" if s["x"] > 1 else "fails",
                  examples={"holds": {"x": 2.0}, "fails": {"x": 0.5}})
    return verdicts.Claim(**{**fields, **change})


ROWS = [
    # id, call, exception, regex naming the parameter
    ("a0243", lambda: checks.check_strings("m", [np.str_("a"), ""]), ValueError, r"m must hold non-empty"),
    ("a0252", lambda: checks.check_tensor("t", torch.zeros(2, 3), shape=(2.0, 3)), TypeError, r"shape"),
    ("a0252b", lambda: checks.check_tensor("t", torch.zeros(2, 3), shape="23"), TypeError, r"shape"),
    ("a0283", lambda: checks.check_work("steps", 10, env="PATH"), ValueError, r"env must name the MFATTN_"),
    ("a0303", lambda: checks.check_rule("c", "", "choice:a|"), ValueError, r"rule 'choice:a\|' of 'c'"),
    ("a0316", lambda: checks.contract(alloc=3, x="real")(lambda x: x), TypeError, r"alloc must be None or a function"),
    ("a0329", lambda: verdicts.below("x", 1.0)(None), TypeError, r"numbers must be the stored numbers"),
    ("a0330", lambda: verdicts.below("x", 1.0)([("x", 0.5)]), TypeError, r"numbers must be the stored numbers"),
    ("a0330b", lambda: verdicts.above("x", 1.0)(None), TypeError, r"numbers must be the stored numbers"),
    ("a0353", lambda: verdicts.finite_numbers({"a": torch.tensor([1.0, float("nan")])})["a"], Undecidable,
     r"a is NaN at \[1\]"),
    ("a0353b", lambda: verdicts.finite_numbers({"a": torch.tensor(float("inf"))})["a"], Undecidable, r"a is inf"),
    ("a0360", lambda: verdicts.finite_factory(_factory)(float("nan")), ValueError, r"rule_at's argument 0"),
    ("a0360b", lambda: verdicts.finite_factory(_factory)(t=True), TypeError, r"rule_at's t"),
    ("a0363", lambda: dataclasses.replace(CL, id="a--b"), ClaimError, r"claim id must be .*single"),
    ("a0363b", lambda: dataclasses.replace(CL, id="a-"), ClaimError, r"claim id"),
    ("a0367b", lambda: dataclasses.replace(CL, examples={"fails": [1.0]}), ClaimError, r"examples\['fails'\] must"),
    ("a0380", lambda: CL.rule_at(factor=float("nan")), ValueError, r"rule_at's factor must be a finite"),
    ("a0381", lambda: CL.rule_at(factor=-2.0), ValueError, r"rule_at's factor must be > 0"),
    ("a0381b", lambda: CL.rule_at(factor=0.0), ValueError, r"rule_at's factor must be > 0"),
    ("a0382", lambda: CL.rule_at(factor=np.array([2.0])), TypeError, r"rule_at's factor must be a real number"),
    ("a0383", lambda: CL.rule_at(factor=True), TypeError, r"rule_at's factor must be a real number"),
    ("a0388", lambda: CL.decide(CLE, remedy=3), TypeError, r"remedy must be a string"),
    ("a0389", lambda: CL.decide(CLE, chapter="bogus"), ValueError, r"chapter must be '' or one of"),
    ("a0389b", lambda: CL.premises(CLE, None, chapter=3), TypeError, r"chapter must be"),
    ("a0389c", lambda: CL.decide([("tap_m", 1.0)]), TypeError, r"numbers must be the stored numbers"),
    ("a0417", lambda: premises.one_unit_cap({"bogus": 1}), ValueError, r"spread must be spread_of's dict"),
    ("a0418", lambda: premises.threshold_alternatives(3, CL.thresholds, CLE), TypeError, r"rule_at must be"),
    ("a0418b", lambda: premises.threshold_alternatives(CL.rule_at, "factor", CLE), TypeError, r"thresholds must"),
    ("a0418c", lambda: premises.threshold_alternatives(CL.rule_at, CL.thresholds, None), TypeError, r"numbers must"),
    ("log-threshold", lambda: dataclasses.replace(CL.thresholds[0], value=-2.0), premises.PremiseError,
     r"threshold 'factor': a factor .* above 0"),
]


@pytest.mark.parametrize("call, exc, words", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_hostile_call_is_refused_naming_its_parameter(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


@pytest.fixture
def few_kinds(monkeypatch):
    """The stored kinds as a small table (check_claims reads them; the real store takes seconds to read)."""
    monkeypatch.setattr(stored_kinds, "_KINDS", {"x": "number", "beta": "number"})


@pytest.mark.parametrize("change, words", [
    (dict(note="{bogus_key6}"), r"note names 'bogus_key6', which no example and no stored number"),   # a0366
    (dict(examples={"fails": {"x": 0.5}, "holds": {"x": 0.5}}), r"example for 'holds' gives 'fails'"),  # a0369
    (dict(examples={"fails": {"y": 0.5}}), r"example for 'fails' gives no grade: (KeyError|MissingNumber)"),
    (dict(examples={"fails": {}}), r"example for 'fails' holds no numbers"),                          # a0367
    (dict(examples={"fails": {}}, rule=lambda s: "fails"), r"example for 'fails' holds no numbers"),
])
def test_check_claims_refuses_a_note_or_example_that_cannot_be_read(few_kinds, change, words):
    claim = _toy(**change)   # construction cannot grade the examples (the store's kinds are read later)
    with pytest.raises(ClaimError, match=words):
        verdicts.check_claims([claim])


def test_valid_controls_still_work(few_kinds):
    assert checks.check_choice("m", 3, (3, 4)) == 3   # a0237: documented (integers among integer choices)
    assert checks.check_strings("m", [np.str_("a"), "b"]) == ["a", "b"]
    assert checks.check_tensor("t", torch.zeros(2, 3), shape=(np.int64(2), None)).shape == (2, 3)
    assert checks.check_work("steps", 10, env="MFATTN_WORK_FACTOR") == 10.0
    assert checks.check_rule("c", "b", "choice:a|b") == "b"
    grid = checks.check_grid("g", torch._neg_view(torch.tensor([-0.5, -1.0])))   # a0266: read by its values
    assert grid.tolist() == [0.5, 1.0]
    assert verdicts.below("x", 1.0)({"x": 0.5}) == "holds"
    assert verdicts.finite_numbers({"a": torch.tensor([1.0, 2.0])})["a"].tolist() == [1.0, 2.0]
    assert verdicts.finite_factory(_factory)(np.float32(1.0))({"a": 0.5}) == "holds"
    assert verdicts.finite_factory(_factory)(np.array(1.0))({"a": 2.0}) == "fails"
    assert CL.rule_at(factor=np.float64(2.0))(CL.examples["holds"]) == "holds"
    assert CL.rule_at(factor=2)(CL.examples["partly"]) == "partly"
    assert CL.decide({}, "run it", "ising").verdict == "not tested"
    toy = _toy(note="{x:.2f} and {beta}")
    verdicts.check_claims([toy])
    assert toy.decide({"x": 2.0, "beta": 0.5}, chapter="").note == "2.00 and 0.5"
    # a0415: documented: a NaN per-unit value is a missing unit, stored as None and left out of the range
    got = premises.spread_of(premises.Spread("seed", values=lambda s: {"a": [1.0, float("nan")]}), {})
    assert got == {"unit": "seed", "values": {"a": [1.0, None]}, "n": 2, "range": {"a": [1.0, 1.0]}}
    assert premises.one_unit_cap({"unit": "seed", "n": 1})("holds") == "partly"
    assert premises.one_unit_cap({"n": 1})("holds") == "partly"
    # a0420: documented: no threshold's noise can be read from the counterfactual example, so no alternative
    assert premises.threshold_alternatives(CL.rule_at, CL.thresholds, CLE) == []


def test_a_moved_threshold_still_reads_finite_numbers_only():   # a0420: where the noise can be read
    numbers = {"tap_m_inst": [0.4, 0.5, 0.45, 0.42], "naive_m_inst": [1.0, 1.2, 1.1, 1.05], "naive_m": 1.0}
    alternatives = premises.threshold_alternatives(CL.rule_at, CL.thresholds, {**numbers, "tap_m": 0.4})
    assert len(alternatives) == 2
    for alt in alternatives:
        assert alt.rule({**numbers, "tap_m": 0.4}) == "holds"
        with pytest.raises(Undecidable, match="tap_m is NaN"):
            alt.rule({**numbers, "tap_m": float("nan")})
