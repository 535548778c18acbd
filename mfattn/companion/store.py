"""Atomic, resumable storage of results.

Every file mfattn writes goes through these helpers: the data is written to a
temporary file in the same directory and then renamed over the target, so an
interrupted run never leaves a half-written result behind (``os.replace`` is
atomic on POSIX and Windows for paths on one file system).

Caches of expensive computations live under :func:`cache_dir`, keyed by a hash
of everything that determines the result (:func:`config_hash`), so a re-run with
the same parameters, e.g. the book build after the notebook tests in CI, reads
the result instead of recomputing it, and a run with other parameters cannot
pick up a stale one. Each cache entry also records what it is (its key), the
digest of the code that made it and a hash of its content,
checked when it is read (:mod:`mfattn.companion.caches`): an entry
that was damaged, planted, copied from another key or made by other code is
recomputed with a :class:`CacheWarning` naming its path, never used as is.

Temporary files carry the process id and host that write them
(``.<name>.pid<PID>-<host>.<random>.tmp``), so :func:`clean_stale_temporaries`
removes only those of runs that no longer run, never those of a run still going.
Names taken from arguments, manifests or ledgers are joined to their folder by
:func:`inside`, which refuses any name that would leave it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import socket
import tempfile
import time
import zipfile
import zlib
from pathlib import Path, PurePath
from typing import Any, Iterator

import numpy as np

from .checks import contract

__all__ = [
    "finite_or_none",
    "project_root",
    "output_dir",
    "cache_dir",
    "make_folder",
    "check_file_target",
    "config_hash",
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "atomic_save_npz",
    "load_npz",
    "DamagedFileError",
    "read_json",
    "read_entries",
    "sha256_file",
    "code_digest",
    "locked",
    "inside",
    "temporary_path",
    "clean_stale_temporaries",
]


def project_root(start: Path | None = None) -> Path | None:
    """The project root: the nearest folder at or above ``start`` (default: cwd) holding ``_toc.yml``.

    Returns None outside a checkout (e.g. an installed package run elsewhere).
    """
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "mfattn").is_dir():
            return folder
    pkg_root = Path(__file__).resolve().parents[2]
    if (pkg_root / "_toc.yml").is_file():
        return pkg_root
    return None


def env_folder(variable: str, value: str) -> Path:
    """The folder an environment variable names; a file (or anything else) standing there or where one of
    its parents must be, or a nearest existing folder that cannot be written, is a clear one-line error."""
    path = Path(value).expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(f"{variable}={value} is not a folder; point {variable} at a folder "
                                 f"(or at a path that does not exist yet)")
    for part in (path, *path.parents):
        if part.exists():
            if not part.is_dir():
                raise NotADirectoryError(f"{variable}={value}: {part} is a file, but a folder is needed there")
            if part != path and not os.access(part, os.W_OK | os.X_OK):
                raise PermissionError(f"{variable}={value}: cannot create it inside {part} (no permission)")
            break
    return path


def inside(folder: str | os.PathLike, name: Any, what: str = "name", *, nested: bool = True) -> Path:
    """``folder / name``, refusing a ``name`` (from an argument, a manifest, a ledger) that would leave ``folder``.

    ``name`` must be a non-empty string or :class:`os.PathLike` without NUL characters, not absolute (no
    root, no drive), with no ``..`` component (on either separator, ``/`` or ``\\``), and must name
    something inside ``folder``, not the folder itself. With ``nested=False`` it must be a single plain name
    (no separator at all: a chapter, a seed, a figure file). Symbolic links inside ``folder`` are the
    folder owner's choice and are not followed here. A name that breaks a rule is a ValueError (TypeError
    for a non-string) naming ``what``, the name and the folder.
    """
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a string (a name inside {folder}); got {type(name).__name__} {name!r}")
    why = None
    parts = re.split(r"[\\/]", name)
    if not name or not name.strip():
        why = "is empty"
    elif "\0" in name:
        why = "holds a NUL character"
    elif (PurePath(name).is_absolute() or PurePath(name).anchor or name.startswith(("/", "\\"))
          or re.match(r"^[A-Za-z]:", name)):
        why = "is an absolute path"
    elif ".." in parts:
        why = "climbs out with '..'"
    elif not nested and len(parts) > 1:
        why = "holds a path separator (a plain name is needed)"
    elif all(p in ("", ".") for p in parts):
        why = "names the folder itself, not something inside it"
    if why is not None:
        raise ValueError(f"{what} {name!r} {why}; it must name a file or folder inside {folder}")
    return Path(folder) / name


def output_dir() -> Path:
    """Where generated output goes: ``$MFATTN_OUTPUT`` or ``<project root>/_build`` (else ``./mfattn-output``)."""
    env = os.environ.get("MFATTN_OUTPUT")
    if env:
        return env_folder("MFATTN_OUTPUT", env)
    root = project_root()
    return (root / "_build") if root is not None else Path.cwd() / "mfattn-output"


def cache_dir(*parts: str) -> Path:
    """A cache folder ``<output_dir>/cache/<parts...>`` (or ``$MFATTN_CACHE/<parts...>``), created on demand.

    Each part is a plain name (:func:`inside`). Temporary files that runs no longer running left in the
    folder are removed (:func:`clean_stale_temporaries`; one listing, not recursive)."""
    env = os.environ.get("MFATTN_CACHE")
    base = env_folder("MFATTN_CACHE", env) if env else output_dir() / "cache"
    path = base
    for part in parts:
        path = inside(path, part, "cache_dir part", nested=False)
    make_folder(path, "MFATTN_CACHE" if env else "MFATTN_OUTPUT")
    clean_stale_temporaries(path, older_than=time.time() - _LEGACY_TEMP_AGE, recursive=False)
    return path


def _jsonable(obj: Any, strict: bool = False, where: str = "") -> Any:
    """``obj`` as JSON-able values (dict keys sorted, numpy/torch arrays by value). Anything else is its
    ``repr``; with ``strict`` (cache keys) a value without a stable representation is a TypeError naming
    where it sits: an object whose repr shows a memory address, a set whose items cannot be sorted."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v, strict, f"{where}[{str(k)!r}]")
                for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v, strict, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return {"__ndarray__": obj.tolist(), "dtype": str(obj.dtype)}
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist") and hasattr(obj, "dtype"):  # torch tensors, without importing torch
        return {"__tensor__": obj.tolist(), "dtype": str(obj.dtype)}
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
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
    """``obj`` (nested dicts, lists, tuples, numbers) with every NaN or infinite float replaced by None: what a
    result summary stores where a number is missing (standard JSON has null, not NaN)."""
    if isinstance(obj, dict):
        return {k: finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_none(v) for v in obj]
    if isinstance(obj, (float, np.floating)) and not math.isfinite(float(obj)):
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


@contract(length="int:1")
def config_hash(config: Any, length: int = 16) -> str:
    """A stable hex digest of a JSON-able configuration (dict keys sorted, arrays by value).

    A value without a stable representation (an object whose repr is a memory address, a set of mixed
    types) is a TypeError, NaN or infinity a ValueError, each naming where it sits: a key that changes from
    run to run, or a NaN, would make a cache that never hits."""
    blob = _strict_dumps(_jsonable(config, strict=True), "config_hash: config", sort_keys=True,
                         separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:length]


@contextlib.contextmanager
def locked(path: str | os.PathLike, timeout: float = 600.0) -> Iterator[None]:
    """Hold an inter-process lock for read-modify-write of ``path`` (e.g. a manifest shared by
    chapters executed in parallel).

    A :class:`filelock.SoftFileLock` (POSIX and Windows): the lock file ``.<name>.lock`` exists only
    while a process holds it, and one left by a killed process (its PID no longer runs) is broken by
    the next process that asks, so nothing stays behind.
    """
    from filelock import SoftFileLock, Timeout

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = SoftFileLock(str(path.parent / f".{path.name}.lock"), timeout=timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise TimeoutError(f"could not lock {path} within {timeout:.0f} s: another mfattn process holds "
                           f"{lock.lock_file}; if none is running, delete that file") from None


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def make_folder(folder: str | os.PathLike, name: str = "path") -> Path:
    """Create ``folder`` (and its parents); a file standing where a folder must be, or a folder that cannot
    be created (no permission, a read-only file system), is a clear one-line error naming ``name``."""
    folder = Path(folder)
    for part in (folder, *folder.parents):
        if part.exists() and not part.is_dir():
            raise NotADirectoryError(f"{name}: {part} is a file, but a folder is needed there (for {folder})")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise type(err)(f"{name}: cannot create the folder {folder} ({err.strerror or err})") from None
    return folder


def check_file_target(path: str | os.PathLike, name: str = "path") -> Path:
    """Check, before any work, that a file can be written at ``path``: it is not a folder, no file stands
    where one of its folders must be, and the nearest existing folder is writable; else an OSError of one
    line naming ``name`` (an option such as ``--out``) and the path."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise IsADirectoryError(f"{name}: {path} is a folder; give the path of a file to write")
    for part in path.parents:
        if part.exists():
            if not part.is_dir():
                raise NotADirectoryError(f"{name}: {part} is a file, but a folder is needed there (for {path})")
            if not os.access(part, os.W_OK | os.X_OK):
                raise PermissionError(f"{name}: cannot write into {part} (no permission), so {path} cannot be written")
            break
    if path.exists() and not os.access(path, os.W_OK) and not os.access(path.parent, os.W_OK):
        raise PermissionError(f"{name}: {path} cannot be replaced (no permission)")
    return path


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
    folder = Path(folder)
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
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


@contextlib.contextmanager
def _atomic_target(path: Path) -> Iterator[Path]:
    path = Path(path)
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
    """Write ``data`` to ``path`` atomically (temporary file + rename)."""
    path = Path(path)
    with _atomic_target(path) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write standard JSON (indented, keys sorted, numpy/torch values converted) atomically.

    NaN and infinity are refused (ValueError naming the file and the key): strict JSON readers reject them,
    so a caller writes None (null) or a string saying why a number is missing."""
    path = Path(path)
    return atomic_write_text(path, _strict_dumps(_jsonable(obj), str(path), indent=2, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike, default: Any = None) -> Any:
    """The JSON in ``path`` (``default`` when there is no file); a damaged file is a clear error naming it."""
    path = Path(path)
    if not path.exists():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not valid JSON ({err}); restore it from git or delete it to start over") from None


def read_entries(path: str | os.PathLike, required: tuple[str, ...] = (), what: str = "entry") -> dict[str, dict[str, Any]]:
    """A stored ``{key: entry}`` file (manifest, results, runs, ledger): empty when there is no file; a file
    that is not such a mapping, an entry that is not a mapping or lacks a ``required`` field (or holds a
    non-string there) is a ValueError naming the file and the key, rather than an error from deep inside
    whatever reads it next."""
    path = Path(path)
    data = read_json(path, default={})
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a JSON object of {what}s ({{key: {what}}}); it holds a "
                         f"{type(data).__name__}: restore it from git or delete it to start over")
    for key, entry in data.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: {what} {key!r} must be a JSON object; it is {type(entry).__name__} "
                             f"{str(entry)[:60]!r}: restore the file from git or remove that {what}")
        lacking = [name for name in required if not isinstance(entry.get(name), str)]
        if lacking:
            raise ValueError(f"{path}: {what} {key!r} has no {', '.join(lacking)} (a string is needed): restore "
                             f"the file from git or remove that {what}")
    return data


def atomic_save_npz(path: str | os.PathLike, **arrays: Any) -> Path:
    """Save arrays to a compressed ``.npz`` atomically."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **{k: np.asarray(v) for k, v in arrays.items()})
    return atomic_write_bytes(path, buf.getvalue())


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` into a plain dict (the file is closed on return).

    A file that is not a whole ``.npz`` (truncated, corrupted: a bad CRC, not a zip archive, an array that
    needs pickle) is a ValueError naming the path; a missing file is FileNotFoundError as usual."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, KeyError) as err:
        raise DamagedFileError(path, f"{type(err).__name__}: {err}") from None


class DamagedFileError(ValueError):
    """A stored file that cannot be read back whole (truncated, corrupted); the message names its path."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"{path} is not a readable .npz file ({reason}); it is truncated or damaged: delete "
                         f"it (a cache entry is then recomputed) or restore it")


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def code_digest(*modules: Any, length: int = 16) -> str:
    """A digest of the source files of ``modules`` (module objects or paths), in the order given.

    Caches of expensive results put it in their keys, so a change of the code that computes a result
    (even one that moves only the last bits of a float) gives a new key instead of a stale result.
    """
    h = hashlib.sha256()
    for module in modules:
        source = getattr(module, "__file__", module)
        if not isinstance(source, (str, os.PathLike)) or not Path(source).is_file():
            raise TypeError(f"code_digest takes modules (or paths of source files); got {module!r}")
        path = Path(source)
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:length]

