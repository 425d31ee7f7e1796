"""A standing figure's head read apart from its body (stop 101).  On held-out Times Square
board 113 at 30 degrees a window's light over the board was taken for an arm, and a pink
dancer's base and body on s7 lay under it; its head, seen over s6 beyond, was read as a dancer
there.  ``_figure_heads`` had asked only a head read with its body; a figure read beyond a
place under a hand, within a figure's lean, showing less of its colour than the frame's
figures show theirs (a head alone: ``HEAD_SHARE`` of their median), may be such a head as well
as a figure (``Standing._head_of_one_on``).  Without the share, 15 figures read right beside a
hand on 1,456 frames were asked; with it, one."""

from __future__ import annotations

import numpy as np
from committed_frames import KEPT_DIR, kept_reading

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.sim.camera.frames3d import committed
from companion.vision.geometry import MARGIN_MM
from companion.vision.reader import BoardReader
from companion.vision.reading import UNDER_A_HAND
from companion.vision.standing import HEAD_OR_TWO, TALLEST_FIGURE_MM


def test_a_head_read_beyond_a_place_under_a_hand_is_asked() -> None:
    frame, reading = kept_reading("times_square-t30-b113", "test")
    assert "s6" not in frame.view and frame.view["s7"][0].colour == "pink"
    assert reading.doubtful.get("s7") == UNDER_A_HAND
    assert reading.doubtful.get("s6") == HEAD_OR_TWO, reading.view and reading.view.get("s6")


def test_a_whole_figure_read_beyond_a_place_under_a_hand_is_read() -> None:
    """Times Square, held-out board 110 at 30 degrees, a hand over the board: the pink dancer on
    s9, beyond a place under the hand, shows as much of its colour as the frame's figures do."""
    frame, reading = kept_reading("times_square-t30-b110-hand", "test")
    assert reading.view is not None
    assert frame.view["s9"] == (Piece("pink", 0),)
    assert reading.view.get("s9") == (Piece("pink", 0),), reading.doubtful.get("s9")


def test_only_a_figure_within_a_lean_beyond_the_hidden_place_may_be_its_head() -> None:
    """From the place's middle out along the nadir's line: a lean's length and less is a
    head's reach, twice the tallest figure's lean is not; nor is anything nearer the nadir
    than the place, nor far to one side of the line."""
    frame = next(f for f in committed(KEPT_DIR, "test") if f.path.stem == "times_square-t30-b113")
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
    reader = BoardReader(layout, colours=colours, lens=frame.lens)
    reader.read(frame.image())
    assert reader.pose is not None
    nx, ny = reader.pose.nadir_mm[0] - MARGIN_MM, reader.pose.nadir_mm[1] - MARGIN_MM
    spot = layout.spot("s7")
    cx, cy = spot.x + spot.w / 2, spot.y + spot.h / 2
    d = float(np.hypot(cx - nx, cy - ny))
    ux, uy = (cx - nx) / d, (cy - ny) / d
    edge = max(spot.w, spot.h) / 2  # (the place's middle to past its edge, any way)

    def head_at(out_mm: float, aside_mm: float = 0.0) -> bool:
        x, y = cx + out_mm * ux - aside_mm * uy, cy + out_mm * uy + aside_mm * ux
        return reader._head_of_one_on(("s6", None, x, y, 1.0), "s7", nx, ny)

    lean = reader.pose.lean(d, TALLEST_FIGURE_MM)
    assert head_at(edge + 0.5 * lean) and head_at(0.0)
    assert not head_at(edge + 2 * lean + 10)
    assert not head_at(-(edge + 10))  # nearer the nadir: a figure's head leans out, never in
    assert not head_at(edge + 0.5 * lean, aside_mm=edge + 20)
