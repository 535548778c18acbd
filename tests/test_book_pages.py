"""What the book's Sphinx extension (book/_ext/mfattn_book.py) does to a page before it is written: each script
once (a script declared twice is an error on every page), a full-profile figure's provenance as a sentence with
the file, SHA-256 and commit one click away, and matplotlib's animation without an icon font from a CDN. The pages
in a browser: tests/browser/check_book.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
NOTE = ('<p><span class="caption-text">Full profile: the planes. <span class="pasted-text">Fig. 4 at the paper\'s '
        "run length: data/full/figures/fig-x.png, sha256 d1ce1432, computed on AMD EPYC in 285 s at commit 82da23f2; "
        'remade by python -m mfattn reproduce --profile full --chapter dmft</span></span><a class="headerlink" '
        'href="#fig-x-full">#</a></p>\n</figcaption>')


def _extension():
    spec = importlib.util.spec_from_file_location("mfattn_book_ext_pages", ROOT / "book" / "_ext" / "mfattn_book.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_full_profile_note_reads_as_a_sentence_with_verify_one_click_away():
    ext = _extension()
    page = ext.provenance_html(NOTE, lambda path, resource: "../" + path, {"fig-x.png": "d1ce1432" + "0" * 56})
    line, rest = page.split("</p>", 1)
    assert "Fig. 4 at the paper's run length. Full profile · remade by <code" in line
    assert "python -m mfattn reproduce --profile full --chapter dmft</code>" in line
    assert "sha256" not in line and "82da23f2" not in line                    # no hash or commit in the sentence
    assert rest.startswith('<details class="mfattn-verify"><summary>verify')   # ... they are one click away
    assert 'href="../figures/full/fig-x.png"' in rest and "d1ce1432" + "0" * 56 in rest and "82da23f2" in rest
    assert rest.rstrip().endswith("</details>\n</figcaption>")
    other = ext.provenance_html(NOTE, lambda path, resource: path, {"fig-x.png": "ffff" * 16})   # another file now
    assert "<code>d1ce1432</code>" in other                                      # the note's own hash stays


def test_each_script_is_written_once_and_the_animation_needs_no_cdn():
    ext = _extension()
    from sphinx.builders.html._assets import _JavaScript

    thebe = "const THEBE_JS_URL = 'x'"
    scripts = [_JavaScript(None, body=thebe), _JavaScript("a.js"), _JavaScript("", body=thebe), _JavaScript("a.js")]
    body = ('<link rel="stylesheet"\nhref="https://maxcdn.bootstrapcdn.com/font-awesome/4.4.0/css/font-awesome.min.css">'
            '<button aria-label="Play"><i class="fa fa-play"></i></button>'
            '<button aria-label="Back"><i class="fa fa-play fa-flip-horizontal"></i></button>')
    context = {"script_files": scripts, "body": body, "pathto": lambda p, r=0: p}
    app = SimpleNamespace()
    ext._page_context(app, "book/x", "page.html", context, None)
    assert len(context["script_files"]) == 2                                  # the body once, a.js once
    assert sum(1 for js in context["script_files"] if thebe in str(js.attributes.get("body", ""))) == 1
    assert "maxcdn" not in context["body"] and "fa fa-" not in context["body"]
    assert context["body"].count('class="mfattn-icon"') == 2 and "\u25b6" in context["body"]
