"""Numbers typed into the prose of chapters 1-3 in the tenth referee round, checked against the stored full-profile
results they report (a stored result that moves makes the sentence wrong, and this test fail)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not (ROOT / "data" / "full" / "ledger.json").is_file(), reason="no stored results")


def _prose(name: str) -> str:
    nb = json.loads((ROOT / "book" / name).read_text())
    return " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown").replace("\n", " ")


def test_chapter_3_two_part_and_strength_numbers():
    from mfattn.implicit import claims_transformer_numbers
    s = claims_transformer_numbers.stored_numbers(ROOT)[0]
    text = _prose("03_transformer_mean_field.ipynb")
    for key, typed in (("two_linear_seeds", 0.57), ("two_binned_seeds", 0.51), ("two_net_seeds", 0.48)):
        assert all(abs(v - typed) < 0.015 for v in s[key]), key
    assert "error about 0.57" in text and "about 0.51" in text and "the net about 0.48" in text
    fold = s["strength_fold_1_seeds"]
    assert 1.2 <= min(fold) and max(fold) < 1.35 and "by 1.2 to 1.3-fold" in text
    two = [d[1] for d in s["range_gbal_draws"]]
    one = [d[0] for d in s["range_gbal_draws"]]
    assert 0.195 <= min(two) and max(two) < 0.225 and "(0.20 to 0.22)" in text
    assert all(0.15 <= v < 0.17 for v in one) and "below it (0.16)" in text
    assert "4 to 6 and 11 to 12-fold" in text
    assert 4 <= min(s["strength_fold_3_seeds"]) and max(s["strength_fold_3_seeds"]) < 6.5
    assert 10.5 <= min(s["strength_fold_10_seeds"]) and max(s["strength_fold_10_seeds"]) < 12.5


def test_chapter_1_and_2_typed_numbers():
    from mfattn.implicit import claims
    from mfattn.meanfield import claims as mc
    from mfattn.meanfield.claims_ising_families import _own_error_z
    s = mc.stored_numbers(ROOT)[0]
    dil = np.mean([x for x in s["fam_diluted_atap_m_inst"] if x is not None])
    assert f"{dil:.1e}" == "5.0e-03" and f"{s['atap_m']:.1e}" == "3.8e-03"
    zs = sorted(_own_error_z(s, "diluted", k) for k in ("sk", "matched"))
    assert round(zs[0], 1) == 2.2 and round(zs[1], 1) == 3.2
    assert "5.0e-3 against 3.8e-3 (2.2 to 3.2 standard errors" in _prose("01_ising_tap.ipynb")
    d = claims.stored_numbers(ROOT, "deq")[0]
    conv = d["blog_anderson_converged_40_seeds"]
    assert round(100 * min(conv)) == 74 and round(100 * max(conv)) == 100
    assert round(d["pub_trained_acc"], 2) == 99.18
    text = _prose("02_deep_implicit_attention.ipynb")
    assert "74 to 100 %" in text and "99.18 %" in text
