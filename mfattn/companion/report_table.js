/* The Reproduction report's filter bar (mfattn/companion/report_table.py writes this into the page).
   Each drop-down keeps the rows whose value it names; the search keeps the rows that hold every word typed;
   the count says how many rows show, of how many. Rows are hidden, never paged: what the count says is what
   the table shows. */
(function () {
  "use strict";
  var box = document.getElementById("__TABLE_ID__-box");
  if (!box || box.dataset.ready) return;
  box.dataset.ready = "1";
  var form = box.querySelector(".mfattn-filters");
  var count = box.querySelector(".mfattn-count");
  var rows = Array.prototype.slice.call(box.querySelectorAll("tbody > tr"));
  var selects = Array.prototype.slice.call(form.querySelectorAll("select"));
  var search = form.querySelector("input.mfattn-search");
  var words = rows.map(function (r) { return r.textContent.toLowerCase(); });

  function update() {
    var wanted = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    rows.forEach(function (row, i) {
      var keep = selects.every(function (s) { return !s.value || row.dataset[s.dataset.filter] === s.value; }) &&
        wanted.every(function (w) { return words[i].indexOf(w) >= 0; });
      row.hidden = !keep;
      if (keep) shown += 1;
    });
    count.textContent = shown === rows.length ? "Showing all " + shown + " claims"
      : shown ? "Showing " + shown + " of " + rows.length + " claims"
      : "No claim matches (0 of " + rows.length + "): clear a filter or the search";
  }

  form.hidden = false;
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("reset", function () { window.setTimeout(update, 0); });
  form.addEventListener("submit", function (ev) { ev.preventDefault(); });
  update();
})();
