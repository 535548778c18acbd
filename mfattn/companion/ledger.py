"""The verdict ledger: what the book's runs say about each claim of the three works.

A chapter records a verdict on a paper's claim with :meth:`mfattn.ChapterRun.verdict`::

    run.verdict("bal-mnist-accuracy", "Bal 2021, MNIST example",
                "A 26k-parameter deep implicit attention model reaches about 99.1 % test accuracy.",
                "reproduced", evidence=["fig-deq-full-cpu", "tests/test_models.py::test_short_training"],
                numbers={"mean accuracy (%)": 99.11}, note="three seeds, CPU")

Each call is written atomically into the ledger of the run's profile (:func:`ledger_path`): the
full-profile ledger ``data/full/ledger.json`` is kept in the repository beside the figure manifest;
the quick-profile ledger goes to the build folder. A verdict is one of :data:`VERDICTS`; its
evidence names figure labels (``fig-...``) and/or test ids (``tests/test_x.py::test_name``), each
checked to exist. At its end a chapter shows its verdicts as a table (:meth:`ChapterRun.verdicts`),
and the book's "Reproduction report" gathers every chapter's (:mod:`mfattn.companion.report_text`, which
reads this module: this one imports nothing of the report's).

The ledger file maps ``claim_id`` to an entry (JSON)::

    {"claim_id", "chapter", "source", "claim", "verdict", "evidence": [...], "numbers": {...}, "key",
     "note", "profile", "basis", "seed", "git_commit", "run_started", "figures_shown",
     "quote", "reading", "thresholds", "spread", "alternatives", "robustness", "moved_by"}

(the last seven are the verdict's premises, :data:`PREMISE_FIELDS`).

``key`` names the claim's key number, the one the report's table shows in the claim's row
(:func:`key_number`): the first of the numbers the claim declares.

This module writes and reads the ledger files (:func:`ledger_path`, :func:`record`, :func:`prune`,
:func:`apply_decisions`); an entry is made and checked in :mod:`.ledger_entries` and put in words in
:mod:`.ledger_text`, both re-exported here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from . import store
from .checks import check_choice, check_strings, contract  # noqa: F401
from .ledger_entries import (BASES, CLAIM_ID_RE, FIGURE_RE, ORIGINS, PREMISE_FIELDS, TEST_ID_RE, VERDICTS,  # noqa: F401
                             LedgerError, _clean_numbers, _test_exists, check_evidence, clean_premises,
                             evidence_basis, make_entry)
from .ledger_text import (_BLOCK_TEXTS, PREMISE_ROWS, _cell, _check_evidence_list, _check_id, _check_words,  # noqa: F401
                          _evidence_text, _kind_error, _list_of_mappings, _real_of, _text_of, alternatives_text,
                          anchor, basis, citation, claim_block, key_number, numbers_text, quote_text,
                          robustness_text, spread_text, thresholds_text, verdict_table)

__all__ = ["PREMISE_FIELDS", "clean_premises", "VERDICTS", "BASES", "evidence_basis", "ledger_path", "read_ledger", "make_entry", "check_evidence", "record", "prune",
           "verdict_table", "claim_block", "anchor", "citation", "key_number", "numbers_text", "basis",
           "apply_decisions", "LedgerError", "ORIGINS",
           "quote_text", "robustness_text", "thresholds_text", "alternatives_text", "spread_text", "PREMISE_ROWS"]


@contract(profile="str", seed="int:0")
def ledger_path(profile: str, seed: int = 0) -> Path:
    """The ledger file of ``profile``: ``data/full/ledger.json`` for the full profile (next to
    ``data/full/figures/``), ``<figures>/../ledger-quick.json`` for the quick one; seeds other than 0
    get their own file (``ledger-seed-1.json``); a seed is at most 2**62, as a run's."""
    from .manifest import figures_dir

    if seed > 2**62:   # as figures_dir, reproduce and ChapterRun
        raise ValueError(f"seed must be at most 2**62 (seeds and their offsets are 64-bit); got {seed}")
    name = "ledger" + ("" if profile == "full" else f"-{profile}") + (f"-seed-{int(seed)}" if seed else "")
    return figures_dir(profile).parent / f"{name}.json"


@contract(profile="str", seed="int:0")
def read_ledger(profile: str, seed: int = 0) -> dict[str, dict[str, Any]]:
    """``{claim_id: entry}`` of ``profile``'s ledger (empty when none was written yet); an entry stored under a
    key other than its own ``claim_id`` is a ValueError naming the file and the key."""
    path = ledger_path(profile, seed)
    entries = store.read_entries(path, ("claim_id", "verdict"), "ledger entry")
    for key, entry in entries.items():
        if entry["claim_id"] != key:
            raise ValueError(f"{path}: ledger entry {key!r} holds claim_id {entry['claim_id']!r:.80}; an entry is "
                             "stored under its own claim id: restore the file from git or remove that entry")
    return entries


def _check_mapping(name: str, value: Any, keys: Sequence[str] = ()) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (dict); got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {missing}")
    bad = [k for k in value if not isinstance(k, str) or not k or not k.isprintable()]
    if bad:   # a JSON file's keys are text: 1 would be written as "1" and read back as another key
        raise TypeError(f"{name} must have non-empty printable string keys (they become a JSON file's field "
                        f"names); got {bad[0]!r:.60}")
    return value


#: The fields :func:`record` sets itself (``run_info`` may not replace them).
_RECORDED = ("chapter", "profile", "basis", "figures_shown")


def record(profile: str, entry: Mapping[str, Any], *, chapter: str, run_info: Mapping[str, Any],
           figure_labels: Iterable[str], shown: Iterable[str] = (), seed: int = 0,
           stored_full: Iterable[str] = ()) -> dict[str, Any]:
    """Write ``entry`` (from :func:`make_entry`) into ``profile``'s ledger, under a lock.

    ``figure_labels`` are the labels that exist (this run's figures and the stored full-profile
    ones, ``stored_full``); ``shown`` those the chapter shows as numbered figures (cited with
    ``{numref}``). The entry gets its ``basis`` (:func:`evidence_basis`).
    Refuses evidence that does not exist and a claim id that another chapter already owns.
    """
    _check_mapping("entry", entry, ("claim_id", "verdict", "evidence"))
    _check_mapping("run_info", run_info)
    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a chapter's name (a string); got {type(chapter).__name__}")
    from .profiles import chapter_info

    chapter_info(chapter)   # a clear error for a chapter the book does not have
    check_choice("entry['verdict']", entry["verdict"], VERDICTS)   # make_entry's words: record writes no other
    if "git_commit" in run_info:   # refused when the report cites it: refused here, where it is written
        from .ledger_entries import check_commit
        check_commit("run_info['git_commit']", run_info["git_commit"])
    overriding = sorted(str(k) for k in run_info if k in entry or k in _RECORDED)
    if overriding:   # run_info adds the run's facts (seed, commit, start); it never replaces what record sets
        raise ValueError(f"run_info must not set {overriding}: the entry's own fields and {list(_RECORDED)} are "
                         "set by record (run_info holds the run's seed, git_commit and run_started)")
    shown = check_strings("shown", shown, "claim ids")
    missing = check_evidence(entry["evidence"], figure_labels, store.project_root())
    if missing:
        raise LedgerError(f"claim {entry['claim_id']!r}: evidence {missing} does not exist (figure labels must "
                          f"be recorded by this chapter or stored in the full-profile manifest; test ids must "
                          f"name a test function under tests/)")
    shown = set(shown)
    full = {**entry, "chapter": chapter, "profile": profile, **dict(run_info),
            "basis": evidence_basis(entry["evidence"], profile, stored_full),
            "figures_shown": [item for item in entry["evidence"] if item in shown]}
    path = ledger_path(profile, seed)
    with store.locked(path):
        ledger = store.read_entries(path, ("claim_id", "verdict"), "ledger entry")
        owner = ledger.get(entry["claim_id"], {}).get("chapter")
        if owner not in (None, chapter):
            raise LedgerError(f"claim_id {entry['claim_id']!r} is already used by chapter {owner!r}; "
                              f"claim ids are unique across the book")
        ledger[entry["claim_id"]] = full
        store.atomic_write_json(path, ledger)
    return full


def prune(profile: str, chapter: str, keep: Iterable[str], seed: int = 0) -> list[str]:
    """Drop ``chapter``'s entries whose id is not in ``keep`` (claims a chapter no longer makes)."""
    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a chapter's name (a string); got {type(chapter).__name__}")
    from .profiles import chapter_info

    chapter_info(chapter)   # a clear error for a chapter the book does not have
    keep = set(check_strings("keep", keep, "claim ids"))
    path = ledger_path(profile, seed)
    if not path.exists():
        return []
    with store.locked(path):
        ledger = store.read_entries(path, ("claim_id", "verdict"), "ledger entry")
        gone = [cid for cid, e in ledger.items() if e.get("chapter") == chapter and cid not in keep]
        if gone:
            for cid in gone:
                del ledger[cid]
            store.atomic_write_json(path, ledger)
    return sorted(gone)


def apply_decisions(decided: Mapping[str, Mapping[str, Any]], commit: str, profile: str = "full") -> dict[str, list[str]]:
    """Write re-decided verdicts (:func:`mfattn.companion.verdicts.redecide`) into ``profile``'s ledger.

    Each entry keeps the run it came from (chapter run's seed, start time, the figures it showed) and gets the
    new decision, ``git_commit`` = ``commit`` (the code whose rules decided it) and its ``basis``; entries
    of claims no longer declared are dropped. Returns ``{"changed": [...], "added": [...], "dropped": [...]}``
    (claim ids whose verdict changed, that were new, that were dropped)."""
    from .manifest import read_manifest

    from .profiles import chapter_info

    _check_mapping("decided", decided)
    for cid, d in decided.items():
        _check_mapping(f"decided[{cid!r}]", d, ("chapter", "source", "claim", "verdict", "evidence", "numbers", "note",
                                                 "how", "measured", "origin"))
        if not isinstance(d["chapter"], str):
            raise TypeError(f"decided[{cid!r}]['chapter'] must be a chapter's name (a string); got "
                            f"{type(d['chapter']).__name__}")
        chapter_info(d["chapter"])   # a clear error for a chapter the book does not have
    if not isinstance(commit, str):
        raise TypeError(f"commit must be the commit whose rules decided (a string); got {type(commit).__name__}")
    if not re.fullmatch(r"[0-9a-f]{4,40}(\+dirty)?|unknown", commit):
        raise ValueError(f"commit must be a git commit (4 to 40 hex digits, '+dirty' when the tree was modified) or "
                         f"'unknown' (git_commit() outside git); got {commit!r:.60}")
    stored_full = set(read_manifest("full"))
    root = store.project_root()
    path = ledger_path(profile)
    report = {"changed": [], "added": [], "dropped": []}
    with store.locked(path):
        old = store.read_entries(path, ("claim_id", "verdict"), "ledger entry")
        new = {}
        for cid, d in decided.items():
            entry = make_entry(cid, d["source"], d["claim"], d["verdict"], d["evidence"], d["numbers"], d["note"],
                               how=d["how"], measured=d["measured"], origin=d["origin"], premises=d.get("premises"))
            missing = check_evidence(entry["evidence"], stored_full, root)
            if missing:
                raise LedgerError(f"claim {cid!r}: evidence {missing} does not exist")
            prev = old.get(cid)
            if prev is None:
                report["added"].append(cid)
            elif prev.get("verdict") != entry["verdict"]:
                report["changed"].append(f"{cid}: {prev.get('verdict')} -> {entry['verdict']}")
            keep = {k: prev[k] for k in ("seed", "run_started") if prev and k in prev}
            shown = set(prev.get("figures_shown", [])) if prev else set()
            new[cid] = {**entry, "chapter": d["chapter"], "profile": profile, **keep, "git_commit": commit,
                        "basis": evidence_basis(entry["evidence"], profile, stored_full),
                        "figures_shown": [e for e in entry["evidence"] if e in shown]}
        report["dropped"] = sorted(set(old) - set(new))
        store.atomic_write_json(path, new)
    return report
