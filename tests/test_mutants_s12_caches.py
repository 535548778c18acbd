"""Mutation round 4 (mut-s12): mfattn/companion/caches.py -- cached_npz refuses a compute that is not callable,
by its own message, before it reads (and could return) a stored entry."""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.companion import caches


@pytest.mark.parametrize("compute", [None, 3, "f", {"x": [1.0]}, np.arange(3.0)])
def test_cached_npz_refuses_a_compute_that_is_not_callable(tmp_path, compute):
    """caches.py:187: the check names compute, with or without a stored entry at path."""
    path = tmp_path / "a.npz"
    with pytest.raises(TypeError, match=r"^compute must be callable \(\(\) -> arrays\); got "):
        caches.cached_npz(path, compute, code="c1")
    assert not path.exists()
    caches.cached_npz(path, lambda: {"x": np.arange(4.0)}, code="c1")   # a good entry is stored
    with pytest.raises(TypeError, match=r"^compute must be callable"):
        caches.cached_npz(path, compute, code="c1")
    with pytest.raises(TypeError, match=r"^compute must be callable"):
        caches.cached_npz(path, compute, code="c1", use_cache=False)
    np.testing.assert_array_equal(caches.cached_npz(path, lambda: {"x": np.zeros(1)}, code="c1")["x"], np.arange(4.0))
