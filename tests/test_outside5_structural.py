"""What the fifth outside table of hostile calls (part B, /work/notes/outside5b) found in chapters 4-5's computing
modules (predictive coding, expanding attention and its windowed cost, multi-hop, the optimiser, the analyses of
runs, the unit values, the graph drawings and the figures): each is refused at the boundary by one exception whose
message names the parameter (before: a result, NaN, or an error from inside torch, numpy, matplotlib or Python).
Valid calls of the same functions still work; importing multihop_train before multihop no longer fails."""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from mfattn.structural import analysis, analysis_premises, edges, expanding_core, graphs, hopfield  # noqa: E402
from mfattn.structural import multihop, optim, potentials, slots, unit_values, windowed  # noqa: E402
from mfattn.structural import figures as sfig  # noqa: E402
from mfattn.structural import predictive_coding as pc  # noqa: E402

import contracts_strategies_b as B  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _g(i: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(i)


# --- tiny inputs of the documented forms (built once; the runs are the contract specs' own) ---------------------
_exp_run, _mh_run, _variants, _coverage = B.expanding_run, B.multihop_run, B.variants, B.coverage


@functools.lru_cache(maxsize=None)
def _problem():
    return pc.make_problem(3, 3, 4, 2, generator=_g(0))


@functools.lru_cache(maxsize=None)
def _pc_study():
    return pc.step_size_study(_problem(), steps=3, pi=1.0, pi_y=1.0, lr_fractions=[0.5])


@functools.lru_cache(maxsize=None)
def _enum():
    return edges.enumeration_study(n=3, d=2, beta=1.0, instances=2, generator=_g(0))


@functools.lru_cache(maxsize=None)
def _hop_grid():
    return hopfield.retrieval_grid(dim=4, pattern_counts=[2, 3], betas=[0.5, 1.0], trials=2, steps=2, seed=0)


@functools.lru_cache(maxsize=None)
def _width():
    return slots.width_study(points=6, clusters=2, trials=3, spread=0.5, sigmas=[1.0, 0.5], iters=2,
                             example_sigma=1.0, data_generator=_g(0), init_generator=_g(1))


def _scores():
    return torch.randn(2, 8, generator=_g(3), dtype=torch.float64)


def _paper_steps_inputs():
    xs = slots.gaussian_mixture_2d(10, 2, trials=2, generator=_g(0))[0]
    return potentials.identity_study(3, 2, 1.0, 2, _g(0)), slots.update_forms_study(xs, xs[:, :2].clone(), 1.0, steps=2)


def _ref_multi10():
    r = np.random.default_rng(7)
    return {str(s): {"long": list(r.uniform(0.1, 1.0, 20)), "standard": list(r.uniform(0.1, 1.0, 20))}
            for s in range(10)}


def _repro():
    r = np.random.default_rng(8)
    return {"record_steps": np.arange(3) * 1000, "loss/multihop": r.uniform(0.1, 1.0, (2, 3)),
            "loss/one_layer": r.uniform(0.1, 1.0, (2, 3))}


def _replay():
    r = np.random.default_rng(9)
    return {"variants": {"batch": {m: {"relative_deviation": r.uniform(0, 2e-5, (2, 3)).tolist()}
                                   for m in ("multihop", "one_layer")}}}


def _full_exp(**kw):
    return {"ps": [0.5, 0.2], "stored_code_measure": [0.4, 0.5],
            "code_measure_per_seed": {"0.5": {"0": 0.31, "1": 0.33}, "0.2": {"0": 0.45}}, **kw}


def _query_attention():
    a = torch.softmax(_scores(), -1).clone()
    a[:, -1] = 0.5
    return a / a.sum(-1, keepdim=True)


def _nmse(run):
    return {m: run[f"test_mse/{m}"] / run["var_y"] for m in ("one_layer", "multihop", "two_layer")}


def _sizes(**kw):
    return {"exp_ps": [0.5], "exp_seeds": [0], "exp_batch": 2, "exp_dims": [2], "exp_steps": 2,
            "exp_code_steps": 2, **kw}


def _bench(tmp_path, rows):
    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"meta": {}, "rows": rows}))
    return path


def _panel():
    return graphs.GraphPanel("toy", {"q": (0.0, 0.0, "q", False), "k": (1.0, 0.5, "k", True)},
                             candidates=[("k", "q")], chosen=[("k", "q")])


ROLES = ["noise", "x0", "x1", "x2"]

# (row id, call, exception, regex on the message: it names the parameter)
ROWS = [
    ("b0411", lambda t: pc.synapse_weights(_problem()["x_true"], _problem()["mu"] * 1e200, 1.0), ValueError, r"\bmu\b"),
    ("b0413", lambda t: expanding_core.expanding_elbo(_scores(), _query_attention(), torch.tensor([1.1, 1.2]).double(),
                                                      torch.tensor([1.5, 2.0]).double(), 0.1, 0.9),
     ValueError, r"^attention must be zero on the query"),
    ("b0428", lambda t: windowed.relative_operations(np.array([3, 4]), np.array([-2, 2]), 10, 4), ValueError,
     r"^iterations must be counts >= 0"),
    ("b0437", lambda t: multihop.TaskWeights(torch.ones(1, 2), torch.ones(3, 3)), ValueError, r"^W_y must have shape"),
    ("b0444", lambda t: optim.AdamState([torch.zeros(2)], [torch.zeros(3)]), ValueError,
     r"^exp_avg\[0\] and exp_avg_sq"),
    ("b0449", lambda t: analysis.elbo_gradient(_scores().float(), 0.1, 0.9, "cavi"), TypeError,
     r"^scores must be float64"),
    ("b0451", lambda t: analysis.operations({2: _exp_run()}, [2], [0.3]), ValueError, r"^ps: p = 0.3 is not among"),
    ("b0452", lambda t: analysis.operations_as_run({2: _exp_run()}, [2], [0.5], n=3), ValueError,
     r"^n must be the runs' sequence length"),
    ("b0454", lambda t: analysis.inference_comparison(_variants(), [0.5], 2, 100, n=6), ValueError,
     r"^tail must be at most the 4 logged steps"),
    ("b0465", lambda t: analysis.stored_code_measure(_full_exp(ps=[0.5])), ValueError, r"full_exp\['ps'\]"),
    ("b0472", lambda t: analysis_premises.merge_runs(_exp_run(), _mh_run()), ValueError, r"^extra lacks"),
    ("b0486", lambda t: unit_values.pc_restarts(_problem(), _pc_study()["runs"]["fixed point (CCCP)"], 7, 1.0, 1.0,
                                                _g(0), starts=2), ValueError, r"^steps must be the zero start's steps"),
    ("b0489", lambda t: graphs.GraphPanel("t", {"q": (math.nan, 0.0, "q", False)}), ValueError, r"^nodes\['q'\] x"),
    ("b0495", lambda t: sfig.bruteforce(_enum(), 5, 2), ValueError, r"^n must be the study's token count"),
    ("b0496", lambda t: sfig.hopfield(_hop_grid(), 4, np.abs(_hop_grid()["energies"].numpy()[..., 0]), [0.5], 3),
     ValueError, r"^betas_long must name one beta per column"),
    ("b0499", lambda t: sfig.predictive_coding(_pc_study(), _problem(), 1.0, 9), ValueError, r"^n_parents must be"),
    ("b0501", lambda t: sfig.multihop_curves({"paper": _mh_run()}, 5), ValueError, r"^n_seeds must be"),
    ("b0510", lambda t: sfig.inference_comparison(analysis.inference_comparison(_variants(), [0.5, 0.2], 2, 2, n=6),
                                                  [0.5], 2), ValueError, r"^ps must be the comparison's"),
    ("b0511", lambda t: sfig.paper_steps(*_paper_steps_inputs(), [-1.0]), ValueError, r"^temperatures must contain"),
    ("b0962", lambda t: expanding_core.ExpandingResult(torch.zeros(2, 3), torch.zeros(3, 8), *[torch.zeros(2)] * 5,
                                                       None),
     ValueError, r"^output must be a tensor of shape \(3, dv\)"),
    ("b0052", lambda t: edges.sinkhorn_edge_marginals(torch.randn(3, 2, generator=_g()).double(),
                                                      torch.randn(3, 2, generator=_g(1)), beta=1.0, iters=50),
     TypeError, r"^q and k must have one dtype"),
    ("b0071", lambda t: slots.run_slots(torch.randn(1, 20, 2, generator=_g()), 3, prior="slots", sigma=5e-324, iters=5,
                                        init_scale=1.0, generator=_g()), ValueError, r"^sigma must have 2 pi sigma"),
    ("b0360", lambda t: edges.random_allowed(3, 0, 0.5, _g()), ValueError, r"^n_keys must be"),
    ("b0405", lambda t: pc.infer(_problem(), method="gradient", steps=2, lr=torch.full((2,), 0.1)), ValueError,
     r"^lr must be a number or a tensor of one step size per trial"),
    ("b0409", lambda t: pc.smoothness({**_problem(), "C": _problem()["C"] * math.nan}), ValueError,
     r"^problem\['C'\] contains NaN"),
    ("b0415", lambda t: expanding_core.effective_q(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0])),
     ValueError, r"^alpha and beta must have one shape"),
    ("b0448", lambda t: analysis.cavi_residual(_scores(), 0.1, 0.9, update="plugin"), TypeError,
     r"^cavi_residual\(\) sets .*'update'"),
    ("b0450", lambda t: analysis.elbo_gradients(_scores(), 0.1, 0.9, "plugin", max_iter=0), TypeError,
     r"^elbo_gradients\(\) sets .*'max_iter'"),
    ("b0457", lambda t: analysis.multihop_numbers({k: v for k, v in _mh_run().items() if not k.endswith("/two_layer")}),
     ValueError, r"^result lacks the key\(s\) \['test_mse/two_layer'"),
    ("b0464", lambda t: analysis.stored_replay({"variants": {"batch": {"multihop": {"relative_deviation": [[0.0]]}}}}),
     ValueError, r"^replay\['variants'\]\['batch'\] lacks the key\(s\) \['one_layer'\]"),
    ("b0464-nan", lambda t: analysis.stored_replay({"variants": {"batch": {m: {"relative_deviation": [[math.nan]]}
                                                                           for m in ("multihop", "one_layer")}}}),
     ValueError, r"^replay\['variants'\]\['batch'\]\['multihop'\]\['relative_deviation'\] contains NaN"),
    ("b0464-empty", lambda t: analysis.stored_replay({"variants": {"batch": {m: {"relative_deviation": [[]]}
                                                                             for m in ("multihop", "one_layer")}}}),
     ValueError, r"\['relative_deviation'\] must hold at least one"),
    ("b0468", lambda t: analysis.windowed_benchmark(_bench(t, [])), ValueError, r"'rows'"),
    ("b0469", lambda t: analysis.expanding_runs(_sizes(exp_dims=[])), ValueError, r"^sizes\['exp_dims'\]"),
    ("b0481", lambda t: unit_values.slot_values(_width(), [1.0, 0.5], 2.0,
                                                torch.randn(3, 2, 2, generator=_g(4), dtype=torch.float64)),
     ValueError, r"^sigma must be one of the study's sigmas"),
    ("b0491", lambda t: graphs.draw_mechanisms([_panel()], panel_size=1e5), ValueError, r"^panel_size"),
    ("b0502", lambda t: sfig.multihop_attention({"paper": _mh_run()}, {"paper": _nmse(_mh_run())}, ROLES[:3]),
     ValueError, r"^role_labels must name one role per column"),
    ("b0503", lambda t: sfig.multihop_ablation({}, ROLES), ValueError, r"^runs must hold at least one run"),
    ("b0504", lambda t: sfig.multihop_reproduction(_ref_multi10(), _repro(), analysis.replay_deviations(
        _repro(), _ref_multi10(), [0, 1]), [0, 1, 2, 3]), ValueError, r"^seeds and dev\['multihop'\] must agree"),
    ("b0509", lambda t: sfig.expanding_window(_coverage(), [2], [0.5, 0.3]), ValueError, r"^dims and ps must be"),
]


@pytest.mark.parametrize("call, kind, pattern", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_hostile_call_is_refused_naming_the_parameter(call, kind, pattern, tmp_path):
    try:
        with pytest.raises(kind, match=pattern):
            call(tmp_path)
    finally:
        plt.close("all")


# --- more of the same boundaries ------------------------------------------------------------------------------
@pytest.mark.parametrize("call, kind, pattern", [
    (lambda: windowed.relative_operations(np.array([-1, 4]), np.array([1, 2]), 10, 4), ValueError, r"^window must be"),
    (lambda: windowed.relative_operations(np.array([3.0, math.nan]), np.array([1, 2]), 10, 4), ValueError,
     r"^window contains NaN"),
    (lambda: multihop.TaskWeights(np.ones((1, 2)), torch.ones(2, 2)), TypeError, r"^W_y must be a torch.Tensor"),
    (lambda: optim.AdamState([torch.zeros(2)], [torch.zeros(2), torch.zeros(2)]), ValueError,
     r"^exp_avg and exp_avg_sq must hold one moment per parameter"),
    (lambda: optim.AdamState([torch.zeros(2)], [torch.zeros(2)], step=-1), ValueError, r"^step must be"),
    (lambda: expanding_core.ExpandingResult(None, torch.zeros(2, 8), *[torch.zeros(3)] * 5, None), ValueError,
     r"^window must be a tensor of shape \(2,\)"),
    (lambda: expanding_core.expanding_elbo(_scores(), -_query_attention(), 1.1, 1.5, 0.1, 0.9), ValueError,
     r"^attention must be q\(t\), probabilities in \[0, 1\]"),
    (lambda: graphs.GraphPanel("t", {"q": (0.0, 0.0, "q", False)}, candidates=[("k", "q")]), ValueError,
     r"^candidates has an edge \('k', 'q'\) between nodes not in nodes: \['k'\]"),
    (lambda: graphs.GraphPanel("t", {"q": (0.0, 0.0, "q", "no")}), TypeError, r"^nodes\['q'\] observed must be True"),
    (lambda: graphs.GraphPanel("t", {"q": (0.0, 0.0, "q", False), "k": (1.0, 0.0, "k", True)},
                               candidates=[("k", "q")], weights={("k", "q"): 2.0}), ValueError,
     r"^weights\[\('k', 'q'\)\]"),
    (lambda: graphs.draw_toy_problems(1e4), ValueError, r"^panel_size"),
    (lambda: slots.slot_objective(torch.zeros(1, 3, 2), torch.zeros(1, 2, 2), 1e200), ValueError, r"^sigma must have"),
    (lambda: slots.slot_update(torch.zeros(1, 3, 2), torch.zeros(1, 2, 2), 1e-170), ValueError, r"^sigma must have"),
    (lambda: edges.random_allowed(3, 2, math.nan, _g()), ValueError, r"^density must be"),
    (lambda: edges.random_allowed(3, 2, 0.5, None), TypeError, r"^generator must be a torch.Generator"),
    (lambda: analysis.cavi_residual(_scores(), 0.1, 0.9, values=torch.zeros(2, 8, 1)), TypeError,
     r"^cavi_residual\(\) sets .*'values'"),
    (lambda: analysis.elbo_gradient(_scores(), 0.1, 0.9, "cavi", max_iter=3), TypeError,
     r"^elbo_gradients\(\) sets .*'max_iter'"),
    (lambda: analysis.operations_as_run({2: _exp_run()}, [2], [0.3], n=6), ValueError, r"^ps: p = 0.3"),
    (lambda: analysis.prior_options(_variants(), [0.5], 2, 5), ValueError, r"^tail must be at most"),
    (lambda: analysis.prior_options(_variants(), [0.3], 2, 2), ValueError, r"^ps: p = 0.3"),
    (lambda: analysis.stored_code_measure(_full_exp(ps=[0.5, 0.1])), ValueError,
     r"^full_exp\['code_measure_per_seed'\] holds no values for p = \['0.1'\]"),
    (lambda: analysis_premises.merge_runs(_exp_run(), {**_exp_run(), "W/expanding": np.zeros((4, 7, 3))}), ValueError,
     r"^extra's \['W/expanding'\] must have base's shape per row"),
    (lambda: sfig.bruteforce(_enum(), 3, 5), ValueError, r"^instances must be the study's instance count"),
    (lambda: sfig.multihop_ablation({"a": _mh_run()}, ROLES[:2]), ValueError, r"^role_labels must name one role"),
], ids=lambda v: "" if callable(v) or isinstance(v, type) else v[:40])
def test_more_hostile_calls_of_the_same_boundaries(call, kind, pattern):
    try:
        with pytest.raises(kind, match=pattern):
            call()
    finally:
        plt.close("all")


def test_windowed_benchmark_rows_must_hold_the_columns(tmp_path):
    with pytest.raises(ValueError, match=r"the benchmark's rows lack \['dense_ms'"):
        analysis.windowed_benchmark(_bench(tmp_path, [{"n": 10, "full_ms": 1.0, "lazy_ms": 0.5, "ops_ratio": 0.4}]))
    text, numbers = analysis.windowed_benchmark(_bench(tmp_path, [
        {"n": 10, "full_ms": 1.0, "lazy_ms": 0.5, "dense_ms": 0.7, "ops_ratio": 0.4},
        {"n": 20, "full_ms": 2.0, "lazy_ms": 0.5, "dense_ms": 1.4, "ops_ratio": 0.2}]))
    assert numbers["rows"] == 2 and numbers["n_max"] == 20 and numbers["time_ratio_max_n"] == 0.25


# --- valid controls: the same functions on valid input ----------------------------------------------------------
def test_valid_calls_still_work():
    prob = _problem()
    a = pc.synapse_weights(prob["x_true"], prob["mu"], 1.0)
    assert a.shape == (3, 4) and torch.isfinite(a).all()
    L = pc.smoothness(prob)
    res = pc.infer(prob, method="gradient", steps=2, lr=0.5 / L)
    assert torch.equal(res["x"][-1], pc.infer(prob, method="gradient", steps=2, lr=(0.5 / L)[:, None][:, 0])["x"][-1])
    assert pc.infer(prob, method="gradient", steps=1, lr=0.1)["x"].shape == (2, 3, 3)
    q = expanding_core.effective_q(torch.tensor([1.0, 2.0]), torch.tensor(3.0))
    assert torch.equal(q, torch.tensor([1.0, 2.0]) / (torch.tensor([1.0, 2.0]) + 3.0))
    att = torch.nn.functional.pad(torch.softmax(_scores()[:, :-1], -1), (0, 1))
    assert torch.isfinite(expanding_core.expanding_elbo(_scores(), att, 1.1, 1.5, 0.1, 0.9)).all()
    r = expanding_core.expanding_attention(_scores(), torch.zeros(2, 8, 1, dtype=torch.float64), 0.1, 0.9,
                                           return_history=True)
    assert isinstance(r, expanding_core.ExpandingResult) and r._replace(output=None).output is None
    out = windowed.relative_operations(np.array([3, 4]), np.array([2, 2]), 10, 4)
    assert np.array_equal(out, (np.minimum([3.0, 4.0], 10) * 4 + np.array([2.0, 2.0])) / 40)
    w = multihop.make_task_weights(multihop.MultihopTask(d=3), _g())
    assert w.W_y.shape == (1, 3) and w.W_r.shape == (3, 3)
    st = optim.AdamState.zeros_like([torch.zeros(2, 3), torch.zeros(3)])
    assert st.step == 0 and len(st.exp_avg) == 2
    panels = graphs.mechanism_panels() + graphs.toy_problem_panels()
    assert len(panels) == 10
    plt.close(graphs.draw_mechanisms([_panel()], panel_size=1.0))
    allowed = edges.random_allowed(4, 5, 0.5, _g())
    assert allowed.shape == (4, 5) and bool(allowed.any(-1).all())
    assert edges.random_allowed(0, 5, 0.5, _g()).shape == (0, 5)
    gap, _ = hopfield.relaxation(8, 2, 2, [1.0], 3, generator=_g(), converged_steps=np.int64(5))   # b0393's control
    assert gap.shape == (4, 1, 2)


def test_valid_analyses_still_work(tmp_path):
    run = _exp_run()
    rel, ratio = analysis.operations({2: run}, [2], [0.5, 0.2])
    assert set(rel) == {(2, 0.5), (2, 0.2)} and all(np.isfinite(v).all() for v in rel.values())
    ops = analysis.operations_as_run({2: run}, [2], [0.5], n=6)
    assert 0 < ops[2, 0.5] < math.inf
    cmp = analysis.inference_comparison(_variants(), [0.5, 0.2], 2, 4, n=6)
    assert len(cmp["CAVI, paper slope"]["mse"]) == 2
    assert analysis.stored_code_measure(_full_exp())[1][0] == 0.2
    assert analysis.stored_replay(_replay())["batch"]["points"] == 12
    assert np.isfinite(analysis.cavi_residual(_scores(), 0.1, 0.9))
    assert analysis.elbo_gradients(_scores(), 0.1, 0.9, "cavi", tol=1e-6, first_window=3).shape == (2,)
    assert set(analysis.multihop_numbers(_mh_run())) >= {"nmse_one", "gap_closed"}
    merged = analysis_premises.merge_runs(run, _exp_run())
    assert merged["loss/expanding"].shape[0] == 2 * run["loss/expanding"].shape[0]
    fixed = _pc_study()["runs"]["fixed point (CCCP)"]
    assert len(unit_values.pc_restarts(_problem(), fixed, 3, 1.0, 1.0, _g(), starts=1)["pc_starts_acc"]) == 1
    mu0 = torch.randn(3, 2, 2, generator=_g(4), dtype=torch.float64)
    assert unit_values.slot_values(_width(), [1.0, 0.5], 0.5, mu0)["slot_sigmas"] == [1.0, 0.5]


def test_valid_figures_still_draw():
    mh = _mh_run()
    figs = [sfig.bruteforce(_enum(), 3, 2),
            sfig.hopfield(_hop_grid(), 4, np.abs(_hop_grid()["energies"].numpy()[..., 0]), [0.5, 1.0], 3),
            sfig.predictive_coding(_pc_study(), _problem(), 1.0, 4),
            sfig.multihop_curves({"paper": mh, "code": mh}, 2),
            sfig.multihop_attention({"paper": mh}, {"paper": _nmse(mh)}, ROLES),
            sfig.multihop_ablation({"a": mh, "b": mh}, ROLES),
            sfig.multihop_reproduction(_ref_multi10(), _repro(), analysis.replay_deviations(_repro(), _ref_multi10(),
                                                                                             [0, 1]), [0, 1]),
            sfig.expanding_window(_coverage(), [2], [0.5, 0.2]),
            sfig.inference_comparison(analysis.inference_comparison(_variants(), [0.5, 0.2], 2, 2, n=6), [0.5, 0.2], 2),
            sfig.paper_steps(*_paper_steps_inputs(), [0.5, 1.0])]
    try:
        assert all(isinstance(f, plt.Figure) for f in figs)
    finally:
        plt.close("all")


# --- the circular import ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("first, second", [("multihop_train", "multihop"), ("multihop", "multihop_train")])
def test_multihop_and_its_trainer_import_in_either_order(first, second):
    code = (f"import mfattn.structural.{first}, mfattn.structural.{second}\n"
            "from mfattn.structural import multihop as mh, multihop_train as mt\n"
            "from mfattn.structural.multihop import train_multihop, _model_streams, _skip_batches\n"
            "assert mh.train_multihop is mt.train_multihop is train_multihop\n"
            "assert _model_streams is mt._model_streams and _skip_batches is mt._skip_batches\n"
            "assert 'train_multihop' in dir(mh)\n"
            "try:\n    mh.no_such_name\nexcept AttributeError as e:\n    assert 'no_such_name' in str(e)\n"
            "else:\n    raise SystemExit('no AttributeError')\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
