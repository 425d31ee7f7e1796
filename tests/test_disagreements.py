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

from companion.games.base import Action, BoardView, MalformedAction, Piece, Prompt, RuleError, State, Tap
from companion.reconcile import changed_places, place_names
from companion.table import Table
from companion.table.overrides import pieces_words
from companion.table.referee import DOUBLE_PRESS_FRAMES
from companion.table.search import differing

PLAYERS = 3
KEEP, REREAD = {"type": "keep_record"}, {"type": "reread"}


def roll(value: int) -> dict:
    return {"type": "roll", "player": 0, "value": value}


def die(table: Table, view: BoardView, value: int) -> BoardView:
    game = table.game
    return {**view, game.die_spot: (Piece(game.die_colour, value),)}


def rolled_3_for_a_4(data_dir: Path | None) -> tuple[Table, Any, State]:
    """Swing State: the Incumbent's 4 read as a 3 and recorded so: the table, the roll's
    entry, and the truth once the pawn moved its 4 spaces."""
    table = Table.open("swing_state", data_dir, PLAYERS, None, 0)
    game, base = table.game, table.state
    entry = table.board_seen(game.board_view(game.apply(base, roll(3))))
    assert entry is not None and entry.action == roll(3) and entry.source == "camera"
    truth = game.apply(base, roll(4))
    truth = game.apply(truth, next(a for a in game.legal_actions(truth) if a["type"] == "move"))
    return table, entry, truth


def swing_state_roll_misread(data_dir: Path | None, sticky: bool) -> tuple[Table, State, int]:
    """Swing State: the Incumbent's 4 read as a 3 and recorded so; the pawn then moved 4
    spaces and the button pressed.  ``sticky``: the camera still reads the die as a 3."""
    table, entry, truth = rolled_3_for_a_4(data_dir)
    seen = table.game.board_view(truth)
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
    assert f"Entry #{table.ledger.move_number(seq)} (Incumbent rolls 3) explains it" in prompt.text
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


def test_swing_state_a_pawn_read_in_another_seats_colour_where_it_landed_is_offered_as_one_tap() -> None:
    """Swing State seed 13, cafe, typical: Blue's pawn read red where it landed, all the
    while it stood there.  The press was refused ("Red moves to Start: it is Blue's turn")
    with no reading to tap, "the record is right" asked the players to move a pawn that was
    right, and the game wedged.  The move read with the pawn in another of the pawns' colours
    is offered as one tap, the place named; tapped, it is recorded and the camera's reading
    there set aside while it reads so."""
    table = Table.open("swing_state", None, PLAYERS, None, 0)
    game = table.game
    table.board_seen(game.board_view(game.apply(table.state, roll(4))))
    move = next(a for a in game.legal_actions(table.state) if a["type"] == "move")
    truth = game.board_view(game.apply(table.state, move))
    (pawn,) = truth[move["to"]]
    wrong = next(p.colour for p in truth["r1-00"] if p.colour != pawn.colour)
    seen = {**truth, move["to"]: (Piece(wrong, 0),)}
    table.board_seen(seen)
    table.button()
    asked = table.table_prompt
    assert asked is not None and move in asked.options, asked
    label = place_names(game, table.state)[move["to"]]
    assert f"misread {label} in its colour" in asked.text, asked.text
    table.declare(move)
    assert table.history[-1].action == move and table.history[-1].source == "tablet"
    assert table.seen == truth and table.table_prompt is None
    table.board_seen(seen)  # the camera still reads it so: set aside, nothing asked
    assert table.table_prompt is None and table.history[-1].action == move


def test_a_correction_that_explains_the_places_but_not_the_score_pieces_is_offered_saying_so() -> None:
    """Swing State seed 8, cafe, typical: a roll read a pip off and recorded, while a score
    chip differed too.  No correction explains both, and none was offered: the game wedged.
    The correction that explains the die is offered, naming the die and saying that the
    score pieces still differ after it; tapped, the record is the table's, and the chip's
    own difference stands as a warning with its own way out."""
    table, entry, truth = rolled_3_for_a_4(None)
    game = table.game
    seen = dict(game.board_view(truth))
    chip = "pile1-1v0"  # the Incumbent's 1 V chip for Red, off its place
    assert game.score_place(chip) and seen.pop(chip)
    table.board_seen(seen)
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning"
    fix = {"type": "correct", "entry": entry.seq, "action": roll(4)}
    assert prompt.options[0] == fix and KEEP in prompt.options, prompt.options
    differs = "Incumbent's pile for Red: V 5 on the table, 6 in the record"
    assert "Entry #1 (Incumbent rolls 3) explains it at Die: the table shows Incumbent rolls 4" \
        in prompt.text, prompt.text
    assert f"they still differ after it ({differs})" in prompt.text
    table.declare(fix)  # one tap: the roll corrected, the press judged again records the move
    assert table.state == truth
    left = disagreement_prompts(table)
    assert [p.text for p in left] == [f"The table does not match the record: the score pieces differ: "
                                      f"{differs}. If the table is wrong, tap that the record is right "
                                      "and set the table as it says."]
    table.declare(KEEP)  # the chip's own way out: the record is right
    assert disagreement_prompts(table) == [] and table.state == truth


def incumbent_moved_4() -> Table:
    """Swing State: the Incumbent's 4 rolled, his pawn moved and the button pressed, all read
    right: the Incumbent's piles are to be chosen next."""
    table = Table.open("swing_state", None, PLAYERS, None, 0)
    game = table.game
    table.board_seen(game.board_view(game.apply(table.state, roll(4))))
    moved = game.apply(table.state, next(a for a in game.legal_actions(table.state) if a["type"] == "move"))
    table.board_seen(game.board_view(moved))
    table.button()
    return table


def test_score_chips_set_aside_as_the_record_is_right_are_read_again_once_the_record_has_them() -> None:
    """Swing State seed 8, cafe, typical: Blue's two 1 V chips were laid before their News
    card was recorded, and the players tapped "the record is right".  Once the card was
    recorded the record had the chips, but the camera's reading of them was still set aside
    as nothing: "Blue: V 17 on the table, 19 in the record" stood, "the record is right" found
    nothing to set aside, and the game wedged.  Here the Incumbent's three red chips, laid
    before the choice of piles is declared."""
    table = incumbent_moved_4()
    game = table.game
    allocate = {"type": "allocate", "player": 0, "piles": {"red": 3}}
    after = game.apply(table.state, allocate)
    table.board_seen(game.board_view(after))  # the chips laid before the choice is declared
    assert [p.text for p in disagreement_prompts(table)] == [
        "The table does not match the record: the score pieces differ: Incumbent's pile for Red: V 9 on "
        "the table, 6 in the record. If the table is wrong, tap that the record is right and set the "
        "table as it says."]
    table.declare(KEEP)
    table.declare(allocate)
    assert table.state == after
    table.button()  # the record has the chips the camera reads: nothing differs
    assert disagreement_prompts(table) == [] and table.table_prompt is not None \
        and table.table_prompt.text.startswith("Nothing to record yet"), table.table_prompt
    table.board_seen({p: v for p, v in game.board_view(after).items() if p != game.die_spot})
    assert table.history[-1].action["type"] == "pick_up_die" and disagreement_prompts(table) == []


def test_a_roll_read_from_a_die_misread_on_its_tray_is_offered_undone_never_as_another_roll() -> None:
    """Swing State seed 8, cafe, typical: the die, showing the last roll's 3 on its tray,
    read 2 for a moment and became "Blue rolls 2"; read 3 again, the tablet offered it
    corrected to "Blue rolls 3", a roll nobody made (the die never left its tray, and a roll
    to the same face is a pick-up and a roll).  The players tapped it, their pick-up for the
    roll the record no longer awaited was refused, and the game wedged.  Here Red's roll is
    due with the Incumbent's 4 on the tray, read 3 for a moment: the entry is offered undone."""
    table = incumbent_moved_4()
    game = table.game
    table.declare({"type": "allocate", "player": 0, "piles": {"red": 3}})
    before, view = table.state, game.board_view(table.state)
    entry = table.board_seen(die(table, view, 3))  # the 4 on the tray read 3 for a moment
    assert entry is not None and entry.action == {"type": "roll", "player": 1, "value": 3}
    table.board_seen(view)
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.options[0] == {"type": "undo", "seq": entry.seq}, prompt
    assert not any(o.get("type") == "correct" for o in prompt.options)
    assert "explains it: the table shows it was never made" in prompt.text
    table.declare(prompt.options[0])
    assert table.state == before
    table.board_seen({p: v for p, v in view.items() if p != game.die_spot})  # Red picks the die up
    assert table.history[-1].action == {"type": "pick_up_die", "player": 1}


def test_the_entry_is_named_by_its_number_in_the_history_not_the_logs(tmp_path: Path) -> None:
    """A roll declared and undone first: the log's sequence numbers (which count the undo)
    run ahead of the history's, and the prompt names the misread roll as the history
    numbers it, the same number players read beside it."""
    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    table.declare(roll(2))
    table.declare({"type": "undo"})
    table.close()
    table, _, seq = swing_state_roll_misread(tmp_path, False)
    number = [h.seq for h in table.history].index(seq) + 1
    assert (seq, number) == (3, 2)
    prompt = table.table_prompt
    assert prompt is not None and "Entry #2 (Incumbent rolls 3) explains it" in prompt.text, prompt.text
    assert "correct entry #2" in prompt.text and "#3" not in prompt.text


def knocked_pawn(tmp_path: Path) -> tuple[Table, State, BoardView]:
    """Swing State: the Incumbent's 4 recorded, then a pawn knocked onto the next space and
    the button pressed: the table, the record and the knocked board."""
    table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    game = table.game
    table.board_seen(game.board_view(game.apply(table.state, roll(4))))
    recorded = table.state
    knocked = dict(game.board_view(recorded))
    start = knocked["r1-00"]
    knocked["r1-00"] = start[1:]
    knocked["r1-01"] = start[:1]
    table.board_seen(knocked)
    table.button()
    return table, recorded, knocked


def test_the_record_is_right_sets_the_camera_reading_aside_as_one_logged_line(tmp_path: Path) -> None:
    """A pawn knocked onto the next space: "the record is right, I'll set the table as it
    says" is one tap, logged as a line of the history in words that moves no move; the
    warning stays away while the camera reads the knocked pawn, and for good once the pawn
    is back."""
    table, recorded, knocked = knocked_pawn(tmp_path)
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning" and KEEP in prompt.options
    assert "Start shows" in prompt.text and "in the record" in prompt.text
    events = len(table.log.events(table.record.id))

    line = table.declare(KEEP, "tablet", request_id="keep-1")
    logged = table.log.events(table.record.id)[events:]
    assert [(e.kind, e.request_id) for e in logged] == [("keep_record", "keep-1")]
    assert line is not None and line.kind == "keep_record" and table.history[-1] is line
    assert line.text.startswith("The record is right, the table to be set as it says: Start as "
                                "the record has it") and "(the camera read" in line.text
    assert table.state == recorded and table.public()["can_undo"]  # the roll still the newest move
    assert disagreement_prompts(table) == []
    table.button()  # the same table pressed again: still nothing to ask
    assert disagreement_prompts(table) == [] and table.state == recorded
    assert table.undo().action == roll(4)  # undo takes back the move, never the line
    table.board_seen(table.game.board_view(recorded))  # the pawn put back
    assert table.referee.overrides.places == {}


def test_the_record_is_right_sets_aside_the_score_pieces_it_would_leave_differing() -> None:
    """Swing State seed 17, cafe, typical: the Incumbent's 5 V chip for Red read blue all
    evening (set aside: "the record is right"), then his 1 V chip knocked onto the 5 V row.
    Without the blue chip the pile read right (1 + 5), so "the record is right" set aside
    only the 1 V chip's empty place; with the blue chip set aside as red the pile read 11
    against 6, the warning stood, and the players' same tap was logged 500 times.  The
    decision sets aside the score pieces' places too when they would still differ."""
    table = Table.open("swing_state", None, PLAYERS, None, 0)
    game = table.game
    blue = {**game.board_view(table.state), "pile1-5v0": (Piece("blue", 0),)}
    table.board_seen(blue)
    table.declare(KEEP)
    table.board_seen({**blue, game.die_spot: (Piece(game.die_colour, 5),)})
    move = next(a for a in game.legal_actions(table.state) if a["type"] == "move")
    after = dict(game.board_view(game.apply(table.state, move)))
    after["pile1-5v0"] = (Piece("blue", 0),)
    after["pile1-5v5"] = after.pop("pile1-1v0")  # knocked onto the 5 V row
    table.board_seen(after)
    table.button()
    assert table.history[-1].action == move
    assert any("score pieces differ" in p.text for p in table.prompts() if p.kind == "warning")
    entry = table.declare(KEEP)
    assert entry is not None and "5 V chip 6 as the record has it, nothing (the camera read red)" \
        in entry.action["text"], entry.action["text"]
    assert [p.text for p in table.prompts() if p.kind == "warning"] == []
    table.board_seen(after)  # the camera reads the same: nothing asked again
    assert [p.text for p in table.prompts() if p.kind == "warning"] == []


def test_the_record_is_right_is_replayed_after_a_restart(tmp_path: Path) -> None:
    """After a restart the history shows the line again, and the camera still reading the
    knocked pawn raises no warning: the same readings are set aside."""
    table, recorded, knocked = knocked_pawn(tmp_path)
    line = table.declare(KEEP, "tablet", request_id="keep-1")
    assert line is not None
    done = table.request("keep-1")  # a retry of the tap is answered from the log
    assert done is not None and done[1].seq == line.seq

    again = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    assert again.state == recorded
    assert [(h.seq, h.kind, h.text) for h in again.history] == \
        [(h.seq, h.kind, h.text) for h in table.history]
    assert again.referee.overrides.places == table.referee.overrides.places
    again.board_seen(knocked)
    again.button()
    assert disagreement_prompts(again) == [] and again.state == recorded


def test_a_logged_record_is_right_is_not_set_aside_again_where_the_record_moved_since(
        tmp_path: Path) -> None:
    """The line is replayed, but a place the record changed since is read afresh: the
    Incumbent's pawn moved off Start after the players said the record was right there."""
    table, recorded, knocked = knocked_pawn(tmp_path)
    table.declare(KEEP)
    assert set(table.referee.overrides.places) == {"r1-00", "r1-01"}
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "move"))
    moved = game.board_view(table.state)
    assert moved.get("r1-00") != game.board_view(recorded).get("r1-00") and "r1-01" not in moved
    again = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
    assert [h.kind for h in again.history] == ["action", "keep_record", "action"]
    assert set(again.referee.overrides.places) == {"r1-01"}  # Start is read afresh


@pytest.mark.parametrize("restart", [False, True])
def test_a_record_is_right_decision_ends_at_all_its_places_after_a_restart_too(
        tmp_path: Path, restart: bool) -> None:
    """The knocked pawn set aside at Start and the next space; then the Incumbent moves that
    pawn on from where it lay.  The next space reads as the record had it, so the decision
    ends at Start too, after a restart as before one: Start is not drawn with the pawn that
    left it (before, a restored decision was not grouped and the next press warned "Start
    shows black, blue, red on the table")."""
    table, _, knocked = knocked_pawn(tmp_path)
    table.declare(KEEP)
    game = table.game
    move = next(a for a in game.legal_actions(table.state) if a["type"] == "move")
    truth = game.apply(table.state, move)
    if restart:
        table = Table.open("swing_state", tmp_path, PLAYERS, None, 0)
        assert table.referee.overrides.together["r1-00"] == frozenset({"r1-00", "r1-01"})
    table.board_seen(knocked)
    table.board_seen(game.board_view(truth))
    table.button()
    assert table.state == truth and table.referee.overrides.places == {}
    table.board_seen(knocked)  # a hand's shadow, then the same table pressed again
    table.board_seen(game.board_view(truth))
    table.button()
    assert disagreement_prompts(table) == [] and table.state == truth


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


def swing_answering_with_wilds() -> Table:
    """Swing State, 3 players, seed 56, played on the rules (each State keeping as many Black
    Wilds as it may) to a Round 4 Evidence that the second and third seats, both holding
    Black Wilds, have yet to answer."""
    import random

    table = Table.open("swing_state", None, 3, None, 56)
    game, rng = table.game, random.Random(56)
    while not (table.state["round"] == 4 and table.state["step"] == "respond"
               and table.state["r4"]["wilds"][1] > 0 and table.state["r4"]["wilds"][2] > 0):
        actions = game.legal_actions(table.state)
        keep = [a for a in actions if a["type"] == "keep_wilds"]
        table.declare(max(keep, key=lambda a: a["count"]) if keep else rng.choice(actions))
    return table


def test_a_card_recorded_for_the_wrong_seat_is_named_when_its_owner_taps_it() -> None:
    """Swing State seed 9, cafe, typical: Red's Black Wild laid on Blue's reader was recorded
    as Blue's answer to the Evidence; Red's tap of it on her own reader was refused as played
    already this round, with no entry named, and the game wedged.  The refusal names the entry
    that has the card, and one tap corrects it to Red's answer (Blue's still due)."""
    table = swing_answering_with_wilds()
    game, before, wild = table.game, table.state, "cheat-k01"
    table.tap(wild, seat=1)  # the third seat's card, laid on the second seat's reader
    wrong = table.history[-1]
    assert wrong.action == {"type": "respond", "player": 1, "card": wild}
    table.tap(wild, seat=2)  # its owner lays it again, on her own reader
    asked = table.table_prompt
    assert asked is not None and asked.text.startswith("Not allowed:"), asked
    assert f"entry #{table.ledger.move_number(wrong.seq)} (" in asked.text, asked.text
    mine = {"type": "respond", "player": 2, "card": wild}
    fix = {"type": "correct", "entry": wrong.seq, "action": mine}
    assert asked.options[0] == fix, asked.options
    table.declare(fix)
    assert [h.action for h in table.history if not h.undone][-1] == mine
    assert table.state == game.apply(before, mine) and not table.state["r4"]["responded"][1]
    assert table.taps == [] and table.table_prompt is None


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
    assert f"Entry #{table.ledger.move_number(seq)} " \
        f"({table.game.describe(table.state_before(seq), misread)}) explains it" \
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
    assert f"Entry #{table.ledger.move_number(setup_seq)}" in prompt.text \
        and "the moves since stand" in prompt.text
    table.declare(fix)  # the capture stands; the press that raised it is judged again
    standing = [h for h in table.history if not h.undone]
    assert [h.action for h in standing[1:3]] == [true_setup, capture]
    assert standing[-1].action["type"] == "end_turn" and standing[-1].source == "table"
    assert table.state == game.apply(truth, standing[-1].action)
    again = Table.open("baron_voodoo", tmp_path, 2, None, 0)
    assert again.state == table.state


def baron_captured_die_misread(face: str) -> tuple[Table, dict, dict, dict]:
    """Baron Voodoo after the Deities' choice: a set-up with the die of the first legal
    capture read a face off (its true ``face`` another), the capture legal after either; the
    table, the true set-up, the misread one and the capture."""
    table = Table.open("baron_voodoo", None, 2, None, 0)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "deities"))
    base = table.state
    laid = next(a for a in game.legal_actions(base) if a["type"] == "setup")
    for capture in (a for a in game.legal_actions(game.apply(base, laid)) if a["type"] == "capture"):
        over = capture["over"]
        colour = laid["board"][over][0][0]
        true_setup = {**laid, "layout": "random", "board": {**laid["board"], over: [[colour, face]]}}
        for other in (f for f in game.facts.faces if f != face):
            misread = {**true_setup, "board": {**true_setup["board"], over: [[colour, other]]}}
            if game.is_legal(base, true_setup) and game.is_legal(base, misread) \
                    and game.is_legal(game.apply(base, misread), capture):
                return table, true_setup, misread, capture
    raise AssertionError("no capture of a die read a face off")


def test_baron_voodoo_a_press_for_a_capture_of_a_misread_die_never_ends_the_turn_once_corrected() -> None:
    """Baron Voodoo seed 17, cafe, typical: B7's die, read a pip high since the set-up, was
    captured, and its true face showed in the Caught Souls.  The players pressed again for
    their capture; the tablet named the set-up and they corrected it, and the press, judged
    again on the corrected record, recorded "Gran Bwa ends the turn" before the effect its
    true face gave: the record never matched the table again.  The press is asked about
    instead (its step reads otherwise now), and the effect made next is recorded from the
    table."""
    table, true_setup, misread, capture = baron_captured_die_misread("vp")
    game = table.game
    base = table.state
    table.board_seen(game.board_view(game.apply(base, misread)))
    table.button()
    setup_seq = table.history[-1].seq
    truth = game.apply(game.apply(base, true_setup), capture)
    table.board_seen(game.board_view(truth))  # the captured die shows its true face in the Caught Souls
    table.button()
    assert table.history[-1].action == capture
    table.button()  # pressed again: the history names their capture with another face
    prompt = table.table_prompt
    fix = {"type": "correct", "entry": setup_seq, "action": true_setup}
    assert prompt is not None and prompt.options[0] == fix, prompt
    table.declare(fix)
    standing = [h.action for h in table.history if not h.undone]
    assert standing[-2:] == [true_setup, capture]  # no "ends the turn" nobody made
    asked = table.table_prompt
    assert asked is not None and asked.options == [{"type": "end_turn", "player": 0}], asked
    assert "pressed again after" in asked.text
    effect = {"type": "effect", "player": 0}  # the VP face: the marker moved one up, then a press
    after = game.apply(truth, effect)
    table.board_seen(game.board_view(after))
    table.button()
    assert table.history[-1].action == effect and table.state == after


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
    assert prompt is not None and prompt.kind == "choice" \
        and f"#{table.ledger.move_number(entry.seq)} (" in prompt.text
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


def test_a_double_press_held_while_a_hand_is_over_the_board_is_still_asked_about(tmp_path: Path) -> None:
    """Jivecat seed 1, cafe: the press recorded the move, the bounce came with a hand over
    the board and was held; judged once the view settled, frames later, it recorded "ends
    the turn" that nobody made.  A press held that came at once after a press that recorded
    a move is judged as the double press it is: asked, never recorded."""
    table, capture, entry = _baron_capture_pressed(tmp_path, [1000.0])
    assert entry is not None and entry.action == capture
    table.frame_taken()
    table.notice("vision", Prompt("Hand over the board: waiting.", "info"))
    recorded = table.state
    assert table.button() is None and table._held_press is not None  # held
    table.notice("vision", None)
    for _ in range(table.referee.pace.settle_frames):
        table.frame_taken()
    assert table._held_press is None and table.state == recorded
    prompt = table.table_prompt
    assert prompt is not None and "pressed twice?" in prompt.text
    assert prompt.options[0]["type"] == "end_turn"  # if it was meant: one tap


def test_a_double_press_is_asked_about_when_the_move_it_would_record_has_chores_on_the_board() -> None:
    """Jivecat seed 1, cafe: the bounce after a press recorded "Yellow ends the turn", whose
    record returns a Skull from the mat (a chore the table did not show yet), so the guard,
    which looked for a move changing nothing on the record's board, let it through.  A
    move nothing on the table shows is one whose places the table still shows as before."""
    import random

    table = Table.open("jivecat", None, 3, None, 1, resume=False)
    game, rng = table.game, random.Random(1)
    for _ in range(400):
        ends = [a for a in game.legal_actions(table.state) if a.get("type") == "end_turn"]
        if ends and game.board_view(game.apply(table.state, ends[0])) != game.board_view(table.state):
            break
        table.declare(rng.choice(game.legal_actions(table.state)))
    else:
        raise AssertionError("no turn whose end changes the board in 400 moves")
    recorded = table.state
    table.board_seen(game.board_view(recorded))
    table.frame_taken()
    # the newest move was recorded by a press a frame ago (as the camera table records one)
    table.referee._pressed_last = True
    table.referee.pace.recorded(table.history[-1].seq, pressed=True)
    assert table.button() is None and table.state == recorded
    prompt = table.table_prompt
    assert prompt is not None and "pressed twice?" in prompt.text
    assert prompt.options[0]["type"] == "end_turn"


def test_a_held_press_frames_after_the_last_is_a_press(tmp_path: Path) -> None:
    """The same press a person's press's worth of frames later is a press, held or not."""
    table, capture, entry = _baron_capture_pressed(tmp_path, [1000.0])
    assert entry is not None
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.notice("vision", Prompt("Hand over the board: waiting.", "info"))
    assert table.button() is None
    table.notice("vision", None)
    for _ in range(table.referee.pace.settle_frames):
        table.frame_taken()
    assert table.history[-1].action["type"] == "end_turn"


def koc_both_to_pass(camera: bool) -> Table:
    """King of Clubs where a press with nothing moved records B's pass, and the next one
    A's: thirteen random moves of seed 1 declared on the tablet."""
    import random

    table = Table.open("king_of_clubs", None, 2, "advanced", 1)
    game, rng = table.game, random.Random(1)
    for _ in range(13):
        table.declare(rng.choice(game.legal_actions(table.state)))
    if camera:  # a camera loop: a frame taken, the board seen in it
        table.frame_taken()
        table.board_seen(game.board_view(table.state))
    return table


@pytest.mark.parametrize("camera", [False, True])
def test_two_presses_are_two_passes_unless_at_once_with_a_camera(camera: bool) -> None:
    """Without a camera there are no frames to pace presses by: two presses are two passes.
    With one, the second press at once (no frame between) is asked about; a camera frame's
    worth of a person's pace later it is a press."""
    table = koc_both_to_pass(camera)
    first = table.button()
    assert first is not None and first.action == {"type": "pass", "player": 1}
    second = table.button()
    if not camera:
        assert second is not None and second.action == {"type": "pass", "player": 0}
        return
    assert second is None and table.history[-1].seq == first.seq
    prompt = table.table_prompt
    assert prompt is not None and "pressed twice?" in prompt.text
    assert prompt.options == [{"type": "pass", "player": 0}]
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    again = table.button()
    assert again is not None and again.action == {"type": "pass", "player": 0}


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


SETUPS = {"jivecat": (3, None), "swing_state": (3, None), "baron_voodoo": (2, None),
          "king_of_clubs": (2, "advanced"), "times_square": (2, None)}


def played(name: str, moves: int, seed: int) -> Table:
    """``name`` with ``moves`` random legal moves made on the table: each board shown to
    the camera and the button pressed, declared on the tablet only where neither recorded
    it as made (then whatever they recorded instead is undone first)."""
    import random

    players, variant = SETUPS[name]
    table = Table.open(name, None, players, variant, seed)
    game, rng = table.game, random.Random(seed)
    for _ in range(moves):
        if game.outcome(table.state) is not None:
            break
        prior = len(table.ledger.frames)
        action = rng.choice(game.legal_actions(table.state))
        after = game.apply(table.state, action)
        table.board_seen(game.board_view(after))
        for _ in range(DOUBLE_PRESS_FRAMES):
            table.frame_taken()
        if table.state != after:
            table.button()
        if table.state != after:  # read as another move, or not at all: the players declare it
            while len(table.ledger.frames) > prior:
                table.undo()
            table.declare(action)
            while len(table.ledger.frames) > prior + 1:  # the press, owed after the move declared
                table.undo()  # (King of Clubs' pass: Game.press_owed), was not this move's
        table.referee.table_prompt = None
    return table


def jivecat_played(moves: int, seed: int = 3) -> Table:
    return played("jivecat", moves, seed)


def counting_applies(table: Table) -> list[int]:
    """Count the moves the table's rules apply from now on (a search's steps)."""
    game, count = table.game, [0]
    apply = game.apply

    def counted(state: State, action: dict) -> State:
        count[0] += 1
        return apply(state, action)

    game.apply = counted  # type: ignore[method-assign]
    return count


def test_a_second_search_on_the_same_record_reuses_what_the_first_worked_out() -> None:
    """Jivecat: a chip knocked onto an empty lizard, then the button pressed: nothing
    explains it and the search for the entry that would tries the entries' other readings
    and the next moves.  The camera then reads a second chip otherwise and the button is
    pressed again on the same record: the readings, the next moves and the corrected
    records are not worked out again (moves applied counted, not seconds)."""
    table = jivecat_played(40)
    game = table.game
    board = game.board_view(table.state)
    lizards = [s.id for s in game.layout(table.state).spots if s.id[0] in "CTLN" and s.id[1:].isdigit()]
    chips = [p for p in lizards if board.get(p)]
    empty = [p for p in lizards if not board.get(p)]
    knocked = dict(board)
    knocked[empty[0]] = knocked.pop(chips[0])
    applied = counting_applies(table)
    table.board_seen(knocked)
    table.button()
    first, applied[0] = applied[0], 0
    assert disagreement_prompts(table) and first > 50
    other = next(c for c in ("red", "blue", "yellow") if c != board[chips[1]][0].colour)
    table.board_seen({**knocked, chips[1]: (Piece(other),)})
    table.button()
    assert disagreement_prompts(table) and board[chips[1]][0].colour in table.table_prompt.text
    assert applied[0] * 10 < first, (applied[0], first)


def test_a_search_stops_at_its_budget_of_moves_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.table import search as dg

    table = jivecat_played(40)
    game = table.game
    board = dict(game.board_view(table.state))
    chip = next(p for p in sorted(board) if p[0] in "CTLN" and p[1:].isdigit())
    board[chip] = (Piece("red" if board[chip][0].colour != "red" else "blue"),)
    monkeypatch.setattr(dg, "TRIES", 5)
    moves = table.referee._moves(dg.EARLIER)
    search = dg.Search(game, moves, board, [])
    search.explaining(dg.differing(game, table.state, board))
    assert 0 < search.tries <= dg.TRIES + len(moves)  # it stops once over, a replay at most past


def test_changed_places_are_where_a_piece_left_or_came() -> None:
    """The direct comparison gives the places of :func:`diff_views`' pairing, on any views."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from companion.games.base import diff_views
    from companion.reconcile import changed_places

    pieces = st.lists(st.builds(Piece, st.sampled_from(["red", "blue"]), st.integers(0, 2)),
                      min_size=1, max_size=3).map(tuple)
    views = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), pieces)

    @settings(max_examples=300, deadline=None)
    @given(views, views)
    def check(before: BoardView, after: BoardView) -> None:
        moves = diff_views(before, after)
        assert changed_places(before, after) == {m.source for m in moves if m.source} | \
            {m.target for m in moves if m.target}

    check()


# ---------------------------------------------------------------- every game, every cafe fault
def older_misread(table: Table) -> tuple[Any, dict, State] | None:
    """A standing entry the camera or the button recorded, not the newest, with another
    legal reading of its kind after which every move since still applies and the board
    differs: the camera misread it then (glare, drift) and reads it right now."""
    import json

    game = table.game
    moves = table.referee._moves(40)
    for index in range(len(moves) - 2, -1, -1):
        move = moves[index]
        if move.source not in ("camera", "table"):
            continue
        for other in game.legal_actions(move.before):
            if other.get("type") != move.action.get("type") or set(other) != set(move.action) \
                    or other.get("player") != move.action.get("player") \
                    or json.dumps(other, sort_keys=True) == json.dumps(move.action, sort_keys=True):
                continue
            try:
                truth = game.apply(move.before, other)
                for later in moves[index + 1:]:
                    truth = game.apply(truth, later.action)
            except (RuleError, MalformedAction):
                continue
            if differing(game, table.state, game.board_view(truth)):
                return move, other, truth
    return None


OLDER_SEEDS = {"jivecat": 1, "baron_voodoo": 3, "king_of_clubs": 1, "times_square": 2}


@pytest.mark.parametrize("name", sorted(OLDER_SEEDS))
def test_an_older_entry_the_camera_misread_is_named_and_corrected_by_one_tap(name: str) -> None:
    """Each game (Swing State's die: the roll tests above): a move the camera read wrong
    some moves ago, the moves since made on it, and the camera now reading the table right.
    The press is asked about, never recorded: the warning names the places in the game's
    words and the entry (an older one, not the newest), the correction is one tap that
    makes the record the table with the moves since standing, "the record is right" and
    "read the table again" the other taps."""
    table = played(name, 30, OLDER_SEEDS[name])
    game = table.game
    found = older_misread(table)
    assert found is not None
    move, reading, truth = found
    newest = table.history[-1].seq
    names = place_names(game, table.state)
    places = differing(game, table.state, game.board_view(truth))
    table.board_seen(game.board_view(truth))
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    prompt = table.table_prompt
    fix = {"type": "correct", "entry": move.seq, "action": reading}
    assert prompt is not None and prompt.kind == "warning", prompt
    assert fix in prompt.options and KEEP in prompt.options and REREAD in prompt.options
    assert f"Entry #{table.ledger.move_number(move.seq)} " in prompt.text and move.seq != newest
    assert any(f"{names[p]} shows " in prompt.text for p in places)
    assert table.history[-1].seq == newest  # asked, nothing recorded

    table.declare(fix)
    standing = [h.action for h in table.history if not h.undone and h.kind != "keep_record"]
    assert reading in standing
    assert not differing(game, table.state, game.board_view(truth))
    assert disagreement_prompts(table) == []


def nearest_empty(table: Table, place: str, board: BoardView) -> str | None:
    spots = {s.id: (s.x + s.w / 2, s.y + s.h / 2) for s in table.game.layout(table.state).spots}
    x, y = spots[place]
    empty = [s for s in spots if s not in board and not table.game.score_place(s)]
    return min(empty, key=lambda s: (spots[s][0] - x) ** 2 + (spots[s][1] - y) ** 2, default=None)


def cafe_fault(table: Table, kind: str) -> tuple[BoardView, set[str]]:
    """The record's board as a cafe's camera reads it, no legal move explaining it: a piece
    knocked into the nearest empty place, a cup hiding the pieces of two places, or a piece
    read as another of the game's colours (the light drifting, glare); with the places."""
    from companion.reconcile import reconcile

    game = table.game
    board = game.board_view(table.state)
    colours = sorted({p.colour for stack in board.values() for p in stack})
    places = [p for p in sorted(board) if not game.score_place(p)]
    for i, place in enumerate(places):
        view, where = dict(board), {place}
        if kind == "knock":
            target = nearest_empty(table, place, board)
            if target is None:
                continue
            *rest, top = view.pop(place)
            view[target] = (top,)
            if rest:
                view[place] = tuple(rest)
            where.add(target)
        elif kind == "cup":
            other = places[(i + 1) % len(places)]
            del view[place], view[other]
            where.add(other)
        else:
            *rest, top = view[place]
            others = [c for c in colours if c != top.colour]
            if not others:
                continue
            view[place] = (*rest, Piece(others[0], top.pips))
        if reconcile(game, table.state, view, [], "button").action is None:
            return view, where
    raise AssertionError(f"no {kind} that no legal move explains")


@pytest.mark.parametrize("kind", ["knock", "cup", "colour"])
@pytest.mark.parametrize("name", sorted(SETUPS))
def test_a_cafe_fault_is_named_and_the_record_kept_by_one_logged_tap(name: str, kind: str) -> None:
    """Each game, each fault a cafe's camera has on a record that is right: the press is
    asked about, naming each place in the game's words with what the table shows and what
    the record has (never a value to copy onto the table); "the record is right" is one tap,
    logged, after which the fault the camera still sees asks nothing and nothing moved."""
    table = played(name, 20, 1)
    game = table.game
    names = place_names(game, table.state)
    view, where = cafe_fault(table, kind)
    recorded, newest = table.state, table.history[-1].seq
    table.board_seen(view)
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning", prompt
    assert KEEP in prompt.options and REREAD in prompt.options
    for place in where:
        assert f"{names[place]} shows {pieces_words(view.get(place))} on the table, " \
               f"{pieces_words(game.board_view(recorded).get(place))} in the record" in prompt.text
    assert table.history[-1].seq == newest

    line = table.declare(KEEP)
    assert line is not None and line.kind == "keep_record" and table.state == recorded
    assert all(names[place] in line.text for place in where)
    assert disagreement_prompts(table) == []
    table.button()  # pressed again on the same table: the fault set aside asks nothing
    assert disagreement_prompts(table) == []


def forgotten_press(table: Table) -> tuple[dict, State]:
    """Two moves that change the board, the first without its press: the first move and
    the table after both, which no one legal move from the record explains."""
    from companion.reconcile import reconcile

    game, state = table.game, table.state
    for first in game.legal_actions(state):
        after = game.apply(state, first)
        if game.board_view(after) == game.board_view(state):
            continue
        for second in game.legal_actions(after)[:60]:
            both = game.apply(after, second)
            if game.board_view(both) != game.board_view(after) \
                    and reconcile(game, state, game.board_view(both), [], "button").action is None:
                return first, both
    raise AssertionError("no two moves the table tells apart")


@pytest.mark.parametrize(("name", "seed", "moves", "offered"),
                         [("king_of_clubs", 2, 20, True), ("king_of_clubs", 5, 19, False),
                          ("baron_voodoo", 2, 20, True)])
def test_a_forgotten_press_is_a_tap_or_a_declaration_away(name: str, seed: int, moves: int,
                                                          offered: bool) -> None:
    """A move made without its press, then the next one pressed for: where one first move
    fits, it is offered as one tap; else the warning says to declare it.  Either way the
    press is judged again after it and records the second move: the record is the table.
    (Baron Voodoo seed 2 after 20 moves is offered its first move among some 175 legal ones.
    King of Clubs seed 5 after 19 moves: after 20, the night is being revealed, where no
    two moves in a row tell apart on the table.)"""
    table = played(name, moves, seed)
    first, truth = forgotten_press(table)
    newest = table.history[-1].seq
    table.board_seen(table.game.board_view(truth))
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning" and table.history[-1].seq == newest
    assert (first in prompt.options) == offered
    if not offered:
        assert "without its press, declare it" in prompt.text
    table.declare(first)
    assert table.state == truth
    assert [h.action for h in table.history if not h.undone][-2] == first


def test_a_press_held_by_a_passing_misread_is_recorded_once_the_camera_reads_right() -> None:
    """The camera misreads a chip elsewhere for a moment just as a move is pressed for: the
    press is asked about, not recorded; once the camera reads that place right again the
    press is judged on the table as it stands and records the move, with nothing tapped."""
    from companion.reconcile import reconcile

    table = played("jivecat", 20, 1)
    game, state = table.game, table.state
    made = next(after for after in (game.apply(state, a) for a in game.legal_actions(state))
                if reconcile(game, state, game.board_view(after), [], "button").state == after)
    view, _ = cafe_fault(table, "colour")
    misread = {**game.board_view(made), **{p: v for p, v in view.items()
                                           if v != game.board_view(table.state).get(p)}}
    newest = table.history[-1].seq
    table.board_seen(misread)
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    assert table.history[-1].seq == newest and disagreement_prompts(table)
    table.board_seen(game.board_view(made))  # the camera reads it right again
    assert table.state == made and disagreement_prompts(table) == []


def _until_a_drink(table: Table, seed: int) -> Action:
    """Jivecat: moves declared at random (seeded) until the player to move may buy a drink
    with Clique cards; that drink."""
    import random

    rng, game = random.Random(seed), table.game
    for _ in range(60):
        legal = game.legal_actions(table.state)
        buys = [a for a in legal if a["type"] == "buy" and a["cards"]]
        if table.state["phase"] == "play" and buys:
            return buys[0]
        table.declare(rng.choice(legal))
    raise AssertionError("no drink to buy in 60 moves")


@pytest.mark.parametrize("seed", [2, 3])
def test_jivecat_a_clique_card_on_the_neighbours_reader_is_one_tap_from_the_drink(seed: int) -> None:
    """Jivecat: a chip placed for a drink and its Clique card laid on the next seat's reader:
    the drink is refused without a card; the tablet says a card may be on the wrong reader
    and offers the drink read with that card as the mover's, one tap that records it."""
    table = played("jivecat", 20, seed)
    game = table.game
    buy = _until_a_drink(table, seed)
    state = table.state
    neighbour = (buy["player"] + 1) % PLAYERS
    table.board_seen(game.board_view(game.apply(state, buy)))
    for card in buy["cards"]:
        table.tap(card, neighbour)
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning" and table.state == state
    assert "wrong seat's reader" in prompt.text and prompt.options[0] == buy
    assert {"type": "forget_taps"} in prompt.options and KEEP in prompt.options
    entry = table.declare(prompt.options[0])
    assert entry is not None and entry.action == buy and table.taps == []
    assert disagreement_prompts(table) == []


def test_king_of_clubs_a_clearing_the_camera_missed_is_recorded_from_the_next_nights_table() -> None:
    """King of Clubs seed 2, cafe, passive players: a hand stayed over the table while the
    night was cleared and the next Nightclubs laid, so the camera never saw the bare table.
    It saw the next night's Nightclubs with A's Dancers face down for them: that is the
    clearing, the Nightclubs and A's placement, recorded one after another (before, the
    table stood at "Night over: take every card off the table" with a warning whose only
    ways out were "the record is right" and "read the table again")."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 2, resume=False)
    game = table.game
    while table.state["phase"] != "night_over":
        table.declare(game.legal_actions(table.state)[0])
    night = table.state["night"]
    truth = game.apply(table.state, {"type": "clear"})
    clubs = [v + 1 if v < max(game.club_values) else v - 1 for v in table.state["clubs"]]
    truth = game.apply(truth, {"type": "nightclubs", "values": clubs})
    truth = game.apply(truth, {"type": "place", "player": 0})
    table.board_seen(game.board_view(truth))
    recorded = [h.action["type"] for h in table.history[-3:]]
    assert recorded == ["clear", "nightclubs", "place"], recorded
    assert table.state == truth and table.state["night"] == night + 1
    assert table.table_prompt is None


def test_king_of_clubs_a_night_still_on_the_table_is_not_taken_for_cleared() -> None:
    """The night's Dancers still turned up, or its own Nightclubs with the Dancers gone
    (a table half cleared): nothing is recorded."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 2, resume=False)
    game = table.game
    while table.state["phase"] != "night_over":
        table.declare(game.legal_actions(table.state)[0])
    over = table.state
    view = game.board_view(over)
    half = {k: v for k, v in view.items() if k.startswith(("club", "points", "lead"))}
    misread = {**view, "club0": (Piece(game.colours["nightclub"], over["clubs"][0] % 7 + 1),)}
    for seen in (half, misread):
        table.board_seen(seen)
        assert table.state == over


def test_king_of_clubs_two_dances_revealed_while_the_camera_was_blocked_are_recorded_in_order() -> None:
    """King of Clubs seed 2, cafe, passive: a hand over the board hid Solo 4's reveal, and
    the camera next saw Solo 4's and Solo 5's cards face up; the table refused "Solo 4:
    A 3, A 4, B 2, B 3: ... Solo 4 is revealed first" and the night stood still.  The board
    shows this dance's reveal and the next one's: recorded one after the other."""
    import random

    table = Table.open("king_of_clubs", None, 2, "advanced", 1, resume=False)
    game, rng = table.game, random.Random(1)
    for _ in range(300):
        state = table.state
        reveals = [a for a in game.legal_actions(state) if a["type"] == "reveal"]
        if state["phase"] == "reveal" and reveals and game.apply(state, reveals[0])["phase"] == "reveal":
            break
        table.declare(rng.choice(game.legal_actions(state)))
    else:
        raise AssertionError("no two reveals in a row in 300 moves")
    first = game.apply(table.state, reveals[0])
    second = next(a for a in game.legal_actions(first) if a["type"] == "reveal")
    truth = game.apply(first, second)
    table.board_seen(game.board_view(truth))
    assert [h.action for h in table.history[-2:]] == [reveals[0], second]
    assert table.state == truth and table.table_prompt is None


def _ts_two_plays(table: Table) -> tuple[dict, dict]:
    """Times Square: a play of the player to move, then one of the other, each its cards
    tapped and figures moved, that a press reads from its own board and cards."""
    from companion.reconcile import changed_places, reconcile

    game, state = table.game, table.state
    for first in game.legal_actions(state)[:200]:
        if first["type"] != "play":
            continue
        after = game.apply(state, first)
        if after["phase"] == "charlie" or after["turn"] == state["turn"]:
            continue
        taps = [Tap(c, state["turn"]) for step in first["steps"] for c in step["cards"]]
        if reconcile(game, state, game.board_view(after), taps, "button").state != after:
            continue
        for second in game.legal_actions(after)[:200]:
            if second["type"] != "play" or game.apply(after, second)["phase"] == "charlie":
                continue
            board = game.board_view
            mine = changed_places(board(state), board(after))
            theirs = changed_places(board(after), board(game.apply(after, second)))
            if mine and theirs and not mine & theirs:  # each move shows on the table
                return first, second
    raise AssertionError("no two plays in a row")


def test_a_press_held_while_the_next_player_moves_is_judged_on_its_own_cards() -> None:
    """Times Square seed 1, cafe, passive: A's hand rested on the board after A's move, so
    A's press was held; B played meanwhile, and the board the camera settled on showed both.
    The press was asked about as a forgotten press (one tap on the tablet: a declaration),
    and 25 % of the game's actions were declared.  The press's own cards and the board its
    move leaves read A's move; B's cards, tapped after the press, stay for B's press."""
    from companion.games.base import Tap as _Tap

    table = Table.open("times_square", None, 2, None, 1, resume=False)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "setup"))
    table.board_seen(game.board_view(table.state))
    table.frame_taken()
    first, second = _ts_two_plays(table)
    a, b = table.state["turn"], 1 - table.state["turn"]
    for step in first["steps"]:
        for card in step["cards"]:
            table.tap(card, a)
    table.notice("vision", Prompt("Hand over the board: waiting.", "info"))
    assert table.button(a) is None  # held: A's hand rests on the board
    for step in second["steps"]:
        for card in step["cards"]:
            table.tap(card, b)
    table.notice("vision", None)
    after = game.apply(table.state, first)
    truth = game.apply(after, second)
    table.board_seen(game.board_view(truth))
    assert table.state == after and table.history[-1].source == "table"
    assert [t.card for t in table.taps] == [c for s in second["steps"] for c in s["cards"]]
    assert all(isinstance(t, _Tap) for t in table.taps)
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button(b)
    assert table.state == truth


def _ts_first_move_tapped() -> tuple[Table, Action, Action]:
    """Times Square seed 1 set up and seen, and the first of two plays' cards tapped on its
    mover's reader (the board not moved yet): the table, that play and the next."""
    table = Table.open("times_square", None, 2, None, 1, resume=False)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "setup"))
    table.board_seen(game.board_view(table.state))
    table.frame_taken()
    first, second = _ts_two_plays(table)
    for card in [c for step in first["steps"] for c in step["cards"]]:
        table.tap(card, table.state["turn"])
    return table, first, second


def test_a_held_press_is_judged_on_its_own_cards_when_the_next_players_cards_came_first() -> None:
    """Times Square seed 1 again: the board settled on A's move, but B had tapped cards for
    the next move by then; A's press, judged with B's cards too, read no move and was asked
    about.  The press is read with the cards tapped before it; B's wait for B's press."""
    table, first, second = _ts_first_move_tapped()
    game = table.game
    a, b = table.state["turn"], 1 - table.state["turn"]
    table.notice("vision", Prompt("Hand over the board: waiting.", "info"))
    assert table.button(a) is None
    later = [c for step in second["steps"] for c in step["cards"]]
    for card in later:
        table.tap(card, b)
    table.notice("vision", None)
    after = game.apply(table.state, first)
    table.board_seen(game.board_view(after))  # A's move only: B has not moved a figure yet
    assert table.state == after and [t.card for t in table.taps] == later


def test_a_card_on_the_next_players_reader_ends_a_move_whose_press_was_forgotten() -> None:
    """Times Square seed 3, cafe, passive: A's press was forgotten after A's move; B tapped
    cards on B's reader and moved, and B's press read all five cards as one move of A's (the
    record a turn behind, the game wedged later).  A card on B's reader ends A's move: the
    cards on A's reader and the board read it, and B's move is B's press's."""
    table, first, second = _ts_first_move_tapped()
    game = table.game
    b = 1 - table.state["turn"]
    after = game.apply(table.state, first)
    table.board_seen(game.board_view(after))  # A's move on the table; A's press never made
    assert table.state != after
    later = [c for step in second["steps"] for c in step["cards"]]
    table.tap(later[0], b)
    assert table.state == after and table.history[-1].source == "table"
    for card in later[1:]:
        table.tap(card, b)
    assert [t.card for t in table.taps] == later
    truth = game.apply(after, second)
    table.board_seen(game.board_view(truth))
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button(b)
    assert table.state == truth


def test_a_card_on_the_next_players_reader_records_nothing_the_board_does_not_show() -> None:
    """The same card on B's reader before A's figures moved (a card laid on the wrong reader
    mid-move): nothing is recorded for A."""
    table = Table.open("times_square", None, 2, None, 1, resume=False)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "setup"))
    table.board_seen(game.board_view(table.state))
    table.frame_taken()
    first, _second = _ts_two_plays(table)
    a, b = table.state["turn"], 1 - table.state["turn"]
    before = table.state
    cards = [c for step in first["steps"] for c in step["cards"]]
    for card in cards[:-1]:
        table.tap(card, a)
    table.tap(cards[-1], b)
    assert table.state == before and len(table.taps) == len(cards)


def test_king_of_clubs_cards_laid_and_turned_up_while_a_hand_hid_the_table_are_both_recorded() -> None:
    """King of Clubs seed 4, cafe, passive: a hand rested over the board while B laid their
    cards, and the camera next saw them with a card already turned up.  Five cards with one
    face up were no placement, and the reveal waited for one: nothing was recorded, and the
    record fell a night behind.  The placement is read with one card turned up, and the
    reveal from the same board after it; two turned up are no placement."""
    game = Table.open("king_of_clubs", None, 2, "advanced", 4, resume=False).game
    start = game.start(2, "advanced", 4)
    for clubs in game.legal_actions(start):  # a night whose first dance is a Solo
        state, moves = start, [clubs]
        state = game.apply(state, clubs)
        for kind in ("place", "place", "reveal"):
            move = next(a for a in game.legal_actions(state) if a["type"] == kind)
            moves.append(move)
            state = game.apply(state, move)
        if len(moves[-1]["cards"]) == 2:
            break
    else:
        raise AssertionError("no night with a Solo first")
    boards, truth = [], start
    for move in moves:
        truth = game.apply(truth, move)
        boards.append(game.board_view(truth))
    table = Table.open("king_of_clubs", None, 2, "advanced", 4, resume=False)
    table.board_seen(boards[0])
    table.board_seen(boards[1])
    assert len(table.history) == 2
    table.board_seen(boards[3])  # B's cards down and the dance's turned up, seen at once
    assert [h.action["type"] for h in table.history] == ["nightclubs", "place", "place", "reveal"]
    assert table.state == truth and table.table_prompt is None
    placed_a = game.apply(game.apply(start, moves[0]), moves[1])
    up = dict(boards[3])
    turned = next(k for k in sorted(up) if k.startswith("p1_") and up[k] != boards[2][k])
    down = next(k for k in sorted(up) if k.startswith("p1_") and up[k] == boards[2][k])
    up[down] = up[turned]
    assert game.explain(placed_a, up, [], "board") == []


def test_king_of_clubs_a_nightclub_the_camera_never_reads_is_asked_by_its_readings_then_vouched() -> None:
    """King of Clubs seed 5, cafe, every kind of players: glare on Nightclub 4 all night
    ("Can't see Nightclub 4 clearly: marks unclear") held every board and every press, and
    the tablet showed only that notice: the game wedged.  A doubt that stands is a warning
    naming the place, with the readings the table may show one tap each; nothing is recorded
    before the tap.  The reading tapped vouches for the card while the record keeps it: the
    Dancers laid next are read from the camera with that Nightclub as the record has it."""
    from companion.table.doubt import DOUBT_FRAMES, VOUCHED_FRAMES

    table = Table.open("king_of_clubs", None, 2, "advanced", 5, resume=False)
    game = table.game
    clubs = {"type": "nightclubs", "values": [6, 4, 2, 2]}  # seed 5: the 2 is where no sorted set puts it
    truth = game.apply(table.state, clubs)
    glare = {"club3": "marks unclear"}

    def frames(view: BoardView, count: int) -> None:
        partial = {p: s for p, s in view.items() if p not in glare}
        for _ in range(count):
            table.frame_taken()
            table.board_doubted(partial, glare)

    frames(game.board_view(truth), DOUBT_FRAMES - 1)
    assert table.table_prompt is None and not table.history  # not asked at once: a moment's glare
    frames(game.board_view(truth), 1)
    asked = table.table_prompt
    assert asked is not None and asked.kind == "warning" and "Nightclub 4" in asked.text, asked
    assert clubs in asked.options and len(asked.options) > 1, asked.options  # never a guess
    assert not table.history
    table.declare(clubs)
    assert table.state == truth and table.table_prompt is None
    placed = game.apply(truth, {"type": "place", "player": 0})
    frames(game.board_view(placed), VOUCHED_FRAMES)
    assert table.history[-1].action["type"] == "place" and table.history[-1].source == "camera"
    assert table.state == placed and table.table_prompt is None
    table.board_doubted(game.board_view(placed), {})  # the glare gone: the doubt with it
    assert table.referee.doubt.view is None


def test_a_held_press_recorded_on_a_settled_board_raises_no_tally_warning_before_its_chores() -> None:
    """Jivecat seed 1, cafe, typical: Red's press for a drink was held under a hand and
    judged on the board that settled once the hand was gone; the drink was recorded, and in
    the same breath the score pieces were checked against it ("Red: Skulls 6 on the table, 5
    in the record"), before the players could pay: the warning stood, they straightened and
    pressed again, and the press recorded "Red ends the turn".  A move just recorded by a
    held press has its chores still to do: no tally warning on that board."""
    from companion.sim.headless import deliver
    from companion.sim.world import BoardChange, CardTap, TurnButton, load_world
    from companion.sim.worldproc import as_seen

    table = Table.open("jivecat", None, 3, None, 1, resume=False)
    world = load_world("jivecat", table.game, 3, None, 1)
    for event in world.start():
        deliver(table, event, [])
    checked = 0
    for _ in range(400):
        events = world.act(as_seen(table.public(), world.wording()))
        pressed = any(isinstance(e, TurnButton) for e in events) and table.game.phase(table.state) == "play"
        if not pressed:
            for event in events:
                deliver(table, event, [])
            continue
        before = len(table.history)
        table.notice("vision", Prompt("Hand over the board: waiting.", "info"))  # a hand over it
        for event in events:
            if not isinstance(event, BoardChange):
                deliver(table, event, [])
        assert len(table.history) == before and table.referee.held_press is not None
        table.notice("vision", None)  # the hand lifted: the board the move left settles
        boards = [e.view for e in events if isinstance(e, BoardChange)]
        table.board_seen(boards[-1])
        if len(table.history) > before and any(isinstance(e, CardTap) for e in events):
            assert "tally" not in table.notices, table.notices["tally"].text
            checked += 1
        if checked >= 3:
            break
    assert checked >= 3, "no drinks pressed in 400 steps"


def _ts_move_onto_a_piece(table: Table) -> tuple[Action, str, list[Tap]]:
    """Times Square: a legal move that lays a figure on a place already holding one, which a
    press reads from its cards and the board; the move, that place and its taps."""
    from companion.reconcile import reconcile

    game = table.game
    board = game.board_view(table.state)
    for action in game.legal_actions(table.state):
        after = game.board_view(game.apply(table.state, action))
        joined = [p for p in board if len(after.get(p, ())) == len(board[p]) + 1
                  and set(board[p]) <= set(after.get(p, ()))]
        taps = [Tap(c, action.get("player")) for st in action.get("steps", []) for c in st.get("cards", [])]
        if joined and reconcile(game, table.state, after, taps, "button").action == action:
            return action, joined[0], taps
    raise AssertionError("no move that lays a piece beside another")


def test_a_piece_set_aside_as_misread_is_read_as_the_players_said_when_another_joins_it() -> None:
    """Times Square seed 13, cafe, passive: the sewer's pink piece was read blue all
    evening; the players tapped that the record is right.  When Deb was moved into the
    sewer the camera read "blue, green" there, the set-aside reading lapsed, Deb's move was
    explained by nothing and the game wedged.  The pink piece the camera reads blue is read
    pink beside Deb too, and Deb's move is recorded from the camera."""
    table = played("times_square", 6, 13)
    game = table.game
    board = game.board_view(table.state)
    action, place, taps = _ts_move_onto_a_piece(table)
    after = game.board_view(game.apply(table.state, action))
    colours = {q.colour for s in after.values() for q in s}
    (old,) = board[place][-1:]
    wrong = next(Piece(c, old.pips) for c in sorted(colours) if c != old.colour
                 and Piece(c, old.pips) not in after[place])
    misread = {**board, place: tuple(sorted((*board[place][:-1], wrong)))}
    table.board_seen(misread)
    table.button()
    assert KEEP in (table.table_prompt.options if table.table_prompt else []), table.table_prompt
    table.declare(KEEP)
    recorded = len(table.history)
    seen_after = dict(after)
    rest = list(after[place])
    rest.remove(old)
    seen_after[place] = tuple(sorted((*rest, wrong)))
    for tap in taps:
        table.tap(tap.card, tap.seat)
    table.board_seen(seen_after)
    table.button()
    from companion.table.ledger import canonical

    standing = [h for h in table.history if not h.undone]
    assert len(table.history) > recorded and standing[-1].action == canonical(action), \
        (table.table_prompt, standing[-1].text)


def test_king_of_clubs_a_nightclub_misread_nights_ago_is_named_and_corrected_by_one_tap() -> None:
    """Glare reads Nightclub 2's 5 as a 4 all night ("Nightclubs 6, 4, 4, 7" recorded for
    6, 5, 4, 7): the record has a Couples 4+4 the table has not.  The refusal of the first
    reveal names that older entry and offers the table's reading as one tap, though the
    camera still reads the card wrong; the moves since stand."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 0)
    game = table.game
    glare = (Piece(game.colours["nightclub"], 4),)
    truth = game.apply(table.state, {"type": "nightclubs", "values": [6, 5, 4, 7]})
    entry = table.board_seen({**game.board_view(truth), "club1": glare})
    assert entry is not None and entry.action == {"type": "nightclubs", "values": [6, 4, 4, 7]}
    for _ in range(3):  # both seats place their Dancers, then the first dance is revealed
        truth = game.apply(truth, game.legal_actions(truth)[0])
        before = table.state
        table.board_seen({**game.board_view(truth), "club1": glare})
        if table.state == before:
            table.button()
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "warning"
    assert f"Entry #{table.ledger.move_number(entry.seq)} (Night 1: Nightclubs 6, 4, 4, 7" in prompt.text
    fix = {"type": "correct", "entry": entry.seq, "action": {"type": "nightclubs", "values": [6, 5, 4, 7]}}
    assert fix in prompt.options and KEEP in prompt.options
    table.declare(fix)
    assert table.state == truth
    assert disagreement_prompts(table) == []


def test_a_place_left_out_as_misread_still_needs_its_pieces_counted() -> None:
    """A reveal's other reading "explains" a table only where the camera may misread a card's
    value: a Move card laid on that Dancer since (its tap on the wrong seat's reader) is an
    extra piece, not a misread, so no reveal is offered as its correction."""
    from companion.table.search import fits
    table = Table.open("king_of_clubs", None, 2, "advanced", 0)
    game = table.game
    while table.state["phase"] != "reveal":
        table.declare(game.legal_actions(table.state)[0])
    revealed = game.apply(table.state, game.legal_actions(table.state)[0])
    board = game.board_view(revealed)
    laid = frozenset(changed_places(game.board_view(table.state), board))
    place = next(p for p in sorted(laid) if board.get(p))
    first = board[place][0]
    other_value = {**board, place: (Piece(first.colour, first.pips % 4 + 1), *board[place][1:])}
    assert fits(game, revealed, other_value, [], laid)  # a card read as another value
    card_laid = {**board, place: (*board[place], Piece(game.colours["move"], 1))}
    assert not fits(game, revealed, card_laid, [], laid)  # a piece more is not a misread


def test_a_place_the_camera_misreads_all_evening_is_read_from_the_rest_of_the_board() -> None:
    """Times Square seed 6, cafe, passive: space 10's top figure was read as the next colour
    all evening (a Bodyguard read yellow; with Hal laid on it, "black, black").  The players
    tapped once that the record is right, but each reading after it was another, and 16 of
    the game's 32 entries were declared on the tablet.  The figures only move in Times
    Square, so a place the players said is misread holds what the rest of the board lacks:
    the move onto it is recorded from the camera and the cards."""
    from companion.table.ledger import canonical

    table = played("times_square", 6, 13)
    game = table.game
    colours = sorted(game.layout(table.state).pieces)

    def misreadings(stack: tuple[Piece, ...]) -> list[tuple[Piece, ...]]:
        """The place with one of its figures read as another of the game's colours."""
        return [tuple(sorted((*stack[:i], Piece(c), *stack[i + 1:])))
                for i in range(len(stack)) for c in colours if c != stack[i].colour]

    board = game.board_view(table.state)
    action, place, taps = _ts_move_onto_a_piece(table)
    after = game.board_view(game.apply(table.state, action))
    first = misreadings(board[place])[0]
    # read otherwise with the figure laid beside it: no piece of the first reading's wrong colour
    then = next(m for m in misreadings(after[place]) if not set(first) - set(board[place]) <= set(m))
    table.board_seen({**board, place: first})
    table.button()
    table.declare(KEEP)
    assert not differing(game, table.state, table.seen)
    recorded = len(table.history)
    for tap in taps:
        table.tap(tap.card, tap.seat)
    table.board_seen({**after, place: then})
    table.button()
    assert len(table.history) == recorded + 1 and table.history[-1].action == canonical(action), \
        (table.table_prompt, table.history[-1].text)
    assert table.history[-1].source == "table" and table.table_prompt is None


def test_a_card_its_reader_missed_laid_again_when_asked_records_the_pressed_move() -> None:
    """Times Square seed 8, cafe, passive: Deb 3 missed B's reader, the press found no move in
    Deb 2 and the board, and the players declared the whole move on the tablet.  The warning
    asks for a card played that is not among the cards read; laid again, the press that
    raised the warning is judged with it and the move is recorded from the table."""
    from companion.table.disagreement import NOT_READ

    table = Table.open("times_square", None, 2, None, 8, resume=False)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "setup"))
    table.board_seen(game.board_view(table.state))
    table.frame_taken()
    state, mover = table.state, table.state["turn"]
    play = next(a for a in game.legal_actions(state) if a["type"] == "play"
                and a["steps"][0]["figure"] == "deb" and game.apply(state, a)["turn"] != mover)
    (card,) = play["steps"][0]["cards"]
    other = next(c for c in game.card_ids() if c.startswith("deb-") and c != card
                 and game.data.cards[c].value == game.data.cards[card].value)
    both = {**play, "steps": [{**play["steps"][0], "cards": [card]}, {**play["steps"][0], "cards": [other]}]}
    play = both if game.is_legal(state, both) else play
    cards = [c for step in play["steps"] for c in step["cards"]]
    after = game.apply(state, play)
    for c in cards[1:]:
        table.tap(c, mover)  # the first card missed the reader
    table.board_seen(game.board_view(after))
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    assert table.state == state and table.table_prompt is not None and NOT_READ in table.table_prompt.text
    table.tap(cards[0], mover)
    recorded = table.state  # the cards in the order they were read: the same turn
    assert recorded["pos"] == after["pos"] and sorted(recorded["discard"]) == sorted(after["discard"])
    assert table.history[-1].source == "table" and table.table_prompt is None


@pytest.mark.parametrize(("seed", "moves", "figure", "cards", "direction"),
                         [(1, 2, "deb", ("deb-1a", "deb-3a"), 1),  # was "B plays Deb 1 ..., then another"
                          (6, 3, "bodyguard_left", ("bodyguard-2b", "bodyguard-1a"), 1)])  # "A lures"
def test_a_card_its_reader_missed_is_never_offered_as_two_moves(
        seed: int, moves: int, figure: str, cards: tuple[str, str], direction: int) -> None:
    """Times Square, cafe: a figure moved by two cards, the first missed by the reader.  The
    tablet offered "the table shows two moves made since the record's last" with a first move
    no one made (a card no reader read, or a lure followed by the next player's move from a
    card on the mover's own reader).  It offers only moves the cards read support, asks for
    the card missed, and the card laid again records the move."""
    from companion.table.disagreement import NOT_READ

    table = played("times_square", moves, seed)
    game, state = table.game, table.state
    mover = game.current_player(state)
    play = {"type": "play", "player": mover,
            "steps": [{"cards": [card], "figure": figure, "direction": direction} for card in cards]}
    assert game.is_legal(state, play)
    after = game.apply(state, play)
    table.tap(cards[1], mover)  # the first card missed the reader
    table.board_seen(game.board_view(after))
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    prompt = table.table_prompt
    assert prompt is not None and table.state == state and NOT_READ in prompt.text
    assert "two moves" not in prompt.text
    assert not [o for o in prompt.options if "player" in o or o.get("type") == "correct"], prompt.options
    table.tap(cards[0], mover)  # laid again, as the warning asks
    assert table.state["pos"] == after["pos"] and table.table_prompt is None


@pytest.mark.parametrize("stray", [True, False])
def test_a_press_whose_move_the_players_declared_records_nothing_more_later(stray: bool) -> None:
    """Jivecat seed 2, cafe, passive: Blue's press for a drink was refused (a card on the wrong
    seat's reader); Blue tapped the drink as meant, the press was judged again on a table
    whose chores were not done yet and held once more; when the Skull card was collected the
    held press "fitted" and recorded "Blue ends the turn", and Blue's next drink was read as a
    Staff card flipped: the game wedged.  With the chores done, the press judged again at
    once recorded "Yellow ends the turn" (later in the same game).  A press the players
    answered by declaring its move is judged again only while the table shows more than the
    record, and once: then it is spent."""
    table = Table.open("jivecat", None, 3, None, 3)
    game = table.game
    buy = _until_a_drink(table, 1)
    state = table.state
    bought = game.board_view(game.apply(state, buy))
    empty = next(s for s in sorted(game.board.lizards) if s not in bought)
    chip = next(p for s, pieces in sorted(bought.items()) if s in game.board.lizards for p in pieces)
    table.board_seen({**bought, empty: (chip,)} if stray else bought)  # a chip laid aside too?
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    table.button()
    assert table.ledger.state == state and KEEP in table.table_prompt.options
    table.declare(buy)  # the players tap their drink on the tablet
    assert table.history[-1].action == buy
    table.board_seen(bought)  # the stray chip taken off: the table is the record
    assert table.history[-1].action == buy and table.ledger.state == game.apply(state, buy), \
        table.history[-1].text


def test_a_card_on_the_next_players_reader_ends_a_charlie_move_the_record_waits_for() -> None:
    """Times Square seed 13, cafe, passive: B's Charlie was knocked a space back as B pressed,
    so the record took B's Charlie move a space short; A's move put him back and moved him,
    and the record, seeing Charlie where it had him, still waited for A's Charlie move.  B's
    card on B's reader ends A's turn: A's Charlie move is read from the board (no space),
    and B's move is B's press's."""
    table = Table.open("times_square", None, 2, None, 13, resume=False)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "setup"))
    for _ in range(40):  # moves declared until one leaves Charlie's move due
        dues = [a for a in game.legal_actions(table.state) if "charlie" in a]
        if dues:  # the move made, Charlie not moved yet
            table.declare({k: v for k, v in dues[0].items() if k != "charlie"})
            break
        table.declare(game.legal_actions(table.state)[0])
    assert table.state["phase"] == "charlie", "no move that leaves Charlie's move due"
    a, b = table.state["turn"], 1 - table.state["turn"]
    table.board_seen(game.board_view(table.state))  # A's Charlie where the record has him
    table.frame_taken()
    card = game.card_ids()[0]
    table.tap(card, b)
    assert table.history[-1].action == {"type": "charlie", "player": a, "spaces": 0}
    assert table.history[-1].source == "table" and table.state["turn"] == b
    assert [t.card for t in table.taps] == [card]


def test_a_move_whose_press_was_forgotten_then_a_trade_on_the_shared_reader_are_two_moves() -> None:
    """Times Square seed 17, cafe, passive: B's Deb card moved Sue, B's press forgotten; A
    traded three cards on the shared reader and pressed.  The press read B's card and A's
    as one move of B's, none; the tablet offered no move to tap, and B's move was never
    recorded (the game wedged).  The second move is read from the cards on its mover's
    reader or the shared one: the tablet asks about two moves, and the players' one tap on
    the first keeps the trade's cards for the press, which records the trade."""
    table, first, _second = _ts_first_move_tapped()
    game = table.game
    a, b = table.state["turn"], 1 - table.state["turn"]
    after = game.apply(table.state, first)
    table.board_seen(game.board_view(after))  # A's move on the table; A's press never made
    for _ in range(DOUBLE_PRESS_FRAMES):
        table.frame_taken()
    trade = next(x for x in game.legal_actions(after) if x["type"] == "trade" and len(x["cards"]) == 1)
    for card in trade["cards"]:
        table.tap(card, None)  # the shared reader: a trade is anyone's card there
    table.button(b)
    prompt = table.table_prompt
    assert prompt is not None and "two moves" in prompt.text, prompt
    assert prompt.options[0] == first
    table.declare(prompt.options[0])
    assert table.state == game.apply(after, trade) and table.table_prompt is None
    assert [(h.source, h.action["player"]) for h in table.history[-2:]] == [("tablet", a), ("table", b)]


def test_a_card_its_reader_missed_is_never_explained_by_an_older_entry_with_other_cards() -> None:
    """Times Square, cafe (seed 12, passive): A moves the left Bodyguard 1 and 2 toward A,
    both cards read; B moves it back 1 and 2, the first card missed.  The tablet offered to
    correct A's entry to "A plays Bodyguard 2" (a card no reader read for it) and, that
    ruled out, to undo A's entry as never made (B's card on B's reader says it was made).
    It asks for the card missed instead, and the card laid again records B's move."""
    from companion.table.disagreement import NOT_READ

    table = played("times_square", 1, 1)
    game = table.game
    def bodyguard(player: int, cards: tuple[str, str], direction: int) -> dict:
        return {"type": "play", "player": player,
                "steps": [{"cards": [card], "figure": "bodyguard_left", "direction": direction}
                          for card in cards]}

    first = bodyguard(0, ("bodyguard-1a", "bodyguard-2a"), -1)
    second = bodyguard(1, ("bodyguard-1b", "bodyguard-2b"), 1)
    for play, missed in ((first, False), (second, True)):
        assert game.is_legal(table.state, play)
        after = game.apply(table.state, play)
        cards = [step["cards"][0] for step in play["steps"]]
        for card in cards[1:] if missed else cards:
            table.tap(card, play["player"])
        table.board_seen(game.board_view(after))
        for _ in range(DOUBLE_PRESS_FRAMES):
            table.frame_taken()
        table.button()
    prompt = table.table_prompt
    assert prompt is not None and NOT_READ in prompt.text and "explains it" not in prompt.text, prompt.text
    assert [o["type"] for o in prompt.options] == ["keep_record", "reread", "forget_taps"]
    table.tap("bodyguard-1b", 1)
    assert table.state["pos"] == after["pos"] and table.table_prompt is None
    assert [h.source for h in table.history[-2:]] == ["table", "table"]


@pytest.mark.parametrize("later_on_next_reader", [True, False])
def test_a_held_press_with_the_next_move_under_way_reads_it_only_from_the_next_movers_cards(
        later_on_next_reader: bool) -> None:
    """``press_then_next`` read the move under way with every card tapped since the press,
    whoever's reader it lay on (first_moves ignored seats for the second move): where each
    seat has its own reader, the second move is read only from the next mover's cards (or
    the shared reader's), as the offer of two moves does."""
    from companion.table.presses import press_then_next

    table, first, second = _ts_first_move_tapped()
    game, state = table.game, table.state
    a, b = state["turn"], 1 - state["turn"]
    truth = game.apply(game.apply(state, first), second)
    earlier = [Tap(c, a) for step in first["steps"] for c in step["cards"]]
    later = [Tap(c, b if later_on_next_reader else a) for step in second["steps"] for c in step["cards"]]
    found = press_then_next(game, state, game.board_view(truth), earlier, later)
    assert found == (first if later_on_next_reader else None)
