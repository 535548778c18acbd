"""MNIST, read from the four canonical IDX files, with no torchvision.

Where the data comes from, in order:

1. the ``root`` argument of :func:`load_mnist` / :func:`mnist_dir`;
2. the ``MFATTN_DATA`` environment variable;
3. ``<project root>/data/mnist`` (git-ignored; where downloads go), or ``./data/mnist`` outside a checkout;
4. ``<project root>/../shared/data/mnist`` when it holds the files (a read-only copy beside the
   checkout, as on the development machines and in CI here).

When the files are in none of them, :func:`load_mnist` downloads the four canonical gzipped files
into that folder through :mod:`mfattn.companion.datasets` (pooch: a temporary file, its SHA-256
checked, then moved into place), unless ``download=False`` or ``$MFATTN_OFFLINE=1``; then the error
says which file is missing, where it looked and how to get it. Every file read is checked against
the published SHA-256, so a truncated or corrupted copy is reported, never trained on.
``mfattn data fetch mnist`` downloads ahead of time.

The IDX format (LeCun et al.): a big-endian header ``0 0 <type code> <ndim>``, then ``ndim``
big-endian uint32 sizes, then the values in C order. MNIST images are ``uint8 (n, 28, 28)``
and labels ``uint8 (n,)``; the files are usually gzipped, and either form is accepted.
"""

from __future__ import annotations

import hashlib
import os
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..companion import datasets

__all__ = ["MNIST_MEAN", "MNIST_STD", "FILES", "MNISTDataError", "MNIST", "parse_idx",
           "read_idx", "mnist_dir", "download_mnist", "load_mnist", "normalize"]

#: Pixel mean and standard deviation of the MNIST training set (pixels scaled to [0, 1]).
MNIST_MEAN = 0.1307
MNIST_STD = 0.3081

#: split -> kind -> canonical file name (without ``.gz``).
FILES = {
    "train": {"images": "train-images-idx3-ubyte", "labels": "train-labels-idx1-ubyte"},
    "test": {"images": "t10k-images-idx3-ubyte", "labels": "t10k-labels-idx1-ubyte"},
}

#: SHA-256 of the canonical gzipped files (published with the data set, :mod:`mfattn.companion.datasets`)
#: and of their decompressed contents (a copy gzipped again, or not gzipped, is accepted by its content).
_SHA256_GZ = {name[:-3]: sha for name, sha in datasets.DATASETS["mnist"].files.items()}
_SHA256_RAW = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}

# IDX type code -> numpy dtype (big-endian where it matters).
_IDX_DTYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"),
               0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}

_HOW_TO_PROVIDE = (
    "Provide MNIST in one of these ways: (1) online, run `mfattn data fetch mnist` (or call "
    "mfattn.implicit.mnist.download_mnist({dir!r}); load_mnist downloads by itself unless MFATTN_OFFLINE=1); "
    "(2) copy the four canonical files (train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, "
    "t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz; gzipped or not) into a folder and pass "
    "it as root=... or set the environment variable MFATTN_DATA to it."
)


class MNISTDataError(datasets.MissingDataError):
    """MNIST is missing, incomplete or corrupt; the message says where we looked and what to do."""


@dataclass(frozen=True)
class MNIST:
    """One split of MNIST: ``images`` uint8 (n, 28, 28), ``labels`` int64 (n,), and where it came from.

    The record is checked when made: ``images`` a uint8 array (n, height, width), ``labels`` an integer array of n
    class labels in [0, 10), ``split`` ``"train"`` or ``"test"``, ``root`` a path; a clear error naming the field
    otherwise."""

    images: np.ndarray
    labels: np.ndarray
    split: str
    root: Path

    def __post_init__(self) -> None:
        from ..companion.checks import check_choice

        images, labels = self.images, self.labels
        if not isinstance(images, np.ndarray) or images.dtype != np.uint8:
            raise TypeError("images must be a uint8 numpy array of pixels (n, height, width); got "
                            + (str(images.dtype) if isinstance(images, np.ndarray) else type(images).__name__))
        if not isinstance(labels, np.ndarray) or labels.dtype.kind not in "iu":
            raise TypeError("labels must be an integer numpy array of class labels (n,); got "
                            + (str(labels.dtype) if isinstance(labels, np.ndarray) else type(labels).__name__))
        if images.ndim != 3 or labels.ndim != 1:
            raise ValueError(f"images must have shape (n, height, width) and labels (n,); got {images.shape} and "
                             f"{labels.shape}")
        if len(labels) != len(images):
            raise ValueError(f"labels must hold one label per image: {len(labels)} labels for {len(images)} images")
        if len(labels) and not 0 <= int(labels.min()) <= int(labels.max()) < 10:
            raise ValueError(f"labels must be digits 0-9; got values in [{int(labels.min())}, {int(labels.max())}]")
        check_choice("split", self.split, tuple(FILES))
        if isinstance(self.root, bytes) or not isinstance(self.root, (str, os.PathLike)):
            raise TypeError(f"root must be a path (where the split came from); got {type(self.root).__name__}")

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

    from ..companion.checks import check_tensor

    check_tensor("images", images)
    if images.dim() != 3:
        raise ValueError(f"images must have shape (n, height, width); got {tuple(images.shape)}")
    if images.dtype != torch.uint8:   # pixels 0-255; a float or wider integer image is not what the mean/std are of
        raise TypeError(f"images must be a uint8 tensor of pixels 0-255; got {images.dtype}")
    if dtype is not None and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise TypeError(f"dtype must be a floating-point torch dtype; got {dtype!r}")
    x = images.to(dtype or torch.float32).div_(255.0)
    return x.sub_(MNIST_MEAN).div_(MNIST_STD).unsqueeze(1)


# -- the IDX format ---------------------------------------------------------------------------

def parse_idx(data: bytes, *, name: str = "<bytes>") -> np.ndarray:
    """Decode the bytes of an (uncompressed) IDX file into an array of its shape and type."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be the bytes of an IDX file; got {type(data).__name__}")
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the file's name in messages); got {type(name).__name__}")
    if len(data) < 4 or data[0] != 0 or data[1] != 0:
        raise ValueError(f"{name}: not an IDX file (the first two bytes must be zero; got {data[:4]!r})")
    code, ndim = data[2], data[3]
    if code not in _IDX_DTYPES:
        raise ValueError(f"{name}: unknown IDX type code 0x{code:02x}; expected one of "
                         f"{', '.join(f'0x{c:02x}' for c in _IDX_DTYPES)}")
    if ndim > 32:   # numpy takes at most 64 axes; an IDX file has 1 to 4
        raise ValueError(f"{name}: an IDX file with {ndim} dimensions (at most 32 are read)")
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
    if dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise ValueError(f"{name}: the IDX file holds NaN or inf")
    return array.astype(dtype.newbyteorder("="), copy=True)


#: The most bytes an IDX file may hold (read or inflated): MNIST's largest is 47,040,016 bytes. A gzip stream
#: that inflates past it (a "zip bomb", or not MNIST) is refused before it fills memory.
MAX_IDX_BYTES = 64 * 2**20


def _decompress(raw: bytes, name: str, limit: int = MAX_IDX_BYTES) -> bytes:
    """``raw`` inflated if it is gzip (every member), in bounded pieces: at most ``limit`` bytes come out."""
    if raw[:2] != b"\x1f\x8b":  # gzip magic
        return raw
    out, rest = bytearray(), raw
    while rest[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += inflater.decompress(rest, limit + 1 - len(out))
        except zlib.error as exc:
            raise ValueError(f"{name}: corrupt gzip stream ({exc})") from None
        if len(out) > limit or inflater.unconsumed_tail:
            raise ValueError(f"{name}: the gzip stream inflates past {limit:,} bytes, more than any IDX file of "
                             f"MNIST holds (at most 47,040,016); refused before it fills memory")
        if not inflater.eof:
            raise ValueError(f"{name}: corrupt gzip stream (truncated: the stream ends before its last block)")
        rest = inflater.unused_data
    return bytes(out)


def _read_bounded(path: Path, limit: int = MAX_IDX_BYTES) -> bytes:
    """The bytes of ``path``, refused at once when the file is larger than any IDX file of MNIST."""
    from ..companion.store_read import check_regular_file

    size = check_regular_file(path, "IDX file")   # a FIFO or a device is refused before it is opened
    if size > limit:
        raise ValueError(f"{path}: {size:,} bytes, more than any IDX file of MNIST holds ({limit:,} at most)")
    return path.read_bytes()


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Read an IDX file, gzipped or not (detected from its first bytes, not its name); files or gzip streams
    that would inflate past :data:`MAX_IDX_BYTES` are refused before they are read or inflated."""
    from ..companion.checks import check_path

    path = check_path("path", path)
    return parse_idx(_decompress(_read_bounded(path), str(path)), name=str(path))


# -- where the data lives ---------------------------------------------------------------------

def mnist_dir(root: str | os.PathLike | None = None) -> tuple[Path, str]:
    """The data folder and how it was chosen: ``(path, how)``.

    ``how`` is ``"argument"`` (``root`` given), ``"MFATTN_DATA"``, else the first folder of
    :func:`mfattn.companion.datasets.folders` that holds the files (``"download folder"``: the
    checkout's ``data/mnist``; ``"shared copy"``: ``../shared/data/mnist`` beside it), else the
    download folder, where :func:`download_mnist` puts them.
    """
    if root is not None:
        from ..companion.checks import check_path

        folder = check_path("root", root).expanduser().resolve()
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"root must be a folder for the MNIST files; {folder} is "
                             f"{'a regular file' if folder.is_file() else 'not a directory'}")
        return folder, "argument"
    env = os.environ.get("MFATTN_DATA")
    if env:
        return datasets.env_folder("MFATTN_DATA"), "MFATTN_DATA"
    places = datasets.folders("mnist")
    for how, folder in places:
        if _locate(folder, FILES["train"]["labels"]) is not None:
            return folder, how
    return dict(places)["download folder"], "download folder"


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
            f"<project>/../shared/data/mnist; MFATTN_OFFLINE={os.environ.get('MFATTN_OFFLINE', '')!r}). "
            + _HOW_TO_PROVIDE.format(dir=folder))
    try:
        raw = _read_bounded(path)
    except ValueError as exc:
        raise MNISTDataError(f"{exc}. " + _HOW_TO_PROVIDE.format(dir=folder)) from None
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

def download_mnist(root: str | os.PathLike | None = None, *, force: bool = False) -> Path:
    """Download the four canonical gzipped files into ``root`` (default: the folder :func:`mnist_dir`
    picks; the checkout's ``data/mnist`` instead of a read-only shared copy) and verify their SHA-256.

    Goes through :func:`mfattn.companion.datasets.fetch` (pooch): each file is written to a temporary
    name, checked, then moved into place; mirrors are tried in turn and a failure names every attempt.
    Files already present with the right checksum are kept unless ``force``. Returns the folder.
    """
    folder, how = mnist_dir(root)
    if how == "shared copy":  # never write into the read-only shared folder
        folder = dict(datasets.folders("mnist"))["download folder"]
    for name in datasets.dataset_files("mnist"):
        if force:
            (folder / name).unlink(missing_ok=True)
        try:
            datasets.fetch("mnist", name, folder=folder, download=True)
        except datasets.MissingDataError as err:
            raise MNISTDataError(f"could not download {name} into {folder}: {err}") from None
    return folder


# -- loading ----------------------------------------------------------------------------------

def load_mnist(split: str = "train", root: str | os.PathLike | None = None, *, limit: int | None = None,
               download: bool | None = None, verify: bool = True) -> MNIST:
    """Load one split of MNIST.

    Parameters
    ----------
    split : {"train", "test"}
    root : folder holding the files; default ``$MFATTN_DATA``, else ``<project>/data/mnist``, else
        ``<project>/../shared/data/mnist`` (see :func:`mnist_dir`).
    limit : keep only the first ``limit`` examples (the canonical order), for quick runs.
    download : ``None`` (default): download missing files unless ``$MFATTN_OFFLINE`` is set;
        ``True``: download missing files; ``False``: never download.
    verify : check each file's SHA-256 against the canonical MNIST file.
    """
    if split not in FILES:
        raise ValueError(f"split must be 'train' or 'test'; got {split!r}")
    if limit is not None and (not isinstance(limit, (int, np.integer)) or limit < 1):
        raise ValueError(f"limit must be a positive integer or None; got {limit!r}")
    folder, source = mnist_dir(root)
    missing = any(_locate(folder, FILES[split][kind]) is None for kind in ("images", "labels"))
    if download is None:
        download = not datasets.offline()   # one reader of $MFATTN_OFFLINE ("false" is online)
    if missing and download:
        folder = download_mnist(root if root is not None else (folder if source == "MFATTN_DATA" else None))
    images = _read_checked(folder, FILES[split]["images"], source, verify)
    labels = _read_checked(folder, FILES[split]["labels"], source, verify)
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        raise MNISTDataError(f"{folder}: images {images.shape} and labels {labels.shape} of split "
                             f"{split!r} do not match (expected (n, 28, 28) and (n,))")
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    return MNIST(np.ascontiguousarray(images), labels.astype(np.int64), split, folder)


def main(argv: list[str] | None = None) -> int:
    """``python -m mfattn.implicit.mnist download [DIR]`` or ``python -m mfattn.implicit.mnist check [DIR]``
    (``mfattn data fetch mnist`` / ``mfattn data check mnist`` do the same for the default folders)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in ("download", "check"):
        print("usage: python -m mfattn.implicit.mnist {download,check} [DIR]", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) > 1 else None
    if argv[0] == "download":
        print(f"MNIST in {download_mnist(root)}")
    for split in FILES:
        data = load_mnist(split, root, download=False)
        print(f"{split}: {len(data)} images in {data.root} (SHA-256 verified)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
