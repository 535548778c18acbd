"""Outside table 8, structural (analysis, expanding, multihop, optim, windowed): each row refused by name, and its
valid neighbour still computed. Tiny inputs only: no ChapterRun, no profile."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mfattn.structural import analysis, analysis_multihop as AM, analysis_vi as AV, expanding as ex, multihop as mh
from mfattn.structural import expanding_task as ET, optim, windowed

F64 = torch.float64


def _run(d=2, n=6, ps=(0.5, 0.2), steps=4):
    """A tiny train_expanding run, built from arrays of its layout (no training): W/expanding (R, 2d + 1, d)."""
    R = len(ps)
    rng = np.random.default_rng(0)
    return {"ps": np.array(ps), "seeds": np.zeros(R, int), "loss/expanding": rng.uniform(1, 2, (R, steps)),
            "loss/standard": rng.uniform(1, 2, (R, steps)), "window": rng.integers(2, n, (R, steps, 1)),
            "reach": rng.integers(2, n, (R, steps, 1)), "iterations": rng.integers(1, 3, (R, steps, 1)),
            "distance/expanding": rng.integers(1, n - 1, (R, steps, 1)), "W/expanding": np.zeros((R, 2 * d + 1, d))}


def _ref_exp(ps=(0.5, 0.2)):
    return [{"expanding": {"geo_p": p, "loss": [2.0, 1.0], "window": [30, 31], "iterations": [1, 2]},
             "standard": {"loss": [1.0, 1.0]}} for p in ps]


def _multihop_result():
    return {"var_y": np.array([2.0, 2.0]), **{f"test_mse/{m}": np.array([v, v]) for m, v in
                                              (("one_layer", 1.0), ("multihop", 0.6), ("two_layer", 0.2))},
            **{f"mass/{m}": np.full((2, 4), 0.25) for m in ("one_layer", "multihop", "two_layer")}}


# --- the known row: analysis.inference_comparison accepted runs measured at another d (silent) ------------------
def test_inference_comparison_refuses_runs_of_another_d():
    # inference_comparison(d=3) on variants trained at d = 2
    variants = {"a": _run()}
    with pytest.raises(ValueError, match=r"^d must give the dimension variants\['a'\] was trained at"):
        analysis.inference_comparison(variants, [0.5], 3, 2)
    # prior_options(d=3): the same relation
    with pytest.raises(ValueError, match=r"^d must give the dimension"):
        analysis.prior_options(variants, [0.5], 3, 2)
    # inference_comparison(n=3) below the runs' parent distances
    with pytest.raises(ValueError, match=r"^n must be the runs' sequence length"):
        analysis.inference_comparison(variants, [0.5], 2, 2, n=3)
    out = analysis.inference_comparison(variants, [0.5], 2, 2, n=6)
    assert set(out["a"]) == {"window", "iterations", "ops", "mse"}
    assert analysis.prior_options(variants, [0.5], 2, 2)[1]["a"]


def test_runs_keyed_by_another_d_are_refused():
    # operations / operations_as_run(runs={3: run at d = 2}); prior_example(run at d = 2, d=3)
    with pytest.raises(ValueError, match=r"^runs must give the dimension runs\[3\]"):
        analysis.operations({3: _run()}, [3], [0.5])
    with pytest.raises(ValueError, match=r"^runs must give the dimension"):
        analysis.operations_as_run({3: _run()}, [3], [0.5], n=6)
    with pytest.raises(ValueError, match=r"^d must give the dimension run"):
        analysis.prior_example(_run(), 3, torch.Generator(), torch.Generator(), p=0.5)
    # prior_example(p=0.3) not among the run's ps (was: the nearest p, silently)
    with pytest.raises(ValueError, match=r"p = 0.3 is not among run's"):
        analysis.prior_example(_run(), 2, torch.Generator(), torch.Generator(), p=0.3)
    rel, _ = analysis.operations({2: _run()}, [2], [0.5])
    assert (2, 0.5) in rel


def test_window_coverage_refuses_what_it_would_pool_wrongly():
    runs = {2: _run()}
    # window_coverage(ps=[0.3]) not among the runs' ps (was: NaN coverage)
    with pytest.raises(ValueError, match=r"^ps: p = 0.3"):
        analysis.window_coverage(runs, [2], [0.3], first_window=3, n=6)
    # window_coverage(dims=[2, 2]) / ps=[0.5, 0.5]: pooled twice
    with pytest.raises(ValueError, match=r"^dims must not repeat"):
        analysis.window_coverage(runs, [2, 2], [0.5], first_window=3, n=6)
    with pytest.raises(ValueError, match=r"^ps must not repeat"):
        analysis.window_coverage(runs, [2], [0.5, 0.5], first_window=3, n=6)
    # window_coverage(first_window=60 >= n): no far parent (was: NaN far share)
    with pytest.raises(ValueError, match=r"^first_window must be below"):
        analysis.window_coverage(runs, [2], [0.5], first_window=60, n=6)
    # operations(dims=[2, 2])
    with pytest.raises(ValueError, match=r"^dims must not repeat"):
        analysis.operations(runs, [2, 2], [0.5])
    assert 0 <= analysis.window_coverage(runs, [2], [0.5], first_window=3, n=6)["covered"][2, 0.5] <= 1


@pytest.mark.parametrize("ref, match", [
    # reference_loss_ratios(ref_exp): NaN / empty losses, a zero standard loss, a missing model, a repeated geo_p
    ([{"expanding": {"geo_p": 0.5, "loss": [float("nan")] * 2}, "standard": {"loss": [1.0, 1.0]}}], r"'loss'\] must be"),
    ([{"expanding": {"geo_p": 0.5, "loss": []}, "standard": {"loss": []}}], r"'loss'\] must be a non-empty"),
    ([{"expanding": {"geo_p": 0.5, "loss": [1.0]}, "standard": {"loss": [0.0]}}], r"positive mean"),
    ([{"expanding": {"geo_p": 0.5, "loss": [1.0]}}], r"^ref_exp\[0\] lacks"),
    (_ref_exp((0.5, 0.5)), r"^ref_exp's geo_p must not repeat"),
])
def test_reference_loss_ratios_refuses_bad_stored_runs(ref, match):
    with pytest.raises(ValueError, match=match):
        analysis.reference_loss_ratios(ref)


def test_stored_readers_refuse_missing_keys_and_bad_values():
    assert analysis.reference_loss_ratios(_ref_exp((0.5,)), 0.5) == {0.5: 1.0}
    # code_measure(ref_exp without window): was KeyError
    with pytest.raises(ValueError, match=r"^ref_exp\[0\]\['expanding'\] lacks"):
        analysis.code_measure([{"expanding": {"geo_p": 0.5}}], _run(), [0.5])
    good = {"ps": [0.5], "stored_code_measure": [1.0], "code_measure_per_seed": {"0.5": {"0": 1.0}}}
    assert analysis.stored_code_measure(good)[0][0] == 0.5
    # stored_code_measure(full_exp): NaN stored value, per-seed values a list (was AttributeError), none
    for bad, match in (({**good, "stored_code_measure": [float("nan")]}, r"stored_code_measure'\] at p = 0.5"),
                       ({**good, "code_measure_per_seed": {"0.5": [1.0]}}, r"code_measure_per_seed'\]\[0.5\]"),
                       ({**good, "code_measure_per_seed": {"0.5": {}}}, r"code_measure_per_seed'\]\[0.5\]")):
        with pytest.raises((ValueError, TypeError), match=match):
            analysis.stored_code_measure(bad)


def test_elbo_and_cavi_refuse_empty_half_and_huge_scores():
    s = torch.randn(2, 6, generator=torch.Generator().manual_seed(0), dtype=F64)
    # elbo_gradients / cavi_residual(scores (0, T)): was torch's min() error
    for fn in (lambda x: AV.elbo_gradients(x, 0.1, 0.9, "plugin"), lambda x: AV.cavi_residual(x, 0.1, 0.9)):
        with pytest.raises(ValueError, match=r"^scores must hold at least one row"):
            fn(torch.zeros(0, 5, dtype=F64))
    # cavi_residual(scores float16): a residual at half precision (was returned)
    with pytest.raises(TypeError, match=r"^scores must be float32 or float64"):
        AV.cavi_residual(s.half(), 0.1, 0.9)
    assert AV.cavi_residual(s, 0.1, 0.9) < 1e-6 and AV.cavi_residual(s.float(), 0.1, 0.9) < 1e-3
    assert AV.elbo_gradients(s, 0.1, 0.9, "cavi").shape == (2,)


def test_expanding_attention_refuses_mixed_dtypes_and_wrong_lengths():
    s = torch.randn(2, 8, dtype=F64)
    v = torch.zeros(2, 8, 1, dtype=F64)
    # expanding_attention(values float32 beside float64 scores): was cast silently
    with pytest.raises(TypeError, match=r"^scores and values must have one dtype"):
        ex.expanding_attention(s, v.float(), 0.1, 0.9)
    # expanding_attention(alpha0 of 3 for 2 sequences): was torch's expand error
    with pytest.raises(ValueError, match=r"^alpha0 must be a number or one per sequence"):
        ex.expanding_attention(s, v, torch.tensor([0.1, 0.2, 0.3]), 0.9)
    # expanding_attention(scores (0, T)): was torch's min() error
    with pytest.raises(ValueError, match=r"^scores must hold at least one sequence"):
        ex.expanding_attention(torch.zeros(0, 8, dtype=F64), torch.zeros(0, 8, 1, dtype=F64), 0.1, 0.9)
    assert ex.expanding_attention(s, v, torch.tensor([0.1, 0.2], dtype=F64), 0.9).window.shape == (2,)
    # expanding_elbo(attention float32 beside float64 scores), effective_q(alpha float32, beta float64)
    att = torch.nn.functional.pad(torch.full((2, 7), 1 / 7, dtype=F64), (0, 1))
    with pytest.raises(TypeError, match=r"^scores and attention must have one dtype"):
        ex.expanding_elbo(s, att.float(), 1.1, 1.5, 0.1, 0.9)
    with pytest.raises(TypeError, match=r"^alpha and beta must have one dtype"):
        ex.effective_q(torch.tensor([1.0]), torch.tensor([1.0], dtype=F64))
    assert torch.isfinite(ex.expanding_elbo(s, att, 1.1, 1.5, 0.1, 0.9)).all()


def test_windowed_refuses_mismatches():
    q, k = torch.randn(2, 3, dtype=F64), torch.randn(2, 8, 3, dtype=F64)
    # lazy_expanding_attention(keys float32): was torch's dtype error; keys with no token (was an empty result)
    with pytest.raises(TypeError, match=r"^query, keys and values must have one dtype"):
        windowed.lazy_expanding_attention(q, k.float(), k, 0.1, 0.9)
    with pytest.raises(ValueError, match=r"^keys must hold at least 2 tokens"):
        windowed.lazy_expanding_attention(q, k[:, :0], k[:, :0], 0.1, 0.9)
    # relative_operations / operations_as_run(iterations of another length): was broadcast
    with pytest.raises(ValueError, match=r"^window and iterations must have one shape"):
        windowed.relative_operations([3, 4], [1], 50, 2)
    with pytest.raises(ValueError, match=r"^reach and iterations must have one shape"):
        windowed.operations_as_run([3, 4], [1], 50, 2)
    assert windowed.lazy_expanding_attention(q, k, k, 0.1, 0.9)[1] >= 1
    assert windowed.relative_operations([3], [1], 50, 2).shape == (1,)


def test_adam_refuses_mixed_dtypes_and_foreign_state():
    p = [torch.zeros(2)]
    # adam_update(grads float64 for a float32 parameter): was cast silently
    with pytest.raises(TypeError, match=r"^grads\[0\] and params\[0\] must have one dtype"):
        optim.adam_update(p, [torch.ones(2, dtype=F64)], optim.AdamState.zeros_like(p), lr=0.1)
    # adam_update(state of other parameters): was torch's size error
    with pytest.raises(ValueError, match=r"^state must hold the moments of these params"):
        optim.adam_update([torch.zeros(3)], [torch.ones(3)], optim.AdamState.zeros_like(p), lr=0.1)
    optim.adam_update(p, [torch.ones(2)], optim.AdamState.zeros_like(p), lr=0.1)
    assert bool((p[0] < 0).all())


def test_multihop_task_refuses_bad_weights_and_shared_streams():
    task = mh.MultihopTask()
    g = torch.Generator().manual_seed(0)
    w = mh.make_task_weights(task, g)
    # TaskWeights(W_r float64) / (W_y NaN): was accepted
    with pytest.raises(TypeError, match=r"^W_y and W_r must be float32"):
        mh.TaskWeights(torch.ones(1, 3), torch.ones(3, 3, dtype=F64))
    with pytest.raises(ValueError, match=r"^W_y must hold finite"):
        mh.TaskWeights(torch.full((1, 3), float("nan")), torch.ones(3, 3))
    # sample_multihop_batch(weights of d = 4 for a d = 3 task): was torch's bmm error
    with pytest.raises(ValueError, match=r"^weights must be drawn for the task's d = 3"):
        mh.sample_multihop_batch(task, mh.TaskWeights(torch.ones(1, 4), torch.ones(4, 4)), 4, g, shuffle="none")
    # sample_multihop_batch(shuffle_generator = the data generator) / batches(one generator twice)
    with pytest.raises(ValueError, match=r"^shuffle_generators must hold a generator of its own"):
        mh.sample_multihop_batch(task, w, 4, g, shuffle_generator=g)
    with pytest.raises(ValueError, match=r"^generators must hold a generator of its own"):
        mh.sample_multihop_batches(task, [w, w], 4, [g, g], shuffle="none")
    # make_task_weights(task with d = 10**6): was the allocator's error
    with pytest.raises(ValueError, match=r"^task.d makes the task's weights need"):
        mh.make_task_weights(mh.MultihopTask(d=10**6), g)
    X, y, _ = mh.sample_multihop_batch(task, w, 4, g, shuffle_generator=torch.Generator().manual_seed(1))
    assert X.shape == (4, task.n, task.d)


def test_multihop_models_refuse_bad_inputs():
    P = mh.init_params("one_layer", 3, torch.Generator().manual_seed(0), 2)
    X = torch.randn(2, 4, 5, 3)
    # forward(X float64, params float32): was torch's dtype error; forward(X with T = 0): was an IndexError
    with pytest.raises(TypeError, match=r"^params and X must have one dtype"):
        mh.forward("one_layer", P, X.double())
    with pytest.raises(ValueError, match=r"^X must have shape \(S, B, T, d\) with T >= 1"):
        mh.forward("one_layer", P, X[:, :, :0])
    # hop_operator(scores (0, 0)): was an empty operator
    with pytest.raises(ValueError, match=r"^scores must have shape"):
        mh.hop_operator(torch.zeros(0, 0))
    # collapse_rate(mass with no run / negative masses): was NaN / 0
    with pytest.raises(ValueError, match=r"^mass must have shape"):
        mh.collapse_rate(np.zeros((0, 4)))
    with pytest.raises(ValueError, match=r"^mass must hold finite attention masses"):
        mh.collapse_rate(-np.ones((2, 4)))
    # relative_error(a (3, 1), b (2,)): was broadcast to a (3, 2) table; empty
    with pytest.raises(ValueError, match=r"^a and b must have one shape"):
        mh.relative_error(np.ones((3, 1)), np.ones(2))
    with pytest.raises(ValueError, match=r"^a and b must have one shape"):
        mh.relative_error([], [])
    assert mh.forward("one_layer", P, X).shape == (2, 4)
    assert mh.collapse_rate(np.full((2, 4), 0.25)) == 0.0
    assert mh.relative_error([1.0, 2.0], [1.0, 1.0]).tolist() == [0.0, 1.0]


def test_multihop_measures_refuse_bad_runs():
    ok = {"0": {"long": [1.0, 0.2], "standard": [1.0, 0.9]}, "1": {"long": [1.0, 0.9], "standard": [1.0, 0.2]}}
    # stuck_seeds(ref_multi with an empty / NaN loss list, a missing model; seeds repeated)
    for bad, match in (({"0": {"long": []}}, r"^ref_multi\['0'\]\['long'\] must be a non-empty"),
                       ({"0": {"long": [float("nan"), 1.0]}}, r"^ref_multi\['0'\]\['long'\] must be"),
                       ({"0": {"standard": [1.0]}}, r"^ref_multi\['0'\] lacks")):
        with pytest.raises(ValueError, match=match):
            AM.stuck_seeds(bad, "long", [0])
    with pytest.raises(ValueError, match=r"^seeds must not repeat"):
        AM.stuck_seeds(ok, "long", [0, 0])
    assert AM.stuck_seeds(ok, "long", [0, 1]) == [1]
    repro = {"record_steps": np.array([0, 1000]), "loss/multihop": np.array([[1.0, 0.2], [1.0, 0.9]]),
             "loss/one_layer": np.array([[1.0, 0.9], [1.0, 0.2]])}
    # replay_deviations(seeds [0] for 2 rows of repro): was broadcast; repro without a model's losses: KeyError
    with pytest.raises(ValueError, match=r"^repro\['loss/multihop'\] must hold one row per seed"):
        AM.replay_deviations(repro, ok, [0])
    with pytest.raises(ValueError, match=r"^repro lacks"):
        AM.replay_deviations({"record_steps": repro["record_steps"]}, ok, [0, 1])
    with pytest.raises(ValueError, match=r"^ref_multi holds fewer than the 3 logged losses"):
        AM.replay_deviations({**repro, "record_steps": np.arange(3), "loss/multihop": np.ones((2, 3)),
                              "loss/one_layer": np.ones((2, 3))}, ok, [0, 1])
    assert float(AM.replay_deviations(repro, ok, [0, 1])["multihop"].max()) == 0.0
    # stored_replay(no variant / a negative deviation)
    with pytest.raises(ValueError, match=r"^replay\['variants'\] must hold at least one"):
        AM.stored_replay({"variants": {}})
    neg = {"variants": {"b": {m: {"relative_deviation": [[-1.0]]} for m in ("multihop", "one_layer")}}}
    with pytest.raises(ValueError, match=r"relative_deviation'\] must hold relative deviations >= 0"):
        AM.stored_replay(neg)
    # multihop_numbers / per_seed_nmse(var_y 0 or NaN or < 0); one- and two-layer NMSE equal (ZeroDivisionError)
    res = _multihop_result()
    for var_y in (0.0, float("nan"), -1.0):
        with pytest.raises(ValueError, match=r"^result\['var_y'\] must be positive"):
            AM.multihop_numbers({**res, "var_y": var_y})
        with pytest.raises(ValueError, match=r"^result\['var_y'\] must be positive"):
            AM.per_seed_nmse({**res, "var_y": var_y})
    with pytest.raises(ValueError, match=r"^result: the one-layer and two-layer models' NMSE must differ"):
        AM.multihop_numbers({**res, "test_mse/two_layer": res["test_mse/one_layer"]})
    assert AM.multihop_numbers(res)["gap_closed"] == pytest.approx(0.5)
    assert AM.per_seed_nmse(res)["nmse_one"] == pytest.approx(0.5)


def test_expanding_task_refuses_bad_weights_dtypes_and_streams():
    g = torch.Generator().manual_seed(0)
    t = ET.ExpandingTask(d=2, n=6, p=0.5)
    w = ET.make_expanding_weights(2, g)
    # sample_expanding_batch(weights float64 / NaN): was drawn anyway; one generator for two tasks' streams
    with pytest.raises(ValueError, match=r"^weights\[0\] must be finite float32"):
        ET.sample_expanding_batch([t], [(w[0].double(), w[1].double())], 3, g)
    with pytest.raises(ValueError, match=r"^weights\[0\] must be finite float32"):
        ET.sample_expanding_batch([t], [(w[0] * float("nan"), w[1])], 3, g)
    with pytest.raises(ValueError, match=r"^generator: one generator object of its own per task"):
        ET.sample_expanding_batch([t, t], [w, w], 3, [g, g])
    X, _, _ = ET.sample_expanding_batch([t], [w], 3, g)
    W = torch.randn(1, 5, 2)
    # expanding_forward / standard_forward(W float64, X float32): was torch's dtype error
    with pytest.raises(TypeError, match=r"^W and X must have one dtype"):
        ET.expanding_forward(W.double(), X, 0.1, 0.9)
    with pytest.raises(TypeError, match=r"^W and X must have one dtype"):
        ET.standard_forward(W.double(), X)
    # expanding_forward(alpha0 of 2 for 1 replica): was torch's expand error
    with pytest.raises(ValueError, match=r"^alpha0 must be a number or one per replica"):
        ET.expanding_forward(W, X, torch.tensor([0.1, 0.2]), 0.9)
    assert ET.expanding_forward(W, X, 0.1, 0.9).shape == (1, 3)


def test_training_refuses_repeats_empty_models_and_huge_steps():
    from mfattn.structural.expanding_train import train_expanding, train_expanding_variants
    from mfattn.structural.multihop_train import train_multihop

    kw = dict(d=2, n=6, steps=2, record_every=1, cache=False)
    # train_expanding(ps=[0.5, 0.5] / seeds=[0, 0]): replicas pooled twice; models=(): an empty run
    with pytest.raises(ValueError, match=r"^ps must be distinct"):
        train_expanding(ps=[0.5, 0.5], seeds=[0], **kw)
    with pytest.raises(ValueError, match=r"^seeds must be distinct"):
        train_expanding(ps=[0.5], seeds=[0, 0], **kw)
    with pytest.raises(ValueError, match=r"^models must name each of expanding, standard"):
        train_expanding(ps=[0.5], seeds=[0], models=(), **kw)
    with pytest.raises(ValueError, match=r"^variants must name at least one"):
        train_expanding_variants({}, ps=[0.5], seeds=[0], **kw)
    # train_expanding(steps=10**12): was numpy's MemoryError
    with pytest.raises(ValueError, match=r"^steps[ =]"):   # its work (work.py), before its records' memory
        train_expanding(ps=[0.5], seeds=[0], d=2, n=6, steps=10**12, cache=False)
    # train_multihop(models repeated / steps=10**12)
    mkw = dict(batch_size=2, test_size=2, record_every=1, cache=False)
    with pytest.raises(ValueError, match=r"^models must name each model once"):
        train_multihop(("one_layer", "one_layer"), (0,), steps=2, **mkw)
    with pytest.raises(ValueError, match=r"^steps[ =]"):   # its work (work.py), before its losses' memory
        train_multihop(("one_layer",), (0,), steps=10**12, **mkw)
    assert train_expanding(ps=[0.5], seeds=[0], models=("expanding",), **kw)["window"].shape == (1, 2, 1)


def test_premises_refuse_runs_pooled_twice_or_of_another_d():
    from mfattn.structural import analysis_premises as AP

    runs = {2: _run()}
    # window_adaptation(ps=[0.3]) no run trained at it (was: no run, silently); dims repeated; runs keyed 3 at d = 2
    with pytest.raises(ValueError, match=r"^ps: p = 0.3 is not among runs\[2\]"):
        AP.window_adaptation(runs, [2], [0.3], first_window=3, n=6)
    with pytest.raises(ValueError, match=r"^dims must not repeat"):
        AP.window_adaptation(runs, [2, 2], [0.5], first_window=3, n=6)
    with pytest.raises(ValueError, match=r"^runs must give the dimension runs\[3\]"):
        AP.window_adaptation({3: _run()}, [3], [0.5], first_window=3, n=6)
    # code_counts(code_runs={3: run at d = 2})
    with pytest.raises(ValueError, match=r"^code_runs must give the dimension"):
        AP.code_counts({3: _run()}, {}, [0.5])
    # task_premise(seeds=[0, 0])
    with pytest.raises(ValueError, match=r"^seeds must not repeat"):
        AP.task_premise(mh.MultihopTask(), [0, 0])
    assert set(AP.window_adaptation(runs, [2], [0.5], first_window=3, n=6)) == {"near_rho_runs", "near_lift_runs"}
    assert "code_ops_2_2_seeds" in AP.code_counts(runs, {}, [0.5])
