"""Mutation round 4 (mut-s12): rules at their edges -- the window lift's 0.1 (structural/claims_designs_checks.py),
the gap-closed share's one half (structural/claims_designs.py), and the memory claims' L = 4 and three noise floors
(dynamics/claims_memory.py)."""

from __future__ import annotations

import pytest

from mfattn.companion.verdicts import Undecidable
from mfattn.dynamics import claims_memory as CM
from mfattn.dynamics.claims_stored import FIG4
from mfattn.structural import claims_designs as CD
from mfattn.structural import claims_designs_checks as CK
from mfattn.structural.claims_designs_multihop import _MODELS


@pytest.mark.parametrize("effect, lo, hi, grade", [(0.1, 0.01, 0.2, "holds"), (0.099, 0.01, 0.2, "partly"),
                                                   (0.5, 0.0, 0.9, "partly"), (0.0, -0.1, 0.1, "fails"),
                                                   (0.05, -0.1, 0.0, "fails")])
def test_the_window_lift_holds_from_0_1_with_its_interval_above_0(effect, lo, hi, grade):
    """claims_designs_checks.py:156."""
    assert CK.lift_decide({}, effect, lo, hi) == grade


def _nmse(multi, n=3):
    s = {f"wd0_nmse_{m}_seeds": [1.0] * n for m in _MODELS}
    s["wd0_nmse_two_seeds"] = [0.0] * n
    s["wd0_nmse_multi_seeds"] = list(multi)
    return s


@pytest.mark.parametrize("multi, grade", [([0.5, 0.5, 0.5], "holds"), ([0.5, 0.25, 0.75], "holds"),
                                          ([0.51, 0.51, 0.51], "fails"), ([0.4, 0.6, 0.7], "fails")])
def test_the_gap_closed_share_holds_from_one_half(multi, grade):
    """claims_designs.py:135: median share of the gap closed >= 0.5 (share = 1 - multi here)."""
    assert CD._median_share("wd0_")(_nmse(multi)) == grade


def _memory(at):
    """f4_memory at every Fig. 4 β, the chaotic ones' entries from ``at`` (keyed by β)."""
    rows = [at.get(b, {"first_crossing_windows": [9], "beyond_context": 1.0, "noise_floor": 1.0}) for b in FIG4]
    return {"f4_betas": list(FIG4), "f4_memory": rows}


@pytest.mark.parametrize("s", [{}, {"f4_memory": None}, {"f4_memory": []}])
def test_the_memory_rules_are_undecidable_without_the_lag_by_lag_numbers(s):
    """claims_memory.py:80."""
    with pytest.raises(Undecidable, match="not stored"):
        CM._memory({**s, "f4_betas": list(FIG4)}, CM.CHAOTIC4[0])


@pytest.mark.parametrize("windows, grade", [([5, 6, 7], "holds"), ([3, 5, 6], "partly"), ([3, 4, 5], "fails"),
                                            ([4, 4, 9], "fails"), ([2, 7], "partly"), ([2, 6], "fails")])
def test_the_first_crossing_against_the_context_length_4(windows, grade):
    """claims_memory.py:97: every window beyond L = 4 holds; each β's median beyond it (strictly) partly."""
    s = _memory({b: {"first_crossing_windows": windows} for b in CM.CHAOTIC4})
    assert CM.first_crossing_at(s) == grade


@pytest.mark.parametrize("ratio, grade", [(10.0, "holds"), (9.99, "partly"), (3.0, "partly"), (2.99, "fails")])
def test_beyond_the_context_three_and_ten_noise_floors(ratio, grade):
    """claims_memory.py:104: min over the chaotic β of |ρ| beyond L over the noise floor: >= 10 holds, >= 3 partly."""
    s = _memory({b: {"beyond_context": ratio * 0.01 if b == CM.CHAOTIC4[1] else 0.5, "noise_floor": 0.01}
                   for b in CM.CHAOTIC4})
    assert CM.beyond_context_at(s) == grade
