"""The map's effective state and batched bases of its tangent space (for Floquet and Lyapunov analyses).

:mod:`~mfattn.dynamics.engine` stores the state of the mean-field map as ``M + 2ML`` numbers (27 for the
paper's M = 3, L = 4): the attention ``A_t`` and the window of the last L pairs ``(m^v_s, m^k_s)``. That
is not the dimension of the dynamics. Slot s of the window is written from ``A_{s-1}`` alone
(``m^x_s = (1-ε) s^x(A_{s-1}) + ε π^x(s mod L)``) and ``A_t`` is the softmax average over the slots
written from ``A_{t-1}, ..., A_{t-L}``, so after L steps the state is a function of those L attentions:

.. math:: (A_{t-1}, \\dots, A_{t-L}) \\mapsto A_t, \\qquad \\text{dimension } L M \\ (= 12).

The other ``M + 2ML − LM`` directions of the stored state are forgotten within L steps (Lyapunov
exponent −∞, Floquet multiplier 0). :func:`state_dimension` returns ``L M``; analyses ask for at most
that many exponents or multipliers.

:class:`TangentFlow` runs the engine's tangent map (the analytic Jacobian of
:meth:`batched_map._MeanFieldEngine._tangent_step`, tested against the map) on ``k`` tangent vectors per β at
once: the primal state of each β is replicated k times along the batch axis (a β's orbit does not
depend on its batch, so the k copies are bit-for-bit the same orbit) and each copy carries one
vector. One array operation per step advances the whole grid and all its vectors.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..companion.checks import contract
from .engine import _grid, _init_engine
from .model import MeanFieldModel, check_model, paper_model

__all__ = ["stored_dimension", "state_dimension", "TangentFlow"]


def stored_dimension(model: MeanFieldModel) -> int:
    """Numbers in the engine's stored state: ``M + 2 M L`` (A and the window of (m^v, m^k) pairs)."""
    check_model(model)
    return model.num_features * (1 + 2 * model.context_size)


def state_dimension(model: MeanFieldModel) -> int:
    """The dimension of the dynamics: ``L M`` (the last L attentions determine everything else)."""
    check_model(model)
    return model.num_features * model.context_size


class TangentFlow:
    """B grid points × k tangent vectors advanced together through the map and its Jacobian.

    Shapes: a basis is ``(B, D, k)`` with ``D = stored_dimension(model)`` ordered ``[A (M); window
    (L slots × [m^v; m^k])]`` (the engine's ring-buffer order, slot ``t mod L``); a state is ``(B, D)``.
    ``t`` is the time of the next step; after a start from a context the phase of step t is ``t mod L``.
    """

    @contract(betas="reals", k="int:1", gamma="realarr", epsilon="realarr")
    def __init__(self, betas, k: int, init: Any = "token", *, gamma=220.0, epsilon=0.02,
                 model: MeanFieldModel | None = None, backend: str = "numpy", device=None):
        self.model = model or paper_model()
        check_model(self.model)
        D = stored_dimension(self.model)
        if k > D:   # a basis (B, D, k) of the stored state: lyapunov_spectrum asks for k <= L M, monodromy for k = D
            raise ValueError(f"k must be at most the stored dimension D = M (1 + 2 L) = {D} (tangent vectors of the "
                             f"stored state; at most L M = {state_dimension(self.model)} are independent); got {k}")
        b, g, e = _grid(betas, gamma, epsilon)
        self.betas, self.gamma, self.epsilon = b, g, e
        self.B, self.k = b.size, int(k)
        self.M, self.L = self.model.num_features, self.model.context_size
        self.D = D
        rep = lambda a: np.repeat(a, self.k)  # noqa: E731  index of (β i, vector j) is i k + j
        if isinstance(init, Mapping):
            init = {name: _repeat_context(np.asarray(v), self.B, self.k, name) for name, v in init.items()}
        self.engine, self.t, self.warm = _init_engine(self.model, rep(b), rep(g), rep(e), init, backend, device,
                                                      tangent=True)
        self.ops = self.engine.ops

    # -- tangent basis ----------------------------------------------------------------------------
    def basis(self) -> np.ndarray:
        """The current tangent vectors, (B, D, k)."""
        eng, B, k, M = self.engine, self.B, self.k, self.M
        dA = self.ops.to_numpy(eng.dA).reshape(M, B, k).transpose(1, 0, 2)
        dw = self.ops.to_numpy(eng.dwin).reshape(-1, B, k).transpose(1, 0, 2)
        return np.concatenate([dA, dw], axis=1)

    def set_basis(self, Q: np.ndarray) -> None:
        """Replace the tangent vectors by ``Q`` (B, D, k)."""
        eng, B, k, M, L = self.engine, self.B, self.k, self.M, self.L
        Q = np.asarray(Q, dtype=np.float64)
        if Q.shape != (B, self.D, k):
            raise ValueError(f"Q must have shape (B, D, k) = ({B}, {self.D}, {k}): k tangent vectors of the stored "
                             f"state per β; got {Q.shape}")
        eng.dA[...] = self.ops.asarray(Q[:, :M].transpose(1, 0, 2).reshape(M, B * k))
        eng.dwin[...] = self.ops.asarray(Q[:, M:].transpose(1, 0, 2).reshape(L, 2 * M, B * k))

    # -- primal state -----------------------------------------------------------------------------
    def state(self) -> np.ndarray:
        """The state of each β (its first copy), (B, D)."""
        eng, k = self.engine, self.k
        A = self.ops.to_numpy(eng.A)[:, ::k].T
        w = self.ops.to_numpy(eng.win)[:, :, ::k].reshape(-1, self.B).T
        return np.concatenate([A, w], axis=1)

    def set_state(self, x: np.ndarray) -> None:
        """Put state ``x`` (B, D) into every copy of each β."""
        eng, k, M, L = self.engine, self.k, self.M, self.L
        if np.shape(x) != (self.B, self.D):
            raise ValueError(f"x must have shape (B, D) = ({self.B}, {self.D}): one stored state (A and the window of "
                             f"(m^v, m^k) pairs) per β; got {np.shape(x)}")
        x = np.repeat(np.asarray(x, dtype=np.float64), k, axis=0)  # (B k, D)
        if not np.isfinite(x).all():   # a NaN state would run the map and every tangent vector on NaN
            raise ValueError("x must be a finite state (A and the window of (m^v, m^k) pairs); it holds NaN or inf")
        eng.A[...] = self.ops.asarray(x[:, :M].T)
        eng.win[...] = self.ops.asarray(x[:, M:].T.reshape(L, 2 * M, -1))

    # -- time -------------------------------------------------------------------------------------
    def step(self) -> np.ndarray:
        """One step of the map and of every tangent vector; returns m^o_t of each β, (B, M)."""
        L = self.L
        valid = min(self.t + 1, L) if self.warm else L
        s = self.engine.step(self.t, valid)
        self.t += 1
        return self.ops.to_numpy(s[:self.M, ::self.k]).T.copy()


def _repeat_context(v: np.ndarray, B: int, k: int, name: str) -> np.ndarray:
    """A context entry, shared (no leading B axis) or batched (leading B), repeated k times per β."""
    unbatched_ndim = 1 if name in ("att_window", "mq_window") else 2
    if v.ndim == unbatched_ndim:
        return v
    if v.shape[0] != B:
        raise ValueError(f"init: a batched context must hold one context per β: {B} β but {v.shape[0]} in {name}")
    return np.repeat(v, k, axis=0)
