"""The kinds of the stored full-profile numbers, checked where the claims' rules and notes read them.

The rules read the chapters' stored numbers (``data/full/*``, JSON written by :mod:`mfattn.companion.store_write`) by
key, and each key has one kind there: a number, a list of numbers, a list of lists of numbers, a string, a flag, a
mapping. A value of another kind handed to a rule (a number wrapped in a list, a word in a list of numbers, one number
where the store holds a list, True for a number) would otherwise reach its arithmetic and fail deep inside Python
(``'float' object is not iterable``), or pass a comparison and give a grade. :func:`check_kind` refuses it by key,
as a :class:`TypeError` naming the key, the stored kind and what came.

The kinds are read once from the stored numbers themselves (:func:`stored_kinds`: every chapter's, merged by key), so
they follow the store without a second declaration. What they do not constrain: a key the store does not hold (a
counterfactual example's own key, a number added since), a ``None`` entry (null: not measured; the rule decides what
it means), an empty list (no entries: the rule decides), a stored null, and the entries of a mapping (read as
stored). Finite values are :class:`~mfattn.companion.finite_reads.FiniteNumbers`' concern, not this module's.
"""

from __future__ import annotations

import numbers
from typing import Any, Mapping

import numpy as np

__all__ = ["kind_of", "stored_kinds", "check_kind", "describe"]

#: A kind: ``"number"``, ``"flag"``, ``"text"``, ``"mapping"``, ``"any"`` (stored with mixed kinds: not checked),
#: ``None`` (nothing stored to go by), or ``("list", kind of the entries)``.
Kind = Any

_KINDS: dict[str, Kind] | None = None


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_, np.timedelta64))


def _merge(a: Kind, b: Kind) -> Kind:
    """One kind for two stored values of a key (or two entries of a list): the same kind, the known one beside
    ``None``, a list of their entries' merged kinds, else ``"any"``."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple):
        return ("list", _merge(a[1], b[1]))
    return "any"


def kind_of(value: Any) -> Kind:
    """The kind of a stored value (``None`` for a null or an empty list: nothing to go by)."""
    return _kind_of(value, 0)


def _kind_of(value: Any, depth: int) -> Kind:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return "flag"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, (list, tuple)) and depth < 4:
        entry: Kind = None
        for item in value:
            entry = _merge(entry, _kind_of(item, depth + 1))
            if entry == "any":
                break
        return ("list", entry) if value else None
    return "any"


def stored_kinds() -> dict[str, Kind]:
    """``{key: kind}`` over every chapter's stored full-profile numbers (read once; a key stored with two kinds in two
    chapters is ``"any"``). Empty where the project's stored numbers cannot be read (an installed package without
    ``data/``): then nothing is checked."""
    global _KINDS
    if _KINDS is None:
        _KINDS = {}   # while the store is read (its readers may read numbers too), nothing is checked
        kinds: dict[str, Kind] = {}
        from .checks_budgets import _CHAPTER_ADMITTED

        admitted = _CHAPTER_ADMITTED[0]   # reading the store runs no chapter: it must not admit a chapter's budget
        try:
            from . import store, verdicts

            root = store.project_root()
            chapters = list(verdicts.CLAIM_MODULES) if root is not None else []
            for chapter in chapters:
                stored, _ = verdicts._module(chapter).stored_numbers(root, chapter)
                for key, value in stored.items():
                    kinds[key] = _merge(kinds[key], kind_of(value)) if key in kinds else kind_of(value)
        except (OSError, ValueError, TypeError, ImportError):   # no store to go by: check nothing rather than guess
            kinds = {}
        finally:
            _CHAPTER_ADMITTED[0] = admitted
        _KINDS = kinds
    return _KINDS


def describe(kind: Kind, plural: bool = False) -> str:
    """A kind in words: ``"a list of numbers"`` (``plural``: ``"lists of numbers"``); anything that is no kind reads
    ``"any value"``."""
    if not isinstance(plural, bool):
        raise TypeError(f"plural must be True or False; got {type(plural).__name__} {plural!r:.40}")
    if isinstance(kind, tuple) and len(kind) == 2:
        return ("lists of " if plural else "a list of ") + describe(kind[1], plural=True)
    one, many = {"number": ("a number", "numbers"), "flag": ("a flag (true/false)", "flags (true/false)"),
                 "text": ("a string", "strings"), "mapping": ("a mapping", "mappings")}.get(kind, ("any value",
                                                                                                  "values"))
    return many if plural else one


def _fits(value: Any, kind: Kind, depth: int = 0) -> bool:
    if value is None or kind in (None, "any"):
        return True
    if kind == "number":
        return _is_number(value)
    if kind == "flag":
        return isinstance(value, (bool, np.bool_))
    if kind == "text":
        return isinstance(value, str)
    if kind == "mapping":
        return isinstance(value, Mapping)
    if isinstance(value, np.ndarray):   # a list of numbers may come as an array of them
        if value.dtype.kind in "iuf" and value.ndim >= 1:
            inner = kind[1]
            for _ in range(value.ndim - 1):
                if not isinstance(inner, tuple):
                    return False
                inner = inner[1]
            return inner in (None, "any", "number")
        value = value.tolist() if value.dtype.kind == "O" and value.ndim == 1 else value
    if not isinstance(value, (list, tuple)) or depth > 4:
        return False
    return all(_fits(item, kind[1], depth + 1) for item in value)


def check_kind(key: Any, value: Any, kinds: Mapping[str, Kind] | None = None) -> Any:
    """``value`` if it has the kind the store holds under ``key`` (or the store holds nothing to go by); else a
    TypeError naming the key, the stored kind and what came."""
    if kinds is not None and not isinstance(kinds, Mapping):
        raise TypeError(f"kinds must be a mapping of keys to kinds (or None: the store's); got {type(kinds).__name__}")
    kind = (stored_kinds() if kinds is None else kinds).get(key) if isinstance(key, str) else None
    if not _fits(value, kind):
        raise TypeError(f"numbers[{key!r}] must be {describe(kind)}, as the stored numbers hold it; got "
                        f"{type(value).__name__} {value!r:.60}")
    return value
