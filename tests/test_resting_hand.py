"""A hand (or what the reader takes for one) lying over the board is not waited on for ever:
once the places it hides have lain under it in ``HAND_RESTING_FRAMES`` of the last
``HAND_WINDOW_FRAMES`` frames, the tablet says something lies still there, and the table asks
what they show, as it asks of any place it cannot read.  Before, a reading with a hand was
never asked about: a hand left on the table, or a lamp's reflection the reader took for an arm
(30 of 960 plain physically based frames held out from boards 78-164 read so), held the game
with "Hand over the board: waiting." until it went.  A reach that moves pieces passes over a
place for a few frames and is waited on as before.  Counted in frames, never in seconds."""

from __future__ import annotations

import pytest
from doubting_camera import play_doubted

from companion.bench.boards import sample_boards
from companion.bench.vision import game_layout, make_reader
from companion.games.base import Prompt
from companion.sim.camera.conditions import camera_for
from companion.sim.camera.source import SyntheticSource
from companion.table import Table
from companion.table.doubt import DOUBT_FRAMES, READS, VOUCHED_FRAMES
from companion.table.overrides import pieces_json
from companion.vision.pipeline import STILL_OVER, VisionLoop
from companion.vision.reading import Reading
from companion.vision.stabiliser import HAND_RESTING_FRAMES, HAND_WINDOW_FRAMES

GAME = "swing_state"


def settled_table() -> tuple[Table, SyntheticSource, VisionLoop, dict]:
    """The set-up laid out and committed, the camera loop taking frames as fast as it can."""
    layout, colours, players = game_layout(GAME)
    board = sample_boards(GAME, players, 1, 0)[0]
    table = Table.open(GAME, None, players, None, 0, resume=False)
    source = SyntheticSource(camera_for(layout, seed=3))
    loop = VisionLoop(table, source, make_reader(layout, colours), fps=0)
    source.show(board)
    for _ in range(4):
        loop.step()
    assert loop.stabiliser.committed == board
    return table, source, loop, board


def reads_asked(table: Table) -> Prompt | None:
    """The table's question of what a place it cannot read shows, if it asks one."""
    prompt = table.table_prompt
    asks = prompt is not None and prompt.options and prompt.options[0].get("type") == READS
    return prompt if asks else None


def test_a_hand_left_lying_still_is_asked_about_and_one_tap_lets_the_game_go_on() -> None:
    table, source, loop, board = settled_table()
    entries = len(table.history)
    source.hand_over(10_000, resting=True)  # a hand laid on the board, and left there
    for _ in range(HAND_RESTING_FRAMES - 1):
        loop.step()
        reading = loop._latest[1]  # type: ignore[index]
        assert reading.hand and reading.view is not None and reading.doubtful
        assert loop.prompt(reading).text.startswith("Hand over the board")  # waited on, as a reach
        assert reads_asked(table) is None
    hidden = set(reading.doubtful)
    for _ in range(DOUBT_FRAMES + VOUCHED_FRAMES + 1):
        loop.step()
    said = loop.prompt(loop._latest[1])  # type: ignore[index]
    assert said is not None and STILL_OVER in said.text and said.kind == "warning"
    asked = reads_asked(table)
    assert asked is not None, table.prompts()
    # the places under it, each as the record has it, one tap (the hand came after the set-up
    # was committed: nothing moved under it), offered first; then one tap a place
    every, first_place = asked.options[0], asked.options[1]
    assert set(every["places"]) == hidden and len(hidden) > 1
    assert every["places"] == {p: pieces_json(tuple(board.get(p, ()))) for p in hidden}
    assert every["says"] == f"All {len(hidden)} places as the record has them: nothing moved there"
    assert len(first_place["places"]) == 1 and set(first_place["places"]) <= hidden
    table.declare(every)
    loop.step()
    assert reads_asked(table) is None
    assert len(table.history) == entries  # nothing recorded: nothing moved under the hand
    assert table.seen == board  # the board as the players said it, the rest as read


def test_each_place_under_a_still_hand_may_be_said_one_tap_a_place() -> None:
    """The players who would rather say what each place shows (a piece moved under the hand)."""
    table, source, loop, board = settled_table()
    source.hand_over(10_000, resting=True)
    for _ in range(HAND_RESTING_FRAMES + DOUBT_FRAMES + VOUCHED_FRAMES):
        loop.step()
    hidden = set(loop._latest[1].doubtful)  # type: ignore[index]
    answered: set[str] = set()
    for _ in range(len(hidden) + 1):  # bounded by the places hidden
        asked = reads_asked(table)
        if asked is None:
            break
        one = [o for o in asked.options if len(o["places"]) == 1]
        ((place, _),) = one[0]["places"].items()
        assert place in hidden and place not in answered
        truth = pieces_json(tuple(board.get(place, ())))
        table.declare(next(o for o in one if o["places"][place] == truth))
        answered.add(place)
        loop.step()
    assert reads_asked(table) is None and answered == hidden
    assert table.seen == board


def test_a_reach_that_keeps_moving_is_waited_on_however_long_it_lasts() -> None:
    """An arm sweeping over the board (drawn a step along its sweep each frame) longer than a
    resting hand is waited on: the frames it stands as the last reading
    (``ARM_FRAMES_SKIPPED``) are all it holds still for."""
    table, source, loop, _board = settled_table()
    frames = HAND_RESTING_FRAMES + DOUBT_FRAMES + VOUCHED_FRAMES + 4
    source.hand_over(frames)
    for _ in range(frames):
        loop.step()
        reading = loop._latest[1]  # type: ignore[index]
        assert reading.hand and not loop.stabiliser.hand_resting
        assert loop.prompt(reading).text.startswith("Hand over the board")
        assert reads_asked(table) is None
    assert loop.frames_standing > 0  # frames that stood as the last reading were among them


def test_a_still_hand_over_most_of_the_board_is_told_as_lying_still_counted_over_a_window() -> None:
    """No board at all (what was taken for a hand covers most of it): the tablet says
    something lies still over the board once it has hidden it in ``HAND_RESTING_FRAMES`` of the
    last ``HAND_WINDOW_FRAMES`` frames, a frame or two without it between or not."""
    table, _source, loop, _board = settled_table()
    covered = Reading(None, hand=True, markers_found=4, problem="a hand is over the board")
    for frame in range(1, HAND_RESTING_FRAMES + 1):
        loop.stabiliser.feed(covered)
        said = loop.prompt(covered)
        assert said is not None
        assert (STILL_OVER in said.text) == (frame >= HAND_RESTING_FRAMES), (frame, said.text)
    assert said.text == f"Can't see the board: {STILL_OVER}. Lift it, or move the lamp or what casts it."
    clear = Reading({}, markers_found=4)
    loop.stabiliser.feed(clear)  # a frame with nothing over the board: nothing lies over it now
    assert not loop.stabiliser.hand_resting
    loop.stabiliser.feed(covered)  # back: it has lain there most of the window
    assert loop.stabiliser.hand_resting
    for _ in range(HAND_WINDOW_FRAMES - HAND_RESTING_FRAMES + 1):
        loop.stabiliser.feed(clear)
    loop.stabiliser.feed(covered)  # gone long enough: counted afresh
    assert not loop.stabiliser.hand_resting


@pytest.mark.parametrize(("game", "lamp"), [("times_square", ("s10", "s11", "s12")),
                                            ("jivecat", ("N10", "N11", "N12"))])
def test_a_lamp_taken_for_a_hand_over_three_places_all_evening_and_the_game_ends_right(
        game: str, lamp: tuple[str, ...]) -> None:
    """A lamp's hot spot the reader takes for a hand over three places of a row, every frame
    of the game, the players' reaches passing between (the reader's edge stubbed, the rest
    real: the camera loop, the table, the rules, the world's players, who answer the tablet's
    words).  Counted over a window of frames, the places under it are asked about; the players
    say what each shows, and the game ends with the world's winners and scores.  With the
    places never asked (a hand waited on for ever) the record never left the set-up."""
    played = play_doubted(game, 2, None, 1, lambda _place, _stack: False, lamp=frozenset(lamp))
    assert any("under a hand or arm" in a for a in played.asked), played.asked
    tablet = played.tablet
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]
    assert played.refusals == []


@pytest.mark.parametrize(("seed", "lamp", "as_glare"), [(1, ("club2", "p0_d1", "p1_d1"), False),
                                                        (1, ("p0_d2", "p1_d2", "p0_d3"), False),
                                                        (2, ("club3", "p0_d3", "p1_d3"), False),
                                                        (1, ("club3", "p0_d3", "p1_d3"), True)])
def test_a_lamp_over_king_of_clubs_cards_all_evening_and_the_game_ends_right(
        seed: int, lamp: tuple[str, ...], as_glare: bool) -> None:
    """King of Clubs under a lamp the reader takes for a hand (or tells as glare) over a
    Nightclub and Dancers, or three Dancers, all evening.  Cards are turned up there and
    nothing else on the table changes (a Dancer revealed under it): a reach that leaves nothing
    the camera can see changed, while a move could change only the places it cannot read, asks
    what they hold now, and the players say it (so does a Move card laid there, the night's
    point card then taken in view); the table cleared under it is a move the players know they
    made.  Before, the record waited at a reveal, a Move, or night 1's clear-up, for ever."""
    played = play_doubted("king_of_clubs", 2, "advanced", seed, lambda _place, _stack: False,
                          lamp=frozenset(lamp), lamp_as_glare=as_glare)
    tablet = played.tablet
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]


@pytest.mark.parametrize("as_glare", [False, True])
def test_a_lamp_over_swing_states_die_all_evening_and_the_game_ends_right(as_glare: bool) -> None:
    """Swing State with the die under a lamp all evening, taken for a hand or told as glare:
    every roll is asked ("Die shows ..."), and a roll of the face the die already showed
    (picked up and rolled, nothing the camera sees changed) is told as the pick-up, then the
    face.  The players tap a pick-up only as their own newest: before, the Incumbent's
    pick-up of a turn before was tapped while Red's roll still lay there, Red's 5 recorded as
    the Incumbent's roll, and the game never went on."""
    played = play_doubted("swing_state", 2, None, 2, lambda _place, _stack: False,
                          lamp=frozenset({"die"}), lamp_as_glare=as_glare)
    tablet = played.tablet
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]


@pytest.mark.parametrize(("seed", "lamp", "as_glare"), [(6, ("c6", "c7", "c8"), False),
                                                        (12, ("c7", "c8", "c9"), True)])
def test_a_lamp_over_champagne_charlies_row_all_evening_and_the_game_ends_right(
        seed: int, lamp: tuple[str, ...], as_glare: bool) -> None:
    """Times Square under a lamp over three places of Champagne Charlie's row, where he
    starts.  A play of several cards moved him a space under it: the rules list one card of
    a kind, so no move of theirs had him there, and the press was read with him where he had
    been ("leaves Champagne Charlie where he is"), or he was asked about with no answer that
    held him.  Now a piece moved from one place under the lamp to another is tried, and a
    reach that the cards tapped may explain so asks those places again."""
    played = play_doubted("times_square", 2, None, seed, lambda _place, _stack: False,
                          lamp=frozenset(lamp), lamp_as_glare=as_glare)
    tablet = played.tablet
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]
