"""The fresh outside table's findings in the companion (issue 44, 2026-11-29): each call below was accepted silently,
blocked, or failed from deep inside before; now it is refused at the boundary with a message naming the path or the
parameter. (The table: /work/notes/outside2 of that session; 1,506 calls.)"""

from __future__ import annotations

import os

import numpy as np
import pytest

from mfattn.companion import stats, store_read, store_write
from mfattn.companion.reproduce import notebook_parameters
from mfattn.implicit.mnist import read_idx


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("target", ["/usr/lib/mfattn_probe_x", "/etc/ssh/mfattn_probe_x", "/bin/mfattn_probe_x"])
def test_writers_refuse_folders_below_the_system_folders(target):
    """Inside the system's programs, libraries and configuration nothing is written (as root it would succeed)."""
    with pytest.raises(PermissionError, match="system folder"):
        store_write.atomic_write_text(target, "x")
    with pytest.raises(PermissionError, match="system folder"):
        store_write.check_target_folder(os.path.dirname(target))
    assert not os.path.exists(target)


def test_a_writer_does_not_replace_a_fifo(fifo):
    with pytest.raises(PermissionError, match="not a regular file|other than a regular file"):
        store_write.atomic_write_text(fifo, "x")
    assert fifo.exists() and not fifo.is_file()   # still the FIFO


@pytest.mark.parametrize("folder", ["/", "/etc", "/usr/lib"])
def test_the_temporary_file_sweep_stays_out_of_system_folders(folder):
    """clean_stale_temporaries deletes files: it walked / and accepted /etc before."""
    with pytest.raises(PermissionError, match="folder: "):
        store_write.clean_stale_temporaries(folder, older_than=1e12)


def test_the_sweep_still_cleans_a_folder_of_its_own(tmp_path):
    legacy = tmp_path / ".result.json.abc123.tmp"
    legacy.write_text("x")
    os.utime(legacy, (1, 1))
    assert store_write.clean_stale_temporaries(tmp_path, older_than=1e9) == [legacy] and not legacy.exists()


@pytest.mark.parametrize("path", ["/proc/self/status", "/proc/self/mem"])
def test_the_kernels_views_are_not_regular_files(path):
    with pytest.raises(store_read.RefusedFileError, match="inside /proc"):
        store_read.check_regular_file(path)
    with pytest.raises(store_read.RefusedFileError, match=path):
        store_read.read_json(path)


def test_read_idx_refuses_a_fifo_before_opening_it(fifo):
    """Opening a FIFO blocks forever; the check is on os.stat, which does not."""
    with pytest.raises(store_read.RefusedFileError, match="pipe"):
        read_idx(fifo)


def test_notebook_parameters_names_a_file_that_is_not_a_notebook(tmp_path, fifo):
    for text in ("\xff\xfe not text", "{not json", "[" * 100_000, '{"cells": 3}'):
        bad = tmp_path / "bad.ipynb"
        bad.write_bytes(text.encode("latin-1"))
        with pytest.raises(ValueError, match="bad.ipynb"):
            notebook_parameters(bad)
    with pytest.raises(store_read.RefusedFileError, match="pipe"):
        notebook_parameters(fifo)


@pytest.mark.parametrize("name", ["../x", "a/../b", "/abs", "a//b", "a\\b", "a\0b"])
def test_an_npz_member_name_is_a_relative_name(tmp_path, name):
    with pytest.raises(ValueError, match="array name"):
        store_write.atomic_save_npz(tmp_path / "a.npz", **{name: np.zeros(2)})
    assert not (tmp_path / "a.npz").exists()
    store_write.atomic_save_npz(tmp_path / "b.npz", **{"loss/one_layer": np.zeros(2), ".x": np.ones(1)})
    assert set(store_read.load_npz(tmp_path / "b.npz")) == {"loss/one_layer", ".x"}


def test_t_interval_refuses_values_whose_spread_overflows():
    with pytest.raises(ValueError, match="values must be small enough"):
        stats.t_interval([1e300, 0.2, 0.3])
    assert stats.t_interval([1.0, 2.0, 3.0])["mean"] == 2.0


def test_a_path_with_a_nul_character_is_refused_by_name(tmp_path):
    from mfattn.companion.checks import check_path

    with pytest.raises(ValueError, match="folder must be a path without NUL"):
        store_write.make_folder(str(tmp_path / "a\0b"))
    with pytest.raises(ValueError, match="root must be a path"):
        check_path("root", "a\0b")


def test_load_mnist_names_a_root_that_is_not_a_path():
    from mfattn.implicit.mnist import load_mnist

    with pytest.raises(TypeError, match="root must be a path"):
        load_mnist("test", root=3)


def test_mcnemar_refuses_strings_and_counts_that_are_not_bits():
    from mfattn.implicit.variants import mcnemar

    with pytest.raises(TypeError, match="correct_a must hold booleans"):
        mcnemar(np.array(["True", "False"]), np.array([True, False]))
    with pytest.raises(TypeError, match="correct_b must hold booleans"):
        mcnemar(np.array([1, 0]), np.array([2, 0]))
    assert mcnemar(np.array([1, 1, 0]), np.array([0, 1, 0]))["b"] == 1.0


def test_restore_refuses_a_folder_that_is_not_one_and_a_damaged_index(tmp_path, fifo):
    from mfattn.implicit import trained

    with pytest.raises(NotADirectoryError, match="folder: "):
        trained.restore(fifo)
    (tmp_path / "index.json").write_text('{"runs": {"blog-seed0": {"file": "x.npz"}}}')
    with pytest.raises(ValueError, match="index.json: not an index of stored runs"):
        trained.restore(tmp_path)
    (tmp_path / "index.json").write_text('{"runs": {}}')
    assert trained.restore(tmp_path) == {}


def test_an_npz_of_too_many_arrays_is_refused_before_numpy_reads_its_headers(tmp_path):
    import zipfile

    path = tmp_path / "many.npz"
    with zipfile.ZipFile(path, "w") as archive:
        for i in range(store_read.MAX_NPZ_MEMBERS + 1):
            archive.writestr(f"a{i}.npy", b"")
    with pytest.raises(store_read.RefusedFileError, match="at most 4,096 arrays"):
        store_read.load_npz(path)


def test_a_target_folder_that_is_a_file_or_fifo_is_refused(tmp_path, fifo):
    with pytest.raises(NotADirectoryError, match="is not a folder"):
        store_write.check_target_folder(fifo)
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file, but a folder is needed there"):
        store_write.check_target_folder(tmp_path / "f")


def test_the_json_writer_refuses_a_key_json_has_no_form_for(tmp_path):
    with pytest.raises(TypeError, match="has no JSON form"):
        store_write.atomic_write_json(tmp_path / "o.json", {(1, 2): 3})
    store_write.atomic_write_json(tmp_path / "o.json", {"a": 1, 2: 3})
    assert (tmp_path / "o.json").is_file()
