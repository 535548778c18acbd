"""The Reproduction report's text: which paper each chapter examines, the one-sentence summary, and every claim
in full under its anchor (the page ``book/report.ipynb`` shows these around the table of
:mod:`mfattn.companion.report_table`).

Why a module of its own: the ledger (:mod:`mfattn.companion.ledger`) records and formats one verdict; the report
gathers all of them by paper and chapter. Kept apart, the ledger imports nothing of the report's and the report's
modules import the ledger, never the other way round (they used to import each other).
"""

from __future__ import annotations

import re

from typing import Any, Mapping, Sequence

from . import ledger

__all__ = ["PAPERS", "paper_of", "report_entries", "report_summary", "report_details", "report_markdown"]

#: The works the book examines, in book order: (short name used by the filter, section title, chapters).
PAPERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Ising mean field (background)", "Mean-field theory of Ising models (the background of chapter 1)", ("ising",)),
    ("Bal 2021", "Deep Implicit Attention (Bal 2021)", ("deq", "transformer")),
    ("Singh & Buckley 2023", "Attention as Implicit Structural Inference (Singh & Buckley 2023)",
     ("structural", "designs")),
    ("Poc-López & Aguilera 2024", "Dynamical Mean-Field Theory of Self-Attention (Poc-López & Aguilera 2024)",
     ("dmft",)),
)


def _check_chapters(where: str, chapters: Any) -> None:
    """``chapters`` must be a list or tuple of chapter names (one string would match by substring or character)."""
    if isinstance(chapters, (str, bytes)) or not isinstance(chapters, (list, tuple)) or not all(
            isinstance(name, str) for name in chapters):
        raise TypeError(f"{where} must be a list of chapter names (strings), not one string; got "
                        f"{type(chapters).__name__} {chapters!r:.60}")


def _check_papers(papers: Any) -> None:
    """``papers`` must be a sequence of (short name, title, chapters) triples, as :data:`PAPERS`."""
    if isinstance(papers, (str, bytes, Mapping)) or not isinstance(papers, Sequence):
        raise TypeError(f"papers must be a sequence of (short name, title, chapters) triples; got "
                        f"{type(papers).__name__}")
    for i, paper in enumerate(papers):
        if not isinstance(paper, (list, tuple)) or len(paper) != 3 or not all(isinstance(t, str) for t in paper[:2]):
            raise TypeError(f"papers[{i}] must be a (short name, title, chapters) triple; got {paper!r:.80}")
        _check_chapters(f"papers[{i}]'s chapters", paper[2])


def _check_chapter(where: str, chapter: Any) -> None:
    """A ledger entry's chapter: a chapter's name (a string) or None (no chapter)."""
    if chapter is not None and not isinstance(chapter, str):
        raise TypeError(f"{where} must be a chapter's name (a string) or None; got {type(chapter).__name__} "
                        f"{chapter!r:.60}")


def paper_of(chapter: str, papers: Sequence[tuple[str, str, Sequence[str]]] = PAPERS) -> str:
    """The short name of the paper whose claims ``chapter`` examines (``""`` for a chapter of none). ``chapter`` is a
    chapter's name (a string; ``""`` names none); ``papers`` holds (short name, title, chapters) triples whose chapters
    are lists of names."""
    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a chapter's name (a string); got {type(chapter).__name__} {chapter!r:.60}")
    _check_papers(papers)
    if not re.fullmatch(r"[A-Za-z0-9_-]*", chapter):   # ' ising' named no paper's chapter and answered "" (none)
        raise ValueError(f"chapter must be a chapter's name (letters, digits, '_', '-'); got {chapter!r:.60}")
    return next((short for short, _, chapters in papers if chapter in chapters), "")


def report_entries(chapters: Sequence[str]) -> list[dict[str, Any]]:
    """Every claim of the book: the full-profile verdict, else the quick one (marked by its profile),
    in chapter order, then by claim id."""
    from .checks import check_strings
    from .profiles import chapter_info

    chapters = check_strings("chapters", chapters, "chapter names")
    for chapter in chapters:
        chapter_info(chapter)   # a clear error for a chapter the book does not have
    full, quick = ledger.read_ledger("full"), ledger.read_ledger("quick")
    merged = {**{k: v for k, v in quick.items()}, **full}
    order = {name: i for i, name in enumerate(chapters)}
    return sorted(merged.values(), key=lambda e: (order.get(e.get("chapter"), len(order)), e["claim_id"]))


_NONE_YET = ("*No verdict has been recorded yet: run the chapters (`python -m mfattn reproduce`), "
             "or the full profile for paper-scale verdicts.*")


def _check_entries(entries: Any) -> None:
    """``entries`` must be a sequence of ledger entries (mappings)."""
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Sequence) or not all(
            isinstance(e, Mapping) for e in entries):
        raise TypeError(f"entries must be a sequence of ledger entries (mappings); got {type(entries).__name__}")
    lacking = next(([k for k in ("claim_id", "verdict") if k not in e] for e in entries
                    if not {"claim_id", "verdict"} <= set(e)), None)
    if lacking:
        raise ValueError(f"entries must hold ledger entries; one lacks the key(s) {lacking}")
    for e in entries:   # a verdict or robustness the report does not know would be left out of its counts
        ledger._check_words(e)
        _check_chapter("e['chapter']", e.get("chapter"))


def _tally(group: Sequence[Mapping[str, Any]]) -> str:
    return ", ".join(f"{c} {v}" for v in ledger.VERDICTS if (c := sum(e["verdict"] == v for e in group)))


def report_summary(entries: Sequence[Mapping[str, Any]]) -> str:
    """The report's first sentence: how many claims, how many per verdict, and what the verdicts rest on."""
    _check_entries(entries)
    if not entries:
        return _NONE_YET
    bases = {b: sum(ledger.basis(e) == b for e in entries) for b in ledger.BASES}
    robust = {r: sum(e.get("robustness") == r for e in entries) for r in ("robust", "fragile")}
    rest = len(entries) - sum(robust.values())
    return (f"{len(entries)} claims: {_tally(entries)}. The verdicts rest on "
            + ", ".join(f"{c} {b}" for b, c in bases.items() if c)
            + " (*full profile*: a stored paper-scale result; *tests*: the test suite; *quick run*: "
            "only a short run's figures, an observation rather than a conclusion). "
            f"{robust['robust']} verdicts are *robust* and {robust['fragile']} *fragile* (another reasonable "
            "statistic, a threshold moved by its measured noise or another reading of the claim changes them)"
            + (f"; {rest} not assessed." if rest else "."))


def report_details(entries: Sequence[Mapping[str, Any]], papers: Mapping[str, Sequence[str]] | None = None) -> str:
    """Every claim in full, below the report's table: one section per paper (``papers`` maps a paper's title
    to its chapters; default: :data:`PAPERS`), one subsection per chapter, and each claim's dropdown
    (:func:`mfattn.companion.ledger.claim_block`) under its anchor ``claim-<id>``. A claim of a chapter that no
    paper lists comes last, so that every claim has its anchor."""
    from .profiles import CHAPTERS

    _check_entries(entries)
    if papers is not None and not isinstance(papers, Mapping):
        raise TypeError(f"papers must map a paper's title to its chapters, or be None; got {type(papers).__name__}")
    for title, names in (papers or {}).items():
        _check_chapters(f"papers[{title!r}]", names)

    if not entries:
        return ""
    if papers is None:
        papers = {title: chapters for _, title, chapters in PAPERS}
    titles = {c.name: c.title for c in CHAPTERS}
    listed = {name for names in papers.values() for name in names}
    rest = list(dict.fromkeys(e.get("chapter") for e in entries if e.get("chapter") not in listed))
    parts = []
    for title, names in [*papers.items(), *([("Other claims", rest)] if rest else [])]:
        group = [e for e in entries if e.get("chapter") in names]
        if not group:
            continue
        parts.append(f"## {title}\n\n{len(group)} claims: {_tally(group)}.")
        for name in names:
            own = [e for e in group if e.get("chapter") == name]
            if own:
                link = f"{{ref}}`The chapter <ch-{name}>`" if name in titles else "The chapter"
                parts.append(f"### {titles.get(name, name)}\n\n{link}; {len(own)} claims: {_tally(own)}.\n\n"
                             + "\n".join(ledger.claim_block(e, label=True) for e in own))
    return "\n\n".join(parts)


def report_markdown(chapters: Sequence[str], papers: Mapping[str, Sequence[str]] | None = None) -> str:
    """The Reproduction report as Markdown (MyST): :func:`report_summary` and :func:`report_details` of every
    claim (:func:`report_entries`). The book's page puts the filterable table
    (:mod:`mfattn.companion.report_table`) before the details."""
    entries = report_entries(chapters)
    return report_summary(entries) + ("\n\n" + report_details(entries, papers) if entries else "")
