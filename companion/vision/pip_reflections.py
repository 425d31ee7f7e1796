"""A lamp's reflection on a piece's face, which passes for a mark or hides one: told on the
crop's colours (a reflection adds the same light to every channel), and a light die's
reflection that hides none of its pips told from one that may.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.channels import channel_min
from companion.vision.die_layout import _DIE_GRID, BEYOND_THE_FACE, DIE_FACES, DIE_STEP, _laid_out_top
from companion.vision.mark_peaks import _SQUARE3, FAINT_MARK, _peaks, channel_medians, light_marks, outline
from companion.vision.mark_shapes import MARK_SHARE

INK = 20.0  # the marks' ink on a light piece, each channel (the palette's PIP_ON_LIGHT)
LIT_RAISE = 25  # a piece's darkest channel raised this much round a light spot: a reflection


def _mark_radius(area: float) -> float:
    """A mark's radius (crop px) on a piece whose outline holds ``area`` px."""
    return max(1.5, MARK_SHARE * 0.53 * np.sqrt(max(1.0, area)))


def lit_like_a_mark(crop: np.ndarray, mask: np.ndarray, in_focus: bool = True,
                    face: tuple[np.ndarray, float] | None = None, gray: np.ndarray | None = None,
                    light_ink: bool | None = None) -> bool:
    """Is a piece's face lit by a lamp's reflection, which passes for a mark or hides one?

    A reflection adds the same light to every channel and fades out slowly, so it is
    judged on the darkest channel, which it raises.  On a light face with dark ink
    nothing is lighter than the face but a reflection, and a mark it lies on turns grey.
    On a dark face with light marks, a printed mark is a sharp disc, the face its own
    colour again a mark's width beyond it (or a mix of the two, blurred); round a
    reflection's bright core the face is lifted evenly too.  A reflection's white
    core on a light piece passes for the piece itself: its "marks" are then the lit colour
    of whatever it lies on, not ink blurred into it.  ``in_focus``: the frame is sharp, so
    a light mark on a face without colour has no halo either.  Judged at the crop's own
    scale: at half of it a small reflection on a die slips through.  ``face`` (the mask's
    ``outline``) and ``gray`` (the crop in grey), when the caller has them already.
    ``light_ink``: the marks are lighter than the face (a dark die's, however a lamp lifts its
    face), or darker; None: as the face's brightness tells.
    """
    face = face or outline(mask)
    if face is None:
        return False
    hull, area = face
    mark = _mark_radius(area)
    # well inside the outline: at its rim the piece blurs into the board
    rim = int(max(2, round(mark)))
    inner = cv2.erode(hull, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8), borderType=cv2.BORDER_CONSTANT,
                      borderValue=0) > 0
    body = channel_medians(crop, mask)
    raised = channel_min(crop).astype(np.int16) - int(body.min())  # (no split: a third cheaper)
    if not light_marks(float(body.mean()), light_ink):  # dark ink on a light face
        lighter = (raised > LIT_RAISE) & inner
        if not lighter.any() and float(body.min()) < 240:
            return False  # nothing lighter than the face, and the face not at white: no reflection
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if gray is None else gray
        # blur greys a small mark and mixes it with the board round the piece: grey ink, and
        # ink not the face darkened alike, count only in a sharp frame
        return (_lighter_patch(crop, lighter, body, mark)
                or (in_focus and (_grey_ink(gray, body, inner, mark)
                                  or _marks_not_dark_alike(crop, gray, body, inner))))
    return _spreading_core(crop, raised, body, inner, mark, in_focus)


def _evenly(pixels: np.ndarray, body: np.ndarray) -> np.ndarray:
    """Of some pixels (N x 3): lighter than the face by one amount in every channel they did
    not clip, and by enough to clip the others, as a reflection adds light (JPEG's smeared
    colour and a blurred mark's mix are not)."""
    pixels = pixels.astype(np.float32)
    clipped = pixels >= 250
    lift = pixels - body
    low = np.where(clipped, np.inf, lift).min(axis=1)
    high = np.where(clipped, -np.inf, lift).max(axis=1)
    seen = np.isfinite(low)
    low = np.where(seen, low, 0)
    reaches = (~clipped | (body + low[:, None] >= 235)).all(axis=1)
    return seen & (high - low <= 12 + 0.15 * np.abs(low)) & reaches


def _lighter_patch(crop: np.ndarray, lighter: np.ndarray, body: np.ndarray, mark: float) -> bool:
    """A patch of a light face lifted evenly above the face, a mark wide or more."""
    lighter = lighter.copy()
    if int(lighter.sum()) < np.pi * mark * mark:
        return False
    lighter[lighter] = _evenly(crop[lighter], body)
    patch = cv2.morphologyEx(lighter.astype(np.uint8), cv2.MORPH_OPEN, _SQUARE3)
    n, _, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=8)
    return n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) >= np.pi * mark * mark


def _grey_ink(gray: np.ndarray, body: np.ndarray, inner: np.ndarray, mark: float) -> bool:
    """A mark on a light face lifted to grey: no part of it near the ink's darkness."""
    level = float(body.mean())
    ink = (gray < level - 0.3 * (level - INK)) & inner
    n, labels, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    if n <= 1:
        return False
    darkest = np.full(n, 255.0)
    np.minimum.at(darkest, labels[ink], gray[ink].astype(np.float64))
    big = stats[:, cv2.CC_STAT_AREA] >= 0.5 * np.pi * mark * mark
    return bool((big[1:] & (darkest[1:] > INK + 0.5 * (level - INK))).any())


def _spreading_core(crop: np.ndarray, raised: np.ndarray, body: np.ndarray, inner: np.ndarray,
                    mark: float, in_focus: bool) -> bool:
    """A bright spot on a dark face with the face round it lifted evenly in every channel, a
    mark's width out, or, in a sharp frame, a bright patch wider than any mark.  A blurred
    light mark also brightens the face round it, but as a mix of the two colours, not
    evenly; on a face without colour the two look alike, so there a halo counts only in a
    sharp frame."""
    colourless = float(body.max() - body.min()) < 40
    if colourless and not in_focus:
        return False
    bright = (raised > 0.3 * (235 - float(body.min()))) & inner  # what ``count_pips`` counts as a mark
    n_bright = int(np.count_nonzero(bright))
    if not n_bright:
        return False
    if in_focus:  # a sharp mark is no wider than a mark (marks run together stay as narrow)
        if float(cv2.distanceTransform(bright.astype(np.uint8), cv2.DIST_L2, 3).max()) > 1.8 * mark:
            return True
        if np.count_nonzero((raised > LIT_RAISE) & inner) < 1.8 * n_bright:
            return False  # sharp marks and their thin rims, nothing raised round them
    # each pixel's distance from the nearest bright spot, and which spot that is
    far, nearest = cv2.distanceTransformWithLabels((~bright).astype(np.uint8), cv2.DIST_L2, 3,
                                                   labelType=cv2.DIST_LABEL_CCOMP)
    ring = (far >= 0.8 * mark) & (far <= 1.8 * mark) & inner
    if int(ring.sum()) < 6:
        return False
    lifted = raised[ring] > LIT_RAISE
    if not colourless and lifted.any():
        lifted[lifted] = _evenly(crop[ring][lifted], body)
    spots = nearest[ring]
    count = np.bincount(spots)
    share = np.bincount(spots, weights=lifted.astype(np.float64), minlength=len(count)) / np.maximum(count, 1)
    return bool(((count >= 6) & (share > 0.3)).any())


def _marks_not_dark_alike(crop: np.ndarray, gray: np.ndarray, body: np.ndarray, inner: np.ndarray) -> bool:
    """Has a light piece a dark spot that is not its colour darkened alike in every channel,
    as dark ink blurred into it is (a blue chip's lit rim round a reflection's white core)?"""
    dark = (gray < body.mean() - 0.3 * (body.mean() - INK)) & inner
    lit = body > INK + 40
    if not dark.any() or lit.sum() < 2:
        return False
    n, labels, stats, _ = cv2.connectedComponentsWithStats(dark.astype(np.uint8), connectivity=8)
    for k in range(1, n):
        if stats[k, cv2.CC_STAT_AREA] < 2:
            continue
        x, y, w, h = stats[k, :4]
        box = (slice(y, y + h), slice(x, x + w))
        spot = channel_medians(crop[box], (labels[box] == k).astype(np.uint8))
        share = (spot[lit] - INK) / (body[lit] - INK)
        if float(share.max() - share.min()) > 0.35 and _off_the_bodys_hue(spot, body):
            return True
    return False


def _chroma(bgr: np.ndarray) -> np.ndarray:
    """A colour's chroma (Cr, Cb less their grey's), as JPEG keeps it."""
    b, g, r = (float(v) for v in bgr)
    y = 0.299 * r + 0.587 * g + 0.114 * b
    return np.array([0.713 * (r - y), 0.564 * (b - y)])


def _off_the_bodys_hue(spot: np.ndarray, body: np.ndarray) -> bool:
    """Is a dark spot's chroma off the line from grey to the body's own?  JPEG keeps a small
    mark's chroma at its face's (it stores colour at half the resolution): a dark mark on a
    cyan token reads dark cyan, its channels darkened unalike, while a reflection's lit rim
    round its white core is a hue the face has not."""
    mark, face = _chroma(spot), _chroma(body)
    strength = float(np.linalg.norm(face))
    if strength < 1e-6:
        return float(np.linalg.norm(mark)) > CHROMA_APART
    along = float(mark @ face) / strength
    across = abs(float(mark[0] * face[1] - mark[1] * face[0])) / strength
    return across > CHROMA_APART or not -CHROMA_APART <= along <= 1.2 * strength + CHROMA_APART


CHROMA_APART = 12.0  # a dark mark's chroma this far off its face's hue line (levels): no ink blurred in


def washes_out_a_mark(crop: np.ndarray, face: tuple[np.ndarray, float]) -> bool:
    """Does a lamp's reflection on a face wash out a patch a quarter of a mark's disc or more
    (its darkest channel at ``WASHED_OUT`` or more, inside the outline)?  Only there may it hide
    a mark: elsewhere it lifts a mark and the face round it alike, and the mark keeps its
    contrast (a face read with no mark under a sheen that washes nothing out has none)."""
    hull, area = face
    mark = _mark_radius(area)
    washed = ((crop.min(axis=2) >= WASHED_OUT) & (hull > 0)).astype(np.uint8)
    if int(washed.sum()) < HIDDEN_SHARE * np.pi * mark * mark:
        return False
    n, _, stats, _ = cv2.connectedComponentsWithStats(washed, connectivity=8)
    return n > 1 and int(stats[1:, cv2.CC_STAT_AREA].max()) >= HIDDEN_SHARE * np.pi * mark * mark


def _peaks_within_rim(gray: np.ndarray, mask: np.ndarray, face: tuple[np.ndarray, float],
                      rim_share: float, light_ink: bool | None = None) -> tuple:
    """``_peaks`` inside a die's outline (``face``) less its rim (``rim_share`` of its width),
    as ``count_pips`` looks for its marks: where the reflection checks find them again."""
    hull, body_area = face
    rim = max(1, int(round(rim_share * np.sqrt(body_area))))
    filled = cv2.erode(hull, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)
    return _peaks(gray, mask, filled, body_area, light_ink)


def reflection_off_the_pips(crop: np.ndarray, mask: np.ndarray, face: tuple[np.ndarray, float],
                            gray: np.ndarray, rim_share: float, die_px: float,
                            light_ink: bool | None = None) -> int | None:
    """The count of a die's face whose lamp's reflection (``lit_like_a_mark`` found one)
    neither hides one of its pips nor passes for one, or None.  Its top's marks
    (``_laid_out_top``: four or more laid out exactly as a die's face, any other peak beyond
    it) lay its grid out, a faint one among them (on a dark face a pip by the rim, lit less
    than the others; on a light face a dark pip the light greyed, found where the layout puts
    one), which the checks below judge with the rest (light that took a pip lies over it).
    On a light face with dark ink a reflection only lightens: it may hide a pip, never make
    one, so at none of the grid points the layout leaves empty may the lifted patch cover a
    quarter of a pip's disc.  On a dark face with light marks a reflection may pass for a pip
    (a 4's middle lit reads 5), or run into one and take it: at none of the grid points may it
    lie (``lit_over_a_place`` with ``dark``).  A glossy die's reflections mostly lie along its
    rounded edges and corners, off every place a pip may be.  ``light_ink``: as
    ``lit_like_a_mark``'s (light marks: a dark face, however lit)."""
    hull = face[0]
    level, _pip, contrast, whole, radius, _window, _n, centres, values = _peaks_within_rim(
        gray, mask, face, rim_share, light_ink)
    dark = light_marks(level, light_ink)
    top = _laid_out_top(centres[1:], values, contrast, whole, radius, die_px)
    if top is None or (values[top[0]] < FAINT_MARK).any():
        return None  # no layout, or a mark in it too faint to be one
    picked, fit = top
    return None if lit_over_a_place(crop, mask, hull, fit, len(picked), dark) else len(picked)


def lit_over_a_place(crop: np.ndarray, mask: np.ndarray, hull: np.ndarray,
                     fit: tuple[tuple[float, float], float, float, float], count: int, dark: bool) -> bool:
    """Does a lamp's reflection on a die's face of ``count`` laid out as ``fit`` (centre,
    step, cosine, sine; crop px) lie where it may hide a pip or pass for one?  On a light
    face (``lit_over_an_empty_place``) it only lightens; on a dark one (``lit_off_its_marks``)
    it is light as the marks are."""
    if dark:
        return lit_off_its_marks(crop, mask, fit, count)
    return lit_over_an_empty_place(crop, mask, hull, fit, count)


def lit_over_an_empty_place(crop: np.ndarray, mask: np.ndarray, hull: np.ndarray,
                            fit: tuple[tuple[float, float], float, float, float], count: int) -> bool:
    """Does a lamp's reflection on a light face (its darkest channel lifted past the body's,
    to near white) cover a quarter of a pip's disc (``HIDDEN_SHARE``) at a grid point the
    face of ``count`` laid out as ``fit`` leaves empty?  There it may hide a pip.  A
    reflection adds its light to a pip and the face round it alike, and the pip stays as much
    darker (a peak of the marks' contrast), unless the camera clips both, or its tone curve
    flattens them, near white (``WASHED_OUT``): a glossy sheen that lifts a yellow face's
    darkest channel from 90 to 130 hides no pip."""
    (fx, fy), step, c, s = fit
    body = channel_medians(crop, mask)
    darkest = channel_min(crop)
    lifted = (darkest.astype(np.int16) - int(body.min()) > LIT_RAISE) & (darkest >= WASHED_OUT) & (hull > 0)
    ys, xs = np.mgrid[0:crop.shape[0], 0:crop.shape[1]]
    disc = PIP_DISC * step
    for gx, gy in set(_DIE_GRID) - set(DIE_FACES[count]):
        x, y = fx + step * (gx * c - gy * s), fy + step * (gx * s + gy * c)
        near = (xs - x) ** 2 + (ys - y) ** 2 <= disc * disc
        if np.count_nonzero(lifted & near) >= HIDDEN_SHARE * np.count_nonzero(near):
            return True
    return False


def lit_off_its_marks(crop: np.ndarray, mask: np.ndarray,
                      fit: tuple[tuple[float, float], float, float, float], count: int) -> bool:
    """Is a dark face of ``count`` laid out as ``fit`` lit anywhere on its square but at
    its marks, or lit unalike at them, or may one lamp's reflection have made it?  On a
    dark face a light mark is as light as a reflection, and a drilled pip in its own shade
    lifts the face's channels near evenly as a reflection does: so the light is judged by
    where it lies.  Lit: the darkest channel raised past the body's (``LIT_RAISE``).  One
    over a pip widens it past the others, and a soft one spreads across the face between the
    marks; a glossy die's rounded edges and corners, past its square (``BEYOND_THE_FACE``),
    catch the lamp where no pip is.  A reflection as small as a pip at a 2's or a 4's middle
    passes for its middle pip: a 3 or a 5 on a dark face with a reflection on it is vouched
    for only when its middle mark is its corner marks' like (``_middle_like_its_corners``),
    as lit and as wide, and the light lies nowhere else (a single reflection makes no 2, 4
    or 6 of another face: each lacks the middle pip, and a 1 and a corner are no 2's
    diagonal)."""
    (fx, fy), step, c, s = fit
    body = channel_medians(crop, mask)
    darkest = crop.min(axis=2)
    ys, xs = np.nonzero(darkest.astype(np.int16) - int(body.min()) > LIT_RAISE)
    dx, dy = xs - fx, ys - fy
    u, v = (dx * c + dy * s) / step, (dy * c - dx * s) / step
    on_face = np.maximum(np.abs(u), np.abs(v)) <= BEYOND_THE_FACE
    places = np.array(DIE_FACES.get(count, ((0, 0),)), np.float64)
    apart = np.hypot(u[on_face, None] - places[None, :, 0], v[on_face, None] - places[None, :, 1])
    nearest = apart.argmin(axis=1)
    at_a_mark = apart[np.arange(len(nearest)), nearest] <= MARK_REACH
    if np.count_nonzero(~at_a_mark) >= HIDDEN_SHARE * np.pi * (PIP_DISC * step) ** 2:
        return True
    lit = np.bincount(nearest[at_a_mark], minlength=len(places))
    if int(lit.min()) < MARKS_ALIKE * int(lit.max()):
        return True
    if count not in (3, 5):
        return False
    peaks = np.zeros(len(places), np.int32)  # each mark's lightest darkest channel
    np.maximum.at(peaks, nearest[at_a_mark], darkest[ys[on_face][at_a_mark], xs[on_face][at_a_mark]])
    return not _middle_like_its_corners(lit, peaks, places)


def _middle_like_its_corners(lit: np.ndarray, peaks: np.ndarray, places: np.ndarray) -> bool:
    """Is a 3's or a 5's middle mark lit as its corner marks are (``lit``: each mark's lit
    pixels; ``peaks``: its lightest darkest channel; ``places``: the face's grid points)?  A
    lamp's reflection that passes for a pip is the lamp's image, no paint's: it would have to
    lie at the middle, be a pip's size, and be as light as the paint is under that lamp,
    where the paint of the corner marks shows what a pip is in this light and blur.  A
    reflection clipped to white where the corner marks are not is none of them."""
    middle = int(np.flatnonzero((places == 0).all(axis=1))[0])
    corners = np.delete(np.arange(len(places)), middle)
    widest, lightest = int(lit[corners].max()), int(peaks[corners].max())
    if int(peaks[middle]) >= CLIPPED_PEAK and lightest < CLIPPED_PEAK:
        return False
    return int(lit[middle]) <= MIDDLE_WIDEST * widest \
        and abs(int(peaks[middle]) - float(np.median(peaks[corners]))) <= MIDDLE_PEAK_APART


PIP_DISC = 0.3  # a pip's disc reaches this many steps from its place (blurred a little)
HIDDEN_SHARE = 0.25  # a reflection over this share of a pip's disc may hide it
WASHED_OUT = 200  # ... where it lifts every channel this high: near white, where a pip's ink may be lost
MARK_REACH = 0.5  # a light mark's blurred halo reaches this many steps from its place
MARKS_ALIKE = 0.4  # a dark face's marks each lit over this share of the most lit one's area
MIDDLE_WIDEST = 1.4  # a 3's or a 5's middle mark lit over at most this times its widest corner's area ...
MIDDLE_PEAK_APART = 25  # ... and its lightest within this of its corners' (darkest channel, of 255) ...
CLIPPED_PEAK = 250  # ... and not clipped where they are not

CORNERS_FROM_MIDDLE = (0.28, 0.48)  # a face's corner pips lie this far from its middle (in faces:
# a diagonal step, 1.41 of ``DIE_STEP``'s 0.22-0.32, and a little for the fit)


def reflection_off_a_one(crop: np.ndarray, mask: np.ndarray, face: tuple[np.ndarray, float],
                         gray: np.ndarray, rim_share: float, die_px: float,
                         light_ink: bool | None = None) -> bool:
    """Does a lamp's reflection on a die's face read as a clear 1 lie where it may hide two
    opposite corner pips?  Every face but a 1 has a diagonal's two corner pips (a 2, a 3) or
    both diagonals' (4-6), so a lone middle pip with no mark round it (``low_face`` asked
    that) is a 1 unless the light took both pips of a diagonal: at no two points opposite
    each other through the pip, a corner's distance from it, may the lifted patch cover a
    quarter of a pip's disc.  Any turn of the face is asked at once, with no square fitted
    (a 1's single pip gives it no turn).  Lifted: on a light face with dark ink, to near white
    (``lit_over_an_empty_place``); on a dark face with light marks, past the body's darkest
    channel (``LIT_RAISE``), where a light mark is no longer told from the face round it.
    False (the reflection is light, not a doubt) when it lies clear of every such pair.
    ``light_ink``: as ``lit_like_a_mark``'s."""
    hull = face[0]
    level, *_rest, centres, values = _peaks_within_rim(gray, mask, face, rim_share, light_ink)
    strong = centres[1:][values >= 0.30]
    if not len(strong):
        return True
    # the pip: the strong peak nearest the outline's middle (on a dark face a reflection at the
    # rim may peak stronger than it)
    ys, xs = np.nonzero(hull)
    px, py = strong[int(np.argmin(np.hypot(strong[:, 0] - xs.mean(), strong[:, 1] - ys.mean())))]
    body = channel_medians(crop, mask)
    darkest = crop.min(axis=2)
    lifted = darkest.astype(np.int16) - int(body.min()) > LIT_RAISE
    if not light_marks(level, light_ink):
        lifted &= darkest >= WASHED_OUT
    h, w = lifted.shape
    ys, xs = np.mgrid[0:h, 0:w]
    far = np.hypot(xs - px, ys - py) / die_px
    ring = (far >= CORNERS_FROM_MIDDLE[0]) & (far <= CORNERS_FROM_MIDDLE[1])
    # each lifted pixel of the ring with the pixel opposite it through the pip lifted too
    ox, oy = np.round(2 * px - xs).astype(np.intp), np.round(2 * py - ys).astype(np.intp)
    inside = (ox >= 0) & (ox < w) & (oy >= 0) & (oy < h)
    opposite = np.zeros_like(lifted)
    opposite[inside] = lifted[oy[inside], ox[inside]]
    both = lifted & opposite & ring
    if not both.any():
        return False
    disc = PIP_DISC * (sum(DIE_STEP) / 2) * die_px  # (a pip's disc at the middle step)
    _count, _labels, stats, _centres = cv2.connectedComponentsWithStats(both.view(np.uint8), connectivity=8)
    return bool((stats[1:, cv2.CC_STAT_AREA] >= HIDDEN_SHARE * np.pi * disc * disc).any())

