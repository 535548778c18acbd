"""Trained runs as data (issue 41, item 11): a finished run written to an .npz of numbers and strings and read
back into the training cache, bit-equal, hash-checked, refused when changed or trained by other code."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from mfattn.companion import caches, store
from mfattn.implicit import trained
from mfattn.implicit.runs import finished_result
from mfattn.implicit.train import TrainConfig, train_mnist

from conftest import find_data_dir, needs_data

MNIST = find_data_dir("mnist")
CONFIG = TrainConfig(epochs=1, seed=2, train_limit=300, test_limit=60, steps_per_epoch=6, snapshot_every=3,
                     eval_every=3, weights_every=3, checkpoint_every=3)


@pytest.fixture()
def stored(tmp_path, monkeypatch):
    """A tiny finished run exported to ``tmp_path/runs`` with its index; the original cache folder removed."""
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    torch.set_num_threads(1)
    original = train_mnist(CONFIG, data_root=MNIST, progress=False)
    weights = {s: original.load_model_at(s).state_dict() for s in original.weight_steps()}
    folder = tmp_path / "runs"
    folder.mkdir()
    entry = trained.export_run(original, folder / "blog-seed2.npz")
    store.atomic_write_json(folder / "index.json", {"runs": {"blog-seed2": entry}, "missing": []})
    history, final = original.history, original.load_model().state_dict()
    shutil.rmtree(original.folder)
    assert finished_result(CONFIG) is None
    return folder, history, final, weights


@needs_data("mnist")
def test_a_stored_run_comes_back_bit_equal_and_the_chapter_finds_it(stored):
    folder, history, final, weights = stored
    back = trained.restore(folder)["blog-seed2"]
    assert back.summary["restored_from"] == "data/full/deq/runs"
    again = train_mnist(CONFIG, data_root=MNIST)                    # a cache hit: nothing trained
    assert again.folder == back.folder
    assert all(torch.equal(final[k], again.load_model().state_dict()[k]) for k in final)
    assert again.weight_steps() == sorted(weights) == [0, 3, 5]          # 300 digits: 5 batches of 60
    for step, state in weights.items():
        assert all(torch.equal(state[k], again.load_model_at(step).state_dict()[k]) for k in state)
    assert set(again.history) == set(history)
    for key, value in history.items():
        np.testing.assert_array_equal(again.history[key], value, err_msg=key)
    arrays = store.load_npz(folder / "blog-seed2.npz")               # numbers and strings only: no pickle
    assert all(a.dtype.kind in "fiub" or a.dtype.kind == "U" for a in arrays.values())
    assert json.loads(str(arrays["summary"]))["config"] == CONFIG.to_dict()


@needs_data("mnist")
def test_a_changed_file_is_refused_by_name(stored):
    folder = stored[0]
    with open(folder / "blog-seed2.npz", "r+b") as fh:
        fh.seek(100)
        byte = fh.read(1)
        fh.seek(100)
        fh.write(bytes([byte[0] ^ 1]))
    with pytest.raises(ValueError, match=r"blog-seed2\.npz: its SHA-256 differs"):
        trained.restore(folder)


@needs_data("mnist")
def test_a_run_of_other_training_code_is_skipped_with_a_warning(stored):
    folder = stored[0]
    index = store.read_json(folder / "index.json")
    index["runs"]["blog-seed2"]["code"] = "0000000000000000"
    store.atomic_write_json(folder / "index.json", index)
    with pytest.warns(caches.CacheWarning, match="trained by other code"):
        assert trained.restore(folder) == {}
    assert finished_result(CONFIG) is None


def test_an_empty_or_absent_index_restores_nothing(tmp_path):
    assert trained.restore(tmp_path) == {}


@needs_data("mnist")
@pytest.mark.skipif(not (trained.runs_folder() / "blog-seed0.npz").is_file(), reason="the stored runs are not here")
def test_the_implicit_gradient_check_re_runs_from_the_stored_weights(tmp_path, monkeypatch):
    """Issue 41, item 11: deq-implicit-gradient re-runs from the stored full-profile weights (seed 0's blog model,
    restored from data/full/deq/runs without training). On 16 test digits (the full profile's check takes 100) the
    implicit gradient agrees with central finite differences far inside the claim's round-off line (1e-4), with every
    forward solve at its tolerance; and where the chapter's full run stored its own check, it is this one's order."""
    from mfattn.companion.profiles import get_profile
    from mfattn.implicit import claims, mnist, stability
    from mfattn.implicit.train import profile_config

    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    torch.set_num_threads(1)
    folder = tmp_path / "runs"
    folder.mkdir()
    index = store.read_json(trained.runs_folder() / "index.json")
    shutil.copy2(trained.runs_folder() / "blog-seed0.npz", folder)
    if (trained.runs_folder() / "lineage.json").is_file():      # the replay that links its code to today's
        shutil.copy2(trained.runs_folder() / "lineage.json", folder)
    store.atomic_write_json(folder / "index.json", {"runs": {"blog-seed0": index["runs"]["blog-seed0"]}, "missing": []})
    back = trained.restore(folder)["blog-seed0"]
    assert back.config == profile_config(get_profile("deq", "full"), 0)
    images, labels = mnist.load_mnist("test", root=MNIST, limit=16).tensors()
    check = stability.gradient_check(back.load_model(), images, labels, directions=2)
    assert check["converged"] and check["rel_error"] < 1e-6
    stored = claims.full_numbers(store.project_root(), "deq")
    if "analysis_seeds" in stored:          # the chapter's own check, on the same weights (100 digits, 4 directions)
        assert stored["grad_rel_error"] < 1e-6
