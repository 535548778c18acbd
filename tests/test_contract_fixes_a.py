"""The boundary checks added where the generated contract tests (issue 44 item 5) found a hostile value accepted
silently or refused by a deep error: each message names the parameter."""

from __future__ import annotations

import pytest

from contracts_strategies_a import onsager_data


def test_onsager_bound_names_its_data_sets_bins_and_steps():
    from mfattn.implicit import onsager_bound as ob

    train, test = onsager_data(0), onsager_data(10)
    with pytest.raises(TypeError, match=r"^data must be a mapping"):
        ob.site_variable(None, "g")
    with pytest.raises(ValueError, match=r"^test lacks the key\(s\) \['J', 'h', 'm', 'c', 'beta'\]"):
        ob.binned_bound(train, {}, "g", 3)
    with pytest.raises(ValueError, match=r"^bins must name at least one integer"):
        ob.range_bounds(train, test, "g", ())
    with pytest.raises(ValueError, match=r"^each entry of bins must be an integer >= 2; got 1"):
        ob.range_bounds(train, test, "g", (1, 5))
    with pytest.raises(ValueError, match=r"^steps must be a positive integer; got 2.5"):
        ob.two_part_stand_in(train, test, steps=2.5)
    with pytest.raises(ValueError, match=r"steps=1e\+15"):
        ob.two_part_stand_in(train, test, steps=10**15)
    with pytest.raises(ValueError, match=r"^seed must be an integer >= 0; got -1"):
        ob.two_part_stand_in(train, test, seed=-1)
