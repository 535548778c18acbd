"""Chapter 6's claims on Poc-López & Aguilera (2024), each declared with the rule that decides it from the stored
full profile and its premises (quote, thresholds with reasons checked against the stored numbers, alternatives,
spread: :mod:`mfattn.companion.premises`).

The full profile writes ``data/full/dmft/fig3{a,b}_sections.npz`` (:func:`mfattn.dynamics.sweep.save_diagram`),
``data/full/dmft/summary.json`` (:func:`mfattn.dynamics.verdict_numbers.summary`: Fig. 4 and 5, coexistence,
finite N, the symmetric control) and ``data/full/dmft/beyond.json`` (the "Beyond the paper" section).
:func:`full_numbers` reads them, :func:`glue_values` turns them into the strings the chapter's prose shows,
:func:`stored_numbers` flattens them for the rules (all in :mod:`.claims_stored`). Orbits are classed by
:mod:`.claims_lambda`. This module declares the claim on the finite-N limit and gathers the others;
:mod:`.claims_diagrams` declares those on the two diagrams (re-exported here);
:mod:`.claims_couplings` those on the couplings (the paper's asymmetric model and our symmetrisations);
:mod:`.claims_fig4` those on single orbits and on the classification; :mod:`.claims_beyond` the beyond section's.
:data:`DECLARED` holds them all; :func:`record` records the paper's figure claims (:data:`CLAIMS`) at the chapter's
end, :func:`record_beyond` the beyond section's.
"""

from __future__ import annotations

from pathlib import Path

from ..companion import verdicts
from ..companion.checks import check_bool, check_choice, check_edges, check_real  # noqa: F401
from ..companion.premises import Alternative, Spread, Threshold
from ..companion.verdicts import Claim, Undecidable  # noqa: F401
from . import claims_lambda as lam_  # noqa: F401
from .claims_beyond import BEYOND, FIG4, MISSING, PAPER, SHARED_SLOPE, SLOPE_HOW, beyond_full_numbers, glue_values, \
    ledger_safe, plateau_summary, record_beyond, slope_rule, slope_thresholds
from .claims_map import MAP
from .claims_limit import HORIZON_ALTERNATIVE, HORIZON_CUT, HORIZON_HOW, _horizon_slope, _se, horizon_at, \
    horizon_note  # noqa: F401
from .claims_couplings import CLAIMS_COUPLINGS
from .claims_diagrams import (_BINS, _GRADUAL, _JUMP, _ROUTE, _ROUTE_LAM, _ROUTE_PER, _START, CLAIMS_DIAGRAMS,  # noqa: F401
                              DEEP, JUMP, ZOOM, _bin_numbers, _blip_text, _census_bins_text, _chains, _classes,
                              _from_first_chaos, _grids_check, _long_route, _long_text, _onset_text, _orbits_example,
                              _route_note, _stages, _stages_of, bin_rule_at, route_at)
from .claims_fig4 import CLAIMS_FIG4, KINDS  # noqa: F401
from .claims_quotes import QUOTES
from .claims_stored import check_run
from .claims_stored import LATE, NOT_RUN, NOT_RUN_SHORT, REMEDY, TOL, L, _diagram, _flat, _slope_and_error, full_numbers, \
    stored_numbers  # noqa: F401
from .diagnostics import classify  # noqa: F401

__all__ = ["full_numbers", "stored_numbers", "glue_values", "MISSING", "CLAIMS", "DECLARED", "record", "record_beyond",
           "beyond_full_numbers", "plateau_summary", "FIG4", "TOL"]

T = "tests/test_dynamics_engine.py::"
M = "tests/test_dynamics_model.py::"
D = "tests/test_dynamics_diagnostics.py::"
S = "tests/test_dynamics_sweep.py::"
F = "tests/test_dynamics_finite_n.py::"


def _cut_slope(s) -> str:
    """The chaotic β's slope over the N inside the linear regime (the rule's fit) with its standard error, for the
    ledger."""
    from .claims_limit import _inside
    keep = _inside(s, 10, HORIZON_CUT)
    if len(keep) < 3:
        return "none: fewer than three N inside"
    slope, se = _slope_and_error([s["error_ns"][i] for i in keep], [s["horizon_errors_10"][i] for i in keep])
    return f"{slope:.3f} ± {se:.3f}"


def _horizon_example(errs) -> dict:
    """Stored finite-N numbers with the chaotic β's errors at t = 10 over N = 10⁵-10⁷ given by ``errs``."""
    return {"error_ns": [10**5, 10**6, 10**7], "horizon_errors_10": list(errs), "horizon_errors_40": [0.5, 0.4, 0.1],
            "horizon_beta": 1.28, "slope_1": -0.5, "network_slope": -0.5, "network_errors": [0.1, 0.0316, 0.01],
            "f4_betas": [1.28], "f4_lyapunov": [0.14]}


CLAIMS = CLAIMS_COUPLINGS + [
    Claim("dmft-path-probability", f"{PAPER}, Eqs. 4-8 and §5", "The token sequence has an autoregressive path "
          "probability (each token drawn given the context, attention a softmax conditional) whose statistics are "
          "exact in the mean-field map as N → ∞", quote=QUOTES["dmft-path-probability"],
          reading="the limit at a fixed time t; the logits' scale U = N²√M is the paper's definition (map and network "
                  "use the same one), so nothing here tests it. Not independent of dmft-finite-n and "
                  "dmft-network-limit (the same finite-N runs): this row is decided on the hardest case of them, a "
                  "chaotic β inside the horizon, where the statistics of a path, not of a stable orbit, are tested",
          measured="Log-log slope of the RMS distance of the binomial class sampler (the network's law) to the map "
                   "against N at the chaotic β = 1.28 and t = 10, over the N inside the linear regime (N^-1/2 e^{λt} "
                   "< 0.05, λ the stored λ_max at 1.28: N = 10⁴-10⁷); at β = 1 (the stable period-4 orbit) the class "
                   "sampler's and the explicit ±1 network's slopes as an alternative",
          rule_at=lambda band, weak, cut: horizon_at(band, weak, cut, one_sided=True),
          thresholds=slope_thresholds() + (
              Threshold("cut", HORIZON_CUT, "convention", "the linear regime, fixed before looking: a perturbation "
                        "of order N^-1/2 grown by e^{λt} still under 5 % of order one"),),
          alternatives=(Alternative("the stable β = 1 at t = 39: the class sampler's and the explicit network's slopes "
                                    "(the evidence dmft-finite-n and dmft-network-limit also use)", "unit",
                                    slope_rule("slope_1", "network_slope")),
                        Alternative("the rate read two-sided: a slope steeper than −1/2 by more than the band counts "
                                    "as a difference", "reading", horizon_at()),
                        Alternative("the chaotic β fitted over the three largest N (10⁵-10⁷)", "statistic",
                                    horizon_at(largest=3, one_sided=True)),
                        Alternative("the chaotic β fitted over all five stored N", "statistic",
                                    horizon_at(cut=float("inf"), one_sided=True)),
                        Alternative("the text's reading: the error decreases as N grows (both β = 1 slopes below "
                                    "zero), the rate not asked", "reading",
                                    lambda s: "holds" if s["slope_1"] < 0 and s["network_slope"] < 0 else "fails")),
          spread=Spread("network size N (the class sampler at the chaotic β, t = 10; the explicit network at β = 1)",
                        lambda s: {"RMS error at beta = 1.28, t = 10": s["horizon_errors_10"],
                                   "RMS error of the explicit network at beta = 1": s["network_errors"]}),
          how=SLOPE_HOW + " Here the band is read one-sided: the text claims the limit, and a fall faster than "
              "N^-1/2 (the chaotic β's errors drop 7.3-fold from N = 10⁴ to 10⁵, against √10 = 3.2 per decade later: "
              "the first decade is still leaving the nonlinear regime) is no difference from it; the two-sided band is "
              "tried as a reading. The logits' scale U = N²√M is the paper's definition, the same in the map and the "
              "network: it is not tested. " + HORIZON_HOW,
          evidence=(F + "test_finite_n_converges_to_mean_field_with_slope_minus_half", "fig-dmft-network"),
          note=lambda s: (horizon_note(s) + f"At β = 1: slope {s['slope_1']:.2f}" + _se(s, "slope_1_se")
                          + " with the binomial class sampler and " f"{s['network_slope']:.2f}"
                          + _se(s, "network_slope_se") + " with the explicit network (standard errors of the fits over "
                          "N)." + SHARED_SLOPE),
          numbers=lambda s: {"RMS slope at beta = 1.28, t = 10, three largest N": round(_horizon_slope(s), 3),
                             "RMS slope at beta = 1.28, t = 10, inside the linear regime": _cut_slope(s),
                             "RMS slope at beta = 1, class sampler": s["slope_1"],
                             "RMS slope at beta = 1, explicit network": s["network_slope"]},
          examples={"holds": _horizon_example([0.1, 0.0316, 0.01]),          # slope −0.5
                    "partly": _horizon_example([0.1, 0.0447, 0.02]),         # slope −0.35 (standard error 0)
                    "fails": _horizon_example([0.1, 0.0708, 0.05])}),          # slope −0.15
    MAP,
    *CLAIMS_DIAGRAMS,
] + CLAIMS_FIG4
CLAIMS = [ledger_safe(c) for c in CLAIMS]
DECLARED = {"dmft": CLAIMS + BEYOND}


def record(run, root: Path | None) -> list:
    """Record the paper's figure claims (:data:`CLAIMS`; the beyond section records its own with
    :func:`record_beyond`), each decided by its rule from the stored full-profile numbers."""
    check_run(run)
    return verdicts.record_chapter(run, root, "dmft", CLAIMS)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
