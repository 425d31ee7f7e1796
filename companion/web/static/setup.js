// Set-up on the tablet: choose a game by taps, name the seats, pick house rules (each with
// its rulebook sentence), resume an unfinished game, browse the archive (chart, breakdown,
// exports). Changes go through postChange (PIN once per device, a request id each).
"use strict";
let catalogue = null;
const choice = { game: null, variant: null, players: null, names: [], colours: [], readers: [], buttons: [], rules: {} };
const DEVICE_SEATS = 6;  // the table device has a reader and a button at six seats

function pick(container, selector, value) {
  for (const b of container.querySelectorAll(selector)) b.classList.toggle("on", b.dataset.value === String(value));
}

function choiceButtons(container, items, attr, onPick) {
  container.replaceChildren();
  for (const item of items) {
    const b = el("button", { class: "choice", [attr]: item.value, "data-value": item.value }, item.label);
    b.addEventListener("click", () => { pick(container, "button", item.value); onPick(item.value); });
    container.append(b);
  }
}

function chooseGame(name) {
  const game = catalogue.games.find((g) => g.name === name);
  if (choice.game !== name) choice.colours = [];  // each game's own seat colours
  choice.game = name;
  choice.variant = game.variants[0].value;
  const blocked = game.blocked || {};
  choice.players = game.player_counts.find((n) => !blocked[String(n)]) ?? game.min_players;
  choice.rules = Object.fromEntries(game.house_rules.map((r) => [r.id, r.default]));
  $("game-options").hidden = false;
  choiceButtons($("variants"), game.variants, "data-variant", (v) => { choice.variant = v; });
  pick($("variants"), "button", choice.variant);
  const counts = game.player_counts.map((n) => ({ value: String(n),
    label: blocked[String(n)] ? `${counted(n, "player")} (board not laid out here)` : counted(n, "player") }));
  choiceButtons($("counts"), counts, "data-players", (n) => { choice.players = Number(n); renderSeats(game); renderBlocked(game); });
  pick($("counts"), "button", choice.players);
  renderBlocked(game);
  renderSeats(game);
  renderRules(game);
}

/** A game or player count this table's board map does not fit: what to do, in words, and
 * no Start until another is chosen (the running game is never touched). */
function renderBlocked(game) {
  const why = (game.blocked || {})[String(choice.players)] || "";
  $("blocked-note").hidden = !why;
  $("blocked-note").textContent = why;
  $("start").disabled = Boolean(why);
}

function renderSeats(game) {
  const box = $("seats");
  box.replaceChildren();
  choice.names = choice.names.slice(0, choice.players);
  for (let seat = 0; seat < choice.players; seat++) {
    choice.colours[seat] = choice.colours[seat] || game.default_colours[seat] || catalogue.colours[seat % catalogue.colours.length];
    if (choice.readers[seat] === undefined) choice.readers[seat] = seat;
    if (choice.buttons[seat] === undefined) choice.buttons[seat] = seat;
    const card = el("div", { class: "seat", "data-seat": seat });
    card.style.setProperty("--seat", choice.colours[seat]);
    const name = el("input", { "aria-label": `name of seat ${seat + 1}`, maxlength: 24,
      placeholder: game.default_names[seat] || `Player ${seat + 1}`, value: choice.names[seat] || "" });
    card.append(name, playerPicker(seat, name));
    const colours = el("div", { class: "row" });
    colours.append(el("span", {}, "Colour"));
    for (const colour of catalogue.colours) {
      const b = el("button", { class: "swatch", "data-colour": colour, "data-value": colour, "aria-label": colour });
      b.style.background = colour;
      b.addEventListener("click", () => { choice.colours[seat] = colour; pick(colours, ".swatch", colour); card.style.setProperty("--seat", colour); });
      colours.append(b);
    }
    pick(colours, ".swatch", choice.colours[seat]);
    card.append(colours);
    for (const [kind, label] of [["readers", "Card reader"], ["buttons", "Seat button"]]) {
      const row = el("div", { class: "row" });
      row.append(el("span", {}, label));
      for (let d = 0; d < DEVICE_SEATS; d++) {
        const b = el("button", { class: "choice", [`data-${kind}`]: d, "data-value": d }, String(d + 1));
        b.style.width = "auto";
        b.addEventListener("click", () => { choice[kind][seat] = d; pick(row, "button", d); });
        row.append(b);
      }
      pick(row, "button", choice[kind][seat]);
      card.append(row);
    }
    box.append(card);
  }
}

function gameLang(game) { return game.name === "baron_voodoo" ? "pl" : "en"; }

// The venue's known players (from its broker), one tap names a seat; typing a new name works too.
let knownPlayers = [];
async function loadKnownPlayers() {
  try {
    const body = await (await fetch("/api/setup/players")).json();
    knownPlayers = body.players || [];
    if (body.venue) {
      const link = $("venue-link");
      link.hidden = false;
      link.dataset.state = body.venue.state;
      link.textContent = body.venue.state === "connected" ? `Venue: connected (${body.venue.detail})`
        : `Venue: ${body.venue.state}, ${body.venue.detail}. Names typed here still count when it is back.`;
    }
  } catch (err) { knownPlayers = []; }
}

function playerPicker(seat, input) {
  const row = el("div", { class: "row known-players", "data-picker": String(seat) });
  const show = () => {
    const typed = input.value.trim().toLowerCase();
    const taken = choice.names.filter((n, s) => s !== seat && n).map((n) => n.trim().toLowerCase());
    row.replaceChildren();
    for (const name of knownPlayers) {
      if (row.children.length >= 12) break;
      const lower = name.toLowerCase();
      if ((typed && !lower.startsWith(typed) && lower !== typed) || taken.includes(lower)) continue;
      const b = el("button", { class: "choice" + (lower === typed ? " on" : ""), "data-player": name }, name);
      b.addEventListener("click", () => { input.value = name; choice.names[seat] = name; refreshPickers(); });
      row.append(b);
    }
    row.hidden = row.children.length === 0;
  };
  input.addEventListener("input", () => { choice.names[seat] = input.value; refreshPickers(); });
  pickers = pickers.filter((p) => p.row.isConnected);
  pickers.push({ row, show });
  show();
  return row;
}

let pickers = [];  // every seat's picker: a name taken at one seat leaves the others' choices
function refreshPickers() { for (const p of pickers) if (p.row.isConnected) p.show(); }

function renderRules(game) {
  const box = $("rules");
  box.replaceChildren();
  $("house-rules-box").hidden = game.house_rules.length === 0;
  for (const rule of game.house_rules) {
    const card = el("div", { class: "rule", "data-rule": rule.id });
    card.append(el("p", { class: "step-title" }, rule.title));
    if (rule.translation) {  // the rulebook in English, with its own language beside it (the authority)
      const quote = el("div", { class: "quote two" });
      quote.append(el("p", { class: "sentence", lang: "en" }, `“${rule.translation}”`),
        el("p", { class: "sentence original", lang: gameLang(game) }, `“${rule.sentence}”`));
      card.append(quote);
    } else {
      card.append(el("p", { class: "sentence" }, `“${rule.sentence}”`));
    }
    const grid = el("div", { class: "choices" });
    choiceButtons(grid, Object.entries(rule.choices).map(([value, label]) => ({ value, label })), "data-choice",
      (v) => { choice.rules[rule.id] = v; });
    pick(grid, "button", rule.default);  // the reading the rulebook supports best, preselected
    card.append(grid);
    box.append(card);
  }
}

async function startGame() {
  for (const [kind, label] of [["readers", "card reader"], ["buttons", "seat button"]]) {
    const used = choice[kind].slice(0, choice.players);
    const twice = used.find((d, i) => used.indexOf(d) !== i);
    if (twice !== undefined) {
      $("setup-result").className = "bad";
      $("setup-result").textContent = `Two players have ${label} ${twice + 1}: give each their own.`;
      return;
    }
  }
  const seats = { readers: {}, buttons: {} };
  for (let s = 0; s < choice.players; s++) {
    seats.readers[String(choice.readers[s])] = s;
    seats.buttons[String(choice.buttons[s])] = s;
  }
  const payload = {
    game: choice.game, players: choice.players, variant: choice.variant, house_rules: choice.rules,
    names: Array.from({ length: choice.players }, (_, s) => (choice.names[s] || "").trim()),
    colours: choice.colours.slice(0, choice.players), seats, request_id: newRequestId(),
  };
  $("start").disabled = true;
  const { status, body } = await postChange("/api/setup/new", payload);
  renderBlocked(catalogue.games.find((g) => g.name === choice.game));
  if (status === 200) { location.href = "/"; return; }
  $("setup-result").className = "bad";
  $("setup-result").textContent = body.error || "The game could not start.";
}

function when(at) { return new Date(at * 1000).toLocaleString(); }

function playersLine(g) {
  return g.players.map((p) => `${p.name} ${p.score}`).join(" · ");
}

async function loadLog() {
  const body = await (await fetch("/api/log")).json();
  const unfinished = $("unfinished");
  unfinished.replaceChildren();
  for (const g of body.unfinished) {
    const li = el("li", { "data-game-id": g.id });
    li.append(el("strong", {}, `${g.title} · ${words(g.variant)}`), el("div", {}, `${when(g.created)} · ${counted(g.moves, "move")}`),
      el("div", {}, playersLine(g)));
    const row = el("div", { class: "row" });
    if (g.id === body.running) row.append(el("span", { class: "note" }, "Running now"));
    else {
      const b = el("button", { "data-resume": g.id }, "Resume");
      b.addEventListener("click", async () => {
        b.disabled = true;
        const { status, body: answer } = await postChange("/api/setup/resume", { game_id: g.id, request_id: newRequestId() });
        if (status === 200) location.href = "/";
        else { b.disabled = false; li.append(el("p", { class: "bad" }, answer.error)); }
      });
      row.append(b);
    }
    li.append(row);
    unfinished.append(li);
  }
  if (!body.unfinished.length) unfinished.append(el("li", { class: "note" }, "None."));
  const finished = $("finished");
  finished.replaceChildren();
  for (const g of body.finished) {
    const li = el("li", { "data-game-id": g.id });
    const winners = (g.winner || []).map((w) => g.players[w].name).join(" & ");
    li.append(el("strong", {}, `${g.title} · ${when(g.created)}`), el("div", {}, playersLine(g)),
      el("div", {}, winners ? `Won by ${winners}` : (g.reason || "")));
    const row = el("div", { class: "row" });
    const show = el("button", { "data-archive": g.id }, "Scores over time");
    show.addEventListener("click", () => showArchive(g.id));
    row.append(show,
      el("a", { class: "button", href: `/api/archive/${g.id}.json`, download: "", "data-export": "json" }, "Export JSON"),
      el("a", { class: "button", href: `/api/archive/${g.id}.csv`, download: "", "data-export": "csv" }, "Export CSV"));
    li.append(row);
    finished.append(li);
  }
  if (!body.finished.length) finished.append(el("li", { class: "note" }, "No finished game yet."));
}

let plot = null;
async function showArchive(id) {
  const game = await (await fetch(`/api/archive/${id}`)).json();
  $("archive-view").hidden = false;
  $("archive-title").textContent = `${game.title}: ${counted(game.moves, "move")}`;
  const xs = game.points.map((_, i) => i);
  const data = [xs, ...game.players.map((_, seat) => game.points.map((p) => p.scores[seat]))];
  const width = Math.max(240, $("chart").clientWidth || $("archive-panel").clientWidth - 30);
  if (plot) plot.destroy();
  plot = new uPlot({  // vendor/uplot
    width, height: 260,
    scales: { x: { time: false } },
    axes: [{ label: "move" }, { label: "score" }],
    series: [{ label: "move" }, ...game.players.map((p) => ({ label: p.name, stroke: p.colour, width: 3 }))],
  }, data, $("chart"));
  const breakdown = {};
  for (const p of game.players) breakdown[p.name] = p.score;
  const winners = (game.winner || []).map((w) => game.players[w].name).join(" & ");
  const box = $("breakdown");
  box.replaceChildren(el("p", { class: "step-title" }, winners ? `Won by ${winners}` : "No winner"));
  if (game.reason) box.append(el("p", {}, game.reason));
  box.append(el("p", { class: "step-title" }, "Final scores"), renderValue(breakdown));
  if (Object.keys(game.house_rules || {}).length) box.append(el("p", { class: "step-title" }, "House rules"), renderValue(game.house_rules));
  if (game.summary && Object.keys(game.summary).length) box.append(el("p", { class: "step-title" }, "At the end"), renderValue(game.summary));
}

async function start() {
  await loadAuth();
  catalogue = await (await fetch("/api/games")).json();
  await loadKnownPlayers();
  const laidOut = (g) => g.player_counts.some((n) => !(g.blocked || {})[String(n)]);
  choiceButtons($("games"), catalogue.games.map((g) => ({ value: g.name,
    label: laidOut(g) ? g.title : `${g.title} (board not laid out here)` })), "data-game", chooseGame);
  $("start").addEventListener("click", startGame);
  await loadLog();
  document.body.dataset.ready = "1";
}
start();
