"""Light round a piece read (stop 114, ``light_round_pieces``).  Its blurred rim, lit or in its
own shade: a Times Square dancer on the dark strip, seen at 640x480, blurs a pixel or two past
its blob into its shadow, and there each pixel is the piece's yellow and the strip's grey
mixed and dimmed.  The cast-shadow test takes only the board dimmed alike in every channel
(yellow's blue is low, so the mix is not), and the sliver was asked as "something over it?".
Fitted pixel by pixel as the read piece's colour and the board's, dimmed, it is light; a piece
of another colour, or of the read one's in shade, is not.  And the deep shade at a tall
piece's foot: a few pixels darker than a cast shadow, too small to hide a piece, beside a
figure read."""

from __future__ import annotations

import numpy as np
from committed_frames import read_right, reading_of

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.sim.camera.frames3d import committed
from companion.vision.arms import OVER
from companion.vision.cast_shadow import blurred_rim
from companion.vision.reader import BoardReader

YELLOW = np.array([30.0, 225.0, 240.0])
STRIP = np.array([80.0, 105.0, 125.0])


def _patch(pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 1 x n patch of these pixels over the strip: the frame, the empty board, its mask."""
    n = len(pixels)
    flat = np.clip(np.round(pixels), 0, 255).astype(np.uint8).reshape(1, n, 3)
    empty = np.tile(STRIP, (1, n, 1)).astype(np.uint8)
    return flat, empty, np.ones((1, n), bool)


def test_the_read_pieces_colour_blurred_into_the_board_in_shade_is_its_rim() -> None:
    alpha = np.linspace(0.05, 0.5, 12)[:, None]  # the piece's share, rising towards it
    flat, empty, own = _patch(0.6 * (alpha * YELLOW + (1 - alpha) * STRIP))
    assert blurred_rim(flat, empty, own, 0, 0, YELLOW[None])


def test_another_colour_the_piece_itself_in_shade_or_the_board_lit_is_no_rim() -> None:
    red = np.array([40.0, 40.0, 200.0])
    flat, empty, own = _patch(np.tile(0.6 * (0.3 * red + 0.7 * STRIP), (12, 1)))
    assert not blurred_rim(flat, empty, own, 0, 0, YELLOW[None])  # a red piece's rim: not yellow's
    assert blurred_rim(flat, empty, own, 0, 0, np.stack([YELLOW, red]))  # ... unless red was read
    flat, empty, own = _patch(np.tile(0.6 * YELLOW, (12, 1)))
    assert not blurred_rim(flat, empty, own, 0, 0, YELLOW[None])  # a second yellow piece, in shade
    flat, empty, own = _patch(np.tile(1.3 * (0.2 * YELLOW + 0.8 * STRIP), (12, 1)))
    assert not blurred_rim(flat, empty, own, 0, 0, YELLOW[None])  # lit past the light: no shade


def test_a_dancers_rim_on_the_dark_strip_is_not_asked() -> None:
    frame, _layout, _reading = reading_of("tune", "times_square-t20-b20-vga")
    assert frame.view["c12"] == (Piece("yellow", 0),)
    read_right("times_square-t20-b20-vga", ("c12",))


def test_the_deep_shade_at_a_dancers_foot_is_not_asked() -> None:
    """A dancer's foot on the pale board at 640x480: a few pixels beside it a third of the light,
    deeper than a cast shadow, too small to hide any piece (``_shade_at_a_foot``)."""
    frame, _layout, _reading = reading_of("tune", "times_square-t00-b14-vga")
    assert frame.view["s8"] == (Piece("green", 0),)
    read_right("times_square-t00-b14-vga", ("s8",))


def test_a_foot_shade_needs_a_tall_piece_read_beside_it() -> None:
    """The same frame with no piece taken for standing: the patch is no foot's shade, and asked."""
    frame = next(f for f in committed() if f.split == "tune" and f.path.stem == "times_square-t00-b14-vga")
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
    reader = BoardReader(layout, colours=colours, lens=frame.lens)
    reader._tall_piece_near = lambda *_args: False  # type: ignore[method-assign]
    reading = reader.read(frame.image())
    assert reading.view is not None and reading.doubtful.get("s8") == OVER, reading.doubtful
