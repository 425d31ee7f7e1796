"""The reader's arm helpers, worked out round a mask's box for speed (the bench reads about
3,000 frames with an arm over the board in a Swing State game), give what the same work on
the whole mask gives, pixel for pixel, at the frame's edges too."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import arms
from companion.vision.reading import filled_hull


def masks(seed: int, shape: tuple[int, int] = (160, 220)) -> list[np.ndarray]:
    """Blobs and strokes anywhere, touching the edges sometimes; one empty mask."""
    rng = np.random.default_rng(seed)
    out = [np.zeros(shape, bool)]
    for _ in range(6):
        m = np.zeros(shape, np.uint8)
        for _ in range(int(rng.integers(1, 4))):
            x, y = int(rng.integers(-10, shape[1] + 10)), int(rng.integers(-10, shape[0] + 10))
            cv2.ellipse(m, (x, y), (int(rng.integers(2, 40)), int(rng.integers(2, 30))),
                        float(rng.uniform(0, 180)), 0, 360, 1, -1)
        out.append(m > 0)
    return out


def whole_hull(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros(mask.shape, np.uint8)
    if contours:
        cv2.fillConvexPoly(filled, cv2.convexHull(np.concatenate(contours)), 1)
    return filled > 0


def whole_outline(mask: np.ndarray, px: float) -> np.ndarray:
    grown = arms._grown(mask, px, exact=True).astype(np.uint8)
    closed = (cv2.distanceTransform(grown, cv2.DIST_L2, cv2.DIST_MASK_5) > px).astype(np.uint8)
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(closed, contours, -1, 1, cv2.FILLED)
    return closed > 0


@pytest.mark.parametrize("seed", range(4))
def test_the_arm_helpers_round_a_masks_box_are_the_whole_masks(seed: int) -> None:
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (11, 11))
    for mask in masks(seed):
        assert np.array_equal(filled_hull(mask), whole_hull(mask))  # (``reading``'s, which arms use)
        for px in (5.0, 25.0):
            assert np.array_equal(arms._filled_outline(mask, px), whole_outline(mask, px))
        rows, cols, near = arms._dilated(mask, disc)
        dilated = np.zeros(mask.shape, bool)
        dilated[rows, cols] = near
        assert np.array_equal(dilated, cv2.dilate(mask.astype(np.uint8), disc) > 0)


def test_a_colour_range_test_is_the_channels_largest_difference() -> None:
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    for colour in (np.array([0, 128, 255], np.int16), np.array([40, 41, 230], np.int16)):
        want = np.abs(pixels.astype(np.int16) - colour).max(axis=2) <= 30
        assert np.array_equal(arms._within(pixels, colour, 30), want)
        assert want.any() and not want.all()


def test_an_arm_seen_only_as_thin_patches_has_no_far_end_to_doubt_dark_pieces_past() -> None:
    """An arm whose patches were all too thin to count as its solid part leaves nothing of it
    seen: no dark piece is doubted for its unseen fingertip (this raised ValueError)."""
    from companion.bench.vision import game_layout, make_reader
    from companion.games.base import Piece

    layout, colours, _players = game_layout("jivecat")
    reader = make_reader(layout, colours)
    from companion.vision.palette import shadow_colours

    dark = sorted(shadow_colours(reader._piece_names, reader._piece_bgr))[0]
    spot = reader._spot_ids[0]
    placed = [(spot, Piece(colour=dark, pips=0), 40.0, 40.0, 1.0)]
    reader._arm_seen = (np.zeros(reader._spot_map.shape, bool), (10.0, 10.0))
    assert reader._shadow_coloured_near_arm(placed) == []
    arm = np.zeros(reader._spot_map.shape, bool)
    arm[10:60, 10:60] = True  # seen, and reaching the piece: doubted past its far end
    reader._arm_seen = (arm, (10.0, 10.0))
    assert reader._shadow_coloured_near_arm(placed) == [spot]
