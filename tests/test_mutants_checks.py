"""Edges of :mod:`mfattn.companion.checks` that the other tests left free to change (found by sampled mutation
testing, issue 44 item 6): what each check returns, the value exactly at each bound, the words of its refusal,
and the memory budget read from /proc/meminfo (compared here with the file itself).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.companion import checks


@pytest.fixture(autouse=True)
def _no_budgets(monkeypatch):
    for name in ("MFATTN_MAX_BYTES", "MFATTN_MAX_WORK"):
        monkeypatch.delenv(name, raising=False)


def test_check_int_takes_both_bounds_and_names_what_it_wanted():
    assert checks.check_int("n", 5, 1, 5) == 5 and checks.check_int("n", 1, 1, 5) == 1
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 5\]; got 6"):
        checks.check_int("n", 6, 1, 5)
    with pytest.raises(ValueError, match="n must be a positive integer; got 0"):
        checks.check_int("n", 0, 1)
    with pytest.raises(ValueError, match="n must be an integer >= 2; got 1"):
        checks.check_int("n", 1, 2)


def test_check_real_refusals_name_the_bounds():
    with pytest.raises(ValueError, match=r"x must be >= 0 and <= 1; got 1\.5"):
        checks.check_real("x", 1.5, minimum=0.0, maximum=1.0)
    with pytest.raises(ValueError, match=r"x must be > 0; got 0\.0"):
        checks.check_real("x", 0.0, minimum=0.0, strict=True)
    with pytest.raises(ValueError, match=r"x must be <= 2; got 3\.0"):
        checks.check_real("x", 3.0, maximum=2.0)
    assert checks.check_real("x", -7.0, maximum=2.0) == -7.0


def test_check_probability_takes_one_and_zero_unless_open():
    assert checks.check_probability("p", 1.0) == 1.0 and checks.check_probability("p", 0.0) == 0.0
    assert checks.check_probability("p", 1.0, open_low=True) == 1.0
    with pytest.raises(ValueError, match="> 0"):
        checks.check_probability("p", 0.0, open_low=True)


def test_check_tensor_shape_and_real():
    t = torch.zeros(2, 3)
    assert checks.check_tensor("t", t, shape=(2, None), real=True) is t
    with pytest.raises(ValueError, match=r"t must have shape \(2, 4\); got \(2, 3\)"):
        checks.check_tensor("t", t, shape=(2, 4))
    with pytest.raises(ValueError, match=r"must have shape \(2, \*, 1\)"):
        checks.check_tensor("t", t, shape=(2, None, 1))
    with pytest.raises(TypeError, match="real floating-point"):
        checks.check_tensor("t", torch.zeros(2, dtype=torch.int64), real=True)
    assert checks.check_tensor("t", torch.zeros(2, dtype=torch.int64)).dtype == torch.int64


def test_check_rule_returns_the_value_it_checked():
    assert checks.check_rule("s", "abc", "str") == "abc"
    assert checks.check_rule("k", [1, 2], "ints:1") == [1, 2]
    with pytest.raises(TypeError, match="k must be a sequence of integers"):
        checks.check_rule("k", 3, "ints:1")
    with pytest.raises(ValueError, match="each entry of k must be a positive integer"):
        checks.check_rule("k", [1, 0], "ints:1")
    with pytest.raises(TypeError, match="s must be a string"):
        checks.check_rule("s", 3, "str")


def test_check_rule_tensor_rules():
    t = torch.zeros(2, 3, dtype=torch.int64)
    assert checks.check_rule("y", t, "inttensor") is t
    with pytest.raises(TypeError, match="must be an integer tensor"):
        checks.check_rule("y", torch.zeros(2), "inttensor")
    x = torch.zeros(2, 3)
    assert checks.check_rule("x", x, "tensor:>=2") is x
    with pytest.raises(ValueError, match=r"x must have shape with at least 3 dimensions; got shape \(2, 3\)"):
        checks.check_rule("x", x, "tensor:>=3")


def test_check_rule_reals_in_the_unit_interval():
    assert checks.check_rule("g", [0.0, 0.5, 1.0], "reals:[0,1]") == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="g must contain only values <= 1"):
        checks.check_rule("g", [0.5, 1.5], "reals:[0,1]")


def test_check_grid_without_a_minimum_takes_negatives():
    assert checks.check_grid("g", [-3.0, 0.0]).tolist() == [-3.0, 0.0]
    with pytest.raises(ValueError, match="g must contain only values > 0"):
        checks.check_grid("g", [0.0, 1.0], minimum=0.0, strict=True)


def _mem_available():
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                kib = int(line.split()[1])
                assert line.split()[2] == "kB"
                return kib * 1024
    pytest.skip("no MemAvailable in /proc/meminfo")


def test_the_memory_budget_is_mem_available_in_bytes():
    before = _mem_available()
    got = checks._available_bytes()
    after = _mem_available()
    # memory moves while we read: within 64 MiB of the two readings taken around it
    assert min(before, after) - 2**26 <= got <= max(before, after) + 2**26
    budget = checks.max_bytes()
    assert budget is not None and 0 < budget <= max(before, after) + 2**26


def test_check_alloc_returns_the_bytes_and_says_them_in_human_units(monkeypatch):
    assert checks.check_alloc("n", 1000) == 1000
    assert checks.check_alloc("n", 1000.0) == 1000
    monkeypatch.setenv("MFATTN_MAX_BYTES", str(3 * 1024**2))
    with pytest.raises(ValueError, match=r"need 5,242,880 bytes \(5\.0 MiB\), more than the 3\.0 MiB available"):
        checks.check_alloc("n", 5 * 1024**2)


def test_check_work_takes_fractional_units_and_its_budget_exactly():
    assert checks.check_work("n", 0.5) == 0.5
    assert checks.check_work("n", 100, budget=100) == 100.0
    with pytest.raises(ValueError, match="more than the budget of 100"):
        checks.check_work("n", 101, budget=100)


def test_a_declared_function_has_its_work_checked(monkeypatch):
    from mfattn.dynamics import engine

    monkeypatch.setenv("MFATTN_MAX_WORK", "10")
    with pytest.raises(ValueError, match="MFATTN_MAX_WORK"):
        engine.simulate(np.array([1.0, 2.0]), steps=1000)
