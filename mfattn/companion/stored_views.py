"""The boundary of the claims modules: their public functions read the stored numbers through a checked view.

Every claims module (``mfattn/*/claims*.py``) ends with ``guard_claims(globals())``. That wraps each public function
the module defines:

* a function whose first parameter is ``s`` (the stored numbers: a rule, a note, a helper of them) receives ``s`` as
  :class:`StoredNumbers`, which checks the kind of every value read against the kind the store holds under its key
  (:func:`mfattn.companion.stored_kinds.check_kind`): a number wrapped in a list, a word in a list of numbers, one
  number where a list is stored or True for a number is a TypeError naming the key, not a failure deep inside the
  rule's arithmetic or a grade. ``s`` that is no mapping is a TypeError naming ``s``;
* a rule factory (a public function whose name ends in ``_at``) that returns a rule (a function of one parameter,
  the numbers) returns it through
  :func:`~mfattn.companion.finite_reads.finite_rule`, as :class:`~mfattn.companion.verdicts.Claim` applies it to the
  rules it is declared with: a rule called on its own reads finite numbers too (a NaN or an infinity makes it
  :class:`~mfattn.companion.grades.Undecidable`, never a grade).

Values that are NaN are left to the rules (a note may quote a one-seed SD stored as NaN); ``None`` (not measured) and
empty lists are read as stored. The wrapped function keeps its name, docstring and signature (``__wrapped__``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any, Callable

from .stored_kinds import check_kind

__all__ = ["StoredNumbers", "stored_view", "guard_claims"]


class StoredNumbers(dict):
    """The stored numbers as a helper of the rules reads them: each value read (``s[key]``, ``s.get(key)``,
    ``setdefault``, ``pop``, ``values()``, ``items()``) goes through :meth:`_checked`, here the kind the store holds
    under ``key`` (:func:`~mfattn.companion.stored_kinds.check_kind`). ``raw`` is the mapping itself.
    :class:`~mfattn.companion.finite_reads.FiniteNumbers` adds finiteness to the same reads."""
    __slots__ = ("raw",)
    _what = "s"   # the name a refusal of the mapping itself gives

    def __init__(self, numbers: Mapping[str, Any]):
        if not isinstance(numbers, Mapping):
            raise TypeError(f"{self._what} must be the stored numbers (a mapping); got {type(numbers).__name__}")
        super().__init__(numbers)
        self.raw = numbers

    def _checked(self, key: Any, value: Any) -> Any:
        return check_kind(key, value)

    def __getitem__(self, key: Any) -> Any:
        return self._checked(key, super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        # the caller's default (a NaN marker, say) is not a stored number: only a stored value is checked
        return self._checked(key, super().__getitem__(key)) if key in self else default

    def setdefault(self, key: Any, default: Any = None) -> Any:
        return self._checked(key, super().__getitem__(key)) if key in self else super().setdefault(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        return self._checked(key, super().pop(key)) if key in self else super().pop(key, *default)

    def values(self):   # every value read, as [] reads it
        return [self._checked(key, value) for key, value in super().items()]

    def items(self):
        return [(key, self._checked(key, value)) for key, value in super().items()]


def stored_view(s: Any) -> Mapping[str, Any]:
    """``s`` read through :class:`StoredNumbers` (itself where it already checks its reads); a TypeError naming ``s``
    where it is no mapping."""
    if isinstance(s, StoredNumbers):   # FiniteNumbers too (it checks kinds and finiteness)
        return s
    if not isinstance(s, Mapping):
        raise TypeError(f"s must be the stored numbers (a mapping of names to numbers); got {type(s).__name__} "
                        f"{s!r:.60}")
    return StoredNumbers(s)


def _is_rule(value: Any) -> bool:
    """A rule: a function of one positional parameter (the numbers). A factory of factories (``*args, **kwargs``) and
    a class are not."""
    if not inspect.isfunction(value):
        return False
    params = list(inspect.signature(value).parameters.values())
    return len(params) == 1 and params[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                   inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _guarded(fn: Callable) -> Callable:
    from .finite_reads import finite_rule

    params = list(inspect.signature(fn).parameters)
    takes_s = bool(params) and params[0] == "s"
    factory = fn.__name__.endswith("_at")

    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        if takes_s:
            if args:
                args = (stored_view(args[0]),) + args[1:]
            elif "s" in kwargs:
                kwargs["s"] = stored_view(kwargs["s"])
        out = fn(*args, **kwargs)
        if factory and _is_rule(out):
            return finite_rule(out)
        return out

    guarded.__claims_guarded__ = True
    return guarded


def guard_claims(namespace: dict[str, Any]) -> None:
    """Wrap the public functions a claims module defines (``namespace`` is its ``globals()``), in place: see the
    module's docstring. Functions it imports from elsewhere, classes and private names are left alone."""
    if not isinstance(namespace, dict) or not isinstance(namespace.get("__name__"), str):
        raise TypeError(f"namespace must be a module's globals() (a dict with its '__name__'); got "
                        f"{type(namespace).__name__}")
    module = namespace["__name__"]
    for name, value in list(namespace.items()):
        if (name.startswith("_") or not inspect.isfunction(value) or value.__module__ != module
                or getattr(value, "__claims_guarded__", False)):
            continue
        namespace[name] = _guarded(value)
