"""The rules of Chapter 6's "Beyond the paper" claims (:mod:`.claims_beyond` declares the claims and re-exports
these), each a factory of its thresholds, with the notes and checks they read: the Neimark-Sacker crossing of the
period-4 orbit, the Lyapunov spectrum (the torus and its breakdown), the devil's staircase of the rotation number
(mode-locked plateaus before lasting chaos) and the basins of random contexts; and the tolerances they share."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

from ..companion import verdicts
from ..companion.checks import check_bool, check_choice, check_edges, check_positive, check_real
from . import claims_lambda as lam_
from .rotation import MAX_GAP

TOL = 1e-3        # λ resolution of the spectrum run (see SPECTRUM_HOW)
WINDOW = (1.24, 1.28)  # the zoom window the paper prints (its Fig. 3b)
RHO_TOL = 2e-3    # ρ one grid step past the crossing against θ/2π (the rotation test's tolerance)
ANGLE_TOL = 0.01  # rad: an angle this close to 0, π (real) or π/2, 2π/3 (strong resonance) counts as there
MIN_BASIN = 9     # contexts: a basin seen in n·f >= 9 contexts has a binomial relative error <= 1/3


def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def _known(s, *keys: str) -> list[float]:
    """The numbers ``s[k]``, or :class:`~mfattn.companion.verdicts.Undecidable` naming those stored as null or
    non-finite (the stored JSON holds a NaN as null): a rule does not guess a number the run did not make."""
    missing = [k for k in keys if not _finite(s[k])]
    if missing:
        raise verdicts.Undecidable(f"{', '.join(missing)} is not a finite number in the stored results (null)")
    return [s[k] for k in keys]


def _resonance(theta: float) -> float:
    """Distance (rad) of a Floquet angle from the strong resonances 1:4 (π/2) and 1:3 (2π/3)."""
    return min(abs(theta - math.pi / 2), abs(theta - 2 * math.pi / 3))


def _angle_error(s) -> float:
    """The measured error of the Floquet angle: 2π |ρ − θ/2π|, ρ the rotation number one grid step past the
    crossing (a torus born there turns by θ per iterate)."""
    return 2 * math.pi * abs(_known(s, "rho_birth")[0] - _known(s, "ns_rotation")[0])


# --- rules (each a factory of its thresholds) -------------------------------------------------------------------

def neimark_sacker_at(angle_tol: float):
    """A Neimark-Sacker crossing: a complex pair of Floquet multipliers crossing the unit circle at an angle more than
    ``angle_tol`` (rad, > 0) from 0 and π holds, within it of a strong resonance (π/2, 2π/3) partly; no crossing or a
    real multiplier fails. A crossing or angle stored as None or NaN is no crossing (as :func:`beyond_numbers` reads
    beyond.json): fails; one stored as an infinity cannot decide it (:class:`~mfattn.companion.verdicts.Undecidable`).
    ``angle_tol`` a finite number (moved by its noise, it may pass 0)."""
    check_real("angle_tol", angle_tol)

    @verdicts.finite_rule
    def rule(s):
        # NaN is "no crossing" here (the producer's convention), read past FiniteNumbers on purpose
        beta, th = lam_._nan_read(s, "ns_beta"), lam_._nan_read(s, "ns_angle")
        if not (_finite(beta) and _finite(th)) or min(th, math.pi - th) <= angle_tol:
            return "fails"  # no crossing, or a real multiplier crosses (fold at +1, flip at −1): not Neimark-Sacker
        return "partly" if _resonance(th) <= angle_tol else "holds"
    return rule


def torus_betas(s, tol: float = TOL) -> np.ndarray:
    """The β of the stored per-β spectrum where it shows a torus: past the Neimark-Sacker crossing and before the
    first clearly chaotic β (λ1 > 1e-2), |λ1| ≤ ``tol`` (> 0; a zero exponent) and λ2 < −``tol`` (attracting). A NaN
    crossing or spectrum is :class:`~mfattn.companion.verdicts.Undecidable` (no torus β can be told)."""
    check_positive("tol", tol)
    s = verdicts.finite_numbers(s)
    b = np.asarray(s["spectrum_betas"], dtype=np.float64)
    spec = np.asarray(s["spectrum"], dtype=np.float64)
    if b.ndim != 1 or spec.ndim != 2 or spec.shape[0] != b.size or spec.shape[1] < 2:
        raise verdicts.Undecidable(f"spectrum must hold one row of two exponents or more per β of spectrum_betas ({b.size}) in the "
                                   f"stored numbers; got shape {spec.shape}")
    chaos = np.nonzero(spec[:, 0] > 1e-2)[0]
    before = np.arange(b.size) < (chaos[0] if chaos.size else b.size)
    ns = s.get("ns_beta")
    after = b > ns if ns is not None else np.ones(b.size, dtype=bool)
    return b[before & after & (np.abs(spec[:, 0]) <= tol) & (spec[:, 1] < -tol)]


def spectrum_at(tol: float, hyper: float):
    """The breakdown half (λ1 above ``tol`` somewhere, λ2 never above it; λ2 above ``hyper``: hyperchaos) and, where
    the spectrum is stored per β, the torus half (:func:`torus_betas` not empty). ``0 < tol < hyper``."""
    check_edges("tol", tol, "hyper", hyper, minimum=0.0, open_range=True)

    @verdicts.finite_rule
    def rule(s):
        lam1, lam2 = _known(s, "lam1_max", "lam2_max")  # λ2 is None where one exponent only is stored
        if lam1 <= tol or lam2 > hyper:
            return "fails"
        grade = "holds" if lam2 <= tol else "partly"
        if "spectrum" in s and not torus_betas(s, tol).size:
            return "partly"      # the breakdown without a torus before it: half the claim
        return grade
    return rule


def _branches(s, before: float) -> list[list[Fraction]]:
    """Each stored branch's plateau fractions in β order, those starting before ``before`` (the torus breakup)."""
    branches = s["plateau_steps"]
    if not all(isinstance(branch, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in branch)
               for branch in branches):
        raise verdicts.Undecidable("plateau_steps must hold branches of (β, fraction) pairs in the stored numbers; got "
                                   f"{branches!r:.80}")
    return [[Fraction(f) for b, f in branch if b < before] for branch in branches]


def _monotone(fr: list[Fraction]) -> bool:
    return all(y >= x for x, y in zip(fr, fr[1:]))


def _skipped(fr: list[Fraction]) -> list[tuple[Fraction, Fraction, Fraction]]:
    """``(a, b, f)`` for each pair of consecutive distinct fractions a < b of a rising branch between which a
    fraction f lies with a smaller denominator than both's larger one (a circle map's staircase has f's plateau
    between theirs, wider than the narrower of the two: a grid that sees a and b sees f)."""
    out = []
    steps = [f for i, f in enumerate(fr) if i == 0 or f != fr[i - 1]]
    for a, b in zip(steps, steps[1:]):
        q = max(a.denominator, b.denominator)
        between = [Fraction(n, d) for d in range(1, q) for n in range(math.floor(a * d) + 1, math.ceil(b * d))
                   if a < Fraction(n, d) < b]
        if between:
            out.append((a, b, min(between, key=lambda f: f.denominator)))
    return out


def _leap(s) -> float:
    """β of the zoom's first orbit of deep chaos (no period, λ_max ≥ 10 LC): where lasting chaos begins (dmft-zoom's
    onset; the first chaotic β before it is a blip of weak chaos, with tori resuming after)."""
    b, lam, per = lam_.orbits(s, "z")
    with np.errstate(invalid="ignore"):
        deep = np.nonzero((per == 0) & (lam >= 10 * lam_.LC))[0]
    return float(b[deep[0]]) if deep.size else math.inf


def _cut(s, cut: str) -> float:
    if cut == "leap":
        return _leap(s)
    if cut == "first chaos":
        return s["torus_breakup_beta"] if _finite(s["torus_breakup_beta"]) else math.inf
    return math.inf


def staircase_at(rho_tol: float, cut: str = "leap"):
    """ρ at the birth within ``rho_tol`` of θ/2π and plateaus of two fractions or more; then, along each stored branch
    with two fractions or more before ``cut`` ("leap": lasting chaos; "first chaos": the zoom's first chaotic β;
    "whole": the whole zoom), their order in β not monotone: on every such branch holds, on some partly, on none (every
    branch rises: a staircase) fails. ρ off or no plateau (before the cut) fails; no branch with two fractions partly.
    ``rho_tol`` > 0."""
    check_positive("rho_tol", rho_tol)
    check_choice("cut", cut, ("leap", "first chaos", "whole"))

    @verdicts.finite_rule
    def rule(s):
        rho, th = s["rho_birth"], s["ns_rotation"]
        if rho is None or th is None or abs(rho - th) > rho_tol or s["plateau_count"] == 0:
            return "fails"
        before = _branches(s, _cut(s, cut))
        if not any(before):
            return "fails"    # no plateau before the cut: no mode locking on the circle
        branches = [fr for fr in before if len(set(fr)) >= 2]
        if not branches:
            return "partly"   # mode locking, but no branch with two fractions whose order could be read
        rises = [_monotone(fr) for fr in branches]
        return "holds" if not any(rises) else "partly" if not all(rises) else "fails"
    return rule


def _basins_chaos_merged(s):
    """The basins rule with the β whose attractors are all chaotic taken as one attractor each (left out of the β
    with several)."""
    multi = [m for m in str(s["basins_multi"]).split("; ") if m and m != "none"]
    kinds = [re.findall(r"(?:\(| and )([^,()]+),", m) for m in multi]
    kept = sum(1 for k in kinds if not k or not all(x.strip() == "chaotic" for x in k))
    return basins_at(MIN_BASIN)({**s, "n_multi": kept})


def basins_at(min_basin: float, unmeasured_ok: bool = False):
    """Several attractors at fewer than half the β; every basin reached from ≥ ``min_basin`` contexts (with
    ``unmeasured_ok``: a smaller basin is below the detection limit and does not count against the claim).
    ``min_basin`` >= 0 (contexts). A count stored as null or non-finite cannot decide it
    (:class:`~mfattn.companion.verdicts.Undecidable`)."""
    check_real("min_basin", min_basin, minimum=0.0)
    check_bool("unmeasured_ok", unmeasured_ok)

    @verdicts.finite_rule
    def rule(s):
        n_multi, n_betas = _known(s, "n_multi", "basin_n_betas")
        if n_multi >= 0.5 * n_betas:
            return "fails"
        small = s["smallest_basin_contexts"]
        measured = small is not None and (small >= min_basin or unmeasured_ok)
        return "holds" if n_multi > 0 and measured else "partly"
    return rule


def _on_torus(s, k: int) -> list[float]:
    b = np.asarray(s["spectrum_betas"], dtype=np.float64)
    on = np.isin(b, torus_betas(s))
    return [float(v) for v in np.asarray(s["spectrum"], dtype=np.float64)[on, k]]


def _torus_text(s) -> str:
    if "spectrum" not in s:
        return ("Only each exponent's maximum over the grid is stored (one run); the torus half (λ1 = 0 > λ2 at one "
                "β) is shown by the figure, not by stored numbers.")
    on = torus_betas(s)
    if not on.size:
        return "No β of the stored spectrum shows a torus (|λ1| ≤ 1e-3 > −1e-3 > λ2) before the first clear chaos."
    l1, l2 = _on_torus(s, 0), _on_torus(s, 1)
    return (f"The torus: at {on.size} β from {on.min():.5f} to {on.max():.5f} (past the Neimark-Sacker crossing, "
            f"before the first β with λ1 > 1e-2) |λ1| ≤ {max(map(abs, l1)):.1e} and λ2 from {min(l2):.1e} to "
            f"{max(l2):.1e}.")


SPECTRUM_HOW = ("Resolution TOL = 1e-3: each exponent is a mean of log growth over the 10⁴ saved steps of the spectrum "
                "run (30000 − 20000), so a zero exponent (the torus) reads its bounded log growth over 10⁴ steps: the "
                "stored tori's log growth reaches 2.3 (the zoom's torus interval), 2.3e-4 at 10⁴ steps, a quarter of "
                "TOL. Holds if λ1 exceeds TOL somewhere on the zoom's grid (the breakdown into chaos) while λ2 never "
                "does (at most one unstable direction, as when a torus breaks); λ2 between TOL and 1e-2 (a second "
                "direction not told apart from zero): with differences; no λ1 above TOL, or λ2 above 1e-2 "
                "(hyperchaos, not the breakdown of a torus): refuted. The torus half is decided on the spectrum stored per "
                "β: some β past the Neimark-Sacker crossing and before the first clearly chaotic β (λ1 > 1e-2) with "
                "|λ1| ≤ TOL and λ2 < −TOL, else with differences (a spectrum stored as its maxima only cannot decide "
                "that half).")


def _spectrum_check(s):
    c = lam_.torus_log_growth(s)
    ok = _finite(c) and c / 1e4 <= TOL / 2
    return ok, (f"the zoom's tori have log growth up to {c:.2f} (|λ| · 2·10⁴): a zero exponent over the spectrum's 10⁴ "
                f"steps reads ≤ {c / 1e4:.1e}, against TOL = {TOL:g}")


def _former_staircase(s):
    """The rule before monotonicity was asked: ρ at the birth and plateaus of two fractions or more."""
    rho, th = s["rho_birth"], s["ns_rotation"]
    if rho is None or th is None or abs(rho - th) > RHO_TOL or s["plateau_count"] == 0:
        return "fails"
    return "holds" if s["plateau_fractions"] >= 2 else "partly"


def _plateaus_before(s, before):
    return "; ".join("→".join(str(f) for f in fr) or "none" for fr in _branches(s, before))


def _staircase_note(s):
    if s["rho_birth"] is None:
        return "No rotation number above the crossing is stored."
    brk = s["torus_breakup_beta"]
    return (f"Just above the Neimark-Sacker point ρ = {s['rho_birth']:.4f} (θ/2π = {s['ns_rotation']:.4f}); "
            f"{s['plateau_count']} mode-locked plateaus of {s['plateau_fractions']} fractions (runs of one fraction "
            f"merged across gaps of ≤ {MAX_GAP} unlocked grid points): {s['plateaus']}."
            + ("" if s.get("plateaus_b") is None else
               f" From a second start (the final context of β = 3) ρ differs at {s.get('staircase_branches')} grid "
               f"points (two branches), plateaus: {s['plateaus_b']}.")
            + f" In β order before lasting chaos (the zoom's first orbit of deep chaos, {_leap(s):.5f}), branch by "
            f"branch: {_plateaus_before(s, _leap(s))}; before the zoom's first chaotic β ({brk:.5f}, a blip of weak "
            f"chaos): {_plateaus_before(s, brk)}. One run per start, {len(s['plateau_steps'])} starts"
            + (" (the zoom's own, β = 3's and last-bit copies of the zoom's)." if len(s["plateau_steps"]) > 2 else
               "."))


def _born_circle(s) -> bool:
    """Whether every β of the stored zoom between the Floquet crossing and the first 1/4 plateau is a torus."""
    if not _finite(s["ns_beta"]):
        raise verdicts.Undecidable("no Floquet crossing is stored")
    b, lam, per = lam_.orbits(s, "z")
    quarter = [lo for lo, f in s["plateau_steps"][0] if f == "1/4"]
    m = (b > s["ns_beta"]) & (b < (quarter[0] if quarter else math.inf))
    return bool(m.any() and (lam_.classes(b[m], lam[m], per[m]) == lam_.TORUS).all())


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
