"""The numbers behind chapter 6's verdicts that the stored diagrams do not hold: Fig. 4 and 5 (λ_max, periods,
decay times of the autocorrelation), the coexistence of attractors and the finite-N slopes.

:func:`summary` turns the chapter's results into plain JSON; the full profile writes it to
``data/full/dmft/summary.json``, which :mod:`.claims` reads to decide the verdicts. (It computes stored numbers,
so it lives here, inside the results' code digest, and not in the claims module, which only decides.)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .diagnostics import envelope_decay_time, island_count, stroboscopic_section
from ..companion.checks import contract

__all__ = ["summary", "decay_times", "window_decay_times", "plain", "WINDOW_LAG", "attractor_kinds", "symmetric_control"]

#: Lags of the per-window decay times to 1/e: windows of 4·WINDOW_LAG + 1 steps (ρ is read up to half a window),
#: long enough for the chaotic 1/e times of Fig. 4 (10-100 steps). The decay to 0.1 needs the chapter's 2000 lags
#: (windows of 8001 steps): on shorter windows the estimation noise of ρ (~1/√window) holds the envelope near 0.1.
WINDOW_LAG = 500


@contract(x="array", max_lag="int:1", period="int:1")
def decay_times(x, max_lag: int = 2000, period: int = 4) -> list[float | None]:
    """Decay times of the autocorrelation's envelope of the series ``x`` to 1/e and to 0.1 (None where it never
    falls within the window), after removing the response locked to the positional forcing of ``period``.

    The window is ``max_lag`` lags (the chapter's 2000), shortened to what a short series allows ((T − 1) // 4).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size < 5:
        raise ValueError(f"x must be a 1-d series of at least 5 values; got shape {x.shape}")
    lag = min(max_lag, (x.size - 1) // 4)
    t = envelope_decay_time(x, lag, period=period), envelope_decay_time(x, lag, 0.1, period=period)
    return [None if math.isinf(v) else v for v in t]


@contract(x="array", max_lag="int:1", period="int:1")
def window_decay_times(x, max_lag: int = WINDOW_LAG, period: int = 4) -> list[list[float | None]]:
    """:func:`decay_times` over consecutive windows of ``4 max_lag + 1`` steps of the series ``x``: one
    ``[to 1/e, to 0.1]`` pair per window (None where it never falls within ``max_lag``). Their spread is the
    window-to-window fluctuation of the decay times of one orbit."""
    x = np.asarray(x, dtype=np.float64)
    n = 4 * max_lag + 1
    return [decay_times(x[i:i + n], max_lag, period) for i in range(0, x.size - n + 1, n)]


def attractor_kinds(period, lam, L: int = 4, tol: float = 1e-3) -> dict[str, int]:
    """Counts of the orbits of a diagram that a symmetric coupling forbids: ``tori`` (no period, |λ_max| <= tol),
    ``chaotic`` (no period, λ_max > tol), ``long periods`` (a period not dividing lcm(2, L): a Hopfield network
    with symmetric couplings and parallel updates reaches fixed points and 2-cycles only, and the period-L forcing
    multiplies that by L at most) and their total ``nontrivial``; ``max period`` and ``n``."""
    period, lam = np.asarray(period), np.asarray(lam)
    allowed = [d for d in range(1, 2 * L + 1) if (2 * L) % d == 0 and (d <= 2 or L % d == 0)]
    tori = int(((period == 0) & (np.abs(lam) <= tol)).sum())
    chaos = int(((period == 0) & (lam > tol)).sum())
    long = int(((period > 0) & ~np.isin(period, allowed)).sum())
    return {"n": int(period.size), "tori": tori, "chaotic": chaos, "long periods": long,
            "nontrivial": tori + chaos + long, "max period": int(period.max())}


def symmetric_control(betas, steps: int, transient: int, *, backend: str = "numpy", device=None,
                      out_dir=None) -> dict[str, dict[str, int]]:
    """The control of the asymmetric-couplings claim: sweeps of the paper's model and of its two symmetrisations
    (:func:`~mfattn.dynamics.model.symmetrised_model`) over ``betas`` from the initial token, each summarised by
    :func:`attractor_kinds`. Returns ``{"paper": ..., "output-value": ..., "query-key": ...}``."""
    from .model import SYMMETRISATIONS, paper_model, symmetrised_model
    from .sweep import sweep

    models = {"paper": paper_model(), **{k: symmetrised_model(k) for k in SYMMETRISATIONS}}
    out = {}
    for name, m in models.items():
        r = sweep(betas, steps, transient, "token", model=m, lyapunov=True, backend=backend, device=device,
                  out_dir=out_dir, progress=False)
        out[name] = attractor_kinds(r.period, r.lyapunov, m.context_size)
    return out


def plain(obj):
    """Arrays and numpy scalars as plain lists and numbers (the JSON the verdicts read back)."""
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def summary(sizes, diagrams, fig4_betas, planes, plane_periods, ours, ours_periods, cmp4, has_ref, ctx_results,
            coexist, both_tori, slopes, Ns, errs, lam_windows=None, coexist_extra=None,
            symmetric=None) -> dict[str, Any]:
    """The numbers behind the verdicts that the stored diagrams do not hold (JSON-able).

    ``planes``/``ours``: the Fig. 4 runs from the paper's context and from ours (their periods, and ``cmp4`` the
    comparison of their attractors); ``ctx_results``: the sweeps from each starting context and ``coexist`` /
    ``both_tori`` the β where they differ; ``slopes``, ``Ns``, ``errs``: the finite-N errors and their fits;
    ``lam_windows`` (B, W): λ_max of the Fig. 4 runs over windows of one orbit
    (:func:`~mfattn.dynamics.lyapunov.finite_time_lyapunov`); ``coexist_extra``: further coexistence numbers
    (stored under ``coexist``); ``symmetric``: :func:`symmetric_control`'s counts. The Fig. 4 numbers also hold the decay times per window
    (:func:`window_decay_times`) and the pieces of each stroboscopic section (:func:`~.diagnostics.island_count`).
    """
    if not isinstance(sizes, dict) or not {"protocol", "steps", "transient"} <= set(sizes):
        raise ValueError("sizes must be the chapter's sizes (a dict with protocol, steps, transient)")
    taus = [decay_times(x) for x in planes.m_o[:, :, 0]]
    win_taus = [window_decay_times(x) for x in planes.m_o[:, :, 0]]
    long_taus = [window_decay_times(x, 2000) for x in planes.m_o[:, :, 0]]
    strobe = stroboscopic_section(planes.m_o, 4, 0, planes.transient)
    islands = [island_count(x) if len(x) >= 64 else None for x in strobe]
    Ns, errs = np.asarray(Ns), np.asarray(errs, dtype=np.float64)
    # β = 3 without the smallest N (off the orbit's phase there): the slope over the large-N range
    fit = np.polyfit(np.log(Ns[1:].astype(np.float64)), np.log(errs[1, 1:]), 1)[0] if len(Ns) > 2 else float("nan")
    return plain({
        "protocol": sizes["protocol"], "steps": sizes["steps"], "transient": sizes["transient"],
        "fig4": {"betas": fig4_betas, "start": "paper" if has_ref else "ours", "lyapunov": planes.lyapunov,
                 "period": plane_periods, "lyapunov_ours": ours.lyapunov, "period_ours": ours_periods,
                 "differ": cmp4["differ"], "distance": cmp4["distance"], "scale": cmp4["scale"],
                 "tau_e": [t[0] for t in taus], "tau_01": [t[1] for t in taus],
                 "tau_e_windows": [[w[0] for w in ws] for ws in win_taus], "window_lag": WINDOW_LAG,
                 "tau_01_windows": [[w[1] for w in ws] for ws in long_taus], "window_lag_01": 2000,
                 "islands": islands,
                 **({} if lam_windows is None else {"lyapunov_windows": np.asarray(lam_windows),
                                                    "lyapunov_window": int(planes.m_o.shape[1]
                                                                           // np.shape(lam_windows)[1])})},
        "coexist": {"n": int(np.sum(coexist)), "total": int(np.size(coexist)), "tori": int(np.sum(both_tori)),
                    "starts": list(ctx_results), **(coexist_extra or {})},
        "finite_n": {"Ns": Ns, "slopes": slopes, "slope_beta3_without_first": fit},
        "fig3_rerun": {k: int(r.undecided().size) for k, r in diagrams.items()},
        **({} if symmetric is None else {"symmetric": symmetric}),
    })
