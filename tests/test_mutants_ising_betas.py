"""Edges of :mod:`mfattn.meanfield.claims_ising_betas` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): the every-β ordering needs both TAPs below naive mean field at EVERY
β for "partly"; the note names SK's critical point only where the factor 2 first fails at β = 1; the every-β
ordering and its note read β strictly below 1.
"""

from __future__ import annotations

from mfattn.meanfield import claims_ising_betas as cb


def _c(rows, betas=None):
    betas = betas or [0.25 * (i + 1) for i in range(len(rows))]
    a, t, n = zip(*rows)
    return {"betas": betas, "atap_c_by_beta": list(a), "tap_c_by_beta": list(t), "naive_c_by_beta": list(n)}


def test_the_every_beta_order_is_partly_only_where_both_taps_beat_naive_at_every_beta():
    assert cb.ordered_every_beta(_c([(1, 2, 3), (1, 2, 3)])) == "holds"
    assert cb.ordered_every_beta(_c([(1, 2, 3), (2, 1, 3)])) == "partly"      # order of the two TAPs reversed once
    assert cb.ordered_every_beta(_c([(1, 2, 3), (1, 4, 3)])) == "fails"       # TAP above naive at one β
    assert cb.ordered_every_beta(_c([(1, 2, 3), (4, 2, 3)])) == "fails"       # adaptive TAP above naive at one β
    assert cb.ordered_every_beta(_c([(1, 2, 3), (4, 2, 3)], betas=[0.5, 1.0])) == "holds"   # β = 1 is left out
    assert cb.ordered_every_beta(_c([(1, 2, 3), (4, 2, 3)], betas=[0.5, 1.5])) == "holds"   # so is β = 1.5
    assert cb.ordered_every_beta(_c([(1, 2, 3), (4, 2, 3)], betas=[0.5, 0.95])) == "fails"  # β = 0.95 is read


def _ratios(ratios, betas):
    return {"betas": betas, "atap_by_beta": list(ratios), "tap_by_beta": [1.0] * len(ratios)}


def test_the_critical_point_is_named_only_where_the_factor_first_fails_at_beta_one():
    at_one = cb.per_beta_note(_ratios([0.2, 0.3, 0.52], [0.5, 0.75, 1.0]))
    assert "fails at β = 1 (0.520), SK's critical point in the infinite system" in at_one
    below = cb.per_beta_note(_ratios([0.2, 0.51, 0.52], [0.5, 0.75, 1.0]))
    assert "holds at every stored β below 0.75 and fails at β = 0.75 (0.510), β = 1 (0.520)." in below
    assert "critical point" not in below
    assert "holds at every stored β from 0.5 to 1" in cb.per_beta_note(_ratios([0.2, 0.3, 0.49], [0.5, 0.75, 1.0]))


def test_the_ordering_note_reads_beta_strictly_below_one():
    """A reversal (ratio ≥ 1) at β = 1 itself is not reported; at β = 0.95 it is."""
    s = {"betas": [0.5, 0.95, 1.0], "atap_c_by_beta": [0.5, 0.9, 2.0], "tap_c_by_beta": [1.0, 1.0, 1.0],
         "naive_c_by_beta": [3.0, 3.0, 3.0]}
    assert cb.ordering_beta_note(s) == " At the other temperatures adaptive TAP's error of C over TAP's is 0.50 at β = 0.5, 0.90 at β = 0.95."
    s["atap_c_by_beta"][1] = 1.0
    assert "the order of the two TAPs reverses at β = 0.95, where" in cb.ordering_beta_note(s)
