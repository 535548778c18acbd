"""Edges of :mod:`mfattn.meanfield.claims_ising_families` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): the factor rule's grade exactly at 1/factor and at 1, and the
compensation readings' ratio of the MEAN errors (a worse theory at errors near 2, so a product would not pass for a
ratio).
"""

from __future__ import annotations

from mfattn.meanfield import claims_ising_families as cf
from mfattn.meanfield.families import FAMILIES


def test_the_grade_holds_strictly_below_one_over_the_factor_and_fails_at_one():
    assert cf._grade([0.2, 0.49], 2.0, True) == "holds"
    assert cf._grade([0.2, 0.5], 2.0, True) == "partly"        # at 1/2: not below it
    assert cf._grade([0.2, 0.99], 2.0, True) == "partly"
    assert cf._grade([0.2, 1.0], 2.0, True) == "fails"
    assert cf._grade([0.2, 0.3], 2.0, False) == "fails"       # not converged often enough


def _families(atap, tap, share=1.0):
    out = {"fam_beta": 0.5}
    for f in FAMILIES:
        n_none = round((1 - share) * len(atap))
        out.update({f"fam_{f}_atap_m_inst": [None] * n_none + list(atap[n_none:]), f"fam_{f}_tap_m_inst": list(tap),
                    f"fam_{f}_tsite_m_inst": list(tap)})
    return out


def test_the_compensation_reading_divides_the_mean_errors():
    """TAP's errors near 2 and adaptive TAP's near 0.8: the ratio of means 0.4 holds at factor 2 (a product, 1.6,
    would fail); adaptive TAP near 1.2: 0.6, partly; near 2.2: fails."""
    tap = [2.0, 2.1, 1.9, 2.0, 2.05, 1.95, 2.0, 2.0, 2.0, 2.0]
    rule = cf._compensates_at(2.0)
    assert rule(_families([0.4 * t for t in tap], tap)) == "holds"
    assert rule(_families([0.6 * t for t in tap], tap)) == "partly"
    assert rule(_families([1.1 * t for t in tap], tap)) == "fails"
    assert cf._compensates_at(1.0)(_families([0.6 * t for t in tap], tap)) == "holds"


def test_the_compensation_reading_needs_nine_in_ten_converged():
    tap = [2.0] * 10
    rule = cf._compensates_at(2.0)
    assert cf.converged_share(_families([0.8] * 10, tap, share=0.9), "diluted") == 0.9
    assert rule(_families([0.8] * 10, tap, share=0.9)) == "holds"
    assert rule(_families([0.8] * 10, tap, share=0.8)) == "fails"
    assert cf._compensates_at(2.0, converged=0.0)(_families([0.8] * 10, tap, share=0.8)) == "holds"
