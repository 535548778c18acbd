r"""The fields' width as a reading of chapter 1's claims at β = 0.5 (a referee's question).

Chapter 1 draws every SK instance's fields as :math:`h_i = \sigma_h \xi_i`, :math:`\xi_i \sim N(0, 1)`, with
:math:`\sigma_h = 0.3` (the profiles' ``field_std``): a choice of ours, which neither the blog nor Opper & Winther fix.
The fields set how large the magnetisations are, hence :math:`1 - m_j^2` in every reaction term, so a factor between
two theories read at one width may not hold at another. This study solves the same 40 instances of 18 spins (the same
seed, hence the same couplings :math:`G_k` and the same :math:`\xi_k`) at β = 0.5 with the fields scaled to several
widths, and stores each theory's per-instance RMSE of m and of the off-diagonal correlations against exact
enumeration. The claims' rules read it as a declared alternative (the fields' width), never as the primary.

Not part of the chapter's run (its stored results do not depend on this module): ``python -m
mfattn.meanfield.field_width`` writes ``data/full/ising/field_width.json`` atomically (about a minute per width on
one CPU thread); the width 0.3 reproduces the chapter's stored per-instance numbers, which the tests check.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from .. import ising
from ..companion import store
from ..companion.checks import check_int, check_real
from ..companion.profiles import get_profile
from .accuracy import _disorder, compare_mean_field

__all__ = ["WIDTHS", "METHODS", "OUT", "field_width_study", "main"]

#: The widths σ_h tried: the chapter's 0.3, a third of it, twice it and a field of order one.
WIDTHS = (0.1, 0.3, 0.6, 1.0)
#: The theories, by the short keys the rules use (:data:`mfattn.meanfield.claims.KEYS`) and their solver names.
METHODS = (("naive", "naive"), ("tap", "tap"), ("atap", "adaptive_tap"), ("tsite", "tap_site"))
#: Where the full-profile study is stored, relative to the project root.
OUT = Path("data", "full", "ising", "field_width.json")


def _per_instance(x: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in x]


def field_width_study(n: int, instances: int, beta: float = 0.5, widths: Sequence[float] = WIDTHS,
                      seed: int = 0) -> dict[str, Any]:
    r"""Each theory's per-instance errors at inverse temperature ``beta`` on the chapter's instances, with the fields
    of width σ_h for each σ_h in ``widths``.

    Instance k has couplings :math:`J = \beta G_k / \sqrt n` and fields :math:`h = \sigma_h \xi_k`
    (:func:`mfattn.meanfield.accuracy.compare_mean_field` with ``field_std = σ_h``: the same :math:`G_k, \xi_k` for
    every σ_h, drawn from ``seed``). Returns ``{"n", "instances", "beta", "seed", "widths": [{"width", "<key>_m_inst",
    "<key>_c_inst", "exact_c_inst", "mean_abs_m"}]}`` for the keys of :data:`METHODS`: per-instance RMSE of m and of
    the off-diagonal correlations (None where a theory failed: not converged, or χ not positive definite, as the
    chapter's summary), the RMS of the exact off-diagonal correlations (the error of C = 0) and the mean |m_i| of the
    exact solution (how strongly the fields magnetise the spins).
    """
    check_int("n", n, 2), check_int("instances", instances, 1), check_int("seed", seed, 0)
    beta = check_real("beta", beta, minimum=0.0)
    if isinstance(widths, (str, bytes)) or not isinstance(widths, Sequence) or not widths:
        raise ValueError(f"widths must be a non-empty sequence of field widths >= 0; got {widths!r}")
    widths = [check_real(f"widths[{i}]", w, minimum=0.0) for i, w in enumerate(widths)]
    if n > ising.MAX_EXACT_SPINS:   # compare_mean_field's own limit, before the widths' draws below
        raise ValueError(f"n = {n} is too large for exact enumeration (at most {ising.MAX_EXACT_SPINS})")
    for i, w in enumerate(widths):   # a width whose fields overflow float64 is refused before any study runs
        _disorder(n, instances, w, seed, name=f"widths[{i}]")
    rows = []
    for w in widths:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ising.MeanFieldWarning)  # a failure is a None in the result
            cmp = compare_mean_field(n, [beta], instances, field_std=w, seed=seed,
                                     methods=tuple(name for _, name in METHODS))
        row: dict[str, Any] = {"width": w, "mean_abs_m": float(np.abs(cmp.m_exact[0]).mean()),
                               "exact_c_inst": _per_instance(cmp.c_exact_rms[0])}
        for k, (key, _) in enumerate(METHODS):
            ok = cmp.ok()[k, 0]   # converged, with a positive-definite inverse susceptibility (as the summary)
            row[f"{key}_m_inst"] = _per_instance(np.where(ok, cmp.rmse_m[k, 0], np.nan))
            row[f"{key}_c_inst"] = _per_instance(np.where(ok, cmp.rmse_c[k, 0], np.nan))
        rows.append(row)
    return {"n": n, "instances": instances, "beta": beta, "seed": seed, "widths": rows}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m mfattn.meanfield.field_width [--profile full] [--out PATH]``: run :func:`field_width_study` at the
    profile's n and instances and write the result atomically."""
    parser = argparse.ArgumentParser(prog="python -m mfattn.meanfield.field_width", description=__doc__.split("\n")[0])
    parser.add_argument("--profile", choices=("quick", "full"), default="full")
    parser.add_argument("--out", type=Path, default=None, help=f"default: <project>/{OUT} (full) or a temporary file")
    args = parser.parse_args(argv)
    sizes = get_profile("ising", args.profile)
    root = store.project_root()
    out = args.out if args.out is not None else (root / OUT if root is not None else Path("field_width.json"))
    store.check_file_target(out, "--out")   # a folder, a device, a FIFO: refused before the study (a minute a width)
    start = time.perf_counter()
    result = field_width_study(sizes["n"], sizes["instances"], seed=0)
    store.atomic_write_json(out, {"profile": args.profile, **result, "seconds": time.perf_counter() - start})
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
