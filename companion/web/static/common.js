// Shared by the dashboard and the set-up page: small DOM helpers, values in words, the PIN
// (entered once per device by taps), changing requests with a request id, the QR code.
"use strict";
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  if (text !== "") node.textContent = text;
  return node;
}

function words(name) {  // end_turn -> "End turn"
  const text = String(name).replace(/[_-]+/g, " ").trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "1 move", "3 moves": a count with its noun in the right number (never "move(s)"). */
function counted(n, noun, plural = `${noun}s`) { return `${n} ${n === 1 ? noun : plural}`; }

function fmtClock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

// A value as people read it: nested objects become tables, never raw data.
function renderValue(value) {
  if (value === null || value === undefined) return document.createTextNode("—");
  if (value === true) return document.createTextNode("yes");
  if (value === false) return document.createTextNode("no");
  if (typeof value !== "object") return document.createTextNode(String(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return document.createTextNode("none");
    if (value.every((v) => v === null || typeof v !== "object"))
      return document.createTextNode(value.map((v) => renderValue(v).textContent).join(", "));
    const list = el("div", { class: "values" });
    value.forEach((v, i) => {
      const named = v && typeof v === "object" && !Array.isArray(v) ? (v.name || v.Name) : null;
      list.append(el("p", { class: "value-head" }, named ? String(named) : `${i + 1}.`));
      list.append(renderValue(v));
    });
    return list;
  }
  // nested objects go below their name, full width, so nothing is squeezed into a column
  const table = el("table", { class: "details" });
  for (const [k, v] of Object.entries(value)) {
    const nested = v !== null && typeof v === "object" &&
      !(Array.isArray(v) && v.every((x) => x === null || typeof x !== "object"));
    const tr = el("tr");
    if (nested) {
      tr.append(el("th", { colspan: 2, class: "sub" }, words(k)));
      const below = el("tr");
      const td = el("td", { colspan: 2, class: "nested" });
      td.append(renderValue(v));
      below.append(td);
      table.append(tr, below);
      continue;
    }
    tr.append(el("th", {}, words(k)));
    const td = el("td");
    td.append(renderValue(v));
    tr.append(td);
    table.append(tr);
  }
  return table;
}

function newRequestId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ------------------------------------------------------------------ the PIN, once per device
// With the pairing routes the PIN buys an HttpOnly cookie; without them (an older server)
// the page keeps the PIN in memory and sends it as X-Table-Pin.
// (kept for this tab's life in sessionStorage, so a reload does not ask again).
const auth = { mode: "unknown", paired: false, pin: sessionStorage.getItem("tablePin") };

async function loadAuth() {
  try {
    const r = await fetch("/api/whoami");
    if (r.status === 404) { auth.mode = "header"; return; }
    const body = await r.json();
    auth.mode = "cookie";
    auth.paired = Boolean(body.paired);
  } catch (e) { auth.mode = "header"; }
}

function authorised() { return auth.mode === "cookie" ? auth.paired : Boolean(auth.pin); }

function authHeaders() {
  const h = { "Content-Type": "application/json" };
  if (auth.pin) h["X-Table-Pin"] = auth.pin;
  return h;
}

// Checks a PIN at once: {ok} or {ok: false, message}.
async function checkPin(pin) {
  if (auth.mode === "cookie") {
    const r = await fetch("/api/pair", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pin }) });
    const body = await r.json().catch(() => ({}));
    if (r.ok) { auth.paired = true; auth.pin = pin; sessionStorage.setItem("tablePin", pin); return { ok: true }; }
    if (r.status === 429) return { ok: false, message: `Too many tries: wait ${Math.ceil(body.retry_after || 60)} s.`, locked: true };
    if (r.status === 404) { auth.mode = "header"; return checkPin(pin); }
    const left = body.attempts_left;
    return { ok: false, message: left !== undefined ? `Wrong PIN. ${left} ${left === 1 ? "try" : "tries"} left.` : "Wrong PIN." };
  }
  // no pairing route here: an empty change with the PIN is refused 403 for a wrong PIN only
  const r = await fetch("/api/actions", { method: "POST", headers: { "Content-Type": "application/json", "X-Table-Pin": pin },
    body: "{}" });
  if (r.status === 403) return { ok: false, message: "Wrong PIN." };
  auth.pin = pin;
  sessionStorage.setItem("tablePin", pin);
  return { ok: true };
}

// A PIN pad of big buttons in a dialog; resolves true once a right PIN was entered.
function askPin(reason) {
  return new Promise((resolve) => {
    const dialog = el("dialog", { id: "pin-pad", class: "pin-pad" });
    const title = el("p", { class: "pin-title" }, reason || "Enter the table PIN (shown where the companion started).");
    const shown = el("p", { id: "pin-shown", class: "pin-shown" }, "····");
    const message = el("p", { id: "pin-message", role: "alert" });
    const grid = el("div", { class: "pin-grid" });
    let digits = "";
    const update = () => { shown.textContent = digits ? "●".repeat(digits.length) : "····"; };
    const close = (ok) => { dialog.close(); dialog.remove(); resolve(ok); };
    for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"]) {
      const b = el("button", { "data-pin": d, class: d === "OK" ? "primary" : "" }, d);
      b.addEventListener("click", async () => {
        if (d === "⌫") { digits = digits.slice(0, -1); update(); return; }
        if (d !== "OK") { if (digits.length < 12) digits += d; update(); message.textContent = ""; return; }
        if (!digits) { message.textContent = "Tap the digits of the PIN first."; return; }
        b.disabled = true;
        const result = await checkPin(digits);
        b.disabled = false;
        if (result.ok) { close(true); return; }
        digits = ""; update();
        message.className = "bad";
        message.textContent = result.message;
      });
      grid.append(b);
    }
    const cancel = el("button", { class: "secondary", "data-pin": "cancel" }, "Cancel");
    cancel.addEventListener("click", () => close(false));
    dialog.append(title, shown, message, grid, cancel);
    document.body.append(dialog);
    dialog.showModal();
  });
}

// POST a change; asks for the PIN first when needed. Returns {status, body}.
async function postChange(url, payload) {
  if (auth.mode === "unknown") await loadAuth();
  if (!authorised() && !(await askPin())) return { status: 0, body: { error: "No PIN entered: nothing was changed." } };
  for (let attempt = 0; attempt < 3; attempt++) {
    let r;
    try {
      r = await fetch(url, { method: "POST", headers: authHeaders(), body: JSON.stringify(payload) });
    } catch (e) {  // the network dropped: the same request id is sent again, applied once
      await new Promise((res) => setTimeout(res, 500));
      continue;
    }
    const body = await r.json().catch(() => ({ error: r.statusText }));
    if (r.status === 403 && !body.attempts_left) {
      auth.paired = false; auth.pin = null;
      sessionStorage.removeItem("tablePin");
      if (await askPin("The PIN is needed again on this device.")) continue;
    }
    return { status: r.status, body };
  }
  return { status: 0, body: { error: "The companion does not answer: try again." } };
}

function qrSvg(text) {
  const qr = qrcode(0, "M");  // vendor/qrcode-generator
  qr.addData(text);
  qr.make();
  const wrap = el("div", { class: "qr" });
  wrap.innerHTML = qr.createSvgTag({ cellSize: 6, margin: 2, scalable: true });
  return wrap;
}
