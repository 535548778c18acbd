"""Mutation round 4 (mut-s12): mfattn/structural/claims_summary.py (the median of the predictive-coding winners'
weights, even and odd counts) and mfattn/dynamics/claims_stored.py (the bin rule's quasi-periodic orbits of period
above 80)."""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.dynamics import claims_stored as S
from mfattn.structural import claims_summary as CS

_SIZES = {"slot_trials": 50, "pc_trials": 200, "hop_trials": 100, "enum_instances": 8}


@pytest.mark.parametrize("w, median", [([0.9, 0.5, 0.7, 0.95], 0.8), ([0.9, 0.5, 0.7], 0.7), ([0.6], 0.6),
                                       ([0.25, 0.75], 0.5)])
def test_the_winners_median_weight(w, median):
    """claims_summary.py:135: the mean of the two middle weights (the middle one for an odd count)."""
    got = CS._derived_structural({"pc_win_weights": w}, _SIZES)["pc_win_median"]
    assert got == pytest.approx(median, rel=1e-12) and got == pytest.approx(float(np.median(w)), rel=1e-12)


def test_the_bin_rules_quasi_periodic_orbits_with_a_long_period():
    """claims_stored.py:300: bin class 1 (80 <= count < 2500) with a period above 80."""
    counts = np.array([10, 100, 100, 100, 3000, 3000])     # classes 0, 1, 1, 1, 2, 2
    per = np.array([4, 81, 80, 0, 0, 0])
    lam = np.array([-0.1, -0.01, -0.01, 1e-5, 0.03, 0.02])
    got = S._diagram({"betas": np.linspace(1.0, 1.5, 6), "lyapunov": lam, "period": per, "paper_counts": counts})
    assert (got["periodic"], got["quasi-periodic"], got["chaotic"]) == (1, 3, 2)
    assert got["quasi with period>80"] == 1
    assert got["first quasi-periodic beta"] == pytest.approx(1.1) and got["first chaotic beta"] == pytest.approx(1.4)
