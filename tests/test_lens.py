"""The lens profile's points, through OpenCV's own model (companion/vision/lens.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.lens import Lens

MATRIX = np.array([[1400.0, 0, 960], [0, 1400.0, 540], [0, 0, 1]])
TERMS = [-0.12, 0.05, 0.001, -0.0005, -0.01, 0.02, -0.01, 0.003, 0.001, -0.002, 0.0015, 0.0004, 0.01, -0.02]


@pytest.mark.parametrize("terms", [4, 5, 8, 12, 14])
def test_points_distort_as_opencvs_project_points_puts_them(terms: int) -> None:
    """The model written out for the sampling map (radial, tangential, rational, thin prism)
    is OpenCV's to the float the reader keeps, over the whole frame and past its corners."""
    lens = Lens(MATRIX, np.array(TERMS[:terms]))
    pts = np.random.default_rng(terms).uniform([-100, -100], [2020, 1180], (20000, 2))
    rays = np.c_[(pts - MATRIX[:2, 2]) / np.diag(MATRIX)[:2], np.ones(len(pts))]
    want, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), MATRIX, lens.distortion)
    got = lens.distort_points(pts)
    assert got.dtype == np.float32 and got.shape == (len(pts), 2)
    assert np.abs(got - want.reshape(-1, 2).astype(np.float32)).max() <= 1e-3


def test_undistorting_a_distorted_point_gives_it_back() -> None:
    lens = Lens(MATRIX, np.array(TERMS[:5]))
    pts = np.random.default_rng(0).uniform([100, 100], [1820, 980], (500, 2))
    assert np.abs(lens.undistort_points(lens.distort_points(pts)) - pts).max() < 0.05
