"""Chapter 6's verdicts on the claims of Poc-López & Aguilera (2024), read from the stored full profile.

Each verdict states what the **full-profile** results support: the stored figures
(``data/full/figures/fig-dmft-*``) and the stored diagrams ``data/full/dmft/fig3{a,b}_sections.npz``
(keys documented in :func:`mfattn.dynamics.sweep.save_diagram`). :func:`full_numbers` reads the
numbers behind them; :func:`record` hands every verdict to ``run.verdict``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["full_numbers", "CLAIMS", "record"]

PAPER = "Poc-López & Aguilera 2024"


def full_numbers(root: Path) -> dict:
    """Counts from the stored 4001-β diagrams: bin-rule classes, λ_max signs, onsets. {} if absent."""
    out = {}
    for key in ("fig3a", "fig3b"):
        path = root / "data" / "full" / "dmft" / f"{key}_sections.npz"
        if not path.exists():
            return {}
        with np.load(path) as d:
            b, c, lam = d["betas"], d["classes"], d["lyapunov"]
        out[key] = {"n_betas": int(b.size), "periodic": int((c == 0).sum()), "quasi-periodic": int((c == 1).sum()),
                    "chaotic": int((c == 2).sum()), "lambda>1e-3": int((lam > 1e-3).sum()),
                    "quasi with lambda>1e-3": int(((c == 1) & (lam > 1e-3)).sum()),
                    "chaotic with lambda<1e-3": int(((c == 2) & (lam < 1e-3)).sum()),
                    "first quasi-periodic beta": float(b[np.argmax(c == 1)]),
                    "first chaotic beta": float(b[np.argmax(c == 2)])}
        if key == "fig3a":
            out[key]["max lambda for beta>2.5"] = float(lam[b > 2.5].max())
    return out


T = "tests/test_dynamics_engine.py::"
# claim id, source, claim, verdict, evidence, key of full_numbers (or None), note
CLAIMS = [
    ("dmft-mean-field-map", f"{PAPER}, mean-field equations", "As N → ∞ the token statistics of the 1-bit self-attention layer "
     "obey a deterministic low-dimensional map (sums over the weights' column classes)", "reproduced",
     ["tests/test_dynamics_model.py::test_mean_field_sum_over_columns_matches_direct_sum",
      T + "test_numpy_engine_is_map_bit_for_bit_from_token", T + "test_cross_check_reference_context_beta3"], None,
     "Our β = 3 context after 1.2e5 steps equals the one stored by the paper's code to 1e-12."),
    ("dmft-route-to-chaos", f"{PAPER}, Fig. 3a", "As β grows over [0, 3] the orbit goes from a period-L orbit "
     "to quasi-periodic, chaotic with periodic windows, and periodic again at large β", "reproduced",
     ["fig-dmft-bifurcation"], "fig3a", "Full profile, 4001 β × 1.2e5 steps; no β > 2.5 is chaotic."),
    ("dmft-zoom", f"{PAPER}, Fig. 3b", "In β ∈ [1.24, 1.28] a torus is born near β ≈ 1.244 and breaks up "
     "into chaos interleaved with periodic windows", "reproduced", ["fig-dmft-bifurcation", "fig-dmft-poincare"],
     "fig3b", "Full profile, 4001 β."),
    ("dmft-bin-rule", f"{PAPER}, Fig. 3 (classification by bin counts)", "Counting occupied bins of m^o_1 (< 80 periodic, "
     "< 2500 quasi-periodic) classifies the orbits", "reproduced with differences",
     ["fig-dmft-bins-vs-lyapunov"], "fig3b", "Every β the rule calls chaotic has λ_max > 1e-3, but some it calls "
     "quasi-periodic are weakly chaotic (λ_max > 1e-3): the rule errs towards quasi-periodic."),
    ("dmft-planes", f"{PAPER}, Fig. 4", "At β = 1.255, 1.26405 the orbit is a closed invariant curve, at 1.266 "
     "chaotic, at 1.27 periodic, at 1.28 and 1.4 chaotic", "reproduced",
     ["fig-dmft-planes", T + "test_lyapunov_signs_at_fig4_betas"], None,
     "Full profile: λ_max = -7e-6, -1e-5 (tori), +0.072, -0.048 (period 28), +0.149, +0.070."),
    ("dmft-spectra-memory", f"{PAPER}, Fig. 5", "Quasi-periodic orbits have a line spectrum and a recurring "
     "autocorrelation (lasting memory); chaotic ones a broadband spectrum and a decaying autocorrelation",
     "reproduced", ["fig-dmft-time-series"], None, "Read from the stored full-profile figure."),
    ("dmft-lyapunov", "new (Benettin et al. 1980 applied to the map)", "The largest Lyapunov exponent of the "
     "tangent map classifies every orbit of both diagrams", "extends",
     ["fig-dmft-bifurcation", "fig-dmft-bins-vs-lyapunov", T + "test_tangent_step_is_the_maps_derivative"],
     "fig3a", ""),
    ("dmft-coexistence", "new", "Several attractors coexist at the same β; which one is reached depends on the "
     "initial context (the prompt)", "extends", ["fig-dmft-coexisting"], None,
     "Full profile (1001 β, four contexts): the start matters only in a few narrow bands of β."),
    ("dmft-finite-n", f"{PAPER}, mean-field limit N → ∞", "The finite network approaches the mean-field "
     "map as N grows", "reproduced",
     ["fig-dmft-finite-n", "fig-dmft-finite-n-diagrams",
      "tests/test_dynamics_finite_n.py::test_finite_n_converges_to_mean_field_with_slope_minus_half"],
     None, "Full profile: RMS error at t = 39 falls as N^-0.50 at β = 1; at β = 3 it is O(1) at N = 1e3, "
     "then falls faster (fitted slope -0.73)."),
]


def record(run, root: Path | None) -> None:
    """Call ``run.verdict`` for every claim, with the stored full-profile numbers where they exist."""
    numbers = full_numbers(root) if root is not None else {}
    for claim_id, source, claim, verdict, evidence, key, note in CLAIMS:
        nums = numbers.get(key) if key else None
        if key and nums is None:
            note = (note + " " if note else "") + "The stored full-profile diagrams were not found here."
        run.verdict(claim_id, source, claim, verdict, evidence, numbers=nums, note=note)
