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
    return {"plain_damped_50_converged_seeds": list(d50), "plain_damped_25_converged_seeds": list(d25),
            "blog_anderson_converged_seeds": list(anderson)}


def test_the_damped_plain_rule_reaches_every_outcome():
    assert damped_plain(_s((0.0, 0.1, 0.0), (0.2, 0.49, 0.3))) == "holds"
    assert damped_plain(_s((0.0, 0.5, 0.0), (0.2, 0.1, 0.3))) == "partly"      # half at damping 0.5 in one seed
    assert damped_plain(_s((0.0, 0.1, 0.98), (0.2, 0.1, 0.3))) == "fails"      # as often as Anderson there
    with pytest.raises(verdicts.Undecidable, match="Anderson"):
        damped_plain(_s((0.0,) * 3, (0.0,) * 3, anderson=(0.99, 0.89, 1.0)))
    with pytest.raises(verdicts.Undecidable, match="no damped"):
        damped_plain({})
    assert "does not rescue" in damped_text(_s((0.0,) * 3, (0.0,) * 3))
    assert "does not rescue" not in damped_text(_s((0.0, 0.6, 0.0), (0.0,) * 3)) and damped_text({}) == ""
