"""Chapter 4's explanatory graphs (mfattn.structural.graphs) refuse a wrong argument at once, naming it (found by the
generated contract tests, issue 44 item 5). Before: radius = NaN, 0 or -1 drew an empty or inverted panel silently,
panel_size = 0 failed in matplotlib (LinAlgError: Singular matrix), ncols = 10**12 asked for terabytes, and a panel
that is not a GraphPanel failed with AttributeError."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from mfattn.structural import graphs  # noqa: E402


def test_draw_panel_checks_panel_and_radius():
    fig, ax = plt.subplots()
    try:
        panel = graphs.mechanism_panels()[0]
        graphs.draw_panel(ax, panel, radius=0.2)
        assert len(ax.patches) >= len(panel.nodes)   # one circle per node, then the edges
        for bad in (math.nan, 0.0, -1.0):
            with pytest.raises(ValueError, match=r"^radius must"):
                graphs.draw_panel(ax, panel, radius=bad)
        with pytest.raises(TypeError, match=r"^panel must be a GraphPanel"):
            graphs.draw_panel(ax, None)
    finally:
        plt.close(fig)


def test_draw_mechanisms_and_toy_problems_check_their_layout():
    fig = graphs.draw_mechanisms(graphs.mechanism_panels()[:2], ncols=2, panel_size=1.0)
    assert len(fig.axes) == 2
    plt.close(fig)
    with pytest.raises(ValueError, match=r"^ncols must be an integer in \[1, 64\]"):
        graphs.draw_mechanisms(ncols=10**12)
    with pytest.raises(ValueError, match=r"^panel_size must be > 0"):
        graphs.draw_mechanisms(panel_size=0.0)
    with pytest.raises(TypeError, match=r"^panels must be a list of GraphPanel"):
        graphs.draw_mechanisms("x")
    with pytest.raises(ValueError, match=r"^panel_size must be a finite number"):
        graphs.draw_toy_problems(math.inf)
