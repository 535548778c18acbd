"""Chapter 6's comparisons, readers and writers refuse a wrong argument at once, naming it (found by the generated
contract tests, issue 44 item 5); each block below goes with the boundary check of one module."""

from __future__ import annotations

import math

import numpy as np
import pytest

RNG = np.random.default_rng(0)


# --- diagnostics.compare_attractors: before, an integer or complex section was compared silently and NaN gave
# "a contains NaN" (the inner function's name)
def test_compare_attractors_checks_sections_periods_and_factor():
    from mfattn.dynamics.diagnostics import compare_attractors

    a = RNG.uniform(-0.5, 0.5, (2, 12, 3))
    out = compare_attractors(a, a.copy(), [4, 0], [4, 0])
    assert np.all(out["distance"] < 1e-7) and not out["differ"].any()   # the same sections: rounding only
    bad = a.copy()
    bad[0, 0, 0] = math.nan
    with pytest.raises(ValueError, match=r"^sections_b contains NaN"):
        compare_attractors(a, bad, [4, 0], [4, 0])
    with pytest.raises(TypeError, match=r"^sections_a must be a floating-point array"):
        compare_attractors(np.round(a).astype(int), a, [4, 0], [4, 0])
    with pytest.raises(ValueError, match=r"^period_a must hold whole numbers"):
        compare_attractors(a, a, [4.5, 0], [4, 0])
    with pytest.raises(ValueError, match=r"^factor must be > 0"):
        compare_attractors(a, a, [4, 0], [4, 0], factor=0.0)


# --- rotation.compare_sections: before, a NaN section failed in numpy's eigensolver (LinAlgError) and a NaN
# lyapunov was compared silently
def test_compare_sections_checks_sections_periods_and_lyapunov():
    from mfattn.dynamics.rotation import compare_sections

    a = RNG.uniform(-0.5, 0.5, (2, 12, 3))
    out = compare_sections(a, a.copy(), [0, 0], [0, 0], [0.0, 0.0], [0.0, 0.0])
    assert not out["differ"].any() and out["miss"].tolist() == [0.0, 0.0]
    bad = a.copy()
    bad[1, 3, 2] = math.inf
    with pytest.raises(ValueError, match=r"^sections_a contains NaN or infinite"):
        compare_sections(bad, a, [0, 0], [0, 0])
    with pytest.raises(ValueError, match=r"^lyapunov_a contains NaN"):
        compare_sections(a, a, [0, 0], [0, 0], [math.nan, 0.0], [0.0, 0.0])
    with pytest.raises(TypeError, match=r"^period_b must be an array of numbers"):
        compare_sections(a, a, [0, 0], "x")
    with pytest.raises(ValueError, match=r"^share must be"):
        compare_sections(a, a, [0, 0], [0, 0], share=1.5)


# --- floquet.monodromy: before, a NaN state or period 0 returned silently and period = 10**12 ran for days
def test_monodromy_checks_state_and_period():
    from mfattn.dynamics.floquet import floquet_multipliers, monodromy

    f = floquet_multipliers([1.0, 1.1], steps=60)
    fx, J = monodromy(list(f.betas), f.state, f.period)
    assert fx.shape == f.state.shape and J.shape == (2, f.state.shape[1], f.state.shape[1])
    bad = f.state.copy()
    bad[0, 0] = math.nan
    with pytest.raises(ValueError, match=r"^state contains NaN"):
        monodromy(list(f.betas), bad, 4)
    with pytest.raises(ValueError, match=r"^period must be a positive integer; got 0"):
        monodromy(list(f.betas), f.state, 0)
    with pytest.raises(ValueError, match=r"^period=1000000000000 makes monodromy\(\) do"):
        monodromy(list(f.betas), f.state, 10**12)


# --- perturbed.attractor_kind / census_rows: before, a NaN threshold was compared silently (every torus "closed
# curve") and a census that is not attractor_census's result failed with AttributeError
def test_attractor_kind_and_census_rows_check_their_inputs():
    from mfattn.dynamics.perturbed import CensusAttractor, attractor_kind, census_rows

    rows = census_rows([[CensusAttractor(1.27, 0, [0, 1], [0.002, 0.003], [3, 3], [900, 950])]])
    assert rows[0]["n_starts"] == 2 and rows[0]["attractors"][0]["islands"] == 3
    assert attractor_kind(rows[0]["attractors"][0]) == "chaotic"
    assert attractor_kind(rows[0]["attractors"][0], chaotic_above=0.01) == "island chain of 3"
    with pytest.raises(ValueError, match=r"^chaotic_above must be a finite number"):
        attractor_kind(rows[0]["attractors"][0], chaotic_above=math.nan)
    with pytest.raises(ValueError, match=r"^row lacks the key\(s\) \['lyapunov', 'islands'\]"):
        attractor_kind({"period": 0})
    with pytest.raises(TypeError, match=r"^census must be attractor_census's result"):
        census_rows("x")


# --- sweep.save_diagram: before, levels above 2**16 wrapped around in the uint16 levels silently, levels 1 divided
# by zero into the file, and res = None failed with AttributeError
def test_save_diagram_checks_res_and_levels(tmp_path):
    from mfattn.companion import store
    from mfattn.dynamics.sweep import save_diagram, sweep

    res = sweep([1.0, 1.26], steps=60, transient=20, chunk_size=20, strobe_points=10)
    path = save_diagram(tmp_path / "d.npz", res, levels=256, rows=20)
    saved = store.load_npz(path)
    assert int(saved["levels"]) == 256 and saved["betas"].tolist() == [1.0, 1.26]
    for bad in (1, 2 ** 16 + 1, 10**12):
        with pytest.raises(ValueError, match=r"^levels must be"):
            save_diagram(tmp_path / "e.npz", res, levels=bad)
    with pytest.raises(TypeError, match=r"^res must be a SweepResult"):
        save_diagram(tmp_path / "f.npz", None)
    assert not (tmp_path / "e.npz").exists() and not (tmp_path / "f.npz").exists()


# --- verdict_numbers: before, context_deviation(None, ...) raised "'NoneType' object is not subscriptable",
# window_control accepted window 0 and failed with AttributeError on a missing sweep, symmetric_control's betas "x"
# failed in numpy
def test_verdict_numbers_check_contexts_sweeps_and_windows():
    from mfattn.dynamics.basins import random_contexts
    from mfattn.dynamics.sweep import sweep
    from mfattn.dynamics.verdict_numbers import context_deviation, symmetric_control, window_control

    ctx = {k: v[0] for k, v in random_contexts(1, 0).items()}
    assert context_deviation(ctx, ctx) == 0.0
    with pytest.raises(TypeError, match=r"^reference must be a mapping"):
        context_deviation(ctx, None)
    with pytest.raises(ValueError, match=r"^ours lacks the key\(s\) \['mq_window'\]"):
        context_deviation({k: v for k, v in ctx.items() if k != "mq_window"}, ctx)
    short = sweep([1.26, 1.3], steps=200, transient=20, chunk_size=20, strobe_points=10, lyapunov=True)
    long = sweep(short.betas[short.period == 0], steps=400, transient=20, chunk_size=20, strobe_points=10,
                 lyapunov=True)
    out = window_control(short, long, 180, 380)
    assert out["window"] == 180 and out["window_long"] == 380 and len(out["lyapunov_long"]) == len(long.betas)
    with pytest.raises(ValueError, match=r"^short_window must be a positive integer; got 0"):
        window_control(short, long, 0, 380)
    with pytest.raises(TypeError, match=r"^long must be a sweep with lyapunov=True"):
        window_control(short, None, 180, 380)
    with pytest.raises(TypeError, match=r"^betas must"):
        symmetric_control("x", 30, 5)


# --- figures: before, a NaN in a plotted array (lam, errs, grid, spec) was drawn silently or failed inside
# matplotlib, fmt_lam(nan) printed "+nan", a result of the wrong kind failed with AttributeError, and N0 = 0 divided
# by zero
def test_figures_check_their_inputs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mfattn.dynamics import figures

    assert figures.fmt_lam(0.1234) == "+0.123" and figures.fmt_lam(-2e-5) == "-2e-05"
    with pytest.raises(ValueError, match=r"^x must be a finite number"):
        figures.fmt_lam(math.nan)
    lam = RNG.uniform(-0.2, 0.2, (2, 3))
    fig = figures.lyapunov_map(np.array([1.0, 1.1, 1.2]), np.array([200.0, 220.0]), lam)
    assert len(fig.axes) == 2   # the map and its colour bar
    plt.close(fig)
    lam[0, 0] = math.nan
    with pytest.raises(ValueError, match=r"^lam contains NaN"):
        figures.lyapunov_map(np.array([1.0, 1.1, 1.2]), np.array([200.0, 220.0]), lam)
    Ns = np.array([10, 100, 1000])
    samples = {"binomial": RNG.integers(-10, 11, 20) / 10}
    errs = np.outer([1.0], Ns ** -0.5)
    plt.close(figures.finite_n(samples, 10, 40, errs, Ns, [1.0], 40))
    with pytest.raises(ValueError, match=r"^N0 must be a positive integer; got 0"):
        figures.finite_n(samples, 0, 40, errs, Ns, [1.0], 40)
    with pytest.raises(ValueError, match=r"^errs must be positive, \(len\(error_betas\), len\(Ns\)\)"):
        figures.finite_n(samples, 10, 40, errs[:, :2], Ns, [1.0], 40)
    with pytest.raises(ValueError, match=r"^Ns must be a non-empty 1-d array of positive integers"):
        figures.network_oracle(samples, 10, 40, np.array([0, 10, 100]), errs[0], 1.4)
    with pytest.raises(TypeError, match=r"^diagrams\['fig3a'\] must be a SweepResult"):
        figures.bifurcation({"fig3a": None, "fig3b": None})
    with pytest.raises(TypeError, match=r"^res must be a SweepResult"):
        figures.sections("x")
    with pytest.raises(ValueError, match=r"^contexts must be a positive integer"):
        figures.basins([], 0)


# --- verdict_numbers.summary: before, a NaN β of Fig. 4 was stored silently and a missing run failed with
# AttributeError ('NoneType' object has no attribute 'm_o')
def test_summary_checks_the_runs_it_summarises():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import contracts_strategies_b as B
    from mfattn.dynamics.verdict_numbers import summary

    kw = {**B.summary_inputs(lambda strategy: False), "slopes": [-0.5, -0.49]}   # every drawn flag False
    out = summary(**kw)
    assert out["fig4"]["betas"] == [1.26, 1.28] and out["finite_n"]["Ns"] == [10, 20, 40]
    assert out["coexist"] == {"n": 0, "total": 3, "tori": 0, "starts": [1.0]}
    with pytest.raises(ValueError, match=r"^fig4_betas contains NaN"):
        summary(**{**kw, "fig4_betas": np.array([1.26, math.nan])})
    with pytest.raises(TypeError, match=r"^planes must be a SimulationResult"):
        summary(**{**kw, "planes": None})
    with pytest.raises(TypeError, match=r"^diagrams must map each diagram's name to its SweepResult"):
        summary(**{**kw, "diagrams": {"fig3a": "x"}})
    with pytest.raises(TypeError, match=r"^coexist must be a bool array"):
        summary(**{**kw, "coexist": np.zeros(3)})
    assert summary(**{**kw, "Ns": np.array([10.0, 20.0, 40.0])})["finite_n"]["Ns"] == [10.0, 20.0, 40.0]  # whole floats
    with pytest.raises(ValueError, match=r"^Ns must be positive whole numbers"):
        summary(**{**kw, "Ns": [0, 20, 40]})
    with pytest.raises(ValueError, match=r"^Ns must hold whole numbers"):
        summary(**{**kw, "Ns": [10.5, 20, 40]})
