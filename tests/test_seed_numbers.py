"""Chapter 2's analyses of one trained model (mfattn.implicit.seed_numbers), run for every seed: the numbers the
verdicts read, each equal to what the functions it calls give on their own, and the per-seed lists."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.implicit import seed_numbers, stability
from mfattn.implicit.mnist import load_mnist
from mfattn.implicit.train import TrainConfig, train_mnist

from conftest import find_data_dir, needs_data

MNIST = find_data_dir("mnist")
SIZES = {"stability_digits": 12, "budget_steps": [1, 3], "rho_training_digits": 8, "rho_training_every": 3,
         "correction_digits": 12}


@needs_data("mnist")
def test_one_seeds_numbers_are_its_functions_own_and_the_lists_keep_the_seeds_order(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    torch.set_num_threads(1)
    config = TrainConfig(epochs=1, seed=1, train_limit=1200, test_limit=60, steps_per_epoch=20, snapshot_every=5,
                         eval_every=5, weights_every=3)
    result = train_mnist(config, data_root=MNIST, progress=False)
    x, y = load_mnist("test", MNIST, limit=60).tensors()
    out = seed_numbers.analyse(result, x, y, SIZES)
    n = out["numbers"]
    assert set(seed_numbers.STABILITY_KEYS) <= set(n) and set(seed_numbers.TRAINING_KEYS) <= set(n)
    model = result.load_model().eval()
    with torch.no_grad():
        rho, _ = stability.fixed_point_spectral_radius(model.attention, model.sources(x[:12]))
    assert n["rho_blog_median"] == pytest.approx(float(np.nanmedian(rho)), rel=1e-12)
    assert n["stability_digits"] == 12 and n["acc_fixed"] == out["budget"]["fixed point"]
    assert list(out["over"]["step"]) == [0, 3, 6, 9, 12, 15, 18, 20]      # every 3rd kept step and the last
    assert np.isfinite(out["over"]["resolvent_median"]).all() and (out["over"]["resolvent_median"] > 0).all()
    assert np.isfinite(n["res_train_change_corr"]) and np.isfinite(n["rho_train_heldout_r2"])
    assert n["corr_reaction_cosine"] == out["correction"]["reaction_cosine"]
    lists = seed_numbers.per_seed([n, {**n, "acc_fixed": 0.5}])
    assert lists["acc_fixed_seeds"] == [n["acc_fixed"], 0.5] and len(lists["rho_train_first_seeds"]) == 2
