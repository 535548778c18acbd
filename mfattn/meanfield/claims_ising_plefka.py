"""The rules behind chapter 1's two claims about Plefka's line (ours; :mod:`.claims_ising_line` declares them): where
each theory's own line lies, whether its own solutions cross it at all, its accuracy on either side, and how many
stable solutions lie beyond it.

A theory's own line is the first sweep β where the median Plefka parameter x = β²·mean(1 − m_i²)² of its
damping-0.05 solutions reaches 1. A median that wanders about 1 is no crossing: a theory counts as crossing its line
only if, at some sweep β, its median x exceeds 1 by more than :data:`CROSS_Z` standard errors of the median over the
instances. TAP crosses (x = 1.21 ± 0.04 at β = 1.2, 3.9 at β = 2); adaptive TAP's median stays at 0.95–1.13 from
β = 1.2 to 2, never more than 0.6 standard errors above 1, so none of its solutions lies beyond its own line and the
claims are decided on the theories that cross (the crossing the old rule read at β = 1.3 is a declared reading).

Beyond the line the weakly damped (0.5) iteration converges on few instances, and those are the easy ones (at β = 1.3
TAP converges on 10 of 40, whose TAP/naive ratio is 0.28 against 0.36 over all 40). The line claims are therefore
read on the damping-0.05 solutions of the damping sweep, which exist on (nearly) every instance; the damping-0.5
means over the instances that converged are an alternative statistic.
"""

from __future__ import annotations

import math

import numpy as np

from ..companion import verdicts
from ..companion.checks import check_positive
from .claims_ising_accuracy import NAMES, log_ratio_se
from .claims_ising_sweep import SWEPT, _crossing_tables, _sweep

__all__ = ["THEORIES", "MIN_SHARE", "CROSS_Z", "SWEPT"]

#: The TAP theories whose line the claims are about (the key of the stored numbers, the name).
THEORIES = (("tap", "TAP"), ("atap", "adaptive TAP"))
#: The alternative statistic of the rule before the premises: the damping-0.5 means over the instances that converged,
#: at the last β beyond both lines where both converge on at least this share of the instances.
MIN_SHARE = 0.25
# a crossing (CROSS_Z standard errors of the median above the line) is read in a module of its own; re-exported
from .claims_ising_crossings import CROSS_Z, _crosses, _median_se, _own_x, _z_above  # noqa: E402,F401


# --- the own line --------------------------------------------------------------------------------------------------

def _lines(s, line: float, theories, exact: bool = False, crossing: bool = True) -> dict[str, float]:
    """Per theory whose own solutions cross ``line`` (all that reach it if not ``crossing``), the first sweep β where
    the median x of its damping-0.05 solutions reaches it; ``exact``: the exact state's crossing for every theory."""
    if exact:
        if s["at_beta"] is None:
            raise verdicts.Undecidable("the exact state's median Plefka parameter does not reach 1 on the grid")
        return {k: s["at_beta"] for k, _ in theories}
    out = {}
    for k, _ in theories:
        hit = [b for b, x in zip(s["damping_betas"], s[f"{k}_at_strong"]) if x is not None and x >= line]
        if hit and (not crossing or _crosses(s, k, line)):
            out[k] = hit[0]
    if not out:
        raise verdicts.Undecidable(f"no theory's own solutions cross x = {line:g} on the sweep's β grid (median x more "
                                   f"than {CROSS_Z:g} standard errors above it at some β): no point beyond an own line")
    return out


# --- accuracy on either side of the line -------------------------------------------------------------------------

def _ratio(s, k: str, i: int, ref: str = "naive", per_instance: bool = False) -> tuple[float, int]:
    """Theory ``k``'s mean RMSE of m over naive mean field's (``ref``: or a couplings-free baseline, "zero" for m = 0,
    "field" for tanh(h_i)) at sweep β index ``i``, over the instances where both have a stable damping-0.05 solution,
    and how many those are (``per_instance``: the mean of the per-instance ratios instead of the ratio of the means)."""
    pairs = [(a, b) for a, b in zip(s[f"{k}_strong_inst"][i], s[f"{ref}_strong_inst"][i]) if a is not None and b]
    if not pairs:
        return math.inf, 0
    a, b = np.array(pairs).T
    return float((a / b).mean() if per_instance else a.mean() / b.mean()), len(pairs)


def _ratio_interval(s, k: str, i: int, ref: str = "naive") -> tuple[float, float, float]:
    """:func:`_ratio` with its 95 % interval over the paired instances (the delta-method standard error of the log
    ratio of the mean errors, Student's t): (ratio, low, high)."""
    from ..companion import stats

    pairs = [(a, b) for a, b in zip(s[f"{k}_strong_inst"][i], s[f"{ref}_strong_inst"][i]) if a is not None and b]
    if len(pairs) < 3:
        raise verdicts.Undecidable(f"{len(pairs)} paired instances at β index {i}: too few for an interval")
    a, b = np.array(pairs).T
    r, half = float(a.mean() / b.mean()), stats.t_quantile_975(len(pairs) - 1) * log_ratio_se(a, b)
    return r, r * math.exp(-half), r * math.exp(half)


def _side(s, k: str, i: int, ref: str, factor: float, interval: bool, per_instance: bool = False) -> str:
    """Whether theory ``k`` keeps its factor over ``ref`` at sweep β index ``i``: "kept" (the ratio, or with
    ``interval`` its 95 % interval, below 1/factor), "lost" (at or above it), or "open" (the interval covers it)."""
    if not interval:
        return "kept" if _ratio(s, k, i, ref, per_instance)[0] < 1 / factor else "lost"
    _, lo, hi = _ratio_interval(s, k, i, ref)
    return "kept" if hi < 1 / factor else "lost" if lo >= 1 / factor else "open"


def _broke(s, k: str, i: int, rise: float) -> bool:
    """Whether the ratio's rise into sweep β index ``i`` is more than ``rise`` times its rise over the step before."""
    if i < 2:
        raise verdicts.Undecidable(f"fewer than two sweep β before {NAMES[k]}'s own line: no rise to compare with")
    r = [_ratio(s, k, j)[0] for j in (i - 2, i - 1, i)]
    return (r[2] - r[1]) > rise * (r[1] - r[0])


def _first_beyond(s, k: str, line_beta: float, share: float) -> int:
    """The first sweep β index at or beyond ``line_beta`` where the theory has a stable solution on ``share`` of the
    instances."""
    got = [i for i, x in enumerate(s["damping_betas"]) if x >= line_beta - 1e-9
           and _ratio(s, k, i)[1] >= share * s["instances"]]
    if not got:
        raise verdicts.Undecidable(f"no sweep β at or beyond {NAMES[k]}'s own line (β ≥ {line_beta:g}) with a stable "
                                   f"solution on {share:.0%} of the instances")
    return got[0]


def _at_at(factor: float, line: float, share: float, theories=THEORIES, exact: bool = False, crossing: bool = True,
           ref: str = "naive", strict: bool = False, interval: bool = False, per_instance: bool = False):
    """Rule, per theory that crosses its own line: it must keep ``factor`` over naive mean field (or ``ref``) at the
    last sweep β before its line (else the claim fails); at the first sweep β at or beyond it (a stable solution on
    ``share`` of the instances) it has lost the factor (the claim) or keeps it (against). Holds if every crossing
    theory loses it there, fails if none does, with differences if some do. With ``interval`` each side is read on
    the ratio's 95 % interval over the instances, and an interval that covers the factor leaves it undecided."""
    def rule(s):
        lines, b = _lines(s, line, theories, exact, crossing), s["damping_betas"]
        lost = []
        for k, name in theories:
            if k not in lines:
                continue
            before = [i for i, x in enumerate(b) if x < lines[k] - 1e-9]
            if not before:
                raise verdicts.Undecidable(f"{name}'s own line lies at the first β of the sweep: nothing before it")
            side = _side(s, k, before[-1], ref, factor, interval, per_instance)
            if side == "lost":
                return "fails"
            at = lines[k] + (1e-6 if strict else 0.0)   # strict: the first sweep β past the line, not at it
            beyond = _side(s, k, _first_beyond(s, k, at, share), ref, factor, interval, per_instance)
            if "open" in (side, beyond):
                raise verdicts.Undecidable(f"{name}'s ratio to the reference has a 95 % interval that covers "
                                           f"1/{factor:g} at the line or before it: inconclusive")
            lost.append(beyond == "lost")
        return "holds" if all(lost) else "fails" if not any(lost) else "partly"
    return rule


def baseline_note(s) -> str:
    """Where naive mean field, the reference of the line rules, stops beating the couplings-free estimates, and TAP's
    ratio to tanh(h_i) at its own line ("" where the baselines are not stored). A sweep that does not hang together
    (:func:`~.claims_ising_sweep._sweep`) is :class:`~mfattn.companion.verdicts.Undecidable` naming the key."""
    if "zero_strong_inst" not in s:
        return ""
    _sweep(s, [f"{k}_strong_inst" for k in ("naive", "zero", "field", "tap")]
           + [f"{k}_at_strong_inst" for k, _ in THEORIES], [f"{k}_at_strong" for k, _ in THEORIES])
    b = s["damping_betas"]
    worse = [x for i, x in enumerate(b) if _ratio(s, "naive", i, "zero")[0] > 1]
    text = (f" Naive mean field, the rules' reference, is worse than simply m = 0 from β = {worse[0]:g} of the sweep on "
            "(its error's mean over the instances above the exact magnetisations' RMS), so a ratio to it means less "
            "there; the couplings-free estimates are declared references." if worse else "")
    lines = _lines(s, 1.0, THEORIES)
    if "tap" in lines:
        i = _first_beyond(s, "tap", lines["tap"], 0.9)
        def shown(j, ref):
            r, lo, hi = _ratio_interval(s, "tap", j, ref)
            return f"{r:.3f} (95 % {lo:.2f} to {hi:.2f})"
        text += (f" TAP's error over tanh(h_i)'s is {shown(i, 'field')} at its own line (β = {b[i]:g})"
                 + (f" and {shown(i + 1, 'field')} one sweep step beyond" if i + 1 < len(b) else "")
                 + f"; over m = 0's {shown(i, 'zero')} at its line"
                 + (f" and {shown(i + 1, 'zero')} one step beyond" if i + 1 < len(b) else "")
                 + ": against the couplings-free estimates the factor 2 is lost within a sweep step or two of the "
                 "line, against naive mean field later.")
    return text


def _kink(factor: float = 2.0, rise: float = 2.0):
    """The claim read as a break: holds if, for a theory that crosses, the ratio's rise into its first β at or beyond
    its line is more than ``rise`` times the rise over the step before; fails if every ratio grows smoothly or the
    factor is lost before the line."""
    def rule(s):
        lines = _lines(s, 1.0, THEORIES)
        broke = False
        for k in lines:
            before = [i for i, x in enumerate(s["damping_betas"]) if x < lines[k] - 1e-9]
            if before and not _ratio(s, k, before[-1])[0] < 1 / factor:
                return "fails"
            broke |= _broke(s, k, _first_beyond(s, k, lines[k], 0.9), rise)
        return "holds" if broke else "fails"
    return rule


def _knee_slopes(s, k: str, i: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per instance with a stable damping-0.05 solution of theory ``k`` and of naive mean field at every sweep β from
    index ``i − steps`` to ``i + steps``: the least-squares slope of the ratio of their RMSEs of m against β over the
    ``steps`` sweep steps before index ``i`` (β_{i−steps} .. β_i) and over the ``steps`` after it (β_i .. β_{i+steps})."""
    if i - steps < 0 or i + steps >= len(s["damping_betas"]):
        raise verdicts.Undecidable(f"fewer than {steps} sweep steps on either side of {NAMES[k]}'s own line")
    rows = range(i - steps, i + steps + 1)
    beta = np.array([s["damping_betas"][j] for j in rows])
    before, after = [], []
    for inst in range(s["instances"]):
        pairs = [(s[f"{k}_strong_inst"][j][inst], s["naive_strong_inst"][j][inst]) for j in rows]
        if any(a is None or not b for a, b in pairs):
            continue
        r = np.array([a / b for a, b in pairs])
        before.append(np.polyfit(beta[:steps + 1], r[:steps + 1], 1)[0])
        after.append(np.polyfit(beta[steps:], r[steps:], 1)[0])
    return np.array(before), np.array(after)


def _knee(steps: int = 3, share: float = 0.9):
    """The claim read as a knee (the referee's reading): the accuracy erodes faster beyond the line, lost or not. Per
    crossing theory, the per-instance slopes of its ratio to naive mean field over ``steps`` sweep steps after its own
    line against the ``steps`` before (:func:`_knee_slopes`, on at least ``share`` of the instances): holds if the
    slope after is the steeper on significantly more than half of the instances (two-sided sign test at 5 %) for every
    crossing theory; fails otherwise. A loss of the factor 2 is not asked for."""
    from ..companion import stats

    def rule(s):
        for k, line in _lines(s, 1.0, THEORIES).items():
            i = [j for j, x in enumerate(s["damping_betas"]) if x >= line - 1e-9][0]
            before, after = _knee_slopes(s, k, i, steps)
            if before.size < share * s["instances"]:
                raise verdicts.Undecidable(f"{NAMES[k]} has a stable solution at every β of the window on "
                                           f"{before.size} of {s['instances']} instances")
            # slopes equal to rounding are ties (dropped by the sign test), not a faster erosion
            got = stats.sign_test(np.where(np.isclose(after, before, rtol=1e-9, atol=1e-12), 0.0, after - before))
            if not (got["positive"] > got["negative"] and got["p"] < 0.05):
                return "fails"
        return "holds"
    return rule


def instance_crossings(s, k: str, factor: float = 2.0) -> dict[str, int]:
    """Per instance, theory ``k``'s own line: the first sweep β where that instance's own x (damping 0.05) reaches 1.
    Returns how many instances cross (``cross``) and, of those with both errors at that β, how many have lost the
    ``factor`` over naive mean field there (``lost``) and how many keep it (``kept``). ``k`` is one of :data:`SWEPT`
    (else a TypeError or ValueError naming it); the three tables it reads must have one shape (one row per sweep β,
    one entry per instance), each entry None or a finite number >= 0, else
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key."""
    check_positive("factor", factor)   # a factor of 0 divides by zero below; a negative one means nothing
    _crossing_tables(s, k)
    xs, errs, naive = s[f"{k}_at_strong_inst"], s[f"{k}_strong_inst"], s["naive_strong_inst"]
    out = {"cross": 0, "lost": 0, "kept": 0}
    for i in range(len(xs[0])):
        first = next((j for j, row in enumerate(xs) if row[i] is not None and row[i] >= 1.0), None)
        if first is None:
            continue
        out["cross"] += 1
        a, b = errs[first][i], naive[first][i]
        if a is not None and b:
            out["lost" if a >= b / factor else "kept"] += 1
    return out


def _per_instance_line(factor: float = 2.0):
    """The claim read on each instance's own line rather than the median's (a referee's reading: the median of a split
    distribution hides that adaptive TAP's own x crosses 1 on many instances): for both TAP theories, at each
    instance's first sweep β at or beyond its own line, the factor over naive mean field lost on significantly more
    than half of those instances (two-sided sign test at 5 %) holds, kept on significantly more than half fails,
    otherwise with differences."""
    from ..companion import stats

    def rule(s):
        lost = kept = 0
        for k, _ in THEORIES:
            got = instance_crossings(s, k, factor)
            lost, kept = lost + got["lost"], kept + got["kept"]
        if lost + kept < 6:
            raise verdicts.Undecidable(f"{lost + kept} instances cross their own line with both errors stored: too few")
        test = stats.sign_test([1.0] * lost + [-1.0] * kept)
        if test["p"] < 0.05:
            return "holds" if lost > kept else "fails"
        return "partly"
    return rule


def _old_at_rule(s):
    """The rule before the premises, its grades as the claim reads them: damping-0.5 means over the instances that
    converged, at the last β of the comparison's grid beyond both own lines (where the median first reaches 1, no
    crossing test) where both converge on at least MIN_SHARE of the instances; a factor 2 kept there contradicts
    the claim (fails), lost supports it (holds)."""
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
    return "holds" if not all(ahead(k, got[-1]) for k, _ in THEORIES) else "fails"


def _line_noise(s):
    """Standard error of the median Plefka parameter at each crossing theory's own line: how far the median's crossing
    of 1 can move by the draw of instances."""
    lines = _lines(s, 1.0, THEORIES)
    return max(_own_x(s, k)[s["damping_betas"].index(b)][1] for k, b in lines.items())


def _factor_noise(s):
    """e^SE of the log ratio to naive mean field (paired instances) at each crossing theory's first β at or beyond its
    line."""
    ses = []
    for k, b in _lines(s, 1.0, THEORIES).items():
        i = _first_beyond(s, k, b, 0.9)
        pairs = [(a, n) for a, n in zip(s[f"{k}_strong_inst"][i], s["naive_strong_inst"][i]) if a is not None and n]
        ses.append(log_ratio_se(*np.array(pairs).T))
    return math.exp(max(ses))


def _share_check(s):
    least = min(min(s[f"{k}_strong_ok"]) for k in ("naive", "tap", "atap"))
    return least >= 0.9 * s["instances"], (f"at damping 0.05 every theory has a stable solution on at least {least} of "
                                          f"{s['instances']} instances at every sweep β")


def _ahead_check(s):
    """There is an advantage to lose: both TAP theories keep the factor 2 over naive mean field in the
    high-temperature phase (sweep β ≤ 1)."""
    r = {k: [_ratio(s, k, i)[0] for i, b in enumerate(s["damping_betas"]) if b <= 1.0 + 1e-9] for k, _ in THEORIES}
    ok = all(max(v) < 0.5 for v in r.values())
    return ok, "; ".join(f"{NAMES[k]}/naive over sweep β ≤ 1: {min(v):.3f} to {max(v):.3f}" for k, v in r.items())


def _not_crossing(s) -> str:
    """Where a theory's median x reaches 1 without crossing: the sentence the notes give."""
    out = []
    for k, name in THEORIES:
        if _crosses(s, k):
            continue
        own = _own_x(s, k)
        xs = [g[0] for b, g in zip(s["damping_betas"], own) if g is not None and b >= 1.2 - 1e-9]
        out.append(f"{name}'s own median x stays at {min(xs):.2f}–{max(xs):.2f} from β = 1.2 to "
                   f"{s['damping_betas'][-1]:g}, never more than {max(_z_above(s, k), 0):.1f} standard errors above "
                   "1: it does not cross its own line")
    return "; ".join(out)


def _at_note(s):
    lines, b = _lines(s, 1.0, THEORIES), s["damping_betas"]
    keep = [i for i, x in enumerate(b) if any(abs(x - y) < 1e-9 for y in (0.5, 1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 2.0))]
    rows = ", ".join(f"{b[i]:g}: {_ratio(s, 'tap', i)[0]:.2f} / {_ratio(s, 'atap', i)[0]:.2f}" for i in keep)
    parts = []
    for k, line in lines.items():
        own, i = _own_x(s, k), _first_beyond(s, k, line, 0.9)
        r = [_ratio(s, k, j)[0] for j in (i - 2, i - 1, i)]
        lost = next((j for j in range(len(b)) if _ratio(s, k, j)[0] >= 0.5), None)
        parts.append(f"{NAMES[k]}'s own line at β = {line:g} (median x {own[i][0]:.2f} ± {own[i][1]:.2f} there, "
                     f"{own[-1][0]:.2f} at β = {b[-1]:g}); there it keeps the factor 2 ({r[2]:.2f} of naive's error), "
                     f"the ratio rising by {r[2] - r[1]:.3f} into the line against {r[1] - r[0]:.3f} over the step "
                     f"before ({'a break' if _broke(s, k, i, 2.0) else 'no break'} at x = 1); it loses the factor 2 "
                     + (f"only at β = {b[lost]:g}, where its own x is {own[lost][0]:.1f}" if lost is not None
                        else "nowhere on the grid")
                     + f", and is still {_ratio(s, k, len(b) - 1)[0]:.2f} of naive's error at β = {b[-1]:g}")
        try:
            before, after = _knee_slopes(s, k, [j for j, x in enumerate(b) if x >= line - 1e-9][0], 3)
            parts[-1] += (f"; but the erosion speeds up there: per instance the ratio's slope over the three sweep steps "
                          f"after the line is steeper than over the three before on {int(np.sum(after > before))} of "
                          f"{before.size} instances (median {np.median(after):.2f} against {np.median(before):.2f} per "
                          "unit β), a knee, not a loss")
        except verdicts.Undecidable:
            pass
    cross = _not_crossing(s)
    return ("Accuracy on either side of the own line: " + "; ".join(parts) + "."
            + (f" {cross[0].upper() + cross[1:]}, so it cannot test the claim." if cross else "")
            + f" RMSE of m over naive mean field's on the damping-0.05 solutions (TAP / adaptive TAP), by β: {rows}.")


def _at_numbers(s):
    lines, b = _lines(s, 1.0, THEORIES), s["damping_betas"]
    out = {"exact state's line beta": s["at_beta"]}
    for k, line in lines.items():
        i = _first_beyond(s, k, line, 0.9)
        lost = next((b[j] for j in range(len(b)) if _ratio(s, k, j)[0] >= 0.5), None)
        out.update({f"own line beta, {NAMES[k]}": line, f"{NAMES[k]}/naive there": float(f"{_ratio(s, k, i)[0]:.3g}"),
                    f"beta where {NAMES[k]} loses the factor 2": lost})
    for k, name in THEORIES:
        if k not in lines:
            out[f"{name}: largest (median own x - 1) / SE"] = float(f"{max(_z_above(s, k), 0):.2g}")
    return out


def _x_rows(medians, crosses: bool = True):
    """Per-instance own x of four instances at each β around the given medians: a tight spread (the median crosses
    where it is above 1) or a wide one (a median of 1.1 stays within 2 standard errors of 1)."""
    d = 0.01 if crosses else 0.4
    return [[m - d, m - d, m + d, m + d] for m in medians]


def _at_example(tap, atap=(0.1, 0.1, 0.15, 0.2), x_tap=(0.6, 0.8, 1.1, 1.5), x_atap=(0.6, 0.8, 1.05, 1.1),
                atap_crosses: bool = False):
    """Numbers of four sweep β (0.8, 1.0, 1.2, 1.4) and four instances with the given ratios to naive's error of 1;
    TAP crosses at β = 1.2, adaptive TAP crosses where its median reaches 1 if ``atap_crosses``, else never."""
    return {"instances": 4, "damping_betas": [0.8, 1.0, 1.2, 1.4], "at_beta": 1.2, "at_text": "1.20",
            "tap_at_strong": list(x_tap), "atap_at_strong": list(x_atap),
            "tap_at_strong_inst": _x_rows(x_tap), "atap_at_strong_inst": _x_rows(x_atap, crosses=atap_crosses),
            "naive_strong_inst": [[1.0] * 4] * 4, "tap_strong_inst": [[r] * 4 for r in tap],
            "atap_strong_inst": [[r] * 4 for r in atap]}


# --- stable solutions beyond the line ----------------------------------------------------------------------------

def _beyond_at(most: float, some: float, keys=THEORIES, field: str = "beyond_own", crossing: bool = True):
    """Rule: the least fraction of points at or beyond its own line with a stable damping-0.05 solution, over the
    theories that cross their line (all, if not ``crossing`` or read beyond the exact state's line): at least
    ``most`` holds, at least ``some`` partly, else fails."""
    def rule(s):
        use = [k for k, _ in keys if not crossing or field == "beyond_exact" or _crosses(s, k)]
        # a fraction stored as NaN is no point beyond the line: left out on purpose (read past FiniteNumbers)
        raw = verdicts.raw_numbers(s)
        got = [x for x in (raw[f"{k}_{field}"] for k in use) if x is not None and math.isfinite(x)]
        if not got:
            raise verdicts.Undecidable("no theory's own solutions cross a Plefka parameter of 1 on the sweep's β grid: "
                                       "no point lies beyond its own line")
        x = min(got)
        return "holds" if x >= most else "partly" if x >= some else "fails"
    return rule


def _beyond_example(tap, atap=1.0, tap_crosses: bool = True):
    """A stable fraction beyond the own line for each theory; TAP crossing (or not), adaptive TAP never."""
    return {"tap_beyond_own": tap, "atap_beyond_own": atap,
            "tap_at_strong_inst": _x_rows((0.8, 1.5), crosses=tap_crosses),
            "atap_at_strong_inst": _x_rows((0.8, 1.05), crosses=False)}


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
    n = [p for p in (_beyond_points(s, k) for k, _ in THEORIES if _crosses(s, k)) if p]
    return math.sqrt(0.9 * 0.1 / min(n)) if n else None


def _beyond_note(s):
    own = {k: "none on the grid" if s.get(f"{k}_own_at") is None else f"{s[f'{k}_own_at']:.2f}"
           for k in ("tap", "atap", "tsite")}
    frac = {k: "no point" if s.get(f"{k}_beyond_own") is None else f"{s[f'{k}_beyond_own']:.1%}"
            for k in ("tap", "atap", "tsite")}
    cross = _not_crossing(s)
    return (f"The median Plefka parameter of TAP's own solutions at damping {s['a1']:g} reaches 1 at β ≈ {own['tap']} "
            f"(per-site TAP {own['tsite']}; the exact state's at {s['at_text']}). At or beyond its own line the "
            f"strongest damping finds stable solutions at {frac['tap']} of TAP's {_beyond_points(s, 'tap')} points "
            f"(per-site TAP {frac['tsite']}). "
            + (f"{cross[0].upper() + cross[1:]} (its median first reaches 1 at β ≈ {own['atap']}; counted from there "
               f"{frac['atap']} of its points are stable, a declared reading). " if cross else "")
            + f"At damping {s['a0']:g} TAP {s['tap_failure']}; adaptive TAP {s['atap_failure']}: that is the "
            "iteration's failure, not the solutions'. TAP's solutions beyond the line are near-paramagnetic (small "
            "|m|: its own x grows like β², to "
            f"{s['tap_at_strong'][-1]:.1f} at β = {s['damping_betas'][-1]:g}); there χ⁻¹ ≈ (1 + β²)I − J, whose "
            "smallest eigenvalue tends to (1 − β)² as n grows (the semicircle's edge at 2β), positive at every β ≠ 1: "
            "their stability is the paramagnetic branch's, not a finite-size effect (at n = 200 TAP at damping 0.05 "
            "converges to a positive-definite χ⁻¹ on every instance at β = 1.6 and 2, with λ_min(χ⁻¹) near (1 − β)²: "
            "tests/test_ising_premises.py). Existence and local stability are not validity: beyond the line the "
            "expansion behind the equations no longer converges.")


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
