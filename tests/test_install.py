"""What each way of installing gets: the Colab cell (the package and its dependencies, no extras) everything a
chapter imports; Binder the exact versions of the lock file; the lock file every dependency pinned."""

from __future__ import annotations

import ast
import json
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
#: The command-line runner of whole chapters (``mfattn reproduce``): it needs papermill, from the book extra.
RUNNER = {"mfattn/companion/reproduce.py"}


def _imports(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n != "mfattn"}


def _closure(requirements: list[str]) -> set[str]:
    """The installed distributions that ``requirements`` pull in, transitively (no extras)."""
    seen, todo = set(), [Requirement(r) for r in requirements]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in metadata.requires(req.name) or []]
        except metadata.PackageNotFoundError:
            pytest.skip(f"{req.name} is not installed here: the dependency closure cannot be read")
    return seen


def _chapter_notebooks() -> list[Path]:
    return sorted((ROOT / "book").glob("0*.ipynb"))


def test_the_colab_cell_installs_what_the_chapters_import():
    """Colab's cell installs the package with its dependencies and no extras: those must hold every module the
    chapters and the package import (myst-nb for glue), the runner aside."""
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in sorted((ROOT / "mfattn").rglob("*.py"))}
    for path in [*_chapter_notebooks(), ROOT / "book" / "report.ipynb"]:
        cells = json.loads(path.read_text())["cells"]
        sources[path.name] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    imported = {name: path for path, text in sources.items() if path not in RUNNER for name in _imports(text)}
    assert {"myst_nb", "torch", "matplotlib"} <= set(imported)
    installed = _closure(PROJECT["dependencies"])
    providers = metadata.packages_distributions()
    missing = {name: path for name, path in imported.items()
               if not {canonicalize_name(d) for d in providers.get(name, [name])} & installed}
    assert not missing, f"imported but not installed by `pip install mfattn` (no extras): {missing}"
    for path in _chapter_notebooks():
        colab = [c for c in json.loads(path.read_text())["cells"] if 'find_spec("mfattn")' in "".join(c["source"])]
        assert len(colab) == 1 and re.search(r'"pip", "install", "-q", "-e", "mfattn-book"\]', "".join(colab[0]["source"]))


def _lock() -> dict[str, str]:
    lines = (ROOT / ".ci" / "requirements-cpu.lock").read_text().splitlines()
    return {canonicalize_name(line.split("==")[0]): line.split("==")[1] for line in lines
            if "==" in line and not line.startswith("#")}


def test_the_lock_file_pins_every_dependency():
    lock = _lock()
    wanted = [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["book"],
              *PROJECT["optional-dependencies"]["test"]]
    for text in wanted:
        req = Requirement(text)
        name = canonicalize_name(req.name)
        assert name in lock, f"{req.name} is not pinned in .ci/requirements-cpu.lock"
        assert req.specifier.contains(lock[name], prereleases=True), (req.name, str(req.specifier), lock[name])


def test_binder_installs_the_lock_file():
    """repo2docker reads binder/: requirements.txt installs the lock file (with PyTorch's CPU index); postBuild
    adds mfattn itself without resolving its dependencies again (which could move a pinned version)."""
    req = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    lines = [line.split("#")[0].strip() for line in req if line.split("#")[0].strip()]
    includes = [line.split(None, 1)[1] for line in lines if line.startswith("-r ")]
    assert [(ROOT / "binder" / inc).resolve() for inc in includes] == [(ROOT / ".ci" / "requirements-cpu.lock").resolve()]
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in lines
    assert all(line.startswith(("-r ", "--extra-index-url ")) for line in lines), lines   # nothing pinned twice
    assert _lock()["torch"].endswith("+cpu")
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"^pip install .*--no-deps -e \.$", post, re.M), post
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    assert runtime == "python-3.11" and "Python 3.11" in (ROOT / ".ci" / "requirements-cpu.lock").read_text()
