"""More pieces read on a place than the rules ever put there (stop 85).  A Caught Soul's place
holds one die and a Jivecat mat's place one token (``Spot.holds``); on fresh tuning boards a
Caught Soul was read as a blue 2 with a white 6 (a neighbour's top over it) and a mat's Skull
place as two black Skulls.  Such a place is asked, not read.

So too two of the pieces a place holds one of at most (stop 100, ``Spot.one_of``): a King of
Clubs Dancer place holds one Dancer card, face down or revealed, with the Moves played on it;
on a held-out board at 10 degrees a purple Dancer's soft shadow under a window's light, grey as
a face-down card, was read as one beside the Dancer.  And it holds nothing else (stop 102,
``Spot.takes``): a purple Dancer lit pink was read there as the Lead Dancer card.

And two of a colour the place holds one of each of (stop 101, ``Spot.one_each``): a Swing State
space holds any players' pawns, one each (a player has one pawn); on a held-out board at 10
degrees a black pawn and its shade were read as two black pawns on one space."""

from __future__ import annotations

import pytest
from committed_frames import kept_reading

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece

WHY = "more pieces than the place holds: a neighbour's?"


@pytest.mark.parametrize(("stem", "spot", "truth"), [
    ("baron_voodoo-t30-b15", "souls0-0", (Piece("blue", 2),)),
])
def test_more_pieces_than_a_place_holds_are_asked(stem: str, spot: str, truth: tuple[Piece, ...]) -> None:
    frame, reading = kept_reading(stem)
    assert reading.view is not None
    layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
    assert layout.spot(spot).holds == 1
    assert frame.view[spot] == truth
    assert reading.doubtful.get(spot) == WHY, reading.view.get(spot)


def test_a_skulls_middle_ringed_by_its_own_marks_is_no_second_skull() -> None:
    """Stop 89: the mat's Skull place read as two black Skulls held one Skull whose marks parted
    its middle from its rim (``Classifying._split_by_colour``): it is read as the one it is."""
    frame, reading = kept_reading("jivecat-t20-b15")
    assert reading.view is not None
    assert frame.view["mat2-skull0"] == (Piece("black", 0),)
    assert "mat2-skull0" not in reading.doubtful
    assert reading.view["mat2-skull0"] == frame.view["mat2-skull0"]


def test_a_place_holding_one_piece_is_still_read() -> None:
    """The same boards' other one-piece places read one piece each, and are read."""
    for stem in ("baron_voodoo-t30-b15", "jivecat-t20-b15"):
        frame, reading = kept_reading(stem)
        assert reading.view is not None
        layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
        ones = [s.id for s in layout.spots if s.holds == 1 and frame.view.get(s.id)
                and s.id not in reading.doubtful]
        assert len(ones) >= 5, (stem, ones)
        assert all(reading.view.get(s) == frame.view[s] for s in ones), stem


@pytest.mark.parametrize(("stem", "spot", "truth"), [
    ("king_of_clubs-t10-b107", "p0_d1", (Piece("purple", 3),)),  # two Dancer cards (``one_of``)
    ("swing_state-t10-b126", "r3-12-red", (Piece("black", 0),)),  # two of one player's pawns (``one_each``)
])
def test_two_of_what_a_place_holds_one_of_are_asked(stem: str, spot: str, truth: tuple[Piece, ...]) -> None:
    frame, reading = kept_reading(stem, "test")
    assert reading.view is not None
    assert frame.view[spot] == truth
    assert reading.doubtful.get(spot) == WHY, reading.view.get(spot)


def test_a_dancer_place_holds_one_dancer_card_and_any_moves() -> None:
    layout, _colours = frame_layout("king_of_clubs", 4)
    for spot_id in ("p0_d1", "p3_backup"):
        place = layout.spot(spot_id)
        assert not place.may_hold_all(["grey", "purple"]) and not place.may_hold_all(["red", "purple"])
        assert place.may_hold_all(["purple", "white", "white"]) and place.may_hold_all(["grey", "white"])
    assert layout.spot("club0").may_hold_all(["orange"])  # (a Nightclub's place has no such rule)
    for spot_id in ("p0_d1", "p3_backup"):  # (and no card of another place: a Point, the Lead, a Nightclub)
        place = layout.spot(spot_id)
        assert all(place.may_hold(c) for c in ("grey", "white", *place.one_of))
        assert not any(place.may_hold(c) for c in ("yellow", "pink", "orange"))


def test_a_colour_a_dancer_place_never_holds_is_asked() -> None:
    """Stop 102: on a held-out board with a hand over it, straight above under a pendant, a
    purple Dancer 2 lit pink, its two pips lost in the glow, was read as the Lead Dancer card
    (pink, plain) on A's place at Nightclub 4.  The Lead Dancer card lies on its own place or
    by the pile: a Dancer place holds a Dancer card and the Moves on it (``Spot.takes``)."""
    frame, reading = kept_reading("king_of_clubs-t00-b128-hand", "test")
    assert reading.view is not None
    assert frame.view["p0_d3"] == (Piece("purple", 2),)
    assert reading.doubtful.get("p0_d3") == "pink where the game puts none: shade, or misplaced?", \
        reading.view.get("p0_d3")


def test_a_space_holds_any_players_pawns_one_each() -> None:
    layout, colours = frame_layout("swing_state", 3)
    space = layout.spot("r3-12-red")
    pawns = sorted(space.one_each)
    assert len(pawns) == 3 and set(pawns) <= set(colours)
    assert space.may_hold_all(pawns) and space.may_hold_all(pawns[:1])
    assert not space.may_hold_all([pawns[0], pawns[0]]) and not space.may_hold_all(pawns + pawns[1:2])
