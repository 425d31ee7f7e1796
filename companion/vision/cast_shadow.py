"""A piece's cast shadow on the board, and light the fitted light missed: light, not a thing.

A lamp casts a shadow off every piece; where it falls on the empty board the board shows
through it, dimmed alike in every channel, its print's lines and edges still there.  The
light fitted to the board is smooth and cannot follow a shadow's edge, so what it leaves
unexplained there is judged here (for ``arms.py``): a shadow hides nothing, a piece shows
its own colour and a hand or a sleeve hides the print.

Nor can the fit follow every lamp: a reading lamp's pool with a sharp rim leaves a light
print brighter or dimmer than the fit by a tenth or more (past the empty board's tolerance),
and a darker print beside it by as much (within it, its levels being fewer).  Such a patch
is the print under the light its own surroundings show (``missed_light``): its share of the
fitted light, channel by channel, is theirs, and every pixel of it follows the print at that
share.  A thing on the board shows a colour of its own against its surroundings' light.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

from companion.vision.reading import SCALE

SHADOW_DIMMED = (0.45, 0.95)  # a cast shadow leaves the board this share of its light, each channel ...
SHADOW_ALIKE = 0.06  # ... the three within this of each other (a share of the light) ...
SHADOW_ODD_SHARE = 0.2  # ... and at most this share of its pixels twice as far apart ...
SHADOW_PRINT = (0.6, 0.3, 1.1)  # ... its print detail following the print's this closely, with this share
# of its contrast at least and at most (where it has detail: ``EmptyBoard._print_detail``) ...
SHADOW_REACH_MM = 16.0  # ... and a piece this near it to cast it (a die's height: a lamp 45 degrees up)
# light the fit missed: the print round a patch, within this many mm of it (clear of pieces and
# their rims, not darker than this level in any channel, at least this many pixels of it) ...
AROUND_MM = 8.0
AROUND_LEAST_LEVEL = 60
AROUND_LEAST_PX = 30
AROUND_AGREE = 0.05  # ... shows the patch's share of the fitted light within this, each channel ...
LIGHT_MISSED = (0.6, 1.35)  # ... which lies within this (a shadow darker, a reflection lighter, is theirs)
# ... and the patch's pixels follow the print at that share (within this many levels, or this
# share of the print's level), but for specks
FOLLOW_LEVELS = 12.0
FOLLOW_SHARE = 0.1


PrintDetail = Callable[[np.ndarray, int, int, np.ndarray], "tuple[float, float] | None"]


def cast_shadow(flat: np.ndarray, reference: np.ndarray, components: np.ndarray, k: int, box: np.ndarray,
                blobs: np.ndarray, print_detail: PrintDetail) -> bool:
    """Is unexplained patch ``k`` (of ``components``, its box ``box``: x, y, w, h) the empty
    board (``reference``) in a piece's shadow, as ``flat`` shows it: the print dimmed alike in
    every channel, over the patch and pixel by pixel, its detail following the print's where
    it has any, and a piece's blob (``blobs``: labels of piece colours) near enough to cast
    it?"""
    x, y, w, h = (int(v) for v in box[:4])
    own = components[y:y + h, x:x + w] == k
    seen = flat[y:y + h, x:x + w][own].astype(np.float32)
    empty = reference[y:y + h, x:x + w][own].astype(np.float32)
    ratio = np.median(seen, axis=0) / np.maximum(np.median(empty, axis=0), 1.0)
    if not SHADOW_DIMMED[0] <= float(ratio.min()) <= float(ratio.max()) <= SHADOW_DIMMED[1] \
            or float(np.ptp(ratio)) > SHADOW_ALIKE:
        return False
    # pixel by pixel too: the board dimmed, no patch of another colour within it
    pixel = seen / np.maximum(empty, 1.0)
    if float(np.mean(np.ptp(pixel, axis=1) > 2 * SHADOW_ALIKE)) > SHADOW_ODD_SHARE:
        return False
    if not blob_within(own, x, y, blobs, int(round(SHADOW_REACH_MM * SCALE))):
        return False  # no piece near enough to cast it
    detail = print_detail(own, x, y, flat)
    if detail is None:
        return True  # plain print (a cell's ground): its colour dimmed is all there is to judge
    corr, contrast = detail
    return corr >= SHADOW_PRINT[0] and SHADOW_PRINT[1] <= contrast <= SHADOW_PRINT[2]


def missed_light(flat: np.ndarray, reference: np.ndarray, components: np.ndarray, k: int, box: np.ndarray,
                 blobs: np.ndarray, piece_colours: np.ndarray, tolerance: float, speck_px: float) -> bool:
    """Is unexplained patch ``k`` (of ``components``, its box ``box``: x, y, w, h) the empty
    board (``reference``) under light the fit missed, as ``flat`` shows it: its share of the
    fitted light, channel by channel, that of the print round it (clear of the pieces'
    blobs, ``blobs``), every pixel of it the print at that share but for specks smaller than
    ``speck_px``, and no piece's colour (``piece_colours``, as calibrated) under that light
    as near its colour as the empty board's ``tolerance`` (a piece passing for the print)?"""
    x, y, w, h = (int(v) for v in box[:4])
    reach = int(round(AROUND_MM * SCALE))
    height, width = components.shape
    rows = slice(max(0, y - reach), min(height, y + h + reach))
    cols = slice(max(0, x - reach), min(width, x + w + reach))
    own = components[rows, cols] == k
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    around = (cv2.dilate(own.astype(np.uint8), disc) > 0) & (components[rows, cols] == 0)
    around &= cv2.dilate((blobs[rows, cols] > 0).astype(np.uint8), np.ones((5, 5), np.uint8)) == 0
    seen_all = flat[rows, cols].astype(np.float32)
    empty_all = reference[rows, cols].astype(np.float32)
    around &= empty_all.min(axis=2) >= AROUND_LEAST_LEVEL
    if int(around.sum()) < AROUND_LEAST_PX:
        return False
    seen, empty = seen_all[own], empty_all[own]
    share = np.median(seen, axis=0) / np.maximum(np.median(empty, axis=0), 1.0)
    theirs = np.median(seen_all[around] / np.maximum(empty_all[around], 1.0), axis=0)
    if float(np.abs(share - theirs).max()) > AROUND_AGREE \
            or not LIGHT_MISSED[0] <= float(share.min()) <= float(share.max()) <= LIGHT_MISSED[1]:
        return False
    colour = np.median(seen, axis=0)
    if (np.abs(piece_colours.astype(np.float32) * share - colour).max(axis=1) <= tolerance).any():
        return False  # a piece of that colour would look so there
    off = (np.abs(seen - share * empty) > np.maximum(FOLLOW_LEVELS, FOLLOW_SHARE * empty)).any(axis=1)
    odd = np.zeros(own.shape, np.uint8)
    odd[own] = off
    odd = cv2.morphologyEx(odd, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(odd, connectivity=8)
    return count == 1 or int(stats[1:, cv2.CC_STAT_AREA].max()) < speck_px


def blob_within(own: np.ndarray, x: int, y: int, blobs: np.ndarray, reach: int) -> bool:
    """Does a blob of a piece's colour (``blobs`` > 0) lie within ``reach`` px of a patch
    (``own``: its pixels in its box, whose corner is ``x``, ``y``)?"""
    h, w = own.shape
    y0, x0 = max(0, y - reach), max(0, x - reach)
    near = blobs[y0:y + h + reach, x0:x + w + reach] > 0
    placed = np.zeros(near.shape, np.uint8)
    placed[y - y0:y - y0 + h, x - x0:x - x0 + w] = own
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    return bool((near & (cv2.dilate(placed, disc) > 0)).any())


def cast_by_nothing(shade: np.ndarray, components: np.ndarray, stats: np.ndarray,
                    casters: Sequence[int]) -> np.ndarray | None:
    """Where a piece's cast shadow (``shade``) lies nearer one of ``casters`` (blobs of
    ``components``, their boxes ``stats``: x, y, w, h) than any other blob, with that blob's
    own pixels beside it (it stands on its place, by its shadow); None where there is none.
    A shadow is cast by what stands beside it: if that told nothing, a piece was not read.
    A speck of a piece's colour in no blob casts none."""
    reach = int(round(SHADOW_REACH_MM * SCALE))
    height, width = shade.shape
    found = None
    for k in casters:
        x, y, w, h = (int(v) for v in stats[k, :4])
        rows = slice(max(0, y - reach), min(height, y + h + reach))
        cols = slice(max(0, x - reach), min(width, x + w + reach))
        if not shade[rows, cols].any():
            continue
        blobs = components[rows, cols]
        pieces = blobs > 0
        # each pixel's nearest blob pixel: its label, that pixel's index row by row (from 1)
        _dist, nearest = cv2.distanceTransformWithLabels(
            (~pieces).astype(np.uint8), cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL)
        owner = np.zeros(int(np.count_nonzero(pieces)) + 1, bool)
        owner[1:] = blobs[pieces] == k  # (boolean indexing runs row by row, as the labels do)
        cast = owner[nearest] & shade[rows, cols]
        if not cast.any():
            continue
        beside = cv2.dilate(cast.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        if found is None:
            found = np.zeros(shade.shape, bool)
        found[rows, cols] |= cast | (beside & (blobs == k))
    return found


def cast_by_no_blob(shade: np.ndarray, blobs: np.ndarray, reach_px: int) -> np.ndarray | None:
    """The parts of a piece's cast shadow (``shade``, 8-connected) with no blob of a piece's
    colour (``blobs`` > 0) within ``reach_px`` of any of their pixels; None where there are
    none.  Shade is taken for light within a shadow's reach of a piece's colour, pixel by
    pixel, and specks of it in no blob count there: a pale die whose top passes for the
    print, or for a reflection too small to hide a piece, leaves only a few pixels of its
    colour at its rim, and its shadow with nothing read to cast it (Swing State's white die
    at 0.63 px a mm, its shadow and top left unexplained, read as an empty place)."""
    found = cv2.findNonZero(shade.view(np.uint8))
    if found is None:
        return None
    x, y, w, h = cv2.boundingRect(found)
    height, width = shade.shape
    rows = slice(max(0, y - reach_px), min(height, y + h + reach_px))
    cols = slice(max(0, x - reach_px), min(width, x + w + reach_px))
    away = cv2.distanceTransform((blobs[rows, cols] == 0).view(np.uint8), cv2.DIST_L2, 3) > reach_px
    n, parts = cv2.connectedComponents(shade[rows, cols].view(np.uint8), connectivity=8)
    cast = np.zeros(n, bool)  # the parts with a blob near some pixel of theirs
    cast[parts[~away]] = True
    orphans = ~cast[parts] & (parts > 0)
    if not orphans.any():
        return None
    out = np.zeros(shade.shape, bool)
    out[rows, cols] = orphans
    return out


RIM_FOLLOW_LEVELS = 12.0  # a piece's blurred rim: each pixel the piece's colour and the board's, mixed
# and dimmed alike, within this many levels (a channel) ...
RIM_LIGHT = (0.25, 1.05)  # ... the light left it from a piece's foot's shade (``FOOT_SHADE_LEAST``)
# to the light itself (and its noise: a rim lit as the board round it) ...
RIM_FITTING_SHARE = 0.8  # ... over this share of the patch at least ...
RIM_BOARD_SHARE = 0.3  # ... the board this share of the mix at least (its median): no piece in shade


def blurred_rim(flat: np.ndarray, reference: np.ndarray, own: np.ndarray, x: int, y: int,
                 colours: np.ndarray) -> bool:
    """Is a patch (``own``: its pixels in its box at ``x``, ``y``) a read piece's blurred rim,
    lit as the board round it or in the piece's own shade: each pixel the piece's colour (one
    of ``colours``, as calibrated) blurred into the empty board's (``reference``), the two
    dimmed alike, the blur reaching a pixel or two past the piece's blob (a figure's foot on a
    dark strip, at 640x480)?  Per pixel, seen = a * piece + b * board with a and b not below
    none, their sum (the light left) within ``RIM_LIGHT`` (a piece lit past the light round it
    is no rim) and the fit within ``RIM_FOLLOW_LEVELS``; the board ``RIM_BOARD_SHARE`` of the
    mix at least (a piece of that colour in shade, b about none, is a piece).  A cast shadow's
    test (``cast_shadow``) takes the board dimmed alone, and the rim's mix is not that."""
    seen = flat[y:y + own.shape[0], x:x + own.shape[1]][own].astype(np.float64)
    empty = reference[y:y + own.shape[0], x:x + own.shape[1]][own].astype(np.float64)
    for colour in colours.astype(np.float64):
        # least squares of two unknowns per pixel, in closed form (the 2x2 normal equations)
        cc, ce, ee = float(colour @ colour), empty @ colour, (empty * empty).sum(axis=1)
        cs, es = seen @ colour, (empty * seen).sum(axis=1)
        det = cc * ee - ce * ce
        ok = np.abs(det) > 1e-6
        det = np.where(ok, det, 1.0)
        a, b = (ee * cs - ce * es) / det, (cc * es - ce * cs) / det
        fit = np.abs(seen - a[:, None] * colour - b[:, None] * empty).max(axis=1)
        light = a + b
        good = ok & (a >= -0.05) & (b >= -0.05) & (light >= RIM_LIGHT[0]) & (light <= RIM_LIGHT[1]) \
            & (fit <= RIM_FOLLOW_LEVELS)
        board = b[good] / np.maximum(light[good], 1e-6)
        if float(good.mean()) >= RIM_FITTING_SHARE and float(np.median(board)) >= RIM_BOARD_SHARE:
            return True
    return False


SHADE_TINT_PX = 40  # dimmed pixels near pieces enough to measure the shade's tint on
SHADE_TINT_MOST = 0.12  # a shade's tint strays this far from grey at most, in any channel
SHADE_TINT_SPREAD = 0.08  # ... and the dimmed pixels near pieces lie this near it (half of them)


def shade_tint(ratio: np.ndarray, share: np.ndarray) -> np.ndarray:
    """The tint of the pieces' shadows in this frame (per channel, mean 1): under two lamps of
    different colours a shadow is lit by one alone and dims the print by a share a little
    different in each channel, the same share all over the board.  Measured as the median of
    the pixels dimmed near pieces (``ratio``: seen over the empty board, per channel;
    ``share``: its mean), taken only when most of them lie near it and it is near grey (a
    hand's or a sleeve's colour is no shade's); else grey, every channel alike."""
    grey = np.ones(3, np.float32)
    if len(share) < SHADE_TINT_PX:
        return grey
    tints = ratio / share[:, None]
    tint = np.median(tints, axis=0)
    tint /= float(tint.mean())
    if float(np.abs(tint - 1).max()) > SHADE_TINT_MOST:
        return grey
    if float(np.median(np.abs(tints - tint).max(axis=1))) > SHADE_TINT_SPREAD:
        return grey
    return tint.astype(np.float32)
