r"""How good are the mean-field theories of :mod:`mfattn.ising`? Chapter 1's study against exact enumeration.

:func:`compare_mean_field` solves SK instances (:math:`J = \beta G/\sqrt n`, fields :math:`h \sim N(0, \sigma^2)`)
with each theory over a grid of β and measures its errors against exact enumeration; :class:`Comparison`
holds the results and separates the two ways a theory fails: its damped iteration does not converge, or
it converges to a solution whose inverse susceptibility is not positive definite (unstable).
:func:`damping_sweep` tells the first kind apart from a lost solution by damping harder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..companion.checks import check_choice, check_int, check_real
from ..ising import MAX_EXACT_SPINS, adaptive_tap, exact_marginals_sweep, naive_mean_field, sk_couplings, tap

__all__ = ["METHODS", "Comparison", "compare_mean_field", "damping_sweep", "summarise"]

#: The approximations compared in Chapter 1, by name.
METHODS = {
    "naive": naive_mean_field,
    "tap": tap,
    "tap_site": lambda J, h, **kw: tap(J, h, onsager="site", **kw),
    "adaptive_tap": adaptive_tap,
}


@dataclass
class Comparison:
    """Errors of mean-field approximations against exact enumeration.

    Arrays are indexed ``[method, beta, instance]``: ``rmse_m`` (RMSE of magnetisations),
    ``rmse_c`` (RMSE of off-diagonal connected correlations from linear response),
    ``iterations``, ``converged``, ``chi_positive``, ``lambda_min`` (smallest eigenvalue of chi).
    ``exact_lambda_min[beta, instance]`` is that of the exact correlation matrix. ``m_exact`` and
    ``m_approx[method]`` (beta, instance, n) keep the magnetisations for scatter plots.
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

    def ok(self) -> np.ndarray:
        """[method, beta, instance]: converged with a positive-definite inverse susceptibility."""
        return self.converged & self.chi_positive

    def mean_rmse(self, which: str = "m") -> np.ndarray:
        """[method, beta] mean RMSE over the instances where the method worked (NaN where none did)."""
        values = self.rmse_m if which == "m" else self.rmse_c
        ok = self.ok()
        with np.errstate(invalid="ignore"):
            return np.where(ok.any(-1), (values * ok).sum(-1) / ok.sum(-1), np.nan)

    def breakdown_beta(self, mode: str = "any") -> dict[str, float]:
        """Per method, the smallest beta at which some instance failed (inf if none did).

        ``mode``: "any" failure, "not converged" (the damped iteration did not reach ``tol``), or
        "unstable" (converged, but the inverse susceptibility is not positive definite).
        """
        check_choice("mode", mode, ("any", "not converged", "unstable"))
        bad = {"any": ~self.ok(), "not converged": ~self.converged,
               "unstable": self.converged & ~self.chi_positive}[mode]
        return {name: float(self.betas[bad[k].any(-1)][0]) if bad[k].any() else float("inf")
                for k, name in enumerate(self.methods)}

    def at_parameter(self) -> np.ndarray:
        r"""[beta, instance] Plefka's (AT) stability parameter of the exact state,
        :math:`x = \beta^2 \frac1n \sum_i (1 - m_i^2)^2`; the TAP expansion converges only for
        :math:`x < 1` (Plefka 1982), the de Almeida–Thouless condition of the SK model."""
        return self.betas[:, None] ** 2 * np.mean((1.0 - self.m_exact**2) ** 2, axis=-1)


def _disorder(n: int, instances: int, field_std: float, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per instance (G, h): beta-free SK couplings and fields, drawn in this order from ``seed``."""
    rng = np.random.default_rng(seed)
    return [(sk_couplings(n, 1.0, rng), field_std * rng.standard_normal(n)) for _ in range(instances)]


def compare_mean_field(n: int, betas: Any, instances: int, field_std: float = 0.3, seed: int = 0,
                       methods: tuple[str, ...] = ("naive", "tap", "adaptive_tap"), max_iter: int = 2000,
                       damping: float = 0.5, progress: bool = False) -> Comparison:
    r"""Compare mean-field approximations with exact enumeration on SK instances.

    Instance ``k`` at inverse temperature ``beta`` has couplings :math:`J = \beta G_k/\sqrt n`
    and fields :math:`h = \sigma \xi_k` with :math:`G_k, \xi_k` drawn once per instance from
    ``seed`` (the same disorder at every beta, so curves over beta are smooth).
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {sorted(METHODS)}")
    betas = np.asarray(betas, dtype=np.float64)
    if betas.ndim != 1 or betas.size == 0:
        raise ValueError("betas must be a non-empty 1-d sequence of inverse temperatures")
    if not (isinstance(instances, (int, np.integer)) and instances >= 1):
        raise ValueError(f"instances must be a positive integer; got {instances!r}")
    if n > MAX_EXACT_SPINS:
        raise ValueError(f"n = {n} is too large for exact enumeration (at most {MAX_EXACT_SPINS})")
    M, B, I = len(methods), len(betas), instances
    shape = (M, B, I)
    rmse_m, rmse_c, lam = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    iters = np.zeros(shape, dtype=np.int64)
    conv, pos = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    exact_lam = np.zeros((B, I))
    m_exact, m_approx = np.zeros((B, I, n)), np.full((M, B, I, n), np.nan)
    off = ~np.eye(n, dtype=bool)
    disorder = _disorder(n, I, field_std, seed)
    from tqdm.auto import tqdm

    for i in tqdm(range(I), disable=not progress, desc="SK instances"):
        G, h = disorder[i]
        exact = exact_marginals_sweep(G, h, betas)  # one pass over the 2^n states for all betas
        m_exact[:, i] = exact.m
        exact_lam[:, i] = np.linalg.eigvalsh(exact.C)[:, 0]
        for b, k in np.ndindex(B, M):
            try:
                res = METHODS[methods[k]](betas[b] * G, h, damping=damping, max_iter=max_iter, on_fail="ignore")
            except FloatingPointError:
                continue  # counted as not converged
            rmse_m[k, b, i] = np.sqrt(np.mean((res.m - exact.m[b]) ** 2))
            rmse_c[k, b, i] = np.sqrt(np.mean((res.chi - exact.C[b])[off] ** 2))
            iters[k, b, i], conv[k, b, i], pos[k, b, i] = res.iterations, res.converged, res.chi_positive
            lam[k, b, i] = res.lambda_min
            m_approx[k, b, i] = res.m
    return Comparison(tuple(methods), betas, rmse_m, rmse_c, iters, conv, pos, lam, exact_lam, m_exact, m_approx)


def damping_sweep(n: int, betas: Any, instances: int, dampings: Any, field_std: float = 0.3, seed: int = 0,
                  methods: tuple[str, ...] = ("naive", "tap", "adaptive_tap"), budget: int = 1000
                  ) -> tuple[np.ndarray, np.ndarray]:
    r"""Separate a slow or oscillating iteration from a lost solution: solve every instance of
    :func:`compare_mean_field` (same ``seed``, same disorder) with each damping ``a`` in ``dampings``
    and ``max_iter = budget / a`` (the same total step length for every damping).

    Returns ``converged`` and ``stable`` (converged with a positive-definite inverse susceptibility),
    bool arrays [method, damping, beta, instance]. A failure that stronger damping cures was the
    iteration's; one that persists at every damping means no stable solution was found.
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {sorted(METHODS)}")
    betas = np.asarray([check_real("betas", b, minimum=0.0) for b in np.ravel(betas)])
    dampings = [check_real("dampings", a, minimum=0.0, maximum=1.0, strict=True) for a in np.ravel(dampings)]
    if betas.size == 0 or not dampings:
        raise ValueError("betas and dampings must each name at least one value")
    check_int("instances", instances, 1)
    check_int("budget", budget, 1)
    shape = (len(methods), len(dampings), betas.size, instances)
    conv, stable = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    for i, (G, h) in enumerate(_disorder(check_int("n", n, 2), instances, field_std, seed)):
        for k, d, b in np.ndindex(shape[:3]):
            try:
                res = METHODS[methods[k]](betas[b] * G, h, damping=dampings[d], on_fail="ignore",
                                          max_iter=int(np.ceil(budget / dampings[d])))
            except FloatingPointError:
                continue
            conv[k, d, b, i], stable[k, d, b, i] = res.converged, res.converged and res.chi_positive
    return conv, stable


def _beta_or_none(b: float) -> float | None:
    return float(b) if np.isfinite(b) else None  # JSON has no inf: None = no failure on the grid


def summarise(cmp: Comparison, beta: float, converged: np.ndarray, stable: np.ndarray, damping_betas: Any,
              dampings: Any, vector_dev: float) -> dict[str, Any]:
    """The numbers behind Chapter 1's verdicts (JSON-able): per method the RMSE of m and C at ``beta`` with
    the quartiles of the per-instance RMSE of m there, the RMSE of m at every β of the grid, the first failing
    β by mode, the damping sweep's stable and converged fractions (over all its β, and over its β at or
    beyond the AT crossing); the β where the median AT parameter of the exact state first reaches 1."""
    b = int(np.argmin(np.abs(cmp.betas - beta)))
    at = np.median(cmp.at_parameter(), axis=-1)
    at_beta = float(cmp.betas[np.argmax(at >= 1)]) if (at >= 1).any() else float("inf")
    beyond = np.asarray(damping_betas, dtype=float) >= at_beta
    rm, rc = cmp.mean_rmse("m"), cmp.mean_rmse("c")
    out = {"n": int(cmp.m_exact.shape[-1]), "instances": int(cmp.m_exact.shape[1]), "beta": float(cmp.betas[b]),
           "betas": [float(x) for x in cmp.betas], "at_beta": _beta_or_none(at_beta),
           "damping_betas": [float(x) for x in damping_betas], "dampings": [float(x) for x in dampings],
           "vector_max_dev": float(vector_dev), "methods": {}}
    for k, name in enumerate(cmp.methods):
        ok = cmp.ok()[k, b]
        q = np.quantile(cmp.rmse_m[k, b][ok], [0.25, 0.5, 0.75]) if ok.any() else [float("nan")] * 3
        out["methods"][name] = {
            "rmse_m": float(rm[k, b]), "rmse_c": float(rc[k, b]), "rmse_m_quartiles": [float(x) for x in q],
            "rmse_m_by_beta": [None if not np.isfinite(x) else float(x) for x in rm[k]],
            **{f"first_{mode.replace(' ', '_')}": _beta_or_none(cmp.breakdown_beta(mode)[name])
               for mode in ("any", "not converged", "unstable")},
            "stable_fraction_by_damping": [float(stable[k, d].mean()) for d in range(len(dampings))],
            "converged_fraction_by_damping": [float(converged[k, d].mean()) for d in range(len(dampings))],
            "stable_beyond_at_by_damping": [float(stable[k, d][beyond].mean()) if beyond.any() else None
                                            for d in range(len(dampings))]}
    return out
