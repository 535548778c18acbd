"""Writing results: JSON encoding, where mfattn may write, temporary files and the atomic writers.

Split from :mod:`mfattn.companion.store` (which re-exports every name here, so ``store.atomic_write_json``
keeps working for every caller) so that each module holds one job and stays short enough to read whole:
this one decides *what* may be written *where* and writes it atomically.

* The data is written to a temporary file in the target's folder and renamed over the target
  (``os.replace`` is atomic on POSIX and Windows on one file system), so an interrupted run never leaves a
  half-written result. Temporary files carry the writer's PID and host (``.<name>.pid<PID>-<host>.<random>.tmp``),
  so :func:`clean_stale_temporaries` removes only those of runs that no longer run.
* Nothing is written into the filesystem root, a home folder itself or a system folder (``/etc``, ``/usr``,
  anything under ``/dev``, ``/proc``, ``/sys``: :func:`check_target_folder`): a mistyped ``out_dir="/"``
  is a one-line error, not files scattered where they do not belong.
* The JSON writer encodes the whole object first (standard JSON: no NaN, no infinity, no object that has no
  JSON form), so a refused object leaves no file behind.
"""

from __future__ import annotations

import contextlib
import decimal
import errno
import io
import json
import math
import os
import re
import socket
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .checks import check_bool, check_path, check_real

__all__ = ["finite_or_none", "make_folder", "check_target_folder", "temporary_path", "clean_stale_temporaries",
           "atomic_write_bytes", "atomic_write_text", "atomic_write_json", "atomic_save_npz"]


# --- JSON encoding ---------------------------------------------------------------------------------------------
def _check_plain(values: Any, where: str, dtype: Any) -> None:
    """``values`` (an array's ``tolist()``) holds only what ``json.dumps`` writes (numbers, strings, True/False, None,
    lists, tuples, dicts of them), else a TypeError naming where it sits: complex numbers, dates, bytes, objects."""
    if isinstance(values, (list, tuple)):
        for i, v in enumerate(values):
            _check_plain(v, f"{where}[{i}]", dtype)
    elif isinstance(values, dict) and all(k is None or isinstance(k, (str, int, float)) for k in values):
        for k, v in values.items():
            _check_plain(v, f"{where}[{k!r}]", dtype)
    elif values is not None and not isinstance(values, (str, int, float)):
        raise TypeError(f"{where or '(the value itself)'}: an array or number of dtype {dtype} holds "
                        f"{type(values).__name__} values ({values!r:.40}), which have no JSON form; store real "
                        "numbers (e.g. the real and imaginary parts) or strings")


def _tolist(obj: Any, where: str) -> Any:
    """``obj.tolist()`` of a numpy array or scalar or a torch tensor, checked to hold JSON's values only: a tensor
    that holds no values (on the meta device) or of a dtype without a JSON form is a TypeError naming ``where``."""
    try:
        values = obj.tolist()
    except (NotImplementedError, RuntimeError, TypeError, ValueError) as err:
        raise TypeError(f"{where or '(the value itself)'}: {type(obj).__name__} of dtype {obj.dtype} has no values to "
                        f"store ({str(err).splitlines()[0][:80]})") from None
    kind = getattr(obj.dtype, "kind", None)   # numpy's; a torch dtype has none (real ones give plain numbers)
    if (kind not in tuple("biufU")) if kind is not None else getattr(obj.dtype, "is_complex", False):
        _check_plain(values, where, obj.dtype)
    return values


def _jsonable(obj: Any, strict: bool = False, where: str = "", json_only: bool = False,
              repr_ok: bool = True) -> Any:
    """``obj`` as JSON-able values (dict keys sorted, numpy/torch arrays by value). Anything else is its
    ``repr`` (unless ``repr_ok=False``: then a TypeError naming where it sits); with ``strict`` (cache keys) a
    value without a stable representation is a TypeError naming where it sits: an object whose repr shows a
    memory address, a set whose items cannot be sorted. With ``json_only`` (the JSON writer) every value without a
    JSON form is a TypeError naming where it sits. An array, number or tensor whose values have no JSON form
    (complex, dates, a tensor on the meta device) is a TypeError naming where it sits in every mode."""
    if isinstance(obj, dict):
        if json_only or strict:   # JSON's keys are strings; json.dumps turns numbers into strings, nothing else
            bad = next((k for k in obj if k is not None and not isinstance(k, (str, int, float, np.number, np.bool_))),
                       None)
            if bad is not None:
                raise TypeError(f"{where or '(the value itself)'}: a key {bad!r} of type {type(bad).__name__} has no "
                                "JSON form (keys are strings or numbers)")
        if (strict or json_only) and len({str(k) for k in obj}) < len(obj):   # 1 and '1': one JSON key for two
            clash = sorted({str(k) for k in obj if sum(str(j) == str(k) for j in obj) > 1})
            raise ValueError(f"{where or '(the value itself)'}: keys {clash} of different types are one JSON key")
        return {str(k): _jsonable(v, strict, f"{where}[{str(k)!r}]", json_only, repr_ok)
                for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v, strict, f"{where}[{i}]", json_only, repr_ok) for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        if json_only and obj.dtype.kind not in "biufU":
            raise TypeError(f"{where or '(the value itself)'}: an array of dtype {obj.dtype} has no JSON form")
        return {"__ndarray__": _tolist(obj, where), "dtype": str(obj.dtype)}
    if json_only and isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist") and hasattr(obj, "dtype"):  # torch tensors, without importing torch
        return {"__tensor__": _tolist(obj, where), "dtype": str(obj.dtype)}
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if json_only or not repr_ok:
        raise TypeError(f"{where or '(the value itself)'}: {type(obj).__name__} {repr(obj)[:60]} has no JSON form; "
                        f"store numbers, strings, lists, dicts or arrays (str() it first if its text is meant)")
    if strict and isinstance(obj, (set, frozenset)):
        kinds = {type(v) for v in obj}
        try:
            if len(kinds) > 1:
                raise TypeError
            items = sorted(obj)
        except TypeError:
            raise TypeError(f"config{where}: a set of {', '.join(sorted(k.__name__ for k in kinds))} values has no "
                            f"stable order to hash; pass a sorted list instead") from None
        return [_jsonable(v, strict, f"{where}[{i}]") for i, v in enumerate(items)]
    text = repr(obj)
    if strict and (isinstance(obj, (set, frozenset)) or re.search(r"\bat 0x[0-9a-fA-F]+", text)):
        raise TypeError(f"config{where}: {type(obj).__name__} {text[:80]} has no stable representation "
                        f"(its repr shows a memory address); put the values that define it in the config instead")
    return text


def _non_finite(obj: Any, where: str = "") -> str | None:
    """Where the first NaN or infinity sits in JSON-able ``obj`` (``['a'][2]``), or None."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return where or "(the value itself)"
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, list):
        items = enumerate(obj)
    else:
        return None
    for k, v in items:
        found = _non_finite(v, f"{where}[{k!r}]")
        if found is not None:
            return found
    return None


def finite_or_none(obj: Any) -> Any:
    """``obj`` (nested dicts, lists, tuples, numbers; numpy arrays and torch tensors as nested lists) with every NaN
    or infinite float (a ``Decimal`` NaN or infinity too) replaced by None: what a result summary stores where a
    number is missing (standard JSON has null, not NaN). A tensor that holds no values (on the meta device) is a
    TypeError, an object that holds itself (or is nested too deeply) a ValueError."""
    try:
        return _finite_or_none(obj)
    except RecursionError:
        raise ValueError("finite_or_none: obj refers to itself or is nested too deeply to store") from None


def _finite_or_none(obj: Any) -> Any:
    if hasattr(obj, "tolist") and hasattr(obj, "dtype") and not isinstance(obj, np.generic):
        try:
            values = obj.tolist()
        except (NotImplementedError, RuntimeError) as err:   # a meta tensor: no values
            raise TypeError(f"finite_or_none: obj is a {type(obj).__name__} of dtype {obj.dtype} that holds no "
                            f"values ({str(err).splitlines()[0][:80]})") from None
        return _finite_or_none(values)      # an array or tensor: its numbers, NaN as None
    if isinstance(obj, dict):
        return {k: _finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_or_none(v) for v in obj]
    if isinstance(obj, (float, np.floating)) and not math.isfinite(float(obj)):
        return None
    if isinstance(obj, decimal.Decimal) and not obj.is_finite():
        return None
    return obj


def _strict_dumps(obj: Any, what: str, **kwargs: Any) -> str:
    """``json.dumps`` of ``obj`` (already JSON-able) that refuses NaN and infinity (not standard JSON),
    naming the key that holds one."""
    try:
        return json.dumps(obj, allow_nan=False, **kwargs)
    except ValueError:
        raise ValueError(f"{what}: {_non_finite(obj)} is NaN or infinite, which standard JSON cannot hold; "
                         f"write None (null) or a string saying why the number is missing") from None


# --- where mfattn may write --------------------------------------------------------------------------------------
def _symlink_loop(path: Path) -> bool:
    """True when resolving ``path`` meets a symbolic-link loop (a link that points, through others, to itself)."""
    try:
        os.path.realpath(path, strict=True)
    except OSError as err:
        return err.errno == errno.ELOOP
    except RuntimeError:   # pragma: no cover (older Pythons)
        return True
    return False


def _resolved(value: str | os.PathLike, name: str, expand: bool = True) -> Path:
    """``value`` expanded (``~``, when ``expand``) and resolved, or a ValueError naming ``name`` when it is a symlink
    loop (where ``Path.resolve`` raises a RuntimeError of its own, or an OSError, naming no parameter)."""
    path = Path(value).expanduser() if expand else Path(value)
    try:
        resolved = path.resolve()
    except (RuntimeError, OSError) as err:
        if isinstance(err, OSError) and err.errno != errno.ELOOP:
            raise
        resolved = None
    if resolved is None or _symlink_loop(path):
        raise ValueError(f"{name}: {os.fspath(value)} is a symlink loop (a symbolic link that points, through others, "
                         f"back to itself): nothing can be read or written there; point {name} at a real folder or file")
    return resolved



#: Folders nothing is written into (nor created in): the root and the system's own folders.
SYSTEM_FOLDERS = frozenset({"/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
                            "/sbin", "/sys", "/usr", "/var"})
#: Trees nothing is written anywhere inside: devices, the kernel's views and the system's programs, libraries and
#: configuration (``/var`` is refused itself only: temporary folders live below it, e.g. macOS's ``/var/folders``).
SYSTEM_TREES = ("/dev/", "/proc/", "/sys/", "/bin/", "/boot/", "/etc/", "/lib/", "/lib32/", "/lib64/", "/libx32/",
                "/sbin/", "/usr/")


def _why_refused(folder: Path, home_ok: bool = False) -> str | None:
    """Why nothing may be written into ``folder`` (a phrase), or None. The folder is checked as written and
    with its symbolic links resolved (a link to ``/etc`` is ``/etc``)."""
    seen = {Path(os.path.abspath(folder))}
    with contextlib.suppress(OSError, RuntimeError):
        seen.add(folder.resolve())
    try:
        home = {Path.home(), Path.home().resolve()}
    except (RuntimeError, KeyError, OSError):
        home = set()
    for f in seen:
        if f.parent == f:
            return "is the filesystem root"
        if not home_ok and f in home:
            return "is a home folder itself (write into a folder inside it)"
        posix = f.as_posix()
        if posix in SYSTEM_FOLDERS or re.fullmatch(r"/lib\w*", posix):
            return "is a system folder"
        tree = next((t for t in SYSTEM_TREES if posix.startswith(t)), None)
        if tree is not None:
            return f"is inside the system folder {tree.rstrip('/')}"
    return None


def check_target_folder(folder: str | os.PathLike, name: str = "path") -> Path:
    """``folder`` if files may be written into it, else a PermissionError of one line naming ``name``: the
    filesystem root, a home folder itself, a system folder (``/etc``, ``/usr``, ``/var``...) or anything inside
    ``/dev``, ``/proc`` or ``/sys`` is refused. Where ``folder`` does not exist yet, the existing folder it would
    be created in must not be the root or a system folder either (a home folder may hold new folders)."""
    folder = check_path("folder", folder).expanduser()
    if _symlink_loop(folder):   # it "does not exist" to Path.exists: it would pass as a folder still to be made
        raise ValueError(f"{name}: {folder} is a symlink loop (a symbolic link that points, through others, back to "
                         f"itself), not a folder files can be written into; choose a folder of your own")
    why = _refusal(folder)
    if why is not None:
        raise PermissionError(f"{name}: {folder} {why}; mfattn does not write there: choose a folder of "
                              f"your own (e.g. one inside your home or the project)")
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"{name}: {folder} is a file, but a folder is needed there" if folder.is_file() else
                                 f"{name}: {folder} is not a folder (a FIFO or a device stands there)")
    return folder


def _refusal(folder: Path) -> str | None:
    """Why :func:`check_target_folder` refuses ``folder`` (a phrase), or None."""
    why = _why_refused(folder)
    if why is None and not folder.exists():
        for part in Path(os.path.abspath(folder)).parents:
            if part.exists():
                inner = _why_refused(part, home_ok=True)
                if inner is not None:
                    why = f"would be created in {part}, which {inner}"
                break
    return why


def make_folder(folder: str | os.PathLike, name: str = "path") -> Path:
    """Create ``folder`` (and its parents); a file standing where a folder must be, a folder that cannot be
    created (no permission, a read-only file system) or one mfattn does not write into
    (:func:`check_target_folder`) is a clear one-line error naming ``name``."""
    folder = check_path("folder", folder)
    why = _refusal(folder.expanduser())
    if why is not None:
        raise PermissionError(f"{name}: cannot create the folder {folder}: it {why}; mfattn does not write there: "
                              f"choose a folder of your own (e.g. one inside your home or the project)")
    for part in (folder, *folder.parents):
        if part.exists() and not part.is_dir():
            raise NotADirectoryError(f"{name}: {part} is a file, but a folder is needed there (for {folder})")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise type(err)(f"{name}: cannot create the folder {folder} ({err.strerror or err})") from None
    return folder


# --- temporary files --------------------------------------------------------------------------------------------
def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def _host() -> str:
    """This machine's name as it goes into temporary file names (letters, digits and '-')."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


#: ``.<name>.pid<PID>-<host>.<random>.(tmp|ipynb)``: a temporary file of :func:`temporary_path`.
_TEMP_RE = re.compile(r"^\.(?P<name>.+)\.pid(?P<pid>\d+)-(?P<host>[A-Za-z0-9-]*)\.[A-Za-z0-9_]{6,}\.(tmp|ipynb)$")
#: ``.<name>.<random>.(tmp|ipynb)``: what versions before the PID tag wrote.
_LEGACY_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{6,}\.(tmp|ipynb)$")
#: Untagged temporary files in a cache folder older than this (s) are a killed run's.
_LEGACY_TEMP_AGE = 3600.0
#: A temporary file of another host (a shared file system) is removed when untouched this long (s).
_FOREIGN_TEMP_AGE = 7 * 24 * 3600.0


def temporary_path(folder: str | os.PathLike, name: str, suffix: str = ".tmp") -> Path:
    """Create an empty temporary file ``.<name>.pid<PID>-<host>.<random><suffix>`` in ``folder`` and return
    its path. The PID and host tell :func:`clean_stale_temporaries` whether the run that writes it still runs."""
    for label, text in (("name", name), ("suffix", suffix)):
        if not isinstance(text, str) or "/" in text or "\0" in text:
            raise TypeError(f"{label} must be a string without '/' (part of a file name); got {text!r}"[:200])
        try:
            os.fsencode(text)
        except UnicodeEncodeError as err:   # a lone surrogate: no file system name holds it
            raise ValueError(f"{label} must be text a file name can hold; {err.object[err.start:err.end]!r} at "
                             f"position {err.start} cannot be encoded") from None
    folder = make_folder(folder)
    fd, tmp = tempfile.mkstemp(prefix=f".{name[:80]}.pid{os.getpid()}-{_host()}.", suffix=suffix, dir=folder)
    os.close(fd)
    return Path(tmp)


def _pid_alive(pid: int) -> bool:
    """True when process ``pid`` of this host runs (or may: one we may not signal is counted as running)."""
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process on Windows: ask the kernel instead
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(0x00100000, False, pid)  # SYNCHRONIZE
        if not handle:
            return ctypes.get_last_error() == 5  # ERROR_ACCESS_DENIED: it exists, it is not ours
        try:
            return kernel32.WaitForSingleObject(handle, 0) == 0x102  # WAIT_TIMEOUT: still running
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def clean_stale_temporaries(folder: str | os.PathLike, older_than: float | None = None,
                            recursive: bool = True) -> list[Path]:
    """Remove our own temporary files in ``folder`` (of :func:`temporary_path`: atomic writes, papermill
    runs) whose writer no longer runs: of this host, when their PID is not alive; of another host, when
    untouched for a week. Untagged ones of older versions (``.<name>.<random>.tmp``) are removed when
    modified before ``older_than`` (a time stamp; never when it is None). Never touches anything else, and
    never the temporary file of a run still going. Returns the removed paths."""
    folder = check_path("folder", folder)
    if older_than is not None:
        check_real("older_than", older_than)
    check_bool("recursive", recursive)
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    why = _why_refused(folder.expanduser())   # a sweep that deletes files stays out of where nothing is written
    if why is not None:
        raise PermissionError(f"folder: {folder} {why}; mfattn cleans its own temporary files only in folders it "
                              "writes into")
    host, now = _host(), time.time()
    for path in (folder.rglob(".*") if recursive else folder.glob(".*")):
        try:
            if not path.is_file():
                continue
            tagged = _TEMP_RE.match(path.name)
            if tagged:
                if tagged["host"] == host:
                    stale = not _pid_alive(int(tagged["pid"]))
                else:
                    stale = path.stat().st_mtime < now - _FOREIGN_TEMP_AGE
            else:
                stale = (older_than is not None and _LEGACY_TEMP_RE.match(path.name) is not None
                         and path.stat().st_mtime < older_than)
            if stale:
                path.unlink()
                removed.append(path)
        except OSError:  # gone meanwhile (its run finished), or not ours to remove
            pass
    return removed


# --- atomic writers ---------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _atomic_target(path: Path) -> Iterator[Path]:
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; give the path of a file to write")
    if path.exists() and not path.is_file():   # a FIFO, a device or a socket would be replaced by the rename
        raise PermissionError(f"{path} is not written: something other than a regular file stands there (a FIFO, a "
                              "device or a socket); mfattn replaces only regular files")
    why = _refusal(path.parent.expanduser())
    if why is not None:
        raise PermissionError(f"{path} is not written: its folder {path.parent} {why}; mfattn does not write there: "
                              f"choose a folder of your own (e.g. one inside your home or the project)")
    make_folder(path.parent)
    tmp_path = temporary_path(path.parent, path.name)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_UMASK)  # mkstemp makes 0600 files; results are ordinary files
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` (bytes) to ``path`` atomically (temporary file + rename), never into the filesystem
    root, a home folder itself or a system folder (:func:`check_target_folder`)."""
    path = check_path("path", path)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"{path}: data must be bytes; got {type(data).__name__}")
    if isinstance(data, memoryview) and not data.c_contiguous:   # write() takes only a contiguous buffer
        raise ValueError(f"{path}: data must be a C-contiguous buffer; got a non-contiguous memoryview of shape "
                         f"{data.shape} (bytes(data) copies it in order)")
    with _atomic_target(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write_bytes`)."""
    check_path("path", path)
    if not isinstance(text, str):
        raise TypeError(f"{path}: text must be a string; got {type(text).__name__}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as err:   # a lone surrogate (e.g. from a file name decoded with surrogateescape)
        raise ValueError(f"{path}: text is not valid Unicode (UTF-8 cannot encode {err.object[err.start:err.end]!r} "
                         f"at position {err.start}); nothing written") from None
    return atomic_write_bytes(path, data)


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write standard JSON (indented, keys sorted, numpy/torch values converted) atomically.

    The whole object is encoded before any file is made: NaN and infinity (ValueError naming the file and
    the key: strict JSON readers reject them, so a caller writes None or a string saying why a number is
    missing) and values without a JSON form (an object, a function, a set: TypeError naming the file and
    the key) leave nothing behind."""
    path = check_path("path", path)
    try:
        plain = _jsonable(obj, json_only=True)
    except TypeError as err:
        raise TypeError(f"{path}: {err}") from None
    except RecursionError:
        raise ValueError(f"{path}: the object is nested too deeply (or holds itself) to write as JSON") from None
    return atomic_write_text(path, _strict_dumps(plain, str(path), indent=2, sort_keys=True) + "\n")


def _as_array(path: Any, key: str, value: Any) -> np.ndarray:
    """``np.asarray(value)``, or an error naming ``path`` and the array ``key``: a ragged nested list (ValueError), a
    tensor that requires grad, lives on the meta device or has a dtype numpy lacks (TypeError)."""
    try:
        return np.asarray(value)
    except ValueError as err:
        raise ValueError(f"{path}: array {key!r} is not an array ({str(err).splitlines()[0][:120]}: a ragged list?)") from None
    except (TypeError, RuntimeError, NotImplementedError) as err:
        raise TypeError(f"{path}: array {key!r} ({type(value).__name__}) cannot be stored as a numpy array "
                        f"({str(err).splitlines()[0][:120]})") from None


def atomic_save_npz(path: str | os.PathLike, **arrays: Any) -> Path:
    """Save arrays to a compressed ``.npz`` atomically. An array of Python objects (which only pickle could
    store, and :func:`~mfattn.companion.store_read.load_npz` never unpickles) is a TypeError naming it."""
    check_path("path", path)
    converted = {}
    for key, value in arrays.items():
        if (not key or key.startswith("/") or "\\" in key or "\0" in key
                or any(part in ("", ".", "..") for part in key.split("/"))):
            raise ValueError(f"{path}: array name {key!r} is not a relative member name (no leading '/', no '.', "
                             "'..' or empty part, no '\\' or NUL: it becomes a file name inside the archive)")
        arr = _as_array(path, key, value)
        if arr.dtype.hasobject:
            raise TypeError(f"{path}: array {key!r} holds Python objects (dtype object), which an .npz cannot "
                            f"store without pickle; store numbers or strings")
        converted[key] = arr
    buf = io.BytesIO()
    np.savez_compressed(buf, **converted)
    return atomic_write_bytes(path, buf.getvalue())
