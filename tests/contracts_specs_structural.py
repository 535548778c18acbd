"""Contract specs of ``mfattn.structural`` (chapters 4-5), see contracts_registry.py."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from contracts_registry import Exempt, Spec
from contracts_specs_foundations import RESULT, gen, randn, seed

S = "mfattn.structural."


def _multihop_task(d):
    from mfattn.structural.multihop import MultihopTask

    return MultihopTask(mode=d(st.sampled_from(["paper", "code"])), d=d(st.integers(1, 3)), n=5)


def _qkv(d, m=None, n=None):
    m = m or d(st.integers(1, 3))
    n = n or d(st.integers(1, 3))
    dim = d(st.integers(1, 3))
    return {"q": randn(d, 1, m, dim), "k": randn(d, 1, n, dim), "v": randn(d, 1, n, 2)}


def _self_qkv(d):
    n = d(st.integers(1, 3))
    return _qkv(d, n, n)


def _patterns(d):
    from mfattn.structural import hopfield

    P = hopfield.random_patterns(d(st.integers(2, 4)), d(st.integers(2, 6)), generator=gen(d))
    return {"xi": P[0].clone(), "patterns": P, "beta": d(st.floats(0.1, 4))}


def _slot_data(d):
    n, k = d(st.integers(3, 8)), d(st.integers(1, 3))
    return {"x": randn(d, 1, n, 2), "mu": randn(d, 1, k, 2), "sigma": d(st.floats(0.2, 3))}


def _pc(d):
    from mfattn.structural import predictive_coding as pc

    return pc.make_problem(2, 3, 4, 2, generator=gen(d))


def _allowed(d, m=2, n=3):
    return torch.ones(m, n, dtype=torch.bool)


SPECS = {
    # edges
    S + "edges:allowed_parents": Spec(lambda d: {"n_queries": 4, "n_keys": 4,
                                                 "mode": d(st.sampled_from(["self", "cross", "causal"]))},
                                      domain={"n_queries": "int>=1", "n_keys": "int>=1"},
                                      sizes={"n_keys": 10**6}),
    S + "edges:enumerate_structures": Spec(lambda d: {"allowed": _allowed(d)}),
    S + "edges:structure_log_prior": Spec(lambda d: {"allowed": _allowed(d), "structures": torch.tensor([[0, 1]])}),
    S + "edges:joint_structure_posterior": Spec(lambda d: {k: v for k, v in _self_qkv(d).items() if k != "v"},
                                                domain={"beta": ">=0"}),
    S + "edges:brute_force_attention": Spec(_self_qkv, domain={"beta": ">=0"}),
    S + "edges:joint_edge_marginals": Spec(lambda d: {k: v for k, v in _self_qkv(d).items() if k != "v"},
                                           domain={"beta": ">=0"}),
    S + "edges:factorised_edge_marginals": Spec(lambda d: {k: v for k, v in _self_qkv(d).items() if k != "v"},
                                                domain={"beta": ">=0"}),
    S + "edges:softmax_attention": Spec(_self_qkv, domain={"beta": ">=0"}),
    S + "edges:sinkhorn_edge_marginals": Spec(lambda d: {k: v for k, v in _self_qkv(d).items() if k != "v"},
                                              domain={"beta": ">=0", "iters": "int>=1"}, skip=("iters",)),
    S + "edges:enumeration_study": Spec(lambda d: {"n": 3, "d": 2, "beta": d(st.floats(0, 2)), "instances": 2,
                                                   "generator": gen(d)},
                                        domain={"instances": "int>=1", "beta": ">=0"}, sizes={"instances": 10**10}),
    S + "edges:mask_study": Spec(lambda d: {"n": 3, "d": 2, "beta": d(st.floats(0, 2)), "instances": 2,
                                            "density": d(st.floats(0.2, 1.0)), "generator": gen(d)},
                                 domain={"instances": "int>=1", "beta": ">=0"}, sizes={"instances": 10**10}),
    # edge priors
    S + "edge_priors:enumerate_binary_edge_sets": Spec(lambda d: {"m": d(st.integers(1, 2)), "n": 2},
                                                       domain={"m": "int>=1", "n": "int>=1"}, sizes={"n": 10**5}),
    S + "edge_priors:binary_edges_brute_force": Spec(lambda d: {"scores": randn(d, 2, 2), "values": randn(d, 2, 3)},
                                                     domain={"temperature": ">0"}),
    S + "edge_priors:sigmoid_gate": Spec(lambda d: {"scores": randn(d, 2, 3)}, domain={"temperature": ">0"}),
    S + "edge_priors:gated_values": Spec(lambda d: {"scores": randn(d, 2, 3), "values": randn(d, 3, 2)},
                                         domain={"temperature": ">0"}),
    S + "edge_priors:relative_position_log_prior": Spec(lambda d: {"n": 3, "bias": randn(d, 3)},
                                                        domain={"n": "int>=1"}),
    S + "edge_priors:priors_study": Spec(lambda d: {"n": 2, "d": 2, "temperatures": [1.0, 0.5], "instances": 2,
                                                    "generator": gen(d)},
                                         domain={"instances": "int>=1"}, sizes={"instances": 10**10}, defaults=False),
    # hopfield
    S + "hopfield:random_patterns": Spec(lambda d: {"n_patterns": d(st.integers(1, 4)), "dim": d(st.integers(1, 5)),
                                                    "generator": gen(d)},
                                         domain={"n_patterns": "int>=1", "dim": "int>=1"},
                                         sizes={"n_patterns": 10**9},
                                         check=lambda kw, r: r.shape == (kw["n_patterns"], kw["dim"]) or
                                         (_ for _ in ()).throw(AssertionError(tuple(r.shape)))),
    S + "hopfield:erase_entries": Spec(lambda d: {"x": randn(d, 3, 4), "fraction": d(st.floats(0, 1)),
                                                  "generator": gen(d)}, domain={"fraction": "[0,1]"}),
    S + "hopfield:hopfield_energy": Spec(_patterns, domain={"beta": ">0"}),
    S + "hopfield:hopfield_update": Spec(_patterns, domain={"beta": ">0"}),
    S + "hopfield:retrieve": Spec(_patterns, domain={"beta": ">0", "steps": "int>=0"}, sizes={"steps": 10**12}),
    S + "hopfield:retrieval_grid": Spec(lambda d: {"dim": 4, "pattern_counts": [2], "betas": [d(st.floats(0.5, 4))],
                                                   "trials": 2, "steps": 2, "seed": seed(d)},
                                        domain={"dim": "int>=1", "trials": "int>=1", "fraction": "[0,1]"},
                                        sizes={"trials": 10**12}, skip=("chunk_elements",)),
    S + "hopfield:relaxation": Spec(lambda d: {"dim": 4, "n_patterns": 2, "trials": 2, "betas": [1.0],
                                               "steps": 3, "generator": gen(d), "converged_steps": 3},
                                    domain={"dim": "int>=1", "trials": "int>=1", "steps": "int>=1"},
                                    sizes={"trials": 10**12}),
    # slots
    S + "slots:gaussian_mixture_2d": Spec(lambda d: {"n_points": d(st.integers(1, 9)), "n_clusters": 2,
                                                     "generator": gen(d)},
                                          domain={"n_points": "int>=1", "n_clusters": "int>=1", "trials": "int>=1",
                                                  "spread": ">=0"}, sizes={"n_points": 10**12}),
    S + "slots:slot_objective": Spec(_slot_data, domain={"sigma": ">0"}),
    S + "slots:slot_update": Spec(_slot_data, domain={"sigma": ">0"}),
    S + "slots:run_slots": Spec(lambda d: {"x": randn(d, 1, 6, 2), "n_slots": 2, "generator": gen(d), "iters": 3},
                                domain={"sigma": ">0", "iters": "int>=0", "n_slots": "int>=1", "init_scale": ">=0"},
                                sizes={"n_slots": 10**12}),
    S + "slots:assign": Spec(lambda d: {k: v for k, v in _slot_data(d).items() if k != "sigma"}),
    S + "slots:adjusted_rand_index": Spec(lambda d: {"labels_a": torch.tensor([0, 0, 1, 1]),
                                                     "labels_b": torch.tensor([0, 1, 1, d(st.integers(0, 1))])}),
    S + "slots:update_forms_study": Spec(lambda d: {"x": randn(d, 2, 5, 2), "mu": randn(d, 2, 3, 2),
                                                    "sigma": d(st.floats(0.5, 2.0)), "steps": d(st.integers(0, 3))},
                                         domain={"sigma": ">0", "steps": "int>=0"}, sizes={"steps": 10**12}),
    S + "slots:width_study": Spec(lambda d: {"points": 6, "clusters": 2, "trials": 1, "spread": 0.5, "sigmas": [1.0],
                                             "iters": 2, "example_sigma": 1.0, "data_generator": gen(d),
                                             "init_generator": gen(d)},
                                  domain={"points": "int>=1", "trials": "int>=1", "iters": "int>=0",
                                          "example_sigma": ">0", "spread": ">=0"}, sizes={"trials": 10**12}),
    # predictive coding
    S + "predictive_coding:make_problem": Spec(lambda d: {"trials": 2, "dim": 3, "n_parents": d(st.integers(1, 4)),
                                                          "obs_dim": 2, "generator": gen(d)},
                                               domain={"trials": "int>=1", "dim": "int>=1", "n_parents": "int>=1",
                                                       "obs_dim": "int>=1", "obs_noise": ">=0",
                                                       "parent_scale": ">=0"},
                                               sizes={"trials": 10**12}),
    S + "predictive_coding:synapse_weights": Spec(lambda d: {"x": _pc(d)["x_true"], "mu": _pc(d)["mu"], "pi": 1.0},
                                                  domain={"pi": ">0"}),
    S + "predictive_coding:free_energy": Spec(lambda d: {k: _pc(d)[k] for k in ("y", "C", "mu")} | {"x": _pc(d)["x_true"]},
                                              domain={"pi": ">0", "pi_y": ">0"}),
    S + "predictive_coding:free_energy_grad": Spec(lambda d: {k: _pc(d)[k] for k in ("y", "C", "mu")} |
                                                   {"x": _pc(d)["x_true"]}, domain={"pi": ">0", "pi_y": ">0"}),
    S + "predictive_coding:smoothness": Spec(lambda d: {"problem": _pc(d)}, domain={"pi": ">0", "pi_y": ">0"}),
    S + "predictive_coding:infer": Spec(lambda d: {"problem": _pc(d), "steps": 3},
                                        domain={"pi": ">0", "pi_y": ">0", "steps": "int>=0"}),
    S + "predictive_coding:step_size_study": Spec(lambda d: {"problem": _pc(d), "steps": 3, "pi": 1.0, "pi_y": 1.0,
                                                             "lr_fractions": [0.5]},
                                                  domain={"pi": ">0", "pi_y": ">0", "steps": "int>=1"}),
    # potentials
    S + "potentials:log_partition": Spec(lambda d: {"scores": randn(d, 2, 3), "allowed": _allowed(d)}),
    S + "potentials:log_partition_enumerated": Spec(lambda d: {"scores": randn(d, 2, 3), "allowed": _allowed(d)}),
    S + "potentials:expectation_by_gradient": Spec(lambda d: {**_qkv(d, 2, 3), "allowed": _allowed(d)},
                                                   domain={"beta": ">=0"}),
    S + "potentials:gaussian_log_potential": Spec(lambda d: {"x": randn(d, 2, 2), "k": randn(d, 3, 2)},
                                                  domain={"beta": ">0"}),
    S + "potentials:gaussian_posterior": Spec(lambda d: {"x": randn(d, 2, 2), "k": randn(d, 3, 2),
                                                         "allowed": _allowed(d)}, domain={"beta": ">0"}),
    S + "potentials:dot_potential_partition": Spec(lambda d: {"k": randn(d, 3), "points": 101},
                                                   domain={"beta": ">0", "half_width": ">0", "points": "int>=2"},
                                                   sizes={"points": 10**12}),
    S + "potentials:collapsed_log_likelihood": Spec(lambda d: {"x": randn(d, 2), "k": randn(d, 3, 2)},
                                                    domain={"beta": ">0"}),
    S + "potentials:laplace_step": Spec(lambda d: {"x": randn(d, 2), "k": randn(d, 3, 2)}, domain={"beta": ">0"}),
    S + "potentials:identity_study": Spec(lambda d: {"n": 3, "d": 2, "beta": 1.0, "instances": 2, "generator": gen(d)},
                                          domain={"instances": "int>=1", "beta": ">0"}, sizes={"instances": 10**12}),
    # expanding
    S + "expanding_prior:geometric_horizon": Spec(lambda d: {"q": torch.rand(3, generator=gen(d), dtype=torch.float64) * 0.9
                                                       + 0.05}, domain={"mass": "(0,1)"}),
    S + "expanding_prior:effective_q": Spec(lambda d: {"alpha": torch.rand(3, dtype=torch.float64) + 0.1,
                                                 "beta": torch.rand(3, dtype=torch.float64) + 0.1}),
    S + "expanding_prior:prior_slope": Spec(lambda d: {"q": torch.rand(3, dtype=torch.float64) * 0.9 + 0.05},
                                      domain={"mass": "(0,1)"}),
    S + "expanding_core:expanding_attention": Spec(lambda d: {"scores": randn(d, 2, 10), "values": randn(d, 2, 10, 3),
                                                         "alpha0": 0.1, "beta0": 0.9},
                                              domain={"alpha0": ">0", "beta0": ">0", "max_iter": "int>=1",
                                                      "tol": ">=0", "mass": "(0,1)"}),
    S + "cavi_starts:cavi_start_dependence": Spec(lambda d: {"scores": randn(d, 2, 10), "first_windows": [2, 5]},
                                                  domain={"alpha0": ">0", "beta0": ">0", "max_iter": "int>=1",
                                                          "tol": ">0", "same": ">0"}),
    S + "windowed:lazy_expanding_attention": Spec(lambda d: {"query": randn(d, 2, 3), "keys": randn(d, 2, 10, 3),
                                                              "values": randn(d, 2, 10, 1), "alpha0": 0.1,
                                                              "beta0": 0.9},
                                                   domain={"alpha0": ">0", "beta0": ">0", "max_iter": "int>=1",
                                                           "tol": ">=0", "mass": "(0,1)"}),
    S + "windowed:relative_operations": Spec(lambda d: {"window": torch.tensor([3, 5]), "iterations": torch.tensor([2, 1]),
                                                         "n": 50, "d": 10},
                                              domain={"n": "int>=1", "d": "int>=1"}),
    S + "expanding_task:ExpandingTask": Spec(lambda d: {"p": d(st.floats(0.01, 1))},
                                        domain={"p": "(0,1]", "d": "int>=1", "n": "int>=3", "noise_std": ">=0",
                                                "x0_scale": ">0"}),
    S + "expanding_task:make_expanding_weights": Spec(lambda d: {"d": d(st.integers(1, 4)), "generator": gen(d)},
                                                 domain={"d": "int>=1"}, sizes={"d": 10**9}),
    S + "expanding_train:train_expanding": Spec(lambda d: {"ps": (0.5,), "d": 2, "n": 5, "steps": 2, "record_every": 1,
                                                     "cache": False, "models": ("standard",)},
                                          domain={"steps": "int>=1", "lr": ">0", "weight_decay": ">=0", "d": "int>=1",
                                                  "alpha0": ">0", "beta0": ">0", "batch_size": "int>=1"},
                                          sizes={"batch_size": 10**12}, skip=("cache", "progress", "record_every")),
    S + "expanding_core:ExpandingResult": Exempt(RESULT + "; expanding_attention builds it (a NamedTuple of "
                                                                          "its outputs)"),
    # multihop
    S + "multihop_task:MultihopTask": Spec(lambda d: {"d": d(st.integers(1, 4)), "n": 5},
                                      domain={"d": "int>=1", "n": "int>=4", "noise_std": ">=0", "x0_scale": ">0",
                                              "rank": "int>=1"}),
    S + "multihop_task:TaskWeights": Exempt(RESULT + "; make_task_weights builds it; the batch samplers refuse "
                                                              "anything else by name"),
    S + "multihop_task:make_task_weights": Spec(lambda d: {"task": _multihop_task(d), "generator": gen(d)},
                                           skip=("task",)),   # a MultihopTask checks its own fields (generated)
    S + "multihop:hop_operator": Spec(lambda d: {"scores": randn(d, 2, 3, 3)}, domain={"hops": "int>=1"}),
    S + "multihop:init_params": Spec(lambda d: {"model": d(st.sampled_from(["one_layer", "multihop", "two_layer"])),
                                                "d": d(st.integers(1, 3)), "generator": gen(d)},
                                     domain={"d": "int>=1", "replicas": "int>=1"}, sizes={"replicas": 10**12}),
    S + "multihop_train:train_multihop": Spec(lambda d: {"models": ("one_layer",), "seeds": (0,), "steps": 2, "batch_size": 4,
                                                   "test_size": 4, "record_every": 1, "cache": False,
                                                   "stream_steps": 4},
                                        domain={"steps": "int>=1", "lr": ">0", "weight_decay": ">=0",
                                                "batch_size": "int>=1", "hops": "int>=1"},
                                        sizes={"batch_size": 10**12}, skip=("cache", "progress", "record_every",
                                                                            "stream_steps", "test_size")),
    S + "multihop:relative_error": Spec(lambda d: {"a": randn(d, 3).numpy(), "b": randn(d, 3).numpy()}),
    S + "multihop:collapse_rate": Spec(lambda d: {"mass": torch.rand(3, 4, generator=gen(d)).double().numpy()},
                                       domain={"threshold": "[0,1]"}),
    # optim
    S + "optim:derive_seed": Spec(lambda d: {"seed": seed(d), "tag": "x"}, domain={"seed": "int>=0"}),
    S + "optim:generator": Spec(lambda d: {"seed": seed(d)}, domain={"seed": "int>=0"}),
    S + "optim:AdamState": Exempt(RESULT + "; AdamState.zeros_like builds it; adam_update refuses "
                                                        "anything else by name"),
}
# chapter 4's rule helpers on small stored-like numbers (a missing key is KeyError, a null Undecidable: the
# documented "not tested" of a rule, turned into a marker by _decided)
def _rule_numbers(d):
    """Two deviations and a round-off as chapter 4 stores them (one may be null: Undecidable)."""
    return {"a": d(st.floats(0, 1e-12)), "b": d(st.sampled_from([1e-15, 1e-7, 1e-3, None])),
            "r": d(st.floats(1e-16, 1e-13))}


def _identity_numbers(d):
    from mfattn.structural.claims_rules import IDENTITY_KEYS, STRUCTURAL_GAPS

    return {**{k: d(st.floats(0, 1e-12)) for k in IDENTITY_KEYS}, **{k: d(st.floats(1e-6, 1.0)) for k in STRUCTURAL_GAPS}}


def _below(holds):
    from mfattn.companion.verdicts import below

    return below("a", holds)


def _decided(fn, kw):
    """``fn(**kw)``, or the documented "not tested" of a rule (a key absent: KeyError; a null: Undecidable) as a
    marker: neither is a bad argument."""
    from mfattn.companion.verdicts import Undecidable

    try:
        return fn(**kw)
    except (KeyError, Undecidable) as err:
        return f"not tested: {err}"


SPECS.update({
    S + "claims_rules:same_units": Spec(lambda d: {"s": {"a": [1.0, 2.0], "b": [3.0, d(st.floats(0, 1))]},
                                                   "keys": ("a", "b"), "units": "seeds"},
                                        call=lambda fn, kw: fn(kw["s"], *kw["keys"], units=kw["units"]),
                                        skip=("s", "keys")),
    S + "claims_rules:number": Spec(lambda d: {"s": _rule_numbers(d), "key": d(st.sampled_from(["a", "b", "r"]))},
                                    call=_decided),
    S + "claims_rules:needs": Spec(lambda d: {"s": _rule_numbers(d), "holds": d(st.floats(0, 1))}, skip=("s",),
                                   call=lambda fn, kw: _decided(lambda s: fn(_below(kw["holds"]), "a", "b")(s),
                                                                {"s": kw["s"]})),
    S + "claims_rules:identity_and": Spec(lambda d: {"keys": ("a", "b"), "exact_in_general": lambda s: s["a"] < 1,
                                                     "tol": d(st.floats(1e-14, 1e-10)), "near": d(st.floats(1e-8, 1e-4)),
                                                     "s": _rule_numbers(d)}, skip=("s",),
                                          call=lambda fn, kw: _decided(fn(**{k: v for k, v in kw.items() if k != "s"}),
                                                                       {"s": kw["s"]}),
                                          domain={"tol": ">0", "near": ">0"}),
    S + "claims_rules:identity_premises": Spec(lambda d: {"roundoff": d(st.sampled_from(["r", ("r", "a")])),
                                                          "what": "the enumeration", "spread": None,
                                                          "draw": d(st.floats(0, 1))}, skip=("draw",),
                                               call=lambda fn, kw: fn("a", "b", roundoff=kw["roundoff"],
                                                                      what=kw["what"], spread=kw["spread"])),
    S + "claims_rules:identity_thresholds": Spec(lambda d: {"keys": ("a", "b"), "roundoff": d(st.sampled_from(
        ["r", ("r", "a")])), "what": "the enumeration", "draw": d(st.floats(0, 1))}, skip=("draw",),
        call=lambda fn, kw: fn(kw["keys"], kw["roundoff"], kw["what"])),
    S + "claims_rules:is_roundoff": Spec(lambda d: {"keys": ("a", "b"), "roundoff": d(st.sampled_from(["r", ("r",)])),
                                                    "what": "the enumeration", "s": _rule_numbers(d)}, skip=("s",),
                                         call=lambda fn, kw: _decided(fn(kw["keys"], kw["roundoff"], kw["what"]),
                                                                      {"s": kw["s"]})),
    S + "claims_rules:band_is_empty": Spec(lambda d: {"s": _identity_numbers(d)}, call=_decided),
})
