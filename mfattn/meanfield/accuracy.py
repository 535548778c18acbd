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

from collections.abc import Mapping, Set as AbstractSet
from typing import Any

import numpy as np

from ..companion.checks import check_positive, check_real
from ..ising import MAX_EXACT_SPINS, adaptive_tap, exact_marginals_sweep, naive_mean_field, sk_couplings, tap
# the comparison and the damping sweep live in modules of their own; re-exported here with their helpers
from .accuracy_comparison import (METHODS, MODES, PATIENCE, TOL, Comparison, _check_fields, _check_methods, _crossing,
                                  _disorder, compare_mean_field, median_over_instances, plefka_parameter,
                                  still_relaxing)
from .accuracy_damping import DampingSweep, damping_sweep

__all__ = ["METHODS", "TOL", "PATIENCE", "MODES", "still_relaxing", "plefka_parameter", "Comparison",
           "DampingSweep", "median_over_instances", "compare_mean_field", "damping_sweep", "summarise"]


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
