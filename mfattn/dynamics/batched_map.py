"""The batched mean-field map's state and one step (and its tangent step): the class :mod:`~mfattn.dynamics.engine`
runs, moved here whole from that module (its entry points stay there).

Arrays are kept feature-major, ``(features, B)``; only element-wise operations, exact ±1 matrix products and sums
whose order is fixed are used inside a step, so a β gives bit-for-bit the same trajectory alone or inside a batch
(see :mod:`~mfattn.dynamics.engine`). The step is written once over the operation tables of
:mod:`~mfattn.dynamics.backends`.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

import numpy as np

from .model import MeanFieldModel

__all__: list[str] = []   # the engine's internals; the public entry points are mfattn.dynamics.engine's

_MO = object()  # step()'s default: m^o_t into the engine's own buffer


class _MeanFieldEngine:
    """The batched map's state and one step.

    Feature-major arrays with a trailing B axis: ``A (M, B)``; ``slots (L, 3M, B)``, slot ``t mod L``
    holding the rows ``[m^v_t; m^k_t; m^q_t]`` written at step t (its m^q is read only at that step:
    the query of step t is ``slots[t mod L, 2M:]``, exposed as ``mq``); ``win = slots[:, :2M]`` is the
    context window ``(L, 2M, B)`` of ``[m^v; m^k]`` pairs. The tangent ``(dA, dwin)`` lives in one
    ``(M + 2ML, B)`` array, so its norm and its renormalisation are one pass each.

    Speed (``benchmarks/bench_dmft.py``): per step about 20 array operations whatever B is; the
    constants that multiply a whole block (β, 1 − ε, γ/√M, n_c/N) are stored tiled to the block's
    shape (a broadcast row runs about twice as slow); a step writes m^v, m^k, m^q straight into
    their slot from one ±1 matrix product and computes m^o only when it is saved.
    """

    def __init__(self, model: MeanFieldModel, betas, gammas, epsilons, ops, tangent: bool = False,
                 sampler: Callable | None = None):
        self.model, self.ops = model, ops
        M, C, L = model.num_features, model.num_classes, model.context_size
        B = len(betas)
        self.M, self.C, self.L, self.B = M, C, L, B
        o = ops.asarray

        def tile(v, rows):  # one number for the whole block (a Python float), else tiled to (rows, B)
            v = np.broadcast_to(np.asarray(v, dtype=np.float64), (rows, B))
            return float(v.flat[0]) if np.all(v == v.flat[0]) else o(v)

        self.beta = tile(betas, C)
        self.g = tile(np.asarray(gammas, dtype=np.float64) / math.sqrt(M), L)
        eps = np.asarray(epsilons, dtype=np.float64)
        # ε enters as 1 − (1 − ε), as in the paper's code (last-digit reproducibility of its runs).
        keep = 1.0 - eps
        self.keep = tile(keep, 3 * M)  # rows v, k, q
        self.keep_vk, self.keep_q = ((self.keep, self.keep) if isinstance(self.keep, float)
                                     else (self.keep[:2 * M], self.keep[2 * M:]))
        pos = model.positional[:, M:]  # (L, 3M) rows [v; k; q]
        self.eps_pos = o((1.0 - keep)[None, None, :] * pos[:, :, None])  # (L, 3M, B)
        # Weights enter as exact ±1 sign matrices (matmuls then add in a fixed order whatever B is:
        # a product by ±1 is exact, so FMA or not, blocked or not, the sums are the same) and the
        # class fractions are applied element-wise. This keeps a β's trajectory independent of its batch.
        self.o_sign = o(model.o_classes)  # (C, M)
        self.x_o = o(model.class_sign[:M])  # (M, C): m^o
        self.x_vkq = o(model.class_sign[M:])  # (3M, C): m^v, m^k, m^q, the rows of a slot
        self.frac = tile(model.class_fraction[:, None], C)  # (the paper's classes all hold 1/3 of the units)
        # state (A, the slots) and work buffers, each with a trailing B axis
        for name, shape in (("A", (M,)), ("slots", (L, 3 * M)), ("h", (C,)), ("T", (C,)), ("U", (C,)),
                            ("mo", (M,)), ("P", (L, M)), ("logit", (L,)), ("lmax", ()), ("den", ())):
            setattr(self, name, ops.zeros((*shape, B)))
        self.Q = self.P  # the products m^k·m^q are summed into the logits before m^v·p is formed: one buffer
        self.win, self.mv, self.mk = self.slots[:, :2 * M], self.slots[:, :M], self.slots[:, M:2 * M]
        self.p_last = L - 1  # the slot whose m^q is the current query
        self.sampler = sampler
        self.tangent = tangent
        if tangent:
            self.one = o(np.ones((1, 1)))
            self.tiny = o(np.full((1,), 1e-300))
            # the tangent [dA; dwin] in one array, its intermediates and the running sum of log norms
            for name, shape in (("tan", (M + 2 * M * L,)), ("sq", (M + 2 * M * L,)), ("dmq", (M,)), ("dh", (C,)),
                                ("dT", (C,)), ("ds", (3 * M,)), ("dl", (L,)), ("pdl", (L,)), ("dP", (L, M)),
                                ("dQ", (L, M)), ("tmpB", ()), ("norm2", ()), ("lognorm", ()), ("log_sum", ())):
                setattr(self, name, ops.zeros((*shape, B)))
            self.dA = self.tan[:M]
            self.dwin = self.tan[M:].reshape(L, 2 * M, B)

    @property
    def mq(self):
        """The current query m^q (M, B): rows ``2M:`` of the slot written last."""
        return self.slots[self.p_last, 2 * self.M:]

    # -- initial conditions ---------------------------------------------------------------------
    def set_token(self):
        """t = 0 from the initial token: slot 0 holds its (m^v, m^k, m^q); A_0 = m^v_0 (self-attention only)."""
        M = self.M
        tok = self.model.token
        ones = np.ones((1, self.B))
        self.slots[0] = self.ops.asarray(tok[M:, None] * ones)  # rows [v; k; q]
        self.p_last = 0
        self.A[...] = self.slots[0, :M]

    def set_context(self, ctx: Mapping[str, np.ndarray]):
        """A saved context, oldest slot first; the next step has position 0 (as in the paper's code)."""
        M, L, B = self.M, self.L, self.B
        missing = sorted({"mv_window", "mk_window", "att_window"} - set(ctx))
        if missing:
            raise ValueError(f"init: the context lacks {missing} (a context holds mv_window (L, M), mk_window (L, M), "
                             f"att_window (M,) and optionally mq_window (M,), each possibly with a leading B axis)")
        mv, mk, att = (np.asarray(ctx[k], dtype=np.float64) for k in ("mv_window", "mk_window", "att_window"))
        for name, arr, shape in (("mv_window", mv, (L, M)), ("mk_window", mk, (L, M)), ("att_window", att, (M,))):
            if arr.shape != shape and arr.shape != (B, *shape):
                raise ValueError(f"init: context {name} must have shape {shape} (shared) or {(B, *shape)} (one per β "
                                 f"of the {B}); got {arr.shape}")
        mv = np.broadcast_to(mv, (B, L, M))
        mk = np.broadcast_to(mk, (B, L, M))
        att = np.broadcast_to(att, (B, M))
        self.mv[...] = self.ops.asarray(np.transpose(mv, (1, 2, 0)))
        self.mk[...] = self.ops.asarray(np.transpose(mk, (1, 2, 0)))
        self.A[...] = self.ops.asarray(att.T)
        self.p_last = L - 1  # the newest slot (the step before t = L)
        mq = ctx.get("mq_window")
        if mq is not None:
            self.mq[...] = self.ops.asarray(np.broadcast_to(np.asarray(mq, dtype=np.float64), (B, M)).T)

    def set_tangent(self, seed: int):
        """Every grid point starts from the same tangent, :func:`_tangent_start` (``seed``'s draw), of unit norm.

        One vector for the whole batch, not one draw per column: a column's draw would depend on the batch's
        size and on the β's place in it, and λ (a finite-time mean, slow to forget its start where λ_1 ≈ λ_2,
        as on a torus) would then differ in its last bits between a β run alone and the same β in a batch."""
        dA, dwin = _tangent_start(self.M, self.L, seed)
        n = np.sqrt((dA ** 2).sum(0) + (dwin ** 2).sum((0, 1)))
        ones = np.ones(self.B)
        self.dA[...] = self.ops.asarray(dA / n * ones)
        self.dwin[...] = self.ops.asarray(dwin / n * ones)

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
    def step(self, t: int, valid: int, mo=_MO):
        """Advance from A_{t-1} to A_t, the ``valid`` newest slots attended (all L but after the token).

        ``mo``: where m^o_t (M, B) goes (the engine's own buffer by default; ``None`` skips it, as a
        transient step needs no output). Returns ``mo``.

        The arithmetic is :func:`mfattn.dynamics.map.step`'s, operation for operation and in the same
        order (element-wise float64 operations, numpy's tanh and exp, sums left to right), so each β
        follows the per-β map bit for bit.
        """
        op, M = self.ops, self.M
        op.matmul(self.o_sign, self.A, self.h)  # W^o_c·A (exact ±1 products)
        op.mul(self.h, self.beta, self.h)
        op.tanh(self.h, self.T)
        T = self.T if self.sampler is None else self.sampler(self.T)
        op.mul(T, self.frac, self.U)  # (n_c/N) tanh(β W^o_c·A)
        p = t % self.L
        new = self.slots[p]  # [m^v; m^k; m^q]_t = (1 − ε) s^x + ε π^x(p)
        op.matmul(self.x_vkq, self.U, new)
        op.mul(new, self.keep, new)
        op.add(new, self.eps_pos[p], new)
        self.p_last = p
        self._attend(new[2 * M:], valid)
        if self.tangent:
            self._tangent_step(p, valid)
        if mo is _MO:
            mo = self.mo
        if mo is not None:
            op.matmul(self.x_o, self.U, mo)
        return mo

    def _attend(self, mq, n):
        """A = Σ_s softmax_s(g m^q·m^k_s) m^v_s over the n newest slots (all L once the window is full)."""
        op, M = self.ops, self.M
        P, lg = self.P[:n], self.logit[:n]
        op.mul(self.mk[:n], mq, P)
        if M > 1:
            op.add(P[:, 0], P[:, 1], lg)
        else:
            lg[...] = P[:, 0]
        for b in range(2, M):
            op.add(lg, P[:, b], lg)
        op.mul(lg, self._rows(self.g, n), lg)
        op.amax(lg, self.lmax)
        op.sub(lg, self.lmax, lg)
        op.exp(lg, lg)
        self._sum(lg, self.den)
        op.div(lg, self.den, lg)
        Q = self.Q[:n]
        op.mul(self.mv[:n], lg[:, None], Q)
        self._sum(Q, self.A)

    @staticmethod
    def _rows(c, n):
        return c if isinstance(c, float) else c[:n]

    def _sum(self, rows, out):
        """out = ((rows[0] + rows[1]) + rows[2]) + ... (left to right, as numpy's sum over so few terms)."""
        n = rows.shape[0]
        if n == 1:
            out[...] = rows[0]
            return
        self.ops.add(rows[0], rows[1], out)
        for s in range(2, n):
            self.ops.add(out, rows[s], out)

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
        op.matmul(self.x_vkq, self.dT, self.ds)
        op.mul(self.ds[:2 * M], self.keep_vk, self.dwin[p])
        op.mul(self.ds[2 * M:], self.keep_q, self.dmq)
        # dlogit_s = g (dmq·mk_s + mq·dmk_s)
        dP, dl, scratch = self.dP[:n], self.dl[:n], self.dQ[:n]
        op.mul(self.mk[:n], self.dmq, dP)
        op.mul(self.dwin[:n, M:], self.mq, scratch)
        op.add(dP, scratch, dP)
        if M > 1:
            op.add(dP[:, 0], dP[:, 1], dl)
        else:
            dl[...] = dP[:, 0]
        for b in range(2, M):
            op.add(dl, dP[:, b], dl)
        op.mul(dl, self._rows(self.g, n), dl)
        # dp_s = p_s (dl_s − Σ_r p_r dl_r)
        pw, pdl = self.logit[:n], self.pdl[:n]
        op.mul(pw, dl, pdl)
        self._sum(pdl, self.tmpB)
        op.sub(dl, self.tmpB, dl)
        op.mul(dl, pw, dl)
        # dA = Σ_s dp_s mv_s + p_s dmv_s
        op.mul(self.mv[:n], dl[:, None], dP)
        op.mul(self.dwin[:n, :M], pw[:, None], scratch)
        op.add(dP, scratch, dP)
        self._sum(dP, self.dA)

    def renormalise(self, accumulate: bool):
        """Divide the tangent by its norm; add log(norm) to the running sum when ``accumulate``.

        The squared norm adds dA's rows, then the window's rows slot by slot, left to right."""
        op = self.ops
        op.mul(self.tan, self.tan, self.sq)
        op.sum_rows(self.sq, self.norm2)
        op.sqrt(self.norm2, self.norm2)
        # A collapsed tangent (e.g. β = 0, where the map is constant) would give 0/0; the floor
        # reports λ = log(1e-300) ≈ −690 instead, i.e. "minus infinity" for any plot.
        op.maximum(self.norm2, self.tiny, self.norm2)
        op.div(self.tan, self.norm2, self.tan)
        if accumulate:
            op.log(self.norm2, self.lognorm)
            op.add(self.log_sum, self.lognorm, self.log_sum)


def _tangent_start(M: int, L: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The start tangent's draw ``(dA (M, 1), dwin (L, 2M, 1))`` (not normalised), shared by every grid point.

    The draws are those a batch of one β always had (so a run of one β keeps its λ to the bit);
    :func:`mfattn.dynamics.lyapunov.lyapunov_spectrum` starts its first vector here too."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, 1)), rng.standard_normal((L, 2 * M, 1))
