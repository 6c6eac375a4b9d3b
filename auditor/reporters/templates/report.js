// drift-audit HTML report: filters, search, grouping, paging and collapsing, all in the page.
// Every finding is an <article class="finding"> with data-kind, -severity, -status, -path,
// -symbol and -index; the script only shows, hides, regroups and opens them. Without script
// the page is complete, grouped by provider symbol (errors first). A large report (the
// server sets #findings' data-page-size) starts with its cards collapsed and shows a page of
// them at a time; each card's details are then in the JSON block #finding-bodies (HTML the
// server rendered and escaped with the same template), put in place when the card opens.
"use strict";
(() => {
  const controls = document.getElementById("controls");
  const list = document.getElementById("findings");
  if (!controls || !list) {
    return;
  }
  const RANK = { error: 0, warning: 1, info: 2 };
  const DIMS = ["kind", "severity", "status", "path"];
  const FIELD = { kind: "kind", severity: "severity", status: "status", file: "path" };
  const pageSize = Number(list.dataset.pageSize) || 0;
  const bodyBlock = document.getElementById("finding-bodies");
  const search = document.getElementById("search");
  const fileSelect = document.getElementById("filter-file");
  const shownCount = document.getElementById("shown-count");
  const empty = document.getElementById("empty");
  const more = document.getElementById("more");
  const moreNote = document.getElementById("more-note");
  const symbolOnly = document.getElementById("symbol-only");
  const matrixRows = new Map(
    Array.from(document.querySelectorAll("tr[data-row-for]"), (row) => [row.dataset.rowFor, row])
  );
  const records = Array.from(list.querySelectorAll("article.finding"), (card) => ({
    card,
    kind: card.dataset.kind,
    severity: card.dataset.severity,
    status: card.dataset.status,
    path: card.dataset.path,
    symbol: card.dataset.symbol,
    index: Number(card.dataset.index),
    rank: RANK[card.dataset.severity] ?? 3,
    match: true,
    shown: true,
  }));
  let ordered = records.slice(); // in page order: groups, then cards within a group
  let limit = pageSize || Infinity;
  let onlySymbol = "";
  const pinned = new Set(); // cards opened from a link: shown even beyond the page
  let bodies = null;
  let haystack = null;

  const ENTITIES = { "&lt;": "<", "&gt;": ">", "&#34;": '"', "&#39;": "'", "&quot;": '"', "&amp;": "&" };
  const plain = (markup) =>
    markup.replace(/<[^>]*>/g, " ").replace(/&(lt|gt|#34|#39|quot|amp);/g, (e) => ENTITIES[e]);
  const partsText = (card) =>
    Array.from(card.querySelectorAll(".labels, .message, .where, .finding-body"), (e) => e.textContent)
      .join("\n");
  function lazyBody(record) {
    if (!bodyBlock) {
      return "";
    }
    if (bodies === null) {
      bodies = JSON.parse(bodyBlock.textContent);
    }
    return bodies[record.index] || "";
  }
  // The text a search looks in, per card: its header and its details (loaded or not).
  function texts() {
    if (haystack === null) {
      haystack = records.map((r) => {
        const lazy = r.card.querySelector(".finding-body[data-lazy]");
        return (partsText(r.card) + (lazy ? "\n" + plain(lazyBody(r)) : "")).toLowerCase();
      });
    }
    return haystack;
  }
  function fill(record) {
    const body = record.card.querySelector(".finding-body[data-lazy]");
    if (body) {
      body.insertAdjacentHTML("afterend", lazyBody(record));
      body.remove();
    }
  }

  const checkedValues = (name) =>
    new Set(Array.from(controls.querySelectorAll(`input[name="${name}"]:checked`), (i) => i.value));

  function readState() {
    return {
      kind: checkedValues("kind"),
      severity: checkedValues("severity"),
      status: checkedValues("status"),
      path: fileSelect.value,
      terms: search.value.toLowerCase().split(/\s+/).filter(Boolean),
    };
  }

  const fails = (record, dim, state) =>
    dim === "path" ? Boolean(state.path) && record.path !== state.path : !state[dim].has(record[dim]);

  // One pass: which cards match, and each facet's count under the other filters.
  function tally(state) {
    const counts = { kind: new Map(), severity: new Map(), status: new Map(), path: new Map() };
    const bump = (dim, value) => counts[dim].set(value, (counts[dim].get(value) || 0) + 1);
    let allFiles = 0;
    const text = state.terms.length ? texts() : null;
    records.forEach((r, i) => {
      r.match = false;
      if (onlySymbol && r.symbol !== onlySymbol) {
        return;
      }
      if (text && !state.terms.every((term) => text[i].includes(term))) {
        return;
      }
      const failed = DIMS.filter((dim) => fails(r, dim, state));
      if (failed.length === 0) {
        r.match = true;
        DIMS.forEach((dim) => bump(dim, r[dim]));
        allFiles += 1;
      } else if (failed.length === 1) {
        bump(failed[0], r[failed[0]]);
        if (failed[0] === "path") {
          allFiles += 1;
        }
      }
    });
    return { counts, allFiles };
  }

  const setText = (el, text) => {
    if (el.textContent !== text) {
      el.textContent = text;
    }
  };

  function apply() {
    const state = readState();
    const { counts, allFiles } = tally(state);
    let matches = 0;
    let shown = 0;
    for (const r of ordered) {
      if (r.match) {
        matches += 1;
      }
      const show = r.match && (matches <= limit || pinned.has(r.card));
      if (show) {
        shown += 1;
      }
      if (show !== r.shown) {
        r.card.classList.toggle("filtered-out", !show);
        r.shown = show;
      }
      const row = matrixRows.get(r.card.id);
      if (row) {
        row.classList.toggle("filtered-out", !r.match);
      }
    }
    for (const el of controls.querySelectorAll("[data-count]")) {
      setText(el, String(counts[FIELD[el.dataset.count]].get(el.dataset.value) || 0));
    }
    for (const option of fileSelect.options) {
      const n = option.value ? counts.path.get(option.value) || 0 : allFiles;
      setText(option, `${option.value || "All files"} (${n})`);
    }
    for (const group of list.querySelectorAll(".group")) {
      const cards = group.querySelectorAll("article.finding");
      let n = 0;
      let visible = 0;
      for (const card of cards) {
        const r = records[recordAt.get(card)];
        n += r.match ? 1 : 0;
        visible += r.shown ? 1 : 0;
      }
      setText(group.querySelector(".group-count"), String(n));
      group.classList.toggle("empty-group", visible === 0);
    }
    setText(shownCount, String(matches));
    empty.hidden = matches !== 0;
    symbolOnly.hidden = !onlySymbol;
    if (onlySymbol) {
      setText(document.getElementById("symbol-only-name"), onlySymbol);
    }
    more.hidden = shown >= matches;
    if (!more.hidden) {
      setText(moreNote, `${shown} of ${matches} matching findings shown.`);
    }
  }
  const recordAt = new Map(records.map((r, i) => [r.card, i]));

  function groupMode() {
    const radio = controls.querySelector('input[name="group"]:checked');
    return radio ? radio.value : "symbol";
  }

  // Rebuild the groups: the groups holding an error first, then a warning, then info, keys
  // sorted within each (as the server sorts them); in a group, by severity, then report order.
  function regroup() {
    const mode = groupMode();
    const field = mode === "file" ? "path" : "symbol";
    const groups = new Map();
    for (const r of records) {
      const key = r[field];
      if (!groups.has(key)) {
        groups.set(key, []);
      }
      groups.get(key).push(r);
    }
    const byRank = (a, b) => a.rank - b.rank || a.index - b.index;
    for (const members of groups.values()) {
      members.sort(byRank);
    }
    const keys = Array.from(groups.keys()).sort((a, b) => {
      const rank = groups.get(a)[0].rank - groups.get(b)[0].rank;
      return rank || (a < b ? -1 : a > b ? 1 : 0);
    });
    const fragment = document.createDocumentFragment();
    ordered = [];
    for (const key of keys) {
      const section = document.createElement("section");
      section.className = "group";
      section.dataset.key = key;
      const title = document.createElement("h3");
      title.className = "group-title";
      const code = document.createElement("code");
      code.textContent = key;
      const count = document.createElement("span");
      count.className = "group-count";
      title.append(code, " ", count);
      const members = groups.get(key);
      section.append(title, ...members.map((r) => r.card));
      fragment.append(section);
      ordered.push(...members);
    }
    list.replaceChildren(fragment);
    list.dataset.groupBy = mode;
    apply();
  }

  function setOpen(card, open) {
    if (open) {
      fill(records[recordAt.get(card)]);
    }
    card.classList.toggle("collapsed", !open);
    card.querySelector(".toggle").setAttribute("aria-expanded", String(open));
  }

  function reset() {
    HTMLFormElement.prototype.reset.call(controls);
    onlySymbol = "";
    limit = pageSize || Infinity;
    pinned.clear();
    regroup();
  }

  function openTarget() {
    const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.classList.contains("finding")) {
      pinned.add(target);
      setOpen(target, true);
      apply();
      target.scrollIntoView();
    }
  }

  controls.hidden = false;
  for (const r of records) {
    r.card.querySelector(".toggle").hidden = false;
  }
  controls.addEventListener("submit", (event) => event.preventDefault());
  controls.addEventListener("input", (event) => {
    if (event.target.name !== "group") {
      limit = pageSize || Infinity;
      apply();
    }
  });
  controls.addEventListener("change", (event) => {
    if (event.target.name === "group") {
      regroup();
    }
  });
  document.getElementById("reset-filters").addEventListener("click", reset);
  document.getElementById("reset-empty").addEventListener("click", reset);
  document.getElementById("symbol-clear").addEventListener("click", () => {
    onlySymbol = "";
    apply();
  });
  document.getElementById("show-more").addEventListener("click", () => {
    limit += pageSize || Infinity;
    apply();
  });
  document.getElementById("show-all").addEventListener("click", () => {
    limit = Infinity;
    apply();
  });
  for (const link of document.querySelectorAll("a.symbol-link")) {
    link.addEventListener("click", () => {
      onlySymbol = link.dataset.symbol;
      limit = pageSize || Infinity;
      apply();
    });
  }
  document.getElementById("expand-all").addEventListener("click", () => {
    ordered.filter((r) => r.shown).forEach((r) => setOpen(r.card, true));
  });
  document.getElementById("collapse-all").addEventListener("click", () => {
    records.forEach((r) => setOpen(r.card, false));
  });
  list.addEventListener("click", (event) => {
    const button = event.target.closest(".toggle");
    if (button) {
      const card = button.closest("article.finding");
      setOpen(card, card.classList.contains("collapsed"));
    }
  });
  search.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && search.value) {
      event.preventDefault();
      search.value = "";
      apply();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    const target = event.target;
    const typing =
      target instanceof HTMLElement &&
      (target.isContentEditable ||
        target.matches("textarea, select, input:not([type=checkbox]):not([type=radio])"));
    if (!typing) {
      event.preventDefault();
      search.focus();
      search.select();
    }
  });
  window.addEventListener("hashchange", openTarget);
  regroup();
  openTarget();
  if (bodyBlock && "requestIdleCallback" in window) {
    requestIdleCallback(() => texts(), { timeout: 5000 }); // the first search is then instant
  }
  document.documentElement.dataset.ready = "true";
})();
