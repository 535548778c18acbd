"""Contract specs of chapters 4-5's reductions of stored runs and inner steps (issue 44 item 5), see
contracts_registry.py. The runs are tiny runs of the producers (cached in :mod:`contracts_strategies_b`); the
public code's stored files are small synthetic dicts of their documented form."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from contracts_registry import Spec
from contracts_specs_foundations import gen, randn, seed
from contracts_specs_structural import _multihop_task
import contracts_strategies_b as B

S = "mfattn.structural."
HYPER = {"alpha0": ">0", "beta0": ">0"}


def _exp(d, **extra):
    return {**B.exp_runs(d), **extra}


def _update(d):
    return d(st.sampled_from(["plugin", "digamma", "cavi"]))


def _variants(d):
    return {"variants": B.variants(), "ps": [0.5, 0.2], "d": 2, "tail": 2}


def _expanding_inputs(d):
    from mfattn.structural.expanding_task import ExpandingTask, make_expanding_weights, sample_expanding_batch

    g = gen(d)
    W = torch.randn(1, 5, 2, generator=g, dtype=torch.float64)
    X, _, _ = sample_expanding_batch([ExpandingTask(d=2, n=6, p=0.5)], [make_expanding_weights(2, g)], 3, g)
    return {"W": W, "X": X.double()}


def _expanding_batch(d):
    from mfattn.structural.expanding_task import ExpandingTask, make_expanding_weights

    return {"tasks": [ExpandingTask(d=2, n=6, p=0.5)], "weights": [make_expanding_weights(2, gen(d))],
            "batch_size": d(st.integers(1, 4)), "generator": gen(d)}


def _multihop_inputs(d):
    from mfattn.structural.multihop import MultihopTask, make_task_weights

    task = MultihopTask(d=2, n=5)
    return {"task": task, "weights": make_task_weights(task, gen(d)), "batch_size": d(st.integers(1, 4)),
            "generator": gen(d), "shuffle_generator": gen(d)}


def _multihop_streams(d):
    b = _multihop_inputs(d)
    return {"task": b["task"], "weights": [b["weights"]], "batch_size": b["batch_size"], "generators": [b["generator"]],
            "shuffle_generators": [b["shuffle_generator"]]}


def _forward_inputs(d):
    from mfattn.structural.multihop import init_params, sample_multihop_batch

    b = _multihop_inputs(d)
    X = sample_multihop_batch(b["task"], b["weights"], 3, gen(d), shuffle="none")[0][None]
    model = d(st.sampled_from(["one_layer", "multihop", "two_layer"]))
    return {"model": model, "params": init_params(model, 2, gen(d)), "X": X}


def _adam(d):
    from mfattn.structural.optim import AdamState

    params = [randn(d, 2, 3), randn(d, 3)]
    return {"params": params, "grads": [randn(d, 2, 3), randn(d, 3)], "state": AdamState.zeros_like(params),
            "lr": d(st.floats(1e-4, 1e-1))}


SPECS = {
    # the expanding task's inner steps
    S + "windowed:operations_as_run": Spec(lambda d: {"reach": np.array([3, 5, 50]), "iterations": np.array([1, 2, 3]),
                                                      "n": 50, "d": d(st.integers(1, 10))},
                                           domain={"n": "int>=2", "d": "int>=1"}),
    S + "expanding_prior:expanding_elbo": Spec(lambda d: {"scores": B.scores(d), "attention": torch.nn.functional.pad(
        torch.softmax(B.scores(d)[:, :-1], -1), (0, 1)),   # q(t) on t >= 1: zero on the query itself (t = 0)
        "alpha": torch.tensor([1.1, 1.2], dtype=torch.float64), "beta": torch.tensor([1.5, 2.0], dtype=torch.float64),
        "alpha0": 0.1, "beta0": 0.9}, domain=HYPER),
    S + "expanding_task:expanding_forward": Spec(lambda d: {**_expanding_inputs(d), "alpha0": 0.1, "beta0": 0.9},
                                                 domain=HYPER),
    S + "expanding_task:standard_forward": Spec(_expanding_inputs),
    S + "expanding_task:sample_expanding_batch": Spec(_expanding_batch, domain={"batch_size": "int>=1"},
                                                      sizes={"batch_size": 10**12}),
    S + "expanding_train:train_expanding_variants": Spec(
        lambda d: {"variants": {"a": {}, "b": {"update": "cavi"}}, "ps": (0.5,), "d": 2, "n": 5, "steps": 2,
                   "record_every": 1, "cache": False},
        domain={"steps": "int>=1", "lr": ">0", "weight_decay": ">=0", "d": "int>=1", "n": "int>=3", "alpha0": ">0",
                "beta0": ">0", "batch_size": "int>=1"}, sizes={"batch_size": 10**12},
        skip=("cache", "progress", "record_every")),
    S + "multihop_task:sample_multihop_batch": Spec(_multihop_inputs, domain={"batch_size": "int>=1"},
                                               sizes={"batch_size": 10**12}),
    S + "multihop_task:sample_multihop_batches": Spec(_multihop_streams,
                                                 domain={"batch_size": "int>=1"}, sizes={"batch_size": 10**12}),
    S + "multihop:forward": Spec(_forward_inputs, domain={"hops": "int>=1"}),
    S + "optim:adam_update": Spec(_adam, domain={"lr": ">0", "weight_decay": ">=0", "eps": ">0"}),
    # reductions of runs (train_expanding, train_multihop at tiny sizes)
    S + "analysis_vi:cavi_residual": Spec(lambda d: {"scores": B.scores(d), "alpha0": 0.1, "beta0": 0.9}, domain=HYPER),
    S + "analysis_vi:elbo_gradient": Spec(lambda d: {"scores": B.scores(d), "alpha0": 0.1, "beta0": 0.9,
                                                  "update": _update(d)}, domain=HYPER),
    S + "analysis_vi:elbo_gradients": Spec(lambda d: {"scores": B.scores(d), "alpha0": 0.1, "beta0": 0.9,
                                                   "update": _update(d)}, domain={**HYPER, "tol": ">0"}),
    S + "analysis:operations_as_run": Spec(lambda d: _exp(d, n=6), domain={"n": "int>=2"}),
    S + "analysis:operations": Spec(_exp),
    S + "analysis:window_coverage": Spec(lambda d: _exp(d, first_window=3, n=6),
                                         domain={"first_window": "int>=1", "n": "int>=1"}),
    S + "analysis_premises:window_adaptation": Spec(lambda d: _exp(d, first_window=3, n=6),
                                                    domain={"first_window": "int>=1", "n": "int>=1"}),
    S + "analysis_premises:code_counts": Spec(lambda d: {"code_runs": {2: B.expanding_run()},
                                                         "references": {50: B.ref_exp(d)}, "ps": [0.5, 0.2]},
                                              domain={"n": "int>=1"}),
    S + "analysis_premises:merge_runs": Spec(lambda d: {"base": B.expanding_run(),
                                                        "extra": B.expanding_run(seeds=(2,))}),
    S + "analysis_premises:task_premise": Spec(lambda d: {"task": _multihop_task(d),
                                                          "seeds": [seed(d)]}, skip=("task",)),
    S + "analysis:prior_example": Spec(lambda d: {"run": B.expanding_run(), "d": 2, "data_generator": gen(d),
                                                  "weight_generator": gen(d), "p": 0.5}, domain={"p": "(0,1]"}),
    S + "analysis:prior_options": Spec(_variants, domain={"d": "int>=1", "tail": "int>=1"}),
    S + "analysis:inference_comparison": Spec(_variants, domain={"d": "int>=1", "tail": "int>=1", "n": "int>=1"}),
    S + "analysis_multihop:multihop_numbers": Spec(lambda d: {"result": B.multihop_run()}),
    S + "analysis_multihop:per_seed_nmse": Spec(lambda d: {"result": B.multihop_run(), "prefix": d(st.sampled_from(["", "abl_"]))}),
    S + "analysis:per_unit_values": Spec(lambda d: {"paper": B.multihop_run(), "ablation": B.multihop_run(),
                                                    "exp_runs": {2: B.expanding_run()}, "code_runs": {2: B.expanding_run()},
                                                    "variants": {"plug-in, paper slope": B.variants()["plug-in, paper slope"]},
                                                    "coverage": B.coverage(), "vi_scores": B.scores(d), "ps": [0.5, 0.2],
                                                    "tail": 2}, domain={"tail": "int>=1", "head_fraction": "(0,1]", **HYPER}),
    # the public code's stored files, as small dicts of their documented form
    S + "analysis:reference_loss_ratios": Spec(lambda d: {"ref_exp": B.ref_exp(d)}, domain={"tail_fraction": "(0,1]"}),
    S + "analysis_multihop:stuck_seeds": Spec(lambda d: {"ref_multi": B.ref_multi(d), "key": d(st.sampled_from(["long", "standard"])),
                                                "seeds": [0, 1]}),
    S + "analysis_multihop:replay_deviations": Spec(lambda d: {"repro": B.repro(d), "ref_multi": B.ref_multi(d), "seeds": [0, 1]}),
    S + "analysis_multihop:replay_record": Spec(lambda d: {"repro": B.repro(d), "ref_multi": B.ref_multi(d), "seeds": [0, 1],
                                                  "steps": 3000}, domain={"steps": "int>=1"}),
    S + "analysis_multihop:stored_replay": Spec(lambda d: {"replay": B.replay(d)}),
    S + "analysis:stored_code_measure": Spec(lambda d: {"full_exp": B.full_exp(d)}),
    S + "analysis:code_measure": Spec(lambda d: {"ref_exp": B.ref_exp(d), "code_run": B.expanding_run(), "ps": [0.5, 0.2]}),
    S + "analysis:code_measure_record": Spec(lambda d: {"code_run": B.expanding_run(), "ref_exp": B.ref_exp(d),
                                                        "ps": [0.5, 0.2], "steps": 4}, domain={"steps": "int>=1"}),
}

# chapter 4's per-unit values (tiny runs of the studies: enumeration_study, width_study, step_size_study)
PC = {"steps": "int>=1", "pi": ">0", "pi_y": ">0"}
GRAD = "gradient, lr = 0.5/L"


def _pc_values(d):
    i = B.pick(d, 2)
    return {"problem": B.pc_problem(i), "pcs": B.pc_study(i), "steps": 3, "pi": 1.0, "pi_y": 1.0, "grad_name": GRAD,
            "noise_levels": [0.3, 1.0], "base_noise": 0.3, "generator": gen(d)}


def _chapter_values(d):
    i = B.pick(d, 2)
    return {"enum": B.enumeration(i), "enum_beta": 1.0,
            "hop_sizes": {"dim": 4, "counts": [2, 3], "betas": [0.5, 1.0], "trials": 2}, "sl": B.width(i),
            "slot_sizes": {"sigmas": [1.0, 0.5], "sigma": 1.0}, "mu_forms": B.mu_start(d),
            "problem": B.pc_problem(i), "pcs": B.pc_study(i), "pc_sizes": {"steps": 3, "pi": 1.0, "pi_y": 1.0},
            "grad_name": GRAD, "gap_raw": np.array([0.1, 0.2]), "generator": gen(d)}


SPECS.update({
    S + "unit_values:enumeration_roundoff": Spec(lambda d: {"enum": B.enumeration(B.pick(d, 2)),
                                                            "beta": d(st.floats(0.1, 2.0))}, domain={"beta": ">=0"}),
    S + "unit_values:hopfield_values": Spec(lambda d: {"dim": 4, "counts": [2, 3], "betas": [d(st.floats(0.2, 2.0)), 1.0],
                                                       "trials": 2, "generator": gen(d)},
                                            domain={"dim": "int>=1", "trials": "int>=1"}, sizes={"trials": 10**12}),
    S + "unit_values:slot_values": Spec(lambda d: {"sl": B.width(B.pick(d, 2)), "sigmas": [1.0, 0.5], "sigma": 1.0,
                                                   "mu_start": B.mu_start(d)}, domain={"sigma": ">0"}),
    S + "unit_values:paper_slot_values": Spec(lambda d: {"x": B.width(0)["x"], "mu_start": B.mu_start(d),
                                                         "labels": B.width(0)["labels"], "sigma": d(st.floats(0.3, 2.0)),
                                                         "steps": 3},
                                              domain={"sigma": ">0", "steps": "int>=1"}, sizes={"steps": 10**12}),
    S + "unit_values:paper_slot_comparison": Spec(lambda d: {"sl": B.width(B.pick(d, 2)), "sigma": d(st.floats(0.3, 2.0)),
                                                             "steps": 3},
                                                  domain={"sigma": ">0", "steps": "int>=1"}, sizes={"steps": 10**12}),
    S + "unit_values:pc_values": Spec(_pc_values, domain=PC, sizes={"steps": 10**12}),
    S + "unit_values:pc_restarts": Spec(lambda d: {k: v for k, v in _pc_values(d).items() if k in
                                                   ("problem", "steps", "pi", "pi_y", "generator")} |
                                        {"fixed": B.pc_study(0)["runs"]["fixed point (CCCP)"], "starts": 2},
                                        domain={**PC, "starts": "int>=1"}, sizes={"steps": 10**12, "starts": 10**12}),
    S + "unit_values:chapter_values": Spec(_chapter_values, domain={"enum_beta": ">=0"}),
})

# chapter 4's explanatory graphs (drawn from GraphPanel data) and the claims' stored summary (in a fresh folder)
def _panel(d):
    from mfattn.structural.graphs import GraphPanel

    return GraphPanel("toy", {"q": (0.0, 0.0, "q", False), "k": (1.0, d(st.floats(0, 1)), "k", True)},
                      candidates=[("k", "q")], chosen=[("k", "q")], weights={("k", "q"): d(st.floats(0.1, 1))})


def _chapter(d):
    return d(st.sampled_from(["structural", "designs"]))


def _summary(d):
    return {"hop_trials": d(st.integers(1, 10)), "enum_errors_cross": [1e-16, 2e-16], "note": "text",
            "pc_acc_fixed": d(st.floats(0, 1))}


def _saved_root(d):
    from mfattn.structural.claims_summary import save

    root = B.tmpdir()
    save(root, "structural", _summary(d))
    return root


SPECS.update({
    S + "graphs:mechanism_panels": Spec(lambda d: {}),
    S + "graphs:toy_problem_panels": Spec(lambda d: {}),
    S + "graphs:GraphPanel": Spec(lambda d: {"title": "toy", "nodes": {"q": (0.0, 0.0, "q", False),
                                                                       "k": (1.0, d(st.floats(0, 1)), "k", True)},
                                             "candidates": [("k", "q")]}),
    S + "graphs:draw_panel": Spec(lambda d: {"ax": None, "panel": _panel(d), "radius": d(st.floats(0.05, 0.3))},
                                  call=B.in_new_axes, skip=("ax",), domain={"radius": ">0"}),
    S + "graphs:draw_mechanisms": Spec(lambda d: {"panels": [_panel(d), _panel(d)], "ncols": d(st.integers(1, 3)),
                                                  "panel_size": d(st.floats(0.5, 2))},
                                       domain={"ncols": "int>=1", "panel_size": ">0"}, sizes={"ncols": 10**12}),
    S + "graphs:draw_toy_problems": Spec(lambda d: {"panel_size": d(st.floats(0.5, 2))}, domain={"panel_size": ">0"}),
    S + "claims_summary:summary_path": Spec(lambda d: {"root": B.tmpdir(), "chapter": _chapter(d)}, skip=("root",)),
    S + "claims_summary:save": Spec(lambda d: {"root": B.tmpdir(), "chapter": _chapter(d), "summary": _summary(d)},
                                    skip=("root",)),
    S + "claims_summary:full_numbers": Spec(lambda d: {"root": _saved_root(d), "chapter": "structural"},
                                            skip=("root",)),
    S + "claims_summary:stored_numbers": Spec(lambda d: {"root": _saved_root(d), "chapter": "structural"},
                                              skip=("root",)),
})

# chapters 4-5's figures, from tiny runs of their studies (drawn in the forked child)
ROLES = ["noise", "x0", "x1", "x2"]


def _multihop_results(d):
    return {"paper": B.multihop_run(), "code": B.multihop_run(seeds=(2, 3))}


def _nmse(results):
    return {t: {m: r[f"test_mse/{m}"] / r["var_y"] for m in ("one_layer", "multihop", "two_layer")}
            for t, r in results.items()}


def _prior_example(d):
    from mfattn.structural.analysis import prior_example

    return prior_example(B.expanding_run(), 2, B._g(seed(d) % 3), B._g(1), p=0.5)


def _ops(d):
    from mfattn.structural.analysis import operations

    e = B.exp_runs(d)
    return {**e, "rel": operations(e["runs"], e["dims"], e["ps"])[0]}


def _comparison(d):
    from mfattn.structural.analysis import inference_comparison

    return {"comparison": inference_comparison(B.variants(), [0.5, 0.2], 2, 2, n=6), "ps": [0.5, 0.2], "d": 2}


def _reproduction(d):
    from mfattn.structural.analysis import replay_deviations

    repro, ref = B.repro(d, steps=3), B.ref_multi(d, seeds=tuple(range(10)), steps=20)   # the stored file: 10 seeds, 20 logs
    return {"ref_multi": ref, "repro": repro, "dev": replay_deviations(repro, ref, [0, 1]), "seeds": [0, 1]}


SPECS.update({
    S + "figures:bruteforce": Spec(lambda d: {"study": B.enumeration(B.pick(d, 2)), "n": 3, "instances": 2},
                                   domain={"n": "int>=1", "instances": "int>=1"}),
    S + "figures:hopfield": Spec(lambda d: {"grid": B.hopfield_grid(B.pick(d, 2)), "dim": 4,
                                            "gap_long": np.abs(B.hopfield_grid(0)["energies"].numpy()[..., 0]),   # (steps + 1, B, T)
                                            "betas_long": [0.5, 1.0], "n_long": 3},
                                 domain={"dim": "int>=1", "n_long": "int>=1"}),
    S + "figures:slots": Spec(lambda d: {"study": B.width(B.pick(d, 2)), "sigmas": [1.0, 0.5], "spread": 0.5,
                                         "n_slots": 2, "trial": d(st.integers(0, 2))},
                              domain={"spread": ">=0", "n_slots": "int>=1", "trial": "int>=0"}),
    S + "figures:predictive_coding": Spec(lambda d: {"study": B.pc_study(i := B.pick(d, 2)), "problem": B.pc_problem(i),
                                                     "pi": 1.0, "n_parents": 4},
                                          domain={"pi": ">0", "n_parents": "int>=1"}),
    S + "figures_designs:multihop_curves": Spec(lambda d: {"results": _multihop_results(d), "n_seeds": 2},
                                        domain={"n_seeds": "int>=1"}),
    S + "figures_designs:multihop_attention": Spec(lambda d: {"results": (r := _multihop_results(d)), "nmse_test": _nmse(r),
                                                      "role_labels": ROLES}),
    S + "figures_designs:multihop_ablation": Spec(lambda d: {"runs": {"uniform": B.multihop_run(), "noise": B.multihop_run()},
                                                     "role_labels": ROLES}),
    S + "figures_designs:multihop_reproduction": Spec(_reproduction),
    S + "figures_designs:expanding_prior": Spec(lambda d: {"example": _prior_example(d)}),
    S + "figures_designs:expanding_operations": Spec(_ops),
    S + "figures_designs:expanding_window": Spec(lambda d: {"coverage": B.coverage(), "dims": [2], "ps": [0.5, 0.2]}),
    S + "figures_designs:inference_comparison": Spec(_comparison, domain={"d": "int>=1"}),
})

# chapters 4-5's claims (the checkout's data/full, a recorder run), cached and stored files
SPECS.update({
    S + "claims:record": Spec(lambda d: {"run": B.Recorder(), "root": B.ROOT, "chapter": "structural"}),
    S + "claims:glue_full": Spec(lambda d: {"run": B.Recorder(), "root": B.ROOT, "chapter": _chapter(d),
                                            "formats": {"hop_trials": "{:.0f}", "absent": "{}"}}),
    S + "claims_designs:stored_numbers": Spec(lambda d: {"root": B.ROOT, "chapter": "designs"}),
    S + "hopfield:cached_retrieval_grid": Spec(lambda d: {"dim": 4, "pattern_counts": [2], "betas": [d(st.floats(0.5, 4))],
                                                          "trials": 2, "steps": 2, "seed": seed(d)},
                                               call=B.with_cache, domain={"dim": "int>=1", "trials": "int>=1",
                                                                          "steps": "int>=0", "seed": "int>=0"},
                                               sizes={"trials": 10**12}, skip=("device",)),
    # path: a str names a file that is not there (FileNotFoundError, as any reader); None is refused (a TypeError)
    S + "analysis:windowed_benchmark": Spec(lambda d: {"path": B.benchmark_file(d)}, skip=("path",)),
    S + "analysis:expanding_runs": Spec(lambda d: {"sizes": {"exp_ps": [0.5], "exp_seeds": [0], "exp_batch": 1,
                                                             "exp_dims": [2], "exp_steps": 2,
                                                             "exp_code_steps": d(st.sampled_from([2, 3]))}},
                                        call=B.with_cache),
    S + "multihop:reference_path": Spec(lambda d: {"name": "multiple_training.json"}),
})
