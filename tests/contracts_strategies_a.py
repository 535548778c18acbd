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
