"""What the book's "How to cite" and "Figures" pages show: the build's version and commit, an example
citation of a stored figure, and a table of the stored figures with their files, SHA-256, commit and
status against today's code."""

from __future__ import annotations

import html
import re
import time
from urllib.parse import urlsplit

from . import _archive
from .ledger import FIGURE_RE
from .ledger_entries import check_commit
from .manifest import check, git_commit, read_manifest

__all__ = ["build_statement", "figure_citation", "figures_table"]


def _build_commit() -> str:
    """The checkout's commit (``+dirty`` when modified); in a ``git archive`` (a release archive, no ``.git``)
    the commit it was made from; else ``unknown``."""
    commit = git_commit()
    if commit == "unknown":
        commit = _archive.archived_commit() or commit
    return commit


def build_statement() -> str:
    """A Markdown sentence naming the version, the commit and the date of this build."""
    from .. import __version__

    commit = _build_commit()
    dirty = " (with uncommitted changes)" if commit.endswith("+dirty") else ""
    return (f"**mfattn {__version__}**, commit `{commit.split('+')[0][:12]}`{dirty}, built on "
            f"{time.strftime('%Y-%m-%d')}.")


def figure_citation(label: str, profile: str = "full") -> str:
    """A Markdown quotation citing the stored figure ``label`` as the "How to cite" page asks: its label, the
    version of mfattn and the commit that made the figure (its manifest entry's, not this build's: a book
    built later shows the same file), the profile, the first 8 characters of the file's SHA-256 and what it
    reproduces (the manifest's ``paper_figure``). Raises ValueError naming ``label`` when it is not a
    figure label or the manifest has figures but not this one; says so when none is stored (outside a
    checkout)."""
    from .. import __version__

    if not isinstance(label, str) or not FIGURE_RE.match(label):
        raise ValueError(f"label must be a figure label ('fig-...'); got {label!r}")
    entries = read_manifest(profile)
    if not entries:
        return f"*(No {profile}-profile figure is stored in this build.)*"
    if label not in entries:
        raise ValueError(f"label must name a stored {profile}-profile figure (e.g. {sorted(entries)[0]!r}); "
                         f"got {label!r}")
    entry = entries[label]
    if not isinstance(entry["sha256"], str) or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]):
        raise ValueError(f"the {profile}-profile manifest's entry {label!r} has sha256 {entry['sha256']!r:.80}, not a "
                         "SHA-256 (64 hex digits): a citation must name the file's bytes; restore the manifest from git")
    commit = check_commit(f"the {profile}-profile manifest's entry {label!r}: git_commit",
                          entry.get("git_commit") or "unknown")
    dirty = ", with uncommitted changes" if commit.endswith("+dirty") else ""
    versions = entry.get("versions")
    version = versions.get("mfattn", __version__) if isinstance(versions, dict) else __version__
    return (f"> Figure `{label}` of mfattn {version} ({profile} profile, made at commit "
            f"`{commit.split('+')[0][:12]}`{dirty}, sha256 `{entry['sha256'][:8]}`): "
            f"{entry.get('paper_figure') or 'a figure of the book'}.")


def figures_table(profile: str = "full", base: str = "..") -> str:
    """An HTML table of ``profile``'s stored figures: label, chapter, the paper figure, links to the PNG and
    the PDF (both published byte for byte under ``<base>/figures/<profile>/`` by the book's extension, as
    ``_images/`` holds only what a page shows, sometimes renamed), SHA-256 (8 characters), commit, device and status
    (``current``, ``stale``, ``dirty``, ``missing``, ``unknown``). ``base`` is a relative URL (``..``, a path) or
    an ``http(s)://host/...`` URL: another scheme (``javascript:``), a protocol-relative ``//host``, a backslash,
    white space or a control character is a ValueError naming it. A manifest entry whose shown fields are not
    text is a ValueError naming the entry and the field."""
    if not isinstance(base, str) or any(c in base for c in '"<>'):
        raise TypeError(f"base must be a relative URL (a string without quotes or angle brackets); got {base!r:.60}")
    scheme, host = urlsplit(base)[:2]
    if (base.startswith("//") or "\\" in base or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in base)
            or (scheme and (scheme not in ("http", "https") or not host))):
        raise ValueError(f"base must be a relative URL (a path such as '..') or an http(s):// URL; another scheme, a "
                         f"protocol-relative '//host', a backslash or white space is not a link to the figures; got "
                         f"{base!r:.60}")
    entries = read_manifest(profile)
    for label, e in entries.items():   # what the table shows is text (a planted entry may hold anything)
        for field in ("chapter", "paper_figure", "git_commit", "device", "device_name", "vector"):
            value = e.get(field)
            if field in e and not isinstance(value, str) and not (value is None and field in ("device_name", "vector")):
                raise ValueError(f"the {profile}-profile manifest's entry {label!r}: {field} must be a string; got "
                                 f"{type(value).__name__} {value!r:.60}: restore the manifest from git")
    if not entries:
        return f"<p><em>No {profile}-profile figure is stored yet.</em></p>"
    status = {r["key"]: r["status"] for r in check(profile) if r["kind"] == "figure"}
    esc = html.escape
    rows = []
    for label, e in sorted(entries.items(), key=lambda kv: (kv[1].get("chapter", ""), kv[0])):
        files = f'<a href="{base}/figures/{profile}/{esc(e["file"])}">PNG</a>'
        if e.get("vector"):
            files += f' <a href="{base}/figures/{profile}/{esc(e["vector"])}">PDF</a>'
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in (
            f"<code>{esc(label)}</code>", esc(e.get("chapter", "")), esc(e.get("paper_figure", "")), files,
            f"<code>{esc(e['sha256'][:8])}</code>", f"<code>{esc(e.get('git_commit', '')[:8])}</code>",
            esc(e.get("device_name") or e.get("device", "")), esc(status.get(label, "?")))) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("Label", "Chapter", "Reproduces", "Files", "SHA-256",
                                                "Commit", "Device", "Status"))
    folder = f"{base}/figures/{profile}"
    links = (f'<p>Manifest: <a href="{folder}/manifest.json">manifest.json</a>; other stored results: '
             f'<a href="{folder}/results.json">results.json</a>; verdicts: '
             f'<a href="{folder}/ledger{"" if profile == "full" else "-" + profile}.json">ledger</a>.</p>')
    return f"{links}<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
