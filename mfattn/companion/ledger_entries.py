"""One entry of the verdict ledger, checked before any file is touched (:mod:`mfattn.companion.ledger` re-exports
it): the verdict words of each origin of a claim, the claim id, its evidence (figure labels and test ids, each checked
to exist), its numbers and premises as plain JSON (:func:`make_entry`, :func:`clean_premises`), and what the verdict
rests on (:func:`evidence_basis`)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from .checks_scalars import check_choice, check_strings

__all__ = ["VERDICTS", "ORIGINS", "LedgerError", "PREMISE_FIELDS", "clean_premises", "make_entry", "check_evidence",
           "BASES", "evidence_basis"]


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
#: A commit as the ledger and the manifests store it (:func:`mfattn.companion.manifest.git_commit`): 4 to 40 hex
#: digits, ``+dirty`` when the tree was modified, or ``unknown`` outside git.
COMMIT_RE = re.compile(r"(?:[0-9a-f]{4,40}(?:\+dirty)?|unknown)\Z")


def check_commit(where: str, commit: Any) -> str:
    """``commit`` if it is a commit as stored (:data:`COMMIT_RE`), else a TypeError (not a string) or a ValueError
    naming ``where``."""
    if not isinstance(commit, str):
        raise TypeError(f"{where} must be a git commit (a string of hex digits, or 'unknown'); got "
                        f"{type(commit).__name__} {commit!r:.60}")
    if not COMMIT_RE.match(commit):
        raise ValueError(f"{where} must be a git commit (4 to 40 hex digits, '+dirty' when the tree was modified) or "
                         f"'unknown'; got {commit!r:.60}")
    return commit


class LedgerError(ValueError):
    """A verdict that cannot be recorded (unknown word, duplicate id, evidence that does not exist)."""


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
