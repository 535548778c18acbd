"""Mutation round 4 (mut-s12): mfattn/implicit/claims_transformer_rules.py -- the site feature's noise over draws,
the site note's controls (the site-shared correction, TAP's per-site term at the 25 % edge) and the full profile's
glued prose numbers (the iterated-m errors, the global-g control), on synthetic summaries with exact numbers."""

from __future__ import annotations

import pytest

from mfattn.implicit import claims_transformer_rules as R


def test_the_site_thresholds_noise_is_the_draws_sd_and_none_without_spread():
    """claims_transformer_rules.py:301: two draws or more AND a non-zero spread; else no noise."""
    noise = R._sd_over_draws("corr_median_ms", "corr_in_ms")
    assert noise({"corr_median_ms_seeds": [0.04, 0.06]}) == pytest.approx(0.014142135623730947, rel=1e-12)
    assert noise({"corr_median_ms_seeds": [0.0625, 0.0625, 0.0625]}) is None   # several draws, no spread
    assert noise({"corr_median_ms_seeds": [0.05, 0.05]}) is None
    assert noise({"corr_median_ms_seeds": [0.05]}) is None                  # one draw
    assert noise({"corr_in_ms": 0.05}) is None                              # the summary's one value
    site_noise = [t for t in R.SITE_THRESHOLDS if t.name == "tenth"][0].noise
    assert site_noise({"corr_median_ms_seeds": [0.07, 0.07]}) is None
    assert site_noise({"corr_median_ms_seeds": [0.07, 0.09]}) == pytest.approx(0.014142135623730947, rel=1e-12)


def _site(ms, sitetap, **more):
    return {"corr_median_ms_seeds": ms, "corr_above_ms_seeds": [0.3] * len(ms),
            "corr_median_sitetap_seeds": sitetap, "corr_worst_sitetap_seeds": [0.2] * len(ms), **more}


@pytest.mark.parametrize("ms, site, words", [
    ([0.75], [1.0], "better than"),      # |a - b| = 0.25 b exactly: not within 25 %, and below: better
    ([1.25], [1.0], "not as well as"),   # 0.25 b above: not within, not below
    ([0.875], [1.0], "as well as"),      # 0.125 b: within
    ([1.125], [1.0], "as well as"),
    ([0.5, 0.875], [1.0, 1.0], "better than"),
])
def test_the_site_note_compares_the_net_with_taps_per_site_term_at_25_percent(ms, site, words):
    """claims_transformer_rules.py:365: `abs(a - b) < 0.25 * b` (strict) reads "as well as"."""
    text = R.site_note(_site(ms, site))
    assert f"the net does {words} the closed form its input allows" in text


def test_the_site_note_names_the_site_shared_correction_only_where_stored():
    """claims_transformer_rules.py:356: the parenthesis needs corr_median_shared_seeds or shared_floor."""
    base = _site([0.05], [0.06], corr_median_mb2_seeds=[0.2])
    plain = R.site_note(base)
    assert "the control given only the temperature, f(m, β̂²), 0.2: " in plain
    assert "best site-shared correction" not in plain
    per_draw = R.site_note({**base, "corr_median_shared_seeds": [0.25]})
    assert "f(m, β̂²), 0.2 (the best site-shared correction: 0.25): knowing the temperature" in per_draw
    floor = R.site_note({**base, "shared_floor": 0.125})
    assert "(the best site-shared correction: 0.125)" in floor


def _glue_base():
    return {"test_betas": [0.1, 0.2, 0.3], "train_betas": [0.2, 0.3], "corr_beta_gbal": [0.5, 0.04, 0.06],
            "corr_mean_gbal_seeds": [0.0412, 0.0398], "corr_mean_mbal_seeds": [0.0811, 0.0799]}


def test_the_glued_balanced_and_global_g_controls_have_three_digits():
    """claims_transformer_rules.py:423 (mbal) and 425 (globalg): _listed(..., 3)."""
    out = R.full_glue({**_glue_base(), "corr_mean_globalg_seeds": [0.123456, 0.0456789]})
    assert out["onsager-globalg-full"] == "0.123, 0.0457"
    assert out["onsager-mbal-full"] == "0.0811, 0.0799"
    assert out["onsager-gbal-full"] == "0.0412, 0.0398" and out["onsager-gbal-per-beta-full"] == "0.04, 0.06"
    assert R.full_glue(_glue_base())["onsager-globalg-full"].startswith("not stored yet")


def test_the_glued_iterated_m_errors_are_read_where_stored():
    """claims_transformer_rules.py:426: merr_median_m_seeds glues both iterated errors (two digits)."""
    out = R.full_glue({"merr_median_m_seeds": [0.01234, 0.5], "merr_median_mb2_seeds": [0.0876, 0.25]})
    assert out["onsager-m-iter-full"] == "0.012, 0.5" and out["onsager-mb2-iter-full"] == "0.088, 0.25"
    assert R.full_glue({})["onsager-m-iter-full"] == "not stored yet (run the full profile)"
