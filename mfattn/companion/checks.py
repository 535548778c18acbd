"""Argument checks shared by the public entry points: one clear message naming the parameter.

Every public function of mfattn checks its arguments with these before any numpy/torch work, so
bad input gives ``ValueError``/``TypeError`` saying which parameter was wrong and what was expected,
never a traceback from deep inside a library and never a silent NaN.
"""

from __future__ import annotations

import functools
import math
import os
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["check_choice", "check_strings", "check_bool", "check_int", "check_real", "check_edges", "check_positive", "check_probability",
           "check_generator", "check_tensor", "check_device", "check_grid", "check_array", "check_alloc",
           "max_bytes", "check_path", "check_work", "max_work", "env_positive", "check_rule", "contract"]


#: The most entries :func:`check_strings` takes (names of modules, chapters, claims: never more than thousands).
MAX_STRINGS = 1_000_000


def check_strings(name: str, value: Any, what: str = "strings") -> list[str]:
    """``value`` as a list, if it is an iterable of strings and not one string (which would iterate by character);
    else a TypeError naming ``name`` and ``what`` the strings are (e.g. "module names")."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be an iterable of {what} (a list, not a single string); got {type(value).__name__}")
    import itertools

    # an endless iterator (itertools.count(), iter(int, 1)) would fill the memory: no list of names is this long
    value = list(itertools.islice(value, MAX_STRINGS + 1))
    if len(value) > MAX_STRINGS:
        raise ValueError(f"{name} must hold at most {MAX_STRINGS:,} {what}; got more (an endless iterator?)")
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must hold {what} (strings); got an entry {bad[0]!r}"[:200])
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is True or False (numpy's bool too); a string such as "no" (which Python reads as True) or a
    number is a TypeError naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {type(value).__name__} {value!r:.40}")
    return bool(value)


def _same_choice(value: Any, choice: Any) -> bool:
    """``value`` is ``choice`` as a choice: equal and of the same kind (a string only matches a string, an integer an
    integer, True/False only True/False), so 1.0 does not pass for 1 nor a one-element array for its string."""
    import numbers

    if isinstance(choice, str) or isinstance(value, str):
        return isinstance(value, str) and isinstance(choice, str) and value == choice
    if choice is None or value is None:
        return value is choice
    flags = [(isinstance(x, (bool, np.bool_)), isinstance(x, numbers.Integral), isinstance(x, numbers.Number))
             for x in (value, choice)]
    if flags[0] != flags[1]:
        return False
    try:
        return bool(value == choice)
    except (TypeError, ValueError):   # an object whose == is not a truth value
        return False


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices`` (equal and of the same kind: ``1.0`` is not the choice ``1``, an
    array is no choice), else raise ``ValueError`` listing them. ``choices`` is a sequence (not one string, whose
    substrings would pass)."""
    if isinstance(choices, (str, bytes)) or not isinstance(choices, (tuple, list, frozenset, set)) and not (
            hasattr(choices, "__iter__") and hasattr(choices, "__len__")):
        raise TypeError(f"check_choice({name!r}): choices must be a tuple or list of the allowed values, not "
                        f"{type(choices).__name__} {choices!r:.60}")
    if isinstance(value, (np.ndarray, bytes)) or hasattr(value, "detach"):   # arrays and tensors are no choice
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {type(value).__name__} "
                         f"{value!r:.60}")
    if not any(_same_choice(value, c) for c in choices):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r:.200}")
    return value


def check_path(name: str, value: Any):
    """``value`` as a :class:`pathlib.Path` if it is a path (a string or an ``os.PathLike``), else a TypeError naming
    ``name``."""
    import os
    from pathlib import Path

    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (a string or os.PathLike); got {type(value).__name__} {value!r}"[:200])
    try:
        text = os.fspath(value)
    except TypeError as err:   # an os.PathLike whose __fspath__ returns neither str nor bytes
        raise TypeError(f"{name} must be a path (a string or os.PathLike giving a string): {err}"[:200]) from None
    if not isinstance(text, str):   # bytes from __fspath__: every path of mfattn is text
        raise TypeError(f"{name} must be a path given as text; its __fspath__ returned {type(text).__name__}"[:200])
    if "\0" in text:
        raise ValueError(f"{name} must be a path without NUL characters; got {text!r}"[:200])
    if not text:   # Path("") is the working folder: an empty name is never meant as that
        raise ValueError(f"{name} must be a non-empty path; got ''")
    try:
        os.fsencode(text)
    except UnicodeEncodeError as err:   # a lone surrogate no file system name can hold
        raise ValueError(f"{name} must be a path the file system can encode; {text!r:.80} has "
                         f"{text[err.start:err.end]!r} at {err.start}") from None
    value = text
    long = [p for p in Path(value).parts if len(os.fsencode(p)) > 255]
    if long:                   # no file system takes a longer name: it would fail later, deep in the OS
        raise ValueError(f"{name} has a part longer than 255 bytes ({len(os.fsencode(long[0]))}): {long[0][:40]}...")
    return Path(value)


def _no_meta(name: str, value: Any) -> Any:
    """``value``, unless it is a torch tensor on the 'meta' device (a shape and a dtype without values: nothing can
    be checked or computed from it), which is a ValueError naming ``name``."""
    if getattr(getattr(value, "device", None), "type", None) == "meta":
        raise ValueError(f"{name} is a tensor on the 'meta' device (a shape and dtype without values); give a tensor "
                         f"with values (on the CPU or a CUDA device); got shape {tuple(value.shape)}")
    return value


def _strided(name: str, value: Any) -> Any:
    """``value``, unless it is a sparse or quantized torch tensor (its entries are not a plain array: numpy and most
    torch operations refuse it deep inside), which is a TypeError naming ``name``."""
    import torch

    if value.layout != torch.strided:
        raise TypeError(f"{name} must be a dense tensor; got layout {value.layout} (call .to_dense())")
    if value.is_quantized:
        raise TypeError(f"{name} must be a plain (not quantized) tensor; got dtype {value.dtype} (call .dequantize())")
    return value


def _dims(name: str, ndim: Any) -> tuple[int, ...]:
    """The allowed numbers of dimensions ``ndim`` (an integer or a sequence of them) as a tuple of ints."""
    items = [ndim] if isinstance(ndim, (int, np.integer)) else ndim
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"the check of {name}: ndim must be an integer or a sequence of them; got {ndim!r:.60}")
    items = list(items)
    if not items or any(isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d < 0
                        for d in items):
        raise TypeError(f"the check of {name}: ndim must be an integer >= 0 or a sequence of them; got {ndim!r:.60}")
    return tuple(int(d) for d in items)


def check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) in ``[minimum, maximum]``, else raise."""
    for bound, what in ((minimum, "minimum"), (maximum, "maximum")):
        if (bound is not None or what == "minimum") and (isinstance(bound, bool)
                                                         or not isinstance(bound, (int, np.integer))):
            raise TypeError(f"check_int({name!r}): {what} must be an integer; got {bound!r}")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum or (
            maximum is not None and value > maximum):
        if maximum is not None:
            expected = f"an integer in [{minimum}, {maximum}]"
        else:
            expected = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {expected}; got {value!r}")
    return int(value)


def check_real(name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None,
               strict: bool = False, allow_inf: bool = False) -> float:
    """Return ``value`` as a float if it is a real number (not a bool, not NaN, finite unless
    ``allow_inf``) within ``[minimum, maximum]`` (open at ``minimum`` when ``strict``), else raise."""
    if strict.__class__ is not bool or allow_inf.__class__ is not bool:   # "no" would read as True
        check_bool("strict", strict)
        check_bool("allow_inf", allow_inf)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        if hasattr(value, "ndim") and getattr(value, "ndim") == 0 and hasattr(value, "item"):
            _no_meta(name, value)
            return check_real(name, value.item(), minimum=minimum, maximum=maximum, strict=strict,
                              allow_inf=allow_inf)
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    if isinstance(value, (int, np.integer)) and abs(int(value)) > 1.7976931348623157e308:
        raise ValueError(f"{name} must be a finite number; got an integer too large for a float (~1e{len(str(abs(int(value)))) - 1})")
    value = float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    for bound, given in (("minimum", minimum), ("maximum", maximum)):
        if given is not None and (isinstance(given, bool) or not isinstance(given, (int, float, np.integer, np.floating))
                                  or math.isnan(float(given))):
            raise ValueError(f"check_real's {bound} (for {name}) must be None or a number, not NaN; got {given!r}")
    low_bad = minimum is not None and (value <= minimum if strict else value < minimum)
    if low_bad or (maximum is not None and value > maximum):
        lo = "" if minimum is None else (f"> {minimum:g}" if strict else f">= {minimum:g}")
        hi = "" if maximum is None else f"<= {maximum:g}"
        raise ValueError(f"{name} must be {' and '.join(p for p in (lo, hi) if p)}; got {value!r}")
    return value


def check_edges(low_name: str, low: Any, high_name: str, high: Any, *, strict: bool = False,
                minimum: float | None = None, maximum: float | None = None, open_range: bool = False,
                allow_inf: bool = False) -> tuple[float, float]:
    """Two thresholds of one rule, ``low`` at most ``high`` (below it when ``strict``; equal edges leave a rule's
    'partly' band empty, which a moved threshold may do): each a finite real number (not
    a bool, not NaN) in ``[minimum, maximum]`` (open at ``minimum`` when ``open_range``), e.g. a 'holds' edge and the
    looser 'partly' edge of a rule, or the two ends of an interval (``allow_inf``: an infinite end too, the interval
    of a test that does not reject). A wrong kind is a TypeError, a NaN, a value out of
    range or the pair in the wrong order a ValueError naming both. Returns ``(low, high)`` as floats."""
    for flag, value in (("strict", strict), ("open_range", open_range), ("allow_inf", allow_inf)):
        check_bool(flag, value)
    a = check_real(low_name, low, minimum=minimum, maximum=maximum, strict=open_range, allow_inf=allow_inf)
    b = check_real(high_name, high, minimum=minimum, maximum=maximum, strict=open_range, allow_inf=allow_inf)
    if a > b or (strict and a == b):
        raise ValueError(f"{low_name} must be {'below' if strict else 'at most'} {high_name}; got {low_name}={low!r}, "
                         f"{high_name}={high!r}")
    return a, b


def check_positive(name: str, value: Any, allow_inf: bool = False) -> float:
    """A real number ``> 0`` (finite unless ``allow_inf``)."""
    return check_real(name, value, minimum=0.0, strict=True, allow_inf=allow_inf)


def check_probability(name: str, value: Any, *, open_low: bool = False) -> float:
    """A real number in ``[0, 1]`` (``(0, 1]`` when ``open_low``)."""
    return check_real(name, value, minimum=0.0, maximum=1.0, strict=open_low)


def check_generator(name: str, value: Any, kind: str = "torch") -> Any:
    """``value`` if it is a ``torch.Generator`` (``kind="torch"``) or ``numpy.random.Generator`` (``kind="numpy"``)."""
    check_choice("kind", kind, ("torch", "numpy"))
    if kind == "torch":
        import torch

        if not isinstance(value, torch.Generator):
            raise TypeError(f"{name} must be a torch.Generator (for reproducibility); got {type(value).__name__}")
    elif not isinstance(value, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)); "
                        f"got {type(value).__name__}")
    return value


def check_tensor(name: str, value: Any, *, ndim: int | Sequence[int] | None = None,
                 shape: Sequence[int | None] | None = None, dtype: Any = None, finite: bool = True,
                 real: bool = False) -> Any:
    """``value`` if it is a torch tensor of the given ``ndim``/``shape`` (``None`` entries match any
    size) and ``dtype``, with only finite entries when ``finite``; else a clear error. ``real=True``
    asks for a real floating-point dtype: an integer, bool or complex tensor is refused, not cast."""
    import torch

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor; got {type(value).__name__}")
    _no_meta(name, value)
    _strided(name, value)
    for flag, given in (("finite", finite), ("real", real)):
        check_bool(flag, given)
    if value.is_complex() or (real and not value.is_floating_point()):
        raise TypeError(f"{name} must be a real floating-point tensor; got dtype {value.dtype}")
    if ndim is not None:
        allowed = _dims(name, ndim)
        if value.dim() not in allowed:
            raise ValueError(f"{name} must have shape with {' or '.join(map(str, allowed))} dimensions; "
                             f"got shape {tuple(value.shape)}")
    if shape is not None:
        if value.dim() != len(shape) or any(s is not None and s != v for s, v in zip(shape, value.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}; got {tuple(value.shape)}")
    if dtype is not None and value.dtype != dtype:
        raise TypeError(f"{name} must have dtype {dtype}; got {value.dtype}")
    if finite and value.is_floating_point() and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return value


def check_device(name: str, value: Any):
    """A ``torch.device`` from ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a device; CUDA must be present."""
    import torch

    if isinstance(value, torch.device):
        device = value
    elif isinstance(value, str) and (value == "cpu" or value == "cuda" or value.startswith("cuda:")):
        try:
            device = torch.device(value)
        except RuntimeError:
            raise ValueError(f"{name} must be 'cpu', 'cuda' or 'cuda:N'; got {value!r}") from None
    else:
        raise ValueError(f"{name} must be 'cpu', 'cuda' or 'cuda:N' (or a torch.device); got {value!r}")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name}={str(device)!r} was asked for, but torch sees no CUDA device "
                         f"(torch {torch.__version__}); use 'cpu' or install a CUDA build of torch")
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"{name} must be a CPU or CUDA device; got {str(device)!r}")
    return device


def check_grid(name: str, values: Any, *, minimum: float | None = None, strict: bool = False) -> np.ndarray:
    """A non-empty 1-d float64 array of finite values (each ``>= minimum``, or ``>`` when ``strict``); complex
    values are refused, never cast to their real part. A torch tensor is read as its values (one that requires grad
    too: a grid is numbers, no gradient flows through it); a 'meta' tensor, which has none, is refused."""
    check_bool("strict", strict)
    if minimum is not None:
        minimum = check_real(f"the minimum of {name}", minimum)
    if hasattr(values, "detach") and hasattr(values, "requires_grad"):   # torch tensor
        _no_meta(name, values)
        _strided(name, values)
        if not values.is_complex() and values.is_floating_point() and values.itemsize < 4:
            values = values.double()   # bfloat16 and float16 have no numpy twin to read; float64 holds them exactly
        if values.requires_grad:
            values = values.detach()
    if np.iscomplexobj(values) or (isinstance(values, (list, tuple)) and any(isinstance(v, complex) for v in values)):
        raise TypeError(f"{name} must hold real numbers; got complex values")
    # numpy would read '0.1' as 0.1 and True as 1.0: a grid is numbers, never text or truth values
    items = values if isinstance(values, (list, tuple)) else [values]
    if (any(isinstance(v, (str, bytes, bool, np.bool_)) for v in items)
            or (isinstance(values, np.ndarray) and values.dtype.kind in "USbO")):
        raise TypeError(f"{name} must hold real numbers (not text or True/False); got {values!r}")
    try:
        arr = np.atleast_1d(np.asarray(values, dtype=np.float64))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or a 1-d sequence of numbers; got {values!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence of numbers; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite numbers")
    if minimum is not None and (np.any(arr <= minimum) if strict else np.any(arr < minimum)):
        raise ValueError(f"{name} must contain only values {'>' if strict else '>='} {minimum:g}")
    return arr


def check_array(name: str, value: Any, *, ndim: int | Sequence[int] | None = None, finite: bool = True,
                integer: bool = False, allow_int: bool = False) -> np.ndarray:
    """``value`` (a numpy array, torch tensor, number or nested list) as a numpy array of reals.

    True/False (a bool array, a list of them, a lone bool), a complex array, and an integer *array* where reals are
    expected are refused (``TypeError``), never cast; ``integer=True`` asks for whole numbers instead (integer dtype, or floats that are whole).
    ``allow_int=True`` accepts integer arrays too (counts where any number will do). Non-finite entries are
    refused when ``finite``; ``ndim`` is checked when given. Returns float64 (int64 when ``integer``)."""
    for flag, given in (("finite", finite), ("integer", integer), ("allow_int", allow_int)):
        check_bool(flag, given)
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # torch tensor
        value = _strided(name, _no_meta(name, value)).detach().cpu()
        if value.is_floating_point() and value.itemsize < 4 and not value.is_complex():
            value = value.double()   # bfloat16 (no numpy twin) and float16: float64 holds them exactly
        value = value.resolve_conj().resolve_neg().numpy()
    declared = getattr(value, "dtype", None)
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be an array of numbers; got {type(value).__name__}") from None
    kind = arr.dtype.kind
    if kind == "c":
        raise TypeError(f"{name} must hold real numbers; got complex dtype {arr.dtype}")
    if kind not in "iuf":   # True/False are not numbers here, however they come (numpy would read them as 1/0)
        raise TypeError(f"{name} must be an array of numbers; got dtype {arr.dtype}")
    if integer:
        if kind == "f" and not (np.isfinite(arr).all() and (arr == np.round(arr)).all()):
            raise ValueError(f"{name} must hold whole numbers")
        # int64 holds |x| < 2**63 only: a larger entry would wrap around (uint64) or become -2**63 (a float)
        if arr.size and (kind == "u" and int(arr.max()) > np.iinfo(np.int64).max
                         or kind == "f" and float(np.abs(arr).max()) >= 2.0 ** 63):
            raise ValueError(f"{name} must hold whole numbers of magnitude below 2**63 (int64); got "
                             f"{(arr.max() if kind == 'u' else np.abs(arr).max())!r}")
        arr = arr.astype(np.int64)
    else:
        if declared is not None and (kind == "b" or (kind in "iu" and not allow_int)):
            raise TypeError(f"{name} must be a floating-point array; got dtype {arr.dtype} (cast it explicitly)")
        arr = arr.astype(np.float64)
        if finite and not np.isfinite(arr).all():
            raise ValueError(f"{name} contains NaN or infinite entries")
    if ndim is not None:
        allowed = _dims(name, ndim)
        if arr.ndim not in allowed:
            raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimensions; got shape {arr.shape}")
    return arr


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
    if isinstance(nbytes, (int, np.integer)) and not isinstance(nbytes, bool) and nbytes >= 0:
        need = int(nbytes)  # exact, however large (a float would overflow past 1e308)
    else:
        need = math.ceil(check_real("nbytes", nbytes, minimum=0.0))   # a fraction of a byte still needs one
    budget = max_bytes()
    if budget is not None and need > budget:
        raise ValueError(f"{name} makes {what} need {need:,} bytes ({_human(need)}), more than the "
                         f"{_human(budget)} available; ask for less, or set MFATTN_MAX_BYTES to raise the budget")
    return need


#: The default work budget of :func:`check_work`: 10¹³ units (β-steps, iterations × size), hours of a
#: single-threaded loop at the package's speeds; ``$MFATTN_MAX_WORK`` raises (or lowers) it.
DEFAULT_MAX_WORK = 1e13


def max_work() -> float:
    """The most work units one call may ask for: ``$MFATTN_MAX_WORK`` when set (e.g. ``1e15``), else
    :data:`DEFAULT_MAX_WORK`. A budget that is not a positive finite number is a ValueError naming it."""
    value = env_positive("MFATTN_MAX_WORK", "work units")
    return DEFAULT_MAX_WORK if value is None else value


def check_work(name: str, units: Any, budget: Any = None, *, what: str = "the call",
               unit: str = "work units", env: str = "MFATTN_MAX_WORK") -> float:
    """Refuse at once a call whose loops would do ``units`` of work (more than ``budget``).

    A loop's length is set by its arguments (steps, iterations, grid points); a value such as ``10**15``
    passes every type check and then runs for days. ``units`` is the work the call would do (β-steps,
    iterations × size, in the caller's ``unit``), ``budget`` the most it may do (default :func:`max_work`);
    ``name`` is the parameter (or ``name=value``) that sets it, and ``env`` the variable that raises the
    budget. The error names both before any loop starts. Returns ``units`` as a float (huge integers too)."""
    if isinstance(units, (int, np.integer)) and not isinstance(units, bool) and units >= 0:
        need = float(units) if units < 10**300 else math.inf  # exact enough; never an OverflowError
    else:
        need = check_real("units", units, minimum=0.0, allow_inf=True)
    limit = max_work() if budget is None else check_real("budget", budget, minimum=0.0, strict=True,
                                                          allow_inf=True)
    if need > limit:
        raise ValueError(f"{name} makes {what} do {need:.3g} {unit}, more than the budget of {limit:.3g}; ask "
                         f"for less, or set {env} to raise the budget")
    return need


# --- declared contracts: one line above a public function -----------------------------------------------------
_RANGES = {">0": dict(minimum=0.0, strict=True), ">=0": dict(minimum=0.0), "[0,1]": dict(minimum=0.0, maximum=1.0),
           "(0,1]": dict(minimum=0.0, maximum=1.0, strict=True), "": {}}


def _check_range(name: str, value: Any, bounds: str) -> float:
    """A finite real number within ``bounds`` (``""``, ``">0"``, ``">=0"``, ``"[0,1]"``, ``"(0,1]"``,
    ``"(0,1)"``, ``"[0,1)"``)."""
    if bounds in ("(0,1)", "[0,1)"):
        checked = check_real(name, value, minimum=0.0, maximum=1.0, strict=bounds.startswith("("))
        if checked >= 1.0:
            raise ValueError(f"{name} must be < 1; got {value!r}")
        return checked
    if bounds not in _RANGES:
        raise AssertionError(f"unknown range {bounds!r} for {name}")
    return check_real(name, value, **_RANGES[bounds])


def _torch_bool():
    import torch

    return torch.bool


_KINDS = ("real", "realt", "realarr", "intarray", "numbers", "int", "tensor", "anytensor", "inttensor", "nantensor",
          "array", "reals", "ints", "generator", "choice", "str", "mapping")


@functools.lru_cache(maxsize=None)
def _valid_rule(rule: str) -> None:
    """Raise ValueError if ``rule`` is no rule :func:`contract` knows (an unknown kind, or a bound its kind cannot
    read: ``"int:x"``, ``"tensor:two"``, ``"real:>1"``); parsed once per rule string."""
    kind, _, bounds = rule.rstrip("?").partition(":")
    if kind not in _KINDS:
        raise ValueError(f"unknown kind {kind!r} (one of {', '.join(_KINDS)})")
    if kind in ("int", "ints") and bounds and not bounds.lstrip("-").isdigit():
        raise ValueError(f"the bound of {kind!r} must be an integer; got {bounds!r}")
    if kind in ("tensor", "anytensor", "inttensor", "nantensor", "array", "numbers") and bounds and not (
            bounds.isdigit() or kind not in ("array", "numbers") and bounds.startswith(">=") and bounds[2:].isdigit()):
        raise ValueError(f"the bound of {kind!r} must be a number of dimensions (or '>=N'); got {bounds!r}")
    if kind in ("real", "realt", "realarr", "reals") and bounds not in _RANGES and bounds not in ("(0,1)", "[0,1)"):
        raise ValueError(f"the range of {kind!r} must be one of {sorted(_RANGES) + ['(0,1)', '[0,1)']}; got {bounds!r}")
    if kind == "reals" and bounds in ("(0,1)", "[0,1)"):
        raise ValueError(f"the range of 'reals' must be one of {sorted(_RANGES)}; got {bounds!r}")
    if kind == "generator" and bounds not in ("", "numpy", "torch"):
        raise ValueError(f"the bound of 'generator' must be 'numpy' or 'torch'; got {bounds!r}")
    if kind in ("intarray", "str") and bounds:
        raise ValueError(f"{kind!r} takes no bound; got {bounds!r}")
    if kind == "choice" and not bounds:
        raise ValueError("'choice' needs its choices ('choice:a|b')")


def check_rule(name: str, value: Any, rule: str) -> Any:
    """Check ``value`` of parameter ``name`` against a declared ``rule`` (see :func:`contract`)."""
    if not isinstance(rule, str):
        raise TypeError(f"the rule of {name!r} must be a string such as 'int:1' or 'real:>0'; got {rule!r:.60}")
    try:
        _valid_rule(rule)
    except ValueError as err:
        raise ValueError(f"the rule {rule!r} of {name!r} is no contract rule: {err}") from None
    if rule.endswith("?"):
        return None if value is None else check_rule(name, value, rule[:-1])
    kind, _, bounds = rule.partition(":")
    if kind in ("real", "realt"):
        if kind == "realt" and hasattr(value, "is_floating_point"):
            check_tensor(name, value, real=True)
            if bounds and value.numel():
                _check_range(f"every entry of {name}", float(value.detach().min()), bounds)
                _check_range(f"every entry of {name}", float(value.detach().max()), bounds)
            return value
        _check_range(name, value, bounds)
        return value
    if kind == "int":
        check_int(name, value, int(bounds or 0))
        return value
    if kind == "intarray":
        return check_array(name, value, integer=True)
    if kind == "realarr":
        arr = check_array(name, value, allow_int=True)
        if bounds and arr.size:
            _check_range(f"every entry of {name}", float(arr.min()), bounds)
            _check_range(f"every entry of {name}", float(arr.max()), bounds)
        return value
    if kind in ("tensor", "anytensor", "inttensor", "nantensor"):
        least = bounds.startswith(">=")
        check_tensor(name, value, real=kind in ("tensor", "nantensor"), finite=kind != "nantensor",
                     ndim=int(bounds) if bounds and not least else None)
        if kind == "inttensor" and (value.is_floating_point() or value.dtype == _torch_bool()):
            raise TypeError(f"{name} must be an integer tensor (labels, indices); got dtype {value.dtype}")
        if least and value.dim() < int(bounds[2:]):
            raise ValueError(f"{name} must have shape with at least {bounds[2:]} dimensions; got shape "
                             f"{tuple(value.shape)}")
        return value
    if kind == "mapping":
        from collections.abc import Mapping

        if not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a mapping (dict); got {type(value).__name__}")
        missing = [key for key in bounds.split("|") if key and key not in value
                   and not (key.isdigit() and int(key) in value)]
        if missing:
            raise ValueError(f"{name} lacks the key(s) {missing}; it needs {bounds.split('|')}")
        return value
    if kind in ("array", "numbers"):
        return check_array(name, value, ndim=int(bounds) if bounds else None, allow_int=kind == "numbers")
    if kind == "reals":
        grid = check_grid(name, value, **{k: v for k, v in _RANGES[bounds].items() if k != "maximum"})
        if bounds in ("[0,1]", "(0,1]") and np.any(grid > 1.0):
            raise ValueError(f"{name} must contain only values <= 1")
        return value
    if kind == "ints":
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"{name} must be a sequence of integers; got {type(value).__name__}")
        items = list(value)
        if not items:
            raise ValueError(f"{name} must name at least one integer")
        for item in items:
            check_int(f"each entry of {name}", item, int(bounds or 0))
        return value
    if kind == "generator":
        return check_generator(name, value, kind="numpy" if bounds == "numpy" else "torch")
    if kind == "choice":
        return check_choice(name, value, tuple(bounds.split("|")))
    if kind == "str":
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string; got {type(value).__name__}")
        return value
    raise AssertionError(f"unknown contract rule {rule!r} for {name}")  # a programming error, at import


#: The rules whose numpy scalars (np.int64(5), np.float32(2.0); not np.bool_, which is refused) :func:`contract`
#: hands on to the function as Python numbers.
_NUMPY_SCALAR_RULE = {"real": True, "realt": True, "int": True}

_WORK_MODULE = None


def _work_registry():
    """:mod:`mfattn.companion.work`, imported on the first checked call (it imports this module)."""
    global _WORK_MODULE
    if _WORK_MODULE is None:
        from . import work

        _WORK_MODULE = work
    return _WORK_MODULE


def contract(alloc: Callable[[dict], Sequence[tuple[str, float]]] | None = None, **rules: str):
    """Declare and check a public function's parameter contract at its boundary (one line above ``def``).

    Each keyword names a parameter and its rule (a trailing ``?`` also admits None); a numpy integer or float scalar
    given for an ``"int"``, ``"real"`` or ``"realt"`` parameter is a valid number and reaches the function as the
    Python int or float of the same value:

    * ``"real"``, ``"real:>0"``, ``">=0"``, ``"[0,1]"``, ``"(0,1]"``, ``"(0,1)"``: a finite real number (not a bool)
      in range; ``"realt:..."``: the same, or a real tensor with every entry in range; ``"realarr:..."``: a number
      or numpy array of finite reals in range;
    * ``"int:N"``: an integer >= N; ``"ints:N"``: a non-empty sequence of them; ``"intarray"``: whole numbers;
    * ``"tensor"``, ``"tensor:ndim"``, ``"tensor:>=ndim"``: a finite real floating-point torch tensor (a complex,
      integer or bool tensor is refused, never cast); ``"nantensor"``: the same, NaN allowed (a "no value"
      marker); ``"anytensor"``: any real dtype, finite; ``"inttensor"``: an integer tensor (labels);
    * ``"array"``: :func:`check_array`; ``"numbers"``: the same, integer arrays allowed; ``"reals:..."``: a non-empty 1-d sequence of finite reals in range;
    * ``"generator"`` (``torch.Generator``; ``"generator:numpy"``), ``"choice:a|b"``, ``"str"``,
      ``"mapping:k1|k2"`` (a dict holding those keys).

    ``alloc(arguments) -> [(parameter, bytes), ...]`` gives the buffers the call will allocate, checked by
    :func:`check_alloc` after the rules. Parameters not passed keep their (trusted) defaults. Between the two, a
    function declared in :data:`mfattn.companion.work.WORK` (by module and qualified name, looked up at call time)
    has its loops' work checked by :func:`check_work` (``steps=10**15`` refused at once, naming
    ``MFATTN_MAX_WORK``): the budgets live in the companion, not in the hashed computing modules.
    """
    import functools
    import inspect

    def wrap(fn):
        sig = inspect.signature(fn)
        unknown = sorted(set(rules) - set(sig.parameters))
        if unknown:
            raise AssertionError(f"contract of {fn.__qualname__} names unknown parameter(s) {unknown}")
        for name, rule in rules.items():  # parse once at import: a typo fails loudly here
            if not isinstance(rule, str):
                raise TypeError(f"the contract of {fn.__qualname__}: the rule of {name!r} must be a string; got "
                                f"{rule!r:.60}")
            try:
                _valid_rule(rule)
            except ValueError as err:
                raise ValueError(f"the contract of {fn.__qualname__}: the rule {rule!r} of {name!r} is no contract "
                                 f"rule: {err}") from None

        key = f"{fn.__module__}:{fn.__qualname__}"  # the name the work registry declares it under

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as err:
                raise TypeError(f"{fn.__name__}(): {err}") from None
            given = bound.arguments
            plain = {}
            for name, rule in rules.items():
                if name in given:
                    check_rule(name, given[name], rule)
                    if _NUMPY_SCALAR_RULE.get(rule.rstrip("?").partition(":")[0]) and isinstance(
                            given[name], (np.integer, np.floating)):
                        plain[name] = given[name].item()   # np.int64(5) -> 5, np.float32(2.0) -> 2.0
            given.update(plain)
            work = _work_registry()
            if key in work.WORK:  # its loops' budget (mfattn/companion/work.py), before buffers and body
                bound.apply_defaults()
                work.check_call_work(key, bound.arguments, what=f"{fn.__name__}()")
            if alloc is not None:
                bound.apply_defaults()
                for name, nbytes in alloc(bound.arguments):
                    check_alloc(name, nbytes)
            if plain:   # the body sees Python numbers (a numpy scalar is a valid number, never a float32 result)
                return fn(*bound.args, **bound.kwargs)
            return fn(*args, **kwargs)

        checked.__contract__ = dict(rules)
        return checked

    return wrap
