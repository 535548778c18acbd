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
