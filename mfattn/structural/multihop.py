"""Multi-hop attention: the posterior expectation over paths of length ≤ K in the attention graph.

Singh & Buckley (2023) read one attention head as the posterior expectation of a value function
over which token each query is connected to. Letting the value function follow the chosen edge
for more than one step gives *multi-hop attention*: with the row-stochastic edge posterior

    P = softmax(Q Kᵀ / √d)                                           (T, T)

the expectation over paths of length 1..K is

    paper:  M = Σ_{k=1..K} P^k,              out = M V X             (paper, K = 2: (P + P²)VX)
    code :  M = ((I + Σ_{k=1..K} P_c^k) / (K + 1))ᵀ,  P_c = softmax over the *query* axis
                                                                      (public code, K = 2)

The module also holds the two baselines of the paper's Figure 2 (one-layer self-attention and a
two-layer self-attention that the public code never implements) and the output-scale controls; the toy
data generator in its paper and code variants is :mod:`.multihop_task` (importable from here). The training
routine, which trains several seeds and models at once (one tensor op per step for all seeds of a model) and
caches its results keyed by the config, is :func:`~.multihop_train.train_multihop` (importable from here).
The optimiser and the seed streams it shares with expanding attention are in :mod:`.optim`.

Conventions: a model's parameters are stacked over a leading replica axis ``S`` (one replica per
seed); a batch of sequences is ``X`` of shape (S, B, T, d) whose last token is the query.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from ..companion.checks import check_choice as _check_choice, check_int as _check_int, check_probability
from ..companion.checks import check_work as _check_work, contract
# the toy task lives in .multihop_task; its names are importable from here as before
from .multihop_task import (ROLE_NAMES, ROOTS, SHUFFLES, TASK_MODES, MultihopTask, TaskWeights,  # noqa: F401
                            make_task_weights, sample_multihop_batch, sample_multihop_batches)

__all__ = [
    "TASK_MODES", "OPERATOR_MODES", "MODEL_NAMES", "CONTROL_NAMES", "ROLE_NAMES", "PROTOCOLS", "SHUFFLES", "ROOTS",
    "MultihopTask", "TaskWeights", "make_task_weights", "sample_multihop_batch", "sample_multihop_batches",
    "hop_operator", "init_params", "forward",
    "train_multihop", "relative_error", "collapse_rate", "reference_path",
]

OPERATOR_MODES = ("paper", "code")
#: ``multihop`` is the new design; ``one_layer`` and ``two_layer`` are the self-attention baselines.
MODEL_NAMES = ("one_layer", "multihop", "two_layer")
#: Output-scale controls (issue 26): P + P² has row sums 2, so multi-hop's output is twice a head's at the same
#: weights, and weight decay favours a larger output scale. ``one_layer_x2``: one-layer attention with its
#: prediction doubled; ``multihop_norm``: multi-hop with the normalised operator (Σ_k P^k)/K (row sums 1).
#: Each starts from its base model's initial weights (same stream) and sees the same data.
CONTROL_NAMES = ("one_layer_x2", "multihop_norm")
_BASE = {"one_layer_x2": "one_layer", "multihop_norm": "multihop"}
_ALL_MODELS = MODEL_NAMES + CONTROL_NAMES
#: ``paired``: every model of a seed sees the same data stream (common random numbers).
#: ``code``: the public code's order of draws from one generator per seed (task, then per model:
#: initial weights and ``stream_steps`` batches), which reproduces its stored curves.
PROTOCOLS = ("paired", "code")


# ----------------------------------------------------------------------------- the operators
def _softmax(x: torch.Tensor, dim: int, fast: bool) -> torch.Tensor:
    """softmax along ``dim``; ``fast``: written out (max, exp, sum), several times faster than torch.softmax over
    the toy task's 5-token axes on one CPU thread (same values to float32 rounding)."""
    if not fast:
        return torch.softmax(x, dim=dim)
    e = torch.exp(x - x.amax(dim, keepdim=True))
    return e / e.sum(dim, keepdim=True)


@contract(scores="tensor", hops="int:1")
def hop_operator(scores: torch.Tensor, hops: int = 2, mode: str = "paper", *, fast: bool = False) -> torch.Tensor:
    """The K-hop attention operator M (…, T, T) from raw scores (…, T, T) = Q Kᵀ/√d.

    paper: M = Σ_{k=1..K} P^k with P = softmax(scores, dim=-1) (row i: query i over keys j);
           K = 1 is ordinary attention.
    code : M = ((I + Σ_{k=1..K} P_c^k)/(K+1))ᵀ with P_c = softmax(scores, dim=-2), the public
           code's ``LongAttention`` for K = 2; each row of M sums to 1.
    Summed left to right, as the code does, so the K = 2 code form is bit-identical to it (with
    ``fast=False``; ``fast`` writes the softmax out, see :func:`_softmax`).
    """
    hops = _check_int("hops (K)", hops, 1)
    _check_choice("operator mode", mode, OPERATOR_MODES)
    if isinstance(scores, torch.Tensor) and scores.dim() >= 2:
        # K - 1 products of (..., T, T) matrices (hops = 10**9 ran until killed): each costs T³ multiply-adds per
        # matrix, and at least a Python-level step's overhead, counted as 10**5 multiply-adds (~10-100 µs)
        _check_work("hops (K)", (hops - 1) * max(scores.numel() * scores.shape[-1], 10**5), what="hop_operator()",
                    unit="multiply-adds")
    if scores.dim() < 2 or scores.shape[-1] != scores.shape[-2] or scores.shape[-1] < 1:
        raise ValueError(f"scores must have shape (..., T, T) with T >= 1; got {tuple(scores.shape)}")
    if mode == "paper":
        P = _softmax(scores, -1, fast)
        M, Pk = P, P
        for _ in range(hops - 1):
            Pk = Pk @ P
            M = M + Pk
        return M
    P = _softmax(scores, -2, fast)
    T = scores.shape[-1]
    M, Pk = torch.eye(T, dtype=scores.dtype, device=scores.device) + P, P
    for _ in range(hops - 1):
        Pk = Pk @ P
        M = M + Pk
    return (M / (hops + 1)).transpose(-1, -2)


# ----------------------------------------------------------------------------- the models
@contract(d="int:1", generator="generator", replicas="int:1",
          alloc=lambda a: [("replicas", 8 * a["replicas"] * 6 * (a["d"] + 1) * a["d"])])
def init_params(model: str, d: int, generator: torch.Generator, replicas: int = 1) -> list[torch.Tensor]:
    """Initial weights of ``model`` for ``replicas`` independent copies, as torch.nn.Linear does.

    Every weight is U(-1/√d, 1/√d) (kaiming-uniform with a = √5, bias-free), drawn in the
    order of the public code. Shapes (S = replicas): ``one_layer``/``multihop``: one
    (S, 2d+1, d) matrix whose rows are [W_q; W_k; w_v] (queries and keys in R^d, a scalar
    value: the prediction); ``two_layer``: (S, 3d, d) [W_q1; W_k1; W_v1] for the first layer
    (d×d values and a residual) and (S, 2d+1, d) for the second (the one-layer head). A control
    (:data:`CONTROL_NAMES`) has its base model's weights.
    """
    model = _BASE.get(model, model) if model in _ALL_MODELS else model
    _check_choice("model", model, MODEL_NAMES)
    d = _check_int("d", d, 1)
    bound = 1.0 / math.sqrt(d)
    shapes = [(3 * d, d), (2 * d + 1, d)] if model == "two_layer" else [(2 * d + 1, d)]
    params = []
    for rows, cols in shapes:
        w = torch.stack([torch.empty(rows, cols).uniform_(-bound, bound, generator=generator)
                         for _ in range(replicas)])
        params.append(w)
    return params


def _head(X: torch.Tensor, W: torch.Tensor, d: int, last_only: bool = False):
    """Scores (S, B, T or 1, T) and values of one head, as the public code computes them: X (S, B, T, d),
    W (S, r, d). ``last_only`` scores only the query token (all a single head's prediction needs; softmax
    rows are independent, so this changes no value)."""
    proj = X @ W.transpose(-1, -2)[:, None]            # (S, B, T, r): the code's c_attn
    q, k, v = proj.split([d, d, W.shape[1] - 2 * d], dim=-1)
    if last_only:
        q = q[..., -1:, :]
    return q @ k.transpose(-2, -1) * (1.0 / math.sqrt(d)), v


# ----------------------------------------------------------------------------- the token-major arithmetic
# The paired protocol's ``fast`` arithmetic. The toy task's matrices are tiny (T = 5 tokens, d = 3), so the
# batched matrix products and softmaxes over a 5-long contiguous axis of the (S, B, T, ·) layout are a loop of
# S·B tiny kernels. Here the sequences (S, B) are the *trailing* axes: X is (T, d, S, B), a weight row
# broadcasts as (·, d, S, 1), and every product and softmax is a few whole-array operations over contiguous
# S·B-long rows, summed over leading axes (about 2-3x faster forward and backward on one CPU thread). The
# same functions as the code's arithmetic, in another summation order (float32 rounding apart).
def _rows(W: torch.Tensor) -> torch.Tensor:
    """Weights (S, r, d) as (r, d, S, 1): row k of replica s at [k, :, s]."""
    return W.permute(1, 2, 0)[..., None]


def _apply(Xt: torch.Tensor, Wr: torch.Tensor) -> torch.Tensor:
    """x Wᵀ for every token: Xt (T, d, S, B), rows Wr (r, d, S, 1) -> (T, r, S, B)."""
    return (Xt[:, None] * Wr[None]).sum(2)


def _bilinear(Wr: torch.Tensor, d: int) -> torch.Tensor:
    """A = W_qᵀ W_k / √d as (d, d, S, 1), so that the score of query x_i on key x_j is x_iᵀ A x_j."""
    return (Wr[:d, :, None] * Wr[d:2 * d, None, :]).sum(0) * (1.0 / math.sqrt(d))


def _query_scores(Xt: torch.Tensor, Wr: torch.Tensor, d: int) -> torch.Tensor:
    """The query's (last token's) scores on every token, (T, S, B): (x_Tᵀ A) x_j."""
    u = (Xt[-1][:, None] * _bilinear(Wr, d)).sum(0)         # (d, S, B): x_Tᵀ A
    return (Xt * u[None]).sum(1)


def _all_scores(Xt: torch.Tensor, Wr: torch.Tensor, d: int) -> torch.Tensor:
    """All scores (T_i, T_j, S, B): (x_iᵀ A) x_j."""
    U = _apply(Xt, _bilinear(Wr, d).transpose(0, 1))        # (T, d, S, B): row i is x_iᵀ A
    return (U[:, None] * Xt[None]).sum(2)


def _hop_query_row(scores: torch.Tensor, hops: int, mode: str) -> torch.Tensor:
    """The query's row of :func:`hop_operator` (T_j, S, B) from all scores (T_i, T_j, S, B), without the full
    matrix powers: paper, Σ_k e_T Pᵏ with e_T P^{k+1} = (e_T Pᵏ) P; code, the column T of (I + Σ_k P_cᵏ)/(K+1)
    with P_c^{k+1} e_T = P_c (P_cᵏ e_T)."""
    if mode == "paper":
        P = _softmax(scores, 1, True)
        r = M = P[-1]
        for _ in range(hops - 1):
            r = (r[:, None] * P).sum(0)
            M = M + r
        return M
    P = _softmax(scores, 0, True)
    c = P[:, -1]                                             # (T_i, S, B): column T of P_c
    M = c.clone()
    M[-1] = M[-1] + 1.0                                      # + e_T
    for _ in range(hops - 1):
        c = (P * c[None]).sum(1)
        M = M + c
    return M / (hops + 1)


def _forward_token_major(model: str, params: Sequence[torch.Tensor], X: torch.Tensor, hops: int, operator: str):
    """:func:`forward`'s prediction (S, B) and attention thunk in the token-major arithmetic."""
    d = X.shape[-1]
    Xt = X.permute(2, 3, 0, 1).contiguous()                 # (T, d, S, B)
    W = _rows(params[0])
    if model in ("one_layer", "one_layer_x2", "two_layer"):
        if model == "two_layer":   # layer 1: all scores, d×d values and a residual; layer 2: a one-layer head
            A1 = _softmax(_all_scores(Xt, W, d), 1, True)           # (T_i, T_j, S, B)
            V1 = _apply(Xt, W[2 * d:])                              # (T, d, S, B)
            Xt = Xt + (A1[:, :, None] * V1[None]).sum(1)            # H
            W = _rows(params[1])
        a = _softmax(_query_scores(Xt, W, d), 0, True)              # (T, S, B)
        pred = (a * _apply(Xt, W[2 * d:])[:, 0]).sum(0)
        pred = 2.0 * pred if model == "one_layer_x2" else pred
        if model == "two_layer":
            att = (lambda: 0.5 * (a + (a[:, None] * A1).sum(0)))
        else:
            att = (lambda: a)
    else:
        row = _hop_query_row(_all_scores(Xt, W, d), hops, operator)
        row = row / hops if model == "multihop_norm" else row
        pred = (row * _apply(Xt, W[2 * d:])[:, 0]).sum(0)
        att = (lambda: row / row.sum(0, keepdim=True))
    return pred, (lambda: att().permute(1, 2, 0))


@contract(X="tensor:4", hops="int:1")
def forward(model: str, params: Sequence[torch.Tensor], X: torch.Tensor, *, hops: int = 2,
            operator: str = "paper", return_attention: bool = False, fast: bool = False):
    """Prediction of ``model`` at the last (query) token.

    X: (S, B, T, d), params as from :func:`init_params`. Returns ``pred`` (S, B) and, with
    ``return_attention``, the effective attention of the query over the T input tokens
    (S, B, T), normalised to sum to 1: the last row of P (one layer), of M/row-sum (multi-hop),
    and the rollout ½ A₂ (I + A₁) for the two-layer model (its residual carries each token's
    own state half the way). ``fast``: the token-major arithmetic (training under the paired protocol;
    the replay of the public code keeps the code's, op by op).
    """
    _check_choice("model", model, _ALL_MODELS)
    if isinstance(params, (str, bytes)) or not isinstance(params, Sequence) \
            or not all(isinstance(p, torch.Tensor) for p in params):
        raise TypeError(f"params must be the list of weight tensors init_params gives; got {type(params).__name__}")
    if X.dim() != 4 or X.shape[2] < 1:
        raise ValueError(f"X must have shape (S, B, T, d) with T >= 1 (the query is the last token); got "
                         f"{tuple(X.shape)}")
    if any(p.dtype != X.dtype for p in params):   # torch's matmul refuses a mix in its own words
        raise TypeError(f"params and X must have one dtype; got params {[str(p.dtype) for p in params]} and X "
                        f"{X.dtype}")
    d = X.shape[-1]
    _check_choice("operator", operator, OPERATOR_MODES)
    # the shapes init_params gives (a cheap look at two or three sizes: forward runs in the training loop)
    rows = [3 * d, 2 * d + 1] if _BASE.get(model, model) == "two_layer" else [2 * d + 1]
    if len(params) != len(rows) or any(p.dim() != 3 or p.shape[1:] != (r, d) or p.shape[0] not in (1, X.shape[0])
                                       and X.shape[0] != 1 for p, r in zip(params, rows)):
        raise ValueError(f"params must be {model}'s weights for d = {d} and S = {X.shape[0]} (init_params): shapes "
                         f"{[('S', r, d) for r in rows]}; got {[tuple(p.shape) for p in params]}")
    # the attention (not part of the prediction) only when asked for: training never is, and two-layer's is a product
    if fast:
        pred, att = _forward_token_major(model, params, X, hops, operator)
    elif model in ("one_layer", "one_layer_x2"):
        scores, v = _head(X, params[0], d, last_only=True)
        A = torch.softmax(scores, -1)
        pred = (A @ v)[..., -1, 0]
        if model == "one_layer_x2":
            pred = 2.0 * pred
        att = (lambda: A[..., -1, :])
    elif model in ("multihop", "multihop_norm"):
        # the whole operator, as the public code computes it (scores are the model's own, so hop_operator's
        # argument checks are skipped: they cost a scan per step)
        scores, v = _head(X, params[0], d)
        M = hop_operator.__wrapped__(scores, hops, operator)
        M = M / hops if model == "multihop_norm" else M
        pred, row = (M @ v)[..., -1, 0], M[..., -1, :]
        att = (lambda: row / row.sum(-1, keepdim=True))
    else:
        scores1, v1 = _head(X, params[0], d)
        A1 = torch.softmax(scores1, -1)
        H = X + A1 @ v1                                  # layer 1: d×d values and a residual
        scores2, v2 = _head(H, params[1], d, last_only=True)
        A2 = torch.softmax(scores2, -1)
        pred = (A2 @ v2)[..., -1, 0]
        a2 = A2[..., -1, :]
        att = (lambda: 0.5 * (a2 + (a2[..., None, :] @ A1)[..., 0, :]))
    if return_attention:
        return pred, att()
    return pred


# ----------------------------------------------------------------------------- stored results
def reference_path(name: str) -> Path:
    """A verified local copy of a stored result of the public code, e.g. ``multiple_training.json``
    (:func:`mfattn.companion.datasets.fetch` of data set ``asi-reference``: ``$MFATTN_ASI_REFERENCE``,
    ``data/asi-reference`` of the checkout or ``../shared``, else a download at a pinned commit).
    Offline with no copy, :class:`~mfattn.companion.datasets.MissingDataError` says which file is
    missing, where it looked and how to get it."""
    from ..companion import datasets

    _check_choice("name", name, tuple(datasets.DATASETS["asi-reference"].files))
    return datasets.fetch("asi-reference", name)


# ----------------------------------------------------------------------------- training
@contract(mass="array:2", threshold="real:[0,1]")
def collapse_rate(mass: np.ndarray, threshold: float = 0.5) -> float:
    """Fraction of runs whose query puts more than ``threshold`` of its attention on noise tokens.

    mass: (S, 4) mean attention mass per run over :data:`ROLE_NAMES` (``mass/<model>`` of
    :func:`train_multihop`). A collapsed head averages noise instead of finding x0, x1.
    """
    check_probability("threshold", threshold)
    mass = np.asarray(mass, dtype=float)
    if mass.ndim != 2 or mass.shape[1] != len(ROLE_NAMES) or mass.shape[0] < 1:
        raise ValueError(f"mass must have shape (runs, {len(ROLE_NAMES)}) with at least one run; got {mass.shape}")
    if not (np.all(np.isfinite(mass)) and np.all(mass >= 0)):   # attention masses: shares in [0, 1]
        raise ValueError("mass must hold finite attention masses >= 0")
    return float(np.mean(mass[:, 0] > threshold))


@contract(a="array", b="array")
def relative_error(a, b) -> np.ndarray:
    """|a - b| / |b|, elementwise (``b`` the reference: nonzero and finite, as ``a``)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.size == 0:   # numpy would broadcast a mismatch into a table of errors
        raise ValueError(f"a and b must have one shape, with at least one number; got {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must hold finite numbers")
    if np.any(b == 0):
        raise ValueError("b (the reference) must be nonzero everywhere: an error relative to 0 is undefined")
    return np.abs(a - b) / np.abs(b)


# training lives in .multihop_train, which imports this module's models and task: its names are looked up there on
# first use (PEP 562), so that either module may be imported first
_FROM_TRAIN = ("_model_streams", "_skip_batches", "train_multihop")


def __getattr__(name: str):
    if name in _FROM_TRAIN:
        from . import multihop_train

        return getattr(multihop_train, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_FROM_TRAIN])
