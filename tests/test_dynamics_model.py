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


def test_sigma_expansion_of_eq16_equals_sum_over_column_classes(model):
    # The paper's Eq. 16 writes the mean field through the weights' correlations: with σ ∈ {±1}^M, σ_0 = +1
    # (tanh is odd, so σ and −σ pair up), s^x_a = 2^{-(M-1)} Σ_σ [Σ_{S odd} σ_S <W^o_S W^x_a>] tanh(β σ·A),
    # where S runs over the subsets of odd size of the M features (for M = 3: the three pairs <W^o_b W^x_a>
    # and the quadruple <W^o_0 W^o_1 W^o_2 W^x_a>). It must equal our sum over column classes.
    import itertools

    W = {x: model.weights[x][:, :99] for x in "ovkq"}
    M = 3
    odd = [S for r in range(1, M + 1, 2) for S in itertools.combinations(range(M), r)]
    sigmas = np.array([(1,) + s for s in itertools.product((1, -1), repeat=M - 1)], dtype=float)  # (2^{M-1}, M)
    rng = np.random.default_rng(5)
    for beta in (0.3, 1.26405, 3.0):
        A = rng.uniform(-1, 1, M)
        T = np.tanh(beta * sigmas @ A)
        expansion = []
        for x in "ovkq":
            corr = np.array([[np.mean(np.prod(W["o"][list(S)], axis=0) * W[x][a]) for a in range(M)] for S in odd])
            sign = np.array([[np.prod(s[list(S)]) for S in odd] for s in sigmas])        # σ_S
            expansion.append((sign @ corr).T @ T / 2 ** (M - 1))
        ours = model.coef @ np.tanh(beta * model.o_classes @ A)
        np.testing.assert_allclose(np.concatenate(expansion), ours, atol=1e-14)


def test_symmetrised_models_have_symmetric_couplings_and_the_papers_forcing():
    from mfattn.dynamics.model import symmetrised_model
    base = paper_model()
    ov, qk = symmetrised_model("output-value"), symmetrised_model("query-key")
    np.testing.assert_array_equal(ov.correlation("v"), ov.correlation("o"))  # C^{ov} = C^{oo}: J symmetric
    assert not np.allclose(base.correlation("v"), base.correlation("o"))     # the paper's is not
    M = base.num_features
    rows = lambda m, x: m.class_sign[{"o": 0, "v": 1, "k": 2, "q": 3}[x] * M:][:M]  # noqa: E731
    np.testing.assert_array_equal(rows(qk, "k"), rows(qk, "q"))
    np.testing.assert_array_equal(ov.positional, base.positional)            # the forcing is untouched
    with pytest.raises(ValueError, match="which"):
        symmetrised_model("key-value")
