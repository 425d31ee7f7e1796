"""Figures seen from a slant (issue 40): a pawn's blob drawn out along the line from the
camera's nadir is one pawn, read at its base; two pieces in a row are not; a figure's side in
shade is the figure though it reads as a colourless piece's colour or its hue lies near the
print's (companion/vision/slant.py, standing.py)."""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import kept_reading

from companion.games import load_game
from companion.games.base import Piece
from companion.vision.geometry import MARGIN_MM
from companion.vision.pose import CameraPose
from companion.vision.reader import BoardReader
from companion.vision.slant import leaned_from, leaning_figure
from companion.vision.standing import _hue_of

# a camera 86 cm up whose nadir is 500 mm left of the blobs below (x grows away from it)
POSE = CameraPose((-400.0, 100.0), 860.0)


def _mask(parts: list[tuple[int, int, int]], size: tuple[int, int] = (40, 60)) -> np.ndarray:
    """Discs (centre x, centre y, radius; px at 1 px/mm) on an empty mask, as one blob."""
    mask = np.zeros(size, np.uint8)
    for x, y, r in parts:
        cv2.circle(mask, (x, y), r, 1, -1)
    return mask > 0


def test_a_pawn_drawn_out_by_the_slant_is_one_pawn_read_at_its_base():
    # base 16 mm across at x 8..24, body and head out to x 44 (away from the nadir), narrower
    pawn = _mask([(16, 20, 8), (26, 20, 5), (34, 20, 4), (40, 20, 4)])
    found = leaning_figure(POSE, pawn, 100, 80, 1.0)
    assert found is not None
    fx, fy = found.foot
    assert abs(fx - (100 + 16.5)) <= 1.5 and abs(fy - (80 + 20.5)) <= 1.0  # the base's centre
    assert found.length > 1.5 * found.width


def test_a_top_seen_off_every_place_leans_from_a_foot_nearer_the_nadir() -> None:
    """A piece 50 mm tall whose top shows 500 mm out from the nadir of a camera 860 mm up
    stands within 500 * 50 / 860 = 29 mm of that point, on the line in toward the nadir."""
    ys, xs = leaned_from(POSE, 100.0, 100.0, 1.0, height_mm=50.0)  # (500 mm right of the nadir)
    assert (ys == 100).all()
    assert xs[0] == 100 and xs.max() == 100 and 70 <= xs.min() <= 72
    assert len(xs) >= 29 and (np.diff(xs) <= 0).all()  # every pixel of the way, in toward the nadir


def test_a_heads_hue_is_a_piece_colours_and_the_prints_own_hue_is_none() -> None:
    """A patch over no place is a figure's head only in a piece's hue: a blue head in shade is
    blue, a grey one the black piece's, and a patch of the tan print's own hue (a lamp's pool,
    a shade) is no head at all (``standing._hue_of``)."""
    colours = np.array([(30, 30, 30), (170, 60, 40), (60, 150, 60), (150, 90, 220)], float)  # BGR
    tan = np.array([150.0, 180.0, 200.0])
    assert _hue_of(np.array([146.0, 96.5, 67.0]), colours, tan) == 1  # Times Square's blue head
    assert _hue_of(np.array([70.0, 72.0, 75.0]), colours, tan) == 0
    assert _hue_of(np.array([120.0, 150.0, 170.0]), colours, tan) is None  # the print, dimmed
    assert _hue_of(np.array([100.0, 102.0, 104.0]), colours[1:], tan) is None  # grey, and no grey piece


def test_a_dancer_hidden_but_its_head_leaves_its_place_asked() -> None:
    """Stop 87: from 30 degrees a blue dancer behind a pink one on the same space showed only its
    head, over the board beyond the space; something over no place was asked of no place, and
    the space was read as the pink dancer alone.  It is asked of the places a figure may stand on
    whose head shows there."""
    frame, reading = kept_reading("times_square-t30-b17")
    assert reading.view is not None
    assert frame.view["s7"] == (Piece("blue", 0), Piece("pink", 0))
    assert "s7" in reading.doubtful, reading.view.get("s7")


def test_two_pieces_in_a_row_or_a_figure_too_tall_for_its_lean_are_not_one_figure():
    two = _mask([(16, 20, 8), (32, 20, 8)])  # two bases touching: as wide past the first
    assert leaning_figure(POSE, two, 100, 80, 1.0) is None
    across = _mask([(20, 12, 8), (20, 28, 8)])  # two across the line: not drawn out along it
    assert leaning_figure(POSE, across, 100, 80, 1.0) is None
    near = CameraPose((110.0, 100.0), 860.0)  # the blob is under the camera: no lean to speak of
    pawn = _mask([(16, 20, 8), (26, 20, 5), (34, 20, 4), (40, 20, 4)])
    assert leaning_figure(near, pawn, 100, 80, 1.0) is None


def test_a_figure_leaning_little_is_read_at_its_base_and_two_side_by_side_are_not() -> None:
    """A blob whose box is too long for one piece (over 1.5 times its width) but no longer than
    that along the line from the nadir: a figure leaning little (stop 86: Times Square's dancers
    from 30 degrees, boxes of 17 x 26 px, were asked as pieces touching)."""
    short = _mask([(16, 20, 8), (22, 20, 6), (27, 20, 4)])  # 17 px across, 24 along
    found = leaning_figure(POSE, short, 100, 80, 1.0)
    assert found is not None and found.width <= found.length <= 1.5 * found.width
    fx, fy = found.foot
    assert abs(fx - (100 + 16.5)) <= 1.5 and abs(fy - (80 + 20.5)) <= 1.0  # the base's centre
    side_by_side = _mask([(20, 14, 8), (20, 26, 8)])  # 29 across the line, 17 along it
    assert leaning_figure(POSE, side_by_side, 100, 80, 1.0) is None


def test_a_dancer_from_thirty_degrees_is_read_at_its_place() -> None:
    frame, reading = kept_reading("times_square-t30-b9")
    assert reading.view is not None
    assert frame.view["s14"] == (Piece("black", 0),)
    assert "s14" not in reading.doubtful and reading.view["s14"] == frame.view["s14"]


def _reader(game_name: str) -> BoardReader:
    game = load_game(game_name)
    layout = game.layout(game.setup(game.min_players, None, 0))
    return BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))


def _figure_with_side(reader: BoardReader, colour: str, side_bgr: tuple[int, int, int], side_label: int):
    """The empty board drawn flat, with a figure's lit half of ``colour`` on a place and, joined
    to it, its other half as ``side_bgr`` labelled ``side_label``."""
    flat = reader._reference.copy()
    h, w = flat.shape[:2]
    labels = np.full((h, w), len(reader._piece_names), np.uint8)
    as_empty = np.ones((h, w), bool)
    index = reader._piece_names.index(colour)
    cy, cx = h // 2, w // 2
    flat[cy - 6:cy + 6, cx - 6:cx] = reader._piece_bgr[index].astype(np.uint8)
    labels[cy - 6:cy + 6, cx - 6:cx] = index
    flat[cy - 6:cy + 6, cx:cx + 6] = side_bgr
    labels[cy - 6:cy + 6, cx:cx + 6] = side_label
    as_empty[cy - 6:cy + 6, cx - 6:cx + 6] = False
    return flat, labels, as_empty, (cy, cx), index


def test_a_blue_figures_side_read_as_black_is_the_figure_and_a_black_piece_stays_black():
    reader = _reader("times_square")
    black = reader._piece_names.index("black")
    flat, labels, as_empty, (cy, cx), blue = _figure_with_side(reader, "blue", (76, 35, 16), black)
    out = reader._piece_shades(flat, labels, as_empty)
    assert (out[cy - 6:cy + 6, cx:cx + 6] == blue).all()
    # a black piece against a blue figure: colourless, so black it stays
    flat, labels, as_empty, (cy, cx), blue = _figure_with_side(reader, "blue", (24, 22, 20), black)
    out = reader._piece_shades(flat, labels, as_empty)
    assert (out[cy - 6:cy + 6, cx:cx + 6] == black).all()


def test_a_pink_figures_shade_on_pale_print_is_the_figure_and_the_prints_shadow_is_not():
    reader = _reader("times_square")
    reader._reference[:] = (175, 205, 220)  # a pale print whose hue lies near pink's
    flat, labels, as_empty, (cy, cx), pink = _figure_with_side(reader, "pink", (77, 50, 124), 255)
    out = reader._piece_shades(flat, labels, as_empty)
    assert (out[cy - 6:cy + 6, cx:cx + 6] == pink).all()
    shadow = (96, 113, 121)  # the pale print at 55 %: its own hue
    flat, labels, as_empty, (cy, cx), pink = _figure_with_side(reader, "pink", shadow, 255)
    out = reader._piece_shades(flat, labels, as_empty)
    assert (out[cy - 6:cy + 6, cx:cx + 6] == 255).all()


def _sheen_board(reader: BoardReader, spot_id: str, top_bgr, side: int = 13, shaded_ring: bool = False):
    """The empty board drawn flat with a ``side`` px square of ``top_bgr`` on a place, labelled
    as the print's darkest colour and not the empty board; with ``shaded_ring`` the print round
    it dimmed evenly too (a shade reaching past it)."""
    flat = reader._reference.copy()
    h, w = flat.shape[:2]
    surfaces = len(reader._piece_names)
    dark_fill = surfaces + reader._surface_names.index("dark_fill")
    labels = np.full((h, w), surfaces, np.uint8)
    as_empty = np.ones((h, w), bool)
    spot = reader.layout.spot(spot_id)
    cx, cy = int(spot.x + spot.w / 2 + MARGIN_MM), int(spot.y + spot.h / 2 + MARGIN_MM)
    if shaded_ring:
        box = (slice(cy - side, cy + side), slice(cx - side, cx + side))
        flat[box] = (flat[box] * 0.45).astype(np.uint8)
        labels[box] = dark_fill
        as_empty[box] = False
    box = (slice(cy - side // 2, cy - side // 2 + side), slice(cx - side // 2, cx - side // 2 + side))
    flat[box] = top_bgr
    labels[box] = dark_fill
    as_empty[box] = False
    return flat, labels, as_empty, box


def test_a_black_token_lifted_by_its_sheen_is_black_and_a_shadow_or_a_grey_piece_is_not():
    reader = _reader("jivecat")
    black = reader._piece_names.index("black")
    flat, labels, as_empty, box = _sheen_board(reader, "mat0-skull0", (82, 85, 83))
    out = reader._dark_in_sheen(flat, labels, as_empty)
    assert (out[box] == black).mean() > 0.7  # (its rim pixel is opened off)
    # the print dimmed evenly (a shadow on the place): its own hue, so no piece
    flat, labels, as_empty, box = _sheen_board(reader, "mat0-skull0", (0, 0, 0))
    flat[box] = (reader._reference[box] * 0.45).astype(np.uint8)
    assert not (reader._dark_in_sheen(flat, labels, as_empty)[box] == black).any()
    # a grey piece in the print's light is lighter than a black one's sheen
    flat, labels, as_empty, box = _sheen_board(reader, "mat0-skull0", (128, 130, 129))
    assert not (reader._dark_in_sheen(flat, labels, as_empty)[box] == black).any()
    # in a shade that reaches past it (a hand's shadow over a grey piece): not told
    flat, labels, as_empty, box = _sheen_board(reader, "mat0-skull0", (82, 85, 83), shaded_ring=True)
    assert not (reader._dark_in_sheen(flat, labels, as_empty)[box] == black).any()
    # wider than any piece its place holds (a sleeve, a phone): not a piece
    flat, labels, as_empty, box = _sheen_board(reader, "T25", (82, 85, 83), side=40)
    assert not (reader._dark_in_sheen(flat, labels, as_empty)[box] == black).any()


def test_a_black_token_over_a_drawn_print_hides_it_where_a_shadow_follows_it():
    """Over a print of light and mid tan strokes (a mat's skull) a black token's sheen, tinted
    warm by the lamp, differs from most of the print by little hue or lightness: it is told by
    hiding the strokes (one grey over all), where a shadow dims each in its share
    (``_hides_the_print``)."""
    reader = _reader("jivecat")
    black = reader._piece_names.index("black")
    spot = reader.layout.spot("mat0-skull0")
    cx, cy = int(spot.x + spot.w / 2 + MARGIN_MM), int(spot.y + spot.h / 2 + MARGIN_MM)
    strokes = (slice(cy - 10, cy + 10), slice(cx - 10, cx + 10))
    drawn = np.zeros((20, 20, 3), np.uint8)
    drawn[:] = (175, 205, 220)  # (the token's sheen as dimmed as this, by its hue)
    drawn[:, ::3] = (118, 148, 166)  # (no darker than this share of it)
    drawn[:, 1::3] = (150, 200, 230)  # (only here of a hue the token's is not)
    reader._reference = reader._reference.copy()
    reader._reference[strokes] = drawn
    flat, labels, as_empty, box = _sheen_board(reader, "mat0-skull0", (79, 88, 92))
    assert (reader._dark_in_sheen(flat, labels, as_empty)[box] == black).mean() > 0.7
    flat, labels, as_empty, box = _sheen_board(reader, "mat0-skull0", (0, 0, 0))
    flat[box] = (reader._reference[box] * 0.46).astype(np.uint8)  # a shadow over the strokes
    assert not (reader._dark_in_sheen(flat, labels, as_empty)[box] == black).any()
    # and on a frame: Yellow's first skull, its sheen as dim as the skull's light strokes
    from committed_frames import read_right

    read_right("jivecat-t20-b0", ("mat2-skull0",))


def test_two_figures_of_hues_on_one_place_from_a_slant_are_each_read_at_its_base() -> None:
    """Times Square at 30 degrees (tuning split): Saucy Sue (pink) stands in front of Handsome
    Hal (blue) on one square, one blob of two colours, each drawn out by the slant; Hal shows in
    two parts, his head past Sue's and a sliver beside her.  Each figure is read at its own base
    from all its pixels, the sliver with it: both are read there, and nothing is doubted."""
    from committed_frames import read_right

    read_right("times_square-t30-b2", ("s8",))

    from companion.bench.vision3d import frame_layout

    layout, colours = frame_layout("swing_state", 3)  # (Red and Blue against the Incumbent)
    reader = BoardReader(layout, colours=colours)
    red, blue = reader._piece_names.index("red"), reader._piece_names.index("blue")
    assert reader._figures_of_hues([(red, (0.0, 0.0), None, 1.0), (blue, (0.0, 0.0), None, 1.0)])
    black = reader._piece_names.index("black")  # a shadow reads black: never taken for a figure's base
    assert not reader._figures_of_hues([(red, (0.0, 0.0), None, 1.0), (black, (0.0, 0.0), None, 1.0)])

    def patch(index: int, spot: str, area: int) -> tuple:
        s = reader.layout.spot(spot)
        centre = ((s.x + s.w / 2 + MARGIN_MM), (s.y + s.h / 2 + MARGIN_MM))  # (1 px/mm)
        return (index, centre, np.array([0, 0, 4, 4, area]), 1.0)

    # Swing State's red is a pawn and chips: a red chip on the next place of a pile, apart from
    # a larger red one by a blue between them, is its own chip; a smaller red part on the
    # larger's place is part of it
    big, sliver = patch(red, "pile1-1v0", 150), patch(red, "pile1-1v0", 16)
    apart = patch(red, "pile1-1v1", 120)
    blobs = [big, patch(blue, "pile1-1v2", 140), apart, sliver]
    assert [reader._part_of_a_larger(b, blobs) for b in blobs] == [False, False, False, True]
