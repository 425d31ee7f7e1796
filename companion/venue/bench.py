"""``companion bench venue``: many tables publishing through one broker to the venue page.

Each table is a real :class:`~companion.table.Table` (in-memory log) played by the
simulated world headless (no camera, to spare the cores), with a real
:class:`TablePublisher`.  One Mosquitto on loopback, one ``companion venue`` service,
and one client reading the page's SSE feed, where the latency is taken: from the
moment the event was logged to the moment the page's feed delivered it.  Then the
broker is killed (SIGKILL: whatever it held only in memory is gone) for 30 s while
the tables play on, and comes back with the tables reconnecting before the venue or
the venue before the tables: every event logged must reach the page's feed, every
finished game the league, and a venue started fresh after the crash too.  A plain
MQTT client counts the messages each table sends a minute, playing and idle.
"""

from __future__ import annotations

import collections
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

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.sim.headless import deliver
from companion.sim.world import World, load_world
from companion.table import Table
from companion.venue.app import VenueConfig, VenueService
from companion.venue.broker import LocalBroker
from companion.venue.publish import TablePublisher
from companion.venue.settings import MqttSettings

IDLE_S = 65.0  # over two heartbeats: what an idle table sends a minute
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
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            return  # closed (AttributeError: http.client's reader after close)

    def has(self, keys: set[tuple[str, int, int]]) -> bool:
        with self._lock:
            return keys <= self.arrivals.keys()

    def close(self) -> None:
        self.conn.close()


class BenchTable:
    """One simulated table: a Table, its world and its publisher."""

    def __init__(self, index: int, port: int, venue: str, game: tuple[str, int, str | None] | None = None,
                 name: str | None = None, setup: dict[str, Any] | None = None, log: Any = None) -> None:
        game_name, players, variant = game or BENCH_GAMES[index % len(BENCH_GAMES)]
        self.name = name or f"t{index + 1:02d}"
        self.table = Table.open(game_name, None, players, variant, seed=index, resume=False, setup=setup,
                                log=log)
        self.world: World = load_world(game_name, self.table.game, players, variant, index)
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


class WireCounter:
    """A plain client on the broker counting what each table publishes (by table and leaf)."""

    def __init__(self, port: int, venue: str) -> None:
        self.counts: collections.Counter[tuple[str, str]] = collections.Counter()
        self._lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-wire-counter",
                                  clean_session=True)
        self.client.on_connect = lambda c, *_: (c.subscribe(f"companion/{venue}/+/+", qos=0),
                                                c.subscribe("homeassistant/#", qos=0))
        self.client.on_message = self._on_message
        self.client.connect_async("127.0.0.1", port, 30)
        self.client.loop_start()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if message.retain:  # a retained copy sent on subscribing is not traffic of this minute
            return
        parts = message.topic.split("/")
        table = parts[2] if parts[0] == "companion" else parts[2].rsplit("_", 1)[-1]
        with self._lock:
            self.counts[(table, parts[3] if parts[0] == "companion" else "discovery")] += 1

    def take(self) -> collections.Counter[tuple[str, str]]:
        with self._lock:
            taken, self.counts = self.counts, collections.Counter()
        return taken

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _per_table_minute(counts: collections.Counter[tuple[str, str]], tables: int, seconds: float,
                      leaf: str | None = None) -> float:
    total = sum(n for (_, kind), n in counts.items() if leaf is None or kind == leaf)
    return round(total / tables / (seconds / 60), 1)


def _finish(sims: list[BenchTable], game: str, limit: int = 2000) -> None:
    """Play every table of ``game`` to its end (bounded)."""
    for sim in sims:
        if sim.table.game.name == game:
            for _ in range(limit):
                if sim.world.finished() or sim.table.public()["over"]:
                    break
                sim.step()


def _loop(client: Any, on: bool) -> None:
    """Pause or resume a paho client's network thread (a side that comes back later)."""
    if on:
        client.loop_start()
    else:
        client.loop_stop()


def _finished(sims: list[BenchTable]) -> set[tuple[str, int]]:
    return {(s.name, s.table.record.id) for s in sims if s.table.public()["over"]}


def _league_has(league: Any) -> set[tuple[str, int]]:
    return {(r["table"], r["game_id"]) for r in league.results()}


def crash_scenario(tables: int, seconds: float, rate: float, outage_s: float, late: str, late_s: float,
                   folder: Path, say: Callable[[str], None], idle_s: float = 0.0) -> dict[str, Any]:
    """Tables play, the broker is killed for ``outage_s``; ``late`` ("venue" or "tables") comes
    back ``late_s`` after the other side; then what reached the venue, and a fresh venue."""
    broker = LocalBroker(folder / "broker").start()
    venue = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="bench"),
                                     league_db=folder / "league.sqlite", port=0)).start()
    reader: FeedReader | None = None
    fresh: VenueService | None = None
    counter = WireCounter(broker.port, "bench")
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
        counter.take()
        say(f"playing {seconds:.0f} s at {rate:.0f} steps/s")
        began = time.monotonic()
        _pace(sims, seconds, rate)
        playing = counter.take()
        playing_s = time.monotonic() - began
        live = set().union(*(s.keys() for s in sims)) - baseline
        _wait(lambda: reader.has(live), 10)
        latencies = [(reader.arrivals[k] - reader.logged_at[k]) * 1000 for k in live if k in reader.arrivals]
        _finish(sims, "king_of_clubs")  # results the broker holds (retained) when it dies
        _wait(lambda: _finished(sims) <= _league_has(venue.league), 10)
        if idle_s:
            say(f"idle {idle_s:.0f} s: what the tables send when nothing happens")
            counter.take()
            time.sleep(idle_s)
        idle = counter.take()

        say(f"broker killed (SIGKILL) for {outage_s:.0f} s while the tables play on; {late} back last")
        before = set().union(*(s.keys() for s in sims))
        assert broker.process is not None
        broker.process.kill()
        broker.process.wait()
        broker.process = None
        time.sleep(1.5)  # every client has noticed
        late_clients = [venue.subscriber.client] if late == "venue" else [s.publisher.client for s in sims]
        for client in late_clients:
            _loop(client, False)
        _pace(sims, outage_s, rate)
        _finish(sims, "jivecat")  # games that end while the broker is away
        during = set().union(*(s.keys() for s in sims)) - before
        returned = time.monotonic()
        broker.start()
        time.sleep(late_s)
        for client in late_clients:
            _loop(client, True)
        everything = set().union(*(s.keys() for s in sims))
        recovered = _wait(lambda: reader.has(everything), 30)
        recovery = time.monotonic() - returned
        finished = _finished(sims)
        _wait(lambda: finished <= _league_has(venue.league), 10)
        say("a fresh venue (new league, new session) starts after the crash")
        fresh = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="bench"),
                                         league_db=folder / "fresh-league.sqlite", port=0,
                                         client_id="bench-fresh-venue")).start()
        _wait(lambda: finished <= _league_has(fresh.league), 10)
        return {
            "late": late,
            "events_live": len(live),
            "latency_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
            "latency_p99_ms": round(_percentile(latencies, 99), 1) if latencies else None,
            "events_during_outage": len(during),
            "events_lost": len(everything - reader.arrivals.keys()),
            "recovery_s": round(recovery, 3) if recovered else None,
            "games_finished": len(finished),
            "results_lost": len(finished - _league_has(venue.league)),
            "results_lost_fresh_venue": len(finished - _league_has(fresh.league)),
            "repeats_on_page_feed": reader.repeats,
            "msgs_per_table_min_playing": _per_table_minute(playing, tables, playing_s),
            "states_per_table_min_playing": _per_table_minute(playing, tables, playing_s, "state"),
            "msgs_per_table_min_idle": _per_table_minute(idle, tables, idle_s) if idle_s else None,
            "states_per_table_min_idle": _per_table_minute(idle, tables, idle_s, "state") if idle_s else None,
            "refusals": sum(len(s.refusals) for s in sims),
        }
    finally:
        counter.close()
        for sim in sims:
            sim.publisher.close(timeout=0.5, grace=0.5)
        if reader is not None:
            reader.close()
        if fresh is not None:
            fresh.stop()
        venue.stop()
        broker.stop()


def venue_benchmark(tables: int = 20, seconds: float = 8.0, rate: float = 40.0, outage_s: float = 30.0,
                    late_s: float = 6.0, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The crash scenario twice: tables back first, then the venue back first."""
    say = progress or (lambda _text: None)
    out: dict[str, Any] = {"tables": tables, "outage_s": outage_s, "late_s": late_s}
    with tempfile.TemporaryDirectory(prefix="bench-venue-") as tmp:
        for late in ("venue", "tables"):
            say(f"scenario: {late} back {late_s:.0f} s after the other side")
            figures = crash_scenario(tables, seconds, rate, outage_s, late, late_s, Path(tmp) / late, say,
                                     idle_s=IDLE_S if late == "venue" else 0.0)
            out.update({f"{late}_last.{k}": v for k, v in figures.items() if k != "late"})
    return out


def screens_benchmark(screens: int = 200, tables: int = 4, seconds: float = 5.0, rate: float = 20.0,
                      progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``screens`` room screens open on the live feed while tables play: how fast ``/api/room``
    answers, and whether every screen got its snapshot and keeps receiving."""
    import selectors
    import socket

    say = progress or (lambda _text: None)
    with tempfile.TemporaryDirectory(prefix="bench-screens-") as tmp:
        folder = Path(tmp)
        broker = LocalBroker(folder / "broker").start()
        venue = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="bench"),
                                         league_db=folder / "league.sqlite", port=0)).start()
        sims: list[BenchTable] = []
        sockets: list[socket.socket] = []
        received = [0] * screens
        stop = threading.Event()
        try:
            say(f"opening {screens} screens")
            for _ in range(screens):
                sock = socket.create_connection(("127.0.0.1", venue.port), timeout=30)
                sock.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
                sockets.append(sock)
            first = [b""] * screens
            for i, sock in enumerate(sockets):  # each screen gets its snapshot
                while b"data: " not in first[i]:
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise OSError(f"screen {i} was closed before its snapshot")
                    first[i] += chunk
            selector = selectors.DefaultSelector()
            for i, sock in enumerate(sockets):
                sock.setblocking(False)
                selector.register(sock, selectors.EVENT_READ, i)

            def drain() -> None:
                while not stop.is_set():
                    for key, _ in selector.select(0.2):
                        try:
                            data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                        except BlockingIOError:
                            continue
                        received[key.data] += data.count(b"data: ")

            drainer = threading.Thread(target=drain, name="screens", daemon=True)
            drainer.start()
            sims = [BenchTable(i, broker.port, "bench") for i in range(tables)]
            for sim in sims:
                sim.publisher.start()
            _wait(lambda: all(s.publisher.connected for s in sims), 10)
            say(f"{tables} tables play {seconds:.0f} s; /api/room asked meanwhile")
            times: list[float] = []
            player = threading.Thread(target=_pace, args=(sims, seconds, rate), daemon=True)
            player.start()
            while player.is_alive() or len(times) < 20:
                api = http.client.HTTPConnection("127.0.0.1", venue.port, timeout=30)
                began = time.perf_counter()
                api.request("GET", "/api/room")
                api.getresponse().read()
                times.append((time.perf_counter() - began) * 1000)
                api.close()
                time.sleep(0.1)
            player.join()
            time.sleep(1.0)
            return {
                "screens": screens,
                "screens_open_at_end": venue.streams.screens if venue.streams else 0,
                "api_room_requests": len(times),
                "api_room_p50_ms": round(statistics.median(times), 1),
                "api_room_max_ms": round(max(times), 1),
                "api_room_ms": [round(t) for t in times],
                "screens_with_updates": sum(1 for n in received if n > 0),
                "updates_per_screen_min": min(received),
            }
        finally:
            stop.set()
            for sim in sims:
                sim.publisher.close(timeout=0.5, grace=0.2)
            for sock in sockets:
                sock.close()
            venue.stop()
            broker.stop()
