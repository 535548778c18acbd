"""The work budgets of the computing functions' loops, declared here, outside the computing modules.

A loop's length is set by an argument (``steps``, ``iters``, ``max_iter``): ``simulate(betas, steps=10**15)`` passes
every type check and then runs until it is killed. :data:`WORK` maps a computing function, by its qualified name
(``"mfattn.dynamics.engine:simulate"``), to a function of its bound arguments (defaults applied) that returns the
work the call would do: ``(name, units, words)``, ``name`` the parameter that sets most of it as ``steps=...``,
``units`` the count and ``words`` what is counted. :func:`mfattn.companion.checks.contract` looks the wrapped
function up here at call time (:func:`check_call_work`), after its argument rules and before its buffers and body,
so a call asking for more than :func:`~mfattn.companion.checks.max_work` (10¹³ units; ``$MFATTN_MAX_WORK``
raises it) is refused at once by one ValueError naming the parameter and the variable.

Why here: the computing modules' bytes are hashed into the stored results' digests and into long caches, so the
budgets are declared and applied from :mod:`mfattn.companion` without touching them. A function that is not wrapped
by ``@contract`` is still declared (:data:`NOT_WRAPPED`) but not checked until its module wraps it.

Units count the inner loop's elementary updates, one factor per loop: β-steps (grid points × time steps of the
mean-field map) in chapter 6, iterations × entries of the state or score matrix elsewhere; one iteration counts for at
least :data:`MIN_UNITS_PER_ITERATION` (its Python overhead), so a huge count on a tiny state is refused too. A
function that calls another declared one declares at least the work of its inner calls (a budget that admits the
outer call admits the inner ones).

Margin (``tests/test_reliability.py::test_the_full_profiles_calls_stay_far_inside_the_default_budget``): the largest
full-profile call is chapter 4's Hopfield grid (``retrieval_grid``: 10 steps × 500 trials × 11 β × 11 counts × 2048
patterns × 32 coordinates ≈ 4.0e10 units, 250 times below the default 1e13); then chapter 3's ``steps_study``
(≈ 9.4e9, 1060 times) and chapter 6 under the text's protocol (4001 β × 1.2e6 steps = 4.8e9 β-steps, 2080 times);
every other full-profile call is more than 8000 times below. A profile override at the largest work factor
(10 × the full profile, :func:`mfattn.companion.profiles.work_factor`) stays inside the budget too.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, NamedTuple

import numpy as np

__all__ = ["WORK", "NOT_WRAPPED", "MIN_UNITS_PER_ITERATION", "Entry", "work_of", "check_call_work"]

class Entry(NamedTuple):
    """A registry entry: the ``parameter`` that sets the loop's count, and ``work(arguments) -> (name, units,
    words)`` of the bound arguments (defaults applied)."""

    parameter: str
    work: Callable[[Mapping[str, Any]], tuple[str, int, str]]


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


#: The least work one iteration of a loop counts for, whatever its size: its Python and dispatch overhead (tens of
#: microseconds, the time of some thousands of elementary updates), so that ``iters=10**12`` on a 2 × 2 matrix is
#: refused too.
MIN_UNITS_PER_ITERATION = 1000


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


def _tokens(x: Any) -> int:
    """Mean-field attention on sources ``x`` (B, N, d): one update costs B N² d products."""
    return _size(x) * _shape(x, 1)


def _spectrum_k(a: Mapping[str, Any]) -> int:
    if a["k"] is not None:
        return _count(a["k"])
    from mfattn.dynamics.model import paper_model
    from mfattn.dynamics.tangent_space import state_dimension

    return state_dimension(a["model"] or paper_model())


def _scores(q: Any, k: Any) -> int:
    """Entries of the score matrix ``q kᵀ`` (batch × queries × keys)."""
    batch = math.prod(np.broadcast_shapes(tuple(q.shape[:-2]), tuple(k.shape[:-2])))
    return batch * _shape(q, -2) * _shape(k, -2)


def _floquet(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """``steps`` of the map, then (newton + 1) monodromies of ``period`` steps each, for every grid point."""
    steps, newton, period = _count(a["steps"]), _count(a["newton"]), _count(a["period"])
    extra = (newton + 1) * period
    name = f"steps={_show(steps)}" if steps >= extra else (
        f"period={_show(period)}" if period > newton + 1 else f"newton={_show(newton)}")
    return name, (steps + extra) * max(_size(a["betas"]), MIN_UNITS_PER_ITERATION), _BS


_BS = "β-steps (grid points × steps of the mean-field map)"
_D, _S, _I = "mfattn.dynamics.", "mfattn.structural.", "mfattn.implicit."

#: Qualified name -> work of a call. Each loop's count is a named factor; sizes of tensors already in memory are not.
WORK: dict[str, Entry] = {
    # chapter 6: the mean-field map, finite-N networks and what is run on them
    _D + "engine:simulate": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]), betas=_size(a["betas"]))),
    _D + "engine:largest_lyapunov": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]),
                                                                   betas=_size(a["betas"]))),
    _D + "finite_n:simulate_finite": Entry("steps", lambda a: _work(
        _BS if a["sampler"] != "direct" else "unit-steps (grid points × steps × N, sampled one unit at a time)",
        per=_count(a["N"]) if a["sampler"] == "direct" else 1, steps=_count(a["steps"]), betas=_size(a["betas"]))),
    _D + "finite_n:simulate_network": Entry("steps", lambda a: _work(
        "unit-steps (grid points × steps × N)", steps=_count(a["steps"]), betas=_size(a["betas"]), N=_count(a["N"]))),
    _D + "finite_n:error_vs_n": Entry("steps", lambda a: _work(
        _BS[:-1] + ", × reps × Ns)", per=_size(a["betas"]) * _size(a["Ns"]), steps=_count(a["steps"]),
        reps=_count(a["reps"]))),
    _D + "finite_n:network_error_vs_n": Entry("steps", lambda a: _work(
        "unit-steps (steps × reps × the sum of Ns)", per=sum(_count(n) for n in a["Ns"]), steps=_count(a["steps"]),
        reps=_count(a["reps"]))),
    _D + "lyapunov:lyapunov_spectrum": Entry("steps", lambda a: _work(
        "β-steps × tangent vectors (grid points × steps × k)", per=_spectrum_k(a), steps=_count(a["steps"]),
        betas=_size(a["betas"]))),
    _D + "rotation:stroboscopic_points": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]),
                                                                        betas=_size(a["betas"]))),
    _D + "rotation:rotation_number": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]),
                                                                    betas=_size(a["betas"]))),
    _D + "rotation:arnold_tongues": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]),
                                                                   betas=_size(a["betas"]),
                                                                   epsilons=_size(a["epsilons"]))),
    _D + "sweep:sweep": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]), betas=_size(a["betas"]))),
    _D + "sweep:bifurcation_diagram": Entry("steps", lambda a: _work(_BS, per=2, steps=_count(a["steps"]),
                                                                     betas=_size(a["betas"]))),
    _D + "basins:basin_fractions": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]),
                                                                  betas=_size(a["betas"]),
                                                                  n_contexts=_count(a["n_contexts"]))),
    _D + "perturbed:attractor_census": Entry("steps", lambda a: _work(_BS, steps=_count(a["steps"]),
                                                                      betas=_size(a["betas"]),
                                                                      n_starts=_count(a["n_starts"]))),
    _D + "floquet:floquet_multipliers": Entry("steps", lambda a: _floquet(a)),
    _D + "map:trajectory": Entry("steps", lambda a: _work("steps of the mean-field map", steps=_count(a["steps"]))),
    # chapter 4: structural inference
    _S + "edges:sinkhorn_edge_marginals": Entry("iters", lambda a: _work(
        "score-entry updates (iters × entries of q kᵀ)", per=_scores(a["q"], a["k"]), iters=_count(a["iters"]))),
    _S + "slots:run_slots": Entry("iters", lambda a: _work(
        "point-slot updates (iters × entries of x × n_slots)", per=_size(a["x"]), iters=_count(a["iters"]),
        n_slots=_count(a["n_slots"]))),
    _S + "slots:width_study": Entry("iters", lambda a: _work(
        "point-slot updates (iters × 2 priors × sigmas × trials × points × clusters × 2 coordinates)",
        per=4 * _size(a["sigmas"]), iters=_count(a["iters"]), trials=_count(a["trials"]),
        points=_count(a["points"]), clusters=_count(a["clusters"]))),
    _S + "predictive_coding:infer": Entry("steps", lambda a: _work(
        "parent-coordinate updates (steps × entries of mu and C)",
        per=_size(a["problem"]["mu"]) + _size(a["problem"]["C"]), steps=_count(a["steps"]))),
    _S + "predictive_coding:step_size_study": Entry("steps", lambda a: _work(
        "parent-coordinate updates (steps × runs × entries of mu and C)",
        per=(_size(a["problem"]["mu"]) + _size(a["problem"]["C"])) * (1 + _size(a["lr_fractions"])),
        steps=_count(a["steps"]))),
    _S + "hopfield:retrieve": Entry("steps", lambda a: _work(
        "pattern-coordinate products (steps × entries of xi × patterns)",
        per=_size(a["xi"]) * _shape(a["patterns"], -2), steps=_count(a["steps"]))),
    _S + "hopfield:retrieval_grid": Entry("steps", lambda a: _work(
        "pattern-coordinate products (steps × trials × betas × counts × the largest count × dim)",
        per=_size(a["betas"]) * _size(a["pattern_counts"]) * max(_count(p) for p in a["pattern_counts"]),
        steps=_count(a["steps"]), trials=_count(a["trials"]), dim=_count(a["dim"]))),
    _S + "hopfield:relaxation": Entry("steps", lambda a: _sum_of(
        a, ("steps", "converged_steps"),
        "pattern-coordinate products ((steps + converged_steps) × trials × betas × n_patterns × dim)",
        per=_size(a["betas"]), trials=_count(a["trials"]), n_patterns=_count(a["n_patterns"]), dim=_count(a["dim"]))),
    _S + "cavi_starts:cavi_start_dependence": Entry("max_iter", lambda a: _work(
        "score updates (max_iter × starts × entries of scores)",
        per=_size(a["scores"]) * (1 + _size(a["first_windows"])), max_iter=_count(a["max_iter"]))),
    _S + "expanding_core:expanding_attention": Entry("max_iter", lambda a: _work(
        "score updates (max_iter × entries of scores)", per=_size(a["scores"]), max_iter=_count(a["max_iter"]))),
    _S + "windowed:lazy_expanding_attention": Entry("max_iter", lambda a: _work(
        "key-coordinate updates (max_iter × entries of keys)", per=_size(a["keys"]), max_iter=_count(a["max_iter"]))),
    # chapters 2-3: the mean-field attention layer's fixed points and iterates (B N² d products per update)
    _I + "stability:anderson_fixed_point": Entry("max_iter", lambda a: _work(
        "token-pair products (max_iter × B N² d)", per=_tokens(a["x"]), max_iter=_count(a["max_iter"]))),
    # without m_star it first solves for the fixed point (the layer's max_iter updates): counted, so the inner
    # solve's own check never asks for more than this call was allowed
    _I + "stability:jacobian_spectral_radius": Entry("iters", lambda a: _named(
        "token-pair products ((iters + the layer's max_iter when m_star is None) × B N² d)",
        _count(a["iters"]) + (_count(getattr(a["layer"], "max_iter", 0)) if a.get("m_star") is None else 0),
        _tokens(a["x"]), {"iters": _count(a["iters"])})),
    _I + "stability:fixed_point_spectral_radius": Entry("max_iter", lambda a: _sum_of(
        a, ("max_iter", "iters"), "token-pair products ((max_iter + iters) × B N² d)", per=_tokens(a["x"]))),
    _I + "transformer:naive_trajectory": Entry("steps", lambda a: _work(
        "token-pair products (steps × B N² d)", per=_tokens(a["x"]), steps=_count(a["steps"]))),
    _I + "transformer:steps_study": Entry("steps", lambda a: _named(
        "token-pair products ((2 steps + 1000 for the solve and the power iteration) × rhos × B N² d)",
        2 * _count(a["steps"]) + 1000, _tokens(a["x"]) * _size(a["rhos"]), {"steps": _count(a["steps"])})),
    _I + "onsager:amortised_mean_field": Entry("max_iter", lambda a: _work(
        "coupling products (max_iter × entries of J)", per=_size(a["J"]), max_iter=_count(a["max_iter"]))),
    _I + "feature_floor:train_floor": Entry("epochs", lambda a: _work(
        "training digits (epochs × the training set, 60,000 without train_limit)",
        per=60_000 if a["train_limit"] is None else _count(a["train_limit"]), epochs=_count(a["epochs"]))),
    _I + "onsager_bound:two_part_stand_in": Entry("steps", lambda a: _work(
        "net-unit updates (steps × hidden × training sites)", per=_size(a["train"]["c"]), steps=_count(a["steps"]),
        hidden=_count(a["hidden"]))),
    # the fixed-point solver
    "mfattn.deq:solve": Entry("max_iter", lambda a: _work(
        "state-entry evaluations (max_iter × entries of z0)", per=_size(a["z0"]), max_iter=_count(a["max_iter"]))),
}

#: Declared above but not wrapped by ``@contract`` in their (hashed) modules, so not checked yet: wrapping them
#: there (a change of their bytes, hence of the stored digests) is what would switch their budget on.
NOT_WRAPPED: tuple[str, ...] = ()


def work_of(key: str, arguments: Mapping[str, Any]) -> tuple[str, int, str] | None:
    """The work ``(name, units, words)`` a call of ``key`` (``"module:qualname"``) with ``arguments`` (bound,
    defaults applied) would do; None when ``key`` is not declared or an argument is not of a countable kind (a
    wrong type is the argument rules' or the body's to report, in their words)."""
    entry = WORK.get(key)
    if entry is None:
        return None
    try:
        return entry.work(arguments)
    except (_NotCountable, TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError):
        return None


def check_call_work(key: str, arguments: Mapping[str, Any], what: str | None = None) -> float | None:
    """Refuse a call of ``key`` whose declared work exceeds the budget (:func:`~mfattn.companion.checks.check_work`:
    one ValueError naming the parameter and ``MFATTN_MAX_WORK``); returns the units, None when not declared."""
    from .checks import check_work

    entry = WORK.get(key) if isinstance(key, str) else None
    if entry is not None:
        if not isinstance(arguments, Mapping):
            raise TypeError(f"arguments must be the call's bound arguments (a mapping); got {type(arguments).__name__}")
        if entry.parameter not in arguments:    # unbound arguments would pass the budget unchecked
            raise ValueError(f"arguments must hold {entry.parameter!r}, the parameter that sets {key}'s work (bound "
                             f"arguments, defaults applied); got the keys {sorted(map(str, arguments))}")
    work = work_of(key, arguments)
    if work is None:
        return None
    name, units, words = work
    return check_work(name, units, what=what or f"{key.rpartition(':')[2]}()", unit=words)
