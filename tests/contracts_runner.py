"""Run one generated call in a child process under a time and memory cap, and judge its outcome.

The contract (issue 28): a call either returns finite results (of the documented shape, where the registry
names one) or raises ``ValueError``/``TypeError`` whose message names the parameter. A hostile value the
registry marks *must raise* (NaN, inf, a complex or integer array where reals are expected, a value outside
the declared domain, a size whose buffers exceed the budget) has to be refused; any other hostile value may
also be accepted, as long as what comes back is finite.

Each call runs in a forked child (``os.fork``: the parent's imports and the drawn arguments are already
there, so a call costs a few milliseconds of overhead), with ``RLIMIT_AS`` set to the child's present address
space plus :data:`MEMORY_CAP` (torch maps gigabytes of virtual memory at import, so an absolute 2 GiB limit
would refuse everything) and ``$MFATTN_MAX_BYTES`` set to :data:`MEMORY_CAP`; the parent kills it after
:data:`TIME_CAP` seconds.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import resource
import select
import signal
import time
import traceback
from typing import Any, Callable

import numpy as np

TIME_CAP = 5.0
MEMORY_CAP = 2 * 2**30


def nonfinite_path(obj: Any, path: str = "result", depth: int = 0) -> str | None:
    """Where in ``obj`` (nested tuples, lists, dicts, dataclasses, arrays, tensors, modules) a NaN or
    infinite number sits, or None when everything is finite."""
    import torch

    if depth > 6:
        return None
    if isinstance(obj, bool) or obj is None or isinstance(obj, (str, bytes)):
        return None
    if isinstance(obj, (int, np.integer)):
        return None
    if isinstance(obj, (float, np.floating)):
        return None if math.isfinite(obj) else path
    if isinstance(obj, complex):
        return None if math.isfinite(obj.real) and math.isfinite(obj.imag) else path
    if isinstance(obj, torch.Tensor):
        if (obj.is_floating_point() or obj.is_complex()) and not bool(torch.isfinite(obj.detach()).all()):
            return path
        return None
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc" and not np.isfinite(obj).all():
            return path
        if obj.dtype == object:
            for i, item in enumerate(obj.ravel()[:64]):
                where = nonfinite_path(item, f"{path}[{i}]", depth + 1)
                if where:
                    return where
        return None
    if isinstance(obj, torch.nn.Module):
        for name, p in list(obj.named_parameters())[:64]:
            where = nonfinite_path(p, f"{path}.{name}", depth + 1)
            if where:
                return where
        return None
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            where = nonfinite_path(getattr(obj, f.name, None), f"{path}.{f.name}", depth + 1)
            if where:
                return where
        return None
    if isinstance(obj, dict):
        for k, v in list(obj.items())[:256]:
            where = nonfinite_path(v, f"{path}[{k!r}]", depth + 1)
            if where:
                return where
        return None
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj[:256]):
            where = nonfinite_path(v, f"{path}[{i}]", depth + 1)
            if where:
                return where
    return None


def names_parameter(message: str, names: tuple[str, ...]) -> bool:
    """The message names one of ``names`` as a word (``sigma`` in "sigma must be > 0")."""
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) for n in names)


def _judge(call: Callable[[], Any], names: tuple[str, ...] | None, must_raise: bool, allow_nonfinite: bool,
           check: Callable[[Any], None] | None) -> dict:
    """Run ``call`` here and say whether it kept the contract (``{"ok": bool, "what": str}``). ``names``
    None: a valid call, which must not raise at all."""
    try:
        result = call()
    except (ValueError, TypeError) as err:
        msg = f"{type(err).__name__}: {err}"
        if names is None:
            return {"ok": False, "what": f"refused valid arguments: {msg[:400]}"}
        if names_parameter(str(err), names):
            return {"ok": True, "what": "refused: " + msg[:300]}
        return {"ok": False, "what": f"raised without naming {'/'.join(names)}: {msg[:400]}"}
    except MemoryError:
        return {"ok": False, "what": "MemoryError: the size was not checked before allocating"}
    except BaseException as err:  # noqa: BLE001 - any other exception breaks the contract
        tb = traceback.format_exc(limit=-3)
        return {"ok": False, "what": f"raised {type(err).__name__} (not ValueError/TypeError): {str(err)[:300]}\n{tb}"}
    if must_raise:
        return {"ok": False, "what": f"accepted a value it must refuse ({'/'.join(names)}); returned "
                                     f"{type(result).__name__}"}
    if not allow_nonfinite:
        where = nonfinite_path(result)
        if where:
            return {"ok": False, "what": f"returned NaN/inf at {where} (silent non-finite result)"}
    if check is not None:
        try:
            check(result)
        except AssertionError as err:
            return {"ok": False, "what": f"result not of the documented form: {err}"}
    return {"ok": True, "what": "returned finite result"}


def run_capped(call: Callable[[], Any], names: tuple[str, ...] | None = None, *, must_raise: bool = False,
               allow_nonfinite: bool = False, check: Callable[[Any], None] | None = None,
               time_cap: float = TIME_CAP, memory_cap: int = MEMORY_CAP) -> dict:
    """Run ``call`` in a forked child under the caps and return the judgement (``ok``, ``what``, ``seconds``)."""
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: cap, call, report, and leave without running the parent's exit handlers
        code = 0
        try:
            os.close(read_fd)
            import warnings

            warnings.simplefilter("ignore")
            os.environ["MFATTN_MAX_BYTES"] = str(memory_cap)
            try:
                with open("/proc/self/statm") as fh:
                    present = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            except OSError:
                present = 0
            resource.setrlimit(resource.RLIMIT_AS, (present + memory_cap, present + memory_cap))
            verdict = _judge(call, names, must_raise, allow_nonfinite, check)
            os.write(write_fd, json.dumps(verdict).encode())
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = start + time_cap
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_fd], [], [], left)
        if ready:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read_fd)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - start
    if timed_out:
        return {"ok": False, "what": f"ran past the {time_cap:g} s cap (a hang, or a size not checked)",
                "seconds": seconds}
    if not chunks:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        return {"ok": False, "what": f"the child died without a verdict (signal {sig}, status {status}): a crash "
                                     f"or an allocation past the {memory_cap / 2**30:g} GiB cap", "seconds": seconds}
    verdict = json.loads(b"".join(chunks).decode())
    verdict["seconds"] = seconds
    return verdict
