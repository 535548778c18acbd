"""What the fourth outside table of hostile calls (issue 44) found in chapter 4's modules (edge priors, Hopfield
memories, edge potentials) and in the grid check every ``reals`` contract uses: each is refused at the boundary
with a message naming the parameter (before: a result, or an error from inside torch)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.companion import checks
from mfattn.structural import edge_priors, hopfield, potentials


@pytest.mark.parametrize("values", [["0.1"], [True, False], np.array([True]), "0.5", np.array(["1.0"]), [b"1"]])
def test_a_grid_is_numbers_not_text_or_truth_values(values):
    with pytest.raises(TypeError, match=r"^betas must hold real numbers \(not text(, times)? or True/False\)"):
        checks.check_grid("betas", values)
    with pytest.raises(TypeError, match=r"^betas must hold real numbers"):
        hopfield.retrieval_grid(8, [2], values, 2, steps=2, fraction=0.5, seed=0)


def test_a_grid_of_numbers_still_passes():
    assert checks.check_grid("b", [1, 2.5]).tolist() == [1.0, 2.5]
    assert checks.check_grid("b", np.arange(3)).tolist() == [0.0, 1.0, 2.0]
    assert checks.check_grid("b", 3).tolist() == [3.0]


def _scores():
    return torch.randn(5, 5, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("flag", ["yes", 1, None])
def test_weight_by_score_is_true_or_false(flag):
    s = _scores()
    with pytest.raises(TypeError, match=r"^weight_by_score must be True or False"):
        edge_priors.gated_values(s, torch.randn(5, 3), log_odds=torch.zeros(5, 5), weight_by_score=flag)
    with pytest.raises(TypeError, match=r"^weight_by_score must be True or False"):
        edge_priors.binary_edges_brute_force(s[:2, :3], torch.randn(3, 2), weight_by_score=flag)


@pytest.mark.parametrize("shape", [(4,), (5, 4), (2, 5, 5)])
def test_log_odds_must_fit_the_scores(shape):
    with pytest.raises(ValueError, match=r"^log_odds must broadcast to the scores' shape \(5, 5\)"):
        edge_priors.sigmoid_gate(_scores(), log_odds=torch.zeros(shape))
    with pytest.raises(ValueError, match=r"^log_odds must broadcast"):
        edge_priors.gated_values(_scores(), torch.randn(5, 3), log_odds=torch.zeros(shape))


def test_gated_values_needs_one_value_per_key():
    with pytest.raises(ValueError, match=r"^values must have one row per key \(5"):
        edge_priors.gated_values(_scores(), torch.randn(4, 3))


def test_gates_of_valid_shapes_agree_with_enumeration():
    s = _scores()[:2, :3].double()
    lo = torch.zeros(3, dtype=torch.float64)                       # broadcast over the queries: valid
    marg, val = edge_priors.binary_edges_brute_force(s, torch.eye(3, dtype=torch.float64), lo)
    assert torch.allclose(marg, edge_priors.sigmoid_gate(s, lo), atol=1e-12)
    assert torch.allclose(val, edge_priors.gated_values(s, torch.eye(3, dtype=torch.float64), lo), atol=1e-12)


@pytest.mark.parametrize("limits, kind, pattern", [
    ((1.0, 0.1), ValueError, r"^limits must be \(T_low, T_high\) with T_low < T_high"),
    ((1.0, 1.0), ValueError, r"^limits must be \(T_low, T_high\) with T_low < T_high"),
    ((0.0, 1.0), ValueError, r"^limits\[0\] must be"),
    ((0.1, float("inf")), ValueError, r"^limits\[1\] must be"),
    ((0.1,), TypeError, r"^limits must be a pair"),
    ("ab", TypeError, r"^limits must be a pair"),
])
def test_priors_study_limits_are_an_ordered_pair_of_temperatures(limits, kind, pattern):
    with pytest.raises(kind, match=pattern):
        edge_priors.priors_study(4, 2, [1.0], 1, torch.Generator().manual_seed(0), limits=limits)


def test_relaxation_measures_against_a_later_reference():
    with pytest.raises(ValueError, match=r"^converged_steps must be at least steps \(3\)"):
        hopfield.relaxation(8, 2, 2, [1.0], 3, generator=torch.Generator().manual_seed(0), converged_steps=1)
    gap, rise = hopfield.relaxation(8, 2, 2, [1.0], 3, generator=torch.Generator().manual_seed(0), converged_steps=3)
    assert gap.shape == (4, 1, 2) and np.allclose(gap[-1], 0.0)


@pytest.mark.parametrize("active, kind, pattern", [
    (torch.zeros(8, dtype=torch.bool), ValueError, r"^active must have one entry per pattern \(3\)"),
    (torch.ones(7, dtype=torch.bool), ValueError, r"^active must have one entry per pattern \(3\)"),
    (torch.ones(3), TypeError, r"^active must be a bool tensor"),
])
def test_the_active_mask_has_one_entry_per_pattern(active, kind, pattern):
    pat = hopfield.random_patterns(3, 8, generator=torch.Generator().manual_seed(0))
    with pytest.raises(kind, match=pattern):
        hopfield.hopfield_update(pat[:1], pat, 1.0, active=active)
    with pytest.raises(kind, match=pattern):
        hopfield.hopfield_energy(pat[:1], pat, 1.0, active=active)
    ok = hopfield.hopfield_update(pat[:1], pat, 1.0, active=torch.tensor([True, False, True]))
    assert ok.shape == (1, 8)


def test_log_partition_needs_one_log_prior_per_edge():
    allowed = torch.ones(5, 5, dtype=torch.bool)
    with pytest.raises(ValueError, match=r"^log_prior must have the shape of allowed \(5, 5\)"):
        potentials.log_partition(_scores(), allowed, log_prior=torch.zeros(5, 4))
    with pytest.raises(ValueError, match=r"^log_prior must have the shape of allowed"):
        potentials.log_partition_enumerated(_scores()[:3, :3], allowed[:3, :3], log_prior=torch.zeros(3))
    assert torch.isfinite(potentials.log_partition(_scores(), allowed, log_prior=torch.zeros(5, 5)))


def test_gaussian_potentials_need_keys_of_the_nodes_dimension():
    x, allowed = torch.randn(3, 2), torch.ones(3, 4, dtype=torch.bool)
    with pytest.raises(ValueError, match=r"^k must have the dimension of x \(2\)"):
        potentials.gaussian_posterior(x, torch.randn(4, 3), allowed)
    with pytest.raises(ValueError, match=r"^k must have the dimension of x \(3\)"):
        potentials.collapsed_log_likelihood(torch.randn(3), torch.randn(4, 2))
    with pytest.raises(ValueError, match=r"^k must have the dimension of x"):
        potentials.laplace_step(torch.randn(3), torch.randn(4, 2))
    with pytest.raises(ValueError, match=r"^k must hold at least one parent"):
        potentials.collapsed_log_likelihood(torch.randn(2), torch.randn(0, 2))
    step, attention = potentials.laplace_step(torch.randn(2, dtype=torch.float64), torch.randn(4, 2, dtype=torch.float64))
    assert torch.allclose(step, attention, atol=1e-12)             # the chapter's identity, valid input


@pytest.mark.parametrize("beta", [1e-320, 1e-310])
def test_a_partition_function_beyond_float64_is_refused(beta):
    with pytest.raises(ValueError, match=r"^beta \(1e-3\d\d\), half_width \(12.0\) and k: the partition function or its quadrature leaves"):
        potentials.dot_potential_partition(torch.randn(3, dtype=torch.float64), beta=beta, half_width=12.0, points=2001)
    with pytest.raises(ValueError, match=r"partition function or its quadrature leaves float64's range"):
        potentials.dot_potential_partition(torch.tensor([40.0], dtype=torch.float64), beta=1.0, points=2001)
    quad, closed = potentials.dot_potential_partition(torch.tensor([0.5, -1.0], dtype=torch.float64), beta=2.0)
    assert torch.allclose(quad, closed, rtol=1e-10)
