"""The argument checks shared by chapters 4 and 5's plots (:mod:`.figures`, :mod:`.figures_designs`): a study's runs,
labels and arrays, each refused at once naming the argument."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..companion.checks import check_array, check_rule

__all__: list[str] = []


def _runs(name: str, value: Any, keys: Sequence = ()) -> None:
    """``value`` a mapping of runs (dicts), holding ``keys``."""
    check_rule(name, value, "mapping")
    if not all(isinstance(v, Mapping) for v in value.values()):
        raise TypeError(f"{name} must map each name to a run (a dict)")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} holds no run for {missing}; it has {sorted(value, key=str)}")


def _labels(name: str, value: Any) -> None:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a list of strings; got {type(value).__name__}")


def _arrays(owner: str, study: Mapping, keys: Sequence[str], rule: str = "tensor:>=1") -> None:
    """study[key] for each key: a finite real tensor (``rule``) or, with ``rule="array"``, a finite numpy array."""
    for key in keys:
        if rule == "array" and not isinstance(study[key], np.ndarray):
            raise TypeError(f"{owner}[{key!r}] must be a numpy array; got {type(study[key]).__name__}")
        check_array(f"{owner}[{key!r}]", study[key], allow_int=True) if rule == "array" else check_rule(
            f"{owner}[{key!r}]", study[key], rule)


def _length(value: Any) -> int | None:
    return len(value) if np.ndim(value) >= 1 else None
