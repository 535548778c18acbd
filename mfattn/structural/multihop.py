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
two-layer self-attention that the public code never implements), the toy data generator in its
paper and code variants, and the output-scale controls. The training routine, which trains several
seeds and models at once (one tensor op per step for all seeds of a model) and caches its results
keyed by the config, is :func:`~.multihop_train.train_multihop` (importable from here).
The optimiser and the seed streams it shares with expanding attention are in :mod:`.optim`.

Conventions: a model's parameters are stacked over a leading replica axis ``S`` (one replica per
seed); a batch of sequences is ``X`` of shape (S, B, T, d) whose last token is the query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from ..companion.checks import check_choice as _check_choice, check_int as _check_int, check_probability
from ..companion.checks import check_rule, contract

__all__ = [
    "TASK_MODES", "OPERATOR_MODES", "MODEL_NAMES", "CONTROL_NAMES", "ROLE_NAMES", "PROTOCOLS", "SHUFFLES", "ROOTS",
    "MultihopTask", "TaskWeights", "make_task_weights", "sample_multihop_batch", "sample_multihop_batches",
    "hop_operator", "init_params", "forward",
    "train_multihop", "relative_error", "collapse_rate", "reference_path",
]

TASK_MODES = ("paper", "code")
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
#: Token roles in a sequence; the query x2 is always the last token.
ROLE_NAMES = ("noise", "x0", "x1", "x2")
#: ``paired``: every model of a seed sees the same data stream (common random numbers).
#: ``code``: the public code's order of draws from one generator per seed (task, then per model:
#: initial weights and ``stream_steps`` batches), which reproduces its stored curves.
PROTOCOLS = ("paired", "code")
SHUFFLES = ("sample", "batch", "none")
#: How the root x0 is drawn: ``uniform`` U[0, x0_scale)^d (paper and code: told apart from the noise
#: by its keys alone) or ``noise`` N(0, noise_std²)^d like the noise tokens (the ablation).
ROOTS = ("uniform", "noise")


# ----------------------------------------------------------------------------- the toy task
@dataclass(frozen=True)
class MultihopTask:
    """The toy regression of the paper's Figure 2.

    A sequence of ``n`` tokens in R^d: ``n - 3`` noise tokens ~ N(0, noise_std²), a root
    x0 ~ U[0, x0_scale)^d and a chain x1 = x0 W_r + ε, x2 = x1 W_r + ε (ε ~ N(0, noise_std²)).
    The query is x2 (last token); with ``root="noise"`` x0 ~ N(0, noise_std²)^d is drawn like the
    noise, so that its keys alone cannot single it out (the ablation of the chapter). The target is

        paper: y = W_y (x0 + x1),           W_r of rank ``rank`` (x0 is only reachable via x1)
        code : y = W_y (2·x0 + x1 + x2),    W_r ~ U[0, 1)^{d×d} (full rank)

    W_y ~ N(1, 1)^{1×d} in both.
    """

    mode: str = "paper"
    d: int = 3
    n: int = 5
    noise_std: float = 1.0
    x0_scale: float = 10.0
    rank: int = 1
    root: str = "uniform"

    def __post_init__(self) -> None:
        _check_choice("task mode", self.mode, TASK_MODES)
        _check_choice("root", self.root, ROOTS)
        _check_int("d", self.d, 1)
        _check_int("n", self.n, 3)
        _check_int("rank", self.rank, 1)
        if self.rank > self.d:
            raise ValueError(f"rank must be ≤ d = {self.d}; got {self.rank}")
        check_rule("noise_std", self.noise_std, "real:>=0"), check_rule("x0_scale", self.x0_scale, "real:>0")


@dataclass(frozen=True)
class TaskWeights:
    """The fixed weights of one task draw: W_y (1, d) and W_r (d, d)."""

    W_y: torch.Tensor
    W_r: torch.Tensor


def make_task_weights(task: MultihopTask, generator: torch.Generator) -> TaskWeights:
    """Draw W_y ~ N(1, 1) and W_r from ``generator`` (in the public code's order: W_y, then W_r).

    code: W_r ~ U[0, 1)^{d×d}. paper: W_r = U Vᵀ / rank with U, V ~ U[0, 1)^{d×rank}, so that
    W_r has rank ``rank`` and entries of the same scale as the code's.
    """
    d = task.d
    W_y = torch.normal(mean=torch.ones(1, d), std=1.0, generator=generator)
    if task.mode == "code":
        W_r = torch.rand(d, d, generator=generator)
    else:
        U = torch.rand(d, task.rank, generator=generator)
        V = torch.rand(d, task.rank, generator=generator)
        W_r = U @ V.T / task.rank
    return TaskWeights(W_y, W_r)


def _draw_root(task: MultihopTask, B: int, generator: torch.Generator) -> torch.Tensor:
    """x0 (B, 1, d): U[0, x0_scale) (the code's 10·U[0, 1)) or, for ``root="noise"``, N(0, noise_std²)."""
    if task.root == "noise":
        return torch.normal(mean=torch.zeros(B, 1, task.d), std=task.noise_std, generator=generator)
    return torch.rand(B, 1, task.d, generator=generator) * task.x0_scale


def sample_multihop_batch(task: MultihopTask, weights: TaskWeights, batch_size: int,
                          generator: torch.Generator, *, shuffle: str = "sample",
                          shuffle_generator: torch.Generator | None = None):
    """One batch of the toy task.

    Returns ``X`` (B, n, d), ``y`` (B, 1) and ``roles`` (B, n) (indices into :data:`ROLE_NAMES`).
    Draws from ``generator`` in the public code's order: x0 = 10·U[0,1), the n-3 noise tokens,
    then the two chain noises; the code's target is summed in its order ((x0 + x0) + x1) + x2.
    The first n-1 tokens are then permuted (the query stays last) with ``shuffle_generator``:
    ``sample`` draws one permutation per sequence, ``batch`` one per batch (the code's
    ``random.shuffle``), ``none`` keeps [noise, x0, x1, x2]. Shuffling never touches ``generator``,
    so the data stream is the same with or without it.
    """
    _check_int("batch_size", batch_size, 1)
    _check_choice("shuffle", shuffle, SHUFFLES)
    B, n, d, std = batch_size, task.n, task.d, task.noise_std
    with torch.no_grad():
        x0 = _draw_root(task, B, generator)
        noise = torch.normal(mean=torch.zeros(B, n - 3, d), std=std, generator=generator)
        x1 = x0 @ weights.W_r + torch.normal(mean=torch.zeros(B, 1, d), std=std, generator=generator)
        x2 = x1 @ weights.W_r + torch.normal(mean=torch.zeros(B, 1, d), std=std, generator=generator)
        X = torch.cat([noise, x0, x1, x2], dim=1)
        if task.mode == "code":
            s = x0[:, 0] + x0[:, 0] + x1[:, 0] + x2[:, 0]
        else:
            s = x0[:, 0] + x1[:, 0]
        y = torch.nn.functional.linear(weights.W_y, s).t()
        roles = torch.tensor([0] * (n - 3) + [1, 2, 3]).expand(B, n)
        if shuffle != "none":
            if shuffle_generator is None:
                raise ValueError("shuffle_generator must be a torch.Generator when shuffle != 'none'")
            rows = 1 if shuffle == "batch" else B
            perm = torch.argsort(torch.rand(rows, n - 1, generator=shuffle_generator), dim=1)
            perm = torch.cat([perm, torch.full((rows, 1), n - 1)], dim=1).expand(B, n)
            X = torch.gather(X, 1, perm[..., None].expand(B, n, d))
            roles = torch.gather(roles, 1, perm)
    return X, y, roles.contiguous()


def sample_multihop_batches(task: MultihopTask, weights: Sequence[TaskWeights], batch_size: int,
                            generators: Sequence[torch.Generator], *, shuffle: str = "sample",
                            shuffle_generators: Sequence[torch.Generator] | None = None):
    """:func:`sample_multihop_batch` for S streams at once: one batch from each ``generators[i]`` with
    ``weights[i]`` (and ``shuffle_generators[i]``), stacked. Returns X (S, B, n, d), y (S, B), roles (S, B, n),
    bit for bit the S single batches stacked: each stream's draws are made as there, in the same order
    and shapes (so no stream depends on the others), and only the arithmetic after the draws is batched
    (products as one batched matrix product of the same (B, d) @ (d, d) and (1, d) @ (d, B) slices).
    """
    _check_int("batch_size", batch_size, 1)
    _check_choice("shuffle", shuffle, SHUFFLES)
    S = len(generators)
    if S < 1 or len(weights) != S:
        raise ValueError(f"weights: one per generator ({S}); got {len(weights)}")
    if shuffle != "none" and (shuffle_generators is None or len(shuffle_generators) != S):
        raise ValueError(f"shuffle_generators: one torch.Generator per generator ({S}) when shuffle != 'none'")
    B, n, d, std = batch_size, task.n, task.d, task.noise_std
    z_noise, z_one = torch.zeros(B, n - 3, d), torch.zeros(B, 1, d)
    with torch.no_grad():
        draws = [(_draw_root(task, B, g), torch.normal(mean=z_noise, std=std, generator=g),
                  torch.normal(mean=z_one, std=std, generator=g), torch.normal(mean=z_one, std=std, generator=g))
                 for g in generators]
        x0, noise, e1, e2 = (torch.stack(z) for z in zip(*draws))           # (S, B, ·, d)
        W_r = torch.stack([w.W_r for w in weights])                          # (S, d, d)
        x1 = torch.bmm(x0.reshape(S, B, d), W_r).reshape(S, B, 1, d) + e1
        x2 = torch.bmm(x1.reshape(S, B, d), W_r).reshape(S, B, 1, d) + e2
        X = torch.cat([noise, x0, x1, x2], dim=2)
        if task.mode == "code":
            s = x0[:, :, 0] + x0[:, :, 0] + x1[:, :, 0] + x2[:, :, 0]
        else:
            s = x0[:, :, 0] + x1[:, :, 0]
        W_y = torch.stack([w.W_y for w in weights])                          # (S, 1, d)
        y = torch.bmm(W_y, s.transpose(1, 2))[:, 0]                          # (S, B)
        roles = torch.tensor([0] * (n - 3) + [1, 2, 3]).expand(S, B, n)
        if shuffle != "none":
            rows = 1 if shuffle == "batch" else B
            u = torch.stack([torch.rand(rows, n - 1, generator=g) for g in shuffle_generators])
            perm = torch.argsort(u, dim=-1)
            perm = torch.cat([perm, torch.full((S, rows, 1), n - 1)], dim=-1).expand(S, B, n)
            X = torch.gather(X, 2, perm[..., None].expand(S, B, n, d))
            roles = torch.gather(roles, 2, perm)
    return X, y, roles.contiguous()


# ----------------------------------------------------------------------------- the operators
def _softmax(x: torch.Tensor, dim: int, fast: bool) -> torch.Tensor:
    """softmax along ``dim``; ``fast``: written out (max, exp, sum), about 4x faster than torch.softmax over the
    5-token axes of the toy task on one CPU thread (same values to float32 rounding)."""
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
    if scores.dim() < 2 or scores.shape[-1] != scores.shape[-2]:
        raise ValueError(f"scores must have shape (..., T, T); got {tuple(scores.shape)}")
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


def _hop_last_row(scores: torch.Tensor, hops: int, mode: str) -> torch.Tensor:
    """The last row of :func:`hop_operator` (…, T) without the full matrix powers (``fast`` arithmetic):
    paper, Σ_k (e_T Pᵏ) with e_T P^{k+1} = (e_T Pᵏ) P; code, the last column of (I + Σ_k P_cᵏ)/(K+1)."""
    if mode == "paper":
        P = _softmax(scores, -1, True)
        r = P[..., -1:, :]                                   # (…, 1, T)
        M = r
        for _ in range(hops - 1):
            r = r @ P
            M = M + r
        return M[..., 0, :]
    P = _softmax(scores, -2, True)
    T = scores.shape[-1]
    c = P[..., :, -1:]                                       # (…, T, 1): column T of P_c
    e = torch.zeros(T, 1, dtype=scores.dtype, device=scores.device)
    e[-1] = 1.0
    M = e + c
    for _ in range(hops - 1):
        c = P @ c
        M = M + c
    return (M / (hops + 1))[..., 0]


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


def _head(X: torch.Tensor, W: torch.Tensor, d: int, last_only: bool = False, fast: bool = False):
    """Scores (S, B, T or 1, T) and values of one head: X (S, B, T, d), W (S, r, d).

    ``last_only`` scores only the query token (the last row), which is all a single head's
    prediction needs; softmax rows are independent, so this changes no value.
    """
    if fast:   # one (B·T, d) @ (d, r) product per replica instead of B broadcast ones
        S, B, T, _ = X.shape
        proj = (X.reshape(S, B * T, d) @ W.transpose(-1, -2)).reshape(S, B, T, -1)
    else:
        proj = X @ W.transpose(-1, -2)[:, None]        # (S, B, T, r): the code's c_attn
    q, k, v = proj.split([d, d, W.shape[1] - 2 * d], dim=-1)
    if last_only:
        q = q[..., -1:, :]
        if fast:   # one row: a product and a sum over d, not B tiny matrix products
            return (k * q).sum(-1)[..., None, :] * (1.0 / math.sqrt(d)), v
    scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(d))
    return scores, v


def _last_row_output(A: torch.Tensor, v: torch.Tensor, fast: bool) -> torch.Tensor:
    """(A @ v)[..., -1, 0] for the query's row A (S, B, 1, T) and scalar values v (S, B, T, 1)."""
    if fast:
        return (A[..., 0, :] * v[..., 0]).sum(-1)
    return (A @ v)[..., -1, 0]


def forward(model: str, params: Sequence[torch.Tensor], X: torch.Tensor, *, hops: int = 2,
            operator: str = "paper", return_attention: bool = False, fast: bool = False):
    """Prediction of ``model`` at the last (query) token.

    X: (S, B, T, d), params as from :func:`init_params`. Returns ``pred`` (S, B) and, with
    ``return_attention``, the effective attention of the query over the T input tokens
    (S, B, T), normalised to sum to 1: the last row of P (one layer), of M/row-sum (multi-hop),
    and the rollout ½ A₂ (I + A₁) for the two-layer model (its residual carries each token's
    own state half the way). ``fast``: the faster arithmetic of :func:`_softmax` and :func:`_head`
    (training under the paired protocol; the replay of the public code keeps torch's).
    """
    _check_choice("model", model, _ALL_MODELS)
    if X.dim() != 4:
        raise ValueError(f"X must have shape (S, B, T, d); got {tuple(X.shape)}")
    d = X.shape[-1]
    # the attention (not part of the prediction) only when asked for: training never is, and two-layer's is a product
    if model in ("one_layer", "one_layer_x2"):
        scores, v = _head(X, params[0], d, last_only=True, fast=fast)
        A = _softmax(scores, -1, fast)
        pred = _last_row_output(A, v, fast)
        if model == "one_layer_x2":
            pred = 2.0 * pred
        att = (lambda: A[..., -1, :])
    elif model in ("multihop", "multihop_norm"):
        scores, v = _head(X, params[0], d, fast=fast)
        if fast:   # the query's row of the operator: all a single head's prediction needs
            row = _hop_last_row(scores, hops, operator)
            row = row / hops if model == "multihop_norm" else row
            pred = (row * v[..., 0]).sum(-1)
        else:      # the whole operator, as the public code computes it (the replay's arithmetic; scores are the
            #        model's own, so hop_operator's argument checks are skipped: they cost a scan per step)
            M = hop_operator.__wrapped__(scores, hops, operator)
            M = M / hops if model == "multihop_norm" else M
            pred, row = (M @ v)[..., -1, 0], M[..., -1, :]
        att = (lambda: row / row.sum(-1, keepdim=True))
    else:
        scores1, v1 = _head(X, params[0], d, fast=fast)
        A1 = _softmax(scores1, -1, fast)
        H = X + A1 @ v1                                  # layer 1: d×d values and a residual
        scores2, v2 = _head(H, params[1], d, last_only=True, fast=fast)
        A2 = _softmax(scores2, -1, fast)
        pred = _last_row_output(A2, v2, fast)
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
    if mass.ndim != 2 or mass.shape[1] != len(ROLE_NAMES):
        raise ValueError(f"mass must have shape (runs, {len(ROLE_NAMES)}); got {mass.shape}")
    return float(np.mean(mass[:, 0] > threshold))


@contract(a="array", b="array")
def relative_error(a, b) -> np.ndarray:
    """|a - b| / |b|, elementwise."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.abs(a - b) / np.abs(b)


# training lives in .multihop_train (imported last: it reads this module's models and task)
from .multihop_train import _model_streams, _skip_batches, train_multihop  # noqa: E402, F401
