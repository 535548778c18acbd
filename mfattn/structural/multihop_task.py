"""The toy task of the paper's Figure 2 for multi-hop attention (Singh & Buckley 2023): its fixed weights and its
batches, one stream or S streams at once. Importable from :mod:`.multihop` as before.

A sequence of ``n`` tokens in R^d whose last token (the query) x2 is reached from the root x0 through x1; see
:class:`MultihopTask`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from ..companion.checks import check_choice as _check_choice, check_int as _check_int
from ..companion.checks import check_alloc, check_rule, contract

__all__ = ["TASK_MODES", "ROLE_NAMES", "SHUFFLES", "ROOTS", "MultihopTask", "TaskWeights", "make_task_weights",
           "sample_multihop_batch", "sample_multihop_batches"]


TASK_MODES = ("paper", "code")
#: Token roles in a sequence; the query x2 is always the last token.
ROLE_NAMES = ("noise", "x0", "x1", "x2")
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

    def __post_init__(self) -> None:
        for name, w in (("W_y", self.W_y), ("W_r", self.W_r)):
            if not isinstance(w, torch.Tensor):
                raise TypeError(f"{name} must be a torch.Tensor; got {type(w).__name__}")
            if w.layout != torch.strided or w.device.type == "meta":   # sparse: no elementwise checks, meta: no values
                raise TypeError(f"{name} must be a dense tensor with values; got layout {w.layout} on {w.device}")
        d = self.W_r.shape[0] if self.W_r.dim() else 0
        if self.W_r.shape != (d, d) or self.W_y.shape != (1, d):
            raise ValueError(f"W_y must have shape (1, d) and W_r (d, d) with one d; got W_y {tuple(self.W_y.shape)} "
                             f"and W_r {tuple(self.W_r.shape)}")
        if self.W_y.dtype != torch.float32 or self.W_r.dtype != torch.float32:   # the batches are drawn in float32
            raise TypeError(f"W_y and W_r must be float32 (make_task_weights); got {self.W_y.dtype} and "
                            f"{self.W_r.dtype}")
        for name, w in (("W_y", self.W_y), ("W_r", self.W_r)):
            if not bool(torch.isfinite(w).all()):
                raise ValueError(f"{name} must hold finite numbers; got NaN or inf")


def make_task_weights(task: MultihopTask, generator: torch.Generator) -> TaskWeights:
    """Draw W_y ~ N(1, 1) and W_r from ``generator`` (in the public code's order: W_y, then W_r).

    code: W_r ~ U[0, 1)^{d×d}. paper: W_r = U Vᵀ / rank with U, V ~ U[0, 1)^{d×rank}, so that
    W_r has rank ``rank`` and entries of the same scale as the code's.
    """
    if not isinstance(task, MultihopTask):
        raise TypeError(f"task must be a MultihopTask; got {type(task).__name__}")
    if not isinstance(generator, torch.Generator):   # required: the global RNG would make the draw unrepeatable
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    d = task.d
    check_alloc("task.d", 4 * (d * d + 2 * d * task.rank + d), what="the task's weights")
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


def _check_task_and_weights(task, weights, name: str = "weights") -> None:
    if not isinstance(task, MultihopTask):
        raise TypeError(f"task must be a MultihopTask; got {type(task).__name__}")
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence) \
            or not all(isinstance(w, TaskWeights) for w in weights):
        raise TypeError(f"{name} must hold TaskWeights (make_task_weights); got {type(weights).__name__}")


def _check_generators(name: str, gens) -> None:
    if isinstance(gens, (str, bytes)) or not isinstance(gens, Sequence) \
            or not all(isinstance(g, torch.Generator) for g in gens):
        raise TypeError(f"{name} must be a list of torch.Generator; got {type(gens).__name__}")


def _distinct_streams(name: str, gens, others=()) -> None:
    """Each generator its own stream: one object twice (or also in ``others``, the data streams) would interleave
    two streams' draws, so no stream would be what it is alone."""
    ids, other = [id(g) for g in gens], {id(g) for g in others}
    if len(set(ids)) != len(ids) or other & set(ids):
        raise ValueError(f"{name} must hold a generator of its own per stream; got one generator object twice"
                         f"{' (also among the data generators)' if other & set(ids) else ''}")


@contract(generator="generator", shuffle_generator="generator?")
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
    if shuffle != "none" and shuffle_generator is None:
        raise ValueError("shuffle_generator must be a torch.Generator when shuffle != 'none'")
    _check_task_and_weights(task, [weights], "weights")
    X, y, roles = sample_multihop_batches(task, [weights], batch_size, [generator], shuffle=shuffle,
                                          shuffle_generators=None if shuffle_generator is None else [shuffle_generator])
    return X[0], y[0][:, None], roles[0]


def sample_multihop_batches(task: MultihopTask, weights: Sequence[TaskWeights], batch_size: int,
                            generators: Sequence[torch.Generator], *, shuffle: str = "sample",
                            shuffle_generators: Sequence[torch.Generator] | None = None):
    """:func:`sample_multihop_batch` for S streams at once: one batch from each ``generators[i]`` with
    ``weights[i]`` (and ``shuffle_generators[i]``), stacked. Returns X (S, B, n, d), y (S, B), roles (S, B, n),
    bit for bit the S single batches stacked: each stream's draws are made in the same order and shapes as
    alone (so no stream depends on the others), and only the arithmetic after the draws is batched (one
    batched matrix product of the (B, d) @ (d, d) and (1, d) @ (d, B) slices).
    """
    _check_int("batch_size", batch_size, 1)
    _check_choice("shuffle", shuffle, SHUFFLES)
    _check_task_and_weights(task, weights)
    _check_generators("generators", generators)
    if shuffle_generators is not None:
        _check_generators("shuffle_generators", shuffle_generators)
    if any(w.W_r.shape[0] != task.d for w in weights):
        raise ValueError(f"weights must be drawn for the task's d = {task.d} (make_task_weights); got W_r of shapes "
                         f"{sorted({tuple(w.W_r.shape) for w in weights})}")
    S = len(generators)
    check_alloc("batch_size", 4 * S * batch_size * task.n * (task.d + 2), what="the batches")
    if S < 1 or len(weights) != S:
        raise ValueError(f"weights: one per generator ({S}); got {len(weights)}")
    if shuffle != "none" and (shuffle_generators is None or len(shuffle_generators) != S):
        raise ValueError(f"shuffle_generators: one torch.Generator per generator ({S}) when shuffle != 'none'")
    _distinct_streams("generators", generators)
    if shuffle_generators is not None:
        _distinct_streams("shuffle_generators", shuffle_generators, generators)
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
