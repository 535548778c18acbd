"""Rows of the fourth outside table (outside4b) in chapter 2's machinery (mfattn.implicit: meanfield, train, runs,
evaluation, trained, mnist, seed_numbers, variants, reference_solver), each refused at the boundary with one message
naming the parameter (before: a result for input to refuse, or an error from deep inside torch/numpy/the stdlib);
with a valid control per function."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from mfattn.companion import profiles
from mfattn.deq import SolverDivergedError
from mfattn.implicit import evaluation, mnist, reference_solver, replay, runs, seed_numbers, trained, variants
from mfattn.implicit import meanfield as imf
from mfattn.implicit import train as itrain


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))


def _file(tmp_path):
    path = tmp_path / "a_file"
    path.write_text("not a folder")
    return path


# (row, exception, message start, call(tmp_path))
ROWS = [
    ("n0392", ValueError, r"^weight must have shape \(N, N, d, d\)",
     lambda t: imf.symmetrise_couplings(torch.randn(4, 3, 3, 3), "both")),
    ("n0393", ValueError, r"^weight must have shape \(N, N, d, d\)",
     lambda t: imf.symmetrise_couplings(torch.randn(4, 4, 3, 2), "internal")),
    ("n0389", ValueError, r"^input must have the net's dim \(6\) as its last dimension; got shape \(2, 5\)",
     lambda t: imf.FeedForward(6)(torch.randn(2, 5))),
    ("n0389-type", TypeError, r"^input must be a torch.Tensor", lambda t: imf.FeedForward(6)([1.0] * 6)),
    ("n0623", ValueError, r"^model must have parameters to optimise",
     lambda t: itrain.make_optimizer(torch.nn.Module(), 1e-3)),
    ("n0626", ValueError, r"^sizes lacks \['steps_per_epoch'", lambda t: itrain.profile_config({}, 0)),
    ("n0626-type", TypeError, r"^sizes must be a profile's sizes", lambda t: itrain.profile_config("quick", 0)),
    ("n0629", TypeError, r"^variant must be True or False; got str 'yes'",
     lambda t: itrain.profile_config(profiles.get_profile("deq", "quick"), 0, variant="yes")),
    ("n0643", ValueError, r"^d has unknown field\(s\) \['bogus'\]", lambda t: runs.TrainConfig.from_dict({"bogus": 1})),
    ("n0644", TypeError, r"^d must be a mapping of TrainConfig fields", lambda t: runs.TrainConfig.from_dict("x")),
    ("n0646", ValueError, r"^device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got 'tpu'",
     lambda t: runs.run_dir(runs.TrainConfig(), device="tpu")),
    ("n0646-type", TypeError, r"^device must be", lambda t: runs.run_dir(runs.TrainConfig(), device=3.5)),
    ("n0647", TypeError, r"^config must be a TrainConfig; got str", lambda t: runs.run_dir("x")),
    ("n0648", ValueError, r"^folder must be a run's folder \(a directory\); .*a_file is a regular file",
     lambda t: runs.finished_result(runs.TrainConfig(), folder=_file(t))),
    ("n0648-progress", ValueError, r"^folder must be a run's folder \(a directory\); .*a_file is a regular file",
     lambda t: runs.run_progress(runs.TrainConfig(), folder=_file(t))),
    ("n0650", ValueError, r"^folder must be a run's folder \(a directory\); /dev/null is not a directory",
     lambda t: runs.run_progress(runs.TrainConfig(), folder="/dev/null")),
    ("n0650-finished", ValueError, r"^folder must be a run's folder \(a directory\); /dev/null is not a directory",
     lambda t: runs.finished_result(runs.TrainConfig(), folder="/dev/null")),
    ("n0729", ValueError, r"^norms must hold at least one snapshot",
     lambda t: evaluation.settling_curve(np.ones((0, 4, 4)))),
    ("n0651", TypeError, r"^root must be a path", lambda t: trained.runs_folder(3)),
    ("n0652", ValueError, r"^root must be a project folder \(a directory\); .*a_file is a regular file",
     lambda t: trained.runs_folder(_file(t))),
    ("n0656", ValueError, r"^device must be 'cpu', 'cuda', 'cuda:N' or a torch.device; got 'tpu'",
     lambda t: trained.restore(folder=t, device="tpu")),
    ("n0600", ValueError, r"^root must be a folder for the MNIST files; .*a_file is a regular file",
     lambda t: mnist.mnist_dir(_file(t))),
    ("n0587", TypeError, r"^name must be a string",
     lambda t: mnist.parse_idx(bytes([0, 0, 8, 1, 0, 0, 0, 1, 5]), name=3)),
    ("n0681", ValueError, r"^key must name an entry of numbers \('a' or 'a_seeds'\)",
     lambda t: seed_numbers.seeds_text({}, "a")),
    ("n0684", ValueError, r"^fmt must format one number .*'\{:d\}' fails on 0.5",
     lambda t: seed_numbers.seeds_text({"a": 0.5}, "a", fmt="{:d}")),
    ("n0536", ValueError, r"^rows\[0\] lacks \['key', 'variant', 'test_accuracy'\]",
     lambda t: variants.compare_to_blog([{"x": 1}])),
    ("n0536-blog", ValueError, r"^rows\[1\] \(the blog model\) lacks \['test_examples'\]",
     lambda t: variants.compare_to_blog([{"key": "m", "variant": "m", "test_accuracy": 0.5},
                                         {"key": "blog", "variant": "b", "test_accuracy": 0.9}])),
    ("n0749", SolverDivergedError, r"^f returned NaN or inf at every iterate of 2 of 2 sample\(s\)",
     lambda t: reference_solver.reference_anderson(lambda z: z * float("nan"), torch.zeros(2, 4))),
    ("n0749-one", SolverDivergedError,
     r"^f returned NaN or inf at every iterate of 1 of 3 sample\(s\) \(the first: sample 1\)",
     lambda t: reference_solver.reference_anderson(
         lambda z: torch.where(torch.arange(3)[:, None] == 1, float("nan"), 0.5 * z + 1), torch.zeros(3, 4), m=2)),
    ("n0751", ValueError, r"^f must return a tensor of the state's shape \(2, 4\); got shape \(2, 2\)",
     lambda t: reference_solver.reference_anderson(lambda z: z[:, :2], torch.zeros(2, 4))),
    ("n0751-broadcast", ValueError, r"^f must return a tensor of the state's shape \(2, 4\); got shape \(2, 1\)",
     lambda t: reference_solver.reference_anderson(lambda z: z[:, :1], torch.zeros(2, 4))),
]


@pytest.mark.parametrize("row, exc, match, call", ROWS, ids=[r[0] for r in ROWS])
def test_row_is_refused_naming_the_parameter(row, exc, match, call, tmp_path):
    with pytest.raises(exc, match=match):
        call(tmp_path)


def test_meanfield_valid_calls():
    w = torch.randn(3, 3, 2, 2, dtype=torch.float64)
    J = imf.symmetrise_couplings(w, "both")
    assert J.shape == (3, 3, 2, 2) and torch.equal(J, J.transpose(0, 1)) and not J[0, 0].any()
    ff = imf.FeedForward(6)
    x = torch.randn(2, 3, 6)
    assert torch.equal(ff(x), torch.nn.Sequential.forward(ff, x))        # the check changes nothing
    layer = imf.MeanFieldAttention(4, 3, interaction="mixer").double()    # the solver loop's unchecked call
    m = torch.randn(2, 4, 3, dtype=torch.float64)
    assert torch.equal(layer.sum_over_couplings(m, None), layer.sites(m.transpose(1, 2)).transpose(1, 2))
    assert layer(torch.randn(2, 4, 3, dtype=torch.float64)).shape == (2, 4, 3)


def test_train_valid_calls():
    assert isinstance(itrain.make_optimizer(torch.nn.Linear(2, 2), 1e-3), torch.optim.Adam)
    quick = profiles.get_profile("deq", "quick")
    assert itrain.profile_config(quick, 0, variant=np.bool_(True)) == itrain.profile_config(quick, 0, variant=True)
    assert itrain.profile_config(dict(quick), 1).seed == 1


def test_runs_valid_calls(tmp_path):
    cfg = runs.TrainConfig(epochs=1)
    assert runs.TrainConfig.from_dict(cfg.to_dict()) == cfg
    assert runs.run_dir(cfg) == runs.run_dir(cfg, torch.device("cpu")) != runs.run_dir(cfg, "cuda")  # no CUDA needed
    assert runs.finished_result(cfg, folder=tmp_path / "absent") is None
    assert runs.finished_result(cfg, folder=tmp_path) is None and runs.run_progress(cfg, folder=tmp_path) is None


def test_evaluation_trained_mnist_valid_calls(tmp_path):
    assert evaluation.settling_curve(np.ones((1, 2, 2))).tolist() == [0.0]
    assert trained.runs_folder(tmp_path) == tmp_path / "data" / "full" / "deq" / "runs"
    assert trained.runs_folder(tmp_path / "absent").parts[-5:] == ("absent", "data", "full", "deq", "runs")
    assert trained.restore(folder=tmp_path, device="cpu") == {}
    assert mnist.mnist_dir(tmp_path) == (tmp_path.resolve(), "argument")
    assert mnist.parse_idx(bytes([0, 0, 8, 1, 0, 0, 0, 1, 5]), name="x.idx").tolist() == [5]


def test_seed_numbers_and_variants_valid_calls():
    assert seed_numbers.seeds_text({"a_seeds": [0.5, None, float("nan")]}, "a") == "0.50, n/a, n/a"
    assert seed_numbers.seeds_text({"a": None}, "a") == "n/a"              # a stored non-finite value
    assert seed_numbers.seeds_text({"a": 0.25}, "a", "{:.1f}%", 100) == "25.0%"
    se, close, far = variants.compare_to_blog([{"key": "blog", "variant": "b", "test_accuracy": 0.99,
                                                "test_examples": 1000},
                                               {"key": "m", "variant": "m", "test_accuracy": 0.5}])
    assert se > 0 and close == [] and far == ["m"]


def test_lineage_text_of_an_empty_index_says_so(tmp_path):
    """An empty index is a valid index (export_finished writes one when no run is finished): not refused."""
    (tmp_path / "index.json").write_text(json.dumps({"runs": {}}))
    assert replay.lineage_text(tmp_path) == "no run is stored"


def test_reference_anderson_valid_calls():
    x, res = reference_solver.reference_anderson(lambda z: 0.5 * torch.tanh(z) + 1.0,
                                                 torch.zeros(2, 3, dtype=torch.float64), tol=1e-10)
    assert res[-1] < 1e-10 and torch.allclose(x, 0.5 * torch.tanh(x) + 1.0)
    calls = []

    def late_nan(z):          # finite at first: a NaN later ends the solve (not converged), as before
        calls.append(1)
        return 0.5 * torch.tanh(z) + 1.0 if len(calls) <= 3 else z * float("nan")

    _, res = reference_solver.reference_anderson(late_nan, torch.zeros(2, 3), tol=1e-300)
    assert len(res) == 2 and np.isfinite(res[0]) and not np.isfinite(res[-1])


def test_solve_docstring_says_an_everywhere_nan_map_raises():
    from mfattn import deq

    doc = " ".join(deq.solve.__doc__.split())
    assert ('A map that is NaN or inf at every iterate of a sample raises :class:`SolverDivergedError` unless '
            '``on_fail="ignore"``') in doc
