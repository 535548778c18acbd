"""Mutation round 4 (mut-s12): mfattn/companion/store_write.py -- the host tag of temporary names (cut at 40
characters) and the Windows branch of _pid_alive (driven with a stand-in kernel32, since this runs on Linux)."""

from __future__ import annotations

import os
import sys
import types

import pytest

from mfattn.companion import store_write


@pytest.mark.parametrize("name, tag", [("box", "box"), ("my.host_name", "my-host-name"), ("", "host"),
                                       ("a" * 39, "a" * 39), ("a" * 40, "a" * 40), ("b" * 40 + "c", "b" * 40),
                                       ("x" * 100, "x" * 40), ("ü.é", "---")])
def test_the_host_tag_is_the_host_name_in_safe_letters_cut_at_40(monkeypatch, name, tag):
    """store_write.py:229: `[:40]` (a 41st character is dropped; an empty name reads 'host')."""
    monkeypatch.setattr(store_write.socket, "gethostname", lambda: name)
    assert store_write._host() == tag


def test_a_temporary_name_carries_the_cut_host_tag(monkeypatch, tmp_path):
    monkeypatch.setattr(store_write.socket, "gethostname", lambda: "n" * 45)
    path = store_write.temporary_path(tmp_path, "x")
    assert f".x.pid{os.getpid()}-{'n' * 40}." in path.name and "n" * 41 not in path.name


def _windows(monkeypatch, handle, last_error, wait=0x102):
    closed = []
    kernel32 = types.SimpleNamespace(OpenProcess=lambda access, inherit, pid: handle,
                                     WaitForSingleObject=lambda h, ms: wait, CloseHandle=closed.append)
    fake = types.SimpleNamespace(WinDLL=lambda name, use_last_error=False: kernel32,
                                 get_last_error=lambda: last_error)
    monkeypatch.setitem(sys.modules, "ctypes", fake)
    monkeypatch.setattr(store_write, "os", types.SimpleNamespace(name="nt", kill=os.kill))
    return closed


@pytest.mark.parametrize("last_error, alive", [(5, True), (87, False), (0, False), (4, False), (6, False)])
def test_on_windows_a_process_that_cannot_be_opened_runs_only_when_access_is_denied(monkeypatch, last_error, alive):
    """store_write.py:264: ERROR_ACCESS_DENIED (5) means it exists and is not ours; any other error: gone."""
    _windows(monkeypatch, 0, last_error)
    assert store_write._pid_alive(1234) is alive


@pytest.mark.parametrize("wait, alive", [(0x102, True), (0, False), (0x101, False), (0x103, False)])
def test_on_windows_an_opened_process_runs_while_the_wait_times_out(monkeypatch, wait, alive):
    closed = _windows(monkeypatch, 77, 0, wait)
    assert store_write._pid_alive(1234) is alive
    assert closed == [77]


def test_no_pid_at_or_below_zero_is_alive(monkeypatch):
    assert store_write._pid_alive(0) is False and store_write._pid_alive(-1) is False
    assert store_write._pid_alive(os.getpid()) is True
