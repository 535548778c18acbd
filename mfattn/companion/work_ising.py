"""The declared work of chapter 1's loops (:mod:`mfattn.ising`, :mod:`mfattn.ising_exact`, :mod:`mfattn.ising_vector`
and the studies of :mod:`mfattn.meanfield`): every mean-field solve counted at its full iteration budget (n² coupling
products an iteration, n³ where it inverts a matrix), and 2^n n² per exact enumeration of n spins. Merged into
:data:`mfattn.companion.work.WORK`."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from .work_units import MIN_UNITS_PER_ITERATION, Entry, _count, _NotCountable, _show, _size

_M = "mfattn.meanfield."

def _spins(J: Any) -> int:
    """The number of sites of couplings ``J`` ((n, n) or (n, n, d, d)): an array, a tensor or a nested list."""
    shape = np.shape(J)
    if not shape:
        raise _NotCountable
    return int(shape[0])


def _solve_units(method: str, n: int, max_iter: int | float) -> int | float:
    """One mean-field solve of :mod:`mfattn.ising` on ``n`` spins: ``max_iter`` iterations of n² coupling products
    (adaptive TAP inverts an n × n matrix each iteration: n³), each at least :data:`MIN_UNITS_PER_ITERATION`, then
    the susceptibility (two eigendecompositions and an inverse, 3 n³). ``max_iter`` may be inf (a damping of 5e-324)."""
    per = n ** 3 if method == "adaptive_tap" else n * n
    return max_iter * max(per, MIN_UNITS_PER_ITERATION) + 3 * max(n ** 3, MIN_UNITS_PER_ITERATION)


def _mean_field(a: Mapping[str, Any], method: str) -> tuple[str, int, str]:
    max_iter = _count(a["max_iter"])
    return f"max_iter={_show(max_iter)}", _solve_units(method, _spins(a["J"]), max_iter), _MF


def _vector_units(nd: int, max_iter: int) -> int:
    """One vector adaptive TAP solve on ``nd`` = n·d coordinates: ``max_iter`` iterations of (nd)² products, then
    the precision's eigendecomposition and two inverses ((nd)³ each) before the loop."""
    return max_iter * max(nd * nd, MIN_UNITS_PER_ITERATION) + 3 * max(nd ** 3, MIN_UNITS_PER_ITERATION)


def _vector_check(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """``trials`` + 1 vector solves at :func:`mfattn.ising.gaussian_vector_tap`'s default ``max_iter``, and the
    model's draw and closed form ((nd)³ each)."""
    import inspect

    from mfattn.ising import gaussian_vector_tap

    n, d, trials = _count(a["n"]), _count(a["d"]), _count(a["trials"])
    inner = inspect.signature(gaussian_vector_tap).parameters["max_iter"].default
    units = (trials + 1) * _vector_units(n * d, inner) + 3 * max((n * d) ** 3, MIN_UNITS_PER_ITERATION)
    label, value = max({"trials": trials, "n": n, "d": d}.items(), key=lambda item: item[1])
    return f"{label}={_show(value)}", units, "coordinate products (trials + 1 solves × max_iter × (n d)²)"


def _methods(value: Any) -> list[str]:
    """Chapter 1's theories named by ``methods`` (strings); anything else is the body's to refuse."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise _NotCountable
    names = list(value)
    if not names or not all(isinstance(m, str) for m in names):
        raise _NotCountable
    return names


def _iterations(budget: int, damping: Any) -> int | float:
    """``ceil(budget / damping)``, the iterations :func:`mfattn.meanfield.accuracy.damping_sweep` gives a damping
    (inf when the quotient overflows: 5e-324); a damping outside (0, 1] is the body's to refuse."""
    if isinstance(damping, (bool, np.timedelta64)) or not isinstance(damping, (int, float, np.integer, np.floating)):
        raise _NotCountable
    damping = float(damping)
    if not 0.0 < damping <= 1.0:
        raise _NotCountable
    quotient = budget / damping
    return math.ceil(quotient) if math.isfinite(quotient) else math.inf


def _named_by(words: str, units: int | float, counts: dict[str, int],
              damping: tuple[str, float | None] = ("", None)) -> tuple[str, int | float, str]:
    """``(name, units, words)`` named by the largest of ``counts``, or by the smallest damping (``(parameter,
    value)``) where its amplification of the iteration budget, 1 / damping, is larger still (``dampings=1e-300``)."""
    label, value = max(counts.items(), key=lambda item: item[1])
    parameter, smallest = damping
    if smallest is not None and 1.0 / smallest > value:
        return f"{parameter}={smallest!r}", units, words
    return f"{label}={_show(value)}", units, words


def _damping_sweep(a: Mapping[str, Any]) -> tuple[str, int | float, str]:
    """Every method on every instance, β and damping ``a`` for ``ceil(budget / a)`` iterations (no enumeration)."""
    n, instances, budget = _count(a["n"]), _count(a["instances"]), _count(a["budget"])
    dampings = list(np.ravel(np.asarray(a["dampings"], dtype=object)))
    betas = np.size(a["betas"])
    units = instances * betas * sum(_solve_units(m, n, _iterations(budget, d))
                                    for m in _methods(a["methods"]) for d in dampings)
    smallest = min(float(d) for d in dampings) if dampings else None
    return _named_by(_MF_SWEEP, units, {"instances": instances, "budget": budget, "n": n}, ("dampings", smallest))


def _enumeration(n: int) -> int:
    """One exact pass over the 2^n states of n spins (n² products per state); more than
    :data:`mfattn.ising.MAX_EXACT_SPINS` spins is the body's to refuse."""
    from mfattn.ising import MAX_EXACT_SPINS

    if n > MAX_EXACT_SPINS:
        raise _NotCountable
    return 2 ** n * n * n


def _exact(a: Mapping[str, Any], couplings: str, betas: int) -> tuple[str, int, str]:
    """:func:`mfattn.ising.exact_marginals_sweep`'s pass over the 2^n states in chunks of ``chunk``: ceil(2^n /
    chunk) iterations, each of (states in the chunk) × n² × (grid points) products (the correlations' accumulation
    for every β), at least :data:`MIN_UNITS_PER_ITERATION` each (a chunk of one state is all Python overhead). Named
    by ``chunk`` where the chunks are that small, else by the β grid, else by ``n``."""
    n, chunk = _spins(a[couplings]), _count(a["chunk"])
    if chunk < 1 or n < 1:   # the body refuses them, in its words
        raise _NotCountable
    states = _enumeration(n) // (n * n)
    loop, per = -(-states // chunk), min(chunk, states) * n * n * betas
    name = (f"chunk={_show(chunk)}" if per < MIN_UNITS_PER_ITERATION and loop > 1 else
            f"len(betas)={_show(betas)}" if betas > 1 else f"n={n}")
    return name, loop * max(per, MIN_UNITS_PER_ITERATION), "state-coupling products (2^n states × n² × betas)"


def _line_by_size(a: Mapping[str, Any]) -> tuple[str, int | float, str]:
    """Per size: damping_sweep's three theories at one damping, and one exact pass per instance for the β grid."""
    ns = [_count(n) for n in a["ns"]]
    instances, budget, betas = _count(a["instances"]), _count(a["budget"]), np.size(a["betas"])
    iterations = _iterations(budget, a["damping"])
    units = sum(instances * (betas * sum(_solve_units(m, n, iterations) for m in ("naive", "tap", "adaptive_tap"))
                             + _enumeration(n)) for n in ns)
    return _named_by(_MF_SWEEP + " and exact passes (instances × 2^n n²)", units,
                     {"instances": instances, "budget": budget, "ns": max(ns, default=0)},
                     ("damping", float(a["damping"])))


def _families(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """Per family and instance, and as many SK instances at the family's strength: one exact pass and each theory."""
    n, instances, max_iter = _count(a["n"]), _count(a["instances"]), _count(a["max_iter"])
    families = a["families"]
    if isinstance(families, (str, bytes)) or not hasattr(families, "__len__"):
        raise _NotCountable
    per = _enumeration(n) + sum(_solve_units(m, n, max_iter) for m in _methods(a["methods"]))
    return _named_by("coupling products and states (2 × families × instances × (2^n n² + the solves))",
                     2 * len(families) * instances * per, {"instances": instances, "max_iter": max_iter, "n": n})


def _stress(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """A stuck and a kicked run of each theory per instance and β (and the kick's eigendecomposition, n³)."""
    n, instances, max_iter = _count(a["n"]), _count(a["instances"]), _count(a["max_iter"])
    betas = a["betas"]
    if isinstance(betas, (str, bytes)) or not hasattr(betas, "__len__"):
        raise _NotCountable
    per = sum(2 * _solve_units(m, n, max_iter) + max(n ** 3, MIN_UNITS_PER_ITERATION) for m in _methods(a["methods"]))
    return _named_by("coupling products (2 runs × methods × betas × instances × max_iter × n², n³ for adaptive TAP)",
                     instances * len(betas) * per, {"instances": instances, "max_iter": max_iter, "n": n})


_MF = "coupling products (max_iter × n², n³ for adaptive TAP's inverse, and 3 n³ for the susceptibility)"
_MF_SWEEP = "coupling products (methods × dampings × betas × instances × ceil(budget / damping) × n² or n³)"


#: Chapter 1's entries of :data:`mfattn.companion.work.WORK`.
ISING_WORK: dict[str, Entry] = {
    "mfattn.ising_exact:exact_marginals": Entry("chunk", lambda a: _exact(a, "J", 1)),
    "mfattn.ising_exact:exact_marginals_sweep": Entry("chunk", lambda a: _exact(a, "G", _size(a["betas"]))),
    "mfattn.ising:naive_mean_field": Entry("max_iter", lambda a: _mean_field(a, "naive")),
    "mfattn.ising:tap": Entry("max_iter", lambda a: _mean_field(a, "tap")),
    "mfattn.ising:adaptive_tap": Entry("max_iter", lambda a: _mean_field(a, "adaptive_tap")),
    "mfattn.ising_vector:gaussian_vector_tap": Entry("max_iter", lambda a: (
        f"max_iter={_show(_count(a['max_iter']))}",
        _vector_units(_spins(a["J"]) * int(np.shape(a["J"])[2]), _count(a["max_iter"])),
        "coordinate products (max_iter × (n d)², and 3 (n d)³ before the loop)")),
    "mfattn.ising_vector:gaussian_vector_check": Entry("trials", _vector_check),
    _M + "accuracy_damping:damping_sweep": Entry("budget", _damping_sweep),
    _M + "finite_size:line_by_size": Entry("budget", _line_by_size),
    _M + "families:compare_families": Entry("instances", _families),
    _M + "stress:breakdown_stress": Entry("instances", _stress),
}
