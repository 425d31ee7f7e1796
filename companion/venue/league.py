"""The league: every finished game of the room, kept in the venue's own SQLite store.

Players are people: the names the tables' set-up gave the seats (picked from the
venue's list of known players, or new).  A seat nobody named is kept in the game's
result but counts for nobody in the standings: "Red" at a Jivecat table and "Red" at a
Swing State table are not one person.

Scores of different games do not compare (a Times Square win is 1 point, Swing State's
Incumbent may lose with the best score), so a game gives points by *placing*: the
game's winners share first place, everyone else is placed by score below them, and
equal scores share a placing (1, 1, 3).  A placing p among n players is worth
(n - p) / (n - 1) points: 1 for first, 0 for last.  Standings rank by points; equal
points share the rank.  An evening is the date of the game's end, counted from 06:00
local time, so a club night past midnight stays one evening.
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
    placing INTEGER NOT NULL DEFAULT 0,
    player TEXT,
    PRIMARY KEY (result_id, seat)
);
"""
PEOPLE_COLUMNS = ("ALTER TABLE result_player ADD COLUMN placing INTEGER NOT NULL DEFAULT 0",
                  "ALTER TABLE result_player ADD COLUMN player TEXT")
NAME_MAX = 40
EVENING_STARTS_H = 6
CSV_COLUMNS = ("rank", "name", "games", "wins", "points", "points_per_game")


class BadResult(ValueError):
    """A result message the league cannot use; nothing is stored."""


def evening_of(finished: float) -> str:
    """The evening a game ended in: its local date, a new evening starting at 06:00."""
    return time.strftime("%Y-%m-%d", time.localtime(finished - EVENING_STARTS_H * 3600))


def placings(scores: list[float], winners: list[int]) -> list[int]:
    """Each seat's placing: winners share 1st; the rest by score below them; ties share."""
    def ahead(seat: int, other: int) -> bool:
        if (other in winners) != (seat in winners):
            return other in winners
        return seat not in winners and scores[other] > scores[seat]

    seats = range(len(scores))
    return [1 + sum(ahead(seat, other) for other in seats) for seat in seats]


def placing_points(placing: int, players: int) -> float:
    """1 for first, 0 for last, evenly between: (n - p) / (n - 1)."""
    if players <= 1:
        return 1.0 if placing == 1 else 0.0
    return round((players - placing) / (players - 1), 4)


def ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best first by points; equal points share the rank (1, 1, 3), then by name."""
    rows = sorted(rows, key=lambda r: (-r["points"], r["name"].casefold()))
    for i, row in enumerate(rows):
        row["rank"] = rows[i - 1]["rank"] if i and row["points"] == rows[i - 1]["points"] else i + 1
    return rows


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
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(result_player)")}
        if "placing" not in columns:  # a league from before placings: place its games again
            for statement in PEOPLE_COLUMNS:
                self._db.execute(statement)
            self._replace_old()

    def _replace_old(self) -> None:
        """Points by placing for a league kept before them (names were seats: nobody is a person)."""
        for (result_id,) in self._db.execute("SELECT id FROM result").fetchall():
            rows = self._db.execute("SELECT seat, score, won FROM result_player WHERE result_id=?"
                                    " ORDER BY seat", (result_id,)).fetchall()
            scores, winners = [r[1] for r in rows], [r[0] for r in rows if r[2]]
            for (seat, _, _), placing in zip(rows, placings(scores, winners), strict=True):
                self._db.execute("UPDATE result_player SET placing=?, points=? WHERE result_id=? AND seat=?",
                                 (placing, placing_points(placing, len(rows)), result_id, seat))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def record(self, venue: str, result: dict[str, Any]) -> bool:
        """Store a finished game (a ``result`` message); False when it is already in."""
        players, winners = _checked(result)
        scores = [float(p["score"]) for p in players]
        placing = placings(scores, winners)
        people = [person(p.get("player")) for p in players]
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
                    "INSERT INTO result_player (result_id, seat, name, score, points, won, placing, player)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(result_id, seat, p["name"], scores[seat], placing_points(placing[seat], len(players)),
                      int(seat in winners), placing[seat], people[seat])
                     for seat, p in enumerate(players)],
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return True

    def has(self, venue: str, table: str, game_id: int) -> bool:
        """Whether a game of a table is counted already (whatever its start)."""
        with self._lock:
            return self._db.execute("SELECT 1 FROM result WHERE venue=? AND table_name=? AND game_id=?",
                                    (venue, table, game_id)).fetchone() is not None

    def evenings(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT evening FROM result ORDER BY evening").fetchall()
        return [r[0] for r in rows]

    def standings(self, evening: str | None = None, game: str | None = None) -> list[dict[str, Any]]:
        """People (named seats only): games, wins, points by placing; equal points, equal rank."""
        where, args = ["p.player IS NOT NULL"], []
        if evening:
            where.append("r.evening = ?")
            args.append(evening)
        if game:
            where.append("r.game = ?")
            args.append(game)
        with self._lock:
            rows = self._db.execute(
                "SELECT p.player, COUNT(*), SUM(p.won), SUM(p.points) FROM result_player p"
                f" JOIN result r ON r.id = p.result_id WHERE {' AND '.join(where)}"
                " GROUP BY p.player", args,
            ).fetchall()
        return ranked([{"name": name, "games": games, "wins": wins, "points": round(points, 3),
                        "points_per_game": round(points / games, 3)}
                       for name, games, wins, points in rows])

    def standings_by_game(self, evening: str | None = None) -> list[dict[str, Any]]:
        """The standings of each game kind played: ``[{"game", "title", "standings"}]``."""
        where, args = ("WHERE evening = ?", (evening,)) if evening else ("", ())
        with self._lock:
            kinds = self._db.execute(f"SELECT game, MAX(title) FROM result {where} GROUP BY game"
                                     " ORDER BY MAX(title)", args).fetchall()
        return [{"game": game, "title": title, "standings": self.standings(evening, game)}
                for game, title in kinds]

    def people(self) -> list[str]:
        """Every person who played here, the most recent first: the set-up's name picker."""
        with self._lock:
            rows = self._db.execute(
                "SELECT p.player FROM result_player p JOIN result r ON r.id = p.result_id"
                " WHERE p.player IS NOT NULL GROUP BY p.player ORDER BY MAX(r.finished) DESC"
                " LIMIT 500").fetchall()
        return [r[0] for r in rows]

    def results(self, evening: str | None = None, limit: int = -1) -> list[dict[str, Any]]:
        """Finished games, the newest first (``limit`` of them; -1: all)."""
        where, args = ("WHERE evening = ?", (evening,)) if evening else ("", ())
        with self._lock:
            rows = self._db.execute(
                "SELECT id, venue, table_name, game_id, game, title, started, finished, evening, reason"
                f" FROM result {where} ORDER BY finished DESC LIMIT ?", (*args, limit)).fetchall()
            out = []
            for rid, venue, table, game_id, game, title, started, finished, ev, reason in rows:
                players = self._db.execute(
                    "SELECT name, score, points, won, placing, player FROM result_player"
                    " WHERE result_id=? ORDER BY seat", (rid,)).fetchall()
                out.append({"venue": venue, "table": table, "game_id": game_id, "game": game,
                            "title": title, "started": started, "finished": finished, "evening": ev,
                            "reason": reason,
                            "players": [{"name": n, "score": s, "points": p, "won": bool(w),
                                         "placing": pl, "player": who}
                                        for n, s, p, w, pl, who in players]})
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


def person(name: Any) -> str | None:
    """A person's name as the league keeps it (spaces folded), or None for an unnamed seat."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise BadResult(f"a player's person is a name, not {name!r}")
    name = " ".join(name.split())
    if len(name) > NAME_MAX:
        raise BadResult(f"a person's name has at most {NAME_MAX} characters")
    return name or None


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
        person(p.get("player"))
    winners = result["winner"]
    if not isinstance(winners, list) or not all(isinstance(w, int) and 0 <= w < len(players)
                                                 for w in winners):
        raise BadResult(f"winner must list seats of the players, not {winners!r}")
    for key in ("game_id", "started", "finished"):
        if isinstance(result[key], bool) or not isinstance(result[key], int | float):
            raise BadResult(f"{key!r} must be a number")
    return players, winners
