// The room screen: one card per table, the league, live from the venue's SSE feed. Sized for a
// big screen read from across the room: each card's text is fitted to its cell (events first
// give way, whole lines at a time, then the size), so nothing is ever cut.
"use strict";
const room = { tables: {}, league: [], kinds: [], results: [], broker: { up: true } };
const K_MAX = 7, K_MIN = 2.5, L_MAX = 4.4, L_MID = 3.4, L_MIN = 2;

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function hhmm(at) {
  return new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false });
}

function table(name) {
  if (!room.tables[name]) {
    room.tables[name] = { table: name, status: "offline", silent: false, state: null, recent: [], event_count: 0, game_id: null, seen: new Set() };
  }
  return room.tables[name];
}

function overflows(box) {
  return box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1;
}

function fitCard(card) {
  let k = K_MAX;
  card.style.setProperty("--k", k);
  const lines = [...card.querySelectorAll(".recent li")];
  for (let i = lines.length - 1; i >= 0 && overflows(card); i--) lines[i].remove();  // oldest first
  for (let step = 0; step < 60 && overflows(card) && k > K_MIN; step++) {
    k *= 0.96;
    card.style.setProperty("--k", k.toFixed(3));
  }
  card.dataset.k = k.toFixed(3);
}

function layout() {
  const box = document.getElementById("tables");
  const n = Math.max(1, box.children.length);
  const w = box.clientWidth, h = box.clientHeight;
  let best = 1, score = -1;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const s = Math.min(w / cols / 1.5, h / rows);  // cards a little wider than tall read best
    if (s > score) { score = s; best = cols; }
  }
  box.style.gridTemplateColumns = `repeat(${best}, minmax(0, 1fr))`;
  box.style.gridTemplateRows = `repeat(${Math.ceil(n / best)}, minmax(0, 1fr))`;
}

function statusText(t) {
  if (!room.broker.up) return "unknown";
  if (t.status === "offline") return "offline";
  return t.silent ? "no signal" : "live";
}

function renderTable(t) {
  let card = document.querySelector(`.card[data-table="${CSS.escape(t.table)}"]`);
  if (!card) {
    card = el("article", { class: "card", "data-table": t.table });
    const cards = document.getElementById("tables");
    const after = [...cards.children].find((c) => c.dataset.table > t.table);
    cards.insertBefore(card, after || null);
    layout();
    document.querySelectorAll(".card").forEach((c) => c !== card && fitCard(c));
  }
  const s = t.state;
  card.className = "card" + (t.status === "offline" ? " offline" : "") + (t.silent ? " silent" : "") + (s && s.over ? " over" : "");
  card.dataset.events = String(t.event_count);
  card.dataset.gameId = s ? String(s.game_id) : "";
  card.dataset.over = s && s.over ? "1" : "0";
  card.dataset.paused = s && s.paused ? "1" : "0";
  card.dataset.status = statusText(t);
  card.replaceChildren();
  const head = el("h3", {}, t.table);
  head.append(el("span", { class: "status" }, statusText(t)));
  card.append(head);
  if (s) {
    card.append(el("div", { class: "game" }, `${s.title} · ${s.phase_label}`));
    const players = el("table", { class: "players" });
    const winners = s.winner || [];
    const age = Math.max(0, (Date.now() / 1000) - s.at);
    const live = t.status === "online" && room.broker.up && !s.paused;
    for (const p of s.players) {
      const turn = !s.over && s.turn === p.seat;
      const seconds = p.clock_s + (turn && live ? age : 0);
      const row = el("tr", { class: (turn ? "turn" : "") + (winners.includes(p.seat) ? " won" : ""), "data-seat": String(p.seat) });
      row.append(el("td", { class: "name" }, p.name), el("td", { class: "num score" }, String(p.score)),
                 el("td", { class: "num clock", "data-clock": String(seconds) }, clock(seconds)));
      players.append(row);
    }
    card.append(players);
    if (s.over) {
      const names = winners.map((w) => s.players[w].name).join(", ") || "nobody";
      card.append(el("div", { class: "result" }, `Winner: ${names}`));
    } else if (s.turn_name) {
      card.append(el("div", { class: "turn-name" }, `${s.turn_name} to play`));
    }
    const recent = el("ul", { class: "recent" });
    for (const e of t.recent.slice(-8).reverse()) if (e.text) recent.append(el("li", { "data-seq": String(e.seq) }, e.text));
    card.append(recent);
  }
  fitCard(card);
}

function standingRows(body, rows, withGames) {
  for (const r of rows) {
    const row = el("tr", { "data-name": r.name, "data-rank": String(r.rank) });
    row.append(el("td", { class: "num" }, String(r.rank)), el("td", { class: "name" }, r.name),
               el("td", { class: "num" }, (Math.round(r.points * 100) / 100).toString()));
    if (withGames) row.append(el("td", { class: "num" }, String(r.games)));
    body.append(row);
  }
}

function renderLeague() {
  const side = document.getElementById("side");
  const body = document.querySelector("#league tbody");
  body.replaceChildren();
  standingRows(body, room.league, true);
  const kinds = document.getElementById("kinds");
  kinds.replaceChildren();
  for (const k of room.kinds) {
    if (!k.standings.length) continue;
    const box = el("div", { class: "kind", "data-game": k.game });
    const rows = el("tbody");
    standingRows(rows, k.standings.slice(0, 3), false);
    const t = el("table");
    t.append(rows);
    box.append(el("h3", {}, k.title), t);
    kinds.append(box);
  }
  document.getElementById("unnamed").hidden = !room.results.some((r) => r.players.some((p) => !p.player));
  const results = document.getElementById("results");
  results.replaceChildren();
  for (const r of room.results) {
    const won = r.players.filter((p) => p.won).map((p) => p.player || p.name).join(", ") || "nobody";
    results.append(el("li", {}, `${r.table}: ${r.title} — ${won}`));
  }
  // fit: older results, then the kinds' rows, go first; then the size; the overall table last
  let l = L_MAX;
  side.style.setProperty("--l", l);
  const shrink = (floor) => {
    for (let step = 0; step < 40 && overflows(side) && l > floor; step++) { l *= 0.95; side.style.setProperty("--l", l.toFixed(3)); }
  };
  for (const node of [...results.children].reverse()) { if (!overflows(side)) break; node.remove(); }
  document.querySelector(".results-title").hidden = results.children.length === 0;
  shrink(L_MID);  // a little smaller before a game's own standings give way
  for (const node of [...kinds.children].reverse()) { if (!overflows(side)) break; node.remove(); }
  shrink(L_MIN);
  const rows = [...body.children];
  for (let i = rows.length - 1; i > 0 && overflows(side); i--) rows[i].remove();
  side.dataset.l = l.toFixed(3);
}

function renderBroker() {
  const banner = document.getElementById("broker");
  const b = room.broker;
  document.body.classList.toggle("broker-down", !b.up);
  banner.hidden = !!b.up;
  banner.textContent = b.up ? "" : `Broker unreachable since ${hhmm(b.since)}: tables play on, this screen catches up later`;
  banner.title = b.up ? "" : b.detail;
  layout();
  Object.values(room.tables).forEach(renderTable);
}

function apply(m) {
  if (m.type === "snapshot") {
    room.tables = {};
    for (const t of m.tables) { t.seen = new Set(t.seqs); room.tables[t.table] = t; }
    room.league = m.league; room.kinds = m.kinds || []; room.results = m.results; room.broker = m.broker || { up: true };
    document.getElementById("tables").replaceChildren();
    Object.values(room.tables).forEach(renderTable);
    renderBroker();
    renderLeague();
  } else if (m.type === "broker") {
    room.broker = m.broker; renderBroker();
  } else if (m.type === "status") {
    const t = table(m.table); t.status = m.status; t.silent = !!m.silent; renderTable(t);
  } else if (m.type === "state") {
    const t = table(m.table);
    if (t.game_id !== m.state.game_id) { t.game_id = m.state.game_id; t.recent = []; t.event_count = 0; t.seen = new Set(); }
    t.state = m.state; renderTable(t);
  } else if (m.type === "event") {
    const t = table(m.table);
    if (t.game_id === null || m.game_id > t.game_id) { t.game_id = m.game_id; t.recent = []; t.event_count = 0; t.seen = new Set(); }
    if (m.game_id === t.game_id && !t.seen.has(m.seq)) {
      t.seen.add(m.seq); t.event_count = t.seen.size; t.recent.push(m); t.recent.sort((a, b) => a.seq - b.seq); t.recent = t.recent.slice(-12);
    }
    renderTable(t);
  } else if (m.type === "league") {
    room.league = m.league; room.kinds = m.kinds || []; room.results = m.results; renderLeague();
  }
}

function connect() {
  const feed = document.getElementById("feed");
  const source = new EventSource("events");
  source.onopen = () => { feed.textContent = "live"; feed.className = "feed"; };
  source.onerror = () => { feed.textContent = "reconnecting…"; feed.className = "feed down"; };
  source.onmessage = (e) => apply(JSON.parse(e.data));
}

function tick() {  // the player on turn's clock ticks between messages (not while the broker is away)
  document.getElementById("clock").textContent = hhmm(Date.now() / 1000);
  if (!room.broker.up) return;
  for (const cell of document.querySelectorAll('.card:not(.offline):not([data-paused="1"]) .turn .clock')) {
    const s = parseFloat(cell.dataset.clock) + 1; cell.dataset.clock = String(s); cell.textContent = clock(s);
  }
}
document.getElementById("clock").textContent = hhmm(Date.now() / 1000);
setInterval(tick, 1000);
window.addEventListener("resize", () => { layout(); document.querySelectorAll(".card").forEach(fitCard); renderLeague(); });
connect();
