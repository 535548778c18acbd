"""Expanding attention: the batched iteration equals a per-sample reference loop, the lazy version
equals the dense one, the prior's closed forms, the cost measure on the stored run, the sampler's
distance law, gradients, and clear errors on bad input."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from mfattn.structural import expanding as ex

from conftest import data_file

torch.set_num_threads(1)
#: (md + k)/(nd) of the stored expanding_50.json, p = 1/2, 1/5, 1/10, 1/25 (computed once from its windows)
PAPER_MEASURE_STORED = [0.25942492, 0.41602328, 0.5889402, 0.79384008]


def reference_loop(scores, values, alpha, beta, slope, update, mass=0.95, max_iter=100, tol=0.01):
    """One sequence at a time, in plain Python floats: the mechanism written out directly."""
    T = len(scores)
    h_old, out = 0.0, None
    alpha0, beta0 = alpha, beta
    for i in range(max_iter):
        if update == "plugin":
            q = alpha / (alpha + beta)
        else:
            q = 1.0 - math.exp(float(torch.digamma(torch.tensor(beta, dtype=torch.float64))
                                     - torch.digamma(torch.tensor(alpha + beta, dtype=torch.float64))))
        h = math.log(1 - mass) / math.log(1 - q)
        m = max(2, math.ceil(h))
        sl = math.log(1 - q) if slope == "paper" else -1.0 / h
        keys = [j for j in range(T) if 1 <= T - 1 - j < min(m, T)]
        logits = [scores[j] + (T - 1 - j) * sl for j in keys]
        top = max(logits)
        w = [math.exp(x - top) for x in logits]
        z = sum(w)
        att = {j: wj / z for j, wj in zip(keys, w)}
        out = (sum(att[j] * values[j] for j in keys), m, i + 1)
        if update == "cavi":   # q(q) = Beta(α₀ + 1, β₀ + E[t - 1]), from the prior each sweep
            alpha = alpha0 + 1
            beta = beta0 + sum(att[j] * (T - 2 - j) for j in keys)
            if abs(h - h_old) < tol:
                break
        else:
            alpha += 1
            beta += sum(att[j] * (T - 1 - j) for j in keys)
            if h > T or h < h_old or h - h_old < tol:
                break
        h_old = h
    return out


@pytest.mark.parametrize("slope", ex.SLOPES)
@pytest.mark.parametrize("update", ex.UPDATES)
def test_batched_equals_per_sample_reference_loop(slope, update):
    g = torch.Generator().manual_seed(0)
    B, T = 24, 40
    scale = torch.linspace(0.1, 4.0, B, dtype=torch.float64)[:, None]
    scores = torch.randn(B, T, generator=g, dtype=torch.float64) * scale
    values = torch.randn(B, T, 1, generator=g, dtype=torch.float64)
    alpha0 = torch.rand(B, generator=g, dtype=torch.float64) * 0.5 + 0.05
    beta0 = torch.rand(B, generator=g, dtype=torch.float64) * 2 + 0.5
    res = ex.expanding_attention(scores, values, alpha0, beta0, slope=slope, update=update)
    for b in range(B):
        out, m, k = reference_loop(scores[b].tolist(), values[b, :, 0].tolist(), alpha0[b].item(),
                                   beta0[b].item(), slope, update)
        assert res.window[b].item() == m and res.iterations[b].item() == k
        assert abs(res.output[b, 0].item() - out) < 1e-12
    assert len(set(res.iterations.tolist())) > 1          # the samples really stop at different times
    # attention lives inside the window and never on the query itself
    dist = torch.arange(T - 1, -1, -1)
    outside = (dist[None, :] >= torch.clamp(res.window, max=T)[:, None]) | (dist[None, :] == 0)
    assert res.attention[outside].abs().max() == 0
    assert torch.allclose(res.attention.sum(-1), torch.ones(B, dtype=torch.float64), atol=1e-12)


@pytest.mark.parametrize("slope", ex.SLOPES)
@pytest.mark.parametrize("update", ex.UPDATES)
def test_lazy_equals_dense_and_scores_only_the_window(slope, update):
    g = torch.Generator().manual_seed(1)
    B, T, dk = 8, 300, 6
    query = torch.randn(B, dk, generator=g, dtype=torch.float64)
    keys = torch.randn(B, T, dk, generator=g, dtype=torch.float64)
    values = torch.randn(B, T, 2, generator=g, dtype=torch.float64)
    scores = (keys @ query[..., None])[..., 0] / math.sqrt(dk)
    dense = ex.expanding_attention(scores, values, 0.3, 0.7, slope=slope, update=update)
    lazy, scored = ex.lazy_expanding_attention(query, keys, values, 0.3, 0.7, slope=slope, update=update)
    assert torch.allclose(lazy.output, dense.output, rtol=0, atol=1e-12)
    assert torch.equal(lazy.window, dense.window) and torch.equal(lazy.iterations, dense.iterations)
    assert torch.allclose(lazy.attention, dense.attention, atol=1e-12)
    # exactly the largest window in the batch is scored, far fewer than T - 1 keys
    assert scored == int(torch.clamp(dense.window, max=T).max()) - 1
    assert scored < T - 1


def test_horizon_holds_the_prior_mass():
    q = torch.tensor([0.02, 0.1, 0.5, 0.9], dtype=torch.float64)
    H = ex.geometric_horizon(q, 0.95)
    assert torch.allclose(1 - (1 - q) ** H, torch.full_like(q, 0.95), atol=1e-14)
    # the public code's initial prior α = 0.1, β = 0.9: q = 0.1, a 29-token window
    assert math.ceil(ex.geometric_horizon(ex.effective_q(torch.tensor(0.1), torch.tensor(0.9))).item()) == 29


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_sweep_loops_unchecked_forms_are_the_public_functions(dtype):
    """The sweep loop calls effective_q and geometric_horizon without their argument checks (issue 30: the
    checks cost more than the arithmetic on the loop's tiny tensors); the values are the same to the bit, and
    only the public functions refuse bad input."""
    from mfattn.structural import expanding_core as core

    g = torch.Generator().manual_seed(0)
    alpha = torch.rand(200, generator=g, dtype=torch.float64).to(dtype) * 5 + 0.05
    beta = torch.rand(200, generator=g, dtype=torch.float64).to(dtype) * 50 + 0.05
    for update in ex.UPDATES:
        q = ex.effective_q(alpha, beta, update)
        assert torch.equal(core._estimate_q(alpha, beta, update != "plugin"), q), update
        assert torch.equal(core._horizon(q, 0.95), ex.geometric_horizon(q, 0.95)), update
    with pytest.raises(ValueError, match="q"):
        ex.geometric_horizon(torch.tensor([0.5, 1.5], dtype=dtype))


@pytest.mark.parametrize("alpha,beta", [(0.5, 2.0), (3.0, 7.0), (1.1, 30.0)])
def test_digamma_update_is_the_beta_expectation_of_log_one_minus_q(alpha, beta):
    """log(1 - q̃) = E_Beta(α,β)[log(1 - q)], checked by quadrature in q (Beta density)."""
    x = np.linspace(0, 1, 400001)[1:-1]
    logpdf = ((alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x)
              + math.lgamma(alpha + beta) - math.lgamma(alpha) - math.lgamma(beta))
    expect = np.trapezoid(np.exp(logpdf) * np.log1p(-x), x)
    q = ex.effective_q(torch.tensor(alpha, dtype=torch.float64), torch.tensor(beta, dtype=torch.float64),
                       "digamma")
    assert abs(math.log1p(-q.item()) - expect) < 2e-3 * abs(expect)
    # Jensen: the exact update is more cautious than the plug-in (larger q̃, shorter horizon)
    assert q.item() > alpha / (alpha + beta)


def test_detached_fast_path_equals_full_graph_and_has_exact_gradients():
    g = torch.Generator().manual_seed(2)
    scores = torch.randn(5, 30, generator=g, dtype=torch.float64).requires_grad_(True)
    values = torch.randn(5, 30, 1, generator=g, dtype=torch.float64)
    fast = ex.expanding_attention(scores, values, 0.1, 0.9, detach_prior=True)
    slow = ex.expanding_attention(scores, values, 0.1, 0.9, detach_prior=False)
    assert torch.allclose(fast.output, slow.output, atol=1e-14)
    assert torch.equal(fast.window, slow.window)
    # one iteration: the prior does not depend on the scores, so the detached gradient is the
    # whole derivative; check it by finite differences
    f = lambda s: ex.expanding_attention(s, values, 0.1, 0.9, detach_prior=True, max_iter=1).output  # noqa: E731
    assert torch.autograd.gradcheck(f, (scores,), eps=1e-6, atol=1e-7)
    # many iterations: the detached gradient is that of a softmax with the final slope and window
    # held fixed (the public code's gradient, which ignores the scores' effect on β)
    (g_fast,) = torch.autograd.grad(fast.output.sum(), scores)
    dist = torch.arange(29, -1, -1, dtype=torch.float64)
    inside = (dist >= 1) & (dist[None, :] < torch.clamp(fast.window, max=30)[:, None])
    logits = (scores + dist * fast.slope_final[:, None]).masked_fill(~inside, float("-inf"))
    (g_frozen,) = torch.autograd.grad((torch.softmax(logits, -1)[..., None] * values).sum(), scores)
    assert torch.allclose(g_fast, g_frozen, atol=1e-14)


def test_learnable_hyper_prior_gets_finite_difference_gradients():
    g = torch.Generator().manual_seed(3)
    scores = torch.randn(4, 30, generator=g, dtype=torch.float64)
    values = torch.randn(4, 30, 1, generator=g, dtype=torch.float64)
    a0 = torch.tensor(0.4, dtype=torch.float64, requires_grad=True)
    b0 = torch.tensor(1.3, dtype=torch.float64)
    loss = lambda a: ex.expanding_attention(scores, values, a, b0, max_iter=3).output.sum()  # noqa: E731
    (grad,) = torch.autograd.grad(loss(a0), a0)
    eps = 1e-6   # small enough that no window edge moves
    fd = (loss(a0.detach() + eps) - loss(a0.detach() - eps)) / (2 * eps)
    assert grad.abs() > 0 and abs(grad.item() - fd.item()) < 1e-6 * max(1.0, abs(fd.item()))


def test_code_measure_reproduces_the_stored_relative_operations():
    """The public figure's numbers for d = 50 (≈ 0.587/0.652/0.770/0.927) from its stored run."""
    runs = json.loads(data_file("asi-reference", "expanding_50.json").read_text())
    got = [ex.relative_operations(r["expanding"]["window"], np.array(r["expanding"]["iterations"]) + 1,
                                  n=50, d=50, mode="code").mean() for r in runs]
    np.testing.assert_allclose(got, [0.5866087, 0.6523431, 0.7699589, 0.9270398], rtol=1e-6)


def test_sampler_places_x0_at_a_geometric_distance():
    tasks = [ex.ExpandingTask(d=4, n=50, p=p) for p in (0.5, 0.1)]
    gen = torch.Generator().manual_seed(4)
    weights = [ex.make_expanding_weights(4, gen) for _ in tasks]
    X, y, dist = ex.sample_expanding_batch(tasks, weights, 20000, gen)
    # x0 is the token whose value reproduces y = W_y x0
    pos = 49 - dist
    x0 = torch.gather(X, 2, pos[..., None, None].expand(-1, -1, 1, 4))[:, :, 0]
    for r in range(2):
        assert torch.allclose(x0[r] @ weights[r][0][0], y[r], rtol=1e-5, atol=1e-5)
    # distance = min(G + 1, 49), G ~ Geometric(p) on {1, 2, ...}: P(dist = 2) = p, E[G] = 1/p
    for r, p in enumerate((0.5, 0.1)):
        n_samples = dist[r].numel()
        frac2 = (dist[r] == 2).double().mean().item()
        assert abs(frac2 - p) < 4 * math.sqrt(p * (1 - p) / n_samples)
        assert dist[r].min().item() >= 2 and dist[r].max().item() <= 49
    G = (dist[0] - 1).double()
    assert abs(G.mean().item() - 2.0) < 4 * math.sqrt(2.0 / G.numel())   # Var G = (1-p)/p² = 2


def test_bad_input_raises_clear_errors():
    s, v = torch.zeros(2, 10), torch.zeros(2, 10, 1)
    with pytest.raises(ValueError, match="slope"):
        ex.expanding_attention(s, v, 0.1, 0.9, slope="linear")
    with pytest.raises(ValueError, match="update"):
        ex.expanding_attention(s, v, 0.1, 0.9, update="mode")
    with pytest.raises(ValueError, match="scores must have shape"):
        ex.expanding_attention(torch.zeros(10), v, 0.1, 0.9)
    with pytest.raises(ValueError, match="values must have shape"):
        ex.expanding_attention(s, torch.zeros(2, 9, 1), 0.1, 0.9)
    with pytest.raises(ValueError, match="positive"):
        ex.expanding_attention(s, v, 0.0, 0.9)
    with pytest.raises(ValueError, match="max_iter"):
        ex.expanding_attention(s, v, 0.1, 0.9, max_iter=0)
    with pytest.raises(ValueError, match="recency bias"):
        ex.ExpandingTask(p=0.0)
    with pytest.raises(ValueError, match="relative-operations mode"):
        ex.relative_operations([10], [2], 50, 10, mode="flops")
    with pytest.raises(ValueError, match="model"):
        ex.train_expanding(models=("sparse",), steps=1, cache=False)


def test_lazy_bad_input_and_paper_measure_closed_form():
    with pytest.raises(ValueError, match="query must be"):
        ex.lazy_expanding_attention(torch.zeros(2, 3), torch.zeros(2, 10, 4), torch.zeros(2, 10, 1), 0.1, 0.9)
    # (m d + k)/(n d) and m (d + k)/(n d) with m floored at 28, windows beyond n capped at n
    w, k = np.array([10, 40, 80]), np.array([2, 3, 4])
    np.testing.assert_allclose(ex.relative_operations(w, k, 50, 10, "paper"), (np.array([10, 40, 50]) * 10 + k) / 500)
    np.testing.assert_allclose(ex.relative_operations(w, k, 50, 10, "code"), np.array([28, 40, 50]) * (10 + k) / 500)


@pytest.mark.parametrize("kw", [dict(), dict(update="cavi", learn_prior=True, slope="code", score="column")],
                         ids=["paper", "cavi-learnt-code"])
def test_a_replicas_run_is_the_same_alone_and_in_a_batch(kw):
    """Each (p, seed) draws its initial weights and data from its own stream, and every reduction of a replica is
    summed in an order that does not depend on the batch: at the paper's size (d = 10, n = 50, the profile's
    four p and two seeds) training a replica beside the others gives bit-identical losses, windows and weights
    (a batched matmul, as before, differs at float32 round-off from the first step)."""
    kw = dict(d=10, n=50, steps=25, cache=False, **kw)
    batch = ex.train_expanding(ps=(0.5, 0.2, 0.1, 0.04), seeds=(0, 1), **kw)
    alone = ex.train_expanding(ps=(0.1,), seeds=(1,), **kw)
    i = int(np.flatnonzero((batch["ps"] == 0.1) & (batch["seeds"] == 1))[0])
    for key in ("loss/expanding", "loss/standard", "window", "reach", "iterations", "distance/expanding",
                "W/expanding", "W/standard"):
        assert np.array_equal(batch[key][i], alone[key][0]), key
    # and different replicas really differ (the streams are not shared)
    j = int(np.flatnonzero((batch["ps"] == 0.1) & (batch["seeds"] == 0))[0])
    assert not np.array_equal(batch["loss/standard"][i], batch["loss/standard"][j])


def _elbo(scores, a_logits, alpha, beta, alpha0, beta0, inside, dist):
    """ELBO of t ~ Geometric(q) on {1, 2, ...}, q ~ Beta(α₀, β₀), evidence exp(s_t), with q(t) = softmax of
    ``a_logits`` on the window and q(q) = Beta(α, β). Written from the model, not from the iteration."""
    a = torch.softmax(a_logits.masked_fill(~inside, float("-inf")), -1)
    e_log_q = torch.digamma(alpha) - torch.digamma(alpha + beta)
    e_log_1mq = torch.digamma(beta) - torch.digamma(alpha + beta)
    log_b = lambda x, y: torch.lgamma(x) + torch.lgamma(y) - torch.lgamma(x + y)  # noqa: E731
    e_t1 = (a * (dist - 1)).sum()
    entropy_t = -(a[inside] * torch.log(a[inside])).sum()
    e_log_prior_q = (alpha0 - 1) * e_log_q + (beta0 - 1) * e_log_1mq - log_b(torch.tensor(alpha0), torch.tensor(beta0))
    e_log_post_q = (alpha - 1) * e_log_q + (beta - 1) * e_log_1mq - log_b(alpha, beta)
    return (a * scores).sum() + e_log_q + e_t1 * e_log_1mq + e_log_prior_q - e_log_post_q + entropy_t


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cavi_is_the_fixed_point_of_the_mean_field_equations(seed):
    """At the end of update='cavi' the ELBO is stationary in every variational parameter (the attention
    logits on the window and α, β of q(q)), checked by autograd of an ELBO written from the model; the
    paper's accumulating iteration is not stationary (its α keeps growing with the sweeps)."""
    g = torch.Generator().manual_seed(seed)
    T = 40
    scores = torch.randn(1, T, generator=g, dtype=torch.float64) * 1.5
    values = torch.zeros(1, T, 1, dtype=torch.float64)
    dist = torch.arange(T - 1, -1, -1, dtype=torch.float64)
    for update, stationary in (("cavi", True), ("plugin", False)):
        res = ex.expanding_attention(scores, values, 0.1, 0.9, update=update, max_iter=500, tol=1e-12)
        inside = (dist >= 1) & (dist < min(int(res.window), T))
        # the variational distributions of the last sweep: attention and the Beta it was computed from
        alpha = (torch.tensor(1.1, dtype=torch.float64) if update == "cavi" else res.alpha[0] - 1).requires_grad_(True)
        beta_prev = 0.9 + (res.attention[0] * (dist - 1)).sum() if update == "cavi" else res.beta[0]
        beta = beta_prev.detach().clone().requires_grad_(True)
        logits = torch.log(res.attention[0].clamp(min=1e-300)).detach().requires_grad_(True)
        elbo = _elbo(scores[0], logits, alpha, beta, 0.1, 0.9, inside, dist)
        grads = torch.autograd.grad(elbo, (logits, alpha, beta))
        worst = max(float(gr.abs().max()) for gr in grads)
        print(update, worst, int(res.iterations))
        if stationary:
            assert worst < 1e-8, worst
            assert res.alpha.item() == pytest.approx(1.1, abs=1e-15)
        else:
            assert worst > 1e-5


def test_geometric_log_prior_is_an_alibi_distance_bias():
    """With one sweep and a window that covers the sequence, expanding attention is softmax(s_t − m·t) with
    m = −log(1 − α/(α+β)): the ALiBi bias −m·(i − j) of Press et al. (2022) for the last query i and key j."""
    g = torch.Generator().manual_seed(5)
    B, T = 6, 30
    scores = torch.randn(B, T, generator=g, dtype=torch.float64)
    values = torch.randn(B, T, 1, generator=g, dtype=torch.float64)
    alpha0 = torch.tensor([0.01, 0.02, 0.005, 0.01, 0.03, 0.015], dtype=torch.float64)
    beta0 = torch.ones(B, dtype=torch.float64)
    res = ex.expanding_attention(scores, values, alpha0, beta0, max_iter=1)
    assert bool((res.window >= T).all())                          # the horizon covers the sequence
    m = -torch.log1p(-alpha0 / (alpha0 + beta0))                 # ALiBi head slope, one per query here
    i, j = T - 1, torch.arange(T, dtype=torch.float64)
    alibi = -m[:, None] * (i - j)[None, :]
    logits = (scores + alibi).masked_fill(torch.arange(T) == i, float("-inf"))
    assert torch.allclose(res.attention, torch.softmax(logits, -1), rtol=0, atol=1e-14)
    # further sweeps change the slope with the evidence    # (the paper's rules stop at once here, H > T; CAVI iterates): a data-dependent ALiBi slope per query
    res3 = ex.expanding_attention(scores, values, alpha0, beta0, update="cavi")
    assert bool((res3.slope_final < -1.5 * m).all())


def _public_expanding_forward(X: np.ndarray, W: np.ndarray, alpha: float = 0.1, beta: float = 0.9,
                              tol: float = 0.01, max_iter: int = 100):
    """Oracle written from the equations of ``ExpandingAttention`` in the public code
    (github.com/ryan-sussex/AttentionAsStructuralInference, models.py; read, not copied), for one
    sequence X (T, d) and c_attn weight W (2d + 1, d), in numpy float64:

    column scores c_t = q_t·k_T/√d with c_T = −inf; window k = log 0.05 / log(1 − α/(α+β)), m = ⌈k⌉;
    softmax over the last m positions of c_t − (distance)/k; α += 1, β += Σ a·distance;
    stop when k > T or k − k_old < tol. Returns (prediction, m, number of iterations)."""
    T, d = X.shape
    proj = X @ W.T
    q, kk, v = proj[:, :d], proj[:, d:2 * d], proj[:, 2 * d]
    col = q @ kk[-1] / math.sqrt(d)
    col[-1] = -np.inf
    k_old = 0.0
    for it in range(max_iter):
        k = math.log(0.05) / math.log(1 - alpha / (alpha + beta))
        m = math.ceil(k)
        width = min(m, T)
        distance = np.arange(width)[::-1].astype(float)          # T-1-j for the last `width` positions
        logits = col[T - width:] - distance / k
        a = np.exp(logits - logits.max())
        a /= a.sum()
        alpha, beta = alpha + 1, beta + float(a @ distance)
        if k > T or k - k_old < tol:
            break
        k_old = k
    return float(a @ v[T - width:]), m, it + 1


def test_code_setting_equals_an_oracle_from_the_public_code_equations():
    g = torch.Generator().manual_seed(6)
    d, T, R, B = 5, 50, 2, 12
    W = torch.randn(R, 2 * d + 1, d, generator=g, dtype=torch.float64) * 0.8
    X = torch.randn(R, B, T, d, generator=g, dtype=torch.float64)
    X[:, :, -1] = X[:, :, 10] * 2                                   # a far parent for some windows to grow
    pred, res = ex.expanding_forward(W, X, 0.1, 0.9, slope="code", update="plugin", score="column",
                                     return_result=True)
    windows = res.window.reshape(R, B)
    iters = res.iterations.reshape(R, B)
    for r in range(R):
        for b in range(B):
            y, m, k = _public_expanding_forward(X[r, b].numpy(), W[r].numpy())
            assert windows[r, b].item() == m and iters[r, b].item() == k
            assert abs(pred[r, b].item() - y) < 1e-10 * max(1.0, abs(y))
    assert len(set(iters.flatten().tolist())) > 1


def test_paper_measure_of_the_stored_run_and_its_ordering():
    """The paper's measure (md + k)/(nd) of the stored d = 50 run, pinned, and falling with the recency bias:
    stronger bias, smaller windows (a property of the data, which could fail)."""
    runs = json.loads(data_file("asi-reference", "expanding_50.json").read_text())
    ps = [r["expanding"]["geo_p"] for r in runs]
    paper = [ex.relative_operations(r["expanding"]["window"], np.array(r["expanding"]["iterations"]) + 1,
                                    n=50, d=50, mode="paper").mean() for r in runs]
    order = np.argsort(ps)[::-1]                                 # p = 1/2 first
    assert all(np.diff(np.array(paper)[order]) > 0)
    np.testing.assert_allclose(paper, PAPER_MEASURE_STORED, rtol=1e-6)


def test_stored_windowed_benchmark_and_the_comparison_table():
    """The stored benchmark's rows are consistent (lazy = dense to float32 rounding, scored keys ≤ n) and the
    chapter's summary of it is the last and first rows' ratios; inference_comparison averages per p."""
    from mfattn.structural import analysis

    path = Path(__file__).resolve().parents[1] / "data" / "benchmarks" / "bench_windowed_attention.json"
    table, s = analysis.windowed_benchmark(path)
    rows = json.loads(path.read_text())["rows"]
    assert s["n_max"] == rows[-1]["n"] and s["time_ratio_max_n"] == rows[-1]["lazy_ms"] / rows[-1]["full_ms"]
    for r in rows:
        assert r["max_abs_diff"] < 1e-5 and 1 <= r["scored"] < r["n"]
        # per query m·d + k with m ≤ the batch's largest window (scored + 1) and k ≤ 100 iterations
        assert 0 < r["ops_ratio"] * (r["n"] - 1) * 64 <= (r["scored"] + 1) * 64 + 100
    assert len(table.splitlines()) == len(rows) + 1
    run = {"ps": np.array([0.5, 0.1, 0.5]), "window": np.array([[[10]], [[60]], [[20]]]),
           "iterations": np.array([[[2]], [[4]], [[4]]]), "loss/expanding": np.array([[1.0], [3.0], [2.0]])}
    got = analysis.inference_comparison({"x": run}, [0.5, 0.1], d=10, tail=1)["x"]
    assert got["window"] == [15.0, 50.0] and got["iterations"] == [3.0, 4.0] and got["mse"] == [1.5, 3.0]
    np.testing.assert_allclose(got["ops"], [((100 + 2) / 500 + (200 + 4) / 500) / 2, (500 + 4) / 500])


def test_the_stopping_sweep_gives_the_window_and_reach_records_the_widest():
    """The paper's rules stop when the horizon shrinks, and the output and window are the stopping sweep's: those
    queries end with a window narrower than the widest one scored (``reach``), which the first window bounds from
    below. Computed from the history, independently of the bookkeeping."""
    g = torch.Generator().manual_seed(3)
    B, T = 256, 50
    scores = torch.randn(B, T, generator=g, dtype=torch.float64) * 2
    res = ex.expanding_attention(scores, torch.zeros(B, T, 1, dtype=torch.float64), 0.1, 0.9, return_history=True)
    first = int(math.ceil(ex.geometric_horizon(torch.tensor(0.1))))                   # 29
    widest = torch.stack([torch.where(h["active"], h["window"].clamp(max=T), 0) for h in res.history]).max(0).values
    assert torch.equal(res.reach, widest) and bool((res.reach >= first).all())
    shrank = res.window < res.reach
    assert 0.2 < shrank.double().mean() < 1                                        # many queries, not all
    # their attention lives in the narrower window: zero at distances ≥ the final window
    dist = torch.arange(T - 1, -1, -1)
    outside = dist[None, :] >= res.window[:, None]
    assert float(res.attention[shrank[:, None] & outside].abs().max()) == 0.0
    # the count as run charges the widest window: never below the paper's count, above it wherever it shrank
    k = res.iterations.numpy()
    run = ex.operations_as_run(res.reach.numpy(), k, T, 10)
    paper = ex.relative_operations(res.window.numpy(), k, T, 10, "paper")
    assert (run >= paper).all() and (run[shrank.numpy()] > paper[shrank.numpy()]).all()
    np.testing.assert_allclose(run, (np.minimum(res.reach.numpy(), T) * 10 + k) / (T * 10))


def test_first_window_fixes_only_the_first_sweep():
    g = torch.Generator().manual_seed(4)
    scores = torch.randn(32, 50, generator=g, dtype=torch.float64)
    values = torch.zeros(32, 50, 1, dtype=torch.float64)
    res = ex.expanding_attention(scores, values, 0.1, 0.9, update="cavi", first_window=29, return_history=True)
    free = ex.expanding_attention(scores, values, 0.1, 0.9, update="cavi", return_history=True)
    own = int(math.ceil(ex.geometric_horizon(ex.effective_q(torch.tensor(0.1), torch.tensor(0.9), "cavi"))))
    assert own == 17 and bool((free.history[0]["window"] == own).all())
    assert bool((res.history[0]["window"] == 29).all())
    assert torch.equal(res.history[1]["q"], ex.effective_q(torch.full((32,), 1.1, dtype=torch.float64),
                                                           0.9 + (res.history[0]["attention"] *
                                                                  (torch.arange(49, -1, -1) - 1).clamp(min=0)).sum(-1),
                                                           "cavi"))
    with pytest.raises(ValueError, match="first_window"):
        ex.expanding_attention(scores, values, 0.1, 0.9, first_window=1)


def test_elbo_matches_the_model_and_cavi_lowers_it_only_where_the_window_shrinks():
    """expanding_elbo equals the ELBO written from the model (_elbo). Along CAVI's sweeps (q(t) of sweep i with the
    Beta it was computed from, then the Beta it gives) the ELBO never falls at a sweep whose window did not shrink,
    and it does fall at some sweeps where the moving 95 % window shrank: the truncation makes CAVI non-monotone."""
    T = 50
    dist = torch.arange(T - 1, -1, -1, dtype=torch.float64)
    g = torch.Generator().manual_seed(11)
    scores = torch.randn(400, T, generator=g, dtype=torch.float64) * 2
    res = ex.expanding_attention(scores, torch.zeros(400, T, 1, dtype=torch.float64), 0.1, 0.9, update="cavi",
                                 max_iter=60, tol=1e-9, return_history=True)
    # one instance against the independent formula
    a0 = res.history[0]["attention"][0]
    inside = (dist >= 1) & (dist < int(res.history[0]["window"][0]))
    b = torch.tensor(0.9, dtype=torch.float64) + (a0 * (dist - 1).clamp(min=0)).sum()
    f64 = lambda x: torch.tensor(x, dtype=torch.float64)  # noqa: E731  (_elbo's prior constants in float64)
    want = _elbo(scores[0], torch.log(a0.clamp(min=1e-300)), f64(1.1), b, f64(0.1), f64(0.9), inside, dist)
    got = ex.expanding_elbo(scores[:1], a0[None], 1.1, b, 0.1, 0.9)[0]
    assert abs(float(got - want)) < 1e-10
    drops_steady, drops_shrink, prev, prev_w = [], [], None, None
    for h in res.history:
        beta = 0.9 + (h["attention"] * (dist - 1).clamp(min=0)).sum(-1)
        elbo = ex.expanding_elbo(scores, h["attention"], 1.1, beta, 0.1, 0.9)
        if prev is not None:
            on = h["active"]
            change = (elbo - prev)[on]
            shrink = (h["window"] < prev_w)[on]
            drops_steady.append(change[~shrink])
            drops_shrink.append(change[shrink])
        prev, prev_w = elbo, h["window"]
    steady, shrinking = torch.cat(drops_steady), torch.cat(drops_shrink)
    assert float(steady.min()) > -1e-9                                # monotone on a fixed or growing support
    assert float(shrinking.min()) < -1e-3                             # and not where the window shrank


def test_window_coverage_lift_is_zero_for_a_window_blind_to_the_input():
    """far_lift compares how often the window reaches a far parent with how often the same windows would, paired
    with far parents independently: a window drawn without looking at the input has lift ≈ 0 however often it
    reaches far parents; a window that follows the parent has a large lift. So the rule can fail."""
    from mfattn.structural import analysis

    rng = np.random.default_rng(0)
    steps = 4000
    t = rng.integers(1, 50, size=(4, steps, 1))
    blind = rng.integers(2, 60, size=(4, steps, 1))                     # independent of t
    follow = np.where(rng.random((4, steps, 1)) < 0.8, t + 1, 2)       # reaches the parent 80 % of the time
    base = {"ps": np.array([0.1, 0.1, 0.04, 0.04]), "distance/expanding": t}
    lift_blind = analysis.window_coverage({10: {**base, "window": blind}}, [10], [0.1, 0.04])
    lift_follow = analysis.window_coverage({10: {**base, "window": follow}}, [10], [0.1, 0.04])
    assert lift_blind["far_found"] > 0.2 and abs(lift_blind["far_lift_mean"]) < 0.03 and lift_blind["far_lift_lo"] < 0
    assert lift_follow["far_lift_mean"] > 0.5 and lift_follow["far_lift_lo"] > 0.4 and lift_follow["far_lift_n"] == 4


def test_stored_benchmark_rows_time_the_same_iterations():
    """The lazy rows of the windowed benchmark run on batches whose recent tokens (everything any window reaches)
    are the same at every n, so every row times the same windows and iteration counts."""
    path = Path(__file__).resolve().parents[1] / "data" / "benchmarks" / "bench_windowed_attention.json"
    rows = json.loads(path.read_text())["rows"]
    assert len({r["iterations"] for r in rows}) == 1 and len({r["scored"] for r in rows}) == 1
    assert all(r["scored"] < rows[0]["n"] for r in rows)


def test_variants_trained_together_equal_each_trained_alone():
    """train_expanding_variants stacks the variants along the replica axis and runs their iterations in one loop
    (per-row slope, update, scores and first window): at the paper's size every variant's losses, windows, reach
    and weights are bit-identical to train_expanding with its settings alone, and the standard model is shared."""
    variants = {"paper": {}, "digamma": {"update": "digamma", "models": ("expanding",)},
                "code": {"slope": "code", "score": "column"}, "cavi": {"update": "cavi", "models": ("expanding",)},
                "fw29": {"update": "digamma", "first_window": 29, "models": ("expanding",)}}
    kw = dict(ps=(0.5, 0.2, 0.1, 0.04), d=10, n=50, seeds=(0,), steps=12, cache=False)
    together = ex.train_expanding_variants(variants, **kw)
    for name, v in variants.items():
        alone = ex.train_expanding(**kw, **v)
        assert set(alone) == set(together[name]), name
        for key in alone:
            assert np.array_equal(alone[key], together[name][key]), (name, key)
    assert not np.array_equal(together["paper"]["window"], together["cavi"]["window"])
    with pytest.raises(ValueError, match="variant sets only"):
        ex.train_expanding_variants({"x": {"slopes": "code"}}, steps=1, cache=False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_graph_free_sweeps_equal_the_readable_loop_bit_for_bit(dtype):
    """Without a gradient (``detach_prior`` or no_grad) the sweeps run in a shorter loop that lets stopped rows sweep
    on and records each row once, at its stopping sweep; ``return_history`` runs the readable loop, which gates every
    update by the running rows. Mixed and uniform per-row settings, first windows and a max_iter that cuts rows off:
    every field of the two agrees to the last bit (a differing op order or a mis-timed record breaks this)."""
    B, T = 48, 40
    g = torch.Generator().manual_seed(3)
    scores = (3 * torch.randn(B, T, generator=g)).to(dtype)
    values = torch.randn(B, T, 2, generator=g).to(dtype)
    alpha0 = (0.05 + torch.rand(B, generator=g)).to(dtype)
    cases = [dict(slope=["paper", "code"] * (B // 2), update=["plugin", "digamma", "cavi"] * (B // 3),
                  first_window=[None, 29, None, 5] * (B // 4)),
             dict(slope="code", update="cavi", first_window=7), dict(update="digamma"), dict(),
             dict(slope=["code"] * B, update=["cavi", "plugin"] * (B // 2), max_iter=6),
             dict(update=["digamma", "plugin"] * (B // 2), max_iter=1), dict(update="cavi", tol=0.0, max_iter=30)]
    for kw in cases:
        slow = ex.expanding_attention(scores, values, alpha0, 0.9, return_history=True, **kw)
        fast = ex.expanding_attention(scores, values, alpha0, 0.9, detach_prior=True, **kw)
        with torch.no_grad():
            plain = ex.expanding_attention(scores, values, alpha0, 0.9, **kw)
        assert len({int(i) for i in slow.iterations}) > 1 or "max_iter" in kw, kw   # rows stop at different sweeps
        for res in (fast, plain):
            for field in ("output", "attention", "window", "horizon", "iterations", "alpha", "beta",
                          "slope_final", "reach"):
                a, b = getattr(slow, field), getattr(res, field)
                assert a.dtype == b.dtype and torch.equal(a, b), (kw, field)


def test_the_loop_with_a_graph_gives_the_readable_loops_values_and_gradients_bit_for_bit():
    """With a gradient through the prior (``learn_prior``) the loop keeps every differentiable step of the readable
    loop (``return_history``) and moves the rest to numpy: the outputs, records and the gradients with respect to
    the scores, values and hyper-prior are equal to the last bit, for mixed per-row settings and a cut-off max_iter."""
    B, T = 24, 30
    g = torch.Generator().manual_seed(5)
    cases = [dict(slope=["paper", "code"] * (B // 2), update=["plugin", "digamma", "cavi"] * (B // 3),
                  first_window=[None, 29, None, 5] * (B // 4)), dict(), dict(update="cavi", slope="code", max_iter=4)]
    for kw in cases:
        scores = (3 * torch.randn(B, T, generator=g)).requires_grad_(True)
        values = torch.randn(B, T, 2, generator=g).requires_grad_(True)
        a0 = (0.05 + torch.rand(B, generator=g)).requires_grad_(True)
        b0 = (0.5 + torch.rand(B, generator=g)).requires_grad_(True)
        runs = [ex.expanding_attention(scores, values, a0, b0, return_history=hist, **kw) for hist in (True, False)]
        grads = [torch.autograd.grad((r.output ** 2).sum() + r.alpha.sum() + r.beta.sum(), (scores, values, a0, b0))
                 for r in runs]
        assert len({int(i) for i in runs[0].iterations}) > 1, kw
        for field in ("output", "attention", "window", "horizon", "iterations", "alpha", "beta", "slope_final",
                      "reach"):
            a, b = getattr(runs[0], field), getattr(runs[1], field)
            assert a.dtype == b.dtype and torch.equal(a, b), (kw, field)
        assert all(torch.equal(x, y) for x, y in zip(*grads)), kw
        assert float(grads[0][2].abs().sum()) > 0, kw                 # the gradient reaches the prior


def test_the_window_follows_the_parent_inside_the_first_window():
    """window_adaptation's rank correlation: a window that grows with the parent's distance (inside the first window)
    has a correlation near 1 and a lift over randomly paired windows above 0; a window drawn blind to the input has a
    correlation near 0. So the rule on it can fail (designs-expanding-adaptive)."""
    from mfattn.structural import analysis_premises as ap

    rng = np.random.default_rng(1)
    t = rng.integers(1, 29, size=(4, 4000, 1))
    follow = t + rng.integers(1, 4, size=t.shape)                        # grows with t, always reaches it
    blind = rng.integers(2, 40, size=t.shape)
    base = {"ps": np.array([0.1, 0.1, 0.04, 0.04]), "distance/expanding": t}
    got_follow = ap.window_adaptation({10: {**base, "window": follow}}, [10], [0.1, 0.04])
    got_blind = ap.window_adaptation({10: {**base, "window": blind}}, [10], [0.1, 0.04])
    assert len(got_follow["near_rho_runs"]) == 4 and min(got_follow["near_rho_runs"]) > 0.9
    assert min(got_follow["near_lift_runs"]) > 0.2
    assert max(abs(r) for r in got_blind["near_rho_runs"]) < 0.05 and max(abs(x) for x in got_blind["near_lift_runs"]) < 0.03
    # ties take their average rank: a window constant over the queries has no correlation (left out)
    assert ap.window_adaptation({10: {**base, "window": np.full(t.shape, 30)}}, [10], [0.1, 0.04])["near_rho_runs"] == []


def test_the_code_count_at_both_d_is_the_public_codes_formula():
    """code_counts charges m(d + k)/(nd), m floored at 28 (relative_operations, mode "code"), per seed of our runs and
    on the stored runs (their iterations stored one short); at d = 10 the k sweeps weigh k/d, so the count can reach
    full attention's cost where it cannot at d = 50."""
    from mfattn.structural import analysis_premises as ap

    w = np.full((2, 5, 1), 30.0)
    k = np.full((2, 5, 1), 6.0)
    run = {"ps": np.array([0.1, 0.1]), "window": w, "iterations": k}
    got = ap.code_counts({10: run, 50: run}, {10: [{"expanding": {"geo_p": 0.1, "window": [30.0] * 5,
                                                                   "iterations": [5] * 5}}]}, [0.1])
    assert got["code_ops_10_10_seeds"] == pytest.approx([30 * 16 / 500] * 2)
    assert got["code_ops_50_10_seeds"] == pytest.approx([30 * 56 / 2500] * 2)
    assert got["ref_code_ops_10_10"] == pytest.approx(30 * 16 / 500) and got["ref_code_ops_10_10"] < 1
    w_low = np.full((1, 5, 1), 10.0)                                     # below the floor: charged as 28
    low = ap.code_counts({10: {"ps": np.array([0.1]), "window": w_low, "iterations": np.full((1, 5, 1), 10.0)}}, {},
                         [0.1])
    assert low["code_ops_10_10_seeds"] == pytest.approx([28 * 20 / 500]) and low["code_ops_10_10_seeds"][0] > 1


def test_extra_seeds_are_appended_row_by_row():
    from mfattn.structural import analysis_premises as ap

    base = {"ps": np.array([0.5, 0.04]), "seeds": np.array([0, 0]), "loss/expanding": np.zeros((2, 7)),
            "config": np.array("x")}
    extra = {"ps": np.array([0.04, 0.04]), "seeds": np.array([3, 4]), "loss/expanding": np.ones((2, 7)),
             "config": np.array("y")}
    got = ap.merge_runs(base, extra)
    assert got["ps"].tolist() == [0.5, 0.04, 0.04, 0.04] and got["seeds"].tolist() == [0, 0, 3, 4]
    assert got["loss/expanding"].shape == (4, 7) and got["config"] == np.array("x")
