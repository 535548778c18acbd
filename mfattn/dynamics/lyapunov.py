"""The Lyapunov spectrum of the mean-field map, by QR re-orthonormalisation (Benettin et al. 1980; Shimada &
Nagashima 1979).

``k`` tangent vectors ride along each orbit (:class:`~mfattn.dynamics.tangent_space.TangentFlow`, one
array operation per step for the whole β grid and all vectors). Every ``qr_every`` steps the basis
``V (D, k)`` is factorised ``V = Q R`` and replaced by ``Q``; the exponents are the mean growth rates of
the diagonal,

.. math:: \\lambda_i = \\frac{1}{T} \\sum_{\\text{QR after the transient}} \\log |R_{ii}|, \\qquad
          \\lambda_1 \\ge \\lambda_2 \\ge \\dots \\ge \\lambda_k,

per step. The dynamics has dimension ``L M`` (12 for the paper's model, see
:mod:`~mfattn.dynamics.tangent_space`), so ``k <= L M``: the remaining directions of the 27-number stored
state have exponent −∞. With ``k = L M`` the exponents sum to the mean ``log |det|`` of the map's Jacobian
on that 12-dimensional state. The first column is started on the very vector that
:func:`~mfattn.dynamics.engine.largest_lyapunov` uses (same ``tangent_seed``), so ``λ_1`` is its ``λ_max``.
On an invariant circle of the forced map (a quasi-periodic orbit) ``λ_1 = 0 > λ_2``; on a periodic orbit
every exponent is ``log|μ_i| / n`` from its Floquet multipliers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..companion.checks import check_int, contract
from .engine import _progress, _steps, _tangent_start
from .model import MeanFieldModel, paper_model
from .tangent_space import TangentFlow, state_dimension, stored_dimension

__all__ = ["lyapunov_spectrum", "finite_time_lyapunov"]


def _start_basis(model: MeanFieldModel, B: int, k: int, tangent_seed: int) -> np.ndarray:
    """(B, D, k): column 0 is engine.largest_lyapunov's start vector (the same draw, so λ_1 is its λ_max), the rest
    random, then QR. Every grid point gets the same basis: a β's exponents do not depend on its batch (neither on
    the batch's size nor on the β's place in it)."""
    M, L, D = model.num_features, model.context_size, stored_dimension(model)
    dA, dwin = _tangent_start(M, L, tangent_seed)  # what batched_map._MeanFieldEngine.set_tangent starts from
    first = np.concatenate([dA[:, 0], dwin.reshape(L * 2 * M)])
    rest = np.random.default_rng([tangent_seed, 1, 0]).standard_normal((D, k - 1))  # (a lone β's draw, as before)
    Q, R = np.linalg.qr(np.broadcast_to(np.concatenate([first[:, None], rest], axis=1), (B, D, k)))
    return Q * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]


@contract(betas="reals", steps="int:1", transient="int:0", gamma="realarr", epsilon="realarr", k="int:1?",
          qr_every="int:1", tangent_seed="int:0")
def lyapunov_spectrum(betas, k: int | None = None, steps: int = 20_000, transient: int = 10_000,
                      init: Any = "token", *, qr_every: int = 1, gamma=220.0, epsilon=0.02,
                      model: MeanFieldModel | None = None, backend: str = "numpy", device=None,
                      tangent_seed: int = 0, progress: bool | None = False) -> np.ndarray:
    """The ``k`` largest Lyapunov exponents per step of each β's orbit, (B, k), decreasing.

    Parameters
    ----------
    betas : (B,) grid (γ, ε scalars or (B,) arrays, as in :func:`~mfattn.dynamics.engine.simulate`).
    k : 1 <= k <= L M (default L M = 12, the whole spectrum of the dynamics).
    steps, transient, init : as in :func:`~mfattn.dynamics.engine.simulate`; the exponents average the
        QR growths of the steps ``t >= transient`` taken (from the token with ``transient = 0`` that is
        ``steps - 1`` of them: step 0 is the token itself).
    qr_every : re-orthonormalise every this many steps (1 is safest; the spectrum's spread over
        ``qr_every`` steps must stay far below 1e16).
    tangent_seed : seed of the start basis (the first vector is the one of ``largest_lyapunov``).
    """
    model = model or paper_model()
    dim = state_dimension(model)
    k = dim if k is None else k
    check_int("k", k, 1)
    if k > dim:
        raise ValueError(f"k must be at most the state dimension L M = {dim} (the map's state is the last "
                         f"L = {model.context_size} attentions of M = {model.num_features} features); got {k}")
    _steps(steps, transient)
    check_int("qr_every", qr_every, 1)
    check_int("tangent_seed", tangent_seed, 0)
    flow = TangentFlow(betas, k, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend, device=device)
    if transient < flow.t and not flow.warm:
        raise ValueError(f"transient must be >= {flow.t} when starting from a context; got {transient}")
    flow.set_basis(_start_basis(model, flow.B, k, tangent_seed))
    log_sum = np.zeros((flow.B, k))
    first = flow.t  # the first step taken (1 from the token, whose step 0 is the token itself; L from a context)
    pbar = _progress(steps - flow.t, progress, f"Lyapunov spectrum, {flow.B} β × {k}")
    for t in range(flow.t, steps):
        flow.step()
        last = t == steps - 1 or t == transient - 1
        if last or (t + 1 - (transient if t >= transient else 0)) % qr_every == 0:
            Q, R = np.linalg.qr(flow.basis())
            d = np.diagonal(R, axis1=1, axis2=2)
            flow.set_basis(Q * np.sign(d)[:, None, :])
            if t >= transient:
                # a collapsed direction (|R_ii| = 0, e.g. β = 0 where the map is constant) counts as
                # log(1e-300) ≈ −690 per QR, "minus infinity" for any plot, as in engine.largest_lyapunov
                log_sum += np.log(np.maximum(np.abs(d), 1e-300))
        if pbar is not None and (t & 1023) == 0:
            pbar.update(min(1024, steps - t))
    if pbar is not None:
        pbar.close()
    return log_sum / (steps - max(transient, first))  # the number of QR growths summed


def finite_time_lyapunov(betas, window: int, steps: int = 20_000, transient: int = 10_000, init: Any = "token", *,
                         gamma=220.0, epsilon=0.02, model: MeanFieldModel | None = None, backend: str = "numpy",
                         device=None, tangent_seed: int = 0) -> np.ndarray:
    """λ_max of each β over consecutive windows of ``window`` steps of one orbit: (B, W), W = (steps −
    max(transient, t_0)) // window windows from the first step t >= transient (a last partial window is dropped).

    The same tangent vector as :func:`~mfattn.dynamics.engine.largest_lyapunov` (same ``tangent_seed``), renormalised
    every step; window w averages log‖δ_t‖ over its steps, so when the windows tile the saved steps their mean is
    that function's λ_max. Their spread is the finite-time fluctuation of λ along the orbit (what one window of a
    run, the λ a diagram shows, may differ by).
    """
    model = model or paper_model()
    check_int("window", window, 1)
    _steps(steps, transient)
    check_int("tangent_seed", tangent_seed, 0)
    flow = TangentFlow(betas, 1, init, gamma=gamma, epsilon=epsilon, model=model, backend=backend, device=device)
    if transient < flow.t and not flow.warm:
        raise ValueError(f"transient must be >= {flow.t} when starting from a context; got {transient}")
    first = max(transient, flow.t)
    n_win = (steps - first) // window
    if n_win < 1:
        raise ValueError(f"window ({window}) must be at most the steps after the transient ({steps - first})")
    flow.set_basis(_start_basis(model, flow.B, 1, tangent_seed))
    out = np.zeros((flow.B, n_win))
    for t in range(flow.t, first + n_win * window):
        flow.step()
        v = flow.basis()
        norm = np.maximum(np.sqrt((v ** 2).sum(axis=(1, 2))), 1e-300)
        flow.set_basis(v / norm[:, None, None])
        if t >= first:
            out[:, (t - first) // window] += np.log(norm)
    return out / window
