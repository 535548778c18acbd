r"""Where the blog's stability sentence has something to test: fixed points whose susceptibility is not positive.

Bal 2021 (§2.2): χ is a covariance matrix and "as soon this property is lost, the fixed-point procedure will no
longer be stable". On the chapter's SK instances with a field every converged solution has a positive-definite χ,
so they never meet the sentence's antecedent. Here it is met on purpose: couplings with a ferromagnetic bias and
no field,

.. math:: J = \beta\,\big(G/\sqrt{n} + (J_0/n)(\mathbf{1}\mathbf{1}^\top - I)\big),\qquad h = 0,

where :math:`m = 0` is a fixed point of every theory's damped update at every β (each update maps 0 to 0), and
where, once the bias has made the paramagnetic point unstable, the linear-response χ there is not positive definite.
Each theory is run twice per (β, instance): started exactly at :math:`m = 0` (it stays there: the *stuck* run, which
shows whether χ at that fixed point is positive definite) and started about :data:`KICK` away from it, along a random
direction plus the softest direction of χ⁻¹ there (the *kicked* run; :func:`_kick` says why both).
Where χ at :math:`m = 0` is not positive definite the sentence predicts the procedure leaves; where it is positive
definite, that it returns (the instrument's positive control). For naive mean field and both TAPs the first is a
theorem (the damped iteration's Jacobian is :math:`I - a D \chi^{-1}`); adaptive TAP, whose cavity variances move
with :math:`m`, has none, and it is the real test.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Set as AbstractSet
from typing import Any, Sequence

import numpy as np

from ..companion.checks import check_int, check_positive, check_real, contract
from ..ising import MeanFieldWarning, sk_couplings

__all__ = ["KICK", "LEFT", "breakdown_stress", "counts", "table"]

#: The kicked run's start: standard-normal entries times this (far below any solution's scale).
KICK = 1e-6
#: A kicked run "left" the paramagnetic point if its mean |m_i| ends above this (a thousand times the kick).
LEFT = 1e-3


@contract()  # its loops' work (n³ per iteration of adaptive TAP) is checked first: mfattn.companion.work
def breakdown_stress(n: int, betas: Sequence[float], instances: int, j0: float = 3.0, damping: float = 0.05,
                     max_iter: int = 20_000, seed: int = 0,
                     methods: Sequence[str] = ("naive", "tap", "tap_site", "adaptive_tap")) -> dict[str, Any]:
    r"""Stuck and kicked runs of each theory of ``methods`` (:data:`mfattn.meanfield.accuracy.METHODS`) on
    ``instances`` ferro-biased zero-field instances of ``n`` spins at each of ``betas`` (the module docstring).

    Instance ``k`` uses :math:`G` from ``default_rng([seed, k])`` (the same at every β) and the random part of its
    kick from ``default_rng([seed, k, 1])`` (:func:`_kick`). Returns ``{"n", "betas", "instances", "j0", "damping", "kick", "left",
    "by_method": {method: {"stuck_converged", "stuck_positive", "stuck_lambda", "kicked_converged",
    "kicked_positive", "kicked_m"}}}``, each a [beta][instance] list (``stuck_lambda``: the smallest eigenvalue of χ
    at :math:`m = 0`; ``kicked_m``: the kicked run's final mean :math:`|m_i|`, None where it is not finite). The work
    grows as ``len(methods) · len(betas) · instances · max_iter · n²`` (n³ for adaptive TAP, which inverts an n × n
    matrix each iteration): a call beyond the work budget is refused before it starts (:mod:`mfattn.companion.work`)."""
    from .accuracy import METHODS

    n = check_int("n", n, minimum=2, maximum=4096)
    if isinstance(betas, (str, bytes, Mapping, AbstractSet)) or not hasattr(betas, "__iter__"):   # a dict: its keys
        raise TypeError(f"betas must be a sequence of inverse temperatures; got {type(betas).__name__}")
    betas = [check_positive("betas", b) for b in betas]
    if not betas:
        raise ValueError("betas must name at least one inverse temperature")
    instances = check_int("instances", instances, minimum=1, maximum=10_000)
    j0 = check_real("j0", j0, minimum=0.0, maximum=1e6)
    damping = check_real("damping", damping, minimum=0.0, maximum=1.0, strict=True)
    max_iter = check_int("max_iter", max_iter, minimum=1, maximum=10**7)
    seed = check_int("seed", seed, minimum=0)
    if isinstance(methods, str) or not methods:
        raise ValueError(f"methods must be a non-empty sequence of names from {tuple(METHODS)}; got {methods!r}")
    for m in methods:
        if not isinstance(m, str) or m not in METHODS:   # a list is no theory's name (and unhashable)
            raise ValueError(f"methods must name theories from {tuple(METHODS)}; got {m!r}")
    twice = sorted({m for m in methods if list(methods).count(m) > 1})
    if twice:   # by_method is keyed by the theory: a second run would append to the first's lists
        raise ValueError(f"methods must name each theory once (the result is keyed by theory); got {twice} more "
                         f"than once")
    fields = ("stuck_converged", "stuck_positive", "stuck_lambda", "kicked_converged", "kicked_positive", "kicked_m")
    out = {m: {f: [[] for _ in betas] for f in fields} for m in methods}
    bias = j0 / n * (np.ones((n, n)) - np.eye(n))
    for k in range(instances):
        G = sk_couplings(n, 1.0, np.random.default_rng([seed, k]))
        noise = np.random.default_rng([seed, k, 1]).standard_normal(n)
        for b, beta in enumerate(betas):
            J = beta * (G + bias)
            for m in methods:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MeanFieldWarning)   # a run that does not converge is data here
                    got = {}
                    try:
                        got["stuck"] = METHODS[m](J, np.zeros(n), damping=damping, max_iter=max_iter,
                                                  m0=np.zeros(n), on_fail="ignore")
                    except FloatingPointError:                          # adaptive TAP's χ left its domain
                        got["stuck"] = None
                    try:
                        got["kicked"] = METHODS[m](J, np.zeros(n), damping=damping, max_iter=max_iter,
                                                   m0=_kick(got["stuck"], noise), on_fail="ignore")
                    except FloatingPointError:
                        got["kicked"] = None
                row, stuck, kicked = out[m], got["stuck"], got["kicked"]
                finite = kicked is not None and bool(np.all(np.isfinite(kicked.m)))
                row["stuck_converged"][b].append(stuck is not None and bool(stuck.converged))
                row["stuck_positive"][b].append(stuck is not None and bool(stuck.chi_positive))
                row["stuck_lambda"][b].append(float(stuck.lambda_min) if stuck is not None
                                              and np.isfinite(stuck.lambda_min) else None)
                row["kicked_converged"][b].append(finite and bool(kicked.converged))
                row["kicked_positive"][b].append(finite and bool(kicked.chi_positive))
                row["kicked_m"][b].append(float(np.abs(kicked.m).mean()) if finite else None)
    return {"n": n, "betas": [float(b) for b in betas], "instances": instances, "j0": float(j0),
            "damping": float(damping), "kick": KICK, "left": LEFT, "by_method": out}


def _kick(stuck: Any, noise: np.ndarray) -> np.ndarray:
    """The kicked run's start: :data:`KICK` times ``noise`` plus the softest direction of χ⁻¹ at the stuck point
    (its eigenvector of the smallest eigenvalue, negative where χ is not positive definite) at the norm of the noise.
    A random kick alone can miss that direction: one start in a few thousand has a component of 10⁻⁹ along it, and
    its stable components decay below the tolerance before the unstable one has grown, so the run would stop next to
    a point that repels it and count as a counterexample."""
    n = noise.size
    if stuck is None or not np.all(np.isfinite(stuck.chi)):
        return KICK * noise
    try:
        inv = np.linalg.inv(stuck.chi)
    except np.linalg.LinAlgError:
        return KICK * noise
    inv = (inv + inv.T) / 2
    if not np.all(np.isfinite(inv)):
        return KICK * noise
    v = np.linalg.eigh(inv)[1][:, 0]
    return KICK * (noise + np.linalg.norm(noise) * v / max(np.linalg.norm(v), 1e-300)) / np.sqrt(2.0 if n else 1.0)


def counts(stress: dict[str, Any], method: str) -> dict[str, int]:
    """What the sentence is tested on, for one theory of a :func:`breakdown_stress` result. Over the points whose
    stuck run converged at m = 0 with a χ that is not positive definite (``met``: the antecedent), the kicked runs:
    ``stayed``, converged to a fixed point whose χ is not positive definite either (the procedure stable where χ is
    not positive: a counterexample); ``landed``, converged to a solution whose χ is positive definite (``landed_zero``
    of them back within :data:`LEFT` of m = 0: adaptive TAP's cavity variances have several self-consistent values at
    m = 0, and the kick moves them to a branch with a positive χ); ``drifting``, still moving when the budget ran out
    (not settled on the point: it repels them, slowly where χ⁻¹'s negative eigenvalue is small). The positive
    control, over the points whose χ at m = 0 is positive definite (``control``): ``returned``, kicked runs that
    ended within :data:`LEFT` of m = 0 (converged back, or still relaxing towards it along a soft mode)."""
    if not isinstance(stress, dict) or "by_method" not in stress:
        raise TypeError("stress must be a breakdown_stress result (a dict with 'by_method')")
    if not isinstance(stress["by_method"], Mapping):
        raise TypeError(f"stress['by_method'] must be a mapping of theory -> its runs; got "
                        f"{type(stress['by_method']).__name__}")
    if not isinstance(method, str) or method not in stress["by_method"]:
        raise ValueError(f"method must be one of {sorted(stress['by_method'])}; got {method!r}")
    row = stress["by_method"][method]
    _check_runs(f"stress['by_method'][{method!r}]", row)
    left = stress.get("left", LEFT)
    if isinstance(left, bool) or not isinstance(left, numbers.Real):
        raise TypeError(f"stress['left'] must be a number (the mean |m_i| a kicked run leaves beyond); got {left!r}")
    if not left >= 0:
        raise ValueError(f"stress['left'] must be >= 0; got {left!r}")
    got = dict(met=0, stayed=0, landed=0, landed_zero=0, drifting=0, control=0, returned=0)
    for b in range(len(row["stuck_converged"])):
        for conv, pos, kc, kp, km in zip(*(row[f][b] for f in ("stuck_converged", "stuck_positive", "kicked_converged",
                                                                "kicked_positive", "kicked_m"))):
            if not conv:
                continue
            back = bool(kc) and km is not None and km <= left
            if not pos:
                got["met"] += 1
                got["stayed"] += int(bool(kc) and not kp)
                got["landed"] += int(bool(kc) and bool(kp))
                got["landed_zero"] += int(back and bool(kp))
                got["drifting"] += int(not kc)
            else:   # stable: the kicked run came back, or is still relaxing within LEFT of m = 0 (a soft mode)
                got["control"] += 1
                got["returned"] += int(km is not None and km <= left)
    return got


def _check_runs(where: str, row: Any) -> None:
    """One theory's runs as :func:`breakdown_stress` stores them: the fields :func:`counts` reads, each a list per β
    of one entry per instance, all of the same lengths, ``kicked_m`` numbers or None; refused naming the entry."""
    fields = ("stuck_converged", "stuck_positive", "kicked_converged", "kicked_positive", "kicked_m")
    if not isinstance(row, Mapping) or not all(f in row for f in fields):
        raise TypeError(f"{where} must be a mapping holding {list(fields)} (breakdown_stress' runs); got {row!r}"[:200])
    lengths = set()
    for f in fields:
        rows = row[f]
        if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) or any(
                isinstance(r, (str, bytes)) or not isinstance(r, Sequence) for r in rows):
            raise TypeError(f"{where}[{f!r}] must be a list per β of one entry per instance; got {rows!r}"[:200])
        lengths.add(tuple(len(r) for r in rows))
    if len(lengths) > 1:
        raise ValueError(f"{where}: the fields {list(fields)} must have the same number of β and of instances; got "
                         f"the lengths {sorted(lengths)}")
    if any(v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real)) for r in row["kicked_m"] for v in r):
        raise TypeError(f"{where}['kicked_m'] must hold numbers or None")


_LABELS = {"naive": "naive mean field", "tap": "TAP (SK average)", "tap_site": "per-site TAP",
           "adaptive_tap": "adaptive TAP"}


@contract(stress="mapping:by_method")
def table(stress: dict[str, Any]) -> str:
    """A markdown table of :func:`counts` for every theory of a :func:`breakdown_stress` result."""
    rows = ["| theory | χ at m = 0 not positive (antecedent met) | kicked run settled on a positive χ | of them at m = 0 "
            "(another V) | still leaving at the budget | stayed where χ is not positive | χ at m = 0 positive | "
            "kicked run came back |", "|---|---|---|---|---|---|---|---|"]
    if not isinstance(stress["by_method"], Mapping):
        raise TypeError(f"stress['by_method'] must be a mapping of theory -> its runs; got "
                        f"{type(stress['by_method']).__name__}")
    for m in stress["by_method"]:
        c = counts(stress, m)
        rows.append(f"| {_LABELS.get(m, m)} | {c['met']} | {c['landed']} | {c['landed_zero']} | {c['drifting']} | "
                    f"{c['stayed']} | {c['control']} | {c['returned']} |")
    return "\n".join(rows)
