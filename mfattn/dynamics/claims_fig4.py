"""Chapter 6's claims on single orbits and on how orbits are told apart: Fig. 4 (the planes), Fig. 5 (spectra and
memory, from :mod:`.claims_memory`), the finite network, our λ classification and the coexistence of attractors
(those two from :mod:`.claims_orbit_classes`); each declared with its rule and premises
(:mod:`mfattn.companion.premises`). :mod:`.claims` gathers them with the diagram claims."""

from __future__ import annotations

from mfattn.companion.stored_views import MissingNumber  # a KeyError naming the stored number a rule lacks

from collections.abc import Mapping

import numpy as np

from ..companion.checks import check_bool, check_edges, check_positive, check_real  # noqa: F401
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim, Undecidable, finite_rule
from . import claims_lambda as lam_
from .claims_beyond import SHARED_SLOPE, SLOPE_HOW, slope_rule, slope_thresholds
from .claims_limit import HORIZON_ALTERNATIVE, HORIZON_HOW, _se, horizon_note
from .claims_lambda import guarded
from .claims_memory import CLAIMS_MEMORY, _never, _steps, _tau, _windows_text  # noqa: F401
from .claims_orbit_classes import (_CO, _LAMBDA, _LC, _LT, _LY, CLAIMS_CLASSES, COEXIST_STEP, DENSE,  # noqa: F401
                                   _disagreements, _former_lyapunov, _grid_check, _lyapunov_note, _orbits_example,
                                   _window_changes, coexist_at, lyapunov_at, runs)
from .claims_quotes import QUOTES
from .claims_stored import FIG4, NOT_RUN, PAPER  # noqa: F401

__all__ = ["CLAIMS_FIG4", "KINDS"]

KINDS = ("torus", "torus", "chaotic", "periodic", "chaotic", "chaotic")  # the paper's Fig. 4 reading of each β
D = "tests/test_dynamics_diagnostics.py::"
T = "tests/test_dynamics_engine.py::"
F = "tests/test_dynamics_finite_n.py::"


# --- Fig. 4 ---------------------------------------------------------------------------------------------------

def _fig4_kinds(s, which="", lt=lam_.LT, lc=lam_.LC):
    return [lam_.kind(lam, p, lt, lc) for lam, p in zip(s[f"f4_lyapunov{which}"], s[f"f4_period{which}"])]


def _fig4_match(s, which="", lt=lam_.LT, lc=lam_.LC):
    return all(abs(b - e) < 1e-9 for b, e in zip(s["f4_betas"], FIG4)) and _fig4_kinds(s, which, lt, lc) == list(KINDS)


def _census_kinds(s, lt=lam_.LT, lc=lam_.LC):
    """Per Fig. 4 β, the kind of every attractor the last-bit starts reach (an attractor whose starts' λ_max fall
    in two classes is "undecided"), or None where no census is stored."""
    rows = {round(r["beta"], 9): r for r in s.get("census") or []}
    if not rows or any(round(b, 9) not in rows for b in FIG4):
        return None
    out = []
    for b in FIG4:
        kinds = []
        for a in rows[round(b, 9)]["attractors"]:
            lo, hi = (lam_.kind(v, a["period"], lt, lc) for v in a["lyapunov"])
            kinds.append(lo if lo == hi else "undecided")
        out.append(kinds)
    return out


def census_planes_at(lt: float, lc: float):
    """Fig. 4 on the set of attractors at each β: every attractor the last-bit starts reach of the paper's kind
    (holds); the paper's kind among them at every β but another kind too (partly); at some β none of its kind
    (fails). ``0 < lt < lc``."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)

    @finite_rule
    def rule(s):
        if not isinstance(s, Mapping):
            raise TypeError(f"s must be the stored numbers (a mapping of names to values); got {type(s).__name__}")
        per_beta = _census_kinds(s, lt, lc)
        if per_beta is None:
            return planes_at(lt, lc)(s)          # no census stored: one orbit per β
        if any("undecided" in k or "unknown" in k for k in per_beta):
            raise Undecidable("an attractor reached at a Fig. 4 β has starts in two λ classes: its kind is not measured")
        if any(want not in kinds for want, kinds in zip(KINDS, per_beta)):
            return "fails"
        if all(set(kinds) == {want} for want, kinds in zip(KINDS, per_beta)):
            return "holds" if s["f4_start"] == "paper" else "partly"
        return "partly"
    return rule


def _census_text(s):
    rows = s.get("census")
    if not rows:
        return ""
    from .perturbed import attractor_kind
    parts = [f"{r['beta']:g}: " + " and ".join(f"{attractor_kind(a)} ({a['starts']} of {r['n_starts']})"
                                               for a in r["attractors"]) for r in rows]
    return (f" From {rows[0]['n_starts']} copies of the Fig. 4 start differing in the last bits (a few units in the "
            "last place), the attractors reached: " + "; ".join(parts) + ".")


def planes_at(lt: float, lc: float, which: str = ""):
    """Each Fig. 4 orbit (from the paper's context; ``which="_ours"``: from ours) of the paper's kind (``0 < lt < lc``)."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)

    @finite_rule
    def rule(s):
        kinds = _fig4_kinds(s, which, lt, lc)
        if "unknown" in kinds or "undecided" in kinds:
            raise Undecidable("a β of Fig. 4 has no period and its λ_max is stored as null or lies between the "
                              "torus and chaos thresholds: its kind is not measured")
        if not _fig4_match(s, which, lt, lc):
            return "fails"
        return "holds" if which or s["f4_start"] == "paper" else "partly"
    return rule


def _planes_numbers(s):
    out = {f"lambda_max at beta = {b:g}": v for b, v in zip(s["f4_betas"], s["f4_lyapunov"])}
    out.update({f"lambda_max at beta = {b:g}, our own context": v
                for b, v in zip(s["f4_betas"], s["f4_lyapunov_ours"])})
    out.update({"period at beta = 1.27": s["f4_period"][3],
                "start": "the paper's stored β = 1.28 context" if s["f4_start"] == "paper" else "our own context",
                "betas where our own start differs": ", ".join(f"{b:g}" for b, d in zip(s["f4_betas"], s["f4_differ"])
                                                               if d) or "none"})
    return out


def _islands_text(s):
    isl = s.get("f4_islands")
    if not isl:
        return ""
    chains = [f"{b:g} ({q} islands)" for b, q, p in zip(s["f4_betas"], isl, s["f4_period"]) if q and q > 1 and not p]
    return (" Stroboscopic sections without a period that split into pieces visited in turn (an island chain: a set "
            "of curves around a locked cycle, as the paper's 'a set of continuous curves'): "
            + (", ".join(chains) or "none") + ".")


def _two_starts(s):
    """How far the two starts' λ_max lie apart: the largest ratio where both are chaotic, the largest |λ| where
    both are tori (the only spread of λ the stored run holds)."""
    pairs = [(a, o) for a, o in zip(s["f4_lyapunov"], s["f4_lyapunov_ours"]) if a is not None and o is not None]
    ratio = [max(a, o) / min(a, o) for a, o in pairs if min(a, o) > lam_.LC]
    zero = [max(abs(a), abs(o)) for a, o in pairs if max(abs(a), abs(o)) <= lam_.LT]
    return ((f"; chaotic λ differ by up to a factor {max(ratio):.1f}" if ratio else "")
            + (f", tori stay within {max(zero):.0e} of 0" if zero else ""))


def _planes_note(s):
    n = _planes_numbers(s)
    lam = lambda key: ", ".join(f"{b:g}: " + ("null" if v is None else f"{v:+.2g}")  # noqa: E731
                                for b, v in zip(s["f4_betas"], s[key]))
    return (f"From {n['start']}: λ_max = {lam('f4_lyapunov')}; period at 1.27: {s['f4_period'][3]}. "
            + _windows_text(s, "f4_lyapunov_windows", lambda v: f"{v:+.2g}",
                            f"λ_max ({s.get('f4_lyapunov_window', '?')} steps each)")
            + f" Our own start: λ_max = {lam('f4_lyapunov_ours')} "
            f"(the same kind at {'all' if _fig4_match(s, '_ours') else 'not all'} six β{_two_starts(s)}); the "
            f"attractors differ as sets at β = {n['betas where our own start differs']}, where two attractors "
            "coexist and the figure shows the one each start reaches." + _islands_text(s) + _census_text(s))


# --- Fig. 5 ---------------------------------------------------------------------------------------------------

FLAT = 0.03   # spectral flatness: a tenth of the chaotic orbits' (0.28-0.30), far above a few lines' (→ 0)


def _flatness(s, beta):
    spec = s.get("f4_spectral")
    if not spec or "flatness" not in spec[0]:   # a run before 0.4: the numbers predate the rule
        raise MissingNumber("f4_spectral flatness")
    v = spec[list(s["f4_betas"]).index(beta)]["flatness"]
    if v is None or not np.isfinite(v):
        raise Undecidable(f"the spectral flatness at β = {beta:g} is stored as null")
    return v


def spectra_at(decay: float, flat: float | None = FLAT, chaotic: tuple[float, ...] = (1.28,), acf: bool = True):
    """Both halves of the contrast, the worse grade deciding. The autocorrelation (``acf``): the torus (1.26405) never
    decays, over the whole series and in every window; each ``chaotic`` β decays within ``decay`` steps over the
    whole series and in every window (later, or never in some window: partly). The spectrum (``flat`` not None): the
    torus's spectral flatness below ``flat`` (lines) and each chaotic β's above it (broadband) holds, one of the two
    partly, neither fails."""
    def acf_grade(s):
        torus = [_tau(s, "f4_tau_e", 1.26405)] + list(_tau(s, "f4_tau_e_windows", 1.26405))
        whole = [_tau(s, "f4_tau_e", b) for b in chaotic]
        if any(t is not None for t in torus) or any(t is None for t in whole):
            return "fails"
        times = [_never(t) for b in chaotic for t in [_tau(s, "f4_tau_e", b)] + list(_tau(s, "f4_tau_e_windows", b))]
        return "holds" if max(times) <= decay else "partly"

    def spectrum_grade(s):
        right = [_flatness(s, 1.26405) < flat] + [_flatness(s, b) > flat for b in chaotic]
        return "holds" if all(right) else "partly" if any(right) else "fails"

    def rule(s):
        grades = ([acf_grade(s)] if acf else []) + ([spectrum_grade(s)] if flat is not None else [])
        return "fails" if "fails" in grades else "partly" if "partly" in grades else "holds"
    return rule


def _top10(s):
    """The spectrum alone, by the share of the power in the 10 strongest bins (torus ≥ 1/2, chaos < 1/2)."""
    spec = s.get("f4_spectral")
    if not spec or "top10_share" not in spec[0]:
        raise Undecidable("the spectra's top-10 share is not stored (runs before 0.4)")
    at = lambda b: spec[list(s["f4_betas"]).index(b)]["top10_share"]  # noqa: E731
    right = [at(1.26405) >= 0.5, at(1.28) < 0.5]
    return "holds" if all(right) else "partly" if any(right) else "fails"


def _flat_text(s):
    spec = s.get("f4_spectral")
    if not spec or "flatness" not in spec[0]:
        return "No spectral flatness is stored (runs before 0.4). "
    return ("Spectral flatness (share of the power in the 10 strongest bins): " + ", ".join(
        f"β = {b:g}: {x['flatness']:.3g} ({x['top10_share']:.0%})" for b, x in zip(s["f4_betas"], spec)) + ". ")


def _flat_check(s):
    torus = [_flatness(s, b) for b in (1.255, 1.26405)]
    chaos = [_flatness(s, b) for b in (1.266, 1.28, 1.4)]
    ok = max(torus) < FLAT / 3 and min(chaos) > 3 * FLAT
    return ok, (f"spectral flatness at the tori of Fig. 4: {', '.join(f'{x:.3g}' for x in torus)}; at its chaotic β: "
                f"{', '.join(f'{x:.3g}' for x in chaos)}: {FLAT:g} lies {'more' if ok else 'less'} than a factor three "
                "from both (white noise gives 0.56)")


def _spectra_check(s):
    w = [_never(t) for t in _tau(s, "f4_tau_e_windows", 1.28)]
    return max(w) <= 100 / 5, f"at β = 1.28 the nine windows' 1/e times run from {min(w):g} to {max(w):g} steps"


def _spectra_noise(s):
    """The range of the 1/e times over the windows at β = 1.28 (those that decay)."""
    w = [t for t in _tau(s, "f4_tau_e_windows", 1.28) if t is not None]
    if len(w) < 2:
        raise MissingNumber("1/e times of two windows at β = 1.28")
    return max(w) - min(w)


_P = dict(f4_betas=list(FIG4), f4_lyapunov=[1e-5, -1e-5, 0.1, -0.05, 0.15, 0.08], f4_period=[0, 0, 0, 28, 0, 0],
          f4_start="paper")


def _census_example(extra=None, drop=None):
    """A stored census for the examples: at each Fig. 4 β one attractor of the paper's kind (two tori at 1.26405,
    an island chain and a closed curve), plus ``extra`` {β: (period, λ)} attractors; ``drop``: a β whose
    paper-kind attractor is replaced by a period-4 orbit."""
    att = lambda period, lam, n=8: {"period": period, "starts": n, "share": n / 16, "start0": True,  # noqa: E731
                                    "lyapunov": [lam, lam], "islands": 1, "bins": None}
    rows = []
    for b, lam, per in zip(FIG4, _P["f4_lyapunov"], _P["f4_period"]):
        found = [att(4, -0.1)] if b == drop else [att(per, lam)]
        if b == 1.26405:
            found.append(att(0, 2e-6))
        if extra and b in extra:
            found.append(att(*extra[b]))
        rows.append({"beta": b, "n_starts": 16, "attractors": found})
    return rows


_SP = [{"flatness": f, "top10_share": t} for f, t in ((1e-3, 0.9), (2e-3, 0.8), (0.3, 0.05), (1e-4, 0.99),
                                                        (0.3, 0.04), (0.35, 0.03))]
_S = dict(f4_betas=list(FIG4), f4_spectral=_SP, f4_tau_e=[None, None, 10, None, 100, 20],
          f4_tau_e_windows=[[None] * 3, [None] * 3, [10, 64, None], [None] * 3, [20, 10, 11], [20, 13, 32]])


CLAIMS_FIG4 = [
    Claim("dmft-planes", f"{PAPER}, Fig. 4", "At β = 1.255 and 1.26405 the orbit jumps between points on a set of "
          "continuous curves (quasi-periodic), at 1.266 it is chaotic, at 1.27 periodic, at 1.28 and 1.4 chaotic",
          quote=QUOTES["dmft-planes"],
          measured="λ_max and the period at the six β of Fig. 4, run 1.2·10⁵ steps from the paper's stored β = 1.28 "
                   "context (and from ours)",
          rule_at=census_planes_at, thresholds=_LAMBDA,
          alternatives=(Alternative("from our own β = 1.28 context", "unit", planes_at(lam_.LT, lam_.LC, "_ours")),
                        Alternative("one orbit per β from the paper's context (the rule before the census)",
                                    "reading", planes_at(lam_.LT, lam_.LC))),
          spread=Spread("start (the paper's context and ours)",
                        lambda s: {f"lambda_max at beta = {b:g}": [a, o] for b, a, o in
                                   zip(s["f4_betas"], s["f4_lyapunov"], s["f4_lyapunov_ours"])
                                   if a is not None and o is not None}),
          how="Decided on the set of attractors at each β, not on one orbit: near the breakup which attractor a run "
              "reaches can turn on the last bits of its sums, so the Fig. 4 start is run from last-bit copies of "
              "itself (a few units in the last place) and the orbits are grouped into the attractors reached. Each "
              "attractor must be the paper's kind by the classes below (a set of curves is a torus or an island chain "
              "around a locked cycle: no period, λ_max ≈ 0). Holds if at all six β every attractor reached from the "
              "paper's stored context is of the paper's kind; with differences if the paper's kind is among them at "
              "every β but another kind is reached too (or only our own context is available); the paper's kind "
              "missing at some β: not reproduced; an attractor whose starts fall in two classes: not tested. Without "
              "a stored census, one orbit per β decides. "
              + lam_.LAMBDA_HOW,
          evidence=("fig-dmft-planes", T + "test_lyapunov_signs_at_fig4_betas"),
          note=_planes_note, numbers=_planes_numbers,
          examples={"holds": {**_P, "census": _census_example()},
                    "partly": {**_P, "census": _census_example(extra={1.255: (16, -0.01)})},
                    "fails": {**_P, "census": _census_example(drop=1.266)}}),
    Claim("dmft-spectra", "ours (the torus / chaos contrast of Fig. 5)", "A quasi-periodic orbit has a line spectrum "
          "and a recurring autocorrelation; a chaotic one a broadband spectrum and an autocorrelation that decays",
          origin="ours", quote=QUOTES["dmft-spectra"],
          measured="The spectrum: spectral flatness of m^o_1 (geometric over arithmetic mean of the Hann-windowed "
                   "periodogram, forced part removed: → 0 for a few lines, 0.56 for white noise) and the share of "
                   "the power in its 10 strongest bins, over the 2·10⁴ saved steps. The autocorrelation: the lag at "
                   "which its envelope falls below 1/e, over the whole series (2000 lags) and in each of nine windows "
                   "of 2001 steps (500 lags). At β = 1.26405 (torus) and 1.28 (chaos)",
          rule_at=spectra_at,
          thresholds=(Threshold("decay", 100, "window spread", "at β = 1.28 the 1/e times of the nine windows spread "
                                "from 10 to 20 steps: 100 steps (25 forcing periods) is five times the largest",
                                guarded(_spectra_check), noise=guarded(_spectra_noise)),
                      Threshold("flat", FLAT, "stored distribution", "between a spectrum of a few lines (flatness → 0) "
                                "and a broad one (white noise: 0.56): the stored tori of Fig. 4 lie orders of magnitude "
                                "below, its chaotic orbits (0.28-0.30) a factor nine above", guarded(_flat_check),
                                noise=FLAT / 2)),
          alternatives=(Alternative("every chaotic β of Fig. 4 (1.266, 1.28, 1.4), window by window", "unit",
                                    spectra_at(100, FLAT, (1.266, 1.28, 1.4))),
                        Alternative("the autocorrelation alone (the rule before 0.4)", "statistic",
                                    spectra_at(100, None)),
                        Alternative("the spectrum alone: the share of the power in the 10 strongest bins, at least "
                                    "half at the torus and under half at the chaotic β", "statistic", _top10)),
          spread=Spread("window of one orbit (2001 steps)",
                        lambda s: {"1/e decay time at beta = 1.28": [_never(t) for t in
                                                                     _tau(s, "f4_tau_e_windows", 1.28)],
                                   "1/e decay time at beta = 1.26405": [_never(t) for t in
                                                                        _tau(s, "f4_tau_e_windows", 1.26405)]}),
          how="Ours, the textbook contrast (the paper stresses instead that all its signals, the chaotic one most, "
              "have long correlations from low frequencies). Both halves are read and the worse decides. The "
              f"spectrum: the torus's flatness below {FLAT:g} and the chaotic one's above it holds, one of the two with "
              "differences, neither refuted. The autocorrelation: holds if the torus's envelope never falls below 1/e, "
              "over the whole series or in any window, and the chaotic one's (β = 1.28) does within 100 steps "
              "(25 forcing periods) over the whole series and in every window; decaying later, or not in some "
              "window: with differences; the torus's decaying or the chaotic one's not over the whole series: "
              "refuted. At β = 1.266 the decay is intermittent (some windows never decay within 500 lags).",
          evidence=("fig-dmft-time-series", D + "test_envelope_decay_time_of_damped_and_undamped_oscillations"),
          note=lambda s: (_flat_text(s) + "Envelope below 1/e: " + ", ".join(
              f"β = {b:g}: {'never within 2000 lags' if t is None else f'after {t:.0f} steps'}"
              for b, t in zip(s["f4_betas"], s["f4_tau_e"])) + " (the whole saved series). "
              + _windows_text(s, "f4_tau_e_windows", lambda v: f"{v:.0f}",
                              f"the 1/e decay time within {s.get('f4_window_lag', '?')} lags (steps)")),
          numbers=lambda s: {**{f"1/e decay time at beta = {b:g} (steps)": _steps(t)
                                for b, t in zip(s["f4_betas"], s["f4_tau_e"])},
                             **({} if not s.get("f4_spectral") or "flatness" not in s["f4_spectral"][0] else
                                {f"spectral flatness at beta = {b:g}": float(f"{x['flatness']:.3g}")
                                 for b, x in zip(s["f4_betas"], s["f4_spectral"]) if x["flatness"] is not None})},
          examples={"holds": _S, "partly": {**_S, "f4_tau_e_windows": [*_S["f4_tau_e_windows"][:4], [20, 101, 11],
                                                                        _S["f4_tau_e_windows"][5]]},
                    "fails": {**_S, "f4_tau_e": [None, 900, 10, None, 11, 20]}}),
    *CLAIMS_MEMORY,
    Claim("dmft-finite-n", f"{PAPER}, mean-field limit N → ∞", "The finite network approaches the "
          "mean-field map as N grows", quote=QUOTES["dmft-finite-n"],
          measured="Log-log slopes of the RMS distance of the binomial class sampler to the map against N = 1e3-1e7 "
                   "at a fixed time, at β = 1 and β = 3",
          rule_at=lambda band, weak: slope_rule("slope_1", "slope_3", band=band, weak=weak),
          thresholds=slope_thresholds(),
          alternatives=(Alternative("β = 3 without the smallest N (off the orbit's phase there)", "statistic",
                                    lambda s: slope_rule("slope_1", "slope_3_large")(s)),
                        Alternative("the text's reading: the error decreases as N grows (both slopes below zero), the "
                                    "rate not asked", "reading",
                                    lambda s: "holds" if s["slope_1"] < 0 and s["slope_3"] < 0 else "fails"),
                        HORIZON_ALTERNATIVE),
          spread=Spread("network size N (the class sampler's per-N errors; runs before 0.4 stored the fits only)",
                        lambda s: ({"RMS error at beta = 1": s["errors_1"], "RMS error at beta = 3": s["errors_3"]}
                                   if "errors_1" in s else
                                   {"slope at beta = 1": [s["slope_1"]], "slope at beta = 3": [s["slope_3"]]})),
          how=SLOPE_HOW + " " + HORIZON_HOW,
          evidence=("fig-dmft-finite-n", "fig-dmft-finite-n-diagrams",
                    F + "test_finite_n_converges_to_mean_field_with_slope_minus_half"),
          note=lambda s: (f"Slope {s['slope_1']:.2f}" + _se(s, "slope_1_se") + f" at β = 1; at β = 3 "
                          f"{s['slope_3']:.2f}" + _se(s, "slope_3_se") + f" over N = {s['n_min']:.0e}-{s['n_max']:.0e}, "
                          f"{s['slope_3_large']:.2f} without the smallest N (that point is off the orbit's phase). "
                          + horizon_note(s) + "The diagrams at N = 1e7 still miss narrow periodic windows and chaos "
                          "starts earlier (noise-induced chaos)." + SHARED_SLOPE),
          numbers=lambda s: {"RMS slope at beta = 1": s["slope_1"], "RMS slope at beta = 3": s["slope_3"],
                             "RMS slope at beta = 3 without the smallest N": s["slope_3_large"],
                             "smallest N": s["n_min"], "largest N": s["n_max"]},
          examples={"holds": {"slope_1": -0.5, "slope_3": -0.59}, "partly": {"slope_1": -0.5, "slope_3": -0.61},
                    "fails": {"slope_1": -0.24, "slope_3": -0.5}}),
    *CLAIMS_CLASSES,
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
