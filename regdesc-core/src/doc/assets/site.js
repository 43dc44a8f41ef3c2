// regdesc doc: the search box and the on-demand register details.
// Static data comes from assets/search-index.js (REGDESC_SEARCH) and, on
// register pages, assets/regs-data.js (REGDESC_UNITS) and the page's
// #group-data JSON. No network access; works from file://.
(function () {
  "use strict";
  var root = document.body.getAttribute("data-root") || "";
  var KINDS = [["classes", "class"], ["indices", "index"], ["regs", "register"]];
  var LIMIT = 50;

  function link(href, text) {
    var a = document.createElement("a");
    a.href = root + href;
    a.textContent = text;
    return a;
  }

  // ---- search ------------------------------------------------------------
  function search(q) {
    var data = window.REGDESC_SEARCH;
    var hits = [];
    if (!data) return hits;
    for (var k = 0; k < KINDS.length; k++) {
      var list = data[KINDS[k][0]] || [];
      for (var i = 0; i < list.length; i++) {
        var name = list[i][0].toLowerCase();
        var at = name.indexOf(q);
        if (at < 0) continue;
        var rank = name === q ? 0 : at === 0 ? 1 : 2;
        hits.push([rank, k, i, list[i][0], list[i][1], KINDS[k][1]]);
      }
    }
    hits.sort(function (a, b) {
      return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
    });
    return hits;
  }

  function showResults(input, results) {
    var q = input.value.trim().toLowerCase();
    while (results.firstChild) results.removeChild(results.firstChild);
    if (!q) {
      results.hidden = true;
      return;
    }
    var hits = search(q);
    for (var i = 0; i < hits.length && i < LIMIT; i++) {
      var li = document.createElement("li");
      li.className = "hit";
      li.setAttribute("data-name", hits[i][3]);
      li.setAttribute("data-kind", hits[i][5]);
      li.appendChild(link(hits[i][4], hits[i][3]));
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = hits[i][5];
      li.appendChild(kind);
      results.appendChild(li);
    }
    var more = document.createElement("li");
    more.className = "more";
    more.textContent =
      hits.length === 0 ? "no match" : hits.length > LIMIT ? hits.length - LIMIT + " more" : "";
    if (more.textContent) results.appendChild(more);
    results.hidden = false;
  }

  var input = document.getElementById("search");
  var results = document.getElementById("search-results");
  if (input && results) {
    ["input", "change", "search"].forEach(function (ev) {
      input.addEventListener(ev, function () {
        showResults(input, results);
      });
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Enter") {
        var first = results.querySelector("li.hit a");
        if (first) window.location.href = first.href;
      } else if (e.key === "Escape") {
        input.value = "";
        showResults(input, results);
      }
    });
    if (input.value) showResults(input, results);
  }

  // ---- register details ----------------------------------------------------
  var groupEl = document.getElementById("group-data");
  if (!groupEl) return;
  var group;
  try {
    group = JSON.parse(groupEl.textContent);
  } catch (e) {
    return;
  }
  // Unpack: a number for sub-registers means "the previous register's,
  // each that many ids further"; null lanes mean "the previous register's".
  for (var g = 1; g < group.regs.length; g++) {
    if (typeof group.subs[g] === "number") {
      var prev = group.subs[g - 1] || [];
      var shifted = [];
      for (var q = 0; q + 1 < prev.length; q += 2) shifted.push(prev[q], prev[q + 1] + group.subs[g]);
      group.subs[g] = shifted;
    }
    if (group.lanes[g] === null) group.lanes[g] = group.lanes[g - 1];
  }
  var names = (window.REGDESC_SEARCH && window.REGDESC_SEARCH.regs) || [];
  var indices = (window.REGDESC_SEARCH && window.REGDESC_SEARCH.indices) || [];
  var unitRegs = null;

  function regLink(r) {
    return names[r] ? link(names[r][1], names[r][0]) : document.createTextNode("#" + r);
  }

  function aliases(r) {
    var units = window.REGDESC_UNITS;
    if (!units) return [];
    if (!unitRegs) {
      unitRegs = {};
      for (var i = 0; i < units.length; i++) {
        for (var j = 0; j < units[i].length; j++) {
          (unitRegs[units[i][j]] = unitRegs[units[i][j]] || []).push(i);
        }
      }
    }
    var seen = {};
    var out = [];
    var mine = units[r] || [];
    for (var u = 0; u < mine.length; u++) {
      var regs = unitRegs[mine[u]] || [];
      for (var k = 0; k < regs.length; k++) {
        if (regs[k] !== r && !seen[regs[k]]) {
          seen[regs[k]] = true;
          out.push(regs[k]);
        }
      }
    }
    return out.sort(function (a, b) {
      return a - b;
    });
  }

  function section(title, items) {
    var div = document.createElement("div");
    var h = document.createElement("h4");
    h.textContent = title + " (" + items.length + ")";
    div.appendChild(h);
    var ul = document.createElement("ul");
    ul.className = "inline";
    for (var i = 0; i < items.length; i++) ul.appendChild(items[i]);
    div.appendChild(ul);
    return div;
  }

  function fill(details) {
    var k = Number(details.getAttribute("data-k"));
    var r = group.regs[k];
    var box = details.querySelector(".more-body");
    if (!box || box.getAttribute("data-filled")) return;
    box.setAttribute("data-filled", "1");
    var subs = [];
    var pairs = group.subs[k] || [];
    for (var i = 0; i + 1 < pairs.length; i += 2) {
      var li = document.createElement("li");
      var idx = indices[pairs[i]];
      li.appendChild(idx ? link(idx[1], idx[0]) : document.createTextNode("?"));
      li.appendChild(document.createTextNode(" = "));
      li.appendChild(regLink(pairs[i + 1]));
      subs.push(li);
    }
    var supers = (group.supers[k] || []).map(function (s) {
      var li = document.createElement("li");
      li.appendChild(regLink(s));
      return li;
    });
    var al = aliases(r).map(function (s) {
      var li = document.createElement("li");
      li.appendChild(regLink(s));
      return li;
    });
    var units = (window.REGDESC_UNITS && window.REGDESC_UNITS[r]) || [];
    var masks = (group.lanes && group.lanes[k]) || [];
    var unitItems = units.map(function (u, j) {
      var li = document.createElement("li");
      var m = masks[j] || "";
      if (typeof m === "string") m = [m, m];
      li.textContent =
        "unit " + u + ": " + (m[0] || m[1] ? "0x" + (m[0] || "0") + " / 0x" + (m[1] || "0") : "whole register");
      return li;
    });
    box.appendChild(section("units, with their lane masks (llvm / coverage)", unitItems));
    box.appendChild(section("sub-registers", subs));
    box.appendChild(section("super-registers", supers));
    box.appendChild(section("aliases (registers sharing a unit)", al));
  }

  var all = document.querySelectorAll("details.reg-more");
  for (var d = 0; d < all.length; d++) {
    all[d].addEventListener("toggle", function (e) {
      if (e.target.open) fill(e.target);
    });
    if (all[d].open) fill(all[d]);
  }
  // Open the details of the register named in the URL.
  if (window.location.hash) {
    var target = document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    var more = target && target.querySelector("details.reg-more");
    if (more) {
      more.open = true;
      fill(more);
    }
  }
})();
