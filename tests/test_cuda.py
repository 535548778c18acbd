"""The CUDA paths against the CPU ones: run with ``pytest -m cuda`` on a machine with a GPU (skipped without one).

Each test computes the same thing on the CPU and on the GPU from the same inputs and compares them with a tolerance
the arithmetic sets: float64 element-wise maps agree to rounding (1e-12 over short horizons, before chaos amplifies
a last-bit difference); float32 layers to float32 tolerance; a fixed point found to a solver tolerance ``tol`` agrees
to a few times ``tol``; finite differences (gradcheck) in float64 on the GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (pytest -m cuda on a GPU)")]

F64 = torch.float64


# --- Chapter 6: the mean-field map of the 1-bit transformer ---------------------------------------------------------
def test_dmft_torch_backend_on_cuda_matches_numpy_to_rounding():
    from mfattn.dynamics.engine import simulate

    betas = [0.5, 1.0, 1.266, 1.28, 3.0]
    a = simulate(betas, steps=60, transient=0, backend="numpy")
    b = simulate(betas, steps=60, transient=0, backend="torch", device="cuda")
    np.testing.assert_allclose(b.m_o, a.m_o, atol=1e-12)
    for key in a.context:
        np.testing.assert_allclose(b.context[key], a.context[key], atol=1e-12, err_msg=key)


def test_dmft_periodic_orbit_on_cuda_stays_on_the_cpu_orbit():
    # β = 3 and β = 1 settle on periodic orbits (paper Fig. 3): a last-bit difference decays there, so the two
    # devices stay together over a long run (not so for a chaotic β, where it grows like e^{λt}).
    from mfattn.dynamics.engine import simulate

    a = simulate([1.0, 3.0], steps=6000, transient=5900, backend="numpy")
    b = simulate([1.0, 3.0], steps=6000, transient=5900, backend="torch", device="cuda")
    np.testing.assert_allclose(b.m_o, a.m_o, atol=1e-10)


def test_dmft_lyapunov_on_cuda_matches_numpy():
    from mfattn.dynamics.engine import largest_lyapunov

    betas = [0.5, 1.0, 3.0]  # periodic or fixed: λ_max is a property of the orbit, not of the rounding
    a = largest_lyapunov(betas, steps=3000, transient=2000, backend="numpy")
    b = largest_lyapunov(betas, steps=3000, transient=2000, backend="torch", device="cuda")
    np.testing.assert_allclose(b, a, rtol=1e-8, atol=1e-10)


def test_dmft_cuda_trajectory_does_not_depend_on_its_batch():
    # The determinism rule: a β's result does not depend on what else is batched with it, on the GPU too. (It failed
    # there while the torch backend's products by the ±1 sign matrices went through cuBLAS, whose order of the terms
    # depends on the shape; they are ordered multiply-adds now.)
    from mfattn.dynamics.engine import simulate

    betas = np.linspace(1.2, 1.45, 257)
    batch = simulate(betas, steps=3000, transient=2900, backend="torch", device="cuda")
    for i in (0, 100, 256):
        single = simulate(betas[i:i + 1], steps=3000, transient=2900, backend="torch", device="cuda")
        assert np.array_equal(single.m_o[0], batch.m_o[i]), f"β = {betas[i]}: differs from its batched run"


# --- Chapter 2: the MNIST model (patch embedding, DEQ mean-field attention, head) -----------------------------------
def _images(n, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, 1, 28, 28, generator=g, dtype=dtype)


@pytest.mark.parametrize("dtype, tol", [(torch.float64, 1e-9), (torch.float32, 2e-4)])
def test_mnist_model_forward_and_backward_on_cuda_match_cpu(dtype, tol):
    # Tight solver tolerances: both devices then stop at the same fixed point up to rounding, so the comparison
    # measures the arithmetic, not where the solver happened to stop (1e-4 would allow ~1e-4 differences).
    from mfattn.implicit.models import build_model

    opts = dict(tol=1e-12 if dtype == F64 else 1e-6, backward_tol=1e-12 if dtype == F64 else 1e-6,
                max_iter=300, backward_max_iter=300)
    cpu = build_model(0, dtype=dtype, **opts)
    gpu = build_model(0, dtype=dtype, **opts).cuda()
    x, y = _images(24, 1, dtype), torch.arange(24) % 10
    out = {}
    for name, model in (("cpu", cpu), ("cuda", gpu)):
        dev = next(model.parameters()).device
        logits = model(x.to(dev))
        loss = torch.nn.functional.cross_entropy(logits, y.to(dev))
        grads = torch.autograd.grad(loss, list(model.parameters()))
        out[name] = (logits.detach().cpu(), [g.cpu() for g in grads])
    (lc, gc), (lg, gg) = out["cpu"], out["cuda"]
    assert torch.isfinite(lg).all()
    assert (lg - lc).norm() <= tol * lc.norm()
    names = [n for n, _ in cpu.named_parameters()]
    for n, a, b in zip(names, gc, gg):
        assert (b - a).norm() <= 10 * tol * a.norm() + 1e-30, f"gradient of {n}: CUDA differs from CPU"


def test_first_conv_pool_stage_passes_gradcheck_on_cuda():
    from mfattn.implicit.models import _ConvPool3x3

    gen = torch.Generator().manual_seed(3)
    x, w, b = (torch.randn(*s, dtype=F64, generator=gen).cuda().requires_grad_()
               for s in ((2, 1, 9, 9), (3, 1, 3, 3), (3,)))
    assert torch.autograd.gradcheck(_ConvPool3x3.apply, (x, w, b))
    ref = torch.nn.functional.max_pool2d(torch.nn.functional.conv2d(x, w, b), 3, stride=2)
    torch.testing.assert_close(_ConvPool3x3.apply(x, w, b), ref, rtol=1e-13, atol=1e-13)
    cpu = _ConvPool3x3.apply(*(t.detach().cpu() for t in (x, w, b)))
    torch.testing.assert_close(_ConvPool3x3.apply(x, w, b).cpu(), cpu, rtol=1e-13, atol=1e-13)


def test_patch_embedding_cuda_layers_equal_the_cpu_fast_path():
    # CPU runs the cropped, channels-last _ConvPool3x3 path; CUDA runs the plain layers: same numbers.
    from mfattn.implicit.models import PatchEmbedding

    torch.manual_seed(0)
    emb = PatchEmbedding(10, 32).double()
    x = _images(7, 2, F64)
    cpu = emb(x)
    gpu = emb.cuda()(x.cuda()).cpu()
    torch.testing.assert_close(gpu, cpu, rtol=1e-12, atol=1e-12)


# --- Foundations: DEQ solvers and the implicit backward -------------------------------------------------------------
@pytest.mark.parametrize("method", ["plain", "anderson", "broyden"])
def test_deq_solvers_on_cuda_find_the_cpu_fixed_point(method):
    from mfattn.deq import linear_contraction, solve

    g = torch.Generator().manual_seed(7)
    W = linear_contraction(48, 0.8, generator=g)
    b = torch.randn(6, 48, generator=g, dtype=F64)
    exact = torch.linalg.solve(torch.eye(48, dtype=F64) - W, b.T).T
    found = {}
    for dev in ("cpu", "cuda"):
        Wd, bd = W.to(dev), b.to(dev)
        z, stats = solve(lambda z: z @ Wd.T + bd, torch.zeros_like(bd), method=method, max_iter=400, tol=1e-11)
        found[dev] = (z.cpu(), stats)
        assert (z.cpu() - exact).norm() <= 1e-9 * exact.norm()
    torch.testing.assert_close(found["cuda"][0], found["cpu"][0], rtol=1e-9, atol=1e-12)
    # the same path: the iteration counts agree (up to one evaluation, where rounding moves a residual across tol)
    its = [found[d][1].iterations.cpu().numpy() for d in ("cuda", "cpu")]
    assert np.abs(its[0] - its[1]).max() <= 1, its


def test_implicit_backward_on_cuda_matches_cpu_and_the_closed_form():
    # z* = W z* + b  =>  d(c·z*)/db = (I − W)^{-T} c: the adjoint solve on the GPU against the linear solve.
    from mfattn.deq import deq_fixed_point, linear_contraction

    g = torch.Generator().manual_seed(11)
    n = 32
    W = linear_contraction(n, 0.9, generator=g)
    b = torch.randn(4, n, generator=g, dtype=F64)
    c = torch.randn(4, n, generator=g, dtype=F64)
    exact = torch.linalg.solve(torch.eye(n, dtype=F64) - W.T, c.T).T
    opts = dict(method="anderson", max_iter=300, tol=1e-12)
    grads = {}
    for dev in ("cpu", "cuda"):
        bd = b.detach().to(dev).clone().requires_grad_()  # a leaf on each device
        Wd, cd = W.to(dev), c.to(dev)
        z, _ = deq_fixed_point(lambda z: z @ Wd.T + bd, torch.zeros_like(bd), [bd], forward=opts, backward=opts)
        (z * cd).sum().backward()
        grads[dev] = bd.grad.cpu()
    assert (grads["cuda"] - exact).norm() <= 1e-9 * exact.norm()
    torch.testing.assert_close(grads["cuda"], grads["cpu"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype, tol", [(torch.float64, 1e-9), (torch.float32, 2e-4)])
def test_ensemble_members_on_cuda_equal_their_solo_models(dtype, tol):
    """Issue 46: on CUDA, each member of a batched ensemble gives its solo model's logits and gradients (one step on
    the same random digits; batched products may round differently from single ones there, hence a tolerance)."""
    import torch.nn.functional as F

    from mfattn.implicit.ensemble import EnsembleMNIST
    from mfattn.implicit.models import build_model

    gen = torch.Generator().manual_seed(7)
    seeds, B = [0, 1, 2], 6
    images = torch.rand(len(seeds), B, 1, 28, 28, generator=gen, dtype=dtype).cuda()
    labels = torch.randint(0, 10, (len(seeds), B), generator=gen).cuda()
    ens = EnsembleMNIST(seeds, dtype=dtype).cuda()
    logits = ens(images)
    F.cross_entropy(logits.reshape(-1, 10), labels.reshape(-1), reduction="none").view(len(seeds), B).mean(1).sum() \
        .backward()
    for s, seed in enumerate(seeds):
        solo = build_model(seed, dtype=dtype).cuda()
        solo_logits = solo(images[s])
        F.cross_entropy(solo_logits, labels[s]).backward()
        scale = solo_logits.abs().max()
        assert float(((solo_logits - logits[s]).abs().max() / scale).detach()) < tol
        mine = dict(ens.members[s].named_parameters())
        for name, p in solo.named_parameters():
            gap = float((p.grad - mine[name].grad).abs().max() / p.grad.abs().max().clamp_min(1e-30))
            assert gap < tol, (name, gap)
