// drift-audit HTML report: filters, search, grouping and collapsing, all in the page.
// Every finding is an <article class="finding"> with data-kind, -severity, -status, -path and
// -symbol; the script only shows, hides and regroups them. Without script the page is
// complete, grouped by provider symbol.
"use strict";
(() => {
  const controls = document.getElementById("controls");
  const list = document.getElementById("findings");
  if (!controls || !list) {
    return;
  }
  const cards = Array.from(list.querySelectorAll("article.finding"));
  const searchable = (card) =>
    Array.from(card.querySelectorAll(".labels, .message, .where, .finding-body"), (e) => e.textContent)
      .join("\n")
      .toLowerCase();
  const haystack = new Map(cards.map((card) => [card, searchable(card)]));
  const search = document.getElementById("search");
  const fileSelect = document.getElementById("filter-file");
  const shownCount = document.getElementById("shown-count");
  const empty = document.getElementById("empty");
  const matrixRows = Array.from(document.querySelectorAll("tr[data-row-for]"));
  const DIMS = ["kind", "severity", "status", "path"];
  const FIELD = { kind: "kind", severity: "severity", status: "status", file: "path" };

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

  // Does the card pass every filter, leaving out `skip` (a facet counts under the others)?
  function passes(card, state, skip) {
    for (const dim of DIMS) {
      if (dim === skip) {
        continue;
      }
      const value = card.dataset[dim];
      if (dim === "path" ? state.path && value !== state.path : !state[dim].has(value)) {
        return false;
      }
    }
    const text = haystack.get(card);
    return state.terms.every((term) => text.includes(term));
  }

  function countWhere(dim, value, state) {
    return cards.filter((c) => (value === "" || c.dataset[dim] === value) && passes(c, state, dim))
      .length;
  }

  function apply() {
    const state = readState();
    let shown = 0;
    const visible = new Set();
    for (const card of cards) {
      const ok = passes(card, state, null);
      card.classList.toggle("filtered-out", !ok);
      if (ok) {
        shown += 1;
        visible.add(card.id);
      }
    }
    for (const el of controls.querySelectorAll("[data-count]")) {
      el.textContent = String(countWhere(FIELD[el.dataset.count], el.dataset.value, state));
    }
    for (const option of fileSelect.options) {
      const n = countWhere("path", option.value, state);
      option.textContent = `${option.value || "All files"} (${n})`;
    }
    for (const group of list.querySelectorAll(".group")) {
      const n = group.querySelectorAll("article.finding:not(.filtered-out)").length;
      group.querySelector(".group-count").textContent = String(n);
      group.classList.toggle("empty-group", n === 0);
    }
    for (const row of matrixRows) {
      row.classList.toggle("filtered-out", !visible.has(row.dataset.rowFor));
    }
    shownCount.textContent = String(shown);
    empty.hidden = shown !== 0;
  }

  function groupMode() {
    const radio = controls.querySelector('input[name="group"]:checked');
    return radio ? radio.value : "symbol";
  }

  // Rebuild the groups from the cards in report order; keys sorted as the server sorts them.
  function regroup() {
    const mode = groupMode();
    const field = mode === "file" ? "path" : "symbol";
    const groups = new Map();
    for (const card of cards) {
      const key = card.dataset[field];
      if (!groups.has(key)) {
        groups.set(key, []);
      }
      groups.get(key).push(card);
    }
    const keys = Array.from(groups.keys()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const fragment = document.createDocumentFragment();
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
      section.append(title, ...groups.get(key));
      fragment.append(section);
    }
    list.replaceChildren(fragment);
    list.dataset.groupBy = mode;
    apply();
  }

  function setOpen(card, open) {
    card.classList.toggle("collapsed", !open);
    card.querySelector(".toggle").setAttribute("aria-expanded", String(open));
  }

  function reset() {
    HTMLFormElement.prototype.reset.call(controls);
    regroup();
  }

  function openTarget() {
    const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.classList.contains("finding")) {
      setOpen(target, true);
    }
  }

  controls.hidden = false;
  for (const button of list.querySelectorAll(".toggle")) {
    button.hidden = false;
  }
  controls.addEventListener("submit", (event) => event.preventDefault());
  controls.addEventListener("input", (event) => {
    if (event.target.name !== "group") {
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
  document.getElementById("expand-all").addEventListener("click", () => {
    cards.forEach((card) => setOpen(card, true));
  });
  document.getElementById("collapse-all").addEventListener("click", () => {
    cards.forEach((card) => setOpen(card, false));
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
})();
