"""Plots of Chapters 4-5 (Singh & Buckley 2023): each function takes a study's results and returns a figure.

Chapter 4: :func:`bruteforce` (Sec. 3's identity checked by enumeration), :func:`hopfield`, :func:`slots`,
:func:`predictive_coding` (iterative attention as collapsed inference), :func:`paper_steps`; Chapter 5's plots are in
:mod:`.figures_designs` (re-exported here). Styling comes from the book's
style sheet (``mfattn.companion.mfattn``), applied by ``ChapterRun``.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch

from ..companion.checks import check_array, check_int, check_rule, contract
from . import predictive_coding as pc
from .slots import PRIORS, adjusted_rand_index
from .figures_checks import _arrays, _length, _runs
# Chapter 5's plots live in figures_designs; their names stay importable from here
from .figures_designs import (COLORS, LABELS, TASK_TITLES, _MODELS, expanding_operations, expanding_prior,  # noqa: F401
                              expanding_window, inference_comparison,
                              multihop_ablation, multihop_attention, multihop_curves, multihop_reproduction)

__all__ = ["bruteforce", "hopfield", "slots", "predictive_coding", "multihop_curves",
           "multihop_attention", "multihop_reproduction", "expanding_prior", "expanding_operations",
           "expanding_window", "multihop_ablation", "inference_comparison"]

_MARKERS = "os^vD"


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
