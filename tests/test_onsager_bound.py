"""The stand-in's bound (mfattn.implicit.onsager_bound): the binned conditional mean and the single coefficient
against closed forms on made-up data, and the bound of a real (tiny) SK data set."""

from __future__ import annotations

import pytest
import torch

from mfattn.implicit import onsager, onsager_bound as ob


def _data(c_of_g, betas=(0.3, 0.6), instances=40, n=8, seed=0):
    """A data set whose correction is a known function of g = h + J m: J = 0, so g = h."""
    gen = torch.Generator().manual_seed(seed)
    beta = torch.tensor(betas, dtype=torch.float64).repeat_interleave(instances)
    h = torch.randn(beta.numel(), n, generator=gen, dtype=torch.float64)
    m = torch.tanh(h)
    return {"J": torch.zeros(beta.numel(), n, n, dtype=torch.float64), "h": h, "m": m, "c": c_of_g(h, beta[:, None]),
            "beta": beta}


def test_a_linear_correction_is_found_by_both_and_a_nonlinear_one_only_by_the_bins():
    lin = ob.binned_bound(_data(lambda g, b: 2 * g + 0 * b), _data(lambda g, b: 2 * g + 0 * b, seed=1), "g", 50)
    assert lin["linear"] < 1e-12 and lin["binned"] < 0.2         # c = a·g: the coefficient exactly, the bins near it
    even = ob.binned_bound(_data(lambda g, b: g * g), _data(lambda g, b: g * g, seed=1), "g", 50)
    assert even["linear"] > 0.95                               # no coefficient fits an even function of g
    assert even["binned"] < 0.3                                # fifty bins of a smooth function come close


def test_the_bins_are_fitted_with_every_beta_weighted_alike():
    """c = β³·g: per β a different slope; one coefficient weighted alike over the two β, and the piecewise-constant
    mean (which sees only g), both leave the same relative error at each β in the limit: the bound cannot use β."""
    got = ob.binned_bound(_data(lambda g, b: b ** 3 * g, instances=200), _data(lambda g, b: b ** 3 * g, instances=200,
                                                                                  seed=1), "g", 20)
    assert got["binned"] == pytest.approx(got["linear"], abs=0.05) and got["linear"] > 0.3


def test_ranges_run_from_the_largest_beta_down_and_site_variable_refuses_other_inputs():
    d = _data(lambda g, b: b * g)
    rows = ob.range_bounds(d, _data(lambda g, b: b * g, seed=1), "g", bins=(10, 20))
    assert [r["low"] for r in rows] == [0.6, 0.3] and set(rows[0]["binned_by_bins"]) == {"10", "20"}
    with pytest.raises(ValueError, match="inputs"):
        ob.site_variable(d, "m+s")


def test_on_a_tiny_sk_data_set_the_bound_of_g_is_near_its_single_coefficient():
    train = onsager.onsager_dataset(16, [0.2, 0.6], 6, seed=0)
    test = onsager.onsager_dataset(16, [0.2, 0.6], 4, seed=1)
    got = ob.binned_bound(train, test, "g", 10)
    assert 0 < got["binned"] < 1.5 and 0 < got["linear"] < 1.0


def test_the_two_part_stand_in_finds_what_the_sum_hides():
    """c = h·(Σ_j J_ij m_j) depends on the two parts of g = h + Jm, not on their sum alone: no function of g fits it,
    the two-part bins and net do, and the linear map of the two parts cannot (a product has no linear part here)."""
    gen = torch.Generator().manual_seed(0)
    n, inst = 6, 60
    beta = torch.tensor([0.3, 0.6], dtype=torch.float64).repeat_interleave(inst)
    J = 0.3 * torch.randn(beta.numel(), n, n, generator=gen, dtype=torch.float64)
    J = 0.5 * (J + J.transpose(1, 2))
    h = torch.randn(beta.numel(), n, generator=gen, dtype=torch.float64)
    m = torch.tanh(torch.randn(beta.numel(), n, generator=gen, dtype=torch.float64))
    jm = torch.einsum("bij,bj->bi", J, m)
    data = {"J": J, "h": h, "m": m, "c": h * jm, "beta": beta}
    train = {k: v[::2] for k, v in data.items()}
    test = {k: v[1::2] for k, v in data.items()}
    got = ob.two_part_stand_in(train, test, hidden=16, steps=400, bins=(6,))
    assert got["linear"] > 0.9 and got["binned"] < 0.8 and got["net"] < 0.5
    assert ob.binned_bound(train, test, "g", 10)["binned"] > 0.8
