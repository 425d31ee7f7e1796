"""Where the printed fiducial markers sit around a board, shared by renderer and reader.

The board's printed area (a game's :class:`~companion.games.base.Layout`) is
framed by a margin; an ArUco marker of ``MARKER_MM`` sits in each corner of the
margin, ids 0-3 clockwise from the top-left, and one in the middle of each side,
ids 4-7 clockwise from the top.  Any two of them fix the board, so a hand over a
corner does not lose it.  A user prints them with ``companion calibrate markers``
and tapes them around their board.

Size: a 720p camera 70-90 cm above the table sees about 1.1-1.4 px per mm, so a
40 mm marker (6 cells of 6.7 mm with its border) is 7-9 px a cell: readable through
a sigma-2 blur and JPEG, where the former 30 mm marker (5 px a cell) was lost.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.base import Layout

MARGIN_MM = 50.0
MARKER_MM = 40.0
CORNER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left
SIDE_IDS = (4, 5, 6, 7)  # middle of the top, right, bottom and left sides
MARKER_IDS = CORNER_IDS + SIDE_IDS
CAMERA_HEIGHT_CM = (70, 90)  # what the marker size was chosen for (a 720p camera)
ARUCO_DICT = cv2.aruco.DICT_4X4_50


def aruco_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICT)


def canvas_size_mm(layout: Layout) -> tuple[float, float]:
    """Width and height of the board with its marker margin, in millimetres."""
    return layout.width + 2 * MARGIN_MM, layout.height + 2 * MARGIN_MM


def marker_corners_mm(layout: Layout) -> dict[int, np.ndarray]:
    """Each marker's four corners (TL, TR, BR, BL order, as ArUco reports) in canvas mm."""
    total_w, total_h = canvas_size_mm(layout)
    inset = (MARGIN_MM - MARKER_MM) / 2
    origins = {
        0: (inset, inset),
        1: (total_w - inset - MARKER_MM, inset),
        2: (total_w - inset - MARKER_MM, total_h - inset - MARKER_MM),
        3: (inset, total_h - inset - MARKER_MM),
        4: ((total_w - MARKER_MM) / 2, inset),
        5: (total_w - inset - MARKER_MM, (total_h - MARKER_MM) / 2),
        6: ((total_w - MARKER_MM) / 2, total_h - inset - MARKER_MM),
        7: (inset, (total_h - MARKER_MM) / 2),
    }
    out = {}
    for marker_id, (x, y) in origins.items():
        s = MARKER_MM
        out[marker_id] = np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32)
    return out


def spot_rect_px(layout: Layout, spot_id: str, px_per_mm: float) -> tuple[int, int, int, int]:
    """A spot's rectangle in a top-down canvas image at ``px_per_mm`` (x0, y0, x1, y1)."""
    spot = layout.spot(spot_id)
    x0 = (spot.x + MARGIN_MM) * px_per_mm
    y0 = (spot.y + MARGIN_MM) * px_per_mm
    return (
        int(round(x0)),
        int(round(y0)),
        int(round(x0 + spot.w * px_per_mm)),
        int(round(y0 + spot.h * px_per_mm)),
    )
