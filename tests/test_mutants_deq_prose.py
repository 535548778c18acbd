"""Edges of :mod:`mfattn.implicit.claims_deq_prose` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): a share of exactly 1 reads "100 %" and only then; the blog model's loss
is glued only where it is stored.
"""

from __future__ import annotations

from mfattn.implicit import claims_deq_prose as cp


def test_a_share_reads_100_percent_only_when_it_is_one():
    assert cp._share(1.0) == "100 %"
    assert cp._share(0.9996) == "99.9 %"
    assert cp._share(0.5) == "50.0 %"


def test_the_blog_models_loss_is_glued_only_where_stored():
    fixed = {"full-interaction-margin": "0.40", "full-interaction-floor": "92 %",
             "full-interaction-former-floor": "95 %"}
    assert cp._interactions({"var_blog_loss": 0.0123}) == {"full-blog-loss": "0.012", **fixed}
    assert cp._interactions({}) == fixed


def _variant(losses=True):
    s = {"var_softmax_median": 97.5, "var_softmax": 97.4, "var_softmax_accs": "97.50 %", "var_blog": 99.1,
         "gain_softmax_n10": [120, 110], "gain_softmax_n01": [20, 30], "var_softmax_loss": 0.05, "var_blog_loss": 0.01,
         "var_softmax_acc_list": [97.5, 97.3], "var_softmax_conv_list": [1.0, 0.9996]}
    if losses:
        s["var_softmax_loss_list"] = [0.051, 0.049]
    return s


def test_a_variant_is_glued_only_with_its_paired_counts_and_its_losses_only_where_stored():
    got = cp._interactions(_variant())
    assert got["full-softmax-losses"] == "0.051, 0.049" and got["full-softmax-gap"].startswith("1.60 points below")
    assert got["full-interaction-conv"] == "softmax couplings, seed by seed, 100 %, 99.9 % of the training steps"
    assert got["full-interaction-paired"].startswith("2 of 2 seeds of the softmax couplings")
    assert "full-softmax-losses" not in cp._interactions(_variant(losses=False))
    no_pairs = {k: v for k, v in _variant().items() if not k.startswith("gain_")}
    assert not any(k.startswith("full-softmax") for k in cp._interactions(no_pairs))
    assert "full-interaction-conv" not in cp._interactions(no_pairs)
