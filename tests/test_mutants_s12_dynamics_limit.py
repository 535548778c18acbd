"""Mutation round 4 (mut-s12): mfattn/dynamics/claims_limit.py -- the band's threshold check: 0.1 at least four
standard errors of the network's slope, and the slope within 0.1 - 2 SE of -1/2 (both edges, in float64)."""

from __future__ import annotations

import pytest

from mfattn.dynamics import claims_limit as CL


@pytest.mark.parametrize("se, slope, ok", [
    (0.02, -0.45, True),     # |slope + 1/2| = 0.05 <= 0.1 - 2 SE = 0.06
    (0.02, -0.44, True),     # 0.06 (0.059999...) on the edge 0.0600...05
    (0.02, -0.43, False),    # 0.07 > 0.06
    (0.02, -0.56, False),    # 0.06000000000000005 just above the edge in float64
    (0.02, -0.55, True),
    (0.01, -0.42, False),    # 0.08000000000000002 just above 0.1 - 0.02 = 0.08 in float64
    (0.01, -0.58, True),     # 0.07999999999999996 <= 0.08
    (0.01, -0.41, False),    # 0.09 > 0.08
    (0.025, -0.5, True),     # 4 SE == 0.1 exactly
    (0.0250001, -0.5, False),  # 4 SE above 0.1
    (0.03, -0.5, False),
])
def test_the_band_check_at_its_edges(se, slope, ok):
    """claims_limit.py:64: `0.1 >= 4 * se and abs(slope + 0.5) <= 0.1 - 2 * se`."""
    got, text = CL._band_check({"network_slope": slope, "network_slope_se": se})
    assert got is ok
    assert f"standard error {se:.3f}" in text


def test_the_band_check_with_the_stored_slope_s_size_of_error():
    """The stored network slope's SE is about 0.012 (the threshold's reason): a slope 0.07 off -1/2 passes (0.07 <=
    0.076), 0.08 does not; with three SE it would be 0.064."""
    assert CL._band_check({"network_slope": -0.43, "network_slope_se": 0.012})[0] is True
    assert CL._band_check({"network_slope": -0.42, "network_slope_se": 0.012})[0] is False
    assert CL._band_check({"network_slope": -0.57, "network_slope_se": 0.012})[0] is True
