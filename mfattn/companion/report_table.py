"""The Reproduction report's table of claims: one compact row per claim, with a filter bar a reader uses at once.

Each row shows the claim, its verdict, robust or fragile, and its key number in words with its unit
(:mod:`mfattn.companion.report_keys`); the claim opens (an HTML ``<details>`` element, no script) to its source,
what is measured, the rule that decided it, every number, the note, the evidence and what the verdict rests on,
and links to the claim's full entry on the report (its anchor ``#claim-<id>``, which the chapters link to).

Above the table, a bar of four drop-down filters (paper, chapter, verdict, robust / fragile) and a search box over
every word of a row, and a count of the rows shown ("Showing 12 of 83 claims"). Why plain HTML and a small script
of our own (``report_table.js``/``report_table.css`` beside this module, written into the page) rather than a
table library: the filters are open and compact on load at any width, the count always says what is shown (every
matching row is shown: no pages), and the page needs no network and no bundle of several hundred kB. Without
JavaScript (a PDF, a plain viewer) every row shows and the bar stays hidden; the per-claim blocks below the table
carry the same content.
"""

from __future__ import annotations

import html
import re
from importlib import resources
from typing import Any, Iterable, Mapping, Sequence

from . import ledger
from .report_keys import key_text
from .report_text import PAPERS, _check_chapter, paper_of

__all__ = ["PAPERS", "COLUMNS", "FILTERS", "paper_of", "rows", "table_html", "show"]

#: The cells of a row: the four a reader sees, then the two only the filters use (each row's chapter and paper
#: are in its opened claim too, and a narrow screen keeps room for the claim).
COLUMNS = ("Claim", "Verdict", "Robustness", "Key number", "Chapter", "Paper")
#: The filters of the bar, by column, in the bar's order.
FILTERS = ("Paper", "Chapter", "Verdict", "Robustness")
_SHOWN = ("Claim", "Verdict", "Robustness", "Key number")
_HEADS = {"Robustness": "Robust?"}
#: The order of the robustness filter's values (the verdicts keep the ledger's order).
_ROBUSTNESS = ("robust", "fragile", "not assessed")


def _text(value: Any) -> str:
    """Ledger text as HTML: escaped, with the Markdown ``code`` spans its notes use as ``<code>``."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(str(value), quote=False))


def _details(e: Mapping[str, Any], chapter_title: str, paper: str) -> str:
    """The claim cell: the claim as the summary of a ``<details>`` that opens to its evidence, rule and note."""
    origin = "a claim of ours (beyond the papers)" if e.get("origin") == "ours" else "the paper's claim"
    parts = [f"<b>Source</b>: {_text(e['source'])} ({origin})"]
    if ledger.quote_text(e):
        parts.append(f"<b>The paper's words</b>: {_text(ledger.quote_text(e))}")
    if e.get("measured"):
        parts.append(f"<b>Measured</b>: {_text(e['measured'])}")
    parts.append(f"<b>How it is decided</b>: {_text(e.get('how', ''))}")
    if e.get("numbers"):
        parts.append(f"<b>Numbers</b>: {_text(ledger.numbers_text(e['numbers']))}")
    if e.get("note"):
        parts.append(f"<b>Note</b>: {_text(e['note'])}")
    for name, text in ledger.PREMISE_ROWS[1:]:
        if text(e):
            parts.append(f"<b>{name}</b>: {_text(text(e))}")
    evidence = ", ".join(f"<code>{html.escape(item)}</code>" for item in e.get("evidence", [])) or "none"
    parts.append(f"<b>Evidence</b>: {evidence}; rests on: <i>{html.escape(ledger.basis(e))}</i>")
    parts.append(f"<b>Chapter</b>: {html.escape(chapter_title)}" + (f" ({html.escape(paper)})" if paper else ""))
    parts.append(f'<a href="#{html.escape(ledger.anchor(e["claim_id"]))}">The full entry and its citation</a> '
                 f"(<code>{html.escape(e['claim_id'])}</code>)")
    body = "".join(f"<p>{p}</p>" for p in parts)
    return f'<details class="mfattn-claim"><summary>{_text(e["claim"])}</summary>{body}</details>'


def _chapter_titles() -> dict[str, str]:
    from .profiles import CHAPTERS

    return {c.name: f"{i}. {c.title}" for i, c in enumerate(CHAPTERS, start=1)}


#: What every ledger entry holds that the table shows.
ENTRY_KEYS = ("claim_id", "source", "claim", "verdict")


def rows(entries: Iterable[Mapping[str, Any]], papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS,
         titles: Mapping[str, str] | None = None) -> list[list[str]]:
    """One row per ledger entry, cells in the order of :data:`COLUMNS` (the claim cell is HTML; the others
    are escaped text: the verdict word, robust / fragile / not assessed, the key number in words with its unit
    (:func:`mfattn.companion.report_keys.key_text`) or ``"—"``, the chapter's title, the paper's short name).
    ``titles`` maps a chapter's name to its title (default: the book's chapters)."""
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Iterable):
        raise TypeError(f"entries must be an iterable of ledger entries (mappings); got {type(entries).__name__}")
    if titles is not None and not isinstance(titles, Mapping):
        raise TypeError(f"titles must map a chapter's name to its title, or be None; got {type(titles).__name__}")
    titles = _chapter_titles() if titles is None else titles
    out = []
    for e in entries:
        if not isinstance(e, Mapping):
            raise TypeError(f"entries must hold ledger entries (mappings); got a {type(e).__name__}")
        lacking = [k for k in ENTRY_KEYS if k not in e]
        if lacking:
            raise ValueError(f"entries must hold ledger entries; one lacks the key(s) {lacking}: {dict(e)!r:.80}")
        ledger._check_words(e)   # verdict and robustness: known words only (they go into cells and attributes)
        _check_chapter("e['chapter']", e.get("chapter"))
        chapter = titles.get(e.get("chapter", ""), str(e.get("chapter", "")))
        paper = paper_of(e.get("chapter") or "", papers)
        key = ledger.key_number(e)
        out.append([_details(e, chapter, paper), html.escape(e["verdict"]),
                    html.escape(e.get("robustness") or "not assessed"),
                    html.escape(key_text(*key) if key else "—"), html.escape(chapter), html.escape(paper)])
    return out


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _options(values: Iterable[str]) -> str:
    return "".join(f'<option value="{v}">{v}</option>' for v in dict.fromkeys(values) if v)


def table_html(entries: Iterable[Mapping[str, Any]], papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS, *,
               table_id: str = "mfattn-claims", titles: Mapping[str, str] | None = None) -> str:
    """The table of ``entries`` with its filter bar, count, style and script: one self-contained HTML fragment
    (no network). The filters list each value present, in book order (papers, chapters, verdicts as the
    ledger orders them)."""
    if not isinstance(table_id, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", table_id):
        raise (ValueError if isinstance(table_id, str) else TypeError)(
            f"table_id must be an HTML id (a letter, then letters, digits, '-' or '_'); got {table_id!r}"[:200])
    titles = _chapter_titles() if titles is None else titles
    data = rows(entries, papers, titles)
    col = {name: COLUMNS.index(name) for name in COLUMNS}
    present = {name: {row[col[name]] for row in data} for name in FILTERS}
    order = {"Paper": [html.escape(short) for short, _, _ in papers],
             "Chapter": [html.escape(t) for t in titles.values()],
             "Verdict": list(ledger.VERDICTS), "Robustness": list(_ROBUSTNESS)}
    labels = {"Paper": "Paper", "Chapter": "Chapter", "Verdict": "Verdict", "Robustness": "Robust or fragile"}
    selects = "".join(
        f'<label>{labels[name]}<select data-filter="{name.lower()}"><option value="">all</option>'
        + _options([v for v in order[name] if v in present[name]] + sorted(present[name] - set(order[name])))
        + "</select></label>" for name in FILTERS)
    bar = (f'<form class="mfattn-filters" role="search" aria-controls="{table_id}" hidden>{selects}'
           '<label class="mfattn-search-label">Search<input type="search" class="mfattn-search" '
           'placeholder="a word, e.g. MNIST"></label>'
           '<button type="reset" class="mfattn-reset">Clear</button></form>')
    count = f'<p class="mfattn-count" aria-live="polite">{len(data)} claims</p>'
    head = "".join(f"<th>{_HEADS.get(name, name)}</th>" for name in _SHOWN)
    body = "".join(
        "<tr" + "".join(f' data-{name.lower()}="{row[col[name]]}"' for name in FILTERS) + ">"
        + "".join(f"<td>{row[col[name]]}</td>" for name in _SHOWN) + "</tr>" for row in data)
    script = _asset("report_table.js").replace("__TABLE_ID__", table_id)
    return (f'<div class="mfattn-report" id="{table_id}-box"><style>{_asset("report_table.css")}</style>{bar}{count}'
            f'<table class="mfattn-claims" id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
            f"</table><script>{script}</script></div>")


def show(entries: Iterable[Mapping[str, Any]], papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS) -> None:
    """Display the table of ``entries`` (:func:`table_html`) in the notebook."""
    from IPython.display import HTML, display

    display(HTML(table_html(entries, papers)))
