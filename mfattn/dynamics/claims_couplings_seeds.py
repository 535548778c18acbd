"""The symmetrised-coupling controls of chapter 6 read seed by seed (:mod:`.claims_couplings` decides on them): the
stored counts' flat names, each seed's forbidden orbits (tori, chaos, long periods) in the paper's model and in a
control, and the same orbits β by β."""

from __future__ import annotations

import numpy as np

from ..structural.claims_rules import same_units

SEEDS = (1, 2, 3, 4)   # the paper's weight seed and the three after it (verdict_numbers.EXTRA_SEEDS)


def _key(seed: int, kind: str) -> str:
    """The flat name of a control's counts: seed 1's are ``sym_<kind>``, a further seed's ``sym_s<k>_<kind>``."""
    return f"sym_{kind}" if seed == 1 else f"sym_s{seed}_{kind}"


def _seeds(s, pair: str, counts=("nontrivial",)) -> list[tuple[int, float, float]]:
    """``(seed, forbidden orbits of the paper's model, of the control)`` for each stored seed whose paper model has
    some (summed over ``counts``): a seed without them has nothing a symmetrisation could remove."""
    out = []
    for seed in SEEDS:
        p, c = _key(seed, "paper"), _key(seed, pair)
        if seed > 1 and f"{c}_nontrivial" not in s:
            continue   # a run before 0.4 stored the paper's seed only
        paper, kept = (sum(s[f"{k}_{x}"] for x in counts) for k in (p, c))
        if paper > 0:
            out.append((seed, paper, kept))
    return out


def _forbidden_mask(period, lam, counts=("nontrivial",), L: int = 4, tol: float = 1e-3) -> np.ndarray:
    """Per β, whether the orbit is of a kind in ``counts`` (the kinds of
    :func:`~mfattn.dynamics.verdict_numbers.attractor_kinds`: tori, chaotic, long periods; nontrivial = all three)."""
    period, lam = np.asarray(period), np.asarray(lam, dtype=np.float64)
    allowed = [d for d in range(1, 2 * L + 1) if (2 * L) % d == 0 and (d <= 2 or L % d == 0)]
    kinds = {"tori": (period == 0) & (np.abs(lam) <= tol), "chaotic": (period == 0) & (lam > tol),
             "long periods": (period > 0) & ~np.isin(period, allowed)}
    want = ("tori", "chaotic", "long periods") if "nontrivial" in counts else counts
    return np.logical_or.reduce([kinds[k] for k in want])


def _seeds_same_beta(s, pair: str, counts=("nontrivial",)) -> list[tuple[int, float, float]] | None:
    """As :func:`_seeds`, but ``kept`` counts the paper model's β (of the kinds in ``counts``) at which the control
    has a forbidden orbit of any kind at the same β: the same orbits, not a ratio of counts over different β. None
    where a seed's per-β arrays are not stored."""
    out = []
    for seed in SEEDS:
        p, c = _key(seed, "paper"), _key(seed, pair)
        if seed > 1 and f"{c}_nontrivial" not in s:
            continue
        if any(f"{k}_{x}" not in s for k in (p, c) for x in ("betas", "period", "lyapunov")):
            return None
        for k in (p, c):
            same_units(s, f"{k}_betas", f"{k}_period", f"{k}_lyapunov", units="β")
        bp, bc = (np.round(np.asarray(s[f"{k}_betas"], dtype=np.float64), 9) for k in (p, c))
        if bp.shape != bc.shape or not (bp == bc).all():
            return None
        mp = _forbidden_mask(s[f"{p}_period"], s[f"{p}_lyapunov"], counts)
        mc = _forbidden_mask(s[f"{c}_period"], s[f"{c}_lyapunov"])
        if mp.any():
            out.append((seed, float(mp.sum()), float((mp & mc).sum())))
    return out
