"""The Figures page of a built book: every link and image it names resolves to a file of the build, and
every PNG published under ``figures/<profile>/`` is the very file its manifest records (same SHA-256).

Checked on a small synthetic ``_build/html`` made here (the book's ``build-finished`` step run on a
temporary figures folder), and on the checkout's ``_build/html`` when a book was built."""

from __future__ import annotations

import html.parser
import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlsplit

import pytest

from mfattn.companion import citation, store

ROOT = Path(__file__).resolve().parents[1]


def _book_extension():
    spec = importlib.util.spec_from_file_location("mfattn_book_ext", ROOT / "book" / "_ext" / "mfattn_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.urls += [value for name, value in attrs if name in ("href", "src") and value]


def unresolved_links(page: Path, html_root: Path) -> list[str]:
    """The ``href``/``src`` values of ``page`` that point inside the build but to no file there."""
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    bad = []
    for url in parser.urls:
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:  # external, or a fragment of this page
            continue
        target = (page.parent / unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_relative_to(html_root.resolve()) or not target.is_file():
            bad.append(url)
    return bad


def mismatched_pngs(html_root: Path) -> list[str]:
    """The published PNGs (``figures/<profile>/*.png`` of the build) whose bytes are not those their
    manifest records, and the manifest's PNGs that were not published."""
    bad = []
    for folder in sorted((html_root / "figures").glob("*")):
        manifest = folder / "manifest.json"
        entries = json.loads(manifest.read_text()) if manifest.is_file() else {}
        by_file = {e["file"]: e for e in entries.values()}
        for png in sorted(folder.glob("*.png")):
            entry = by_file.get(png.name)
            if entry is None or store.sha256_file(png) != entry["sha256"]:
                bad.append(f"{folder.name}/{png.name}")
        bad += [f"{folder.name}/{name} (not published)" for name in sorted(by_file)
                if not (folder / name).is_file()]
    return bad


def _store_figure(folder: Path, label: str, data: bytes, vector: bool = True) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{label}.png").write_bytes(data)
    entry = {"label": label, "chapter": "toy", "file": f"{label}.png",
             "sha256": store.sha256_file(folder / f"{label}.png"), "paper_figure": "new", "git_commit": "0" * 40,
             "device": "cpu"}
    if vector:
        (folder / f"{label}.pdf").write_bytes(b"%PDF-1.4 " + data)
        entry["vector"] = f"{label}.pdf"
    return entry


@pytest.fixture
def synthetic_build(tmp_path, monkeypatch):
    """A ``_build/html`` with a Figures page, as the book's extension publishes it, for two stored figures
    that no page shows (so ``_images/`` does not hold them)."""
    figures = tmp_path / "figures"
    monkeypatch.setenv("MFATTN_FIGURES", str(figures))
    for profile in ("full", "quick"):
        entries = {label: _store_figure(figures / profile, label, f"{profile} {label}".encode(), profile == "full")
                   for label in ("fig-toy-one", "fig-toy-two")}
        (figures / profile / "manifest.json").write_text(json.dumps(entries))
        (figures / profile / "results.json").write_text("{}")
    (figures / "ledger.json").write_text("{}")
    (figures / "ledger-quick.json").write_text("{}")
    out = tmp_path / "_build" / "html"
    (out / "_images").mkdir(parents=True)
    page = out / "book" / "figures.html"
    page.parent.mkdir(parents=True)
    page.write_text(f"<html><body>{citation.figures_table('full')}</body></html>", encoding="utf-8")
    app = SimpleNamespace(outdir=str(out), builder=SimpleNamespace(format="html"), env_mathjax_dist=None)
    _book_extension()._build_finished(app, None)
    return out


def test_synthetic_figures_page_links_resolve(synthetic_build):
    page = synthetic_build / "book" / "figures.html"
    assert "fig-toy-one.png" in page.read_text()
    assert unresolved_links(page, synthetic_build) == []


def test_synthetic_published_pngs_match_manifest(synthetic_build):
    assert sorted(p.name for p in (synthetic_build / "figures" / "full").glob("*.png")) == [
        "fig-toy-one.png", "fig-toy-two.png"]
    assert mismatched_pngs(synthetic_build) == []


def test_checks_catch_a_broken_build(synthetic_build):
    """The two checks fail where they must: a link to a file the build lacks, a PNG whose bytes differ."""
    page = synthetic_build / "book" / "figures.html"
    page.write_text(page.read_text() + '<img src="../_images/fig-toy-one.png"><a href="#top">x</a>'
                    '<a href="https://example.org/">y</a>')
    assert unresolved_links(page, synthetic_build) == ["../_images/fig-toy-one.png"]
    (synthetic_build / "figures" / "full" / "fig-toy-two.png").write_bytes(b"other bytes")
    (synthetic_build / "figures" / "quick" / "fig-toy-one.png").unlink()
    assert mismatched_pngs(synthetic_build) == ["full/fig-toy-two.png", "quick/fig-toy-one.png (not published)"]


def _built_html() -> Path:
    html_root = ROOT / "_build" / "html"
    page = html_root / "book" / "figures.html"
    if not page.is_file():
        pytest.skip(f"no built book in this checkout ({page} is absent; build it with `jupyter-book build .`)")
    writers = [ROOT / "mfattn" / "companion" / "citation.py", ROOT / "book" / "_ext" / "mfattn_book.py",
               ROOT / "data" / "full" / "figures" / "manifest.json"]
    if page.stat().st_mtime < max(w.stat().st_mtime for w in writers):
        pytest.skip(f"the built book ({page}) is older than the code or manifest that write its Figures page: "
                    "rebuild it (`bash .ci/book`) to check it")
    return html_root


def test_built_figures_page_links_resolve():
    html_root = _built_html()
    assert unresolved_links(html_root / "book" / "figures.html", html_root) == []


def test_built_pngs_match_manifest():
    html_root = _built_html()
    assert (html_root / "figures" / "full" / "manifest.json").is_file()
    assert mismatched_pngs(html_root) == []
