"""A die's marks judged against the contrast its colour's marks show in the same frame
(``PieceMarks.marks_gains``): King of Clubs' red dice show their drilled white pips at about
0.3 of the contrast a pip's nominal white would give, a purple die's at 0.5 and more."""

from __future__ import annotations

import numpy as np
import pytest
from committed_frames import read_committed, read_right, reading_of

from companion.vision.piece_marks import MARKS_GAIN_MOST, MARKS_TYPICAL


def test_a_colours_marks_are_raised_by_what_its_dice_read_sure_show() -> None:
    _frame, _layout, reader, _reading = read_committed("tune", "king_of_clubs-t10-b2")
    reader._marks_last_seen = {}
    # (per colour, the contrasts of the marks of each die read sure: two red dice, a purple one)
    reader._marks_seen = {4: [np.array([0.30, 0.32]), np.array([0.36])], 3: [np.array([0.62, 0.6])],
                          5: [np.array([0.1])], 6: []}
    gains = reader.marks_gains()
    assert gains[4] == pytest.approx(MARKS_TYPICAL / 0.32)  # the median of all its marks
    assert 3 not in gains  # its marks show as most dice's do
    assert gains[5] == MARKS_GAIN_MOST  # never raised past this
    assert 6 not in gains  # nothing measured, nothing raised
    # the next frame reads no die of the colour sure: the last frame's marks hold (as the reader
    # keeps them when a frame begins)
    reader._marks_last_seen.update((i, marks) for i, marks in reader._marks_seen.items() if marks)
    reader._marks_seen = {}
    assert reader.marks_gains()[4] == pytest.approx(MARKS_TYPICAL / 0.32)


def test_red_dice_with_faint_pips_are_read_on_the_tuning_frames() -> None:
    # a red 1, 2, 3 and 5 whose marks were unclear (peaks of 0.25-0.47), beside a red 4 read
    # sure at 0.33: read again with their colour's contrast raised, all four are read right
    read_right("king_of_clubs-t10-b2", ("p1_d0", "p1_d1", "p1_d3", "p1_backup"))


def test_a_colours_contrast_is_measured_on_its_low_faces_too() -> None:
    """King of Clubs at 10 degrees under the broad panel: the red 4 alone measured red's
    marks at 0.50 (raised 1.1: the red 1's lone pip, at 0.27, stayed unclear); with a red face
    of two read inside its top's square (``low_face``'s ``laid_out``, 0.42) red's marks show
    0.46, the red 1 is read, and the frame is exact."""
    frame, layout, reading = reading_of("tune", "king_of_clubs-t10-b0-more")
    assert reading.view is not None and not reading.doubtful
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots)


def test_a_lone_pip_read_sure_with_its_shade_is_a_1_only_where_the_plain_read_saw_it_too() -> None:
    """King of Clubs under the track lamps at 10 degrees: a red 1's lone pip, its contrast
    raised, was "wider than a mark" in its colour's outline (a count of 1, unclear) and a sure
    1 with its colour in shade joined to it.  A 1 read so is taken where the plain read also
    counted that one mark; a sure 1 the shade alone found (a lamp's highlight at a washed-out
    2's middle, its pips in the shade) is not.  Nor one where the read with its lit top taken for
    it saw more marks (stop 101: that 1 is asked since, ``test_vision_shaded_one.py``)."""
    _frame, _layout, reader, _reading = read_committed("tune", "king_of_clubs-t10-b0-track")
    red = reader._piece_names.index("red")

    def scripted(plain: tuple[int, bool, bool], lit_count: int = 0) -> tuple[int, bool, bool]:
        def read(*_args: object, lit: bool = False, shaded: bool = False, whole_face: bool = False,
                 **_kw: object) -> tuple[int, bool, bool]:
            return (lit_count, False, False) if lit else (0, False, False) if whole_face \
                else (1, True, False) if shaded else plain
        reader._read_pips = read  # type: ignore[method-assign]
        patch = np.zeros((20, 20, 3), np.uint8)
        return reader._cached_pips(patch, patch, red, 0, 0, 20, 20, {})

    reader._pip_cache = {}
    assert scripted((1, False, False)) == (1, True, False)
    reader._pip_cache = {}
    assert scripted((1, False, False), lit_count=1) == (1, True, False)
    reader._pip_cache = {}
    assert scripted((1, False, False), lit_count=2) == (1, False, False)
    reader._pip_cache = {}
    assert scripted((0, False, False)) == (0, False, False)
    reader._pip_cache = {}
    assert scripted((2, False, False)) == (2, False, False)
