"""Reading Chapter 3's stored numbers draw by draw (:mod:`.claims_transformer_rules` builds its rules on these): a
statistic's per-draw values (``<key>_seeds``), the summary's one value where no per-unit file is stored, the check
that lists read together have one length, and the spreads and quoted numbers of a verdict."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from mfattn.companion import verdicts
from mfattn.companion.checks import check_int
from mfattn.structural.claims_rules import same_units

Numbers = Mapping[str, Any]


def per_draw(s: Numbers, key: str, fallback: str | None = None) -> list[float]:
    """The per-draw values of ``key`` (``<key>_seeds``), or the summary's one value (``fallback``, default ``key``)
    where the per-unit file is not stored. An empty ``<key>_seeds`` is :class:`~mfattn.companion.verdicts.Undecidable`
    naming it."""
    got = s.get(f"{key}_seeds")
    return [float(x) for x in _draws(s, f"{key}_seeds")] if got is not None else [float(s[fallback or key])]


def _draws(s: Numbers, key: str) -> list:
    """``s[key]``, a stored list of per-draw values, as stored; an empty one (no draw) cannot be quoted or decide a
    claim: :class:`~mfattn.companion.verdicts.Undecidable` naming the key."""
    got = s[key]
    if isinstance(got, (list, tuple)) and not got:
        raise verdicts.Undecidable(f"{key} is an empty list in the stored numbers: no draw to read")
    return got


#: The summary's one value of a per-draw statistic (seed 0's), read where the per-unit file is not stored.
_SUMMARY_KEY = {"corr_median_shared": "shared_floor", "corr_median_sktap": "sktap_floor"}


def _same_draws(s: Numbers, *prefixes: str) -> None:
    """The stored per-draw lists (``*_seeds``) whose names start with one of ``prefixes``, read together by one rule,
    note or statistic: one length, else :class:`~mfattn.companion.verdicts.Undecidable` naming each and its length
    (:func:`~mfattn.structural.claims_rules.same_units`)."""
    keys = [k for k in s if k.endswith("_seeds") and k.startswith(prefixes)]
    if keys:   # none stored (a summary written before them): nothing to pair
        same_units(s, *keys, units="draws")


def _summary_key(key: str) -> str:
    return _SUMMARY_KEY.get(key, key.replace("corr_median_", "corr_in_"))


def units(*keys: str) -> Callable[[Numbers], dict[str, list[float]]]:
    """The spread of a claim read over draws: each key's per-draw values (:func:`per_draw`), those stored. Each key
    is a string (the name of a stored number), else a TypeError naming ``keys``."""
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(f"keys must be the names of stored numbers (strings); got {type(key).__name__} "
                            f"{key!r}"[:200])
    return lambda s: {k: per_draw(s, k, _summary_key(k)) for k in keys if f"{k}_seeds" in s or _summary_key(k) in s}


def shown(*keys: str, digits: int = 3):
    """The numbers a verdict quotes (``digits`` significant digits, a positive integer), those stored (None or NaN:
    not measured, left out)."""
    check_int("digits", digits, 1)
    return lambda s: {k: float(f"{s[k]:.{digits}g}") for k in keys if s.get(k) is not None and s[k] == s[k]}


def _listed(values, digits: int = 3) -> str:
    return ", ".join(f"{v:.{digits}g}" for v in values)


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
