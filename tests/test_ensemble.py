"""Ensemble training (issue 46, item 1): S members of chapter 2's MNIST model trained as one batched model
must each equal their solo run: forward, gradient, solver statistics and, over training, the weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from mfattn.implicit.ensemble import EnsembleMNIST, member_statistics
from mfattn.implicit.ensemble_train import train_ensemble
from mfattn.implicit.models import build_model
from mfattn.implicit.mnist import load_mnist
from mfattn.implicit.train import TrainConfig, TrainingInterrupted, epoch_order, make_optimizer, train_mnist

from conftest import find_data_dir, needs_data

MNIST = find_data_dir("mnist")
needs_mnist = needs_data("mnist")


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _rel_gap(a: dict, b: dict) -> float:
    """Largest ``max|a − b| / max|a|`` over the tensors of two state dicts with the same keys."""
    assert a.keys() == b.keys()
    return max(float((a[k] - b[k]).abs().max() / a[k].abs().max().clamp_min(1e-30)) for k in a)


def _one_step(dtype, seeds, attention):
    """Logits and gradients of the ensemble and of each member's solo model on the same random digits."""
    gen = torch.Generator().manual_seed(7)
    S, B = len(seeds), 6
    images = torch.rand(S, B, 1, 28, 28, generator=gen, dtype=dtype)
    labels = torch.randint(0, 10, (S, B), generator=gen)
    ens = EnsembleMNIST(seeds, attention=attention, dtype=dtype)
    logits = ens(images)
    F.cross_entropy(logits.reshape(S * B, 10), labels.reshape(-1), reduction="none").view(S, B).mean(1).sum().backward()
    out = []
    for s, seed in enumerate(seeds):
        solo = build_model(seed, dtype=dtype, **attention[s])
        solo_logits = solo(images[s])
        F.cross_entropy(solo_logits, labels[s]).backward()
        grads = dict(solo.named_parameters())
        out.append({"logits": (solo_logits.detach(), logits[s].detach()),
                    "grads": ({k: p.grad for k, p in grads.items()},
                              {k: p.grad for k, p in ens.members[s].named_parameters()}),
                    "weights": (solo.state_dict(), ens.member_state_dict(s)),
                    "stats": (solo.attention.last_stats, ens.last_stats)})
    return out


@pytest.mark.parametrize("dtype, tol", [(torch.float64, 1e-10), (torch.float32, 1e-5)])
def test_forward_and_gradient_equal_each_members_solo_model(dtype, tol):
    """(a) Initial weights are those of build_model(seed, ...); logits, every parameter's gradient and the
    per-sample solver statistics (forward and adjoint) equal the solo model's. Members may differ in the
    correction's input ('g'/'m', mixed in one ensemble)."""
    seeds, attention = [0, 3, 3], [{}, {}, {"correction": "m"}]
    for s, member in enumerate(_one_step(dtype, seeds, attention)):
        solo_w, ens_w = member["weights"]
        assert solo_w.keys() == ens_w.keys() and all(torch.equal(solo_w[k], ens_w[k]) for k in solo_w), s
        torch.testing.assert_close(*member["logits"], rtol=tol, atol=tol)
        assert _rel_gap(*member["grads"]) < tol, (s, _rel_gap(*member["grads"]))
        solo_stats, ens_stats = member["stats"]
        for which in ("forward", "backward"):
            per = ens_stats[which].iterations.view(len(seeds), -1)[s]
            assert torch.equal(solo_stats[which].iterations, per), (s, which)
            summary = member_statistics(ens_stats[which], len(seeds))[s]
            assert summary["iterations"] == float(solo_stats[which].iterations.double().mean())


@pytest.mark.parametrize("attention", [[{"grad": "phantom"}] * 2, [{"lin_response": False}] * 2,
                                       [{"solver": "plain", "max_iter": 15}] * 2, [{"symmetry": "both"}] * 2,
                                       [{"weight_init_std": 0.1}, {}]],
                         ids=["phantom", "naive", "plain", "both", "init"])
@pytest.mark.filterwarnings("ignore::mfattn.deq.ConvergenceWarning")  # plain iteration stops short of tol
def test_variants_of_the_layer_equal_their_solo_models(attention):
    """(a) The chapter's variants of the layer (phantom gradient, no correction, plain iteration, another coupling
    symmetry, per-member initial coupling scale): logits and gradients as the solo models' (float64)."""
    for member in _one_step(torch.float64, [0, 2], attention):
        torch.testing.assert_close(*member["logits"], rtol=1e-10, atol=1e-10)
        assert _rel_gap(*member["grads"]) < 1e-10


def _solo_float64(config: TrainConfig, x: torch.Tensor, y: torch.Tensor):
    """The loop of :func:`train_mnist` (same batches, model, optimiser, loss) in float64, which ``train_mnist``
    does not offer: the reference for the float64 comparison. Returns the weights and the iteration logs."""
    model = build_model(config.seed, dtype=torch.float64, **config.attention)
    opt = make_optimizer(model, config.lr)
    steps = min(len(y) // config.batch_size, config.steps_per_epoch)
    fwd, bwd = [], []
    for epoch in range(config.epochs):
        order = epoch_order(len(y), config.seed, epoch)
        for t in range(steps):
            idx = order[t * config.batch_size:(t + 1) * config.batch_size]
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(x[idx].double()), y[idx]).backward()
            opt.step()
            stats = model.attention.last_stats
            fwd.append(float(stats["forward"].iterations.double().mean()))
            bwd.append(float(stats["backward"].iterations.double().mean()))
    return model.state_dict(), np.array(fwd), np.array(bwd)


def _configs(seeds, attention=None, **kw):
    base = dict(epochs=2, batch_size=20, train_limit=1000, test_limit=100, steps_per_epoch=50, snapshot_every=30)
    return [TrainConfig(seed=s, attention=(attention or [{}] * len(seeds))[i], **{**base, **kw})
            for i, s in enumerate(seeds)]


@needs_mnist
def test_training_gives_each_member_exactly_its_train_mnist_run(tmp_path):
    """(b) Against the solo training loop itself (``train_mnist``, float32): 60 Adam steps over two epochs
    (each member its own data order) of two members, one with the correction on g, one on m, with test
    evaluations and kept weights. The solver's iterations are batched, but a sample's iterates equal its solo
    ones and everything computed once per step runs with the solo code, so on this CPU every member's
    weights, logs and predictions are bit-equal to its solo run (measured outside this test: 0 difference for
    seeds 0-5 over 100 steps at batch 20, for seeds 0-2 over 233 steps at batch 60 in
    benchmarks/bench_ensemble.py, and for this test's members over 200 steps at batch 10). A looser
    tolerance would not make a weaker rounding agreement pass: one rounding difference can move a sample
    whose residual sits at the stopping tolerance by one solver iteration, which changes its fixed point by
    ~tol = 1e-4 and, amplified by training, the weights by up to ~1e-2 relative over 100 steps (measured
    while the weight gradients were still summed in batched products). The bound is 1e-6 relative."""
    configs = _configs([0, 4], [{}, {"correction": "m"}], steps_per_epoch=30, eval_every=20, weights_every=30)
    results = train_ensemble(configs, data_root=MNIST, folder=tmp_path / "ensemble", use_cache=False, progress=False)
    for config, result in zip(configs, results):
        solo = train_mnist(config, data_root=MNIST, folder=tmp_path / f"solo{config.seed}", use_cache=False,
                           progress=False)
        gap = _rel_gap(torch.load(solo.folder / "model.pt", weights_only=True),
                       torch.load(result.folder / "model.pt", weights_only=True))
        assert gap <= 1e-6, (config.seed, gap)
        assert set(result.history) == set(solo.history)
        for key in ("forward_iterations", "backward_iterations", "forward_converged", "batch_accuracy",
                    "snapshot_step", "eval_step", "eval_epoch", "test_pred", "test_labels"):
            np.testing.assert_array_equal(result.history[key], solo.history[key], err_msg=key)
        for key in ("loss", "forward_residual", "test_loss", "test_accuracy", "coupling_norms"):
            np.testing.assert_allclose(result.history[key], solo.history[key], rtol=1e-6, atol=0, err_msg=key)
        assert result.weight_steps() == solo.weight_steps() == [0, 30, 60]
        assert _rel_gap(result.load_model_at(30).state_dict(), solo.load_model_at(30).state_dict()) <= 1e-6
        for key in ("steps", "steps_per_epoch", "train_examples", "test_examples", "parameters_raw"):
            assert result.summary[key] == solo.summary[key], key


@needs_mnist
def test_training_in_float64_matches_the_solo_loop(tmp_path):
    """(b) The same in float64 (the solo loop of train_mnist, written out in float64): 25 steps of two members;
    weights to 1e-12 relative and identical iteration logs."""
    configs = _configs([0, 4], [{}, {"correction": "m"}], epochs=1, steps_per_epoch=25)
    results = train_ensemble(configs, data_root=MNIST, dtype=torch.float64, folder=tmp_path, use_cache=False,
                             progress=False)
    x, y = load_mnist("train", MNIST, limit=configs[0].train_limit).tensors()
    for config, result in zip(configs, results):
        weights, fwd, bwd = _solo_float64(config, x, y)
        gap = _rel_gap(weights, torch.load(result.folder / "model.pt", weights_only=True))
        assert gap <= 1e-12, (config.seed, gap)
        np.testing.assert_array_equal(result.history["forward_iterations"], fwd)
        np.testing.assert_array_equal(result.history["backward_iterations"], bwd)


@needs_mnist
def test_a_member_does_not_depend_on_its_batch_mates_and_resumes(tmp_path):
    """(c) Seed 1 trained in the ensemble [0, 1, 2] and in [1, 5] ends with the same weights (float64, 20 steps).
    An interrupted ensemble resumes from its checkpoint to the same weights; a finished one is loaded."""
    kw = dict(epochs=1, steps_per_epoch=20, checkpoint_every=10)
    a = train_ensemble(_configs([0, 1, 2], **kw), data_root=MNIST, dtype=torch.float64, folder=tmp_path / "a",
                       use_cache=False, progress=False)[1]
    with pytest.raises(TrainingInterrupted):
        train_ensemble(_configs([1, 5], **kw), data_root=MNIST, dtype=torch.float64, folder=tmp_path / "b",
                       progress=False, interrupt_after=15)
    seen = []
    b = train_ensemble(_configs([1, 5], **kw), data_root=MNIST, dtype=torch.float64, folder=tmp_path / "b",
                       progress=False, callback=lambda step, logs: seen.append(step))[0]
    assert seen[0] == 11 and len(seen) == 10  # resumed after the step-10 checkpoint
    gap = _rel_gap(torch.load(a.folder / "model.pt", weights_only=True),
                   torch.load(b.folder / "model.pt", weights_only=True))
    assert gap <= 1e-12, gap
    np.testing.assert_array_equal(a.history["forward_iterations"], b.history["forward_iterations"])
    np.testing.assert_array_equal(a.history["loss"], b.history["loss"])
    again = train_ensemble(_configs([1, 5], **kw), data_root=MNIST, dtype=torch.float64, folder=tmp_path / "b",
                           progress=False, callback=lambda *args: pytest.fail("trained again"))[0]
    np.testing.assert_array_equal(again.history["loss"], b.history["loss"])


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: EnsembleMNIST([]), ValueError, "seeds"),
    (lambda: EnsembleMNIST([0, -1]), ValueError, "seeds"),
    (lambda: EnsembleMNIST([0, 1.5]), (TypeError, ValueError), "seeds"),
    (lambda: EnsembleMNIST("01"), (TypeError, ValueError), "seeds"),
    (lambda: EnsembleMNIST([0], dim=0), ValueError, "dim"),
    (lambda: EnsembleMNIST([0, 1], attention=[{}]), ValueError, "attention must give one dict per member"),
    (lambda: EnsembleMNIST([0, 1], attention=[{}, {"tol": 1e-3}]), ValueError, "attention: members must share 'tol'"),
    (lambda: EnsembleMNIST([0], attention={"interaction": "softmax", "symmetry": None}), ValueError,
     "attention: the ensemble supports interaction='linear' only"),
    (lambda: EnsembleMNIST([0], attention="g"), TypeError, "attention must be"),
    (lambda: EnsembleMNIST([0, 1])(torch.zeros(3, 2, 1, 28, 28)), ValueError, r"images must have shape \(S=2"),
    (lambda: EnsembleMNIST([0])(torch.zeros(2, 1, 28, 28, dtype=torch.long)), TypeError, "images must be a floating"),
    (lambda: EnsembleMNIST([0]).member_model(1), ValueError, r"member must be an integer in \[0, 1\)"),
    (lambda: member_statistics("stats", 2), TypeError, "stats must be a SolverStats"),
    (lambda: member_statistics(_stats(6), 4), ValueError, "size must divide"),
    (lambda: member_statistics(_stats(6), 0), ValueError, "size"),
    (lambda: train_ensemble([]), TypeError, "configs must be a non-empty list"),
    (lambda: train_ensemble([TrainConfig(seed=0), "x"]), TypeError, r"configs\[1\] must be a TrainConfig"),
    (lambda: train_ensemble([TrainConfig(seed=0), TrainConfig(seed=1, lr=1e-3)]), ValueError,
     "configs: the members must share 'lr'"),
    (lambda: train_ensemble([TrainConfig()], dtype=torch.float16), ValueError, "dtype must be"),
    (lambda: train_ensemble([TrainConfig()], interrupt_after=0), ValueError, "interrupt_after"),
])
def test_bad_input_is_refused_with_the_parameters_name(call, error, pattern):
    """(d) One clear error naming the parameter."""
    with pytest.raises(error, match=pattern):
        call()


def _stats(batch: int):
    from mfattn.deq import solve

    return solve(lambda z: 0.5 * z, torch.ones(batch, 3))[1]
