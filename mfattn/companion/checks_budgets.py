"""The memory and work budgets of a call (:mod:`mfattn.companion.checks` re-exports them): the bytes its buffers
may take (:func:`max_bytes`, ``$MFATTN_MAX_BYTES``) and the work its loops may do (:func:`max_work`,
``$MFATTN_MAX_WORK``), read from the environment by one reader (:func:`env_positive`); a call past either is refused
at once, before numpy or torch allocates or any loop starts."""

from __future__ import annotations

import math
import os
import re
from typing import Any

import numpy as np

from .checks_scalars import check_real, is_integer

__all__ = ["env_positive", "max_bytes", "check_alloc", "max_work", "check_work", "admit_chapter_work",
           "DEFAULT_MAX_WORK", "CHAPTER_MAX_WORK"]


def _available_bytes() -> int | None:
    """``MemAvailable`` of /proc/meminfo (Linux), else physical memory from ``sysconf``; None if unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def env_positive(name: str, unit: str, at_least: float = 0.0) -> float | None:
    """The positive finite number in the environment variable ``name`` (None when unset or blank), at least
    ``at_least`` when that is given (1 for a count of bytes: 1e-300 bytes is no budget); anything else is a
    ValueError naming the variable and ``unit``. One reader for every budget variable."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"env_positive: name must be the name of an environment variable (a string); got {name!r:.60}")
    if not isinstance(unit, str):
        raise TypeError(f"env_positive({name!r}): unit must be a string (what the number counts); got {unit!r:.60}")
    check_real("at_least", at_least, minimum=0.0)
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0 or value < at_least:
        raise ValueError(f"{name} must be a positive number of {unit}"
                         + (f" (at least {at_least:g})" if at_least > 0 else "") + f"; got {text!r}")
    return value


def max_bytes() -> int | None:
    """The most bytes one call may ask for: ``$MFATTN_MAX_BYTES`` when set (a reader's budget, e.g.
    ``2e9``), else the memory available now, capped by the process's address-space limit; None if unknown."""
    value = env_positive("MFATTN_MAX_BYTES", "bytes", at_least=1)
    if value is not None:
        return int(value)
    limits = [_available_bytes()]
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            limits.append(int(soft))
    except (ImportError, ValueError, OSError):
        pass
    known = [v for v in limits if v is not None]
    return min(known) if known else None


def _human(nbytes: float) -> str:
    if nbytes >= 2.0 ** 1000:   # past float's range once divided (a count of 10**400 bytes): in powers of ten
        return f"~1e{len(str(int(nbytes))) - 1} bytes"
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(nbytes) < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "bytes" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    return f"{nbytes:.1f} PiB"  # pragma: no cover


def check_alloc(name: str, nbytes: Any, *, what: str = "its buffers") -> int:
    """Refuse at once a call whose buffers would take ``nbytes`` (more than :func:`max_bytes`).

    ``name`` is the parameter (or ``name=value``) that sets the size; the error says how many bytes the
    call would need and the budget, before numpy or torch tries (and fails, in their own words) to allocate
    them. Returns ``nbytes`` as an int."""
    if is_integer(nbytes) and nbytes >= 0:
        need = int(nbytes)  # exact, however large (a float would overflow past 1e308)
    else:
        need = math.ceil(check_real("nbytes", nbytes, minimum=0.0))   # a fraction of a byte still needs one
    budget = max_bytes()
    if budget is not None and need > budget:
        raise ValueError(f"{name} makes {what} need {need:,} bytes ({_human(need)}), more than the "
                         f"{_human(budget)} available; ask for less, or set MFATTN_MAX_BYTES to raise the budget")
    return need


#: The work budget of one call made on its own: 10¹⁰ units. A unit is about a nanosecond of the package's loops
#: single-threaded (:mod:`mfattn.companion.work` counts each iteration at its size, and at least its Python
#: overhead), so a call asking for more than some seconds is refused at once, naming the parameter; a count such as
#: ``steps=10**9`` never runs for hours unasked. ``$MFATTN_MAX_WORK`` raises (or lowers) it.
DEFAULT_MAX_WORK = 1e10

#: The name of a budget variable :func:`check_work` may point to: one of the package's ``MFATTN_*`` variables.
_ENV_RE = re.compile(r"MFATTN_[A-Z0-9_]+\Z")

#: The work budget of one call inside a chapter's run: 10¹⁵ units. A chapter's run
#: (:class:`~mfattn.companion.chapter.ChapterRun`, any profile) and asking for a chapter's full profile
#: (:func:`mfattn.companion.profiles.get_profile` with ``"full"``, as every command line with ``--profile full``
#: does) admit it for the rest of the process (:func:`admit_chapter_work`); the quick sizes alone do not. The
#: full profile's largest call counts at most 5.8e12 units (chapter 1's sweeps, every solve at its full iteration
#: budget), and the run as a whole is bounded by :func:`mfattn.companion.profiles.check_run_work` (at most 10 times the
#: full profile's work) before its first cell. ``$MFATTN_MAX_WORK``, when set, is the budget in both cases.
CHAPTER_MAX_WORK = 1e15

_CHAPTER_ADMITTED = [False]


def admit_chapter_work() -> None:
    """Let every later call of this process do up to :data:`CHAPTER_MAX_WORK` (a chapter's profile was asked for:
    its sizes are the chapter's, whose run is bounded as a whole). Idempotent; ``$MFATTN_MAX_WORK`` still wins."""
    _CHAPTER_ADMITTED[0] = True


def max_work() -> float:
    """The most work units one call may ask for: ``$MFATTN_MAX_WORK`` when set (e.g. ``1e15``), else
    :data:`CHAPTER_MAX_WORK` once a chapter's profile was asked for in this process (:func:`admit_chapter_work`), else
    :data:`DEFAULT_MAX_WORK`. A budget that is not a positive finite number is a ValueError naming it."""
    value = env_positive("MFATTN_MAX_WORK", "work units")
    if value is not None:
        return value
    return CHAPTER_MAX_WORK if _CHAPTER_ADMITTED[0] else DEFAULT_MAX_WORK


def check_work(name: str, units: Any, budget: Any = None, *, what: str = "the call",
               unit: str = "work units", env: str = "MFATTN_MAX_WORK") -> float:
    """Refuse at once a call whose loops would do ``units`` of work (more than ``budget``).

    A loop's length is set by its arguments (steps, iterations, grid points); a value such as ``10**15``
    passes every type check and then runs for days. ``units`` is the work the call would do (β-steps,
    iterations × size, in the caller's ``unit``), ``budget`` the most it may do (default :func:`max_work`);
    ``name`` is the parameter (or ``name=value``) that sets it, and ``env`` the variable that raises the
    budget (an ``MFATTN_`` variable: the package reads no other; ``env="PATH"`` is a ValueError naming ``env``). The
    error names both before any loop starts. Returns ``units`` as a float (huge integers too)."""
    if not isinstance(env, str) or not _ENV_RE.match(env):
        raise ValueError(f"env must name the MFATTN_ variable that raises the budget (e.g. 'MFATTN_MAX_WORK'); got "
                         f"{env!r:.60}")
    if is_integer(units) and units >= 0:
        need = float(units) if units < 10**300 else math.inf  # exact enough; never an OverflowError
    else:
        need = check_real("units", units, minimum=0.0, allow_inf=True)
    limit = max_work() if budget is None else check_real("budget", budget, minimum=0.0, strict=True,
                                                          allow_inf=True)
    if need > limit:
        raise ValueError(f"{name} makes {what} do {need:.3g} {unit}, more than the budget of {limit:.3g}; ask "
                         f"for less, or set {env} to raise the budget")
    return need
