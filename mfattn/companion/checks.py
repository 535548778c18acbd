"""Argument checks shared by the public entry points: one clear message naming the parameter.

Every public function of mfattn checks its arguments with these before any numpy/torch work, so
bad input gives ``ValueError``/``TypeError`` saying which parameter was wrong and what was expected,
never a traceback from deep inside a library and never a silent NaN.

The checks themselves live by kind: :mod:`.checks_scalars` (numbers, strings, choices, paths), :mod:`.checks_arrays`
(tensors, arrays, grids, devices, generators) and :mod:`.checks_budgets` (the memory and work budgets); this module
re-exports every one of them and holds the declared contracts: the rules one line above a public function and the
:func:`contract` decorator that checks them at the call.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from .checks_arrays import (_dims, _strided, check_array, check_device, check_generator,  # noqa: F401
                            check_grid, check_tensor)
from .checks_budgets import (CHAPTER_MAX_WORK, DEFAULT_MAX_WORK, _available_bytes, _human,  # noqa: F401
                             admit_chapter_work, check_alloc, check_work, env_positive, max_bytes, max_work)
from .checks_scalars import (MAX_STRINGS, _no_meta, _plain_text, _same_choice, check_bool, check_choice,  # noqa: F401
                             check_edges, check_int, check_path, check_positive, check_probability, check_real,
                             check_strings)

__all__ = ["check_choice", "check_strings", "check_bool", "check_int", "check_real", "check_edges", "check_positive", "check_probability",
           "check_generator", "check_tensor", "check_device", "check_grid", "check_array", "check_alloc",
           "max_bytes", "check_path", "check_work", "max_work", "env_positive", "check_rule", "contract"]


# --- declared contracts: one line above a public function -----------------------------------------------------
_RANGES = {">0": dict(minimum=0.0, strict=True), ">=0": dict(minimum=0.0), "[0,1]": dict(minimum=0.0, maximum=1.0),
           "(0,1]": dict(minimum=0.0, maximum=1.0, strict=True), "": {}}


def _check_range(name: str, value: Any, bounds: str) -> float:
    """A finite real number within ``bounds`` (``""``, ``">0"``, ``">=0"``, ``"[0,1]"``, ``"(0,1]"``,
    ``"(0,1)"``, ``"[0,1)"``)."""
    if bounds in ("(0,1)", "[0,1)"):
        checked = check_real(name, value, minimum=0.0, maximum=1.0, strict=bounds.startswith("("))
        if checked >= 1.0:
            raise ValueError(f"{name} must be < 1; got {value!r}")
        return checked
    if bounds not in _RANGES:
        raise AssertionError(f"unknown range {bounds!r} for {name}")
    return check_real(name, value, **_RANGES[bounds])


def _torch_bool():
    import torch

    return torch.bool


_KINDS = ("real", "realt", "realarr", "intarray", "numbers", "int", "tensor", "anytensor", "inttensor", "nantensor",
          "array", "reals", "ints", "generator", "choice", "str", "mapping")


@functools.lru_cache(maxsize=None)
def _valid_rule(rule: str) -> None:
    """Raise ValueError if ``rule`` is no rule :func:`contract` knows (an unknown kind, or a bound its kind cannot
    read: ``"int:x"``, ``"tensor:two"``, ``"real:>1"``); parsed once per rule string."""
    kind, _, bounds = rule.rstrip("?").partition(":")
    if kind not in _KINDS:
        raise ValueError(f"unknown kind {kind!r} (one of {', '.join(_KINDS)})")
    if kind in ("int", "ints") and bounds and not bounds.lstrip("-").isdigit():
        raise ValueError(f"the bound of {kind!r} must be an integer; got {bounds!r}")
    if kind in ("tensor", "anytensor", "inttensor", "nantensor", "array", "numbers") and bounds and not (
            bounds.isdigit() or kind not in ("array", "numbers") and bounds.startswith(">=") and bounds[2:].isdigit()):
        raise ValueError(f"the bound of {kind!r} must be a number of dimensions (or '>=N'); got {bounds!r}")
    if kind in ("real", "realt", "realarr", "reals") and bounds not in _RANGES and bounds not in ("(0,1)", "[0,1)"):
        raise ValueError(f"the range of {kind!r} must be one of {sorted(_RANGES) + ['(0,1)', '[0,1)']}; got {bounds!r}")
    if kind == "reals" and bounds in ("(0,1)", "[0,1)"):
        raise ValueError(f"the range of 'reals' must be one of {sorted(_RANGES)}; got {bounds!r}")
    if kind == "generator" and bounds not in ("", "numpy", "torch"):
        raise ValueError(f"the bound of 'generator' must be 'numpy' or 'torch'; got {bounds!r}")
    if kind in ("intarray", "str") and bounds:
        raise ValueError(f"{kind!r} takes no bound; got {bounds!r}")
    if kind == "choice" and (not bounds or "" in bounds.split("|")):
        raise ValueError(f"'choice' needs its choices, each a non-empty word ('choice:a|b'); got {bounds!r}")


def check_rule(name: str, value: Any, rule: str) -> Any:
    """Check ``value`` of parameter ``name`` against a declared ``rule`` (see :func:`contract`)."""
    if not isinstance(rule, str):
        raise TypeError(f"the rule of {name!r} must be a string such as 'int:1' or 'real:>0'; got {rule!r:.60}")
    try:
        _valid_rule(rule)
    except ValueError as err:
        raise ValueError(f"the rule {rule!r} of {name!r} is no contract rule: {err}") from None
    if rule.endswith("?"):
        return None if value is None else check_rule(name, value, rule[:-1])
    kind, _, bounds = rule.partition(":")
    if kind in ("real", "realt"):
        if kind == "realt" and hasattr(value, "is_floating_point"):
            check_tensor(name, value, real=True)
            if bounds and value.numel():
                _check_range(f"every entry of {name}", float(value.detach().min()), bounds)
                _check_range(f"every entry of {name}", float(value.detach().max()), bounds)
            return value
        _check_range(name, value, bounds)
        return value
    if kind == "int":
        check_int(name, value, int(bounds or 0))
        return value
    if kind == "intarray":
        return check_array(name, value, integer=True)
    if kind == "realarr":
        arr = check_array(name, value, allow_int=True)
        if bounds and arr.size:
            _check_range(f"every entry of {name}", float(arr.min()), bounds)
            _check_range(f"every entry of {name}", float(arr.max()), bounds)
        return value
    if kind in ("tensor", "anytensor", "inttensor", "nantensor"):
        least = bounds.startswith(">=")
        check_tensor(name, value, real=kind in ("tensor", "nantensor"), finite=kind != "nantensor",
                     ndim=int(bounds) if bounds and not least else None)
        if kind == "inttensor" and (value.is_floating_point() or value.dtype == _torch_bool()):
            raise TypeError(f"{name} must be an integer tensor (labels, indices); got dtype {value.dtype}")
        if least and value.dim() < int(bounds[2:]):
            raise ValueError(f"{name} must have shape with at least {bounds[2:]} dimensions; got shape "
                             f"{tuple(value.shape)}")
        return value
    if kind == "mapping":
        from collections.abc import Mapping

        if not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a mapping (dict); got {type(value).__name__}")
        missing = [key for key in bounds.split("|") if key and key not in value
                   and not (key.isdigit() and int(key) in value)]
        if missing:
            raise ValueError(f"{name} lacks the key(s) {missing}; it needs {bounds.split('|')}")
        return value
    if kind in ("array", "numbers"):
        return check_array(name, value, ndim=int(bounds) if bounds else None, allow_int=kind == "numbers")
    if kind == "reals":
        grid = check_grid(name, value, **{k: v for k, v in _RANGES[bounds].items() if k != "maximum"})
        if bounds in ("[0,1]", "(0,1]") and np.any(grid > 1.0):
            raise ValueError(f"{name} must contain only values <= 1")
        return value
    if kind == "ints":
        from collections.abc import Mapping, Set

        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"{name} must be a sequence of integers; got {type(value).__name__}")
        # a dict would be read as its keys, a set in no fixed order, an iterator consumed here and empty in the body
        if isinstance(value, (Mapping, Set)) or iter(value) is value:
            raise TypeError(f"{name} must be a sequence of integers (a list, tuple or array); got "
                            f"{type(value).__name__}")
        items = list(value)
        if not items:
            raise ValueError(f"{name} must name at least one integer")
        for item in items:
            check_int(f"each entry of {name}", item, int(bounds or 0))
        return value
    if kind == "generator":
        return check_generator(name, value, kind="numpy" if bounds == "numpy" else "torch")
    if kind == "choice":
        return check_choice(name, value, tuple(bounds.split("|")))
    if kind == "str":
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string; got {type(value).__name__}")
        return value
    raise AssertionError(f"unknown contract rule {rule!r} for {name}")  # a programming error, at import


#: The rules whose numpy scalars (np.int64(5), np.float32(2.0); not np.bool_, which is refused), 0-d arrays and
#: int/float subclasses :func:`contract` hands on to the function as Python numbers (:func:`_plain_number`).
_NUMPY_SCALAR_RULE = {"real": True, "realt": True, "int": True}

_WORK_MODULE = None


def _plain_sequence(value: Any, kind: str) -> Any:
    """A list or tuple of checked numbers (rule ``"reals"`` or ``"ints"``) with each entry as the Python number it
    stands for (:func:`_plain_number`; a Fraction or Decimal among reals as its float): a 0-d array or numpy scalar
    among them would otherwise reach a body that hashes or sizes it. Arrays, ranges and plain entries unchanged."""
    if type(value) not in (list, tuple) or all(type(x) in (int, float) for x in value):
        return value
    out = [_plain_number(x) for x in value]
    if kind == "reals":
        out = [x if type(x) in (int, float) else float(x) for x in out]
    return type(value)(out)


def _plain_number(value: Any) -> Any:
    """The Python int or float a checked number stands for: a numpy scalar or 0-d array by ``.item()``; a subclass
    of int or float (an ``IntEnum`` member, or a class whose ``__index__``/``__float__``/arithmetic say something else
    than the value the check read) by the built-in's own conversion, so the body computes with the value that was
    checked. Anything else (a tensor, a plain int or float, None) unchanged."""
    if isinstance(value, (np.integer, np.floating)) or (isinstance(value, np.ndarray) and value.ndim == 0
                                                        and value.dtype.kind in "iuf"):
        return value.item()   # np.int64(5) -> 5, np.float32(2.0) -> 2.0, np.array(1.5) -> 1.5
    if isinstance(value, int) and type(value) not in (int, bool):
        return int.__int__(value)
    if isinstance(value, float) and type(value) is not float:
        return float.__float__(value)
    return value


def _work_registry():
    """:mod:`mfattn.companion.work`, imported on the first checked call (it imports this module)."""
    global _WORK_MODULE
    if _WORK_MODULE is None:
        from . import work

        _WORK_MODULE = work
    return _WORK_MODULE


def contract(alloc: Callable[[dict], Sequence[tuple[str, float]]] | None = None, **rules: str):
    """Declare and check a public function's parameter contract at its boundary (one line above ``def``).

    Each keyword names a parameter and its rule (a trailing ``?`` also admits None); a numpy integer or float scalar
    (or 0-d array), or an instance of a subclass of int or float, given for an ``"int"``, ``"real"`` or ``"realt"``
    parameter is a valid number and reaches the function as the Python int or float of the same value:

    * ``"real"``, ``"real:>0"``, ``">=0"``, ``"[0,1]"``, ``"(0,1]"``, ``"(0,1)"``: a finite real number (not a bool)
      in range; ``"realt:..."``: the same, or a real tensor with every entry in range; ``"realarr:..."``: a number
      or numpy array of finite reals in range;
    * ``"int:N"``: an integer >= N; ``"ints:N"``: a non-empty sequence of them; ``"intarray"``: whole numbers;
    * ``"tensor"``, ``"tensor:ndim"``, ``"tensor:>=ndim"``: a finite real floating-point torch tensor (a complex,
      integer or bool tensor is refused, never cast); ``"nantensor"``: the same, NaN allowed (a "no value"
      marker); ``"anytensor"``: any real dtype, finite; ``"inttensor"``: an integer tensor (labels);
    * ``"array"``: :func:`check_array`; ``"numbers"``: the same, integer arrays allowed; ``"reals:..."``: a non-empty 1-d sequence of finite reals in range;
    * ``"generator"`` (``torch.Generator``; ``"generator:numpy"``), ``"choice:a|b"``, ``"str"``,
      ``"mapping:k1|k2"`` (a dict holding those keys).

    ``alloc(arguments) -> [(parameter, bytes), ...]`` gives the buffers the call will allocate, checked by
    :func:`check_alloc` after the rules. Parameters not passed keep their (trusted) defaults. Between the two, a
    function declared in :data:`mfattn.companion.work.WORK` (by module and qualified name, looked up at call time)
    has its loops' work checked by :func:`check_work` (``steps=10**15`` refused at once, naming
    ``MFATTN_MAX_WORK``): the budgets live in the companion, not in the hashed computing modules.
    """
    import functools
    import inspect

    if alloc is not None and not callable(alloc):
        raise TypeError(f"contract: alloc must be None or a function of the arguments giving (parameter, bytes) "
                        f"pairs; got {type(alloc).__name__} {alloc!r:.60}")

    def wrap(fn):
        sig = inspect.signature(fn)
        unknown = sorted(set(rules) - set(sig.parameters))
        if unknown:
            raise TypeError(f"the contract of {fn.__qualname__} names unknown parameter(s) {unknown}; its parameters "
                            f"are {list(sig.parameters)}")
        for name, rule in rules.items():  # parse once at import: a typo fails loudly here
            if not isinstance(rule, str):
                raise TypeError(f"the contract of {fn.__qualname__}: the rule of {name!r} must be a string; got "
                                f"{rule!r:.60}")
            try:
                _valid_rule(rule)
            except ValueError as err:
                raise ValueError(f"the contract of {fn.__qualname__}: the rule {rule!r} of {name!r} is no contract "
                                 f"rule: {err}") from None

        key = f"{fn.__module__}:{fn.__qualname__}"  # the name the work registry declares it under

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as err:
                raise TypeError(f"{fn.__name__}(): {err}") from None
            given = bound.arguments
            # a str subclass reaches the body as the plain text it holds: one whose __eq__ or __hash__ says
            # something else would pass every `x in choices` and `x == "..."` test of the body with another text
            plain = {name: _plain_text(v) for name, v in given.items() if _plain_text(v) is not v}
            for name, rule in rules.items():
                if name in given:
                    check_rule(name, plain.get(name, given[name]), rule)
                    kind = rule.rstrip("?").partition(":")[0]
                    if _NUMPY_SCALAR_RULE.get(kind) or kind in ("reals", "ints"):
                        value = _plain_number(given[name]) if _NUMPY_SCALAR_RULE.get(kind) else _plain_sequence(
                            given[name], kind)
                        if kind == "real" and hasattr(value, "detach") and value.dim() == 0:
                            value = float(value.detach().item())   # a 0-d tensor where a number is declared
                        if value is not given[name]:
                            plain[name] = value
            given.update(plain)
            work = _work_registry()
            if key in work.WORK:  # its loops' budget (mfattn/companion/work.py), before buffers and body
                bound.apply_defaults()
                work.check_call_work(key, bound.arguments, what=f"{fn.__name__}()")
            if alloc is not None:
                bound.apply_defaults()
                for name, nbytes in alloc(bound.arguments):
                    check_alloc(name, nbytes)
            if plain:   # the body sees Python numbers (a numpy scalar is a valid number, never a float32 result)
                return fn(*bound.args, **bound.kwargs)
            return fn(*args, **kwargs)

        checked.__contract__ = dict(rules)
        return checked

    return wrap
