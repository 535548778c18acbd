"""Basin sampling (mfattn.dynamics.basins): attractors compared as sets, fractions of random contexts."""

import numpy as np

from mfattn.dynamics import basins, diagnostics, engine


def test_same_attractor_compares_sets():
    rng = np.random.default_rng(0)
    th1, th2 = rng.uniform(0, 2 * np.pi, 400), rng.uniform(0, 2 * np.pi, 400)
    circle = lambda th, c=0.0: np.stack([0.3 * np.cos(th) + c, 0.3 * np.sin(th), 0 * th], 1)  # noqa: E731
    assert basins.same_attractor(circle(th1), circle(th2), 0, 0)  # one torus sampled twice
    assert not basins.same_attractor(circle(th1), circle(th2, 0.1), 0, 0)  # a shifted torus
    assert not basins.same_attractor(circle(th1), circle(th1), 28, 56)  # different periods


def test_random_contexts_reach_every_attractor_with_its_fraction():
    # β = 1.0: one attractor (the period-4 orbit) for every context. β = 1.27: the period-28 window
    # coexists with a period-56 orbit; rerunning the representative contexts must give those periods.
    out = basins.basin_fractions([1.0, 1.27], 24, 12_000, 8000, seed=0)
    assert len(out[0]) == 1 and out[0][0].period == 4 and out[0][0].fraction == 1.0
    kinds = {a.period: a for a in out[1]}
    assert set(kinds) == {28, 56}, [(a.period, a.fraction) for a in out[1]]
    assert abs(sum(a.fraction for a in out[1]) - 1) < 1e-12
    ctx = basins.random_contexts(24, 0)
    for p, a in kinds.items():
        one = {k: v[a.representative] for k, v in ctx.items()}
        m = engine.simulate([1.27], 12_000, 10_000, one).m_o
        assert diagnostics.orbit_period(m, max_period=200, tol=1e-8)[0] == p
