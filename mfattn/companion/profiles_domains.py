"""The domain of each profile size (:mod:`mfattn.companion.profiles` re-exports :data:`CHOICES`): what an override
(``--set key=value``, ``get_profile(..., key=value)``) may be, read off the values the profiles give it and narrowed
where the chapter's code takes less (a list it unpacks as a pair, entries of at least 2, a fraction in (0, 1]...)."""

from __future__ import annotations

import math
from typing import Any

#: Sizes that take one of a few words (every other size's kind is read off its values in :data:`PROFILES`).
#: ``protocol``: "short" keeps the profile's own steps; the others are :data:`mfattn.dynamics.model.PROTOCOLS`.
CHOICES: dict[tuple[str, str], tuple[str, ...]] = {("dmft", "protocol"): ("short", "paper-code", "seed-text")}
#: Integer sizes that may be 0 (a transient of no steps, no Newton refinement); every other integer size is >= 1.
_ZERO_OK = ("transient", "newton")
#: Integer sizes whose least value is larger (the study of chapter 1 correlates pairs of spins: two or more; its
#: Gaussian vector-spin check couples two or more sites, :func:`mfattn.ising.gaussian_vector_check`), and
#: lists of integers whose entries' least value is (``size_ns``: each a number of spins,
#: :func:`mfattn.meanfield.finite_size.line_by_size`).
_MINIMA: dict[tuple[str, str], int] = {("ising", "n"): 2, ("ising", "size_ns"): 2, ("ising", "vector_n"): 2}
#: Real sizes (or each entry of a list of them) with a range narrower than ">= 0": ``(low, high, open at low)``.
#: Dampings and the expanding prior's p are fractions in (0, 1] (:func:`mfattn.meanfield.accuracy.damping_sweep`, the
#: geometric prior), a mask's density a probability, a solver's tolerance and predictive coding's step-size fractions
#: are above 0.
_RANGES: dict[tuple[str, str], tuple[float, float, bool]] = {
    ("ising", "dampings"): (0.0, 1.0, True), ("structural", "mask_density"): (0.0, 1.0, False),
    ("designs", "exp_ps"): (0.0, 1.0, True), ("designs", "exp_code_extra_p"): (0.0, 1.0, True),
    ("deq", "solver_tol"): (0.0, math.inf, True), ("structural", "pc_lr_fractions"): (0.0, math.inf, True)}
#: Lists of integers whose entries have a largest value: chapter 5 replays the public code's own seeds (0 to 9, those
#: its stored losses hold: :func:`mfattn.structural.analysis_multihop.replay_deviations`).
_MAXIMA: dict[tuple[str, str], int] = {("designs", "repro_seeds"): 9}
#: Lists of integers of one length: the chapter unpacks them (``n_tap, d_tap = sizes["explicit_size"]``).
_LENGTHS: dict[tuple[str, str], int] = {("deq", "explicit_size"): 2}
#: Lists of integers whose first entry is fixed (chapter 3 reads the chapter's own seed as offset 0 first).
_FIRST: dict[tuple[str, str], int] = {("transformer", "seed_offsets"): 0}
#: Lists of integers that are seeds (or offsets of seeds): their entries may be 0; every other list of integers holds
#: sizes, counts or steps (>= 1). No list of integers names one entry twice (a seed run twice, a size twice).
_SEED_LISTS = ("seeds", "seed_offsets")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _real_range(chapter: str, key: str) -> tuple[str, Any]:
    """What a real size ``key`` of ``chapter`` (or each entry of a list of them) takes: a phrase and a test
    (:data:`_RANGES`, else ``>= 0``)."""
    low, high, open_low = _RANGES.get((chapter, key), (0.0, math.inf, False))
    lo = f"> {low:g}" if open_low else f">= {low:g}"
    phrase = "a finite number " + (lo if math.isinf(high) else f"{lo} and <= {high:g}")
    return phrase, lambda x: (x > low if open_low else x >= low) and x <= high


def _expected(chapter: str, key: str) -> tuple[str, Any]:
    """What size ``key`` of ``chapter`` takes: a phrase for messages and a test of a value, read off the
    values the profiles give it (an int size takes ints, a list of reals lists of finite reals...)."""
    from .profiles import PROFILE_NAMES, PROFILES

    values = [PROFILES[chapter][p][key] for p in PROFILE_NAMES]
    optional = any(v is None for v in values)
    values = [v for v in values if v is not None]
    if (chapter, key) in CHOICES:
        words = CHOICES[(chapter, key)]
        phrase, test = f"one of {', '.join(map(repr, words))}", lambda v: isinstance(v, str) and v in words
    elif all(_is_int(v) for v in values):
        low = _MINIMA.get((chapter, key), 0 if key.endswith(_ZERO_OK) else 1)
        phrase, test = f"an integer >= {low}", lambda v: _is_int(v) and v >= low
    elif all(_is_real(v) for v in values):
        phrase, inside = _real_range(chapter, key)
        test = lambda v: _is_real(v) and inside(v)  # noqa: E731
    elif all(isinstance(v, list) and len(v) == 3 and _is_int(v[2]) and not _is_int(v[0]) for v in values):
        phrase = "a grid [start, stop, count] (two finite numbers and an integer count >= 1)"
        test = lambda v: (isinstance(v, list) and len(v) == 3 and _is_real(v[0]) and _is_real(v[1])  # noqa: E731
                          and _is_int(v[2]) and v[2] >= 1)
    elif all(isinstance(v, list) and v and all(isinstance(x, list) for x in v) for v in values):
        width = len(values[0][0])
        phrase = f"a non-empty list of [{', '.join(['integer >= 1'] * width)}] pairs"
        test = lambda v: (isinstance(v, list) and len(v) > 0 and all(  # noqa: E731
            isinstance(x, list) and len(x) == width and all(_is_int(y) and y >= 1 for y in x) for x in v))
    elif all(isinstance(v, list) and all(_is_int(x) for x in v) for v in values):
        empty_ok = any(v == [] for v in values)  # a profile that runs none of them (exp_code_extra_seeds)
        low = _MINIMA.get((chapter, key), 0 if key.endswith(_SEED_LISTS) else 1)
        length, first, high = _LENGTHS.get((chapter, key)), _FIRST.get((chapter, key)), _MAXIMA.get((chapter, key))
        within = f">= {low}" if high is None else f"from {low} to {high}"
        phrase = (f"a list of {length} integers {within}" if length is not None else
                  f"a{'' if empty_ok else ' non-empty'} list of distinct integers {within}")
        if first is not None:
            phrase += f", the first {first}"
        test = lambda v: (isinstance(v, list) and (empty_ok or len(v) > 0) and all(  # noqa: E731
            _is_int(x) and x >= low and (high is None or x <= high) for x in v) and (len(v) == length if length is not None
                                                     else len(set(v)) == len(v))
                          and (first is None or v[0] == first))
    elif all(isinstance(v, list) and all(_is_real(x) for x in v) for v in values):
        # every such list the profiles give (inverse temperatures, widths, scales) holds numbers >= 0
        within, inside = _real_range(chapter, key)
        phrase = f"a non-empty list of {within.replace('a finite number', 'finite numbers')}"
        test = lambda v: (isinstance(v, list) and len(v) > 0 and all(  # noqa: E731
            _is_real(x) and inside(x) for x in v))
    else:  # a size of a kind not described above: only its own kind
        kinds = {type(v) for v in values}
        phrase, test = " or ".join(sorted(k.__name__ for k in kinds)), lambda v: type(v) in kinds
    if optional:
        return f"{phrase}, or null (the profile's choice)", lambda v, t=test: v is None or t(v)
    return phrase, test
