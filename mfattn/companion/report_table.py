"""The Reproduction report's table of claims: one compact row per claim that a reader filters and searches.

Each row shows the claim, its verdict and its key number (:func:`mfattn.companion.ledger.key_number`); the
claim opens (an HTML ``<details>`` element, no script) to its source, what is measured, the rule that decided
it, every number, the note, the evidence and what the verdict rests on, and links to the claim's full entry
on the report (its anchor ``#claim-<id>``, which the chapters link to). Filters by paper, chapter, verdict and
robustness (robust / fragile: :mod:`mfattn.companion.premises`)
(DataTables' SearchPanes) and a search box over every word of a row are those of `itables
<https://mwouts.github.io/itables/>`_, whose DataTables bundle :func:`init` writes into the page itself
(offline mode): the book needs no network to show them. Without JavaScript (a PDF, a plain viewer) the
report's per-claim blocks below the table carry the same content.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, Iterable, Mapping, Sequence

from . import ledger

__all__ = ["PAPERS", "COLUMNS", "FILTERS", "paper_of", "rows", "table_html", "init", "show"]

#: The works the book examines, in book order: (short name used by the filter, section title, chapters).
PAPERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Ising mean field (background)", "Mean-field theory of Ising models (the background of chapter 1)", ("ising",)),
    ("Bal 2021", "Deep Implicit Attention (Bal 2021)", ("deq", "transformer")),
    ("Singh & Buckley 2023", "Attention as Implicit Structural Inference (Singh & Buckley 2023)",
     ("structural", "designs")),
    ("Poc-López & Aguilera 2024", "Dynamical Mean-Field Theory of Self-Attention (Poc-López & Aguilera 2024)",
     ("dmft",)),
)

#: The table's columns: the three a reader sees, then the two the filters use (hidden: each row's chapter
#: and paper are in its opened claim too, and a narrow screen keeps room for the claim).
COLUMNS = ("Claim", "Verdict", "Robustness", "Key number", "Chapter", "Paper")
#: The columns a reader filters by (SearchPanes), by name.
FILTERS = ("Paper", "Chapter", "Verdict", "Robustness")
_HIDDEN = ("Chapter", "Paper")


def paper_of(chapter: str, papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS) -> str:
    """The short name of the paper whose claims ``chapter`` examines (``""`` for a chapter of none)."""
    return next((short for short, _, chapters in papers if chapter in chapters), "")


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
    parts.append(f'<a href="#{ledger.anchor(e["claim_id"])}">The full entry and its citation</a> '
                 f"(<code>{html.escape(e['claim_id'])}</code>)")
    body = "".join(f"<p>{p}</p>" for p in parts)
    return f'<details class="mfattn-claim"><summary>{_text(e["claim"])}</summary>{body}</details>'


def rows(entries: Iterable[Mapping[str, Any]], papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS,
         titles: Mapping[str, str] | None = None) -> list[list[str]]:
    """One row per ledger entry, cells in the order of :data:`COLUMNS` (the claim cell is HTML; the others
    are escaped text: the verdict word, the key number ``"name = value"`` or ``"—"``, the chapter's title, the
    paper's short name; the robustness column says robust, fragile or not assessed). ``titles`` maps a chapter's name to its title (default: the book's chapters)."""
    if titles is None:
        from .profiles import CHAPTERS

        titles = {c.name: f"{i}. {c.title}" for i, c in enumerate(CHAPTERS, start=1)}
    out = []
    for e in entries:
        chapter = titles.get(e.get("chapter", ""), str(e.get("chapter", "")))
        paper = paper_of(e.get("chapter", ""), papers)
        key = ledger.key_number(e)
        out.append([_details(e, chapter, paper), e["verdict"], e.get("robustness") or "not assessed",
                    html.escape(ledger.numbers_text(dict([key])) if key else "—"), html.escape(chapter),
                    html.escape(paper)])
    return out


#: The style of the table: cells wrap (long test ids included), so that no column hides behind a horizontal
#: scrollbar at any width; on a phone each row is a card, the claim over its verdict and key number.
_CSS = """
table.mfattn-claims { width: 100% !important; table-layout: auto; }
table.mfattn-claims td, table.mfattn-claims th { white-space: normal; overflow-wrap: anywhere; vertical-align: top; }
table.mfattn-claims code { white-space: normal; overflow-wrap: anywhere; }
table.mfattn-claims td:nth-child(2) { min-width: 6.5em; }
table.mfattn-claims td:nth-child(3) { min-width: 4.5em; }
table.mfattn-claims td:nth-child(4) { min-width: 7em; max-width: 14em; }
table.mfattn-claims td:nth-child(2), table.mfattn-claims td:nth-child(4) { overflow-wrap: break-word; }
details.mfattn-claim > summary { cursor: pointer; }
details.mfattn-claim[open] > summary { font-weight: bold; }
details.mfattn-claim p { margin: 0.3em 0 0.3em 1em; font-size: 0.92em; }
@media (max-width: 640px) {
  table.mfattn-claims, table.mfattn-claims tbody { display: block; }
  table.mfattn-claims thead { display: none; }
  table.mfattn-claims tr { display: flex; flex-wrap: wrap; column-gap: 1em; border-top: 1px solid rgba(128, 128, 128, 0.4); }
  table.mfattn-claims td { display: block; border: none !important; box-shadow: none !important;
                          min-width: 0 !important; max-width: none !important; }
  table.mfattn-claims td:nth-child(1) { flex: 1 1 100%; }
  table.mfattn-claims td:nth-child(2) { font-weight: bold; }
}
"""


_HEAD = "<thead><tr>" + "".join(f"<th>{name}</th>" for name in COLUMNS) + "</tr></thead>"


def table_html(entries: Iterable[Mapping[str, Any]], papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS, *,
               table_id: str = "mfattn-claims", titles: Mapping[str, str] | None = None) -> str:
    """The interactive table of ``entries`` (HTML from itables; needs :func:`init`'s output on the page)."""
    from itables import to_html_datatable

    data = rows(entries, papers, titles)
    hidden = [COLUMNS.index(name) for name in _HIDDEN]
    return to_html_datatable(
        None, data_json=json.dumps(data), table_html=_HEAD, allow_html=True, table_id=table_id,
        classes="display compact mfattn-claims", style="width:100%", css=_CSS, autoWidth=False,
        columnDefs=[{"targets": hidden, "visible": False}],
        searchPanes={"columns": [COLUMNS.index(name) for name in FILTERS], "initCollapsed": True,
                     "cascadePanes": True, "orderable": False, "layout": "columns-1"},
        layout={"top1": "searchPanes", "topStart": "info", "topEnd": "search", "bottomStart": "pageLength",
                "bottomEnd": "paging"},
        pageLength=20, lengthMenu=[10, 20, 50, 100], order=[],
        language={"search": "Search the claims:", "info": "Showing _TOTAL_ of _MAX_ claims",
                  "infoFiltered": "", "infoEmpty": "No claim matches"},
        warn_on_undocumented_option=False, display_logo_when_loading=False)


def init() -> None:
    """Write itables' DataTables bundle into the notebook's output (offline mode; in Google Colab, whose
    outputs are separate frames, itables loads it from its CDN instead)."""
    import itables

    itables.init_notebook_mode(all_interactive=False)


def show(entries: Iterable[Mapping[str, Any]], papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS) -> None:
    """Display the bundle (:func:`init`) and the table of ``entries``."""
    from IPython.display import HTML, display

    init()
    display(HTML(table_html(entries, papers)))
