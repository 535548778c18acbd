"""Chapter 1's verdict premises (mfattn.meanfield.claims, issue 40; issue 41 items 1 and 2): where the blog makes each
claim (and that it never mentions Plefka or the AT line), the two readings of "TAP" (the SK average the blog
describes, TAP 1977's per-site term) both stored and decided, the reasons of the thresholds against the stored
numbers (and that each check can say no), the per-instance errors behind every mean, the theorem behind the blog's
stability sentence, the Gaussian identity read at round-off, and which verdicts are fragile.

The stored-data tests read ``data/full/ising/summary.json`` and skip where it is absent; the others solve small
models in seconds.
"""

import math
import warnings

import numpy as np
import pytest

from mfattn import ising
from mfattn.companion import premises, store, verdicts
from mfattn.meanfield import accuracy, claims
from mfattn.meanfield.claims_ising_accuracy import geometric_interval, log_ratio_se, paired

ROOT = store.project_root()
ISING = {c.id: c for c in claims.DECLARED["ising"]}
STORED = claims.stored_numbers(ROOT)[0] if ROOT is not None else {}
needs_stored = pytest.mark.skipif("tsite_m_inst" not in STORED, reason="no stored full-profile summary of chapter 1 "
                                                                      "with per-instance errors")
needs_texts = pytest.mark.skipif(premises.papers_dir() is None, reason="the works' texts are not at hand")


def _decide(claim_id, numbers=None):
    return ISING[claim_id].decide(STORED if numbers is None else numbers, chapter="ising")


def _alternatives(d):
    return {a["name"]: a["verdict"] for a in d.premises["alternatives"]}


# --- where the blog makes each claim ----------------------------------------------------------------------------

#: Claims the blog does not make: ours (the blog never mentions Plefka, de Almeida-Thouless, an AT line or x = 1, and
#: ranks no theories by their correlations).
OURS = {"ising-at-accuracy", "ising-stable-beyond-line", "ising-linear-response-ordering", "ising-gaussian-vector-spins",
        "ising-adaptive-tap",   # its quote describes the method; "more accurate on SK" is the book's reading
        "ising-adaptive-tap-site",   # the blog compares with TAP as it describes it, not TAP 1977's per-site term
        "ising-adaptive-tap-compensates"}   # the blog states the method's motive; the test of it is the book's


def test_the_claims_the_blog_does_not_make_are_ours():
    assert {c.id for c in ISING.values() if c.origin == "ours"} == OURS
    for claim_id in ("ising-at-accuracy", "ising-stable-beyond-line"):
        assert "Bal 2021 does not discuss it" in ISING[claim_id].source
    for c in ISING.values():   # no paper claim is attributed to the line's authors any more
        assert c.origin == "ours" or "Plefka" not in c.source and "Almeida" not in c.source, c.id


@needs_texts
@pytest.mark.parametrize("claim_id", sorted(c.id for c in ISING.values() if c.quote is not None))
def test_every_quote_of_chapter_1_is_verbatim_in_the_blog(claim_id):
    assert premises.quote_found(ISING[claim_id].quote, "ising"), ISING[claim_id].quote.text


@needs_texts
def test_the_blog_never_mentions_plefka_the_at_line_or_more_accurate():
    """What the book used to attribute to the sources is not in the blog's text: the line claims are ours, and
    "more accurate" (adaptive TAP against TAP) is the book's reading of "compensate for the lack of knowledge"."""
    for phrase in ("Plefka", "Almeida", "AT line", "more accurate", "better for better theories"):
        assert not premises.quote_found(premises.Quote("x", phrase), "ising"), phrase
    assert premises.quote_found(premises.Quote("2.2", "To compensate for the lack of knowledge of the couplings "
                                                      "distribution"), "ising")


def test_the_breakdown_claim_is_the_blogs_stability_sentence():
    c = ISING["ising-breakdown"]
    assert c.origin == "paper" and "no longer be stable" in c.quote.text and "positive semidefinite" in c.claim
    assert "Plefka" not in c.claim and "AT line" not in c.claim


# --- the two readings of "TAP" (issue 41 item 2) --------------------------------------------------------------

def test_both_readings_of_tap_are_declared_on_every_claim_that_names_it():
    """Where a claim names TAP, per-site TAP is a declared reading; the adaptive-TAP claim names both TAPs in its own
    rule, and the ordering of the correlations names the SK average and says that per-site TAP breaks it."""
    for claim_id in ("ising-tap-onsager", "ising-linear-response", "ising-at-accuracy", "ising-stable-beyond-line"):
        c = ISING[claim_id]
        assert any(a.kind == "reading" and "per-site" in a.name for a in c.alternatives), claim_id
    assert "SK-averaged" in ISING["ising-tap-onsager"].reading and "per-site" in ISING["ising-tap-onsager"].reading
    adaptive = ISING["ising-adaptive-tap"]
    assert "SK average" in adaptive.claim and "ising-adaptive-tap-site" in adaptive.reading
    assert "per-site Onsager term" in ISING["ising-adaptive-tap-site"].claim
    ordering = ISING["ising-linear-response-ordering"]
    assert "three theories" in ordering.claim and "SK-averaged" in ordering.claim and "per-site TAP" in ordering.claim


@needs_stored
def test_per_site_tap_reading_is_stored_and_decided():
    """Per-site TAP (TAP 1977's Σ_j J_ij²(1 − m_j²)) is solved on the same 40 instances and stored with its
    per-instance errors: it removes more of naive mean field's error than the SK average (ratio 0.09 against 0.21),
    and adaptive TAP beats it by about a factor 2.25 (ratio 0.44), at the factor-2 line."""
    s = STORED
    assert len(s["tsite_m_inst"]) == s["instances"] == 40 and None not in s["tsite_m_inst"]
    assert s["tsite_m"] == pytest.approx(np.mean(s["tsite_m_inst"]), rel=1e-12)
    assert 0.07 < s["tsite_m"] / s["naive_m"] < 0.11 < s["tap_m"] / s["naive_m"]
    assert 0.4 < s["atap_m"] / s["tsite_m"] < 0.5
    onsager = _alternatives(_decide("ising-tap-onsager"))
    assert onsager["reading: TAP 1977's per-site Onsager term Σ_j J_ij²(1 − m_j²) in place of the SK average"] == \
        "reproduced"
    site = _decide("ising-adaptive-tap-site")
    assert site.verdict == "confirmed with differences"
    assert site.numbers["tsite_m"] == pytest.approx(s["tsite_m"], rel=0.01)
    assert "per-site TAP" in site.note and "the factor 2 is at the line" in site.note


# --- the per-instance numbers behind each mean -----------------------------------------------------------------

@needs_stored
@pytest.mark.parametrize("key", ["naive", "tap", "tsite", "atap"])
def test_the_stored_means_are_the_means_of_the_stored_per_instance_errors(key):
    s = STORED
    for which in ("m", "c"):
        values = [v for v in s[f"{key}_{which}_inst"] if v is not None]
        assert len(values) == s["ok_by_beta" if False else f"{key}_ok_by_beta"][s["betas"].index(s["beta"])]
        assert s[f"{key}_{which}"] == pytest.approx(np.mean(values), rel=1e-12)
    assert s[f"{key}_m_q"] == pytest.approx(np.quantile([v for v in s[f"{key}_m_inst"] if v is not None],
                                                        [0.25, 0.5, 0.75]), rel=1e-12)


@needs_stored
def test_strong_damping_errors_are_stored_per_instance_on_every_instance():
    """The line claims read the damping-0.05 solutions: a stable one on at least 39 of 40 instances at every sweep
    β for every theory, their mean is the stored mean, and no stored β-mean is null where some instance worked."""
    s = STORED
    for key in ("naive", "tap", "tsite", "atap"):
        assert min(s[f"{key}_strong_ok"]) >= 39
        for row, mean, ok in zip(s[f"{key}_strong_inst"], s[f"{key}_strong_by_beta"], s[f"{key}_strong_ok"]):
            values = [v for v in row if v is not None]
            assert len(values) == ok and mean == pytest.approx(np.mean(values), rel=1e-12)
        # the damping-0.5 means: a diverged instance no longer turns a β's mean into null
        assert all((m is None) == (ok == 0) for m, ok in zip(s[f"{key}_by_beta"], s[f"{key}_ok_by_beta"]))


def test_a_diverged_instance_leaves_the_mean_over_the_others():
    """Comparison.mean_rmse over the instances that worked: one whose iteration diverged keeps a NaN RMSE, which must
    not turn the β's mean into NaN (NaN × False is NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ising.MeanFieldWarning)
        cmp = accuracy.compare_mean_field(6, [0.4], 3, seed=2, methods=("naive",))
    want = float(np.mean(cmp.rmse_m[0, 0, 1:]))
    cmp.rmse_m[0, 0, 0], cmp.converged[0, 0, 0] = np.nan, False      # instance 0 diverged
    assert cmp.mean_rmse("m")[0, 0] == pytest.approx(want, rel=1e-12)


def test_summarise_reads_the_strong_damping_solutions_against_exact_enumeration():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ising.MeanFieldWarning)
        cmp = accuracy.compare_mean_field(8, [0.5, 1.5], 3, seed=4, methods=("naive", "tap", "tap_site"))
        sweep = accuracy.damping_sweep(8, [1.5], 3, [0.5, 0.05], seed=4, methods=cmp.methods, budget=400)
    s = accuracy.summarise(cmp, 0.5, sweep)
    rng = np.random.default_rng(4)
    disorder = [(ising.sk_couplings(8, 1.0, rng), 0.3 * rng.standard_normal(8)) for _ in range(3)]
    for i, (G, h) in enumerate(disorder):
        exact = ising.exact_marginals(1.5 * G, h).m
        res = ising.tap(1.5 * G, h, onsager="site", damping=0.05, max_iter=8000, on_fail="ignore")
        got = s["methods"]["tap_site"]["strong_rmse_m_per_instance"][0][i]
        assert (got is None) == (not (res.converged and res.chi_positive))
        if got is not None:
            assert got == pytest.approx(np.sqrt(np.mean((res.m - exact) ** 2)), rel=1e-9)
    sub = cmp.select(("tap", "naive"))
    assert sub.methods == ("tap", "naive") and np.array_equal(sub.rmse_m[1], cmp.rmse_m[0])
    c_rms = [np.sqrt(np.mean(ising.exact_marginals(0.5 * G, h).C[~np.eye(8, dtype=bool)] ** 2)) for G, h in disorder]
    assert s["rms_c_exact_per_instance"] == pytest.approx(c_rms, rel=1e-10)


# --- the theorem behind the blog's stability sentence ----------------------------------------------------------

def _jacobian(update, m, eps=1e-6):
    n = m.size
    return np.column_stack([(update(m + eps * e) - update(m - eps * e)) / (2 * eps) for e in np.eye(n)])


@pytest.mark.parametrize("method", ["naive", "sk", "site"])
def test_the_damped_iterations_jacobian_is_one_minus_a_d_chi_inverse(method):
    """At a fixed point of naive mean field or TAP, the damped map m ↦ (1 − a)m + a F(m) has Jacobian I − a·D·χ⁻¹
    with D = diag(1 − m²) and χ⁻¹ the inverse susceptibility the code reports: its eigenvalues are 1 − a·μ with μ
    those of D^½χ⁻¹D^½ (real, and of the signs of χ⁻¹'s). A χ that is not positive definite gives an eigenvalue
    ≥ 1 at every damping: the blog's "the fixed-point procedure will no longer be stable"."""
    rng = np.random.default_rng(5)
    J, h = ising.sk_couplings(10, 0.6, rng), 0.3 * rng.standard_normal(10)
    n, a = 10, 0.3
    if method == "naive":
        res = ising.naive_mean_field(J, h, tol=1e-14)
        F = lambda m: np.tanh(h + J @ m)  # noqa: E731
    else:
        res = ising.tap(J, h, onsager=method, tol=1e-14)
        J2 = J ** 2
        V = (lambda m: np.full(n, J2.sum() / n * (1 - np.mean(m ** 2)))) if method == "sk" else (lambda m: J2 @ (1 - m ** 2))
        F = lambda m: np.tanh(h + J @ m - m * V(m))  # noqa: E731
    m = res.m
    jac = _jacobian(lambda x: (1 - a) * x + a * F(x), m)
    D = np.diag(1 - m ** 2)
    np.testing.assert_allclose(jac, np.eye(n) - a * D @ np.linalg.inv(res.chi), atol=1e-7)
    mu = np.linalg.eigvalsh(np.sqrt(D) @ np.linalg.inv(res.chi) @ np.sqrt(D))
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(jac).real), np.sort(1 - a * mu)[::1], atol=1e-7)


def test_an_iteration_leaves_a_fixed_point_whose_chi_is_not_positive_definite():
    """Zero field, naive mean field: m = 0 is a fixed point at every β, with χ⁻¹ = I − J. Below the softening
    (largest eigenvalue of J below 1) the iteration started next to it returns to it; above, χ⁻¹ has a negative
    eigenvalue and the iteration leaves it for a solution whose χ is positive definite, at every damping."""
    G = ising.sk_couplings(12, 1.0, np.random.default_rng(6))
    top = np.linalg.eigvalsh(G)[-1]
    start = 1e-8 * np.random.default_rng(7).standard_normal(12)
    low = ising.naive_mean_field(0.8 * G / top, np.zeros(12), m0=start, damping=0.5)
    assert low.converged and low.chi_positive and np.abs(low.m).max() < 1e-9
    for damping in (0.5, 0.05):
        high = ising.naive_mean_field(1.3 * G / top, np.zeros(12), m0=start, damping=damping, max_iter=50_000)
        assert np.linalg.eigvalsh(np.eye(12) - 1.3 * G / top)[0] < 0          # m = 0 is not a stable solution
        assert high.converged and high.chi_positive and np.abs(high.m).max() > 0.1


def test_adaptive_tap_leaves_the_paramagnetic_point_where_its_chi_is_not_positive_definite():
    """The referee's stress test of ising-breakdown on the one theory whose V moves with m: ferro-biased SK couplings
    (J0 = 3, n = 18), zero field. Started exactly at m = 0, which every damped update maps to itself, adaptive TAP
    'converges' there with a χ⁻¹ that is not positive definite, a fixed point its iteration cannot leave only because
    nothing perturbs it; started 10⁻⁶ away it leaves it for a magnetised solution whose χ is positive definite. So
    the blog's sentence survives: where χ is not positive semidefinite the fixed point is unstable."""
    n = 18
    G = ising.sk_couplings(n, 1.0, np.random.default_rng(0))
    for beta in (0.8, 1.2):
        J = beta * (G + 3.0 / n * (np.ones((n, n)) - np.eye(n)))
        stuck = ising.adaptive_tap(J, np.zeros(n), damping=0.05, max_iter=20_000, m0=np.zeros(n), on_fail="ignore")
        assert stuck.converged and not stuck.chi_positive and np.all(stuck.m == 0) and stuck.lambda_min < -0.1
        kicked = ising.adaptive_tap(J, np.zeros(n), damping=0.05, max_iter=20_000, on_fail="ignore",
                                    m0=1e-6 * np.random.default_rng(1).standard_normal(n))
        assert kicked.converged and kicked.chi_positive and np.abs(kicked.m).mean() > 0.5


@needs_stored
def test_no_converged_point_has_a_chi_that_is_not_positive_definite():
    d = _decide("ising-breakdown")
    assert d.verdict == "reproduced" and d.numbers["counterexamples"] == 0 and d.numbers["converged points"] > 9000
    assert d.premises["robustness"] == "robust"
    # a theorem for three of the four theories: only adaptive TAP's converged points could give a counterexample
    assert d.numbers["adaptive TAP's converged points"] > 2000 and "Only adaptive TAP" in d.note


# --- the Gaussian identity at round-off -------------------------------------------------------------------------

def test_the_vector_identity_is_read_at_round_off_not_at_the_stopping_tolerance():
    """At the check's stopping tolerance the deviation is the tolerance (it follows it down), solved to 1e-15 it is
    within a small multiple of the float64 accuracy of the closed form."""
    devs = {tol: max(ising.gaussian_vector_check(8, 4, np.random.default_rng(1), tol=tol).values())
            for tol in (1e-10, 1e-12, 1e-15)}
    bound = ising.gaussian_vector_bound(8, 4, np.random.default_rng(1))
    assert 1e-12 < devs[1e-10] < 1e-10 and 1e-14 < devs[1e-12] < 1e-12
    assert devs[1e-15] < 100 * bound < devs[1e-12]


@needs_stored
def test_the_stored_vector_identity_is_decided_at_round_off_and_is_robust():
    s = STORED
    assert s["vec_tight"] < 10 * s["vec_bound"] and s["vec"] > 100 * s["vec_tight"]
    d = _decide("ising-gaussian-vector-spins")
    assert d.verdict == "confirmed" and d.premises["robustness"] == "robust"
    assert all(t["borne_out"] for t in d.premises["thresholds"])
    # the rule before the premises compared the stopping tolerance with itself: a decade tighter it moves
    assert verdicts.identity("vec", tol=1e-13)(s) == "partly"


# --- each check can say no ---------------------------------------------------------------------------------------

def _threshold(claim_id, name):
    return next(t for t in ISING[claim_id].thresholds if t.name == name)


@needs_stored
@pytest.mark.parametrize("claim_id, name, change", [
    ("ising-tap-onsager", "factor", lambda s: {"tap_by_beta": [0.05 * x for x in s["naive_by_beta"]]}),
    ("ising-tap-onsager", "factor", lambda s: {"tsite_by_beta": s["tap_by_beta"]}),
    ("ising-linear-response", "trivial", lambda s: {"rms_c_exact": 5 * s["atap_c"]}),
    ("ising-at-accuracy", "share", lambda s: {"tap_strong_ok": [30] + s["tap_strong_ok"][1:]}),
    ("ising-at-accuracy", "factor", lambda s: {"tap_strong_inst": [[0.6 * v if v else v for v in row] for row in
                                                                   s["naive_strong_inst"]]}),
    ("ising-stable-beyond-line", "most", lambda s: {"tap_beyond_own_d": [0.1, 0.9, 0.99]}),
    ("ising-gaussian-vector-spins", "roundoff", lambda s: {"vec_tight": s["vec"]}),
    ("ising-gaussian-vector-spins", "near", lambda s: {"vec_tight": 3e-7}),
])
def test_each_thresholds_check_reads_the_stored_numbers_and_can_say_no(claim_id, name, change):
    t = _threshold(claim_id, name)
    assert t.check(STORED)[0], t.check(STORED)[1]
    assert not t.check({**STORED, **change(STORED)})[0]


@needs_stored
def test_the_ordering_margin_is_read_on_a_standard_error_a_bootstrap_confirms_and_can_say_no():
    t = _threshold("ising-linear-response-ordering", "z")
    assert t.check(STORED)[0], t.check(STORED)[1]
    few = {**STORED, "atap_c_inst": [v if i < 10 else None for i, v in enumerate(STORED["atap_c_inst"])]}
    assert not t.check(few)[0]                  # 10 paired instances: too few for the normal approximation


# --- which verdicts are fragile, and what moves them ----------------------------------------------------------------

@needs_stored
def test_the_robust_verdicts_survive_every_alternative():
    for claim_id, verdict in (("ising-tap-onsager", "reproduced"), ("ising-breakdown", "reproduced"),
                              ("ising-stable-beyond-line", "confirmed"), ("ising-linear-response", "reproduced"),
                              ("ising-gaussian-vector-spins", "confirmed")):
        d = _decide(claim_id)
        assert d.verdict == verdict and d.premises["robustness"] == "robust", (claim_id, d.premises.get("moved_by"))


@needs_stored
def test_the_correlations_order_is_a_beta_half_result_the_smallest_beta_reverses():
    """At β = 0.5 adaptive TAP < TAP < naive in the correlations' error (confirmed); at β = 0.05 adaptive TAP's is the
    larger (1.14 of TAP's), so read at every stored β below 1 the claim is with differences: fragile, and the note
    says where the order reverses."""
    d = _decide("ising-linear-response-ordering")
    assert d.verdict == "confirmed" and d.premises["robustness"] == "fragile"
    assert d.premises["moved_by"] == ["reading: every stored β of the high-temperature phase (0.05 to 0.95), the "
                                      "order of the means at each"]
    s = STORED
    assert s["atap_c_by_beta"][0] > s["tap_c_by_beta"][0] and s["atap_c_by_beta"][9] < s["tap_c_by_beta"][9]
    assert "reverses at β = 0.05" in d.note


@needs_stored
def test_adaptive_taps_factor_two_is_a_beta_half_result_the_sweep_moves_it():
    """The factor 2 over the SK-averaged TAP holds at β = 0.5 and at every stored β up to 0.95, not at β = 1 (0.53):
    read over the high-temperature phase the claim is 'with differences', so the verdict is fragile."""
    ratios = {b: a / t for b, a, t in zip(STORED["betas"], STORED["atap_by_beta"], STORED["tap_by_beta"]) if b <= 1.0}
    assert max(r for b, r in ratios.items() if b <= 0.95) < 0.5 < ratios[1.0] < 1.0
    d = _decide("ising-adaptive-tap")
    assert d.verdict == "confirmed" and d.premises["robustness"] == "fragile"
    assert d.premises["moved_by"][0] == ("reading: every stored β of the high-temperature phase (0.05 to 1), not β = 0.5 "
                                         "alone: below half of the SK-averaged TAP's error at each")
    assert len(d.premises["moved_by"]) == 1   # the factor 2 against per-site TAP: ising-adaptive-tap-site


@needs_stored
def test_tap_onsagers_factor_is_a_convention_not_the_leading_order_argument():
    """The SK-averaged term does not remove the leading O(β²) error at n = 18: the TAP/naive ratio tends to about 0.30
    as β → 0 (the site-to-site fluctuation of Σ_j J_ij², √(2/(n − 1)) ≈ 0.34), per-site TAP's to 0 (0.015)."""
    s = STORED
    sk, site = (s[f"{k}_by_beta"][0] / s["naive_by_beta"][0] for k in ("tap", "tsite"))
    assert s["betas"][0] == pytest.approx(0.05) and 0.25 < sk < 0.35 and site < 0.02
    assert all(t.basis == "convention" for c in ("ising-tap-onsager", "ising-adaptive-tap")
               for t in ISING[c].thresholds)
    assert "removes the leading" not in ISING["ising-tap-onsager"].how


@needs_stored
def test_adaptive_tap_against_per_site_tap_is_a_claim_of_its_own():
    """More accurate than per-site TAP on every instance, by a factor 2 on the point ratio (0.44) but with the 95 %
    interval of the ratio reaching past 1/2 (0.39 to 0.50) and 24 of 40 instances below half: confirmed with
    differences on the interval, confirmed on the point ratio (fragile). Per-site errors set well above make it
    confirmed; set just below adaptive TAP's, refuted. The SK-averaged claim does not read per-site TAP at all."""
    s = STORED
    b, w = paired(s, "atap", "tsite")
    half = 2.0227 * log_ratio_se(b, w)
    r = b.mean() / w.mean()
    assert r * math.exp(-half) < 0.5 < r * math.exp(half) < 1 and r < 0.5
    assert np.all(b < w) and 20 <= int(np.sum(b < w / 2)) <= 28
    d = _decide("ising-adaptive-tap-site")
    assert d.verdict == "confirmed with differences" and d.premises["robustness"] == "fragile"
    assert _alternatives(d)["the ratio of the mean errors alone (no interval) below 1/2"] == "confirmed"
    far = {**s, "tsite_m_inst": [3 * v for v in s["atap_m_inst"]]}
    assert _decide("ising-adaptive-tap-site", far).verdict == "confirmed"
    closer = {**s, "tsite_m_inst": [0.9 * v for v in s["atap_m_inst"]]}
    assert _decide("ising-adaptive-tap-site", closer).verdict == "refuted"
    assert _decide("ising-adaptive-tap", closer).verdict == "confirmed"   # decided on the SK average alone


@needs_stored
def test_the_correlation_ordering_is_the_three_theory_order_per_site_tap_breaks_the_general_rule():
    d = _decide("ising-linear-response-ordering")
    assert d.verdict == "confirmed" and d.premises["robustness"] == "fragile"     # the smallest β reverses it
    assert STORED["tsite_c"] < STORED["atap_c"] and STORED["atap_m"] < STORED["tsite_m"]
    assert "do not in general give better correlations" in d.note
    from mfattn.meanfield.claims_ising_accuracy import _ordered_at
    assert _ordered_at(2.0, "tsite")(STORED) == "partly"          # why per-site TAP is outside the claim


@needs_stored
def test_accuracy_is_not_lost_at_the_line_the_claim_is_refuted_on_tap():
    """On every instance (damping 0.05) TAP keeps the factor 2 at its own line (β = 1.2) and loses it only at β = 1.6,
    where its own x is 2.4; the ratio rises smoothly through x = 1. Adaptive TAP never crosses its line and does not
    decide. Refuted, as worded, under every statistic; a knee reading (the erosion speeds up) moves it: fragile."""
    from mfattn.meanfield.claims_ising_plefka import _first_beyond, _lines, _ratio
    s = STORED
    d = _decide("ising-at-accuracy")
    assert d.verdict == "refuted" and d.premises["robustness"] == "fragile"
    # the knee, and tanh(h_i) as the reference read one sweep step past the line (0.493 at it: a 0.007 margin)
    assert [m.split(":")[1].strip().split(",")[0] for m in d.premises["moved_by"]] == ["the advantage over tanh(h_i)",
                                                                                        "a knee"]
    lines = _lines(s, 1.0, (("tap", "TAP"), ("atap", "adaptive TAP")))
    assert lines == {"tap": 1.2}
    i = _first_beyond(s, "tap", 1.2, 0.9)
    assert 0.25 < _ratio(s, "tap", i)[0] < 0.35 and _ratio(s, "tap", len(s["damping_betas"]) - 1)[0] > 0.5
    assert "no break at x = 1" in d.note and "does not cross its own line" in d.note
    assert d.numbers["beta where TAP loses the factor 2"] == pytest.approx(1.6)
    # had TAP lost the factor at its line, the claim would hold
    lost = {**s, "tap_strong_inst": [row if j < i else [None if v is None else 0.8 * n for v, n in
                                                       zip(row, s["naive_strong_inst"][j])]
                                     for j, row in enumerate(s["tap_strong_inst"])]}
    assert _decide("ising-at-accuracy", lost).verdict == "confirmed"


def _knee_numbers(after_slope: float, instances: int = 20, steep_on: int | None = None):
    """A TAP whose ratio to naive mean field rises by 0.03 per 0.1 β up to its own line at β = 1.2 and by
    ``after_slope`` per 0.1 β after it on ``steep_on`` instances (all by default), by 0.02 on the others; naive's error
    0.1 everywhere; adaptive TAP does not cross its line. Seven sweep β, 0.9 to 1.5."""
    betas = [0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5]
    steep_on = instances if steep_on is None else steep_on
    ratio = lambda j, inst: 0.2 + 0.03 * min(j, 3) + (after_slope if inst < steep_on else 0.02) * max(j - 3, 0)
    x_tap = [[0.7 + 0.1 * j] * instances for j in range(7)]     # median x = 1.0 at β = 1.2, 1.3 beyond: crosses
    return {"damping_betas": betas, "instances": instances,
            "naive_strong_inst": [[0.1] * instances for _ in betas],
            "tap_strong_inst": [[0.1 * ratio(j, i) for i in range(instances)] for j in range(7)],
            "atap_strong_inst": [[0.01] * instances for _ in betas],
            "tap_at_strong": [row[0] for row in x_tap], "tap_at_strong_inst": x_tap,
            "atap_at_strong": [0.9] * 7, "atap_at_strong_inst": [[0.9] * instances for _ in betas]}


def test_the_knee_reading_sees_every_outcome_and_its_slopes_are_least_squares():
    """The knee alternative (a faster erosion past the line, loss or not): holds when the ratio's per-instance slope is
    steeper after the line on significantly more than half of the instances (sign test), fails when the ratio rises
    at one rate (ties) or slower, or steeper on too few (14 of 20: p = 0.115); a window that does not fit the grid is undecidable."""
    from mfattn.meanfield.claims_ising_plefka import _knee, _knee_slopes
    rule = _knee()
    assert rule(_knee_numbers(0.06)) == "holds"
    assert rule(_knee_numbers(0.03)) == "fails" and rule(_knee_numbers(0.02)) == "fails"
    assert rule(_knee_numbers(0.06, steep_on=14)) == "fails" and rule(_knee_numbers(0.06, steep_on=15)) == "holds"
    before, after = _knee_slopes(_knee_numbers(0.06), "tap", 3, 3)
    assert before == pytest.approx(np.full(20, 0.3)) and after == pytest.approx(np.full(20, 0.6))
    with pytest.raises(verdicts.Undecidable):
        _knee(steps=4)(_knee_numbers(0.06))


@needs_stored
def test_taps_erosion_speeds_up_at_its_line_on_most_instances():
    """The referee's reading, on the stored damping-0.05 solutions: TAP's ratio to naive mean field climbs faster over
    β 1.2-1.5 than over 0.9-1.2 on 32 of the 39 instances with a stable solution throughout (sign test p ≈ 7e-5), the
    median slope 0.44 against 0.30 per unit β; the note says so."""
    from mfattn.companion import stats
    from mfattn.meanfield.claims_ising_plefka import _knee_slopes
    before, after = _knee_slopes(STORED, "tap", STORED["damping_betas"].index(1.2), 3)
    assert before.size == 39 and int(np.sum(after > before)) == 32
    assert stats.sign_test(after - before)["p"] < 1e-4
    assert np.median(after) == pytest.approx(0.44, abs=0.005) and np.median(before) == pytest.approx(0.30, abs=0.005)
    assert "steeper than over the three before on 32 of 39 instances" in _decide("ising-at-accuracy").note
    import json
    chapter = json.loads((ROOT / "book" / "01_ising_tap.ipynb").read_text())
    prose = " ".join(" ".join("".join(c["source"]) for c in chapter["cells"] if c["cell_type"] == "markdown").split())
    assert prose.count("on 32 of 39 instances") == 2 and "{glue:text}`verdict-ising-at-accuracy`" in prose


@needs_stored
def test_adaptive_taps_own_x_wanders_about_1_and_does_not_cross_its_line():
    """Its median own x is 0.95–1.13 from β = 1.2 to 2, never 1 standard error above 1: the line the old rule read at
    β = 1.3 is noise. TAP's is 1.21 ± 0.04 at β = 1.2. The crossing test says yes to the same medians with a tight
    spread."""
    from mfattn.meanfield.claims_ising_plefka import _crosses, _own_x, _z_above
    s = STORED
    own = _own_x(s, "atap")
    xs = [g[0] for b, g in zip(s["damping_betas"], own) if b >= 1.2 - 1e-9]
    assert 0.9 < min(xs) < 1 < max(xs) < 1.2 and _z_above(s, "atap") < 1
    assert not _crosses(s, "atap") and _crosses(s, "tap") and _crosses(s, "tsite")
    tight = {**s, "atap_at_strong_inst": [[None if v is None else m + 0.01 * (v - m) for v in row]
                                          for row, (m, _) in zip(s["atap_at_strong_inst"], own)]}
    assert _crosses(tight, "atap")


def test_taps_stable_solutions_beyond_the_line_are_the_paramagnetic_branch_at_larger_n():
    """Beyond its line (x > 1.5) TAP's damped iteration finds near-paramagnetic solutions (q < 0.1) whose χ⁻¹ is
    positive definite on every instance at n = 50 and 200: there χ⁻¹ ≈ (1 + β²)I − J, whose smallest eigenvalue tends
    to (1 − β)² as n grows (the semicircle's edge at 2β), positive at every β ≠ 1. Not a finite-size effect of
    n = 18. In zero field m = 0 and χ⁻¹ = (1 + β̂²)I − J exactly."""
    dev = {}
    for n in (50, 200):
        rng = np.random.default_rng(11)
        disorder = [(ising.sk_couplings(n, 1.0, rng), 0.3 * rng.standard_normal(n)) for _ in range(4)]
        for beta in (1.6, 2.0):
            lam = []
            for G, h in disorder:
                res = ising.tap(beta * G, h, damping=0.05, max_iter=20_000, on_fail="ignore")
                assert res.converged and res.chi_positive
                assert beta ** 2 * np.mean((1 - res.m ** 2) ** 2) > 1.5 and np.mean(res.m ** 2) < 0.1
                lam.append(np.linalg.eigvalsh(np.linalg.inv(res.chi))[0])
            dev[n, beta] = np.abs(np.array(lam) - (1 - beta) ** 2).max()
    for beta in (1.6, 2.0):
        assert dev[200, beta] < 0.1 and dev[200, beta] < dev[50, beta]
    G = ising.sk_couplings(200, 1.0, np.random.default_rng(12))
    J = 2.0 * G
    res = ising.tap(J, np.zeros(200), damping=0.05, on_fail="ignore")
    beta2 = (J ** 2).sum() / 200
    assert np.abs(res.m).max() < 1e-9
    assert np.linalg.eigvalsh(np.linalg.inv(res.chi))[0] == pytest.approx(1 + beta2 - np.linalg.eigvalsh(J)[-1],
                                                                           rel=1e-8)


@needs_stored
def test_log_ratio_standard_error_matches_a_bootstrap_on_the_stored_instances():
    from mfattn.meanfield.claims_ising_accuracy import bootstrap_sd
    for better, worse in (("tap", "naive"), ("atap", "tap"), ("atap", "tsite")):
        b, w = paired(STORED, better, worse)
        assert log_ratio_se(b, w) == pytest.approx(bootstrap_sd(b, w), rel=0.25)
        assert math.isfinite(log_ratio_se(b, w))


@needs_stored
def test_the_compensation_claim_states_the_ratios_the_families_show():
    """Over the SK-averaged term every family's ratio of adaptive TAP's error to TAP's lies in 0.16 to 0.24 and SK's
    at β = 0.5 is 0.195 (no extra gain there: the declared reading below half of TAP's error holds); the decided rule
    is the per-site one, on which the Hebbian families gain and the controls do not."""
    s = STORED
    ratios = [float(np.mean([a for a, t in zip(s[f"fam_{f}_atap_m_inst"], s[f"fam_{f}_tap_m_inst"])
                             if a is not None and t is not None]))
              / float(np.mean([t for a, t in zip(s[f"fam_{f}_atap_m_inst"], s[f"fam_{f}_tap_m_inst"])
                               if a is not None and t is not None]))
              for f in ("diluted", "ferro", "hopfield", "hopfield_dense")]
    assert round(min(ratios), 2) >= 0.16 and round(max(ratios), 2) <= 0.24 and round(max(ratios), 2) >= 0.23
    assert round(s["atap_m"] / s["tap_m"], 3) == 0.195
    claim = ISING["ising-adaptive-tap-compensates"]
    assert "significantly larger than on SK couplings of the same strength" in claim.claim
    d = claim.decide(STORED, chapter="ising")
    assert d.verdict == "confirmed"   # origin ours: the test of the motive is the book's
    assert [a["verdict"] for a in d.premises["alternatives"] if a["name"].startswith(
        "reading: keeps its advantage over the SK-averaged TAP")] == ["confirmed"]


@needs_stored
def test_adaptive_taps_factor_two_holds_below_the_critical_beta_and_fails_at_it():
    """The other temperatures of ising-adaptive-tap: the ratio to the SK-averaged TAP is below 1/2 at every stored
    β < 1 (0.467 at 0.95) and 0.527 at β = 1, SK's critical point; the note says so."""
    s = STORED
    ratios = {round(b, 2): a / t for b, a, t in zip(s["betas"], s["atap_by_beta"], s["tap_by_beta"]) if b <= 1.0 + 1e-9}
    assert all(r < 0.5 for b, r in ratios.items() if b < 1.0) and 0.5 < ratios[1.0] < 0.55
    d = _decide("ising-adaptive-tap")
    assert "the factor 2 holds at every stored β below 1 and fails at β = 1 (0.527), SK's critical point" in d.note


@needs_stored
def test_the_couplings_free_references_are_read_with_their_instance_intervals():
    """At TAP's own line (β = 1.2) its error over tanh(h_i)'s is 0.493 with a 95 % interval over the instances of
    0.41 to 0.59: the factor 2 is neither kept nor lost there, so the interval reading cannot decide; the rule's own
    ratios to naive mean field read on their intervals still refute (0.30 at the line, 0.26 to 0.36)."""
    from mfattn.meanfield.claims_ising_plefka import _ratio_interval

    i = STORED["damping_betas"].index(1.2)
    r, lo, hi = _ratio_interval(STORED, "tap", i, "field")
    assert round(r, 3) == 0.493 and lo < 0.5 < hi and 0.40 < lo and hi < 0.6
    d = _decide("ising-at-accuracy")
    rows = {a["name"]: a["verdict"] for a in d.premises["alternatives"]}
    assert rows["reading: the advantage over tanh(h_i), each side read on the ratio's 95 % interval over the "
                "instances"] == "cannot decide"
    assert rows["the rule's ratios read on their 95 % intervals over the instances"] == "refuted"
    assert "0.493 (95 % 0.41 to 0.59) at its own line" in d.note


@needs_stored
def test_compensates_is_ours_and_its_most_literal_readings_refute_it():
    """The blog states Opper and Winther's motive; the families, comparator and rule are the book's (origin ours). Read
    most literally, adaptive TAP's own error on the families that mis-specify TAP's term against its own error on SK:
    on the diluted couplings it is higher (z above 2 against SK at β = 0.5 and at the family's strength), and against
    SK of the Hebbian families' own second moment far higher: both readings refute, declared, so the verdict is
    fragile. Errors made equal to SK's make the literal reading hold."""
    from mfattn.meanfield.claims_ising_families import _own_error_at, _own_error_z
    claim = ISING["ising-adaptive-tap-compensates"]
    assert claim.origin == "ours" and "our test" in claim.source
    s = STORED
    assert _own_error_z(s, "diluted", "sk") > 2 and _own_error_z(s, "hopfield", "matched") > 10
    assert abs(_own_error_z(s, "hopfield", "sk")) < 2
    d = _decide("ising-adaptive-tap-compensates")
    rows = _alternatives(d)
    assert [v for n, v in rows.items() if n.startswith("reading, the most literal")] == ["refuted", "refuted"]
    assert d.premises["robustness"] == "fragile" and "Adaptive TAP's own error" in d.note
    same = {**s, **{f"fam_{f}_atap_m_inst": list(s["atap_m_inst"]) for f in ("diluted", "hopfield", "hopfield_dense")}}
    assert _own_error_at("sk")(same) == "holds"


def test_the_figures_own_line_diamond_is_filled_only_where_the_verdicts_count_a_crossing():
    """fig-ising-stability marks where a theory's own median x reaches 1; filled only where the median is more than two
    standard errors of the median above 1 at some β (claims_ising_plefka's rule), open where it only reaches 1 (adaptive
    TAP's median wandering about 1). The same rule on the same numbers: the stored per-instance x of each theory."""
    from mfattn.meanfield.claims_ising_plefka import _crosses
    from mfattn.meanfield.figures import clearly_crosses
    assert clearly_crosses(np.array([[0.9, 1.0, 1.1, np.nan], [1.5, 1.6, 1.4, 1.55]]))
    assert not clearly_crosses(np.array([[0.9, 1.0, 1.1, 1.05], [np.nan, np.nan, 5.0, np.nan]]))
    for k in ("tap", "atap"):
        rows = np.array([[np.nan if v is None else v for v in row] for row in STORED[f"{k}_at_strong_inst"]], float)
        assert clearly_crosses(rows) == _crosses(STORED, k)
    assert clearly_crosses(np.array([[np.nan if v is None else v for v in row]
                                     for row in STORED["tap_at_strong_inst"]], float))
    assert not clearly_crosses(np.array([[np.nan if v is None else v for v in row]
                                         for row in STORED["atap_at_strong_inst"]], float))
