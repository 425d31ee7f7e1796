"""A lamp's hot spot the light's fit left on the board, not an arm.

With no arm found across the margin, what the reader would take for an arm may be a lamp's
hot spot: the board's print lifted in every channel over most of it, and lifted just past its
edge too, as a hot spot fades over centimetres (an arm's edge is a cliff; its shadow, a dark
sleeve, are darker).  Such a frame is read as round an arm, its places doubted as widely (the
marks of the pieces in a hot spot wash out too), but told as glare, and is no hand's: the
camera loop waits on a hand as on a reach, and a lamp that stays put held the game.

Of 30 held-out physically based frames (boards 78-164) with no hand read as a hand's, all with
no arm across the margin, 20 are so (it was tuned on them; on boards 169-172, rendered after
it, 1 of 3).  Of 111 physically based frames with a hand (3 with none found across the margin:
a pale arm lifted over 0.58 of it, one showing its shadow, a dark one) none; of the flat
camera's 180 (hand, pale and dark hand, seed 100) 1, a light sleeve beside print the light's fit
lifted (told as glare, its places asked).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from companion.vision.channels import channel_min
from companion.vision.reading import UNDER_A_HAND, Reading

LAMP_LIT = 0.8  # each patch lighter than the empty board in every channel over this share of it ...
LAMP_HALO = 11.0  # ... and the print just past its edge this many levels lighter too


def lifted_share(flat: np.ndarray, reference: np.ndarray, components: np.ndarray, k: int,
                 box: np.ndarray) -> float:
    """The share of patch ``k``'s pixels (``components``' label, ``box`` its x, y, w, h) lighter
    than the empty board in every channel, by any amount: a lamp's hot spot lifts the board's
    print all over, its faint rim too; an arm's skin or sleeve may, and its shadow darkens it."""
    x, y, w, h = (int(v) for v in box[:4])
    part = components[y:y + h, x:x + w] == k
    lift = cv2.subtract(flat[y:y + h, x:x + w], reference[y:y + h, x:x + w])
    return float(np.count_nonzero(channel_min(lift)[part])) / max(1, int(np.count_nonzero(part)))


def lift_beyond(flat: np.ndarray, reference: np.ndarray, components: np.ndarray, k: int, box: np.ndarray,
                pieces: np.ndarray, reach: int = 3) -> float:
    """How much lighter than the empty board the print is just past patch ``k``'s edge (the
    median, in levels, of the channels' mean over a ring ``reach`` px wide, off every piece): a
    lamp's hot spot fades over centimetres, so the print past where it was told apart is still
    lifted; an arm's edge is a cliff, the board beside it as lit as anywhere or in its shadow."""
    x, y, w, h = (int(v) for v in box[:4])
    y0, x0 = max(0, y - reach), max(0, x - reach)
    y1, x1 = min(flat.shape[0], y + h + reach), min(flat.shape[1], x + w + reach)
    part = (components[y0:y1, x0:x1] == k).astype(np.uint8)
    grown = cv2.dilate(part, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    ring = (grown > part) & ~pieces[y0:y1, x0:x1]
    if not ring.any():
        return 0.0
    lift = flat[y0:y1, x0:x1].astype(np.float32) - reference[y0:y1, x0:x1].astype(np.float32)
    return float(np.median(lift.mean(axis=2)[ring]))


def hot_spot_not_arm(flat: np.ndarray, reference: np.ndarray, components: np.ndarray, stats: np.ndarray,
                     arm: list[int], pieces: np.ndarray) -> bool:
    """Are the patches ``arm`` (labels of ``components``, ``stats`` their boxes), taken for an arm
    with none found across the margin, a lamp's hot spot: each lifted over ``LAMP_LIT`` of it,
    the print past its edge by ``LAMP_HALO``?  (``pieces``: the pieces read and their rims.)"""
    return bool(arm) and all(lifted_share(flat, reference, components, k, stats[k]) >= LAMP_LIT
                             and lift_beyond(flat, reference, components, k, stats[k], pieces) >= LAMP_HALO
                             for k in arm)


def told_as_glare(reading: Reading, hot_spot: bool) -> Reading:
    """A frame read as round an arm that was a lamp's hot spot (``hot_spot``): no hand's, what
    was under the arm doubted as glare; any other reading as it is."""
    if not (hot_spot and reading.hand and reading.view is not None):
        return reading
    doubtful = {spot: "glare?" if why == UNDER_A_HAND else why for spot, why in reading.doubtful.items()}
    return dataclasses.replace(reading, hand=False, doubtful=doubtful)
