"""Outside table 8, structural (part 4): hostile arguments to edges, edge_priors, graphs, hopfield, potentials,
predictive_coding, slots, unit_values and figures are refused at the boundary, naming the parameter.

Each row names the call it pins and the bad argument; ``test_valid_neighbours_still_work`` checks that the valid
call next to each fix still returns. Tiny sizes only: every call runs in well under a second.
"""

from __future__ import annotations

import functools
import math

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mfattn.structural import edge_priors, edges, figures, graphs, hopfield, potentials  # noqa: E402
from mfattn.structural import predictive_coding as pc  # noqa: E402
from mfattn.structural import slots, unit_values  # noqa: E402

F64 = torch.float64


def _g(seed=0):
    return torch.Generator().manual_seed(seed)


def _t(*shape, seed=0):
    return torch.randn(*shape, generator=_g(seed), dtype=F64)


@functools.lru_cache(maxsize=None)
def _problem():
    return pc.make_problem(3, 3, 2, 2, generator=_g())


@functools.lru_cache(maxsize=None)
def _pcs():
    return pc.step_size_study(_problem(), 3, 1.0, 1.0, [0.5])


@functools.lru_cache(maxsize=None)
def _width():
    return slots.width_study(5, 2, 2, 0.5, [0.5, 1.0], 2, 1.0, data_generator=_g(), init_generator=_g(1))


def _pc_values(**kw):
    grad = [k for k in _pcs()["runs"] if k != "fixed point (CCCP)"][0]
    args = dict(problem=_problem(), pcs=_pcs(), steps=3, pi=1.0, pi_y=1.0, grad_name=grad, noise_levels=[0.3, 1.0],
                base_noise=0.3, generator=_g())
    args.update(kw)
    return unit_values.pc_values(**args)


_ALL = torch.ones(3, 3, dtype=torch.bool)
_Q, _K, _V = _t(3, 2), _t(3, 2, seed=1), _t(3, 2, seed=2)

ROWS = [
    # edges.mask_study: d = 0 (deep RuntimeError before), instances = 10**12 (hung before), n = 10**12
    ("mask_study d=0", lambda: edges.mask_study(3, 0, 1.0, 1, 0.5, _g()), ValueError, "d must"),
    ("mask_study instances=10**12", lambda: edges.mask_study(3, 2, 1.0, 10**12, 0.5, _g()), ValueError, "instances"),
    ("mask_study n=10**12", lambda: edges.mask_study(10**12, 2, 1.0, 1, 0.5, _g()), ValueError, "^n[ =]"),
    # edges.graph_attention: v float32 beside float64 q, k (deep RuntimeError before)
    ("graph_attention v float32", lambda: edges.graph_attention(_Q, _K, _V.float(), _ALL), TypeError, "v"),
    # edges.brute_force_graph_attention: 1-d q (IndexError before); unbroadcastable batches (RuntimeError before)
    ("brute_force_graph_attention q 1-d", lambda: edges.brute_force_graph_attention(_Q[0], _K, _V, _ALL),
     ValueError, "^q must"),
    ("softmax_attention batch mismatch", lambda: edges.softmax_attention(_t(2, 3, 2), _t(3, 3, 2), _t(3, 3, 2)),
     ValueError, "q, k and v must have batch shapes"),
    # edges.graph_attention: log_prior of another dtype (silently cast before), a query whose parents all have prior 0
    ("graph_attention log_prior float32", lambda: edges.graph_attention(_Q, _K, _V, _ALL, 1.0, torch.zeros(3, 3)),
     TypeError, "log_prior"),
    ("brute_force_graph_attention log_prior dead row", lambda: edges.brute_force_graph_attention(
        _Q, _K, _V, _ALL, 1.0, torch.tensor([[0.0] * 3, [-math.inf] * 3, [0.0] * 3], dtype=F64)), ValueError,
     "log_prior gives every allowed parent"),
    # edges.enumerate_structures: a 0 x 0 mask (deep RuntimeError before); structure_log_prior: an empty row (-inf)
    ("enumerate_structures 0x0", lambda: edges.enumerate_structures(torch.ones(0, 0, dtype=torch.bool)),
     ValueError, "allowed"),
    ("structure_log_prior empty row", lambda: edges.structure_log_prior(torch.zeros(2, 3, dtype=torch.long),
                                                                        torch.zeros(3, 3, dtype=torch.bool)),
     ValueError, "allowed"),
    ("sinkhorn_edge_marginals no token", lambda: edges.sinkhorn_edge_marginals(_Q[:0], _K[:0]), ValueError, "q and k"),
    # hopfield.retrieval_grid: device strings with junk (deep RuntimeError before), checked before the cache too
    ("retrieval_grid device='meta\\n'", lambda: hopfield.retrieval_grid(4, [1], [1.0], 1, seed=0, device="meta\n"),
     ValueError, "device"),
    ("retrieval_grid device=''", lambda: hopfield.retrieval_grid(4, [1], [1.0], 1, seed=0, device=""),
     ValueError, "device"),
    ("cached_retrieval_grid device='cpu\\n'", lambda: hopfield.cached_retrieval_grid(4, [1], [1.0], 1, 1, seed=0,
                                                                                      device="cpu\n"),
     ValueError, "device"),
    ("retrieval_grid seed=2**64", lambda: hopfield.retrieval_grid(4, [1], [1.0], 1, seed=2**64), ValueError, "seed"),
    ("retrieval_grid betas=[1e308]", lambda: hopfield.retrieval_grid(4, [1], [1e308], 1, seed=0), ValueError, "betas"),
    # hopfield.hopfield_energy: xi float32 beside float64 patterns (deep before); all-False active (NaN before)
    ("hopfield_energy xi float32", lambda: hopfield.hopfield_energy(_t(4).float(), _t(3, 4), 1.0), TypeError,
     "xi and patterns"),
    ("hopfield_update active all False", lambda: hopfield.hopfield_update(_t(4), _t(3, 4), 1.0,
                                                                          torch.zeros(3, dtype=torch.bool)),
     ValueError, "active"),
    ("hopfield_energy beta=1e-320", lambda: hopfield.hopfield_energy(_t(4), _t(3, 4), 1e-320), ValueError, "beta"),
    ("random_patterns batch='ab'", lambda: hopfield.random_patterns(2, 3, generator=_g(), batch="ab"), TypeError,
     "batch"),
    # predictive_coding.free_energy_grad: float32 x beside float64 y, C, mu (deep RuntimeError before)
    ("free_energy_grad x float32", lambda: pc.free_energy_grad(_problem()["x_true"].float(), _problem()["y"],
                                                               _problem()["C"], _problem()["mu"]),
     TypeError, "x and mu"),
    ("free_energy_grad y float32", lambda: pc.free_energy_grad(_problem()["x_true"], _problem()["y"].float(),
                                                               _problem()["C"], _problem()["mu"]),
     TypeError, "x and y"),
    ("free_energy x = 1e200", lambda: pc.free_energy(_problem()["x_true"] * 1e200, _problem()["y"], _problem()["C"],
                                                     _problem()["mu"]), ValueError, "overflow"),
    ("infer x0 float32", lambda: pc.infer(_problem(), steps=1, x0=_problem()["x_true"].float()), TypeError, "x0"),
    ("infer pi_y=1e308", lambda: pc.infer(_problem(), steps=1, pi_y=1e308), ValueError, "pi_y"),
    ("step_size_study no active", lambda: pc.step_size_study(
        {k: v for k, v in _problem().items() if k != "active"}, 1, 1.0, 1.0, [0.5]), ValueError, "active"),
    # slots.width_study: example_sigma not among sigmas (silent before)
    ("width_study example_sigma=0.7", lambda: slots.width_study(5, 2, 1, 0.5, [0.5, 1.0], 1, 0.7,
                                                                data_generator=_g(), init_generator=_g(1)),
     ValueError, "example_sigma"),
    ("slot_update mu float32", lambda: slots.slot_update(_t(1, 4, 2), _t(1, 2, 2).float(), 1.0), TypeError,
     "x and mu"),
    ("run_slots init float32", lambda: slots.run_slots(_t(1, 4, 2), 2, init=_t(1, 2, 2).float()), TypeError, "init"),
    ("adjusted_rand_index one point", lambda: slots.adjusted_rand_index(torch.zeros(2, 1, dtype=torch.long),
                                                                        torch.zeros(2, 1, dtype=torch.long)),
     ValueError, "labels_a"),
    ("paper_slot_update w_q float32", lambda: slots.paper_slot_update(_t(1, 4, 2), _t(1, 2, 2),
                                                                      torch.eye(2), torch.eye(2, dtype=F64)),
     TypeError, "w_q"),
    ("update_forms_study steps=10**12", lambda: slots.update_forms_study(_t(1, 4, 2), _t(1, 2, 2), 1.0, 10**12),
     ValueError, "steps"),
    # unit_values.pc_values: noise_levels not starting with base_noise (silent before), no fixed run (KeyError)
    ("pc_values noise_levels=[1.0, 0.3]", lambda: _pc_values(noise_levels=[1.0, 0.3]), ValueError, "noise_levels"),
    ("pc_values pcs without the fixed point", lambda: _pc_values(pcs={"runs": {
        k: v for k, v in _pcs()["runs"].items() if k != "fixed point (CCCP)"}}), ValueError, "pcs"),
    ("pc_values active out of range", lambda: _pc_values(problem={**_problem(), "active": _problem()["active"] + 9}),
     ValueError, "active"),
    # unit_values.pc_restarts: starts = 10**12 (hung before)
    ("pc_restarts starts=10**12", lambda: unit_values.pc_restarts(_problem(), _pcs()["runs"]["fixed point (CCCP)"], 3, 1.0,
                                                                  1.0, _g(), 10**12), ValueError, "starts"),
    ("slot_values sigmas longer than the study", lambda: unit_values.slot_values(
        _width(), [0.5, 1.0, 2.0], 1.0, _width()["mu0"]), ValueError, "sl\\['ari'\\]"),
    ("paper_slot_values mu_start float32", lambda: unit_values.paper_slot_values(
        _width()["x"], _width()["mu0"].float(), _width()["labels"], 1.0, 1), TypeError, "mu_start"),
    # potentials / edge_priors: mixed dtypes and overflow
    ("expectation_by_gradient v float32", lambda: potentials.expectation_by_gradient(_Q, _K, _V.float(), _ALL),
     TypeError, "q, k and v"),
    ("gaussian_log_potential beta=1e308", lambda: potentials.gaussian_log_potential(_Q, _K * 2, 1e308), ValueError,
     "beta"),
    ("collapsed_log_likelihood x 0-d", lambda: potentials.collapsed_log_likelihood(torch.tensor(1.0, dtype=F64), _K),
     ValueError, "^x must"),
    ("log_partition log_prior float32", lambda: potentials.log_partition(_t(3, 3), _ALL, torch.zeros(3, 3)),
     TypeError, "log_prior"),
    ("binary_edges_brute_force values float32", lambda: edge_priors.binary_edges_brute_force(
        _t(2, 2), _t(2, 1).float()), TypeError, "values"),
    ("gated_values log_odds=1e308 field", lambda: edge_priors.binary_edges_brute_force(_t(2, 2), _t(2, 1), 1e308),
     ValueError, "log_odds"),
    ("priors_study temperatures=[1e-320]", lambda: edge_priors.priors_study(3, 2, [1e-320], 1, _g()), ValueError,
     "temperatures"),
    # graphs.draw_panel: an ax of the wrong kind (AttributeError before); graphs.draw_mechanisms: no panels
    ("draw_panel ax=None", lambda: graphs.draw_panel(None, graphs.mechanism_panels()[0]), TypeError, "^ax must"),
    ("draw_panel radius=10", lambda: graphs.draw_panel(plt.subplots()[1], graphs.mechanism_panels()[0], 10.0),
     ValueError, "radius"),
    ("draw_mechanisms panels=[]", lambda: graphs.draw_mechanisms([]), ValueError, "panels"),
    ("draw_mechanisms panel_size=1e-300", lambda: graphs.draw_mechanisms(graphs.mechanism_panels()[:1], 1, 1e-300),
     ValueError, "panel_size"),
    ("GraphPanel weight of no candidate", lambda: graphs.GraphPanel(
        "t", {"a": (0.0, 0.0, "a", True), "b": (1.0, 0.0, "b", True)}, [("a", "b")], weights={("b", "a"): 0.5}),
     ValueError, "weights"),
    # figures: a study of the wrong kind
    ("figures.slots n_slots not the study's", lambda: figures.slots(_width(), [0.5, 1.0], 0.5, 7), ValueError,
     "n_slots"),
    ("figures.inference_comparison empty", lambda: figures.inference_comparison({}, [0.5], 1), ValueError,
     "comparison"),
]


@pytest.mark.parametrize("call, kind, words", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_hostile_call_is_refused_naming_the_parameter(call, kind, words):
    try:
        with pytest.raises(kind, match=words):
            call()
    finally:
        plt.close("all")


def test_valid_neighbours_still_work():
    assert len(edges.mask_study(3, 2, 1.0, 2, 0.5, _g())["errors"]) == 2
    assert edges.graph_attention(_Q, _K, _V, _ALL, 1.0, torch.zeros(3, 3, dtype=F64)).shape == (3, 2)
    assert edges.softmax_attention(_t(2, 3, 2), _t(1, 3, 2), _t(3, 2)).shape == (2, 3, 2)
    assert edges.sinkhorn_edge_marginals(_Q, _K, iters=3).shape == (3, 3)
    assert hopfield.retrieval_grid(4, [1, 2], [1.0], 1, 1, seed=0, device="cpu")["rate"].shape == (1, 2)
    assert torch.isfinite(hopfield.hopfield_energy(_t(4), _t(3, 4), 1.0, torch.tensor([True, False, True])))
    assert pc.free_energy_grad(_problem()["x_true"], _problem()["y"], _problem()["C"], _problem()["mu"]).shape == (3, 3)
    assert pc.infer(_problem(), steps=1, x0=_problem()["x_true"])["x"].shape == (2, 3, 3)
    assert set(_width()["examples"]) == set(slots.PRIORS)
    assert slots.update_forms_study(_t(1, 4, 2), _t(1, 2, 2), 1.0, 2)["relation_error"] >= 0
    assert slots.adjusted_rand_index(torch.tensor([[0, 1]]), torch.tensor([[1, 0]])).item() == 1.0
    assert "pc_acc_oracle" in _pc_values()
    assert unit_values.slot_values(_width(), [0.5, 1.0], 1.0, _width()["mu0"])["slot_sigmas"] == [0.5, 1.0]
    assert potentials.expectation_by_gradient(_Q, _K, _V, _ALL)[0].shape == (3, 2)
    assert edge_priors.binary_edges_brute_force(_t(2, 2), _t(2, 1))[1].shape == (2, 1)
    fig, ax = plt.subplots()
    graphs.draw_panel(ax, graphs.mechanism_panels()[0])
    assert graphs.draw_mechanisms(graphs.mechanism_panels()[:2], 2, 1.0) is not None
    assert figures.slots(_width(), [0.5, 1.0], 0.5, 2) is not None
    plt.close("all")
