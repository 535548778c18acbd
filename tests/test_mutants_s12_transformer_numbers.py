"""Mutation round 4 (mut-s12): mfattn/implicit/claims_transformer_numbers.py and claims_transformer_cost.py -- a
statistic is derived only where every draw stores its inputs (a draw without them drops it, not a KeyError), the
per-unit file refuses an operation count of other sizes, and the committed timing runs gain the stored run only
when it is a new one."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mfattn.implicit import claims_transformer_cost as cost
from mfattn.implicit import claims_transformer_numbers as tn


def _draw(onsager):
    return {"onsager": onsager, "spread_res": [1.0], "spread_nores": [0.0], "off_block_dense": 0.9}


def test_the_in_iteration_ratio_needs_the_errors_in_every_draw():
    """claims_transformer_numbers.py:222: all draws store m_err_<net> and m_err_naive, else no merr statistic."""
    full = {"m_err_naive": [0.1, 0.2, 0.4, 0.8], "m_err_m": [0.3, 0.1, 0.1, 0.6], "m_err_m+b2": [0.01, 0.02, 0.04, 0.08],
            "dropped": [0]}
    part = {"m_err_naive": [0.1, 0.2, 0.4, 0.8], "m_err_m+b2": [0.02, 0.04, 0.08, 0.16], "dropped": []}
    u = {"seed_offsets": [0, 2], "draws": {"0": _draw(full), "2": _draw(part)},
         "train_betas": [0.2, 0.4], "test_betas": [0.1, 0.2, 0.3, 0.4], "spread_by_rho": {}}
    got = tn._draw_numbers(u)
    assert "merr_median_m_seeds" not in got and "merr_worst_m_seeds" not in got
    assert got["merr_median_mb2_seeds"] == [pytest.approx(0.1), pytest.approx(0.2)]
    both = tn._draw_numbers({**u, "draws": {"0": _draw(full), "2": _draw(full)}})
    assert both["merr_median_m_seeds"] == [pytest.approx(0.5), pytest.approx(0.5)]


def _bound_draw(offset, two_part=None):
    ranges = [{"low": 0.2, "binned": 0.5, "linear": 0.7}, {"low": 0.4, "binned": 0.3, "linear": 0.6}]
    d = {"offset": offset, "g": ranges, "m": ranges}
    if two_part is not None:
        d["two_part"] = two_part
    return d


def test_the_two_part_stand_in_is_read_only_where_every_draw_stores_it():
    """claims_transformer_numbers.py:292: all draws hold "two_part", else no two_<k>_seeds."""
    tp = {"linear": 0.8, "binned": 0.4, "net": 0.35}
    mixed = tn._bound_numbers({"draws": [_bound_draw(0, tp), _bound_draw(2)]})
    assert not any(k.startswith("two_") for k in mixed)
    assert mixed["bound_range_low"] == [0.2, 0.4] and mixed["bound_g_seeds"] == [0.3, 0.3]
    both = tn._bound_numbers({"draws": [_bound_draw(0, tp), _bound_draw(2, {**tp, "net": 0.25})]})
    assert both["two_net_seeds"] == [0.35, 0.25] and both["two_linear_seeds"] == [0.8, 0.8]


def test_the_two_part_ranges_are_read_only_where_every_draw_stores_them():
    """claims_transformer_numbers.py:295: all draws hold "two_part_ranges", else no two_range_* numbers."""
    rng = [{"low": 0.2, "linear": 0.9, "binned": 0.5, "net": 0.45}, {"low": 0.4, "linear": 0.7, "binned": 0.3, "net": 0.2}]
    with_ranges = {**_bound_draw(0), "two_part_ranges": rng}
    for draws in ([with_ranges, _bound_draw(2)], [_bound_draw(0), {**with_ranges, "offset": 2}]):
        mixed = tn._bound_numbers({"draws": draws})
        assert not any(k.startswith("two_range") for k in mixed)
    both = tn._bound_numbers({"draws": [with_ranges, {**with_ranges, "offset": 2}]})
    assert both["two_range_low"] == [0.2, 0.4]
    assert both["two_range_net_draws"] == [[0.45, 0.2], [0.45, 0.2]] and both["two_range_linear_draws"][1] == [0.9, 0.7]


def _per_unit_args(count_nd):
    nd = [8.0, 16.0, 32.0]
    return dict(seed=0, seed_offsets=[0], draws={0: _draw({"corr_err_m": [0.5, 0.4]})}, spread_by_rho={},
                train_betas=[0.3], test_betas=[0.3, 0.5],
                scaling={"Nd": nd, "seconds": [1e-5 * n ** 2.8 for n in nd], "fit_min_nd": 8.0, "exponent": 2.8},
                count={"Nd": count_nd, "N": [4, 8, 16], "d": [2, 2, 2], "flops": [2 * n ** 3 for n in nd],
                       "counted": [float("nan"), 1.0, 2.0], "max_dev": 0.0})


@pytest.mark.parametrize("count_nd", [[8.0, 16.0, 64.0], [8.0, 16.0], [8.0, 16.0, 32.0, 64.0], [16.0, 8.0, 32.0]])
def test_save_per_unit_refuses_a_count_of_other_sizes(tmp_path, count_nd):
    """claims_transformer_numbers.py:84."""
    with pytest.raises(ValueError, match=r"^count and scaling must be of the same sizes$"):
        tn.save_per_unit(tmp_path, **_per_unit_args(count_nd))
    assert not (tmp_path / "data" / "full" / "transformer" / tn.PER_UNIT).exists()


def test_save_per_unit_stores_a_count_of_the_same_sizes(tmp_path):
    path = tn.save_per_unit(tmp_path, **_per_unit_args([8, 16, 32]))
    tap = json.loads(path.read_text())["tap"]
    assert tap["flops"] == [1024.0, 8192.0, 65536.0] and tap["counted"] == [None, 1.0, 2.0]


def test_the_timing_runs_gain_the_stored_slope_only_when_it_is_new():
    """claims_transformer_cost.py:101: appended when it differs from every committed run by more than 1e-12."""
    committed = list(cost.COMMITTED_SLOPES.values())
    assert len(committed) == 9
    for r in (committed[0], committed[4], committed[-1], committed[3] + 1e-13):
        assert cost.cost_units({"tap_slope": r})["tap_slope"] == committed
    assert cost.cost_units({"tap_slope": 2.9})["tap_slope"] == committed + [2.9]
    assert cost.cost_units({"tap_slope": committed[3] + 1e-9})["tap_slope"] == committed + [committed[3] + 1e-9]
    assert cost.cost_units({})["tap_slope"] == committed
    sd9 = float(np.std(committed, ddof=1))
    assert cost._runs_sd({"tap_slope": committed[0]}) == pytest.approx(sd9, rel=1e-12)
