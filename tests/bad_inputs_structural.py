"""Bad-input rows of ``mfattn.structural`` (chapters 4-5), gathered by test_bad_inputs.py.

Each row: (id, call, exception type(s), pattern naming the parameter).
"""

import torch

from mfattn.structural import edges, expanding as ex, hopfield, multihop as mh, predictive_coding as pc, slots

NAN, INF = float("nan"), float("inf")
F64 = torch.float64


def _qkv(m=3, n=3, d=2):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1, m, d, generator=g, dtype=F64), torch.randn(1, n, d, generator=g, dtype=F64),
            torch.randn(1, n, d, generator=g, dtype=F64))


def _patterns():
    return hopfield.random_patterns(4, 6, generator=torch.Generator().manual_seed(0))


def _slots(**kw):
    x, _, _ = slots.gaussian_mixture_2d(20, 2, generator=torch.Generator().manual_seed(0))
    return slots.run_slots(x, 2, generator=torch.Generator().manual_seed(1), **kw)


def _expanding(**kw):
    scores, values = torch.zeros(2, 10, dtype=F64), torch.zeros(2, 10, 3, dtype=F64)
    return ex.expanding_attention(scores, values, kw.pop("alpha0", 0.1), kw.pop("beta0", 0.9), **kw)


def _pc_problem():
    return pc.make_problem(2, 3, 4, 2, generator=torch.Generator().manual_seed(0))


ROWS = [
    ("structural-brute-beta-nan", lambda: edges.brute_force_attention(*_qkv(), beta=NAN), ValueError, "beta"),
    ("structural-brute-beta-inf", lambda: edges.brute_force_attention(*_qkv(), beta=INF), ValueError, "beta"),
    ("structural-softmax-beta-nan", lambda: edges.softmax_attention(*_qkv(), beta=NAN), ValueError, "beta"),
    ("structural-brute-mode", lambda: edges.brute_force_attention(*_qkv(), mode="global"), ValueError, "mode"),
    ("structural-brute-too-many", lambda: edges.brute_force_attention(*_qkv(7, 7)), ValueError, "tokens|6"),
    ("structural-sinkhorn-iters", lambda: edges.sinkhorn_edge_marginals(*_qkv()[:2], iters=0), ValueError, "iters"),
    ("structural-hopfield-beta-inf", lambda: hopfield.retrieve(_patterns()[0], _patterns(), INF), ValueError, "beta"),
    ("structural-hopfield-beta-nan", lambda: hopfield.retrieve(_patterns()[0], _patterns(), NAN), ValueError, "beta"),
    ("structural-hopfield-beta-negative", lambda: hopfield.retrieve(_patterns()[0], _patterns(), -1.0), ValueError,
     "beta"),
    ("structural-hopfield-dims", lambda: hopfield.retrieve(torch.zeros(5, dtype=_patterns().dtype), _patterns(), 1.0),
     ValueError, "xi|dim"),
    ("structural-hopfield-steps", lambda: hopfield.retrieve(_patterns()[0], _patterns(), 1.0, steps=-1), ValueError,
     "steps"),
    ("structural-erase-fraction", lambda: hopfield.erase_entries(_patterns(), 1.5,
                                                                 generator=torch.Generator()), ValueError, "fraction"),
    ("structural-slots-sigma-nan", lambda: _slots(sigma=NAN), ValueError, "sigma"),
    ("structural-slots-sigma-zero", lambda: _slots(sigma=0.0), ValueError, "sigma"),
    ("structural-slots-prior", lambda: _slots(prior="dirichlet"), ValueError, "prior"),
    ("structural-slots-iters", lambda: _slots(iters=-1), ValueError, "iters"),
    ("structural-pc-lr-negative", lambda: pc.infer(_pc_problem(), method="gradient", lr=-0.1), ValueError, "lr"),
    ("structural-pc-method", lambda: pc.infer(_pc_problem(), method="newton"), ValueError, "method"),
    ("structural-pc-pi-nan", lambda: pc.infer(_pc_problem(), pi=NAN), ValueError, "pi|precision"),
    ("structural-expanding-alpha0-nan", lambda: _expanding(alpha0=NAN), ValueError, "alpha0"),
    ("structural-expanding-beta0-negative", lambda: _expanding(beta0=-1.0), ValueError, "beta0"),
    ("structural-expanding-tol-negative", lambda: _expanding(tol=-1.0), ValueError, "tol"),
    ("structural-expanding-slope", lambda: _expanding(slope="steep"), ValueError, "slope"),
    ("structural-expanding-update", lambda: _expanding(update="mode"), ValueError, "update"),
    ("structural-expanding-max-iter", lambda: _expanding(max_iter=0), ValueError, "max_iter"),
    ("structural-expanding-task-p", lambda: ex.ExpandingTask(p=0.0), ValueError, "p"),
    ("structural-multihop-task-mode", lambda: mh.MultihopTask(mode="poem"), ValueError, "mode"),
    ("structural-multihop-task-rank", lambda: mh.MultihopTask(d=3, rank=4), ValueError, "rank"),
    ("structural-multihop-lr-negative", lambda: mh.train_multihop(("one_layer",), (0,), steps=2, lr=-1.0),
     ValueError, "lr"),
    ("structural-multihop-lr-nan", lambda: mh.train_multihop(("one_layer",), (0,), steps=2, lr=NAN), ValueError, "lr"),
    ("structural-multihop-model", lambda: mh.train_multihop(("three_layer",), (0,), steps=2), ValueError, "model"),
    ("structural-multihop-hops", lambda: mh.hop_operator(torch.zeros(1, 3, 3), hops=0), ValueError, "hops"),
    ("structural-collapse-threshold", lambda: mh.collapse_rate(torch.zeros(2, 4).numpy(), threshold=NAN), ValueError,
     "threshold"),
    ("structural-expanding-cavi-beta0-zero", lambda: _expanding(update="cavi", beta0=0.0), ValueError, "beta0"),
    ("structural-expanding-lazy-alpha0-negative",
     lambda: ex.lazy_expanding_attention(torch.zeros(2, 3), torch.zeros(2, 10, 3), torch.zeros(2, 10, 1), -0.1, 0.9),
     ValueError, "alpha0"),
    ("structural-expanding-lazy-update",
     lambda: ex.lazy_expanding_attention(torch.zeros(2, 3), torch.zeros(2, 10, 3), torch.zeros(2, 10, 1), 0.1, 0.9,
                                         update="vmp"), ValueError, "update"),
    ("structural-expanding-train-update", lambda: ex.train_expanding(steps=1, update="em", cache=False), ValueError,
     "update"),
    ("structural-expanding-train-beta0-zero", lambda: ex.train_expanding(steps=1, beta0=0.0, cache=False), ValueError,
     "beta0"),
    ("structural-expanding-generators", lambda: ex.sample_expanding_batch(
        [ex.ExpandingTask()], [ex.make_expanding_weights(10, torch.Generator())], 2,
        [torch.Generator(), torch.Generator()]), ValueError, "generator"),
    ("structural-multihop-task-root", lambda: mh.MultihopTask(root="gaussian"), ValueError, "root"),
    # issue 26: the first window, the operations as run, the output-scale controls
    ("structural-expanding-first-window", lambda: _expanding(first_window=1), ValueError, "first_window"),
    ("structural-expanding-train-first-window", lambda: ex.train_expanding(steps=1, first_window=0, cache=False),
     ValueError, "first_window"),
    ("structural-expanding-ops-as-run-n", lambda: ex.operations_as_run([3], [2], 1, 10), ValueError, "n"),
    ("structural-multihop-control-name", lambda: mh.train_multihop(("one_layer_x3",), steps=1, cache=False),
     ValueError, "model"),
]

# Chapter 4, issue 12: graph attention over a mask, Eqs 3-7, other edge priors, the paper's slot update.
from mfattn.structural import edge_priors as ep  # noqa: E402
from mfattn.structural import potentials  # noqa: E402

_EYE2 = torch.eye(2, dtype=F64)
ROWS += [
    ("structural-graph-mask-shape", lambda: edges.graph_attention(*_qkv(3, 4), torch.ones(4, 3, dtype=torch.bool)),
     ValueError, "allowed"),
    ("structural-graph-mask-dtype", lambda: edges.graph_attention(*_qkv(3, 4), torch.ones(3, 4)), TypeError, "allowed"),
    ("structural-graph-mask-no-parent", lambda: edges.brute_force_graph_attention(
        *_qkv(2, 2), torch.tensor([[True, False], [False, False]])), ValueError, "allowed"),
    ("structural-graph-log-prior-shape", lambda: edges.graph_attention(
        *_qkv(3, 3), torch.ones(3, 3, dtype=torch.bool), log_prior=torch.zeros(2, 3)), ValueError, "log_prior"),
    ("structural-graph-beta-nan", lambda: edges.graph_attention(*_qkv(3, 3), torch.ones(3, 3, dtype=torch.bool),
                                                                beta=NAN), ValueError, "beta"),
    ("structural-logz-mask-shape", lambda: potentials.log_partition(torch.zeros(3, 3), torch.ones(3, 2, dtype=torch.bool)),
     ValueError, "allowed"),
    ("structural-gaussian-beta-zero", lambda: potentials.gaussian_log_potential(*_qkv()[:2], beta=0.0), ValueError, "beta"),
    ("structural-partition-keys-2d", lambda: potentials.dot_potential_partition(torch.zeros(3, 2)), ValueError, "k must"),
    ("structural-binary-edges-too-many", lambda: ep.enumerate_binary_edge_sets(5, 4), ValueError, "m \\* n"),
    ("structural-binary-temperature-zero", lambda: ep.sigmoid_gate(torch.zeros(2, 2), temperature=0.0), ValueError,
     "temperature"),
    ("structural-binary-temperature-nan", lambda: ep.binary_edges_brute_force(torch.zeros(2, 2), torch.zeros(2, 1),
                                                                             temperature=NAN), ValueError, "temperature"),
    ("structural-relpos-bias-length", lambda: ep.relative_position_log_prior(4, torch.zeros(3)), ValueError, "bias"),
    ("structural-paper-slots-w-q", lambda: slots.paper_slot_update(torch.zeros(1, 3, 2), torch.zeros(1, 2, 2),
                                                                    torch.zeros(2, 3), _EYE2), ValueError, "w_q"),
    ("structural-slots-w-v-shape", lambda: slots.weighted_mean_slot_update(
        torch.zeros(1, 3, 2), torch.zeros(1, 2, 2), _EYE2, _EYE2, torch.zeros(3, 2)), ValueError, "w_v"),
    ("structural-slots-forms-sigma", lambda: slots.update_forms_study(torch.zeros(1, 3, 2), torch.zeros(1, 2, 2), -1.0),
     ValueError, "sigma"),
]
