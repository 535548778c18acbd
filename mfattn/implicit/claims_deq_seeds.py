"""What Chapter 2's claim modules share: the numbers a verdict quotes, the thresholds' noise read from the stored
numbers, and the per-seed reading of a rule (issue 41: three seeds behind every claim): each rule decided on every
seed alone (:func:`every_seed`) and the spread over the seeds (:func:`seed_spread`)."""

from __future__ import annotations

import math
import numbers
from typing import Any

from mfattn.companion import stats
from mfattn.companion.checks import check_choice, check_int, check_real
from mfattn.companion.premises import LEVEL

# --- what the claims of both modules share ------------------------------------------------------------------------

def _real(s, key: str) -> float:
    """``s[key]`` as stored (NaN too), if it is one real number; a list or text is a TypeError naming the key."""
    x = s[key]
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"numbers[{key!r}] must be one real number; got {type(x).__name__} {x!r:.60}")
    return x


def shown(*keys: str, digits: int = 3):
    """The numbers a verdict quotes, to ``digits`` significant digits (a positive integer; NaN, e.g. the s.d. of one
    seed, left out). Each key must hold one number."""
    check_int("digits", digits, 1)
    return lambda s: {k: float(f"{s[k]:.{digits}g}") for k in keys if math.isfinite(_real(s, k))}


def down(x: float, digits: int = 1) -> str:
    """``x`` (a finite number) rounded down to ``digits`` (>= 0) decimals (a lower bound quoted safely)."""
    check_real("x", x)
    check_int("digits", digits, 0)
    return f"{math.floor(x * 10 ** digits) / 10 ** digits:.{digits}f}"


def up(x: float, digits: int = 1) -> str:
    """``x`` (a finite number) rounded up to ``digits`` (>= 0) decimals (an upper bound quoted safely)."""
    check_real("x", x)
    check_int("digits", digits, 0)
    return f"{math.ceil(x * 10 ** digits) / 10 ** digits:.{digits}f}"


def measured(key: str, scale: float = 1.0):
    """A threshold's noise read from the stored numbers (``numbers[key] * scale``), None where it is not a positive
    finite number (e.g. seeds that agree exactly: nothing to move the threshold by)."""
    check_real("scale", scale)

    def noise(s):
        x = s[key]
        if x is None:   # not measured: nothing to move the threshold by
            return None
        x = x * scale
        return float(x) if isinstance(x, (int, float)) and math.isfinite(x) and x > 0 else None
    return noise


def one_seed(*keys: str):
    """The spread of a number measured on seed 0 only (the stored run and its summary): one value per key, so the
    claim is graded at best "with differences" (:class:`~mfattn.companion.premises.Spread`). Each key must hold one
    number (or None or NaN: not measured, left out)."""
    return lambda s: {k: [float(_real(s, k))] for k in keys if s.get(k) is not None and not math.isnan(_real(s, k))}


def over_seeds_text(s, key: str) -> str:
    """A paired gain ``key`` seed by seed (difference, its SE, the discordant digits) and under each alternative
    statistic over the seeds, in words: what a referee tries after the primary interval."""
    d, v = s[f"{key}_d"], s[f"{key}_v"]
    untr = stats.pooled_over_seeds(d, v, truncate=False)
    t = stats.t_interval(d) if len(d) > 1 else {"lo": math.nan, "hi": math.nan}
    exact = stats.exact_paired_test(int(sum(s[f"{key}_n10"])), int(sum(s[f"{key}_n01"])))
    per = ", ".join(f"{x:+.2f} (SE {math.sqrt(y):.2f}; {a}/{b} digits)" for x, y, a, b in
                    zip(d, v, s[f"{key}_n10"], s[f"{key}_n01"]))
    return (f"per seed {per}; untruncated Hartung-Knapp {untr['lo']:+.2f} to {untr['hi']:+.2f}, t over the seeds "
            f"{t['lo']:+.2f} to {t['hi']:+.2f}, exact paired test over the {10_000 * len(d):,} digits pooled p = "
            f"{exact['p']:.2g}" + (f"; a sign test over {len(d)} seeds cannot reach 5 % (smallest p {2.0 ** (1 - len(d)):.2g})"
                                   if len(d) < stats.SIGN_TEST_MIN_UNITS else ""))


def disagreement(s, key: str) -> str:
    """Which of the statistics over seeds put 0 inside the gain's interval, and what would settle a disagreement."""
    d, v = s[f"{key}_d"], s[f"{key}_v"]
    if len(d) < 2:
        return "One seed: the statistics over seeds cannot be tried."
    untr = stats.pooled_over_seeds(d, v, truncate=False)
    t = stats.t_interval(d)
    exact = stats.exact_paired_test(int(sum(s[f"{key}_n10"])), int(sum(s[f"{key}_n01"])))
    zero = {"the truncated interval (primary)": s[f"{key}_lo"] <= 0 <= s[f"{key}_hi"],
            "the untruncated interval": untr["lo"] <= 0 <= untr["hi"], "the t-interval": t["lo"] <= 0 <= t["hi"],
            "the exact paired test": exact["p"] >= LEVEL}
    inside = [k for k, z in zero.items() if z]
    if not inside or len(inside) == len(zero):
        return "Every statistic over the seeds agrees."
    return (f"The statistics disagree: 0 is inside {', '.join(inside)} only; a fourth and a fifth seed (naive and blog "
            f"models, about 50 CPU-min) might settle it.")


# --- numbers of every seed (issue 41: three seeds behind every claim) ---------------------------------------------

def seed_values(s, key: str) -> list[float]:
    """Every seed's value of ``key`` (``<key>_seeds``, stored by the chapter for each seed it analysed), or seed 0's
    alone (``[s[key]]``) where only that is stored (a run before the per-seed analyses: graded as one seed)."""
    values = s.get(f"{key}_seeds")
    if isinstance(values, list) and values:
        return [float("nan") if v is None else float(v) for v in values]
    return [float(s[key])]


def seed_numbers(s, i: int) -> dict[str, Any]:
    """The numbers as seed ``i`` alone has them: every ``<key>_seeds`` list's i-th value put under ``key``. ``i`` is
    one of the seeds the per-seed lists hold (0 to :func:`seeds_of` − 1)."""
    check_int("i", i, 0, seeds_of(s) - 1)
    return {**s, **{k[:-len("_seeds")]: (float("nan") if v[i] is None else v[i]) for k, v in s.items()
                    if k.endswith("_seeds") and isinstance(v, list) and len(v) > i}}


def seeds_of(s) -> int:
    """How many seeds the per-seed lists hold (the shortest; 1 where none is stored). A ``<key>_seeds`` entry that is
    not a list is a count of seeds (``var_blog_seeds = 3``), not a per-seed list, and is not read."""
    lengths = [len(v) for k, v in s.items() if k.endswith("_seeds") and isinstance(v, list) and v]
    return min(lengths) if lengths else 1


def every_seed(rule, reading: str = "all"):
    """A rule decided on each seed alone (:func:`seed_numbers`), combined: ``"all"`` grades the claim as far as every
    seed shows it (the lowest of the seeds' grades: a claim is reproduced only if each seed reproduces it);
    ``"median"`` takes the middle grade (a majority of seeds), the alternative a referee tries next."""
    from mfattn.companion.verdicts import GRADES

    if reading not in ("all", "median"):
        raise ValueError(f"reading must be 'all' or 'median'; got {reading!r}")

    def combined(s):
        grades = sorted((rule(seed_numbers(s, i)) for i in range(seeds_of(s))), key=GRADES.index)
        return grades[-1] if reading == "all" else grades[(len(grades) - 1) // 2]
    return combined


def every_seed_at(factory, reading: str = "all"):
    """:func:`every_seed` for a rule factory (``rule_at``: thresholds -> rule); ``reading`` checked at once."""
    if not callable(factory):
        raise TypeError(f"factory must be a rule factory (thresholds -> rule); got {type(factory).__name__}")
    check_choice("reading", reading, ("all", "median"))
    return lambda *a, **k: every_seed(factory(*a, **k), reading)


def seed_spread(*keys: str):
    """The spread over the analysed seeds of ``keys`` (:func:`seed_values`): three values each once the chapter has
    analysed three seeds, one (graded at best "with differences") for a run that analysed seed 0 alone."""
    return lambda s: {k: seed_values(s, k) for k in keys if s.get(k) is not None or s.get(f"{k}_seeds")}


from ..companion.stored_views import guard_claims  # noqa: E402  (last: it wraps what this module defines)

guard_claims(globals())   # public functions read the stored numbers through a checked view
