"""Rows of the seventh outside table fixed in mfattn/companion (no chapter keys it): a ledger entry's key number is
the number it names, never another in its place; a statistic over units (seeds, starts) is Undecidable where a unit
holds a NaN or an infinity, never an interval of NaNs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mfattn.companion import ledger, premises, verdicts


def test_a_key_that_names_no_stored_number_is_refused():   # a0415
    entry = {"numbers": {"a": 1.0, "b": 2.0}, "key": "b"}
    assert ledger.key_number(entry) == ("b", 2.0)
    with pytest.raises(ValueError, match=r"e\['key'\] must name one of the entry's stored numbers"):
        ledger.key_number({**entry, "key": "c"})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_statistics_over_units_refuse_a_unit_not_measured(bad):   # a0117, a0134
    def decide(s, effect, lo, hi):
        return "holds" if lo > 0 else "fails"

    alternatives = premises.over_units("d", decide, variances="v", only=("a", "b"))
    good = {"d": [1.0, 2.0, 3.0, 2.0, 2.5, 1.0, 1.2], "v": [0.1] * 7, "a": [3, 4], "b": [0, 1]}
    for alt in alternatives:
        assert alt.rule(good) in ("holds", "fails")
        for key in ("d", "v", "a"):
            numbers = {**good, key: [*good[key][:-1], bad]}
            if key == "v" and "Hartung" not in alt.name or key == "a" and "paired test" not in alt.name:
                continue
            with pytest.raises(verdicts.Undecidable, match=rf"numbers\['{key}'\] holds"):
                alt.rule(numbers)


def test_statistics_over_units_refuse_words_among_the_units():
    (t,) = [a for a in premises.over_units("d", lambda s, e, lo, hi: "holds") if a.name.startswith("Student")]
    with pytest.raises(TypeError, match=r"numbers\['d'\] must be a list of numbers"):
        t.rule({"d": [1.0, "x"]})
    with pytest.raises(TypeError, match=r"numbers\['d'\] must be a list of numbers"):
        t.rule({"d": "12"})


def _tiny_problem():
    return {"mu": np.zeros((2, 3, 2)), "C": np.zeros((2, 3, 2))}


@pytest.mark.parametrize("key, arguments, loop, edge", [
    # each iteration counts at least its measured Python overhead (work.py): a call at the 1e10 budget runs seconds
    ("edges:mask_study", dict(n=2, d=1, instances=None), "instances", 4_000),
    ("edge_priors:priors_study", dict(n=3, d=1, temperatures=[1.0], instances=None), "instances", 666),
    ("slots:update_forms_study", dict(x=np.zeros((1, 2, 2)), mu=np.zeros((1, 2, 2)), steps=None), "steps", 14_284),
    ("unit_values:hopfield_values", dict(dim=1, counts=[1], betas=[1.0], trials=None), "trials", 18_018_018),
    ("expanding_train:train_expanding", dict(models=("standard",), ps=(0.5,), seeds=(0,), batch_size=1, n=3, d=1,
                                             steps=None), "steps", 2_500),
    ("multihop_train:train_multihop", dict(models=("one_layer",), seeds=(0,), batch_size=1, task=None,
                                           protocol="paired", steps=None), "steps", 3_333),
])
def test_python_heavy_iterations_count_their_overhead(monkeypatch, key, arguments, loop, edge):
    from mfattn.companion import work

    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    assert work.check_call_work("mfattn.structural." + key, {**arguments, loop: edge}) <= 1e10
    with pytest.raises(ValueError, match=rf"{loop}={edge + 1} .*MFATTN_MAX_WORK"):
        work.check_call_work("mfattn.structural." + key, {**arguments, loop: edge + 1})
