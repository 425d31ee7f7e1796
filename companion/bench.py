"""Benchmarks behind ``companion bench``: figures, not pass/fail (no timed tests)."""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time
from typing import Any

from tqdm import tqdm

from companion.games import load_game
from companion.games.base import BoardView, Prompt
from companion.sim.headless import deliver, play
from companion.sim.world import BoardChange, load_world
from companion.table import Table


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def sample_boards(game_name: str, players: int | None, count: int, seed: int = 0) -> list[BoardView]:
    """Boards a real game passes through, taken from the simulated table's moves."""
    game = load_game(game_name)
    n = players or game.min_players
    boards: list[BoardView] = []
    while len(boards) < count:
        world = load_world(game_name, game, n, None, seed)
        table = Table.open(game_name, None, n, None, seed, resume=False)
        refusals: list[str] = []
        for event in world.start():
            if isinstance(event, BoardChange):
                boards.append(event.view)
            deliver(table, event, refusals)
        steps = 0
        while not world.finished() and len(boards) < count and steps < 2000:
            for event in world.step(table.public()):
                if isinstance(event, BoardChange):
                    boards.append(event.view)
                deliver(table, event, refusals)
            steps += 1
        seed += 1
    return boards[:count]


def vision_benchmark(game_name: str, frames: int, players: int | None = None) -> dict[str, Any]:
    """ms per frame of reading (see :mod:`companion.vision.bench`, where it lives now)."""
    from companion.vision.bench import frame_cost

    return frame_cost(game_name, frames, players)


def serial_benchmark(taps: int) -> dict[str, Any]:
    """Latency from a card laid on the emulated reader to the host's callback."""
    from companion.sensors.serial_link import SerialLink
    from companion.sim.device import DeviceEmulator

    device = DeviceEmulator(poll_ms=2).start()
    arrived = threading.Event()
    link = SerialLink(device.port, lambda r, u: arrived.set(), lambda s, p: None).start()
    try:
        if not link.wait_connected(10):
            raise OSError("emulated device did not connect")
        latencies = []
        for i in tqdm(range(taps), desc="taps", unit="tap", leave=False):
            arrived.clear()
            uid = i.to_bytes(4, "big")
            t0 = time.perf_counter()
            device.readers[i % 6].uid = uid
            got = arrived.wait(2.0)
            latencies.append((time.perf_counter() - t0) * 1000 if got else float("inf"))
            device.readers[i % 6].uid = None
            time.sleep(0.012)
    finally:
        link.stop()
        device.stop()
    received = [v for v in latencies if v != float("inf")]
    return {
        "taps": taps,
        "received": len(received),
        "latency_ms_p50": statistics.median(received) if received else float("nan"),
        "latency_ms_p99": _percentile(received, 0.99),
        "bad_frames": link.health.bad_frames,
    }


def sse_benchmark(clients: int, events: int) -> dict[str, Any]:
    """Many dashboards on one table: push -> receipt latency over loopback."""
    from waitress.server import create_server

    from companion.table import Table
    from companion.web.app import create_app

    table = Table.open("times_square", None, 2, None, 0, resume=False)
    app = create_app(table, "0000", {"KEEPALIVE_S": 1.0})
    server = create_server(app, host="127.0.0.1", port=0, threads=clients + 8,
                           connection_limit=clients + 50)
    port = server.effective_port
    threading.Thread(target=server.run, daemon=True).start()
    sent: dict[int, float] = {}
    received: list[list[float]] = [[] for _ in range(clients)]
    ready = threading.Barrier(clients + 1, timeout=30)

    def client(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        first = True
        seen: set[int] = set()
        buffer = b""
        deadline = time.monotonic() + 60
        while len(seen) < events and time.monotonic() < deadline:
            chunk = response.fp.readline()
            if not chunk:
                break
            if first and chunk.startswith(b"data:"):
                first = False
                ready.wait()
                continue
            buffer = chunk
            if buffer.startswith(b"data:"):
                snapshot = json.loads(buffer[5:])
                for prompt in snapshot["prompts"]:
                    if prompt["text"].startswith("bench "):
                        n = int(prompt["text"].split()[1])
                        if n not in seen:
                            seen.add(n)
                            received[index].append(time.perf_counter() - sent[n])
        conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    for n in tqdm(range(events), desc="events", unit="event", leave=False):
        sent[n] = time.perf_counter()
        table.notice("bench", Prompt(f"bench {n}", "info"))
        time.sleep(0.05)
    for t in threads:
        t.join(timeout=30)
    server.close()
    all_ms = [v * 1000 for per in received for v in per]
    return {
        "clients": clients,
        "events": events,
        "deliveries": len(all_ms),
        "expected_deliveries": clients * events,
        "latency_ms_p50": statistics.median(all_ms) if all_ms else float("nan"),
        "latency_ms_p99": _percentile(all_ms, 0.99),
    }


def replay_benchmark(game_name: str, count: int) -> dict[str, Any]:
    """Whole simulated games through the Table with no devices."""
    game = load_game(game_name)
    t0 = time.perf_counter()
    actions = 0
    finished = 0
    for seed in tqdm(range(count), desc="games", unit="game", leave=False):
        players = game.min_players + seed % (game.max_players - game.min_players + 1)
        result = play(game_name, players, None, seed)
        actions += sum(1 for h in result.tablet["history"] if not h["undone"])
        finished += result.tablet["over"]
    seconds = time.perf_counter() - t0
    return {
        "game": game_name,
        "games": count,
        "finished": finished,
        "actions": actions,
        "seconds": seconds,
        "games_per_s": count / seconds,
        "actions_per_s": actions / seconds,
    }
