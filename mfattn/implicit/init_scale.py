"""Is the blog's initialisation crucial for stability? The MNIST model trained from couplings drawn larger.

The blog initialises the raw couplings with standard deviation ``σ = 1/√(N d²)`` (N = 17 sites, d = 10), so
that ‖J‖ = O(1), and calls that scale crucial for stability. This study trains the same model from
``factor · σ`` for each factor in ``factors`` (1: the blog's scale; √10 and 10: variance ×10 and ×100) over a
stated shorter protocol (the profile's ``init_epochs`` epochs, ``init_steps`` steps each when set), for each
seed, and reports per run what stability means for this layer: how often the forward solve reaches its
tolerance, and whether training broke down, beside the test accuracy and the test digits it got right (for a
paired comparison with the blog's scale in the same seed).

:func:`init_config` builds a run's :class:`~mfattn.implicit.train.TrainConfig` (factor 1 is the plain blog
model, no override); :func:`train_runs` trains (or loads from the training cache) every run;
:func:`init_rows` turns them into rows like the variant table's (:func:`mfattn.implicit.variants.variant_rows`),
keyed ``init_x<factor>``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from .train import TrainConfig, TrainResult
from ..companion.checks import check_int, check_real, contract

__all__ = ["FACTORS", "blog_std", "init_config", "train_runs", "init_rows", "factor_key"]

#: Multipliers of the blog's standard deviation: the blog's scale, variance ×10 and ×100.
#: σ, √10 σ and 10 σ (the first three: their row indices name the chapter's numbers), then one scale below σ
#: (σ/√10) and one between √10 σ and 10 σ (10^0.75 σ): half-decades, so a change between √10 σ and 10 σ is located.
FACTORS = (1.0, math.sqrt(10.0), 10.0, 1.0 / math.sqrt(10.0), 10.0 ** 0.75)

N_SITES = 17                                   # 16 patches and the cls token


@contract(dim="int:1")
def blog_std(dim: int) -> float:
    """The blog's initial standard deviation of the raw couplings, ``1/√(N d²)`` with N = 17 sites."""
    return 1.0 / math.sqrt(N_SITES * dim * dim)


@contract(factor="real:>0")
def factor_key(factor: float) -> str:
    """``init_x1``, ``init_x3.16``, ``init_x10``: the row key of a factor."""
    return f"init_x{factor:.3g}"


@contract(sizes="mapping:init_epochs|train_limit|test_limit|snapshot_every", seed="int:0", factor="real:>0")
def init_config(sizes: Mapping[str, Any], seed: int, factor: float) -> TrainConfig:
    """The run of ``seed`` from couplings of standard deviation ``factor`` × :func:`blog_std` over the profile's
    shorter protocol (``init_epochs``, ``init_steps``); the rest as the chapter's runs. A numpy integer seed or
    numpy float factor is read as the Python number of its value (the same configuration and cache key)."""
    if not (isinstance(factor, (int, float)) and math.isfinite(factor) and factor > 0):
        raise ValueError(f"factor must be a positive finite number; got {factor!r}")
    attention = {} if factor == 1.0 else {"weight_init_std": factor * blog_std(10)}
    return TrainConfig(epochs=sizes["init_epochs"], seed=seed, train_limit=sizes["train_limit"],
                       test_limit=sizes["test_limit"], steps_per_epoch=sizes.get("init_steps"),
                       snapshot_every=sizes["snapshot_every"], eval_every=None, checkpoint_every=100,
                       attention=attention)


def train_runs(sizes: Mapping[str, Any], seeds: Sequence[int], factors: Sequence[float] = FACTORS, *,
               data_root=None, device: str = "cpu") -> dict[tuple[float, int], TrainResult]:
    """Train (or load) the run of every (factor, seed); ``{(factor, seed): TrainResult}``. The seeds of one factor
    train as one ensemble (:func:`mfattn.implicit.ensemble_train.train_into_cache`: each member bit-equal to its
    solo run, stored where the solo run lives)."""
    from .ensemble_train import train_into_cache
    from .variants import _distinct_seeds, _run_device

    seeds = _distinct_seeds(seeds)
    if isinstance(factors, (str, bytes)) or not hasattr(factors, "__iter__"):
        raise TypeError(f"factors must be a list of initialisation scales > 0; got {type(factors).__name__}")
    factors = list(factors)
    if not factors:
        raise ValueError("factors must name at least one initialisation scale; got an empty list")
    for f in factors:
        check_real("each entry of factors", f, minimum=0.0, strict=True)
    if len({factor_key(f) for f in factors}) != len(factors):
        raise ValueError(f"factors must name each scale once; got {factors!r:.80}")
    _run_device(device, present=True)
    out = {}
    for f in factors:
        runs = train_into_cache([init_config(sizes, s, f) for s in seeds], data_root=data_root, device=device)
        out.update({(f, s): r for s, r in zip(seeds, runs)})
    return out


def _check_results(results: Any) -> None:
    """A TypeError/ValueError naming ``results`` unless it is a mapping ``{(factor, seed): TrainResult}``."""
    if not isinstance(results, Mapping):
        raise TypeError(f"results must be a mapping {{(factor, seed): TrainResult}} (train_runs'); got "
                        f"{type(results).__name__}")
    for key, res in results.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise ValueError(f"results' keys must be (factor, seed) pairs (train_runs'); got the key {key!r:.60}")
        check_real("results' factor", key[0], minimum=0.0, strict=True)
        check_int("results' seed", key[1], 0)
        if not isinstance(res, TrainResult):
            raise TypeError(f"results[{key!r:.60}] must be a TrainResult; got {type(res).__name__}")


def init_rows(results: Mapping[tuple[float, int], TrainResult]) -> list[dict[str, Any]]:
    """One row per run (:func:`mfattn.implicit.variants.variant_rows`), keyed by :func:`factor_key`, with the
    factor and the initial standard deviation. ``results`` is :func:`train_runs`' mapping: keys ``(factor, seed)``
    pairs (a factor > 0, a seed >= 0), values :class:`TrainResult`."""
    from .variants import variant_rows

    _check_results(results)
    rows = []
    for (factor, seed), res in results.items():
        row = variant_rows({factor_key(factor): res})[0]
        std = res.config.attention.get("weight_init_std", blog_std(res.config.dim))
        rows.append({**row, "key": factor_key(factor), "variant": f"σ × {factor:.3g}", "factor": factor,
                     "init_std": std, "seed": seed})
    return rows
