"""Chapter 2's generated variant sentences (mfattn.implicit.claims_deq_prose): each word that depends on a number
follows the number, on counterfactual tables, and a table without a variant gives "n/a", never a stale sentence."""

import pytest

from mfattn.implicit import claims_deq_prose
from mfattn.implicit.claims_deq_numbers import _variant_numbers


def _rows(accs: dict[str, list[float]], right: dict[str, list[int]] | None = None):
    """Variant rows with ``correct`` bits so that the paired statistics exist: the first ``right[key][seed]`` of
    10,000 digits right (a model with fewer right digits is wrong on a superset of the other's digits)."""
    from mfattn.implicit.variants import pack_correct
    import numpy as np

    rows = []
    for key, per_seed in accs.items():
        for seed, acc in enumerate(per_seed):
            n = round(10_000 * acc) if right is None else right[key][seed]
            bits = np.zeros(10_000, bool)
            bits[:n] = True
            rows.append({"key": key, "seed": seed, "test_accuracy": n / 10_000, "final_loss": 0.01 if key == "blog"
                         else 0.02, "forward_converged": 0.999, "test_examples": 10_000,
                         "correct": pack_correct(bits)})
    return rows


def test_the_sentences_follow_the_numbers():
    s = _variant_numbers(_rows({"blog": [0.991, 0.992, 0.990], "naive": [0.990, 0.990, 0.990],
                                "softmax": [0.951, 0.962, 0.933], "mixer": [0.993, 0.994, 0.992]}))
    g = claims_deq_prose.variant_glue(s)
    assert set(g) == set(claims_deq_prose.KEYS)
    assert g["full-softmax-gap"].startswith("4.00 points below") and g["full-mixer-gap"].startswith("0.20 points above")
    assert g["full-softmax-floor"] == "clears it by 3.10 points" and g["full-softmax-former-floor"] == "clears it by 0.10 points"
    assert g["full-naive-loss-ratio"] == "2.0 times as high as"
    assert g["full-softmax-accs"] == "95.10 %, 96.20 %, 93.30 %" and g["full-softmax-median"] == "95.10 %"
    # 400-digit and 1,000-digit differences on 10,000 paired digits: every seed separated
    assert g["full-interaction-paired"].startswith("3 of 3 seeds of the softmax couplings")
    assert "3 of 3 seeds of the MLP mixer" in g["full-interaction-paired"]
    assert g["full-interaction-conv"] == ("softmax couplings, seed by seed, 99.9 %, 99.9 %, 99.9 % of the training steps; MLP "
                                         "mixer, seed by seed, 99.9 %, 99.9 %, 99.9 % of the training steps")
    assert g["full-interaction-broke"] == "every stored run of these variants learned the task"


def test_a_median_under_the_former_floor_misses_it_and_an_absent_variant_is_not_named():
    s = _variant_numbers(_rows({"blog": [0.991, 0.991, 0.991], "softmax": [0.949, 0.949, 0.960]}))
    g = claims_deq_prose.variant_glue(s)
    assert g["full-softmax-former-floor"] == "misses it by 0.10 points"
    assert g["full-naive-gain"] == "n/a" and g["full-naive-over-seeds"] == "n/a"
    assert g["full-mixer-gap"] == "n/a" and "MLP mixer" not in g["full-interaction-paired"]


def test_missing_numbers_read_na_and_bad_input_is_named():
    g = claims_deq_prose.variant_glue({})
    assert all(v == "n/a" for v in g.values())
    with pytest.raises(TypeError, match="s must be"):
        claims_deq_prose.variant_glue([1, 2])


def test_a_broken_down_seed_is_named_with_its_solves():
    rows = _rows({"blog": [0.991, 0.992, 0.990], "mixer": [0.987, 0.307, 0.990]})
    for r in rows:
        if r["key"] == "mixer" and r["seed"] == 1:
            r["forward_converged"] = 0.0233
    g = claims_deq_prose.variant_glue(_variant_numbers(rows))
    assert g["full-interaction-broke"] == ("training did not learn the task in MLP mixer seed 1 (30.70 %; its forward solves "
                                           "reached the tolerance in 2.3 % of the steps)")
    assert "99.9 %, 2.3 %, 99.9 %" in g["full-interaction-conv"]
