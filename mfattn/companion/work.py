"""The work budgets of the computing functions' loops, declared here, outside the computing modules.

A loop's length is set by an argument (``steps``, ``iters``, ``max_iter``): ``simulate(betas, steps=10**15)`` passes
every type check and then runs until it is killed. :data:`WORK` maps a computing function, by its qualified name
(``"mfattn.dynamics.engine:simulate"``), to a function of its bound arguments (defaults applied) that returns the
work the call would do: ``(name, units, words)``, ``name`` the parameter that sets most of it as ``steps=...``,
``units`` the count and ``words`` what is counted. :func:`mfattn.companion.checks.contract` looks the wrapped
function up here at call time (:func:`check_call_work`), after its argument rules and before its buffers and body,
so a call asking for more than :func:`~mfattn.companion.checks.max_work` (1e10 units on its own, 1e15 in a chapter's
run; ``$MFATTN_MAX_WORK`` sets it) is refused at once by one ValueError naming the parameter and the variable.

Why here: the computing modules' bytes are hashed into the stored results' digests and into long caches, so the
budgets are declared and applied from :mod:`mfattn.companion` without touching them. A function that is not wrapped
by ``@contract`` is still declared (:data:`NOT_WRAPPED`) but not checked until its module wraps it.

Units count the inner loop's elementary updates, one factor per loop: β-steps (grid points × time steps of the
mean-field map) in chapter 6, iterations × entries of the state or score matrix elsewhere (chapter 1: iterations × n²
coupling products, n³ where an iteration inverts a matrix, and 2^n n² per exact enumeration of n spins); one
iteration counts for at least :data:`MIN_UNITS_PER_ITERATION` (its Python overhead), a step of a loop with a heavy
Python body (the 1-bit network, the Lyapunov spectrum's tangent flow) at least :data:`PYTHON_STEP_UNITS`, so a huge
count on a tiny state is refused too. A
function that calls another declared one declares at least the work of its inner calls (a budget that admits the
outer call admits the inner ones).

Two budgets (:mod:`mfattn.companion.checks_budgets`): a call made on its own may do 1e10 units (seconds: a unit is
about a nanosecond of the package's loops, an iteration at least :data:`MIN_UNITS_PER_ITERATION`, a β-step of chapter
6's map :data:`BETA_STEP_UNITS`), so a hostile count is refused before it runs for minutes; inside a chapter's run
(``ChapterRun``) or once a chapter's full profile is asked for (``get_profile(..., "full")``), a call may do 1e15, the
run as a whole being bounded by its work factor before its first cell.

Margin (``tests/test_work_budgets.py::test_the_full_profiles_calls_stay_far_inside_the_chapter_budget``): the
largest full-profile calls are chapter 1's, which count every mean-field solve at its full iteration budget (most stop
far earlier) and each iteration at least its Python overhead: ``line_by_size`` (three sizes up to 21 spins, 40
instances × 16 β × 3 theories × 20,000 iterations at damping 0.05 ≈ 5.8e12 units, 172 times below the chapter budget
1e15), ``damping_sweep`` (≈ 3.5e12, 289 times) and ``breakdown_stress`` (≈ 1.6e12, 625 times); then chapter 6 under
the text's protocol (4001 β × 1.2e6 steps × 100 ≈ 4.8e11, 2080 times), chapter 1's ``compare_families`` (≈ 1.6e11),
chapter 6's attractor census (≈ 6.0e10), chapter 4's Hopfield grid (``retrieval_grid``: 10 steps × 500 trials × 11 β ×
11 counts × 2048 patterns × 32 coordinates ≈ 4.0e10) and chapter 3's ``steps_study`` (≈ 9.4e9); every other
full-profile call is lower still. A profile override at the largest work factor (10 × the full profile,
:func:`mfattn.companion.profiles.work_factor`) stays inside the chapter budget too.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

# the counting primitives and chapter 1's estimators live in modules of their own
from .work_ising import ISING_WORK
from .work_units import (BETA_STEP_UNITS, MIN_UNITS_PER_ITERATION, PYTHON_STEP_UNITS, Entry, _count,  # noqa: F401
                         _floored, _named, _NotCountable, _python_steps, _shape, _show, _size, _sum_of, _work)

__all__ = ["WORK", "NOT_WRAPPED", "MIN_UNITS_PER_ITERATION", "BETA_STEP_UNITS", "PYTHON_STEP_UNITS", "Entry", "work_of",
           "check_call_work"]


def _hopfield_values(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """Per β (and the two round-off steps) one energy of every trial's patterns (140 µs at least, 9 ns an entry),
    and once the long-double energies of two steps (~110 ns an entry): units of ~¼ ns, as :func:`_floored`."""
    entries = _count(a["trials"]) * max(_count(c) for c in a["counts"]) * _count(a["dim"])
    name, units, words = _floored("pattern-coordinate products (betas × trials × the largest count × dim)",
                                  _size(a["betas"]) + 2, 35 * entries, 600_000,
                                  {"betas": _size(a["betas"]), "trials": _count(a["trials"]), "dim": _count(a["dim"])})
    return name, units + 450 * entries, words


def _train_multihop(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """Training steps (each at least 3 million units, 120 an entry of the batches: 0.6-1.4 ms a step), and under the
    code's protocol the skipped data streams (``stream_steps`` batches per seed for each model a later model of
    ``code_order`` follows, 100,000 units a batch at least: 25 µs). A default call (2000 steps) does 6.5e9 units; the code's protocol at its default 20,000-batch streams adds
    6e9 (about 4 s in all) and is refused on its own, admitted in a chapter's run."""
    task = a["task"]
    n, d = (5, 3) if task is None else (_count(task.n), _count(task.d))
    batch, seeds, steps = _count(a["batch_size"]), _size(a["seeds"]), _count(a["steps"])
    names = [a["models"]] if isinstance(a["models"], str) else list(a["models"])
    models = len(names)
    name, units, words = _floored("training steps (steps × models × seeds × batch_size × n × d)", steps,
                                  120 * models * seeds * batch * n * d, 3_000_000,
                                  {"steps": steps, "batch_size": batch, "seeds": seeds})
    if a["protocol"] == "code":   # a model's whole stream is drawn (unused) before a later model's weights
        order = list(a["code_order"])
        skipped = sum(any(later in names for later in order[j + 1:]) for j in range(len(order)))
        stream = _count(a["stream_steps"])
        units += skipped * stream * seeds * max(30 * batch * n * d, 100_000)   # 25 µs a skipped batch of 200
        if stream > steps:
            name = f"stream_steps={_show(stream)}"
    return name, units, words


def _network_sizes(a: Mapping[str, Any]) -> tuple[str, int, str]:
    """:func:`mfattn.dynamics.finite_n.network_error_vs_n`: one :func:`~mfattn.dynamics.finite_n.simulate_network` of
    ``reps`` realisations and ``steps`` steps per size N of ``Ns`` (each step at least :data:`PYTHON_STEP_UNITS`)."""
    steps, reps = _count(a["steps"]), _count(a["reps"])
    Ns = a["Ns"]
    if isinstance(Ns, (str, bytes, Mapping)) or not hasattr(Ns, "__iter__"):
        raise _NotCountable
    sizes = [_count(n) for n in Ns]
    name, _, words = _named("unit-steps (steps × reps × the sum of Ns)", 0, 1,
                            {"steps": steps, "reps": reps, "Ns": max(sizes, default=0)})
    return name, sum(steps * max(reps * n, PYTHON_STEP_UNITS) for n in sizes), words


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
    return name, (steps + extra) * max(BETA_STEP_UNITS * _size(a["betas"]), MIN_UNITS_PER_ITERATION), _BS


_BS = "β-steps (grid points × steps of the mean-field map)"
_D, _S, _I, _M = "mfattn.dynamics.", "mfattn.structural.", "mfattn.implicit.", "mfattn.meanfield."

#: Qualified name -> work of a call. Each loop's count is a named factor; sizes of tensors already in memory are not.
WORK: dict[str, Entry] = {
    # chapter 6: the mean-field map, finite-N networks and what is run on them
    _D + "engine:simulate": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]), betas=_size(a["betas"]))),
    _D + "engine:largest_lyapunov": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]),
                                                                   betas=_size(a["betas"]))),
    _D + "finite_n:simulate_finite": Entry("steps", lambda a: _work(
        _BS if a["sampler"] != "direct" else "unit-steps (grid points × steps × N, sampled one unit at a time)",
        per=_count(a["N"]) if a["sampler"] == "direct" else BETA_STEP_UNITS, steps=_count(a["steps"]), betas=_size(a["betas"]))),
    _D + "finite_n:simulate_network": Entry("steps", lambda a: _python_steps(
        "unit-steps (grid points × steps × N)", _count(a["steps"]), _size(a["betas"]) * _count(a["N"]),
        {"steps": _count(a["steps"]), "betas": _size(a["betas"]), "N": _count(a["N"])})),
    _D + "finite_n:error_vs_n": Entry("steps", lambda a: _work(
        _BS[:-1] + ", × reps × Ns)", per=BETA_STEP_UNITS * _size(a["betas"]) * _size(a["Ns"]), steps=_count(a["steps"]),
        reps=_count(a["reps"]))),
    _D + "finite_n:network_error_vs_n": Entry("steps", _network_sizes),
    _D + "lyapunov:lyapunov_spectrum": Entry("steps", lambda a: _python_steps(
        "β-steps × tangent vectors (grid points × steps × k)", _count(a["steps"]),
        BETA_STEP_UNITS * _spectrum_k(a) * _size(a["betas"]), {"steps": _count(a["steps"]), "betas": _size(a["betas"])})),
    _D + "rotation:stroboscopic_points": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]),
                                                                        betas=_size(a["betas"]))),
    _D + "rotation:rotation_number": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]),
                                                                    betas=_size(a["betas"]))),
    _D + "rotation:arnold_tongues": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]),
                                                                   betas=_size(a["betas"]),
                                                                   epsilons=_size(a["epsilons"]))),
    _D + "sweep:sweep": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]), betas=_size(a["betas"]))),
    _D + "sweep:bifurcation_diagram": Entry("steps", lambda a: _work(_BS, per=2 * BETA_STEP_UNITS, steps=_count(a["steps"]),
                                                                     betas=_size(a["betas"]))),
    _D + "basins:basin_fractions": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]),
                                                                  betas=_size(a["betas"]),
                                                                  n_contexts=_count(a["n_contexts"]))),
    _D + "perturbed:attractor_census": Entry("steps", lambda a: _work(_BS, per=BETA_STEP_UNITS, steps=_count(a["steps"]),
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
    # chapter 4's unit-value studies: their Python overhead per iteration and their cost per entry measured
    # single-threaded (units of ~¼ ns, as PYTHON_STEP_UNITS): a call at the 1e10 budget runs about 2-3 s
    _S + "edges:mask_study": Entry("instances", lambda a: _floored(
        "edge-set products (instances × n^n edge sets × n × d)", _count(a["instances"]),
        4 * _count(a["n"]) ** min(_count(a["n"]), 8) * _count(a["n"]) * _count(a["d"]), 2_500_000,   # 500-960 µs each
        {"instances": _count(a["instances"]), "n": _count(a["n"]), "d": _count(a["d"])})),
    _S + "edge_priors:priors_study": Entry("instances", lambda a: _floored(
        "edge-set products (instances × (temperatures + 2) × 4096 edge sets × 12 × d)", _count(a["instances"]),
        (_size(a["temperatures"]) + 2) * max(2 * 4096 * 12 * _count(a["d"]), 5_000_000), 5_000_000,   # 1.2 ms a temperature
        {"instances": _count(a["instances"]), "temperatures": _size(a["temperatures"]), "d": _count(a["d"])})),
    _S + "slots:update_forms_study": Entry("steps", lambda a: _floored(
        "point-slot updates (steps × entries of x × slots)", _count(a["steps"]) + 1,
        70 * _size(a["x"]) * _shape(a["mu"], -2), 700_000,   # 150 µs a step, 17 ns an entry-slot pair
        {"steps": _count(a["steps"]), "x": _size(a["x"])})),
    _S + "unit_values:pc_restarts": Entry("starts", lambda a: _floored(
        "parent-coordinate updates (starts × steps × entries of mu and C)", _count(a["starts"]),
        _count(a["steps"]) * max(_size(a["problem"]["mu"]) + _size(a["problem"]["C"]), MIN_UNITS_PER_ITERATION),
        MIN_UNITS_PER_ITERATION, {"starts": _count(a["starts"]), "steps": _count(a["steps"])})),   # each start: infer's
    _S + "unit_values:hopfield_values": Entry("trials", lambda a: _hopfield_values(a)),
    # chapter 5's training loops (a step's Python and autograd overhead measured single-threaded at 0.6-1.4 ms,
    # counted as 3-4 million units, so a default call, 2000 steps, stays inside the 1e10 budget: 3-4 s)
    _S + "expanding_train:train_expanding": Entry("steps", lambda a: _floored(
        "training steps (steps × models × ps × seeds × batch_size × n × d)", _count(a["steps"]),
        250 * _size(a["models"]) * _size(a["ps"]) * _size(a["seeds"]) * _count(a["batch_size"]) * _count(a["n"])
        * _count(a["d"]), 4_000_000,
        {"steps": _count(a["steps"]), "batch_size": _count(a["batch_size"]), "n": _count(a["n"]), "d": _count(a["d"])})),
    _S + "multihop_train:train_multihop": Entry("steps", lambda a: _train_multihop(a)),
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
    # full-batch Adam on every site of every instance: measured 250 µs a step at least, 5-9 units (~¼ ns) per
    # product of the net's layers (sites × (F h + h² + h)), single-threaded
    _I + "onsager:fit_onsager_net": Entry("steps", lambda a: _floored(
        "net products (steps × sites × (features × hidden + hidden² + hidden))", _count(a["steps"]),
        8 * _shape(a["data"]["J"], 0) * _shape(a["data"]["J"], 1)
        * ((1 if a["inputs"] in ("g", "m") else 2) * _count(a["hidden"]) + _count(a["hidden"]) ** 2
           + _count(a["hidden"])), 1_000_000,
        {"steps": _count(a["steps"]), "hidden": _count(a["hidden"])})),
    _I + "feature_floor:train_floor": Entry("epochs", lambda a: _work(
        "training digits (epochs × the training set, 60,000 without train_limit)",
        per=60_000 if a["train_limit"] is None else _count(a["train_limit"]), epochs=_count(a["epochs"]))),
    _I + "onsager_bound:two_part_stand_in": Entry("steps", lambda a: _work(
        "net-unit updates (steps × hidden × training sites)", per=_size(a["train"]["c"]), steps=_count(a["steps"]),
        hidden=_count(a["hidden"]))),
    # the fixed-point solver, and its test map (a QR and two products of n × n matrices: 3 n³)
    "mfattn.deq:solve": Entry("max_iter", lambda a: _work(
        "state-entry evaluations (max_iter × entries of z0)", per=_size(a["z0"]), max_iter=_count(a["max_iter"]))),
    "mfattn.deq:linear_contraction": Entry("n", lambda a: (
        f"n={_show(_count(a['n']))}", max(3 * _count(a["n"]) ** 3, MIN_UNITS_PER_ITERATION),
        "matrix-entry products (a QR and two products of n × n matrices, 3 n³)")),
    **ISING_WORK,
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
