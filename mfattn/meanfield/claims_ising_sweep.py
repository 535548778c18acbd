"""The damping sweep's stored numbers as chapter 1's line rules and notes read them (:mod:`.claims_ising_plefka`,
:mod:`.claims_ising_sizes`): one row per sweep β, one entry per instance, each entry an error or a Plefka parameter
(None where not solved, else a finite number >= 0). A table whose shape no longer pairs the β and the instances, or
an entry infinite, NaN or below 0, is :class:`~mfattn.companion.verdicts.Undecidable` naming its key: a count or a
ratio read off it would be no measurement."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..companion import verdicts

__all__ = ["SWEPT"]

#: The theories whose damping sweep is stored per instance (``<k>_strong_inst``, ``<k>_at_strong_inst``).
SWEPT = ("naive", "tap", "atap", "tsite")


def _entry(key: str, where: str, v, holds: str = "the sweep stores errors and Plefka parameters, finite numbers "
                                                   ">= 0") -> None:
    """One stored entry of the sweep (an error or an own x): None, or a finite number >= 0; else a TypeError or
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key and the entry (``holds``: what the key stores)."""
    if v is None:
        return
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise TypeError(f"s[{key!r}]{where} must be a number or None; got {v!r}"[:200])
    if not math.isfinite(v) or v < 0:
        raise verdicts.Undecidable(f"s[{key!r}]{where} is {v!r}: {holds} (None where not solved)")


def _table(s, keys, rows: int | None = None, width: int | None = None) -> tuple[int, int]:
    """Check the per-instance tables ``s[k]`` for ``k`` in ``keys`` (one row per sweep β, one entry per instance):
    lists of lists of one shape (``rows`` × ``width`` where given), each entry None or a finite number >= 0.
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key where a table is empty or its shape differs (its
    rows no longer pair the β, or its entries the instances); returns the shape."""
    for key in keys:
        table = s[key]
        if isinstance(table, (str, bytes)) or not isinstance(table, (list, tuple)) or not all(
                isinstance(row, (list, tuple)) for row in table):
            raise TypeError(f"s[{key!r}] must be a list of rows (one per sweep β) of per-instance numbers; got "
                            f"{table!r}"[:200])
        if not table or not table[0]:
            raise verdicts.Undecidable(f"s[{key!r}] is empty: no sweep β or no instances stored")
        rows = len(table) if rows is None else rows
        width = len(table[0]) if width is None else width
        if len(table) != rows or any(len(row) != width for row in table):
            raise verdicts.Undecidable(f"s[{key!r}] has {len(table)} rows of {sorted({len(r) for r in table})} "
                                       f"entries; the sweep's other numbers pair {rows} β (damping_betas) with {width} instances")
        for j, row in enumerate(table):
            for i, v in enumerate(row):
                _entry(key, f"[{j}][{i}]", v)
    return rows, width


def _sweep(s, tables, lines=()) -> None:
    """The damping sweep as :func:`baseline_note` reads it: ``damping_betas`` finite numbers >= 0, ``instances`` an
    integer >= 1, each of ``tables`` (:func:`_table`) ``len(damping_betas)`` rows of ``instances`` entries and each of
    ``lines`` (a theory's median own x per β) ``len(damping_betas)`` long; else a TypeError or
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key."""
    betas, n = s["damping_betas"], s["instances"]
    if isinstance(betas, (str, bytes)) or not isinstance(betas, (list, tuple)) or not betas:
        raise verdicts.Undecidable(f"s['damping_betas'] must be a non-empty list of β; got {betas!r}"[:200])
    for i, b in enumerate(betas):
        if b is None:
            raise verdicts.Undecidable(f"s['damping_betas'][{i}] is None: every sweep β is stored")
        _entry("damping_betas", f"[{i}]", b)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < 1:
        raise verdicts.Undecidable(f"s['instances'] must be a whole number >= 1; got {n!r}"[:200])
    _table(s, tables, len(betas), int(n))
    for key in lines:
        row = s[key]
        if isinstance(row, (str, bytes)) or not isinstance(row, (list, tuple)) or len(row) != len(betas):
            raise verdicts.Undecidable(f"s[{key!r}] must hold one entry per sweep β ({len(betas)}); got {row!r}"[:200])
        for i, v in enumerate(row):
            _entry(key, f"[{i}]", v)


def _crossing_tables(s, k) -> None:
    """The tables :func:`~.claims_ising_plefka.instance_crossings` reads for theory ``k`` (one of :data:`SWEPT`, else
    a TypeError or ValueError naming ``k``): its own x, its errors and naive mean field's, of one shape
    (:func:`_table`; ``len(damping_betas)`` rows where that is stored)."""
    if not isinstance(k, str) or k not in SWEPT:
        raise (TypeError if not isinstance(k, str) else ValueError)(
            f"k must be one of {', '.join(SWEPT)} (a theory of the damping sweep); got {k!r}"[:200])
    betas = s["damping_betas"] if "damping_betas" in s else None
    _table(s, (f"{k}_at_strong_inst", f"{k}_strong_inst", "naive_strong_inst"),
           len(betas) if isinstance(betas, (list, tuple)) else None)
