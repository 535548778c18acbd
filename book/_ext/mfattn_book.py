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
4. A small style sheet (``book/_ext/static/mfattn.css``): printed outputs wrap instead of being cut at
   the column's right edge; wide display equations scroll inside the column.
"""

from __future__ import annotations

import os
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


#: Pages that gather what the chapters record (the ledgers, the figure manifest): Sphinx cannot see that they
#: depend on those files, so an incremental build re-reads (and, being force-executed, re-runs) them every time.
GATHERING_PAGES = ("book/report", "book/figures", "book/citing")


def _reread_gathering_pages(app, env, added, changed, removed):
    return [name for name in GATHERING_PAGES if name in env.found_docs]


def setup(app):
    _register_author_year_style()
    app.connect("env-get-outdated", _reread_gathering_pages)
    app.connect("config-inited", _config_inited)
    app.connect("builder-inited", _add_style)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
