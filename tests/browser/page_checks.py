"""The measurements tests/browser/check_book.py takes inside a page (JavaScript run by the browser).

Why in the page: whether an equation is cut depends on the layout after styles, fonts and MathJax ran, which only
the browser knows; the Python side only compares what these functions return.
"""

from __future__ import annotations

import json

#: Every element of the text column that shows content a reader must see whole, checked against each box around
#: it up to the column: a box that scrolls must let the content be scrolled into view (a formula whose end lies
#: beyond the box's scroll range is cut although the box has a scrollbar); a box that clips (overflow hidden) must
#: hold it; the column must hold it. Returns one line per cut element (the outermost one), and one for a page wider
#: than the screen.
CUT_JS = r"""() => {
  const col = document.querySelector('.bd-article') || document.querySelector('main') || document.body;
  const out = [];
  const W = document.documentElement.clientWidth, SW = document.scrollingElement.scrollWidth;
  if (SW > W + 1) out.push(`the page is ${SW} px wide on a ${W} px screen (it scrolls sideways)`);
  const tag = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : (typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/).slice(0, 2).join('.') : ''));
  const name = el => {
    const sec = el.closest('section[id]');
    const text = (el.textContent || el.getAttribute('alt') || el.getAttribute('src') || '').trim().replace(/\s+/g, ' ');
    return `${tag(el)} in #${sec ? sec.id : '?'} "${text.slice(0, 50)}"`;
  };
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1;
  const reported = [];
  const sel = 'mjx-container, table, img, svg, pre, video, canvas, iframe, figure, .cell_output, .output, p, li, dt, dd, ' +
              'blockquote, h1, h2, h3, h4, .sd-card, details, .mfattn-filters';
  for (const el of col.querySelectorAll(sel)) {
    if (el.parentElement && el.parentElement.closest('mjx-container')) continue;   // MathJax's own inner parts
    const r0 = el.getBoundingClientRect();
    if (r0.width < 1 || r0.height < 1) continue;                                   // hidden (a closed claim, ...)
    if (reported.some(p => p.contains(el))) continue;
    const closed = el.parentElement && el.parentElement.closest('details:not([open])');   // folded away: not shown
    if (closed && !(closed.querySelector(':scope > summary') || closed).contains(el)) continue;
    let problem = null;
    if (el.tagName === 'MJX-CONTAINER') {                                           // the formula inside its own box
      const m = el.querySelector('mjx-math');
      const s = getComputedStyle(el);
      if (m) {
        const mr = m.getBoundingClientRect();
        const scrolls = s.overflowX === 'auto' || s.overflowX === 'scroll';
        const left = mr.left - r0.left + el.scrollLeft, right = mr.right - r0.left + el.scrollLeft;
        if (scrolls && (left < -1 || right > el.scrollWidth + 1)) problem = 'formula cut inside its scrolling box';
        else if (!scrolls && !inside(mr, r0) && s.display !== 'inline' && s.display !== 'inline-block')
          problem = 'formula wider than its box, which does not scroll';
      }
    }
    let cur = r0;
    for (let box = el.parentElement; !problem && box; box = box.parentElement) {
      const s = getComputedStyle(box), br = box.getBoundingClientRect();
      if (s.overflowX === 'auto' || s.overflowX === 'scroll') {
        const left = cur.left - br.left + box.scrollLeft, right = cur.right - br.left + box.scrollLeft;
        if (left < -1 || right > box.scrollWidth + 1) problem = `cut inside the scrolling box ${tag(box)}`;
        cur = br;                                                                  // what shows is the box
      } else if ((s.overflowX === 'hidden' || s.overflowX === 'clip') && !inside(cur, br)) {
        problem = `cut by ${tag(box)} (${Math.round(cur.width)} px in ${Math.round(br.width)} px, no scrollbar)`;
      }
      if (box === col) {
        if (!problem && !inside(cur, br))
          problem = `wider than the text column (${Math.round(cur.right - br.left)} px in ${Math.round(br.width)} px)`;
        break;
      }
    }
    if (problem) { out.push(`${name(el)}: ${problem}`); reported.push(el); }
  }
  return out.slice(0, 40);
}"""

#: The report's table as a reader sees it: the filter bar, the count's words against the rows shown, which rows
#: contradict a chosen filter, each filter's values, where the first row starts, and the claims' anchors.
REPORT_STATE_JS = r"""() => {
  const t = document.querySelector('table#mfattn-claims');
  if (!t) return {found: false};
  const vis = el => { if (!el) return false; const r = el.getBoundingClientRect();
                      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  const bar = document.querySelector('.mfattn-filters');
  const controls = bar ? [...bar.querySelectorAll('select, input')] : [];
  const selects = controls.filter(c => c.tagName === 'SELECT');
  const top = el => el.getBoundingClientRect().top + window.scrollY;
  const filtersVisible = vis(bar) && selects.length >= 4 && controls.length >= 5 && controls.every(vis)
      && controls.every(c => top(c) + c.getBoundingClientRect().height <= window.innerHeight);
  const rows = [...t.tBodies[0].rows];
  const shown = rows.filter(vis);
  const count = (document.querySelector('.mfattn-count') || {textContent: ''}).textContent.trim();
  const of = count.match(/(\d+) of (\d+)/), all = count.match(/all (\d+)/), none = /^No claim/.test(count);
  const said = of ? +of[1] : all ? +all[1] : none ? 0 : null;
  const countAgrees = said === shown.length && (!of || +of[2] === rows.length) && (!all || +all[1] === rows.length);
  const wrongRows = shown.filter(r => selects.some(c => c.value && r.dataset[c.dataset.filter] !== c.value)).length;
  const options = Object.fromEntries(selects.map(c => [c.dataset.filter, [...c.options].map(o => o.value).filter(v => v)]));
  const pen = document.createElement('canvas').getContext('2d');
  const cutOptions = selects.flatMap(s => {            // a drop-down too narrow for one of its values shows it cut
    const cs = getComputedStyle(s);
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16;   // 16: the arrow
    return [...s.options].filter(o => pen.measureText(o.text).width > room).map(o => `${s.dataset.filter}: ${o.text}`);
  });
  const claimIds = rows.map(r => r.querySelector('a[href^="#claim-"]')).filter(Boolean).map(a => a.getAttribute('href').slice(1));
  return {found: true, filtersVisible, cutOptions, count, visible: shown.length, total: rows.length, countAgrees, wrongRows, options,
          firstRowTop: shown.length ? Math.round(top(shown[0])) : null, claimIds};
}"""


#: After a scroll down and a little back up (when the theme shows its "back to top" button), the text the button
#: covers, if it shows: "" when it is hidden or covers nothing.
BACK_TO_TOP_JS = r"""async () => {
  window.scrollTo(0, Math.min(3000, document.body.scrollHeight / 2));
  await new Promise(r => setTimeout(r, 100));
  window.scrollBy(0, -200);
  await new Promise(r => setTimeout(r, 300));
  const b = document.getElementById('pst-back-to-top');
  if (!b || getComputedStyle(b).display === 'none') return '';
  const r = b.getBoundingClientRect();
  if (r.width === 0) return '';
  for (const el of document.querySelectorAll('.bd-article p, .bd-article li, .bd-article h1, .bd-article h2, .bd-article h3, .bd-article figure, .bd-article table, .bd-article mjx-container')) {
    const q = el.getBoundingClientRect();
    if (q.right > r.left && q.left < r.right && q.bottom > r.top && q.top < r.bottom)
      return `${el.tagName.toLowerCase()} "${(el.textContent || '').trim().slice(0, 40)}"`;
  }
  return '';
}"""


def anchor_state_js(claim_id: str) -> str:
    """Whether the claim ``claim_id`` is open, highlighted, and shown below the page's sticky header."""
    return r"""() => {
      const el = document.getElementById(%s);
      if (!el) return {open: false, highlighted: false, top: null};
      const d = el.tagName === 'DETAILS' ? el : el.querySelector('details') || el.closest('details');
      const header = document.querySelector('.bd-header');
      const below = header && getComputedStyle(header).position !== 'static' ? header.getBoundingClientRect().bottom : 0;
      const top = Math.round(el.getBoundingClientRect().top);
      return {open: !!(d && d.open), highlighted: !!(el.classList.contains('mfattn-target') || (d && d.classList.contains('mfattn-target'))),
              top: top >= below - 1 ? top : -1};
    }""" % json.dumps(claim_id)
