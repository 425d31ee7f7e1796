"""The running table as a thin front over its rooms: the rooms stay small, share the front's
one lock, and whatever a watcher is told is in the log already (the split moved every path
that logs, advances and publishes into separate rooms)."""

from __future__ import annotations

import ast
import threading
from pathlib import Path
from typing import Any

from companion.games import load_game
from companion.games.base import Prompt
from companion.sim.headless import deliver
from companion.sim.world import load_world
from companion.store import effective_events
from companion.table import Table

TABLE = Path(__file__).resolve().parents[1] / "companion" / "table"
ROOM_LINES = 350  # leave the referee room to grow; the house rule is about 400
MODULE_LINES = 600  # a module of the table past this holds several rooms (disagreement.py held three)


def test_no_class_of_the_table_grows_past_its_room() -> None:
    sizes = {f"{path.name}:{node.name}": node.end_lineno - node.lineno + 1
             for path in sorted(TABLE.glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.ClassDef) and node.end_lineno is not None}
    assert {"__init__.py:Table", "ledger.py:Ledger", "clocks.py:Clocks", "referee.py:Referee",
            "view.py:View"} <= set(sizes)
    assert {name: n for name, n in sizes.items() if n > ROOM_LINES} == {}


def test_no_module_of_the_table_holds_several_rooms() -> None:
    """The search for what explains a disagreement, the readings set aside and the warning's
    words are three modules: a reader knows from the path which one a change belongs in."""
    lines = {path.name: len(path.read_text().splitlines()) for path in sorted(TABLE.glob("*.py"))}
    assert {"disagreement.py", "search.py", "overrides.py"} <= set(lines)
    assert {name: n for name, n in lines.items() if n > MODULE_LINES} == {}


def test_only_the_front_makes_a_lock() -> None:
    """One lock for the whole table: a room with its own could deadlock against the front's."""
    for path in sorted(TABLE.glob("*.py")):
        if path.name == "__init__.py":
            continue
        calls = [node.func.attr for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)]
        assert not {"Lock", "RLock", "Condition", "Semaphore"} & set(calls), path.name


def logged_view(table: Table) -> tuple[set[int], set[int]]:
    """(standing, taken back) seqs of the moves as the log says."""
    effective = effective_events(table.log.events(table.record.id))
    return ({e.seq for e, undone in effective if not undone}, {e.seq for e, undone in effective if undone})


def test_every_change_a_watcher_is_told_is_in_the_log_first() -> None:
    """Moves from the tablet, the camera and the button, undo, correct and amend: at every
    listener call the history shown agrees with what the log holds."""
    table = Table.open("times_square", None, 2, None, 3, resume=False)
    told: list[str] = []
    disagreements: list[str] = []

    def listener(kind: str, snapshot: dict[str, Any]) -> None:
        told.append(kind)
        standing, taken = logged_view(table)
        shown = {h["seq"] for h in snapshot["history"] if not h["undone"]}
        shown_taken = {h["seq"] for h in snapshot["history"] if h["undone"]}
        if shown - standing or shown_taken - taken:
            disagreements.append(f"{kind}: shown {sorted(shown)}, logged {sorted(standing)}")

    table.add_listener(listener)
    world = load_world("times_square", load_game("times_square"), 2, None, 3)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    for _ in range(200):
        if len({h.source for h in table.history} & {"camera", "table", "cards"}) and len(table.history) >= 4:
            break
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    assert {h.source for h in table.history} & {"camera", "table", "cards"}, "the table recorded no move"
    standing = [h for h in table.history if not h.undone]
    assert len(standing) >= 3
    table.undo()
    table.declare(standing[-1].action)
    table.correct(table.history[-1].action)
    table.amend(standing[0].seq, standing[0].action)  # every later move made again
    assert {"action", "undo", "correct"} <= set(told)
    assert disagreements == []
    assert logged_view(table)[0] == {h.seq for h in table.history if not h.undone}


def test_a_held_press_waits_for_the_fronts_lock() -> None:
    """The camera loop's frame that judges a held press takes the same lock as every other
    change: while another thread holds the table, the press stays held."""
    table = Table.open("times_square", None, 2, None, 3, resume=False)
    table.referee.pace.settle_frames = 1
    table.board_seen(table.game.board_view(table.state))
    table.notice("vision", Prompt("Hand over the board: waiting.", "info"))
    camera = threading.Thread(target=table.frame_taken, name="camera-frame", daemon=True)
    with table._lock:
        assert table.button() is None
        table.notice("vision", None)
        camera.start()
        camera.join(timeout=0.3)  # the frame waits for the lock
        assert camera.is_alive() and table._held_press is not None
    camera.join(timeout=30)  # a hang guard only
    assert not camera.is_alive()
    assert table._held_press is None
