"""Chapters 4-5's inner steps (the training loops' forward passes, batches and optimiser step, the cached Hopfield
grid) refuse a wrong argument at once, naming it (found by the generated contract tests, issue 44 item 5); each
block below goes with the boundary check of one module."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


# --- windowed.operations_as_run: before, reach "x" failed inside numpy ("could not convert string to float")
def test_operations_as_run_names_reach_and_iterations():
    from mfattn.structural.windowed import operations_as_run

    assert operations_as_run(np.array([3, 60]), np.array([1, 2]), 50, 10).tolist() == [0.062, 1.004]
    with pytest.raises(TypeError, match=r"^reach must be an array of numbers"):
        operations_as_run("x", [1], 50, 10)
    with pytest.raises(ValueError, match=r"^iterations contains NaN"):
        operations_as_run([3], [math.nan], 50, 10)


# --- optim.adam_update: before, lr = NaN, 0 or -1 (and eps, weight_decay likewise) stepped silently (NaN weights
# or a step uphill), and state = None failed with AttributeError
def test_adam_update_checks_its_rates_and_lists():
    from mfattn.structural.optim import AdamState, adam_update

    p = [torch.tensor([1.0, -2.0], dtype=torch.float64)]
    g = [torch.tensor([0.5, -0.5], dtype=torch.float64)]
    state = AdamState.zeros_like(p)
    adam_update(p, g, state, lr=0.1)
    assert state.step == 1 and torch.allclose(p[0], torch.tensor([0.9, -1.9], dtype=torch.float64))
    for bad in (math.nan, 0.0, -1.0, math.inf):
        with pytest.raises(ValueError, match=r"^lr must"):
            adam_update(p, g, state, lr=bad)
    with pytest.raises(ValueError, match=r"^weight_decay must be >= 0"):
        adam_update(p, g, state, lr=0.1, weight_decay=-1.0)
    with pytest.raises(TypeError, match=r"^state must be an AdamState"):
        adam_update(p, g, None, lr=0.1)
    with pytest.raises(TypeError, match=r"^grads must be a list of tensors"):
        adam_update(p, "x", state, lr=0.1)
    assert state.step == 1   # nothing stepped
