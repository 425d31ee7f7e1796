"""A glossy die's top under a broad sheen (``Classifying._sheen_lit_dice``): the lamp's light
mirrored over most of a purple or blue top lifts it to lilac or pale blue, and only the rim
keeps the die's colour, broken where its blur meets the print.  The lit top is the die's for
counting its marks; a thin band of the die's colour blurred into a light print is not."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import kept_reading, read_committed, read_right, reading_of

from companion.games import load_game
from companion.games.base import Piece
from companion.vision.reader import BoardReader

PX_PER_MM = 4.0  # the crops marks are counted on
PRINT = (150, 180, 200)  # a tan print (BGR)


def _reader() -> BoardReader:
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(2, None, 0))
    return BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))


def _mixed(colour: np.ndarray, white: float) -> tuple[int, int, int]:
    return tuple(int(v) for v in np.round((1 - white) * colour + white * 245.0))


@pytest.mark.parametrize("colour_name", ["purple", "blue"])
def test_a_top_lit_inside_a_broken_rim_is_the_dies(colour_name: str) -> None:
    reader = _reader()
    index = reader._piece_names.index(colour_name)
    colour = reader._piece_bgr[index]
    side = int(16 * PX_PER_MM)
    crop = np.full((side + 40, side + 40, 3), PRINT, np.uint8)
    top = (20, 20, 20 + side, 20 + side)
    cv2.rectangle(crop, top[:2], top[2:], tuple(int(v) for v in colour), -1)
    inner = (27, 27, 13 + side, 13 + side)
    cv2.rectangle(crop, inner[:2], inner[2:], _mixed(colour, 0.35), -1)  # the sheen over most of it
    cv2.rectangle(crop, (20, 40), (28, 60), PRINT, -1)  # the rim broken where its blur met the print
    for x, y in ((34, 34), (side + 6, side + 6)):  # a 2's white pips
        cv2.circle(crop, (x, y), 5, (245, 245, 245), -1)
    labels = reader._classify_clipped(crop, crop)
    assert (labels[30:side + 10, 30:side + 10] == index).mean() < 0.2  # the sheen passes for no colour
    lit = reader._sheen_lit_dice(crop, labels, PX_PER_MM)
    assert (lit[30:side + 10, 30:side + 10] == index).mean() > 0.8
    assert lit[34, 34] != index and lit[side + 6, side + 6] != index  # a white pip stays a pip
    assert (lit[:15] == index).sum() == 0  # the print stays the print


def test_a_thin_band_of_a_dies_colour_in_a_light_print_is_not_its_top() -> None:
    reader = _reader()
    index = reader._piece_names.index("red")
    colour = reader._piece_bgr[index]
    crop = np.full((104, 104, 3), (215, 225, 235), np.uint8)  # a cream place
    cv2.rectangle(crop, (20, 20), (84, 84), tuple(int(v) for v in colour), -1)
    cv2.rectangle(crop, (84, 20), (87, 84), _mixed(colour, 0.5), -1)  # its blur into the cream
    labels = reader._classify_clipped(crop, crop)
    lit = reader._sheen_lit_dice(crop, labels, PX_PER_MM)
    assert (lit[20:84, 85:88] == index).sum() == 0


def test_dice_under_a_broad_sheen_are_read_on_the_tuning_frames() -> None:
    # a purple 6 whose top the desk lamp lit lilac: five pips found on specks of its rim, now
    # six on its top (and the frame, two dice unclear before, reads exact)
    read_right("baron_voodoo-t10-b2", ("G3", "B3"))
    frame, layout, reading = reading_of("tune", "baron_voodoo-t10-b2")
    assert reading.view is not None and not reading.doubtful


def test_a_far_red_two_with_a_pip_lost_keeps_its_doubt() -> None:
    # King of Clubs at 30°: a red 2 far out in the view, one pip lost to its rim.  Read again
    # with red's marks raised (the sheen now lets more red dice show red's contrast), its lone
    # strong pip seemed its top's middle: a 1 read with no doubt, until a raised contrast that
    # finds no mark the plain read missed was taken to leave its doubt standing
    frame, _layout, reading = reading_of("tune", "king_of_clubs-t30-b0")
    assert reading.view is not None
    assert "p1_d1" in (reading.doubtful or {}) or reading.view.get("p1_d1") == frame.view.get("p1_d1")


def test_a_die_read_as_specks_of_its_rim_is_read_whole_on_the_board() -> None:
    # a purple 2 under the track's spots: its top lit lilac, its rim broken, so the board held
    # only specks of purple (the largest 7 mm across) and something over the board beside them.
    # And a purple 5 beside it, lit lilac over most of its top: its sheen taken off as the
    # face's median round each pixel, its five marks stand alone
    read_right("baron_voodoo-t00-b0-track", ("E1", "G3"))


def test_a_blob_of_four_colours_keeps_a_die_of_its_least() -> None:
    reader = _reader()
    names = reader._piece_names
    for least, kept in (("purple", True), ("orange", False)):  # a die's colour; a token's
        labels = np.full((40, 40), 255, np.uint8)
        spans = ((0, 12), (12, 23), (23, 33), (33, 40))
        for name, (x0, x1) in zip(("yellow", "brown", "red", least), spans, strict=True):
            labels[:, x0:x1] = names.index(name)  # four patches, touching, the last the least
        votes = np.bincount(labels.ravel(), minlength=256)[:len(names)]
        pieces = reader._split_by_colour(labels, np.ones(labels.shape, bool), 0, 0, votes)
        assert sorted(names[index] for index, *_ in pieces) \
            == sorted(["yellow", "brown", "red"] + ([least] if kept else []))


def test_a_patch_ringed_by_its_pieces_own_marks_is_that_piece_not_another() -> None:
    """Stop 89: a Jivecat black card's code of 8, its white marks in a ring, parted the card's
    black middle from its rim; the blob split by colour read the middle as a black token of its
    own at the card's place.  A patch inside a larger one of its colour is its middle."""
    reader = _reader()
    names = reader._piece_names
    labels = np.full((32, 32), names.index("black"), np.uint8)
    labels[8:24, 8:24] = names.index("white")  # the marks' ring (wide enough to survive the opening)
    labels[12:20, 12:20] = names.index("black")  # the card's middle, inside it
    votes = np.bincount(labels.ravel(), minlength=256)[:len(names)]
    pieces = reader._split_by_colour(labels, np.ones(labels.shape, bool), 0, 0, votes)
    assert sorted((names[index], box[2]) for index, _c, box, _p in pieces) == [("black", 32), ("white", 16)]
    # and on the fresh tuning frame that showed it: the card is read as one piece
    frame, reading = kept_reading("jivecat-t00-b42")
    assert reading.view is not None and frame.view["tableau-1-0"] == (Piece("black", 8),)
    assert "tableau-1-0" not in reading.doubtful
    assert reading.view["tableau-1-0"] == frame.view["tableau-1-0"]


def test_no_column_is_read_standing_on_a_place_where_a_dies_top_was_read(monkeypatch) -> None:
    # at 30° a yellow 3 leaning over from B1 fits a column of two standing on B2, where a blue
    # 6's top was read: a lower die's top is never seen, so no column stands there.  The yellow
    # 3 was told as B2's top (only a patch of shade beside it kept B2 in doubt)
    from companion.vision.blobs import Blobs

    told: list[tuple[str, str]] = []
    tell = Blobs._tell

    def record(blob, *args) -> None:  # type: ignore[no-untyped-def]
        told.extend((spot, piece.colour) for spot, piece, *_ in blob.found)
        tell(blob, *args)

    monkeypatch.setattr(Blobs, "_tell", staticmethod(record))
    frame, layout, _reader, reading = read_committed("tune", "baron_voodoo-t30-b1")  # read afresh: patched
    assert ("B2", "yellow") not in told
    doubtful = dict(reading.doubtful or {})
    assert reading.view is not None
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_light_dies_five_under_a_sheen_is_read() -> None:
    # Swing State's white 5 under a sheen: a reflection only lightens a light die's dark marks,
    # hiding one at most, and no face less one pip is a 5 (a 6 less one leaves five in two rows)
    read_right("swing_state-t10-b0-more", ("die",))
    frame, layout, reading = reading_of("tune", "swing_state-t10-b0-more")
    assert not reading.doubtful
