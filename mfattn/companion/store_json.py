"""JSON encoding of results (:mod:`mfattn.companion.store_write` and :mod:`mfattn.companion.store` re-export it):
numpy and torch values by value, dict keys sorted, NaN and infinity refused or stored as None
(:func:`finite_or_none`), and every value without a JSON form refused, naming where it sits, before any file is
made."""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Mapping
import re
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["finite_or_none"]


def _check_plain(values: Any, where: str, dtype: Any) -> None:
    """``values`` (an array's ``tolist()``) holds only what ``json.dumps`` writes (numbers, strings, True/False, None,
    lists, tuples, dicts of them), else a TypeError naming where it sits: complex numbers, dates, bytes, objects."""
    if isinstance(values, (list, tuple)):
        for i, v in enumerate(values):
            _check_plain(v, f"{where}[{i}]", dtype)
    elif isinstance(values, dict) and all(k is None or isinstance(k, (str, int, float)) for k in values):
        for k, v in values.items():
            _check_plain(v, f"{where}[{k!r}]", dtype)
    elif values is not None and not isinstance(values, (str, int, float)):
        raise TypeError(f"{where or '(the value itself)'}: an array or number of dtype {dtype} holds "
                        f"{type(values).__name__} values ({values!r:.40}), which have no JSON form; store real "
                        "numbers (e.g. the real and imaginary parts) or strings")


def _tolist(obj: Any, where: str) -> Any:
    """``obj.tolist()`` of a numpy array or scalar or a torch tensor, checked to hold JSON's values only: a tensor
    that holds no values (on the meta device) or of a dtype without a JSON form is a TypeError naming ``where``."""
    try:
        values = obj.tolist()
    except (NotImplementedError, RuntimeError, TypeError, ValueError) as err:
        raise TypeError(f"{where or '(the value itself)'}: {type(obj).__name__} of dtype {obj.dtype} has no values to "
                        f"store ({str(err).splitlines()[0][:80]})") from None
    kind = getattr(obj.dtype, "kind", None)   # numpy's; a torch dtype has none (real ones give plain numbers)
    if (kind not in tuple("biufU")) if kind is not None else getattr(obj.dtype, "is_complex", False):
        _check_plain(values, where, obj.dtype)
    return values


def _jsonable(obj: Any, strict: bool = False, where: str = "", json_only: bool = False,
              repr_ok: bool = True) -> Any:
    """``obj`` as JSON-able values (dict keys sorted, numpy/torch arrays by value). Anything else is its
    ``repr`` (unless ``repr_ok=False``: then a TypeError naming where it sits); with ``strict`` (cache keys) a
    value without a stable representation is a TypeError naming where it sits: an object whose repr shows a
    memory address, a set whose items cannot be sorted. With ``json_only`` (the JSON writer) every value without a
    JSON form is a TypeError naming where it sits. An array, number or tensor whose values have no JSON form
    (complex, dates, a tensor on the meta device) is a TypeError naming where it sits in every mode."""
    if isinstance(obj, dict):
        if json_only or strict:   # JSON's keys are strings; json.dumps turns numbers into strings, nothing else
            bad = next((k for k in obj if k is not None and not isinstance(k, (str, int, float, np.number, np.bool_))),
                       None)
            if bad is not None:
                raise TypeError(f"{where or '(the value itself)'}: a key {bad!r} of type {type(bad).__name__} has no "
                                "JSON form (keys are strings or numbers)")
        if (strict or json_only) and len({str(k) for k in obj}) < len(obj):   # 1 and '1': one JSON key for two
            clash = sorted({str(k) for k in obj if sum(str(j) == str(k) for j in obj) > 1})
            raise ValueError(f"{where or '(the value itself)'}: keys {clash} of different types are one JSON key")
        return {str(k): _jsonable(v, strict, f"{where}[{str(k)!r}]", json_only, repr_ok)
                for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v, strict, f"{where}[{i}]", json_only, repr_ok) for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        if json_only and obj.dtype.kind not in "biufU":
            raise TypeError(f"{where or '(the value itself)'}: an array of dtype {obj.dtype} has no JSON form")
        return {"__ndarray__": _tolist(obj, where), "dtype": str(obj.dtype)}
    if json_only and isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, (np.timedelta64, np.datetime64)):   # np.timedelta64 is a numpy integer type: not a count
        raise TypeError(f"{where or '(the value itself)'}: a time, {type(obj).__name__} {obj!r:.60}, has no JSON "
                        f"form; store it as a number of seconds or as text")
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist") and hasattr(obj, "dtype"):  # torch tensors, without importing torch
        return {"__tensor__": _tolist(obj, where), "dtype": str(obj.dtype)}
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if json_only or not repr_ok:
        raise TypeError(f"{where or '(the value itself)'}: {type(obj).__name__} {repr(obj)[:60]} has no JSON form; "
                        f"store numbers, strings, lists, dicts or arrays (str() it first if its text is meant)")
    if strict and isinstance(obj, (set, frozenset)):
        kinds = {type(v) for v in obj}
        try:
            if len(kinds) > 1:
                raise TypeError
            items = sorted(obj)
        except TypeError:
            raise TypeError(f"config{where}: a set of {', '.join(sorted(k.__name__ for k in kinds))} values has no "
                            f"stable order to hash; pass a sorted list instead") from None
        return [_jsonable(v, strict, f"{where}[{i}]") for i, v in enumerate(items)]
    text = repr(obj)
    if strict and (isinstance(obj, (set, frozenset)) or re.search(r"\bat 0x[0-9a-fA-F]+", text)):
        raise TypeError(f"config{where}: {type(obj).__name__} {text[:80]} has no stable representation "
                        f"(its repr shows a memory address); put the values that define it in the config instead")
    return text


def _non_finite(obj: Any, where: str = "") -> str | None:
    """Where the first NaN or infinity sits in JSON-able ``obj`` (``['a'][2]``), or None."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return where or "(the value itself)"
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, list):
        items = enumerate(obj)
    else:
        return None
    for k, v in items:
        found = _non_finite(v, f"{where}[{k!r}]")
        if found is not None:
            return found
    return None


def finite_or_none(obj: Any) -> Any:
    """``obj`` (nested dicts, lists, tuples, numbers; numpy arrays and torch tensors as nested lists) with every NaN
    or infinite float (a ``Decimal`` NaN or infinity too) replaced by None: what a result summary stores where a
    number is missing (standard JSON has null, not NaN). A tensor that holds no values (on the meta device) is a
    TypeError, an object that holds itself (or is nested too deeply) a ValueError."""
    try:
        return _finite_or_none(obj)
    except RecursionError:
        raise ValueError("finite_or_none: obj refers to itself or is nested too deeply to store") from None


def _finite_or_none(obj: Any) -> Any:
    if hasattr(obj, "tolist") and hasattr(obj, "dtype") and not isinstance(obj, np.generic):
        try:
            values = obj.tolist()
        except (NotImplementedError, RuntimeError) as err:   # a meta tensor: no values
            raise TypeError(f"finite_or_none: obj is a {type(obj).__name__} of dtype {obj.dtype} that holds no "
                            f"values ({str(err).splitlines()[0][:80]})") from None
        return _finite_or_none(values)      # an array or tensor: its numbers, NaN as None
    if isinstance(obj, Mapping):   # a dict, or any mapping (a MappingProxyType): stored as a JSON object
        return {k: _finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_or_none(v) for v in obj]
    if isinstance(obj, (set, frozenset)):   # no order, and JSON has no sets: a list would store an arbitrary order
        raise TypeError(f"finite_or_none: obj holds a {type(obj).__name__}, which JSON cannot store (give a sorted list)")
    if isinstance(obj, (float, np.floating)) and not math.isfinite(float(obj)):
        return None
    if isinstance(obj, decimal.Decimal) and not obj.is_finite():
        return None
    return obj


def _strict_dumps(obj: Any, what: str, **kwargs: Any) -> str:
    """``json.dumps`` of ``obj`` (already JSON-able) that refuses NaN and infinity (not standard JSON),
    naming the key that holds one."""
    try:
        return json.dumps(obj, allow_nan=False, **kwargs)
    except ValueError:
        raise ValueError(f"{what}: {_non_finite(obj)} is NaN or infinite, which standard JSON cannot hold; "
                         f"write None (null) or a string saying why the number is missing") from None
