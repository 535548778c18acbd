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


def _z_rule_numbers(share=1.0):
    return _families([0.8] * 10, [2.0] * 10, share)


def test_the_relative_rule_reads_z_beyond_its_edges_strictly():
    """The primary rule on given z values (two standard errors): a family exactly 2 below SK is not beyond it
    (partly), 2.01 below is (holds); exactly 2 above is not (partly), 2.01 above fails."""
    def rule(zs):
        return cf._relative_at(2.0, against=lambda s: {f: zs.get(f, 0.0) for f in FAMILIES})(_z_rule_numbers())
    assert rule({"hopfield": -2.0}) == "partly"
    assert rule({"hopfield": -2.01}) == "holds"
    assert rule({"hopfield": 2.0, "diluted": -2.01}) == "holds"
    assert rule({"hopfield": 2.01, "diluted": -3.0}) == "fails"
    assert rule({"ferro": 5.0}) == "partly"                   # the control is not read
    assert cf._relative_at(2.0, against=lambda s: {f: -3.0 for f in FAMILIES})(_z_rule_numbers(0.8)) == "fails"


def test_the_literal_reading_fails_only_above_two_standard_errors():
    """Adaptive TAP's own error 2 % above SK's (z about 0.4): holds; 30 % above (z about 5): fails."""
    sk = [1.0, 1.1, 0.9, 1.05, 0.95, 1.0]
    def numbers(scale):
        out = {"fam_beta": 0.5, "atap_m_inst": sk}
        out.update({f"fam_{f}_atap_m_inst": [scale * x for x in sk] for f in FAMILIES})
        return out
    small, large = numbers(1.02), numbers(1.3)
    assert 0.0 < cf._own_error_z(small, "hopfield") < 1.0 and cf._own_error_z(large, "hopfield") > 2.0
    assert cf._own_error_at("sk")(small) == "holds"
    assert cf._own_error_at("sk")(large) == "fails"


def test_the_sign_reading_holds_below_half_of_taps_error():
    """Every instance at 0.4 of TAP's error: below half of it (holds); at 0.6: below TAP only (partly)."""
    tap = [2.0, 2.1, 1.9, 2.0, 2.05, 1.95, 2.0, 2.0, 2.0, 2.0]
    assert cf._sign(_families([0.4 * t for t in tap], tap)) == "holds"
    assert cf._sign(_families([0.6 * t for t in tap], tap)) == "partly"
    assert cf._sign(_families([1.1 * t for t in tap], tap)) == "fails"
