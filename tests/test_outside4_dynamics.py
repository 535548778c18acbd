"""The fourth outside table's silent, deep, hang and huge rows of chapter 6 (mfattn/dynamics), each now refused at
the boundary with one exception whose message starts with the parameter's name (the table's own reproductions,
shrunk where they ran long), and a valid call of each function that still works."""

from __future__ import annotations

import time

import numpy as np
import pytest

from mfattn.dynamics import (diagnostics, engine, finite_n, floquet, lyapunov, map as dmap, model as dmodel, perturbed,
                             rotation, sweep, tangent_space, verdict_numbers)
from mfattn.dynamics import figures as dfigures


def _ctx():
    return {"mv_window": np.zeros((1, 4, 3)), "mk_window": np.zeros((1, 4, 3)), "mq_window": np.zeros((1, 3)),
            "att_window": np.zeros((1, 3))}


def _nan_state():
    st0 = dmap.initial_state(dmodel.paper_model())
    st0["A"] = st0["A"].copy()
    st0["A"][0] = np.nan
    return st0


def _short_state():
    fr = floquet.floquet_multipliers([1.0, 1.1], period=4, steps=80)
    return fr.state[:, :5]


def _ctx_file(tmp_path):
    path = tmp_path / "ctx_shape.npz"
    np.savez(path, mv_window=np.zeros(2), mk_window=np.zeros(2), mq_window=np.zeros(2), att_window=np.zeros(2))
    return path


ROWS = [  # (row id, call, exception, message start)
    ("n1001", lambda p: diagnostics.bin_count_bounds([np.array([3.5])], 1.0, 100000), ValueError,
     r"^levels\[0\] must hold whole numbers"),
    ("n1002", lambda p: diagnostics.bin_count_bounds([np.array([300000])], 1.0, 100000), ValueError,
     r"^levels\[0\] must hold levels in \[0, fine - 1\]"),
    ("n1004", lambda p: diagnostics.bin_count_bounds([np.array([-3])], 1.0, 100000), ValueError,
     r"^levels\[0\] must hold levels in \[0, fine - 1\]"),
    ("n1006", lambda p: diagnostics.confusion(np.array([0, 1, 5]), np.array([4, 0, 0]), np.array([-0.1, 0.0, 0.2])),
     ValueError, r"^classes must hold class indices 0, 1, 2"),
    ("n1085", lambda p: perturbed.attractor_kind({"period": 0, "lyapunov": [float("nan")], "islands": 1}), ValueError,
     r"^row\['lyapunov'\] must contain only finite numbers"),
    ("n1086", lambda p: perturbed.attractor_kind({"period": -4, "lyapunov": [0.0], "islands": 1}), ValueError,
     r"^row\['period'\] must be an integer >= 0"),
    ("n1087", lambda p: perturbed.attractor_kind({"period": "x", "lyapunov": [0.0], "islands": 1}), ValueError,
     r"^row\['period'\] must be an integer >= 0"),
    ("n1084", lambda p: perturbed.attractor_kind({"period": 0, "lyapunov": [], "islands": 1}), ValueError,
     r"^row\['lyapunov'\] must be a non-empty"),
    ("n1172", lambda p: dmap.step(dmodel.paper_model(), _nan_state(), 0, 1.0), ValueError,
     r"^state\['A'\] contains NaN"),
    ("n1184", lambda p: dmodel.load_context(_ctx_file(p)), ValueError,
     r"^path: the context's mv_window must have shape \(L, M\) or \(B, L, M\); got \(2,\)"),
    ("n1135", lambda p: dmodel.paper_model(weights={k: v * np.nan for k, v in dmodel.paper_weights().items()}),
     ValueError, r"^weights\['o'\] contains NaN"),
    ("n1161", lambda p: engine.simulate([1.0], steps=60, transient=10, save="yes"), TypeError,
     r"^save must be True or False"),
    ("n1160", lambda p: engine.simulate([1.0], steps=60, transient=10, model="x"), TypeError,
     r"^model must be a MeanFieldModel"),
    ("n1162", lambda p: engine.simulate([1.0], steps=60, transient=10, sampler=3), TypeError,
     r"^sampler must be None or a callable"),
    ("n0162", lambda p: lyapunov.lyapunov_spectrum(["0.1"], k=2, steps=60, transient=10, qr_every=1), TypeError,
     r"^betas must hold (real )?numbers,? (\(not text|not strings)"),
    ("n1071", lambda p: tangent_space.TangentFlow([1.0], 10 ** 6), ValueError,
     r"^k must be at most the stored dimension D = M \(1 \+ 2 L\) = 27"),
    ("n1115", lambda p: verdict_numbers.context_deviation(_ctx(), {k: v * np.nan for k, v in _ctx().items()}),
     ValueError, r"^reference\['mv_window'\] contains NaN"),
    ("n1113", lambda p: verdict_numbers.context_deviation(_ctx(), {k: v[..., :2] for k, v in _ctx().items()}),
     ValueError, r"^reference\['mv_window'\] must have the shape of ours\['mv_window'\] \(1, 4, 3\); got \(1, 4, 2\)"),
    ("n1100", lambda p: verdict_numbers.plain({"a": np.array([1j])}), TypeError, r"^obj must hold real numbers"),
    ("n1109", lambda p: verdict_numbers.map_deviations("x", n=4), TypeError, r"^model must be a MeanFieldModel"),
    ("n1110", lambda p: verdict_numbers.map_deviations(dmodel.paper_model(), n=10 ** 12), ValueError,
     r"^n=1000000000000 makes the random points and the deviations need"),
    ("n1049", lambda p: floquet.neimark_sacker("x"), TypeError, r"^result must be a FloquetResult"),
    ("n1050", lambda p: floquet.neimark_sacker(None), TypeError, r"^result must be a FloquetResult"),
    ("n1044", lambda p: floquet.monodromy([1.0, 1.1], _short_state(), 4), ValueError,
     r"^state must have shape \(B, D\) = \(2, 27\)"),
    ("n1058", lambda p: finite_n.network_token_model("x"), TypeError, r"^model must be a MeanFieldModel"),
    ("n1031", lambda p: rotation.plateaus("x"), TypeError, r"^result must be a RotationResult"),
    ("n1142", lambda p: sweep.all_values_image("x"), TypeError, r"^res must be a SweepResult"),
    ("n1151", lambda p: dfigures.fmt_lam("x"), TypeError, r"^x must be a real number"),
    ("n1152", lambda p: dfigures.fmt_lam(None), TypeError, r"^x must be a real number"),
]


@pytest.mark.parametrize("row, call, exc, match", ROWS, ids=[r[0] for r in ROWS])
def test_outside4_dynamics_row_is_refused(row, call, exc, match, tmp_path):
    t0 = time.monotonic()
    with pytest.raises(exc, match=match):
        call(tmp_path)
    assert time.monotonic() - t0 < 60, f"{row}: refused, but only after {time.monotonic() - t0:.0f} s"


def test_valid_calls_still_work(tmp_path):
    lo, hi = diagnostics.bin_count_bounds([np.array([3, 99999]), np.array([3.0])], 1.0, 100000)
    assert lo.shape == hi.shape == (2,)
    assert diagnostics.confusion(np.array([0, 1, 2]), np.array([4, 0, 0]), np.array([-0.1, 0.0, 0.2])).sum() == 3
    assert perturbed.attractor_kind({"period": 4, "lyapunov": [-0.1, -0.05], "islands": 4}) == "period 4"
    assert perturbed.attractor_kind({"period": 0, "lyapunov": [0.0, 0.0], "islands": 1}) == "closed curve"
    model = dmodel.paper_model()
    st0 = dmap.initial_state(model)
    new, m_o = dmap.step(model, st0, 1, 1.0)
    again, m_o2 = dmap._step(model, st0, 1, 1.0)
    assert np.array_equal(m_o, m_o2) and all(np.array_equal(new[k], again[k]) for k in new)
    traj = dmap.trajectory(model, 1.0, 5)
    assert np.array_equal(traj[1], m_o)
    res = engine.simulate([1.0, 1.2], steps=60, transient=10, save=True, model=model, sampler=None)
    assert res.m_o.shape == (2, 50, 3)
    path = tmp_path / "ctx.npz"
    np.savez(path, **res.context)
    assert dmodel.load_context(path)["mv_window"].shape == (2, 4, 3)
    np.savez(path, **res.context_of(0))
    assert dmodel.load_context(path)["att_window"].shape == (3,)
    assert np.array_equal(dmodel.paper_model(weights=dmodel.paper_weights()).coef, model.coef)
    assert lyapunov.lyapunov_spectrum([1.0], k=2, steps=60, transient=10).shape == (1, 2)
    assert tangent_space.TangentFlow([1.0], 27).k == 27
    assert verdict_numbers.context_deviation(_ctx(), _ctx()) == 0.0
    assert verdict_numbers.plain({"a": np.array([1.5]), "b": np.int64(2)}) == {"a": [1.5], "b": 2}
    assert len(verdict_numbers.map_deviations(model, n=2)["classes_vs_direct"]) == 2
    fr = floquet.floquet_multipliers([1.0, 1.1], period=4, steps=80)
    fx, J = floquet.monodromy([1.0, 1.1], fr.state, 4)
    assert fx.shape == (2, 27) and J.shape == (2, 27, 27)
    assert "beta" in floquet.neimark_sacker(fr)
    assert finite_n.network_token_model(model).token.shape == model.token.shape
    assert dfigures.fmt_lam(0.5) == "+0.500"
    stair = rotation.RotationResult(np.array([1.0, 1.1]), None, None, np.array([0.25, 0.25]), np.full(2, 4),
                                    np.ones(2), 200, np.full(2, -0.01))
    assert [p["fraction"] for p in rotation.plateaus(stair)] == ["1/4"]
    sw = sweep.sweep([1.0, 1.2], steps=400, transient=200, progress=False)
    assert sweep.all_values_image(sw, rows=10).shape == (10, 2)
