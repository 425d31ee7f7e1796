"""The demo's whole path for every game: rendered frames, the device on a pty, mock GPIO,
HTTP. The simulated table's own result and the companion's must agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.sim.demo import run_demo

# Three seats' readers and buttons on the pty in Baron Voodoo (as long a game as two seats'); two
# in Jivecat and Swing State, whose three-player games took 74 s and 89 s of the suite's ten
# minutes against 30 s and 52 s (stop 104; every count is played headless in test_games_contract)
ONE_CONFIGURATION_EACH = [
    ("times_square", 2, None),
    ("jivecat", 2, None),
    ("baron_voodoo", 3, None),
    ("king_of_clubs", 2, "advanced"),
    ("swing_state", 2, None),
]


@pytest.mark.parametrize("game, players, variant", ONE_CONFIGURATION_EACH)
def test_demo_plays_to_the_end_through_every_channel(tmp_path: Path, game: str, players: int,
                                                     variant: str | None) -> None:
    result = run_demo(game, players, variant, seed=4, port=0, host="127.0.0.1",
                      data_dir=tmp_path, pin="111111", speed=0, exit_when_over=True,
                      max_steps=1500, progress=False)
    tablet = result.tablet
    assert tablet["over"], tablet["prompts"]
    assert sorted(tablet["winner"]) == sorted(result.truth["winners"])
    assert result.stalls == 0 and result.refusals == [], result.stalled
    assert "table" in {h["source"] for h in tablet["history"]}  # read from the table itself
    assert not (tmp_path / "world.pickle").exists()  # a finished game leaves no world behind


class Killed(Exception):
    """Stands for kill -9 at the worst moment: the companion recorded, the world unsaved."""


def test_a_demo_killed_between_recording_and_checkpoint_resumes_in_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13, defect 2: the world was saved after each step, so a kill could leave it
    one action behind the log (players repeat a move, steps go unrecorded)."""
    import sqlite3

    from companion.sim import runner
    from companion.sim.world import BoardChange, HandOver

    delivered = runner.SimulatedTable.deliver
    count = {"events": 0}

    def deliver_then_die(self: runner.SimulatedTable, event: object, *more: object) -> None:
        delivered(self, event, *more)  # type: ignore[arg-type]
        if not isinstance(event, (BoardChange, HandOver)):  # a tap, a button, a declaration
            count["events"] += 1
            if count["events"] == 3:
                raise Killed

    monkeypatch.setattr(runner.SimulatedTable, "deliver", deliver_then_die)
    kwargs = dict(seed=4, port=0, host="127.0.0.1", data_dir=tmp_path, pin="111111", speed=0,
                  exit_when_over=True, max_steps=1500, progress=False)
    with pytest.raises(Killed):
        run_demo("times_square", 2, None, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr(runner.SimulatedTable, "deliver", delivered)
    result = run_demo("times_square", 2, None, **kwargs)  # type: ignore[arg-type]
    assert result.tablet["over"] and result.stalls == 0 and result.refusals == []
    assert sorted(result.tablet["winner"]) == sorted(result.truth["winners"])
    games = sqlite3.connect(tmp_path / "companion.sqlite").execute(
        "SELECT COUNT(*) FROM game").fetchone()[0]
    assert games == 1  # resumed, never a second game beside an orphan
