"""Issue 44 (reliability): hostile calls refused up front, with one message naming what was wrong.

* readers (:mod:`mfattn.companion.store_read`): special files (FIFOs, devices, folders) refused without
  blocking, crafted ``.npz`` headers and zip bombs refused before anything is allocated, NaN in JSON and
  oversized JSON refused, every error naming the path;
* writers (:mod:`mfattn.companion.store_write`): nothing written into the filesystem root, a home folder itself
  or a system folder; an object that is not JSON leaves no file behind;
* work budgets (:func:`mfattn.companion.checks.check_work`, :func:`mfattn.companion.profiles.check_run_work`):
  profile overrides, ``ChapterRun`` arguments and the command line's ``--set`` refused before the first cell.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import signal
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mfattn.companion import caches, checks, profiles, store
from mfattn.companion.store_read import RefusedFileError


@contextlib.contextmanager
def deadline(seconds: int = 10):
    """Fail (instead of hanging the session) when the body blocks longer than ``seconds``."""
    if not hasattr(signal, "SIGALRM"):
        pytest.skip("needs SIGALRM (POSIX)")

    def _timeout(signum, frame):
        raise TimeoutError(f"blocked for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# --- readers: special files --------------------------------------------------------------------------------------
READERS = [("read_json", store.read_json), ("read_entries", store.read_entries), ("load_npz", store.load_npz),
           ("sha256_file", store.sha256_file), ("read_text_file", store.read_text_file)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")
@pytest.mark.parametrize("name, read", READERS, ids=[n for n, _ in READERS])
def test_a_fifo_is_refused_without_blocking(name, read, tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with deadline(10), pytest.raises(RefusedFileError, match=f"^{re.escape(str(fifo))}: expected a regular .*FIFO"):
        read(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize("name, read", READERS, ids=[n for n, _ in READERS])
def test_a_device_is_refused_without_reading_it(name, read):
    with deadline(10), pytest.raises(RefusedFileError, match="^/dev/zero: expected a regular .*character device"):
        read("/dev/zero")


def test_a_folder_is_refused_naming_it(tmp_path):
    for read in (store.read_json, store.load_npz, store.read_entries):
        with pytest.raises(RefusedFileError, match=f"^{re.escape(str(tmp_path))}: expected a regular .*a folder"):
            read(tmp_path)


def test_a_missing_file_is_still_the_default_or_not_found(tmp_path):
    assert store.read_json(tmp_path / "none.json", default=7) == 7
    assert store.read_entries(tmp_path / "none.json") == {}
    with pytest.raises(FileNotFoundError):
        store.load_npz(tmp_path / "none.npz")


# --- readers: .npz headers and inflated sizes -----------------------------------------------------------------
def _npz_with_header(path: Path, shape: tuple, data: bytes = b"\0" * 64, descr: str = "<f8") -> Path:
    """A zip holding ``a.npy`` whose header claims ``shape`` but whose data is ``data``."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": descr, "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.npy", head.getvalue() + data)
    return path


def test_a_header_claiming_a_huge_array_is_refused_before_allocating(tmp_path):
    path = _npz_with_header(tmp_path / "huge.npz", (10**12,))
    assert path.stat().st_size < 1000
    with deadline(10), pytest.raises(RefusedFileError, match=rf"^{re.escape(str(path))}: .*claims shape \(1000000000000,\)"):
        store.load_npz(path)


def test_a_header_claiming_more_than_its_bytes_is_refused(tmp_path):
    path = _npz_with_header(tmp_path / "liar.npz", (1000,), data=b"\0" * 80)  # 8000 bytes claimed, 80 given
    with pytest.raises(RefusedFileError, match=f"^{re.escape(str(path))}: .*claims"):
        store.load_npz(path)


def test_an_object_array_member_is_refused(tmp_path):
    path = _npz_with_header(tmp_path / "pickle.npz", (1,), descr="|O")
    with pytest.raises(ValueError, match=re.escape(str(path))):
        store.load_npz(path)


def test_a_zip_bomb_is_refused_by_its_inflated_size(tmp_path, monkeypatch):
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.npy", b"\0" * (8 << 20))  # 8 MiB of zeros: a few KiB on disk
    assert path.stat().st_size < 100_000
    monkeypatch.setenv("MFATTN_MAX_BYTES", "1e6")
    with deadline(10), pytest.raises(RefusedFileError, match=rf"^{re.escape(str(path))}: .*inflate to 8,388,608 bytes"):
        store.load_npz(path)


def test_an_honest_npz_still_loads_and_a_refused_cache_entry_is_recomputed(tmp_path):
    arrays = {"a": np.arange(12.0).reshape(3, 4), "s": np.array("text"), "i": np.arange(3, dtype=np.int32)}
    store.atomic_save_npz(tmp_path / "ok.npz", **arrays)
    back = store.load_npz(tmp_path / "ok.npz")
    assert all(np.array_equal(back[k], v) for k, v in arrays.items())
    (tmp_path / "cache").mkdir()
    entry = _npz_with_header(tmp_path / "cache" / "run.npz", (10**12,))
    with pytest.warns(caches.CacheWarning, match="truncated or damaged"):
        assert caches.load_cached_npz(entry) is None


# --- readers: JSON -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ['{"a": NaN}', '[Infinity]', '{"b": [1, -Infinity]}'])
def test_json_with_nan_is_refused_naming_the_path(text, tmp_path):
    path = tmp_path / "nan.json"
    path.write_text(text)
    with pytest.raises(RefusedFileError, match=rf"^{re.escape(str(path))}: expected standard JSON.*(NaN|Infinity)"):
        store.read_json(path)
    with pytest.raises(ValueError, match=re.escape(str(path))):
        store.read_entries(path)


def test_oversized_json_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"x": "y" * 500}))
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", "100")
    with pytest.raises(RefusedFileError, match=rf"^{re.escape(str(path))}: expected a JSON file of at most 100 bytes.*5\d\d bytes"):
        store.read_json(path)
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", "1e6")
    assert store.read_json(path) == {"x": "y" * 500}
    for bad in ("lots", "nan", "-1", "0"):
        monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", bad)
        with pytest.raises(ValueError, match="MFATTN_MAX_JSON_BYTES"):
            store.read_json(path)


def test_json_whose_parse_exceeds_the_memory_budget_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "mid.json"
    path.write_text(json.dumps(list(range(20_000))))
    monkeypatch.setenv("MFATTN_MAX_BYTES", "1e4")
    with pytest.raises(RefusedFileError, match=f"^{re.escape(str(path))}: expected a JSON file whose parse fits in memory"):
        store.read_json(path)


def test_a_cached_json_with_nan_is_recomputed(tmp_path):
    path = tmp_path / "summary.json"
    path.write_text('{"acc": NaN, "__cache__": {}}')
    with pytest.warns(caches.CacheWarning, match="is not read .*standard JSON"):
        assert caches.load_cached_json(path) is None


# --- writers ---------------------------------------------------------------------------------------------------------
def _refused_targets() -> list[str]:
    targets = ["/x.json", "/etc/x.json", "/usr/mfattn.json", "/proc/self/x.json", "/sys/x.json",
               "/dev/shm/mfattn-x.json", "/var/x.json"]
    return targets + [str(Path.home() / "mfattn-reliability-test.json")]


@pytest.mark.parametrize("target", _refused_targets())
def test_writers_refuse_the_root_a_home_folder_and_system_folders(target):
    path = Path(target)
    existed = path.exists()
    writers = [lambda: store.atomic_write_json(path, {"a": 1}), lambda: store.atomic_write_bytes(path, b"x"),
               lambda: store.atomic_write_text(path, "x"), lambda: store.atomic_save_npz(path, a=np.zeros(2)),
               lambda: store.check_file_target(path, "--out")]
    for write in writers:
        with pytest.raises(PermissionError, match=f"{re.escape(str(path.parent))}.*(filesystem root|home folder|system folder)"):
            write()
    assert path.exists() == existed


@pytest.mark.parametrize("folder", ["/", "/etc", "/usr", "/proc/mfattn", "/lib64", "/new-mfattn-folder", "~"])
def test_folders_are_not_made_or_used_where_mfattn_does_not_write(folder):
    with pytest.raises(PermissionError, match="out_dir: cannot create the folder .*mfattn does not write there"):
        store.make_folder(Path(folder).expanduser() if folder == "~" else folder, "out_dir")
    assert not Path("/new-mfattn-folder").exists()


def test_folders_inside_a_home_and_elsewhere_are_fine(tmp_path):
    assert store.check_target_folder(tmp_path / "a" / "b", "out") == tmp_path / "a" / "b"
    assert store.check_target_folder(Path.home() / "mfattn-not-made-here", "out")  # a new folder in a home is fine
    assert store.atomic_write_json(tmp_path / "x" / "y.json", {"a": [1, 2]}).is_file()


def test_a_sweep_into_the_filesystem_root_is_refused():
    from mfattn.dynamics.sweep import sweep

    with deadline(60), pytest.raises(PermissionError, match="out_dir: cannot create the folder /"):
        sweep(np.array([1.2]), steps=2000, transient=1000, chunk_size=1, out_dir="/", progress=False)


class _Thing:
    pass


@pytest.mark.parametrize("obj, where", [({"a": _Thing()}, r"\['a'\]"), ({"f": [len]}, r"\['f'\]\[0\]"),
                                        ({"s": {1, 2}}, r"\['s'\]"), ({"c": 1 + 2j}, r"\['c'\]"),
                                        ({"b": b"bytes"}, r"\['b'\]"), (object(), "value itself"),
                                        ({"o": np.array([None, 1], dtype=object)}, r"\['o'\]")])
def test_the_json_writer_refuses_what_is_not_json_and_leaves_nothing(obj, where, tmp_path):
    path = tmp_path / "out.json"
    with pytest.raises(TypeError, match=rf"^{re.escape(str(path))}: .*{where}"):
        store.atomic_write_json(path, obj)
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one
    path.write_text('{"kept": true}\n')
    with pytest.raises((TypeError, ValueError)):
        store.atomic_write_json(path, {"x": float("nan"), "y": _Thing()})
    assert json.loads(path.read_text()) == {"kept": True} and sorted(tmp_path.iterdir()) == [path]


def test_the_json_writer_still_writes_numpy_values(tmp_path):
    path = store.atomic_write_json(tmp_path / "ok.json", {"b": np.bool_(True), "i": np.int64(3),
                                                         "f": np.float32(0.5), "a": np.arange(2), "p": tmp_path})
    data = json.loads(path.read_text())
    assert data["b"] is True and data["i"] == 3 and data["f"] == 0.5 and data["a"]["__ndarray__"] == [0, 1]


def test_other_writers_refuse_wrong_kinds(tmp_path):
    with pytest.raises(TypeError, match="data must be bytes"):
        store.atomic_write_bytes(tmp_path / "x.bin", "text")
    with pytest.raises(TypeError, match="text must be a string"):
        store.atomic_write_text(tmp_path / "x.txt", b"bytes")
    with pytest.raises(TypeError, match="'o' holds Python objects"):
        store.atomic_save_npz(tmp_path / "x.npz", o=np.array([{}, 1], dtype=object))
    assert list(tmp_path.iterdir()) == []


# --- work budgets -------------------------------------------------------------------------------------------------
def test_check_work_refuses_naming_the_parameter(monkeypatch):
    monkeypatch.delenv("MFATTN_MAX_WORK", raising=False)
    assert checks.check_work("steps", 10**6) == 1e6
    with pytest.raises(ValueError, match=r"^iters=10\*\*15 makes the call do 1e\+15 work units.*MFATTN_MAX_WORK"):
        checks.check_work("iters=10**15", 10**15)
    assert checks.check_work("n", 10**400, budget=math.inf) == math.inf  # no OverflowError, however large
    with pytest.raises(ValueError, match="budget"):
        checks.check_work("n", 10**400)
    monkeypatch.setenv("MFATTN_MAX_WORK", "1e16")
    assert checks.check_work("iters", 10**15) == 1e15
    for bad in ("many", "nan", "-5", "inf"):
        monkeypatch.setenv("MFATTN_MAX_WORK", bad)
        with pytest.raises(ValueError, match="MFATTN_MAX_WORK"):
            checks.check_work("iters", 1)
    monkeypatch.delenv("MFATTN_MAX_WORK")
    for bad in (-1, float("nan"), "10", None, True):
        with pytest.raises((TypeError, ValueError)):
            checks.check_work("iters", bad)


@pytest.mark.parametrize("chapter, overrides, key", [
    ("dmft", {"steps": 10**15}, "steps"), ("ising", {"n": 99999999999}, "n"), ("ising", {"n": 22}, "n"),
    ("dmft", {"fig3a": [0.0, 3.0, 10**9]}, "fig3a"), ("dmft", {"error_ns": [10**12]}, "error_ns"),
    ("transformer", {"tap_sizes": [[10**5, 10**5]]}, "tap_sizes"), ("designs", {"seeds": list(range(1000))}, "seeds"),
    ("structural", {"enum_n": 9}, "enum_n"), ("dmft", {"steps": 700_000, "fig3a": [0.0, 3.0, 40_000]}, "fig3a"),
])
def test_profile_overrides_beyond_the_work_budget_are_refused(chapter, overrides, key, monkeypatch):
    monkeypatch.delenv("MFATTN_WORK_FACTOR", raising=False)
    with deadline(10), pytest.raises(ValueError, match=rf"^size '{key}' = .* of chapter '{chapter}' makes the run do "
                                                       r".* times the full profile's work.*MFATTN_WORK_FACTOR"):
        profiles.get_profile(chapter, "quick", **overrides)


def test_the_work_factor_raises_the_budget(monkeypatch):
    monkeypatch.setenv("MFATTN_WORK_FACTOR", "1000")
    assert profiles.get_profile("dmft", "quick", steps=12_000_000)["steps"] == 12_000_000
    monkeypatch.setenv("MFATTN_WORK_FACTOR", "zero")
    with pytest.raises(ValueError, match="MFATTN_WORK_FACTOR"):
        profiles.get_profile("dmft", "quick", steps=10)


def test_the_profiles_themselves_and_modest_overrides_pass(monkeypatch):
    monkeypatch.delenv("MFATTN_WORK_FACTOR", raising=False)
    for chapter in profiles.PROFILES:
        for profile in profiles.PROFILE_NAMES:
            assert profiles.run_work(chapter, profiles.PROFILES[chapter][profile]) == (1.0, None)
            assert profiles.check_run_work(chapter, profile, {}) == 1.0
    assert profiles.get_profile("dmft", "quick", steps=1_200_000)["steps"] == 1_200_000  # the full's × 10
    assert profiles.get_profile("ising", "full", n=21)["n"] == 21  # 2^3 = 8 times the full's states
    assert profiles.get_profile("deq", "full", train_limit=10**9)["train_limit"] == 10**9  # bounded by the data


@pytest.mark.parametrize("key, value", [("steps", -5), ("steps", 0), ("steps", "abc"), ("steps", 1.5),
                                        ("steps", True), ("steps", float("nan")), ("steps", None),
                                        ("fig3a", [0.0, float("nan"), 10]), ("fig3a", [0.0, 3.0]),
                                        ("fig3a", [0.0, 3.0, -1]), ("gammas", "[1,2,3]"),
                                        ("fig4_betas", []), ("fig4_betas", [1.0, float("inf")]),
                                        ("network_ns", [[1]]), ("protocol", "forever")])
def test_profile_overrides_of_the_wrong_kind_are_refused(key, value):
    with pytest.raises(ValueError, match=f"size '{key}' of chapter 'dmft' must be"):
        profiles.get_profile("dmft", "quick", **{key: value})


def test_chapter_run_arguments_are_checked_before_anything_runs(tmp_path, monkeypatch):
    from mfattn.companion.chapter import ChapterRun

    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path / "out"))
    monkeypatch.setenv("MFATTN_FIGURES", str(tmp_path / "figures"))
    for kwargs, match in [({"steps": 10**15}, "size 'steps'"), ({"seed": 2**70}, "seed must be"),
                          ({"seed": -1}, "seed must be"), ({"threads": 0}, "threads must be"),
                          ({"threads": 10**9}, "threads must be"), ({"threads": "4"}, "threads must be"),
                          ({"steps": float("nan")}, "size 'steps'")]:
        with pytest.raises(ValueError, match=match):
            ChapterRun("dmft", "quick", device="cpu", **kwargs)
    assert not (tmp_path / "figures").exists() or not any((tmp_path / "figures").rglob("runs.json"))


@pytest.mark.parametrize("args, names", [
    (["--set", "n=99999999999", "--chapter", "ising"], "--set n: size 'n' = 99999999999 of chapter 'ising'"),
    (["--set", "steps=1000000000000000", "--chapter", "dmft"], "size 'steps'"),
    (["--set", "steps=-3", "--chapter", "dmft"], "size 'steps' of chapter 'dmft' must be an integer >= 1"),
    (["--set", "steps=NaN", "--chapter", "dmft"], "got 'NaN'"),
    (["--set", "steps=1e400", "--chapter", "dmft"], "got inf"),
    (["--set", "fig3a=[0,3,1e9]", "--chapter", "dmft"], "size 'fig3a'"),
    (["--set", "steps=700000", "--set", "fig3a=[0.0,3.0,40000]", "--chapter", "dmft"], "--set: size 'fig3a'"),
    (["--seed", "99999999999999999999999", "--chapter", "dmft"], "seed must be"),
])
def test_the_command_line_refuses_hostile_sets_before_the_first_cell(args, names, capsys, monkeypatch, tmp_path):
    from mfattn.__main__ import main

    monkeypatch.setenv("MFATTN_OUTPUT", str(tmp_path / "out"))
    monkeypatch.delenv("MFATTN_WORK_FACTOR", raising=False)
    with deadline(30):
        code = main(["reproduce", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and names in err[0], err
    assert not (tmp_path / "out" / "reproduce").exists()  # refused before any folder or cell


# --- Hypothesis: hostile values for the override checker ---------------------------------------------------------
_KEYS = sorted((chapter, key) for chapter in profiles.PROFILES for key in profiles.PROFILES[chapter]["quick"])
_HOSTILE = st.one_of(
    st.integers(min_value=10**12, max_value=10**40), st.integers(max_value=-1), st.integers(0, 10**6),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(), st.text(max_size=12),
    st.lists(st.one_of(st.integers(-10**15, 10**15), st.floats(allow_nan=True)), max_size=5),
    st.lists(st.lists(st.integers(-10**9, 10**9), max_size=3), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.just([0.0, 3.0, 10**15]),
    st.just([float("nan"), 1.0, 3]), st.just(list(range(10**5))))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(_KEYS), value=_HOSTILE)
def test_the_override_checker_refuses_hostile_values_in_one_message(key, value):
    chapter, name = key
    os.environ.pop("MFATTN_WORK_FACTOR", None)
    try:
        accepted = profiles.check_override(chapter, name, value)
    except ValueError as err:
        assert repr(name) in str(err) and len(str(err)) < 600 and "\n" not in str(err)
        return
    # accepted: a value of the key's kind, whose work stays within the budget
    assert accepted is value or accepted == value
    work, _ = profiles.run_work(chapter, {name: accepted})
    assert work <= profiles.work_factor()
    assert not (isinstance(value, float) and not math.isfinite(value))
    assert not (isinstance(value, bool))
    declared = [profiles.PROFILES[chapter][p][name] for p in profiles.PROFILE_NAMES]
    if isinstance(value, int) and all(isinstance(v, int) or v is None for v in declared):  # an integer size
        assert value >= 0 and (value < 10**12 or name.endswith(profiles._NOT_WORK)
                               or any(profiles.PROFILES[chapter][p][name] is None for p in profiles.PROFILE_NAMES))


@settings(max_examples=100, deadline=None)
@given(chapter=st.sampled_from(sorted(profiles.PROFILES)), factor=st.integers(11, 10**9))
def test_any_single_size_scaled_past_the_budget_is_refused(chapter, factor):
    os.environ.pop("MFATTN_WORK_FACTOR", None)
    for name, full in profiles.PROFILES[chapter]["full"].items():
        quick = profiles.PROFILES[chapter]["quick"][name]
        if (not isinstance(full, int) or isinstance(full, bool) or not isinstance(quick, int)
                or name.endswith(profiles._NOT_WORK)):
            continue
        with pytest.raises(ValueError, match=repr(name)):
            profiles.get_profile(chapter, "quick", **{name: max(full, quick, 1) * factor})


def test_a_local_mirror_that_is_a_device_is_refused(tmp_path):
    from mfattn.companion import datasets

    with deadline(10), pytest.raises(RefusedFileError, match="^/dev/zero: expected a regular mirrored file"):
        datasets._copy_local("file:///dev/zero", str(tmp_path / "copy"), None)
    assert not (tmp_path / "copy").exists()


def test_text_files_are_read_within_their_budget(tmp_path):
    path = tmp_path / "paper.txt"
    path.write_text("x" * 300)
    assert store.read_text_file(path) == "x" * 300
    with pytest.raises(RefusedFileError, match=rf"^{re.escape(str(path))}: expected a text file of at most 100 bytes"):
        store.read_text_file(path, limit=100)


def test_every_budget_variable_is_read_by_one_parser(monkeypatch):
    """MFATTN_MAX_BYTES, _MAX_WORK, _MAX_JSON_BYTES and _WORK_FACTOR all go through checks.env_positive: unset gives
    the default, a positive number is used, anything else is refused naming the variable."""
    from mfattn.companion import checks, profiles, store_read
    for name, read in (("MFATTN_MAX_WORK", checks.max_work), ("MFATTN_MAX_JSON_BYTES", store_read.max_json_bytes),
                       ("MFATTN_WORK_FACTOR", profiles.work_factor), ("MFATTN_MAX_BYTES", checks.max_bytes)):
        monkeypatch.setenv(name, "1e3")
        assert read() == 1000
        for bad in ("0", "-1", "nan", "inf", "lots"):
            monkeypatch.setenv(name, bad)
            with pytest.raises(ValueError, match=name):
                read()
        monkeypatch.delenv(name)
