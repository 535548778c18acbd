"""Valid-input builders for the contract specs of issue 44 item 5 (companion, ising, meanfield and the non-training
parts of implicit): tiny package-made data sets and study dicts, cached once per test session, and temporary folders.

Kept apart from contracts_registry.py (shared machinery) so that the spec files using them stay short.
"""

from __future__ import annotations

import functools
import tempfile

import numpy as np
from hypothesis import strategies as st


def tmpdir(prefix: str = "mfattn-contract-") -> str:
    """A fresh temporary folder under /tmp (a writer's target: never the session's output folders)."""
    return tempfile.mkdtemp(prefix=prefix, dir="/tmp")


@functools.lru_cache(maxsize=None)
def onsager_data(seed: int = 0) -> dict:
    """A tiny Onsager data set (mfattn.implicit.onsager.onsager_dataset: n = 4 sites, two β, three instances each)."""
    from mfattn.implicit.onsager import onsager_dataset

    return onsager_dataset(4, [0.3, 0.5], 3, seed=seed)


def onsager_pair(draw) -> tuple[dict, dict]:
    """A training and a test data set (different seeds, the same β)."""
    s = draw(st.integers(0, 2))
    return onsager_data(s), onsager_data(s + 10)


def close_figures(result) -> None:
    """Close what a figure function returned (the contract child exits anyway, this keeps the valid call tidy)."""
    import matplotlib.pyplot as plt

    plt.close("all")
    return result


def project_root():
    from mfattn.companion.store import project_root as root

    return root()


@functools.lru_cache(maxsize=None)
def stored(chapter: str) -> dict:
    """The flattened stored full-profile numbers a chapter's rules read (``ising``, ``deq``, ``transformer``), as the
    chapter's stored_numbers makes them from the tracked data/full files."""
    if chapter == "ising":
        from mfattn.meanfield.claims import stored_numbers

        return stored_numbers(project_root())[0]
    if chapter == "transformer":
        from mfattn.implicit.claims_transformer_numbers import stored_numbers

        return stored_numbers(project_root())[0]
    from mfattn.implicit.claims_deq_numbers import stored_numbers

    return stored_numbers(project_root(), chapter)[0]


@functools.lru_cache(maxsize=None)
def empty_dir() -> str:
    """One empty folder for the readers (nothing stored there)."""
    return tmpdir("mfattn-contract-empty-")


def root_choice(draw, checkout: bool = True):
    """A project folder to read stored numbers from: the checkout (its tracked data/full), an empty folder, or None."""
    from pathlib import Path

    kinds = ["checkout", "empty", "none"] if checkout else ["empty", "none"]
    kind = draw(st.sampled_from(kinds))
    return {"checkout": project_root(), "empty": Path(empty_dir()), "none": None}[kind]


def in_tmp(fn, kwargs):
    """Call a writer from inside a fresh temporary folder (in the forked child), so that a hostile relative path
    (``"x"``) writes under /tmp, never into the checkout."""
    import os

    os.chdir(tmpdir())
    return fn(**kwargs)


def is_type(*types):
    """A Spec check: the result is an instance of ``types``."""
    def check(kw, r):
        assert isinstance(r, types), f"returned {type(r).__name__}, expected {'/'.join(t.__name__ for t in types)}"
    return check


@functools.lru_cache(maxsize=None)
def variant_table() -> dict:
    """The stored variant table of chapter 2 (data/full/deq_variants.json)."""
    from mfattn.companion.store import read_json

    return read_json(project_root() / "data" / "full" / "deq_variants.json")


# --- chapter 1's package-made results at tiny sizes (each made once per session) ---------------------------------
@functools.lru_cache(maxsize=None)
def families_result() -> dict:
    """mfattn.meanfield.families.compare_families on two families, 4 spins, 2 instances."""
    from mfattn.meanfield.families import compare_families

    return compare_families(4, 0.5, 2, families=("ferro", "diluted"))


@functools.lru_cache(maxsize=None)
def sizes_result() -> dict:
    """mfattn.meanfield.finite_size.line_by_size at 3 and 4 spins, 3 β, 2 instances."""
    from mfattn.meanfield.finite_size import line_by_size

    return line_by_size([3, 4], [0.5, 1.2, 2.0], 2, budget=60)


@functools.lru_cache(maxsize=None)
def stress_result() -> dict:
    """mfattn.meanfield.stress.breakdown_stress at 4 spins, 2 β, 2 instances."""
    from mfattn.meanfield.stress import breakdown_stress

    return breakdown_stress(4, [0.5, 1.5], 2, methods=("naive", "adaptive_tap"), max_iter=300)


@functools.lru_cache(maxsize=None)
def comparison():
    """compare_mean_field and damping_sweep on the same 4-spin instances (β 0.2 to 1.6, 2 instances)."""
    from mfattn.meanfield.accuracy import compare_mean_field, damping_sweep

    betas = [0.2, 0.6, 1.0, 1.6]
    return compare_mean_field(4, betas, 2), damping_sweep(4, betas, 2, [0.5, 1.0], budget=100)


def in_output(fn, kwargs, figures: bool = True):
    """Call a function of the book's output folders from inside a fresh temporary folder, with ``$MFATTN_FIGURES``,
    ``$MFATTN_OUTPUT`` and ``$MFATTN_CACHE`` pointing there too (in the forked child only): whatever it writes, the
    manifest, the ledger, a cache, lands under /tmp, never in the checkout's data/full or _build. ``figures=False``
    leaves ``$MFATTN_FIGURES`` alone, for calls of the quick profile only (its figures and ledger follow
    ``$MFATTN_OUTPUT``) that must read the stored full-profile manifest (evidence a verdict cites)."""
    import os

    base = tmpdir("mfattn-contract-out-")
    for name, sub in (("MFATTN_FIGURES", "figures"), ("MFATTN_OUTPUT", "output"), ("MFATTN_CACHE", "cache")):
        if name == "MFATTN_FIGURES" and not figures:
            continue
        os.makedirs(os.path.join(base, sub))
        os.environ[name] = os.path.join(base, sub)
    os.chdir(base)
    return fn(**kwargs)


class RunPlaceholder:
    """Stands for a chapter's run in a drawn call: :func:`with_run` builds the real ChapterRun in the forked child
    (its constructor marks the run started in the manifest, so it must be made under the temporary folders)."""

    def __repr__(self) -> str:
        return "<ChapterRun made in the child>"


def with_run(chapter: str):
    """A Spec ``call``: in temporary output folders (:func:`in_output`), replace a RunPlaceholder by
    ``ChapterRun(chapter, "quick", "cpu")`` and call (a hostile ``run``, None or a string, is passed as it is)."""
    def call(fn, kwargs):
        def inner(**kw):
            if isinstance(kw.get("run"), RunPlaceholder):
                from mfattn.companion.chapter import ChapterRun

                kw["run"] = ChapterRun(chapter, "quick", "cpu")
            return fn(**kw)
        return in_output(inner, kwargs, figures=False)
    return call


@functools.lru_cache(maxsize=None)
def restored_runs() -> dict:
    """The stored trained runs of chapter 2 (mfattn.implicit.trained.restore: data/full/deq/runs, hash-checked),
    restored into a temporary training cache (``$MFATTN_CACHE`` set while it fills, then put back): the session's own
    cache is never written."""
    import os

    from mfattn.implicit.trained import restore

    before = os.environ.get("MFATTN_CACHE")
    os.environ["MFATTN_CACHE"] = tmpdir("mfattn-contract-cache-")
    try:
        return restore()
    finally:
        if before is None:
            os.environ.pop("MFATTN_CACHE", None)
        else:
            os.environ["MFATTN_CACHE"] = before


@functools.lru_cache(maxsize=None)
def mnist_digits(n: int = 4):
    """The first ``n`` MNIST test digits and their labels (tensors)."""
    from mfattn.implicit.mnist import load_mnist

    return load_mnist("test", None, limit=n).tensors()


@functools.lru_cache(maxsize=None)
def mnist_present() -> bool:
    """Whether the MNIST files are on this machine (verified copies, found offline): the specs that read them are
    generated only then, and are Exempt (saying so) elsewhere."""
    from mfattn.companion.datasets import MissingDataError, dataset_files, locate

    try:
        return all(locate("mnist", f) is not None for f in dataset_files("mnist"))
    except (MissingDataError, ValueError):
        return False
