"""The sixth outside table's rows in chapter 4's computing modules, refused at the boundary by name."""

from __future__ import annotations

import math

import pytest
import torch

from mfattn.structural import edges


def _qkv():
    g = torch.Generator().manual_seed(2)
    return tuple(torch.randn(3, 2, generator=g, dtype=torch.float64) for _ in range(3))


@pytest.mark.parametrize("log_prior, error, words", [
    (torch.zeros(3, 3, dtype=torch.bool), TypeError, "log_prior must be a real floating-point"),    # b0384
    (torch.zeros(3, 3, dtype=torch.int64), TypeError, "log_prior must be a real floating-point"),
    (torch.full((3, 3), math.nan, dtype=torch.float64), ValueError, "NaN or \\+inf"),
    (torch.full((3, 3), math.inf, dtype=torch.float64), ValueError, "NaN or \\+inf"),
])
def test_graph_attention_takes_log_probabilities_only(log_prior, error, words):
    q, k, v = _qkv()
    with pytest.raises(error, match=words):
        edges.graph_attention(q, k, v, edges.allowed_parents(3, 3, "self"), log_prior=log_prior)


def test_graph_attention_takes_a_prior_of_zero_as_minus_infinity():
    q, k, v = _qkv()
    allowed = torch.ones(3, 3, dtype=torch.bool)
    prior = torch.zeros(3, 3, dtype=torch.float64)
    prior[:, 0] = -math.inf   # no edge to key 0: as if it were not allowed
    got = edges.graph_attention(q, k, v, allowed, log_prior=prior)
    masked = allowed.clone()
    masked[:, 0] = False
    assert torch.equal(got, edges.graph_attention(q, k, v, masked))
