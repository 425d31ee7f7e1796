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
from companion.games.base import Prompt
from companion.sim.headless import play
from companion.table import Table


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


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


def _table_at_move(moves: int) -> Table:
    """An in-memory table whose history holds ``moves`` entries (set-up, then a move made
    and taken back in turn): the snapshot size a long game reaches."""
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    if moves:
        table.declare(table.game.legal_actions(table.state)[0])
        again = table.game.legal_actions(table.state)[0]
        while len(table.history) < moves:
            table.declare(again)
            if len(table.history) < moves:
                table.undo()
    return table


def _idle_dashboards(port: int, count: int, ready: Any, stop: Any) -> None:
    """Idle dashboards in a process of their own (other devices, not the server's GIL):
    connected, reading what comes, doing nothing else."""
    import resource
    import selectors
    import socket

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 256)), hard))
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: bench\r\n\r\n")
        sock.recv(65536)  # the headers and the first state: connected
        socks.append(sock)
    ready.set()
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    while not stop.is_set():
        for key, _ in selector.select(timeout=0.2):
            try:
                key.fileobj.recv(65536)  # type: ignore[union-attr]
            except (BlockingIOError, OSError):
                pass
    selector.close()
    for sock in socks:
        sock.close()


def sse_benchmark(clients: int, events: int, idle: int = 0, moves: int = 0,
                  api_requests: int | None = None) -> dict[str, Any]:
    """Many dashboards on one table at move ``moves``: push -> receipt latency over loopback
    for ``clients`` live ones, and the API's latency with ``idle`` more connected."""
    import multiprocessing
    import resource

    from companion.web.app import create_app
    from companion.web.server import DashboardServer

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 2 * (clients + idle) + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if api_requests is None:  # the API is measured beside idle dashboards
        api_requests = 200 if idle else 0
    table = _table_at_move(moves)
    app = create_app(table, "000000", {"KEEPALIVE_S": 1.0})
    server = DashboardServer(table, app, "127.0.0.1", 0).start()
    server.wait_started()
    port = server.port
    spawn = multiprocessing.get_context("spawn")
    stop, connected = spawn.Event(), spawn.Event()
    drainer = spawn.Process(target=_idle_dashboards, args=(port, idle, connected, stop),
                            daemon=True)
    if idle:
        drainer.start()
        if not connected.wait(120):
            raise RuntimeError("the idle dashboards could not connect")
    sent: dict[int, float] = {}
    received: list[list[float]] = [[] for _ in range(clients)]
    ready = threading.Barrier(clients + 1, timeout=60)

    def client(index: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/api/events")
        response = conn.getresponse()
        first = True
        seen: set[int] = set()
        deadline = time.monotonic() + 120
        while len(seen) < events and time.monotonic() < deadline:
            line = response.fp.readline()
            if not line:
                break
            if not line.startswith(b"data:"):
                continue
            if first:
                first = False
                ready.wait()
                continue
            arrived = time.perf_counter()
            delta = json.loads(line[5:])
            for prompt in delta.get("set", {}).get("prompts", []):
                if prompt["text"].startswith("bench "):
                    n = int(prompt["text"].split()[1])
                    if n not in seen and n in sent:
                        seen.add(n)
                        received[index].append(arrived - sent[n])
        conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    ready.wait()
    api_ms: list[float] = []
    streams = server.app.streams
    api = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for n in tqdm(range(max(events, api_requests)), desc="events", unit="event", leave=False):
        if n < events:
            sent[n] = time.perf_counter()
            table.notice("bench", Prompt(f"bench {n}", "info"))
        if n < api_requests:
            began = time.perf_counter()
            api.request("GET", "/api/state")
            api.getresponse().read()
            api_ms.append((time.perf_counter() - began) * 1000)
        time.sleep(0.05)
    api.close()
    for t in threads:
        t.join(timeout=60)
    stop.set()
    if idle:
        drainer.join(timeout=10)
    server.close()
    all_ms = [v * 1000 for per in received for v in per]
    return {
        "moves": len(table.history),
        "clients": clients,
        "idle": idle,
        "streams_open": streams,
        "events": events,
        "deliveries": len(all_ms),
        "expected_deliveries": clients * events,
        "latency_ms_p50": statistics.median(all_ms) if all_ms else float("nan"),
        "latency_ms_p99": _percentile(all_ms, 0.99),
        "snapshot_bytes": len(json.dumps(table.public())),
        "api_requests": len(api_ms),
        "api_ms_p50": statistics.median(api_ms) if api_ms else float("nan"),
        "api_ms_p99": _percentile(api_ms, 0.99),
    }


def log_replay_benchmark(game_name: str, events: int, seed: int = 0) -> dict[str, Any]:
    """Restart over a log of ``events`` events (a real game, its moves taken back and made
    again to reach the length) and replay the same as a script: the two replay paths."""
    import tempfile
    from pathlib import Path

    from companion.replay import run_replay
    from companion.store import EventLog

    game = load_game(game_name)
    result = play(game_name, game.min_players, None, seed)
    moves = [h["action"] for h in result.tablet["history"] if not h["undone"]]
    repeats = max(0, (events - len(moves)) // (2 * max(1, len(moves))))
    kinds: list[tuple[str, dict[str, Any] | None]] = []
    for action in moves:
        kinds.append(("action", action))
        for _ in range(repeats):
            kinds += [("undo", None), ("action", action)]
    while len(kinds) < events:
        kinds += [("undo", None), ("action", moves[-1])]
    kinds = kinds[:events]
    with tempfile.TemporaryDirectory() as folder:
        log = EventLog(Path(folder) / "companion.sqlite")
        record = log.new_game(game_name, game.min_players, game.variants[0], seed)
        with log._lock:
            log._db.execute("BEGIN")
            log._db.executemany(
                "INSERT INTO event (game_id, kind, action, source, at) VALUES (?, ?, ?, ?, ?)",
                [(record.id, k, None if a is None else json.dumps(a), "bench", 1.0 + i)
                 for i, (k, a) in enumerate(kinds)])
            log._db.execute("COMMIT")
        log.close()
        began = time.perf_counter()
        table = Table.open(game_name, folder)
        restart_s = time.perf_counter() - began
        entries = len(table.history)
        table.log.close()
    lines = [json.dumps({"meta": {"players": game.min_players, "seed": seed}})] + [
        json.dumps({"type": "undo"} if a is None else a) for _, a in kinds]
    began = time.perf_counter()
    outcome = run_replay(game_name, lines)
    script_s = time.perf_counter() - began
    return {"game": game_name, "events": len(kinds), "history_entries": entries,
            "restart_replay_s": restart_s, "script_replay_s": script_s,
            "script_applied": outcome.applied, "script_refused": outcome.refused}


def replay_benchmark(game_name: str, count: int) -> dict[str, Any]:
    """Whole simulated games through the Table with no devices."""
    game = load_game(game_name)
    t0 = time.perf_counter()
    actions = 0
    finished = 0
    for seed in tqdm(range(count), desc="games", unit="game", leave=False):
        counts = game.player_counts()
        players = counts[seed % len(counts)]
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
