"""Behaviour of :mod:`mfattn.companion.ledger` that the other tests left free to change (found by sampled mutation
testing, issue 44 item 6): the verdict words each origin allows, pruning a ledger not written yet, and the words of
a robust verdict's premises row (counts of alternatives made here by hand).
"""

from __future__ import annotations

import re

import pytest

from mfattn.companion import ledger
from mfattn.companion.ledger import LedgerError


def _entry(verdict, origin):
    return ledger.make_entry("x-y", "Nobody 2024", "A claim.", verdict, ["fig-x"], how="holds if it does",
                             origin=origin)


def test_each_origin_allows_its_own_three_words_and_not_tested():
    """A paper's claim: reproduced / with differences / not reproduced; ours: confirmed / with differences /
    refuted (the module's comment, :data:`mfattn.companion.verdicts.SCALES`); either may be "not tested". The
    refusal lists exactly the words allowed, each once."""
    assert ledger.ORIGINS == {"paper": ("reproduced", "reproduced with differences", "not reproduced"),
                              "ours": ("confirmed", "confirmed with differences", "refuted")}
    for word in ("confirmed", "confirmed with differences", "refuted"):
        assert _entry(word, "ours")["verdict"] == word
    with pytest.raises(LedgerError) as err:
        _entry("reproduced", "ours")
    assert re.search(r"verdict must be one of 'confirmed', 'confirmed with differences', 'refuted', "
                     r"'not tested'; got 'reproduced'$", str(err.value)), str(err.value)
    with pytest.raises(LedgerError) as err:
        _entry("confirmed", "paper")
    assert re.search(r"verdict must be one of 'reproduced', 'reproduced with differences', 'not reproduced', "
                     r"'not tested'; got 'confirmed'$", str(err.value)), str(err.value)


def test_pruning_a_ledger_not_written_yet_drops_nothing_and_returns_an_empty_list(tmp_path, monkeypatch):
    """``prune`` on a profile whose ledger file does not exist: the list of dropped ids is ``[]`` (a list, as for
    a ledger that has entries), and no file is written."""
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path))
    assert not ledger.ledger_path("quick").exists()
    gone = ledger.prune("quick", "ising", keep=[])
    assert gone == [] and isinstance(gone, list)
    assert not ledger.ledger_path("quick").exists()


def test_a_robust_verdict_counts_the_alternatives_that_decide_it():
    """Robust: "the same verdict under all N alternatives that decide it", N the alternatives whose verdict is not
    "cannot decide" (here 2 of 3); fragile: "k of N alternatives move it (name → verdict; ...)"."""
    alts = [{"name": "a decade down", "verdict": "reproduced"}, {"name": "a decade up", "verdict": "reproduced"},
            {"name": "other units", "verdict": "cannot decide"}]
    assert ledger.robustness_text({"robustness": "robust", "alternatives": alts}) == \
        "robust: the same verdict under all 2 alternatives that decide it"
    alts[1]["verdict"] = "not reproduced"
    assert ledger.robustness_text({"robustness": "fragile", "alternatives": alts, "moved_by": ["a decade up"]}) == \
        "fragile: 1 of 2 alternatives move it (a decade up → not reproduced)"
    assert ledger.robustness_text({"alternatives": alts}) == ""     # not assessed


def test_a_citation_names_the_first_twelve_hex_digits_of_the_commit():
    """The one-line citation: version, claim id, verdict, profile and the commit cut to its first 12 characters
    (the '+dirty' mark dropped from it and said in words)."""
    from mfattn import __version__

    commit = "0123456789abcdef0123456789abcdef01234567"
    e = {"claim_id": "a-b", "verdict": "refuted", "profile": "quick", "git_commit": commit + "+dirty"}
    assert ledger.citation(e) == (f"mfattn {__version__}, claim `a-b`: refuted (quick profile, decided at commit "
                                  "`0123456789ab`, with uncommitted changes)")
    assert ledger.citation({"claim_id": "a-b", "verdict": "refuted", "git_commit": commit}).endswith(
        "(full profile, decided at commit `0123456789ab`)")
