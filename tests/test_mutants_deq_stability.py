"""Edges of :mod:`mfattn.implicit.claims_deq_stability` and :mod:`.claims_deq_solver` that the other tests left free to
change (found by sampled mutation testing, issue 44 item 6, round 3): the paired placebo reading's band is 1.96/√n
of the changes (100 changes: 0.196), every seed beyond it; the public solver's mean-over-seeds reading holds from 0.9.
"""

from __future__ import annotations

import pytest

from mfattn.companion import verdicts
from mfattn.companion.verdicts import Undecidable
from mfattn.implicit import claims_deq_stability as cst


def test_the_paired_placebo_needs_every_seed_beyond_1_96_over_root_n(monkeypatch):
    monkeypatch.setattr(cst, "paired_placebo_interval", lambda s, work="": (0.1, 0.3, 0.2))
    rule = cst._paired_placebo()
    assert rule({"rho_train_changes": 100, "rho_train_change_corr_seeds": [0.197, 0.3]}) == "holds"
    with pytest.raises(Undecidable, match="not every seed's changes correlate beyond the band"):
        rule({"rho_train_changes": 100, "rho_train_change_corr_seeds": [0.195, 0.3]})
    monkeypatch.setattr(cst, "paired_placebo_interval", lambda s, work="": (-0.3, -0.01, -0.2))
    assert rule({"rho_train_changes": 100, "rho_train_change_corr_seeds": [0.5, 0.5]}) == "fails"


def test_the_public_solvers_mean_over_seeds_reading_holds_from_0_9():
    claim = next(c for c in verdicts.declared("deq")
                 if any(a.name.startswith("mean over the seeds instead of the worst seed") for a in c.alternatives)
                 and "ref_anderson_conv_last_seeds" in str(c.examples))
    (rule,) = [a.rule for a in claim.alternatives if a.name.startswith("mean over the seeds instead of the worst seed")]
    assert rule({"ref_anderson_conv_last_seeds": [0.88, 0.96]}) == "holds"      # mean 0.92 (the worst 0.88)
    assert rule({"ref_anderson_conv_last_seeds": [0.84, 0.9]}) == "partly"      # mean 0.87
    assert rule({"ref_anderson_conv_last_seeds": [0.3, 0.6]}) == "fails"        # mean 0.45


def test_the_fisher_reading_fails_only_strictly_below_zero(monkeypatch):
    """A pooled interval ending exactly at 0 neither shows nor excludes the correlation (not tested); ending below 0
    fails; above 0 and above the placebo's pooled correlation holds."""
    s = {"rho_train_changes": 100, "rho_train_change_corr_seeds": [0.1], "placebo_jnorm_change_corr_seeds": [0.0]}
    rule = cst._fisher_at()
    for (r, lo, hi), want in (((-0.2, -0.4, 0.0), None), ((-0.2, -0.4, -0.01), "fails"), ((0.3, 0.1, 0.5), "holds")):
        monkeypatch.setattr(cst, "fisher_pooled", lambda x, n, got=(r, lo, hi): got if x == [0.1] else (0.05, -0.1, 0.2))
        if want is None:
            with pytest.raises(Undecidable, match="not shown either way"):
                rule(s)
        else:
            assert rule(s) == want


@pytest.mark.parametrize("prefix, key", [("a held-out half of training predicted", "rho_train_heldout_r2"),
                                         ("the same held-out prediction from log", "res_train_heldout_r2")])
def test_the_held_out_readings_hold_above_an_r2_of_one_half(prefix, key):
    claim = next(c for c in verdicts.declared("deq") if any(a.name.startswith(prefix) for a in c.alternatives))
    (rule,) = [a.rule for a in claim.alternatives if a.name.startswith(prefix)]
    assert [rule({key: r2}) for r2 in (0.51, 0.5, 0.01, 0.0)] == ["holds", "partly", "partly", "fails"]


def test_an_interval_from_exactly_zero_covers_zero(monkeypatch):
    monkeypatch.setattr(cst, "paired_placebo_interval", lambda s, work="": (0.0, 0.3, 0.1))
    with pytest.raises(Undecidable, match=r"\+0.00 to \+0.30, covers 0: not shown"):
        cst._paired_placebo()({"rho_train_changes": 100, "rho_train_change_corr_seeds": [0.5, 0.5]})


def test_the_public_solver_trained_in_the_loop_reading_holds_from_0_9():
    claim = next(c for c in verdicts.declared("deq")
                 if any(a.name.startswith("weights trained with the public solver") for a in c.alternatives))
    (rule,) = [a.rule for a in claim.alternatives if a.name.startswith("weights trained with the public solver")]
    assert [rule({"pub_trained_conv_last": x}) for x in (0.9, 0.95, 0.89, 0.5, 0.49)] == [
        "holds", "holds", "partly", "partly", "fails"]
