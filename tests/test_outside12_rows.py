"""Issue 44, outside table 12 rows (on 79be686): each hostile call refused by one error naming the parameter, and its
valid neighbour still computed. Tiny inputs only."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


def test_bounds_and_sizes_past_floats_range_are_read_not_overflowed():
    # a0573 (check_real with maximum=10**400: OverflowError), a0901 (get_profile n=10**400: OverflowError)
    from mfattn.companion.checks_scalars import check_real
    from mfattn.companion.profiles import get_profile
    assert check_real("x", np.float32(0.25), minimum=0.0, maximum=10**400) == 0.25
    with pytest.raises(ValueError, match="x must be >= -inf and <= 1"):
        check_real("x", 2.0, minimum=-10**400, maximum=1)
    with pytest.raises(ValueError, match="size 'n'"):
        get_profile("ising", "quick", n=10**400)


def test_meanfield_rows(tmp_path):
    # a1501 (damping_sweep budget=10**400: OverflowError), a1728 (clearly_crosses read a bool array), a1450/a1455
    # (median_over_instances: an infinite entry counts, as its docstring now says)
    from mfattn.meanfield.accuracy_comparison import median_over_instances
    from mfattn.meanfield.accuracy_damping import damping_sweep
    from mfattn.meanfield.figures import clearly_crosses
    with pytest.raises(ValueError, match=r"budget must be an integer in \[1, 1000000\]"):
        damping_sweep(4, [0.1, 0.3], 2, [0.5, 0.2], budget=10**400)
    with pytest.raises(TypeError, match="bool array"):
        clearly_crosses(np.array([0.5, 1.5, 2.0]) != 0)
    assert clearly_crosses(np.array([[0.5, 1.5, 2.0]])) is False
    assert median_over_instances(np.array([[1.0, np.nan, np.inf]])).tolist() == [np.inf]


def test_cached_json_keys_are_strings(tmp_path):
    # a0282: {0: 1} was written and read back as {'0': 1}
    from mfattn.companion.caches import load_cached_json, save_cached_json
    with pytest.raises(TypeError, match="obj must have string keys"):
        save_cached_json(Path(tmp_path) / "c.json", {0: 1}, key="k")
    path = save_cached_json(Path(tmp_path) / "c.json", {"0": 1}, key="k")
    assert load_cached_json(path, key="k") == {"0": 1}


def test_roots_are_folders_and_saved_numbers_are_finite(tmp_path):
    # b0010, b0209 (root=/dev/null read as "nothing stored"), b0006 (an infinite number saved as null)
    from mfattn.implicit import claims_deq_numbers as D
    from mfattn.structural.claims_designs import stored_numbers
    with pytest.raises(ValueError, match="root must be the project folder"):
        D.stored_cost_exponent(Path("/dev/null"))
    with pytest.raises(ValueError, match="root must be the project folder"):
        stored_numbers(Path("/dev/null"), "designs")
    assert D.stored_cost_exponent(tmp_path).startswith("not stored yet")
    with pytest.raises(ValueError, match=r"summary\['acc'\] must be finite"):
        D.save(tmp_path, "deq", {"acc": float("inf")})
    assert D.save(tmp_path, "deq", {"acc": float("nan")}).is_file()   # NaN: a missing number, stored as null
