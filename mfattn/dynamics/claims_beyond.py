"""Chapter 6's claims of its "Beyond the paper" section, declared with the rules that decide them from the full
profile's ``data/full/dmft/beyond.json``: our own analyses (``origin="ours"``: confirmed / refuted) and the two
paper claims they check independently (the torus born near β ≈ 1.244; the finite network's N^-1/2 limit);
and :func:`glue_values`, the strings of the stored numbers that the chapter's prose shows.

:mod:`.claims` gathers these with the paper's figure claims into ``DECLARED`` and reads the stored numbers
(:func:`beyond_numbers` flattens the beyond part); :func:`record_beyond` records these claims only.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import verdicts
from ..companion.verdicts import Claim
from .rotation import MAX_GAP

__all__ = ["PAPER", "FIG4", "MISSING", "glue_values", "BEYOND", "beyond_full_numbers", "beyond_numbers",
           "plateau_summary", "record_beyond", "SLOPE_HOW", "SHARED_SLOPE", "slope_rule", "ledger_safe"]

PAPER = "Poc-López & Aguilera 2024"
FIG4 = (1.255, 1.26405, 1.266, 1.27, 1.28, 1.4)
TOL = 1e-3        # λ resolution of the spectrum run (see SPECTRUM_HOW)
BIRTH = 1.244     # the paper's torus birth (Fig. 3b)
RHO_TOL = 2e-3    # ρ one grid step past the crossing against θ/2π (the rotation test's tolerance)
ANGLE_TOL = 0.01  # rad: an angle this close to 0, π (real) or π/2, 2π/3 (strong resonance) counts as there
MIN_BASIN = 9     # contexts: a basin seen in n·f >= 9 contexts has a binomial relative error <= 1/3
t = lambda module, name: f"tests/test_dynamics_{module}.py::{name}"  # noqa: E731  a test id


def beyond_full_numbers(root: Path | None) -> dict:
    """The numbers the full profile's "Beyond the paper" section stores in ``data/full/dmft/beyond.json``
    ({} if absent): ``ns_beta, ns_angle, ns_rotation, rho_birth, plateaus, tongue_locked, basins_multi,
    network_slope, network_chi2_z, network_errors, spectrum_max`` (and, from later runs, the per-ε locked
    shares of the tongue grid and the basins' sizes)."""
    if root is None:
        return {}
    path = Path(root) / "data" / "full" / "dmft" / "beyond.json"
    return json.loads(path.read_text()) if path.exists() else {}


def plateau_summary(found: list[dict], top: int = 5) -> str:
    """The staircase's main plateaus for the ledger: the ``top`` widest (fraction, β interval, width), widest
    first, then how many narrower ones there are and their fractions in increasing order (``found`` from
    :func:`mfattn.dynamics.rotation.plateaus`)."""
    ranked = sorted(found, key=lambda p: (-(p["beta_hi"] - p["beta_lo"]), p["beta_lo"]))
    text = "; ".join(f"{p['fraction']} on β ∈ [{p['beta_lo']:.5f}, {p['beta_hi']:.5f}] "
                     f"(width {p['beta_hi'] - p['beta_lo']:.1e})" for p in ranked[:top]) or "none"
    rest = ranked[top:]
    if rest:
        text += (f"; and {len(rest)} narrower (each ≤ {max(p['beta_hi'] - p['beta_lo'] for p in rest):.1e} wide: "
                 + ", ".join(sorted({p["fraction"] for p in rest}, key=Fraction)) + ")")
    return text


MISSING = "(not in the stored full run)"


def glue_values(full: dict) -> dict[str, str]:
    """The strings the chapter's paper-scale prose glues, with a plain note where the stored run lacks one."""
    g: dict[str, str] = {}
    s = full.get("summary", {})
    g["full-protocol"] = (f"\"{s['protocol']}\" ({s['steps']:.1e} steps, {s['transient']:.1e} discarded)"
                          if s else "\"paper-code\" (1.2e+05 steps, 1.0e+05 discarded)")
    for key in ("fig3a", "fig3b"):
        d = full.get(key)
        for name in ("periodic", "quasi-periodic", "chaotic", "quasi with period>80", "chaotic with lambda<=1e-3",
                     "lambda>1e-3"):
            g[f"full-{key}-{name.replace(' ', '-').replace('>', 'gt').replace('<=', 'le')}"] = \
                str(d[name]) if d and name in d else MISSING  # the class numbers need the paper's count itself
        for r in range(3):
            for c in range(3):
                g[f"full-conf-{key}-{r}{c}"] = str(d["confusion"][r][c]) if d and "confusion" in d else MISSING
    zoom = full.get("fig3b", {})
    g["full-first-quasi"] = (f"{zoom['first quasi-periodic beta']:.4f}" if "first quasi-periodic beta" in zoom
                             else MISSING)
    g["full-first-chaos"] = f"{full['fig3b']['first lambda>1e-3 beta']:.4f}" if "fig3b" in full else MISSING
    f4 = s.get("fig4")
    g["full-fig4-start"] = ({"paper": "the paper's stored context", "ours": "our own context"}[f4["start"]]
                            if f4 else MISSING)
    g["full-fig4-differ"] = (", ".join(f"{b:g}" for b, d in zip(f4["betas"], f4["differ"]) if d) or "none"
                             if f4 else MISSING)
    for i, b in enumerate(FIG4):
        ok = f4 and len(f4["betas"]) > i and abs(f4["betas"][i] - b) < 1e-12
        g[f"full-lam-{b:g}"] = f"{f4['lyapunov'][i]:+.3g}" if ok else MISSING
        for name, k in (("tau", "tau_e"), ("tau01", "tau_01")):
            g[f"full-{name}-{b:g}"] = ((f"{f4[k][i]:.0f} steps" if f4[k][i] is not None else "beyond 2000 steps")
                                       if ok else MISSING)
    co = s.get("coexist")
    for name in ("n", "total", "tori"):
        g[f"full-coexist-{name}"] = str(co[name]) if co else MISSING
    fn = s.get("finite_n")
    g["full-slope"] = f"{fn['slopes'][0]:.2f}" if fn else MISSING
    g["full-slope-beta3"] = f"{fn['slopes'][1]:.2f}" if fn else MISSING
    g["full-slope-beta3-large-n"] = f"{fn['slope_beta3_without_first']:.2f}" if fn else MISSING
    return g


def _slope_and_error(ns, errors) -> tuple[float, float]:
    """Least-squares slope of log(error) against log(N) and its standard error from the fit's residuals."""
    x, y = np.log(np.asarray(ns, dtype=np.float64)), np.log(np.asarray(errors, dtype=np.float64))
    (slope, icpt), dof = np.polyfit(x, y, 1), x.size - 2
    if dof < 1:
        return float(slope), float("nan")
    resid = y - (slope * x + icpt)
    return float(slope), float(np.sqrt((resid ** 2).sum() / dof / ((x - x.mean()) ** 2).sum()))


def beyond_numbers(b: dict, params: dict) -> dict[str, Any]:
    """The beyond section's stored numbers ``b`` (beyond.json) flattened for the rules; ``params`` are the full
    run's sizes (from the stored figure manifest) for what beyond.json does not hold (basin sample, network Ns)."""
    for name, value in (("b", b), ("params", params)):
        if not isinstance(value, dict):
            raise TypeError(f"{name} must be a dict (beyond.json's numbers, the run's sizes); got {type(value).__name__}")
    out: dict[str, Any] = {k: b[k] for k in ("ns_beta", "ns_angle", "ns_rotation", "rho_birth", "tongue_locked",
                                             "network_slope", "network_chi2_z") if k in b}
    for k in ("ns_beta", "ns_angle", "ns_rotation", "rho_birth"):  # NaN/None (no crossing) as None
        if k in out and (out[k] is None or not math.isfinite(out[k])):
            out[k] = None
    if "spectrum_max" in b:
        spec = list(b["spectrum_max"])
        out.update(lam1_max=spec[0], lam2_max=spec[1] if len(spec) > 1 else None, spectrum_k=len(spec))
    # plateaus from 0.3 on are periodic orbits (each entry has its largest λ_max); older lists were runs of ρ within
    # 1e-4 of a fraction, which any monotone ρ(β) gives: they are left out, and the staircase is not tested
    if isinstance(b.get("plateaus"), list) and all("lambda_max" in p for p in b["plateaus"]):
        found = b["plateaus"]
        out.update(plateaus=plateau_summary(found), plateau_count=len(found),
                   plateau_fractions=len({p["fraction"] for p in found}))
        if isinstance(b.get("plateaus_b"), list):
            out.update(plateaus_b=plateau_summary(b["plateaus_b"]), staircase_branches=b.get("staircase_branches"))
    if isinstance(b.get("tongue_widths"), dict) and "tongue_epsilons" in b:
        out.update(tongue_widths={f: list(w) for f, w in b["tongue_widths"].items()},
                   tongue_epsilons=list(b["tongue_epsilons"]), tongue_n_betas=int(b["tongue_n_betas"]))
    if "basins_multi" in b:
        multi = list(b["basins_multi"] or [])
        n_betas = b.get("basin_n_betas", len(params.get("basin_betas", [])) or None)
        n_ctx = b.get("basin_contexts", params.get("basin_contexts"))
        # the smallest basin of a β with several attractors: stored as a fraction by later runs, else read from
        # the percentages of the stored text, rounded up by half a percent (the safe side for "measurable")
        pct = [int(p) for m in multi for p in re.findall(r"(\d+)%", m)]
        smallest = b.get("basin_smallest_fraction", (min(pct) + 0.5) / 100 if pct else None)
        out.update(basins_multi="; ".join(multi) or "none", n_multi=len(multi))
        if n_betas and n_ctx:
            out.update(basin_n_betas=int(n_betas), basin_contexts=int(n_ctx),
                       smallest_basin_contexts=None if smallest is None else smallest * n_ctx)
    ns = b.get("network_ns", params.get("network_ns"))
    if "network_errors" in b and ns is not None and len(ns) == len(b["network_errors"]):
        _, se = _slope_and_error(ns, b["network_errors"])
        out.update(network_slope_se=se, network_ns=", ".join(f"{n:g}" for n in ns))
    return out


def ledger_safe(claim: Claim) -> Claim:
    """``claim`` with its shown numbers fit for the ledger: a non-finite float (no crossing, no such β on the grid)
    becomes the string "none" (the ledger takes finite numbers and strings only; None is left out)."""
    if not callable(claim.numbers):
        return claim
    shown = claim.numbers
    safe = lambda s: {k: "none" if isinstance(v, float) and not math.isfinite(v) else v  # noqa: E731
                      for k, v in shown(s).items()}
    return dataclasses.replace(claim, numbers=safe)


def _digits(x, n: int):
    """``x`` rounded to ``n`` decimals for the ledger (None stays None and is left out)."""
    return None if x is None else round(float(x), n)


# --- rules ------------------------------------------------------------------------------------------------

def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def _known(s, *keys: str) -> list[float]:
    """The numbers ``s[k]``, or :class:`~mfattn.companion.verdicts.Undecidable` naming those stored as null or
    non-finite (the stored JSON holds a NaN as null): a rule does not guess a number the run did not make."""
    missing = [k for k in keys if not _finite(s[k])]
    if missing:
        raise verdicts.Undecidable(f"{', '.join(missing)} is not a finite number in the stored results (null)")
    return [s[k] for k in keys]


def _neimark_sacker(s):
    beta, th = s["ns_beta"], s["ns_angle"]
    if not (_finite(beta) and _finite(th)) or min(th, math.pi - th) <= ANGLE_TOL:
        return "fails"  # no crossing, or a real multiplier crosses (fold at +1, flip at −1): not Neimark-Sacker
    return "partly" if _resonance(th) <= ANGLE_TOL else "holds"


def _spectrum(s):
    lam1, lam2 = _known(s, "lam1_max", "lam2_max")  # λ2 is None where one exponent only is stored
    if lam1 <= TOL or lam2 > 10 * TOL:
        return "fails"
    return "holds" if lam2 <= TOL else "partly"


def _staircase(s):
    if s["rho_birth"] is None or s["ns_rotation"] is None or abs(s["rho_birth"] - s["ns_rotation"]) > RHO_TOL \
            or s["plateau_count"] == 0:
        return "fails"
    return "holds" if s["plateau_fractions"] >= 2 else "partly"


TONGUE_MIN = 3  # grid points: a locked region this wide in some ε row is a tongue the rule judges


def _main_tongues(s):
    return {f: w for f, w in s["tongue_widths"].items() if max(w) >= TONGUE_MIN}


def _is_wedge(w):
    """Zero width (at most one grid point) at the smallest ε and never narrower by more than one grid point as ε
    grows: the width of an Arnold tongue against the forcing amplitude."""
    return w[0] <= 1 and all(b >= a - 1 for a, b in zip(w, w[1:]))


def _tongues(s):
    main = _main_tongues(s)
    wedges = [f for f, w in main.items() if _is_wedge(w)]
    if not wedges:
        return "fails"
    return "holds" if len(wedges) == len(main) else "partly"


def _basins(s):
    if s["n_multi"] >= 0.5 * s["basin_n_betas"]:
        return "fails"
    small = s["smallest_basin_contexts"]
    return "holds" if s["n_multi"] > 0 and small is not None and small >= MIN_BASIN else "partly"


def _birth(s):
    off = math.inf if s["ns_beta"] is None else abs(s["ns_beta"] - BIRTH)
    return "holds" if off <= 1e-3 else "partly" if off <= 4e-3 else "fails"


def slope_rule(*keys: str):
    """N^-1/2 within 0.1 for every slope in ``keys`` holds; all below −0.25 (convergence at least as N^-1/4) but
    one outside ±0.1 of −1/2 holds partly; a slope above −0.25 (or NaN) fails (see :data:`SLOPE_HOW`); a slope
    stored as None (null) cannot decide it (:class:`~mfattn.companion.verdicts.Undecidable`)."""
    def rule(s):
        x = [s[k] for k in keys]
        missing = [k for k, v in zip(keys, x) if v is None]
        if missing:
            raise verdicts.Undecidable(f"{', '.join(missing)} is stored as null (no slope)")
        if any(not math.isfinite(v) or v > -0.25 for v in x):
            return "fails"
        return "holds" if all(abs(v + 0.5) <= 0.1 for v in x) else "partly"
    return rule


def _network(s):
    if abs(_known(s, "network_chi2_z")[0]) >= 4:
        return "fails"  # the network's token statistics differ from the binomial sampler's at N = 99
    return slope_rule("network_slope")(s)


#: Said in the notes of the three rows that rest on the same finite-N slopes.
SHARED_SLOPE = (" Three ledger rows (dmft-path-probability, dmft-finite-n, dmft-network-limit) rest on these same RMS "
                "slopes at β = 1 (the class sampler's and the explicit network's): one piece of evidence, the N^-1/2 "
                "convergence to the map, not three independent ones.")

#: Why ±0.1 around −1/2 and why −0.25 (shared with the finite-N claims of :mod:`.claims`).
SLOPE_HOW = ("The central limit theorem gives RMS errors ∝ N^-1/2: a log-log slope within 0.1 of −0.5 holds (over the "
             "three to four decades of N, 0.1 is one end point off by a factor 10^0.3-10^0.4 ≈ 2-2.5, far more than "
             "the sampling error of an RMS over tens of repetitions, while N^-1/4 or N^-1 are told apart); a slope "
             "below −0.25 (convergence at least as N^-1/4, half the CLT rate) but outside that band: with "
             "differences; a slope above −0.25 (no convergence at the CLT's order): fails.")

SPECTRUM_HOW = ("Resolution TOL = 1e-3: each exponent is a mean of log growth over the 10⁴ saved steps of the spectrum "
                "run (30000 − 20000), so a zero exponent (the torus) reads O(1/T) ≈ 1e-4; 1e-3 is ten times that. "
                "Holds if λ1 exceeds TOL somewhere on the zoom's grid (the breakdown into chaos) while λ2 never does "
                "(at most one unstable direction, as when a torus breaks); λ2 between TOL and 1e-2 (a second "
                "direction not told apart from zero): with differences; no λ1 above TOL, or λ2 above 1e-2 "
                "(hyperchaos, not the breakdown of a torus): refuted.")

_F = {"holds": {"network_slope": -0.59, "network_chi2_z": 3.9},
      "partly": {"network_slope": -0.61, "network_chi2_z": 0.0},
      "fails": {"network_slope": -0.5, "network_chi2_z": 4.0}}


def _resonance(theta: float) -> float:
    """Distance (rad) of a Floquet angle from the strong resonances 1:4 (π/2) and 1:3 (2π/3)."""
    return min(abs(theta - math.pi / 2), abs(theta - 2 * math.pi / 3))


BEYOND = [
    Claim("dmft-floquet-neimark-sacker", "ours (Floquet analysis of the period-4 orbit)",
          "The period-4 orbit loses stability in a Neimark-Sacker bifurcation: a complex pair of multipliers "
          "crosses |μ| = 1", origin="ours",
          measured="β where the leading Floquet multiplier's modulus crosses 1 (interpolated on a refined grid) "
                   "and the multiplier's angle θ there",
          rule=_neimark_sacker,
          how=f"Holds if a crossing is found and the angle is complex, more than {ANGLE_TOL} rad from 0 and π (a real "
              "multiplier gives exactly 0 or π: a fold or flip, refuted) and more than that from the strong "
              "resonances π/2 and 2π/3 (1:4, 1:3), where the Neimark-Sacker normal form is degenerate and an "
              "invariant circle need not be born (with differences); no crossing on the grid: refuted. "
              f"{ANGLE_TOL} rad is far above the error of θ interpolated between refined grid points (β step 2.5e-4).",
          evidence=("fig-dmft-floquet", t("floquet", "test_multipliers_match_finite_differences_of_the_reference_map"),
                    t("floquet", "test_neimark_sacker_point_of_the_period_4_orbit")),
          note=lambda s: ("No crossing of |μ| = 1 on the Floquet grid." if s["ns_beta"] is None else
                          f"The leading pair crosses |μ| = 1 at β = {s['ns_beta']:.4f} at θ = {s['ns_angle']:.3f} rad "
                          f"(θ/2π = {s['ns_rotation']:.3f}; {_resonance(s['ns_angle']):.3f} "
                          "rad from the nearest strong resonance). One refined crossing is stored (no spread)."),
          numbers=lambda s: {k: _digits(s[k], 5) for k in ("ns_beta", "ns_angle", "ns_rotation")},
          examples={"holds": {"ns_beta": 1.24, "ns_angle": math.pi / 2 + 0.011},
                    "partly": {"ns_beta": 1.24, "ns_angle": math.pi / 2 + 0.009},
                    "fails": {"ns_beta": 1.24, "ns_angle": 0.009}}),
    Claim("dmft-lyapunov-spectrum", "ours (QR method on the 12-dimensional state)",
          "The Lyapunov spectrum of the map (state dimension L M = 12) shows the torus (λ1 = 0 > λ2) and its "
          "breakdown into chaos (λ1 > 0)", origin="ours",
          measured="The largest value over the zoom's β grid of each of the four leading exponents (QR method)",
          rule=_spectrum, how=SPECTRUM_HOW,
          evidence=("fig-dmft-floquet", t("lyapunov", "test_spectrum_sums_to_mean_log_det"),
                    t("lyapunov", "test_largest_exponent_is_engine_lambda_max")),
          note=lambda s: (f"Over the spectrum's β grid λ1 reaches {s['lam1_max']:+.3f} and λ2 never exceeds "
                          f"{s['lam2_max']:+.1e}. Only each exponent's maximum over the grid is stored (one run, no "
                          "window-to-window spread); the torus half (λ1 = 0 > λ2 at one β) is shown by the figure, "
                          "not by stored numbers."),
          numbers=lambda s: {"max lambda1 over the grid": s["lam1_max"], "max lambda2 over the grid": s["lam2_max"],
                             "exponents computed": s["spectrum_k"]},
          examples={"holds": {"lam1_max": 0.15, "lam2_max": 9e-4}, "partly": {"lam1_max": 0.15, "lam2_max": 1.1e-3},
                    "fails": {"lam1_max": 9e-4, "lam2_max": -0.1}}),
    Claim("dmft-devils-staircase", "ours (rotation number of the stroboscopic map)",
          "The rotation number of the stroboscopic map is a devil's staircase over the zoom: it starts at the "
          "Neimark-Sacker angle and the periodic windows are mode-locked plateaus", origin="ours",
          measured="ρ at the first grid point above the Neimark-Sacker β against θ/2π; the mode-locked plateaus "
                   "over 4001 β of the zoom: runs of periodic orbits locked at one fraction p/q (q stroboscopic "
                   "points, period qL, λ_max < 0, ρ = p/q)",
          rule=_staircase,
          how=f"Holds if ρ just above the crossing is within {RHO_TOL} of θ/2π (the tolerance of the rotation test: ρ "
              "averaged over 5000 iterates is good to 1e-4, and θ drifts with β) and plateaus of at least two "
              "fractions exist (steps of a staircase); one fraction only: with differences (a locked window, "
              "not a staircase); ρ off by more, or no plateau: refuted. A plateau is a periodic orbit, not a ρ within "
              "a tolerance of a fraction (which any monotone ρ(β) gives near every fraction): stored plateaus "
              "without their λ_max (before 0.3) leave the claim not tested.",
          evidence=("fig-dmft-rotation", t("rotation", "test_period_28_window_is_locked_at_two_sevenths"),
                    t("rotation", "test_rotation_number_starts_at_the_neimark_sacker_angle")),
          note=lambda s: ("No rotation number above the crossing is stored." if s["rho_birth"] is None else
                          f"Just above the Neimark-Sacker point ρ = {s['rho_birth']:.4f} "
                          f"(θ/2π = {s['ns_rotation']:.4f}); "
                          f"{s['plateau_count']} mode-locked plateaus of {s['plateau_fractions']} fractions (runs of "
                          f"one fraction merged across gaps of ≤ {MAX_GAP} unlocked grid points): {s['plateaus']}."
                          + ("" if s.get("plateaus_b") is None else
                             f" From a second start (the final context of β = 3) ρ differs at "
                             f"{s.get('staircase_branches')} grid points (two branches), plateaus: {s['plateaus_b']}.")
                          + " One run per start."),
          numbers=lambda s: {"rho_birth": _digits(s["rho_birth"], 5), "ns_rotation": _digits(s["ns_rotation"], 5),
                             **{k: s[k] for k in ("plateau_count", "plateau_fractions", "plateaus")}},
          examples={"holds": {"rho_birth": 0.2419, "ns_rotation": 0.2438, "plateau_count": 2, "plateau_fractions": 2},
                    "partly": {"rho_birth": 0.2419, "ns_rotation": 0.24, "plateau_count": 3, "plateau_fractions": 1},
                    "fails": {"rho_birth": 0.2419, "ns_rotation": 0.2440, "plateau_count": 2, "plateau_fractions": 2}}),
    Claim("dmft-arnold-tongues", "ours (forcing amplitude ε)",
          "Over (β, ε) the locked regions of the positional forcing form Arnold tongues: wedges that widen with ε",
          origin="ours",
          measured="The width (β grid points) of each region locked at one fraction p/q (periodic orbits: q "
                   "stroboscopic points, λ_max < 0) in each row of the (β, ε) grid, from ε = 0 to 0.08",
          rule=_tongues,
          how=f"A tongue is a wedge whose width in β opens from zero as the forcing ε grows. Each locked region at "
              f"least {TONGUE_MIN} grid points wide in some row is judged: a wedge if it is at most one grid point wide "
              "at the smallest ε and never narrower by more than one grid point from one ε to the next. Holds if "
              "every such region is a wedge; with differences if some are; refuted if none is (or no region is "
              f"{TONGUE_MIN} points wide anywhere). One grid point is the grid's resolution.",
          evidence=("fig-dmft-rotation", t("rotation", "test_tongue_widths_count_the_locked_points_of_each_row"),
                    t("rotation", "test_period_28_window_is_locked_at_two_sevenths")),
          note=lambda s: (f"Locked width (of {s['tongue_n_betas']} β per row) per fraction at ε = "
                          + ", ".join(f"{e:g}" for e in s["tongue_epsilons"]) + ": "
                          + "; ".join(f"{f}: {', '.join(map(str, w))}" for f, w in _main_tongues(s).items())
                          + f" (regions at least {TONGUE_MIN} points wide somewhere; wedges: "
                          + (", ".join(f for f, w in _main_tongues(s).items() if _is_wedge(w)) or "none")
                          + "). One run per grid point."),
          numbers=lambda s: {"locked regions at least 3 points wide": len(_main_tongues(s)),
                             "of them wedges": sum(_is_wedge(w) for w in _main_tongues(s).values()),
                             "widths by epsilon": "; ".join(f"{f}: {', '.join(map(str, w))}"
                                                            for f, w in _main_tongues(s).items())},
          examples={"holds": {"tongue_widths": {"1/3": [0, 1, 4, 9], "1/7": [0, 0, 2, 1]}},
                    "partly": {"tongue_widths": {"1/3": [0, 1, 4, 9], "1/7": [0, 4, 0, 0]}},
                    "fails": {"tongue_widths": {"1/3": [5, 4, 2, 0]}}}),
    Claim("dmft-basins", "ours (random initial contexts)", "Random initial contexts reach one attractor at most β; "
          "where several coexist, their basins have measurable fractions", origin="ours",
          measured="The attractors reached from random contexts at each sampled β, grouped as sets, and their basin "
                   "fractions",
          rule=_basins,
          how=f"Holds if fewer than half the sampled β have several attractors and every basin where several coexist "
              f"was reached from at least {MIN_BASIN} contexts (a binomial fraction f from n contexts has relative "
              f"error √((1−f)/(nf)) ≤ 1/3 only when nf ≥ {MIN_BASIN}); a smaller basin, or no β with several "
              "attractors (nothing to measure): with differences; several attractors at half the β or more: refuted.",
          evidence=("fig-dmft-basins", t("basins", "test_random_contexts_reach_every_attractor_with_its_fraction")),
          note=lambda s: (f"Several attractors at {s['n_multi']} of {s['basin_n_betas']} sampled β "
                          f"({s['basin_contexts']} contexts each): {s['basins_multi']}."
                          + ("" if s["smallest_basin_contexts"] is None else
                             f" The smallest of their basins holds at most {s['smallest_basin_contexts']:.1f} contexts "
                             "(its rounded percentage plus half a percent)") + "; one sample of contexts per β."),
          numbers=lambda s: {"betas with several attractors": s["n_multi"], "betas sampled": s["basin_n_betas"],
                             "contexts per beta": s["basin_contexts"],
                             "smallest basin, contexts (at most)": s["smallest_basin_contexts"],
                             "basins_multi": s["basins_multi"]},
          examples={"holds": {"n_multi": 2, "basin_n_betas": 6, "smallest_basin_contexts": 9.0},
                    "partly": {"n_multi": 2, "basin_n_betas": 6, "smallest_basin_contexts": 8.9},
                    "fails": {"n_multi": 3, "basin_n_betas": 6, "smallest_basin_contexts": 100.0}}),
    Claim("dmft-torus-birth-floquet", f"{PAPER}, Fig. 3b", "A quasi-periodic torus is born near β ≈ 1.244",
          measured="β where the Floquet multipliers of the period-4 orbit cross |μ| = 1 (our independent check of "
                   "the paper's diagram)",
          rule=_birth,
          how="Holds if the crossing is within 1e-3 of the paper's 1.244 (one unit of the last digit it quotes); "
              "within 4e-3 (a tenth of the zoom's width 0.04: still where the zoom shows the birth): with "
              "differences; farther, or no crossing: not reproduced.",
          evidence=("fig-dmft-floquet", t("floquet", "test_neimark_sacker_point_of_the_period_4_orbit")),
          note=lambda s: ("No crossing of |μ| = 1 on the Floquet grid." if s["ns_beta"] is None else
                          f"Floquet crossing at β = {s['ns_beta']:.4f} (|Δ| = {abs(s['ns_beta'] - BIRTH):.1e} from the "
                          f"paper's 1.244); one refined crossing is stored (no spread)."),
          numbers=lambda s: {"ns_beta": _digits(s["ns_beta"], 5)},
          examples={"holds": {"ns_beta": 1.2449}, "partly": {"ns_beta": 1.2451}, "fails": {"ns_beta": 1.2481}}),
    Claim("dmft-network-limit", f"{PAPER}, mean-field limit N → ∞",
          "The token statistics of the finite network converge to the mean-field map as N grows (N^-1/2)",
          measured="Log-log slope of the RMS error of the explicit ±1 network (tiled weights, U = N²√M) against N at "
                   "t = 39, β = 1; χ² z of its token statistics against the binomial sampler at N = 99",
          rule=_network,
          how=SLOPE_HOW + " It also fails if the network and the binomial sampler disagree at N = 99 (|χ² z| ≥ 4: "
              "beyond four standard deviations of the χ² statistic, one of the two samplers is wrong).",
          evidence=("fig-dmft-network", t("finite_n", "test_network_converges_to_the_mean_field_map_as_n_grows"),
                    t("finite_n", "test_network_is_the_oracle_of_the_binomial_sampler")),
          note=lambda s: (f"Explicit network, not the binomial sampler: slope {s['network_slope']:.2f}"
                          + (f" ± {s['network_slope_se']:.2f} (standard error of the fit over N = {s['network_ns']})"
                             if s.get("network_slope_se") is not None else " (one fit; its error is not stored)")
                          + f"; χ² z against the sampler at N = 99: {s['network_chi2_z']:+.1f}." + SHARED_SLOPE),
          numbers=lambda s: {k: s.get(k) for k in ("network_slope", "network_slope_se", "network_chi2_z",
                                                   "network_ns")},
          examples=_F),
]


BEYOND = [ledger_safe(c) for c in BEYOND]


def record_beyond(run, root: Path | None) -> list:
    """Record the "Beyond the paper" claims (:data:`BEYOND`), each decided by its rule from the stored
    ``data/full/dmft/beyond.json`` (the full profile writes it just before). Without it: "not tested"."""
    return verdicts.record_chapter(run, root, "dmft", BEYOND)
