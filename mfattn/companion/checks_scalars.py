"""Checks of one scalar, string or path argument (:mod:`mfattn.companion.checks` re-exports them): a list of
strings, True/False, one of a few choices, a path, an integer or a real number in its range, the two edges of one
rule; each refusal is one clear message naming the parameter."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["check_strings", "check_bool", "check_choice", "check_path", "check_int", "check_real", "check_edges",
           "check_positive", "check_probability"]


#: The most entries :func:`check_strings` takes (names of modules, chapters, claims: never more than thousands).
MAX_STRINGS = 1_000_000


def check_strings(name: str, value: Any, what: str = "strings") -> list[str]:
    """``value`` as a list, if it is an iterable of strings and not one string (which would iterate by character);
    else a TypeError naming ``name`` and ``what`` the strings are (e.g. "module names"). An empty string names
    nothing (no module, chapter, claim or key is called ``''``): a ValueError naming ``name``."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be an iterable of {what} (a list, not a single string); got {type(value).__name__}")
    import itertools

    # an endless iterator (itertools.count(), iter(int, 1)) would fill the memory: no list of names is this long
    value = list(itertools.islice(value, MAX_STRINGS + 1))
    if len(value) > MAX_STRINGS:
        raise ValueError(f"{name} must hold at most {MAX_STRINGS:,} {what}; got more (an endless iterator?)")
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must hold {what} (strings); got an entry {bad[0]!r}"[:200])
    empty = [i for i, v in enumerate(value) if not v]
    if empty:
        raise ValueError(f"{name} must hold non-empty {what}; entry {empty[0]} is ''")
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is True or False (numpy's bool too); a string such as "no" (which Python reads as True) or a
    number is a TypeError naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {type(value).__name__} {value!r:.40}")
    return bool(value)


def _same_choice(value: Any, choice: Any) -> bool:
    """``value`` is ``choice`` as a choice: equal and of the same kind (a string only matches a string, an integer an
    integer, True/False only True/False), so 1.0 does not pass for 1 nor a one-element array for its string."""
    import numbers

    if isinstance(choice, str) or isinstance(value, str):   # the texts compared as str does (a subclass's own
        return isinstance(value, str) and isinstance(choice, str) and str.__eq__(value, choice) is True   # __eq__ lies)
    if choice is None or value is None:
        return value is choice
    if isinstance(value, (np.timedelta64, np.datetime64)) or isinstance(choice, (np.timedelta64, np.datetime64)):
        return False   # a numpy time compares equal to the integer count of its units: no choice is a time
    flags = [(isinstance(x, (bool, np.bool_)), isinstance(x, numbers.Integral), isinstance(x, numbers.Number))
             for x in (value, choice)]
    if flags[0] != flags[1]:
        return False
    try:
        return bool(value == choice)
    except (TypeError, ValueError):   # an object whose == is not a truth value
        return False


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """Return ``value`` if it is one of ``choices`` (equal and of the same kind: ``1.0`` is not the choice ``1``, an
    array is no choice), else raise ``ValueError`` listing them. ``choices`` is a sequence (not one string, whose
    substrings would pass, nor a set, which has no order) of strings, integers, True/False or None: an integer among integer choices is a choice
    (``check_choice("m", 3, (3, 4))`` is 3, as ``np.int64(3)`` is), a string among strings."""
    if isinstance(choices, (str, bytes, set, frozenset, dict)) or not isinstance(choices, (tuple, list)) and not (
            hasattr(choices, "__iter__") and hasattr(choices, "__len__")):
        # a set has no order: the choices a refusal lists (and a reader reads) would come in a random order
        raise TypeError(f"check_choice({name!r}): choices must be a tuple or list of the allowed values (a sequence, "
                        f"not a set), not {type(choices).__name__} {choices!r:.60}")
    if isinstance(value, (np.ndarray, bytes)) or hasattr(value, "detach"):   # arrays and tensors are no choice
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {type(value).__name__} "
                         f"{value!r:.60}")
    if not any(_same_choice(value, c) for c in choices):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r:.200}")
    return _plain_text(value)   # a str subclass as the plain text it holds


def _seed_option(text: str) -> int:
    """argparse's ``type`` for a ``--seed`` option: a whole number in [0, 2**62] (seeds and their offsets are
    64-bit: torch.manual_seed and numpy refuse more, deep inside and naming no option)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed must be a whole number; got {text!r:.40}") from None
    if not 0 <= value <= 2**62:
        raise argparse.ArgumentTypeError(f"a seed must be in [0, 2**62]; got {text:.40}")
    return value


def _plain_text(value: Any) -> Any:
    """``value`` as the plain ``str`` it holds if it is an instance of a str subclass (whose ``__eq__``, ``__hash__``
    or ``__str__`` may say something else than its text), else unchanged."""
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def _plain_text_fields(obj: Any) -> None:
    """Replace, in place, each field of the dataclass instance ``obj`` (frozen or not) that holds an instance of a
    str subclass by the plain text it holds: a subclass whose ``__eq__`` says something else would pass the class's
    own ``x in choices`` checks with another text. Call first in ``__post_init__``."""
    import dataclasses

    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if _plain_text(value) is not value:
            object.__setattr__(obj, f.name, _plain_text(value))


def check_path(name: str, value: Any):
    """``value`` as a :class:`pathlib.Path` if it is a path (a string or an ``os.PathLike``), else a TypeError naming
    ``name``."""
    import os
    from pathlib import Path

    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (a string or os.PathLike); got {type(value).__name__} {value!r}"[:200])
    try:
        text = os.fspath(value)
    except TypeError as err:   # an os.PathLike whose __fspath__ returns neither str nor bytes
        raise TypeError(f"{name} must be a path (a string or os.PathLike giving a string): {err}"[:200]) from None
    if not isinstance(text, str):   # bytes from __fspath__: every path of mfattn is text
        raise TypeError(f"{name} must be a path given as text; its __fspath__ returned {type(text).__name__}"[:200])
    text = str.__str__(text)   # the text a str subclass holds (its own __str__ could name another file)
    if "\0" in text:
        raise ValueError(f"{name} must be a path without NUL characters; got {text!r}"[:200])
    if not text:   # Path("") is the working folder: an empty name is never meant as that
        raise ValueError(f"{name} must be a non-empty path; got ''")
    try:
        os.fsencode(text)
    except UnicodeEncodeError as err:   # a lone surrogate no file system name can hold
        raise ValueError(f"{name} must be a path the file system can encode; {text!r:.80} has "
                         f"{text[err.start:err.end]!r} at {err.start}") from None
    value = text
    long = [p for p in Path(value).parts if len(os.fsencode(p)) > 255]
    if long:                   # no file system takes a longer name: it would fail later, deep in the OS
        raise ValueError(f"{name} has a part longer than 255 bytes ({len(os.fsencode(long[0]))}): {long[0][:40]}...")
    if len(os.fsencode(text)) >= 4096:   # Linux's PATH_MAX: the OS refuses it later ("File name too long", no name)
        raise ValueError(f"{name} must be a path shorter than 4096 bytes; got {len(os.fsencode(text)):,} bytes "
                         f"({text[:40]!r}...)")
    return Path(value)


def _no_meta(name: str, value: Any) -> Any:
    """``value``, unless it is a torch tensor on the 'meta' device (a shape and a dtype without values: nothing can
    be checked or computed from it), which is a ValueError naming ``name``."""
    if getattr(getattr(value, "device", None), "type", None) == "meta":
        raise ValueError(f"{name} is a tensor on the 'meta' device (a shape and dtype without values); give a tensor "
                         f"with values (on the CPU or a CUDA device); got shape {tuple(value.shape)}")
    return value


def is_integer(value: Any) -> bool:
    """``value`` is an integer: a Python or numpy integer, not a bool and not a numpy time span
    (``np.timedelta64`` is a numpy integer type, but a span of time is no count)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.timedelta64))


def is_real(value: Any) -> bool:
    """``value`` is a real number: a Python or numpy integer or float, not a bool and not a numpy time span."""
    return is_integer(value) or isinstance(value, (float, np.floating))


def check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (not a bool, not a ``np.timedelta64``) in
    ``[minimum, maximum]``, else raise."""
    for bound, what in ((minimum, "minimum"), (maximum, "maximum")):
        if (bound is not None or what == "minimum") and not is_integer(bound):
            raise TypeError(f"check_int({name!r}): {what} must be an integer; got {bound!r}")
    if isinstance(value, int) and type(value) not in (int, bool):
        # a subclass: range(), numpy and torch read __index__, and its own comparisons may say anything
        import operator

        held = int.__int__(value)
        if operator.index(value) != held or int(value) != held:
            raise ValueError(f"{name} must be an integer that reads as one value; got a {type(value).__name__} "
                             f"holding {held} whose __index__/__int__ give {operator.index(value)}/{int(value)}")
        value = held   # compared, and returned, as the plain int it holds
    if not is_integer(value) or value < minimum or (
            maximum is not None and value > maximum):
        if maximum is not None:
            expected = f"an integer in [{minimum}, {maximum}]"
        else:
            expected = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {expected}; got {value!r}")
    return int(value)


def _as_float(bound: Any) -> float:
    """A bound as a float: an integer past float's range as ±inf (a bound no float reaches), not an OverflowError."""
    try:
        return float(bound)
    except OverflowError:
        return math.inf if bound > 0 else -math.inf


def check_real(name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None,
               strict: bool = False, allow_inf: bool = False) -> float:
    """Return ``value`` as a float if it is a real number (not a bool, not a ``np.timedelta64``, not NaN, finite unless
    ``allow_inf``) within ``[minimum, maximum]`` (open at ``minimum`` when ``strict``), else raise."""
    if strict.__class__ is not bool or allow_inf.__class__ is not bool:   # "no" would read as True
        check_bool("strict", strict)
        check_bool("allow_inf", allow_inf)
    if not is_real(value):
        if isinstance(value, (np.timedelta64, np.datetime64)) or getattr(getattr(value, "dtype", None), "kind",
                                                                         None) in ("m", "M"):
            raise TypeError(f"{name} must be a real number; got a time ({type(value).__name__} {value!r:.60})")
        if hasattr(value, "ndim") and getattr(value, "ndim") == 0 and hasattr(value, "item"):
            _no_meta(name, value)
            return check_real(name, value.item(), minimum=minimum, maximum=maximum, strict=strict,
                              allow_inf=allow_inf)
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    if isinstance(value, (int, np.integer)) and abs(int(value)) > 1.7976931348623157e308:
        raise ValueError(f"{name} must be a finite number; got an integer too large for a float (~1e{len(str(abs(int(value)))) - 1})")
    # the number the value holds (a subclass's own __float__ or comparisons may say anything else)
    value = int.__int__(value) if isinstance(value, int) else value
    value = float.__float__(value) if isinstance(value, float) else float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    for bound, given in (("minimum", minimum), ("maximum", maximum)):
        if given is not None and (not is_real(given) or math.isnan(_as_float(given))):
            raise ValueError(f"check_real's {bound} (for {name}) must be None or a number, not NaN; got {given!r:.60}")
    minimum, maximum = (None if b is None else _as_float(b) for b in (minimum, maximum))
    low_bad = minimum is not None and (value <= minimum if strict else value < minimum)
    if low_bad or (maximum is not None and value > maximum):
        lo = "" if minimum is None else (f"> {minimum:g}" if strict else f">= {minimum:g}")
        hi = "" if maximum is None else f"<= {maximum:g}"
        raise ValueError(f"{name} must be {' and '.join(p for p in (lo, hi) if p)}; got {value!r}")
    return value


def check_edges(low_name: str, low: Any, high_name: str, high: Any, *, strict: bool = False,
                minimum: float | None = None, maximum: float | None = None, open_range: bool = False,
                allow_inf: bool = False) -> tuple[float, float]:
    """Two thresholds of one rule, ``low`` at most ``high`` (below it when ``strict``; equal edges leave a rule's
    'partly' band empty, which a moved threshold may do): each a finite real number (not
    a bool, not NaN) in ``[minimum, maximum]`` (open at ``minimum`` when ``open_range``), e.g. a 'holds' edge and the
    looser 'partly' edge of a rule, or the two ends of an interval (``allow_inf``: an infinite end too, the interval
    of a test that does not reject). A wrong kind is a TypeError, a NaN, a value out of
    range or the pair in the wrong order a ValueError naming both. Returns ``(low, high)`` as floats."""
    for flag, value in (("strict", strict), ("open_range", open_range), ("allow_inf", allow_inf)):
        check_bool(flag, value)
    a = check_real(low_name, low, minimum=minimum, maximum=maximum, strict=open_range, allow_inf=allow_inf)
    b = check_real(high_name, high, minimum=minimum, maximum=maximum, strict=open_range, allow_inf=allow_inf)
    if a > b or (strict and a == b):
        raise ValueError(f"{low_name} must be {'below' if strict else 'at most'} {high_name}; got {low_name}={low!r}, "
                         f"{high_name}={high!r}")
    return a, b


def check_positive(name: str, value: Any, allow_inf: bool = False) -> float:
    """A real number ``> 0`` (finite unless ``allow_inf``)."""
    return check_real(name, value, minimum=0.0, strict=True, allow_inf=allow_inf)


def check_probability(name: str, value: Any, *, open_low: bool = False) -> float:
    """A real number in ``[0, 1]`` (``(0, 1]`` when ``open_low``)."""
    check_bool("open_low", open_low)   # named as itself ('no' would read as True), not as check_real's strict
    return check_real(name, value, minimum=0.0, maximum=1.0, strict=open_low)


def _takes_one(name: str, f: Any, what: str = "the state as its one positional argument (z -> f(z))") -> None:
    """A TypeError naming ``name`` unless ``f`` can be called with one positional argument (``what``: the state of a
    map, the numbers of a rule): a callable of no argument failed at its first call, naming only the lambda."""
    import inspect

    try:
        inspect.signature(f).bind(None)
    except TypeError:
        raise TypeError(f"{name} must take {what}; got a callable with signature {inspect.signature(f)}") from None
    except ValueError:   # no signature to read (a builtin): called as it is
        pass
