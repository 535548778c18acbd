"""Attention as the posterior expectation of a value function over graph structures.

Singh & Buckley (2023) read an attention head as Bayesian inference over which edges of a
graphical model are present. Each query node ``i`` has an unobserved set of incoming edges
``E_i`` from the key nodes ``j``; the edge potential is the dot product of query and key,

    ln p(x_i | x_j, E_ij = 1) = beta * q_i . k_j + const,                       (1)

and the prior over structures is *factorised and uniform*: every query has exactly one
parent, chosen uniformly among the parents the mechanism allows,

    p(E) = prod_i p(E_i),   p(E_i = j) = 1 / |A_i|  for j in A_i.                 (2)

The allowed sets ``A_i`` name the mechanism: all keys of another sequence (cross-attention),
all tokens of the same sequence (self-attention), or the tokens at or before ``i`` (causal
attention). The value function reads the parent's value, ``v(x, E)_i = sum_j E_ij v_j``, and
its posterior expectation is the attention output

    E_{p(E|x)}[v(x, E)]_i = sum_j softmax_{j in A_i}(beta q_i . k_j) v_j.          (3)

This module checks (3) by brute force: it enumerates every edge set allowed by the prior
(``prod_i |A_i|`` structures, at most ``6**6``), weighs each by its joint posterior and
averages the value function. It also marginalises the joint posterior edge by edge and
compares with the per-query softmax, which is what the factorisation of (2) buys.

For contrast, ``prior="exclusive"`` keeps the one-parent rule but forbids two queries from
sharing a parent (a matching, as in optimal-transport attention). That prior no longer
factorises over queries, so its edge marginals are *not* a per-query softmax; only
enumeration (or an approximation such as Sinkhorn iterations) gives them.

All functions work in float64 so the identities hold to ~1e-15.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from ..companion.checks import check_real, contract

__all__ = [
    "enumeration_study",
    "mask_study",
    "MODES",
    "PRIORS",
    "MAX_ENUM_TOKENS",
    "allowed_parents",
    "enumerate_structures",
    "structure_log_prior",
    "joint_structure_posterior",
    "brute_force_attention",
    "joint_edge_marginals",
    "factorised_edge_marginals",
    "softmax_attention",
    "sinkhorn_edge_marginals",
]

#: Mechanisms, named by the set of parents each query may have.
MODES = ("cross", "self", "causal")
#: Priors over edge sets: factorised uniform (eq. 2), or uniform over matchings (no shared parents).
PRIORS = ("factorised", "exclusive")
#: Brute force enumerates ``n**m`` structures; above 6 tokens this grows past 6**6 = 46 656.
MAX_ENUM_TOKENS = 6


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}; got {mode!r}")
    return mode


@contract(n_queries="int:1", n_keys="int:1", alloc=lambda a: [("n_keys", a["n_queries"] * a["n_keys"])])
def allowed_parents(n_queries: int, n_keys: int, mode: str) -> torch.Tensor:
    """The support of the prior (2): a boolean mask ``A`` of shape ``(n_queries, n_keys)``.

    ``A[i, j]`` says whether key ``j`` may be the parent of query ``i``: always for
    ``"cross"`` and ``"self"``, and for ``j <= i`` for ``"causal"``. Self and causal
    attention read one sequence, so they need ``n_queries == n_keys``.
    """
    _check_mode(mode)
    for name, value in (("n_queries", n_queries), ("n_keys", n_keys)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if mode in ("self", "causal") and n_queries != n_keys:
        raise ValueError(f"mode={mode!r} attends within one sequence, so n_queries must equal n_keys; "
                         f"got {n_queries} queries and {n_keys} keys")
    mask = torch.ones(n_queries, n_keys, dtype=torch.bool)
    if mode == "causal":
        mask = torch.tril(mask)
    return mask


@contract(allowed="anytensor:2")
def enumerate_structures(allowed: torch.Tensor) -> torch.Tensor:
    """Every edge set in the support of the one-parent prior, as parent indices.

    Parameters
    ----------
    allowed : bool tensor (m, n)
        ``allowed[i, j]``: key ``j`` may be the parent of query ``i``.

    Returns
    -------
    LongTensor (S, m)
        Row ``s`` is one structure ``E``: ``E[s, i]`` is the parent of query ``i``.
        ``S = prod_i |A_i|``; structures are in lexicographic order. The adjacency matrix of
        structure ``s`` is ``one_hot(E[s], n)``.
    """
    if allowed.dim() != 2 or allowed.dtype != torch.bool:
        raise ValueError(f"allowed must be a 2-D bool tensor (queries, keys); got shape "
                         f"{tuple(allowed.shape)} and dtype {allowed.dtype}")
    m, n = allowed.shape
    if m < 1 or n < 1:
        raise ValueError(f"allowed must have at least one query and one key; got shape {tuple(allowed.shape)}")
    if max(m, n) > MAX_ENUM_TOKENS:
        raise ValueError(f"brute-force enumeration is limited to at most {MAX_ENUM_TOKENS} queries and "
                         f"{MAX_ENUM_TOKENS} keys ({MAX_ENUM_TOKENS}**{MAX_ENUM_TOKENS} structures); got "
                         f"{m} queries and {n} keys")
    choices = [torch.nonzero(allowed[i]).flatten().tolist() for i in range(m)]
    empty = [i for i, c in enumerate(choices) if not c]
    if empty:
        raise ValueError(f"allowed leaves queries {empty} without any possible parent")
    return torch.tensor(list(itertools.product(*choices)), dtype=torch.long).reshape(-1, m)


@contract(structures="anytensor:2", allowed="anytensor:2")
def structure_log_prior(structures: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """``ln p(E)`` of the factorised uniform prior (2) for each enumerated structure, shape (S,).

    structures : long (S, m), each row the chosen key of every query; allowed : bool (m, n)."""
    if not isinstance(structures, torch.Tensor) or structures.dtype not in (torch.int64, torch.int32, torch.int16,
                                                                            torch.int8, torch.uint8):
        raise TypeError(f"structures must be an integer tensor (S, m) of key indices; got "
                        f"{getattr(structures, 'dtype', type(structures).__name__)}")
    if not isinstance(allowed, torch.Tensor) or allowed.dtype != torch.bool or allowed.dim() != 2:
        raise TypeError("allowed must be a bool tensor (m, n) of the keys each query may attend to")
    if structures.dim() != 2 or structures.shape[1] != allowed.shape[0]:
        raise ValueError(f"structures must have shape (S, {allowed.shape[0]}) (one key per query); got "
                         f"{tuple(structures.shape)}")
    if allowed.shape[1] < 1 or not bool(allowed.any(-1).all()):
        raise ValueError(f"allowed leaves queries {torch.nonzero(~allowed.any(-1)).flatten().tolist()} without any "
                         f"possible parent (each row needs one True); got shape {tuple(allowed.shape)}")
    if structures.numel() and (structures.min() < 0 or structures.max() >= allowed.shape[1]):
        raise ValueError(f"structures must hold key indices in [0, {allowed.shape[1]}); got "
                         f"[{int(structures.min())}, {int(structures.max())}]")
    counts = allowed.sum(-1).to(torch.float64)  # |A_i|
    inside = allowed[torch.arange(allowed.shape[0]), structures]  # (S, m): is each edge allowed?
    logp = -torch.log(counts).sum().expand(structures.shape[0]).clone()
    return torch.where(inside.all(-1), logp, torch.full_like(logp, -math.inf))


def _scores(q: torch.Tensor, k: torch.Tensor, beta: float) -> torch.Tensor:
    check_real("beta (the inverse temperature of the edge potential)", beta, minimum=0.0)
    if q.dim() < 2 or k.dim() < 2:
        raise ValueError(f"q and k must have shape (..., tokens, dim); got {tuple(q.shape)} and {tuple(k.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share their last (feature) dimension; got {q.shape[-1]} and {k.shape[-1]}")
    if q.dtype != k.dtype:
        raise TypeError(f"q and k must have one dtype; got {q.dtype} and {k.dtype} (cast one explicitly)")
    _batch("q and k", q.shape[:-2], k.shape[:-2])
    scores = beta * q @ k.transpose(-1, -2)
    if not bool(torch.isfinite(scores).all()):   # beta = 1e308 overflowed them and every posterior became NaN
        raise ValueError(f"beta = {beta:g} times q·k overflows the scores (or q, k hold NaN/inf): take a smaller beta")
    return scores


def _batch(names: str, *shapes) -> None:
    """Refuse batch shapes (the dimensions before (tokens, dim)) that do not broadcast, naming the tensors."""
    try:
        np.broadcast_shapes(*(tuple(s) for s in shapes))
    except ValueError:
        raise ValueError(f"{names} must have batch shapes (before (tokens, dim)) that broadcast; got "
                         f"{', '.join(str(tuple(s)) for s in shapes)}") from None


def _checked(q, k, v, mode):
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor; got {type(t).__name__}")
        if not t.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor; got {t.dtype}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 2:
            raise ValueError(f"{name} must have shape (..., tokens, dim); got shape {tuple(t.shape)}")
    if v.dtype != q.dtype or k.dtype != q.dtype:
        raise TypeError(f"q, k and v must have one dtype; got q {q.dtype}, k {k.dtype} and v {v.dtype} (cast "
                        f"explicitly)")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"k and v must have the same number of tokens; got {k.shape[-2]} and {v.shape[-2]}")
    _batch("q, k and v", q.shape[:-2], k.shape[:-2], v.shape[:-2])
    allowed = allowed_parents(q.shape[-2], k.shape[-2], mode).to(q.device)
    return allowed


@contract(q="tensor:>=2", k="tensor:>=2", beta="real:>=0")
def joint_structure_posterior(q: torch.Tensor, k: torch.Tensor, mode: str = "self", beta: float = 1.0,
                              prior: str = "factorised"):
    """The joint posterior ``p(E | x)`` over every enumerated structure.

    ``p(E | x) ∝ p(E) prod_i exp(beta q_i . k_{E_i})`` computed over the whole structure
    space at once, without using that it factorises. ``prior="exclusive"`` restricts the
    support to structures in which no two queries share a parent, uniformly.

    Parameters
    ----------
    q : (..., m, d) queries;  k : (..., n, d) keys.

    Returns
    -------
    structures : LongTensor (S, m)
    posterior : tensor (..., S), summing to one over S.
    """
    _check_mode(mode)
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(map(repr, PRIORS))}; got {prior!r}")
    allowed = allowed_parents(q.shape[-2], k.shape[-2], mode).to(q.device)
    structures = enumerate_structures(allowed.cpu()).to(q.device)
    scores = _scores(q, k, beta)  # (..., m, n)
    m = q.shape[-2]
    # ln p(x | E) = sum_i s_{i, E_i}: gather each query's chosen parent, for all S structures.
    per_edge = scores[..., torch.arange(m, device=q.device), structures]  # (..., S, m)
    if prior == "factorised":
        log_prior = structure_log_prior(structures, allowed).to(scores)
    else:
        distinct = (structures[:, :, None] != structures[:, None, :]) | torch.eye(m, dtype=torch.bool,
                                                                                   device=q.device)
        distinct = distinct.all(-1).all(-1)
        if not bool(distinct.any()):
            raise ValueError(f"prior='exclusive' needs an edge set with distinct parents; mode={mode!r} with "
                             f"{m} queries and {k.shape[-2]} keys has none")
        log_prior = torch.where(distinct, -math.log(int(distinct.sum())), -math.inf).to(scores)
    log_joint = per_edge.sum(-1) + log_prior
    return structures, torch.softmax(log_joint, dim=-1)


@contract(q="tensor:>=2", k="tensor:>=2", v="tensor:>=2", beta="real:>=0")
def brute_force_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mode: str = "self",
                          beta: float = 1.0, prior: str = "factorised") -> torch.Tensor:
    """Posterior expectation of the value function by enumerating every structure, eq. (3).

    ``E[v]_i = sum_E p(E | x) v_{E_i}``, summed over all ``prod_i |A_i|`` edge sets.

    Parameters
    ----------
    q : (..., m, d), k : (..., n, d), v : (..., n, d_v)
    mode : "cross" | "self" | "causal"
    beta : inverse temperature of the edge potential (1/sqrt(d) in a transformer).

    Returns
    -------
    tensor (..., m, d_v), equal to :func:`softmax_attention` up to round-off for the
    factorised prior (and different from it for ``prior="exclusive"``).
    """
    _checked(q, k, v, mode)
    structures, post = joint_structure_posterior(q, k, mode, beta, prior)
    # v(x, E)_i = v_{E_i}: (..., S, m, d_v)
    values = v[..., structures, :]
    return torch.einsum("...s,...smd->...md", post, values)


@contract(q="tensor:>=2", k="tensor:>=2", beta="real:>=0")
def joint_edge_marginals(q: torch.Tensor, k: torch.Tensor, mode: str = "self", beta: float = 1.0,
                         prior: str = "factorised") -> torch.Tensor:
    """``p(E_ij = 1 | x)`` by summing the joint posterior over all structures with that edge.

    Returns a tensor (..., m, n): the attention matrix as the structures' edge marginals.
    """
    structures, post = joint_structure_posterior(q, k, mode, beta, prior)
    n = k.shape[-2]
    adjacency = torch.nn.functional.one_hot(structures, n).to(post)  # (S, m, n)
    return torch.einsum("...s,smn->...mn", post, adjacency)


@contract(q="tensor:>=2", k="tensor:>=2", beta="real:>=0")
def factorised_edge_marginals(q: torch.Tensor, k: torch.Tensor, mode: str = "self", beta: float = 1.0) -> torch.Tensor:
    """``p(E_ij = 1 | x)`` using the factorisation of the prior: one softmax per query.

    ``p(E_i = j | x) = softmax_{j in A_i}(beta q_i . k_j)``; shape (..., m, n), zero outside ``A_i``.
    """
    allowed = allowed_parents(q.shape[-2], k.shape[-2], _check_mode(mode)).to(q.device)
    scores = _scores(q, k, beta).masked_fill(~allowed, -math.inf)
    return torch.softmax(scores, dim=-1)


@contract(q="tensor:>=2", k="tensor:>=2", v="tensor:>=2", beta="real:>=0")
def softmax_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mode: str = "self",
                      beta: float = 1.0) -> torch.Tensor:
    """Plain attention, the reference of the brute-force identity.

    ``out_i = sum_j softmax_j(beta q_i . k_j + mask_ij) v_j`` with ``mask = -inf`` outside the
    allowed parents (the causal mask for ``mode="causal"``). Shapes as in
    :func:`brute_force_attention`; no size limit.
    """
    allowed = _checked(q, k, v, mode)
    scores = _scores(q, k, beta).masked_fill(~allowed, -math.inf)
    return torch.softmax(scores, dim=-1) @ v


@contract(q="tensor:>=2", k="tensor:>=2", beta="real:>=0", iters="int:1")
def sinkhorn_edge_marginals(q: torch.Tensor, k: torch.Tensor, beta: float = 1.0, iters: int = 200) -> torch.Tensor:
    """Sinkhorn's approximation of the exclusive prior's edge marginals (square case only).

    Alternately normalises the rows and columns of ``exp(beta q k^T)`` (in log space); the
    limit is the doubly stochastic matrix closest to the factorised posterior in KL divergence,
    a cheap surrogate for the marginals of the uniform prior over permutations, which
    :func:`joint_edge_marginals` with ``prior="exclusive"`` gives exactly. Shape (..., n, n).
    """
    if q.shape[-2] != k.shape[-2]:
        raise ValueError(f"sinkhorn_edge_marginals needs as many queries as keys; got {q.shape[-2]} and {k.shape[-2]}")
    if q.shape[-2] < 1:
        raise ValueError(f"q and k must hold at least one token; got shapes {tuple(q.shape)} and {tuple(k.shape)}")
    if not isinstance(iters, int) or iters < 1:
        raise ValueError(f"iters must be a positive integer; got {iters!r}")
    log_p = _scores(q, k, beta)
    for _ in range(iters):
        log_p = log_p - torch.logsumexp(log_p, dim=-1, keepdim=True)
        log_p = log_p - torch.logsumexp(log_p, dim=-2, keepdim=True)
    return log_p.exp()


@contract(n="int:3", d="int:1", beta="real:>=0", instances="int:1", generator="generator",
          alloc=lambda a: [("instances", 4 * a["instances"] * a["n"] * a["d"] * 8)])
def enumeration_study(n: int, d: int, beta: float, instances: int, generator: torch.Generator) -> dict:
    """Chapter 4's exact checks on random instances (float64, the draws in this order per mechanism:
    queries, keys, values of shape (instances, m, d)): for cross- (m = n - 2 queries), self- and causal
    attention, max |enumeration - softmax attention| per instance and the largest difference between the
    joint posterior's edge marginals and the per-query softmax; the joint posterior over the self-attention
    edge sets; and, with the exclusive prior at 4 β, the exact, softmax and Sinkhorn edge marginals. The draws
    themselves (``draws``: mode -> (q, k, v)), so that the round-off of the identity can be measured on them.
    """
    shapes = {"cross": (n - 2, n), "self": (n, n), "causal": (n, n)}
    out = {"errors": {}, "marginal_errors": {}, "n_structures": {}, "draws": {}}
    for mode, (m, nk) in shapes.items():
        q = torch.randn(instances, m, d, generator=generator)
        k = torch.randn(instances, nk, d, generator=generator)
        v = torch.randn(instances, nk, d, generator=generator)
        out["draws"][mode] = (q, k, v)
        brute = brute_force_attention(q, k, v, mode, beta)
        attn = softmax_attention(q, k, v, mode, beta)
        out["errors"][mode] = (brute - attn).abs().amax((-1, -2)).numpy()
        joint = joint_edge_marginals(q, k, mode, beta)
        out["marginal_errors"][mode] = (joint - factorised_edge_marginals(q, k, mode, beta)).abs().max().item()
        out["n_structures"][mode] = enumerate_structures(allowed_parents(m, nk, mode)).shape[0]
        if mode == "self":
            q_self, k_self = q, k
            _, out["posterior"] = joint_structure_posterior(q, k, mode, beta)
    # the exclusive prior (no shared parents) on the same self-attention instances, with a sharper beta
    out["beta_x"] = beta_x = 4 * beta
    out["exact_x"] = joint_edge_marginals(q_self, k_self, "self", beta_x, prior="exclusive")
    out["soft_x"] = factorised_edge_marginals(q_self, k_self, "self", beta_x)
    out["sink_x"] = sinkhorn_edge_marginals(q_self, k_self, beta_x)
    out["err_soft"] = (out["soft_x"] - out["exact_x"]).abs().amax((-1, -2)).numpy()
    out["err_sink"] = (out["sink_x"] - out["exact_x"]).abs().amax((-1, -2)).numpy()
    return out


# ---------------------------------------------------------------- graph attention: any allowed-edge mask
def check_allowed(allowed, n_queries: int, n_keys: int) -> torch.Tensor:
    """Validate an allowed-edge mask: a bool tensor ``(n_queries, n_keys)`` with one allowed parent per row.

    Graph attention (a GAT layer, a sparse or windowed transformer) is the same posterior expectation with
    a prior whose support is an arbitrary graph: ``A_i = {j : allowed[i, j]}``. A query without an allowed
    parent has no edge set in the support: the posterior is undefined (softmax of an all ``-inf`` row is NaN),
    so it is refused here rather than returned as NaN.
    """
    if not isinstance(allowed, torch.Tensor) or allowed.dtype != torch.bool:
        raise TypeError(f"allowed must be a bool torch.Tensor (queries, keys); got "
                        f"{type(allowed).__name__ if not isinstance(allowed, torch.Tensor) else allowed.dtype}")
    if tuple(allowed.shape) != (n_queries, n_keys):
        raise ValueError(f"allowed must have shape (queries, keys) = {(n_queries, n_keys)}; got {tuple(allowed.shape)}")
    empty = torch.nonzero(~allowed.any(-1)).flatten().tolist()
    if empty:
        raise ValueError(f"allowed leaves queries {empty} without any allowed parent (each row needs one True)")
    return allowed


@contract(n_queries="int:0", n_keys="int:1", density="real:[0,1]", generator="generator",
          alloc=lambda a: [("n_keys", a["n_queries"] * a["n_keys"])])
def random_allowed(n_queries: int, n_keys: int, density: float, generator: torch.Generator) -> torch.Tensor:
    """A random allowed-edge mask: each edge kept with probability ``density``, then one random edge added to
    every row left empty (so each query has a parent). Bool (n_queries, n_keys)."""
    mask = torch.rand(n_queries, n_keys, generator=generator) < density
    fallback = torch.randint(0, n_keys, (n_queries,), generator=generator)
    mask[torch.arange(n_queries), fallback] |= ~mask.any(-1)
    return mask


def _check_log_prior(log_prior, allowed: torch.Tensor, like: torch.Tensor) -> None:
    """A log-prior is real log-probabilities of the dtype of q (``-inf``: an edge of prior zero), of the mask's shape,
    with at least one allowed edge of non-zero prior per query; True/False, NaN, +inf or another dtype are none."""
    if not isinstance(log_prior, torch.Tensor) or not log_prior.is_floating_point():
        raise TypeError(f"log_prior must be a real floating-point tensor of log-probabilities; got "
                        f"{getattr(log_prior, 'dtype', type(log_prior).__name__)}")
    if tuple(log_prior.shape) != tuple(allowed.shape):
        raise ValueError(f"log_prior must have shape (queries, keys) = {tuple(allowed.shape)}; "
                         f"got {tuple(log_prior.shape)}")
    if log_prior.dtype != like.dtype:
        raise TypeError(f"log_prior must have the dtype of q; got log_prior {log_prior.dtype} and q {like.dtype} "
                        f"(cast explicitly)")
    if bool(torch.isnan(log_prior).any()) or bool((log_prior == math.inf).any()):
        raise ValueError("log_prior must hold log-probabilities (finite, or -inf for a prior of zero); it holds "
                         "NaN or +inf")
    dead = torch.nonzero(~((log_prior.cpu() > -math.inf) & allowed.cpu()).any(-1)).flatten().tolist()
    if dead:
        raise ValueError(f"log_prior gives every allowed parent of queries {dead} a prior of zero (-inf): their "
                         f"posterior is undefined")


@contract(q="tensor:>=2", k="tensor:>=2", beta="real:>=0")
def graph_structure_posterior(q: torch.Tensor, k: torch.Tensor, allowed: torch.Tensor, beta: float = 1.0,
                              log_prior: torch.Tensor | None = None):
    """The joint posterior over every one-parent edge set inside an arbitrary mask, by enumeration.

    ``p(E | x) ∝ prod_i pi_{i, E_i} exp(beta q_i . k_{E_i})`` over the ``prod_i |A_i|`` edge sets with every
    ``E_i`` in ``A_i``; ``pi_ij ∝ exp(log_prior[i, j])`` (uniform over ``A_i`` when ``log_prior`` is None),
    normalised over ``A_i``. q : (..., m, d), k : (..., n, d), allowed : bool (m, n), log_prior : (m, n).

    Returns structures (S, m) and the posterior (..., S).
    """
    m, n = q.shape[-2], k.shape[-2]
    allowed = check_allowed(allowed, m, n)
    if log_prior is not None:
        _check_log_prior(log_prior, allowed, q)
    structures = enumerate_structures(allowed.cpu()).to(q.device)
    scores = _scores(q, k, beta)
    rows = torch.arange(m, device=q.device)
    log_joint = scores[..., rows, structures].sum(-1)  # (..., S)
    if log_prior is not None:
        lp = log_prior.to(scores).masked_fill(~allowed.to(q.device), -math.inf)
        lp = lp - torch.logsumexp(lp, -1, keepdim=True)  # p(E_i = j) normalised over A_i
        log_joint = log_joint + lp[rows, structures].sum(-1)
    return structures, torch.softmax(log_joint, dim=-1)


@contract(q="tensor:>=2", k="tensor:>=2", v="tensor:>=2", beta="real:>=0")
def brute_force_graph_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor,
                                beta: float = 1.0, log_prior: torch.Tensor | None = None) -> torch.Tensor:
    """``E[v(x, E)]_i = sum_E p(E | x) v_{E_i}`` over every edge set inside ``allowed``: (..., m, d_v).

    Shapes as in :func:`graph_structure_posterior`; at most :data:`MAX_ENUM_TOKENS` queries and keys.
    """
    _checked(q, k, v, "cross")
    structures, post = graph_structure_posterior(q, k, allowed, beta, log_prior)
    return torch.einsum("...s,...smd->...md", post, v[..., structures, :])


@contract(q="tensor:>=2", k="tensor:>=2", v="tensor:>=2", beta="real:>=0")
def graph_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor, beta: float = 1.0,
                    log_prior: torch.Tensor | None = None) -> torch.Tensor:
    """Masked softmax attention over an arbitrary graph, ``softmax_{j in A_i}(beta q_i . k_j + log_prior_ij) v_j``.

    The closed form of :func:`brute_force_graph_attention` (the prior factorises over queries); no size limit.
    """
    _checked(q, k, v, "cross")
    allowed = check_allowed(allowed, q.shape[-2], k.shape[-2]).to(q.device)
    scores = _scores(q, k, beta)
    if log_prior is not None:
        _check_log_prior(log_prior, allowed, q)
        scores = scores + log_prior.to(scores)
    return torch.softmax(scores.masked_fill(~allowed, -math.inf), dim=-1) @ v


@contract(n="int:1", d="int:1", beta="real:>=0", instances="int:1", density="real:[0,1]", generator="generator",
          # per instance: q, k, v, and the enumeration's values (at most n**n edge sets × n × d); the result lists
          alloc=lambda a: [("n", 8 * a["n"] ** min(a["n"], MAX_ENUM_TOKENS + 1) * a["n"]),
                           ("d", 8 * a["n"] ** min(a["n"], MAX_ENUM_TOKENS + 1) * a["n"] * a["d"]),
                           ("instances", 64 * a["instances"])])
def mask_study(n: int, d: int, beta: float, instances: int, density: float, generator: torch.Generator) -> dict:
    """Graph attention on random masks (one per instance; draws per instance: mask, q, k, v of shape (n, d)):
    max |enumeration over the mask's edge sets - masked softmax| per instance, and the edge-set counts."""
    errors, counts = [], []
    for _ in range(instances):
        allowed = random_allowed(n, n, density, generator)
        q, k, v = (torch.randn(n, d, generator=generator, dtype=torch.float64) for _ in range(3))
        brute = brute_force_graph_attention(q, k, v, allowed, beta)
        errors.append((brute - graph_attention(q, k, v, allowed, beta)).abs().max().item())
        counts.append(int(allowed.sum(-1).prod()))
    return {"errors": errors, "n_structures": counts}
