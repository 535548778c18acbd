"""Fixtures shared by the test modules."""

import functools
import http.server
import shutil
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]

# Generated-input (Hypothesis) tests check contracts, not speed: no per-example deadline, which a loaded machine would
# exceed at random (seen: 877 ms against the default's limit in a CI run beside other jobs). Speed is measured by
# benchmarks/. The one time cap that stays is the contract runner's hang guard (tests/contracts_runner.py).
settings.register_profile("mfattn", deadline=None)
settings.load_profile("mfattn")
# (Where a session writes its output: ../conftest.py, which every run loads, notebooks-only runs too.)


# --- Data sets: the tests find them where the package's loader does -------------------------------------------
# (``mfattn.companion.datasets.locate``: the data set's environment variable, then ``data/<name>/`` of the checkout,
# where ``python -m mfattn data fetch <name>`` puts verified downloads, then ``../shared/data/<name>/``), and a
# test without them skips saying which data set and the command that fetches it (see ``pytest -rs``).

def _dataset_files(name: str) -> tuple[str, ...]:
    from mfattn.companion import datasets

    return datasets.dataset_files(name)


def missing_data_reason(name: str, file: str | None = None) -> str:
    """Why a test skips: which data set (and file) is missing, where the loader looked, how to fetch it."""
    from mfattn.companion import datasets

    where = ", ".join(str(folder) for _, folder in datasets.folders(name))
    what = f"{name}/{file}" if file else f"all files of {name}"
    return (f"needs the {name} data set ({what} not found, verified, in: {where}); "
            f"fetch it with `python -m mfattn data fetch {name}`")


def find_data_file(name: str, file: str) -> Path | None:
    """``datasets.locate(name, file)``: the first verified copy, or None. A copy with a wrong SHA-256 is an
    error, never a skip."""
    from mfattn.companion import datasets

    return datasets.locate(name, file)


def find_data_dir(name: str) -> Path | None:
    """The folder holding every file of data set ``name``, each verified (what a loader given ``data_root``
    reads, e.g. MNIST), or None."""
    paths = [find_data_file(name, f) for f in _dataset_files(name)]
    if any(p is None for p in paths) or len({p.parent for p in paths}) != 1:
        return None
    return paths[0].parent


def data_file(name: str, file: str) -> Path:
    """The verified copy of ``file`` of data set ``name`` that the loader finds; else the test skips, naming
    the data set and ``python -m mfattn data fetch <name>``."""
    __tracebackhide__ = True  # the skip is reported at the test's line
    path = find_data_file(name, file)
    if path is None:
        pytest.skip(missing_data_reason(name, file))
    return path


def data_dir(name: str) -> Path:
    """The folder holding all of data set ``name`` (verified); else the test skips, saying how to fetch it."""
    __tracebackhide__ = True
    folder = find_data_dir(name)
    if folder is None:
        pytest.skip(missing_data_reason(name))
    return folder


def needs_data(name: str, file: str | None = None):
    """A ``skipif`` mark: skip unless the loader finds ``file`` (or, without one, all files) of data set
    ``name``; the reason names the data set and the command that fetches it."""
    found = find_data_file(name, file) if file else find_data_dir(name)
    return pytest.mark.skipif(found is None, reason=missing_data_reason(name, file))


class ServedData:
    """A copy of the data sets (found by :func:`data_file`) served over HTTP on 127.0.0.1 (so a test can corrupt its files);
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
    from mfattn.companion import datasets

    # The served copy is the only source: a mirror set in the environment (MFATTN_MIRROR, as in a run without
    # ../shared) would be tried first and hide what the test corrupts.
    monkeypatch.delenv(datasets.MIRROR_ENV, raising=False)
    for name in datasets.DATASETS:
        monkeypatch.delenv(datasets.mirror_env(name), raising=False)
    folder = tmp_path / "served"
    for name in ("asi-reference", "dmft-reference", "mnist"):  # the files to serve, found as the loader finds them
        for file in _dataset_files(name):
            (folder / name).mkdir(parents=True, exist_ok=True)
            shutil.copy(data_file(name, file), folder / name / file)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield ServedData(f"http://127.0.0.1:{httpd.server_port}/", folder, monkeypatch)
    httpd.shutdown()


@pytest.fixture(autouse=True)
def _work_budget_of_a_call_made_on_its_own():
    """Every test starts at the budget of a call made on its own (DEFAULT_MAX_WORK): a chapter's run or full profile
    made by an earlier test in the same process (they admit CHAPTER_MAX_WORK for the rest of it) does not carry over,
    so a test's outcome does not depend on the order the tests run in."""
    from mfattn.companion import checks_budgets

    checks_budgets._CHAPTER_ADMITTED[0] = False
    yield
    checks_budgets._CHAPTER_ADMITTED[0] = False


@pytest.fixture
def chapter_budget():
    """A test that calls a chapter's computation directly at chapter scale (a sweep at quick-profile sizes) does so
    under a chapter's work budget, as the chapter's own run does (ChapterRun admits it)."""
    from mfattn.companion import checks_budgets

    checks_budgets.admit_chapter_work()
    yield
    checks_budgets._CHAPTER_ADMITTED[0] = False


@pytest.fixture(scope="session", autouse=True)
def _stored_kinds_read_once():
    """The stored numbers' kinds (every chapter's store, some seconds to read) are read once, before any test forks a
    child: a contract test's child then checks reads against them without reading the store under its time cap."""
    from mfattn.companion import stored_kinds

    stored_kinds.stored_kinds()
    yield
