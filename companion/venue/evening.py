"""A mixed evening at a venue, for the eye: four real tables (Times Square, Jivecat at 3,
King of Clubs, Swing State at 4) with named players, played by the simulated world
through a real Mosquitto into ``companion venue``; then a second round left mid-game.

``python -m companion.venue.evening [--shots DIR]`` prints every result with each
seat's placing and points and the league (overall and per game) to check by hand, and
with ``--shots`` saves the room screen at 1920x1080 and 3840x2160 and with the broker
killed, measured: the players' font size and whether anything overflows its card.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import click

from companion.store import EventLog
from companion.venue.app import VenueConfig, VenueService
from companion.venue.bench import BenchTable, _wait
from companion.venue.broker import LocalBroker
from companion.venue.settings import MqttSettings

# (table, (game, players, variant), the people at its seats (None: a seat nobody named))
ROUND_ONE = (
    ("t1", ("times_square", 2, None), ["Ann", "Bob"]),
    ("t2", ("jivecat", 3, None), ["Cy", "Dee", None]),
    ("t3", ("king_of_clubs", 2, "basic"), ["Ann", "Eve"]),
    ("t4", ("swing_state", 4, None), ["Bob", "Cy", "Dee", "Eve"]),
)
ROUND_TWO = (
    ("t1", ("times_square", 2, None), ["Dee", "Eve"]),
    ("t2", ("jivecat", 3, None), ["Ann", "Bob", "Cy"]),
    ("t3", ("king_of_clubs", 4, "basic"), ["Bob", "Cy", "Dee", "Ann"]),
    ("t4", ("swing_state", 4, None), ["Eve", "Ann", "Bob", "Cy"]),
)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
MEASURE = """() => {
  const cards = [...document.querySelectorAll('.card')];
  const px = (sel) => [...document.querySelectorAll(sel)]
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  const cut = cards.filter((c) => c.scrollHeight > c.clientHeight + 1 || c.scrollWidth > c.clientWidth + 1)
                   .map((c) => c.dataset.table);
  const side = document.getElementById('side');
  return {cards: cards.length, name_px_min: Math.min(...px('.players td.name')),
          score_px_min: Math.min(...px('.players td.score')), league_px: Math.min(...px('#league td.name')),
          event_px: Math.min(...px('.recent li')), cards_cut: cut,
          league_cut: side.scrollHeight > side.clientHeight + 1,
          banner: document.getElementById('broker').hidden ? null
                  : document.getElementById('broker').textContent};
}"""


def play_round(plan: tuple[Any, ...], port: int, logs: dict[str, EventLog], seed: int,
               steps: int | None) -> list[BenchTable]:
    """Start one game at each table (the set-up's names) and play ``steps`` steps (None: to the end)."""
    sims = [BenchTable(seed + i, port, "club", game=game, name=name,
                       setup={"names": [p or "" for p in people]}, log=logs[name])
            for i, (name, game, people) in enumerate(plan)]
    for sim in sims:
        sim.publisher.start()
    for sim in sims:
        for _ in range(steps if steps is not None else 5000):
            if sim.world.finished() or sim.table.public()["over"]:
                break
            sim.step()
    return sims


def hand_check(venue: VenueService) -> dict[str, Any]:
    league = venue.league
    return {"results": [{"table": r["table"], "title": r["title"],
                         "seats": [(p["name"], p["player"], p["score"], p["won"], p["placing"], p["points"])
                                   for p in r["players"]]}
                        for r in reversed(league.results())],
            "standings": league.standings(), "kinds": league.standings_by_game()}


def run_evening(folder: Path, shots: Path | None = None) -> dict[str, Any]:
    broker = LocalBroker(folder / "broker").start()
    venue = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="club"),
                                     league_db=folder / "league.sqlite", port=0)).start()
    logs = {name: EventLog(folder / f"{name}.sqlite") for name, _, _ in ROUND_ONE}
    sims: list[BenchTable] = []
    try:
        first = play_round(ROUND_ONE, broker.port, logs, 11, None)
        if not _wait(lambda: len(venue.league.results()) == len(ROUND_ONE), 30):
            raise OSError("the venue did not count every game of the first round")
        for sim in first:
            sim.publisher.close(timeout=1, grace=0.5)
        sims = play_round(ROUND_TWO, broker.port, logs, 21, 30)
        _wait(lambda: all(venue.room.tables[s.name].state and venue.room.tables[s.name].state["game_id"]
                          == s.table.record.id for s in sims), 10)
        out = hand_check(venue)
        if shots is not None:
            out["screens"] = screenshots(venue, broker, shots)
        return out
    finally:
        for sim in sims:
            sim.publisher.close(timeout=0.5, grace=0.2)
        venue.stop()
        broker.stop()
        for log in logs.values():
            log.close()


def screenshots(venue: VenueService, broker: LocalBroker, folder: Path) -> dict[str, Any]:
    """The room screen at 1080p and 4K, then with the broker killed; measured as it is saved."""
    from playwright.sync_api import sync_playwright

    folder.mkdir(parents=True, exist_ok=True)
    measured: dict[str, Any] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            for label, (width, height) in (("1080p", (1920, 1080)), ("4k", (3840, 2160))):
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(venue.url)
                page.wait_for_function("() => document.querySelectorAll('.card .players tr').length >= 13")
                time.sleep(0.5)
                measured[label] = page.evaluate(MEASURE)
                page.screenshot(path=str(folder / f"room-{label}.png"))
                if label == "1080p":
                    assert broker.process is not None
                    broker.process.kill()  # SIGKILL: the crash the screen must not hide
                    broker.process.wait()
                    broker.process = None
                    page.wait_for_selector("#broker:not([hidden])", timeout=10000)
                    time.sleep(0.3)
                    measured["broker_down_1080p"] = page.evaluate(MEASURE)
                    page.screenshot(path=str(folder / "room-broker-down-1080p.png"))
                    broker.start()
                    page.wait_for_selector("#broker[hidden]", state="attached", timeout=20000)
                page.close()
        finally:
            browser.close()
    return measured


@click.command()
@click.option("--shots", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Save the room screen's screenshots here.")
def main(shots: Path | None) -> None:
    """Play the mixed evening; print the league to check by hand (and save screenshots)."""
    with tempfile.TemporaryDirectory(prefix="venue-evening-") as tmp:
        out = run_evening(Path(tmp), shots)
    for result in out["results"]:
        click.echo(f"{result['table']} {result['title']}")
        for name, person, score, won, placing, points in result["seats"]:
            click.echo(f"    {name:<22} {person or '(unnamed)':<10} score {score:>5}  "
                       f"{'won ' if won else '    '} placing {placing}  points {points}")
    click.echo("standings:")
    for row in out["standings"]:
        click.echo(f"    {row['rank']:>2} {row['name']:<6} games {row['games']} wins {row['wins']} "
                   f"points {row['points']}")
    for kind in out["kinds"]:
        click.echo(f"  {kind['title']}: " + ", ".join(f"{r['rank']}. {r['name']} {r['points']}"
                                                      for r in kind["standings"]))
    if "screens" in out:
        click.echo(json.dumps(out["screens"], indent=1))


if __name__ == "__main__":
    main()
