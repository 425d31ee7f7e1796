"""The camera's frame with what the reader saw drawn over it, for people to check.

``companion vision read`` writes it beside its JSON, and the dashboard's
``/api/camera.jpg`` serves it live.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from companion.games.base import BoardView
from companion.vision.lettering import draw_text
from companion.vision.reader import BoardReader, Reading


def annotate(frame: np.ndarray, reader: BoardReader, reading: Reading,
             tracked: BoardView | None = None) -> np.ndarray:
    """The frame with what was read drawn over it: agreeing pieces green, pieces that differ
    from the tracked board red, doubtful spots orange, with the reason."""
    out = frame.copy()
    if not reader.located:
        draw_text(out, reading.problem or "board not found", (20, 40), "banner", (0, 0, 255))
        return out
    for spot in reader.layout.spots:
        xs = np.array([spot.x, spot.x + spot.w, spot.x + spot.w, spot.x])
        ys = np.array([spot.y, spot.y, spot.y + spot.h, spot.y + spot.h])
        quad = reader.board_to_frame(xs, ys).astype(np.int32)
        seen = reading.view.get(spot.id, ()) if reading.view is not None else ()
        colour = (80, 80, 80)
        if spot.id in reading.doubtful:
            colour = (0, 140, 255)
        elif tracked is not None and tracked.get(spot.id, ()) != seen:
            colour = (0, 0, 255)
        elif seen:
            colour = (0, 200, 0)
        cv2.polylines(out, [quad], True, colour, 2 if colour != (80, 80, 80) else 1, cv2.LINE_AA)
        if spot.id in reading.doubtful:
            x, y = quad[0]
            text = f"{reader.spot_label(spot.id)}: {reading.doubtful[spot.id]}"
            draw_text(out, text, (int(x), int(y) - 4), "mark", colour)
    for spot_id, piece, x_mm, y_mm, _conf in reading.pieces_at:
        (px, py), = reader.board_to_frame(np.array([x_mm]), np.array([y_mm]))
        wrong = tracked is not None and tracked.get(spot_id, ()) != (reading.view or {}).get(spot_id, ())
        colour = (0, 0, 255) if wrong else (0, 200, 0)
        cv2.circle(out, (int(px), int(py)), 5, colour, -1, cv2.LINE_AA)
        text = piece.colour + (f" {piece.pips}" if piece.pips else "")
        draw_text(out, text, (int(px) + 6, int(py) + 4), "mark_small", colour)
    if reading.view is None:
        draw_text(out, reading.problem, (20, 40), "banner", (0, 0, 255))
    return out


Annotator = Callable[[np.ndarray, BoardReader, Reading, BoardView | None], np.ndarray]
