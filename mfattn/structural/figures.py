"""Plots of Chapters 4-5 (Singh & Buckley 2023): each function takes a study's results and returns a figure.

Chapter 4: :func:`bruteforce` (Sec. 3's identity checked by enumeration), :func:`hopfield`, :func:`slots`,
:func:`predictive_coding` (iterative attention as collapsed inference). Styling comes from the book's
style sheet (``mfattn.companion.mfattn``), applied by ``ChapterRun``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch

from ..companion.checks import check_array, check_int, check_rule, contract
from . import predictive_coding as pc
from .slots import PRIORS, adjusted_rand_index

__all__ = ["bruteforce", "hopfield", "slots", "predictive_coding", "multihop_curves", "multihop_attention",
           "multihop_reproduction", "expanding_prior", "expanding_operations", "expanding_window",
           "multihop_ablation", "inference_comparison"]

_MARKERS = "os^vD"


def _runs(name: str, value: Any, keys: Sequence = ()) -> None:
    """``value`` a mapping of runs (dicts), holding ``keys``."""
    check_rule(name, value, "mapping")
    if not all(isinstance(v, Mapping) for v in value.values()):
        raise TypeError(f"{name} must map each name to a run (a dict)")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} holds no run for {missing}; it has {sorted(value, key=str)}")


def _labels(name: str, value: Any) -> None:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a list of strings; got {type(value).__name__}")


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


def _arrays(owner: str, study: Mapping, keys: Sequence[str], rule: str = "tensor:>=1") -> None:
    """study[key] for each key: a finite real tensor (``rule``) or, with ``rule="array"``, a finite numpy array."""
    for key in keys:
        if rule == "array" and not isinstance(study[key], np.ndarray):
            raise TypeError(f"{owner}[{key!r}] must be a numpy array; got {type(study[key]).__name__}")
        check_array(f"{owner}[{key!r}]", study[key], allow_int=True) if rule == "array" else check_rule(
            f"{owner}[{key!r}]", study[key], rule)


def _length(value: Any) -> int | None:
    return len(value) if np.ndim(value) >= 1 else None


@contract(study="mapping:errors|n_structures|posterior|err_soft|err_sink|beta_x|soft_x|exact_x|sink_x", n="int:1",
          instances="int:1")
def bruteforce(study: dict, n: int, instances: int) -> plt.Figure:
    """(a) max |enumeration − softmax attention| per instance and mechanism; (b) the sorted joint posterior
    over the edge sets of one self-attention instance; (c)–(f) the exclusive prior: errors of the per-query
    softmax and of Sinkhorn against its exact edge marginals, and the three marginal matrices."""
    errors, n_structures, posterior = study["errors"], study["n_structures"], study["posterior"]
    if not isinstance(errors, Mapping) or not errors or not isinstance(n_structures, Mapping) or set(errors) - set(
            n_structures):
        raise ValueError("study['errors'] must map each mechanism to its errors and study['n_structures'] hold its edge-set "
                         f"count; got {errors!r:.60} and {n_structures!r:.60}")
    _arrays("study['errors']", errors, list(errors), "array")
    if any(np.any(e < 0) for e in errors.values()):
        raise ValueError("study['errors'] must hold deviations |enumeration - attention| >= 0; one is negative")
    _arrays("study", study, ("posterior", "soft_x", "exact_x", "sink_x"), "tensor:>=2")
    _arrays("study", study, ("err_soft", "err_sink"), "array")
    check_rule("study['beta_x']", study["beta_x"], "real:>=0")
    for key in ("soft_x", "exact_x", "sink_x"):
        if key not in study or tuple(np.shape(study[key])[-2:]) != (n, n):
            raise ValueError(f"n must be the study's token count: study[{key!r}] must hold (n, n) = ({n}, {n}) "
                             f"matrices; got {tuple(np.shape(study[key])) if key in study else 'no such key'}")
    for key in ("err_soft", "err_sink"):
        if _length(study[key]) != instances:
            raise ValueError(f"instances must be the study's instance count: study[{key!r}] holds "
                             f"{_length(study[key])}; got {instances}")
    fig, axes = plt.subplots(2, 3, figsize=(11, 7))
    ax = axes[0, 0]
    for x, (mode, err) in enumerate(errors.items()):
        ax.semilogy(np.full(err.shape, x) + np.linspace(-0.15, 0.15, err.size), np.maximum(err, 1e-18), "o", ms=5,
                    label=f"{mode}: {n_structures[mode]} edge sets")
    ax.axhline(1e-12, color="k", ls="--", lw=1)
    ax.text(2.4, 1.4e-12, "test tolerance", ha="right", va="bottom", fontsize=8)
    ax.set(xticks=range(3), xticklabels=list(errors), ylim=(1e-18, 1e-9),
           ylabel="max |enumeration - softmax attention|", title="(a) brute force = attention")
    ax.legend(fontsize=7, loc="upper left")

    ax = axes[0, 1]
    p_sorted = np.sort(posterior[0].numpy())[::-1]
    ax.loglog(np.arange(1, p_sorted.size + 1), p_sorted, color="C0")
    ax.loglog(np.arange(1, p_sorted.size + 1), np.cumsum(p_sorted), color="C3")
    entropy = -(posterior[0] * posterior[0].clamp_min(1e-300).log()).sum().item()
    ax.set(xlabel="edge sets, most probable first", ylabel="posterior",
           title=f"(b) posterior over {p_sorted.size} edge sets")
    ax.text(0.03, 0.05, f"blue: p(E | x); red: cumulative\nentropy {entropy:.2f} nats of ln {p_sorted.size} = "
            f"{np.log(p_sorted.size):.2f}", transform=ax.transAxes, fontsize=8)

    ax = axes[0, 2]
    ax.semilogy(np.arange(instances) - 0.1, study["err_soft"], "s", label="per-query softmax (factorised)")
    ax.semilogy(np.arange(instances) + 0.1, study["err_sink"], "o", label="Sinkhorn")
    ax.set(xlabel="instance", ylabel="max error of the marginals", ylim=(1e-4, 1.5),
           title=rf"(c) exclusive prior, $\beta$ = {study['beta_x']:g}")
    ax.legend(fontsize=8)
    titles = ["(d) softmax: factorised prior", "(e) exact: exclusive prior", "(f) Sinkhorn"]
    for ax, mat, title in zip(axes[1], (study["soft_x"][0], study["exact_x"][0], study["sink_x"][0]), titles):
        im = ax.imshow(mat.numpy(), vmin=0, vmax=1, cmap="viridis")
        ax.set(title=title, xlabel="key $j$", ylabel="query $i$", xticks=range(n), yticks=range(n))
        ax.grid(False)
    fig.colorbar(im, ax=axes[1].tolist(), shrink=0.8, label=r"$p(E_{ij} = 1 \mid x)$")
    return fig


@contract(grid="mapping:rate|betas|counts", dim="int:1", gap_long="array:3", betas_long="reals:>0", n_long="int:1")
def hopfield(grid: dict, dim: int, gap_long: np.ndarray, betas_long: Sequence[float], n_long: int) -> plt.Figure:
    """(a) retrieval rate against β for several pattern counts; (b) against the count for several β;
    (c) median energy above its converged value along a longer iteration (``gap_long`` (steps + 1, B, T))."""
    rate, betas_h, counts_h = grid["rate"], grid["betas"], grid["counts"]
    for key in ("betas", "counts"):
        check_rule(f"grid[{key!r}]", grid[key], "reals:>0")
    checked = check_array("grid['rate']", rate)
    if checked.shape != (len(betas_h), len(counts_h)) or np.any(checked > 1) or np.any(checked < 0):
        raise ValueError(f"grid['rate'] must hold rates in [0, 1], one per (beta, count) = ({len(betas_h)}, "
                         f"{len(counts_h)}); got shape {checked.shape}")
    if len(betas_long) != gap_long.shape[1]:
        raise ValueError(f"betas_long must name one beta per column of gap_long {tuple(gap_long.shape)} "
                         f"(steps + 1, betas, trials); got {len(betas_long)}")
    fig, axes = plt.subplots(1, 3, figsize=(11.5, 3.5))
    ax = axes[0]
    show_counts = [c for c in (4, 16, 64, 256, 512) if c in counts_h]
    for i, c in enumerate(show_counts):
        ax.semilogx(betas_h, rate[:, list(counts_h).index(c)], marker=_MARKERS[i], ms=4, ls="-" if i % 2 else "--",
                    label=f"P = {c}")
    ax.set(xlabel=r"inverse temperature $\beta$", ylabel="retrieval rate", title="(a) rate vs $\\beta$")
    ax.legend(fontsize=8)
    ax = axes[1]
    show_betas = [b for b in (0.05, 0.1, 0.2, 0.5, 5.0) if b in betas_h]
    for i, b in enumerate(show_betas):
        ax.semilogx(counts_h, rate[list(betas_h).index(b)], marker=_MARKERS[i], ms=4, ls="-" if i % 2 else "--",
                    label=rf"$\beta$ = {b:g}")
    ax.set(xlabel="stored patterns $P$", ylabel="retrieval rate", title=f"(b) rate vs $P$ (d = {dim})")
    ax.legend(fontsize=8)
    ax = axes[2]
    steps_long = gap_long.shape[0] - 1
    for i, b in enumerate(betas_long):
        gap = np.median(gap_long[:, i], axis=-1)
        ax.semilogy(np.arange(steps_long + 1), np.maximum(gap, 1e-16), "-", label=rf"$\beta$ = {b:g}")
    ax.set(xlabel="update step $t$", ylabel=r"median $\mathcal{E}_t - \mathcal{E}_{\infty}$", ylim=(1e-16, None),
           title=f"(c) energy, P = {n_long}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


@contract(study="mapping:x|labels|ari|examples", sigmas="reals:>0", spread="real:>=0", n_slots="int:1", trial="int:0")
def slots(study: dict, sigmas: Sequence[float], spread: float, n_slots: int, trial: int = 0) -> plt.Figure:
    """(a, b) one mixture, the same start, each prior's slot paths at the example width; (c) ARI against
    the width (mean and quartiles over mixtures); dotted: the clusters' true standard deviation."""
    check_rule("study['x']", study["x"], "tensor:3")
    check_rule("study['labels']", study["labels"], "inttensor:2")
    check_int("trial", trial, 0, len(study["x"]) - 1)
    x, labels, ari = study["x"], study["labels"], study["ari"]
    if not isinstance(ari, Mapping) or not isinstance(study["examples"], Mapping) or any(
            p not in ari or p not in study["examples"] for p in PRIORS):
        raise ValueError(f"study['ari'] and study['examples'] must hold each prior {list(PRIORS)}")
    for p in PRIORS:
        if check_array(f"study['ari'][{p!r}]", ari[p], ndim=2).shape[0] != len(sigmas):
            raise ValueError(f"sigmas must be the study's widths: study['ari'][{p!r}] holds {np.shape(ari[p])[0]} rows; "
                             f"got {len(sigmas)} sigmas")
        run = study["examples"][p]
        _runs("study['examples']", {p: run}, ())
        check_rule(f"study['examples'][{p!r}]['slots']", run.get("slots"), "tensor:4")
        if run["slots"].shape[1:3] != (len(x), n_slots):
            raise ValueError(f"n_slots must be the study's slot count: study['examples'][{p!r}]['slots'] has shape "
                             f"{tuple(run['slots'].shape)} (iters + 1, T, K, 2); got n_slots = {n_slots}")
    fig, axes = plt.subplots(1, 3, figsize=(11.5, 3.7))
    titles = {"slots": "(a) slot attention: softmax over slots", "hopfield": "(b) Hopfield prior: softmax over points"}
    for ax, p in zip(axes[:2], PRIORS):
        res = study["examples"][p]
        pts = x[trial].numpy()
        ax.scatter(pts[:, 0], pts[:, 1], c=res["labels"][trial].numpy(), cmap="tab10", vmin=0, vmax=9, s=6, alpha=0.6)
        path = res["slots"][:, trial].numpy()  # (iters + 1, K, 2)
        for k in range(n_slots):
            ax.plot(path[:, k, 0], path[:, k, 1], "-", color="k", lw=1)
            ax.plot(path[0, k, 0], path[0, k, 1], "o", mfc="white", mec="k", ms=5)
            ax.plot(path[-1, k, 0], path[-1, k, 1], "*", color="k", ms=11)
        a = adjusted_rand_index(res["labels"][trial], labels[trial]).item()
        ax.set(title=titles[p], aspect="equal", xticks=[], yticks=[])
        ax.text(0.02, 0.02, f"ARI = {a:.2f}", transform=ax.transAxes, fontsize=9)
    ax = axes[2]
    for p, label in (("slots", "slot attention (compete)"), ("hopfield", "Hopfield prior (no competition)")):
        q25, q50, q75 = np.percentile(ari[p], [25, 50, 75], axis=-1)
        ax.plot(sigmas, ari[p].mean(-1), "o-", label=label)
        ax.fill_between(sigmas, q25, q75, alpha=0.2)
    ax.axvline(spread, color="0.5", ls=":", lw=1)
    ax.set(xlabel=r"potential width $\sigma$", ylabel="ARI (mean; band: quartiles)", ylim=(-0.05, 1.05),
           title=f"(c) cluster agreement, {ari['slots'].shape[-1]} mixtures")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


@contract(study="mapping:runs|accuracy|f_best", problem="mapping:mu|active", pi="real:>0", n_parents="int:1")
def predictive_coding(study: dict, problem: dict, pi: float, n_parents: int) -> plt.Figure:
    """(a) median free energy above the lowest reached, per method; (b) fraction of instances whose largest
    synapse weight is the active one (dotted: chance); (c) the synapse weights of one instance along the
    fixed-point iteration (red: the active synapse)."""
    runs, accuracy, f_best = study["runs"], study["accuracy"], study["f_best"]
    _runs("study['runs']", runs, ["fixed point (CCCP)"])
    if not isinstance(accuracy, Mapping) or set(runs) - set(accuracy):
        raise ValueError(f"study['accuracy'] must hold the accuracy of every run {sorted(runs)}")
    _arrays("study", study, ("f_best",), "array")
    check_rule("problem['mu']", problem["mu"], "tensor:3")
    check_rule("problem['active']", problem["active"], "inttensor:1")
    if bool((problem["active"] < 0).any()) or bool((problem["active"] >= problem["mu"].shape[1]).any()):
        raise ValueError(f"problem['active'] must hold parent indices in [0, {problem['mu'].shape[1]})")
    if n_parents != np.shape(problem["mu"])[1]:
        raise ValueError(f"n_parents must be the problems' parent count ({np.shape(problem['mu'])[1]}, problem['mu'] "
                         f"{tuple(np.shape(problem['mu']))}); got {n_parents}")
    fig, axes = plt.subplots(1, 3, figsize=(11.5, 3.5))
    steps = np.arange(len(next(iter(runs.values()))["x"]))
    for i, (name, res) in enumerate(runs.items()):
        gap = np.median(res["free_energy"].numpy() - f_best, axis=-1)
        axes[0].semilogy(steps, np.maximum(gap, 1e-16), "-", color=f"C{i}", label=name)
        axes[1].plot(steps, accuracy[name], "-", color=f"C{i}", label=name)
    axes[0].set(xlabel="step", ylabel=r"median $F_t - F_{\min}$", title="(a) free energy")
    axes[0].legend(fontsize=7)
    axes[1].axhline(1 / n_parents, color="0.5", ls=":", lw=1)
    axes[1].set(xlabel="step", ylabel=r"fraction with $a_{j^\star}$ largest", title="(b) active synapse found",
                ylim=(0, 1.02))
    ax = axes[2]
    w_path = torch.stack([pc.synapse_weights(x, problem["mu"], pi)
                          for x in runs["fixed point (CCCP)"]["x"]])[:, 0].numpy()  # (steps + 1, n)
    active = int(problem["active"][0])
    for j in range(w_path.shape[1]):
        ax.plot(steps, w_path[:, j], "-", lw=2.2 if j == active else 1, color="C3" if j == active else "0.55")
    ax.set(xlabel="step", ylabel="$a_j$ (softmax over prediction errors)",
           title="(c) attention over synapses, one instance", ylim=(0, 1.02))
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------ Chapter 5
LABELS = {"one_layer": "one-layer attention", "multihop": "multi-hop attention ($K$=2)",
          "two_layer": "two-layer attention"}
COLORS = {"one_layer": "C4", "multihop": "C2", "two_layer": "C0"}
TASK_TITLES = {"paper": "paper task: $y = W_y(x_0 + x_1)$, rank-1 $W_r$",
               "code": "code task: $y = W_y(2x_0 + x_1 + x_2)$"}
_MODELS = ("one_layer", "multihop", "two_layer")


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


@contract(ident="mapping:gauss|soft|gauss_equal|soft_equal", forms="mapping:norms|data_radius",
          temperatures="reals:>0")
def paper_steps(ident: dict, forms: dict, temperatures: Sequence[float]) -> plt.Figure:
    """Chapter 4's checks of the paper's derivation: (a) dot-product attention against the Gaussian posterior,
    every attention weight of every instance, with the drawn keys and with keys of one common norm; (b) the
    expected score-weighted value ``s sigma(s / T)`` of a binary edge with an even Bernoulli prior, against
    ReLU; (c) the median slot norm along the paper's unnormalised update and along the weighted mean."""
    _arrays("ident", ident, ("gauss", "soft", "gauss_equal", "soft_equal"))
    if not isinstance(forms["norms"], Mapping) or any(k not in forms["norms"] for k in ("paper", "mean")):
        raise ValueError("forms['norms'] must hold the 'paper' and 'mean' slot norms (of update_forms_study)")
    _arrays("forms['norms']", forms["norms"], ("paper", "mean"), "numbers")
    check_rule("forms['data_radius']", forms["data_radius"], "real:>=0")
    fig, axes = plt.subplots(1, 3, figsize=(11.5, 3.6))
    ax = axes[0]
    ax.plot(ident["gauss"].flatten(), ident["soft"].flatten(), "o", ms=3, alpha=0.5,
            label="keys as drawn (norms differ)")
    ax.plot(ident["gauss_equal"].flatten(), ident["soft_equal"].flatten(), "x", ms=4, color="C1",
            label="the same keys rescaled to one norm")
    ax.plot([0, 1], [0, 1], "k-", lw=0.6)
    ax.set(xlabel=r"Gaussian posterior $p(E_i = j \mid x)$", ylabel=r"softmax$_j(\beta\, q_i \cdot k_j)$",
           title="(a) the key-norm term", xlim=(0, 1), ylim=(0, 1), aspect="equal")
    ax.legend(fontsize=7, loc="upper left")
    ax = axes[1]
    s = np.linspace(-4, 4, 801)
    for t in temperatures:
        ax.plot(s, s / (1 + np.exp(-s / t)), label=f"T = {t:g}" + (" (SiLU)" if t == 1 else ""))
    ax.plot(s, np.maximum(s, 0), "k--", lw=1, label="ReLU (T → 0)")
    ax.set(xlabel="edge score $s$", ylabel=r"$\mathbb{E}[E\, s] = s\,\sigma(s/T)$",
           title="(b) binary edges, Bernoulli(1/2) prior")
    ax.legend(fontsize=7)
    ax = axes[2]
    steps = np.arange(len(forms["norms"]["paper"]))
    ax.semilogy(steps, forms["norms"]["paper"], "o-", label=r"paper: $\sum_i A_{ik} W_Q^\top W_K x_i$")
    ax.semilogy(steps, forms["norms"]["mean"], "s-", label=r"Locatello: $\sum_i A_{ik} x_i / \sum_i A_{ik}$")
    ax.axhline(forms["data_radius"], color="0.5", ls=":", lw=1, label="median |x| of the data")
    ax.set(xlabel="update step", ylabel="median slot norm", title="(c) slot updates", xticks=steps)
    ax.legend(fontsize=7)
    fig.tight_layout()
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
