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
