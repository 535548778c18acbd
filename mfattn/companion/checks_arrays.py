"""Checks of tensor, array, grid, device and generator arguments (:mod:`mfattn.companion.checks` re-exports them):
a torch tensor of the given shape and dtype, a CPU or CUDA device, a 1-d grid of reals, a numpy array of reals or whole
numbers, a seeded generator; dense values only (no meta, sparse or quantized tensor), each refusal one clear message
naming the parameter."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .checks_scalars import _no_meta, check_bool, check_choice, check_real, is_integer

__all__ = ["check_generator", "check_tensor", "check_device", "check_grid", "check_array"]


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
    """The allowed numbers of dimensions ``ndim`` (an integer, or a list or tuple of them) as a tuple of ints."""
    items = [ndim] if is_integer(ndim) else ndim
    if not isinstance(items, (list, tuple, range)):   # an array, a set, a dict or an iterator: no list of ndims
        raise TypeError(f"the check of {name}: ndim must be an integer or a sequence of them; got {ndim!r:.60}")
    items = list(items)
    if not items or any(not is_integer(d) or d < 0 for d in items):
        raise TypeError(f"the check of {name}: ndim must be an integer >= 0 or a sequence of them; got {ndim!r:.60}")
    return tuple(int(d) for d in items)


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
    """``value`` if it is a torch tensor of the given ``ndim``/``shape`` (a tuple of integer sizes, ``None`` entries
    match any size) and ``dtype``, with only finite entries when ``finite``; else a clear error. ``real=True``
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
        if (not isinstance(shape, (tuple, list))
                or any(s is not None and (not is_integer(s) or s < 0) for s in shape)):
            raise TypeError(f"the check of {name}: shape must be a sequence of sizes (integers >= 0, None for any); "
                            f"got {shape!r:.60}")
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
        values = values.resolve_neg()   # a lazily negated view (neg bit): its values, which numpy can read
        if not values.is_complex() and values.is_floating_point() and values.itemsize < 4:
            values = values.double()   # bfloat16 and float16 have no numpy twin to read; float64 holds them exactly
        if values.requires_grad:
            values = values.detach()
    if np.iscomplexobj(values) or (isinstance(values, (list, tuple)) and any(isinstance(v, complex) for v in values)):
        raise TypeError(f"{name} must hold real numbers; got complex values")
    # numpy would read '0.1' as 0.1 and True as 1.0: a grid is numbers, never text or truth values
    items = values if isinstance(values, (list, tuple)) else [values]
    if (any(isinstance(v, (str, bytes, bool, np.bool_, np.timedelta64, np.datetime64)) for v in items)
            or (isinstance(values, np.ndarray) and values.dtype.kind in "USbOmM")):
        raise TypeError(f"{name} must hold real numbers (not text, times or True/False); got {values!r:.100}")
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
    if isinstance(value, np.ma.MaskedArray):   # np.asarray reads the hidden values under the mask as numbers
        raise TypeError(f"{name} must be a plain array of numbers; got a masked array (fill or compress it first)")
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


def _result_field(owner: str, name: str, value: Any, kind: str, ndim: int | None = None,
                  shape: tuple | None = None) -> None:
    """A result container's field ``owner.name`` is a numpy array of ``kind`` ("float": real floating, NaN allowed,
    "int": integer, "bool") with ``ndim`` dimensions and, where given, ``shape``; else a TypeError or ValueError
    naming it. Cheap: dtype and shape only, never a pass over the values (the solvers' own results pass)."""
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{owner}.{name} must be a numpy array ({kind}); got {type(value).__name__}")
    ok = {"float": value.dtype.kind == "f", "int": value.dtype.kind in "iu", "bool": value.dtype == bool}[kind]
    if not ok:
        raise TypeError(f"{owner}.{name} must be a {kind} array; got dtype {value.dtype}")
    if (ndim is not None and value.ndim != ndim) or (shape is not None and value.shape != tuple(shape)):
        want = shape if shape is not None else f"{ndim} dimensions"
        raise ValueError(f"{owner}.{name} must have shape {want}; got {value.shape}")
