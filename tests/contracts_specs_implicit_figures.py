"""Contract specs of chapters 2-3's figures (``mfattn.implicit.figures``, ``figures_controls``), see
contracts_registry.py: each drawn from tiny synthetic data of the documented form (coupling norms of the 17-site
MNIST model, training histories, a solver race on a contraction, stored-study dicts), its figure closed in the child.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from contracts_registry import Spec
from contracts_specs_foundations import rng, seed

F = "mfattn.implicit.figures:"
FG = "mfattn.implicit.figures_couplings:"
FT = "mfattn.implicit.figures_transformer:"
FC = "mfattn.implicit.figures_controls:"


def closing(fn, kwargs):
    """Call a figure function and close what it drew (a Figure, or an animation's page: its figure is closed)."""
    import matplotlib.pyplot as plt

    got = fn(**kwargs)
    plt.close("all")
    return type(got).__name__


def _norms(d, frames=3):
    return np.abs(rng(d).normal(size=(frames, 17, 17))) + 0.01


def _steps(n):
    return np.arange(n) * 50


def _history(d, n=30):
    r = rng(d)
    return {"loss": np.abs(r.normal(2.0, 0.3, n)), "eval_step": np.array([0, 10, 20, 29]),
            "test_accuracy": r.uniform(0.1, 0.99, 4), "forward_iterations": r.uniform(5, 40, n),
            "backward_iterations": np.full(n, np.nan) if d(st.booleans()) else r.uniform(5, 40, n)}


def _race(d):
    import torch

    from mfattn.deq import solve

    rhos, methods = [0.5, 0.9], ["plain", "anderson"]
    z0 = torch.zeros(2, 3, dtype=torch.float64)
    race = {(rho, m): (solve(lambda z, r=rho: r * torch.tanh(z) + 1.0, z0, method=m, max_iter=20)[1], 0.01)
            for rho in rhos for m in methods}
    return {"race": race, "rhos": rhos, "methods": methods, "tol": d(st.sampled_from([1e-4, 1e-6]))}


def _steps_study(d, steps=4):
    r = rng(d)
    rhos = [0.5, 0.9]
    return {"study": {"distance": {rho: np.abs(r.normal(size=(steps + 1, 3))) + 1e-9 for rho in rhos},
                      "spread": {rho: {"with source": np.abs(r.normal(size=(steps + 1, 3))) + 1e-9,
                                       "without source": np.abs(r.normal(size=(steps + 1, 3))) + 1e-9} for rho in rhos}},
            "rhos": rhos, "rho_show": d(st.sampled_from(rhos)), "steps": steps, "title": "tiny study"}


def _scaling(d):
    nd = np.array([4.0, 8.0, 16.0, 32.0])
    return {"Nd": nd, "seconds": 1e-6 * nd ** d(st.floats(2.0, 3.0)), "fit": np.array([False, True, True, True]),
            "exponent": 2.5}


def _onsager(d, inputs=("g", "m")):
    r = rng(d)
    test_betas = np.array([0.2, 0.4, 0.6, 0.8])
    res = {f"{k}_err_{name}": r.uniform(0.01, 1.0, 4) for k in ("corr", "m") for name in inputs}
    res["m_err_naive"] = r.uniform(0.01, 1.0, 4)
    return {"res": res, "inputs": list(inputs), "test_betas": test_betas, "train_betas": [0.2, 0.4], "title": "tiny"}


def _points(d, n=60):
    r = rng(d)
    f = r.normal(size=n)
    return {"f": f, "f_affine": f + 0.1 * r.normal(size=n), "f_gaussian": r.normal(size=n), "reaction": r.normal(size=n)}


def _full_run(d, frames=3):
    r = rng(d)
    return {"eval_step": np.array([0, 500, 1000]), "test_accuracy": r.uniform(0.97, 0.995, 3),
            "forward_iterations_per_100": r.uniform(5, 40, 10), "backward_iterations_per_100": r.uniform(5, 40, 10),
            "coupling_norms": _norms(d, frames), "snapshot_step": _steps(frames)}


def _ax():
    """Axes to draw on, made in the child (the parent keeps no figure)."""
    import matplotlib.pyplot as plt

    return plt.figure().add_subplot()


SPECS = {
    F + "running_mean": Spec(lambda d: {"x": rng(d).normal(size=d(st.integers(5, 20))), "w": d(st.integers(1, 5))},
                             domain={"w": "int>=1"}),
    F + "confusion": Spec(lambda d: {"cm": rng(d).integers(0, 30, (10, 10))}, call=closing),
    FG + "settling": Spec(lambda d: {"snap_steps": _steps(4), "settle": np.abs(rng(d).normal(size=4)) + 1e-3},
                         call=closing),
    FG + "couplings": Spec(lambda d: (lambda s: {"norms": _norms(d, s), "snap_steps": _steps(s)})(d(st.integers(1, 5))),
                          call=closing),
    FG + "coupling_graph": Spec(lambda d: (lambda n: {"norms": n, "vmax": float(n.max()) * d(st.floats(1.0, 3.0)),
                                                     "top": d(st.integers(1, 40))})(_norms(d, 1)[0]),
                               domain={"vmax": ">0", "top": "int>=1"}, call=lambda fn, kw: closing(fn, {"ax": _ax(),
                                                                                                     **kw})),
    FG + "coupling_animation": Spec(lambda d: {"norms": _norms(d, 2), "snap_steps": _steps(2), "frames_max": 2},
                                   domain={"frames_max": "int>=1"}, call=closing),
    FG + "early_frames": Spec(lambda d: {"norms": _norms(d, 5), "snaps": np.array([0, 100, 250, 500, 2000]),
                                        "steps_per_epoch": 1000},
                             domain={"steps_per_epoch": "int>=1"}, call=closing),
    F + "mnist_training": Spec(lambda d: {"h": _history(d), "test_examples": d(st.integers(1, 10_000))},
                               domain={"test_examples": "int>=1"}, call=closing),
    F + "solver_race": Spec(_race, domain={"tol": ">0"}, call=closing),
    F + "fixed_point_stability": Spec(lambda d: {"budget": {"1": 0.3, "4": 0.8, "fixed point": d(st.floats(0.9, 1.0))},
                                                 "rho": {"blog": np.abs(rng(d).normal(1.0, 0.3, 20)),
                                                         "plain": np.abs(rng(d).normal(3.0, 1.0, 20))}},
                                      call=closing),
    F + "stability_over_training": Spec(lambda d: {"ot": {"step": _steps(3), "rho_median": np.array([0.8, 0.9, 1.1]),
                                                          "rho_q25": np.array([0.7, 0.8, 1.0]),
                                                          "rho_q75": np.array([0.9, 1.0, 1.2])},
                                                   "h": _history(d), "window": d(st.integers(1, 20))},
                                        domain={"window": "int>=1"}, call=closing),
    F + "learned_correction": Spec(lambda d: {"points": _points(d), "r2": d(st.floats(0, 1)), "r2_gaussian": 0.3,
                                              "cosine": d(st.floats(0, 1)), "max_points": d(st.integers(1, 100))},
                                   domain={"max_points": "int>=1"}, call=closing),
    F + "full_cpu": Spec(lambda d: {"fr": _full_run(d), "settle": np.array([0.5, 0.1, 0.0]) + 1e-3,
                                    "steps_per_epoch": 1000}, domain={"steps_per_epoch": "int>=1"}, call=closing),
    FT + "transformer_steps": Spec(_steps_study, domain={"rho_show": ">0", "steps": "int>=1"}, call=closing),
    FT + "tap_cost": Spec(lambda d: {"scaling": _scaling(d)}, call=closing),
    FT + "onsager": Spec(_onsager, call=closing),
    FC + "onsager_with_controls": Spec(lambda d: _onsager(d, ("g", "m", "m+b2")), call=closing),
    FC + "tap_cost_with_count": Spec(lambda d: {"scaling": _scaling(d), "count": {
        "Nd": [4.0, 8.0, 16.0, 32.0], "flops": [2 * n ** 3 + 10 * n for n in (4.0, 8.0, 16.0, 32.0)]}}, call=closing),
}
