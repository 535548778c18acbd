"""The batched mean-field map and its tangent map: numpy and torch backends.

The same map as :mod:`mfattn.dynamics.map` (which writes it for one β like the paper's equations),
batched over a grid: ``B`` values of β (and of γ, ε, initial contexts) advance together with one
array operation per step. Arrays are kept feature-major, ``(features, B)``, so each operation runs
over contiguous memory. Only element-wise operations, exact ±1 matrix products and sums whose order
is fixed (left to right over a few rows, never over the batch) are used inside a step, so a β gives
bit-for-bit the same trajectory alone or inside a batch of 4001, and the same as the per-β map;
``tests/test_dynamics_engine.py`` checks each step against :mod:`~mfattn.dynamics.map`.

Two backends share one step, written once over the operation tables of :mod:`~mfattn.dynamics.backends`:
``"numpy"`` (float64, the CPU reference) and ``"torch"`` (float64 by default; for GPUs). Entry points:
:func:`simulate` and :func:`largest_lyapunov` (the tangent ``(δA, δm^v, δm^k)`` pushed through the
step's Jacobian). The state and the step they run live in :mod:`~mfattn.dynamics.batched_map`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..companion.checks import check_bool as _check_bool, check_grid, contract
from ..companion.checks import check_int as _check_int
from .backends import BACKENDS
from .backends import ops_for as _ops
from .batched_map import _MO, _MeanFieldEngine, _tangent_start  # noqa: F401  (moved there; still importable here)
from .model import MeanFieldModel, check_model, load_context, paper_model

__all__ = ["BACKENDS", "SimulationResult", "simulate", "largest_lyapunov"]

# ----------------------------------------------------------------------------------------------
# Public entry points
# ----------------------------------------------------------------------------------------------
def _grid(betas, gamma, epsilon):
    # β >= 0: the output gain is an inverse temperature (β < 0 would flip the sign of the readout,
    # a different model that the paper does not consider). check_grid refuses text (no string is read as β).
    b = check_grid("betas", betas, minimum=0.0)
    try:
        g = np.broadcast_to(np.asarray(gamma, dtype=np.float64), b.shape).copy()
        e = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), b.shape).copy()
    except ValueError as err:
        raise ValueError(f"gamma and epsilon must be scalars or arrays of the betas' length {b.size}") from err
    for name, arr in (("gamma", g), ("epsilon", e)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite; got {arr[~np.isfinite(arr)][:3]}")
    if np.any((e < 0) | (e > 1)):
        raise ValueError("epsilon must lie in [0, 1]")
    return b, g, e


def _steps(steps, transient):
    _check_int("steps", steps, 1)
    _check_int("transient", transient, 0)
    if transient >= steps:
        raise ValueError(f"transient ({transient}) must be smaller than steps ({steps})")


#: The most memory a saved trajectory may take (bytes); longer runs reduce block by block instead.
MAX_SAVED_BYTES = 4 * 2**30


def _check_saved_memory(B: int, n_saved: int, M: int, save: bool) -> None:
    need = B * n_saved * M * 8
    if save and need > MAX_SAVED_BYTES:
        raise ValueError(f"save=True would keep m^o of {B} β × {n_saved} steps × {M} features: {need / 2**30:.1f} GiB "
                         f"(limit {MAX_SAVED_BYTES / 2**30:.0f} GiB). Save less: a larger transient, save=False with a "
                         f"block_callback, or mfattn.dynamics.sweep.sweep (online reductions, chunks on disk)")


def _init_engine(model, b, g, e, init, backend, device, tangent=False, sampler=None):
    ops = _ops(backend, device)
    if tangent and sampler is not None:
        raise ValueError("lyapunov=True needs the deterministic map (sampler=None)")
    eng = _MeanFieldEngine(model, b, g, e, ops, tangent=tangent, sampler=sampler)
    if isinstance(init, str) and init == "token":
        eng.set_token()
        return eng, 1, True
    if isinstance(init, (str, Path)):
        if not str(init).endswith(".npz"):
            raise ValueError(f"init must be 'token' or a saved context (mapping or .npz path); got {init!r}")
        init = load_context(init)
    if not isinstance(init, Mapping):
        raise TypeError(f"init must be 'token' or a context mapping/path; got {type(init).__name__}")
    eng.set_context(init)
    return eng, model.context_size, False


@dataclass
class SimulationResult:
    """Output of :func:`simulate`.

    m_o : (B, T, M) the saved m^o_t for t in [transient, steps).
    context : final context, batched: ``mv_window (B, L, M)``, ``mk_window (B, L, M)``,
        ``mq_window (B, M)``, ``att_window (B, M)``; oldest slot first. Pass it back as ``init``.
    betas, gamma, epsilon : (B,) the grid.
    lyapunov : (B,) λ_max when asked for, else None.
    """

    m_o: np.ndarray
    context: dict
    betas: np.ndarray
    gamma: np.ndarray
    epsilon: np.ndarray
    steps: int
    transient: int
    lyapunov: np.ndarray | None = None

    def __post_init__(self):
        """A result built by hand must hold one orbit per β (cheap: shapes only, never a pass over ``m_o``)."""
        shape = np.shape(self.betas)
        if len(shape) != 1 or shape[0] == 0:
            raise ValueError(f"betas must be a non-empty 1-d grid; got shape {shape}")
        B = shape[0]
        for name in ("gamma", "epsilon", "lyapunov"):
            value = getattr(self, name)
            if not (value is None and name == "lyapunov") and np.shape(value) != (B,):
                raise ValueError(f"{name} must have shape ({B},), one value per β of betas; got {np.shape(value)}")
        if self.lyapunov is not None and np.isnan(np.asarray(self.lyapunov, dtype=np.float64)).any():
            raise ValueError("lyapunov must hold a λ_max per β (a collapsed tangent counts as log(1e-300), never NaN); "
                             "got NaN")
        _steps(self.steps, self.transient)
        saved = (B, self.steps - self.transient)
        if self.m_o is not None and (np.ndim(self.m_o) != 3 or np.shape(self.m_o)[:2] != saved):
            raise ValueError(f"m_o must have shape (B, steps - transient, M) = ({B}, {self.steps - self.transient}, M), "
                             f"one saved orbit per β; got {np.shape(self.m_o)}")
        for name in ("betas", "gamma", "epsilon", "lyapunov", "m_o"):   # dtypes only: cheap, no pass over the orbit
            value = getattr(self, name)
            dtype = None if value is None else value.dtype if isinstance(value, np.ndarray) else np.asarray(value).dtype
            if dtype is not None and dtype.kind not in "fiu":   # a complex order parameter is no point of the real map
                raise TypeError(f"{name} must hold real numbers; got dtype {dtype}")
        if not isinstance(self.context, Mapping):
            raise TypeError(f"context must be a dict of batched arrays; got {type(self.context).__name__}")
        for key, value in self.context.items():
            if np.ndim(value) < 1 or np.shape(value)[0] != B:
                raise ValueError(f"context[{key!r}] must have a leading axis of the {B} β; got shape {np.shape(value)}")

    def context_of(self, i: int) -> dict[str, np.ndarray]:
        """The final context of grid point ``i`` (unbatched; ``-B <= i < B``, negative from the end)."""
        B = np.shape(self.betas)[0]
        _check_int("i", i, -B, B - 1)
        return {k: v[i].copy() for k, v in self.context.items()}


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", tangent_seed="int:0",
          block="int:1")
def simulate(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *,
             gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
             device=None, save: bool = True, lyapunov: bool = False, tangent_seed: int = 0,
             sampler: Callable | None = None, progress: bool | None = False,
             block_callback: Callable | None = None, block: int = 2000) -> SimulationResult:
    """Iterate the mean-field map for a batch of β (and γ, ε, initial contexts) at once.

    Parameters
    ----------
    betas : (B,) inverse temperatures β (the output gain).
    steps, transient : time steps ``t = 0 .. steps-1`` (from a context: ``t = L .. steps-1``, as in the
        paper's code); m^o_t is saved for ``t >= transient``.
    init : ``"token"`` (row 0 of W^o; the paper's start) or a context (mapping or .npz path with
        ``mv_window``, ``mk_window``, ``att_window``, each unbatched or with a leading B axis).
    gamma, epsilon : scalars or (B,) arrays: attention gain γ (logit gain γ/√M) and positional weight ε.
    model : the map's constants (default: :func:`paper_model`).
    backend : ``"numpy"`` (float64 reference) or ``"torch"`` (float64; ``device`` picks CPU/GPU).
    save : keep m^o (B, steps - transient, M) in memory; set False for long sweeps that reduce
        the trajectory block by block with ``block_callback(t0, m_o_block (B, nb, M))``.
    lyapunov : also propagate a tangent vector and return λ_max (see :func:`largest_lyapunov`).
    sampler : finite-N hook ``T (C, B) -> sampled T`` (see :mod:`mfattn.dynamics.finite_n`); None = N → ∞.

    Returns
    -------
    SimulationResult
    """
    _steps(steps, transient)
    _check_int("block", block, 1)
    _check_bool("save", save), _check_bool("lyapunov", lyapunov)
    if progress is not None:   # None: tqdm decides (a bar on a terminal only)
        _check_bool("progress", progress)
    if model is not None:
        check_model(model)
    for name, fn in (("sampler", sampler), ("block_callback", block_callback)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name} must be None or a callable; got {type(fn).__name__} {fn!r:.40}")
    model = model or paper_model()
    b, g, e = _grid(betas, gamma, epsilon)
    _check_saved_memory(b.size, steps - transient, model.num_features, save)
    eng, t0, warm = _init_engine(model, b, g, e, init, backend, device, tangent=lyapunov, sampler=sampler)
    if transient < t0 and not warm:  # rows t < t0 would be memory the map never wrote; λ over-divided
        raise ValueError(f"transient must be >= {t0} when starting from a context: the map starts at t = L = {t0} "
                         f"there (steps t < {t0} are the context, not states the map computed); got {transient}")
    B, M, L = b.size, model.num_features, model.context_size
    n_saved = steps - transient
    out = np.empty((B, n_saved, M)) if save else None
    if lyapunov:
        eng.set_tangent(tangent_seed)
    blk = eng.ops.zeros((min(block, n_saved), M, B))  # on the backend's device; copied out per block
    if warm and transient == 0:  # t = 0 is the token itself
        blk[0] = eng.ops.asarray(np.broadcast_to(model.token[:M, None], (M, B)))
    pbar = _progress(steps - t0, progress, f"mean-field map, {B} β")
    to_np = eng.ops.to_numpy
    saved_from = max(transient, t0)

    def flush(t_end, count):
        first = t_end - count
        raw = to_np(blk[:count])  # (nb, M, B), time-major
        if save:
            a, z = first - transient, t_end - transient
            for i in range(0, B, 16):  # transposing in tiles keeps the copy cache-friendly
                out[i:i + 16, a:z] = raw[:, :, i:i + 16].transpose(2, 0, 1)
        if block_callback is not None:
            block_callback(first, raw)

    filled = 1 if (warm and transient == 0) else 0
    for t in range(t0, steps):
        valid = min(t + 1, L) if warm else L
        if t < saved_from:  # a transient step: m^o is not computed
            eng.step(t, valid, None)
            if lyapunov:
                eng.renormalise(t >= transient)
        else:
            eng.step(t, valid, blk[filled])
            if lyapunov:
                eng.renormalise(t >= transient)
            filled += 1
            if filled == blk.shape[0]:
                flush(t + 1, filled)
                filled = 0
        if pbar is not None and (t & 1023) == 0:
            pbar.update(min(1024, steps - t))
    if filled:
        flush(steps, filled)
    if pbar is not None:
        pbar.close()
    # the tangent's log growth was summed over the steps t >= max(transient, t0) (from the token with
    # transient = 0: steps 1 .. steps-1, since step 0 is the token itself): divide by that many terms
    lyap = to_np(eng.log_sum) / (steps - saved_from) if lyapunov else None
    return SimulationResult(out, eng.context(steps), b, g, e, steps, transient,
                            None if lyap is None else np.asarray(lyap).copy())


def _progress(total, progress, desc):
    if progress is False:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=None if progress is None else not progress, leave=False)


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", tangent_seed="int:0")
def largest_lyapunov(betas, steps: int = 120_000, transient: int = 100_000, init: Any = "token", *,
                     gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                     device=None, tangent_seed: int = 0, progress: bool | None = False) -> np.ndarray:
    """λ_max per grid point: the mean log growth per step of a tangent vector.

    The tangent ``(δA, δm^v_window, δm^k_window)`` is pushed through the Jacobian of each step
    (forward mode, analytic: δT = (1 − T²) β W^o δA, the softmax's δp_s = p_s(δℓ_s − Σ_r p_r δℓ_r))
    and renormalised every step; λ_max = (1/n) Σ_{t ≥ transient} log‖δ_t‖ over the n steps taken at
    t ≥ transient (n = steps − transient; from the token with transient = 0, step 0 is the token, n = steps − 1).
    The primal trajectory is the one :func:`simulate` computes, bit for bit. Returns (B,).
    """
    res = simulate(betas, steps, transient, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend,
                   device=device, save=False, lyapunov=True, tangent_seed=tangent_seed, progress=progress)
    return res.lyapunov
