#!/usr/bin/env python3
"""kill -9 campaign (issue 13): nothing acknowledged is lost, nothing applied twice.

Part A, the demo: each game's simulated table plays through the real service (camera
frames, the device on a pty, HTTP) and is killed with SIGKILL at random moments, then
restarted on the same data directory until the game ends.  Counted: kills, entries seen
acknowledged on the tablet before a kill and missing after it (lost), and whether the
companion's result still agrees with the world's truth.

Part B, corrections and undos: ``companion serve`` takes declarations, corrections and
undos with request ids while being killed; an interrupted request is retried with the
same id after the restart.  A model of the effective actions (declare pushes, correct
replaces the top, undo pops) is compared with the log at the end: actions lost and
duplicated.

Usage: scripts/kill_campaign.py [--demo-kills 15] [--storm-kills 30] [--seed 1]
Bounded: every wait has a timeout; each part stops after its kills.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

GAMES = [("times_square", 2, None), ("jivecat", 2, None), ("baron_voodoo", 2, None),
         ("king_of_clubs", 2, "advanced"), ("swing_state", 2, None)]
PIN = "246810"
PY = sys.executable
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def start(args: list[str], log: Path) -> tuple[subprocess.Popen, str]:
    out = open(log, "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen([PY, "-m", "companion", *args], stdout=subprocess.PIPE,
                            stderr=out, start_new_session=True)
    deadline = time.monotonic() + 60
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    seen = b""
    while time.monotonic() < deadline:
        chunk = proc.stdout.read() or b""
        seen += chunk
        found = re.search(rb"Dashboard: (http://[0-9.:]+)", seen)
        if found:
            return proc, found.group(1).decode()
        if proc.poll() is not None:
            raise RuntimeError(f"{args[0]} exited: {seen.decode(errors='replace')}")
        time.sleep(0.05)
    raise RuntimeError("no banner within 60 s")


def kill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def get(url: str, timeout: float = 5.0) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return json.loads(reply.read())


def post(url: str, body: dict, timeout: float = 5.0) -> tuple[int, dict]:
    request = urllib.request.Request(f"{url}/api/actions", data=json.dumps(body).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-Table-Pin": PIN})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def log_entries(data: Path) -> dict[int, tuple[str, str | None]]:
    import sqlite3

    db = sqlite3.connect(data / "companion.sqlite")
    rows = db.execute("SELECT seq, kind, action FROM event").fetchall()
    db.close()
    return {seq: (kind, action) for seq, kind, action in rows}


# --- part A -----------------------------------------------------------------------------
def demo_campaign(game: str, players: int, variant: str | None, kills: int, rng: random.Random,
                  work: Path) -> dict:
    data = work / f"demo-{game}"
    args = ["demo", "--game", game, "--players", str(players), "--seed", "4", "--speed", "0",
            "--data", str(data), "--port", "0", "--pin", PIN, "--exit-when-over",
            "--max-steps", "3000"] + (["--variant", variant] if variant else [])
    done = lost = 0
    while done < kills:
        proc, url = start(args, work / "demo.log")
        time.sleep(rng.uniform(0.2, 2.0))
        try:
            seen = get(f"{url}/api/state?history=500")
        except (OSError, ValueError):
            seen = None
        if proc.poll() is not None:
            break  # the game ended before this kill
        kill(proc)
        done += 1
        if seen:
            kept = log_entries(data)
            lost += sum(1 for h in seen["history"] if h["seq"] not in kept)
    try:
        proc = subprocess.run([PY, "-m", "companion", *args], capture_output=True, text=True,
                              timeout=900)
    except subprocess.TimeoutExpired:
        return {"game": game, "kills": done, "lost": lost, "finished": False,
                "result": "the final run to the end took over 900 s", "winner": None}
    finished = "Game over: True" in proc.stdout
    winner = re.search(r"winner: (.*?)  \(", proc.stdout)
    return {"game": game, "kills": done, "lost": lost, "finished": finished,
            "result": proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else
            proc.stderr.strip()[-300:], "winner": winner.group(1) if winner else None}


# --- part B -----------------------------------------------------------------------------
def storm_campaign(game: str, players: int, variant: str | None, kills: int,
                   rng: random.Random, work: Path) -> dict:
    data = work / f"storm-{game}"
    args = ["serve", "--game", game, "--players", str(players), "--data", str(data),
            "--port", "0", "--pin", PIN, "--no-gpio"] + (["--variant", variant] if variant else [])
    model: list[str] = []  # effective actions, as JSON
    counter = 0
    kinds = {"declare": 0, "correct": 0, "undo": 0}
    in_flight = {"declare": 0, "correct": 0, "undo": 0}
    pending: tuple[dict, str] | None = None
    alternatives: list[dict] = []
    over = False
    game_id = None
    lost = duplicated = games = 0
    for _ in range(kills):
        proc, url = start(args, work / "storm.log")
        now_id = get(f"{url}/api/state?history=0")["game_id"]
        if game_id is not None and now_id != game_id:
            # the kill came after a winning move: that game is finished and kept; check it
            logged = effective(data, game_id)
            if pending is not None and pending[1] != "undo":
                trial = list(model)
                apply_model(trial, pending[1], pending[0])
                if trial == logged:
                    model = trial
            pending = None
            games += 1
            lost_here, dup_here = compare(model, logged)
            lost, duplicated = lost + lost_here, duplicated + dup_here
            model, alternatives, over = [], [], False
        game_id = now_id
        if pending is not None:  # the request the kill interrupted, retried with its id
            body, kind = pending
            status, reply = post(url, body)
            if status == 200:  # applied now, or before the kill (duplicate): once either way
                apply_model(model, kind, body)
                over = bool(reply.get("state", {}).get("over"))
            if kind != "correct":
                alternatives = []
            pending = None
        if os.environ.get("KILL_DEBUG"):
            now = get(f"{url}/api/state?history=500")
            shown = [h for h in now["history"] if not h["undone"]]
            print("restart", now["game_id"], len(shown), len(model), now["over"],
                  file=sys.stderr, flush=True)
        deadline = time.monotonic() + rng.uniform(0.3, 1.5)
        killer_at = None
        while True:
            state = get(f"{url}/api/legal")
            if not state["actions"] and not over:
                break
            choice = rng.random()
            counter += 1
            rid = f"r{counter}"
            top = model[-1] if model else None
            others = [a for a in alternatives if json.dumps(a, sort_keys=True) != top]
            if (choice < 0.2 or over) and model:  # a finished game is reopened by undo
                kind, body = "undo", {"type": "undo", "request_id": rid}
            elif choice < 0.45 and model and others:
                kind = "correct"
                body = {"action": {"type": "correct", "action": others[0]}, "request_id": rid}
            else:
                kind, body = "declare", {"action": state["actions"][0], "request_id": rid}
            if time.monotonic() > deadline:
                killer_at = time.monotonic() + rng.uniform(0.0, 0.02)
            kinds[kind] += 1
            pending = (body, kind)
            if killer_at is not None:
                import threading

                threading.Timer(max(0.0, killer_at - time.monotonic()), kill, [proc]).start()
                in_flight[kind] += 1
            try:
                status, reply = post(url, body)
            except (OSError, http.client.HTTPException):
                break  # killed mid-request: retried after the restart
            if status == 200:
                apply_model(model, kind, body)
                pending = None
                over = bool(reply.get("state", {}).get("over"))
                if kind == "declare":  # what the top could be corrected to
                    alternatives = state["actions"][1:6]
                elif kind == "undo":
                    alternatives = []
            elif status == 409:
                pending = None
                if os.environ.get("KILL_DEBUG"):
                    print("409", kind, reply.get("error"), over, len(model), file=sys.stderr)
                    time.sleep(0.2)
            else:
                raise RuntimeError(f"{status} {reply}")
            if killer_at is not None:
                break
        if proc.poll() is None:
            time.sleep(0.1)
            if proc.poll() is None:
                kill(proc)
    proc, url = start(args, work / "storm.log")
    if pending is not None:
        body, kind = pending
        status, reply = post(url, body)
        if status == 200:
            apply_model(model, kind, body)
    final_id = get(f"{url}/api/state?history=0")["game_id"]
    kill(proc)
    if game_id is not None and final_id != game_id:
        # the last move won the game: it is finished and kept, and the restart began a new
        # one with nothing in it; the model is checked against the finished game
        final_id = game_id
    logged = effective(data, final_id)
    lost_here, dup_here = compare(model, logged)
    return {"game": game, "kills": kills, "requests": kinds, "killed_in_flight": in_flight,
            "games_checked": games + 1, "model": len(model), "logged": len(logged),
            "lost": lost + lost_here, "duplicated": duplicated + dup_here}


def effective(data: Path, game_id: int) -> list[str]:
    """The game's effective actions as the log holds them (after undos and corrections)."""
    from companion.store import EventLog, effective_events

    log = EventLog(data / "companion.sqlite")
    try:
        return [json.dumps(e.action, sort_keys=True)
                for e, undone in effective_events(log.events(game_id)) if not undone]
    finally:
        log.close()


def compare(model: list[str], logged: list[str]) -> tuple[int, int]:
    """(lost, duplicated): what the acknowledged model has that the log lacks, and more."""
    same = 0
    for a, b in zip(model, logged, strict=False):
        if a != b:
            break
        same += 1
    return len(model) - same, len(logged) - same


def apply_model(model: list[str], kind: str, body: dict) -> None:
    action = body["action"] if "action" in body else body
    if kind == "undo":
        model.pop()
    elif kind == "correct":
        model[-1] = json.dumps(action["action"], sort_keys=True)
    else:
        model.append(json.dumps(action, sort_keys=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--demo-kills", type=int, default=15)
    parser.add_argument("--storm-kills", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default=",".join(g for g, _, _ in GAMES))
    options = parser.parse_args()
    rng = random.Random(options.seed)
    chosen = [g for g in GAMES if g[0] in options.games.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        total = 0
        for game, players, variant in chosen:
            if options.storm_kills:
                result = storm_campaign(game, players, variant, options.storm_kills, rng, work)
                total += result["kills"]
                print(json.dumps({"part": "B corrections/undos", **result}), flush=True)
            if options.demo_kills:
                result = demo_campaign(game, players, variant, options.demo_kills, rng, work)
                total += result["kills"]
                print(json.dumps({"part": "A demo", **result}), flush=True)
        print(json.dumps({"kill_points": total}), flush=True)


if __name__ == "__main__":
    main()
