"""The data sets the book reads, found locally or downloaded and verified with :mod:`pooch`.

Three data sets, each a few files with a pinned source and a SHA-256 per file:

* ``mnist``: the four canonical MNIST files (gzipped IDX), from the mirrors torchvision uses;
* ``asi-reference``: results stored in the public code of Singh & Buckley (2023),
  ``ryan-sussex/AttentionAsStructuralInference`` at commit 5b9eacb (chapter 5 compares with them);
* ``dmft-reference``: the two initial contexts of the paper-era code of Poc-López & Aguilera (2024),
  ``muxitox/Dynamical-MF-Self-Attention`` at commit de41c41 (chapter 6 cross-checks). That repository
  has no licence, so the files are never copied into this one: they are fetched for the reader's own
  use, like the others.

Where a file is looked for, in order (the first folder holding a file with the right SHA-256 wins):

1. the folder in the data set's environment variable (``MFATTN_DATA`` for MNIST,
   ``MFATTN_ASI_REFERENCE``, ``MFATTN_DMFT_REFERENCE``);
2. ``<project root>/data/<name>/`` (git-ignored; where downloads go), or ``./data/<name>`` outside a
   checkout;
3. ``<project root>/../shared/data/<name>/`` (a read-only copy beside the checkout, as in CI here).

If none holds it, :func:`fetch` downloads it into folder 2 with pooch, which writes to a temporary
file, checks the SHA-256 and only then moves it into place: a failed or corrupted download leaves
nothing behind and says so. The file then gets the permissions of the umask (pooch's temporary file
is private, 0600). ``$MFATTN_OFFLINE=1`` forbids downloads. ``mfattn data fetch|check`` does the same
from the command line.

Mirrors: ``$MFATTN_MIRROR_<NAME>`` (``<NAME>`` in capitals, ``-`` as ``_``: ``MFATTN_MIRROR_MNIST``,
``MFATTN_MIRROR_ASI_REFERENCE``, ``MFATTN_MIRROR_DMFT_REFERENCE``) is a base URL holding that data
set's files under their names (``<url>/<file>``); ``$MFATTN_MIRROR`` is one base URL for all of them
(``<url>/<name>/<file>``). A mirror is tried before the pinned sources, and what it serves must have the
same SHA-256. ``http://``, ``https://``, ``ftp://`` and ``file://`` URLs are accepted; anything else is
refused with the variable's name.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from . import store
from .checks import check_bool, check_choice

__all__ = ["DataSet", "DATASETS", "MissingDataError", "dataset_files", "fetch", "locate", "env_folder", "folders", "check", "main",
           "mirror_env", "mirror_urls", "MIRROR_ENV", "offline"]

def offline() -> bool:
    """Whether ``$MFATTN_OFFLINE`` forbids downloads: unset, empty, 0, false, no or off allow them; 1, true, yes or
    on forbid them (any case, spaces ignored); anything else is a ValueError naming the variable ("false" used to
    read as set, hence offline)."""
    text = os.environ.get("MFATTN_OFFLINE", "").strip().lower()
    if text in ("", "0", "false", "no", "off"):
        return False
    if text in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"MFATTN_OFFLINE must be 1/true/yes/on (no downloads) or 0/false/no/off (downloads allowed); "
                     f"got {os.environ.get('MFATTN_OFFLINE')!r:.60}")


#: One base URL for every data set's mirror (``<url>/<name>/<file>``).
MIRROR_ENV = "MFATTN_MIRROR"
_MIRROR_SCHEMES = ("http", "https", "ftp", "file")


@dataclass(frozen=True)
class DataSet:
    """Files of one data set: ``{file name: sha256}``, the URL(s) each is downloaded from, where it is looked for and
    ``{file name: size in bytes}`` as published (a copy of another size is refused before it is read or hashed)."""

    name: str
    env: str
    files: dict[str, str]
    urls: dict[str, tuple[str, ...]] = field(default_factory=dict)
    origin: str = ""
    sizes: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        import re

        if not isinstance(self.name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", self.name):
            raise ValueError(f"DataSet: name must be a data set's name (lowercase words joined by '-'); got "
                             f"{self.name!r:.60}")
        if not isinstance(self.env, str) or not re.fullmatch(r"MFATTN_[A-Z0-9_]+", self.env):
            raise ValueError(f"DataSet: env must name an MFATTN_ variable; got {self.env!r:.60}")
        if not isinstance(self.files, dict) or not all(
                isinstance(f, str) and f and "/" not in f and f not in (".", "..") and isinstance(h, str)
                and re.fullmatch(r"[0-9a-f]{64}", h) for f, h in self.files.items()):
            raise ValueError("DataSet: files must map plain file names to SHA-256 digests (64 hex digits); got "
                             f"{self.files!r:.100}")
        if not isinstance(self.urls, dict) or set(self.urls) - set(self.files) or not all(
                isinstance(u, tuple) and all(isinstance(x, str) and x for x in u) for u in self.urls.values()):
            raise ValueError(f"DataSet: urls must map files of files to tuples of URLs; got {self.urls!r:.100}")
        if not isinstance(self.origin, str):
            raise TypeError(f"DataSet: origin must be a string; got {type(self.origin).__name__}")
        # a size of a file the set no longer has is never read (dataclasses.replace keeps the sizes of the files
        # it replaces): only the kinds are checked
        if not isinstance(self.sizes, dict) or not all(
                isinstance(f, str) and isinstance(n, int) and not isinstance(n, bool) and n >= 0
                for f, n in self.sizes.items()):
            raise ValueError(f"DataSet: sizes must map file names to sizes in bytes (integers >= 0); got "
                             f"{self.sizes!r:.100}")


_MNIST_MIRRORS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "https://storage.googleapis.com/cvdf-datasets/mnist/")
_MNIST = {
    "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
    "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
}
_ASI = "https://raw.githubusercontent.com/ryan-sussex/AttentionAsStructuralInference/5b9eacb37bd2bca63211a7b984cc5642b3592b0a/"
_DMFT = "https://raw.githubusercontent.com/muxitox/Dynamical-MF-Self-Attention/de41c41ac718338ac958aa6f455a51f2784f2c4a/"

#: The data sets by name.
DATASETS: dict[str, DataSet] = {
    "mnist": DataSet(
        "mnist", "MFATTN_DATA", _MNIST, {f: tuple(m + f for m in _MNIST_MIRRORS) for f in _MNIST},
        "the canonical MNIST files (LeCun, Cortes & Burges), mirrored by PyTorch's S3 bucket and Google's CVDF",
        {"train-images-idx3-ubyte.gz": 9_912_422, "train-labels-idx1-ubyte.gz": 28_881,
         "t10k-images-idx3-ubyte.gz": 1_648_877, "t10k-labels-idx1-ubyte.gz": 4_542}),
    "asi-reference": DataSet(
        "asi-reference", "MFATTN_ASI_REFERENCE",
        {"multiple_training.json": "0cc71e8af1acb2991421bb397836ad3a97cc738711b9d2682c94f419b9b65257",
         "expanding_50.json": "814467123fb1a357c8223e94cbfa067ea1e3dced18679250a44de4bae9510e9b",
         "expanding_10.json": "312e12e07a7a4d128f36358b235d948f11c6fefd5c766880001f74589570cc55"},
        {"multiple_training.json": (_ASI + "data/multiple_training.json",),
         "expanding_50.json": (_ASI + "data/expanding_50.json",),
         "expanding_10.json": (_ASI + "data/expanding_10.json",)},
        "github.com/ryan-sussex/AttentionAsStructuralInference at 5b9eacb, data/",
        {"multiple_training.json": 7_837, "expanding_50.json": 2_162_935, "expanding_10.json": 2_190_558}),
    "dmft-reference": DataSet(
        "dmft-reference", "MFATTN_DMFT_REFERENCE",
        {"context_beta3.0.npz": "93f455abf93912e13524ce561ca74dc8eaefe025b35dd9405ab27d08f4b0dab5",
         "context_beta1.28_zoom.npz": "287f50b563ed06037b221ced695e29ba00de15fba5bbbfa7d497c5686aab96e5"},
        {"context_beta3.0.npz": (_DMFT + "chpt/beta_idx-4000_window_chpt.npz",),
         "context_beta1.28_zoom.npz": (_DMFT + "chpt/beta_idx-4000_window_chpt_zoom.npz",)},
        "github.com/muxitox/Dynamical-MF-Self-Attention at de41c41, chpt/ (no licence: fetched, never copied)",
        {"context_beta3.0.npz": 1_044, "context_beta1.28_zoom.npz": 1_044}),
}


class MissingDataError(FileNotFoundError):
    """A data file is in none of the folders and could not be downloaded; the message says which file,
    where we looked and how to get it."""


def _dataset(name: str) -> DataSet:
    check_choice("name", name, tuple(DATASETS))   # the public functions' parameter, the dataset's name
    return DATASETS[name]


def dataset_files(name: str) -> tuple[str, ...]:
    """The file names of data set ``name`` (an unknown name is a clear error)."""
    return tuple(_dataset(name).files)


def env_folder(var: str) -> Path:
    """The folder the environment variable ``var`` names (resolved; it may not exist yet: a folder to be made),
    refusing one that names something other than a folder (a file, a device): a data set cannot be there."""
    check_choice("var", var, tuple(sorted({d.env for d in DATASETS.values()} | {"MFATTN_PAPERS"})))
    value = os.environ.get(var, "")
    if not value:
        raise ValueError(f"{var} is not set")
    path = store._resolved(value, var)   # a symlink loop is refused naming var
    if path.exists() and not path.is_dir():
        raise ValueError(f"{var}={value} must name a folder; it names a file or device")
    for part in path.parents:   # a folder below a file can never exist: no data set is there
        if part.exists():
            if not part.is_dir():
                raise ValueError(f"{var}={value} must name a folder; {part} is a file, but a folder is needed there")
            break
    return path


def folders(name: str) -> list[tuple[str, Path]]:
    """The folders searched for data set ``name``, in order: ``[(how it was chosen, path), ...]``;
    the download folder (``data/<name>`` of the checkout) is among them."""
    ds = _dataset(name)
    out = []
    if os.environ.get(ds.env):
        out.append((ds.env, env_folder(ds.env)))
    root = store.project_root()
    out.append(("download folder", ((root or Path.cwd()) / "data" / name).resolve()))
    if root is not None:
        out.append(("shared copy", (root.parent / "shared" / "data" / name).resolve()))
    return out


def _wrong_size(ds: DataSet, file: str, path: Path) -> str | None:
    """Why the local file ``path`` cannot be ``file`` of ``ds`` by its size alone (a phrase), or None: its size is
    read before any byte is, so a huge file planted under the name is refused at once instead of hashed or copied."""
    want = ds.sizes.get(file)
    if want is None:
        return None
    got = path.stat().st_size
    return None if got == want else f"has {got:,} bytes, not the published {want:,}"


def locate(name: str, file: str) -> Path | None:
    """The first local copy of ``file`` whose SHA-256 is right, or None. A copy with a wrong size (checked first,
    before it is read) or a wrong SHA-256 is an error (it is never used, and never silently replaced)."""
    ds = _dataset(name)
    check_choice("file", file, tuple(ds.files))
    for how, folder in folders(name):
        path = folder / file
        if path.is_file():
            why = _wrong_size(ds, file, path)
            if why is not None:
                raise MissingDataError(f"{path} ({how}) {why}: it is corrupt or another version; delete it (it is "
                                       f"downloaded again)")
            got = store.sha256_file(path)
            if got != ds.files[file]:
                raise MissingDataError(f"{path} ({how}) has SHA-256 {got}, not the published {ds.files[file]}: "
                                       f"it is corrupt or another version; delete it (it is downloaded again)")
            return path
    return None


def mirror_env(name: str) -> str:
    """The environment variable naming a mirror of data set ``name`` alone: ``MFATTN_MIRROR_<NAME>``."""
    return f"{MIRROR_ENV}_{_dataset(name).name.upper().replace('-', '_')}"


def _mirror_base(var: str) -> str | None:
    value = os.environ.get(var, "").strip()
    if not value:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    # a file URL is file:///absolute (file:relative names no folder), and no URL holds white space or control
    # characters (a newline inside would end up in the request line)
    if parts.scheme not in _MIRROR_SCHEMES or not (parts.netloc or (parts.scheme == "file" and
                                                                    parts.path.startswith("/"))) \
            or any(c.isspace() or not c.isprintable() for c in value):
        raise ValueError(f"${var} must be a base URL ({', '.join(s + '://' for s in _MIRROR_SCHEMES)}) holding the "
                         f"data set's files; got {value!r}")
    try:
        parts.port   # a port past 65535 (or not a number) is read only here: the download would fail on it later
    except ValueError as err:
        raise ValueError(f"${var} must be a base URL with a valid port (0 to 65535); got {value!r}: {err}") from None
    if parts.netloc and parts.scheme != "file" and not parts.hostname:   # 'https://:80/' names no host
        raise ValueError(f"${var} must be a base URL naming a host; got {value!r}")
    return value.rstrip("/")


def mirror_urls(name: str, file: str) -> tuple[str, ...]:
    """The mirror URLs of ``file`` of data set ``name`` set by the environment, tried before the pinned
    sources: ``$MFATTN_MIRROR_<NAME>/<file>``, then ``$MFATTN_MIRROR/<name>/<file>``. A value that is not
    such a URL raises ValueError naming the variable."""
    ds = _dataset(name)
    check_choice("file", file, tuple(ds.files))
    urls = []
    own = _mirror_base(mirror_env(name))
    if own:
        urls.append(f"{own}/{file}")
    shared = _mirror_base(MIRROR_ENV)
    if shared:
        urls.append(f"{shared}/{ds.name}/{file}")
    return tuple(urls)


def _copy_local(url: str, output_file, pooch_obj, size: int | None = None) -> None:
    """A pooch downloader for ``file://`` URLs (a mirror on a local or network drive). With ``size`` (the published
    size in bytes), a mirrored file of another size is a ValueError before any byte is copied (a 60 GiB file under
    a 10 MB file's name would otherwise be copied whole before pooch compares the SHA-256)."""
    import shutil
    from urllib.parse import unquote, urlsplit
    from urllib.request import url2pathname

    parts = urlsplit(url)
    source = url2pathname(unquote(parts.path))
    if parts.netloc and parts.netloc != "localhost":
        source = f"//{parts.netloc}{source}"
    store.check_regular_file(source, "mirrored file")  # a FIFO or /dev/zero would block or never end
    if size is not None and os.stat(source).st_size != size:
        raise ValueError(f"the mirrored file {source} has {os.stat(source).st_size:,} bytes, not the published "
                         f"{size:,}: another file or version; nothing copied")
    with open(source, "rb") as src:
        if isinstance(output_file, (str, os.PathLike)):
            with open(output_file, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            shutil.copyfileobj(src, output_file)


def _bounded_http(url: str, output_file, pooch_obj, size: int | None = None) -> None:
    """A pooch downloader for ``http(s)://`` URLs that stops at the published size: with ``size`` (bytes), a
    response announcing another length, or streaming past ``size``, is a ValueError naming the URL, before the rest
    is read (pooch's own downloader reads a file of any size before it compares the SHA-256)."""
    import requests

    with requests.get(url, stream=True, timeout=60) as response:
        response.raise_for_status()
        announced = response.headers.get("Content-Length")
        if size is not None and announced is not None and announced.isdigit() and int(announced) != size:
            raise ValueError(f"{url} announces {int(announced):,} bytes, not the published {size:,}: another file "
                             f"or version; nothing downloaded")
        own = isinstance(output_file, (str, os.PathLike))
        dst = open(output_file, "wb") if own else output_file
        try:
            got = 0
            for chunk in response.iter_content(chunk_size=1 << 20):
                got += len(chunk)
                if size is not None and got > size:
                    raise ValueError(f"{url} sent more than the published {size:,} bytes: another file or version; "
                                     f"download stopped")
                dst.write(chunk)
        finally:
            if own:
                dst.close()


def _how_to_fix(name: str) -> str:
    """How to get data set ``name`` when a file is missing: the command, or the variables."""
    ds = _dataset(name)
    return (f"run `python -m mfattn data fetch {name}`, or set ${ds.env} to a folder holding the files, or "
            f"${mirror_env(name)} (or ${MIRROR_ENV}) to a mirror's URL")


def _how_to_get(name: str, file: str) -> str:
    ds = _dataset(name)
    looked = "; ".join(f"{folder} ({how})" for how, folder in folders(name))
    return (f"{name} file {file!r} is missing. Looked in: {looked}. Get it with `python -m mfattn data fetch "
            f"{name}` (needs internet; from {ds.origin}), or put a copy in one of those folders "
            f"(or in a folder named by ${ds.env}); a mirror: ${mirror_env(name)}=<url> (<url>/{file}) or "
            f"${MIRROR_ENV}=<url> (<url>/{name}/{file}).")


def fetch(name: str, file: str, *, download: bool | None = None, folder: str | os.PathLike | None = None) -> Path:
    """The path of a verified copy of ``file`` of data set ``name``, downloading it when it is nowhere
    local (unless ``download=False`` or ``$MFATTN_OFFLINE`` is set). ``folder`` (optional) replaces the
    search: the file is looked for, and downloaded, there only. Raises :class:`MissingDataError` with a
    message naming the file, the folders searched and how to get it."""
    ds = _dataset(name)
    check_choice("file", file, tuple(ds.files))
    if download is not None:
        check_bool("download", download)   # download='no' would read as True (and download)
    if folder is not None:
        target = store.make_folder(store._resolved(store.check_path("folder", folder), "folder"), "folder")
        path = target / file
        if path.is_file() and _wrong_size(ds, file, path) is None and store.sha256_file(path) == ds.files[file]:
            return path
    else:
        path = locate(name, file)
        if path is not None:
            return path
        target = dict(folders(name))["download folder"]
    if download is None:
        download = not offline()
    if not download:
        raise MissingDataError(_how_to_get(name, file))
    import pooch

    errors = []
    created = not Path(target).exists()   # pooch makes the folder before it downloads: a failed fetch removes it
    for url in (*mirror_urls(name, file), *ds.urls[file]):
        try:
            got = Path(pooch.retrieve(url, known_hash=f"sha256:{ds.files[file]}", fname=file, path=target,
                                      progressbar=False,
                                      downloader=functools.partial(
                                          _copy_local if url.startswith("file:") else _bounded_http,
                                          size=ds.sizes.get(file))
                                      if url.startswith(("file:", "http:", "https:")) else None))
            os.chmod(got, 0o666 & ~store._current_umask())  # pooch's temporary file is 0600
            return got
        except ValueError as err:  # pooch: SHA-256 mismatch (the download was deleted)
            errors.append(f"{url}: {str(err).splitlines()[0]}")
        except Exception as err:  # network errors of every kind: try the next mirror
            errors.append(f"{url}: {type(err).__name__}: {err}")
    if created and Path(target).is_dir() and not any(Path(target).iterdir()):
        Path(target).rmdir()   # nothing was written: leave no empty folder behind (in the checkout, say)
    raise MissingDataError(_how_to_get(name, file) + " Download failed: " + " | ".join(errors))


def check(name: str) -> dict[str, str]:
    """``{file: where it is (a path) or "missing" or the error}`` for every file of data set ``name``."""
    out = {}
    for file in _dataset(name).files:
        try:
            path = locate(name, file)
            out[file] = str(path) if path else "missing"
        except MissingDataError as err:
            out[file] = f"error: {err}"
    return out


def main(argv: list[str] | None = None) -> int:
    """``mfattn data {fetch,check} [NAME ...]``: download and verify, or report, the book's data sets."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="mfattn data", description=main.__doc__.splitlines()[0])
    parser.add_argument("action", choices=("fetch", "check"))
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"data sets (default: all): {', '.join(DATASETS)}")
    args = parser.parse_args(argv)
    for n in args.names:
        if n not in DATASETS:
            parser.error(f"unknown data set {n!r}; known: {', '.join(DATASETS)}")
    failed = 0
    for name in args.names or list(DATASETS):
        for file in DATASETS[name].files:
            try:
                path = fetch(name, file) if args.action == "fetch" else locate(name, file)
                print(f"{name:<15} {file:<28} {path or 'missing (to get it: ' + _how_to_fix(name) + ')'}")
                failed += path is None
            except (MissingDataError, ValueError) as err:
                print(f"{name:<15} {file:<28} FAILED: {err}", file=sys.stderr)
                failed += 1
    return 1 if failed else 0
