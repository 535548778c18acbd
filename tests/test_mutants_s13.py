"""Two survivors of the twelfth session's mutation round, killed: a threshold's noise over equal draws is none (not
the round-off of a mean), and a rule's check returns a Python bool."""

from __future__ import annotations

import numpy as np

from mfattn.dynamics import claims_lambda
from mfattn.implicit import claims_transformer_rules as R


def test_equal_draws_have_no_spread_not_round_off():
    noise = R._sd_over_draws("corr_median_ms", "corr_in_ms")
    assert np.std([0.1, 0.1, 0.1]) > 0                               # the round-off np.std shows for equal draws
    assert noise({"corr_median_ms_seeds": [0.1, 0.1, 0.1]}) is None
    assert noise({"corr_median_ms_seeds": [0.1, 0.2, 0.3]}) == np.std([0.1, 0.2, 0.3], ddof=1)
    assert noise({"corr_in_ms": 0.1}) is None                       # one number: no spread


def test_check_lt_says_true_or_false_as_a_python_bool():
    from mfattn.companion import store
    from mfattn.dynamics import claims_stored

    root = store.project_root()
    if root is None or not (root / "data/full/dmft/fig3b_sections.npz").is_file():
        import pytest
        pytest.skip("no stored chapter-6 full profile")
    ok, found = claims_lambda.check_lt(claims_stored.stored_numbers(root, "dmft")[0])
    assert type(ok) is bool and isinstance(found, str)
