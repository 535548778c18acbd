"""Outside table 8, part B: the claims modules' rows (keys that name no stored number, stored numbers that are
infinite, empty, past float's range or missing, numbers that are no mapping, rules that are not callable) and
public_trained's flag and images. Each test names the call and the bad argument it pins."""

from __future__ import annotations

import math

import pytest
import torch

from mfattn.companion.grades import Undecidable
from mfattn.companion.stored_views import MissingNumber, check_key, check_keys
from mfattn.implicit import claims_deq_seeds as seeds
from mfattn.implicit import claims_transformer_amortised as amortised
from mfattn.implicit import claims_transformer_fixed as fixed
from mfattn.implicit import claims_transformer_rules as trules
from mfattn.implicit import claims_deq_numbers as deqnum
from mfattn.structural import claims_designs_checks as dchecks

DRAWS = [0.5, 0.6, 0.7]


# --- the shared key checker ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad, err", [(b"acc", TypeError), (["acc"], TypeError), (None, TypeError), ("", ValueError),
                                      (" acc ", ValueError), ("a b", ValueError)])
def test_check_key_refuses_what_names_no_stored_number(bad, err):
    # check_key(key=bad)
    with pytest.raises(err, match="key"):
        check_key("key", bad)
    assert check_key("key", "acc_mean") == "acc_mean"
    assert check_key("prefix", "", empty=True) == ""
    assert check_keys("keys", ["a", "b_c"]) == ("a", "b_c")


# --- key and tag arguments (b0566, b0567, b0602, b0600, b0629, b0581, b0583, b0594, b0012) -------------------------

@pytest.mark.parametrize("bad", [b"step_gap", ["step_gap"], " step_gap "])
def test_seed_spread_refuses_keys_that_are_no_names(bad):
    # claims_deq_seeds.seed_spread(*keys) with a bytes / list / padded key (b0566, b0567)
    with pytest.raises((TypeError, ValueError), match="keys"):
        seeds.seed_spread(bad)
    assert seeds.seed_spread("step_gap")({"step_gap": 1.0, "step_gap_seeds": [1.0, 2.0]}) == {"step_gap": [1.0, 2.0]}


def test_transformer_shown_refuses_a_bytes_key_and_leaves_nan_out():
    # claims_transformer_rules.shown(b'off_block_value_max', ...) (b0602)
    with pytest.raises(TypeError, match="keys"):
        trules.shown(b"off_block_value_max", "off_block_dense")
    got = trules.shown("a", "b", digits=3)({"a": 0.12345, "b": math.nan})
    assert got == {"a": 0.123}


def test_per_draw_refuses_a_padded_key():
    # claims_transformer_rules.per_draw(s, ' spread_res ') (b0600)
    with pytest.raises(ValueError, match="key"):
        trules.per_draw({"spread_res_seeds": DRAWS}, " spread_res ")
    assert trules.per_draw({"spread_res_seeds": DRAWS}, "spread_res") == DRAWS


def test_ops_spread_refuses_a_padded_prefix():
    # claims_designs_checks.ops_spread(' ops_run_ ') (b0629)
    with pytest.raises(ValueError, match="key"):
        dchecks.ops_spread(" ops_run_ ")


def test_ffn_at_refuses_an_empty_tag():
    # claims_transformer_amortised.ffn_at(tag='') (b0581)
    with pytest.raises(ValueError, match="tag"):
        amortised.ffn_at("")
    assert callable(amortised.ffn_at("gbal")(0.2, 1.0))


def test_ffn_note_refuses_plain_none():
    # claims_transformer_amortised.ffn_note(s, plain=None) (b0583)
    with pytest.raises(TypeError, match="plain"):
        amortised.ffn_note({}, plain=None)
    assert amortised.ffn_note({}) == ""


def test_in_iteration_refuses_a_list_for_shared():
    # claims_transformer_fixed.in_iteration('m', shared=['mb2']) (b0594)
    with pytest.raises(TypeError, match="shared"):
        fixed.in_iteration("m", shared=["mb2"])
    assert callable(fixed.in_iteration("m", shared="mb2"))


def test_deq_stored_numbers_refuses_a_list_chapter():
    # claims_deq_numbers.stored_numbers(None, chapter=['deq']) (b0012)
    with pytest.raises(ValueError, match="chapter"):
        deqnum.stored_numbers(None, ["deq"])
    assert deqnum.stored_numbers(None, "deq")[0] == {}


# --- stored numbers that are infinite, past float's range, empty, missing (b0584, b0557, b0558, b0604, b0624,
#     b0572, b0663, b0633) ----------------------------------------------------------------------------------------

def _gain(**over):
    s = {"gain_naive_d": [0.1, 0.2, 0.15], "gain_naive_v": [0.01, 0.01, 0.01], "gain_naive_n10": [30, 31, 29],
         "gain_naive_n01": [20, 21, 19], "gain_naive_lo": 0.05, "gain_naive_hi": 0.25}
    s.update(over)
    return s


def test_over_seeds_text_and_disagreement_refuse_an_infinite_entry():
    # claims_deq_seeds.over_seeds_text(s with gain_naive_n10 [.., inf]) (b0557); disagreement(gain_naive_d) (b0558)
    with pytest.raises(Undecidable, match="gain_naive_n10"):
        seeds.over_seeds_text(_gain(gain_naive_n10=[30, 31, math.inf]), "gain_naive")
    with pytest.raises(Undecidable, match="gain_naive_d"):
        seeds.disagreement(_gain(gain_naive_d=[0.1, 0.2, math.inf]), "gain_naive")
    assert "per seed" in seeds.over_seeds_text(_gain(), "gain_naive")


def test_shown_refuses_an_integer_past_floats_range():
    # claims_transformer_rules.shown('off_block_value_max')(s with 10**400) (b0604)
    with pytest.raises(Undecidable, match="off_block_value_max"):
        trules.shown("off_block_value_max")({"off_block_value_max": 10 ** 400})
    assert trules.shown("off_block_value_max")({"off_block_value_max": 0.5}) == {"off_block_value_max": 0.5}


def test_ffn_note_refuses_an_infinite_draw():
    # claims_transformer_amortised.ffn_note(s with corr_worst_gbal_seeds [.., inf]) (b0584)
    s = {"corr_mean_gbal_seeds": DRAWS, "corr_mean_shared_seeds": DRAWS, "corr_worst_gbal_seeds": [0.7, 0.8, math.inf],
         "corr_above_gbal_seeds": DRAWS}
    with pytest.raises(Undecidable, match="corr_worst_gbal_seeds"):
        amortised.ffn_note(s)
    s["corr_worst_gbal_seeds"] = DRAWS
    assert "at its worst" in amortised.ffn_note(s)


def test_empty_stored_lists_are_undecidable_naming_the_key():
    # steps_check('ops_run_')(s with ops_run_10_2_seeds []) (b0624); blind_stand_in(s, bound_lin_g_seeds [])
    # (b0572); torus_betas(s with spectrum []) (b0663): the store holds entries under each key
    from mfattn.companion.stored_kinds import stored_kinds
    from mfattn.dynamics.claims_beyond_rules import torus_betas

    kinds = stored_kinds()
    if not isinstance(kinds.get("bound_lin_g_seeds"), tuple):
        pytest.skip("no stored numbers to go by")
    with pytest.raises(Undecidable, match="bound_lin_g_seeds"):
        amortised.blind_stand_in({"bound_g_seeds": DRAWS, "bound_lin_g_seeds": []})
    with pytest.raises(Undecidable, match="spectrum"):
        torus_betas({"spectrum_betas": [1.0, 1.1], "spectrum": []})
    with pytest.raises(Undecidable, match="ops_run_10_2_seeds"):
        dchecks.steps_check("ops_run_")({"ops_run_10_2_seeds": []})
    assert amortised.blind_stand_in({"bound_g_seeds": [0.5, 0.5, 0.5], "bound_lin_g_seeds": [0.9, 0.9, 0.9]}) is None


def test_a_missing_number_is_a_key_error_naming_it():
    # band_check('loss_ratio')(s without loss_ratio_10_2_seeds) (b0633): MissingNumber, a KeyError ("not tested")
    with pytest.raises(MissingNumber, match="loss_ratio_10_2_seeds"):
        dchecks.band_check("loss_ratio")({})
    assert issubclass(MissingNumber, KeyError)


# --- numbers that are no mapping, a rule that is not callable (b0556, b0569, b0578, b0639) -------------------------

def test_rules_refuse_numbers_that_are_no_mapping():
    # one_seed('acc_mean')(items list) (b0556); straddle_at('g')(0.2, 1.0)('numbers') (b0569);
    # two_part_range_at(2)(items list) (b0578)
    with pytest.raises(TypeError, match="s must be the stored numbers"):
        seeds.one_seed("acc_mean")([("acc_mean", 0.9)])
    with pytest.raises(TypeError, match=r"numbers \(s\) must be the stored numbers"):
        amortised.straddle_at("g")(0.2, 1.0)("numbers")
    with pytest.raises(TypeError, match=r"numbers \(s\) must be the stored numbers"):
        amortised.two_part_range_at(2)([("two_range_net_draws", [[0.1, 0.2]])])
    assert seeds.one_seed("acc_mean")({"acc_mean": 0.9}) == {"acc_mean": [0.9]}
    assert seeds.one_seed("acc_mean")({"acc_mean": math.nan}) == {}   # not measured: left out


def test_one_seed_cap_refuses_a_rule_that_is_not_callable():
    # claims_designs_checks.one_seed_cap(rule=3) (b0639)
    with pytest.raises(TypeError, match="rule"):
        dchecks.one_seed_cap(3)
    assert dchecks.one_seed_cap(lambda s: "holds")({}) == "partly"


def test_measured_reads_none_as_no_noise():
    # claims_deq_seeds.measured('acc_sd')(s with acc_sd None): None (not measured), not a TypeError deep inside
    assert seeds.measured("acc_sd", 2.0)({"acc_sd": None}) is None
    assert seeds.measured("acc_sd", 2.0)({"acc_sd": 0.1}) == pytest.approx(0.2)
    with pytest.raises(TypeError, match="scale"):
        seeds.measured("acc_sd", "2")


# --- public_trained (b0717, b0719) ---------------------------------------------------------------------------------

def test_train_public_refuses_a_string_flag():
    # public_trained.train_public(config, progress='False') (b0717): refused before any training
    from mfattn.implicit.public_trained import train_public
    from mfattn.implicit.runs import TrainConfig

    with pytest.raises(TypeError, match="progress"):
        train_public(TrainConfig(epochs=1, batch_size=4, train_limit=8, test_limit=8), progress="False")
    with pytest.raises(TypeError, match="use_cache"):
        train_public(TrainConfig(epochs=1, batch_size=4, train_limit=8, test_limit=8), use_cache="no")


def test_analyse_refuses_images_that_are_no_normalised_digits():
    # public_trained._check_pixels(images * 1e30), what analyse(result, images * 1e30, ...) checks first (b0719)
    from mfattn.implicit.public_trained import _check_pixels

    ok = torch.full((2, 1, 28, 28), -0.4242)
    ok[0, 0, 0, 0] = 2.8215
    _check_pixels(ok)
    with pytest.raises(ValueError, match="images"):
        _check_pixels(ok * 1e30)


# --- siblings found by probing the same kinds of input ---------------------------------------------------------

def test_torus_betas_and_staircase_refuse_numbers_of_the_wrong_shape():
    # claims_beyond_rules.torus_betas(s with a spectrum of one column); staircase's _branches (plateau_steps not of
    # (β, fraction) pairs): Undecidable naming the key, not IndexError / 'too many values to unpack'
    from mfattn.dynamics.claims_beyond_rules import _branches, torus_betas

    with pytest.raises(Undecidable, match="spectrum"):
        torus_betas({"spectrum_betas": [1.0, 1.1], "spectrum": [[0.0], [0.0]]})
    got = torus_betas({"spectrum_betas": [1.0, 1.1], "spectrum": [[0.0, -1.0], [0.5, -1.0]]})
    assert list(got) == [1.0]
    with pytest.raises(Undecidable, match="plateau_steps"):
        _branches({"plateau_steps": [[[1.0, 0.5, 2.0]]]}, 2.0)
    assert _branches({"plateau_steps": [[[1.0, 0.5], [3.0, 0.25]]]}, 2.0) == [[0.5]]


def test_missing_per_draw_lists_are_missing_numbers_or_named():
    # amortised_at('m')(0.2, 1.0)(s without corr_mean_m_seeds): MissingNumber, was a plain KeyError;
    # in_iteration('m')(s without merr_median_m_seeds): the Undecidable names the missing key
    from mfattn.implicit.claims_transformer_rules import amortised_at

    with pytest.raises(MissingNumber, match="corr_mean_m_seeds"):
        amortised_at("m")(0.2, 1.0)({"other": 1.0})
    with pytest.raises(Undecidable, match="merr_median_m_seeds"):
        fixed.in_iteration("m")({"merr_median_mb2_seeds": DRAWS})
    assert fixed.in_iteration("m")({"merr_median_m_seeds": DRAWS, "merr_median_mb2_seeds": DRAWS}) == "holds"


def test_a_stored_list_read_as_none_is_undecidable():
    # collapse_sharper('3')(s with sharp_res_3_seeds None): Undecidable naming it (was 'NoneType' object is not iterable)
    from mfattn.companion.stored_kinds import stored_kinds

    if not isinstance(stored_kinds().get("sharp_res_3_seeds"), tuple):
        pytest.skip("no stored numbers to go by")
    with pytest.raises(Undecidable, match="sharp_res_3_seeds"):
        trules.collapse_sharper("3")({"sharp_nores_3_seeds": DRAWS, "sharp_res_3_seeds": None})
