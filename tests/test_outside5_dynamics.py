"""The fifth outside table's silent and deep rows of chapter 6 located in mfattn/dynamics/'s computing, result and
figure modules (not the claims modules), each now refused at the boundary with one exception whose message names
the parameter (the table's own calls, on small fixtures), and valid calls that still work."""

from __future__ import annotations

import dataclasses
import functools
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mfattn.dynamics import (basins, diagnostics, engine, finite_n, floquet, perturbed, rotation,  # noqa: E402
                             sweep, tangent_space, verdict_numbers)
from mfattn.dynamics import figures as dfig  # noqa: E402
from mfattn.dynamics import model as dmodel  # noqa: E402


@functools.lru_cache(maxsize=None)
def fx(name):
    """The table's fixtures (fixtures5b.py), built once and small."""
    if name == "MDL":
        return dmodel.paper_model()
    if name == "SIM":
        return engine.simulate([1.0, 1.27], steps=300, transient=100, lyapunov=True)
    if name == "SIM3":
        return engine.simulate(list(np.linspace(1.0, 1.3, 3)), steps=440, transient=20, lyapunov=True)
    if name == "SW3":
        return sweep.sweep([1.0, 1.26, 1.3], steps=200, transient=20, chunk_size=20, strobe_points=10, lyapunov=True,
                           progress=False)
    if name == "RR":
        return rotation.rotation_number([1.0, 1.27], steps=400, transient=200, lyapunov=True)
    if name == "TONG":
        return rotation.arnold_tongues([1.0, 1.26], [0.0, 0.02], steps=100, transient=20, cap=20, lyapunov=True)
    if name == "FR":
        return floquet.floquet_multipliers([1.0, 1.1], steps=400)
    if name == "CTX1":
        return {k: v[0] for k, v in basins.random_contexts(1, 0).items()}
    raise KeyError(name)


def _close(fig):
    plt.close("all")
    return fig


ROWS = [  # (row id, call, exception, regex naming the parameter)
    # the chunk-keyed modules (engine, sweep, model, diagnostics, tangent_space)
    ("b0527", lambda: engine.largest_lyapunov([1.0], steps=20, transient=5, progress="yes"), TypeError,
     r"^progress must be True or False"),
    ("b0525", lambda: fx("SIM").context_of(2), ValueError, r"^i must be an integer in \[-2, 1\]"),
    ("b0637", lambda: engine.SimulationResult(np.zeros((2, 5, 3)), {}, np.array([1.0]), np.array([220.0]),
                                              np.array([0.02]), 10, 5), ValueError,
     r"^m_o must have shape \(B, steps - transient, M\) = \(1, 5, M\)"),
    ("b0533", lambda: fx("SW3").bin_counts(max_y=0.01), ValueError, r"^max_y must be at least this sweep's own scale"),
    ("b0537", lambda: fx("SW3").exact_counts([5]), ValueError, r"^idx must hold indices of this sweep's 3 β"),
    ("b0541", lambda: fx("SW3").periodic_points(3), ValueError, r"^i must be an integer in \[-3, 2\]"),
    ("b0641", lambda: dataclasses.replace(fx("SW3"), period=fx("SW3").period[:1]).classes(), ValueError,
     r"^period must have shape \(3,\), one entry per β"),
    ("b0514", lambda: dmodel.paper_weights(semantic_size=3, segments=5), ValueError,
     r"^segments must be at most semantic_size = 3"),
    ("b0519", lambda: dmodel.token_context(dataclasses.replace(fx("MDL"), token=fx("MDL").token[:5])), ValueError,
     r"^token must have shape \(4M,\) = \(12,\)"),
    ("b0642", lambda: dmodel.MeanFieldModel(fx("MDL").o_classes, fx("MDL").coef, fx("MDL").class_fraction,
                                            fx("MDL").class_sign, fx("MDL").positional, fx("MDL").token, 8), ValueError,
     r"^positional must have shape \(context_size, 4M\), one row per position = \(8, 12\)"),
    ("b0518", lambda: fx("MDL").correlation("z"), ValueError, r"^x must be one of 'o', 'v', 'k', 'q'"),
    ("b0593", lambda: diagnostics.bin_counts(fx("SIM").m_o[..., 0], max_y=0.001), ValueError,
     r"^max_y \(0\.001\) must cover the values"),
    ("b0599", lambda: diagnostics.envelope_decay_time(np.random.default_rng(0).normal(size=64), 8, period=100),
     ValueError, r"^period must be an integer in \[1, 32\]"),
    ("b0561", lambda: tangent_space.TangentFlow([1.0], 2).set_basis(np.zeros((1, 27, 3))), ValueError,
     r"^Q must have shape \(B, D, k\) = \(1, 27, 2\)"),
    ("b0562", lambda: tangent_space.TangentFlow([1.0], 2).set_state(np.zeros((1, 10))), ValueError,
     r"^x must have shape \(B, D\) = \(1, 27\)"),
    # rotation
    ("b0544", lambda: rotation.rotation_number([1.0, 1.27], steps=60, transient=20, init=fx("SIM").context),
     ValueError, r"^init must be one context shared by the grid"),
    ("b0549", lambda: rotation.locked_fraction(-0.25), ValueError, r"^rho must be >= 0 and <= 0\.5"),
    ("b0551", lambda: rotation.section_resolution(np.random.default_rng(0).normal(size=(1, 3))), ValueError,
     r"^x must be a section of at least 2 points"),
    ("b0550", lambda: rotation.miss_share(np.zeros((5, 2)), np.zeros((5, 2)), 0.1), ValueError,
     r"^a must be a non-empty set of points in 3 coordinates"),
    ("b0640", lambda: rotation.RotationResult(np.array([1.0]), np.array([220.0]), np.array([0.02]), np.array([0.7]),
                                              np.array([3]), np.array([0.1]), 200), ValueError,
     r"^rho must hold rotation numbers in \[0, 1/2\]"),
    # basins, perturbed
    ("b0567", lambda: basins.Attractor(1.0, 4, -0.1, 1.5, 0), ValueError, r"^fraction must be > 0 and <= 1"),
    ("b0570", lambda: basins.same_attractor(np.zeros((4, 3)), np.zeros((4, 2)), 4, 4), ValueError,
     r"^a and b must have the same number of coordinates"),
    ("b0574", lambda: perturbed.census_rows([[perturbed.CensusAttractor(1.0, 4, [0], [-0.1, -0.2], [1], [4])]]),
     ValueError, r"^lyapunov must hold one entry per start \(1\); got 2"),
    ("b0575", lambda: perturbed.CensusAttractor(1.0, -1, [0], [-0.1], [1]), ValueError,
     r"^period must be an integer >= 0"),
    # finite N
    ("b0583", lambda: finite_n.binomial_sampler(fx("MDL"), 10, np.random.default_rng(0))(
        np.full((fx("MDL").o_classes.shape[0], 2), 1.5)), ValueError, r"^T must hold values in \[-1, 1\]"),
    ("b0587", lambda: finite_n.lattice_chi2_z(np.random.default_rng(0).integers(0, 5, 30) / 5,
                                              np.random.default_rng(1).integers(0, 5, 30) / 5, 7), ValueError,
     r"^xa must hold values on the lattice k/N \(N = 7\)"),
    # Floquet
    ("b0639", lambda: floquet.FloquetResult(np.array([1.0, 1.1]), 4, np.zeros((1, 12), complex), np.zeros(2),
                                            np.array([True, True]), np.zeros((2, 27))), ValueError,
     r"^multipliers must have shape \(2, \*\), one row per β"),
    ("b0555", lambda: floquet.neimark_sacker(dataclasses.replace(fx("FR"), multipliers=fx("FR").multipliers[:1])),
     ValueError, r"^multipliers must have shape \(2, \*\)"),
    # verdict numbers
    ("b0607", lambda: verdict_numbers.context_deviation(fx("CTX1"), fx("CTX1"), keys=()), ValueError,
     r"^keys must name at least one context entry"),
    # figures
    ("b0622", lambda: dfig.diagram_points(fx("SW3"), use="bogus"), ValueError, r"^use must be one of 'band', 'strobe'"),
    ("b0633", lambda: _close(dfig.staircase_and_tongues(fx("RR"), [], {"beta": 1.1, "rotation": 0.2}, fx("TONG"),
                                                        other=fx("TONG"))),
     ValueError, r"^other must be a staircase on rot's grid"),
    ("b0634", lambda: _close(dfig.basins([[basins.Attractor(1.0, 4, -0.1, 0.7, 0)]], 10)), ValueError,
     r"^found: the basin fractions at β = 1 must sum to 1"),
    ("b0625", lambda: _close(dfig.planes(np.asarray(fx("SIM3").betas), fx("SIM3"), np.array([4, 0]))), ValueError,
     r"^periods must hold one entry per β \(3\)"),
    ("b0627", lambda: _close(dfig.time_series(np.asarray(fx("SIM3").betas), fx("SIM3"), {"periodic": 5})), ValueError,
     r"^pick\['periodic'\] must be an integer in \[-3, 2\]"),
    ("b0628", lambda: _close(dfig.coexisting({}, fx("SW3").betas, np.array([False, True, False]))), ValueError,
     r"^results must hold at least one SweepResult"),
    ("b0629", lambda: _close(dfig.lyapunov_map(np.array([1.0, 1.1, 1.2]), np.array([200.0, 220.0]), np.zeros((3, 2)))),
     ValueError, r"^lam must have shape \(len\(gammas\), len\(betas\)\) = \(2, 3\)"),
    ("b0632", lambda: _close(dfig.floquet_and_spectrum(fx("FR"), floquet.neimark_sacker(fx("FR")), np.array([1.0, 1.2]),
                                                       np.zeros((3, 3)))),
     ValueError, r"^spec must have shape \(len\(spec_betas\), k\) = \(2, k\)"),
]


@pytest.mark.parametrize("row, call, exc, match", ROWS, ids=[r[0] for r in ROWS])
def test_outside5_dynamics_row_is_refused(row, call, exc, match):
    t0 = time.monotonic()
    with pytest.raises(exc, match=match):
        call()
    assert time.monotonic() - t0 < 60, f"{row}: refused, but only after {time.monotonic() - t0:.0f} s"


def test_documented_rows_keep_their_results():
    # b0534: 10**6 bins are still wider than a fine level, so the bounds hold
    lo, hi = fx("SW3").bin_count_bounds(bins=10**6)
    assert lo.shape == hi.shape == (3,) and np.all(lo <= hi)
    # b0595: quantize does not clip (v = max_y gives bins; beyond it, indices outside [0, bins])
    assert diagnostics.quantize(np.array([1.0, 1.5, -2.0]), 1.0, 5001).tolist() == [5001, 6251, -2500]
    # b0546: a tongue grid is read flattened, as tongue_widths reads it
    assert len(rotation.cycle_fraction(fx("TONG"))) == 4
    # b0610: max_lag beyond a quarter of the series is shortened to (T - 1) // 4
    out = verdict_numbers.memory_numbers(np.random.default_rng(0).normal(size=200), max_lag=500)
    assert out["acf"].shape == ((200 - 1) // 4 + 1,)


def test_valid_calls_still_work():
    rr, tong, fr, sim3, sw3 = fx("RR"), fx("TONG"), fx("FR"), fx("SIM3"), fx("SW3")
    sim = fx("SIM")
    assert engine.largest_lyapunov([1.0], steps=20, transient=5, progress=None).shape == (1,)
    assert sim.context_of(-1)["att_window"].shape == (3,) and dataclasses.replace(sim).m_o.shape == (2, 200, 3)
    assert engine.simulate([1.0], steps=20, transient=5, save=False).m_o is None
    counts = sw3.bin_counts()
    assert np.array_equal(sw3.bin_counts(max_y=sw3.max_y), counts)
    assert np.array_equal(sw3.exact_counts([0, -1]), sw3.exact_counts(np.array([0, 2])))
    assert sw3.periodic_points(-1).ndim == 1
    assert dataclasses.replace(sw3).classes().shape == (3,) and sw3.subset(slice(0, 2)).betas.size == 2
    assert dmodel.paper_weights(semantic_size=3, segments=3)["o"].shape == (3, 5)
    model = dmodel.paper_model()
    assert dataclasses.replace(model).context_size == 4 and model.correlation("q").shape == (3, 3)
    assert dmodel.token_context(model)["mk"].shape == (3,)
    assert diagnostics.bin_counts(sim.m_o[..., 0], max_y=float(np.abs(sim.m_o).max())).shape == (2,)
    assert diagnostics.envelope_decay_time(np.random.default_rng(0).normal(size=64), 8, period=32) >= 0
    flow = tangent_space.TangentFlow([1.0, 1.1], 2)
    flow.set_basis(np.ones((2, 27, 2)))
    flow.set_state(flow.state())
    assert flow.basis().shape == (2, 27, 2)
    assert rotation.locked_fraction(0.25) == rotation.Fraction(1, 4) and rotation.locked_fraction(0.5) is not None
    assert rotation.locked_fraction(0.0) == 0
    assert dataclasses.replace(rr).rho.shape == (2,) and dataclasses.replace(tong).rho.shape == (2, 2)
    ctx = fx("SIM").context_of(0)
    again = rotation.rotation_number([1.0, 1.27], steps=60, transient=20, init=ctx)
    assert again.rho.shape == (2,)
    x = np.random.default_rng(0).normal(size=(40, 3))
    assert rotation.section_resolution(x) > 0 and rotation.section_resolution(np.zeros((2, 3))) == 0.0
    assert 0.0 <= rotation.miss_share(x, x, 0.1) <= 1.0
    assert basins.same_attractor(np.zeros((1, 3)), np.zeros((1, 3)), 4, 4)
    assert basins.same_attractor(x, x, 0, 0) and not basins.same_attractor(x, x, 4, 0)
    assert basins.Attractor(1.0, 4, -0.1, 1.0, 0).kind == "period 4"
    census = [[perturbed.CensusAttractor(1.0, 4, [0, 1, 2], [-0.1, -0.1, -0.1], [1, 1, 1], [4, 4, 4], {"n_starts": 3})],
              [perturbed.CensusAttractor(1.27, 0, [0, 1], [0.001, -0.002], [3, 3], [900, 950]),
               perturbed.CensusAttractor(1.27, 0, [2], [0.1], [1], None)]]
    assert [r["n_starts"] for r in perturbed.census_rows(census)] == [3, 3]
    model = fx("MDL")
    T = np.tanh(np.random.default_rng(1).normal(size=(model.num_classes, 3)))
    assert finite_n.binomial_sampler(model, 10, np.random.default_rng(0))(T).shape == T.shape
    assert finite_n.direct_sampler(model, 10, np.random.default_rng(0))(T).shape == T.shape
    assert finite_n.simulate_finite([1.0, 1.2], 20, steps=30, transient=5).m_o.shape == (2, 25, 3)
    a, b = (np.random.default_rng(s).integers(0, 5, 30) / 5 for s in (0, 1))
    assert np.isfinite(finite_n.lattice_chi2_z(a, b, 5))
    assert np.isfinite(floquet.neimark_sacker(fr)["modulus_below"]) or "beta" in floquet.neimark_sacker(fr)
    assert verdict_numbers.context_deviation(fx("CTX1"), fx("CTX1"), keys=["att_window"]) == 0.0
    assert dfig.diagram_points(sw3, "strobe")[0].size > 0
    _close(dfig.planes(np.asarray(sim3.betas), sim3, np.array([4, 0, 0]), sim3, np.array([4, 0, 0]),
                       np.array([False, True, False]), ("a", "b")))
    _close(dfig.time_series(np.asarray(sim3.betas), sim3, {"periodic": 0, "chaotic": -1}))
    _close(dfig.coexisting({1.0: sw3}, sw3.betas, np.array([False, True, False])))
    _close(dfig.coexisting({1.0: sw3, 3.0: sw3}, sw3.betas, np.array([False, True, False])))
    _close(dfig.lyapunov_map(np.array([1.0, 1.1, 1.2]), np.array([200.0, 220.0]), np.zeros((2, 3))))
    _close(dfig.floquet_and_spectrum(fr, floquet.neimark_sacker(fr), np.array([1.0, 1.2]), np.zeros((2, 3))))
    _close(dfig.staircase_and_tongues(rr, [], {"beta": 1.1, "rotation": 0.2}, tong, other=rr))
    _close(dfig.basins([[basins.Attractor(1.0, 4, -0.1, 0.4, 0), basins.Attractor(1.0, 0, 0.1, 0.6, 1)]], 10))
