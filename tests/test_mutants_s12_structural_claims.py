"""Mutation round 4 (mut-s12): mfattn/structural/claims.py -- glue_full for chapter 5 reads the stored designs numbers
(the first of stored_numbers' pair) when a root is given, glues every setting (d, 1/p) of the figure and the keys the
chapter's prose quotes; record refuses an unknown chapter by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from mfattn.structural import claims as SC
from mfattn.structural.claims_designs_numbers import DIMS, PS

ROOT = Path(__file__).resolve().parents[1]


class _Run:
    def __init__(self):
        self.glued = {}

    def number(self, key, value, *args, **kw):
        self.glued[key] = value

    def verdict(self, *args, **kw):
        raise AssertionError("no verdict expected")


def test_the_designs_glue_covers_every_setting_of_the_figure():
    """claims.py:82-83: ref_code_ops_<d>_<1/p> and code_loss_ratio_<d>_<1/p> for d in DIMS and 1/p in PS."""
    for stem in ("ref_code_ops", "code_loss_ratio"):
        got = {k for k in SC.DESIGNS_GLUE if k.startswith(stem + "_")}
        assert got == {f"{stem}_{d}_{p}" for d in DIMS for p in PS}
    run = _Run()
    SC.glue_full(run, None, "designs", {})
    assert {f"full-{k}" for k in SC.DESIGNS_GLUE} == set(run.glued)
    assert set(run.glued.values()) == {"(not stored)"}
    for key in ("full-ref_code_ops_10_10", "full-ref_code_ops_10_25", "full-code_loss_ratio_50_25"):   # the prose's
        assert key in run.glued


@pytest.mark.skipif(not (ROOT / "data" / "full" / "designs").is_dir(), reason="the full designs run is not stored")
def test_the_designs_glue_reads_the_stored_numbers_under_root():
    """claims.py:97: designs_numbers(root, chapter)[0] where root is given (the stored summary, not {} or the remedy)."""
    run = _Run()
    SC.glue_full(run, ROOT, "designs", {"seeds": "{:.0f}"})
    stored = {k: v for k, v in run.glued.items() if v != "(not stored)"}
    assert len(stored) >= 20
    assert run.glued["full-nmse_seeds_n"] not in ("(not stored)", "") and float(run.glued["full-nmse_seeds_n"]) >= 2
    assert float(run.glued["full-near_rho_mean"]) > 0


@pytest.mark.parametrize("chapter", ["dmft", "nope", "", "Structural"])
def test_record_refuses_a_chapter_it_does_not_know(chapter):
    """claims.py:116: before the run is checked or any claim decided."""
    with pytest.raises(ValueError, match=r"^chapter must be one of \('structural', 'designs'\); got "):
        SC.record(_Run(), None, chapter)
    with pytest.raises(ValueError, match=r"^chapter must be one of"):
        SC.record(None, None, chapter)


@pytest.mark.skipif(not (ROOT / "data" / "full" / "structural").is_dir(), reason="the full structural run is not stored")
def test_the_structural_glue_reads_the_stored_summary_under_root():
    """claims.py:100: stored_numbers(root, chapter)[0] where root is given; {} (everything "(not stored)") without."""
    from mfattn.structural.claims_summary import stored_numbers

    s = stored_numbers(ROOT, "structural")[0]
    keys = [k for k in ("slot_paper_gap", "pc_acc_fixed", "enum_instances") if k in s]
    assert keys
    run = _Run()
    SC.glue_full(run, ROOT, "structural", {k: "{:.3f}" for k in keys})
    assert run.glued == {f"full-{k}": f"{s[k]:.3f}" for k in keys}
    empty = _Run()
    SC.glue_full(empty, None, "structural", {k: "{:.3f}" for k in keys})
    assert set(empty.glued.values()) == {"(not stored)"}
