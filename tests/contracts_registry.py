"""The registry of the public API for the generated contract tests (issue 28, item 1).

Every callable named in the ``__all__`` of a module under ``mfattn/`` has one entry here, keyed
``"module:name"`` by the module that defines it (a re-export is checked where it is defined):

* :class:`Spec`: how to draw *valid* arguments (a function of Hypothesis' ``draw``), the declared domain of
  its parameters (``sigma: ">0"``), which integer parameters set buffer sizes (``N``: a huge value must be
  refused before allocating), and optionally the documented form of the result. The test mutates one
  parameter at a time into a hostile value (:func:`hostile_values`) and runs the call under the caps of
  :mod:`contracts_runner`.
* :class:`Exempt`: why generation does not reach it (an exception class, a figure drawn from a study's dict,
  a command-line ``main``, a function of the book's machinery that reads or writes stored files), and where
  its bad inputs are checked instead (the hand-written table ``tests/test_bad_inputs.py``, the CLI rows).

``test_contracts_api.test_every_public_callable_is_registered`` fails when a public callable has no entry, so
new API must be registered.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import torch

NAN, INF = float("nan"), float("inf")


@dataclass(frozen=True)
class Spec:
    """How to call one public callable with valid arguments, and what its parameters may hold.

    ``valid(draw) -> dict``: keyword arguments of a valid call (``draw`` is Hypothesis' ``data.draw``).
    ``domain``: a parameter's declared range (``">0"``, ``">=0"``, ``"[0,1]"``, ``"(0,1]"``, ``"(0,1)"``,
    ``"int>=1"``, ``"int>=0"``, ``"int>=2"``); values outside it must be refused.
    ``sizes``: a parameter and a value of it whose buffers exceed any budget (must be refused at once).
    ``skip``: parameters not mutated (devices, paths, callbacks). ``allow``: hostile kinds a parameter may
    accept (``{"tol": ("inf",)}``). ``check(kwargs, result)``: asserts the documented form of a result.
    ``call(fn, kwargs)``: how to call when keywords do not fit (``*args``). ``nonfinite_ok``: the result
    may hold NaN by design (a "no value" marker documented in the docstring).
    """

    valid: Callable[[Callable], dict]
    domain: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, Any] = field(default_factory=dict)
    skip: tuple[str, ...] = ()
    allow: dict[str, tuple[str, ...]] = field(default_factory=dict)
    check: Callable[[dict, Any], None] | None = None
    call: Callable[[Callable, dict], Any] | None = None
    nonfinite_ok: bool = False
    defaults: bool = True  # also mutate parameters left at a scalar default
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)  # other words a message may use for it


@dataclass(frozen=True)
class Exempt:
    """Not reached by generation, and why (where its bad inputs are checked instead)."""

    reason: str


# --- hostile values ----------------------------------------------------------------------------------------
#: (kind, must_raise, value) triples. ``must_raise``: the contract forbids accepting it.
Hostile = tuple[str, bool, Any]

_DOMAIN_BREAKERS: dict[str, tuple[Any, ...]] = {
    ">0": (-1.0, 0.0), ">=0": (-1.0,), "[0,1]": (-0.5, 1.5), "(0,1]": (0.0, 1.5), "(0,1)": (0.0, 1.0),
    "[0,1)": (-0.5, 1.0), "int>=1": (0, -1), "int>=0": (-1,), "int>=2": (1, 0), "<0": (1.0, 0.0),
}


def hostile_values(name: str, value: Any, spec: Spec) -> list[Hostile]:
    """The hostile mutations of parameter ``name`` whose valid value is ``value``."""
    allowed = spec.allow.get(name, ())
    out: list[Hostile] = []
    if isinstance(value, bool) or value is None or callable(value) and not isinstance(value, torch.nn.Module):
        out = []
    elif isinstance(value, torch.Generator) or isinstance(value, np.random.Generator):
        out = [("type", True, 3), ("none", False, None)]
    elif isinstance(value, torch.Tensor):
        out = _tensor_hostiles(value)
    elif isinstance(value, np.ndarray):
        out = _array_hostiles(value)
    elif isinstance(value, (float, np.floating)):
        out = [("nan", True, NAN), ("inf", True, INF), ("-inf", True, -INF), ("complex", True, 1.0 + 1.0j),
               ("str", False, "x"), ("negative", False, -1.0)]
    elif isinstance(value, (int, np.integer)):
        out = [("float", False, 2.5), ("negative", False, -1), ("str", False, "3"), ("bool", False, True),
               ("nan", True, NAN)]
    elif isinstance(value, str):
        out = [("unknown", False, "no-such-option"), ("int", False, 3)]
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, (float, np.floating)) for v in value):
        out = [("nan-entry", True, type(value)([*value[:-1], NAN])), ("inf-entry", True, type(value)([*value[:-1], INF])),
               ("empty", False, type(value)()), ("str", False, "x")]
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                             for v in value):
        out = [("negative-entry", False, type(value)([-1, *value[1:]])), ("float-entry", False, type(value)([2.5])),
               ("empty", False, type(value)()), ("str", False, "x")]
    else:  # objects: models, layers, dicts, results
        out = [("none", False, None), ("str", False, "x")]
    for bad in _DOMAIN_BREAKERS.get(spec.domain.get(name, ""), ()):
        out.append((f"domain{spec.domain[name]}:{bad}", True, bad))
    if name in spec.sizes:
        out.append(("huge", True, spec.sizes[name]))
    return [(k, must and k not in allowed, v) for k, must, v in out]


def _tensor_hostiles(t: torch.Tensor) -> list[Hostile]:
    if t.is_floating_point() and t.numel() > 0:
        nan, inf = t.clone(), t.clone()
        nan.view(-1)[0], inf.view(-1)[-1] = NAN, INF
        return [("nan-entry", True, nan), ("inf-entry", True, inf), ("complex", True, t.to(torch.complex128)),
                ("integer", True, t.round().long()), ("list", False, t.tolist()), ("extra-dim", False, t.unsqueeze(0)),
                ("flat", False, t.reshape(-1))]
    if t.dtype == torch.bool:
        return [("float", False, t.double()), ("flat", False, t.reshape(-1))]
    return [("float", False, t.double() + 0.5), ("negative", False, -t - 1), ("list", False, t.tolist())]


def _array_hostiles(a: np.ndarray) -> list[Hostile]:
    if a.dtype.kind == "f" and a.size > 0:
        nan, inf = a.copy(), a.copy()
        nan.flat[0], inf.flat[-1] = NAN, INF
        return [("nan-entry", True, nan), ("inf-entry", True, inf), ("complex", True, a.astype(np.complex128)),
                ("integer", True, np.round(a).astype(np.int64)), ("extra-dim", False, a[None]),
                ("str", False, "x")]
    if a.dtype.kind == "b":
        return [("float", False, a.astype(float)), ("flat", False, a.reshape(-1))]
    return [("float", False, a.astype(float) + 0.5), ("negative", False, -a - 1), ("str", False, "x")]


# --- the public API ----------------------------------------------------------------------------------------
def public_callables() -> dict[str, Any]:
    """``{"module:name": object}`` for every callable in every ``__all__`` under mfattn, keyed by the module
    that defines it (re-exports collapse onto their definition)."""
    import mfattn

    found: dict[str, Any] = {}
    for info in pkgutil.walk_packages(mfattn.__path__, "mfattn."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not callable(obj) or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue  # constants (colour maps, numbers) are not API to call
            home = getattr(obj, "__module__", info.name)
            if not home.startswith("mfattn"):
                home = info.name
            found[f"{home}:{obj.__qualname__}"] = obj
    return found


def mutable_parameters(fn: Any, spec: Spec, kwargs: dict) -> dict[str, Any]:
    """The parameters one example may mutate, with their valid values: those ``kwargs`` gives, and (when
    ``spec.defaults``) those left at a scalar default (a number or a word)."""
    params = dict(kwargs)
    if spec.defaults:
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            sig = None
        for p in (sig.parameters.values() if sig else ()):
            if p.name in params or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is p.empty:
                continue
            if isinstance(p.default, (int, float, str)) and not isinstance(p.default, bool):
                params[p.name] = p.default
    return {k: v for k, v in params.items() if k not in spec.skip}
