"""Chunked, resumable sweeps (mfattn.dynamics.sweep)."""

import numpy as np

from mfattn.dynamics.diagnostics import bin_counts, classify, section_band, stroboscopic_section
from mfattn.dynamics.engine import simulate
from mfattn.dynamics.sweep import save_diagram, sweep, sweep_many


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
        strobe = stroboscopic_section(one.m_o, period=4, t0=2000)[0].astype(np.float32)
        assert np.array_equal(strobe[-res.strobe.shape[1]:], res.strobe[i])
        assert np.array_equal(section_band(one.m_o)[0].astype(np.float32), res.band[i])


def test_stroboscopic_points_are_states_of_the_orbit():
    # Every stroboscopic point is a state the map visited at a step t ≡ 0 (mod L): on the period-24 orbit
    # at β = 3 (24 = 6 L) the section is exactly 6 distinct states, each found among the saved states.
    res = sweep([3.0, 1.28], steps=6000, transient=4000, progress=False, strobe_points=200)
    run = simulate([3.0, 1.28], steps=6000, transient=4000)
    pts = np.unique(np.round(res.strobe[0].astype(np.float64), 6), axis=0)
    assert pts.shape == (6, 3)
    for i in (0, 1):   # each point is a saved state (float32), and on the chaotic orbit at its step's phase
        d = np.abs(res.strobe[i][:, None, :] - run.m_o[i][None, :, :].astype(np.float32)).max(-1)
        assert np.all(d.min(1) == 0)
    assert np.all((4000 + d.argmin(1)) % 4 == 0)


def test_bin_count_bounds_bracket_the_papers_exact_count():
    # The paper counts distinct int(5001 (v / max_y + 1) / 2) over every saved value of m^o_1, with max_y =
    # max(|min|, |max|) of every saved m^o (all features, all β; its plotting code). The sweep keeps fine levels
    # only: their bounds must bracket the exact count for every β, and the count it reports must be the exact
    # count itself at every β (the old one was the lower bound wherever both bounds gave one class).
    betas = np.linspace(1.24, 1.30, 9)
    res = sweep(betas, steps=6000, transient=2000, progress=False)
    run = simulate(betas, steps=6000, transient=2000)
    max_y = float(max(np.abs(run.m_o.min()), np.abs(run.m_o.max())))
    assert max_y == res.max_y
    exact = bin_counts(run.m_o[:, :, 0], max_y=max_y)
    lo, hi = res.bin_count_bounds()
    assert np.all(lo <= exact) and np.all(exact <= hi), (lo, exact, hi)
    np.testing.assert_array_equal(res.bin_counts(), exact)
    np.testing.assert_array_equal(res.classes(), classify(exact))
    assert res.undecided().size <= 2   # 2^32 levels: a level straddles a bin edge at almost no β
    # the old recount from level centres was not a bound of the exact count
    coarse = [np.unique(lv.astype(np.int64) >> 16) for lv in res.levels]   # the old 2^16 levels
    centre = np.array([bin_counts(((lv + 0.5) / 2 ** 16 * 2 - 1)[None], max_y=max_y)[0] for lv in coarse])
    assert np.any(centre != exact)


def test_saved_diagram_stores_the_papers_count_for_every_beta(tmp_path):
    betas = np.linspace(1.25, 1.29, 5)
    res = sweep(betas, steps=5000, transient=2000, progress=False, lyapunov=True)
    run = simulate(betas, steps=5000, transient=2000)
    exact = bin_counts(run.m_o[:, :, 0], max_y=float(np.abs(run.m_o).max()))
    with np.load(save_diagram(tmp_path / "d.npz", res)) as d:
        np.testing.assert_array_equal(d["paper_counts"], exact)
        np.testing.assert_array_equal(d["classes"], classify(exact))
        assert float(d["max_y"]) == float(np.abs(run.m_o).max())


def test_saved_rows_are_the_states_of_the_map():
    # What a run saves is the map's own orbit, row for row (a bound like |m^o| > 1e-6 passes most garbage): from the
    # token every row t equals map.trajectory's m^o_t; from a context (the map starts at t = L there) the rows equal
    # the token run continued from the step where that context was taken (same phase: both next steps are t ≡ 0).
    from mfattn.dynamics import map as mf_map
    from mfattn.dynamics.model import paper_model
    model, betas = paper_model(), [0.8, 1.28]
    tok = simulate(betas, steps=40, transient=0)
    for i, b in enumerate(betas):
        np.testing.assert_allclose(tok.m_o[i], mf_map.trajectory(model, b, 40), rtol=0, atol=1e-13)
    n = 400
    long = simulate(betas, steps=n + 16, transient=n)
    ctx = simulate(betas, steps=n, transient=n - 1).context
    cont = simulate(betas, steps=20, transient=4, init=ctx)
    np.testing.assert_array_equal(cont.m_o, long.m_o)


def test_sweeps_run_together_are_the_sweeps_run_alone():
    # two diagrams from two contexts in one batched run: each part is bit for bit its own sweep (orbits, λ, levels,
    # sections), with its own bin scale
    ctx = {b: simulate([b], 2000, 1999).context_of(0) for b in (3.0, 1.28)}
    parts = {"a": (np.linspace(2.0, 3.0, 5), ctx[3.0]), "b": (np.linspace(1.24, 1.28, 4), ctx[1.28])}
    many = sweep_many(parts, 3000, 1000, lyapunov=True, progress=False)
    for name, (betas, c) in parts.items():
        one = sweep(betas, 3000, 1000, c, lyapunov=True, progress=False)
        got = many[name]
        assert np.array_equal(got.lyapunov, one.lyapunov) and np.array_equal(got.strobe, one.strobe)
        assert all(np.array_equal(x, y) for x, y in zip(got.levels, one.levels)) and got.max_y == one.max_y
        np.testing.assert_array_equal(got.bin_counts(), one.bin_counts())
