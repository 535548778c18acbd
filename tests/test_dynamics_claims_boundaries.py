"""Chapter 6's verdict rules (mfattn.dynamics.claims and .claims_beyond) fed numbers at and just either side of each
declared threshold: a moved threshold or a flipped comparison fails a case. The numbers are those of the stored full
profile (data/full/dmft/summary.json, beyond.json and the two diagrams: 4001 β each, λ resolution TOL = 1e-3,
context L = 4) moved to each threshold. A threshold on a whole count or on a fraction that is exact in binary (0.95,
1 % of 8000 β, 10 · TOL) is met exactly, on the side the code puts equality; a distance to a decimal (±1e-3 around
1.244, ±0.1 around −1/2, 2e-3 in ρ) has no exact float, so it is met 1e-6 inside and outside (far below the
resolution of the stored numbers: grid steps 1e-5, Floquet steps 2.5e-4). ``None`` as the grade: the numbers
cannot decide (a number stored as null, too few points, a β not stored) and the rule says so
(:class:`~mfattn.companion.verdicts.Undecidable`, a claim "not tested") instead of guessing or raising."""

import math

import pytest

from mfattn.companion import verdicts
from mfattn.dynamics.claims import FIG4

from rule_boundaries import check_case, check_every_rule_covered

BY_ID = {c.id: c for c in verdicts.declared("dmft")}
NAN = float("nan")
E = 1e-6            # inside / outside a threshold that has no exact float
PI = math.pi


def _with(base, **change):
    """``base`` with entries changed: ``key=value``, or ``key=(index, value)`` for one entry of a list."""
    out = {k: list(v) if isinstance(v, list) else v for k, v in base.items()}
    for k, v in change.items():
        if isinstance(v, tuple):
            out[k][v[0]] = v[1]
        else:
            out[k] = v
    return out


# --- asymmetric couplings: the output-value control keeps 0 of the paper's forbidden orbits (holds), fewer than
# half (partly), half or more (fails); the paper's model needs some (and tori or chaos to hold) -------------------
_N = {"sym_paper_nontrivial": 235, "sym_paper_tori": 3, "sym_paper_chaotic": 134, "sym_ov_nontrivial": 0}
NONEQ = [
    ("dmft-asymmetric-nonequilibrium", _N, "holds"),
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_ov_nontrivial=1), "partly"),
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_ov_nontrivial=117), "partly"),        # 234 < 235
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_ov_nontrivial=118), "fails"),         # 236 ≥ 235
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_paper_nontrivial=40, sym_ov_nontrivial=19), "partly"),
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_paper_nontrivial=40, sym_ov_nontrivial=20), "fails"),  # half
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_paper_nontrivial=0), "fails"),
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_paper_tori=0, sym_paper_chaotic=0), "partly"),
    ("dmft-asymmetric-nonequilibrium", _with(_N, sym_paper_tori=0, sym_paper_chaotic=1), "holds"),
]

# --- N^-1/2: every slope within 0.1 of −1/2 holds; all ≤ −0.25 partly; one above −0.25 (or NaN) fails ---------
def _slopes(claim_id, first, second):
    keys = {"dmft-path-probability": ("slope_1", "network_slope"), "dmft-finite-n": ("slope_1", "slope_3"),
            "dmft-network-limit": ("network_slope",)}[claim_id]
    got = dict(zip(keys, (first, second)))
    return {**got, "network_chi2_z": -1.18} if claim_id == "dmft-network-limit" else got


SLOPES = []
for _id in ("dmft-path-probability", "dmft-finite-n"):
    SLOPES += [
        (_id, _slopes(_id, -0.496, -0.532), "holds"),                    # the stored slopes (network: −0.532)
        (_id, _slopes(_id, -0.496, -0.6 + E), "holds"),
        (_id, _slopes(_id, -0.496, -0.6 - E), "partly"),
        (_id, _slopes(_id, -0.4 - E, -0.532), "holds"),
        (_id, _slopes(_id, -0.4 + E, -0.532), "partly"),
        (_id, _slopes(_id, -0.733, -0.496), "partly"),                   # β = 3's stored slope (dmft-finite-n)
        (_id, _slopes(_id, -0.25, -0.5), "partly"),                      # −0.25 itself: not above it
        (_id, _slopes(_id, -0.5, -0.2499), "fails"),
        (_id, _slopes(_id, -0.5, 0.1), "fails"),
        (_id, _slopes(_id, NAN, -0.5), "fails"),                         # a fit that is not a number
        (_id, _slopes(_id, None, -0.5), None),                           # ... stored as null
    ]
NETWORK = [
    ("dmft-network-limit", {"network_slope": -0.6 + E, "network_chi2_z": -1.18}, "holds"),
    ("dmft-network-limit", {"network_slope": -0.6 - E, "network_chi2_z": -1.18}, "partly"),
    ("dmft-network-limit", {"network_slope": -0.25, "network_chi2_z": -1.18}, "partly"),
    ("dmft-network-limit", {"network_slope": -0.2499, "network_chi2_z": -1.18}, "fails"),
    ("dmft-network-limit", {"network_slope": -0.532, "network_chi2_z": 3.999}, "holds"),
    ("dmft-network-limit", {"network_slope": -0.532, "network_chi2_z": 4.0}, "fails"),     # |z| ≥ 4
    ("dmft-network-limit", {"network_slope": -0.532, "network_chi2_z": -3.999}, "holds"),
    ("dmft-network-limit", {"network_slope": -0.532, "network_chi2_z": -4.0}, "fails"),
    ("dmft-network-limit", {"network_slope": None, "network_chi2_z": -1.18}, None),
    ("dmft-network-limit", {"network_slope": -0.532, "network_chi2_z": None}, None),       # no χ² test stored
    ("dmft-network-limit", {"network_slope": -0.532, "network_chi2_z": NAN}, None),
]

# --- Fig. 3a's route: period L at ≥ 95 % before the first torus, tori before chaos, windows, ≥ 95 % periodic late ---
_A = {"a_orbits_torus": 36, "a_orbits_chaotic": 1294, "a_start_period_L_share": 0.9994, "a_first_torus_beta": 1.2435,
      "a_first_lambda_gt_1e_3_beta": 1.266, "a_windows": 341, "a_late_share": 1.0}
ROUTE = [
    ("dmft-route-to-chaos", _A, "holds"),
    ("dmft-route-to-chaos", _with(_A, a_late_share=0.95), "holds"),
    ("dmft-route-to-chaos", _with(_A, a_late_share=0.9499), "partly"),
    ("dmft-route-to-chaos", _with(_A, a_windows=1), "holds"),
    ("dmft-route-to-chaos", _with(_A, a_windows=0), "partly"),
    ("dmft-route-to-chaos", _with(_A, a_start_period_L_share=0.95), "holds"),
    ("dmft-route-to-chaos", _with(_A, a_start_period_L_share=0.9499), "fails"),
    ("dmft-route-to-chaos", _with(_A, a_orbits_torus=1), "holds"),
    ("dmft-route-to-chaos", _with(_A, a_orbits_torus=0, a_first_torus_beta=NAN), "fails"),
    ("dmft-route-to-chaos", _with(_A, a_orbits_chaotic=0), "fails"),
    ("dmft-route-to-chaos", _with(_A, a_first_torus_beta=1.26525), "holds"),              # one step of 7.5e-4 before
    ("dmft-route-to-chaos", _with(_A, a_first_torus_beta=1.266), "fails"),                 # chaos not after the torus
    ("dmft-route-to-chaos", _with(_A, a_late_share=NAN), None),                            # no β > 2.5 on the grid
]

# --- the zoom's torus birth by the bin rule, and the Floquet crossing: |β − 1.244| ≤ 1e-3 holds, ≤ 4e-3 partly --
_Z = {"z_first_quasi_periodic_beta": 1.24363, "z_orbits_chaotic": 745, "z_windows": 767}
ZOOM = [("dmft-zoom", _Z, "holds")]
BIRTH = [("dmft-torus-birth-floquet", {"ns_beta": 1.2434}, "holds")]
for _sign in (1, -1):
    for _off, grade in ((1e-3 - E, "holds"), (1e-3 + E, "partly"), (4e-3 - E, "partly"), (4e-3 + E, "fails")):
        ZOOM.append(("dmft-zoom", _with(_Z, z_first_quasi_periodic_beta=1.244 + _sign * _off), grade))
        BIRTH.append(("dmft-torus-birth-floquet", {"ns_beta": 1.244 + _sign * _off}, grade))
ZOOM += [
    ("dmft-zoom", _with(_Z, z_windows=0), "partly"),
    ("dmft-zoom", _with(_Z, z_windows=1), "holds"),
    ("dmft-zoom", _with(_Z, z_orbits_chaotic=0), "fails"),
    ("dmft-zoom", _with(_Z, z_orbits_chaotic=1), "holds"),
    ("dmft-zoom", _with(_Z, z_first_quasi_periodic_beta=NAN), "fails"),                   # no quasi-periodic β
]
BIRTH += [("dmft-torus-birth-floquet", {"ns_beta": None}, "fails"),                          # no crossing found
          ("dmft-torus-birth-floquet", {"ns_beta": NAN}, "fails")]

# --- shares of the 4000 + 4000 β (exact in binary): < 1 % holds, < 10 % partly, else fails ----------------------
_B = {"a_n_betas": 4000, "z_n_betas": 4000}
_LY = {**_B, "a_periodic_with_lambda_gt_1e_3": 0, "z_periodic_with_lambda_gt_1e_3": 0, "a_lambda_not_finite": 0,
       "z_lambda_not_finite": 0}
SHARES = []
for _mis, grade in ((79, "holds"), (80, "partly"), (799, "partly"), (800, "fails")):
    SHARES += [("dmft-bin-rule", {**_B, "a_misclassified": _mis - _mis // 2, "z_misclassified": _mis // 2}, grade),
               ("dmft-lyapunov", {**_LY, "a_lambda_near_TOL": _mis // 2, "z_lambda_near_TOL": _mis - _mis // 2}, grade)]
SHARES += [
    ("dmft-bin-rule", {"a_misclassified": 203, "z_misclassified": 166, "a_n_betas": 4001, "z_n_betas": 4001},
     "partly"),                                                                              # the stored 4.6 %
    ("dmft-lyapunov", {**_LY, "a_n_betas": 4001, "z_n_betas": 4001, "a_lambda_near_TOL": 36, "z_lambda_near_TOL": 21},
     "holds"),                                                                               # the stored 0.7 %
    ("dmft-lyapunov", {**_LY, "a_lambda_near_TOL": 0, "z_lambda_near_TOL": 0, "z_periodic_with_lambda_gt_1e_3": 1},
     "fails"),
    ("dmft-lyapunov", {**_LY, "a_lambda_near_TOL": 0, "z_lambda_near_TOL": 0, "a_lambda_not_finite": 1}, "fails"),
]

# --- Fig. 4: each β's kind (periodic if a period is found; else chaotic λ > TOL, torus |λ| ≤ TOL, periodic λ < −TOL)
_P = {"f4_betas": list(FIG4), "f4_lyapunov": [8.1e-6, -3.1e-6, 0.0632, -0.0478, 0.1406, 0.0758],
      "f4_period": [0, 0, 0, 28, 0, 0], "f4_start": "paper"}
T = 1e-3
PLANES = [
    ("dmft-planes", _P, "holds"),
    ("dmft-planes", _with(_P, f4_start="ours"), "partly"),
    ("dmft-planes", _with(_P, f4_lyapunov=(0, T)), "holds"),                 # 1.255: |λ| = TOL is a torus
    ("dmft-planes", _with(_P, f4_lyapunov=(0, T * 1.0001)), "fails"),        # ... above it chaotic
    ("dmft-planes", _with(_P, f4_lyapunov=(1, -T)), "holds"),
    ("dmft-planes", _with(_P, f4_lyapunov=(1, -T * 1.0001)), "fails"),       # a stable orbit, no torus
    ("dmft-planes", _with(_P, f4_lyapunov=(2, T * 1.0001)), "holds"),        # 1.266: chaotic just above TOL
    ("dmft-planes", _with(_P, f4_lyapunov=(2, T)), "fails"),
    ("dmft-planes", _with(_P, f4_period=(3, 0), f4_lyapunov=(3, -T * 1.0001)), "holds"),  # 1.27: stable, no period
    ("dmft-planes", _with(_P, f4_period=(3, 0), f4_lyapunov=(3, -T)), "fails"),
    ("dmft-planes", _with(_P, f4_period=(3, 0)), "holds"),
    ("dmft-planes", _with(_P, f4_period=(0, 4)), "fails"),                   # a period at the torus's β
    ("dmft-planes", _with(_P, f4_lyapunov=(4, None)), None),                 # a λ stored as null
]

# --- Fig. 5: the 1/e decay at 1.28 within 100 steps holds, later partly; the torus (1.26405) must never decay ----
_S = {"f4_betas": list(FIG4), "f4_tau_e": [None, None, 16.0, None, 11.0, 13.0]}
SPECTRA = [
    ("dmft-spectra", _S, "holds"),
    ("dmft-spectra", _with(_S, f4_tau_e=(4, 100.0)), "holds"),
    ("dmft-spectra", _with(_S, f4_tau_e=(4, 101.0)), "partly"),
    ("dmft-spectra", _with(_S, f4_tau_e=(4, None)), "fails"),
    ("dmft-spectra", _with(_S, f4_tau_e=(1, 2000.0)), "fails"),
    ("dmft-spectra", _with(_S, f4_betas=(4, 1.2801)), None),                 # β = 1.28 not stored
]

# --- memory: the 0.1 decay at every chaotic β after > 10 L = 40 steps holds, > L = 4 partly, else fails --------
_M = {"f4_betas": list(FIG4), "f4_tau_01": [None, None, 312.0, None, 75.0, 181.0]}
MEMORY = [("dmft-memory", _M, "holds")]
for _i in (2, 4, 5):
    MEMORY += [("dmft-memory", _with(_M, f4_tau_01=(_i, 41.0)), "holds"),
               ("dmft-memory", _with(_M, f4_tau_01=(_i, 40.0)), "partly"),
               ("dmft-memory", _with(_M, f4_tau_01=(_i, 5.0)), "partly"),
               ("dmft-memory", _with(_M, f4_tau_01=(_i, 4.0)), "fails")]
MEMORY += [("dmft-memory", _with(_M, f4_tau_01=[None] * 6), "holds"),
           ("dmft-memory", _with(_M, f4_tau_01=(0, 1.0)), "holds"),               # a torus's β is not read
           ("dmft-memory", _with(_M, f4_betas=(5, 1.41)), None)]                  # β = 1.4 not stored

# --- coexistence: sections of ≥ 10⁴ points; different attractors at ≥ 10 β holds, 1-9 partly, 0 fails ---------
COEXIST = [
    ("dmft-coexistence", {"coexist_n": 62, "coexist_points": 10_000}, "holds"),
    ("dmft-coexistence", {"coexist_n": 10, "coexist_points": 10_000}, "holds"),
    ("dmft-coexistence", {"coexist_n": 9, "coexist_points": 10_000}, "partly"),
    ("dmft-coexistence", {"coexist_n": 1, "coexist_points": 10_000}, "partly"),
    ("dmft-coexistence", {"coexist_n": 0, "coexist_points": 10_000}, "fails"),
    ("dmft-coexistence", {"coexist_n": 62, "coexist_points": 9_999}, None),
]

# --- Floquet: the crossing angle > 0.01 rad from 0 and π (else a real multiplier: fails) and > 0.01 rad from the
# strong resonances π/2, 2π/3 (else partly) ---------------------------------------------------------------------
FLOQUET = [("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": 1.5201}, "holds"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": 0.01}, "fails"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": 0.01 + E}, "holds"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": PI - 0.01 + E}, "fails"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": PI - 0.01 - E}, "holds"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": None, "ns_angle": 1.5201}, "fails"),      # no crossing
           ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": None}, "fails"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": NAN}, "fails"),
           ("dmft-floquet-neimark-sacker", {"ns_beta": NAN, "ns_angle": 1.5201}, "fails")]
for _res in (PI / 2, 2 * PI / 3):
    for _sign in (1, -1):
        FLOQUET += [("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": _res + _sign * (0.01 - E)},
                     "partly"),
                    ("dmft-floquet-neimark-sacker", {"ns_beta": 1.2434, "ns_angle": _res + _sign * (0.01 + E)},
                     "holds")]

# --- Lyapunov spectrum: λ1 > TOL somewhere and λ2 ≤ TOL holds, λ2 ≤ 10 TOL partly; else fails ----------------
_L = {"lam1_max": 0.1566, "lam2_max": -5.7e-5}
SPECTRUM = [
    ("dmft-lyapunov-spectrum", _L, "holds"),
    ("dmft-lyapunov-spectrum", _with(_L, lam1_max=T), "fails"),
    ("dmft-lyapunov-spectrum", _with(_L, lam1_max=T * 1.0001), "holds"),
    ("dmft-lyapunov-spectrum", _with(_L, lam2_max=T), "holds"),
    ("dmft-lyapunov-spectrum", _with(_L, lam2_max=T * 1.0001), "partly"),
    ("dmft-lyapunov-spectrum", _with(_L, lam2_max=10 * T), "partly"),
    ("dmft-lyapunov-spectrum", _with(_L, lam2_max=10 * T * 1.0001), "fails"),
    ("dmft-lyapunov-spectrum", _with(_L, lam2_max=None), None),              # one exponent stored, or null
    ("dmft-lyapunov-spectrum", _with(_L, lam1_max=None), None),
    ("dmft-lyapunov-spectrum", _with(_L, lam2_max=NAN), None),
]

# --- the staircase: |ρ − θ/2π| ≤ 2e-3 and a plateau; two fractions hold, one partly -----------------------------
_R = {"rho_birth": 0.24205, "ns_rotation": 0.24194, "plateau_count": 24, "plateau_fractions": 5}
STAIRCASE = [
    ("dmft-devils-staircase", _R, "holds"),
    ("dmft-devils-staircase", _with(_R, rho_birth=0.24194 + 2e-3 - E), "holds"),
    ("dmft-devils-staircase", _with(_R, rho_birth=0.24194 + 2e-3 + E), "fails"),
    ("dmft-devils-staircase", _with(_R, rho_birth=0.24194 - 2e-3 + E), "holds"),
    ("dmft-devils-staircase", _with(_R, rho_birth=0.24194 - 2e-3 - E), "fails"),
    ("dmft-devils-staircase", _with(_R, plateau_fractions=2), "holds"),
    ("dmft-devils-staircase", _with(_R, plateau_fractions=1), "partly"),
    ("dmft-devils-staircase", _with(_R, plateau_count=1, plateau_fractions=1), "partly"),
    ("dmft-devils-staircase", _with(_R, plateau_count=0, plateau_fractions=0), "fails"),
    ("dmft-devils-staircase", _with(_R, rho_birth=None), "fails"),                          # no ρ above the crossing
    ("dmft-devils-staircase", _with(_R, ns_rotation=None), "fails"),
]

# --- tongues: regions ≥ 3 points wide somewhere are judged; a wedge starts ≤ 1 wide and never narrows by > 1 -----
TONGUES = [
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [0, 1, 2, 3]}}, "holds"),
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [0, 1, 2, 2]}}, "fails"),            # nothing 3 wide
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [1, 2, 3, 4]}}, "holds"),            # 1 wide at ε = 0
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [2, 3, 4, 5]}}, "fails"),            # 2 wide at ε = 0
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [0, 4, 3, 4]}}, "holds"),            # narrows by one point
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [0, 4, 2, 4]}}, "fails"),            # ... by two
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [0, 1, 3], "2/7": [2, 3, 3]}}, "partly"),
    ("dmft-arnold-tongues", {"tongue_widths": {"1/3": [0, 1, 3], "1/7": [2, 2, 2]}}, "holds"),  # 1/7 not judged
]

# --- basins: several attractors at fewer than half the β, each basin from ≥ 9 contexts ---------------------------
_BA = {"n_multi": 1, "basin_n_betas": 6, "smallest_basin_contexts": 1.28}
BASINS = [
    ("dmft-basins", _BA, "partly"),                                          # the stored run: a 0 % basin
    ("dmft-basins", _with(_BA, smallest_basin_contexts=9.0), "holds"),
    ("dmft-basins", _with(_BA, smallest_basin_contexts=8.99), "partly"),
    ("dmft-basins", _with(_BA, n_multi=2, smallest_basin_contexts=9.0), "holds"),
    ("dmft-basins", _with(_BA, n_multi=3, smallest_basin_contexts=100.0), "fails"),      # half of 6
    ("dmft-basins", _with(_BA, n_multi=3, basin_n_betas=7, smallest_basin_contexts=9.0), "holds"),
    ("dmft-basins", _with(_BA, n_multi=4, basin_n_betas=7, smallest_basin_contexts=9.0), "fails"),
    ("dmft-basins", _with(_BA, n_multi=0, smallest_basin_contexts=None), "partly"),      # nothing to measure
    ("dmft-basins", _with(_BA, smallest_basin_contexts=None), "partly"),
]

BOUNDARY_CASES = (NONEQ + SLOPES + NETWORK + ROUTE + ZOOM + BIRTH + SHARES + PLANES + SPECTRA + MEMORY + COEXIST
                  + FLOQUET + SPECTRUM + STAIRCASE + TONGUES + BASINS)


@pytest.mark.parametrize("claim_id, numbers, grade", BOUNDARY_CASES)
def test_chapter_6_rules_either_side_of_each_threshold(claim_id, numbers, grade):
    check_case(BY_ID[claim_id], numbers, grade)


def test_every_ruled_chapter_6_claim_has_boundary_cases_of_each_grade():
    check_every_rule_covered(BOUNDARY_CASES, BY_ID.values())


def test_a_null_lambda_of_our_own_start_leaves_the_planes_decided_and_says_null():
    """The rule reads the start it used (the paper's context); our own start's λ at β = 1.28 stored as null changes
    neither the grade nor breaks the note, which says "null" there."""
    s = {**_P, "f4_lyapunov_ours": [-6.7e-6, -1.3e-5, 0.0716, -0.0478, None, 0.0704],
         "f4_period_ours": [0, 0, 0, 28, 0, 0], "f4_differ": [False, True, False, False, False, False]}
    d = BY_ID["dmft-planes"].decide(s)
    assert d.verdict == "reproduced" and "1.28: null" in d.note and "not all six β" in d.note
