"""The Reproduction report's table: one compact row per claim (claim, verdict, robust or fragile, key number in
words) that opens to its quote, evidence, rule, note and premises; a filter bar (paper, chapter, verdict, robustness)
and search, open on load, with a count; everything inside the page (offline); every claim's anchor below it.
Checked on synthetic entries, on the stored full-profile ledger, and on the built report page when a book was
built (the page in a browser: tests/browser/check_book.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mfattn.companion import ledger, report_keys, report_table, report_text
from mfattn.companion.profiles import CHAPTERS

ROOT = Path(__file__).resolve().parents[1]
TEST_ID = "tests/test_report_table.py::test_rows_are_compact_and_open_to_their_evidence"


def _entry(claim_id, chapter, verdict="reproduced", numbers=None, origin="paper"):
    entry = ledger.make_entry(claim_id, "Nobody 2024, Fig. 1", f"Claim {claim_id} <holds>.", verdict,
                              [TEST_ID] if verdict != "not tested" else [], numbers,
                              "a `code` note" if verdict != "not tested" else "needs a GPU",
                              how="holds if x > 1 & y < 2", measured="x and y", origin=origin)
    return {**entry, "chapter": chapter, "profile": "full", "basis": "tests", "figures_shown": [],
            "git_commit": "0" * 40}


def test_the_key_number_is_the_first_number_the_claim_gives(tmp_path, monkeypatch):
    """The entry names its key number; it survives the ledger's sorted JSON (an older entry falls back)."""
    entry = ledger.make_entry("test-key", "Nobody 2024", "A claim.", "reproduced", TEST_ID,
                              {"mean accuracy": 99.2, "a_spread": 0.1}, how="rule")
    assert entry["key"] == "mean accuracy"
    path = tmp_path / "ledger.json"
    ledger.store.atomic_write_json(path, {"test-key": entry})   # written with sorted keys, as the ledgers are
    stored = json.loads(path.read_text())["test-key"]
    assert list(stored["numbers"]) == ["a_spread", "mean accuracy"]
    assert ledger.key_number(stored) == ("mean accuracy", 99.2)
    older = {k: v for k, v in stored.items() if k != "key"}
    assert ledger.key_number(older) == ("a_spread", 0.1)
    with pytest.raises(ValueError, match=r"e\['key'\] must name one of the entry's stored numbers"):   # a0415
        ledger.key_number({**stored, "key": "gone"})   # never another number shown in its place
    assert "key" not in ledger.make_entry("test-none", "Nobody", "A claim.", "not tested", [], note="why", how="r")
    assert ledger.key_number({"numbers": {}}) is None


def test_rows_are_compact_and_open_to_their_evidence():
    entries = [_entry("test-one", "deq", numbers={"acc_mean": 99.23, "acc_sd": 0.05}),
               _entry("test-two", "dmft", "not tested"),
               _entry("test-three", "nowhere", "confirmed with differences", {"n": 3}, origin="ours")]
    rows = report_table.rows(entries)
    assert len(rows) == 3 and all(len(row) == len(report_table.COLUMNS) for row in rows)
    col = {name: report_table.COLUMNS.index(name) for name in report_table.COLUMNS}
    one, two, three = rows
    assert one[col["Verdict"]] == "reproduced" and one[col["Key number"]] == "test accuracy, mean of 3 seeds: 99.23 %"
    assert one[col["Chapter"]] == "2. Deep implicit attention" and one[col["Paper"]] == "Bal 2021"
    assert two[col["Key number"]] == "—" and two[col["Paper"]] == "Poc-López &amp; Aguilera 2024"  # cells are HTML
    assert three[col["Chapter"]] == "nowhere" and three[col["Paper"]] == ""
    claim = one[col["Claim"]]
    assert claim.startswith('<details class="mfattn-claim"><summary>Claim test-one &lt;holds&gt;.</summary>')
    assert "<b>How it is decided</b>: holds if x &gt; 1 &amp; y &lt; 2" in claim
    assert "<b>Note</b>: a <code>code</code> note" in claim and f"<code>{TEST_ID}</code>" in claim
    assert "<b>Numbers</b>: acc_mean = 99.23; acc_sd = 0.05" in claim and "<b>Measured</b>: x and y" in claim
    assert '<a href="#claim-test-one">' in claim and "rests on: <i>tests</i>" in claim
    assert "<b>Note</b>: needs a GPU" in two[col["Claim"]]


def test_the_table_filters_by_paper_chapter_verdict_and_robustness_offline():
    entries = [_entry(f"test-{i}", chapter.name, verdict, origin="ours" if verdict in ("confirmed", "refuted") else "paper")
               for i, (chapter, verdict)
               in enumerate(zip(CHAPTERS, ["not reproduced", "reproduced", "reproduced", "confirmed", "refuted", "reproduced"]))]
    page = report_table.table_html(entries)
    assert page.count("<tbody>") == 1 and page.count("<tr data-paper=") == len(CHAPTERS)
    heads = re.findall(r"<th>(.*?)</th>", page)
    assert heads == ["Claim", "Verdict", "Robust?", "Key number"]
    assert re.findall(r'<select data-filter="(\w+)">', page) == ["paper", "chapter", "verdict", "robustness"]
    verdicts = re.search(r'<select data-filter="verdict">(.*?)</select>', page).group(1)
    assert re.findall(r'<option value="([^"]*)">', verdicts) == ["", "reproduced", "not reproduced", "confirmed",
                                                                   "refuted"]   # the ledger's order, only those present
    assert 'class="mfattn-search"' in page and 'class="mfattn-count"' in page and "6 claims" in page
    assert 'data-chapter="2. Deep implicit attention"' in page and 'data-paper="Poc-López &amp; Aguilera 2024"' in page
    assert "nowrap" not in page                                   # cells wrap: no column behind a horizontal scrollbar
    assert "<script>" in page and "src=" not in page and "http" not in page.split("<script>")[1]   # nothing fetched
    assert len(page) < 60_000


def test_every_key_number_reads_in_words():
    """No key number shows a variable's name: a name the stored claims use has words (and a unit where it has one)
    in report_keys, or is in words already; a name not listed (a claim added since) still gets words derived from
    its parts, never the name as it is."""
    stored = ledger.read_ledger("full")
    names = {ledger.key_number(e)[0] for e in stored.values() if ledger.key_number(e)}
    raw = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
    for name in names:
        words, _ = report_keys.key_words(name)
        assert not raw.search(words), name
    assert report_keys.key_text("acc_mean", 99.14) == "test accuracy, mean of 3 seeds: 99.14 %"
    assert report_keys.key_text("bench_time_ratio_min_n", 53.3).endswith(": 53.3×")
    assert report_keys.key_words("acc_seed_sd") == ("accuracy seed s.d.", "")
    assert report_keys.key_text("first torus beta", 1.2431) == "first torus β: 1.243"
    assert report_keys.key_words("lambda_max at beta = 1.255") == ("λ_max at β = 1.255", "")


def test_a_row_shows_the_quote_the_thresholds_the_alternatives_and_robust_or_fragile():
    premises = {"quote": {"paper": "bal2021", "section": "3. Attention", "text": "a fixed point"},
                "reading": "read literally",
                "thresholds": [{"name": "factor", "value": 2.0, "noise": 0.3, "basis": "seed spread",
                                "reason": "the seed-to-seed spread is 0.3", "borne_out": True, "found": "s.d. 0.28"}],
                "spread": {"unit": "seed", "n": 3, "values": {"gain": [0.13, 0.25, 0.28]}},
                "alternatives": [{"name": "t-interval over seeds", "kind": "statistic", "verdict": "reproduced"},
                                 {"name": "factor = 2.3", "kind": "threshold", "verdict": "not reproduced"}],
                "robustness": "fragile", "moved_by": ["factor = 2.3"]}
    entry = {**_entry("test-p", "deq"), **ledger.clean_premises("test-p", premises)}
    row = report_table.rows([entry])[0]
    col = {name: report_table.COLUMNS.index(name) for name in report_table.COLUMNS}
    assert row[col["Robustness"]] == "fragile"
    claim = row[col["Claim"]]
    assert "<b>The paper's words</b>: “a fixed point” (Bal (2021), 3. Attention)" in claim
    assert "<b>Reading</b>: read literally" in claim and "gain: 0.13, 0.25, 0.28" in claim
    assert "factor = 2 ± 0.3 (seed spread: the seed-to-seed spread is 0.3; borne out by the stored numbers: s.d. 0.28)" \
        in claim
    assert "fragile: 1 of 2 alternatives move it (factor = 2.3 → not reproduced)" in claim
    block = ledger.claim_block(entry)
    assert block.startswith(":::{dropdown} **reproduced** (fragile) · `test-p`") and "**Robustness**: fragile" in block
    assert report_table.rows([_entry("test-q", "deq")])[0][col["Robustness"]] == "not assessed"
    with pytest.raises(ledger.LedgerError, match="robustness"):
        ledger.clean_premises("test-p", {**premises, "robustness": "sturdy"})
    with pytest.raises(ledger.LedgerError, match="finite"):
        ledger.clean_premises("test-p", {**premises, "thresholds": [{"value": float("nan")}]})


def test_the_report_has_one_anchor_per_claim_even_outside_the_papers():
    entries = [_entry("test-one", "deq"), _entry("test-two", "ising", "not reproduced"),
               _entry("test-three", "nowhere", "confirmed", origin="ours")]
    details = report_text.report_details(entries)
    for e in entries:
        assert details.count(f"({ledger.anchor(e['claim_id'])})=") == 1
    assert "## Other claims" in details and details.index("## Mean-field theory") < details.index("## Deep Implicit")
    summary = report_text.report_summary(entries)
    assert summary.startswith("3 claims: 1 reproduced, 1 not reproduced, 1 confirmed. The verdicts rest on 3 tests")
    assert report_text.report_summary([]).startswith("*No verdict has been recorded yet")


def test_every_stored_claim_is_one_row_with_its_key_number():
    stored = ledger.read_ledger("full")
    if not stored:
        pytest.skip("no stored full-profile ledger (outside a checkout)")
    entries = report_text.report_entries([c.name for c in CHAPTERS])
    rows = report_table.rows(entries)
    ids = [re.search(r'href="#claim-([a-z0-9-]+)"', row[0]).group(1) for row in rows]
    assert sorted(ids) == sorted({e["claim_id"] for e in entries}) and len(ids) == len(set(ids))
    key = report_table.COLUMNS.index("Key number")
    for e, row in zip(entries, rows):
        assert (row[key] == "—") == (not e.get("numbers")), e["claim_id"]
        assert row[report_table.COLUMNS.index("Paper")], f"{e['claim_id']}: in no paper's filter"
        assert not re.search(r"\b[a-z]+_[a-z0-9_]+ ?[:=]", row[key]), f"{e['claim_id']}: {row[key]}"   # words, not a name


def test_the_report_notebook_shows_the_table_then_every_claim():
    """The table comes first (its filters and first rows in the first screen); how the verdicts are decided, with
    the summary, follows it; then every claim in full."""
    cells = json.loads((ROOT / "book" / "report.ipynb").read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert "report_table.show(entries)" in code[0] and "report_text.report_summary(entries)" in code[1]
    assert "report_text.report_details(entries)" in code[2]
    lead = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "markdown" and len(lead) < 600     # a short lead: the table starts on screen


def _built_report() -> Path:
    page = ROOT / "_build" / "html" / "book" / "report.html"
    if not page.is_file():
        pytest.skip(f"no built book in this checkout ({page} is absent; build it with `jupyter-book build .`)")
    writers = [ROOT / "mfattn" / "companion" / name for name in ("ledger.py", "report_table.py", "report_text.py",
                                                                  "report_keys.py", "report_table.js", "report_table.css")]
    writers += [ROOT / "book" / "report.ipynb", ROOT / "data" / "full" / "ledger.json"]
    if page.stat().st_mtime < max(w.stat().st_mtime for w in writers):
        pytest.skip(f"the built report ({page}) is older than the code and ledger that write it: rebuild it "
                    "(`bash .ci/book`) to check it")
    return page


def test_built_report_has_the_offline_table_and_every_anchor():
    text = _built_report().read_text(encoding="utf-8")
    entries = report_text.report_entries([c.name for c in CHAPTERS])
    for e in entries:
        assert text.count(f'id="{ledger.anchor(e["claim_id"])}"') == 1, e["claim_id"]
    for chapter in sorted(_built_report().parent.glob("0*.html")):    # the chapters' links land on an anchor
        for claim_id in re.findall(r'href="report\.html#(claim-[a-z0-9-]+)"', chapter.read_text(encoding="utf-8")):
            assert f'id="{claim_id}"' in text, (chapter.name, claim_id)
    assert 'id="mfattn-claims"' in text and 'class="mfattn-filters"' in text and 'data-filter="verdict"' in text
    assert "dt_for_itables" not in text and "itables" not in text   # the table's script is in the page: no CDN
