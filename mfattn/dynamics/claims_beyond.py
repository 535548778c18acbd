"""Chapter 6's verdicts on its "Beyond the paper" section (our extensions, and the two paper claims they
check independently), decided from the full profile's ``data/full/dmft/beyond.json``; :mod:`.claims` decides
the paper's own figures and re-exports :func:`record_beyond`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from .rotation import MAX_GAP, merge_stored_plateaus

__all__ = ["PAPER", "beyond_full_numbers", "plateau_summary", "record_beyond"]

PAPER = "Poc-López & Aguilera 2024"


def beyond_full_numbers(root: Path | None) -> dict:
    """The numbers the full profile's "Beyond the paper" section stores in ``data/full/dmft/beyond.json``
    ({} if absent): ``ns_beta, ns_angle, ns_rotation, rho_birth, plateaus, tongue_locked, basins_multi,
    network_slope, network_chi2_z, spectrum_lambda2_at_ns``."""
    if root is None:
        return {}
    path = root / "data" / "full" / "dmft" / "beyond.json"
    if not path.exists():
        return {}
    import json

    return json.loads(path.read_text())


def plateau_summary(found: list[dict], top: int = 5) -> str:
    """The staircase's main plateaus for the ledger: the ``top`` widest (fraction, β interval, width), widest
    first, then how many narrower ones there are and their fractions in increasing order (``found`` from
    :func:`mfattn.dynamics.rotation.plateaus`)."""
    ranked = sorted(found, key=lambda p: (-(p["beta_hi"] - p["beta_lo"]), p["beta_lo"]))
    text = "; ".join(f"{p['fraction']} on β ∈ [{p['beta_lo']:.5f}, {p['beta_hi']:.5f}] "
                     f"(width {p['beta_hi'] - p['beta_lo']:.1e})" for p in ranked[:top]) or "none"
    rest = ranked[top:]
    if rest:
        text += (f"; and {len(rest)} narrower (each ≤ {max(p['beta_hi'] - p['beta_lo'] for p in rest):.1e} wide: "
                 + ", ".join(sorted({p["fraction"] for p in rest}, key=Fraction)) + ")")
    return text


def _beyond_notes(full: dict) -> dict[str, str]:
    """One or two sentences per "extends" verdict of the beyond section, the numbers glued from ``full``."""
    notes = {}
    if full.get("ns_beta") is not None:
        notes["dmft-floquet-neimark-sacker"] = (
            f"The leading complex pair of Floquet multipliers of the period-4 orbit crosses |μ| = 1 at β = "
            f"{full['ns_beta']:.4f}, at the angle θ = {full['ns_angle']:.3f} rad (θ/2π = {full['ns_rotation']:.3f}): a "
            "Neimark-Sacker bifurcation, where the torus of the paper's zoom is born.")
    spec = full.get("spectrum_max") or []
    if len(spec) >= 2:
        notes["dmft-lyapunov-spectrum"] = (
            f"Over the spectrum's β grid (the {len(spec)} largest of the 12 exponents, by QR) λ1 reaches "
            f"{spec[0]:+.3f} where the torus has broken into chaos, while λ2 never exceeds {spec[1]:+.1e} (0 within "
            "the run's resolution, as on the torus where λ1 = 0 > λ2): at most one unstable direction.")
    found = merge_stored_plateaus(full.get("plateaus") or []) if isinstance(full.get("plateaus"), list) else []
    if found and full.get("rho_birth") is not None:
        w = max(found, key=lambda p: p["beta_hi"] - p["beta_lo"])
        notes["dmft-devils-staircase"] = (
            f"Just above the Neimark-Sacker point the rotation number is {full['rho_birth']:.3f} (θ/2π = "
            f"{full['ns_rotation']:.3f} from the multipliers); it grows with β, flat on {len(found)} mode-locked "
            f"plateaus (runs of one fraction merged across gaps of ≤ {MAX_GAP} grid points), the widest {w['fraction']} "
            f"on β ∈ [{w['beta_lo']:.5f}, {w['beta_hi']:.5f}]; where the circle has broken, ρ is erratic.")
    if full.get("tongue_locked") is not None:
        notes["dmft-arnold-tongues"] = (
            f"Rotation number over a (β, ε) grid from the initial token: {full['tongue_locked']:.0%} of its points are "
            "locked on a short stroboscopic cycle (a q-cycle, q ≥ 2; the figure's white dots), beside the region "
            "of the period-4 orbit (a stroboscopic fixed point): mode locking is not confined to ε = 0.02.")
    if "basins_multi" in full:
        multi = full.get("basins_multi") or []
        notes["dmft-basins"] = (
            f"Random initial contexts reach more than one attractor at {len(multi)} of the sampled β"
            + (": " + "; ".join(multi) if multi else "") + "; at the others every context reaches the same one.")
    return notes


def record_beyond(run, current: dict, root: Path | None) -> None:
    """Verdicts of the "Beyond the paper" section, decided by the full-profile numbers.

    In the full profile these are ``current`` (this run); otherwise the stored ``beyond.json``. Our own
    analyses get "extends"; the two claims of the paper they test independently (the torus is born near
    β ≈ 1.244, Fig. 3b; the finite network tends to the mean-field map) get reproduced / not reproduced
    from the full numbers, or "not tested" with the reason when no full-profile numbers are stored.
    """
    full = dict(current) if getattr(run, "profile", None) == "full" else beyond_full_numbers(root)
    notes = _beyond_notes(full) if full else {}
    if full:  # the ledger keeps numbers and strings only
        found = merge_stored_plateaus(full.get("plateaus") or [])
        full["plateaus"] = plateau_summary(found)
        full["plateau count"] = len(found)
        full["betas with several attractors"] = len(full.get("basins_multi") or [])
        full["basins_multi"] = "; ".join(full.get("basins_multi") or []) or "none"
        for i, v in enumerate(full.get("spectrum_max") or []):
            full[f"max lambda{i + 1} over the grid"] = v
    basis = "" if full else " Quick-profile observation only: the full-profile numbers are not stored yet."
    t = lambda module, name: f"tests/test_dynamics_{module}.py::{name}"  # noqa: E731  a test id
    pick = lambda *keys: {k: full[k] for k in keys if full.get(k) is not None} if full else None  # noqa: E731
    ext = [
        ("dmft-floquet-neimark-sacker", "new (Floquet analysis of the period-4 orbit)",
         "The period-4 orbit loses stability in a Neimark-Sacker bifurcation: a complex pair of multipliers "
         "crosses |μ| = 1", ["fig-dmft-floquet",
                             t("floquet", "test_multipliers_match_finite_differences_of_the_reference_map"),
                             t("floquet", "test_neimark_sacker_point_of_the_period_4_orbit")],
         pick("ns_beta", "ns_angle", "ns_rotation")),
        ("dmft-lyapunov-spectrum", "new (QR method on the 12-dimensional state)",
         "The Lyapunov spectrum of the map (state dimension L M = 12) shows the torus (λ1 = 0 > λ2) and its "
         "breakdown into chaos (λ1 > 0)", ["fig-dmft-floquet", t("lyapunov", "test_spectrum_sums_to_mean_log_det"),
                                            t("lyapunov", "test_largest_exponent_is_engine_lambda_max")],
         pick(*(f"max lambda{i + 1} over the grid" for i in range(len(full.get("spectrum_max") or []))))),
        ("dmft-devils-staircase", "new (rotation number of the stroboscopic map)",
         "The rotation number of the stroboscopic map is a devil's staircase over the zoom: it starts at the "
         "Neimark-Sacker angle and the periodic windows are mode-locked plateaus",
         ["fig-dmft-rotation", t("rotation", "test_period_28_window_is_locked_at_two_sevenths"),
          t("rotation", "test_rotation_number_starts_at_the_neimark_sacker_angle")],
         pick("rho_birth", "ns_rotation", "plateaus", "plateau count")),
        ("dmft-arnold-tongues", "new (forcing amplitude ε)",
         "Over (β, ε) the locked regions of the positional forcing form Arnold tongues", ["fig-dmft-rotation"],
         pick("tongue_locked")),
        ("dmft-basins", "new (random initial contexts)", "Random initial contexts reach one attractor at most β; "
         "where several coexist, their basins have measurable fractions",
         ["fig-dmft-basins", t("basins", "test_random_contexts_reach_every_attractor_with_its_fraction")],
         pick("basins_multi", "betas with several attractors")),
    ]
    for cid, source, claim, evidence, nums in ext:
        run.verdict(cid, source, claim, "extends", evidence, numbers=nums, note=notes.get(cid, basis.strip()))
    # The paper's torus birth (Fig. 3b zoom: "a torus is born near β ≈ 1.244") against our Floquet crossing.
    ev = ["fig-dmft-floquet", t("floquet", "test_neimark_sacker_point_of_the_period_4_orbit")]
    torus = "A quasi-periodic torus is born near β ≈ 1.244"
    if full and full.get("ns_beta") is not None:
        off = abs(full["ns_beta"] - 1.244)
        word = "reproduced" if off <= 1e-3 else "reproduced with differences"
        note = (f"Floquet crossing at β = {full['ns_beta']:.4f} (|Δ| = {off:.1e} from the paper's 1.244); the torus "
                f"appears there with rotation θ/2π = {full['ns_rotation']:.3f}.")
        run.verdict("dmft-torus-birth-floquet", f"{PAPER}, Fig. 3b", torus, word, ev,
                    numbers={"ns_beta": full["ns_beta"]}, note=note)
    else:
        run.verdict("dmft-torus-birth-floquet", f"{PAPER}, Fig. 3b", torus, "not tested", ev,
                    note="The full-profile Floquet numbers are not stored yet." + basis)
    # The mean-field limit, checked by the independent explicit network (not the column-class sampler).
    ev = ["fig-dmft-network", t("finite_n", "test_network_converges_to_the_mean_field_map_as_n_grows"),
          t("finite_n", "test_network_is_the_oracle_of_the_binomial_sampler")]
    claim = "The token statistics of the finite network converge to the mean-field map as N grows (N^-1/2)"
    if full and full.get("network_slope") is not None:
        ok = abs(full["network_slope"] + 0.5) <= 0.1 and abs(full["network_chi2_z"]) < 4
        run.verdict("dmft-network-limit", f"{PAPER}, mean-field limit N → ∞", claim,
                    "reproduced" if ok else "not reproduced", ev,
                    numbers={k: full[k] for k in ("network_slope", "network_chi2_z")},
                    note="Explicit ±1 network (tiled weights, U = N²√M), not the binomial sampler; "
                         "slope of the RMS error at t = 39, β = 1; χ² z against the sampler at N = 99.")
    else:
        run.verdict("dmft-network-limit", f"{PAPER}, mean-field limit N → ∞", claim, "not tested", ev,
                    note="The full-profile network numbers are not stored yet." + basis)
