"""What the fourth outside table of hostile calls (issue 44) found in chapter 5's modules (and the slot and
predictive-coding modules chapter 4 shares): each call refused at the boundary with a message naming the parameter
(before: a result by broadcasting, or an error from inside torch)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.structural import expanding_task, multihop, predictive_coding as pc, slots, windowed


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


X = torch.randn(1, 20, 2, generator=_g())


@pytest.mark.parametrize("mu", [torch.randn(2, 3, 2), torch.randn(1, 3, 5), torch.randn(1, 0, 2)])
def test_slots_must_match_the_points(mu):
    for call in (lambda: slots.slot_objective(X, mu, 1.0), lambda: slots.slot_update(X, mu, 1.0),
                 lambda: slots.assign(X, mu)):
        with pytest.raises(ValueError, match=r"^mu must have shape \(\.\.\., K, D\) with K >= 1"):
            call()
    assert slots.assign(X, torch.randn(1, 3, 2)).shape == (1, 20)


def test_width_study_needs_one_step():
    with pytest.raises(ValueError, match=r"^iters must be"):
        slots.width_study(10, 2, 1, 0.5, [1.0], 0, 1.0, data_generator=_g(0), init_generator=_g(1))


def test_predictive_coding_shapes_must_agree():
    prob = pc.make_problem(2, 3, 2, 4, generator=_g())
    x, y, C, mu = prob["x_true"], prob["y"], prob["C"], prob["mu"]
    with pytest.raises(ValueError, match=r"^mu must have shape \(T, n, d\) = \(2, n >= 1, 3\)"):
        pc.synapse_weights(torch.randn(2, 3, dtype=torch.float64), torch.randn(2, 4, 2, dtype=torch.float64), 1.0)
    with pytest.raises(ValueError, match=r"^y must have shape \(T, o\) = \(2, 4\)"):
        pc.free_energy(x, y[:, :3], C, mu)
    with pytest.raises(ValueError, match=r"^mu must have shape \(T, n, d\) = \(1, n >= 1, 3\)"):
        pc.free_energy_grad(x[:1], y, C, mu)
    with pytest.raises(ValueError, match=r"^C must have shape \(T, o, d\)"):
        pc.free_energy(x, y, C[:, :, :2], mu)
    assert pc.free_energy(x, y, C, mu).shape == (2,) and pc.free_energy_grad(x, y, C, mu).shape == (2, 3)


def test_expanding_windows_stay_inside_the_sequence():
    with pytest.raises(ValueError, match=r"^values must have one row per key"):
        windowed.lazy_expanding_attention(torch.randn(2, 3), torch.randn(2, 10, 3), torch.randn(2, 9, 4), 1.0, 1.0)
    with pytest.raises(ValueError, match=r"^reach must be window sizes >= 0"):
        windowed.operations_as_run(np.array([-3, 4]), np.array([2, 2]), 10, 4)
    assert np.allclose(windowed.operations_as_run(np.array([30, 4]), np.array([2, 2]), 10, 4), [1.05, 0.45])  # clipped
    with pytest.raises(ValueError, match=r"^iterations must be counts >= 0"):
        windowed.operations_as_run(np.array([3, 4]), np.array([-1, 2]), 10, 4)
    assert np.allclose(windowed.operations_as_run(np.array([10, 4]), np.array([2, 2]), 10, 4), [1.05, 0.45])


def test_multihop_task_weights_and_forward_check_their_inputs():
    task = multihop.MultihopTask()
    with pytest.raises(TypeError, match=r"^task must be a MultihopTask"):
        multihop.make_task_weights("x", _g())
    with pytest.raises(TypeError, match=r"^generator must be a torch.Generator"):
        multihop.make_task_weights(task, None)
    tw = multihop.make_task_weights(task, _g())
    xb = multihop.sample_multihop_batch(task, tw, 4, _g(1), shuffle="none")
    XX = (xb[0] if isinstance(xb, tuple) else xb)[None]
    one = multihop.init_params("one_layer", XX.shape[-1], _g())
    with pytest.raises(ValueError, match=r"^operator must be one of"):
        multihop.forward("one_layer", one, XX, operator="bogus")
    for model, params, X in (("one_layer", [], XX), ("one_layer", one, XX[..., :2]), ("two_layer", one, XX)):
        with pytest.raises(ValueError, match=rf"^params must be {model}'s weights"):
            multihop.forward(model, params, X)
    assert multihop.forward("two_layer", multihop.init_params("two_layer", XX.shape[-1], _g()), XX).shape == (1, 4)


def test_expanding_batches_need_the_weights_of_their_tasks():
    et = expanding_task.ExpandingTask(d=4, n=6)
    w_y, w_r = expanding_task.make_expanding_weights(4, _g())
    with pytest.raises(ValueError, match=r"^weights\[0\] must be \(W_y, W_r\) of shapes \(1, 4\) and \(4, 4\)"):
        expanding_task.sample_expanding_batch([et], [(w_y, w_r[:3])], 2, _g())
    X, y, dist = expanding_task.sample_expanding_batch([et], [(w_y, w_r)], 2, _g())
    assert X.shape == (1, 2, 6, 4)
