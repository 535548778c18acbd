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
  JSON form), so a refused object leaves no file behind. The encoding itself is :mod:`.store_json`'s
  (re-exported here, as before).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import socket
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .checks import check_bool, check_path, check_real
from .store_json import _check_plain, _finite_or_none, _jsonable, _non_finite, _strict_dumps, _tolist, \
    finite_or_none  # noqa: F401

__all__ = ["finite_or_none", "make_folder", "check_target_folder", "temporary_path", "clean_stale_temporaries",
           "atomic_write_bytes", "atomic_write_text", "atomic_write_json", "atomic_save_npz"]


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
    from .checks_scalars import check_path

    path = check_path(name, value)   # a part past 255 bytes, a NUL ...: named here, not by the OS later
    try:
        path = path.expanduser() if expand else path
    except RuntimeError as err:   # '~nosuchuser/x': pathlib's "Could not determine home directory"
        raise ValueError(f"{name}: {os.fspath(value)} starts with a home folder that does not exist ({err})") from None
    check_path(name, path)   # the expanded path may be longer
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
