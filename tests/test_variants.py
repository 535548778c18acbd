"""The variant table's rows (mfattn.implicit.variants) from known training histories."""

import json
import math

import numpy as np
import pytest

from mfattn.implicit.train import VARIANTS, TrainConfig, TrainResult
from mfattn.implicit.variants import binomial_se, compare_to_blog, export_variants, markdown_table, variant_rows


def fake_result(accuracy, losses, converged, backward=12.5, seconds=3.0):
    history = {"loss": np.asarray(losses, dtype=np.float64),
               "forward_converged": np.asarray(converged, dtype=np.float64)}
    summary = {"test_accuracy": accuracy, "test_examples": 1000, "steps": len(losses),
               "mean_forward_iterations": 20.0, "mean_backward_iterations": backward,
               "wall_time_s": seconds, "device": "cpu"}
    return TrainResult(TrainConfig(), history, summary, folder=None)


def test_rows_summarise_the_histories():
    losses = np.arange(10, 0, -1, dtype=np.float64)          # last fifth: 2 and 1
    rows = variant_rows({"blog model (correction on g)": fake_result(0.9, losses, [1, 0.5] * 5),
                         "phantom gradient instead of implicit": fake_result(0.8, losses, [1] * 10, backward=None)})
    blog, phantom = rows
    assert blog["key"] == "blog" and phantom["key"] == "phantom"
    assert blog["final_loss"] == 1.5 and blog["forward_converged"] == 0.75
    assert blog["ms_per_step"] == 300.0 and blog["steps"] == 10
    assert phantom["backward_iterations"] is None and blog["backward_iterations"] == 12.5
    json.dumps(rows)  # plain types only: the rows are stored as JSON


def test_binomial_standard_error():
    # Two accuracies of 99% on 10,000 digits: sqrt(2 * 0.99 * 0.01 / 1e4) = 0.0014071
    assert math.isclose(binomial_se(0.99, 10_000), 0.0014071247, rel_tol=1e-7)
    with pytest.raises(ValueError, match="accuracy"):
        binomial_se(1.5, 10)


def test_export_reads_the_cache_and_never_trains(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "variants.json"
    table = export_variants("full", out)
    assert table["rows"] == [] and table["missing"] == list(VARIANTS)
    assert json.loads(out.read_text())["missing"] == list(VARIANTS)


def test_comparison_with_the_blog_model_and_markdown():
    losses = np.ones(10)
    rows = variant_rows({"blog model (correction on g)": fake_result(0.99, losses, [1] * 10),
                         "correction on m": fake_result(0.988, losses, [1] * 10),
                         "plain iteration instead of Anderson": fake_result(0.14, losses, [0] * 10)})
    se, close, far = compare_to_blog(rows)
    assert math.isclose(se, math.sqrt(2 * 0.99 * 0.01 / 1000))   # 0.0044: 0.2 points is within 2 se
    assert close == ["correction on m"] and far == ["plain iteration instead of Anderson"]
    table = markdown_table(rows)
    assert table.count("\n") == 4 and "| 14.00% |" in table
    with pytest.raises(ValueError, match="blog model"):
        compare_to_blog(rows[1:])
