"""The fourth outside table's silent, deep and huge rows of mfattn.implicit's transformer, onsager, onsager_bound,
correction, stability, vector_tap and figures modules, each now refused at the boundary with one exception whose
message starts with the parameter's name (the table's own reproductions, by row id), and a valid call of each."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.implicit import correction, figures, onsager, onsager_bound, stability, transformer, vector_tap
from mfattn.implicit.meanfield import MeanFieldAttention


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _x(dtype=torch.float32):
    return torch.randn(2, 4, 6, generator=_gen(1)).to(dtype)


def _softmax(dtype=torch.float32):
    layer = MeanFieldAttention(4, 6, interaction="softmax", generator=_gen(0))
    return layer.double() if dtype == torch.float64 else layer


_DATA = {}


def _data():
    if not _DATA:
        _DATA.update(onsager.onsager_dataset(4, [0.3], 2))
    return _DATA


def _sk():
    J = torch.randn(1, 4, 4, generator=_gen(2), dtype=torch.float64) * 0.2
    return 0.5 * (J + J.transpose(1, 2)), 0.3 * torch.randn(1, 4, generator=_gen(3), dtype=torch.float64)


ROWS = [
    ("n0476", lambda: transformer.naive_contraction_rate(_softmax(), _x(), eigen="yes"), TypeError, r"^eigen must be True or False"),
    ("n0470", lambda: transformer.naive_trajectory(_softmax(), _x(), 2, residual="no"), TypeError,
     r"^residual must be True or False"),
    ("n0470b", lambda: transformer.naive_trajectory(_softmax(), _x(), 2, lin_response="no"), TypeError,
     r"^lin_response must be True or False"),
    ("n0474", lambda: transformer.softmax_naive_fixed_point(_softmax(), _x(), residual=2), TypeError,
     r"^residual must be True or False"),
    ("n0468", lambda: transformer.naive_trajectory(_softmax(), _x(), 3, m0=torch.zeros(2, 4, 5)), ValueError,
     r"^m0 must have the shape of x \(2, 4, 6\); got \(2, 4, 5\)"),
    ("n0485", lambda: transformer.one_step_identities(_x(), {1: _gen(0), 2: _gen(1)}), TypeError,
     r"^x must have dtype torch.float64; got torch.float32"),
    ("n0408", lambda: onsager.OnsagerNet(2)(torch.randn(5, 3)), ValueError, r"^features must have last dimension F = 2"),
    ("n0408b", lambda: onsager.OnsagerNet(2)([1.0, 2.0]), TypeError, r"^features must be a torch.Tensor"),
    ("n0418", lambda: onsager.amortised_mean_field(_sk()[0], _sk()[1][..., :3], None), ValueError,
     r"^h must have shape \(I, n\) = \(1, 4\)"),
    ("n0416", lambda: onsager.amortised_mean_field(*_sk(), onsager.OnsagerNet(3), "g"), ValueError,
     r"^net must take 1 input feature\(s\) for inputs='g'; got an OnsagerNet of 3"),
    ("n0416b", lambda: onsager.amortised_mean_field(*_sk(), torch.nn.Linear(1, 1), "g"), TypeError,
     r"^net must be an OnsagerNet or None"),
    ("n0414", lambda: onsager.fit_onsager_net(_data(), "g", steps=2, lr=1e300), ValueError, r"^lr must be > 0 and <= 1"),
    ("n0414b", lambda: onsager.fit_onsager_net({**_data(), "c": _data()["c"] * 1e200}, "g", steps=2), ValueError,
     r"^lr = 0.01 let the fit diverge: non-finite weights or losses"),
    ("n0414c", lambda: onsager.fit_onsager_net({**_data(), "c": _data()["c"] * float("nan")}, "g", steps=2), ValueError,
     r"^data\['c'\] contains NaN or infinite entries"),
    ("n0714", lambda: onsager_bound.binned_bound(_data(), _data(), bins=10**9), ValueError,
     r"^bins makes its buffers need 64,000,000,064 bytes"),
    ("n0429", lambda: correction.gaussian_cavity(torch.randn(4, 4, 3, 3) * 0.1, -torch.eye(3)), ValueError,
     r"^P must be a symmetric positive definite \(d, d\) prior precision; got smallest eigenvalue -1"),
    ("n0432", lambda: correction.gaussian_cavity(torch.randn(4, 4, 3, 3) * 0.1,
                                                 torch.tensor([[1., 2., 0.], [0., 1., 0.], [0., 0., 1.]])), ValueError,
     r"^P must be a symmetric positive definite \(d, d\) prior precision; got an asymmetric one"),
    ("n0461", lambda: stability.crossing_text(5.0, 3.0), ValueError, r"^stays must be -1 \(never\) or a step >= first \(5\); got 3"),
    ("n0501", lambda: stability.adjoint_map(_softmax(), _x())(torch.randn(2, 4, 5)), ValueError,
     r"^v must have the shape of x \(2, 4, 6\); got \(2, 4, 5\)"),
    ("n0501b", lambda: stability.adjoint_map(_softmax(), _x())(np.zeros((2, 4, 6))), TypeError, r"^v must be a torch.Tensor"),
    ("n0543", lambda: vector_tap.VectorSpinTAP(4, 3, lin_response="no"), TypeError, r"^lin_response must be True or False"),
    ("n0541", lambda: vector_tap.VectorSpinTAP(4, 3, prior_precision=torch.eye(2)), ValueError,
     r"^prior_precision must be a scalar, \(d, d\) = \(3, 3\) or \(N, d, d\); got shape \(2, 2\)"),
    ("n0561", lambda: vector_tap.explicit_tap_cost([(2, 2)], repeats=1, dtype=torch.int64), ValueError,
     r"^dtype must be torch.float64 or torch.float32"),
    ("n0561b", lambda: vector_tap.explicit_tap_cost([(2, 2)], repeats=1, dtype="float64"), TypeError,
     r"^dtype must be a torch.dtype"),
    ("n0754", lambda: figures.running_mean(np.arange(10.0), 11), ValueError, r"^w must be at most len\(x\) = 10"),
]


@pytest.mark.parametrize("row, call, exc, match", ROWS, ids=[r[0] for r in ROWS])
def test_row_is_refused_naming_the_parameter(row, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_transformer_valid_calls_still_work():
    layer, x = _softmax(), _x()
    traj = transformer.naive_trajectory(layer, x, 3, residual=np.bool_(False), m0=torch.zeros(2, 4, 6))
    assert traj.shape == (4, 2, 4, 6) and bool(traj[0].eq(0).all())
    assert transformer.softmax_naive_fixed_point(layer, x, residual=False).abs().max() < 1e-5
    rate = transformer.naive_contraction_rate(layer, x, eigen=True)
    assert torch.allclose(rate, transformer.naive_contraction_rate(layer, x), rtol=1e-4)
    out = transformer.one_step_identities(_x(torch.float64), {1: _gen(0), 2: _gen(1)})
    assert max(out.values()) < 1e-10


def test_onsager_valid_calls_still_work():
    data = _data()
    net, losses = onsager.fit_onsager_net(data, "m+s", steps=3, hidden=4, lr=1.0)
    assert len(losses) == 3 and all(np.isfinite(losses))
    assert net(torch.zeros(3, 2)).shape == (3,)
    m, stats = onsager.amortised_mean_field(data["J"], data["h"], net, "m+s")
    assert m.shape == data["h"].shape and bool(torch.isfinite(m).all())
    out = onsager_bound.binned_bound(data, data, bins=3)
    assert set(out) == {"binned", "linear"}


def test_correction_stability_vector_tap_and_figures_valid_calls_still_work():
    J = torch.randn(4, 4, 3, 3, generator=_gen(4), dtype=torch.float64) * 0.1
    P = torch.tensor([[2.0, 0.3, 0.0], [0.3, 1.5, 0.1], [0.0, 0.1, 1.8]], dtype=torch.float64)
    assert correction.gaussian_cavity(J, P).shape == (4, 3, 3)
    assert correction.gaussian_cavity(J, 2.0).shape == (4, 3, 3)
    assert stability.crossing_text(-1.0, 2.0) == "at no kept step"       # first < 0: no crossing (judged valid)
    assert stability.crossing_text(3.0, 5.0) == "first at step 3, and at every kept step from step 5 on"
    assert stability.crossing_text(3.0, -1.0) == "first at step 3, but not at the last kept step"
    assert np.isnan(stability.held_out_r2([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2.0] * 6))  # documented: SST = 0
    layer, x = _softmax(), _x()
    assert stability.adjoint_map(layer, x)(torch.randn(2, 4, 6)).shape == (2, 4, 6)
    tap = vector_tap.VectorSpinTAP(4, 3, prior_precision=torch.eye(3) * 2, lin_response=False)
    assert tap.prior_precision.shape == (4, 3, 3) and tap.lin_response is False
    assert len(vector_tap.explicit_tap_cost([(2, 2)], repeats=1, dtype=torch.float32)) == 1
    assert figures.running_mean(np.arange(10.0), 10).tolist() == [4.5]
