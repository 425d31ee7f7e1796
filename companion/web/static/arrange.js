// The table view's panels in columns, per size, so that no column stands empty below its
// content while another goes on.  The size (--layout, set by dashboard.css) picks a plan of
// bands, each a row of columns with the panels that always start it:
//   phone: one column, the turn first (players, declare, history, board), but a warning
//     (the declare panel "warned") above the players;
//   portrait tablet: players | declare, the board across both, then two more columns;
//   landscape tablet and TV: players | declare | board, the history starting above the fold.
// The rest ("fillers": the history, then the details in blocks of one entry each, the
// tallest first) go one by one to the column that ends highest: in an upper band only where
// the filler still ends no lower than the band's longest column, else in the last band; the
// history only where it starts above the fold when the plan says so.  The history beside
// other columns then shows as many moves as its column has room for.  The columns end
// within about one block of each other.  The fixed panels move only when the size changes
// (a zoomed board keeps its scroll); the fillers are placed again after every drawing of
// the state or the form.
"use strict";

const PLANS = {
  phone: { bands: [[["players-panel", "declare-panel", "history-panel", "board-panel"]]], floating: [] },
  portrait: { bands: [[["players-panel"], ["declare-panel"]], [["board-panel"]], [[], []]],
    floating: ["history-panel"] },
  landscape: { bands: [[["players-panel"], ["declare-panel"], ["board-panel"]]], floating: ["history-panel"],
    aboveFold: true },
};
const FILL_SLACK_PX = 48;  // an upper band's filler may end this much below its longest column
const FOLD_MARGIN_PX = 100;  // a panel kept above the fold starts at least this far above it
const HISTORY_AT_LEAST = 3;  // moves a history beside other columns keeps when it is trimmed

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

/** The panels placed for this size; on a TV, drawn as large as the screen's height allows. */
function arrange() {
  placeFillers();
  fitScreen(false);
}

function placeFillers() {
  // the size the panels are placed for: a check (or a screenshot) waits for it, not a delay
  document.documentElement.dataset.arranged = `${innerWidth}x${innerHeight}`;
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
  showMoves(Number(historyList().dataset.atLeast || HISTORY_AT_LEAST));  // measured at its least
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
  const fold = innerHeight - FOLD_MARGIN_PX;
  for (const item of [...floating, ...byHeight]) {
    for (const b of arranged.bands) {
      if (b !== last && b.cols.length < 2) continue;
      const isBlock = !floating.includes(item);
      const top = box(b.band).top + scrollY;  // (in the page: the fold is the first screen's)
      const room = b.cols.filter((c) => isBlock || !PLANS[name].aboveFold || top + used.get(c) + gap < fold);
      const col = (room.length ? room : b.cols).reduce((a, c) => (used.get(c) < used.get(a) ? c : a));
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

/** The history's list (found through its panel: the panel may be out of the page). */
function historyList() { return panel("history-panel").querySelector("#history"); }

/** The newest ``count`` moves drawn shown, the rest hidden. */
function showMoves(count) {
  [...historyList().children].forEach((li, i) => { li.hidden = i >= count; });
}

/** The history beside other columns ends with them: from its least (a few, or as many as
 * "More moves" asked for) more moves are shown while its column is not the longest; alone
 * in its column (a phone) it shows the first number drawn.  The rest are a tap away. */
function fitHistory(height) {
  const list = historyList();
  const items = [...list.children];
  const history = panel("history-panel");
  const b = arranged.bands.find((x) => x.cols.some((c) => c.contains(history)));
  if (b && b.cols.length > 1) {
    const col = b.cols.find((c) => c.contains(history));
    const others = Math.max(...b.cols.filter((c) => c !== col).map(height));
    showMoves(Number(list.dataset.atLeast || HISTORY_AT_LEAST));
    for (const li of items.filter((x) => x.hidden)) {
      li.hidden = false;
      if (height(col) > others) { li.hidden = true; break; }
    }
  } else {
    showMoves(Number(list.dataset.first || items.length));
  }
  showOlder();
}

/** "More moves" while some are hidden or not fetched yet. */
function showOlder() {
  const list = historyList();
  const items = [...list.children];
  panel("history-panel").querySelector("#older").hidden = !items.some((li) => li.hidden) && Number(list.dataset.total || 0) <= items.length;
}

const FITS = [1.5, 1.4, 1.3, 1.2, 1.1, 1];  // a TV's text sizes, largest first
let fitNow = 1;

/** A TV uses its whole screen: the page is drawn at the largest of FITS that still fits the
 * screen's height (else at 1, scrolled).  ``again``: try from the largest (a new size or a
 * new game); otherwise only smaller, so that the text does not grow and shrink from one
 * move to the next. */
function fitScreen(again) {
  const root = document.documentElement;
  if (getComputedStyle(root).getPropertyValue("--fit-screen").trim() !== "1") {
    if (fitNow !== 1) { root.style.removeProperty("--fit"); fitNow = 1; placeFillers(); }
    return;
  }
  const overflows = () => root.scrollHeight > innerHeight + 1;
  if (!again && !overflows()) return;
  for (const fit of FITS.filter((f) => again || f < fitNow)) {
    root.style.setProperty("--fit", String(fit));
    fitNow = fit;
    placeFillers();
    if (!overflows()) return;
  }
}

function watchLayout() {
  const resized = () => { placeFillers(); fitScreen(true); };
  for (const query of ["(min-width: 600px)", "(min-width: 900px) and (min-aspect-ratio: 1/1)"]) {
    matchMedia(query).addEventListener("change", resized);
  }
  addEventListener("resize", resized);
}
