"""Chapter 1's verdict rules (mfattn.meanfield.claims) fed numbers at and just either side of each declared threshold:
a moved threshold or a flipped comparison fails a case. The numbers are shaped like those of the stored full profile
(data/full/ising/summary.json: 40 instances, n = 18; RMSE of m at β = 0.5 naive 0.094, TAP 0.019, adaptive TAP
0.0038; the sweep's β 0.5 to 2 by 0.1) moved to each threshold. ``None`` as the grade: the numbers cannot decide
(a number stored as null, no line on the grid, nothing measured beyond it), and the rule says so
(:class:`~mfattn.companion.verdicts.Undecidable`, a claim "not tested") instead of guessing or raising."""

import math

import pytest

from mfattn.companion import verdicts

from rule_boundaries import check_case, check_every_rule_covered

BY_ID = {c.id: c for c in verdicts.declared("ising")}
NAN = float("nan")

# --- the factor-2 comparisons at β = 0.5: better < worse / 2 holds, < worse partly, else fails ------------------
# (adaptive TAP: and below per-site TAP, the 95 % interval of their ratio of mean errors below 1, else partly)
_ATAP = [0.0030, 0.0045, 0.0035, 0.0040]


def _site(upper):
    """Per-instance errors of adaptive TAP and per-site TAP whose ratio of mean errors has its 95 % upper end (paired
    delta method, t over the 4 instances) at ``upper``."""
    import numpy as np
    from mfattn.companion import stats
    from mfattn.meanfield.claims_ising_accuracy import log_ratio_se
    site = np.array([0.0085, 0.0080, 0.0095, 0.0070])
    b = np.array(_ATAP)
    hi = b.mean() / site.mean() * math.exp(stats.t_quantile_975(3) * log_ratio_se(b, site))
    return {"atap_m_inst": _ATAP, "tsite_m_inst": list(site * hi / upper)}


_SITE = _site(0.8)

FACTOR_CASES = [
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.0469}, "holds"),
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.047}, "partly"),     # exactly half: not below half
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.0939}, "partly"),
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.094}, "fails"),      # equal: not smaller
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": NAN}, None),           # no finite RMSE: nothing to compare
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": None}, None),          # a NaN stored as null
    ("ising-tap-onsager", {"naive_m": None, "tap_m": 0.019}, None),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.0096, **_SITE}, "holds"),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.00965, **_SITE}, "partly"),  # exactly half
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.0192, **_SITE}, "partly"),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.0193, **_SITE}, "fails"),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": None, **_SITE}, None),
    # against per-site TAP (its own claim): the 95 % interval of the ratio of the mean errors (t over 4 paired
    # instances) below 1/2 holds, below 1 partly, reaching 1 fails
    ("ising-adaptive-tap-site", _site(0.4999), "holds"),
    ("ising-adaptive-tap-site", _site(0.5001), "partly"),
    ("ising-adaptive-tap-site", _site(0.9999), "partly"),
    ("ising-adaptive-tap-site", _site(1.0001), "fails"),
    ("ising-adaptive-tap-site", {"atap_m_inst": _ATAP[:2], "tsite_m_inst": [0.008, 0.009]}, None),   # too few pairs
]

# --- linear response (the blog's): adaptive TAP's C error below half the trivial estimate's (C = 0) holds, below it
# partly, else fails ------------------------------------------------------------------------------------------------
RESPONSE_CASES = [
    ("ising-linear-response", {"atap_c": 0.0499, "rms_c_exact": 0.1}, "holds"),
    ("ising-linear-response", {"atap_c": 0.05, "rms_c_exact": 0.1}, "partly"),        # exactly half: not below
    ("ising-linear-response", {"atap_c": 0.0999, "rms_c_exact": 0.1}, "partly"),
    ("ising-linear-response", {"atap_c": 0.1, "rms_c_exact": 0.1}, "fails"),          # no better than C = 0
    ("ising-linear-response", {"atap_c": None, "rms_c_exact": 0.1}, None),
    ("ising-linear-response", {"atap_c": 0.006, "rms_c_exact": NAN}, None),
]


# --- the ordering (ours): adaptive TAP < TAP < naive, each by more than 2 paired SEs of the log ratio --------------
_INST = {"naive_c_inst": [0.08, 0.09, 0.10, 0.085, 0.095], "tap_c_inst": [0.010, 0.012, 0.011, 0.0105, 0.0115],
         "atap_c_inst": [0.006, 0.0065, 0.0068, 0.0062, 0.0064]}


def _se(better, worse):
    from mfattn.meanfield.claims_ising_accuracy import log_ratio_se
    import numpy as np
    return log_ratio_se(np.array(_INST[f"{better}_c_inst"]), np.array(_INST[f"{worse}_c_inst"]))


def _ordered(atap_over_tap_in_se, tap_over_naive_in_se=-10.0):
    """Means with log(adaptive TAP / TAP) and log(TAP / naive) at the given multiples of their paired SE."""
    naive = 0.09
    tap = naive * math.exp(tap_over_naive_in_se * _se("tap", "naive"))
    return {**_INST, "naive_c": naive, "tap_c": tap, "atap_c": tap * math.exp(atap_over_tap_in_se * _se("atap", "tap"))}


ORDERING_CASES = [
    ("ising-linear-response-ordering", _ordered(-2.0001), "holds"),
    ("ising-linear-response-ordering", _ordered(-1.9999), "partly"),     # inside 2 SE of TAP: not better
    ("ising-linear-response-ordering", _ordered(+1.0), "partly"),        # adaptive TAP worse than TAP, both beat naive
    ("ising-linear-response-ordering", _ordered(-3.0, -1.9999), "fails"),  # TAP within 2 SE of naive
    ("ising-linear-response-ordering", _ordered(-3.0, -2.0001), "holds"),
    ("ising-linear-response-ordering", {**_ordered(-3.0), "tap_c": None}, None),
]


# --- the line accuracy (ours): damping-0.05 errors over naive's (1.0 each) at sweep β 1.0, 1.2, 1.4, 1.6 on four
# instances; own lines where the median x reaches 1, for a theory whose median crosses it (more than 2 standard errors
# of the median above 1 at some β); the factor 2 kept before the line (else fails), lost (holds) or kept (fails) at the
# first β at or beyond it where the theory has a stable solution on at least 90 % of the instances, mixed: partly --------
def _rows(medians, spread):
    """Four instances about each median: its standard error 1.2533·IQR/1.349/√4 = 0.929·spread."""
    return [[m - spread, m - spread, m + spread, m + spread] for m in medians]


def _line(tap=(0.3, 0.4, 0.45, 0.6), atap=(0.1, 0.2, 0.3, 0.3), x_tap=(0.8, 1.1, 1.5, 2.0), x_atap=(0.8, 1.1, 1.2, 1.1),
          tap_spread=0.01, atap_spread=0.4, missing=()):
    """Four instances (all at each ratio); TAP's own x tight about its medians (it crosses at 1.2), adaptive TAP's wide
    (a median of 1.2 only 0.5 standard errors above 1: no crossing); ``missing``: (theory, β index) pairs where two
    instances have no solution."""
    out = {"instances": 4, "damping_betas": [1.0, 1.2, 1.4, 1.6], "at_beta": 1.2, "at_text": "1.20",
           "tap_at_strong": list(x_tap), "atap_at_strong": list(x_atap),
           "tap_at_strong_inst": _rows(x_tap, tap_spread), "atap_at_strong_inst": _rows(x_atap, atap_spread),
           "naive_strong_inst": [[1.0] * 4] * 4,
           "tap_strong_inst": [[r] * 4 for r in tap], "atap_strong_inst": [[r] * 4 for r in atap]}
    for key, i in missing:
        out[f"{key}_strong_inst"][i] = out[f"{key}_strong_inst"][i][:2] + [None, None]
    return out


AT_CASES = [
    ("ising-at-accuracy", _line(), "fails"),                                    # TAP keeps the factor 2 at β = 1.2
    ("ising-at-accuracy", _line(tap=(0.3, 0.5, 0.45, 0.6)), "holds"),           # exactly half at its line: lost
    ("ising-at-accuracy", _line(tap=(0.3, 0.4999, 0.45, 0.6)), "fails"),
    ("ising-at-accuracy", _line(tap=(0.5, 0.6, 0.7, 0.8)), "fails"),            # lost before its own line (β = 1.0)
    ("ising-at-accuracy", _line(tap=(0.4999, 0.6, 0.7, 0.8)), "holds"),
    ("ising-at-accuracy", _line(x_tap=(0.8, 0.9999, 1.5, 2.0), tap=(0.3, 0.45, 0.5, 0.6)), "holds"),  # line moves to 1.4
    ("ising-at-accuracy", _line(x_tap=(0.8, 1.0, 1.5, 2.0), tap=(0.3, 0.45, 0.5, 0.6)), "fails"),     # x = 1 is the line
    ("ising-at-accuracy", _line(missing=(("tap", 1),), tap=(0.3, 0.4, 0.5, 0.6)), "holds"),   # 2 of 4 at 1.2: β = 1.4
    ("ising-at-accuracy", _line(x_tap=(1.0, 1.1, 1.5, 2.0)), None),             # the line at the sweep's first β
    ("ising-at-accuracy", _line(x_tap=(0.8, 0.9, 0.95, 0.99)), None),           # no theory crosses 1
    ("ising-at-accuracy", _line(x_tap=(0.8, 0.9, 1.05, 1.05), tap_spread=0.0270), None),     # 1.99 SE above 1: no
    ("ising-at-accuracy", _line(x_tap=(0.8, 0.9, 1.05, 1.05), tap_spread=0.0268), "fails"),  # 2.01 SE: crosses
    ("ising-at-accuracy", _line(missing=(("tap", 1), ("tap", 2), ("tap", 3))), None),   # nothing measured beyond
    # adaptive TAP crossing too (a tight spread): it keeps the factor 2 where TAP loses it: partly
    ("ising-at-accuracy", _line(tap=(0.3, 0.6, 0.7, 0.8), atap_spread=0.01), "partly"),
    ("ising-at-accuracy", _line(tap=(0.3, 0.6, 0.7, 0.8), atap=(0.1, 0.5, 0.6, 0.6), atap_spread=0.01), "holds"),
]


# --- the blog's stability sentence: no converged point with a non-positive-definite χ holds, fewer than 1 % of them
# partly, else fails (4 theories × (10 β × 10 instances in the comparison + 1 β × 10 in a one-damping sweep) = 440)
def _psd(naive_bad=0, sweep_bad=0.0, met=60, stayed=0):
    """440 converged points on the stored solutions and a stress study where every theory meets the antecedent on
    ``met`` points, ``stayed`` of whose kicked runs settle where χ is not positive definite (680 points in all)."""
    from mfattn.meanfield.claims_ising_line import _stress_example
    keys = ("naive", "tap", "tsite", "atap")
    out = {"betas": [1.0] * 10, "instances": 10, "damping_betas": [1.0], "stress": _stress_example(met, stayed)}
    for k in keys:
        out.update({f"{k}_unstable": naive_bad if k == "naive" else 0, f"{k}_not_converged": 0,
                    f"{k}_conv_d": [1.0], f"{k}_stable_d": [1.0 - (sweep_bad if k == "atap" else 0.0)]})
    return out


PSD_CASES = [
    ("ising-breakdown", _psd(), "holds"),                        # power: adaptive TAP meets the antecedent 60 times
    ("ising-breakdown", _psd(met=59), None),                     # 59: no power (rule of three above 5 %)
    ("ising-breakdown", _psd(naive_bad=1), "partly"),            # 1 of 680
    ("ising-breakdown", _psd(naive_bad=6), "partly"),            # 6 of 680 < 1 %
    ("ising-breakdown", _psd(naive_bad=7), "fails"),             # 7 of 680 > 1 %
    ("ising-breakdown", _psd(sweep_bad=0.1), "partly"),          # 1 sweep point of adaptive TAP
    ("ising-breakdown", _psd(stayed=1), "partly"),               # one kicked run per theory stays: 4 of 680
    ("ising-breakdown", {**_psd(met=0), "betas": [], "damping_betas": []}, None),   # no converged point
]

# --- stable beyond the line (ours): the least stable fraction beyond its own line, over the theories whose own median
# x crosses 1 (more than 2 standard errors above it at some β), ≥ 0.9 holds, ≥ 0.5 partly --------------------------
def _beyond(tap, atap, tap_spread=0.01, atap_spread=0.4):
    """Own x of four instances at two β (medians 0.8 and 1.5): TAP tight (crosses), adaptive TAP wide (does not)."""
    return {"tap_beyond_own": tap, "atap_beyond_own": atap, "tap_at_strong_inst": _rows((0.8, 1.5), tap_spread),
            "atap_at_strong_inst": _rows((0.8, 1.5), atap_spread)}


BEYOND_CASES = [
    ("ising-stable-beyond-line", _beyond(0.9, 0.2), "holds"),                    # adaptive TAP does not cross
    ("ising-stable-beyond-line", _beyond(0.8999, 1.0), "partly"),
    ("ising-stable-beyond-line", _beyond(0.5, 1.0), "partly"),
    ("ising-stable-beyond-line", _beyond(0.4999, 1.0), "fails"),
    ("ising-stable-beyond-line", _beyond(0.9972, 1.0), "holds"),                 # the stored numbers
    ("ising-stable-beyond-line", _beyond(1.0, 0.4999, atap_spread=0.01), "fails"),   # adaptive TAP crossing too
    ("ising-stable-beyond-line", _beyond(None, 0.9, atap_spread=0.01), "holds"),     # TAP with no point beyond
    ("ising-stable-beyond-line", _beyond(NAN, 0.9, atap_spread=0.01), "holds"),      # NaN: no point beyond
    ("ising-stable-beyond-line", _beyond(1.0, 1.0, tap_spread=0.4), None),          # neither crosses
    ("ising-stable-beyond-line", _beyond(None, None, atap_spread=0.01), None),
]

# --- the Gaussian vector-spin identity, solved to 1e-15: below 100 × the float64 bound holds, below 1e-6 partly, else
# (or NaN) fails ----------------------------------------------------------------------------------------------------
IDENTITY_CASES = [
    ("ising-gaussian-vector-spins", {"vec_tight": 3.1e-15, "vec_bound": 2.8e-15}, "holds"),   # the stored shape
    ("ising-gaussian-vector-spins", {"vec_tight": 9.99e-14, "vec_bound": 1e-15}, "holds"),
    ("ising-gaussian-vector-spins", {"vec_tight": 1e-13, "vec_bound": 1e-15}, "partly"),
    ("ising-gaussian-vector-spins", {"vec_tight": 9.99e-7, "vec_bound": 1e-15}, "partly"),
    ("ising-gaussian-vector-spins", {"vec_tight": 1e-6, "vec_bound": 1e-15}, "fails"),
    ("ising-gaussian-vector-spins", {"vec_tight": NAN, "vec_bound": 1e-15}, "fails"),
    ("ising-gaussian-vector-spins", {"vec_tight": None, "vec_bound": 1e-15}, None),             # not stored (null)
]

def _families(ratio, sk=0.2, hopfield_atap=None, n=6):
    """SK and every family on ``n`` instances with a small spread: adaptive TAP at ``sk`` of TAP's error on SK and in
    every family but the Hebbian one, which is at ``ratio`` (or ``hopfield_atap``, per instance)."""
    tap = [1.0 + 0.01 * ((-1) ** k) * (k % 3) for k in range(n)]
    jit = [1.0 + 0.005 * ((-1) ** k) * ((k + 1) % 3) for k in range(n)]
    out = {"fam_beta": 0.5, "atap_m_inst": [sk * x * j for x, j in zip(tap, jit)], "tap_m_inst": tap}
    for f in ("diluted", "ferro", "hopfield", "hopfield_dense"):
        r = ratio if f == "hopfield" else sk
        out.update({f"fam_{f}_tap_m_inst": list(tap), f"fam_{f}_tsite_m_inst": list(tap),
                    f"fam_{f}_atap_m_inst": [r * x for x in tap]})
    if hopfield_atap is not None:
        out["fam_hopfield_atap_m_inst"] = list(hopfield_atap)
    return out


# --- adaptive TAP on couplings not drawn from SK: the per-site z rule, either side of ±2 ---------------------------
def _z_families(hebbian: float, diluted: float = 0.45) -> dict:
    """Every family at adaptive TAP / per-site TAP = 0.45 (as on SK couplings of its strength), the Hebbian family at
    ``hebbian`` and the diluted one at ``diluted`` (six instances each, a small spread)."""
    from mfattn.meanfield.claims_ising_families import _z_example
    s = _z_example(hebbian)
    base = s["fam_diluted_tsite_m_inst"]
    s["fam_diluted_atap_m_inst"] = [diluted * b * j for b, j in zip(base, (1.0, 0.995, 1.005, 0.99, 1.01, 1.0))]
    return s


def _at_z(target: float, which: str) -> float:
    """The ratio at which the family's z against SK of its strength is ``target`` (bisection on the rule's own z)."""
    from mfattn.meanfield.claims_ising_families import _z_against_matched
    fam = "hopfield" if which == "hebbian" else "diluted"
    lo, hi = 0.05, 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        s = _z_families(mid) if which == "hebbian" else _z_families(0.45, diluted=mid)
        lo, hi = (mid, hi) if _z_against_matched(s, "tsite")[fam] < target else (lo, mid)
    return (lo + hi) / 2


_GAIN, _LOSS = _at_z(-2.0, "hebbian"), _at_z(2.0, "diluted")
FAMILY_CASES = [
    ("ising-adaptive-tap-compensates", _z_families(_GAIN * 0.999), "holds"),     # z just below −2: a gain
    ("ising-adaptive-tap-compensates", _z_families(_GAIN * 1.001), "partly"),    # just above: no gain shown
    ("ising-adaptive-tap-compensates", _z_families(0.45, diluted=_LOSS * 0.999), "partly"),
    ("ising-adaptive-tap-compensates", _z_families(0.45, diluted=_LOSS * 1.001), "fails"),   # z above +2
    ("ising-adaptive-tap-compensates", {**_z_families(_GAIN * 0.999), "fam_hopfield_atap_m_inst":
                                        _z_families(_GAIN * 0.999)["fam_hopfield_atap_m_inst"][:5] + [None]}, "fails"),
]

BOUNDARY_CASES = FAMILY_CASES + FACTOR_CASES + RESPONSE_CASES + ORDERING_CASES + AT_CASES + PSD_CASES + BEYOND_CASES + \
    IDENTITY_CASES


@pytest.mark.parametrize("claim_id, numbers, grade", BOUNDARY_CASES)
def test_chapter_1_rules_either_side_of_each_threshold(claim_id, numbers, grade):
    check_case(BY_ID[claim_id], numbers, grade)


def test_every_ruled_chapter_1_claim_has_boundary_cases_of_each_grade():
    """Each rule is met here at its thresholds from every side it has (the identity and the factor rules included)."""
    check_every_rule_covered(BOUNDARY_CASES, BY_ID.values())
