"""Chapter 6's claims on how orbits are told apart (:mod:`.claims_fig4` gathers them with the claims on single
orbits): our classification by the period search and λ_max (dmft-lyapunov) and the coexistence of attractors
reached from different starts (dmft-coexistence), each with its rule, premises (:mod:`mfattn.companion.premises`)
and counterfactual examples; the λ thresholds (LT, LC) the Fig. 4 claims read too."""

from __future__ import annotations

import numpy as np

from ..companion.checks import check_bool, check_edges, check_positive, check_real
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim, Undecidable, finite_rule
from . import claims_lambda as lam_
from .claims_lambda import guarded
from .claims_quotes import QUOTES
from .claims_stored import NOT_RUN

__all__ = ["CLAIMS_CLASSES"]

#: Stroboscopic points a section needs before two samples of one torus stop looking like two attractors.
DENSE = 10_000
COEXIST_STEP = 2.5e-4  # the coexistence grid's β step (1001 β over [1.2, 1.45])
D = "tests/test_dynamics_diagnostics.py::"
T = "tests/test_dynamics_engine.py::"


# --- the classification by λ -----------------------------------------------------------------------------------

def _disagreements(s, lt, lc):
    """Per diagram: (β, contradictions, undecided + unconverged) under the classification at ``lt``, ``lc``."""
    out = []
    for p in ("a", "z"):
        b, lam, per = lam_.orbits(s, p)
        c = lam_.classes(b, lam, per, s.get("ns_beta"), lt, lc)
        contra = int(((per > 0) & ~(lam <= lt)).sum() + (~np.isfinite(lam)).sum())
        out.append((b.size, contra, int(((c == lam_.UNDECIDED) | (c == lam_.UNCONVERGED)).sum())))
    return out


def _window_changes(s, lt, lc) -> dict | None:
    """The zoom's orbits without a period, classed by λ_max over the chapter's window and over four times it (the
    same orbit, same transient): how many torus / chaotic classes the longer window changes (a period found later, or
    λ across LT or LC), and the median ratio |λ_long| / |λ| per class (a torus's finite-time λ falls like 1/window:
    ≈ 1/4; a chaotic orbit's stays: ≈ 1). None for runs before 0.4 (not stored)."""
    w = s.get("w_control")
    if not w:
        return None
    lam, lng, per = (np.asarray(w[k], dtype=np.float64) for k in ("lyapunov", "lyapunov_long", "period_long"))
    torus, chaos = np.abs(lam) <= lt, lam > lc
    torus_l, chaos_l = (per == 0) & (np.abs(lng) <= lt), (per == 0) & (lng > lc)
    ratio = lambda m: float(np.median(np.abs(lng[m]) / np.abs(lam[m]))) if m.any() else float("nan")  # noqa: E731
    return {"n": int(lam.size), "tori": int(torus.sum()), "chaotic": int(chaos.sum()),
            "tori changed": int((torus & ~torus_l).sum()), "chaotic changed": int((chaos & ~chaos_l).sum()),
            "torus ratio": ratio(torus & (lam != 0)), "chaos ratio": ratio(chaos),
            "window": int(w["window"]), "window long": int(w["window_long"])}


def lyapunov_at(lt: float, lc: float, holds_below: float = 0.01, partly_below: float = 0.1, window: bool = True):
    """No found cycle that fails to contract and a finite λ everywhere; then the share of all β undecided, not
    converged or (``window``, where stored) classed otherwise over four times the window: below ``holds_below``
    holds, below ``partly_below`` partly, else fails (``0 < lt < lc``; shares ``holds_below`` < ``partly_below`` in
    [0, 1])."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)
    check_edges("holds_below", holds_below, "partly_below", partly_below, minimum=0.0, maximum=1.0)
    check_bool("window", window)

    @finite_rule
    def rule(s):
        d = _disagreements(s, lt, lc)
        if sum(x[1] for x in d):
            return "fails"   # a found cycle that does not contract (beyond the resolution), or λ not finite
        w = _window_changes(s, lt, lc) if window else None
        changed = 0 if w is None else w["tori changed"] + w["chaotic changed"]
        share = (sum(x[2] for x in d) + changed) / sum(x[0] for x in d)
        return "holds" if share < holds_below else "partly" if share < partly_below else "fails"
    return rule


def _former_lyapunov(s):
    """The rule before 0.4: orbits without a period with |λ| within a decade of 1e-3, as a share of all β."""
    share = (s["a_lambda_near_TOL"] + s["z_lambda_near_TOL"]) / (s["a_n_betas"] + s["z_n_betas"])
    return "holds" if share < 0.01 else "partly" if share < 0.1 else "fails"


def _lyapunov_note(s):
    parts = []
    for (n, contra, dis), p, name in zip(_disagreements(s, lam_.LT, lam_.LC), ("a", "z"), ("Fig. 3a", "zoom")):
        b, lam, per = lam_.orbits(s, p)
        cnt = lam_.counts(lam_.classes(b, lam, per, s.get("ns_beta")))
        parts.append(f"{name} ({n} β): " + ", ".join(f"{v} {k}" for k, v in cnt.items()))
    d = _disagreements(s, lam_.LT, lam_.LC)
    w = _window_changes(s, lam_.LT, lam_.LC)
    wt = ("" if w is None else
          f" Over {w['window long']:,} steps in place of {w['window']:,} (the zoom's {w['n']} β without a period, the "
          f"same orbits): {w['tori changed']} of {w['tori']} tori and {w['chaotic changed']} of {w['chaotic']} "
          f"chaotic orbits change class; median |λ_long|/|λ|: tori {w['torus ratio']:.2f} (1/T gives 0.25), chaos "
          f"{w['chaos ratio']:.2f} (a positive exponent: 1).")
    return ("; ".join(parts) + f". Found cycles that do not contract: {sum(x[1] for x in d)}; undecided or not "
            f"converged: {sum(x[2] for x in d)} of {sum(x[0] for x in d)} β "
            f"({sum(x[2] for x in d) / sum(x[0] for x in d):.2%})." + wt + " λ over windows of one orbit is stored "
            "at the six β of Fig. 4.")


# --- coexistence ---------------------------------------------------------------------------------------------------

def runs(betas, step: float = COEXIST_STEP) -> list[int]:
    """Lengths of the runs of consecutive grid β (``step`` apart, > 0) in the list ``betas`` (finite numbers, in any
    order: they are sorted here before the runs are counted)."""
    check_positive("step", step)
    if isinstance(betas, (str, bytes)) or not hasattr(betas, "__iter__"):
        raise TypeError(f"betas must be a list of β; got {type(betas).__name__}")
    for x in betas:
        check_real("each β of betas", x)
    b = sorted(betas)
    out = [1] if b else []
    for x, y in zip(b, b[1:]):
        if abs(y - x - step) < step / 100:
            out[-1] += 1
        else:
            out.append(1)
    return out


def coexist_at(run: float):
    """Coexistence at consecutive grid β: a run of at least ``run`` (>= 1) such β holds, shorter runs partly, none
    fails; not tested where the compared sections are too sparse."""
    check_real("run", run, minimum=1.0)

    @finite_rule
    def rule(s):
        if s["coexist_points"] < DENSE:
            raise Undecidable(f"the sections compared hold {s['coexist_points']} points, fewer than the {DENSE} a "
                              "torus with ρ near p/q needs to be covered")
        found = runs(s["coexist_betas"])
        return "holds" if found and max(found) >= run else "partly" if found else "fails"
    return rule


def _grid_check(s):
    b = sorted(s["coexist_betas"])
    on = all(abs((x - b[0]) / COEXIST_STEP - round((x - b[0]) / COEXIST_STEP)) < 1e-3 for x in b)
    r = runs(b)
    return on and r.count(1) > 0, (f"the {len(b)} flagged β lie on the {COEXIST_STEP:g} grid: {'yes' if on else 'no'}; "
                                   f"runs of consecutive β: {sorted(r, reverse=True)[:8]}…, {r.count(1)} isolated")


_LT, _LC = lam_.thresholds()
_LAMBDA = (_LT, _LC)


def _orbits_example(lams, pers, betas=None, ns=None):
    b = np.linspace(1.0, 2.0, len(lams)) if betas is None else np.asarray(betas, float)
    arr = {"betas": b, "lyapunov": np.asarray(lams, float), "period": np.asarray(pers)}
    return {"a_orbit_arrays": arr, "z_orbit_arrays": arr, **({} if ns is None else {"ns_beta": ns})}


_LY = _orbits_example([-0.1] * 150 + [1e-5] * 40 + [0.1] * 10, [4] * 150 + [0] * 50)
_CO = {"coexist_points": DENSE, "coexist_betas": [1.25, 1.25025, 1.2505, 1.3]}


CLAIMS_CLASSES = [
    Claim("dmft-lyapunov", "ours (Benettin et al. 1980 applied to the map)", "The period search and the largest "
          "Lyapunov exponent class the orbits of both diagrams (periodic, torus, chaotic): all but a few of the 8002 "
          "β, and a window four times longer keeps the classes", origin="ours",
          quote=QUOTES["dmft-lyapunov"],
          measured="Over both diagrams' 8002 β: found cycles that do not contract, non-finite λ_max, and the orbits "
                   "the classes below leave undecided or that are stable cycles the period search did not converge to",
          rule_at=lyapunov_at, thresholds=_LAMBDA,
          alternatives=(Alternative("the former rule: no period and |λ_max| within a decade of 1e-3 (1e-4 to 1e-2)",
                                    "statistic", _former_lyapunov),
                        Alternative("the chapter's window alone (the four times longer one not asked)", "statistic",
                                    lyapunov_at(lam_.LT, lam_.LC, window=False))),
          spread=Spread("diagram (start chain)", lambda s: {"undecided or not converged, share": [
              x[2] / x[0] for x in _disagreements(s, lam_.LT, lam_.LC)]}),
          how="LT and LC sit in gaps of the very distribution they class, so the classes are tested against a second "
              "measurement: the zoom's orbits without a period run over four times the window (a torus's finite-time "
              "λ falls like 1/window, a chaotic orbit's stays). Holds if no found cycle fails to contract (λ_max > LT) "
              "and λ_max is finite everywhere, and fewer than 1 % of the β are undecided, stable cycles the period "
              "search did not converge to, or classed otherwise over the longer window; fewer than 10 %: with "
              "differences; a contradiction, a "
              "non-finite λ or 10 % or more: refuted. The period search stops at 500 steps: a cycle longer than that "
              "with |λ_max| ≤ LT is counted as a torus (an independent run with periods up to 1000 finds two such "
              "isolated Fig. 3a β, 1.8435 and 2.26575, to be cycles of period 656 and 576; with them the share stays "
              "under 1 %). " + lam_.LAMBDA_HOW + " " + NOT_RUN,
          evidence=("fig-dmft-bifurcation", "fig-dmft-bins-vs-lyapunov",
                    T + "test_lyapunov_matches_finite_difference_growth"),
          note=_lyapunov_note,
          numbers=lambda s: {"found cycles that do not contract": sum(x[1] for x in _disagreements(s, lam_.LT,
                                                                                                   lam_.LC)),
                             "undecided or not converged, betas": sum(x[2] for x in _disagreements(s, lam_.LT,
                                                                                                   lam_.LC)),
                             "share of all betas (undecided, not converged or changed over the longer window)":
                                 round((sum(x[2] for x in _disagreements(s, lam_.LT, lam_.LC))
                                        + (0 if (w0 := _window_changes(s, lam_.LT, lam_.LC)) is None
                                           else w0["tori changed"] + w0["chaotic changed"]))
                                       / sum(x[0] for x in _disagreements(s, lam_.LT, lam_.LC)), 4),
                             **({} if (w := _window_changes(s, lam_.LT, lam_.LC)) is None else
                                {"classes changed over four times the window": w["tori changed"] + w["chaotic changed"],
                                 "median torus ratio |lambda_long|/|lambda|": round(w["torus ratio"], 3),
                                 "median chaos ratio |lambda_long|/|lambda|": round(w["chaos ratio"], 3)})},
          examples={"holds": _LY,
                    "partly": _orbits_example([-0.1] * 150 + [5e-4] * 2 + [1e-5] * 38 + [0.1] * 10,
                                              [4] * 150 + [0] * 50),
                    "fails": _orbits_example([-0.1] * 149 + [2e-4] + [1e-5] * 40 + [0.1] * 10,
                                             [4] * 150 + [0] * 50)}),
    Claim("dmft-coexistence", "ours", "Several attractors coexist at the same β; which one is reached depends on the "
          "initial context (the prompt)", origin="ours", quote=QUOTES["dmft-coexistence"],
          measured="β of a 1001-point grid over [1.2, 1.45] where runs from four starting contexts reach attractors "
                   "that differ as sets, on dense stroboscopic sections (10⁴ points: period, coverage at the "
                   "sections' resolution, radius, rotation number of tori), and the runs of consecutive such β",
          rule_at=coexist_at,
          thresholds=(Threshold("run", 3, "resolution", "a set comparison that misfires next to a bifurcation flags "
                                "the one or two grid β (2.5e-4 apart) where an attractor changes: three consecutive "
                                "flagged β are an interval of coexistence, not isolated points (many stored ones are)",
                                guarded(_grid_check), noise=1),),
          alternatives=(Alternative("the former count: different attractors at 10 β or more (1 % of the grid)",
                                    "statistic", lambda s: "holds" if s["coexist_n"] >= 10 else
                                    "partly" if s["coexist_n"] > 0 else "fails"),
                        Alternative("only β where two different tori coexist (a flag between two chaotic orbits may "
                                    "be one intermittent attractor sampled twice): three such β or more holds",
                                    "reading", lambda s: "holds" if s["coexist_tori"] >= 3 else
                                    "partly" if s["coexist_tori"] > 0 else "fails")),
          spread=Spread("interval of flagged β (consecutive on the grid)",
                        lambda s: {"length (grid β)": runs(s["coexist_betas"])}),
          how="Holds if different attractors are reached over an interval of β: at least three consecutive grid β "
              "(5e-4 of β) flagged; only isolated or paired β flagged: with differences; none: refuted. Sections of "
              "fewer than 10⁴ points (the comparison on the last 500, before 0.3) leave it not tested: they call one "
              "torus with ρ near p/q two. The paper's coexistence (its Fig. 5) is of attractors the chaotic dynamics "
              "switches between; which one a start reaches is ours.",
          evidence=("fig-dmft-coexisting", "fig-dmft-planes",
                    D + "test_attractor_distance_separates_two_circles_not_two_samples_of_one"),
          note=lambda s: (f"{s['coexist_n']} of {s['coexist_total']} β reach different attractors (as sets) from "
                          f"{s['coexist_starts']} starting contexts (the attractors at β = "
                          f"{s['coexist_start_betas']}); in runs of consecutive β of lengths "
                          f"{sorted(runs(s['coexist_betas']), reverse=True)}; "
                          f"at {s['coexist_tori']} of them two different tori coexist ({s['coexist_points']} "
                          f"stroboscopic points per section; the former comparison on the last 500 points flagged "
                          f"{s.get('coexist_n_last_500', '?')} β). One run per start and β."),
          numbers=lambda s: {"betas with different attractors": s["coexist_n"], "betas on the grid": s["coexist_total"],
                             "longest run of consecutive betas": max(runs(s["coexist_betas"]), default=0),
                             "betas with two different tori": s["coexist_tori"],
                             "starting contexts": s["coexist_starts"],
                             "start betas": s["coexist_start_betas"]},
          examples={"holds": _CO, "partly": {**_CO, "coexist_betas": [1.25, 1.25025, 1.3]},
                    "fails": {**_CO, "coexist_betas": []}}),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
