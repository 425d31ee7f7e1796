"""``companion bench venue``: many tables publishing through one broker to the venue page.

Each table is a real :class:`~companion.table.Table` (in-memory log) played by the
simulated world headless (no camera, to spare the cores), with a real
:class:`TablePublisher`.  One Mosquitto on loopback, one ``companion venue`` service,
and one client reading the page's SSE feed, where the latency is taken: from the
moment the event was logged to the moment the page's feed delivered it.  Then the
broker is stopped while the tables play on, started again, and the time until the
feed has every event logged meanwhile is the recovery time.
"""

from __future__ import annotations

import http.client
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from companion.sim.headless import deliver
from companion.sim.world import World, load_world
from companion.table import Table
from companion.venue.app import VenueConfig, VenueService
from companion.venue.broker import LocalBroker
from companion.venue.publish import TablePublisher
from companion.venue.settings import MqttSettings

BENCH_GAMES = (("baron_voodoo", 2, None), ("king_of_clubs", 2, "basic"), ("swing_state", 3, None),
               ("jivecat", 3, None))


class FeedReader:
    """Reads the venue page's SSE feed; notes when each (table, game, seq) event arrived."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.arrivals: dict[tuple[str, int, int], float] = {}
        self.logged_at: dict[tuple[str, int, int], float] = {}
        self.repeats = 0
        self.ready = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="feed-reader", daemon=True)

    def start(self) -> FeedReader:
        self._thread.start()
        if not self.ready.wait(10):
            raise OSError("the venue page's feed did not answer")
        return self

    def _run(self) -> None:
        self.conn.request("GET", "/events")
        response = self.conn.getresponse()
        try:
            while True:
                line = response.readline()
                if not line:
                    return
                if not line.startswith(b"data: "):
                    continue
                now = time.time()
                message = json.loads(line[6:])
                if message["type"] == "snapshot":
                    self.ready.set()
                elif message["type"] == "event":
                    key = (message["table"], message["game_id"], message["seq"])
                    with self._lock:
                        if key in self.arrivals:
                            self.repeats += 1
                        else:
                            self.arrivals[key] = now
                            self.logged_at[key] = message["at"]
        except (OSError, ValueError, http.client.HTTPException):
            return

    def has(self, keys: set[tuple[str, int, int]]) -> bool:
        with self._lock:
            return keys <= self.arrivals.keys()

    def close(self) -> None:
        self.conn.close()


class BenchTable:
    """One simulated table: a Table, its world and its publisher."""

    def __init__(self, index: int, port: int, venue: str) -> None:
        game, players, variant = BENCH_GAMES[index % len(BENCH_GAMES)]
        self.name = f"t{index + 1:02d}"
        self.table = Table.open(game, None, players, variant, seed=index, resume=False)
        self.world: World = load_world(game, self.table.game, players, variant, index)
        self.refusals: list[str] = []
        for event in self.world.start():
            deliver(self.table, event, self.refusals)
        self.publisher = TablePublisher(self.table, MqttSettings(port=port, venue=venue, table=self.name))
        self.table.add_listener(self.publisher)

    def step(self) -> None:
        if self.world.finished():
            return
        for event in self.world.step(self.table.public()):
            deliver(self.table, event, self.refusals)

    def keys(self) -> set[tuple[str, int, int]]:
        game_id = self.table.record.id
        return {(self.name, game_id, e.seq) for e in self.table.log.events(game_id)}


def _pace(tables: list[BenchTable], seconds: float, rate: float) -> None:
    """Step the tables round-robin at ``rate`` steps a second in total for ``seconds``."""
    interval = 1.0 / rate
    deadline = time.monotonic() + seconds
    index = 0
    next_at = time.monotonic()
    while time.monotonic() < deadline:
        tables[index % len(tables)].step()
        index += 1
        next_at += interval
        time.sleep(max(0.0, next_at - time.monotonic()))


def _wait(check: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.005)
    return check()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def venue_benchmark(tables: int = 20, seconds: float = 8.0, rate: float = 40.0, outage_s: float = 2.0,
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Latency p50/p99 at the venue page's feed, and recovery after a broker restart."""
    say = progress or (lambda _text: None)
    with tempfile.TemporaryDirectory(prefix="bench-venue-") as tmp:
        folder = Path(tmp)
        broker = LocalBroker(folder / "broker").start()
        venue = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="bench"),
                                         league_db=folder / "league.sqlite", port=0)).start()
        reader: FeedReader | None = None
        sims: list[BenchTable] = []
        try:
            if not venue.subscriber.connected.wait(10):
                raise OSError("the venue did not connect to the broker")
            reader = FeedReader(venue.url).start()
            say(f"starting {tables} tables")
            sims = [BenchTable(i, broker.port, "bench") for i in range(tables)]
            for sim in sims:
                sim.publisher.start()
            if not _wait(lambda: all(s.publisher.connected for s in sims), 10):
                raise OSError("not every table connected to the broker")
            baseline = set().union(*(s.keys() for s in sims))
            _wait(lambda: reader.has(baseline), 10)
            say(f"playing {seconds:.0f} s at {rate:.0f} steps/s")
            _pace(sims, seconds, rate)
            live = set().union(*(s.keys() for s in sims)) - baseline
            _wait(lambda: reader.has(live), 10)
            latencies = [(reader.arrivals[k] - reader.logged_at[k]) * 1000
                         for k in live if k in reader.arrivals]
            lost_live = len(live - reader.arrivals.keys())

            say(f"broker down for {outage_s:.0f} s while the tables play on")
            before = set().union(*(s.keys() for s in sims))
            broker.stop()
            _pace(sims, outage_s, rate)
            during = set().union(*(s.keys() for s in sims)) - before
            returned = time.monotonic()
            broker.start()
            listening = time.monotonic() - returned
            recovered = _wait(lambda: reader.has(during), 30)
            recovery = time.monotonic() - returned
            everything = set().union(*(s.keys() for s in sims))
            _wait(lambda: reader.has(everything), 5)
            return {
                "tables": tables,
                "events_live": len(live),
                "latency_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
                "latency_p99_ms": round(_percentile(latencies, 99), 1) if latencies else None,
                "latency_max_ms": round(max(latencies), 1) if latencies else None,
                "events_lost_live": lost_live,
                "events_during_outage": len(during),
                "broker_listening_s": round(listening, 3),
                "recovery_s": round(recovery, 3) if recovered else None,
                "events_missing_at_end": len(everything - reader.arrivals.keys()),
                "repeats_on_page_feed": reader.repeats,
                "duplicates_seen_by_venue": venue.room.duplicates,
                "refusals": sum(len(s.refusals) for s in sims),
            }
        finally:
            for sim in sims:
                sim.publisher.close(timeout=0.5)
            if reader is not None:
                reader.close()
            venue.stop()
            broker.stop()
