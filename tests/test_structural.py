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
    """Every one of the eight panels: the candidate edges are the support of its prior, the drawn edge set
    lies in that support with the right number of parents, observed/inferred nodes are the model's, and the
    figure draws exactly each panel's nodes and edges."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mfattn.structural import graphs as graphs_figure

    panel_list = graphs_figure.mechanism_panels()
    panels = {p.title.split(" ", 1)[1]: p for p in panel_list}
    assert list(panels) == ["cross-attention", "self-attention", "causal attention", "modern Hopfield",
                            "slot attention", "predictive coding", "multi-hop", "expanding attention"]
    for panel in panel_list:
        assert set(panel.chosen) <= set(panel.candidates), panel.title
        assert all(src in panel.nodes and dst in panel.nodes for src, dst in panel.candidates + panel.fixed)

    def parents(panel, child):
        return [src for src, dst in panel.chosen if dst == child]

    def observed(panel, prefix):
        return {name: panel.nodes[name][3] for name in panel.nodes if name.startswith(prefix)}

    # (a)-(c): one parent per query inside the mechanism's mask
    for title, mode in (("cross-attention", "cross"), ("self-attention", "self"), ("causal attention", "causal")):
        panel = panels[title]
        m = sum(name.startswith("q") for name in panel.nodes)
        n = sum(name.startswith("k") for name in panel.nodes)
        drawn = torch.zeros(m, n, dtype=torch.bool)
        for src, dst in panel.candidates:
            drawn[int(dst[1:]), int(src[1:])] = True
        assert torch.equal(drawn, S.allowed_parents(m, n, mode))
        assert all(len(parents(panel, f"q{i}")) == 1 for i in range(m))
        assert all(v[3] for v in panel.nodes.values())  # queries and keys are observed
    # (d) Hopfield: the inferred state has every stored (observed) pattern as candidate parent, one chosen
    hop = panels["modern Hopfield"]
    patterns = observed(hop, "m")
    assert all(patterns.values()) and not hop.nodes["s"][3]
    assert sorted(hop.candidates) == sorted((m, "s") for m in patterns) and len(parents(hop, "s")) == 1
    # (e) slots: every observed point may have any inferred slot as parent; exactly one each
    sl = panels["slot attention"]
    points, slot_nodes = observed(sl, "x"), observed(sl, "s")
    assert all(points.values()) and not any(slot_nodes.values())
    assert sorted(sl.candidates) == sorted((s_, x) for x in points for s_ in slot_nodes)
    assert all(len(parents(sl, x)) == 1 for x in points)
    # (f) predictive coding: inferred x, one active synapse among the observed predictions, fixed x -> y
    pc_ = panels["predictive coding"]
    assert not pc_.nodes["x"][3] and pc_.nodes["y"][3] and all(observed(pc_, "z").values())
    assert sorted(pc_.candidates) == sorted((z, "x") for z in observed(pc_, "z"))
    assert len(parents(pc_, "x")) == 1 and pc_.fixed == [("x", "y")]
    # (g) multi-hop: the query's parent a_j, and a grandparent b_k (k != j) of the chosen parent
    mh_ = panels["multi-hop"]
    (a,) = parents(mh_, "q")
    (b,) = parents(mh_, a)
    assert a.startswith("a") and b.startswith("b") and a[1:] != b[1:]
    assert all(src[1:] != dst[1:] for src, dst in mh_.candidates if dst.startswith("a"))
    assert {(f"a{j}", "q") for j in range(4)} <= set(mh_.candidates)
    # (h) expanding: every earlier token may be the parent, with a geometric prior over the distance
    ex_ = panels["expanding attention"]
    tokens = sorted(observed(ex_, "t"), key=lambda t: int(t[1:]))
    assert sorted(ex_.candidates) == sorted((t, "q") for t in tokens) and len(parents(ex_, "q")) == 1
    w = [ex_.weights[(t, "q")] for t in tokens]
    ratios = [w[i] / w[i + 1] for i in range(len(w) - 1)]
    assert w[-1] == 1.0 and max(abs(r - ratios[0]) for r in ratios) < 1e-12 and ratios[0] < 1
    # the figure draws each panel completely: one circle per node, one arrow per candidate or fixed edge
    fig = graphs_figure.draw_mechanisms()
    drawn_axes = [ax for ax in fig.axes if ax.patches]
    assert len(drawn_axes) == len(panel_list) == 8
    for ax, panel in zip(drawn_axes, panel_list):
        assert ax.get_title() == panel.title
        assert len(ax.patches) == len(panel.nodes) + len(panel.candidates) + len(panel.fixed), panel.title
    plt.close(fig)
    with pytest.raises(ValueError, match="ncols"):
        graphs_figure.draw_mechanisms(ncols=0)


# ---------------------------------------------------------------- graph attention: an arbitrary mask
def test_graph_attention_on_a_random_mask_equals_enumeration():
    """Posterior expectation over every edge set inside a random mask (plain-Python oracle over the mask's
    edge sets, independent of the package's enumeration) = masked softmax attention."""
    g = torch.Generator().manual_seed(5)
    for density in (0.25, 0.5):
        allowed = S.random_allowed(5, 6, density, g)
        assert bool(allowed.any(-1).all()) and not bool(allowed.all())
        q, k, v = _qkv(5, 6, seed=int(density * 100))
        beta = 0.7
        rows = [torch.nonzero(allowed[i]).flatten().tolist() for i in range(5)]
        num, den = torch.zeros(5, v.shape[1], dtype=F64), 0.0
        for parents in itertools.product(*rows):
            w = math.exp(sum(beta * float(q[i] @ k[j]) for i, j in enumerate(parents)))  # uniform prior: constant
            den += w
            for i, j in enumerate(parents):
                num[i] += w * v[j]
        oracle = num / den
        assert S.enumerate_structures(allowed).shape[0] == math.prod(len(r) for r in rows)
        assert (S.brute_force_graph_attention(q, k, v, allowed, beta) - oracle).abs().max().item() < 1e-12
        assert (S.graph_attention(q, k, v, allowed, beta) - oracle).abs().max().item() < 1e-12
    # the mechanisms' masks are special cases
    q, k, v = _qkv(4, 4, batch=(2,), seed=9)
    for mode in ("self", "causal"):
        allowed = S.allowed_parents(4, 4, mode)
        assert (S.graph_attention(q, k, v, allowed) - S.softmax_attention(q, k, v, mode)).abs().max().item() < 1e-14
    study = S.mask_study(5, 3, 0.8, 4, 0.4, torch.Generator().manual_seed(0))
    assert max(study["errors"]) < 1e-12 and len(set(study["n_structures"])) > 1


def test_graph_attention_with_a_non_uniform_prior():
    """A factorised prior pi_ij ∝ exp(b_ij) on the mask adds b_ij to the scores (normalised over A_i)."""
    g = torch.Generator().manual_seed(1)
    allowed = S.random_allowed(4, 5, 0.5, g)
    log_prior = torch.randn(4, 5, generator=g, dtype=F64)
    q, k, v = _qkv(4, 5, seed=2)
    brute = S.brute_force_graph_attention(q, k, v, allowed, 1.3, log_prior)
    scores = (1.3 * q @ k.T + log_prior).masked_fill(~allowed, -math.inf)
    assert (brute - torch.softmax(scores, -1) @ v).abs().max().item() < 1e-12
    assert (S.graph_attention(q, k, v, allowed, 1.3, log_prior) - brute).abs().max().item() < 1e-12
    # ...and it differs from the uniform prior
    assert (brute - S.graph_attention(q, k, v, allowed, 1.3)).abs().max().item() > 1e-2


def test_graph_attention_rejects_bad_masks():
    q, k, v = _qkv(3, 4)
    with pytest.raises(ValueError, match=r"allowed must have shape .* \(3, 4\)"):
        S.graph_attention(q, k, v, torch.ones(4, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="allowed leaves queries \\[1\\]"):
        S.graph_attention(q, k, v, torch.tensor([[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 1, 0]], dtype=torch.bool))
    with pytest.raises(TypeError, match="allowed must be a bool"):
        S.brute_force_graph_attention(q, k, v, torch.ones(3, 4))
    with pytest.raises(ValueError, match="log_prior must have shape"):
        S.graph_attention(q, k, v, torch.ones(3, 4, dtype=torch.bool), log_prior=torch.zeros(4, 4))
