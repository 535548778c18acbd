"""Drawings of the graphical models behind each attention mechanism (Singh & Buckley 2023, Fig. 1).

Every panel shows nodes (shaded: observed; white: inferred), the *candidate* edges the
prior allows (thin dashed grey) and one edge set drawn from that prior (solid colour):
attention is the posterior average over such edge sets. Parents sit below their children.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..companion.checks import check_bool, check_int, check_real, contract

__all__ = ["GraphPanel", "mechanism_panels", "draw_panel", "draw_mechanisms", "toy_problem_panels",
           "draw_toy_problems"]

_EDGE = "#1f77b4"
#: The widest spread of a panel's nodes, in data units (rows sit 1 apart; 1e308 overflowed the axis limits).
MAX_EXTENT = 1e3
_CAND = "0.6"


@dataclass
class GraphPanel:
    """A small graphical model to draw.

    nodes : name -> (x, y, label, observed)
    candidates : edges (parent, child) allowed by the prior (dashed)
    chosen : one edge set in the prior's support (solid)
    fixed : edges that are always present (solid black), e.g. a known likelihood
    weights : optional prior weight in (0, 1] per candidate edge, drawn as its opacity
    """

    title: str
    nodes: dict[str, tuple[float, float, str, bool]]
    candidates: list[tuple[str, str]] = field(default_factory=list)
    chosen: list[tuple[str, str]] = field(default_factory=list)
    fixed: list[tuple[str, str]] = field(default_factory=list)
    note: str = ""
    weights: dict[tuple[str, str], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # checked here, where a panel is made, so that drawing it never fails inside matplotlib
        for name in ("title", "note"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string; got {type(getattr(self, name)).__name__}")
        if not isinstance(self.nodes, dict) or not self.nodes:
            raise TypeError(f"nodes must be a non-empty dict name -> (x, y, label, observed); got "
                            f"{type(self.nodes).__name__} {self.nodes!r:.60}")
        for key, node in self.nodes.items():
            if not isinstance(node, tuple) or len(node) != 4:
                raise TypeError(f"nodes[{key!r}] must be a tuple (x, y, label, observed); got {node!r:.60}")
            x, y, label, observed = node
            check_real(f"nodes[{key!r}] x", x)
            check_real(f"nodes[{key!r}] y", y)
            if not isinstance(label, str):
                raise TypeError(f"nodes[{key!r}] label must be a string; got {type(label).__name__}")
            check_bool(f"nodes[{key!r}] observed", observed)
        for name in ("candidates", "chosen", "fixed"):
            edges = getattr(self, name)
            if not isinstance(edges, (list, tuple)):
                raise TypeError(f"{name} must be a list of edges (parent, child); got {type(edges).__name__}")
            for e in edges:
                if not isinstance(e, tuple) or len(e) != 2:
                    raise TypeError(f"{name} must hold edges (parent, child); got {e!r:.60}")
                lost = [v for v in e if v not in self.nodes]
                if lost:
                    raise ValueError(f"{name} has an edge {e!r} between nodes not in nodes: {lost}")
        outside = [e for e in self.chosen if e not in self.candidates]
        if outside:
            raise ValueError(f"chosen must be an edge set in the prior's support (edges among candidates); "
                             f"{outside[:3]!r} are not candidates")
        if not isinstance(self.weights, dict):
            raise TypeError(f"weights must be a dict edge -> prior weight; got {type(self.weights).__name__}")
        for e, w in self.weights.items():
            if e not in self.candidates:
                raise ValueError(f"weights must weigh candidate edges (parent, child); got a weight for {e!r:.60}, "
                                 f"which is no candidate")
            check_real(f"weights[{e!r}]", w, minimum=0.0, maximum=1.0, strict=True)
        xs = [float(v[0]) for v in self.nodes.values()]
        ys = [float(v[1]) for v in self.nodes.values()]
        if not (abs(max(xs) - min(xs)) <= MAX_EXTENT and abs(max(ys) - min(ys)) <= MAX_EXTENT):
            raise ValueError(f"nodes must lie within {MAX_EXTENT:g} units of each other (a drawing, in data units "
                             f"where rows sit 1 apart); got x in [{min(xs):g}, {max(xs):g}], y in "
                             f"[{min(ys):g}, {max(ys):g}]")


def _row(prefix: str, symbol: str, count: int, y: float, observed: bool, width: float = 3.0,
         labels: list[str] | None = None):
    xs = np.linspace(-width / 2, width / 2, count) if count > 1 else np.array([0.0])
    return {f"{prefix}{i}": (float(x), y, labels[i] if labels else f"${symbol}_{{{i + 1}}}$", observed)
            for i, x in enumerate(xs)}


def mechanism_panels() -> list[GraphPanel]:
    """The panels of the figure, in order: cross, self, causal, Hopfield, slots, predictive coding,
    multi-hop and expanding attention."""
    panels = []
    # Cross-attention: queries x_i pick one parent among keys y_j of another sequence.
    nodes = {**_row("q", "x", 3, 1.0, True, 2.2), **_row("k", "y", 4, 0.0, True)}
    cand = [(f"k{j}", f"q{i}") for i in range(3) for j in range(4)]
    panels.append(GraphPanel("(a) cross-attention", nodes, cand, [("k1", "q0"), ("k3", "q1"), ("k0", "q2")],
                             note="one parent $y_j$ per query $x_i$"))
    # Self-attention: the same tokens as parents (bottom) and children (top).
    n = 4
    nodes = {**_row("q", "x", n, 1.0, True), **_row("k", "x", n, 0.0, True)}
    cand = [(f"k{j}", f"q{i}") for i in range(n) for j in range(n)]
    panels.append(GraphPanel("(b) self-attention", nodes, cand, [("k2", "q0"), ("k0", "q1"), ("k3", "q2"), ("k1", "q3")],
                             note="parents: any token of the sequence"))
    # Causal attention: parents at or before the child.
    nodes = {**_row("q", "x", n, 1.0, True), **_row("k", "x", n, 0.0, True)}
    cand = [(f"k{j}", f"q{i}") for i in range(n) for j in range(i + 1)]
    panels.append(GraphPanel("(c) causal attention", nodes, cand, [("k0", "q0"), ("k0", "q1"), ("k1", "q2"), ("k3", "q3")],
                             note="parents: tokens $j \\leq i$"))
    # Modern Hopfield network: the state has one parent among stored patterns.
    nodes = {"s": (0.0, 1.0, r"$\xi$", False), **_row("m", "m", 5, 0.0, True, 3.2)}
    cand = [(f"m{j}", "s") for j in range(5)]
    panels.append(GraphPanel("(d) modern Hopfield", nodes, cand, [("m3", "s")],
                             note=r"state $\xi$, one stored pattern as parent"))
    # Slot attention: each data point has one parent slot; slots compete for points.
    nodes = {**_row("x", "x", 5, 1.0, True, 3.2), **_row("s", r"\mu", 3, 0.0, False, 2.2)}
    cand = [(f"s{k}", f"x{i}") for i in range(5) for k in range(3)]
    panels.append(GraphPanel("(e) slot attention", nodes, cand,
                             [("s0", "x0"), ("s0", "x1"), ("s1", "x2"), ("s2", "x3"), ("s2", "x4")],
                             note=r"one slot $\mu_k$ per data point"))
    # Predictive coding: a latent node with a uniform prior over its incoming synapses.
    nodes = {"y": (0.0, 2.0, "$y$", True), "x": (0.0, 1.0, "$x$", False), **_row("z", "z", 4, 0.0, True, 3.0)}
    cand = [(f"z{j}", "x") for j in range(4)]
    panels.append(GraphPanel("(f) predictive coding", nodes, cand, [("z1", "x")], fixed=[("x", "y")],
                             note="one active incoming synapse"))
    # Multi-hop: the query's parent may itself have a parent (two edge variables).
    nodes = {"q": (0.0, 2.0, "$x_q$", True), **_row("a", "x", 4, 1.0, True), **_row("b", "x", 4, 0.0, True)}
    cand = [(f"a{j}", "q") for j in range(4)] + [(f"b{k}", f"a{j}") for j in range(4) for k in range(4) if k != j]
    panels.append(GraphPanel("(g) multi-hop", nodes, cand, [("a2", "q"), ("b0", "a2")],
                             note="value reads parent and grandparent"))
    # Expanding: a geometric prior over how far back the parent is.
    xs = np.linspace(-1.6, 1.6, 6)
    nodes = {f"t{i}": (float(xs[i]), 0.0, f"$x_{{{i + 1}}}$", True) for i in range(6)}
    nodes["q"] = (float(xs[-1]), 1.0, "$x_q$", True)
    cand = [(f"t{i}", "q") for i in range(6)]
    # Opacity ~ geometric prior (1 - p)^distance with p = 1/3: nearby parents are favoured.
    weights = {(f"t{i}", "q"): (2 / 3) ** (5 - i) for i in range(6)}
    panels.append(GraphPanel("(h) expanding attention", nodes, cand, [("t4", "q")],
                             note="geometric prior on distance", weights=weights))
    return panels


@contract(radius="real:>0")
def draw_panel(ax, panel: GraphPanel, radius: float = 0.17) -> None:
    """Draw one :class:`GraphPanel` on a matplotlib axis (a plain 2-D ``Axes``). ``radius``, the nodes' radius, must
    keep two nodes' circles apart: below half the smallest distance between two nodes at different places."""
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes) or getattr(ax, "name", None) != "rectilinear":
        raise TypeError(f"ax must be a 2-D matplotlib Axes (e.g. plt.subplots()[1]); got {type(ax).__name__} "
                        f"{getattr(ax, 'name', '')}".rstrip())
    if not isinstance(panel, GraphPanel):
        raise TypeError(f"panel must be a GraphPanel; got {type(panel).__name__}")
    panel.__post_init__()   # checked again: a panel's lists and dicts may have changed since it was made
    places = np.unique(np.array([(float(v[0]), float(v[1])) for v in panel.nodes.values()]), axis=0)
    if len(places) > 1:
        gaps = np.hypot(*(places[:, None, :] - places[None, :, :]).transpose(2, 0, 1))
        closest = float(gaps[gaps > 0].min())
        if not radius < closest / 2:
            raise ValueError(f"radius must be below half the smallest distance between two nodes ({closest / 2:g}), "
                             f"or their circles overlap; got {radius!r}")
    from matplotlib.patches import Circle, FancyArrowPatch

    ax.set_aspect("equal")
    ax.axis("off")
    pos = {k: (v[0], v[1]) for k, v in panel.nodes.items()}

    def edge(src, dst, **style):
        (x0, y0), (x1, y1) = pos[src], pos[dst]
        vec = np.array([x1 - x0, y1 - y0])
        length = float(np.hypot(*vec)) or 1.0
        u = vec / length
        start, end = np.array([x0, y0]) + radius * u, np.array([x1, y1]) - radius * u
        ax.add_patch(FancyArrowPatch(tuple(start), tuple(end), arrowstyle="-|>", mutation_scale=8,
                                     shrinkA=0, shrinkB=0, **style))

    chosen = set(panel.chosen)
    for src, dst in panel.candidates:
        if (src, dst) not in chosen:
            alpha = 0.8 * panel.weights.get((src, dst), 1.0)
            edge(src, dst, color=_CAND if not panel.weights else "0.35", lw=0.9, linestyle=(0, (3, 2)), alpha=alpha)
    for src, dst in panel.fixed:
        edge(src, dst, color="black", lw=1.2)
    for src, dst in panel.chosen:
        edge(src, dst, color=_EDGE, lw=2.0)
    for name, (x, y, label, observed) in panel.nodes.items():
        ax.add_patch(Circle((x, y), radius, facecolor="0.82" if observed else "white", edgecolor="black",
                            lw=1.0, zorder=3))
        ax.text(x, y, label, ha="center", va="center", fontsize=8, zorder=4)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    ax.set_xlim(min(xs) - 0.35, max(xs) + 0.35)
    ax.set_ylim(min(ys) - 0.55, max(ys) + 0.3)
    ax.set_title(panel.title, fontsize=10)
    if panel.note:
        ax.text(0.5 * (min(xs) + max(xs)), min(ys) - 0.42, panel.note, ha="center", va="center", fontsize=8,
                color="0.25")


#: The most columns a figure of panels may have (a figure wider than this many panels is a mistake, not a layout).
MAX_COLUMNS = 64
#: The largest panel, in inches (a larger one is a mistake, and matplotlib refuses images beyond 2**23 pixels).
MAX_PANEL_SIZE = 50.0
#: The smallest panel, in inches (a smaller one leaves no room for a node: 1e-300 inches drew an empty figure).
MIN_PANEL_SIZE = 0.25
#: The most panels one figure may hold (each takes a fraction of a second to draw; more is a mistake, not a figure).
MAX_PANELS = 64


@contract(panel_size="real:>0")
def draw_mechanisms(panels: list[GraphPanel] | None = None, ncols: int = 4, panel_size: float = 2.4):
    """The whole figure: one panel per mechanism (default :func:`mechanism_panels`). Returns the Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    panels = mechanism_panels() if panels is None else panels
    if isinstance(panels, (str, bytes)) or not isinstance(panels, (list, tuple)) \
            or not all(isinstance(p, GraphPanel) for p in panels):
        raise TypeError(f"panels must be a list of GraphPanel; got {type(panels).__name__}")
    if not 1 <= len(panels) <= MAX_PANELS:
        raise ValueError(f"panels must hold between 1 and {MAX_PANELS} panels; got {len(panels)}")
    check_int("ncols", ncols, 1, MAX_COLUMNS)
    check_real("panel_size (inches)", panel_size, minimum=MIN_PANEL_SIZE, maximum=MAX_PANEL_SIZE)
    nrows = -(-len(panels) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_size * ncols, panel_size * nrows * 0.95), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, panel in zip(axes.flat, panels):
        with plt.rc_context({"axes.grid": False}):
            draw_panel(ax, panel)
    handles = [
        Line2D([], [], color=_CAND, lw=0.9, linestyle=(0, (3, 2)), label="edge allowed by the prior"),
        Line2D([], [], color=_EDGE, lw=2.0, label="one edge set $E$ drawn from the prior"),
        Line2D([], [], color="black", lw=1.2, label="fixed edge"),
        Line2D([], [], marker="o", color="none", markerfacecolor="0.82", markeredgecolor="black", markersize=9,
               label="observed node"),
        Line2D([], [], marker="o", color="none", markerfacecolor="white", markeredgecolor="black", markersize=9,
               label="inferred node"),
    ]
    fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=8, bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def toy_problem_panels() -> list[GraphPanel]:
    """The toy problems of Singh & Buckley (2023), Figs 2 and 3 (left): which token the query must reach.

    (a) the two-hop task: noise tokens, the root x0 and the chain x0 → x1 → x2 (the query); the target
    y = W_y(x0 + x1) needs x1 (the query's parent) and x0 (its parent's parent). (b) the expanding task:
    the root x0 sits at a geometric distance t back from the query x1; opacity is the prior (1 - p)^t."""
    nodes = {"n0": (-1.5, 0.0, "$n_1$", True), "n1": (-0.5, 0.0, "$n_2$", True), "x0": (0.5, 0.0, "$x_0$", True),
             "x1": (1.6, 0.6, "$x_1$", True), "q": (0.5, 1.3, "$x_2$", True)}
    toks = ("n0", "n1", "x0", "x1")
    cand = [(t, "q") for t in toks] + [(t, "x1") for t in toks if t != "x1"]
    two_hop = GraphPanel("(a) Fig. 2: the two-hop task", nodes, cand, [("x1", "q"), ("x0", "x1")],
                         note="$x_0 \\to x_1 \\to x_2$ by $W_r$;  $y = W_y(x_0 + x_1)$")
    xs = np.linspace(-1.8, 1.8, 7)
    labels = ["$n$", "$n$", "$x_0$", "$n$", "$n$", "$n$", "$n$"]
    nodes = {f"t{i}": (float(xs[i]), 0.0, labels[i], True) for i in range(7)}
    nodes["q"] = (float(xs[-1]) + 0.0, 1.2, "$x_1$", True)
    cand = [(f"t{i}", "q") for i in range(7)]
    weights = {(f"t{i}", "q"): 0.75 ** (6 - i) for i in range(7)}   # geometric prior over the distance
    expanding = GraphPanel("(b) Fig. 3: a parent $t$ tokens back", nodes, cand, [("t2", "q")],
                           note="$t = G + 1$, $G \\sim \\mathrm{Geom}(p)$;  $x_1 = x_0 W_r + \\varepsilon$, $y = W_y x_0$",
                           weights=weights)
    return [two_hop, expanding]


@contract(panel_size="real:>0")
def draw_toy_problems(panel_size: float = 3.2):
    """Both toy problems side by side (:func:`toy_problem_panels`). Returns the Figure."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    check_real("panel_size (inches)", panel_size, minimum=MIN_PANEL_SIZE, maximum=MAX_PANEL_SIZE)
    panels = toy_problem_panels()
    fig, axes = plt.subplots(1, 2, figsize=(2 * panel_size * 1.3, panel_size * 0.85))
    for ax, panel in zip(axes, panels):
        with plt.rc_context({"axes.grid": False}):
            draw_panel(ax, panel)
    handles = [Line2D([], [], color=_CAND, lw=0.9, linestyle=(0, (3, 2)), label="edge the query may take"),
               Line2D([], [], color=_EDGE, lw=2.0, label="the path to the target's tokens")]
    fig.legend(handles=handles, loc="lower center", ncol=2, fontsize=8, bbox_to_anchor=(0.5, -0.02))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig
