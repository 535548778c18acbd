"""Ledger entries in words (:mod:`mfattn.companion.ledger` re-exports them): the key number, the numbers, what a
verdict rests on, its anchor and one-line citation, its premises (the paper's words, thresholds, spread,
alternatives, robustness), one claim as a MyST dropdown (:func:`claim_block`) and a chapter's or the report's table
(:func:`verdict_table`). Each formatter checks what it reads of an entry, so a malformed (planted, hand-edited) entry
is one clear error."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Sequence

from .checks import check_bool, contract
from .ledger_entries import BASES, CLAIM_ID_RE, VERDICTS, check_commit

__all__ = ["numbers_text", "key_number", "basis", "anchor", "citation", "quote_text", "robustness_text",
           "thresholds_text", "alternatives_text", "spread_text", "PREMISE_ROWS", "claim_block", "verdict_table"]


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# --- what the formatters read of an entry: checked, so a malformed (planted, hand-edited) entry is one clear error
def _kind_error(where: str, what: str, value: Any) -> TypeError:
    return TypeError(f"{where} must be {what}; got {type(value).__name__} {value!r:.60}")


def _text_of(where: str, value: Any, *, optional: bool = False) -> str | None:
    """``value`` if it is a string (None too when ``optional``), else a TypeError naming ``where``."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _kind_error(where, "a string" + (" or None" if optional else ""), value)
    return value


def _real_of(where: str, value: Any) -> float:
    """``value`` if it is a finite real number (not a bool), else a TypeError/ValueError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _kind_error(where, "a real number", value)
    if (isinstance(value, int) and abs(value) > 1.7976931348623157e308) or not math.isfinite(value):
        raise ValueError(f"{where} must be a finite number; got {value!r:.60}")
    return value


def _list_of_mappings(where: str, value: Any, keys: Sequence[str]) -> list:
    """``value`` (None or empty: no items) if it is a list of mappings each holding ``keys`` as strings."""
    if not value:
        return []
    if not isinstance(value, (list, tuple)):
        raise _kind_error(where, "a list of mappings", value)
    for i, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise _kind_error(f"{where}[{i}]", "a mapping", item)
        for key in keys:
            if key not in item:
                raise ValueError(f"{where}[{i}] lacks the key {key!r}")
            _text_of(f"{where}[{i}][{key!r}]", item[key])
    return list(value)


def _check_id(where: str, claim_id: Any) -> str:
    """``claim_id`` if it is a claim id (:data:`CLAIM_ID_RE`: it goes into anchors, hrefs and MyST labels)."""
    if not isinstance(claim_id, str):
        raise _kind_error(where, "a claim id (lowercase words joined by '-')", claim_id)
    if not CLAIM_ID_RE.match(claim_id):
        raise ValueError(f"{where} must be a claim id (lowercase letters, digits and '-'); got {claim_id!r:.80}")
    return claim_id


def _check_words(e: Mapping[str, Any]) -> None:
    """The entry's verdict is one of :data:`VERDICTS` and its robustness 'robust', 'fragile' or none."""
    if isinstance(e["verdict"], bool) or e["verdict"] not in VERDICTS:
        raise ValueError(f"e['verdict'] must be one of {', '.join(map(repr, VERDICTS))}; got {e['verdict']!r:.60}")
    if e.get("robustness") not in (None, "", "robust", "fragile"):
        raise ValueError(f"e['robustness'] must be 'robust', 'fragile' or None (not assessed); got "
                         f"{e.get('robustness')!r:.60}")


def _check_evidence_list(e: Mapping[str, Any]) -> None:
    """``evidence`` and ``figures_shown`` are lists of strings (one string would be read by character)."""
    for name in ("evidence", "figures_shown"):
        value = e.get(name, [])
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise _kind_error(f"e[{name!r}]", "a list of figure labels and test ids (not a single string)", value)
        for i, item in enumerate(value):
            _text_of(f"e[{name!r}][{i}]", item)


#: The text fields a claim's block shows in its body; a MyST fence (``:::``) in them would close the dropdown.
_BLOCK_TEXTS = ("source", "claim", "measured", "how", "note", "reading")


@contract(numbers="mapping")
def numbers_text(numbers: Mapping[str, Any]) -> str:
    """``"name = value; ..."`` with floats to four significant digits. ``numbers`` holds a ledger entry's numbers:
    each name a non-empty string, each value a finite number or a text (why a number is missing), as the ledger
    stores them; anything else (NaN, None, True, a list, an object) is a TypeError or ValueError naming it."""
    for k, v in numbers.items():
        _number_of(k, v)

    def fmt(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    return "; ".join(f"{k} = {fmt(v)}" for k, v in numbers.items())


def _number_of(name: Any, value: Any) -> Any:
    """``value`` if it is a number of a ledger entry (a finite int or float, or a text) under a non-empty string
    ``name``; else a TypeError or ValueError naming it."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"numbers: each name must be a non-empty string; got {type(name).__name__} {name!r:.60}")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _kind_error(f"numbers[{name!r}]", "a number or a text (the ledger's kinds)", value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"numbers[{name!r}] must be finite (a ledger's numbers are); got {value!r}")
    return value


@contract(e="mapping")
def key_number(e: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The claim's key number ``(name, value)``: the number its entry names as ``key`` (the first the claim
    declares); for an entry written before entries named one, the first of its stored numbers; None for an
    entry without numbers (a claim not tested). A ``key`` that names none of the entry's numbers is a ValueError."""
    numbers = e.get("numbers") or {}
    if not isinstance(numbers, Mapping):
        raise _kind_error("e['numbers']", "a mapping of a number's name to its value", numbers)
    name = _text_of("e['key']", e.get("key"), optional=True)
    if name is None:   # an entry written before entries named their key
        first = next(iter(numbers.items()), None)
        return first if first is None else (first[0], _number_of(*first))
    if name not in numbers:   # never another number shown in its place
        raise ValueError(f"e['key'] must name one of the entry's stored numbers {sorted(numbers)[:8]}; got {name!r}")
    return name, _number_of(name, numbers[name])


def _evidence_text(evidence: Sequence[str], shown: Sequence[str], cross_refs: bool) -> str:
    parts = []
    for item in evidence:
        if cross_refs and item in shown:
            parts.append(f"{{numref}}`{item}`")
        else:
            parts.append(f"`{item}`")
    return ", ".join(parts)


@contract(e="mapping")
def basis(e: Mapping[str, Any]) -> str:
    """What the verdict rests on (:data:`BASES`): the entry's ``basis``, else what its ``profile`` gives."""
    if e.get("basis") is not None:
        if e["basis"] not in BASES:
            raise ValueError(f"e['basis'] must be one of {list(BASES)}; got {e['basis']!r}")
        return e["basis"]
    if e.get("profile") not in ("full", "quick"):
        raise ValueError(f"e must name its basis or its profile ('full' or 'quick'); got basis None and profile "
                         f"{e.get('profile')!r}")
    return "full profile" if e["profile"] == "full" else "quick run"


def anchor(claim_id: str) -> str:
    """The label of a claim on the Reproduction report (``#claim-<id>`` in its HTML); ``claim_id`` must be a claim id
    (lowercase letters, digits and '-': nothing that could leave the HTML attribute or the MyST label it goes in)."""
    return f"claim-{_check_id('claim_id', claim_id)}"


@contract(e="mapping:claim_id|verdict")
def citation(e: Mapping[str, Any]) -> str:
    """The one-line citation of a verdict: claim id, verdict, version, profile and the commit that decided it."""
    from .. import __version__

    _check_id("e['claim_id']", e["claim_id"])
    _check_words(e)
    if e.get("profile", "full") not in ("full", "quick"):
        raise ValueError(f"e['profile'] must be 'full' or 'quick'; got {e.get('profile')!r:.60}")
    commit = check_commit("e['git_commit']", e.get("git_commit", "unknown"))   # 5 is no commit
    dirty = ", with uncommitted changes" if commit.endswith("+dirty") else ""
    return (f"mfattn {__version__}, claim `{e['claim_id']}`: {e['verdict']} ({e.get('profile', 'full')} profile, "
            f"decided at commit `{commit.split('+')[0][:12]}`{dirty})")


@contract(e="mapping")
def quote_text(e: Mapping[str, Any]) -> str:
    """Where the paper makes the claim, in words: the verbatim phrase in quotation marks (the paper's words), its
    section, the book's translation and where the public code has a number the text lacks; "" without a quote."""
    from .premises import PAPERS

    q = e.get("quote")
    if not q:
        return ""
    if not isinstance(q, Mapping):
        raise _kind_error("e['quote']", "a mapping (text, section, paper, translation, code) or None", q)
    for key in ("text", "section"):
        if key not in q:
            raise ValueError(f"e['quote'] lacks the key {key!r}")
        _text_of(f"e['quote'][{key!r}]", q[key])
    for key in ("paper", "translation", "code"):
        _text_of(f"e['quote'][{key!r}]", q.get(key), optional=True)
    work = PAPERS.get(q.get("paper", ""), ("", q.get("paper", "")))[1].split(",")[0]
    text = f"“{q['text']}” ({work}, {q['section']})"
    if q.get("translation"):
        text += f"; in English: “{q['translation']}” (the book's translation)"
    if q.get("code"):
        text += f"; in the public code: {q['code']}"
    return text


@contract(e="mapping")
def robustness_text(e: Mapping[str, Any]) -> str:
    """Robust or fragile, in words: how many alternatives were tried and which move the verdict (and to what);
    "" for an entry without alternatives (not assessed)."""
    alts = _list_of_mappings("e['alternatives']", e.get("alternatives"), ("name", "verdict"))
    if not e.get("robustness"):
        return ""
    if e["robustness"] not in ("robust", "fragile"):
        raise ValueError(f"e['robustness'] must be 'robust', 'fragile' or None (not assessed); got "
                         f"{e['robustness']!r:.60}")
    moved_by = e.get("moved_by", [])
    if isinstance(moved_by, (str, bytes)) or not isinstance(moved_by, (list, tuple)) or not all(
            isinstance(name, str) for name in moved_by):
        raise _kind_error("e['moved_by']", "a list of the alternatives' names", moved_by)
    decided = [a for a in alts if a.get("verdict") != "cannot decide"]
    if e["robustness"] == "robust":
        return f"robust: the same verdict under all {len(decided)} alternatives that decide it"
    moved = [f"{a['name']} → {a['verdict']}" for a in alts if a["name"] in set(e.get("moved_by", []))]
    return f"fragile: {len(moved)} of {len(decided)} alternatives move it ({'; '.join(moved)})"


@contract(e="mapping")
def thresholds_text(e: Mapping[str, Any]) -> str:
    """Each threshold with its value, the basis of its reason and what the stored numbers show of it."""
    parts = []
    thresholds = _list_of_mappings("e['thresholds']", e.get("thresholds"), ("name", "basis", "reason"))
    for i, t in enumerate(thresholds):
        where = f"e['thresholds'][{i}]"
        if "value" not in t:
            raise ValueError(f"{where} lacks the key 'value'")
        _real_of(f"{where}['value']", t["value"])
        if "noise" in t:
            _real_of(f"{where}['noise']", t["noise"])
        if "borne_out" in t and not (t["borne_out"] is None or t["borne_out"] is True or t["borne_out"] is False):
            raise ValueError(f"{where}['borne_out'] must be True, False or None; got {t['borne_out']!r:.60}")
        _text_of(f"{where}['found']", t.get("found", ""))
    for t in thresholds:
        found = ""
        if "borne_out" in t:
            mark = {True: "borne out", False: "NOT borne out", None: "not checkable"}[t["borne_out"]]
            found = f"; {mark} by the stored numbers: {t.get('found', '')}"
        noise = f" ± {t['noise']:.3g}" if "noise" in t else ""
        parts.append(f"{t['name']} = {t['value']:.4g}{noise} ({t['basis']}: {t['reason']}{found})")
    return "; ".join(parts)


@contract(e="mapping")
def alternatives_text(e: Mapping[str, Any]) -> str:
    """The verdict under each alternative, in one line."""
    alts = _list_of_mappings("e['alternatives']", e.get("alternatives"), ("name", "verdict"))
    return "; ".join(f"{a['name']}: {a['verdict']}" for a in alts)


@contract(e="mapping")
def spread_text(e: Mapping[str, Any]) -> str:
    """The units the numbers rest on and their per-unit values."""
    sp = e.get("spread")
    if not sp:
        return ""
    if not isinstance(sp, Mapping):
        raise _kind_error("e['spread']", "a mapping (unit, n, values, one_suffices) or None", sp)
    if "unit" not in sp:
        raise ValueError("e['spread'] lacks the key 'unit'")
    _text_of("e['spread']['unit']", sp["unit"])
    _text_of("e['spread']['one_suffices']", sp.get("one_suffices", ""))
    if "n" in sp and (isinstance(sp["n"], bool) or not isinstance(sp["n"], int)):
        raise _kind_error("e['spread']['n']", "an integer (the number of units)", sp["n"])
    if "values" in sp:
        if not isinstance(sp["values"], Mapping):
            raise _kind_error("e['spread']['values']", "a mapping of a number's name to its per-unit values",
                              sp["values"])
        for name, vs in sp["values"].items():
            if isinstance(vs, (str, bytes)) or not isinstance(vs, (list, tuple)):
                raise _kind_error(f"e['spread']['values'][{name!r}]", "a list of per-unit values", vs)
            for j, v in enumerate(vs):
                if v is not None:
                    _real_of(f"e['spread']['values'][{name!r}][{j}]", v)
    if "values" not in sp:
        return f"{sp['unit']}: {sp.get('one_suffices', '')}".strip()
    vals = "; ".join(f"{name}: " + ", ".join("—" if v is None else f"{v:.3g}" for v in vs)
                     for name, vs in sp["values"].items())
    head = f"{sp.get('n', 0)} {sp['unit']}{'s' if sp.get('n', 0) != 1 and not sp['unit'].endswith('s') else ''}"
    return f"{head} ({vals})" + (f"; one suffices: {sp['one_suffices']}" if sp.get("one_suffices") else "")


#: The rows of a claim's premises, in the order a reader checks them: (label, formatter of an entry).
PREMISE_ROWS = (("The paper's words", quote_text), ("Reading", lambda e: e.get("reading", "")),
                ("Thresholds and their reasons", thresholds_text), ("Spread", spread_text),
                ("Alternatives tried", alternatives_text), ("Robustness", robustness_text))


@contract(e="mapping:claim_id|verdict|source|claim")
def claim_block(e: Mapping[str, Any], *, cross_refs: bool = True, label: bool = False) -> str:
    """One claim as a MyST dropdown: its verdict and claim in the title; inside, whose claim it is, what is
    measured, how it is decided (the rule's sentence), the numbers, the note, the evidence, what the verdict
    rests on (:data:`BASES`) and its one-line citation. ``label`` puts the report's anchor before it (only
    the report does, so that each claim has one anchor); elsewhere the block links to it. A text holding a MyST
    fence (``:::``), which would close the dropdown, is a ValueError naming its field."""
    check_bool("cross_refs", cross_refs), check_bool("label", label)   # 'no' would read as True
    _check_id("e['claim_id']", e["claim_id"])
    _check_words(e)
    _check_evidence_list(e)
    for name in _BLOCK_TEXTS:
        text = _text_of(f"e[{name!r}]", e.get(name), optional=name not in ("source", "claim"))
        if text is not None and ":::" in text:
            raise ValueError(f"e[{name!r}] holds ':::', a MyST fence that would close the claim's dropdown; got "
                             f"{text!r:.80}")
    origin = "ours (beyond the papers)" if e.get("origin") == "ours" else "the paper's"
    rows = [f"**Source**: {_cell(e['source'])} ({'a claim of ' + origin if e.get('origin') == 'ours' else origin + ' claim'})"]
    quote = quote_text(e)
    if quote:
        rows.append(f"**The paper's words**: {quote}")
    if e.get("measured"):
        rows.append(f"**Measured**: {e['measured']}")
    if e.get("how"):
        rows.append(f"**How it is decided**: {e['how']}")
    if e.get("numbers"):
        rows.append(f"**Numbers**: {numbers_text(e['numbers'])}")
    if e.get("note"):
        rows.append(f"**Note**: {e['note']}")
    for name, text in PREMISE_ROWS[1:]:
        if text(e):
            rows.append(f"**{name}**: {text(e)}")
    ev = _evidence_text(e.get("evidence", []), e.get("figures_shown", []), cross_refs)
    rows.append(f"**Evidence**: {ev or 'none'}; rests on: *{basis(e)}*")
    rows.append(f"**Cite as**: {citation(e)}"
                + ("" if label or not cross_refs else f"; {{ref}}`in the report <{anchor(e['claim_id'])}>`"))
    robust = f" ({e['robustness']})" if e.get("robustness") else ""
    title = f"**{e['verdict']}**{robust} · `{e['claim_id']}`: {_cell(e['claim'])}"
    head = f"({anchor(e['claim_id'])})=\n" if label else ""
    return head + f":::{{dropdown}} {title}\n" + "\n\n".join(rows) + "\n:::\n"


def verdict_table(entries: Iterable[Mapping[str, Any]], *, cross_refs: bool = True,
                  show_chapter: bool = False, anchors: bool = False) -> str:
    """A compact Markdown (MyST) table of ledger entries (claim id, verdict, robust or fragile, what it rests on), then one
    dropdown per claim with its rule, numbers, note, evidence and citation (:func:`claim_block`).

    ``cross_refs`` writes the evidence figures a chapter shows as ``{numref}`` roles (within the book) and
    links each claim to its anchor on the report; ``show_chapter`` adds the chapter column; ``anchors`` puts
    each claim's anchor before its block (the report does; a chapter links to it).
    """
    for flag, value in (("cross_refs", cross_refs), ("show_chapter", show_chapter), ("anchors", anchors)):
        check_bool(flag, value)   # 'no' would read as True
    if isinstance(entries, (str, bytes, Mapping)) or not isinstance(entries, Iterable):
        raise TypeError(f"entries must be an iterable of ledger entries (mappings); got {type(entries).__name__}")
    entries = list(entries)
    if not all(isinstance(e, Mapping) and "claim_id" in e and "verdict" in e for e in entries):
        raise TypeError("entries must hold ledger entries (mappings with claim_id and verdict)")
    head = ["Claim", "Verdict", "Robust?", "Rests on"] + (["Chapter"] if show_chapter else [])
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for e in entries:
        _check_id("e['claim_id']", e["claim_id"])
        _check_words(e)
        if show_chapter:
            if "chapter" not in e:
                raise ValueError(f"show_chapter=True needs each entry's chapter; entry {e['claim_id']!r:.60} has none")
            _text_of("e['chapter']", e["chapter"])
        name = f"{{ref}}`{e['claim_id']} <{anchor(e['claim_id'])}>`" if cross_refs else f"`{e['claim_id']}`"
        cells = [name, f"**{e['verdict']}**", e.get("robustness") or "not assessed", basis(e)]
        if show_chapter:
            cells.append(f"{{ref}}`ch-{e['chapter']}`" if cross_refs else e["chapter"])
        rows.append("| " + " | ".join(cells) + " |")
    blocks = [claim_block(e, cross_refs=cross_refs, label=anchors and cross_refs) for e in entries]
    return "\n".join(rows) + "\n\n" + "\n".join(blocks)
