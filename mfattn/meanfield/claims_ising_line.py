"""Chapter 1's claims on stability and on Plefka's line, and the Gaussian vector-spin identity, each decided from the
stored full-profile numbers (:mod:`.claims` flattens them and gathers every claim of the chapter).

What the blog says about stability is one sentence of §2.2: the susceptibility χ is a covariance matrix and must stay
positive semidefinite, and once it is not "the fixed-point procedure will no longer be stable". The blog never mentions
Plefka, de Almeida–Thouless, an AT line or x = 1: what the book says about the line (accuracy lost beyond it, stable
solutions beyond it) is ours, a test of Plefka's (1982) convergence condition x = β²·mean(1 − m_i²)² < 1.

Beyond the line the weakly damped (0.5) iteration converges on few instances, and those are the easy ones (at β = 1.3
TAP converges on 10 of 40, whose TAP/naive ratio is 0.28 against 0.36 over all 40). The line claims are therefore
read on the damping-0.05 solutions of the damping sweep, which exist on (nearly) every instance; the damping-0.5
means over the instances that converged are an alternative statistic.
"""

from __future__ import annotations

import math

import numpy as np

from ..companion import verdicts
from ..companion.premises import Alternative, Quote, Spread, Threshold
from ..companion.verdicts import Claim
from .claims_ising_accuracy import NAMES, SECTION_TAP, T, TP, log_ratio_se

__all__ = ["LINE_CLAIMS", "MIN_SHARE", "THEORIES"]

#: The TAP theories whose line the claims are about (the key of the stored numbers, the name).
THEORIES = (("tap", "TAP"), ("atap", "adaptive TAP"))
#: The alternative statistic of the rule before the premises: the damping-0.5 means over the instances that converged,
#: at the last β beyond both lines where both converge on at least this share of the instances.
MIN_SHARE = 0.25


# --- accuracy beyond the line (ours) --------------------------------------------------------------------------------

def _lines(s, line: float, theories, exact: bool = False) -> dict[str, float]:
    """Per theory, the first sweep β where the median Plefka parameter of its damping-0.05 solutions reaches
    ``line`` (``exact``: the exact state's crossing for every theory)."""
    if exact:
        if s["at_beta"] is None:
            raise verdicts.Undecidable("the exact state's median Plefka parameter does not reach 1 on the grid")
        return {k: s["at_beta"] for k, _ in theories}
    out = {}
    for k, name in theories:
        hit = [b for b, x in zip(s["damping_betas"], s[f"{k}_at_strong"]) if x is not None and x >= line]
        if not hit:
            raise verdicts.Undecidable(f"the median Plefka parameter of {name}'s own solutions does not reach {line:g} "
                                       "on the sweep's β grid: no β beyond its own line")
        out[k] = hit[0]
    return out


def _ratio(s, k: str, i: int) -> tuple[float, int]:
    """Theory ``k``'s mean RMSE of m over naive mean field's at sweep β index ``i``, over the instances where both
    have a stable damping-0.05 solution, and how many those are."""
    pairs = [(a, b) for a, b in zip(s[f"{k}_strong_inst"][i], s["naive_strong_inst"][i]) if a is not None and b]
    if not pairs:
        return math.inf, 0
    a, b = np.array(pairs).T
    return float(a.mean() / b.mean()), len(pairs)


def _at_at(factor: float, line: float, share: float, theories=THEORIES, where: str = "first", exact: bool = False):
    """Rule: each theory keeps a factor over naive mean field at the last sweep β before its own line (else fails);
    beyond both lines, at the ``where`` ("first" or "last") sweep β where both have a stable solution on at least
    ``share`` of the instances, holds if they no longer both keep it, partly if they do."""
    def rule(s):
        lines, b = _lines(s, line, theories, exact), s["damping_betas"]
        for k, name in theories:
            before = [i for i, x in enumerate(b) if x < lines[k] - 1e-9]
            if not before:
                raise verdicts.Undecidable(f"{name}'s own line lies at the first β of the sweep: nothing before it")
            if not _ratio(s, k, before[-1])[0] < 1 / factor:
                return "fails"
        start = max(lines.values())
        beyond = [i for i, x in enumerate(b) if x >= start - 1e-9
                  and all(_ratio(s, k, i)[1] >= share * s["instances"] for k, _ in theories)]
        if not beyond:
            raise verdicts.Undecidable(f"no sweep β at or beyond both lines (β ≥ {start:g}) where both theories have a "
                                       f"stable solution on {share:.0%} of the instances")
        i = beyond[0] if where == "first" else beyond[-1]
        return "holds" if not all(_ratio(s, k, i)[0] < 1 / factor for k, _ in theories) else "partly"
    return rule


def _kink(factor: float = 2.0, rise: float = 2.0):
    """The claim as a line: accuracy breaks at it. Holds if, for a theory, the rise of its ratio to naive mean field
    from the last β before its line to the first beyond is more than ``rise`` times the rise over the step before;
    partly if the ratio only grows smoothly; fails as the primary does before the line."""
    def rule(s):
        if _at_at(factor, 1.0, 0.9)(s) == "fails":
            return "fails"
        lines, b = _lines(s, 1.0, THEORIES), s["damping_betas"]
        broke = False
        for k, _ in THEORIES:
            i = next(j for j, x in enumerate(b) if x >= lines[k] - 1e-9)
            if i < 2:
                raise verdicts.Undecidable("fewer than two sweep β before a theory's own line")
            r = [_ratio(s, k, j)[0] for j in (i - 2, i - 1, i)]
            broke |= (r[2] - r[1]) > rise * (r[1] - r[0])
        return "holds" if broke else "partly"
    return rule


def _old_at_rule(s):
    """The rule before the premises: damping-0.5 means over the instances that converged, at the last β of the
    comparison's grid beyond both own lines where both converge on at least MIN_SHARE of the instances."""
    lines = {k: s[f"{k}_own_at"] for k, _ in THEORIES}
    if any(v is None for v in lines.values()):
        raise verdicts.Undecidable("a theory's own solutions do not reach x = 1 on the sweep")

    def ahead(k, i):
        if s["naive_by_beta"][i] is None:
            raise verdicts.Undecidable("naive mean field's damping-0.5 RMSE is stored as null there")
        return s[f"{k}_by_beta"][i] is not None and s[f"{k}_by_beta"][i] < s["naive_by_beta"][i] / 2

    def measured(k, i):
        return s[f"{k}_by_beta"][i] is not None and s[f"{k}_ok_by_beta"][i] >= MIN_SHARE * s["instances"]
    for k, _ in THEORIES:
        before = [i for i, b in enumerate(s["betas"]) if b < lines[k]]
        if not before or not ahead(k, before[-1]):
            return "fails"
    got = [i for i, b in enumerate(s["betas"]) if b >= max(lines.values()) and all(measured(k, i) for k, _ in THEORIES)]
    if not got:
        raise verdicts.Undecidable("no β beyond both lines measured on a quarter of the instances at damping 0.5")
    return "holds" if not all(ahead(k, got[-1]) for k, _ in THEORIES) else "partly"


def _line_noise(s):
    """Standard error of the median Plefka parameter at each theory's own line (1.2533 σ/√n, σ from the instances'
    interquartile range): how far the median's crossing of 1 can move by the draw of instances."""
    ses = []
    for k, _ in THEORIES:
        i = s["damping_betas"].index(_lines(s, 1.0, THEORIES)[k])
        x = np.array([v for v in s[f"{k}_at_strong_inst"][i] if v is not None])
        q1, q3 = np.quantile(x, [0.25, 0.75])
        ses.append(1.2533 * (q3 - q1) / 1.349 / math.sqrt(x.size))
    return max(ses)


def _factor_noise(s):
    """e^SE of the log ratio to naive mean field (paired instances) at the first sweep β beyond both lines."""
    lines = _lines(s, 1.0, THEORIES)
    i = s["damping_betas"].index(max(lines.values()))
    ses = []
    for k, _ in THEORIES:
        pairs = [(a, b) for a, b in zip(s[f"{k}_strong_inst"][i], s["naive_strong_inst"][i]) if a is not None and b]
        ses.append(log_ratio_se(*np.array(pairs).T))
    return math.exp(max(ses))


def _share_check(s):
    least = min(min(s[f"{k}_strong_ok"]) for k in ("naive", "tap", "atap"))
    return least >= 0.9 * s["instances"], (f"at damping 0.05 every theory has a stable solution on at least {least} of "
                                          f"{s['instances']} instances at every sweep β")


def _ahead_check(s):
    """The factor 2 is what both TAP theories keep over naive mean field in the high-temperature phase (sweep β ≤ 1)."""
    r = {k: [_ratio(s, k, i)[0] for i, b in enumerate(s["damping_betas"]) if b <= 1.0 + 1e-9] for k, _ in THEORIES}
    ok = all(max(v) < 0.5 for v in r.values())
    return ok, "; ".join(f"{NAMES[k]}/naive over sweep β ≤ 1: {min(v):.3f} to {max(v):.3f}" for k, v in r.items())


def _at_note(s):
    lines, b = _lines(s, 1.0, THEORIES), s["damping_betas"]
    keep = [i for i, x in enumerate(b) if any(abs(x - y) < 1e-9 for y in (0.5, 1.0, 1.1, 1.2, 1.3, 1.5, 2.0))]
    rows = ", ".join(f"{b[i]:g}: {_ratio(s, 'tap', i)[0]:.2f} / {_ratio(s, 'atap', i)[0]:.2f}" for i in keep)
    first = b.index(max(lines.values()))
    both = all(_ratio(s, k, first)[0] < 0.5 for k, _ in THEORIES)
    lost = {k: next((f"by β = {b[i]:g}" for i in range(len(b)) if _ratio(s, k, i)[0] >= 0.5), "never on the grid")
            for k, _ in THEORIES}
    smooth = _kink()(s) == "partly"
    return (f"Own lines (median x of the damping-0.05 solutions reaching 1): TAP β = {lines['tap']:g}, adaptive TAP "
            f"{lines['atap']:g} (the exact state's {s['at_text']}). RMSE of m over naive mean field's, on the instances "
            f"with a stable damping-0.05 solution (TAP / adaptive TAP), by β: {rows}. At the first β beyond both "
            f"({b[first]:g}) {'both keep' if both else 'they no longer both keep'} the factor 2; the advantage "
            + ("erodes smoothly through the line, with no break at x = 1" if smooth else "breaks at the line")
            + f"; TAP loses the factor 2 {lost['tap']}, adaptive TAP {lost['atap']}.")


def _at_numbers(s):
    lines, b = _lines(s, 1.0, THEORIES), s["damping_betas"]
    i = b.index(max(lines.values()))
    return {"own line beta, TAP": lines["tap"], "own line beta, adaptive TAP": lines["atap"],
            "exact state's line beta": s["at_beta"], "first beta beyond both": b[i],
            "TAP/naive there": float(f"{_ratio(s, 'tap', i)[0]:.3g}"),
            "adaptive TAP/naive there": float(f"{_ratio(s, 'atap', i)[0]:.3g}")}


def _at_example(tap_ratios, atap_ratios, x_tap=(0.8, 1.1, 1.5), x_atap=(0.8, 1.1, 1.2)):
    """Numbers of three sweep β (1.0, 1.2, 1.4) and two instances with the given ratios to naive's error of 1."""
    return {"instances": 2, "damping_betas": [1.0, 1.2, 1.4], "at_beta": 1.2, "at_text": "1.20",
            "tap_at_strong": list(x_tap), "atap_at_strong": list(x_atap),
            "naive_strong_inst": [[1.0, 1.0]] * 3, "tap_strong_inst": [[r, r] for r in tap_ratios],
            "atap_strong_inst": [[r, r] for r in atap_ratios]}


# --- stability ------------------------------------------------------------------------------------------------------

_KEYS = (("naive", "naive mean field"), ("tap", "TAP"), ("tsite", "per-site TAP"), ("atap", "adaptive TAP"))


def _counterexamples(s, keys=_KEYS, settings=("comparison", "sweep")) -> tuple[int, int, list[int]]:
    """Converged points whose χ is not positive definite, converged points, and the counts per (theory, setting)."""
    bad, total, per = 0, 0, []
    points = len(s["betas"]) * s["instances"]
    sweep_points = len(s["damping_betas"]) * s["instances"]
    for k, _ in keys:
        if f"{k}_unstable" not in s:
            continue
        if "comparison" in settings:
            per.append(int(s[f"{k}_unstable"]))
            total += points - int(s[f"{k}_not_converged"])
        if "sweep" in settings:
            for conv, stable in zip(s[f"{k}_conv_d"], s[f"{k}_stable_d"]):
                per.append(int(round((conv - stable) * sweep_points)))
                total += int(round(conv * sweep_points))
    bad = sum(per)
    return bad, total, per


def _psd_at(rare: float, keys=_KEYS, settings=("comparison", "sweep")):
    def rule(s):
        bad, total, _ = _counterexamples(s, keys, settings)
        if total == 0:
            raise verdicts.Undecidable("no converged point stored")
        return "holds" if bad == 0 else "partly" if bad / total < rare else "fails"
    return rule


def _psd_example(bad: int, betas: int) -> dict:
    """Every theory with ``bad`` converged points of a non-positive-definite χ in a comparison of ``betas`` β × 100
    instances, and a one-β sweep where every point is stable."""
    return {"betas": [1.0] * betas, "instances": 100, "damping_betas": [1.0],
            **{f"{k}_{f}": v for k, _ in _KEYS for f, v in
               (("unstable", bad), ("not_converged", 0), ("conv_d", [1.0]), ("stable_d", [1.0]))}}


def _psd_note(s):
    bad, total, _ = _counterexamples(s)
    return (f"{bad} of {total} converged (β, instance, damping) points of the four theories have a χ that is not "
            f"positive definite (comparison at damping 0.5 and the sweep at 0.5, 0.2, 0.05). For naive mean field and "
            f"TAP (either Onsager term) this is a theorem: at a fixed point the damped iteration's Jacobian is "
            f"I − a·D·χ⁻¹ with D = diag(1 − m²), so a non-positive eigenvalue of χ⁻¹ gives an eigenvalue ≥ 1 at every "
            f"damping; for adaptive TAP, whose V moves with m, the data alone. The converse does not hold: at damping "
            f"0.5 the iteration stops converging beyond β ≈ 1.1 where damping 0.05 finds positive-definite solutions "
            f"(TAP: stable on {s['tap_s0']:.0%} of the sweep's points at damping 0.5, {s['tap_s1']:.1%} at 0.05).")


# --- stable solutions beyond the line (ours) ---------------------------------------------------------------------

def _beyond_at(most: float, some: float, keys=THEORIES, field: str = "beyond_own"):
    def rule(s):
        got = [x for x in (s[f"{k}_{field}"] for k, _ in keys) if x is not None and math.isfinite(x)]
        if not got:
            raise verdicts.Undecidable("no theory's own solutions reach a Plefka parameter of 1 on the sweep's β grid: "
                                       "no point lies beyond its own line")
        x = min(got)
        return "holds" if x >= most else "partly" if x >= some else "fails"
    return rule


def _damping_check(s):
    """The fraction is the solutions', not one damping's: the two strongest dampings agree."""
    f = {k: s[f"{k}_beyond_own_d"] for k, _ in THEORIES}
    ok = all(v[-1] is not None and v[-2] is not None and abs(v[-1] - v[-2]) < 0.01 for v in f.values())
    return ok, "stable beyond its own line at dampings " + ", ".join(
        f"{NAMES[k]} " + " / ".join("–" if x is None else f"{x:.3f}" for x in v) for k, v in f.items())


def _beyond_points(s, k: str) -> int:
    own = s.get(f"{k}_own_at")
    return 0 if own is None else sum(b >= own - 1e-9 for b in s["damping_betas"]) * s["instances"]


def _binomial_noise(s):
    n = min(p for p in (_beyond_points(s, k) for k, _ in THEORIES) if p) if any(
        _beyond_points(s, k) for k, _ in THEORIES) else 0
    return math.sqrt(0.9 * 0.1 / n) if n else None


def _beyond_note(s):
    own = {k: "none on the grid" if s.get(f"{k}_own_at") is None else f"{s[f'{k}_own_at']:.2f}" for k, _ in _KEYS[1:]}
    frac = {k: "no point" if s.get(f"{k}_beyond_own") is None else f"{s[f'{k}_beyond_own']:.1%}" for k, _ in _KEYS[1:]}
    return (f"The median Plefka parameter of the theories' own solutions at damping {s['a1']:g} reaches 1 at β ≈ "
            f"{own['tap']} (TAP), {own['atap']} (adaptive TAP) and {own['tsite']} (per-site TAP); the exact state's at "
            f"{s['at_text']}. At or beyond its own line the strongest damping finds stable solutions at {frac['tap']} "
            f"(TAP, of {_beyond_points(s, 'tap')} points), {frac['atap']} (adaptive TAP, of "
            f"{_beyond_points(s, 'atap')}) and {frac['tsite']} (per-site TAP). At damping {s['a0']:g} TAP "
            f"{s['tap_failure']}; adaptive TAP {s['atap_failure']}: that is the iteration's failure, not the "
            "solutions'. Existence and local stability are not validity: beyond the line the expansion behind the "
            "equations no longer converges.")


# --- the Gaussian vector-spin identity ----------------------------------------------------------------------------

def _identity_at(roundoff: float, near: float):
    def rule(s):
        dev, bound = s["vec_tight"], s["vec_bound"]
        if dev is None or bound is None:
            raise verdicts.Undecidable("the tight solve's deviation or its round-off bound is stored as null")
        if not math.isfinite(dev):
            return "fails"
        return "holds" if dev < roundoff * bound else "partly" if dev < near else "fails"
    return rule


def _roundoff_check(s):
    """The tight deviation sits at the float64 floor, not at a solver tolerance: within a factor 100 of the bound
    either way, and at least a decade below the deviation at the check's usual stopping tolerance."""
    dev, bound, loose = s["vec_tight"], s["vec_bound"], s["vec"]
    ok = bound / 100 < dev < 100 * bound and dev < loose / 10
    return ok, (f"solved to 1e-15: {dev:.1e}; float64 bound κ(P)·ε·max|m| {bound:.1e}; at the stopping tolerance "
                f"1e-12: {loose:.1e}")


def _near_check(s):
    x = s["vec_tight"]
    ok = x < 1e-7 or x > 1e-5
    return ok, f"tight deviation {x:.1e}: " + ("at least a decade from 1e-6" if ok else "within a decade of 1e-6")


LINE_CLAIMS = [
    Claim("ising-at-accuracy", "Ours: a test of Plefka's (1982) convergence condition x < 1 on the TAP theories' "
          "accuracy (Bal 2021 does not discuss it)",
          "TAP-type theories keep their accuracy only while Plefka's parameter x = β²·mean(1 − m_i²)² of their own "
          "solutions is below 1: beyond that line they lose their advantage over naive mean field",
          measured="RMSE of m of TAP and adaptive TAP over naive mean field's, on the instances where the damping-0.05 "
                   "iteration of the sweep finds a stable solution (sweep β 0.5 to 2), and each theory's own line: the "
                   "β where the median Plefka parameter of its damping-0.05 solutions reaches 1",
          origin="ours", rule_at=_at_at,
          thresholds=(Threshold("factor", 2.0, "stored distribution",
                                "the same factor 2 as at β = 0.5: what both TAP theories keep over naive mean field in "
                                "the high-temperature phase (every sweep β up to 1)", _ahead_check,
                                noise=_factor_noise, log=True),
                      Threshold("line", 1.0, "theorem",
                                "Plefka's expansion, whose second order is TAP, converges only while x < 1; noise: the "
                                "standard error of the median x over the instances at the crossing",
                                noise=_line_noise),
                      Threshold("share", 0.9, "stored distribution",
                                "a mean over at least 90 % of the instances is not a selection of easy ones; at damping "
                                "0.05 the theories have stable solutions on (nearly) every instance", _share_check)),
          alternatives=(Alternative("the last sweep β (far beyond both lines) instead of the first beyond both",
                                    "statistic", _at_at(2.0, 1.0, 0.9, where="last")),
                        Alternative("damping-0.5 means over the instances that converged, last β measured on a quarter "
                                    "of them (the rule before the premises)", "statistic", _old_at_rule),
                        Alternative("reading: the exact state's line for both theories", "reading",
                                    _at_at(2.0, 1.0, 0.9, exact=True)),
                        Alternative("reading: TAP 1977's per-site term as 'TAP'", "reading",
                                    _at_at(2.0, 1.0, 0.9, theories=(("tsite", "per-site TAP"),
                                                                    ("atap", "adaptive TAP")))),
                        Alternative("reading: a break at the line (the ratio's rise across it more than twice its rise "
                                    "over the step before)", "reading", _kink())),
          spread=Spread("instance", lambda s: {
              f"RMSE of m at the first β beyond both lines, {NAMES[k]}": s[f"{k}_strong_inst"][
                  s["damping_betas"].index(max(_lines(s, 1.0, THEORIES).values()))] for k in ("naive", "tap", "atap")}),
          how="Plefka's condition bounds the expansion around the magnetisations it is evaluated at, so each theory is "
              "judged against its own line (the median x of its own damping-0.05 solutions reaching 1). Errors are "
              "read on the damping-0.05 solutions, which exist on (nearly) every instance (a mean over at least 90 % "
              "of them: not a selection of the instances whose iteration happened to converge). With the factor 2 "
              "over naive mean field of β = 0.5: holds if each theory keeps it at the last sweep β before its own line "
              "and they no longer both keep it at the first sweep β beyond both lines; with differences if both keep "
              "it there (no loss of accuracy at the line); fails if either has lost it before its own line. Not "
              "tested if a theory's own solutions do not cross 1 on the grid.",
          evidence=("fig-ising-rmse", "fig-ising-stability", T + "test_at_parameter_is_plefkas_condition_on_the_exact_state",
                    T + "test_own_plefka_parameter_is_the_formula_on_each_methods_own_solution",
                    TP + "test_strong_damping_errors_are_stored_per_instance_on_every_instance"),
          note=_at_note, numbers=_at_numbers,
          examples={"holds": _at_example([0.3, 0.6, 0.6], [0.1, 0.2, 0.3]),
                    "partly": _at_example([0.3, 0.4, 0.45], [0.1, 0.2, 0.3]),
                    "fails": _at_example([0.5, 0.4, 0.6], [0.1, 0.2, 0.3])}),
    Claim("ising-breakdown", "Bal 2021 §2.2 (cavity variances and linear response)",
          "The susceptibility matrix χ is a covariance matrix and should stay positive semidefinite for a mean-field "
          "solution to be consistent; as soon as it is not, the fixed-point procedure is no longer stable",
          measured="Converged (β, instance) points whose linear-response χ is not positive definite: the comparison "
                   "(damping 0.5, 40 β × 40 instances) and the damping sweep (0.5, 0.2, 0.05 × 16 β × 40), for naive "
                   "mean field, TAP, per-site TAP and adaptive TAP",
          quote=Quote(SECTION_TAP + " (Cavity variances and linear response)",
                      "As soon this property is lost, the fixed-point procedure will no longer be stable."),
          rule_at=_psd_at,
          thresholds=(Threshold("rare", 0.01, "convention",
                                "a counterexample at one converged point in a hundred could be a solution at the edge "
                                "of stability, where the smallest eigenvalue of χ⁻¹ is zero to round-off; more would "
                                "contradict the statement"),),
          alternatives=(Alternative("reading: only the theories the theorem covers (naive mean field, TAP, per-site TAP)",
                                    "reading", _psd_at(0.01, _KEYS[:3])),
                        Alternative("reading: adaptive TAP only (its V moves with m: no theorem)", "reading",
                                    _psd_at(0.01, _KEYS[3:])),
                        Alternative("the comparison alone (damping 0.5)", "statistic",
                                    _psd_at(0.01, settings=("comparison",))),
                        Alternative("the damping sweep alone", "statistic", _psd_at(0.01, settings=("sweep",)))),
          spread=Spread("theory and setting (comparison; sweep at damping 0.5, 0.2, 0.05)",
                        lambda s: {"counterexamples": _counterexamples(s)[2]}),
          how="The blog's criterion read on the stored solutions: a converged point (the damped iteration reached the "
              "tolerance, so the procedure was stable there) with a χ that is not positive definite contradicts it. "
              "Holds if there is none; with differences if fewer than 1 % of the converged points (a convention: "
              "solutions at the edge of stability); fails otherwise.",
          evidence=("fig-ising-stability", "fig-ising-damping",
                    TP + "test_the_damped_iterations_jacobian_is_one_minus_a_d_chi_inverse",
                    TP + "test_an_iteration_leaves_a_fixed_point_whose_chi_is_not_positive_definite"),
          note=_psd_note, numbers=lambda s: {"counterexamples": _counterexamples(s)[0],
                                             "converged points": _counterexamples(s)[1]},
          examples={"holds": _psd_example(0, 1), "partly": _psd_example(1, 10), "fails": _psd_example(5, 1)}),
    Claim("ising-stable-beyond-line", "Ours (Plefka's 1982 condition; Bal 2021 does not discuss it)",
          "With damping, stable TAP solutions exist beyond the theory's own Plefka line x = 1 on nearly every "
          "instance: the line marks where the expansion stops converging, not where solutions stop existing",
          measured="Fraction of (β, instance) at or beyond each theory's own line (the median Plefka parameter of its "
                   "own solutions at damping 0.05 reaching 1) where the most strongly damped iteration (damping 0.05, "
                   "the same total step length as the others) reaches a solution with a positive-definite inverse "
                   "susceptibility, for TAP and adaptive TAP", origin="ours",
          rule_at=_beyond_at,
          thresholds=(Threshold("most", 0.9, "stored distribution",
                                "'nearly every': at least 90 % of the points beyond the line, many binomial standard "
                                "errors (√(0.09/N) ≤ 0.017 over N ≥ 320 points) from the line, and a fraction the two "
                                "strongest dampings agree on to 0.01 (a property of the solutions, not of one damping)",
                                _damping_check, noise=_binomial_noise),
                      Threshold("some", 0.5, "convention",
                                "below half of the points the solutions are mostly lost: the claim fails")),
          alternatives=(Alternative("reading: TAP 1977's per-site term as 'TAP'", "reading",
                                    _beyond_at(0.9, 0.5, (("tsite", "per-site TAP"), ("atap", "adaptive TAP")))),
                        Alternative("reading: beyond the exact state's line instead of each theory's own", "reading",
                                    _beyond_at(0.9, 0.5, field="beyond_exact")),
                        Alternative("damping 0.2 instead of 0.05", "statistic",
                                    _beyond_at(0.9, 0.5, field="beyond_own_d2"))),
          spread=Spread("(β, instance) point", lambda s: {
              f"stable at damping 0.05 per sweep β, {NAMES[k]}": s[f"{k}_strong_ok"] for k in ("tap", "atap")}),
          how="Holds if the strongest damping finds a stable solution at 90 % or more of the points at or beyond its "
              "own line for each theory whose own solutions cross it ('nearly every', ten binomial standard errors "
              "from the line); with differences if at half or more; fails below half (the solutions mostly lost). "
              "Not tested if neither crosses on the grid.",
          evidence=("fig-ising-stability", "fig-ising-damping",
                    T + "test_damping_sweep_separates_a_slow_iteration_from_a_lost_solution",
                    T + "test_own_plefka_parameter_is_the_formula_on_each_methods_own_solution",
                    T + "test_summarise_counts_stable_solutions_beyond_the_at_crossing_only"),
          note=_beyond_note, numbers=("tap_beyond_own", "atap_beyond_own", "tap_own_at", "atap_own_at"),
          examples={"holds": {"tap_beyond_own": 0.9, "atap_beyond_own": 1.0},
                    "partly": {"tap_beyond_own": 0.89, "atap_beyond_own": None},
                    "fails": {"tap_beyond_own": 0.4, "atap_beyond_own": 0.95}}),
    Claim("ising-gaussian-vector-spins", "Bal 2021 (vector spins with a Gaussian prior; our derivation)",
          "For Gaussian vector spins the adaptive-TAP fixed point is the exact mean (Σ⁻¹ − J)⁻¹X whatever the cavity "
          "variances: the Onsager term changes the path, not the answer",
          measured="Largest deviation of the adaptive-TAP fixed point from the closed form over three arbitrary and "
                   "the self-consistent cavity variances (n = 16, d = 8, float64), the iteration run to max |Δm| < "
                   "1e-15, against the float64 accuracy κ(P)·ε·max|m| of the closed form", origin="ours",
          quote=Quote("3.3. Slow and explicit: solving the adaptive TAP equations",
                      "As a spin prior $\\rho_{i}\\left(\\boldsymbol{S}\\right)$, we pick a simple diagonal "
                      "multivariate Gaussian"),
          rule_at=_identity_at,
          thresholds=(Threshold("roundoff", 100.0, "round-off",
                                "solved three decades below the usual stopping tolerance, what is left is round-off: "
                                "a backward-stable float64 solve is accurate to κ(P)·ε·max|m|, and the ~70 damped "
                                "iterations add a modest multiple of it; 100 leaves room", _roundoff_check,
                                noise=10.0, log=True),
                      Threshold("near", 1e-6, "round-off",
                                "single precision (ε ≈ 1.2e-7) summed over a few terms: an approximation right to six "
                                "digits; the stored deviation lies at least a decade from it", _near_check,
                                noise=10.0, log=True)),
          alternatives=(Alternative("the deviation at the check's stopping tolerance 1e-12 against an absolute 1e-12 "
                                    "(the rule before the premises: it compares the tolerance with itself)", "statistic",
                                    verdicts.identity("vec")),),
          spread=Spread.deterministic("an algebraic identity: at any fixed point the V_i m_i terms cancel; one draw "
                                      "with three fixed V and the self-consistent V, solved to round-off"),
          how="An identity computed in float64, read on an iteration run to max |Δm| < 1e-15 (at the usual 1e-12 the "
              "deviation is the stopping tolerance, not round-off): holds if the largest deviation is below 100 times "
              "the float64 accuracy of the closed form, κ(P)·ε·max|m| (round-off); below 1e-6, with differences "
              "(right to single precision only); above that it fails.",
          evidence=(T + "test_gaussian_vector_tap_equals_closed_form_for_any_cavity_variance",
                    TP + "test_the_vector_identity_is_read_at_round_off_not_at_the_stopping_tolerance"),
          note=lambda s: (f"Our derivation (the blog states the Gaussian prior, not that the Onsager term leaves the "
                          f"answer unchanged). Solved to 1e-15 the largest deviation is {s['vec_tight']:.1e}, against "
                          f"the float64 accuracy of the closed form {s['vec_bound']:.1e}; at the stopping tolerance "
                          f"1e-12 it is {s['vec']:.1e} (the tolerance, not round-off)."),
          numbers=("vec_tight", "vec_bound", "vec"),
          examples={"holds": {"vec_tight": 2.7e-13, "vec_bound": 2.8e-15},
                    "partly": {"vec_tight": 2.9e-13, "vec_bound": 2.8e-15},
                    "fails": {"vec_tight": 1e-6, "vec_bound": 2.8e-15}}),
]
