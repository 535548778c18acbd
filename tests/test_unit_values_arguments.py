"""Chapter 4's per-unit values (mfattn.structural.unit_values) refuse a wrong argument at once, naming it (found by
the generated contract tests, issue 44 item 5). Before: sigma = NaN, 0 or -1 returned ARIs silently in
paper_slot_comparison and steps = 10**12 ran for days; a NaN beta was refused as "beta" (enum_beta) or deep in the
Hopfield grid; a study dict None failed with "'NoneType' object is not subscriptable"."""

from __future__ import annotations

import math

import pytest
import torch

from mfattn.structural import edges, predictive_coding as pc, slots, unit_values as uv


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


@pytest.fixture(scope="module")
def width():
    return slots.width_study(points=6, clusters=2, trials=3, spread=0.5, sigmas=[1.0, 0.5], iters=2, example_sigma=1.0,
                             data_generator=_g(), init_generator=_g(1))


def test_slot_values_check_sigma_steps_and_study(width):
    out = uv.paper_slot_comparison(width, 1.0, steps=3)
    assert len(out["slot_paper_same_ari_all"]) == 3 and all(-1 <= a <= 1 for a in out["slot_paper_same_ari_all"])
    for bad in (math.nan, 0.0, -1.0):
        with pytest.raises(ValueError, match=r"^sigma must"):
            uv.paper_slot_comparison(width, bad, steps=3)
    with pytest.raises(ValueError, match=r"^steps=1000000000000 makes paper_slot_comparison\(\) do"):
        uv.paper_slot_comparison(width, 1.0, steps=10**12)
    with pytest.raises(TypeError, match=r"^sl must be a mapping"):
        uv.slot_values(None, [1.0], 1.0, width["mu0"])
    with pytest.raises(ValueError, match=r"^steps must be a positive integer"):
        uv.paper_slot_values(width["x"], width["mu0"], width["labels"], 1.0, steps=0)


def test_enumeration_hopfield_and_pc_values_name_their_arguments():
    enum = edges.enumeration_study(n=3, d=2, beta=1.0, instances=2, generator=_g())
    out = uv.enumeration_roundoff(enum, 1.0)
    assert out["enum_roundoff_max"] < 1e-5 and out["enum_sets_self"] > 0   # float32 draws: round-off ~1e-7
    with pytest.raises(ValueError, match=r"^beta must be a finite number"):
        uv.enumeration_roundoff(enum, math.nan)
    with pytest.raises(ValueError, match=r"betas"):
        uv.hopfield_values(4, [2, 3], [math.nan, 1.0], 2, _g())
    with pytest.raises(ValueError, match=r"^counts must name at least one integer"):
        uv.hopfield_values(4, [], [1.0], 2, _g())
    with pytest.raises(ValueError, match=r"^trials[ =]"):   # its work (work.py) or its buffers
        uv.hopfield_values(4, [2], [1.0], 10**12, _g())
    problem = pc.make_problem(3, 3, 4, 2, generator=_g())
    pcs = pc.step_size_study(problem, steps=3, pi=1.0, pi_y=1.0, lr_fractions=[0.5])
    with pytest.raises(ValueError, match=r"^grad_name must be one of 'gradient, lr = 0.5/L'"):
        uv.pc_values(problem, pcs, 3, 1.0, 1.0, "no-such-run", [0.3], 0.3, _g())
    with pytest.raises(ValueError, match=r"^problem lacks the key"):
        uv.pc_restarts({"mu": problem["mu"]}, pcs["runs"]["fixed point (CCCP)"], 3, 1.0, 1.0, _g())
