"""Chunked, resumable sweeps (mfattn.dynamics.sweep)."""

import numpy as np

from mfattn.dynamics.diagnostics import poincare_section, section_band
from mfattn.dynamics.engine import simulate
from mfattn.dynamics.sweep import sweep


def test_sweep_resumes_identically(tmp_path):
    betas = np.linspace(1.2, 1.5, 12)
    kw = dict(steps=3000, transient=1000, chunk_size=5, out_dir=tmp_path, lyapunov=True, progress=False)
    full = sweep(betas, **kw)
    folder = next(tmp_path.iterdir())
    (folder / "chunk-00001.npz").unlink()  # an interrupted run: one chunk missing
    resumed = sweep(betas, **kw)
    assert np.array_equal(full.lyapunov, resumed.lyapunov)
    assert all(np.array_equal(a, b) for a, b in zip(full.band, resumed.band))
    assert np.array_equal(full.bin_counts(), resumed.bin_counts())
    direct = simulate(betas[5:10], steps=3000, transient=1000, lyapunov=True)
    assert np.array_equal(direct.lyapunov, full.lyapunov[5:10])


def test_sweep_from_batched_contexts_matches_single_runs():
    betas = np.linspace(1.2, 1.4, 7)
    starts = simulate(betas, steps=2000, transient=1990).context  # one context per β
    res = sweep(betas, steps=3000, transient=2000, init=starts, chunk_size=3, progress=False)
    for i in (0, 4, 6):
        one = simulate(betas[i:i + 1], steps=3000, transient=2000, init={k: v[i] for k, v in starts.items()})
        assert np.array_equal(poincare_section(one.m_o)[0].astype(np.float32), res.poincare[i])
        assert np.array_equal(section_band(one.m_o)[0].astype(np.float32), res.band[i])
