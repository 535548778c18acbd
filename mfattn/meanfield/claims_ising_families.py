"""Chapter 1's claim that adaptive TAP compensates for not knowing the couplings' distribution, decided on couplings
not drawn from the SK model (:mod:`.families`: diluted, ferromagnetically biased and Hebbian couplings, each scaled to
the SK second moment), from the stored full-profile summary (``families``; :mod:`.claims` flattens it into
``fam_<family>_<theory>_m_inst``, the per-instance RMSE of m, None where the damped iteration did not converge).

On SK couplings TAP's SK-averaged term is the right average; the blog's claim is about the others. The rule reads
"compensates" as keeping the advantage: adaptive TAP below half of TAP's error in every family. A method simply more
accurate everywhere would pass that too (a referee's point), so the readings against adaptive TAP's own advantage on
SK couplings are declared: per family, its ratio to TAP against SK's. Those depend on which SK strength a family is
compared with (a later referee's point: SK's ratio grows steeply with β, and the Hebbian families' own second moment
is below the β = 0.5 they are scaled at), so they are alternatives, not the rule.
"""

from __future__ import annotations

import math

import numpy as np

from ..companion import stats, verdicts
from ..companion.premises import Alternative, Quote, Spread, Threshold
from ..companion.verdicts import Claim
from .claims_ising_accuracy import ADAPTIVE_REASON, NAMES, SECTION_TAP, geometric_interval, log_ratio_se, paired
from .claims_ising_factors import _per_instance
from .families import FAMILIES

__all__ = ["FAMILY_CLAIMS", "TF"]

TF = "tests/test_ising_families.py::"
#: The share of a family's instances on which adaptive TAP must converge for its errors there to count (a theory
#: that compensates by failing to return a solution does not compensate): all but one in ten.
CONVERGED = 0.9
#: The families whose couplings mis-specify TAP's SK-averaged term (the rule reads these); ``ferro`` is the control.
MIS_SPECIFIED = ("diluted", "hopfield", "hopfield_dense")


def _stored(s) -> list[str]:
    s["fam_beta"]     # a summary written before the control lacks it: "not tested", naming the missing number
    got = [f for f in FAMILIES if f"fam_{f}_atap_m_inst" in s]
    if not got:
        raise verdicts.Undecidable("the stored summary has no coupling families (written before the control)")
    return got


def _pairs(s, family: str, worse: str) -> tuple[np.ndarray, np.ndarray]:
    """Adaptive TAP's and ``worse``'s per-instance errors of m in ``family``, on the instances both solved."""
    return paired(s, f"fam_{family}_atap", f"fam_{family}_{worse}")


def converged_share(s, family: str) -> float:
    """The share of ``family``'s instances on which adaptive TAP converged (``fam_<family>_atap_m_inst``: an error,
    None where it did not). ``family`` must be one of :data:`~.families.FAMILIES` (else a TypeError or ValueError
    naming it and those); a family the summary does not hold is a KeyError (written before it: not tested). An empty
    list, or an entry that is infinite, NaN or below 0, is :class:`~mfattn.companion.verdicts.Undecidable` naming the
    key."""
    if not isinstance(family, str) or family not in FAMILIES:
        raise (TypeError if not isinstance(family, str) else ValueError)(
            f"family must be one of {', '.join(FAMILIES)}; got {family!r}"[:200])
    key = f"fam_{family}_atap_m_inst"
    runs = _per_instance(s, key)
    if not runs:
        raise verdicts.Undecidable(f"s[{key!r}] is empty: no instances to take a share of")
    return sum(x is not None for x in runs) / len(runs)


def _grade(ratios: list[float], factor: float, solved: bool) -> str:
    if not solved or max(ratios) >= 1.0:
        return "fails"
    return "holds" if max(ratios) < 1 / factor else "partly"


def _compensates_at(factor: float, worse: str = "tap", converged: float = CONVERGED):
    """Holds if in every family adaptive TAP's mean RMSE of m (instances both solved) is below ``worse``'s / factor
    and it converged on at least ``converged`` of the instances; partly if below ``worse``'s in every family; fails if
    not below it in some family, or adaptive TAP did not converge often enough in some family."""
    def rule(s):
        fams = _stored(s)
        ratios = [b.mean() / w.mean() for b, w in (_pairs(s, f, worse) for f in fams)]
        return _grade(ratios, factor, all(converged_share(s, f) >= converged for f in fams))
    return rule


def _geometric(s):
    """Per family, the 95 % upper end of the geometric mean of the per-instance ratios in place of the ratio of means."""
    fams = _stored(s)
    his = [geometric_interval(*_pairs(s, f, "tap"))[2] for f in fams]
    return _grade(his, 2.0, all(converged_share(s, f) >= CONVERGED for f in fams))


def _sign(s):
    """Per family, a sign test over the instances (two-sided, 5 %): significantly more than half below half of TAP's
    error holds; significantly more than half below TAP's, partly."""
    def significant(x):
        got = stats.sign_test(x)
        return got["positive"] > got["negative"] and got["p"] < 0.05
    grades = []
    for f in _stored(s):
        b, w = _pairs(s, f, "tap")
        grades.append("holds" if significant(w / 2 - b) else "partly" if significant(w - b) else "fails")
    return "fails" if "fails" in grades else "partly" if "partly" in grades else "holds"


def _z_against_sk(s, worse: str = "tap") -> dict[str, float]:
    """Per family, (log ratio − SK's log ratio at β = 0.5) over their combined standard error (adaptive TAP's mean error
    over ``worse``'s, "tap" or "tsite", paired instances; the families' and SK's instances are independent draws)."""
    sb, sw = paired(s, "atap", worse)
    sk, sk_se = math.log(sb.mean() / sw.mean()), log_ratio_se(sb, sw)
    out = {}
    for f in _stored(s):
        b, w = _pairs(s, f, worse)
        out[f] = (math.log(b.mean() / w.mean()) - sk) / math.hypot(log_ratio_se(b, w), sk_se)
    return out


def _z_against_matched(s, worse: str = "tap") -> dict[str, float]:
    """Per family, as :func:`_z_against_sk` but against SK couplings of the family's own strength (its mean
    √(Σ_ij J_ij²/n), the second moment TAP's term estimates; ``fam_<family>_sk_*``, stored since that reading), with
    ``worse`` ("tap" or "tsite", per-site TAP) the theory adaptive TAP's error is divided by."""
    out = {}
    for f in _stored(s):
        if f"fam_{f}_sk_atap_m_inst" not in s:
            raise verdicts.Undecidable("the stored summary has no SK reference at the families' own strengths "
                                       "(written before that reading)")
        sb, sw = paired(s, f"fam_{f}_sk_atap", f"fam_{f}_sk_{worse}")
        b, w = _pairs(s, f, worse)
        out[f] = ((math.log(b.mean() / w.mean()) - math.log(sb.mean() / sw.mean()))
                  / math.hypot(log_ratio_se(b, w), log_ratio_se(sb, sw)))
    return out


def _relative_at(z: float, converged: float = CONVERGED, families=MIS_SPECIFIED, against=None):
    """The primary rule: over the mis-specified ``families`` stored, holds if no family's log ratio (adaptive TAP's
    mean error over TAP's) is more than ``z`` combined standard errors above SK's own and at least one is more than
    ``z`` below it (adaptive TAP gains where TAP's term is wrong); partly if none is beyond ``z`` either way (it keeps
    its SK advantage, no more); fails if one is above, or adaptive TAP did not converge on ``converged`` of a family's
    instances."""
    def rule(s):
        fams = [f for f in _stored(s) if f in families]
        if not fams:
            raise verdicts.Undecidable("the stored summary has none of the families that mis-specify TAP's term")
        if not all(converged_share(s, f) >= converged for f in fams):
            return "fails"
        zs = (against or _z_against_sk)(s)
        if any(zs[f] > z for f in fams):
            return "fails"
        return "holds" if any(zs[f] < -z for f in fams) else "partly"
    return rule


def _noise(s):
    """The factor's noise: the largest over the families of e^SE of the log ratio (paired instances)."""
    return max(math.exp(log_ratio_se(*_pairs(s, f, "tap"))) for f in _stored(s))


def _note(s):
    parts = []
    for f in _stored(s):
        b, w = _pairs(s, f, "tap")
        bs, ws = _pairs(s, f, "tsite")
        g, lo, hi = geometric_interval(b, w)
        fails = {k: sum(x is None for x in s[f"fam_{f}_{k}_m_inst"]) for k in ("naive", "tap", "tsite", "atap")}
        parts.append(f"{f}: adaptive TAP {b.mean():.1e}, TAP {w.mean():.1e} (ratio {b.mean() / w.mean():.3f}; "
                     f"per-instance geometric mean {g:.3f}, 95 % {lo:.3f} to {hi:.3f}; below half on "
                     f"{int(np.sum(b < w / 2))} of {b.size}), per-site TAP {ws.mean():.1e} (ratio "
                     f"{bs.mean() / ws.mean():.3f}), naive {np.mean([x for x in s[f'fam_{f}_naive_m_inst'] if x is not None]):.1e}"
                     f"; not converged: " + ", ".join(f"{NAMES[k]} {v}" for k, v in fails.items()))
    sk = (f" On SK couplings (ising-adaptive-tap) the ratio to TAP is {s['atap_m'] / s['tap_m']:.3f}."
          if "atap_m" in s and "tap_m" in s else "")
    if "atap_by_beta" in s and "tap_by_beta" in s and "betas" in s:
        pick = [(b, a / t) for b, a, t in zip(s["betas"], s["atap_by_beta"], s["tap_by_beta"])
                if a is not None and t and any(abs(b - x) < 1e-9 for x in (0.25, 0.3, 0.35, 0.5, 0.75, 1.0))]
        sk += (" SK's own ratio grows steeply with β (the stored per-β means): "
               + ", ".join(f"{r:.3f} at β = {b:g}" for b, r in pick) + "; the Hebbian families are matched to SK by "
               "their largest eigenvalue, not their second moment, so compared with SK at another strength they read "
               "otherwise: the SK-relative readings depend on that matching.")
    try:
        sk += " Against SK's ratio at β = 0.5 (log ratios over their combined standard error): " + ", ".join(
            f"{f} {z:+.1f}" for f, z in _z_against_sk(s).items()) + " (above +2: significantly worse than on SK)."
    except (KeyError, verdicts.Undecidable):
        pass
    try:
        zs = _z_against_matched(s, "tsite")
        sk += (" Against per-site TAP (its term from the actual couplings' squares; a reading chosen after the others, "
               "which separates the families, while against the SK-averaged TAP at the families' own strength the "
               "Hebbian families lose), adaptive TAP's ratio on SK "
               "couplings of each family's own strength and its z: " + ", ".join(
                   f"{f} {_sk_matched_ratio(s, f, 'tsite'):.3f}, z {zs[f]:+.1f}" for f in zs) + ".")
    except (KeyError, verdicts.Undecidable):
        pass
    try:
        own = {f: (_own_error_z(s, f, "sk"), _own_error_z(s, f, "matched")) for f in _stored(s) if f in MIS_SPECIFIED}
        sk += (f" Adaptive TAP's own error (SK at β = 0.5: {s['atap_m']:.1e}) on the families that mis-specify TAP's "
               "term, z against SK at β = 0.5 / against SK of the family's strength: " + ", ".join(
                   f"{f} {np.mean([x for x in s[f'fam_{f}_atap_m_inst'] if x is not None]):.1e} "
                   f"({a:+.1f} / {b:+.1f})" for f, (a, b) in own.items()) + ".")
    except (KeyError, verdicts.Undecidable):
        pass
    try:
        zt = _z_against_sk(s, "tsite")
        sk += (" The per-site rule against SK at β = 0.5 instead of SK of each family's strength: " + ", ".join(
            f"{f} z {z:+.1f}" for f, z in zt.items()) + " (the matching of strength does not decide it).")
    except (KeyError, verdicts.Undecidable):
        pass
    try:
        zm = _z_against_matched(s)
        sk += (" The SK-averaged TAP against SK couplings of each family's own strength (" + ", ".join(
            f"{f} {np.mean(s[f'fam_{f}_moment']):.3f}: SK's ratio {_sk_matched_ratio(s, f):.3f}, z {zm[f]:+.1f}"
            for f in zm) + ").")
    except (KeyError, verdicts.Undecidable):
        pass
    return (f"RMSE of m at β = {s['fam_beta']:g}, n = {s['fam_n']}, {s['fam_instances']} instances per family, "
            f"against exact enumeration. " + "; ".join(parts) + "." + sk)


def _own_error_z(s, family: str, against: str = "sk") -> float:
    """Adaptive TAP's own error of m on ``family`` against its own error on SK couplings (``against``: "sk", SK at
    β = 0.5, the same spectral edge for the Hebbian families and the same second moment for the others; "matched", SK
    at the family's own second moment): log ratio of the mean errors over its standard error (independent instances,
    delta method)."""
    fam = np.array([x for x in s[f"fam_{family}_atap_m_inst"] if x is not None], float)
    ref = np.array([x for x in (s["atap_m_inst"] if against == "sk" else s[f"fam_{family}_sk_atap_m_inst"])
                    if x is not None], float)
    se = math.sqrt(fam.var(ddof=1) / (fam.size * fam.mean() ** 2) + ref.var(ddof=1) / (ref.size * ref.mean() ** 2))
    return math.log(fam.mean() / ref.mean()) / se


def _own_error_at(against: str):
    """The literal reading of "compensates": adaptive TAP as accurate on the families that mis-specify TAP's term as
    on SK couplings (its own error, not a ratio to TAP): holds if no such family's error is more than 2 standard
    errors above SK's, fails otherwise."""
    def rule(s):
        fams = [f for f in _stored(s) if f in MIS_SPECIFIED]
        if not fams:
            raise verdicts.Undecidable("the stored summary has none of the families that mis-specify TAP's term")
        return "fails" if any(_own_error_z(s, f, against) > 2.0 for f in fams) else "holds"
    return rule


def _sk_matched_ratio(s, family: str, worse: str = "tap") -> float:
    sb, sw = paired(s, f"fam_{family}_sk_atap", f"fam_{family}_sk_{worse}")
    return float(sb.mean() / sw.mean())


def _shown(s):
    """The ratio of the mean errors to each TAP's, per family (what the rule reads)."""
    out = {}
    for f in _stored(s):
        for worse in ("tap", "tsite"):
            b, w = _pairs(s, f, worse)
            out[f"adaptive TAP / {NAMES[worse]}, {f}"] = float(b.mean() / w.mean())
        out[f"adaptive TAP converged, {f}"] = converged_share(s, f)
    return out


def _example(ratio: float) -> dict:
    """SK at a ratio of 0.2 (six instances, small spread) and every family at ``ratio`` (hopfield) or 0.2."""
    tap = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0]
    jitter = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0]
    out = {"fam_beta": 0.5, "atap_m_inst": [0.2 * t * j for t, j in zip(tap, jitter)], "tap_m_inst": tap}
    for f in FAMILIES:
        r = ratio if f == "hopfield" else 0.2
        out.update({f"fam_{f}_tap_m_inst": tap, f"fam_{f}_tsite_m_inst": tap,
                    f"fam_{f}_atap_m_inst": [r * t * j for t, j in zip(tap, reversed(jitter))]})
    return out


def _z_example(ratio: float) -> dict:
    """Every family at adaptive TAP / per-site TAP = 0.45, as on SK couplings of its strength, except the Hebbian
    family at ``ratio`` (six instances, small spread)."""
    base = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0]
    jitter = [1.0, 1.01, 0.99, 1.005, 0.995, 1.0]
    out = {"fam_beta": 0.5, "fam_n": 18}
    for f in FAMILIES:
        r = ratio if f == "hopfield" else 0.45
        out.update({f"fam_{f}_tsite_m_inst": base, f"fam_{f}_tap_m_inst": base, f"fam_{f}_sk_tsite_m_inst": base,
                    f"fam_{f}_naive_m_inst": [3 * b for b in base], f"fam_{f}_sk_tap_m_inst": base,
                    f"fam_{f}_sk_atap_m_inst": [0.45 * b * j for b, j in zip(base, jitter)],
                    f"fam_{f}_atap_m_inst": [r * b * j for b, j in zip(base, reversed(jitter))]})
    return out


FAMILY_CLAIMS = [
    Claim("ising-adaptive-tap-compensates", "Opper & Winther 2001's motive, as Bal 2021 §2.2 states it (our test of it)",
          "Adaptive TAP compensates for not knowing the couplings' distribution: where the couplings are correlated "
          "(Hebbian, at two loads), which makes even TAP 1977's per-site Onsager term wrong, adaptive TAP's advantage "
          "over that term is significantly larger than on SK couplings of the same strength, and on diluted and "
          "ferromagnetically biased couplings, which leave that term right (controls), it is not (over the "
          "SK-averaged term its advantage, below half of TAP's error in every family, is about as large as on SK at "
          "β = 0.5 and significantly smaller on the Hebbian families than on SK of their own second moment: declared "
          "readings)",
          measured="RMSE of the magnetisations against exact enumeration (n = 18) at β = 0.5 on 40 instances of each of "
                   "four coupling families not drawn from SK, each in or near SK's paramagnetic phase (diluted ±1 "
                   "couplings of mean degree 3 and SK plus a ferromagnetic mean J0 = 1, both scaled to the SK second "
                   "moment Σ_ij J_ij²/n = β²; Hebbian couplings of 4 and of 9 random patterns, loads α = p/n 0.22 and "
                   "0.5, scaled to SK's spectral edge, largest eigenvalue 1.6 β = 0.8), for adaptive TAP, TAP (SK "
                   "average), per-site TAP and naive mean field",
          origin="ours",   # the blog states the method's motive; the families, the comparator and the rule are ours
          quote=Quote(SECTION_TAP, "To compensate for the lack of knowledge of the couplings distribution, they "
                                   "introduced a self-consistent computation to adapt the Onsager correction to the "
                                   "actual couplings"),
          reading="'compensates' read as a gain where the couplings' distribution makes the Onsager term wrong: against "
                  "TAP 1977's per-site term, which is right for independent couplings and wrong for correlated "
                  "ones, compared with SK couplings of the same strength; keeping the advantage over the SK-averaged "
                  "term (below half of its error in every family) is a declared reading",
          rule_at=lambda z: _relative_at(z, families=FAMILIES, against=lambda s: _z_against_matched(s, "tsite")),
          thresholds=(Threshold("z", 2.0, "convention", "two combined standard errors of the two log ratios (the "
                                "family's and SK's at its strength, independent instances): a smaller difference is "
                                "within the instances' noise"),),
          alternatives=(Alternative("reading: keeps its advantage over the SK-averaged TAP, below half of its error in "
                                    "every family (the rule before the ninth referee round: a method simply better "
                                    "everywhere passes it too)", "reading", _compensates_at(2.0)),
                        Alternative("the per-site rule over the Hebbian families alone (the controls left out)",
                                    "reading", _relative_at(2.0, families=("hopfield", "hopfield_dense"),
                                                            against=lambda s: _z_against_matched(s, "tsite"))),
Alternative("reading: against adaptive TAP's own advantage on SK couplings at β = 0.5: on the "
                                    "families that mis-specify TAP's term, no ratio to TAP more than 2 combined "
                                    "standard errors above SK's and at least one more than 2 below (a gain where the "
                                    "term is wrong); none beyond 2 either way, with differences", "reading",
                                    _relative_at(2.0)),
                        Alternative("reading: the SK-averaged TAP (not per-site TAP) against SK couplings of each "
                                    "family's own strength (its mean √(Σ_ij J_ij²/n), the second moment TAP's term "
                                    "estimates: 0.5 for the diluted and ferro families, lower for the Hebbian ones, which "
                                    "are scaled by their largest eigenvalue), the same z rule", "reading",
                                    _relative_at(2.0, against=_z_against_matched)),
                        Alternative("the per-site rule against SK couplings at β = 0.5 (not matched in strength): "
                                    "adaptive TAP over per-site TAP, the same z rule", "reading",
                                    _relative_at(2.0, against=lambda s: _z_against_sk(s, "tsite"))),
                        Alternative("reading, the most literal: adaptive TAP's own error on each family that "
                                    "mis-specifies TAP's term no more than 2 standard errors above its error on SK "
                                    "couplings at β = 0.5 (the same spectral edge for the Hebbian families)", "reading",
                                    _own_error_at("sk")),
                        Alternative("reading, the most literal, at the same second moment: adaptive TAP's own error on "
                                    "each such family against its error on SK couplings of the family's own strength",
                                    "reading", _own_error_at("matched")),
                        Alternative("reading: below TAP's error at all in every family (no factor)", "reading",
                                    _compensates_at(1.0)),
                        Alternative("reading: against per-site TAP (TAP 1977's term, from the actual couplings' "
                                    "squares): below its error in every family", "reading",
                                    _compensates_at(1.0, "tsite")),
                        Alternative("geometric mean of the per-instance ratios, its 95 % upper end below 1/2 in every "
                                    "family", "statistic", _geometric),
                        Alternative("per instance (sign test) in every family", "statistic", _sign),
                        Alternative("every instance counts, converged or not (no convergence requirement)",
                                    "threshold", _compensates_at(2.0, converged=0.0)),
                        Alternative("against SK's advantage at β = 0.5 as above, the control included: the "
                                    "ferromagnetically biased family read like the others",
                                    "reading", _relative_at(2.0, families=FAMILIES)),
                        Alternative("reading: no mis-specified family significantly above SK's ratio (no gain "
                                    "required)", "reading", lambda s: "holds" if _relative_at(2.0)(s) != "fails"
                                    else "fails")),
          spread=Spread("instance (not converged: NaN)", lambda s: {
              f"RMSE of m, {NAMES[k]}, {f}": [math.nan if x is None else x for x in s[f"fam_{f}_{k}_m_inst"]]
              for f in _stored(s) for k in ("tap", "atap")}),
          how="Decided on per-site TAP, whose own ratio on SK couplings barely depends on the strength (0.42 to 0.49): "
              "in each family, the log ratio of adaptive TAP's mean error of m to per-site TAP's against the same on "
              "SK couplings of the family's own strength √(Σ_ij J_ij²/n), over their combined standard error z. Holds "
              "if no family is more than 2 above (worse than on SK) and some family is more than 2 below (a gain where "
              "the term is wrong); with differences if none is beyond 2 either way (the advantage kept, no more); "
              "fails if one is above, or adaptive TAP did not converge on enough of a family's instances. This rule "
              "was chosen in the ninth referee round, after the others had been read (they are declared readings): it "
              "is the one a method simply more accurate everywhere does not pass, and its controls, the diluted and "
              "ferromagnetically biased families, whose couplings leave the per-site term right (independent "
              "couplings; a mean J0/n changes it only at O(1/n)), stay at z ≈ 0 as that predicts. The families stay "
              "in or near SK's paramagnetic phase, where TAP applies (the Hebbian family is scaled to SK's spectral "
              "edge: at the SK second moment it would be in its retrieval phase on every draw, where every theory "
              "fails).",
          evidence=(TF + "test_families_have_the_sk_second_moment_and_are_drawn_per_instance",
                    TF + "test_the_compensation_rule_reaches_every_outcome"),
          note=_note, numbers=_shown,
          examples={"holds": _z_example(0.2), "partly": _z_example(0.45), "fails": _z_example(0.9)}),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
