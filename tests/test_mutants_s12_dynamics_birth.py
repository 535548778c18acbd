"""Mutation round 4 (mut-s12): mfattn/dynamics/claims_birth.py -- the circle's birth rule reads the radius's exponent
on both sides of 1/2 (within 0.1), with the fit itself stood in for (circle_fit)."""

from __future__ import annotations

import pytest

from mfattn.dynamics import claims_birth as CB


@pytest.mark.parametrize("expo, grade", [(0.5, "holds"), (0.41, "holds"), (0.59, "holds"), (0.39, "partly"),
                                         (0.61, "partly"), (0.25, "partly"), (0.0, "partly"), (1.0, "partly")])
def test_the_birth_rule_wants_the_exponent_within_0_1_of_one_half_on_both_sides(monkeypatch, expo, grade):
    """claims_birth.py:74: `abs(expo - 0.5) <= exponent_tol` (an exponent far below 1/2 is no normal-form circle)."""
    monkeypatch.setattr(CB, "circle_fit", lambda s, p="z", span=None: (1.25, expo, 50))
    rule = CB.birth_at(CB.BIRTH_STEPS, CB.EXPONENT_TOL)
    assert rule({"ns_beta": 1.25, "z_grid_step": 1e-5}) == grade


@pytest.mark.parametrize("b0, grade", [(1.25 + 9e-5, "holds"), (1.25 - 9e-5, "holds"), (1.25 + 1.1e-4, "partly"),
                                       (1.25 - 1.1e-4, "partly")])
def test_the_birth_rule_wants_beta0_within_ten_grid_steps(monkeypatch, b0, grade):
    monkeypatch.setattr(CB, "circle_fit", lambda s, p="z", span=None: (b0, 0.5, 50))
    assert CB.birth_at(10, 0.1)({"ns_beta": 1.25, "z_grid_step": 1e-5}) == grade


def test_the_birth_rule_fails_outside_the_window_or_without_a_circle(monkeypatch):
    monkeypatch.setattr(CB, "circle_fit", lambda s, p="z", span=None: None)
    assert CB.birth_at(10, 0.1)({"ns_beta": 1.25, "z_grid_step": 1e-5}) == "fails"
    monkeypatch.setattr(CB, "circle_fit", lambda s, p="z", span=None: (1.3, 0.5, 50))
    assert CB.birth_at(10, 0.1)({"ns_beta": 1.30, "z_grid_step": 1e-5}) == "fails"
