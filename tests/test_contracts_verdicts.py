"""Generated hostile input for the public functions added with the declared-claim mechanism
(``mfattn.companion.stats``, ``mfattn.companion.verdicts``, ``mfattn.companion.ledger.make_entry``).

Each generated call either returns finite results of the documented form or raises ValueError/TypeError naming
the parameter; never a NaN, never an exception from inside numpy. Fixed seed (derandomised), a deadline per
example, so the suite stays within its time budget.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mfattn.companion import ledger, stats, verdicts

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
anything = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
                     st.text(max_size=5), st.lists(st.floats(allow_nan=True), max_size=4))


@SETTINGS
@given(deltas=st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5)), max_size=6),
       variances=st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5)), max_size=6))
@example(deltas=[0.0, 1.8961503816218355e+148], variances=[0.0, 0.0])   # found in CI: τ² overflowed, 1/Σw divided by 0
def test_pooled_over_seeds_returns_finite_numbers_or_names_its_parameter(deltas, variances):
    try:
        got = stats.pooled_over_seeds(deltas, variances)
    except ValueError as err:
        assert "deltas" in str(err) or "variances" in str(err)
        return
    assert all(math.isfinite(v) for v in got.values()) or any(abs(d) > 1e150 for d in deltas)
    assert got["lo"] <= got["effect"] <= got["hi"] and got["k"] == len(deltas) and got["tau"] >= 0


@SETTINGS
@given(deltas=st.lists(st.floats(-1, 1), min_size=1, max_size=8),
       variances=st.lists(st.floats(0, 1e-2), min_size=8, max_size=8))
def test_pooled_effect_lies_within_the_range_of_the_seeds(deltas, variances):
    got = stats.pooled_over_seeds(deltas, variances[:len(deltas)])
    assert min(deltas) - 1e-12 <= got["effect"] <= max(deltas) + 1e-12


@SETTINGS
@given(a=anything, b=anything)
def test_paired_difference_refuses_anything_but_two_boolean_vectors(a, b):
    with pytest.raises(ValueError, match="correct_a"):
        stats.paired_difference(a, b)


@SETTINGS
@given(a=st.lists(st.booleans(), min_size=1, max_size=50), flips=st.lists(st.booleans(), min_size=50, max_size=50))
def test_paired_difference_of_boolean_vectors_is_bounded(a, flips):
    a = np.array(a)
    b = a ^ np.array(flips[:a.size])
    d, v = stats.paired_difference(a, b)
    assert -1 <= d <= 1 and 0 <= v <= 1 and math.isfinite(v)


@SETTINGS
@given(df=anything)
def test_t_quantile_refuses_non_integers_and_small_df(df):
    if isinstance(df, int) and not isinstance(df, bool) and df >= 1:
        assert 1.95 < stats.t_quantile_975(df) <= 12.7062
    else:
        with pytest.raises(ValueError, match="df"):
            stats.t_quantile_975(df)


@SETTINGS
@given(x=st.floats(allow_nan=True, allow_infinity=True), holds=st.floats(-1e6, 1e6), gap=st.floats(0, 1e6))
def test_shared_rules_give_a_grade_for_every_number_and_fail_on_nan(x, holds, gap):
    """A one-number rule grades every finite number and cannot be decided by a NaN or an infinity (it would compare
    False, or pass a bound); identity grades every absolute deviation (>= 0), fails a NaN or infinite one (its
    computation broke down) and refuses a negative one (no absolute deviation is)."""
    for rule in (verdicts.below("a", holds, holds + gap), verdicts.above("a", holds, holds - gap)):
        if math.isfinite(x):
            assert rule({"a": x}) in verdicts.GRADES
        else:
            with pytest.raises(verdicts.Undecidable, match="a is"):
                rule({"a": x})
    if x < 0:
        with pytest.raises(ValueError, match="absolute deviation"):
            verdicts.identity("a")({"a": x})
    else:
        grade = verdicts.identity("a")({"a": x})
        assert grade in verdicts.GRADES and (math.isfinite(x) or grade == "fails")


@SETTINGS
@given(field=st.sampled_from(["claim_id", "source", "claim", "verdict", "evidence", "numbers", "note", "how",
                              "measured", "origin"]), value=anything)
def test_make_entry_names_the_field_it_refuses(field, value):
    good = dict(claim_id="x-claim", source="S 2024", claim="A claim.", verdict="reproduced", evidence=["fig-x"],
                numbers={"a": 1.0}, note="", how="holds if a > 0", measured="", origin="paper")
    try:
        entry = ledger.make_entry(**{**good, field: value})
    except ValueError as err:       # LedgerError is a ValueError
        assert field.split("_")[0] in str(err) or (field == "note" and "not tested" in str(err))
        return
    assert all(not (isinstance(v, float) and math.isnan(v)) for v in entry["numbers"].values())


@SETTINGS
@given(obj=st.recursive(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.none(),
                                  st.text(max_size=3)),
                        lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                        max_leaves=10))
def test_finite_or_none_makes_any_summary_standard_json(obj):
    import json

    from mfattn.companion import store

    json.dumps(store.finite_or_none(obj), allow_nan=False)   # never raises: NaN and inf became null
