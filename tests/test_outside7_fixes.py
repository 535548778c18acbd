"""The seventh outside table's rows fixed in mfattn/companion and the claims modules (no chapter keys them): the
store's readers never admit a chapter's budget, every read of a checked view is checked, a complex NaN is a NaN, a
huge allocation is worded, Claim.grade checks its numbers, one-number rules need a key, shown numbers are distinct,
and a crossing factor is positive."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mfattn.companion import checks, checks_budgets, finite_reads, recurring_rules, stored_kinds, stored_views, verdicts


def test_reading_the_stores_kinds_admits_no_chapter_budget(monkeypatch):   # a0303, a0304
    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    monkeypatch.setattr(stored_kinds, "_KINDS", None)   # read the store again (chapter 4's reader reads full sizes)
    assert stored_kinds.stored_kinds()
    assert checks.max_work() == checks.DEFAULT_MAX_WORK
    with pytest.raises(ValueError, match="^n makes the call do"):
        checks.check_work("n", 10**10 + 1)


def test_every_read_of_a_checked_view_is_checked(monkeypatch):   # a0343-a0346
    monkeypatch.setattr(stored_kinds, "_KINDS", {"beta": "number"})
    view = stored_views.stored_view({"beta": "x"})
    for read in (lambda: view["beta"], lambda: view.get("beta"), lambda: view.setdefault("beta", 0.5),
                 lambda: view.values(), lambda: view.items(), lambda: view.pop("beta")):
        with pytest.raises(TypeError, match=r"numbers\['beta'\] must be a number"):
            read()
    good = stored_views.stored_view({"beta": 0.5})
    assert good.values() == [0.5] and good.items() == [("beta", 0.5)] and good.setdefault("gamma", 1) == 1


def test_a_complex_nan_is_not_finite():   # a0353
    with pytest.raises(verdicts.Undecidable, match="a is NaN"):
        finite_reads.finite_numbers({"a": complex(math.nan, 0.0)})["a"]
    assert finite_reads.finite_numbers({"a": complex(1.0, 2.0)})["a"] == complex(1.0, 2.0)


def test_a_huge_allocation_is_refused_in_words():   # a0297
    with pytest.raises(ValueError, match=r"n makes its buffers need .*~1e400 bytes"):
        checks.check_alloc("n", 10**400)


def test_grade_takes_the_stored_numbers_only():   # a0097, a0114, a0131, a0146
    claim = verdicts.declared("ising")[0]
    with pytest.raises(TypeError, match="^numbers must be the stored numbers"):
        claim.grade([("x", 1.0)])


def test_one_number_rules_need_a_key():   # a0384
    for make in (recurring_rules.below, recurring_rules.above):
        with pytest.raises(ValueError, match="key must name a stored number"):
            make("", 1.0)


@pytest.mark.parametrize("numbers", [("tap_m", "tap_m"), ("",), "tap_m", (3,)])
def test_shown_numbers_are_distinct_names(numbers):   # a0366
    with pytest.raises(verdicts.ClaimError, match="numbers must be distinct names"):
        verdicts.Claim("x7-c", "s", "c", "m", "h", ("fig-x",), rule=lambda s: "holds", examples={"fails": {"a": 1}},
                       numbers=numbers)


def test_a_crossing_factor_is_positive():   # a0202
    from mfattn.meanfield import claims_ising_plefka

    with pytest.raises(ValueError, match="^factor must be > 0"):
        claims_ising_plefka.instance_crossings({}, "tap", factor=0.0)
    assert checks_budgets.DEFAULT_MAX_WORK == 1e10 and np.isfinite(checks_budgets.CHAPTER_MAX_WORK)
