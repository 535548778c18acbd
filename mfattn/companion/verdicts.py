"""Claims declared once, each with the rule that decides it from the stored full-profile numbers.

Every paper folder's ``claims.py`` declares its claims as :class:`Claim` objects: the claim in the
paper's words (or ours), what is measured, the evidence, and a **rule** from the stored numbers to one of
three grades (:data:`GRADES`: the claim holds, holds with differences, fails). The rule's threshold and
the reason for it are one sentence, ``how``, that the ledger and the report show beside the verdict.
The grade becomes a verdict on the claim's own scale (:data:`SCALES`): a claim of a paper is
reproduced / reproduced with differences / not reproduced; a claim of ours is confirmed / confirmed
with differences / refuted. A claim without stored numbers is "not tested", saying why.

A rule that cannot come out negative is a defect, so each claim carries **counterfactual examples**:
numbers, declared beside the rule, that give each of its grades, the failing one included.
``tests/test_verdict_rules.py`` feeds every declared claim its examples.

A claim with no rule (an identity the test suite asserts to a bound) names the tests in its evidence and
says so in ``how``: its verdict rests on the tests' asserted bounds (``tests_grade``).

This module records the decisions and re-decides every chapter's claims (:data:`CLAIM_MODULES`,
:func:`redecide`); what it re-exports lives by job: the verdict words and errors in :mod:`.grades`, how a
rule reads the stored numbers in :mod:`.finite_reads`, :class:`Claim` and :class:`Decision` in :mod:`.claim`,
the rules that recur in :mod:`.recurring_rules`.

Usage in a folder's claims.py::

    CLAIMS = [Claim("ising-tap-onsager", "Thouless, Anderson & Palmer 1977", "TAP is more accurate ...",
                    measured="RMSE of m against exact enumeration at β = 0.5",
                    rule=lambda s: "holds" if s["tap"] < s["naive"] else "fails",
                    how="TAP's RMSE below naive mean field's ...", evidence=("fig-ising-rmse",),
                    examples={"holds": {"tap": 1, "naive": 2}, "fails": {"tap": 2, "naive": 1}})]
    ...
    DECLARED = {"ising": CLAIMS}

    def stored_numbers(root, chapter):   # (numbers, the command that makes them)
        ...
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from .checks import check_positive, contract  # noqa: F401
from .claim import _EVIDENCE_RE, _ID_RE, Claim, Decision, _check_note, _three_digits  # noqa: F401
from .finite_reads import (FiniteNumbers, _not_finite_at, finite_factory, finite_numbers, finite_rule,  # noqa: F401
                           raw_numbers)
from .grades import GRADES, NOT_TESTED, ORIGINS, SCALES, ClaimError, Undecidable  # noqa: F401
from .premises import (Alternative, Quote, Spread, Threshold, one_unit_cap, sensitivity, spread_of,  # noqa: F401
                       threshold_alternatives)
from .recurring_rules import (IDENTITY_HOW, _check_keys, _deviations, _number, above, below, identity,  # noqa: F401
                              identity_claim, identity_examples)

__all__ = ["GRADES", "SCALES", "NOT_TESTED", "ORIGINS", "Claim", "Decision", "ClaimError", "Undecidable", "record", "check_claims",
           "below", "above", "identity", "FiniteNumbers", "finite_rule", "finite_factory", "finite_numbers",
           "raw_numbers", "identity_examples", "identity_claim", "IDENTITY_HOW", "CLAIM_MODULES", "declared",
           "decide_chapter", "record_chapter", "redecide"]


def check_run(run: Any, *methods: str) -> Any:
    """``run`` if it is a chapter's run (:class:`mfattn.companion.chapter.ChapterRun`, or anything with its
    ``methods``), else a TypeError naming ``run``."""
    if not methods and run is None:   # nothing to check it by: None is no run
        raise TypeError("run must be a ChapterRun; got None")
    for method in methods:
        if not callable(getattr(run, method, None)):
            raise TypeError(f"run must be a ChapterRun (an object with .{method}()); got {type(run).__name__}")
    return run


def _check_claim_list(claims: Any) -> list:
    if isinstance(claims, (str, bytes)) or not isinstance(claims, Iterable):
        raise TypeError(f"claims must be a list of Claim objects; got {type(claims).__name__}")
    claims = list(claims)
    bad = [type(c).__name__ for c in claims if not isinstance(c, Claim)]
    if bad:
        raise TypeError(f"claims must be a list of Claim objects; got an entry of type {bad[0]}")
    return claims


def record(run, claims: Iterable[Claim], numbers: Mapping[str, Any] | None, remedy: str = "") -> list[Decision]:
    """Decide every claim on ``numbers`` (the stored full-profile numbers) and hand each decision to
    ``run.verdict`` with the rule's sentence. Returns the decisions in order."""
    check_run(run, "verdict")
    claims = _check_claim_list(claims)
    if numbers is not None and not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be the stored numbers (a mapping) or None; got {type(numbers).__name__}")
    if not isinstance(remedy, str):
        raise TypeError(f"remedy must be a string (the command that stores the numbers); got {type(remedy).__name__}")
    out = []
    chapter = getattr(getattr(run, "chapter", None), "name", "")
    for c in claims:
        d = c.decide(numbers, remedy, chapter)
        run.verdict(c.id, c.source, c.claim, d.verdict, list(c.evidence), numbers=d.numbers, note=d.note,
                    how=d.how, measured=c.measured, origin=c.origin, premises=d.premises)
        out.append(d)
    return out


def check_claims(claims: Sequence[Claim]) -> None:
    """Raise :class:`ClaimError` if two claims share an id, an example gives another grade than its key (or none: its
    rule cannot read it), the ``"fails"`` example holds no numbers (a rule that fails on none decides nothing), or a
    note's field names a number that no example and no stored number holds (checked where
    the stored numbers can be read: :func:`~mfattn.companion.stored_kinds.stored_kinds`)."""
    from .stored_kinds import stored_kinds

    claims = _check_claim_list(claims)
    seen = set()
    for c in claims:
        if c.id in seen:
            raise ClaimError(f"claim id {c.id!r} is declared twice")
        seen.add(c.id)
        if c.rule is not None and not c.examples["fails"]:
            raise ClaimError(f"claim {c.id!r}: its example for 'fails' holds no numbers: a counterfactual example is "
                             "numbers on which the rule fails")
        for grade, example in c.examples.items():
            try:
                got = c.grade(example)
            except (KeyError, Undecidable, TypeError, ValueError, ZeroDivisionError, IndexError) as err:
                raise ClaimError(f"claim {c.id!r}: its example for {grade!r} gives no grade: "
                                 f"{type(err).__name__} {err}"[:300]) from None
            if got != grade:
                raise ClaimError(f"claim {c.id!r}: its example for {grade!r} gives {got!r}")
        stored = stored_kinds()
        if isinstance(c.note, str) and stored:
            known = set(stored).union(*(set(ex) for ex in c.examples.values()))
            unknown = [k for k in _note_keys(c.note) if k not in known]
            if unknown:
                raise ClaimError(f"claim {c.id!r}: its note names {unknown[0]!r}, which no example and no stored "
                                 f"number holds: {c.note!r:.80}")


def _note_keys(note: str) -> list[str]:
    """The names of the numbers a note's format fields read (``{x}``, ``{x:.3g}``, ``{x[0]}``: ``x``)."""
    import string

    return [f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(note) if f]


# --- every chapter's claims, re-decided from the stored numbers -------------------------------------------

#: The module that declares each chapter's claims (imported by name: the machinery imports no physics module).
#: Each has ``DECLARED`` (chapter -> list of :class:`Claim`) and ``stored_numbers(root, chapter)`` returning
#: ``(numbers, remedy)``: the stored full-profile numbers ({} if none) and the command that makes them.
CLAIM_MODULES = {"ising": "mfattn.meanfield.claims", "deq": "mfattn.implicit.claims", "transformer": "mfattn.implicit.claims_transformer",
                 "structural": "mfattn.structural.claims", "designs": "mfattn.structural.claims_designs",
                 "dmft": "mfattn.dynamics.claims"}


def _module(chapter: str):
    import importlib

    if not isinstance(chapter, str) or chapter not in CLAIM_MODULES:
        raise ValueError(f"chapter must be one of {', '.join(map(repr, CLAIM_MODULES))}; got {chapter!r}")
    return importlib.import_module(CLAIM_MODULES[chapter])


def declared(chapter: str | None = None) -> list[Claim]:
    """The declared claims of ``chapter`` (all chapters' in book order when None)."""
    chapters = list(CLAIM_MODULES) if chapter is None else [chapter]
    return [c for ch in chapters for c in _module(ch).DECLARED[ch]]


def _check_root(root: Any):
    """The project folder as a Path (a string or os.PathLike), or None (nothing stored): every chapter's reader gets
    the same kind of root. A folder that does not exist is refused (a typo would decide every claim "not tested");
    an existing folder without stored numbers decides them "not tested", as None does."""
    if root is None:
        return None
    from .checks import check_path

    root = check_path("root", root)
    if not root.is_dir():
        raise ValueError(f"root must be an existing folder (the checkout whose data/ holds the stored numbers); "
                                 f"got {root}")
    return root


def decide_chapter(root, chapter: str) -> list[tuple[Claim, Decision]]:
    """Each claim of ``chapter`` with its decision on the numbers stored under ``root`` (the checkout)."""
    root = _check_root(root)
    numbers, remedy = _module(chapter).stored_numbers(root, chapter)
    return [(c, c.decide(numbers, remedy, chapter)) for c in declared(chapter)]


def record_chapter(run, root, chapter: str, claims: Iterable[Claim] | None = None) -> list[Decision]:
    """What a chapter calls at its end: decide its claims (or ``claims``, a subset) on the stored numbers and
    record each verdict with ``run.verdict``."""
    check_run(run, "verdict")
    root = _check_root(root)
    if claims is not None:
        claims = _check_claim_list(claims)
    numbers, remedy = _module(chapter).stored_numbers(root, chapter)
    return record(run, declared(chapter) if claims is None else claims, numbers, remedy)


def redecide(root) -> dict[str, dict[str, Any]]:
    """``{claim_id: fields}`` of every declared claim re-decided from the stored numbers: chapter, source,
    claim, verdict, evidence, numbers, note, how, measured, origin and premises (quote, reading, thresholds,
    spread, alternatives, robustness: what a ledger entry holds of a decision)."""
    root = _check_root(root)
    out = {}
    for chapter in dict.fromkeys(CLAIM_MODULES):
        for c, d in decide_chapter(root, chapter):
            out[c.id] = {"chapter": chapter, "source": c.source, "claim": c.claim, "verdict": d.verdict,
                         "evidence": list(c.evidence), "numbers": d.numbers, "note": d.note, "how": d.how,
                         "measured": c.measured, "origin": c.origin, "premises": d.premises}
    return out
