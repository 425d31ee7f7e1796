"""A column's top over the next place (stop 84).  From a slant, a column of two or three dice
shows its top over the next place out from the camera's nadir; where the column's own place is
doubted (its top not read there), that top was read as a die of the next place: on fresh
Baron Voodoo boards at 20-30 degrees, a yellow 2 on an empty place, a purple 1 under a white
die, a blue 5 and a yellow 1 on empty places.  A die read just where a doubted place's column
would show its top is asked, naming that place (``DieSides._column_tops_over``).

And the other way round (stop 90): on a held-out Baron Voodoo board at 30 degrees a column of
three on A7 showed its top over A6, where its marks were unclear (doubted), and A7, its foot's
sides over a tan cell, was read as an empty place.  An empty place where a column standing on
it would show its top within a doubted die's blob is asked (``_columns_under_doubted_tops``).

And where two dice's tops are read on one place of a column by two blobs (stop 100): on
held-out Baron Voodoo boards at 30 degrees a column of two on G3 showed its yellow 6 over G2,
read there beside G2's own blue 6 by a blob of its own, and G3 was read as an empty place (so
too E7's blue 3 over D7).  A column shows one top: the place is asked, and so the empty place
beside it whose column would show its top there (``DieSides._two_tops_on_a_column``).  So too
one die read on two places nearer each other than a die is wide, one of them a column's: at 20
degrees the red 3 atop a column of two on G5, its lit top parted from its sides, was read on G5
and on the empty G4."""

from __future__ import annotations

import pytest
from committed_frames import KEPT_DIR, committed, kept_reading, reading_of

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.vision.blobs import FOOT_ASTRAY_MM
from companion.vision.die_sides import COLUMN_TOP_MM, READ_TWICE, TOPS_AT_ONE_PLACE
from companion.vision.geometry import MARGIN_MM
from companion.vision.pose import DIE_MM
from companion.vision.reader import BoardReader
from companion.vision.reading import SCALE


@pytest.mark.parametrize(("stem", "spot", "column", "truth"), [
    ("baron_voodoo-t30-b7", "E2", "E3", ()),
    ("baron_voodoo-t20-b8", "A2", "A3", (Piece("white", 3),)),
])
def test_a_columns_top_over_the_next_place_is_asked(stem: str, spot: str, column: str,
                                                     truth: tuple[Piece, ...]) -> None:
    frame, reading = kept_reading(stem)
    assert reading.view is not None
    assert frame.view.get(spot, ()) == truth
    assert len(frame.truth["stacks"][column]) == 2  # a column of two stands beside it
    assert column in reading.doubtful  # its own place unread
    assert reading.doubtful.get(spot) == f"a column's top from {column}?", reading.view.get(spot)


def test_only_a_die_where_a_columns_top_would_show_is_asked() -> None:
    """The rest of those boards' dice, read sure, stay read: a die is asked only within
    ``COLUMN_TOP_MM`` of where a doubted place's column would show its top."""
    assert 3.0 <= COLUMN_TOP_MM <= 8.0  # under half a die: its own place's top lies further
    for stem in ("baron_voodoo-t30-b7", "baron_voodoo-t20-b8"):
        frame, reading = kept_reading(stem)
        assert reading.view is not None
        asked = [s for s, why in reading.doubtful.items() if why.startswith("a column's top from")]
        assert len(asked) == 1, asked
        right = [s for s, pieces in reading.view.items() if s not in reading.doubtful
                 and pieces and pieces == frame.view.get(s, ())]
        assert len(right) >= 20, (stem, len(right))


def test_a_column_whose_lower_dice_are_another_die_is_asked() -> None:
    """Its height taken from another colour's patch as its lower dice's sides (stop 85): from
    30 degrees a purple die on D4 and a red one on D5 touch, the red one taken for the sides of
    a column of three under the purple top, and D5 was read as purple 3.  The next place's one
    die would show just so: both places are asked."""
    frame, reading = kept_reading("baron_voodoo-t30-b10")
    assert reading.view is not None
    assert frame.view["D5"] == (Piece("red", 6),) and frame.view["D4"] == (Piece("purple", 3),)
    assert "D5" not in frame.truth["stacks"] and "D4" not in frame.truth["stacks"]  # one die each
    assert reading.doubtful.get("D5") == "a column of unclear height? (another piece against it)", \
        reading.view.get("D5")
    assert "D4" in reading.doubtful


def test_a_column_of_one_colour_is_still_read_at_its_foot() -> None:
    """A blue column of two whose lower die's side is its own blue keeps its height: read."""
    frame, _layout, reading = reading_of("tune", "baron_voodoo-t20-b2")
    assert reading.view is not None
    assert len(frame.truth["stacks"]["A7"]) == 2
    assert "A7" not in reading.doubtful and reading.view["A7"] == frame.view["A7"] == (Piece("blue", 6),)


def test_no_column_stands_on_a_place_of_one_die() -> None:
    """Two blue dice touching on Caught Soul places (each holds one die), the far one's top over
    the near one's side: read as a column on the near place, a blue 2 was read as the far
    die's 1.  No column taller than its place's rules stack stands there: asked.  Since stop 92,
    with no column left that may stand there, the far die's top is read as one die on its own
    place, and the near place, under that blob, is still asked.  The same board's red 3 under a
    blue die's top, a column of another colour's sides, is asked too."""
    frame, reading = kept_reading("baron_voodoo-t20-b5")
    assert reading.view is not None
    assert frame.view["souls0-1"] == (Piece("blue", 2),) and frame.view["souls0-0"] == (Piece("blue", 1),)
    assert "souls0-1" in reading.doubtful, reading.view.get("souls0-1")
    assert "souls0-0" not in reading.doubtful and reading.view["souls0-0"] == (Piece("blue", 1),)
    assert frame.view["G3"] == (Piece("red", 3),)
    assert reading.doubtful.get("G3") == "a column of unclear height? (another piece against it)", \
        reading.view.get("G3")


def test_dice_on_places_of_one_are_read_not_taken_for_a_column() -> None:
    """Committed frames whose touching dice on one-die places were asked as a column of unclear
    height: with no column possible there, each die is read on its own place."""
    frame, _layout, reading = reading_of("tune", "baron_voodoo-t20-b1")
    assert reading.view is not None
    for spot in ("souls0-0", "souls0-1"):
        assert spot not in reading.doubtful and reading.view[spot] == frame.view[spot], spot


def test_a_die_a_doubted_column_lies_over_is_never_read_empty() -> None:
    """A blob asked as a column of unclear height explains its pixels: every place it lies
    over is asked with it (a blue 2 on an Underworld place, taken for the column's sides, was
    read as nothing when only the column's possible feet were asked)."""
    frame, _layout, reading = reading_of("tune", "baron_voodoo-t30-b2-side")
    assert reading.view is not None
    assert frame.view["under0-2"] == (Piece("blue", 2),)
    assert "under0-2" in reading.doubtful or reading.view.get("under0-2") == frame.view["under0-2"]


def test_a_column_whose_lower_die_is_turned_across_its_top_is_asked() -> None:
    """From 30 degrees a yellow 2 on a purple die (G3) whose turn shows it wider than the top:
    its sides, wider than a top's, were taken for no sides, and the top was read where it
    shows, on the next place out (G2), its own place empty (stop 88).  Sides wider than the
    top that lean past one die's leave its height unclear: every place its foot may stand on,
    and the one its top shows over, is asked (``Standing._wide_column``)."""
    frame, reading = kept_reading("baron_voodoo-t30-b27")
    assert reading.view is not None
    assert frame.truth["stacks"]["G3"] == [["purple", 6], ["yellow", 2]]
    assert frame.view["G3"] == (Piece("yellow", 2),) and "G2" not in frame.view
    for spot in ("G2", "G3"):
        assert reading.doubtful.get(spot) == "a column of unclear height?", reading.view.get(spot)
    right = [s for s, pieces in reading.view.items() if s not in reading.doubtful
             and pieces and pieces == frame.view.get(s, ())]
    assert len(right) >= 20, len(right)


def test_a_columns_top_past_the_boards_edge_or_beside_a_place_the_rules_rule_out_is_asked() -> None:
    """From 30 degrees (stop 88): a red 3 on a red 4 on C1, the board's far row, showed its top
    past the board's edge, over no place, and nothing vouched for C1, read empty; and a blue 6
    on a red 5 on B2, its red die's side read as a brown token where the game puts none, showed
    its top over B1, read there.  A die's top shown off every place leaves the places its blob
    lies over asked, and a place doubted for what the rules never put there may hold a column
    whose top shows over the next place (``DieSides._column_tops_over`` runs after that doubt)."""
    frame, reading = kept_reading("baron_voodoo-t30-b31")
    assert reading.view is not None
    assert frame.truth["stacks"]["C1"] == [["red", 4], ["red", 3]]
    assert frame.truth["stacks"]["B2"] == [["red", 5], ["blue", 6]] and "B1" not in frame.view
    assert "C1" in reading.doubtful, reading.view.get("C1")
    assert reading.doubtful.get("B1") == "a column's top from B2?", reading.view.get("B1")
    right = [s for s, pieces in reading.view.items() if s not in reading.doubtful
             and pieces and pieces == frame.view.get(s, ())]
    assert len(right) >= 20, len(right)


def test_an_empty_read_place_under_a_doubted_top_is_asked() -> None:
    frame, reading = kept_reading("baron_voodoo-t30-b23", "test")
    assert reading.view is not None
    assert len(frame.truth["stacks"]["A7"]) == 3 and frame.view["A7"] == (Piece("blue", 6),)
    assert "A6" not in frame.view and "A6" in reading.doubtful  # the top's place: doubted, not read
    assert reading.doubtful.get("A7") == "a column whose top is at A6?", reading.view.get("A7")


def test_an_empty_read_place_under_a_top_read_on_a_doubted_place_is_asked() -> None:
    """Held-out Baron Voodoo board 33 at 30 degrees (stop 91): a column of two on E3, a
    yellow 2 on a purple die, showed its top over E2, where it was read as a yellow 2 and E2
    was then doubted for a small patch beside it; E3, its foot's sides over the tan print,
    was read as an empty place.  A die read on a doubted place just where a column on an empty
    place would show its top makes that place asked too."""
    frame, reading = kept_reading("baron_voodoo-t30-b33", "test")
    assert reading.view is not None
    assert len(frame.truth["stacks"]["E3"]) == 2 and frame.view["E3"] == (Piece("yellow", 2),)
    assert "E2" in reading.doubtful
    assert reading.doubtful.get("E3") == "a column whose top is at E2?", reading.view.get("E3")


def test_a_column_of_unclear_height_is_read_again_knowing_the_other_tops() -> None:
    """A die with another piece against its sides has its lean only as a lower bound: a column
    of two or three standing nearer the nadir would show its top just there too, so every place
    such a column could stand on was asked (stop 92: about 200 single dice on the tuning frames
    at 20-30 degrees).  Read again knowing where other dice's tops were read, a height whose
    foot lands on such a place is no height it has (each place holds one column): on Baron
    Voodoo board 41 at 30 degrees a blue 4 on G2 and a white 6 on A2 are read."""
    frame, reading = kept_reading("baron_voodoo-t30-b41")
    assert reading.view is not None
    for spot in ("G2", "A2"):
        assert spot not in frame.truth["stacks"]  # one die each
        assert spot not in reading.doubtful, reading.doubtful.get(spot)
        assert reading.view[spot] == frame.view[spot]


def test_a_die_read_as_a_column_on_a_place_whose_own_top_is_read_again_is_read_again() -> None:
    """Once a re-read puts a top on a place, a die read as a column's top standing on that place
    is read again too: on Baron Voodoo board 42 at 30 degrees the purple 3 on E1 had been read as
    a column's top over E1 whose foot was on E2; E2's own yellow 6, its height asked at first,
    was read on a re-read, and the two made a column of purple under yellow on E2.  Read again,
    the purple die stands on E1, and E2 holds its yellow 6 alone."""
    frame, reading = kept_reading("baron_voodoo-t30-b42")
    assert reading.view is not None
    assert frame.view["E2"] == (Piece("yellow", 6),) and "E2" not in frame.truth["stacks"]
    assert "E2" not in reading.doubtful, reading.doubtful.get("E2")
    assert reading.view["E2"] == (Piece("yellow", 6),)
    assert reading.view.get("E1") in (None, (Piece("purple", 3),))  # (E1: asked or right)
    wrong = {s: p for s, p in reading.view.items()
             if s not in reading.doubtful and p != frame.view.get(s, ())}
    assert not wrong


def test_a_die_whose_sides_are_another_die_and_no_column_may_stand_is_one_die() -> None:
    """Its lean drawn out by another die's colour taken for its sides, a die fits only columns of
    two or three (``another``: both places asked, stop 85).  Where no such column may stand (the
    next place a Caught Soul's, which holds one die, or another die's top read on it), one die on
    its own place is all that is left: on Baron Voodoo board 42 at 30 degrees the red 2 on the
    first Caught Soul place, the white 2 on the next taken for its sides, is read."""
    frame, reading = kept_reading("baron_voodoo-t30-b42")
    assert reading.view is not None
    assert frame.view["souls0-0"] == (Piece("red", 2),) and "souls0-0" not in frame.truth["stacks"]
    assert "souls0-0" not in reading.doubtful, reading.doubtful.get("souls0-0")
    assert reading.view["souls0-0"] == (Piece("red", 2),)


def test_two_dice_of_one_colour_in_one_blob_where_no_column_may_stand_are_read() -> None:
    """The same with the next die of its own colour: on Baron Voodoo board 45 at 30 degrees the
    yellow 1 atop a column of two on E1 and the yellow 1 on E2 lie in one blob, whose lean, drawn
    out by E2's die, fits only a column of three, and that one's foot would be on E2, where a
    die's top was read once E2's own blob was read again: the far top stands on E1 (stop 92),
    and E2's is read on its own."""
    frame, reading = kept_reading("baron_voodoo-t30-b45")
    assert reading.view is not None
    assert len(frame.truth["stacks"]["E1"]) == 2 and "E2" not in frame.truth["stacks"]
    for spot in ("E1", "E2"):
        assert frame.view[spot] == (Piece("yellow", 1),)
        assert spot not in reading.doubtful, reading.doubtful.get(spot)
        assert reading.view[spot] == (Piece("yellow", 1),)



@pytest.mark.parametrize(("stem", "spot", "column"), [
    ("baron_voodoo-t30-b100", "G2", "G3"),
    ("baron_voodoo-t30-b82-hand", "D7", "E7"),
])
def test_two_tops_read_on_one_column_by_two_blobs_are_asked_and_the_column_beside(
        stem: str, spot: str, column: str) -> None:
    frame, reading = kept_reading(stem, "test")
    assert reading.view is not None
    assert len(frame.view[spot]) == 1 and len(frame.truth["stacks"][column]) == 2
    assert reading.doubtful.get(spot) == TOPS_AT_ONE_PLACE, reading.view.get(spot)
    assert reading.doubtful.get(column) == f"a column whose top is at {spot}?", reading.view.get(column)


def test_only_a_place_of_a_column_is_asked_for_two_dice_read_on_it() -> None:
    """Two dice on a Baron Voodoo cell (a column of up to three) are asked; two on a Caught
    Soul's place are no column's (it holds one: more than it holds, asked elsewhere); a King
    of Clubs Dancer and the Move played on it lie side by side on a place of any number."""
    baron = BoardReader(frame_layout("baron_voodoo", 4)[0])
    two = [("G2", Piece("blue", 6), 200.0, 54.0, 1.0), ("G2", Piece("yellow", 6), 196.0, 73.0, 1.0),
           ("A1", Piece("red", 2), 20.0, 20.0, 1.0)]
    assert baron._two_tops_on_a_column(two) == {"G2": TOPS_AT_ONE_PLACE}
    soul = next(s.id for s in baron.layout.spots if s.holds == 1 and s.may_hold("red"))
    assert baron._two_tops_on_a_column([(soul, Piece("red", 2), 0.0, 0.0, 1.0),
                                        (soul, Piece("blue", 3), 0.0, 0.0, 1.0)]) == {}
    clubs = BoardReader(frame_layout("king_of_clubs", 4)[0])
    assert clubs.layout.spot("p0_d1").holds == 0
    assert clubs._two_tops_on_a_column([("p0_d1", Piece("purple", 3), 0.0, 0.0, 1.0),
                                        ("p0_d1", Piece("white", 1), 0.0, 0.0, 1.0)]) == {}


def test_one_die_read_on_two_places_is_asked_at_both() -> None:
    frame, reading = kept_reading("baron_voodoo-t20-b112", "test")
    assert reading.view is not None
    assert "G4" not in frame.view and frame.truth["stacks"]["G5"][-1] == ["red", 3]
    assert reading.doubtful.get("G4") == READ_TWICE, reading.view.get("G4")
    assert reading.doubtful.get("G5") == READ_TWICE, reading.view.get("G5")


def test_only_one_die_under_a_dies_width_apart_by_a_column_is_read_twice() -> None:
    """The same piece 12 mm apart on two cells is one die; 17 mm apart, or two pieces, are two.
    Two blue 5s side by side on Caught Soul places (of one die each) read 15 mm apart from a
    slant are two dice."""
    baron = BoardReader(frame_layout("baron_voodoo", 4)[0])
    red = Piece("red", 3)
    assert baron._two_tops_on_a_column([("G4", red, 199.0, 133.0, 1.0), ("G5", red, 206.0, 143.0, 1.0)]) \
        == {"G4": READ_TWICE, "G5": READ_TWICE}
    assert baron._two_tops_on_a_column([("G4", red, 199.0, 133.0, 1.0), ("G5", red, 206.0, 148.5, 1.0)]) == {}
    assert baron._two_tops_on_a_column([("G4", red, 199.0, 133.0, 1.0),
                                        ("G5", Piece("red", 4), 206.0, 143.0, 1.0)]) == {}
    blue = Piece("blue", 5)
    assert baron._two_tops_on_a_column([("souls0-0", blue, 252.6, 28.9, 1.0),
                                        ("souls0-1", blue, 250.5, 44.2, 1.0)]) == {}



def test_a_top_read_where_no_die_of_its_place_could_show_it_is_asked() -> None:
    """Held-out Baron Voodoo board 128 at 30 degrees (stop 102): a column of two on B7, a purple 3
    on a white 6, showed its top over A7's edge and was read there as A7's die; B7, the white
    die's sides passing for its pale print, was read empty, and nothing was doubted near either.
    A top shows out from its foot along the line from the nadir: a die standing on A7, alone or
    atop a column, would show its top on A7 or further out, never a die's width in from its
    side.  The place is asked, naming the place its feet fall on, and that place with it."""
    frame, reading = kept_reading("baron_voodoo-t30-b128", "test")
    assert reading.view is not None
    assert frame.truth["stacks"]["B7"] == [["white", 6], ["purple", 3]] and "A7" not in frame.view
    assert reading.doubtful.get("A7") == "a column's top from B7?", reading.view.get("A7")
    assert reading.doubtful.get("B7") == "a column whose top is at A7?", reading.view.get("B7")
    right = [s for s, pieces in reading.view.items() if s not in reading.doubtful
             and pieces and pieces == frame.view.get(s, ())]
    assert len(right) >= 30, len(right)


def test_where_a_die_of_a_place_may_show_its_top() -> None:
    """``DieSides._foot_astray`` on that board's pose: a top out from a place's centre by one,
    two or three dice's lean is of a die standing there (0 mm astray); a top at the place's
    side nearest the nadir would need a foot a die's lean further in, on the next place."""
    frame = next(f for f in committed(KEPT_DIR, "test") if f.path.stem == "baron_voodoo-t30-b128")
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
    reader = BoardReader(layout, colours=colours, lens=frame.lens)
    reader.read(frame.image())
    assert reader.pose is not None
    a7 = layout.spot("A7")
    cx, cy = a7.x + a7.w / 2 + MARGIN_MM, a7.y + a7.h / 2 + MARGIN_MM  # canvas mm
    ux, uy, d = reader.pose.outward(cx, cy)
    for k in (1, 2, 3):
        lean = reader.pose.lean(d, k * DIE_MM)
        top = (cx + ux * lean) * SCALE, (cy + uy * lean) * SCALE
        assert reader._foot_astray("A7", *top)[0] == 0.0
    # (by B7's side, towards the nadir)
    inner = (a7.x + a7.w - 0.5 + MARGIN_MM) * SCALE, (a7.y + 2.0 + MARGIN_MM) * SCALE
    past, column = reader._foot_astray("A7", *inner)
    assert past > FOOT_ASTRAY_MM and column == "B7", (past, column)
