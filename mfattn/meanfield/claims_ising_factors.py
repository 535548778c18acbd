"""'More accurate' over Chapter 1's paired SK instances (:mod:`.claims_ising_accuracy` re-exports it; the chapter's
other claim modules read it from there): the per-instance errors two theories share, the standard error of the log of
a ratio of their mean errors (delta method; a paired bootstrap as its check), the geometric mean of the per-instance
ratios, and the rules of a factor between two mean errors on each of these statistics."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..companion import stats, verdicts
from .claims_ising_sweep import _entry


#: The theories whose per-instance errors the stored numbers hold (``{theory}_{which}_inst``; "exact" is the error of
#: C = 0, ``exact_c_inst``); a family's are ``fam_<family>_<theory>`` and ``fam_<family>_sk_<theory>``.
THEORY_KEYS = ("naive", "tap", "atap", "tsite", "exact")


def _key_names(keys) -> None:
    """Each of ``keys`` is a stored number's name (a string): a TypeError naming ``keys`` otherwise."""
    for k in keys:
        if not isinstance(k, str):
            raise TypeError(f"keys must be names of stored numbers (strings, e.g. 'atap_m'); got {type(k).__name__} "
                            f"{k!r}"[:200])


def known(s, *keys: str) -> list[float]:
    """The numbers ``s[k]`` (each a mean error: a finite number >= 0), or
    :class:`~mfattn.companion.verdicts.Undecidable` naming those stored as null, non-finite (the summary stores a NaN
    as null) or below 0 (no error is): a missing RMSE cannot decide a comparison. A key that is no string is a
    TypeError naming ``keys``; a name ``s`` does not hold is a KeyError naming it (numbers written before it: the
    verdicts read not tested). A value of another kind (a list, even an empty one, text, a flag) is a TypeError naming
    its key."""
    _key_names(keys)
    if not keys:
        raise ValueError("keys must name at least one stored mean error (e.g. 'atap_m'); got none")
    for k in keys:   # a key the store does not hold is not kind-checked by the view: one number or None here
        if s[k] is not None and (isinstance(s[k], (bool, np.bool_)) or not isinstance(s[k], numbers.Real)):
            raise TypeError(f"s[{k!r}] must be a number (a mean error) or None (not measured); got "
                            f"{type(s[k]).__name__} {s[k]!r}"[:200])
    missing = [k for k in keys if s[k] is None or not math.isfinite(s[k])]
    if missing:
        raise verdicts.Undecidable(f"{', '.join(missing)} is not a finite number in the stored summary (null)")
    below = [k for k in keys if s[k] < 0]
    if below:
        raise verdicts.Undecidable(", ".join(f"{k} is {s[k]!r}" for k in below) + " in the stored summary: a mean "
                                   "error is >= 0")
    return [s[k] for k in keys]


def _theory(s, name: str, value, which: str) -> str:
    """``value`` checked as a theory's name in :func:`paired`: a string of the form ``<theory>``,
    ``fam_<family>_<theory>`` or ``fam_<family>_sk_<theory>`` (``<theory>`` one of :data:`THEORY_KEYS`); else a
    TypeError or ValueError naming ``name`` and the theories ``s`` holds errors of ``which`` for."""
    from .families import FAMILIES

    if not isinstance(value, str):
        raise TypeError(f"{name} must be a theory's name (a string, e.g. 'atap'); got {type(value).__name__} "
                        f"{value!r}"[:200])
    ok = value in THEORY_KEYS or any(value == f"fam_{f}_{sk}{t}" for f in FAMILIES for sk in ("", "sk_")
                                     for t in THEORY_KEYS)
    if not ok:
        stored = sorted(k[:-len(f"_{which}_inst")] for k in s if isinstance(k, str) and k.endswith(f"_{which}_inst"))
        raise ValueError(f"{name} must name a theory whose per-instance errors are stored ({', '.join(stored)}); got "
                         f"{value!r}"[:400])
    return value


def _per_instance(s, key: str) -> list:
    """``s[key]``, a theory's per-instance errors: each None (not solved) or a finite number >= 0; else
    :class:`~mfattn.companion.verdicts.Undecidable` naming the key and the entry."""
    runs = s[key]
    if isinstance(runs, (str, bytes)) or not isinstance(runs, (list, tuple)):
        raise TypeError(f"s[{key!r}] must be a list of per-instance errors (numbers or None); got "
                        f"{type(runs).__name__} {runs!r}"[:200])
    for i, v in enumerate(runs):
        _entry(key, f"[{i}]", v, "a per-instance error is a finite number >= 0")
    return list(runs)


def paired(s, better: str, worse: str, which: str = "m") -> tuple[np.ndarray, np.ndarray]:
    """The per-instance errors of two theories on the instances both solved (``{key}_{which}_inst``). ``which`` is
    "m" or "c" and ``better``, ``worse`` theories' names (:data:`THEORY_KEYS`, or a family's ``fam_<family>_<theory>``
    / ``fam_<family>_sk_<theory>``, two different ones), else a ValueError naming the argument and the allowed values;
    a theory the summary does not hold is a KeyError (written before it: not tested). Lists of different lengths
    (they no longer pair the instances), or an entry that is infinite or below 0, are
    :class:`~mfattn.companion.verdicts.Undecidable` naming the keys."""
    if which not in ("m", "c"):
        raise ValueError(f"which must be 'm' (magnetisations) or 'c' (correlations); got {which!r}"[:200])
    _theory(s, "better", better, which)
    _theory(s, "worse", worse, which)
    if better == worse:
        raise ValueError(f"better and worse must be two different theories (a ratio of a theory to itself is 1); got "
                         f"{better!r} twice"[:200])
    bk, wk = f"{better}_{which}_inst", f"{worse}_{which}_inst"
    bs, ws = _per_instance(s, bk), _per_instance(s, wk)
    if len(bs) != len(ws):
        raise verdicts.Undecidable(f"s[{bk!r}] ({len(bs)}) and s[{wk!r}] ({len(ws)}) have different lengths: they no "
                                   "longer pair the instances")
    pairs = [(b, w) for b, w in zip(bs, ws)
             if b is not None and w is not None and w > 0 and b > 0]
    if len(pairs) < 3:
        raise verdicts.Undecidable(f"{len(pairs)} instances with both {better} and {worse} solved: too few to read a "
                                   "spread from")
    b, w = np.array(pairs).T
    return b, w


def _errors(b, w, *, positive: bool) -> tuple[np.ndarray, np.ndarray]:
    """``b`` and ``w`` checked as paired per-instance errors: 1-d arrays of finite numbers >= 0 (> 0 where
    ``positive``: each ratio's log is taken), of one length, at least 2 (a spread), each mean > 0; a TypeError or
    ValueError naming the parameter otherwise. A numpy array passes on as given (its dtype kept), anything else as
    float64."""
    from ..companion.checks import check_array

    out = []
    for name, value in (("b", b), ("w", w)):
        arr = check_array(name, value, ndim=1, allow_int=True)
        if arr.size < 2:
            raise ValueError(f"{name} must hold at least 2 paired errors (a spread); got {arr.size}")
        low = float(arr.min())
        if low < 0 or (positive and low == 0):
            raise ValueError(f"{name} must hold errors {'> 0 (the log of each ratio is taken)' if positive else '>= 0'}"
                             f"; got an entry {low!r}")
        if not arr.mean() > 0:
            raise ValueError(f"{name} must have a mean error > 0 (the log of the ratio of the means is taken); got "
                             f"{float(arr.mean())!r}")
        out.append(value if isinstance(value, np.ndarray) and value.dtype.kind == "f" else arr)
    if out[0].shape != out[1].shape:
        raise ValueError(f"b and w must pair the same instances (one length); got {out[0].size} and {out[1].size}")
    return out[0], out[1]


def log_ratio_se(b: np.ndarray, w: np.ndarray) -> float:
    """Standard error of log(mean b / mean w) over paired units (delta method, sample covariance). ``b`` and ``w``
    are 1-d arrays of finite errors >= 0 of one length (at least 2), each with a mean > 0 (an entry may be 0: only
    the means' log is taken); else a TypeError or ValueError naming the parameter."""
    b, w = _errors(b, w, positive=False)
    n, bm, wm = b.size, b.mean(), w.mean()
    cov = np.cov(b, w)
    return math.sqrt(max(cov[0, 0] / bm ** 2 + cov[1, 1] / wm ** 2 - 2 * cov[0, 1] / (bm * wm), 0.0) / n)


def bootstrap_sd(b: np.ndarray, w: np.ndarray, resamples: int = 4000) -> float:
    """Standard deviation of log(mean b / mean w) over a paired bootstrap of the units (fixed seed: a check, not a
    verdict, reads it). ``b`` and ``w`` as for :func:`log_ratio_se`; ``resamples`` an integer >= 2 whose index table
    (``resamples`` × the instances) fits the memory budget, else a ValueError naming it. A resample whose mean is 0
    (zero errors drawn only) has no finite log: a ValueError naming ``b`` and ``w``, never a NaN."""
    from ..companion.checks import check_alloc, check_int

    b, w = _errors(b, w, positive=False)
    resamples = check_int("resamples", resamples, 2)
    check_alloc(f"resamples={resamples}", resamples * b.size * 8, what="its bootstrap index table")
    idx = np.random.default_rng(0).integers(0, b.size, size=(resamples, b.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = float(np.std(np.log(b[idx].mean(1) / w[idx].mean(1))))
    if not math.isfinite(out):   # a resample of only the zero entries: its mean 0, its log not finite
        raise ValueError(f"b and w must not hold so many zero errors that a bootstrap resample has mean 0 (its log is "
                         f"taken); got {int((b == 0).sum())} zeros in b and {int((w == 0).sum())} in w of {b.size}")
    return out


def geometric_interval(b: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """The geometric mean of the per-instance ratios b/w with its 95 % Student-t interval. ``b`` and ``w`` are 1-d
    arrays of finite errors > 0 (each ratio's log is taken) of one length, at least 2; else a TypeError or ValueError
    naming the parameter (never a NaN interval)."""
    b, w = _errors(b, w, positive=True)
    d = np.log(b / w)
    half = stats.t_quantile_975(d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    return float(np.exp(d.mean())), float(np.exp(d.mean() - half)), float(np.exp(d.mean() + half))


# --- "more accurate": a factor between two mean errors ---------------------------------------------------------------

def _factor_at(better: str, worse: str):
    """Rule factory: ``better`` below ``worse``/factor holds, below ``worse`` partly, else fails."""
    def rule_at(factor):
        def rule(s):
            b, w = known(s, better, worse)
            return "holds" if b < w / factor else "partly" if b < w else "fails"
        return rule
    return rule_at


def _factor_examples(better: str, worse: str) -> dict[str, dict[str, float]]:
    return {"holds": {better: 0.49, worse: 1.0}, "partly": {better: 0.51, worse: 1.0},
            "fails": {better: 1.0, worse: 1.0}}


def _ratio_noise(better: str, worse: str, which: str = "m"):
    """The noise of a factor between two mean errors: e^SE of the log ratio over the paired instances."""
    return lambda s: math.exp(log_ratio_se(*paired(s, better, worse, which)))


def _interval_rule(better: str, worse: str, factor: float = 2.0, which: str = "m"):
    """The factor rule on the 95 % interval of the geometric mean of the per-instance ratios: holds if its upper
    end is below 1/factor, partly if below 1, else fails."""
    def rule(s):
        _, _, hi = geometric_interval(*paired(s, better, worse, which))
        return "holds" if hi < 1 / factor else "partly" if hi < 1 else "fails"
    return rule


def _ratio_interval_rule(better: str, worse: str, factor: float = 2.0, which: str = "m"):
    """The factor rule on the 95 % interval of the ratio of the mean errors itself (the primary statistic; paired
    delta method, Student's t over the instances): holds if its upper end is below 1/factor, partly if below 1."""
    def rule(s):
        b, w = paired(s, better, worse, which)
        hi = b.mean() / w.mean() * math.exp(stats.t_quantile_975(b.size - 1) * log_ratio_se(b, w))
        return "holds" if hi < 1 / factor else "partly" if hi < 1 else "fails"
    return rule


def _bootstrap_rule(better: str, worse: str, factor: float = 2.0, resamples: int = 4000):
    """The factor rule on the percentile bootstrap 95 % interval of the ratio of the mean errors (paired instances
    resampled, a fixed seed): holds if its upper end is below 1/factor, partly if below 1, else fails."""
    def rule(s):
        b, w = paired(s, better, worse)
        idx = np.random.default_rng(0).integers(0, b.size, size=(resamples, b.size))
        hi = float(np.quantile(b[idx].mean(1) / w[idx].mean(1), 0.975))
        return "holds" if hi < 1 / factor else "partly" if hi < 1 else "fails"
    return rule


def _majority_rule(better: str, worse: str, factor: float = 2.0):
    """The factor rule on the instances: holds if significantly more than half the instances (two-sided sign test
    at 5 %) have ``better`` below ``worse``/factor; partly if significantly more than half have it below ``worse``."""
    def significant(x):
        got = stats.sign_test(x)
        return got["positive"] > got["negative"] and got["p"] < 0.05

    def rule(s):
        b, w = paired(s, better, worse)
        return "holds" if significant(w / factor - b) else "partly" if significant(w - b) else "fails"
    return rule


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
