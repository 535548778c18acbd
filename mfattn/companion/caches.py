"""Verified cache entries: each records what it is, the code that made it and a hash of its content.

A cache entry (an ``.npz`` of arrays, a JSON summary, a training checkpoint) carries a record
(:func:`cache_record`): its ``key`` (what it is the entry of: a configuration hash, a chunk), the digest
of the code that computed it, the :func:`content_digest` of its content and the SHA-256 of files that
belong to it. Reading it back checks all of them (:func:`check_cache_record`): an entry that is truncated,
planted with valid but wrong content, copied from another key or computed by other code is not used; a
:class:`CacheWarning` names its path and the reason, and the caller recomputes it::

    arrays = caches.cached_npz(cache_dir("designs") / f"run-{key}.npz", lambda: compute(...), code=digest)
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .checks import check_bool, check_path
from .store import (DamagedFileError, RefusedFileError, _jsonable, _strict_dumps, atomic_save_npz,
                    atomic_write_json, inside, load_npz, read_json, sha256_file)
from .store_write import _as_array

__all__ = ["CacheWarning", "content_digest", "cache_record", "check_cache_record", "save_cached_npz",
           "load_cached_npz", "cached_npz", "save_cached_json", "load_cached_json", "RECORD"]



class CacheWarning(UserWarning):
    """A cache entry was not used (damaged, planted, another key's or other code's): it is recomputed."""


def _digest_into(h: Any, obj: Any) -> None:
    """Feed a canonical, type-tagged encoding of ``obj`` into the hash ``h`` (see :func:`content_digest`)."""
    if isinstance(obj, Mapping):
        h.update(b"{%d" % len(obj))
        for key in sorted(obj, key=str):
            _digest_into(h, str(key))
            _digest_into(h, obj[key])
        h.update(b"}")
    elif isinstance(obj, (list, tuple)):
        h.update(b"[%d" % len(obj))
        for item in obj:
            _digest_into(h, item)
        h.update(b"]")
    elif isinstance(obj, np.ndarray) or (hasattr(obj, "detach") and hasattr(obj, "dtype")):
        try:
            arr = obj.detach().cpu().numpy() if hasattr(obj, "detach") else obj
        except (TypeError, RuntimeError, NotImplementedError) as err:   # the meta device, bfloat16: no numpy form
            raise TypeError(f"content_digest: a tensor of dtype {obj.dtype} on {getattr(obj, 'device', '?')} has no "
                            f"content to hash ({str(err).splitlines()[0][:80]}); store it as float32 or float64") from None
        if arr.dtype.hasobject:
            raise TypeError("content_digest: an object array has no stable content to hash")
        arr = np.ascontiguousarray(arr)
        h.update(b"a" + arr.dtype.str.encode() + repr(arr.shape).encode() + b":")
        h.update(arr.tobytes())
    elif isinstance(obj, (bool, np.bool_)):
        h.update(b"b1" if obj else b"b0")
    elif isinstance(obj, (np.timedelta64, np.datetime64)):   # a numpy integer type, but a time, not a count
        raise TypeError(f"content_digest: {type(obj).__name__} values have no canonical content to hash")
    elif isinstance(obj, (int, np.integer)):
        h.update(b"i" + str(int(obj)).encode() + b";")
    elif isinstance(obj, (float, np.floating)):
        h.update(b"f" + repr(float(obj)).encode() + b";")
    elif isinstance(obj, str):
        data = obj.encode("utf-8", "surrogatepass")
        h.update(b"s%d:" % len(data) + data)
    elif obj is None:
        h.update(b"n")
    else:
        raise TypeError(f"content_digest: {type(obj).__name__} values have no canonical content to hash")


def content_digest(obj: Any) -> str:
    """SHA-256 (hex) of the content of ``obj``: nested mappings (keys as strings, sorted), lists and tuples
    (alike), numpy arrays and torch tensors (dtype, shape and bytes), numbers, strings, None.

    It depends on values only, not on how they were stored: a dict of arrays hashes the same before an
    ``.npz`` is written and after it is read back, a summary the same before and after JSON. Anything
    else is a TypeError; an object that holds itself (or is nested too deeply) a ValueError."""
    h = hashlib.sha256()
    try:
        _digest_into(h, obj)
    except RecursionError:
        raise ValueError("content_digest: obj refers to itself or is nested too deeply to hash") from None
    return h.hexdigest()


#: The field (an ``.npz`` array, a JSON key, a checkpoint key) that holds a cache entry's record.
RECORD = "__cache__"


def cache_record(content: Any, key: str, code: str | None = None,
                 files: Mapping[str, str | os.PathLike] | None = None) -> dict[str, Any]:
    """What a cache entry records about itself: ``key`` (what it is the entry of, e.g. a config hash and a
    chunk number), ``code`` (the digest of the code that computed it, or None), the content digest of
    ``content`` and, for ``files`` (``{name relative to the entry's folder: path}``) that belong to it, their
    SHA-256."""
    if files is not None and not isinstance(files, Mapping):
        raise TypeError(f"files must be a mapping {{name: path}} or None; got {type(files).__name__}")
    if not isinstance(key, str) or not key:
        raise TypeError(f"key must be a non-empty string (what the entry is the entry of); got {key!r:.60}")
    if code is not None and not isinstance(code, str):
        raise TypeError(f"code must be None or a code digest (a string); got {code!r:.60}")
    for name in files or {}:   # check_cache_record joins each name to the entry's folder: only such names are kept
        inside(".", name, "files: a file's name")
    record = {"format": 1, "key": key, "code": code, "sha256": content_digest(content)}
    if files:
        record["files"] = {name: sha256_file(path) for name, path in sorted(files.items())}
    return record


def check_cache_record(record: Any, content: Any, key: str, code: str | None = None,
                       folder: str | os.PathLike | None = None) -> str | None:
    """Why an entry with ``record`` and ``content`` may not serve ``key`` computed by ``code`` (a phrase), or
    None when it may: no record, another key, other code, content or a listed file (in ``folder``) that
    does not match its recorded hash. ``folder`` must be None or a path (a string or an os.PathLike)."""
    if folder is not None:
        check_path("folder", folder)
    if not isinstance(record, Mapping) or record.get("format") != 1:
        return "records no content hash (written by an older version, or not by mfattn)"
    if record.get("key") != str(key):
        return f"is the entry of {str(record.get('key'))[:80]!r}, not of {str(key)[:80]!r}"
    if record.get("code") != code:
        return f"was computed by other code (digest {record.get('code')}, today {code})"
    try:
        digest = content_digest(content)
    except TypeError as err:
        return f"holds content that cannot be hashed ({err})"
    if record.get("sha256") != digest:
        return "does not match its recorded content hash (changed after it was written: planted or corrupted)"
    files = record.get("files", {})
    if not isinstance(files, Mapping):
        return "has a malformed list of files"
    for name, sha in files.items():
        try:
            path = inside(folder if folder is not None else ".", name, "cached file")
        except (TypeError, ValueError) as err:
            return f"lists a file outside its folder ({err})"
        if not path.is_file():
            return f"lists {name}, which is missing"
        if sha256_file(path) != sha:
            return f"lists {name}, whose bytes differ from its recorded SHA-256"
    return None


def _warn_not_a_file(path: Path) -> None:
    """No entry at ``path`` is silent; something there that is no regular file (a device, a FIFO, a link to one, a
    folder) is a CacheWarning naming it (read as no entry: recomputed, and the writer refuses to replace it)."""
    if path.exists() or path.is_symlink():
        kind = "a folder" if path.is_dir() else "a link that leads nowhere" if not path.exists() else \
            "not a regular file (a device, a FIFO or a socket, or a link to one)"
        _warn_recompute(path, f"is {kind}")


def _warn_recompute(path: Path, why: str) -> None:
    warnings.warn(f"cache entry {path} {why}; recomputing it", CacheWarning, stacklevel=3)


def _default_key(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def save_cached_npz(path: str | os.PathLike, arrays: Mapping[str, Any], *, key: str | None = None,
                    code: str | None = None) -> Path:
    """Write ``arrays`` as a cache entry (a compressed ``.npz``, atomically) with its record
    (:func:`cache_record`; ``key`` defaults to ``<folder name>/<file name>``) in the array ``__cache__``."""
    path = check_path("path", path)
    if not isinstance(arrays, Mapping):
        raise TypeError(f"arrays must be a mapping {{name: array}}; got {type(arrays).__name__}")
    bad = next((k for k in arrays if not isinstance(k, str)), None)
    if bad is not None:
        raise TypeError(f"arrays: every name must be a string (an array's name in the .npz); got {bad!r:.60}")
    arrays = {k: _as_array(path, k, v) for k, v in arrays.items()}
    if RECORD in arrays:
        raise ValueError(f"arrays: the name {RECORD!r} is reserved for the cache record")
    record = cache_record(arrays, key or _default_key(path), code)
    return atomic_save_npz(path, **arrays, **{RECORD: np.array(json.dumps(record, sort_keys=True))})


def load_cached_npz(path: str | os.PathLike, *, key: str | None = None,
                    code: str | None = None) -> dict[str, np.ndarray] | None:
    """The arrays of the cache entry at ``path`` (without its record), or None when there is none, or when
    it cannot serve (damaged, no record, another key, other code, content changed): then a
    :class:`CacheWarning` names the path and the reason, and the caller recomputes."""
    path = check_path("path", path)
    if not path.is_file():
        _warn_not_a_file(path)
        return None
    try:
        arrays = load_npz(path)
    except DamagedFileError as err:
        _warn_recompute(path, f"is truncated or damaged ({err.reason})")
        return None
    raw = arrays.pop(RECORD, None)
    try:
        record = json.loads(str(raw)) if raw is not None else None
    except json.JSONDecodeError:
        record = None
    why = check_cache_record(record, arrays, key or _default_key(path), code)
    if why is not None:
        _warn_recompute(path, why)
        return None
    return arrays


def cached_npz(path: str | os.PathLike, compute: Callable[[], Mapping[str, Any]], *, key: str | None = None,
               code: str | None = None, use_cache: bool = True) -> dict[str, Any]:
    """The arrays of the verified cache entry at ``path`` (:func:`load_cached_npz`), else ``compute()``,
    stored there (:func:`save_cached_npz`) and returned as computed. ``use_cache=False`` neither reads nor
    writes the entry."""
    check_path("path", path)
    if not callable(compute):
        raise TypeError(f"compute must be callable (() -> arrays); got {type(compute).__name__}")
    check_bool("use_cache", use_cache)
    if use_cache:
        found = load_cached_npz(path, key=key, code=code)
        if found is not None:
            return found
    computed = compute()
    if not isinstance(computed, Mapping):
        raise TypeError(f"compute must return a mapping {{name: array}}; it returned {type(computed).__name__}")
    arrays = dict(computed)
    if use_cache:
        save_cached_npz(path, arrays, key=key, code=code)
    return arrays


def save_cached_json(path: str | os.PathLike, obj: Mapping[str, Any], *, key: str | None = None,
                     code: str | None = None, files: Mapping[str, str | os.PathLike] | None = None) -> Path:
    """Write the mapping ``obj`` as standard JSON (atomically) with its record under ``"__cache__"``;
    ``files`` (``{name relative to the JSON's folder: path}``) are entries' parts whose SHA-256 it records. A value
    without a JSON form (an object, a function, a set) is a TypeError naming the file and where it sits."""
    path = check_path("path", path)
    if not isinstance(obj, Mapping):
        raise TypeError(f"obj must be a mapping (a JSON object); got {type(obj).__name__}")
    keys = [k for k in obj if not isinstance(k, str)]
    if keys:   # JSON's keys are text: {0: 1} would be written and read back as {'0': 1}, another mapping
        raise TypeError(f"obj must have string keys (a JSON object's names); got {keys[0]!r:.60}")
    try:
        plain = _jsonable(dict(obj), repr_ok=False)
    except TypeError as err:
        raise TypeError(f"{path}: {err}") from None
    except RecursionError:
        raise ValueError(f"{path}: obj refers to itself or is nested too deeply to write as JSON") from None
    content = json.loads(_strict_dumps(plain, str(path)))
    if RECORD in content:
        raise ValueError(f"obj: the key {RECORD!r} is reserved for the cache record")
    record = cache_record(content, key or _default_key(path), code, files)
    return atomic_write_json(path, {**content, RECORD: record})


def load_cached_json(path: str | os.PathLike, *, key: str | None = None,
                     code: str | None = None) -> dict[str, Any] | None:
    """The mapping of the cache entry at ``path`` (without its record), or None when there is none, or when
    it cannot serve (not JSON, no record, another key, other code, its content or a listed file changed):
    then a :class:`CacheWarning` names the path and the reason."""
    path = check_path("path", path)
    if not path.is_file():
        _warn_not_a_file(path)
        return None
    try:
        data = read_json(path)
    except RefusedFileError as err:  # larger than the budget, NaN in it: not read, recomputed
        _warn_recompute(path, f"is not read ({err.reason})")
        return None
    except ValueError:
        _warn_recompute(path, "is not valid JSON")
        return None
    if not isinstance(data, dict):
        _warn_recompute(path, "does not hold a JSON object")
        return None
    record = data.pop(RECORD, None)
    why = check_cache_record(record, data, key or _default_key(path), code, folder=path.parent)
    if why is not None:
        _warn_recompute(path, why)
        return None
    return data
