"""The paper's model (mfattn.dynamics.model): seed-1 weights, column classes, initial token."""

import numpy as np
import pytest

from mfattn.dynamics.model import paper_model, paper_weights


@pytest.fixture(scope="module")
def model():
    return paper_model()


def test_seed1_correlations_and_token(model):
    # The fixtures: C^o over semantic units and m^v_0 of the initial token (seed 1).
    third = 1 / 3
    expected = np.array([[1, third, third], [third, 1, -third], [third, -third, 1]])
    np.testing.assert_allclose(model.correlation("o"), expected, atol=1e-15)
    M = model.num_features
    np.testing.assert_allclose(model.token[M:2 * M], [0.346535, 0.326733, 0.980198], atol=5e-7)
    # exact fractions: 35/101, 33/101, 99/101
    np.testing.assert_allclose(model.token[M:2 * M], np.array([35, 33, 99]) / 101, rtol=0, atol=1e-15)


def test_weights_are_pm1_segments():
    W = paper_weights()
    for x in "ovqk":
        assert W[x].shape == (3, 101)
        assert set(np.unique(W[x])) <= {-1.0, 1.0}
        for a in range(3):  # three constant segments of 33 semantic units
            for s in range(3):
                assert np.unique(W[x][a, 33 * s:33 * (s + 1)]).size == 1


def test_mean_field_sum_over_columns_matches_direct_sum(model):
    # s^x(A) = (1/N_SE) Σ_i W^x_i tanh(β W^o_i·A) over all 99 units == the class sum of the map.
    W = model.weights
    rng = np.random.default_rng(3)
    A = rng.uniform(-1, 1, 3)
    beta = 1.7
    direct = {x: W[x][:, :99] @ np.tanh(beta * W["o"][:, :99].T @ A) / 99 for x in "ovkq"}
    T = np.tanh(beta * model.o_classes @ A)
    s = model.coef @ T
    np.testing.assert_allclose(s, np.concatenate([direct[x] for x in "ovkq"]), atol=1e-15)


def test_bad_model_input():
    with pytest.raises(ValueError, match="context_size L must be a power of two"):
        paper_model(context_size=3)
    with pytest.raises(ValueError, match="token_index must be in"):
        paper_model(token_index=3)
