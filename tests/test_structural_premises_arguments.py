"""Chapter 5's premise numbers (mfattn.structural.analysis_premises) refuse a wrong argument at once, naming it
(found by the generated contract tests, issue 44 item 5). Before: a NaN recency bias or first_window = 0 returned a
share silently, a dim the runs lack raised a bare KeyError, seeds [-1] was refused as "seed", and a run that is not
a dict failed with AttributeError."""

from __future__ import annotations

import math

import pytest

from mfattn.structural.analysis_premises import code_counts, merge_runs, task_premise, window_adaptation
from mfattn.structural.expanding_train import train_expanding
from mfattn.structural.multihop import MultihopTask


@pytest.fixture(scope="module")
def run():
    return train_expanding(ps=(0.5, 0.2), d=2, n=6, seeds=(0, 1), steps=4, record_every=1, cache=False)


def test_window_adaptation_checks_runs_dims_ps_and_windows(run):
    out = window_adaptation({2: run}, [2], [0.5, 0.2], first_window=3, n=6)
    assert set(out) == {"near_rho_runs", "near_lift_runs"} and all(-1 <= x <= 1 for x in out["near_lift_runs"])
    with pytest.raises(ValueError, match=r"ps"):
        window_adaptation({2: run}, [2], [math.nan])
    with pytest.raises(ValueError, match=r"^first_window must be a positive integer"):
        window_adaptation({2: run}, [2], [0.5], first_window=0)
    with pytest.raises(ValueError, match=r"^runs holds no run at d = \[10\]"):
        window_adaptation({2: run}, [10], [0.5])


def test_code_counts_merge_runs_and_task_premise_name_their_arguments(run):
    assert set(code_counts({2: run}, {}, [0.5], n=6)) == {"code_ops_2_2_seeds"}
    with pytest.raises(TypeError, match=r"^references must map each d"):
        code_counts({2: run}, {50: "x"}, [0.5])
    with pytest.raises(TypeError, match=r"^code_runs must be a mapping"):
        code_counts(None, {}, [0.5])
    merged = merge_runs(run, run)
    assert merged["loss/expanding"].shape[0] == 2 * run["loss/expanding"].shape[0]
    with pytest.raises(TypeError, match=r"^extra must be a mapping"):
        merge_runs(run, None)
    shares = task_premise(MultihopTask(d=2, n=5), [0])
    assert shares["premise_nmse_x0x1_seeds"][0] < 1e-9    # reading both x0 and x1 explains y (the paper's task)
    with pytest.raises(ValueError, match=r"^each entry of seeds must be an integer >= 0"):
        task_premise(MultihopTask(d=2, n=5), [-1])
    with pytest.raises(TypeError, match=r"^task must be a MultihopTask"):
        task_premise(None, [0])
