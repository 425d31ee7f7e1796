"""A light token's dark marks as a JPEG keeps them: it stores colour at half the resolution,
so a small dark mark carries its face's hue (dark cyan on a cyan token), its channels darkened
unalike.  That is ink, not a reflection's lit rim (``pip_reflections._marks_not_dark_alike``),
which is a hue the face has not."""

from __future__ import annotations

import cv2
import numpy as np
from committed_frames import read_right, reading_of

from companion.games.base import Piece
from companion.vision.pip_reflections import _marks_not_dark_alike, lit_like_a_mark
from companion.vision.pips import outline

CYAN, WHITE = (202, 201, 67), (235, 235, 235)  # BGR, as a lamp lights them


def _token(face: tuple[int, int, int], marks: list[tuple[float, float]], ink: tuple[int, int, int],
           quality: int = 75, radius: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """A flat token as a camera sees it and the reader crops it: a 12 mm square of ``face`` on
    tan with round marks of ``ink`` (places in the square's widths, ``radius`` px) and a small sheen at one
    corner, at 2 px a mm through a JPEG (4:2:0), sampled up 4 times; and its colour mask."""
    img = np.full((40, 40, 3), (150, 175, 190), np.uint8)
    cv2.rectangle(img, (8, 8), (31, 31), face, -1)
    for x, y in marks:
        centre = (int(round((8 + 24 * x) * 4)), int(round((8 + 24 * y) * 4)))  # (a quarter px: ``shift``)
        cv2.circle(img, centre, int(radius * 4), ink, -1, cv2.LINE_AA, shift=2)
    sheen = np.zeros((40, 40), np.float32)
    cv2.circle(sheen, (28, 12), 2, 40.0, -1)
    img = np.clip(img + cv2.GaussianBlur(sheen, (0, 0), 1.0)[..., None], 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    img = cv2.resize(cv2.imdecode(data, cv2.IMREAD_COLOR), None, fx=4, fy=4, interpolation=cv2.INTER_LINEAR)
    near = np.linalg.norm(img.astype(np.float32) - np.float32(face), axis=2) < 45
    return img, near.astype(np.uint8)


FIVE = [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)]


def test_a_light_tokens_dark_marks_through_a_jpeg_are_no_reflection() -> None:
    """Taken for a reflection's rim before, at a JPEG quality of 75, with a small sheen beside."""
    for quality in (75, 90):
        img, mask = _token(CYAN, FIVE, (20, 20, 20), quality)
        assert not lit_like_a_mark(img, mask, True, outline(mask)), quality


def test_a_dark_ring_of_another_hue_on_a_white_face_is_still_a_reflections_rim() -> None:
    """A blue chip's lit rim round a reflection's white core: dark, and of a hue the white
    face has not."""
    img, mask = _token(WHITE, [(0.5, 0.5)], (200, 90, 20), radius=3.5)
    face = outline(mask)
    assert face is not None
    body = np.median(img[mask > 0].astype(np.float32), axis=0)
    inner = cv2.erode(face[0], np.ones((7, 7), np.uint8)) > 0
    assert _marks_not_dark_alike(img, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), body, inner)


def test_light_tokens_whose_marks_carry_their_hue_are_read_on_the_tuning_frames() -> None:
    # Jivecat's cyan skull token (a 1) and King of Clubs' orange club card (a 3), "glare?" before.
    # The token's frame sees the board at 0.57 px a mm: since stop 83 no count is taken there
    # (``COUNT_PX_PER_MM``), and the token is asked for with that reason, not read
    frame, _layout, reading = reading_of("tune", "jivecat-t30-b2-side")
    assert reading.doubtful.get("skull-2", "").startswith("marks too small for the camera (0.57 px a mm)")
    assert frame.view.get("skull-2") == (Piece("cyan", 1),)
    read_right("king_of_clubs-t10-b2-falloff", ("club1",))
