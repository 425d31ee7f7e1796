"""A grey piece over a tinted print (stop 84).  Baron Voodoo's black markers, rendered as
speckled grey plastic and lit about as pale as the tan print of the track, passed for the
empty board channel by channel: on fresh boards six were read as empty places, with no
doubt.  Light and shade keep a tinted print's tint; a grey piece has none, so where the
tint is lost over a patch the board is not the empty board.  A coloured piece's blurred rim
passes through grey too (a blue chip's on tan), and stays the board's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import kept_reading, reading_of

from companion.bench.boards import sample_boards
from companion.games import load_game
from companion.games.base import Piece
from companion.sim.camera.render import Camera
from companion.vision.reader import BoardReader


def _baron_reader() -> tuple[BoardReader, Camera, dict[str, tuple[Piece, ...]]]:
    game = load_game("baron_voodoo")
    layout = game.layout(game.setup(game.min_players, None, 0))
    colours = tuple(sorted(set(layout.pieces) | set(layout.shapes)))
    view = sample_boards("baron_voodoo", None, 3, seed=2)[2]
    return BoardReader(layout, colours=colours), Camera(layout, seed=5), view


def test_a_grey_disc_as_light_as_a_tan_print_is_no_empty_place() -> None:
    """A marker's place left empty on the flat camera's frame, then a grey disc of the print's
    lightness (a little darker, as the rendered markers were) painted where the marker sat:
    the place is asked, never read empty.  Taken out, the mend reads it as an empty place."""
    reader, camera, view = _baron_reader()
    assert view["track0-1"] == (Piece("black", 0),)
    assert reader.read(camera.frame(view)).view == view  # the board as laid is read whole
    spot = reader.layout.spot("track0-1")
    frame = camera.frame({k: v for k, v in view.items() if k != "track0-1"})
    cx, cy = spot.x + spot.w / 2, spot.y + spot.h / 2
    (px, py), = reader.board_to_frame(np.array([cx]), np.array([cy]))
    edge = reader.board_to_frame(np.array([cx + 5.0]), np.array([cy]))[0]
    radius = int(round(float(np.hypot(*(edge - (px, py))))))  # a 10 mm disc
    x, y = int(round(px)), int(round(py))
    print_there = frame[y - 3:y + 4, x - 3:x + 4].reshape(-1, 3).astype(float)
    assert float(np.ptp(print_there.mean(axis=0))) > 40  # a tan print: its channels far apart
    grey = int(round(float(print_there.mean()))) - 15
    cv2.circle(frame, (x, y), radius, (grey, grey, grey), -1, cv2.LINE_AA)
    reading = reader.read(frame)
    assert reading.view is not None
    assert "track0-1" in reading.doubtful, reading.view.get("track0-1")


@pytest.mark.parametrize(("stem", "spot"), [("swing_state-t10-b4-vga", "votes2-1v1"),
                                            ("swing_state-t30-b14-vga", "votes2-1v1")])
def test_blue_chips_side_by_side_on_tan_are_still_read(stem: str, spot: str) -> None:
    """Swing State's blue vote chips in a row on the tan board, through a 640x480 webcam: the
    grey where their blurred rims meet over the print, four or five pixels wide, is their
    rims', not a grey piece between them (``TINT_RIM``: at 4 px these were asked)."""
    frame, _layout, reading = reading_of("tune", stem)
    assert reading.view is not None
    assert frame.view[spot] == (Piece("blue", 0),)
    assert spot not in reading.doubtful, reading.doubtful[spot]
    assert reading.view[spot] == frame.view[spot]


@pytest.mark.parametrize(("stem", "spot"), [("baron_voodoo-t00-b6", "track0-11"),
                                            ("baron_voodoo-t00-b7", "track0-6"),
                                            ("baron_voodoo-t00-b7", "track1-12"),
                                            ("baron_voodoo-t10-b8", "track0-7")])
def test_a_speckled_grey_marker_on_the_track_is_asked(stem: str, spot: str) -> None:
    """The rendered markers themselves, on fresh tuning boards (kept, ``KEPT_DIR``): each was
    read as an empty place before the mend."""
    frame, reading = kept_reading(stem)
    assert reading.view is not None
    assert frame.view[spot] == (Piece("black", 0),)
    assert spot in reading.doubtful, reading.view.get(spot)
