"""Chapters 4-6's claims and stored-number readers refuse a wrong argument at once, naming it (found by the generated
contract tests, issue 44 item 5): a run without ``verdict``/``number``, a root that is not a path, a chapter not
declared, a summary or formats that is not a dict. Before, each failed deep inside (AttributeError ``'NoneType'
object has no attribute 'verdict'``, ``unsupported operand type(s) for /``) or wrote ``data/full/3/summary.json``."""

from __future__ import annotations

from pathlib import Path

import pytest

from mfattn.dynamics import claims as dclaims
from mfattn.dynamics.claims_stored import glue_values
from mfattn.structural import claims as sclaims
from mfattn.structural import claims_designs, claims_summary

from contracts_strategies_b import Recorder  # a chapter run that records what run.verdict and run.number receive


@pytest.mark.parametrize("record", [lambda run: dclaims.record(run, None), lambda run: dclaims.record_beyond(run, None),
                                    lambda run: sclaims.record(run, None, "structural")])
@pytest.mark.parametrize("run", [None, "x"])
def test_record_refuses_a_run_without_verdict(record, run):
    with pytest.raises(TypeError, match=r"^run must be the chapter's run .*verdict.*got (NoneType|str)"):
        record(run)


def test_record_with_a_run_records_every_claim_not_tested_without_stored_numbers():
    run = Recorder()
    sclaims.record(run, None, "structural")
    assert run.got and {v for _, v in run.got} == {"not tested"}
    run = Recorder()
    dclaims.record(run, None)
    assert run.got and {v for _, v in run.got} == {"not tested"}


def test_glue_full_checks_run_root_and_formats(tmp_path):
    with pytest.raises(TypeError, match=r"^run must .*number"):
        sclaims.glue_full(None, tmp_path, "structural", {"a": "{}"})
    with pytest.raises(TypeError, match=r"^root must be a path.*got int 3"):
        sclaims.glue_full(Recorder(), 3, "structural", {"a": "{}"})
    with pytest.raises(TypeError, match=r"^formats must be a mapping"):
        sclaims.glue_full(Recorder(), tmp_path, "structural", "x")
    run = Recorder()
    sclaims.glue_full(run, str(tmp_path), "structural", {"a": "{}"})   # a string root is a path: nothing stored there
    assert run.got == [("full-a", "(not stored)")]


def test_summary_path_save_and_read_check_chapter_root_and_summary(tmp_path):
    with pytest.raises(ValueError, match=r"^chapter must be one of 'structural', 'designs'; got 3"):
        claims_summary.summary_path(tmp_path, 3)
    with pytest.raises(ValueError, match=r"^chapter must be one of"):
        claims_summary.full_numbers(tmp_path, "no-such-chapter")
    with pytest.raises(TypeError, match=r"^summary must be a mapping"):
        claims_summary.save(tmp_path, "structural", None)
    with pytest.raises(TypeError, match=r"^root must be a path"):
        claims_designs.stored_numbers(3, "designs")
    path = claims_summary.save(str(tmp_path), "structural", {"hop_trials": 3, "gaps": [0.5, 1.5]})
    assert path == Path(tmp_path) / "data" / "full" / "structural" / "summary.json"
    assert claims_summary.full_numbers(str(tmp_path), "structural") == {"hop_trials": 3, "gaps": [0.5, 1.5]}
    assert claims_summary.full_numbers(None, "structural") == {}


@pytest.mark.parametrize("full", [None, "x", 3])
def test_glue_values_refuses_what_is_not_the_stored_numbers(full):
    with pytest.raises(TypeError, match=r"^full must be a mapping"):
        glue_values(full)


def test_glue_values_of_nothing_stored_says_missing():
    g = glue_values({})
    assert g["full-fig3a-periodic"] == dclaims.MISSING
