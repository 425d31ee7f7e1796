"""A way out of every disagreement between the table and the record (issue 39).

Scripted boards, taps and presses on :class:`Table` (no simulated world): the tablet names
the place and the entry that explains a difference, older entries included; the correction
is one tap, "the record is right" another, "read the table again" a logged correction that a
restart replays the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.games.base import BoardView, Piece, State
from companion.table import Table
from companion.table.referee import DOUBLE_PRESS_FRAMES

PLAYERS = 3
KEEP, REREAD = {"type": "keep_record"}, {"type": "reread"}


def roll(value: int) -> dict:
    return {"type": "roll", "player": 0, "value": value}


def die(table: Table, view: BoardView, value: int) -> BoardView:
    game = table.game
    return {**view, game.die_spot: (Piece(game.die_colour, value),)}


def swing_state_roll_misread(data_dir: Path | None, sticky: bool) -> tuple[Table, State, int]:
    """Swing State: the Incumbent's 4 read as a 3 and recorded so; the pawn then moved 4
    spaces and the button pressed.  ``sticky``: the camera still reads the die as a 3."""
    table = Table.open("swing_state", data_dir, PLAYERS, None, 0)
    game, base = table.game, table.state
    entry = table.board_seen(game.board_view(game.apply(base, roll(3))))
    assert entry is not None and entry.action == roll(3) and entry.source == "camera"
    truth = game.apply(base, roll(4))
    truth = game.apply(truth, next(a for a in game.legal_actions(truth) if a["type"] == "move"))
    seen = game.board_view(truth)
    table.board_seen(die(table, seen, 3) if sticky else seen)
    table.button()
    return table, truth, entry.seq


def disagreement_prompts(table: Table) -> list:
    return [p for p in table.prompts() if any(o.get("type") == "keep_record" for o in p.options)]


@pytest.mark.parametrize("sticky", [False, True])
def test_swing_state_a_misread_roll_is_named_and_corrected_by_one_tap(tmp_path: Path,
                                                                     sticky: bool) -> None:
    table, truth, seq = swing_state_roll_misread(tmp_path, sticky)
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning"
    fix = {"type": "correct", "entry": seq, "action": roll(4)}
    assert prompt.options[0] == fix and KEEP in prompt.options and REREAD in prompt.options
    assert f"Entry #{seq} (Incumbent rolls 3) explains it" in prompt.text
    # the place by its printed name: the die read anew, or (still misread) where the pawn went
    assert ("Start shows" if sticky else "Die shows white (4) on the table, white (3) in the record") \
        in prompt.text
    assert table.state["roll"] == 3 or table.history[-1].action == roll(3)  # asked, not changed

    table.declare(fix)  # one tap: the roll corrected, the press judged again records the move
    assert table.state == truth
    assert [h.action["type"] for h in table.history if not h.undone] == ["roll", "move"]
    assert disagreement_prompts(table) == []  # a die the camera still misreads is set aside
    again = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    assert again.state == truth


def test_the_record_is_right_sets_the_camera_reading_aside_and_logs_nothing(tmp_path: Path) -> None:
    """A pawn knocked onto the next space: "the record is right, I'll set the table as it
    says" is one tap; nothing is logged, and the warning stays away while the camera reads
    the knocked pawn, and for good once the pawn is back."""
    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    game = table.game
    table.board_seen(game.board_view(game.apply(table.state, roll(4))))
    recorded = table.state
    knocked = {k: v for k, v in game.board_view(recorded).items()}
    start = knocked["r1-00"]
    knocked["r1-00"] = start[1:]
    knocked["r1-01"] = start[:1]
    table.board_seen(knocked)
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning" and KEEP in prompt.options
    assert "Start shows" in prompt.text and "in the record" in prompt.text
    events = len(table.log.events(table.record.id))

    table.declare(KEEP)
    assert table.state == recorded and len(table.log.events(table.record.id)) == events
    assert disagreement_prompts(table) == []
    table.button()  # the same table pressed again: still nothing to ask
    assert disagreement_prompts(table) == [] and table.state == recorded
    table.board_seen(game.board_view(recorded))  # the pawn put back
    assert table.referee.overrides.places == {}


def test_read_the_table_again_is_one_logged_correction_replayed_after_a_restart(
        tmp_path: Path) -> None:
    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    game, base = table.game, table.state
    table.board_seen(game.board_view(game.apply(base, roll(3))))
    table.board_seen(game.board_view(game.apply(base, roll(4))))  # the die reads right now
    events = len(table.log.events(table.record.id))

    made = table.declare(REREAD, "tablet", request_id="reread-1")
    assert made is not None and made.kind == "correct" and made.action == roll(4)
    logged = table.log.events(table.record.id)[events:]
    assert [(e.kind, e.request_id) for e in logged] == [("correct", "reread-1")]
    assert table.state == game.apply(base, roll(4))
    done = table.request("reread-1")  # a retry of the tap is answered from the log
    assert done is not None and done[1].seq == made.seq
    again = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    assert again.state == table.state
    assert [(h.seq, h.action, h.undone) for h in again.history] == \
        [(h.seq, h.action, h.undone) for h in table.history]


def test_read_the_table_again_with_nothing_to_correct_changes_nothing(tmp_path: Path) -> None:
    from companion.table import NothingToUndo
    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    game = table.game
    table.board_seen(game.board_view(game.apply(table.state, roll(4))))
    before = (table.state, len(table.log.events(table.record.id)))
    with pytest.raises(NothingToUndo, match="nothing to correct"):
        table.declare(REREAD)
    assert (table.state, len(table.log.events(table.record.id))) == before


def test_a_card_tapped_on_the_wrong_seats_reader_is_fixed_by_one_tap() -> None:
    """Swing State: Blue's cheat card laid on the next seat's reader is refused as that
    seat's; the tablet offers it as Blue's (one tap) and to forget the tap."""
    import random

    table = Table.open("swing_state", None, PLAYERS, None, 1)
    game, rng = table.game, random.Random(1)
    for _ in range(9):
        table.declare(rng.choice(game.legal_actions(table.state)))
    cheat = {"type": "cheat", "player": 1, "card": "cheat-g01"}
    assert game.is_legal(table.state, cheat)
    before = table.state
    assert table.tap("cheat-g01", seat=2) is None
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning" and prompt.text.startswith("Not allowed:")
    assert prompt.options[0] == cheat and {"type": "forget_taps"} in prompt.options
    assert table.state == before
    entry = table.declare(prompt.options[0])
    assert entry is not None and entry.action == cheat and table.taps == []


def koc_reveal_misread(sticky: bool) -> tuple[Table, dict, dict, State, int]:
    """King of Clubs: the first reveal recorded with B's Dancers read a skill off; the next
    reveal then shows B's true 2 again, which the record refuses ("B has only one Dancer of
    skill ..., already revealed tonight").  ``sticky``: the camera still misreads the first."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 0)
    game = table.game
    while table.state["phase"] != "reveal":
        table.declare(game.legal_actions(table.state)[0])
    base = table.state
    true, misread = next((a, b) for a in game.legal_actions(base) for b in game.legal_actions(base)
                         if a != b and [(c["player"], c["slot"]) for c in a["cards"]]
                         == [(c["player"], c["slot"]) for c in b["cards"]])
    entry = table.board_seen(game.board_view(game.apply(base, misread)))
    assert entry is not None and entry.action == misread
    after = game.apply(base, true)
    following = next(n for n in game.legal_actions(after)
                     if game.board_view(game.apply(after, n)) != game.board_view(after))
    truth = game.apply(after, following)
    seen = dict(game.board_view(truth))
    if sticky:
        seen.update({p: v for p, v in game.board_view(game.apply(base, misread)).items()
                     if p in seen and v != game.board_view(after).get(p)})
    table.board_seen(seen)
    table.button()
    return table, true, misread, truth, entry.seq


def test_king_of_clubs_the_misread_card_is_named_not_only_the_refused_one() -> None:
    table, true, misread, truth, seq = koc_reveal_misread(sticky=False)
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning"
    assert "already revealed tonight" in prompt.text  # the symptom, and then its cause:
    assert f"Entry #{seq} ({table.game.describe(table.state_before(seq), misread)}) explains it" \
        in prompt.text
    assert "at Nightclub 1 shows" in prompt.text  # the place by its printed name
    fix = {"type": "correct", "entry": seq, "action": true}
    assert prompt.options[0] == fix and KEEP in prompt.options
    table.declare(fix)  # one tap; the press waiting is judged again and records the reveal
    assert table.state == truth


def test_king_of_clubs_a_card_the_camera_still_misreads_is_offered_by_its_readings() -> None:
    table, true, misread, truth, seq = koc_reveal_misread(sticky=True)
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning"
    fix = {"type": "correct", "entry": seq, "action": true}
    assert fix in prompt.options and KEEP in prompt.options
    table.declare(fix)
    assert table.state == truth
    assert disagreement_prompts(table) == []


def test_baron_voodoo_a_die_misread_in_an_older_entry_is_found_and_the_moves_since_stand(
        tmp_path: Path) -> None:
    """Issue 39, Baron Voodoo: a set-up die read a face off and recorded so, a capture
    recorded after it, then the die reads right and the players press: no legal move explains
    the table.  The tablet names the die's place and the set-up entry (not the newest move),
    and its one-tap correction keeps the capture."""
    from tests.test_misread_correction import baron_set_up_misread

    table, base, true_setup, misread, capture = baron_set_up_misread(tmp_path)
    game = table.game
    table.board_seen(game.board_view(game.apply(base, misread)))
    table.button()
    setup_seq = table.history[-1].seq
    table.board_seen(game.board_view(game.apply(game.apply(base, misread), capture)))
    table.button()
    assert table.history[-1].action == capture and table.history[-1].seq != setup_seq
    truth = game.apply(game.apply(base, true_setup), capture)
    table.board_seen(game.board_view(truth))  # the die reads right now
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning"
    fix = {"type": "correct", "entry": setup_seq, "action": true_setup}
    assert prompt.options[0] == fix and KEEP in prompt.options and REREAD in prompt.options
    assert f"Entry #{setup_seq}" in prompt.text and "the moves since stand" in prompt.text
    table.declare(fix)  # the capture stands; the press that raised it is judged again
    standing = [h for h in table.history if not h.undone]
    assert [h.action for h in standing[1:3]] == [true_setup, capture]
    assert standing[-1].action["type"] == "end_turn" and standing[-1].source == "table"
    assert table.state == game.apply(truth, standing[-1].action)
    again = Table.open("baron_voodoo", tmp_path, 2, None, 0)
    assert again.state == table.state


def _baron_capture_pressed(tmp_path: Path, now: list[float]) -> tuple[Any, Any, Any]:
    """Baron Voodoo's set-up and a capture, each pressed for, on a clock the test sets:
    the table, the capture and the capture's entry."""
    from tests.test_misread_correction import baron_set_up_misread

    table, base, true_setup, _, capture = baron_set_up_misread(tmp_path)
    table.clock = lambda: now[0]
    game = table.game
    table.board_seen(game.board_view(game.apply(base, true_setup)))
    table.button()
    table.board_seen(game.board_view(game.apply(game.apply(base, true_setup), capture)))
    return table, capture, table.button()


def test_a_double_press_is_asked_about_never_recorded(tmp_path: Path) -> None:
    """Baron Voodoo: the capture's press made twice at once (no camera frame between).  The
    second would record "ends the turn" with nothing moved on the table: it is asked about
    instead, and the move it would record is one tap."""
    now = [1000.0]
    table, capture, entry = _baron_capture_pressed(tmp_path, now)
    assert entry is not None and entry.action == capture
    for _ in range(DOUBLE_PRESS_FRAMES - 1):  # a finger's bounce: fewer frames than a person's press
        table.frame_taken()
    now[0] = entry.at + 30  # the wall clock does not judge it: a stalled camera takes no frames
    recorded = table.state
    assert table.button() is None
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "choice" and f"#{entry.seq}" in prompt.text
    assert "pressed twice?" in prompt.text
    assert table.state == recorded and prompt.options[0]["type"] == "end_turn"
    made = table.declare(prompt.options[0])  # it was meant: one tap
    assert made is not None and made.action["type"] == "end_turn"


def test_a_press_a_few_frames_after_the_last_is_a_press(tmp_path: Path) -> None:
    """A quick deliberate press (the next step at once on a fast table) is a press however
    little wall-clock time passed: the camera took a person's press's worth of frames."""
    now = [1000.0]
    table, capture, entry = _baron_capture_pressed(tmp_path, now)
    assert entry is not None
    now[0] = entry.at + 0.01
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    second = table.button()
    assert second is not None and second.action["type"] == "end_turn"


def test_without_a_camera_every_press_is_a_press(tmp_path: Path) -> None:
    """No camera, no frames to pace presses by: two presses are two presses."""
    table = Table.open("baron_voodoo", tmp_path, 2, None, 0)
    game = table.game
    while not any(a["type"] == "end_turn" for a in game.legal_actions(table.state)):
        table.declare(game.legal_actions(table.state)[0])
    first = table.button()
    assert first is not None and first.action["type"] == "end_turn"
    second = table.button()
    assert second is not None and second.action["type"] == "end_turn" and second.seq != first.seq


def test_the_ways_out_are_taps_through_the_tablets_api(tmp_path: Path) -> None:
    """Each way out is an action the tablet posts: a retried "read the table again" is
    answered from the log once; "the record is right" with nothing to set aside is refused
    in words and changes nothing."""
    from companion.web.app import create_app

    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    game, base = table.game, table.state
    client = create_app(table, "1357", {"TESTING": True}).test_client()
    pin = {"X-Table-Pin": "1357"}
    table.board_seen(game.board_view(game.apply(base, roll(3))))
    table.board_seen(game.board_view(game.apply(base, roll(4))))
    first = client.post("/api/actions", json={"action": REREAD, "request_id": "r-1"}, headers=pin)
    assert first.status_code == 200 and first.get_json()["entry"]["action"] == roll(4)
    again = client.post("/api/actions", json={"action": REREAD, "request_id": "r-1"}, headers=pin)
    assert again.status_code == 200 and again.get_json()["duplicate"] is True
    events = len(table.log.events(table.record.id))
    kept = client.post("/api/actions", json={"action": KEEP, "request_id": "k-1"}, headers=pin)
    assert kept.status_code == 409 and "nothing to set aside" in kept.get_json()["error"]
    assert len(table.log.events(table.record.id)) == events


def test_a_forgotten_press_two_moves_on_the_table_are_recorded_by_one_tap(tmp_path: Path) -> None:
    """Swing State: the Incumbent's pawn moved without its press, then the next player's
    roll lands: the record still waits for the move.  The tablet names the two moves and
    offers the first as one tap; the second is then read from the table."""
    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    game, base = table.game, table.state
    for first in range(1, 7):  # a roll whose space asks nothing, so the next roll follows
        rolled = game.apply(base, roll(first))
        move = next(a for a in game.legal_actions(rolled) if a["type"] == "move")
        moved = game.apply(rolled, move)
        second = next((a for a in game.legal_actions(moved) if a["type"] == "roll"
                       and a["value"] != first), None)
        if second is not None:
            break
    else:
        pytest.skip("every space asks something before the next roll")
    table.board_seen(game.board_view(rolled))
    truth = game.apply(moved, second)
    table.board_seen(game.board_view(truth))  # no press: the next roll is read at once
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning", prompt
    assert "two moves" in prompt.text and prompt.options[0] == move
    table.declare(prompt.options[0])
    assert table.state == truth
