"""The event log: the single source of truth of a running game.

SQLite in WAL mode with ``synchronous=FULL``: a row is on disk before
:meth:`EventLog.append` returns, so nothing is acknowledged (dashboard, LED,
buzzer) before it would survive a power cut.  The state is never stored; it is
a replay of the log.  Undo is an event too, so the history stays honest.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EVENT_KINDS: tuple[str, ...] = ("action", "undo", "correct", "clock", "keep_record")
"""Every kind of logged event, in one place.  ``action``: an applied action; ``undo``:
takes back the newest effective action; ``correct``: replaces the newest effective action
by the one it holds (one event, so a crash cannot leave half a correction); ``clock``:
``{"clock": "pause"|"resume"}``, neither an action nor an undo; ``keep_record``: the
players said the record is right where the camera reads otherwise (``{"type":
"keep_record", "text": ..., "places": {place: {"camera": ..., "record": ...}}}``), a line
of the history that moves no move."""
ACTION_KINDS = frozenset({"action", "correct"})
"""Kinds whose ``action`` must hold a JSON object."""

_KIND_CHECK = ", ".join(f"'{k}'" for k in EVENT_KINDS)

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
CREATE TABLE IF NOT EXISTS event (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES game(id),
    kind TEXT NOT NULL CHECK (kind IN (KINDS)),
    action TEXT,
    source TEXT NOT NULL,
    at REAL NOT NULL,
    request_id TEXT
);
CREATE INDEX IF NOT EXISTS event_game ON event(game_id, seq);
""".replace("KINDS", _KIND_CHECK)
INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS event_request ON event(game_id, request_id)
    WHERE request_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS event_request_any ON event(request_id)
    WHERE request_id IS NOT NULL;
"""


class DamagedLog(RuntimeError):
    """The log cannot be read as written: start-up refuses rather than guess or start empty.

    The message names what is damaged and how to recover."""



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
    """One logged event: an applied action, an undo, a correction (holding the
    replacement) or a clock event (see :data:`EVENT_KINDS`)."""

    seq: int
    kind: str
    action: dict[str, Any] | None
    source: str
    at: float
    request_id: str | None = None


_RECOVER = ("To recover: restore the file from a backup, or move it (and its -wal and "
            "-shm files and {marker}) aside to start afresh")


class EventLog:
    """Durable, append-only log of games and their events (thread-safe).

    Opening refuses a log it cannot read (:class:`DamagedLog`) rather than start an empty
    game over it: a marker file beside the log remembers the newest game started, so a
    log truncated to nothing or one that lost its WAL is noticed."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self.clock = clock
        self.marker: Path | None = None
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self.marker = Path(self.path + ".games")
        self._lock = threading.Lock()
        recover = _RECOVER.format(marker=self.marker.name if self.marker else "its marker")
        if self.marker is not None:
            self._check_wal(recover)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            check = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise DamagedLog(f"the log {self.path} is damaged ({check}). {recover}.")
            self._migrate()
            newest = self._db.execute("SELECT COALESCE(MAX(id), 0) FROM game").fetchone()[0]
        except sqlite3.DatabaseError as err:
            raise DamagedLog(f"cannot read the log {self.path}: {err}. {recover}.") from None
        started = self._marked()
        if started > newest:
            raise DamagedLog(
                f"the log {self.path} holds no game {started}, though game {started} was "
                f"started in it: the file was truncated or replaced, or lost its WAL "
                f"({Path(self.path).name}-wal). {recover}.")

    def _check_wal(self, recover: str) -> None:
        """Refuse a log whose WAL was deleted while its index says it held committed rows.

        After a crash the ``-shm`` index and the ``-wal`` file stay together; SQLite would
        silently open the main file without the WAL's rows.  The index header's ``mxFrame``
        (offset 16, native byte order) counts the WAL's valid frames."""
        shm, wal = Path(self.path + "-shm"), Path(self.path + "-wal")
        if not shm.exists() or wal.exists():
            return
        header = shm.read_bytes()[:48]
        if len(header) < 20:
            return
        frames = int.from_bytes(header[16:20], sys.byteorder)
        if frames > 0:
            raise DamagedLog(
                f"the log {self.path} lost its write-ahead log ({wal.name}): {frames} "
                f"committed page(s) are missing. Put {wal.name} back beside it, or {recover[12:]}.")

    def _migrate(self) -> None:
        """Create the tables, or bring an older log's tables up to this schema."""
        self._db.executescript(SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(game)")}
        if "options" not in columns:  # a log written before set-up options were kept
            self._db.execute("ALTER TABLE game ADD COLUMN options TEXT NOT NULL DEFAULT '{}'")
        sql = self._db.execute(
            "SELECT sql FROM sqlite_master WHERE type='table' AND name='event'").fetchone()[0]
        if "request_id" not in sql or any(f"'{k}'" not in sql for k in EVENT_KINDS):
            # an older log: its kind CHECK is narrower; SQLite rebuilds a table to widen one
            old = {row[1] for row in self._db.execute("PRAGMA table_info(event)")}
            keep = "seq, game_id, kind, action, source, at" + (
                ", request_id" if "request_id" in old else "")
            self._db.executescript(
                "BEGIN IMMEDIATE;"
                "ALTER TABLE event RENAME TO event_old;"
                "DROP INDEX IF EXISTS event_game;"
                + SCHEMA
                + f"INSERT INTO event ({keep}) SELECT {keep} FROM event_old;"
                "DROP TABLE event_old;"
                "COMMIT;")
        self._db.executescript(INDEXES)

    def _marked(self) -> int:
        if self.marker is None or not self.marker.exists():
            return 0
        try:
            return int(self.marker.read_text().strip() or 0)
        except ValueError:
            return 0

    def _mark(self, game_id: int) -> None:
        """Remember the newest game durably (the log's own rows are checkpointed first)."""
        if self.marker is None:
            return
        self._db.execute("PRAGMA wal_checkpoint(FULL)")
        tmp = self.marker.with_suffix(".tmp")
        with open(tmp, "w") as out:
            out.write(f"{game_id}\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.marker)

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
            self._mark(game_id)
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
        try:
            options = json.loads(row[7] or "{}")
        except ValueError:
            raise DamagedLog(f"game {game_id} in {self.path} has damaged set-up options; "
                             f"start a new game (--new-game) or restore a backup") from None
        return GameRecord(*row[:6], bool(row[6]), options)

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
    def append(self, game_id: int, kind: str, action: dict[str, Any] | None, source: str,
               request_id: str | None = None, finished: bool | None = None) -> Event:
        """Write one event durably (one transaction, committed with a full sync).

        ``finished`` (when given) sets the game's finished flag in the same transaction: a
        winning move, or an undo of one, is one decision and one write.  Raises ValueError
        for a kind not in :data:`EVENT_KINDS` or a non-finite number,
        :class:`DuplicateRequest` when ``request_id`` was already used in this game."""
        return self.append_many(game_id, [(kind, action, source, request_id)], finished)[0]

    def append_many(self, game_id: int,
                    events: Sequence[tuple[str, dict[str, Any] | None, str, str | None]],
                    finished: bool | None = None) -> list[Event]:
        """Write several events (kind, action, source, request id) as one decision: all of
        them in one transaction, or none.  A correction of an earlier move is the undos down
        to it, the correction and the moves after it made again; a crash must not leave the
        record with half of them.  Raises as :meth:`append` does."""
        rows = []
        for kind, action, source, request_id in events:
            if kind not in EVENT_KINDS:
                raise ValueError(f"unknown event kind {kind!r}; one of {', '.join(EVENT_KINDS)}")
            payload = None if action is None else json.dumps(action, sort_keys=True,
                                                             allow_nan=False)
            rows.append((kind, action, payload, source, request_id))
        at = self.clock()
        written: list[Event] = []
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for kind, action, payload, source, request_id in rows:
                    cur = self._db.execute(
                        "INSERT INTO event (game_id, kind, action, source, at, request_id)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (game_id, kind, payload, source, at, request_id),
                    )
                    written.append(Event(int(cur.lastrowid or 0), kind, action, source, at,
                                         request_id))
                if finished is not None:
                    self._db.execute("UPDATE game SET finished=? WHERE id=?",
                                     (int(finished), game_id))
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError:
                self._db.execute("ROLLBACK")
                for *_, request_id in rows:
                    if request_id is not None and self._request(game_id, request_id) is not None:
                        raise DuplicateRequest(request_id) from None
                raise
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return written

    def _request(self, game_id: int, request_id: str) -> Event | None:
        row = self._db.execute(
            "SELECT seq, kind, action, source, at, request_id FROM event"
            " WHERE game_id=? AND request_id=?", (game_id, request_id)).fetchone()
        return None if row is None else self._event(game_id, row)

    def find_request(self, game_id: int, request_id: str) -> Event | None:
        """The event logged with ``request_id`` in this game, if any (idempotent requests)."""
        with self._lock:
            return self._request(game_id, request_id)

    def find_request_anywhere(self, request_id: str) -> tuple[int, Event] | None:
        """(game id, event) of ``request_id`` in any game of this log, newest first.

        A request id names one tap for good: a winning move logged just before a kill is
        retried after the restart has begun the next game, and must not be played there."""
        with self._lock:
            row = self._db.execute(
                "SELECT game_id FROM event WHERE request_id=? ORDER BY seq DESC LIMIT 1",
                (request_id,)).fetchone()
            return None if row is None else (row[0], self._request(row[0], request_id))

    def events(self, game_id: int) -> list[Event]:
        """Every event of a game in order; :class:`DamagedLog` names the first bad row."""
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT seq, kind, action, source, at, request_id FROM event"
                    " WHERE game_id=? ORDER BY seq", (game_id,),
                ).fetchall()
            except sqlite3.DatabaseError as err:
                raise DamagedLog(f"cannot read the events of game {game_id} in {self.path}: "
                                 f"{err}. Restore the file from a backup.") from None
        return [self._event(game_id, row) for row in rows]

    def _event(self, game_id: int, row: tuple[Any, ...]) -> Event:
        seq, kind, payload, source, at, request_id = row
        why = None
        action = None
        if kind not in EVENT_KINDS:
            why = f"unknown kind {kind!r}"
        elif payload is not None:
            try:
                action = json.loads(payload, parse_constant=_refuse_constant)
            except ValueError as err:
                why = f"its action is not valid JSON ({err})"
            else:
                if not isinstance(action, dict):
                    why = "its action is not a JSON object"
        if why is None and kind in ACTION_KINDS and action is None:
            why = "its action is empty"
        if why is None and not isinstance(at, (int, float)):
            why = "its time is not a number"
        if why is not None:
            raise DamagedLog(
                f"event {seq} of game {game_id} in {self.path} is damaged: {why}. To recover, "
                f"keep the events before it (companion log truncate --data DIR --game "
                f"{game_id} --from {seq}), start a new game (--new-game), or restore a backup.")
        return Event(seq, kind, action, source, float(at), request_id)

    def truncate(self, game_id: int, from_seq: int) -> int:
        """Drop the events of a game from ``from_seq`` on (the operator's recovery from a
        damaged row); returns how many were dropped."""
        with self._lock:
            cur = self._db.execute("DELETE FROM event WHERE game_id=? AND seq>=?",
                                   (game_id, from_seq))
            return cur.rowcount


class DuplicateRequest(ValueError):
    """A request id already logged in this game: the request was applied once already."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name}")


def effective_events(events: list[Event]) -> list[tuple[Event, bool]]:
    """Each action or correction event with whether a later undo took it back (undo pops the newest)."""
    stack: list[int] = []
    undone: set[int] = set()
    for index, event in enumerate(events):
        if event.kind == "action":
            stack.append(index)
        elif event.kind == "correct":  # one event: take back the newest, record this one
            if stack:
                undone.add(stack.pop())
            stack.append(index)
        elif event.kind == "undo" and stack:
            undone.add(stack.pop())
        # clock events are neither actions nor undos
    return [(e, i in undone) for i, e in enumerate(events) if e.kind in ACTION_KINDS]
