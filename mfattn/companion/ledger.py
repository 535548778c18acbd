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
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from . import store
from .checks import check_choice, check_strings, contract

__all__ = ["PREMISE_FIELDS", "clean_premises", "VERDICTS", "BASES", "evidence_basis", "ledger_path", "read_ledger", "make_entry", "check_evidence", "record", "prune",
           "verdict_table", "claim_block", "anchor", "citation", "key_number", "numbers_text", "basis",
           "apply_decisions", "LedgerError", "ORIGINS",
           "quote_text", "robustness_text", "thresholds_text", "alternatives_text", "spread_text", "PREMISE_ROWS"]

#: The verdict words, in the order the report sorts them: a claim of a paper is reproduced / reproduced with
#: differences / not reproduced, a claim of ours confirmed / confirmed with differences / refuted
#: (:data:`mfattn.companion.verdicts.SCALES`); either may be "not tested", with the reason.
VERDICTS = ("reproduced", "reproduced with differences", "not reproduced", "confirmed", "confirmed with differences",
            "refuted", "not tested")
#: Where a claim comes from: a paper's claim or one of ours (beyond the papers).
ORIGINS = {"paper": VERDICTS[:3], "ours": VERDICTS[3:6]}

# \Z, not $: "$" also matches before a trailing newline ("x-claim\n" is no claim id, label or test id)
CLAIM_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*\Z")
TEST_ID_RE = re.compile(r"^(tests/[A-Za-z0-9_/]+\.py)::([A-Za-z_][A-Za-z0-9_]*)(\[.*\])?\Z")
FIGURE_RE = re.compile(r"^fig-[a-z0-9][a-z0-9-]*\Z")


class LedgerError(ValueError):
    """A verdict that cannot be recorded (unknown word, duplicate id, evidence that does not exist)."""


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


def _clean_numbers(numbers: Mapping[str, Any] | None) -> dict[str, Any]:
    if numbers is None:
        return {}
    if not isinstance(numbers, Mapping):
        raise LedgerError(f"numbers must be a mapping of name to value; got {type(numbers).__name__}")
    out = {}
    for name, value in numbers.items():
        if not isinstance(name, str) or not name:
            raise LedgerError(f"numbers: every name must be a non-empty string; got {name!r}")
        if hasattr(value, "item") and getattr(value, "ndim", 0) == 0:  # numpy / torch scalars
            if getattr(getattr(value, "device", None), "type", None) == "meta":
                raise LedgerError(f"numbers[{name!r}] is a tensor on the meta device, which holds no value")
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise LedgerError(f"numbers[{name!r}] must be a number or a string; got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise LedgerError(f"numbers[{name!r}] is {value!r}; a verdict's number must be finite "
                              f"(write why it is missing as a string instead)")
        out[name] = value
    return out


#: What an entry holds of a verdict's premises (:mod:`mfattn.companion.premises`): where the paper says it, which
#: reading of the claim it is about, each threshold with what its check finds in the stored numbers, the spread
#: over the units the numbers rest on, the verdict under every alternative, and robust / fragile.
PREMISE_FIELDS = ("quote", "reading", "thresholds", "spread", "alternatives", "robustness", "moved_by")


def clean_premises(claim_id: str, premises: Mapping[str, Any] | None) -> dict[str, Any]:
    """``premises`` checked (keys among :data:`PREMISE_FIELDS`, plain JSON, finite numbers) and as the ledger file
    stores them."""
    import json

    if not isinstance(claim_id, str) or not claim_id:
        raise TypeError(f"claim_id must be a claim's id (a non-empty string); got {claim_id!r:.60}")
    if not premises:
        return {}
    if not isinstance(premises, Mapping) or set(premises) - set(PREMISE_FIELDS):
        raise LedgerError(f"claim {claim_id!r}: premises must be a mapping with keys among {PREMISE_FIELDS}; got "
                          f"{premises!r}")
    if premises.get("robustness") not in (None, "robust", "fragile"):
        raise LedgerError(f"claim {claim_id!r}: robustness must be 'robust' or 'fragile'; got {premises['robustness']!r}")
    try:
        return json.loads(json.dumps(dict(premises), allow_nan=False))
    except (TypeError, ValueError) as err:
        raise LedgerError(f"claim {claim_id!r}: premises must be plain JSON with finite numbers ({err})") from None


def make_entry(claim_id: str, source: str, claim: str, verdict: str, evidence: str | Sequence[str],
               numbers: Mapping[str, Any] | None = None, note: str = "", *, how: str, measured: str = "",
               origin: str = "paper", premises: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A ledger entry with every field checked (no file is touched). ``how`` is the sentence of the rule
    that decided the verdict (its threshold and the reason); ``origin`` says whose claim it is (``"paper"``
    or ``"ours"``) and so which verdict words apply (:data:`ORIGINS`). The first of ``numbers`` (in the
    order the claim gives them) is the claim's key number (``key``)."""
    if not isinstance(claim_id, str) or not CLAIM_ID_RE.match(claim_id):
        raise LedgerError(f"claim_id must be lowercase words joined by '-' (e.g. 'bal-mnist-accuracy'); "
                          f"got {claim_id!r}")
    for name, text in (("source", source), ("claim", claim)):
        if not isinstance(text, str) or not text.strip():
            raise LedgerError(f"{name} of claim {claim_id!r} must be a non-empty string; got {text!r}")
    try:
        check_choice("origin", origin, tuple(ORIGINS))
        check_choice("verdict", verdict, ORIGINS[origin] + ("not tested",))
    except ValueError as err:
        raise LedgerError(f"claim {claim_id!r} (a claim of {'a paper' if origin == 'paper' else 'ours'}): {err}") from None
    for name, text in (("how", how), ("measured", measured)):
        if not isinstance(text, str) or (name == "how" and not text.strip()):
            raise LedgerError(f"claim {claim_id!r}: {name} must be a {'non-empty ' if name == 'how' else ''}string "
                              f"(the rule's threshold and its reason); got {text!r}")
    if isinstance(evidence, str):
        evidence = [evidence]
    if not isinstance(evidence, (list, tuple)):
        raise LedgerError(f"claim {claim_id!r}: evidence must be a figure label, a test id or a list of them; "
                          f"got {type(evidence).__name__} {evidence!r}")
    evidence = list(evidence)
    if not evidence and verdict != "not tested":
        raise LedgerError(f"claim {claim_id!r}: evidence must name at least one figure label or test id")
    if verdict == "not tested" and not str(note).strip():
        raise LedgerError(f"claim {claim_id!r}: a 'not tested' verdict needs a note saying why")
    for item in evidence:
        if not isinstance(item, str) or not (FIGURE_RE.match(item) or TEST_ID_RE.match(item)):
            raise LedgerError(f"claim {claim_id!r}: evidence items are figure labels ('fig-...') or test ids "
                              f"('tests/test_x.py::test_name'); got {item!r}")
    if not isinstance(note, str):
        raise LedgerError(f"note of claim {claim_id!r} must be a string; got {note!r}")
    numbers = _clean_numbers(numbers)
    return {"claim_id": claim_id, "source": source.strip(), "claim": claim.strip(), "verdict": verdict,
            "evidence": evidence, "numbers": numbers, **({"key": next(iter(numbers))} if numbers else {}),
            "note": note.strip(), "how": how.strip(), "measured": measured.strip(), "origin": origin,
            **clean_premises(claim_id, premises)}


def _test_exists(root: Path, test_id: str) -> bool:
    match = TEST_ID_RE.match(test_id)
    path = root / match.group(1)
    if not path.is_file():
        return False
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise LedgerError(f"evidence {test_id!r}: {path} is not a UTF-8 Python file (byte {err.start} is not UTF-8), "
                          "so its tests cannot be looked up") from None
    return re.search(rf"^\s*def {re.escape(match.group(2))}\(", text, re.MULTILINE) is not None


def _check_mapping(name: str, value: Any, keys: Sequence[str] = ()) -> Mapping:
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (dict); got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {missing}")
    return value


def check_evidence(evidence: Iterable[str], figure_labels: Iterable[str], root: Path | None = None) -> list[str]:
    """The evidence items that do not exist: figure labels not in ``figure_labels``, test ids whose
    file or ``def test_...`` is missing under ``root`` (the checkout; test ids are not checked outside one)."""
    evidence, figure_labels = check_strings("evidence", evidence, "figure labels and test ids"), check_strings("figure_labels", figure_labels, "figure labels")
    if root is not None:
        from .checks import check_path

        root = check_path("root", root)
        if root.exists() and not root.is_dir():   # a file or a FIFO holds no tests/: every test id would be "missing"
            raise NotADirectoryError(f"root must be the checkout's folder; {root} is not a folder")
    labels = set(figure_labels)
    missing = []
    for item in evidence:
        if not (FIGURE_RE.match(item) or TEST_ID_RE.match(item)) or ".." in item.split("::")[0].split("/"):
            raise LedgerError(f"evidence item {item!r:.80} is neither a figure label (fig-...) nor a test id "
                              "(tests/<file>.py::test_name, inside tests/)")
        if FIGURE_RE.match(item):
            if item not in labels:
                missing.append(item)
        elif root is not None and not _test_exists(root, item):
            missing.append(item)
    return missing


#: What a verdict rests on, strongest first (see :func:`evidence_basis`).
BASES = ("full profile", "tests", "quick run")


def evidence_basis(evidence: Iterable[str], profile: str, stored_full: Iterable[str]) -> str:
    """What backs a verdict: ``"full profile"`` when the run is a full-profile run or its evidence
    names a stored full-profile (paper-scale) figure; else ``"tests"`` when it names a test; else
    ``"quick run"`` (figures of a short run only: an observation, not a conclusion)."""
    evidence = check_strings("evidence", evidence, "figure labels and test ids")
    stored_full = check_strings("stored_full", stored_full, "figure labels")
    check_choice("profile", profile, ("quick", "full"))
    if profile == "full" or set(evidence) & set(stored_full):
        return "full profile"
    if any(TEST_ID_RE.match(item) for item in evidence):
        return "tests"
    return "quick run"


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
    """``"name = value; ..."`` with floats to four significant digits."""
    def fmt(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    return "; ".join(f"{k} = {fmt(v)}" for k, v in numbers.items())


@contract(e="mapping")
def key_number(e: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The claim's key number ``(name, value)``: the number its entry names as ``key`` (the first the claim
    declares); for an entry written before entries named one, the first of its stored numbers; None for an
    entry without numbers (a claim not tested)."""
    numbers = e.get("numbers") or {}
    if not isinstance(numbers, Mapping):
        raise _kind_error("e['numbers']", "a mapping of a number's name to its value", numbers)
    name = _text_of("e['key']", e.get("key"), optional=True)
    if name in numbers:
        return name, numbers[name]
    return next(iter(numbers.items()), None)


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
    commit = str(e.get("git_commit", "unknown"))
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
