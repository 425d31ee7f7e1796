"""A die (a card's pips) the camera can never read: a doubt that names the place, which players
who only answer the tablet answer, and the game goes on (issue 39: no wedge; "confident or
silent": the reader never commits a place it is not sure of).

The README's demo (King of Clubs, 2 players, advanced, seed 4) wedged when the camera doubted
one flat red 3 (stop 53, a die-layout rule of the reader's): B's pass was held under the
doubt, the tablet asked "Can't read B at Nightclub 3 ...: Tap the move the table shows" with
B's pass as one tap, and beside it said "Press noted: it counts once the camera sees the table
clear of hands".  The players waited, went on with the next dance, and the game never ended.
"""

from __future__ import annotations

from typing import Any

import pytest
from doubting_camera import Played, nightclubs_under_glare, play_doubted

from companion.games.base import Prompt
from companion.sim.runner import asks_a_move
from companion.table import HELD_PRESS_TEXT, Table
from companion.table.doubt import DOUBT_FRAMES
from companion.table.presses import HELD_PRESS_ASKED_TEXT


def showing(colour: str, pips: int) -> Any:
    """The places holding a piece of ``colour`` showing ``pips``."""
    return lambda place, stack: any(p.colour == colour and p.pips == pips for p in stack)


def ends_right(played: Played, asked: str = "Tap the move the table shows") -> None:
    """The doubt was asked (its readings one tap each, no two buttons worded alike), and the
    game ended with the world's winners and scores, nothing refused."""
    tablet = played.tablet
    assert played.doubted_frames and any(asked in a for a in played.asked), played.asked
    assert played.alike == [], played.alike
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]
    assert played.refusals == []


@pytest.mark.parametrize("seed", [1, 4])
@pytest.mark.parametrize("players", ["passive", None])
def test_king_of_clubs_a_red_3_never_read_is_asked_and_answered_and_the_game_ends_right(
        seed: int, players: str | None) -> None:
    """B's red 3 (a Dancer's pips) unreadable all evening: every reading that needs it is
    asked as a warning naming the place, with the moves the table may show as taps; players
    who only answer the tablet (passive, and the demo's, who read every line) tap the one
    their table shows: a pass they pressed for, a dance's Dancers they turned up.  The game
    ends with the world's winners and points."""
    ends_right(play_doubted("king_of_clubs", 2, "advanced", seed, showing("red", 3), players))


def test_swing_state_a_die_whose_5_is_never_read_is_asked_and_the_game_ends_right() -> None:
    """Swing State seed 2: the vote die's 5 unreadable all evening.  The roll the players tapped
    vouches for the die as the record has it; the board set against the record after the tap
    was the one committed before the doubt (the die picked up), which read as the next
    player's picking it up: every move after it was "Nothing to record yet", over budget.
    Now the board seen after the tap is the table read now, the die as tapped."""
    ends_right(play_doubted("swing_state", 3, None, 2, showing("white", 5), "passive"))


def test_baron_voodoo_a_die_never_read_at_a_random_set_up_is_asked_by_its_face() -> None:
    """Baron Voodoo seed 4, the set-up rolled at random, its blue 3 unreadable all evening: the
    set-ups the table may show were offered as six buttons all reading "Set-up: random layout,
    48 dice on the grid", told apart by that die alone, which a person cannot do (a tap among
    them is a guess).  Readings that read alike are asked by what the place holds instead
    ("A5 blue shows blue (3)", one tap each), and the game ends with the world's scores."""
    ends_right(play_doubted("baron_voodoo", 2, None, 4, showing("blue", 3), "passive"),
               "Tap what the table shows there")


def test_baron_voodoo_a_die_with_more_contents_than_taps_is_asked_by_its_colour_then_its_face() -> None:
    """Baron Voodoo seed 1, the set-up rolled at random, the red 3s never read: A7 may hold
    any of 29 dice by the rules, cut at 12 taps, and red (3) was not among them; the players
    had nothing to tap, and the game never left its set-up (126 steps, no entry).  Asked in
    two taps, its colour ("A7 red shows red (?)") and then its face, the game ends right."""
    played = play_doubted("baron_voodoo", 2, None, 1, showing("red", 3), "passive")
    ends_right(played, "Tap what the table shows there, its colour first")


def test_two_places_never_read_are_asked_one_at_a_time_by_what_they_hold() -> None:
    """Two Nightclubs under glare: more readings of the night's Nightclubs than the tablet
    shows as taps (the one the table shows was cut off: 6, 4, 2, 2 was not among them).
    Asked one place at a time by what it may hold; a place said is read so, and the readings
    left are offered as moves once they are few enough to show."""
    from companion.table.doubt import READS

    table, clubs, frames = nightclubs_under_glare()

    frames(DOUBT_FRAMES)
    asked = table.table_prompt
    assert asked is not None and asked.options and all(o["type"] == READS for o in asked.options), asked
    assert "Tap what the table shows there: Nightclub 3 shows" in asked.text, asked.text
    answer = next(o for o in asked.options if o["places"] == {"club2": [["orange", 2]]})
    assert answer["says"] == "Nightclub 3 shows orange (2)"
    table.declare(answer)
    frames(1)  # Nightclub 3 read as said: the readings left are few enough to offer as moves
    asked = table.table_prompt
    assert asked is not None and "Can't read Nightclub 4 (" in asked.text and clubs in asked.options, asked
    assert not table.history
    table.declare(clubs)
    assert [h.action for h in table.history] == [clubs]


def test_a_press_held_under_an_asked_doubt_says_it_waits_for_the_tap() -> None:
    """While the doubt's warning offers the pressed move as a tap, the held press's notice says
    it counts as the move tapped, not "once the camera sees the table clear of hands" (the
    camera never will); once the place reads clearly again, the press waits on the camera."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 5, resume=False)
    game = table.game
    clubs = {"type": "nightclubs", "values": [6, 4, 2, 2]}
    view = game.board_view(game.apply(table.state, clubs))
    glare = {"club3": "marks unclear"}
    partial = {p: s for p, s in view.items() if p not in glare}

    def notices() -> list[str]:
        return [str(p["text"]) for p in table.public()["prompts"] if p["kind"] == "info"]

    table.notice("vision", Prompt("Can't see Nightclub 4 clearly: marks unclear", "info"))
    table.frame_taken()
    table.board_doubted(partial, glare)
    table.button()  # held: the camera cannot read the table
    assert table.referee.held_press is not None and HELD_PRESS_TEXT in notices()
    for _ in range(DOUBT_FRAMES):
        table.frame_taken()
        table.board_doubted(partial, glare)
    asked = table.table_prompt
    assert asked is not None and asked.options and "Nightclub 4" in asked.text, asked
    assert HELD_PRESS_ASKED_TEXT in notices() and HELD_PRESS_TEXT not in notices()
    table.notice("vision", None)
    table.board_doubted(view, {})  # the glare gone: the camera judges the press once it settles
    assert table.referee.held_press is not None and HELD_PRESS_TEXT in notices()
    assert HELD_PRESS_ASKED_TEXT not in notices()


def test_a_step_the_tablet_answers_with_a_question_is_told_apart_from_a_stall() -> None:
    """The demo's runner counts a step that recorded nothing because the tablet offers moves
    as taps (answered at the next step) as a question, not a stall; the table's own ways out
    alone ("the record is right", "read the table again") ask no move."""
    move = {"kind": "warning", "text": "Can't read ...", "options": [{"type": "pass", "player": 1}]}
    own = {"kind": "warning", "text": "The table does not match the record ...",
           "options": [{"type": "keep_record"}, {"type": "reread"}]}
    assert asks_a_move({"prompts": [own, move]}) and not asks_a_move({"prompts": [own]})
    assert not asks_a_move({"prompts": [{"kind": "info", "text": "Press noted", "options": []}]})


def test_colours_said_narrow_a_place_to_the_contents_of_those_colours() -> None:
    """The first of two taps (a place's colours) asks again with only those contents; a
    malformed colour answer, or one for a place not in doubt, is refused and changes nothing."""
    from companion.games.base import MalformedAction, Piece
    from companion.table.doubt import ANSWERS_SHOWN, colour_answers, place_answers
    from companion.table.overrides import pieces_json

    labels = {"A7": "A7 red"}
    dice = [(Piece(c, n),) for c in ("red", "blue", "white") for n in range(1, 7)]
    answers = place_answers([], labels, [(), *dice])
    assert len(answers) == 19 > ANSWERS_SHOWN
    asked = colour_answers(answers, labels)
    assert [a["says"] for a in asked] == ["A7 red shows nothing", "A7 red shows red (?)",
                                          "A7 red shows blue (?)", "A7 red shows white (?)"]
    assert asked[0]["places"] == {"A7": []} and asked[1]["colours"] == {"A7": ["red"]}
    narrowed = place_answers([], labels, [(), *dice], {"A7": ("red",)})
    assert [a["places"]["A7"] for a in narrowed] == [pieces_json(d) for d in dice[:6]]
    assert colour_answers(narrowed, labels) == []  # each colour one content: nothing to narrow

    table, _, frames = nightclubs_under_glare()
    frames(DOUBT_FRAMES + 2)
    before = table.public(history=None)
    for bad in ({"club9": ["orange"]}, {"club2": "orange"}, {"club2": []},
                {"club2": ["orange"], "club3": ["orange"]}, "orange"):
        with pytest.raises(MalformedAction):
            table.declare({"type": "reads", "colours": bad})
    assert table.public(history=None) == before
    table.declare({"type": "reads", "colours": {"club2": ["orange"]}})  # a good one is taken
    assert table.referee.doubt.colours == {"club2": ("orange",)}
