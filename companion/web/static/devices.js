// Paired tablets on the set-up page (issue 42): who may change the game, and a way to unpair one.
// Self-contained: it fills <section id="devices-panel"> and uses only common.js's helpers.
(function () {
  const panel = document.getElementById("devices-panel");
  if (!panel) return;
  const list = panel.querySelector("#devices");
  const note = panel.querySelector("#devices-result");

  function when(seconds) {
    if (!seconds) return "not seen since the last restart";
    return new Date(seconds * 1000).toLocaleString();
  }

  let newest = 0;  // loads may overlap (a tap while the first is under way): the newest one fills the list

  async function load() {
    const mine = ++newest;
    if (auth.mode === "unknown") await loadAuth();
    if (!authorised()) {
      if (mine !== newest) return;
      list.replaceChildren();
      const ask = el("button", { class: "secondary", id: "devices-show" }, "Show paired tablets (PIN)");
      ask.addEventListener("click", async () => { if (await askPin()) load(); });
      list.append(el("li", {}, ""), ask);
      return;
    }
    const headers = auth.pin ? { "X-Table-Pin": auth.pin } : {};
    const r = await fetch("/api/devices", { headers }).catch(() => null);
    const body = r ? await r.json().catch(() => ({})) : {};
    if (mine !== newest) return;
    if (!r) { note.textContent = "The companion does not answer: the paired tablets could not be read."; return; }
    list.replaceChildren();
    if (!r.ok) { note.textContent = body.error || "The paired tablets could not be read."; return; }
    if (!body.devices.length) { list.append(el("li", { class: "note" }, "No tablet is paired yet.")); return; }
    for (const d of body.devices) {
      const item = el("li", { class: "device", "data-device": d.id });
      const name = el("span", { class: "device-name" }, d.name + (d.this ? " (this tablet)" : ""));
      const seen = el("span", { class: "note" },
        ` paired ${when(d.paired_at)}; last seen ${when(d.last_seen)}`);
      const drop = el("button", { class: "secondary", "data-unpair": d.id }, "Unpair");
      drop.addEventListener("click", async () => {
        const sure = d.this ? "Unpair this tablet? It will need the PIN or a pairing code again."
          : `Unpair ${d.name}? It will need the PIN or a pairing code again.`;
        if (!window.confirm(sure)) return;
        const done = await postChange("/api/devices/unpair", { id: d.id });
        note.textContent = done.status === 200 ? `${d.name} is unpaired.` : (done.body.error || "Not unpaired.");
        if (d.this && done.status === 200) { auth.paired = false; }
        load();
      });
      item.append(name, seen, drop);
      list.append(item);
    }
  }

  load();
})();
