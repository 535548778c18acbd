"""A reader's clone with no MNIST and no network: chapter 2 says so in a warning, skips its MNIST sections and
renders the rest (the solvers, the explicit layer, the stored full-profile results, the verdicts), as chapters
5 and 6 do without their reference data (``ChapterRun.has_data``)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "02_deep_implicit_attention.ipynb"


def _clone_without_data(tmp_path: Path) -> Path:
    """A checkout as a reader has it (the package, the book, the stored results, the tests that evidence names),
    with no ``data/mnist`` and no ``../shared`` beside it: links to this checkout's files."""
    clone = tmp_path / "clone"
    (clone / "book").mkdir(parents=True)
    (clone / "data").mkdir()
    for name in ("mfattn", "tests", "_toc.yml"):
        (clone / name).symlink_to(ROOT / name)
    for name in ("full", "benchmarks"):
        if (ROOT / "data" / name).exists():
            (clone / "data" / name).symlink_to(ROOT / "data" / name)
    (clone / "book" / CHAPTER).symlink_to(ROOT / "book" / CHAPTER)
    return clone


def test_chapter_2_skips_its_mnist_sections_without_the_data(tmp_path, monkeypatch):
    papermill = pytest.importorskip("papermill")
    clone = _clone_without_data(tmp_path)
    out = tmp_path / "out"
    monkeypatch.setenv("MFATTN_DATA", str(tmp_path / "empty"))       # an empty data folder ...
    monkeypatch.setenv("MFATTN_OFFLINE", "1")                         # ... and no downloads
    monkeypatch.setenv("MFATTN_OUTPUT", str(out))
    monkeypatch.setenv("MFATTN_CACHE", str(tmp_path / "cache"))       # no trained run to fall back on
    monkeypatch.delenv("MFATTN_FIGURES", raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(clone), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    (tmp_path / "empty").mkdir()
    ran = papermill.execute_notebook(str(clone / "book" / CHAPTER), str(tmp_path / "ran.ipynb"), cwd=str(clone / "book"),
                                     kernel_name="python3", progress_bar=False)
    shown = [o for c in ran.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    warnings = [o["data"]["text/markdown"] for o in shown if "text/markdown" in o.get("data", {})
                and "{warning}" in o["data"]["text/markdown"]]
    assert len(warnings) == 1 and "data set `mnist`" in warnings[0] and "skipped" in warnings[0], warnings
    assert "mfattn data fetch mnist" in warnings[0]                   # ... and how to get it
    made = json.loads((out / "figures" / "quick" / "manifest.json").read_text())
    assert "fig-deq-solvers" in made and "fig-deq-mnist-training" not in made and "fig-deq-stability" not in made
    verdicts = json.loads((out / "figures" / "ledger-quick.json").read_text())
    assert {e["chapter"] for e in verdicts.values()} == {"deq"} and "deq-mnist-accuracy" in verdicts
    runs = json.loads((out / "figures" / "quick" / "runs.json").read_text())
    assert runs["deq"]["status"] == "finished"
