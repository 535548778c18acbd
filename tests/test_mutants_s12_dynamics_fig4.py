"""Mutation round 4 (mut-s12): mfattn/dynamics/claims_fig4.py -- the attractor census is matched to the Fig. 4 β by
rounding to 9 decimals on both sides: a stored β within 5e-10 of the grid is that β, one 7e-10 off is not."""

from __future__ import annotations

import pytest

from mfattn.dynamics import claims_fig4 as F4
from mfattn.dynamics.claims_fig4 import FIG4


def _census(offset):
    torus = {"period": 0, "lyapunov": [1e-5, 2e-5]}
    chaos = {"period": 0, "lyapunov": [0.01, 0.02]}
    cycle = {"period": 7, "lyapunov": [-0.01, -0.02]}
    mixed = {"period": 0, "lyapunov": [1e-5, 0.01]}
    rows = [{"beta": b + offset, "attractors": [torus, chaos, cycle, mixed][: 1 + i % 4]} for i, b in enumerate(FIG4)]
    return {"census": rows}


@pytest.mark.parametrize("offset", [0.0, 2e-10, -2e-10, 4e-10])
def test_a_census_beta_within_the_ninth_decimal_is_the_fig4_beta(offset):
    """claims_fig4.py:44: rows keyed by round(β, 9), looked up by round(Fig. 4 β, 9)."""
    got = F4._census_kinds(_census(offset))
    assert got is not None and len(got) == len(FIG4)
    assert got[0] == ["torus"] and got[1] == ["torus", "chaotic"]
    assert got[2] == ["torus", "chaotic", "periodic"] and got[3] == ["torus", "chaotic", "periodic", "undecided"]


@pytest.mark.parametrize("offset", [7e-10, -7e-10, 1e-6])
def test_a_census_beta_off_the_ninth_decimal_is_not_the_fig4_beta(offset):
    assert F4._census_kinds(_census(offset)) is None


def test_no_census_reads_none():
    assert F4._census_kinds({}) is None and F4._census_kinds({"census": None}) is None
    assert F4._census_kinds({"census": _census(0.0)["census"][:-1]}) is None   # one Fig. 4 β missing
