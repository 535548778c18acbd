"""The premises of chapter 5's verdicts (mfattn.structural.claims_designs*): the identities the multi-hop
readings rest on, the alternatives that decide whether a verdict is robust, the symmetric accuracy band with its
blow-up outcome, and the per-unit values the full profile stores beside its means (each mean recomputed from them).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from mfattn.companion import premises, store, verdicts
from mfattn.structural import analysis
from mfattn.structural import claims_designs as cd
from mfattn.structural import claims_designs_expanding as X
from mfattn.structural import claims_designs_multihop as M
from mfattn.structural import multihop as mh
from mfattn.structural.claims_designs_numbers import DIMS, PS

ROOT = store.project_root()
CLAIMS = {c.id: c for c in verdicts.declared("designs")}
STORED = cd.stored_numbers(ROOT, "designs")[0] if ROOT else {}
needs_stored = pytest.mark.skipif(not STORED.get("mass_x0_one_seeds"), reason="no stored per-unit designs numbers")


# --- the identities behind the multi-hop readings -------------------------------------------------------------

def _enumerated_two_hop(P: np.ndarray, X_: np.ndarray) -> np.ndarray:
    """E[x_{E_i} + x_{E_{E_i}}] by enumerating every edge set (each token i picks its parent E_i with probability
    P[i, E_i], independently): the expectation the paper's (P + P²)VX stands for."""
    n = P.shape[0]
    out = np.zeros_like(X_)
    for edges in itertools.product(range(n), repeat=n):
        w = np.prod([P[i, e] for i, e in enumerate(edges)])
        for i in range(n):
            out[i] += w * (X_[edges[i]] + X_[edges[edges[i]]])
    return out


def test_the_two_hop_operator_is_the_edge_expectation_only_without_self_edges():
    """(P + P²)X is E[x_{E_i} + x_{E_{E_i}}] when no token may pick itself: the second hop E_{E_i} is then another
    token's edge, independent of E_i. With self-edges (as the models here allow: the query attends to itself) a
    token that picks itself hops again on the same edge, and the enumeration differs (referee, issue 42 #2): the
    operator is the expectation of independent hops, not of one edge set."""
    g = torch.Generator().manual_seed(3)
    scores = torch.randn(5, 5, generator=g, dtype=torch.float64) * 2
    X_ = torch.randn(5, 2, generator=g, dtype=torch.float64)
    no_self = scores.masked_fill(torch.eye(5, dtype=torch.bool), -1e4)   # exp(-1e4) is 0 in float64
    M_no = mh.hop_operator(no_self, 2).numpy()
    np.testing.assert_allclose(M_no @ X_.numpy(), _enumerated_two_hop(torch.softmax(no_self, -1).numpy(), X_.numpy()),
                               atol=1e-12)
    P = torch.softmax(scores, -1).numpy()
    gap = np.abs(mh.hop_operator(scores, 2).numpy() @ X_.numpy() - _enumerated_two_hop(P, X_.numpy())).max()
    assert gap > 1e-3


def test_for_uniform_attention_multihop_is_one_layer_doubled():
    """For a uniform P (every row 1/T), P² = P, so (P + P²)VX = 2PVX: multi-hop is exactly one-layer attention with
    its output doubled (the ablation, where every model attends almost uniformly; referee, issue 42 #3)."""
    T = 5
    M_ = mh.hop_operator(torch.zeros(T, T, dtype=torch.float64), 2)
    np.testing.assert_allclose(M_.numpy(), np.full((T, T), 2 / T), atol=1e-15)


@needs_stored
def test_the_ablations_attention_is_near_uniform():
    """On the ablation the query's mean mass on x₀ and x₁ of every model lies within 0.03 of the uniform share 1/5
    (per seed within 0.08: seed 3's one-layer run puts 0.13 on x₀), so the identity above nearly holds for what the
    ablation's multi-hop model computes; where a seed's attention stayed uniform throughout training the two models
    coincide (seed 2: held-out errors equal to 1e-5)."""
    for m in ("one", "multi", "two", "one_x2", "multi_norm"):
        for r in ("x0", "x1"):
            v = np.array(STORED[f"abl_mass_{r}_{m}_seeds"])
            assert abs(v.mean() - 0.2) < 0.03 and np.abs(v - 0.2).max() < 0.08, (m, r, v)
    multi, x2 = (np.array(STORED[f"abl_nmse_{m}_seeds"]) for m in ("multi", "one_x2"))
    assert abs(multi[2] - x2[2]) < 1e-5


# --- the ordering's alternatives --------------------------------------------------------------------------------

@needs_stored
def test_the_ordering_verdict_is_inconclusive_not_refuted_and_names_what_moves_it():
    """The claim split by the third referee round. "Better than one-layer attention": on the stored per-seed errors
    (20 seeds) the two-sided intervals (primary) of both controls end a few thousandths below 0 around positive mean
    differences, so "with differences"; the one-sided and exact tests, the plain comparison, the text's reading of
    the root and the stuck seed left out give more, the public code's operator (I + P + P²)/3 less (its mean
    difference is negative): fragile both ways. "Approaches two-layer attention": multi-hop closes 30 % of the gap,
    more than two jackknife standard errors short of half: not reproduced."""
    claim = CLAIMS["designs-multihop-ordering"]
    d = claim.decide(STORED, "", "designs")
    assert d.verdict == "reproduced with differences" and d.premises["robustness"] == "fragile"
    assert STORED["nmse_seeds_n"] == 20 and STORED["ctrl_x2_lo"] < 0 < STORED["ctrl_x2_hi"]
    assert set(d.numbers) == {f"nmse_{m}" for m in M._MODELS}          # the ledger shows the numbers it rests on
    rows = {a["name"]: a["verdict"] for a in d.premises["alternatives"]}
    code_op = next(k for k in rows if k.startswith("the public code's normalised operator"))
    assert rows[code_op] == "not reproduced"
    two_sided = next(k for k in rows if k.startswith("a two-sided 95 % Student-t"))
    assert rows[two_sided] == "reproduced with differences"
    # resolved as worse than a control (the upper end below 0) refutes it: shift multi-hop's errors up by the interval
    worse = {**STORED, "nmse_multi_seeds": [v + 0.09 for v in STORED["nmse_multi_seeds"]]}
    assert M.multihop_rule("", part="better")(worse) == "fails"
    assert "two-sided 95 %" in claim.how and "point estimate" in claim.how
    near = CLAIMS["designs-multihop-approaches"].decide(STORED, "", "designs")
    assert near.verdict == "not reproduced"
    assert M.gap_closed(min(STORED["nmse_one"], STORED["nmse_one_x2"]), STORED["nmse_multi"], STORED["nmse_two"]) \
        + 2 * M.jackknife_se("")(STORED) < 0.5


def test_the_one_sided_t_quantiles_match_the_two_sided_table_at_double_the_level():
    """t_{0.95}(df) is the two-sided 90 % quantile: checked against a direct numerical inversion of Student's t."""
    def cdf(t, df, n=20000):
        x = np.linspace(0.0, t, n)
        norm = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
        pdf = norm * (1 + x ** 2 / df) ** (-(df + 1) / 2)
        return 0.5 + np.trapezoid(pdf, x)
    for df in (1, 4, 9, 29, 60):
        assert cdf(M.t95_one_sided(df), df) == pytest.approx(0.95, abs=2e-4)


# --- expanding attention: the symmetric band and the blow-up -------------------------------------------------

def _ratios(**over):
    base = {f"loss_ratio_{d}_{p}": 1.0 for d in DIMS for p in PS}
    return {**base, **{f"loss_ratio_{k}": v for k, v in over.items()}}


def test_the_accuracy_band_is_symmetric_and_a_blow_up_is_its_own_outcome():
    rule = CLAIMS["designs-expanding-accuracy"].rule
    assert rule(_ratios()) == "holds"
    assert rule(_ratios(**{"10_2": 1 / 1.6})) == "partly"             # far below 1: not equivalence (was 'within')
    assert rule(_ratios(**{"10_2": 1 / 1.4})) == "holds"
    assert rule(_ratios(**{"50_2": 0.05})) == "holds"                 # standard attention blew up: not counted
    assert rule(_ratios(**{"50_2": 20.0})) == "partly"                # expanding attention blew up: against
    assert X.one_sided_rule()(_ratios(**{"10_2": 0.05, "10_5": 0.5})) == "holds"   # what the old rule said
    note = CLAIMS["designs-expanding-accuracy"].note(_ratios(**{"50_2": 0.05}))
    assert "blew up" in note and "d = 50, p = 1/2" in note


# --- the per-unit values stored beside the means --------------------------------------------------------------

@needs_stored
def test_the_stored_means_are_the_means_of_the_stored_per_unit_values():
    """Each mean the full profile stored is recomputed from the per-unit values stored beside it (to float
    round-off): the spreads describe the very numbers the verdicts read."""
    s = STORED
    for prefix in ("", "abl_"):
        for r in ("x0", "x1"):
            for m in ("one", "multi", "two"):
                assert np.mean(s[f"{prefix}mass_{r}_{m}_seeds"]) == pytest.approx(s[f"{prefix}mass_{r}_{m}"], rel=1e-6)
    for d in DIMS:
        for p in PS:
            assert np.mean(s[f"ops_{d}_{p}_seeds"]) == pytest.approx(s[f"ops_{d}_{p}"], rel=1e-9)
            assert np.mean(s[f"ops_run_{d}_{p}_seeds"]) == pytest.approx(s[f"ops_run_{d}_{p}"], rel=1e-9)
            for prefix, key in (("exp", "loss_ratio"), ("code", "code_loss_ratio")):
                e, st = (np.mean(s[f"{prefix}_tail_mse_{m}_{d}_{p}_seeds"]) for m in ("expanding", "standard"))
                assert e / st == pytest.approx(s[f"{key}_{d}_{p}"], rel=1e-6)
    for name in ("paper", "digamma29", "digamma", "cavi"):
        for p in PS:
            assert np.mean(s[f"{name}_mse_{p}_seeds"]) == pytest.approx(s[f"{name}_mse_{p}"], rel=1e-6)
    lift = np.array(s["far_lift_runs"])
    assert lift.size == s["far_lift_n"] and lift.mean() == pytest.approx(s["far_lift_mean"], rel=1e-9)
    assert max(s["paper_elbo_grad_vectors"]) == s["paper_elbo_grad"] and max(s["cavi_elbo_grad_vectors"]) == s[
        "cavi_elbo_grad"]


def test_elbo_gradients_per_vector_give_the_largest_as_before():
    g = torch.Generator().manual_seed(11)
    sc = torch.randn(8, 50, generator=g, dtype=torch.float64) * 2
    for u in ("plugin", "cavi"):
        per = analysis.elbo_gradients(sc, 0.1, 0.9, u)
        assert per.shape == (8,) and per.max() == analysis.elbo_gradient(sc, 0.1, 0.9, u)
    assert analysis.elbo_gradients(sc, 0.1, 0.9, "cavi", tol=0.01).max() < 1e-2


# --- the checks can fail -------------------------------------------------------------------------------------

@needs_stored
def test_every_designs_threshold_check_holds_on_the_stored_data_and_can_fail():
    """Each check reads the stored distribution (true here: tests/test_premises.py) and turns False when the data
    it reads are made noisier or moved onto the threshold."""
    noisy = dict(STORED)
    for k, v in STORED.items():   # every per-unit list spread by a factor ten about its mean
        if k.endswith(("_seeds", "_runs", "_vectors")) and isinstance(v, list) and len(v) > 1:
            a = np.array(v, float)
            noisy[k] = list(a.mean() + 10 * (a - a.mean()))
    noisy["cavi_elbo_grad"] = 1e-9
    noisy["nmse_two"] = 0.15                      # the trained models reading both tokens no better than 0.1
    for pre in ("exp", "code"):                   # a standard-attention seed halfway between trained and stuck
        head = STORED[f"{pre}_head_mse_standard_10_2_seeds"]
        noisy[f"{pre}_tail_mse_standard_10_2_seeds"] = [0.5 * head[0]] + list(STORED[f"{pre}_tail_mse_standard_10_2_seeds"][1:])
    noisy["cavi_tol01_elbo_grad_vectors"] = [2e-2] * 64
    noisy["replay_curve_max_dev"] = [3e-6] * 20
    noisy["replay_curve_first_dev"] = [2e-5] * 20
    for d in DIMS:
        for p in PS:
            noisy[f"loss_ratio_{d}_{p}"] = noisy[f"code_loss_ratio_{d}_{p}"] = 0.12
    failed = set()
    for c in CLAIMS.values():
        for t in c.thresholds:
            if t.check is None:
                continue
            assert t.check(STORED)[0], (c.id, t.name, t.check(STORED)[1])
            try:
                with np.errstate(invalid="ignore", divide="ignore"):   # spread ratios may turn negative: no log
                    ok = t.check(noisy)[0]
            except (verdicts.Undecidable, ValueError):
                ok = False
            if not ok:
                failed.add((c.id, t.name))
    checked = {(c.id, t.name) for c in CLAIMS.values() for t in c.thresholds if t.check is not None}
    assert failed == checked, sorted(checked - failed)


def test_the_replay_is_a_claim_of_ours_and_every_paper_claim_is_quoted():
    assert CLAIMS["designs-replay"].origin == "ours"
    # the second referee round: the measured wall-clock time and the CAVI ladder are ours, the window's paper sentence
    # is decided inside the first window, its reach beyond it is ours
    assert {c.id for c in CLAIMS.values() if c.origin == "ours"} >= {
        "designs-expanding-wallclock-measured", "designs-expanding-cavi-ladder", "designs-expanding-window"}
    assert CLAIMS["designs-expanding-wallclock"].origin == CLAIMS["designs-expanding-adaptive"].origin == "paper"
    assert "first window" in CLAIMS["designs-expanding-cavi-ladder"].claim
    assert "log(1 − q̂)" in CLAIMS["designs-expanding-accuracy"].claim
    for c in CLAIMS.values():
        if c.origin == "paper":
            assert c.quote is not None, c.id
            if premises.papers_dir() is not None:
                assert premises.quote_found(c.quote, "designs"), c.id


# --- the second referee round ---------------------------------------------------------------------------------

@needs_stored
def test_the_ablation_is_not_tested_because_its_positive_control_failed():
    """At ten seeds × 20 000 steps two layers still do not beat one-layer attention with its output doubled on the
    ablation: its rule raises Undecidable (not tested, saying why) instead of refuting multi-hop, and the note names
    the seeds where no model learned to attend."""
    d = CLAIMS["designs-multihop-ablation"].decide(STORED, "", "designs")
    assert d.verdict == verdicts.NOT_TESTED and "positive control failed" in d.note
    assert STORED["abl_seeds"] == 10 and STORED["abl_steps"] == 20000
    assert STORED["abl_ctrl_control_lo"] < 0 < STORED["abl_ctrl_control_hi"]
    assert cd.uniform_seeds(STORED) and f"{len(cd.uniform_seeds(STORED))} of 10 seeds" in d.note
    with pytest.raises(verdicts.Undecidable, match="positive control"):
        M.multihop_rule("abl_")(STORED)


@needs_stored
def test_the_rationale_is_decided_on_the_task_itself():
    """The shares of Var(y) left by one token are stored per seed for both roots; with the code's root x₀ alone leaves
    less than two-layer attention's held-out error (fails), drawn like the noise every single token leaves more than a
    fifth (the other reading holds)."""
    s = STORED
    assert len(s["premise_nmse_x0_seeds"]) == s["nmse_seeds_n"] and len(s["abl_premise_nmse_x0_seeds"]) == s["abl_seeds"]
    assert np.median(s["premise_nmse_single_seeds"]) == pytest.approx(s["premise_nmse_single_median"])
    assert s["premise_nmse_x0_median"] < s["nmse_two"] < 0.1
    assert CLAIMS["designs-multihop-rationale"].rule(s) == "fails"
    assert M.premise_rule(prefix="abl_")(s) == "holds"
    assert max(s["premise_nmse_x0x1_seeds"]) < 1e-9            # x₀ and x₁ together determine y


@needs_stored
def test_a_stuck_standard_seed_is_left_out_of_its_settings_ratio():
    """In the code's setting at d = 50, p = 1/25 one of eight standard-attention seeds never left its starting loss:
    left out, the ratio of the means is far outside the band; averaged in (the rule of the first referee round) it
    pulls the ratio inside it. The verdict is decided on the first and is fragile to the second."""
    ratios, dropped = X.kept_ratios(STORED, "code_loss_ratio")
    assert len(STORED["code_tail_mse_standard_50_25_seeds"]) == 8 and len(dropped[50, 25]) == 1
    assert ratios[50, 25] > 10 and STORED["code_loss_ratio_50_25"] < 1.5
    assert X.accuracy_rule("code_loss_ratio")(STORED) == "partly"
    assert X.accuracy_rule("code_loss_ratio", every_seed=True)(STORED) == "holds"
    # the paper's setting: the same rule gives the same grade as before (its blow-up seed is left out too)
    assert X.accuracy_rule("loss_ratio")(STORED) == X.accuracy_rule("loss_ratio", every_seed=True)(STORED) == "fails"


@needs_stored
def test_the_window_scales_with_the_parent_inside_the_first_window_and_not_beyond():
    s = STORED
    assert CLAIMS["designs-expanding-adaptive"].rule(s) == "holds" and s["near_rho_lo"] > 0.5
    assert CLAIMS["designs-expanding-window"].rule(s) == "fails"
    assert len(s["near_rho_runs"]) == len(s["near_lift_runs"]) == 24


@needs_stored
def test_the_code_count_reaches_full_attention_at_d_10():
    s = STORED
    assert s["ref_code_ops_10_10"] > 1 and s["ref_code_ops_10_25"] > 1 and max(s[f"ref_code_ops_50_{p}"] for p in PS) < 1
    alt = next(a for a in CLAIMS["designs-expanding-operations"].alternatives if "d = 10 and 50" in a.name)
    assert alt.rule(s) == "fails"


def test_cavi_from_several_starts_can_end_at_different_fixed_points():
    """Issue 42 item 5: CAVI's fixed point is not unique. From the hyper-prior's first window and from other first
    windows the same score vectors can end at different horizons; every start ends at a fixed point (a further
    sweep moves nothing), and the ELBO gap of the hyper-prior start is never negative."""
    import torch
    from mfattn.structural.cavi_starts import cavi_start_dependence
    s = torch.randn(32, 50, generator=torch.Generator().manual_seed(8), dtype=torch.float64) * 2
    out = cavi_start_dependence(s)
    assert len(out["cavi_start_horizons"]) == 4 and all(len(h) == 32 for h in out["cavi_start_horizons"])
    assert 0.0 < out["cavi_start_share"] < 1.0                  # some vectors have several fixed points, some one
    assert min(out["cavi_start_elbo_gap"]) >= 0.0 and max(out["cavi_start_elbo_gap"]) > 0.0
    one = [i for i, n in enumerate(out["cavi_start_distinct"]) if n == 1]
    assert all(out["cavi_start_elbo_range"][i] < 1e-6 for i in one)   # one end point: one ELBO
    with pytest.raises(ValueError, match="first_windows"):
        cavi_start_dependence(s, first_windows=[1])
