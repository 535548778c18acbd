"""Chapter 6's claim on the locked regions over (β, ε): do the regions that lock at the paper's positional weight
ε = 0.02 open, as Arnold tongues of that forcing, from the autonomous map (ε = 0)?

An Arnold tongue of a forcing opens from zero width at zero forcing, at the parameter where the unforced rotation
number ρ₀ equals its fraction p/q; a tongue of order q is ∝ ε^q wide near ε = 0, so on a grid of β steps 1.25·10⁻³ a
high-order tongue shows only at some finite ε. What can refute a tongue is therefore not where it first shows, but
whether the autonomous map's invariant circle reaches its fraction at all: a region whose p/q lies outside the
rotation numbers of the ε = 0 circle cannot open from it. This module decides that from the stored tongue grid
(``beyond.json``: ρ, λ_max and the locked flag of every (ε, β) cell); :mod:`.claims_beyond` lists the claim.
"""

from __future__ import annotations

from mfattn.companion.stored_views import MissingNumber  # a KeyError naming the stored number a rule lacks

from fractions import Fraction

import numpy as np

from ..companion import verdicts
from ..companion.checks import contract
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim

__all__ = ["TONGUES", "tongues_at", "circle_rotations"]

PAPER_EPS = 0.02   # the paper's positional weight ε (its code's and text's)
LAM_CIRCLE = 1e-3  # |λ_max| at most this and no lock: the orbit lies on an invariant circle (the chapter's torus class)
RHO_TOL = 1e-3     # the tolerance that labels a locked cell p/q (rotation.tongue_widths)
REGION_MIN = 2     # grid points: a locked region at the paper's ε, not one locked point in the chaos
t = lambda module, name: f"tests/test_dynamics_{module}.py::{name}"  # noqa: E731  a test id


def _grid(s):
    """The stored tongue grid as arrays (rows ε, columns β); Undecidable for runs before 0.4 (widths only)."""
    for k in ("tongue_rho", "tongue_lyapunov", "tongue_locked_grid", "tongue_betas"):
        if k not in s:   # a run before 0.4 stored the widths only: the numbers predate the rule
            raise MissingNumber(k)
        if s[k] is None:
            raise verdicts.Undecidable(f"the stored tongue grid's {k} is null")
    rho = np.array([[np.nan if v is None else v for v in row] for row in s["tongue_rho"]], dtype=np.float64)
    lam = np.array([[np.nan if v is None else v for v in row] for row in s["tongue_lyapunov"]], dtype=np.float64)
    return (np.asarray(s["tongue_betas"], dtype=np.float64), np.asarray(s["tongue_epsilons"], dtype=np.float64),
            rho, lam, np.asarray(s["tongue_locked_grid"], dtype=bool))


def _row(epsilons, eps: float) -> int:
    """The grid row at ``eps`` (to 1e-9); Undecidable if the grid has none."""
    e = np.asarray(epsilons, dtype=np.float64)
    hit = np.nonzero(np.abs(e - eps) <= 1e-9)[0]
    if not hit.size:
        raise verdicts.Undecidable(f"the tongue grid has no row at ε = {eps:g} (its rows: "
                                   f"{', '.join(f'{v:g}' for v in e)})")
    return int(hit[0])


@contract(s="mapping", eps="real:>=0")
def circle_rotations(s, eps: float = 0.0):
    """The β row of the grid at ``eps`` (nearest row): ``(betas, rho, on_circle)``, where ``on_circle`` marks the
    orbits on an invariant circle (finite ρ, |λ_max| ≤ :data:`LAM_CIRCLE`, not locked)."""
    betas, epsilons, rho, lam, locked = _grid(s)
    i = _row(epsilons, eps)
    on = np.isfinite(rho[i]) & (np.abs(lam[i]) <= LAM_CIRCLE) & ~locked[i]
    return betas, rho[i], on


def _reached(x: float, rho, on, tol: float):
    """The β index where the circle's ρ₀ equals ``x`` (within ``tol``, or crossing it between two neighbouring β
    both on the circle), or None."""
    for j in np.nonzero(on)[0]:
        if abs(rho[j] - x) <= tol:
            return int(j)
    for j in range(len(rho) - 1):
        if on[j] and on[j + 1] and (rho[j] - x) * (rho[j + 1] - x) < 0:
            return int(j)
    return None


def _regions(s, eps: float, min_width: int):
    """The fractions locked over at least ``min_width`` grid points in the ε row nearest ``eps``."""
    i = _row(s["tongue_epsilons"], eps)
    return sorted((f for f, w in s["tongue_widths"].items() if w[i] >= min_width), key=Fraction)


def tongue_table(s, rho_tol: float = RHO_TOL, eps: float = PAPER_EPS, start: float = 0.0,
                 min_width: int = REGION_MIN) -> dict[str, float | None]:
    """Per region locked at ``eps``: the β where the circle at ``start`` (ε = 0) reaches its fraction, or None."""
    betas, rho, on = circle_rotations(s, start)
    out = {}
    for f in _regions(s, eps, min_width):
        j = _reached(float(Fraction(f)), rho, on, rho_tol)
        out[f] = None if j is None else float(betas[j])
    return out


@contract(rho_tol="real:>0", eps="real:>=0", start="real:>=0", min_width="int:1")
def tongues_at(rho_tol: float, eps: float = PAPER_EPS, start: float = 0.0, min_width: int = REGION_MIN):
    """Every region locked at the paper's ε whose fraction the ε = 0 circle reaches holds (each can open from it, as
    an Arnold tongue); some of them partly; none fails; no region at the paper's ε: not testable."""
    def rule(s):
        table = tongue_table(s, rho_tol, eps, start, min_width)
        if not table:
            raise verdicts.Undecidable(f"no region is locked over {min_width} grid points at ε = {eps:g}")
        reached = [b is not None for b in table.values()]
        return "holds" if all(reached) else "partly" if any(reached) else "fails"
    return rule


def _somewhere(s):
    """The rule on every region at least 3 grid points wide in some ε row (wherever it is locked)."""
    betas, rho, on = circle_rotations(s)
    found = [f for f, w in s["tongue_widths"].items() if max(w) >= 3]
    if not found:
        raise verdicts.Undecidable("no region is locked over 3 grid points in any ε row")
    reached = [_reached(float(Fraction(f)), rho, on, RHO_TOL) is not None for f in found]
    return "holds" if all(reached) else "partly" if any(reached) else "fails"


def _note(s):
    betas, rho, on = circle_rotations(s)
    table = tongue_table(s)
    at0 = {f: w[0] for f, w in s["tongue_widths"].items() if w[0] > 0}
    span = (f"{np.nanmin(rho[on]):.3f} to {np.nanmax(rho[on]):.3f} over {int(on.sum())} β"
            if on.any() else "none: no orbit on a circle")
    return (f"Regions locked over {REGION_MIN} grid points or more at ε = {PAPER_EPS:g}: "
            + "; ".join(f"{f} ({float(Fraction(f)):.4f}): " + (f"ρ₀ = {f} on the ε = 0 circle at β ≈ {b:.4f}"
                                                            if b is not None else "not reached by the ε = 0 circle")
                        for f, b in table.items())
            + f". The ε = 0 circle's rotation numbers ρ₀ run {span}. The autonomous map also locks on its own at "
            + (", ".join(f"{f} ({w} points)" for f, w in at0.items()) or "no fraction")
            + " at ε = 0 (periodic windows of its own). A tongue of order q is ∝ ε^q wide near ε = 0, so a region "
              "that shows only from some finite ε on the grid (" + ", ".join(
                  f"{f} from ε = {_first_eps(s, f):g}" for f in table) + ") is no sign against a tongue. One run per "
              "grid point.")


def _first_eps(s, f: str) -> float:
    """The smallest ε of the grid at which fraction ``f`` is locked somewhere."""
    return next(e for e, w in zip(s["tongue_epsilons"], s["tongue_widths"][f]) if w > 0)


def _grid_example(rho0, locked02=(("1/4", 2), ("2/7", 4))) -> dict:
    """Stored numbers of a 2-row grid (ε = 0, 0.02) over 6 β: the ε = 0 row on a circle with rotation ``rho0``."""
    n = len(rho0)
    widths = {f: [0, w] for f, w in locked02}
    return {"tongue_betas": list(np.linspace(1.2, 1.3, n)), "tongue_epsilons": [0.0, 0.02],
            "tongue_rho": [list(rho0), [0.25] * n], "tongue_lyapunov": [[1e-5] * n, [-0.1] * n],
            "tongue_locked_grid": [[0] * n, [1] * n], "tongue_widths": widths, "tongue_n_betas": n}


TONGUES = Claim(
    "dmft-arnold-tongues", "ours (forcing amplitude ε)",
    "The regions locked at the paper's forcing ε = 0.02 are Arnold tongues of the forcing: each can open from the "
    "autonomous map's invariant circle (ε = 0), whose rotation number ρ₀ reaches the region's fraction", origin="ours",
    reading="ours: a tongue of order q is ∝ ε^q wide near ε = 0, thinner than the β grid, so where a region first "
            "shows is no test; whether the ε = 0 circle's ρ₀ reaches its fraction is (a region it does not reach "
            "cannot open from ε = 0)",
    measured="Per region locked over at least 2 grid points at ε = 0.02 (fraction p/q, λ_max < 0, q stroboscopic "
             "points): whether the rotation number ρ₀(β) of the ε = 0 orbits on an invariant circle (|λ_max| ≤ 1e-3, "
             "not locked) equals p/q at some β of the grid (within 1e-3, or crossing it between neighbouring β)",
    rule_at=tongues_at,
    thresholds=(Threshold("rho_tol", RHO_TOL, "convention", "the tolerance that labels a locked cell p/q in the same "
                          "grid; a crossing between neighbouring β counts whatever its size", noise=5e-4),),
    alternatives=(Alternative("every region at least 3 grid points wide in some ε row (not only those at the paper's "
                              "ε)", "unit", _somewhere),
                  Alternative("the first forced row (ε = 0.0025) in place of ε = 0", "reading",
                              tongues_at(RHO_TOL, start=0.0025)),
                  Alternative("every point locked at the paper's ε (one grid point counts as a region)", "statistic",
                              tongues_at(RHO_TOL, min_width=1))),
    spread=Spread("region locked at the paper's ε", lambda s: {
        "beta where the epsilon = 0 circle reaches its fraction (NaN: never)": [
            np.nan if b is None else b for b in tongue_table(s).values()]}),
    how="Ours. Holds if every region locked over at least 2 grid points at the paper's ε = 0.02 has a fraction that "
        "the ε = 0 circle's rotation number reaches (so each can open from it, as an Arnold tongue of the forcing); "
        "with differences if some do and some do not; refuted if none does. Where a region first shows on the grid "
        "is not tested: a tongue of order q is ∝ ε^q wide near ε = 0. The former claim (the map locks at ε = 0 over "
        "intervals, so no region is a tongue) assumed a converse no test checked: locking at ε = 0 is the autonomous "
        "map's own, and says nothing of the regions at ε = 0.02.",
    evidence=("fig-dmft-rotation", t("rotation", "test_tongue_widths_count_the_locked_points_of_each_row"),
              t("rotation", "test_period_28_window_is_locked_at_two_sevenths")),
    note=_note,
    numbers=lambda s: {"regions locked at epsilon = 0.02": len(tongue_table(s)),
                       "of them reached by the epsilon = 0 circle": sum(b is not None for b in tongue_table(s).values()),
                       "largest rho0 on the epsilon = 0 circle": round(float(np.nanmax(
                           np.where(circle_rotations(s)[2], circle_rotations(s)[1], np.nan))), 4)},
    examples={"holds": _grid_example([0.24, 0.25, 0.26, 0.27, 0.28, 0.29]),
              "partly": _grid_example([0.24, 0.25, 0.26, 0.27, 0.272, 0.273]),
              "fails": _grid_example([0.20, 0.21, 0.22, 0.23, 0.235, 0.24])})


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
