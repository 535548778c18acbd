"""How a claim's rule reads the stored numbers (:mod:`mfattn.companion.verdicts` re-exports it): through
:class:`FiniteNumbers`, so that a NaN or an infinity a rule reads makes the claim "not tested" (:class:`Undecidable`)
and never a grade; :func:`finite_rule` and :func:`finite_factory` put a rule and a rule factory behind that guard,
:func:`raw_numbers` reads past it on purpose."""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Mapping

from .grades import Undecidable
from .stored_views import DESCEND, StoredNumbers, find_in

__all__ = ["FiniteNumbers", "finite_numbers", "raw_numbers", "finite_rule", "finite_factory"]


# --- a rule reads finite numbers only --------------------------------------------------------------------------


def _not_finite_leaf(value: Any) -> Any:
    """:func:`_not_finite_at`'s test of one value (see :func:`~mfattn.companion.stored_views.find_in`)."""
    import numpy as np

    if isinstance(value, bool):
        return None
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return None if math.isfinite(x) else "NaN" if math.isnan(x) else "inf"
    if isinstance(value, (complex, np.complexfloating)):   # a complex number is finite where both parts are
        parts = (value.real, value.imag)
        return None if all(math.isfinite(p) for p in parts) else "NaN" if any(math.isnan(p) for p in parts) else "inf"
    if isinstance(value, numbers.Number) and not isinstance(value, (int, complex)) and hasattr(value, "__float__"):
        # a Decimal, a Fraction: read as their float
        x = float(value)
        return None if math.isfinite(x) else "NaN" if math.isnan(x) else "inf"
    if hasattr(value, "detach") and hasattr(value, "is_floating_point"):   # a torch tensor: its values, as an array's
        if not (value.is_floating_point() or value.is_complex()):
            return None
        import torch

        bad = ~torch.isfinite(value.detach())
        if not bool(bad.any()):
            return None
        where = tuple(int(i) for i in torch.nonzero(bad)[0]) if bad.dim() else ()
        return f"{'NaN' if bool(torch.isnan(value.detach()[where]).any()) else 'inf'}" + (
            f" at {list(where)}" if where else "")
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            bad = ~np.isfinite(value)
            if bad.any():
                where = tuple(int(i) for i in np.argwhere(bad)[0])
                return f"{'NaN' if np.isnan(value[where]) else 'inf'} at {list(where)}"
            return None
        return DESCEND if value.dtype.kind == "O" else None
    return DESCEND if isinstance(value, (list, tuple, Mapping)) else None


def _not_finite_at(value: Any) -> str | None:
    """Where ``value`` (a number, or a list, tuple, array, torch tensor or mapping of them, nested) holds a NaN or an
    infinity:
    ``"NaN"`` / ``"inf"`` for the value itself, ``"NaN at [2]"`` for an entry; None where it holds none. None entries
    (not measured), text and other objects are no numbers and are left alone."""
    return find_in(value, _not_finite_leaf)


class FiniteNumbers(StoredNumbers):
    """The stored numbers as a rule reads them: a value read (``numbers[key]``, ``numbers.get(key)``, ``setdefault``,
    ``pop``) must have the kind the store holds under its key (:class:`~mfattn.companion.stored_views.StoredNumbers`:
    another kind is a TypeError naming the key), and one that is a NaN or an infinity, or a list, tuple, array or
    mapping holding one, raises :class:`Undecidable` naming the key (a NaN compares False with every threshold, so it
    would give whatever grade the rule's else-branch holds; an infinity passes every upper threshold). Numbers the
    rule does not read may be NaN (a one-seed SD, a derived number): only a read is checked. None (not measured) is
    read as stored. ``items()`` and ``values()`` iterate the values as stored (a rule that walks every value, e.g. a
    table of per-β entries, reads NaN entries it does not use: it checks the ones it uses). ``raw`` is the mapping
    itself, for a rule that reads a NaN on purpose (say why where it does)."""
    __slots__ = ()
    _what = "numbers"

    def _checked(self, key: Any, value: Any) -> Any:
        super()._checked(key, value)
        bad = _not_finite_at(value)
        if bad is not None:
            raise Undecidable(f"{key} is {bad} in the stored numbers: a non-finite number cannot decide the claim (a "
                              "NaN compares False with every threshold)")
        return value

    def values(self):
        return dict.values(self)

    def items(self):
        return dict.items(self)


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
    "not tested" (:class:`Undecidable`), never a grade; numbers that are no mapping are a TypeError naming them. Rule factories (``*_at``) apply it to the rule they return;
    :class:`Claim` applies it to its rule, to the rules ``rule_at`` makes and to its alternatives' rules. A note whose
    wording compares the numbers (not only quotes them) applies it too."""
    if not callable(rule):
        raise TypeError(f"rule must be callable (numbers -> grade); got {type(rule).__name__}")
    if getattr(rule, "__finite_reads__", False):
        return rule

    def guarded(numbers):
        if not isinstance(numbers, Mapping):   # a str, a list of items: refused here, not deep inside the rule
            raise TypeError(f"the rule's numbers (s) must be the stored numbers (a mapping of names to numbers); got "
                            f"{type(numbers).__name__} {numbers!r:.60}")
        if not isinstance(numbers, FiniteNumbers):
            numbers = FiniteNumbers(numbers)
        return rule(numbers)

    guarded.__finite_reads__ = True
    guarded.__wrapped__ = rule
    guarded.__doc__, guarded.__name__, guarded.__qualname__ = rule.__doc__, getattr(rule, "__name__", "rule"), \
        getattr(rule, "__qualname__", "rule")
    return guarded


def _threshold_value(name: str, value: Any, factor: bool) -> Any:
    """A threshold's value as a rule factory receives it: a finite real number (a numpy scalar or 0-d array too, passed
    on as a float), above 0 where it is a ``factor`` (a threshold declared with ``log=True``); else a TypeError or
    ValueError naming it. A Python int or float passes unchanged."""
    from .checks_scalars import check_real

    checked = check_real(name, value, minimum=0.0 if factor else None, strict=factor)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else checked


def finite_factory(rule_at: Callable[..., Callable], thresholds: Any = ()) -> Callable[..., Callable]:
    """A rule factory whose rules read through :func:`finite_rule`, and whose arguments (the thresholds' values) are
    checked where it is called: each a finite real number (NaN, an infinity, True, an array or a string is refused,
    naming it; a NaN threshold compares False with every number and would give the else-branch's grade). Where
    ``thresholds`` (:class:`~mfattn.companion.premises.Threshold` objects, as a :class:`Claim` declares them) name a
    keyword declared with ``log=True`` (a factor, moved by dividing and multiplying), its value must be above 0."""
    if not callable(rule_at):
        raise TypeError(f"rule_at must be callable (thresholds -> rule); got {type(rule_at).__name__}")
    factors = frozenset(t.name for t in thresholds if getattr(t, "log", False))
    if getattr(rule_at, "__finite_reads__", False):
        if getattr(rule_at, "__factors__", frozenset()) == factors:
            return rule_at
        rule_at = rule_at.__wrapped__   # re-declared with other thresholds (dataclasses.replace): wrap it anew

    def made(*args, **kwargs):
        args = tuple(_threshold_value(f"rule_at's argument {i}", v, False) for i, v in enumerate(args))
        kwargs = {k: _threshold_value(f"rule_at's {k}", v, k in factors) for k, v in kwargs.items()}
        return finite_rule(rule_at(*args, **kwargs))

    made.__finite_reads__ = True
    made.__factors__ = factors
    made.__wrapped__ = rule_at
    return made
