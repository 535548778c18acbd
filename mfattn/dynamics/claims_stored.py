"""Chapter 6's stored full-profile numbers, read for the rules of :mod:`.claims`: the two diagrams
(``data/full/dmft/fig3{a,b}_sections.npz``, :func:`_diagram`), ``summary.json`` and ``beyond.json``, flattened under
the names the rules read (:func:`_flat`, :func:`beyond_numbers`); and :func:`glue_values`, the strings of the stored
numbers that the chapter's prose shows. A number a stored run lacks is left out, so a claim that needs it is "not
tested"."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from ..companion import store
from ..companion.checks import check_int, check_path, check_rule
from ..companion.verdicts import Undecidable
from .claims_lambda import LC, LT, derived
from .diagnostics import classify, confusion

__all__ = ["full_numbers", "stored_numbers", "TOL", "L", "LATE", "REMEDY", "PAPER", "FIG4", "MISSING", "NOT_RUN",
           "NOT_RUN_SHORT", "SYM_SHORT"]

TOL = 1e-3    # the λ threshold of the stored diagrams' own summaries and of the prose's numbers (the verdicts' classes:
#               claims_lambda, LT and LC)
L = 4         # the context length
LATE = 2.5    # "large β" of Fig. 3a: its last sixth
REMEDY = "`python -m mfattn reproduce --profile full --chapter dmft` writes data/full/dmft/"
PAPER = "Poc-López & Aguilera 2024"
FIG4 = (1.255, 1.26405, 1.266, 1.27, 1.28, 1.4)


def beyond_full_numbers(root: Path | None) -> dict:
    """The numbers the full profile's "Beyond the paper" section stores in ``data/full/dmft/beyond.json``
    ({} if absent): ``ns_beta, ns_angle, ns_rotation, rho_birth, plateaus, tongue_locked, basins_multi,
    network_slope, network_chi2_z, network_errors, spectrum_max`` (and, from later runs, the per-ε locked
    shares of the tongue grid and the basins' sizes). ``root``: the checkout (an existing folder) or None; the file
    must hold a JSON object."""
    if root is None:
        return {}
    path = _root_folder(root) / "data" / "full" / "dmft" / "beyond.json"
    if not path.exists():
        return {}
    return store.read_object(path, "beyond section's numbers")   # a regular file, bounded, an object at its top


def _root_folder(root: Any) -> Path:
    """``root`` as a Path if it is an existing folder (the checkout whose data/ holds the stored numbers)."""
    root = check_path("root", root)
    if not root.is_dir():
        raise ValueError(f"root must be an existing folder (the checkout whose data/ holds the stored numbers); got "
                         f"{root}")
    return root


def plateau_summary(found: list[dict], top: int = 5) -> str:
    """The staircase's main plateaus for the ledger: the ``top`` widest (fraction, β interval, width), widest
    first, then how many narrower ones there are and their fractions in increasing order (``found`` from
    :func:`mfattn.dynamics.rotation.plateaus`)."""
    if isinstance(found, (str, bytes)) or not isinstance(found, (list, tuple)) or not all(
            isinstance(p, dict) and {"fraction", "beta_lo", "beta_hi"} <= set(p) for p in found):
        raise TypeError("found must be a list of plateaus (dicts with fraction, beta_lo, beta_hi); got "
                        f"{type(found).__name__}")
    check_int("top", top, 0)
    for p in found:
        try:
            Fraction(p["fraction"])
            if isinstance(p["fraction"], (bool, float)):
                raise TypeError
        except (TypeError, ValueError, ZeroDivisionError):
            raise ValueError(f"found: each plateau's fraction must be a fraction p/q (a string such as '1/4', or an "
                             f"int); got {p['fraction']!r}") from None
        lo, hi = p["beta_lo"], p["beta_hi"]
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (lo, hi)):
            raise ValueError(f"found: each plateau's beta_lo and beta_hi must be finite numbers; got {lo!r} and {hi!r}")
    ranked = sorted(found, key=lambda p: (-(p["beta_hi"] - p["beta_lo"]), p["beta_lo"]))
    text = "; ".join(f"{p['fraction']} on β ∈ [{p['beta_lo']:.5f}, {p['beta_hi']:.5f}] "
                     f"(width {p['beta_hi'] - p['beta_lo']:.1e})" for p in ranked[:top]) or "none"
    rest = ranked[top:]
    if rest:
        text += (f"; and {len(rest)} narrower (each ≤ {max(p['beta_hi'] - p['beta_lo'] for p in rest):.1e} wide: "
                 + ", ".join(sorted({p["fraction"] for p in rest}, key=Fraction)) + ")")
    return text


MISSING = "(not in the stored full run)"

#: The text's run length was not run: what it would decide (said in the verdicts on orbits and in the chapter).
NOT_RUN = ("The stored diagrams run the paper code's protocol, 1.2·10⁵ steps with 10⁵ discarded; the text's, 1.2·10⁶ "
           "with 10⁶ discarded, is run for Fig. 3a once (its kinds of orbit against the code's protocol in the note of "
           "dmft-route-to-chaos, and an alternative there); the zoom at the text's length is not run (about an hour "
           "on one CPU thread).")
NOT_RUN_SHORT = "The zoom at the text's 1.2·10⁶-step protocol was not run (see how)."


def check_run(run) -> None:
    """``run`` must be a chapter run: the claims' record functions call its ``verdict``."""
    if not callable(getattr(run, "verdict", None)):
        raise TypeError(f"run must be the chapter's run (a ChapterRun, with a verdict method); got {type(run).__name__}")


def glue_values(full: dict) -> dict[str, str]:
    """The strings the chapter's paper-scale prose glues, with a plain note where the stored run lacks one."""
    check_rule("full", full, "mapping")
    for key in ("summary", "fig3a", "fig3b"):
        if key in full and not isinstance(full[key], dict):
            raise TypeError(f"full[{key!r}] must be a dict (the stored {key} numbers); got {type(full[key]).__name__}")
    g: dict[str, str] = {}
    s = full.get("summary", {})
    g["full-protocol"] = (f"\"{s['protocol']}\" ({s['steps']:.1e} steps, {s['transient']:.1e} discarded)"
                          if s else "\"paper-code\" (1.2e+05 steps, 1.0e+05 discarded)")
    for key in ("fig3a", "fig3b"):
        d = full.get(key)
        for name in ("periodic", "quasi-periodic", "chaotic", "quasi with period>80", "chaotic with lambda<=1e-3",
                     "lambda>1e-3"):
            g[f"full-{key}-{name.replace(' ', '-').replace('>', 'gt').replace('<=', 'le')}"] = \
                str(d[name]) if d and name in d else MISSING  # the class numbers need the paper's count itself
        for r in range(3):
            for c in range(3):
                g[f"full-conf-{key}-{r}{c}"] = str(d["confusion"][r][c]) if d and "confusion" in d else MISSING
    zoom = full.get("fig3b", {})
    g["full-first-quasi"] = (f"{zoom['first quasi-periodic beta']:.4f}" if "first quasi-periodic beta" in zoom
                             else MISSING)
    g["full-first-chaos"] = f"{full['fig3b']['first lambda>1e-3 beta']:.4f}" if "fig3b" in full else MISSING
    f4 = s.get("fig4")
    g["full-fig4-start"] = ({"paper": "the paper's stored context", "ours": "our own context"}[f4["start"]]
                            if f4 else MISSING)
    g["full-fig4-differ"] = (", ".join(f"{b:g}" for b, d in zip(f4["betas"], f4["differ"]) if d) or "none"
                             if f4 else MISSING)
    for i, b in enumerate(FIG4):
        ok = f4 and len(f4["betas"]) > i and abs(f4["betas"][i] - b) < 1e-12
        g[f"full-lam-{b:g}"] = f"{f4['lyapunov'][i]:+.3g}" if ok else MISSING
        for name, k in (("tau", "tau_e"), ("tau01", "tau_01")):
            g[f"full-{name}-{b:g}"] = ((f"{f4[k][i]:.0f} steps" if f4[k][i] is not None else "beyond 2000 steps")
                                       if ok else MISSING)
    co = s.get("coexist")
    for name in ("n", "total", "tori"):
        g[f"full-coexist-{name}"] = str(co[name]) if co else MISSING
    for i, b in enumerate(FIG4):   # the spectral line of each Fig. 4 orbit and its power below 1/L (0.4 on)
        sp = f4.get("spectral") if f4 else None
        ok = sp is not None and len(sp) > i and abs(f4["betas"][i] - b) < 1e-12
        g[f"full-line-{b:g}"] = f"{sp[i]['line']:.3f}" if ok else MISSING
        g[f"full-lowshare-{b:g}"] = f"{sp[i]['low_share']:.0%}" if ok else MISSING
    sym = s.get("symmetric", {})
    for name in ("paper", "output-value", "query-key", "value-output", "cycled",
                 *(f"seed{k}-{x}" for k in (2, 3, 4) for x in ("paper", "output-value", "query-key"))):
        for count in ("n", "nontrivial", "chaotic", "tori", "long periods"):
            g[f"full-sym-{_sym_short(name)}-{count.replace(' ', '-')}"] = (str(sym[name][count]) if name in sym
                                                                           else MISSING)
    fn = s.get("finite_n")
    h = (fn or {}).get("horizon")
    if h:   # the chaotic β's slopes inside (t = 10: all N, the three largest) and beyond (t = 40) the horizon
        fit = lambda t, k=0: _slope_and_error(fn["Ns"][k:], h["errors"][h["times"].index(t)][k:])[0]  # noqa: E731
        g.update({"full-horizon-slope": f"{fit(10, -3):.2f}", "full-horizon-slope-all": f"{fit(10):.2f}",
                  "full-horizon-slope-40": f"{fit(40):.2f}"})
    else:
        g.update({k: MISSING for k in ("full-horizon-slope", "full-horizon-slope-all", "full-horizon-slope-40")})
    g["full-slope"] = f"{fn['slopes'][0]:.2f}" if fn else MISSING
    g["full-slope-beta3"] = f"{fn['slopes'][1]:.2f}" if fn else MISSING
    g["full-slope-beta3-large-n"] = f"{fn['slope_beta3_without_first']:.2f}" if fn else MISSING
    g.update(_glue_04(full, s, f4))
    return g


def _glue_04(full: dict, s: dict, f4: dict | None) -> dict[str, str]:
    """The glue of the numbers runs from 0.4 on store (spectral flatness, the autocorrelation lag by lag, λ over four
    times the window, the map's deviations, the query-key control's chaos per seed, the tongues' ρ₀)."""
    from .claims_couplings import _chaos_units   # (imported here: those modules import this one)
    from .claims_tongues import circle_rotations, tongue_table

    g: dict[str, str] = {}
    for i, b in enumerate(FIG4):
        ok = f4 and len(f4["betas"]) > i and abs(f4["betas"][i] - b) < 1e-12
        sp = (f4.get("spectral") or [None] * 6)[i] if ok else None
        mem = (f4.get("memory") or [None] * 6)[i] if ok else None
        g[f"full-flat-{b:g}"] = f"{sp['flatness']:.2g}" if sp and "flatness" in sp else MISSING
        g[f"full-top10-{b:g}"] = f"{sp['top10_share']:.0%}" if sp and "top10_share" in sp else MISSING
        g[f"full-first-cross-{b:g}"] = str(mem["first_crossing"]) if mem else MISSING
        g[f"full-beyond-{b:g}"] = f"{mem['beyond_context']:.2f}" if mem else MISSING
        g["full-noise-floor"] = f"{mem['noise_floor']:.3f}" if mem else g.get("full-noise-floor", MISSING)
    w = s.get("window_control")
    if w:
        lam, lng, per = (np.asarray(w[k], dtype=np.float64) for k in ("lyapunov", "lyapunov_long", "period_long"))
        lt, lc = LT, LC   # the λ classes the verdicts use
        tor, cha = np.abs(lam) <= lt, lam > lc
        g.update({"full-window-tori": str(int(tor.sum())), "full-window-chaos": str(int(cha.sum())),
                  "full-window-tori-kept": str(int((tor & (per == 0) & (np.abs(lng) <= lt)).sum())),
                  "full-window-chaos-kept": str(int((cha & (per == 0) & (lng > lc)).sum())),
                  "full-window-torus-ratio": f"{np.median(np.abs(lng[tor & (lam != 0)]) / np.abs(lam[tor & (lam != 0)])):.2f}",
                  "full-window-chaos-ratio": f"{np.median(lng[cha] / lam[cha]):.2f}",
                  "full-window-steps": f"{w['window_long']:,}"})
    else:
        g.update({f"full-window-{k}": MISSING for k in ("tori", "chaos", "tori-kept", "chaos-kept", "torus-ratio",
                                                        "chaos-ratio", "steps")})
    m = s.get("map")
    g["full-map-expansion"] = f"{max(m['expansion_vs_classes']):.1e}" if m else MISSING
    g["full-map-direct"] = f"{max(m['classes_vs_direct']):.1e}" if m else MISSING
    g["full-map-context"] = (MISSING if not m else "(not compared: the paper's data were not available)"
                             if m.get("context_beta3") is None else f"{m['context_beta3']:.1e}")
    flat = _flat(full) if full else {}
    try:
        units = _chaos_units(flat) if flat else None
    except KeyError:   # a run before 0.4: no per-β arrays of the controls
        units = None
    g["full-qk-chaos-kept"] = ("; ".join(f"seed {seed}: {kept:.0f} of {paper:.0f}" for seed, paper, kept in units)
                               if units else MISSING)
    try:
        table = tongue_table(flat)
        betas, rho, on = circle_rotations(flat)
        g["full-tongue-regions"] = "; ".join(f"{f}: " + (f"ρ₀ = {f} at β ≈ {b:.4f}" if b is not None else "not reached")
                                             for f, b in table.items()) or "none"
        g["full-rho0-max"] = f"{np.nanmax(np.where(on, rho, np.nan)):.3f}"
    except (Undecidable, KeyError, ValueError):   # a run before 0.4 (widths only) or no grid: said, not guessed
        g["full-tongue-regions"] = g["full-rho0-max"] = MISSING
    return g


def _slope_and_error(ns, errors) -> tuple[float, float]:
    """Least-squares slope of log(error) against log(N) and its standard error from the fit's residuals."""
    with np.errstate(divide="ignore", invalid="ignore"):   # a zero or negative error: a NaN slope, said as such
        x, y = np.log(np.asarray(ns, dtype=np.float64)), np.log(np.asarray(errors, dtype=np.float64))
    # the closed form, not np.polyfit: LAPACK's least squares differs in the last bits between numpy builds, and
    # the ledger stores this number exactly
    dx = x - x.mean()
    slope, dof = float((dx * (y - y.mean())).sum() / (dx ** 2).sum()), x.size - 2
    icpt = y.mean() - slope * x.mean()
    if dof < 1:
        return float(slope), float("nan")
    resid = y - (slope * x + icpt)
    return float(slope), float(np.sqrt((resid ** 2).sum() / dof / ((x - x.mean()) ** 2).sum()))


def beyond_numbers(b: dict, params: dict) -> dict[str, Any]:
    """The beyond section's stored numbers ``b`` (beyond.json) flattened for the rules; ``params`` are the full
    run's sizes (from the stored figure manifest) for what beyond.json does not hold (basin sample, network Ns)."""
    for name, value in (("b", b), ("params", params)):
        if not isinstance(value, dict):
            raise TypeError(f"{name} must be a dict (beyond.json's numbers, the run's sizes); got {type(value).__name__}")
    for k in ("ns_beta", "ns_angle", "ns_rotation", "rho_birth"):
        x = b.get(k)
        if x is not None and (isinstance(x, bool) or not isinstance(x, (int, float))):
            raise TypeError(f"b[{k!r}] must be a number or None (no crossing); got {type(x).__name__} {x!r:.40}")
    out: dict[str, Any] = {k: b[k] for k in ("ns_beta", "ns_angle", "ns_rotation", "rho_birth", "tongue_locked",
                                             "network_slope", "network_chi2_z") if k in b}
    for k in ("ns_beta", "ns_angle", "ns_rotation", "rho_birth"):  # NaN/None (no crossing) as None
        if k in out and (out[k] is None or not math.isfinite(out[k])):
            out[k] = None
    if "spectrum_max" in b:
        spec = list(b["spectrum_max"])
        out.update(lam1_max=spec[0], lam2_max=spec[1] if len(spec) > 1 else None, spectrum_k=len(spec))
    if "spectrum" in b and "spectrum_betas" in b:   # per β (issue 43): the torus half is decided on them
        out.update(spectrum_betas=list(b["spectrum_betas"]), spectrum=[list(r) for r in b["spectrum"]])
    # plateaus from 0.3 on are periodic orbits (each entry has its largest λ_max); older lists were runs of ρ within
    # 1e-4 of a fraction, which any monotone ρ(β) gives: they are left out, and the staircase is not tested
    if isinstance(b.get("plateaus"), list) and all("lambda_max" in p for p in b["plateaus"]):
        found = b["plateaus"]
        out.update(plateaus=plateau_summary(found), plateau_count=len(found),
                   plateau_fractions=len({p["fraction"] for p in found}))
        # each branch's plateaus in β order (β where each starts, its fraction): whether the staircase is monotone
        out["plateau_steps"] = [[(p["beta_lo"], p["fraction"]) for p in sorted(found, key=lambda p: p["beta_lo"])]]
        if isinstance(b.get("plateaus_b"), list):
            out.update(plateaus_b=plateau_summary(b["plateaus_b"]), staircase_branches=b.get("staircase_branches"))
            out["plateau_steps"].append([(p["beta_lo"], p["fraction"])
                                         for p in sorted(b["plateaus_b"], key=lambda p: p["beta_lo"])])
        for extra in b.get("plateaus_c") or []:   # branches from last-bit copies of the zoom's start (issue 43)
            if isinstance(extra, list) and all("lambda_max" in p for p in extra):
                out["plateau_steps"].append([(p["beta_lo"], p["fraction"])
                                             for p in sorted(extra, key=lambda p: p["beta_lo"])])
    if isinstance(b.get("tongue_widths"), dict) and "tongue_epsilons" in b:
        out.update(tongue_widths={f: list(w) for f, w in b["tongue_widths"].items()},
                   tongue_epsilons=list(b["tongue_epsilons"]), tongue_n_betas=int(b["tongue_n_betas"]))
    if b.get("tongue_rho") is not None:   # the whole grid (runs from 0.4 on): ρ₀ of the ε = 0 circle decides the tongues
        out.update({k: b[k] for k in ("tongue_rho", "tongue_lyapunov", "tongue_locked_grid", "tongue_betas") if k in b})
    if "basins_multi" in b:
        multi = list(b["basins_multi"] or [])
        n_betas = b.get("basin_n_betas", len(params.get("basin_betas", [])) or None)
        n_ctx = b.get("basin_contexts", params.get("basin_contexts"))
        # the smallest basin of a β with several attractors: stored as a fraction by later runs, else read from
        # the percentages of the stored text, rounded up by half a percent (the safe side for "measurable")
        pct = [int(p) for m in multi for p in re.findall(r"(\d+)%", m)]
        smallest = b.get("basin_smallest_fraction", (min(pct) + 0.5) / 100 if pct else None)
        out.update(basins_multi="; ".join(multi) or "none", n_multi=len(multi))
        if n_betas and n_ctx:
            out.update(basin_n_betas=int(n_betas), basin_contexts=int(n_ctx),
                       smallest_basin_contexts=None if smallest is None else smallest * n_ctx)
    ns = b.get("network_ns", params.get("network_ns"))
    if "network_errors" in b and ns is not None and len(ns) == len(b["network_errors"]):
        _, se = _slope_and_error(ns, b["network_errors"])
        out.update(network_slope_se=se, network_ns=", ".join(f"{n:g}" for n in ns),
                   network_errors=[float(e) for e in b["network_errors"]])
    return out


def _diagram(d) -> dict[str, Any]:
    """The numbers of one stored diagram (npz of :func:`~.sweep.save_diagram`): the orbits by (period, λ_max) and
    where they change; and, where the file holds the paper's bin count itself (``paper_counts``, files from 0.3
    on), the bin rule's classes, their confusion with the orbits and the first β of each class. Older files held
    only bounds of the count (their ``classes`` were those of the lower bound): the class numbers are then left
    out, and every claim that needs them is "not tested". ``orbit arrays`` holds the per-β arrays themselves (the
    verdicts class the orbits from them: :mod:`.claims_lambda`)."""
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
    # the per-β arrays themselves, for the verdicts' classes (claims_lambda) and the checks of their thresholds
    radius = _strobe_radius(d)
    out["orbit arrays"] = {"betas": np.asarray(b), "lyapunov": np.asarray(lam), "period": np.asarray(per),
                           **({"paper_counts": np.asarray(d["paper_counts"])} if "paper_counts" in d else {}),
                           **({} if radius is None else {"radius": radius})}
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
    stored figure manifest). {} if nothing is stored. ``root``: the checkout (an existing folder) or None."""
    out: dict[str, Any] = {}
    if root is None:
        return out
    folder = _root_folder(root) / "data" / "full" / "dmft"
    for key in ("fig3a", "fig3b"):
        path = folder / f"{key}_sections.npz"
        if path.exists():
            out[key] = _diagram(store.load_npz(path))  # a truncated file is an error naming its path
    if (folder / "summary.json").exists():
        out["summary"] = store.read_object(folder / "summary.json")
    beyond = beyond_full_numbers(Path(root))
    if beyond:
        out["beyond"] = beyond
    manifest = Path(root) / "data" / "full" / "figures" / "manifest.json"
    if out and manifest.exists():
        entries = store.read_entries(manifest, (), "figure")   # a mapping of mappings, or an error naming the file
        params = [e.get("parameters") for k, e in entries.items() if k.startswith("fig-dmft-") and e.get("parameters")]
        if params:
            out["params"] = params[0]
    return out


#: The short names of the symmetric controls in the flat numbers (``sym_<short>_<count>``); a further seed's
#: ``seed<k>-<kind>`` becomes ``s<k>_<short>``.
SYM_SHORT = {"paper": "paper", "output-value": "ov", "query-key": "qk", "value-output": "vo", "cycled": "cyc"}


def _sym_short(name: str) -> str:
    m = re.fullmatch(r"seed(\d+)-(.+)", name)
    return f"s{m.group(1)}_{SYM_SHORT[m.group(2)]}" if m else SYM_SHORT[name]


def _symmetric(sym: dict) -> dict[str, Any]:
    """The symmetric controls' counts (and, from runs of 0.4 on, their per-β ``betas, period, lyapunov``) under
    ``sym_<short>_<name>``; for a control run on a subset of the paper model's β, the paper model's counts on that
    subset as ``sym_paper_on_<short>_<name>`` (so that a share compares the same β)."""
    from .verdict_numbers import attractor_kinds

    out: dict[str, Any] = {}
    for name, d in sym.items():
        short = _sym_short(name)
        out.update({f"sym_{short}_{k.replace(' ', '_')}": v for k, v in d.items()})
    paper = sym.get("paper", {})
    if "betas" in paper:
        pb = np.round(np.asarray(paper["betas"], dtype=np.float64), 9)
        for name in ("value-output", "cycled"):
            if name in sym and "betas" in sym[name]:
                m = np.isin(pb, np.round(np.asarray(sym[name]["betas"], dtype=np.float64), 9))
                k = attractor_kinds(np.asarray(paper["period"])[m], np.asarray(paper["lyapunov"], dtype=np.float64)[m])
                out.update({f"sym_paper_on_{SYM_SHORT[name]}_{x.replace(' ', '_')}": v for x, v in k.items()})
    return out


def _strobe_radius(d) -> np.ndarray | None:
    """Half the range of m^o_1 over the stored stroboscopic states of each β (the last 300, as distinct levels): the
    size of the invariant circle along m^o_1 (0 for a stroboscopic fixed point); None for files without them."""
    if "strobe" not in d or "strobe_sizes" not in d:
        return None
    lev = int(d["levels"])
    parts = np.split(np.asarray(d["strobe"]), np.cumsum(d["strobe_sizes"])[:-1])
    return np.array([(int(x.max()) - int(x.min())) / (lev - 1) if x.size else np.nan for x in parts])


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
                                               "tau_01_windows", "window_lag", "window_lag_01", "islands",
                                               "spectral", "memory") if k in f4})
    if "long" in s:     # Fig. 3a at the text's run length (issue 43)
        lo = s["long"]
        out["l_orbit_arrays"] = {k: lo[k] for k in ("betas", "lyapunov", "period")}
        out.update(long_steps=lo["steps"], long_transient=lo["transient"])
    if "census" in s:   # the attractors reached from last-bit copies of the Fig. 4 start (issue 43)
        out["census"] = s["census"]
    if "window_control" in s:   # λ_max over four times the window at the zoom's β without a period (issue 43)
        w = s["window_control"]
        out["w_control"] = {k: w[k] for k in ("betas", "lyapunov", "lyapunov_long", "period_long", "window",
                                              "window_long")}
    if "map" in s:      # the map's three forms compared at random points, the β = 3 context against the paper's
        out["map_deviations"] = s["map"]
    if "finite_n" in s:
        fn = s["finite_n"]
        out.update(slope_1=fn["slopes"][0], slope_3=fn["slopes"][1], slope_3_large=fn["slope_beta3_without_first"],
                   n_min=min(fn["Ns"]), n_max=max(fn["Ns"]), error_ns=list(fn["Ns"]))
        if "errors" in fn:   # per-N errors (runs from 0.4 on): the fits' standard errors
            for i, key in enumerate(("1", "3")):
                out[f"errors_{key}"] = list(fn["errors"][i])
                out[f"slope_{key}_se"] = _slope_and_error(fn["Ns"], fn["errors"][i])[1]
        if "horizon" in fn:  # a chaotic β within and beyond the horizon
            h = fn["horizon"]
            out["horizon_beta"] = h["beta"]
            for t, e in zip(h["times"], h["errors"]):
                out[f"horizon_errors_{t}"] = list(e)
    if "symmetric" in s:
        out.update(_symmetric(s["symmetric"]))
    if "coexist" in s:
        co = s["coexist"]
        out.update(coexist_n=co["n"], coexist_total=co["total"], coexist_tori=co["tori"],
                   coexist_starts=len(co["starts"]),
                   coexist_start_betas=", ".join(f"{b:g}" for b in co["starts"]))
        out.update({f"coexist_{k}": co[k] for k in ("points", "n_last_500", "betas") if k in co})
    out.update(beyond_numbers(full.get("beyond", {}), full.get("params", {})))
    out.update(derived(out))   # the zoom's grid step, first torus past the crossing, torus breakup (claims_lambda)
    return out


def stored_numbers(root: Path | None, chapter: str = "dmft") -> tuple[dict[str, Any], str]:
    """The stored full-profile numbers ({} if none): :func:`full_numbers` (keys ``fig3a, fig3b, summary, beyond,
    params``) with the flat names the rules read added; and the command that makes them."""
    if chapter != "dmft":
        raise ValueError(f"chapter must be 'dmft'; got {chapter!r}")
    full = full_numbers(root)
    return ({**full, **_flat(full)} if full else {}), REMEDY


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
