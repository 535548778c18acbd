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

* a public function that returns a rule of the numbers (a function of one parameter named ``s`` or ``numbers``:
  ``shown(*keys)``, ``one_seed(*keys)``, a check of a threshold) returns it reading ``s`` through the same view;
* the arguments that name stored numbers (a parameter called ``key``, ``keys``, ``tag``, ``prefix``, ...: see
  :data:`KEY_PARAMETERS`) must be strings without spaces (:func:`check_key`), and every parameter declared ``str``
  must get a string (``None`` only where its default is None): a bytes, list or padded name would match no stored
  number and silently leave it out, or fail deep inside a lookup; a parameter called ``rule`` or ``factory`` must
  get a callable.

A value read that is an infinity (or holds one), an integer past float's range, an empty per-unit list
(``*_seeds``, ``*_draws``, ``*_runs``) where the store holds entries under its key, or None read by ``[]`` where the
store holds a list, is :class:`~mfattn.companion.grades.Undecidable` naming the key, for the keys the store holds
(a counterfactual example's own key is read as given, as :mod:`~mfattn.companion.stored_kinds` reads it; no stored
number is either: a note would quote ``inf`` or ``nan``, arithmetic would overflow). A key ``s`` lacks is a
:class:`MissingNumber` (a KeyError naming it: the claim is "not tested, the stored numbers lack it"). Values that are
NaN are left to the rules (a note may quote a one-seed SD stored as NaN); ``None`` (not measured) is read as stored.
The wrapped function keeps its name, docstring and signature (``__wrapped__``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any, Callable

from .checks_scalars import _plain_text
from .stored_kinds import check_kind

__all__ = ["StoredNumbers", "MissingNumber", "stored_view", "guard_claims", "check_key", "check_keys",
           "KEY_PARAMETERS"]


class MissingNumber(KeyError):
    """A stored number a rule, note or check reads that the numbers lack: a KeyError (what the claims' machinery reads
    as "the stored numbers predate this claim": not tested) whose only argument is the key."""


#: The parameters of the claims modules' public functions that name stored numbers (or the start of their names,
#: ``prefix``: may be ``''``): each a string without spaces (:func:`check_key`).
KEY_PARAMETERS = frozenset({"key", "keys", "tag", "plain", "shared", "x", "blog", "blog_plain", "fallback",
                            "steps_key", "baseline", "other", "prefix", "other_prefix", "roundoff"})
_PREFIXES = frozenset({"prefix", "other_prefix"})
#: The parameters that take a rule or a rule factory: each must be callable.
_CALLABLE_PARAMETERS = frozenset({"rule", "factory", "rule_at"})


def check_key(name: str, key: Any, *, empty: bool = False) -> str:
    """``key`` if it names a stored number: a string, non-empty (``''`` passes where ``empty``: the start of names,
    a prefix) and without spaces or other white space (no stored number's name has any); else a TypeError (not a
    string: bytes, a list, None) or a ValueError naming ``name``."""
    if not isinstance(key, str):
        raise TypeError(f"{name} must name a stored number (a string); got {type(key).__name__} {key!r:.60}")
    if (not key and not empty) or any(c.isspace() for c in key) or not key.isprintable():
        # no stored number's name holds white space or a control character (a NUL matched none, silently)
        raise ValueError(f"{name} must name a stored number (a non-empty string without spaces or control "
                         f"characters); got {key!r:.60}")
    return key


def check_keys(name: str, keys: Any, *, empty: bool = False) -> tuple[str, ...]:
    """``keys`` (a list or tuple of names, e.g. a function's ``*keys``) as a tuple, each checked by
    :func:`check_key` (the refusal names ``name``); a lone string is one name."""
    if isinstance(keys, str):
        return (check_key(name, keys, empty=empty),)
    if not isinstance(keys, (list, tuple)):
        raise TypeError(f"{name} must be names of stored numbers (strings); got {type(keys).__name__} {keys!r:.60}")
    return tuple(check_key(name, k, empty=empty) for k in keys)


#: What a leaf test of :func:`find_in` returns for a container it does not judge itself: walk into its entries.
DESCEND = object()


def find_in(value: Any, leaf: Callable[[Any], Any], depth: int = 0) -> str | None:
    """The first place in ``value`` (a number, an array, a tensor, or a list, tuple, mapping or object array of them,
    nested up to 8 levels: stored numbers are JSON) where ``leaf`` finds something: its phrase, with ``" at [2]"``,
    ``" at ['key'][0]"`` for an entry; None where it finds nothing. ``leaf(x)`` returns a phrase (found, perhaps with
    its own ``" at [i, j]"`` inside an array), None (nothing there) or :data:`DESCEND` (a container: look inside).
    One walker for the stored views' and the finite reads' searches."""
    got = leaf(value)
    if got is not DESCEND:
        return got
    if depth > 8:
        return None
    if hasattr(value, "dtype") and getattr(value.dtype, "kind", None) == "O":   # an object array: its entries
        value = value.tolist()
    items = value.items() if isinstance(value, Mapping) else enumerate(value)
    for i, item in items:
        got = find_in(item, leaf, depth + 1)
        if got is not None:
            what, _, rest = got.partition(" at ")
            return f"{what} at [{i!r}]{rest}"
    return None


def _unreadable_leaf(value: Any) -> Any:
    """:func:`_unreadable`'s test of one value (see :func:`find_in`)."""
    import math

    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return None
    import numbers

    if isinstance(value, numbers.Number) and type(value) not in (int, float, complex) \
            and not isinstance(value, np.generic):   # a subclass (its own comparisons may lie), a Fraction, a Decimal
        return f"a {type(value).__name__} (a stored number is an int or a float)"
    if isinstance(value, int):   # (the square of a number past 1e150 overflows a float: a variance, an interval)
        return _HUGE if abs(value) > MAX_STORED else None
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return "inf" if math.isinf(x) else _HUGE if abs(x) > MAX_STORED else None
    if isinstance(value, (complex, np.complexfloating)):
        return "inf" if math.isinf(value.real) or math.isinf(value.imag) else None
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc" and np.isinf(value).any():
            return f"inf at {[int(i) for i in np.argwhere(np.isinf(value))[0]]}"
        if value.dtype.kind == "f" and (np.abs(np.nan_to_num(value)) > MAX_STORED).any():
            return f"{_HUGE} at {[int(i) for i in np.argwhere(np.abs(np.nan_to_num(value)) > MAX_STORED)[0]]}"
        return DESCEND if value.dtype.kind == "O" else None
    return DESCEND if isinstance(value, (list, tuple, Mapping)) else None


#: The largest magnitude a stored number may have: its square is still a float64 (a variance, a t-interval), and no
#: stored number comes near it (the largest in data/full is below 1e100). A finite 1e308 gave a "t-interval -inf to
#: +inf" note.
MAX_STORED = 1e150
_HUGE = "a number past 1e150"


def _unreadable(value: Any) -> str | None:
    """Where ``value`` (a number or a list, tuple or mapping of them, nested) holds an infinity, a number (float or
    integer) past :data:`MAX_STORED`, or a number of another kind (a Fraction, a Decimal): ``"inf"``, ``"inf at
    [2]"``, ``"a number past 1e150 at [0]"``; None where it holds none (NaN is left to the rules, except in per-unit
    lists: :func:`_check_readable`)."""
    return find_in(value, _unreadable_leaf)


#: The stored lists of one value per unit (seed, draw, run): an empty one holds no unit to read.
_PER_UNIT = ("_seeds", "_draws", "_runs")


def _stored_kind(key: str) -> Any:
    from .stored_kinds import stored_kinds

    return stored_kinds().get(key)


def _check_readable(key: Any, value: Any) -> None:
    """:class:`Undecidable` naming ``key`` where ``value`` holds an infinity or an integer past float's range, or is
    an empty list where the store holds entries under ``key`` (:func:`_unreadable`)."""
    from .grades import Undecidable
    from .stored_kinds import stored_kinds

    if not isinstance(key, str) or _stored_kind(key) is None:   # a key the store does not hold: nothing to go by
        return
    bad = _unreadable(value)
    if bad is not None:
        what, _, where = bad.partition(" at ")
        raise Undecidable(f"{key}{where} is {what} in the stored numbers: " + (
            "a non-finite number cannot decide the claim, nor be quoted" if what == "inf" else
            "its square overflows the statistics, and no stored number comes near it" if what == _HUGE else
            "no stored number is, none can decide the claim"))
    if isinstance(value, (list, tuple)) and key.endswith(_PER_UNIT):
        # one value per seed, draw or run: a NaN unit among measured ones would enter their mean, spread and interval
        # as NaN (or be printed as "nan" in a note). Every unit NaN is a statistic the units do not define (an error
        # above the training range of a net fitted at the training β only), read as stored.
        nan = [i for i, v in enumerate(value)
               if not isinstance(v, (bool, str, bytes)) and hasattr(v, "__float__") and v != v]
        if nan and len(nan) < len(value):
            raise Undecidable(f"{key}[{nan[0]}] is NaN in the stored numbers, where other units hold values: a unit "
                              "without a value cannot enter the units' statistics, nor be quoted")
    if isinstance(value, (list, tuple)) and not value and key.endswith(_PER_UNIT) \
            and isinstance(stored_kinds().get(key), tuple):
        raise Undecidable(f"{key} is an empty list in the stored numbers (the store holds entries there): nothing to "
                          "read, quote or decide from")


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
        check_kind(key, value)
        _check_readable(key, value)
        return value

    def __missing__(self, key: Any) -> Any:
        raise MissingNumber(key)

    def __getitem__(self, key: Any) -> Any:
        value = self._checked(key, super().__getitem__(key))
        if value is None and isinstance(key, str) and isinstance(_stored_kind(key), tuple):
            # a rule that reads a list by [] has no branch for "not measured": it would iterate None deep inside
            from .grades import Undecidable

            raise Undecidable(f"{key} is None (not measured) in the stored numbers, where the store holds a list: "
                              "nothing to read, quote or decide from")
        return value

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


_STR = ("str", "str | None", "Optional[str]")
_NAMES = _STR + ("str | Sequence[str]", "Sequence[str]", "tuple[str, ...]")


def _annotation(p: inspect.Parameter) -> str | None:
    ann = p.annotation
    if ann is inspect.Parameter.empty:
        return None
    return ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))


def _param_check(p: inspect.Parameter) -> Callable[[str, Any], Any] | None:
    """How the guard checks the argument of parameter ``p`` (None: not at all): see the module's docstring."""
    ann = _annotation(p)
    none_ok = p.default is None or (ann is not None and ("None" in ann or "Optional" in ann))
    if p.name in _CALLABLE_PARAMETERS:
        def callable_check(name, value):
            if not (callable(value) or (none_ok and value is None)):
                raise TypeError(f"{name} must be callable (a rule of the stored numbers, or its factory); got "
                                f"{type(value).__name__} {value!r:.60}")
            if name == "rule" and value is not None:   # a rule is called with the numbers alone: rule(s)
                from .checks_scalars import _takes_one

                _takes_one("rule", value, "the stored numbers as its one positional argument (rule(s))")
        return callable_check
    if p.name in KEY_PARAMETERS and (ann in _NAMES or (ann is None and p.name in ("key", "keys", "prefix"))):
        many = ann not in _STR and ann is not None and p.kind is not inspect.Parameter.VAR_POSITIONAL
        empty = p.name in _PREFIXES

        def key_check(name, value):
            if none_ok and value is None:
                return
            if many:
                check_keys(name, value, empty=empty)
            else:
                check_key(name, value, empty=empty)
        return key_check
    if ann in _STR and p.name != "chapter":   # a chapter's name: each reader checks it against its chapters
        def str_check(name, value):
            if not (isinstance(value, str) or (none_ok and value is None)):
                raise TypeError(f"{name} must be a string{' or None' if none_ok else ''}; got {type(value).__name__} "
                                f"{value!r:.60}")
        return str_check
    return None


def _argument_checks(fn: Callable) -> list[tuple[int | None, str, bool, Callable[[str, Any], Any]]]:
    """``(position or None, name, var-positional, check)`` of each checked parameter of ``fn``."""
    out = []
    for i, p in enumerate(inspect.signature(fn).parameters.values()):
        check = _param_check(p)
        if check is None:
            continue
        positional = p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                inspect.Parameter.VAR_POSITIONAL)
        out.append((i if positional else None, p.name, p.kind is inspect.Parameter.VAR_POSITIONAL, check))
    return out


def _check_arguments(checks, args: tuple, kwargs: dict) -> None:
    for i, name, var, check in checks:
        if var:
            for value in args[i:]:
                check(name, value)
        elif i is not None and i < len(args):
            check(name, args[i])
        elif name in kwargs:
            check(name, kwargs[name])


def _reads_numbers(value: Any) -> bool:
    """A rule of the stored numbers: a function of one positional parameter named ``s`` or ``numbers``."""
    return _is_rule(value) and next(iter(inspect.signature(value).parameters)) in ("s", "numbers")


def _viewing(rule: Callable) -> Callable:
    """``rule`` reading its numbers through :func:`stored_view` (a TypeError naming ``s`` where they are no
    mapping); its attributes (a finite rule's mark) kept."""
    @functools.wraps(rule)
    def viewed(s):
        return rule(stored_view(s))
    return viewed


def _guarded(fn: Callable) -> Callable:
    from .finite_reads import finite_rule

    params = list(inspect.signature(fn).parameters)
    takes_s = bool(params) and params[0] == "s"
    factory = fn.__name__.endswith("_at")
    checks = _argument_checks(fn)

    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        # a str subclass as the plain text it holds (one whose __eq__ lies would pass `x in FAMILIES` as another)
        args = tuple(_plain_text(a) for a in args)
        kwargs = {k: _plain_text(v) for k, v in kwargs.items()}
        if takes_s:
            if args:
                args = (stored_view(args[0]),) + args[1:]
            elif "s" in kwargs:
                kwargs["s"] = stored_view(kwargs["s"])
        if checks:
            _check_arguments(checks, args, kwargs)
        out = fn(*args, **kwargs)
        if factory and _is_rule(out):
            return finite_rule(out)
        if _reads_numbers(out):
            return _viewing(out)
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
