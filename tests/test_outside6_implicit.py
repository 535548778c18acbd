"""Rows of the sixth outside table (outside6b) in chapter 2's machinery outside the claims modules (mfattn.implicit:
ensemble, figures, meanfield, init_scale, runs, seed_numbers, stability, train), each refused at the boundary with
one message naming the parameter (before: a result for input to refuse, or an error from deep inside the stdlib);
with valid controls that still work, among them two calls that were refused (a numpy seed and factor), which must
give the configuration, and the cache key, of the same plain numbers."""

from __future__ import annotations

import pathlib
import types

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from mfattn.companion import profiles  # noqa: E402
from mfattn.implicit import ensemble, init_scale, replay, runs, seed_numbers, stability, trained  # noqa: E402
from mfattn.implicit import figures as ifig  # noqa: E402
from mfattn.implicit import meanfield as imf  # noqa: E402
from mfattn.implicit import train as itrain  # noqa: E402
from test_outside5_implicit import CONFIG, _history  # noqa: E402  (a run's history and a small run's config)
from test_outside5_implicit import _finished as _finished5  # noqa: E402


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MFATTN_OFFLINE", "1")


QUICK = profiles.get_profile("deq", "quick")
#: What variant_rows (init_rows) reads of a finished run's summary, beside the helper's config and accuracy.
SUMMARY = {"test_examples": 4, "steps": 4, "mean_forward_iterations": 20.0, "mean_backward_iterations": 12.0,
           "wall_time_s": 1.0}


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _finished(folder: pathlib.Path) -> runs.TrainResult:
    """A run folder as train_mnist leaves it (no training: an untrained model's weights, kept at step 0)."""
    res = _finished5(folder)
    return runs.TrainResult(res.config, res.history, {**res.summary, **SUMMARY}, res.folder)


def _images():
    return torch.randn(2, 1, 28, 28, generator=_gen(3))


def _update(lin_response):
    x = torch.randn(2, 4, 6, generator=_gen(5))
    layer = imf.MeanFieldAttention(4, 6, generator=_gen(1))
    return layer.update(torch.zeros_like(x), x, None, lin_response=lin_response)


ROWS = [
    ("b0397", ValueError, r"^seeds: members 0 and 1 would be the same model \(seed 0",
     lambda t: ensemble.EnsembleMNIST([0, 0], dim=4, channels=4)),
    ("b0397-options", ValueError, r"^seeds: members 0 and 2 would be the same model",
     lambda t: ensemble.EnsembleMNIST([3, 1, 3], dim=2, channels=2, attention=[{}, {}, {"correction": "g"}])),
    ("b0473", ValueError, r"^settle must hold relative distances \(>= 0\); got -0\.1",
     lambda t: ifig.settling(np.arange(4) * 50, np.array([1.0, 0.5, 0.0, -0.1]).astype(np.float32))),
    ("b0485", TypeError, r"^lin_response must be True or False; got str_ np.str_\('no'\)", lambda t: _update(np.str_("no"))),
    ("b0485-list", TypeError, r"^lin_response must be True or False", lambda t: _update([False])),
    ("b0490", ValueError, r"^results' keys must be \(factor, seed\) pairs",
     lambda t: init_scale.init_rows(types.MappingProxyType({1.0: _finished(t / "run")}))),
    ("b0490-factor", ValueError, r"^results' factor must be > 0",
     lambda t: init_scale.init_rows({(-1.0, 0): _finished(t / "run")})),
    ("b0490-seed", ValueError, r"^results' seed must be an integer >= 0",
     lambda t: init_scale.init_rows({(1.0, 0.5): _finished(t / "run")})),
    ("b0490-value", TypeError, r"^results\[\(1\.0, 0\)\] must be a TrainResult", lambda t: init_scale.init_rows({(1.0, 0): {}})),
    ("b0490-type", TypeError, r"^results must be a mapping", lambda t: init_scale.init_rows([(1.0, 0)])),
    ("b0609", ValueError, r"^history has unknown log\(s\) \['step'\]",
     lambda t: runs.TrainResult(CONFIG, {"loss": np.ones(3), "step": np.arange(5)}, {}, None)),
    ("b0609-lengths", ValueError, r"^history's logs \['loss', 'batch_accuracy'\] must be arrays of one length",
     lambda t: runs.TrainResult(CONFIG, {"loss": np.ones(3), "batch_accuracy": np.ones(5)}, {}, None)),
    ("b0609-snapshots", ValueError, r"^history's logs \['snapshot_step', 'coupling_norms'\] must be arrays",
     lambda t: runs.TrainResult(CONFIG, {"snapshot_step": np.arange(2), "coupling_norms": np.ones((3, 2, 2))}, {},
                                None)),
    ("b0609-scalar", ValueError, r"^history's logs \['test_labels'\] must be arrays",
     lambda t: runs.TrainResult(CONFIG, {"test_labels": 3}, {}, None)),
    ("b0611", TypeError, r"^device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got bytes",
     lambda t: _finished(t / "run").load_model(device=b"meta")),
    ("b0611-at", TypeError, r"^device must be", lambda t: _finished(t / "run").load_model_at(0, device=b"cpu")),
    ("b0611-value", ValueError, r"^device must be", lambda t: _finished(t / "run").load_model(device="tpu:x")),
    ("b0618", ValueError, r"^sizes lacks the key\(s\) \['stability_digits'",
     lambda t: seed_numbers.analyse(_finished(t / "run"), _images(), torch.tensor([1, 2]),
                                    types.MappingProxyType({}))),
    ("b0618-type", TypeError, r"^sizes must be a mapping",
     lambda t: seed_numbers.analyse(_finished(t / "run"), _images(), torch.tensor([1, 2]), "quick")),
    ("b0658", TypeError, r"^resolvent must be True or False; got list",
     lambda t: stability.spectral_radius_over_training(_finished(t / "run"), _images(), steps=[0], iters=4,
                                                        resolvent=["yes"])),
]


@pytest.mark.parametrize("row, exc, pattern, call", ROWS, ids=[r[0] for r in ROWS])
def test_refused_naming_the_parameter(row, exc, pattern, call, tmp_path):
    with pytest.raises(exc, match=pattern):
        call(tmp_path)
    plt.close("all")


def test_numpy_numbers_give_the_plain_configuration_and_cache_key():
    # b0489: a numpy seed and factor, refused before, are the run of the same plain numbers
    plain = init_scale.init_config(QUICK, 0, 2.0)
    numpy = init_scale.init_config(QUICK, np.int64(0), np.float32(2.0))
    assert numpy == plain and numpy.to_dict() == plain.to_dict() and type(numpy.seed) is int
    assert repr(numpy.to_dict()) == repr(plain.to_dict())                     # the same types, not only values
    assert runs.run_dir(numpy) == runs.run_dir(plain)
    # b0505: profile_config with a numpy seed
    plain = itrain.profile_config(QUICK, 1, variant=True, correction="m")
    numpy = itrain.profile_config(QUICK, np.int64(1), variant=True, correction="m")
    assert numpy == plain and repr(numpy.to_dict()) == repr(plain.to_dict()) and type(numpy.seed) is int
    assert runs.run_dir(numpy) == runs.run_dir(plain)
    # TrainConfig itself: numpy integers and a numpy lr read as the Python numbers of their values
    cfg = runs.TrainConfig(epochs=np.int32(2), seed=np.uint8(3), lr=np.float32(0.5), eval_every=np.int64(7))
    assert repr(cfg.to_dict()) == repr(runs.TrainConfig(epochs=2, seed=3, lr=0.5, eval_every=7).to_dict())
    with pytest.raises(ValueError, match="^seed must be a non-negative integer"):
        runs.TrainConfig(seed=np.int64(-1))
    with pytest.raises(ValueError, match="^lr must be a positive finite number"):
        runs.TrainConfig(lr=np.float32("nan"))


def test_valid_controls_still_work(tmp_path):
    # b0397: a seed repeated with another correction is a valid ensemble (two different members)
    ens = ensemble.EnsembleMNIST([3, 3], dim=2, channels=2, attention=[{}, {"correction": "m"}])
    assert ens.seeds == [3, 3] and len(ens.members) == 2
    # b0473: distances >= 0 (the last one 0) draw as before
    assert isinstance(ifig.settling(np.arange(4) * 50, np.array([1.0, 0.5, 0.1, 0.0])), plt.Figure)
    plt.close("all")
    # b0485: True/False/None (numpy's bool too) give the steps they gave
    assert torch.equal(_update(np.bool_(False)), _update(False))
    assert torch.equal(_update(True), _update(None)) and not torch.equal(_update(True), _update(False))
    res = _finished(tmp_path / "run")
    # b0609: a finished run's history (every log) and partial ones of consistent lengths
    assert runs.TrainResult(CONFIG, _history(), {}, None).history["loss"].shape == (4,)
    assert runs.TrainResult(CONFIG, {"loss": [1.0, 2.0], "forward_converged": np.ones(2)}, {}, None)
    # b0611: a device torch reads
    assert next(res.load_model(device="cpu").parameters()).device.type == "cpu"
    assert next(res.load_model_at(0, device=torch.device("cpu")).parameters()).device.type == "cpu"
    # b0658: resolvent as a bool (numpy's too)
    out = stability.spectral_radius_over_training(res, _images(), steps=[0], iters=4, resolvent=np.bool_(True))
    assert out["resolvent"].shape == (1, 2) and out["step"].tolist() == [0]
    # b0490: init_rows of (factor, seed) keys, numpy numbers among them
    rows = init_scale.init_rows({(1.0, 0): res, (np.float64(10.0), np.int64(1)): res})
    assert [r["key"] for r in rows] == ["init_x1", "init_x10"] and rows[1]["seed"] == 1


def test_documented_behaviour(tmp_path):
    # b0681 (documented): a folder without index.json holds no stored runs: nothing restored
    (tmp_path / "empty_runs").mkdir()
    assert trained.restore(pathlib.PurePosixPath(str(tmp_path / "empty_runs"))) == {}
    # b0589 (documented): a replay of another length is a difference (not identical, inf), never a link
    old = {f"a/{k}": np.zeros(3) for k in replay.LOG_KEYS}
    new = {f"a/{k}": np.zeros(4) for k in replay.LOG_KEYS}
    got = replay.compare_logs(old, new, ["a"])["a"]
    assert not got["identical"] and got["max_abs_difference"] == float("inf") and got["steps"] == 4
