"""The finite-N limit of chapter 6's claims: RMS errors of the finite network against the mean-field map fall as
N^-1/2 (the central limit theorem: the rate is ours, the text says only that the equations are exact as N → ∞). The
rules and thresholds three claims share (dmft-path-probability, dmft-finite-n, dmft-network-limit)."""

from __future__ import annotations

import math

from ..companion import verdicts
from ..companion.premises import Threshold
from .claims_lambda import guarded

__all__ = ["SLOPE_HOW", "SHARED_SLOPE"]   # slope_rule is public through claims_beyond, where it was


def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def _known(s, *keys: str) -> list[float]:
    """The numbers ``s[k]``, or :class:`~mfattn.companion.verdicts.Undecidable` naming those stored as null or
    non-finite."""
    missing = [k for k in keys if not _finite(s[k])]
    if missing:
        raise verdicts.Undecidable(f"{', '.join(missing)} is not a finite number in the stored results (null)")
    return [s[k] for k in keys]


def slope_rule(*keys: str, band: float = 0.1, weak: float = -0.25):
    """N^-1/2 within ``band`` for every slope in ``keys`` holds; all below ``weak`` (convergence at least as N^-1/4)
    but one outside ±band of −1/2 holds partly; a slope above ``weak`` (or NaN) fails (see :data:`SLOPE_HOW`); a
    slope stored as None (null) cannot decide it (:class:`~mfattn.companion.verdicts.Undecidable`)."""
    def rule(s):
        x = [s[k] for k in keys]
        missing = [k for k, v in zip(keys, x) if v is None]
        if missing:
            raise verdicts.Undecidable(f"{', '.join(missing)} is stored as null (no slope)")
        if any(not math.isfinite(v) or v > weak for v in x):
            return "fails"
        return "holds" if all(abs(v + 0.5) <= band for v in x) else "partly"
    return rule


def network_at(band: float, weak: float, z_max: float):
    def rule(s):
        if abs(_known(s, "network_chi2_z")[0]) >= z_max:
            return "fails"  # the network's token statistics differ from the binomial sampler's at N = 99
        return slope_rule("network_slope", band=band, weak=weak)(s)
    return rule


def _band_check(s):
    se = _known(s, "network_slope_se")[0]
    ok = 0.1 >= 4 * se and abs(s["network_slope"] + 0.5) <= 0.1 - 2 * se
    return ok, (f"the explicit network's fitted slope {s['network_slope']:.3f} has standard error {se:.3f} (stored "
                f"per-N errors): 0.1 is {0.1 / se:.1f} of them, and N^-1/4 (−0.25) or N^-1 lie ≥ "
                f"{min(abs(s['network_slope'] + 0.25), abs(s['network_slope'] + 1)) / se:.0f} away")


def slope_thresholds() -> tuple[Threshold, Threshold]:
    """The band around −1/2 and the weak bound of the N^-1/2 rules (keywords ``band`` and ``weak``)."""
    return (Threshold("band", 0.1, "stored distribution", "the explicit network's slope, fitted over four decades of "
                      "N with its per-N errors stored, has a standard error of 0.012: ±0.1 is eight of them, while "
                      "N^-1/4 and N^-1 lie twenty and more away (the class sampler's per-N errors are not stored)",
                      guarded(_band_check), noise=guarded(lambda s: 2 * _known(s, "network_slope_se")[0])),
            Threshold("weak", -0.25, "convention", "half the central-limit rate (N^-1/4): slower than that is not "
                      "convergence at the CLT's order"))


#: Said in the notes of the three rows that rest on the same finite-N slopes.
SHARED_SLOPE = (" Three ledger rows (dmft-path-probability, dmft-finite-n, dmft-network-limit) rest on these same RMS "
                "slopes at β = 1 (the class sampler's and the explicit network's): one piece of evidence, the N^-1/2 "
                "convergence to the map, not three independent ones.")

#: Why ±0.1 around −1/2 and why −0.25 (shared with the finite-N claims of :mod:`.claims`).
SLOPE_HOW = ("The rate is ours: the text says the equations are exact as N → ∞, and the central limit theorem gives "
             "RMS errors ∝ N^-1/2. A log-log slope within 0.1 of −0.5 holds (eight standard errors of the explicit "
             "network's fit, whose per-N errors are stored; N^-1/4 and N^-1 lie far outside); a slope below −0.25 "
             "(convergence at least as N^-1/4, half the CLT rate) but outside that band: with differences; a slope "
             "above −0.25 (no convergence at the CLT's order): fails. The band is tried at ± two standard errors.")
