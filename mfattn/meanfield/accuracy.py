r"""How good are the mean-field theories of :mod:`mfattn.ising`? Chapter 1's study against exact enumeration.

:func:`compare_mean_field` solves SK instances (:math:`J = \beta G/\sqrt n`, fields :math:`h \sim N(0, \sigma^2)`)
with each theory over a grid of β and measures its errors against exact enumeration; :class:`Comparison`
holds the results and separates the ways a theory fails: its damped iteration does not reach the tolerance,
either because it relaxes too slowly for the budget (its residual is still falling, :func:`still_relaxing`)
or because it stalls (a cycle, chaos or divergence), or it converges to a solution whose inverse
susceptibility is not positive definite (unstable). :func:`damping_sweep` tells an iteration that stalls
from a lost solution by damping harder; the residual trend tells both from slow relaxation, which every
damping of the sweep meets alike (each gets the same total step length). Plefka's (AT) parameter
:math:`x = \beta^2 \frac1n \sum_i (1 - m_i^2)^2` is evaluated on the exact state and on each theory's own
solutions (:meth:`Comparison.at_parameter`, :attr:`DampingSweep.at_parameter`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..companion.checks import (check_alloc, check_array, check_bool, check_choice, check_int, check_positive,
                                check_real, check_work, contract)
from ..ising import MAX_EXACT_SPINS, adaptive_tap, exact_marginals_sweep, naive_mean_field, sk_couplings, tap

__all__ = ["METHODS", "TOL", "PATIENCE", "MODES", "still_relaxing", "plefka_parameter", "Comparison",
           "DampingSweep", "median_over_instances", "compare_mean_field", "damping_sweep", "summarise"]

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
    """Median over the last axis of the finite entries (NaN where a row has none), without warnings. ``x`` has 1 to
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


@dataclass
class DampingSweep:
    """The output of :func:`damping_sweep`: the same SK instances solved with each damping ``a`` and
    ``max_iter = ceil(budget / a)``. Arrays are indexed ``[method, damping, beta, instance]``:
    ``converged``, ``stable`` (converged with a positive-definite inverse susceptibility), ``relaxing``
    (not converged, residual still falling: :func:`still_relaxing`) and ``at_parameter`` (Plefka's
    parameter of the converged solution, NaN where none); ``m`` [method, damping, beta, instance, n] keeps the
    converged solutions (NaN where none), so that their errors can be read against exact enumeration on every
    instance, not only on those a weakly damped iteration happens to solve."""

    methods: tuple[str, ...]
    betas: np.ndarray
    dampings: np.ndarray
    budget: int
    converged: np.ndarray
    stable: np.ndarray
    relaxing: np.ndarray
    at_parameter: np.ndarray
    m: np.ndarray | None = None

    def select(self, methods: Any) -> "DampingSweep":
        """The same sweep restricted to ``methods`` (in that order)."""
        names = _check_methods(methods)
        missing = [m for m in names if m not in self.methods]
        if missing:
            raise ValueError(f"methods must be among the sweep's {self.methods}; got {missing}")
        k = [self.methods.index(m) for m in names]
        return DampingSweep(names, self.betas, self.dampings, self.budget, self.converged[k], self.stable[k],
                            self.relaxing[k], self.at_parameter[k], None if self.m is None else self.m[k])

    def stalled(self) -> np.ndarray:
        """[method, damping, beta, instance]: not converged, and the residual no longer falling."""
        return ~self.converged & ~self.relaxing

    def at_crossing(self, method: str, damping: int = -1) -> float:
        """The first β where the median Plefka parameter of ``method``'s converged solutions at damping
        index ``damping`` (default: the strongest, the last) reaches 1; inf if it does not on the grid."""
        check_choice("method", method, self.methods)
        d = check_int("damping", damping, -len(self.dampings), len(self.dampings) - 1)
        return _crossing(self.betas, self.at_parameter[self.methods.index(method), d])


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
    methods = tuple(methods)
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
    check_alloc("instances", len(methods) * betas.size * instances * (n + 8) * 8)
    if n > MAX_EXACT_SPINS:
        raise ValueError(f"n = {n} is too large for exact enumeration (at most {MAX_EXACT_SPINS})")
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


@contract()  # its loops' work (every solve at ceil(budget / a) iterations) is checked first: mfattn.companion.work
def damping_sweep(n: int, betas: Any, instances: int, dampings: Any, field_std: float = 0.3, seed: int = 0,
                  methods: tuple[str, ...] = ("naive", "tap", "adaptive_tap"), budget: int = 1000) -> DampingSweep:
    r"""Separate a stalled iteration from a lost solution: solve every instance of :func:`compare_mean_field`
    (same ``seed``, same disorder) with each damping ``a`` in ``dampings`` and ``max_iter = ceil(budget / a)``
    (the same total step length for every damping).

    A failure that stronger damping cures was the iteration's; one that persists at every damping means no
    stable solution was found, unless the run was still relaxing (:func:`still_relaxing`): slow relaxation
    along a soft mode of rate :math:`\lambda` decays like :math:`(1 - a\lambda)^{\mathrm{budget}/a} \approx
    e^{-\lambda\,\mathrm{budget}}` at every damping alike, so only its residual trend tells it apart.
    Returns a :class:`DampingSweep` (arrays [method, damping, beta, instance]).
    """
    methods = _check_methods(methods)
    for name, grid in (("betas", betas), ("dampings", dampings)):   # a number or a 1-d grid: never flattened
        try:
            ndim = np.ndim(grid)
        except ValueError:   # a ragged nesting
            ndim = None
        if ndim is None or ndim > 1:
            raise ValueError(f"{name} must be a number or a 1-d sequence of numbers; got "
                             f"{'a ragged nesting' if ndim is None else f'shape {np.shape(grid)}'}")
    betas = np.asarray([check_real("betas", b, minimum=0.0) for b in np.ravel(betas)])
    dampings = np.asarray([check_real("dampings", a, minimum=0.0, maximum=1.0, strict=True)
                           for a in np.ravel(dampings)])
    if betas.size == 0 or dampings.size == 0:
        raise ValueError("betas and dampings must each name at least one value")
    check_int("instances", instances, 1)
    check_int("budget", budget, 1)
    shape = (len(methods), dampings.size, betas.size, instances)
    check_alloc("instances", (4 + check_int("n", n, 2)) * int(np.prod(shape)) * 8)
    conv, stable, relax = (np.zeros(shape, dtype=bool) for _ in range(3))
    at = np.full(shape, np.nan)
    sol = np.full(shape + (n,), np.nan)
    for i, (G, h) in enumerate(_disorder(check_int("n", n, 2), instances, field_std, seed)):
        for k, d, b in np.ndindex(shape[:3]):
            try:
                res = METHODS[methods[k]](betas[b] * G, h, damping=dampings[d], on_fail="ignore", tol=TOL,
                                          max_iter=int(np.ceil(budget / dampings[d])))
            except FloatingPointError:
                continue  # diverged: stalled
            conv[k, d, b, i], stable[k, d, b, i] = res.converged, res.converged and res.chi_positive
            relax[k, d, b, i] = not res.converged and still_relaxing(res.history)
            if res.converged:
                at[k, d, b, i] = plefka_parameter(betas[b], res.m)
                sol[k, d, b, i] = res.m
    return DampingSweep(methods, betas, dampings, int(budget), conv, stable, relax, at, sol)


def _check_layout(cmp: Comparison, sweep: DampingSweep) -> None:
    """Refuse a comparison or a sweep whose arrays do not have one row per method and one column per β (a result
    edited after it was made): its numbers would be read under the wrong names."""
    for name, result, fields, axes in (
            ("cmp", cmp, ("rmse_m", "rmse_c", "iterations", "converged", "chi_positive", "lambda_min", "m_approx",
                          "relaxing"), (len(cmp.methods), np.size(cmp.betas))),
            ("sweep", sweep, ("converged", "stable", "relaxing", "at_parameter"),
             (len(sweep.methods), np.size(sweep.dampings), np.size(sweep.betas)))):
        for field in fields:
            shape = np.shape(getattr(result, field))
            if shape[:len(axes)] != axes:
                raise ValueError(f"{name}.{field} must have its first axes (methods, {'dampings, ' * (name == 'sweep')}"
                                 f"betas) = {axes}, as {name}.methods and {name}.betas say; got shape {shape}")


def _beta_or_none(b: float) -> float | None:
    return float(b) if np.isfinite(b) else None  # JSON has no inf: None = no failure / crossing on the grid


def _floats_or_none(x: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in x]


def _where_ok(x: np.ndarray, ok: np.ndarray) -> list[float | None]:
    """Per-unit values where ``ok`` (None elsewhere: no stable solution there, so no error to read)."""
    return [float(v) if o and np.isfinite(v) else None for v, o in zip(x, ok)]


def _strong_damping(cmp: Comparison, sweep: DampingSweep, k: int) -> dict[str, Any]:
    """Method ``k``'s solutions at the sweep's strongest damping (the last) read against exact enumeration, per
    sweep β and instance: the RMSE of m and Plefka's parameter of each stable solution (None where there is none
    or the β is not on the comparison's grid, where the exact state is known). The strongly damped iteration finds
    a stable solution on nearly every instance, so these errors are not those of a selected sample."""
    rmse, at = [], []
    for b, beta in enumerate(sweep.betas):
        on = np.flatnonzero(np.isclose(cmp.betas, beta, rtol=0, atol=1e-9))
        ok = sweep.stable[k, -1, b]
        if sweep.m is None or not on.size:
            rmse.append([None] * ok.size)
        else:
            err = np.sqrt(np.mean((sweep.m[k, -1, b] - cmp.m_exact[on[0]]) ** 2, axis=-1))
            rmse.append(_where_ok(err, ok))
        at.append(_where_ok(sweep.at_parameter[k, -1, b], ok))
    means = [float(np.mean(f)) if (f := [v for v in row if v is not None]) else None for row in rmse]
    return {"strong_rmse_m_per_instance": rmse, "strong_rmse_m_by_beta": means,
            "strong_ok_by_beta": [int(x) for x in sweep.stable[k, -1].sum(-1)], "at_strong_per_instance": at}


def summarise(cmp: Comparison, beta: float, sweep: DampingSweep, vector_dev: float | None = None,
              vector_roundoff: tuple[float, float] | None = None) -> dict[str, Any]:
    """The numbers behind Chapter 1's verdicts (JSON-able).

    Top level: ``n``, ``instances``, ``beta`` (the grid β nearest ``beta``), ``betas``, ``at_beta`` (where the
    median Plefka parameter of the exact state first reaches 1; None if not on the grid) and ``at_by_beta``
    (that median per β); the sweep's ``damping_betas``, ``dampings`` and ``damping_budget``; ``tol``,
    ``patience`` (of :func:`still_relaxing`); ``vector_max_dev`` (the Gaussian vector-spin check's largest
    deviation at the solver's stopping tolerance; None if not given); ``vector_max_dev_tight`` and
    ``vector_bound`` (``vector_roundoff``: the same check solved three decades tighter, and the float64 bound
    κ(P)·ε·max|m| of the closed form it is read against; None if not given); ``rms_c_exact`` (mean over the
    instances at ``beta``) and ``rms_c_exact_per_instance``: the RMS of the exact off-diagonal correlations, the
    error of the trivial estimate C = 0.

    Per method (``methods[name]``), over the comparison (the damping of :func:`compare_mean_field`):
    ``rmse_m``, ``rmse_c`` and the quartiles ``rmse_m_quartiles`` of the per-instance RMSE of m at ``beta``;
    ``rmse_m_by_beta`` and ``ok_by_beta`` (instances converged and stable at each β); for every mode of
    :data:`MODES` (spaces as "_") ``first_<mode>``, the first β where some instance failed so,
    ``first_<mode>_instances``, on how many instances it did there, and ``points_<mode>``, the (β, instance)
    points that failed so over the grid; ``at_beta`` and ``at_by_beta``, the crossing and the median of
    Plefka's parameter of the method's own converged solutions; per instance at ``beta``,
    ``rmse_m_per_instance`` and ``rmse_c_per_instance`` (None where the method failed) and ``rmse_c_quartiles``.

    Per method, over the damping sweep, one entry per damping: ``stable_fraction_by_damping``,
    ``converged_fraction_by_damping``, ``relaxing_points_by_damping``, ``stalled_points_by_damping``,
    ``at_beta_by_damping`` (the crossing of the method's own solutions at that damping),
    ``stable_beyond_at_by_damping`` (stable fraction over the sweep's β at or beyond the exact state's
    crossing) and ``stable_beyond_own_at_by_damping`` (at or beyond the method's own crossing at the strongest
    damping, the last; None where the sweep has no such β); and ``at_by_beta_strong``, the median Plefka
    parameter of its own solutions per sweep β at the strongest damping; at that damping, per sweep β and
    instance, ``strong_rmse_m_per_instance`` and ``at_strong_per_instance`` (the RMSE of m against exact
    enumeration and Plefka's parameter of each stable solution, None where none), with ``strong_rmse_m_by_beta``
    (their mean) and ``strong_ok_by_beta`` (how many instances have one). ``baselines``: the couplings-free
    estimates m = 0 and tanh(h_i) read the same way (:func:`_baselines`).
    """
    if not isinstance(cmp, Comparison):
        raise TypeError(f"cmp must be a Comparison (compare_mean_field's result); got {type(cmp).__name__}")
    if not isinstance(sweep, DampingSweep):
        raise TypeError(f"sweep must be a DampingSweep (damping_sweep's result); got {type(sweep).__name__}")
    check_positive("beta", beta)
    if vector_dev is not None:
        check_real("vector_dev", vector_dev, minimum=0.0)
    if vector_roundoff is not None:
        if isinstance(vector_roundoff, (str, bytes, Mapping, AbstractSet)) or not hasattr(
                vector_roundoff, "__len__") or len(vector_roundoff) != 2:   # a dict's keys, a set's order: not a pair
            raise TypeError(f"vector_roundoff must be a pair of numbers (deviation, bound) or None; got "
                            f"{vector_roundoff!r}"[:200])
        for x in vector_roundoff:
            check_real("each entry of vector_roundoff", x, minimum=0.0)
    if tuple(sweep.methods) != tuple(cmp.methods):
        raise ValueError(f"sweep must solve the comparison's methods {cmp.methods}; got {sweep.methods}")
    _check_layout(cmp, sweep)
    b = int(np.argmin(np.abs(cmp.betas - beta)))
    at_beta = cmp.at_crossing("exact")
    beyond = sweep.betas >= at_beta
    rm, rc, ok = cmp.mean_rmse("m"), cmp.mean_rmse("c"), cmp.ok()
    out = {"n": int(cmp.m_exact.shape[-1]), "instances": int(cmp.m_exact.shape[1]), "beta": float(cmp.betas[b]),
           "betas": [float(x) for x in cmp.betas], "at_beta": _beta_or_none(at_beta),
           "at_by_beta": _floats_or_none(median_over_instances(cmp.at_parameter("exact"))),
           "damping_betas": [float(x) for x in sweep.betas], "dampings": [float(x) for x in sweep.dampings],
           "damping_budget": sweep.budget, "tol": TOL, "patience": PATIENCE,
           "vector_max_dev": None if vector_dev is None else float(vector_dev), "methods": {}}
    if vector_roundoff is not None:
        out["vector_max_dev_tight"], out["vector_bound"] = (float(x) for x in vector_roundoff)
    if cmp.c_exact_rms is not None:
        out["rms_c_exact"] = float(np.mean(cmp.c_exact_rms[b]))
        out["rms_c_exact_per_instance"] = [float(x) for x in cmp.c_exact_rms[b]]
    per_damping = lambda f: [f(d) for d in range(len(sweep.dampings))]  # noqa: E731
    for k, name in enumerate(cmp.methods):
        q = np.quantile(cmp.rmse_m[k, b][ok[k, b]], [0.25, 0.5, 0.75]) if ok[k, b].any() else [float("nan")] * 3
        qc = np.quantile(cmp.rmse_c[k, b][ok[k, b]], [0.25, 0.5, 0.75]) if ok[k, b].any() else [float("nan")] * 3
        own = sweep.at_crossing(name)
        mine = sweep.betas >= own
        entry = {"rmse_m": float(rm[k, b]), "rmse_c": float(rc[k, b]), "rmse_m_quartiles": [float(x) for x in q],
                 "rmse_m_by_beta": _floats_or_none(rm[k]), "rmse_c_by_beta": _floats_or_none(rc[k]),
                 "ok_by_beta": [int(x) for x in ok[k].sum(-1)],
                 "at_beta": _beta_or_none(cmp.at_crossing(name)),
                 "at_by_beta": _floats_or_none(median_over_instances(cmp.at_parameter(name))),
                 "rmse_m_per_instance": _where_ok(cmp.rmse_m[k, b], ok[k, b]),
                 "rmse_c_per_instance": _where_ok(cmp.rmse_c[k, b], ok[k, b]),
                 "rmse_c_quartiles": [float(x) for x in qc]}
        for mode in MODES:
            key = mode.replace(" ", "_")
            entry[f"first_{key}"] = _beta_or_none(cmp.breakdown_beta(mode)[name])
            entry[f"first_{key}_instances"] = cmp.breakdown_instances(mode)[name]
            entry[f"points_{key}"] = int(cmp.failed(mode)[k].sum())
        entry.update({
            "stable_fraction_by_damping": per_damping(lambda d: float(sweep.stable[k, d].mean())),
            "converged_fraction_by_damping": per_damping(lambda d: float(sweep.converged[k, d].mean())),
            "relaxing_points_by_damping": per_damping(lambda d: int(sweep.relaxing[k, d].sum())),
            "stalled_points_by_damping": per_damping(lambda d: int(sweep.stalled()[k, d].sum())),
            "at_beta_by_damping": per_damping(lambda d: _beta_or_none(sweep.at_crossing(name, d))),
            "at_by_beta_strong": _floats_or_none(median_over_instances(sweep.at_parameter[k, -1])),
            "stable_beyond_at_by_damping": per_damping(
                lambda d: float(sweep.stable[k, d][beyond].mean()) if beyond.any() else None),
            "stable_beyond_own_at_by_damping": per_damping(
                lambda d: float(sweep.stable[k, d][mine].mean()) if mine.any() else None)})
        entry.update(_strong_damping(cmp, sweep, k))
        out["methods"][name] = entry
    out["baselines"] = _baselines(cmp, sweep)
    return out


def _baselines(cmp: Comparison, sweep: DampingSweep) -> dict[str, Any]:
    """Two estimates that ignore the couplings, per sweep β and instance (None off the comparison's grid): m = 0
    (its RMSE is the RMS of the exact magnetisations) and m_i = tanh(h_i) (None for both where ``m_field`` is not
    kept). A theory's advantage over naive mean field means little once naive mean field is worse than these."""
    zero, field = [], []
    for beta in sweep.betas:
        on = np.flatnonzero(np.isclose(cmp.betas, beta, rtol=0, atol=1e-9))
        if not on.size:
            zero.append([None] * cmp.m_exact.shape[1])
            field.append([None] * cmp.m_exact.shape[1])
            continue
        exact = cmp.m_exact[on[0]]
        zero.append(_floats_or_none(np.sqrt(np.mean(exact ** 2, axis=-1))))
        field.append(_floats_or_none(np.sqrt(np.mean((cmp.m_field - exact) ** 2, axis=-1)))
                     if cmp.m_field is not None else [None] * exact.shape[0])
    return {"zero_strong_per_instance": zero, "field_strong_per_instance": field}
