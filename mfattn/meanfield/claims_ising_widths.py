"""The fields' width as a declared reading of chapter 1's claims at β = 0.5.

The chapter draws its fields with width σ_h = 0.3 (ours: the blog fixes none). :mod:`mfattn.meanfield.field_width`
solves the same 40 instances at β = 0.5 with the fields at the widths :data:`WIDTHS`;
:func:`mfattn.meanfield.claims.stored_numbers` hands them to the rules as ``s["fw"][width]``, flattened under the
summary's own names. Each claim read at one width tries its own rule at each other width (:func:`width_alternatives`),
so a verdict that holds only at the chapter's width is marked fragile, and its note gives the ratio at every width
(:func:`width_text`).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Mapping

from ..companion.premises import Alternative

__all__ = ["WIDTHS", "THEORIES", "width_alternatives", "width_text", "with_widths"]

#: The stored widths other than the chapter's 0.3, as the study's keys.
WIDTHS = ("0.1", "0.6", "1")
#: The theories' keys in the flattened numbers (:data:`mfattn.meanfield.claims.KEYS`).
THEORIES = ("naive", "tap", "atap", "tsite")


def _at(width: str, rule: Callable[[Mapping[str, Any]], str]) -> Callable[[Mapping[str, Any]], str]:
    def at_width(s: Mapping[str, Any]) -> str:
        return rule(s["fw"][width])   # a KeyError (the study not stored) reads "cannot decide"
    return at_width


def width_alternatives(rule: Callable[[Mapping[str, Any]], str], what: str) -> tuple[Alternative, ...]:
    """The claim's own ``rule`` (numbers -> grade) at each other stored width of the fields, one declared reading
    each; ``what`` names what the rule compares (for the alternative's name)."""
    if not callable(rule):
        raise TypeError(f"rule must be callable (numbers -> grade); got {type(rule).__name__}")
    if not isinstance(what, str) or not what.strip():
        raise ValueError(f"what must be a non-empty string naming the comparison; got {what!r}")
    return tuple(Alternative(f"reading: the fields' width σ_h = {w} in place of the chapter's 0.3 (the same 40 "
                             f"instances at β = 0.5; {what}, the same rule)", "reading", _at(w, rule)) for w in WIDTHS)


def width_text(s: Mapping[str, Any], better: str, worse: str, which: str = "m") -> str:
    """One sentence: the ratio of the mean errors ``better``/``worse`` (of ``which``: "m" or "c"; ``worse`` may be
    ``"rms_c_exact"``, the error of C = 0) at each stored width, with the mean |m_i|; "" where the study is not
    stored. A width's ``mean_abs_m`` missing is a KeyError naming it (a study written before it: the verdicts read
    not tested); an error stored as text, or ``s["fw"]`` of another kind, a TypeError; an error that is NaN, infinite
    or below 0, or a ``mean_abs_m`` outside [0, 1], a ValueError naming it."""
    if not isinstance(s, Mapping):
        raise TypeError(f"s must be a mapping (the claim's numbers); got {type(s).__name__}")
    if which not in ("m", "c"):
        raise ValueError(f"which must be 'm' or 'c'; got {which!r}")
    if better not in THEORIES:
        raise ValueError(f"better must be one of {THEORIES} (a theory's key); got {better!r}")
    if worse not in (*THEORIES, "rms_c_exact"):
        raise ValueError(f"worse must be one of {THEORIES} or 'rms_c_exact' (the error of C = 0); got {worse!r}")
    widths = s.get("fw") or {}
    if not isinstance(widths, Mapping) or not all(isinstance(row, Mapping) for row in widths.values()):
        raise TypeError(f"s['fw'] must be a mapping of width -> the numbers at that width (stored_numbers' 'fw'); got "
                        f"{widths!r}"[:200])
    for w in widths:
        try:
            ok = isinstance(w, str) and math.isfinite(float(w)) and float(w) > 0
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"s['fw'] must map widths of the fields (σ_h as text, a finite number > 0, e.g. '0.1') "
                             f"to their numbers; got the key {w!r}"[:200])
    parts = []
    for w in sorted(widths, key=float):
        row = widths[w]
        b = row.get(f"{better}_{which}")
        d = row.get(worse if worse == "rms_c_exact" else f"{worse}_{which}")
        for key, value in ((f"{better}_{which}", b), (worse if worse == "rms_c_exact" else f"{worse}_{which}", d)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
                raise TypeError(f"s['fw'][{w!r}][{key!r}] must be a mean error (a number) or None; got {value!r}"[:200])
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ValueError(f"s['fw'][{w!r}][{key!r}] must be a mean error (a finite number >= 0) or None; got "
                                 f"{value!r}"[:200])
        if b is None or not d:
            parts.append(f"σ_h = {w}: not solved")
        else:
            mean_abs = row["mean_abs_m"]
            if isinstance(mean_abs, bool) or not isinstance(mean_abs, numbers.Real) or not 0 <= mean_abs <= 1:
                raise ValueError(f"s['fw'][{w!r}]['mean_abs_m'] must be a mean |m_i| (a number in [0, 1]); got "
                                 f"{mean_abs!r}"[:200])
            parts.append(f"σ_h = {w} (mean |m_i| {mean_abs:.2f}): {b / d:.3f}")
    return (" The same ratio at other widths of the fields (declared readings; the chapter's is 0.3): "
            + "; ".join(parts) + ".") if parts else ""


def with_widths(note: Callable[[Mapping[str, Any]], str], better: str, worse: str,
                which: str = "m") -> Callable[[Mapping[str, Any]], str]:
    """A claim's ``note`` (numbers -> text) followed by :func:`width_text` of the same comparison."""
    if not callable(note):
        raise TypeError(f"note must be callable (numbers -> text); got {type(note).__name__}")
    width_text({}, better, worse, which)   # the comparison's names checked now, not when the ledger is written

    def noted(s: Mapping[str, Any]) -> str:
        text = note(s)
        if not isinstance(text, str):
            raise TypeError(f"note must return text (numbers -> str); got {type(text).__name__}")
        return text + width_text(s, better, worse, which)
    return noted


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
