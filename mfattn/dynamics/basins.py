"""Basins of attraction: which attractor a random initial context (a random prompt) reaches, and how often.

Random contexts are drawn over the set of contexts the layer can produce: every slot is written from some
attention, ``m^x_s = (1-ε) Σ_c (n_c/N_SE) W^x_c T_c + ε π^x(s mod L)`` with ``T_c = tanh(β W^o_c·A)``
in [−1, 1], so we draw ``T_c ~ U[−1, 1]`` independently per slot and class (:func:`random_contexts`); ``A``
is the softmax average over that window. Each context is run at each β (one batched run), and the orbits reached
are compared **as sets** (:func:`same_attractor`): two orbits are one attractor when they have the same
period (or both none) and their stroboscopic sections (``m^o`` every L-th step) lie within ``tol`` of each
other in the symmetric mean nearest-neighbour distance. Each attractor is reported with its period, its
λ_max and the fraction of contexts that reach it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..companion.checks import check_grid, check_int, check_real, contract
from .diagnostics import orbit_period
from .engine import simulate
from .model import MeanFieldModel, paper_model

__all__ = ["random_contexts", "same_attractor", "Attractor", "basin_fractions"]


@contract(n="int:1", seed="int:0", epsilon="real", gamma="real", alloc=lambda a: [("n", 8 * 4 * 64 * 16 * a["n"])])
def random_contexts(n: int, seed: int = 0, *, epsilon: float = 0.02, gamma: float = 220.0,
                    model: MeanFieldModel | None = None) -> dict[str, np.ndarray]:
    """``n`` random reachable contexts, batched: ``mv_window, mk_window (n, L, M)``, ``mq_window, att_window (n, M)``.

    Slot p (oldest first; the next step has phase 0, so slot p was written at phase p) holds
    ``(1-ε) s^x(T) + ε π^x(p)`` with ``T ~ U[−1, 1]^C``; ``A`` is the attention of the newest query over them.
    """
    check_int("n", n, 1)
    check_int("seed", seed, 0)
    check_real("epsilon", epsilon, minimum=0.0, maximum=1.0)
    model = model or paper_model()
    M, L, C = model.num_features, model.context_size, model.num_classes
    T = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, L, C))
    s = np.einsum("xc,nlc->nlx", model.coef, T)  # (n, L, 4M) rows [o; v; k; q]
    m = (1 - epsilon) * s + epsilon * model.positional[None]
    mv, mk, mq = m[..., M:2 * M], m[..., 2 * M:3 * M], m[:, -1, 3 * M:]
    logit = np.einsum("nm,nlm->nl", mq, mk) * gamma / np.sqrt(M)
    w = np.exp(logit - logit.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    return {"mv_window": mv, "mk_window": mk, "mq_window": mq, "att_window": np.einsum("nl,nlm->nm", w, mv)}


def _mean_nn(a: np.ndarray, b: np.ndarray) -> float:
    """Mean over the points of a of the distance to the nearest point of b."""
    d = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
    return float(d.min(1).mean())


@contract(a="array", b="array", period_a="int:0", period_b="int:0", tol="real:>=0")
def same_attractor(a: np.ndarray, b: np.ndarray, period_a: int, period_b: int, tol: float = 0.02) -> bool:
    """Whether two stroboscopic sections a (n, M), b (m, M) belong to one attractor (see the module doc).

    Periodic orbits: same period and sections within ``tol``. Sets with no period (tori, chaos) are sampled
    sparsely, so their threshold adds each set's own sampling distance (mean nearest-neighbour distance
    between its even and odd points): two samples of one chaotic attractor are as close as two halves of one.
    Sections of another number of coordinates, or with too few points (one; two when neither has a period, for its
    even and odd halves), are refused.
    """
    least = 2 if period_a == period_b == 0 else 1
    for name, x in (("a", a), ("b", b)):
        if np.ndim(x) != 2 or len(x) < least:
            raise ValueError(f"{name} must be a stroboscopic section (n, M) of at least {least} point(s); got shape "
                             f"{np.shape(x)}")
    if np.shape(a)[1] != np.shape(b)[1]:
        raise ValueError(f"a and b must have the same number of coordinates M; got a of shape {np.shape(a)} and b of "
                         f"shape {np.shape(b)}")
    if period_a != period_b:
        return False
    slack = 0.0
    if period_a == 0:
        slack = 2 * max(_mean_nn(a[::2], a[1::2]), _mean_nn(b[::2], b[1::2]))
    return max(_mean_nn(a, b), _mean_nn(b, a)) <= tol + slack


@dataclass
class Attractor:
    """One attractor found at one β: its period (0 = none), mean λ_max over its runs, basin fraction, and
    the index of a representative run."""

    beta: float
    period: int
    lyapunov: float
    fraction: float
    representative: int

    def __post_init__(self):
        """A hand-built attractor must describe one: period and representative counts, fraction in (0, 1]."""
        check_real("beta", self.beta, minimum=0.0)
        check_int("period", self.period, 0)
        check_real("lyapunov", self.lyapunov)
        check_real("fraction", self.fraction, minimum=0.0, maximum=1.0, strict=True)
        check_int("representative", self.representative, 0)

    @property
    def kind(self) -> str:
        if self.period:
            return f"period {self.period}"
        return "chaotic" if self.lyapunov > 1e-3 else "quasi-periodic"


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", n_contexts="int:1",
          seed="int:0", tol="real:>=0", points="int:1",
          alloc=lambda a: [("n_contexts", 8 * 8 * 64 * 16 * a["n_contexts"] * np.size(a["betas"]))])
def basin_fractions(betas, n_contexts: int = 64, steps: int = 30_000, transient: int = 26_000, *, seed: int = 0,
                    tol: float = 0.02, points: int = 400, gamma: float = 220.0, epsilon: float = 0.02,
                    model: MeanFieldModel | None = None, backend: str = "numpy", device=None) -> list[list[Attractor]]:
    """The attractors reached from ``n_contexts`` random contexts at each β, with their basin fractions.

    One batched run of ``len(betas) × n_contexts`` orbits (λ_max over the saved steps ``t >= transient``);
    each orbit's section is its last ``points`` stroboscopic points. Returns one list of :class:`Attractor`
    per β, largest basin first.
    """
    b = check_grid("betas", betas, minimum=0.0)
    check_int("n_contexts", n_contexts, 1)
    check_int("points", points, 2)
    check_real("tol", tol, minimum=0.0, strict=True)
    model = model or paper_model()
    L = model.context_size
    if steps - transient < points * L:
        raise ValueError(f"steps - transient must hold at least points × L = {points * L} steps; "
                         f"got {steps - transient}")
    ctx = random_contexts(n_contexts, seed, epsilon=epsilon, gamma=gamma, model=model)
    grid = np.repeat(b, n_contexts)
    tiled = {k: np.tile(v, (b.size,) + (1,) * (v.ndim - 1)) for k, v in ctx.items()}
    res = simulate(grid, steps, transient, tiled, gamma=gamma, epsilon=epsilon, model=model, backend=backend,
                   device=device, lyapunov=True)
    # stroboscopic phase 0 (steps t ≡ 0 mod L): saved row i is step transient + i
    first = (-transient) % L
    section = res.m_o[:, first::L][:, -points:]
    period = orbit_period(res.m_o[:, -min(res.m_o.shape[1], 1000):], max_period=200, tol=1e-8)
    out = []
    for i, beta in enumerate(b):
        idx = range(i * n_contexts, (i + 1) * n_contexts)
        reps: list[int] = []
        members: list[list[int]] = []
        for j in idx:
            for r, group in zip(reps, members):
                if same_attractor(section[j], section[r], period[j], period[r], tol):
                    group.append(j)
                    break
            else:
                reps.append(j)
                members.append([j])
        found = [Attractor(float(beta), int(period[r]), float(np.mean(res.lyapunov[g])), len(g) / n_contexts,
                           r - idx[0])
                 for r, g in zip(reps, members)]
        out.append(sorted(found, key=lambda a: -a.fraction))
    return out
