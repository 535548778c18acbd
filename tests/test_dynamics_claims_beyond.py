"""Chapter 6's 'Beyond the paper' claims (mfattn.dynamics.claims_beyond): decided by their rules from the
stored beyond.json, each able to come out negative."""

import json
import math

import numpy as np
import pytest

from mfattn.companion import store, verdicts
from mfattn.dynamics import claims, claims_beyond

#: beyond.json as the notebook's full profile writes it (keys of today's notebook included)
FULL = {"ns_beta": 1.2434, "ns_angle": 1.52, "ns_rotation": 0.242, "rho_birth": 0.242, "tongue_locked": 0.1,
        "plateaus": [{"fraction": "2/7", "beta_lo": 1.267, "beta_hi": 1.2736, "rho": 2 / 7, "points": 661, "runs": 1,
                      "strobe_cycles": [7, 14], "lambda_max": -0.002},
                     {"fraction": "1/4", "beta_lo": 1.2495, "beta_hi": 1.2509, "rho": 0.25, "points": 144, "runs": 1,
                      "strobe_cycles": [4], "lambda_max": -0.01},
                     {"fraction": "5/17", "beta_lo": 1.26, "beta_hi": 1.2602, "rho": 5 / 17, "points": 21, "runs": 1,
                      "strobe_cycles": [17], "lambda_max": -0.003}],   # 1/4 → 5/17 → 2/7: not monotone
        "plateaus_b": [], "staircase_branches": 12,
        "spectrum_max": [0.15, -6e-5, -0.08, -0.29],
        "basins_multi": ["β = 1.27 (period 28, 88% and period 56, 12%)"], "basin_n_betas": 6, "basin_contexts": 256,
        "basin_smallest_fraction": 0.12, "network_slope": -0.51, "network_chi2_z": 0.4,
        "network_errors": [0.3, 0.095, 0.03, 0.0095], "network_ns": [99, 990, 9900, 99000],
        "tongue_locked_by_eps": [0.0, 0.02, 0.05, 0.08], "tongue_epsilons": [0.0, 0.02, 0.04, 0.08],
        "tongue_n_betas": 6, "tongue_widths": {"1/3": [0, 3, 9, 19], "2/7": [0, 2, 4, 4], "1/7": [0, 0, 1, 2],
                                               "1/5": [2, 0, 0, 0], "2/15": [1, 0, 0, 0]},
        # the grid itself (runs from 0.4 on): rows ε, columns β; at ε = 0 a circle whose ρ₀ crosses 2/7 and 1/3 (the
        # two regions locked over 2 points at ε = 0.02 can open from it)
        "tongue_betas": [1.2, 1.22, 1.24, 1.26, 1.28, 1.3],
        "tongue_rho": [[0.24, 0.27, 0.30, 0.32, 0.34, 0.36]] + [[0.3] * 6] * 3,
        "tongue_lyapunov": [[1e-5] * 6] + [[-0.1] * 6] * 3, "tongue_locked_grid": [[0] * 6] + [[1] * 6] * 3}
_CHAOS_AT_3 = [[1e-5, 1e-5, 0.1, 1e-5, 1e-5, 1e-5]] + [[-0.1] * 6] * 3   # the 3rd β at ε = 0 chaotic, not a circle


def _zoom(folder):
    """A stored zoom (and Fig. 3a alike; 4001 β over [1.24, 1.28], step 1e-5) as the chapter's sweep saves it: the
    period-4 orbit up to FULL's crossing (1.2434), tori (λ ≈ 0) up to 1.268 whose stroboscopic states span
    ±√(0.37 (β − 1.2434)) in m^o_1 (a circle born at the crossing), chaos after: the rules of the staircase
    (plateaus before the torus breaks up) and of the torus birth (the circle's radius past the crossing) read it."""
    b = np.linspace(1.24, 1.28, 4001)
    per = np.where(b <= 1.2434, 4, 0)
    lam = np.where(b <= 1.2434, -0.01, np.where(b < 1.268, 1e-5, 0.1))
    levels = 2 ** 14
    r = np.sqrt(np.clip(0.37 * (b - 1.2434), 0, None))
    lo, hi = (np.rint((0.1 + x + 1) / 2 * (levels - 1)).astype(np.uint16) for x in (-r, r))
    strobe = [np.array([a]) if a == c else np.array([a, c]) for a, c in zip(lo, hi)]
    for key in ("fig3a", "fig3b"):   # Fig. 3a's chain the same over the window: two start chains
        np.savez(folder / f"{key}_sections.npz", betas=b, lyapunov=lam, period=per, classes=np.zeros(b.size, int),
                 bin_counts=np.full(b.size, 10), paper_counts=np.where(per > 0, 10, np.where(lam > 1e-3, 3000, 100)),
                 strobe=np.concatenate(strobe), strobe_sizes=np.array([x.size for x in strobe]),
                 levels=np.int64(levels))


def _decide(beyond, tmp_path):
    folder = tmp_path / "data" / "full" / "dmft"
    folder.mkdir(parents=True, exist_ok=True)
    _zoom(folder)
    store.atomic_write_json(folder / "beyond.json", store.finite_or_none(beyond))  # as the chapter writes it
    ids = {c.id for c in claims_beyond.BEYOND}
    return {c.id: d.verdict for c, d in verdicts.decide_chapter(tmp_path, "dmft") if c.id in ids}


def test_stored_beyond_numbers_decide_the_verdicts(tmp_path):
    got = _decide(FULL, tmp_path)
    # the spectrum rests on one run (only its maxima over the grid are stored): at best with differences
    assert got == {"dmft-floquet-neimark-sacker": "confirmed", "dmft-lyapunov-spectrum": "confirmed with differences",
                   "dmft-devils-staircase": "confirmed", "dmft-arnold-tongues": "confirmed",
                   "dmft-basins": "confirmed", "dmft-torus-birth-floquet": "reproduced",
                   "dmft-network-limit": "reproduced"}


@pytest.mark.parametrize("change, claim_id, verdict", [
    ({"ns_beta": 1.2801}, "dmft-torus-birth-floquet", "not reproduced"),         # outside the printed window
    ({"ns_beta": 1.2399}, "dmft-torus-birth-floquet", "not reproduced"),
    ({"ns_beta": 1.2432}, "dmft-torus-birth-floquet", "reproduced with differences"),  # the circle born 20 steps on
    ({"ns_beta": 1.24345}, "dmft-torus-birth-floquet", "reproduced"),             # ... 5 steps before it
    ({"ns_beta": float("nan")}, "dmft-torus-birth-floquet", "not reproduced"),   # no crossing found
    ({"ns_angle": math.pi}, "dmft-floquet-neimark-sacker", "refuted"),            # a flip, not Neimark-Sacker
    ({"ns_angle": math.pi / 2}, "dmft-floquet-neimark-sacker", "confirmed with differences"),  # 1:4 resonance
    ({"spectrum_max": [0.15, 0.05]}, "dmft-lyapunov-spectrum", "refuted"),        # a second unstable direction
    ({"spectrum_max": [5e-4, -0.1]}, "dmft-lyapunov-spectrum", "refuted"),        # no chaos on the grid
    ({"rho_birth": 0.25}, "dmft-devils-staircase", "refuted"),                    # not the Neimark-Sacker angle
    ({"plateaus": []}, "dmft-devils-staircase", "refuted"),
    ({"plateaus_b": [{**FULL["plateaus"][1], "beta_lo": 1.255}, {**FULL["plateaus"][0], "beta_lo": 1.26}]},
     "dmft-devils-staircase", "confirmed with differences"),                     # a second branch that rises: 1/4, 2/7
    ({"plateaus": [FULL["plateaus"][0]]}, "dmft-devils-staircase", "confirmed with differences"),  # one fraction
    ({"plateaus": FULL["plateaus"][:2]}, "dmft-devils-staircase", "refuted"),   # 1/4 → 2/7 rises: a staircase
    ({"plateaus": [{**FULL["plateaus"][0], "beta_lo": 1.269}]}, "dmft-devils-staircase", "refuted"),  # none on the
    # torus (the 2/7 plateau after the breakup at 1.268, the stored zoom's first chaotic β)
    ({"tongue_rho": [[0.20, 0.21, 0.22, 0.23, 0.24, 0.25]] + [[0.3] * 6] * 3}, "dmft-arnold-tongues",
     "refuted"),                                                   # the ε = 0 circle never reaches 1/3: no tongue
    ({"tongue_lyapunov": _CHAOS_AT_3}, "dmft-arnold-tongues",
     "confirmed with differences"),                                # 2/7 crossed only where the circle is broken
    ({"tongue_widths": {"1/3": [0, 3, 9, 19]}}, "dmft-arnold-tongues",
     "confirmed with differences"),                                # one region: one unit, at best with differences
    ({"tongue_rho": None}, "dmft-arnold-tongues", "not tested"),   # a run before 0.4: widths only
    ({"plateaus": [{"fraction": "1/4", "beta_lo": 1.25, "beta_hi": 1.26, "rho": 0.25, "points": 5}]},
     "dmft-devils-staircase", "not tested"),                                       # ρ near 1/4 only: not a cycle
    ({"basins_multi": ["a (x, 50%)"] * 3}, "dmft-basins", "refuted"),             # coexistence at half the β
    ({"basin_smallest_fraction": 0.01}, "dmft-basins", "confirmed with differences"),  # 2.6 of 256 contexts
    ({"network_slope": -0.2}, "dmft-network-limit", "not reproduced"),
    ({"network_chi2_z": 5.0}, "dmft-network-limit", "not reproduced"),
    ({"network_slope": -0.7}, "dmft-network-limit", "reproduced with differences"),
])
def test_each_beyond_claim_can_come_out_otherwise(tmp_path, change, claim_id, verdict):
    assert _decide({**FULL, **change}, tmp_path)[claim_id] == verdict


def test_a_root_without_beyond_json_says_not_tested(tmp_path):
    run = []

    class Run:
        def verdict(self, claim_id, source, claim, verdict, evidence, numbers=None, note="", **kw):
            run.append((claim_id, verdict, note))

    claims.record_beyond(Run(), tmp_path)
    assert len(run) == len(claims_beyond.BEYOND) and all(v == "not tested" and "reproduce" in n for _, v, n in run)


def test_beyond_numbers_read_the_basins_and_the_network_fit():
    old = {k: v for k, v in FULL.items() if k not in ("basin_n_betas", "basin_contexts", "basin_smallest_fraction",
                                                       "network_ns")}
    old["basins_multi"] = ["β = 1.27 (period 28, 80% and period 56, 18% and period 16, 1%)"]
    params = {"basin_betas": [1.0, 1.27, 1.3], "basin_contexts": 200, "network_ns": [10, 100, 1000, 10000]}
    n = claims_beyond.beyond_numbers(old, params)
    assert n["basin_n_betas"] == 3 and n["n_multi"] == 1
    assert n["smallest_basin_contexts"] == pytest.approx(0.015 * 200)  # 1 % rounded up by half a percent
    # errors exactly ∝ N^-1/2: slope −1/2, no residual
    exact = claims_beyond.beyond_numbers({"network_errors": list(np.array([10, 100, 1000, 10000.]) ** -0.5)}, params)
    assert exact["network_slope_se"] == pytest.approx(0.0, abs=1e-12)
    assert claims_beyond._slope_and_error([10, 100, 1000], [1.0, 0.3, 0.1])[1] > 0
    with pytest.raises(TypeError, match="params"):
        claims_beyond.beyond_numbers({}, None)
    with pytest.raises(ValueError, match="chapter"):
        claims.stored_numbers(None, "ising")


def test_plateau_summary_lists_the_widest_first_and_counts_the_rest():
    p = lambda f, lo, hi: {"fraction": f, "beta_lo": lo, "beta_hi": hi, "points": 2, "runs": 1}  # noqa: E731
    found = [p("1/4", 1.0, 1.002), p("3/11", 1.01, 1.0101), p("2/7", 1.02, 1.03), p("4/15", 1.04, 1.0405),
             p("2/7", 1.05, 1.05001)]
    assert claims.plateau_summary(found, top=2) == (
        "2/7 on β ∈ [1.02000, 1.03000] (width 1.0e-02); 1/4 on β ∈ [1.00000, 1.00200] (width 2.0e-03); "
        "and 3 narrower (each ≤ 5.0e-04 wide: 4/15, 3/11, 2/7)")  # their fractions in increasing order
    assert claims.plateau_summary([]) == "none"


@pytest.mark.skipif(store.project_root() is None
                    or not (store.project_root() / "data/full/dmft/beyond.json").is_file(),
                    reason="no stored chapter-6 full results (outside a checkout)")
def test_stored_staircase_and_spectrum_numbers():
    """A check of the stored beyond.json: its plateaus (runs of ρ within 1e-4 of a fraction, before 0.3) are not
    periodic orbits, so they are not read and the staircase is not tested; λ1 > 0 > λ2."""
    root = store.project_root()
    numbers, _ = claims.stored_numbers(root, "dmft")
    stored = json.loads((root / "data/full/dmft/beyond.json").read_text())
    assert numbers["beyond"] == stored
    if not all("lambda_max" in p for p in stored["plateaus"]):
        assert "plateaus" not in numbers and "plateau_count" not in numbers
    assert numbers["lam1_max"] > 0 > numbers["lam2_max"]
