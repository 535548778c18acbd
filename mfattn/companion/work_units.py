"""The counting primitives of :mod:`mfattn.companion.work`: how an argument is read as a count, and how a loop's
iterations, their per-iteration work and their measured Python overhead (floors) make a declared work
``(name, units, words)``. Units are ~¼-1 ns of the package's loops (see :mod:`mfattn.companion.work`)."""

from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple


class Entry(NamedTuple):
    """A registry entry: the ``parameter`` that sets the loop's count, and ``work(arguments) -> (name, units,
    words)`` of the bound arguments (defaults applied)."""

    parameter: str
    work: Callable[[Mapping[str, Any]], tuple[str, int, str]]


_ENTRY_NEW = Entry.__new__


def _checked_entry(cls, parameter: Any, work: Any) -> Entry:
    """Entry(...) checks its fields: ``parameter`` a parameter's name (an identifier), ``work`` a function."""
    if not isinstance(parameter, str) or not str.__str__(parameter).isidentifier():
        raise ValueError(f"Entry.parameter must name a parameter (an identifier); got {parameter!r:.60}")
    if not callable(work):
        raise TypeError(f"Entry.work must be a function of the bound arguments; got {type(work).__name__}")
    return _ENTRY_NEW(cls, str.__str__(parameter), work)


Entry.__new__ = staticmethod(_checked_entry)


class _NotCountable(Exception):
    """An argument the work cannot be read off (a wrong type): the body's own checks speak for it."""


def _count(value: Any) -> int:
    """An integer count (not a bool); anything else is not countable here."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise _NotCountable
    return max(int(value.__index__()), 0)


def _size(value: Any) -> int:
    """Entries of a tensor, array, sequence or number (1 for a scalar)."""
    if hasattr(value, "numel"):
        return int(value.numel())
    if hasattr(value, "size") and not callable(value.size):
        return int(value.size)
    if isinstance(value, (str, bytes, Mapping)):
        raise _NotCountable
    if hasattr(value, "__len__"):
        return len(value)
    return 1


def _shape(value: Any, axis: int) -> int:
    return int(value.shape[axis])


def _show(value: int) -> str:
    """A count as written in a message: in full up to 10¹², then ``1e+15`` (however large: no OverflowError)."""
    if value < 10**12:
        return str(value)
    digits = str(value)
    return f"{int(digits[:3]) / 100:.3g}e+{len(digits) - 1}"


#: The least work one iteration of a loop counts for, whatever its size: its Python and dispatch overhead. A unit is
#: about a nanosecond of the package's vectorised loops (an n² or n³ product of float64 entries), and one iteration
#: of a loop on a tiny state costs tens of microseconds (measured single-threaded on 2 spins or one β: naive mean field
#: 6.6 µs, TAP 12.5 µs, adaptive TAP 25 µs, a Sinkhorn iteration 42 µs, a step of the mean-field map 40 µs), so one
#: iteration counts for at least 50,000 units: ``iters=10**12`` on a 2 × 2 matrix is refused, and so is a count that
#: would keep a tiny loop busy for minutes.
MIN_UNITS_PER_ITERATION = 50_000

#: Units per β-step of chapter 6's mean-field map (one grid point advanced by one step): 120-550 ns measured
#: single-threaded (1000 β × 500 steps: 143 ns per β-step; 100 β × 2000 steps: 556 ns), counted as 100.
BETA_STEP_UNITS = 100

#: The least work one step of a loop with a heavy Python body counts for: :func:`mfattn.dynamics.finite_n.simulate_network`
#: (per step: the explicit tokens' statistics, the attention over the context and the sampling of the next token) and
#: :func:`mfattn.dynamics.lyapunov.lyapunov_spectrum` (per step: the map, its tangent flow and a QR). Measured
#: single-threaded on tiny states (one β, N = 1 or 99 semantic units; k = 1 or 12 tangent vectors): 30-38 µs per
#: network step, 50-70 µs per spectrum step, up to 75 µs on a loaded machine, so with
#: :data:`MIN_UNITS_PER_ITERATION` (50,000) a call at the 1e10 budget ran 200,000 steps, 9-14 s. Counted as 250,000
#: units: the budget admits at most 40,000 such steps, 1.2-3 s.
PYTHON_STEP_UNITS = 250_000


def _named(words: str, loop: int, per: int, counts: dict[str, int]) -> tuple[str, int, str]:
    """``(name, units, words)``: ``loop`` iterations of ``per`` units each (at least :data:`MIN_UNITS_PER_ITERATION`),
    named by the largest of the parameters' ``counts`` (the one a hostile call has made huge) as ``param=value``."""
    label, value = max(counts.items(), key=lambda item: item[1])
    return f"{label}={_show(value)}", loop * max(per, MIN_UNITS_PER_ITERATION), words


def _work(words: str, per: int = 1, **factors: int) -> tuple[str, int, str]:
    """The first of ``factors`` is the loop's count; the others and ``per`` make the work of one iteration."""
    (_, loop), *rest = factors.items()
    for _, value in rest:
        per *= value
    return _named(words, loop, per, factors)


def _sum_of(a: Mapping[str, Any], loops: tuple[str, ...], words: str, per: int = 1, **factors: int):
    """Loops run one after the other (``loops``, counts summed), each iteration ``per`` × ``factors`` units."""
    counts = {p: _count(a[p]) for p in loops}
    for value in factors.values():
        per *= value
    return _named(words, sum(counts.values()), per, {**counts, **factors})


def _floored(words: str, loop: int, per: int, floor: int, counts: dict[str, int]) -> tuple[str, int, str]:
    """``loop`` iterations of ``per`` units each, each at least ``floor`` (its measured Python overhead), named by
    the largest of ``counts``."""
    name, _, words = _named(words, 0, per, counts)
    return name, loop * max(per, floor), words


def _python_steps(words: str, steps: int, per: int, counts: dict[str, int]) -> tuple[str, int, str]:
    """``steps`` iterations of ``per`` units each, each at least :data:`PYTHON_STEP_UNITS` (a heavy Python body),
    named by the largest of ``counts``."""
    name, _, words = _named(words, 0, per, counts)
    return name, steps * max(per, PYTHON_STEP_UNITS), words
