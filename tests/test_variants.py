"""The variant table's rows (mfattn.implicit.variants) from known training histories."""

import json
import math

import numpy as np
import pytest

from mfattn.implicit.train import VARIANTS, TrainConfig, TrainResult
from mfattn.implicit.variants import (ALL_VARIANTS, binomial_se, compare_to_blog, export_variants, markdown_table,
                                     mcnemar, pack_correct, seed_summary, summary_table, unpack_correct, variant_rows)

from conftest import data_dir, needs_data


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
    assert table["rows"] == [] and table["missing"] == [f"{name} (seed 0)" for name in VARIANTS]
    assert json.loads(out.read_text())["missing"] == table["missing"]
    table = export_variants("full", None, seed=[0, 1, 2], interactions=True)
    assert len(table["missing"]) == 3 * len(ALL_VARIANTS) == 21 and table["seeds"] == [0, 1, 2]


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


def test_mcnemar_is_the_exact_binomial_test_on_the_discordant_digits():
    # 100 digits: 80 both right, 10 both wrong, A alone right on 2, B alone right on 8.
    a = np.array([1] * 80 + [0] * 10 + [1] * 2 + [0] * 8, dtype=bool)
    b = np.array([1] * 80 + [0] * 10 + [0] * 2 + [1] * 8, dtype=bool)
    # By hand: n = 10 discordant, P[X <= 2] = (1 + 10 + 45) / 1024, two-sided p = 112 / 1024.
    res = mcnemar(a, b)
    assert (res["b"], res["c"]) == (2, 8) and res["p"] == pytest.approx(112 / 1024, rel=1e-12)
    assert mcnemar(b, a)["p"] == res["p"]                                   # symmetric
    assert mcnemar(a, a)["p"] == 1.0                                         # no discordant digit
    # 0 against 6 discordant: p = 2 / 64; the concordant digits do not matter.
    assert mcnemar(np.zeros(6, bool), np.ones(6, bool))["p"] == pytest.approx(2 / 64)
    with pytest.raises(ValueError, match="correct_a and correct_b"):
        mcnemar(a, b[:-1])


def test_packed_correct_digits_round_trip():
    rng = np.random.default_rng(0)
    c = rng.random(10_001) < 0.99
    assert np.array_equal(unpack_correct(pack_correct(c), c.size), c)


def _row(key, seed, acc, correct, loss=0.1):
    return {"key": key, "variant": key, "seed": seed, "test_accuracy": acc, "test_examples": len(correct),
            "final_loss": loss, "forward_iterations": 20.0, "forward_converged": 1.0, "correct": pack_correct(correct)}


def test_seed_summary_pairs_each_variant_with_the_blog_model_of_its_seed():
    base = np.ones(100, bool)
    rows = []
    for seed, wrong in ((0, 8), (1, 6), (2, 7)):
        blog = base.copy()
        blog[:wrong] = False
        naive = blog.copy()
        naive[wrong:wrong + 5] = False                                       # 5 more errors, none fixed
        rows += [_row("blog", seed, blog.mean(), blog), _row("naive", seed, naive.mean(), naive, loss=0.2)]
    summary = {r["key"]: r for r in seed_summary(rows)}
    blog, naive = summary["blog"], summary["naive"]
    assert blog["n_seeds"] == naive["n_seeds"] == 3 and naive["seeds"] == [0, 1, 2]
    assert blog["acc_mean"] == pytest.approx(0.93) and blog["acc_std"] == pytest.approx(0.01)  # 0.92, 0.94, 0.93
    assert naive["delta"] == pytest.approx(-0.05) and naive["loss_mean"] == pytest.approx(0.2)
    assert naive["mcnemar_p"] == pytest.approx([2 / 32] * 3)                  # 5 vs 0 discordant, each seed
    assert blog["delta"] is None and blog["mcnemar_p"] == []
    table = summary_table(seed_summary(rows))
    assert "| naive | 3 | 88.00% ± 1.00 | -5.00 points | 0.062, 0.062, 0.062 | 0.2 |" in table
    # One seed: no spread is claimed.
    assert seed_summary(rows[:2])[0]["acc_std"] is None


@needs_data("mnist")
def test_interaction_variants_train_and_enter_the_table(tmp_path):
    """The softmax and MLP-mixer couplings (INTERACTION_VARIANTS) train through train_mnist: their layers are the
    requested interaction, their coupling norms are NaN (input-dependent or absent), their rows are complete."""
    from mfattn.implicit.train import train_mnist
    from mfattn.implicit.variants import INTERACTION_VARIANTS, KEYS

    results = {}
    for name, options in INTERACTION_VARIANTS.items():
        cfg = TrainConfig(epochs=1, steps_per_epoch=4, train_limit=600, test_limit=60, snapshot_every=2,
                          attention=options)
        results[name] = res = train_mnist(cfg, data_root=data_dir("mnist"), folder=tmp_path / KEYS[name], progress=False)
        assert res.load_model().attention.interaction == options["interaction"]
        assert np.isnan(res.history["coupling_norms"]).all() and res.history["coupling_norms"].shape == (3, 17, 17)
        assert np.isfinite(res.history["loss"]).all() and res.summary["mean_forward_iterations"] > 1
    rows = variant_rows(results)
    assert [r["key"] for r in rows] == ["softmax", "mixer"]
    assert all(0 <= r["test_accuracy"] <= 1 and r["correct"] is not None for r in rows)
