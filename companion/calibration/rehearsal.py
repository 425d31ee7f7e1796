"""Rendered calibration photos: what the table camera would see at each step, without a table.

Used by the tests and by ``calibration/render_photos.py`` to rehearse the steps.
The ChArUco photos come from a known pinhole camera (``TRUE_FX``) looking at the
sheet from several poses, so the camera step's answer can be checked against it.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.calibration.steps import (
    CHARUCO_SQUARE_MM,
    CHARUCO_SQUARES,
    charuco_board,
    colour_order,
)
from companion.games.base import Layout, Piece, make_view
from companion.sim.camera.render import FRAME_H, FRAME_W, Camera

TRUE_FX = 900.0
SHEET_PX_PER_MM = 4.0


def camera_matrix() -> np.ndarray:
    return np.array([[TRUE_FX, 0, FRAME_W / 2], [0, TRUE_FX, FRAME_H / 2], [0, 0, 1]], np.float64)


def charuco_photos(count: int = 8, seed: int = 0) -> list[np.ndarray]:
    """The printed ChArUco sheet seen by the known camera from ``count`` tilted poses."""
    rng = np.random.default_rng(seed)
    w_mm, h_mm = CHARUCO_SQUARES[0] * CHARUCO_SQUARE_MM, CHARUCO_SQUARES[1] * CHARUCO_SQUARE_MM
    sheet = charuco_board().generateImage((int(w_mm * SHEET_PX_PER_MM), int(h_mm * SHEET_PX_PER_MM)),
                                          marginSize=int(6 * SHEET_PX_PER_MM))
    sheet = cv2.copyMakeBorder(sheet, 0, 0, 0, 0, cv2.BORDER_CONSTANT, value=255)
    k = camera_matrix()
    photos = []
    for _ in range(count):
        angles = rng.uniform(-0.45, 0.45, 3) * np.array([1, 1, 0.3])
        rotation, _ = cv2.Rodrigues(angles)
        distance = rng.uniform(380, 480)
        tvec = np.array([-w_mm / 2 + rng.uniform(-30, 30), -h_mm / 2 + rng.uniform(-20, 20), distance])
        # the sheet lies in its own plane z = 0, in mm; its image pixels map to mm by 1/SHEET_PX_PER_MM
        plane = k @ np.column_stack([rotation[:, 0], rotation[:, 1], tvec])
        homography = plane @ np.diag([1 / SHEET_PX_PER_MM, 1 / SHEET_PX_PER_MM, 1])
        photo = cv2.warpPerspective(sheet, homography, (FRAME_W, FRAME_H), borderValue=90)
        noise = rng.normal(0, 2.0, photo.shape)
        photos.append(cv2.cvtColor(np.clip(photo + noise, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR))
    return photos


def board_photo(layout: Layout, seed: int = 3) -> np.ndarray:
    """The empty board with its markers, as the table camera sees it."""
    return Camera(layout, seed=seed).frame({})


def colours_photo(layout: Layout, seed: int = 3) -> np.ndarray:
    """One piece of each colour on the spots ``calibrate colours`` asks for."""
    view = make_view({spot: [Piece(colour, 0)] for colour, spot in colour_order(layout).items()})
    return Camera(layout, seed=seed).frame(view)


DIE_COLOURS = ("yellow", "blue", "red", "purple", "white", "yellow")


def faces_photo(layout: Layout, count: int = 6, seed: int = 1,
                colours: tuple[str, ...] = DIE_COLOURS) -> np.ndarray:
    """A die showing face N on the N-th spot (the renderer's dice carry pips)."""
    spots = [s.id for s in layout.spots[:count]]
    view = make_view({spot: [Piece(colours[i % len(colours)], i + 1)] for i, spot in enumerate(spots)})
    return Camera(layout, seed=seed).frame(view)


def write_photos(layout: Layout, folder: Path, faces: bool = False) -> list[Path]:
    """All of the above as files, for rehearsing the commands by hand."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for i, photo in enumerate(charuco_photos()):
        written.append(folder / f"charuco-{i:02d}.png")
        cv2.imwrite(str(written[-1]), photo)
    for name, photo in (("board", board_photo(layout)), ("colours", colours_photo(layout))):
        written.append(folder / f"{name}.png")
        cv2.imwrite(str(written[-1]), photo)
    if faces:
        written.append(folder / "faces.png")
        cv2.imwrite(str(written[-1]), faces_photo(layout))
    return written
