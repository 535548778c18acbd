"""What chapters 4-5's rules share: the paper's name, the evidence prefixes, reading a stored number for a rule, and
chapter 4's identities checked in float64 with the round-off each is measured against.

Chapter 4 declares its tolerances itself rather than through :func:`mfattn.companion.verdicts.identity_claim`,
whose reason ("float64 sums of at most ~10⁴ terms") does not fit here: the self-attention enumeration sums
46 656 edge sets, and the worst-case bound N·ε it invokes would be 1e-11, above the tolerance. What bears the
tolerance out is the round-off measured on the same computations against extended precision (stored beside the
numbers by :mod:`.unit_values`), which grows like √N·ε and stays near 3e-14.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from mfattn.companion import verdicts
from mfattn.companion.checks_scalars import _takes_one
from mfattn.companion.checks import contract
from mfattn.companion.premises import Spread, Threshold
from mfattn.companion.verdicts import Undecidable

__all__ = ["PAPER", "TS", "TI", "TP", "TE", "TM", "TX", "number", "needs", "IDENTITY_HOW", "IDENTITY_KEYS",
           "STRUCTURAL_GAPS", "is_roundoff", "band_is_empty", "identity_thresholds", "identity_premises",
           "identity_and", "same_units"]

PAPER = "Singh & Buckley 2023"
TS, TI = "tests/test_structural.py::", "tests/test_iterative_attention.py::"
TP, TE = "tests/test_potentials.py::", "tests/test_edge_priors.py::"
TM, TX = "tests/test_multihop.py::", "tests/test_expanding.py::"

Numbers = Mapping[str, Any]


def _check_keys(name: str, keys: Any) -> tuple[str, ...]:
    """``keys`` as a tuple of stored numbers' names: a non-empty sequence of strings (a lone string is not one)."""
    if isinstance(keys, (str, bytes)) or not isinstance(keys, Sequence) or not keys \
            or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"{name} must be a non-empty sequence of key names (strings); got {keys!r}")
    return tuple(keys)


@contract(s="mapping", key="str")
def number(s, key: str) -> float:
    """``s[key]`` as a float, for a rule: a KeyError where it is absent (the claim is "not tested", the note names
    the key) and :class:`Undecidable` where it is stored as None, NaN or an infinity (no comparison with a threshold
    can decide it: NaN would silently compare False and give whichever grade the rule's ``else`` holds, an infinity
    passes every upper threshold; the stored numbers hold none)."""
    x = s[key]
    try:
        if isinstance(x, (bool, str)):
            raise TypeError
        x = float(x)
    except (TypeError, ValueError, OverflowError):
        raise Undecidable(f"{key} is not a number ({x!r})") from None
    if math.isnan(x):
        raise Undecidable(f"{key} is NaN")
    if math.isinf(x):
        raise Undecidable(f"{key} is {x!r}: an infinite number cannot decide the claim")
    return x


def same_units(s, *keys: str, units: str = "seeds") -> None:
    """Check that the stored lists ``keys`` of ``s``, read together as values of the same ``units`` (seeds, draws,
    β), have one length: :class:`Undecidable` naming each key and its length where they differ (a list cut or grown
    no longer pairs its entries with the others', so no rule, note or statistic can read them together). Keys not
    stored, or stored as something other than a list (None: not measured), are left to the reader; returns None."""
    _check_keys("keys", keys)
    if not isinstance(units, str) or not units:
        raise TypeError(f"units must be a word naming what the lists' entries are (seeds, draws, β); got {units!r:.40}")
    lengths = {}
    for k in keys:
        got = s.get(k) if hasattr(s, "get") else None
        if isinstance(got, (list, tuple)) or (hasattr(got, "__len__") and hasattr(got, "shape")):
            lengths[k] = len(got)
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{k} ({n})" for k, n in lengths.items())
        raise Undecidable(f"the stored lists of the same {units} have different lengths: {listed}")


def needs(rule, *keys: str):
    """``rule`` that first reads each of ``keys`` with :func:`number` (missing: KeyError, None or NaN:
    :class:`Undecidable`); for the recurring rules (:func:`verdicts.below`, :func:`verdicts.above`), which
    read NaN as an ordinary number."""
    if not callable(rule):
        raise TypeError(f"rule must be callable (stored numbers -> grade); got {type(rule).__name__}")
    _check_keys("keys", keys)
    def checked(s):
        for k in keys:
            number(s, k)
        return rule(s)
    return checked


# --- chapter 4's identities -------------------------------------------------------------------------------------

#: The sentence of an identity's rule in chapter 4.
IDENTITY_HOW = ("An identity computed in float64: it holds if the largest deviation is below 1e-12, a decade or more "
                "above the float64 round-off measured on the same computation against extended precision (about "
                "3e-14 for the enumeration's 46 656 edge sets: it grows like √N·ε, not N·ε); below 1e-6 it holds to "
                "single precision only (with differences: an approximation right to six digits, not an identity); "
                "above that it fails.")

#: Every deviation of chapter 4 that an identity rule reads (absolute, or relative where the rule says so).
IDENTITY_KEYS = ("enum_error_cross_self", "enum_marginal_error", "ident_logz_error", "ident_grad_error",
                 "ident_laplace_error", "mask_max_error", "enum_error_causal", "bin_gate_error", "bin_ffn_error",
                 "relpos_error", "temp_error", "keynorm_gap_equal", "slot_forms_relation_error", "pc_rise",
                 "slot_max_drop", "slot_paper_max_rise", "hop_max_rise", "hop_energy_identity_error")
#: Chapter 4's deviations that are structural, not round-off: the key-norm term at its smallest instance, SiLU
#: against ReLU at T = 1, Sinkhorn against the exclusive prior's marginals (median).
STRUCTURAL_GAPS = ("keynorm_gap_raw_min", "relu_gap_1", "excl_sink_error")


def _largest(s: Numbers, keys: Sequence[str]) -> float:
    return max(number(s, k) for k in keys)


@contract(what="str")
def is_roundoff(keys: Sequence[str], roundoff: str | Sequence[str], what: str) -> Callable[[Numbers], tuple[bool, str]]:
    """The check of an identity's tolerance: the round-off measured on the same computation (``roundoff``: a key,
    or several whose largest is taken) is at least a decade below 1e-12, and the claim's deviations are no more
    than a decade above that round-off (they are round-off, not a small real difference)."""
    _check_keys("keys", keys)
    _check_keys("roundoff", (roundoff,) if isinstance(roundoff, str) else roundoff)
    roundoffs = (roundoff,) if isinstance(roundoff, str) else tuple(roundoff)

    def check(s):
        r, x = _largest(s, roundoffs), _largest(s, keys)
        ok = 10 * r <= 1e-12 and x <= 10 * r
        return ok, (f"float64 round-off of {what} against extended precision {r:.1e} ({', '.join(roundoffs)}); "
                    f"largest deviation {x:.1e}"
                    + (f": at or below the round-off (at most a decade above it: {x / r if r > 0 else math.inf:.2g} "
                       "times it), and 1e-12 a decade or more above it" if ok else
                       ": the deviation is not round-off, or the tolerance is within a decade of it"))
    return check


@contract(s="mapping")
def band_is_empty(s: Numbers) -> tuple[bool, str]:
    """The check of the 1e-6 level: in this chapter's stored numbers every identity's deviation is round-off (below
    1e-13) and every structural gap is above 1e-5, so no number lies within a decade of either threshold, and
    where exactly 1e-6 sits decides nothing."""
    dev = _largest(s, [k for k in IDENTITY_KEYS])
    gap = min(number(s, k) for k in STRUCTURAL_GAPS)
    ok = dev < 1e-13 and gap > 1e-5
    return ok, (f"largest identity deviation of the chapter {dev:.1e}, smallest structural gap {gap:.2g}: "
                + ("the band from 1e-13 to 1e-5 holds no stored number" if ok else "a stored number lies in the band "
                   "from 1e-13 to 1e-5, where the place of a threshold decides"))


@contract(what="str")
def identity_thresholds(keys: Sequence[str], roundoff: str | Sequence[str] = "enum_roundoff_max",
                        what: str = "the enumeration") -> tuple[Threshold, Threshold]:
    """The two thresholds of an identity on ``keys``: ``tol`` (1e-12), checked against the round-off measured on
    the same computation (``roundoff``), and ``near`` (1e-6, single precision), checked against the chapter's
    distribution of deviations; each tried a decade either way (the spread of the round-off over instances and
    over the computations of the chapter is within a decade)."""
    _check_keys("keys", keys)
    _check_keys("roundoff", (roundoff,) if isinstance(roundoff, str) else roundoff)
    return (Threshold("tol", 1e-12, "round-off", f"the float64 round-off of {what}, measured against extended "
                      "precision on the same computation and stored beside it, is a decade or more below 1e-12, and "
                      "the stored deviation is at or below that round-off (at most a decade above it): it is "
                      "round-off, and 1e-12 leaves "
                      "room for it", is_roundoff(keys, roundoff, what), noise=10.0, log=True),
            Threshold("near", 1e-6, "stored distribution", "'with differences' is kept for an approximation right to "
                      "about six digits (single precision, ε ≈ 1.2e-7); the chapter's stored deviations are either "
                      "round-off (below 1e-13) or structural gaps (above 1e-5), so no number lies near it",
                      band_is_empty, noise=10.0, log=True))


@contract(what="str")
def identity_premises(*keys: str, roundoff: str | Sequence[str] = "enum_roundoff_max", what: str = "the enumeration",
                      spread: Spread | None = None) -> dict[str, Any]:
    """The rule, thresholds, examples and spread of an identity on ``keys`` (to splat into a Claim; its ``how``
    is :data:`IDENTITY_HOW`): the spread is deterministic unless ``spread`` gives the per-instance values. The keys
    are not looked up here (the factory sees no stored numbers, and stored names may hold capitals): a key the
    stored numbers do not hold makes the claim "not tested" when its rule is applied (a KeyError naming it)."""
    _check_keys("keys", keys)
    if spread is not None and not isinstance(spread, Spread):
        raise TypeError(f"spread must be a Spread or None; got {type(spread).__name__}")
    return {"rule_at": lambda tol, near: verdicts.identity(*keys, tol=tol, near=near),
            "thresholds": identity_thresholds(keys, roundoff, what), "how": IDENTITY_HOW,
            "examples": verdicts.identity_examples(*keys),
            "spread": spread or Spread.deterministic("an identity of float64 arithmetic on exact enumerations: each "
                                                     "instance's deviation is a bound, and a single instance beyond "
                                                     "round-off would refute it")}


@contract(tol="real:>0", near="real:>0")
def identity_and(keys: tuple[str, ...], exact_in_general: Callable[[Numbers], bool], tol: float = 1e-12,
                 near: float = 1e-6):
    """An identity on ``keys`` (:func:`verdicts.identity` at ``tol``/``near``) that a claim states more generally
    than it holds: fails if the identity fails, holds if it holds and ``exact_in_general(numbers)``, else partly.
    ``exact_in_general`` reads its numbers with :func:`number` (None or NaN there is Undecidable)."""
    _check_keys("keys", keys)
    if not callable(exact_in_general):
        raise TypeError(f"exact_in_general must be callable (stored numbers -> bool); got "
                        f"{type(exact_in_general).__name__}")
    _takes_one("exact_in_general", exact_in_general, "the stored numbers as its one positional argument")
    if near < tol:
        raise ValueError(f"near must be >= tol (the single-precision level above the identity's); got tol={tol!r}, "
                         f"near={near!r}")
    ident = verdicts.identity(*keys, tol=tol, near=near)

    def rule(s):
        g = ident(s)
        if g != "holds":
            return "fails" if g == "fails" else "partly"
        general = exact_in_general(s)
        if not isinstance(general, (bool, np.bool_)):   # a string or a number would read as True and grade "holds"
            raise TypeError(f"exact_in_general must return True or False; got {type(general).__name__} "
                            f"{general!r:.40}")
        return "holds" if general else "partly"
    return rule


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
