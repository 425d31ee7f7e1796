"""Places that hold one piece (``Spot.holds``) and tops read elsewhere: what another blob's
pixels over a place read sure may hide (``Blobs._one_held_read``), and where a column whose
top is seen may stand (``Blobs._tops_read``)."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
from committed_frames import read_committed, read_right

from companion.games import load_game
from companion.games.baron_voodoo.facts import STACK_MAX
from companion.games.base import Layout, Piece
from companion.sim.camera.frames3d import Frame3D
from companion.vision.blobs import COLUMN_OVER, HIDDEN, MARKS_UNCLEAR, _Blob
from companion.vision.die_sides import COLUMN_CLEAR_MM
from companion.vision.reader import BoardReader
from companion.vision.reading import SCALE, Reading


def _baron() -> tuple[Layout, BoardReader]:
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(2, None, 0))
    return layout, BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))


@cache
def _tuning(stem: str) -> tuple[Frame3D, Layout, BoardReader, Reading]:
    """A tuning frame read once for this module's tests (a Baron frame takes seconds cold)."""
    return read_committed("tune", stem)


def _right(stem: str, spots: tuple[str, ...]) -> None:
    read_right(stem, spots, _tuning(stem))


def test_a_mats_place_holds_one_piece_and_the_grid_a_column() -> None:
    layout, _reader = _baron()
    assert layout.spot("souls0-0").holds == 1 and layout.spot("offer1-2").holds == 1
    assert layout.spot("A1").holds == STACK_MAX
    swing = load_game("swing_state")
    swing_layout = swing.layout(swing.setup(3, None, 0))
    assert [s.id for s in swing_layout.spots if s.holds == 1] == ["die"]  # its one die's place
    assert all(s.holds == 0 for s in swing_layout.spots if s.id != "die")  # the rest left open


def test_a_neighbours_blob_hides_nothing_more_on_a_place_of_one_read_sure() -> None:
    _layout, reader = _baron()
    blue, red = Piece("blue", 2), Piece("red", 5)

    def told(own: _Blob, cell: str = "souls0-0") -> list[tuple[str, str]]:
        other = _Blob(doubts=[(cell, HIDDEN)], found=[("souls0-1", red, 0.0, 0.0, 1.0)])
        return reader._one_held_read([other, own])[0].doubts

    assert told(_Blob(found=[("souls0-0", blue, 0.0, 0.0, 1.0)])) == []  # read sure by its own blob
    assert told(_Blob(found=[("souls0-0", blue, 0.0, 0.0, 0.4)])) == [("souls0-0", HIDDEN)]  # not sure
    doubted = _Blob(doubts=[("souls0-0", "glare?")], found=[("souls0-0", blue, 0.0, 0.0, 1.0)])
    assert told(doubted) == [("souls0-0", HIDDEN)]  # doubted for itself too
    # a column's place (it takes dice only) whose top its own blob read sure: its lower dice lie
    # under that top, nothing else (stop 92)
    assert told(_Blob(found=[("A1", blue, 0.0, 0.0, 1.0)]), "A1") == []
    assert told(_Blob(found=[("A1", blue, 0.0, 0.0, 0.4)]), "A1") == [("A1", HIDDEN)]  # not sure
    # a blob that read nothing elsewhere (a piece too small for itself): its doubt stands
    alone = _Blob(doubts=[("souls0-0", HIDDEN)])
    assert reader._one_held_read([alone, _Blob(found=[("souls0-0", blue, 0.0, 0.0, 1.0)])])[0] is alone


def test_a_place_that_takes_other_pieces_than_dice_keeps_its_doubt() -> None:
    """Swing State's places hold any number of cheat cards and vote chips, none a die: a piece
    read sure there may have another beside it that a neighbour's blob hides."""
    swing = load_game("swing_state")
    layout = swing.layout(swing.setup(3, None, 0))
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))
    place = layout.spot("r1-31")
    assert place.holds == 0 and place.takes and not place.takes <= reader._dice_colours()
    other = _Blob(doubts=[("r1-31", HIDDEN)], found=[("r1-32-red", Piece("red", 0), 0.0, 0.0, 1.0)])
    own = _Blob(found=[("r1-31", Piece("black", 0), 0.0, 0.0, 1.0)])
    assert reader._one_held_read([other, own])[0].doubts == [("r1-31", HIDDEN)]


def test_a_die_under_a_neighbours_lean_on_a_column_place_read_sure_is_read() -> None:
    # Baron Voodoo at 30 degrees: B1's yellow 2, read sure by its own blob, was asked as partly
    # hidden under the blob of the die beside it, whose lean reaches over it
    _right("baron_voodoo-t30-b2", ("B1",))


def test_a_tops_place_is_where_another_blob_read_a_die_sure() -> None:
    _layout, reader = _baron()
    unclear = _Blob(doubts=[("B2", MARKS_UNCLEAR)], found=[("B2", Piece("purple", 6), 0.0, 0.0, 0.4)])
    blobs = [unclear,
             _Blob(found=[("B1", Piece("red", 3), 0.0, 0.0, 1.0)]),
             _Blob(found=[("C2", Piece("yellow", 4), 0.0, 0.0, 0.4)], doubts=[("C2", MARKS_UNCLEAR)]),
             _Blob(found=[("A2", Piece("blue", 1), 0.0, 0.0, 1.0)], doubts=[("A2", "glare?")])]
    assert reader._tops_read(blobs, unclear) == frozenset({"B1"})
    assert reader._tops_read(blobs, blobs[1]) == frozenset()  # its own read is no other's top


def test_only_a_place_under_a_piece_seen_beside_it_keeps_its_doubt_to_itself() -> None:
    _layout, reader = _baron()
    red, blue = Piece("red", 5), Piece("blue", 2)
    leaning = _Blob(doubts=[("souls0-2", HIDDEN)], found=[("souls0-1", red, 0.0, 0.0, 1.0)])
    assert reader._under_seen([leaning]) == {"souls0-2"}  # under the red die, seen whole
    # a piece too small for its place, partly hidden by what is not seen: its doubt reaches on
    small = _Blob(doubts=[("souls0-2", HIDDEN)])
    assert reader._under_seen([leaning, small]) == set()
    own = _Blob(doubts=[("souls0-1", HIDDEN)], found=[("souls0-1", blue, 0.0, 0.0, 1.0)])
    assert reader._under_seen([own]) == set()  # doubted at the place its own piece was read at


def test_the_places_beside_one_under_a_die_seen_whole_are_read() -> None:
    # Offerings and score places beside a Caught Soul a die leans over, doubted "next to
    # Mami Wata: Caught Soul 2, partly hidden?" before: the die over it is seen whole
    _right("baron_voodoo-t20-b2-more", ("offer0-0", "offer0-1", "offer0-2", "offer1-0", "offer1-1",
                                            "track0-0", "track1-3"))


def test_a_speck_lying_as_its_dies_side_hides_nothing() -> None:
    """A patch too small for any piece (``_Blob.speck``) between a die read at its place and
    the camera's nadir is that die's side in shade (a yellow die's brown): no doubt.  Away
    from the nadir, or on a place where no die was read, it may be all that shows of a piece."""
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.pose import DIE_MM
    from companion.vision.reading import SCALE

    _frame, _layout, reader, _reading = _tuning("baron_voodoo-t20-b0")
    assert reader.pose is not None
    x, y = 60.0, 60.0  # a die's top read on B2
    ux, uy, _d = reader.pose.outward(x + MARGIN_MM, y + MARGIN_MM)
    die = _Blob(found=[("B2", Piece("yellow", 5), x, y, 1.0)])

    def speck(step_mm: float, spot: str = "B2") -> list[tuple[str, str]]:
        at = ((x + MARGIN_MM + ux * step_mm) * SCALE, (y + MARGIN_MM + uy * step_mm) * SCALE)
        return reader._one_held_read([_Blob(doubts=[(spot, HIDDEN)], speck=at), die])[0].doubts

    assert speck(-0.6 * DIE_MM) == []  # towards the nadir: its side
    assert speck(0.6 * DIE_MM) == [("B2", HIDDEN)]  # beyond its top: no side of it lies there
    assert speck(-0.6 * DIE_MM, "C2") == [("C2", HIDDEN)]  # on a place no die was read at
    # and on the frame: G1's yellow 5, its shaded side a brown speck apart from its top
    _right("baron_voodoo-t20-b0", ("G1",))


def test_a_piece_seen_clear_of_a_columns_blob_has_nothing_behind_the_column() -> None:
    """A column's sides, from a slant, lie over the place beyond it (``COLUMN_OVER``).  A piece
    read sure there by a blob apart from the column's by a strip of board hides nothing
    behind the column: a lower die under it would fill that strip."""
    _layout, reader = _baron()
    column = _Blob(doubts=[("E1", COLUMN_OVER)], found=[("E2", Piece("purple", 5), 0.0, 0.0, 1.0)],
                   box=(88, 114, 191, 211))

    def told(own: _Blob) -> list[tuple[str, str]]:
        return reader._one_held_read([column, own])[0].doubts

    def piece(bottom: int, conf: float = 1.0, doubts: tuple = ()) -> _Blob:
        return _Blob(found=[("E1", Piece("purple", 2), 0.0, 0.0, conf)], doubts=list(doubts),
                     box=(bottom - 17, bottom, 193, 210))

    clear = int(88 - COLUMN_CLEAR_MM * SCALE)
    assert told(piece(clear)) == []  # a strip of board between them
    assert told(piece(clear + 1)) == [("E1", COLUMN_OVER)]  # too near: its foot may be behind
    assert told(piece(clear, conf=0.4)) == [("E1", COLUMN_OVER)]  # not read sure
    assert told(piece(clear, doubts=(("E1", "glare?"),))) == [("E1", COLUMN_OVER)]  # doubted itself
    assert told(_Blob(found=[("E1", Piece("purple", 2), 0.0, 0.0, 1.0)])) == [("E1", COLUMN_OVER)]  # no box
    # and on the frame: E1's purple 2, 7 mm of board from E2's column of two (20 degrees)
    _right("baron_voodoo-t20-b0", ("E1",))


def test_a_taller_column_is_looked_for_only_where_its_foot_could_stand() -> None:
    """A die's top seen over a place is read there only when no taller column could show it
    (``PieceMarks._one_place_whatever_height``): one on the place nearer the camera's nadir,
    unless a die's top was read there.  A mat's place holds one die (``Spot.holds``), so no
    column stands on it; and a foot off every place, farther than ``FOOT_REACH_MM`` from
    one, is no column's."""
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.piece_marks import FOOT_REACH_MM
    from companion.vision.pose import DIE_MM, MOST_STACKED

    _frame, layout, reader, _reading = _tuning("baron_voodoo-t20-b2-more")
    assert reader.pose is not None

    def top_over(spot_id: str) -> tuple[float, float]:
        spot = layout.spot(spot_id)
        return spot.x + spot.w / 2 + MARGIN_MM, spot.y + spot.h / 2 + MARGIN_MM

    def foot(x: float, y: float, height: int = MOST_STACKED) -> str | None:
        fx, fy = reader.pose.feet(x, y, DIE_MM, MOST_STACKED)[height - 1]
        return reader._spot_at(fx - MARGIN_MM, fy - MARGIN_MM)

    # a Caught Soul's top: a column of three would stand on the next Caught Soul, a place of one
    x, y = top_over("souls0-0")
    assert foot(x, y) == "souls0-1" and layout.spot("souls0-1").holds == 1
    assert reader._one_place_whatever_height(x, y)
    # a grid place's top whose column of three would stand on the next grid place: unclear,
    # unless a die's top was read on that place
    grid = [s.id for s in layout.spots if len(s.id) == 2]
    over = [(s, foot(*top_over(s))) for s in grid]
    x, y, nearer = next((*top_over(s), at) for s, at in over if at in grid and at != s
                        and foot(*top_over(s), MOST_STACKED - 1) == s
                        and reader._column_fits(at, *reader.pose.feet(*top_over(s), DIE_MM, MOST_STACKED)[-1])
                        and not reader._board_where_sides_would_be(
                            *top_over(s), *reader.pose.feet(*top_over(s), DIE_MM, MOST_STACKED)[::2]))
    assert not reader._one_place_whatever_height(x, y)
    reader._topped = frozenset({nearer})
    assert reader._one_place_whatever_height(x, y)
    reader._topped = frozenset()
    # a top whose column of three would stand off the grid, farther than a foot's reach
    # from any place (at the grid's edge nearest the nadir): none stands there
    def off_the_grid(x: float, y: float) -> bool:
        feet = reader.pose.feet(x, y, DIE_MM, MOST_STACKED)
        return not reader._places_near(*feet[-1]) and all(
            reader._spot_at(fx - MARGIN_MM, fy - MARGIN_MM) == reader._spot_at(x - MARGIN_MM, y - MARGIN_MM)
            for fx, fy in feet[:-1])

    tops = [(top_over(s)[0] + dx, top_over(s)[1] + dy) for s in grid
            for dx in range(-13, 14) for dy in range(-13, 14)]
    off = [(x, y) for x, y in tops if off_the_grid(x, y)]
    assert off and all(reader._one_place_whatever_height(x, y) for x, y in off)
    # (a foot in the gutter between two places may stand on either; on a place, on that one)
    a1, b1 = layout.spot("A1"), layout.spot("B1")
    gutter = ((a1.x + a1.w + b1.x) / 2 + MARGIN_MM, a1.y + a1.h / 2 + MARGIN_MM)
    assert b1.x - (a1.x + a1.w) < 2 * FOOT_REACH_MM and reader._places_near(*gutter) == {"A1", "B1"}
    assert reader._places_near(gutter[0] - 2, gutter[1]) == {"A1"}
    # and on the frames: the Caught Souls, and B1's yellow 2 (20 degrees, a low light)
    _right("baron_voodoo-t20-b2-more", ("souls0-0", "souls1-0"))
    _right("baron_voodoo-t20-b2-falloff", ("B1", "souls1-2"))


def test_a_dies_top_past_its_places_edge_stands_on_the_place_it_is_read_at() -> None:
    """From a slant a die's top shows out past its place (between two places, or over the
    next one out): its foot, not its top, says where it stands.  Read at its foot's place,
    with no taller column possible, it is read; a top whose foot is on another place than
    the one its blob is read at is not vouched for there."""
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.pose import DIE_MM, MOST_STACKED

    _frame, layout, reader, _reading = _tuning("baron_voodoo-t30-b1-more")
    assert reader.pose is not None
    soul = layout.spot("souls0-0")
    # a top over no place whose die's foot (one die high) lies on souls0-0: out along the
    # line from the nadir past the Caught Soul's edge
    cx, cy = soul.x + soul.w / 2 + MARGIN_MM, soul.y + soul.h / 2 + MARGIN_MM
    ux, uy, _d = reader.pose.outward(cx, cy)
    tops = [(cx + ux * step, cy + uy * step) for step in np.arange(0.0, 30.0, 0.5)]
    past = [(x, y) for x, y in tops if reader._spot_at(x - MARGIN_MM, y - MARGIN_MM) is None
            and reader._spot_at(*(np.array(reader.pose.feet(x, y, DIE_MM, MOST_STACKED)[0]) - MARGIN_MM))
            == "souls0-0"]
    assert past
    x, y = past[0]
    assert reader._one_place_whatever_height(x, y, "souls0-0")
    assert not reader._one_place_whatever_height(x, y)  # read at no place it stands on
    assert not reader._one_place_whatever_height(x, y, "souls0-1")
    # and on the frame (30 degrees): the Caught Soul's blue 5 and E1's purple 4
    _right("baron_voodoo-t30-b1-more", ("souls0-0", "E1"))


def test_a_row_of_dice_from_a_slant_is_read_from_the_nadir_out() -> None:
    """Each die of a row going out from the camera's nadir is unclear while a column on the
    place nearer the nadir could show its top over it; once that place's top is read sure
    on a re-read, the next die out is read again knowing it, and so on down the row (Baron
    Voodoo at 30 degrees: D5's red 6 and G4's white 4, each waiting on the die before it)."""
    _right("baron_voodoo-t30-b1-more", ("D5", "G4"))
    _right("baron_voodoo-t30-b0", ("A2",))


def test_a_taller_column_stands_only_with_its_die_within_its_place() -> None:
    """A column's foot worked out from its top (within ``FOOT_REACH_MM``) must leave its die
    within the place's sides give or take ``FOOT_SLACK_MM``: a foot near a place's edge, or in
    the gutter beside it, is no column's there (the die would hang half over the edge)."""
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.piece_marks import FOOT_REACH_MM
    from companion.vision.pose import DIE_MM, FOOT_SLACK_MM

    layout, reader = _baron()
    a2 = layout.spot("A2")
    inset = DIE_MM / 2 - FOOT_SLACK_MM - FOOT_REACH_MM
    middle = (a2.x + a2.w / 2 + MARGIN_MM, a2.y + a2.h / 2 + MARGIN_MM)
    assert reader._column_fits("A2", *middle)
    assert reader._column_fits("A2", a2.x + inset + MARGIN_MM, middle[1])
    assert not reader._column_fits("A2", a2.x + inset - 0.5 + MARGIN_MM, middle[1])  # by its edge
    assert not reader._column_fits("A2", middle[0], a2.y - 1.0 + MARGIN_MM)  # in the gutter above it
    # and on the frames: a row of dice at 30 degrees whose taller columns' feet fell by the
    # next place's edge, and a purple 6 whose would have stood in the gutter (20 degrees)
    _right("baron_voodoo-t30-b1-more", ("A4", "C3", "C4", "C5"))
    _right("baron_voodoo-t20-b2-falloff", ("A1",))


def test_a_dies_top_is_the_band_of_its_colour_farthest_from_the_nadir() -> None:
    """A die off the camera's nadir shows a side between its top and the nadir: its colour's
    mask is longer out from the nadir than across, and its top is the band farthest out, as
    deep as the mask is wide (a square's extent is the same along and across however it is
    turned).  With no side shown, or right under the camera, there is nothing to cut."""
    from companion.vision.piece_marks import PieceMarks

    mask = np.zeros((40, 40), np.uint8)
    mask[8:24, 10:26] = 1  # the top, 16 px square ...
    mask[24:30, 11:25] = 1  # ... and its side towards the nadir (the nadir lies down the crop)
    top = PieceMarks._top_band(mask, (0.0, -1.0), 4.0)  # (outward: up the crop)
    assert top is not None
    kept = top & (mask > 0)
    assert kept[8:24, 10:26].all() and not kept[25:30].any()
    assert PieceMarks._top_band(mask[:24], (0.0, -1.0), 4.0) is None  # no side shown
    assert PieceMarks._top_band(mask, None, 4.0) is None  # right under the camera
    turned = np.zeros((60, 60), np.uint8)  # a die turned 45 degrees, its side down the crop
    cv2.fillConvexPoly(turned, np.array([[30, 8], [41, 19], [30, 30], [19, 19]], np.int32), 1)
    cv2.fillConvexPoly(turned, np.array([[19, 19], [30, 30], [41, 19], [41, 26], [30, 37], [19, 26]],
                                        np.int32), 1)
    top = PieceMarks._top_band(turned, (0.0, -1.0), 4.0)
    assert top is not None and not (top & (turned > 0))[32:].any() and (top & (turned > 0))[8:29, 30].all()


def test_a_die_not_seen_standing_is_read_on_its_top_alone() -> None:
    """Baron Voodoo under a reading lamp at 20 degrees: a white 5 and a yellow 6 whose sides
    were not seen in their colour's shade (so not as standing dice) were unclear with their
    sides' marks in their count; read on the band of their colour farthest from the nadir
    (``PieceMarks._top_band``), they are read sure and right, and nothing is read wrong."""
    _right("baron_voodoo-t20-b2-falloff", ("A2", "E2"))
