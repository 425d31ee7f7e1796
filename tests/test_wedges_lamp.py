"""Whole games under a lamp's hot spot over a few places all evening that never ended right
(``scripts/lamp_games.py mixed`` and ``ts-charlie-held``): one regression test per cause.

Each is played through the camera loop with the reader's edge stubbed
(:class:`doubting_camera.LampReader`), the table, rules and players real, the players answering
only the tablet's words; the game ends with the tablet showing it over with the world's scores.
"""

from __future__ import annotations

import random

import pytest
from doubting_camera import play_doubted

from companion.games.base import Piece, Tap
from companion.reconcile import NextMoves
from companion.table import Table
from companion.table.doubt import FILLS_TRIED, contents, read_fills
from companion.table.fills import fewest_changes_first, moved_in

PINK, BLACK, BLUE, GREEN, YELLOW = (Piece(c) for c in ("pink", "black", "blue", "green", "yellow"))


def assert_ended_right(game: str, seed: int, lamp: tuple[str, ...], as_glare: bool) -> None:
    played = play_doubted(game, 2, None, seed, lambda _place, _stack: False,
                          lamp=frozenset(lamp), lamp_as_glare=as_glare)
    tablet = played.tablet
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]


def test_a_card_said_under_a_lamp_then_slid_down_by_the_record_is_asked_again() -> None:
    """Jivecat with a lamp over Mambo and Vogue all evening.  Vogue was said to show Bossa
    Nova, as the record had it, and the same tap let the held press record the Staff chip,
    whose turn's start slid Bossa Nova down to Passe in the record.  The answer stood for
    Vogue all evening: "Vogue shows cyan (8)" beside the record's nothing, "the record is
    right" tapped, and the refill the players then laid there was never seen; the record
    waited for it for ever.  Now a place said as the record has it is vouched for at once, so
    the move that changes it ends that, and Vogue is asked again; and the colours said of a
    card that a reach may since have replaced are asked again too (Bossa Nova's cyan said
    before the slide; the marks then offered were cyan ones only)."""
    assert_ended_right("jivecat", 3, ("trend-0", "skull-0"), False)


@pytest.mark.parametrize(("seed", "lamp", "as_glare"), [(24, ("c9", "c10", "c11"), False),
                                                        (23, ("s8", "c8", "c9"), True)])
def test_a_figure_moved_in_under_a_lamp_from_where_the_camera_sees_is_offered(
        seed: int, lamp: tuple[str, ...], as_glare: bool) -> None:
    """Times Square under a lamp over the sewer or Champagne Charlie's row beside it.  A play
    moved a figure from where the camera sees in under it: Charlie a space along his row
    (seed 24), Saucy Sue two spaces onto the sewer as a Bodyguard left it (seed 23).  What the
    doubted places might hold was what the record had there, nothing, or what a next move of
    one card of a kind lays there, so the true content was never offered; the players could
    not say it, took their taps back, and the record fell behind the table for good."""
    assert_ended_right("times_square", seed, lamp, as_glare)


def test_moved_in_lays_a_piece_gone_from_sight_and_takes_one_come_out() -> None:
    """The fills: Sue (pink) gone from space 7, a Bodyguard (black) read anew on space 9; the
    record has the sewer (doubted) with a Bodyguard and Deb (blue)."""
    record = {"s7": (PINK,), "s8": (BLACK, BLUE), "s9": (GREEN,), "c6": (YELLOW,)}
    view = {"s9": (BLACK, GREEN), "c6": (YELLOW,)}
    fills = moved_in(record, view, frozenset({"s8", "c8"}))
    assert {"s8": (BLUE, PINK), "c8": ()} in fills  # Sue in, the Bodyguard out
    assert {"s8": (BLACK, BLUE), "c8": (PINK,)} in fills  # Sue in elsewhere under it
    assert {"s8": (BLACK, BLUE), "c8": ()} not in fills  # the record's own fill is tried already
    assert moved_in(record, record, frozenset({"s8", "c8"})) == []  # nothing gone, nothing come


def test_a_move_at_the_first_of_four_doubted_places_is_offered() -> None:
    """Jivecat under a lamp over four Cocoa places all evening (real pixels, ``bench truth
    --faults lamp`` seed 300).  Blue bought a drink on the first of them; six contents a place
    make more fills than are tried, and cut place by place the first place was only ever tried
    as the record has it.  The buy was never offered, the players took their taps back, and
    the game wedged.  Where the fills are cut, those that change fewest places are tried too."""
    table = Table.open("jivecat", None, 3, None, 300, resume=False)
    game, rng = table.game, random.Random(1)
    for _ in range(400):  # on the tablet, up to a turn that may buy a drink with one card
        state = table.state
        buys = [a for a in game.legal_actions(state) if a["type"] == "buy" and len(a["cards"]) == 1]
        if buys:
            break
        table.declare(rng.choice(game.legal_actions(state)))
    else:
        raise AssertionError("no buy with one card in 400 moves")
    record, moves = game.board_view(state), NextMoves()
    buy = min(buys, key=lambda a: a["spot"])  # the first place in order
    places = frozenset([buy["spot"], *sorted({a["spot"] for a in buys if a["spot"] > buy["spot"]
                                              and not record.get(a["spot"])})[:3]])
    assert len(places) == 4
    assert len(contents(game, state, buy["spot"], moves, places)) ** 3 >= FILLS_TRIED
    view = {p: s for p, s in game.board_view(game.apply(state, buy)).items() if p not in places}
    read = read_fills(game, state, view, places, [Tap(buy["cards"][0], buy["player"])], True, moves)
    assert buy in [move for move, _ in read]


def test_fills_that_change_fewer_places_come_first() -> None:
    """The record's own fill, then each place changed alone, then pairs; cut at ``most``."""
    held = {"a": [(), (PINK,), (BLACK,)], "b": [(BLUE,), ()], "c": [(), ()]}
    fills = fewest_changes_first(held, 100)
    assert fills[0] == {"a": (), "b": (BLUE,), "c": ()}
    assert fills[1:4] == [{"a": (PINK,), "b": (BLUE,), "c": ()}, {"a": (BLACK,), "b": (BLUE,), "c": ()},
                          {"a": (), "b": (), "c": ()}]
    assert len(fills) == 3 * 2  # "c" holds nothing but what the record has: no other fill
    assert fewest_changes_first(held, 2) == fills[:2]
