"""Argument checks shared by the public entry points: one clear message naming the parameter."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["check_choice", "check_int"]


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError`` listing them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_int(name: str, value: Any, minimum: int) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) ``>= minimum``, else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        expected = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {expected}; got {value!r}")
    return int(value)
