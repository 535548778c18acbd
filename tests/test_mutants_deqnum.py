"""Numbers of :mod:`mfattn.implicit.claims_deq_numbers` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6): the roundings quoted as safe bounds, the statistics of a small synthetic variant
table (two seeds, digits whose differences are counted here by hand) and the texts of one and two seeds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mfattn.implicit import claims_deq_numbers as dn
from mfattn.implicit import claims_deq_seeds as ds
from mfattn.implicit.variants import pack_correct


def test_binomial_se_of_ten_thousand_digits():
    assert dn.binomial_se(90.0) == pytest.approx(0.3, rel=1e-12)          # 100 · √(0.9 · 0.1 / 10⁴)
    assert dn.binomial_se(50.0, n=100) == pytest.approx(5.0, rel=1e-12)


def test_down_and_up_round_to_one_decimal_by_default():
    assert ds.down(1.27) == "1.2" and ds.up(1.21) == "1.3"
    assert ds.down(1.279, 2) == "1.27" and ds.up(1.271, 2) == "1.28"
    assert ds.down(-0.05) == "-0.1" and ds.up(-0.05) == "0.0"


@pytest.mark.parametrize("x, text", [(0.0, "0%"), (1.0, "100%"), (0.9995, "99.9%"), (0.0004, "0.1%"),
                                     (0.42, "42%"), (0.996, "99.6%")])
def test_share_never_reads_0_or_100_percent_unless_it_is(x, text):
    assert dn._share(x) == text


def _row(key, seed, correct, conv=0.9, loss=0.1):
    correct = np.asarray(correct, bool)
    return {"key": key, "seed": seed, "test_accuracy": float(correct.mean()), "forward_converged": conv,
            "final_loss": loss, "correct": pack_correct(correct), "test_examples": correct.size,
            "forward_iterations": 10 + seed, "backward_iterations": 20 + seed}


def _table():
    n = 1000
    base = np.zeros(n, bool)
    base[:750] = True                                    # blog: 75 % right
    other = base.copy()
    other[740:750] = False                               # 10 right under blog only
    other[750:755] = True                                # 5 right under the variant only
    other1 = base.copy()
    other1[100:104] = False                              # 4 right under blog only
    return n, [_row("blog", 0, base, conv=0.95), _row("blog", 1, base, conv=0.85),
               _row("naive", 0, other, conv=0.5, loss=0.3), _row("naive", 1, other1, conv=0.7, loss=0.5)]


def test_variant_numbers_over_two_seeds():
    n, rows = _table()
    out = dn._variant_numbers(rows)
    assert out["var_blog"] == pytest.approx(75.0) and out["var_naive_seeds"] == 2
    accs = [100 * 745 / n, 100 * 746 / n]
    assert out["var_naive_acc_list"] == pytest.approx(accs)
    assert out["var_naive_sd"] == pytest.approx(abs(accs[0] - accs[1]) / math.sqrt(2))    # ddof = 1
    assert out["var_naive_conv_sd"] == pytest.approx(0.2 / math.sqrt(2))
    assert out["var_naive_loss"] == pytest.approx(0.4)
    # paired per seed: blog minus naive, points, and the discordant digits counted above
    assert out["gain_naive_d"] == pytest.approx([100 * 5 / n, 100 * 4 / n])
    assert out["gain_naive_n10"] == [10, 4] and out["gain_naive_n01"] == [5, 0]
    se = out["gain_naive_se"]
    assert se == pytest.approx([100 * math.sqrt((15 / n - (5 / n) ** 2) / n), 100 * math.sqrt((4 / n - (4 / n) ** 2) / n)])
    # both within a point of the blog model: the paired SEs of "as good as"
    assert out["pair_se_near_max"] == pytest.approx(max(se)) and out["pair_se_near_min"] == pytest.approx(min(se))


def test_variant_numbers_of_one_seed_leave_the_spread_out():
    n, rows = _table()
    out = dn._variant_numbers([r for r in rows if r["seed"] == 0])
    assert math.isnan(out["var_naive_sd"]) and math.isnan(out["var_naive_conv_sd"])
    assert "plain_acc_max" not in out


def test_variant_numbers_with_plain_but_no_blog():
    n, rows = _table()
    plain = [dict(r, key="plain") for r in rows if r["key"] == "naive"]
    out = dn._variant_numbers(plain)
    assert "plain_acc_max" not in out and out["var_plain_seeds"] == 2


def _gain(d, v, n10, n01, lo=-1.0, hi=1.0):
    return {"g_d": d, "g_v": v, "g_n10": n10, "g_n01": n01, "g_lo": lo, "g_hi": hi}


def test_disagreement_tries_the_statistics_from_two_seeds_on():
    assert ds.disagreement(_gain([0.5], [0.01], [60], [10]), "g") == \
        "One seed: the statistics over seeds cannot be tried."
    # two seeds: the primary interval (given) excludes 0; the t-interval over two seeds (t = 12.7) cannot
    two = ds.disagreement(_gain([0.5, 0.6], [0.01, 0.01], [60, 70], [10, 10], lo=0.1, hi=1.0), "g")
    assert two.startswith("The statistics disagree: 0 is inside the untruncated interval, the t-interval only")


def test_over_seeds_text_of_one_seed_has_no_t_interval():
    text = ds.over_seeds_text(_gain([0.5], [0.01], [60], [10]), "g")
    assert "t over the seeds +nan to +nan" in text
    assert "exact paired test over the 10,000 digits pooled p = " in text


def test_one_seed_and_seed_numbers():
    assert ds.one_seed("a", "b")({"a": 2, "b": None}) == {"a": [2.0]}
    s = {"x": 1.0, "x_seeds": [1.0, None, 3.0], "y": 5}
    assert ds.seed_numbers(s, 2)["x"] == 3.0 and math.isnan(ds.seed_numbers(s, 1)["x"])
    assert ds.seed_numbers(s, 0)["y"] == 5


def _straight_path():
    """21 frames (one per epoch of 100 steps) on the straight line from A to B: frame t has closed exactly t/20."""
    a = np.array([[4.0, 1.0, 2.0], [1.0, 4.0, 1.0], [2.0, 1.0, 4.0]])
    b = np.array([[4.0, 3.0, 0.0], [2.0, 4.0, 3.0], [1.0, 2.0, 4.0]])
    t = np.arange(21) / 20
    norms = a[None] + t[:, None, None] * (b - a)[None]
    return norms, 100.0 * np.arange(21), t


def test_organisation_numbers_of_a_straight_path():
    norms, snaps, t = _straight_path()
    out = dn._organisation_numbers(norms, snaps)
    off = ~np.eye(3, dtype=bool)
    corr = np.array([np.corrcoef(n[off], norms[-1][off])[0, 1] for n in norms])   # Pearson, off the diagonal
    assert out["epoch1_at"] == 1.0 and out["epoch1_frames"] == 1 and out["snapshot_every"] == 100.0
    assert out["epoch1_closed"] == pytest.approx(0.05) and out["epoch1_corr"] == pytest.approx(corr[1])
    assert out["half_closed_epoch"] == 10.0                  # closed = 0.5 exactly at frame 10 counts
    assert out["mid_epoch"] == 5.0 and out["mid_closed"] == pytest.approx(0.25)   # a quarter of the frames in
    assert out["mid_corr"] == pytest.approx(corr[5])
    both = (corr >= 0.9) & (t >= 0.5)
    assert out["holds_epoch"] == float(np.argmax(both))
    assert out["late_closed_sd"] == pytest.approx(0.0, abs=1e-12)
    assert out["norm_growth"] == pytest.approx(np.linalg.norm(norms[-1]) / np.linalg.norm(norms[0]))
    n = norms[-1]
    assert out["norm_asymmetry_bound"] == pytest.approx(np.linalg.norm(n - n.T) / np.linalg.norm(n + n.T))
    assert out["cls_row_share"] == pytest.approx(n[0].sum() / n.sum())


def test_init_numbers_in_points_per_scale():
    rows = [{"factor": 1.0, "seed": s, "forward_converged": c, "test_accuracy": a, "steps": 300}
            for s, c, a in ((0, 0.9, 0.97), (1, 0.8, 0.95))] + \
           [{"factor": 4.0, "seed": s, "forward_converged": c, "test_accuracy": a, "steps": 300}
            for s, c, a in ((0, 0.5, 0.40), (1, 0.25, 0.90))]
    out = dn._init_numbers(rows)
    assert out["init_acc_x1_list"] == pytest.approx([97.0, 95.0])
    assert out["init_acc_x4_list"] == pytest.approx([40.0, 90.0])
    assert out["init_conv_x4_list"] == [0.5, 0.25] and out["init_conv_x4"] == pytest.approx(0.375)
    assert out["init_acc_blog"] == pytest.approx(96.0) and out["init_acc_top"] == pytest.approx(65.0)
    assert out["init_broke"] == 1 and out["init_top_factor"] == 4.0 and out["init_seeds"] == 2
    assert out["init_conv_blog_min"] == 0.8 and out["init_conv_top_max"] == 0.5
    assert math.isnan(out["init_gain_lo"])                   # no per-digit results: nothing to pair
