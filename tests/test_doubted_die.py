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

from companion.games.base import Piece, Prompt
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
    prompts = [p["text"] for p in tablet["prompts"]]
    assert tablet["over"], "\n".join([*prompts, "the last steps unlike the one before:", *played.last])
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
    # once the place is said whole, its colours narrow nothing it is asked next (Baron Voodoo
    # under a lamp over C3, C4 and D4 all evening: D4 said red, its die then captured, it was
    # asked with red dice only, never nothing, and the game never ended)
    table.declare({"type": "reads", "places": {"club2": [["orange", 2]]}})
    assert table.referee.doubt.colours == {}


def _dancers(*cards: tuple[int, str, int]) -> dict[str, Any]:
    """King of Clubs' reveal of these (player, slot, skill) Dancers."""
    return {"type": "reveal", "cards": [{"player": p, "slot": s, "skill": k} for p, s, k in cards]}


def _night_two() -> Table:
    """King of Clubs, 2 players, seed 5: night 1 played out, night 2's Nightclubs (2, 2, 5, 6) laid."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 5, resume=False)
    for action in ({"type": "nightclubs", "values": [3, 3, 4, 4]}, {"type": "place", "player": 0},
                   {"type": "place", "player": 1},
                   _dancers((0, "d0", 2), (0, "d1", 3), (1, "d0", 4), (1, "d1", 5)),
                   _dancers((0, "d2", 1), (0, "d3", 4), (1, "d2", 1), (1, "d3", 2)), {"type": "clear"},
                   {"type": "nightclubs", "values": [2, 2, 5, 6]}):
        table.declare(action)
    return table


def _couples_with_two_moves_for_b(solo: bool = False) -> Table:
    """King of Clubs, night 2, Couples 2+2 (B at Nightclub 1 a red 3, at Nightclub 2 a red 4):
    B to play Moves, two in hand (``solo``: at Solo 5 before it, B's Dancer at Nightclub 3 a
    red 1)."""
    table = _night_two()
    game = table.game
    for action in ({"type": "place", "player": 0}, {"type": "place", "player": 1},
                   {"type": "lead_reveal", "player": 0, "slot": "d2", "skill": 5},
                   {"type": "pass", "player": 1}, _dancers((1, "d2", 1)), None,
                   _dancers((0, "d3", 4), (1, "d3", 2)), None,
                   _dancers((0, "d0", 2), (0, "d1", 3), (1, "d0", 3), (1, "d1", 4))):
        while action is None and table.state["phase"] == "moves":
            table.declare({"type": "pass", "player": game.current_player(table.state)})
        if action is not None:
            table.declare(action)
        if solo and table.state["phase"] == "moves":
            break
    assert game.current_player(table.state) == 1 and table.state["hands"][1] == 2
    return table


def _laid(table: Table, view: dict[str, Any], place: str) -> dict[str, Any]:
    """The table with one more Move card (a white 1) laid on the Dancer at ``place``."""
    return {**view, place: (*view[place], Piece("white", 1))}


def _under_glare(table: Table, view: dict[str, Any], count: int,
                 places: tuple[str, ...] = ("p1_d0",)) -> None:
    """``count`` frames of ``view`` with B's Dancer at Nightclub 1 (or ``places``) unreadable."""
    glare = {p: "marks unclear: blur?" for p in places}
    for _ in range(count):
        table.frame_taken()
        table.board_doubted({p: s for p, s in view.items() if p not in glare}, glare)


def _a_move_said_at_nightclub_1() -> tuple[Table, dict[str, Any], dict[str, Any]]:
    """B's Dancer at Nightclub 1 unreadable, a Move laid on it (its tap lost), and the players
    say so: the table, the record's view and the table's."""
    table = _couples_with_two_moves_for_b()
    record_view = dict(table.game.board_view(table.state))
    view = _laid(table, record_view, "p1_d0")
    _under_glare(table, view, DOUBT_FRAMES + 2)
    asked = table.table_prompt
    assert asked is not None
    table.declare(next(o for o in asked.options if o.get("places") == {"p1_d0": [["red", 3], ["white", 1]]}))
    _under_glare(table, view, 2)
    return table, record_view, view


def test_a_move_tapped_at_another_dancer_leaves_a_dancer_the_camera_cannot_read_asked() -> None:
    """King of Clubs seed 14, cafe, typical, with the face-step rule: A's Twist laid on a Dancer
    the camera could not read from then on (its tap recorded nothing: the Move's card was not
    seen), then Vogue on the other Dancer of the Couples Dance; the tablet offered the Vogue's
    two readings, the players tapped the right one, and the unread Dancer was vouched for as
    the record had it, without the Twist: the +1 never came back and the night's winner was
    recorded wrong.  The tapped move leaves that Dancer as it was, so it says nothing of it:
    the Dancer is asked about again by what it holds."""
    table = _couples_with_two_moves_for_b()
    view = _laid(table, dict(table.game.board_view(table.state)), "p1_d0")
    _under_glare(table, view, 3)
    table.tap("move-body-roll", 1)  # read with nothing: the card's Move is not seen
    view = _laid(table, view, "p1_d1")
    _under_glare(table, view, 3)
    table.tap("move-bump", 1)
    _under_glare(table, view, DOUBT_FRAMES + 2)
    asked = table.table_prompt
    assert asked is not None and "Can't read B at Nightclub 1" in asked.text, asked
    table.declare(next(o for o in asked.options if o.get("slot") == "d1"))
    assert [h.action.get("card") for h in table.history[-1:]] == ["move-bump"]
    _under_glare(table, view, DOUBT_FRAMES + 2)
    asked = table.table_prompt
    assert asked is not None and "Can't read B at Nightclub 1" in asked.text \
        and "B at Nightclub 1 shows red (3), white (1)" in asked.text, asked


def test_a_place_said_to_hold_a_move_the_record_lacks_is_warned_about_at_once() -> None:
    """King of Clubs seed 9, cafe, typical, with the face-step rule: a Move card missed the
    reader on a Dancer the camera could not read; the players said what the Dancer holds (one
    Move more than the record), and nothing was said about the difference: the next card's tap
    was read as the Move laid already, and the record stayed a Move short while the table was
    read as the players had said.  The difference is warned about at once, naming the place,
    what the table and the record have there, and the card to lay again; laid again, it is
    recorded."""
    table = _couples_with_two_moves_for_b()
    view = _laid(table, dict(table.game.board_view(table.state)), "p1_d0")  # its tap never came
    _under_glare(table, view, DOUBT_FRAMES + 2)
    asked = table.table_prompt
    assert asked is not None and "Tap what the table shows there" in asked.text, asked
    table.declare(next(o for o in asked.options if o.get("places") == {"p1_d0": [["red", 3], ["white", 1]]}))
    _under_glare(table, view, 2)
    warned = table.table_prompt
    assert warned is not None and warned.kind == "warning", warned
    assert "B at Nightclub 1 shows red (3), white (1) on the table, red (3) in the record" in warned.text
    assert "not among the cards read, lay it on your reader again" in warned.text
    table.tap("move-body-roll", 1)
    assert table.history[-1].action == {"type": "move", "player": 1, "card": "move-body-roll",
                                        "target": 1, "slot": "d0"}
    _under_glare(table, view, DOUBT_FRAMES + 2)
    assert table.table_prompt is None, table.table_prompt


def test_a_move_card_read_as_a_dancer_of_another_colour_is_not_offered_away() -> None:
    """King of Clubs seed 17, cafe, typical: a Move card on A's Dancer whose tap was lost, and
    A pressed to pass.  The white read "in its colour" as a Dancer's 1 (B's red 1 on the
    table) showed no Move card, so the tablet offered the pass as the reading the table
    shows; tapped, it set the camera's reading of the Dancer aside, and the Move card the
    record lacked was never warned about again.  A reading a mark off is offered only where
    the move it shows leaves the place as read so: here the warning asks for the card, which,
    laid again, is recorded, and nothing is left to warn about."""
    table = _couples_with_two_moves_for_b(solo=True)
    game = table.game
    view = dict(game.board_view(table.state))
    assert view["p1_d2"] == (Piece("red", 1),)
    table.board_seen(view)
    table.board_seen(_laid(table, view, "p1_d2"))  # its tap never came
    for _ in range(DOUBT_FRAMES):
        table.frame_taken()
    table.button(1)
    warned = table.table_prompt
    assert warned is not None and warned.kind == "warning", warned
    assert "B at Nightclub 3 shows red (1), white (1) on the table, red (1) in the record" in warned.text
    assert "misread" not in warned.text and {"type": "pass", "player": 1} not in warned.options, warned
    table.tap("move-body-roll", 1)
    assert table.history[-1].action == {"type": "move", "player": 1, "card": "move-body-roll",
                                        "target": 1, "slot": "d2"}
    assert not [p for p in table.prompts() if p.kind == "warning"], table.prompts()


def test_a_place_vouched_for_is_not_asked_again_before_another_place_unread() -> None:
    """King of Clubs seed 3, cafe, typical: A's Dancer at Nightclub 1 unreadable all night, said
    and vouched for; then B's Dancer at Nightclub 1 unreadable too.  Asked by what a place
    holds, the first by name was A's again: said, vouched for, asked again, while B's was
    never asked (the players answered A's three times and more).  The place not vouched for
    is asked."""
    table = _couples_with_two_moves_for_b()
    view = _laid(table, dict(table.game.board_view(table.state)), "p1_d0")
    _under_glare(table, view, DOUBT_FRAMES + 2)
    asked = table.table_prompt
    assert asked is not None and "Tap what the table shows there: B at Nightclub 1" in asked.text, asked
    table.declare(next(o for o in asked.options if o.get("places") == {"p1_d0": [["red", 3], ["white", 1]]}))
    table.tap("move-body-roll", 1)
    assert table.history[-1].action.get("card") == "move-body-roll"
    _under_glare(table, view, 2)
    assert table.table_prompt is None, table.table_prompt
    view = _laid(table, view, "p1_d1")  # its tap never came
    _under_glare(table, view, DOUBT_FRAMES + 2, ("p1_d0", "p1_d1"))
    asked = table.table_prompt
    assert asked is not None and "Tap what the table shows there: B at Nightclub 2 shows" in asked.text, asked


def test_a_press_asks_what_a_vouched_place_a_move_may_change_holds_now() -> None:
    """King of Clubs seed 18, cafe, passive, with the face-step rule: B's Dancer at Solo 5
    unreadable, said and vouched for with three Moves; B laid a fourth (The Hustle), its tap
    lost, and pressed to pass.  The pass was judged on the Dancer as vouched, so the Move
    card the record lacked was never seen, and the night's point went the other way.  A press
    asks what such a place holds now (a Move may have been laid there) before it is judged;
    said with one Move more than the record, the press's warning asks for the card."""
    table = _couples_with_two_moves_for_b(solo=True)
    view = dict(table.game.board_view(table.state))
    table.board_seen(view)
    view = _laid(table, view, "p1_d2")
    _under_glare(table, view, 3, ("p1_d2",))
    table.tap("move-body-roll", 1)  # a Solo Dance: the Move is recorded by its card alone
    assert table.history[-1].action.get("card") == "move-body-roll"
    _under_glare(table, view, DOUBT_FRAMES + 2, ("p1_d2",))
    asked = table.table_prompt
    assert asked is not None and "Tap what the table shows there: B at Nightclub 3" in asked.text, asked
    table.declare(next(o for o in asked.options if o.get("places") == {"p1_d2": [["red", 1], ["white", 1]]}))
    _under_glare(table, view, 3, ("p1_d2",))
    assert table.table_prompt is None, table.table_prompt
    view = _laid(table, view, "p1_d2")  # The Bump: its tap never came
    _under_glare(table, view, 3, ("p1_d2",))
    table.notice("vision", Prompt("Can't see B at Nightclub 3 clearly: marks unclear: blur?", "info"))
    table.button(1)  # held: the camera cannot read the table (as the camera loop's notice says)
    _under_glare(table, view, DOUBT_FRAMES + 2, ("p1_d2",))
    assert table.history[-1].action.get("card") == "move-body-roll", table.history[-1]
    asked = table.table_prompt
    assert asked is not None and "Tap what the table shows there: B at Nightclub 3" in asked.text, asked
    table.declare(next(o for o in asked.options
                       if o.get("places") == {"p1_d2": [["red", 1], ["white", 1], ["white", 1]]}))
    _under_glare(table, view, 2, ("p1_d2",))
    warned = table.table_prompt
    assert warned is not None and "not among the cards read, lay it on your reader again" in warned.text, \
        warned
    table.tap("move-bump", 1)
    assert table.history[-1].action.get("card") == "move-bump", table.history[-1]


def test_what_doubted_places_may_hold_views_each_next_move_once() -> None:
    """Every frame a place stays doubted asks what it may hold, place by place; each ask viewed
    every next move's board again (Baron Voodoo seed 1 above: 1.4 million board views, two
    and a half minutes of the suite).  The next moves' boards are viewed once per record, and
    what a place may hold is what it was."""
    from companion.reconcile import NEXT_MOVES_TRIED, NextMoves, changed_places
    from companion.table.doubt import contents, in_play

    table = Table.open("king_of_clubs", None, 2, "advanced", 5, resume=False)
    game, state = table.game, table.state
    viewed = 0
    board_view = game.board_view

    def counted(s: Any) -> Any:
        nonlocal viewed
        viewed += 1
        return board_view(s)

    game.board_view = counted  # type: ignore[method-assign]
    next_moves = NextMoves()
    moves = next_moves.of(game, state, NEXT_MOVES_TRIED)
    record = board_view(state)
    places = sorted({p for _, after in moves if after is not None
                     for p in changed_places(record, board_view(after))})
    assert len(places) >= 3 and len(moves) >= 3, (places, len(moves))
    asked = [contents(game, state, place, next_moves) for place in places * 3]
    moved = in_play(game, state, frozenset(places) | {"nowhere"}, next_moves)
    assert viewed <= 1 + len(moves), viewed
    assert moved == frozenset(places)
    for place, found in zip(places * 3, asked, strict=True):
        assert found[:2] == [tuple(record.get(place, ())), ()]
        assert all(tuple(board_view(after).get(p, ())) in found for _, after in moves if after is not None
                   for p in changed_places(record, board_view(after)))


def test_a_place_said_empty_is_asked_again_when_what_was_laid_there_explains_no_move_without_it() -> None:
    """King of Clubs under a lamp over Nightclub 3 from the start: the players said it shows
    nothing (it did), which vouches for it while the record keeps it empty.  Then the four
    Nightclubs are laid: read with Nightclub 3 as vouched, three Nightclubs explain no move,
    and the place is vouched for no more: the warning offers the night's Nightclubs as moves,
    one tap each (before, every frame was read with Nightclub 3 empty, nothing was asked, and
    a simulated game under such a lamp never left its set-up)."""
    from companion.table.doubt import READS

    table = Table.open("king_of_clubs", None, 2, "advanced", 5, resume=False)
    opened = table.clock()
    table.clock = lambda: opened  # (its clocks stand still: no verdict waits on the wall clock)
    game = table.game
    clubs = {"type": "nightclubs", "values": [6, 4, 2, 2]}
    laid = {p: s for p, s in game.board_view(game.apply(table.state, clubs)).items() if p != "club2"}
    lamp = {"club2": "glare?"}

    def frames(view: dict, count: int) -> None:
        for _ in range(count):
            table.frame_taken()
            table.board_doubted(view, lamp)

    frames({}, DOUBT_FRAMES + 4)
    asked = table.table_prompt
    assert asked is not None and all(o["type"] == READS for o in asked.options), asked
    table.declare(next(o for o in asked.options if o["places"] == {"club2": []}))
    frames({}, 4)
    assert table.table_prompt is None or not table.table_prompt.options  # said: nothing left to ask
    frames(laid, DOUBT_FRAMES + 6)
    asked = table.table_prompt
    assert asked is not None and clubs in asked.options, asked
    assert not table.history
    table.declare(clubs)
    assert [h.action for h in table.history] == [clubs]


def test_the_record_is_right_names_a_place_the_camera_cannot_read_as_said_by_the_players() -> None:
    """A Dancer the camera cannot read, said to hold a Move the record lacks, and the players
    tap "the record is right": the history's line names that content as theirs, not as the
    camera's reading (stop 107: "(the camera read cyan (8))" of a Jivecat trend card under a
    lamp, which the camera read nothing at)."""
    table, _, _ = _a_move_said_at_nightclub_1()
    warned = table.table_prompt
    assert warned is not None and {"type": "keep_record"} in warned.options, warned
    table.declare({"type": "keep_record"})
    line = table.history[-1].text
    assert "B at Nightclub 1 as the record has it, red (3) (you said red (3), white (1))" in line, line
    assert "camera read" not in line


def test_a_dancer_turned_up_unseen_before_the_placing_was_tapped_is_asked_again() -> None:
    """King of Clubs under a lamp over A's Dancer at Nightclub 1 all evening (``bench truth
    --faults lamp``, seed 300): both seats laid their Dancers, and A, the Lead Dancer, turned
    that one up, before the tablet asked what the table showed.  The players tapped the two
    placings it offered, which vouched for the Dancer as laid, face down; the reveal was never
    seen, B's swap was refused and the game wedged.  A tapped move says what a place held when
    it was made, not since: a place a next move could change unseen (a card turned up under
    the lamp) is asked again by what it holds, and the reveal is read from the answer."""
    table = _night_two()
    game = table.game
    placed = table.state
    for player in (0, 1):
        placed = game.apply(placed, {"type": "place", "player": player})
    revealed = game.apply(placed, {"type": "lead_reveal", "player": 0, "slot": "d0", "skill": 2})
    view = dict(game.board_view(revealed))
    assert view["p0_d0"] != game.board_view(placed)["p0_d0"]  # turned up, under the lamp
    _under_glare(table, view, DOUBT_FRAMES + 2, ("p0_d0",))
    for player in (1, 0):
        asked = table.table_prompt
        assert asked is not None and "Can't read A at Nightclub 1" in asked.text, asked
        table.declare(next(o for o in asked.options if o == {"type": "place", "player": player}))
        _under_glare(table, view, DOUBT_FRAMES + 2, ("p0_d0",))
    assert [h.action.get("type") for h in table.history[-2:]] == ["place", "place"]
    asked = table.table_prompt
    assert asked is not None and "Tap what the table shows there: A at Nightclub 1 shows" in asked.text, asked
    table.declare(next(o for o in asked.options if o.get("places") == {"p0_d0": [["purple", 2]]}))
    _under_glare(table, view, 3, ("p0_d0",))
    assert table.history[-1].action == {"type": "lead_reveal", "player": 0, "slot": "d0", "skill": 2}, \
        table.history[-1].action


def test_a_place_said_otherwise_then_set_as_the_record_has_it_is_asked_again_at_a_press() -> None:
    """Jivecat seed 302 under a lamp over Yellow's Skull 6 (``bench truth --faults lamp``): the
    players said the place empty, then that the record was right (a Skull there), and set the
    table so; later a Skull paid from there for Drive-In, Drive-In tapped and the button
    pressed.  The press was judged on their first answer, set right as the record has it, so
    the mats agreed with the record and it recorded the end of her turn.  Once "the record is
    right" is tapped, the place is vouched for as the record has it, like any answer, and a
    press whose move may change it asks it again.  Here: B's Dancer said to hold a Move the
    record lacks, the record said right (the Move taken back), then the Move laid there again,
    its tap lost again, and B presses: asked what the Dancer holds, never recorded as a pass."""
    table, record_view, view = _a_move_said_at_nightclub_1()
    table.declare({"type": "keep_record"})
    entries = len(table.history)
    _under_glare(table, record_view, DOUBT_FRAMES + 2)  # the Move taken back, as the record says
    table.notice("vision", Prompt("Hand over the board: waiting.", "info"))  # laid again, its tap lost
    for _ in range(3):
        table.frame_taken()
        table.board_doubted(None, {})
    table.button(1)  # pressed with the hand still there: held till the camera settles
    table.notice("vision", Prompt("Can't see B at Nightclub 1 clearly: marks unclear: blur?", "info"))
    _under_glare(table, view, DOUBT_FRAMES + 2)
    assert [h.action for h in table.history[entries:]] == [], [h.text for h in table.history[entries:]]
    asked = table.table_prompt
    assert asked is not None and "B at Nightclub 1" in asked.text, asked


def test_an_answer_that_then_explains_no_move_is_asked_again() -> None:
    """Jivecat seed 3 under a lamp over Red's Skulls 4-6 (``scripts/lamp_games.py jv-mats``):
    the players said two of those places empty, as they were, just as a move gave Red two
    Skulls, then laid the Skulls there unseen; their answers stood for the table, the moves
    since were read with them and explained nothing, and the record wedged.  What the players
    said was true when they said it: a reading with an answer that differs from the record that
    no move explains asks that place again, as a place vouched for is.  Here: B's Move said
    laid on the Dancer at Nightclub 1 the camera cannot read (the record lacks it), then taken
    back and laid at Nightclub 2 instead."""
    table, record_view, _ = _a_move_said_at_nightclub_1()
    entries = len(table.history)
    _under_glare(table, _laid(table, record_view, "p1_d1"), DOUBT_FRAMES + 2)  # moved to Nightclub 2
    assert "p1_d0" not in table.referee.doubt.said
    asked = table.table_prompt
    assert asked is not None and "Can't read B at Nightclub 1" in asked.text, asked
    assert {"type": "reads", "places": {"p1_d0": [["red", 3]]}, "says": "B at Nightclub 1 shows red (3)"} \
        in asked.options, asked.options
    assert len(table.history) == entries
