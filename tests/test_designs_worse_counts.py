"""Chapter 5's prose on the code's expanding-attention setting (d = 50, p = 1/25) quotes, from the stored per-seed
MSEs, how many seeds' standard attention trained and in how many of them expanding attention is worse than the
accuracy band's factor 1.5, and seed index 1's two final MSEs: derived here by hand from a small summary, at both
edges of the band and of the stuck reading, and from the stored full-profile summary."""

from __future__ import annotations

import numpy as np
import pytest

from mfattn.companion import store
from mfattn.structural import claims_designs_numbers as DN


def _code(head_std, tail_std, head_exp, tail_exp, d=50, p=25):
    return {f"code_head_mse_standard_{d}_{p}_seeds": head_std, f"code_tail_mse_standard_{d}_{p}_seeds": tail_std,
            f"code_head_mse_expanding_{d}_{p}_seeds": head_exp, f"code_tail_mse_expanding_{d}_{p}_seeds": tail_exp}


def test_the_counts_at_both_edges_of_the_band_and_of_stuck():
    # seed 0: trained, ratio 1.5 (not beyond the band); seed 1: trained, ratio 1.51; seed 2: tail = 0.5 x head (stuck)
    s = _code([100.0, 100.0, 100.0], [10.0, 10.0, 50.0], [100.0, 100.0, 100.0], [15.0, 15.1, 500.0])
    out = DN.designs_derived(s, None)
    assert out["code_kept_50_25"] == 2 and out["code_worse_50_25"] == 1
    assert out["code_tail_expanding_50_25_s1"] == 15.1 and out["code_tail_standard_50_25_s1"] == 10.0
    s = _code([100.0, 100.0, 100.0], [10.0, 10.0, 49.99], [100.0, 100.0, 100.0], [15.0, 15.1, 500.0])
    out = DN.designs_derived(s, None)
    assert out["code_kept_50_25"] == 3 and out["code_worse_50_25"] == 2


@pytest.mark.parametrize("change", [
    {"code_tail_mse_standard_50_25_seeds": [10.0, 10.0]},          # lengths differ
    {"code_tail_mse_standard_50_25_seeds": [10.0, 0.0, 10.0]},     # a non-positive MSE
    {"code_head_mse_expanding_50_25_seeds": None},                 # not stored
])
def test_nothing_is_counted_from_lists_that_do_not_pair(change):
    s = {**_code([100.0] * 3, [10.0] * 3, [100.0] * 3, [20.0] * 3), **change}
    out = DN.designs_derived(s, None)
    assert not any(k.startswith(("code_kept_", "code_worse_", "code_tail_")) for k in out)


def test_the_stored_summary_gives_the_prose_its_numbers():
    root = store.project_root()
    path = None if root is None else root / "data" / "full" / "designs" / "summary.json"
    if path is None or not path.is_file():
        pytest.skip("no stored full-profile summary of chapter 5")
    s = store.read_json(path)
    out = DN.designs_derived(s, None)
    e = np.array(s["code_tail_mse_expanding_50_25_seeds"])
    st, head = (np.array(s[f"code_{w}_mse_standard_50_25_seeds"]) for w in ("tail", "head"))
    kept = st < 0.5 * head
    assert out["code_kept_50_25"] == int(kept.sum()) == len(e) - 1     # one standard seed never trained
    assert out["code_worse_50_25"] == int(np.sum(e[kept] / st[kept] > 1.5))
    assert out["code_tail_expanding_50_25_s1"] == e[1]
