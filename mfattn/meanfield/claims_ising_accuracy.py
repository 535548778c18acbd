"""Chapter 1's claims on accuracy at high temperature (β = 0.5): TAP against naive mean field, adaptive TAP against TAP,
and the linear-response correlations, each decided from the stored full-profile numbers (:mod:`.claims` flattens
them and gathers every claim of the chapter).

"TAP" has two readings. The blog describes TAP's Onsager term as "calculated from the couplings' distribution": the
SK-averaged β²(1 − q), the book's ``tap``. TAP's own paper (1977) writes it per site, Σ_j J_ij²(1 − m_j²)
(``tap_site``, stored as ``tsite``). A claim that names TAP is decided on the first and tried on the second; the
adaptive-TAP claim names both (a factor 2 against the first, more accurate at all than the second), and the ordering of
the correlations is a claim about the first (the second breaks the order, as its note says).

The noise behind each factor is the instance-to-instance spread: the 40 SK instances are paired (every theory solves
the same ones), so the standard error of the log of a ratio of mean errors is read from the per-instance errors by the
delta method (:func:`log_ratio_se`); a threshold's noise is that standard error as a factor. These statistics
and the factor rules read on them are :mod:`.claims_ising_factors`' (re-exported here).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..companion import stats, verdicts
from ..companion.premises import Alternative, Quote, Spread, Threshold
from ..companion.verdicts import Claim
from .claims_ising_betas import ordered_every_beta, ordering_beta_note, per_beta_note
from .claims_ising_factors import (_bootstrap_rule, _factor_at, _factor_examples, _interval_rule,  # noqa: F401
                                   _majority_rule, _ratio_interval_rule, _ratio_noise, bootstrap_sd,
                                   geometric_interval, known, log_ratio_se, paired)
from .claims_ising_widths import width_alternatives, with_widths

__all__ = ["ACCURACY_CLAIMS", "NAMES", "T", "TP", "SECTION_TAP"]  # the helpers are read by .claims_ising_line

T = "tests/test_ising.py::"
TP = "tests/test_ising_premises.py::"
SECTION_TAP = "2.2. Adaptive Thouless–Anderson–Palmer meanfield theory"
NAMES = {"naive": "naive mean field", "tap": "TAP", "tsite": "per-site TAP", "atap": "adaptive TAP"}


# --- "more accurate": a factor between two mean errors ---------------------------------------------------------------

def _adaptive_every_beta(s):
    """The other temperatures: the ratio of adaptive TAP's mean error to the SK-averaged TAP's at every stored β of the
    high-temperature phase (β ≤ 1): below 1/2 at each, holds; below 1 at each, partly; else fails."""
    ratios = [a / t for b, a, t in zip(s["betas"], s["atap_by_beta"], s["tap_by_beta"])
              if b <= 1.0 and a is not None and t]
    if not ratios:
        raise verdicts.Undecidable("no stored β of the high-temperature phase")
    return "holds" if max(ratios) < 0.5 else "partly" if max(ratios) < 1.0 else "fails"


def _site_every_beta(s):
    """Per-site TAP at the other temperatures: the ratio of adaptive TAP's mean error to per-site TAP's at every stored
    β of the high-temperature phase (β ≤ 1): below 1/2 at each, holds; below 1 at each, partly; else fails."""
    ratios = [a / t for b, a, t in zip(s["betas"], s["atap_by_beta"], s.get("tsite_by_beta", []))
              if b <= 1.0 + 1e-9 and a is not None and t]
    if not ratios:
        raise verdicts.Undecidable("per-site TAP's errors at every β are not stored")
    return "holds" if max(ratios) < 0.5 else "partly" if max(ratios) < 1.0 else "fails"


def _site_examples() -> dict[str, dict[str, Any]]:
    """Per-instance errors whose ratio interval lies below 1/2, straddles it, and reaches 1."""
    b = [0.40, 0.50, 0.45, 0.42]
    return {"holds": {"atap_m_inst": b, "tsite_m_inst": [1.0, 1.25, 1.12, 1.05]},
            "partly": {"atap_m_inst": b, "tsite_m_inst": [0.9, 0.95, 0.85, 0.9]},
            "fails": {"atap_m_inst": b, "tsite_m_inst": [0.41, 0.52, 0.44, 0.43]}}


def _site_note(s) -> str:
    bs, ws = paired(s, "atap", "tsite")
    gs, los, his = geometric_interval(bs, ws)
    r = bs.mean() / ws.mean()
    half = stats.t_quantile_975(bs.size - 1) * log_ratio_se(bs, ws)
    rows = [(b, a / t) for b, a, t in zip(s["betas"], s["atap_by_beta"], s.get("tsite_by_beta", []))
            if b <= 1.0 + 1e-9 and a is not None and t]
    beta = ""
    if rows:
        over = [b for b, x in rows if x >= 0.5]
        beta = (f" At the other stored β ≤ 1 the ratio lies between {min(x for _, x in rows):.3f} and "
                f"{max(x for _, x in rows):.3f}" + (f", at or above 1/2 from β = {min(over):g}" if over else "") + ".")
    return (f"RMSE of m at β = {s['beta']:g}: per-site TAP {s['tsite_m']:.1e}, adaptive TAP {s['atap_m']:.1e}, ratio "
            f"{r:.3f} (95 % {r * math.exp(-half):.3f} to {r * math.exp(half):.3f}; per-instance geometric mean {gs:.3f}, "
            f"95 % {los:.3f} to {his:.3f}; below per-site TAP on {int(np.sum(bs < ws))} and below half of it on "
            f"{int(np.sum(bs < ws / 2))} of {bs.size} instances). More accurate on every instance; the factor 2 "
            f"is at the line: the point ratio is below 1/2 (confirmed on that statistic), its interval reaches past "
            f"it, and only {int(np.sum(bs < ws / 2))} of {bs.size} instances are below half.{beta} Until the ninth "
            "referee round this comparison was part of ising-adaptive-tap with no factor claimed, a choice made after "
            "seeing the ratio; split off, it is graded with the chapter's factor.")


def _small_beta_check(s):
    """The reason's account of the β → 0 limit: the SK average leaves the site-to-site fluctuation of Σ_j J_ij²
    (relative s.d. √(2/(n − 1)) for n − 1 standard-normal squares), so the TAP/naive ratio at the smallest β lies
    within a factor 2 of it; per-site TAP, whose term keeps Σ_j J_ij², falls below 0.1 there."""
    i = 0
    sk, site = (s[f"{k}_by_beta"][i] / s["naive_by_beta"][i] for k in ("tap", "tsite"))
    want = math.sqrt(2 / (s["n"] - 1))
    ok = want / 2 < sk < 2 * want and site < 0.1
    return ok, (f"at β = {s['betas'][i]:g}: SK-averaged TAP/naive {sk:.3f} against √(2/(n − 1)) = {want:.3f}; "
                f"per-site TAP/naive {site:.3f}")


def _factor_note(better: str, worse: str):
    def note(s):
        spread = ""
        if f"{better}_m_inst" in s:
            b, w = paired(s, better, worse)
            g, lo, hi = geometric_interval(b, w)
            spread = (f"; per-instance geometric mean {g:.3f}, 95 % {lo:.3f} to {hi:.3f}; below half on "
                      f"{int(np.sum(b < w / 2))} of {b.size}")
        site = ""
        if "tsite_m" in s and worse == "naive":
            site = f" Per-site TAP (TAP 1977's own term): {s['tsite_m']:.1e}, {s['tsite_m'] / s['naive_m']:.3f} of naive."
        per_beta = per_beta_note(s) if (better, worse) == ("atap", "tap") else ""
        return (f"RMSE of m at β = {s['beta']:g}: {NAMES[worse]} {s[f'{worse}_m']:.1e}, {NAMES[better]} "
                f"{s[f'{better}_m']:.1e}, ratio {s[f'{better}_m'] / s[f'{worse}_m']:.3f} (mean over {s['instances']} "
                f"instances{spread}).{site}{per_beta}")
    return note


def _instances(*keys: str):
    """Per-instance RMSE of m of the theories (per-site TAP only where the summary has it: the claim rests on the
    others)."""
    return lambda s: {f"RMSE of m, {NAMES[k]}": s[f"{k}_m_inst"] for k in keys if k != "tsite" or "tsite_m_inst" in s}


FACTOR_REASON = ("'more accurate' read as halving the error, the factor the chapter uses for every comparison of two "
                 "estimates (a convention fixed before the ratios, not read off the ratios it judges). It is not the "
                 "leading-order argument: at n = 18 the SK-averaged term does not remove the O(β²) error, because "
                 "Σ_j J_ij² fluctuates from site to site by about √(2/(n − 1)) ≈ 0.34 of its mean; the TAP/naive ratio "
                 "tends to about 0.30 as β → 0, where per-site TAP's, which keeps Σ_j J_ij², tends to 0")
#: The same convention for adaptive TAP against TAP.
ADAPTIVE_REASON = ("'more accurate' read as halving the error, the factor the chapter uses for every comparison of two "
                   "estimates (a convention fixed before the ratios, not read off the ratios it judges)")


# --- linear response ---------------------------------------------------------------------------------------------

def _response_at(theory: str):
    """Linear response of ``theory`` against the trivial estimate C = 0 (its error is the RMS of the exact
    off-diagonal correlations, ``rms_c_exact``): below it / factor holds, below ``trivial`` times it partly, else
    fails."""
    def rule_at(factor, trivial):
        def rule(s):
            c, zero = known(s, f"{theory}_c", "rms_c_exact")
            return "holds" if c < zero / factor else "partly" if c < trivial * zero else "fails"
        return rule
    return rule_at


def _trivial_check(s):
    """The trivial estimate's error is the scale of the correlations themselves (not a degenerate zero)."""
    ok = s["rms_c_exact"] > 10 * s["atap_c"]
    return ok, (f"RMS of the exact off-diagonal correlations at β = {s['beta']:g}: {s['rms_c_exact']:.3f}; adaptive "
                f"TAP's linear-response error {s['atap_c']:.4f}, naive mean field's {s['naive_c']:.4f}")


def _response_note(s):
    site = f", per-site TAP {s['tsite_c']:.1e}" if "tsite_c" in s else ""
    return (f"At β = {s['beta']:g}: RMS of the exact off-diagonal correlations {s['rms_c_exact']:.3f} (the error of "
            f"C = 0); RMSE of linear response: adaptive TAP {s['atap_c']:.1e}, TAP {s['tap_c']:.1e}{site}, naive mean "
            f"field {s['naive_c']:.1e} (which removes only {1 - s['naive_c'] / s['rms_c_exact']:.0%} of the trivial "
            "error).")


def _ordered_at(z: float, tap: str = "tap"):
    """The correlations better for the better theories: adaptive TAP < ``tap`` < naive, each inequality by more than
    ``z`` paired standard errors of the log ratio of the mean errors (z = 0: the order of the means)."""
    def below(s, better, worse):
        b, w = known(s, f"{better}_c", f"{worse}_c")
        se = log_ratio_se(*paired(s, better, worse, "c")) if z > 0 else 0.0
        return math.log(b / w) < -z * se

    def rule(s):
        if below(s, "atap", tap) and below(s, tap, "naive"):
            return "holds"
        return "partly" if below(s, "atap", "naive") and below(s, tap, "naive") else "fails"
    return rule


def _c_majority(s, better, worse):
    """Significantly more than half of the instances (two-sided sign test at 5 %) have ``better``'s error of C below
    ``worse``'s: "holds", else "fails"."""
    b, w = paired(s, better, worse, "c")
    got = stats.sign_test(w - b)
    return "holds" if got["positive"] > got["negative"] and got["p"] < 0.05 else "fails"


def _ordered_by(better_than):
    """The ordering rule with each inequality decided by ``better_than(s, better, worse)`` ("holds" if better)."""
    def rule(s):
        below = {(b, w): better_than(s, b, w) == "holds" for b, w in (("atap", "tap"), ("tap", "naive"),
                                                                         ("atap", "naive"))}
        if below["atap", "tap"] and below["tap", "naive"]:
            return "holds"
        return "partly" if below["atap", "naive"] and below["tap", "naive"] else "fails"
    return rule


def _se_check(s):
    """The delta-method standard error the margin is read in rests on at least 30 paired instances (where its normal
    approximation holds) and agrees with a paired bootstrap of the instances within 25 %."""
    got = []
    for better, worse in (("atap", "tap"), ("tap", "naive")):
        b, w = paired(s, better, worse, "c")
        got.append((log_ratio_se(b, w), bootstrap_sd(b, w), b.size))
    ok = all(abs(a / b - 1) < 0.25 and n >= 30 for a, b, n in got)
    return ok, (f"SE of the log ratio (delta method / bootstrap) over {got[0][2]} and {got[1][2]} paired instances: "
                f"adaptive TAP vs TAP {got[0][0]:.3f} / {got[0][1]:.3f}, TAP vs naive {got[1][0]:.3f} / {got[1][1]:.3f}")


def _ordering_note(s):
    def z(better, worse):
        b, w = paired(s, better, worse, "c")
        return math.log(s[f"{better}_c"] / s[f"{worse}_c"]) / log_ratio_se(b, w)
    site = ""
    if "tsite_c" in s:
        bs, ws = paired(s, "atap", "tsite", "c")
        site = (f" Per-site TAP (TAP 1977's own term) has {s['tsite_c']:.1e}, better than adaptive TAP (ratio "
                f"{s['atap_c'] / s['tsite_c']:.2f}, {z('atap', 'tsite'):+.1f} SE; adaptive TAP better on "
                f"{int(np.sum(bs < ws))} of {bs.size} instances), although adaptive TAP's magnetisations are better "
                f"({s['atap_m']:.1e} against {s['tsite_m']:.1e}): better magnetisations do not in general give "
                "better correlations, which is why the claim is the order of the three theories it names.")
    return (f"RMSE of off-diagonal C at β = {s['beta']:g}: naive {s['naive_c']:.1e}, TAP {s['tap_c']:.1e}, adaptive "
            f"TAP {s['atap_c']:.1e} (log ratios adaptive TAP/TAP {z('atap', 'tap'):+.1f} SE, TAP/naive "
            f"{z('tap', 'naive'):+.1f} SE over {s['instances']} instances).{site}")


ACCURACY_CLAIMS = [
    Claim("ising-tap-onsager", "Thouless, Anderson & Palmer 1977, as Bal 2021 §2.2 describes it",
          "The TAP equations improve naive mean-field results by adding an Onsager self-correction term calculated "
          "from the couplings' distribution: on SK instances at high temperature the magnetisations are more accurate",
          measured="RMSE of the magnetisations against exact enumeration (n = 18 spins, 40 SK instances) at β = 0.5",
          quote=Quote(SECTION_TAP, "The TAP equations improve mean-field theory results by adding a so-called Onsager "
                                   "self-correction term calculated from the couplings' distribution."),
          reading="TAP as the blog describes it, its term calculated from the couplings' distribution: the SK-averaged "
                  "β²(1 − q) (the book's TAP); TAP 1977's own per-site term Σ_j J_ij²(1 − m_j²) is tried as the "
                  "other reading",
          rule_at=_factor_at("tap_m", "naive_m"),
          thresholds=(Threshold("factor", 2.0, "convention", FACTOR_REASON, _small_beta_check,
                                noise=_ratio_noise("tap", "naive"), log=True),),
          alternatives=(Alternative("reading: TAP 1977's per-site Onsager term Σ_j J_ij²(1 − m_j²) in place of the "
                                    "SK average", "reading", _factor_at("tsite_m", "naive_m")(2.0)),
                        Alternative("95 % interval of the ratio of the mean errors (paired), its upper end below 1/2",
                                    "statistic", _ratio_interval_rule("tap", "naive")),
                        Alternative("geometric mean of the per-instance ratios, its 95 % upper end below 1/2",
                                    "statistic", _interval_rule("tap", "naive")),
                        Alternative("per instance: significantly more than half below half of naive (sign test)",
                                    "statistic", _majority_rule("tap", "naive")),
                        *width_alternatives(_factor_at("tap_m", "naive_m")(2.0),
                                            "TAP's mean error against naive mean field's")),
          spread=Spread("instance", _instances("naive", "tap", "tsite")),
          how="TAP must have the smaller mean RMSE of m over the 40 instances at β = 0.5, well inside the "
              "high-temperature phase: holds if it is below half of naive mean field's ('more accurate' as halving the "
              "error, the chapter's convention; noise: the paired standard error of the ratio over the instances); "
              "smaller but not by a factor 2: with differences; not smaller: fails. At n = 18 the SK-averaged term "
              "does not remove the leading O(β²) error (the ratio tends to about 0.30 as β → 0, the site-to-site "
              "fluctuation of Σ_j J_ij²); per-site TAP does (0.015 at β = 0.05).",
          evidence=("fig-ising-rmse", "fig-ising-scatter", T + "test_ordering_adaptive_tap_beats_tap_beats_naive_n12"),
          note=with_widths(_factor_note("tap", "naive"), "tap", "naive"), numbers=("naive_m", "tap_m"),
          examples=_factor_examples("tap_m", "naive_m")),
    Claim("ising-adaptive-tap", "Opper & Winther 2001, as Bal 2021 §2.2 describes it",
          "Adaptive TAP adapts the Onsager correction to the actual couplings with the cavity method and linear "
          "response, instead of computing it from the couplings' distribution as TAP does (the blog: it so compensates "
          "for not knowing that distribution, which couplings not drawn from SK test: ising-adaptive-tap-compensates); "
          "on SK instances of 18 spins at β = 0.5 (the book's reading, ours; at this n the SK-averaged term misses the "
          "site-to-site spread of Σ_j J_ij², about √(2/(n − 1)) of its mean, which adaptive TAP's V keeps) its "
          "magnetisations are then more accurate, by a factor 2, than TAP's with the term the blog describes, the SK "
          "average β²(1 − q) (against TAP 1977's own per-site term: ising-adaptive-tap-site)",
          measured="RMSE of the magnetisations against exact enumeration (n = 18, 40 SK instances) at β = 0.5, of "
                   "adaptive TAP and TAP (SK average)",
          origin="ours",   # the quote describes the method; 'more accurate on SK couplings' is the book's reading
          quote=Quote(SECTION_TAP, "a self-consistent computation to adapt the Onsager correction to the actual "
                                   "couplings using the cavity method and linear response relations"),
          reading="'more accurate than TAP' is the book's reading: the blog says the adaptation compensates for not "
                  "knowing the couplings' distribution, not that it beats TAP where the distribution is known; decided "
                  "as a factor 2 against the SK-averaged TAP the blog describes; its weaker reading (at least as "
                  "accurate) is tried as the other reading, and TAP 1977's per-site term is a claim of its own "
                  "(ising-adaptive-tap-site)",
          rule_at=_factor_at("atap_m", "tap_m"),
          thresholds=(Threshold("factor", 2.0, "convention", ADAPTIVE_REASON, noise=_ratio_noise("atap", "tap"),
                                log=True),),
          alternatives=(Alternative("reading: the blog's 'compensates': at least as accurate (ratio to the SK average "
                                    "below 1)", "reading", _factor_at("atap_m", "tap_m")(1.0)),
                        Alternative("95 % interval of the ratio of the mean errors (paired), its upper end below 1/2",
                                    "statistic", _ratio_interval_rule("atap", "tap")),
                        Alternative("geometric mean of the per-instance ratios, its 95 % upper end below 1/2",
                                    "statistic", _interval_rule("atap", "tap")),
                        Alternative("per instance (sign test): significantly more than half below half of TAP",
                                    "statistic", _majority_rule("atap", "tap")),
                        Alternative("reading: every stored β of the high-temperature phase (0.05 to 1), not β = 0.5 "
                                    "alone: below half of the SK-averaged TAP's error at each", "reading",
                                    _adaptive_every_beta),
                        *width_alternatives(_factor_at("atap_m", "tap_m")(2.0),
                                            "adaptive TAP's mean error against the SK-averaged TAP's")),
          spread=Spread("instance", _instances("tap", "atap")),
          how="Adaptive TAP's mean RMSE of m over the 40 instances at β = 0.5 must be below half of the SK-averaged "
              "TAP's ('more accurate' as halving the error, the chapter's convention; noise: the paired standard error "
              "of the ratio over the instances): holds; below it but not by a factor 2: with differences; not below "
              "it: fails.",
          evidence=("fig-ising-rmse", T + "test_ordering_adaptive_tap_beats_tap_beats_naive_n12",
                    TP + "test_per_site_tap_reading_is_stored_and_decided"),
          note=with_widths(_factor_note("atap", "tap"), "atap", "tap"), numbers=("tap_m", "atap_m"),
          examples=_factor_examples("atap_m", "tap_m")),
    Claim("ising-adaptive-tap-site", "Opper & Winther 2001 against Thouless, Anderson & Palmer 1977 (our test)",
          "On SK instances of 18 spins at β = 0.5, adaptive TAP's magnetisations are more accurate, by the chapter's "
          "factor 2, than those of TAP with TAP 1977's own per-site Onsager term Σ_j J_ij²(1 − m_j²), which keeps the "
          "site-to-site spread of Σ_j J_ij² that the SK average misses",
          measured="RMSE of the magnetisations against exact enumeration (n = 18, 40 SK instances) at β = 0.5, of "
                   "adaptive TAP and per-site TAP; the 95 % interval of the ratio of their mean errors (paired over "
                   "the instances, delta method, Student's t)",
          origin="ours",   # the blog compares adaptive TAP with TAP as it describes it (the SK average), not per site
          quote=Quote(SECTION_TAP, "a self-consistent computation to adapt the Onsager correction to the actual "
                                   "couplings using the cavity method and linear response relations"),
          reading="'TAP' read as TAP's own 1977 equations, whose reaction term is per site (the second reading of "
                  "ising-adaptive-tap's 'TAP', split off as a claim of its own at a referee's request); the factor 2 is "
                  "the chapter's convention and is read on the 95 % interval of the ratio, because the ratio sits "
                  "within its own noise of 1/2",
          rule_at=lambda factor: _ratio_interval_rule("atap", "tsite", factor),
          thresholds=(Threshold("factor", 2.0, "convention", ADAPTIVE_REASON, noise=_ratio_noise("atap", "tsite"),
                                log=True),),
          alternatives=(Alternative("the ratio of the mean errors alone (no interval) below 1/2", "statistic",
                                    _factor_at("atap_m", "tsite_m")(2.0)),
                        Alternative("geometric mean of the per-instance ratios, its 95 % upper end below 1/2",
                                    "statistic", _interval_rule("atap", "tsite")),
                        Alternative("percentile bootstrap 95 % interval of the ratio of the mean errors (paired "
                                    "instances resampled), its upper end below 1/2", "statistic",
                                    _bootstrap_rule("atap", "tsite")),
                        Alternative("per instance (sign test): significantly more than half below half of per-site "
                                    "TAP", "statistic", _majority_rule("atap", "tsite")),
                        Alternative("reading: at least as accurate (the interval's upper end below 1)", "reading",
                                    _ratio_interval_rule("atap", "tsite", 1.0)),
                        Alternative("reading: every stored β of the high-temperature phase (0.05 to 1): the ratio of "
                                    "the mean errors below 1/2 at each", "reading", _site_every_beta),
                        *width_alternatives(_ratio_interval_rule("atap", "tsite", 2.0),
                                            "the 95 % interval of adaptive TAP's mean error over per-site TAP's")),
          spread=Spread("instance", _instances("tsite", "atap")),
          how="The 95 % interval of the ratio of adaptive TAP's mean RMSE of m to per-site TAP's (paired over the 40 "
              "instances at β = 0.5) must lie below 1/2: holds; below 1 but reaching 1/2: with differences (more "
              "accurate, the factor 2 not shown); reaching 1: fails.",
          evidence=("fig-ising-rmse", TP + "test_per_site_tap_reading_is_stored_and_decided",
                    TP + "test_adaptive_tap_against_per_site_tap_is_a_claim_of_its_own"),
          note=with_widths(_site_note, "atap", "tsite"), numbers=("tsite_m", "atap_m"), examples=_site_examples()),
    Claim("ising-linear-response", "Bal 2021 §2.2 (after Opper & Winther 2001; Kappen & Rodríguez 1998)",
          "Linear response of the adaptive-TAP solution with its cavity variances held fixed, χ = (Λ − J)⁻¹, gives "
          "the matrix of susceptibilities χ_ij = ⟨S_iS_j⟩ − ⟨S_i⟩⟨S_j⟩, the connected correlations",
          measured="RMSE of adaptive TAP's off-diagonal linear-response correlations against exact enumeration "
                   "(n = 18, 40 SK instances) at β = 0.5, against that of the trivial estimate C = 0 (the RMS of the "
                   "exact off-diagonal correlations)",
          quote=Quote(SECTION_TAP + " (Cavity variances and linear response)",
                      "but also from a linear response calculation assuming fixed $V_i$"),
          reading="the calculation the quote names, χ = ∂m/∂h at fixed V_i = (Λ − J)⁻¹, is an identity of the "
                  "equations (checked by finite differences in the evidence's test, to 1e-8); what is decided is the "
                  "sentence's use of it, that this χ gives the connected correlations: how close it is to the exact "
                  "ones",
          rule_at=_response_at("atap"),
          thresholds=(Threshold("factor", 2.0, "convention",
                                "an estimate of the correlations must at least halve the error of estimating none "
                                "(C = 0), the same factor 2 as 'more accurate' between the theories",
                                noise=lambda s: math.exp(log_ratio_se(*paired(s, "atap", "exact", "c"))), log=True),
                      Threshold("trivial", 1.0, "stored distribution",
                                "C = 0 is the degenerate baseline on purpose: its error is the scale of the "
                                "correlations themselves, so an estimate at or above it has found none of them (the "
                                "check: that scale is more than ten times adaptive TAP's error, so the factor is read "
                                "far from the baseline, not near it)", _trivial_check)),
          alternatives=(Alternative("reading: SK-averaged TAP's linear response", "reading",
                                    _response_at("tap")(2.0, 1.0)),
                        Alternative("reading: per-site TAP's linear response", "reading",
                                    _response_at("tsite")(2.0, 1.0)),
                        Alternative("geometric mean of the per-instance ratios to the RMS of the exact correlations, "
                                    "its 95 % upper end below 1/2", "statistic", _interval_rule("atap", "exact", 2.0, "c")),
                        *width_alternatives(_response_at("atap")(2.0, 1.0),
                                            "adaptive TAP's linear-response error against that of C = 0")),
          spread=Spread("instance", lambda s: {"RMSE of C, adaptive TAP": s["atap_c_inst"],
                                              "RMS of the exact C": s["exact_c_inst"]}),
          how="Adaptive TAP's linear-response correlations must beat the trivial estimate C = 0 (whose error is the RMS "
              "of the exact off-diagonal correlations): holds if their RMSE is below half of it (a convention: an "
              "estimate halves the error of estimating none), with differences if only below it, fails otherwise.",
          evidence=("fig-ising-rmse", T + "test_linear_response_equals_derivative_of_fixed_point",
                    T + "test_adaptive_taps_linear_response_is_the_derivative_at_fixed_cavity_variances"),
          note=with_widths(_response_note, "atap", "rms_c_exact", "c"),
          numbers=("rms_c_exact", "atap_c", "tap_c", "naive_c"),
          examples={"holds": {"atap_c": 0.049, "rms_c_exact": 0.1}, "partly": {"atap_c": 0.051, "rms_c_exact": 0.1},
                    "fails": {"atap_c": 0.1, "rms_c_exact": 0.1}}),
    Claim("ising-linear-response-ordering", "Ours (the blog ranks no theories by their correlations)",
          "For the three theories the chapter compares, naive mean field, TAP with the SK-averaged Onsager term and "
          "adaptive TAP, the linear-response correlations at β = 0.5 are ordered as the magnetisations are: adaptive "
          "TAP's error below TAP's below naive mean field's (no general rule: per-site TAP, TAP 1977's own term, has "
          "worse magnetisations than adaptive TAP but better correlations; and at the smallest β the order of TAP "
          "and adaptive TAP reverses, a declared reading)",
          measured="RMSE of the off-diagonal linear-response correlations against exact enumeration at β = 0.5 "
                   "(n = 18, 40 SK instances)", origin="ours",
          reading="the three-theory order of the chapter's comparison, TAP read as the SK average; per-site TAP is "
                  "outside the claim (it breaks the order: the note gives its numbers)",
          rule_at=lambda z: _ordered_at(z),
          thresholds=(Threshold("z", 2.0, "instance spread",
                                "each inequality must exceed two paired standard errors of the log ratio of the mean "
                                "errors over the 40 instances (delta method, at least 30 paired instances; a bootstrap "
                                "of the instances agrees): a smaller gap is within the instance-to-instance noise",
                                _se_check),),
          alternatives=(Alternative("the order of the means with no margin (the rule before the premises)", "statistic",
                                    _ordered_at(0.0)),
                        Alternative("geometric mean of the per-instance ratios, each 95 % interval below 1",
                                    "statistic", _ordered_by(lambda s, b, w: _interval_rule(b, w, 1.0, "c")(s))),
                        Alternative("per instance: significantly more than half of the instances in each order (sign "
                                    "test)", "statistic", _ordered_by(_c_majority)),
                        Alternative("reading: every stored β of the high-temperature phase (0.05 to 0.95), the order "
                                    "of the means at each", "reading", ordered_every_beta)),
          spread=Spread("instance", lambda s: {f"RMSE of C, {NAMES[k]}": s[f"{k}_c_inst"]
                                              for k in ("naive", "tap", "tsite", "atap") if f"{k}_c_inst" in s}),
          how="Holds if adaptive TAP < TAP (SK average) < naive mean field in the RMSE of the correlations, each "
              "inequality by more than two paired standard errors of the log ratio over the instances; if both TAP "
              "theories beat naive mean field by that margin but not in that order, with differences; otherwise it "
              "fails. The claim is the order of these three theories, not that better magnetisations give better "
              "correlations: per-site TAP breaks that (note).",
          evidence=("fig-ising-rmse", T + "test_linear_response_equals_derivative_of_fixed_point"),
          note=lambda s: _ordering_note(s) + ordering_beta_note(s), numbers=("naive_c", "tap_c", "atap_c"),
          examples={"holds": {"atap_c": 1, "tap_c": 2, "naive_c": 3, **{f"{k}_c_inst": [v, 1.01 * v, 0.99 * v] for k, v
                                                                       in (("atap", 1), ("tap", 2), ("naive", 3))}},
                    "partly": {"atap_c": 2, "tap_c": 1, "naive_c": 3, **{f"{k}_c_inst": [v, 1.01 * v, 0.99 * v] for k, v
                                                                        in (("atap", 2), ("tap", 1), ("naive", 3))}},
                    "fails": {"atap_c": 1, "tap_c": 3, "naive_c": 2, **{f"{k}_c_inst": [v, 1.01 * v, 0.99 * v] for k, v
                                                                       in (("atap", 1), ("tap", 3), ("naive", 2))}}}),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
