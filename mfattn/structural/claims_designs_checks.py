"""The checks, noises, notes and spreads of chapter 5's expanding-attention verdicts: each threshold's reason read
against the stored per-seed values (``data/full/designs/summary.json`` and the numbers
:mod:`.claims_designs_numbers` derives from it), the note that quotes them and the per-unit values of the spread."""

from __future__ import annotations

import math

import numpy as np

from mfattn.companion.checks import check_choice, check_edges, check_real
from mfattn.companion.premises import Threshold
from mfattn.companion.stats import t_quantile_975
from mfattn.companion.verdicts import Undecidable

from . import claims_designs_expanding as X
from .claims_rules import number, same_units
from .claims_designs_numbers import DIMS, PS, per_array

def steps_check(key):
    def check(s):
        sd = X.seed_sd(key)(s)
        low = min(X.ops_steps(s, key))
        return low > 3 * sd, (f"smallest rise {low:.3f} against the largest seed-to-seed s.d. of one seed's value "
                              f"{sd:.4f} (the rise must exceed three of them)")
    return check


def ops_thresholds(key):
    return (Threshold("margin", 0.0, "seed spread", "a step from one p to the next counts as a rise above 0: every "
                      "stored rise exceeds three times the seed-to-seed s.d. of one seed's value, so no rise is seed "
                      "noise; moved by that s.d.", steps_check(key), noise=X.seed_sd(key)),
            Threshold("full", 1.0, "theorem", "full attention scores all n·d products: a relative count of 1 is no "
                      "saving"))


def ops_spread(key):
    def values(s):
        return {f"{key}{d}_{p}": list(per_array(s, f"{key}{d}_{p}_seeds")) for d in DIMS for p in PS}
    return values


def code_measure_rule(s, dims=DIMS):
    """The public code's own count m(d + k)/(nd) with m floored at 28, at every d of ``dims`` (ours per seed in its
    setting, and the public code's stored run): fails if any reaches 1 (no saving), holds if every row rises with
    1/p, else partly. A d whose counts are not stored is a KeyError (not decided)."""
    series = []
    for d in dims:
        series.append([float(np.mean(per_array(s, f"code_ops_{d}_{p}_seeds"))) for p in PS])
        series.append([number(s, f"ref_code_ops_{d}_{p}") for p in PS])
    if max(max(r) for r in series) >= 1:
        return "fails"
    return "holds" if all(a < b for r in series for a, b in zip(r, r[1:])) else "partly"


def band_check(key):
    def check(s):
        sigma = X.log_ratio_sd(key)(s)
        return math.log(1.5) > 4 * sigma, (f"log 1.5 = {math.log(1.5):.3f} against the seed-to-seed s.d. of one "
                                           f"seed's log ratio where both mechanisms train alike, {sigma:.3f} (the band "
                                           "must exceed four of them)")
    return check


def stuck_check(key):
    """The stuck threshold sits in an empty gap: every standard-attention seed's tail/head MSE fraction is below 0.2
    (it trained) or above 0.8 (it never left its starting loss)."""
    def check(s):
        pre = "code" if key.startswith("code") else "exp"
        fr = np.concatenate([per_array(s, f"{pre}_tail_mse_standard_{d}_{p}_seeds")
                             / per_array(s, f"{pre}_head_mse_standard_{d}_{p}_seeds") for d in DIMS for p in PS])
        inside = fr[(fr > 0.2) & (fr < 0.8)]
        return inside.size == 0, (f"standard attention's last-fifth / first-2 % MSE per seed: trained seeds end at most "
                                  f"{fr[fr <= 0.2].max() if (fr <= 0.2).any() else float('nan'):.3f}, stuck seeds at "
                                  f"least {fr[fr >= 0.8].min() if (fr >= 0.8).any() else float('nan'):.3f} "
                                  f"({int((fr >= 0.8).sum())} of {fr.size}); {inside.size} between 0.2 and 0.8, where "
                                  "the place of 0.5 would decide")
    return check


def accuracy_thresholds(key):
    return (Threshold("band", 1.5, "seed spread", "'roughly equivalent': a final-MSE ratio within a factor 1.5 either "
                      "way, at least four times the seed-to-seed s.d. of one seed's log ratio where both mechanisms "
                      "train alike (per-seed ratios stored); moved by that s.d.", band_check(key),
                      noise=lambda s: math.exp(X.log_ratio_sd(key)(s)), log=True),
            Threshold("stuck", 0.5, "stored distribution", "a standard-attention seed whose MSE over the last fifth of "
                      "training is half or more of its MSE over the first 2 % never left its starting loss: a blow-up, "
                      "its own outcome, left out of the ratio (per-seed first and last training MSE stored; every seed "
                      "ends below 0.2 or above 0.8 of its start, so the place of 0.5 decides nothing); moved by a "
                      "factor 1.5", stuck_check(key), noise=1.5, log=True))


def accuracy_note(key, what):
    """The note of the accuracy claims on ``key`` ("loss_ratio": the experiment's runs, "code_loss_ratio": ours in the
    public code's setting), headed ``what``."""
    check_choice("key", key, ("loss_ratio", "code_loss_ratio"))
    if not isinstance(what, str):
        raise TypeError(f"what must be the note's heading (a string); got {type(what).__name__}")

    def note(s):
        per = all(f"{'code' if key.startswith('code') else 'exp'}_head_mse_standard_{d}_{p}_seeds" in s
                  for d in DIMS for p in PS)
        if per:
            ratios, dropped = X.kept_ratios(s, key)
        else:
            ratios, dropped = X._ratios(s, key), {}
        split = X.accuracy_split(ratios, 1.5, 10.0)
        row = "; ".join(f"d = {d}: " + ", ".join("—" if ratios[d, p] is None else f"{ratios[d, p]:.3g}" for p in PS)
                        for d in DIMS)
        left = ", ".join(f"d = {d}, p = 1/{p}: seed{'s' if len(v) > 1 else ''} " + ", ".join(map(str, v))
                         for (d, p), v in dropped.items() if v) or "none"
        counted = len(split["within"]) + len(split["outside"])
        blown = ", ".join(f"d = {d}, p = 1/{p}" for d, p in split["blown"]) or "none"
        seeds = ""
        if f"{key}_50_2_seeds" in s:
            seeds = " Per seed (every seed): " + "; ".join(
                f"d = {d}, p = 1/{p}: " + ", ".join(f"{x:.3g}" for x in s[f"{key}_{d}_{p}_seeds"])
                for d in DIMS for p in PS) + "."
        return (f"{what}, expanding / standard over the seeds where standard attention trained, p = 1/2, 1/5, 1/10, 1/25 "
                f"({row}): within a factor 1.5 either way at {len(split['within'])} of the {counted} settings counted; "
                f"seeds where standard attention never left its starting loss (a blow-up, its own outcome, left out): "
                f"{left}; settings where standard attention blew up altogether (not counted): {blown}.{seeds}")
    return note


def accuracy_spread(key):
    def values(s):
        return {f"{key}_{d}_{p}": list(per_array(s, f"{key}_{d}_{p}_seeds")) for d in DIMS for p in PS}
    return values


def one_seed_cap(rule):
    """A reading resting on one seed per setting: graded at best with differences."""
    if not callable(rule):
        raise TypeError(f"rule must be a rule (a function of the stored numbers giving a grade); got "
                        f"{type(rule).__name__}")

    def capped(s):
        g = rule(s)
        if g not in ("holds", "partly", "fails"):   # a rule gives a grade: anything else is no reading
            raise ValueError(f"rule must give 'holds', 'partly' or 'fails'; it gave {g!r:.60}")
        return "partly" if g == "holds" else g
    return capped


def lift_se(s):
    """The standard error of the mean far-query lift over the runs (at least two runs stored)."""
    v = per_array(s, "far_lift_runs", at_least=2)
    return float(v.std(ddof=1) / math.sqrt(v.size))


def rho_se(s):
    """The standard error of the mean rank correlation over the runs (at least two runs stored)."""
    v = per_array(s, "near_rho_runs", at_least=2)
    return float(v.std(ddof=1) / math.sqrt(v.size))


def _interval(effect, lo, hi) -> None:
    """``effect`` a finite number and ``lo`` <= ``hi`` the ends of its interval (infinite where a test does not reject,
    :func:`mfattn.companion.premises.over_units`), none NaN."""
    check_real("effect", effect)
    check_edges("lo", lo, "hi", hi, strict=False, allow_inf=True)


def rho_decide(s, effect, lo, hi):
    """The adaptive window's rule on an interval of the rank correlation: above 0 holds (a correlation of 0.5 or more)
    or partly, at or below 0 fails, covering 0 partly."""
    _interval(effect, lo, hi)
    return ("holds" if effect >= 0.5 else "partly") if lo > 0 else "fails" if hi <= 0 else "partly"


def near_lift_rule(s):
    """The lift in reach inside the first window (over the same windows paired at random): holds if its 95 %
    interval over the runs lies above 0, else fails."""
    return "holds" if number(s, "near_lift_lo") > 0 else "fails"


def lift_decide(s, effect, lo, hi):
    """The window's rule on an interval: above 0 holds (a lift of 0.1 or more) or partly; an interval that covers 0
    partly around a positive effect, fails around one at or below 0 (no sign of adaptation); below 0 fails."""
    _interval(effect, lo, hi)
    return ("holds" if effect >= 0.1 else "partly") if lo > 0 else "fails" if hi <= 0 or effect <= 0 else "partly"


#: The far-lift runs are stored in (d, p) order, three seeds per setting: d = 10 and 50 by p = 1/5, 1/10, 1/25 (p =
#: 1/2 leaves no parent beyond the first window). analysis.window_coverage builds them so.
LIFT_SETTINGS = [(d, p) for d in (10, 50) for p in (5, 10, 25)]


def _setting_means(s) -> np.ndarray:
    runs = per_array(s, "far_lift_runs")
    k = len(LIFT_SETTINGS)
    if runs.size % k or runs.size // k < 1:
        raise Undecidable(f"{runs.size} far-lift runs do not split into the {k} (d, p) settings of three seeds")
    return runs.reshape(k, -1).mean(axis=1)


def lift_by_setting(s):
    """The lift with the (d, p) setting as the unit: the six settings' mean lifts and their 95 % t-interval."""
    m = _setting_means(s)
    half = t_quantile_975(m.size - 1) * m.std(ddof=1) / math.sqrt(m.size)
    return lift_decide(s, float(m.mean()), float(m.mean() - half), float(m.mean() + half))


def lift_settings_text(s) -> str:
    """The lift per (d, p) setting in words ("" where the runs do not split into the settings; a run stored as NaN or
    null, or no run stored (an empty list), is :class:`Undecidable`, not an empty text)."""
    per_array(s, "far_lift_runs", at_least=1)
    try:
        m = _setting_means(s)
    except Undecidable:
        return ""
    half = t_quantile_975(m.size - 1) * m.std(ddof=1) / math.sqrt(m.size)
    by_d = "; ".join(f"d = {d}: " + ", ".join(f"1/{p} {v:+.3f}" for (dd, p), v in zip(LIFT_SETTINGS, m) if dd == d)
                     for d in (10, 50))
    neg = {d: sum(v < 0 for (dd, _), v in zip(LIFT_SETTINGS, m) if dd == d) for d in (10, 50)}
    return (f"Per (d, p) setting (mean of three seeds): {by_d}; over the six settings {m.mean():+.3f}, 95 % "
            f"t-interval {m.mean() - half:+.3f} to {m.mean() + half:+.3f} (negative at {neg[10]} of 3 settings of "
            f"d = 10 and {neg[50]} of 3 of d = 50: the refutation rests mostly on d = 10). Per-run far-query counts "
            "are not stored, so a lift weighted by them is not available.")


def pair_sd(s):
    logs = [np.log(per_array(s, f"cavi_over_paper_mse_{p}_seeds")) for p in PS]
    dev = np.concatenate([v - v.mean() for v in logs])
    return float(math.sqrt(np.sum(dev ** 2) / (dev.size - len(logs))))


def vi_exact_check(s):
    c = number(s, "cavi_elbo_grad")
    return c * 1e4 < 1e-6, f"CAVI run to a fixed point leaves {c:.1e} (1e-6 must be at least 1e4 times that)"


def vi_near_check(s):
    g = per_array(s, "cavi_tol01_elbo_grad_vectors", at_least=1)
    return g.max() * 4 < 0.05, (f"CAVI stopped by the training's rule (0.01 on the horizon) leaves at most {g.max():.1e} "
                                f"over {g.size} score vectors, a median {np.median(g):.0e} (0.05 must be at least four "
                                "times its largest)")


def vi_larger(s) -> int:
    """On how many score vectors the paper's end state has the larger ELBO gradient than CAVI stopped by the same rule."""
    return int(np.sum(per_array(s, "paper_elbo_grad_vectors") > per_array(s, "cavi_tol01_elbo_grad_vectors")))


def ladder_factor_check(s):
    se = X.ladder_se(s)
    return math.log(1.25) > 3 * se, (f"log 1.25 = {math.log(1.25):.3f} against the standard error over seeds of the "
                                     f"comparison of steps, {se:.3f} (a 25 % step must exceed three of them)")


def ladder_spread(s):
    same_units(s, *(f"ladder_log_{k}_seeds" for k in ("estimate", "first", "accumulating")))
    return {k: list(per_array(s, f"ladder_log_{k}_seeds")) for k in ("estimate", "first", "accumulating")}


def wall_asymptotic(s, clock: str = "cpu"):
    """The asymptotic reading: the lazy window's time grows less than full attention's over the stored lengths
    (holds if it also ends faster; partly if it grows less but is never faster; fails if it grows as fast).
    ``clock``: "cpu" (the stored CPU medians) or "wall" (the wall-clock medians' lazy / full ratios: the lazy window
    grows less exactly when the ratio falls)."""
    check_choice("clock", clock, ("cpu", "wall"))
    if clock == "wall":
        r = per_array(s, "bench_wall_ratios", at_least=1)
        if not r[-1] < r[0]:
            return "fails"
        return "holds" if r[-1] < 1 else "partly"
    same_units(s, "bench_lazy_ms", "bench_full_ms", units="context lengths")
    lazy, full = per_array(s, "bench_lazy_ms", at_least=1), per_array(s, "bench_full_ms", at_least=1)
    if not lazy[-1] / lazy[0] < full[-1] / full[0]:
        return "fails"
    return "holds" if lazy[-1] < full[-1] else "partly"


def wall_operations(s):
    """The complexity read on the operation counts it states, at the benchmark's lengths: the lazy window's scored
    share of full attention's products falls with n (holds if it is also below 1 at the longest; fails if it does
    not fall)."""
    r = per_array(s, "bench_ops_ratios", at_least=1)
    if not r[-1] < r[0]:
        return "fails"
    return "holds" if r[-1] < 1 else "partly"


def wall_paper_size(s):
    """At the paper's toy size (n = 50, below the shortest benchmarked context): where the stored time ratio falls
    with n at every step and exceeds 1 at the shortest length, the lazy window is slower at n = 50 (fails);
    otherwise a row at n = 50 is needed."""
    r, n = per_array(s, "bench_cpu_ratios", at_least=1), per_array(s, "bench_ns", at_least=1)
    if n[0] > 50 and r[0] > 1 and all(a > b for a, b in zip(r, r[1:])):
        return "fails"
    raise Undecidable("no benchmark row at n = 50, and the stored rows do not bound it")


def benefit_threshold():
    return (Threshold("margin", 0.0, "seed spread", "a change of the saving counts above 0: every stored change with "
                      "the bias exceeds three times the seed-to-seed s.d. of one seed's count, so the bias ordering is "
                      "no seed noise; the differences between d are not all (hence tried at ± that s.d.)",
                      steps_check("ops_run_"), noise=X.seed_sd("ops_run_")),)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
