"""The room, end to end: a real Mosquitto on loopback, three demo tables of different games
as their own processes (rendered camera, device on a pty, mock GPIO, HTTP), the venue page
in Debian's Chromium, and the broker stopped and started mid-game: every logged event
arrives on the venue once, and the finished games reach the league."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import HANG_MS, wait_until

from companion.store import EventLog
from companion.venue.app import VenueConfig, VenueService
from companion.venue.broker import LocalBroker
from companion.venue.settings import MqttSettings

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("Debian's chromium is missing: scripts/test.sh installs it")
    pytest.skip("no chromium here; scripts/test.sh installs it", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

# (table, game, extra demo options): as fast as the machine plays them; Jivecat is cut short
# (--max-steps) to keep the test quick, so it stays a game in progress
TABLES = [
    ("t1", "times_square", []),
    ("t2", "king_of_clubs", ["--players", "2", "--variant", "basic"]),
    ("t3", "jivecat", ["--players", "2", "--max-steps", "25"]),
]
FINISHING = ("t1", "t2")


@pytest.fixture
def room(tmp_path: Path) -> Iterator[tuple[LocalBroker, VenueService]]:
    broker = LocalBroker(tmp_path / "broker").start()
    venue = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="club"),
                                     league_db=tmp_path / "league.sqlite", port=0,
                                     client_id="venue-under-test")).start()
    try:
        assert venue.subscriber.connected.wait(10)
        yield broker, venue
    finally:
        venue.stop()
        broker.stop()


def logged(data_dir: Path) -> tuple[int, list[int]]:
    """The game id and event seqs a table's own log holds (the truth to compare with)."""
    log = EventLog(data_dir / "companion.sqlite")
    try:
        game_id = log._db.execute("SELECT MAX(id) FROM game").fetchone()[0]
        return game_id, [e.seq for e in log.events(game_id)]
    finally:
        log.close()


def test_three_tables_live_on_the_venue_page_through_a_broker_restart(
        room: tuple[LocalBroker, VenueService], tmp_path: Path) -> None:
    broker, venue = room
    started = time.monotonic()
    demos: list[subprocess.Popen[bytes]] = []
    try:
        for name, game, extra in TABLES:
            demos.append(subprocess.Popen(
                [sys.executable, "-m", "companion", "demo", "--game", game, *extra, "--seed", "4",
                 "--speed", "0", "--port", "0", "--pin", "111111", "--exit-when-over",
                 "--data", str(tmp_path / name), "--mqtt-url", broker.url, "--venue", "club",
                 "--table-name", name],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                cwd=Path(__file__).parent.parent))
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page()
            page.goto(venue.url)
            page.wait_for_selector("#feed:text('live')", timeout=HANG_MS)
            # all three live on the page: a card each, online, with events arriving
            for name, _, _ in TABLES:
                page.wait_for_function(
                    f"""() => {{ const c = document.querySelector('.card[data-table="{name}"]');
                               return c && !c.classList.contains('offline') && +c.dataset.events >= 2; }}""",
                    timeout=HANG_MS)
            assert page.locator(".card").count() == 3
            assert page.locator(".card .players tr").count() >= 6
            titles = page.locator(".card .game").all_inner_texts()
            assert {t.split(" · ")[0] for t in titles} == {"Times Square", "King of Clubs",
                                                           "Swinging Jivecat Voodoo Lounge"}
            running = {n for n, *_ in TABLES
                       if page.locator(f".card[data-table='{n}'][data-over='0']").count()}
            assert len(running) >= 2, "the games ended before the broker could be bounced"

            # the broker goes away mid-game; the tables play on
            broker.stop()
            counts_at_stop = {n: len(logged(tmp_path / n)[1]) for n, *_ in TABLES}
            # the broker stays away until the tables have logged two moves without it (counted,
            # not timed: a loaded machine plays slower, and waits longer)
            assert wait_until(lambda: sum(len(logged(tmp_path / n)[1]) - counts_at_stop[n]
                                          for n, *_ in TABLES) >= 2, 10), "play without a broker"
            counts_while_down = {n: len(logged(tmp_path / n)[1]) for n, *_ in TABLES}
            broker.start()

            # the games end (Jivecat at its step limit); every logged event is on the venue once
            for demo in demos:
                demo.wait(timeout=70)
            assert [d.returncode for d in demos] == [0, 0, 1]  # 1: Jivecat stopped unfinished
            played_while_down = 0
            played_on: set[str] = set()
            for name, _, _ in TABLES:
                game_id, seqs = logged(tmp_path / name)
                # counted as the wait above counted them (an event stamped just before the stop
                # can be logged after it: timestamps would miss it on a loaded machine)
                played_while_down += counts_while_down[name] - counts_at_stop[name]
                assert wait_until(lambda n=name, g=game_id, s=seqs: venue.room.events_of(n, g) == s, 10), name
                over = "1" if name in FINISHING else "0"
                page.wait_for_function(
                    f"""() => {{ const c = document.querySelector('.card[data-table="{name}"]');
                               return c && c.dataset.over === '{over}'
                                      && +c.dataset.events === {len(seqs)}; }}""",
                    timeout=HANG_MS)
                if name in running and counts_while_down[name] < len(seqs):
                    played_on.add(name)
            # a fast table may reach its end while the broker is away (it exits as it should,
            # checked above); the others play on once it is back
            assert played_on, f"no table played on after the restart (running: {sorted(running)})"
            # finished games: the result on each card, the league and the results list
            assert page.locator(".card .result").count() == 2
            page.wait_for_function("() => document.querySelectorAll('#results li').length === 2",
                                   timeout=HANG_MS)
            # the demos name nobody at set-up: seats are not people, so the standings stay empty
            # and the screen says how to count them
            results = venue.league.results()
            assert len(results) == 2 and all(p["player"] is None for r in results for p in r["players"])
            assert venue.league.standings() == [] and page.locator("#league tbody tr").count() == 0
            assert page.locator("#unnamed").is_visible()
            assert page.locator(".card.offline").count() == 3  # each table said goodbye
            browser.close()
        print(f"\nvenue integration: {time.monotonic() - started:.1f} s, "
              f"{played_while_down} events logged while the broker was down, "
              f"repeats at the venue: {venue.room.duplicates}, filled from state: {venue.room.filled}")
    finally:
        for demo in demos:
            if demo.poll() is None:
                demo.kill()
                demo.wait()
