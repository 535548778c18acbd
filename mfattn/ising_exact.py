r"""Exact enumeration of small Ising models (the convention of :mod:`mfattn.ising`): magnetisations, connected
correlations and the log partition function over all 2^n states, for one model or a whole grid of inverse
temperatures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mfattn.companion.checks import check_int, contract
from mfattn.companion.checks_arrays import _result_field
from mfattn.ising_inputs import _as_float64, _check_model

__all__ = ["MAX_EXACT_SPINS", "MAX_LOG_WEIGHT", "ExactResult", "exact_marginals", "exact_marginals_sweep"]

#: Largest system :func:`exact_marginals` enumerates (2**24 states, ~1 s per million states).
MAX_EXACT_SPINS = 24


@dataclass
class ExactResult:
    """Exact marginals of a small Ising model.

    Attributes: ``m`` (n,) magnetisations, ``C`` (n, n) connected correlations
    ``<S_i S_j> - m_i m_j``, ``log_z`` the log partition function.
    """

    m: np.ndarray
    C: np.ndarray
    log_z: float

    def __post_init__(self):
        # one model (m (n,), C (n, n), log_z a number) or a batch of β (m (B, n), C (B, n, n), log_z (B,))
        _result_field("ExactResult", "m", self.m, "float")
        if self.m.ndim not in (1, 2) or self.m.shape[-1] == 0:
            raise ValueError(f"ExactResult.m must be (n,) or (B, n) magnetisations; got shape {self.m.shape}")
        if not (np.abs(self.m) <= 1.0 + 1e-12).all():   # a magnetisation is a mean of ±1 spins (NaN fails too)
            raise ValueError(f"ExactResult.m must hold magnetisations in [-1, 1]; got values up to "
                             f"{float(np.nanmax(np.abs(self.m))) if not np.isnan(self.m).all() else 'NaN'}")
        _result_field("ExactResult", "C", self.C, "float", shape=self.m.shape + self.m.shape[-1:])
        log_z = np.asarray(self.log_z)
        if log_z.dtype.kind not in "fiu" or log_z.shape != self.m.shape[:-1] or not np.isfinite(log_z).all():
            raise ValueError(f"ExactResult.log_z must be a finite real number per model, shape {self.m.shape[:-1]}; "
                             f"got {self.log_z!r:.60}")


def _spin_states(start: int, stop: int, n: int) -> np.ndarray:
    """States ``start..stop-1`` as (stop-start, n) float64 ±1 rows (bit i of the index = spin i)."""
    idx = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (idx >> np.arange(n, dtype=np.int64)[None, :]) & 1
    return 2.0 * bits - 1.0


#: The largest log-weight :math:`|\tfrac12 \beta S^\top G S|` exact enumeration takes: float64 rounds a log-weight
#: by about ``eps`` times itself (2.2e-4 here), a relative error of every Boltzmann weight; past it the fields' and the
#: couplings' contributions of order one are lost beside it (at beta = 1e200 every field vanishes from the sums).
MAX_LOG_WEIGHT = 1e12


def _check_resolution(G: np.ndarray, betas: np.ndarray, name: str) -> None:
    """Refuse couplings ``G`` at inverse temperatures ``betas`` whose states' coupling log-weights exceed
    :data:`MAX_LOG_WEIGHT` (``name``: what the caller passed, ``"betas"`` or the couplings ``"J"``)."""
    with np.errstate(over="ignore"):
        top = 0.5 * float(np.abs(betas).max()) * float(np.abs(G).sum())
    if top > MAX_LOG_WEIGHT:
        raise ValueError(f"{name}: the states' coupling log-weights reach {top:.3g} (max|beta| · sum|G_ij| / 2), more "
                         f"than {MAX_LOG_WEIGHT:g}: float64 rounds them by about "
                         f"{np.finfo(float).eps * top:.2g}, which swamps the fields' contributions (and every "
                         f"difference of order one between states), so the enumeration's marginals would be rounding; "
                         f"ask for smaller {'betas' if name == 'betas' else 'couplings'}")


@contract()  # its loop's work (2^n / chunk chunks of states) is checked before the body: mfattn.companion.work
def exact_marginals(J: Any, h: Any, chunk: int = 1 << 16) -> ExactResult:
    r"""Exact magnetisations, connected correlations and :math:`\log Z` by enumerating all :math:`2^n` states.

    Vectorised over chunks of states with a running log-sum-exp, so memory stays at
    ``chunk * n`` whatever ``n``. Refuses ``n > MAX_EXACT_SPINS``, and couplings whose log-weights
    :math:`\tfrac12 \sum_{ij} |J_{ij}|` exceed :data:`MAX_LOG_WEIGHT` (float64 could not resolve the fields beside
    them).
    """
    J, h = _check_model(J, h)
    _check_resolution(J, np.ones(1), "J")
    res = exact_marginals_sweep(J, h, np.ones(1), chunk=chunk)
    return ExactResult(m=res.m[0], C=res.C[0], log_z=float(res.log_z[0]))


@contract()  # its loop's work (2^n / chunk chunks of states, for every β) is checked first: mfattn.companion.work
def exact_marginals_sweep(G: Any, h: Any, betas: Any, chunk: int = 1 << 14) -> ExactResult:
    r"""Exact marginals of the models :math:`J = \beta G` (fields ``h`` fixed) for a whole grid of ``betas``.

    One pass over the :math:`2^n` states serves every :math:`\beta`: the coupling energy
    :math:`\tfrac12 S^\top G S` and field energy :math:`h^\top S` of a chunk of states are computed
    once, and the weights of all temperatures follow by one outer product. Returns an
    :class:`ExactResult` whose arrays carry a leading beta axis: ``m`` (B, n), ``C`` (B, n, n),
    ``log_z`` (B,). Betas whose coupling log-weights :math:`\tfrac12 \max|\beta| \sum_{ij}|G_{ij}|` exceed
    :data:`MAX_LOG_WEIGHT` are refused: float64 rounds such log-weights by more than 2.2e-4, which swamps the fields
    (at beta = 1e200 every magnetisation would come out 0, where the true limit is a ground state chosen by ``h``).
    """
    G, h = _check_model(G, h, "G")
    betas = _as_float64(betas, "betas")
    if betas.ndim != 1 or betas.size == 0:
        raise ValueError(f"betas must be a non-empty 1-d array; got shape {betas.shape}")
    n = G.shape[0]
    if n > MAX_EXACT_SPINS:
        raise ValueError(f"exact enumeration needs 2**n states; n = {n} exceeds the limit of {MAX_EXACT_SPINS} "
                         f"spins (use a mean-field approximation for larger systems)")
    check_int("chunk", chunk, 1)   # not a bool: True would enumerate one state per chunk
    with np.errstate(over="ignore"):  # the largest |log-weight| a state can have: it must be a float64
        energy = np.abs(h).sum() + 0.5 * np.abs(betas).max() * np.abs(G).sum()
    if not np.isfinite(energy):
        raise ValueError("h and G: the states' log-weights overflow float64 (sum |h_i| + max|beta| sum |G_ij| / 2 = "
                         "inf): exact enumeration has no finite Boltzmann weights; scale the fields or couplings down")
    _check_resolution(G, betas, "betas")
    B, total = betas.size, 1 << n
    log_scale = np.full(B, -np.inf)
    z = np.zeros(B)
    s1 = np.zeros((B, n))
    s2 = np.zeros((B, n * n))
    for start in range(0, total, chunk):
        S = _spin_states(start, min(start + chunk, total), n)
        coupling = 0.5 * np.einsum("ki,ij,kj->k", S, G, S)
        log_w = betas[None, :] * coupling[:, None] + (S @ h)[:, None]  # (k, B)
        top = log_w.max(axis=0)
        grow = top > log_scale  # rescale what was accumulated so far to the new reference
        shrink = np.where(grow, np.exp(np.where(np.isfinite(log_scale), log_scale - top, -np.inf)), 1.0)
        log_scale = np.where(grow, top, log_scale)
        z, s1, s2 = z * shrink, s1 * shrink[:, None], s2 * shrink[:, None]
        w = np.exp(log_w - log_scale[None, :])
        z += w.sum(axis=0)
        s1 += w.T @ S
        s2 += w.T @ (S[:, :, None] * S[:, None, :]).reshape(len(S), n * n)
    m = s1 / z[:, None]
    C = s2.reshape(B, n, n) / z[:, None, None] - m[:, :, None] * m[:, None, :]
    return ExactResult(m=m, C=C, log_z=log_scale + np.log(z))
