"""Outside table 6, the claims rows of chapters 1-3 (a04xx: mfattn/meanfield/claims*.py; b0xxx:
mfattn/implicit/claims*.py): each hostile call refused at the boundary of the public callable, naming the parameter or
the stored key (a TypeError/ValueError, or Undecidable: "not tested"), and a few valid controls."""

from __future__ import annotations

import decimal
import functools
import pathlib

import numpy as np
import pytest
import torch

from mfattn.companion import verdicts
from mfattn.implicit import (claims_deq_mnist, claims_deq_numbers, claims_deq_plain, claims_transformer,
                             claims_transformer_amortised, claims_transformer_cost, claims_transformer_numbers,
                             claims_transformer_rules)
from mfattn.meanfield import claims as mclaims
from mfattn.meanfield import claims_ising_accuracy as acc
from mfattn.meanfield import claims_ising_betas, claims_ising_plefka, claims_ising_widths

ROOT = pathlib.Path(__file__).resolve().parents[1]
U = verdicts.Undecidable


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


def _first_nan(numbers, key, val):
    d = dict(numbers())
    d[key] = [val] + list(d[key])[1:]
    return d


def _claim(claims, cid):
    return next(c for c in claims if c.id == cid)


_FAIL = {"first_any": 0.5, "first_any_instances": 5, "first_relaxing": None, "first_relaxing_instances": 0,
         "first_stalled": None, "first_stalled_instances": 0, "first_unstable": None, "first_unstable_instances": 0}

ROWS = [
    ("a0437", lambda tmp: acc.known({"a": [np.float16("inf"), 1.0]}, "a"), TypeError, r"s\['a'\]"),
    ("a0438", lambda tmp: acc.known({"a": []}, "a"), TypeError, r"s\['a'\]"),
    ("a0443", lambda tmp: acc.log_ratio_se(np.array([0.1, 0.2]), np.array([0.3])), ValueError, r"\bw\b"),
    ("a0444", lambda tmp: acc.bootstrap_sd(np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.4, 0.5]), resamples=0),
     ValueError, "resamples"),
    ("a0445", lambda tmp: acc.bootstrap_sd(np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.4, 0.5]), resamples=10 ** 12),
     ValueError, "resamples"),
    ("a0447", lambda tmp: acc.geometric_interval(np.array([0.1, np.nan]), np.array([0.3, 0.4])), ValueError,
     r"\bb\b"),
    ("a0470", lambda tmp: mclaims.failure_text(_FAIL, 3), ValueError, "instances"),
    ("a0472", lambda tmp: mclaims.stored_numbers(None, "bogus"), ValueError, "chapter"),
    ("a0473", lambda tmp: mclaims.stored_numbers(_file(tmp)), ValueError, "root"),
    ("a0476", lambda tmp: mclaims.save(tmp, {1: 0.5}), TypeError, "summary"),
    ("b0055", lambda tmp: _claim(claims_deq_mnist.MNIST_CLAIMS, "deq-anderson-plain").rule(
        _with(_deq, blog_conv_late_seeds=[])), U, "blog_conv_late_seeds"),
    ("b0068", lambda tmp: claims_deq_numbers.save(tmp, "deq", {"a": object()}), TypeError, r"summary\['a'\]"),
    ("b0075", lambda tmp: claims_deq_plain.damped_text(_first_nan(_deq, "plain_damped_50_converged_seeds",
                                                                  float("inf"))),
     U, "plain_damped_50_converged_seeds"),
    ("b0265", lambda tmp: _claim(claims_transformer.DECLARED["transformer"], "transformer-site-feature-onsager").rule(
        _with(_tr, corr_median_ms_seeds=[])), U, "corr_median_ms_seeds"),
    ("b0267", lambda tmp: claims_transformer_amortised.amortised_note(_with(_tr, corr_mean_m_seeds=[])), U,
     "corr_mean_m_seeds"),
    ("b0272", lambda tmp: claims_transformer_amortised.ffn_note(_with(_tr, corr_mean_gbal_seeds=[])), U,
     "corr_mean_gbal_seeds"),
    ("b0279", lambda tmp: claims_transformer_amortised.range_note(_with(_tr, range_low=[])), U, "range_low"),
    ("b0282", lambda tmp: claims_transformer_amortised.two_part_note(_with(_tr, two_linear_seeds=[])), U,
     "two_linear_seeds"),
    ("b0286", lambda tmp: claims_transformer_cost.cost_note(_with(_tr, tap_count_executed_max_nd=float("inf"))), U,
     "tap_count_executed_max_nd"),
    ("b0288", lambda tmp: claims_transformer_cost.cost_units(_with(_tr, tap_slope=None)), U, "tap_slope"),
    ("b0289", lambda tmp: claims_transformer_cost.count_at(0.05, 0.5)(_with(_tr, tap_count_exponent=None)), U,
     "tap_count_exponent"),
    ("b0290", lambda tmp: claims_transformer_cost.timing_text(_with(_tr, tap_slope=None)), U, "tap_slope"),
    ("b0291", lambda tmp: claims_transformer_numbers.fit_with_se([256.0, 512.0], [1.0, 8.0],
                                                                  torch.tensor(0.0, dtype=torch.bfloat16)),
     ValueError, "fit_min_nd"),
    ("b0300", lambda tmp: claims_transformer_rules.collapse_note(_with(_tr, spread_res_seeds=[])), U,
     "spread_res_seeds"),
    ("b0302", lambda tmp: claims_transformer_rules.collapse_sharper("10")(
        _first_nan(_tr, "sharp_nores_10_seeds", np.float64("nan"))), U, "sharp_nores_10_seeds"),
    ("b0306", lambda tmp: claims_transformer_rules.multihead_note(_with(_tr, off_block_split=float("inf"))), U,
     "off_block_split"),
    ("b0312", lambda tmp: claims_transformer_rules.site_note(_with(_tr, corr_median_ms_seeds=[])), U,
     "corr_median_ms_seeds"),
    ("b0314", lambda tmp: claims_transformer_rules.units("tap_slope", ["bogus"])(_tr()), TypeError, "keys"),
]


def _file(tmp):
    p = tmp / "sn6.txt"
    p.write_text("x")
    return p


@pytest.mark.parametrize("rid, call, exc, pattern", ROWS, ids=[r[0] for r in ROWS])
def test_row_is_refused_naming_the_parameter(rid, call, exc, pattern, tmp_path):
    with pytest.raises(exc, match=pattern):
        call(tmp_path)


# --- documented rows: the behaviour the docstring states ---------------------------------------------------------

def test_documented_rows():
    # a0442: only the means' log is taken, so a zero entry is a valid error
    assert acc.log_ratio_se(np.array([0.0, 0.2]), np.array([0.3, 0.4])) == pytest.approx(0.8571428571428571)
    # a0451, a0461, a0466: "" where the numbers a note reads are not stored; a0460 reads the C errors, not atap_by_beta
    assert claims_ising_plefka.baseline_note({}) == ""
    assert claims_ising_betas.ordering_beta_note({}) == ""
    assert claims_ising_betas.ordering_beta_note({"betas": [0.5], "atap_by_beta": [decimal.Decimal("NaN")],
                                                  "tap_by_beta": [1.0], "naive_by_beta": [2.0]}) == ""
    assert claims_ising_widths.width_text({}, "tap", "naive") == ""


def test_a0475_a_tensor_is_stored_as_its_number(tmp_path):
    import json

    path = mclaims.save(tmp_path, {"a": torch.tensor(0.5)})
    assert json.loads(path.read_text()) == {"a": 0.5}


# --- valid controls ------------------------------------------------------------------------------------------------

def test_valid_controls(tmp_path):
    b, w = np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.4, 0.5])
    assert acc.log_ratio_se(b, w) > 0
    assert acc.bootstrap_sd(b, w, resamples=np.int64(50)) >= 0
    g, lo, hi = acc.geometric_interval(b, w)
    assert lo < g < hi
    assert acc.known({"a": np.float32(0.5), "b": 1}, "a", "b") == [np.float32(0.5), 1]
    with pytest.raises(U, match="a"):
        acc.known({"a": None}, "a")
    m = dict(_FAIL, first_any_instances=3)
    assert "3 of 3" in mclaims.failure_text(m, 3)
    assert mclaims.stored_numbers(None, "ising")[0] == {}
    assert mclaims.save(tmp_path, {"a": 0.5, "m": {"x": [1.0, None]}}).exists()
    assert claims_deq_numbers.save(tmp_path, "deq", {"a": np.float32(0.5), "b": [1, None, True],
                                                     "c": torch.tensor(0.25)}).exists()
    fit = claims_transformer_numbers.fit_with_se([256.0, 512.0, 1024.0], [1.0, 8.0, 60.0], np.float64(256))
    assert fit["n"] == 3
    s = _tr()
    assert claims_transformer_rules.units("tap_slope")(s) == claims_transformer_rules.units(*("tap_slope",))(s)
    assert isinstance(claims_transformer_cost.cost_note(s), str)
    assert claims_transformer_cost.count_at(0.05, 0.5)(s) in verdicts.GRADES
