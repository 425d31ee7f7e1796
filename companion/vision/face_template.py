"""A die's count by its whole face, for a die whose marks the peak search could not lay out.

``pips.count_pips`` and ``die_square.low_face`` find marks as peaks inside the die's colour
and then ask which face lays them out.  A die whose colour the camera splits (a lit red top
read pink in part, its pips a paler pink joined to it) leaves its peaks where its colour's
outline bends, and the count unclear although every pip shows.  Here the face is looked for
whole: at every place a top's centre may lie inside the die, every turn and every step a
face's pips may lie apart, the contrast a pip makes (a pip-sized blur less a wider one) is
sampled at the nine grid points of a face, and each count is scored by how much its weakest
pip stands over the strongest grid point it leaves empty.  A count is read only when its
score is strong against the face's own noise, and far past the best anywhere on the die of
every count with a pip where it has none: a 5 whose middle pip is washed out scores as a 4
and a 5 alike, and stays unclear.  Only a 5 or a 6 is read: a face of fewer pips may be part
of a bigger one whose other pips do not show.  A 4 is a 5 whose middle pip a lamp washes out,
or whose hollow, a little smaller than its paint's disc, shows no lighter nor darker than a
lit top round it (Baron Voodoo's red 5s from straight above, their tops lit pink: four clear
corners and a middle that is face in grey and in colour); a 5 has a pip where a 6 has none,
and a 6 is the most.

A face of 2-4 is read only when the caller sees its top in its own colour, not lit toward
white (``PieceMarks._in_its_own_colour``): every tuning frame's die whose pip the light
hid without a trace had a top lit past its colour (that red 5's median face 0.62 of the way
to white, the 2-4s read right 0.16 at most).  A lone pip stays out: a highlight is one.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from companion.vision.die_layout import DIE_FACES, DIE_STEP

LAYOUTS = {1: ((0, 0),), **DIE_FACES}
GRID = tuple((x, y) for y in (-1, 0, 1) for x in (-1, 0, 1))
_IN_LAYOUT = {n: np.array([g in places for g in GRID]) for n, places in LAYOUTS.items()}
TURNS = np.deg2rad(np.arange(0.0, 180.0, 3.0))  # a face's turn (a 2's and a 3's diagonal, a 6's rows)
STEPS = np.linspace(DIE_STEP[0] + 0.02, DIE_STEP[1] - 0.02, 3)  # a step, a share of the face's width
PIP_SHARE = 0.17  # a pip's width, a share of the face's
CENTRE_EVERY = 2  # crop px between the face's centres tried
INSIDE_SHARE = 0.36  # a face's centre lies this share of its width inside the die's outline at least
STRONG = 2.0  # the read count's weakest pip stands over its empty points by this many noise levels ...
APART = 0.3  # ... and its score is past every other count's best by this share of it
COVER_REACH = 0.4  # the lattice judging a top inside the die reaches this share of its width from its centre
COVERED = 0.95  # ... and this share of it lies in the die's colour
FEWEST = 5  # a face of fewer pips may be part of a bigger one whose other pips do not show
FEWEST_IN_ITS_COLOUR = 2  # ... unless its top is seen in its own colour, no lamp's light over it
EMPTY = 1.0  # noise levels of a pip's contrast a grid point left empty shows, at most (a faint pip's)
PLAIN = 3.0  # noise levels over the face's median a grid point left empty may be lit, at most


def face_count(gray: np.ndarray, mask: np.ndarray, face_px: float, light_marks: bool,
               fewest: int = FEWEST) -> tuple[int, tuple[float, float]] | None:
    """The count a die's face shows in ``gray`` (its crop), looked for with its centre inside
    ``mask`` (the die's colour, its pips in it or not); ``face_px``: a face's width in crop
    px; ``light_marks``: pips lighter than the die (white on red), else darker.  With the
    face's centre (crop px), for the caller to judge where that top stands; None when no
    count stands clear of every other (see the module).  ``fewest``: the fewest pips read
    (``FEWEST``; ``FEWEST_IN_ITS_COLOUR`` for a face the caller sees in its own colour)."""
    scored = face_scores(gray, mask, face_px, light_marks)
    if scored is None:
        return None
    best, noise = scored
    count = max((n for n in best if n >= fewest), key=lambda n: best[n][0])
    score, centre = best[count]
    # (a face of 1-4 is part of a 5's or a 6's pips: scored high there, it tells nothing against it;
    # a count with a pip where this one has none is another reading of the face)
    runner_up = max(best[n][0] for n in best if not set(LAYOUTS[n]) <= set(LAYOUTS[count]))
    if score < STRONG * noise or score - max(runner_up, 0.0) < APART * score:
        return None
    return count, centre


def face_scores(gray: np.ndarray, mask: np.ndarray, face_px: float,
                light_marks: bool) -> tuple[dict[int, tuple[float, tuple[float, float]]], float] | None:
    """Each count's best score anywhere on the die (``face_count``) and the face's centre
    there (crop px), and the face's noise."""
    if not mask.any() or face_px < 8:
        return None
    # (a die left unclear is read again, its crop the same, once another die's top is read near
    # it (``reader``'s rounds): the scores are kept on their exact inputs, as ``classifying``'s
    # tables are)
    scored = _scored(gray.dtype.str, gray.shape, gray.tobytes(), mask.shape, mask.astype(np.uint8).tobytes(),
                     face_px, light_marks)
    return None if scored is None else (dict(scored[0]), scored[1])


@functools.lru_cache(maxsize=256)
def _scored(gray_type: str, gray_shape: tuple[int, ...], gray_bytes: bytes,
            mask_shape: tuple[int, ...], mask_bytes: bytes, face_px: float,
            light_marks: bool) -> tuple[dict[int, tuple[float, tuple[float, float]]], float] | None:
    """``face_scores`` on its crop's bytes (read-only; the scores not to be changed)."""
    gray = np.frombuffer(gray_bytes, gray_type).reshape(gray_shape)
    mask = np.frombuffer(mask_bytes, np.uint8).reshape(mask_shape)
    pip = max(1.0, PIP_SHARE * face_px)
    g = gray.astype(np.float32)
    seen = cv2.GaussianBlur(g, (0, 0), 0.35 * pip)
    contrast = seen - cv2.GaussianBlur(g, (0, 0), pip)
    if not light_marks:
        contrast = -contrast
    solid = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(pip) | 1, int(pip) | 1)))
    inside = cv2.erode(solid, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * int(INSIDE_SHARE * face_px) + 1,) * 2))
    ys, xs = np.nonzero(inside[::CENTRE_EVERY, ::CENTRE_EVERY])
    if not len(ys):
        return None
    centres = np.stack([xs, ys], 1).astype(np.float32) * CENTRE_EVERY
    h, w = contrast.shape
    cos, sin = np.cos(TURNS), np.sin(TURNS)
    # the top lies in the die: a lattice over its square (less its rounded rim) in its colour,
    # judged a quarter turn's worth (a square is the same a quarter turn on)
    lattice = np.array([(x, y) for y in np.linspace(-COVER_REACH, COVER_REACH, 5)
                        for x in np.linspace(-COVER_REACH, COVER_REACH, 5)], np.float32)
    quarters = len(TURNS) // 2
    cq, sq = cos[:quarters], sin[:quarters]
    square = np.stack([lattice[None, :, 0] * cq[:, None] - lattice[None, :, 1] * sq[:, None],
                       lattice[None, :, 0] * sq[:, None] + lattice[None, :, 1] * cq[:, None]], -1) * face_px
    at = centres[:, None, None, :] + square[None]
    lx = np.clip(np.rint(at[..., 0]).astype(np.int32), 0, w - 1)
    ly = np.clip(np.rint(at[..., 1]).astype(np.int32), 0, h - 1)
    centre_at, quarter = np.nonzero((solid[ly, lx] > 0).mean(axis=-1) >= COVERED)
    if not len(centre_at):
        return None
    # the nine grid points of a face at each placement the die holds: both turns a quarter
    # apart (a 2's and a 3's diagonal, a 6's rows), every step
    turn = np.concatenate([quarter, quarter + quarters])
    placed = np.concatenate([centre_at, centre_at])
    grid = np.array(GRID, np.float32)
    turned = np.stack([grid[None, :, 0] * cos[turn, None] - grid[None, :, 1] * sin[turn, None],
                       grid[None, :, 0] * sin[turn, None] + grid[None, :, 1] * cos[turn, None]], -1)
    points = centres[placed, None, None, :] + turned[:, None] * (STEPS[None, :, None, None] * face_px)
    px = np.clip(np.rint(points[..., 0]).astype(np.int32), 0, w - 1)  # (placements, steps, 9)
    py = np.clip(np.rint(points[..., 1]).astype(np.int32), 0, h - 1)
    values = contrast[py, px]
    # (a point left empty by its strongest contrast within half a pip: a face placed a pixel
    # or two off a pip it leaves empty does not miss it)
    reach = 2 * int(round(0.5 * pip)) + 1
    near = cv2.dilate(contrast, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))[py, px]
    noise = float(np.median(np.abs(contrast[solid > 0]))) + 1.0
    # a grid point a count leaves empty shows the die's own face, no lighter, and nothing of a
    # pip: a lamp's highlight over a pip washes it out (no contrast left) and lights the face
    # round it; a pip it half washes out leaves some contrast (Baron Voodoo: a red 5's middle)
    lit = seen[py, px] > float(np.median(seen[solid > 0])) + PLAIN * noise
    best = {}
    for n, in_layout in _IN_LAYOUT.items():
        weakest = values[..., in_layout].min(axis=-1)
        strongest_empty = near[..., ~in_layout].max(axis=-1)
        plain = ~lit[..., ~in_layout].any(axis=-1) & (strongest_empty <= EMPTY * noise)
        scores = np.where(plain, weakest - strongest_empty, -np.inf)
        where = centres[placed[np.unravel_index(int(np.argmax(scores)), scores.shape)[0]]]
        best[n] = (float(scores.max()), (float(where[0]), float(where[1])))
    return best, noise
