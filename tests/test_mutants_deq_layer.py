"""Edges of :mod:`mfattn.implicit.claims_deq_layer` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): deq-one-step-mnist's declared alternatives keep the claim's own
thresholds (three binomial SEs for "equal", one point for "near"), at both edges of each.
"""

from __future__ import annotations

import pytest

from mfattn.companion import verdicts
from mfattn.implicit.claims_deq_layer import THREE_SE_10K

ONE_STEP = next(c for c in verdicts.declared("deq") if c.id == "deq-one-step-mnist")


@pytest.mark.parametrize("prefix, key", [("the median seed", "step_gap"), ("the best of the stored budgets", "step_gap_best")])
def test_the_one_step_alternatives_read_equal_and_near_at_the_claims_thresholds(prefix, key):
    (rule,) = [a.rule for a in ONE_STEP.alternatives if a.name.startswith(prefix)]
    assert rule({key: THREE_SE_10K}) == "holds"
    assert rule({key: THREE_SE_10K + 0.01}) == "partly"
    assert rule({key: 1.0}) == "partly"
    assert rule({key: 1.01}) == "fails"
    assert rule({key: 1.5}) == "fails"


def _reaction_claim():
    return next(c for c in verdicts.declared("deq") if any(a.name.startswith("the signed cosine") for a in c.alternatives))


def test_the_signed_cosine_reading_has_lines_at_0_9_and_0_5():
    """The signed cosine against 0.9 and 0.5 (not its square): 0.9 holds, 0.89 and 0.5 partly, 0.49 fails, and a
    cosine of −0.95 (f_θ against the blog's sign) fails where the squared reading would hold."""
    c = _reaction_claim()
    (signed,) = [a.rule for a in c.alternatives if a.name.startswith("the signed cosine")]
    (low,) = [a.rule for a in c.alternatives if a.name.startswith("the 'with differences' line at a cosine of 0.3")]
    grade = {x: signed({"corr_reaction_cosine": x}) for x in (0.9, 0.89, 0.5, 0.49, -0.95)}
    assert grade == {0.9: "holds", 0.89: "partly", 0.5: "partly", 0.49: "fails", -0.95: "fails"}
    assert c.rule({"corr_reaction_cosine": -0.95}) == "holds"
    assert low({"corr_reaction_cosine": 0.31}) == "partly" and low({"corr_reaction_cosine": 0.29}) == "fails"
    assert c.rule({"corr_reaction_cosine": 0.51}) == "partly" and c.rule({"corr_reaction_cosine": 0.49}) == "fails"
