// The table view's panels in columns, per size, so that no column stands empty below its
// content while another goes on.  The size (--layout, set by dashboard.css) picks a plan of
// bands, each a row of columns with the panels that always start it:
//   phone: one column, the turn first (players, declare, history, board);
//   portrait tablet: players | declare, the board across both, then two more columns;
//   landscape tablet and TV: players | declare | board over history, all above the fold.
// The rest ("fillers": the details in blocks of one entry each, and a portrait tablet's
// history) go one by one to the column that ends highest: in an upper band only where the
// filler still ends no lower than the band's longest column, else in the last band.  The
// columns then end within about one block of each other.  The fixed panels move only when
// the size changes (a zoomed board keeps its scroll); the fillers are placed again after
// every drawing of the state or the form.
"use strict";

const PLANS = {
  phone: { bands: [[["players-panel", "declare-panel", "history-panel", "board-panel"]]], floating: [] },
  portrait: { bands: [[["players-panel"], ["declare-panel"]], [["board-panel"]], [[], []]],
    floating: ["history-panel"] },
  landscape: { bands: [[["players-panel"], ["declare-panel"], ["board-panel", "history-panel"]]], floating: [] },
};
const FILL_SLACK_PX = 48;
const HISTORY_AT_LEAST = 3;  // moves a history beside other columns keeps when it is trimmed  // an upper band's filler may end this much below its longest column

const arranged = { name: null, bands: [], parts: [], panels: {} };
let detailBlocks = [];  // set by the dashboard's renderDetails: one element per entry

/** A panel by id, kept once found: a panel taken out to be placed again is not in the document. */
function panel(id) {
  if (!arranged.panels[id]) arranged.panels[id] = $(id);
  return arranged.panels[id];
}

function layoutName() {
  const name = getComputedStyle(document.documentElement).getPropertyValue("--layout").trim();
  return PLANS[name] ? name : "phone";
}

/** The bands and columns of the plan for this size, with its fixed panels in them. */
function buildBands(name) {
  const main = document.querySelector("main.table");
  for (const section of main.querySelectorAll("section[id]")) panel(section.id);  // before any moves
  arranged.bands = PLANS[name].bands.map((columns, index) => {
    const band = el("div", { class: `band cols-${columns.length}`, "data-band": String(index) });
    const cols = columns.map((ids) => {
      const col = el("div", { class: "col" });
      for (const id of ids) col.append(panel(id));
      return col;
    });
    band.append(...cols);
    return { band, cols };
  });
  main.replaceChildren(...arranged.bands.map((b) => b.band));
  arranged.name = name;
}

/** A "Details" panel for one column (the first is the page's own #summary-panel). */
function detailsPart(index) {
  if (index === 0) return panel("summary-panel");
  while (arranged.parts.length < index) {
    const part = el("section", { class: "summary-part" });
    part.append(el("h2", {}, "Details"), el("div", { class: "detail-blocks" }));
    arranged.parts.push(part);
  }
  return arranged.parts[index - 1];
}

function arrange() {
  const name = layoutName();
  if (arranged.name !== name) buildBands(name);
  const floating = PLANS[name].floating.map(panel);
  const summary = panel("summary-panel");
  const parts = [summary, ...arranged.parts];
  for (const item of [...floating, ...parts]) item.remove();  // every filler out, then placed again
  for (const part of parts) part.querySelector(".detail-blocks").replaceChildren();
  for (const b of arranged.bands) b.band.hidden = false;
  const cols = arranged.bands.flatMap((b) => b.cols);
  const box = (e) => e.getBoundingClientRect();
  const used = new Map(cols.map((c) => [c, c.children.length ? box(c).height : 0]));
  const width = new Map(cols.map((c) => [c, box(c).width]));
  const gap = parseFloat(getComputedStyle(cols[0]).rowGap) || 0;
  // each filler's height, measured once in the narrowest column (one layout for them all)
  const probe = cols.reduce((a, c) => (width.get(c) < width.get(a) ? c : a));
  probe.append(...floating, summary);
  summary.querySelector(".detail-blocks").append(...detailBlocks);
  const tall = new Map(floating.map((f) => [f, box(f).height]));
  const blocksBox = box(summary.querySelector(".detail-blocks"));
  detailBlocks.forEach((b, i) => {
    const next = detailBlocks[i + 1];
    tall.set(b, (next ? box(next).top : blocksBox.bottom) - box(b).top);
  });
  const partExtra = box(summary).height - blocksBox.height;  // its heading and padding
  for (const item of [...floating, summary]) item.remove();
  // the tallest first, each to the column that ends highest (in an upper band only if it then
  // ends no lower than that band's longest column); placed below in their own order
  const last = arranged.bands[arranged.bands.length - 1];
  const where = new Map();
  const hasPart = new Set();
  const byHeight = [...detailBlocks].sort((a, b) => tall.get(b) - tall.get(a));
  for (const item of [...floating, ...byHeight]) {
    for (const b of arranged.bands) {
      if (b !== last && b.cols.length < 2) continue;
      const col = b.cols.reduce((a, c) => (used.get(c) < used.get(a) ? c : a));
      const isBlock = !floating.includes(item);
      const grows = tall.get(item) * (width.get(probe) / width.get(col))
        + (isBlock && hasPart.has(col) ? 0 : partExtra * isBlock + (used.get(col) ? gap : 0));
      const longest = Math.max(...b.cols.map((c) => used.get(c)));
      if (b !== last && used.get(col) + grows > longest + FILL_SLACK_PX) continue;
      used.set(col, used.get(col) + grows);
      if (isBlock) hasPart.add(col);
      where.set(item, col);
      break;
    }
  }
  for (const item of floating) where.get(item).append(item);
  const partOf = new Map();
  for (const block of detailBlocks) {
    const col = where.get(block);
    if (!partOf.has(col)) {
      partOf.set(col, detailsPart(partOf.size));
      col.append(partOf.get(col));
    }
    partOf.get(col).querySelector(".detail-blocks").append(block);
  }
  if (!summary.isConnected) last.cols[0].append(summary);  // the Details panel is always there
  for (const b of arranged.bands) b.band.hidden = b.cols.every((c) => !c.children.length);
  fitHistory((col) => box(col).height);
}

/** The history beside other columns ends with them: the moves drawn hidden are shown while
 * there is room, the oldest shown hidden while its column is the longer (at least a few
 * stay, or as many as "More moves" asked for); the rest a tap away. */
function fitHistory(height) {
  const list = $("history");
  const items = [...list.children];
  const first = Number(list.dataset.first || items.length);
  items.forEach((li, i) => { li.hidden = i >= first; });
  const history = panel("history-panel");
  const b = arranged.bands.find((x) => x.cols.some((c) => c.contains(history)));
  if (b && b.cols.length > 1) {
    const col = b.cols.find((c) => c.contains(history));
    const others = Math.max(...b.cols.filter((c) => c !== col).map(height));
    for (const li of items.filter((x) => x.hidden)) {
      li.hidden = false;
      if (height(col) > others) { li.hidden = true; break; }
    }
    const atLeast = Number(list.dataset.atLeast || HISTORY_AT_LEAST);
    let shown = items.filter((x) => !x.hidden);
    while (height(col) > others + FILL_SLACK_PX && shown.length > atLeast) {
      shown.pop().hidden = true;
    }
  }
  showOlder();
}

/** "More moves" while some are hidden or not fetched yet. */
function showOlder() {
  const list = $("history");
  const items = [...list.children];
  $("older").hidden = !items.some((li) => li.hidden) && Number(list.dataset.total || 0) <= items.length;
}

function watchLayout() {
  for (const query of ["(min-width: 600px)", "(min-width: 900px) and (min-aspect-ratio: 1/1)"]) {
    matchMedia(query).addEventListener("change", arrange);
  }
  addEventListener("resize", arrange);
}
