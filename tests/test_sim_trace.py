"""The simulated game's trace (``COMPANION_SIM_TRACE``): off by default; when it names a file,
the world's process writes the physical events its players make, and the table's side what
the players saw on the tablet, each event as delivered and each fault, with the frame."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.base import Piece
from companion.sim.events import BoardChange, CardTap, TurnButton
from companion.sim.faults import FaultLog
from companion.sim.trace import ENV, open_trace

EMPTY_TABLET = {"history_total": 0, "history": [], "prompts": [], "taps": []}


def test_the_trace_is_off_unless_a_file_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert open_trace("table") is None
    monkeypatch.setenv(ENV, "")
    assert open_trace("table") is None


@pytest.mark.timeout(120)
def test_the_worlds_process_writes_the_moves_its_players_make(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A Jivecat world in its own process, asked for its first move: the trace names the chip
    laid and the press, as the players made them; with the variable unset, no file."""
    from companion.sim.worldproc import WorldProcess

    monkeypatch.delenv(ENV, raising=False)
    quiet = WorldProcess("jivecat", 3, None, 7)
    try:
        quiet.start()
        assert quiet.act(dict(EMPTY_TABLET))
    finally:
        quiet.close()
    assert not list(tmp_path.iterdir())

    path = tmp_path / "game.trace"
    monkeypatch.setenv(ENV, str(path))
    world = WorldProcess("jivecat", 3, None, 7)
    try:
        world.start()
        events = world.act(dict(EMPTY_TABLET))
        world.look_at_table({"cup": "L05"})
    finally:
        world.close()
    lines = path.read_text().splitlines()
    # the mats laid with their Skull tokens, then the first Starter chip put on the board
    mats, move = [e.view for e in events if isinstance(e, BoardChange)]
    (spot,) = set(move) - set(mats)
    assert lines[0] == "world made: table laid: " + ", ".join(
        f"{place}: black" for place in sorted(mats))
    assert lines[1:] == [f"world made: moved: {move[spot][0].colour} off -> {spot}",
                         "world made: turn button pressed",
                         "world noticed on the table: {'cup': 'L05'}"]


def test_the_tables_side_writes_what_the_players_saw_and_what_reached_the_channels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.trace"
    monkeypatch.setenv(ENV, str(path))
    trace = open_trace("table")
    assert trace is not None
    frame = [40]
    trace.clock = lambda: frame[0]
    log = FaultLog(trace=trace)
    tablet = {"history_total": 2, "taps": [],
              "history": [{"seq": 1, "source": "table", "text": "Red starts on Lava 7"},
                          {"seq": 2, "source": "camera", "text": "Skull card 4 flipped", "undone": True}],
              "prompts": [{"kind": "warning", "text": "The table does not match the record.",
                           "options": [{"type": "undo", "seq": 2}]}]}
    trace.tablet(tablet, words=lambda o: f"Undo #{o['seq']}")
    trace.tablet(tablet)  # nothing new: nothing written
    trace.event(BoardChange({"L05": (Piece("red"),)}), verb="delivered: ")
    frame[0] = 52
    trace.event(BoardChange({"L06": (Piece("red"),), "skull-0": (Piece("orange", 4),)}), verb="delivered: ")
    log.note("drop_tap")
    trace.event(CardTap("rada-3", 2), verb="delivered: ")
    trace.event(TurnButton(), verb="delivered: ")
    assert path.read_text().splitlines() == [
        "table f40 history #1 [table] Red starts on Lava 7",
        "table f40 history #2 (undone) [camera] Skull card 4 flipped",
        "table f40 prompts (1): warning: The table does not match the record. [Undo #2]",
        "table f40 delivered: table laid: L05: red",
        "table f52 delivered: moved: red L05 -> L06; orange/4 off -> skull-0",
        "table f52 fault: drop_tap",
        "table f52 delivered: card rada-3 laid on seat 2's reader",
        "table f52 delivered: turn button pressed",
    ]
    assert log.counts["drop_tap"] == 1


def test_the_tables_side_writes_what_the_companions_table_was_handed_and_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jivecat seed 13 was traced by what the companion's camera committed: a Skull read brown
    on its mat place.  The runner's trace writes each board committed (as what moved), and
    what each board, card, press and frame recorded or asked; a frame that changed nothing
    writes nothing."""
    from companion.table import Table

    path = tmp_path / "game.trace"
    monkeypatch.setenv(ENV, str(path))
    trace = open_trace("table")
    assert trace is not None
    trace.clock = lambda: 7
    table = Table.open("jivecat", None, 3, None, 7, resume=False)
    game = table.game
    trace.watch(table)
    laid = game.board_view(table.state)
    table.board_seen(laid)
    start = next(a for a in game.legal_actions(table.state) if a["type"] == "place_starter")
    after = game.board_view(game.apply(table.state, start))
    (spot,) = [k for k in after if after[k] != laid.get(k)]
    table.board_seen(after)
    table.frame_taken()
    entry = table.button()
    assert entry is not None and entry.action == start
    lines = path.read_text().splitlines()
    assert lines[0].startswith("table f7 camera committed: black off -> mat")
    assert lines[1:] == [
        "table f7 table board_seen: nothing recorded",
        f"table f7 camera committed: {after[spot][0].colour} off -> {spot}",
        "table f7 table board_seen: nothing recorded",
        f"table f7 table button(): recorded #{entry.seq} {entry.text}",
    ]
