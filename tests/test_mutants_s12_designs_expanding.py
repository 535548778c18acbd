"""Mutation round 4 (mut-s12): mfattn/structural/claims_designs_expanding.py -- kept_ratios pairs MSEs below one
(every trained MSE is), and vi_rule's default exactness 1e-6 (the median alternative uses it) at its edge."""

from __future__ import annotations

import pytest

from mfattn.structural import claims_designs_expanding as X
from mfattn.structural.claims_designs_numbers import DIMS, PS


def _mse(expanding, standard, head=1.0):
    s = {}
    for d in DIMS:
        for p in PS:
            s[f"exp_tail_mse_expanding_{d}_{p}_seeds"] = list(expanding)
            s[f"exp_tail_mse_standard_{d}_{p}_seeds"] = list(standard)
            s[f"exp_head_mse_standard_{d}_{p}_seeds"] = [head] * len(standard)
    return s


def test_kept_ratios_pairs_positive_mses_below_one():
    """claims_designs_expanding.py:75: MSEs must be > 0 (not > 1: a trained MSE is a small positive number)."""
    ratios, dropped = X.kept_ratios(_mse([0.02, 0.04], [0.04, 0.04]), "exp")
    assert set(ratios) == {(d, p) for d in DIMS for p in PS}
    assert all(r == pytest.approx(0.75) for r in ratios.values()) and all(v == [] for v in dropped.values())
    median, _ = X.kept_ratios(_mse([0.02, 0.04], [0.04, 0.04]), "exp", median=True)
    assert all(r == pytest.approx(0.75) for r in median.values())


@pytest.mark.parametrize("e, st", [([0.02, 0.0], [0.04, 0.04]), ([0.02, 0.04], [0.04, -0.01]), ([0.02], [0.04, 0.04])])
def test_kept_ratios_refuses_mses_that_do_not_pair_as_positive_numbers(e, st):
    with pytest.raises(X.Undecidable, match="do not pair as positive numbers"):
        X.kept_ratios(_mse(e, st), "exp")


@pytest.mark.parametrize("g, grade", [(0.0, "holds"), (9.9e-7, "holds"), (1e-6, "partly"), (0.049, "partly"),
                                      (0.05, "fails")])
def test_the_median_alternative_of_vi_rule_uses_the_default_exactness_1e_6(g, grade):
    """claims_designs_expanding.py:267: `exact=1e-6` by default (the statistic alternative passes none)."""
    import numpy as np

    rule = X.vi_rule(statistic=lambda v: float(np.median(v)))
    assert rule({"cavi_elbo_grad": 1e-9, "paper_elbo_grad_vectors": [g, g, 1.0]}) == grade
    assert X.vi_rule()({"cavi_elbo_grad": 1e-9, "paper_elbo_grad": g}) == grade
