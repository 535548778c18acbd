"""The premises of chapter 5's expanding-attention verdicts (Singh & Buckley 2023, Sec. 5 and Fig. 3): the rules on
the relative operations, the training ratios against standard attention, the window's lift, the ELBO gradient and
the steps from the paper's update to CAVI, each with the noise its threshold is moved by and the per-seed values
behind it (``data/full/designs/summary.json``, derived in :mod:`.claims_designs_numbers`).

"Roughly equivalent" is decided on a symmetric band: a ratio far below 1 is not equivalence. A seed where
standard attention blew up (it never left its starting loss) is its own outcome: it is named in the note and left
out of its setting's ratio, since it says nothing about whether expanding attention trains as well as a standard
attention that trains, and averaged in it would swamp the mean (at d = 50, p = 1/25 of the code's setting one such
seed takes the ratio of the means over eight seeds from 36 to 1.4). A blow-up of expanding attention counts against
the claim: it is on the side the claim is about.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mfattn.companion import stats
from mfattn.companion.checks import check_bool, check_choice, check_edges, check_positive, check_real
from mfattn.companion.verdicts import Undecidable, finite_rule

from .claims_rules import number, same_units
from .claims_designs_numbers import DIMS, PS, per_seed

#: No public API: the rules' helpers of :mod:`.claims_designs_fig3`, called through the module.
__all__: list[str] = []


# --- the training ratios ---------------------------------------------------------------------------------------

def _ratios(s, key: str) -> dict[tuple[int, int], float]:
    out = {}
    for d in DIMS:
        for p in PS:
            x = number(s, f"{key}_{d}_{p}")
            if not x > 0:
                raise Undecidable(f"{key}_{d}_{p} is {x}, not a positive ratio of MSEs")
            out[d, p] = x
    return out


def accuracy_split(ratios: dict, band: float, blow: float) -> dict[str, list]:
    """The settings within the symmetric band |log r| < log ``band``, outside it, and where standard attention
    blew up (r None, or r ≤ 1/``blow``: named, not counted). ``band`` and ``blow`` are factors above 1; each ratio
    None or a finite number (else a ValueError naming it: NaN falls in no band)."""
    from collections.abc import Mapping

    if not isinstance(ratios, Mapping):
        raise TypeError(f"ratios must map each setting to its ratio (a dict); got {type(ratios).__name__}")
    check_real("band", band, minimum=1.0, strict=True)
    check_real("blow", blow, minimum=1.0, strict=True)
    for k, r in ratios.items():
        if r is not None:
            check_real(f"ratios[{k!r}]", r)
    blown = [k for k, r in ratios.items() if r is None or r <= 1 / blow]
    counted = {k: r for k, r in ratios.items() if k not in blown}
    within = [k for k, r in counted.items() if abs(math.log(r)) < math.log(band)]
    return {"blown": blown, "within": within, "outside": [k for k in counted if k not in within]}


def _prefix(key: str) -> str:
    return "code" if key.startswith("code") else "exp"


def stuck_seeds(s, key: str, d: int, p: int, stuck: float = 0.5, model: str = "standard") -> list[int]:
    """The seeds of a setting whose ``model`` never left its starting loss: its MSE over the last fifth of training at
    least ``stuck`` times its MSE over the first 2 % (per-seed values stored; a run that trains ends near 1 % of it)."""
    pre = _prefix(key)
    head, tail = (np.array(per_seed(s, f"{pre}_{w}_mse_{model}_{d}_{p}_seeds")) for w in ("head", "tail"))
    return [int(i) for i in np.flatnonzero(tail >= stuck * head)]


def kept_ratios(s, key: str, stuck: float = 0.5, median: bool = False) -> tuple[dict, dict]:
    """Per setting, expanding over standard attention's final training MSE over the seeds where standard attention
    trained (a seed where it never left its starting loss, :func:`stuck_seeds`, is a blow-up: its own outcome, named,
    not averaged in), as the ratio of the means (``median``: the median of the per-seed ratios); None where every
    seed's standard attention blew up. Returns (ratios, {setting: the seeds left out})."""
    pre = _prefix(key)
    ratios, dropped = {}, {}
    for d in DIMS:
        for p in PS:
            e, st = (np.array(per_seed(s, f"{pre}_tail_mse_{m}_{d}_{p}_seeds")) for m in ("expanding", "standard"))
            if e.size != st.size or not (np.all(e > 0) and np.all(st > 0)):
                raise Undecidable(f"the per-seed MSEs of {key}_{d}_{p} do not pair as positive numbers")
            out = stuck_seeds(s, key, d, p, stuck)
            keep = np.setdiff1d(np.arange(e.size), out)
            dropped[d, p] = out
            if keep.size == 0:
                ratios[d, p] = None
            else:
                ratios[d, p] = float(np.median(e[keep] / st[keep]) if median else e[keep].mean() / st[keep].mean())
    return ratios, dropped


def accuracy_rule(key: str = "loss_ratio", band: float = 1.5, stuck: float = 0.5, per_seed_median: bool = False,
                  every_seed: bool = False, blow: float = 10.0):
    """'Roughly equivalent' at each of the 8 settings (d = 10, 50 × p = 1/2 … 1/25): the ratio of expanding to
    standard attention's final training MSE within the symmetric band (1/``band``, ``band``). A seed whose standard
    attention never left its starting loss (tail ≥ ``stuck`` × head) is a blow-up, its own outcome: left out of its
    setting's ratio (:func:`kept_ratios`), and a setting where every seed blew up is not counted. Holds if every
    counted setting is within, partly if at least half of them, else fails. ``per_seed_median``: the median of the
    per-seed ratios in place of the ratio of the means. ``every_seed`` (the rule of the first referee round): the
    ratio of the means over every seed, a setting left out only where that ratio is 1/``blow`` or below; also where
    the per-seed values are not stored (the stored ratios, one per setting)."""
    check_real("band", band, minimum=1.0, strict=True)
    check_real("stuck", stuck, minimum=0.0, strict=True)
    check_real("blow", blow, minimum=1.0, strict=True)
    check_bool("per_seed_median", per_seed_median)
    check_bool("every_seed", every_seed)

    @finite_rule
    def rule(s):
        legacy = every_seed or key not in ("loss_ratio", "code_loss_ratio") or not all(
            f"{_prefix(key)}_head_mse_standard_{d}_{p}_seeds" in s for d in DIMS for p in PS)
        if legacy and per_seed_median:
            ratios = {}
            for d in DIMS:
                for p in PS:
                    r = per_seed(s, f"{key}_{d}_{p}_seeds")
                    if not all(x > 0 for x in r):
                        raise Undecidable(f"{key}_{d}_{p}_seeds holds a ratio that is not positive")
                    ratios[d, p] = float(np.median(r))
        elif legacy:
            ratios = _ratios(s, key)
        else:
            ratios = kept_ratios(s, key, stuck, per_seed_median)[0]
        split = accuracy_split(ratios, band, blow)
        counted = len(split["within"]) + len(split["outside"])
        if counted == 0:
            raise Undecidable("standard attention blew up at every setting: nothing to compare")
        n = len(split["within"])
        return "holds" if n == counted else "partly" if n >= counted / 2 else "fails"
    return rule


def one_sided_rule(key: str = "loss_ratio", band: float = 1.5):
    """The rule before issue 42: a setting counts as 'roughly equivalent' if its ratio is below ``band``, a blow-up of
    standard attention (a ratio far below 1) included; all 8 holds, at least 4 partly. ``band`` a factor above 1."""
    check_real("band", band, minimum=1.0, strict=True)

    @finite_rule
    def rule(s):
        within = sum(r < band for r in _ratios(s, key).values())
        return "holds" if within == 8 else "partly" if within >= 4 else "fails"
    return rule


def accuracy_examples(key: str) -> dict[str, dict[str, float]]:
    base = {f"{key}_{d}_{p}": 1.2 for d in DIMS for p in PS}
    return {"holds": {**base, f"{key}_50_2": 0.05},            # standard attention blew up there: not counted
            "partly": {**base, f"{key}_10_25": 3.0, f"{key}_50_25": 0.5},
            "fails": {f"{key}_{d}_{p}": 2.0 for d in DIMS for p in PS}}


def log_ratio_sd(key: str) -> Callable[[Any], float]:
    """The seed-to-seed standard deviation of log(per-seed ratio) at the settings where both mechanisms train
    alike (per-seed ratios all within a factor 1.5 of 1; pooled over those settings): the noise of one seed's
    ratio when there is nothing to find. KeyError where the per-seed ratios are not stored. Each setting's list is
    centred on its own mean and read alone (nothing pairs its entries with another setting's), so the settings may
    hold different numbers of seeds (the stored code_loss_ratio_50_25 holds 8 where the others hold 3): a list one
    longer is one more seed of that setting, pooled as such."""
    def sd(s):
        logs = []
        for d in DIMS:
            for p in PS:
                r = np.log(per_seed(s, f"{key}_{d}_{p}_seeds"))
                if np.all(np.abs(r) < math.log(1.5)):
                    logs.append(r - r.mean())
        if not logs:
            raise Undecidable(f"no setting where every seed's {key} is within a factor 1.5 of 1")
        dev = np.concatenate(logs)
        return float(math.sqrt(np.sum(dev ** 2) / (dev.size - len(logs))))
    return sd


# --- operations ------------------------------------------------------------------------------------------------

def ops_steps(s, key: str) -> list[float]:
    """The rise of the relative operations from one p to the next (p = 1/2 → 1/25) at each d."""
    return [number(s, f"{key}{d}_{b}") - number(s, f"{key}{d}_{a}") for d in DIMS for a, b in zip(PS, PS[1:])]


def ops_rule(key: str = "ops_", margin: float = 0.0, full: float = 1.0):
    """Relative operations below ``full`` (full attention's n·d) everywhere, and rising by more than ``margin`` at
    every step from p = 1/2 to 1/25 at both d: holds; below ``full`` but not in that order: partly; fails if any
    reaches ``full``. ``margin`` a finite number (moved by the seed noise either way), ``full`` > 0."""
    check_real("margin", margin)
    check_positive("full", full)

    @finite_rule
    def rule(s):
        rows = [number(s, f"{key}{d}_{p}") for d in DIMS for p in PS]
        if max(rows) >= full:
            return "fails"
        return "holds" if all(x > margin for x in ops_steps(s, key)) else "partly"
    return rule


def ops_examples(key: str = "ops_") -> dict[str, dict[str, float]]:
    base = {f"{key}{d}_{p}": v for d in DIMS for p, v in zip(PS, (0.3, 0.4, 0.6, 0.99))}
    return {"holds": base, "partly": {**base, f"{key}50_5": 0.3}, "fails": {**base, f"{key}50_25": 1.0}}


def seed_sd(key: str) -> Callable[[Any], float]:
    """The largest seed-to-seed standard deviation of the per-seed values ``<key><d>_<p>_seeds`` over the settings
    (the noise of one seed's number; a mean over k seeds has it / √k)."""
    def sd(s):
        return float(max(np.std(per_seed(s, f"{key}{d}_{p}_seeds"), ddof=1) for d in DIMS for p in PS))
    return sd


def benefit_rule(literal: bool, margin: float = 0.0, equal_windows: bool = False, key: str = "ops_run_"):
    """'Large benefit when recency bias (1/p) or d is large', on the saving 1 − operations as run. ``literal``: the
    bias is 1/p (the saving should grow as p falls); else its strength, large p (the saving grows with p). Holds if
    the saving moves the stated way with the bias at both d (each step by more than ``margin``) and is larger at
    d = 50 than at d = 10 at every p (by more than ``margin``); partly if only the bias ordering holds; fails if
    the saving does not move the stated way with the bias at both d. ``equal_windows``: d compared at the same
    windows and sweeps (d = 10's, charged at d = 50: the saving grows by k(1/10 − 1/50)/n, an identity). ``key``:
    the count (as run, or the paper's ``ops_``)."""
    check_bool("literal", literal)
    check_real("margin", margin)
    check_bool("equal_windows", equal_windows)

    @finite_rule
    def rule(s):
        save = {(d, p): 1 - number(s, f"{key}{d}_{p}") for d in DIMS for p in PS}
        by_bias = all(((save[d, b] - save[d, a]) if literal else (save[d, a] - save[d, b])) > margin
                      for d in DIMS for a, b in zip(PS, PS[1:]))
        if equal_windows:
            by_d = all(number(s, f"paper_iterations_{p}") * (1 / 10 - 1 / 50) / 50 > 0 for p in PS)
        else:
            by_d = all(save[50, p] - save[10, p] > margin for p in PS)
        return "fails" if not by_bias else "holds" if by_d else "partly"
    return rule


def benefit_examples(literal: bool) -> dict[str, dict[str, float]]:
    check_bool("literal", literal)
    strong = {f"ops_run_{d}_{p}": v - (0.05 if d == 50 else 0) for d in DIMS
              for p, v in zip(PS, (0.4, 0.5, 0.6, 0.7))}                          # saving falls as 1/p grows
    weak = {f"ops_run_{d}_{p}": v - (0.05 if d == 50 else 0) for d in DIMS
            for p, v in zip(PS, (0.7, 0.6, 0.5, 0.4))}                            # saving grows with 1/p
    hold = weak if literal else strong
    part = {**hold, **{f"ops_run_50_{p}": hold[f"ops_run_10_{p}"] + 0.01 for p in PS}}
    return {"holds": hold, "partly": part, "fails": strong if literal else weak}


# --- the window's lift, CAVI, the ELBO gradient ---------------------------------------------------------------

def _resolved(lo: float, mean: float) -> str | None:
    """The side of 0 a symmetric 95 % interval (``lo`` to 2·``mean`` − ``lo``) resolves: None above 0, "fails" at
    or below 0; where it covers 0, "partly" around a positive mean (the claimed direction, not resolved) and
    "fails" around a mean at or below 0 (no sign of the claimed effect: the convention of the multi-hop rule)."""
    return None if lo > 0 else "fails" if 2 * mean - lo <= 0 or mean <= 0 else "partly"


def window_rule(lift: float = 0.1):
    """The lift over windows blind to the input: fails if its 95 % interval lies at or below 0, partly if it covers 0;
    above 0, holds if the mean lift is at least ``lift`` (a share of the far parents, in (0, 1]), else partly."""
    check_real("lift", lift, minimum=0.0, maximum=1.0, strict=True)

    @finite_rule
    def rule(s):
        mean = number(s, "far_lift_mean")
        side = _resolved(number(s, "far_lift_lo"), mean)
        return side or ("holds" if mean >= lift else "partly")
    return rule


def adaptive_rule(rho: float = 0.5):
    """Inside the first window, the rank correlation of the final window with the parent's distance, per run: fails
    if its 95 % interval over the runs lies at or below 0, partly if it covers 0; above 0, holds if the mean
    correlation is at least ``rho`` (a correlation, in [-1, 1]), else partly."""
    check_real("rho", rho, minimum=-1.0, maximum=1.0)

    @finite_rule
    def rule(s):
        mean = number(s, "near_rho_mean")
        side = _resolved(number(s, "near_rho_lo"), mean)
        return side or ("holds" if mean >= rho else "partly")
    return rule


def cavi_rule(tol: float = 0.8, paired: bool = False):
    """The paper's update against CAVI: CAVI's training MSE over the paper update's, per p. Holds if at least
    ``tol`` at every p; partly if only the geometric mean over p is; fails if even that is below. ``paired``: per p,
    the per-seed log ratio's 95 % t-interval: holds if it lies below log ``tol`` at no p (the paper's update never
    significantly more than 1/``tol`` worse), partly if at some but not all, fails if at every p. ``tol`` > 0."""
    check_positive("tol", tol)
    check_bool("paired", paired)

    @finite_rule
    def rule(s):
        if paired:
            worse = 0
            for p in PS:
                r = per_seed(s, f"cavi_over_paper_mse_{p}_seeds")
                if not all(x > 0 for x in r):
                    raise Undecidable(f"cavi_over_paper_mse_{p}_seeds holds a ratio that is not positive")
                worse += stats.t_interval(list(np.log(r)))["hi"] < math.log(tol)
            return "holds" if worse == 0 else "partly" if worse < len(PS) else "fails"
        if number(s, "cavi_ratio_min") >= tol:
            return "holds"
        return "partly" if number(s, "cavi_mse_ratio") >= tol else "fails"
    return rule


def vi_rule(exact: float = 1e-6, near: float = 0.05, check: float = 1e-8, key: str = "paper_elbo_grad",
            statistic: Callable | None = None):
    """Is the paper's iteration mean-field VI? Its end state must be a stationary point of the ELBO: the largest
    gradient below ``exact`` holds, below ``near`` (what a VI procedure stopped by the training's tolerance may
    leave) partly, else fails; not tested if CAVI's own end state is not stationary to ``check``. ``statistic``:
    applied to the per-vector gradients (``<key>_vectors``) in place of their maximum. ``0 < exact < near``,
    ``check`` > 0."""
    check_edges("exact", exact, "near", near, minimum=0.0, open_range=True)
    check_positive("check", check)
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be None or a function of the per-vector gradients; got "
                        f"{type(statistic).__name__}")

    @finite_rule
    def rule(s):
        if not number(s, "cavi_elbo_grad") < check:
            raise Undecidable(f"the check itself failed: CAVI's end state is not stationary ({s['cavi_elbo_grad']:.1e})")
        g = number(s, key) if statistic is None else float(statistic(per_seed(s, f"{key}_vectors")))
        return "holds" if g < exact else "partly" if g < near else "fails"
    return rule


def vi_paired_rule(s):
    """Per score vector, the paper's end-state gradient against CAVI stopped by the same rule (0.01 on the horizon):
    fails if the paper's is the larger on more than half the vectors, partly if on some, holds if on none."""
    paper, cavi = (per_seed(s, f"{k}_elbo_grad_vectors") for k in ("paper", "cavi_tol01"))
    if len(paper) != len(cavi) or not paper:
        raise Undecidable("the per-vector ELBO gradients do not pair")
    larger = sum(a > b for a, b in zip(paper, cavi))
    return "fails" if larger > len(paper) / 2 else "partly" if larger else "holds"


def ladder(s):
    """log MSE ratios of the three steps from the paper's update to CAVI, geometric means over p
    (:class:`Undecidable` where an MSE is not a positive number)."""
    def mse(name, p):
        x = number(s, f"{name}_mse_{p}")
        if not x > 0:
            raise Undecidable(f"{name}_mse_{p} is {x}, not a positive MSE")
        return x

    def step(a, b):
        return sum(math.log(mse(b, p) / mse(a, p)) for p in PS) / len(PS)
    return {"estimate": step("paper", "digamma29"), "first window": step("digamma29", "digamma"),
            "accumulating vs CAVI": step("digamma", "cavi")}


#: The three steps from the paper's update to CAVI: short name -> (the per-seed key's word, ladder()'s name, the two
#: variants whose MSE ratio it is).
STEPS = {"estimate": ("estimate", "estimate", ("paper", "digamma29")),
         "first": ("first", "first window", ("digamma29", "digamma")),
         "accumulating": ("accumulating", "accumulating vs CAVI", ("digamma", "cavi"))}


def ladder_rule(factor: float = 1.25, margin: float = 0.0, median: bool = False, per_seed_all: bool = False,
                step: str = "first"):
    """The step ``step`` of the ladder from the paper's update to CAVI (default: the narrower first window) is what
    makes CAVI train worse: fails unless that step (log MSE ratio) exceeds both other steps by more than ``margin``
    ("most of the deficit" is then false); holds if it also raises the MSE by at least ``factor``, else partly (the
    largest cause, but a small one). ``median``: each step's median over p in place of its mean; ``per_seed_all``:
    the steps of each seed (``ladder_log_*_seeds``), the grade the worst over the seeds. ``factor`` >= 1 (a rise),
    ``margin`` a finite number (moved by the seed noise either way), ``step`` one of :data:`STEPS`."""
    check_real("factor", factor, minimum=1.0)
    check_real("margin", margin)
    check_bool("median", median)
    check_bool("per_seed_all", per_seed_all)
    check_choice("step", step, tuple(STEPS))
    others_of = [k for k in STEPS if k != step]

    def grade(main, others):
        if not main > max(others) + margin:
            return "fails"
        return "holds" if main >= math.log(factor) else "partly"

    def rule(s):
        if per_seed_all:
            main = per_seed(s, f"ladder_log_{STEPS[step][0]}_seeds")
            others = [per_seed(s, f"ladder_log_{STEPS[k][0]}_seeds") for k in others_of]
            grades = [grade(a, [o[i] for o in others]) for i, a in enumerate(main)]
            return next(g for g in ("fails", "partly", "holds") if g in grades)
        if median:
            steps = {k: float(np.median([math.log(number(s, f"{b}_mse_{p}") / number(s, f"{a}_mse_{p}"))
                                         for p in PS])) for k, (_, _, (a, b)) in STEPS.items()}
        else:
            lad = ladder(s)
            steps = {k: lad[name] for k, (_, name, _) in STEPS.items()}
        return grade(steps[step], [steps[k] for k in others_of])
    return finite_rule(rule)


def ladder_examples() -> dict[str, dict[str, float]]:
    def n(a, b, c):
        return {**{f"paper_mse_{p}": 1.0 for p in PS}, **{f"digamma29_mse_{p}": a for p in PS},
                **{f"digamma_mse_{p}": a * b for p in PS}, **{f"cavi_mse_{p}": a * b * c for p in PS}}
    return {"holds": n(1.1, 1.6, 1.1), "partly": n(1.05, 1.2, 1.0), "fails": n(1.5, 1.2, 1.5)}


def ladder_se(s, step: str = "first") -> float:
    """The standard error, over seeds, of the step ``step`` minus the larger other step (per seed, the same seed's data
    and initial weights in every variant): the noise of the ladder's comparisons."""
    same_units(s, *(f"ladder_log_{STEPS[k][0]}_seeds" for k in STEPS))
    main = np.array(per_seed(s, f"ladder_log_{STEPS[step][0]}_seeds"))
    others = [np.array(per_seed(s, f"ladder_log_{STEPS[k][0]}_seeds")) for k in STEPS if k != step]
    other = max(others, key=lambda v: v.mean())
    d = main - other
    return float(d.std(ddof=1) / math.sqrt(d.size))


# --- wall-clock ------------------------------------------------------------------------------------------------

def wallclock_rule(key: str | None = None):
    """Lazy windowed attention against full attention over the benchmark's context lengths: faster at every length
    holds, at some partly, at none fails. ``key``: the per-length time ratios to read (default: the stored counts,
    CPU time)."""
    def rule(s):
        if key is None:
            below, rows = number(s, "bench_below_full"), number(s, "bench_rows")
        else:
            r = per_seed(s, key)
            below, rows = sum(x < 1 for x in r), len(r)
        return "holds" if below == rows else "partly" if below > 0 else "fails"
    return rule


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
