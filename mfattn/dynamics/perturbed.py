"""Which attractors a start reaches when only its last bits change.

Near the breakup of the torus several attractors coexist at one β (an invariant circle, an island chain
around a locked cycle, a long periodic orbit, chaos). Which one a single run reaches can then depend on
the rounding of its sums: an independent implementation of the same map, from the same context, can
land elsewhere. A verdict about "the attractor at β" must therefore rest on the set of attractors that
starts indistinguishable in floating point reach, with how often each is reached.

:func:`last_bit_starts` makes ``n`` copies of one context, copy 0 unchanged and copy ``k`` with every
entry ``x`` replaced by ``x·(1 + u·2⁻⁵²)``, ``u`` a random integer in ``[−ulps, ulps]`` (a change of a few
units in the last place, the size of a different order of summation). :func:`attractor_census` runs
them all at each β (one batched :func:`mfattn.dynamics.engine.simulate`) and groups the orbits reached
into attractors with :func:`mfattn.dynamics.basins.same_attractor`, recording per start its period, λ_max,
island count (:func:`mfattn.dynamics.diagnostics.island_count`) and, given the diagram's scale, the
paper's bin count of ``m^o_1``.
"""

from __future__ import annotations

from collections import Counter

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ..companion.checks import check_grid, check_int, check_real, contract
from .basins import same_attractor
from .diagnostics import bin_counts, island_count, orbit_period, stroboscopic_section
from .engine import simulate
from .model import MeanFieldModel, paper_model

__all__ = ["last_bit_starts", "attractor_census", "census_rows", "attractor_kind", "CensusAttractor"]

#: Entries of a context that the map reads (the rest of a stored file is ignored).
_CONTEXT_KEYS = ("mv_window", "mk_window", "mq_window", "att_window")


def _context_size(context: Any) -> int:
    return sum(int(np.size(v)) for v in context.values()) if isinstance(context, Mapping) else 0


@contract(n="int:1", seed="int:0", ulps="int:1", alloc=lambda a: [("n", 16 * a["n"] * max(1, _context_size(a["context"])))])
def last_bit_starts(context: Mapping[str, Any], n: int, seed: int = 0, ulps: int = 4) -> dict[str, np.ndarray]:
    """``n`` copies of an unbatched ``context`` (keys ``mv_window (L, M)``, ``mk_window (L, M)``,
    ``att_window (M,)``, optionally ``mq_window (M,)``), batched on a leading axis: copy 0 is the context
    itself, copy k ≥ 1 has each entry multiplied by ``1 + u·2⁻⁵²`` with ``u`` uniform on the integers of
    ``[−ulps, ulps]`` (drawn from ``seed``). Returns the batched context, float64."""
    if not isinstance(context, Mapping):
        raise TypeError(f"context must be a mapping of arrays (mv_window, mk_window, att_window); "
                        f"got {type(context).__name__}")
    missing = {"mv_window", "mk_window", "att_window"} - set(context)
    if missing:
        raise ValueError(f"context lacks {sorted(missing)}")
    rng = np.random.default_rng(seed)
    out = {}
    for key in _CONTEXT_KEYS:
        if key not in context:
            continue
        x = np.asarray(context[key], dtype=np.float64)
        if x.ndim not in (1, 2) or (key.endswith("window") and key[:2] in ("mv", "mk") and x.ndim != 2):
            raise ValueError(f"context[{key!r}] must be unbatched ((L, M) or (M,)); got shape {x.shape}")
        if not np.isfinite(x).all():
            raise ValueError(f"context[{key!r}] contains NaN or inf")
        u = rng.integers(-ulps, ulps + 1, size=(n,) + x.shape)
        u[0] = 0
        out[key] = x[None] * (1.0 + u * np.finfo(np.float64).eps)
    return out


@dataclass
class CensusAttractor:
    """One attractor reached at one β: its period (0 = none), the starts that reach it (indices into the
    batch of :func:`last_bit_starts`; start 0 is the unperturbed context), and per start λ_max, island count
    and the paper's bin count (None without a scale)."""

    beta: float
    period: int
    starts: list[int]
    lyapunov: list[float]
    islands: list[int]
    bins: list[int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self._check()

    def _check(self) -> None:
        """One entry of ``lyapunov``, ``islands`` (and ``bins``) per start, each start an index of the batch; else a
        ValueError naming the field (cheap: lists of a few dozen numbers)."""
        check_real("beta", self.beta, minimum=0.0)
        check_int("period", self.period, 0)
        if not isinstance(self.extra, Mapping):
            raise TypeError(f"extra must be a dict; got {type(self.extra).__name__}")
        n = self.extra.get("n_starts")
        if n is not None:
            check_int("extra['n_starts']", n, 1)
        for name in ("starts", "lyapunov", "islands", "bins"):
            value = getattr(self, name)
            if value is None and name == "bins":
                continue
            if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
                raise TypeError(f"{name} must be a list (one entry per start); got {type(value).__name__}")
            if name != "starts" and len(value) != len(self.starts):
                raise ValueError(f"{name} must hold one entry per start ({len(self.starts)}); got {len(value)}")
        if len(self.starts) == 0:
            raise ValueError("starts must name at least one start")
        for i, (s, lam, q) in enumerate(zip(self.starts, self.lyapunov, self.islands)):
            check_int(f"starts[{i}]", s, 0, None if n is None else n - 1)
            check_real(f"lyapunov[{i}]", lam)
            check_int(f"islands[{i}]", q, 1)
        if len(set(int(s) for s in self.starts)) != len(self.starts):
            raise ValueError(f"starts must not repeat a start; got {list(self.starts)}"[:200])
        for i, c in enumerate(self.bins or ()):
            check_int(f"bins[{i}]", c, 1)

    @property
    def fraction(self) -> float:
        return len(self.starts) / max(1, self.extra.get("n_starts", len(self.starts)))


@contract(betas="reals", n_starts="int:1", steps="int:1", transient="int:0", seed="int:0", ulps="int:1",
          points="int:1", tol="real:>0", max_y="real:>0?", max_period="int:1",
          alloc=lambda a: [("n_starts", 8 * 16 * 64 * a["n_starts"] * np.size(a["betas"])),
                           # a transient past steps is refused by name in the body, not as negative bytes here
                           ("steps", 8 * 16 * max(a["steps"] - a["transient"], 0) * a["n_starts"]
                            * np.size(a["betas"]))])
def attractor_census(betas, context: Mapping[str, Any], n_starts: int = 32, steps: int = 120_000,
                     transient: int = 100_000, *, seed: int = 0, ulps: int = 4, points: int = 400, tol: float = 0.02,
                     max_y: float | None = None, max_period: int = 500, model: MeanFieldModel | None = None,
                     backend: str = "numpy", device=None) -> list[list[CensusAttractor]]:
    """The attractors reached at each β from ``n_starts`` last-bit copies of ``context`` (see the module doc).

    One batched run of ``len(betas) × n_starts`` orbits of ``steps`` steps (``transient`` discarded; λ_max over
    the saved steps). Each orbit's period is searched over its saved steps (up to ``max_period``, tolerance
    1e-9 as the chapter's diagrams); its stroboscopic section (phase 0, the last ``points`` points) is what
    :func:`mfattn.dynamics.basins.same_attractor` compares (within ``tol``) and what
    :func:`mfattn.dynamics.diagnostics.island_count` splits. Returns one list per β, most-reached first.
    """
    b = check_grid("betas", betas, minimum=0.0)
    check_int("points", points, 64)
    check_real("tol", tol, minimum=0.0, strict=True)
    model = model or paper_model()
    L = model.context_size
    if steps - transient < points * L:
        raise ValueError(f"steps - transient must hold at least points × L = {points * L} steps; "
                         f"got {steps - transient}")
    starts = last_bit_starts(context, n_starts, seed, ulps)
    grid = np.repeat(b, n_starts)
    tiled = {k: np.tile(v, (b.size,) + (1,) * (v.ndim - 1)) for k, v in starts.items()}
    res = simulate(grid, steps, transient, tiled, model=model, backend=backend, device=device, lyapunov=True)
    period = orbit_period(res.m_o, max_period=max_period)
    section = stroboscopic_section(res.m_o, L, 0, transient)[:, -points:]
    counts = bin_counts(res.m_o[:, :, 0], max_y) if max_y is not None else None
    out = []
    for i, beta in enumerate(b):
        idx = list(range(i * n_starts, (i + 1) * n_starts))
        groups: list[list[int]] = []
        for j in idx:
            for g in groups:
                if same_attractor(section[j], section[g[0]], int(period[j]), int(period[g[0]]), tol):
                    g.append(j)
                    break
            else:
                groups.append([j])
        found = [CensusAttractor(float(beta), int(period[g[0]]), [j - idx[0] for j in g],
                                 [float(res.lyapunov[j]) for j in g],
                                 [island_count(section[j]) if period[j] == 0 else int(period[j]) for j in g],
                                 [int(counts[j]) for j in g] if counts is not None else None,
                                 {"n_starts": n_starts})
                 for g in groups]
        out.append(sorted(found, key=lambda a: (-len(a.starts), a.starts[0])))
    return out


def _check_found(i: int, found) -> None:
    """The attractors of one β of a census: one β, one ``n_starts``, each start reaching one attractor and every
    start an index below ``n_starts`` (without it, below the number of starts listed); else a ValueError naming
    ``census[i]``."""
    if not found:
        return
    if len({float(a.beta) for a in found}) != 1:
        raise ValueError(f"census[{i}] must hold the attractors of one β; got the betas "
                         f"{sorted({float(a.beta) for a in found})[:6]}")
    counts = {a.extra.get("n_starts") for a in found}
    if len(counts) != 1:
        raise ValueError(f"census[{i}]'s attractors must agree on extra['n_starts'] (the starts run at that β); got "
                         f"{sorted(counts, key=repr)[:6]}")
    starts = [int(s) for a in found for s in a.starts]
    if len(set(starts)) != len(starts):
        raise ValueError(f"census[{i}] must not list a start under two attractors (each start reaches one); got "
                         f"the starts {sorted(starts)[:12]}")
    n = counts.pop()
    n = len(starts) if n is None else int(n)
    if max(starts) >= n:
        raise ValueError(f"census[{i}]'s starts must be indices below n_starts = {n} (extra['n_starts'], else the "
                         f"number of starts listed); got the start {max(starts)}")


def _most_common(values) -> int:
    """The most common of the counts ``values`` (the smallest of those tied), as ``np.bincount(values).argmax()``
    without an array as long as the largest count."""
    tally = Counter(int(v) for v in values)
    return min(tally, key=lambda v: (-tally[v], v))


def census_rows(census: list[list[CensusAttractor]]) -> list[dict[str, Any]]:
    """The census as JSON rows, one per β: ``{"beta", "n_starts", "attractors": [{"period", "starts",
    "share", "start0", "lyapunov" [min, max], "islands" (the most common count), "bins" [min, max] or None}]}``
    (``start0``: whether the unperturbed context reaches it)."""
    if isinstance(census, (str, bytes)) or not isinstance(census, (list, tuple)) or not all(
            isinstance(found, (list, tuple)) and all(isinstance(a, CensusAttractor) for a in found) for found in census):
        raise TypeError(f"census must be attractor_census's result (a list, per β, of lists of CensusAttractor); "
                        f"got {type(census).__name__}")
    for i, found in enumerate(census):   # fields changed since construction are checked again
        for a in found:
            a._check()
        _check_found(i, found)
    rows = []
    for found in census:
        if not found:
            continue
        n = found[0].extra.get("n_starts", sum(len(a.starts) for a in found))
        rows.append({"beta": found[0].beta, "n_starts": int(n), "attractors": [
            {"period": a.period, "starts": len(a.starts), "share": len(a.starts) / n, "start0": 0 in a.starts,
             "lyapunov": [min(a.lyapunov), max(a.lyapunov)],
             "islands": _most_common(a.islands),
             "bins": [min(a.bins), max(a.bins)] if a.bins is not None else None} for a in found]})
    return rows


@contract(row="mapping:period|lyapunov|islands", chaotic_above="real:>=0")
def attractor_kind(row: Mapping[str, Any], chaotic_above: float = 1e-3) -> str:
    """A census row's attractor in words: ``period p``, ``chaotic`` (no period, λ_max above ``chaotic_above``
    from every start), ``island chain of q`` (no period, the section splits into q > 1 pieces visited in turn)
    or ``closed curve``."""
    check_int("row['period']", row["period"], 0)
    check_int("row['islands']", row["islands"], 1)
    lam = row["lyapunov"]
    if isinstance(lam, (str, bytes)) or not hasattr(lam, "__len__"):
        raise TypeError(f"row['lyapunov'] must be a sequence of λ_max (census_rows' [min, max]); "
                        f"got {type(lam).__name__}")
    check_grid("row['lyapunov']", lam)   # non-empty, finite reals
    if row["period"]:
        return f"period {row['period']}"
    if min(row["lyapunov"]) > chaotic_above:
        return "chaotic"
    return f"island chain of {row['islands']}" if row["islands"] > 1 else "closed curve"
