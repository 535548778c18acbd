"""Bad-input rows of ``mfattn.dynamics`` (chapter 6), gathered by test_bad_inputs.py.

Each row: (id, call, exception type(s), pattern naming the parameter).
"""

import tempfile
from pathlib import Path

import numpy as np

from mfattn.dynamics import diagnostics, engine, finite_n, map as mf_map, model, sweep


def _under_budget(units, call):
    """``call`` run with MFATTN_MAX_WORK raised to ``units`` (a check behind the work budget: the memory's)."""
    def run():
        import os

        old = os.environ.get("MFATTN_MAX_WORK")
        os.environ["MFATTN_MAX_WORK"] = repr(units)
        try:
            return call()
        finally:
            if old is None:
                os.environ.pop("MFATTN_MAX_WORK", None)
            else:
                os.environ["MFATTN_MAX_WORK"] = old
    return run


NAN, INF = float("nan"), float("inf")
M = model.paper_model()


def _context(batch=None, drop=()):
    ctx = {k: np.asarray(v) for k, v in model.token_context(M).items()} if hasattr(model, "token_context") else {}
    ctx = {"mv_window": np.zeros((M.context_size, 3)), "mk_window": np.zeros((M.context_size, 3)),
           "mq_window": np.zeros(3), "att_window": np.zeros(3)}
    if batch:
        ctx = {k: np.repeat(v[None], batch, axis=0) for k, v in ctx.items()}
    return {k: v for k, v in ctx.items() if k not in drop}


def _sweep_into_a_file(**kw):
    with tempfile.TemporaryDirectory() as folder:
        a_file = Path(folder) / "a-file"
        a_file.write_text("x")
        return sweep.sweep([1.0], steps=20, transient=10, out_dir=a_file, progress=False, **kw)


def _context_file_without_keys():
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ctx.npz"
        np.savez(path, mv_window=np.zeros((4, 3)))
        return engine.simulate([1.0], steps=20, transient=10, init=path)


ROWS = [
    # the grid of β, γ, ε
    ("dmft-simulate-betas-empty", lambda: engine.simulate([], steps=10, transient=0), ValueError, "betas"),
    ("dmft-simulate-betas-2d", lambda: engine.simulate(np.ones((2, 2)), steps=10, transient=0), ValueError, "betas"),
    ("dmft-simulate-betas-nan", lambda: engine.simulate([NAN], steps=10, transient=0), ValueError, "betas"),
    ("dmft-simulate-betas-inf", lambda: engine.simulate([INF], steps=10, transient=0), ValueError, "betas"),
    ("dmft-simulate-betas-negative", lambda: engine.simulate([-1.0], steps=10, transient=0), ValueError, "betas"),
    ("dmft-simulate-betas-text", lambda: engine.simulate(["hot"], steps=10, transient=0), (TypeError, ValueError),
     "betas"),
    ("dmft-simulate-gamma-length", lambda: engine.simulate([1.0, 2.0], steps=10, transient=0, gamma=[1, 2, 3]),
     ValueError, "gamma"),
    ("dmft-simulate-gamma-nan", lambda: engine.simulate([1.0], steps=10, transient=0, gamma=NAN), ValueError,
     "gamma"),
    ("dmft-simulate-epsilon-range", lambda: engine.simulate([1.0], steps=10, transient=0, epsilon=1.5), ValueError,
     "epsilon"),
    ("dmft-simulate-epsilon-nan", lambda: engine.simulate([1.0], steps=10, transient=0, epsilon=NAN), ValueError,
     "epsilon"),
    # steps and memory
    ("dmft-simulate-steps-zero", lambda: engine.simulate([1.0], steps=0, transient=0), ValueError, "steps"),
    ("dmft-simulate-steps-float", lambda: engine.simulate([1.0], steps=10.5, transient=0), (TypeError, ValueError),
     "steps"),
    ("dmft-simulate-transient-negative", lambda: engine.simulate([1.0], steps=10, transient=-1), ValueError,
     "transient"),
    ("dmft-simulate-transient-too-long", lambda: engine.simulate([1.0], steps=10, transient=10), ValueError,
     "transient"),
    ("dmft-simulate-work", lambda: engine.simulate([1.0], steps=10**9, transient=0), ValueError,
     "steps=1000000000 makes simulate"),
    ("dmft-simulate-memory", _under_budget(1e18, lambda: engine.simulate([1.0], steps=10**9, transient=0)),
     (ValueError, MemoryError), "save"),
    ("dmft-simulate-block", lambda: engine.simulate([1.0], steps=10, transient=0, block=0), ValueError, "block"),
    # backend and device
    ("dmft-simulate-backend", lambda: engine.simulate([1.0], steps=10, transient=0, backend="jax"), ValueError,
     "backend"),
    ("dmft-simulate-device-tpu", lambda: engine.simulate([1.0], steps=10, transient=0, backend="torch",
                                                         device="tpu"), ValueError, "device"),
    # initial contexts
    ("dmft-simulate-init-word", lambda: engine.simulate([1.0], steps=10, transient=0, init="random"), ValueError,
     "init"),
    ("dmft-simulate-init-type", lambda: engine.simulate([1.0], steps=10, transient=0, init=3), TypeError, "init"),
    ("dmft-simulate-init-keys", lambda: engine.simulate([1.0], steps=20, transient=10,
                                                        init=_context(drop=("mk_window",))), ValueError,
     "mk_window"),
    ("dmft-simulate-init-shape", lambda: engine.simulate([1.0], steps=20, transient=10,
                                                         init={**_context(), "mv_window": np.zeros((2, 3))}),
     ValueError, "mv_window"),
    ("dmft-simulate-init-batch", lambda: engine.simulate([1.0, 2.0], steps=20, transient=10, init=_context(batch=3)),
     ValueError, "init"),
    ("dmft-simulate-init-file-missing", lambda: engine.simulate([1.0], steps=20, transient=10,
                                                                init="/nonexistent/ctx.npz"), FileNotFoundError,
     "ctx.npz"),
    ("dmft-simulate-init-file-keys", _context_file_without_keys, ValueError, "mk_window"),
    ("dmft-lyapunov-sampler", lambda: engine.simulate([1.0], steps=10, transient=0, lyapunov=True,
                                                      sampler=lambda t: t), ValueError, "lyapunov"),
    ("dmft-largest-lyapunov-steps", lambda: engine.largest_lyapunov([1.0], steps=5, transient=5), ValueError,
     "transient"),
    # sweeps
    ("dmft-sweep-contexts-vs-betas", lambda: sweep.sweep([1.0, 2.0], steps=20, transient=10,
                                                         init=_context(batch=3), progress=False), ValueError,
     "init"),
    ("dmft-sweep-out-dir-file", _sweep_into_a_file, (NotADirectoryError, ValueError), "out_dir"),
    ("dmft-sweep-chunk", lambda: sweep.sweep([1.0], steps=20, transient=10, chunk_size=0, progress=False),
     ValueError, "chunk_size"),
    ("dmft-sweep-band", lambda: sweep.sweep([1.0], steps=20, transient=10, band_width=-1.0, progress=False),
     ValueError, "band_width"),
    ("dmft-sweep-period", lambda: sweep.sweep([1.0], steps=20, transient=10, max_period=0, progress=False),
     ValueError, "max_period"),
    ("dmft-sweep-betas-empty", lambda: sweep.sweep([], steps=20, transient=10, progress=False), ValueError, "betas"),
    # finite N
    ("dmft-finite-n-zero", lambda: finite_n.simulate_finite([1.0], 0), ValueError, "N"),
    ("dmft-finite-n-float", lambda: finite_n.simulate_finite([1.0], 10.5), (TypeError, ValueError), "N"),
    ("dmft-finite-sampler", lambda: finite_n.simulate_finite([1.0], 100, sampler="gauss"), ValueError, "sampler"),
    ("dmft-finite-seed", lambda: finite_n.simulate_finite([1.0], 100, seed=-1), ValueError, "seed"),
    ("dmft-error-vs-n-reps", lambda: finite_n.error_vs_n([1.0], [100], reps=0), ValueError, "reps"),
    ("dmft-error-vs-n-Ns", lambda: finite_n.error_vs_n([1.0], [0]), ValueError, "N"),
    ("dmft-error-vs-n-Ns-empty", lambda: finite_n.error_vs_n([1.0], []), ValueError, "Ns"),
    ("dmft-error-vs-n-steps", lambda: finite_n.error_vs_n([1.0], [100], steps=0), ValueError, "steps"),
    ("dmft-class-sizes-N", lambda: finite_n.class_sizes(M, -5), ValueError, "N"),
    # the model
    ("dmft-model-features", lambda: model.paper_model(num_features=0), ValueError, "num_features"),
    ("dmft-model-semantic", lambda: model.paper_model(semantic_size=0), ValueError, "semantic_size"),
    ("dmft-model-segments", lambda: model.paper_model(segments=0), ValueError, "segments"),
    ("dmft-model-context", lambda: model.paper_model(context_size=0), ValueError, "context_size"),
    ("dmft-model-token", lambda: model.paper_model(token_index=10**6), ValueError, "token_index"),
    ("dmft-model-weights", lambda: model.paper_model(weights={"Wo": np.ones((3, 4))}), ValueError, "weights"),
    ("dmft-load-context-missing", lambda: model.load_context("/nonexistent/context.npz"), FileNotFoundError,
     "context.npz"),
    # the one-β map
    ("dmft-map-beta-nan", lambda: mf_map.trajectory(M, NAN, 5), ValueError, "beta"),
    ("dmft-map-steps", lambda: mf_map.trajectory(M, 1.0, 0), ValueError, "steps"),
    # diagnostics
    ("dmft-bin-counts-bins", lambda: diagnostics.bin_counts(np.zeros((2, 5)), bins=1), ValueError, "bins"),
    ("dmft-bin-counts-shape", lambda: diagnostics.bin_counts(np.zeros(5)), ValueError, "m1"),
    ("dmft-classify-thresholds", lambda: diagnostics.classify(np.array([3]), periodic_below=100, chaotic_from=50),
     ValueError, "chaotic_from"),
    ("dmft-orbit-period-max", lambda: diagnostics.orbit_period(np.zeros((1, 10, 3)), max_period=0), ValueError,
     "max_period"),
    ("dmft-orbit-period-tol", lambda: diagnostics.orbit_period(np.zeros((1, 10, 3)), tol=-1.0), ValueError, "tol"),
    ("dmft-autocorrelation-lag", lambda: diagnostics.autocorrelation(np.zeros(10), max_lag=20), ValueError,
     "max_lag"),
    ("dmft-section-width", lambda: diagnostics.section_band(np.zeros((1, 10, 3)), width=0.0), ValueError, "width"),
    ("dmft-section-plot", lambda: diagnostics.poincare_section(np.zeros((1, 10, 3)), plot=5), ValueError, "plot"),
    ("dmft-bin-counts-max-y", lambda: diagnostics.bin_counts(np.zeros((2, 5))), ValueError, "max_y"),
    ("dmft-bin-bounds-max-y", lambda: diagnostics.bin_count_bounds([np.arange(3)], max_y=0.01, fine=2 ** 16),
     ValueError, "max_y"),
    ("dmft-bin-bounds-fine", lambda: diagnostics.bin_count_bounds([np.arange(3)], max_y=0.5, fine=1), ValueError,
     "fine"),
    ("dmft-confusion-shapes", lambda: diagnostics.confusion([0, 1], [0], [0.1, 0.2]), ValueError, "classes"),
    ("dmft-strobe-period", lambda: diagnostics.stroboscopic_section(np.zeros((1, 10, 3)), period=0), ValueError,
     "period"),
    ("dmft-strobe-phase", lambda: diagnostics.stroboscopic_section(np.zeros((1, 10, 3)), period=4, phase=4),
     ValueError, "phase"),
    ("dmft-strobe-t0", lambda: diagnostics.stroboscopic_section(np.zeros((1, 10, 3)), t0=-1), ValueError, "t0"),
    ("dmft-envelope-level", lambda: diagnostics.envelope_decay_time(np.ones(10), 5, level=0.0), ValueError, "level"),
    ("dmft-envelope-lag", lambda: diagnostics.envelope_decay_time(np.ones(10), 50), ValueError, "max_lag"),
    ("dmft-envelope-period", lambda: diagnostics.envelope_decay_time(np.ones(40), 5, period=0), ValueError, "period"),
    ("dmft-attractor-distance-shapes", lambda: diagnostics.attractor_distance(np.zeros((5, 3)), np.zeros((5, 2))),
     ValueError, "a and b"),
    ("dmft-attractor-distance-q", lambda: diagnostics.attractor_distance(np.zeros((5, 3)), np.zeros((5, 3)), q=2.0),
     ValueError, "q"),
    ("dmft-compare-attractors-shapes", lambda: diagnostics.compare_attractors(np.zeros((2, 5, 3)), np.zeros((3, 5, 3)),
                                                                              [0, 0], [0, 0, 0]), ValueError, "sections"),
    ("dmft-compare-attractors-factor", lambda: diagnostics.compare_attractors(np.zeros((1, 5, 3)), np.zeros((1, 5, 3)),
                                                                              [0], [0], factor=0.0), ValueError, "factor"),
    ("dmft-sweep-strobe-points", lambda: sweep.sweep([1.0], steps=20, transient=10, strobe_points=0, progress=False),
     ValueError, "strobe_points"),
]

# beyond the paper: the explicit network, Floquet multipliers, Lyapunov spectra, rotation numbers
from mfattn.dynamics import basins, floquet, lyapunov, rotation  # noqa: E402
_STAIR = rotation.RotationResult(np.array([1.0, 1.1]), None, None, np.array([0.25, 0.25]), np.full(2, 4),
                               np.ones(2), 200, np.full(2, -0.01))

ROWS += [
    ("dmft-floquet-period-zero", lambda: floquet.floquet_multipliers([1.0], period=0), ValueError, "period"),
    ("dmft-floquet-period-phase", lambda: floquet.floquet_multipliers([1.0], period=6), ValueError, "period"),
    ("dmft-floquet-betas-empty", lambda: floquet.floquet_multipliers([], period=4), ValueError, "betas"),
    ("dmft-floquet-steps", lambda: floquet.floquet_multipliers([1.0], steps=0), ValueError, "steps"),
    ("dmft-floquet-newton", lambda: floquet.floquet_multipliers([1.0], newton=-1), ValueError, "newton"),
    ("dmft-floquet-tol", lambda: floquet.floquet_multipliers([1.0], tol=0.0), ValueError, "tol"),
    ("dmft-rotation-betas-empty", lambda: rotation.rotation_number([], 40, 10), ValueError, "betas"),
    ("dmft-rotation-phase", lambda: rotation.rotation_number([1.0], 40, 10, phase=4), ValueError, "phase"),
    ("dmft-rotation-too-short", lambda: rotation.rotation_number([1.0], 16, 10), ValueError, "stroboscopic"),
    ("dmft-rotation-cap", lambda: rotation.rotation_number([1.0], 40, 10, cap=1), ValueError, "cap"),
    ("dmft-rotation-locked-q", lambda: rotation.locked_fraction(0.25, max_q=0), ValueError, "max_q"),
    ("dmft-plateaus-max-gap", lambda: rotation.plateaus(_STAIR, max_gap=-1), ValueError, "max_gap"),
    ("dmft-plateaus-max-gap-float", lambda: rotation.plateaus(_STAIR, max_gap=2.5), (ValueError, TypeError), "max_gap"),
    ("dmft-plateaus-without-lambda", lambda: rotation.plateaus(rotation.RotationResult(
        _STAIR.betas, None, None, _STAIR.rho, _STAIR.distinct, _STAIR.radius, 200)), ValueError, "λ_max"),
    ("dmft-tongue-widths-1d", lambda: rotation.tongue_widths(_STAIR), ValueError, "tongues"),
    ("dmft-compare-sections-shape", lambda: rotation.compare_sections(np.zeros((2, 5, 3)), np.zeros((3, 5, 3)), [0, 0],
                                                                      [0, 0, 0]), ValueError, "sections_a"),
    ("dmft-island-count-short", lambda: diagnostics.island_count(np.zeros((10, 3))), ValueError, "section"),
    ("dmft-finite-time-window", lambda: lyapunov.finite_time_lyapunov([1.0], 0, 40, 10), ValueError, "window"),
    ("dmft-tongues-epsilons-empty", lambda: rotation.arnold_tongues([1.0], []), ValueError, "epsilons"),
    ("dmft-tongues-epsilons-range", lambda: rotation.arnold_tongues([1.0], [1.5]), ValueError, "epsilons"),
    ("dmft-tongues-betas-nan", lambda: rotation.arnold_tongues([NAN], [0.02]), ValueError, "betas"),
    ("dmft-basins-betas-empty", lambda: basins.basin_fractions([], 4), ValueError, "betas"),
    ("dmft-basins-contexts", lambda: basins.basin_fractions([1.0], 0), ValueError, "n_contexts"),
    ("dmft-basins-tol", lambda: basins.basin_fractions([1.0], 4, tol=0.0), ValueError, "tol"),
    ("dmft-basins-window", lambda: basins.basin_fractions([1.0], 4, 1000, 900), ValueError, "points"),
    ("dmft-random-contexts-n", lambda: basins.random_contexts(0), ValueError, "n"),
    ("dmft-random-contexts-seed", lambda: basins.random_contexts(4, seed=-1), ValueError, "seed"),
    ("dmft-spectrum-k-too-large", lambda: lyapunov.lyapunov_spectrum([1.0], k=13, steps=20, transient=10), ValueError,
     "k must be at most the state dimension"),
    ("dmft-spectrum-k-zero", lambda: lyapunov.lyapunov_spectrum([1.0], k=0, steps=20, transient=10), ValueError, "k"),
    ("dmft-spectrum-betas-empty", lambda: lyapunov.lyapunov_spectrum([], k=2, steps=20, transient=10), ValueError,
     "betas"),
    ("dmft-spectrum-transient", lambda: lyapunov.lyapunov_spectrum([1.0], k=2, steps=20, transient=20), ValueError,
     "transient"),
    ("dmft-spectrum-qr-every", lambda: lyapunov.lyapunov_spectrum([1.0], k=2, steps=20, transient=10, qr_every=0),
     ValueError, "qr_every"),
    ("dmft-spectrum-context-transient", lambda: lyapunov.lyapunov_spectrum([1.0], k=2, steps=20, transient=1,
                                                                           init=_context()), ValueError, "transient"),
    ("dmft-network-N-zero", lambda: finite_n.simulate_network([1.0], 0, 10), ValueError, "N"),
    ("dmft-network-N-float", lambda: finite_n.simulate_network([1.0], 99.5, 10), ValueError, "N"),
    ("dmft-network-betas-empty", lambda: finite_n.simulate_network([], 99, 10), ValueError, "betas"),
    ("dmft-network-betas-negative", lambda: finite_n.simulate_network([-1.0], 99, 10), ValueError, "betas"),
    ("dmft-network-steps", lambda: finite_n.simulate_network([1.0], 99, 0), ValueError, "steps"),
    ("dmft-network-transient", lambda: finite_n.simulate_network([1.0], 99, 10, 10), ValueError, "transient"),
    ("dmft-network-seed-negative", lambda: finite_n.simulate_network([1.0], 99, 10, seed=-1), ValueError, "seed"),
    ("dmft-network-seed-length", lambda: finite_n.simulate_network([1.0, 2.0], 99, 10, seed=[1]), ValueError, "seed"),
    ("dmft-network-seed-text", lambda: finite_n.simulate_network([1.0], 99, 10, seed=object()), TypeError, "seed"),
    ("dmft-network-epsilon", lambda: finite_n.simulate_network([1.0], 99, 10, epsilon=2.0), ValueError, "epsilon"),
    ("dmft-network-gamma-nan", lambda: finite_n.simulate_network([1.0], 99, 10, gamma=NAN), ValueError, "gamma"),
    ("dmft-network-error-Ns-empty", lambda: finite_n.network_error_vs_n(1.0, []), ValueError, "Ns"),
    ("dmft-network-error-N", lambda: finite_n.network_error_vs_n(1.0, [0]), ValueError, "N"),
    ("dmft-network-error-reps", lambda: finite_n.network_error_vs_n(1.0, [99], reps=0), ValueError, "reps"),
    ("dmft-network-error-beta", lambda: finite_n.network_error_vs_n(NAN, [99]), ValueError, "beta"),
    ("dmft-lattice-chi2-N", lambda: finite_n.lattice_chi2_z(np.zeros(5), np.zeros(5), 0), ValueError, "N"),
    ("dmft-lattice-chi2-cells", lambda: finite_n.lattice_chi2_z(np.zeros(5), np.zeros(5), 99), ValueError, "xa and xb"),
    ("dmft-network-token-epsilon", lambda: finite_n.network_token_model(M, epsilon=-0.1), ValueError, "epsilon"),
]
