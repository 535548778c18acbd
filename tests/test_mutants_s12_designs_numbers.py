"""Mutation round 4 (mut-s12): mfattn/structural/claims_designs_numbers.py -- the multi-hop controls are derived only
where all five models store at least two seeds each, of one length; the benchmark numbers only where rows are stored."""

from __future__ import annotations

import pytest

from mfattn.structural import claims_designs_numbers as DN

_SEEDS = {"one": [0.5, 0.6, 0.7], "multi": [0.3, 0.35, 0.4], "two": [0.45, 0.5, 0.55], "one_x2": [0.48, 0.58, 0.66],
          "multi_norm": [0.32, 0.36, 0.45]}


def _s(seeds, prefix=""):
    return {f"{prefix}nmse_{m}_seeds": v for m, v in seeds.items()}


def test_the_controls_are_derived_where_all_five_models_store_the_same_seeds():
    out = DN.designs_derived(_s(_SEEDS), None)
    assert out["nmse_seeds_n"] == 3
    assert out["ctrl_plain_mean"] == pytest.approx(0.25) and out["ctrl_plain_positive"] == 3
    assert out["ctrl_control_mean"] == pytest.approx((0.48 + 0.58 + 0.66) / 3 - 0.5)   # one_x2 is the better single
    assert "abl_nmse_seeds_n" not in out


@pytest.mark.parametrize("change", [
    {"two": [0.45, 0.5]},                # one model with fewer seeds (lengths differ)
    {"two": None},                       # one model not stored
    {"two": [0.45]},                     # one seed only
])
def test_no_control_where_one_model_lacks_its_seeds(change):
    """claims_designs_numbers.py:106: `all(...)` over the five models and `and` one common length."""
    out = DN.designs_derived(_s({**_SEEDS, **change}), None)
    assert not any(k.startswith(("ctrl_", "nmse_seeds_n", "stuck_")) for k in out)


def test_a_word_among_the_seeds_is_refused_by_key():
    """A stored list of per-seed numbers holding a word is not of the stored kind (guard_claims' checked reads)."""
    with pytest.raises(TypeError, match=r"numbers\['nmse_multi_norm_seeds'\] must be a list of numbers"):
        DN.designs_derived(_s({**_SEEDS, "multi_norm": [0.32, "x", 0.45]}), None)


def test_nothing_is_derived_from_an_empty_summary():
    assert DN.designs_derived({}, None) == {}
    out = DN.designs_derived(_s(_SEEDS, "abl_"), None)
    assert out["abl_nmse_seeds_n"] == 3 and "nmse_seeds_n" not in out


@pytest.mark.parametrize("bench", [None, {}, {"rows": []}, {"rows": None, "meta": {"repeats": 5}}])
def test_no_benchmark_numbers_without_rows(bench):
    """claims_designs_numbers.py:63: `not bench or not bench.get("rows")`."""
    assert DN.bench_numbers(bench) == {}


def test_the_benchmark_numbers_of_one_row():
    got = DN.bench_numbers({"rows": [{"n": 1024, "lazy_ms": 2.0, "full_ms": 8.0, "ops_ratio": 0.25}],
                            "meta": {"repeats": 5}})
    assert got["bench_ns"] == [1024.0] and got["bench_cpu_ratios"] == [0.25] and got["bench_repeats"] == 5.0
    assert got["bench_wall_ratios"] == [] and got["bench_ops_ratios"] == [0.25]
