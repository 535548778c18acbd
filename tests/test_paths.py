"""Paths stay where they belong (issue 28, item 4): no name from an argument, a manifest or a ledger reads or
writes outside its folder; every such join goes through one helper, :func:`mfattn.companion.store.inside`."""

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfattn.companion import manifest, store

FOLDER = Path("/srv/mfattn/figures")


@pytest.mark.parametrize("name, why", [
    ("../../etc/x", "climbs out with '..'"),
    ("a/../../b", "climbs out with '..'"),
    ("a/..", "climbs out with '..'"),
    ("..\\..\\etc\\x", "climbs out with '..'"),
    ("/etc/passwd", "is an absolute path"),
    ("//server/share", "is an absolute path"),
    ("\\\\server\\share", "is an absolute path"),
    ("\\etc\\x", "is an absolute path"),
    ("C:\\Windows\\x", "is an absolute path"),
    ("c:x", "is an absolute path"),
    ("", "is empty"),
    ("   ", "is empty"),
    (".", "names the folder itself"),
    ("./", "names the folder itself"),
    ("x\0y", "NUL"),
])
def test_names_that_leave_the_folder_are_refused(name, why):
    with pytest.raises(ValueError) as err:
        store.inside(FOLDER, name, "file")
    assert why in str(err.value) and str(FOLDER) in str(err.value) and str(err.value).startswith("file ")


@pytest.mark.parametrize("name", ["seed-1/x", "a\\b", "sub/fig.png"])
def test_a_plain_name_has_no_separator(name):
    assert store.inside(FOLDER, name) == FOLDER / name  # a relative path is fine where one is expected
    with pytest.raises(ValueError, match="path separator"):
        store.inside(FOLDER, name, "chapter", nested=False)


@pytest.mark.parametrize("name", ["fig-x.png", "...", "a..b", ".hidden", "sub/fig.png", "sub/./fig.png"])
def test_names_inside_are_joined(name):
    assert store.inside(FOLDER, name) == FOLDER / name


@pytest.mark.parametrize("name", [None, 3, b"x", ["a"]])
def test_a_name_that_is_not_a_string_is_a_type_error(name):
    with pytest.raises(TypeError, match="name must be a string"):
        store.inside(FOLDER, name)


_NAMES = st.one_of(
    st.text(max_size=30),
    st.lists(st.sampled_from(["..", ".", "", "a", "b.png", "/", "\\", "C:", "~", "\0", "..."]), max_size=6).map("".join),
    st.lists(st.sampled_from(["..", ".", "a", "fig-x.png", "", "C:"]), max_size=5).map("/".join),
)


@given(name=_NAMES, nested=st.booleans())
@settings(max_examples=1000, deadline=None, derandomize=True, database=None)
def test_generated_names_either_stay_inside_or_are_refused(name, nested):
    try:
        path = store.inside(FOLDER, name, "name", nested=nested)
    except ValueError as err:
        assert str(err).startswith("name ") and str(FOLDER) in str(err)
        return
    normal = Path(os.path.normpath(path))
    assert normal != FOLDER and normal.is_relative_to(FOLDER), (name, normal)
    # and on Windows, where '\\' separates too: no '..' component, no drive, no root
    parts = name.replace("\\", "/").split("/")
    assert ".." not in parts and not name.startswith(("/", "\\")) and not re.match("^[A-Za-z]:", name)
    if not nested:
        assert len(parts) == 1


# --- names read from stored files: manifests, results ----------------------------------------------------------


def _stored(tmp_path, monkeypatch, kind, entries):
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    folder = tmp_path / "figures" / "full"
    folder.mkdir(parents=True)
    (folder / f"{kind}.json").write_text(json.dumps(entries))
    return folder


@pytest.mark.parametrize("file", ["../../etc/passwd", "/etc/passwd", "sub/fig-x.png", "..", ""])
def test_a_manifest_entry_naming_a_file_outside_is_refused(file, tmp_path, monkeypatch):
    _stored(tmp_path, monkeypatch, "manifest", {"fig-x": {"file": file, "sha256": "0" * 64}})
    with pytest.raises(ValueError, match=r"manifest.json: manifest entry 'fig-x': file .* inside"):
        manifest.read_manifest("full")
    with pytest.raises(ValueError, match="manifest entry 'fig-x'"):
        manifest.check("full")


@pytest.mark.parametrize("key", ["../../etc/passwd", "/etc/passwd", "data/../../x.json"])
def test_a_results_entry_naming_a_path_outside_is_refused(key, tmp_path, monkeypatch):
    _stored(tmp_path, monkeypatch, "results", {key: {"file": key, "sha256": "0" * 64}})
    with pytest.raises(ValueError, match="results entry"):
        manifest.read_results("full")


def test_a_result_kept_in_the_runs_folder_is_found_and_one_outside_is_refused(tmp_path, monkeypatch):
    folder = _stored(tmp_path, monkeypatch, "results", {})
    inside = folder / "summary.json"
    inside.write_text("{}")
    manifest.update("full", 0, "results", str(inside), {"sha256": store.sha256_file(inside)})
    assert {r["key"]: r["status"] for r in manifest.check("full")} == {str(inside): "unknown"}  # read, no digest
    with pytest.raises(ValueError, match="absolute path outside"):   # never written (outside5a a0602)...
        manifest.update("full", 0, "results", str(tmp_path / "elsewhere.json"), {"sha256": "0" * 64})
    stored = json.loads((folder / "results.json").read_text())
    stored[str(tmp_path / "elsewhere.json")] = {"sha256": "0" * 64}
    (folder / "results.json").write_text(json.dumps(stored))
    with pytest.raises(ValueError, match="absolute path outside"):   # ... and refused when planted
        manifest.check("full")


def test_chapter_run_results_outside_the_root_and_the_folder_are_refused(tmp_path, monkeypatch):
    from mfattn import ChapterRun

    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    run = ChapterRun("ising", profile="quick", device="cpu")
    elsewhere = store.atomic_write_json(tmp_path / "elsewhere.json", {"x": 1})
    with pytest.raises(ValueError, match="outside the project root .* and this run's folder"):
        run.result(elsewhere, "a summary")
    assert manifest.read_results("quick") == {}


def test_stored_figure_never_reads_outside(tmp_path, monkeypatch):
    from mfattn import ChapterRun

    _stored(tmp_path, monkeypatch, "manifest", {"fig-x": {"file": "../../../etc/hostname", "sha256": "0" * 64}})
    run = ChapterRun("ising", profile="quick", device="cpu")
    with pytest.raises(ValueError, match="climbs out"):
        run.stored_figure("fig-x")


# --- names given as arguments: cache parts, seeds, chapters ------------------------------------------------------


@pytest.mark.parametrize("part", ["..", "../x", "a/b", "/tmp", ""])
def test_cache_folder_parts_are_plain_names(part, tmp_path, monkeypatch):
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="cache_dir part"):
        store.cache_dir("deq", part)
    assert not (tmp_path / "x").exists() and not (tmp_path / "tmp").exists()


@pytest.mark.parametrize("seed", ["../x", "1/..", -1, 1.5, True])
def test_a_seed_is_a_non_negative_integer_not_a_path(seed):
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        manifest.figures_dir("quick", seed)


@pytest.mark.parametrize("name", ["../ising", "ising/../x", "/ising"])
def test_a_chapter_name_is_one_of_the_chapters(name):
    from mfattn import ChapterRun

    with pytest.raises(ValueError, match="chapter must be one of"):
        ChapterRun(name, profile="quick", device="cpu")


def test_a_sweep_writes_only_inside_its_out_dir(tmp_path):
    from mfattn.dynamics import sweep as sweep_module

    with pytest.raises(ValueError, match="sweep key"):
        sweep_module._chunk_folder(tmp_path, "../escaped")
    assert not (tmp_path.parent / "escaped").exists()
