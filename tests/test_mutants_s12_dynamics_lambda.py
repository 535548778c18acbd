"""Mutation round 4 (mut-s12): mfattn/dynamics/claims_lambda.py -- LT's reason check on Fig. 3a's undecided band (at
most 0.2 % of the β, isolated: both edges of the share) and the windows noise of a torus (two windows suffice)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mfattn.dynamics import claims_lambda as CL


def _s(undecided_at):
    """A zoom with a torus interval between the crossing (β = 1.15) and the first chaotic β, and a Fig. 3a of 1000
    periodic β but for undecided orbits without a period (LT < λ ≤ LC) at the given indices."""
    zoom = {"betas": [1.0, 1.1, 1.2, 1.3, 1.4], "lyapunov": [-0.01, -0.01, 1e-5, -1e-5, 0.01], "period": [0] * 5}
    period = np.ones(1000, dtype=int)
    lam = np.full(1000, -0.05)
    period[list(undecided_at)] = 0
    lam[list(undecided_at)] = 5e-4
    fig3a = {"betas": list(np.linspace(0.0, 3.0, 1000)), "lyapunov": list(lam), "period": list(period)}
    return {"ns_beta": 1.15, "z_orbit_arrays": zoom, "a_orbit_arrays": fig3a}


def test_the_share_is_read_on_a_thousand_betas():
    assert CL.UNDECIDED_SHARE * 1000 == 2.0


@pytest.mark.parametrize("undecided, ok", [((), True), ((10,), True), ((10, 500), True),   # 2 of 1000: the edge
                                           ((10, 500, 900), False),                           # 3 of 1000
                                           ((10, 11), False)])                                # neighbours
def test_lts_reason_allows_at_most_0_2_percent_isolated_undecided_betas(undecided, ok):
    """claims_lambda.py:176: `aband.sum() <= UNDECIDED_SHARE * ab.size` and _isolated(aband)."""
    got, text = CL.check_lt(_s(undecided))
    assert bool(got) is ok, text
    assert f"{len(undecided)} in Fig. 3a" in text


def _f4(windows):
    return {"f4_lyapunov": [1e-5] * len(windows), "f4_period": [0] * len(windows), "f4_lyapunov_windows": windows}


def test_a_torus_with_two_windows_gives_the_noise():
    """claims_lambda.py:203: `len(w) > 1` (two windows give a standard deviation)."""
    assert CL.noise_lt(_f4([[1e-5, 3e-5]])) == pytest.approx(1e-5, rel=1e-12)   # sd √2·1e-5 over √2
    assert CL.noise_lt(_f4([[1e-5, 3e-5], [1e-5, 1e-5, 1e-5], [7.0]])) == pytest.approx(1e-5, rel=1e-12)
    with pytest.raises(KeyError):
        CL.noise_lt(_f4([[1e-5]]))
    got = CL.noise_lt(_f4([[0.0, 2e-5, 4e-5]]))
    assert got == pytest.approx(2e-5 / math.sqrt(3), rel=1e-12)
