"""What a verdict stands on: where the paper makes the claim, why each threshold sits where it does, how many
units (seeds, starts, windows) its numbers rest on, and whether it survives a referee's alternatives.

A :class:`~mfattn.companion.verdicts.Claim` declares its premises with the objects of this module:

- :class:`Quote`: the section of the paper and a short verbatim phrase of its text (``../shared/papers/``,
  :func:`paper_text`), with the book's translation where the text is not English and, for a number the text
  does not print, where the paper's public code has it. A claim the text does not make is a claim of ours.
- :class:`Threshold`: each threshold of the rule with its value, the **basis** of its reason (a stored
  spread, the float64 round-off, the paper's printed precision, a theorem, :data:`REASON_BASES`), the reason
  in words, the measured noise by which it is moved to try the verdict, and a **check** that reads the stored
  numbers and says whether the reason is true of them (``tests/test_premises.py`` asserts it is).
- :class:`Alternative`: another reasonable statistic, threshold or reading of the claim, as a rule.
- :class:`Spread`: the unit the numbers are read over and the per-unit values; a claim that rests on one unit
  (one seed, one start) is graded at best "with differences" unless it says why one suffices.

:func:`sensitivity` decides a claim under every alternative (its declared ones and each threshold moved by ±
its noise): the verdict is **robust** when none of them moves it and **fragile** otherwise, naming what moves it.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .checks_scalars import _plain_text_fields, is_integer, is_real

__all__ = ["PAPERS", "CHAPTER_PAPER", "REASON_BASES", "ALTERNATIVE_KINDS", "ROBUSTNESS", "Quote", "Threshold",
           "Alternative", "Spread", "PremiseError", "papers_dir", "paper_text", "normalise", "quote_found",
           "sensitivity", "spread_of", "one_unit_cap", "over_units", "LEVEL"]

Numbers = Mapping[str, Any]

#: The works, by key: (file in ``../shared/papers/``, what it is).
PAPERS = {"bal2021": ("000_4019365ea7cb910b.txt", "Bal (2021), Deep Implicit Attention (blog post)"),
          "singh2023": ("001_fb66bf8c8f4cdf0a.txt", "Singh & Buckley (2023), Attention as Implicit Structural "
                                                   "Inference"),
          "poclopez2024": ("002_5119a41579db230c.txt", "Poc-López & Aguilera (2024), Dynamical Mean-Field Theory "
                                                      "of Self-Attention (a summary in Chinese, not the paper)")}
#: The work each chapter's claims are quoted from.
CHAPTER_PAPER = {"ising": "bal2021", "deq": "bal2021", "transformer": "bal2021", "structural": "singh2023",
                 "designs": "singh2023", "dmft": "poclopez2024"}

#: What a threshold's reason may rest on: a spread stored beside the numbers (over seeds, windows of one orbit,
#: starts, instances or items; a bootstrap), the float64 round-off, the resolution of a measurement, the paper's
#: printed precision, or a theorem or convention (the only two whose reason no stored number can check).
REASON_BASES = ("seed spread", "window spread", "start spread", "instance spread", "bootstrap", "round-off",
                "resolution", "printed precision", "stored distribution", "theorem", "convention")
_UNCHECKED = ("theorem", "convention")
#: The kinds of alternatives a verdict is tried under.
ALTERNATIVE_KINDS = ("statistic", "threshold", "reading", "unit")
ROBUSTNESS = ("robust", "fragile")
#: A quote is a phrase, not a paragraph: at most this many words (or, in Chinese, characters).
MAX_WORDS, MAX_CJK = 30, 60

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class PremiseError(ValueError):
    """A premise declared wrongly (a quote too long, a threshold without a check, an unknown basis)."""


# --- quotes ------------------------------------------------------------------------------------------------

def papers_dir() -> Path | None:
    """The folder of the works' texts: ``$MFATTN_PAPERS``, else ``../shared/papers`` beside the checkout (None
    where neither exists: the texts are not part of the project and are never copied into it)."""
    from .store import project_root

    env = os.environ.get("MFATTN_PAPERS")
    if env:
        from .datasets import env_folder

        path = env_folder("MFATTN_PAPERS")   # a file or a device is refused by name; a folder not made yet is absent
        return Path(env) if path.is_dir() else None
    root = project_root()
    folder = None if root is None else root.parent / "shared" / "papers"
    return folder if folder is not None and folder.is_dir() else None


@lru_cache(maxsize=None)
def _text(path: str) -> str:
    from .store import read_text_file

    return normalise(read_text_file(path, "paper text"))  # a regular file within the budget: never a FIFO


def paper_text(paper: str) -> str | None:
    """The normalised text (:func:`normalise`) of the work ``paper`` (a key of :data:`PAPERS`), or None where the
    texts are not at hand."""
    if not isinstance(paper, str) or paper not in PAPERS:
        raise PremiseError(f"paper must be one of {', '.join(map(repr, PAPERS))}; got {paper!r}")
    folder = papers_dir()
    path = None if folder is None else folder / PAPERS[paper][0]
    return _text(str(path)) if path is not None and path.is_file() else None


_DASHES = dict.fromkeys(map(ord, "-\u00ad\u2010\u2011\u2012\u2013\u2014\u2212"), None)
_QUOTES = {ord(a): b for a, b in zip("\u2018\u2019\u201c\u201d\u00ab\u00bb", "''\"\"\"\"")}


def normalise(text: str) -> str:
    """Text as quotes are matched: Unicode NFKC, hyphens and dashes dropped (the converted texts lost most of
    theirs: "meanfield"), curly quotes straightened, whitespace collapsed, lower case."""
    if not isinstance(text, str):
        raise PremiseError(f"text must be a string; got {type(text).__name__}")
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES)
    return re.sub(r"\s+", " ", text).strip().lower()


@dataclass(frozen=True)
class Quote:
    """Where a work makes a claim: ``section`` (its heading as the text has it) and ``text``, a verbatim phrase
    of at most about twenty words. ``translation`` is the book's English for a phrase in another language
    (required then); ``code`` locates in the work's public code a number its text does not print ("file:line at
    <commit>"); ``paper`` the work (:data:`PAPERS`; default: the chapter's, :data:`CHAPTER_PAPER`)."""
    section: str
    text: str
    translation: str = ""
    code: str = ""
    paper: str = ""

    def __post_init__(self):
        for name in ("section", "text"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise PremiseError(f"quote: {name} must be a non-empty string; got {getattr(self, name)!r}")
        for name in ("translation", "code", "paper"):
            if not isinstance(getattr(self, name), str):
                raise PremiseError(f"quote: {name} must be a string; got {getattr(self, name)!r}")
        if self.paper and self.paper not in PAPERS:
            raise PremiseError(f"quote: paper must be one of {', '.join(map(repr, PAPERS))}; got {self.paper!r}")
        cjk = len(_CJK.findall(self.text))
        words = len(_CJK.sub(" ", self.text).split())
        if cjk > MAX_CJK or words > MAX_WORDS:
            raise PremiseError(f"quote: a phrase of at most {MAX_WORDS} words ({MAX_CJK} Chinese characters); got "
                               f"{words} words and {cjk} characters: {self.text[:60]!r}...")
        if cjk and not self.translation.strip():
            raise PremiseError(f"quote {self.text[:30]!r}: a phrase in Chinese needs the book's translation")

    def as_dict(self, chapter: str) -> dict[str, str]:
        """The quote as the ledger stores it (the paper filled in from ``chapter``)."""
        out = {"paper": self.paper or CHAPTER_PAPER.get(chapter, ""), "section": self.section, "text": self.text}
        out.update({k: getattr(self, k) for k in ("translation", "code") if getattr(self, k)})
        return out


def quote_found(quote: Quote, chapter: str) -> bool | None:
    """Whether ``quote``'s phrase occurs in its work's text (normalised both sides); None where the text is not
    at hand. ``chapter`` (:data:`CHAPTER_PAPER`) names the work when the quote does not."""
    if not isinstance(quote, Quote):
        raise PremiseError(f"quote must be a Quote; got {type(quote).__name__}")
    if not isinstance(chapter, str) or chapter not in CHAPTER_PAPER:
        raise PremiseError(f"chapter must be one of {', '.join(map(repr, CHAPTER_PAPER))}; got {chapter!r}")
    text = paper_text(quote.paper or CHAPTER_PAPER[chapter])
    return None if text is None else normalise(quote.text) in text


# --- thresholds and alternatives ------------------------------------------------------------------------------
def _finite_real(value: Any) -> bool:
    """True for a finite real number (int or float, not a bool; an int too large for a float is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not (isinstance(value, int) and abs(value) > 1.7976931348623157e308) and math.isfinite(value)


Check = Callable[[Numbers], "tuple[bool, str]"]


@dataclass(frozen=True)
class Threshold:
    """One threshold of a rule: ``name`` (the keyword of the claim's ``rule_at``), ``value``, the ``basis`` of
    its reason (:data:`REASON_BASES`) and the ``reason`` in words; ``noise``, by which the verdict is tried
    with the threshold moved down and up (a number, a function of the stored numbers, or None where the
    threshold is exact: a theorem's or a convention's; with ``log=True`` a factor: value / noise and value × noise); ``check(numbers) -> (true, what the data show)``, which
    reads the stored numbers and says whether the reason is true of them (required unless the basis is a
    theorem or a convention)."""
    name: str
    value: float
    basis: str
    reason: str
    check: Check | None = None
    noise: float | Callable[[Numbers], float] | None = None
    log: bool = False

    def __post_init__(self):
        _plain_text_fields(self)
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise PremiseError(f"threshold name must be a keyword of the rule's factory; got {self.name!r}")
        if not _finite_real(self.value):
            raise PremiseError(f"threshold {self.name!r}: value must be a finite real number; got {self.value!r:.60}")
        if not isinstance(self.log, bool):
            raise PremiseError(f"threshold {self.name!r}: log must be True or False; got {self.log!r:.60}")
        if self.log and self.value <= 0:
            raise PremiseError(f"threshold {self.name!r}: a factor (log=True, moved by dividing and multiplying) must "
                               f"be above 0; got value {self.value!r:.60}")
        if self.check is not None and not callable(self.check):
            raise PremiseError(f"threshold {self.name!r}: check must be callable (numbers -> (true, found))")
        if self.noise is not None and not callable(self.noise) and (isinstance(self.noise, bool) or
                                                                      not isinstance(self.noise, (int, float))):
            raise PremiseError(f"threshold {self.name!r}: noise must be a number, a function of the numbers or None; "
                               f"got {self.noise!r}")
        if self.basis not in REASON_BASES:
            raise PremiseError(f"threshold {self.name!r}: basis must be one of {REASON_BASES}; got {self.basis!r}")
        if not isinstance(self.reason, str) or len(self.reason.strip()) < 20:
            raise PremiseError(f"threshold {self.name!r}: the reason is a sentence; got {self.reason!r}")
        if self.check is None and self.basis not in _UNCHECKED:
            raise PremiseError(f"threshold {self.name!r}: a reason resting on a {self.basis} needs a check that reads "
                               "the stored numbers (only a theorem's or a convention's has none)")
        if isinstance(self.noise, (int, float)) and not (_finite_real(self.noise) and self.noise > (1 if self.log else 0)):
            raise PremiseError(f"threshold {self.name!r}: noise must be a positive finite number (a factor above 1 "
                               f"with log=True); got {self.noise!r:.60}")

    def noise_of(self, numbers: Numbers) -> float | None:
        """The noise by which this threshold is moved, read from ``numbers`` where it is measured there."""
        noise = self.noise(numbers) if callable(self.noise) else self.noise
        if noise is not None and not (_finite_real(noise) and noise > 0):
            raise PremiseError(f"threshold {self.name!r}: its measured noise is {noise!r:.60}, not a positive number "
                               "(a finite one)")
        return noise

    def examine(self, numbers: Numbers) -> dict[str, Any]:
        """The threshold as the ledger stores it, with what its check finds in ``numbers``."""
        out = {"name": self.name, "value": self.value, "basis": self.basis, "reason": self.reason}
        try:
            noise = self.noise_of(numbers)
        except (KeyError, TypeError):
            noise = None
        if noise is not None:
            out["noise"] = float(f"{noise:.3g}")
        if self.check is not None:
            try:
                got = self.check(numbers)
                if not (isinstance(got, tuple) and len(got) == 2):
                    raise PremiseError(f"threshold {self.name!r}: check must return (true, what the data show); it "
                                       f"returned {type(got).__name__} {got!r:.60}")
                ok, found = got
                out.update(borne_out=bool(ok), found=str(found))
            except KeyError as key:
                out.update(borne_out=None, found=f"not checkable: the stored numbers lack {key}")
        return out


@dataclass(frozen=True)
class Alternative:
    """Another reasonable way to decide the claim: ``kind`` (:data:`ALTERNATIVE_KINDS`: another statistic,
    another threshold, another reading of the claim, another unit) and ``rule`` (numbers -> grade), named in
    words (``name``: what differs)."""
    name: str
    kind: str
    rule: Callable[[Numbers], str]

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise PremiseError(f"alternative: name must be a non-empty string; got {self.name!r}")
        if self.kind not in ALTERNATIVE_KINDS:
            raise PremiseError(f"alternative {self.name!r}: kind must be one of {ALTERNATIVE_KINDS}; got {self.kind!r}")
        if not callable(self.rule):
            raise PremiseError(f"alternative {self.name!r}: rule must be callable (numbers -> grade)")


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def threshold_alternatives(rule_at: Callable[..., Callable], thresholds: Sequence[Threshold],
                           numbers: Numbers) -> list[Alternative]:
    """Each threshold with a noise moved down and up by it (the others at their values), as an alternative whose rule
    is ``rule_at`` (the rule's factory) at the moved values. A threshold without a noise, or whose noise cannot be read
    from ``numbers`` (a number it needs is missing or of another kind: KeyError, TypeError), is not moved: where no
    threshold's noise can be read (numbers that hold none of what the noise is measured from, such as a claim's
    counterfactual examples) the list is empty. A moved value outside the rule's range (the factory raises ValueError)
    gives an alternative that cannot decide."""
    if not callable(rule_at):
        raise TypeError(f"rule_at must be the rule's factory (thresholds' values -> rule), callable; got "
                        f"{type(rule_at).__name__} {rule_at!r:.60}")
    if isinstance(thresholds, (str, bytes, Mapping)) or not isinstance(thresholds, (Sequence, tuple)) or not all(
            isinstance(t, Threshold) for t in thresholds):
        raise TypeError(f"thresholds must be a sequence of Threshold; got {type(thresholds).__name__} "
                        f"{thresholds!r:.60}")
    if not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be a mapping (the claim's numbers); got {type(numbers).__name__}")
    values = {t.name: t.value for t in thresholds}
    out = []
    for t in thresholds:
        try:
            noise = t.noise_of(numbers)
        except (KeyError, TypeError):
            noise = None
        if noise is None:
            continue
        for sign, word in ((-1, "−"), (1, "+")):
            if t.log:
                moved, how = t.value * noise ** sign, f"{_fmt(t.value)} {'/' if sign < 0 else '×'} {_fmt(noise)}"
            else:
                moved, how = t.value + sign * noise, f"{_fmt(t.value)} {word} its noise {_fmt(noise)}"
            try:
                rule = rule_at(**{**values, t.name: moved})
            except ValueError as err:   # moved past the rule's range (a tolerance below 0): that reading decides nothing
                rule = _cannot_decide(f"{t.name} moved to {_fmt(moved)} is outside the rule's range ({err})")
            out.append(Alternative(f"{t.name} = {_fmt(moved)} ({how})", "threshold", rule))
    return out


def _cannot_decide(why: str) -> Callable[[Numbers], str]:
    def rule(s):
        from .verdicts import Undecidable

        raise Undecidable(why)
    return rule


def sensitivity(primary: str, alternatives: Sequence[Alternative], numbers: Numbers,
                verdict_of: Callable[[str], str], cap: Callable[[str], str] = lambda g: g) -> dict[str, Any]:
    """The verdict under each alternative and whether any moves it: ``{"alternatives": [{name, kind, verdict}],
    "robustness": "robust" | "fragile", "moved_by": [names]}``. ``primary`` is the claim's grade (after
    ``cap``, which each alternative's grade goes through too); an alternative that cannot decide the numbers
    (a number it needs is missing, or it raises Undecidable) is listed as such and moves nothing."""
    from .verdicts import GRADES, Undecidable

    if not isinstance(primary, str) or primary not in GRADES:
        raise ValueError(f"primary must be one of {GRADES} (the claim's grade); got {primary!r}")
    if alternatives is not None and (isinstance(alternatives, (str, bytes)) or not isinstance(alternatives, Sequence)
                                     or not all(isinstance(a, Alternative) for a in alternatives)):
        raise TypeError(f"alternatives must be a sequence of Alternative; got {type(alternatives).__name__}")
    if not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be a mapping (the claim's numbers); got {type(numbers).__name__}")
    if not callable(verdict_of) or not callable(cap):
        raise TypeError("verdict_of and cap must be callable (grade -> verdict word, grade -> grade)")
    if not alternatives:   # nothing tried: neither robust nor fragile
        return {}
    rows, moved = [], []
    for alt in alternatives:
        try:
            grade = alt.rule(numbers)
            if grade not in GRADES:
                raise PremiseError(f"alternative {alt.name!r} returned {grade!r}, not one of {GRADES}")
            grade = cap(grade)
            if grade not in GRADES:
                raise PremiseError(f"cap returned {grade!r:.60} for alternative {alt.name!r}, not one of {GRADES}")
        except (KeyError, Undecidable) as why:
            rows.append({"name": alt.name, "kind": alt.kind, "verdict": "cannot decide",
                         "why": str(why).strip("'\"")})
            continue
        rows.append({"name": alt.name, "kind": alt.kind, "verdict": verdict_of(grade)})
        if grade != primary:
            moved.append(alt.name)
    return {"alternatives": rows, "robustness": "fragile" if moved else "robust", "moved_by": moved}


# --- spread ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Spread:
    """The unit the claim's numbers are read over (``unit``: "seed", "start", "window", "instance", ...) and
    ``values(numbers) -> {name: per-unit values}`` (the per-unit values of its key numbers, as stored). A claim
    whose numbers rest on one unit is graded at best "with differences", unless ``one_suffices`` says why one is
    enough (a deterministic identity: :meth:`deterministic`)."""
    unit: str
    values: Callable[[Numbers], Mapping[str, Sequence[float]]] | None = None
    one_suffices: str = ""

    def __post_init__(self):
        if not isinstance(self.unit, str) or not self.unit.strip():
            raise PremiseError(f"spread: unit must be a non-empty string; got {self.unit!r}")
        if self.values is not None and not callable(self.values):
            raise PremiseError(f"spread over {self.unit!r}: values must be callable (numbers -> per-unit values)")
        if not isinstance(self.one_suffices, str):
            raise PremiseError(f"spread over {self.unit!r}: one_suffices must be a string; got {self.one_suffices!r}")
        if self.values is None and not self.one_suffices.strip():
            raise PremiseError(f"spread over {self.unit!r}: give the per-unit values, or say why one unit suffices")

    @classmethod
    def deterministic(cls, why: str) -> "Spread":
        """A number that does not depend on a seed or a start (an identity, an enumeration): ``why`` says so."""
        return cls("none (deterministic)", None, why)


def _finite(values: Sequence[Any]) -> list[float]:
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v)]


def spread_of(spread: Spread | None, numbers: Numbers) -> dict[str, Any] | None:
    """What the ledger stores of the spread: unit, number of units ``n`` (the fewest over the key numbers),
    each key number's per-unit values (three digits) with their range, and ``one_suffices`` where given.

    A NaN (or an infinity) among the per-unit values marks a unit whose number is missing, as the stored numbers hold
    it: it is stored as None (null) among the values and left out of the range, and ``n`` counts the units stored,
    missing ones included (``[1.0, nan]`` gives ``values [1.0, None]``, ``range [1.0, 1.0]``, ``n`` 2)."""
    if spread is None:
        return None
    if not isinstance(spread, Spread):
        raise TypeError(f"spread must be a Spread or None; got {type(spread).__name__}")
    if not isinstance(numbers, Mapping):
        raise TypeError(f"numbers must be a mapping (the claim's numbers); got {type(numbers).__name__}")
    out: dict[str, Any] = {"unit": spread.unit}
    if spread.one_suffices:
        out["one_suffices"] = spread.one_suffices
    if spread.values is None:
        return out
    per_unit = spread.values(numbers)
    if not isinstance(per_unit, Mapping):
        raise PremiseError(f"spread over {spread.unit!r}: values must return a mapping of a number's name to its "
                           f"per-unit values; it returned {type(per_unit).__name__}")
    for name, vals in per_unit.items():
        if isinstance(vals, (str, bytes)) or not isinstance(vals, (Sequence, np.ndarray)) or not all(
                is_real(v) for v in vals):
            raise PremiseError(f"spread over {spread.unit!r}: the per-unit values of {name!r} must be a sequence of "
                               f"real numbers (NaN where one is missing); got {vals!r:.80}")
    out["values"] = {name: [float(f"{v:.3g}") if math.isfinite(v) else None for v in map(float, vals)]
                     for name, vals in per_unit.items()}
    counts = [len(vals) for vals in per_unit.values()]
    out["n"] = min(counts) if counts else 0
    out["range"] = {name: [float(f"{min(f):.3g}"), float(f"{max(f):.3g}")]
                    for name, vals in per_unit.items() if (f := _finite(vals))}
    return out


#: The keys of :func:`spread_of`'s dict.
_SPREAD_KEYS = frozenset({"unit", "one_suffices", "values", "n", "range"})


def one_unit_cap(spread: dict[str, Any] | None) -> Callable[[str], str]:
    """The grade cap of a claim whose numbers rest on one unit with no reason one suffices: "holds" becomes
    "partly" (at best "with differences"); otherwise grades pass unchanged."""
    if spread is not None and not isinstance(spread, Mapping):
        raise TypeError(f"spread must be spread_of's dict or None; got {type(spread).__name__}")
    if spread is not None and not set(spread) <= _SPREAD_KEYS:
        raise ValueError(f"spread must be spread_of's dict (its keys among {sorted(_SPREAD_KEYS)}); got the keys "
                         f"{sorted(map(str, spread))}"[:200])
    n = 2 if spread is None else spread.get("n", 2)
    if not is_integer(n) or n < 0:
        raise TypeError(f"spread['n'] must be the number of units (an integer >= 0); got {type(n).__name__} {n!r:.60}")
    if spread is None or spread.get("one_suffices") or spread.get("n", 2) > 1:
        return lambda g: g
    return lambda g: "partly" if g == "holds" else g


# the alternatives of a difference read over units live in premises_units (re-exported: premises.over_units)
from .premises_units import LEVEL, over_units  # noqa: E402,F401  (last: it imports Alternative from here)
