"""A die's slow reads kept on their exact inputs (``die_square._low_face_within``,
``face_template.face_scores``, ``coarse_face.coarse_count``): a die left unclear is read again,
its crop the same, once another die's top is read near it, and its plain, lit and shaded reads
often see the same colour.  A read kept is the read afresh: a face of 1-3 is found again where
``stands`` (which asks where other dice's tops were read) now answers otherwise, and nothing
handed back is shared with what is kept."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision import die_square
from companion.vision.die_square import low_face
from companion.vision.face_template import face_scores
from companion.vision.pips import DIE_RIM_SHARE

SIZE, DIE_PX, STEP = 110, 64.0, 17.3  # crop px; a face's width; its pips' step (0.27 of it)
TOP = (55.0, 40.0)  # the top's centre; the camera's nadir lies below (the sides show below it)
OUTWARD = (0.0, -1.0)


def _die(top_pips: list[tuple[int, int]], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A dark die with light pips seen from a slant, its side swept below its top: (mask, gray).
    ``seed``: the sensor's noise (a crop no other test reads: nothing of theirs kept)."""
    gray = np.full((SIZE, SIZE), 170, np.uint8)
    mask = np.zeros((SIZE, SIZE), np.uint8)
    half = int(DIE_PX / 2)
    x0, y0 = int(TOP[0]) - half, int(TOP[1]) - half
    cv2.rectangle(gray, (x0, y0 + half), (x0 + 2 * half, y0 + 2 * half + 18), 65, -1)
    cv2.rectangle(mask, (x0, y0 + half), (x0 + 2 * half, y0 + 2 * half + 18), 1, -1)
    cv2.rectangle(gray, (x0, y0), (x0 + 2 * half, y0 + 2 * half), 80, -1)
    cv2.rectangle(mask, (x0, y0), (x0 + 2 * half, y0 + 2 * half), 1, -1)
    for gx, gy in top_pips:
        cv2.circle(gray, (int(TOP[0] + gx * STEP), int(TOP[1] + gy * STEP)), 5, 235, -1)
    noise = np.random.default_rng(seed).normal(0.0, 1.0, gray.shape)
    gray = np.clip(cv2.GaussianBlur(gray, (0, 0), 1.0) + noise, 0, 255).astype(np.uint8)
    return mask, gray


def test_a_low_face_read_again_asks_again_where_its_top_stands() -> None:
    mask, gray = _die([(0, 0)], seed=101)
    asked: list[tuple[float, float]] = []

    def standing(answer: bool):
        def stands(cx: float, cy: float) -> bool:
            asked.append((cx, cy))
            return answer
        return stands

    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD, standing(True)) == 1
    first = list(asked)
    assert first  # (where its top stands was asked)
    asked.clear()
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD, standing(True)) == 1
    assert asked == first  # kept, and asked again where it was asked
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD, standing(False)) is None
    # (kept with what it answered last: asked where that read asked, found afresh where it differs)
    assert low_face(mask.copy(), gray.copy(), None, DIE_RIM_SHARE, DIE_PX, OUTWARD, standing(True)) == 1
    assert set(asked) == set(first)


def test_a_low_face_kept_is_the_low_face_found_afresh() -> None:
    mask, gray = _die([(-1, -1), (1, 1)], seed=102)
    rim = max(1, int(round(DIE_RIM_SHARE * np.sqrt(float(np.count_nonzero(mask))))))
    laid_out: list[np.ndarray] = []
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD, None, laid_out) == 2
    laid_out[0][:] = -1.0  # (the caller's to change: nothing kept changes with it)
    assert low_face(mask, gray, None, DIE_RIM_SHARE, DIE_PX, OUTWARD, None, laid_out) == 2
    assert (laid_out[1] > 0).all()
    face = die_square.outline(mask)
    assert face is not None
    for within in die_square._insets(rim):
        kept = die_square._low_face_within(mask, gray, face, within, DIE_PX, OUTWARD, None)
        afresh = die_square._found_within(mask, gray, face, within, DIE_PX, OUTWARD, None)
        assert kept.keys() == afresh.keys()
        assert all(np.array_equal(kept[count], afresh[count]) for count in kept)


def test_a_faces_scores_kept_are_not_the_callers_to_change() -> None:
    mask, gray = _die([(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], seed=103)
    scored = face_scores(gray, mask, DIE_PX, True)
    assert scored is not None
    best = dict(scored[0])
    scored[0].clear()
    again = face_scores(gray, mask, DIE_PX, True)
    assert again is not None and again[0] == best and again[1] == scored[1]
