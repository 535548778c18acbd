"""Chapter 6's stored full-profile numbers, read for the rules of :mod:`.claims`: the two diagrams
(``data/full/dmft/fig3{a,b}_sections.npz``, :func:`_diagram`), ``summary.json`` and ``beyond.json``, flattened under
the names the rules read (:func:`_flat`). A number a stored run lacks is left out, so a claim that needs it is
"not tested"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import store
from .claims_beyond import beyond_full_numbers, beyond_numbers
from .diagnostics import classify, confusion

__all__ = ["full_numbers", "stored_numbers", "TOL", "L", "LATE", "REMEDY"]

TOL = 1e-3    # |λ_max| below this is zero within the run's resolution (see LAMBDA_HOW)
L = 4         # the context length
LATE = 2.5    # "large β" of Fig. 3a: its last sixth
REMEDY = "`python -m mfattn reproduce --profile full --chapter dmft` writes data/full/dmft/"


def _diagram(d) -> dict[str, Any]:
    """The numbers of one stored diagram (npz of :func:`~.sweep.save_diagram`): the orbits by (period, λ_max) and
    where they change; and, where the file holds the paper's bin count itself (``paper_counts``, files from 0.3
    on), the bin rule's classes, their confusion with the orbits and the first β of each class. Older files held
    only bounds of the count (their ``classes`` were those of the lower bound): the class numbers are then left
    out, and every claim that needs them is "not tested"."""
    b, lam, per = (d[k] for k in ("betas", "lyapunov", "period"))
    orbit = np.where(per > 0, 0, np.where(lam > TOL, 2, 1))  # periodic, torus, chaotic
    first = lambda m: float(b[np.argmax(m)]) if m.any() else float("nan")  # noqa: E731
    chaos = np.nonzero(orbit == 2)[0]
    ft = first(orbit == 1)
    out = {"n_betas": int(b.size), "lambda>1e-3": int((lam > TOL).sum()),
           "first lambda>1e-3 beta": first(lam > TOL), "max period": int(per.max()),
           "orbits periodic": int((orbit == 0).sum()), "orbits torus": int((orbit == 1).sum()),
           "orbits chaotic": int((orbit == 2).sum()), "first torus beta": ft,
           "start period-L share": float((per[b < ft] == L).mean()) if np.isfinite(ft) and (b < ft).any() else 0.0,
           "windows": int(((per > 0) & (b > b[chaos[0]]) & (b < b[chaos[-1]])).sum()) if chaos.size else 0,
           "periodic with lambda>1e-3": int(((per > 0) & (lam > TOL)).sum()),
           "lambda not finite": int((~np.isfinite(lam)).sum()),
           "lambda near TOL": int(((per == 0) & (np.abs(lam) > TOL / 10) & (np.abs(lam) < 10 * TOL)).sum()),
           "late share": float((per[b > LATE] > 0).mean()) if (b > LATE).any() else float("nan"),
           "late max lambda": float(lam[b > LATE].max()) if (b > LATE).any() else float("nan")}
    if "paper_counts" in d:
        c = classify(d["paper_counts"])
        conf = confusion(c, per, lam, TOL)
        out.update({"periodic": int((c == 0).sum()), "quasi-periodic": int((c == 1).sum()),
                    "chaotic": int((c == 2).sum()), "confusion": conf.tolist(),
                    "quasi with period>80": int(((c == 1) & (per > 80)).sum()),
                    "chaotic with lambda<=1e-3": int(conf[2, :2].sum()),
                    "misclassified": int(conf.sum() - np.trace(conf)),
                    "first quasi-periodic beta": first(c == 1), "first chaotic beta": first(c == 2)})
    return out


def full_numbers(root: Path | None) -> dict:
    """Numbers from the stored full profile: per diagram (``fig3a``, ``fig3b``, :func:`_diagram`); ``summary``
    (summary.json, when stored); ``beyond`` (beyond.json, when stored); ``params`` (the full run's sizes from the
    stored figure manifest). {} if nothing is stored."""
    out: dict[str, Any] = {}
    if root is None:
        return out
    folder = Path(root) / "data" / "full" / "dmft"
    for key in ("fig3a", "fig3b"):
        path = folder / f"{key}_sections.npz"
        if path.exists():
            out[key] = _diagram(store.load_npz(path))  # a truncated file is an error naming its path
    if (folder / "summary.json").exists():
        out["summary"] = json.loads((folder / "summary.json").read_text())
    beyond = beyond_full_numbers(Path(root))
    if beyond:
        out["beyond"] = beyond
    manifest = Path(root) / "data" / "full" / "figures" / "manifest.json"
    if out and manifest.exists():
        entries = json.loads(manifest.read_text())
        params = [e.get("parameters") for k, e in entries.items() if k.startswith("fig-dmft-") and e.get("parameters")]
        if params:
            out["params"] = params[0]
    return out


def _flat(full: dict) -> dict[str, Any]:
    """The stored numbers under the names the rules read (only those stored: a missing one makes a claim that
    needs it "not tested")."""
    out: dict[str, Any] = {}
    for key, p in (("fig3a", "a_"), ("fig3b", "z_")):
        for name, v in full.get(key, {}).items():
            out[p + name.replace(" ", "_").replace("-", "_").replace(">", "_gt_").replace("<=", "_le_")] = (
                str(v) if isinstance(v, list) else v)
    s = full.get("summary", {})
    if "fig4" in s:
        f4 = s["fig4"]
        out.update({f"f4_{k}": f4[k] for k in ("betas", "lyapunov", "period", "lyapunov_ours", "period_ours",
                                               "differ", "start", "tau_e", "tau_01")})
        out.update({f"f4_{k}": f4[k] for k in ("lyapunov_windows", "lyapunov_window", "tau_e_windows",
                                               "tau_01_windows", "window_lag", "window_lag_01", "islands") if k in f4})
    if "finite_n" in s:
        fn = s["finite_n"]
        out.update(slope_1=fn["slopes"][0], slope_3=fn["slopes"][1], slope_3_large=fn["slope_beta3_without_first"],
                   n_min=min(fn["Ns"]), n_max=max(fn["Ns"]))
    if "symmetric" in s:
        for name, key in (("paper", "sym_paper"), ("output-value", "sym_ov"), ("query-key", "sym_qk")):
            out.update({f"{key}_{k.replace(' ', '_')}": v for k, v in s["symmetric"][name].items()})
    if "coexist" in s:
        co = s["coexist"]
        out.update(coexist_n=co["n"], coexist_total=co["total"], coexist_tori=co["tori"],
                   coexist_starts=len(co["starts"]),
                   coexist_start_betas=", ".join(f"{b:g}" for b in co["starts"]))
        out.update({f"coexist_{k}": co[k] for k in ("points", "n_last_500") if k in co})
    out.update(beyond_numbers(full.get("beyond", {}), full.get("params", {})))
    return out


def stored_numbers(root: Path | None, chapter: str = "dmft") -> tuple[dict[str, Any], str]:
    """The stored full-profile numbers ({} if none): :func:`full_numbers` (keys ``fig3a, fig3b, summary, beyond,
    params``) with the flat names the rules read added; and the command that makes them."""
    if chapter != "dmft":
        raise ValueError(f"chapter must be 'dmft'; got {chapter!r}")
    full = full_numbers(root)
    return ({**full, **_flat(full)} if full else {}), REMEDY
