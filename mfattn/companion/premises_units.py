"""The alternatives a referee tries on a difference read over units (seeds, starts): intervals and tests.

:func:`over_units` turns a claim's rule written on an interval (``decide(numbers, effect, lo, hi) -> grade``) into the
statistics tried beside it (Hartung-Knapp, Student-t, sign, signed-rank and exact paired tests), each an
:class:`~mfattn.companion.premises.Alternative` of kind ``"statistic"``, all at :data:`LEVEL`. Re-exported by
:mod:`mfattn.companion.premises`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from .checks_scalars import is_real

__all__ = ["LEVEL", "over_units"]

Numbers = Mapping[str, Any]

#: The two-sided level of every test and interval of the alternatives (95 % intervals).
LEVEL = 0.05


def _finite_values(s: Numbers, key: str, unit: str) -> list[float]:
    """``s[key]`` as a list of finite floats, one per unit; a NaN or an infinity among them (a unit not measured)
    makes the statistic Undecidable, naming the key: an interval or a test over a NaN is a NaN, never a grade."""
    from .verdicts import Undecidable

    values = s[key]
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"numbers[{key!r}] must be a list of numbers, one per {unit}; got {type(values).__name__}")
    out = []
    for v in values:
        if not is_real(v):
            raise TypeError(f"numbers[{key!r}] must be a list of numbers, one per {unit}; it holds {v!r:.40}")
        if not math.isfinite(float(v)):
            raise Undecidable(f"numbers[{key!r}] holds {float(v)} for a {unit}: a statistic over the {unit}s needs "
                              "every one measured")
        out.append(float(v))
    return out


def over_units(deltas: str, decide: Callable[[Numbers, float, float, float], str], *, variances: str | None = None,
               only: tuple[str, str] | None = None, unit: str = "seed") -> tuple[Alternative, ...]:
    """The statistics a referee tries on a difference read over units (``numbers[deltas]``: one per seed):
    the untruncated Hartung-Knapp interval (when the within-unit ``variances`` are stored), a Student-t interval
    over the units, a sign test (only with :data:`~mfattn.companion.stats.SIGN_TEST_MIN_UNITS` units or more: with
    fewer it cannot reach 5 %), an exact signed-rank test, and an exact paired test over the items pooled over the
    units (``only``: the keys of the per-unit counts of items right under a only and under b only).

    ``decide(numbers, effect, lo, hi) -> grade`` is the claim's rule written on an interval; a test gives it
    ``lo = hi = effect`` where it rejects "no difference" at :data:`LEVEL`, and ``lo, hi = −∞, +∞`` where it does not
    (a test that does not reject says nothing about the size)."""
    from . import stats

    for name, value in (("deltas", deltas), ("variances", variances), ("unit", unit)):
        if not (isinstance(value, str) and value) and not (value is None and name == "variances"):
            raise PremiseError(f"{name} must be {'the key of the stored ' + name if name != 'unit' else 'a word'}; "
                               f"got {value!r}")
    if not callable(decide):
        raise PremiseError("decide must be callable (numbers, effect, lo, hi) -> grade")
    if only is not None and not (isinstance(only, tuple) and len(only) == 2 and all(isinstance(k, str) for k in only)):
        raise PremiseError(f"only must be None or the two keys of the per-unit counts; got {only!r}")

    def interval(kind: str) -> Callable[[Numbers], str]:
        def rule(s):
            d = _finite_values(s, deltas, unit)
            if kind == "untruncated":
                got = stats.pooled_over_seeds(d, _finite_values(s, variances, unit), truncate=False)
                return decide(s, got["effect"], got["lo"], got["hi"])
            if len(d) < 2:
                from .verdicts import Undecidable
                raise Undecidable(f"a t-interval over {unit}s needs two {unit}s or more; {len(d)} stored")
            got = stats.t_interval(d)
            return decide(s, got["mean"], got["lo"], got["hi"])
        return rule

    def test(kind: str) -> Callable[[Numbers], str]:
        def rule(s):
            from .verdicts import Undecidable
            d = _finite_values(s, deltas, unit)
            effect = float(np.mean(d))
            if kind in ("sign", "signed-rank"):
                nonzero = sum(x != 0 for x in d)
                ties = len(d) - nonzero                    # the smallest two-sided p of both is 2^(1 - k)
                if nonzero < stats.SIGN_TEST_MIN_UNITS:   # (a tie, a difference of exactly 0, carries no sign)
                    raise Undecidable(f"a {kind} test over {nonzero} {unit}s"
                                      + (f" ({len(d)} stored, {ties} a tie, dropped)" if ties else "")
                                      + f" cannot reach 5 % (its smallest p is {2.0 ** (1 - nonzero):.3g})")
                p = (stats.sign_test if kind == "sign" else stats.signed_rank_test)(d)["p"]
            else:
                a, b = (int(sum(_finite_values(s, k, unit))) for k in only)
                p = stats.exact_paired_test(a, b)["p"]
            return decide(s, effect, effect, effect) if p < LEVEL else decide(s, effect, -math.inf, math.inf)
        return rule

    out = []
    if variances is not None:
        out.append(Alternative(f"untruncated Hartung-Knapp interval over the {unit}s", "statistic",
                               interval("untruncated")))
    out.append(Alternative(f"Student-t interval over the {unit}s (their spread only)", "statistic", interval("t")))
    out.append(Alternative(f"sign test over the {unit}s", "statistic", test("sign")))
    out.append(Alternative(f"exact signed-rank test over the {unit}s", "statistic", test("signed-rank")))
    if only is not None:
        out.append(Alternative(f"exact paired test over the items, pooled over the {unit}s (the trained models as "
                               "fixed)", "statistic", test("paired")))
    return tuple(out)


# last: premises imports this module at its end, so either may be imported first (this one alone used to fail)
from .premises import Alternative, PremiseError  # noqa: E402
