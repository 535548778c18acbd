"""Chapter 6's claims on Poc-López & Aguilera (2024), each declared with the rule that decides it from the stored
full profile.

The full profile writes ``data/full/dmft/fig3{a,b}_sections.npz`` (:func:`mfattn.dynamics.sweep.save_diagram`),
``data/full/dmft/summary.json`` (:func:`mfattn.dynamics.verdict_numbers.summary`: Fig. 4 and 5, coexistence,
finite N) and ``data/full/dmft/beyond.json`` (the "Beyond the paper" section). :func:`full_numbers` reads them,
:func:`glue_values` turns them into the strings the chapter's prose shows, :func:`stored_numbers` flattens them
for the rules (both read in :mod:`.claims_stored`). :data:`DECLARED` holds the paper's figure claims (:data:`CLAIMS`, recorded by :func:`record` at
the chapter's end) and the beyond section's (:data:`~.claims_beyond.BEYOND`, recorded by :func:`record_beyond`).
"""

from __future__ import annotations

from pathlib import Path

from ..companion import verdicts
from ..companion.verdicts import Claim, Undecidable
from .claims_beyond import BEYOND, FIG4, MISSING, PAPER, SHARED_SLOPE, SLOPE_HOW, beyond_full_numbers, glue_values, \
    ledger_safe, plateau_summary, record_beyond, slope_rule
from .claims_stored import LATE, REMEDY, TOL, L, _diagram, _flat, full_numbers, stored_numbers  # noqa: F401

__all__ = ["full_numbers", "stored_numbers", "glue_values", "MISSING", "CLAIMS", "DECLARED", "record", "record_beyond",
           "beyond_full_numbers", "plateau_summary", "FIG4", "TOL"]
KINDS = ("torus", "torus", "chaotic", "periodic", "chaotic", "chaotic")  # the paper's Fig. 4 reading of each β

LAMBDA_HOW = ("λ_max is the mean log growth of a tangent vector over the 2·10⁴ saved steps (120000 − 100000 of the "
              "paper-code protocol): on a torus (λ = 0) it reads O(1/T) ≈ 5e-5, and the stored tori give |λ| ≤ 1e-4 "
              "while chaotic orbits give ≥ 1e-2; TOL = 1e-3 sits in that gap, twenty times the 1/T resolution.")


# --- rules ------------------------------------------------------------------------------------------------

def _route(s):
    if not s["a_late_share"] >= 0:  # NaN: no β > LATE on the grid, so no periodic return to look for
        raise Undecidable(f"the stored Fig. 3a grid has no β > {LATE:g}: the periodic return at large β is not "
                          "measured")
    if (s["a_orbits_torus"] == 0 or s["a_orbits_chaotic"] == 0 or s["a_start_period_L_share"] < 0.95
            or not s["a_first_torus_beta"] < s["a_first_lambda_gt_1e_3_beta"]):
        return "fails"  # no torus, no chaos, no period-L start or chaos before the torus: not the paper's route
    return "holds" if s["a_windows"] > 0 and s["a_late_share"] >= 0.95 else "partly"


def _route_note(s):
    late = (f"periodic again: a period is found at {s['a_late_share']:.0%} of the β > {LATE:g} (max λ_max there "
            f"{s['a_late_max_lambda']:+.1e})" if s["a_late_share"] >= 0.95 else
            f"not periodic again: a period is found at only {s['a_late_share']:.0%} of the β > {LATE:g}")
    return (f"Fig. 3a ({s['a_n_betas']} β): period L = 4 at {s['a_start_period_L_share']:.1%} of the β before the "
            "first "
            f"torus (β = {s['a_first_torus_beta']:.4f}); λ_max > 1e-3 from β = {s['a_first_lambda_gt_1e_3_beta']:.4f}, "
            f"{s['a_orbits_torus']} tori and {s['a_orbits_chaotic']} chaotic β, {s['a_windows']} periodic β between "
            f"the first and last chaotic one; {late}. One orbit per β (no spread).")


def _zoom(s):
    off = abs(s["z_first_quasi_periodic_beta"] - 1.244)
    if not off <= 4e-3 or s["z_orbits_chaotic"] == 0:
        return "fails"
    return "holds" if off <= 1e-3 and s["z_windows"] > 0 else "partly"


def _bin_share(s):
    return (s["a_misclassified"] + s["z_misclassified"]) / (s["a_n_betas"] + s["z_n_betas"])


def _bin_note(s):
    return (f"The paper's bin count itself at every β (every saved m^o_1 quantised on its 5001 bins of its scale "
            f"max(|min|, |max|)), classified by its thresholds: misclassified {_bin_share(s):.1%} of the "
            f"{s['a_n_betas']} + {s['z_n_betas']} β ({s['a_misclassified']} + {s['z_misclassified']}). Confusion of "
            f"the rule (rows periodic/quasi/chaotic) against (period found; none, λ ≤ 1e-3; none, λ > 1e-3): Fig. 3a "
            f"{s['a_confusion']}, zoom {s['z_confusion']}; quasi-periodic by the rule with a period > 80: "
            f"{s['a_quasi_with_period_gt_80']} and {s['z_quasi_with_period_gt_80']}. One orbit per β.")


def _kind(lam, per):
    if per > 0:
        return "periodic"
    if lam is None:
        return "unknown"  # no period and λ_max stored as null (not finite)
    return "chaotic" if lam > TOL else "torus" if abs(lam) <= TOL else "periodic"


def _fig4_kinds(s, which=""):
    return [_kind(lam, p) for lam, p in zip(s[f"f4_lyapunov{which}"], s[f"f4_period{which}"])]


def _fig4_match(s, which=""):
    return all(abs(b - e) < 1e-9 for b, e in zip(s["f4_betas"], FIG4)) and _fig4_kinds(s, which) == list(KINDS)


def _planes(s):
    if "unknown" in _fig4_kinds(s):
        raise Undecidable("a β of Fig. 4 has no period and its λ_max is stored as null: its kind is not measured")
    if not _fig4_match(s):
        return "fails"
    return "holds" if s["f4_start"] == "paper" else "partly"


def _planes_numbers(s):
    out = {f"lambda_max at beta = {b:g}": v for b, v in zip(s["f4_betas"], s["f4_lyapunov"])}
    out.update({f"lambda_max at beta = {b:g}, our own context": v
                for b, v in zip(s["f4_betas"], s["f4_lyapunov_ours"])})
    out.update({"period at beta = 1.27": s["f4_period"][3],
                "start": "the paper's stored β = 1.28 context" if s["f4_start"] == "paper" else "our own context",
                "betas where our own start differs": ", ".join(f"{b:g}" for b, d in zip(s["f4_betas"], s["f4_differ"])
                                                               if d) or "none"})
    return out


def _windows_text(s, key, fmt, what):
    """The spread over windows of one orbit of a per-β quantity (min to max per β), or a sentence saying it is not
    stored (runs before 0.3)."""
    if key not in s:
        return f"No window-to-window spread of {what} is stored."
    one = lambda ws: ("none within the window" if all(w is None for w in ws) else  # noqa: E731
                      f"{fmt(min(w for w in ws if w is not None))} to {fmt(max(w for w in ws if w is not None))}"
                      + ("" if all(w is not None for w in ws) else " (some windows: none)"))
    return f"Over windows of one orbit, {what}: " + "; ".join(f"β = {b:g}: {one(ws)}"
                                                            for b, ws in zip(s["f4_betas"], s[key])) + "."


def _islands_text(s):
    isl = s.get("f4_islands")
    if not isl:
        return ""
    chains = [f"{b:g} ({q} islands)" for b, q, p in zip(s["f4_betas"], isl, s["f4_period"]) if q and q > 1 and not p]
    return (" Stroboscopic sections without a period that split into pieces visited in turn (an island chain, a torus "
            "around a locked cycle, not one closed curve): " + (", ".join(chains) or "none") + ".")


def _planes_note(s):
    n = _planes_numbers(s)
    lam = lambda key: ", ".join(f"{b:g}: " + ("null" if v is None else f"{v:+.2g}")  # noqa: E731
                                for b, v in zip(s["f4_betas"], s[key]))
    return (f"From {n['start']}: λ_max = {lam('f4_lyapunov')}; period at 1.27: {s['f4_period'][3]}. "
            + _windows_text(s, "f4_lyapunov_windows", lambda v: f"{v:+.2g}",
                            f"λ_max ({s.get('f4_lyapunov_window', '?')} steps each)")
            + f" Our own start: λ_max = {lam('f4_lyapunov_ours')} "
            f"(the same kind at {'all' if _fig4_match(s, '_ours') else 'not all'} six β{_two_starts(s)}); the "
            f"attractors differ as sets at β = {n['betas where our own start differs']}." + _islands_text(s))


def _two_starts(s):
    """How far the two starts' λ_max lie apart: the largest ratio where both are chaotic, the largest |λ| where
    both are tori (the only spread of λ the stored run holds)."""
    pairs = [(a, o) for a, o in zip(s["f4_lyapunov"], s["f4_lyapunov_ours"]) if a is not None and o is not None]
    ratio = [max(a, o) / min(a, o) for a, o in pairs if min(a, o) > TOL]
    zero = [max(abs(a), abs(o)) for a, o in pairs if max(abs(a), abs(o)) <= TOL]
    return ((f"; chaotic λ differ by up to a factor {max(ratio):.1f}" if ratio else "")
            + (f", tori stay within {max(zero):.0e} of 0" if zero else ""))


def _tau(s, key, beta):
    if beta not in s["f4_betas"]:
        raise Undecidable(f"the stored Fig. 4 runs have no β = {beta:g} (they are at "
                          f"{', '.join(f'{b:g}' for b in s['f4_betas'])})")
    return s[key][s["f4_betas"].index(beta)]


def _spectra(s):
    tq, tc = _tau(s, "f4_tau_e", 1.26405), _tau(s, "f4_tau_e", 1.28)
    if tq is not None or tc is None:
        return "fails"
    return "holds" if tc <= 100 else "partly"


def _steps(t):
    return "none within 2000 lags" if t is None else t


def _memory(s):
    chaotic = [_tau(s, "f4_tau_01", b) for b in (1.266, 1.28, 1.4)]
    if all(t is None or t > 10 * L for t in chaotic):
        return "holds"
    return "partly" if all(t is None or t > L for t in chaotic) else "fails"


def _nonequilibrium(s):
    asym, ov = s["sym_paper_nontrivial"], s["sym_ov_nontrivial"]
    if asym == 0 or ov * 2 >= asym:
        return "fails"  # nothing a symmetric coupling forbids, or symmetrising the couplings leaves half of it
    return "holds" if ov == 0 and s["sym_paper_tori"] + s["sym_paper_chaotic"] > 0 else "partly"


def _kinds_text(s, key):
    return (f"{s[key + '_nontrivial']} of {s[key + '_n']} β ({s[key + '_tori']} tori, {s[key + '_chaotic']} chaotic, "
            f"{s[key + '_long_periods']} with a period not dividing 2L; longest period {s[key + '_max_period']})")


#: Stroboscopic points a section needs before two samples of one torus stop looking like two attractors.
DENSE = 10_000


def _coexist(s):
    if s["coexist_points"] < DENSE:
        raise Undecidable(f"the sections compared hold {s['coexist_points']} points, fewer than the {DENSE} a torus "
                          "with ρ near p/q needs to be covered")
    return "holds" if s["coexist_n"] >= 10 else "partly" if s["coexist_n"] > 0 else "fails"


def _lyapunov_share(s):
    return (s["a_lambda_near_TOL"] + s["z_lambda_near_TOL"]) / (s["a_n_betas"] + s["z_n_betas"])


def _lyapunov(s):
    if s["a_periodic_with_lambda_gt_1e_3"] + s["z_periodic_with_lambda_gt_1e_3"] + s["a_lambda_not_finite"] \
            + s["z_lambda_not_finite"]:
        return "fails"
    share = _lyapunov_share(s)
    return "holds" if share < 0.01 else "partly" if share < 0.1 else "fails"


T = "tests/test_dynamics_engine.py::"
M = "tests/test_dynamics_model.py::"
D = "tests/test_dynamics_diagnostics.py::"
S = "tests/test_dynamics_sweep.py::"
F = "tests/test_dynamics_finite_n.py::"
_A = dict(a_orbits_torus=5, a_orbits_chaotic=5, a_start_period_L_share=0.95, a_first_torus_beta=1.24,
          a_first_lambda_gt_1e_3_beta=1.26, a_windows=1, a_late_share=0.95)
_Z = dict(z_first_quasi_periodic_beta=1.2449, z_orbits_chaotic=5, z_windows=1)
_B = dict(a_misclassified=9, z_misclassified=0, a_n_betas=500, z_n_betas=500)
_P = dict(f4_betas=list(FIG4), f4_lyapunov=[1e-5, -1e-5, 0.1, -0.05, 0.15, 0.08], f4_period=[0, 0, 0, 28, 0, 0],
          f4_start="paper")
_S = dict(f4_betas=list(FIG4), f4_tau_e=[None, None, 10, None, 100, 20])
_MEM = dict(f4_betas=list(FIG4), f4_tau_01=[None, None, 41, None, 66, 241])
_N = dict(sym_paper_nontrivial=40, sym_paper_tori=5, sym_paper_chaotic=30, sym_ov_nontrivial=0)
_LY = dict(a_periodic_with_lambda_gt_1e_3=0, z_periodic_with_lambda_gt_1e_3=0, a_lambda_not_finite=0,
           z_lambda_not_finite=0, a_lambda_near_TOL=9, z_lambda_near_TOL=0, a_n_betas=500, z_n_betas=500)

CLAIMS = [
    Claim("dmft-asymmetric-nonequilibrium", f"{PAPER}, Eqs. 1-3", "Self-attention is a bipartite Hopfield-like "
          "network with asymmetric couplings, so its dynamics is out of equilibrium (no energy function; non-trivial "
          "attractors)",
          measured="The orbits a symmetric coupling forbids (tori, chaos, periods not dividing 2L), over a β grid on "
                   "[0, 3] from the token, in the paper's model and in two controls: output-value symmetrised (W^v := "
                   "W^o on the semantic units: symmetric couplings J) and query-key symmetrised (W^k := W^q)",
          rule=_nonequilibrium,
          how="A symmetric coupling has a Lyapunov function, under which parallel dynamics reaches only fixed points "
              "and 2-cycles (periods dividing 2L under the period-L forcing). The claim is that the asymmetry makes "
              "the other attractors: holds if the paper's model has tori or chaos and symmetrising its couplings "
              "(output-value) removes every forbidden orbit; with differences if the paper's model has forbidden "
              "orbits but only long periods, or the symmetrisation leaves some but fewer than half; refuted if the "
              "paper's model has no forbidden orbit at all, or half or more survive the symmetrisation (then the "
              "asymmetry of J is not what makes them). The query-key control is reported beside it.",
          evidence=("fig-dmft-bifurcation", "fig-dmft-all-values",
                    "tests/test_dynamics_model.py::test_symmetrised_models_have_symmetric_couplings_and_the_papers_forcing",
                    D + "test_orbit_at_beta3_has_period_24"),
          note=lambda s: (f"Paper's model: {_kinds_text(s, 'sym_paper')}; output-value symmetrised: "
                          f"{_kinds_text(s, 'sym_ov')}; query-key symmetrised: {_kinds_text(s, 'sym_qk')}. One orbit "
                          "per β and model, from the token."),
          numbers=lambda s: {"paper: betas with forbidden orbits": s["sym_paper_nontrivial"],
                             "output-value symmetric: betas with forbidden orbits": s["sym_ov_nontrivial"],
                             "query-key symmetric: betas with forbidden orbits": s["sym_qk_nontrivial"],
                             "betas per model": s["sym_paper_n"]},
          examples={"holds": _N, "partly": {**_N, "sym_ov_nontrivial": 3},
                    "fails": {**_N, "sym_ov_nontrivial": 20}}),
    Claim("dmft-path-probability", f"{PAPER}, Eqs. 4-8", "Attention is a softmax conditional with U = N²√M scaling; "
          "the token sequence has an autoregressive path probability whose N → ∞ limit is the mean-field map",
          measured="Log-log slopes of the RMS distance to the map against N at β = 1: binomial class sampler (N = "
                   "1e3-1e7) and the explicit ±1 network sampled unit by unit",
          rule=slope_rule("slope_1", "network_slope"), how=SLOPE_HOW,
          evidence=(F + "test_finite_n_converges_to_mean_field_with_slope_minus_half", "fig-dmft-network"),
          note=lambda s: (f"Slope {s['slope_1']:.2f} with the binomial class sampler and {s['network_slope']:.2f}"
                          + (f" ± {s['network_slope_se']:.2f}" if s.get("network_slope_se") is not None else "")
                          + " with the explicit network (standard error of its fit; the sampler's per-N errors are not "
                          "stored, so its slope is one fit without an error)." + SHARED_SLOPE),
          numbers=lambda s: {"RMS slope at beta = 1, class sampler": s["slope_1"],
                             "RMS slope at beta = 1, explicit network": s["network_slope"],
                             "standard error of the network's slope": s.get("network_slope_se")},
          examples={"holds": {"slope_1": -0.41, "network_slope": -0.59},
                    "partly": {"slope_1": -0.39, "network_slope": -0.5},
                    "fails": {"slope_1": -0.24, "network_slope": -0.5}}),
    Claim("dmft-mean-field-map", f"{PAPER}, Eqs. 9-16", "As N → ∞ the generating functional's saddle point gives a "
          "deterministic low-dimensional map (the σ-expansion of Eq. 16, here a sum over the weights' column classes)",
          measured="Deviation of the σ-expansion of Eq. 16 from the class sum, and of our β = 3 context after 1.2·10⁵ "
                   "steps from the paper code's stored context",
          how="Rests on the tests' asserted bounds: the σ-expansion of Eq. 16 equals the sum over column classes to "
              "1e-14 (test_sigma_expansion_of_eq16_equals_sum_over_column_classes) and the class sum the direct sum "
              "to 1e-15; our β = 3 context after 1.2·10⁵ steps equals the paper code's to 1e-12, and from the token "
              "it lands on that stored context in the right phase (test_cross_check_reference_context_beta3, "
              "test_transient_sensitive_cross_check_from_reference_context: skipped without the paper's reference "
              "data). Round-off of float64 sums, not a tolerance of the theory.",
          evidence=(M + "test_mean_field_sum_over_columns_matches_direct_sum",
                    M + "test_sigma_expansion_of_eq16_equals_sum_over_column_classes",
                    T + "test_numpy_engine_is_map_bit_for_bit_from_token",
                    T + "test_cross_check_reference_context_beta3",
                    T + "test_transient_sensitive_cross_check_from_reference_context"),
          rule=None, tests_grade="holds",
          note="The numbers are the bounds the tests assert, not stored measurements.",
          numbers=lambda s: {"Eq. 16 expansion minus class sum, bound asserted": 1e-14,
                             "beta = 3 context minus the paper code's, bound asserted": 1e-12,
                             "steps of that run": 120_000}),
    Claim("dmft-route-to-chaos", f"{PAPER}, Fig. 3a", "As β grows over [0, 3] the orbit goes from a period-L orbit to "
          "quasi-periodic, chaotic with periodic windows, and periodic again at large β",
          measured="Along Fig. 3a's 4001 β, each orbit by (period found; else λ_max): the share with period L before "
                   "the first torus, the first torus and chaotic β, periodic β between chaotic ones, the share with a "
                   "period at β > 2.5",
          rule=_route,
          how="Holds if the stages come in the paper's order: period L at ≥ 95 % of the β before the first torus "
              "(β = 0 itself has period 1; a period search that misses 1 β in 20 near a bifurcation still counts), "
              "tori before chaos, at least one periodic window between chaotic β, and a period found at ≥ 95 % of the "
              "β > 2.5 (the grid's last sixth, 'large β'); with differences if the windows or the periodic return are "
              "missing; fails if there is no torus, no chaos, no period-L start or chaos comes first. " + LAMBDA_HOW,
          evidence=("fig-dmft-bifurcation", "fig-dmft-all-values", D + "test_classification_rules",
                    S + "test_sweep_from_batched_contexts_matches_single_runs"),
          note=_route_note,
          numbers=lambda s: {"first torus beta": s["a_first_torus_beta"],
                             "first beta with lambda_max > 1e-3": s["a_first_lambda_gt_1e_3_beta"],
                             "tori": s["a_orbits_torus"], "chaotic betas": s["a_orbits_chaotic"],
                             "periodic betas between chaotic ones": s["a_windows"],
                             "share with a period, beta > 2.5": s["a_late_share"],
                             "max lambda_max, beta > 2.5": s["a_late_max_lambda"]},
          examples={"holds": _A, "partly": {**_A, "a_late_share": 0.94},
                    "fails": {**_A, "a_start_period_L_share": 0.94}}),
    Claim("dmft-zoom", f"{PAPER}, Fig. 3b", "In β ∈ [1.24, 1.28] a torus is born near β ≈ 1.244 and breaks up into "
          "chaos interleaved with periodic windows",
          measured="First quasi-periodic β by the paper's bin rule over the zoom's 4001 β; chaotic β (λ_max > 1e-3) "
                   "and periodic β between chaotic ones",
          rule=_zoom,
          how="Holds if the first quasi-periodic β is within 1e-3 of the paper's 1.244 (one unit of the last digit "
              "it quotes) and chaos with periodic windows follows; within 4e-3 (a tenth of the zoom's width), or "
              "without windows: with differences; farther, or no chaos: not reproduced. " + LAMBDA_HOW,
          evidence=("fig-dmft-bifurcation", "fig-dmft-stroboscopic", D + "test_classification_rules",
                    "tests/test_dynamics_rotation.py::test_rotation_number_starts_at_the_neimark_sacker_angle"),
          note=lambda s: (f"Zoom ({s['z_n_betas']} β): first quasi-periodic β = {s['z_first_quasi_periodic_beta']:.4f} "
                          f"by the bin rule (paper ≈ 1.244), first β without a period {s['z_first_torus_beta']:.4f}; "
                          f"{s['z_orbits_chaotic']} chaotic β from {s['z_first_lambda_gt_1e_3_beta']:.4f}, "
                          f"{s['z_windows']} "
                          "periodic β between chaotic ones. One orbit per β (the grid step 1e-5 is the resolution)."),
          numbers=lambda s: {"first quasi-periodic beta (bin rule)": s["z_first_quasi_periodic_beta"],
                             "first beta without a period": s["z_first_torus_beta"],
                             "chaotic betas": s["z_orbits_chaotic"],
                             "periodic betas between chaotic ones": s["z_windows"]},
          examples={"holds": _Z, "partly": {**_Z, "z_first_quasi_periodic_beta": 1.2451},
                    "fails": {**_Z, "z_first_quasi_periodic_beta": 1.2481}}),
    Claim("dmft-bin-rule", f"{PAPER}, Fig. 3 (classification by bin counts)", "Counting occupied bins of m^o_1 (< 80 "
          "periodic, < 2500 quasi-periodic) classifies the orbits",
          measured="Share of β (both diagrams) whose bin-rule class, from the paper's bin count itself, differs from "
                   "the orbit's (period found; else λ_max ≤ or > 1e-3)",
          rule=lambda s: "holds" if _bin_share(s) < 0.01 else "partly" if _bin_share(s) < 0.1 else "fails",
          how="A classification of orbits should be right at 99 of 100 β (the paper colours every β of its diagram "
              "by it): holds if fewer than 1 % of the β are misclassified; below 10 % (nine in ten right: "
              "right for the picture, not for single β): with differences; 10 % or more: not reproduced. The "
              "count is the paper's own at every β (its quantisation of every saved value; a stored diagram with "
              "only bounds of the count leaves the claim not tested). " + LAMBDA_HOW,
          evidence=("fig-dmft-bins-vs-lyapunov", S + "test_bin_count_bounds_bracket_the_papers_exact_count"),
          note=_bin_note,
          numbers=lambda s: {"misclassified share": round(_bin_share(s), 4),
                             "fig3a misclassified": s["a_misclassified"], "fig3b misclassified": s["z_misclassified"],
                             "fig3a confusion": s["a_confusion"], "fig3b confusion": s["z_confusion"],
                             "fig3a quasi with period > 80": s["a_quasi_with_period_gt_80"],
                             "fig3b quasi with period > 80": s["z_quasi_with_period_gt_80"]},
          examples={"holds": _B, "partly": {**_B, "a_misclassified": 10},
                    "fails": {**_B, "a_misclassified": 100}}),
    Claim("dmft-planes", f"{PAPER}, Fig. 4", "At β = 1.255, 1.26405 the orbit is a closed invariant curve, at 1.266 "
          "chaotic, at 1.27 periodic, at 1.28 and 1.4 chaotic",
          measured="λ_max and the period at the six β of Fig. 4, run 1.2·10⁵ steps from the paper's stored β = 1.28 "
                   "context (and from ours)",
          rule=_planes,
          how="Each β's orbit must be the paper's kind: periodic (a period found), torus (none, |λ_max| ≤ 1e-3) or "
              "chaotic (none, λ_max > 1e-3). Holds if all six match from the paper's stored context; with "
              "differences if they match only from our own context (the paper's is not available and the attractor "
              "depends on the start); any mismatch: not reproduced. " + LAMBDA_HOW,
          evidence=("fig-dmft-planes", T + "test_lyapunov_signs_at_fig4_betas"),
          note=_planes_note, numbers=_planes_numbers,
          examples={"holds": _P, "partly": {**_P, "f4_start": "ours"},
                    "fails": {**_P, "f4_lyapunov": [2e-3, -1e-5, 0.1, -0.05, 0.15, 0.08]}}),
    Claim("dmft-spectra", f"{PAPER}, Fig. 5", "Quasi-periodic orbits have a line spectrum and a recurring "
          "autocorrelation; chaotic ones a broadband spectrum and a decaying autocorrelation",
          measured="Lag at which the envelope of the autocorrelation of m^o_1 (forced part removed) falls below 1/e, "
                   "within 2000 lags, at β = 1.26405 (torus) and 1.28 (chaos)",
          rule=_spectra,
          how="Holds if the torus's envelope never falls below 1/e within 2000 lags (a line spectrum) and the chaotic "
              "one's does within 100 steps (25 forcing periods: a broadband spectrum has a correlation time of a few "
              "periods); decaying only after more than 100 steps (a near-line spectrum): with differences; the "
              "torus's decaying or the chaotic one's not: not reproduced.",
          evidence=("fig-dmft-time-series", D + "test_envelope_decay_time_of_damped_and_undamped_oscillations"),
          note=lambda s: ("Envelope below 1/e: " + ", ".join(
              f"β = {b:g}: {'never within 2000 lags' if t is None else f'after {t:.0f} steps'}"
              for b, t in zip(s["f4_betas"], s["f4_tau_e"])) + " (the whole saved series). "
              + _windows_text(s, "f4_tau_e_windows", lambda v: f"{v:.0f}",
                              f"the 1/e decay time within {s.get('f4_window_lag', '?')} lags (steps)")),
          numbers=lambda s: {f"1/e decay time at beta = {b:g} (steps)": _steps(t)
                             for b, t in zip(s["f4_betas"], s["f4_tau_e"])},
          examples={"holds": _S, "partly": {**_S, "f4_tau_e": [None, None, 10, None, 101, 20]},
                    "fails": {**_S, "f4_tau_e": [None, 900, 10, None, 11, 20]}}),
    Claim("dmft-memory", f"{PAPER}, Fig. 5 and discussion", "The generated sequence keeps a memory of its past "
          "beyond the context window",
          measured="Lag at which the envelope of the autocorrelation falls below 0.1 at the chaotic β of Fig. 4 "
                   "(1.266, 1.28, 1.4), against the context length L = 4",
          rule=_memory,
          how="The context is rewritten every L = 4 steps: holds if every chaotic orbit keeps correlations above 0.1 "
              "for more than 10 L = 40 steps (ten complete rewrites of the context); beyond L only: with "
              "differences; within L at some β (no memory beyond the window): not reproduced. Tori never decay.",
          evidence=("fig-dmft-time-series", D + "test_envelope_decay_time_of_damped_and_undamped_oscillations"),
          note=lambda s: ("Envelope below 0.1 after " + ", ".join(
              f"β = {b:g}: {'> 2000' if t is None else f'{t:.0f}'} steps"
              for b, t in zip(s["f4_betas"], s["f4_tau_01"]))
              + " (the whole saved series); the context holds L = 4 tokens. "
              + _windows_text(s, "f4_tau_01_windows", lambda v: f"{v:.0f}",
                              f"the 0.1 decay time within {s.get('f4_window_lag_01', '?')} lags (steps)")),
          numbers=lambda s: {**{f"0.1 decay time at beta = {b:g} (steps)": _steps(t)
                                for b, t in zip(s["f4_betas"], s["f4_tau_01"])}, "context length L": L},
          examples={"holds": _MEM, "partly": {**_MEM, "f4_tau_01": [None, None, 40, None, 66, 241]},
                    "fails": {**_MEM, "f4_tau_01": [None, None, 41, None, 4, 241]}}),
    Claim("dmft-finite-n", f"{PAPER}, mean-field limit N → ∞", "The finite network approaches the mean-field map as N "
          "grows",
          measured="Log-log slopes of the RMS distance of the binomial class sampler to the map against N = 1e3-1e7 "
                   "at a fixed time, at β = 1 and β = 3",
          rule=slope_rule("slope_1", "slope_3"), how=SLOPE_HOW,
          evidence=("fig-dmft-finite-n", "fig-dmft-finite-n-diagrams",
                    F + "test_finite_n_converges_to_mean_field_with_slope_minus_half"),
          note=lambda s: (f"Slope {s['slope_1']:.2f} at β = 1; at β = 3 {s['slope_3']:.2f} over N = {s['n_min']:.0e}-"
                          f"{s['n_max']:.0e}, {s['slope_3_large']:.2f} without the smallest N (that point is off the "
                          "orbit's phase). One fit per β (the per-N errors are not stored, so no fit error). The "
                          "diagrams at N = 1e7 still miss narrow periodic windows and chaos starts earlier "
                          "(noise-induced chaos)." + SHARED_SLOPE),
          numbers=lambda s: {"RMS slope at beta = 1": s["slope_1"], "RMS slope at beta = 3": s["slope_3"],
                             "RMS slope at beta = 3 without the smallest N": s["slope_3_large"],
                             "smallest N": s["n_min"], "largest N": s["n_max"]},
          examples={"holds": {"slope_1": -0.5, "slope_3": -0.59}, "partly": {"slope_1": -0.5, "slope_3": -0.61},
                    "fails": {"slope_1": -0.24, "slope_3": -0.5}}),
    Claim("dmft-lyapunov", "ours (Benettin et al. 1980 applied to the map)", "The largest Lyapunov exponent of the "
          "tangent map classifies every orbit of both diagrams", origin="ours",
          measured="Over both diagrams' 8002 β: β with a period found but λ_max > 1e-3, non-finite λ_max, and β "
                   "without a period whose |λ_max| lies within a decade of 1e-3 (1e-4 to 1e-2)",
          rule=_lyapunov,
          how="Holds if λ_max never contradicts a found cycle (λ > 1e-3 with a period), is finite everywhere and "
              "leaves fewer than 1 % of the β within a decade of the threshold (where one window's estimate cannot "
              "place an orbit firmly); fewer than 10 %: with differences; a contradiction, a non-finite λ or 10 % "
              "or more near the threshold: refuted. " + LAMBDA_HOW,
          evidence=("fig-dmft-bifurcation", "fig-dmft-bins-vs-lyapunov",
                    T + "test_lyapunov_matches_finite_difference_growth"),
          note=lambda s: (f"λ_max > 1e-3 at {s['a_lambda_gt_1e_3']} β of Fig. 3a and {s['z_lambda_gt_1e_3']} of the "
                          f"zoom; {s['a_periodic_with_lambda_gt_1e_3'] + s['z_periodic_with_lambda_gt_1e_3']} β with a "
                          f"period have λ_max > 1e-3; {s['a_lambda_near_TOL'] + s['z_lambda_near_TOL']} β without a "
                          f"period ({_lyapunov_share(s):.1%} of all) lie within a decade of 1e-3. One window per β "
                          "(no window-to-window spread is stored)."),
          numbers=lambda s: {"fig3a betas with lambda_max > 1e-3": s["a_lambda_gt_1e_3"],
                             "fig3b betas with lambda_max > 1e-3": s["z_lambda_gt_1e_3"],
                             "periodic betas with lambda_max > 1e-3": s["a_periodic_with_lambda_gt_1e_3"]
                             + s["z_periodic_with_lambda_gt_1e_3"],
                             "share of betas with |lambda_max| in (1e-4, 1e-2), no period":
                                 round(_lyapunov_share(s), 4)},
          examples={"holds": _LY, "partly": {**_LY, "a_lambda_near_TOL": 10},
                    "fails": {**_LY, "z_periodic_with_lambda_gt_1e_3": 1}}),
    Claim("dmft-coexistence", "ours", "Several attractors coexist at the same β; which one is reached depends on the "
          "initial context (the prompt)", origin="ours",
          measured="β of a 1001-point grid over [1.2, 1.45] where runs from four starting contexts reach attractors "
                   "that differ as sets, on dense stroboscopic sections (10⁴ points: period, coverage at the "
                   "sections' resolution, radius, rotation number of tori)",
          rule=_coexist,
          how="Holds if different attractors are reached at 10 or more β (1 % of the grid: an interval of "
              "coexistence, not isolated grid points where the set comparison could misfire near a bifurcation); "
              "at 1 to 9 β: with differences; at none: refuted. Sections of fewer than 10⁴ points (the comparison "
              "on the last 500, before 0.3) leave it not tested: they call one torus with ρ near p/q two.",
          evidence=("fig-dmft-coexisting", "fig-dmft-planes",
                    D + "test_attractor_distance_separates_two_circles_not_two_samples_of_one"),
          note=lambda s: (f"{s['coexist_n']} of {s['coexist_total']} β reach different attractors (as sets) from "
                          f"{s['coexist_starts']} starting contexts (the attractors at β = "
                          f"{s['coexist_start_betas']}); "
                          f"at {s['coexist_tori']} of them two different tori coexist ({s['coexist_points']} "
                          f"stroboscopic points per section; the former comparison on the last 500 points flagged "
                          f"{s.get('coexist_n_last_500', '?')} β). One run per start and β."),
          numbers=lambda s: {"betas with different attractors": s["coexist_n"], "betas on the grid": s["coexist_total"],
                             "betas with two different tori": s["coexist_tori"],
                             "starting contexts": s["coexist_starts"],
                             "start betas": s["coexist_start_betas"]},
          examples={"holds": {"coexist_n": 10, "coexist_points": DENSE},
                    "partly": {"coexist_n": 9, "coexist_points": DENSE},
                    "fails": {"coexist_n": 0, "coexist_points": DENSE}}),
]
CLAIMS = [ledger_safe(c) for c in CLAIMS]
DECLARED = {"dmft": CLAIMS + BEYOND}


def record(run, root: Path | None) -> list:
    """Record the paper's figure claims (:data:`CLAIMS`; the beyond section records its own with
    :func:`record_beyond`), each decided by its rule from the stored full-profile numbers."""
    return verdicts.record_chapter(run, root, "dmft", CLAIMS)
