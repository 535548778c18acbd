"""Chapters 4-5's figures (mfattn.structural.figures) refuse a wrong argument at once, naming it (found by the
generated contract tests, issue 44 item 5). Before: a study dict None failed with "'NoneType' object is not
subscriptable", a NaN in gap_long or a recency bias was drawn silently, spread = -1 or trial = 2.5 failed inside
matplotlib or numpy, and a dim the runs lack raised a bare KeyError."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from mfattn.structural import figures, hopfield, slots  # noqa: E402
from mfattn.structural.expanding_train import train_expanding  # noqa: E402


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def test_hopfield_and_slots_figures_check_their_inputs():
    grid = hopfield.retrieval_grid(dim=4, pattern_counts=[2, 3], betas=[0.5, 1.0], trials=2, steps=2, seed=0)
    gap, _ = hopfield.relaxation(4, 2, 2, [1.0, 2.0], 3, generator=_g(), converged_steps=3)
    fig = figures.hopfield(grid, 4, gap, [1.0, 2.0], 2)
    assert len(fig.axes) == 3
    plt.close(fig)
    bad = gap.copy()
    bad[0, 0, 0] = math.nan
    with pytest.raises(ValueError, match=r"^gap_long contains NaN"):
        figures.hopfield(grid, 4, bad, [1.0, 2.0], 2)
    with pytest.raises(TypeError, match=r"^grid must be a mapping"):
        figures.hopfield(None, 4, gap, [1.0, 2.0], 2)
    study = slots.width_study(points=6, clusters=2, trials=3, spread=0.5, sigmas=[1.0, 0.5], iters=2, example_sigma=1.0,
                              data_generator=_g(), init_generator=_g(1))
    plt.close(figures.slots(study, [1.0, 0.5], 0.5, 2, trial=2))
    with pytest.raises(ValueError, match=r"^trial must be an integer in \[0, 2\]"):
        figures.slots(study, [1.0, 0.5], 0.5, 2, trial=3)
    with pytest.raises(ValueError, match=r"^spread must be >= 0"):
        figures.slots(study, [1.0, 0.5], -1.0, 2)


def test_expanding_figures_check_runs_dims_and_ps():
    from mfattn.structural.analysis import operations, window_coverage

    runs = {2: train_expanding(ps=(0.5, 0.2), d=2, n=6, seeds=(0,), steps=4, record_every=1, cache=False)}
    rel = operations(runs, [2], [0.5, 0.2])[0]
    plt.close(figures.expanding_operations(runs, [2], [0.5, 0.2], rel))
    with pytest.raises(ValueError, match=r"^runs holds no run for \[3\]"):
        figures.expanding_operations(runs, [3], [0.5], rel)
    cov = window_coverage(runs, [2], [0.5, 0.2], first_window=3, n=6)
    with pytest.raises(ValueError, match=r"ps"):
        figures.expanding_window(cov, [2], [0.5, math.nan])
    with pytest.raises(ValueError, match=r"^coverage lacks the key\(s\) \['curves'\]"):
        figures.expanding_window({}, [2], [0.5])
    with pytest.raises(TypeError, match=r"^role_labels must be a list of strings"):
        figures.multihop_ablation({"a": {"var_y": np.ones(2)}}, None)
