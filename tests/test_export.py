"""The condensed stored run of Chapter 2's full protocol (mfattn.implicit.export)."""

import numpy as np
import pytest

from mfattn.implicit.export import KEYS, condensed_run, export_run
from mfattn.implicit.train import TrainConfig, TrainResult


def test_condensed_run_averages_the_step_logs_per_100_steps():
    steps = np.arange(250, dtype=np.float64)                  # two full blocks of 100, a partial one dropped
    history = {"loss": steps, "forward_iterations": 2 * steps, "backward_iterations": steps + 1,
               "snapshot_step": np.array([0, 250]), "coupling_norms": np.ones((2, 3, 3)),
               "eval_step": np.array([0.0, 250.0]), "test_accuracy": np.array([0.1, 0.9]),
               "test_loss": np.array([2.3, 0.3]), "test_labels": np.array([1, 2]), "test_pred": np.array([1, 3])}
    out = condensed_run(TrainResult(TrainConfig(), history, {}, folder=None))
    assert tuple(out) == KEYS
    np.testing.assert_array_equal(out["loss_per_100"], [49.5, 149.5])          # means of 0..99 and 100..199
    np.testing.assert_array_equal(out["forward_iterations_per_100"], [99.0, 299.0])
    np.testing.assert_array_equal(out["backward_iterations_per_100"], [50.5, 150.5])
    assert out["coupling_norms"].dtype == np.float32 and out["test_pred"].tolist() == [1, 3]


def test_export_reads_the_cache_and_never_trains(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    with pytest.raises(FileNotFoundError, match="not finished in .*cache"):
        export_run("full", 0, tmp_path / "run.npz")
    assert not (tmp_path / "run.npz").exists()
