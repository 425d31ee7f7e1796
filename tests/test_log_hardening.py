"""Hardening of the log and the API edge (issue 13, defects 1, 5, 6, 7): a correction is one
event, request ids make retries harmless, hostile bodies are refused with a clear 400,
every error answers JSON, and a damaged log is refused by name, never replayed half or
replaced by an empty game."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from companion.store import DamagedLog, EventLog, effective_events
from companion.table import Table
from companion.web.app import create_app

PIN = "135790"
HEADERS = {"X-Table-Pin": PIN}


def first_legal(table: Table) -> dict:
    return table.game.legal_actions(table.state)[0]


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table.open("times_square", tmp_path, 2, None, 0)


@pytest.fixture
def client(table: Table) -> FlaskClient:
    return create_app(table, PIN, {"TESTING": True}).test_client()


# --- 1. a correction is one event ---------------------------------------------------------
def test_a_correction_is_one_logged_event(table: Table, tmp_path: Path) -> None:
    table.declare(first_legal(table))
    before = table.state
    options = table.game.legal_actions(before)
    table.declare(options[0])
    table.correct(options[1])
    events = table.log.events(table.record.id)
    assert [e.kind for e in events] == ["action", "action", "correct"]
    assert events[-1].action == options[1]
    assert [u for _, u in effective_events(events)] == [False, True, False]
    again = Table.open("times_square", tmp_path, 2, None, 0)
    assert again.state == table.state
    assert [h.undone for h in again.history] == [False, True, False]


def test_a_crash_during_a_correction_keeps_the_old_action_or_the_new(table: Table,
                                                                     tmp_path: Path) -> None:
    """The write that fails is the only write: nothing acknowledged is removed."""
    table.declare(first_legal(table))
    options = table.game.legal_actions(table.state)
    table.declare(options[0])
    kept = table.state

    def power_cut(*_args: object, **_kw: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    table.log.append = power_cut  # type: ignore[method-assign]
    with pytest.raises(sqlite3.OperationalError):
        table.correct(options[1])
    assert table.state == kept
    again = Table.open("times_square", tmp_path, 2, None, 0)
    assert again.state == kept


def test_clock_events_are_neither_actions_nor_undos(table: Table) -> None:
    table.declare(first_legal(table))
    table.log.append(table.record.id, "clock", {"clock": "pause"}, "tablet")
    table.log.append(table.record.id, "undo", None, "tablet")
    effective = effective_events(table.log.events(table.record.id))
    assert [(e.kind, u) for e, u in effective] == [("action", True)]


def test_an_older_log_is_migrated_to_the_new_kinds(tmp_path: Path) -> None:
    path = tmp_path / "companion.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE game (id INTEGER PRIMARY KEY, name TEXT NOT NULL, players INTEGER NOT NULL,
            variant TEXT NOT NULL, seed INTEGER NOT NULL, created REAL NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE event (seq INTEGER PRIMARY KEY AUTOINCREMENT, game_id INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')), action TEXT,
            source TEXT NOT NULL, at REAL NOT NULL);
        INSERT INTO game VALUES (1, 'times_square', 2, 'standard', 0, 1.0, 0);
        INSERT INTO event VALUES (1, 1, 'action', '{"type": "x"}', 'tablet', 2.0);
    """)
    db.commit()
    db.close()
    log = EventLog(path)
    log.append(1, "correct", {"type": "y"}, "tablet", "r1")
    assert [e.kind for e in log.events(1)] == ["action", "correct"]


# --- request ids ------------------------------------------------------------------------------
def test_a_repeated_request_id_applies_once(client: FlaskClient, table: Table) -> None:
    body = {"action": first_legal(table), "request_id": "tap-1"}
    first = client.post("/api/actions", json=body, headers=HEADERS)
    again = client.post("/api/actions", json=body, headers=HEADERS)
    assert first.status_code == again.status_code == 200
    assert again.get_json()["duplicate"] is True
    assert again.get_json()["entry"]["seq"] == first.get_json()["entry"]["seq"]
    assert len(table.log.events(table.record.id)) == 1
    table.declare(first_legal(table))
    undo = {"type": "undo", "request_id": "undo-7"}
    assert client.post("/api/actions", json=undo, headers=HEADERS).status_code == 200
    second = client.post("/api/actions", json=undo, headers=HEADERS)
    assert second.get_json() == {**second.get_json(), "ok": True, "duplicate": True}
    assert [e.kind for e in table.log.events(table.record.id)] == ["action", "action", "undo"]


def test_a_retried_winning_move_is_not_applied_to_the_next_game(tmp_path: Path) -> None:
    """Killed after logging a winning move but before answering: the restart begins a new
    game, and the tablet's retry (same request id) must be told "already applied", not
    played again in the new game (seen once in a King of Clubs kill storm)."""
    table = Table.open("times_square", tmp_path, 2, None, 0)
    while True:
        move = first_legal(table)
        if table.game.outcome(table.game.apply(table.state, move)) is not None:
            break
        table.declare(move)
    client = create_app(table, PIN, {"TESTING": True}).test_client()
    body = {"action": move, "request_id": "winning-tap"}
    assert client.post("/api/actions", json=body, headers=HEADERS).status_code == 200
    finished = table.record.id
    table.log.close()
    again = Table.open("times_square", tmp_path, 2, None, 0)  # the restart after the kill
    assert again.record.id != finished and not again.history
    retry = create_app(again, PIN, {"TESTING": True}).test_client().post(
        "/api/actions", json={"action": first_legal(again), "request_id": "winning-tap"},
        headers=HEADERS)
    assert retry.status_code == 200, retry.get_json()
    assert retry.get_json()["duplicate"] is True and retry.get_json()["game_id"] == finished
    assert again.log.events(again.record.id) == [] and not again.history


@pytest.mark.parametrize("request_id", ["", "a" * 65, "no spaces", 7])
def test_a_bad_request_id_is_refused(client: FlaskClient, table: Table, request_id: object) -> None:
    body = {"action": first_legal(table), "request_id": request_id}
    assert client.post("/api/actions", json=body, headers=HEADERS).status_code == 400


# --- 5. strict schema ---------------------------------------------------------------------
@pytest.mark.parametrize("raw", [
    '{"type": "setup", "x": NaN}',
    '{"type": "setup", "x": Infinity}',
    '{"action": {"type": "setup", "deep": [-Infinity]}}',
])
def test_non_finite_numbers_are_refused(client: FlaskClient, table: Table, raw: str) -> None:
    reply = client.post("/api/actions", data=raw, headers=HEADERS,
                        content_type="application/json")
    assert reply.status_code == 400 and "non-finite" in reply.get_json()["error"]
    assert table.log.events(table.record.id) == []


def test_unknown_fields_and_long_strings_are_refused(client: FlaskClient, table: Table) -> None:
    action = first_legal(table)
    for body in ({**action, "junk": "x" * 18_000}, {"action": action, "extra": 1}):
        reply = client.post("/api/actions", json=body, headers=HEADERS)
        assert reply.status_code == 400, body
        assert reply.get_json()["ok"] is False
    assert table.log.events(table.record.id) == []
    table.game.action_fields = lambda: {action["type"]: frozenset(action)}  # type: ignore
    reply = client.post("/api/actions", json={**action, "note": "hi"}, headers=HEADERS)
    assert reply.status_code == 400 and "note" in reply.get_json()["error"]


def test_state_is_strict_json_even_if_a_bad_number_slipped_in(client: FlaskClient,
                                                              table: Table) -> None:
    table.player_seconds[0] = float("nan")
    reply = client.get("/api/state")
    assert reply.status_code == 500 and reply.is_json
    json.loads(reply.data)


# --- 6. every error is JSON ----------------------------------------------------------------
def test_deep_json_is_a_json_400(client: FlaskClient) -> None:
    reply = client.post("/api/actions", data="[" * 30_000 + "]" * 30_000, headers=HEADERS,
                        content_type="application/json")
    assert reply.status_code in (400, 413) and reply.is_json


def test_deep_json_within_the_size_limit_is_a_json_400(client: FlaskClient) -> None:
    reply = client.post("/api/actions", data='{"a":' * 20_000 + "1" + "}" * 20_000,
                        headers=HEADERS, content_type="application/json")
    assert reply.status_code in (400, 413) and reply.is_json
    deep = '{"type": "x", "a": ' + "[" * 30 + "]" * 30 + "}"
    reply = client.post("/api/actions", data=deep, headers=HEADERS,
                        content_type="application/json")
    assert reply.status_code == 400 and "deep" in reply.get_json()["error"]


def test_a_full_disk_is_a_507_and_other_faults_a_json_500(client: FlaskClient,
                                                          table: Table) -> None:
    def full(*_args: object, **_kw: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    table.log.append = full  # type: ignore[method-assign]
    reply = client.post("/api/actions", json=first_legal(table), headers=HEADERS)
    assert reply.status_code == 507 and reply.is_json and "disk is full" in reply.get_json()["error"]

    def broken(*_args: object, **_kw: object) -> None:
        raise RuntimeError("boom")

    table.log.append = broken  # type: ignore[method-assign]
    reply = client.post("/api/actions", json=first_legal(table), headers=HEADERS)
    assert reply.status_code == 500 and reply.is_json and b"<html" not in reply.data.lower()


# --- 7. a damaged log -----------------------------------------------------------------------
def _played(tmp_path: Path, moves: int = 3) -> Table:
    table = Table.open("times_square", tmp_path, 2, None, 0)
    for _ in range(moves):
        table.declare(first_legal(table))
    return table


@pytest.mark.parametrize("damage, named", [
    ("UPDATE event SET action='{not json' WHERE seq=2", "event 2"),
    ("UPDATE event SET action=NULL WHERE seq=2", "event 2"),
    ("UPDATE event SET action='{\"type\": \"nonsense\"}' WHERE seq=2", "event 2"),
])
def test_a_damaged_row_refuses_start_up_by_name(tmp_path: Path, damage: str, named: str) -> None:
    table = _played(tmp_path)
    table.log._db.execute(damage)
    table.log.close()
    with pytest.raises(DamagedLog, match=named) as caught:
        Table.open("times_square", tmp_path, 2, None, 0)
    assert "companion log truncate" in str(caught.value)


def test_truncating_after_the_damaged_row_recovers(tmp_path: Path) -> None:
    table = _played(tmp_path)
    table.log._db.execute("UPDATE event SET action='{' WHERE seq=3")
    table.log.truncate(table.record.id, 3)
    again = Table.open("times_square", tmp_path, 2, None, 0)
    assert len(again.history) == 2


def test_a_corrupt_or_emptied_file_is_refused_never_started_empty(tmp_path: Path) -> None:
    table = _played(tmp_path)
    table.log.close()
    path = tmp_path / "companion.sqlite"
    path.write_bytes(b"\x13" * 8192)
    with pytest.raises(DamagedLog, match="cannot read the log|damaged"):
        Table.open("times_square", tmp_path, 2, None, 0)
    path.write_bytes(b"")
    with pytest.raises(DamagedLog, match="holds no game 1"):
        Table.open("times_square", tmp_path, 2, None, 0)


def test_a_deleted_wal_is_refused(tmp_path: Path) -> None:
    """A killed process leaves its WAL: deleting it would silently drop acknowledged rows."""
    script = (
        "import os, sys\n"
        "from companion.table import Table\n"
        f"t = Table.open('times_square', {str(tmp_path)!r}, 2, None, 0)\n"
        "for _ in range(3):\n"
        "    t.declare(t.game.legal_actions(t.state)[0])\n"
        "os._exit(0)\n"  # no clean close: the WAL keeps the rows, as after kill -9
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    wal = tmp_path / "companion.sqlite-wal"
    assert wal.exists() and wal.stat().st_size > 0
    os.remove(wal)
    with pytest.raises(DamagedLog, match="lost its write-ahead log"):
        Table.open("times_square", tmp_path, 2, None, 0)


def test_undoing_the_winning_move_reopens_the_game_in_the_same_write(tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 0)
    while table.game.outcome(table.state) is None:
        table.declare(first_legal(table))
    assert table.log.unfinished("times_square") is None
    table.undo()
    again = Table.open("times_square", tmp_path, 2, None, 0)
    assert again.record.id == table.record.id and again.game.outcome(again.state) is None


def test_a_restart_replays_any_mix_of_actions_undos_corrections_and_clocks(tmp_path: Path) -> None:
    """The replay walks the log in order (clock events, nested undos, one-event corrections,
    amended older moves) and rebuilds exactly the state, history and clocks the running table
    had, on one clock the test moves (a correction credited the time since the last move to
    the seat before the corrected move while the table ran, and to the seat to act on the
    record when replayed: 0.2-0.7 s apart, seen only when the machine was loaded enough to
    part the actions' times).  Refused amendments change nothing and are skipped."""
    import random

    from companion.games.base import MalformedAction, RuleError
    from companion.table import NothingToUndo

    rng = random.Random(7)
    now = [1_000.0]  # one clock for the log and both tables, moved by the test alone: no load parts them

    def clock() -> float:
        return now[0]

    for game, players in (("jivecat", 2), ("baron_voodoo", 2), ("swing_state", 3)):
        folder = tmp_path / game
        folder.mkdir()
        live = Table.open(game, folder, players, None, 3, resume=False,
                          log=EventLog(folder / "companion.sqlite", clock))
        live.clock = clock
        for _ in range(60):
            now[0] += 0.37  # each action a moment after the last
            roll = rng.random()
            try:
                if roll < 0.15:
                    live.undo()
                elif roll < 0.25:
                    live.correct(rng.choice(live.game.legal_actions(live._frames[-2].state)))
                elif roll < 0.3 and len(live._frames) > 2:  # an older move amended, the later ones made again
                    k = rng.randrange(1, len(live._frames))
                    choices = live.game.legal_actions(live._frames[k - 1].state)
                    live.amend(live._frames[k].entry.seq, rng.choice(choices))
                elif roll < 0.35:
                    (live.resume if live.paused else live.pause)()
                else:
                    live.declare(rng.choice(live.game.legal_actions(live.state)))
            except (NothingToUndo, IndexError, RuleError, MalformedAction):
                continue
        now[0] += 1.0
        before = live.public(history=None)
        live.log.close()
        again = Table.open(game, folder, players, None, 3, log=EventLog(folder / "companion.sqlite", clock))
        again.clock = clock
        after = again.public(history=None)
        assert again.state == live.state
        assert after["history"] == before["history"] and after["paused"] == before["paused"]
        assert [p["clock_s"] for p in after["players"]] == pytest.approx(
            [p["clock_s"] for p in before["players"]], abs=1e-6)
        assert any(p["clock_s"] > 0 for p in before["players"])
        again.log.close()
