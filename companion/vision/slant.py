"""A standing figure seen from a slant: one piece, however long its blob, when it is shaped as
one figure leaning out from the camera's nadir.

From straight above a pawn is a disc.  From a slant its body and head show on the board's
plane further out than its base, along the line from the camera's nadir through it
(``pose.py``): its blob is a disc drawn out along that line by the figure's lean, longer
than any one flat piece's (``reading.one_piece_shape``).  Two pieces side by side are as
long; but the part of a figure's blob past its base is its body and head, narrower than the
base, while the part past a piece's base beside another is that other piece, as wide.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.pose import CameraPose
from companion.vision.reading import PIECE_ASPECT

TALLEST_FIGURE_MM = 50.0  # no standing piece is taller (see ``standing.py``)
BODY_NARROWER = 0.8  # a figure's body and head, past its base, are at most this share of its width
BASE_SLACK_PX = 2.0  # a base's length along the line may pass its width by a pixel of rim each way


@dataclass(frozen=True)
class Leaning:
    """A figure's blob as measured along the line from the nadir: where its base's centre
    lies (sampled px), its width across that line and its length along it."""

    foot: tuple[float, float]
    width: float
    length: float


def leaning_figure(pose: CameraPose, own: np.ndarray, bx: int, by: int, scale: float) -> Leaning | None:
    """A blob (``own``: its mask, its box's corner at ``bx, by`` in the board sampled at
    ``scale`` px/mm) that is one standing figure seen from a slant, with its base's centre;
    None when it is not (too long for a figure's lean, or as wide past its base as at it:
    two pieces in a row; wider across the line than along it: two side by side)."""
    ys, xs = np.nonzero(own)
    if len(xs) < 8:
        return None
    px, py = xs + bx + 0.5, ys + by + 0.5
    cx, cy = float(px.mean()), float(py.mean())
    ux, uy, d = pose.outward(cx / scale, cy / scale)
    if d <= 0:
        return None
    along = (px - cx) * ux + (py - cy) * uy
    across = -(px - cx) * uy + (py - cy) * ux
    width = float(across.max() - across.min()) + 1.0
    inner = float(along.min())
    length = float(along.max()) - inner + 1.0
    if length <= PIECE_ASPECT * width:
        if length < width:
            return None  # wider across the line than along it: pieces side by side
        # as long as one flat piece along the line, though its box is longer (a figure from
        # 30 degrees, its box 17 x 26 px and 18 x 26 along the line): one figure leaning little,
        # read at its base as one leaning more is (Times Square's dancers, asked as pieces
        # touching)
        return Leaning(_base_centre(cx, cy, ux, uy, along, across, width), width, length)
    lean = pose.lean(d / scale, TALLEST_FIGURE_MM) * scale
    if length > width + lean + BASE_SLACK_PX:
        return None  # longer than the tallest figure leans
    beyond = along > inner + width + BASE_SLACK_PX  # past the base: the body and head
    if beyond.any():
        part = across[beyond]
        if float(part.max() - part.min()) + 1.0 > BODY_NARROWER * width:
            return None  # as wide past the base as at it: another piece, not a body
    return Leaning(_base_centre(cx, cy, ux, uy, along, across, width), width, length)


def _base_centre(cx: float, cy: float, ux: float, uy: float, along: np.ndarray, across: np.ndarray,
                 width: float) -> tuple[float, float]:
    """A figure's base's centre (sampled px): half its width in from its inner rim along the
    line from the nadir (``ux, uy``), midway across it; ``along`` and ``across``: its pixels'
    offsets from the blob's centre ``cx, cy`` along and across that line."""
    centre = float(along.min()) + width / 2
    mid = float(across.min() + across.max()) / 2
    return cx + centre * ux - mid * uy, cy + centre * uy + mid * ux


def leaned_from(pose: CameraPose, x: float, y: float, scale: float,
                height_mm: float = TALLEST_FIGURE_MM, step: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The points (sampled px, rows and columns) a standing piece no taller than ``height_mm``
    whose top shows at ``x, y`` may have its foot at: from there in toward the camera's nadir,
    as far as such a piece leans out there (a point seen at distance D from the nadir at height
    h above the board stands over the board at D (H - h) / H: it leans out D h / H), every
    ``step`` px."""
    nx, ny = pose.nadir_mm[0] * scale, pose.nadir_mm[1] * scale
    d = float(np.hypot(x - nx, y - ny))
    reach = d * height_mm / max(pose.height_mm, height_mm + 1.0)
    t = np.linspace(0.0, reach, max(2, int(reach / step) + 1)) / max(d, 1e-6)
    return np.round(y + (ny - y) * t).astype(np.intp), np.round(x + (nx - x) * t).astype(np.intp)
