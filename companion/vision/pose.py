"""The camera's full pose over the board, from the board's markers: where the camera stands.

The homography places the board's plane; a piece has a height, and its top face lies off
that plane.  Seen from a camera at height ``H`` above the board whose foot (the nadir) is
``d`` millimetres from a piece, the top face of a piece ``h`` tall shows on the board's
plane ``d * h / (H - h)`` further out, along the line from the nadir through the piece: a
16 mm die 300 mm off the nadir of a camera 65 cm up shows its top 7.6 mm out, a third of a
Baron Voodoo cell.  ``blobs.py`` reads each piece at its foot and its marks on its top face
with that line (``Stand``); this module only finds the camera.

The pose is ``cv2.solvePnP`` (the planar IPPE solver) on the markers' corners, whose
places on the printed board are known, with the lens ``calibrate camera`` measured, or
else a focal length estimated from the homography itself (Zhang's constraints on a
plane's view, the principal point at the frame's centre), or a webcam's usual 70 degrees
across when the view is too straight to tell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.base import Spot

NOMINAL_FOV_DEG = 70.0  # a webcam's field across, when neither a lens nor the view tells
FOCAL_RANGE = (0.4, 2.5)  # a focal length estimated outside this share of the width is ill-posed
FOCAL_AGREE = 0.15  # the plane's two constraints agree this well when the view is tilted enough


def estimated_focal(board_to_image: np.ndarray, size: tuple[int, int]) -> float:
    """A focal length (px) from a plane's homography (board -> undistorted frame px): the
    plane's two axes seen through ``K`` are at right angles and of one length.  From
    nearly straight above both constraints vanish and disagree; then a webcam's usual field
    of view (there the pose hardly depends on it: a piece's lean does not)."""
    w, h = size
    nominal = w / (2 * math.tan(math.radians(NOMINAL_FOV_DEG / 2)))
    shift = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]], np.float64)
    m = shift @ board_to_image
    m = m / m[2, 2]
    (a1, a2), (b1, b2), (c1, c2) = m[0, :2], m[1, :2], m[2, :2]
    estimates = []  # each constraint alone; near straight above its denominator vanishes
    if abs(c1 * c2) > 1e-15:
        estimates.append(-(a1 * a2 + b1 * b2) / (c1 * c2))
    if abs(c1 * c1 - c2 * c2) > 1e-15:
        estimates.append(-(a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2) / (c1 * c1 - c2 * c2))
    good = [math.sqrt(f2) for f2 in estimates if f2 > 0
            and FOCAL_RANGE[0] * w <= math.sqrt(f2) <= FOCAL_RANGE[1] * w]
    # from nearly straight above the two disagree (each is noise over a vanishing term)
    if len(good) == 2 and abs(good[0] - good[1]) <= FOCAL_AGREE * min(good):
        return float(sum(good) / 2)
    return nominal


@dataclass(frozen=True)
class CameraPose:
    """Where the camera stands over the board: its foot on the board (canvas mm, x right, y
    down) and its height above the board (mm)."""

    nadir_mm: tuple[float, float]
    height_mm: float

    @classmethod
    def solve(cls, board_mm: np.ndarray, image_px: np.ndarray, matrix: np.ndarray | None,
              size: tuple[int, int], board_to_image: np.ndarray | None = None) -> CameraPose | None:
        """The pose from board points (N x 2, canvas mm, on the board's plane) and where an
        ideal pinhole shows them (N x 2, frame px, the lens taken off).  ``matrix``: the
        lens's, or None to estimate one.  None when the points do not fix a pose in front
        of the board."""
        obj = np.hstack([np.asarray(board_mm, np.float64).reshape(-1, 2), np.zeros((len(board_mm), 1))])
        img = np.asarray(image_px, np.float64).reshape(-1, 1, 2)
        if len(obj) < 4:
            return None
        if matrix is None:
            if board_to_image is None:
                board_to_image, _ = cv2.findHomography(obj[:, :2], img.reshape(-1, 2))
                if board_to_image is None:
                    return None
            f = estimated_focal(board_to_image, size)
            matrix = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]], np.float64)
        for method in (cv2.SOLVEPNP_IPPE, cv2.SOLVEPNP_ITERATIVE):  # IPPE fails on a view it cannot fit
            ok, rvec, tvec = cv2.solvePnP(obj.reshape(-1, 1, 3), img, np.asarray(matrix, np.float64), None,
                                          flags=method)
            if ok and np.isfinite(rvec).all() and np.isfinite(tvec).all():
                break
        else:
            return None
        rotation = cv2.Rodrigues(rvec)[0]
        centre = (-rotation.T @ tvec).ravel()  # the camera in canvas mm; z points into the table
        if not np.isfinite(centre).all() or centre[2] >= -1.0:
            return None  # a camera below the board: the points fix no real view
        return cls((float(centre[0]), float(centre[1])), float(-centre[2]))

    def outward(self, x_mm: float, y_mm: float) -> tuple[float, float, float]:
        """The unit direction from the nadir through a board point (the way a piece's top
        face shows off its foot) and its distance; no direction under the camera."""
        dx, dy = x_mm - self.nadir_mm[0], y_mm - self.nadir_mm[1]
        d = math.hypot(dx, dy)
        if d < 1e-6:
            return 0.0, 0.0, 0.0
        return dx / d, dy / d, d

    def lean(self, foot_distance_mm: float, height_mm: float) -> float:
        """How far out (mm, on the board's plane) a point ``height_mm`` above the board
        shows, for a foot this far from the nadir."""
        return foot_distance_mm * height_mm / max(1.0, self.height_mm - height_mm)

    def feet(self, x_mm: float, y_mm: float, piece_mm: float, most: int) -> list[tuple[float, float]]:
        """Where a column's foot stands (canvas mm) whose top shows at this board point, for
        one to ``most`` pieces ``piece_mm`` tall: nearer the nadir the taller it is."""
        nx, ny = self.nadir_mm
        out = []
        for k in range(1, most + 1):
            keep = max(0.0, (self.height_mm - k * piece_mm) / self.height_mm)
            out.append((nx + (x_mm - nx) * keep, ny + (y_mm - ny) * keep))
        return out

    def height_of(self, foot_distance_mm: float, lean_mm: float) -> float:
        """The height whose top shows ``lean_mm`` out from a foot this far from the nadir."""
        return lean_mm * self.height_mm / max(1e-6, foot_distance_mm + lean_mm)


DIE_MM = 16.0  # a standard die's edge: a column of them is this many millimetres a die
MOST_STACKED = 3  # the tallest column a game builds (Baron Voodoo's)
FOOT_SLACK_MM = 2.0  # a die's foot as measured may lie this far past its place's side (its top's rim)
STAND_TOLERANCE_PX = 3.0  # px a measured lean may pass a column's full lean (blur, a pixel of rim)
SIDES_SEEN_SHARE = 0.4  # a column's sides show at least this share of its lean (bevels, dark feet)


def die_within(spot: Spot, x_mm: float, y_mm: float, slack_mm: float = FOOT_SLACK_MM) -> bool:
    """Does a die whose foot's centre is here (layout mm) lie within ``spot``, give or take
    ``slack_mm`` (however it is turned: its centre within half its edge of the place's sides)?"""
    x, y = x_mm - spot.x, y_mm - spot.y
    reach = DIE_MM / 2 - slack_mm
    return reach <= x <= spot.w - reach and reach <= y <= spot.h - reach


@dataclass(frozen=True)
class Stand:
    """How a die's blob lies along the line from the camera's nadir (sampled px): its top
    face as the board's plane shows it (``top``: centre; ``far``: its far edge, px from the
    nadir), its width across the line, and how much longer than wide it is along the line
    (``lean``: the side faces swept between top and foot).  ``fits``: the column heights,
    in pieces, that lean allows (the sides' lowest part, in shade or rounded off, is not
    always seen, so a lean fits from ``SIDES_SEEN_SHARE`` of a column's lean up to all of it)."""

    top: tuple[float, float]
    outward: tuple[float, float]
    nadir_px: tuple[float, float]
    lean: float
    across: float
    far: float
    fits: tuple[int, ...]

    @property
    def top_from(self) -> float:
        return self.far - self.across


def stand_of(pose: CameraPose, mask: np.ndarray, x0: int, y0: int, scale: float, piece_mm: float,
             most: int, hidden: bool = False) -> Stand | None:
    """The stand of a die's blob with its sides (``mask``, its box at sampled px ``x0, y0``;
    ``scale`` px a canvas mm), for a column of up to ``most`` pieces each ``piece_mm`` tall;
    None for a blob too small to judge or right under the camera.  ``hidden``: another piece
    stands against its sides (seen from a slant a die in front hides the foot of the one
    behind), so its lean is only a lower bound."""
    ys, xs = np.nonzero(mask)
    if len(xs) < 4:
        return None
    nx, ny = pose.nadir_mm[0] * scale, pose.nadir_mm[1] * scale
    px, py = xs + x0 + 0.5 - nx, ys + y0 + 0.5 - ny
    cx, cy = float(px.mean()), float(py.mean())
    d = math.hypot(cx, cy)
    if d < 1e-6:
        return None
    ux, uy = cx / d, cy / d
    along = px * ux + py * uy
    side = px * -uy + py * ux
    near, far = float(along.min()), float(along.max()) + 1.0
    across = float(side.max() - side.min()) + 1.0
    lean = max(0.0, (far - near) - across)
    shown = far - across / 2  # the top's centre, px from the nadir on the board's plane
    fits = tuple(k for k in range(1, most + 1)
                 if (hidden or SIDES_SEEN_SHARE * shown * k * piece_mm / pose.height_mm - STAND_TOLERANCE_PX
                     <= lean) and lean <= shown * k * piece_mm / pose.height_mm + STAND_TOLERANCE_PX)
    mid = float(side.min() + side.max()) / 2
    top = (nx + ux * shown - uy * mid, ny + uy * shown + ux * mid)
    return Stand(top, (ux, uy), (nx, ny), lean, across, far, fits)
