"""Attention as the posterior expectation over edge sets: exact identities by brute force."""

import itertools
import math

import pytest
import torch

from mfattn.structural import edges as S

torch.set_num_threads(1)
F64 = torch.float64


def _qkv(m, n, d=3, dv=2, batch=(), seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*batch, m, d, generator=g, dtype=F64), torch.randn(*batch, n, d, generator=g, dtype=F64),
            torch.randn(*batch, n, dv, generator=g, dtype=F64))


@pytest.mark.parametrize("mode,m,n", [("cross", 4, 6), ("cross", 6, 2), ("self", 6, 6), ("causal", 6, 6),
                                      ("self", 1, 1)])
def test_brute_force_equals_attention(mode, m, n):
    q, k, v = _qkv(m, n, batch=(3,), seed=m * 10 + n)
    for beta in (0.3, 1.0, 2.5):
        brute = S.brute_force_attention(q, k, v, mode, beta)
        attn = S.softmax_attention(q, k, v, mode, beta)
        assert brute.shape == attn.shape == (3, m, 2)
        assert (brute - attn).abs().max().item() < 1e-12


@pytest.mark.parametrize("mode,m,n", [("cross", 5, 4), ("self", 6, 6), ("causal", 6, 6)])
def test_factorised_marginals_equal_joint_enumeration(mode, m, n):
    q, k, _ = _qkv(m, n, batch=(2,), seed=7)
    joint = S.joint_edge_marginals(q, k, mode, 0.8)
    fact = S.factorised_edge_marginals(q, k, mode, 0.8)
    assert (joint - fact).abs().max().item() < 1e-12
    # The joint posterior itself factorises: p(E | x) = prod_i p(E_i | x) for every structure.
    structures, post = S.joint_structure_posterior(q, k, mode, 0.8)
    product = fact[..., torch.arange(m), structures].prod(-1)
    assert (post - product).abs().max().item() < 1e-14
    assert (post.sum(-1) - 1).abs().max().item() < 1e-13


def test_number_of_structures_and_prior():
    assert S.enumerate_structures(S.allowed_parents(3, 5, "cross")).shape == (5 ** 3, 3)
    assert S.enumerate_structures(S.allowed_parents(6, 6, "self")).shape == (6 ** 6, 6)
    assert S.enumerate_structures(S.allowed_parents(6, 6, "causal")).shape == (math.factorial(6), 6)
    allowed = S.allowed_parents(5, 5, "causal")
    structures = S.enumerate_structures(allowed)
    assert len({tuple(r) for r in structures.tolist()}) == structures.shape[0]  # no duplicates
    assert bool(allowed[torch.arange(5), structures].all())  # every edge allowed
    assert abs(S.structure_log_prior(structures, allowed).exp().sum().item() - 1) < 1e-13


def test_against_enumeration_of_all_binary_adjacency_matrices():
    """An independent oracle in plain Python: sum over all 2^(m n) adjacency matrices, the prior
    putting mass 1/|A_i| on each row that is one-hot inside the allowed set and zero elsewhere."""
    m = n = 3
    q, k, v = _qkv(m, n, seed=3)
    beta = 0.9
    for mode in ("self", "causal"):
        allowed = S.allowed_parents(m, n, mode).tolist()
        num = [[0.0] * v.shape[1] for _ in range(m)]
        den = 0.0
        for bits in itertools.product((0, 1), repeat=m * n):
            adj = [bits[i * n:(i + 1) * n] for i in range(m)]
            prior = 1.0
            for i in range(m):
                if sum(adj[i]) != 1 or any(adj[i][j] and not allowed[i][j] for j in range(n)):
                    prior = 0.0
                    break
                prior /= sum(allowed[i])
            if prior == 0.0:
                continue
            log_lik = sum(beta * float(q[i] @ k[j]) for i in range(m) for j in range(n) if adj[i][j])
            w = prior * math.exp(log_lik)
            den += w
            for i in range(m):
                j = adj[i].index(1)
                for c in range(v.shape[1]):
                    num[i][c] += w * float(v[j, c])
        oracle = torch.tensor(num, dtype=F64) / den
        assert (S.brute_force_attention(q, k, v, mode, beta) - oracle).abs().max().item() < 1e-12


def test_causal_output_ignores_the_future():
    q, k, v = _qkv(5, 5, seed=11)
    out = S.brute_force_attention(q, k, v, "causal")
    k2, v2 = k.clone(), v.clone()
    k2[3:] += 5.0
    v2[3:] -= 7.0
    out2 = S.brute_force_attention(q, k2, v2, "causal")
    assert (out[:3] - out2[:3]).abs().max().item() < 1e-14
    assert (out[3:] - out2[3:]).abs().max().item() > 0.1


def test_bad_input_raises_clear_errors():
    q, k, v = _qkv(7, 7)
    with pytest.raises(ValueError, match="at most 6"):
        S.brute_force_attention(q, k, v, "self")
    assert S.softmax_attention(q, k, v, "self").shape == (7, 2)  # plain attention has no size limit
    q, k, v = _qkv(3, 4)
    with pytest.raises(ValueError, match="mode must be one of"):
        S.brute_force_attention(q, k, v, "sideways")
    with pytest.raises(ValueError, match="n_queries must equal n_keys"):
        S.brute_force_attention(q, k, v, "self")
    with pytest.raises(ValueError, match="same number of tokens"):
        S.brute_force_attention(q, k, v[:3], "cross")
    with pytest.raises(ValueError, match="last .feature. dimension"):
        S.brute_force_attention(q, k[:, :2], v, "cross")
    with pytest.raises(TypeError, match="floating-point"):
        S.brute_force_attention(q.long(), k, v, "cross")
    with pytest.raises(ValueError, match="without any possible parent"):
        S.enumerate_structures(torch.zeros(2, 2, dtype=torch.bool))


def test_exclusive_prior_does_not_factorise():
    """Forbidding shared parents couples the queries: the marginals become doubly stochastic and
    differ from the per-query softmax; Sinkhorn is close to, but not equal to, the exact marginals."""
    q, k, v = _qkv(5, 5, batch=(4,), seed=21)
    exact = S.joint_edge_marginals(q, k, "self", 1.5, prior="exclusive")
    assert (exact.sum(-1) - 1).abs().max().item() < 1e-12
    assert (exact.sum(-2) - 1).abs().max().item() < 1e-12
    soft = S.factorised_edge_marginals(q, k, "self", 1.5)
    assert (exact - soft).abs().max().item() > 0.05
    brute = S.brute_force_attention(q, k, v, "self", 1.5, prior="exclusive")
    assert (brute - exact @ v).abs().max().item() < 1e-12  # the value is still linear in the marginals
    sink = S.sinkhorn_edge_marginals(q, k, 1.5)
    assert (sink.sum(-2) - 1).abs().max().item() < 1e-10 and (sink.sum(-1) - 1).abs().max().item() < 1e-10
    assert (sink - exact).abs().max().item() < (soft - exact).abs().max().item()
    # Fewer queries than keys: rows sum to one, every key has at most one child on average.
    q, k, _ = _qkv(3, 5, seed=22)
    exact = S.joint_edge_marginals(q, k, "cross", 1.0, prior="exclusive")
    assert (exact.sum(-1) - 1).abs().max().item() < 1e-12 and exact.sum(-2).max().item() <= 1 + 1e-12
    with pytest.raises(ValueError, match="prior must be one of"):
        S.joint_edge_marginals(q, k, "cross", 1.0, prior="dense")
    q, k, _ = _qkv(4, 2, seed=23)
    with pytest.raises(ValueError, match="distinct parents"):
        S.joint_edge_marginals(q, k, "cross", 1.0, prior="exclusive")


def test_graph_drawing_matches_the_priors():
    """The candidate edges drawn for cross/self/causal attention are the support of the prior, and
    every drawn edge set has one parent per query inside it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mfattn.structural import graphs as graphs_figure

    panels = {p.title.split(" ", 1)[1]: p for p in graphs_figure.mechanism_panels()}
    for title, mode in (("cross-attention", "cross"), ("self-attention", "self"), ("causal attention", "causal")):
        panel = panels[title]
        m = sum(name.startswith("q") for name in panel.nodes)
        n = sum(name.startswith("k") for name in panel.nodes)
        drawn = torch.zeros(m, n, dtype=torch.bool)
        for src, dst in panel.candidates:
            drawn[int(dst[1:]), int(src[1:])] = True
        assert torch.equal(drawn, S.allowed_parents(m, n, mode))
        children = [dst for _, dst in panel.chosen]
        assert sorted(children) == sorted(set(children)) and len(children) == m
        assert set(panel.chosen) <= set(panel.candidates)
    fig = graphs_figure.draw_mechanisms()
    drawn_axes = [ax for ax in fig.axes if ax.patches]
    assert len(drawn_axes) == len(panels) == 8
    plt.close(fig)
    with pytest.raises(ValueError, match="ncols"):
        graphs_figure.draw_mechanisms(ncols=0)
