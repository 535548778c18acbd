r"""Chapter 1's comparison of the mean-field theories of :mod:`mfattn.ising` with exact enumeration: the theories
compared, the SK disorder they are solved on, the failure modes and Plefka's parameter of a solution, and
:func:`compare_mean_field` with the :class:`Comparison` it returns."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..companion.checks import (check_alloc, check_array, check_bool, check_choice, check_int, check_positive,
                                check_real, check_work)
from ..companion.checks_arrays import _result_field
from ..ising import adaptive_tap, naive_mean_field, sk_couplings, tap
from ..ising_exact import MAX_EXACT_SPINS, exact_marginals_sweep

__all__ = ["METHODS", "TOL", "PATIENCE", "MODES", "still_relaxing", "plefka_parameter", "Comparison",
           "median_over_instances", "compare_mean_field"]

#: The approximations compared in Chapter 1, by name.
METHODS = {
    "naive": naive_mean_field,
    "tap": tap,
    "tap_site": lambda J, h, **kw: tap(J, h, onsager="site", **kw),
    "adaptive_tap": adaptive_tap,
}
#: Tolerance on the residual max |F(m) − m| (and |ΔV| for adaptive TAP) that counts as converged.
TOL = 1e-10
#: A run that stopped short of :data:`TOL` is "still relaxing" if, at the rate its residual fell over the last
#: quarter of the run, it would reach the tolerance within this many times the iterations it already spent.
#: At paper scale (n = 18, 40 instances, β = 0.05..2, damping 0.5, 2000 iterations) the runs that stopped short
#: fall in two groups with nothing between: residual ratio per quarter ≤ 0.48, reaching the tolerance within 7
#: more runs at that rate, or ≥ 0.96, needing ≥ 130 more runs (period-2 cycles give exactly 1); 10 lies in the gap.
PATIENCE = 10
#: Failure modes of a (method, β, instance) point: ``any`` = not converged or unstable; ``not converged`` =
#: ``stalled`` + ``relaxing``; ``unstable`` = converged with a χ⁻¹ that is not positive definite.
MODES = ("any", "not converged", "unstable", "stalled", "relaxing")


def still_relaxing(history: Any, tol: float = TOL, patience: float = PATIENCE) -> bool:
    r"""Whether a run that stopped short of ``tol`` was still relaxing towards a fixed point.

    ``history`` (T,) holds the run's residual :math:`r_t = \max_i |F(m_t) - m_t|_i` per iteration. With
    :math:`r_A` and :math:`r_B` the largest residual over the third and the last quarter of the run (the
    largest, so that an oscillation counts by its amplitude), the residual falls by :math:`\rho = r_B / r_A`
    per quarter. The run is still relaxing if :math:`\rho < 1` and, continued at that rate, the last
    residual :math:`r_T` reaches ``tol`` within ``patience`` times the T iterations already spent:
    :math:`\log(\mathrm{tol}/r_T) / \log\rho \le 4\,\mathrm{patience}` quarters. A period-2 cycle or a
    chaotic iteration keeps :math:`\rho \approx 1` (it stalls); slow relaxation along a soft mode gives
    :math:`\rho` well below 1. A run already below ``tol``, or shorter than 4 iterations, is not "relaxing".
    """
    try:
        r = check_array("history", history)
    except TypeError as err:
        raise ValueError(f"history must be a 1-d sequence of residuals (numbers): {err}") from None
    if r.ndim != 1:
        raise ValueError(f"history must be a 1-d sequence of residuals; got shape {r.shape}")
    if np.any(r < 0):   # a residual is a largest |F(m) - m|: a negative one is no run's
        raise ValueError(f"history must hold residuals (>= 0); got {float(r.min())!r}")
    check_positive("tol", tol)
    check_positive("patience", patience)
    q = r.size // 4
    if q == 0 or not np.all(np.isfinite(r[-2 * q:])) or r[-1] < tol:
        return False
    rho = r[-q:].max() / r[-2 * q:-q].max()
    if not rho < 1.0:
        return False
    return bool(np.log(tol / r[-1]) / np.log(rho) <= 4.0 * patience)


def plefka_parameter(beta: Any, m: Any) -> np.ndarray:
    r"""Plefka's (AT) parameter :math:`x = \beta^2 \frac1n \sum_i (1 - m_i^2)^2` of magnetisations ``m``
    (..., n) at inverse temperatures ``beta`` (broadcast against ``m[..., 0]``); returns shape (...), that of
    ``m[..., 0]``: any leading axes of ``m`` are kept (an (1, n) ``m`` gives shape (1,)), and a ``beta`` with more
    axes than ``m[..., 0]``, or longer ones, which would make the result larger than that, is refused.
    The TAP expansion of the free energy around ``m`` converges only for :math:`x < 1` (Plefka 1982), the
    de Almeida–Thouless condition of the SK model. NaN rows of ``m`` (no solution) give NaN."""
    m = check_array("m", m, finite=False)
    if np.isinf(m).any():
        raise ValueError("m contains infinite entries (NaN rows mark a missing solution; inf is not a magnetisation)")
    if (np.abs(m[np.isfinite(m)]) > 1).any():
        raise ValueError("m must hold magnetisations in [-1, 1] (or NaN rows for a missing solution); got "
                         f"|m_i| up to {np.nanmax(np.abs(m)):.3g}")
    if m.ndim == 0 or m.shape[-1] == 0:
        raise ValueError(f"m must hold at least one spin on its last axis (..., n); got shape {m.shape}")
    beta = check_array("beta", beta)
    if (beta < 0).any():
        raise ValueError(f"beta must hold inverse temperatures >= 0; got {beta[beta < 0].flat[0]:g}")
    try:
        shape = np.broadcast_shapes(beta.shape, m.shape[:-1])
    except ValueError:
        raise ValueError(f"beta of shape {beta.shape} must broadcast against m[..., 0] of shape {m.shape[:-1]}") from None
    if shape != m.shape[:-1]:   # one x per row of m: a beta of more (or longer) axes would multiply the rows
        raise ValueError(f"beta of shape {beta.shape} must broadcast against m[..., 0] of shape {m.shape[:-1]} "
                         f"without enlarging it (one x per row of m); it would make the result {shape}")
    with np.errstate(over="ignore"):
        square = beta ** 2
    if np.isinf(square).any():   # (1 - m²)² <= 1: only beta² can overflow
        raise ValueError(f"beta up to {np.abs(beta).max():g} makes beta² overflow float64")
    return square * np.mean((1.0 - m**2) ** 2, axis=-1)


def median_over_instances(x: np.ndarray) -> np.ndarray:
    """Median over the last axis of the entries that are not NaN (NaN where a row has none; an infinite entry, a run
    that diverged, counts as larger than every finite one), without warnings. ``x`` has 1 to
    32 axes (..., instances) and the result the shape ``x.shape[:-1]``: every leading axis is kept, one of length 1
    too (an (1, B, I) ``x`` gives (1, B))."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: NaN is the answer
        return np.nanmedian(check_array("x", x, finite=False, ndim=range(1, 33)), axis=-1)


def _crossing(betas: np.ndarray, x: np.ndarray) -> float:
    """The first β whose median x (over the last axis, finite entries) reaches 1; inf if none does."""
    med = median_over_instances(x)
    hit = np.nan_to_num(med, nan=-np.inf) >= 1.0
    return float(betas[np.argmax(hit)]) if hit.any() else float("inf")


@dataclass
class Comparison:
    """Errors of mean-field approximations against exact enumeration.

    Arrays are indexed ``[method, beta, instance]``: ``rmse_m`` (RMSE of magnetisations),
    ``rmse_c`` (RMSE of off-diagonal connected correlations from linear response),
    ``iterations``, ``converged``, ``chi_positive``, ``lambda_min`` (smallest eigenvalue of chi),
    ``relaxing`` (not converged, but the residual still falling: :func:`still_relaxing`).
    ``exact_lambda_min[beta, instance]`` is that of the exact correlation matrix. ``m_exact`` (beta,
    instance, n) and ``m_approx`` (method, beta, instance, n) keep the magnetisations (NaN where an
    iteration broke down with NaN/inf). ``c_exact_rms[beta, instance]`` is the RMS of the exact off-diagonal
    connected correlations: the error of the trivial estimate C = 0, the scale a linear-response error is read on.
    ``m_field[instance, n]`` is the couplings-free estimate tanh(h_i) (the same at every β: the fields are not
    scaled by β), a baseline any theory that uses the couplings should beat.
    """

    methods: tuple[str, ...]
    betas: np.ndarray
    rmse_m: np.ndarray
    rmse_c: np.ndarray
    iterations: np.ndarray
    converged: np.ndarray
    chi_positive: np.ndarray
    lambda_min: np.ndarray
    exact_lambda_min: np.ndarray
    m_exact: np.ndarray
    m_approx: np.ndarray
    relaxing: np.ndarray
    c_exact_rms: np.ndarray | None = None
    m_field: np.ndarray | None = None

    def __post_init__(self):
        self.methods = methods = _check_methods(self.methods)
        _result_field("Comparison", "betas", self.betas, "float", ndim=1)
        _result_field("Comparison", "m_exact", self.m_exact, "float", ndim=3)
        B, I, n = self.m_exact.shape
        per = (len(methods), B, I)
        for name, kind in (("rmse_m", "float"), ("rmse_c", "float"), ("iterations", "int"), ("converged", "bool"),
                           ("chi_positive", "bool"), ("lambda_min", "float"), ("relaxing", "bool")):
            _result_field("Comparison", name, getattr(self, name), kind, shape=per)
        _result_field("Comparison", "exact_lambda_min", self.exact_lambda_min, "float", shape=(B, I))
        _result_field("Comparison", "m_approx", self.m_approx, "float", shape=per + (n,))
        if self.betas.shape != (B,) or not (np.isfinite(self.betas).all() and (self.betas >= 0).all()):
            raise ValueError(f"Comparison.betas must hold one finite β >= 0 per row of m_exact ({B}); got "
                             f"{self.betas!r:.80}")
        for name in ("rmse_m", "rmse_c"):   # root mean squares: never negative (NaN where a method broke down)
            if (getattr(self, name) < 0).any():
                raise ValueError(f"Comparison.{name} must hold RMS errors >= 0 (NaN where none); got a negative one")
        if self.c_exact_rms is not None:
            _result_field("Comparison", "c_exact_rms", self.c_exact_rms, "float", shape=(B, I))
        if self.m_field is not None:
            _result_field("Comparison", "m_field", self.m_field, "float", shape=(I, n))

    def select(self, methods: Any) -> "Comparison":
        """The same comparison restricted to ``methods`` (in that order): what a figure of some of the theories
        draws, while the summary keeps them all."""
        names = _check_methods(methods)
        missing = [m for m in names if m not in self.methods]
        if missing:
            raise ValueError(f"methods must be among the comparison's {self.methods}; got {missing}")
        k = [self.methods.index(m) for m in names]
        per = {f: getattr(self, f)[k] for f in ("rmse_m", "rmse_c", "iterations", "converged", "chi_positive",
                                                 "lambda_min", "m_approx", "relaxing")}
        return Comparison(names, self.betas, per["rmse_m"], per["rmse_c"], per["iterations"], per["converged"],
                          per["chi_positive"], per["lambda_min"], self.exact_lambda_min, self.m_exact,
                          per["m_approx"], per["relaxing"], self.c_exact_rms, self.m_field)

    def ok(self) -> np.ndarray:
        """[method, beta, instance]: converged with a positive-definite inverse susceptibility."""
        return self.converged & self.chi_positive

    def failed(self, mode: str = "any") -> np.ndarray:
        """[method, beta, instance]: the points that failed in ``mode`` (one of :data:`MODES`)."""
        check_choice("mode", mode, MODES)
        return {"any": ~self.ok(), "not converged": ~self.converged,
                "unstable": self.converged & ~self.chi_positive,
                "stalled": ~self.converged & ~self.relaxing, "relaxing": ~self.converged & self.relaxing}[mode]

    def mean_rmse(self, which: str = "m") -> np.ndarray:
        """[method, beta] mean RMSE over the instances where the method worked (NaN where none did). An instance
        whose iteration diverged keeps a NaN RMSE; it is left out like any other failure (NaN × False would be NaN
        and turn the whole β's mean into NaN). ``which``: "m" (magnetisations) or "c" (correlations)."""
        check_choice("which", which, ("m", "c"))
        values = self.rmse_m if which == "m" else self.rmse_c
        ok = self.ok()
        with np.errstate(invalid="ignore"):
            return np.where(ok.any(-1), np.where(ok, values, 0.0).sum(-1) / ok.sum(-1), np.nan)

    def breakdown_beta(self, mode: str = "any") -> dict[str, float]:
        """Per method, the smallest beta at which some instance failed in ``mode`` (inf if none did).

        ``mode`` (:data:`MODES`): "any" failure; "not converged" (the damped iteration did not reach
        ``tol``), split into "stalled" (its residual no longer falling: a cycle, chaos or divergence) and
        "relaxing" (still falling, too slowly for the budget); "unstable" (converged, but the inverse
        susceptibility is not positive definite).
        """
        bad = self.failed(mode)
        return {name: float(self.betas[bad[k].any(-1)][0]) if bad[k].any() else float("inf")
                for k, name in enumerate(self.methods)}

    def breakdown_instances(self, mode: str = "any") -> dict[str, int]:
        """Per method, how many instances failed in ``mode`` at :meth:`breakdown_beta` (0 if none did): the
        number of instances a statement "first fails at β" rests on."""
        bad = self.failed(mode)
        return {name: int(bad[k][np.argmax(bad[k].any(-1))].sum()) for k, name in enumerate(self.methods)}

    def at_parameter(self, which: str = "exact") -> np.ndarray:
        r"""[beta, instance] Plefka's (AT) parameter :math:`x = \beta^2 \frac1n \sum_i (1 - m_i^2)^2`
        (:func:`plefka_parameter`) of the exact state (``which="exact"``) or of a method's own solution
        (``which`` a method name; NaN where its iteration did not converge). The TAP expansion around
        ``m`` converges only for :math:`x < 1` (Plefka 1982), the de Almeida–Thouless condition of SK."""
        check_choice("which", which, ("exact", *self.methods))
        if which == "exact":
            return plefka_parameter(self.betas[:, None], self.m_exact)
        k = self.methods.index(which)
        return np.where(self.converged[k], plefka_parameter(self.betas[:, None], self.m_approx[k]), np.nan)

    def at_crossing(self, which: str = "exact") -> float:
        """The first β where the median of :meth:`at_parameter` over instances (those where the method
        converged) reaches 1; inf if it does not on the grid."""
        return _crossing(self.betas, self.at_parameter(which))



def _disorder(n: int, instances: int, field_std: float, seed: int,
              name: str = "field_std") -> list[tuple[np.ndarray, np.ndarray]]:
    """Per instance (G, h): beta-free SK couplings and fields, drawn in this order from ``seed`` (``name``: the
    parameter that set ``field_std``, for the message where the fields overflow)."""
    check_int("n", n, 2), check_int("instances", instances, 1), check_real(name, field_std, minimum=0.0)
    check_alloc("instances", instances * (n * n + n) * 8)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    disorder = [(sk_couplings(n, 1.0, rng), field_std * rng.standard_normal(n)) for _ in range(instances)]
    _check_fields(name, field_std, [h for _, h in disorder])
    return disorder


def _check_fields(name: str, field_std: float, fields: list[np.ndarray]) -> None:
    """Refuse a width of the fields so large that they overflow float64 where exact enumeration sums them
    (``sum |h_i|`` inf: no finite Boltzmann weight), naming the parameter ``name`` that set it."""
    with np.errstate(over="ignore"):
        if not all(np.isfinite(np.abs(h).sum()) for h in fields):
            raise ValueError(f"{name}={float(field_std)!r} makes the fields overflow float64 (sum |h_i| is inf in exact "
                             f"enumeration's log-weights); ask for a smaller width")


def _check_methods(methods: Any) -> tuple[str, ...]:
    if isinstance(methods, (str, bytes)) or not hasattr(methods, "__iter__"):
        raise TypeError(f"methods must be a tuple of method names; got {type(methods).__name__} {methods!r:.60}")
    methods = tuple(str.__str__(m) if isinstance(m, str) else m for m in methods)   # the text, whatever its class
    unknown = [m for m in methods if not isinstance(m, str) or m not in METHODS]   # a list is not a name (unhashable)
    if unknown or not methods:
        raise ValueError(f"methods must name at least one of {sorted(METHODS)}; unknown method(s) {unknown}")
    twice = sorted({m for m in methods if methods.count(m) > 1})
    if twice:   # the summaries key each theory's numbers by its name: a second entry would overwrite the first
        raise ValueError(f"methods must name each theory once; got {twice} more than once in {methods}")
    return methods


def compare_mean_field(n: int, betas: Any, instances: int, field_std: float = 0.3, seed: int = 0,
                       methods: tuple[str, ...] = ("naive", "tap", "adaptive_tap"), max_iter: int = 2000,
                       damping: float = 0.5, progress: bool = False) -> Comparison:
    r"""Compare mean-field approximations with exact enumeration on SK instances.

    Instance ``k`` at inverse temperature ``beta`` has couplings :math:`J = \beta G_k/\sqrt n`
    and fields :math:`h = \sigma \xi_k` with :math:`G_k, \xi_k` drawn once per instance from
    ``seed`` (the same disorder at every beta, so curves over beta are smooth). Each method iterates
    with ``damping`` from m = 0 for at most ``max_iter`` steps to the tolerance :data:`TOL`.
    """
    methods = _check_methods(methods)
    try:
        betas = check_array("betas", betas)
    except TypeError as err:
        raise ValueError(f"betas must be a non-empty 1-d sequence of inverse temperatures: {err}") from None
    if betas.ndim != 1 or betas.size == 0:
        raise ValueError("betas must be a non-empty 1-d sequence of inverse temperatures")
    if np.any(betas < 0):
        raise ValueError(f"betas must be inverse temperatures >= 0; got {betas[betas < 0][0]:g}")
    check_bool("progress", progress)
    check_int("instances", instances, 1), check_int("n", n, 2)
    if n > MAX_EXACT_SPINS:
        raise ValueError(f"n = {n} is too large for exact enumeration (at most {MAX_EXACT_SPINS})")
    check_alloc("instances and betas", len(methods) * betas.size * instances * (n + 8) * 8)
    check_int("max_iter", max_iter, 1)
    # per instance and β: the exact pass over 2^n states, then up to max_iter steps of each method, each at least a
    # Python-level step's overhead (counted as 10**4 units, ~10 µs); 10**6 β ran until killed
    check_work("betas", instances * betas.size * (2 ** n * n + len(methods) * max_iter * max(n * n, 10**4)),
               what="compare_mean_field()", unit="site updates")
    M, B, I = len(methods), len(betas), instances
    shape = (M, B, I)
    rmse_m, rmse_c, lam = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    iters = np.zeros(shape, dtype=np.int64)
    conv, pos, relax = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    exact_lam, c_rms = np.zeros((B, I)), np.zeros((B, I))
    m_exact, m_approx = np.zeros((B, I, n)), np.full((M, B, I, n), np.nan)
    m_field = np.zeros((I, n))
    off = ~np.eye(n, dtype=bool)
    disorder = _disorder(n, I, field_std, seed)
    from tqdm.auto import tqdm

    for i in tqdm(range(I), disable=not progress, desc="SK instances"):
        G, h = disorder[i]
        m_field[i] = np.tanh(h)
        exact = exact_marginals_sweep(G, h, betas)  # one pass over the 2^n states for all betas
        m_exact[:, i] = exact.m
        exact_lam[:, i] = np.linalg.eigvalsh(exact.C)[:, 0]
        c_rms[:, i] = np.sqrt(np.mean(exact.C[:, off] ** 2, axis=-1))
        for b, k in np.ndindex(B, M):
            try:
                res = METHODS[methods[k]](betas[b] * G, h, damping=damping, max_iter=max_iter, tol=TOL,
                                          on_fail="ignore")
            except FloatingPointError:
                continue  # diverged: not converged and not relaxing (stalled)
            rmse_m[k, b, i] = np.sqrt(np.mean((res.m - exact.m[b]) ** 2))
            rmse_c[k, b, i] = np.sqrt(np.mean((res.chi - exact.C[b])[off] ** 2))
            iters[k, b, i], conv[k, b, i], pos[k, b, i] = res.iterations, res.converged, res.chi_positive
            relax[k, b, i] = not res.converged and still_relaxing(res.history)
            lam[k, b, i] = res.lambda_min
            m_approx[k, b, i] = res.m
    return Comparison(methods, betas, rmse_m, rmse_c, iters, conv, pos, lam, exact_lam, m_exact, m_approx, relax,
                      c_rms, m_field)
