"""The optimiser and the random streams the two new designs of Chapter 5 share.

:func:`adam_update` is Adam written out in the arithmetic of torch 1.13 (the version of the public
code of Singh & Buckley 2023), so that our replay of its stored runs can agree to the last bit;
:func:`derive_seed` names one independent random stream per (run, purpose).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Sequence

import torch

from ..companion.checks import check_int, check_real, contract

__all__ = ["AdamState", "adam_update", "derive_seed", "generator"]


@contract(seed="int:0", tag="str")
def derive_seed(seed: int, tag: str) -> int:
    """A 63-bit seed for the stream ``tag`` of run ``seed`` (stable across runs and platforms)."""
    # The prefix is frozen (it names the module's first home): changing it changes every stream and
    # every stored result of chapter 5.
    digest = hashlib.sha256(f"mfattn.multihop:{int(seed)}:{tag}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


@contract(seed="int:0")
def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with ``seed`` (at most 2**64 - 1, torch's seed range)."""
    return torch.Generator().manual_seed(check_int("seed", seed, 0, 2 ** 64 - 1))


@dataclass
class AdamState:
    """First and second moments and step count of :func:`adam_update` for a list of tensors."""

    exp_avg: list[torch.Tensor]
    exp_avg_sq: list[torch.Tensor]
    step: int = 0

    def __post_init__(self) -> None:
        for name, seq in (("exp_avg", self.exp_avg), ("exp_avg_sq", self.exp_avg_sq)):
            if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence) \
                    or not all(isinstance(t, torch.Tensor) for t in seq):
                raise TypeError(f"{name} must be a list of tensors (one per parameter); got {type(seq).__name__}")
        if len(self.exp_avg) != len(self.exp_avg_sq):
            raise ValueError(f"exp_avg and exp_avg_sq must hold one moment per parameter each; got "
                             f"{len(self.exp_avg)} and {len(self.exp_avg_sq)}")
        for i, (m, v) in enumerate(zip(self.exp_avg, self.exp_avg_sq)):
            if m.shape != v.shape:
                raise ValueError(f"exp_avg[{i}] and exp_avg_sq[{i}] must have one shape (their parameter's); got "
                                 f"{tuple(m.shape)} and {tuple(v.shape)}")
        check_int("step", self.step, 0)

    @classmethod
    def zeros_like(cls, params: Sequence[torch.Tensor]) -> "AdamState":
        return cls([torch.zeros_like(p) for p in params], [torch.zeros_like(p) for p in params], 0)


def adam_update(params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor], state: AdamState, *,
                lr: float, weight_decay: float = 0.0, betas=(0.9, 0.999), eps: float = 1e-8) -> None:
    """One Adam step with L2 weight decay (Kingma & Ba 2015), in place, elementwise.

    g ← g + λθ;  m ← β₁m + (1-β₁)g;  v ← β₂v + (1-β₂)g²;
    θ ← θ - (lr/(1-β₁ᵗ)) · m / (√v/√(1-β₂ᵗ) + ε)

    The arithmetic follows torch.optim.Adam of torch 1.13 (the public code's version), op by op;
    newer torch interpolates the moments with ``lerp``, which rounds differently. Elementwise, so
    stacking replicas along a leading axis trains each exactly as on its own.
    """
    check_real("lr", lr, minimum=0.0, strict=True)
    check_real("weight_decay", weight_decay, minimum=0.0)
    check_real("eps", eps, minimum=0.0, strict=True)
    if not isinstance(state, AdamState):
        raise TypeError(f"state must be an AdamState (AdamState.zeros_like(params)); got {type(state).__name__}")
    for name, seq in (("params", params), ("grads", grads)):
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence) \
                or not all(isinstance(t, torch.Tensor) for t in seq):
            raise TypeError(f"{name} must be a list of tensors; got {type(seq).__name__}")
    if not len(params) == len(grads) == len(state.exp_avg) == len(state.exp_avg_sq):
        raise ValueError(f"params, grads and state must hold as many tensors; got {len(params)}, {len(grads)}, "
                         f"{len(state.exp_avg)}")
    if isinstance(betas, (str, bytes)) or not isinstance(betas, Sequence) or len(betas) != 2:
        raise ValueError(f"betas must be a pair (β₁, β₂) of numbers in [0, 1); got {betas!r}")
    for i, b in enumerate(betas):   # β = 1: 1 - βᵗ = 0, the bias correction divides by zero
        if check_real(f"betas[{i}]", b, minimum=0.0, maximum=1.0) == 1.0:
            raise ValueError(f"betas[{i}] must be in [0, 1); got 1.0")
    for i, (p, g) in enumerate(zip(params, grads)):
        if g.shape != p.shape:
            raise ValueError(f"grads[{i}] must have its parameter's shape {tuple(p.shape)}; got {tuple(g.shape)}")
        if g.dtype != p.dtype:   # the in-place step would cast the gradient silently
            raise TypeError(f"grads[{i}] and params[{i}] must have one dtype; got {g.dtype} and {p.dtype}")
        if state.exp_avg[i].shape != p.shape:
            raise ValueError(f"state must hold the moments of these params: exp_avg[{i}] has shape "
                             f"{tuple(state.exp_avg[i].shape)}, params[{i}] {tuple(p.shape)}")
        if not bool(torch.isfinite(g).all()):
            raise ValueError(f"grads[{i}] holds NaN or inf: the step would make its parameter non-finite")
    b1, b2 = betas
    state.step += 1
    bc1 = 1 - b1 ** state.step
    bc2_sqrt = math.sqrt(1 - b2 ** state.step)
    step_size = lr / bc1
    with torch.no_grad():
        for p, g, m, v in zip(params, grads, state.exp_avg, state.exp_avg_sq):
            if weight_decay:
                g = g.add(p, alpha=weight_decay)
            m.mul_(b1).add_(g, alpha=1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (v.sqrt() / bc2_sqrt).add_(eps)
            p.addcdiv_(m, denom, value=-step_size)
