"""The MNIST mean-field model and its training loop: sizes, determinism, resume, cache."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from mfattn.implicit.models import PatchEmbedding, build_model
from mfattn.implicit.train import (TrainConfig, TrainingInterrupted, confusion_matrix, epoch_order, evaluate,
                          run_progress, train_mnist)

from conftest import find_data_dir, needs_data

#: The MNIST folder the loader finds (``$MFATTN_DATA``, ``data/mnist``, ``../shared/data/mnist``), or None.
MNIST = find_data_dir("mnist")
needs_mnist = needs_data("mnist")

N, D, C = 17, 10, 32


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_parameter_count_is_the_blogs_26k():
    model = build_model(0)
    # Everything but the attention layer, counted by hand: two 3x3 convs, the token projection,
    # the cls token and the head.
    rest = (1 * C * 9 + C) + (C * C * 9 + C) + (C * D + D) + D + (D * 10 + 10)
    assert rest == 10018
    inner = model.attention.parameter_counts()
    counts = model.parameter_counts()
    assert counts == {"raw": rest + inner["raw"], "effective": rest + inner["effective"]}
    # Internal symmetry and zero self-coupling leave N(N-1) d(d+1)/2 independent couplings,
    # stored as N^2 d^2 numbers; the rest of the layer (the correction net) is counted in both.
    couplings_raw, couplings_eff = N * N * D * D, N * (N - 1) * D * (D + 1) // 2
    assert inner["raw"] - inner["effective"] == couplings_raw - couplings_eff
    assert counts["raw"] == sum(p.numel() for p in model.parameters())
    assert abs(counts["effective"] - 26_000) < 0.05 * 26_000  # the blog's "26k parameters"


def test_patch_tokens_are_row_major_and_local():
    emb = PatchEmbedding(D, C).double()
    with torch.no_grad():  # positive filters, so a bright pixel on black survives ReLU and max-pool
        for conv in (emb.features[0], emb.features[3]):
            conv.weight.abs_()
            conv.bias.zero_()
    x = torch.zeros(1, 1, 28, 28, dtype=torch.float64)
    base = emb(x)
    assert base.shape == (1, 16, D)
    # Conv 3x3 + pool 3/2 twice: pixel rows 0..24 reach the 4 token rows (the last 3 are cut off).
    for (r, c), token in (((0, 0), 0), ((24, 24), 15), ((0, 24), 3), ((24, 0), 12)):
        bumped = x.clone()
        bumped[0, 0, r, c] = 10.0
        changed = (emb(bumped) - base).abs().amax(-1)[0] > 0
        assert changed.nonzero().flatten().tolist() == [token], (r, c)
    bumped = x.clone()
    bumped[0, 0, 27, 27] = 10.0
    assert torch.equal(emb(bumped), base)  # the bottom-right corner is outside every token


def test_the_fast_embedding_reads_exactly_the_pixels_that_reach_a_token():
    # The fast path crops the image to _USED_PIXELS rows and columns; the plain layer stack (self.features)
    # is the oracle for which pixel rows can change a token: a bright pixel in each row of column 12 (positive
    # filters, so it survives ReLU and max-pool).
    from mfattn.implicit.models import _USED_PIXELS

    emb = PatchEmbedding(D, C).double()
    with torch.no_grad():
        for conv in (emb.features[0], emb.features[3]):
            conv.weight.abs_()
            conv.bias.zero_()
    x = torch.zeros(1, 1, 28, 28, dtype=torch.float64)
    base = emb.features(x)
    used = []
    for r in range(28):
        bumped = x.clone()
        bumped[0, 0, r, 12] = 10.0
        if not torch.equal(emb.features(bumped), base):
            used.append(r)
    assert used == list(range(_USED_PIXELS))


def test_fast_embedding_equals_the_plain_layer_stack():
    # forward() pools before the ReLU in channels-last layout, the first convolution an
    # im2col product; values and gradients must be those of the plain conv -> ReLU -> pool
    # stack (self.features), up to float64 round-off of a 9-term sum.
    emb = PatchEmbedding(D, C).double()
    x = torch.randn(7, 1, 28, 28, dtype=torch.float64)
    fast = emb(x)
    plain = emb.project(emb.features(x).flatten(2).transpose(1, 2))
    torch.testing.assert_close(fast, plain, rtol=1e-13, atol=1e-13)
    params = list(emb.parameters())
    g_fast = torch.autograd.grad(fast.square().sum(), params)
    g_plain = torch.autograd.grad(plain.square().sum(), params)
    for a, b in zip(g_fast, g_plain):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)


def test_first_conv_pool_stage_passes_gradcheck():
    # The hand-written backward of the first stage (pool gradient scattered in NCHW, then
    # the convolution's backward) against finite differences, input gradient included.
    from mfattn.implicit.models import _ConvPool3x3

    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 1, 9, 9, dtype=torch.float64, generator=gen).requires_grad_()
    w = torch.randn(3, 1, 3, 3, dtype=torch.float64, generator=gen).requires_grad_()
    b = torch.randn(3, dtype=torch.float64, generator=gen).requires_grad_()
    assert torch.autograd.gradcheck(_ConvPool3x3.apply, (x, w, b))
    ref = torch.nn.functional.max_pool2d(torch.nn.functional.conv2d(x, w, b), 3, stride=2)
    torch.testing.assert_close(_ConvPool3x3.apply(x, w, b), ref, rtol=1e-14, atol=1e-14)


def test_forward_shapes_and_bad_input():
    model = build_model(0)
    images = torch.randn(3, 1, 28, 28)
    assert model.sources(images).shape == (3, N, D)
    logits = model(images)
    assert logits.shape == (3, 10) and torch.isfinite(logits).all()
    logits.sum().backward()
    assert model.cls_token.grad is not None and model.cls_token.grad.abs().sum() > 0
    with pytest.raises(ValueError, match=r"images must have shape \(B, 1, 28, 28\)"):
        model(torch.randn(3, 28, 28))
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        build_model(-1)


def test_build_model_is_seeded_and_leaves_global_rng_alone():
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    a, b, c = build_model(5), build_model(5), build_model(6)
    assert torch.equal(torch.rand(3), before)
    for (name, pa), pb, pc in zip(a.state_dict().items(), b.state_dict().values(), c.state_dict().values()):
        assert torch.equal(pa, pb), name
    assert not torch.equal(a.cls_token, c.cls_token)


def test_epoch_order_and_confusion_matrix():
    p = epoch_order(100, seed=3, epoch=2)
    assert sorted(p.tolist()) == list(range(100))
    assert torch.equal(p, epoch_order(100, 3, 2)) and not torch.equal(p, epoch_order(100, 3, 1))
    labels, pred = np.array([0, 1, 2, 2, 9]), np.array([0, 2, 2, 2, 1])
    cm = confusion_matrix(labels, pred)
    assert cm.sum() == 5 and np.trace(cm) == 3 and cm[1, 2] == 1 and cm[9, 1] == 1


def test_config_validation():
    with pytest.raises(ValueError, match="batch_size must be a positive integer"):
        TrainConfig(batch_size=0)
    with pytest.raises(ValueError, match="train_limit must be a positive integer or None"):
        TrainConfig(train_limit=-5)
    with pytest.raises(ValueError, match=r"attention has unknown option\(s\) \['solvr'\]"):
        TrainConfig(attention={"solvr": "plain"})
    with pytest.raises(TypeError, match="config must be a TrainConfig"):
        train_mnist({"epochs": 1})


def tiny(**kw):
    base = dict(epochs=2, batch_size=20, train_limit=200, test_limit=100, snapshot_every=3,
                checkpoint_every=4, eval_every=5, attention={"max_iter": 15, "backward_max_iter": 15})
    base.update(kw)
    return TrainConfig(**base)


@needs_mnist
def test_resume_after_interruption_is_bit_identical(tmp_path):
    cfg = tiny()
    straight = train_mnist(cfg, data_root=MNIST, folder=tmp_path / "straight", progress=False)
    assert straight.summary["steps"] == 20
    # Crash mid-epoch 2 (step 17; the last checkpoint is step 16), then in epoch 1 (step 7,
    # after the step-4 checkpoint): each restart continues from the last checkpoint.
    folder = tmp_path / "interrupted"
    with pytest.raises(TrainingInterrupted):
        train_mnist(cfg, data_root=MNIST, folder=folder, progress=False, interrupt_after=7)
    assert not (folder / "result.json").exists()
    seen = []
    with pytest.raises(TrainingInterrupted):
        train_mnist(cfg, data_root=MNIST, folder=folder, progress=False, interrupt_after=17,
                    callback=lambda step, log: seen.append(step))
    assert seen[0] == 5  # resumed right after the step-4 checkpoint
    progress = run_progress(cfg, folder=folder)
    assert (progress["finished"], progress["epochs_done"], progress["steps_done"]) == (False, 1, 16)
    resumed = train_mnist(cfg, data_root=MNIST, folder=folder, progress=False)
    assert run_progress(cfg, folder=folder)["finished"] and run_progress(cfg, folder=tmp_path / "none") is None
    a = torch.load(straight.folder / "model.pt", weights_only=True)
    b = torch.load(resumed.folder / "model.pt", weights_only=True)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    for key in ("loss", "forward_iterations", "test_accuracy", "coupling_norms", "test_pred"):
        np.testing.assert_array_equal(straight.history[key], resumed.history[key], err_msg=key)
    assert straight.history["coupling_norms"].shape == (8, N, N)  # init, every 3rd step, the end
    assert straight.history["snapshot_step"].tolist() == [0, 3, 6, 9, 12, 15, 18, 20]
    # A checkpoint written for another configuration is refused, not silently mixed in.
    other = tiny(lr=1e-3)
    (folder / "result.json").unlink()
    with pytest.raises(ValueError, match="written for another configuration"):
        train_mnist(other, data_root=MNIST, folder=folder, progress=False)


@needs_mnist
def test_finished_run_is_loaded_from_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    cfg = tiny(epochs=1, train_limit=100)
    first = train_mnist(cfg, data_root=MNIST, progress=False)
    assert first.folder.parent.parent == tmp_path / "cache" / "deq"
    calls = []
    second = train_mnist(cfg, data_root=MNIST, progress=False, callback=lambda s, l: calls.append(s))
    assert calls == [] and second.folder == first.folder
    np.testing.assert_array_equal(first.history["loss"], second.history["loss"])
    # The stored weights reproduce the stored predictions.
    model = second.load_model()
    from mfattn.implicit.mnist import load_mnist
    x, y = load_mnist("test", MNIST, limit=100).tensors()
    np.testing.assert_array_equal(evaluate(model, x, y)["pred"], second.history["test_pred"])
    assert second.confusion().sum() == 100
    assert np.trace(second.confusion()) == round(second.test_accuracy * 100)
    # Another configuration, or the same one with changed solver/layer code, gets its own folder.
    import mfattn.implicit.runs as runs
    assert runs.run_dir(tiny(epochs=1, train_limit=100, lr=1e-3)) != first.folder
    monkeypatch.setattr(runs, "code_version", lambda: "changed")
    assert runs.run_dir(cfg) != first.folder


@needs_mnist
def test_short_training_with_todays_code_reaches_the_pinned_loss_and_accuracy(tmp_path):
    """A regression check that TRAINS with today's code: 100 Adam steps of the blog's model (seed 0, batch
    60, the first 6,000 training digits, one CPU thread; about 20 s) must reach the loss and accuracy this
    code reached when the test was written (2026-11-25), within tolerances that allow for rounding
    differences between machines, not for a change in what the code learns."""
    cfg = TrainConfig(epochs=1, batch_size=60, seed=0, train_limit=6000, test_limit=1000, steps_per_epoch=100,
                      snapshot_every=50)
    result = train_mnist(cfg, data_root=MNIST, folder=tmp_path, progress=False)
    h = result.history
    # Pinned: test accuracy 0.800 on the first 1,000 test digits, test loss 0.624, training loss 0.765 over
    # the last 20 steps, 11.7 forward and 10.6 adjoint Anderson iterations per step on average.
    assert abs(result.test_accuracy - 0.800) <= 0.02, result.test_accuracy           # +-20 digits
    assert abs(result.summary["test_loss"] - 0.624) <= 0.04, result.summary["test_loss"]
    assert abs(h["loss"][-20:].mean() - 0.765) <= 0.04, h["loss"][-20:].mean()
    assert abs(h["forward_iterations"].mean() - 11.7) <= 1.5, h["forward_iterations"].mean()
    assert abs(h["backward_iterations"].mean() - 10.6) <= 1.5, h["backward_iterations"].mean()
    # The solver budget is 40 forward and 40 backward iterations.
    assert 1 <= h["forward_iterations"].min() and h["forward_iterations"].max() <= 40
    assert 1 <= h["backward_iterations"].min() and h["backward_iterations"].max() <= 40
    norms = h["coupling_norms"]
    assert norms.shape == (3, N, N)                         # initialisation, step 50, step 100
    assert np.all(np.diagonal(norms, axis1=1, axis2=2) == 0)  # no self-coupling, ever
    assert np.abs(norms[-1] - norms[0]).max() > 0  # the couplings are trained


def test_settling_curve_and_profile_config():
    from mfattn.companion.profiles import get_profile
    from mfattn.implicit.train import VARIANTS, profile_config, settling_curve

    final = np.arange(9.0).reshape(3, 3)
    snaps = np.stack([3 * final, 2 * final, final])
    np.testing.assert_allclose(settling_curve(snaps), [2.0, 1.0, 0.0], rtol=1e-12)
    with pytest.raises(ValueError, match=r"norms must have shape \(S, N, N\)"):
        settling_curve(final)
    quick = get_profile("deq", "quick")
    cfg = profile_config(quick, 3, correction="m")
    assert (cfg.seed, cfg.batch_size, cfg.lr, cfg.attention) == (3, 60, 5e-4, {"correction": "m"})
    var = profile_config(quick, 0, variant=True)
    assert var.epochs == 1 and var.steps_per_epoch == quick["variant_steps"]
    full = profile_config(get_profile("deq", "full"), 0)
    # The blog's protocol: all of MNIST, 20 epochs of batch 60 with Adam at 5e-4.
    assert (full.epochs, full.train_limit, full.steps_per_epoch, full.batch_size, full.lr) == (20, None, None, 60, 5e-4)
    for options in VARIANTS.values():
        TrainConfig(attention=options)  # every variant is a valid configuration


def test_stored_full_protocol_reaches_the_blog_accuracy():
    """Chapter 2 quotes the stored full-protocol runs; the blog reports ~99.1% test accuracy."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "data" / "full" / "deq_mnist_progress.json"
    runs = json.loads(path.read_text())["runs"]
    finished = {name: r for name, r in runs.items() if r["epochs_done"] == r["epochs"] == 20}
    assert len(finished) >= 3, f"expected three finished 20-epoch seeds, got {sorted(finished)}"
    final = np.array([r["evals"]["test_accuracy"][-1] for r in finished.values()])
    assert np.all(final > 0.99), final
    assert final.mean() >= 0.991 - 2 * final.std(ddof=1), (final.mean(), final.std(ddof=1))


@needs_mnist  # train_mnist reads MNIST (where the loader finds it) before it meets the checkpoint
def test_a_planted_pickle_checkpoint_is_refused_not_run(tmp_path, monkeypatch):
    # A checkpoint that would run code when unpickled (the exploit of weights_only=False) is refused
    # with a clear error, and its payload never runs.
    import pickle

    from mfattn.implicit import train

    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path / "out"))
    monkeypatch.delenv("MFATTN_CACHE", raising=False)  # the cache follows it (conftest sets one)
    cfg = train.TrainConfig(epochs=1, train_limit=60, test_limit=60, steps_per_epoch=1)
    folder = train.run_dir(cfg)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "checkpoint.pt").write_bytes(pickle.dumps({"config": Payload()}))
    with pytest.raises(ValueError, match="refusing to load .*checkpoint.pt"):
        train.train_mnist(cfg)
    with pytest.raises(ValueError, match="refusing to load"):
        train.run_progress(cfg)
    assert not marker.exists()
