"""A die's count fitted whole, where the frame resolves it coarsely (under ``MARKS_PX_PER_MM``),
or where its marks found one by one were unclear.

There a pip is two frame pixels across and a face nine or ten: the peak search of
``pips.count_pips`` finds marks run into each other and the outline's bends, and leaves the
count unclear (the reader says "marks too small for the camera").  Yet the pips still darken
(or lighten) the face where a face lays them out.  Here every face is fitted to the top as a
picture: a lattice over the face's square (less its rim), at every place its centre may lie
inside the die's colour and every turn, is compared with each count's pips (discs a fifth of
a face across, at three steps apart, blurred by the camera's pixel), the face's brightness and
its pips' contrast fitted by least squares.  A count is read only when the best fit of every
other count leaves so much more unexplained that the odds against it are past ``EVIDENCE``
(half the lattice's frame pixels times the log of the two residuals' ratio: the count whose
pip is one the face lacks pays for it in every pixel of that pip), its pips darker than the
face on a light die, lighter on a dark one, and the grid points it leaves empty as plain as
the fit expects (a pip half washed out, or a lamp's highlight over one, makes a face fit a
pip too few).  A face a reflection lies on is the caller's to rule out.

Only a 5 or a 6 is read: every smaller face's pips are all some bigger face's, and a pip
the lamp or the blur took leaves the bigger face fitting as the smaller (on fresh VGA boards
rendered to check this fit, a white 5 at 0.59 px a mm, its middle gone, fitted as a 4 at
high odds; the tuning split's 154 coarse dice had shown 41 read right and none wrong with
1-6 read, which did not hold).  On the tuning split's coarse dice now (283, the fresh boards
among them): 19 read right, none wrong; as a check on its 1,183 finer dice, 366 right and
none wrong, so since stop 108 the reader asks it of a finer frame's die too, where every other
read of its marks left them unclear (3 more places read on the two splits, none wrong).
``COVER_REACH`` 0.42 (the lattice's outer ring in the die's colour too) read fewer coarse
dice; a looser ``COVER`` (0.7) read 17 of the finer dice wrong when 1-6 were read.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from companion.vision.face_template import GRID, LAYOUTS

LATTICE = 15  # points a side of the lattice over the face
REACH = 0.42  # ... reaching this share of a face from its centre (the rounded rim left out)
TURNS = np.deg2rad(np.arange(0.0, 180.0, 6.0))  # a face's turn (a 2's and a 3's diagonal, a 6's rows)
STEPS = (0.25, 0.28, 0.31)  # a face's pips this share of its width apart (die_layout.DIE_STEP)
PIP = 0.19  # a pip's width, a share of the face's
BLUR_PX = 0.6  # the camera's blur, frame pixels (one sigma)
CENTRE_EVERY_PX = 0.4  # frame pixels between the face's centres tried ...
MOST_CENTRES = 200  # ... this many at most (further apart where the die's inside holds more)
INSIDE = 0.3  # a face's centre lies this share of its width inside the die's colour at least
COVER = 0.9  # ... and its lattice this share in the die's colour ...
COVER_REACH = 0.3  # ... within this share of a face from its centre
EVIDENCE = 12.0  # the odds (log) a count's fit stands over every other's, at least
ROW = 4096  # points sampled a row (``_sampled``)
LIT = 3.0  # noise levels an empty grid point may lie off the face (``_not_plain_where_it_has_none``)


def _pips(xs: np.ndarray, ys: np.ndarray, count: int, step: float, blur_faces: float) -> np.ndarray:
    """A face of ``count`` pips ``step`` apart (faces), as the camera blurs it, at (``xs``,
    ``ys``) faces from its centre: 0 on the face, about 1 at a pip's middle.  (A disc blurred
    by a Gaussian, taken for a Gaussian of the two widths together.)"""
    disc = (PIP / 2.5) ** 2
    spread = disc + blur_faces ** 2
    shown = sum(np.exp(-((xs - x * step) ** 2 + (ys - y * step) ** 2) / (2 * spread))
                for x, y in LAYOUTS[count])
    return np.asarray(shown) * disc / spread


@functools.lru_cache(maxsize=8)
def _faces(blur_faces: float) -> tuple[tuple[int, ...], np.ndarray, np.ndarray, np.ndarray]:
    """Each count's pips at each step as the lattice samples them (centred: only the pips'
    pattern is fitted, the face's brightness goes with the mean), what was taken off each to
    centre it, and the lattice (faces)."""
    u = np.linspace(-REACH, REACH, LATTICE)
    gx, gy = (a.ravel() for a in np.meshgrid(u, u))
    counts, rows = [], []
    for step in STEPS:
        for n in LAYOUTS:
            counts.append(n)
            rows.append(_pips(gx, gy, n, step, blur_faces))
    shown = np.stack(rows)
    means = shown.mean(axis=1)
    return tuple(counts), shown - means[:, None], means, np.stack([gx, gy], 1)


def coarse_count(gray: np.ndarray, mask: np.ndarray, face_px: float, light_die: bool,
                 frame_px: float) -> tuple[int, tuple[float, float]] | None:
    """The count a coarsely seen die's top shows in ``gray`` (its crop), fitted with the
    face's centre inside ``mask`` (the die's colour); ``face_px``: a face's width in crop px;
    ``light_die``: its pips darker than it (white, yellow), else lighter; ``frame_px``: crop
    px a frame pixel.  With the face's centre (crop px), for the caller to judge where that
    top stands; None when no count stands clear of every other (see the module)."""
    if not mask.any() or face_px < 8 or frame_px <= 0:
        return None
    # (a die left unclear is read again, its crop the same, once another die's top is read near
    # it (``reader``'s rounds): the fit is kept on its exact inputs, as ``classifying``'s tables are)
    return _fitted(gray.dtype.str, gray.shape, gray.tobytes(), mask.shape, mask.astype(np.uint8).tobytes(),
                   face_px, light_die, frame_px)


@functools.lru_cache(maxsize=256)
def _fitted(gray_type: str, gray_shape: tuple[int, ...], gray_bytes: bytes,
            mask_shape: tuple[int, ...], mask_bytes: bytes, face_px: float,
            light_die: bool, frame_px: float) -> tuple[int, tuple[float, float]] | None:
    """``coarse_count`` on its crop's bytes (read-only)."""
    gray = np.frombuffer(gray_bytes, gray_type).reshape(gray_shape)
    mask = np.frombuffer(mask_bytes, np.uint8).reshape(mask_shape)
    blur = round(BLUR_PX * frame_px / face_px, 2)
    counts, patterns, means, lattice = _faces(blur)
    k = int(0.3 * face_px) | 1  # (its pips, holes in its colour, closed)
    solid = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    reach = 2 * int(INSIDE * face_px) + 1
    inside = cv2.erode(solid, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
    every = max(1, int(round(CENTRE_EVERY_PX * frame_px)))
    placed = cv2.countNonZero(inside[::every, ::every])
    if placed > MOST_CENTRES:  # (a finer frame's big crop: centres a pixel apart cost seconds a die)
        every = int(np.ceil(every * np.sqrt(placed / MOST_CENTRES)))
    ys, xs = np.nonzero(inside[::every, ::every])
    if not len(xs):
        return None
    centres = np.stack([xs, ys], 1).astype(np.float32) * every
    cos, sin = np.cos(TURNS), np.sin(TURNS)
    lx = lattice[None, :, 0] * cos[:, None] - lattice[None, :, 1] * sin[:, None]
    ly = lattice[None, :, 0] * sin[:, None] + lattice[None, :, 1] * cos[:, None]
    points = lattice.shape[0]
    image = gray.astype(np.float32)
    seen = _sampled_round(image, centres, lx * face_px, ly * face_px, cv2.INTER_LINEAR).reshape(-1, points)
    # (the colour asked of the lattice's inner points alone: 121 of its 225)
    inner = (np.abs(lattice) <= COVER_REACH).all(axis=1)
    cover = _sampled_round(solid.astype(np.float32), centres, lx[:, inner] * face_px, ly[:, inner] * face_px,
                           cv2.INTER_NEAREST).reshape(-1, int(inner.sum())).mean(axis=1)
    brightness = seen.mean(axis=1)
    seen -= brightness[:, None]
    total = (seen ** 2).sum(axis=1)
    energy = (patterns ** 2).sum(axis=1)
    contrast = seen @ patterns.T / energy  # (placements, patterns): the pips' fitted contrast
    left = total[:, None] - contrast ** 2 * energy  # what each fit leaves unexplained
    # (pips the wrong way round fit as no pips at all; a lattice off the die's colour not at all)
    left = np.where((contrast < 0) if light_die else (contrast > 0), left, total[:, None])
    left = np.where(cover[:, None] >= COVER, left, np.inf)
    best: dict[int, tuple[float, int, int]] = {}
    for j, n in enumerate(counts):
        i = int(np.argmin(left[:, j]))
        if np.isfinite(left[i, j]) and (n not in best or left[i, j] < best[n][0]):
            best[n] = (float(left[i, j]), i, j)
    if len(best) < len(LAYOUTS):
        return None  # (no placement of the face in the die's colour)
    ranked = sorted(best, key=lambda n: best[n][0])
    first, second = best[ranked[0]][0], best[ranked[1]][0]
    pixels = (2 * REACH * face_px / frame_px) ** 2  # the lattice's frame pixels: what it truly samples
    if second <= 0 or 0.5 * pixels * np.log(second / max(first, 1e-6)) < EVIDENCE:
        return None
    if any(set(LAYOUTS[ranked[0]]) < set(LAYOUTS[n]) for n in LAYOUTS):
        # a face whose pips are all another face's may be that face with a pip washed out or
        # blurred away, which no fit tells from it (fresh VGA boards, stop 82: a white 5 at
        # 0.59 px a mm, its middle pip gone, fitted as a 4): only a 5 or a 6 is read
        return None
    _, i, j = best[ranked[0]]
    where, turn, step = centres[i // len(TURNS)], TURNS[i % len(TURNS)], STEPS[j // len(LAYOUTS)]
    # what the fit expects at the grid points it leaves empty: the face, less its pips' blur
    empty = np.array([g for g in GRID if g not in LAYOUTS[ranked[0]]], np.float64) * step
    pips = _pips(empty[:, 0], empty[:, 1], ranked[0], step, blur)
    expected = brightness[i] + contrast[i, j] * (pips - means[j])
    if _not_plain_where_it_has_none(image, where, turn, face_px, empty, expected, light_die,
                                    np.sqrt(first / points)):
        return None
    return ranked[0], (float(where[0]), float(where[1]))


def _not_plain_where_it_has_none(image: np.ndarray, centre: np.ndarray, turn: float, face_px: float,
                                 empty: np.ndarray, expected: np.ndarray, light_die: bool,
                                 noise: float) -> bool:
    """Does a grid point the count leaves empty (``empty``, faces from the centre) show lighter
    than the fit expects there (``expected``), or (on a light die) darker?  Lighter is a lamp's
    highlight, which washes a pip out and lights the face round it, or a light pip half washed
    out; darker a dark pip half seen.  A face fitted with a pip too few is one whose pip the
    light took (Baron Voodoo's purple 6s under a glossy sheen, fitted as a 1), and such a face
    is read no more than the peak search reads it."""
    c, s = np.cos(turn), np.sin(turn)
    xs = centre[0] + face_px * (empty[:, 0] * c - empty[:, 1] * s)
    ys = centre[1] + face_px * (empty[:, 0] * s + empty[:, 1] * c)
    off = _sampled(image, xs, ys, cv2.INTER_LINEAR) - expected
    reach = LIT * max(noise, 1.0)
    return bool((off > reach).any() or (light_die and (off < -reach).any()))


def _sampled_round(image: np.ndarray, centres: np.ndarray, xs: np.ndarray, ys: np.ndarray, how: int
                   ) -> np.ndarray:
    """``image`` at the points (``xs``, ``ys``: turns x points, crop px) round each of the
    ``centres`` (float32), centre by centre, turn by turn, as ``_sampled`` samples them: each
    point worked out in float64 and rounded to float32 once, straight into ``cv2.remap``'s maps
    (not made whole, then rounded, then padded: three copies of a million points a die)."""
    n = len(centres) * xs.size
    rows = -(-n // ROW)
    maps = np.zeros((2, rows * ROW), np.float32)
    for axis, offsets in enumerate((xs, ys)):
        placed = maps[axis, :n].reshape(len(centres), *xs.shape)  # (a view: the maps filled in place)
        np.add(centres[:, None, None, axis], offsets[None], out=placed, casting="unsafe")
    shape = (rows, ROW)
    return cv2.remap(image, maps[0].reshape(shape), maps[1].reshape(shape), how,
                     borderMode=cv2.BORDER_REPLICATE).ravel()[:n]


def _sampled(image: np.ndarray, xs: np.ndarray, ys: np.ndarray, how: int) -> np.ndarray:
    """``image`` at the points (``xs``, ``ys``), in their order (``cv2.remap`` takes maps of
    fewer than 32767 rows: the points go in rows of ``ROW``)."""
    rows = -(-len(xs) // ROW)
    pad = rows * ROW - len(xs)
    map_x = np.pad(xs.astype(np.float32), (0, pad)).reshape(rows, ROW)
    map_y = np.pad(ys.astype(np.float32), (0, pad)).reshape(rows, ROW)
    return cv2.remap(image, map_x, map_y, how, borderMode=cv2.BORDER_REPLICATE).ravel()[:len(xs)]
