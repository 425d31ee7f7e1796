// The tablet dashboard: one EventSource, re-rendering from each state snapshot.
"use strict";
const $ = (id) => document.getElementById(id);
let layout = null;
let latest = null;
let receivedAt = 0;

const pinInput = $("pin");
pinInput.value = localStorage.getItem("tablePin") || "";
pinInput.addEventListener("change", () => localStorage.setItem("tablePin", pinInput.value.trim()));

function fmtClock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

async function send(action) {
  const result = $("action-result");
  const pin = pinInput.value.trim();
  if (!pin) { result.className = "bad"; result.textContent = "Enter the table PIN first."; return; }
  const response = await fetch("/api/actions", {
    method: "POST", headers: { "Content-Type": "application/json", "X-Table-Pin": pin },
    body: JSON.stringify({ action }),
  });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (response.ok) { result.className = "ok"; result.textContent = "Recorded."; }
  else {
    result.className = "bad";
    result.textContent = body.rule ? `Refused: ${body.error} (rule: ${body.rule})` : `Refused: ${body.error}`;
  }
}

$("undo").addEventListener("click", () => send({ type: "undo" }));
$("declare").addEventListener("click", () => {
  let action;
  try { action = JSON.parse($("declare-text").value); }
  catch (e) { $("action-result").className = "bad"; $("action-result").textContent = "Not valid JSON."; return; }
  send(action);
});

function renderPlayers(s) {
  const list = $("players");
  list.replaceChildren();
  for (const p of s.players) {
    const li = el("li", { "data-seat": p.seat });
    if (s.turn === p.seat && !s.over) li.classList.add("turn");
    li.append(el("span", { class: "name" }, p.name));
    li.append(el("span", { class: "clock", "data-clock": p.clock_s }, fmtClock(p.clock_s)));
    li.append(el("span", { class: "score" }, String(p.score)));
    list.append(li);
  }
  if (s.over) {
    const names = (s.winner || []).map((w) => s.players[w].name).join(" & ");
    $("outcome").textContent = names ? `Winner: ${names}. ${s.reason || ""}` : `Game over: ${s.reason || "no winner"}`;
  } else $("outcome").textContent = "";
}

function renderPrompts(s) {
  const list = $("prompts");
  list.replaceChildren();
  for (const p of s.prompts) {
    const li = el("li", { class: p.kind }, p.text);
    for (const option of p.options || []) {
      const b = el("button", {}, JSON.stringify(option));
      b.addEventListener("click", () => send(option));
      li.append(el("br"), b);
    }
    list.append(li);
  }
}

function renderHistory(s) {
  const list = $("history");
  list.replaceChildren();
  for (const h of [...s.history].reverse()) {
    const li = el("li", { "data-seq": h.seq }, h.text + " ");
    if (h.undone) li.classList.add("undone");
    li.append(el("span", { class: "src" }, `(${h.source})`));
    list.append(li);
  }
  $("undo").disabled = !s.can_undo;
}

function renderValue(value) {
  if (value === null || typeof value !== "object") return document.createTextNode(String(value));
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object"))
    return document.createTextNode(value.join(", "));
  const table = el("table");
  for (const [k, v] of Object.entries(value)) {
    const tr = el("tr");
    tr.append(el("th", {}, k));
    const td = el("td");
    td.append(renderValue(v));
    tr.append(td);
    table.append(tr);
  }
  return table;
}

function renderBoard(s) {
  if (!layout) return;
  const svg = $("board");
  const ns = "http://www.w3.org/2000/svg";
  svg.setAttribute("viewBox", `0 0 ${layout.width} ${layout.height}`);
  svg.replaceChildren();
  const mk = (tag, attrs) => { const n = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); return n; };
  svg.append(mk("rect", { x: 0, y: 0, width: layout.width, height: layout.height, fill: layout.colours.board }));
  for (const spot of layout.spots) {
    svg.append(mk("rect", { x: spot.x, y: spot.y, width: spot.w, height: spot.h, fill: layout.colours[spot.fill] || "#ccc", stroke: "#555", "stroke-width": 0.5, "data-spot": spot.id }));
    if (spot.label) { const t = mk("text", { x: spot.x + 1, y: spot.y + spot.h - 1.5, "font-size": 5, fill: "#333" }); t.textContent = spot.label; svg.append(t); }
    const pieces = s.board[spot.id] || [];
    const n = pieces.length;
    const cols = Math.max(1, Math.ceil(Math.sqrt(n * spot.w / spot.h)));
    const rows = Math.max(1, Math.ceil(n / cols));
    pieces.forEach(([colour, pips], i) => {
      const cx = spot.x + ((i % cols) + 0.5) * spot.w / cols;
      const cy = spot.y + (Math.floor(i / cols) + 0.5) * spot.h / rows;
      const r = 0.38 * Math.min(spot.w / cols, spot.h / rows);
      const shape = layout.shapes[colour] === "square"
        ? mk("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, fill: layout.colours[colour] || colour, stroke: "#000", "stroke-width": 0.4, "data-piece": colour })
        : mk("circle", { cx, cy, r, fill: layout.colours[colour] || colour, stroke: "#000", "stroke-width": 0.4, "data-piece": colour });
      svg.append(shape);
      if (pips) { const t = mk("text", { x: cx - r * 0.35, y: cy + r * 0.4, "font-size": r, fill: "#000" }); t.textContent = pips; svg.append(t); }
    });
  }
}

function render(s) {
  latest = s;
  receivedAt = performance.now();
  document.title = `${s.title} · Table Companion`;
  $("variant").textContent = s.variant;
  $("phase").textContent = `${s.phase} · ${fmtClock(s.phase_s)}`;
  renderPlayers(s);
  renderPrompts(s);
  renderHistory(s);
  renderBoard(s);
  $("summary").replaceChildren(renderValue(s.summary));
  document.body.dataset.historyLength = String(s.history.length);
}

setInterval(() => {  // clocks tick between snapshots
  if (!latest || latest.over) return;
  const extra = (performance.now() - receivedAt) / 1000;
  const turnLi = document.querySelector("#players li.turn .clock");
  if (turnLi) turnLi.textContent = fmtClock(Number(turnLi.dataset.clock) + extra);
  $("phase").textContent = `${latest.phase} · ${fmtClock(latest.phase_s + extra)}`;
}, 500);

// A delta applies to the state at rev `base`; a client at another rev refetches.
async function applyDelta(d) {
  if (!latest || d.rev <= latest.rev) return;
  if (d.base !== latest.rev) {
    render(await (await fetch("/api/state")).json());
    return;
  }
  const s = { ...latest, ...d.set, rev: d.rev };
  const undone = new Set(d.history.undone);
  s.history = latest.history.map((h) => (undone.has(h.seq) ? { ...h, undone: true } : h))
    .concat(d.history.add).slice(-200);
  render(s);
}

async function start() {
  layout = await (await fetch("/api/layout")).json();
  const source = new EventSource("/api/events");
  source.addEventListener("state", (e) => render(JSON.parse(e.data)));
  source.addEventListener("delta", (e) => applyDelta(JSON.parse(e.data)));
  source.onopen = () => { $("live").textContent = "live"; $("live").className = "pill"; };
  source.onerror = () => { $("live").textContent = "reconnecting…"; $("live").className = "pill off"; };
}
start();
