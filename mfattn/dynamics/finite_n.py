"""The finite-N 1-bit transformer, sampled exactly at a cost independent of N.

At finite N each semantic unit of the output token is a ±1 spin drawn with
:math:`P(x_i = +1) = \\tfrac12(1 + \\tanh(\\beta W^o_i\\cdot \\hat A))`, where :math:`\\hat A` is the
attention computed from the sampled statistics. Units whose weight columns are equal are
exchangeable, so the number of +1 spins in column class c is one binomial draw,
:math:`k_c \\sim \\mathrm{Bin}(n_c, \\tfrac12(1+T_c))`, and the statistics are exactly

.. math:: \\hat s^x_b = \\frac{1}{N}\\sum_c W^x_{cb}\\,(2k_c - n_c).

One draw per class and per grid point: the cost does not depend on N. :func:`direct_sampler`
draws every unit instead (cost ∝ N) and serves to validate the binomial sampler at small N.
Both plug into :func:`mfattn.dynamics.engine.simulate` as its ``sampler`` hook, so the finite network
and the mean-field map share every other line of code. As N → ∞ the sampled trajectory converges
to the mean-field one with fluctuations ∝ N^{-1/2} at any fixed time.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..companion.checks import check_grid, check_int
from .engine import SimulationResult, simulate
from .model import MeanFieldModel, paper_model

__all__ = ["class_sizes", "binomial_sampler", "direct_sampler", "simulate_finite", "error_vs_n", "SAMPLERS"]

SAMPLERS = ("binomial", "direct")


def _check_n(N) -> int:
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"N must be a positive integer number of semantic units; got {N!r}")
    return int(N)


def class_sizes(model: MeanFieldModel, N: int) -> np.ndarray:
    """Units per column class at size N: ``n_c ≈ N · n_c^{(paper)}/N_SE`` (largest remainders), (C,) int."""
    N = _check_n(N)
    want = N * model.class_fraction
    n = np.floor(want).astype(np.int64)
    short = N - n.sum()
    if short:
        n[np.argsort(-(want - n), kind="stable")[:short]] += 1
    if np.any(n == 0):
        raise ValueError(f"N={N} is too small: every one of the {model.num_classes} column classes needs a unit")
    return n


def binomial_sampler(model: MeanFieldModel, N: int, rng: np.random.Generator):
    """Hook ``T (C, B) -> T̂ (C, B)``: one binomial draw per class; ``frac_c T̂_c = (2k_c − n_c)/N``."""
    n = class_sizes(model, N)
    scale = 1.0 / (N * model.class_fraction)

    def sample(T):
        p = 0.5 * (1.0 + np.asarray(T))
        k = rng.binomial(n[:, None], np.clip(p, 0.0, 1.0))
        return (2.0 * k - n[:, None]) * scale[:, None]

    return sample


def direct_sampler(model: MeanFieldModel, N: int, rng: np.random.Generator):
    """Hook that draws each of the N units separately (cost ∝ N): the oracle for small N."""
    n = class_sizes(model, N)
    scale = 1.0 / (N * model.class_fraction)

    def sample(T):
        T = np.asarray(T)
        out = np.empty_like(T)
        for c, nc in enumerate(n):
            spins = np.where(rng.random((nc, T.shape[1])) < 0.5 * (1.0 + T[c]), 1.0, -1.0)
            out[c] = spins.sum(axis=0) * scale[c]
        return out

    return sample


def simulate_finite(betas, N: int, steps: int = 2000, transient: int = 0, init: Any = "token", *,
                    seed: int = 0, sampler: str = "binomial", gamma=220.0, epsilon=0.02,
                    model: MeanFieldModel | None = None, save: bool = True,
                    block_callback=None) -> SimulationResult:
    """Run the finite-N network for a batch of β (one independent realisation per grid point).

    Same arguments and result as :func:`mfattn.dynamics.engine.simulate` (numpy backend), plus ``N`` (semantic
    units), ``seed`` (numpy Generator seed) and ``sampler`` ("binomial", exact and O(1) in N; or
    "direct", per unit). Repeating a β in ``betas`` gives independent realisations.
    """
    N = _check_n(N)
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {', '.join(map(repr, SAMPLERS))}; got {sampler!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    model = model or paper_model()
    rng = np.random.default_rng(seed)
    hook = (binomial_sampler if sampler == "binomial" else direct_sampler)(model, N, rng)
    return simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model,
                    backend="numpy", save=save, sampler=hook, block_callback=block_callback)


def error_vs_n(betas: Sequence[float], Ns: Sequence[int], steps: int = 40, reps: int = 200, seed: int = 0,
               init: Any = "token", model: MeanFieldModel | None = None) -> np.ndarray:
    """RMS distance ``sqrt(<|m̂^o_t − m^o_t|²>)`` at ``t = steps − 1`` between finite-N and mean field.

    ``reps`` independent realisations per (β, N). Returns (len(betas), len(Ns)); expected ∝ N^{-1/2}.
    """
    check_int("reps", reps, 1)
    check_int("steps", steps, 1)
    if len(Ns) == 0:
        raise ValueError("Ns must name at least one network size")
    Ns = [_check_n(N) for N in Ns]
    model = model or paper_model()
    betas = check_grid("betas", betas, minimum=0.0)
    mf = simulate(betas, steps, steps - 1, init, model=model).m_o[:, 0]  # (nb, M)
    out = np.empty((betas.size, len(Ns)))
    grid = np.repeat(betas, reps)
    for j, N in enumerate(Ns):
        fin = simulate_finite(grid, N, steps, steps - 1, init, seed=seed + j, model=model).m_o[:, 0]
        d2 = ((fin.reshape(betas.size, reps, -1) - mf[:, None]) ** 2).sum(-1)
        out[:, j] = np.sqrt(d2.mean(1))
    return out
