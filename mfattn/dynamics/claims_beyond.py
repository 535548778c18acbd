"""Chapter 6's claims of its "Beyond the paper" section, declared with the rules that decide them from the full
profile's ``data/full/dmft/beyond.json`` (and the stored zoom, where a rule reads its orbits): our own analyses
(``origin="ours"``: confirmed / refuted) and the two paper claims they check independently (a torus is born inside
the zoom window [1.24, 1.28]; the finite network's limit is the map), each with its premises (quote, thresholds
with the reasons the stored numbers bear out, alternatives, spread; :mod:`mfattn.companion.premises`).

:mod:`.claims` gathers these with the paper's figure claims into ``DECLARED``; the stored numbers are read and
flattened in :mod:`.claims_stored` (re-exported here: :func:`glue_values`, :func:`beyond_numbers`, ...);
:func:`record_beyond` records these claims only. The rules that decide them, with their notes and checks, are
:mod:`.claims_beyond_rules`' (re-exported here).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from ..companion import verdicts
from ..companion.checks import check_bool, check_choice, check_edges, check_positive, check_real  # noqa: F401
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim
from . import claims_lambda as lam_  # noqa: F401
from .claims_lambda import guarded
from .claims_limit import HORIZON_ALTERNATIVE, HORIZON_HOW, SHARED_SLOPE, SLOPE_HOW, horizon_note, network_at, \
    slope_rule, slope_thresholds  # noqa: F401
from .claims_birth import BIRTH, birth_at, circle_fit  # noqa: F401  (the torus birth: its own module)
from .claims_quotes import QUOTES
from .claims_tongues import TONGUES
from .claims_stored import check_run
from .claims_stored import FIG4, MISSING, PAPER, _slope_and_error, beyond_full_numbers, beyond_numbers, \
    glue_values, plateau_summary  # noqa: F401  (re-exported: where they were before)
from .claims_beyond_rules import (ANGLE_TOL, MIN_BASIN, RHO_TOL, SPECTRUM_HOW, TOL, WINDOW, _angle_error,  # noqa: F401
                                  _basins_chaos_merged, _born_circle, _branches, _cut, _finite, _former_staircase,
                                  _known, _leap, _monotone, _on_torus, _plateaus_before, _resonance, _skipped,
                                  _spectrum_check, _staircase_note, _torus_text, basins_at, neimark_sacker_at,
                                  spectrum_at, staircase_at, torus_betas)
from .rotation import MAX_GAP  # noqa: F401

__all__ = ["PAPER", "FIG4", "MISSING", "glue_values", "BEYOND", "beyond_full_numbers", "beyond_numbers",
           "plateau_summary", "record_beyond", "SLOPE_HOW", "SHARED_SLOPE", "slope_rule", "ledger_safe"]

t = lambda module, name: f"tests/test_dynamics_{module}.py::{name}"  # noqa: E731  a test id


def ledger_safe(claim: Claim) -> Claim:
    """``claim`` with its shown numbers fit for the ledger: a non-finite float (no crossing, no such β on the grid)
    becomes the string "none" (the ledger takes finite numbers and strings only; None is left out)."""
    if not isinstance(claim, Claim):
        raise TypeError(f"claim must be a Claim; got {type(claim).__name__}")
    if not callable(claim.numbers):
        return claim
    shown = claim.numbers
    safe = lambda s: {k: "none" if isinstance(v, float) and not math.isfinite(v) else v  # noqa: E731
                      for k, v in shown(s).items()}
    return dataclasses.replace(claim, numbers=safe)


def _digits(x, n: int):
    """``x`` rounded to ``n`` decimals for the ledger (None stays None and is left out)."""
    return None if x is None else round(float(x), n)


_F = {"holds": {"network_slope": -0.59, "network_chi2_z": 3.9},
      "partly": {"network_slope": -0.61, "network_chi2_z": 0.0},
      "fails": {"network_slope": -0.5, "network_chi2_z": 4.0}}
_RZ = {"betas": np.linspace(1.24, 1.28, 41), "period": np.array([4] * 4 + [0] * 37),
       "lyapunov": np.array([-0.1] * 4 + [1e-5] * 26 + [0.1] * 11)}   # lasting chaos from 1.27
_R = {"rho_birth": 0.2419, "ns_rotation": 0.2438, "plateau_count": 2, "torus_breakup_beta": 1.2626,
      "z_orbit_arrays": _RZ,
      "plateau_steps": [[(1.2495, "1/4"), (1.2624, "5/17"), (1.2627, "2/7")], [(1.2495, "1/4"), (1.2636, "12/41"),
                                                                             (1.2645, "3/11")]]}
_DETERMINISTIC_FLOQUET = Spread.deterministic("a Newton-converged period-4 orbit and the multipliers of its monodromy "
                                              "matrix: no seed or start enters, and the crossing is interpolated on "
                                              "a refined β grid")

BEYOND = [
    Claim("dmft-floquet-neimark-sacker", "ours (Floquet analysis of the period-4 orbit)",
          "The period-4 orbit loses stability in a Neimark-Sacker bifurcation: a complex pair of multipliers "
          "crosses |μ| = 1", origin="ours",
          measured="β where the leading Floquet multiplier's modulus crosses 1 (interpolated on a refined grid) "
                   "and the multiplier's angle θ there",
          rule_at=neimark_sacker_at,
          thresholds=(Threshold("angle_tol", ANGLE_TOL, "resolution", "the error of the interpolated angle is "
                                "measured: a torus born at the crossing turns by θ per iterate, and ρ one grid step "
                                "past it differs from θ/2π by 1.1e-4 (6.7e-4 rad), fifteen times below 0.01 rad",
                                guarded(lambda s: (_angle_error(s) <= ANGLE_TOL / 5,
                                                   f"2π|ρ − θ/2π| = {_angle_error(s):.1e} rad")),
                                noise=guarded(_angle_error)),),
          alternatives=(
              Alternative("decided by what is born: every β of the zoom between the crossing and the first 1/4 "
                          "plateau is a torus (a circle is born, the resonance does not degenerate it)", "reading",
                          lambda s: "holds" if _born_circle(s) else "partly"),),
          spread=_DETERMINISTIC_FLOQUET,
          how=f"Holds if a crossing is found and the angle is complex, more than {ANGLE_TOL} rad from 0 and π (a real "
              "multiplier gives exactly 0 or π: a fold or flip, refuted) and more than that from the strong "
              "resonances π/2 and 2π/3 (1:4, 1:3), where the Neimark-Sacker normal form is degenerate and an "
              "invariant circle need not be born (with differences); no crossing on the grid: refuted. "
              f"{ANGLE_TOL} rad is fifteen times the measured error of θ (2π|ρ − θ/2π| one grid step past the "
              "crossing). The crossing lies 0.051 rad from the 1:4 resonance, five times the tolerance; the normal "
              "form degenerates only at the resonance itself (e^{4iθ} = 1), and every β of the zoom between the "
              "crossing and the 1/4 plateau (6e-3 past it) is a torus: a circle is born.",
          evidence=("fig-dmft-floquet", t("floquet", "test_multipliers_match_finite_differences_of_the_reference_map"),
                    t("floquet", "test_neimark_sacker_point_of_the_period_4_orbit")),
          note=lambda s: ("No crossing of |μ| = 1 on the Floquet grid." if s["ns_beta"] is None else
                          f"The leading pair crosses |μ| = 1 at β = {s['ns_beta']:.4f} at θ = {s['ns_angle']:.3f} rad "
                          f"(θ/2π = {s['ns_rotation']:.3f}; {_resonance(s['ns_angle']):.3f} rad from the nearest "
                          "strong resonance, the 1:4 at π/2). One refined crossing of a deterministic orbit."),
          numbers=lambda s: {k: _digits(s[k], 5) for k in ("ns_beta", "ns_angle", "ns_rotation")},
          examples={"holds": {"ns_beta": 1.24, "ns_angle": math.pi / 2 + 0.011},
                    "partly": {"ns_beta": 1.24, "ns_angle": math.pi / 2 + 0.009},
                    "fails": {"ns_beta": 1.24, "ns_angle": 0.009}}),
    Claim("dmft-lyapunov-spectrum", "ours (QR method on the 12-dimensional state)",
          "The Lyapunov spectrum of the map (state dimension L M = 12) shows the torus (λ1 = 0 > λ2) and its "
          "breakdown into chaos (λ1 > 0)", origin="ours",
          measured="The largest value over the zoom's β grid of each of the four leading exponents (QR method)",
          rule_at=spectrum_at,
          thresholds=(Threshold("tol", TOL, "stored distribution", "a zero exponent over the spectrum run's 10⁴ steps "
                                "reads the torus's bounded log growth over 10⁴ steps: the stored zoom's tori reach a "
                                "log growth of 2.3, i.e. 2.3e-4, under half of 1e-3", guarded(_spectrum_check),
                                noise=guarded(lambda s: lam_.torus_log_growth(s) / 1e4)),
                      Threshold("hyper", 10 * TOL, "convention", "a second exponent ten times the resolution is a "
                                "second unstable direction (hyperchaos), not the breakdown of a torus")),
          spread=Spread("β on the torus (per-β spectrum; one spectrum per β)",
                        lambda s: ({"lambda1 on the torus": _on_torus(s, 0), "lambda2 on the torus": _on_torus(s, 1)}
                                   if "spectrum" in s else
                                   {"largest lambda1": [s["lam1_max"]], "largest lambda2": [s["lam2_max"]]})),
          how=SPECTRUM_HOW,
          evidence=("fig-dmft-floquet", t("lyapunov", "test_spectrum_sums_to_mean_log_det"),
                    t("lyapunov", "test_largest_exponent_is_engine_lambda_max")),
          note=lambda s: (f"Over the spectrum's β grid λ1 reaches {s['lam1_max']:+.3f} and λ2 never exceeds "
                          f"{s['lam2_max']:+.1e}. " + _torus_text(s)),
          numbers=lambda s: {"max lambda1 over the grid": s["lam1_max"], "max lambda2 over the grid": s["lam2_max"],
                             "exponents computed": s["spectrum_k"]},
          examples={"holds": {"lam1_max": 0.15, "lam2_max": 9e-4}, "partly": {"lam1_max": 0.15, "lam2_max": 1.1e-3},
                    "fails": {"lam1_max": 9e-4, "lam2_max": -0.1}}),
    Claim("dmft-devils-staircase", "ours (rotation number of the stroboscopic map)",
          "From fixed starts, the rotation number of the stroboscopic map starts at the Neimark-Sacker angle θ/2π and "
          "mode-locks on plateaus of several fractions, whose order in β up to lasting chaos is not monotone (a start "
          "may change attractor between β where attractors coexist: ρ along one attractor, a continuation branch, and "
          "a devil's staircase are not tested)", origin="ours",
          reading="ours: each branch is a fixed start run at every β (not a continuation of one attractor); the "
                  "plateaus are read up to lasting chaos (the zoom's leap into deep chaos, dmft-zoom's onset); the "
                  "first chaotic β before it (a blip of weak chaos inside the 5/17 plateau's cascade, "
                  "tori resuming after) is tried as the cut",
          measured="ρ at the first grid point above the Neimark-Sacker β against θ/2π; the mode-locked plateaus "
                   "over 4001 β of the zoom from six starts (six branches: the zoom's start, β = 3's context and four "
                   "last-bit copies of the zoom's start): runs of periodic orbits locked at one fraction p/q (q "
                   "stroboscopic points, period qL, λ_max < 0, ρ = p/q), in β order, before lasting chaos",
          rule_at=staircase_at,
          thresholds=(Threshold("rho_tol", RHO_TOL, "resolution", "ρ averaged over 5000 iterates is good to 1e-4 and θ "
                                "drifts with β: the stored ρ one grid step past the crossing differs from θ/2π by "
                                "1.1e-4, under a tenth of 2e-3",
                                guarded(lambda s: (abs(s["rho_birth"] - s["ns_rotation"]) <= RHO_TOL / 10,
                                                   f"|ρ − θ/2π| = {abs(s['rho_birth'] - s['ns_rotation']):.1e}")),
                                noise=guarded(lambda s: abs(s["rho_birth"] - s["ns_rotation"]))),),
          alternatives=(Alternative("cut at the zoom's first chaotic β (the blip) instead of lasting chaos", "reading",
                                    staircase_at(RHO_TOL, cut="first chaos")),
                        Alternative("over the whole zoom (past lasting chaos too)", "unit",
                                    staircase_at(RHO_TOL, cut="whole")),
                        Alternative("the former rule: plateaus of two fractions or more, order not asked",
                                    "statistic", lambda s: _former_staircase(s))),
          spread=Spread("start (branch of the staircase)",
                        lambda s: {"plateaus before lasting chaos": [len(fr) for fr in _branches(s, _leap(s))]}),
          how=f"Ours, what the fixed-start branches show: a circle map's ρ is monotone in a parameter that shifts its "
              f"rotation, but β reshapes this map, so ρ(β) need not be monotone and its order is measured, not "
              f"assumed. Holds if ρ just above the crossing is within {RHO_TOL} of θ/2π and on every "
              "stored branch with plateaus of two fractions or more before lasting chaos their fractions are not in "
              "rising order; with differences if some branches rise; refuted if every branch rises, ρ is off or no "
              "plateau exists. A plateau is a periodic orbit (stored plateaus without "
              "their λ_max, before 0.3, leave it not tested). Lasting chaos begins at the zoom's first orbit of deep "
              "chaos (λ_max ≥ 1e-2); the weakly chaotic β before it are a blip in the 5/17 plateau's period-doubling "
              "cascade, after which tori resume.",
          evidence=("fig-dmft-rotation", t("rotation", "test_period_28_window_is_locked_at_two_sevenths"),
                    t("rotation", "test_rotation_number_starts_at_the_neimark_sacker_angle")),
          note=_staircase_note,
          numbers=lambda s: {"rho_birth": _digits(s["rho_birth"], 5), "ns_rotation": _digits(s["ns_rotation"], 5),
                             **{k: s[k] for k in ("plateau_count", "plateau_fractions", "plateaus")},
                             "plateaus before lasting chaos, by branch": _plateaus_before(s, _leap(s))},
          examples={"holds": _R, "partly": {**_R, "plateau_steps": _R["plateau_steps"] + [[(1.2495, "1/4"),
                                                                                           (1.2624, "5/17")]]},
                    "fails": {**_R, "rho_birth": 0.2460}}),
    TONGUES,
    Claim("dmft-basins", "ours (random initial contexts)", "Random initial contexts reach one attractor at most β; "
          "where several coexist, their basins have measurable fractions", origin="ours",
          measured="The attractors reached from random contexts at each sampled β, grouped as sets, and their basin "
                   "fractions",
          rule_at=basins_at,
          thresholds=(Threshold("min_basin", MIN_BASIN, "theorem", "a binomial fraction f read from n contexts has "
                                "relative error √((1−f)/(nf)), at most 1/3 only when nf ≥ 9"),),
          alternatives=(Alternative("a basin reached from fewer than 9 contexts reported as below the detection limit "
                                    "(unmeasured), not as a difference", "reading",
                                    basins_at(MIN_BASIN, unmeasured_ok=True)),
                        Alternative("two chaotic attractors at one β counted as one (the set comparison, calibrated on "
                                    "random halves of one section, may split an intermittent chaotic attractor)",
                                    "reading", _basins_chaos_merged)),
          spread=Spread("β sampled (256 random contexts each)",
                        lambda s: {"several attractors (1) or one (0)": [1] * s["n_multi"]
                                   + [0] * (s["basin_n_betas"] - s["n_multi"])}),
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
    BIRTH,
    Claim("dmft-network-limit", f"{PAPER}, mean-field limit N → ∞",
          "The token statistics of the finite network converge to the mean-field map as N grows (ours: at the "
          "central-limit rate, RMS errors ∝ N^-1/2)",
          quote=QUOTES["dmft-network-limit"],
          reading="the paper's claim is the limit (its equations are exact as N → ∞; the text gives no rate); the "
                  "rate N^-1/2 is ours (the central limit theorem) and the rule asks for it, which is stricter; the "
                  "text's reading (the error decreases with N, no rate) is an alternative",
          measured="Log-log slope of the RMS error of the explicit ±1 network (tiled weights, U = N²√M) against N at "
                   "t = 39, β = 1; χ² z of its token statistics against the binomial sampler at N = 99",
          rule_at=network_at,
          thresholds=slope_thresholds() + (Threshold("z_max", 4, "theorem", "beyond four standard deviations of the "
                                                     "χ² statistic one of the two samplers is wrong"),),
          alternatives=(Alternative("the rate within two standard errors of the explicit network's own fit (no 0.1 "
                                    "floor; two-sided)", "statistic", network_at(0.0, -0.25, 4)),
                        Alternative("the text's reading: the error decreases with N (slope below zero by two standard "
                                    "errors), the rate not asked", "reading",
                                    lambda s: "holds" if s["network_slope"] + 2 * s["network_slope_se"] < 0
                                    and abs(s["network_chi2_z"]) < 4 else "fails"),
                        HORIZON_ALTERNATIVE),
          spread=Spread("network size N", lambda s: {"RMS error": s["network_errors"]}),
          how=SLOPE_HOW + " It also fails if the network and the binomial sampler disagree at N = 99 (|χ² z| ≥ 4: "
              "beyond four standard deviations of the χ² statistic, one of the two samplers is wrong). The explicit "
              "network is read at β = 1, t = 39; the chaotic unit is the binomial sampler's, the network's law. "
              + HORIZON_HOW,
          evidence=("fig-dmft-network", t("finite_n", "test_network_converges_to_the_mean_field_map_as_n_grows"),
                    t("finite_n", "test_network_is_the_oracle_of_the_binomial_sampler")),
          note=lambda s: (f"Explicit network, not the binomial sampler: slope {s['network_slope']:.2f}"
                          + (f" ± {s['network_slope_se']:.2f} (standard error of the fit over N = {s['network_ns']})"
                             if s.get("network_slope_se") is not None else " (one fit; its error is not stored)")
                          + f"; χ² z against the sampler at N = 99: {s['network_chi2_z']:+.1f}. " + horizon_note(s)
                          + SHARED_SLOPE),
          numbers=lambda s: {k: s.get(k) for k in ("network_slope", "network_slope_se", "network_chi2_z",
                                                   "network_ns")},
          examples=_F),
]


BEYOND = [ledger_safe(c) for c in BEYOND]


def record_beyond(run, root: Path | None) -> list:
    """Record the "Beyond the paper" claims (:data:`BEYOND`), each decided by its rule from the stored
    ``data/full/dmft/beyond.json`` (the full profile writes it just before). Without it: "not tested"."""
    check_run(run)
    return verdicts.record_chapter(run, root, "dmft", BEYOND)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
