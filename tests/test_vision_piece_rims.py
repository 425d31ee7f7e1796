"""A flat piece's top inside a lamp's pool, told by its rim (``piece_rims``, stop 98).

A white chip on Jivecat's cream print under a window's light is the print with light added, as
evenly as the light round it: pixel by pixel it passed for the board lifted, only a crescent of
its shadow did not, too thin to hide a piece, and its place was read empty with no doubt (four
held-out frames of stops 97-98, boards 86-93).  A reflection's lift fades over centimetres; a
chip's ends at its rim, round most of a circle a piece's size.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import kept_reading

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.vision.piece_rims import RIM_RMS, RIM_SPAN, angular_span, fitted_circle, ringed_discs

SIZE = 80


def _pool() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A window's light over a plain print (its lift in the light, peaking at 0.6 in the frame's
    corner and fading over centimetres), the print plain everywhere, nothing clipped."""
    rows, cols = np.indices((SIZE, SIZE))
    level = 0.6 * np.exp(-((rows - 10) ** 2 + (cols - 70) ** 2) / (2 * 30.0 ** 2))
    return level.astype(np.float32), np.ones((SIZE, SIZE), bool), np.zeros((SIZE, SIZE), bool)


def _chip(level: np.ndarray, cy: int, cx: int, radius: float, lift: float) -> np.ndarray:
    """A flat top of one lift, with a soft shadow crescent on its far side."""
    rows, cols = np.indices(level.shape)
    distance = np.hypot(rows - cy, cols - cx)
    top = distance <= radius
    out = level.copy()
    shadow = (np.hypot(rows - cy - 1.5, cols - cx + 1.5) <= radius + 1.5) & ~top
    out[shadow] *= 0.4
    out[top] = lift
    return cv2.GaussianBlur(out, (0, 0), 0.7)  # (a camera's blur)


def test_a_top_lifted_as_much_as_the_pool_on_one_side_is_ringed_by_its_rim() -> None:
    level, plain, blind = _pool()
    # lifted as much as the pool at its near side (0.55 there), far more than at its far side
    with_chip = _chip(level, 30, 55, 9.0, 0.6)
    discs = ringed_discs(with_chip, plain, blind)
    rows, cols = np.indices(level.shape)
    assert discs[np.hypot(rows - 30, cols - 55) <= 5].all()
    assert not discs[np.hypot(rows - 30, cols - 55) >= 12].any()
    assert not ringed_discs(level, plain, blind).any()  # the pool alone fades: no rim


def test_a_top_darker_than_the_pool_round_it_is_ringed_by_its_rim_too() -> None:
    """A yellow chip in a pendant's pool on laminated paper: the pool clips the print's green and
    red and lifts its blue, the chip's blue stays below the print's (stop 99, Jivecat t10-b104).
    Half of it, over a printed number, passed for the print; its rim is a cliff all the same,
    the lift falling inwards to below none at all."""
    level, plain, blind = _pool()
    with_chip = _chip(level, 30, 55, 9.0, -0.1)
    discs = ringed_discs(with_chip, plain, blind)
    rows, cols = np.indices(level.shape)
    assert discs[np.hypot(rows - 30, cols - 55) <= 5].all()
    assert not discs[np.hypot(rows - 30, cols - 55) >= 12].any()
    sunk = level.copy()
    sunk[:, 40:] -= 0.3  # a straight cliff down (a shade's edge): no circle
    assert not ringed_discs(sunk, plain, blind).any()
    # a darker print lit less than the paper round it (Swing State's red spaces in the same
    # pendant's pool) is lifted all the same: no reflection takes light away, a piece's top may
    assert not ringed_discs(_chip(level, 30, 55, 9.0, 0.1), plain, blind).any()


def test_a_step_along_a_line_a_clipped_core_and_the_prints_edges_ring_nothing() -> None:
    level, plain, blind = _pool()
    stepped = level.copy()
    stepped[:, 40:] += 0.3  # a straight cliff (a shade's edge): no circle
    assert not ringed_discs(stepped, plain, blind).any()
    with_chip = _chip(level, 30, 55, 9.0, 0.6)
    rows, cols = np.indices(level.shape)
    near = np.hypot(rows - 30, cols - 55) <= 12
    assert not ringed_discs(with_chip, plain & ~near, blind).any()  # its rim on the print's edges
    assert not ringed_discs(with_chip, plain, near).any()  # in a clipped core: its lift unseen


def test_a_circle_is_fitted_to_an_arc_and_its_span_measured() -> None:
    angles = np.radians(np.arange(0, 200, 5))
    xs, ys = 20 + 9 * np.cos(angles), 30 + 9 * np.sin(angles)
    fitted = fitted_circle(xs, ys)
    assert fitted is not None
    cx, cy, radius, rms = fitted
    assert abs(cx - 20) < 1e-6 and abs(cy - 30) < 1e-6 and abs(radius - 9) < 1e-6 and rms < 1e-6
    assert abs(np.degrees(angular_span(angles)) - 195) < 1e-6
    assert angular_span(angles[:20]) < RIM_SPAN  # under half of it: a bend, no rim
    on_a_line = fitted_circle(np.arange(12.0), 2 * np.arange(12.0))
    assert on_a_line is None or on_a_line[3] > RIM_RMS  # no circle through points on a line


@pytest.mark.parametrize(("stem", "place", "colour"), [("jivecat-t10-b88", "N29", "white"),
                                                     ("jivecat-t10-b90", "N28", "white"),
                                                     ("jivecat-t30-b89", "L07", "yellow"),
                                                     ("jivecat-t10-b104", "N14", "yellow")])
def test_a_chip_in_a_lamps_pool_is_asked_not_read_as_the_empty_print(stem: str, place: str,
                                                                     colour: str) -> None:
    """The held-out frames (read cold at stop 97 on main): white chips by a spot's hotspot (N28's
    top clipped in its middle) and a yellow one a window's light washed grey at 30 degrees (its rim
    a cliff round 160 degrees of it, the rest as lifted as the pool), each read as an empty place
    with no doubt; and (boards 102-105, read cold at stop 99) a yellow chip in a pendant's clipped
    pool, darker than the pool in blue, half of it over a printed number passing for the print.
    Each is asked now (or read), and no place of the frame is read wrong."""
    frame, reading = kept_reading(stem, "test")
    layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert frame.view.get(place) == (Piece(colour, 0),)
    assert place in doubtful or reading.view.get(place) == frame.view[place]
    wrong = [s.id for s in layout.spots
             if s.id not in doubtful and reading.view.get(s.id, ()) != frame.view.get(s.id, ())]
    assert not wrong, wrong


def test_a_part_of_an_unexplained_patch_wide_enough_to_be_a_piece_is_no_faint_stray() -> None:
    """The held-out frame (Jivecat t10-b95, boards 94-97 read cold on main at stop 98): N07's red
    chip, of a colour no piece's is under the window's warm light, was joined to the print the
    light lifts round it into one patch whose median strays from the empty board as little as
    a sheen does (``empty_board.FAINT_STRAY``).  The patch was dismissed as the print and the
    chip read as nothing.  A part of it that strays further, wide enough to be a piece, is one:
    the place is asked, and no place is read wrong."""
    frame, reading = kept_reading("jivecat-t10-b95", "test")
    layout, _colours = frame_layout(frame.game, int(frame.truth["players"]))
    doubtful = dict(reading.doubtful or {})
    assert frame.view.get("N07") == (Piece("red", 0),)
    assert reading.view is not None
    assert "N07" in doubtful or reading.view.get("N07") == frame.view["N07"]
    wrong = [s.id for s in layout.spots
             if s.id not in doubtful and reading.view.get(s.id, ()) != frame.view.get(s.id, ())]
    assert not wrong, wrong


def test_each_part_of_what_may_hide_a_piece_reaches_only_its_own_neighbours() -> None:
    """``board_map._doubt_under``: two pieces' tops in one lamp's pool, far apart, each doubt
    their own place with their own box as what made it doubtful; one box round both would
    reach every place between them (stop 98: a Jivecat frame's pool doubted 16 more places)."""
    from companion.games import load_game
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.reader import BoardReader
    from companion.vision.reading import SCALE

    game = load_game("jivecat")
    layout = game.layout(game.setup(3, None, 0))
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))
    spot_map = reader.spot_index_map
    mask = np.zeros(spot_map.shape, bool)
    centres = []
    for place in ("L02", "L20"):
        spot = layout.spot(place)
        cx, cy = (int(round((c + MARGIN_MM) * SCALE)) for c in (spot.x + spot.w / 2, spot.y + spot.h / 2))
        mask[cy - 4:cy + 5, cx - 4:cx + 5] = True
        centres.append((cy, cx))
    doubtful: dict[str, str] = {}
    whence: dict[str, list[tuple[int, int, int, int]]] = {}
    reader._doubt_under(mask, (0, 0), "glare?", doubtful, whence)
    assert set(doubtful) == {"L02", "L20"}
    for place, (cy, cx) in zip(("L02", "L20"), centres, strict=True):
        (y0, y1, x0, x1), = whence[place]
        assert (y0, y1, x0, x1) == (cy - 4, cy + 5, cx - 4, cx + 5)
