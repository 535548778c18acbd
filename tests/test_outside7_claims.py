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


_LOADERS = {"dmft": lambda: claims_stored.stored_numbers(ROOT, "dmft")[0],
            "designs": lambda: claims_designs.stored_numbers(ROOT, "designs")[0],
            "deq": lambda: claims_deq_numbers.stored_numbers(ROOT, "deq")[0],
            "tr": lambda: claims_transformer_numbers.stored_numbers(ROOT)[0]}


@functools.lru_cache(maxsize=None)
def _stored(name):
    return _LOADERS[name]()


#: How a hostile row changes one stored list: cut to one entry, one short, one long (last repeated), last NaN.
_CHANGE = {"cut": lambda v: v[:1], "short": lambda v: v[:-1], "long": lambda v: v + v[-1:],
           "nan": lambda v: v[:-1] + [float("nan")]}


def _changed(name, how, key):
    d = dict(_stored(name))
    d[key] = _CHANGE[how](list(d[key]))
    return d


def _set(name, **kw):
    return {**_stored(name), **kw}


def _rule(claims, cid):
    return next(c for c in claims if c.id == cid).rule


_DEQ_CLAIMS, _EXPANDING = claims_deq_mnist.MNIST_CLAIMS, list(claims_designs.EXPANDING.values())

#: (row, the callable on the stored numbers, which numbers, how one list is changed, that list's key): Undecidable
#: naming the key (lists of the same units of different lengths, or a NaN read into a statistic).
STORED_ROWS = [
    ("b0060", claims_couplings.kept_at(0.5), "dmft", "cut", "sym_s3_paper_period"),
    ("b0062", claims_couplings.per_seed_at(0.5), "dmft", "cut", "sym_s2_paper_period"),
    ("b0072", _rule(_DEQ_CLAIMS, "deq-anderson-plain"), "deq", "long", "var_plain_conv_late_seeds"),
    ("b0076", _rule(_DEQ_CLAIMS, "deq-mixer-couplings"), "deq", "short", "var_mixer_acc_list"),
    ("b0094", claims_deq_plain.damped_plain, "deq", "short", "plain_damped_50_converged_seeds"),
    ("b0127", _rule(_EXPANDING, "designs-expanding-wallclock"), "designs", "long", "bench_lazy_ms"),
    ("b0131", claims_designs.uniform_seeds, "designs", "long", "abl_mass_x1_two_seeds"),
    ("b0138", claims_designs_checks.ladder_factor_check, "designs", "cut", "ladder_log_first_seeds"),
    ("b0170", claims_designs_expanding.ladder_se, "designs", "cut", "ladder_log_accumulating_seeds"),
    ("b0202", claims_designs_multihop.mass_spread(), "designs", "long", "mass_x0_one_seeds"),
    ("b0318", claims_transformer_amortised.ffn_numbers, "tr", "cut", "corr_mean_gbal_seeds"),
    ("b0322", claims_transformer_amortised.range_note, "tr", "nan", "range_low"),
    ("b0324", claims_transformer_amortised.two_part_at(0.2, 1.0), "tr", "long", "two_linear_seeds"),
    ("b0334", claims_transformer_fixed.amortised_note, "tr", "cut", "merr_median_mb2_seeds"),
    ("b0348", claims_transformer_rules.collapse_note, "tr", "long", "spread_res_min_seeds"),
    ("b0349", claims_transformer_rules.collapse_numbers, "tr", "nan", "spread_res_seeds"),
    ("b0351", claims_transformer_rules.collapse_units, "tr", "short", "spread_nores_seeds"),
    ("b0354", claims_transformer_rules.multihead_note, "tr", "short", "off_block_value_seeds"),
    ("b0360", claims_transformer_rules.site_numbers, "tr", "short", "corr_worst_ms_seeds"),
]


@pytest.mark.parametrize("rid,fn,name,how,key", STORED_ROWS, ids=[r[0] for r in STORED_ROWS])
def test_stored_lists_refused(rid, fn, name, how, key):
    with pytest.raises(U, match=key):
        fn(_changed(name, how, key))


ROWS = [
    ("b0039", lambda: _rule(claims_beyond.BEYOND, "dmft-network-limit")(_set("dmft", network_slope_se=float("nan"))),
     U, "network_slope_se"),
    ("b0053", lambda: claims_birth.birth_at(10, 0.1)(_set("dmft", ns_beta={})), TypeError, "ns_beta"),
    ("b0075", lambda: _rule(_DEQ_CLAIMS, "deq-learned-onsager")(_set("deq", gain_naive_lo={})), TypeError,
     "gain_naive_lo"),
    ("b0161", lambda: claims_designs_expanding.accuracy_split({(10, 2): float("nan")}, 1.5, 10.0), ValueError,
     r"ratios\[\(10, 2\)\]"),
    ("b0208", lambda: claims_designs_multihop.positive_control(
        {"two": np.array([0.1, 0.2]), "one": np.array([0.5])}, "one", lambda d: True, "x"), ValueError, "seeds"),
    ("b0245", lambda: _rule(claims_fig4.CLAIMS_FIG4, "dmft-planes")(_stored("dmft").items()), TypeError, r"\bs\b"),
    ("b0270", lambda: claims_lambda.torus_interval(_set("dmft", ns_beta=-float("inf"))), U, "ns_beta"),
    ("b0273", lambda: claims_limit.network_at(0.1, -0.25, 4)(_set("dmft", network_slope=float("nan"))), U,
     "network_slope"),
    ("b0333", lambda: claims_transformer_fixed.amortised_alternatives("m", "m"), ValueError, "other"),
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
    assert claims_couplings.per_seed_at(0.5)(_stored("dmft")) in verdicts.GRADES
    assert claims_transformer_rules.collapse_numbers(_stored("tr"))["spread_res"] > 0
    assert claims_transformer_rules.site_numbers(_stored("tr"))
    assert claims_transformer_amortised.ffn_numbers(_stored("tr"))
    assert isinstance(claims_designs_expanding.ladder_se(_stored("designs")), float)
    assert claims_designs_multihop.mass_spread()(_stored("designs"))
    assert claims_designs_expanding.accuracy_split({(10, 2): None, (10, 5): 1.1}, 1.5, 10.0)["within"] == [(10, 5)]
    assert claims_orbit_classes.runs(np.asarray([1.0005, 1.0, 1.00025])) == \
        claims_orbit_classes.runs([1.0, 1.00025, 1.0005])
    assert len(claims_transformer_fixed.amortised_alternatives("m", "g")) > 0
    # settings of the expanding ablation hold different numbers of seeds (log_ratio_sd reads each alone): kept
    assert claims_designs_expanding.log_ratio_sd("code_loss_ratio")(_stored("designs")) > 0


def test_same_draws_without_lists():
    # a summary with no per-draw lists of those names: nothing to pair, no refusal
    assert claims_transformer_rules._same_draws({"x": 1.0}, "spread_") is None
