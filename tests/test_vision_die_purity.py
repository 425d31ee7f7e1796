"""A die's colour purity with its own marks out of it: a pip is of no calibrated colour, so
a 5 or a 6 on a small die leaves its colour under the share a sure colour needs.  The marks,
counted sure, are taken off the core, at most a pip's blurred disc each: more of no colour
on a die is something else on it, and stays against its colour."""

from __future__ import annotations

import numpy as np
from committed_frames import reading_of

from companion.vision.blobs import _marks_taken_off


def test_a_sure_count_takes_its_marks_off_the_core() -> None:
    # King of Clubs' purple 5 straight above: 91 of 155 core pixels purple, 43 of no colour
    assert 91 / 155 < 0.6 <= _marks_taken_off(91 / 155, (155, 43), 5, 380.0)


def test_no_more_than_a_pip_disc_each_is_taken_off() -> None:
    """A die whose core is half no colour (a highlight, a hand's shadow over it) keeps most of
    it against its colour: a 1 takes off one disc, not the patch."""
    purity = 60 / 160
    one = _marks_taken_off(purity, (160, 90), 1, 256.0)
    disc = np.pi * (0.17 * 16 / 2 + 1.0) ** 2
    assert one == purity * 160 / (160 - disc) < 0.6
    assert _marks_taken_off(purity, (160, 0), 6, 256.0) == purity  # nothing of no colour: as it was


def test_a_small_purple_five_and_a_blue_six_are_read_sure() -> None:
    """Tuning split: King of Clubs' purple 5 straight above, read "colour unclear" before (its
    pips a third of its core), and Baron Voodoo's blue 6 at 10 degrees."""
    for stem, spot in (("king_of_clubs-t00-b0", "p0_d0"), ("baron_voodoo-t10-b1-more", "E6")):
        frame, _layout, reading = reading_of("tune", stem)
        assert reading.view is not None
        assert spot not in (reading.doubtful or {}), (stem, (reading.doubtful or {}).get(spot))
        assert reading.view.get(spot) == frame.view.get(spot), stem
