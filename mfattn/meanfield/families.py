r"""Couplings not drawn from the SK model: the control behind "adaptive TAP compensates for not knowing the couplings'
distribution" (Bal 2021, §2.2, after Opper & Winther 2001).

TAP's SK-averaged Onsager term :math:`V = \beta^2 (1 - q)` assumes i.i.d. couplings of variance
:math:`\beta^2/n`; per-site TAP's :math:`V_i = \sum_j J_{ij}^2 (1 - m_j^2)` keeps each site's own second moment
but still assumes independent couplings; adaptive TAP computes :math:`V_i` from the actual couplings by the cavity
method and linear response. On couplings of another ensemble the first two are mis-specified, and a theory that
"compensates" keeps its accuracy there. The diluted and ferromagnetic families are
scaled so that :math:`\frac1n \sum_{ij} J_{ij}^2 = \beta^2` exactly, the second moment SK-averaged TAP estimates:
what differs from SK is the ensemble's shape, not its strength (both stay near SK's paramagnetic phase: median largest
eigenvalue 0.92 and 0.88 at β = 0.5, n = 18, against SK's 0.84). TAP's term estimates β² from the couplings given, so
it never needs the scaling.

* ``diluted``: Viana–Bray couplings, :math:`\pm 1` on the edges of an Erdős–Rényi graph of mean degree 3 (sparse).
* ``ferro``: SK couplings plus a ferromagnetic mean :math:`J_0/n` with :math:`J_0 = 1` (not centred).
* ``hopfield_dense``: the same at a load :math:`\alpha = p/n = 0.5` (:data:`DENSE_PATTERNS` patterns at n = 18,
  :math:`\lceil n/2 \rceil` in general), far beyond the retrieval capacity 0.14: many patterns, less low-rank, the
  Hebbian matrix nearer a Wishart one; scaled like ``hopfield``.
* ``hopfield``: Hebbian couplings :math:`\sum_\mu \xi^\mu_i \xi^\mu_j` of :data:`PATTERNS` random patterns
  (correlated, low rank), scaled instead so that their largest eigenvalue is :data:`EDGE` × β, SK's spectral edge at
  n = 18 (median 0.84 at β = 0.5; 2β as n grows): scaled to the SK second moment, Hebbian couplings at n = 18 have
  their largest eigenvalue above 1 at β = 0.5 on every draw (the ordered, retrieval phase, where every mean-field
  theory fails and a ratio of errors tests nothing), so this family is matched to SK's paramagnetic phase instead.

:func:`compare_families` measures each theory's RMSE of the magnetisations against exact enumeration on the
instances of every family, instance by instance, with whether its damped iteration converged.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from typing import Any, Sequence

import numpy as np

from ..companion.checks import (check_alloc, check_choice, check_int, check_real, check_rule,
                                contract)
from ..ising import MAX_EXACT_SPINS, MeanFieldWarning, exact_marginals

__all__ = ["FAMILIES", "PATTERNS", "DENSE_PATTERNS", "DEGREE", "FERRO_J0", "EDGE", "family_couplings", "compare_families", "ratio_text", "table"]

#: The coupling families of the control, in the order the summary stores them.
FAMILIES = ("diluted", "ferro", "hopfield", "hopfield_dense")
#: Mean degree of the diluted graph; ferromagnetic mean J0 of ``ferro``; patterns of ``hopfield``; the Hebbian
#: couplings' largest eigenvalue in units of β (SK's at n = 18: median 0.84 at β = 0.5).
DEGREE, FERRO_J0, PATTERNS, EDGE = 3.0, 1.0, 4, 1.6
#: Patterns of ``hopfield_dense`` at n = 18 (a load α = p/n = 0.5; ``ceil(n / 2)`` at other n).
DENSE_PATTERNS = 9


def _symmetric_gaussian(n: int, rng: np.random.Generator) -> np.ndarray:
    g = np.triu(rng.standard_normal((n, n)), 1)
    return g + g.T


#: The largest β the families are drawn at: every spin is saturated long before (β ~ 10 already freezes them), and
#: past ~1e150 the scaled couplings' squares overflow (β = 1.8e308 gave inf couplings and NaN on the diagonal).
MAX_BETA = 1e6


def family_couplings(family: str, n: int, beta: float, rng: np.random.Generator) -> np.ndarray:
    r"""(n, n) symmetric couplings with zero diagonal of ``family`` (:data:`FAMILIES`), scaled so that
    :math:`\frac1n\sum_{ij} J_{ij}^2 = \beta^2` (``hopfield``: so that the largest eigenvalue is ``EDGE * beta``). A
    diluted draw with no edge is redrawn (it has no couplings to scale)."""
    check_choice("family", family, FAMILIES)
    n = check_int("n", n, minimum=2)
    beta = check_real("beta", beta, minimum=0.0, strict=True, maximum=MAX_BETA)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator; got {type(rng).__name__}")
    check_alloc("n", 4 * n * n * 8)   # a draw, its symmetrisation and the scaled couplings: (n, n) float64 each
    while True:
        if family == "diluted":
            edges = np.triu(rng.random((n, n)) < DEGREE / (n - 1), 1)
            J = np.where(edges, rng.choice([-1.0, 1.0], size=(n, n)), 0.0)
            J = J + J.T
        elif family == "ferro":
            J = _symmetric_gaussian(n, rng) / np.sqrt(n) + FERRO_J0 / n * (1.0 - np.eye(n))
        else:
            xi = rng.choice([-1.0, 1.0], size=(PATTERNS if family == "hopfield" else -(-n // 2), n))
            J = xi.T @ xi
            np.fill_diagonal(J, 0.0)
            top = float(np.linalg.eigvalsh(J)[-1])
            if top > 0:
                return J * (EDGE * beta / top)
            continue
        second = (J**2).sum() / n
        if second > 0:
            return J * (beta / np.sqrt(second))


@contract()  # its loops' work (an exact pass and every solve per instance) is checked first: mfattn.companion.work
def compare_families(n: int, beta: float, instances: int, families: Sequence[str] = FAMILIES,
                     field_std: float = 0.3, seed: int = 0, methods: Sequence[str] = ("naive", "tap", "tap_site",
                                                                                       "adaptive_tap"),
                     max_iter: int = 2000) -> dict[str, Any]:
    """Each theory of ``methods`` (:data:`mfattn.meanfield.accuracy.METHODS`) on ``instances`` draws of every family
    at ``beta``, fields :math:`h_i \\sim N(0, \\text{field\\_std}^2)`, damping 0.5, against exact enumeration.

    Instance ``k`` of family ``f`` is drawn from ``default_rng([seed, index of f in FAMILIES, k])``: it does not
    depend on which other families or instances are run. Returns ``{"n", "beta", "instances", "field_std",
    "families": {family: {method: {"rmse_m": [per instance, None where the iteration did not converge],
    "converged": [bool per instance]}, "second_moment": [√(Σ_ij J_ij²/n) per instance]}}, "sk_matched": {family:
    {"beta": the family's mean second moment, method: {...} as above on ``instances`` SK instances at that β}}}``."""
    from .accuracy import METHODS, _check_fields

    n = check_int("n", n, minimum=2, maximum=MAX_EXACT_SPINS)
    instances = check_int("instances", instances, minimum=1, maximum=10_000)
    beta = check_real("beta", beta, minimum=0.0, strict=True, maximum=MAX_BETA)
    field_std = check_real("field_std", field_std, minimum=0.0)
    seed = check_int("seed", seed, minimum=0)
    max_iter = check_int("max_iter", max_iter, minimum=1, maximum=10**6)
    if isinstance(families, str) or not families:
        raise ValueError(f"families must be a non-empty sequence of names from {FAMILIES}; got {families!r}")
    for f in families:
        check_choice("families", f, FAMILIES)
    if isinstance(methods, str) or not methods:
        raise ValueError(f"methods must be a non-empty sequence of names from {tuple(METHODS)}; got {methods!r}")
    for m in methods:
        check_choice("methods", m, tuple(METHODS))
    for name, names in (("families", families), ("methods", methods)):   # the result is keyed by these names
        twice = sorted({x for x in names if list(names).count(x) > 1})
        if twice:
            raise ValueError(f"{name} must name each entry once (the result is keyed by name: a second one would "
                             f"overwrite or mix with the first); got {twice} more than once")
    out: dict[str, Any] = {}
    for family in families:
        per: dict[str, Any] = {m: {"rmse_m": [], "converged": []} for m in methods}
        per["second_moment"] = []
        for k in range(instances):
            rng = np.random.default_rng([seed, FAMILIES.index(family), k])
            J = family_couplings(family, n, beta, rng)
            h = field_std * rng.standard_normal(n)
            _check_fields("field_std", field_std, [h])
            per["second_moment"].append(float(np.sqrt((J ** 2).sum() / n)))
            _solve_into(per, methods, J, h, max_iter)
        out[family] = per
    # SK at each family's own strength: the β whose SK couplings have the family's mean second moment (what TAP's
    # term β²(1 − q) estimates), on SK instances drawn for it, so an SK-relative reading can match the families.
    sk = {}
    for family in families:
        b = float(np.mean(out[family]["second_moment"]))
        per = {m: {"rmse_m": [], "converged": []} for m in methods}
        for k in range(instances):
            rng = np.random.default_rng([seed, len(FAMILIES), FAMILIES.index(family), k])
            J = b * _symmetric_gaussian(n, rng) / np.sqrt(n)
            h = field_std * rng.standard_normal(n)
            _check_fields("field_std", field_std, [h])
            _solve_into(per, methods, J, h, max_iter)
        sk[family] = {"beta": b, **per}
    return {"n": n, "beta": beta, "instances": instances, "field_std": field_std, "families": out, "sk_matched": sk}


def _solve_into(per: dict[str, Any], methods: Sequence[str], J: np.ndarray, h: np.ndarray, max_iter: int) -> None:
    """Append each theory's RMSE of m against exact enumeration (None where it did not converge) to ``per``."""
    from .accuracy import METHODS, TOL

    exact = exact_marginals(J, h).m
    for m in methods:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MeanFieldWarning)   # a failure is part of the result here
            try:
                r = METHODS[m](J, h, tol=TOL, max_iter=max_iter, on_fail="ignore")
                ok = bool(r.converged) and bool(np.all(np.isfinite(r.m)))
            except FloatingPointError:                          # adaptive TAP's χ left its domain
                r, ok = None, False
        per[m]["converged"].append(ok)
        per[m]["rmse_m"].append(float(np.sqrt(np.mean((r.m - exact) ** 2))) if ok else None)


_LABELS = {"naive": "naive mean field", "tap": "TAP (SK average)", "tap_site": "per-site TAP",
           "adaptive_tap": "adaptive TAP"}


def _check_theories(where: str, per: Any, needs: Sequence[str]) -> None:
    """``per`` (``where`` in a result) as :func:`compare_families` stores one family: theory -> {"rmse_m": [None or an
    error >= 0 per instance], "converged": [True/False per instance]}, holding the theories ``needs``; anything else is
    refused naming the entry (TypeError for a wrong kind, ValueError for a missing theory or a NaN error)."""
    check_rule(where, per, "mapping:" + "|".join(needs))   # a mapping holding the theories needed
    for m, entry in per.items():
        if m in ("second_moment", "beta"):
            continue
        if not isinstance(entry, Mapping) or not all(k in entry for k in ("rmse_m", "converged")):
            raise TypeError(f"{where}[{m!r}] must be a mapping with the lists 'rmse_m' and 'converged'; got {entry!r}"[:200])
        for key in ("rmse_m", "converged"):
            if isinstance(entry[key], (str, bytes, Mapping)) or not isinstance(entry[key], Sequence):
                raise TypeError(f"{where}[{m!r}][{key!r}] must be a list (one entry per instance); got "
                                f"{type(entry[key]).__name__}")
        for v in entry["rmse_m"]:
            if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)):
                raise TypeError(f"{where}[{m!r}]['rmse_m'] must hold errors (numbers) or None; got {v!r}"[:200])
            if v is not None and not v >= 0:
                raise ValueError(f"{where}[{m!r}]['rmse_m'] must hold errors >= 0 or None (no solution); got {v!r}")
        if not all(isinstance(c, (bool, np.bool_)) for c in entry["converged"]):
            raise TypeError(f"{where}[{m!r}]['converged'] must hold True/False per instance")


def _families(result: Mapping[str, Any], needs: Sequence[str] = ()) -> Mapping[str, Any]:
    """``result["families"]``, checked (:func:`_check_theories`): a non-empty mapping of family -> theories, each family
    holding the theories ``needs`` and those of the first family."""
    fams = result["families"]
    if not isinstance(fams, Mapping):
        raise TypeError(f"result['families'] must be a mapping of family -> its theories' errors (compare_families' "
                        f"result); got {type(fams).__name__}")
    if not fams:
        raise ValueError("result['families'] names no family: there is nothing to read")
    first = [m for m in next(iter(fams.values())) if m != "second_moment"] if isinstance(
        next(iter(fams.values())), Mapping) else []
    for family, per in fams.items():
        _check_theories(f"result['families'][{family!r}]", per, (*needs, *first))
    return fams


def _mean(values: Sequence[float | None]) -> float:
    got = [v for v in values if v is not None]
    return float(np.mean(got)) if got else float("nan")


def _paired_ratio(per: dict[str, Any], worse: str) -> float:
    """Adaptive TAP's mean RMSE over ``worse``'s, on the instances both solved (NaN without any)."""
    pairs = [(a, w) for a, w in zip(per["adaptive_tap"]["rmse_m"], per[worse]["rmse_m"]) if a is not None and w]
    return float(np.mean([a for a, _ in pairs]) / np.mean([w for _, w in pairs])) if pairs else float("nan")


@contract(result="mapping:families")
def ratio_text(result: dict[str, Any], worse: str) -> str:
    """Adaptive TAP's error over ``worse``'s ("tap" or "tap_site") in every family of ``result``
    (:func:`compare_families`), in the families' order: "0.16, 0.17 and 0.36". The ratio is over the instances both
    theories solved (``worse``'s error non-zero): a family without any such instance reads "nan"."""
    check_choice("worse", worse, ("tap", "tap_site", "naive"))
    ratios = [f"{_paired_ratio(per, worse):.2f}" for per in _families(result, ("adaptive_tap", worse)).values()]
    return ratios[0] if len(ratios) == 1 else ", ".join(ratios[:-1]) + " and " + ratios[-1]


@contract(result="mapping:families")
def table(result: dict[str, Any]) -> str:
    """A markdown table of :func:`compare_families`: mean RMSE of m per family and theory (instances that converged),
    adaptive TAP's ratio to each TAP, the instances a theory did not converge on, the family's mean strength
    √(Σ_ij J_ij²/n) and adaptive TAP's ratio to TAP on SK couplings of that strength (where stored)."""
    fams = _families(result, ("adaptive_tap", "tap", "tap_site"))
    methods = [m for m in next(iter(fams.values())) if m != "second_moment"]
    sk = result.get("sk_matched", {})
    if not isinstance(sk, Mapping):
        raise TypeError(f"result['sk_matched'] must be a mapping of family -> SK errors; got {type(sk).__name__}")
    for family, per in sk.items():
        _check_theories(f"result['sk_matched'][{family!r}]", per, ("adaptive_tap", "tap"))
    head = ("| family | " + " | ".join(_LABELS.get(m, m) for m in methods)
            + " | adaptive / TAP | adaptive / per-site | not converged |"
            + (" strength √(ΣJ²/n) | SK at that strength: adaptive / TAP |" if sk else ""))
    rows = [head, "|" + "---|" * (len(methods) + 4 + (2 if sk else 0))]
    for family, per in result["families"].items():
        fails = ", ".join(f"{_LABELS.get(m, m)} {sum(not c for c in per[m]['converged'])}" for m in methods
                          if not all(per[m]["converged"])) or "none"
        extra = (f" {np.mean(per['second_moment']):.3f} | {_paired_ratio(sk[family], 'tap'):.2f} |"
                 if family in sk and "second_moment" in per else (" | |" if sk else ""))
        rows.append(f"| {family} | " + " | ".join(f"{_mean(per[m]['rmse_m']):.1e}" for m in methods)
                    + f" | {_paired_ratio(per, 'tap'):.2f} | {_paired_ratio(per, 'tap_site'):.2f} | {fails} |" + extra)
    return "\n".join(rows)
