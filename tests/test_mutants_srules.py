"""Edges of :mod:`mfattn.structural.claims_rules` that the other tests left free to change (found by sampled mutation
testing, issue 44 item 6): the round-off check and the band check exactly at their documented bounds (a decade
below 1e-12, at most a decade above the round-off; 1e-13 and 1e-5), the thresholds' documented values and noise,
``needs`` and ``identity_and`` with their default levels (1e-12, 1e-6).
"""

from __future__ import annotations

import math

import pytest

from mfattn.companion.verdicts import Undecidable
from mfattn.structural import claims_rules as cr
from mfattn.structural.claims_rules import IDENTITY_KEYS, STRUCTURAL_GAPS


def _check(dev, off):
    return cr.is_roundoff(("dev",), "off", "a computation")({"dev": dev, "off": off})


def test_the_round_off_check_holds_at_exactly_a_decade_on_either_side():
    """ok = 10·r ≤ 1e-12 and x ≤ 10·r, both bounds included: r = 1e-13 (10·r is 1e-12 exactly in float64) with
    x = 10·r = 1e-12 passes; r a bit above 1e-13, or x a bit above 10·r, does not."""
    assert 10 * 1e-13 == 1e-12                       # the edge is exact in float64
    ok, found = _check(1e-12, 1e-13)
    assert ok and "10 times it" in found
    assert not _check(1e-12, 1.01e-13)[0]            # the round-off less than a decade below 1e-12
    assert not _check(1.01e-12, 1e-13)[0]            # the deviation more than a decade above the round-off
    assert not _check(1.5e-13, 1e-14)[0]             # 15 times the round-off: fails (not 20)
    ok, found = _check(7e-13, 7e-14)                 # 20 · 7e-14 = 1.4e-12 would be above 1e-12; 10 · 7e-14 is not
    assert ok and "10 times it" in found
    assert _check(2e-14, 2e-14)[0]                   # a deviation equal to the round-off is round-off
    assert not _check(1e-12, 1e-12)[0]               # a round-off of 1e-12 leaves no decade below the tolerance


def test_the_round_off_check_of_an_exact_computation_reads_infinitely_many_times():
    """A round-off of exactly 0 with a deviation of 0: ok (0 ≤ 0), and the ratio is written as inf, not divided."""
    ok, found = _check(0.0, 0.0)
    assert ok and "(at most a decade above it: inf times it)" in found


def _band(dev, gap):
    s = {k: 0.0 for k in IDENTITY_KEYS} | {k: 1.0 for k in STRUCTURAL_GAPS}
    s[IDENTITY_KEYS[3]], s[STRUCTURAL_GAPS[1]] = dev, gap
    return cr.band_is_empty(s)


def test_the_band_check_excludes_its_bounds():
    """The band from 1e-13 to 1e-5 holds no stored number: every deviation strictly below 1e-13 and every gap
    strictly above 1e-5 (the largest deviation, the smallest gap)."""
    ok, found = _band(9e-14, 2e-5)
    assert ok is True and found == ("largest identity deviation of the chapter 9.0e-14, smallest structural gap "
                                    "2e-05: the band from 1e-13 to 1e-5 holds no stored number")
    assert _band(1e-13, 2e-5)[0] is False            # a deviation at 1e-13 is in the band
    assert _band(1e-12, 2e-5)[0] is False
    assert _band(9e-14, 1e-5)[0] is False            # a gap at 1e-5 is in the band
    assert "a stored number lies in the band" in _band(1e-12, 2e-5)[1]


def test_the_identity_thresholds_have_their_documented_values_and_noise():
    """``tol`` 1e-12 checked by the round-off check, ``near`` 1e-6 (single precision) checked by the band check, each
    tried a decade either way (noise 10 on a log scale)."""
    tol, near = cr.identity_thresholds(("dev",), "off", "a computation")
    assert (tol.name, tol.value, tol.noise, tol.log) == ("tol", 1e-12, 10.0, True)
    assert (near.name, near.value, near.noise, near.log) == ("near", 1e-6, 10.0, True)
    assert tol.check({"dev": 1e-12, "off": 1e-13})[0] and not tol.check({"dev": 1e-12, "off": 1.01e-13})[0]
    assert near.check({k: 0.0 for k in IDENTITY_KEYS} | {k: 1.0 for k in STRUCTURAL_GAPS})[0] is True


def test_needs_reads_each_key_then_returns_the_rules_grade():
    """``needs(rule, *keys)``: a rule that returns ``rule(s)`` once each key is a number; a missing key is a
    KeyError, None or NaN Undecidable; a rule that is not callable a TypeError."""
    rule = cr.needs(lambda s: "holds" if s["a"] < s["b"] else "fails", "a", "b")
    assert rule({"a": 1, "b": 2}) == "holds" and rule({"a": 3, "b": 2}) == "fails"
    with pytest.raises(KeyError):
        rule({"a": 1})
    with pytest.raises(Undecidable, match="b is NaN"):
        rule({"a": 1, "b": math.nan})
    with pytest.raises(Undecidable, match="a is not a number"):
        rule({"a": None, "b": 2})
    with pytest.raises(TypeError, match="rule must be callable"):
        cr.needs("holds", "a")


def test_identity_and_grades_with_its_default_levels():
    """``identity_and(keys, exact)`` at tol = 1e-12, near = 1e-6: a deviation below 1e-12 holds if the identity is
    exact in general, else partly; between 1e-12 and 1e-6 partly; 1e-6 or more fails, whatever ``exact`` says."""
    exact = cr.identity_and(("d",), lambda s: s["general"] > 0)
    assert exact({"d": 1e-14, "general": 1}) == "holds"
    assert exact({"d": 1e-14, "general": 0}) == "partly"
    assert exact({"d": 1e-9, "general": 1}) == "partly"
    assert exact({"d": 1e-6, "general": 1}) == "fails"
    assert exact({"d": 1e-3, "general": 1}) == "fails"
    with pytest.raises(ValueError, match="near must be >= tol"):
        cr.identity_and(("d",), lambda s: True, tol=1e-6, near=1e-9)
