r"""Chapter 1's damping sweep: the SK instances of :func:`~mfattn.meanfield.accuracy_comparison.compare_mean_field`
solved again with each damping at the same total step length, which tells an iteration that stalls from a lost
solution (:func:`damping_sweep` and the :class:`DampingSweep` it returns)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..companion.checks import check_alloc, check_choice, check_int, check_real, contract
from ..companion.checks_arrays import _result_field
from .accuracy_comparison import (METHODS, TOL, _check_methods, _crossing, _disorder, plefka_parameter,
                                  still_relaxing)

__all__ = ["DampingSweep", "damping_sweep"]


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

    def __post_init__(self):
        self.methods = methods = _check_methods(self.methods)
        _result_field("DampingSweep", "betas", self.betas, "float", ndim=1)
        _result_field("DampingSweep", "dampings", self.dampings, "float", ndim=1)
        if not (np.isfinite(self.betas).all() and (self.betas >= 0).all()
                and ((self.dampings > 0) & (self.dampings <= 1)).all()):
            raise ValueError(f"DampingSweep: betas must be finite and >= 0 and dampings in (0, 1]; got betas "
                             f"{self.betas!r:.60}, dampings {self.dampings!r:.60}")
        if isinstance(self.budget, (bool, np.bool_)) or not isinstance(self.budget, (int, np.integer)) \
                or self.budget < 1:
            raise TypeError(f"DampingSweep.budget must be a positive integer; got {self.budget!r:.60}")
        per = (len(methods), self.dampings.size, self.betas.size)
        for name, kind in (("converged", "bool"), ("stable", "bool"), ("relaxing", "bool"), ("at_parameter", "float")):
            value = getattr(self, name)
            _result_field("DampingSweep", name, value, kind, ndim=4)
            if value.shape[:3] != per:
                raise ValueError(f"DampingSweep.{name} must be [method, damping, beta, instance] of {per} + (I,); got "
                                 f"{value.shape}")
        if self.m is not None:
            _result_field("DampingSweep", "m", self.m, "float", ndim=5)
            if self.m.shape[:4] != self.converged.shape:
                raise ValueError(f"DampingSweep.m must be {self.converged.shape} + (n,); got {self.m.shape}")

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
    check_int("budget", budget, 1, 10**6)   # iterations per solve: budget / damping (as finite_size's budget)
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
