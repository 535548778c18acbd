"""Outside table 7, part B, the claims rows (mfattn/{implicit,structural,dynamics}/claims*.py): each hostile call
refused at the boundary, naming the parameter or the stored key (TypeError/ValueError, or Undecidable: "not tested"),
and a few valid controls. Most rows are stored per-seed/draw/β lists read together with lengths that differ:
:func:`mfattn.structural.claims_rules.same_units` names each key and its length."""

from __future__ import annotations

import functools
import pathlib

import numpy as np
import pytest

from mfattn.companion import verdicts
from mfattn.dynamics import (claims_beyond, claims_birth, claims_couplings, claims_fig4, claims_lambda, claims_limit,
                             claims_orbit_classes, claims_stored)
from mfattn.implicit import (claims_deq_mnist, claims_deq_numbers, claims_deq_plain, claims_transformer_amortised,
                             claims_transformer_fixed, claims_transformer_numbers, claims_transformer_rules)
from mfattn.structural import (claims_designs, claims_designs_checks, claims_designs_expanding,
                               claims_designs_multihop, claims_rules)

ROOT = pathlib.Path(__file__).resolve().parents[1]
U = verdicts.Undecidable


@functools.lru_cache(maxsize=None)
def _dmft():
    return claims_stored.stored_numbers(ROOT, "dmft")[0]


@functools.lru_cache(maxsize=None)
def _designs():
    return claims_designs.stored_numbers(ROOT, "designs")[0]


@functools.lru_cache(maxsize=None)
def _deq():
    return claims_deq_numbers.stored_numbers(ROOT, "deq")[0]


@functools.lru_cache(maxsize=None)
def _tr():
    return claims_transformer_numbers.stored_numbers(ROOT)[0]


def _with(numbers, **kw):
    d = dict(numbers())
    d.update(kw)
    return d


def _cut(numbers, key):
    d = dict(numbers())
    d[key] = list(d[key])[:1]
    return d


def _short(numbers, key):
    d = dict(numbers())
    d[key] = list(d[key])[:-1]
    return d


def _long(numbers, key):
    d = dict(numbers())
    d[key] = list(d[key]) + list(d[key])[-1:]
    return d


def _last_nan(numbers, key):
    d = dict(numbers())
    d[key] = list(d[key])[:-1] + [float("nan")]
    return d


def _claim(claims, cid):
    return next(c for c in claims if c.id == cid)


ROWS = [
    ("b0039", lambda: _claim(claims_beyond.BEYOND, "dmft-network-limit").rule(
        _with(_dmft, network_slope_se=float("nan"))), U, "network_slope_se"),
    ("b0053", lambda: claims_birth.birth_at(10, 0.1)(_with(_dmft, ns_beta={})), TypeError, "ns_beta"),
    ("b0060", lambda: claims_couplings.kept_at(0.5)(_cut(_dmft, "sym_s3_paper_period")), U, "sym_s3_paper_period"),
    ("b0062", lambda: claims_couplings.per_seed_at(0.5)(_cut(_dmft, "sym_s2_paper_period")), U,
     "sym_s2_paper_period"),
    ("b0072", lambda: _claim(claims_deq_mnist.MNIST_CLAIMS, "deq-anderson-plain").rule(
        _long(_deq, "var_plain_conv_late_seeds")), U, "var_plain_conv_late_seeds"),
    ("b0075", lambda: _claim(claims_deq_mnist.MNIST_CLAIMS, "deq-learned-onsager").rule(
        _with(_deq, gain_naive_lo={})), TypeError, "gain_naive_lo"),
    ("b0076", lambda: _claim(claims_deq_mnist.MNIST_CLAIMS, "deq-mixer-couplings").rule(
        _short(_deq, "var_mixer_acc_list")), U, "var_mixer_acc_list"),
    ("b0094", lambda: claims_deq_plain.damped_plain(_short(_deq, "plain_damped_50_converged_seeds")), U,
     "plain_damped_50_converged_seeds"),
    ("b0127", lambda: _claim(list(claims_designs.EXPANDING.values()), "designs-expanding-wallclock").rule(
        _long(_designs, "bench_lazy_ms")), U, "bench_lazy_ms"),
    ("b0131", lambda: claims_designs.uniform_seeds(_long(_designs, "abl_mass_x1_two_seeds")), U,
     "abl_mass_x1_two_seeds"),
    ("b0138", lambda: claims_designs_checks.ladder_factor_check(_cut(_designs, "ladder_log_first_seeds")), U,
     "ladder_log_first_seeds"),
    ("b0161", lambda: claims_designs_expanding.accuracy_split({(10, 2): float("nan")}, 1.5, 10.0), ValueError,
     r"ratios\[\(10, 2\)\]"),
    ("b0170", lambda: claims_designs_expanding.ladder_se(_cut(_designs, "ladder_log_accumulating_seeds")), U,
     "ladder_log_accumulating_seeds"),
    ("b0202", lambda: claims_designs_multihop.mass_spread()(_long(_designs, "mass_x0_one_seeds")), U,
     "mass_x0_one_seeds"),
    ("b0208", lambda: claims_designs_multihop.positive_control(
        {"two": np.array([0.1, 0.2]), "one": np.array([0.5])}, "one", lambda d: True, "x"), ValueError, "seeds"),
    ("b0245", lambda: _claim(claims_fig4.CLAIMS_FIG4, "dmft-planes").rule(_dmft().items()), TypeError, r"\bs\b"),
    ("b0270", lambda: claims_lambda.torus_interval(_with(_dmft, ns_beta=-float("inf"))), U, "ns_beta"),
    ("b0273", lambda: claims_limit.network_at(0.1, -0.25, 4)(_with(_dmft, network_slope=float("nan"))), U,
     "network_slope"),
    ("b0318", lambda: claims_transformer_amortised.ffn_numbers(_cut(_tr, "corr_mean_gbal_seeds")), U,
     "corr_mean_gbal_seeds"),
    ("b0322", lambda: claims_transformer_amortised.range_note(_last_nan(_tr, "range_low")), U, "range_low"),
    ("b0324", lambda: claims_transformer_amortised.two_part_at(0.2, 1.0)(_long(_tr, "two_linear_seeds")), U,
     "two_linear_seeds"),
    ("b0333", lambda: claims_transformer_fixed.amortised_alternatives("m", "m"), ValueError, "other"),
    ("b0334", lambda: claims_transformer_fixed.amortised_note(_cut(_tr, "merr_median_mb2_seeds")), U,
     "merr_median_mb2_seeds"),
    ("b0348", lambda: claims_transformer_rules.collapse_note(_long(_tr, "spread_res_min_seeds")), U,
     "spread_res_min_seeds"),
    ("b0349", lambda: claims_transformer_rules.collapse_numbers(_last_nan(_tr, "spread_res_seeds")), U,
     "spread_res_seeds"),
    ("b0351", lambda: claims_transformer_rules.collapse_units(_short(_tr, "spread_nores_seeds")), U,
     "spread_nores_seeds"),
    ("b0354", lambda: claims_transformer_rules.multihead_note(_short(_tr, "off_block_value_seeds")), U,
     "off_block_value_seeds"),
    ("b0360", lambda: claims_transformer_rules.site_numbers(_short(_tr, "corr_worst_ms_seeds")), U,
     "corr_worst_ms_seeds"),
]


@pytest.mark.parametrize("rid,call,exc,pattern", ROWS, ids=[r[0] for r in ROWS])
def test_refused(rid, call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_same_units_names_keys_and_lengths():
    with pytest.raises(U, match=r"a \(2\), b \(3\)"):
        claims_rules.same_units({"a": [1.0, 2.0], "b": [1.0, 2.0, 3.0], "c": None}, "a", "b", "c")
    assert claims_rules.same_units({"a": [1.0], "b": (2.0,)}, "a", "b", "missing") is None
    with pytest.raises(TypeError, match="keys"):
        claims_rules.same_units({}, )


def test_valid_controls():
    # the stored numbers still decide as before (the ledger check is the full control)
    assert claims_couplings.per_seed_at(0.5)(_dmft()) in verdicts.GRADES
    assert claims_transformer_rules.collapse_numbers(_tr())["spread_res"] > 0
    assert claims_transformer_rules.site_numbers(_tr())
    assert claims_transformer_amortised.ffn_numbers(_tr())
    assert isinstance(claims_designs_expanding.ladder_se(_designs()), float)
    assert claims_designs_multihop.mass_spread()(_designs())
    assert claims_designs_expanding.accuracy_split({(10, 2): None, (10, 5): 1.1}, 1.5, 10.0)["within"] == [(10, 5)]
    assert claims_orbit_classes.runs(np.asarray([1.0005, 1.0, 1.00025])) == \
        claims_orbit_classes.runs([1.0, 1.00025, 1.0005])
    assert len(claims_transformer_fixed.amortised_alternatives("m", "g")) > 0
    # settings of the expanding ablation hold different numbers of seeds (log_ratio_sd reads each alone): kept
    assert claims_designs_expanding.log_ratio_sd("code_loss_ratio")(_designs()) > 0


def test_same_draws_without_lists():
    # a summary with no per-draw lists of those names: nothing to pair, no refusal
    assert claims_transformer_rules._same_draws({"x": 1.0}, "spread_") is None
