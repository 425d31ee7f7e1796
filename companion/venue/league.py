"""The league: every finished game of the room, kept in the venue's own SQLite store.

Players are counted by name across tables, games and evenings.  Scores of different
games do not compare (a Times Square win is 1 point, a Baron Voodoo score 40), so each
game's scores are normalised: a player's points for a game are their score over the
best score at that table (the winner gets 1.0; a game whose best score is not above 0
gives its winners 1.0 and the others 0.0).  An evening is the date of the game's end,
counted from 06:00 local time, so a club night past midnight stays one evening.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS result (
    id INTEGER PRIMARY KEY,
    venue TEXT NOT NULL,
    table_name TEXT NOT NULL,
    game_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    title TEXT NOT NULL,
    started REAL NOT NULL,
    finished REAL NOT NULL,
    evening TEXT NOT NULL,
    reason TEXT,
    UNIQUE (venue, table_name, game_id, started)
);
CREATE TABLE IF NOT EXISTS result_player (
    result_id INTEGER NOT NULL REFERENCES result(id),
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    score REAL NOT NULL,
    points REAL NOT NULL,
    won INTEGER NOT NULL,
    PRIMARY KEY (result_id, seat)
);
"""
EVENING_STARTS_H = 6
CSV_COLUMNS = ("rank", "name", "games", "wins", "points", "points_per_game")


class BadResult(ValueError):
    """A result message the league cannot use; nothing is stored."""


def evening_of(finished: float) -> str:
    """The evening a game ended in: its local date, a new evening starting at 06:00."""
    return time.strftime("%Y-%m-%d", time.localtime(finished - EVENING_STARTS_H * 3600))


def normalised_points(scores: list[float], winners: list[int]) -> list[float]:
    best = max(scores) if scores else 0.0
    if best <= 0:
        return [1.0 if seat in winners else 0.0 for seat in range(len(scores))]
    return [round(max(0.0, score) / best, 4) for score in scores]


class League:
    """Results by (venue, table, game id, start time): the same result twice counts once."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def record(self, venue: str, result: dict[str, Any]) -> bool:
        """Store a finished game (a ``result`` message); False when it is already in."""
        players, winners = _checked(result)
        scores = [float(p["score"]) for p in players]
        points = normalised_points(scores, winners)
        finished = float(result["finished"])
        with self._lock:
            self._db.execute("BEGIN")
            try:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO result (venue, table_name, game_id, game, title, started,"
                    " finished, evening, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (venue, result["table"], int(result["game_id"]), result["game"],
                     str(result.get("title") or result["game"]), float(result["started"]), finished,
                     evening_of(finished), result.get("reason")),
                )
                if cur.rowcount == 0:
                    self._db.execute("ROLLBACK")
                    return False
                result_id = cur.lastrowid
                self._db.executemany(
                    "INSERT INTO result_player (result_id, seat, name, score, points, won)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    [(result_id, seat, p["name"], scores[seat], points[seat], int(seat in winners))
                     for seat, p in enumerate(players)],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return True

    def evenings(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT evening FROM result ORDER BY evening").fetchall()
        return [r[0] for r in rows]

    def standings(self, evening: str | None = None) -> list[dict[str, Any]]:
        """Players by name: games, wins, points (sum of normalised points), best first."""
        where, args = ("WHERE r.evening = ?", (evening,)) if evening else ("", ())
        with self._lock:
            rows = self._db.execute(
                "SELECT p.name, COUNT(*), SUM(p.won), SUM(p.points) FROM result_player p"
                f" JOIN result r ON r.id = p.result_id {where}"
                " GROUP BY p.name ORDER BY SUM(p.points) DESC, SUM(p.won) DESC, p.name",
                args,
            ).fetchall()
        return [{"rank": i + 1, "name": name, "games": games, "wins": wins, "points": round(points, 3),
                 "points_per_game": round(points / games, 3)}
                for i, (name, games, wins, points) in enumerate(rows)]

    def results(self, evening: str | None = None) -> list[dict[str, Any]]:
        where, args = ("WHERE evening = ?", (evening,)) if evening else ("", ())
        with self._lock:
            rows = self._db.execute(
                "SELECT id, venue, table_name, game_id, game, title, started, finished, evening, reason"
                f" FROM result {where} ORDER BY finished DESC", args).fetchall()
            out = []
            for rid, venue, table, game_id, game, title, started, finished, ev, reason in rows:
                players = self._db.execute(
                    "SELECT name, score, points, won FROM result_player WHERE result_id=? ORDER BY seat",
                    (rid,)).fetchall()
                out.append({"venue": venue, "table": table, "game_id": game_id, "game": game,
                            "title": title, "started": started, "finished": finished, "evening": ev,
                            "reason": reason,
                            "players": [{"name": n, "score": s, "points": p, "won": bool(w)}
                                        for n, s, p, w in players]})
        return out

    def export_json(self, evening: str | None = None) -> str:
        return json.dumps({"evening": evening, "standings": self.standings(evening),
                           "results": self.results(evening)}, indent=1, sort_keys=True)

    def export_csv(self, evening: str | None = None) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(self.standings(evening))
        return out.getvalue()


def _checked(result: Any) -> tuple[list[dict[str, Any]], list[int]]:
    """The result's players and winners, or BadResult naming what is wrong."""
    if not isinstance(result, dict):
        raise BadResult("a result is a JSON object")
    for key in ("table", "game", "game_id", "started", "finished", "players", "winner"):
        if key not in result:
            raise BadResult(f"a result needs {key!r}")
    players = result["players"]
    if not isinstance(players, list) or not players:
        raise BadResult("a result needs a non-empty list of players")
    for p in players:
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"].strip() \
                or isinstance(p.get("score"), bool) or not isinstance(p.get("score"), int | float):
            raise BadResult(f"each player needs a name and a numeric score, not {p!r}")
    winners = result["winner"]
    if not isinstance(winners, list) or not all(isinstance(w, int) and 0 <= w < len(players)
                                                 for w in winners):
        raise BadResult(f"winner must list seats of the players, not {winners!r}")
    for key in ("game_id", "started", "finished"):
        if isinstance(result[key], bool) or not isinstance(result[key], int | float):
            raise BadResult(f"{key!r} must be a number")
    return players, winners
