// The room screen: one card per table, the league, live from the venue's SSE feed.
"use strict";
const room = { tables: {}, league: [], results: [] };

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

function table(name) {
  if (!room.tables[name]) {
    room.tables[name] = { table: name, status: "offline", state: null, recent: [], event_count: 0, game_id: null, seen: new Set() };
  }
  return room.tables[name];
}

function renderTable(t) {
  let card = document.querySelector(`.card[data-table="${CSS.escape(t.table)}"]`);
  if (!card) {
    card = el("article", { class: "card", "data-table": t.table });
    const cards = document.getElementById("tables");
    const after = [...cards.children].find((c) => c.dataset.table > t.table);
    cards.insertBefore(card, after || null);
  }
  const s = t.state;
  card.className = "card" + (t.status === "offline" ? " offline" : "") + (s && s.over ? " over" : "");
  card.dataset.events = String(t.event_count);
  card.dataset.gameId = s ? String(s.game_id) : "";
  card.dataset.over = s && s.over ? "1" : "0";
  card.replaceChildren();
  const head = el("h3", {}, t.table);
  head.append(el("span", { class: "status" }, t.status));
  card.append(head);
  if (!s) return;
  card.append(el("div", { class: "game" }, `${s.title} · ${s.phase_label}`));
  const players = el("table", { class: "players" });
  const winners = s.winner || [];
  const age = (Date.now() / 1000) - s.at;
  for (const p of s.players) {
    const turn = !s.over && s.turn === p.seat;
    const row = el("tr", { class: (turn ? "turn" : "") + (winners.includes(p.seat) ? " won" : ""), "data-seat": String(p.seat) });
    row.append(el("td", {}, p.name), el("td", { class: "num score" }, String(p.score)),
               el("td", { class: "num clock", "data-clock": String(p.clock_s + (turn && t.status === "online" ? age : 0)) }, clock(p.clock_s + (turn ? age : 0))));
    players.append(row);
  }
  card.append(players);
  if (s.over) {
    const names = winners.map((w) => s.players[w].name).join(", ") || "nobody";
    card.append(el("div", { class: "result" }, `Winner: ${names}${s.reason ? " — " + s.reason : ""}`));
  } else {
    card.append(el("div", { class: "turn-name" }, s.turn_name ? `${s.turn_name} to play` : ""));
  }
  const recent = el("ul", { class: "recent" });
  for (const e of t.recent.slice(-5).reverse()) recent.append(el("li", { "data-seq": String(e.seq) }, e.text));
  card.append(recent);
}

function renderLeague() {
  const body = document.querySelector("#league tbody");
  body.replaceChildren();
  for (const r of room.league) {
    const row = el("tr", { "data-name": r.name });
    row.append(el("td", {}, String(r.rank)), el("td", {}, r.name), el("td", { class: "num" }, String(r.games)),
               el("td", { class: "num" }, String(r.wins)), el("td", { class: "num" }, r.points.toFixed(2)));
    body.append(row);
  }
  const results = document.getElementById("results");
  results.replaceChildren();
  for (const r of room.results) {
    const won = r.players.filter((p) => p.won).map((p) => p.name).join(", ") || "nobody";
    results.append(el("li", {}, `${r.table}: ${r.title} — ${won}`));
  }
}

function apply(m) {
  if (m.type === "snapshot") {
    room.tables = {};
    for (const t of m.tables) { t.seen = new Set(t.seqs); room.tables[t.table] = t; }
    room.league = m.league; room.results = m.results;
    document.getElementById("tables").replaceChildren();
    Object.values(room.tables).forEach(renderTable);
    renderLeague();
  } else if (m.type === "status") {
    const t = table(m.table); t.status = m.status; renderTable(t);
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
    room.league = m.league; room.results = m.results; renderLeague();
  }
}

function connect() {
  const feed = document.getElementById("feed");
  const source = new EventSource("events");
  source.onopen = () => { feed.textContent = "live"; feed.className = "feed"; };
  source.onerror = () => { feed.textContent = "reconnecting…"; feed.className = "feed down"; };
  source.onmessage = (e) => apply(JSON.parse(e.data));
}

setInterval(() => {  // the player on turn's clock ticks between messages
  for (const cell of document.querySelectorAll(".turn .clock")) {
    const s = parseFloat(cell.dataset.clock) + 1; cell.dataset.clock = String(s); cell.textContent = clock(s);
  }
}, 1000);
connect();
