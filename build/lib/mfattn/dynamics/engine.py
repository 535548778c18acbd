"""Dynamical mean-field theory of a 1-bit transformer (Poc-López & Aguilera, 2024).

A single self-attention layer with ±1 weights feeds its output token back as its next input.
In the limit of infinitely many semantic units the statistics of the token are deterministic
and obey a low-dimensional map. With ``M`` features, distinct semantic weight columns ``c``
(multiplicity ``n_c`` out of ``N_SE``) and the attention ``A`` of the previous step,

.. math::

    s^x_b(A) = \\sum_c \\frac{n_c}{N_{SE}} W^x_{cb} \\tanh(\\beta\\, W^o_c\\cdot A),\\qquad
    m^x_t = (1-\\epsilon)\\, s^x(A_{t-1}) + \\epsilon\\, \\pi^x(t \\bmod L)

for ``x`` in ``v, q, k``, with the positional term
:math:`\\pi^x_b(p) = \\frac{1}{P}\\sum_i W^x_{b,PE_i} e_i(p)`. The plotted statistic is
:math:`m^o_t = s^o(A_{t-1})` (no positional part). A ring buffer keeps the last ``L`` pairs
:math:`(m^v_s, m^k_s)`; the current token attends to itself and to the buffer,

.. math::

    A_t = \\sum_s \\mathrm{softmax}_s\\big(g\\, m^q_t\\cdot m^k_s\\big)\\, m^v_s,\\qquad g = \\gamma/\\sqrt{M}.

Everything here is batched over a grid: ``B`` values of β (and of γ, ε, initial contexts) advance
together with one array operation per step for the whole grid. Arrays are kept feature-major,
``(features, B)``, so each operation runs over contiguous memory. Only element-wise operations are
used inside a step (no BLAS, no reductions whose summation order depends on the batch size), so a
β gives bit-for-bit the same trajectory alone or inside a batch of 4001.

Two backends share one step: ``"numpy"`` (float64, the CPU reference) and ``"torch"`` (float64 by
default; for GPUs). Entry points: :func:`paper_model`, :func:`simulate`, :func:`largest_lyapunov`,
:func:`sweep` (long, chunked, resumable bifurcation sweeps), and the orbit diagnostics
:func:`bin_counts`, :func:`classify`, :func:`orbit_period`, :func:`section_band`,
:func:`poincare_section`, :func:`power_spectrum`, :func:`autocorrelation`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..companion import store
from ..companion.checks import check_int as _check_int

__all__ = [
    "MeanFieldModel", "paper_weights", "paper_model", "token_context", "SimulationResult", "simulate",
    "largest_lyapunov", "SweepResult", "sweep", "bin_counts", "classify", "orbit_period",
    "section_band", "poincare_section", "power_spectrum", "autocorrelation", "BACKENDS",
    "PAPER", "load_context", "CLASS_NAMES", "bifurcation_diagram", "quantize", "save_diagram",
]

BACKENDS = ("numpy", "torch")
CLASS_NAMES = ("periodic", "quasi-periodic", "chaotic")

#: The paper configuration (seed-1 weights, Fig 3 run lengths).
PAPER: dict[str, Any] = {
    "seed": 1, "num_features": 3, "semantic_size": 99, "pe_bits": 2, "segments": 3,
    "gamma": 220.0, "epsilon": 0.02, "steps": 120_000, "transient": 100_000,
}


# ----------------------------------------------------------------------------------------------
# Weights and the model
# ----------------------------------------------------------------------------------------------
def paper_weights(seed: int = 1, num_features: int = 3, semantic_size: int = 99, pe_bits: int = 2,
                  segments: int = 3) -> dict[str, np.ndarray]:
    """The ±1 weight matrices ``W^o, W^v, W^q, W^k``, each ``(M, N_SE + P)``, drawn as in the paper.

    Draw order of the legacy numpy RNG (this is what makes the seed-1 model the paper's model):
    ``seed(seed)``; one unused ``(M, N_SE)`` draw; four ``(M, N_SE)`` draws for o, v, q, k, each
    also giving its matrix's ``P`` positional columns (the last ``P`` columns of its own draw);
    then for x in (o, v, q, k), row a, segment s: one scalar draw sets the whole segment of
    ``N_SE/segments`` semantic units to ±1. (The paper's script also seeds 0 and draws ten
    candidate tokens first; ``seed(seed)`` resets the stream, so that draw does not matter.)
    """
    _check_int("seed", seed, 0)
    _check_int("num_features", num_features, 1)
    _check_int("semantic_size", semantic_size, 1)
    _check_int("pe_bits", pe_bits, 1)
    _check_int("segments", segments, 1)
    rs = np.random.RandomState(seed)  # the legacy generator, isolated from the global one
    M, nse, P = num_features, semantic_size, pe_bits
    rs.randint(2, size=(M, nse))  # unused draw, kept for the stream position
    mats = {}
    for name in ("o", "v", "q", "k"):
        raw = rs.randint(2, size=(M, nse)) * 2 - 1
        W = np.zeros((M, nse + P))
        W[:, :nse] = raw
        W[:, -P:] = raw[:, -P:]
        mats[name] = W
    seg = nse / segments
    for name in ("o", "v", "q", "k"):
        W = mats[name]
        for a in range(M):
            for s in range(segments):
                value = rs.randint(2, size=1)[0] * 2 - 1
                W[a, int(s * seg):int(s * seg + seg)] = value
    return mats


@dataclass(frozen=True)
class MeanFieldModel:
    """The infinite-N map's constants, from the weights.

    Attributes
    ----------
    o_classes : (C, M) the W^o columns of the C distinct semantic column classes.
    coef : (4M, C) rows ``[o; v; k; q]``: ``(n_c / N_SE) W^x_{cb}``; ``s = coef @ tanh(β o_classes @ A)``.
    class_fraction : (C,) ``n_c / N_SE``.
    class_sign : (4M, C) ``W^x_{cb}`` (±1), rows ``[o; v; k; q]``.
    positional : (L, 4M) ``π^x(p)`` for p = 0..L-1, rows ``[o; v; k; q]`` (o is never used by the map).
    token : (4M,) the initial token's statistics ``[m^o (semantic only); m^v; m^k; m^q]``.
    context_size : L (a power of two, ``2**pe_bits``).
    """

    o_classes: np.ndarray
    coef: np.ndarray
    class_fraction: np.ndarray
    class_sign: np.ndarray
    positional: np.ndarray
    token: np.ndarray
    context_size: int
    weights: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def num_features(self) -> int:
        return self.o_classes.shape[1]

    @property
    def num_classes(self) -> int:
        return self.o_classes.shape[0]

    def correlation(self, x: str = "o") -> np.ndarray:
        """``C^{ox}_{ab} = <W^o_a W^x_b>`` over semantic units, (M, M)."""
        M = self.num_features
        row = {"o": 0, "v": 1, "k": 2, "q": 3}[x] * M
        sx = self.class_sign[row:row + M]  # (M, C)
        return (self.o_classes.T * self.class_fraction) @ sx.T


def paper_model(seed: int = 1, num_features: int = 3, semantic_size: int = 99, pe_bits: int = 2,
                segments: int = 3, context_size: int | None = None, token_index: int = 0,
                weights: Mapping[str, np.ndarray] | None = None) -> MeanFieldModel:
    """Build the :class:`MeanFieldModel` of the paper configuration (or of given ``weights``).

    ``context_size`` defaults to ``2**pe_bits``; it must be a power of two (positions are
    ``pe_bits``-bit codes). The initial token is row ``token_index`` of ``W^o`` with its
    positional bits set to −1, and ``m^x_0 = (1/N) Σ_i W^x_{bi} x0_i`` over all N units.
    """
    L = 2 ** pe_bits if context_size is None else context_size
    if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1 or (L & (L - 1)) != 0:
        raise ValueError(f"context_size L must be a power of two (1, 2, 4, ...); got {L!r}")
    if L > 2 ** pe_bits:
        raise ValueError(f"context_size L={L} needs at least log2(L) positional bits; pe_bits={pe_bits}")
    W = dict(weights) if weights is not None else paper_weights(seed, num_features, semantic_size, pe_bits, segments)
    for name in ("o", "v", "q", "k"):
        if name not in W:
            raise ValueError(f"weights must hold 'o', 'v', 'q', 'k'; missing {name!r}")
    M, N = W["o"].shape
    nse = N - pe_bits
    if not 0 <= token_index < M:
        raise ValueError(f"token_index must be in [0, {M}); got {token_index!r}")
    order = ("o", "v", "k", "q")
    stacked = np.concatenate([W[x][:, :nse] for x in order], axis=0)  # (4M, N_SE)
    cols, counts = np.unique(stacked.T, axis=0, return_counts=True)  # distinct columns (C, 4M)
    fraction = counts / nse
    sign = cols.T.astype(np.float64)  # (4M, C)
    coef = sign * fraction[None, :]
    o_classes = cols[:, :M].astype(np.float64)
    positional = np.zeros((L, 4 * M))
    for p in range(L):
        bits = np.array([(p >> (pe_bits - 1 - i)) & 1 for i in range(pe_bits)], dtype=np.float64) * 2 - 1
        for j, x in enumerate(order):
            positional[p, j * M:(j + 1) * M] = W[x][:, nse:] @ bits / pe_bits
    x0 = W["o"][token_index].copy()
    x0[nse:] = -1.0
    token = np.concatenate([x0[:nse] @ W["o"][:, :nse].T / nse] + [x0 @ W[x].T / N for x in order[1:]])
    return MeanFieldModel(o_classes, coef, fraction, sign, positional, token, int(L),
                          weights={k: np.asarray(v) for k, v in W.items()})


def token_context(model: MeanFieldModel) -> dict[str, np.ndarray]:
    """The initial token's statistics as a one-slot context (used by ``init="token"``)."""
    M = model.num_features
    return {"mo": model.token[:M].copy(), "mv": model.token[M:2 * M].copy(),
            "mk": model.token[2 * M:3 * M].copy(), "mq": model.token[3 * M:].copy()}


def load_context(path: str | Path) -> dict[str, np.ndarray]:
    """Read a saved context (keys ``mv_window (L, M)``, ``mk_window (L, M)``, ``mq_window (M,)``,
    ``att_window (M,)``; batched files add a leading B axis). Oldest slot first, newest last."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"context file {path} does not exist")
    data = store.load_npz(path)
    missing = {"mv_window", "mk_window", "att_window"} - set(data)
    if missing:
        raise ValueError(f"context file {path} lacks {sorted(missing)}")
    return data


# ----------------------------------------------------------------------------------------------
# Backends: one step, written once over a tiny op table
# ----------------------------------------------------------------------------------------------
class _NumpyOps:
    name = "numpy"

    def __init__(self, dtype=np.float64, device=None):
        self.dtype = np.dtype(dtype)

    def asarray(self, x):
        return np.ascontiguousarray(np.asarray(x, dtype=self.dtype))

    def zeros(self, shape):
        return np.zeros(shape, dtype=self.dtype)

    mul = staticmethod(lambda a, b, out: np.multiply(a, b, out=out))
    add = staticmethod(lambda a, b, out: np.add(a, b, out=out))
    sub = staticmethod(lambda a, b, out: np.subtract(a, b, out=out))
    div = staticmethod(lambda a, b, out: np.divide(a, b, out=out))
    tanh = staticmethod(lambda a, out: np.tanh(a, out=out))
    exp = staticmethod(lambda a, out: np.exp(a, out=out))
    amax = staticmethod(lambda a, out: np.max(a, axis=0, out=out))
    log = staticmethod(lambda a, out: np.log(a, out=out))
    sqrt = staticmethod(lambda a, out: np.sqrt(a, out=out))
    matmul = staticmethod(lambda a, b, out: np.matmul(a, b, out=out))
    maximum = staticmethod(lambda a, b, out: np.maximum(a, b, out=out))

    def to_numpy(self, x):
        return np.asarray(x)


class _TorchOps:
    name = "torch"

    def __init__(self, dtype=None, device=None):
        import torch

        self.torch = torch
        self.dtype = dtype or torch.float64
        self.device = torch.device(device or "cpu")

    def asarray(self, x):
        if isinstance(x, self.torch.Tensor):
            return x.to(device=self.device, dtype=self.dtype).contiguous()
        return self.torch.as_tensor(np.array(x, dtype=np.float64), dtype=self.dtype,
                                    device=self.device).contiguous()

    def zeros(self, shape):
        return self.torch.zeros(shape, dtype=self.dtype, device=self.device)

    def mul(self, a, b, out):
        return self.torch.mul(a, b, out=out)

    def add(self, a, b, out):
        return self.torch.add(a, b, out=out)

    def sub(self, a, b, out):
        return self.torch.sub(a, b, out=out)

    def div(self, a, b, out):
        return self.torch.div(a, b, out=out)

    def tanh(self, a, out):
        return self.torch.tanh(a, out=out)

    def exp(self, a, out):
        return self.torch.exp(a, out=out)

    def amax(self, a, out):
        return self.torch.amax(a, dim=0, out=out)

    def log(self, a, out):
        return self.torch.log(a, out=out)

    def sqrt(self, a, out):
        return self.torch.sqrt(a, out=out)

    def matmul(self, a, b, out):
        return self.torch.matmul(a, b, out=out)

    def maximum(self, a, b, out):
        return self.torch.maximum(a, b, out=out)

    def to_numpy(self, x):
        return x.detach().cpu().numpy()


def _ops(backend: str, device=None):
    if backend == "numpy":
        return _NumpyOps()
    if backend == "torch":
        return _TorchOps(device=device)
    raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}")


class _MeanFieldEngine:
    """The batched map's state and one step. Feature-major arrays: ``A (M, B)``, ``win (L, 2M, B)``
    (rows ``[m^v; m^k]`` of each slot), ``mq (M, B)``; slot of time t is ``t mod L``."""

    def __init__(self, model: MeanFieldModel, betas, gammas, epsilons, ops, tangent: bool = False,
                 sampler: Callable | None = None):
        self.model, self.ops = model, ops
        M, C, L = model.num_features, model.num_classes, model.context_size
        B = len(betas)
        self.M, self.C, self.L, self.B = M, C, L, B
        o = ops.asarray
        self.beta = o(betas)
        self.g = o(np.asarray(gammas, dtype=np.float64) / math.sqrt(M))
        eps = np.asarray(epsilons, dtype=np.float64)
        # ε enters as 1 − (1 − ε), as in the paper's code (last-digit reproducibility of its runs).
        keep = 1.0 - eps
        self.keep = o(keep)
        pos = model.positional[:, M:]  # (L, 3M) rows [v; k; q]
        self.eps_pos = o((1.0 - keep)[None, None, :] * pos[:, :, None])  # (L, 3M, B)
        # Weights enter as exact ±1 sign matrices (matmuls then add in a fixed order whatever B is:
        # a product by ±1 is exact, so FMA or not, blocked or not, the sums are the same) and the
        # class fractions are applied element-wise. This keeps a β's trajectory independent of its batch.
        self.o_sign = o(model.o_classes)  # (C, M)
        self.x_sign = o(model.class_sign)  # (4M, C)
        self.frac = o(model.class_fraction[:, None])  # (C, 1)
        self.U = ops.zeros((C, B))
        self.A = ops.zeros((M, B))
        self.win = ops.zeros((L, 2 * M, B))
        self.mq = ops.zeros((M, B))
        # work buffers
        self.h = ops.zeros((C, B))
        self.T = ops.zeros((C, B))
        self.s = ops.zeros((4 * M, B))
        self.P = ops.zeros((L, M, B))
        self.logit = ops.zeros((L, B))
        self.lmax = ops.zeros((B,))
        self.den = ops.zeros((B,))
        self.Q = ops.zeros((L, M, B))
        self.sampler = sampler
        self.tangent = tangent
        if tangent:
            self.one = o(np.ones((1, 1)))
            self.tiny = o(np.full((1,), 1e-300))
            self.dA = ops.zeros((M, B))
            self.dwin = ops.zeros((L, 2 * M, B))
            self.dmq = ops.zeros((M, B))
            self.dh = ops.zeros((C, B))
            self.dT = ops.zeros((C, B))
            self.ds = ops.zeros((4 * M, B))
            self.dl = ops.zeros((L, B))
            self.dP = ops.zeros((L, M, B))
            self.tmpB = ops.zeros((B,))
            self.tmpMB = ops.zeros((M, B))
            self.norm2 = ops.zeros((B,))
            self.lognorm = ops.zeros((B,))
            self.log_sum = ops.zeros((B,))

    # -- initial conditions ---------------------------------------------------------------------
    def set_token(self):
        """t = 0 from the initial token: slot 0 holds its (m^v, m^k); A_0 = m^v_0 (self-attention only)."""
        M = self.M
        tok = self.model.token
        ones = np.ones((1, self.B))
        self.win[0, :M] = self.ops.asarray(tok[M:2 * M, None] * ones)
        self.win[0, M:] = self.ops.asarray(tok[2 * M:3 * M, None] * ones)
        self.mq[...] = self.ops.asarray(tok[3 * M:, None] * ones)
        self.A[...] = self.win[0, :M]

    def set_context(self, ctx: Mapping[str, np.ndarray]):
        """A saved context, oldest slot first; the next step has position 0 (as in the paper's code)."""
        M, L, B = self.M, self.L, self.B
        mv, mk, att = (np.asarray(ctx[k], dtype=np.float64) for k in ("mv_window", "mk_window", "att_window"))
        for name, arr, shape in (("mv_window", mv, (L, M)), ("mk_window", mk, (L, M)), ("att_window", att, (M,))):
            if arr.shape != shape and arr.shape != (B, *shape):
                raise ValueError(f"context {name} must have shape {shape} or {(B, *shape)}; got {arr.shape}")
        mv = np.broadcast_to(mv, (B, L, M))
        mk = np.broadcast_to(mk, (B, L, M))
        att = np.broadcast_to(att, (B, M))
        self.win[:, :M] = self.ops.asarray(np.transpose(mv, (1, 2, 0)))
        self.win[:, M:] = self.ops.asarray(np.transpose(mk, (1, 2, 0)))
        self.A[...] = self.ops.asarray(att.T)
        mq = ctx.get("mq_window")
        if mq is not None:
            self.mq[...] = self.ops.asarray(np.broadcast_to(np.asarray(mq, dtype=np.float64), (B, M)).T)

    def set_tangent(self, seed: int):
        rng = np.random.default_rng(seed)
        M, L, B = self.M, self.L, self.B
        dA = rng.standard_normal((M, B))
        dwin = rng.standard_normal((L, 2 * M, B))
        n = np.sqrt((dA ** 2).sum(0) + (dwin ** 2).sum((0, 1)))
        self.dA[...] = self.ops.asarray(dA / n)
        self.dwin[...] = self.ops.asarray(dwin / n)

    def context(self, t_next: int) -> dict[str, np.ndarray]:
        """The ring buffer reordered oldest → newest (the slot written last, ``t_next - 1``, goes last)."""
        M, L = self.M, self.L
        win = self.ops.to_numpy(self.win).copy()
        shift = L - ((t_next - 1) % L) - 1
        win = np.roll(win, shift, axis=0)
        return {"mv_window": np.transpose(win[:, :M], (2, 0, 1)).copy(),
                "mk_window": np.transpose(win[:, M:], (2, 0, 1)).copy(),
                "mq_window": self.ops.to_numpy(self.mq).T.copy(),
                "att_window": self.ops.to_numpy(self.A).T.copy()}

    # -- the map ----------------------------------------------------------------------------------
    def step(self, t: int, valid: int):
        """Advance from A_{t-1} to A_t. Returns s (4M, B) whose first M rows are m^o_t."""
        op, M = self.ops, self.M
        L = self.L
        op.matmul(self.o_sign, self.A, self.h)
        op.mul(self.h, self.beta, self.h)
        op.tanh(self.h, self.T)
        T = self.T if self.sampler is None else self.sampler(self.T)
        op.mul(T, self.frac, self.U)
        op.matmul(self.x_sign, self.U, self.s)
        p = t % L
        slot = self.win[p]
        op.mul(self.s[M:3 * M], self.keep, slot)
        op.add(slot, self.eps_pos[p, :2 * M], slot)
        op.mul(self.s[3 * M:], self.keep, self.mq)
        op.add(self.mq, self.eps_pos[p, 2 * M:], self.mq)
        self._attend(valid)
        if self.tangent:
            self._tangent_step(p, valid)
        return self.s

    def _attend(self, n):
        op, M = self.ops, self.M
        P, lg = self.P[:n], self.logit[:n]
        op.mul(self.win[:n, M:], self.mq, P)
        op.add(P[:, 0], P[:, 1], lg) if M > 1 else op.mul(P[:, 0], 1.0, lg)
        for b in range(2, M):
            op.add(lg, P[:, b], lg)
        op.mul(lg, self.g, lg)
        op.amax(lg, self.lmax)
        op.sub(lg, self.lmax, lg)
        op.exp(lg, lg)
        self.den[...] = lg[0]
        for s in range(1, n):
            op.add(self.den, lg[s], self.den)
        op.div(lg, self.den, lg)
        Q = self.Q[:n]
        op.mul(self.win[:n, :M], lg[:, None], Q)
        self.A[...] = Q[0]
        for s in range(1, n):
            op.add(self.A, Q[s], self.A)

    def _tangent_step(self, p, n):
        """Push the tangent (dA, dwin) through the Jacobian of the step just taken (forward mode).

        Uses the primal quantities of this step (T, softmax weights, window); the primal is not touched.
        """
        op, M = self.ops, self.M
        # dh = β W^o dA ; dT = (1 - T²) dh ; ds = W^x (n_c/N) dT
        op.matmul(self.o_sign, self.dA, self.dh)
        op.mul(self.dh, self.beta, self.dh)
        T = self.T
        op.mul(T, T, self.dT)
        op.sub(self.one, self.dT, self.dT)
        op.mul(self.dT, self.dh, self.dT)
        op.mul(self.dT, self.frac, self.dT)
        op.matmul(self.x_sign, self.dT, self.ds)
        op.mul(self.ds[M:3 * M], self.keep, self.dwin[p])
        op.mul(self.ds[3 * M:], self.keep, self.dmq)
        # dlogit_s = g (dmq·mk_s + mq·dmk_s)
        dP, dl = self.dP[:n], self.dl[:n]
        op.mul(self.win[:n, M:], self.dmq, dP)
        op.mul(self.dwin[:n, M:], self.mq, self.P[:n])
        op.add(dP, self.P[:n], dP)
        dl[...] = dP[:, 0]
        for b in range(1, M):
            op.add(dl, dP[:, b], dl)
        op.mul(dl, self.g, dl)
        # dp_s = p_s (dl_s − Σ_r p_r dl_r)
        pw = self.logit[:n]
        op.mul(pw, dl, self.P[:n, 0])
        self.tmpB[...] = self.P[0, 0]
        for s in range(1, n):
            op.add(self.tmpB, self.P[s, 0], self.tmpB)
        op.sub(dl, self.tmpB, dl)
        op.mul(dl, pw, dl)
        # dA = Σ_s dp_s mv_s + p_s dmv_s
        op.mul(self.win[:n, :M], dl[:, None], dP)
        op.mul(self.dwin[:n, :M], pw[:, None], self.Q[:n])
        op.add(dP, self.Q[:n], dP)
        self.dA[...] = dP[0]
        for s in range(1, n):
            op.add(self.dA, dP[s], self.dA)

    def renormalise(self, accumulate: bool):
        """Divide the tangent by its norm; add log(norm) to the running sum when ``accumulate``."""
        op = self.ops
        op.mul(self.dA, self.dA, self.tmpMB)
        self.norm2[...] = self.tmpMB[0]
        for b in range(1, self.M):
            op.add(self.norm2, self.tmpMB[b], self.norm2)
        sq = self.dwin * self.dwin
        for s in range(self.L):
            for r in range(2 * self.M):
                op.add(self.norm2, sq[s, r], self.norm2)
        op.sqrt(self.norm2, self.norm2)
        # A collapsed tangent (e.g. β = 0, where the map is constant) would give 0/0; the floor
        # reports λ = log(1e-300) ≈ −690 instead, i.e. "minus infinity" for any plot.
        op.maximum(self.norm2, self.tiny, self.norm2)
        op.div(self.dA, self.norm2, self.dA)
        op.div(self.dwin, self.norm2, self.dwin)
        if accumulate:
            op.log(self.norm2, self.lognorm)
            op.add(self.log_sum, self.lognorm, self.log_sum)


# ----------------------------------------------------------------------------------------------
# Public entry points
# ----------------------------------------------------------------------------------------------
def _grid(betas, gamma, epsilon):
    b = np.asarray(betas, dtype=np.float64)
    if b.ndim == 0:
        b = b[None]
    if b.ndim != 1:
        raise ValueError(f"betas must be a 1-D grid of inverse temperatures; got shape {b.shape}")
    if b.size == 0:
        raise ValueError("betas must hold at least one value; got an empty grid")
    try:
        g = np.broadcast_to(np.asarray(gamma, dtype=np.float64), b.shape).copy()
        e = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), b.shape).copy()
    except ValueError as err:
        raise ValueError(f"gamma and epsilon must be scalars or arrays of the betas' length {b.size}") from err
    for name, arr in (("betas", b), ("gamma", g), ("epsilon", e)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite; got {arr[~np.isfinite(arr)][:3]}")
    if np.any((e < 0) | (e > 1)):
        raise ValueError("epsilon must lie in [0, 1]")
    return b, g, e


def _steps(steps, transient):
    _check_int("steps", steps, 1)
    _check_int("transient", transient, 0)
    if transient >= steps:
        raise ValueError(f"transient ({transient}) must be smaller than steps ({steps})")


def _init_engine(model, b, g, e, init, backend, device, tangent=False, sampler=None):
    ops = _ops(backend, device)
    if tangent and sampler is not None:
        raise ValueError("lyapunov=True needs the deterministic map (sampler=None)")
    eng = _MeanFieldEngine(model, b, g, e, ops, tangent=tangent, sampler=sampler)
    if isinstance(init, str) and init == "token":
        eng.set_token()
        return eng, 1, True
    if isinstance(init, (str, Path)):
        if not str(init).endswith(".npz"):
            raise ValueError(f"init must be 'token' or a saved context (mapping or .npz path); got {init!r}")
        init = load_context(init)
    if not isinstance(init, Mapping):
        raise TypeError(f"init must be 'token' or a context mapping/path; got {type(init).__name__}")
    eng.set_context(init)
    return eng, model.context_size, False


@dataclass
class SimulationResult:
    """Output of :func:`simulate`.

    m_o : (B, T, M) the saved m^o_t for t in [transient, steps).
    context : final context, batched: ``mv_window (B, L, M)``, ``mk_window (B, L, M)``,
        ``mq_window (B, M)``, ``att_window (B, M)``; oldest slot first. Pass it back as ``init``.
    betas, gamma, epsilon : (B,) the grid.
    lyapunov : (B,) λ_max when asked for, else None.
    """

    m_o: np.ndarray
    context: dict
    betas: np.ndarray
    gamma: np.ndarray
    epsilon: np.ndarray
    steps: int
    transient: int
    lyapunov: np.ndarray | None = None

    def context_of(self, i: int) -> dict[str, np.ndarray]:
        """The final context of grid point ``i`` (unbatched)."""
        return {k: v[i].copy() for k, v in self.context.items()}


def simulate(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *,
             gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
             device=None, save: bool = True, lyapunov: bool = False, tangent_seed: int = 0,
             sampler: Callable | None = None, progress: bool | None = False,
             block_callback: Callable | None = None, block: int = 2000) -> SimulationResult:
    """Iterate the mean-field map for a batch of β (and γ, ε, initial contexts) at once.

    Parameters
    ----------
    betas : (B,) inverse temperatures β (the output gain).
    steps, transient : time steps ``t = 0 .. steps-1`` (from a context: ``t = L .. steps-1``, as in the
        paper's code); m^o_t is saved for ``t >= transient``.
    init : ``"token"`` (row 0 of W^o; the paper's start) or a context (mapping or .npz path with
        ``mv_window``, ``mk_window``, ``att_window``, each unbatched or with a leading B axis).
    gamma, epsilon : scalars or (B,) arrays: attention gain γ (logit gain γ/√M) and positional weight ε.
    model : the map's constants (default: :func:`paper_model`).
    backend : ``"numpy"`` (float64 reference) or ``"torch"`` (float64; ``device`` picks CPU/GPU).
    save : keep m^o (B, steps - transient, M) in memory; set False for long sweeps that reduce
        the trajectory block by block with ``block_callback(t0, m_o_block (B, nb, M))``.
    lyapunov : also propagate a tangent vector and return λ_max (see :func:`largest_lyapunov`).
    sampler : finite-N hook ``T (C, B) -> sampled T`` (see :mod:`mfattn.dynamics.finite_n`); None = N → ∞.

    Returns
    -------
    SimulationResult
    """
    _steps(steps, transient)
    model = model or paper_model()
    b, g, e = _grid(betas, gamma, epsilon)
    eng, t0, warm = _init_engine(model, b, g, e, init, backend, device, tangent=lyapunov, sampler=sampler)
    B, M, L = b.size, model.num_features, model.context_size
    n_saved = steps - transient
    out = np.empty((B, n_saved, M)) if save else None
    if lyapunov:
        eng.set_tangent(tangent_seed)
    blk = eng.ops.zeros((min(block, n_saved), M, B))  # on the backend's device; copied out per block
    if warm and transient == 0:  # t = 0 is the token itself
        blk[0] = eng.ops.asarray(np.broadcast_to(model.token[:M, None], (M, B)))
    pbar = _progress(steps - t0, progress, f"mean-field map, {B} β")
    to_np = eng.ops.to_numpy
    saved_from = max(transient, t0)

    def flush(t_end, count):
        first = t_end - count
        raw = to_np(blk[:count])  # (nb, M, B), time-major
        if save:
            a, z = first - transient, t_end - transient
            for i in range(0, B, 16):  # transposing in tiles keeps the copy cache-friendly
                out[i:i + 16, a:z] = raw[:, :, i:i + 16].transpose(2, 0, 1)
        if block_callback is not None:
            block_callback(first, raw)

    filled = 1 if (warm and transient == 0) else 0
    for t in range(t0, steps):
        valid = min(t + 1, L) if warm else L
        s = eng.step(t, valid)
        if lyapunov:
            eng.renormalise(t >= transient)
        if t >= saved_from:
            blk[filled] = s[:M]
            filled += 1
            if filled == blk.shape[0]:
                flush(t + 1, filled)
                filled = 0
        if pbar is not None and (t & 1023) == 0:
            pbar.update(min(1024, steps - t))
    if filled:
        flush(steps, filled)
    if pbar is not None:
        pbar.close()
    lyap = to_np(eng.log_sum) / n_saved if lyapunov else None
    return SimulationResult(out, eng.context(steps), b, g, e, steps, transient,
                            None if lyap is None else np.asarray(lyap).copy())


def _progress(total, progress, desc):
    if progress is False:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=None if progress is None else not progress, leave=False)


def largest_lyapunov(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *,
                     gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                     device=None, tangent_seed: int = 0, progress: bool | None = False) -> np.ndarray:
    """λ_max per grid point: the mean log growth per step of a tangent vector.

    The tangent ``(δA, δm^v_window, δm^k_window)`` is pushed through the Jacobian of each step
    (forward mode, analytic: δT = (1 − T²) β W^o δA, the softmax's δp_s = p_s(δℓ_s − Σ_r p_r δℓ_r))
    and renormalised every step; λ_max = (1/(steps − transient)) Σ_{t ≥ transient} log‖δ_t‖.
    The primal trajectory is the one :func:`simulate` computes, bit for bit. Returns (B,).
    """
    res = simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend,
                   device=device, save=False, lyapunov=True, tangent_seed=tangent_seed, progress=progress)
    return res.lyapunov


# ----------------------------------------------------------------------------------------------
# Orbit diagnostics
# ----------------------------------------------------------------------------------------------
def quantize(values: np.ndarray, max_y: float, bins: int = 5001) -> np.ndarray:
    """The paper's bin index of each value: ``int(bins (v/max_y + 1)/2)``."""
    if not max_y > 0:
        raise ValueError(f"max_y must be positive; got {max_y!r}")
    return (bins * (np.asarray(values) / max_y + 1) / 2).astype(np.int64)


def bin_counts(m1: np.ndarray, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
    """Number of distinct bins (of ``bins`` over [−max_y, max_y]) that each row's values occupy.

    m1 : (B, T) samples of m^o_1 after the transient. ``max_y`` defaults to max |m1| over the grid
    (the paper takes the largest |m^o| of the whole diagram). Returns (B,) int.
    """
    m1 = np.atleast_2d(m1)
    if max_y is None:
        max_y = float(np.abs(m1).max())
    q = np.sort(quantize(m1, max_y, bins), axis=1)
    return 1 + (np.diff(q, axis=1) != 0).sum(axis=1)


def classify(counts, periodic_below: int = 80, chaotic_from: int = 2500) -> np.ndarray:
    """The paper's rule on bin counts: 0 periodic (< 80), 1 quasi-periodic (< 2500), 2 chaotic."""
    c = np.asarray(counts)
    return np.where(c < periodic_below, 0, np.where(c < chaotic_from, 1, 2))


def orbit_period(m_o: np.ndarray, max_period: int = 2000, tol: float = 1e-9) -> np.ndarray:
    """Smallest p with max_t |m_{t+p} − m_t| <= tol over the saved window; 0 where none (B,) int.

    m_o : (B, T, M) or (T, M). Needs T > 2 max_period for a reliable answer.
    """
    x = np.asarray(m_o)
    if x.ndim == 2:
        x = x[None]
    B, T, _ = x.shape
    periods = np.zeros(B, dtype=np.int64)
    pmax = min(max_period, T // 2)
    for i in range(B):
        xi = x[i]
        for p in range(1, pmax + 1):
            if np.max(np.abs(xi[p:] - xi[:-p])) <= tol:
                periods[i] = p
                break
    return periods


def section_band(m_o: np.ndarray, plot: int = 0, cut: int = 1, width: float = 1e-3) -> list[np.ndarray]:
    """The paper's section: values of m^o_{plot} at steps where |m^o_{cut}| <= width. List of B arrays."""
    x = np.asarray(m_o)
    if x.ndim == 2:
        x = x[None]
    return [xi[np.abs(xi[:, cut]) <= width, plot] for xi in x]


def poincare_section(m_o: np.ndarray, plot: int = 0, cut: int = 1, direction: int = 1) -> list[np.ndarray]:
    """A true Poincaré section: m^o_{plot} linearly interpolated where m^o_{cut} changes sign.

    ``direction=+1`` keeps upward crossings (m_cut < 0 <= m_cut next), −1 downward. List of B arrays.
    """
    x = np.asarray(m_o)
    if x.ndim == 2:
        x = x[None]
    return [_crossings(xi[:, plot], xi[:, cut], direction) for xi in x]


def _crossings(y, z, direction):
    z0, z1 = z[:-1], z[1:]
    idx = np.nonzero((z0 < 0) & (z1 >= 0))[0] if direction > 0 else np.nonzero((z0 > 0) & (z1 <= 0))[0]
    frac = -z0[idx] / (z1[idx] - z0[idx])
    return y[idx] + frac * (y[idx + 1] - y[idx])


def power_spectrum(x: np.ndarray):
    """Power spectrum of a demeaned, Hann-windowed series: (frequencies in cycles/step, power)."""
    x = np.asarray(x, dtype=np.float64)
    x = (x - x.mean()) * np.hanning(x.size)
    f = np.fft.rfftfreq(x.size)
    return f, np.abs(np.fft.rfft(x)) ** 2 / x.size


def autocorrelation(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalised autocorrelation ρ(τ), τ = 0..max_lag, of a demeaned series (FFT, unbiased by count)."""
    x = np.asarray(x, dtype=np.float64) - np.mean(x)
    n = x.size
    f = np.fft.rfft(x, 2 * n)
    ac = np.fft.irfft(f * np.conj(f))[:max_lag + 1] / (n - np.arange(max_lag + 1))
    return ac / ac[0] if ac[0] > 0 else ac


# ----------------------------------------------------------------------------------------------
# Long sweeps: chunked over β, online reductions over time, atomic and resumable
# ----------------------------------------------------------------------------------------------
LEVELS = 2 ** 16  # fine quantisation of m^o_1 on [-1, 1] kept per β to recount bins with any max_y


@dataclass
class SweepResult:
    """Per-β summaries of a bifurcation sweep (ragged lists have one array per β).

    band : m^o_1 where |m^o_2| <= band width (the paper's section).
    poincare : m^o_1 at upward zero crossings of m^o_2 (interpolated).
    levels : sorted distinct fine levels of m^o_1 (``LEVELS`` on [−1, 1]; |m^o| <= 1 always).
    extent : (B, 2) min and max of m^o over all features (the paper's max_y is max |extent|).
    period : (B,) period of the orbit (0 = none found); lyapunov : (B,) or None.
    contexts : final contexts, batched.
    """

    betas: np.ndarray
    gamma: np.ndarray
    epsilon: np.ndarray
    band: list
    poincare: list
    levels: list
    extent: np.ndarray
    period: np.ndarray
    lyapunov: np.ndarray | None
    contexts: dict
    config: dict

    @property
    def max_y(self) -> float:
        return float(np.abs(self.extent).max())

    def bin_counts(self, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
        """Distinct bins of ``bins`` over [−max_y, max_y] occupied by m^o_1 (paper's rule), per β."""
        my = self.max_y if max_y is None else max_y
        counts = np.empty(len(self.levels), dtype=np.int64)
        for i, lv in enumerate(self.levels):
            centre = (lv.astype(np.float64) + 0.5) / LEVELS * 2 - 1
            counts[i] = np.unique(quantize(centre, my, bins)).size
        return counts

    def classes(self, max_y: float | None = None) -> np.ndarray:
        return classify(self.bin_counts(max_y))

    def periodic_points(self, i: int, bins: int = 5001) -> np.ndarray:
        """The distinct m^o_1 values of β_i (bin centres), what the paper plots for periodic orbits."""
        lv = self.levels[i]
        return (lv.astype(np.float64) + 0.5) / LEVELS * 2 - 1


def _ragged_pack(arrays, dtype):
    sizes = np.array([a.size for a in arrays], dtype=np.int64)
    flat = np.concatenate([np.asarray(a, dtype=dtype) for a in arrays]) if arrays else np.zeros(0, dtype)
    return flat, sizes


def _ragged_unpack(flat, sizes):
    return np.split(flat, np.cumsum(sizes)[:-1])


def _sweep_chunk(betas, gamma, epsilon, init, steps, transient, model, backend, device, lyapunov,
                 band_width, max_period, period_tol, tangent_seed, progress=False):
    B = betas.size
    M = model.num_features
    band = [[] for _ in range(B)]
    cross = [[] for _ in range(B)]
    n_total = steps - transient
    levels = np.empty((n_total, B), dtype=np.uint16)  # time-major, like the blocks
    lo = np.full(B, np.inf)
    hi = np.full(B, -np.inf)
    prev = {"last": None}
    tail_len = min(2 * max_period + 1, steps - transient)
    tail = np.empty((B, tail_len, M))

    def reduce(t0, blk):  # blk (nb, M, B), time-major
        nb = blk.shape[0]
        y, z = blk[:, 0, :], blk[:, 1, :]
        np.minimum(lo, blk.min(axis=(0, 1)), out=lo)
        np.maximum(hi, blk.max(axis=(0, 1)), out=hi)
        i0 = t0 - transient
        levels[i0:i0 + nb] = np.clip(((y + 1) / 2 * LEVELS).astype(np.int64), 0, LEVELS - 1)
        _collect(band, y.T, np.abs(z.T) <= band_width)
        if prev["last"] is not None:
            y = np.concatenate([prev["last"][None, 0], y], axis=0)
            z = np.concatenate([prev["last"][None, 1], z], axis=0)
        yT, zT = y.T, z.T
        up = (zT[:, :-1] < 0) & (zT[:, 1:] >= 0)
        rows, cols = np.nonzero(up)
        frac = -zT[rows, cols] / (zT[rows, cols + 1] - zT[rows, cols])
        vals = yT[rows, cols] + frac * (yT[rows, cols + 1] - yT[rows, cols])
        _split_append(cross, rows, vals, B)
        prev["last"] = blk[-1].copy()
        end = i0 + nb
        first_tail = n_total - tail_len
        if end > first_tail:
            a = max(i0, first_tail)
            tail[:, a - first_tail:end - first_tail] = blk[a - i0:].transpose(2, 0, 1)

    res = simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend,
                   device=device, save=False, lyapunov=lyapunov, tangent_seed=tangent_seed,
                   block_callback=reduce, progress=progress)
    levels = np.sort(levels.T, axis=1)
    lv_list = []
    for row in levels:
        keep = np.concatenate([[True], row[1:] != row[:-1]])
        lv_list.append(row[keep])
    period = np.zeros(B, dtype=np.int64)
    few = [i for i in range(B) if lv_list[i].size <= 4 * max_period]
    if few:
        period[few] = orbit_period(tail[few], max_period, period_tol)
    out = {
        "betas": betas, "gamma": gamma, "epsilon": epsilon,
        "extent": np.stack([lo, hi], axis=1),
        "period": period,
        "lyapunov": res.lyapunov if lyapunov else np.full(B, np.nan),
    }
    for name, lists in (("band", band), ("poincare", cross)):
        arrays = [np.concatenate(v) if v else np.zeros(0, np.float32) for v in lists]
        out[name], out[name + "_sizes"] = _ragged_pack(arrays, np.float32)
    out["levels"], out["levels_sizes"] = _ragged_pack(lv_list, np.uint16)
    for k, v in res.context.items():
        out["ctx_" + k] = v
    return out


def _split_append(lists, rows, vals, B):
    """Append vals (grouped by sorted ``rows``) to ``lists[row]`` as float32 pieces."""
    split = np.searchsorted(rows, np.arange(1, B))
    for i, v in enumerate(np.split(vals, split)):
        if v.size:
            lists[i].append(v.astype(np.float32))


def _collect(lists, y, mask):
    rows, cols = np.nonzero(mask)
    _split_append(lists, rows, y[rows, cols], mask.shape[0])


def sweep(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *, gamma=220.0,
          epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy", device=None,
          lyapunov: bool = False, chunk_size: int = 4001, out_dir: str | Path | None = None,
          band_width: float = 1e-3, max_period: int = 500, period_tol: float = 1e-9,
          tangent_seed: int = 0, progress: bool | None = None) -> SweepResult:
    """A bifurcation sweep over a β grid (and γ, ε), summarised per β, resumable.

    The grid is cut into chunks of ``chunk_size`` points; each chunk is simulated as one batch and
    reduced on the fly (the paper's band section, the Poincaré section, fine levels for bin
    counting, the extent, the period from the last ``2 max_period + 1`` steps, λ_max if asked),
    then written atomically to ``out_dir/chunk-XXXXX.npz``. A rerun with the same configuration
    reads the chunks already written and computes only the missing ones; since a β's trajectory
    does not depend on its batch, the result is identical to an uninterrupted run.

    ``init`` is ``"token"`` or a context (unbatched, shared by all β, or batched over the grid).
    """
    _steps(steps, transient)
    model = model or paper_model()
    b, g, e = _grid(betas, gamma, epsilon)
    _check_int("chunk_size", chunk_size, 1)
    B = b.size
    if isinstance(init, (Path,)) or (isinstance(init, str) and init != "token"):
        init = load_context(init)
    batched_init = (not isinstance(init, str)) and np.asarray(init["att_window"]).ndim == 2
    config = {"betas": b, "gamma": g, "epsilon": e, "steps": steps, "transient": transient,
              "init": init if isinstance(init, str) else {k: np.asarray(v) for k, v in init.items()},
              "model": {"o": model.o_classes, "coef": model.coef, "pe": model.positional, "tok": model.token},
              "backend": backend, "lyapunov": lyapunov, "band_width": band_width, "max_period": max_period,
              "period_tol": period_tol, "tangent_seed": tangent_seed, "chunk_size": chunk_size, "version": 1}
    key = store.config_hash(config)
    folder = Path(out_dir) / key if out_dir is not None else None
    chunks = []
    starts = list(range(0, B, chunk_size))
    pbar = _progress(len(starts), progress, "β chunks")
    for ci, s0 in enumerate(starts):
        sl = slice(s0, min(s0 + chunk_size, B))
        path = folder / f"chunk-{ci:05d}.npz" if folder is not None else None
        if path is not None and path.exists():
            chunks.append(store.load_npz(path))
        else:
            ini = init
            if batched_init:
                ini = {k: np.asarray(v)[sl] for k, v in init.items()}
            data = _sweep_chunk(b[sl], g[sl], e[sl], ini, steps, transient, model, backend, device, lyapunov,
                                band_width, max_period, period_tol, tangent_seed, progress)
            if path is not None:
                store.atomic_save_npz(path, **data)
                data = store.load_npz(path)
            chunks.append(data)
        if pbar is not None:
            pbar.update(1)
    if pbar is not None:
        pbar.close()
    cat = lambda k: np.concatenate([c[k] for c in chunks])  # noqa: E731
    ragged = {}
    for name in ("band", "poincare", "levels"):
        ragged[name] = [a for c in chunks for a in _ragged_unpack(c[name], c[name + "_sizes"])]
    lyap = cat("lyapunov") if lyapunov else None
    ctx = {k[4:]: cat(k) for k in chunks[0] if k.startswith("ctx_")}
    return SweepResult(b, g, e, ragged["band"], ragged["poincare"], ragged["levels"], cat("extent"),
                       cat("period"), lyap, ctx, {k: v for k, v in config.items() if k not in ("model",)})


def bifurcation_diagram(betas, steps: int = 120_000, transient: int = 100_000, *, context: Any = None,
                        gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                        device=None, lyapunov: bool = True, chunk_size: int = 4001,
                        out_dir: str | Path | None = None, progress: bool | None = None):
    """The paper's Fig 3 protocol: run the grid's last β from the token for ``steps`` steps, keep
    its final context, then run every β of the grid from that context (:func:`sweep`).

    ``context`` replaces the first run by a given context. Returns ``(SweepResult, context)``.
    """
    b, g, e = _grid(betas, gamma, epsilon)
    model = model or paper_model()
    if context is None:
        context = simulate(b[-1:], steps, steps - 1, "token", gamma=g[-1], epsilon=e[-1], model=model,
                           backend=backend, device=device).context_of(0)
    res = sweep(b, steps, transient, context, gamma=g, epsilon=e, model=model, backend=backend, device=device,
                lyapunov=lyapunov, chunk_size=chunk_size, out_dir=out_dir, progress=progress)
    return res, context


def save_diagram(path: str | Path, res: SweepResult, levels: int = 2 ** 14) -> Path:
    """Write the small part of a sweep a figure needs, atomically, as a compressed ``.npz``.

    Section points are stored as their distinct levels on a grid of ``levels`` values over [−1, 1]
    (|m^o| <= 1; resolution 1.2e-4, finer than the paper's 5001 bins), which keeps a 4001-β diagram at
    a few MB. Keys: ``betas, gamma, epsilon`` (B,); ``band`` / ``poincare`` (uint16 levels, packed,
    with ``*_sizes`` per β; value = level / (levels − 1) · 2 − 1); ``bin_counts, classes, period``
    (B,); ``lyapunov`` (B,, NaN if not computed); ``max_y``; ``levels``. Unpack a ragged key with
    ``np.split(x, np.cumsum(x_sizes)[:-1])``.
    """
    def distinct(points):
        q = np.clip(np.rint((np.asarray(points, dtype=np.float64) + 1) / 2 * (levels - 1)), 0, levels - 1)
        return np.unique(q.astype(np.uint16))

    band, band_sizes = _ragged_pack([distinct(p) for p in res.band], np.uint16)
    cross, cross_sizes = _ragged_pack([distinct(p) for p in res.poincare], np.uint16)
    counts = res.bin_counts()
    lyap = res.lyapunov if res.lyapunov is not None else np.full(res.betas.size, np.nan)
    return store.atomic_save_npz(path, betas=res.betas, gamma=res.gamma, epsilon=res.epsilon, band=band,
                                 band_sizes=band_sizes, poincare=cross, poincare_sizes=cross_sizes,
                                 bin_counts=counts, classes=classify(counts), period=res.period,
                                 lyapunov=lyap, max_y=np.float64(res.max_y), levels=np.int64(levels))
