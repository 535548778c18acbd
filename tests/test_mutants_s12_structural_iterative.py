"""Mutation round 4 (mut-s12): mfattn/structural/claims_iterative.py -- the slot-competition claim's bootstrap
reading (the 2.5 % quantile of 10 000 resampled means, not the mean) and its threshold check (5 standard errors of
the mean gap within 0.1: both edges, at exactly 0.1)."""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.structural import claims_iterative as CI


def _s(gaps):
    return {"slot_paper_gaps": list(gaps), "slot_paper_gap": float(np.mean(gaps))}


def test_the_bootstrap_reading_is_the_lower_end_of_the_resampled_means():
    """claims_iterative.py:69: mean over each resample (axis 1), then its 2.5 % quantile."""
    wide = [0.0, 0.3] * 5               # mean 0.15, but the bootstrap's lower end is below 0.1: partly
    assert CI._competition_bootstrap(_s(wide)) == "partly"
    gaps = np.asarray(wide)
    rng = np.random.default_rng(0)
    lo = float(np.quantile(gaps[rng.integers(0, 10, (10_000, 10))].mean(1), 0.025))
    assert 0.0 < lo < 0.1 and lo == pytest.approx(0.06, abs=0.011)
    assert CI._competition_bootstrap(_s([0.2, 0.25] * 5)) == "holds"
    assert CI._competition_bootstrap(_s([-0.3, 0.3] * 5)) == "fails"


_EDGE = [0.28464101615137755, 0.21535898384862245, 0.28464101615137755, 0.21535898384862245]   # 5 SE == 0.1


def test_the_competition_threshold_check_at_five_standard_errors_of_exactly_0_1():
    """claims_iterative.py:83: `5 * se <= 0.1` (0.1 resolvable by five standard errors of the mean gap)."""
    g = np.asarray(_EDGE)
    assert 5 * float(g.std(ddof=1) / np.sqrt(g.size)) == 0.1
    ok, text = CI._competition_resolvable(_s(_EDGE))
    assert ok is True and "4 mixtures" in text and "(0.1 is 5 of them)" in text
    above = [0.25 + 0.0346410161513776, 0.25 - 0.0346410161513776] * 2     # 5 SE = 0.10000000000000016
    assert CI._competition_resolvable(_s(above))[0] is False
    wide = [0.0, 0.5] * 2                                                   # 5 SE = 0.72
    assert CI._competition_resolvable(_s(wide))[0] is False
    tight = [0.24, 0.26] * 2
    assert CI._competition_resolvable(_s(tight))[0] is True
    assert CI._competition_resolvable({**_s(tight), "slot_paper_gap": 0.3})[0] is False   # not the stored gap
