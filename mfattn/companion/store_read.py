"""Reading stored files back: JSON, ``{key: entry}`` files and ``.npz`` arrays, each checked before it is read.

Split from :mod:`mfattn.companion.store` (which re-exports every name here, so ``store.read_json`` keeps
working for every caller) because reading a file someone else may have put there is its own job: a path
from an argument, a manifest or a cache folder can name anything, and a reader must neither block nor
exhaust memory on it. So, before a byte is read:

* only a regular file is opened: a FIFO or a device (``/dev/zero``) would block or never end, a folder is
  not a file (the check is an ``os.stat``, which never blocks);
* a JSON file larger than :func:`max_json_bytes` (64 MiB unless ``$MFATTN_MAX_JSON_BYTES`` says otherwise)
  is refused, and so is one whose parse would not fit the memory budget (:func:`~mfattn.companion.checks.max_bytes`);
* every ``.npz`` member's header (shape and dtype; of every member numpy reads as an array, whatever its name) and inflated size are checked against the memory budget,
  so a 1 KiB file claiming 10¹² elements, or inflating to gigabytes, is refused before anything is allocated.

Every refusal is a :class:`RefusedFileError` (a ValueError) naming the path, what was expected and what came;
NaN and infinity, which the JSON writer never writes, are refused in what is read too.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tokenize
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .checks import check_alloc, check_int, check_path, max_bytes

__all__ = ["DamagedFileError", "RefusedFileError", "max_json_bytes", "check_regular_file", "read_text_file",
           "read_json", "read_object", "read_entries", "load_npz"]

#: The largest JSON file read by default (bytes): the manifests, ledgers and summaries are kilobytes.
DEFAULT_MAX_JSON_BYTES = 64 << 20
#: The largest limit a reader accepts (``$MFATTN_MAX_JSON_BYTES``, ``read_text_file``'s ``limit``): a file read
#: whole into memory, 1 TiB is beyond any machine's; a larger value is a mistyped one (``1e15``), refused by name.
MAX_JSON_LIMIT = 1 << 40
#: The block a reader reads at a time: memory grows with what the file holds, never with the limit.
_READ_BLOCK = 1 << 20
#: Python objects of a parsed JSON file take up to about this many times the file's size.
_JSON_INFLATION = 8


class DamagedFileError(ValueError):
    """A stored file that cannot be read back whole (truncated, corrupted); the message names its path."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"{path} is not a readable .npz file ({reason}); it is truncated or damaged: delete "
                         f"it (a cache entry is then recomputed) or restore it")


class RefusedFileError(DamagedFileError):
    """A file a reader will not read: not a regular file (a FIFO, a device, a folder), larger than its
    budget, claiming arrays larger than the memory budget, or holding NaN in JSON. The message names the
    path, what was expected and what came. A :class:`DamagedFileError`, so a cache entry that is refused is
    recomputed like a damaged one."""

    def __init__(self, path: Path, expected: str, got: str, hint: str = "") -> None:
        self.path, self.expected, self.got = path, expected, got
        self.reason = f"expected {expected}; got {got}"
        ValueError.__init__(self, f"{path}: expected {expected}, but {got}; it is not read"
                                  + (f" ({hint})" if hint else ""))


def max_json_bytes() -> int:
    """The largest JSON file a reader opens: ``$MFATTN_MAX_JSON_BYTES`` when set, else 64 MiB. A value that is not
    a number of bytes from 1 to :data:`MAX_JSON_LIMIT` (1 TiB) is a ValueError naming the variable."""
    from .checks import env_positive
    value = env_positive("MFATTN_MAX_JSON_BYTES", "bytes", at_least=1)
    if value is not None and value > MAX_JSON_LIMIT:
        raise ValueError(f"MFATTN_MAX_JSON_BYTES must be a number of bytes of at most {MAX_JSON_LIMIT:,} (1 TiB: a "
                         f"file read whole into memory); got {os.environ.get('MFATTN_MAX_JSON_BYTES', '').strip()!r}")
    return DEFAULT_MAX_JSON_BYTES if value is None else int(value)


def _read_bounded(fh: Any, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the open file ``fh``, read in blocks of :data:`_READ_BLOCK`: what is held
    grows with the file, never with ``limit`` (``fh.read(limit + 1)`` would allocate the limit first)."""
    chunks, total = [], 0
    while total <= limit:
        block = fh.read(min(_READ_BLOCK, limit + 1 - total))
        if not block:
            break
        chunks.append(block)
        total += len(block)
    return b"".join(chunks)


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "not a regular file"


def check_regular_file(path: str | os.PathLike, what: str = "file") -> int:
    """The size in bytes of ``path`` if it is a regular file (symbolic links followed), else a
    :class:`RefusedFileError` naming it and what stands there: a folder, a FIFO, a device, a socket. Uses
    ``os.stat``, which never blocks (opening a FIFO would). A missing file is FileNotFoundError as usual."""
    path = check_path("path", path)
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise RefusedFileError(path, f"a regular {what}", f"it is {_kind(info.st_mode)}",
                               "point it at a file mfattn wrote")
    where = os.path.realpath(path)
    tree = next((t for t in ("/proc/", "/sys/", "/dev/") if where.startswith(t)), None)
    if tree is not None:   # the kernel's views pass as regular files (a size of 0) but are not files mfattn wrote
        raise RefusedFileError(path, f"a regular {what}", f"it is inside {tree.rstrip('/')}",
                               "point it at a file mfattn wrote")
    return info.st_size


def read_text_file(path: str | os.PathLike, what: str = "text file", limit: int | None = None) -> str:
    """The UTF-8 text of the regular file ``path``, no larger than ``limit`` bytes (default
    :func:`max_json_bytes`; at most :data:`MAX_JSON_LIMIT`, 1 TiB); a FIFO, a device, a folder or a larger file is
    a :class:`RefusedFileError` naming it, before it is opened. A missing file is FileNotFoundError as usual."""
    path = check_path("path", path)
    if limit is not None:
        check_int("limit", limit, 0, MAX_JSON_LIMIT)
    size = check_regular_file(path, what)
    limit = max_json_bytes() if limit is None else int(limit)
    if size > limit:
        raise RefusedFileError(path, f"a {what} of at most {limit:,} bytes", f"it has {size:,} bytes",
                               "set MFATTN_MAX_JSON_BYTES to raise the limit")
    with open(path, "rb") as fh:
        data = _read_bounded(fh, limit)
    if len(data) > limit:
        raise RefusedFileError(path, f"a {what} of at most {limit:,} bytes", "it grew past that while read")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RefusedFileError(path, f"a UTF-8 {what}", f"byte {err.start} is not UTF-8 (a binary file?)",
                               "point it at the text file mfattn wrote") from None


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity, -Infinity: Python's json reads them, standard JSON has none


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 150:   # past 1e150 (stored_views.MAX_STORED): its square overflows a float
        raise ValueError(f"the integer {text[:20]}... ({len(text)} digits) is past 1e150, no number mfattn stores")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):   # 1e999 overflows to inf: a number the writer would have refused
        raise ValueError(f"the number {text} overflows a float")
    return value


def read_json(path: str | os.PathLike, default: Any = None) -> Any:
    """The JSON in ``path`` (``default`` when there is no file); a damaged file is a clear error naming it.

    Only a regular file no larger than :func:`max_json_bytes` (whose parse fits the memory budget) is read;
    NaN and infinity (which mfattn's writer refuses) are refused too: each a :class:`RefusedFileError`."""
    path = check_path("path", path)
    try:
        size = check_regular_file(path, "JSON file")
    except FileNotFoundError:
        return default
    limit = max_json_bytes()
    if size > limit:
        raise RefusedFileError(path, f"a JSON file of at most {limit:,} bytes", f"it has {size:,} bytes",
                               "set MFATTN_MAX_JSON_BYTES to raise the limit")
    try:
        check_alloc(f"{path} ({size:,} bytes)", size * _JSON_INFLATION, what="parsing it")
    except ValueError as err:
        raise RefusedFileError(path, "a JSON file whose parse fits in memory", str(err)) from None
    try:
        with open(path, "rb") as fh:
            data = _read_bounded(fh, limit)
        if len(data) > limit:  # it grew after the check
            raise RefusedFileError(path, f"a JSON file of at most {limit:,} bytes", "it grew past that while read")
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite_float,
                          parse_int=_bounded_int)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not valid JSON ({err}); restore it from git or delete it to start over") from None
    except RecursionError:
        raise RefusedFileError(path, "JSON nested at most a few hundred levels deep", "it is nested deeper") from None
    except ValueError as err:
        if isinstance(err, RefusedFileError):
            raise
        raise RefusedFileError(path, "standard JSON", f"it holds {err}",
                               "mfattn writes null where a number is missing") from None


def read_object(path: str | os.PathLike, what: str = "summary") -> dict[str, Any]:
    """The JSON object (a mapping with string keys) in ``path``, read by :func:`read_json`; {} when there is no
    file. A file holding a list, a number or a string at its top is a :class:`RefusedFileError` naming the path:
    every stored summary, table and index of mfattn is an object, and its readers look its keys up."""
    data = read_json(path, default={})   # {} where there is no file; a file holding null is no object
    if not isinstance(data, dict):
        raise RefusedFileError(check_path("path", path), f"a JSON object (a {what} of named numbers)",
                               f"it holds a {type(data).__name__} at its top", "restore it from git or re-run")
    return data


def read_entries(path: str | os.PathLike, required: tuple[str, ...] = (), what: str = "entry") -> dict[str, dict[str, Any]]:
    """A stored ``{key: entry}`` file (manifest, results, runs, ledger): empty when there is no file; a file
    that is not such a mapping, an entry that is not a mapping or lacks a ``required`` field (or holds a
    non-string there) is a ValueError naming the file and the key, rather than an error from deep inside
    whatever reads it next. The file is read by :func:`read_json` (regular files within the budget only)."""
    path = check_path("path", path)
    if isinstance(required, (str, bytes)) or not isinstance(required, (tuple, list)) or not all(
            isinstance(name, str) for name in required):
        raise TypeError(f"required must be a tuple of field names (strings); got {required!r}"[:200])
    data = read_json(path, default={})   # {} where there is no file; a file holding null is no mapping
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


def _header_3_0(path: Path, member: str, fh: Any) -> tuple[tuple, np.dtype]:
    """``(shape, dtype)`` of a format-3.0 ``.npy`` header (2.0's layout, a 4-byte length, utf-8 text), read without
    numpy's private readers: the header's dict literal, parsed by ``ast.literal_eval`` and bounded in size."""
    import ast
    import struct

    from numpy.lib import format as npformat

    raw = fh.read(4)
    if len(raw) < 4:
        raise DamagedFileError(path, f"member {member} ends inside its header")
    (length,) = struct.unpack("<I", raw)
    if length > 100_000:
        raise DamagedFileError(path, f"member {member} claims a header of {length:,} bytes")
    try:
        header = ast.literal_eval(fh.read(length).decode("utf-8"))
        return tuple(int(n) for n in header["shape"]), npformat.descr_to_dtype(header["descr"])
    except (ValueError, SyntaxError, KeyError, TypeError, UnicodeDecodeError, RecursionError, MemoryError) as err:
        raise DamagedFileError(path, f"member {member} has an unreadable header ({type(err).__name__})") from None


#: The most arrays one ``.npz`` may hold: mfattn's own hold at most a few dozen (45 in a stored training run); numpy
#: parses every member's header on opening, so twenty thousand members take tens of seconds before any check.
MAX_NPZ_MEMBERS = 4096


def _check_members(path: Path, archive: zipfile.ZipFile) -> None:
    """Refuse an ``.npz`` with more than :data:`MAX_NPZ_MEMBERS` arrays, or whose members, inflated or as their
    headers claim, exceed the memory budget."""
    from numpy.lib import format as npformat

    budget = max_bytes()
    members = archive.infolist()
    if len(members) > MAX_NPZ_MEMBERS:
        raise RefusedFileError(path, f"an .npz of at most {MAX_NPZ_MEMBERS:,} arrays", f"it has {len(members):,}",
                               "mfattn's own files hold a few dozen")
    names = [info.filename for info in members]
    if len(set(names)) != len(names):   # numpy would return the last of two same-named members, the other unread
        twice = sorted({n for n in names if names.count(n) > 1})
        raise DamagedFileError(path, f"two members are named {twice[0]!r}: no writer of an .npz makes that")
    inflated = sum(info.file_size for info in members)
    if budget is not None and inflated > budget:
        raise RefusedFileError(path, f"arrays that fit the memory budget ({budget:,} bytes)",
                               f"its members inflate to {inflated:,} bytes", "set MFATTN_MAX_BYTES to raise it")
    claimed = 0
    for info in members:
        with archive.open(info) as fh:
            if fh.read(len(npformat.MAGIC_PREFIX)) != npformat.MAGIC_PREFIX:
                # numpy returns such a member as its bytes: no writer of an .npz stores one, and no reader wants it
                raise DamagedFileError(path, f"its member {info.filename!r:.60} is not an array (no .npy header)")
        with archive.open(info) as fh:
            version = npformat.read_magic(fh)
            if version == (1, 0):
                shape, _, dtype = npformat.read_array_header_1_0(fh)
            elif version == (2, 0):
                shape, _, dtype = npformat.read_array_header_2_0(fh)
            elif version == (3, 0):
                shape, dtype = _header_3_0(path, info.filename, fh)
            else:
                raise DamagedFileError(path, f"member {info.filename} has .npy format version {version}, not 1.0-3.0")
        if dtype.hasobject:
            raise RefusedFileError(path, "arrays of numbers or strings", f"member {info.filename} holds Python "
                                   "objects (it would need pickle)")
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape):
            raise DamagedFileError(path, f"member {info.filename}'s header claims shape {tuple(shape)!r:.80}, not "
                                   "sizes that are whole numbers")
        count = math.prod(int(n) for n in shape)
        nbytes = count * dtype.itemsize
        if nbytes > info.file_size:
            raise RefusedFileError(path, f"member {info.filename} to hold what its header claims",
                                   f"the header claims shape {tuple(shape)} of {dtype} ({nbytes:,} bytes) in "
                                   f"{info.file_size:,} bytes")
        claimed += nbytes
    if budget is not None and claimed > budget:
        raise RefusedFileError(path, f"arrays that fit the memory budget ({budget:,} bytes)",
                               f"its arrays claim {claimed:,} bytes", "set MFATTN_MAX_BYTES to raise it")


def load_npz(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` into a plain dict (the file is closed on return).

    A file that is not a whole ``.npz`` (truncated, corrupted: a bad CRC, not a zip archive, an array that
    needs pickle) is a ValueError naming the path; a missing file is FileNotFoundError as usual. Only a
    regular file is opened, and each member's header and inflated size are checked against the memory
    budget before any array is allocated (:class:`RefusedFileError`)."""
    path = check_path("path", path)
    check_regular_file(path, ".npz file")
    try:
        with zipfile.ZipFile(path) as archive:
            _check_members(path, archive)
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (FileNotFoundError, IsADirectoryError, PermissionError, RefusedFileError):
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, KeyError, SyntaxError, RecursionError,
            tokenize.TokenError) as err:   # numpy tokenizes an .npy header: '[' * 5000 is a TokenError of its own
        raise DamagedFileError(path, f"{type(err).__name__}: {err}"[:300]) from None
