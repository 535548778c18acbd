"""The chapters of the book and the sizes of each run profile, in one place.

Two profiles serve the same code:

* ``quick`` (the default): CPU sizes; the whole book executes in minutes. The book
  build, the notebook tests and CI use it, and it is bit-reproducible on CPU.
* ``full``: the papers' scale, meant for a GPU (``device="cuda"``). Results of full
  runs are kept in ``data/full/`` with their manifest, so the rendered book can show
  them without recomputing.

A chapter notebook asks for its sizes with :func:`get_profile`; nothing else in the
package hard-codes a profile size.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

__all__ = ["PROFILE_NAMES", "DEVICE_NAMES", "CHAPTERS", "Chapter", "PROFILES", "get_profile",
           "check_profile", "chapter_info", "resolve_device", "check_override", "CHOICES", "run_work",
           "check_run_work", "work_factor"]

PROFILE_NAMES = ("quick", "full")
DEVICE_NAMES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class Chapter:
    """A chapter: its short name (used by ``--chapter``), notebook path and title."""

    name: str
    notebook: str
    title: str

    def __post_init__(self):
        for field_name in ("name", "notebook", "title"):
            value = getattr(self, field_name)
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"Chapter: {field_name} must be a non-empty string; got {type(value).__name__} "
                                f"{value!r:.60}")
        if not self.notebook.endswith(".ipynb") or ".." in self.notebook.split("/") or self.notebook.startswith("/"):
            raise ValueError(f"Chapter: notebook must be a notebook's path inside the project (book/NN_name.ipynb); "
                             f"got {self.notebook!r:.80}")


#: The chapters in book order. ``python -m mfattn reproduce --chapter NAME`` takes these names.
CHAPTERS: tuple[Chapter, ...] = (
    Chapter("ising", "book/01_ising_tap.ipynb", "From Ising models to adaptive TAP"),
    Chapter("deq", "book/02_deep_implicit_attention.ipynb", "Deep implicit attention"),
    Chapter("transformer", "book/03_transformer_mean_field.ipynb", "Transformers as one mean-field step"),
    Chapter("structural", "book/04_structural_inference.ipynb", "Attention as inference over graphs"),
    Chapter("designs", "book/05_new_attention_designs.ipynb", "Multi-hop and expanding attention"),
    Chapter("dmft", "book/06_dmft_self_attention.ipynb", "Dynamical mean-field theory of a 1-bit transformer"),
)

#: Sizes per chapter and profile. Each chapter owns its own entry.
PROFILES: dict[str, dict[str, dict[str, Any]]] = {
    # Chapter 1: n spins are enumerated exactly (2^n states), averaged over `instances` SK draws.
    "ising": {
        "quick": {"n": 16, "instances": 8, "betas": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
                                                      1.2, 1.4, 1.6], "field_std": 0.3,
                  "scatter_beta": 0.5, "vector_n": 6, "vector_d": 3,
                  "damping_betas": [0.8, 1.0, 1.2, 1.4, 1.6], "dampings": [0.5, 0.2, 0.05], "damping_budget": 1000,
                  "size_ns": [10, 12], "stress_betas": [0.6, 1.2], "stress_instances": 3},
        # full: 2^18 states per instance, one pass for the whole beta grid; ~10 CPU-minutes.
        "full": {"n": 18, "instances": 40, "betas": [round(0.05 * k, 2) for k in range(1, 41)],
                 "field_std": 0.3, "scatter_beta": 0.5, "vector_n": 16, "vector_d": 8,
                 "damping_betas": [round(0.1 * k, 1) for k in range(5, 21)], "dampings": [0.5, 0.2, 0.05],
                 "damping_budget": 1000, "size_ns": [12, 15, 21], "stress_betas": [0.4, 0.6, 0.8, 1.0, 1.2],
                 "stress_instances": 40},
    },
    # Chapters 2-6: filled in by their issues.
    # Chapter 2: solver race on linear contractions of spectral radius rho; the explicit
    # layer checked against its closed form at one size (N, d) (Chapter 3 measures its cost); the
    # blog's MNIST model (train/test subsets, steps per epoch, seeds) and the variant table (same
    # protocol, attention options changed); the trained layer's stability (spectral radius of df/dm on
    # `stability_digits` test digits) and its accuracy after `budget_steps` plain steps; the same spectral
# radius over training on `rho_training_digits` digits, from the weights kept every `rho_training_every`
# steps; the learned correction against the Gaussian one on `correction_digits` digits.
    "deq": {
        "quick": {"solver_dim": 64, "solver_batch": 8, "solver_rhos": [0.5, 0.9, 0.97], "solver_tol": 1e-6,
                  "solver_max_iter": 500, "explicit_size": [8, 8],
                  "train_limit": 12000, "test_limit": 1000, "epochs": 1, "steps_per_epoch": 200,
                  "snapshot_every": 10, "eval_every": 40, "seeds": [0], "variant_steps": 100, "variant_seeds": [0],
                  "stability_digits": 300, "budget_steps": [1, 2, 3, 5, 10, 20, 40], "gradient_digits": 16,
                  "init_epochs": 1, "init_steps": 20, "init_seeds": [0],
                  "rho_training_digits": 100, "rho_training_every": 40, "correction_digits": 300},
        "full": {"solver_dim": 256, "solver_batch": 32, "solver_rhos": [0.5, 0.9, 0.97, 0.99], "solver_tol": 1e-6,
                 "solver_max_iter": 2000, "explicit_size": [8, 8],
                 "train_limit": None, "test_limit": None, "epochs": 20, "steps_per_epoch": None,
                 "snapshot_every": 250, "eval_every": 500, "seeds": [0, 1, 2], "variant_steps": None,
                 "variant_seeds": [0, 1, 2],
                 "stability_digits": 1000, "budget_steps": [1, 2, 3, 5, 10, 20, 40, 100], "gradient_digits": 100,
                 "init_epochs": 5, "init_steps": None, "init_seeds": [0, 1, 2],
                 "rho_training_digits": 300, "rho_training_every": 1000, "correction_digits": 1000},
    },
    # Chapter 3: softmax-coupled layer (tokens x dim, batch), value scales setting the naive
    # update's contraction rate; SK Onsager-amortisation experiment (onsager_n spins); explicit
    # adaptive-TAP cost sizes (N, d), the exponent fitted over Nd >= tap_fit_min_nd (the book's one
    # cost measurement; full: up to Nd = 4096, about a minute on one thread). seed_offsets: the draws (tokens and
    # weights, Onsager data and fits) behind the verdicts' spread, as offsets of the chapter's seed; each Onsager
    # study draws from its seed and seed + 1, so offsets 0, 2, 4 share no draw (full: ~4 CPU-min per offset).
    # sharp_scales: the query map's scales of the rank-collapse control (sharper attention, each draw).
    "transformer": {
        "quick": {"tokens": 16, "dim": 8, "batch": 8, "steps": 30, "rhos": [0.3, 0.6, 0.9, 1.1],
                  "onsager_n": 32, "train_betas": [0.2, 0.3, 0.4, 0.5, 0.6], "train_instances": 12,
                  "test_betas": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], "test_instances": 6,
                  "field_std": 0.3, "hidden": 16, "fit_steps": 400,
                  "tap_sizes": [[4, 2], [8, 2], [8, 4], [16, 4], [16, 8], [32, 8], [32, 16], [64, 16]],
                  "tap_fit_min_nd": 256, "seed_offsets": [0], "sharp_scales": [1.0, 3.0, 10.0]},
        "full": {"tokens": 64, "dim": 16, "batch": 32, "steps": 60, "rhos": [0.3, 0.6, 0.9, 1.1],
                 "onsager_n": 64, "train_betas": [0.2, 0.3, 0.4, 0.5, 0.6], "train_instances": 50,
                 "test_betas": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], "test_instances": 20,
                 "field_std": 0.3, "hidden": 32, "fit_steps": 3000,
                 "tap_sizes": [[4, 2], [8, 2], [8, 4], [16, 4], [16, 8], [32, 8], [32, 16], [64, 16],
                               [64, 32], [128, 32]], "tap_fit_min_nd": 512, "seed_offsets": [0, 2, 4],
                 "sharp_scales": [1.0, 3.0, 10.0]},
    },
    # Chapter 4: brute force over all n^n edge sets (n <= 6), then three iterative mechanisms.
    "structural": {
        "quick": {"enum_n": 6, "enum_d": 4, "enum_beta": 0.5, "enum_instances": 8,
                  "hop_dim": 24, "hop_counts": [2, 4, 8, 16, 32, 64, 128, 256, 512],
                  "hop_betas": [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0], "hop_trials": 100,
                  "hop_steps": 5,
                  "slot_points": 300, "slot_clusters": 4, "slot_trials": 50, "slot_iters": 30,
                  "slot_sigmas": [0.3, 0.6, 1.0, 1.5, 2.5], "slot_sigma": 0.6, "slot_spread": 0.6,
                  "pc_trials": 200, "pc_dim": 8, "pc_parents": 6, "pc_obs_dim": 8, "pc_steps": 40,
                  "pc_pi": 1.0, "pc_pi_y": 4.0, "pc_lr_fractions": [0.5, 1.0, 1.9],
                  "ident_n": 5, "ident_d": 4, "ident_beta": 0.5, "ident_instances": 8, "mask_n": 6,
                  "mask_density": 0.5, "mask_instances": 8, "prior_n": 6, "prior_instances": 8,
                  "prior_temperatures": [0.1, 0.3, 1.0, 3.0], "forms_steps": 3},
        "full": {"enum_n": 6, "enum_d": 4, "enum_beta": 0.5, "enum_instances": 24,
                 "hop_dim": 32, "hop_counts": [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048],
                 "hop_betas": [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0], "hop_trials": 500,
                 "hop_steps": 10,
                 "slot_points": 500, "slot_clusters": 5, "slot_trials": 200, "slot_iters": 40,
                 "slot_sigmas": [0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.5, 2.5], "slot_sigma": 0.6,
                 "slot_spread": 0.6,
                 "pc_trials": 2000, "pc_dim": 16, "pc_parents": 10, "pc_obs_dim": 16, "pc_steps": 100,
                 "pc_pi": 1.0, "pc_pi_y": 4.0, "pc_lr_fractions": [0.25, 0.5, 1.0, 1.9],
                 # Eqs 3-7, masks and other priors: exact checks, seconds at these sizes
                 "ident_n": 6, "ident_d": 4, "ident_beta": 0.5, "ident_instances": 24, "mask_n": 6,
                 "mask_density": 0.5, "mask_instances": 100, "prior_n": 6, "prior_instances": 50,
                 "prior_temperatures": [0.1, 0.3, 1.0, 3.0], "forms_steps": 3},
    },
    # Chapter 5: multi-hop toy (d = 3, n = 5, batch 200, Adam 1e-3, weight decay 2) for `seeds` (the paper's
    # task; `code_task_seeds` the code's) and `steps` per model and task; `repro_*` the public code's run replayed
    # in its RNG order; expanding attention (n = 50, batch `exp_batch`, Adam 5e-4, weight decay 2) for every p and
    # d, and the code's setting for `exp_code_extra_seeds` more seeds at one (d, p).
    "designs": {
        # quick: about a minute on one CPU thread (issue 29), every phenomenon the prose names still visible
        "quick": {"seeds": [0, 1, 2], "steps": 1500, "record_every": 50, "batch_size": 200,
                  "test_size": 2000, "hops": 2, "rank": 1, "repro_seeds": [0, 1, 2], "repro_steps": 1000,
                  "exp_dims": [10, 50], "exp_ps": [0.5, 0.2, 0.1, 0.04], "exp_steps": 500,
                  "exp_batch": 1, "exp_seeds": [0], "exp_code_steps": 500,
                  "abl_seeds": [0, 1, 2], "abl_steps": 400, "code_task_seeds": [0, 1, 2],
                  "exp_code_extra_seeds": [], "exp_code_extra_d": 50, "exp_code_extra_p": 0.04},
        # full: the paper's task with 20 seeds (the ordering's verdict turned on one of ten), the code's task with the
        # public code's ten; the ablation at ten seeds and the main task's steps (~2.5 CPU-minutes), so that its
        # positive control (two layers against one) can resolve; five more seeds of the code setting where its three
        # disagreed (d = 50, p = 1/25)
        "full": {"seeds": list(range(20)), "steps": 20000, "record_every": 250, "batch_size": 200,
                 "test_size": 10000, "hops": 2, "rank": 1, "repro_seeds": list(range(10)),
                 "repro_steps": 20000, "exp_dims": [10, 50], "exp_ps": [0.5, 0.2, 0.1, 0.04],
                 "exp_steps": 10000, "exp_batch": 1, "exp_seeds": [0, 1, 2], "exp_code_steps": 10000,
                 "abl_seeds": list(range(10)), "abl_steps": 20000, "code_task_seeds": list(range(10)),
                 "exp_code_extra_seeds": [3, 4, 5, 6, 7], "exp_code_extra_d": 50, "exp_code_extra_p": 0.04},
    },
    # Chapter 6: grids are [start, stop, count] (np.linspace); runs of `steps` with the first
    # `transient` discarded. Full = the paper's Fig 3 (4001 β × 1.2e5 steps); CPU minutes.
    "dmft": {
        "quick": {"protocol": "short", "fig3a": [0.0, 3.0, 301], "fig3b": [1.24, 1.28, 201], "steps": 20000,
                  "transient": 4000,
                  "fig4_betas": [1.255, 1.26405, 1.266, 1.27, 1.28, 1.4], "fig4_steps": 20000,
                  "fig4_transient": 8000, "context_betas": [3.0, 2.0, 1.4, 1.28], "context_grid": [1.2, 1.45, 41],
                  "coexist_steps": 8000, "coexist_transient": 2000, "coexist_points": 1500,
                  "symmetric_grid": [0.0, 3.0, 61], "symmetric_steps": 6000, "symmetric_transient": 3000,
                  "gamma_betas": [1.0, 2.0, 41], "gammas": [100.0, 300.0, 21], "gamma_steps": 6000,
                  "gamma_transient": 3000, "validate_n": 30, "validate_reps": 4000, "validate_t": 12,
                  "error_ns": [1000, 10000, 100000, 1000000, 10000000], "error_betas": [1.0, 3.0],
                  "error_reps": 200, "error_t": 40, "finite_ns": [1000, 100000, 10000000],
                  "finite_grid": [1.2, 1.45, 61], "finite_steps": 8000, "finite_transient": 4000,
                  # beyond the paper: Floquet/NS, Lyapunov spectrum, rotation numbers, tongues, basins, network
                  "floquet_grid": [0.2, 1.3, 45], "floquet_steps": 4000, "floquet_newton": 4, "ns_fine": 21,
                  "spectrum_grid": [1.24, 1.28, 81], "spectrum_k": 4, "spectrum_steps": 6000,
                  "spectrum_transient": 3000, "rotation_grid": [1.24, 1.28, 201], "rotation_steps": 10000,
                  "rotation_transient": 4000, "tongue_betas": [1.15, 1.35, 41], "tongue_epsilons": [0.0, 0.08, 9],
                  "tongue_steps": 6000, "tongue_transient": 3000, "basin_betas": [1.0, 1.255, 1.27, 1.3],
                  "basin_contexts": 24, "basin_steps": 10000, "census_starts": 4, "staircase_starts": 1, "long_steps": 60000, "long_transient": 40000, "basin_transient": 6000, "network_n": 99,
                  "network_reps": 2000, "network_t": 12, "network_ns": [99, 990, 9900], "network_error_reps": 32},
        # protocol: "paper-code" (1.2e5 steps, 1e5 discarded) or "seed-text" (1.2e6/1e6, ten times longer)
        "full": {"protocol": "paper-code", "fig3a": [0.0, 3.0, 4001], "fig3b": [1.24, 1.28, 4001], "steps": 120000,
                 "transient": 100000,
                 "fig4_betas": [1.255, 1.26405, 1.266, 1.27, 1.28, 1.4], "fig4_steps": 120000,
                 "fig4_transient": 100000, "context_betas": [3.0, 2.0, 1.4, 1.28], "context_grid": [1.2, 1.45, 1001],
                 # coexistence: 4·10⁴ saved steps, so that each section holds 10⁴ stroboscopic points
                 "coexist_steps": 140000, "coexist_transient": 100000, "coexist_points": 10000,
                 "symmetric_grid": [0.0, 3.0, 401], "symmetric_steps": 120000, "symmetric_transient": 100000,
                 "gamma_betas": [1.0, 2.0, 161], "gammas": [100.0, 300.0, 81], "gamma_steps": 30000,
                 "gamma_transient": 20000, "validate_n": 30, "validate_reps": 40000, "validate_t": 12,
                 "error_ns": [1000, 10000, 100000, 1000000, 10000000], "error_betas": [1.0, 3.0],
                 "error_reps": 2000, "error_t": 40, "finite_ns": [1000, 100000, 10000000],
                 "finite_grid": [1.2, 1.45, 401], "finite_steps": 120000, "finite_transient": 100000,
                 # beyond the paper (measured 3.2 CPU-minutes single thread with 128 basin contexts; ~4 with 256)
                 "floquet_grid": [0.05, 1.3, 126], "floquet_steps": 20000, "floquet_newton": 6, "ns_fine": 41,
                 "spectrum_grid": [1.24, 1.28, 401], "spectrum_k": 4, "spectrum_steps": 30000,
                 "spectrum_transient": 20000, "rotation_grid": [1.24, 1.28, 4001], "rotation_steps": 30000,
                 "rotation_transient": 10000, "tongue_betas": [1.15, 1.35, 161], "tongue_epsilons": [0.0, 0.08, 33],
                 "tongue_steps": 16000, "tongue_transient": 8000, "basin_betas": [1.0, 1.2, 1.24, 1.25, 1.255, 1.26, 1.26405,
                                                           1.266, 1.27, 1.275, 1.28, 1.3, 1.35, 1.4, 1.6, 2.0],
                 "basin_contexts": 256, "census_starts": 64, "staircase_starts": 4, "long_steps": 1200000, "long_transient": 1000000, "basin_steps": 30000, "basin_transient": 26000, "network_n": 99,
                 "network_reps": 20000, "network_t": 12, "network_ns": [99, 990, 9900, 99000],
                 "network_error_reps": 64},
    },
}


def check_profile(profile: str) -> str:
    """Return ``profile`` if it names a profile, else raise a ValueError naming the choices."""
    from .checks_scalars import check_choice

    return check_choice("profile", profile, PROFILE_NAMES)   # the text as str compares it (a subclass's __eq__ aside)


def chapter_info(chapter: str) -> Chapter:
    """The :class:`Chapter` called ``chapter``; a clear error for an unknown name."""
    for ch in CHAPTERS:   # compared as str does, whatever the subclass's own __eq__ says
        if isinstance(chapter, str) and str.__eq__(ch.name, chapter) is True:
            return ch
    raise ValueError(f"chapter must be one of {', '.join(repr(c.name) for c in CHAPTERS)}; got {chapter!r}")


# the domain of each size (its kind, range, length, first entry): mfattn.companion.profiles_domains
from .profiles_domains import (CHOICES, _FIRST, _LENGTHS, _MAXIMA, _MINIMA, _RANGES, _SEED_LISTS,  # noqa: E402,F401
                               _ZERO_OK, _expected, _is_int, _is_real, _real_range)


def check_override(chapter: str, key: str, value: Any) -> Any:
    """Return ``value`` if size ``key`` of ``chapter`` can take it, else raise a ValueError of one line
    naming the key and what it expects (an unknown key lists the known ones). A value whose work alone
    exceeds the budget (:func:`check_run_work`: ``steps=10**15``) is refused here too, before any loop."""
    value = _checked_value(chapter, key, value)
    _check_run_work(chapter, "quick", {key: value}, together=False)   # sizes together: with the run's profile
    return value


def _checked_value(chapter: str, key: Any, value: Any) -> Any:
    """``value`` if size ``key`` of ``chapter`` takes its kind (:func:`check_override` without the work)."""
    known = PROFILES[chapter_info(chapter).name]["quick"]
    if not isinstance(key, str) or key not in known:
        raise ValueError(f"unknown size {key!r} for chapter {chapter!r}; known: {sorted(known)}")
    phrase, test = _expected(chapter, key)
    if getattr(getattr(value, "dtype", None), "kind", None) in ("m", "M"):   # a numpy time: .item() is its count
        raise ValueError(f"size {key!r} of chapter {chapter!r} must be {phrase}; got a time {_short(value)}")
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # numpy scalars
        value = value.item()
    try:
        ok = bool(test(value))
    except (TypeError, ValueError, OverflowError):  # a value no comparison can make sense of
        ok = False
    if not ok:
        raise ValueError(f"size {key!r} of chapter {chapter!r} must be {phrase}; got {_short(value)}")
    return value


def _short(value: Any) -> str:
    """``repr(value)`` cut to a readable length (a hostile list may hold millions of items)."""
    if _is_int(value) and value.bit_length() > 200:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (list, tuple, dict, str)) and len(value) > 40:
        return f"a {type(value).__name__} of {len(value):,} items"
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


# --- the work of a run ---------------------------------------------------------------------------------------
#: Sizes whose work grows faster than in proportion: exact enumeration over 2^n spin states (chapter 1) and
#: over the n^n edge sets of n tokens (chapter 4's brute-force checks).
_GROWTH: dict[tuple[str, str], str] = {("ising", "n"): "2^n", ("ising", "size_ns"): "2^n", ("structural", "enum_n"): "n^n",
                                       ("structural", "ident_n"): "n^n", ("structural", "mask_n"): "n^n",
                                       ("structural", "prior_n"): "n^n"}
#: Integer sizes that are not amounts of work: intervals (a larger one does less) and fit thresholds.
_NOT_WORK = ("_every", "tap_fit_min_nd")
#: The largest override of a run's work, as a multiple of the full profile's (``$MFATTN_WORK_FACTOR``).
DEFAULT_WORK_FACTOR = 10.0


def work_factor() -> float:
    """How many times the full profile's work one run may do: ``$MFATTN_WORK_FACTOR`` (e.g. ``100``) or 10."""
    from .checks import env_positive
    value = env_positive("MFATTN_WORK_FACTOR", "times the full profile's work")
    return DEFAULT_WORK_FACTOR if value is None else value


def _log_size(chapter: str, key: str, value: Any) -> float | None:
    """The natural log of how much work size ``key`` = ``value`` asks for (None: not an amount of work)."""
    if value is None or isinstance(value, (str, bool)) or key.endswith(_NOT_WORK):
        return None
    if _is_int(value):
        n = min(max(int(value), 1), 10**300)   # past 1e300 every size is refused alike (n·log 2 would overflow)
        growth = _GROWTH.get((chapter, key))
        if growth == "2^n":
            return n * math.log(2.0)
        if growth == "n^n":
            return n * math.log(n)
        return math.log(n)
    if isinstance(value, list):
        if len(value) == 3 and _is_int(value[2]) and not _is_int(value[0]) and _is_real(value[0]):
            return math.log(max(value[2], 1))  # a grid [start, stop, count]: its count of points
        if value and all(isinstance(x, list) for x in value):  # (N, d) pairs: the sum of their products
            return math.log(max(1, sum(math.prod(max(int(y), 1) for y in x) for x in value)))
        if _GROWTH.get((chapter, key)) == "2^n" and all(_is_int(x) for x in value):  # sizes enumerated exactly
            return math.log(max(1, sum(2.0 ** min(max(x, 1), 1000) for x in value)))
        if key.endswith(("seeds", "seed_offsets")) or not all(_is_int(x) for x in value):
            return math.log(max(len(value), 1))  # seeds, betas: one run each
        return math.log(max(1, sum(max(x, 1) for x in value)))  # sizes (network_ns, budget_steps): their sum
    return None  # real numbers (temperatures, rates) are not amounts of work


def run_work(chapter: str, sizes: dict[str, Any]) -> tuple[float, str | None]:
    """The work of a run of ``chapter`` with ``sizes``, as a multiple of its full profile's (at least 1
    when every size stays within the profiles' own), and the size that raises it most (or None).

    The estimate bounds a run whose work is a sum of products of its sizes (steps × grid points × seeds ...):
    each size beyond the larger of the two profiles' values multiplies it by its own ratio (2^Δn for a
    number of spins enumerated exactly, n^n for edge sets), and sizes within them count as they are. A size
    a profile leaves to the data (null: all of it) is bounded by the data and is not counted. Each size is
    checked first (:func:`check_override`'s kinds: an unknown key or a value of the wrong kind is a ValueError)."""
    if not isinstance(sizes, dict):
        raise TypeError(f"sizes must be a dict of profile sizes; got {type(sizes).__name__}")
    return _run_work(chapter, {key: _checked_value(chapter, key, value) for key, value in sizes.items()})


def _run_work(chapter: str, sizes: dict[str, Any]) -> tuple[float, str | None]:
    name = chapter_info(chapter).name
    total, worst, worst_key = 0.0, 0.0, None
    for key, value in sizes.items():
        declared = [PROFILES[name][p].get(key) for p in PROFILE_NAMES]
        if any(v is None for v in declared):
            continue
        logs = [_log_size(name, key, v) for v in declared]
        own = _log_size(name, key, value)
        if own is None or any(v is None for v in logs):
            continue
        excess = max(0.0, own - max(logs))
        total += excess
        if excess > worst:
            worst, worst_key = excess, key
    return math.exp(min(total, 700.0)), worst_key


def _check_together(chapter: str, sizes: dict[str, Any]) -> None:
    """Sizes that bound each other: a run's ``*transient`` (the steps it discards) below its ``*steps`` (dmft's own
    ``transient`` and ``steps`` only with the "short" protocol, which keeps them; the others replace both); chapter 4's
    ``slot_sigma`` one of its ``slot_sigmas`` (the example it shows is read off that study); chapter 3's ``rhos`` with
    one below 1 (the contraction it shows)."""
    name = chapter_info(chapter).name
    if name == "structural" and isinstance(sizes.get("slot_sigmas"), list) and \
            sizes.get("slot_sigma") not in sizes["slot_sigmas"]:
        raise ValueError(f"size 'slot_sigma' = {_short(sizes.get('slot_sigma'))} of chapter 'structural' must be one "
                         f"of its 'slot_sigmas' = {_short(sizes['slot_sigmas'])}")
    if name == "transformer" and isinstance(sizes.get("rhos"), list) and not any(
            _is_real(r) and r < 1 for r in sizes["rhos"]):
        raise ValueError(f"size 'rhos' = {_short(sizes['rhos'])} of chapter 'transformer' must hold a value below 1 "
                         "(the contraction the chapter shows)")
    for key, value in sizes.items():
        if not key.endswith("transient"):
            continue
        steps = key[: -len("transient")] + "steps"
        if (steps not in sizes or not (_is_int(value) and _is_int(sizes[steps]))
                or (key == "transient" and sizes.get("protocol", "short") != "short")):
            continue
        if value >= sizes[steps]:
            raise ValueError(f"size {key!r} = {value} of chapter {chapter!r} must be below {steps!r} = "
                             f"{sizes[steps]} (the steps a run discards come out of its steps)")


def check_run_work(chapter: str, profile: str, overrides: dict[str, Any]) -> float:
    """Refuse, before the first cell, a run of ``chapter`` in ``profile`` with ``overrides`` whose estimated
    work (:func:`run_work`) exceeds :func:`work_factor` times the full profile's: a ValueError of one line
    naming the size that raises it most; sizes that bound each other (a ``*transient`` of at least its
    ``*steps``) are a ValueError naming both. Returns the estimate."""
    return _check_run_work(chapter, profile, overrides)


def _check_run_work(chapter: str, profile: str, overrides: dict[str, Any], together: bool = True) -> float:
    from .checks import check_work

    if not isinstance(overrides, dict):
        raise TypeError(f"overrides must be a dict of profile sizes; got {type(overrides).__name__}")
    factor = work_factor()  # a malformed budget is an error even when nothing exceeds it
    checked = {key: _checked_value(chapter, key, value) for key, value in overrides.items()}
    sizes = {**PROFILES[chapter_info(chapter).name][check_profile(profile)], **checked}
    if together:
        _check_together(chapter, sizes)
        ignored = [k for k in ("steps", "transient") if k in checked]
        if chapter_info(chapter).name == "dmft" and ignored and sizes.get("protocol") != "short":
            # the chapter replaces both by its protocol's (PROTOCOLS): the override would be silently ignored
            raise ValueError(f"size {ignored[0]!r} of chapter 'dmft' has no effect with protocol "
                             f"{sizes.get('protocol')!r}, which sets steps and transient itself; set protocol='short' "
                             f"with it (the profile's own steps and transient, or those given)")
    work, key = _run_work(chapter, sizes)
    if key is not None:
        name = f"size {key!r} = {_short(sizes[key])} of chapter {chapter!r}"
        check_work(name, work, factor, what="the run", unit="times the full profile's work",
                   env="MFATTN_WORK_FACTOR")
    return work


def get_profile(chapter: str, profile: str = "quick", **overrides: Any) -> dict[str, Any]:
    """The sizes of ``chapter`` in ``profile``, as a fresh dict, with ``overrides`` applied.

    An override must name a known key and have the kind of value the key takes (:func:`check_override`),
    so a typo in a notebook's parameters, ``steps=-5`` or ``steps="abc"``, is an error rather than a
    silently ignored or misread setting; and the whole run's estimated work must stay within
    :func:`work_factor` times the full profile's (:func:`check_run_work`), so ``steps=10**15`` is refused
    here, not days later.
    """
    chapter_info(chapter)
    check_profile(profile)
    sizes = copy.deepcopy(PROFILES[chapter][profile])
    unknown = sorted(set(overrides) - set(sizes))
    if unknown:
        raise ValueError(f"unknown size(s) {unknown} for chapter {chapter!r}; known: {sorted(sizes)}")
    sizes.update({key: check_override(chapter, key, value) for key, value in overrides.items()})
    check_run_work(chapter, profile, overrides)
    if profile == "full":
        # the paper-scale sizes ask for a chapter's work: its calls may do up to CHAPTER_MAX_WORK from now on (the
        # run as a whole was bounded just above); the quick sizes alone admit nothing (a chapter's run does:
        # ChapterRun), so a call made on its own keeps DEFAULT_MAX_WORK
        from .checks_budgets import admit_chapter_work

        admit_chapter_work()
    return sizes


def resolve_device(device: str = "auto"):
    """Turn ``"auto" | "cpu" | "cuda"`` (or ``"cuda:N"``) into a ``torch.device``.

    ``auto`` picks CUDA when available, else CPU. Asking for CUDA on a machine without
    it is an error, not a silent fall-back, so a full-profile run never quietly runs on CPU.
    """
    import torch

    if not isinstance(device, str) or not (device in DEVICE_NAMES or device.startswith("cuda:")):
        raise ValueError(f"device must be one of {', '.join(map(repr, DEVICE_NAMES))}; got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} was asked for, but torch sees no CUDA device "
                         f"(torch {torch.__version__}); use device='cpu' or install a CUDA build of torch")
    return torch.device(device)
