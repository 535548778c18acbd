"""Verified downloads: the real download path, served from a local HTTP server on 127.0.0.1."""

import hashlib
import os
from dataclasses import replace

import pytest

from mfattn.companion import datasets, store


@pytest.fixture
def clone(tmp_path, monkeypatch):
    """A checkout with nothing beside it: downloads go to <clone>/data/<name>."""
    root = tmp_path / "clone"
    root.mkdir()
    monkeypatch.setattr(store, "project_root", lambda start=None: root)
    for ds in datasets.DATASETS.values():
        monkeypatch.delenv(ds.env, raising=False)
        monkeypatch.delenv(datasets.mirror_env(ds.name), raising=False)
    monkeypatch.delenv(datasets.MIRROR_ENV, raising=False)
    monkeypatch.delenv("MFATTN_OFFLINE", raising=False)
    return root


@pytest.mark.parametrize("name", ["asi-reference", "dmft-reference", "mnist"])
def test_download_into_an_empty_folder_is_verified(served_data, clone, name):
    served_data.point(name)
    for file, sha in datasets.DATASETS[name].files.items():
        with pytest.raises(datasets.MissingDataError, match=f"{file}' is missing. Looked in: .*download folder"):
            datasets.fetch(name, file, download=False)
        path = datasets.fetch(name, file)
        assert path == clone / "data" / name / file and store.sha256_file(path) == sha
        assert datasets.locate(name, file) == path  # found locally the second time


@pytest.mark.parametrize("same_size", [True, False])
def test_a_corrupted_download_is_a_clear_error_and_leaves_nothing(served_data, clone, same_size):
    # a tampered file of the published size reaches the hash check; one of another size is stopped by its length
    served = served_data.folder / "asi-reference" / "multiple_training.json"
    size = served.stat().st_size
    served.write_text('{"tampered": true}'.ljust(size) if same_size else '{"tampered": true}')
    served_data.point("asi-reference")
    match = (r"SHA256 hash of downloaded file .* does not match" if same_size else
             rf"announces 18 bytes, not the published {size:,}")
    with pytest.raises(datasets.MissingDataError, match=match):
        datasets.fetch("asi-reference", "multiple_training.json")
    folder = clone / "data" / "asi-reference"
    assert not folder.exists() or not any(folder.iterdir())  # no partial or corrupt file kept


def test_offline_without_a_copy_says_which_file_where_and_how(clone, monkeypatch):
    monkeypatch.setenv("MFATTN_OFFLINE", "1")
    with pytest.raises(datasets.MissingDataError) as err:
        datasets.fetch("dmft-reference", "context_beta3.0.npz")
    text = str(err.value)
    assert "context_beta3.0.npz" in text and str(clone / "data" / "dmft-reference") in text
    assert "python -m mfattn data fetch dmft-reference" in text and "MFATTN_DMFT_REFERENCE" in text


def test_a_local_copy_with_the_wrong_checksum_is_refused(clone, monkeypatch, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "expanding_50.json").write_text("{}")
    monkeypatch.setenv("MFATTN_ASI_REFERENCE", str(folder))
    with pytest.raises(datasets.MissingDataError, match="not the published"):
        datasets.fetch("asi-reference", "expanding_50.json", download=False)
    with pytest.raises(ValueError, match="name must be one of 'mnist', 'asi-reference', 'dmft-reference'"):
        datasets.fetch("cifar", "x")


def test_a_named_folder_is_searched_and_filled_alone(served_data, clone, tmp_path):
    served_data.point("mnist")
    mine = tmp_path / "my-mnist"
    file = "t10k-labels-idx1-ubyte.gz"
    with pytest.raises(datasets.MissingDataError, match=file):
        datasets.fetch("mnist", file, folder=mine, download=False)
    path = datasets.fetch("mnist", file, folder=mine)
    assert path == mine.resolve() / file and store.sha256_file(path) == datasets.DATASETS["mnist"].files[file]
    assert not (clone / "data" / "mnist").exists()  # nothing went to the default download folder


def test_a_chapter_without_its_data_says_so_and_goes_on(clone, monkeypatch):
    """Offline with no copy, ChapterRun.has_data shows which file is missing and where it looked, and
    returns False so the chapter renders the rest."""
    from mfattn import ChapterRun

    shown = []
    monkeypatch.setenv("MFATTN_OFFLINE", "1")
    monkeypatch.setenv("MFATTN_FIGURES", str(clone / "figures"))
    monkeypatch.setattr("mfattn.companion.chapter._glue", lambda *a, **k: None)
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj.data))
    run = ChapterRun("designs", device="cpu")
    assert run.has_data("asi-reference") is False
    assert len(shown) == 1 and "asi-reference" in shown[0] and str(clone / "data" / "asi-reference") in shown[0]
    assert "python -m mfattn data fetch asi-reference" in shown[0]
    with pytest.raises(ValueError, match="name must be one of"):
        run.has_data("cifar")


@pytest.fixture
def toy_set(clone, tmp_path, monkeypatch):
    """Data set ``asi-reference`` made of one small file whose pinned source is a ``file://`` URL that does
    not exist (so only a mirror can serve it; no network is touched); returns the mirror's folder."""
    data = b'{"toy": [1, 2, 3]}'
    sha = hashlib.sha256(data).hexdigest()
    ds = datasets.DATASETS["asi-reference"]
    nowhere = (tmp_path / "nowhere" / "toy.json").as_uri()
    monkeypatch.setitem(datasets.DATASETS, "asi-reference",
                        replace(ds, files={"toy.json": sha}, urls={"toy.json": (nowhere,)}))
    mirror = tmp_path / "mirror"
    (mirror / "asi-reference").mkdir(parents=True)
    (mirror / "asi-reference" / "toy.json").write_bytes(data)
    (mirror / "toy.json").write_bytes(data)
    return mirror


def test_without_a_mirror_the_pinned_source_is_all_there_is(toy_set, clone):
    with pytest.raises(datasets.MissingDataError, match="nowhere/toy.json: FileNotFoundError"):
        datasets.fetch("asi-reference", "toy.json")


@pytest.mark.parametrize("var, base", [("MFATTN_MIRROR_ASI_REFERENCE", ""), ("MFATTN_MIRROR", "asi-reference/")])
def test_a_mirror_named_by_the_environment_is_used_and_verified(toy_set, clone, monkeypatch, var, base):
    monkeypatch.setenv(var, toy_set.as_uri() + "/")
    assert datasets.mirror_urls("asi-reference", "toy.json") == (f"{toy_set.as_uri()}/{base}toy.json",)
    path = datasets.fetch("asi-reference", "toy.json")
    assert path == clone / "data" / "asi-reference" / "toy.json"
    assert store.sha256_file(path) == datasets.DATASETS["asi-reference"].files["toy.json"]


def test_a_mirror_serving_other_bytes_is_refused_and_leaves_nothing(toy_set, clone, monkeypatch):
    (toy_set / "toy.json").write_text('{"tampered": true}')
    monkeypatch.setenv("MFATTN_MIRROR_ASI_REFERENCE", toy_set.as_uri())
    with pytest.raises(datasets.MissingDataError, match=r"mirror/toy.json: SHA256 hash of downloaded file"):
        datasets.fetch("asi-reference", "toy.json")
    folder = clone / "data" / "asi-reference"
    assert not folder.exists() or not any(folder.iterdir())


@pytest.mark.parametrize("var", ["MFATTN_MIRROR_MNIST", "MFATTN_MIRROR"])
@pytest.mark.parametrize("value", ["mirror.example.org/mnist", "gopher://example.org/", "https://", "file://"])
def test_a_bad_mirror_value_is_refused_with_the_variables_name(clone, monkeypatch, var, value):
    monkeypatch.setenv(var, value)
    with pytest.raises(ValueError, match=rf"\${var} must be a base URL .*; got '{value}'"):
        datasets.fetch("mnist", "t10k-labels-idx1-ubyte.gz", folder=clone / "empty")
    assert datasets.main(["fetch", "mnist"]) == 1


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_a_download_follows_the_umask(toy_set, clone, monkeypatch, mask):
    monkeypatch.setenv("MFATTN_MIRROR_ASI_REFERENCE", toy_set.as_uri())
    old = os.umask(mask)
    try:
        path = datasets.fetch("asi-reference", "toy.json")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def test_check_says_how_to_get_a_missing_file(clone, monkeypatch, capsys):
    monkeypatch.setenv("MFATTN_OFFLINE", "1")
    assert datasets.main(["check", "dmft-reference"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert "missing (to get it: run `python -m mfattn data fetch dmft-reference`" in line
        assert "$MFATTN_DMFT_REFERENCE" in line and "$MFATTN_MIRROR_DMFT_REFERENCE" in line


@pytest.fixture
def real_expanding_50():
    """The real asi-reference/expanding_50.json, found before ``clone`` hides everything (from ../shared/data here)."""
    from conftest import data_file

    return data_file("asi-reference", "expanding_50.json")


def test_tests_find_a_verified_download_without_shared_and_skip_naming_the_fetch(real_expanding_50, clone):
    """The tests' helper (conftest.data_file) asks the loader: with no ``../shared`` beside the checkout, a
    verified copy in ``data/<name>/`` is found; without one the test skips, naming the data set and the command
    that fetches it; a copy with the wrong SHA-256 is an error, never a skip."""
    from conftest import data_dir, data_file, needs_data

    name, file = "asi-reference", "expanding_50.json"
    assert all(how != "shared copy" or not folder.exists() for how, folder in datasets.folders(name))
    with pytest.raises(pytest.skip.Exception, match=rf"{name}.*python -m mfattn data fetch {name}"):
        data_file(name, file)
    mark = needs_data(name, file)
    assert mark.args == (True,) and f"python -m mfattn data fetch {name}" in mark.kwargs["reason"]
    download = clone / "data" / name
    download.mkdir(parents=True)
    (download / file).write_bytes(real_expanding_50.read_bytes())
    assert data_file(name, file) == download / file
    assert needs_data(name, file).args == (False,)
    with pytest.raises(pytest.skip.Exception, match="all files of asi-reference"):
        data_dir(name)  # one of its two files is there, not all
    (download / file).write_text("{}")
    with pytest.raises(datasets.MissingDataError, match="not the published"):
        data_file(name, file)
