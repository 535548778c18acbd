"""The checks every chapter's boundary-case tests share (``tests/test_*_claims_boundaries.py``, and the chapter 2-3
cases in ``tests/test_implicit_claims.py``): a case is ``(claim_id, numbers, grade)``, numbers put at or just past
one of the rule's thresholds; ``grade`` None means the numbers cannot decide."""

import json

import pytest

from mfattn.companion import verdicts


def check_case(claim: verdicts.Claim, numbers: dict, grade: str | None) -> None:
    """The rule grades ``numbers`` as ``grade``; for None it raises Undecidable and the claim is "not tested",
    saying why (the stored numbers cannot decide it) and showing only the numbers it shows when decided (what was
    measured stays visible where it cannot decide the claim)."""
    if grade is None:
        with pytest.raises(verdicts.Undecidable):
            claim.rule(numbers)
        d = claim.decide(numbers, "run the full profile")
        assert d.verdict == verdicts.NOT_TESTED and d.note.startswith("The stored numbers cannot decide it")
        try:
            expected = claim._numbers(numbers)
        except (KeyError, verdicts.Undecidable, TypeError, ValueError, ZeroDivisionError):
            expected = {}
        assert json.dumps(d.numbers, sort_keys=True, default=str) == json.dumps(expected, sort_keys=True, default=str)
    else:
        assert claim.rule(numbers) == grade


def check_every_rule_covered(cases, claims) -> None:
    """Every claim with a rule among ``claims`` has cases, and cases of each of the three grades."""
    seen = {}
    for claim_id, _, grade in cases:
        seen.setdefault(claim_id, set()).add(grade)
    ruled = {c.id for c in claims if not c.rests_on_tests}
    assert set(seen) == ruled, f"rules without boundary cases: {sorted(ruled - set(seen))}"
    for claim_id, grades in seen.items():
        assert {"holds", "partly", "fails"} <= grades, f"{claim_id}: boundary cases only for {sorted(grades, key=str)}"
