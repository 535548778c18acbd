"""Chapter 6's claims on the paper's two bifurcation diagrams (:mod:`.claims` gathers them): the route to chaos over
Fig. 3a (dmft-route-to-chaos), the zoom of Fig. 3b (dmft-zoom) and the code's bin thresholds as a classifier
(dmft-bin-rule), each with its rule (the stages of a diagram, how abruptly chaos sets in), premises
(:mod:`mfattn.companion.premises`), notes and counterfactual examples. Orbits are classed by :mod:`.claims_lambda`."""

from __future__ import annotations

from mfattn.companion.stored_views import MissingNumber  # a KeyError naming the stored number a rule lacks

import numpy as np

from ..companion import verdicts
from ..companion.checks import check_bool, check_choice, check_edges, check_real
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim, Undecidable
from . import claims_lambda as lam_
from .claims_quotes import QUOTES
from .claims_stored import LATE, NOT_RUN, NOT_RUN_SHORT, PAPER
from .diagnostics import classify

__all__ = ["CLAIMS_DIAGRAMS"]

D = "tests/test_dynamics_diagnostics.py::"
S = "tests/test_dynamics_sweep.py::"
ZOOM = (1.24, 1.28)   # the window of Fig. 3b the text prints


# --- the two diagrams ---------------------------------------------------------------------------------------------

#: λ_max of deep chaos (200 e-foldings over the T = 2·10⁴ saved steps; the stored chaotic orbits' median λ is 0.05 in
#: Fig. 3a, 0.14 in the zoom): the onset of chaos is abrupt if λ_max reaches it within a few grid steps of a quiet orbit.
DEEP = 10 * lam_.LC
JUMP = 2   # grid steps (see _JUMP)


def _stages(b, c, lam, per, lt=lam_.LT):
    """Where the classes ``c`` of a diagram over ``b`` change (the paper's stages), and how chaos sets in: ``jump``,
    the grid steps from the first orbit of deep chaos (no period, λ_max ≥ :data:`DEEP`) back to the last quiet one
    before it (a period, or |λ_max| ≤ ``lt``, or contracting): 1 when λ_max leaps from the torus level to deep chaos
    between two neighbouring grid β; ``inf`` without deep chaos."""
    periodic = (c == lam_.PERIODIC) | (c == lam_.UNCONVERGED)
    torus, chaos = c == lam_.TORUS, c == lam_.CHAOTIC
    ft, fc = lam_.first(b, torus), lam_.first(b, chaos)
    before = b < ft
    idx = np.nonzero(chaos)[0]
    with np.errstate(invalid="ignore"):
        deep = np.nonzero((per == 0) & (lam >= DEEP))[0]
        quiet = (per > 0) | (np.abs(lam) <= lt) | (lam < -lt)
    jump, onset = float("inf"), (float("nan"), float("nan"))
    if deep.size and quiet[:deep[0]].any():
        q = int(np.nonzero(quiet[:deep[0]])[0][-1])
        jump, onset = float(deep[0] - q), (float(b[q]), float(b[deep[0]]))
    return {"first_torus": ft, "first_chaos": fc, "tori": int(torus.sum()), "chaotic": int(chaos.sum()),
            "start_share": float(periodic[before].mean()) if np.isfinite(ft) and before.any() else 0.0,
            "windows": int((periodic & (b > b[idx[0]]) & (b < b[idx[-1]])).sum()) if idx.size else 0,
            "jump": jump, "onset": onset}


def _classes(s, p, lt, lc, window=None, bins=False):
    """``(betas, classes, λ_max, period)`` of diagram ``p`` (inside ``window``), classed by λ (or by the paper's bin
    count with ``bins``)."""
    b, lam, per = lam_.orbits(s, p)
    if bins:   # the paper's own classifier: its bin count (0 periodic, 1 quasi-periodic, 2 chaotic)
        c = np.array([lam_.PERIODIC, lam_.TORUS, lam_.CHAOTIC])[classify(s[f"{p}_orbit_arrays"]["paper_counts"])]
    else:
        c = lam_.classes(b, lam, per, s.get("ns_beta"), lt, lc)
    if window is not None:
        m = (b >= window[0]) & (b <= window[1])
        b, c, lam, per = b[m], c[m], lam[m], per[m]
    return b, c, lam, per


def _from_first_chaos(b, c, lam, per):
    """Grid steps from the first chaotic β to the first orbit of deep chaos (0 when the first is deep already)."""
    chaos = np.nonzero(c == lam_.CHAOTIC)[0]
    with np.errstate(invalid="ignore"):
        deep = np.nonzero((per == 0) & (lam >= DEEP))[0]
    return float(deep[0] - chaos[0]) if chaos.size and deep.size else float("inf")


def _long_route(s):
    """The route on Fig. 3a at the text's run length (1.2·10⁶ steps, 10⁶ discarded), where it is stored."""
    if "l_orbit_arrays" not in s:
        raise Undecidable("Fig. 3a at the text's run length is not stored")
    return route_at(lam_.LT, lam_.LC, 0.95, p="l")(s)


def _long_text(s):
    """Fig. 3a at the text's run length against the stored 1.2·10⁵-step diagram, β by β, in words."""
    if "l_orbit_arrays" not in s:
        return ""
    bl, laml, perl = lam_.orbits(s, "l")
    ba, lama, pera = lam_.orbits(s, "a")
    if bl.shape != ba.shape or not np.allclose(bl, ba):
        return ""
    kind = lambda lam, per: np.where(per > 0, 0, np.where(lam > 1e-3, 2, 1))  # noqa: E731
    ka, kl = kind(lama, pera), kind(laml, perl)
    moved = ka != kl
    names = ("a period", "no period, λ_max ≤ 1e-3", "no period, λ_max > 1e-3")
    flows = {}
    for i, j in zip(ka[moved], kl[moved]):
        flows[(int(i), int(j))] = flows.get((int(i), int(j)), 0) + 1
    g = _stages(*_classes(s, "l", lam_.LT, lam_.LC))
    return (f" At the text's run length ({s['long_steps']:.1e} steps, {s['long_transient']:.0e} discarded) Fig. 3a "
            f"keeps the kind of orbit at {int((~moved).sum())} of {bl.size} β"
            + (": " + ", ".join(f"{n} from {names[i]} to {names[j]}" for (i, j), n in sorted(flows.items()))
               if flows else "") + f"; there the first torus is at β = {g['first_torus']:.5f}, chaos from "
            f"β = {g['first_chaos']:.5f}, and the route's verdict is {_long_route(s)}.")


def _blip_text(s, p="z"):
    """The chaotic β before the leap into deep chaos (a blip of weak chaos inside the torus region), in words."""
    b, c, lam, per = _classes(s, p, lam_.LT, lam_.LC)
    g = _stages(b, c, lam, per)
    if not np.isfinite(g["jump"]):
        return ""
    m = (b >= g["first_chaos"]) & (b < g["onset"][1])
    ch = m & (c == lam_.CHAOTIC)
    if not ch.any():
        return " The first chaotic β is the leap itself."
    rest = m & ~ch
    return (f" Before the leap, {int(ch.sum())} chaotic β (β = {b[ch].min():.5f} to {b[ch].max():.5f}, λ_max "
            f"{lam[ch].min():.1e} to {lam[ch].max():.1e}: weak chaos) lie among {int((rest & (c == lam_.TORUS)).sum())} "
            f"tori and {int((rest & ((c == lam_.PERIODIC) | (c == lam_.UNCONVERGED))).sum())} periodic β, "
            f"{_from_first_chaos(b, c, lam, per):.0f} grid steps from the first chaotic β to deep chaos: a short "
            "blip of weak chaos inside the torus region, after which the tori resume; lasting chaos begins with the "
            "leap.")


def route_at(lt: float, lc: float, start_share: float, jump: float = JUMP, p: str = "a", window=None,
             bins: bool = False, from_first: bool = False):
    """The paper's order in diagram ``p``: a periodic start (``start_share`` of the β before the first torus), tori
    before chaos; windows of periodic orbits among the chaotic β and an abrupt onset of chaos (λ_max from a quiet
    orbit to deep chaos within ``jump`` grid steps, >= 0) for "holds". ``0 < lt < lc``, ``start_share`` in [0, 1]."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)
    check_real("start_share", start_share, minimum=0.0, maximum=1.0)
    check_real("jump", jump, minimum=0.0)
    check_choice("p", p, ("a", "z", "l"))
    check_bool("bins", bins)
    check_bool("from_first", from_first)

    @verdicts.finite_rule
    def rule(s):
        g = _stages(*_classes(s, p, lt, lc, window, bins), lt)
        if (not g["tori"] or not g["chaotic"] or g["start_share"] < start_share
                or not g["first_torus"] < g["first_chaos"]):
            return "fails"  # no torus, no chaos, no periodic start, or chaos first: not the paper's route
        onset = _from_first_chaos(*_classes(s, p, lt, lc, window, bins)) if from_first else g["jump"]
        return "holds" if g["windows"] > 0 and onset <= jump else "partly"
    return rule


def _stages_of(s, p, window=None):
    return _stages(*_classes(s, p, lam_.LT, lam_.LC, window))


def _onset_text(g):
    if not np.isfinite(g["jump"]):
        return "no orbit of deep chaos (λ_max ≥ 1e-2)"
    lo, hi = g["onset"]
    return (f"λ_max leaps from a quiet orbit at β = {lo:.5f} to deep chaos (≥ 1e-2) at β = {hi:.5f}, "
            f"{g['jump']:.0f} grid step{'s' * (g['jump'] != 1)} later")


def _route_note(s, p, name):
    g = _stages_of(s, p)
    b, lam, per = lam_.orbits(s, p)
    cnt = lam_.counts(lam_.classes(b, lam, per, s.get("ns_beta")))
    return (f"{name} ({b.size} β): " + ", ".join(f"{v} {k}" for k, v in cnt.items())
            + f". A period at {g['start_share']:.1%} of the β before the first torus (β = {g['first_torus']:.5f}); "
            f"chaos from β = {g['first_chaos']:.5f}; {_onset_text(g)}; "
            f"{g['windows']} periodic β between the first and last chaotic one.")


def _grids_check(s):
    found, ok = [], True
    for p, name in (("a", "Fig. 3a"), ("z", "zoom")):
        b = lam_.orbits(s, p)[0]
        d = np.diff(b)
        uniform = bool(d.size and np.abs(d - np.median(d)).max() < 1e-6 * np.median(d))
        ok = ok and uniform
        found.append(f"{name}: step {np.median(d):.2e}, {'uniform' if uniform else 'not uniform'}")
    return ok, "a count of grid steps is a distance in β: " + "; ".join(found)


_JUMP = Threshold("jump", JUMP, "resolution", "λ_max is read at the grid's β only: a leap from a quiet orbit to deep "
                  "chaos between neighbouring β (Fig. 3a's step 7.5e-4, the zoom's 1e-5) is as abrupt as the grid "
                  "shows, two steps allow one β in between; a gradual onset (λ_max growing continuously from 0, as "
                  "past a period-doubling cascade) passes through (LT, 1e-2) over many grid β. The grids are uniform",
                  lam_.guarded(_grids_check), noise=1)
_START = Threshold("start_share", 0.95, "convention", "a periodic start: nineteen β in twenty before the first torus "
                   "with a period, allowing for a stable cycle the period search misses near a bifurcation")


def _chains(s, window=None):
    """The stages' β in each start chain that crosses the window (Fig. 3a's and the zoom's), as offsets from the
    window's 1.24 (the ledger keeps three digits: 1.26256 and 1.266 would both read 1.27), and the onset's jump."""
    g = [_stages_of(s, p, window) for p in ("a", "z") if f"{p}_orbit_arrays" in s]
    if not g:
        raise MissingNumber("a_orbit_arrays")
    return {"first torus beta - 1.24": [x["first_torus"] - ZOOM[0] for x in g],
            "first chaotic beta - 1.24": [x["first_chaos"] - ZOOM[0] for x in g],
            "grid steps from a quiet orbit to deep chaos": [x["jump"] for x in g]}


def bin_rule_at(lt: float, lc: float, holds_below: float, partly_below: float, per_class: bool = False,
                relabel: bool = True, long_ok: bool = False):
    """The share of β whose bin-rule class differs from the orbit's (undecided orbits left out), pooled over both
    diagrams (``per_class``: the largest share of wrong labels among the rule's labels in either diagram;
    ``long_ok``: a cycle of period 80 or more labelled quasi-periodic counts as right, since it fills as many bins as
    the rule's periodic limit allows and looks like a curve). ``0 < lt < lc``; the share below ``holds_below`` holds,
    below ``partly_below`` partly (``holds_below`` < ``partly_below``, shares in [0, 1])."""
    check_edges("lt", lt, "lc", lc, minimum=0.0, open_range=True)
    check_edges("holds_below", holds_below, "partly_below", partly_below, minimum=0.0, maximum=1.0)
    for name, flag in (("per_class", per_class), ("relabel", relabel), ("long_ok", long_ok)):
        check_bool(name, flag)

    @verdicts.finite_rule
    def rule(s):
        wrong, total, worst = 0, 0, 0.0
        for p in ("a", "z"):
            b, lam, per = lam_.orbits(s, p)
            c = lam_.classes(b, lam, per, s.get("ns_beta") if relabel else None, lt, lc)
            truth = np.select([(c == lam_.PERIODIC) | (c == lam_.UNCONVERGED), c == lam_.TORUS, c == lam_.CHAOTIC],
                              [0, 1, 2], -1)
            rule_ = classify(s[f"{p}_orbit_arrays"]["paper_counts"])
            ok = truth >= 0
            if long_ok:   # the kindest reading: long cycles may pass for quasi-periodic
                truth = np.where((truth == 0) & (np.asarray(per) >= 80) & (rule_ == 1), 1, truth)
            wrong += int((rule_[ok] != truth[ok]).sum())
            total += int(ok.sum())
            for label in range(3):
                m = ok & (rule_ == label)
                if m.any():
                    worst = max(worst, float((truth[m] != label).mean()))
        share = worst if per_class else wrong / total
        return "holds" if share < holds_below else "partly" if share < partly_below else "fails"
    return rule


def _census_bins_text(s):
    """How the paper's bin count (and its class) moves over last-bit copies of the Fig. 4 start, per β."""
    rows = s.get("census")
    if not rows or any(a.get("bins") is None for r in rows for a in r["attractors"]):
        return ""
    parts = []
    for r in rows:
        lo = min(a["bins"][0] for a in r["attractors"])
        hi = max(a["bins"][1] for a in r["attractors"])
        labels = sorted(set(classify(np.array([lo, hi])).tolist()))
        parts.append(f"{r['beta']:g}: {lo}" + (f" to {hi}" if hi != lo else "")
                     + (" (the rule's class changes)" if len(labels) > 1 else ""))
    return (f" Over {rows[0]['n_starts']} last-bit copies of the Fig. 4 start the bin count of the orbits reached "
            "spans " + "; ".join(parts) + ".")


def _bin_numbers(s):
    out = {}
    for p, name in (("a", "fig3a"), ("z", "fig3b")):
        b, lam, per = lam_.orbits(s, p)
        c = lam_.classes(b, lam, per, s.get("ns_beta"))
        truth = np.select([(c == lam_.PERIODIC) | (c == lam_.UNCONVERGED), c == lam_.TORUS, c == lam_.CHAOTIC],
                          [0, 1, 2], -1)
        r = classify(s[f"{p}_orbit_arrays"]["paper_counts"])
        ok = truth >= 0
        conf = np.zeros((3, 3), dtype=int)
        np.add.at(conf, (r[ok], truth[ok]), 1)
        out[f"{name} misclassified"] = int(conf.sum() - np.trace(conf))
        out[f"{name} betas classed"] = int(ok.sum())
        out[f"{name} confusion"] = str(conf.tolist())
        out[f"{name} wrong share per label"] = ", ".join(
            f"{n} {conf[i].sum() - conf[i, i]}/{conf[i].sum()}" for i, n in enumerate(("periodic", "quasi", "chaotic")))
    out["misclassified share"] = round((out["fig3a misclassified"] + out["fig3b misclassified"])
                                       / (out["fig3a betas classed"] + out["fig3b betas classed"]), 4)
    return out


def _orbits_example(lams, pers, betas=None, counts=None, ns=None):
    """Numbers of two small stored diagrams for the counterfactual examples (the same arrays for both)."""
    b = np.linspace(1.2, 1.3, len(lams)) if betas is None else np.asarray(betas, float)
    arr = {"betas": b, "lyapunov": np.asarray(lams, float), "period": np.asarray(pers),
           **({} if counts is None else {"paper_counts": np.asarray(counts)})}
    return {"a_orbit_arrays": arr, "z_orbit_arrays": arr, **({} if ns is None else {"ns_beta": ns})}


# a periodic start, tori, chaos with a window: the paper's route on 60 β (windows and abrupt onset)
_ROUTE_LAM = [-0.1] * 20 + [1e-5] * 20 + [0.1] * 8 + [-0.05] * 2 + [0.1] * 10
_ROUTE_PER = [4] * 20 + [0] * 20 + [0] * 8 + [28] * 2 + [0] * 10
_ROUTE = _orbits_example(_ROUTE_LAM, _ROUTE_PER)
# ... with chaos setting in gradually: λ_max 2e-3, 4e-3, 6e-3, 8e-3 before deep chaos
_GRADUAL = _orbits_example(_ROUTE_LAM[:40] + [2e-3, 4e-3, 6e-3, 8e-3] + _ROUTE_LAM[44:], _ROUTE_PER)
_BINS = _orbits_example(_ROUTE_LAM, _ROUTE_PER, counts=[10] * 20 + [100] * 20 + [3000] * 8 + [10] * 2 + [3000] * 10)


CLAIMS_DIAGRAMS = [
    Claim("dmft-route-to-chaos", f"{PAPER}, Fig. 3a", "As β grows over [0, 3] the orbit goes from a periodic attractor "
          "to a region of quasi-periodic behaviour and then abruptly to chaos; small changes of β change the "
          "behaviour (periodic windows among the chaotic β)", quote=QUOTES["dmft-route-to-chaos"],
          measured="Along Fig. 3a's 4001 β, each orbit classed by the period search and λ_max: the share with a period "
                   "before the first torus, the first torus and chaotic β, whether chaos starts abruptly, periodic β "
                   "between chaotic ones",
          rule_at=route_at, thresholds=lam_.thresholds() + (_START, _JUMP),
          alternatives=(Alternative("the paper's own classifier (its bin count: < 80 periodic, < 2500 quasi-periodic)",
                                    "statistic", route_at(lam_.LT, lam_.LC, 0.95, bins=True)),
                        Alternative("the zoom's start chain over [1.24, 1.28]", "unit",
                                    route_at(lam_.LT, lam_.LC, 0.95, p="z")),
                        Alternative("the text's run length for Fig. 3a (1.2·10⁶ steps, 10⁶ discarded)", "unit",
                                    _long_route),
                        Alternative("'finally' (最终) read as: chaos is the last regime over [0, 3] (most β past 2.5 "
                                    "chaotic, not periodic)", "reading",
                                    lambda s: "partly" if (g := route_at(lam_.LT, lam_.LC, 0.95)(s)) == "holds"
                                    and s["a_late_share"] > 0.5 else g)),
          spread=Spread("start chain (Fig. 3a's and the zoom's; the paper's one weight seed)", _chains),
          how="Holds if the stages come in the paper's order: a period at ≥ 95 % of the β before the first torus, tori "
              "before chaos, chaos setting in abruptly (λ_max leaps from a quiet orbit, periodic or a torus, to deep "
              "chaos, λ_max ≥ 1e-2, within two grid steps: a measurement that a gradual onset fails) and at least "
              "one periodic window between chaotic β; with differences if the windows or the abrupt onset are "
              "missing; fails if there is no torus, no chaos, no periodic start or chaos comes first. The text's "
              "periodic start is any period (it is L = 4 here); its 'finally' (最终) says the route ends in chaos, read "
              "here as the order of the stages; read as 'chaos is the last regime over [0, 3]' it is tried as an "
              "alternative, which the periodic orbits past β = 2.5 (the note) turn to with differences. " + lam_.LAMBDA_HOW + " " + NOT_RUN,
          evidence=("fig-dmft-bifurcation", "fig-dmft-all-values", D + "test_classification_rules",
                    S + "test_sweep_from_batched_contexts_matches_single_runs"),
          note=lambda s: (_route_note(s, "a", "Fig. 3a") + f" Past β = {LATE:g} a period is found at "
                          f"{s['a_late_share']:.0%} of the β (the route's 'finally' read as the last regime fails there). One orbit per "
                          "β, one weight seed (the paper's own: it shows one initialisation); the zoom's chain shows "
                          "the same stages." + _long_text(s) + " " + NOT_RUN_SHORT),
          numbers=lambda s: {"first torus beta": _stages_of(s, "a")["first_torus"],
                             "first chaotic beta": _stages_of(s, "a")["first_chaos"],
                             "grid steps from a quiet orbit to deep chaos": _stages_of(s, "a")["jump"],
                             "periodic betas between chaotic ones": _stages_of(s, "a")["windows"],
                             "share with a period before the first torus": round(_stages_of(s, "a")["start_share"], 4),
                             "share with a period, beta > 2.5": s["a_late_share"]},
          examples={"holds": _ROUTE, "partly": _GRADUAL,
                    "fails": _orbits_example([0.1] * 20 + _ROUTE_LAM[20:], [0] * 20 + _ROUTE_PER[20:])}),
    Claim("dmft-zoom", f"{PAPER}, Fig. 3b", "In β ∈ [1.24, 1.28] the periodic attractor gives way to a quasi-periodic "
          "region, which abruptly turns chaotic, with periodic windows among the chaotic β",
          quote=QUOTES["dmft-zoom"],
          reading="the text's: the window and the order of the stages within it; the text prints no β of the torus "
                  "birth (the former 1.244 has no source in it or in the paper's code at de41c41)",
          measured="Over the zoom's 4001 β, each orbit classed by the period search and λ_max: a periodic start, the "
                   "first torus and chaotic β, the onset of chaos, periodic β between chaotic ones",
          rule_at=lambda lt, lc, start_share, jump: route_at(lt, lc, start_share, jump, "z"),
          thresholds=lam_.thresholds() + (_START, _JUMP),
          alternatives=(Alternative("the paper's own classifier (its bin count)", "statistic",
                                    route_at(lam_.LT, lam_.LC, 0.95, p="z", bins=True)),
                        Alternative("Fig. 3a's start chain inside [1.24, 1.28] (53 β)", "unit",
                                    route_at(lam_.LT, lam_.LC, 0.95, p="a", window=ZOOM)),
                        Alternative("without relabelling the stable cycles the period search did not converge to",
                                    "reading", lambda s: route_at(lam_.LT, lam_.LC, 0.95, p="z")(
                                        {k: v for k, v in s.items() if k != "ns_beta"})),
                        Alternative("the onset read at the first chaotic β (a blip of weak chaos inside the torus "
                                    "region counts as the onset)", "reading",
                                    route_at(lam_.LT, lam_.LC, 0.95, p="z", from_first=True))),
          spread=Spread("start chain (the zoom's and Fig. 3a's inside the window)", lambda s: _chains(s, ZOOM)),
          how="The rule of dmft-route-to-chaos on the zoom: a period at ≥ 95 % of the β before the first torus, tori "
              "before chaos, an abrupt onset (λ_max from a quiet orbit to ≥ 1e-2 within two grid steps) and periodic "
              "windows among the chaotic β hold; windows or an abrupt onset missing: with differences; no torus, no "
              "chaos, no periodic start or chaos first: not reproduced. The zoom is run from our own β = 1.28 "
              "context (the final context of a token run at 1.28), not from the paper's stored one, which starts "
              "Fig. 4 only. " + lam_.LAMBDA_HOW + " " + NOT_RUN,
          evidence=("fig-dmft-bifurcation", "fig-dmft-stroboscopic", D + "test_classification_rules",
                    "tests/test_dynamics_rotation.py::test_rotation_number_starts_at_the_neimark_sacker_angle"),
          note=lambda s: (_route_note(s, "z", "Zoom") + _blip_text(s) + f" The bin rule's first quasi-periodic β is "
                          f"{s['z_first_quasi_periodic_beta']:.5f} (a new torus needs a radius of more than 80 bins). "
                          "Every β starts from our own β = 1.28 context (a token run's final context), not the paper's "
                          "stored one. One orbit per β (the grid step 1e-5 is the resolution). " + NOT_RUN_SHORT),
          numbers=lambda s: {"first torus beta": _stages_of(s, "z")["first_torus"],
                             "first chaotic beta": _stages_of(s, "z")["first_chaos"],
                             "grid steps from a quiet orbit to deep chaos": _stages_of(s, "z")["jump"],
                             "first quasi-periodic beta (bin rule)": s["z_first_quasi_periodic_beta"],
                             "periodic betas between chaotic ones": _stages_of(s, "z")["windows"]},
          examples={"holds": _ROUTE, "partly": _orbits_example([x if x != -0.05 else 0.1 for x in _ROUTE_LAM],
                                                               [0 if p == 28 else p for p in _ROUTE_PER]),
                    "fails": _orbits_example([1e-5 if x == 0.1 else x for x in _ROUTE_LAM], _ROUTE_PER)}),
    Claim("dmft-bin-rule", "ours (the paper code's bin thresholds, taken alone; the text's provisional colouring, §4.1)",
          "The code's bin thresholds, taken alone (occupied bins of m^o_1: < 80 periodic, < 2500 quasi-periodic, "
          "otherwise chaotic), tell periodic, quasi-periodic and chaotic orbits apart", origin="ours",
          quote=QUOTES["dmft-bin-rule"],
          reading="ours, narrower than the text: the text tells the orbits apart 'by visual inspection and by counting' "
                  "points (只通过目视检查和…计数来区分它们), a provisional colouring, and its thresholds are in its code only; the "
                  "claim tests the count alone, as the code applies it to every β, class by class: each of the "
                  "rule's three labels must be right where the rule gives it",
          measured="Per label of the rule, in each diagram, the share of the β given that label (undecided orbits left "
                   "out) whose class by the period search and λ_max differs; the largest share decides",
          rule_at=lambda lt, lc, holds_below, partly_below: bin_rule_at(lt, lc, holds_below, partly_below,
                                                                       per_class=True),
          thresholds=lam_.thresholds() + (
              Threshold("holds_below", 0.01, "convention", "a classification of orbits right at 99 β of 100 (the "
                        "paper colours every β of its diagram by it)"),
              Threshold("partly_below", 0.1, "convention", "nine β in ten right: right for the picture, not for single "
                        "β")),
          alternatives=(Alternative("pooled: the share of every classed β of both diagrams that the rule gets wrong "
                                    "(the rule before issue 43, which hides a label wrong at most of its β)",
                                    "statistic", bin_rule_at(lam_.LT, lam_.LC, 0.01, 0.1)),
                        Alternative("without relabelling the stable cycles the period search did not converge to",
                                    "reading", bin_rule_at(lam_.LT, lam_.LC, 0.01, 0.1, per_class=True, relabel=False)),
                        Alternative("the kindest reading: a cycle of period 80 or more labelled quasi-periodic counts "
                                    "as right (it looks like a curve)", "reading",
                                    bin_rule_at(lam_.LT, lam_.LC, 0.01, 0.1, per_class=True, long_ok=True))),
          spread=Spread("diagram (start chain)", lambda s: {"misclassified share": [
              _bin_numbers(s)[f"{n} misclassified"] / _bin_numbers(s)[f"{n} betas classed"]
              for n in ("fig3a", "fig3b")]}),
          how="A classification of orbits should be right at 99 of 100 β for each of its labels (a pooled share "
              "hides a rare label that is mostly wrong): holds if, in both diagrams, every label of the rule is wrong "
              "at fewer than 1 % of the β it is given; below 10 %: with differences; 10 % or more for some label: not "
              "reproduced. The count is the paper's own at every β (its quantisation of every saved value; a stored "
              "diagram with only bounds of the count leaves the claim not tested). The count's own noise is read from "
              "last-bit copies of the Fig. 4 start (the census of dmft-planes): at a chaotic β the count moves with "
              "the last bits, at a torus or a cycle it does not. " + lam_.LAMBDA_HOW,
          evidence=("fig-dmft-bins-vs-lyapunov", S + "test_bin_count_bounds_bracket_the_papers_exact_count"),
          note=lambda s: (f"The paper's bin count at every β, classified by its thresholds, against the orbits' "
                          f"classes: misclassified {_bin_numbers(s)['misclassified share']:.2%} of the classed β; "
                          f"confusion (rows the rule periodic/quasi/chaotic, columns the orbit's): Fig. 3a "
                          f"{_bin_numbers(s)['fig3a confusion']}, zoom {_bin_numbers(s)['fig3b confusion']}; wrong "
                          f"per label: Fig. 3a {_bin_numbers(s)['fig3a wrong share per label']}; zoom "
                          f"{_bin_numbers(s)['fig3b wrong share per label']}. One orbit per β."
                          + _census_bins_text(s)),
          numbers=_bin_numbers,
          examples={"holds": _BINS,
                    "partly": _orbits_example(_ROUTE_LAM, _ROUTE_PER, counts=[10] * 19 + [100] * 21 + [3000] * 8
                                              + [10] * 2 + [3000] * 10),
                    "fails": _orbits_example(_ROUTE_LAM, _ROUTE_PER, counts=[10] * 20 + [10] * 20 + [3000] * 8
                                             + [10] * 2 + [3000] * 10)}),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
