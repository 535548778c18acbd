"""How chapter 6's verdicts class an orbit from the stored diagrams: by the period search and λ_max, with thresholds
whose reasons the stored distributions bear out, checked against both stored diagrams.

An orbit of a diagram (one β) is

- **periodic**: a period was found (every found cycle of both stored diagrams contracts: λ_max ≤ −5e-5);
- **periodic, period not found**: no period was found, but the orbit contracts: λ_max < −LT (beyond what a torus
  reads), or λ_max < 0 below the Floquet crossing of the period-4 orbit (``ns_beta``, where that orbit is stable: a
  cycle that contracts as slowly as |λ| ~ 1e-4 near the crossing is still ~e^-10 away from itself after the
  10⁵-step transient, far above the period search's 1e-9; elsewhere a period above the search's 500);
- **torus**: no period and |λ_max| ≤ :data:`LT` = 1.3e-4 (a zero exponent read over T = 2·10⁴ steps is the
  orbit's bounded log growth over T);
- **chaotic**: no period and λ_max > :data:`LC` = 1e-3;
- **undecided**: anything else (no period and LT < λ_max ≤ LC, or λ_max not finite).

The previous rule used one threshold (|λ| ≤ 1e-3 a torus) with the reason "the stored tori give |λ| ≤ 1e-4 while
chaotic orbits give ≥ 1e-2", which the stored diagrams contradict (orbits without a period up to 6.5e-4 in Fig.
3a, chaos from 1.07e-3). :func:`check_lt` and :func:`check_lc` read both stored diagrams and say whether the reasons given here
are true of them; :func:`noise_lt` and :func:`noise_lc` read the window-to-window spread of λ stored at the Fig. 4
β (the only β with λ over windows).
"""

from __future__ import annotations

from mfattn.companion.stored_views import MissingNumber  # a KeyError naming the stored number a rule lacks

import math
from typing import Any, Mapping

import numpy as np

from ..companion.checks import check_edges, check_real
from ..companion.premises import Threshold
from ..companion.stored_kinds import check_kind
from ..companion.verdicts import Undecidable, finite_numbers, raw_numbers

__all__ = ["LT", "LC", "T_SAVED", "PERIODIC", "UNCONVERGED", "TORUS", "CHAOTIC", "UNDECIDED", "CLASS_NAMES",
           "LAMBDA_HOW"]   # its functions are the verdicts' own (read by the claims modules), not an API

LT = 1.3e-4       # |λ_max| of a torus over the saved steps (its bounded log growth / T)
LC = 1e-3         # λ_max above which an orbit without a period is chaotic
T_SAVED = 20_000  # saved steps over which λ_max is averaged (120000 − 100000 of the paper-code protocol)
#: The share of a diagram's β that may sit undecided (isolated points) for the band's reason to hold.
UNDECIDED_SHARE = 2e-3
#: LC sits in an empty stretch of the stored positive λ of orbits without a period: (LOW_EDGE·LC, HIGH_EDGE·LC].
LOW_EDGE, HIGH_EDGE = 0.66, 1.06

PERIODIC, UNCONVERGED, TORUS, CHAOTIC, UNDECIDED = range(5)
CLASS_NAMES = ("periodic", "periodic (period not found)", "torus", "chaotic", "undecided")

LAMBDA_HOW = ("Each orbit is classed by the period search and λ_max (the mean log growth of a tangent vector over the "
              "T = 2·10⁴ saved steps): periodic if a period is found, or if none is found but the orbit contracts "
              "(λ_max < −LT; or λ_max < 0 below the Floquet crossing of the period-4 orbit, a stable cycle contracting "
              "as slowly as |λ| ~ 1e-4, not yet within the period search's 1e-9 after the 10⁵-step transient); torus "
              "if no period and |λ_max| ≤ LT = 1.3e-4 (on a torus λ_max is a bounded log growth over T: the stored "
              "tori reach 1.20e-4 (Fig. 3a; 1.18e-4 in the zoom), a log growth of 2.4, 8 % under LT); chaotic if λ_max > LC = 1e-3 (the stored chaotic orbits "
              "start at 1.07e-3, 21 e-foldings over T, and no orbit without a period has λ in (6.6e-4, 1.06e-3]); "
              "undecided otherwise (LT < λ_max ≤ LC without a period: 2 isolated β of the 8002). LT and LC are tried "
              "at ± the standard error of λ_max over windows of the Fig. 4 orbits (7e-5 on a torus, 17 % of a "
              "chaotic λ).")


def _nan_read(s: Mapping[str, Any], key: str) -> Any:
    """``s[key]`` for a rule that reads a NaN or None on purpose (the producer's "none": no crossing, no fit), past
    :class:`~mfattn.companion.verdicts.FiniteNumbers`, with the kind the store holds under ``key`` still checked (a
    TypeError naming it) and an infinity, which no producer stores, :class:`Undecidable` naming it (not a grade)."""
    value = check_kind(key, raw_numbers(s)[key])
    if isinstance(value, (float, np.floating)) and math.isinf(value):
        raise Undecidable(f"{key} is {float(value)!r} in the stored numbers: an infinity is no stored \"none\" (NaN "
                          "or null) and cannot decide the claim")
    return value


def guarded(f):
    """``f`` (a threshold's check or noise, reading the stored numbers) with what it cannot read reported as a missing
    number (KeyError: "not checkable", the threshold not moved) instead of an error: a null, a NaN, an empty list, or
    a noise that is not a positive number."""
    from ..companion.verdicts import Undecidable

    def read(s):
        try:
            out = f(s)
        except (TypeError, ValueError, ZeroDivisionError, IndexError, Undecidable) as why:
            raise MissingNumber(f"a number it reads ({why})") from None
        if isinstance(out, float) and not (math.isfinite(out) and out > 0):
            raise MissingNumber(f"a positive noise (the stored numbers give {out!r})")
        return out
    read.__doc__, read.__name__ = f.__doc__, getattr(f, "__name__", "read")
    return read


def _finite(x) -> bool:
    return isinstance(x, (int, float, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


def classes(betas, lam, period, ns_beta: float | None = None, lt: float = LT, lc: float = LC) -> np.ndarray:
    """The class (:data:`CLASS_NAMES`) of every orbit of a diagram from its (B,) ``betas``, ``lam`` (λ_max) and
    ``period`` (0: none found); ``ns_beta`` the Floquet crossing of the period-4 orbit (None: no relabelling);
    ``0 < lt < lc``."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)
    b, lam, per = (np.asarray(x) for x in (betas, lam, period))
    lam = lam.astype(np.float64)
    if not b.shape == lam.shape == per.shape or b.ndim != 1:
        raise ValueError(f"betas, lam and period must be 1-d of one length; got {b.shape}, {lam.shape}, {per.shape}")
    out = np.full(b.shape, UNDECIDED, dtype=np.int64)
    none = per == 0
    with np.errstate(invalid="ignore"):
        out[none & (np.abs(lam) <= lt)] = TORUS
        out[none & (lam > lc)] = CHAOTIC
        out[none & (lam < -lt)] = UNCONVERGED
        if _finite(ns_beta):
            out[none & (b <= ns_beta) & (lam < 0)] = UNCONVERGED
    out[per > 0] = PERIODIC
    return out


def kind(lam, period, lt: float = LT, lc: float = LC) -> str:
    """The class name of one orbit (no relabelling): "unknown" where it has no period and λ_max is not stored
    (``0 < lt < lc``)."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)
    if period and period > 0:
        return "periodic"
    if lam is None or not _finite(lam):
        return "unknown"
    return "torus" if abs(lam) <= lt else "chaotic" if lam > lc else "periodic" if lam < -lt else "undecided"


def orbits(s: Mapping[str, Any], p: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(betas, λ_max, period)`` of the stored diagram ``p`` ("a": Fig. 3a, "z": the zoom) from the numbers. A λ_max
    that is not finite is kept: it is a class of its own (undecided; dmft-lyapunov asks for a finite λ everywhere)."""
    # per-β arrays whose NaN λ the classes read on purpose: past verdicts.FiniteNumbers
    o = raw_numbers(s)[f"{p}_orbit_arrays"]
    return (np.asarray(o["betas"], dtype=np.float64), np.asarray(o["lyapunov"], dtype=np.float64),
            np.asarray(o["period"]))


def first(b: np.ndarray, mask: np.ndarray) -> float:
    """The smallest β where ``mask`` (a boolean array of ``b``'s shape) holds (NaN where nowhere)."""
    b, mask = np.asarray(b), np.asarray(mask)
    if mask.dtype != bool or mask.shape != b.shape:
        raise ValueError(f"mask must be a boolean array of b's shape {b.shape}; got {mask.dtype} of shape {mask.shape}")
    return float(b[mask].min()) if mask.any() else float("nan")


def counts(c: np.ndarray) -> dict[str, int]:
    """How many orbits fall into each class (``c``: integer class codes, 0 to 4, of :data:`CLASS_NAMES`)."""
    c = np.asarray(c)
    if c.dtype.kind not in "iu" or (c.size and (c.min() < 0 or c.max() >= len(CLASS_NAMES))):
        raise ValueError(f"c must hold class codes 0 to {len(CLASS_NAMES) - 1} ({', '.join(CLASS_NAMES)}); got "
                         f"{c.dtype} values {np.unique(c)[:8].tolist() if c.dtype.kind in 'iuf' else c!r:.60}")
    return {name: int((c == i).sum()) for i, name in enumerate(CLASS_NAMES)}


def gap_edges(s: Mapping[str, Any], p: str, lc: float = LC) -> tuple[float, float]:
    """Largest positive λ_max ≤ ``lc`` and smallest > ``lc`` among the orbits of diagram ``p`` without a period
    (the stored edges of the stretch the chaos threshold sits in; NaN where there is none). ``lc`` a finite number."""
    check_real("lc", lc)
    b, lam, per = orbits(s, p)
    pos = lam[(per == 0) & np.isfinite(lam) & (lam > 0)]
    lo, hi = pos[pos <= lc], pos[pos > lc]
    return (float(lo.max()) if lo.size else float("nan"), float(hi.min()) if hi.size else float("nan"))


def _isolated(mask: np.ndarray) -> bool:
    """No two neighbouring grid β are both in ``mask``."""
    return not bool((mask[1:] & mask[:-1]).any())


def torus_interval(s: Mapping[str, Any]) -> np.ndarray:
    """The zoom's orbits without a period between the Floquet crossing and its first chaotic β with |λ| ≤ LC (the
    region where the torus lives), as a mask over its β; KeyError where the crossing or the zoom is not stored (a
    crossing stored as null or NaN is not stored; one stored as an infinity is :class:`Undecidable` naming it)."""
    ns = s["ns_beta"]
    if ns is None or isinstance(ns, float) and math.isnan(ns):
        raise MissingNumber(f"ns_beta (the Floquet crossing is stored as {ns!r}, not a β)")
    if isinstance(ns, (int, float)) and math.isinf(ns):
        raise Undecidable(f"ns_beta is {ns!r} in the stored numbers: an infinite Floquet crossing is not a β")
    zb, zl, zp = orbits(s, "z")
    chaos = (zp == 0) & (zl > LC)
    if not _finite(ns) or not chaos.any():
        return np.zeros(zb.shape, dtype=bool)
    return (zp == 0) & (zb > ns) & (zb < zb[chaos].min()) & (np.abs(zl) <= LC)


def torus_log_growth(s: Mapping[str, Any]) -> float:
    """The largest log growth |λ| · T of the zoom's orbits in its torus interval (:func:`torus_interval`): what a
    zero exponent reads over the saved steps (NaN where the interval is empty)."""
    m = torus_interval(s)
    return float(np.abs(orbits(s, "z")[1][m]).max() * T_SAVED) if m.any() else float("nan")


def check_lt(s: Mapping[str, Any]) -> tuple[bool, str]:
    """Whether LT's reason is true of both stored diagrams: in the zoom, every orbit without a period between the
    Floquet crossing and the first chaotic β has |λ| ≤ LT or is chaotic, and the band LT < λ ≤ LC holds no orbit
    without a period (the undecided band the classification claims is empty); in Fig. 3a that band holds only
    isolated β, at most 0.2 % of them; every orbit without a period below the crossing contracts (λ < 0: the
    relabelled cycles). An orbit contracting faster than a torus reads (λ < −LT) is a cycle the period search did not
    close (a period above 500, or not converged), not a torus: it is counted, not required absent."""
    ns = s.get("ns_beta")
    if not _finite(ns):
        return False, "no Floquet crossing is stored: the torus interval of the zoom is not defined"
    zb, zl, zp = orbits(s, "z")
    ab, al, ap = orbits(s, "a")
    znone, anone = zp == 0, ap == 0
    interval = torus_interval(s)
    top = float(np.abs(zl[interval]).max()) if interval.any() else float("nan")
    zband = znone & (zl > LT) & (zl <= LC)
    aband = anone & (al > LT) & (al <= LC)
    cycles = int((znone & (zl < -LT)).sum()), int((anone & (al < -LT)).sum())
    below = znone & (zb <= ns)
    ok = bool(interval.any() and top <= LT and not zband.any() and aband.sum() <= UNDECIDED_SHARE * ab.size
               and _isolated(aband) and bool((zl[below] < 0).all()))
    return ok, (f"zoom: the {int(interval.sum())} orbits without a period between the crossing (β = {ns:.5f}) and "
                f"the first chaotic β reach |λ| = {top:.3g} (LT = {LT:g}: log growth {top * T_SAVED:.2f} over "
                f"T = {T_SAVED}); orbits without a period with LT < λ ≤ LC: {int(zband.sum())} in the zoom, "
                f"{int(aband.sum())} in Fig. 3a ({'isolated' if _isolated(aband) else 'some neighbours'}, at most "
                f"{UNDECIDED_SHARE:.1%} allowed); contracting faster than LT without a period (cycles the search did "
                f"not close): {cycles[0]} in the zoom, {cycles[1]} in Fig. 3a; below the crossing "
                f"{int(below.sum())} orbits without a period, {int((zl[below] < 0).sum())} of them contracting")


def check_lc(s: Mapping[str, Any]) -> tuple[bool, str]:
    """Whether LC's reason is true of both stored diagrams: the positive λ of orbits without a period leave the
    stretch (0.65 LC, 1.1 LC] empty in each (the gap LC sits in)."""
    found, ok = [], True
    for p, name in (("a", "Fig. 3a"), ("z", "zoom")):
        lo, hi = gap_edges(s, p)
        ok = ok and _finite(hi) and (not _finite(lo) or lo <= LOW_EDGE * LC) and hi > HIGH_EDGE * LC
        found.append(f"{name}: largest λ ≤ LC {lo:.3g}, smallest λ > LC {hi:.3g}")
    return ok, (f"the stretch ({LOW_EDGE * LC:.3g}, {HIGH_EDGE * LC:.3g}] of positive λ without a period is "
                f"{'empty' if ok else 'not empty'} in both diagrams: " + "; ".join(found))


def _fig4_windows(s: Mapping[str, Any], which: str) -> list[np.ndarray]:
    """The λ_max of each window of the Fig. 4 orbits of one kind ("torus" or "chaotic", by the whole run); a NaN
    whole-run λ (whose kind cannot be told) is :class:`~mfattn.companion.verdicts.Undecidable`, not left out."""
    s = finite_numbers(s)
    s["f4_lyapunov"]
    out = []
    for lam, per, w in zip(s["f4_lyapunov"], s["f4_period"], s["f4_lyapunov_windows"]):
        if kind(lam, per) == which and len(w) > 1:
            out.append(np.asarray(w, dtype=np.float64))
    return out


def noise_lt(s: Mapping[str, Any]) -> float:
    """The largest standard error of a torus's whole-run λ_max, from the spread of λ over its windows at the Fig. 4
    tori (the standard deviation over the windows / √(number of windows))."""
    w = _fig4_windows(s, "torus")
    if not w:
        raise MissingNumber("f4 tori with λ over windows")
    return max(float(x.std(ddof=1) / math.sqrt(x.size)) for x in w)


def noise_lc(s: Mapping[str, Any]) -> float:
    """LC times the largest relative standard error of a chaotic whole-run λ_max (over the windows of the Fig. 4
    chaotic orbits)."""
    w = _fig4_windows(s, "chaotic")
    if not w:
        raise MissingNumber("f4 chaotic orbits with λ over windows")
    return LC * max(float(x.std(ddof=1) / math.sqrt(x.size) / abs(x.mean())) for x in w)


def thresholds() -> tuple[Threshold, Threshold]:
    """LT and LC as the thresholds of a rule (keywords ``lt`` and ``lc`` of its factory)."""
    return (Threshold("lt", LT, "stored distribution",
                      "a zero exponent read over T = 2·10⁴ steps is the torus's bounded log growth over T: the zoom's "
                      "orbits without a period between the Floquet crossing and the first chaos reach |λ| = 1.13e-4 "
                      "(log growth 2.3; every torus of both diagrams: 1.20e-4, 8 % under LT), and no orbit without a period has LT < λ ≤ LC in the zoom (in Fig. 3a only "
                      "isolated β, ≤ 0.2 %); those contracting faster than LT are cycles the search did not close", guarded(check_lt), noise=guarded(noise_lt)),
            Threshold("lc", LC, "stored distribution",
                      "the stored chaotic orbits start at λ = 1.07e-3 (21 e-foldings over T) and the positive λ of "
                      "orbits without a period leave (6.6e-4, 1.06e-3] empty in both diagrams: LC sits in that gap",
                      guarded(check_lc), noise=guarded(noise_lc)))


def derived(s: Mapping[str, Any]) -> dict[str, Any]:
    """Numbers the beyond section's rules read from the stored zoom at the default thresholds: its grid step, the
    first torus past the Floquet crossing (and Fig. 3a's), and where the torus breaks up (the zoom's first chaotic
    β). Left out where the diagram or the crossing is not stored."""
    out: dict[str, Any] = {}
    ns = s.get("ns_beta")
    for p in ("a", "z"):
        if f"{p}_orbit_arrays" not in s:
            continue
        b, lam, per = orbits(s, p)
        c = classes(b, lam, per, ns)
        if p == "z":
            out["z_grid_step"] = float(np.median(np.diff(b))) if b.size > 1 else float("nan")
            out["torus_breakup_beta"] = first(b, c == CHAOTIC)
        if _finite(ns):
            out[f"{p}_first_torus_past_crossing"] = first(b, (c == TORUS) & (b > ns))
    return out


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
