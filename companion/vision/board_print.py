"""The board as printed: the sheet the owner lays out, and where pieces sit on its places.

Both sides of the lens need it: the reader compares a frame with the print it expects
(its reference before the empty board is learnt), and the simulated table's camera paints
the same print with pieces on it. Nothing here draws a piece.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import cv2
import numpy as np

from companion.games.base import Layout
from companion.vision.geometry import (
    MARGIN_MM,
    MARKER_IDS,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
)
from companion.vision.lettering import LABEL_CHARS, draw_text
from companion.vision.palette import bgr

LINE_BGR = (95, 125, 145)  # the printed outline of a place
LABEL_BGR = (100, 130, 150)  # a place's printed name


def piece_slots(n: int, w: float, h: float) -> list[tuple[float, float, float]]:
    """Centres and radius (relative to the spot, in its units) for ``n`` pieces side by side."""
    if n <= 0:
        return []
    if w >= h:
        cols = math.ceil(math.sqrt(n * w / h))
    else:
        cols = math.ceil(n / math.ceil(math.sqrt(n * h / w)))
    cols = max(1, min(n, cols))
    rows = math.ceil(n / cols)
    cell_w, cell_h = w / cols, h / rows
    radius = 0.38 * min(cell_w, cell_h)
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        out.append(((c + 0.5) * cell_w, (r + 0.5) * cell_h, radius))
    return out


def board_print(layout: Layout, px_per_mm: float = 2.0,
                paints: Mapping[str, tuple[int, int, int]] | None = None) -> np.ndarray:
    """The empty board as printed, straight from above, markers in its margin (in ``paints``
    where given: another print run of the same sheet)."""
    def paint(name: str) -> tuple[int, int, int]:
        return paints[name] if paints and name in paints else bgr(name)

    total_w, total_h = canvas_size_mm(layout)
    img = np.full((int(total_h * px_per_mm), int(total_w * px_per_mm), 3), 250, np.uint8)
    m = MARGIN_MM * px_per_mm
    cv2.rectangle(img, (int(m), int(m)),
                  (int(m + layout.width * px_per_mm), int(m + layout.height * px_per_mm)),
                  paint("board"), -1)
    dictionary = aruco_dictionary()
    corners_by_id = marker_corners_mm(layout)
    if set(MARKER_IDS) != set(corners_by_id):
        raise ValueError(f"the layout places markers {sorted(corners_by_id)}, the sheet prints {MARKER_IDS}")
    for marker_id, corners in corners_by_id.items():
        size = int(round((corners[1][0] - corners[0][0]) * px_per_mm))
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, size)
        x, y = (corners[0] * px_per_mm).round().astype(int)
        img[y:y + size, x:x + size] = cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR)
    for spot in layout.spots:
        x0, y0 = (spot.x + MARGIN_MM) * px_per_mm, (spot.y + MARGIN_MM) * px_per_mm
        x1, y1 = x0 + spot.w * px_per_mm, y0 + spot.h * px_per_mm
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), paint(spot.fill), -1)
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), LINE_BGR, 1)
        if spot.label:
            draw_text(img, spot.label[:LABEL_CHARS], (int(x0) + 2, int(y1) - 3), "label", LABEL_BGR)
    return img
