// The table view: one EventSource (full states, then deltas), the whose-turn banner, the
// players' clocks, the tap-only declaration form built from GET /api/forms, the board, the
// details in words and the history with undo and replace (confirmed, one request id each).
"use strict";
let layout = null;
let latest = null;
let receivedAt = 0;
let forms = null;        // the GET /api/forms answer for the current state
let formsLoading = null;
let form = null;         // the declaration being built: {type, chosen, requestId, correcting}
let gamesInfo = {};      // /api/games by name (house rule words)
let sensedOpen = null;   // the forms key for which "the table missed something" is open

// ------------------------------------------------------------------ state and its key
function stateKey(s) {  // the newest effective entry names the state (as /api/forms does)
  let last = 0;
  for (const h of s.history) if (!h.undone && h.seq > last) last = h.seq;
  return String(last);
}

function newestEffective(s) {  // the newest standing move (a "record is right" line is no move)
  let newest = null;
  for (const h of s.history) if (!h.undone && !isNote(h) && (!newest || h.seq > newest.seq)) newest = h;
  return newest;
}

function isNote(h) { return h.kind === "keep_record"; }

// ------------------------------------------------------------------ forms
// correcting: true for the newest move, a move's number for an earlier one
async function loadForms(correcting = false) {
  const url = correcting === true ? "/api/forms?correct=1"
    : correcting ? `/api/forms?entry=${correcting}` : "/api/forms";
  const r = await fetch(url);
  if (!r.ok) return null;
  const body = await r.json();
  return body;
}

// One forms request at a time: states that arrive meanwhile ask again once it is back.
let formsDirty = false;
// A forms request refused or lost (a busy Wi-Fi, a companion restarting) is asked again while
// the state it was for still stands, a second later, then less often: with no new state to
// prompt it the page would otherwise offer nothing to declare until the table moved.
const FORMS_RETRY_MS = 1000;
const FORMS_RETRY_MAX_MS = 8000;
const formsRetry = { timer: null, wait: FORMS_RETRY_MS };
const FORMS_LOST = "What can be declared did not arrive: asking the companion again.";
function askFormsAgain() {
  if (formsRetry.timer) return;
  showResult(FORMS_LOST, "info");
  formsRetry.timer = setTimeout(() => { formsRetry.timer = null; refreshForms(); }, formsRetry.wait);
  formsRetry.wait = Math.min(2 * formsRetry.wait, FORMS_RETRY_MAX_MS);
}
async function refreshForms() {
  if (!latest) return;
  if (formsLoading) { formsDirty = true; return; }
  try {
    await refreshFormsNow();
  } finally {
    formsLoading = null;
    if (formsDirty) { formsDirty = false; refreshForms(); }
  }
}

async function refreshFormsNow() {
  const key = stateKey(latest);
  if (forms && forms.correct) {
    if (forms.key === key) return;  // still replacing the same move
    form = null; forms = null;
    $("declare-title").textContent = "Declare";
    showResult("The table moved on: replacing was cancelled.", "info");
  }
  if (forms && forms.key === key) return;
  const loading = loadForms(false).catch(() => null);
  formsLoading = loading;
  const body = await loading;
  if (!body) {
    if (stateKey(latest) === key) askFormsAgain();
    return;
  }
  formsRetry.wait = FORMS_RETRY_MS;
  if ($("action-result").textContent === FORMS_LOST) showResult("", "");
  // built for another state than the one shown: the next state's render asks again
  if (stateKey(latest) !== body.key) return;
  if (form && form.sending) return;  // our own declaration moved the table: submit() finishes it
  if (form && !form.correcting && form.key !== body.key) {
    form = null;
    showResult("The table moved on: choose again.", "info");
  }
  forms = body;
  document.body.dataset.formsKey = body.key;
  // a prompt's one-tap options are named by the forms' labels ("Which two Dancers:
  // Nightclub 3 (2) and Nightclub 4 (3)"), which have only now arrived for this state
  if (latest.prompts.some((p) => p.options && p.options.length)) renderPrompts(latest);
  renderForm();
}

function typeInfo(type) { return forms && forms.types.find((t) => t.type === type); }

// A "many" field's choice is a list of value indexes (items toggled together; [] for none):
// a row fits when it names one of them, or none when none was chosen.
function fits(f, chosen, index) {
  if (!f.many) return index === chosen;
  return chosen.length ? chosen.includes(index) : index === -1;
}

function remainingRows(info, chosen) {
  return info.rows.filter((row) => info.fields.every((f, i) => !(f.name in chosen) || fits(f, chosen[f.name], row[i])));
}

function actionOf(info, row, chosen = {}) {
  const action = { type: info.type };
  info.fields.forEach((f, i) => {
    let value;
    if (f.many && Array.isArray(chosen[f.name])) {
      if (!chosen[f.name].length) return;
      value = chosen[f.name].map((k) => f.values[k].v);
    } else if (row[i] >= 0) {
      value = f.many ? [f.values[row[i]].v] : f.values[row[i]].v;
    } else return;
    if (f.part_of !== undefined) (action[f.part_of] = action[f.part_of] || [])[f.part] = value;  // one part of a combination
    else action[f.name] = value;
  });
  return action;
}

function rowLabel(info, row, skip = new Set(), chosen = {}) {
  const parts = [];
  info.fields.forEach((f, i) => {
    if (skip.has(f.name)) return;
    if (f.many && Array.isArray(chosen[f.name])) {
      if (chosen[f.name].length) parts.push(`${f.label}: ${chosen[f.name].map((k) => f.values[k].label).join(", ")}`);
    } else if (row[i] >= 0) {
      parts.push(`${f.label}: ${f.values[row[i]].label}`);
    }
  });
  return parts.join(" · ") || info.label;
}

const STEP_LIMIT = 8;  // options one step offers at most: more are narrowed by their groups

/** The values of a step as the player narrows them: {groups, path} while more than
 * STEP_LIMIT remain and the form sent groups for them, else {values, path}. ``distinct``
 * are value indexes (-1: none); ``path`` the groups chosen so far. */
function narrowed(f, distinct, path) {
  let here = distinct.filter((i) => i < 0 || path.every((k, l) => (f.values[i].group || [])[l] === k));
  let level = path.length;
  for (;;) {
    const real = here.filter((i) => i >= 0);
    if (real.length <= STEP_LIMIT) break;
    const keys = [...new Set(real.map((i) => (f.values[i].group || [])[level]))];
    if (keys.some((k) => k === undefined)) break;
    if (keys.length > 1) {
      return { path, groups: keys.map((key) => ({ key, members: real.filter((i) => f.values[i].group[level] === key) })),
        none: here.includes(-1) };
    }
    path = path.concat(keys);  // one group only: straight inside it
    level += 1;
  }
  return { path, values: here };
}

/** The group buttons of a step (each with the values it holds, for a finger or a test). */
function groupButtons(f, view) {
  const grid = el("div", { class: "choices" });
  for (const g of view.groups) {
    grid.append(bigButton(`${g.key} (${g.members.length})`, { "data-group": g.key,
      "data-values": JSON.stringify(g.members.map((i) => f.values[i].v)) }, () => {
      form.path[f.name] = view.path.concat([g.key]);
      renderForm();
    }, "group"));
  }
  return grid;
}

function groupsBack(f, view) {
  if (!(form.path[f.name] || []).length) return null;
  return bigButton(`Other ${f.label.toLowerCase()}`, { "data-groups-back": f.name }, () => {
    form.path[f.name] = [];
    renderForm();
  }, "secondary");
}

// The label of any action (a prompt's option) from the forms, else its type in words.
function labelAction(action) {
  if (action.type === "correct" && action.action && typeof action.action === "object") {
    // the entry by its number in the history (as the prompt names it), the reading the table shows now
    const entry = action.entry && latest ? moveNumber(latest, action.entry) : action.entry;
    return `Correct ${entry ? `#${entry}` : "it"}: ${labelAction(action.action)}`;
  }
  // a move the table shows was never made, taken back: named as the prompt names its entry
  if (action.type === "undo" && Number.isInteger(action.seq)) {
    const number = (seq) => (latest ? moveNumber(latest, seq) : seq);
    // two moves nobody made (a piece knocked and put back), taken back with one tap
    if (Number.isInteger(action.through)) return `Undo #${number(action.through)} and #${number(action.seq)}`;
    return `Undo #${number(action.seq)}`;
  }
  // the ways out of a disagreement between the table and the record
  if (action.type === "keep_record") return "The record is right: I'll set the table as it says";
  if (action.type === "reread") return "Read the table again";
  if (action.type === "forget_taps") return "Forget the cards tapped";
  // what a place the camera cannot read holds, in the table's words ("A3 red shows red (3)")
  if (action.type === "reads" && typeof action.says === "string") return action.says;
  const info = typeInfo(action.type);
  if (!info) {  // not offered as a form now: its type and values in words
    const rest = Object.entries(action).filter(([k]) => k !== "type" && k !== "player")
      .map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(", ") : (v && typeof v === "object" ? Object.values(v).join(", ") : v)}`);
    return [words(action.type), ...rest].join(": ");
  }
  const parts = [info.label];
  for (const f of info.fields) {
    const given = f.part_of !== undefined ? (action[f.part_of] || [])[f.part] : action[f.name];
    if (given === undefined || f.name === "player") continue;
    const key = JSON.stringify(given);
    const v = f.values.find((x) => JSON.stringify(x.v) === key);
    parts.push(v ? v.label : renderValue(given).textContent);
  }
  return parts.join(": ");
}

function startForm(type) {
  form = { type, chosen: {}, path: {}, key: forms.key, correcting: forms.correct, replacing: forms.replacing,
    earlier: forms.earlier, requestId: null, taps: 1 };
  showResult("", "");
  renderForm();
}

function bigButton(text, attrs, onClick, cls = "") {
  const b = el("button", { ...attrs, class: `choice ${cls}`.trim() }, text);
  b.addEventListener("click", () => { if (form) form.taps += 1; onClick(b); });
  return b;
}

function renderForm() {
  renderFormSteps();
  if (forms && forms.correct) {
    const cancel = el("button", { class: "secondary", "data-cancel-replace": "1" }, "Cancel replacing");
    cancel.addEventListener("click", () => {
      form = null; forms = null;
      $("declare-title").textContent = "Declare";
      showResult("", "");
      refreshForms();
    });
    $("form").append(cancel);
  }
  arrange();  // the declare panel changed height: the details balance the columns again
}

function renderFormSteps() {
  const box = $("form");
  box.replaceChildren();
  if (!forms) return;
  if (latest && latest.over && !form) { box.dataset.step = "over"; return; }
  if (!form) {
    box.dataset.step = "types";
    const declared = forms.types.filter((t) => t.declared);
    const sensed = forms.types.filter((t) => !t.declared);
    const grid = el("div", { class: "choices" });
    for (const t of declared) {
      const b = el("button", { class: "choice type", "data-type": t.type, title: t.hint || "" }, t.label);
      b.addEventListener("click", () => startForm(t.type));
      grid.append(b);
    }
    box.append(grid);
    if (sensed.length) {  // what the table reads itself, behind one tap (a short first step)
      const open = sensedOpen === forms.key;
      const toggle = el("button", { class: "secondary", "data-sensed-open": "1", "data-local": "1",
        "aria-expanded": String(open) }, open ? "Hide what the table reads itself"
        : `The table missed something… (${sensed.length})`);
      toggle.addEventListener("click", () => { sensedOpen = open ? null : forms.key; renderForm(); });
      box.append(toggle);
      if (open) {
        box.append(el("p", { class: "note" }, "Usually read by the table itself; declare only if it missed one:"));
        const more = el("div", { class: "choices" });
        for (const t of sensed) {
          const b = el("button", { class: "choice type sensed", "data-type": t.type }, t.label);
          b.addEventListener("click", () => startForm(t.type));
          more.append(b);
        }
        box.append(more);
      }
    }
    if (!forms.types.length) box.append(el("p", { class: "note" }, "Nothing to declare right now."));
    return;
  }
  const info = typeInfo(form.type);
  if (!info) { form = null; renderFormSteps(); return; }
  const rows = remainingRows(info, form.chosen);
  const head = el("p", { class: "form-head" }, form.correcting ? `Replace with: ${info.label}` : info.label);
  if (info.hint) head.append(el("span", { class: "hint" }, ` — ${info.hint}`));
  box.append(head);
  // fill what has one remaining choice; ask the first field that still has several
  let asking = null;
  for (const [i, f] of info.fields.entries()) {
    if (f.name in form.chosen) continue;
    const distinct = [...new Set(rows.map((r) => r[i]))];
    if (distinct.length === 1) {
      form.chosen[f.name] = f.many ? (distinct[0] === -1 ? [] : [distinct[0]]) : distinct[0];
      continue;
    }
    asking = { f, i, distinct };
    break;
  }
  const back = bigButton("Back", { "data-back": "1" }, () => { form = null; renderForm(); }, "secondary");
  if (asking && asking.f.many) {
    // toggle any number of items (narrowed by group when many), then Done (none chosen:
    // the action without them, if legal)
    box.dataset.step = `field:${asking.f.name}`;
    box.append(el("p", { class: "field-label" }, asking.f.label));
    const picked = form.toggled || (form.toggled = []);
    if (picked.length) box.append(el("p", { class: "so-far" }, `Chosen: ${picked.map((k) => asking.f.values[k].label).join(", ")}`));
    const view = narrowed(asking.f, asking.distinct.filter((k) => k >= 0), form.path[asking.f.name] || []);
    if (view.groups) {
      box.append(groupButtons(asking.f, view));
    } else {
      const grid = el("div", { class: "choices" });
      for (const idx of view.values) {
        const v = asking.f.values[idx];
        const on = picked.includes(idx);
        grid.append(bigButton(v.label, { "data-field": asking.f.name, "data-value": JSON.stringify(v.v),
          "data-many": "1", "aria-pressed": on ? "true" : "false" }, () => {
          form.toggled = on ? picked.filter((k) => k !== idx) : picked.concat([idx]);
          renderForm();
        }, on ? "on" : ""));
      }
      box.append(grid);
    }
    const noneAllowed = asking.distinct.includes(-1);
    const done = bigButton(picked.length ? `Done: ${picked.length} chosen` : "Done: none",
      { "data-done": asking.f.name }, () => {
        form.chosen[asking.f.name] = picked.slice().sort((a, b) => a - b);
        form.toggled = null;
        renderForm();
      }, "primary");
    done.disabled = !picked.length && !noneAllowed;
    const other = groupsBack(asking.f, view);
    box.append(done);
    if (other) box.append(other);
    box.append(back);
    return;
  }
  if (asking && rows.length <= 6 && info.fields.filter((f) => !(f.name in form.chosen)).length > 1
      && !info.fields.some((f) => f.many && !(f.name in form.chosen))) {
    // few actions left: offer them whole (one tap instead of one per field)
    box.dataset.step = "pick";
    const fixed = new Set(Object.keys(form.chosen));
    const grid = el("div", { class: "choices" });
    for (const row of rows) {
      grid.append(bigButton(rowLabel(info, row, fixed), { "data-action": JSON.stringify(actionOf(info, row)) },
        () => { info.fields.forEach((f, i) => { form.chosen[f.name] = row[i]; }); renderForm(); }));
    }
    box.append(grid, back);
    return;
  }
  if (asking) {
    box.dataset.step = `field:${asking.f.name}`;
    // the parts chosen so far, in words (one part at a time: "Nightclub 1: 2 · Nightclub 2: 4")
    const unchosen = new Set(info.fields.filter((f) => !(f.name in form.chosen)).map((f) => f.name));
    const sofar = rowLabel(info, rows[0], unchosen, form.chosen);
    if (sofar !== info.label) box.append(el("p", { class: "so-far" }, sofar));
    box.append(el("p", { class: "field-label" }, asking.f.label));
    const view = narrowed(asking.f, asking.distinct, form.path[asking.f.name] || []);
    const grid = view.groups ? groupButtons(asking.f, view) : el("div", { class: "choices" });
    const plain = view.groups ? (view.none ? [-1] : []) : view.values;
    for (const idx of plain) {
      const v = idx >= 0 ? asking.f.values[idx] : { v: null, label: "none" };
      grid.append(bigButton(v.label, { "data-field": asking.f.name, "data-value": JSON.stringify(v.v) },
        () => { form.chosen[asking.f.name] = idx; renderForm(); }));
    }
    box.append(grid);
    const other = groupsBack(asking.f, view);
    if (other) box.append(other);
    box.append(back);
    return;
  }
  // everything chosen: say it in words, then confirm
  box.dataset.step = "confirm";
  const row = rows[0];
  const action = actionOf(info, row, form.chosen);
  if (!form.requestId) form.requestId = newRequestId();  // one id per confirmed form, kept on retry
  box.append(el("p", { class: "confirm-text" }, rowLabel(info, row, new Set(), form.chosen)));
  const confirm = bigButton(form.correcting ? "Replace" : "Confirm",
    { "data-confirm": "1", "data-request": form.requestId }, (b) => submit(action, b), "primary");
  box.append(el("div", { class: "row" }, ""), confirm, back);
}

async function submit(action, button) {
  if (!form || form.sending) return;  // a double tap sends once
  const sent = form;
  form.sending = true;
  button.disabled = true;
  const requestId = sent.requestId;
  // the newest move is named as the newest (refused if another came since); an earlier one
  // as the entry to replace, the moves since standing when they still can
  const correction = sent.earlier ? { type: "correct", action, entry: sent.replacing }
    : { type: "correct", action, seq: sent.replacing };
  const payload = sent.correcting ? { action: correction, request_id: requestId }
    : { action, request_id: requestId };
  const { status, body } = await postChange("/api/actions", payload);
  document.body.dataset.lastRequest = requestId;
  document.body.dataset.lastStatus = String(status);
  if (status === 200) {
    const taps = sent.taps;
    window.tapLog = (window.tapLog || []).concat([{ type: action.type, taps }]);
    showResult(body.entry ? `Recorded: ${body.entry.text}` : "Recorded.", "ok");
    form = null;
    forms = null;
    $("declare-title").textContent = "Declare";
    if (body.state) render(body.state);
    refreshForms();
  } else {
    sent.sending = false;
    button.disabled = false;
    showResult(refusal(body), "bad");
    sayAt(button, refusal(body));
  }
}

function refusal(body) {
  if (!body) return "Refused.";
  return body.rule ? `Refused: ${body.error} (rule: ${body.rule})` : `Refused: ${body.error || "try again"}`;
}

function showResult(text, kind) {
  const result = $("action-result");
  result.className = kind;
  result.textContent = text;
}

// ------------------------------------------------------------------ history, undo, replace
function openSheet(title, lines) {
  $("sheet-body").replaceChildren(el("h3", {}, title), ...lines.map((l) => el("p", {}, l)));
  $("sheet-result").textContent = "";
  $("sheet-buttons").replaceChildren();
  if (!$("sheet").open) $("sheet").showModal();
}

function entryLines(h) {
  const when = new Date(h.at * 1000).toLocaleTimeString();
  const source = { tablet: "declared on the tablet", camera: "seen by the camera", cards: "read from a card",
    table: "the table's button", script: "a replay script" }[h.source] || words(h.source);
  return [h.text, `Move ${latest ? moveNumber(latest, h.seq) : h.seq} · ${source} · ${when}${h.undone ? " · undone" : ""}`];
}

function openEntry(h) {
  openSheet(`${isNote(h) ? "Line" : "Move"} ${latest ? moveNumber(latest, h.seq) : h.seq}`, entryLines(h));
  if (isNote(h)) {  // the players' word that the record is right: nothing to undo or replace
    $("sheet-buttons").append(el("p", { class: "note" }, "The record stood as it was; the table was to be set as it says."));
    return;
  }
  const newest = latest && newestEffective(latest);
  const buttons = $("sheet-buttons");
  if (h.undone) { buttons.append(el("p", { class: "note" }, "This move was taken back.")); return; }
  if (!newest || newest.seq !== h.seq) {
    // a misread card that stayed on the table: replace the move, the moves since stand
    const replace = el("button", { "data-replace": String(h.seq) }, "Replace it…");
    replace.addEventListener("click", () => startReplace(h, true));
    buttons.append(el("p", { class: "note" }, "Only the newest move can be undone. Replacing this one keeps the moves since, when they still apply."), replace);
    return;
  }
  const undo = el("button", { "data-undo": String(h.seq) }, "Undo this move…");
  undo.addEventListener("click", () => confirmUndo(h));
  const replace = el("button", { "data-replace": String(h.seq) }, "Replace it…");
  replace.addEventListener("click", () => startReplace(h));
  buttons.append(undo, replace);
}

function confirmUndo(h) {
  openSheet("Undo this move?", entryLines(h));
  const requestId = newRequestId();
  let sending = false;
  const yes = el("button", { class: "primary", "data-confirm-undo": String(h.seq) }, "Yes, undo it");
  yes.addEventListener("click", async () => {
    if (sending) return;  // a double tap undoes once
    sending = true;
    yes.disabled = true;
    const { status, body } = await postChange("/api/actions", { action: { type: "undo", seq: h.seq }, request_id: requestId });
    if (status === 200) {
      $("sheet").close();
      showResult(body.duplicate ? "Already undone." : `Undone: ${h.text}`, "ok");
      if (body.state) render(body.state);
    } else {
      sending = false;
      yes.disabled = false;
      $("sheet-result").className = "bad";
      $("sheet-result").textContent = refusal(body);
    }
  });
  $("sheet-buttons").replaceChildren(yes);
}

async function startReplace(h, earlier = false) {
  const body = await loadForms(earlier ? h.seq : true);
  $("sheet").close();
  if (!body) { showResult("This move cannot be replaced now.", "bad"); return; }
  forms = body;
  forms.replacing = h.seq;  // sent with the replacement: refused if another move came since
  forms.earlier = earlier;
  form = null;
  $("declare-title").textContent = `Replace move ${latest ? moveNumber(latest, h.seq) : h.seq}`;
  showResult(`Choose what happened instead of: ${h.text}`, "info");
  renderForm();
}

// ------------------------------------------------------------------ rendering the state
/** The ink (black or white) that reads best on a CSS colour: the higher WCAG contrast, which
 * is at least 4.58:1 for any colour. */
function luminance(css) {
  const v = (String(css).match(/[\d.]+/g) || []).map(Number);
  if (v.length < 3) return 0;
  const [r, g, b] = v.slice(0, 3).map((x) => { const c = x / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function inkOn(background) {
  const l = luminance(background);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff";
}

/** Set-up comes before the game: no turn, no clock. */
function settingUp(s) { return s.phase === "setup" && !s.over; }

function renderBanner(s) {
  const banner = $("banner");
  const turnPlayer = s.turn !== null && s.turn !== undefined && !settingUp(s) ? s.players[s.turn] : null;
  let text;
  if (s.over) {
    const names = (s.winner || []).map((w) => s.players[w].name).join(" & ");
    text = names ? `${names} ${s.winner.length > 1 ? "win" : "wins"}!` : "Game over";
    banner.style.setProperty("--turn", s.winner && s.winner.length ? s.players[s.winner[0]].colour : "#555");
  } else if (turnPlayer) {
    text = `${turnPlayer.name}'s turn`;
    banner.style.setProperty("--turn", turnPlayer.colour || "#f0b429");
  } else {
    text = s.phase_label || "Everyone";
    banner.style.setProperty("--turn", "#555");
  }
  banner.style.setProperty("--turn-ink", inkOn(getComputedStyle(banner).backgroundColor));
  $("banner-text").textContent = text;
  $("banner-text").classList.toggle("phase-text", !turnPlayer && !s.over);  // a phase may take two lines
  banner.title = text;  // (and on a long press)
  banner.classList.toggle("time-up", Boolean(s.time_up) && !s.over);
  banner.classList.toggle("paused", Boolean(s.paused) && !s.over);
  banner.dataset.turn = s.turn ?? "";
  $("pause").textContent = s.paused ? "Resume clocks" : "Pause clocks";
  $("pause").dataset.clock = s.paused ? "resume" : "pause";
  $("pause").hidden = Boolean(s.over) || settingUp(s);  // no clock runs before the start or after the end
  document.body.dataset.paused = s.paused ? "1" : "0";
  fitBanner();
}

/** The banner says whose turn it is whole, never cut with "…": a long name shrinks the
 * text down to its size's --banner-min-px, then wraps onto a second line. */
function fitBanner() {
  const text = $("banner-text");
  text.style.fontSize = "";
  text.classList.remove("wrap");
  const min = parseFloat(getComputedStyle(text).getPropertyValue("--banner-min-px")) || 24;
  let px = parseFloat(getComputedStyle(text).fontSize);
  const cut = () => text.scrollWidth > text.clientWidth + 1;
  while (cut() && px > min) {
    px = Math.max(min, px - 2);
    text.style.fontSize = `${px}px`;
  }
  if (cut()) text.classList.add("wrap");
}

function turnClockText(s, extra) {
  if (s.over || settingUp(s) || s.turn === null || s.turn === undefined) return "";
  const used = (s.turn_s || 0) + extra;
  if (s.paused) return `Paused · ${fmtClock(used)}`;
  if (s.time_up) return `Time is up · ${fmtClock(used)}`;
  if (s.turn_limit_s) return `${fmtClock(Math.max(0, s.turn_limit_s - used))} left`;
  return fmtClock(used);
}

/** Each seat's resources and team, read from the details: every entry that names the
 * player (or a team "A & C" the player is in) gives a line on the player's card. */
function playerFacts(s) {
  const names = s.players.map((p) => p.name);
  const facts = s.players.map(() => ({ holds: [], team: null }));
  for (const [key, value] of Object.entries(s.summary || {})) {
    if (!value || typeof value !== "object" || Array.isArray(value) || /house rules/i.test(key)) continue;
    for (const [who, what] of Object.entries(value)) {
      if (what !== null && typeof what === "object") continue;
      const team = who.includes(" & ") ? who.split(" & ").map((n) => n.trim()) : null;
      names.forEach((name, seat) => {
        if (who === name) facts[seat].holds.push([key, what]);
        else if (team && team.includes(name)) { facts[seat].team = who; facts[seat].holds.push([key, what]); }
      });
    }
  }
  return facts;
}

function renderPlayers(s) {
  const list = $("players");
  list.replaceChildren();
  const facts = playerFacts(s);
  for (const p of s.players) {
    const li = el("li", { "data-seat": p.seat });
    li.style.setProperty("--seat", p.colour || "#888");
    if (s.turn === p.seat && !s.over && !settingUp(s)) li.classList.add("turn");
    if (s.over && (s.winner || []).includes(p.seat)) li.classList.add("winner");
    const who = el("div", { class: "who" });
    who.append(el("span", { class: "name" }, p.name));
    const { holds, team } = facts[p.seat];
    if (team) who.append(el("span", { class: "team" }, `Team ${team}`));
    if (!settingUp(s)) who.append(el("span", { class: "clock", "data-clock": p.clock_s }, fmtClock(p.clock_s)));
    li.append(who, el("span", { class: "score" }, String(p.score)));
    if (holds.length) {
      const line = el("p", { class: "holds" });
      for (const [key, what] of holds) {
        const item = el("span");
        if (!/^players$/i.test(key)) item.append(el("b", {}, `${words(key)}: `));
        item.append(document.createTextNode(String(what)));
        line.append(item);
      }
      li.append(line);
    }
    list.append(li);
  }
  $("outcome").textContent = s.over ? (s.reason || "") : "";
}

// A list is drawn again only when what it shows changed: every state the table publishes (a
// card tapped, a camera notice) would otherwise replace its buttons, and a tap landing as they
// are replaced reaches none (the browser test that tapped a history entry as a correction's
// update came in); a prompt opened with "More" would close again too.
const drawnAs = {};  // each list's contents as last drawn

/** Whether ``list`` must be drawn again: what it shows (``shown``) differs from when it last was. */
function showsAnew(list, shown) {
  const key = JSON.stringify(shown);
  if (drawnAs[list] === key) return false;
  drawnAs[list] = key;
  return true;
}

function renderPrompts(s) {
  const list = $("prompts");
  // a warning waits on the players (the record or the table is wrong): on a phone it comes first
  $("declare-panel").classList.toggle("warned", s.prompts.some((p) => p.kind === "warning"));
  // (options are worded from the forms, naming entries by their numbers in the history)
  const worded = s.prompts.some((p) => p.options && p.options.length)
    ? [forms && forms.key, forms && forms.types.length, s.history_total, s.history.map((h) => [h.seq, h.move])] : [];
  if (!showsAnew("prompts", [s.prompts, worded])) return;
  list.replaceChildren();
  for (const p of s.prompts) {
    const li = el("li", { class: p.kind });
    const text = el("span", { class: "prompt-text" }, p.text);
    li.append(text);
    if (p.text.length > 80) {  // two lines at a glance, the rest on a tap
      const more = el("button", { class: "more secondary", "data-local": "1", "aria-expanded": "false" }, "More");
      more.addEventListener("click", () => {
        const open = li.classList.toggle("open");
        more.textContent = open ? "Less" : "More";
        more.setAttribute("aria-expanded", String(open));
        arrange();  // the declare column grew or shrank
      });
      li.append(more);
    }
    if (p.options && p.options.length) {
      const grid = el("div", { class: "choices" });
      const byType = {};
      for (const option of p.options) byType[option.type] = (byType[option.type] || 0) + 1;
      let heading = null;
      for (const [i, option] of p.options.entries()) {
        // the table's own words for a correction whose values the forms no longer offer
        let text = (p.labels && p.labels[i]) || labelAction(option);
        const info = typeInfo(option.type);
        if (byType[option.type] > 1 && info && text.startsWith(`${info.label}: `)) {
          if (heading !== option.type) {  // "Turn the captured die (1 Offering):" once, then each face
            heading = option.type;
            grid.append(el("p", { class: "option-head" }, `${info.label}:`));
          }
          text = text.slice(info.label.length + 2);
        }
        const b = el("button", { class: "choice", "data-option": JSON.stringify(option) }, text);
        b.addEventListener("click", async () => {
          b.disabled = true;
          const { status, body } = await postChange("/api/actions", { action: option, request_id: newRequestId() });
          b.disabled = false;
          showResult(status === 200 ? (body.entry ? `Recorded: ${body.entry.text}` : "Recorded.") : refusal(body),
            status === 200 ? "ok" : "bad");
          if (status !== 200) sayAt(b, refusal(body));
        });
        grid.append(b);
      }
      li.append(grid);
    }
    list.append(li);
  }
}

// The cards tapped on the readers since the last move: a card tapped by mistake, twice, or
// for a move the table refused would be read into every later press, so each can be taken
// back by a tap.
function renderTaps(s) {
  const box = $("taps");
  const taps = s.taps || [];
  box.hidden = taps.length === 0;
  if (!showsAnew("taps", taps)) return;  // (drawn again only when they changed, as the prompts are)
  box.replaceChildren(box.firstElementChild);
  for (const t of taps) {
    const b = el("button", { class: "tap", "data-forget-tap": t.card }, `${t.name || t.card} ✕`);
    b.addEventListener("click", async () => {
      b.disabled = true;
      const { status, body } = await postChange("/api/actions", { action: { type: "forget_taps", card: t.card }, request_id: newRequestId() });
      showResult(status === 200 ? `Taken back: ${t.name || t.card}` : refusal(body), status === 200 ? "ok" : "bad");
      if (status === 200 && body.state) render(body.state); else b.disabled = false;
    });
    box.append(b);
  }
}

/** A move's number as players count them: its place in the table's history (1, 2, 3...,
 * an undone move keeps its number, struck through), not the log's sequence number. The
 * page holds the newest entries, so the newest is number history_total. */
function moveNumber(s, seq) {
  const entry = s.history.find((h) => h.seq === seq);
  if (entry && entry.move) return entry.move;  // numbered by the table
  const total = s.history_total ?? s.history.length;
  return total - s.history.filter((h) => h.seq > seq).length;
}

const HISTORY_FIRST = 8;  // moves shown at first; more on a tap (never a box that cuts a row)
const HISTORY_SPARE = 24;  // moves drawn hidden beyond those, shown where a column has room
let historyShown = HISTORY_FIRST;

function renderHistory(s) {
  const list = $("history");
  const newestFirst = [...s.history].sort((a, b) => b.seq - a.seq);
  const shown = newestFirst.slice(0, Math.max(historyShown, HISTORY_SPARE));
  $("undo").disabled = !s.can_undo;
  if (!showsAnew("history", [historyShown, s.history_total, shown.map((h) => [h, moveNumber(s, h.seq)])])) return;
  list.replaceChildren();
  shown.forEach((h, i) => {
    const number = moveNumber(s, h.seq);
    const li = el("li", { "data-seq": h.seq, "data-move": number });
    li.hidden = i >= historyShown;  // arrange.js shows more where the column has room, or fewer
    const b = el("button", { class: "entry", "data-entry": h.seq });
    b.append(el("span", { class: "seq" }, String(number)), el("span", { class: "text" }, h.text));
    if (h.undone) li.classList.add("undone");
    b.addEventListener("click", () => openEntry(h));
    li.append(b);
    list.append(li);
  });
  if (!newestFirst.length) list.append(el("li", { class: "note" }, "No moves yet."));
  list.dataset.total = String(s.history_total ?? s.history.length);
  list.dataset.first = String(historyShown);
  list.dataset.atLeast = String(historyShown > HISTORY_FIRST ? historyShown : HISTORY_AT_LEAST);
  showOlder();
}

async function loadOlder() {
  if (!latest) return;
  historyShown += 20;
  if (historyShown > latest.history.length && latest.history.length) {
    const oldest = Math.min(...latest.history.map((h) => h.seq));
    const r = await fetch(`/api/history?before=${oldest}&limit=50`);
    if (r.ok) {
      const body = await r.json();
      const entries = body.history || body.entries || [];
      const known = new Set(latest.history.map((h) => h.seq));
      latest.history = latest.history.concat(entries.filter((h) => !known.has(h.seq)));
    }
  }
  renderHistory(latest);
  arrange();
}

let pickedSpot = null;  // the place last tapped on the board, named under it in large type

/** "A1 purple: Erzulie Freda Soul Die showing 3" -- a place and what lies on it, in the game's words. */
function spotCaption(s, spot) {
  const name = (pieces) => pieces.length ? pieces.map(([colour, pips]) =>
    (layout.pieces[colour] || colour).replace(/\s*\(.*\)$/, "") + (pips ? ` showing ${pips}` : "")).join(", ") : "empty";
  const here = s.board[spot.id] || [];
  let text = `${spot.label || spot.id}: ${name(here)}`;
  const seen = s.seen ? s.seen[spot.id] || [] : null;
  if (seen !== null && JSON.stringify(seen) !== JSON.stringify(here)) text += `; the camera sees ${name(seen)}`;
  return text;
}

function showSpot(s, spotId) {
  const spot = layout && layout.spots.find((x) => x.id === spotId);
  pickedSpot = spot ? spotId : null;
  $("spot-caption").textContent = spot ? spotCaption(s, spot)
    : "Tap a place on the board to see its name and what lies there.";
  for (const r of $("board").querySelectorAll("rect[data-spot]")) r.classList.toggle("picked", r.dataset.spot === pickedSpot);
}

function renderBoard(s) {
  if (!layout) return;
  const svg = $("board");
  const ns = "http://www.w3.org/2000/svg";
  svg.setAttribute("viewBox", `0 0 ${layout.width} ${layout.height}`);
  svg.replaceChildren();
  const mk = (tag, attrs) => { const n = document.createElementNS(ns, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); return n; };
  svg.append(mk("rect", { x: 0, y: 0, width: layout.width, height: layout.height, fill: layout.colours.board }));
  const seen = s.seen || null;
  let mismatches = 0;
  const labels = [];
  for (const spot of layout.spots) {
    const pieces = s.board[spot.id] || [];
    const differs = seen !== null && JSON.stringify(seen[spot.id] || []) !== JSON.stringify(pieces);
    if (differs) mismatches += 1;
    svg.append(mk("rect", { x: spot.x, y: spot.y, width: spot.w, height: spot.h, fill: layout.colours[spot.fill] || "#ccc",
      stroke: differs ? "#ff2d2d" : "#555", "stroke-width": differs ? Math.max(1.5, spot.w * 0.06) : 0.5,
      "data-spot": spot.id, "data-at": spot.id, class: differs ? "mismatch" : "" }));
    // the label takes a strip of its spot (the top one, or the left one of a tall narrow
    // spot, written upwards); pieces stand beside it, never over it
    const tall = spot.label && spot.h > spot.w * 1.6;
    const labelH = spot.label ? (tall ? Math.min(spot.w * 0.35, Math.max(3, spot.h * 0.14))
      : Math.min(spot.h * 0.3, Math.max(3, spot.w * 0.22))) : 0;
    if (spot.label) labels.push({ spot, labelH, tall });
    const left = tall ? spot.x + labelH : spot.x;
    const w = tall ? spot.w - labelH : spot.w;
    const top = tall ? spot.y : spot.y + labelH;
    const h = tall ? spot.h : spot.h - labelH;
    const n = pieces.length;
    const cols = Math.max(1, Math.ceil(Math.sqrt(n * w / h)));
    const rows = Math.max(1, Math.ceil(n / cols));
    pieces.forEach(([colour, pips], i) => {
      const cx = left + ((i % cols) + 0.5) * w / cols;
      const cy = top + (Math.floor(i / cols) + 0.5) * h / rows;
      const r = 0.4 * Math.min(w / cols, h / rows);
      const fill = layout.colours[colour] || colour;
      const shape = layout.shapes[colour] === "square"
        ? mk("rect", { x: cx - r, y: cy - r, width: 2 * r, height: 2 * r, fill, stroke: "#000", "stroke-width": 0.4, "data-piece": colour, "data-at": spot.id })
        : mk("circle", { cx, cy, r, fill, stroke: "#000", "stroke-width": 0.4, "data-piece": colour, "data-at": spot.id });
      svg.append(shape);
      if (pips) {
        const t = mk("text", { x: cx, y: cy, "font-size": r * 1.1, fill: "#000", "text-anchor": "middle", "dominant-baseline": "central", "font-weight": 700, "data-at": spot.id });
        t.textContent = pips;
        svg.append(t);
      }
    });
  }
  for (const { spot, labelH, tall } of labels) {  // drawn last: on top, fitted to the spot
    const room = tall ? spot.h : spot.w;
    const size = Math.max(1.5, Math.min(labelH * 0.9, room / Math.max(1, spot.label.length * 0.58)));
    const cx = tall ? spot.x + labelH * 0.5 : spot.x + spot.w / 2;
    const cy = tall ? spot.y + spot.h / 2 : spot.y + labelH * 0.5;
    const attrs = { x: cx, y: cy, "font-size": size, fill: "#111", "text-anchor": "middle",
      "dominant-baseline": "central", class: "spot-label", "data-label": spot.id, "data-at": spot.id };
    if (tall) attrs.transform = `rotate(-90 ${cx} ${cy})`;
    if (spot.label.length * 0.58 * size > room * 0.96) {  // never clipped: squeezed to fit
      attrs.textLength = room * 0.94;
      attrs.lengthAdjust = "spacingAndGlyphs";
    }
    const t = mk("text", attrs);
    t.textContent = spot.label;
    svg.append(t);
  }
  $("mismatch-note").hidden = mismatches === 0;
  svg.dataset.mismatches = String(mismatches);
  svg.onclick = (e) => { const at = e.target.closest("[data-at]"); showSpot(latest || s, at ? at.dataset.at : null); };
  if (pickedSpot !== null) showSpot(s, pickedSpot);  // the caption follows the game live
}

/** An entry of the details every player card already shows (one value per player or team). */
function onPlayerCards(s, value) {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const names = s.players.map((p) => p.name);
  const entries = Object.entries(value);
  return entries.length > 0 && entries.every(([who, what]) => (what === null || typeof what !== "object")
    && (names.includes(who) || (who.includes(" & ") && who.split(" & ").some((n) => names.includes(n.trim())))));
}

/** The details in blocks of one entry each (placed in columns by arrange.js), without what
 * the player cards already say. */
function renderDetails(s) {
  const blocks = [];
  const block = (...content) => { const b = el("div", { class: "detail-block" }); b.append(...content); blocks.push(b); };
  for (const [key, value] of Object.entries(s.summary || {})) {
    if (/house rules/i.test(key) || onPlayerCards(s, value)) continue;
    block(renderValue({ [key]: value }));
  }
  const info = gamesInfo[s.game];
  const chosen = s.house_rules || {};
  const quoted = Object.entries(s.summary || {}).find(([key]) => /house rules/i.test(key));
  const rules = {};  // a block each, so that a long list spreads over the columns too
  if (info && info.house_rules.length && Object.keys(chosen).length) {
    for (const rule of info.house_rules) if (rule.id in chosen) rules[rule.title] = rule.choices[chosen[rule.id]] || chosen[rule.id];
  } else if (quoted && quoted[1] && typeof quoted[1] === "object") Object.assign(rules, quoted[1]);
  for (const [title, choice] of Object.entries(rules)) {
    block(el("h3", {}, `House rule: ${title}`), el("p", { class: "rule-choice" }, renderValue(choice).textContent));
  }
  if (!blocks.length) block(renderValue({ Details: "none yet" }));
  detailBlocks = blocks;
}

function render(s) {
  const gameChanged = latest && latest.game_id !== s.game_id;
  const first = !latest;
  latest = s;
  receivedAt = performance.now();
  document.title = `${s.title} · Table Companion`;
  $("title").textContent = s.title;
  $("phase").textContent = `${s.phase_label || words(s.phase)}${s.variant && s.variant !== "standard" ? " · " + words(s.variant) : ""}`;
  renderBanner(s);
  $("phase").hidden = $("phase").textContent === $("banner-text").textContent;  // said once, in the banner
  $("turn-clock").textContent = turnClockText(s, 0);
  fitBanner();  // (the clock beside it has its width now)
  renderPlayers(s);
  renderTaps(s);
  renderPrompts(s);
  renderHistory(s);
  renderBoard(s);
  renderDetails(s);
  arrange();
  if (first || gameChanged) fitScreen(true);  // a TV's text as large as the new game allows
  document.body.dataset.historyLength = String(s.history_total ?? s.history.length);
  document.body.dataset.stateKey = stateKey(s);
  document.body.dataset.over = s.over ? "1" : "0";
  if (gameChanged) { loadLayout().then(() => renderBoard(latest)); forms = null; form = null; }
  refreshForms();
}

// States can arrive faster than a tablet draws: draw only the newest, once per frame.
let pending = null;
function scheduleRender(s) {
  const first = pending === null;
  pending = s;
  // a delta may have drawn it already (applyDelta takes what is pending): then nothing is left
  if (first) requestAnimationFrame(() => { const next = pending; pending = null; if (next) render(next); });
}

// A delta from the server: applied on top of the same revision, else the full state is fetched.
async function applyDelta(d) {
  if (pending) { const next = pending; pending = null; render(next); }
  if (!latest || latest.rev === undefined || d.base !== latest.rev) {
    render(await (await fetch("/api/state")).json());
    return;
  }
  const s = { ...latest, ...(d.set || {}) };
  const history = (d.set && d.set.history) ? d.set.history : [...latest.history];
  if (d.history) {
    const known = new Set(history.map((h) => h.seq));
    for (const h of d.history.add || []) if (!known.has(h.seq)) history.push(h);
    const undone = new Set(d.history.undone || []);
    for (const h of history) if (undone.has(h.seq)) h.undone = true;
  }
  s.history = history;
  s.rev = d.rev;
  render(s);
}

setInterval(() => {  // clocks tick between snapshots (stopped while paused, or the companion away)
  if (!latest || latest.over || latest.paused || away.now) return;
  const extra = (performance.now() - receivedAt) / 1000;
  const turnClock = document.querySelector("#players li.turn .clock");
  if (turnClock) turnClock.textContent = fmtClock(Number(turnClock.dataset.clock) + extra);
  const before = $("turn-clock").textContent.length;
  $("turn-clock").textContent = turnClockText(latest, extra);
  if ($("turn-clock").textContent.length !== before) fitBanner();
}, 500);

// ------------------------------------------------------------------ tools: pause, camera, join
$("pause").addEventListener("click", async () => {
  const what = $("pause").dataset.clock;
  const { status, body } = await postChange("/api/clock", { clock: what });
  if (status !== 200) showResult(refusal(body), "bad");
  else if (latest) { latest.paused = body.paused; renderBanner(latest); }
});

$("camera-open").addEventListener("click", () => {
  openSheet("What the camera sees", []);
  const img = el("img", { id: "camera-img", class: "camera", alt: "the camera's view of the board" });
  img.addEventListener("error", () => {
    img.remove();
    $("sheet-body").append(el("p", { class: "note" }, "No camera picture on this table right now."));
  });
  img.src = `/api/camera.jpg?t=${Date.now()}`;
  $("sheet-body").append(img);
});

$("join-open").addEventListener("click", async () => {
  let address = `${location.origin}/`;
  try { address = (await (await fetch("/api/address")).json()).url || address; } catch (e) { /* as reached */ }
  openSheet("Join this table", ["Scan to watch on your phone:"]);
  $("sheet-body").append(qrSvg(address), el("p", { class: "address" }, address));
  try {
    const r = await fetch("/api/pairing");
    if (r.ok) {
      const body = await r.json();
      if (body.url) {
        $("sheet-body").append(el("p", {}, "Scan to join with changes allowed (no PIN needed):"), qrSvg(body.url));
      }
    }
  } catch (e) { /* pairing codes come with the pairing routes */ }
  const pinButton = el("button", { "data-pin-open": "1" }, authorised() ? "PIN entered on this device" : "Enter the PIN…");
  pinButton.disabled = authorised();
  pinButton.addEventListener("click", async () => { $("sheet").close(); await askPin(); });
  $("sheet-buttons").replaceChildren(pinButton);
});

$("sheet-close").addEventListener("click", () => $("sheet").close());
$("undo").addEventListener("click", () => { const h = latest && newestEffective(latest); if (h) confirmUndo(h); });
$("older").addEventListener("click", loadOlder);
$("older").textContent = "More moves";

// ------------------------------------------------------------------ the board on a phone
$("board-toggle").addEventListener("click", () => {
  const open = document.body.classList.toggle("board-open");
  $("board-toggle").textContent = open ? "Hide the board" : "Show the board";
  $("board-toggle").setAttribute("aria-expanded", String(open));
});
for (const b of document.querySelectorAll("[data-zoom]")) {
  b.dataset.local = "1";
  b.addEventListener("click", () => {  // wider than the screen: the board scrolls in its frame
    $("board").style.setProperty("--zoom", b.dataset.zoom);
    for (const other of document.querySelectorAll("[data-zoom]")) other.classList.toggle("on", other === b);
  });
}
$("board-toggle").dataset.local = "1";

// ------------------------------------------------------------------ the companion away
// A ping a second (any HTTP answer counts); the page greys, the clocks stop and taps are
// refused at the button within PING_EVERY_MS + PING_TIMEOUT_MS of the companion going
// quiet when its stream is broken too (or after two silent pings), and comes back by itself.
const PING_EVERY_MS = 1000;
const PING_TIMEOUT_MS = 1200;
const away = { now: false, misses: 0, source: null };

function setAway(now) {
  if (away.now === now) return;
  away.now = now;
  document.body.classList.toggle("away", now);
  $("away").hidden = !now;
  document.body.style.setProperty("--away-h", now ? `${$("away").offsetHeight}px` : "0px");
  if (!now) {  // back: whatever happened meanwhile is fetched whole
    if (!away.source || away.source.readyState === EventSource.CLOSED) connect();
    fetch("/api/state").then((r) => r.json()).then((st) => { forms = null; render(st); }).catch(() => {});
  }
}

async function ping() {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), PING_TIMEOUT_MS);
  let answered = false;
  try {
    await fetch("/api/whoami", { cache: "no-store", signal: ctl.signal });
    answered = true;
  } catch (e) { answered = false; }
  clearTimeout(timer);
  away.misses = answered ? 0 : away.misses + 1;
  const streamBroken = !away.source || away.source.readyState !== EventSource.OPEN;
  setAway(!answered && (streamBroken || away.misses >= 2));
  setTimeout(ping, PING_EVERY_MS);
}

/** Says ``text`` beside ``button`` (where the player's finger is), for a few seconds. */
function sayAt(button, text) {
  for (const old of document.querySelectorAll(".said-here")) old.remove();
  const r = button.getBoundingClientRect();
  const note = el("div", { class: "said-here", role: "alert" }, text);
  note.style.left = `${Math.max(8, Math.min(r.left + scrollX, scrollX + innerWidth - 340))}px`;
  note.style.top = `${r.bottom + scrollY + 6}px`;
  document.body.append(note);
  setTimeout(() => note.remove(), 4000);
}

// while away, a tap on anything that would ask the companion is refused where it was made
document.addEventListener("click", (e) => {
  if (!away.now) return;
  const b = e.target.closest("button, a.button");
  if (!b || b.dataset.local || b.closest("dialog") || b.id === "sheet-close") return;
  e.preventDefault();
  e.stopImmediatePropagation();
  sayAt(b, "Not sent: the companion is not answering. Tap again once it is back.");
}, true);

function connect() {
  const source = new EventSource("/api/events");
  away.source = source;
  source.addEventListener("state", (e) => scheduleRender(JSON.parse(e.data)));
  source.addEventListener("delta", (e) => applyDelta(JSON.parse(e.data)));
  source.onopen = () => { $("live").textContent = "live"; $("live").className = "pill"; };
  source.onerror = () => { $("live").textContent = "reconnecting…"; $("live").className = "pill off"; };
}

async function loadLayout() { layout = await (await fetch("/api/layout")).json(); }

async function start() {
  watchLayout();
  addEventListener("resize", fitBanner);
  await Promise.all([loadLayout(), loadAuth(),
    fetch("/api/games").then((r) => r.json()).then((b) => { for (const g of b.games) gamesInfo[g.name] = g; }).catch(() => {})]);
  connect();
  setTimeout(ping, PING_EVERY_MS);
}
start();
