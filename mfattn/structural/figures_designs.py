"""Plots of Chapter 5 (Singh & Buckley 2023, new attention designs): multi-hop attention (:func:`multihop_curves`,
:func:`multihop_attention`, :func:`multihop_reproduction`, :func:`multihop_ablation`), expanding attention
(:func:`expanding_prior`, :func:`expanding_operations`, :func:`expanding_window`) and the inference comparison
(:func:`inference_comparison`). Each takes a study's results and returns a figure; re-exported by :mod:`.figures`."""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np

from ..companion.checks import check_int, check_rule, contract
from .figures_checks import _labels, _length, _runs

__all__ = ["multihop_curves", "multihop_attention", "multihop_reproduction", "expanding_prior", "expanding_operations",
           "expanding_window", "multihop_ablation", "inference_comparison"]

LABELS = {"one_layer": "one-layer attention", "multihop": "multi-hop attention ($K$=2)",
          "two_layer": "two-layer attention"}
COLORS = {"one_layer": "C4", "multihop": "C2", "two_layer": "C0"}
TASK_TITLES = {"paper": "paper task: $y = W_y(x_0 + x_1)$, rank-1 $W_r$",
               "code": "code task: $y = W_y(2x_0 + x_1 + x_2)$"}
_MODELS = ("one_layer", "multihop", "two_layer")


def _role_masses(runs: Mapping, name: str, role_labels: Sequence[str]) -> None:
    """Each run holds ``mass/<model>`` (seeds, roles) with one role per label of ``role_labels``."""
    for key, r in runs.items():
        for m in _MODELS:
            mass = r.get(f"mass/{m}")
            if mass is None:
                raise ValueError(f"{name}[{key!r}] holds no 'mass/{m}' (a run of train_multihop with model {m!r})")
            if np.ndim(mass) != 2 or np.shape(mass)[1] != len(role_labels):
                raise ValueError(f"role_labels must name one role per column of {name}[{key!r}]['mass/{m}'] "
                                 f"{np.shape(mass)}; got {len(role_labels)} labels")



@contract(n_seeds="int:1")
def multihop_curves(results: dict, n_seeds: int) -> plt.Figure:
    """Training MSE / Var(y) per task: geometric mean over seeds (thick), ± one s.d. of the log (band), seeds.

    The means are drawn after every band and seed, one-layer attention's last and dashed: on the code's
    task its mean lies on multi-hop attention's, and would otherwise be hidden under it. ``n_seeds``: the runs' seed
    count (named in the title when every task has it; where the tasks differ, that of one of them).
    """
    _runs("results", results)
    counts = {len(r["var_y"]) for r in results.values()}   # where the tasks differ, each panel names its seeds
    if n_seeds not in counts:
        raise ValueError(f"n_seeds must be the seed count of the runs (of one of them, where the tasks differ: "
                         f"{sorted(counts)}); got {n_seeds}")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, (t, r) in zip(axes, results.items()):
        steps = r["record_steps"]
        means = {}
        for m in _MODELS:
            curves = r[f"loss/{m}"] / r["var_y"][:, None]          # normalised MSE, one row per seed
            logc = np.log10(curves)                                # errors spread over decades: average logs
            mean, sd = logc.mean(0), logc.std(0)
            ax.plot(steps, curves.T, color=COLORS[m], lw=0.5, alpha=0.45)
            ax.fill_between(steps, 10 ** (mean - sd), 10 ** (mean + sd), color=COLORS[m], alpha=0.18)
            means[m] = 10 ** mean
        lines = {m: ax.plot(steps, means[m], color=COLORS[m], lw=2, ls=(0, (4, 2)) if m == "one_layer" else "-",
                            label=LABELS[m])[0] for m in ("two_layer", "multihop", "one_layer")}
        ax.set(yscale="log", xlabel="training step",
               title=TASK_TITLES[t] + (f" ({len(r['var_y'])} seeds)" if len(counts) > 1 else ""))
        if ax is axes[0]:
            ax.legend([lines[m] for m in _MODELS], [LABELS[m] for m in _MODELS], loc="lower left")
    axes[0].set_ylabel("MSE / Var(y)")
    head = f"{n_seeds} seeds: " if counts == {n_seeds} else ""
    fig.suptitle(f"{head}geometric mean ± s.d. of log (band) and each seed (thin)", y=1.01)
    return fig


def multihop_attention(results: dict, nmse_test: dict, role_labels: Sequence[str]) -> plt.Figure:
    """Attention mass of the query per token role (mean ± s.d. over seeds) per task; held-out errors."""
    _runs("results", results)
    if not results:
        raise ValueError("results must hold at least one task (name -> run of train_multihop); got none")
    _runs("nmse_test", nmse_test, list(results))
    _labels("role_labels", role_labels)
    _role_masses(results, "results", role_labels)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), gridspec_kw={"width_ratios": [1, 1, 0.8]})
    width = 0.26
    for ax, (t, r) in zip(axes[:2], results.items()):
        x = np.arange(len(role_labels))
        for j, m in enumerate(_MODELS):
            mass = r[f"mass/{m}"]
            ax.bar(x + (j - 1) * width, mass.mean(0), width, yerr=mass.std(0), color=COLORS[m],
                   label=LABELS[m], capsize=2)
        ax.set_xticks(x, ["noise (all)", "$x_0$", "$x_1$", "$x_2$ (query)"])
        ax.set(ylabel="attention mass of the query", title=TASK_TITLES[t], ylim=(0, 1))
    axes[0].legend(loc="upper right", fontsize=8)
    ax = axes[2]
    for k, t in enumerate(results):
        for j, m in enumerate(_MODELS):
            vals = nmse_test[t][m]
            xpos = 4 * k + j
            ax.bar(xpos, vals.mean(), 0.8, color=COLORS[m], alpha=0.5)
            ax.plot(np.full(len(vals), xpos), vals, "k.", ms=4)
    ax.set_xticks([1, 5], ["paper task", "code task"])
    ax.set(yscale="log", ylabel="held-out MSE / Var(y)", title="test error (bars: mean; dots: seeds)")
    return fig


@contract(ref_multi="mapping", repro="mapping:record_steps", dev="mapping:multihop|one_layer", seeds="ints:0")
def multihop_reproduction(ref_multi: dict, repro: dict, dev: dict, seeds: Sequence[int]) -> plt.Figure:
    """Left: the public code's stored losses (lines) and our replay (circles); right: relative deviations."""
    _runs("ref_multi", ref_multi, [str(s) for s in range(10)])
    logged = repro["record_steps"]
    for m in ("multihop", "one_layer"):
        if np.ndim(dev[m]) != 2 or np.shape(dev[m]) != (len(seeds), len(logged)):
            raise ValueError(f"seeds and dev[{m!r}] must agree: dev[{m!r}] must have shape (seeds, logged steps) = "
                             f"({len(seeds)}, {len(logged)}); got {np.shape(dev[m])}")
        if np.shape(repro.get(f"loss/{m}")) != (len(seeds), len(logged)):
            raise ValueError(f"seeds and repro['loss/{m}'] must agree: it must have shape (seeds, logged steps) = "
                             f"({len(seeds)}, {len(logged)}); got {np.shape(repro.get(f'loss/{m}'))}")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    ax = axes[0]
    all_steps = np.arange(20) * 1000
    for key, m in (("long", "multihop"), ("standard", "one_layer")):
        for s in range(10):
            ax.plot(all_steps, ref_multi[str(s)][key], color=COLORS[m], lw=0.7, alpha=0.5)
        ax.plot(np.tile(logged, (len(seeds), 1)).T, repro[f"loss/{m}"].T, "o", mfc="none", color="k", ms=5)
    ax.plot([], [], color=COLORS["multihop"], label="stored: LongAttention (multi-hop)")
    ax.plot([], [], color=COLORS["one_layer"], label="stored: CausalSelfAttention")
    ax.plot([], [], "o", mfc="none", color="k", label="this replay")
    ax.set(yscale="log", xlabel="training step", ylabel="training MSE", title="public code's run (10 seeds)")
    # below the axes: inside, the legend hid the upper curves
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    ax = axes[1]
    for m, marker in (("multihop", "o"), ("one_layer", "s")):
        for i, s in enumerate(seeds):
            y = np.maximum(dev[m][i], 1e-9)
            ax.plot(logged + 60 * i, y, marker, color=COLORS[m], ms=5, label=LABELS[m] if i == 0 else None)
    ax.axhline(1e-5, color="0.4", ls="--", lw=1)
    ax.text(logged[0], 1.3e-5, "1e-5", color="0.4", fontsize=8)
    # the top follows the largest deviation (a fixed 1e-2 clipped the drifting multi-hop seeds)
    top = 10 ** np.ceil(np.log10(max(1e-2, max(float(np.max(v)) for v in dev.values())) * 1.01))
    ax.set(yscale="log", ylim=(5e-10, 3 * top), xlabel="training step", ylabel="relative deviation",
           title="replay vs stored (0 drawn at 1e-9)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    fig.tight_layout()
    return fig


@contract(example="mapping:result|pick|t_true|iterations")
def expanding_prior(example: dict) -> plt.Figure:
    """The truncated geometric prior (left) and the attention it gives (right) at each iteration, for the
    input of :func:`.analysis.prior_example`; dashed: the true parent."""
    res, pick, t_true, n_it = example["result"], example["pick"], example["t_true"], example["iterations"]
    if not isinstance(getattr(res, "history", None), (list, tuple)):
        raise TypeError(f"example['result'] must be a result of expanding attention (with a history); got "
                        f"{type(res).__name__}")
    check_int("example['pick']", pick, 0)
    check_int("example['iterations']", n_it, 1)
    check_rule("example['t_true']", t_true, "real:>0")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharex=True)
    cmap = plt.get_cmap("viridis")
    tt = np.arange(1, 50)
    for i, h in enumerate(res.history[:n_it]):
        c = cmap(i / max(1, n_it - 1))
        q = float(h["q"][pick]); m = int(h["window"][pick])  # noqa: E702
        inside = tt < min(m, 50)
        prior = np.where(inside, (1 - q) ** tt, 0.0)
        axes[0].plot(tt, prior / prior.sum(), "-", color=c, label=f"iteration {i + 1}: window {m}")
        att = h["attention"][pick].numpy()[::-1][1:]          # by distance 1..49
        axes[1].plot(tt, att, "o-", ms=3, color=c)
    for ax in axes:
        ax.axvline(t_true, color="C3", ls="--", lw=1)
        ax.set(xlabel="distance $t$ from the query", xlim=(0, 50))
    axes[0].text(t_true + 0.5, axes[0].get_ylim()[1] * 0.9, "true parent", color="C3", fontsize=8)
    axes[0].set(ylabel="prior $p(t)$ inside the window", title="geometric prior")
    axes[1].set(ylabel="attention $a_t$", title="posterior over the parent")
    axes[0].legend(fontsize=8)
    return fig


@contract(dims="ints:1", ps="reals:(0,1]", rel="mapping")
def expanding_operations(runs: dict, dims: Sequence[int], ps: Sequence[float], rel: dict) -> plt.Figure:
    """Bars: operations per query relative to nd (standard, the paper's md + k, the code's m(d + k));
    lines: training MSE of both mechanisms relative to its start, smoothed."""
    _runs("runs", runs, dims)
    fig, axes = plt.subplots(len(dims), len(ps), figsize=(12, 2.9 * len(dims)), sharey=True, squeeze=False)
    for row, d in enumerate(dims):
        r = runs[d]
        for col, p in enumerate(ps):
            sel = np.isclose(r["ps"], p)
            paper_ops, code_ops = rel[d, p]
            ax = axes[row, col]
            ax.bar([0, 1, 2], [1.0, paper_ops, code_ops], color=["C4", "C2", "C8"], alpha=0.6, width=0.7)
            ax.set_xticks([0, 1, 2], ["standard", "expanding\n$md+k$", "expanding\n$m(d+k)$"], fontsize=8)
            ax.set_ylim(0, 1.6)
            ax.set_title(f"d = {d}, p = 1/{round(1 / p)}", fontsize=9)
            k = max(1, r["loss/expanding"].shape[1] // 20)
            smooth = lambda z: z[: len(z) // k * k].reshape(-1, k).mean(1)  # noqa: E731
            ls, le = smooth(r["loss/standard"][sel].mean(0)), smooth(r["loss/expanding"][sel].mean(0))
            start = 0.5 * (ls[0] + le[0])                          # both curves relative to their start
            xs = np.linspace(-0.4, 2.4, len(ls))
            ax.plot(xs, ls / start, color="C4", lw=1.5, label="standard: MSE / initial")
            ax.plot(xs, le / start, color="C2", lw=1.5, label="expanding: MSE / initial")
            if row == 0 and col == 0:
                ax.legend(fontsize=7, loc="upper right")
        axes[row, 0].set_ylabel("operations / $nd$ (bars)\ntraining MSE / initial (lines)")
    fig.tight_layout()
    return fig


@contract(coverage="mapping:curves", dims="ints:1", ps="reals:(0,1]")
def expanding_window(coverage: dict, dims: Sequence[int], ps: Sequence[float]) -> plt.Figure:
    """Mean final window against the parent's true distance, one line per p; dashed: window = distance."""
    missing = [(d, p) for d in dims for p in ps if (d, p) not in coverage["curves"]]
    if missing:
        raise ValueError(f"dims and ps must be those of the coverage: coverage['curves'] holds no (d, p) = {missing}; "
                         f"it has {sorted(coverage['curves'])}")
    fig, axes = plt.subplots(1, len(dims), figsize=(10, 3.6), sharey=True, squeeze=False)
    for ax, d in zip(axes[0], dims):
        for p in ps:
            bins, means = coverage["curves"][d, p]
            ax.plot(bins, means, "o-", ms=3, lw=1, label=f"p = 1/{round(1 / p)}")
        ax.plot([0, 50], [0, 50], color="0.5", lw=1, ls="--")
        ax.set(xlabel="true distance of $x_0$", title=f"d = {d}: final window vs distance", xlim=(0, 51), ylim=(0, 52))
    axes[0, 0].set_ylabel("mean final window (≤ n)")
    axes[0, 0].legend(fontsize=8)
    return fig


def multihop_ablation(runs: dict, role_labels: Sequence[str]) -> plt.Figure:
    """Per root distribution (name -> run of :func:`.multihop.train_multihop` on the paper's task): held-out
    MSE / Var(y) per model (bars: mean, dots: seeds) and the query's attention mass per token role."""
    _runs("runs", runs)
    if not runs:
        raise ValueError("runs must hold at least one run (name -> run of train_multihop); got none")
    _labels("role_labels", role_labels)
    _role_masses(runs, "runs", role_labels)
    fig, axes = plt.subplots(1, 1 + len(runs), figsize=(4.2 * (1 + len(runs)), 3.6),
                             gridspec_kw={"width_ratios": [0.8] + [1] * len(runs)})
    ax = axes[0]
    for k, (name, r) in enumerate(runs.items()):
        for j, m in enumerate(_MODELS):
            vals = r[f"test_mse/{m}"] / r["var_y"]
            ax.bar(4 * k + j, vals.mean(), 0.8, color=COLORS[m], alpha=0.5, label=LABELS[m] if k == 0 else None)
            ax.plot(np.full(len(vals), 4 * k + j), vals, "k.", ms=4)
    ax.set_xticks([1 + 4 * k for k in range(len(runs))], list(runs))
    ax.set(yscale="log", ylabel="held-out MSE / Var(y)", title="test error (bars: mean; dots: seeds)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)
    width = 0.26
    for ax, (name, r) in zip(axes[1:], runs.items()):
        x = np.arange(len(role_labels))
        for j, m in enumerate(_MODELS):
            mass = r[f"mass/{m}"]
            ax.bar(x + (j - 1) * width, mass.mean(0), width, yerr=mass.std(0), color=COLORS[m], capsize=2)
        ax.set_xticks(x, ["noise (all)", "$x_0$", "$x_1$", "$x_2$ (query)"])
        ax.set(ylabel="attention mass of the query", title=name, ylim=(0, 1))
    fig.tight_layout()
    return fig


@contract(comparison="mapping", ps="reals:(0,1]", d="int:1")
def inference_comparison(comparison: dict, ps: Sequence[float], d: int) -> plt.Figure:
    """Per variant of the hyper-prior update (name -> :func:`.analysis.inference_comparison` entry): mean final
    window, iterations per query and final training MSE against the recency bias p."""
    _runs("comparison", comparison)
    if not comparison:
        raise ValueError("comparison must hold at least one variant (name -> entry of analysis.inference_comparison)")
    for name, c in comparison.items():
        for key in ("window", "iterations", "mse"):
            if key not in c:
                raise ValueError(f"comparison[{name!r}] holds no {key!r} (an entry of analysis.inference_comparison)")
            if _length(c[key]) != len(ps):
                raise ValueError(f"ps must be the comparison's recency biases: comparison[{name!r}][{key!r}] holds "
                                 f"{_length(c[key])} values; got {len(ps)} ps")
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    x = np.arange(len(ps))
    width = 0.8 / len(comparison)
    for j, (name, c) in enumerate(comparison.items()):
        for ax, key in zip(axes, ("window", "iterations", "mse")):
            ax.bar(x + (j - (len(comparison) - 1) / 2) * width, c[key], width, label=name, color=f"C{j}", alpha=0.75)
    for ax, title in zip(axes, ("mean final window (≤ n)", "iterations per query", "training MSE (last fifth)")):
        ax.set_xticks(x, [f"1/{round(1 / p)}" for p in ps])
        ax.set(xlabel="recency bias $p$", title=f"{title}, d = {d}")
    axes[2].set_yscale("log")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
