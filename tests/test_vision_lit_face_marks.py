"""A dark die's top lit past mid-grey: its light pips counted, and a dark mark on it a
reason for doubt only where a pip its light marks missed would lie (a 5's middle washed
out and shaded in its hollow), not the shade of its rounded edge beside them.  And a die
seen only as specks of its colour round a top the lamp lit (no marks at all where its
colour shows) read on that lit top, by its clear marks alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import reading_of

from companion.vision.die_layout import DIE_FACES
from companion.vision.pips import DIE_RIM_SHARE, count_pips

FACE_PX = 64  # a 16 mm die at 4 px a mm
STEP = 0.27 * FACE_PX
PAD = 10


def lit_face(pips: int, dark_at: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A dark die's top lit to a grey of 175, its white pips laid out as ``pips`` shows them,
    and a dark spot (grey 130) at ``dark_at`` (grid steps from the face's middle): its mask and
    its blurred brightness."""
    size = FACE_PX + 2 * PAD
    mask = np.zeros((size, size), np.uint8)
    mask[PAD:PAD + FACE_PX, PAD:PAD + FACE_PX] = 1
    grey = np.full((size, size), 150.0)
    grey[mask > 0] = 175.0
    middle = PAD + FACE_PX / 2
    ys, xs = np.mgrid[0:size, 0:size]

    def disc(at: tuple[float, float], radius: float) -> np.ndarray:
        return (xs - (middle + at[0] * STEP)) ** 2 + (ys - (middle + at[1] * STEP)) ** 2 <= radius ** 2

    for place in DIE_FACES[pips]:
        grey[disc(place, 0.085 * FACE_PX)] = 240.0
    if dark_at is not None:
        grey[disc(dark_at, 0.06 * FACE_PX)] = 130.0
    return mask, cv2.GaussianBlur(grey, (0, 0), 1.5).astype(np.uint8)


def read(mask: np.ndarray, grey: np.ndarray) -> tuple[int, bool]:
    return count_pips(mask, grey, rim_share=DIE_RIM_SHARE, die_px=float(FACE_PX), light_ink=True)


def test_a_lit_four_is_read() -> None:
    assert read(*lit_face(4)) == (4, True)


def test_its_edges_shade_between_its_pips_is_no_pip() -> None:
    # half a step off a 6's side pip, in from the outline: no grid point of any face
    assert read(*lit_face(4, dark_at=(-1.0, -0.5))) == (4, True)


@pytest.mark.parametrize("dark_at", [(0.0, 0.0), (-1.0, 0.0), (0.0, 1.0)])
def test_a_dark_mark_where_a_pip_would_make_another_face_leaves_it_unclear(
        dark_at: tuple[float, float]) -> None:
    # a 5's middle, or a 6's side pips (either way the face is turned)
    assert read(*lit_face(4, dark_at=dark_at)) == (4, False)


def test_a_lit_two_with_a_dark_middle_is_unclear() -> None:
    assert read(*lit_face(2, dark_at=(0.0, 0.0))) == (2, False)


def _wrong(frame, layout, reading) -> list[str]:
    doubtful = dict(reading.doubtful or {})
    return [s.id for s in layout.spots
            if s.id not in doubtful and reading.view.get(s.id, ()) != frame.view.get(s.id, ())]


@pytest.mark.parametrize(("stem", "spot"), [
    ("king_of_clubs-t00-b0", "p1_d0"),  # a red 4 lit pink, its left edge in shade
    ("baron_voodoo-t00-b0", "C5"),  # a blue 1 lit pale blue, only its rim blue
])
def test_a_tuning_frames_lit_top_seen_as_specks_of_its_colour_is_read(stem: str, spot: str) -> None:
    frame, layout, reading = reading_of("tune", stem)
    assert reading.view is not None
    assert spot not in dict(reading.doubtful or {})
    assert reading.view.get(spot) == frame.view.get(spot)
    assert _wrong(frame, layout, reading) == []


def test_a_lit_top_whose_marks_are_faint_stays_in_doubt() -> None:
    # a red 5 whose middle the lamp took: its four corners faint on its lit top, a 4 only with
    # faint marks counted (so was a red 3 on the tuning frame t10-b1, F4: two clear corners and
    # two specks of sheen; that frame takes a minute to read cold, this one a second)
    frame, layout, reading = reading_of("tune", "baron_voodoo-t10-b0-side")
    assert reading.view is not None
    assert "souls0-1" in dict(reading.doubtful or {})
    assert _wrong(frame, layout, reading) == []
