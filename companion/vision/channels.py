"""A pixel's three channels reduced to one, channel by channel.

numpy's reductions over an axis of three (``values.max(axis=-1)``) set up a pass per pixel
and cost the reader a good part of an arm's frame; these give the same numbers to the last bit
(the same operations in the same order) at a fraction of that.  Float or bool arrays: a sum
of uint8 channels here would wrap where numpy's reduction widens.
"""

from __future__ import annotations

import numpy as np


def channel_sum(values: np.ndarray) -> np.ndarray:
    """Each pixel's three channels (the last axis) summed, as ``values.sum(axis=-1)`` sums them
    (the same order, so the same to the last bit) at a fraction of the cost of numpy's
    reduction over an axis of three, which sets up a pass per pixel."""
    return values[..., 0] + values[..., 1] + values[..., 2]


def channel_max(values: np.ndarray) -> np.ndarray:
    """Each pixel's largest channel (``values.max(axis=-1)``, three channel by channel)."""
    return np.maximum(np.maximum(values[..., 0], values[..., 1]), values[..., 2])


def channel_min(values: np.ndarray) -> np.ndarray:
    """Each pixel's smallest channel (``values.min(axis=-1)``, three channel by channel)."""
    return np.minimum(np.minimum(values[..., 0], values[..., 1]), values[..., 2])


def channel_all(values: np.ndarray) -> np.ndarray:
    """Each pixel's three channels all true (``values.all(axis=-1)``, channel by channel)."""
    return values[..., 0] & values[..., 1] & values[..., 2]
