"""A press the players make again for a move the table recorded when they set it right.

Jivecat seed 7, cafe, typical: Yellow's buy was pressed for with a chip knocked aside; the
press waited on the warning and was recorded once the chip was put back, while the players,
who had not seen that yet, pressed again.  That second press (refused on a chore the table
did not show yet, then judged on the table set right) recorded "Yellow ends the turn",
her next buy's card was read as the Staff card, and the record fell a round behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.games.base import BoardView
from companion.reconcile import changed_places
from companion.table import Table
from companion.table.referee import DOUBLE_PRESS_FRAMES
from tests.test_misread_correction import baron_set_up_misread


def knocked(game: Any, state: Any, board: BoardView, keep_clear: set[str]) -> BoardView:
    """``board`` with one die no move touches knocked onto an empty cell beside the grid's."""
    spots = [s.id for s in game.layout(state).spots]
    src = next(c for c in sorted(board) if c not in keep_clear and board.get(c) and c in spots)
    empty = next(s for s in spots if not board.get(s) and s not in keep_clear)
    out = {**board, empty: board[src]}
    del out[src]
    return out


def recorded_on_the_table_set_right(tmp_path: Path) -> tuple[Table, Any, BoardView, BoardView]:
    """Baron Voodoo: a capture pressed for with a die knocked aside (the press waits on the
    warning), recorded when the die is put back.  The table, the capture's entry, the table
    as the capture left it and that table with the die knocked again."""
    table, base, true_setup, _, capture = baron_set_up_misread(tmp_path)
    game = table.game
    set_up = game.apply(base, true_setup)
    table.board_seen(game.board_view(set_up))
    assert table.button() is not None
    after = game.board_view(game.apply(set_up, capture))
    moved = changed_places(game.board_view(set_up), after)
    bumped = knocked(game, set_up, after, moved)
    table.frame_taken()
    table.board_seen(bumped)
    assert table.button() is None and table.referee._press_waiting  # asked; the press waits
    table.frame_taken()
    entry = table.board_seen(after)  # the die put back: the waiting press records the capture
    assert entry is not None and entry.action == capture
    for _ in range(DOUBLE_PRESS_FRAMES + 2):  # a person's press's worth of frames and more
        table.frame_taken()
    return table, entry, after, bumped


def test_a_press_made_again_after_the_table_set_right_recorded_it_is_asked_about(tmp_path: Path) -> None:
    table, entry, _, _ = recorded_on_the_table_set_right(tmp_path)
    recorded = table.state
    assert table.button() is None and table.state == recorded  # not "ends the turn"
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "choice" and "pressed twice?" in prompt.text
    assert f"#{table.ledger.move_number(entry.seq)} (" in prompt.text
    assert prompt.options == [{"type": "end_turn", "player": entry.action["player"]}]
    made = table.declare(prompt.options[0])  # it was meant: one tap
    assert made is not None and made.action["type"] == "end_turn"


def test_the_press_made_again_that_waited_is_asked_about_when_judged(tmp_path: Path) -> None:
    """The seed's own path: the press made again came while the table was not right (a chore
    to do, a die knocked), waited on the warning, and was judged once the table was set
    right: asked, never recorded."""
    table, entry, after, bumped = recorded_on_the_table_set_right(tmp_path)
    recorded = table.state
    table.board_seen(bumped)
    assert table.button() is None and table.referee._press_waiting
    table.frame_taken()
    assert table.board_seen(after) is None and table.state == recorded
    prompt = table.table_prompt
    assert prompt is not None and "pressed twice?" in prompt.text
    assert prompt.options == [{"type": "end_turn", "player": entry.action["player"]}]


def test_a_press_after_the_question_or_a_move_since_is_a_press(tmp_path: Path) -> None:
    """Asked once: a press after the question (the players mean it) ends the turn."""
    table, _, _, _ = recorded_on_the_table_set_right(tmp_path)
    assert table.button() is None
    table.frame_taken()
    again = table.button()
    assert again is not None and again.action["type"] == "end_turn"


def test_a_bounce_refused_on_its_move_s_chore_never_waits_to_be_judged() -> None:
    """Jivecat seed 8, cafe, typical: Yellow's buy of a Skull card's lizard was recorded; its
    bounce, at once, was refused (the table still showed the Skull card the record had
    collected) and waited; judged with her next buy's card, it recorded that buy, and the
    buy's own press ended her turn.  A bounce is no press to keep: once the chore is done,
    nothing is recorded."""
    import random

    table = Table.open("jivecat", None, 3, None, 1, resume=False)
    game, rng = table.game, random.Random(1)
    for _ in range(600):
        state = table.state
        buys = [a for a in game.legal_actions(state) if state["phase"] == "play"
                and a.get("type") == "buy" and len(a["cards"]) == 1
                and any(p.startswith("skull-") for p in changed_places(
                    game.board_view(state), game.board_view(game.apply(state, a))))]
        if buys:
            buy = buys[0]
            break
        table.declare(rng.choice(game.legal_actions(state)))
    else:
        raise AssertionError("no buy of a Skull card's lizard in 600 moves")
    before, after = game.board_view(state), game.board_view(game.apply(state, buy))
    table.board_seen(before)
    table.frame_taken()
    table.board_seen({**before, buy["spot"]: after[buy["spot"]]})  # the chip; the card still lies
    table.frame_taken()
    table.tap(buy["cards"][0], buy["player"])
    entry = table.button()
    assert entry is not None and entry.action == buy
    assert table.button() is None  # the bounce, before any frame: refused on the chore
    assert not table.referee._press_waiting
    for _ in range(DOUBLE_PRESS_FRAMES + 2):
        table.frame_taken()
    assert table.board_seen(after) is None  # the chore done: nothing more is recorded
    assert table.history[-1].seq == entry.seq and table.state == game.apply(state, buy)


def test_a_press_owed_after_a_correction_records_no_end_of_turn_nothing_on_the_table_shows() -> None:
    """Jivecat seed 12, cafe, typical (wedged): Red's Hi-Fi Stereo (a Skull paid) was judged on
    the table before the Skull left the mat and recorded "Red ends the turn".  Red pressed
    again (the press refused: the Skulls differ, the Staff card due) and corrected the entry
    to Hi-Fi Stereo; the press, owed after the correction, was judged again on the table as it
    now stood and recorded "Red ends the turn" once more, which nobody made.  The press was
    for the move the correction recorded: the end of the turn nothing on the table shows is
    asked, never recorded."""
    import random

    table = Table.open("jivecat", None, 3, None, 4, resume=False)
    game, rng = table.game, random.Random(4)
    for _ in range(600):
        s = table.state
        if s["phase"] == "play":
            p = s["turn"]
            trend = next((t["card"] for t in s["trends"][p] if t["active"] and not t["used"]
                          and game.trend_cards[t["card"]]["power"]["kind"] == "draw"), None)
            if trend is not None and s["skulls"][p] >= 2:
                break
        table.declare(rng.choice(game.legal_actions(s)))
    else:
        raise AssertionError("no Trend that draws for a Skull in 600 moves")
    power = {"type": "trend_power", "player": p, "trend": trend}
    before = game.board_view(s)
    after = game.board_view(game.apply(s, power))
    paid = {k: v for k, v in before.items() if not k.startswith("mat")}
    paid.update({k: v for k, v in after.items() if k.startswith("mat")})
    table.board_seen(before)
    ended = table.button()  # judged on the table before the Skull left the mat
    assert ended is not None and ended.action == {"type": "end_turn", "player": p}
    for _ in range(DOUBLE_PRESS_FRAMES + 2):
        table.frame_taken()
    table.board_seen(paid)
    for _ in range(DOUBLE_PRESS_FRAMES + 2):
        table.frame_taken()
    assert table.button() is None  # made again: refused, it waits for the answer
    table.declare({"type": "correct", "action": power}, "tablet")
    assert table.history[-1].action == power  # nothing recorded after the correction
    prompt = table.referee.table_prompt
    assert prompt is not None and "pressed twice?" in prompt.text
    assert prompt.options == [{"type": "end_turn", "player": p}]


def test_a_waiting_press_judged_on_a_table_put_back_as_the_record_has_it_ends_no_turn() -> None:
    """Jivecat seed 13, cafe, typical (wedged): Red's Trend press was held by a chip knocked
    aside; the players put the paid Skull back on the mat for a moment to make the move
    again, the held press was judged on that table (its difference gone) and recorded "Red
    ends the turn", which nobody made.  Here in Baron Voodoo: a face change pressed with a
    die knocked aside waits; the players take the change back and set the die right, and
    the held press, judged on the record's own table, is asked about, not recorded."""
    from tests.test_wedges_baron_swing import _set_up_baron

    table = Table.open("baron_voodoo", None, 2, None, 17, resume=False)
    table.referee.pace.settle_frames = 1
    game = table.game
    _set_up_baron(table)
    table.board_seen(game.board_view(table.state))

    def settle() -> None:
        for _ in range(DOUBLE_PRESS_FRAMES + 2):
            table.frame_taken()

    capture = next(a for a in game.legal_actions(table.state) if a["type"] == "capture")
    table.board_seen(game.board_view(game.apply(table.state, capture)))
    settle()
    assert table.button() is not None and table.history[-1].action == capture
    record = game.board_view(table.state)
    change = next(a for a in game.legal_actions(table.state)
                  if a["type"] == "change_face" and game.board_view(game.apply(table.state, a)) != record)
    made = dict(game.board_view(game.apply(table.state, change)))
    first, second = [c for c in sorted(made) if made[c] and c in game.facts.coord
                     and made[c] == record.get(c)][:2]
    knocked = {**made, first: made[first][:-1], second: (*made[second], made[first][-1])}
    settle()
    table.board_seen(knocked)
    settle()
    assert table.button() is None and table.referee.press_still_waits()
    settle()
    table.board_seen(record)  # the change taken back, the die set right
    settle()
    assert table.history[-1].action == capture  # no "ends the turn" nobody made
    asked = table.table_prompt
    assert asked is not None and asked.options == [{"type": "end_turn", "player": 0}], asked
