"""Issue 44 (reliability): every loop of a computing function has a work budget.

The budgets are declared in :mod:`mfattn.companion.work` (the computing modules' bytes are hashed into stored
results, so they are not edited) and applied by :func:`mfattn.companion.checks.contract` before the body runs: a
huge iteration or step count is refused at once, naming the parameter and ``MFATTN_MAX_WORK``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from mfattn.companion import checks, profiles

from test_reliability import deadline


def _declared(key: str):
    """The function ``key`` (``"module:qualname"``) names."""
    import importlib

    module, _, qualname = key.partition(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _valid_kwargs(key: str) -> dict:
    """Small valid arguments of ``key``, drawn (fixed seed) from its contract spec in tests/contracts_specs_*.py."""
    from hypothesis import strategies as st

    from contracts_specs import REGISTRY

    drawn: list[dict] = []

    @settings(max_examples=1, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def draw(data):
        drawn.append(REGISTRY[key].valid(data.draw))

    draw()
    return drawn[0]


def _work_units(fn, kwargs: dict, key: str) -> int:
    import inspect

    from mfattn.companion import work

    bound = inspect.signature(fn).bind(**kwargs)
    bound.apply_defaults()
    return work.work_of(key, bound.arguments)[1]


def _work_keys() -> list[str]:
    from mfattn.companion import work

    return sorted(set(work.WORK) - set(work.NOT_WRAPPED))


def test_every_work_entry_names_a_function_with_its_loop_parameter():
    """Each key of the registry is a public function, looked up under the name ``contract`` builds from it
    (module:qualname), whose signature has the declared loop parameter; the functions the registry says are not
    wrapped by ``@contract`` yet are exactly those without a contract."""
    import importlib
    import inspect

    from mfattn.companion import work

    assert len(work.WORK) >= 30
    for key, entry in work.WORK.items():
        fn = _declared(key)
        assert f"{fn.__module__}:{fn.__qualname__}" == key
        assert entry.parameter in inspect.signature(fn).parameters, (key, entry.parameter)
        assert hasattr(fn, "__contract__") == (key not in work.NOT_WRAPPED), key
        assert key.partition(":")[2] in importlib.import_module(fn.__module__).__all__, key  # public


#: Entries whose loop count is not one integer argument: the argument (and its value) that makes the work huge, None
#: where none can at the default budget. Exact enumeration loops over 2^n / chunk chunks (n <= 24: at most 2^24
#: iterations), each for every β: a grid of 10**15 points (a zero-stride view, no memory) makes the sweep's work huge;
#: exact_marginals has one β (at most 2^24 × 1000 units, far inside the budget), so only its raised budget is tried.
HUGE = {"mfattn.ising_exact:exact_marginals_sweep": ("betas", lambda: np.broadcast_to(0.5, (10**15,)), r"len\(betas\)"),
        "mfattn.ising_exact:exact_marginals": None}


@pytest.mark.parametrize("key", _work_keys())
def test_a_huge_loop_count_is_refused_at_once_and_a_raised_budget_lets_a_call_through(key, monkeypatch):
    """``steps=10**15`` (``iters``, ``max_iter``) is refused within a second, before any loop, by one ValueError
    naming the parameter and MFATTN_MAX_WORK; a small call is refused under a budget below its work and runs once
    MFATTN_MAX_WORK is raised to it."""
    import time

    from mfattn.companion import work

    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    fn, param, kwargs = _declared(key), work.WORK[key].parameter, _valid_kwargs(key)
    huge = HUGE.get(key, (param, lambda: 10**15, param))
    if huge is not None:
        param, value, named = huge
        start = time.perf_counter()
        with deadline(10), pytest.raises(ValueError) as refused:
            fn(**{**kwargs, param: value()})
        assert time.perf_counter() - start < 1.0
        message = str(refused.value)
        assert re.search(rf"(?<![A-Za-z0-9_]){named}=1e\+15 makes ", message) and "MFATTN_MAX_WORK" in message, message
    units = _work_units(fn, kwargs, key)
    monkeypatch.setenv("MFATTN_MAX_WORK", repr(units / 2))
    with deadline(10), pytest.raises(ValueError, match=r"set MFATTN_MAX_WORK to raise the budget"):
        fn(**kwargs)
    monkeypatch.setenv("MFATTN_MAX_WORK", repr(float(units)))
    with deadline(60):
        fn(**kwargs)


def test_deq_solve_refuses_a_huge_max_iter_on_a_map_that_never_converges():
    import torch

    from mfattn import deq

    with deadline(2), pytest.raises(ValueError, match=r"max_iter=.*MFATTN_MAX_WORK"):
        deq.solve(lambda z: -z, torch.ones(2, 3, dtype=torch.float64), method="plain", max_iter=10**15)


def test_the_work_of_a_huge_count_is_exact_and_a_wrong_kind_is_left_to_the_rules():
    from mfattn.companion import work

    key = "mfattn.dynamics.engine:simulate"
    assert work.work_of(key, {"betas": [1.0, 2.0], "steps": 10**400})[1] == 10**400 * work.MIN_UNITS_PER_ITERATION
    assert work.work_of(key, {"betas": [1.0] * 4001, "steps": 1_200_000})[1] == 4001 * 1_200_000 * work.BETA_STEP_UNITS
    assert work.work_of(key, {"betas": [1.0], "steps": 2.5}) is None  # the argument rules refuse it, in their words
    assert work.work_of("mfattn.dynamics.engine:no_such_function", {}) is None
    with pytest.raises(ValueError, match=r"^steps=1e\+400 makes simulate\(\) do inf β-steps.*MFATTN_MAX_WORK"):
        work.check_call_work(key, {"betas": [1.0], "steps": 10**400})


def test_the_full_profiles_calls_stay_far_inside_the_chapter_budget(monkeypatch):
    """The largest calls of the full profiles (the sizes of mfattn/companion/profiles.py, as the chapters pass them)
    do at most 1/100 of a chapter's budget (CHAPTER_MAX_WORK, which asking for a profile admits; the margin the
    registry's docstring states: 1,600 at the least), chapter 1's at most 1/30 (172 at the least: each solve counted
    at its full iteration budget), so that 10 times the full profile (the largest work factor) stays inside it."""
    import torch

    from mfattn.companion import profiles, work

    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    meta = lambda *shape: torch.empty(*shape, device="meta")  # noqa: E731  (shapes without memory)
    full = {ch: profiles.PROFILES[ch]["full"] for ch in profiles.PROFILES}
    dm, st4, tr = full["dmft"], full["structural"], full["transformer"]
    D, S, I = "mfattn.dynamics.", "mfattn.structural.", "mfattn.implicit."
    calls = [
        (D + "engine:simulate", dict(betas=np.zeros(4001), steps=1_200_000)),  # Fig. 3 under the text's protocol
        (D + "rotation:rotation_number", dict(betas=np.zeros(dm["rotation_grid"][2]), steps=dm["rotation_steps"])),
        (D + "basins:basin_fractions", dict(betas=dm["basin_betas"], n_contexts=dm["basin_contexts"],
                                            steps=dm["basin_steps"])),
        (D + "perturbed:attractor_census", dict(betas=dm["fig4_betas"], n_starts=dm["census_starts"],
                                                steps=dm["long_steps"])),
        (D + "lyapunov:lyapunov_spectrum", dict(betas=np.zeros(dm["spectrum_grid"][2]), k=dm["spectrum_k"],
                                                steps=dm["spectrum_steps"], model=None)),
        (D + "finite_n:network_error_vs_n", dict(Ns=dm["network_ns"], reps=dm["network_error_reps"], steps=40)),
        (D + "sweep:sweep", dict(betas=np.zeros(161 * 81), steps=dm["gamma_steps"])),
        (S + "hopfield:retrieval_grid", dict(dim=st4["hop_dim"], pattern_counts=st4["hop_counts"],
                                             betas=st4["hop_betas"], trials=st4["hop_trials"], steps=st4["hop_steps"])),
        (S + "slots:width_study", dict(points=st4["slot_points"], clusters=st4["slot_clusters"],
                                       trials=st4["slot_trials"], sigmas=st4["slot_sigmas"], iters=st4["slot_iters"])),
        (S + "predictive_coding:step_size_study", dict(
            problem={"mu": meta(st4["pc_trials"], st4["pc_parents"], st4["pc_dim"]),
                     "C": meta(st4["pc_trials"], st4["pc_obs_dim"], st4["pc_dim"])},
            steps=st4["pc_steps"], lr_fractions=st4["pc_lr_fractions"])),
        (I + "transformer:steps_study", dict(x=meta(tr["batch"], tr["tokens"], tr["dim"]), rhos=tr["rhos"],
                                             steps=tr["steps"])),
        (I + "stability:fixed_point_spectral_radius", dict(x=meta(full["deq"]["stability_digits"], 17, 10),
                                                           max_iter=100, iters=300)),
    ]
    for key, arguments in calls:
        name, units, words = work.work_of(key, arguments)
        assert units <= checks.CHAPTER_MAX_WORK / 100, (key, name, f"{units:.3g} {words}")
    ising, M = full["ising"], "mfattn.meanfield."
    theories = ("naive", "tap", "adaptive_tap", "tap_site")   # as chapter 1 passes them (the defaults elsewhere)
    chapter1 = [
        (M + "accuracy_damping:damping_sweep", dict(n=ising["n"], betas=ising["damping_betas"], instances=ising["instances"],
                                            dampings=ising["dampings"], methods=theories,
                                            budget=ising["damping_budget"])),
        (M + "finite_size:line_by_size", dict(ns=ising["size_ns"], betas=ising["damping_betas"], damping=0.05,
                                              instances=ising["instances"], budget=ising["damping_budget"])),
        (M + "stress:breakdown_stress", dict(n=ising["n"], betas=ising["stress_betas"], max_iter=20_000,
                                             instances=ising["stress_instances"], methods=theories)),
        (M + "families:compare_families", dict(n=ising["n"], instances=ising["instances"], methods=theories,
                                               families=("diluted", "ferro", "hopfield", "hopfield_dense"),
                                               max_iter=2000)),
        ("mfattn.ising_vector:gaussian_vector_check", dict(n=ising["vector_n"], d=ising["vector_d"], trials=3)),
    ]
    for key, arguments in chapter1:
        name, units, words = work.work_of(key, arguments)
        assert units <= checks.CHAPTER_MAX_WORK / 30, (key, name, f"{units:.3g} {words}")
        assert units * profiles.DEFAULT_WORK_FACTOR < checks.CHAPTER_MAX_WORK, (key, name, f"{units:.3g} {words}")


def test_a_chapters_run_or_full_profile_admits_the_chapter_budget_and_quick_sizes_do_not(monkeypatch):
    """A call made on its own may do DEFAULT_MAX_WORK; asking for the quick sizes admits nothing (a hostile call after
    reading them is refused as before), a chapter's run (any profile) or its full sizes admit CHAPTER_MAX_WORK."""
    from mfattn import ChapterRun
    from mfattn.companion import checks_budgets

    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    assert checks.max_work() == checks.DEFAULT_MAX_WORK == 1e10
    profiles.get_profile("deq", "quick")
    assert checks.max_work() == checks.DEFAULT_MAX_WORK
    profiles.get_profile("deq", "full")
    assert checks.max_work() == checks.CHAPTER_MAX_WORK == 1e15
    checks_budgets._CHAPTER_ADMITTED[0] = False
    ChapterRun("ising", profile="quick", device="cpu")
    assert checks.max_work() == checks.CHAPTER_MAX_WORK
    monkeypatch.setenv("MFATTN_MAX_WORK", "123")
    assert checks.max_work() == 123.0   # the variable wins in both cases
