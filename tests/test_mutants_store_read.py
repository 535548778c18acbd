"""Limits of :mod:`mfattn.companion.store_read` that the other tests left free to change (found by sampled
mutation testing, issue 44 item 6): each budget is checked exactly at its edge (a file of exactly the limit is
read whole, one byte more is refused), with the sizes counted here from the bytes written.
"""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from mfattn.companion import store_read
from mfattn.companion.store_read import RefusedFileError


@pytest.fixture(autouse=True)
def _no_budgets(monkeypatch):
    for name in ("MFATTN_MAX_JSON_BYTES", "MFATTN_MAX_BYTES"):
        monkeypatch.delenv(name, raising=False)


def test_the_default_json_limit_is_64_mib(monkeypatch):
    assert store_read.max_json_bytes() == 64 * 1024 * 1024 == store_read.DEFAULT_MAX_JSON_BYTES
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", "1000")
    assert store_read.max_json_bytes() == 1000


def test_check_regular_file_returns_the_size(tmp_path):
    p = tmp_path / "a.txt"
    p.write_bytes(b"12345")
    assert store_read.check_regular_file(p) == 5


def test_read_text_file_reads_a_file_of_exactly_the_limit_and_refuses_one_byte_more(tmp_path, monkeypatch):
    p = tmp_path / "a.txt"
    p.write_bytes(b"x" * 10)
    assert store_read.read_text_file(p, limit=10) == "x" * 10
    with pytest.raises(RefusedFileError, match="at most 9 bytes"):
        store_read.read_text_file(p, limit=9)
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", "10")      # no limit given: the JSON budget
    assert store_read.read_text_file(p) == "x" * 10
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", "9")
    with pytest.raises(RefusedFileError, match="at most 9 bytes"):
        store_read.read_text_file(p)


def test_read_json_reads_a_file_of_exactly_the_limit_whole(tmp_path, monkeypatch):
    p = tmp_path / "a.json"
    text = json.dumps({"key": "v" * 40})
    p.write_text(text)
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", str(len(text)))
    assert store_read.read_json(p) == {"key": "v" * 40}
    monkeypatch.setenv("MFATTN_MAX_JSON_BYTES", str(len(text) - 1))
    with pytest.raises(RefusedFileError, match=f"it has {len(text)} bytes"):
        store_read.read_json(p)


def test_read_json_budgets_eight_bytes_of_memory_per_byte_of_file(tmp_path, monkeypatch):
    p = tmp_path / "a.json"
    text = json.dumps([1, 2, 3, "abc"])
    p.write_text(text)
    monkeypatch.setenv("MFATTN_MAX_BYTES", str(8 * len(text)))
    assert store_read.read_json(p) == [1, 2, 3, "abc"]
    monkeypatch.setenv("MFATTN_MAX_BYTES", str(8 * len(text) - 1))
    with pytest.raises(RefusedFileError, match="whose parse fits in memory"):
        store_read.read_json(p)


def test_read_entries_quotes_sixty_characters_of_a_bad_entry(tmp_path):
    p = tmp_path / "e.json"
    bad = "abcdefghij" * 8                                 # 80 characters
    p.write_text(json.dumps({"k": bad}))
    with pytest.raises(ValueError) as err:
        store_read.read_entries(p)
    assert f"it is str {bad[:60]!r}:" in str(err.value)


def _npz(path, **arrays):
    np.savez(path, **arrays)
    with zipfile.ZipFile(path) as z:
        return sum(i.file_size for i in z.infolist())


def test_load_npz_takes_members_that_inflate_to_exactly_the_budget(tmp_path, monkeypatch):
    p = tmp_path / "a.npz"
    inflated = _npz(p, a=np.arange(100.0), b=np.ones((3, 4), np.int32))
    monkeypatch.setenv("MFATTN_MAX_BYTES", str(inflated))
    got = store_read.load_npz(p)
    assert np.array_equal(got["a"], np.arange(100.0)) and got["b"].dtype == np.int32
    monkeypatch.setenv("MFATTN_MAX_BYTES", str(inflated - 1))
    with pytest.raises(RefusedFileError, match=f"inflate to {inflated:,} bytes"):
        store_read.load_npz(p)


@pytest.mark.parametrize("version", [(1, 0), (2, 0)])
def test_load_npz_reads_npy_members_of_format_1_and_2(tmp_path, version):
    import io

    from numpy.lib import format as npformat

    buf = io.BytesIO()
    npformat.write_array(buf, np.arange(5.0), version=version)
    p = tmp_path / "v.npz"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("a.npy", buf.getvalue())
    assert np.array_equal(store_read.load_npz(p)["a"], np.arange(5.0))


def test_a_format_3_member_is_read_and_its_header_checked(tmp_path):
    """Format 3.0 (utf-8 field names) once reached a numpy reader that numpy 2.4 no longer has (an AttributeError
    escaped load_npz): its header is parsed here, its arrays come back, and an unknown version is refused by path."""
    import io
    import zipfile

    import numpy as np
    from numpy.lib import format as npformat

    from mfattn.companion import store_read

    def npz(version, name):
        buf = io.BytesIO()
        npformat.write_array(buf, np.arange(5.0), version=version)
        raw = bytearray(buf.getvalue())
        if version == (3, 0) and name == "bad.npz":
            raw[6] = 9                                   # the magic's major version byte: 9.0 does not exist
        path = tmp_path / name
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("a.npy", bytes(raw))
        return path

    out = store_read.load_npz(npz((3, 0), "ok.npz"))
    np.testing.assert_array_equal(out["a"], np.arange(5.0))
    with pytest.raises(store_read.DamagedFileError, match="bad.npz"):
        store_read.load_npz(npz((3, 0), "bad.npz"))
