"""Open every page of the built book in Chromium, as a reader would, at a desktop and a phone width, offline.

Why: the unit tests read the HTML as text; what a reader meets is the page after its scripts, styles and MathJax
ran, at their screen's width. This check loads each ``*.html`` of ``_build/html`` (served on localhost) at 1280 and
390 px with every request that leaves the machine blocked (the book must work offline), and fails on

- an error in the console or an uncaught script error, a request off the machine, a local file that fails to load;
- cut content: an equation, table, figure or code block wider than the text column with no scrollable box around
  it (or cut inside its own box), or a page wider than the screen, checked as the page opens and again with every
  folded block (``<details>``: a claim, a figure's "verify") open;
- a local link or anchor that leads nowhere (read from the HTML files themselves, once); a "back to top" button on
  the text;
- on the Reproduction report: filters or search that are not visible without a click, a filter too narrow for its
  values, a first claim below the first screen, a count that disagrees with the rows shown (checked after choosing
  each filter and after a search), and a claim anchor (``report.html#claim-<id>``) that does not open and mark
  its claim, on load (a chapter's link) and on a click in the table.

Usage: ``python tests/browser/check_book.py [_build/html] [--screens DIR] [--pages report 06_dmft]``. Without the
``playwright`` package or a Chromium (``$MFATTN_CHROMIUM``, else ``chromium`` / ``chromium-browser`` /
``google-chrome`` on the PATH) it says it was skipped and exits 0: CI machines without a browser still pass.
Playwright drives the system's Chromium; it never downloads a browser.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import shutil
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
#: The widths a reader uses (a laptop, a phone) and the height of their first screen.
VIEWPORTS = {1280: 800, 390: 844}
sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_checks import BACK_TO_TOP_JS, CUT_JS, REPORT_STATE_JS, anchor_state_js  # noqa: E402


def find_chromium() -> str | None:
    """The Chromium to drive: ``$MFATTN_CHROMIUM``, else the first browser of that family on the PATH."""
    env = os.environ.get("MFATTN_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def book_pages(site: Path, redirects: bool = False) -> list[Path]:
    """The pages a reader opens (not the theme's templates under ``_static``, nor the page sources); a page that
    only forwards the reader (``index.html``) only with ``redirects`` (its target is checked as a link)."""
    return sorted(p for p in site.rglob("*.html") if not p.relative_to(site).parts[0].startswith("_")
                  and (redirects or 'http-equiv="Refresh"' not in p.read_text(encoding="utf-8", errors="replace")[:2000]))


# --- links and anchors, read from the files ---------------------------------------------------------------------
class _Refs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh" and "url=" in (a.get("content") or ""):
            self.refs.append(a["content"].split("url=", 1)[1].strip())
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "img", "link", "script", "source", "iframe"):
                self.refs.append(a[key])


def broken_links(site: Path) -> list[str]:
    """``page: link`` for every local link whose file is missing or whose anchor is not an id of its page."""
    parsed: dict[Path, _Refs] = {}

    def parse(path: Path) -> _Refs:
        if path not in parsed:
            p = _Refs()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = p
        return parsed[path]

    bad = []
    for page in book_pages(site, redirects=True):
        for ref in parse(page).refs:
            parts = urlsplit(ref)
            if parts.scheme or parts.netloc or ref == "#":    # off the machine (blocked in the browser), or no target
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                bad.append(f"{page.relative_to(site)}: {ref} (no such file)")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in parse(target).ids:
                bad.append(f"{page.relative_to(site)}: {ref} (no such anchor)")
    return bad


# --- the browser -----------------------------------------------------------------------------------------------
class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _settle(page) -> None:
    """Wait until MathJax has typeset the page and the fonts are in (layout is final); a page that forwards the
    reader (the book's index.html) is measured where it lands."""
    for _ in range(3):
        try:
            return _settle_once(page)
        except Exception as exc:      # noqa: BLE001 (playwright's Error: the context went on to another page)
            if "navigation" not in str(exc):
                raise
            page.wait_for_load_state("load")


def _settle_once(page) -> None:
    page.evaluate("""async () => {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
        if (document.fonts) { await document.fonts.ready; }
    }""")
    page.wait_for_timeout(200)


def check_report(page, base: str, width: int, height: int) -> list[str]:
    """The report's filters, count, first screen and claim anchors at this width."""
    bad = []
    state = page.evaluate(REPORT_STATE_JS)
    if not state["found"]:
        return ["the report has no claims table"]
    if not state["filtersVisible"]:
        bad.append("the filters and search are not all visible on load")
    if state["cutOptions"]:
        bad.append(f"filter values cut by their drop-down: {state['cutOptions']}")
    if state["firstRowTop"] is None or state["firstRowTop"] > height:
        bad.append(f"the first claim starts at {state['firstRowTop']} px, below the first screen ({height} px)")
    if not state["countAgrees"]:
        bad.append(f"on load the count says {state['count']!r} but {state['visible']} rows show")
    if not state["options"] or not page.locator("input.mfattn-search").count():
        return bad + ["the report has no filter bar (selects with data-filter, input.mfattn-search)"]
    for key, values in state["options"].items():
        for value in values:
            page.select_option(f"select[data-filter='{key}']", value)
            s = page.evaluate(REPORT_STATE_JS)
            if not s["countAgrees"] or s["visible"] == 0 or s["wrongRows"]:
                bad.append(f"filter {key} = {value!r}: count {s['count']!r}, {s['visible']} rows shown, "
                           f"{s['wrongRows']} of another {key}")
        page.select_option(f"select[data-filter='{key}']", "")
    page.fill("input.mfattn-search", "MNIST")
    s = page.evaluate(REPORT_STATE_JS)
    if not s["countAgrees"] or not 0 < s["visible"] < s["total"]:
        bad.append(f"search 'MNIST': count {s['count']!r}, {s['visible']} rows shown of {s['total']}")
    page.fill("input.mfattn-search", "")
    ids = state["claimIds"]
    for claim_id in [ids[0], ids[len(ids) // 2], ids[-1]] if ids else []:   # a chapter's link: the page loads
        fresh = page.context.new_page()
        fresh.goto(f"{base}/book/report.html#{claim_id}", wait_until="load")
        _settle(fresh)
        fresh.wait_for_timeout(300)
        a = fresh.evaluate(anchor_state_js(claim_id))
        fresh.close()
        if not (a["open"] and a["highlighted"] and a["top"] is not None and 0 <= a["top"] < height):
            bad.append(f"#{claim_id}: open {a['open']}, highlighted {a['highlighted']}, top at {a['top']} px")
    if ids:   # the table's link to a claim's full entry opens it too (same page: a hash change)
        page.goto(f"{base}/book/report.html")
        _settle(page)
        page.evaluate(f"document.querySelector('#mfattn-claims a[href=\"#{ids[1]}\"]').click()")
        page.wait_for_timeout(300)
        a = page.evaluate(anchor_state_js(ids[1]))
        if not (a["open"] and a["highlighted"] and a["top"] is not None and 0 <= a["top"] < height):
            bad.append(f"the table's link to #{ids[1]}: open {a['open']}, highlighted {a['highlighted']}, top {a['top']}")
    return bad


def run(site: Path, pages: list[str], screens: Path | None) -> int:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("browser check skipped: the playwright package is not installed (pip install -e '.[test]')")
        return 0
    chromium = find_chromium()
    if chromium is None:
        print("browser check skipped: no Chromium found (set $MFATTN_CHROMIUM or install chromium)")
        return 0
    files = [p for p in book_pages(site) if not pages or any(k in p.name for k in pages)]
    failures: list[str] = [f"link {b}" for b in broken_links(site)]
    server, base = serve(site)
    checked = 0
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            for width, height in VIEWPORTS.items():
                context = browser.new_context(viewport={"width": width, "height": height},
                                              is_mobile=width < 600, has_touch=width < 600)
                blocked: list[str] = []

                def off_machine(url: str) -> bool:
                    return not url.startswith("data:") and urlsplit(url).hostname not in ("127.0.0.1", "localhost")

                def block(r, request, blocked=blocked):
                    blocked.append(request.url)
                    try:
                        r.abort()
                    except Exception:   # the page closed meanwhile
                        pass

                context.route(off_machine, block)   # local requests never pass through Python
                context.set_default_timeout(90_000)
                for path in files:
                    rel = path.relative_to(site).as_posix()
                    page = context.new_page()
                    errors: list[str] = []
                    page.on("console", lambda m, e=errors: e.append(m.text) if m.type == "error" else None)
                    page.on("pageerror", lambda exc, e=errors: e.append(f"uncaught: {exc}"))
                    page.on("requestfailed", lambda r, e=errors: e.append(f"failed to load {r.url}")
                            if urlsplit(r.url).hostname == "127.0.0.1" else None)
                    del blocked[:]
                    page.goto(f"{base}/{rel}", wait_until="load")
                    _settle(page)
                    here = [f"{rel} @ {width}px: console: {e}" for e in errors]
                    here += [f"{rel} @ {width}px: request off the machine: {u}" for u in sorted(set(blocked))]
                    cut = page.evaluate(CUT_JS)
                    # ... and with every folded block open (a claim, a figure's "verify", a dropdown)
                    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
                    page.wait_for_timeout(300)
                    cut += [f"{c} (once opened)" for c in page.evaluate(CUT_JS) if c not in cut]
                    here += [f"{rel} @ {width}px: cut: {c}" for c in cut]
                    covered = page.evaluate(BACK_TO_TOP_JS)
                    if covered:
                        here.append(f"{rel} @ {width}px: the 'back to top' button covers {covered}")
                    if rel == "book/report.html":   # the report as it opens, its claims folded
                        page.goto(f"{base}/{rel}", wait_until="load")
                        _settle(page)
                        here += [f"{rel} @ {width}px: report: {c}" for c in check_report(page, base, width, height)]
                    if screens is not None and (rel == "book/report.html" or "06_dmft" in rel):
                        screens.mkdir(parents=True, exist_ok=True)
                        page.goto(f"{base}/{rel}", wait_until="load")
                        _settle(page)
                        page.screenshot(path=str(screens / f"{path.stem}-{width}.png"))
                    failures += here
                    checked += 1
                    print(f"{'FAIL' if here else 'ok  '} {rel} @ {width}px", *[f"\n  {h}" for h in here], flush=True)
                    page.close()
                context.close()
            browser.close()
    finally:
        server.shutdown()
    print(f"browser check: {checked} page views ({len(files)} pages x {len(VIEWPORTS)} widths), "
          f"{len(failures)} failures")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", nargs="?", default=str(ROOT / "_build" / "html"), help="the built HTML (default: %(default)s)")
    ap.add_argument("--pages", nargs="*", default=[], help="only pages whose file name contains one of these")
    ap.add_argument("--screens", help="save first-screen screenshots of the report and chapter 6 here")
    args = ap.parse_args(argv)
    site = Path(args.site).resolve()
    if not (site / "index.html").is_file():
        print(f"browser check: no built book in {site} (build it with `bash .ci/book`)")
        return 1
    return run(site, args.pages, Path(args.screens) if args.screens else None)


if __name__ == "__main__":
    sys.exit(main())
