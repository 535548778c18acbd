"""Rotation numbers of the stroboscopic map, mode locking and Arnold tongues.

The positional encoding forces the mean-field map with period L, so the natural Poincaré map is
**stroboscopic**: every L-th state, at a fixed phase ``t ≡ phase (mod L)``. A period-L orbit is a fixed
point of it; a torus of the forced map is an invariant circle, on which the stroboscopic map acts like a
circle map with a **rotation number** ρ, the mean fraction of a turn per iterate; a periodic window of
period ``qL`` is a q-cycle locked at a rational ``ρ = p/q`` (a plateau of the devil's staircase ρ(β)).

We measure ρ on the stroboscopic points of ``m^o`` (a 3-d projection of the L M-dimensional state): the
angle of each point about the points' centroid in their principal plane (first two principal axes), the
increments wrapped to (−π, π], averaged: ``ρ = |<Δθ>| / 2π`` in [0, 1/2] (the plane has no preferred
orientation, so ρ and 1 − ρ are not told apart, as for the angle ±θ of a complex Floquet pair). This is the
rotation number of the circle map wherever the invariant circle winds once around its centroid in that plane
(true near its birth from the Neimark-Sacker bifurcation, where ρ → θ_NS / 2π). On chaotic orbits it is the
mean angular speed, not a topological invariant.

Arnold tongues: ε, the paper's positional weight (``m^x_t = (1-ε) s^x(A_{t-1}) + ε π^x(t mod L)``) is the
**amplitude of the periodic forcing** (at ε = 0 the map is autonomous: the softmax over the window does not
know the slots' order); a (β, ε) grid of ρ shows the locked regions as tongues.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..companion.checks import check_array, check_grid, check_int, check_real, contract
from .diagnostics import _one_per_row
from .engine import _grid, _steps, simulate
from .model import MeanFieldModel, load_context, paper_model

__all__ = ["RotationResult", "stroboscopic_points", "rotation_number", "locked_fraction", "arnold_tongues", "plateaus",
           "cycle_fraction", "tongue_widths",
           "MAX_GAP", "miss_share", "section_resolution",
           "compare_sections"]


@dataclass
class RotationResult:
    """Output of :func:`rotation_number` (all (B,)).

    rho : rotation number in [0, 1/2]; NaN where the stroboscopic orbit is a fixed point (a period-L orbit)
        or still converging to one (RMS radius of the last quarter of the points < half that of the first).
    distinct : distinct stroboscopic points in the last half of them (to ``1e-7``, capped at ``cap``): q for a
        locked q-cycle.
    radius : RMS distance of the stroboscopic points from their centroid.
    betas, epsilon, gamma : the grid.
    lyapunov : λ_max of each orbit over the same steps (None unless asked for): a locked window is a periodic
        orbit, so it needs λ_max < 0 (:func:`cycle_fraction`).
    """

    betas: np.ndarray
    gamma: np.ndarray
    epsilon: np.ndarray
    rho: np.ndarray
    distinct: np.ndarray
    radius: np.ndarray
    cap: int
    lyapunov: np.ndarray | None = None

    def __post_init__(self):
        """A result built by hand must hold one value per grid point and ρ in [0, 1/2] (cheap: shapes and ranges)."""
        shape = np.shape(self.betas)
        if len(shape) not in (1, 2) or 0 in shape:
            raise ValueError(f"betas must be a non-empty grid, 1-d (a staircase) or 2-d (ε rows × β columns, Arnold "
                             f"tongues); got shape {shape}")
        for name in ("gamma", "epsilon", "rho", "distinct", "radius", "lyapunov"):
            value = getattr(self, name)
            if value is None and name in ("gamma", "epsilon", "lyapunov"):
                continue
            if np.shape(value) != shape:
                raise ValueError(f"{name} must have the shape of betas {shape} (one value per grid point); got "
                                 f"{np.shape(value)}")
        check_int("cap", self.cap, 1)
        rho = check_array("rho", self.rho, finite=False)
        known = rho[~np.isnan(rho)]
        if known.size and not (known.min() >= 0.0 and known.max() <= 0.5 + 1e-9):
            raise ValueError(f"rho must hold rotation numbers in [0, 1/2] (NaN where none); got "
                             f"{(known.min() if known.min() < 0 else known.max()).item()!r}")
        radius = check_array("radius", self.radius, finite=False)
        if radius.size and (radius < 0).any():   # an RMS distance: never negative
            raise ValueError(f"radius must hold RMS distances (>= 0) of the stroboscopic points from their centroid; "
                             f"got {radius[radius < 0].min().item()!r}")
        distinct = check_array("distinct", self.distinct, integer=True)
        if distinct.size and (distinct.min() < 1 or distinct.max() > self.cap):
            raise ValueError(f"distinct must hold counts of stroboscopic points in [1, cap] = [1, {self.cap}]; got "
                             f"{(distinct.min() if distinct.min() < 1 else distinct.max()).item()!r}")

    @property
    def locked(self) -> np.ndarray:
        """(B,) bool: the stroboscopic orbit is a q-cycle with 2 <= q < cap (a periodic window)."""
        return (self.distinct >= 2) & (self.distinct < self.cap)


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", phase="int:0",
          alloc=lambda a: [("steps", 8 * 12 * np.size(a["betas"]) * (a["steps"] - a["transient"]) // 4)])
def stroboscopic_points(betas, steps: int = 20_000, transient: int = 10_000, init: Any = "token", *,
                        phase: int = 0, gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None,
                        backend: str = "numpy", device=None, lyapunov: bool = False):
    """``m^o_t`` at ``t ≡ phase (mod L)``, ``transient <= t < steps``: (B, n, M), collected block by block; with
    ``lyapunov`` also λ_max over the same steps: ``(points, λ (B,))``."""
    model = model or paper_model()
    L = model.context_size
    check_int("phase", phase, 0, L - 1)
    _steps(steps, transient)
    first = transient + (phase - transient) % L
    n = max(0, (steps - 1 - first) // L + 1)
    if n < 3:
        raise ValueError(f"steps - transient must leave at least 3 stroboscopic points (every L = {L}-th step); "
                         f"got steps={steps}, transient={transient}")
    b, g, e = _grid(betas, gamma, epsilon)
    out = np.empty((b.size, n, model.num_features))

    def keep(t0, blk):  # blk (nb, M, B): steps t0 .. t0 + nb - 1
        ts = np.arange(t0, t0 + blk.shape[0])
        sel = (ts >= first) & ((ts - first) % L == 0)
        if sel.any():
            idx = (ts[sel] - first) // L
            out[:, idx] = blk[sel].transpose(2, 0, 1)

    res = simulate(b, steps, transient, init, gamma=g, epsilon=e, model=model, backend=backend, device=device,
                   save=False, block_callback=keep, lyapunov=lyapunov)
    return (out, res.lyapunov) if lyapunov else out


def _rotation_of_points(x: np.ndarray, cap: int):
    """ρ, distinct count and radius of each row of stroboscopic points x (B, n, M)."""
    B = x.shape[0]
    c = x - x.mean(axis=1, keepdims=True)
    radius = np.sqrt((c ** 2).sum(-1).mean(1))
    cov = np.einsum("bni,bnj->bij", c, c) / x.shape[1]
    _, vec = np.linalg.eigh(cov)  # ascending: the last two columns span the principal plane
    u = np.einsum("bni,bi->bn", c, vec[:, :, -1])
    v = np.einsum("bni,bi->bn", c, vec[:, :, -2])
    theta = np.arctan2(v, u)
    d = np.angle(np.exp(1j * np.diff(theta, axis=1)))  # wrapped to (−π, π]
    rho = np.abs(d.mean(1)) / (2 * np.pi)
    # counted on the last half of the points: a cycle still converging (λ_max < 0 but near 0, as next to a window's
    # edge) carries its transient in the first ones, and is a cycle of q points only in the last
    rounded = np.round(x[:, x.shape[1] // 2:] / 1e-7).astype(np.int64)
    distinct = np.array([min(np.unique(r, axis=0).shape[0], cap) for r in rounded])
    # A fixed point of the stroboscopic map (a period-L orbit) has no angle; an orbit still spiralling into
    # one (near the Neimark-Sacker point, |μ| ≈ 1) shows the Floquet angle, not a rotation number: both NaN.
    q = max(x.shape[1] // 4, 1)
    r_first = np.sqrt((c[:, :q] ** 2).sum(-1).mean(1))
    r_last = np.sqrt((c[:, -q:] ** 2).sum(-1).mean(1))
    rho[(radius < 1e-9) | (r_last < 0.5 * r_first)] = np.nan
    return rho, distinct, radius


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", phase="int:0",
          cap="int:1", chunk_size="int:1")
def rotation_number(betas, steps: int = 20_000, transient: int = 10_000, init: Any = "token", *, phase: int = 0,
                    gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                    device=None, cap: int = 200, chunk_size: int = 1000, lyapunov: bool = False) -> RotationResult:
    """The stroboscopic rotation number ρ(β) (and distinct-point count, radius) for a grid, in β chunks.

    Arguments as :func:`~mfattn.dynamics.engine.simulate`; γ and ε may be (B,) arrays (for Arnold tongues).
    ``init`` is ``"token"`` or one context shared by the grid. ``cap`` bounds the distinct-point count
    (orbits with ``cap`` or more are not locked at a small q); ``lyapunov`` also computes λ_max (needed to label
    plateaus, :func:`plateaus`). Returns :class:`RotationResult`.
    """
    check_int("cap", cap, 3)
    check_int("chunk_size", chunk_size, 1)
    b, g, e = _grid(betas, gamma, epsilon)
    if isinstance(init, (str, Path)) and str(init) != "token" and str(init).endswith(".npz"):
        init = load_context(init)   # (simulate reads a path the same way; read here to see whether it is batched)
    if isinstance(init, Mapping) and "att_window" in init and np.ndim(init["att_window"]) != 1:
        raise ValueError(f"init must be one context shared by the grid (att_window of shape (M,)), not a batched one "
                         f"(the grid runs in chunks of β); got att_window of shape {np.shape(init['att_window'])}")
    parts, lams = [], []
    for s in range(0, b.size, chunk_size):
        sl = slice(s, s + chunk_size)
        x = stroboscopic_points(b[sl], steps, transient, init, phase=phase, gamma=g[sl], epsilon=e[sl], model=model,
                                backend=backend, device=device, lyapunov=lyapunov)
        if lyapunov:
            x, lam = x
            lams.append(lam)
        parts.append(_rotation_of_points(x, cap))
    rho, distinct, radius = (np.concatenate(p) for p in zip(*parts))
    return RotationResult(b, g, e, rho, distinct, radius, cap, np.concatenate(lams) if lyapunov else None)


@contract(rho="real", max_q="int:1", tol="real:>0")
def locked_fraction(rho: float, max_q: int = 30, tol: float = 1e-4) -> Fraction | None:
    """The fraction p/q (q <= max_q) within ``tol`` of ρ, or None: the label of a mode-locked plateau.

    ``rho`` is a rotation number of this module, in [0, 1/2]; anything outside is refused."""
    check_real("rho", rho, minimum=0.0, maximum=0.5)
    check_int("max_q", max_q, 1)
    check_real("tol", tol, minimum=0.0, strict=True)
    if not np.isfinite(rho):
        return None
    f = Fraction(float(rho)).limit_denominator(max_q)
    return f if abs(float(f) - rho) <= tol else None


@contract(betas="reals", epsilons="reals", steps="int:1", transient="int:0", gamma="realarr", cap="int:1")
def arnold_tongues(betas, epsilons, steps: int = 8000, transient: int = 4000, *, gamma=220.0,
                   model: MeanFieldModel | None = None, backend: str = "numpy", device=None,
                   cap: int = 200, lyapunov: bool = False) -> RotationResult:
    """ρ over the (ε, β) plane from the token: one batched run of ``len(epsilons) × len(betas)`` points.

    Returns a :class:`RotationResult` whose arrays have shape (len(epsilons), len(betas)).
    """
    b = check_grid("betas", betas, minimum=0.0)
    eps = check_grid("epsilons", epsilons, minimum=0.0)
    if np.any(eps > 1):
        raise ValueError("epsilons must lie in [0, 1] (ε is a weight)")
    BB, EE = np.meshgrid(b, eps)
    r = rotation_number(BB.ravel(), steps, transient, "token", gamma=gamma, epsilon=EE.ravel(), model=model,
                        backend=backend, device=device, cap=cap, lyapunov=lyapunov)
    shape = BB.shape
    return RotationResult(BB, np.broadcast_to(r.gamma, BB.size).reshape(shape), EE, r.rho.reshape(shape),
                          r.distinct.reshape(shape), r.radius.reshape(shape), cap,
                          None if r.lyapunov is None else r.lyapunov.reshape(shape))


#: Default of ``max_gap`` (grid points) in :func:`plateaus`: inside a window, short chaotic bands (λ > 0) or orbits
#: still converging (more stroboscopic points than the cycle has) interrupt the locked points; gaps of up to this
#: many unlabelled grid points between two runs of one fraction are bridged (never a point of another fraction).
MAX_GAP = 4


def cycle_fraction(result: RotationResult, rho_tol: float = 1e-3) -> list[Fraction | None]:
    """The locked fraction p/q of each grid point of a 1-d staircase, or None where the orbit is not locked.

    A point is locked when its orbit is periodic: finitely many stroboscopic points (q = ``distinct``, 2 <= q <
    ``cap``: period q L), λ_max < 0 (``result.lyapunov``), and ρ within ``rho_tol`` of p/q with p = round(ρ q)
    (the mean turn per iterate of a q-cycle is p/q up to the O(1/n) end effect of n iterates; a cycle that does not
    wind about its centroid fails it). The fraction is reduced: a period-doubled 2/7 cycle (14 points, ρ = 4/14) is
    labelled 2/7, the plateau it belongs to. A ρ near p/q alone is not locking: a torus with irrational ρ passes
    within any tolerance of every fraction. A point whose ρ is not finite (no rotation was measured there) is not
    locked either: None.

    An Arnold-tongue grid (2-d, :func:`arnold_tongues`) is read flattened in row order, one label per grid point, as
    :func:`tongue_widths` reads it.
    """
    check_real("rho_tol", rho_tol, minimum=0.0, strict=True)
    if result.lyapunov is None:
        raise ValueError("result must hold λ_max (rotation_number(..., lyapunov=True)): a locked window is a periodic "
                         "orbit, λ_max < 0, not only a rotation number near a fraction")
    out: list[Fraction | None] = []
    for rho, q, lam in zip(np.ravel(result.rho), np.ravel(result.distinct), np.ravel(result.lyapunov)):
        q = int(q)
        if not (2 <= q < result.cap and lam < 0 and np.isfinite(rho)):
            out.append(None)
            continue
        p = int(round(rho * q))
        out.append(Fraction(p, q) if abs(rho - p / q) <= rho_tol else None)
    return out


@contract(max_gap="int:0", min_points="int:1", rho_tol="real:>0")
def plateaus(result: RotationResult, max_gap: int = MAX_GAP, min_points: int = 1, rho_tol: float = 1e-3) -> list[dict]:
    """Mode-locked plateaus of a 1-d staircase: runs of neighbouring grid points locked at one fraction p/q
    (:func:`cycle_fraction`: periodic orbits with q stroboscopic points, λ_max < 0), each at least ``min_points``
    long, then **merged**: two runs of the same fraction separated by at most ``max_gap`` grid points, none of
    which is locked at another fraction, are one plateau (defaults: :data:`MAX_GAP`). A gap holding a point of
    another fraction is never bridged, whatever its length.

    Returns ``[{"fraction": "p/q", "rho", "beta_lo", "beta_hi", "width", "points", "runs", "strobe_cycles",
    "lambda_max"}]`` in β order: ``width = beta_hi - beta_lo``; ``points`` the locked grid points inside, ``runs``
    how many runs were merged; ``strobe_cycles`` the distinct-point counts at those points (q, 2q, 4q after period
    doublings); ``lambda_max`` the largest λ_max over them (< 0).
    """
    if not isinstance(result, RotationResult):
        raise TypeError(f"result must be a RotationResult (rotation_number's output); got {type(result).__name__}")
    check_int("max_gap", max_gap, 0)
    check_int("min_points", min_points, 1)
    b = np.asarray(result.betas)
    if b.ndim != 1:
        raise ValueError("result must be a 1-d staircase (from rotation_number), not an Arnold-tongue grid")
    labels = cycle_fraction(result, rho_tol)
    runs, i = [], 0  # (first, last) grid index of each run of one fraction, at least min_points long
    while i < b.size:
        j = i
        while j + 1 < b.size and labels[j + 1] == labels[i]:
            j += 1
        if labels[i] is not None and j - i + 1 >= min_points:
            runs.append([i, j])
        i = j + 1
    merged = []
    for lo, hi in runs:
        if merged:
            prev = merged[-1]
            gap = labels[prev[1] + 1:lo]
            if labels[lo] == labels[prev[0]] and len(gap) <= max_gap and all(g in (None, labels[lo]) for g in gap):
                prev[1], prev[2] = hi, prev[2] + 1
                continue
        merged.append([lo, hi, 1])
    out = []
    for lo, hi, n in merged:
        f = labels[lo]
        on = [k for k in range(lo, hi + 1) if labels[k] == f]
        out.append({"fraction": f"{f.numerator}/{f.denominator}", "rho": float(f), "beta_lo": float(b[lo]),
                    "beta_hi": float(b[hi]), "width": float(b[hi] - b[lo]), "points": len(on), "runs": n,
                    "strobe_cycles": sorted({int(result.distinct[k]) for k in on}),
                    "lambda_max": float(max(result.lyapunov[k] for k in on))})
    return out


def tongue_widths(tongues: RotationResult, rho_tol: float = 1e-3) -> dict[str, list[int]]:
    """The width of each locked region of an Arnold-tongue grid (from :func:`arnold_tongues` with
    ``lyapunov=True``) in each ε row: ``{"p/q": [grid points locked at p/q in row ε_0, ε_1, ...]}``, fractions with
    q >= 2 (:func:`cycle_fraction`: periodic orbits, λ_max < 0), ordered by their widest row. Multiply by the β grid
    step for a width in β."""
    if np.ndim(tongues.betas) != 2:
        raise ValueError("tongues must be an Arnold-tongue grid (from arnold_tongues), rows ε and columns β")
    labels = np.array(cycle_fraction(tongues, rho_tol), dtype=object).reshape(np.shape(tongues.betas))
    found = sorted({f for f in labels.ravel() if f is not None}, key=lambda f: (f.denominator, f.numerator))
    widths = {f"{f.numerator}/{f.denominator}": [int((row == f).sum()) for row in labels] for f in found}
    return dict(sorted(widths.items(), key=lambda kv: -max(kv[1])))


# ----------------------------------------------------------------------------------------------------------
# Comparing attractors from dense stroboscopic sections
# ----------------------------------------------------------------------------------------------------------
def _voxel_keys(x: np.ndarray, h: float, origin: np.ndarray) -> np.ndarray:
    """Integer voxel index of each point of x (n, 3) on a grid of side h from origin, as one int64 key."""
    i = np.floor((x - origin) / h).astype(np.int64)  # >= 1 (origin lies one voxel below every point)
    return (i[:, 0] * 2 ** 21 + i[:, 1]) * 2 ** 21 + i[:, 2]


_OFFSETS = np.array([(a * 2 ** 21 + b) * 2 ** 21 + c for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)])


@contract(a="array:2", b="array:2", h="real:>0")
def miss_share(a: np.ndarray, b: np.ndarray, h: float) -> float:
    """Share of the points of ``a`` (n, 3) farther than one voxel of side ``h`` from every point of ``b``: no point
    of b in the 3×3×3 voxels around a's voxel (so certainly farther than h, and closer than 2√3 h where found).
    Needs ``h`` >= span(b) / 2^20 (the voxel keys pack three 21-bit indices)."""
    for name, x in (("a", a), ("b", b)):
        if np.shape(x)[1] != 3 or len(x) == 0:
            raise ValueError(f"{name} must be a non-empty set of points in 3 coordinates, shape (n, 3); got shape "
                             f"{np.shape(x)}")
    if h <= 0 or np.ptp(b, axis=0).max() / h > 2 ** 20:
        raise ValueError(f"h must be positive and at least the span of b / 2^20; got {h!r}")
    lo, hi = b.min(0) - h, b.max(0) + h
    inside = np.all((a >= lo) & (a <= hi), axis=1)  # a point outside b's box grown by h is certainly a miss
    origin = lo - h
    kb = np.unique(_voxel_keys(b, h, origin))
    ka = np.sort(_voxel_keys(a[inside], h, origin))  # sorted: each row of queries below is sorted (fast search)
    k = ka[None, :] + _OFFSETS[:, None]  # (27, n): the voxels around each point
    pos = np.minimum(np.searchsorted(kb, k), kb.size - 1)
    near = (kb[pos] == k).any(axis=0)
    return float(1.0 - near.sum() / len(a))


@contract(x="array", share="real:(0,1)", levels="int:1")
def section_resolution(x: np.ndarray, share: float = 0.01, levels: int = 20) -> float:
    """The resolution of a sampled section x (n, 3): the smallest voxel side h (halving from the section's span) at
    which two random halves of its points (a fixed split) each see the other within one voxel, all but a share
    ``share`` of them. Two samples of one attractor look the same at this h; a finer h resolves only the sampling.
    (Random halves, not even and odd points: near ρ = p/q those lie on different arcs of one circle.) Found by
    bisection over h = span / 2^k, k <= ``levels`` (the misses grow as h shrinks)."""
    if np.ndim(x) != 2 or np.shape(x)[1] != 3 or len(x) < 2:
        raise ValueError(f"x must be a section of at least 2 points in 3 coordinates, shape (n, 3) (two halves are "
                         f"compared); got shape {np.shape(x)}")
    span = float(np.ptp(x, axis=0).max())
    if span == 0:
        return 0.0
    half = np.random.default_rng(0).permutation(len(x)) < len(x) // 2
    a, b = x[half], x[~half]
    ok = lambda k: max(miss_share(a, b, span / 2 ** k), miss_share(b, a, span / 2 ** k)) <= share  # noqa: E731
    lo, hi = 0, levels + 1  # ok(lo) holds (one voxel holds everything); ok(hi) is not tried
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return span / 2 ** lo


@contract(sections_a="array:3", sections_b="array:3", period_a="intarray", period_b="intarray", lyapunov_a="array:1?",
          lyapunov_b="array:1?", share="real:[0,1]", rho_tol="real:>=0", cap="int:2", atol="real:>=0")
def compare_sections(sections_a, sections_b, period_a, period_b, lyapunov_a=None, lyapunov_b=None, *,
                     share: float = 0.05, rho_tol: float = 1e-3, cap: int = 200,
                     atol: float = 1e-6) -> dict[str, np.ndarray]:
    """Whether, per β, two runs reached different attractors, from dense stroboscopic sections (B, K, M) (K >= 10⁴
    points at the paper's scale: fewer leave a torus with ρ near p/q sampled as q arcs that move from one window to
    the next, and two samples of one circle look like two).

    Two attractors differ when their periods differ (0 = none found); or, at the resolution h of the sections
    (:func:`section_resolution`, the larger of the two; ``atol`` for two cycles of one period), when more than ``share`` of either's points lie farther than
    one voxel of side h from the other (:func:`miss_share`; h is at least ``atol``, the float32 precision of stored
    sections), or, both without a period, their RMS radii about their centroids differ by more than h (a cycle's
    radius depends on where the saved window cuts it); or, where both are tori (no period, |λ_max| <= 1e-3, given ``lyapunov_*``), when their rotation numbers
    differ by more than ``rho_tol`` (the mean turn per iterate over K >= 10⁴ iterates is good to ~1/K).
    Returns ``{"differ", "miss", "resolution", "radius_a", "radius_b", "rho_a", "rho_b"}``, each (B,).
    """
    check_real("share", share, minimum=0.0, maximum=1.0)
    check_real("rho_tol", rho_tol, minimum=0.0)
    check_real("atol", atol, minimum=0.0)
    A, Bs = np.asarray(sections_a, dtype=np.float64), np.asarray(sections_b, dtype=np.float64)
    if A.ndim != 3 or A.shape[0] != Bs.shape[0] or A.shape[2] != Bs.shape[2] or A.shape[2] != 3:
        raise ValueError(f"sections_a and sections_b must be (B, K, 3) with the same B; got {A.shape}, {Bs.shape}")
    n = A.shape[0]
    if (lyapunov_a is None) != (lyapunov_b is None):
        raise ValueError(f"lyapunov_a and lyapunov_b must be given together (the tori test needs both runs' λ_max); got "
                         f"lyapunov_{'a' if lyapunov_b is None else 'b'} alone")
    _one_per_row(n, {"period_a": period_a, "period_b": period_b, **(
        {} if lyapunov_a is None else {"lyapunov_a": lyapunov_a, "lyapunov_b": lyapunov_b})})
    pa, pb = np.asarray(period_a), np.asarray(period_b)
    rho_a, _, rad_a = _rotation_of_points(A, cap)
    rho_b, _, rad_b = _rotation_of_points(Bs, cap)
    miss, res = np.zeros(n), np.zeros(n)
    for i in range(n):
        if pa[i] != pb[i]:
            continue  # different periods: different attractors, nothing to measure
        # a cycle's section is its few points: compared at the float32 floor; other sections at their resolution
        res[i] = atol if pa[i] > 0 else max(section_resolution(A[i]), section_resolution(Bs[i]), atol)
        if res[i] > 0:
            miss[i] = max(miss_share(A[i], Bs[i], res[i]) if np.ptp(Bs[i], 0).max() <= res[i] * 2 ** 20 else 1.0,
                          miss_share(Bs[i], A[i], res[i]) if np.ptp(A[i], 0).max() <= res[i] * 2 ** 20 else 1.0)
        else:  # both fixed points: the same only where they coincide
            miss[i] = float(np.abs(A[i, 0] - Bs[i, 0]).max() > 1e-9)
    differ = (pa != pb) | (miss > share) | ((pa == 0) & (pb == 0) & (np.abs(rad_a - rad_b) > res))
    if lyapunov_a is not None and lyapunov_b is not None:
        tori = (pa == 0) & (pb == 0) & (np.abs(lyapunov_a) <= 1e-3) & (np.abs(lyapunov_b) <= 1e-3)
        both = tori & np.isfinite(rho_a) & np.isfinite(rho_b)
        differ |= both & (np.abs(np.nan_to_num(rho_a) - np.nan_to_num(rho_b)) > rho_tol)
    return {"differ": differ, "miss": miss, "resolution": res, "radius_a": rad_a, "radius_b": rad_b,
            "rho_a": rho_a, "rho_b": rho_b}
