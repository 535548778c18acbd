"""Chapter 1's verdict rules (mfattn.meanfield.claims) fed numbers at and just either side of each declared threshold:
a moved threshold or a flipped comparison fails a case. The numbers are those of the stored full profile
(data/full/ising/summary.json: 40 instances, n = 18; RMSE of m at β = 0.5 naive 0.094, TAP 0.019, adaptive TAP
0.0038; the β grid 0.05 to 2 by 0.05) moved to each threshold. ``None`` as the grade: the numbers cannot decide
(a number stored as null, no line on the grid, nothing measured beyond it), and the rule says so
(:class:`~mfattn.companion.verdicts.Undecidable`, a claim "not tested") instead of guessing or raising."""

import pytest

from mfattn.companion import verdicts

from rule_boundaries import check_case, check_every_rule_covered

BY_ID = {c.id: c for c in verdicts.declared("ising")}
NAN = float("nan")

# --- the factor-2 comparisons at β = 0.5: better < worse / 2 holds, < worse partly, else fails ------------------
FACTOR_CASES = [
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.0469}, "holds"),
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.047}, "partly"),     # exactly half: not below half
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.0939}, "partly"),
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": 0.094}, "fails"),      # equal: not smaller
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": NAN}, None),           # no finite RMSE: nothing to compare
    ("ising-tap-onsager", {"naive_m": 0.094, "tap_m": None}, None),          # a NaN stored as null
    ("ising-tap-onsager", {"naive_m": None, "tap_m": 0.019}, None),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.0096}, "holds"),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.00965}, "partly"),  # exactly half
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.0192}, "partly"),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": 0.0193}, "fails"),
    ("ising-adaptive-tap", {"tap_m": 0.0193, "atap_m": None}, None),
]

# --- linear response: atap < tap < naive holds, both < naive partly, else fails ------------------------------
_C = {"naive_c": 0.0866, "tap_c": 0.0111, "atap_c": 0.0065}
CORRELATION_CASES = [
    ("ising-linear-response", _C, "holds"),
    ("ising-linear-response", {**_C, "atap_c": 0.0111}, "partly"),           # adaptive TAP = TAP: not strictly better
    ("ising-linear-response", {**_C, "atap_c": 0.0112}, "partly"),
    ("ising-linear-response", {**_C, "tap_c": 0.0865}, "holds"),
    ("ising-linear-response", {**_C, "tap_c": 0.0866}, "fails"),             # TAP = naive: does not beat it
    ("ising-linear-response", {**_C, "atap_c": 0.0866}, "fails"),
    ("ising-linear-response", {**_C, "atap_c": 0.0865}, "partly"),
    ("ising-linear-response", {**_C, "tap_c": None}, None),
    ("ising-linear-response", {**_C, "naive_c": NAN}, None),
]

# --- the AT-line accuracy: a factor 2 over naive before each theory's own line (β < line), and at the last β at
# or beyond both lines (β ≥ line) where both converge on at least a quarter of the instances (ok ≥ 0.25 · 40 = 10)
_AT = {"instances": 40, "betas": [1.1, 1.15, 1.2, 1.25, 1.3, 1.35], "tap_own_at": 1.2, "atap_own_at": 1.3,
       "naive_by_beta": [0.50, 0.51, 0.52, 0.53, 0.54, 0.55],
       "tap_by_beta": [0.12, 0.14, 0.14, 0.144, 0.149, 0.40], "atap_by_beta": [0.07, 0.09, 0.12, 0.125, 0.13, 0.40],
       "tap_ok_by_beta": [34, 29, 20, 13, 10, 6], "atap_ok_by_beta": [38, 36, 32, 29, 25, 24]}


def _at(**change):
    """The stored-like AT numbers with entries changed: ``key=value`` or ``key=(index, value)`` for one grid point."""
    out = {k: list(v) if isinstance(v, list) else v for k, v in _AT.items()}
    for k, v in change.items():
        if isinstance(v, tuple):
            out[k][v[0]] = v[1]
        else:
            out[k] = v
    return out


AT_CASES = [
    # the stored shape: both ahead before their lines and still at β = 1.3 (TAP on exactly 10 of 40 there)
    ("ising-at-accuracy", _at(), "partly"),
    ("ising-at-accuracy", _at(tap_ok_by_beta=(4, 9)), None),                 # 9 < 10: nothing measured beyond
    ("ising-at-accuracy", _at(tap_ok_by_beta=(5, 10)), "holds"),             # β = 1.35 measured: TAP lost it there
    ("ising-at-accuracy", _at(tap_ok_by_beta=(5, 9)), "partly"),             # ... on 9 of 40 it is not measured
    ("ising-at-accuracy", _at(tap_by_beta=(4, 0.27)), "holds"),              # exactly half of naive's 0.54: lost
    ("ising-at-accuracy", _at(tap_by_beta=(4, 0.2699)), "partly"),
    ("ising-at-accuracy", _at(tap_by_beta=(4, None)), None),                 # no TAP solution at 1.3: not measured
    # before the line: the last β below it decides (β = 1.15 for TAP, 1.25 for adaptive TAP)
    ("ising-at-accuracy", _at(tap_by_beta=(1, 0.255)), "fails"),             # exactly half of 0.51: not ahead
    ("ising-at-accuracy", _at(tap_by_beta=(1, 0.2549)), "partly"),
    ("ising-at-accuracy", _at(atap_by_beta=(3, 0.265)), "fails"),
    ("ising-at-accuracy", _at(atap_by_beta=(3, 0.2649)), "partly"),
    ("ising-at-accuracy", _at(tap_by_beta=(1, None)), "fails"),              # no solution before its line
    # a line on a grid point: that point is not before it (β < line), and it is at or beyond it (β ≥ line)
    ("ising-at-accuracy", _at(tap_own_at=1.15, tap_by_beta=(1, 0.3)), "partly"),
    ("ising-at-accuracy", _at(tap_own_at=1.1), None),                        # at the first β: nothing before it
    ("ising-at-accuracy", _at(atap_own_at=1.35), None),                      # β ≥ 1.35: TAP on 6 of 40 only
    ("ising-at-accuracy", _at(atap_own_at=None), None),                      # its own solutions never cross 1
    ("ising-at-accuracy", _at(naive_by_beta=(4, None)), None),               # naive's RMSE stored as null
]

# --- breakdown: the least stable fraction beyond its own line < 0.5 holds, < 0.9 partly, else fails -----------
BREAKDOWN_CASES = [
    ("ising-breakdown", {"tap_beyond_own": 0.4999, "atap_beyond_own": 1.0}, "holds"),
    ("ising-breakdown", {"tap_beyond_own": 0.5, "atap_beyond_own": 1.0}, "partly"),
    ("ising-breakdown", {"tap_beyond_own": 1.0, "atap_beyond_own": 0.8999}, "partly"),
    ("ising-breakdown", {"tap_beyond_own": 0.9, "atap_beyond_own": 1.0}, "fails"),
    ("ising-breakdown", {"tap_beyond_own": 0.9972, "atap_beyond_own": 1.0}, "fails"),   # the stored numbers
    ("ising-breakdown", {"tap_beyond_own": None, "atap_beyond_own": 0.4999}, "holds"),  # only one crosses its line
    ("ising-breakdown", {"tap_beyond_own": NAN, "atap_beyond_own": 0.4999}, "holds"),   # NaN: no point beyond
    ("ising-breakdown", {"tap_beyond_own": None, "atap_beyond_own": None}, None),
    ("ising-breakdown", {"tap_beyond_own": NAN, "atap_beyond_own": None}, None),
]

# --- the Gaussian vector-spin identity: < 1e-12 holds, < 1e-6 partly, else (or NaN) fails ----------------------
IDENTITY_CASES = [
    ("ising-gaussian-vector-spins", {"vec": 6.45e-13}, "holds"),              # the stored deviation
    ("ising-gaussian-vector-spins", {"vec": 9.99e-13}, "holds"),
    ("ising-gaussian-vector-spins", {"vec": 1e-12}, "partly"),
    ("ising-gaussian-vector-spins", {"vec": 9.99e-7}, "partly"),
    ("ising-gaussian-vector-spins", {"vec": 1e-6}, "fails"),
    ("ising-gaussian-vector-spins", {"vec": NAN}, "fails"),
    ("ising-gaussian-vector-spins", {"vec": None}, None),                     # not stored (null)
]

BOUNDARY_CASES = FACTOR_CASES + CORRELATION_CASES + AT_CASES + BREAKDOWN_CASES + IDENTITY_CASES


@pytest.mark.parametrize("claim_id, numbers, grade", BOUNDARY_CASES)
def test_chapter_1_rules_either_side_of_each_threshold(claim_id, numbers, grade):
    check_case(BY_ID[claim_id], numbers, grade)


def test_every_ruled_chapter_1_claim_has_boundary_cases_of_each_grade():
    """Each rule is met here at its thresholds from every side it has (the identity and the factor rules included)."""
    check_every_rule_covered(BOUNDARY_CASES, BY_ID.values())
