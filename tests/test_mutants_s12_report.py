"""Mutation round 4 (mut-s12): the report's argument checks and the claim cell's premise rows, at their edges
(mfattn/companion/report_text.py, report_table.py, report_keys.py)."""

from __future__ import annotations

import pytest

from mfattn.companion import ledger, report_keys, report_table, report_text

TEST_ID = "tests/test_report_table.py::test_rows_are_compact_and_open_to_their_evidence"


def _entry(claim_id="test-one", chapter="deq"):
    entry = ledger.make_entry(claim_id, "Nobody 2024, Fig. 1", f"Claim {claim_id}.", "reproduced", [TEST_ID],
                              {"acc_mean": 99.23}, "a note", how="holds if x > 1", measured="x")
    return {**entry, "chapter": chapter, "profile": "full", "basis": "tests", "figures_shown": [],
            "git_commit": "0" * 40}


@pytest.mark.parametrize("entries", ["abc", b"abc", {"a": 1}, 3, [1, 2], [{"claim_id": "x"}, "y"]])
def test_report_text_refuses_what_is_not_a_sequence_of_entries_by_its_own_message(entries):
    """_check_entries' TypeError (report_text.py:54), not whatever a later line would stumble on."""
    with pytest.raises(TypeError, match=r"^entries must be a sequence of ledger entries \(mappings\)"):
        report_text.report_summary(entries)
    with pytest.raises(TypeError, match=r"^entries must be a sequence of ledger entries \(mappings\)"):
        report_text.report_details(entries)


@pytest.mark.parametrize("papers", [["deq"], "deq", ("Bal 2021", ["deq"]), 1])
def test_report_details_refuses_papers_that_are_not_a_mapping_even_with_no_entries(papers):
    """report_text.py:86: the papers check comes before the empty-entries shortcut."""
    with pytest.raises(TypeError, match=r"^papers must map a paper's title to its chapters, or be None; got "):
        report_text.report_details([], papers)
    with pytest.raises(TypeError, match=r"^papers must map a paper's title to its chapters, or be None; got "):
        report_text.report_details([_entry()], papers)
    assert report_text.report_details([], None) == "" and report_text.report_details([], {}) == ""


def test_the_claim_cell_gives_the_papers_words_once_and_every_other_premise_row():
    """report_table.py:59: PREMISE_ROWS[1:] (the paper's words are the cell's own row above)."""
    premises = {"quote": {"paper": "bal2021", "section": "3. Attention", "text": "a fixed point"},
                "reading": "read literally"}
    entry = {**_entry("test-p"), **ledger.clean_premises("test-p", premises)}
    cell = report_table.rows([entry])[0][report_table.COLUMNS.index("Claim")]
    assert cell.count("<b>The paper's words</b>") == 1
    assert cell.count("a fixed point") == 1
    assert cell.count("<b>Reading</b>: read literally") == 1
    # without a quote there is no such row at all
    plain = report_table.rows([_entry("test-q")])[0][report_table.COLUMNS.index("Claim")]
    assert "The paper's words" not in plain and "<b>Reading</b>" not in plain


@pytest.mark.parametrize("table_id, error", [("1abc", ValueError), ("a b", ValueError), ("", ValueError),
                                             ("-a", ValueError), (3, TypeError), (None, TypeError)])
def test_table_html_refuses_a_bad_html_id_by_name(table_id, error):
    with pytest.raises(error, match=r"^table_id must be an HTML id \(a letter, then letters, digits, '-' or '_'\); "
                                    r"got " + __import__("re").escape(repr(table_id)) + "$"):
        report_table.table_html([], table_id=table_id)


def test_table_html_cuts_a_long_bad_ids_message_at_200_characters():
    """report_table.py:115: the message is cut at 200 characters, not to nothing."""
    bad = "a b" + "x" * 500
    with pytest.raises(ValueError) as info:
        report_table.table_html([], table_id=bad)
    text = str(info.value)
    assert len(text) == 200 and text.startswith("table_id must be an HTML id")
    good = report_table.table_html([], table_id="a")
    assert 'id="a"' in good and 'id="a-box"' in good
    assert report_table.table_html([], table_id="a1-_b").count('id="a1-_b"') == 1


@pytest.mark.parametrize("name", ["", " ", "   ", "\t", "\n"])
def test_key_words_refuses_an_empty_or_blank_name(name):
    """report_keys.py:108: a blank name is refused, not written back as blank words."""
    with pytest.raises(ValueError, match=r"^name must be a key number's non-empty name; got "):
        report_keys.key_words(name)


def test_key_words_at_the_blank_check_edge():
    assert report_keys.key_words("x") == ("x", "")
    assert report_keys.key_words(" x ") == (" x ", "")
