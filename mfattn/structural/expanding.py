"""Expanding attention (Singh & Buckley 2023, Sec. 5): one import for the chapter and the tests.

The design lives in five modules, by job; every public name is importable from here as before:

* :mod:`.expanding_prior`: the prior (horizon, estimates of q, slopes) and the ELBO :func:`expanding_elbo`;
* :mod:`.expanding_core`: the batched iteration :func:`expanding_attention` (the paper's accumulating update,
  and coordinate-ascent VI);
* :mod:`.windowed`: the cost, :func:`lazy_expanding_attention` (scores only the window),
  :func:`relative_operations` (the paper's and the code's counts) and :func:`operations_as_run`;
* :mod:`.expanding_task`: the toy task of the paper's Figure 3 and the expanding / standard models;
* :mod:`.expanding_train`: :func:`train_expanding`, every (p, seed) in one batched loop, cached, and
  :func:`train_expanding_variants`, several settings of the prior in one loop.
"""

from __future__ import annotations

from .expanding_core import (SLOPES, UPDATES, ExpandingResult, effective_q, expanding_attention, expanding_elbo,
                             geometric_horizon, prior_slope)
from .expanding_task import (ExpandingTask, expanding_forward, make_expanding_weights, sample_expanding_batch,
                             standard_forward)
from .expanding_train import train_expanding, train_expanding_variants
from .windowed import OPS_MODES, lazy_expanding_attention, operations_as_run, relative_operations

__all__ = [
    "SLOPES", "UPDATES", "OPS_MODES", "geometric_horizon", "effective_q", "prior_slope",
    "ExpandingResult", "expanding_attention", "expanding_elbo", "lazy_expanding_attention", "relative_operations",
    "operations_as_run", "ExpandingTask", "make_expanding_weights", "sample_expanding_batch", "expanding_forward",
    "standard_forward", "train_expanding", "train_expanding_variants",
]
