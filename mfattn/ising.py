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

from mfattn.companion.checks import check_alloc, check_int, check_real, contract
# the input checks, exact enumeration and the vector-spin theory live in modules of their own; re-exported here
from mfattn.ising_exact import (MAX_EXACT_SPINS, MAX_LOG_WEIGHT, ExactResult, _check_resolution, _spin_states,
                                exact_marginals, exact_marginals_sweep)
from mfattn.ising_inputs import MeanFieldWarning, _as_float64, _check_model, _check_solver, _start
from mfattn.ising_vector import (VectorTAPResult, _check_symmetric, _check_vector_model, _gaussian_vector_model,
                                 _precision, gaussian_closed_form, gaussian_vector_bound, gaussian_vector_check,
                                 gaussian_vector_tap)

__all__ = ["MAX_EXACT_SPINS", "MAX_LOG_WEIGHT", "ExactResult", "MeanFieldResult", "MeanFieldWarning", "sk_couplings",
           "exact_marginals", "exact_marginals_sweep", "naive_mean_field", "tap", "adaptive_tap",
           "VectorTAPResult", "gaussian_vector_tap", "gaussian_closed_form", "gaussian_vector_check",
           "gaussian_vector_bound"]


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


# --- mean-field approximations -----------------------------------------------------------------------
#: The ``method`` names the solvers below give their results.
_METHODS = ("naive", "tap_sk", "tap_site", "adaptive_tap")


@dataclass
class MeanFieldResult:
    """Result of a mean-field approximation.

    Attributes
    ----------
    method : the solver that made it: ``"naive"``, ``"tap_sk"``, ``"tap_site"`` or ``"adaptive_tap"``.
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

    def __post_init__(self):
        # a hand-made result is checked as the solvers make it: a wrong field would be read later as a number
        if not isinstance(self.method, str) or str.__str__(self.method) not in _METHODS:
            raise ValueError(f"MeanFieldResult.method must be one of {', '.join(_METHODS)}; got {self.method!r:.60}")
        self.method = str.__str__(self.method)
        for name, ndim in (("m", 1), ("chi", 2), ("V", 1)):
            value = getattr(self, name)
            if name == "V" and value is None:
                continue
            if not isinstance(value, np.ndarray) or value.dtype.kind != "f" or value.ndim != ndim:
                raise TypeError(f"MeanFieldResult.{name} must be a {ndim}-d real floating numpy array; got "
                                f"{type(value).__name__} {getattr(value, 'dtype', '')} shape {np.shape(value)}"[:200])
        n = self.m.shape[0]
        if self.chi.shape != (n, n) or (self.V is not None and self.V.shape != (n,)):
            raise ValueError(f"MeanFieldResult: chi must be (n, n) and V (n,) for m of n = {n}; got chi "
                             f"{self.chi.shape}, V {None if self.V is None else self.V.shape}")
        for name in ("converged", "chi_positive"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"MeanFieldResult.{name} must be True or False; got {getattr(self, name)!r:.60}")
        if isinstance(self.iterations, (bool, np.bool_)) or not isinstance(self.iterations, (int, np.integer)) \
                or self.iterations < 0:
            raise TypeError(f"MeanFieldResult.iterations must be a count (an integer >= 0); got {self.iterations!r:.60}")
        for name in ("residual", "lambda_min"):   # inf or NaN where a run failed: the solvers store them so
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"MeanFieldResult.{name} must be a real number; got {type(value).__name__} "
                                f"{value!r:.60}")
        if not (self.residual >= 0 or np.isnan(self.residual)):
            raise ValueError(f"MeanFieldResult.residual must be >= 0 (a largest change); got {self.residual!r}")
        if self.converged and not np.isfinite(float(self.residual)):   # float: a longdouble 1e400 reads as inf
            raise ValueError(f"MeanFieldResult: a converged result has a finite residual; got {self.residual!r}")

    @property
    def correlations(self) -> np.ndarray:
        """Connected correlations from linear response (= ``chi``)."""
        return self.chi


class _Overflow(FloatingPointError, ValueError):
    """The update left float64's range for finite J and h: a ValueError naming them (the studies catch it as the
    FloatingPointError it also is)."""


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
            raise _Overflow(f"J and h overflow the mean-field update (NaN/inf at iteration {it}): couplings or "
                            f"fields too large for float64; scale them down")
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
            raise _Overflow(f"J and h overflow adaptive TAP's update (NaN/inf at iteration {it}): couplings or "
                            f"fields too large for float64; scale them down")
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
