"""Mutation round 4 (mut-s12): mfattn/dynamics/claims_map.py -- map_at refuses forms of which any one is not a stored
deviation (not only when none is)."""

from __future__ import annotations

import pytest

from mfattn.dynamics import claims_map as CM


@pytest.mark.parametrize("forms", [("expansion_vs_classes", "bogus"), ("bogus", "classes_vs_direct"), ("bogus",), (),
                                   "expansion_vs_classes", ["classes_vs_direct", "expansion"]])
def test_map_at_refuses_an_unknown_form_among_known_ones(forms):
    """claims_map.py:47: `all(f in known for f in forms)`."""
    with pytest.raises(ValueError, match=r"^forms must be a non-empty tuple of the stored deviations"):
        CM.map_at(1e-12, forms=forms)


@pytest.mark.parametrize("forms", [("expansion_vs_classes",), ("classes_vs_direct",),
                                   ("expansion_vs_classes", "classes_vs_direct"), ["classes_vs_direct"]])
def test_map_at_takes_the_stored_deviations(forms):
    assert callable(CM.map_at(1e-12, forms=forms))
