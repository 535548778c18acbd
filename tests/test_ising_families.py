"""Chapter 1's control on couplings not drawn from SK (mfattn.meanfield.families) and the rule of
ising-adaptive-tap-compensates: the families' scaling, per-instance draws, an independent recomputation of one
error, and every outcome of the rule on counterfactual numbers."""

import numpy as np
import pytest

from mfattn import ising
from mfattn.companion import verdicts
from mfattn.meanfield import claims, families

# chapter 1's studies at chapter scale (the quick profile's sizes and above): a chapter's work budget, as its run
pytestmark = pytest.mark.usefixtures("chapter_budget")


@pytest.mark.parametrize("family", families.FAMILIES)
def test_families_have_the_sk_second_moment_and_are_drawn_per_instance(family):
    J = families.family_couplings(family, 14, 0.7, np.random.default_rng(3))
    assert np.array_equal(J, J.T) and not np.diag(J).any()
    if family.startswith("hopfield"):   # matched to SK's paramagnetic phase: its largest eigenvalue is EDGE × β
        ev = np.linalg.eigvalsh(J)
        assert ev[-1] == pytest.approx(families.EDGE * 0.7, rel=1e-12)
        # p patterns: ξᵀξ has rank p, so n − p eigenvalues of J (its diagonal p removed, then scaled) are the lowest
        p = families.PATTERNS if family == "hopfield" else 7
        assert np.sum(np.isclose(ev, ev[0], rtol=0, atol=1e-9)) == 14 - p
    else:
        assert (J ** 2).sum() / 14 == pytest.approx(0.49, rel=1e-12)
    alone = families.compare_families(8, 0.5, 3, families=(family,), seed=2)["families"][family]
    together = families.compare_families(8, 0.5, 4, seed=2)["families"][family]
    for method, got in alone.items():     # an instance does not depend on the other families or instances run
        if method == "second_moment":
            assert got == together[method][:3]
            continue
        assert got["rmse_m"] == together[method]["rmse_m"][:3]


def test_one_error_recomputed_independently():
    """Instance 1 of the diluted family, redrawn by hand, solved by TAP's SK-averaged equations with a plain damped
    loop and measured against a brute-force enumeration written here."""
    got = families.compare_families(6, 0.5, 2, families=("diluted",), seed=5)["families"]["diluted"]["tap"]
    rng = np.random.default_rng([5, 0, 1])
    J = families.family_couplings("diluted", 6, 0.5, rng)
    h = 0.3 * rng.standard_normal(6)
    states = np.array([[1 - 2 * ((k >> i) & 1) for i in range(6)] for k in range(64)], float)
    logw = 0.5 * np.einsum("si,ij,sj->s", states, J, states) + states @ h
    w = np.exp(logw - logw.max())
    exact = (w[:, None] * states).sum(0) / w.sum()
    beta2, m = (J ** 2).sum() / 6, np.zeros(6)
    for _ in range(5000):
        m = 0.5 * m + 0.5 * np.tanh(h + J @ m - m * beta2 * (1 - np.mean(m ** 2)))
    assert got["rmse_m"][1] == pytest.approx(np.sqrt(np.mean((m - exact) ** 2)), rel=1e-8)


def test_tables_and_ratios_say_what_the_numbers_are():
    r = {"families": {"diluted": {"tap": {"rmse_m": [0.2, 0.4], "converged": [True, True]},
                                  "tap_site": {"rmse_m": [0.1, None], "converged": [True, False]},
                                  "adaptive_tap": {"rmse_m": [0.05, 0.1], "converged": [True, True]}}}}
    assert families.ratio_text(r, "tap") == "0.25" and families.ratio_text(r, "tap_site") == "0.50"
    assert "per-site TAP 1" in families.table(r)


@pytest.mark.parametrize("kwargs, match", [({"family": "sk"}, "family"), ({"n": 1}, "n"), ({"beta": 0.0}, "beta"),
                                           ({"beta": float("nan")}, "beta")])
def test_bad_family_input_is_named(kwargs, match):
    args = {"family": "ferro", "n": 6, "beta": 0.5, **kwargs}
    with pytest.raises(ValueError, match=match):
        families.family_couplings(args["family"], args["n"], args["beta"], np.random.default_rng(0))
    with pytest.raises(ValueError, match="n"):
        families.compare_families(ising.MAX_EXACT_SPINS + 1, 0.5, 1)
    with pytest.raises(ValueError, match="families"):
        families.compare_families(6, 0.5, 1, families="ferro")


CLAIM = next(c for c in claims.CLAIMS if c.id == "ising-adaptive-tap-compensates")


def _numbers(atap, tap=(1.0, 1.1, 0.9), tsite=(0.8, 0.9, 0.7), fams=families.FAMILIES):
    s = {"fam_beta": 0.5, "fam_n": 18, "fam_instances": 3}
    for f in fams:
        s.update({f"fam_{f}_atap_m_inst": list(atap), f"fam_{f}_tap_m_inst": list(tap), f"fam_{f}_tsite_m_inst": list(tsite),
                  f"fam_{f}_naive_m_inst": [2.0, 2.0, 2.0]})
    return s


def test_the_compensation_rule_reaches_every_outcome():
    """The per-site rule: a Hebbian family whose advantage over per-site TAP is far larger than on SK couplings of its
    strength holds, the same advantage partly, a smaller one fails, and so does a family where adaptive TAP converges
    too rarely; the rule before the ninth round (below half of the SK-averaged TAP's error in every family) and the
    SK-relative readings are declared alternatives that can move it."""
    from mfattn.meanfield.claims_ising_families import _example, _z_example
    assert CLAIM.grade(_z_example(0.2)) == "holds"
    assert CLAIM.grade(_z_example(0.45)) == "partly"
    assert CLAIM.grade(_z_example(0.9)) == "fails"
    unsolved = _z_example(0.2)
    unsolved["fam_diluted_atap_m_inst"] = unsolved["fam_diluted_atap_m_inst"][:5] + [None]       # 5 of 6 converged
    assert CLAIM.grade(unsolved) == "fails"
    alt = lambda start: next(a.rule for a in CLAIM.alternatives if a.name.startswith(start))  # noqa: E731
    former = alt("reading: keeps its advantage over the SK-averaged TAP")
    assert former(_example(0.4)) == "holds" and former(_example(0.6)) == "partly" and former(_example(1.1)) == "fails"
    relative = alt("reading: against adaptive TAP's own advantage")
    assert relative(_example(0.1)) == "holds" and relative(_example(0.2)) == "partly"
    assert relative(_example(0.3)) == "fails"        # above SK's own 0.2: its advantage shrinks there
    control = _example(0.1)
    control["fam_ferro_atap_m_inst"] = [0.5 * x for x in control["fam_ferro_tap_m_inst"]]
    assert relative(control) == "holds" and alt("against SK's advantage at β = 0.5 as above")(control) == "fails"
    with pytest.raises(verdicts.Undecidable, match="coupling families"):
        CLAIM.grade({"fam_beta": 0.5})


def test_the_claim_tests_the_blogs_sentence_and_reads_the_stored_families():
    assert CLAIM.origin == "ours" and "compensate for the lack of knowledge" in CLAIM.quote.text
    s = claims._numbers({**_summary_stub(), "families": {"n": 18, "beta": 0.5, "instances": 3, "families": {
        "ferro": {m: {"rmse_m": [0.1, 0.2, 0.3], "converged": [True] * 3} for m in
                  ("naive", "tap", "tap_site", "adaptive_tap")}}}})
    assert s["fam_ferro_atap_m_inst"] == [0.1, 0.2, 0.3] and s["fam_n"] == 18


def _summary_stub():
    m = {"rmse_m": 0.1, "rmse_c": 0.1, "first_any": None, "stable_fraction_by_damping": [1.0, 1.0],
         "points_unstable": 0, "points_not_converged": 0, "converged_fraction_by_damping": [1.0, 1.0]}
    return {"methods": {"naive": m}, "beta": 0.5, "n": 18, "instances": 3, "vector_max_dev": 1e-15, "at_beta": 1.0,
            "damping_betas": [0.5, 2.0], "dampings": [0.5, 0.05]}


def test_the_claim_is_decided_with_instances_a_theory_did_not_solve():
    """A non-converged instance is stored as None: the rule, its note, its numbers and its spread all take it."""
    from mfattn.meanfield.claims_ising_families import _z_example
    s = {**_z_example(0.2), "fam_instances": 6}
    s["fam_hopfield_tsite_m_inst"] = s["fam_hopfield_tsite_m_inst"][:5] + [None]   # per-site TAP failed once
    s["fam_hopfield_tap_m_inst"] = s["fam_hopfield_tap_m_inst"][:4] + [None, 1.0]
    sk_tap = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0]
    d = CLAIM.decide({**s, "atap_m": 0.006, "tap_m": 0.01, "tap_m_inst": sk_tap,
                      "atap_m_inst": [0.6 * x * (1 + 0.001 * k) for k, x in enumerate(sk_tap)]}, chapter="ising")
    assert d.verdict == "confirmed" and "not converged" in d.note
    assert any(v is None for v in d.premises["spread"]["values"]["RMSE of m, TAP, hopfield"])


def test_every_family_is_near_the_paramagnetic_phase_at_beta_half():
    """A referee's finding: Hebbian couplings scaled to the SK second moment have their largest eigenvalue above 1 at
    β = 0.5 on every draw (the retrieval phase, where every theory fails); matched to SK's edge they sit at 0.8. The
    other two families stay near SK's (median largest eigenvalue at most 0.95 over 40 draws, n = 18)."""
    for family in families.FAMILIES:
        tops = [np.linalg.eigvalsh(families.family_couplings(family, 18, 0.5, np.random.default_rng([0, 1, k])))[-1]
                for k in range(40)]
        assert np.median(tops) < 0.95, (family, np.median(tops))

