"""MNIST loader: IDX parsing, checksums, data-folder resolution and download, all offline."""

from __future__ import annotations

import gzip
import shutil
import struct

import numpy as np
import pytest
import torch

from mfattn.implicit import mnist as mdata

from conftest import find_data_dir, needs_data

#: The MNIST folder the loader finds (``$MFATTN_DATA``, ``data/mnist``, ``../shared/data/mnist``), or None.
MNIST = find_data_dir("mnist")
needs_mnist = needs_data("mnist")

# Class counts of the canonical MNIST splits (LeCun et al.; also printed by every MNIST loader).
TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
TEST_COUNTS = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]


def idx_bytes(array: np.ndarray, code: int) -> bytes:
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(mdata._IDX_DTYPES[code]).tobytes()


def test_parse_idx_roundtrip_every_type():
    rng = np.random.default_rng(0)
    for code, dtype in mdata._IDX_DTYPES.items():
        a = (rng.normal(size=(3, 4, 5)) * 50).astype(dtype.newbyteorder("="))
        back = mdata.parse_idx(idx_bytes(a, code))
        assert back.shape == (3, 4, 5) and back.dtype.kind == dtype.kind
        np.testing.assert_array_equal(back, a)


def test_parse_idx_rejects_bad_headers():
    good = idx_bytes(np.arange(6, dtype=np.uint8).reshape(2, 3), 0x08)
    with pytest.raises(ValueError, match="not an IDX file"):
        mdata.parse_idx(b"\x01" + good[1:])
    with pytest.raises(ValueError, match="unknown IDX type code 0x07"):
        mdata.parse_idx(good[:2] + b"\x07" + good[3:])
    with pytest.raises(ValueError, match="truncated or corrupt"):
        mdata.parse_idx(good[:-1])


@needs_mnist
def test_canonical_headers_shapes_and_label_counts():
    # The IDX magic numbers of MNIST: 0x00000803 (uint8, 3-D) images, 0x00000801 labels.
    raw = gzip.open(MNIST / "t10k-images-idx3-ubyte.gz").read(16)
    assert struct.unpack(">4I", raw) == (0x803, 10000, 28, 28)
    train = mdata.load_mnist("train", MNIST)
    test = mdata.load_mnist("test", MNIST)
    assert train.images.shape == (60000, 28, 28) and train.images.dtype == np.uint8
    assert test.images.shape == (10000, 28, 28)
    assert np.bincount(train.labels).tolist() == TRAIN_COUNTS
    assert np.bincount(test.labels).tolist() == TEST_COUNTS
    assert train.labels[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]  # the famous first digits
    # Standard normalisation: the training set has mean 0 and std 1 after it.
    x, y = train.tensors()
    assert x.shape == (60000, 1, 28, 28) and y.dtype == torch.int64
    assert abs(x.mean().item()) < 1e-3 and abs(x.std().item() - 1.0) < 1e-3


@needs_mnist
def test_uncompressed_files_and_limit(tmp_path):
    for name in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        (tmp_path / name).write_bytes(gzip.open(MNIST / f"{name}.gz").read())
    test = mdata.load_mnist("test", tmp_path, limit=100)
    assert len(test) == 100
    np.testing.assert_array_equal(test.labels, mdata.load_mnist("test", MNIST).labels[:100])


@needs_mnist
def test_recompressed_gzip_is_accepted_by_content(tmp_path):
    for name in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        content = gzip.open(MNIST / f"{name}.gz").read()
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress(content, compresslevel=1, mtime=0))
    assert len(mdata.load_mnist("test", tmp_path)) == 10000


@needs_mnist
def test_checksum_mismatch_is_a_clear_error(tmp_path):
    for name in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        shutil.copy(MNIST / f"{name}.gz", tmp_path)
    labels = gzip.open(MNIST / "t10k-labels-idx1-ubyte.gz").read()
    k = 8 + 100  # byte of label 100, after the 8-byte header
    flipped = labels[:k] + bytes([(labels[k] + 1) % 10]) + labels[k + 1:]  # one wrong label
    (tmp_path / "t10k-labels-idx1-ubyte.gz").write_bytes(gzip.compress(flipped))
    with pytest.raises(mdata.MNISTDataError, match=r"SHA-256 .* does not match .*t10k-labels"):
        mdata.load_mnist("test", tmp_path)
    # The same corrupt file loads when verification is off: the check is what catches it.
    assert mdata.load_mnist("test", tmp_path, verify=False).labels[100] == (labels[k] + 1) % 10
    (tmp_path / "t10k-images-idx3-ubyte.gz").write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(mdata.MNISTDataError, match="corrupt gzip"):
        mdata.load_mnist("test", tmp_path)


def test_missing_folder_names_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_OFFLINE", "1")  # offline: no download is tried, the error says so
    missing = tmp_path / "nowhere"
    with pytest.raises(mdata.MNISTDataError, match=r"not found in .*nowhere.*argument") as info:
        mdata.load_mnist("train", missing)
    assert "MFATTN_DATA" in str(info.value) and "download" in str(info.value)
    monkeypatch.setenv("MFATTN_DATA", str(missing))
    with pytest.raises(mdata.MNISTDataError, match=r"nowhere \(data folder chosen from: MFATTN_DATA"):
        mdata.load_mnist("test")
    with pytest.raises(ValueError, match="split must be 'train' or 'test'"):
        mdata.load_mnist("validation", missing)
    with pytest.raises(ValueError, match="limit must be a positive integer"):
        mdata.load_mnist("test", missing, limit=0)


@needs_mnist
def test_environment_variable_is_used(monkeypatch):
    monkeypatch.setenv("MFATTN_DATA", str(MNIST))
    assert mdata.mnist_dir() == (MNIST.resolve(), "MFATTN_DATA")
    assert len(mdata.load_mnist("test", limit=5)) == 5


def test_a_missing_folder_is_downloaded_into_and_verified(served_data, tmp_path, monkeypatch):
    """Online with no copy, load_mnist downloads the four files (pooch, SHA-256 checked) and loads them."""
    served_data.point("mnist")
    monkeypatch.delenv("MFATTN_OFFLINE", raising=False)
    target = tmp_path / "mnist"
    assert len(mdata.load_mnist("test", target, limit=7)) == 7
    assert sorted(p.name for p in target.iterdir()) == sorted(
        f"{n}.gz" for split in mdata.FILES.values() for n in split.values())
    with pytest.raises(mdata.MNISTDataError, match="not found in"):
        mdata.load_mnist("test", tmp_path / "elsewhere", download=False)


def test_a_corrupted_mirror_file_is_refused_and_nothing_is_kept(served_data, tmp_path):
    (served_data.folder / "mnist" / "t10k-labels-idx1-ubyte.gz").write_bytes(b"\x1f\x8b" + b"junk")
    served_data.point("mnist")
    target = tmp_path / "mnist"
    # refused by its length (6 bytes, not the published size) before its hash is read
    with pytest.raises(mdata.MNISTDataError, match=r"could not download t10k-labels-idx1-ubyte.gz .*(SHA256|announces "
                                                   r"6 bytes, not the published)"):
        mdata.download_mnist(target)
    assert not (target / "t10k-labels-idx1-ubyte.gz").exists()  # nothing unverified is left behind
    assert not [p for p in target.iterdir() if p.name.startswith(".") or "tmp" in p.name]


@needs_mnist
def test_default_folder_falls_back_to_shared_beside_the_checkout(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "mfattn").mkdir(parents=True)
    (project / "_toc.yml").write_text("root: intro\n")
    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "shared" / "data" / "mnist").symlink_to(MNIST)
    monkeypatch.delenv("MFATTN_DATA", raising=False)
    monkeypatch.chdir(project)
    assert mdata.mnist_dir() == (MNIST.resolve(), "shared copy")
    assert len(mdata.load_mnist("test", limit=3)) == 3
    # A folder of the project itself wins once it holds the data.
    (project / "data" / "mnist").mkdir(parents=True)
    shutil.copy(MNIST / "train-labels-idx1-ubyte.gz", project / "data" / "mnist")
    assert mdata.mnist_dir() == ((project / "data" / "mnist").resolve(), "download folder")


@needs_mnist
def test_command_line_check(capsys):
    assert mdata.main(["check", str(MNIST)]) == 0
    out = capsys.readouterr().out
    assert "train: 60000 images" in out and "test: 10000 images" in out
    assert mdata.main(["unknown"]) == 2
