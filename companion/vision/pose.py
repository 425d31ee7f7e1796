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
STAND_TOLERANCE_PX = 3.0  # a lean within this of a whole number of pieces' heights is that many


@dataclass(frozen=True)
class Stand:
    """How a piece of known height stands, from its blob on the board's plane (sampled px):
    its foot's centre, how far out its top shows (``lean``), its width across the outward
    line, and where along that line its top face lies (``top_from``..``far``, px from the
    nadir).  The blob is the piece's foot swept out to its top's image: its width across
    the line is the piece's own, and it is longer along the line by the lean."""

    foot: tuple[float, float]
    outward: tuple[float, float]
    nadir_px: tuple[float, float]
    lean: float
    across: float
    far: float
    levels: int  # how many pieces high (0: flat, or too near the nadir to tell; -1: unclear)

    @property
    def top_from(self) -> float:
        return self.far - self.across

    def face_area(self, area: float) -> float:
        """The blob's area less the side faces swept between foot and top."""
        return max(0.5 * area, area - self.lean * self.across)


def stand_of(pose: CameraPose, mask: np.ndarray, x0: int, y0: int, scale: float, piece_mm: float,
             most: int) -> Stand | None:
    """The stand of a blob (``mask``, its box at sampled px ``x0, y0``; ``scale`` px a canvas
    mm) taken for a column of up to ``most`` pieces each ``piece_mm`` tall.  None when its
    lean fits no whole number of pieces (two pieces run together, a shadow, a hand):
    then it is read as the board's plane shows it."""
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
    foot_d = near + across / 2
    expected = [pose.lean(foot_d / scale, k * piece_mm) * scale for k in range(most + 1)]
    levels = int(np.argmin([abs(lean - e) for e in expected]))
    if abs(lean - expected[levels]) > STAND_TOLERANCE_PX:
        levels = -1
    mid = float(side.min() + side.max()) / 2
    foot = (nx + ux * foot_d - uy * mid, ny + uy * foot_d + ux * mid)
    return Stand(foot, (ux, uy), (nx, ny), lean, across, far, levels)
