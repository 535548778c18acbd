"""Chapter 5's claims on expanding attention (Singh & Buckley 2023, Sec. 5 and Fig. 3), each with its rule
(:mod:`.claims_designs_expanding`) and premises (:mod:`.claims_designs_checks`); :mod:`.claims_designs` gathers
them with the multi-hop claims."""

from __future__ import annotations

import math

import numpy as np

from mfattn.companion.premises import Alternative, Quote, Spread, Threshold, over_units
from mfattn.companion.verdicts import Claim

from . import claims_designs_checks as C
from . import claims_designs_expanding as X
from .claims_rules import PAPER, TX, number
from .claims_designs_numbers import DIMS, PS, per_array

__all__ = ["EXPANDING"]

FIG3 = "Figure 3 (caption)"
EX_SEC = "5 New Designs, Expanding Attention"

EXPANDING = {c.id: c for c in [
    Claim("designs-expanding-operations", f"{PAPER}, Fig. 3 (right)",
          "Expanding attention scores fewer tokens than full attention, the fewer the stronger the recency bias",
          measured="The paper's relative operations (md + k)/(nd) of expanding attention, d = 10 and 50, p = 1/2 … "
                   "1/25, mean over every training step and 3 seeds",
          rule_at=lambda margin, full: X.ops_rule("ops_", margin, full), thresholds=C.ops_thresholds("ops_"),
          alternatives=(Alternative("the count as the implementation runs it (the widest window scored)", "reading",
                                    X.ops_rule("ops_run_")),
                        Alternative("the public code's own count m(d + k)/(nd), m floored at 28, at d = 10 and 50 (our "
                                    "runs in its setting and its stored runs)", "reading", C.code_measure_rule),
                        Alternative("the public code's own count at d = 50 only (the figure's d)", "reading",
                                    lambda s: C.code_measure_rule(s, dims=(50,)))),
          spread=Spread("seed", C.ops_spread("ops_")),
          quote=Quote(FIG3, "The relative number of operations used by Expanding Attention is beneficial"),
          reading="operations counted as the paper's (md + k)/(nd), m the window at convergence; 'the stronger the "
                  "recency bias' read as its strength (large p), the reading the public code's runs bear out",
          how="Holds if the relative operations are below 1 (fewer than full attention: a theorem's bound) at every d "
              "and p and rise strictly as the recency bias weakens (p = 1/2 → 1/25) at both d, each rise above 0 "
              "(every stored rise is over three times the seed-to-seed s.d. of one seed's value: moved by that s.d.); "
              "with differences if below 1 but not in that order; fails if any reaches 1 (no saving). Tried on the "
              "count as run and on the public code's floor-28 count at both d (which reaches 1 at d = 10) and at "
              "d = 50 alone.",
          evidence=("fig-designs-expanding-operations",
                    TX + "test_code_measure_reproduces_the_stored_relative_operations",
                    TX + "test_lazy_equals_dense_and_scores_only_the_window"),
          note=lambda s: ("Paper's measure (md + k)/(nd), p = 1/2, 1/5, 1/10, 1/25: " + "; ".join(
              f"d = {d}: " + ", ".join(f"{number(s, f'ops_{d}_{p}'):.3f}" for p in PS) for d in DIMS)
              + f" (means over every step and {number(s, 'exp_seeds'):.0f} seeds; the per-seed values are in the "
              "spread)." + ((" The public code's own count m(d + k)/(nd), m floored at 28, on its stored runs: " +
                             "; ".join(f"d = {d}: " + ", ".join(f"{number(s, f'ref_code_ops_{d}_{p}'):.3f}" for p in PS)
                                       for d in DIMS)
                             + ": at d = 10 it reaches full attention's cost from p = 1/10 on (its k sweeps are charged "
                               "once per scored token, and k is comparable to d = 10).")
                            if all(f"ref_code_ops_{d}_2" in s for d in DIMS) else "")),
          numbers=("ops_10_2", "ops_10_25", "ops_50_2", "ops_50_25"), examples=X.ops_examples("ops_")),
    Claim("designs-expanding-accuracy", f"{PAPER}, Fig. 3 (\"training curves remained roughly equivalent\"), with "
          "the text's slope",
          "With the text's prior, slope t·log(1 − q̂) (Sec. 5), expanding attention trains about as well as standard "
          "attention",
          measured="Final training MSE (last fifth of training) of expanding over standard attention at each of the 8 "
                   "settings d = 10, 50 × p = 1/2 … 1/25, slope log(1 − q̂) and scores q_T·k_t as the text writes them "
                   "(ratio of the means over 3 seeds; per seed beside it)",
          rule_at=lambda band, stuck: X.accuracy_rule("loss_ratio", band, stuck),
          thresholds=C.accuracy_thresholds("loss_ratio"),
          alternatives=(Alternative("the median of the per-seed ratios in place of the ratio of the means", "statistic",
                                    X.accuracy_rule("loss_ratio", per_seed_median=True)),
                        Alternative("the ratio of the means over every seed, a setting left out only where that "
                                    "ratio is 1/10 or below (the rule of the first referee round)", "statistic",
                                    X.accuracy_rule("loss_ratio", every_seed=True)),
                        Alternative("the one-sided band of the rule before issue 42 (any ratio below 1.5 counts, a "
                                    "blow-up of standard attention included)", "reading",
                                    X.one_sided_rule("loss_ratio"))),
          spread=Spread("seed", C.accuracy_spread("loss_ratio")),
          quote=Quote(FIG3, "training curves (overlaid) across each of these settings remained roughly equivalent"),
          reading="our training in the text's setting (slope log(1 − q̂), scores q_T·k_t); the figure the sentence "
                  "captions was made by the public code with its slope −t/H, decided separately "
                  "(designs-expanding-accuracy-code-setting, where the ratios are within the band at six of the seven "
                  "settings counted)",
          how="'Roughly equivalent' read as a final-MSE ratio within a factor 1.5 either way (|log r| < log 1.5, at "
              "least four times the seed-to-seed s.d. of one seed's log ratio where both mechanisms train alike: "
              "checked, and moved by that s.d.): holds if within at every setting counted (the claim is made for "
              "every setting of the figure); with differences if at least half of them; fails if fewer. A seed "
              "whose standard attention blew up (it never left its starting loss: last-fifth MSE half or more of its "
              "first 2 %) is its own outcome: named in the note and left out of its setting's ratio of the means (a "
              "setting where every seed blew up is not counted). Tried on the median of the per-seed ratios, on the "
              "ratio of the means over every seed (the first referee round's rule) and on the one-sided band used "
              "before.",
          evidence=("fig-designs-expanding-operations", TX + "test_batched_equals_per_sample_reference_loop"),
          note=C.accuracy_note("loss_ratio", "Final training MSE (3 seeds)"),
          numbers=("loss_ratio_10_2", "loss_ratio_10_25", "loss_ratio_50_2", "loss_ratio_50_25"),
          examples=X.accuracy_examples("loss_ratio")),
    Claim("designs-expanding-adaptive", f"{PAPER}, Sec. 5 (adaptive context)",
          "Expanding attention's window scales with the input: inside its first window, the further back the parent "
          "lies, the wider the final window",
          measured="Over the second half of training (d = 10 and 50, every p, each seed a run): the rank (Spearman) "
                   "correlation between the final window and the parent's distance, over the queries whose parent lies "
                   "inside the first window (t < 29 tokens)",
          rule_at=X.adaptive_rule,
          thresholds=(Threshold("rho", 0.5, "convention", "a rank correlation of one half: the window follows the "
                                "parent's distance, not a nudge; a window blind to the input has 0; moved by the "
                                "standard error of the per-run correlations", noise=C.rho_se),),
          alternatives=over_units("near_rho_runs", C.rho_decide, unit="run") + (
              Alternative("the lift inside the first window: the share of near parents the final window reaches minus "
                          "the share the same windows reach paired at random (its 95 % interval over the runs above 0)",
                          "statistic", C.near_lift_rule),),
          spread=Spread("run (d, p, seed)", lambda s: {"rank correlation of window and distance, t < 29":
                                                       list(per_array(s, "near_rho_runs")),
                                                       "lift inside the first window":
                                                       list(per_array(s, "near_lift_runs"))}),
          quote=Quote(EX_SEC, "we derive a mechanism that dynamically scales depending on input"),
          reading="'scales depending on input' read as the window following the parent's distance where the first "
                  "window can see the parent; beyond it, see designs-expanding-window (ours)",
          how="Per (d, p, seed) run, the rank correlation between the final window and the parent's distance for "
              "parents inside the first window: a window blind to the input has 0. Holds if the 95 % t-interval of "
              "the runs' mean correlation lies above 0 and the mean is at least 0.5 (moved by the per-run "
              "correlations' standard error); with differences if the interval lies above 0 but the mean is smaller; "
              "fails if it lies at or below 0, or covers 0 around a mean at or below 0 (no sign of the claimed direction), and "
              "with differences if it covers 0 around a positive mean (inconclusive, not a refutation). Tried under "
              "sign and signed-rank tests over the runs and on the lift "
              "in reach over windows paired at random.",
          evidence=("fig-designs-expanding-window", "fig-designs-expanding-prior",
                    TX + "test_the_window_follows_the_parent_inside_the_first_window"),
          note=lambda s: (f"Rank correlation of the final window with the parent's distance (t < 29): mean "
                          f"{number(s, 'near_rho_mean'):.3f} over {number(s, 'near_rho_n'):.0f} runs (95 % interval "
                          f"{number(s, 'near_rho_lo'):.3f} to {number(s, 'near_rho_hi'):.3f}; smallest run "
                          f"{min(s['near_rho_runs']):.3f}). Parents inside the first window are reached in "
                          f"{number(s, 'near_found'):.0%} of the queries; over windows paired at random the lift is "
                          f"{number(s, 'near_lift_mean'):+.3f} (95 % interval from {number(s, 'near_lift_lo'):+.3f}), "
                          "small because random windows already cover most near parents. Beyond the first window: "
                          "designs-expanding-window."),
          numbers=("near_rho_mean", "near_rho_lo", "near_lift_mean", "near_found"),
          examples={"holds": {"near_rho_mean": 0.5, "near_rho_lo": 0.01},
                    "partly": {"near_rho_mean": 0.49, "near_rho_lo": 0.01},
                    "fails": {"near_rho_mean": -0.1, "near_rho_lo": -0.2}}),
    Claim("designs-expanding-window", f"{PAPER}, Sec. 5 (adaptive context beyond the first window; our measurement)",
          "Beyond its first window the window still adapts to the input: it reaches a parent beyond its first size more "
          "often than the same windows would if they ignored the input",
          measured="Over the second half of training (d = 10 and 50, every p, each seed a run): the share of parents "
                   "beyond the first window (29 tokens) that the final window reaches, minus the share the run's own "
                   "windows would reach paired with those parents at random (W independent of t)",
          rule_at=X.window_rule, origin="ours",
          thresholds=(Threshold("lift", 0.1, "convention", "ten points of the far parents: an adaptation worth the "
                                "name; moved by the standard error of the per-run lifts", noise=C.lift_se),),
          alternatives=over_units("far_lift_runs", C.lift_decide, unit="run") + (
              Alternative("clustered by setting: the six (d, p) settings' mean lifts (three seeds each) as the units, "
                          "their 95 % t-interval (the lift depends on the setting; seeds of one setting are not "
                          "independent units of it)", "unit", C.lift_by_setting),
              Alternative("the median of the per-run lifts graded as the mean (its interval from the t-interval)",
                          "statistic", lambda s: C.lift_decide(s, float(np.median(per_array(s, "far_lift_runs"))),
                                                              number(s, "far_lift_lo"),
                                                              2 * number(s, "far_lift_mean") - number(s, "far_lift_lo"))),),
          spread=Spread("run (d, p, seed)", lambda s: {"far_lift": list(per_array(s, "far_lift_runs"))}),
          quote=Quote(EX_SEC, "we derive a mechanism that dynamically scales depending on input"),
          how="The lift over a window blind to the input, per (d, p, seed) run: a window that grows for every input or "
              "at random has lift 0 however many far parents it reaches. Confirmed if the 95 % t-interval of the "
              "runs' mean lift lies above 0 and the lift is at least 0.1 (ten points of the far parents, moved by "
              "the per-run lifts' standard error); with differences if the interval lies above 0 but the lift is "
              "smaller, or covers 0 around a positive mean lift (inconclusive, not a refutation); refuted if it lies "
              "at or below 0, or covers 0 around a mean lift at or below 0 (no sign of adaptation: the convention of "
              "the multi-hop rule). Tried under sign and signed-rank tests over the runs, with the (d, p) settings as "
              "units, and on their median.",
          evidence=("fig-designs-expanding-window",
                    TX + "test_window_coverage_lift_is_zero_for_a_window_blind_to_the_input",
                    TX + "test_lazy_equals_dense_and_scores_only_the_window"),
          note=lambda s: (f"A parent beyond the first window (29 tokens) is reached in {number(s, 'far_found'):.0%} of "
                          f"the queries (one inside it in {number(s, 'near_found'):.0%}); lift over windows paired at "
                          f"random {number(s, 'far_lift_mean'):+.3f} (95 % interval from {number(s, 'far_lift_lo'):+.3f} "
                          f"to {2 * number(s, 'far_lift_mean') - number(s, 'far_lift_lo'):+.3f}, "
                          f"{number(s, 'far_lift_n'):.0f} runs of d, p and seed): "
                          + ("negative, the window reaches far parents less often than at random"
                             if 2 * number(s, "far_lift_mean") - number(s, "far_lift_lo") < 0 else
                             "not below random") + ". " + C.lift_settings_text(s)),
          numbers=("far_lift_mean", "far_lift_lo", "far_found", "near_found"),
          examples={"holds": {"far_lift_mean": 0.2, "far_lift_lo": 0.05},
                    "partly": {"far_lift_mean": 0.05, "far_lift_lo": 0.01},
                    "fails": {"far_lift_mean": -0.1, "far_lift_lo": -0.2}}),
    Claim("designs-expanding-inference", f"{PAPER}, Sec. 5 (the α, β updates as inference of the recency prior)",
          "The paper's iteration (α ← α + 1, β ← β + Σ t a_t on every sweep) is a workable inference of the geometric "
          "prior's parameter: it trains at least as well as coordinate-ascent VI (α = α₀ + 1, β = β₀ + E[t − 1] each "
          "sweep, our extension)",
          measured="Training MSE (last fifth of training) of CAVI over the paper's update at d = 10, p = 1/2 … 1/25 "
                   "(means over 3 seeds, the same data and initial weights per seed): the smallest ratio and the "
                   "geometric mean",
          rule_at=lambda tol: X.cavi_rule(tol), origin="ours",
          thresholds=(Threshold("tol", 0.8, "convention", "'workable' read as training at most 25 % worse (1/0.8) "
                                "at every p; moved by the standard error over seeds of a mean log(CAVI / paper) (per-seed "
                                "ratios stored, pooled over p)",
                                noise=lambda s: math.exp(C.pair_sd(s) / math.sqrt(3)), log=True),),
          alternatives=(Alternative("per p, the per-seed log ratio's 95 % t-interval: the paper's update significantly "
                                    "more than 25 % worse at no p", "statistic", X.cavi_rule(paired=True)),
                        Alternative("no tolerance: CAVI's MSE at least the paper update's at every p ('at least as "
                                    "well' read literally)", "threshold", X.cavi_rule(1.0))),
          spread=Spread("seed", lambda s: {f"CAVI / paper, p = 1/{p}":
                                           list(per_array(s, f"cavi_over_paper_mse_{p}_seeds")) for p in PS}),
          quote=Quote(EX_SEC, "We use a (truncated) mean-field variational inference procedure"),
          how="Confirmed if CAVI's MSE is at least 0.8 of the paper update's at every p (the paper's update never "
              "trains more than 25 % worse: our reading of 'workable', moved by the standard error of a 3-seed mean "
              "log ratio); with differences if only the geometric mean over p is; refuted if even that is below "
              "0.8. The paper's update is not CAVI (it counts the single edge once per sweep, which the tests check): "
              "'workable' is all that is claimed. Tried per p on the per-seed ratios and with no tolerance. CAVI's "
              "fixed point need not be unique (two starts can reach two): each query's CAVI starts from the "
              "hyper-prior Beta(α₀, β₀), one start, not the ELBO-best of several.",
          evidence=("fig-designs-expanding-cavi", TX + "test_cavi_is_the_fixed_point_of_the_mean_field_equations"),
          note=lambda s: ("d = 10, p = 1/2 … 1/25: mean final window " + ", ".join(
              f"{number(s, f'paper_window_{p}'):.1f}" for p in PS) + " (paper) against " + ", ".join(
              f"{number(s, f'cavi_window_{p}'):.1f}" for p in PS) + " (CAVI); training MSE " + ", ".join(
              f"{number(s, f'paper_mse_{p}'):.2f}" for p in PS) + " against " + ", ".join(
              f"{number(s, f'cavi_mse_{p}'):.2f}" for p in PS) + f" (CAVI; means over {number(s, 'exp_seeds'):.0f} "
              f"seeds); CAVI / paper at least {number(s, 'cavi_ratio_min'):.3f}, geometric mean "
              f"{number(s, 'cavi_mse_ratio'):.2f}."
              + (" Per seed, CAVI / paper: " + "; ".join(f"p = 1/{p}: " + ", ".join(
                  f"{x:.2f}" for x in s[f"cavi_over_paper_mse_{p}_seeds"]) for p in PS) + "."
                 if "cavi_over_paper_mse_2_seeds" in s else "")),
          numbers=("cavi_ratio_min", "cavi_mse_ratio", "paper_window_25", "cavi_window_25"),
          examples={"holds": {"cavi_ratio_min": 0.8, "cavi_mse_ratio": 1.0},
                    "partly": {"cavi_ratio_min": 0.79, "cavi_mse_ratio": 0.8},
                    "fails": {"cavi_ratio_min": 0.5, "cavi_mse_ratio": 0.79}}),
    Claim("designs-expanding-operations-as-run", f"{PAPER}, Fig. 3 (right), counted as the implementation runs",
          "Expanding attention scores fewer tokens than full attention, the fewer the stronger the recency bias",
          measured="(r·d + k)/(n·d) with r the widest window any sweep scored (the first window is always scored) "
                   "and k the sweeps, d = 10 and 50, p = 1/2 … 1/25, mean over every training step and seed",
          rule_at=lambda margin, full: X.ops_rule("ops_run_", margin, full), thresholds=C.ops_thresholds("ops_run_"),
          alternatives=(Alternative("the paper's count (md + k)/(nd), m the window at convergence", "reading",
                                    X.ops_rule("ops_")),),
          spread=Spread("seed", C.ops_spread("ops_run_")),
          quote=Quote(EX_SEC, r"where \(m\) is the size of the window at convergence, and \(k\) is the number of "
                              "steps to converge"),
          reading="the cost counted as run, the widest window scored (our reading of the cost: the paper charges the "
                  "window at convergence); 'the stronger the recency bias' read as its strength (large p)",
          how="As designs-expanding-operations, on the count as run: holds if below 1 at every d and p and rising "
              "strictly as the recency bias weakens at both d (each rise above 0, every stored rise over three times "
              "the seed-to-seed s.d. of one seed's value: moved by it); with differences if below 1 but not in that "
              "order; fails if any reaches 1. The paper's md + k charges the final window, which is narrower than "
              "the first one for most queries (their window shrinks after the first sweep).",
          evidence=("fig-designs-expanding-operations",
                    TX + "test_the_stopping_sweep_gives_the_window_and_reach_records_the_widest"),
          note="As run, p = 1/2, 1/5, 1/10, 1/25: d = 10: {ops_run_10_2:.3f}, {ops_run_10_5:.3f}, {ops_run_10_10:.3f}, "
               "{ops_run_10_25:.3f}; d = 50: {ops_run_50_2:.3f}, {ops_run_50_5:.3f}, {ops_run_50_10:.3f}, "
               "{ops_run_50_25:.3f} (the paper's count: {ops_10_2:.2f} … {ops_50_25:.2f}).",
          numbers=("ops_run_10_2", "ops_run_10_25", "ops_run_50_2", "ops_run_50_25"),
          examples=X.ops_examples("ops_run_")),
    Claim("designs-expanding-benefit-strength", f"{PAPER}, Fig. 3 (\"large benefit when recency bias (1/p) or d is "
          "large\"), read as: the stronger the bias toward recent tokens (large p)",
          "Expanding attention saves more the stronger the recency bias (large p) and the larger d",
          measured="Saving 1 − (r·d + k)/(n·d), operations counted as run, d = 10 and 50, p = 1/2 … 1/25",
          rule_at=lambda margin: X.benefit_rule(False, margin), thresholds=C.benefit_threshold(),
          alternatives=(Alternative("d compared at equal windows and sweeps (d = 10's, charged at d = 50: an identity, "
                                    "the saving grows by k(1/10 − 1/50)/n)", "reading",
                                    X.benefit_rule(False, equal_windows=True)),),
          spread=Spread("seed", C.ops_spread("ops_run_")),
          quote=Quote(FIG3, r"beneficial when either the recency bias (\(1/p\)) or the number of feature dimensions "
                            r"(\(d\)) is large"),
          reading="'recency bias' as its strength (large p: the parent near); d compared as trained (separately "
                  "trained windows at each d)",
          how="Holds if the saving falls strictly from p = 1/2 to 1/25 at both d and is larger at d = 50 than at "
              "d = 10 at every p (each difference above 0, moved by the seed-to-seed s.d. of one seed's count); with "
              "differences if only the first; fails if the saving does not fall with p at both d. Tried with d "
              "compared at equal windows, where d's effect is an identity.",
          evidence=("fig-designs-expanding-operations",
                    TX + "test_the_stopping_sweep_gives_the_window_and_reach_records_the_widest"),
          note=lambda s: ("Saving as run (1 − operations), p = 1/2 … 1/25: d = 10: " + ", ".join(
              f"{1 - number(s, f'ops_run_10_{p}'):.3f}" for p in PS) + "; d = 50: " + ", ".join(
              f"{1 - number(s, f'ops_run_50_{p}'):.3f}" for p in PS) + "; d = 50 minus d = 10: " + ", ".join(
              f"{number(s, f'ops_run_10_{p}') - number(s, f'ops_run_50_{p}'):+.3f}" for p in PS)
              + " (the windows of each d trained separately; at equal windows d = 50 saves more by an identity)."),
          numbers=("ops_run_10_2", "ops_run_50_2"), examples=X.benefit_examples(literal=False)),
    Claim("designs-expanding-benefit-literal", f"{PAPER}, Fig. 3 (\"large benefit when recency bias (1/p) or d is "
          "large\"), read literally: large 1/p",
          "Expanding attention saves more when 1/p is large (the parent far back on average) and when d is large",
          measured="Saving 1 − (r·d + k)/(n·d), operations counted as run, d = 10 and 50, p = 1/2 … 1/25",
          rule_at=lambda margin: X.benefit_rule(True, margin), thresholds=C.benefit_threshold(),
          alternatives=(Alternative("d compared at equal windows and sweeps (an identity)", "reading",
                                    X.benefit_rule(True, equal_windows=True)),
                        Alternative("the paper's count (md + k)/(nd) in place of the count as run", "reading",
                                    X.benefit_rule(True, key="ops_"))),
          spread=Spread("seed", C.ops_spread("ops_run_")),
          quote=Quote(FIG3, r"beneficial when either the recency bias (\(1/p\)) or the number of feature dimensions "
                            r"(\(d\)) is large"),
          reading="'recency bias (1/p) is large' read literally: large 1/p, the parent far back on average",
          how="Holds if the saving grows strictly from p = 1/2 to 1/25 (1/p from 2 to 25) at both d and is larger at "
              "d = 50 than at d = 10 at every p (each difference above 0, moved by the seed-to-seed s.d. of one "
              "seed's count); with differences if only the first; fails if the saving does not grow with 1/p at both "
              "d. Tried at equal windows and on the paper's count.",
          evidence=("fig-designs-expanding-operations",
                    TX + "test_the_stopping_sweep_gives_the_window_and_reach_records_the_widest"),
          note="Operations as run at d = 10: {ops_run_10_2:.3f} (1/p = 2) to {ops_run_10_25:.3f} (1/p = 25); d = 50: "
               "{ops_run_50_2:.3f} to {ops_run_50_25:.3f}: the saving shrinks as 1/p grows.",
          numbers=("ops_run_10_25", "ops_run_50_25"), examples=X.benefit_examples(literal=True)),
    Claim("designs-expanding-wallclock", f"{PAPER}, Sec. 5 (time complexity)",
          "If d is large against the number of sweeps k, expanding attention's time complexity O(n(md + k)) should be "
          "favourable against attention's O(n²d): its cost grows more slowly with the context and ends below",
          measured="CPU time of lazy windowed attention and of full attention for one query against the context length "
                   "(benchmarks/bench_windowed_attention.py: d = 64, batch 16, n = 256 … 32 768, every row the same "
                   "windows and k ≈ 11 sweeps; medians of 15 repeats, one machine)",
          rule=C.wall_asymptotic,
          alternatives=(Alternative("wall-clock medians in place of CPU time", "statistic",
                                    lambda s: C.wall_asymptotic(s, "wall")),
                        Alternative("the operation counts the complexity states: scored products (md + k) against "
                                    "full attention's nd at the benchmark's lengths", "reading",
                                    C.wall_operations)),
          spread=Spread("context length", lambda s: {"lazy / full CPU time": list(per_array(s, "bench_cpu_ratios")),
                                                     "lazy CPU ms": list(per_array(s, "bench_lazy_ms")),
                                                     "full CPU ms": list(per_array(s, "bench_full_ms"))}),
          quote=Quote(EX_SEC, "the time complexity of expanding attention should be favourable"),
          reading="asymptotic, as the text states it ('time complexity', 'if d >> k'): the lazy window's time grows "
                  "less than full attention's over the benchmarked lengths and ends below it; the time at each length "
                  "is a claim of ours (designs-expanding-wallclock-measured)",
          how="Holds if, from the shortest to the longest benchmarked context, the lazy window's time grows by a "
              "smaller factor than full attention's and ends below it; with differences if it grows less but is never "
              "faster; fails if it grows as fast or faster. Tried on wall-clock medians and on the operation counts "
              "the complexity states. What the window costs at each length (an implementation's per-sweep overhead "
              "included) is decided as a claim of ours.",
          evidence=("fig-designs-expanding-operations", TX + "test_stored_benchmark_rows_time_the_same_iterations",
                    TX + "test_lazy_equals_dense_and_scores_only_the_window"),
          note=lambda s: (f"From n = {number(s, 'bench_n_min'):.0f} to {number(s, 'bench_n_max'):.0f} the lazy window's "
                          f"CPU time grows ×{s['bench_lazy_ms'][-1] / s['bench_lazy_ms'][0]:.2f} "
                          f"({s['bench_lazy_ms'][0]:.1f} to {s['bench_lazy_ms'][-1]:.1f} ms: its cost is the window, "
                          f"which does not grow), full attention's ×{s['bench_full_ms'][-1] / s['bench_full_ms'][0]:.0f} "
                          f"({s['bench_full_ms'][0]:.2f} to {s['bench_full_ms'][-1]:.1f} ms); at the longest length "
                          f"lazy / full is {number(s, 'bench_time_ratio_max_n'):.2f}."),
          numbers=("bench_time_ratio_min_n", "bench_time_ratio_max_n"),
          examples={"holds": {"bench_lazy_ms": [15.0, 16.0], "bench_full_ms": [0.3, 30.0]},
                    "partly": {"bench_lazy_ms": [15.0, 16.0], "bench_full_ms": [0.3, 10.0]},
                    "fails": {"bench_lazy_ms": [1.0, 100.0], "bench_full_ms": [0.3, 30.0]}}),
    Claim("designs-expanding-wallclock-measured", f"{PAPER}, Sec. 5 (time complexity, measured as time; our reading)",
          "At long contexts, lazy windowed attention runs faster than full attention in CPU time, at every benchmarked "
          "length",
          measured="CPU time of lazy windowed attention over full attention for one query (benchmarks/"
                   "bench_windowed_attention.py: d = 64, batch 16, n = 256 … 32 768, every row the same windows and "
                   "iterations; medians of 15 repeats, one machine)",
          rule=X.wallclock_rule(), origin="ours",
          alternatives=(Alternative("wall-clock medians in place of CPU time", "statistic",
                                    X.wallclock_rule("bench_wall_ratios")),
                        Alternative("at the paper's toy size n = 50 (below the shortest stored length: bounded by "
                                    "the stored rows)", "reading", C.wall_paper_size)),
          spread=Spread("context length", lambda s: {"lazy / full CPU time": list(per_array(s, "bench_cpu_ratios"))}),
          quote=Quote(EX_SEC, "the time complexity of expanding attention should be favourable"),
          how="Confirmed if the lazy window is faster than full attention at every benchmarked length; with "
              "differences if at some (long contexts only); refuted if at none. Tried on wall-clock time and at the "
              "paper's toy size (n = 50), where the stored rows bound it. The benchmark stores medians only, not "
              "their spread over the repeats, so a ratio near 1 (n = 16 384) is not resolved.",
          evidence=("fig-designs-expanding-operations", TX + "test_stored_benchmark_rows_time_the_same_iterations",
                    TX + "test_lazy_equals_dense_and_scores_only_the_window"),
          note=lambda s: (f"Lazy / full CPU time {number(s, 'bench_time_ratio_min_n'):.2f} at n = "
                          f"{number(s, 'bench_n_min'):.0f} and {number(s, 'bench_time_ratio_max_n'):.2f} at n = "
                          f"{number(s, 'bench_n_max'):.0f}; per length " + ", ".join(
                              f"{x:.2f}" for x in s.get("bench_cpu_ratios", [])) + f": faster at "
                          f"{number(s, 'bench_below_full'):.0f} of {number(s, 'bench_rows'):.0f} lengths (medians of "
                          "the benchmark's repeats, whose spread is not stored: the row near 1 is not resolved). About "
                          "15 ms per query of per-sweep overhead (a few small tensor ops per sweep, ~11 sweeps) "
                          "dominates until full attention's cost passes it."),
          numbers=("bench_time_ratio_min_n", "bench_time_ratio_max_n"),
          examples={"holds": {"bench_below_full": 5, "bench_rows": 5}, "partly": {"bench_below_full": 2, "bench_rows": 5},
                    "fails": {"bench_below_full": 0, "bench_rows": 5}}),
    Claim("designs-expanding-update-is-vi", f"{PAPER}, Sec. 5 (the α, β updates presented as mean-field inference)",
          "The iteration of attention and the α, β updates is a (truncated) mean-field variational inference "
          "procedure for the geometric prior's parameter",
          measured="Largest |∂ELBO/∂θ| at the end state of the paper's iteration (attention logits on the window, α, "
                   "β of q(q)), the ELBO written from the model t ~ Geometric(q), q ~ Beta(0.1, 0.9); CAVI's beside it, "
                   "run to a fixed point and stopped by the training's tolerance (64 random score vectors, T = 50, "
                   "float64)",
          rule_at=lambda exact, near: X.vi_rule(exact, near),
          thresholds=(Threshold("exact", 1e-6, "round-off", "an iterative float64 solver at a stationary point: CAVI "
                                "run to a fixed point leaves ~1e-11 (stored), and 1e-6 is at least 1e4 times that",
                                C.vi_exact_check, noise=10.0, log=True),
                      Threshold("near", 0.05, "stored distribution", "what a VI procedure stopped by the training's "
                                "rule (0.01 on the horizon) may leave: CAVI so stopped leaves at most ~1e-2 over the 64 "
                                "vectors (a median ~1e-6; stored per vector), and 0.05 is at least four times that; "
                                "moved by a factor two", C.vi_near_check, noise=2.0, log=True)),
          alternatives=(Alternative("per vector: the paper's end state against CAVI stopped by the same rule on the "
                                    "same score vector (fails if its gradient is the larger on more than half of them)",
                                    "statistic", X.vi_paired_rule),
                        Alternative("the median gradient over the score vectors in place of the largest (a typical "
                                    "query rather than the worst)", "statistic",
                                    X.vi_rule(statistic=lambda g: float(np.median(g))))),
          spread=Spread("score vector", lambda s: {u: list(per_array(s, f"{k}_elbo_grad_vectors")) for u, k in (
              ("paper's update", "paper"), ("CAVI, fixed point", "cavi"), ("CAVI, stopped at 0.01", "cavi_tol01"))}),
          quote=Quote(EX_SEC, "We use a (truncated) mean-field variational inference procedure"),
          reading="(a) its end state is a stationary point of the ELBO, as a (truncated) mean-field procedure's is up to "
                  "its stopping tolerance; reading (b), CAVI truncated after a few sweeps, fails by construction "
                  "(α ← α + 1 per sweep against CAVI's α = α₀ + 1: the tests check it)",
          how="Mean-field VI stops at a stationary point of the ELBO, up to its stopping tolerance. Holds if the "
              "paper's end state is stationary to 1e-6 on every score vector (float64 round-off of an iterative solver, "
              "checked against CAVI's ~1e-11; moved by a factor ten); with differences below 0.05 (at least four "
              "times what CAVI stopped by the same tolerance on the horizon leaves: checked; moved by a factor two); "
              "fails at 0.05 or more. Not tested if CAVI's own end state is not stationary to 1e-8 (the check would be "
              "broken). Tried per vector against CAVI stopped by the same rule.",
          evidence=("fig-designs-expanding-cavi", TX + "test_cavi_is_the_fixed_point_of_the_mean_field_equations",
                    TX + "test_elbo_matches_the_model_and_cavi_lowers_it_only_where_the_window_shrinks"),
          note=lambda s: ("Largest ELBO gradient at the end state: paper's iteration "
                          f"{number(s, 'paper_elbo_grad'):.1e}, "
                          f"CAVI at a fixed point {number(s, 'cavi_elbo_grad'):.1e}"
                          + (f", CAVI stopped at the training's tolerance {max(s['cavi_tol01_elbo_grad_vectors']):.1e}; "
                             f"medians over the 64 vectors: paper's iteration "
                             f"{float(np.median(s['paper_elbo_grad_vectors'])):.1e}, CAVI stopped at the tolerance "
                             f"{float(np.median(s['cavi_tol01_elbo_grad_vectors'])):.0e}; the paper's is the larger on "
                             f"{C.vi_larger(s)}"
                             " of the 64"
                             if "cavi_tol01_elbo_grad_vectors" in s else "")
                          + ": the accumulating update counts the single edge once per sweep (α grows with the "
                          "sweeps)."),
          numbers=("paper_elbo_grad", "cavi_elbo_grad"),
          examples={"holds": {"paper_elbo_grad": 1e-7, "cavi_elbo_grad": 1e-10},
                    "partly": {"paper_elbo_grad": 1e-3, "cavi_elbo_grad": 1e-10},
                    "fails": {"paper_elbo_grad": 0.5, "cavi_elbo_grad": 1e-10}}),
    Claim("designs-expanding-cavi-ladder", f"{PAPER}, Sec. 5 (our comparison, three differences separated)",
          "Most of CAVI's deficit against the paper's update comes from its narrower first window (the digamma "
          "estimate's horizon under the hyper-prior), not from the digamma estimate itself or from recomputing the "
          "hyper-prior each sweep",
          measured="Training MSE (last fifth) at d = 10, geometric mean over p = 1/2 … 1/25 of the ratio of each step: "
                   "plug-in → digamma estimate (first window 29 kept), → digamma's own first window, → CAVI (3 seeds, "
                   "the same data and initial weights in every variant)",
          rule_at=X.ladder_rule, examples=X.ladder_examples(), origin="ours",
          thresholds=(Threshold("factor", 1.25, "seed spread", "a 25 % rise of the MSE: log 1.25 is over three times "
                                "the standard error over seeds of the comparison of steps (per-seed steps stored); "
                                "moved by that standard error", C.ladder_factor_check,
                                noise=lambda s: math.exp(X.ladder_se(s)), log=True),
                      Threshold("margin", 0.0, "convention", "the first-window step must be larger than either other "
                                "step for 'most of the deficit'; moved by the standard error over seeds of that "
                                "comparison", noise=X.ladder_se)),
          alternatives=(Alternative("the median over p of each step in place of the geometric mean", "statistic",
                                    X.ladder_rule(median=True)),
                        Alternative("per seed: the steps of each seed, the claim holding only if it holds for every "
                                    "seed", "unit", X.ladder_rule(per_seed_all=True))),
          spread=Spread("seed", C.ladder_spread),
          how="Refuted unless the middle step (digamma's own, narrower first window) raises the MSE more than either "
              "other step (the estimate; accumulating → CAVI) by more than 0 (moved by the standard error over seeds "
              "of that comparison); confirmed if it also raises it by at least 25 % (over three standard errors: "
              "checked); with differences if it is the largest step but smaller. (The book's earlier claim, that "
              "recomputing the hyper-prior is the cause, was a claim the numbers refute; this is the finding they "
              "bear.)",
          evidence=("fig-designs-expanding-cavi", TX + "test_first_window_fixes_only_the_first_sweep",
                    TX + "test_cavi_is_the_fixed_point_of_the_mean_field_equations"),
          note=lambda s: (f"Steps (MSE ratio, geometric mean over p): estimate ×{number(s, 'ladder_estimate'):.3f}, "
                          f"first window ×{number(s, 'ladder_first_window'):.3f}, accumulating → CAVI "
                          f"×{number(s, 'ladder_accumulating'):.3f}"
                          + ("; per seed: " + "; ".join(f"{k} " + ", ".join(
                              f"×{math.exp(x):.2f}" for x in s[f"ladder_log_{k}_seeds"])
                              for k in ("estimate", "first", "accumulating"))
                             if "ladder_log_first_seeds" in s else "") + "."),
          numbers=("ladder_estimate", "ladder_first_window", "ladder_accumulating")),
    Claim("designs-expanding-accuracy-code-setting", f"{PAPER}, public code (slope −t/H, column scores)",
          "In the public code's setting, expanding attention trains about as well as standard attention",
          measured="Final training MSE (last fifth) of expanding over standard attention in the code's setting "
                   "(slope −t/H, scores q_t·k_T, plug-in update) at d = 10, 50 × p = 1/2 … 1/25, our training (3 "
                   "seeds; 8 at d = 50, p = 1/25, where the first three disagreed); the public code's stored runs "
                   "(expanding_10.json, expanding_50.json, one seed) beside them",
          rule_at=lambda band, stuck: X.accuracy_rule("code_loss_ratio", band, stuck),
          thresholds=C.accuracy_thresholds("code_loss_ratio"),
          alternatives=(Alternative("the median of the per-seed ratios in place of the ratio of the means", "statistic",
                                    X.accuracy_rule("code_loss_ratio", per_seed_median=True)),
                        Alternative("reading (b): the public code's own stored runs (one seed per setting: graded at "
                                    "best with differences)", "reading",
                                    C.one_seed_cap(X.accuracy_rule("ref_loss_ratio"))),
                        Alternative("the ratio of the means over every seed, a setting left out only where that "
                                    "ratio is 1/10 or below (the rule of the first referee round)", "statistic",
                                    X.accuracy_rule("code_loss_ratio", every_seed=True)),
                        Alternative("the one-sided band of the rule before issue 42", "reading",
                                    X.one_sided_rule("code_loss_ratio"))),
          spread=Spread("seed", C.accuracy_spread("code_loss_ratio")),
          quote=Quote(FIG3, "training curves (overlaid) across each of these settings remained roughly equivalent"),
          reading="(a) our training in the public code's setting (its figure's runs); reading (b), the public code's "
                  "stored runs, is an alternative",
          how="As designs-expanding-accuracy (a final-MSE ratio within a factor 1.5 either way at every counted "
              "setting: holds; at least half: with differences; fewer: fails; a seed whose standard attention blew "
              "up, never leaving its starting loss, its own outcome, named and left out of the ratio), for the code's "
              "setting. Tried on the median of the per-seed ratios, on the ratio of the means over every seed, on "
              "the public code's own stored runs and on the one-sided band used before.",
          evidence=("fig-designs-expanding-operations",
                    TX + "test_code_setting_equals_an_oracle_from_the_public_code_equations"),
          note=lambda s: (C.accuracy_note("code_loss_ratio", "Ours in the code's setting (means over the seeds)")(s)
                          + " The public code's stored runs (one seed): " + "; ".join(
                              f"d = {d}: " + ", ".join(f"{number(s, f'ref_loss_ratio_{d}_{p}'):.3g}" for p in PS)
                              for d in DIMS) + "."),
          numbers=("code_loss_ratio_10_25", "code_loss_ratio_50_25", "ref_loss_ratio_10_25", "ref_loss_ratio_50_25"),
          examples=X.accuracy_examples("code_loss_ratio")),
]}


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
