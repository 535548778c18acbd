"""deq-anderson-plain's damped-plain control: the measurement (seed_numbers.damped_plain_converged) against a damped
loop written here, and its rule (claims_deq_plain) at every outcome."""

import numpy as np
import pytest
import torch

from mfattn.companion import verdicts
from mfattn.implicit import seed_numbers
from mfattn.implicit.claims_deq_plain import damped_plain, damped_text
from mfattn.implicit.models import MeanFieldMNIST


def _hand_min_residual(layer, x, damping, evals=40):
    """Per sample, the smallest ‖f(m) − m‖ / ‖f(m)‖ over ``evals`` evaluations of m ← (1 − a) m + a f(m)."""
    m = torch.zeros_like(x) if layer.init == "zeros" else x.clone()
    best = torch.full((x.shape[0],), float("inf"), dtype=torch.float64)
    for _ in range(evals):
        fm = layer.update(m, x)
        rel = (fm - m).flatten(1).norm(dim=1) / (fm.flatten(1).norm(dim=1) + 1e-12)
        best = torch.minimum(best, rel.double())
        m = (1 - damping) * m + damping * fm
    return best.numpy()


@torch.no_grad()
def test_damped_plain_converged_is_a_damped_loop():
    torch.manual_seed(3)
    model = MeanFieldMNIST().double().eval()     # float64: the residuals compared sit far above round-off
    for p in model.attention.parameters():
        p.mul_(2.0)                               # couplings strong enough that 40 damped steps leave ~1e-5
    x = model.sources(torch.rand(12, 1, 28, 28, dtype=torch.float64))
    x = x * torch.linspace(0.2, 3.0, 12, dtype=torch.float64)[:, None, None]
    for a in seed_numbers.PLAIN_DAMPINGS:
        best = _hand_min_residual(model.attention, x, a)
        tol = float(np.median(best)) * 1.0001      # about half the samples reach it
        got = seed_numbers.damped_plain_converged(model.attention, x, a, tol=tol)
        assert got.dtype == bool and 0 < got.sum() < got.size
        assert np.array_equal(got, best < tol)
    assert model.attention.solver == "anderson"     # the model's own layer is left as it was


def _s(d50, d25, anderson=(0.99, 1.0, 0.98)):
    """Anderson's shares at the blog's 40 evaluations as given; at 100 all 1 (the control must be read at 40)."""
    return {"plain_damped_50_converged_seeds": list(d50), "plain_damped_25_converged_seeds": list(d25),
            "blog_anderson_converged_40_seeds": list(anderson), "blog_anderson_converged_seeds": [1.0] * 3}


def test_the_damped_plain_rule_reaches_every_outcome():
    assert damped_plain(_s((0.0, 0.1, 0.0), (0.2, 0.49, 0.3))) == "holds"
    assert damped_plain(_s((0.0, 0.5, 0.0), (0.2, 0.1, 0.3))) == "partly"      # half at damping 0.5 in one seed
    assert damped_plain(_s((0.0, 0.1, 0.98), (0.2, 0.1, 0.3))) == "fails"      # as often as Anderson there
    # Anderson below the 90 % line in a seed: the comparison holds at most with differences; below half it has no
    # reference at all (the positive control failed)
    assert damped_plain(_s((0.0,) * 3, (0.0,) * 3, anderson=(0.99, 0.89, 1.0))) == "partly"
    with pytest.raises(verdicts.Undecidable, match="Anderson"):
        damped_plain(_s((0.0,) * 3, (0.0,) * 3, anderson=(0.99, 0.49, 1.0)))
    with pytest.raises(verdicts.Undecidable, match="no damped"):
        damped_plain({})
    at_100_only = _s((0.0,) * 3, (0.0,) * 3)
    del at_100_only["blog_anderson_converged_40_seeds"]
    with pytest.raises(verdicts.Undecidable, match="100 evaluations only"):
        damped_plain(at_100_only)
    assert "does not rescue" in damped_text(_s((0.0,) * 3, (0.0,) * 3))
    assert "does not rescue" not in damped_text(_s((0.0, 0.6, 0.0), (0.0,) * 3)) and damped_text({}) == ""


def test_the_reference_anderson_solves_a_linear_contraction_and_pools_the_batch():
    """The public code's algorithm written from its description: on z = A z + b with ρ(A) < 1 it reaches the batch's
    relative tolerance (one residual for the whole batch) and its iterate is the solution; a batch with one sample far
    from converging keeps the whole batch iterating."""
    from mfattn.implicit import reference_solver
    gen = torch.Generator().manual_seed(0)
    A = torch.randn(6, 6, generator=gen, dtype=torch.float64)
    A = 0.9 * A / torch.linalg.eigvals(A).abs().max()
    b = torch.randn(4, 6, generator=gen, dtype=torch.float64)
    x, res = reference_solver.reference_anderson(lambda z: z @ A.T + b, torch.zeros(4, 6,
                                                                          dtype=torch.float64), max_iter=60, tol=1e-6)
    exact = torch.linalg.solve(torch.eye(6, dtype=torch.float64) - A, b.T).T
    assert res[-1] < 1e-6 and torch.allclose(x, exact, atol=1e-5)   # the absolute ridge 1e-4 limits the accuracy
    assert len(res) <= 58                                          # at most max_iter evaluations in all
    _, short = reference_solver.reference_anderson(lambda z: z @ A.T + b, torch.zeros(4, 6, dtype=torch.float64),
                                                   max_iter=5, tol=1e-10)
    assert len(short) == 3 and short[-1] > 1e-10                   # 2 evaluations to start, then one per step
    with pytest.raises(TypeError, match="x0"):
        reference_solver.reference_anderson(lambda z: z, torch.zeros(6))


def test_the_chance_cosine_is_the_cosine_with_random_site_shared_maps():
    """f built from m by a fixed site-shared map has |cos| 1 with that map and a spread of values with random ones; the
    median over the draws is what a loop written here gives, and the same seed gives the same numbers."""
    gen = torch.Generator().manual_seed(1)
    m = torch.randn(5, 7, 4, generator=gen, dtype=torch.float64)
    f = torch.randn(5, 7, 4, generator=gen, dtype=torch.float64)
    got = seed_numbers.chance_cosine(f, m, draws=50, seed=3)
    g2 = torch.Generator().manual_seed(3)
    by_hand = []
    for _ in range(50):
        r = m @ torch.randn(4, 4, generator=g2, dtype=torch.float64).T
        by_hand.append(abs(float((r * f).sum() / (r.norm() * f.norm()))))
    assert got["median"] == pytest.approx(float(np.median(by_hand)), rel=1e-12)
    assert 0 <= got["median"] <= got["q95"] <= 1 and got == seed_numbers.chance_cosine(f, m, draws=50, seed=3)
