"""A lamp's hot spot the light's fit left on the board is not an arm: with no arm found across
the margin, patches that would be one, each the board's print lifted in every channel over most
of it (``lamp_spot.LAMP_LIT``) and the print past its edge lifted too (``lamp_spot.LAMP_HALO``: a hot
spot fades over centimetres, an arm's edge is a cliff), are glare, and the frame is no hand's.
Its places are doubted as widely as an arm's (a hot spot washes out the marks of the pieces in
it: told as glare over only the places it lay on, a Baron Voodoo blue 4 beside one, its marks
washed, was read as a 1), their reason "glare?".  Taken for an arm, the frame was a hand's: the
camera loop waited on it as on a reach, and a lamp that stays put held the game (a still reading
is asked about only after ``HAND_RESTING_FRAMES``).  Of the held-out physically based frames of
boards 78-164, 30 with no hand were read as a hand's; these three are among the 20 now told as
glare.  An arm whose crossing of the margin the reader misses is still an arm."""

from __future__ import annotations

import pytest
from committed_frames import kept_reading, reading_of


@pytest.mark.parametrize("stem", ["swing_state-t10-b158", "jivecat-t00-b123", "baron_voodoo-t30-b109"])
def test_a_lamp_hot_spot_with_no_arm_across_the_margin_is_glare_not_a_hand(stem: str) -> None:
    frame, reading = kept_reading(stem, "test")
    assert reading.view is not None and not reading.hand, stem
    doubtful = dict(reading.doubtful or {})
    assert "glare?" in doubtful.values(), doubtful
    assert "under a hand or arm" not in doubtful.values(), doubtful
    # nothing read wrong: what it may hide is asked, the rest read as it lies
    wrong = {s: (reading.view.get(s), frame.view.get(s)) for s in set(reading.view) | set(frame.view)
             if s not in doubtful and reading.view.get(s, ()) != frame.view.get(s, ())}
    assert not wrong, wrong


@pytest.mark.parametrize("stem", ["king_of_clubs-t00-b1-hand", "king_of_clubs-t20-b1-hand-more"])
def test_an_arm_whose_crossing_of_the_margin_is_missed_is_still_a_hand(stem: str) -> None:
    """Tuning frames with an arm over the board whose sleeve passes for the margin's paper: a
    pale arm lifted over 0.58 of it, and a dark one."""
    _frame, _layout, reading = reading_of("tune", stem)
    assert reading.hand, stem
