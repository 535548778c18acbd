"""The public-solver training control (``mfattn.implicit.public_trained``): the patched solve is the public solver, the
patch is undone, and a run trained under it is another run than the book's, in its own folder."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from mfattn import deq
from mfattn.implicit import public_trained as pt
from mfattn.implicit.reference_solver import reference_anderson
from mfattn.implicit.train import TrainConfig, train_mnist

from conftest import find_data_dir, needs_data

MNIST = find_data_dir("mnist")
needs_mnist = needs_data("mnist")


def _contraction(rho=0.8, B=3, D=6, seed=0):
    gen = torch.Generator().manual_seed(seed)
    A = torch.randn(D, D, generator=gen, dtype=torch.float64)
    A = rho * A / torch.linalg.eigvals(A).abs().max()
    b = torch.randn(B, D, generator=gen, dtype=torch.float64)
    return (lambda z: z @ A.T + b), b, A


def test_the_patched_solve_is_the_reference_solver():
    """Under the patch, deq.solve returns reference_anderson's point (converged: its last iterate is its lowest) with
    the batch's pooled residual and evaluation count for every sample."""
    f, b, A = _contraction()
    x0 = torch.zeros_like(b)
    direct, res = reference_anderson(f, x0, max_iter=40, tol=1e-5)
    with pt.public_anderson(), torch.no_grad():
        z, stats = deq.solve(f, x0, method="anderson", max_iter=40, tol=1e-5)
    assert res[-1] < 1e-5
    torch.testing.assert_close(z, direct, rtol=0, atol=0)
    assert stats.iterations.tolist() == [len(res) + 2] * 3             # two starting evaluations, then one a step
    assert stats.converged.all() and not stats.diverged.any()
    np.testing.assert_allclose(stats.residual.numpy(), res[-1])
    assert stats.trace.shape == (len(res) + 2, 3)
    np.testing.assert_allclose(stats.trace[2:, 0].numpy(), res)
    # with gradients on (a training forward) the point is f at that iterate, as the public code re-applies f
    with pt.public_anderson():
        z_grad, _ = deq.solve(f, x0, method="anderson", max_iter=40, tol=1e-5)
    torch.testing.assert_close(z_grad, f(direct))
    exact = torch.linalg.solve(torch.eye(6, dtype=torch.float64) - A, b.T).T
    torch.testing.assert_close(z, exact, atol=1e-3, rtol=0)   # the absolute ridge limits it


def test_an_unconverged_solve_returns_the_lowest_iterate_and_says_so():
    """Out of evaluations, the result is the iterate of lowest pooled residual (the public code's lowest_xest), not
    converged, with a ConvergenceWarning; other methods still run the book's solver."""
    f, b, _ = _contraction(rho=0.99, D=30, B=4, seed=1)
    x0 = torch.zeros_like(b)
    with pt.public_anderson(), torch.no_grad():
        with pytest.warns(deq.ConvergenceWarning):
            z, stats = deq.solve(f, x0, method="anderson", max_iter=5, tol=1e-12)
        plain, _ = deq.solve(f, x0, method="plain", max_iter=5, tol=1e-12, on_fail="ignore")
    assert not stats.converged.any() and stats.iterations.tolist() == [5] * 4
    trace = stats.trace[:, 0].numpy()
    assert stats.residual[0] == pytest.approx(trace[2:].min())
    book_plain, _ = pt._BOOK_SOLVE(f, x0, method="plain", max_iter=5, tol=1e-12, on_fail="ignore")
    torch.testing.assert_close(plain, book_plain, rtol=0, atol=0)
    with pt.public_anderson(), pytest.raises(ValueError, match="memory"):
        deq.solve(f, x0, method="anderson", memory=8)


def test_the_adjoint_solve_starts_from_zeros():
    """A solve labelled as deq_fixed_point's adjoint starts at zero (the public code's zeros_like(grad))."""
    seen = []
    f, b, _ = _contraction()

    def g(z):
        seen.append(z.clone())
        return f(z)

    with pt.public_anderson(), torch.no_grad():
        deq.solve(g, b.clone(), label="backward (adjoint) fixed-point")
        first_backward = seen[0]
        seen.clear()
        deq.solve(g, b.clone())
    assert first_backward.abs().max() == 0 and torch.equal(seen[0], b)


def test_the_patch_is_undone_on_exit_and_on_an_exception():
    book = deq.solve
    with pt.public_anderson():
        assert deq.solve is pt.public_solve
        with pytest.raises(RuntimeError, match="already active"):
            with pt.public_anderson():
                pass
        assert deq.solve is pt.public_solve
    assert deq.solve is book
    with pytest.raises(KeyError):
        with pt.public_anderson():
            raise KeyError("boom")
    assert deq.solve is book


def test_a_layer_uses_the_public_solver_forward_and_backward():
    """The DEQ layer's forward and adjoint solves both go through the patch (the stats it keeps are the public
    solver's: one residual for the batch)."""
    from mfattn.implicit.models import build_model
    model = build_model(0, dim=4, channels=4)
    images = torch.randn(5, 1, 28, 28, generator=torch.Generator().manual_seed(0))
    calls = []
    with pt.public_anderson(), warnings.catch_warnings():
        warnings.simplefilter("ignore", deq.ConvergenceWarning)
        original = deq.solve

        def counting(*a, **k):
            calls.append(k.get("label"))
            return original(*a, **k)

        deq.solve = counting
        try:
            model(images).sum().backward()
        finally:
            deq.solve = original
    assert [c.split()[0] for c in calls] == ["forward", "backward"]
    stats = model.attention.last_stats
    for s in (stats["forward"], stats["backward"]):
        assert len(set(s.residual.tolist())) == 1 and len(set(s.iterations.tolist())) == 1


def test_a_folder_inside_the_book_cache_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    from mfattn.companion import store
    cfg = TrainConfig(epochs=1, train_limit=60, test_limit=60, steps_per_epoch=1)
    with pytest.raises(ValueError, match="book's run cache"):
        pt.train_public(cfg, folder=store.cache_dir("deq", "mnist") / "x")
    assert pt.public_run_dir(cfg).parent.name == "mnist-public-anderson"
    assert pt.public_config(0, "quick", 40).weights_every == 40


@needs_mnist
def test_a_short_public_run_differs_from_the_book_run_and_leaves_its_cache_alone(tmp_path, monkeypatch):
    """Six steps of the blog model under the patch: another loss curve than the book's solver gives, the run in
    the public folder, nothing in the book's run cache, and the book's run afterwards unaffected by it."""
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MFATTN_DATA", str(MNIST))
    cfg = TrainConfig(epochs=1, batch_size=20, train_limit=120, test_limit=40, steps_per_epoch=6, snapshot_every=3,
                      weights_every=3, attention={"max_iter": 15, "backward_max_iter": 15})
    public = pt.train_public(cfg, progress=False)
    book_cache = tmp_path / "cache" / "deq" / "mnist"
    assert public.folder.parent == tmp_path / "cache" / "deq" / "mnist-public-anderson"
    assert not book_cache.exists() or not any(book_cache.iterdir())
    assert public.weight_steps() == [0, 3, 6]
    assert deq.solve is pt._BOOK_SOLVE
    book = train_mnist(cfg, progress=False)
    assert book.folder.parent == book_cache and book.folder != public.folder
    assert not np.array_equal(public.history["loss"], book.history["loss"])
    np.testing.assert_allclose(public.history["loss"][:1], book.history["loss"][:1], rtol=1e-3)  # same weights, batch
    assert set(np.unique(public.history["forward_converged"])) <= {0.0, 1.0}             # the batch stops together
    again = pt.train_public(cfg, progress=False)                                           # loaded, not retrained
    np.testing.assert_array_equal(again.history["loss"], public.history["loss"])
