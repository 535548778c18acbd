"""Edges of :mod:`mfattn.meanfield.claims` (chapter 1's stored numbers, flattened and glued into the prose) that the
other tests left free to change (found by sampled mutation testing, issue 44 item 6, round 3): the strongest
damping is the LAST of the stored ``*_by_damping`` lists (the stored summary's last two dampings, 0.2 and 0.05,
agree on most of them, so a summary where they differ pins it), and the per-instance crossings are glued only where
both theories' per-instance numbers are stored.
"""

from __future__ import annotations

import copy
import json

import pytest

from mfattn.companion import store
from mfattn.meanfield import claims

ROOT = store.project_root()
pytestmark = pytest.mark.skipif(ROOT is None or not (ROOT / claims.SUMMARY).is_file(),
                                reason="no stored full-profile chapter 1 summary (outside a checkout)")


class _Run:
    def __init__(self):
        self.numbers = {}

    def number(self, name, value, fmt="{}"):
        self.numbers[name] = fmt.format(value)


def _glued(root):
    run = _Run()
    claims.glue_full(run, root)
    return run.numbers


def _stored():
    return json.loads((ROOT / claims.SUMMARY).read_text())


def _write(tmp_path, s):
    path = tmp_path / claims.SUMMARY
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(s))
    return tmp_path


def test_the_glued_per_instance_crossings_are_the_stored_summarys():
    """Each instance's own line (claims_ising_plefka.instance_crossings) on the stored 40 instances: TAP crosses on
    all 40 and keeps its factor 2 on 32; adaptive TAP crosses on 29 and keeps it on 28 of them."""
    got = _glued(ROOT)
    assert got["full-instances-cross-tap"] == "40 of 40" and got["full-instances-kept-tap"] == "32 of 40"
    assert got["full-instances-cross-adaptive_tap"] == "29 of 40"
    assert got["full-instances-kept-adaptive_tap"] == "28 of 29"
    assert got["full-relaxing-strong-tap"] == "1" and got["full-at-beta-own-strong-adaptive_tap"] == "1.30"


def test_the_crossings_need_both_theories_per_instance_numbers(tmp_path):
    """A summary whose naive mean field lacks the per-instance errors (older code) glues "(not stored)" for the
    crossings, never a KeyError, although adaptive TAP's per-instance numbers are there."""
    s = _stored()
    del s["methods"]["naive"]["rmse_m_per_instance"]
    got = _glued(_write(tmp_path, s))
    assert got["full-instances-cross-tap"] == "(not stored)" == got["full-instances-kept-adaptive_tap"]
    assert got["full-n"] == str(s["n"])


def test_the_strongest_damping_is_the_last_stored_one(tmp_path):
    """With the three dampings' numbers made distinct (0.5, 0.2, 0.05 in that order), the prose's "strong" numbers
    and the rules' flattened ``_s1`` / ``_own_at`` are the last damping's (0.05), never the middle one's."""
    s = copy.deepcopy(_stored())
    e = s["methods"]["tap"]
    e.update(relaxing_points_by_damping=[7, 8, 9], stalled_points_by_damping=[4, 5, 6],
             stable_fraction_by_damping=[0.25, 0.5, 0.75], at_beta_by_damping=[1.0, 1.1, 1.2])
    got = _glued(_write(tmp_path, s))
    assert got["full-relaxing-strong-tap"] == "9" and got["full-stalled-strong-tap"] == "6"
    assert got["full-stable-strong-tap"] == "75%" and got["full-stable-weak-tap"] == "25%"
    assert got["full-at-beta-own-strong-tap"] == "1.20"
    flat = claims._numbers(s)
    assert flat["tap_s0"] == 0.25 and flat["tap_s1"] == 0.75 and flat["tap_own_at"] == 1.2
