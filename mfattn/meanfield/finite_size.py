r"""Plefka's line at other sizes: the accuracy-on-either-side measurement of chapter 1 repeated at several numbers of
spins, so that ``ising-at-accuracy`` is not read at n = 18 alone.

For each ``n`` the SK instances of :func:`.accuracy.damping_sweep` (same seed, same construction) are solved at one
strong damping (0.05: a stable solution on nearly every instance) by each theory, and every stable solution is read
against exact enumeration (:func:`~mfattn.ising.exact_marginals_sweep`, one pass over the :math:`2^n` states for the
whole β grid). What is stored per size is what the line rules read at n = 18 (:mod:`.claims_ising_plefka`), under the
same names: per sweep β and instance the RMSE of m (``<theory>_strong_inst``) and Plefka's parameter
:math:`x = \beta^2\,\overline{(1 - m_i^2)^2}` of the theory's own solution (``<theory>_at_strong_inst``), None
where it has no stable solution; and per sweep β the median of that x (``<theory>_at_strong``).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Set as AbstractSet
from typing import Any, Sequence

import numpy as np

from ..companion.checks import check_alloc, check_int, check_real, contract
from ..ising import MAX_EXACT_SPINS, exact_marginals_sweep
from .accuracy import _disorder, _floats_or_none, _where_ok, damping_sweep, median_over_instances

__all__ = ["KEYS", "line_by_size", "table"]

#: The theories solved at each size: the key the line rules read, and the method's name.
KEYS = (("naive", "naive"), ("tap", "tap"), ("atap", "adaptive_tap"))


@contract()  # its loops' work (the sweeps and the exact passes) is checked first: mfattn.companion.work
def line_by_size(ns: Sequence[int], betas: Any, instances: int, damping: float = 0.05, budget: int = 1000,
                 field_std: float = 0.3, seed: int = 0) -> dict[str, Any]:
    """Per number of spins in ``ns``: the strongly damped solutions of naive mean field, TAP and adaptive TAP on
    ``instances`` SK instances at each of ``betas``, read against exact enumeration.

    Returns ``{"ns", "betas", "instances", "damping", "budget", "by_n": {str(n): {...}}}`` where each size holds
    ``<key>_strong_inst`` and ``<key>_at_strong_inst`` ([beta][instance], None where no stable solution) and
    ``<key>_at_strong`` ([beta], the median x over the converged solutions, as at n = 18; None where none), for the keys of
    :data:`KEYS`. The work grows as ``len(betas) · instances · 2^n`` (enumeration) plus the iterations."""
    if isinstance(ns, (str, bytes, Mapping, AbstractSet)) or not hasattr(ns, "__iter__"):   # a dict: its keys
        raise TypeError(f"ns must be a sequence of numbers of spins; got {type(ns).__name__}")
    ns = [check_int("ns", n, 2) for n in ns]
    if not ns:
        raise ValueError("ns must name at least one number of spins")
    twice = sorted({n for n in ns if ns.count(n) > 1})
    if twice:   # by_n is keyed by the size: a second run would overwrite the first
        raise ValueError(f"ns must name each number of spins once (the result is keyed by size); got {twice} more "
                         f"than once")
    too_big = [n for n in ns if n > MAX_EXACT_SPINS]
    if too_big:
        raise ValueError(f"ns: exact enumeration takes at most {MAX_EXACT_SPINS} spins; got {too_big}")
    try:
        ndim = np.ndim(betas)
    except ValueError:   # a ragged nesting
        ndim = None
    if ndim is None or ndim > 1:   # a number or a 1-d grid: never flattened
        raise ValueError(f"betas must be a number or a 1-d sequence of inverse temperatures; got "
                         f"{'a ragged nesting' if ndim is None else f'shape {np.shape(betas)}'}")
    betas = np.asarray([check_real("betas", b, minimum=0.0) for b in np.ravel(betas)])
    if betas.size == 0:
        raise ValueError("betas must name at least one inverse temperature")
    instances = check_int("instances", instances, 1)
    damping = check_real("damping", damping, minimum=0.0, maximum=1.0, strict=True)
    budget = check_int("budget", budget, 1, 10**6)   # iterations per solve: budget / damping
    check_alloc("ns", sum(1 << n for n in ns) * 8 * 4)  # a chunked pass; this bounds its largest state arrays
    out: dict[str, Any] = {"ns": ns, "betas": [float(b) for b in betas], "instances": instances,
                           "damping": float(damping), "budget": int(budget), "by_n": {}}
    methods = tuple(name for _, name in KEYS)
    for n in ns:
        sweep = damping_sweep(n, betas, instances, [damping], field_std=field_std, seed=seed, methods=methods,
                              budget=budget)
        # the same disorder damping_sweep drew: (G, h) per instance from the same seed
        exact = np.stack([exact_marginals_sweep(G, h, betas).m for G, h in _disorder(n, instances, field_std, seed)],
                         axis=1)                                                    # [beta, instance, n]
        per: dict[str, Any] = {}
        for k, (key, _) in enumerate(KEYS):
            ok = sweep.stable[k, 0]                                                 # [beta, instance]
            err = np.sqrt(np.mean((sweep.m[k, 0] - exact) ** 2, axis=-1))
            per[f"{key}_strong_inst"] = [_where_ok(err[b], ok[b]) for b in range(betas.size)]
            per[f"{key}_at_strong_inst"] = [_where_ok(sweep.at_parameter[k, 0, b], ok[b]) for b in range(betas.size)]
            # over the converged solutions, as the n = 18 summary's at_by_beta_strong
            per[f"{key}_at_strong"] = _floats_or_none(median_over_instances(sweep.at_parameter[k, 0]))
        out["by_n"][str(n)] = per
    return out


def _mean_ratio(per: dict[str, Any], key: str, b: int) -> float:
    """``key``'s mean RMSE of m over naive mean field's at sweep β index ``b``, on the instances both solved."""
    pairs = [(x, y) for x, y in zip(per[f"{key}_strong_inst"][b], per["naive_strong_inst"][b])
             if x is not None and y]
    return float(np.mean([x for x, _ in pairs]) / np.mean([y for _, y in pairs])) if pairs else float("nan")


def _check_result(result: Mapping[str, Any]) -> None:
    """``result`` as :func:`line_by_size` makes it: ``betas`` a sequence of numbers and ``by_n`` a mapping of sizes
    holding, per key of :data:`KEYS`, ``<key>_at_strong`` ([beta], a number or None) and ``<key>_strong_inst``
    ([beta][instance]); anything else refused naming the entry (TypeError: a wrong kind; ValueError: a missing
    number or a list of the wrong length)."""
    betas, by_n = result["betas"], result["by_n"]
    if isinstance(betas, (str, bytes, Mapping)) or not isinstance(betas, Sequence) or not all(
            isinstance(b, numbers.Real) and not isinstance(b, bool) for b in betas):
        raise TypeError(f"result['betas'] must be a sequence of inverse temperatures (numbers); got {betas!r}"[:200])
    if not isinstance(by_n, Mapping):
        raise TypeError(f"result['by_n'] must be a mapping of size -> its numbers; got {type(by_n).__name__}")
    for n, per in by_n.items():
        where = f"result['by_n'][{n!r}]"
        if not isinstance(per, Mapping):
            raise TypeError(f"{where} must be a mapping of the sizes' numbers (line_by_size's); got {type(per).__name__}")
        for key, _ in KEYS:
            for name, depth in ((f"{key}_at_strong", 1), (f"{key}_strong_inst", 2)):
                if name not in per:
                    raise ValueError(f"{where} lacks {name!r} (line_by_size stores it per size)")
                rows = per[name]
                if not isinstance(rows, Sequence) or isinstance(rows, (str, bytes)) or len(rows) != len(betas):
                    raise ValueError(f"{where}[{name!r}] must be a list of one entry per β ({len(betas)}); got "
                                     f"{rows!r}"[:200])
                for row in rows:
                    values = [row] if depth == 1 else row
                    if depth == 2 and (isinstance(row, (str, bytes)) or not isinstance(row, Sequence)):
                        raise TypeError(f"{where}[{name!r}] must hold a list per β (one entry per instance); got "
                                        f"{row!r}"[:200])
                    if any(v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)) for v in values):
                        raise TypeError(f"{where}[{name!r}] must hold numbers or None; got {row!r}"[:200])


@contract(result="mapping:betas|by_n")
def table(result: dict[str, Any]) -> str:
    """A Markdown table, one row per size: where TAP's and adaptive TAP's own median x first reach 1 (the β), and
    their errors over naive mean field's at the sweep β before that line and at it; adaptive TAP's largest median x is
    "none" where it has no converged solution at that size."""
    _check_result(result)
    betas = result["betas"]
    head = ("| n | TAP's own line β | TAP/naive before it | at it | adaptive TAP's line β | adaptive TAP/naive "
            "before it | at it | adaptive TAP's largest median x |\n|---|---|---|---|---|---|---|---|")
    rows = []
    for n, per in result["by_n"].items():
        cells = [n]
        for key in ("tap", "atap"):
            hit = [b for b, x in enumerate(per[f"{key}_at_strong"]) if x is not None and x >= 1.0]
            if not hit:
                cells += ["none", "", ""]
                continue
            i = hit[0]
            cells += [f"{betas[i]:g}", f"{_mean_ratio(per, key, i - 1):.2f}" if i else "", f"{_mean_ratio(per, key, i):.2f}"]
        medians = [x for x in per["atap_at_strong"] if x is not None]
        cells.append(f"{max(medians):.2f}" if medians else "none")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join([head, *rows])
