"""Chapter 3's claims: a transformer block is one naive mean-field step; Onsager amortisation."""

import pytest
import torch

from mfattn.implicit.meanfield import MeanFieldAttention
from mfattn.implicit.transformer import (naive_contraction_rate, naive_trajectory, softmax_naive_fixed_point,
                                         to_multihead_attention, to_transformer_block, token_spread)
from mfattn.implicit.onsager import amortised_mean_field, fit_onsager_net, onsager_dataset, onsager_features

torch.set_num_threads(1)
F64 = torch.float64


def softmax_layer(heads=1, seed=0, n=7, d=6, **kw):
    return MeanFieldAttention(n, d, interaction="softmax", heads=heads,
                              generator=torch.Generator().manual_seed(seed), **kw).double()


def source(B=3, n=7, d=6, seed=1):
    return torch.randn(B, n, d, generator=torch.Generator().manual_seed(seed), dtype=F64)


@pytest.mark.parametrize("heads", [1, 2, 3])
def test_one_naive_step_is_an_attention_block_with_residual(heads):
    layer, x = softmax_layer(heads, lin_response=False), source()
    mha = to_multihead_attention(layer)
    with torch.no_grad():
        block = x + mha(x, x, x, need_weights=False)[0]
    step = naive_trajectory(layer, x, 1)[1]
    assert (step - block).abs().max() < 1e-12


@pytest.mark.parametrize("heads", [1, 2, 3])
def test_iterating_the_layer_is_a_stack_of_blocks_for_the_first_step_only(heads):
    """Step 1 of the naive iteration from m_0 = X is one attention block, X + MHA(X, X, X). Step 2 is not a
    second block on top of it: the iteration re-injects the source X (not m_1) and keeps the attention A that X
    set, so m_2 = X + MHA(X, X, m_1) (queries and keys from X, values from m_1), whereas a second block computes
    m_1 + MHA(m_1, m_1, m_1), attention recomputed from its own input. Both differences are far above rounding."""
    layer, x = softmax_layer(heads, lin_response=False), source()
    mha = to_multihead_attention(layer)

    def attn(q, v):                                    # queries and keys from q, values from v
        return mha(q, q, v, need_weights=False)[0]

    m = naive_trajectory(layer, x, 2)                   # (3, B, N, d): m_0 = X, m_1, m_2
    with torch.no_grad():
        block1 = x + attn(x, x)
        block2 = block1 + attn(block1, block1)          # two stacked identical blocks
        fixed_a = block1 + attn(x, block1)              # residual m_1, attention still from X
    rel = lambda a, b: ((a - b).norm() / b.norm()).item()  # noqa: E731
    assert (m[1] - block1).abs().max() < 1e-12         # step 1 = one block
    assert (m[2] - (x + attn(x, m[1]))).abs().max() < 1e-12   # step 2: X re-injected, A from X
    # Measured (heads 1-3, these seeds): m_2 differs from two blocks by 0.13 of its norm, more than the
    # 0.05 by which step 2 moves the state; 0.012-0.017 of it is the recomputed attention alone.
    assert rel(m[2], block2) > 0.05 and rel(m[2], block2) > rel(m[2], m[1])
    assert rel(fixed_a, block2) > 1e-3


@pytest.mark.parametrize("heads", [1, 2])
def test_two_corrected_steps_are_not_two_transformer_blocks(heads):
    # the same with the correction: step 1 is the encoder block (next test), step 2 is not block(block(X))
    layer, x = softmax_layer(heads, seed=2), source(seed=3)
    block = to_transformer_block(layer)
    m = naive_trajectory(layer, x, 2, lin_response=True)
    with torch.no_grad():
        two_blocks = block(block(x))
    assert (m[1] - block(x).detach()).abs().max() < 1e-12
    assert ((m[2] - two_blocks).norm() / two_blocks.norm()).item() > 0.1   # measured 0.22-0.24


@pytest.mark.parametrize("heads", [1, 2])
def test_one_corrected_step_is_a_transformer_block_without_layernorm(heads):
    # correction on g:  m1 = g - f(g),  g = x + Attn(x);  block: g + FFN(g) with FFN = -f.
    layer, x = softmax_layer(heads, seed=2), source(seed=3)
    block = to_transformer_block(layer)
    with torch.no_grad():
        expected = block(x)
    step = naive_trajectory(layer, x, 1, lin_response=True)[1]
    assert (step - expected).abs().max() < 1e-12


def test_naive_iterates_approach_the_deq_fixed_point_at_the_contraction_rate():
    layer, x = softmax_layer(seed=4, lin_response=False, tol=1e-13, max_iter=200), source(seed=5)
    with torch.no_grad():   # rescale W_O so that the Jacobian's spectral radius is 0.8
        layer.to_out.weight.mul_(0.8 / naive_contraction_rate(layer, x)[0])
    rho = naive_contraction_rate(layer, x)
    assert torch.allclose(rho, torch.full_like(rho, 0.8))
    # ρ(A ⊗ M) = ρ(M) for a row-stochastic A: the shortcut agrees with diagonalising (Nd)×(Nd).
    assert torch.allclose(naive_contraction_rate(layer, x, eigen=True), rho, rtol=1e-10)
    exact = softmax_naive_fixed_point(layer, x)
    with torch.no_grad():
        deq = layer(x)
    assert (deq - exact).abs().max() < 1e-11
    traj = naive_trajectory(layer, x, 100)
    dist = (traj - exact).flatten(2).norm(dim=-1)          # (101, B)
    # Asymptotic rate per step equals the spectral radius of the update's Jacobian (averaged
    # over a long window: complex eigenvalues make the distance oscillate).
    rate = (dist[100] / dist[40]) ** (1 / 60)
    assert torch.allclose(rate, rho, rtol=0.05)
    # One step (the transformer block) is far from the fixed point (it need not even be closer
    # than the input: the Jacobian A ⊗ W_O W_V is not normal, so errors can grow transiently).
    assert (dist[1] > 1e3 * dist[60]).all()


def test_dropping_the_residual_forgets_the_input_and_collapses_the_tokens():
    layer, x = softmax_layer(seed=6, lin_response=False), source(seed=7)
    assert (softmax_naive_fixed_point(layer, x, residual=False) == 0).all()
    no_res = naive_trajectory(layer, x, 30, residual=False)
    with_res = naive_trajectory(layer, x, 30, residual=True)
    # Without the source term every token converges to the same vector (rank collapse) ...
    assert (token_spread(no_res[30]) < 1e-6 * token_spread(x)).all()
    # ... while the fixed point with the source term keeps the tokens apart.
    assert (token_spread(with_res[30]) > 0.3 * token_spread(x)).all()


def test_adaptive_tap_dataset_and_amortised_correction():
    train = onsager_dataset(20, [0.3, 0.5], 6, seed=0)
    test = onsager_dataset(20, [0.4], 6, seed=1)
    assert train["dropped"] == 0 and train["c"].shape == (12, 20)
    # The targets satisfy the adaptive-TAP equations m = tanh(h + J m - V m).
    g = train["h"] + torch.einsum("bij,bj->bi", train["J"], train["m"])
    assert (train["m"] - torch.tanh(g - train["c"])).abs().max() < 1e-8
    net, losses = fit_onsager_net(train, "m+s", hidden=16, steps=300, seed=0)
    r2 = 1 - losses[-1] / train["c"].var().item()
    assert r2 > 0.95, r2
    m_amortised, st = amortised_mean_field(test["J"], test["h"], net, "m+s")
    m_naive, _ = amortised_mean_field(test["J"], test["h"], None)
    assert st.all_converged
    err = lambda m: (m - test["m"]).square().mean().sqrt()
    # In distribution, the learned correction brings naive mean field much closer to adaptive TAP.
    assert err(m_amortised) < 0.3 * err(m_naive)
    feats = onsager_features(test["J"], test["h"], test["m"], "g")
    assert feats.shape == (6, 20, 1)


def test_multi_head_couplings_are_block_diagonal_without_a_dense_output_projection():
    """Heads that each read and write their own slice of the d features (values=False, W_O = I) give couplings
    J_ij = blockdiag(A^1_ij I, ..., A^H_ij I); a dense output projection mixes the heads' slices, and
    J_ij = Σ_h A^h_ij W_O^h W_V^h is no longer block-diagonal."""
    from mfattn.implicit.transformer import off_head_block_fraction, softmax_couplings

    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 5, 6, generator=gen, dtype=torch.float64)
    layer = MeanFieldAttention(5, 6, interaction="softmax", heads=3, values=False, lin_response=False,
                               generator=gen).double()
    dense = off_head_block_fraction(softmax_couplings(layer, x), 3)
    with torch.no_grad():
        layer.to_out.weight.copy_(torch.eye(6, dtype=torch.float64))
    J = softmax_couplings(layer, x)
    assert off_head_block_fraction(J, 3) == 0.0 and dense > 0.5
    A = layer.attention_matrix(x)                                      # (B, 3, N, N)
    expected = torch.einsum("bhij,hcd->bijcd", A, torch.stack([torch.diag((torch.arange(6) // 2 == h).double())
                                                                 for h in range(3)]))
    torch.testing.assert_close(J, expected, rtol=0, atol=1e-15)
    # J is the layer's coupling: sum_j J_ij m_j is its update's sum over couplings.
    m = torch.randn(2, 5, 6, generator=gen, dtype=torch.float64)
    torch.testing.assert_close(torch.einsum("bijcd,bjd->bic", J, m), layer.sum_over_couplings(m, A), rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="heads must divide"):
        off_head_block_fraction(J, 4)


def test_a_standard_value_map_breaks_the_head_blocks_even_with_w_o_identity():
    """The referee's second alternative of transformer-multihead-blocks: a standard per-head value map W_V^h that
    reads all d features (values=True) writes outside the head blocks even with W_O = I, by about √(1 − 1/H) of ‖J‖_F
    for a random map (the share of a dense map's weight outside its block rows); five draws at H = 4, d = 16."""
    from mfattn.implicit.transformer import off_head_block_fraction, softmax_couplings

    shares = []
    for seed in range(5):
        gen = torch.Generator().manual_seed(seed)
        x = torch.randn(2, 5, 16, generator=gen, dtype=torch.float64)
        layer = MeanFieldAttention(5, 16, interaction="softmax", heads=4, values=True, lin_response=False,
                                   generator=gen).double()
        with torch.no_grad():
            layer.to_out.weight.copy_(torch.eye(16, dtype=torch.float64))
        shares.append(off_head_block_fraction(softmax_couplings(layer, x), 4))
    assert all(abs(x - (1 - 1 / 4) ** 0.5) < 0.05 for x in shares), shares


def test_softmax_and_learned_couplings_are_not_symmetric():
    """No energy stands behind softmax couplings or the MNIST layer's internally symmetric ones: the (Nd)x(Nd)
    coupling matrix is not symmetric (J_ij != J_jiᵀ), unlike the 'energy' symmetry that a Boltzmann
    distribution needs."""
    from mfattn.implicit.meanfield import symmetrise_couplings
    from mfattn.implicit.transformer import coupling_asymmetry, softmax_couplings

    gen = torch.Generator().manual_seed(4)
    x = torch.randn(1, 6, 4, generator=gen, dtype=torch.float64)
    soft = MeanFieldAttention(6, 4, interaction="softmax", lin_response=False, generator=gen).double()
    assert coupling_asymmetry(softmax_couplings(soft, x)) > 0.3
    W = torch.randn(6, 6, 4, 4, generator=gen, dtype=torch.float64)
    assert coupling_asymmetry(symmetrise_couplings(W, "internal")[None]) > 0.3      # the blog's MNIST layer
    assert coupling_asymmetry(symmetrise_couplings(W, "energy")[None]) < 1e-15
    assert coupling_asymmetry(symmetrise_couplings(W, "both")[None]) < 1e-15


def test_one_coupling_asymmetry_for_both_chapters_and_its_stated_values():
    """Chapters 2 and 3 quote one measure, ‖M − Mᵀ‖_F / ‖M + Mᵀ‖_F (the stored corr_asymmetry): the transformer
    module's name is the correction module's function, and the values its docstring states hold for batched
    (B, N, N, d, d) couplings too: 0 symmetric, inf antisymmetric, 1 for equal symmetric and antisymmetric parts."""
    from mfattn.implicit import correction, transformer
    from mfattn.implicit.meanfield import couplings_to_matrix

    assert transformer.coupling_asymmetry is correction.coupling_asymmetry
    W = torch.randn(2, 5, 5, 3, 3, generator=torch.Generator().manual_seed(7), dtype=F64)
    sym, anti = W + W.transpose(1, 2).transpose(3, 4), W - W.transpose(1, 2).transpose(3, 4)
    assert transformer.coupling_asymmetry(sym) == 0.0
    assert transformer.coupling_asymmetry(anti) == float("inf")
    assert transformer.coupling_asymmetry(sym / sym.norm() + anti / anti.norm()) == pytest.approx(1.0, abs=1e-12)
    # batched: the norms run over the batch, as for one stacked matrix per sample
    M = torch.stack([couplings_to_matrix(w) for w in W])
    expected = ((M - M.transpose(1, 2)).norm() / (M + M.transpose(1, 2)).norm()).item()
    assert transformer.coupling_asymmetry(W) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match=r"\(\.\.\., N, N, d, d\)"):
        transformer.coupling_asymmetry(torch.zeros(4, 5, 3, 3, dtype=F64))
