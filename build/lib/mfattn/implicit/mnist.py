"""MNIST, read from the four canonical IDX files, with no torchvision.

Where the data comes from, in order:

1. the ``root`` argument of :func:`load_mnist` / :func:`mnist_dir`;
2. the ``MFATTN_DATA`` environment variable;
3. ``<project root>/data/mnist`` (git-ignored), or ``./data/mnist`` outside a checkout;
4. failing that, ``<project root>/../shared/data/mnist`` when it holds the files (the
   development and CI layout, where the read-only ``shared/`` folder sits beside the checkout).

Nothing is downloaded at import or behind the user's back: :func:`download_mnist` (or
``load_mnist(..., download=True)``, or ``python -m mfattn.implicit.mnist download [DIR]``) fetches the
four files from the canonical mirrors and keeps a file only if its SHA-256 matches the
published original. Every file read is checked the same way, so a truncated or corrupted
download is reported, never trained on.

The IDX format (LeCun et al.): a big-endian header ``0 0 <type code> <ndim>``, then ``ndim``
big-endian uint32 sizes, then the values in C order. MNIST images are ``uint8 (n, 28, 28)``
and labels ``uint8 (n,)``; the files are usually gzipped, and either form is accepted.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from ..companion import store

__all__ = ["MNIST_MEAN", "MNIST_STD", "FILES", "MIRRORS", "MNISTDataError", "MNIST", "parse_idx",
           "read_idx", "mnist_dir", "download_mnist", "load_mnist", "normalize"]

#: Pixel mean and standard deviation of the MNIST training set (pixels scaled to [0, 1]).
MNIST_MEAN = 0.1307
MNIST_STD = 0.3081

#: split -> kind -> canonical file name (without ``.gz``).
FILES = {
    "train": {"images": "train-images-idx3-ubyte", "labels": "train-labels-idx1-ubyte"},
    "test": {"images": "t10k-images-idx3-ubyte", "labels": "t10k-labels-idx1-ubyte"},
}

#: SHA-256 of the canonical gzipped files and of their decompressed contents.
_SHA256_GZ = {
    "train-images-idx3-ubyte": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    "train-labels-idx1-ubyte": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
    "t10k-images-idx3-ubyte": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
}
_SHA256_RAW = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}

#: Mirrors serving the canonical gzipped files, tried in order.
MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "http://yann.lecun.com/exdb/mnist/",
)

# IDX type code -> numpy dtype (big-endian where it matters).
_IDX_DTYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
               0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}

_HOW_TO_PROVIDE = (
    "Provide MNIST in one of these ways: (1) online, run `python -m mfattn.implicit.mnist download {dir}` "
    "(or call mfattn.implicit.mnist.download_mnist({dir!r}), or load_mnist(..., download=True)); "
    "(2) copy the four canonical files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
    "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz; gzipped or not) into a folder and pass "
    "it as root=... or set the environment variable MFATTN_DATA to it."
)


class MNISTDataError(FileNotFoundError):
    """MNIST is missing, incomplete or corrupt; the message says where we looked and what to do."""


@dataclass(frozen=True)
class MNIST:
    """One split of MNIST: ``images`` uint8 (n, 28, 28), ``labels`` int64 (n,), and where it came from."""

    images: np.ndarray
    labels: np.ndarray
    split: str
    root: Path

    def __len__(self) -> int:
        return len(self.labels)

    def tensors(self, dtype=None):
        """``(x, y)`` as torch tensors: normalised images (n, 1, 28, 28) and int64 labels (n,)."""
        import torch

        x = normalize(torch.from_numpy(self.images), dtype=dtype or torch.float32)
        return x, torch.from_numpy(self.labels)


def normalize(images, dtype=None):
    """Map uint8 pixels to ``(p / 255 - 0.1307) / 0.3081`` with a channel axis: (n, 28, 28) -> (n, 1, 28, 28)."""
    import torch

    if images.dim() != 3:
        raise ValueError(f"images must have shape (n, height, width); got {tuple(images.shape)}")
    x = images.to(dtype or torch.float32).div_(255.0)
    return x.sub_(MNIST_MEAN).div_(MNIST_STD).unsqueeze(1)


# -- the IDX format ---------------------------------------------------------------------------

def parse_idx(data: bytes, *, name: str = "<bytes>") -> np.ndarray:
    """Decode the bytes of an (uncompressed) IDX file into an array of its shape and type."""
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{name}: not an IDX file (the first two bytes must be zero; got {data[:4]!r})")
    code, ndim = data[2], data[3]
    if code not in _IDX_DTYPES:
        raise ValueError(f"{name}: unknown IDX type code 0x{code:02x}; expected one of "
                         f"{', '.join(f'0x{c:02x}' for c in _IDX_DTYPES)}")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{name}: truncated IDX header ({len(data)} bytes for {ndim} dimensions)")
    shape = tuple(int(s) for s in np.frombuffer(data, dtype=">u4", count=ndim, offset=4))
    dtype = _IDX_DTYPES[code]
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(data) != expected:
        raise ValueError(f"{name}: IDX header announces shape {shape} ({expected} bytes) but the file "
                         f"holds {len(data)} bytes (truncated or corrupt)")
    array = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="), copy=True)


def _decompress(raw: bytes, name: str) -> bytes:
    if raw[:2] == b"\x1f\x8b":  # gzip magic
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: corrupt gzip stream ({exc})") from None
    return raw


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read an IDX file, gzipped or not (detected from its first bytes, not its name)."""
    path = Path(path)
    return parse_idx(_decompress(path.read_bytes(), str(path)), name=str(path))


# -- where the data lives ---------------------------------------------------------------------

def mnist_dir(root: str | os.PathLike | None = None) -> tuple[Path, str]:
    """The data folder and how it was chosen: ``(path, "argument" | "MFATTN_DATA" | "default" | "shared")``."""
    if root is not None:
        return Path(root).expanduser().resolve(), "argument"
    env = os.environ.get("MFATTN_DATA")
    if env:
        return Path(env).expanduser().resolve(), "MFATTN_DATA"
    default = _default_dir()
    shared = (default.parents[2] / "shared" / "data" / "mnist").resolve()
    if _locate(default, FILES["train"]["labels"]) is None and _locate(shared, FILES["train"]["labels"]):
        return shared, "shared"
    return default, "default"


def _default_dir() -> Path:
    return ((store.project_root() or Path.cwd()) / "data" / "mnist").resolve()


def _locate(folder: Path, name: str) -> Path | None:
    for candidate in (folder / f"{name}.gz", folder / name):
        if candidate.is_file():
            return candidate
    return None


def _verified(raw: bytes, name: str, path: Path) -> bytes:
    """The decompressed bytes of ``raw`` if they are the canonical MNIST file ``name``, else an error.

    A gzipped file matching the published archive is accepted at once; any other gzip stream
    (re-compressed by the user) or a plain file is accepted when its content matches.
    """
    if raw[:2] == b"\x1f\x8b" and hashlib.sha256(raw).hexdigest() == _SHA256_GZ[name]:
        return _decompress(raw, str(path))
    try:
        data = _decompress(raw, str(path))
    except ValueError as exc:
        raise MNISTDataError(f"{exc}; delete it and provide it again. "
                             + _HOW_TO_PROVIDE.format(dir=path.parent)) from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != _SHA256_RAW[name]:
        raise MNISTDataError(
            f"{path}: SHA-256 of its content {digest} does not match the canonical MNIST file {name} "
            f"(expected {_SHA256_RAW[name]}); the file is corrupt or not MNIST. Delete it and provide it "
            f"again. " + _HOW_TO_PROVIDE.format(dir=path.parent))
    return data


def _read_checked(folder: Path, name: str, source: str, verify: bool) -> np.ndarray:
    path = _locate(folder, name)
    if path is None:
        raise MNISTDataError(
            f"MNIST file {name}(.gz) not found in {folder} (data folder chosen from: {source}; "
            f"order: root argument, then $MFATTN_DATA, then <project>/data/mnist, then "
            f"<project>/../shared/data/mnist). "
            + _HOW_TO_PROVIDE.format(dir=folder))
    raw = path.read_bytes()
    if verify:
        data = _verified(raw, name, path)
    else:
        try:
            data = _decompress(raw, str(path))
        except ValueError as exc:
            raise MNISTDataError(f"{exc}. " + _HOW_TO_PROVIDE.format(dir=folder)) from None
    try:
        return parse_idx(data, name=str(path))
    except ValueError as exc:
        raise MNISTDataError(f"{exc}. " + _HOW_TO_PROVIDE.format(dir=folder)) from None


# -- download ---------------------------------------------------------------------------------

def _fetch(url: str, timeout: float = 60.0) -> bytes:
    """The bytes at ``url`` (http(s) or file://). Tests replace this function to stay offline."""
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (fixed mirror list)
        return response.read()


def download_mnist(root: str | os.PathLike | None = None, *, mirrors: Iterable[str] = MIRRORS,
                   fetch: Callable[[str], bytes] | None = None, force: bool = False) -> Path:
    """Fetch the four canonical gzipped files into ``root`` and verify their SHA-256.

    Each file is tried on every mirror in turn; a file whose checksum does not match is
    discarded (never written) and the next mirror is tried. Files already present with the
    right checksum are kept unless ``force``. Writes are atomic. Returns the folder.
    """
    folder, source = mnist_dir(root)
    if source == "shared":  # never write into the read-only shared folder
        folder = _default_dir()
    fetch = fetch or _fetch
    mirrors = list(mirrors)
    if not mirrors:
        raise ValueError("mirrors must name at least one base URL")
    for split in FILES.values():
        for name in split.values():
            target = folder / f"{name}.gz"
            if not force and target.is_file() and \
                    hashlib.sha256(target.read_bytes()).hexdigest() == _SHA256_GZ[name]:
                continue
            problems = []
            for base in mirrors:
                url = base.rstrip("/") + f"/{name}.gz"
                try:
                    blob = fetch(url)
                except Exception as exc:  # network errors differ by transport; report them all
                    problems.append(f"{url}: {type(exc).__name__}: {exc}")
                    continue
                digest = hashlib.sha256(blob).hexdigest()
                if digest != _SHA256_GZ[name]:
                    problems.append(f"{url}: SHA-256 mismatch (got {digest}, expected {_SHA256_GZ[name]})")
                    continue
                store.atomic_write_bytes(target, blob)
                break
            else:
                raise MNISTDataError(f"could not download {name}.gz into {folder}; tried:\n  "
                                     + "\n  ".join(problems) + "\n" + _HOW_TO_PROVIDE.format(dir=folder))
    return folder


# -- loading ----------------------------------------------------------------------------------

def load_mnist(split: str = "train", root: str | os.PathLike | None = None, *, limit: int | None = None,
               download: bool = False, verify: bool = True) -> MNIST:
    """Load one split of MNIST.

    Parameters
    ----------
    split : {"train", "test"}
    root : folder holding the files; default ``$MFATTN_DATA``, else ``<project>/data/mnist``.
    limit : keep only the first ``limit`` examples (the canonical order), for quick runs.
    download : fetch missing files from :data:`MIRRORS` first (needs a network).
    verify : check each file's SHA-256 against the canonical MNIST file.
    """
    if split not in FILES:
        raise ValueError(f"split must be 'train' or 'test'; got {split!r}")
    if limit is not None and (not isinstance(limit, (int, np.integer)) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None; got {limit!r}")
    folder, source = mnist_dir(root)
    if download:
        download_mnist(folder)
    images = _read_checked(folder, FILES[split]["images"], source, verify)
    labels = _read_checked(folder, FILES[split]["labels"], source, verify)
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        raise MNISTDataError(f"{folder}: images {images.shape} and labels {labels.shape} of split "
                             f"{split!r} do not match (expected (n, 28, 28) and (n,))")
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    return MNIST(np.ascontiguousarray(images), labels.astype(np.int64), split, folder)


def main(argv: list[str] | None = None) -> int:
    """``python -m mfattn.implicit.mnist download [DIR]`` or ``python -m mfattn.implicit.mnist check [DIR]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("download", "check"):
        print("usage: python -m mfattn.implicit.mnist {download,check} [DIR]", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) > 1 else None
    if argv[0] == "download":
        print(f"MNIST in {download_mnist(root)}")
    for split in FILES:
        data = load_mnist(split, root)
        print(f"{split}: {len(data)} images in {data.root} (SHA-256 verified)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
