"""Where an arm seen over the board ends (``arm_tip.ArmEnd``): the far end of what was seen,
measured from where it crosses the margin, and the reach of a fingertip not seen past it."""

from __future__ import annotations

import numpy as np

from companion.vision.arm_tip import TIP_REACH_MM, ArmEnd


def _arm() -> np.ndarray:
    """An arm 20 px wide reaching up from the bottom edge (x 90-110) to y 100."""
    arm = np.zeros((300, 200), bool)
    arm[100:300, 90:110] = True
    return arm


def test_the_far_end_lies_along_the_arm_from_its_crossing() -> None:
    end = ArmEnd.of(_arm(), (100.0, 299.0))
    assert end is not None
    assert 199 <= end.length <= 201
    assert abs(end.ux) < 0.06 and end.uy < -0.99  # (up the board)
    assert end.along(100.0, 90.0) > end.length
    assert 15.0 <= end.across(120.0, 150.0) <= 30.0  # (measured from its far corner)


def test_a_fingertip_may_lie_past_the_end_not_beside_the_arm() -> None:
    end = ArmEnd.of(_arm(), (100.0, 299.0))
    assert end is not None
    assert end.past_its_end(100.0, 100.0 - TIP_REACH_MM + 2, 1.0)  # just within reach past it
    assert not end.past_its_end(100.0, 100.0 - TIP_REACH_MM - 5, 1.0)  # beyond a fingertip's reach
    assert not end.past_its_end(130.0, 250.0, 1.0)  # beside the forearm, where the arm is seen


def test_no_arm_seen_has_no_end() -> None:
    assert ArmEnd.of(np.zeros((10, 10), bool), (5.0, 9.0)) is None
