"""Edges of :mod:`mfattn.implicit.claims_deq_organisation` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6, round 3): the knife-edge sentence appears only within 0.01 of the √½ line, and
the cls row's noise check is strict.
"""

from __future__ import annotations

import math

from mfattn.implicit import claims_deq_organisation as org


def test_the_knife_edge_sentence_only_within_a_hundredth_of_the_line():
    line = math.sqrt(0.5)
    assert org._knife_edge({"epoch1_corr_seeds": [0.9, line + 0.011]}) == ""
    assert org._knife_edge({"epoch1_corr_seeds": [0.9, line - 0.02]}) == ""
    near = org._knife_edge({"epoch1_corr_seeds": [0.9, line + 0.005], "epoch1_corr_step": 0.03})
    assert f"the worst seed's correlation after one epoch, {line + 0.005:.4f}, lies 0.0050 " in near
    assert "(the curve moves by about 0.03 a frame there" in near
    assert org._knife_edge({}) == ""


def test_the_cls_noise_check_is_strict():
    def ok(sd, spread):
        return org._cls_noise_check({"cls_gap_late_sd": sd, "row_share_init_spread": spread})[0]
    assert ok(0.0039, 0.004) and not ok(0.004, 0.004) and not ok(0.005, 0.004)
