r"""The vector-spin (Gaussian prior) theory: adaptive TAP for vector spins, the exact Gaussian mean it must reach,
and the check and float64 bound that compare the two on a random model."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from mfattn.companion.checks import check_alloc, check_bool, check_generator, check_int, check_positive, contract
from mfattn.companion.checks_arrays import _result_field
from mfattn.ising_inputs import MeanFieldWarning, _as_float64, _check_solver

__all__ = ["VectorTAPResult", "gaussian_vector_tap", "gaussian_closed_form", "gaussian_vector_check",
           "gaussian_vector_bound"]


@dataclass
class VectorTAPResult:
    """Fixed point of adaptive TAP for vector spins: ``m`` (n, d), cavity variances ``V`` (n, d, d)."""

    m: np.ndarray
    V: np.ndarray
    iterations: int
    converged: bool
    residual: float

    def __post_init__(self):
        _result_field("VectorTAPResult", "m", self.m, "float", ndim=2)
        n, d = self.m.shape
        _result_field("VectorTAPResult", "V", self.V, "float", shape=(n, d, d))
        if isinstance(self.iterations, (bool, np.bool_)) or not isinstance(self.iterations, (int, np.integer)) \
                or self.iterations < 0:
            raise TypeError(f"VectorTAPResult.iterations must be a count (an integer >= 0); got {self.iterations!r:.60}")
        if not isinstance(self.converged, (bool, np.bool_)):
            raise TypeError(f"VectorTAPResult.converged must be True or False; got {self.converged!r:.60}")
        r = self.residual
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, float, np.integer, np.floating)) or r < 0 or (
                self.converged and not np.isfinite(float(r))):
            raise ValueError(f"VectorTAPResult.residual must be a largest change >= 0, finite where converged; got "
                             f"{r!r:.60}")


def _check_vector_model(J: Any, X: Any, prior_cov: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    J = _as_float64(J, "J")
    if J.ndim != 4 or J.shape[0] != J.shape[1] or J.shape[2] != J.shape[3]:
        raise ValueError(f"J must have shape (n, n, d, d) (a d x d block per pair of sites); got {J.shape}")
    n, _, d, _ = J.shape
    if n == 0 or d == 0:
        raise ValueError(f"J must describe at least one site of at least one dimension; got shape {J.shape}")
    X = _as_float64(X, "X")
    if X.shape != (n, d):
        raise ValueError(f"X must have shape ({n}, {d}) to match J of shape {J.shape}; got {X.shape}")
    if not np.allclose(J, J.transpose(1, 0, 3, 2), atol=1e-12):
        raise ValueError("J must satisfy J_ij = J_ji^T (the symmetry of a quadratic energy)")
    if np.abs(J[np.arange(n), np.arange(n)]).max() > 0:
        raise ValueError("J must have zero diagonal blocks J_ii")
    S = _as_float64(prior_cov, "prior_cov")
    if S.shape != (d, d) or not np.allclose(S, S.T) or np.linalg.eigvalsh(S)[0] <= 0:
        raise ValueError(f"prior_cov must be a symmetric positive-definite ({d}, {d}) matrix")
    _check_symmetric("prior_cov", S)
    return J, X, S


def _check_symmetric(name: str, blocks: np.ndarray) -> None:
    """Refuse (..., d, d) covariances ``blocks`` that are not symmetric to round-off: ``|S - Sᵀ|`` at most 1e-12 of
    their largest entry (at least 1), the tolerance of the couplings' symmetry (:func:`_check_model`). A covariance
    made in float64 (``B Bᵀ``, ``I + c 11ᵀ``, an inverse symmetrised) is symmetric to a few ulps (1e-16 of it), so
    this admits any of them, while the solver, which reads every entry (``inv``, the products), would silently use
    the asymmetric part of one that is not."""
    gap = float(np.abs(blocks - np.swapaxes(blocks, -1, -2)).max()) if blocks.size else 0.0
    if gap > 1e-12 * max(1.0, float(np.abs(blocks).max())):
        raise ValueError(f"{name} must be symmetric (a covariance); max |{name} - {name}ᵀ| = {gap:.3g}")


def _precision(J: np.ndarray, S: np.ndarray) -> np.ndarray:
    """The (nd, nd) precision matrix Sigma^-1 (x) I - J; it must be positive definite for the model to exist."""
    n, _, d, _ = J.shape
    A = np.kron(np.eye(n), np.linalg.inv(S)) - J.transpose(0, 2, 1, 3).reshape(n * d, n * d)
    lam = np.linalg.eigvalsh(0.5 * (A + A.T))[0]
    if lam <= 0:
        raise ValueError(f"Sigma^-1 - J must be positive definite for the Gaussian model to be normalisable; "
                         f"its smallest eigenvalue is {lam:.3g} (scale J down)")
    return A


def gaussian_closed_form(J: Any, X: Any, prior_cov: Any) -> np.ndarray:
    r"""Exact mean of the Gaussian vector-spin model, :math:`m = (\Sigma^{-1} - J)^{-1} X`.

    ``J`` (n, n, d, d), ``X`` (n, d), ``prior_cov`` = :math:`\Sigma` (d, d). Returns (n, d).
    """
    J, X, S = _check_vector_model(J, X, prior_cov)
    n, _, d, _ = J.shape
    return np.linalg.solve(_precision(J, S), X.reshape(-1)).reshape(n, d)


@contract()  # its loop's work is checked before the body: mfattn.companion.work
def gaussian_vector_tap(J: Any, X: Any, prior_cov: Any, V: Any = None, *, adapt: bool = True,
                        damping: float = 0.5, tol: float = 1e-12, max_iter: int = 10_000) -> VectorTAPResult:
    r"""Adaptive TAP for vector spins :math:`z_i \in \mathbb{R}^d` with Gaussian prior :math:`N(0, \Sigma)`.

    The energy is :math:`\tfrac12 \sum_{ij} z_i^\top J_{ij} z_j + \sum_i X_i^\top z_i`. With a
    Gaussian cavity field of covariance :math:`V_i` (d, d), the local marginal is Gaussian with
    covariance :math:`(\Sigma^{-1} - V_i)^{-1}` and mean

    .. math:: m_i = (\Sigma^{-1} - V_i)^{-1}\Big(X_i + \sum_j J_{ij} m_j - V_i m_i\Big).

    At any fixed point the :math:`V_i m_i` terms cancel, :math:`\Sigma^{-1} m_i = X_i + \sum_j J_{ij} m_j`,
    so ``m`` equals :func:`gaussian_closed_form` whatever ``V`` is: the Onsager correction only
    changes the path, not the answer, for a Gaussian prior. With ``adapt=True`` the variances are
    also made self-consistent, :math:`V_i = \Sigma^{-1} - (\chi_{ii})^{-1}` with
    :math:`\chi = (\Sigma^{-1} - J)^{-1}` (linear response is exact here).

    ``V`` (n, d, d) fixes the constant cavity variances of ``adapt=False``; with ``adapt=True`` the self-consistent
    variances replace it before the iteration (it is only checked). Each ``V_i`` is a covariance: symmetric (to
    round-off, 1e-12 of its largest entry) and positive semi-definite; ``V = 0`` (the default) is naive mean field.
    ``prior_cov`` is symmetric to the same tolerance and positive definite.
    """
    J, X, S = _check_vector_model(J, X, prior_cov)
    _check_solver(damping, tol, max_iter, "ignore")
    check_bool("adapt", adapt)
    n, _, d, _ = J.shape
    S_inv = np.linalg.inv(S)
    V = np.zeros((n, d, d)) if V is None else _as_float64(V, "V").copy()
    if V.shape != (n, d, d):
        raise ValueError(f"V must have shape ({n}, {d}, {d}); got {V.shape}")
    _check_symmetric("V", V)
    low = np.linalg.eigvalsh(V)[:, 0]   # cavity variances are covariances: positive semi-definite (zero: the default)
    if low.min() < -1e-12 * max(1.0, float(np.abs(V).max())):
        site = int(np.argmin(low))
        raise ValueError(f"V must hold positive semi-definite cavity variances (covariances); V[{site}] has the "
                         f"eigenvalue {low[site]:.3g}")
    A = _precision(J, S)
    if adapt:
        chi = np.linalg.inv(A).reshape(n, d, n, d)
        blocks = chi[np.arange(n), :, np.arange(n), :]  # (n, d, d) diagonal blocks
        V = S_inv[None] - np.linalg.inv(blocks)
    try:
        local_cov = np.linalg.inv(S_inv[None] - V)  # (n, d, d)
    except np.linalg.LinAlgError:
        site = int(np.argmin(np.abs(np.linalg.det(S_inv[None] - V))))
        raise ValueError(f"V: Sigma^-1 - V_i must be invertible at every site (its inverse is the local covariance); "
                         f"it is singular at site {site}") from None
    m = np.zeros((n, d))
    residual, converged, it = np.inf, False, 0
    for it in range(1, max_iter + 1):
        field = X + np.einsum("ijab,jb->ia", J, m) - np.einsum("iab,ib->ia", V, m)
        new = np.einsum("iab,ib->ia", local_cov, field)
        if not np.all(np.isfinite(new)):
            raise FloatingPointError(f"vector adaptive TAP diverged (NaN/inf) at iteration {it}")
        residual = float(np.abs(new - m).max())
        m = (1.0 - damping) * m + damping * new
        if residual < tol:
            converged = True
            break
    if not converged:
        warnings.warn(f"vector adaptive TAP did not converge in {max_iter} iterations (residual {residual:.3g})",
                      MeanFieldWarning, stacklevel=2)
    return VectorTAPResult(m=m, V=V, iterations=it, converged=converged, residual=residual)



def _gaussian_vector_model(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random Gaussian vector-spin model of :func:`gaussian_vector_check` (J, X, Σ), drawn from ``rng``."""
    n, d = check_int("n", n, 2), check_int("d", d, 1)   # Python ints: a np.uint64 n broke the indexing below
    check_generator("rng", rng, kind="numpy")
    check_alloc("n and d", 4 * (n * d) ** 2 * 8)   # (n d) x (n d) matrices: both sizes set it
    A = rng.standard_normal((n, n, d, d)) / np.sqrt(n * d)
    J = A + A.transpose(1, 0, 3, 2)                 # J_ij = J_ji^T
    J[np.arange(n), np.arange(n)] = 0.0
    S = np.eye(d) + 0.2 * np.ones((d, d))
    radius = np.abs(np.linalg.eigvalsh(J.transpose(0, 2, 1, 3).reshape(n * d, n * d))).max()
    J *= 0.5 * np.linalg.eigvalsh(np.linalg.inv(S))[0] / radius
    X = rng.standard_normal((n, d))
    return J, X, S


@contract()  # its loop's work is checked before the body: mfattn.companion.work
def gaussian_vector_check(n: int, d: int, rng: np.random.Generator, trials: int = 3,
                          tol: float = 1e-12) -> dict[str, float]:
    r"""max |m_TAP - (Σ⁻¹ - J)⁻¹ X| on a random Gaussian vector-spin model, for ``trials`` arbitrary fixed
    cavity variances (``V_i = B_i B_iᵀ``, ``B_i`` ~ 0.1 N(0, 1)) and for the self-consistent ones, each iterated
    until max |Δm| < ``tol``: the deviation is at most of the order of ``tol`` (the iteration stops there) and
    no smaller than float64 round-off (:func:`gaussian_vector_bound`), so an identity is shown only by a ``tol``
    below that bound's scale.

    The model: ``J_ij = A_ij + A_jiᵀ`` (A ~ N(0, 1/(nd))), no self-coupling, scaled so that its spectral
    radius is half the prior precision's smallest eigenvalue (``Σ⁻¹ - J`` positive definite);
    ``Σ = I + 0.2·11ᵀ``; ``X ~ N(0, 1)``. Draws from ``rng`` in that order.
    """
    check_int("trials", trials, 1), check_positive("tol", tol)
    J, X, S = _gaussian_vector_model(n, d, rng)
    closed = gaussian_closed_form(J, X, S)
    out = {}
    for trial in range(trials):
        B = 0.1 * rng.standard_normal((n, d, d))
        V = np.einsum("iab,icb->iac", B, B)         # symmetric positive semi-definite
        out[f"fixed V #{trial}"] = float(np.abs(gaussian_vector_tap(J, X, S, V=V, adapt=False, tol=tol).m
                                                - closed).max())
    out["self-consistent V"] = float(np.abs(gaussian_vector_tap(J, X, S, adapt=True, tol=tol).m - closed).max())
    return out


def gaussian_vector_bound(n: int, d: int, rng: np.random.Generator) -> float:
    r"""The float64 accuracy of the closed form of :func:`gaussian_vector_check`'s model (the same draw from
    ``rng``): :math:`\kappa_2(P)\,\varepsilon\,\max|m|` with :math:`P = \Sigma^{-1} \otimes I - J`, the forward
    error of a backward-stable solve; two float64 answers of the same m agree to a modest multiple of it."""
    J, X, S = _gaussian_vector_model(n, d, rng)
    m = gaussian_closed_form(J, X, S)
    return float(np.linalg.cond(_precision(J, S)) * np.finfo(float).eps * np.abs(m).max())
