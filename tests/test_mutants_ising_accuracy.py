"""Edges of :mod:`mfattn.meanfield.claims_ising_accuracy` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): the declared readings' thresholds on hand-made numbers either side of
them — every β's ratio at 1/2 and 1, the bootstrap interval's upper end at 1/2, and the sign test's 5 % level, where
22 instances, 16 of them one way, give p = 0.0525 (not significant) and 17 give p = 0.017.
"""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.companion import stats
from mfattn.companion.verdicts import Undecidable
from mfattn.meanfield import claims_ising_accuracy as acc


def _every_beta(ratios, betas=None):
    betas = betas or [0.05 * (i + 1) for i in range(len(ratios))]
    return {"betas": betas, "atap_by_beta": list(ratios), "tap_by_beta": [1.0] * len(ratios)}


def test_every_betas_ratio_below_one_half_holds_at_one_half_it_is_partly():
    """The reading 'every stored β ≤ 1': the largest ratio 0.49 holds, 0.5 (at the line, not below) and 0.99
    partly, 1.0 fails; β above 1 and β with no TAP error are left out."""
    assert acc._adaptive_every_beta(_every_beta([0.2, 0.49])) == "holds"
    assert acc._adaptive_every_beta(_every_beta([0.2, 0.5])) == "partly"
    assert acc._adaptive_every_beta(_every_beta([0.2, 0.99])) == "partly"
    assert acc._adaptive_every_beta(_every_beta([0.2, 1.0])) == "fails"
    assert acc._adaptive_every_beta(_every_beta([0.2, 3.0], betas=[0.5, 1.2])) == "holds"
    with pytest.raises(Undecidable, match="high-temperature"):
        acc._adaptive_every_beta(_every_beta([0.2], betas=[1.5]))


def _inst(better, worse):
    return {"atap_m_inst": list(better), "tap_m_inst": list(worse)}


def test_the_bootstrap_intervals_upper_end_decides_at_one_half_and_one():
    """Per-instance ratios all 0.40 to 0.44 (upper end near 0.44): holds; all 0.6 to 0.64: partly; 1.1: fails."""
    w = np.ones(10)
    spread = np.linspace(0.0, 0.04, 10)
    rule = acc._bootstrap_rule("atap", "tap")
    assert rule(_inst(0.40 + spread, w)) == "holds"
    assert rule(_inst(0.60 + spread, w)) == "partly"
    assert rule(_inst(1.10 + spread, w)) == "fails"
    assert acc._bootstrap_rule("atap", "tap", factor=1.5)(_inst(0.60 + spread, w)) == "holds"


def test_the_sign_tests_five_percent_level_on_its_edge():
    """16 of 22 instances better gives p = 0.0525 > 0.05: not significant (fails); 17 of 22 gives p = 0.017:
    significant below the worse theory (partly), and 17 below half of it: holds."""
    assert stats.sign_test([1.0] * 16 + [-1.0] * 6)["p"] == pytest.approx(0.052479, abs=1e-6)
    assert stats.sign_test([1.0] * 17 + [-1.0] * 5)["p"] == pytest.approx(0.016901, abs=1e-6)
    rule = acc._majority_rule("atap", "tap")
    w = [1.0] * 22
    assert rule(_inst([0.9] * 16 + [1.1] * 6, w)) == "fails"
    assert rule(_inst([0.9] * 17 + [1.1] * 5, w)) == "partly"
    assert rule(_inst([0.4] * 17 + [1.1] * 5, w)) == "holds"
    assert rule(_inst([0.4] * 16 + [1.1] * 6, w)) == "fails"


def test_the_c_majority_reads_the_errors_of_c_at_the_same_edge():
    """The order of the errors of C by the sign test: 17 of 22 better holds, 16 of 22 fails (p = 0.0525)."""
    s = {"atap_c_inst": [0.9] * 17 + [1.1] * 5, "tap_c_inst": [1.0] * 22}
    assert acc._c_majority(s, "atap", "tap") == "holds"
    s["atap_c_inst"] = [0.9] * 16 + [1.1] * 6
    assert acc._c_majority(s, "atap", "tap") == "fails"
    s["atap_c_inst"] = [1.1] * 17 + [0.9] * 5          # significantly WORSE: fails, not holds
    assert acc._c_majority(s, "atap", "tap") == "fails"


def test_the_per_site_every_beta_reading_at_one_half_and_one():
    """Adaptive TAP over per-site TAP at every stored β ≤ 1: largest ratio 0.49 holds, 0.5 partly, 1.0 fails; β = 1
    itself is read, β above it not; without per-site TAP's errors it cannot decide."""
    def s(ratios, betas=(0.5, 1.0)):
        return {"betas": list(betas), "atap_by_beta": list(ratios), "tsite_by_beta": [1.0] * len(ratios)}
    assert acc._site_every_beta(s([0.2, 0.49])) == "holds"
    assert acc._site_every_beta(s([0.2, 0.5])) == "partly"
    assert acc._site_every_beta(s([0.2, 1.0])) == "fails"
    assert acc._site_every_beta(s([0.2, 1.0], betas=(0.5, 1.2))) == "holds"
    with pytest.raises(Undecidable, match="per-site TAP's errors at every β are not stored"):
        acc._site_every_beta({"betas": [0.5], "atap_by_beta": [0.2]})
