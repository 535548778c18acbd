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
