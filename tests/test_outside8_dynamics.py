"""Issue 44, outside referee rows of mfattn.dynamics (and the work budgets of its slowest loops): each hostile call
is refused by one ValueError/TypeError naming the parameter; each fix's valid neighbour still works."""

import numpy as np
import pytest

from mfattn.dynamics.diagnostics import quantize
from mfattn.dynamics.floquet import FloquetResult
from mfattn.dynamics.perturbed import CensusAttractor, census_rows
from mfattn.dynamics.verdict_numbers import plain


def _floquet(residual, periodic=True):
    return FloquetResult(np.array([1.0]), 1, np.ones((1, 2), complex), np.array([residual]), np.array([periodic]),
                         np.ones((1, 3)))


def _attractor(starts=(0,), islands=None, beta=1.0, extra=None):
    starts = list(starts)
    return CensusAttractor(beta, 2, starts, [0.0] * len(starts), islands or [1] * len(starts), None, extra or {})


def test_quantize_refuses_bins_whose_indices_overflow_int64():
    # quantize(values, max_y, bins=10**30): the int64 cast wrapped around (silent) -> refused naming bins
    with pytest.raises(ValueError, match=r"bins .* int64"):
        quantize([[0.1]], 1.0, 10**30)
    assert quantize([0.1], 1.0).tolist() == [2750]


def test_floquet_result_refuses_a_negative_residual():
    # FloquetResult(residual=-1): a max of absolute values, accepted silently -> refused naming residual
    with pytest.raises(ValueError, match="residual must be >= 0"):
        _floquet(-1.0)
    # FloquetResult(residual=NaN, periodic=True): periodic is residual <= tol -> refused naming residual
    with pytest.raises(ValueError, match="residual must be a number where periodic"):
        _floquet(float("nan"))
    assert _floquet(float("nan"), periodic=False).residual.shape == (1,)
    assert _floquet(0.0).periodic.all()


def test_plain_refuses_a_container_that_holds_itself():
    # plain(obj=L with L in L): RecursionError (deep) -> refused naming obj
    looped = [1]
    looped.append(looped)
    with pytest.raises(ValueError, match="obj must not contain itself"):
        plain(looped)
    d = {}
    d["a"] = d
    with pytest.raises(ValueError, match="obj must not contain itself"):
        plain(d)
    shared = [1, 2]   # the same list twice (no cycle) is fine
    assert plain({"a": [shared, shared, np.float32(3)]}) == {"a": [[1, 2], [1, 2], 3.0]}


def test_census_rows_checks_each_betas_attractors():
    # census_rows(census with islands=[10**12]): np.bincount allocated 7 TiB (deep MemoryError) -> counted exactly
    assert census_rows([[_attractor(islands=[10**12])]])[0]["attractors"][0]["islands"] == 10**12
    assert census_rows([[_attractor(starts=[0, 1, 2], islands=[3, 2, 2])]])[0]["attractors"][0]["islands"] == 2
    assert census_rows([[_attractor(starts=[0, 1], islands=[3, 2])]])[0]["attractors"][0]["islands"] == 2
    # census_rows(two betas in one row / a start under two attractors / a start beyond n_starts / n_starts that
    # disagree): silent rows -> refused naming census[i]
    bad = [[_attractor(), _attractor(starts=[1], beta=2.0)], [_attractor(), _attractor()], [_attractor(starts=[5])],
           [_attractor(extra={"n_starts": 2}), _attractor(starts=[1], extra={"n_starts": 3})]]
    for found in bad:
        with pytest.raises(ValueError, match=r"census\[0\]"):
            census_rows([found])
    rows = census_rows([[_attractor(extra={"n_starts": 4}), _attractor(starts=[3], extra={"n_starts": 4})]])
    assert rows[0]["n_starts"] == 4 and [a["share"] for a in rows[0]["attractors"]] == [0.25, 0.25]


@pytest.mark.parametrize("key, arguments", [
    ("finite_n:simulate_network", dict(betas=[1.0], N=1, steps=40_001)),
    ("lyapunov:lyapunov_spectrum", dict(betas=[1.0], k=1, steps=40_001, model=None)),
    ("finite_n:network_error_vs_n", dict(Ns=[1], reps=1, steps=40_001)),
])
def test_python_heavy_steps_count_their_overhead(monkeypatch, key, arguments):
    # simulate_network / lyapunov_spectrum / network_error_vs_n(steps=200_000 on a tiny state): admitted by the
    # 1e10 budget and ran 9-14 s (hang) -> each step counts PYTHON_STEP_UNITS, refused above 40,000 steps
    from mfattn.companion import work

    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    with pytest.raises(ValueError, match=r"steps=40001 .*MFATTN_MAX_WORK"):
        work.check_call_work("mfattn.dynamics." + key, arguments)
    assert work.check_call_work("mfattn.dynamics." + key, {**arguments, "steps": 40_000}) <= 1e10


def test_classify_refuses_negative_counts():
    # classify(counts=[-1]): a bin count below 0 classed periodic (silent) -> refused naming counts
    from mfattn.dynamics.diagnostics import classify

    with pytest.raises(ValueError, match="counts must be bin counts"):
        classify([-1])
    assert classify([0, 5, 100, 3000]).tolist() == [0, 0, 1, 2]


def test_envelope_decay_time_refuses_a_level_above_one():
    # envelope_decay_time(level=2.0): |rho| <= 1 is below it at once, 0.0 returned (silent) -> refused naming level
    from mfattn.dynamics.diagnostics import envelope_decay_time

    x = np.random.default_rng(0).standard_normal(200)
    with pytest.raises(ValueError, match="level must be"):
        envelope_decay_time(x, 10, level=2.0)
    assert envelope_decay_time(x, 10) >= 0.0


def test_compare_attractors_and_sections_refuse_periods_not_one_per_beta():
    # compare_attractors / compare_sections(period_a of 2 entries for 1 β): silent (B, 2) differ -> refused
    from mfattn.dynamics.diagnostics import compare_attractors
    from mfattn.dynamics.rotation import compare_sections

    one = [np.ones((3, 3))]
    with pytest.raises(ValueError, match=r"period_a must have shape \(1,\)"):
        compare_attractors(one, one, [1, 2], [1])
    with pytest.raises(ValueError, match=r"period_b must have shape \(1,\)"):
        compare_sections(one, one, [1], [1, 2])
    # compare_sections(lyapunov_a of 2 entries / lyapunov_a without lyapunov_b): silent -> refused
    with pytest.raises(ValueError, match=r"lyapunov_a must have shape \(1,\)"):
        compare_sections(one, one, [1], [1], [0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="lyapunov_a and lyapunov_b must be given together"):
        compare_sections(one, one, [1], [1], [0.1])
    assert compare_attractors(one, one, [1], [1])["differ"].tolist() == [False]
    assert compare_sections(one, one, [1], [1], [0.1], [0.2])["differ"].tolist() == [False]


def test_ops_for_numpy_refuses_a_device_that_is_not_the_cpu():
    # ops_for("numpy", device="" / "meta" / "cuda"): the device was ignored (silent) -> refused naming device
    from mfattn.dynamics.backends import ops_for

    for device in ("", "meta", "cpu\n"):
        with pytest.raises(ValueError, match="device"):
            ops_for("numpy", device)
    assert ops_for("numpy", "cpu") is not None and ops_for("numpy") is not None


def test_sweep_many_refuses_a_part_that_is_not_a_pair():
    # sweep_many(parts={"a": [1.0]}): "not enough values to unpack" (deep) -> refused naming parts['a']
    from mfattn.dynamics.sweep import sweep_many

    for part in ([1.0], "ab", (1.0, 2.0, 3.0)):
        with pytest.raises(ValueError, match=r"parts\['a'\] must be a pair"):
            sweep_many({"a": part}, steps=10, transient=0)


def test_engine_split_keeps_its_names():
    # engine.py split: the map's state and step moved to batched_map.py, importable from engine as before
    from mfattn.dynamics import batched_map, engine

    assert engine._MeanFieldEngine is batched_map._MeanFieldEngine
    assert engine._tangent_start is batched_map._tangent_start
    assert set(engine.__all__) == {"BACKENDS", "SimulationResult", "simulate", "largest_lyapunov"}


def test_result_records_refuse_impossible_fields():
    # RotationResult(radius=-1): an RMS distance below 0 (silent) -> refused naming radius
    from mfattn.dynamics.engine import SimulationResult
    from mfattn.dynamics.rotation import RotationResult

    one = lambda v: np.array([v])  # noqa: E731
    with pytest.raises(ValueError, match="radius must hold RMS distances"):
        RotationResult(one(1.0), one(220.0), one(0.02), one(0.3), one(5), one(-1.0), 200)
    assert RotationResult(one(1.0), one(220.0), one(0.02), one(0.3), one(5), one(0.0), 200).locked.tolist() == [True]
    # SimulationResult(lyapunov=[NaN]): λ_max is never NaN (silent) -> refused naming lyapunov
    with pytest.raises(ValueError, match="lyapunov must hold"):
        SimulationResult(np.zeros((1, 5, 3)), {}, one(1.0), one(220.0), one(0.02), 5, 0, one(float("nan")))
    assert SimulationResult(np.zeros((1, 5, 3)), {}, one(1.0), one(220.0), one(0.02), 5, 0, one(-0.5)).steps == 5
    # FloquetResult(periodic=[1.0]): not a bool flag (silent) -> refused naming periodic
    with pytest.raises(TypeError, match="periodic must be a bool array"):
        FloquetResult(one(1.0), 1, np.ones((1, 2), complex), one(0.0), one(1.0), np.ones((1, 3)))


def test_figures_refuse_empty_inputs_and_take_one_panel():
    # figures.basins(found=[]): an empty figure (silent) -> refused naming found
    # figures.finite_n_diagrams(panels={}): matplotlib's "Number of columns" (deep) -> refused naming panels;
    # one panel or a list grid: "'Axes' object is not iterable" / "'list' has no attribute 'size'" (deep) -> drawn
    import matplotlib.pyplot as plt

    from mfattn.dynamics import figures

    with pytest.raises(ValueError, match="found must hold"):
        figures.basins([], 5)
    with pytest.raises(ValueError, match="panels must hold at least one panel"):
        figures.finite_n_diagrams({}, [1.0])
    fig = figures.finite_n_diagrams({"a": [np.ones(3)]}, [1.0])
    assert len(fig.axes) == 1
    plt.close(fig)
