"""Verdicts of Chapters 2-3 (mfattn.implicit.claims): the declared rules decide numbers derived from stored\nfull-profile results written into a scratch root (the code that reads and derives them is what is tested)."""

import json

import numpy as np
import pytest

from mfattn.companion import store, verdicts
from mfattn.implicit import claims
from mfattn.implicit.variants import pack_correct

from rule_boundaries import check_case


class Recorder:
    def __init__(self):
        self.verdicts = {}

    def verdict(self, claim_id, source, claim, verdict, evidence, numbers=None, note=None, **fields):
        self.verdicts[claim_id] = (verdict, numbers, note)


def _write_deq(root, naive_extra_errors, summary=None, interactions=()):
    full = root / "data" / "full"
    full.mkdir(parents=True)
    runs = {f"seed {s}": {"finished": True, "evals": {"test_accuracy": [0.1, a]}} for s, a in enumerate((0.9916, 0.9917, 0.9901))}
    (full / "deq_mnist_progress.json").write_text(json.dumps({"runs": runs}))
    rows = []
    for seed in (0, 1, 2):
        blog = np.ones(10_000, bool)
        blog[:90] = False
        naive = blog.copy()
        if naive_extra_errors >= 0:
            naive[100:100 + naive_extra_errors] = False
        else:                                           # naive mean field right on some of the blog model's errors
            naive[:-naive_extra_errors] = True
        for key, correct, loss in (("blog", blog, 0.011), ("naive", naive, 0.023), ("plain", np.zeros(10_000, bool), 3e4),
                                   ("phantom", blog, 0.3), ("m", blog, 0.012)):
            rows.append({"key": key, "variant": key, "seed": seed, "test_accuracy": float(correct.mean()),
                         "test_examples": 10_000, "final_loss": loss, "forward_iterations": 26.0 if key != "plain" else 8.8,
                         "backward_iterations": 26.0 if key != "plain" else 8.4,
                         "forward_converged": {"plain": 0.07, "m": 0.47}.get(key, 0.98), "correct": pack_correct(correct)})
        for key, n_seeds, errors in interactions:      # (key, seeds it has, test errors per run)
            if seed < n_seeds:
                correct = np.ones(10_000, bool)
                correct[:errors] = False
                rows.append({**rows[-1], "key": key, "variant": key, "test_accuracy": float(correct.mean()),
                             "final_loss": 0.05, "correct": pack_correct(correct)})
    (full / "deq_variants.json").write_text(json.dumps({"rows": rows, "missing": []}))
    snaps = np.arange(0, 20_001, 250)
    noise = np.random.default_rng(0).random((17, 17))
    norms = np.stack([(1.0 + s / 10_000) * (1 + 0.1 * noise) for s in snaps])
    norms[:, 0, 1:] += np.linspace(0, 1, len(snaps))[:, None]         # a pattern that forms during training
    store.atomic_save_npz(full / "deq_mnist_seed0_cpu.npz", coupling_norms=norms, snapshot_step=snaps)
    if summary is not None:
        claims.save(root, "deq", summary)


STAB = {"rho_blog_median": 1.05, "rho_blog_max": 1.2, "rho_blog_unstable": 0.8, "rho_plain_median": 1.3,
        "rho_plain_unstable": 1.0, "plain_anderson_converged": 0.9, "stability_digits": 1000, "acc_step_1": 0.2,
        "acc_step_3": 0.7, "acc_step_10": 0.98, "acc_fixed": 0.9916,
        "blog_conv_late_seeds": [0.95, 0.97, 0.96]}   # the stored runs' last quarter (deq-anderson's primary)
BLOG_ERRORS = 90


def _decide(root, chapter="deq"):
    rec = Recorder()
    claims.record(rec, root, chapter)
    return rec.verdicts


@pytest.mark.parametrize("extra, verdict", [(40, "confirmed"), (10, "confirmed with differences"),
                                           (3, "not tested"), (-40, "refuted")])
def test_the_pooled_paired_gain_decides_the_learned_correction(tmp_path, extra, verdict):
    """Naive mean field wrong on ``extra`` more digits than the blog model in each of three seeds (none fixed):
    40 -> gain 0.40 points, interval above 0, naive at 98.70 % (outside the blog's 99.1 ± 0.3): confirmed;
    10 -> 0.10 points, interval above 0, naive at 99.00 % (meets the claim): with differences;
    3 -> 0.03 points, interval 0.03 ± 4.30·0.01 covers both a gain and none: inconclusive, not tested (neither shown
    nor refuted); −40 (naive mean field right on 40 of the blog model's errors) -> −0.40 points, interval below 0:
    refuted (a claim of ours: the blog does not say the layer fails without f_θ). The per-seed differences,
    variances and discordant digits are stored beside the pooled gain."""
    _write_deq(tmp_path, naive_extra_errors=extra, summary=STAB)
    got, numbers, note = _decide(tmp_path)["deq-learned-onsager"]
    assert got == verdict
    assert numbers["gain_naive"] == pytest.approx(extra / 100) and numbers["gain_naive_k"] == 3
    assert numbers["gain_naive_tau"] == 0 and numbers["var_naive"] == pytest.approx(100 - (BLOG_ERRORS + extra) / 100)
    assert ("covers both a gain and none" in note) == (extra == 3)
    s = claims.full_numbers(tmp_path, "deq")
    assert s["gain_naive_d"] == pytest.approx([extra / 100] * 3)
    assert (s["gain_naive_n10"], s["gain_naive_n01"]) == (([extra] * 3, [0] * 3) if extra > 0 else ([0] * 3, [-extra] * 3))
    assert s["gain_naive_v"] == pytest.approx([abs(extra) / 1e4 - (extra / 1e4) ** 2] * 3)
    assert "95 % interval" in note and "exact paired test over the 30,000 digits pooled" in note
    assert "a sign test over 3 seeds cannot reach 5 %" in note
    # the m variant's numbers come with how often its solves reached a fixed point (issue: gradients off it)
    assert "reach the tolerance in only 47%, 47%, 47% of the training steps" in note


def test_stability_numbers_are_glued_and_one_step_is_decided_against_the_fixed_point(tmp_path):
    _write_deq(tmp_path, naive_extra_errors=40, summary=STAB)
    got = _decide(tmp_path)
    assert got["deq-anderson"][0] == "confirmed"
    # the comparison with plain iteration reads the last quarter of the stored runs, which the fixture lacks
    assert got["deq-anderson-plain"][0] == "not tested" and "var_plain_conv_late_seeds" in got["deq-anderson-plain"][2]
    verdict, numbers, note = got["deq-one-step-mnist"]
    assert verdict == "refuted" and numbers["step_gap"] == pytest.approx(79.2) and "median 1.05" in note
    assert "median is 1.05" in claims.stability_prose(tmp_path)
    # The summary predates the changes' correlation: deq-stability-training is not tested, naming the number.
    verdict, numbers, note = got["deq-stability-training"]
    assert verdict == "not tested" and "rho_train_change" in note and "--chapter deq" in note


@pytest.mark.parametrize("step_1, grade, verdict", [(0.9887, "holds", "confirmed with differences"),
                                                    (0.9817, "partly", "confirmed with differences"),
                                                    (0.9800, "fails", "refuted")])
def test_one_step_within_binomial_noise_of_the_fixed_point(tmp_path, step_1, grade, verdict):
    """The fixed point: 99.16 %. One step within 0.3 points holds, but it rests on seed 0 alone: graded at best with
    differences, and the note says so."""
    _write_deq(tmp_path, naive_extra_errors=40, summary={**STAB, "acc_step_1": step_1})
    claim = _claim("deq-one-step-mnist")
    assert claim.grade(claims.full_numbers(tmp_path, "deq")) == grade
    got, _, note = _decide(tmp_path)["deq-one-step-mnist"]
    assert got == verdict and (grade != "holds" or "rests on one seed only" in note)


@pytest.mark.parametrize("change_corr, level_corr, verdict", [(0.6, 0.95, "confirmed with differences"),  # one seed
                                                              (0.1, 0.95, "confirmed with differences"),
                                                              (-0.6, 0.95, "refuted"), (0.1, 0.2, "refuted")])
def test_stability_training_reads_the_correlation_of_changes_not_of_levels(tmp_path, change_corr, level_corr, verdict):
    stab = {**STAB, "rho_train_first": 0.24, "rho_train_last": 1.19, "rho_train_cross": 6000.0,
            "rho_train_stays": 6000.0, "fwd_iters_first": 17.9, "fwd_iters_last": 35.5, "rho_train_corr": level_corr,
            "rho_train_change_corr": change_corr, "rho_train_changes": 19}
    _write_deq(tmp_path, naive_extra_errors=40, summary=stab)
    got, numbers, note = _decide(tmp_path)["deq-stability-training"]
    assert got == verdict and numbers["rho_train_changes"] == 19 and "above 1 from step 6,000 on" in note


def test_without_stored_runs_every_claim_is_not_tested_with_the_command(tmp_path):
    got = _decide(tmp_path)
    assert {v for v, _, _ in got.values()} == {"not tested"}
    assert all("python -m mfattn" in note for _, _, note in got.values())
    assert claims.stability_prose(tmp_path).startswith("not stored yet")
    assert {v for v, _, _ in _decide(None, "transformer").values()} == {"not tested"}


@pytest.mark.parametrize("slope, verdict", [(2.73, "reproduced"), (2.55, "reproduced with differences"),
                                            (2.4, "not reproduced"), (2.2, "not reproduced"), (3.7, "not reproduced")])
def test_cost_exponent_verdict_and_its_fit_window(tmp_path, slope, verdict):
    """The cost is decided on the operation count stored beside the per-size times (data/full/transformer/
    per_unit.json), whatever the timing; the timed exponent is the alternative reading, read as the nearest integer
    power beyond two standard errors of the fit over its sizes: 2.4 is nearer 2 than 3."""
    from mfattn.implicit import claims_transformer_numbers, explicit_cost

    claims.save(tmp_path, "transformer", {"max_dev_step": 1e-16, "tap_slope": slope, "tap_fit_min_nd": 512,
                                          "tap_fit_max_nd": 4096, "rho_show": 0.9, "spread_nores": 1e-16,
                                          "spread_res": 0.3, "corr_in_ms": 0.07, "corr_in_g": 0.4, "corr_in_m": 0.5,
                                          "corr_above_ms": 0.2, "corr_above_g": 0.5, "corr_above_m": 0.7})
    nd = np.array([512.0, 1024, 2048, 4096])
    seconds = 1e-9 * nd ** slope * np.exp([0.05, -0.05, -0.05, 0.05])        # curvature: SE 0.046
    flops = [float(explicit_cost.linear_response_flops(int(x) // 16, 16)) for x in nd]
    (tmp_path / "data" / "full" / "transformer" / "per_unit.json").write_text(json.dumps(
        {"tap": {"nd": nd.tolist(), "seconds": seconds.tolist(), "fit_min_nd": 512.0, "flops": flops,
                 "counted": [flops[0], None, None, None], "count_max_dev": 1e-13}}))
    got = _decide(tmp_path, "transformer")
    assert got["transformer-explicit-cost"][0] == "reproduced" and "Nd = 512 to 4096" in got["transformer-explicit-cost"][2]
    claim = _claim("transformer-explicit-cost")
    numbers = claims_transformer_numbers.stored_numbers(tmp_path, "transformer")[0]
    timing = next(a for a in claim.alternatives if a.name.startswith("reading: wall time, the exponent fitted"))
    assert {"holds": "reproduced", "partly": "reproduced with differences",
            "fails": "not reproduced"}[timing.rule(numbers)] == verdict
    assert claims.stored_cost_exponent(tmp_path) == f"exponent {slope:.2f} over Nd = 512 to 4096"
    # without the per-draw values the others rest on the summary's one draw: graded at best with differences
    assert got["transformer-one-step"][0] == "reproduced"
    assert got["transformer-rank-collapse"][0] == "confirmed with differences"
    # decided on the error pooled over every in-range instance, which only the per-draw file holds: not tested here
    assert got["transformer-amortised-onsager"][0] == "not tested"
    assert got["transformer-site-feature-onsager"][0] == "confirmed with differences"  # ours, f(m, s): 0.07, one draw


def test_each_interaction_variant_is_decided_on_every_seed_with_its_spread(tmp_path):
    """Softmax couplings stored for one seed at 98.8 %, the MLP mixer for two at 60 %: two verdicts, each with its
    seeds, spread and pooled paired gain; the blog model is at 99.1 %. Each seed is graded alone: one seed within the
    margin holds, but one seed caps it at "with differences"; seeds below the floor refute. Both are ours on MNIST: the blog's §4.4 sentence speaks of the large-scale
    regime, a reading declared and left undecided."""
    _write_deq(tmp_path, naive_extra_errors=3, interactions=(("softmax", 1, 120), ("mixer", 2, 4000)))
    got = _decide(tmp_path)
    verdict, numbers, note = got["deq-softmax-couplings"]
    assert verdict == "confirmed with differences" and "rests on one seed only" in note
    assert "large-scale regime" in note
    assert numbers["var_softmax_median"] == 98.8 and "var_softmax_sd" not in numbers
    assert "1 seed(s): softmax couplings 98.80 % (median 98.80 %, range 98.80 to 98.80)" in note
    assert numbers["gain_softmax"] == pytest.approx(0.3) and "(1 seeds)" in note and "did not learn" not in note
    verdict, numbers, note = got["deq-mixer-couplings"]
    assert verdict == "refuted" and "2 seed(s): MLP-mixer couplings 60.00 %, 60.00 %" in note
    assert numbers["var_mixer_sd"] == 0 and numbers["gain_mixer"] == pytest.approx(39.1)


def test_an_interaction_variant_not_stored_is_not_tested_with_the_command(tmp_path):
    _write_deq(tmp_path, naive_extra_errors=3, interactions=(("mixer", 3, 200),))
    got = _decide(tmp_path)
    assert got["deq-mixer-couplings"][0] == "confirmed with differences"      # 98.0 % < 99.1 - 0.4
    verdict, numbers, note = got["deq-softmax-couplings"]
    assert verdict == "not tested" and not numbers and "var_softmax" in note and "--interactions --train" in note


@pytest.mark.parametrize("acc, grade", [(98.81, "holds"), (98.79, "partly"), (92.01, "partly"), (92.0, "fails")])
def test_interaction_grade_thresholds(acc, grade):
    assert claims.interaction_grade(acc, 99.2) == grade
    with pytest.raises(ValueError, match="acc must be"):
        claims.interaction_grade(float("nan"), 99.2)


def test_unit_crossing_tells_a_first_crossing_from_staying_above():
    from mfattn.implicit.stability import crossing_text, unit_crossing

    steps = [0, 1000, 2000, 3000, 4000]
    assert unit_crossing(steps, [0.2, 1.1, 0.9, 1.2, 1.3]) == (1000.0, 3000.0)
    assert unit_crossing(steps, [0.2, 1.1, 1.2, 1.2, 1.3]) == (1000.0, 1000.0)
    assert unit_crossing(steps, [0.2, 1.1, 1.2, 1.2, 0.9]) == (1000.0, -1.0)
    assert unit_crossing(steps, [0.2] * 5) == (-1.0, -1.0)
    assert crossing_text(1000.0, 1000.0) == "from step 1,000 on"
    assert crossing_text(1000.0, 3000.0) == "first at step 1,000, and at every kept step from step 3,000 on"
    assert crossing_text(1000.0, -1.0) == "first at step 1,000, but not at the last kept step"
    with pytest.raises(ValueError, match="steps and values"):
        unit_crossing([0, 1], [0.5])


@pytest.mark.parametrize("plain_conv, verdict", [(0.08, "confirmed"), (0.6, "confirmed with differences"),
                                                 (0.99, "refuted")])
def test_the_anderson_verdict_rests_on_convergence_in_every_seed(tmp_path, plain_conv, verdict):
    """Plain iteration that converges in fewer than half of its solves in every seed, Anderson in at least 90 %:
    confirmed (our comparison: the blog only uses Anderson), however well one seed's accuracy does; a seed whose
    plain solves mostly converge makes it 'with differences', one that converges as often as Anderson (98 %) undoes
    it. The blog's own claim, that its solver finds the fixed point, holds with f_θ on g (98 % in every seed) and
    fails with f_θ on m (47 %): a reading that moves the verdict."""
    _write_deq(tmp_path, naive_extra_errors=3, summary=STAB)
    path = tmp_path / "data" / "full" / "deq_variants.json"
    table = json.loads(path.read_text())
    for r in table["rows"]:
        if r["key"] == "plain" and r["seed"] == 2:
            r.update(forward_converged=plain_conv, test_accuracy=0.84)
    path.write_text(json.dumps(table))
    s = claims.full_numbers(tmp_path, "deq")
    assert s["plain_conv_max"] == plain_conv and s["blog_conv_min"] == 0.98
    from mfattn.implicit.claims_deq_mnist import _plain_at     # the reading over training as a whole
    grade = _plain_at(0.9, 0.5)(s)
    assert {"holds": "confirmed", "partly": "confirmed with differences", "fails": "refuted"}[grade] == verdict
    got, numbers, note = _decide(tmp_path)["deq-anderson-plain"]
    assert got == "not tested" and "var_plain_conv_late_seeds" in note   # the fixture has no stored runs
    claim = _claim("deq-anderson")
    d = claim.decide(claims.full_numbers(tmp_path, "deq"), chapter="deq")
    assert d.verdict == "confirmed" and d.premises["robustness"] == "fragile"
    readings = {a["name"][:40]: a["verdict"] for a in d.premises["alternatives"] if a["kind"] == "reading"}
    # f_θ on m refutes; training as a whole (98 % in every seed) confirms; the last epoch and the public code's own
    # solver cannot be read without the stored runs' histories and analyses
    assert sorted(readings.values()) == ["cannot decide", "cannot decide", "confirmed", "refuted"]


def test_one_seed_whose_training_broke_down_is_named_and_does_not_decide_alone(tmp_path):
    """A fixture in the shape of an older softmax run (commit 226f19f, since re-run): 96.3 %, 96.2 % and one that
    diverged at the end (14 %). The accuracy claim grades the runs that learned (96.3 and 96.2 %: with differences,
    ours on MNIST), the reliability claim counts the broken one; the note names the broken seed and the spread;
    without per-digit results the pooled gain is said to be missing, not invented."""
    _write_deq(tmp_path, naive_extra_errors=3)
    path = tmp_path / "data" / "full" / "deq_variants.json"
    table = json.loads(path.read_text())
    blog = [r for r in table["rows"] if r["key"] == "blog"]
    table["rows"] += [{**b, "key": "softmax", "variant": "softmax", "test_accuracy": a, "correct": None}
                      for b, a in zip(blog, (0.9632, 0.9622, 0.1408))]
    path.write_text(json.dumps(table))
    verdict, numbers, note = _decide(tmp_path)["deq-softmax-couplings"]
    assert verdict == "confirmed with differences" and numbers["var_softmax_median"] == 96.22   # the runs that learned
    assert numbers["var_softmax_min"] == 14.08 and numbers["var_softmax_sd"] == 47.5
    assert "96.32 %, 96.22 %, 14.08 %" in note and "Training did not learn the task in seed 2" in note
    assert "no stored per-digit results to pair" in note and "gain_softmax" not in numbers


def test_early_organisation_is_read_from_the_stored_frames(tmp_path):
    """The fixture's cls row forms linearly over training while all norms grow: at the end of the first epoch the
    numbers are those of the frame at step 1000 (recomputed here by hand), the verdict follows the declared rule,
    and the cls claim sees the cls row stand out."""
    _write_deq(tmp_path, naive_extra_errors=3)
    s = claims.full_numbers(tmp_path, "deq")
    fr = np.load(tmp_path / "data" / "full" / "deq_mnist_seed0_cpu.npz")
    norms, snaps = fr["coupling_norms"], fr["snapshot_step"]
    off = ~np.eye(17, dtype=bool)
    at = int(np.flatnonzero(snaps == 1000)[0])
    assert s["epoch1_corr"] == pytest.approx(np.corrcoef(norms[at][off], norms[-1][off])[0, 1], abs=1e-12)
    assert s["epoch1_closed"] == pytest.approx(1 - np.linalg.norm(norms[at] - norms[-1])
                                               / np.linalg.norm(norms[0] - norms[-1]), abs=1e-12)
    assert s["epoch1_at"] == 1.0 and s["epoch1_frames"] == 4
    verdict, numbers, note = _decide(tmp_path)["deq-early-organisation"]
    both = s["epoch1_corr"] >= 0.9 and s["epoch1_closed"] >= 0.5
    either = s["epoch1_corr"] >= 0.5 ** 0.5 or s["epoch1_closed"] >= 0.5
    assert verdict == ("reproduced" if both else "reproduced with differences" if either else "not reproduced")
    assert "not the direction inside each d × d block" in note
    rows = norms[-1].sum(axis=1) / norms[-1].sum()
    assert s["cls_row_share"] == pytest.approx(rows[0]) and s["patch_row_share_max"] == pytest.approx(rows[1:].max())
    verdict, numbers, note = _decide(tmp_path)["deq-cls-organisation"]
    # stored before the per-seed analyses: seed 0's numbers read as one seed, graded at best with differences
    assert verdict == "confirmed with differences" and "rests on one seed only" in note
    assert f"the cls row's share: {s['cls_row_share']:.3g};" in note


def test_the_accuracy_claim_quotes_its_spread_and_a_safe_lower_bound(tmp_path):
    _write_deq(tmp_path, naive_extra_errors=3)
    verdict, numbers, note = _decide(tmp_path)["deq-mnist-accuracy"]
    assert verdict == "reproduced" and numbers["acc_mean"] == 99.11 and numbers["acc_min"] == 99.01
    assert "± 0.09 (s.d. over seeds)" in note and "every seed at least 99.0 %" in note    # 99.01: not "99.1"


@pytest.mark.parametrize("conv_top, extra_errors, verdict, learning", [
    (0.3, 0, "confirmed", "confirmed with differences"), (0.95, 40, "confirmed with differences", "confirmed"),
    (0.99, -40, "refuted", "refuted")])
def test_init_scale_rule_reads_the_stored_runs(tmp_path, conv_top, extra_errors, verdict, learning):
    """Stored rows of the initialisation study, decided as the blog's two claims, stability and learning: the
    largest scale losing its fixed point (30 % of solves converged against 98 %) is "reproduced" for stability; one
    converging less often in every seed (95 %) "with differences"; as often (99 %) "not reproduced". Learning: 40
    more errors in every seed at every larger scale (a pooled paired gain of 0.4 points, interval above 0) is
    "reproduced"; equal accuracies (an interval around 0: inconclusive) "with differences", not a refutation; 40
    fewer errors at the larger scales (interval below 0) "not reproduced"."""
    _write_deq(tmp_path, naive_extra_errors=3)
    rows = []
    for factor in (1.0, 10 ** 0.5, 10.0):
        for seed in (0, 1, 2):
            correct = np.ones(10_000, bool)
            shift = 10 if factor > 1 else 0                  # other digits wrong, as many: no gain, some variance
            correct[shift:shift + 90 + (extra_errors if factor > 1 else 0)] = False
            rows.append({"key": f"init_x{factor:.3g}", "factor": factor, "seed": seed, "steps": 2000,
                         "test_accuracy": float(correct.mean()), "test_examples": 10_000,
                         "forward_converged": conv_top if factor == 10.0 else 0.98, "correct": pack_correct(correct)})
    (tmp_path / "data" / "full" / "deq").mkdir(parents=True, exist_ok=True)
    (tmp_path / "data" / "full" / "deq" / "init_scale.json").write_text(json.dumps({"rows": rows}))
    s = claims.full_numbers(tmp_path, "deq")
    assert s["init_conv_top"] == pytest.approx(conv_top) and s["init_conv_blog"] == pytest.approx(0.98)
    assert s["init_top_factor"] == 10.0 and (s["init_gain_lo"] > 0) == (extra_errors > 0)
    assert (s["init_gain_hi_min"] < 0) == (extra_errors < 0)
    got, numbers, note = _decide(tmp_path)["deq-init-scale"]
    assert got == verdict and "2000 steps and 3 seeds" in note
    assert _decide(tmp_path)["deq-init-scale-learning"][0] == learning
    assert s["init_gain_x3.16_d"] == pytest.approx([extra_errors / 100] * 3) and s["init_conv_x10_list"] == [conv_top] * 3


def _claim(claim_id):
    from mfattn.companion import verdicts

    return next(c for ch in ("deq", "transformer") for c in verdicts.declared(ch) if c.id == claim_id)


U = 1 / 17
BOUNDARY_CASES = [          # numbers just either side of each declared threshold: a moved threshold fails one
    ("deq-early-organisation", {"epoch1_corr": 0.9, "epoch1_closed": 0.5}, "holds"),
    ("deq-early-organisation", {"epoch1_corr": 0.8999, "epoch1_closed": 0.5}, "partly"),
    ("deq-early-organisation", {"epoch1_corr": 0.9, "epoch1_closed": 0.4999}, "partly"),
    ("deq-early-organisation", {"epoch1_corr": 0.9, "epoch1_closed": 0.1}, "partly"),     # 'almost all' as written:
    ("deq-early-organisation", {"epoch1_corr": 0.8999, "epoch1_closed": 0.1}, "fails"),   # √½ no longer partial
    ("deq-early-organisation", {"epoch1_corr": 0.1, "epoch1_closed": 0.5}, "partly"),
    ("deq-early-organisation", {"epoch1_corr": 0.1, "epoch1_closed": 0.4999}, "fails"),
    ("deq-cls-organisation", {"cls_row_share": 0.065, "patch_row_share_max": 0.06, "row_share_init_spread": 0.0049,
                              "uniform_row_share": U}, "holds"),
    ("deq-cls-organisation", {"cls_row_share": 0.065, "patch_row_share_max": 0.06, "row_share_init_spread": 0.0051,
                              "uniform_row_share": U}, "partly"),
    ("deq-cls-organisation", {"cls_row_share": U + 1e-6, "patch_row_share_max": 0.06, "row_share_init_spread": 0.004,
                              "uniform_row_share": U}, "partly"),
    ("deq-cls-organisation", {"cls_row_share": U - 1e-6, "patch_row_share_max": 0.06, "row_share_init_spread": 0.004,
                              "uniform_row_share": U}, "fails"),
    ("deq-implicit-gradient", {"grad_rel_error": 1e-4, "grad_converged": True}, "holds"),
    ("deq-implicit-gradient", {"grad_rel_error": 1.001e-4, "grad_converged": True}, "partly"),
    ("deq-implicit-gradient", {"grad_rel_error": 1e-2, "grad_converged": True}, "partly"),
    ("deq-implicit-gradient", {"grad_rel_error": 1.001e-2, "grad_converged": True}, "fails"),
    ("deq-implicit-gradient", {"grad_rel_error": 1e-9, "grad_converged": False}, None),
    ("deq-init-scale", {"init_conv_blog": 0.98, "init_conv_top": 0.4899, "init_broke": 0, "init_conv_top_max": 0.6,
                        "init_conv_blog_min": 0.97}, "holds"),
    ("deq-init-scale", {"init_conv_blog": 0.98, "init_conv_top": 0.4901, "init_broke": 0, "init_conv_top_max": 0.9699,
                        "init_conv_blog_min": 0.97}, "partly"),
    ("deq-init-scale", {"init_conv_blog": 0.98, "init_conv_top": 0.4901, "init_broke": 0, "init_conv_top_max": 0.97,
                        "init_conv_blog_min": 0.97}, "fails"),
    ("deq-init-scale", {"init_conv_blog": 0.98, "init_conv_top": 0.97, "init_broke": 1, "init_conv_top_max": 0.99,
                        "init_conv_blog_min": 0.97}, "holds"),
    ("deq-init-scale-learning", {"init_gain_lo_min": 1e-4, "init_gain_lo": 1.0, "init_gain_hi_min": 2.0}, "holds"),
    ("deq-init-scale-learning", {"init_gain_lo_min": 0.0, "init_gain_lo": 1e-4, "init_gain_hi_min": -1.0}, "partly"),
    ("deq-init-scale-learning", {"init_gain_lo_min": -1.0, "init_gain_lo": 0.0, "init_gain_hi_min": 1e-4}, "partly"),
    ("deq-init-scale-learning", {"init_gain_lo_min": -1.0, "init_gain_lo": 0.0, "init_gain_hi_min": 0.0}, "fails"),
    ("deq-init-scale-learning", {"init_gain_lo_min": float("nan"), "init_gain_lo": float("nan")}, None),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": 0.9001}, "holds"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": -0.9001}, "holds"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": 0.8999}, "partly"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": -0.5001}, "partly"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": 0.4999}, "fails"),
    ("deq-correction-onsager-form", {"corr_reaction_cosine": float("nan")}, None),
    ("transformer-multihead-blocks", {"off_block_split": 0.99e-12, "off_block_dense": 0.86}, "holds"),
    ("transformer-multihead-blocks", {"off_block_split": 1.01e-12, "off_block_dense": 0.86}, "partly"),
    ("transformer-multihead-blocks", {"off_block_split": 1.01e-6, "off_block_dense": 0.86}, "fails"),
    ("transformer-multihead-value-maps", {"off_block_value_seeds": [0.5, 0.9, 0.8]}, "holds"),
    ("transformer-multihead-value-maps", {"off_block_value_seeds": [0.4999, 0.9, 0.8]}, "partly"),
    ("transformer-multihead-value-maps", {"off_block_value_seeds": [1.01e-6, 0.9, 0.8]}, "partly"),
    ("transformer-multihead-value-maps", {"off_block_value_seeds": [1e-6, 0.9, 0.8]}, "fails"),
]


@pytest.mark.parametrize("claim_id, numbers, grade", BOUNDARY_CASES)
def test_the_new_chapter_2_3_rules_either_side_of_each_threshold(claim_id, numbers, grade):
    """None: the numbers cannot decide (an unconverged check, no pairable digits, only a bound that straddles the
    threshold): the rule says so instead of guessing."""
    check_case(_claim(claim_id), numbers, grade)


def _write_seed_runs(root, row_gaps):
    """Stored blog-model runs (data/full/deq/runs) of three seeds whose final cls row exceeds the largest patch row by
    ``row_gaps[s]`` (in units of the total weight): the per-seed organisation numbers come from these."""
    folder = root / "data" / "full" / "deq" / "runs"
    folder.mkdir(parents=True)
    snaps = np.arange(0, 20_001, 250)
    index = {"runs": {}, "missing": []}
    for seed, gap in enumerate(row_gaps):
        norms = np.ones((len(snaps), 17, 17))
        norms[:, 0, :] *= 1 + np.linspace(0, 1, len(snaps))[:, None] * gap * 17 * 17 / 17
        store.atomic_save_npz(folder / f"blog-seed{seed}.npz", **{"history.coupling_norms": norms,
                                                                   "history.snapshot_step": snaps})
        index["runs"][f"blog-seed{seed}"] = {"file": f"blog-seed{seed}.npz", "seed": seed}
    store.atomic_write_json(folder / "index.json", index)


@pytest.mark.parametrize("gaps, verdict", [((0.02, 0.03, 0.025), "confirmed"),
                                           ((0.02, -0.01, 0.03), "refuted")])
def test_organisation_claims_read_every_stored_seed_and_grade_as_far_as_every_seed_shows_it(tmp_path, gaps, verdict):
    """Three stored seeds: the cls claim is confirmed (not capped at one seed) when every seed's cls row stands apart,
    and refuted when one seed's cls row falls below the average, whatever seed 0 shows; the values are seed by seed."""
    _write_deq(tmp_path, naive_extra_errors=3, summary={"analysis_seeds": [0, 1, 2]})
    _write_seed_runs(tmp_path, gaps)
    s = claims.full_numbers(tmp_path, "deq")
    assert len(s["cls_row_share_seeds"]) == 3 and s["organisation_seeds"] == 3
    assert all(c > p for c, p in zip(s["cls_row_share_seeds"], s["patch_row_share_max_seeds"])) == (min(gaps) > 0)
    verdict_now, numbers, note = _decide(tmp_path)["deq-cls-organisation"]
    assert verdict_now == verdict and "rests on one seed only" not in note


def test_stored_runs_join_the_organisation_numbers_only_with_a_chapter_run_that_analysed_every_seed(tmp_path):
    """Runs stored beside a summary of seed 0 alone (a chapter run before the per-seed analyses) are not mixed into it:
    the organisation numbers stay the condensed seed-0 run's until the chapter is re-run."""
    _write_deq(tmp_path, naive_extra_errors=3)
    _write_seed_runs(tmp_path, (0.02, 0.03, 0.025))
    s = claims.full_numbers(tmp_path, "deq")
    assert "cls_row_share_seeds" not in s and "organisation_seeds" not in s


def test_every_seed_grades_by_the_lowest_seed_and_the_median_alternative_by_the_middle_one():
    from mfattn.implicit.claims_deq_seeds import every_seed, seed_values, seeds_of

    def rule(s):
        return "holds" if s["x"] > 1 else "partly" if s["x"] > 0 else "fails"

    s = {"x": 2.0, "x_seeds": [2.0, 0.5, 3.0]}
    assert seeds_of(s) == 3 and seed_values(s, "x") == [2.0, 0.5, 3.0]
    assert every_seed(rule)(s) == "partly" and every_seed(rule, "median")(s) == "holds"
    assert every_seed(rule)({"x": 2.0}) == "holds" and seed_values({"x": 2.0}, "x") == [2.0]   # one seed stored
    assert every_seed(rule)({"x": 2.0, "x_seeds": [2.0, -1.0, 3.0]}) == "fails"
    with pytest.raises(ValueError, match="reading must be"):
        every_seed(rule, "mean")


def test_a_scale_below_the_blogs_is_stored_but_never_decides_the_larger_scale_claims(tmp_path):
    """σ/√10 (added in 0.4) gets its convergence and paired gain stored and named in the note, but neither the
    breakdown count nor the learning rule's bounds read it: the claim is about scales larger than the blog's."""
    from mfattn.implicit.claims_deq_numbers import _init_numbers

    def row(factor, seed, acc, conv):
        correct = np.zeros(100, bool)
        correct[:int(acc * 100)] = True
        return {"factor": factor, "seed": seed, "test_accuracy": acc, "forward_converged": conv, "steps": 5000,
                "test_examples": 100, "correct": pack_correct(correct), "final_loss": 0.1}

    rows = [row(f, s, acc, conv) for s in (0, 1, 2) for f, acc, conv in
            ((1.0, 0.98, 0.99), (10 ** 0.5, 0.97, 0.9), (10.0, 0.1, 0.0), (10 ** -0.5, 0.2, 0.99))]
    out = _init_numbers(rows)
    assert out["init_broke"] == 3                         # the three 10 σ runs, not the small scale's
    assert "init_gain_x0.316" in out and out["init_gain_x0.316"] > 0
    assert out["init_gain_lo_min"] == min(out["init_gain_x3.16_lo"], out["init_gain_x10_lo"])


def test_the_summary_keeps_every_seeds_lists(tmp_path):
    """The chapter saves each seed's numbers as lists beside seed 0's: they are stored as lists of numbers (a
    non-finite value as null), not refused."""
    path = claims.save(tmp_path, "deq", {"acc_fixed": 0.99, "acc_fixed_seeds": [0.99, float("nan"), 0.98],
                                         "analysis_seeds": [0, 1, 2], "grad_converged": True})
    assert store.read_json(path) == {"acc_fixed": 0.99, "acc_fixed_seeds": [0.99, None, 0.98],
                                     "analysis_seeds": [0.0, 1.0, 2.0], "grad_converged": True}


def test_the_feature_floor_model_reads_the_patch_tokens_without_the_layer():
    """The floor of the coupling variants: the blog model's patch embedding with a linear readout. The mean-pooled
    readout is invariant under a permutation of the 16 tokens (as the softmax layer's view of the patches is); the
    flattened one is not; both give 10 logits per image, and the same seed gives the same weights."""
    import torch
    from mfattn.implicit.feature_floor import FeatureFloor

    torch.manual_seed(0)
    mean, flat = FeatureFloor("mean"), FeatureFloor("flat")
    x = torch.randn(3, 1, 28, 28)
    tokens = mean.embed(x)
    perm = torch.randperm(16)
    assert mean(x).shape == flat(x).shape == (3, 10)
    assert torch.allclose(mean.head(tokens[:, perm].mean(dim=1)), mean(x), atol=1e-6)
    assert not torch.allclose(flat.head(tokens[:, perm].flatten(1)), flat.head(tokens.flatten(1)), atol=1e-4)
    with pytest.raises(ValueError, match="readout"):
        FeatureFloor("max")


def test_the_public_solver_is_decided_apart_from_this_books():
    """deq-anderson-public: the solver the blog's configuration line sets up reaches the tolerance on none of the
    analysed steps of the last quarter in any seed (refuted, on every reading); this book's Anderson, deq-anderson,
    on most of them (with differences). A stored summary without the analysis is not tested."""
    from mfattn.implicit.claims_deq_solver import SOLVER_CLAIMS

    claim = SOLVER_CLAIMS[0]
    assert claim.id == "deq-anderson-public" and claim.origin == "ours"
    with pytest.raises(KeyError, match="ref_anderson_conv_last_seeds"):
        claim.rule({})
    assert claim.rule({"ref_anderson_conv_last_seeds": [0.0, 0.0, 0.0]}) == "fails"
    assert claim.rule({"ref_anderson_conv_last_seeds": [0.9, 0.95]}) == "holds"
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    s = claims.stored_numbers(root, "deq")[0]
    if "ref_anderson_conv_last_seeds" in s:
        d = claim.decide(s, chapter="deq")
        assert d.verdict == "refuted" and d.premises["robustness"] == "robust"
        assert max(s["ref_anderson_conv_last_seeds"]) == 0 and "480 to 1,200" in d.note
    if "pub_trained_conv_last" in s:   # the model trained with the public solver in the loop (one seed)
        stored = store.read_json(root / "data" / "full" / "deq" / "public_trained.json")
        assert s["pub_trained_conv_last"] == stored["book_protocol"]["converged_last_quarter"] == 0.0
        assert 99.0 < s["pub_trained_acc"] < 99.4 and stored["steps"] == 20_000 and stored["test_examples"] == 10_000
        late = [c for st, c in zip(stored["analysed_steps"], stored["book_protocol"]["converged"])
                if st >= 0.75 * stored["analysed_steps"][-1]]
        assert len(late) >= 5 and sum(late) == 0
        rows = {a["name"]: a["verdict"] for a in d.premises["alternatives"]}
        assert [v for n, v in rows.items() if n.startswith("weights trained with the public solver")] == ["refuted"]
        assert "Trained with the public solver in the loop" in d.note
