"""``ising-at-accuracy`` read at other numbers of spins (:mod:`.finite_size` stores them; :mod:`.claims` flattens
each size into ``size_scan[str(n)]`` under the names the n = 18 rules read): the rule of
:mod:`.claims_ising_plefka` applied at each size, a one-line reading per size for the chapter and the note, and the
alternative that decides the claim at every size."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..companion import verdicts
from ..companion.checks import contract
from .claims_ising_accuracy import NAMES
from .claims_ising_plefka import THEORIES, _at_at, _first_beyond, _lines, _own_x, _ratio
from .claims_ising_sweep import _sweep

__all__ = ["at_every_size", "size_rows"]

_WORDS = {"holds": "the advantage lost at the line", "fails": "against the claim: the advantage kept beyond the line, or lost before it",
          "partly": "lost by some theories, kept by others"}


def _scan(s) -> Mapping[str, Any]:
    """``s["size_scan"]`` (a KeyError where missing: numbers written before it) as :func:`~.finite_size.line_by_size`
    stores it: a mapping whose ``by_n`` maps each size to a mapping of its numbers; a wrong kind is a TypeError
    naming it (a number it lacks stays a KeyError: the verdicts read that as not tested)."""
    scan = s["size_scan"]
    if not isinstance(scan, Mapping):
        raise TypeError(f"s['size_scan'] must be a mapping (line_by_size's result); got {type(scan).__name__}")
    by_n = scan["by_n"]
    if not isinstance(by_n, Mapping) or not all(isinstance(per, Mapping) for per in by_n.values()):
        raise TypeError(f"s['size_scan']['by_n'] must be a mapping of size -> a mapping of its numbers; got "
                        f"{by_n!r}"[:200])
    return scan


def size_numbers(s, n: str) -> dict[str, Any]:
    """The numbers of size ``n`` in the form the n = 18 line rules read (``damping_betas``, ``instances``, per
    theory ``<k>_strong_inst``, ``<k>_at_strong_inst``, ``<k>_at_strong`` and naive mean field's errors). ``n`` is
    a stored size (a key of ``s["size_scan"]["by_n"]``, text), else a TypeError or ValueError naming it and those. The
    size's numbers must hang together (:func:`~.claims_ising_sweep._sweep`: each table one row per β of the scan and
    one entry per instance, each entry None or a finite number >= 0), else
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key; a number the scan lacks is a KeyError naming it
    (written before it: the verdicts read not tested)."""
    scan = _scan(s)
    if not isinstance(n, str):
        raise TypeError(f"n must be a stored size as text (a key of s['size_scan']['by_n'], e.g. '12'); got "
                        f"{type(n).__name__} {n!r}"[:200])
    if n not in scan["by_n"]:
        raise ValueError(f"n must be one of the stored sizes {', '.join(map(repr, scan['by_n']))}; got {n!r}"[:200])
    out = {"damping_betas": scan["betas"], "instances": scan["instances"], **scan["by_n"][n]}
    try:
        _sweep(out, [k for k in out if k.endswith("_strong_inst")], [k for k in out if k.endswith("_at_strong")])
    except (verdicts.Undecidable, TypeError) as err:   # named as the scan stores it (its β are 'betas')
        raise type(err)(f"s['size_scan'] at n = {n} (its 'betas' read as damping_betas): {err}") from None
    return out


def size_outcome(s, n: str) -> str:
    """The primary rule's outcome (factor 2, line x = 1, 90 % of instances) at size ``n``; 'undecidable: ...' when
    no theory crosses its own line there. ``n`` and the size's numbers are checked as :func:`size_numbers` checks
    them (a number out of kind is refused, not an outcome)."""
    numbers = size_numbers(s, n)   # numbers that do not hang together: refused here, not an outcome
    try:
        return _at_at(2.0, 1.0, 0.9)(numbers)
    except verdicts.Undecidable as err:
        return f"undecidable: {err}"


@contract(s="mapping")
def at_every_size(s) -> str:
    """Alternative rule: the primary rule at each stored size; its outcome where every size agrees, 'partly' where
    they differ, not tested where no size can be decided. A number a size lacks is a KeyError naming it (the
    verdicts: not tested)."""
    if "size_scan" not in s:
        raise verdicts.Undecidable("the stored summary has no size scan (written before it)")
    got = [size_outcome(s, n) for n in _scan(s)["by_n"]]
    decided = {g for g in got if not g.startswith("undecidable")}
    if not decided:
        raise verdicts.Undecidable("at no stored size does a theory cross its own line")
    return decided.pop() if len(decided) == 1 else "partly"


@contract(s="mapping:size_scan")
def size_rows(s) -> list[str]:
    """One sentence per stored size: each crossing theory's own line, its error over naive mean field's at the last
    sweep β before it and at the first beyond it, and the rule's outcome there. A number the scan lacks (its
    ``betas``, a size's errors) is a KeyError naming it (numbers written before it: the verdicts read not tested)."""
    rows = []
    for n in _scan(s)["by_n"]:
        t = size_numbers(s, n)
        try:
            lines = _lines(t, 1.0, THEORIES)
        except verdicts.Undecidable:
            rows.append(f"n = {n}: no theory crosses its own line on the grid")
            continue
        b, parts = t["damping_betas"], []
        for k, line in lines.items():
            i = _first_beyond(t, k, line, 0.9)
            before = max(j for j, x in enumerate(b) if x < line - 1e-9) if b[0] < line - 1e-9 else None
            own = _own_x(t, k)[i]
            parts.append(f"{NAMES[k]}'s line at β = {line:g} (x {own[0]:.2f} ± {own[1]:.2f}), error over naive's "
                         + (f"{_ratio(t, k, before)[0]:.2f} before it, " if before is not None else "")
                         + f"{_ratio(t, k, i)[0]:.2f} at β = {b[i]:g}")
        outcome = size_outcome(s, n)
        rows.append(f"n = {n}: " + "; ".join(parts) + f" (the rule: {_WORDS.get(outcome, outcome)})")
    return rows


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
