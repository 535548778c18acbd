/* mfattn book: small reader aids on every page (loaded by book/_ext/mfattn_book.py). No network, no library.
 *
 * 1. An anchor that names a collapsed block (a claim's dropdown on the Reproduction report, #claim-<id>) opens it,
 *    marks it (class mfattn-target: an outline) and brings it below the sticky header: a reader who follows a
 *    chapter's link to a claim sees that claim, open, where the page lands. Works on load and on every later
 *    change of the hash (the report's table links to the claims below it).
 * 2. A figure opens full size when tapped or clicked (a scrollable overlay; Escape, a tap or the close button
 *    closes it): the four-panel figures keep readable axis labels on a phone's screen.
 */
(function () {
  "use strict";

  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (!el) return;
    var box = el.tagName === "DETAILS" ? el : el.querySelector("details") || el.closest("details");
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
    if (box) box.open = true;
    document.querySelectorAll(".mfattn-target").forEach(function (old) { old.classList.remove("mfattn-target"); });
    (box || el).classList.add("mfattn-target");
    // After MathJax and the theme settle the layout, land on the target again (opening it can move the page).
    var land = function () { el.scrollIntoView({block: "start"}); };
    land();
    window.setTimeout(land, 120);
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(land);
  }

  function zoom(img) {
    var layer = document.createElement("div");
    layer.className = "mfattn-zoom";
    layer.setAttribute("role", "dialog");
    layer.setAttribute("aria-label", "The figure at full size");
    var close = document.createElement("button");
    close.type = "button";
    close.className = "mfattn-zoom-close";
    close.textContent = "Close \u2715";
    var big = document.createElement("img");
    big.src = img.currentSrc || img.src;
    big.alt = img.alt || "";
    layer.appendChild(close);
    layer.appendChild(big);
    var shut = function () {
      layer.remove();
      document.removeEventListener("keydown", onKey);
    };
    var onKey = function (ev) { if (ev.key === "Escape") shut(); };
    close.addEventListener("click", shut);
    layer.addEventListener("click", function (ev) { if (ev.target === layer) shut(); });
    document.addEventListener("keydown", onKey);
    document.body.appendChild(layer);
    close.focus();
  }

  function zoomable() {
    document.querySelectorAll(".bd-article figure img, .bd-article .cell_output img").forEach(function (img) {
      if (img.closest("a") || img.closest(".animation")) return;   // a linked image keeps its link; a movie plays
      img.classList.add("mfattn-zoomable");
      img.setAttribute("tabindex", "0");
      img.setAttribute("title", "Open the figure at full size");
      img.addEventListener("click", function () { zoom(img); });
      img.addEventListener("keydown", function (ev) { if (ev.key === "Enter") zoom(img); });
    });
  }

  document.addEventListener("click", function (ev) {
    // A link to the anchor already in the address bar changes no hash: open its target all the same.
    var a = ev.target.closest && ev.target.closest("a[href^='#']");
    if (a && a.getAttribute("href") === window.location.hash) window.setTimeout(openTarget, 0);
  });
  window.addEventListener("hashchange", openTarget);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { zoomable(); openTarget(); });
  } else {
    zoomable();
    openTarget();
  }
})();
