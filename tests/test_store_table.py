"""The log is the truth: durable settings, replay after restart, undo as an event, and a
service killed with SIGKILL restarts into the same game."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.games.base import RuleError
from companion.games.times_square import TimesSquare
from companion.store import DuplicateRequest, EventLog, effective_events
from companion.table import NothingToUndo, Table


def first_legal(table: Table) -> dict:
    return table.game.legal_actions(table.state)[0]


def test_log_is_wal_with_full_sync(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "log.sqlite")
    assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_several_events_of_one_decision_are_written_all_or_none(tmp_path: Path) -> None:
    """A correction of an earlier move is several events (undos, the correction, the moves
    since made again): one transaction, so a failure leaves none of them."""
    log = EventLog(tmp_path / "log.sqlite")
    game = log.new_game("times_square", 2, "standard", 0, {})
    log.append(game.id, "action", {"type": "x"}, "tablet", "first")
    with pytest.raises(ValueError, match="unknown event kind"):
        log.append_many(game.id, [("undo", None, "tablet", None),
                                  ("correct", {"type": "y"}, "tablet", None),
                                  ("oops", {"type": "z"}, "camera", None)])
    with pytest.raises(DuplicateRequest):  # the second row clashes: the first is not kept
        log.append_many(game.id, [("undo", None, "tablet", None),
                                  ("correct", {"type": "y"}, "tablet", "first")])
    assert [e.kind for e in log.events(game.id)] == ["action"]
    written = log.append_many(game.id, [("undo", None, "tablet", None),
                                        ("correct", {"type": "y"}, "tablet", "second"),
                                        ("action", {"type": "z"}, "camera", None)])
    assert [(e.kind, e.source) for e in log.events(game.id)] == \
        [("action", "tablet"), ("undo", "tablet"), ("correct", "tablet"), ("action", "camera")]
    assert [e.seq for e in written] == [e.seq for e in log.events(game.id)[1:]]


def test_undo_is_an_event_and_replay_skips_what_it_took_back(tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 0)
    a1 = first_legal(table)
    table.declare(a1)
    after_one = table.state
    a2 = first_legal(table)
    table.declare(a2)
    table.undo()
    assert table.state == after_one
    kinds = [e.kind for e in table.log.events(table.record.id)]
    assert kinds == ["action", "action", "undo"]
    assert [u for _, u in effective_events(table.log.events(table.record.id))] == [False, True]
    again = Table.open("times_square", tmp_path, 2, None, 0)
    assert again.record.id == table.record.id and again.state == after_one
    assert [h.undone for h in again.history] == [False, True]


def test_nothing_to_undo_and_refusals_change_nothing(tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 0)
    with pytest.raises(NothingToUndo):
        table.undo()
    table.declare(first_legal(table))  # the set-up
    before = table.state
    bad = dict(first_legal(table), player=1 - table.game.current_player(table.state))
    with pytest.raises(RuleError):
        table.declare(bad)
    assert table.state == before and len(table.log.events(table.record.id)) == 1
    assert table.public()["prompts"][0]["kind"] == "warning"


def test_unknown_card_tap_is_a_prompt_and_changes_nothing() -> None:
    table = Table.open("times_square", None, 2, None, 0)
    table.tap("no-such-card", 0)
    assert table.taps == [] and "Unknown card" in table.public()["prompts"][0]["text"]


def test_a_finished_game_is_not_resumed(tmp_path: Path) -> None:
    from companion.sim.headless import deliver
    from companion.sim.world import load_world

    table = Table.open("times_square", tmp_path, 2, None, 3)
    world = load_world("times_square", table.game, 2, None, 3)
    for event in world.start():
        deliver(table, event, [])
    for _ in range(500):
        if world.finished():
            break
        for event in world.step(table.public()):
            deliver(table, event, [])
    assert table.public()["over"]
    assert Table.open("times_square", tmp_path, 2, None, 3).record.id != table.record.id


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_state(port: int) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
        return json.loads(r.read())


def post(port: int, action: dict, pin: str = "246810") -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/actions",
                                 data=json.dumps(action).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "X-Table-Pin": pin})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.status


def start_serve(data: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--game", "times_square", "--data", str(data),
         "--port", str(port), "--pin", "246810", "--no-gpio"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            get_state(port)
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(proc.stdout.read().decode() if proc.stdout else "serve did not start")


def test_kill_9_then_restart_resumes_the_same_state(tmp_path: Path) -> None:
    port = free_port()
    proc = start_serve(tmp_path, port)
    try:
        for _ in range(4):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/legal", timeout=5) as r:
                action = json.loads(r.read())["actions"][0]
            assert post(port, action) == 200
        acknowledged = get_state(port)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert len(acknowledged["history"]) == 4
    proc = start_serve(tmp_path, port)
    try:
        resumed = get_state(port)
    finally:
        proc.terminate()
        proc.wait()
    for key in ("game_id", "history", "board", "turn", "scores", "summary", "over"):
        assert resumed[key] == acknowledged[key], key


def test_a_phase_time_limit_prompts_when_it_runs_out() -> None:
    from companion.table import TableOptions

    plain = Table.open("king_of_clubs", None, 2, None, 0, resume=False)
    phase = plain.game.phase(plain.state)
    assert not any("Time is up" in p.text for p in plain.prompts())  # off by default
    timed = Table.open("king_of_clubs", None, 2, None, 0, resume=False,
                       options=TableOptions({phase: 0.0}))
    time.sleep(0.01)
    assert timed.prompts()[0].text == f"Time is up for {timed.game.phase_label(timed.state)}."


def test_house_rules_are_checked_logged_with_the_game_and_resumed(tmp_path: Path) -> None:
    from companion.games.base import HouseRule

    class WithRules(TimesSquare):  # the contract on a real game, with one house rule
        house_rules = (HouseRule("zero_trade", "A trade of no cards", {"no": "not allowed",
                                 "yes": "allowed (a pass)"}, "no", "Trade cards ..."),)

    game = WithRules()
    with pytest.raises(ValueError, match="no house rule 'nope'"):
        game.resolve_house_rules({"nope": "x"})
    with pytest.raises(ValueError, match="one of no, yes"):
        game.resolve_house_rules({"zero_trade": "maybe"})
    state = game.start(2, None, 0, {"zero_trade": "yes"})
    assert game.house_rule(state, "zero_trade") == "yes"
    assert game.house_rule(game.setup(2, None, 0), "zero_trade") == "no"

    log = EventLog(tmp_path / "log.sqlite")
    record = log.new_game("times_square", 2, "standard", 0, {"house_rules": {"zero_trade": "yes"}})
    log.close()
    again = EventLog(tmp_path / "log.sqlite")
    assert again.game(record.id).options == {"house_rules": {"zero_trade": "yes"}}
    again.close()


def test_public_house_rules_are_the_ones_the_game_plays_by(tmp_path: Path) -> None:
    old = Table.open("swing_state", None, 3, "waiting_skips", 0)  # an old log's variant name
    assert old.public()["house_rules"] == {"waiting": "skip"}
    chosen = Table.open("swing_state", None, 3, None, 0, house_rules={"waiting": "skip"})
    assert chosen.public()["house_rules"] == {"waiting": "skip"}
    assert Table.open("swing_state", None, 3, None, 0).public()["house_rules"] == {"waiting": "cheat"}
