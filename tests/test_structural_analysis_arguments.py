"""Chapter 5's reductions of runs and stored files (mfattn.structural.analysis) refuse a wrong argument at once,
naming it (found by the generated contract tests, issue 44 item 5). Before: a NaN recency bias or a window of 0
was accepted and gave NaN or a wrong share; a dim, seed or key the run does not hold raised a bare KeyError; a
tail_fraction of inf an OverflowError; a list of scores an AttributeError."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from mfattn.structural import analysis
from mfattn.structural.expanding_train import train_expanding


@pytest.fixture(scope="module")
def runs():
    return {2: train_expanding(ps=(0.5, 0.2), d=2, n=6, seeds=(0, 1), steps=4, record_every=1, cache=False)}


def test_window_coverage_still_reduces_a_run(runs):
    out = analysis.window_coverage(runs, [2], [0.5, 0.2], first_window=3, n=6)
    assert set(out["covered"]) == {(2, 0.5), (2, 0.2)} and 0 <= out["far_found"] <= 1 or math.isnan(out["far_found"])


@pytest.mark.parametrize("kw, match", [
    ({"ps": [0.5, math.nan]}, r"ps"), ({"ps": []}, r"ps must"), ({"first_window": 0}, r"first_window must"),
    ({"n": 0}, r"^n must"), ({"dims": [3]}, r"runs holds no run at d = \[3\]"), ({"dims": [2.5]}, r"dims"),
    ({"runs": None}, r"^runs must be a mapping")])
def test_window_coverage_refuses(runs, kw, match):
    args = {"runs": runs, "dims": [2], "ps": [0.5], "first_window": 3, "n": 6, **kw}
    with pytest.raises((ValueError, TypeError), match=match):
        analysis.window_coverage(**args)


@pytest.mark.parametrize("fn", [analysis.operations, analysis.operations_as_run])
def test_operations_refuse_a_nan_bias_and_a_missing_dim(runs, fn):
    with pytest.raises(ValueError, match=r"ps"):
        fn(runs, [2], [math.inf])
    with pytest.raises(ValueError, match=r"runs holds no run at d = \[10\]"):
        fn(runs, [10], [0.5])


def test_stored_reference_readers_name_their_argument():
    ref_multi = {"0": {"long": [1.0, 0.2], "standard": [1.0, 0.9]}}
    assert analysis.stuck_seeds(ref_multi, "standard", [0]) == [0]
    with pytest.raises(ValueError, match=r"^key must be one of 'long', 'standard'"):
        analysis.stuck_seeds(ref_multi, "no-such-model", [0])
    with pytest.raises(ValueError, match=r"seeds \[1\] are not in ref_multi"):
        analysis.stuck_seeds(ref_multi, "long", [0, 1])
    ref_exp = [{"expanding": {"geo_p": 0.5, "loss": [2.0, 1.0]}, "standard": {"loss": [1.0, 1.0]}}]
    assert analysis.reference_loss_ratios(ref_exp, 0.5) == {0.5: 1.0}
    for bad in (math.inf, 0.0, 1.5):
        with pytest.raises(ValueError, match=r"^tail_fraction must"):
            analysis.reference_loss_ratios(ref_exp, bad)
    with pytest.raises(TypeError, match=r"^ref_exp must be a non-empty list"):
        analysis.reference_loss_ratios({"expanding": {}})
    with pytest.raises(TypeError, match=r"^path must be a path"):
        analysis.windowed_benchmark(None)


def test_elbo_and_cavi_take_a_2d_tensor_of_scores():
    s = torch.randn(2, 6, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert analysis.cavi_residual(s, 0.1, 0.9) < 1e-6
    for bad in (s.tolist(), s[0], s[None]):
        with pytest.raises((ValueError, TypeError), match=r"^scores must"):
            analysis.elbo_gradient(bad, 0.1, 0.9, "cavi")
    with pytest.raises(ValueError, match=r"^tol must"):
        analysis.elbo_gradients(s, 0.1, 0.9, "cavi", tol=math.nan)


def test_replay_record_refuses_zero_steps():
    repro = {"record_steps": np.array([0, 1000]), "loss/multihop": np.ones((1, 2)), "loss/one_layer": np.ones((1, 2))}
    ref = {"0": {"long": [1.0, 1.0], "standard": [1.0, 2.0]}}
    assert analysis.replay_deviations(repro, ref, [0])["one_layer"].tolist() == [[0.0, 0.5]]
    with pytest.raises(ValueError, match=r"^steps must"):
        analysis.replay_record(repro, ref, [0], 0)
