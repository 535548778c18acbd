"""Orbit diagnostics of the mean-field map: the paper's bin rule, periods, sections, spectra.

All functions take saved trajectories of ``m^o`` (``(B, T, M)`` or ``(T, M)``) or series ``(T,)``.
The paper (Poc-López & Aguilera 2024, for Fig. 3) classifies an orbit by how many of 5001 bins over
``[−max|m^o|, max|m^o|]`` its saved ``m^o_1`` values occupy (:func:`bin_counts`, :func:`classify`);
:func:`section_band` is its section ``|m^o_2| <= 10^{-3}``. The map is forced with period L by the
positional code, so the section that consists of points of the attractor is the stroboscopic one
(:func:`stroboscopic_section`: every L-th state at a fixed phase); :func:`poincare_section`
interpolates between successive iterates, i.e. it returns points on chords, not on the attractor.
:func:`bin_count_bounds` brackets the paper's exact bin count from the fine levels a sweep keeps,
:func:`confusion` tabulates the bin rule against (period found, sign of λ), :func:`envelope_decay_time`
measures how long the autocorrelation's envelope takes to fall, and :func:`attractor_distance`
compares two attractors as sets of stroboscopic points.
"""

from __future__ import annotations

import numpy as np

from ..companion.checks import check_array, check_int, check_real, contract

__all__ = ["CLASS_NAMES", "ORBIT_NAMES", "quantize", "bin_counts", "bin_count_bounds", "classify", "confusion",
           "orbit_period", "section_band", "stroboscopic_section", "poincare_section", "power_spectrum",
           "autocorrelation", "envelope_decay_time", "attractor_distance", "compare_attractors", "island_count"]

CLASS_NAMES = ("periodic", "quasi-periodic", "chaotic")
#: Columns of :func:`confusion`: what the orbit is by its period and its largest Lyapunov exponent.
ORBIT_NAMES = ("period found", "no period, λ ≤ tol", "no period, λ > tol")


def _orbits(m_o, name: str = "m_o") -> np.ndarray:
    """``m_o`` as a (B, T, M) float array (a (T, M) trajectory gets B = 1); else a clear error."""
    try:
        x = np.asarray(m_o, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers of shape (B, T, M) or (T, M)") from None
    if x.ndim == 2:
        x = x[None]
    if x.ndim != 3 or x.shape[1] < 2:
        raise ValueError(f"{name} must have shape (B, T, M) or (T, M) with T >= 2 steps; got {np.shape(m_o)}")
    return x


def _one_per_row(B: int, arrays: dict[str, object]) -> None:
    """Each of ``arrays`` (name -> array) holds one entry per β, shape (B,); else one ValueError naming it."""
    for name, value in arrays.items():
        if np.shape(value) != (B,):
            raise ValueError(f"{name} must have shape ({B},), one entry per β of the sections; got {np.shape(value)}")


def _feature(name: str, value, M: int) -> int:
    return check_int(name, value, 0, M - 1)


@contract(values="array", max_y="real:>0", bins="int:1")
def quantize(values: np.ndarray, max_y: float, bins: int = 5001) -> np.ndarray:
    """The paper's bin index of each value: ``int(bins (v/max_y + 1)/2)``.

    Values are not clipped: ``v = max_y`` itself gives ``bins``, and values beyond ``±max_y`` give indices outside
    ``[0, bins]`` (:func:`bin_count_bounds` quantizes level edges that lie a rounding beyond the scale);
    :func:`bin_counts` refuses values beyond ``max_y``."""
    if not max_y > 0:
        raise ValueError(f"max_y must be positive; got {max_y!r}")
    index = bins * (np.asarray(values) / max_y + 1) / 2
    if index.size and not np.abs(index).max() < 2.0 ** 63:   # an int64 cast would wrap around silently
        raise ValueError(f"bins ({bins!r}) and values (up to {float(np.abs(np.asarray(values)).max())!r} against max_y = "
                         f"{max_y!r}) must give bin indices that fit in int64 (below 2**63); got up to "
                         f"{float(np.abs(index).max())!r}")
    return index.astype(np.int64)


@contract(m1="array", max_y="real:>0?", bins="int:1", alloc=lambda a: [("bins", 8 * a["bins"])])
def bin_counts(m1: np.ndarray, max_y: float | None = None, bins: int = 5001) -> np.ndarray:
    """Number of distinct bins (of ``bins`` over [−max_y, max_y]) that each row's values occupy.

    m1 : (B, T) samples of m^o_1 after the transient. max_y : the paper's scale, ``max(|min|, |max|)`` of the
    saved m^o (all features, all β) of the whole diagram; it is required, since the rows passed are rarely the
    whole diagram (:attr:`mfattn.dynamics.sweep.SweepResult.max_y` gives it for a sweep), so no value lies beyond it
    (a ``max_y`` below ``max |m1|`` is refused). Returns (B,) int.
    """
    check_int("bins", bins, 2)
    m1 = np.asarray(m1, dtype=np.float64)
    if m1.ndim != 2:
        raise ValueError(f"m1 must have shape (B, T) (one row of m^o_1 samples per β); got {m1.shape}")
    if max_y is None:
        raise ValueError("max_y must be given: the paper's bin scale is the largest m^o of the whole diagram "
                         "(all features, all β), not of the rows passed")
    top = float(np.abs(m1).max()) if m1.size else 0.0
    if top > max_y:   # the scale is the largest |m^o| of the whole diagram: no value lies beyond it
        raise ValueError(f"max_y ({max_y!r}) must cover the values: the bins span [-max_y, max_y] and the largest "
                         f"|m1| is {top!r}")
    q = np.sort(quantize(m1, max_y, bins), axis=1)
    return 1 + (np.diff(q, axis=1) != 0).sum(axis=1)


@contract(max_y="real:>0", fine="int:1", bins="int:1")
def bin_count_bounds(levels: list, max_y: float, fine: int, bins: int = 5001) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the paper's bin count per β from the distinct fine levels of m^o_1.

    levels : list of B integer arrays, the distinct levels ``l = floor((v + 1)/2 · fine)`` of the saved
    values v (a level covers [−1 + 2l/fine, −1 + 2(l+1)/fine), widened by one ulp at each end for the rounding
    of ``(v + 1)/2 · fine``). A level lying inside one paper bin (``quantize``) certainly occupies it; a level
    straddling a bin edge occupies one or both of its two bins. So the exact count lies in [bins of the levels inside one bin ∪ nothing, bins of all level
    edges]: ``lo <= exact <= hi``, with equality where no occupied level straddles an edge. Needs
    paper bins wider than a fine level (2 max_y / bins > 2 / fine). Returns (lo, hi), each (B,) int.
    """
    check_int("bins", bins, 2)
    check_int("fine", fine, 2)
    check_real("max_y", max_y, minimum=0.0, strict=True)
    if isinstance(levels, (str, bytes)) or not hasattr(levels, "__len__"):
        raise TypeError(f"levels must be a list of B integer arrays (the distinct fine levels per β); got "
                        f"{type(levels).__name__}")
    for i, lv in enumerate(levels):
        if isinstance(lv, (str, bytes)):
            raise TypeError(f"levels[{i}] must be an array of integer levels; got a string")
        try:
            arr = np.asarray(lv)
        except (TypeError, ValueError):
            raise TypeError(f"levels[{i}] must be an array of integer levels; got {type(lv).__name__}") from None
        if arr.ndim != 1:   # one level array (not a list of them) gave 0-d items that np.concatenate refused
            raise ValueError(f"levels[{i}] must be a 1-d array of levels (levels: one such array per β); got "
                             f"{arr.ndim}-d")
        if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not np.all(np.isfinite(arr))):
            raise TypeError(f"levels[{i}] must be an array of finite integer levels; got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and not np.all(arr == np.floor(arr)):
            raise ValueError(f"levels[{i}] must hold whole numbers (fine levels); got "
                             f"{arr[arr != np.floor(arr)][0].item()!r}")
        if arr.size and (arr.min() < 0 or arr.max() >= fine):
            raise ValueError(f"levels[{i}] must hold levels in [0, fine - 1] = [0, {fine - 1}]; got "
                             f"{(arr.min() if arr.min() < 0 else arr.max()).item()!r}")
    if 2 * max_y / bins <= 2 / fine:
        raise ValueError(f"max_y ({max_y}) too small for fine levels ({fine}): a paper bin must be wider than a level")
    lo = np.empty(len(levels), dtype=np.int64)
    hi = np.empty(len(levels), dtype=np.int64)
    for i, lv in enumerate(levels):
        lv = np.asarray(lv, dtype=np.int64)
        a = quantize(np.nextafter(lv / fine * 2 - 1, -np.inf), max_y, bins)   # bin of the level's lower edge
        b = quantize(np.nextafter((lv + 1) / fine * 2 - 1, np.inf), max_y, bins)  # of its upper end
        inside = a == b
        lo[i] = np.unique(a[inside]).size
        hi[i] = np.unique(np.concatenate([a, b])).size
    return lo, hi


@contract(classes="intarray", period="intarray", lam="array", tol="real:>=0")
def confusion(classes, period, lam, tol: float = 1e-3) -> np.ndarray:
    """3×3 counts: rows the bin rule (:data:`CLASS_NAMES`), columns :data:`ORBIT_NAMES` (a period found;
    none and λ_max ≤ tol; none and λ_max > tol). ``classes, period, lam`` are (B,)."""
    check_real("tol", tol, minimum=0.0)
    # class indices and periods are whole numbers (a period is >= 0: 0 means none found); λ_max finite
    c, p = check_array("classes", classes, integer=True), check_array("period", period, integer=True)
    lam = check_array("lam", lam, allow_int=True)
    if p.size and p.min() < 0:
        raise ValueError(f"period must hold periods >= 0 (0: none found); got {p.min()!r}")
    if not c.shape == p.shape == lam.shape or c.ndim != 1:
        raise ValueError(f"classes, period and lam must be 1-d of one length; got {c.shape}, {p.shape}, {lam.shape}")
    if c.size and (c.min() < 0 or c.max() >= len(CLASS_NAMES)):
        raise ValueError(f"classes must hold class indices 0, 1, 2 ({', '.join(CLASS_NAMES)}); got "
                         f"{(c.min() if c.min() < 0 else c.max()).item()!r}")
    col = np.where(p > 0, 0, np.where(lam > tol, 2, 1))
    out = np.zeros((3, 3), dtype=np.int64)
    np.add.at(out, (c.astype(np.int64), col), 1)
    return out


@contract(counts="intarray", periodic_below="int:1", chaotic_from="int:1")
def classify(counts, periodic_below: int = 80, chaotic_from: int = 2500) -> np.ndarray:
    """The paper's rule on bin counts: 0 periodic (< 80), 1 quasi-periodic (< 2500), 2 chaotic."""
    check_int("periodic_below", periodic_below, 1)
    check_int("chaotic_from", chaotic_from, 1)
    if chaotic_from <= periodic_below:
        raise ValueError(f"chaotic_from ({chaotic_from}) must exceed periodic_below ({periodic_below})")
    c = np.asarray(counts)
    if c.size and c.min() < 0:
        raise ValueError(f"counts must be bin counts (>= 0); got the entry {c.min().item()!r}")
    return np.where(c < periodic_below, 0, np.where(c < chaotic_from, 1, 2))


@contract(m_o="array", max_period="int:1", tol="real:>=0")
def orbit_period(m_o: np.ndarray, max_period: int = 2000, tol: float = 1e-9) -> np.ndarray:
    """Smallest p with max_t |m_{t+p} − m_t| <= tol over the saved window; 0 where none (B,) int.

    m_o : (B, T, M) or (T, M). Needs T > 2 max_period for a reliable answer.
    """
    check_int("max_period", max_period, 1)
    check_real("tol", tol, minimum=0.0)
    x = _orbits(m_o)
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


@contract(m_o="array", plot="int:0", cut="int:0", width="real:>0")
def section_band(m_o: np.ndarray, plot: int = 0, cut: int = 1, width: float = 1e-3) -> list[np.ndarray]:
    """The paper's section: values of m^o_{plot} at steps where |m^o_{cut}| <= width. List of B arrays."""
    x = _orbits(m_o)
    _feature("plot", plot, x.shape[2]), _feature("cut", cut, x.shape[2])
    check_real("width", width, minimum=0.0, strict=True)
    return [xi[np.abs(xi[:, cut]) <= width, plot] for xi in x]


@contract(m_o="array", period="int:1", phase="int:0", t0="int:0")
def stroboscopic_section(m_o: np.ndarray, period: int = 4, phase: int = 0, t0: int = 0) -> np.ndarray:
    """The stroboscopic section of the period-``period`` forced map: the saved states at steps t with
    ``t ≡ phase (mod period)``, where row 0 of ``m_o`` is step ``t0``. Every point is a state of the
    orbit. m_o : (B, T, M) or (T, M); returns (B, K, M) or (K, M) (K = number of such steps)."""
    x = _orbits(m_o)
    single = np.ndim(m_o) == 2
    check_int("period", period, 1)
    check_int("phase", phase, 0, period - 1)
    check_int("t0", t0, 0)
    first = (phase - t0) % period
    return x[0, first::period] if single else x[:, first::period]


@contract(m_o="array", plot="int:0", cut="int:0")
def poincare_section(m_o: np.ndarray, plot: int = 0, cut: int = 1, direction: int = 1) -> list[np.ndarray]:
    """m^o_{plot} linearly interpolated where m^o_{cut} changes sign (kept for comparison only).

    For a map this is not a Poincaré section: the interpolated points lie on chords between successive
    iterates, not on the attractor (use :func:`stroboscopic_section`).

    ``direction=+1`` keeps upward crossings (m_cut < 0 <= m_cut next), −1 downward. List of B arrays.
    """
    x = _orbits(m_o)
    _feature("plot", plot, x.shape[2]), _feature("cut", cut, x.shape[2])
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (upward crossings) or -1 (downward); got {direction!r}")
    return [_crossings(xi[:, plot], xi[:, cut], direction) for xi in x]


def _crossings(y, z, direction):
    z0, z1 = z[:-1], z[1:]
    idx = np.nonzero((z0 < 0) & (z1 >= 0))[0] if direction > 0 else np.nonzero((z0 > 0) & (z1 <= 0))[0]
    frac = -z0[idx] / (z1[idx] - z0[idx])
    return y[idx] + frac * (y[idx + 1] - y[idx])


@contract(x="array")
def power_spectrum(x: np.ndarray):
    """Power spectrum of a demeaned, Hann-windowed series: (frequencies in cycles/step, power)."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"x must be a 1-d series of at least 2 steps; got shape {x.shape}")
    x = (x - x.mean()) * np.hanning(x.size)
    f = np.fft.rfftfreq(x.size)
    return f, np.abs(np.fft.rfft(x)) ** 2 / x.size


@contract(x="array", max_lag="int:0")
def autocorrelation(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalised autocorrelation ρ(τ), τ = 0..max_lag, of a demeaned series (FFT, unbiased by count). A constant
    series (no fluctuation, e.g. a period-4 orbit once its phase means are removed) gives zeros: no memory, so
    :func:`envelope_decay_time` reads a decay time of 0."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be a 1-d series; got shape {x.shape}")
    check_int("max_lag", max_lag, 0, x.size - 1)
    x = x - np.mean(x)
    n = x.size
    f = np.fft.rfft(x, 2 * n)
    ac = np.fft.irfft(f * np.conj(f))[:max_lag + 1] / (n - np.arange(max_lag + 1))
    return ac / ac[0] if ac[0] > 0 else ac


@contract(x="array", max_lag="int:1", level="real", period="int:1?")
def envelope_decay_time(x: np.ndarray, max_lag: int, level: float = float(np.exp(-1)),
                        period: int | None = None) -> float:
    """Decay time of the autocorrelation's envelope: the smallest lag τ <= ``max_lag`` after which
    |ρ(τ')| < level for every τ' in [τ, 2 max_lag] (the upper envelope ``max_{τ' >= τ} |ρ(τ')|`` crosses
    ``level``; looking up to twice the range keeps one lag where an oscillation passes near zero from
    counting as decay).

    Returns ``inf`` when the envelope stays above ``level`` up to ``max_lag`` (memory longer than the
    window), a float lag otherwise. x : (T,) series with T > 4 max_lag (so that ρ is read only up to half the
    series, where each lag still averages over T/2 pairs or more). ``period`` (optional): subtract first the
    mean of each phase ``t mod period`` (the response locked to a periodic forcing, here the positional code,
    which is not a memory of the past and would otherwise hold ρ at a plateau); at most half the series, so each
    phase holds two values or more.
    """
    check_real("level", level, minimum=0.0, maximum=1.0, strict=True)   # |ρ| <= 1: a level above 1 is crossed at once
    x = np.asarray(x, dtype=np.float64)
    check_int("max_lag", max_lag, 0, max(0, (x.size - 1) // 4))
    if period is not None:   # each phase needs two values or more for its mean to be removed
        check_int("period", period, 1, max(1, x.size // 2))
        x = x.copy()
        for ph in range(period):
            x[ph::period] -= x[ph::period].mean()
    ac = np.abs(autocorrelation(x, 2 * max_lag))
    env = np.maximum.accumulate(ac[::-1])[::-1][:max_lag + 1]
    below = np.nonzero(env < level)[0]
    return float(below[0]) if below.size else float("inf")


@contract(a="array", b="array", q="real:[0,1]")
def attractor_distance(a: np.ndarray, b: np.ndarray, q: float = 0.9) -> tuple[float, float]:
    """Distance between two attractors given as point sets (e.g. stroboscopic sections) and their scale.

    a : (Ka, M), b : (Kb, M), both read as float64 (a float32 section, as stored, is compared at float64). Returns ``(d, s)``: d is the larger of the two directed ``q``-quantiles of
    nearest-neighbour distances (a → b and b → a; a quantile rather than the maximum so that one stray
    point does not decide), s the same quantile of nearest-neighbour distances inside each set (how
    finely each set samples its attractor). Two samples of one attractor give d ≈ s; d ≫ s means
    different attractors.
    """
    check_real("q", q, minimum=0.0, maximum=1.0)
    a, b = (np.asarray(v, dtype=np.float64) for v in (a, b))
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1] or len(a) < 2 or len(b) < 2:
        raise ValueError(f"a and b must be (K, M) point sets with K >= 2 and the same M; got {a.shape}, {b.shape}")

    def nn(u, v, self_set):  # nearest-neighbour distance of each point of u in v (itself excluded), in tiles
        out = np.empty(len(u))
        vv = (v * v).sum(1)
        for i in range(0, len(u), 1024):  # |u - v|² = |u|² + |v|² − 2 u·v (one matrix product per tile)
            t = u[i:i + 1024]
            d2 = (t * t).sum(1)[:, None] + vv[None, :] - 2 * t @ v.T
            if self_set:
                d2[np.arange(len(t)), np.arange(i, i + len(t))] = np.inf
            out[i:i + 1024] = np.sqrt(np.maximum(d2.min(1), 0.0))
        return out

    d = max(np.quantile(nn(a, b, False), q), np.quantile(nn(b, a, False), q))
    s = max(np.quantile(nn(a, a, True), q), np.quantile(nn(b, b, True), q))
    return float(d), float(s)


@contract(sections_a="array:3", sections_b="array:3", period_a="intarray", period_b="intarray", factor="real:>0",
          atol="real:>=0")
def compare_attractors(sections_a, sections_b, period_a, period_b, factor: float = 3.0,
                       atol: float = 1e-6) -> dict[str, np.ndarray]:
    """Compare, per β, the attractors two runs reached, as sets: their stroboscopic sections
    ``sections_* (B, K, M)`` (same phase), periods ``period_* (B,)`` (0 = none found).

    Two attractors differ when their periods differ, or when the distance between the sections exceeds
    ``factor`` times the sections' own sampling scale plus ``atol`` (:func:`attractor_distance`; ``atol`` covers
the rounding of the distances, ~1e-8, on periodic orbits whose sections repeat exactly). Returns
    ``{"distance", "scale", "differ"}``, each (B,).
    """
    check_real("factor", factor, minimum=0.0, strict=True)
    A, Bs = np.asarray(sections_a, dtype=np.float64), np.asarray(sections_b, dtype=np.float64)
    if A.ndim != 3 or A.shape[0] != Bs.shape[0] or A.shape[2] != Bs.shape[2]:
        raise ValueError(f"sections_a and sections_b must be (B, K, M) with the same B and M; got {A.shape}, {Bs.shape}")
    _one_per_row(A.shape[0], {"period_a": period_a, "period_b": period_b})
    pa, pb = np.asarray(period_a), np.asarray(period_b)
    dist, scale = np.empty(A.shape[0]), np.empty(A.shape[0])
    for i in range(A.shape[0]):
        dist[i], scale[i] = attractor_distance(A[i], Bs[i])
    return {"distance": dist, "scale": scale, "differ": (pa != pb) | (dist > factor * scale + atol)}


@contract(section="array", max_q="int:1")
def island_count(section: np.ndarray, max_q: int = 16) -> int:
    """Into how many pieces, visited in turn, a stroboscopic section splits: the smallest q in 2..``max_q`` for
    which the points ``x_{r::q}`` (r = 0..q−1) lie in q mutually disjoint balls (each class's centroid and largest
    distance from it); 1 where no q does (one closed curve, one chaotic cloud, a fixed point).

    A locked q-cycle gives q (each class is one point); a torus around it, an **island chain** of q small closed
    curves that the orbit visits in cyclic order, gives q too; one invariant circle gives 1 whatever its rotation
    number (each class winds around the whole circle). section : (K, M) with K >= 4 max_q points in time order.
    """
    check_int("max_q", max_q, 2)
    x = _orbits(section, "section")[0]
    if x.shape[0] < 4 * max_q:
        raise ValueError(f"section must hold at least 4 max_q = {4 * max_q} points; got {x.shape[0]}")
    for q in range(2, max_q + 1):
        cls = [x[r::q] for r in range(q)]
        c = np.array([p.mean(0) for p in cls])
        rad = np.array([np.sqrt(((p - m) ** 2).sum(1)).max() for p, m in zip(cls, c)])
        gap = np.sqrt(((c[:, None] - c[None]) ** 2).sum(-1)) - rad[:, None] - rad[None, :]
        np.fill_diagonal(gap, np.inf)
        if gap.min() > 0:
            return q
    return 1
