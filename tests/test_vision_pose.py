"""The camera's full pose from the board's markers, and a die read where it stands
(companion/vision/pose.py, and its use in blobs.py).

The poses are the physically based camera's own (render3d.pinhole_for): the markers'
corners are projected through it and solved for again, with the lens known and without.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.games import load_game
from companion.sim.camera.render3d import Scene3D, pinhole_for
from companion.vision.geometry import marker_corners_mm
from companion.vision.pose import DIE_MM, CameraPose, estimated_focal, stand_of


def _baron():
    game = load_game("baron_voodoo")
    return game.layout(game.setup(game.min_players, None, 0))


def _camera_centre(camera) -> np.ndarray:
    rotation = cv2.Rodrigues(camera.rvec)[0]
    return (-rotation.T @ camera.tvec).ravel()


@pytest.mark.parametrize("tilt", [0.0, 10.0, 20.0, 30.0])
@pytest.mark.parametrize("split", ["tune", "test"])
def test_the_pose_from_the_markers_puts_the_camera_where_it_stands(tilt: float, split: str) -> None:
    layout = _baron()
    camera = pinhole_for(layout, Scene3D.drawn(7, split, tilt))
    corners = np.concatenate(list(marker_corners_mm(layout).values()))
    seen = camera.project(np.c_[corners, np.zeros(len(corners))], distorted=False)
    pose = CameraPose.solve(corners, seen, camera.matrix, camera.size)
    assert pose is not None
    centre = _camera_centre(camera)
    assert abs(pose.height_mm + centre[2]) < 0.01 * -centre[2]
    assert np.hypot(*(np.array(pose.nadir_mm) - centre[:2])) < 5.0
    # without the lens: the focal length from the view when it is tilted, else a webcam's
    guessed = CameraPose.solve(corners, seen, None, camera.size)
    assert guessed is not None
    assert abs(guessed.height_mm + centre[2]) < 0.06 * -centre[2]
    if tilt >= 20:
        assert np.hypot(*(np.array(guessed.nadir_mm) - centre[:2])) < 30.0


def test_a_focal_length_is_read_from_a_tilted_view_and_guessed_from_a_straight_one() -> None:
    layout = _baron()
    for tilt, exact in ((30.0, True), (0.0, False)):
        camera = pinhole_for(layout, Scene3D.drawn(3, "tune", tilt))
        corners = np.concatenate(list(marker_corners_mm(layout).values()))
        seen = camera.project(np.c_[corners, np.zeros(len(corners))], distorted=False)
        homography, _ = cv2.findHomography(corners, seen)
        f = estimated_focal(homography, camera.size)
        if exact:
            assert abs(f - camera.matrix[0, 0]) < 0.03 * camera.matrix[0, 0]
        else:  # nothing to tell it by: a 70-degree webcam's
            assert 0.6 * camera.size[0] < f < 0.8 * camera.size[0]


def test_points_that_fix_no_view_give_no_pose() -> None:
    square = np.array([[0, 0], [10, 0], [10, 10]], np.float64)
    assert CameraPose.solve(square, square, None, (640, 480)) is None  # three points fix nothing


def _column(pose: CameraPose, foot: tuple[float, float], levels: int, size: int = 200,
            seen_from_mm: float = 0.0) -> np.ndarray:
    """A die column's blob on the board's plane (1 px a mm): its foot swept out to its top
    (its sides seen from ``seen_from_mm`` up)."""
    mask = np.zeros((size, size), np.uint8)
    half = DIE_MM / 2
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    for t in np.linspace(seen_from_mm, levels * DIE_MM, 40):
        keep = pose.height_mm / (pose.height_mm - t)
        pts = np.array(pose.nadir_mm) + (square + np.array(foot) - np.array(pose.nadir_mm)) * keep
        cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 1)
    return mask


@pytest.mark.parametrize("levels", [1, 2, 3])
def test_a_column_seen_with_its_sides_stands_at_its_foot_so_many_dice_high(levels: int) -> None:
    pose = CameraPose((400.0, 420.0), 700.0)  # the nadir off the board's near corner, as at 30 degrees
    foot = (80.0, 90.0)
    stand = stand_of(pose, _column(pose, foot, levels), 0, 0, 1.0, DIE_MM, 3)
    assert stand is not None and levels in stand.fits
    fx, fy = pose.feet(stand.top[0], stand.top[1], DIE_MM, 3)[levels - 1]
    assert np.hypot(fx - foot[0], fy - foot[1]) < 2.5
    assert stand.lean == pytest.approx(pose.lean(np.hypot(foot[0] - 400, foot[1] - 420), levels * DIE_MM),
                                       abs=2.5)


def test_a_column_whose_feet_are_not_seen_still_fits_its_height_and_no_lower_one() -> None:
    """The lowest part of a die's sides (its rounded foot, in its own shade) is often not
    seen: a lean of half a column's still fits that column, never a column half as tall."""
    pose = CameraPose((400.0, 420.0), 700.0)
    foot = (80.0, 90.0)
    stand = stand_of(pose, _column(pose, foot, 3, seen_from_mm=1.5 * DIE_MM), 0, 0, 1.0, DIE_MM, 3)
    assert stand is not None and 3 in stand.fits and 1 not in stand.fits


def test_a_lean_past_the_tallest_column_fits_no_height() -> None:
    pose = CameraPose((400.0, 420.0), 700.0)
    long_blob = _column(pose, (60.0, 60.0), 0) | _column(pose, (90.0, 90.0), 0)  # two dice apart, joined
    long_blob[60:90, 60:90] = 1
    stand = stand_of(pose, long_blob, 0, 0, 1.0, DIE_MM, 1)
    assert stand is not None and stand.fits == ()


def test_a_flat_die_shows_no_sides() -> None:
    pose = CameraPose((400.0, 420.0), 700.0)
    stand = stand_of(pose, _column(pose, (80.0, 90.0), 0), 0, 0, 1.0, DIE_MM, 3)
    assert stand is not None and stand.lean < 2.0
