"""Chapters 4-5's inner steps (the training loops' forward passes, batches and optimiser step, the cached Hopfield
grid) refuse a wrong argument at once, naming it (found by the generated contract tests, issue 44 item 5); each
block below goes with the boundary check of one module."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


# --- windowed.operations_as_run: before, reach "x" failed inside numpy ("could not convert string to float")
def test_operations_as_run_names_reach_and_iterations():
    from mfattn.structural.windowed import operations_as_run

    assert operations_as_run(np.array([3, 60]), np.array([1, 2]), 50, 10).tolist() == [0.062, 1.004]
    with pytest.raises(TypeError, match=r"^reach must be an array of numbers"):
        operations_as_run("x", [1], 50, 10)
    with pytest.raises(ValueError, match=r"^iterations contains NaN"):
        operations_as_run([3], [math.nan], 50, 10)


# --- optim.adam_update: before, lr = NaN, 0 or -1 (and eps, weight_decay likewise) stepped silently (NaN weights
# or a step uphill), and state = None failed with AttributeError
def test_adam_update_checks_its_rates_and_lists():
    from mfattn.structural.optim import AdamState, adam_update

    p = [torch.tensor([1.0, -2.0], dtype=torch.float64)]
    g = [torch.tensor([0.5, -0.5], dtype=torch.float64)]
    state = AdamState.zeros_like(p)
    adam_update(p, g, state, lr=0.1)
    assert state.step == 1 and torch.allclose(p[0], torch.tensor([0.9, -1.9], dtype=torch.float64))
    for bad in (math.nan, 0.0, -1.0, math.inf):
        with pytest.raises(ValueError, match=r"^lr must"):
            adam_update(p, g, state, lr=bad)
    with pytest.raises(ValueError, match=r"^weight_decay must be >= 0"):
        adam_update(p, g, state, lr=0.1, weight_decay=-1.0)
    with pytest.raises(TypeError, match=r"^state must be an AdamState"):
        adam_update(p, g, None, lr=0.1)
    with pytest.raises(TypeError, match=r"^grads must be a list of tensors"):
        adam_update(p, "x", state, lr=0.1)
    assert state.step == 1   # nothing stepped


# --- multihop: before, task/weights None failed with AttributeError, batch_size 10**12 asked the allocator for
# terabytes, a NaN X gave a NaN prediction, params None "'NoneType' object is not subscriptable", and an unknown
# reference file was refused as "file" (not the parameter's name)
def test_multihop_batches_forward_and_reference_name_their_arguments():
    from mfattn.structural.multihop import (MultihopTask, forward, init_params, make_task_weights, reference_path,
                                            sample_multihop_batch, sample_multihop_batches)

    task = MultihopTask(d=2, n=5)
    w = make_task_weights(task, _g())
    X, y, roles = sample_multihop_batch(task, w, 3, _g(1), shuffle="none")
    assert X.shape == (3, 5, 2) and y.shape == (3, 1) and roles[0].tolist() == [0, 0, 1, 2, 3]
    with pytest.raises(TypeError, match=r"^task must be a MultihopTask"):
        sample_multihop_batch(None, w, 3, _g(1), shuffle="none")
    with pytest.raises(TypeError, match=r"^weights must hold TaskWeights"):
        sample_multihop_batches(task, "x", 3, [_g(1)], shuffle="none")
    with pytest.raises(TypeError, match=r"^generators must be a list of torch.Generator"):
        sample_multihop_batches(task, [w], 3, None, shuffle="none")
    with pytest.raises(ValueError, match=r"^batch_size makes the batches need"):
        sample_multihop_batches(task, [w], 10**12, [_g(1)], shuffle="none")
    params = init_params("one_layer", 2, _g(2))
    assert forward("one_layer", params, X[None]).shape == (1, 3)
    bad = X[None].clone()
    bad[0, 0, 0, 0] = math.nan
    with pytest.raises(ValueError, match=r"^X contains NaN"):
        forward("one_layer", params, bad)
    with pytest.raises(TypeError, match=r"^params must be the list of weight tensors"):
        forward("one_layer", None, X[None])
    with pytest.raises(ValueError, match=r"^hops must be a positive integer"):
        forward("multihop", init_params("multihop", 2, _g(2)), X[None], hops=0)
    with pytest.raises(ValueError, match=r"^name must be one of 'multiple_training.json'"):
        reference_path("no-such-file.json")


# --- expanding_core.expanding_elbo: before, NaN scores/attention/alpha gave a NaN ELBO silently and an attention of
# another shape failed inside torch (RuntimeError)
def test_expanding_elbo_checks_its_tensors():
    from mfattn.structural.expanding_core import expanding_elbo

    s = torch.randn(2, 6, generator=_g(), dtype=torch.float64)
    a = torch.nn.functional.pad(torch.softmax(s[:, :-1], -1), (0, 1))   # zero on the query (t = 0): q(t), t >= 1
    al, be = torch.tensor([1.1, 1.2], dtype=torch.float64), torch.tensor([1.5, 2.0], dtype=torch.float64)
    assert torch.isfinite(expanding_elbo(s, a, al, be, 0.1, 0.9)).all()
    bad = s.clone()
    bad[0, 0] = math.nan
    with pytest.raises(ValueError, match=r"^scores contains NaN"):
        expanding_elbo(bad, a, al, be, 0.1, 0.9)
    with pytest.raises(ValueError, match=r"^attention must have the shape of scores"):
        expanding_elbo(s, a[:, :3], al, be, 0.1, 0.9)
    with pytest.raises(ValueError, match=r"^every entry of alpha must be > 0"):
        expanding_elbo(s, a, -al, be, 0.1, 0.9)
    with pytest.raises(ValueError, match=r"^beta must be a number or one per row"):
        expanding_elbo(s, a, al, be[None], 0.1, 0.9)


# --- expanding_task: before, a NaN W or X gave NaN predictions silently (standard_forward) or was refused under
# expanding_attention's names (scores, values), an integer X failed inside torch, and sample_expanding_batch's
# batch_size 10**12 reached the allocator
def test_expanding_forwards_and_batch_name_their_arguments():
    from mfattn.structural.expanding_task import (ExpandingTask, expanding_forward, make_expanding_weights,
                                                  sample_expanding_batch, standard_forward)

    tasks, weights = [ExpandingTask(d=2, n=6, p=0.5)], [make_expanding_weights(2, _g())]
    X, y, dist = sample_expanding_batch(tasks, weights, 3, _g(1))
    assert X.shape == (1, 3, 6, 2) and y.shape == (1, 3) and ((dist >= 2) & (dist <= 5)).all()
    W = torch.randn(1, 5, 2, generator=_g(2))
    assert expanding_forward(W, X, 0.1, 0.9).shape == (1, 3) and standard_forward(W, X).shape == (1, 3)
    bad = X.clone()
    bad[0, 0, 0, 0] = math.inf
    for fn in (standard_forward, lambda W, X: expanding_forward(W, X, 0.1, 0.9)):
        with pytest.raises(ValueError, match=r"^X contains NaN or infinite"):
            fn(W, bad)
        with pytest.raises(TypeError, match=r"^X must be a real floating-point tensor"):
            fn(W, X.long())
        with pytest.raises(ValueError, match=r"^W must be \(R, 2d\+1, d\)"):
            fn(W[:, :, :1], X)
    with pytest.raises(ValueError, match=r"^alpha0 must be > 0"):
        expanding_forward(W, X, -0.1, 0.9)
    with pytest.raises(TypeError, match=r"^tasks must be a non-empty list of ExpandingTask"):
        sample_expanding_batch(None, weights, 3, _g(1))
    with pytest.raises(TypeError, match=r"^weights must be one \(W_y, W_r\) pair"):
        sample_expanding_batch(tasks, "x", 3, _g(1))
    with pytest.raises(TypeError, match=r"^generator must be a torch.Generator or one per task"):
        sample_expanding_batch(tasks, weights, 3, 3)
    with pytest.raises(ValueError, match=r"^batch_size makes the batch need"):
        sample_expanding_batch(tasks, weights, 10**12, _g(1))


# --- expanding_train.train_expanding_variants: before, variants None failed with AttributeError and ps = () with a
# RuntimeError from torch.stack
def test_train_expanding_variants_checks_variants_and_ps():
    from mfattn.structural.expanding_train import train_expanding_variants

    runs = train_expanding_variants({"a": {}}, ps=(0.5,), d=2, n=5, steps=2, record_every=1, cache=False)
    assert list(runs) == ["a"] and runs["a"]["loss/expanding"].shape == (1, 2)
    with pytest.raises(TypeError, match=r"^variants must be a mapping"):
        train_expanding_variants(None, ps=(0.5,), d=2, n=5, steps=2, cache=False)
    with pytest.raises(ValueError, match=r"^ps must"):
        train_expanding_variants({"a": {}}, ps=(), d=2, n=5, steps=2, cache=False)
    with pytest.raises(ValueError, match=r"ps"):
        train_expanding_variants({"a": {}}, ps=(math.nan,), d=2, n=5, steps=2, cache=False)


# --- hopfield.cached_retrieval_grid: before, a NaN beta, dim or trials was refused by config_hash ("config:
# ['hop_betas'][0] is NaN"), not under the parameter's name
def test_cached_retrieval_grid_names_its_arguments(tmp_path, monkeypatch):
    from mfattn.structural.hopfield import cached_retrieval_grid

    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path))
    out = cached_retrieval_grid(4, [2], [1.0], 2, 2, seed=0)
    again = cached_retrieval_grid(4, [2], [1.0], 2, 2, seed=0)   # read back from the cache
    assert out["rate"].shape == (1, 1) and np.array_equal(out["rate"], again["rate"])
    with pytest.raises(ValueError, match=r"betas"):
        cached_retrieval_grid(4, [2], [math.nan], 2, 2, seed=0)
    with pytest.raises(ValueError, match=r"^dim must be a positive integer"):
        cached_retrieval_grid(0, [2], [1.0], 2, 2, seed=0)
    with pytest.raises(ValueError, match=r"^trials must be a positive integer"):
        cached_retrieval_grid(4, [2], [1.0], math.nan, 2, seed=0)
