"""Fixtures shared by the test modules."""

import functools
import http.server
import os
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
#: Where a test session's generated output goes (quick-profile figures, manifest, ledger, reproduce runs),
#: so that `bash .ci/test` never overwrites `_build/figures/quick`, the figures the built book shows.
TEST_OUTPUT = ROOT / "_build" / "test-output"


def pytest_configure(config):
    """Session-wide, in every xdist worker and, through the environment, in the notebook kernels (nbval) and
    subprocesses (papermill, the command line) the tests start: ``$MFATTN_OUTPUT`` is ``_build/test-output``
    unless the caller set it; the caches stay where they were (``_build/cache``, or ``$MFATTN_CACHE``), so
    the tests reuse what a build trained."""
    if not os.environ.get("MFATTN_OUTPUT"):
        os.environ.setdefault("MFATTN_CACHE", str(ROOT / "_build" / "cache"))
        os.environ["MFATTN_OUTPUT"] = str(TEST_OUTPUT)


class ServedData:
    """A copy of ``../shared/data`` served over HTTP on 127.0.0.1 (so a test can corrupt its files);
    :meth:`point` makes a data set of :mod:`mfattn.companion.datasets` download from it."""

    def __init__(self, base: str, folder: Path, monkeypatch):
        self.base, self.folder, self._monkeypatch = base, folder, monkeypatch

    def point(self, name: str) -> None:
        from mfattn.companion import datasets

        ds = datasets.DATASETS[name]
        urls = {f: (f"{self.base}{name}/{f}",) for f in ds.files}
        self._monkeypatch.setitem(datasets.DATASETS, name, replace(ds, urls=urls))


@pytest.fixture
def served_data(tmp_path, monkeypatch):
    if not (SHARED_DATA / "asi-reference").is_dir() or not (SHARED_DATA / "mnist").is_dir():
        pytest.skip("needs ../shared/data beside the checkout (the files to serve)")
    folder = tmp_path / "served"
    shutil.copytree(SHARED_DATA, folder)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield ServedData(f"http://127.0.0.1:{httpd.server_port}/", folder, monkeypatch)
    httpd.shutdown()
