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

import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .checks import check_positive, contract
from .premises import Alternative, Quote, Spread, Threshold, one_unit_cap, sensitivity, spread_of, \
    threshold_alternatives

__all__ = ["GRADES", "SCALES", "NOT_TESTED", "ORIGINS", "Claim", "Decision", "ClaimError", "Undecidable", "record", "check_claims",
           "below", "above", "identity", "FiniteNumbers", "finite_rule", "finite_factory", "finite_numbers",
           "raw_numbers", "identity_examples", "identity_claim", "IDENTITY_HOW", "CLAIM_MODULES", "declared",
           "decide_chapter", "record_chapter", "redecide"]

#: What a rule returns: the claim holds, holds only in part or with a measurable difference, or fails.
GRADES = ("holds", "partly", "fails")
#: The verdict words of each origin of a claim, in the order of :data:`GRADES`.
SCALES = {"paper": ("reproduced", "reproduced with differences", "not reproduced"),
          "ours": ("confirmed", "confirmed with differences", "refuted")}
ORIGINS = tuple(SCALES)
NOT_TESTED = "not tested"

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
#: Evidence is a figure label of the book (``fig-...``) or a test id (``tests/test_x.py::test_y``).
_EVIDENCE_RE = re.compile(r"^(fig-[a-z0-9][a-z0-9-]*|tests/[A-Za-z0-9_/]+\.py(::[A-Za-z0-9_\[\]-]+)*)$")


class ClaimError(ValueError):
    """A claim declared wrongly (no negative example, an example that gives another grade, a bad field)."""


class Undecidable(Exception):
    """Raised by a rule whose stored numbers cannot decide it (e.g. no measurement in the range the claim is
    about): the claim is "not tested" and the message says why."""


# --- a rule reads finite numbers only --------------------------------------------------------------------------


def _not_finite_at(value: Any, depth: int = 0) -> str | None:
    """Where ``value`` (a number, or a list, tuple, array or mapping of them, nested) holds a NaN or an infinity:
    ``"NaN"`` / ``"inf"`` for the value itself, ``"NaN at [2]"`` for an entry; None where it holds none. None entries
    (not measured), text and other objects are no numbers and are left alone."""
    import numpy as np

    if isinstance(value, bool):
        return None
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return None if math.isfinite(x) else "NaN" if math.isnan(x) else "inf"
    if depth > 8:   # stored numbers are JSON: nesting this deep is no table of numbers
        return None
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            bad = ~np.isfinite(value)
            if bad.any():
                where = tuple(int(i) for i in np.argwhere(bad)[0])
                return f"{'NaN' if np.isnan(value[where]) else 'inf'} at {list(where)}"
            return None
        if value.dtype.kind != "O":
            return None
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        items = enumerate(value)
    elif isinstance(value, Mapping):
        items = value.items()
    else:
        return None
    for i, item in items:
        got = _not_finite_at(item, depth + 1)
        if got is not None:
            what, _, rest = got.partition(" at ")
            return f"{what} at [{i!r}]{rest}"
    return None


class FiniteNumbers(dict):
    """The stored numbers as a rule reads them: a value read (``numbers[key]``, ``numbers.get(key)``) that is a NaN or
    an infinity, or a list, tuple, array or mapping holding one, raises :class:`Undecidable` naming the key (a NaN
    compares False with every threshold, so it would give whatever grade the rule's else-branch holds; an infinity
    passes every upper threshold). Numbers the rule does not read may be NaN (a one-seed SD, a derived number):
    only a read is checked. None (not measured) is read as stored. ``raw`` is the mapping itself, for a rule that
    reads a NaN on purpose (say why where it does)."""
    __slots__ = ("raw",)

    def __init__(self, numbers: Mapping[str, Any]):
        if not isinstance(numbers, Mapping):
            raise TypeError(f"numbers must be the stored numbers (a mapping); got {type(numbers).__name__}")
        super().__init__(numbers)
        self.raw = numbers

    def _checked(self, key: Any, value: Any) -> Any:
        bad = _not_finite_at(value)
        if bad is not None:
            raise Undecidable(f"{key} is {bad} in the stored numbers: a non-finite number cannot decide the claim (a "
                              "NaN compares False with every threshold)")
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._checked(key, super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        # the caller's default (a NaN marker, say) is not a stored number: only a stored value is checked
        return self._checked(key, super().__getitem__(key)) if key in self else default


def finite_numbers(numbers: Mapping[str, Any]) -> FiniteNumbers:
    """``numbers`` read through :class:`FiniteNumbers` (itself where it already is): for a helper of the rules that is
    also called on its own."""
    if not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be the stored numbers (a mapping); got {type(numbers).__name__}")
    return numbers if isinstance(numbers, FiniteNumbers) else FiniteNumbers(numbers)


def raw_numbers(numbers: Mapping[str, Any]) -> Mapping[str, Any]:
    """The numbers as stored, without the guard of :class:`FiniteNumbers` (a rule that reads a NaN on purpose)."""
    if not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be the stored numbers (a mapping); got {type(numbers).__name__}")
    return numbers.raw if isinstance(numbers, FiniteNumbers) else numbers


def finite_rule(rule: Callable[[Mapping[str, Any]], str]) -> Callable[[Mapping[str, Any]], str]:
    """``rule`` reading the numbers through :class:`FiniteNumbers`: a NaN or infinite number it reads makes the claim
    "not tested" (:class:`Undecidable`), never a grade. Rule factories (``*_at``) apply it to the rule they return;
    :class:`Claim` applies it to its rule, to the rules ``rule_at`` makes and to its alternatives' rules. A note whose
    wording compares the numbers (not only quotes them) applies it too."""
    if not callable(rule):
        raise TypeError(f"rule must be callable (numbers -> grade); got {type(rule).__name__}")
    if getattr(rule, "__finite_reads__", False):
        return rule

    def guarded(numbers):
        if isinstance(numbers, Mapping) and not isinstance(numbers, FiniteNumbers):
            numbers = FiniteNumbers(numbers)
        return rule(numbers)

    guarded.__finite_reads__ = True
    guarded.__wrapped__ = rule
    guarded.__doc__, guarded.__name__, guarded.__qualname__ = rule.__doc__, getattr(rule, "__name__", "rule"), \
        getattr(rule, "__qualname__", "rule")
    return guarded


def finite_factory(rule_at: Callable[..., Callable]) -> Callable[..., Callable]:
    """A rule factory whose rules read through :func:`finite_rule`."""
    if not callable(rule_at):
        raise TypeError(f"rule_at must be callable (thresholds -> rule); got {type(rule_at).__name__}")
    if getattr(rule_at, "__finite_reads__", False):
        return rule_at

    def made(*args, **kwargs):
        return finite_rule(rule_at(*args, **kwargs))

    made.__finite_reads__ = True
    made.__wrapped__ = rule_at
    return made


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


@dataclass(frozen=True)
class Claim:
    """One claim of a paper (``origin="paper"``) or of ours (``origin="ours"``) and the rule deciding it.

    ``rule(numbers) -> grade`` reads the stored full-profile numbers (a flat or nested mapping; a missing
    key makes the claim "not tested"). ``how`` states the threshold and the reason for it (theory, the
    paper's own tolerance, a measured noise level). ``note`` is a format string over the numbers (or a
    callable of them) and ``numbers`` the keys quoted in the ledger (or a callable giving the mapping).
    ``examples`` maps each grade the rule can give to numbers that give it; ``"fails"`` is required.
    ``rule=None`` declares a claim that rests on the tests it names: ``tests_grade`` is then its grade.
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
            raise ClaimError(f"claim id must be lowercase words joined by '-'; got {self.id!r}")
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
            # Every rule of a declared claim reads finite numbers: a NaN or infinity it reads is "not tested".
            object.__setattr__(self, "rule", finite_rule(self.rule))
            if self.rule_at is not None:
                object.__setattr__(self, "rule_at", finite_factory(self.rule_at))
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
        finds in ``numbers``, the spread, and the verdict under every alternative (robust or fragile)."""
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
        (``remedy``: the command that makes the numbers)."""
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


def check_run(run: Any, *methods: str) -> Any:
    """``run`` if it is a chapter's run (:class:`mfattn.companion.chapter.ChapterRun`, or anything with its
    ``methods``), else a TypeError naming ``run``."""
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
    """Raise :class:`ClaimError` if two claims share an id or an example gives another grade than its key."""
    claims = _check_claim_list(claims)
    seen = set()
    for c in claims:
        if c.id in seen:
            raise ClaimError(f"claim id {c.id!r} is declared twice")
        seen.add(c.id)
        for grade, example in c.examples.items():
            got = c.grade(example)
            if got != grade:
                raise ClaimError(f"claim {c.id!r}: its example for {grade!r} gives {got!r}")


# --- rules that recur ----------------------------------------------------------------------------------


def _number(s: Mapping[str, Any], key: str) -> float:
    """``s[key]`` as a real number for a one-number rule: missing is a KeyError (the stored numbers predate it: not
    tested), None or NaN cannot decide (:class:`Undecidable`: a NaN compared as a number read as "fails"), anything
    not a real number is a TypeError naming the key."""
    x = s[key]
    if x is None:
        raise Undecidable(f"{key} is not a number in the stored numbers ({x!r})")
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"numbers[{key!r}] must be a real number; got {type(x).__name__} {x!r:.60}")
    value = float(x) if not isinstance(x, int) or abs(x) <= 1.7976931348623157e308 else (math.inf if x > 0 else -math.inf)
    if not math.isfinite(value):   # numpy's NaN (np.float32) too: a NaN compares False, an infinity passes a bound
        raise Undecidable(f"{key} is {x!r} in the stored numbers: a non-finite number cannot decide the claim")
    return value


@contract(key="str", holds="real", partly="real?")
def below(key: str, holds: float, partly: float | None = None) -> Callable[[Mapping[str, Any]], str]:
    """A rule on one number: ``numbers[key] < holds`` holds, ``< partly`` (if given) holds partly, else fails."""
    if partly is not None and partly < holds:
        raise ClaimError(f"below({key!r}): the partial threshold {partly} must not be below {holds}")

    def rule(s):
        x = _number(s, key)
        return "holds" if x < holds else "partly" if partly is not None and x < partly else "fails"
    return rule


@contract(key="str", holds="real", partly="real?")
def above(key: str, holds: float, partly: float | None = None) -> Callable[[Mapping[str, Any]], str]:
    """A rule on one number: ``numbers[key] > holds`` holds, ``> partly`` (if given) holds partly, else fails."""
    if partly is not None and partly > holds:
        raise ClaimError(f"above({key!r}): the partial threshold {partly} must not be above {holds}")

    def rule(s):
        x = _number(s, key)
        return "holds" if x > holds else "partly" if partly is not None and x > partly else "fails"
    return rule


#: The declared tolerance of an identity computed in float64, and its reason.
IDENTITY_HOW = ("An identity computed in float64: it holds if the largest deviation is below 1e-12 (the round-off "
                "of float64 sums of up to ~10⁵ terms of order one grows like √N·ε ≈ 7e-14, ε ≈ 2.2e-16: 1e-12 leaves "
                "more than a decade of room); below 1e-6 it holds to single precision only (with differences: an "
                "approximation right to six digits, not an identity); above that it fails.")


def identity(*keys: str, tol: float = 1e-12, near: float = 1e-6) -> Callable[[Mapping[str, Any]], str]:
    """The rule of an identity checked numerically: the largest of ``numbers[k]`` (absolute deviations) below
    ``tol`` holds, below ``near`` holds partly, else (or NaN) fails. See :data:`IDENTITY_HOW`. A deviation stored as
    None (null: not measured) cannot decide it (:class:`Undecidable`)."""
    tol, near = check_positive("tol", tol), check_positive("near", near)
    _check_keys("identity", keys)
    if near < tol:
        raise ValueError(f"near must be >= tol (partly is between them); got tol={tol:g}, near={near:g}")

    def rule(s):
        # A NaN deviation fails (documented): the identity's computation broke down, which no round-off explains.
        s = raw_numbers(s)
        missing = [k for k in keys if s[k] is None]
        if missing:
            raise Undecidable(f"the deviation {', '.join(missing)} is stored as null (not measured)")
        xs = _deviations(s, keys)
        if not all(math.isfinite(x) for x in xs):   # max() would drop a NaN after the first key
            return "fails"
        x = max(xs)
        return "holds" if x < tol else "partly" if x < near else "fails"
    return rule


def _deviations(s: Mapping[str, Any], keys: tuple) -> list[float]:
    """The stored absolute deviations ``s[k]`` as floats (NaN kept: the rule fails it); a deviation that is not a real
    number, or is negative (an absolute deviation never is), is an error naming its key."""
    xs = []
    for k in keys:
        x = s[k]
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
            raise TypeError(f"numbers[{k!r}] must be a deviation (a real number); got {type(x).__name__} {x!r:.60}")
        x = float(x) if not isinstance(x, int) or abs(x) <= 1.7976931348623157e308 else (math.inf if x > 0 else -math.inf)
        if x < 0:
            raise ValueError(f"numbers[{k!r}] must be an absolute deviation (>= 0); got {x!r}")
        xs.append(x)
    return xs


def _check_keys(what: str, keys: tuple) -> None:
    if not keys or not all(isinstance(k, str) and k for k in keys):
        raise TypeError(f"{what} needs the names of the stored deviations (strings) it reads; got {keys!r:.80}")


def identity_claim(*keys: str) -> dict[str, Any]:
    """The rule and premises of an identity checked numerically over the deviations ``keys``, to splat into a
    :class:`Claim`: ``rule_at`` (:func:`identity` at its two thresholds), the thresholds with their round-off
    reason and a check on the stored deviations, a decade either way as the alternatives, the counterfactual
    ``examples`` and a deterministic spread (an identity needs no seeds). Its ``how`` is :data:`IDENTITY_HOW`."""
    _check_keys("identity_claim", keys)

    def regime(s):
        xs = [s[k] for k in keys]
        if any(x is None for x in xs):
            return True, "a deviation is stored as null (not measured): the claim is not tested"
        x = max(_deviations(s, keys))
        ok = x < 1e-13 or x > 1e-5 or 1e-11 < x < 1e-7
        return ok, (f"largest stored deviation {x:.1e}: " + ("at least a decade from both thresholds" if ok else
                    "within a decade of a threshold, where the tolerance's exact place decides"))
    return {"rule_at": lambda tol, near: identity(*keys, tol=tol, near=near),
            "examples": identity_examples(*keys),
            "thresholds": (Threshold("tol", 1e-12, "round-off", "the round-off of float64 sums of up to ~10⁵ terms "
                                     "of order one grows like √N·ε ≈ 7e-14 (ε ≈ 2.2e-16), more than a decade below "
                                     "1e-12; the stored deviation lies at least a decade from it", regime, noise=10.0,
                                     log=True),
                           Threshold("near", 1e-6, "round-off", "single precision (ε ≈ 1.2e-7) summed over a few "
                                     "terms: an approximation right to six digits; the stored deviation lies at "
                                     "least a decade from it", regime, noise=10.0, log=True)),
            "spread": Spread.deterministic("an identity of float64 arithmetic: no seed or start enters it")}


def identity_examples(*keys: str) -> dict[str, dict[str, float]]:
    """Counterfactual examples of :func:`identity` over ``keys``: just inside each threshold and just outside."""
    _check_keys("identity_examples", keys)
    return {"holds": {k: 9e-13 for k in keys}, "partly": {k: 2e-12 if i == 0 else 0.0 for i, k in enumerate(keys)},
            "fails": {k: 2e-6 if i == len(keys) - 1 else 0.0 for i, k in enumerate(keys)}}


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
