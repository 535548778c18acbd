"""Argument checks shared by the public entry points: one clear message naming the parameter.

Every public function of mfattn checks its arguments with these before any numpy/torch work, so
bad input gives ``ValueError``/``TypeError`` saying which parameter was wrong and what was expected,
never a traceback from deep inside a library and never a silent NaN.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

__all__ = ["check_choice", "check_int", "check_real", "check_positive", "check_probability",
           "check_generator", "check_tensor", "check_device", "check_grid"]


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ``ValueError`` listing them."""
    try:
        ok = value in choices
    except TypeError:  # unhashable or incomparable values
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_int(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer (not a bool) in ``[minimum, maximum]``, else raise."""
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
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        if hasattr(value, "ndim") and getattr(value, "ndim") == 0 and hasattr(value, "item"):
            return check_real(name, value.item(), minimum=minimum, maximum=maximum, strict=strict,
                              allow_inf=allow_inf)
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    value = float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    low_bad = minimum is not None and (value <= minimum if strict else value < minimum)
    if low_bad or (maximum is not None and value > maximum):
        lo = "" if minimum is None else (f"> {minimum:g}" if strict else f">= {minimum:g}")
        hi = "" if maximum is None else f"<= {maximum:g}"
        raise ValueError(f"{name} must be {' and '.join(p for p in (lo, hi) if p)}; got {value!r}")
    return value


def check_positive(name: str, value: Any, allow_inf: bool = False) -> float:
    """A real number ``> 0`` (finite unless ``allow_inf``)."""
    return check_real(name, value, minimum=0.0, strict=True, allow_inf=allow_inf)


def check_probability(name: str, value: Any, *, open_low: bool = False) -> float:
    """A real number in ``[0, 1]`` (``(0, 1]`` when ``open_low``)."""
    return check_real(name, value, minimum=0.0, maximum=1.0, strict=open_low)


def check_generator(name: str, value: Any, kind: str = "torch") -> Any:
    """``value`` if it is a ``torch.Generator`` (``kind="torch"``) or ``numpy.random.Generator``."""
    if kind == "torch":
        import torch

        if not isinstance(value, torch.Generator):
            raise TypeError(f"{name} must be a torch.Generator (for reproducibility); got {type(value).__name__}")
    elif not isinstance(value, np.random.Generator):
        raise TypeError(f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)); "
                        f"got {type(value).__name__}")
    return value


def check_tensor(name: str, value: Any, *, ndim: int | Sequence[int] | None = None,
                 shape: Sequence[int | None] | None = None, dtype: Any = None, finite: bool = True) -> Any:
    """``value`` if it is a torch tensor of the given ``ndim``/``shape`` (``None`` entries match any
    size) and ``dtype``, with only finite entries when ``finite``; else a clear error."""
    import torch

    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor; got {type(value).__name__}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if value.dim() not in allowed:
            raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimensions; "
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
    """A non-empty 1-d float64 array of finite values (each ``>= minimum``, or ``>`` when ``strict``)."""
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
