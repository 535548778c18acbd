"""The sixth outside table's rows in chapter 6's computing modules: each refused at the boundary by one error naming
the parameter, or documented where the result is the one the docstring states."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from mfattn.dynamics import diagnostics, finite_n, rotation, tangent_space, verdict_numbers


def test_confusion_takes_periods_and_classes_as_whole_numbers():   # b0353
    with pytest.raises(ValueError, match="period must hold periods >= 0"):
        diagnostics.confusion(np.array([0, 1]), np.array([-4, 0]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="classes must hold whole numbers"):
        diagnostics.confusion(np.array([0.5, 1.0]), np.array([4, 0]), np.array([0.1, 0.2]))
    with pytest.raises(ValueError, match="lam contains NaN"):
        diagnostics.confusion(np.array([0, 1]), np.array([4, 0]), np.array([np.nan, 0.2]))
    got = diagnostics.confusion(np.array([0, 1, 2]), np.array([4, 0, 0]), np.array([-0.1, -0.2, 0.3]))
    assert got.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


@pytest.fixture(scope="module")
def network():
    return finite_n.simulate_network([1.0, 2.0], N=8, steps=20, transient=5)


@pytest.mark.parametrize("change, words", [
    (dict(weights=[]), "weights must map"),                                 # b0433
    (dict(N=0), "N must be an integer"), (dict(transient=20), "transient must be"),
    (dict(betas=np.array([1.0])), "betas must have shape"),
    (dict(m_o=np.zeros((2, 3, 3))), "m_o must hold the saved steps"),
    (dict(tokens=np.zeros((2, 4, 11))), "tokens must be"),
])
def test_a_network_result_built_by_hand_is_checked(network, change, words):
    with pytest.raises(ValueError, match=words):
        dataclasses.replace(network, **change)


def test_a_network_result_as_simulate_network_builds_it_passes(network):
    assert dataclasses.replace(network).m_o.shape == (2, 15, 3)


def test_a_nan_state_is_refused_by_the_tangent_flow():   # b0674
    flow = tangent_space.TangentFlow([1.0, 1.1], k=2)
    with pytest.raises(ValueError, match="x must be a finite state"):
        flow.set_state(np.full((2, flow.D), np.nan))


def test_plain_refuses_a_torch_tensor():   # b0721
    with pytest.raises(TypeError, match="obj must hold numpy arrays"):
        verdict_numbers.plain({"a": torch.tensor([1.0, 2.0])[:0]})
    assert verdict_numbers.plain({"a": np.float32(1), "b": [np.int64(2)]}) == {"a": 1.0, "b": [2]}


def test_the_documented_rows_are_documented():   # b0599, b0720 (rotation.cycle_fraction, memory_numbers)
    assert "not finite (no rotation was measured there) is not" in rotation.cycle_fraction.__doc__
    assert "is shortened to it" in verdict_numbers.memory_numbers.__doc__
