"""Modern Hopfield retrieval as collapsed structural inference.

A state ``xi`` (the query node) has one unknown parent among ``P`` stored patterns
``x_1..x_P`` with a uniform prior, and a Gaussian edge potential of precision ``beta``,
``p(xi | x_j, E = j) ∝ exp(-beta/2 |xi - x_j|^2)``. Marginalising ("collapsing") the edge
gives the energy ``-(1/beta) ln p(xi)``; for ±1 patterns (all of squared norm ``d``) it is the
modern-Hopfield energy of Ramsauer et al. (2021),

    E(xi) = -(1/beta) lse_j(beta x_j . xi) + |xi|^2 / 2 + (1/beta) ln P + d / 2.        (1)

(1) is a convex function (``|xi|^2/2``) minus a convex one (the log-sum-exp). The
convex-concave procedure linearises the concave part at the current state and minimises
the rest exactly, which gives the retrieval update

    xi <- sum_j softmax_j(beta x_j . xi) x_j,                                          (2)

one attention step whose query is the state and whose keys and values are the patterns.
Each step of (2) cannot increase (1); :func:`retrieve` records the energies so tests can
check it in float64.

Everything is batched: many inverse temperatures, pattern counts and trials run as one
tensor, with a mask that hides the patterns beyond each count.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
from ..companion.checks import check_device, check_int, contract

__all__ = ["random_patterns", "erase_entries", "hopfield_energy", "hopfield_update", "retrieve", "retrieval_grid",
           "cached_retrieval_grid", "relaxation"]


def _check_generator(generator):
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator (for reproducibility); got {type(generator).__name__}")


def _batch_shape(batch) -> tuple[int, ...]:
    """``batch``: a (possibly empty) sequence of non-negative integers, checked before the buffers are sized."""
    if isinstance(batch, (str, bytes)) or not isinstance(batch, (tuple, list, torch.Size)):
        raise TypeError(f"batch must be a tuple of non-negative integers (the leading shape); got "
                        f"{type(batch).__name__} {batch!r:.60}")
    for size in batch:
        check_int("each entry of batch", size, 0)
    return tuple(int(size) for size in batch)


def _patterns_alloc(a):
    return [("n_patterns", 16 * math.prod(_batch_shape(a["batch"])) * a["n_patterns"] * a["dim"])]


def _check_seed(seed) -> None:
    if seed > 2 ** 64 - 1:   # torch's seeds are 64-bit
        raise ValueError(f"seed must be an integer in [0, 2**64 - 1]; got {seed!r}")


def _check_overflow(betas, dim: int) -> None:
    """beta × (xi · pattern) is at most beta × dim for ±1 patterns; past the largest float every score is inf."""
    if not math.isfinite(float(max(float(b) for b in betas)) * dim):
        raise ValueError(f"betas times the largest score (dim = {dim}) overflow to inf; take smaller betas; got "
                         f"max(betas) = {max(float(b) for b in betas):g}")


@contract(n_patterns="int:1", dim="int:1", generator="generator", alloc=_patterns_alloc)
def random_patterns(n_patterns: int, dim: int, *, generator: torch.Generator,
                    batch: Sequence[int] = ()) -> torch.Tensor:
    """Independent uniform ±1 patterns, float64, shape ``(*batch, n_patterns, dim)``."""
    _check_generator(generator)
    for name, value in (("n_patterns", n_patterns), ("dim", dim)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    bits = torch.randint(0, 2, (*batch, n_patterns, dim), generator=generator)
    return (2 * bits - 1).to(torch.float64)


@contract(x="tensor:>=1", fraction="real:[0,1]", generator="generator")
def erase_entries(x: torch.Tensor, fraction: float = 0.5, *, generator: torch.Generator) -> torch.Tensor:
    """Set ``round(fraction * d)`` randomly chosen entries of each row of ``x`` (..., d) to zero.

    The erased positions are drawn independently for every row.
    """
    _check_generator(generator)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must lie in [0, 1]; got {fraction!r}")
    d = x.shape[-1]
    n_erase = int(round(fraction * d))
    # A random permutation per row, via argsort of uniform keys; its first n_erase slots are erased.
    order = torch.rand(x.shape, generator=generator, dtype=torch.float64).argsort(dim=-1)
    keep = order >= n_erase
    return torch.where(keep, x, torch.zeros_like(x))


def _broadcasts_to(shape, lead) -> bool:
    try:
        return tuple(np.broadcast_shapes(tuple(shape), tuple(lead))) == tuple(lead)
    except ValueError:
        return False


def _check_states(xi, patterns, beta, active):
    """The states, patterns, beta and mask agree: one dtype, d shared, at least one pattern, batch shapes that
    broadcast (beta and active broadcastable to the states' batch ``(...)``, never widening it)."""
    if xi.dtype != patterns.dtype:
        raise TypeError(f"xi and patterns must have one dtype; got xi {xi.dtype} and patterns {patterns.dtype} "
                        f"(cast explicitly)")
    if xi.shape[-1] != patterns.shape[-1]:
        raise ValueError(f"xi (..., d) and patterns (..., P, d) must share the pattern dimension d; got "
                         f"{xi.shape[-1]} and {patterns.shape[-1]}")
    if patterns.shape[-2] < 1:
        raise ValueError(f"patterns must hold at least one pattern (..., P >= 1, d); got shape {tuple(patterns.shape)}")
    try:
        lead = np.broadcast_shapes(tuple(xi.shape[:-1]), tuple(patterns.shape[:-2]))
    except ValueError:
        raise ValueError(f"xi (..., d) and patterns (..., P, d) must have batch shapes that broadcast; got "
                         f"{tuple(xi.shape[:-1])} and {tuple(patterns.shape[:-2])}") from None
    if isinstance(beta, torch.Tensor):
        if beta.dtype != xi.dtype:
            raise TypeError(f"beta must have the dtype of xi; got beta {beta.dtype} and xi {xi.dtype} (cast "
                            f"explicitly)")
        if not _broadcasts_to(beta.shape, lead):
            raise ValueError(f"beta must be a number or a tensor broadcastable to the states' batch shape "
                             f"{tuple(lead)}; got shape {tuple(beta.shape)}")
    if active is not None:
        if active.dtype != torch.bool:
            raise TypeError(f"active must be a bool tensor (which patterns are stored); got dtype {active.dtype}")
        if active.dim() == 0 or active.shape[-1] != patterns.shape[-2]:
            raise ValueError(f"active must have one entry per pattern ({patterns.shape[-2]}) in its last "
                             f"dimension; got shape {tuple(active.shape)}")
        if not _broadcasts_to(active.shape[:-1], lead):
            raise ValueError(f"active must have a batch shape broadcastable to the states' {tuple(lead)}; got "
                             f"shape {tuple(active.shape)}")
        if not bool(active.any(-1).all()):
            raise ValueError("active leaves a state with no stored pattern (a row of active all False): its "
                             "energy and update are undefined")


def _scores(xi, patterns, beta, active):
    # xi: (..., d); patterns: (..., P, d) broadcastable; beta broadcastable to (...,)
    scores = torch.einsum("...d,...pd->...p", xi, patterns) * beta.unsqueeze(-1)
    if active is not None:   # checked by _check_states, which both callers run first
        scores = scores.masked_fill(~active, -math.inf)
    return scores


def _as_beta(beta, like):
    beta = torch.as_tensor(beta, dtype=like.dtype, device=like.device)
    if not (torch.all(beta > 0) and torch.all(torch.isfinite(beta))):
        raise ValueError(f"beta must be positive and finite; got {beta}")
    return beta


@contract(xi="tensor:>=1", patterns="tensor:>=2", beta="realt", active="anytensor?")
def hopfield_energy(xi: torch.Tensor, patterns: torch.Tensor, beta, active: torch.Tensor | None = None) -> torch.Tensor:
    """The collapsed energy (1), shape ``(...)``.

    Parameters
    ----------
    xi : (..., d) states.
    patterns : (..., P, d) stored patterns (broadcast against ``xi``'s leading dims).
    beta : float or tensor broadcastable to ``(...)``; the edge precision.
    active : optional bool (..., P): which patterns are stored (the others are ignored).
        ``ln P`` and the norm term use the active patterns only.
    """
    _check_states(xi, patterns, beta, active)
    beta = _as_beta(beta, xi)
    scores = _scores(xi, patterns, beta, active)
    if active is None:
        n_active = torch.full(scores.shape[:-1], patterns.shape[-2], dtype=xi.dtype, device=xi.device)
        sq = (patterns ** 2).sum(-1).amax(-1)
    else:
        n_active = active.sum(-1).to(xi.dtype)
        sq = ((patterns ** 2).sum(-1).masked_fill(~active, 0.0)).amax(-1)
    energy = (-torch.logsumexp(scores, dim=-1) / beta + 0.5 * (xi ** 2).sum(-1)
              + torch.log(n_active) / beta + 0.5 * sq)
    if not bool(torch.isfinite(energy).all()):   # beta = 1e308 (scores inf) or 1e-320 (1 / beta inf), or huge states
        raise ValueError(f"beta (min {float(beta.min()):g}, max {float(beta.max()):g}) with these states and patterns "
                         f"overflows the energy (a score or 1 / beta past the largest float); take a beta nearer 1 "
                         f"or smaller states")
    return energy


@contract(xi="tensor:>=1", patterns="tensor:>=2", beta="realt", active="anytensor?")
def hopfield_update(xi: torch.Tensor, patterns: torch.Tensor, beta, active: torch.Tensor | None = None) -> torch.Tensor:
    """One convex-concave step (2): ``xi <- X^T softmax(beta X xi)``; shapes as :func:`hopfield_energy`."""
    _check_states(xi, patterns, beta, active)
    beta = _as_beta(beta, xi)
    scores = _scores(xi, patterns, beta, active)
    if bool(torch.isnan(scores).any()) or bool((scores == math.inf).any()):
        raise ValueError(f"beta (max {float(beta.max()):g}) times xi · patterns overflows the scores; take a smaller "
                         f"beta or smaller states")
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("...p,...pd->...d", weights, patterns)


@contract(xi="tensor:>=1", patterns="tensor:>=2", beta="realt", steps="int:0", active="anytensor?",
          alloc=lambda a: [("steps", 8 * (a["steps"] + 1) * max(1, a["xi"].numel() // max(1, a["xi"].shape[-1])))])
def retrieve(xi: torch.Tensor, patterns: torch.Tensor, beta, steps: int = 5,
             active: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Iterate (2) ``steps`` times from ``xi``.

    Returns
    -------
    final state (..., d) and energies (steps + 1, ...) of (1) along the way (index 0 = start).
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:   # numpy's integers too
        raise ValueError(f"steps must be a non-negative integer; got {steps!r}")
    energies = [hopfield_energy(xi, patterns, beta, active)]
    for _ in range(steps):
        xi = hopfield_update(xi, patterns, beta, active)
        energies.append(hopfield_energy(xi, patterns, beta, active))
    return xi, torch.stack(energies)


@contract(dim="int:1", pattern_counts="ints:1", betas="reals:>0", trials="int:1", steps="int:0",
          fraction="real:[0,1]", seed="int:0", chunk_elements="int:1",
          alloc=lambda a: [("trials", 8 * a["trials"] * (max(a["pattern_counts"]) * a["dim"] * 2
                                                         + (a["steps"] + 2) * len(a["betas"]) * len(a["pattern_counts"])))])
def retrieval_grid(dim: int, pattern_counts: Sequence[int], betas: Sequence[float], trials: int,
                   steps: int = 5, fraction: float = 0.5, *, seed: int, device=None,
                   chunk_elements: int = 2 ** 24) -> dict[str, torch.Tensor]:
    """Retrieval rate of half-erased ±1 patterns for every (beta, pattern count), in one batch.

    Trial ``t`` draws ``max(pattern_counts)`` random patterns; a memory of size ``P`` stores
    the first ``P`` of them (so the memories of one trial are nested). For each count, one
    stored pattern (uniformly chosen) is erased on ``fraction`` of its entries and used as the
    initial state, and (2) runs ``steps`` times for every beta at once. Retrieval succeeds
    when ``sign(xi)`` equals the pattern in every entry.

    All random draws happen up front on the CPU from ``seed``, so the result does not depend
    on ``device`` (up to float round-off) or on how the trials are split into chunks of at
    most ``chunk_elements`` attention scores.

    Returns a dict of CPU tensors: ``rate`` (B, C) success fraction, ``overlap`` (B, C) mean of
    ``x_target . xi / d``, ``energies`` (steps + 1, B, C, T), ``betas`` (B,), ``counts`` (C,).
    """
    _check_seed(seed)
    _check_overflow(betas, dim)
    if device is not None:
        check_device("device", device)
    counts = torch.as_tensor(list(pattern_counts), dtype=torch.long)
    betas_t = torch.as_tensor(list(betas), dtype=torch.float64)
    if counts.numel() == 0 or torch.any(counts < 1):
        raise ValueError(f"pattern_counts must be a non-empty list of positive integers; got {pattern_counts!r}")
    if betas_t.numel() == 0:
        raise ValueError("betas must be a non-empty list of positive numbers")
    if not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials must be a positive integer; got {trials!r}")
    gen = torch.Generator().manual_seed(int(seed))
    p_max = int(counts.max())
    C, B, T = counts.numel(), betas_t.numel(), trials
    patterns = random_patterns(p_max, dim, generator=gen, batch=(T,))  # (T, Pmax, d)
    target_idx = (torch.rand(C, T, generator=gen, dtype=torch.float64) * counts[:, None]).long()
    target = patterns[torch.arange(T), target_idx]  # (C, T, d)
    start = erase_entries(target, fraction, generator=gen)
    dev = torch.device(device) if device is not None else torch.device("cpu")
    active = (torch.arange(p_max) < counts[:, None])[None, :, None, :].to(dev)  # (1, C, 1, Pmax)
    beta = betas_t[:, None, None].to(dev)  # (B, 1, 1)
    per_trial = B * C * p_max
    chunk = max(1, int(chunk_elements) // per_trial)
    finals, energies = [], []
    for lo in range(0, T, chunk):
        sl = slice(lo, min(T, lo + chunk))
        pats = patterns[sl].to(dev)[None, None]  # (1, 1, t, Pmax, d)
        xi0 = start[:, sl].to(dev).expand(B, -1, -1, -1)  # (B, C, t, d)
        final, energy = retrieve(xi0, pats, beta, steps, active)
        finals.append(final.cpu())
        energies.append(energy.cpu())
    final, energies = torch.cat(finals, dim=2), torch.cat(energies, dim=3)
    success = (torch.sign(final) == target).all(-1)  # (B, C, T)
    overlap = (final * target).sum(-1) / dim
    return {"rate": success.to(torch.float64).mean(-1), "overlap": overlap.mean(-1), "energies": energies,
            "betas": betas_t, "counts": counts}


@contract(dim="int:1", pattern_counts="ints:1", betas="reals:>0", trials="int:1", steps="int:0", seed="int:0")
def cached_retrieval_grid(dim: int, pattern_counts: Sequence[int], betas: Sequence[float], trials: int,
                          steps: int, *, seed: int, device=None) -> dict[str, np.ndarray]:
    """:func:`retrieval_grid` (``fraction=0.5``) as numpy arrays, cached on disk under
    ``cache_dir("structural")`` with a key of its configuration and this module's source (a code change
    never serves a stale result)."""
    from mfattn.companion.caches import load_cached_npz, save_cached_npz
    from mfattn.companion.store import cache_dir, config_hash, sha256_file

    _check_seed(seed)
    _check_overflow(betas, dim)
    if device is not None:   # checked before the cache is read: a bad device is refused, found or not
        check_device("device", device)

    cfg = {"hop_dim": dim, "hop_counts": list(pattern_counts), "hop_betas": list(betas), "hop_trials": trials,
           "hop_steps": steps}
    key = config_hash({**cfg, "seed": seed, "code": sha256_file(__file__)})
    path = cache_dir("structural") / f"hopfield-{key}.npz"
    # verified (key, content hash): a damaged, planted or copied entry is recomputed with a CacheWarning
    found = load_cached_npz(path)
    if found is not None:
        return found
    out = retrieval_grid(dim, pattern_counts, betas, trials, steps, fraction=0.5, seed=seed, device=device)
    arrays = {k: v.numpy() for k, v in out.items()}
    save_cached_npz(path, arrays)
    return arrays


@contract(dim="int:1", n_patterns="int:1", trials="int:1", betas="reals:>0", steps="int:0", generator="generator",
          converged_steps="int:0",
          alloc=lambda a: [("trials", 8 * a["trials"] * (a["n_patterns"] * a["dim"] * 2
                                                         + (max(a["steps"], a["converged_steps"]) + 2) * len(a["betas"])))])
def relaxation(dim: int, n_patterns: int, trials: int, betas: Sequence[float], steps: int, *,
               generator: torch.Generator, converged_steps: int = 500) -> tuple[np.ndarray, float]:
    """Energy along ``steps`` updates from half-erased patterns (``trials`` memories of ``n_patterns``),
    above its value after ``converged_steps``: returns the gap (steps + 1, len(betas), trials) and the
    largest relative rise of the energy between two steps (the CCCP guarantee says ≤ 0)."""
    if converged_steps < steps:
        raise ValueError(f"converged_steps must be at least steps ({steps}): it is the reference the energy "
                         f"along those steps is measured against; got {converged_steps}")
    _check_overflow(betas, dim)
    patterns = random_patterns(n_patterns, dim, generator=generator, batch=(trials,))
    xi = erase_entries(patterns[:, 0], 0.5, generator=generator)
    beta = torch.tensor(list(betas), dtype=torch.float64)[:, None]
    _, energy = retrieve(xi.expand(len(betas), -1, -1), patterns, beta, steps=steps)
    xi_inf, _ = retrieve(xi.expand(len(betas), -1, -1), patterns, beta, steps=converged_steps)
    e_inf = hopfield_energy(xi_inf, patterns, beta)
    e = energy.numpy()
    return (energy - e_inf).numpy(), float((np.diff(e, axis=0) / np.abs(e).max(0)).max())
