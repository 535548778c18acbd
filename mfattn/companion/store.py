"""Atomic, resumable storage of results.

Every file mfattn writes goes through these helpers: the data is written to a temporary file in the same
directory and then renamed over the target, so an interrupted run never leaves a half-written result behind
(``os.replace`` is atomic on POSIX and Windows for paths on one file system).

Caches of expensive computations live under :func:`cache_dir`, keyed by a hash of everything that determines
the result (:func:`config_hash`), so a re-run with the same parameters, e.g. the book build after the notebook
tests in CI, reads the result instead of recomputing it, and a run with other parameters cannot pick up a
stale one. Each cache entry also records what it is (its key), the digest of the code that made it and a hash
of its content, checked when it is read (:mod:`mfattn.companion.caches`): an entry that was damaged, planted,
copied from another key or made by other code is recomputed with a :class:`CacheWarning` naming its path,
never used as is.

Temporary files carry the process id and host that write them (``.<name>.pid<PID>-<host>.<random>.tmp``), so
:func:`clean_stale_temporaries` removes only those of runs that no longer run, never those of a run still going.
Names taken from arguments, manifests or ledgers are joined to their folder by :func:`inside`, which refuses any
name that would leave it.

The module is split by job, each part short enough to read whole, and every name stays reachable as
``store.<name>`` for every caller: this module holds the paths (project root, output and cache folders,
:func:`inside`), hashing and the lock; :mod:`~mfattn.companion.store_write` what may be written where (never
the filesystem root, a home folder itself or a system folder), temporary files and the atomic writers;
:mod:`~mfattn.companion.store_read` the readers, which open regular files only and check sizes against a
budget before reading.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from pathlib import Path, PurePath
from typing import Any, Iterator

from .checks import check_bool, check_int, check_path, check_real, contract
from .store_read import (DEFAULT_MAX_JSON_BYTES, DamagedFileError, RefusedFileError,  # noqa: F401  (re-exported)
                         check_regular_file, load_npz, max_json_bytes, read_entries, read_json, read_object,
                         read_text_file)
from .store_write import (_FOREIGN_TEMP_AGE, _LEGACY_TEMP_AGE, _LEGACY_TEMP_RE, _TEMP_RE,  # noqa: F401
                          _UMASK, SYSTEM_FOLDERS, SYSTEM_TREES, _atomic_target, _current_umask, _host, _jsonable,
                          _non_finite, _pid_alive, _resolved, _strict_dumps, atomic_save_npz, atomic_write_bytes,
                          atomic_write_json, atomic_write_text, check_target_folder, clean_stale_temporaries,
                          finite_or_none, make_folder, temporary_path)

__all__ = [
    "finite_or_none",
    "project_root",
    "output_dir",
    "cache_dir",
    "make_folder",
    "check_file_target",
    "check_target_folder",
    "config_hash",
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_json",
    "atomic_save_npz",
    "load_npz",
    "DamagedFileError",
    "RefusedFileError",
    "check_regular_file",
    "read_text_file",
    "max_json_bytes",
    "read_json",
    "read_object",
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

    Returns None outside a checkout (e.g. an installed package run elsewhere). A ``start`` that is a symlink loop is
    a ValueError naming it.
    """
    if start is not None:
        try:
            text = os.fspath(start) if isinstance(start, (str, os.PathLike)) else None
        except TypeError:   # an os.PathLike whose __fspath__ returns neither str nor bytes
            text = None
        if not isinstance(text, str):
            raise TypeError(f"start must be None or a path (a folder to search upwards from: a string or an "
                            f"os.PathLike of one); got {type(start).__name__} {start!r:.60}")
    here = _resolved(start or Path.cwd(), "start", expand=False)
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file() and (folder / "mfattn").is_dir():
            return folder
    pkg_root = Path(__file__).resolve().parents[2]
    if (pkg_root / "_toc.yml").is_file():
        return pkg_root
    return None


def env_folder(variable: str, value: str) -> Path:
    """The folder an environment variable names; a file (or anything else) standing there or where one of
    its parents must be, a symlink loop, or a nearest existing folder that cannot be written, is a clear one-line
    error. ``variable`` is the variable's name (a non-empty string); an empty ``value`` names no folder (``Path('')``
    would be the working folder): a ValueError naming the variable."""
    if not isinstance(variable, str) or not variable.strip():
        raise TypeError(f"variable must be the environment variable's name (a non-empty string); got "
                        f"{type(variable).__name__} {variable!r:.60}")
    check_path(variable, value)   # '' (the working folder), NUL, bytes: refused naming the variable
    path = _resolved(value, variable)
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
    check_path("folder", folder)
    check_bool("nested", nested)   # nested='no' would read as True
    if not isinstance(what, str):
        raise TypeError(f"what must be a string (the name's role in messages); got {type(what).__name__}")
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


@contract(length="int:1")
def config_hash(config: Any, length: int = 16) -> str:
    """A stable hex digest of a JSON-able configuration (dict keys sorted, arrays by value).

    A value without a stable representation (an object whose repr is a memory address, a set of mixed
    types) is a TypeError, NaN or infinity a ValueError, each naming where it sits: a key that changes from
    run to run, or a NaN, would make a cache that never hits."""
    check_int("length", length, 1, 64)   # a SHA-256 has 64 hex digits
    try:
        blob = _strict_dumps(_jsonable(config, strict=True), "config_hash: config", sort_keys=True,
                             separators=(",", ":")).encode()
    except RecursionError:
        raise ValueError("config_hash: config refers to itself or is nested too deeply to hash") from None
    except TypeError as err:   # where the value without a stable JSON form sits, named as part of config
        text = str(err)
        raise TypeError(text if text.startswith("config") else f"config_hash: config{text}") from None
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

    path = check_path("path", path)
    check_real("timeout", timeout, minimum=0.0, allow_inf=True)   # seconds to wait (inf: for ever)
    make_folder(path.parent, str(path))  # never a lock file in the root, a home folder itself or a system folder
    lock = SoftFileLock(str(path.parent / f".{path.name}.lock"), timeout=timeout)
    try:
        with lock:
            yield
    except Timeout:
        raise TimeoutError(f"could not lock {path} within {timeout:.0f} s: another mfattn process holds "
                           f"{lock.lock_file}; if none is running, delete that file") from None


def check_file_target(path: str | os.PathLike, name: str = "path") -> Path:
    """Check, before any work, that a file can be written at ``path``: it is not a folder, no file stands
    where one of its folders must be, and the nearest existing folder is writable; else an OSError of one
    line naming ``name`` (an option such as ``--out``) and the path. A file directly in the filesystem root,
    a home folder itself or a system folder is refused too (:func:`check_target_folder`), and so is a FIFO, a device
    or a socket standing at ``path`` (the atomic writers replace only regular files)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be the option or parameter that gave the path (a non-empty string, e.g. '--out'); "
                        f"got {type(name).__name__} {name!r:.60}")
    path = check_path(name, path).expanduser()
    if path.is_dir():
        raise IsADirectoryError(f"{name}: {path} is a folder; give the path of a file to write")
    if path.exists() and not path.is_file():
        raise PermissionError(f"{name}: {path} is not a regular file (a FIFO, a device or a socket stands there); "
                              f"mfattn replaces only regular files: give the path of a file to write")
    check_target_folder(path.parent, name)
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


def sha256_file(path: str | os.PathLike) -> str:
    """The SHA-256 (hex) of the regular file ``path``, read in blocks; a FIFO or a device (which would block
    or never end) is a :class:`RefusedFileError` naming it, before it is opened."""
    check_regular_file(path)
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
    check_int("length", length, 1, 64)   # a SHA-256 has 64 hex digits
    h = hashlib.sha256()
    for module in modules:
        source = getattr(module, "__file__", module)
        if not isinstance(source, (str, os.PathLike)) or not Path(source).is_file():
            raise TypeError(f"code_digest takes modules (or paths of source files); got {module!r}")
        path = Path(source)
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:length]

