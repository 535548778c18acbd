r"""Ising models and their mean-field theories: naive mean field, TAP and adaptive TAP.

Convention (used throughout the book):

.. math::

    p(S) = \frac{1}{Z} \exp\Big(\tfrac12 \sum_{ij} J_{ij} S_i S_j + \sum_i h_i S_i\Big),
    \qquad S_i \in \{-1, +1\},

with ``J`` symmetric and zero on the diagonal. The inverse temperature is absorbed in
``J`` and ``h``: the Sherrington–Kirkpatrick couplings of :func:`sk_couplings` are
``J = beta * G / sqrt(n)``.

Every approximation returns a :class:`MeanFieldResult` with the magnetisations ``m``,
the linear-response susceptibility ``chi`` (= approximate connected correlations
``<S_i S_j> - m_i m_j``), the iteration count and a ``converged`` flag. Inputs may be
numpy arrays or torch tensors; the computation and the results are float64 numpy.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mfattn.companion.checks import (check_alloc, check_array, check_bool, check_choice, check_generator, check_int,
                                     check_positive, check_real, contract)

__all__ = ["MAX_EXACT_SPINS", "MAX_LOG_WEIGHT", "ExactResult", "MeanFieldResult", "MeanFieldWarning", "sk_couplings",
           "exact_marginals", "exact_marginals_sweep", "naive_mean_field", "tap", "adaptive_tap",
           "VectorTAPResult", "gaussian_vector_tap", "gaussian_closed_form", "gaussian_vector_check",
           "gaussian_vector_bound"]

#: Largest system :func:`exact_marginals` enumerates (2**24 states, ~1 s per million states).
MAX_EXACT_SPINS = 24


class MeanFieldWarning(RuntimeWarning):
    """A mean-field iteration stopped without converging, or its susceptibility lost positivity."""


# --- input checking ----------------------------------------------------------------------------------
def _as_float64(x: Any, name: str) -> np.ndarray:
    """A finite real float64 array (numpy array, torch tensor or nested list): no complex, no integer array."""
    return check_array(name, x)


def _check_model(J: Any, h: Any, name: str = "J") -> tuple[np.ndarray, np.ndarray]:
    """Validate couplings (n, n) symmetric, zero diagonal, and fields (n,)."""
    J = _as_float64(J, name)
    if J.ndim != 2 or J.shape[0] != J.shape[1]:
        raise ValueError(f"{name} must be a square (n, n) matrix; got shape {J.shape}")
    n = J.shape[0]
    if n == 0:
        raise ValueError("J must describe at least one spin; got shape (0, 0)")
    scale = max(1.0, float(np.abs(J).max()))
    if not np.allclose(J, J.T, rtol=0, atol=1e-12 * scale):
        raise ValueError(f"J must be symmetric (J_ij = J_ji); max |J - J.T| = {np.abs(J - J.T).max():.3g}")
    if np.abs(np.diag(J)).max() > 1e-12 * scale:
        raise ValueError("J must have a zero diagonal (self-couplings are constants for S_i = ±1)")
    h = _as_float64(h, "h")
    if h.shape != (n,):
        raise ValueError(f"h must have shape ({n},) to match J of shape {J.shape}; got {h.shape}")
    return J, h


def _check_solver(damping: float, tol: float, max_iter: int, on_fail: str) -> None:
    check_real("damping (fraction of the new update taken)", damping, minimum=0.0, maximum=1.0, strict=True)
    check_positive("tol", tol)
    check_int("max_iter", max_iter, 1)
    check_choice("on_fail", on_fail, ("warn", "raise", "ignore"))


def _start(m0: Any, n: int) -> np.ndarray:
    """The initial magnetisations: zeros, or ``m0`` checked to be (n,) inside the open cube (-1, 1)^n."""
    if m0 is None:
        return np.zeros(n)
    m0 = _as_float64(m0, "m0")
    if m0.shape != (n,):
        raise ValueError(f"m0 must have shape ({n},), one magnetisation per spin; got {m0.shape}")
    if np.abs(m0).max() >= 1.0:
        raise ValueError(f"m0 must lie in (-1, 1) (magnetisations of ±1 spins); got max |m0| = {np.abs(m0).max():.3g}")
    return m0.copy()


# --- models ------------------------------------------------------------------------------------------
def sk_couplings(n: int, beta: float, seed: int | np.random.Generator = 0) -> np.ndarray:
    r"""Sherrington–Kirkpatrick couplings :math:`J = \beta G / \sqrt{n}`.

    ``G`` is symmetric with independent standard-normal entries above the diagonal and
    zeros on it, so the spin-glass transition of the field-free model sits at ``beta = 1``.

    Returns a float64 array of shape (n, n).
    """
    if not (isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 2):
        raise ValueError(f"n must be an integer >= 2; got {n!r}")
    check_real("beta", beta, minimum=0.0)
    check_alloc("n", 2 * n * n * 8)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_int("seed", seed, 0))
    upper = np.triu(rng.standard_normal((n, n)), k=1)
    return beta * (upper + upper.T) / np.sqrt(n)


# --- exact enumeration -------------------------------------------------------------------------------
@dataclass
class ExactResult:
    """Exact marginals of a small Ising model.

    Attributes: ``m`` (n,) magnetisations, ``C`` (n, n) connected correlations
    ``<S_i S_j> - m_i m_j``, ``log_z`` the log partition function.
    """

    m: np.ndarray
    C: np.ndarray
    log_z: float


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


# --- mean-field approximations -----------------------------------------------------------------------
@dataclass
class MeanFieldResult:
    """Result of a mean-field approximation.

    Attributes
    ----------
    m : (n,) magnetisations.
    chi : (n, n) linear-response susceptibility :math:`\\partial m_i / \\partial h_j`, the
        approximation's connected correlations.
    iterations : iterations used; ``converged``: whether ``max |Δm| < tol`` was reached.
    residual : final ``max |Δm|`` (undamped update).
    V : (n,) cavity variances (Onsager reaction coefficients), or None for naive mean field.
    chi_positive : whether the inverse susceptibility is positive definite at the solution.
    lambda_min : smallest eigenvalue of ``chi`` (negative once positivity is lost).
    """

    method: str
    m: np.ndarray
    chi: np.ndarray
    iterations: int
    converged: bool
    residual: float
    V: np.ndarray | None = None
    chi_positive: bool = True
    lambda_min: float = float("nan")
    history: list[float] = field(default_factory=list, repr=False)

    @property
    def correlations(self) -> np.ndarray:
        """Connected correlations from linear response (= ``chi``)."""
        return self.chi


def _report(method: str, converged: bool, residual: float, iterations: int, positive: bool, on_fail: str) -> None:
    problems = []
    if not converged:
        problems.append(f"did not converge in {iterations} iterations (max |Δm| = {residual:.3g}); "
                        f"try stronger damping (smaller `damping`) or more `max_iter`")
    if not positive:
        problems.append("its inverse susceptibility lost positive definiteness: the solution is unstable "
                        "(beyond the approximation's breakdown)")
    if not problems or on_fail == "ignore":
        return
    message = f"{method}: " + "; ".join(problems)
    if on_fail == "raise":
        raise RuntimeError(message)
    warnings.warn(message, MeanFieldWarning, stacklevel=3)


def _susceptibility(inverse_chi: np.ndarray) -> tuple[np.ndarray, bool, float]:
    """Invert a symmetric inverse susceptibility; report positivity and the smallest eigenvalue of chi."""
    inverse_chi = 0.5 * (inverse_chi + inverse_chi.T)
    eig_inv = np.linalg.eigvalsh(inverse_chi)
    positive = bool(eig_inv[0] > 0)
    chi = np.linalg.inv(inverse_chi)
    chi = 0.5 * (chi + chi.T)
    return chi, positive, float(np.linalg.eigvalsh(chi)[0])


def _iterate(update, m0: np.ndarray, damping: float, tol: float, max_iter: int):
    """Damped fixed-point iteration m <- (1 - a) m + a update(m); returns (m, iterations, converged, residual, history)."""
    m = m0.copy()
    history = []
    residual = np.inf
    for it in range(1, max_iter + 1):
        new = update(m)
        if not np.all(np.isfinite(new)):
            raise FloatingPointError(f"mean-field update produced NaN/inf at iteration {it}")
        residual = float(np.abs(new - m).max())
        history.append(residual)
        m = (1.0 - damping) * m + damping * new
        if residual < tol:
            return m, it, True, residual, history
    return m, max_iter, False, residual, history


@contract()  # its loop's work is checked before the body: mfattn.companion.work
def naive_mean_field(J: Any, h: Any, *, damping: float = 0.5, tol: float = 1e-10, max_iter: int = 10_000,
                     m0: Any = None, on_fail: str = "warn") -> MeanFieldResult:
    r"""Naive mean field: :math:`m_i = \tanh(h_i + \sum_j J_{ij} m_j)`.

    Linear response: :math:`\chi^{-1} = \mathrm{diag}(1/(1-m_i^2)) - J`.
    ``damping`` is the fraction of the new update taken per iteration; ``on_fail``
    ('warn' | 'raise' | 'ignore') decides what a non-converged or unstable solution does.
    Fields strong enough to saturate tanh in float64 (:math:`|h_i| \gtrsim 19`, up to the largest float) all give
    the same answer, the correct limit: ``m_i = ±1`` to within ``tol`` (the damped iteration stops there, about
    2.9e-11 short of ±1 at the defaults) and ``chi_ii = 1 - m_i²`` of the order of ``tol`` (exactly
    :math:`\approx 4 e^{-2|h_i|}`, far below float64's resolution).
    """
    J, h = _check_model(J, h)
    _check_solver(damping, tol, max_iter, on_fail)
    m0 = _start(m0, len(h))
    m, it, ok, res, hist = _iterate(lambda m: np.tanh(h + J @ m), m0, damping, tol, max_iter)
    chi, positive, lam = _susceptibility(np.diag(1.0 / (1.0 - m**2)) - J)
    _report("naive mean field", ok, res, it, positive, on_fail)
    return MeanFieldResult("naive", m, chi, it, ok, res, None, positive, lam, hist)


@contract()  # its loop's work is checked before the body: mfattn.companion.work
def tap(J: Any, h: Any, *, onsager: str = "sk", damping: float = 0.5, tol: float = 1e-10,
        max_iter: int = 10_000, m0: Any = None, on_fail: str = "warn") -> MeanFieldResult:
    r"""TAP equations :cite:p:`thouless1977solution`: naive mean field plus an Onsager reaction term.

    .. math:: m_i = \tanh\Big(h_i + \sum_j J_{ij} m_j - V_i m_i\Big)

    ``onsager="sk"`` (default) uses the Sherrington–Kirkpatrick term, which assumes the
    couplings are i.i.d. with variance :math:`\beta^2/n`:
    :math:`V_i = \beta^2 (1 - q)` with :math:`q = \frac1n\sum_j m_j^2` and
    :math:`\beta^2 = \frac1n\sum_{ij} J_{ij}^2` estimated from ``J``.
    ``onsager="site"`` uses the site-resolved term :math:`V_i = \sum_j J_{ij}^2 (1 - m_j^2)`.

    Linear response differentiates the equations :cite:p:`kappen1998efficient`; for "site"
    :math:`(\chi^{-1})_{ij} = \delta_{ij}[1/(1-m_i^2) + V_i] - J_{ij} - 2 J_{ij}^2 m_i m_j`, for "sk"
    :math:`(\chi^{-1})_{ij} = \delta_{ij}[1/(1-m_i^2) + V] - J_{ij} - 2\beta^2 m_i m_j / n`.
    """
    J, h = _check_model(J, h)
    _check_solver(damping, tol, max_iter, on_fail)
    if onsager not in ("sk", "site"):
        raise ValueError(f"onsager must be 'sk' or 'site'; got {onsager!r}")
    n = len(h)
    J2 = J**2
    beta2 = J2.sum() / n
    if onsager == "sk":
        def cavity(m):
            return np.full(n, beta2 * (1.0 - np.mean(m**2)))
    else:
        def cavity(m):
            return J2 @ (1.0 - m**2)
    m0 = _start(m0, len(h))
    m, it, ok, res, hist = _iterate(lambda m: np.tanh(h + J @ m - m * cavity(m)), m0, damping, tol, max_iter)
    V = cavity(m)
    reaction = 2.0 * (J2 if onsager == "site" else beta2 / n) * np.outer(m, m)
    chi, positive, lam = _susceptibility(np.diag(1.0 / (1.0 - m**2) + V) - J - reaction)
    _report(f"TAP ({onsager})", ok, res, it, positive, on_fail)
    return MeanFieldResult(f"tap_{onsager}", m, chi, it, ok, res, V, positive, lam, hist)


@contract()  # its loop's work is checked before the body: mfattn.companion.work
def adaptive_tap(J: Any, h: Any, *, damping: float = 0.5, tol: float = 1e-10, max_iter: int = 10_000,
                 m0: Any = None, on_fail: str = "warn") -> MeanFieldResult:
    r"""Adaptive TAP of Opper and Winther :cite:p:`opper2001adaptive` for ±1 spins.

    The cavity field of spin ``i`` is Gaussian with variance :math:`V_i`, which gives

    .. math:: m_i = \tanh\Big(h_i + \sum_j J_{ij} m_j - V_i m_i\Big).

    The variances are fixed self-consistently from linear response: with
    :math:`\Lambda_i = V_i + (\partial m_i/\partial h_i)^{-1} = V_i + 1/(1 - m_i^2)` and
    :math:`\chi = (\Lambda - J)^{-1}`, the diagonal of :math:`\chi` must equal the local
    variance :math:`1 - m_i^2`. By the Schur complement, :math:`1/\chi_{ii} = \Lambda_i - V^{\rm eff}_i`
    where :math:`V^{\rm eff}_i` depends only on the other sites, so the update
    :math:`V_i \leftarrow \Lambda_i - 1/\chi_{ii}` solves the condition one site at a time;
    it is iterated jointly with ``m`` (both damped).
    Unlike TAP, no assumption on the statistics of ``J`` is made.
    """
    J, h = _check_model(J, h)
    _check_solver(damping, tol, max_iter, on_fail)
    n = len(h)
    m = _start(m0, n)
    V = (J**2).sum(axis=1)  # start from the site-resolved TAP value at m = 0
    history = []
    converged, residual, it = False, np.inf, 0
    for it in range(1, max_iter + 1):
        m_new = np.tanh(h + J @ m - V * m)
        with np.errstate(divide="ignore", invalid="ignore"):  # |m| -> 1 or a singular χ: reported below
            lam = V + 1.0 / (1.0 - m_new**2)
            try:
                chi_diag = np.diag(np.linalg.inv(np.diag(lam) - J))
            except np.linalg.LinAlgError as err:
                raise FloatingPointError(f"adaptive TAP: Lambda - J became singular at iteration {it}") from err
            V_new = lam - 1.0 / chi_diag
        if not (np.all(np.isfinite(m_new)) and np.all(np.isfinite(V_new))):
            raise FloatingPointError(f"adaptive TAP produced NaN/inf at iteration {it}")
        residual = float(max(np.abs(m_new - m).max(), np.abs(V_new - V).max()))
        history.append(residual)
        m = (1.0 - damping) * m + damping * m_new
        V = (1.0 - damping) * V + damping * V_new
        if residual < tol:
            converged = True
            break
    chi, positive, lam_min = _susceptibility(np.diag(V + 1.0 / (1.0 - m**2)) - J)
    _report("adaptive TAP", converged, residual, it, positive, on_fail)
    return MeanFieldResult("adaptive_tap", m, chi, it, converged, residual, V, positive, lam_min, history)


# --- vector spins with a Gaussian prior --------------------------------------------------------------
@dataclass
class VectorTAPResult:
    """Fixed point of adaptive TAP for vector spins: ``m`` (n, d), cavity variances ``V`` (n, d, d)."""

    m: np.ndarray
    V: np.ndarray
    iterations: int
    converged: bool
    residual: float


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
    check_int("n", n, 2), check_int("d", d, 1)
    check_generator("rng", rng, kind="numpy")
    check_alloc("n", 4 * (n * d) ** 2 * 8)
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
