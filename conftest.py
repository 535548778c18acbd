"""pytest's settings for every test of the checkout: the unit tests in tests/ and the chapter notebooks in book/
(nbval), whichever paths a run names (``pytest book/01_ising_tap.ipynb`` loads this file, not tests/conftest.py)."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent
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
