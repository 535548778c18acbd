"""Chapter 2's claim on the solver's work during training (deq-stability-training), decided from the stored
full-profile numbers of every analysed seed: the spectral radius of ∂f/∂m at the kept weights against the forward
Anderson evaluations, their changes' correlation, the placebos that merely grow during training (the couplings' norm,
log step), the paired comparison with the placebo, and the solver's work uncensored on ρ's own digits."""

from __future__ import annotations

import math

from mfattn.companion import stats, verdicts
from mfattn.companion.premises import Alternative, Spread, Threshold
from mfattn.companion.verdicts import Claim

from .claims_deq_seeds import every_seed, every_seed_at, seed_spread, shown

__all__ = ["STABILITY_CLAIMS"]

# --- stability during training -------------------------------------------------------------------------------------

#: deq-stability-training's note (formatted with the stored numbers).
STABILITY_NOTE = ("Seed 0, weights kept every 1000 steps: median ρ(∂f/∂m) {rho_train_first:.2f} at initialisation, "
               "{rho_train_last:.2f} after 20 epochs ({rho_cross_text}); forward Anderson evaluations {fwd_iters_first:.1f} "
               "→ {fwd_iters_last:.1f}; correlation of the levels {rho_train_corr:.2f}, of the changes between the "
               "{rho_train_changes:.0f} pairs of kept steps {rho_train_change_corr:.2f} (seed 0). Seed by seed, the changes' "
               "correlation with ρ: {rho_train_change_corr_per_seed}; with log ‖(I − J_f)⁻¹‖₂: "
               "{res_train_change_corr_per_seed}; the held-out half's R² from ρ: {rho_train_heldout_r2_per_seed}, from "
               "log ‖(I − J_f)⁻¹‖₂: {res_train_heldout_r2_per_seed}. Placebos (quantities that merely grow): the "
               "couplings' norm ‖J‖_F correlates with the work at {placebo_jnorm_corr_per_seed} in levels (ρ: "
               "{rho_train_corr_per_seed}) and {placebo_jnorm_change_corr_per_seed} in changes; log step at "
               "{placebo_logstep_corr_per_seed}.")


def _co_moving_at(z: float, level: float, exact: bool = False, of: str = "rho", placebo: bool = True):
    """``of``: "rho" (the spectral radius) or "res" (log ‖(I − J_f)⁻¹‖₂) against the forward evaluations. With
    ``placebo`` (where stored), ρ must also do better than quantities that merely grow during training (a referee's
    control): its changes' correlation above the couplings' norm's for "holds", its levels' correlation above both
    the norm's and log step's for "partly"; a common trend that a placebo shares as well cannot decide the claim
    (Undecidable: not shown, which is no refutation)."""
    def rule(s):
        n = int(s["rho_train_changes"])
        band = _exact_band(n) if exact else z / math.sqrt(n)
        r = s[f"{of}_train_change_corr"]
        use = placebo and s.get("placebo_jnorm_corr") is not None
        beats_changes = not use or r > s["placebo_jnorm_change_corr"]
        beats_levels = not use or s[f"{of}_train_corr"] > max(s["placebo_jnorm_corr"], s["placebo_logstep_corr"])
        if r > band and beats_changes:
            return "holds"
        if r >= -band and s[f"{of}_train_corr"] > level:
            if beats_levels:
                return "partly"
            raise verdicts.Undecidable("ρ shares a rising trend with the solver's work, but so do quantities that "
                                       "merely grow during training (the couplings' norm, log step) as much or more, "
                                       "and its changes do not co-move beyond the band: not shown either way")
        return "fails"
    return rule


def _paired_placebo(z: float = 1.96, work: str = ""):
    """The paired comparison with the placebo a referee asks for: per seed, r(Δρ, Δwork) − r(Δ‖J‖_F, Δwork) with its
    paired-bootstrap SE (:func:`~mfattn.implicit.stability.change_correlation_difference`), pooled over the seeds by
    random effects (the truncated Hartung-Knapp interval, as the chapter's other pooled differences). Holds if the
    interval lies above 0 and every seed's changes correlate above the band; fails if it lies below 0 (ρ tracks the
    work worse than a quantity that merely grows); otherwise not shown (Undecidable). ``work="work"``: against the
    uncensored work on ρ's own digits instead of the training solves' mean evaluations."""
    def rule(s):
        lo, hi, effect = paired_placebo_interval(s, work)
        if hi < 0:
            return "fails"
        band = z / math.sqrt(int(s["rho_train_changes"]))
        if lo > 0 and all(r > band for r in s[f"{work or 'rho'}_train_change_corr_seeds"]):
            return "holds"
        raise verdicts.Undecidable(f"the paired interval of ρ's change correlation minus ‖J‖_F's, {lo:+.2f} to "
                                   f"{hi:+.2f}, " + ("covers 0" if lo <= 0 else "lies above 0, but not every seed's "
                                                     "changes correlate beyond the band") + ": not shown either way")
    return rule


def paired_placebo_interval(s, work: str = "") -> tuple[float, float, float]:
    """(lo, hi, effect) of the seed-pooled difference r(Δρ, Δwork) − r(Δ‖J‖_F, Δwork) (:func:`_paired_placebo`)."""
    key = f"rho_minus_jnorm_{work + '_' if work else ''}change"
    got = stats.pooled_over_seeds(s[f"{key}_corr_seeds"], [x * x for x in s[f"{key}_se_seeds"]])
    return got["lo"], got["hi"], got["effect"]


def fisher_pooled(rs, n: int) -> tuple[float, float, float]:
    """(r, lo, hi): per-seed correlations of ``n`` changes each pooled by Fisher's z with weights n − 3, and the 95 %
    interval (z̄ ± 1.96/√Σ(n − 3), back-transformed)."""
    z = [math.atanh(max(-0.999999, min(0.999999, r))) for r in rs]
    zbar, half = sum(z) / len(z), 1.959964 / math.sqrt(len(z) * (n - 3))
    return math.tanh(zbar), math.tanh(zbar - half), math.tanh(zbar + half)


def _fisher_at(work: str = ""):
    """The seeds' change correlations pooled (Fisher's z, :func:`fisher_pooled`): holds if the pooled interval lies
    above 0 and the pooled correlation above the placebo's pooled one (a point comparison); fails if it lies below 0;
    otherwise not shown (Undecidable)."""
    def rule(s):
        n = int(s["rho_train_changes"])
        mine = s[f"{work or 'rho'}_train_change_corr_seeds"]
        placebo = s["placebo_jnorm_work_change_corr_seeds" if work else "placebo_jnorm_change_corr_seeds"]
        r, lo, hi = fisher_pooled(mine, n)
        if hi < 0:
            return "fails"
        if lo > 0 and r > fisher_pooled(placebo, n)[0]:
            return "holds"
        raise verdicts.Undecidable(f"pooled over the seeds the changes correlate at {r:.2f} ({lo:+.2f} to {hi:+.2f}), "
                                   f"the placebo's at {fisher_pooled(placebo, n)[0]:.2f}: not shown either way")
    return rule


def _stability_note(s) -> str:
    try:
        lo, hi, effect = paired_placebo_interval(s)
        paired = (f" Paired against the placebo (per seed, ρ's change correlation minus ‖J‖_F's, paired bootstrap over "
                  f"the changes): {s['rho_minus_jnorm_change_corr_per_seed']} (SE {s['rho_minus_jnorm_change_se_per_seed']}); "
                  f"pooled over the seeds {effect:+.2f}, 95 % interval {lo:+.2f} to {hi:+.2f}.")
    except KeyError:
        paired = ""
    try:
        f = lambda key: ", ".join(f"{v:.2f}" for v in s[key])   # noqa: E731
        lo, hi, effect = paired_placebo_interval(s, "work")
        r, rlo, rhi = fisher_pooled(s["work_train_change_corr_seeds"], int(s["rho_train_changes"]))
        paired += (f" The work uncensored (Anderson evaluations to tolerance with up to 300 on ρ's own digits, where "
                   f"the training solves' budget of 40 censors it; a share {f('work_capped_seeds')} of these solves "
                   f"reach 300): changes "
                   f"correlate with ρ's at {f('work_train_change_corr_seeds')} per seed (on each half of the digits "
                   f"{f('work_train_change_corr_half1_seeds')} and {f('work_train_change_corr_half2_seeds')}: the "
                   f"digit-sampling spread), pooled {r:.2f} ({rlo:+.2f} to {rhi:+.2f}); the placebo's "
                   f"{f('placebo_jnorm_work_change_corr_seeds')}; ρ minus the placebo, paired, pooled over the seeds "
                   f"{effect:+.2f} ({lo:+.2f} to {hi:+.2f}).")
    except KeyError:
        pass
    return STABILITY_NOTE.format(**s) + paired


def _held_out_at(good: float, of: str = "rho"):
    """The second half of training's forward evaluations predicted by a line in ``of`` fitted on the first half:
    holds if the out-of-sample R² exceeds ``good``, partly if it beats the held-out half's own mean (R² > 0)."""
    def rule(s):
        r2 = s[f"{of}_train_heldout_r2"]
        return "holds" if r2 > good else "partly" if r2 > 0 else "fails"
    return rule


def _exact_band(n: int) -> float:
    """The 95 % null band of Pearson's r for n unrelated (normal) pairs: t/√(t² + n − 2), Student's t on n − 2 d.f."""
    t = stats.t_quantile_975(n - 2)
    return t / math.sqrt(t ** 2 + n - 2)


def _band_check(s):
    n = int(s["rho_train_changes"])
    ok = abs(1.96 / math.sqrt(n) - _exact_band(n)) < 0.01
    return ok, f"1.96/√{n} = {1.96 / math.sqrt(n):.3f}, the exact band {_exact_band(n):.3f}"


# --- what f_θ is -------------------------------------------------------------------------------------------------


STABILITY_CLAIMS = [
    Claim("deq-stability-training", "Ours, on the MNIST model of Bal 2021 (the blog says nothing of its solver's work "
                                    "during training)",
          "The solver's growing work during training follows the spectral radius of ∂f/∂m at the fixed point: their "
          "changes move together, and ρ tracks the work better than quantities that merely grow during training",
          measured="Each analysed seed, at the kept weights of its full run (every 1000 steps): median ρ(∂f/∂m) over test digits and "
                   "the mean forward Anderson evaluations of the 100 steps before; the correlation of their changes "
                   "between kept steps (first differences)", origin="ours",
          rule_at=every_seed_at(_co_moving_at),
          how="Two quantities that both rise during training correlate whatever drives them, so the levels' correlation "
              "cannot test the claim; their changes between kept steps (first differences, the common trend removed) "
              "can. Holds if the changes correlate above 1.96/√n (n changes: the 95 % band of the correlation of n "
              "unrelated pairs) and above the changes of the couplings' norm ‖J‖_F (a placebo that merely grows); "
              "within that band while the levels correlate above 0.5 (a convention) and better than both placebos' "
              "levels (‖J‖_F and log step) do, with differences (a common trend that ρ tracks better than growth "
              "alone); a common trend that a placebo tracks as well or better cannot decide it (not shown, which "
              "is no refutation: not tested, the note gives the numbers); refuted if the changes anti-correlate "
              "beyond the band or the levels do not correlate. "
              "The blog says nothing of its solver's work during training (its sentence on stability, §2.2, is about "
              "the susceptibility χ losing positive semidefiniteness): the claim is ours and quotes no sentence.",
          thresholds=(Threshold("z", 1.96, "theorem", "the 95 % null band of Pearson's r for n unrelated pairs is "
                                "1.96/√n to first order (exactly t/√(t² + n − 2), Student's t on n − 2 d.f.)",
                                _band_check),
                      Threshold("level", 0.5, "convention", "levels that share a trend correlate well above a half")),
          alternatives=(Alternative("the exact null band t/√(t² + n − 2) (0.456 for n = 19)", "threshold",
                                    every_seed(_co_moving_at(1.96, 0.5, exact=True))),
                        Alternative("log ‖(I − J_f)⁻¹‖₂ in ρ's place (Anderson's cost follows how close I − J_f is to "
                                    "singular, not ρ alone), same bands", "reading",
                                    every_seed(_co_moving_at(1.96, 0.5, of="res"))),
                        Alternative("a held-out half of training predicted from the other: a line in ρ fitted on the "
                                    "first half of the kept steps predicts the second half's forward evaluations with "
                                    "an out-of-sample R² above 0.5 (holds), above 0 (partly; conventions)", "unit",
                                    every_seed(_held_out_at(0.5))),
                        Alternative("the same held-out prediction from log ‖(I − J_f)⁻¹‖₂", "reading",
                                    every_seed(_held_out_at(0.5, of="res"))),
                        Alternative("the median seed's grade instead of the grade every seed reaches", "statistic",
                                    every_seed(_co_moving_at(1.96, 0.5), "median")),
                        Alternative("the paired comparison with the placebo: ρ's change correlation minus ‖J‖_F's, "
                                    "per seed with its paired-bootstrap SE, pooled over the seeds (truncated "
                                    "Hartung-Knapp 95 % interval): holds if above 0 with every seed's changes beyond "
                                    "the band, refuted if below 0", "statistic", _paired_placebo()),
                        Alternative("the seeds' change correlations pooled (Fisher's z, weights n − 3): holds if the "
                                    "pooled interval lies above 0 and the pooled correlation above the placebo's", "statistic",
                                    _fisher_at()),
                        Alternative("the work uncensored on ρ's own digits (Anderson evaluations to tolerance with up "
                                    "to 300; the training solves' 40 censor it): the seeds' change correlations pooled "
                                    "as above", "reading", _fisher_at("work")),
                        Alternative("the work uncensored on ρ's own digits: the paired comparison with the placebo, "
                                    "pooled over the seeds", "reading", _paired_placebo(work="work")),
                        Alternative("no placebo (the rule before a referee's control: a common trend with the work is "
                                    "'with differences' whatever else grows)", "reading",
                                    every_seed(_co_moving_at(1.96, 0.5, placebo=False)))),
          spread=Spread("seed", seed_spread("rho_train_change_corr", "res_train_change_corr", "rho_train_heldout_r2")),
          evidence=("fig-deq-stability-training", "tests/test_stability.py::test_change_correlation_removes_a_common_trend",
                    "tests/test_correction.py::test_spectral_radius_over_training_matches_the_models_own_at_each_kept_step"),
          note=_stability_note,
          numbers=shown("rho_train_first", "rho_train_last", "rho_train_corr", "rho_train_change_corr", "rho_train_changes"),
          examples={"holds": {"rho_train_changes": 19, "rho_train_change_corr": 0.46, "rho_train_corr": 0.95},
                    "partly": {"rho_train_changes": 19, "rho_train_change_corr": 0.44, "rho_train_corr": 0.51},
                    "fails": {"rho_train_changes": 19, "rho_train_change_corr": 0.44, "rho_train_corr": 0.5}}),
]


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
