"""The event log: the single source of truth of a running game.

SQLite in WAL mode with ``synchronous=FULL``: a row is on disk before
:meth:`EventLog.append` returns, so nothing is acknowledged (dashboard, LED,
buzzer) before it would survive a power cut.  The state is never stored; it is
a replay of the log.  Undo is an event too, so the history stays honest.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EVENT_TABLE = """
CREATE TABLE IF NOT EXISTS event (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES game(id),
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo', 'clock')),
    action TEXT,
    source TEXT NOT NULL,
    at REAL NOT NULL
);
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS game (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    players INTEGER NOT NULL,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    options TEXT NOT NULL DEFAULT '{}'
);
""" + EVENT_TABLE + """
CREATE INDEX IF NOT EXISTS event_game ON event(game_id, seq);
"""


@dataclass(frozen=True)
class GameRecord:
    id: int
    name: str
    players: int
    variant: str
    seed: int
    created: float
    finished: bool
    options: dict[str, Any] = field(default_factory=dict)
    """Set-up chosen for this game: ``house_rules`` (id -> value), and the table's names,
    colours and seats where the set-up gave them."""


@dataclass(frozen=True)
class Event:
    """One logged event: an applied action, an undo of the last effective one, or a clock
    pause/resume (kind ``clock``, action ``{"clock": "pause"|"resume"}``)."""

    seq: int
    kind: str
    action: dict[str, Any] | None
    source: str
    at: float


class EventLog:
    """Durable, append-only log of games and their events (thread-safe)."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self.clock = clock
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(game)")}
        if "options" not in columns:  # a log written before set-up options were kept
            self._db.execute("ALTER TABLE game ADD COLUMN options TEXT NOT NULL DEFAULT '{}'")
        self._allow_clock_events()

    def _allow_clock_events(self) -> None:
        """A log written before clocks were paused refuses 'clock' rows: widen its CHECK."""
        row = self._db.execute("SELECT sql FROM sqlite_master WHERE name='event'").fetchone()
        if row is None or "'clock'" in row[0]:
            return
        self._db.executescript(
            "BEGIN; ALTER TABLE event RENAME TO event_old;"
            + EVENT_TABLE
            + "INSERT INTO event SELECT seq, game_id, kind, action, source, at FROM event_old;"
            " DROP TABLE event_old;"
            " CREATE INDEX IF NOT EXISTS event_game ON event(game_id, seq); COMMIT;"
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- games -------------------------------------------------------------------------------
    def new_game(self, name: str, players: int, variant: str, seed: int,
                 options: dict[str, Any] | None = None) -> GameRecord:
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO game (name, players, variant, seed, created, options)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (name, players, variant, seed, self.clock(),
                 json.dumps(options or {}, sort_keys=True, allow_nan=False)),
            )
            game_id = int(cur.lastrowid or 0)
        return self.game(game_id)

    def game(self, game_id: int) -> GameRecord:
        with self._lock:
            row = self._db.execute(
                "SELECT id, name, players, variant, seed, created, finished, options"
                " FROM game WHERE id=?",
                (game_id,),
            ).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        return GameRecord(*row[:6], bool(row[6]), json.loads(row[7] or "{}"))

    def unfinished(self, name: str) -> GameRecord | None:
        """The newest unfinished game of ``name``: what a restart resumes."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM game WHERE name=? AND finished=0 ORDER BY id DESC LIMIT 1",
                (name,),
            ).fetchone()
        return self.game(row[0]) if row else None

    def games(self) -> list[GameRecord]:
        """Every game in the log, newest first (set-up's resume list and the archive)."""
        with self._lock:
            ids = [row[0] for row in self._db.execute("SELECT id FROM game ORDER BY id DESC")]
        return [self.game(game_id) for game_id in ids]

    def mark_finished(self, game_id: int) -> None:
        with self._lock:
            self._db.execute("UPDATE game SET finished=1 WHERE id=?", (game_id,))

    # --- events ------------------------------------------------------------------------------
    def append(self, game_id: int, kind: str, action: dict[str, Any] | None, source: str) -> Event:
        """Write one event durably (the transaction commits with a full sync)."""
        at = self.clock()
        payload = None if action is None else json.dumps(action, sort_keys=True)
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO event (game_id, kind, action, source, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, kind, payload, source, at),
            )
            seq = int(cur.lastrowid or 0)
        return Event(seq, kind, action, source, at)

    def events(self, game_id: int) -> list[Event]:
        with self._lock:
            rows = self._db.execute(
                "SELECT seq, kind, action, source, at FROM event WHERE game_id=? ORDER BY seq",
                (game_id,),
            ).fetchall()
        return [Event(s, k, None if a is None else json.loads(a), src, at) for s, k, a, src, at in rows]


def effective_events(events: list[Event]) -> list[tuple[Event, bool]]:
    """Each action event with whether a later undo took it back (undo pops the newest)."""
    stack: list[int] = []
    undone: set[int] = set()
    for index, event in enumerate(events):
        if event.kind == "action":
            stack.append(index)
        elif event.kind == "undo" and stack:
            undone.add(stack.pop())
    return [(e, i in undone) for i, e in enumerate(events) if e.kind == "action"]
