"""Chapter 2's runs prepared by ensembles (mfattn.implicit.prepare, ensemble_train.train_into_cache): each member
is stored where its solo run lives, bit-equal to that solo run, so the chapter reads it without training."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.implicit import prepare
from mfattn.implicit.ensemble_train import train_into_cache
from mfattn.implicit.runs import finished_result, run_dir
from mfattn.implicit.train import TrainConfig, train_mnist

from conftest import find_data_dir, needs_data

MNIST = find_data_dir("mnist")


@pytest.fixture(autouse=True)
def _one_thread_and_own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@needs_data("mnist")
def test_members_land_where_their_solo_runs_live_and_equal_them(tmp_path):
    configs = [TrainConfig(epochs=1, seed=s, train_limit=600, test_limit=100, steps_per_epoch=8, snapshot_every=4,
                           eval_every=4, weights_every=4, checkpoint_every=4) for s in (0, 3)]
    assert all(finished_result(c) is None for c in configs)
    results = train_into_cache(configs, data_root=MNIST)
    for config, result in zip(configs, results):
        assert result.folder == run_dir(config) and result.summary["ensemble"]["seeds"] == [0, 3]
        cached = train_mnist(config, data_root=MNIST)  # a cache hit: no training, the ensemble's member
        assert cached.folder == result.folder and cached.summary == result.summary
        solo = train_mnist(config, data_root=MNIST, folder=tmp_path / f"solo{config.seed}", use_cache=False,
                           progress=False)
        a, b = (torch.load(r.folder / "model.pt", weights_only=True) for r in (solo, cached))
        assert all(torch.equal(a[k], b[k]) for k in a)  # bit-equal (tests/test_ensemble.py says why)
        for key in ("loss", "forward_iterations", "coupling_norms", "test_pred"):
            np.testing.assert_array_equal(cached.history[key], solo.history[key], err_msg=key)
        assert cached.weight_steps() == solo.weight_steps() == [0, 4, 8]
    again = train_into_cache(configs, data_root=MNIST)  # finished: nothing trained, the same folders
    assert [r.folder for r in again] == [r.folder for r in results]


def test_the_job_table_trains_every_run_the_chapter_reads_once():
    from mfattn.companion.profiles import get_profile
    from mfattn.implicit import init_scale, variants
    from mfattn.implicit.train import profile_config

    sizes = get_profile("deq", "full")
    table = prepare.jobs(sizes)
    configs = [c for cs, _ in table.values() for c in cs]
    assert len(configs) == len({repr(c) for c in configs})          # no run twice
    wanted = [profile_config(sizes, s) for s in sizes["seeds"]]
    wanted += [init_scale.init_config(sizes, s, f) for f in init_scale.FACTORS for s in sizes["init_seeds"]]
    wanted += [profile_config(sizes, s, variant=True, **o) for s in sizes["variant_seeds"]
               for o in variants.ALL_VARIANTS.values() if o]
    assert sorted(map(repr, configs)) == sorted(map(repr, wanted))
    assert next(iter(table)) == "blog"                                # every analysis reads it: first


def test_an_unknown_job_is_refused_by_name(capsys):
    with pytest.raises(SystemExit):
        prepare.main(["--profile", "quick", "--only", "nonsense"])
    assert "--only: unknown job(s) ['nonsense']" in capsys.readouterr().err


def test_every_run_has_one_name_from_the_job_table():
    """Each run is named once, ``<job>-seed<s>``; a solo job (already ``<variant>-seed<s>``) keeps its name."""
    from mfattn.companion.profiles import get_profile

    sizes = get_profile("deq", "full")
    names = prepare.run_names(sizes)
    configs = [c for cs, _ in prepare.jobs(sizes).values() for c in cs]
    assert sorted(map(repr, names.values())) == sorted(map(repr, configs))
    assert {"blog-seed0", "init_x1-seed2", "plain-seed1", "softmax-seed0", "mixer-seed2"} <= set(names)
    assert not [n for n in names if n.count("-seed") != 1]
