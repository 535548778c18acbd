"""Other priors over edge sets (Singh & Buckley 2023, Sec. 6.1, App. A.8.2): binary edges with a factorised
Bernoulli prior (sigmoid gates, SiLU -> ReLU), temperature, relative positions; by enumeration."""

import itertools
import math

import pytest
import torch

from mfattn.structural import edge_priors as EP
from mfattn.structural import edges as S

torch.set_num_threads(1)
F64 = torch.float64


def test_binary_edge_sets_are_every_adjacency_matrix():
    sets = EP.enumerate_binary_edge_sets(2, 3)
    assert sets.shape == (64, 2, 3)
    assert len({tuple(s.flatten().tolist()) for s in sets}) == 64


def test_factorised_bernoulli_prior_gives_sigmoid_gates():
    """Plain-Python oracle: sum over all 2^(m n) adjacency matrices of prod rho^E (1 - rho)^(1 - E) e^{E s / T}."""
    g = torch.Generator().manual_seed(0)
    m, n = 2, 3
    s = 2 * torch.randn(m, n, generator=g, dtype=F64)
    u = torch.randn(n, 2, generator=g, dtype=F64)
    rho = torch.rand(m, n, generator=g, dtype=F64) * 0.8 + 0.1
    for temperature in (0.3, 1.0, 2.0):
        z, marg = 0.0, torch.zeros(m, n, dtype=F64)
        for bits in itertools.product((0, 1), repeat=m * n):
            e = torch.tensor(bits, dtype=F64).reshape(m, n)
            w = math.prod((rho[i, j] if e[i, j] else 1 - rho[i, j]).item() for i in range(m) for j in range(n))
            w *= math.exp((e * s).sum().item() / temperature)
            z += w
            marg += w * e
        marg /= z
        log_odds = torch.log(rho / (1 - rho))
        got, value = EP.binary_edges_brute_force(s, u, log_odds, temperature)
        assert (got - marg).abs().max().item() < 1e-12
        assert (EP.sigmoid_gate(s, log_odds, temperature) - marg).abs().max().item() < 1e-12
        assert (value - marg @ u).abs().max().item() < 1e-12
        assert (EP.gated_values(s, u, log_odds, temperature) - value).abs().max().item() < 1e-12
    # no normalisation over keys: a query can have several parents, or none
    assert (EP.sigmoid_gate(s).sum(-1) - 1).abs().max().item() > 0.1


def test_score_weighted_value_is_silu_and_tends_to_relu():
    g = torch.Generator().manual_seed(1)
    s = 3 * torch.randn(3, 4, generator=g, dtype=F64)
    u = torch.randn(4, 2, generator=g, dtype=F64)
    _, ffn = EP.binary_edges_brute_force(s, u, 0.0, 1.0, weight_by_score=True)
    assert (ffn - torch.nn.functional.silu(s) @ u).abs().max().item() < 1e-12
    grid = torch.linspace(-10, 10, 200001, dtype=F64)
    for t in (1.0, 0.1, 0.01):
        gap = (grid * torch.sigmoid(grid / t) - torch.relu(grid)).abs().max().item()
        assert abs(gap - EP.RELU_GAP * t) < 1e-6 * t  # grid spacing 1e-4: error ~ (1e-4 / t)^2 t
    # RELU_GAP solves u = 1 + e^{-u} and equals u sigma(-u) there
    u0 = 1.0
    for _ in range(100):
        u0 = 1 + math.exp(-u0)
    assert abs(EP.RELU_GAP - u0 / (1 + math.exp(u0))) < 1e-15


def test_relative_position_prior_is_an_additive_bias():
    g = torch.Generator().manual_seed(2)
    n = 5
    q, k, v = (torch.randn(n, 3, generator=g, dtype=F64) for _ in range(3))
    for causal in (True, False):
        bias = torch.randn(n if causal else 2 * n - 1, generator=g, dtype=F64)
        allowed, log_prior = EP.relative_position_log_prior(n, bias, causal)
        for i in range(n):
            for j in range(n):
                assert bool(allowed[i, j]) == (j <= i or not causal)
                if allowed[i, j]:
                    assert log_prior[i, j] == bias[i - j if causal else i - j + n - 1]
        brute = S.brute_force_graph_attention(q, k, v, allowed, 1.0, log_prior)
        scores = (q @ k.T + log_prior).masked_fill(~allowed, -math.inf)
        assert (brute - torch.softmax(scores, -1) @ v).abs().max().item() < 1e-12
    # ALiBi: b_{i-j} = -slope (i - j)
    allowed, log_prior = EP.relative_position_log_prior(n, -0.5 * torch.arange(n, dtype=F64))
    assert log_prior[4, 1].item() == -1.5


def test_temperature_limits():
    study = EP.priors_study(5, 3, [0.3, 1.0], 3, torch.Generator().manual_seed(0))
    assert max(study[k] for k in ("gate_error", "value_error", "ffn_error", "relpos_error")) < 1e-12
    assert study["temp_error"] < 1e-10  # scores up to ~1e3 at T = 1e-3
    assert study["hard_gap"] < 1e-6 and study["prior_gap"] < 0.05
    # hard attention directly: well-separated scores, T -> 0 gives the argmax parent's value
    from mfattn.structural import edges as S
    q = torch.tensor([[1.0, 0.0]], dtype=F64)
    k = torch.tensor([[0.9, 0.0], [0.5, 0.0], [0.0, 1.0]], dtype=F64)
    v = torch.tensor([[1.0], [2.0], [3.0]], dtype=F64)
    allowed = torch.ones(1, 3, dtype=torch.bool)
    assert abs(S.graph_attention(q, k, v, allowed, 1e3).item() - 1.0) < 1e-12
    assert abs(S.brute_force_graph_attention(q, k, v, allowed, 1e-6).item() - 2.0) < 1e-5
    assert abs(study["relu_gap"][1.0] - EP.RELU_GAP) < 1e-6


def test_edge_priors_bad_input():
    with pytest.raises(ValueError, match="m \\* n <= 16"):
        EP.enumerate_binary_edge_sets(4, 5)
    with pytest.raises(ValueError, match="temperature"):
        EP.sigmoid_gate(torch.zeros(2, 2), temperature=0.0)
    with pytest.raises(ValueError, match="bias must be a 1-D tensor of 4"):
        EP.relative_position_log_prior(4, torch.zeros(3))
