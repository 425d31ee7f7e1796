"""Per-player clocks and the per-turn timer: they credit the seat whose turn it is, stop
while paused (logged as clock events, so a restart stays paused), reset when the turn
passes, and a turn limit raises a time-up alert once, pushed to listeners."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.store import EventLog
from companion.table import ClockError, Table, TableOptions


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def timed_table(path: str | Path, clock: FakeClock, options: TableOptions | None = None,
                resume: bool = False) -> Table:
    log = EventLog(path, clock=clock)
    table = Table.open("times_square", None, 2, None, 0, resume=resume, options=options, log=log)
    table.clock = clock
    return table


def first_move(table: Table) -> None:
    table.declare(table.game.legal_actions(table.state)[0], "camera")


def test_clocks_credit_the_seat_to_act_and_stop_while_paused(tmp_path: Path) -> None:
    clock = FakeClock()
    table = timed_table(tmp_path / "log.sqlite", clock)
    first_move(table)  # set-up: now someone's turn runs
    seat = table.game.current_player(table.state)
    assert seat is not None
    clock.now += 30
    assert table.public()["players"][seat]["clock_s"] == pytest.approx(30)
    assert table.public()["turn_s"] == pytest.approx(30)
    table.pause()
    clock.now += 100
    public = table.public()
    assert public["paused"] and public["players"][seat]["clock_s"] == pytest.approx(30)
    assert public["turn_s"] == pytest.approx(30)
    with pytest.raises(ClockError):
        table.pause()
    table.resume()
    clock.now += 5
    assert table.public()["players"][seat]["clock_s"] == pytest.approx(35)
    kinds = [(e.kind, e.action) for e in table.log.events(table.record.id)]
    assert kinds[-2:] == [("clock", {"clock": "pause"}), ("clock", {"clock": "resume"})]


def test_a_restart_resumes_the_clocks_and_the_pause(tmp_path: Path) -> None:
    clock = FakeClock()
    path = tmp_path / "log.sqlite"
    table = timed_table(path, clock)
    first_move(table)
    seat = table.game.current_player(table.state)
    clock.now += 20
    table.pause()
    table.log.close()
    clock.now += 500  # the power was off, then the companion starts again
    again = timed_table(path, clock, resume=True)
    public = again.public()
    assert public["paused"] and public["players"][seat]["clock_s"] == pytest.approx(20)
    assert public["turn_s"] == pytest.approx(20)
    assert [h.text for h in again.history] == [h.text for h in table.history]


def test_the_turn_timer_restarts_when_the_turn_passes(tmp_path: Path) -> None:
    clock = FakeClock()
    table = timed_table(tmp_path / "log.sqlite", clock)
    first_move(table)
    seat = table.game.current_player(table.state)
    clock.now += 12
    while table.game.current_player(table.state) == seat and not table.public()["over"]:
        first_move(table)
    assert table.public()["turn_s"] == pytest.approx(0)
    clock.now += 3
    assert table.public()["turn_s"] == pytest.approx(3)
    assert table.public()["players"][seat]["clock_s"] == pytest.approx(12)


def test_time_up_is_pushed_once_and_clears_with_the_next_turn(tmp_path: Path) -> None:
    clock = FakeClock()
    table = timed_table(tmp_path / "log.sqlite", clock, TableOptions(turn_limit=60))
    seen: list[tuple[str, bool]] = []
    table.add_listener(lambda kind, public: seen.append((kind, public["time_up"])))
    first_move(table)
    assert not table.tick()
    clock.now += 61
    assert table.tick() and not table.tick()  # once
    assert seen[-1] == ("time_up", True)
    name = table.names()[table.game.current_player(table.state)]
    assert table.prompts()[0].text == f"Time is up for {name}'s turn."
    table.pause()  # a paused clock does not run out
    clock.now += 1000
    assert table.public()["turn_s"] == pytest.approx(61)
    table.resume()
    seat = table.game.current_player(table.state)
    while table.game.current_player(table.state) == seat and not table.public()["over"]:
        first_move(table)
    # the move that passed the turn carried the cleared alert; nothing more to push
    assert not table.time_up() and seen[-1] == ("action", False) and not table.tick()


def test_no_limit_no_alert(tmp_path: Path) -> None:
    clock = FakeClock()
    table = timed_table(tmp_path / "log.sqlite", clock)
    first_move(table)
    clock.now += 10_000
    assert not table.time_up() and not table.tick()
    assert not any("Time is up" in p.text for p in table.prompts())


def test_an_old_log_learns_clock_events(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE game (id INTEGER PRIMARY KEY, name TEXT NOT NULL, players INTEGER NOT NULL,"
        " variant TEXT NOT NULL, seed INTEGER NOT NULL, created REAL NOT NULL,"
        " finished INTEGER NOT NULL DEFAULT 0);"
        "CREATE TABLE event (seq INTEGER PRIMARY KEY AUTOINCREMENT, game_id INTEGER NOT NULL,"
        " kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')), action TEXT, source TEXT NOT NULL,"
        " at REAL NOT NULL);"
        "INSERT INTO game VALUES (1, 'times_square', 2, 'standard', 0, 1.0, 0);"
        "INSERT INTO event (game_id, kind, action, source, at)"
        " VALUES (1, 'action', '{\"type\": \"setup\", \"hal_player\": 0}', 'camera', 2.0);")
    db.close()
    log = EventLog(path)
    log.append(1, "clock", {"clock": "pause"}, "tablet")
    assert [e.kind for e in log.events(1)] == ["action", "clock"]
    table = Table(Table.open("times_square", None, 2, resume=False).game, log, log.game(1))
    assert table.paused and len(table.history) == 1


def test_a_step_everyone_takes_at_once_runs_every_clock(tmp_path: Path) -> None:
    clock = FakeClock()
    log = EventLog(tmp_path / "log.sqlite", clock=clock)
    table = Table.open("king_of_clubs", None, 4, "basic", 1, resume=False, log=log)
    table.clock = clock
    assert table.game.current_player(table.state) is None  # dancers are chosen together
    clock.now += 10
    assert [p["clock_s"] for p in table.public()["players"]] == [10.0] * 4


def test_the_status_led_and_buzzer_follow_time_up(tmp_path: Path) -> None:
    from waiting import wait_until

    from companion.service import Service, ServiceConfig

    config = ServiceConfig(game="times_square", players=2, data_dir=tmp_path, port=0, pin="123456",
                           resume=False, turn_limit=0.3)
    service = Service(config).start()
    try:
        assert service.gpio is not None
        beeps: list[str] = []
        service.gpio.time_up = lambda: beeps.append("time up")  # type: ignore[method-assign]
        table = service.table
        table.declare(table.game.legal_actions(table.state)[0], "camera")
        assert service.gpio.mode == "on" and not beeps
        assert wait_until(lambda: beeps == ["time up"], 5.0)  # pushed by the clock watcher
        assert service.gpio.mode == "blink"
        assert any("Time is up" in p.text for p in table.prompts())
        table.pause()
        seat = table.game.current_player(table.state)
        table.resume()
        while table.game.current_player(table.state) == seat and not table.public()["over"]:
            table.declare(table.game.legal_actions(table.state)[0], "camera")
        assert service.gpio.mode == "on"  # a new turn: the alert is cleared
    finally:
        service.stop()
