"""The rules that recur across the chapters (:mod:`mfattn.companion.verdicts` re-exports them): one number below or
above a threshold (:func:`below`, :func:`above`) and an identity checked numerically to its float64 round-off
(:func:`identity`, with its premises and examples: :func:`identity_claim`, :func:`identity_examples`)."""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Mapping

import numpy as np

from .checks import contract
from .checks_scalars import check_positive
from .finite_reads import raw_numbers
from .grades import ClaimError, Undecidable
from .premises import Spread, Threshold

__all__ = ["below", "above", "IDENTITY_HOW", "identity", "identity_claim", "identity_examples"]


# --- rules that recur ----------------------------------------------------------------------------------


def _number(s: Mapping[str, Any], key: str) -> float:
    """``s[key]`` as a real number for a one-number rule: missing is a KeyError (the stored numbers predate it: not
    tested), None or NaN cannot decide (:class:`Undecidable`: a NaN compared as a number read as "fails"), anything
    not a real number is a TypeError naming the key; ``s`` that is no mapping (None, a list of pairs) is a TypeError
    naming the numbers."""
    if not isinstance(s, Mapping):
        raise TypeError(f"numbers must be the stored numbers (a mapping of names to numbers); got {type(s).__name__} "
                        f"{s!r:.60}")
    x = s[key]
    if x is None:
        raise Undecidable(f"{key} is not a number in the stored numbers ({x!r})")
    if isinstance(x, (bool, np.bool_, np.timedelta64)) or not isinstance(x, numbers.Real):
        raise TypeError(f"numbers[{key!r}] must be a real number; got {type(x).__name__} {x!r:.60}")
    value = float(x) if not isinstance(x, int) or abs(x) <= 1.7976931348623157e308 else (math.inf if x > 0 else -math.inf)
    if not math.isfinite(value):   # numpy's NaN (np.float32) too: a NaN compares False, an infinity passes a bound
        raise Undecidable(f"{key} is {x!r} in the stored numbers: a non-finite number cannot decide the claim")
    return value


def _check_key(key: Any) -> None:
    from .stored_views import check_key

    check_key("key", key)   # a non-empty string without spaces or control characters, as every stored name


@contract(key="str", holds="real", partly="real?")
def below(key: str, holds: float, partly: float | None = None) -> Callable[[Mapping[str, Any]], str]:
    """A rule on one number: ``numbers[key] < holds`` holds, ``< partly`` (if given) holds partly, else fails."""
    _check_key(key)
    if partly is not None and partly < holds:
        raise ClaimError(f"below({key!r}): the partial threshold {partly} must not be below {holds}")

    def rule(s):
        x = _number(s, key)
        return "holds" if x < holds else "partly" if partly is not None and x < partly else "fails"
    return rule


@contract(key="str", holds="real", partly="real?")
def above(key: str, holds: float, partly: float | None = None) -> Callable[[Mapping[str, Any]], str]:
    """A rule on one number: ``numbers[key] > holds`` holds, ``> partly`` (if given) holds partly, else fails."""
    _check_key(key)
    if partly is not None and partly > holds:
        raise ClaimError(f"above({key!r}): the partial threshold {partly} must not be above {holds}")

    def rule(s):
        x = _number(s, key)
        return "holds" if x > holds else "partly" if partly is not None and x > partly else "fails"
    return rule


#: The declared tolerance of an identity computed in float64, and its reason.
IDENTITY_HOW = ("An identity computed in float64: it holds if the largest deviation is below 1e-12 (the round-off "
                "of float64 sums of up to ~10⁵ terms of order one grows like √N·ε ≈ 7e-14, ε ≈ 2.2e-16: 1e-12 leaves "
                "more than a decade of room); below 1e-6 it holds to single precision only (with differences: an "
                "approximation right to six digits, not an identity); above that it fails.")


def identity(*keys: str, tol: float = 1e-12, near: float = 1e-6) -> Callable[[Mapping[str, Any]], str]:
    """The rule of an identity checked numerically: the largest of ``numbers[k]`` (absolute deviations) below
    ``tol`` holds, below ``near`` holds partly, else (or NaN) fails. See :data:`IDENTITY_HOW`. A deviation stored as
    None (null: not measured) cannot decide it (:class:`Undecidable`)."""
    tol, near = check_positive("tol", tol), check_positive("near", near)
    _check_keys("identity", keys)
    if near < tol:
        raise ValueError(f"near must be >= tol (partly is between them); got tol={tol:g}, near={near:g}")

    def rule(s):
        # A NaN deviation fails (documented): the identity's computation broke down, which no round-off explains.
        s = raw_numbers(s)
        missing = [k for k in keys if s[k] is None]
        if missing:
            raise Undecidable(f"the deviation {', '.join(missing)} is stored as null (not measured)")
        xs = _deviations(s, keys)
        if not all(math.isfinite(x) for x in xs):   # max() would drop a NaN after the first key
            return "fails"
        x = max(xs)
        return "holds" if x < tol else "partly" if x < near else "fails"
    return rule


def _deviations(s: Mapping[str, Any], keys: tuple) -> list[float]:
    """The stored absolute deviations ``s[k]`` as floats (NaN kept: the rule fails it); a deviation that is not a real
    number, or is negative (an absolute deviation never is), is an error naming its key."""
    xs = []
    for k in keys:
        x = s[k]
        if isinstance(x, (bool, np.bool_, np.timedelta64)) or not isinstance(x, numbers.Real):
            raise TypeError(f"numbers[{k!r}] must be a deviation (a real number); got {type(x).__name__} {x!r:.60}")
        x = float(x) if not isinstance(x, int) or abs(x) <= 1.7976931348623157e308 else (math.inf if x > 0 else -math.inf)
        if x < 0:
            raise ValueError(f"numbers[{k!r}] must be an absolute deviation (>= 0); got {x!r}")
        xs.append(x)
    return xs


def _check_keys(what: str, keys: tuple) -> None:
    from .stored_views import check_key

    if not keys or not all(isinstance(k, str) and k for k in keys):
        raise TypeError(f"{what} needs the names of the stored deviations (strings) it reads; got {keys!r:.80}")
    for k in keys:
        check_key(f"{what}'s keys", k)


def identity_claim(*keys: str) -> dict[str, Any]:
    """The rule and premises of an identity checked numerically over the deviations ``keys``, to splat into a
    :class:`Claim`: ``rule_at`` (:func:`identity` at its two thresholds), the thresholds with their round-off
    reason and a check on the stored deviations, a decade either way as the alternatives, the counterfactual
    ``examples`` and a deterministic spread (an identity needs no seeds). Its ``how`` is :data:`IDENTITY_HOW`."""
    _check_keys("identity_claim", keys)

    def regime(s):
        xs = [s[k] for k in keys]
        if any(x is None for x in xs):
            return True, "a deviation is stored as null (not measured): the claim is not tested"
        x = max(_deviations(s, keys))
        ok = x < 1e-13 or x > 1e-5 or 1e-11 < x < 1e-7
        return ok, (f"largest stored deviation {x:.1e}: " + ("at least a decade from both thresholds" if ok else
                    "within a decade of a threshold, where the tolerance's exact place decides"))
    return {"rule_at": lambda tol, near: identity(*keys, tol=tol, near=near),
            "examples": identity_examples(*keys),
            "thresholds": (Threshold("tol", 1e-12, "round-off", "the round-off of float64 sums of up to ~10⁵ terms "
                                     "of order one grows like √N·ε ≈ 7e-14 (ε ≈ 2.2e-16), more than a decade below "
                                     "1e-12; the stored deviation lies at least a decade from it", regime, noise=10.0,
                                     log=True),
                           Threshold("near", 1e-6, "round-off", "single precision (ε ≈ 1.2e-7) summed over a few "
                                     "terms: an approximation right to six digits; the stored deviation lies at "
                                     "least a decade from it", regime, noise=10.0, log=True)),
            "spread": Spread.deterministic("an identity of float64 arithmetic: no seed or start enters it")}


def identity_examples(*keys: str) -> dict[str, dict[str, float]]:
    """Counterfactual examples of :func:`identity` over ``keys``: just inside each threshold and just outside."""
    _check_keys("identity_examples", keys)
    return {"holds": {k: 9e-13 for k in keys}, "partly": {k: 2e-12 if i == 0 else 0.0 for i, k in enumerate(keys)},
            "fails": {k: 2e-6 if i == len(keys) - 1 else 0.0 for i, k in enumerate(keys)}}
