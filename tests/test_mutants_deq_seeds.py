"""Edges of :mod:`mfattn.implicit.claims_deq_seeds` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): a run that stored no per-seed list counts as one seed; an interval whose
end is exactly 0 has 0 inside it (the disagreement sentence).
"""

from __future__ import annotations

from mfattn.implicit import claims_deq_seeds as cs


def test_a_run_without_per_seed_lists_is_one_seed():
    assert cs.seeds_of({"acc": 99.0}) == 1
    assert cs.seeds_of({"acc_seeds": [99.0, 98.9, 99.1], "gap_seeds": [0.1, 0.2]}) == 2
    assert cs.seeds_of({"acc_seeds": []}) == 1


def _numbers(lo, hi):
    return {"g_d": [0.1, 0.2, 0.3], "g_v": [0.01, 0.01, 0.01], "g_lo": lo, "g_hi": hi, "g_n10": [30, 30, 30],
            "g_n01": [10, 10, 10]}


def test_an_untruncated_interval_ending_at_zero_has_zero_inside(monkeypatch):
    """The primary interval excludes 0, the t-interval and the exact test too; the untruncated interval from exactly
    0: 0 inside it alone (a disagreement). From 0.001: every statistic agrees."""
    monkeypatch.setattr(cs.stats, "t_interval", lambda d: {"lo": 0.05, "hi": 0.35})
    monkeypatch.setattr(cs.stats, "exact_paired_test", lambda a, b: {"p": 1e-6})
    for lo, want in ((0.0, "The statistics disagree: 0 is inside the untruncated interval only"),
                     (0.001, "Every statistic over the seeds agrees.")):
        monkeypatch.setattr(cs.stats, "pooled_over_seeds", lambda d, v, truncate=True, lo=lo: {"lo": lo, "hi": 0.4})
        assert cs.disagreement(_numbers(0.02, 0.4), "g").startswith(want)
    monkeypatch.setattr(cs.stats, "t_interval", lambda d: {"lo": -0.35, "hi": -0.05})     # all below 0 now
    for hi, want in ((0.0, "The statistics disagree: 0 is inside the untruncated interval only"),
                     (-0.001, "Every statistic over the seeds agrees.")):
        monkeypatch.setattr(cs.stats, "pooled_over_seeds", lambda d, v, truncate=True, hi=hi: {"lo": -0.4, "hi": hi})
        assert cs.disagreement(_numbers(-0.4, -0.02), "g").startswith(want)
    monkeypatch.setattr(cs.stats, "t_interval", lambda d: {"lo": 0.05, "hi": 0.35})
    monkeypatch.setattr(cs.stats, "pooled_over_seeds", lambda d, v, truncate=True: {"lo": 0.01, "hi": 0.4})
    assert cs.disagreement(_numbers(0.0, 0.4), "g").startswith(
        "The statistics disagree: 0 is inside the truncated interval (primary) only")
