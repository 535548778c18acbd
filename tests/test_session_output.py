"""A test session writes its generated output under ``_build/test-output`` (see ``conftest.py``), never into
``_build/figures/quick``, which holds the figures and manifest of the built book."""

import os
import subprocess
import sys
from pathlib import Path

from mfattn.companion import ledger, manifest, store

ROOT = Path(__file__).resolve().parents[1]
BOOK_QUICK = (ROOT / "_build" / "figures" / "quick").resolve()


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve() == folder or path.resolve().is_relative_to(folder)


def test_the_sessions_quick_output_is_not_the_books():
    quick = manifest.figures_dir("quick")
    assert not _inside(quick, BOOK_QUICK), f"the tests would write into the book's {BOOK_QUICK}"
    assert not _inside(ledger.ledger_path("quick"), BOOK_QUICK.parent)
    if not os.environ.get("MFATTN_FIGURES"):  # the caller did not name a folder of their own
        assert store.output_dir() == Path(os.environ["MFATTN_OUTPUT"]).resolve()
        assert manifest.figures_dir("full") == ROOT / "data" / "full" / "figures"  # stored results still read


def test_notebook_kernels_and_subprocesses_get_the_same_folder():
    code = "from mfattn.companion.manifest import figures_dir; print(figures_dir('quick'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    got = Path(out.stdout.strip())
    assert got == manifest.figures_dir("quick") and not _inside(got, BOOK_QUICK)



def test_a_run_of_notebooks_only_writes_there_too():
    """``pytest book/<chapter>.ipynb`` (nbval, no path under tests/) gets the same output folder: the setting
    lives in the checkout's root conftest.py, which every run loads."""
    code = ("import os, pytest\n"
            "pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider', 'book/report.ipynb'])\n"
            "print('MFATTN_OUTPUT=' + os.environ.get('MFATTN_OUTPUT', ''))")
    env = {k: v for k, v in os.environ.items() if k not in ("MFATTN_OUTPUT", "MFATTN_FIGURES")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300).stdout
    assert f"MFATTN_OUTPUT={ROOT / '_build' / 'test-output'}" in out.splitlines(), out[-2000:]


def test_the_readme_lists_every_environment_variable():
    """Each variable the package or a `.ci/` script reads has its line in README's "Environment variables"."""
    import re

    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^- (.+?):", section, flags=re.M))
    listed = {name.strip("` ") for line in listed for name in line.split(",")}
    sources = [*sorted((ROOT / "mfattn").rglob("*.py")), *sorted((ROOT / ".ci").glob("*")),
               ROOT / "book" / "_ext" / "mfattn_book.py"]
    read = set()
    for path in sources:
        if path.is_file() and path.suffix != ".lock":
            text = path.read_text()
            read |= set(re.findall(r"\bMFATTN_[A-Z0-9_]*[A-Z0-9]\b", text))
            if path.parent.name == ".ci":
                read |= set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", text)) - {"PATH", "SECONDS", "BASH_SOURCE"}
    assert read - listed == set()
