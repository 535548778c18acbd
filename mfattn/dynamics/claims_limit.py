"""The finite-N limit of chapter 6's claims: RMS errors of the finite network against the mean-field map fall as
N^-1/2 (the central limit theorem: the rate is ours, the text says only that the equations are exact as N → ∞). The
rules and thresholds three claims share (dmft-path-probability, dmft-finite-n, dmft-network-limit)."""

from __future__ import annotations

from mfattn.companion.stored_views import MissingNumber  # a KeyError naming the stored number a rule lacks

import math

from ..companion import verdicts
from ..companion.checks import check_real, contract
from ..companion.premises import Alternative, Threshold
from .claims_lambda import _nan_read, guarded
from .claims_stored import _slope_and_error

__all__ = ["SLOPE_HOW", "SHARED_SLOPE", "HORIZON_HOW", "HORIZON_ALTERNATIVE", "HORIZON_CUT", "horizon_at"]   # slope_rule: through claims_beyond


def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def _known(s, *keys: str) -> list[float]:
    """The numbers ``s[k]``, or :class:`~mfattn.companion.verdicts.Undecidable` naming those stored as null or
    non-finite."""
    missing = [k for k in keys if not _finite(s[k])]
    if missing:
        raise verdicts.Undecidable(f"{', '.join(missing)} is not a finite number in the stored results (null)")
    return [s[k] for k in keys]


@contract(band="real", weak="real")   # any finite band: the sensitivity moves it by the fits' SE
def slope_rule(*keys: str, band: float = 0.1, weak: float = -0.25, one_sided: bool = False):
    """N^-1/2 within ``band`` for every slope in ``keys`` holds; all below ``weak`` (convergence at least as N^-1/4)
    but one outside ±band of −1/2 holds partly; a slope above ``weak`` (or NaN) fails (see :data:`SLOPE_HOW`); a
    slope stored as None (null) or as an infinity cannot decide it (:class:`~mfattn.companion.verdicts.Undecidable`);
    one of another kind than the store holds (True for a number) is a TypeError naming its key."""
    if not keys or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"keys must be one or more strings (the stored slopes' names); got {keys!r}")
    check_real("band", band, minimum=0.0)   # a half-width around the predicted slope (as horizon_at's)

    def rule(s):
        # a NaN slope fails, as documented (the fit found no rate of convergence): read past verdicts.FiniteNumbers
        s = verdicts.raw_numbers(s)
        x = [_nan_read(s, k) for k in keys]
        missing = [k for k, v in zip(keys, x) if v is None]
        if missing:
            raise verdicts.Undecidable(f"{', '.join(missing)} is stored as null (no slope)")
        if any(not math.isfinite(v) or v > weak for v in x):
            return "fails"
        # each slope within the band, widened to two standard errors of its own fit where those are wider (a fit
        # over few N, or off the orbit's phase at one N, is no evidence against the rate)
        bands = [max(band, 2 * se) if _finite(se := s.get(f"{k}_se")) else band for k in keys]
        if one_sided:   # at least the central-limit rate: a steeper (faster) fall is no difference from the limit
            return "holds" if all(v + 0.5 <= b for v, b in zip(x, bands)) else "partly"
        return "holds" if all(abs(v + 0.5) <= b for v, b in zip(x, bands)) else "partly"
    return rule


def network_at(band: float, weak: float, z_max: float):
    """dmft-network-limit's rule: the network's token statistics apart from the binomial sampler's (|z| of the
    χ² test at least ``z_max``) fails, else :func:`slope_rule` on ``network_slope``. Unlike :func:`slope_rule`'s
    own reading (a NaN slope of the chapter's fits fails), every number this rule reads (``network_chi2_z``,
    ``network_slope``, and ``network_slope_se`` where stored) must be finite: a NaN or an infinity makes it
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key, never a grade (a NaN standard error would
    otherwise silently fall back to ``band``)."""
    def rule(s):
        _known(s, "network_slope", *(("network_slope_se",) if s.get("network_slope_se") is not None else ()))
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
                      "N^-1/4 and N^-1 lie twenty and more away; a slope whose own fit has a larger standard error "
                      "(the class sampler's at β = 3: 0.14) is read within two of its standard errors instead",
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
             "above −0.25 (no convergence at the CLT's order): fails. A slope whose own fit has a standard error "
             "above 0.05 is read within two of them (max(0.1, 2 SE)). The band is tried at ± two standard errors.")


#: How many of the largest N the chaotic β's slope is fitted over (inside the linear regime: see HORIZON_HOW).
HORIZON_LARGEST = 3

#: The limit is at fixed t; at a chaotic β a difference of order N^-1/2 grows as e^{λt}.
HORIZON_HOW = ("The limit is at a fixed time t: at a chaotic β a difference of order N^-1/2 grows as e^{λt} until it "
               "is of order one, after t* ≈ ln(√N)/λ steps (about 25 at N = 10³, 57 at 10⁷ for λ = 0.14), and the "
               "N^-1/2 rate shows only where N^-1/2 e^{λt} stays small. The rule reads a stable β (β = 1, the "
               "period-4 orbit) at t = 39; the class sampler at the chaotic β = 1.28 at t = 10, fitted over the N whose "
               "perturbation N^-1/2 e^{λt} stays under 5 % (a cut fixed before looking: N ≥ 10⁴), is tried as a unit "
               "(at t = 40 it is beyond the horizon for N ≲ 10⁵ and saturates).")


def _horizon_slope(s, t: int = 10, largest: int = HORIZON_LARGEST) -> float:
    """The log-log slope of the class sampler's RMS error at the chaotic β (stored ``horizon_errors_<t>``) against N,
    over the ``largest`` N."""
    ns, errs = s["error_ns"], s[f"horizon_errors_{t}"]
    if len(ns) != len(errs) or len(ns) < largest:
        raise verdicts.Undecidable(f"the chaotic β's errors at t = {t} do not match the stored N")
    return _slope_and_error(ns[-largest:], errs[-largest:])[0]


#: The linear regime, fixed before looking: a perturbation of order N^-1/2 grown by e^{λt} still under 5 % of order
#: one (at λ = 0.14, t = 10: N ≥ 10⁴ of the stored N).
HORIZON_CUT = 0.05


def _inside(s, t: int, cut: float) -> list[int]:
    """Indices of the stored N whose perturbation N^-1/2 e^{λt} at the chaotic β stays under ``cut`` (λ: the stored
    λ_max of the Fig. 4 orbit at that β)."""
    beta = s.get("horizon_beta", 1.28)
    if "f4_lyapunov" not in s or beta not in list(s.get("f4_betas", [])):
        raise MissingNumber("f4_lyapunov at the horizon's β")
    i = list(s["f4_betas"]).index(beta)
    lam = s["f4_lyapunov"][i] if i < len(s["f4_lyapunov"]) else None
    if not _finite(lam):
        raise verdicts.Undecidable(f"λ_max at β = {beta:g} is stored as null or missing")
    if any(not _finite(n) or n <= 0 for n in s["error_ns"]):
        raise verdicts.Undecidable("the stored N are not all positive numbers")
    grown = lam * t   # the log of e^{λt}: compared in logs, no overflow at large λt
    return [k for k, n in enumerate(s["error_ns"]) if grown - 0.5 * math.log(n) < math.log(cut)]


@contract(band="real", weak="real", t="int:0", largest="int:3?")
def horizon_at(band: float = 0.1, weak: float = -0.25, cut: float = HORIZON_CUT, t: int = 10,
               largest: int | None = None, one_sided: bool = False):
    """:func:`slope_rule` on the class sampler's slope at the chaotic β at time ``t``, fitted (with its standard
    error) over the N inside the linear regime (N^-1/2 e^{λt} < ``cut``), or over the ``largest`` N when given
    (at least 3). ``cut`` may be infinite (no regime: every stored N)."""
    check_real("cut", cut, minimum=0.0, strict=True, allow_inf=True)
    check_real("band", band, minimum=0.0)   # a half-width around the predicted slope

    def rule(s):
        # the errors are checked below, those of the N the fit uses only (a bad one outside the regime is not read)
        ns, errs = s["error_ns"], verdicts.raw_numbers(s)[f"horizon_errors_{t}"]
        if len(ns) != len(errs):
            raise verdicts.Undecidable(f"the chaotic β's errors at t = {t} do not match the stored N")
        keep = list(range(len(ns)))[-largest:] if largest else _inside(s, t, cut)
        if len(keep) < 3:
            raise verdicts.Undecidable(f"fewer than three stored N lie inside the linear regime at t = {t}")
        if any(not _finite(errs[i]) or errs[i] <= 0 for i in keep):
            raise verdicts.Undecidable(f"the chaotic β's errors at t = {t} hold a null, non-finite or zero value")
        slope, se = _slope_and_error([ns[i] for i in keep], [errs[i] for i in keep])
        return slope_rule("h", band=band, weak=weak, one_sided=one_sided)({"h": slope, "h_se": se})
    return rule


#: The unit a referee tries on a finite-N slope: a chaotic β inside the horizon.
HORIZON_ALTERNATIVE = Alternative("a chaotic β (1.28, λ ≈ 0.14) at t = 10, inside the horizon: the class sampler "
                                  "fitted over the N whose perturbation N^-1/2 e^{λt} stays under 5 % (N ≥ 10⁴)",
                                  "unit", horizon_at())


def _se(s, key: str) -> str:
    """" ± <standard error>" where it is stored and finite, else nothing."""
    v = s.get(key)
    return f" ± {v:.2f}" if v is not None and math.isfinite(v) else ""


@verdicts.finite_rule   # its wording reads the chaotic β and the N past the cut: a NaN cannot be read into it
def horizon_note(s) -> str:
    """The chaotic β's slopes within and beyond the horizon, or that they are not stored (runs before 0.4)."""
    if "horizon_errors_10" not in s:
        return "No chaotic β's errors are stored (runs before 0.4). "
    ns = s["error_ns"]
    whole = lambda t: _slope_and_error(ns, s[f"horizon_errors_{t}"])[0]  # noqa: E731
    try:
        inside = _inside(s, 10, HORIZON_CUT)
        cut = (f"{_slope_and_error([ns[i] for i in inside], [s['horizon_errors_10'][i] for i in inside])[0]:.2f} "
               f"over the N inside the linear regime (N ≥ {ns[inside[0]]:.0e}), " if len(inside) >= 3 else "")
    except (KeyError, verdicts.Undecidable):
        cut = ""
    return (f"At the chaotic β = {s['horizon_beta']:g} (class sampler): slope {cut}{_horizon_slope(s):.2f} over the "
            f"three largest N and {whole(10):.2f} over all at t = 10; {whole(40):.2f} over all at t = 40, where the error "
            f"has saturated at small N ({s['horizon_errors_40'][0]:.2f} at N = {ns[0]:.0e}). ")


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
