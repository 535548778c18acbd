"""Sphinx extension of the mfattn book (loaded by ``_config.yml``'s ``sphinx.local_extensions``).

1. Math offline: when a MathJax 3 distribution is present (``.ci/setup`` unpacks the npm package
   ``mathjax`` into ``.venv/mathjax``; ``$MFATTN_MATHJAX`` may name another one), the pages load
   MathJax from ``_static/mathjax/`` of the build instead of a CDN, and the files they need
   (``tex-chtml.js``, the TeX extensions it loads on demand, the CHTML fonts, the menu) are copied
   there after the build. Without one the pages keep the CDN, and the build says so.
2. Figures a reader can cite and verify: the chapters show the stored full-profile PNGs (Sphinx copies
   them into ``_images/`` under their own names) and this build's quick-profile PNGs (the very bytes of
   ``_build/figures/quick``); the manifests, ``results.json``, the ledgers, the PNGs and the vector copies
   (PDF) of the figures are published under ``figures/full/`` and ``figures/quick/``, byte for byte (the
   Figures page links there: Sphinx renames, or does not copy, an image into ``_images/`` unless a page
   shows it under that name).
   Source maps of the theme's scripts (``*.map``, for developers' tools only) are dropped, which keeps
   the HTML small.
3. Bibliography in author-year form: labels "Author, year" (a pybtex label style), sorted by author.
4. A small style sheet (``book/_ext/static/mfattn.css``) and script (``mfattn.js``): printed outputs wrap instead
   of being cut at the column's right edge; wide equations and tables scroll inside their own box; an anchor opens
   and marks the claim it names; a figure opens full size when tapped (readable on a phone); no "back to top"
   button (the theme shows it where the text runs to the screen's edge, so it covered text).
5. Pages a reader reads, without errors and offline (:func:`_page_context`): each script once (Sphinx 7.4 writes
   an inline script that an extension adds after the builder started twice, and sphinx-thebe's
   ``const THEBE_JS_URL`` declared twice is a script error on every page); the theme's colour mode set, so that
   a first visit logs no error; a full-profile figure's provenance as a sentence with the command that remakes it
   and the file, SHA-256 and commit one click away (the glued note is plain text, read like debug output); a
   matplotlib animation's buttons labelled without the icon font it loads from a CDN.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import shutil
from pathlib import Path

#: What ``build-finished`` publishes from each profile's figures folder into ``figures/<profile>/``.
PUBLISHED_SUFFIXES = (".json", ".pdf", ".png")

MATHJAX_PARTS = ("tex-chtml.js", "input/tex/extensions", "output/chtml/fonts/woff-v2", "ui", "a11y")


def _root(app) -> Path:
    return Path(app.confdir).resolve()


def mathjax_dist(root: Path) -> Path | None:
    """The ``es5`` folder of a MathJax 3 distribution, or None."""
    for candidate in (os.environ.get("MFATTN_MATHJAX"), root / ".venv" / "mathjax"):
        if candidate:
            es5 = Path(candidate) / "es5"
            if (es5 / "tex-chtml.js").is_file():
                return es5
    return None


def _config_inited(app, config) -> None:
    dist = mathjax_dist(_root(app))
    app.env_mathjax_dist = dist  # remembered for build-finished
    if dist is not None:
        config.mathjax_path = "mathjax/tex-chtml.js"
    else:
        from sphinx.util import logging

        logging.getLogger(__name__).info("mfattn: no MathJax distribution in .venv/mathjax (run .ci/setup with npm "
                                         "available): the pages load MathJax from its CDN")


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)
    elif src.is_file():
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def _build_finished(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    dist = getattr(app, "env_mathjax_dist", None)
    if dist is not None:
        for part in MATHJAX_PARTS:
            _copy(dist / part, out / "_static" / "mathjax" / part)
        _copy(dist.parent / "LICENSE", out / "_static" / "mathjax" / "LICENSE")
    from mfattn.companion.ledger import ledger_path
    from mfattn.companion.manifest import figures_dir

    for profile in ("full", "quick"):
        for src in [*sorted(figures_dir(profile).glob("*")), ledger_path(profile)]:
            if src.is_file() and not src.name.startswith(".") and src.suffix in PUBLISHED_SUFFIXES:
                _copy(src, out / "figures" / profile / src.name)
    for source_map in (out / "_static").rglob("*.map"):
        source_map.unlink()


def _register_author_year_style() -> None:
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.unsrt import Style as UnsrtStyle
    from pybtex.style.labels import BaseLabelStyle

    class AuthorYearLabels(BaseLabelStyle):
        """"Bal, 2021", "Singh and Buckley, 2023", "Opper et al., 2001a" (the year as the .bib gives it)."""

        def format_labels(self, sorted_entries):
            for entry in sorted_entries:
                people = entry.persons.get("author") or entry.persons.get("editor") or []
                names = [" ".join(p.last_names) for p in people] or [entry.fields.get("title", entry.key)]
                who = names[0] if len(names) == 1 else (" and ".join(names) if len(names) == 2
                                                        else f"{names[0]} et al.")
                yield f"{who}, {entry.fields.get('year', 'n.d.')}"

    class AuthorYearStyle(UnsrtStyle):
        default_label_style = "mfattn_author_year"
        default_sorting_style = "author_year_title"

    register_plugin("pybtex.style.labels", "mfattn_author_year", AuthorYearLabels)
    register_plugin("pybtex.style.formatting", "mfattn", AuthorYearStyle)


def _add_style(app) -> None:
    app.config.html_static_path.append(str(Path(__file__).with_name("static")))
    app.add_css_file("mfattn.css")
    app.add_js_file("mfattn.js", defer="defer")
    # pydata-sphinx-theme reads the colour mode from the page; left empty, a first visit logs an error.
    app.config.html_context.setdefault("default_mode", "auto")


#: The note :meth:`mfattn.ChapterRun.stored_figure` glues under a full-profile figure (plain text).
_PROVENANCE = re.compile(
    r'<span class="pasted-text">(?:(?P<title>[^<]*?): )?data/full/figures/(?P<file>[^,<]+), sha256 (?P<sha>[0-9a-f]+), '
    r'computed on (?P<device>[^<]*?) in (?P<secs>\d+) s at commit (?P<commit>[0-9a-f]+)(?P<dirty> \([^)<]*\))?; '
    r'remade by (?P<cmd>[^<]+)</span>(?P<rest>.*?</p>)', re.S)
#: matplotlib's JavaScript animation: a Font Awesome 4 style sheet from a CDN, and its icons as <i> elements.
_FA_CDN = re.compile(r'<link rel="stylesheet"\s+href="https://maxcdn\.bootstrapcdn\.com/font-awesome/[^"]*">\s*')
_FA_ICONS = {"fa fa-minus": "\u2212", "fa fa-fast-backward": "\u21e4", "fa fa-step-backward": "\u2039",
             "fa fa-play fa-flip-horizontal": "\u25c0", "fa fa-pause": "\u275a\u275a", "fa fa-play": "\u25b6",
             "fa fa-step-forward": "\u203a", "fa fa-fast-forward": "\u21e5", "fa fa-plus": "+"}
_FA_ICON = re.compile(r'<i class="(%s)"></i>' % "|".join(re.escape(k) for k in _FA_ICONS))


def _full_hashes() -> dict[str, str]:
    """The full SHA-256 of each stored full-profile figure, by file name (the glued note has its first 8)."""
    from mfattn.companion.manifest import read_manifest

    try:
        return {e["file"]: e["sha256"] for e in read_manifest("full").values() if "file" in e and "sha256" in e}
    except (OSError, ValueError):
        return {}


def provenance_html(body: str, pathto, hashes: dict[str, str]) -> str:
    """``body`` with each full-profile note rewritten: "<title> · Full profile, remade by ``command``", then a
    ``<details>`` "verify" (after the caption's paragraph) with the stored file, its SHA-256, the machine, the
    time and the commit."""
    def sub(m):
        g = {k: (v or "") for k, v in m.groupdict().items()}
        full = hashes.get(html.unescape(g["file"]), "")
        sha = full if full.startswith(g["sha"]) else g["sha"]
        title = f"{g['title']}. " if g["title"] else ""
        href = pathto(f"figures/full/{html.unescape(g['file'])}", 1)
        line = (f'<span class="pasted-text mfattn-prov">{title}Full profile · remade by '
                f'<code class="docutils literal notranslate">{g["cmd"]}</code></span>')
        verify = (f'<details class="mfattn-verify"><summary>verify: file, SHA-256, commit</summary><p>'
                  f'<a href="{html.escape(href)}">data/full/figures/{g["file"]}</a>, SHA-256 <code>{sha}</code>; '
                  f'computed on {g["device"]} in {g["secs"]} s at commit <code>{g["commit"]}</code>{g["dirty"]}. '
                  f'Check it with <code>sha256sum data/full/figures/{g["file"]}</code>.</p></details>')
        return line + g["rest"] + verify
    return _PROVENANCE.sub(sub, body)


def _page_context(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if isinstance(scripts, list):
        seen, unique = set(), []
        for js in scripts:
            key = (js.filename or "", js.priority, tuple(sorted((k, str(v)) for k, v in js.attributes.items())))
            if key not in seen:
                seen.add(key)
                unique.append(js)
        scripts[:] = unique
    body = context.get("body")
    if body:
        if "pasted-text" in body and "data/full/figures/" in body:
            if not hasattr(app, "mfattn_hashes"):
                app.mfattn_hashes = _full_hashes()
            body = provenance_html(body, context["pathto"], app.mfattn_hashes)
        if "maxcdn.bootstrapcdn.com/font-awesome" in body:
            body = _FA_ICON.sub(lambda m: f'<span class="mfattn-icon" aria-hidden="true">{_FA_ICONS[m.group(1)]}</span>',
                                _FA_CDN.sub("", body))
        context["body"] = body


#: Pages that gather what the chapters record (the ledgers, the figure manifest): Sphinx cannot see that they
#: depend on those files, so an incremental build re-reads (and, being force-executed, re-runs) them every time.
GATHERING_PAGES = ("book/report", "book/figures", "book/citing")


def _reread_gathering_pages(app, env, added, changed, removed):
    return [name for name in GATHERING_PAGES if name in env.found_docs]


def _digest() -> str:
    """A digest of this extension and its static files: a config value of the HTML builder, so that a change to
    how pages are written rewrites every page (an incremental build otherwise keeps the pages it wrote before)."""
    h = hashlib.sha256()
    here = Path(__file__).resolve()
    for path in sorted([here, *here.with_name("static").rglob("*")]):
        if path.is_file():
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def setup(app):
    _register_author_year_style()
    app.add_config_value("mfattn_book_digest", _digest(), "html")
    app.connect("env-get-outdated", _reread_gathering_pages)
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _add_style)
    app.connect("build-finished", _build_finished)
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
