"""The "How to cite" page: the build's version and commit, and a figure citation a reader can verify."""

import io
import json
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

import mfattn
from mfattn.companion import _archive, citation
from mfattn.companion.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[1]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_build_statement_names_the_version_and_the_commit(monkeypatch):
    monkeypatch.setattr(mfattn, "__version__", "9.8.7")
    monkeypatch.setattr(citation, "git_commit", lambda: COMMIT)
    text = citation.build_statement()
    assert "**mfattn 9.8.7**" in text and f"`{COMMIT[:12]}`" in text and "uncommitted" not in text
    monkeypatch.setattr(citation, "git_commit", lambda: COMMIT + "+dirty")
    text = citation.build_statement()
    assert f"`{COMMIT[:12]}`" in text and "+dirty" not in text and "(with uncommitted changes)" in text


def test_an_archive_names_the_commit_it_was_made_from(monkeypatch):
    """Built from a release archive (no .git), the page names the commit `git archive` wrote into _archive.py."""
    monkeypatch.setattr(citation, "git_commit", lambda: "unknown")
    assert "commit `unknown`" in citation.build_statement()  # a checkout's placeholder is not a commit
    monkeypatch.setattr(_archive, "COMMIT", COMMIT)
    assert f"commit `{COMMIT[:12]}`" in citation.build_statement()


def _head() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        head = ""
    if not re.fullmatch(r"[0-9a-f]{40}", head):
        pytest.skip("not a git checkout")
    return head


def test_git_archive_writes_the_commit_into_the_package():
    """.gitattributes marks _archive.py export-subst: `git archive HEAD` holds HEAD's commit there."""
    head = _head()
    tar = subprocess.run(["git", "archive", "--format=tar", "HEAD", "--", "mfattn/companion/_archive.py"], cwd=ROOT,
                         capture_output=True, timeout=30).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        text = archive.extractfile("mfattn/companion/_archive.py").read().decode()
    assert f'COMMIT = "{head}"' in text


def test_build_statement_of_this_checkout():
    """The statement names this package's version and the checkout's HEAD, read by git here."""
    head = _head()
    text = citation.build_statement()
    assert f"**mfattn {mfattn.__version__}**" in text and f"`{head[:12]}`" in text


def test_figure_citation_names_what_a_reader_needs_to_verify_the_figure(monkeypatch):
    entries = read_manifest("full")
    if not entries:
        pytest.skip("no stored full-profile figure")
    label, entry = sorted(entries.items())[0]
    monkeypatch.setattr(mfattn, "__version__", "9.8.7")
    monkeypatch.setattr(citation, "git_commit", lambda: COMMIT)   # this build's commit: not the figure's
    text = citation.figure_citation(label)
    made = entry["git_commit"].split("+")[0][:12]
    for part in (f"`{label}`", f"mfattn {entry['versions']['mfattn']}", "full profile",
                 f"made at commit `{made}`", f"`{entry['sha256'][:8]}`", entry["paper_figure"]):
        assert part in text, part
    assert COMMIT[:12] not in text
    dirty = {**entry, "git_commit": COMMIT + "+dirty", "versions": {}}
    monkeypatch.setattr(citation, "read_manifest", lambda profile: {label: dirty})
    text = citation.figure_citation(label)
    assert f"mfattn 9.8.7 (full profile, made at commit `{COMMIT[:12]}`, with uncommitted changes" in text
    monkeypatch.undo()
    for bad in ("fig-no-such-figure", "Figure 3", 3):
        with pytest.raises(ValueError, match="label"):
            citation.figure_citation(bad)
    monkeypatch.setattr(citation, "read_manifest", lambda profile: {})
    assert "No full-profile figure" in citation.figure_citation(label)


def test_the_citing_page_cites_stored_figures():
    """The example on the "How to cite" page names a figure the full manifest holds (else the build fails)."""
    cells = json.loads((ROOT / "book" / "citing.ipynb").read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert "citation.build_statement()" in code
    labels = re.findall(r"""figure_citation\(\s*["'](fig-[a-z0-9-]+)["']""", code)
    assert labels and set(labels) <= set(read_manifest("full")), labels
