"""One declared claim and its decision (:mod:`mfattn.companion.verdicts` re-exports them): :class:`Claim` checks its
fields, its counterfactual examples and its premises when it is declared, and decides itself on stored numbers
(:meth:`Claim.decide`) into a :class:`Decision`: the verdict word, the grade, the note, the numbers the ledger shows
and the premises (quote, thresholds, spread, alternatives, robustness)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from .finite_reads import finite_factory, finite_rule
from .grades import GRADES, NOT_TESTED, ORIGINS, SCALES, ClaimError, Undecidable
from .premises import CHAPTER_PAPER, Alternative, Quote, Spread, Threshold, one_unit_cap, sensitivity, spread_of, \
    threshold_alternatives

__all__ = ["Decision", "Claim"]

#: A claim id: lowercase words (letters and digits) joined by single dashes (no empty word: 'a--b', 'a-').
_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
#: Evidence is a figure label of the book (``fig-...``) or a test id (``tests/test_x.py::test_y``).
_EVIDENCE_RE = re.compile(r"^(fig-[a-z0-9][a-z0-9-]*|tests/[A-Za-z0-9_/]+\.py(::[A-Za-z0-9_\[\]-]+)*)$")


@dataclass(frozen=True)
class Decision:
    """What a claim's rule says of a set of numbers: the verdict word, its grade (None when not tested),
    the note (numbers in words), the numbers shown in the ledger and the rule's sentence."""
    verdict: str
    grade: str | None
    note: str
    numbers: dict[str, Any]
    how: str
    premises: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        """The fields checked: ``verdict`` a verdict word (:data:`SCALES`, or "not tested"), ``grade`` one of
        :data:`GRADES` that gives that word on some scale (None exactly when not tested), ``note`` and ``how``
        strings, ``numbers`` and ``premises`` mappings; else a TypeError or ValueError naming the field."""
        words = tuple(w for scale in SCALES.values() for w in scale) + (NOT_TESTED,)
        if not isinstance(self.verdict, str) or self.verdict not in words:
            raise ValueError(f"verdict must be one of {words}; got {self.verdict!r:.60}")
        if self.grade is not None and (not isinstance(self.grade, str) or self.grade not in GRADES):
            raise ValueError(f"grade must be one of {GRADES} or None (not tested); got {self.grade!r:.60}")
        if (self.grade is None) != (self.verdict == NOT_TESTED) or self.grade is not None and not any(
                scale[GRADES.index(self.grade)] == self.verdict for scale in SCALES.values()):
            raise ValueError(f"verdict {self.verdict!r} does not go with grade {self.grade!r} (the grade's word on a "
                             f"claim's scale, or 'not tested' with grade None)")
        for name in ("note", "how"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string; got {type(getattr(self, name)).__name__}")
        for name in ("numbers", "premises"):
            if not isinstance(getattr(self, name), Mapping):
                raise TypeError(f"{name} must be a mapping; got {type(getattr(self, name)).__name__}")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper (``origin="paper"``) or of ours (``origin="ours"``) and the rule deciding it.

    ``rule(numbers) -> grade`` reads the stored full-profile numbers (a flat or nested mapping; a missing
    key makes the claim "not tested"). ``how`` states the threshold and the reason for it (theory, the
    paper's own tolerance, a measured noise level). ``note`` is a format string over the numbers (or a
    callable of them) and ``numbers`` the keys quoted in the ledger (or a callable giving the mapping).
    ``examples`` maps each grade the rule can give to numbers that give it (each a mapping); ``"fails"`` is required.
    That each example gives its grade (the ``"fails"`` one on some numbers: a rule that fails on none decides
    nothing), and that a note's fields name numbers an example or the store holds, is checked by
    :func:`~mfattn.companion.verdicts.check_claims` (``tests/test_verdict_rules.py`` runs it on every declared claim),
    not here: a rule reads the stored numbers' kinds, which are known only once the store is read.
    ``rule=None`` declares a claim that rests on the tests it names: ``tests_grade`` is then its grade.
    ``rule_at`` (the rule's factory) is called with the thresholds' values, each checked where it is called: a finite
    real number, above 0 for a threshold declared with ``log=True`` (a factor).
    """
    id: str
    source: str
    claim: str
    measured: str
    how: str
    evidence: tuple[str, ...]
    rule: Callable[[Mapping[str, Any]], str] | None = None
    note: str | Callable[[Mapping[str, Any]], str] = ""
    numbers: tuple[str, ...] | Callable[[Mapping[str, Any]], Mapping[str, Any]] = ()
    examples: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    origin: str = "paper"
    tests_grade: str | None = None
    quote: Quote | None = None
    reading: str = ""
    rule_at: Callable[..., Callable[[Mapping[str, Any]], str]] | None = None
    thresholds: tuple[Threshold, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    spread: Spread | None = None

    def __post_init__(self):
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise ClaimError(f"claim id must be lowercase words joined by single '-'; got {self.id!r}")
        for name in ("source", "claim", "measured", "how"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ClaimError(f"claim {self.id!r}: {name} must be a non-empty string")
        if self.origin not in SCALES:
            raise ClaimError(f"claim {self.id!r}: origin must be one of {ORIGINS}; got {self.origin!r}")
        if isinstance(self.evidence, (str, bytes)) or not isinstance(self.evidence, Iterable) or not all(
                isinstance(e, str) for e in self.evidence):
            raise ClaimError(f"claim {self.id!r}: evidence must be a tuple of figure labels and test ids; got "
                             f"{self.evidence!r}"[:200])
        if not isinstance(self.examples, Mapping):
            raise ClaimError(f"claim {self.id!r}: examples must be a mapping of grade -> numbers; got "
                             f"{type(self.examples).__name__}")
        object.__setattr__(self, "evidence", tuple(self.evidence))
        odd = [e for e in self.evidence if not _EVIDENCE_RE.match(e)]
        if odd:
            raise ClaimError(f"claim {self.id!r}: evidence must be figure labels ('fig-...') or test ids "
                             f"('tests/test_x.py::test_y'); got {odd[0]!r}"[:200])
        if isinstance(self.note, str):
            _check_note(self.id, self.note)
        elif not callable(self.note):
            raise ClaimError(f"claim {self.id!r}: note must be a format string over the numbers or a callable; got "
                             f"{type(self.note).__name__}")
        if not callable(self.numbers):
            shown = tuple(self.numbers) if not isinstance(self.numbers, (str, bytes)) else None
            if shown is None or not all(isinstance(k, str) and k for k in shown) or len(set(shown)) != len(shown):
                raise ClaimError(f"claim {self.id!r}: numbers must be distinct names of stored numbers (or a callable "
                                 f"of the numbers); got {self.numbers!r:.80}")
            object.__setattr__(self, "numbers", shown)
        self._check_premises()
        if not self.evidence:
            raise ClaimError(f"claim {self.id!r}: evidence must name a figure label or a test id")
        if self.rule is None:
            if self.tests_grade not in GRADES:
                raise ClaimError(f"claim {self.id!r}: a claim without a rule rests on its tests and needs "
                                 f"tests_grade in {GRADES}; got {self.tests_grade!r}")
            if not any(e.startswith("tests/") for e in self.evidence):
                raise ClaimError(f"claim {self.id!r}: a claim that rests on tests must name them in its evidence")
            if self.examples:
                raise ClaimError(f"claim {self.id!r}: a claim without a rule has no examples to decide")
        else:
            if not callable(self.rule):
                raise ClaimError(f"claim {self.id!r}: rule must be callable (numbers -> grade) or None")
            if self.tests_grade is not None:
                raise ClaimError(f"claim {self.id!r}: tests_grade is only for claims without a rule")
            unknown = set(self.examples) - set(GRADES)
            if unknown:
                raise ClaimError(f"claim {self.id!r}: examples are keyed by grade {GRADES}; got {sorted(unknown)}")
            if "fails" not in self.examples:
                raise ClaimError(f"claim {self.id!r}: a rule needs a counterfactual example of its failing "
                                 f"outcome (examples['fails']): a rule that cannot fail decides nothing")
            odd = [g for g, ex in self.examples.items() if not isinstance(ex, Mapping)]
            if odd:
                raise ClaimError(f"claim {self.id!r}: examples[{odd[0]!r}] must be the numbers that give that grade (a "
                                 f"mapping); got {type(self.examples[odd[0]]).__name__}")
            # Every rule of a declared claim reads finite numbers: a NaN or infinity it reads is "not tested".
            object.__setattr__(self, "rule", finite_rule(self.rule))
            if self.rule_at is not None:
                object.__setattr__(self, "rule_at", finite_factory(self.rule_at, self.thresholds))
            object.__setattr__(self, "alternatives", tuple(
                a if getattr(a.rule, "__finite_reads__", False) else Alternative(a.name, a.kind, finite_rule(a.rule))
                for a in self.alternatives))

    def _check_premises(self) -> None:
        for name, kind, value in (("quote", Quote, self.quote), ("spread", Spread, self.spread)):
            if value is not None and not isinstance(value, kind):
                raise ClaimError(f"claim {self.id!r}: {name} must be a {kind.__name__} or None; got {value!r}")
        if not isinstance(self.reading, str):
            raise ClaimError(f"claim {self.id!r}: reading must be a string; got {self.reading!r}")
        for name, kind in (("thresholds", Threshold), ("alternatives", Alternative)):
            items = tuple(getattr(self, name))
            object.__setattr__(self, name, items)
            if not all(isinstance(x, kind) for x in items):
                raise ClaimError(f"claim {self.id!r}: {name} must be {kind.__name__} objects")
        names = [t.name for t in self.thresholds]
        if len(set(names)) != len(names):
            raise ClaimError(f"claim {self.id!r}: a threshold is declared twice ({names})")
        if self.rule_at is not None:
            if not callable(self.rule_at) or not self.thresholds:
                raise ClaimError(f"claim {self.id!r}: rule_at is a factory of the rule from its thresholds' values")
            made = self.rule_at(**self.threshold_values)
            if not callable(made):
                raise ClaimError(f"claim {self.id!r}: rule_at must return a rule (numbers -> grade) for the thresholds' "
                                 f"values; it returned {type(made).__name__} {made!r:.60}")
            if self.rule is None:
                object.__setattr__(self, "rule", made)
        elif self.thresholds and any(t.noise is not None for t in self.thresholds):
            raise ClaimError(f"claim {self.id!r}: thresholds with a noise need rule_at, the rule's factory, so that "
                             "the verdict can be tried with each threshold moved")

    @property
    def threshold_values(self) -> dict[str, float]:
        """``{name: value}`` of the declared thresholds (the keywords of ``rule_at``)."""
        return {t.name: t.value for t in self.thresholds}

    def all_alternatives(self, numbers: Mapping[str, Any]) -> list[Alternative]:
        """The declared alternatives and each threshold moved down and up by its measured noise."""
        moved = (threshold_alternatives(self.rule_at, self.thresholds, numbers) if self.rule_at is not None else [])
        return list(self.alternatives) + moved

    def premises(self, numbers: Mapping[str, Any], grade: str | None, chapter: str = "") -> dict[str, Any]:
        """What the ledger stores beside a decision: the quote, the reading, each threshold with what its check
        finds in ``numbers``, the spread, and the verdict under every alternative (robust or fragile). ``chapter`` is
        ``""`` or a chapter's name (:data:`~mfattn.companion.premises.CHAPTER_PAPER`: the work the quote is from)."""
        _check_chapter(chapter)
        out: dict[str, Any] = {}
        if self.quote is not None:
            out["quote"] = self.quote.as_dict(chapter)
        if self.reading:
            out["reading"] = self.reading
        if not numbers:
            return out
        if self.thresholds:
            out["thresholds"] = [t.examine(numbers) for t in self.thresholds]
        spread = spread_of(self.spread, numbers)
        if spread is not None:
            out["spread"] = spread
        if grade is not None:
            out.update(sensitivity(grade, self.all_alternatives(numbers) if self.rule is not None else [], numbers,
                                   self.verdict_of, one_unit_cap(spread)))
        elif self.rule is not None:
            # Not decided by its rule (inconclusive): every alternative that does decide it moves the verdict.
            got = sensitivity(GRADES[0], self.all_alternatives(numbers), numbers, self.verdict_of, one_unit_cap(spread))
            if got:
                got["moved_by"] = [r["name"] for r in got["alternatives"] if r["verdict"] != "cannot decide"]
                got["robustness"] = "fragile" if got["moved_by"] else "robust"
            out.update(got)
        return out

    @property
    def scale(self) -> tuple[str, str, str]:
        """The verdict words of this claim's origin, in the order of :data:`GRADES`."""
        return SCALES[self.origin]

    def verdict_of(self, grade: str) -> str:
        """The verdict word of ``grade`` on this claim's scale."""
        if grade not in GRADES:
            raise ClaimError(f"claim {self.id!r}: a rule must return one of {GRADES}; got {grade!r}")
        return self.scale[GRADES.index(grade)]

    def grade(self, numbers: Mapping[str, Any]) -> str:
        """The rule's grade of ``numbers`` (KeyError where a number it needs is missing)."""
        if self.rule is None:
            return self.tests_grade
        if not isinstance(numbers, Mapping):
            raise TypeError(f"numbers must be the stored numbers (a mapping); got {type(numbers).__name__}")
        got = self.rule(numbers)
        if got not in GRADES:
            raise ClaimError(f"claim {self.id!r}: its rule returned {got!r}, not one of {GRADES}")
        return got

    @property
    def rests_on_tests(self) -> bool:
        return self.rule is None

    def decide(self, numbers: Mapping[str, Any] | None, remedy: str = "", chapter: str = "") -> Decision:
        """The decision on stored ``numbers``. Without numbers (``{}`` or None), or when the rule or the
        note needs a number they lack, the claim is "not tested" and the note says why and what to do
        (``remedy``: the command that makes the numbers, a string). ``chapter`` is ``""`` or a chapter's name."""
        if numbers is not None and not isinstance(numbers, Mapping):
            raise TypeError(f"numbers must be the stored numbers (a mapping) or None; got {type(numbers).__name__}")
        if not isinstance(remedy, str):
            raise TypeError(f"remedy must be a string (the command that stores the numbers); got "
                            f"{type(remedy).__name__} {remedy!r:.60}")
        _check_chapter(chapter)
        if self.rule is None:
            grade = self.tests_grade
            note = self._text(numbers or {}) if numbers else ""
            return Decision(self.verdict_of(grade), grade, note or "Rests on the tests named in the evidence "
                            "(their asserted bounds).", self._numbers(numbers or {}) if numbers else {}, self.how,
                            self.premises(numbers or {}, grade, chapter))
        remedy = remedy or "run the full profile of this chapter"
        if not numbers:
            return Decision(NOT_TESTED, None, f"No full-profile numbers are stored: {remedy}.", {}, self.how,
                            self.premises({}, None, chapter))
        try:
            grade = self.grade(numbers)
            note, shown = self._text(numbers), self._numbers(numbers)
            spread = spread_of(self.spread, numbers)
        except KeyError as key:  # a stored result that predates a number this claim rests on
            return Decision(NOT_TESTED, None, f"The stored full-profile numbers lack {key} (they predate this "
                            f"claim's rule): {remedy}.", {}, self.how, self.premises({}, None, chapter))
        except Undecidable as why:
            # The numbers that were measured are still shown (a referee reads what was found even where it cannot
            # decide the claim), with the claim's note and the verdicts of its alternatives; what a rule could not
            # even compute stays out.
            try:
                shown = self._numbers(numbers)
            except (KeyError, Undecidable, TypeError, ValueError, ZeroDivisionError):
                shown = {}
            try:
                found = self._text(numbers)
            except (KeyError, Undecidable, TypeError, ValueError, ZeroDivisionError, IndexError):
                found = ""
            try:
                premises = self.premises(numbers, None, chapter)
            except (KeyError, Undecidable, TypeError, ValueError, ZeroDivisionError, IndexError):
                premises = self.premises({}, None, chapter)
            return Decision(NOT_TESTED, None, f"The stored numbers cannot decide it: {why}" + (
                f" {found}" if found else ""), shown, self.how, premises)
        capped = one_unit_cap(spread)(grade)
        if capped != grade:   # one seed or one start, and no reason one suffices
            note = (note + " " if note else "") + (f"It rests on one {spread['unit']} only: graded at best with "
                                                   "differences.")
            grade = capped
        return Decision(self.verdict_of(grade), grade, note, shown, self.how, self.premises(numbers, grade, chapter))

    def _text(self, numbers: Mapping[str, Any]) -> str:
        try:
            return self.note(numbers) if callable(self.note) else self.note.format(**numbers)
        except OverflowError as err:   # an integer past float's range under a float format ('{x:.3g}')
            raise Undecidable(f"a stored number is too large for the note's format ({err})") from None

    def _numbers(self, numbers: Mapping[str, Any]) -> dict[str, Any]:
        if callable(self.numbers):
            return {k: v for k, v in self.numbers(numbers).items() if v is not None}
        return {k: _three_digits(numbers[k]) for k in self.numbers if numbers[k] is not None}


def _check_chapter(chapter: Any) -> str:
    """``chapter`` if it is ``""`` (none) or a chapter's name (a key of :data:`CHAPTER_PAPER`); else a TypeError or
    ValueError naming it."""
    if not isinstance(chapter, str):
        raise TypeError(f"chapter must be a chapter's name (a string) or ''; got {type(chapter).__name__} "
                        f"{chapter!r:.60}")
    if chapter and chapter not in CHAPTER_PAPER:
        raise ValueError(f"chapter must be '' or one of {', '.join(map(repr, CHAPTER_PAPER))}; got {chapter!r:.60}")
    return chapter


def _three_digits(value: Any) -> Any:
    """A number as the ledger quotes it (three significant digits); strings as they are. An integer past float's range
    (JSON holds any) is quoted as text in the same three digits, ``"1.00e+400"``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, int) and abs(value) > 1.7976931348623157e308:
        digits = str(abs(value))
        return f"{'-' if value < 0 else ''}{digits[0]}.{digits[1:3]}e+{len(digits) - 1}"
    return float(f"{value:.3g}") if math.isfinite(value) else str(value)


def _check_note(claim_id: str, note: str) -> None:
    """A note's format fields must be names of stored numbers (``{x}``, ``{x:.3g}``, ``{x[0]}``): a positional field
    (``{}``, ``{0}``) can never be filled from the numbers, and a broken brace never formats."""
    import string

    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(note) if f is not None]
    except ValueError as err:
        raise ClaimError(f"claim {claim_id!r}: note is no format string ({err}); double a literal brace: "
                         f"{note!r:.80}") from None
    positional = [f for f in fields if not f or f.split(".")[0].split("[")[0].isdigit()]
    if positional:
        raise ClaimError(f"claim {claim_id!r}: note's fields must name stored numbers ({{name}}); got a positional "
                         f"field {{{positional[0]}}} in {note!r:.80}")
