"""A button pressed before the camera has settled is held and judged on the settled board."""

from __future__ import annotations

import threading

from companion.games import load_game
from companion.games.base import Prompt
from companion.sim.headless import deliver
from companion.sim.world import BoardChange, TurnButton, load_world
from companion.table import HELD_PRESS_TEXT, Table

HAND = Prompt("Hand over the board: waiting.", "info")


def first_board_move(seed: int = 3) -> tuple[Table, list, int]:
    """A Times Square table played headless up to a move whose pieces then the button say it."""
    table = Table.open("times_square", None, 2, None, seed, resume=False)
    world = load_world("times_square", load_game("times_square"), 2, None, seed)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    for _ in range(40):
        events = world.step(table.public())
        kinds = [type(e) for e in events]
        if BoardChange in kinds and kinds[-1] is TurnButton:
            return table, events, len(table.history)
        for event in events:
            deliver(table, event, refusals)
    raise AssertionError("no move with pieces and a button in 40 steps")


def test_a_press_while_a_hand_is_over_the_board_waits_for_the_settled_board() -> None:
    table, events, before = first_board_move()
    *early, _button = events
    for event in early:
        if not isinstance(event, BoardChange):
            deliver(table, event, [])  # the cards tapped
    board = next(e for e in early if isinstance(e, BoardChange))
    table.notice("vision", HAND)  # the arm is over the board
    assert table.button() is None  # held, not judged on the old board
    assert len(table.history) == before and table._held_press is not None
    # the tablet tells the players their press counted, so they neither press nor move again
    assert HELD_PRESS_TEXT in [p["text"] for p in table.public()["prompts"]]
    table.notice("vision", None)
    table.board_seen(board.view)  # the camera settles on the new board: the press is judged
    assert len(table.history) == before + 1
    assert table.history[-1].source == "table"
    assert table._held_press is None
    assert HELD_PRESS_TEXT not in [p["text"] for p in table.public()["prompts"]]


def test_a_held_press_on_an_unchanged_board_is_judged_after_the_settle_frames() -> None:
    """The view came back and the board did not change (so no board settles anew): the press
    is judged after ``settle_frames`` camera frames, however long they take, never before."""
    table = Table.open("times_square", None, 2, None, 3, resume=False)
    table.referee.pace.settle_frames = 4
    table.board_seen(table.game.board_view(table.state))
    table.notice("vision", HAND)
    assert table.button() is None and table._held_press is not None
    for _ in range(10):  # frames with the hand still over the board: held, however many
        table.frame_taken()
    assert table._held_press is not None
    table.notice("vision", None)
    for _ in range(3):
        table.frame_taken()
    assert table._held_press is not None  # 3 clear frames: the camera may yet settle a board
    table.frame_taken()
    assert table._held_press is None  # judged (whatever the rules make of it), not lost
    assert HELD_PRESS_TEXT not in [p["text"] for p in table.public()["prompts"]]


def test_a_held_press_without_a_camera_counting_frames_waits_for_the_board_handed_in() -> None:
    """No camera loop counts frames (a harness hands boards in): there is no pace to wait
    out, so the press is judged on the next board, and no thread or timer is left behind."""
    table, events, before = first_board_move()
    *early, _button = events
    for event in early:
        if not isinstance(event, BoardChange):
            deliver(table, event, [])
    board = next(e for e in early if isinstance(e, BoardChange))
    table.notice("vision", HAND)
    threads = threading.active_count()
    assert table.button() is None
    table.notice("vision", None)
    table.button()  # pressed again while waiting: still one press
    assert table._held_press is not None and threading.active_count() == threads
    assert len(table.history) == before
    table.board_seen(board.view)  # the next board the harness hands in
    assert table._held_press is None and len(table.history) == before + 1


def test_a_press_with_no_camera_trouble_is_judged_at_once() -> None:
    table = Table.open("times_square", None, 2, None, 3, resume=False)
    table.button()
    assert table._held_press is None


def test_a_press_after_the_board_settled_is_not_held() -> None:
    """The view came back and a board settled since: the press is judged at once."""
    table = Table.open("times_square", None, 2, None, 3, resume=False)
    table.notice("vision", HAND)
    table.notice("vision", None)
    table.board_seen(table.game.board_view(table.state))
    table.button()
    assert table._held_press is None
