"""A die's outline's edges from each row's ends (``die_layout._row_ends``) are those every
pixel gives, to the last bit, along any direction: ``_in_the_middle`` and ``_far_past_near``
read them so instead of projecting every pixel."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.die_layout import _row_ends


def _outlines(rng: np.random.Generator) -> list[np.ndarray]:
    faces = []
    for _ in range(60):
        face = np.zeros((int(rng.integers(8, 90)), int(rng.integers(8, 90))), np.uint8)
        corners = rng.integers(0, min(face.shape), (6, 2)).astype(np.int32)
        cv2.fillConvexPoly(face, cv2.convexHull(corners), 1)
        if rng.random() < 0.4:  # specks apart from it, and rows with holes
            face[rng.random(face.shape) < 0.05] = 1
        faces.append(face)
    return faces


def test_row_ends_hold_every_extreme_along_any_direction() -> None:
    rng = np.random.default_rng(7)
    for face in _outlines(rng):
        ys, xs = np.nonzero(face)
        ends_x, ends_y = _row_ends(face)
        assert ends_x.dtype == xs.dtype and ends_y.dtype == ys.dtype
        for _ in range(12):
            angle = float(rng.uniform(0, 2 * np.pi))
            ux, uy = float(np.cos(angle)), float(np.sin(angle))
            for along, at_ends in ((xs * ux + ys * uy, ends_x * ux + ends_y * uy),
                                   (ys * ux - xs * uy, ends_y * ux - ends_x * uy)):
                assert float(along.max()) == float(at_ends.max())
                assert float(along.min()) == float(at_ends.min())


def test_row_ends_of_an_empty_outline_are_none() -> None:
    xs, ys = _row_ends(np.zeros((5, 7), np.uint8))
    assert not len(xs) and not len(ys)
