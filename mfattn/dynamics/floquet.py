"""Floquet multipliers of the periodic orbits of the mean-field map, and the Neimark-Sacker bifurcation.

The map is forced with period L by the positional encoding, so a periodic orbit ``x_{t+n} = x_t`` (n a
multiple of L) is a fixed point of the n-step map ``F^n = F_{t+n-1} ∘ … ∘ F_t``. Its multipliers
``μ_1, …, μ_{LM}`` are the eigenvalues of the monodromy matrix ``J = ∂F^n/∂x`` (the product of the tangent
maps along one period, :class:`~mfattn.dynamics.tangent_space.TangentFlow` pushing the D stored
directions at once) on the ``LM``-dimensional state (:func:`~mfattn.dynamics.tangent_space.state_dimension`;
the other D − LM eigenvalues of the stored representation are exactly 0). The orbit is stable while every
``|μ| < 1``; it loses stability in a **Neimark-Sacker** bifurcation when a complex pair ``μ = |μ| e^{±iθ}``
crosses the unit circle: an invariant circle of the n-step map (a torus of the forced map) is born, rotating
by ``θ/2π`` of a turn per period at birth (:func:`neimark_sacker`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..companion.checks import check_grid, check_int, check_real, check_work, contract
from .engine import _grid, simulate
from .model import MeanFieldModel, paper_model
from .tangent_space import TangentFlow, state_dimension, stored_dimension

__all__ = ["FloquetResult", "floquet_multipliers", "monodromy", "neimark_sacker"]


@dataclass
class FloquetResult:
    """Output of :func:`floquet_multipliers`.

    multipliers : (B, LM) complex, sorted by decreasing modulus; NaN where the orbit is not of the period.
    residual : (B,) ``max |F^n(x) − x|`` at the orbit point used (n = period steps).
    periodic : (B,) bool, ``residual <= tol``.
    state : (B, D) the orbit point (stored state, phase 0 next) at which J was taken.
    """

    betas: np.ndarray
    period: int
    multipliers: np.ndarray
    residual: np.ndarray
    periodic: np.ndarray
    state: np.ndarray

    def __post_init__(self):
        self._check()

    def _check(self) -> None:
        """One row per β in every field (cheap: shapes only); else a ValueError naming the field."""
        shape = np.shape(self.betas)
        if len(shape) != 1 or shape[0] == 0:
            raise ValueError(f"betas must be a non-empty 1-d grid; got shape {shape}")
        B = shape[0]
        check_int("period", self.period, 1)
        for name, ndim in (("multipliers", 2), ("residual", 1), ("periodic", 1), ("state", 2)):
            got = np.shape(getattr(self, name))
            if len(got) != ndim or got[0] != B or 0 in got:
                want = f"({B},)" if ndim == 1 else f"({B}, *)"
                raise ValueError(f"{name} must have shape {want}, one row per β of betas; got {got}")
        if np.asarray(self.periodic).dtype != bool:
            raise TypeError(f"periodic must be a bool array (residual <= tol per β); got dtype "
                            f"{np.asarray(self.periodic).dtype}")
        residual = np.asarray(self.residual)
        if residual.dtype.kind not in "fiu":
            raise TypeError(f"residual must hold real numbers (max |F^n(x) − x| per β); got dtype {residual.dtype}")
        if (residual < 0).any():   # a maximum of absolute values: never negative (NaN only where not periodic)
            raise ValueError(f"residual must be >= 0 (max |F^n(x) − x| per β); got the negative entries "
                             f"{residual[residual < 0][:4].tolist()}")
        if (np.isnan(residual) & np.asarray(self.periodic, dtype=bool)).any():
            raise ValueError("residual must be a number where periodic is True (periodic is residual <= tol); "
                             "got NaN there")
        state = np.asarray(self.state)
        if state.dtype.kind != "f" or not np.isfinite(state).all():   # (B, D) only: the orbit points, a real state
            raise ValueError(f"state must hold the finite real orbit point per β; got dtype {state.dtype}"
                             + ("" if state.dtype.kind != "f" else " with a non-finite entry"))
        if np.asarray(self.multipliers).dtype.kind not in "fc":
            raise TypeError(f"multipliers must be numbers (complex, NaN where not periodic); got dtype "
                            f"{np.asarray(self.multipliers).dtype}")

    @property
    def modulus(self) -> np.ndarray:
        """(B,) the largest |μ| (NaN where not periodic)."""
        return np.abs(self.multipliers[:, 0])


@contract(betas="reals", state="array:2", period="int:1", gamma="realarr", epsilon="realarr")
def monodromy(betas, state: np.ndarray, period: int, *, gamma=220.0, epsilon=0.02,
              model: MeanFieldModel | None = None, backend: str = "numpy", device=None):
    """``(F^n(x), J)`` for states ``x`` (B, D) whose next step has phase 0: ``F^n(x)`` (B, D) and the
    monodromy ``J = ∂F^n/∂x`` (B, D, D), pushing the D unit vectors through n = ``period`` steps."""
    model = model or paper_model()
    D = stored_dimension(model)
    B = np.size(check_grid("betas", betas))
    if np.shape(state) != (B, D):
        raise ValueError(f"state must have shape (B, D) = ({B}, {D}): one stored state (A and the window of "
                         f"(m^v, m^k) pairs) per β; got {np.shape(state)}")
    # the D tangent vectors ride along each of the period steps of every state
    check_work(f"period={period}", int(period) * np.shape(state)[0] * (D + 1), what="monodromy()",
               unit="state-steps (states × (D + 1) × period)")
    flow = TangentFlow(betas, D, _zero_context(model, np.asarray(state).shape[0]), gamma=gamma, epsilon=epsilon,
                       model=model, backend=backend, device=device)
    flow.set_state(state)
    flow.set_basis(np.broadcast_to(np.eye(D), (flow.B, D, D)))
    for _ in range(period):
        flow.step()
    return flow.state(), flow.basis()


def _zero_context(model, B):
    M, L = model.num_features, model.context_size
    return {"mv_window": np.zeros((B, L, M)), "mk_window": np.zeros((B, L, M)), "att_window": np.zeros((B, M))}


def _context_state(ctx: dict) -> np.ndarray:
    """A batched context (oldest slot first, next step at phase 0) as stored states (B, D)."""
    mv, mk, att = ctx["mv_window"], ctx["mk_window"], ctx["att_window"]
    win = np.concatenate([mv, mk], axis=2)  # (B, L, 2M): slot p holds [m^v; m^k]
    return np.concatenate([att, win.reshape(win.shape[0], -1)], axis=1)


@contract(betas="reals", period="int:1", steps="int:1", newton="int:0", tol="real:>0", gamma="realarr",
          epsilon="realarr")
def floquet_multipliers(betas, period: int = 4, steps: int = 20_000, init: Any = "token", *, newton: int = 0,
                        tol: float = 1e-8, gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None,
                        backend: str = "numpy", device=None) -> FloquetResult:
    """Multipliers of the period-``period`` orbit reached from ``init`` after ``steps`` steps, per β.

    Parameters
    ----------
    betas : (B,) grid of β.
    period : n >= 1, a multiple of the forcing period L (a period-n orbit of the L-periodically forced map
        returns to the same phase only if L divides n).
    steps : iterations before the orbit is examined (rounded up to a multiple of L, so the examined
        point has phase 0).
    newton : Newton iterations ``x ← x − (J − I)^{-1}(F^n(x) − x)`` on the stored state after the run
        (0: the orbit reached by iteration alone). Newton also follows the orbit *beyond* its loss of
        stability (the unstable period-n orbit inside a torus), which locates the bifurcation from both sides.
    tol : the orbit counts as period-n where ``max |F^n(x) − x| <= tol``; elsewhere the multipliers are NaN.

    Returns
    -------
    FloquetResult; ``multipliers`` (B, LM) complex, sorted by decreasing |μ|.
    """
    check_int("period", period, 1)
    check_int("steps", steps, 1)
    check_int("newton", newton, 0)
    check_real("tol", tol, minimum=0.0, strict=True)
    model = model or paper_model()
    L = model.context_size
    if period % L:
        raise ValueError(f"period must be a multiple of the forcing period L = {L} (the positional encoding "
                         f"repeats every L steps); got {period}")
    b, g, e = _grid(betas, gamma, epsilon)
    steps = int(math.ceil(steps / L) * L)
    ctx = simulate(b, steps, steps - 1, init, gamma=g, epsilon=e, model=model, backend=backend, device=device).context
    x = _context_state(ctx)
    kw = dict(gamma=g, epsilon=e, model=model, backend=backend, device=device)
    fx, J = monodromy(b, x, period, **kw)
    D = x.shape[1]
    for _ in range(newton):
        # (J − I) δ = −(F^n(x) − x); the D − LM zero multipliers of the stored state keep J − I invertible
        delta = np.linalg.solve(J - np.eye(D), -(fx - x)[..., None])[..., 0]
        ok = np.all(np.isfinite(delta), axis=1)
        x = np.where(ok[:, None], x + np.where(ok[:, None], delta, 0.0), x)
        fx, J = monodromy(b, x, period, **kw)
    residual = np.max(np.abs(fx - x), axis=1)
    periodic = residual <= tol
    mu = np.linalg.eigvals(J)
    order = np.argsort(-np.abs(mu), axis=1, kind="stable")
    mu = np.take_along_axis(mu, order, axis=1)[:, :state_dimension(model)]
    mu[~periodic] = np.nan
    return FloquetResult(b, period, mu, residual, periodic, x)


def neimark_sacker(result: FloquetResult) -> dict:
    """Where the leading multipliers cross |μ| = 1 as a complex pair, between neighbouring grid points.

    Linear interpolation of ``|μ_1| − 1`` between the last β inside and the first β outside the unit
    circle. Returns ``{"beta": β_NS, "angle": θ (radians, in [0, π]), "rotation": θ/2π, "modulus_below",
    "modulus_above", "complex": whether the crossing pair is complex}``; ``beta`` NaN if no crossing.
    """
    if not isinstance(result, FloquetResult):
        raise TypeError(f"result must be a FloquetResult (floquet_multipliers' output); got {type(result).__name__}")
    result._check()   # fields changed since construction
    b, mod = result.betas, result.modulus
    mu = result.multipliers[:, 0]
    ok = np.isfinite(mod)
    out = {"beta": float("nan"), "angle": float("nan"), "rotation": float("nan"), "complex": False,
           "modulus_below": float("nan"), "modulus_above": float("nan")}
    for i in range(b.size - 1):
        if ok[i] and ok[i + 1] and mod[i] < 1 <= mod[i + 1]:
            w = (1 - mod[i]) / (mod[i + 1] - mod[i])
            ang = (1 - w) * abs(np.angle(mu[i])) + w * abs(np.angle(mu[i + 1]))
            out.update(beta=float(b[i] + w * (b[i + 1] - b[i])), angle=float(ang), rotation=float(ang / (2 * np.pi)),
                       complex=bool(abs(mu[i].imag) > 1e-9 and abs(mu[i + 1].imag) > 1e-9),
                       modulus_below=float(mod[i]), modulus_above=float(mod[i + 1]))
            break
    return out
