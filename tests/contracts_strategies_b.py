"""Valid inputs for the contract specs of chapters 4-6's readers, figures and inner steps (issue 44 item 5).

Each builder makes a tiny input of the documented form: a study or sweep run once at a few steps (cached, so that
the parent draws it once and every forked child reuses it), or a small synthetic dict shaped like the stored ones.
The draw picks among a few cached variants, so examples differ without paying for a new run each time.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np
import torch
from hypothesis import strategies as st

from contracts_specs_foundations import rng, seed

BETAS = ((1.0, 1.26, 1.3), (1.0, 1.28), (1.2, 1.27, 1.3))


def pick(d, n: int) -> int:
    """One of ``n`` cached variants."""
    return d(st.integers(0, n - 1))


def tmpdir() -> Path:
    """A fresh empty folder (the children write there, never in the working tree)."""
    return Path(tempfile.mkdtemp(prefix="mfattn-contract-"))


def in_new_axes(fn, kw, name="ax"):
    """Call a figure helper that draws on an axis: the axis is made in the child (no figure in the parent)."""
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return fn(ax, **{k: v for k, v in kw.items() if k != name})


# --- chapter 6 ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def sweep_result(i: int = 0, steps: int = 200):
    from mfattn.dynamics.sweep import sweep

    return sweep(list(BETAS[i]), steps=steps, transient=20, chunk_size=20, strobe_points=10, lyapunov=True)


def sweep_of(d):
    return sweep_result(pick(d, len(BETAS)))


@functools.lru_cache(maxsize=None)
def long_sweep(i: int = 0):
    from mfattn.dynamics.sweep import sweep

    short = sweep_result(i)
    return sweep(short.betas[short.period == 0], steps=400, transient=20, chunk_size=20, strobe_points=10,
                 lyapunov=True)


@functools.lru_cache(maxsize=None)
def simulation(n_betas: int = 3, steps: int = 440):
    from mfattn.dynamics.engine import simulate

    return simulate(list(np.linspace(1.0, 1.3, n_betas)), steps=steps, transient=20, lyapunov=True)


@functools.lru_cache(maxsize=None)
def floquet(i: int = 0):
    from mfattn.dynamics.floquet import floquet_multipliers

    return floquet_multipliers([1.0, 1.1, 1.2, 1.26][: 3 + i], steps=60)


@functools.lru_cache(maxsize=None)
def rotation(i: int = 0):
    from mfattn.dynamics.rotation import rotation_number

    return rotation_number(list(BETAS[i]), steps=200, transient=20, cap=20, chunk_size=20, lyapunov=True)


@functools.lru_cache(maxsize=None)
def tongues():
    from mfattn.dynamics.rotation import arnold_tongues

    return arnold_tongues([1.0, 1.26], [0.0, 0.02], steps=100, transient=20, cap=20)


def sections(d, B=2, K=12, M=3):
    return rng(d).uniform(-0.5, 0.5, (B, K, M))


def census(d):
    """A census of two β: one period-4 attractor, and a torus and a chaotic one from a few starts."""
    from mfattn.dynamics.perturbed import CensusAttractor

    r = rng(d)
    lam = [float(x) for x in r.uniform(-0.01, 0.01, 2)]
    return [[CensusAttractor(1.0, 4, [0, 1, 2], [-0.1, -0.1, -0.1], [1, 1, 1], [4, 4, 4], {"n_starts": 3})],
            [CensusAttractor(1.27, 0, [0, 1], lam, [3, 3], [900, 950]),
             CensusAttractor(1.27, 0, [2], [0.1], [1], None)]]


def census_row(d):
    return {"period": d(st.sampled_from([0, 4])), "lyapunov": [d(st.floats(-0.1, 0.2)), 0.05],
            "islands": d(st.integers(1, 5))}


def attractors(d):
    from mfattn.dynamics.basins import Attractor

    f = d(st.floats(0.1, 0.9))
    return [[Attractor(1.0, 4, -0.1, 1.0, 0)], [Attractor(1.27, 0, 0.0, f, 0), Attractor(1.27, 0, 0.1, 1 - f, 1)]]


@functools.lru_cache(maxsize=None)
def context_file() -> Path:
    from mfattn.companion import store
    from mfattn.dynamics.basins import random_contexts

    ctx = {k: v[0] for k, v in random_contexts(1, 0).items()}
    return store.atomic_save_npz(tmpdir() / "context.npz", **ctx)


# --- chapters 4-5 ------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def expanding_run(d: int = 2, n: int = 6, ps=(0.5, 0.2), seeds=(0, 1), steps: int = 4):
    from mfattn.structural.expanding_train import train_expanding

    return train_expanding(ps=ps, d=d, n=n, seeds=seeds, steps=steps, record_every=1, cache=False,
                           models=("expanding", "standard"))


@functools.lru_cache(maxsize=None)
def multihop_run(models=("one_layer", "multihop", "two_layer"), seeds=(0, 1)):
    from mfattn.structural.multihop import train_multihop

    return train_multihop(models=models, seeds=seeds, steps=2, batch_size=4, test_size=4, record_every=1, cache=False,
                          stream_steps=4)


def exp_runs(d):
    """``{d: run}`` of train_expanding (tiny), with the dims and ps it holds."""
    return {"runs": {2: expanding_run()}, "dims": [2], "ps": [0.5, 0.2][: 1 + pick(d, 2)]}


def ref_exp(d, ps=(0.5, 0.2), steps: int = 10):
    """The public code's stored expanding runs (``expanding_<d>.json``), as lists of floats."""
    r = rng(d)
    return [{"expanding": {"geo_p": p, "loss": list(r.uniform(0.5, 1.0, steps)), "window": list(r.integers(28, 50, steps)),
                           "iterations": list(r.integers(1, 4, steps))},
             "standard": {"geo_p": p, "loss": list(r.uniform(0.5, 1.0, steps))}} for p in ps]


def ref_multi(d, seeds=(0, 1), steps: int = 4):
    """The public code's stored multi-hop losses (``multiple_training.json``): per seed, per model, the losses."""
    r = rng(d)
    return {str(s): {"long": list(r.uniform(0.1, 1.0, steps)), "standard": list(r.uniform(0.1, 1.0, steps))}
            for s in seeds}


def repro(d, seeds=(0, 1), steps: int = 3):
    r = rng(d)
    return {"record_steps": np.arange(steps) * 1000, "loss/multihop": r.uniform(0.1, 1.0, (len(seeds), steps)),
            "loss/one_layer": r.uniform(0.1, 1.0, (len(seeds), steps))}


def replay(d):
    r = rng(d)
    return {"variants": {"batch": {m: {"relative_deviation": r.uniform(0, 2e-5, (2, 3)).tolist()}
                                   for m in ("multihop", "one_layer")}}}


def full_exp(d):
    r = rng(d)
    return {"ps": [0.5, 0.2], "stored_code_measure": list(r.uniform(0.3, 0.6, 2)),
            "code_measure_per_seed": {"0.5": {"0": 0.31, "1": 0.33}, "0.2": {"0": float(r.uniform(0.4, 0.5))}}}


@functools.lru_cache(maxsize=None)
def variants():
    from mfattn.structural.expanding_train import train_expanding_variants

    return train_expanding_variants({"plug-in, paper slope": {}, "CAVI, paper slope": {"update": "cavi"}},
                                    ps=(0.5, 0.2), d=2, n=6, seeds=(0, 1), steps=4, record_every=1, cache=False)


@functools.lru_cache(maxsize=None)
def coverage():
    from mfattn.structural.analysis import window_coverage

    return window_coverage({2: expanding_run()}, [2], [0.5, 0.2], first_window=3, n=6)


def scores(d, B=2, T=8):
    return torch.randn(B, T, generator=torch.Generator().manual_seed(seed(d)), dtype=torch.float64)


def _g(i: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(i)


@functools.lru_cache(maxsize=None)
def enumeration(i: int = 0):
    from mfattn.structural import edges

    return edges.enumeration_study(n=3, d=2, beta=1.0, instances=2, generator=_g(i))


@functools.lru_cache(maxsize=None)
def width(i: int = 0):
    from mfattn.structural import slots

    return slots.width_study(points=6, clusters=2, trials=3, spread=0.5, sigmas=[1.0, 0.5], iters=2, example_sigma=1.0,
                             data_generator=_g(i), init_generator=_g(i + 1))


@functools.lru_cache(maxsize=None)
def pc_problem(i: int = 0):
    from mfattn.structural import predictive_coding as pc

    return pc.make_problem(3, 3, 4, 2, generator=_g(i))


@functools.lru_cache(maxsize=None)
def pc_study(i: int = 0):
    from mfattn.structural import predictive_coding as pc

    return pc.step_size_study(pc_problem(i), steps=3, pi=1.0, pi_y=1.0, lr_fractions=[0.5])


@functools.lru_cache(maxsize=None)
def hopfield_grid(i: int = 0):
    from mfattn.structural import hopfield

    return hopfield.retrieval_grid(dim=4, pattern_counts=[2, 3], betas=[0.5, 1.0], trials=2, steps=2, seed=i)


def mu_start(d, trials=3, k=2):
    return torch.randn(trials, k, 2, generator=_g(seed(d)), dtype=torch.float64)


ROOT = Path(__file__).resolve().parents[1]   # the checkout: its data/full holds the stored full-profile numbers


class Recorder:
    """A chapter run that records what ``run.verdict`` and ``run.number`` receive (the claims' record functions)."""

    def __init__(self):
        self.got = []

    def verdict(self, claim_id, source, claim, verdict, evidence, numbers=None, note="", **kw):
        self.got.append((claim_id, verdict))

    def number(self, key, value, *args, **kw):
        self.got.append((key, value))


def with_cache(fn, kw):
    """Call in the child with ``$MFATTN_CACHE`` a fresh folder (never the checkout's cache)."""
    import os

    os.environ["MFATTN_CACHE"] = str(tmpdir())
    return fn(**kw)


def benchmark_file(d) -> Path:
    import json

    r = rng(d)
    rows = [{"n": n, "full_ms": float(r.uniform(1, 2)), "lazy_ms": float(r.uniform(0.5, 2)), "dense_ms": 1.0,
             "ops_ratio": float(r.uniform(0.1, 1))} for n in (64, 256)]
    path = tmpdir() / "bench.json"
    path.write_text(json.dumps({"meta": {"torch": "x"}, "rows": rows}))
    return path


@functools.lru_cache(maxsize=None)
def fig4_runs():
    """Fig. 4's runs at two β (2500 saved steps: the decay times' 2000-step windows fit), their periods and the
    comparison of their sections."""
    from mfattn.dynamics import diagnostics
    from mfattn.dynamics.engine import simulate

    planes = simulate([1.26, 1.28], steps=2600, transient=100, lyapunov=True)
    per = diagnostics.orbit_period(planes.m_o, max_period=500)
    strobe = np.stack(diagnostics.stroboscopic_section(planes.m_o, 4, 0, planes.transient))
    return planes, per, diagnostics.compare_attractors(strobe, strobe, per, per)


def summary_inputs(d):
    """verdict_numbers.summary's arguments as chapter 6 passes them, at tiny sizes (2 realisations per N)."""
    planes, per, cmp4 = fig4_runs()
    return {"sizes": {"protocol": "short", "steps": 2600, "transient": 100, "error_reps": 2},
            "diagrams": {"fig3a": sweep_result(0), "fig3b": sweep_result(1)}, "fig4_betas": np.array([1.26, 1.28]),
            "planes": planes, "plane_periods": per, "ours": planes, "ours_periods": per, "cmp4": cmp4,
            "has_ref": d(st.booleans()), "ctx_results": {1.0: sweep_result(0)},
            "coexist": np.array([False, d(st.booleans()), False]), "both_tori": np.zeros(3, dtype=bool),
            "slopes": [d(st.floats(-0.6, -0.4)), -0.49], "Ns": [10, 20, 40],
            "errs": np.array([[0.3, 0.2, 0.15], [0.4, 0.3, 0.2]])}
