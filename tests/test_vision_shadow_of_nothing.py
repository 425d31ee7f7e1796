"""A shadow with no piece read to cast it (stop 90).  On held-out boards of stop 89 two white
dice were read as empty places: a Baron Voodoo white 5 on a pale Underworld place at a lamp's
reflection, its top lifted into one blob with the reflection (which read no piece), and Swing
State's white die at 0.63 px a mm, its top flattened to the pale print but for a speck.  Each
die's shadow lay on the board and was taken off as light, since pieces stood near enough to
cast it.  A shadow is cast by what stands beside it: where the blob nearest it told nothing,
the place under it is asked (``Blobs._doubt_cast_by_nothing``, ``cast_by_nothing``).

Stop 100: Swing State's white die on held-out board 100 at 20 degrees (0.63 px a mm) left no
blob at all: its top a bluish white lighter than the print, too small a patch to hide a die,
and only specks of white at its rim, which its shadow was taken for light beside.  Shade with
no blob within the longest shadow's reach (a column of three dice's) is cast by nothing read
too (``cast_by_no_blob``).

Stop 101: a white chip on Jivecat's pale Contract place (held-out board 118, 30 degrees, 0.63 px a
mm) passed for the print, and its crescent of shadow was taken for the shadow of the white chip
on the next place, 12 mm off: a chip's shadow is as long as it is thick.  Where a piece passes
for the board, shade is taken for another's shadow only with a die or a figure read within a
shadow's reach, or a flat piece's blob within its shadow's (``EmptyBoard._only_light``)."""

from __future__ import annotations

import numpy as np
import pytest
from committed_frames import kept_reading

from companion.games.base import Piece
from companion.vision.arms import OVER
from companion.vision.cast_shadow import blob_within, cast_by_no_blob, cast_by_nothing
from companion.vision.empty_board import CAST_BY_NOTHING


@pytest.mark.parametrize(("stem", "spot", "die", "asked_as"),
                         [("baron_voodoo-t00-b23", "under1-9", Piece("white", 5),
                           {CAST_BY_NOTHING, "glare?"}),
                          ("swing_state-t20-b22", "die", Piece("white", 3), {CAST_BY_NOTHING}),
                          ("swing_state-t20-b100", "die", Piece("white", 2), {CAST_BY_NOTHING})])
def test_a_white_die_whose_shadow_nothing_read_casts_is_asked(stem: str, spot: str, die: Piece,
                                                              asked_as: set[str]) -> None:
    """(Since stop 99 the Baron Voodoo die, its shaded side and shadow darker than the board in
    the reflection's pool round it, is asked by its rim too, ``piece_rims``, which comes first
    as "glare?"; Swing State's die is asked by its shadow alone.)"""
    frame, reading = kept_reading(stem, "test")
    assert reading.view is not None
    assert frame.view[spot] == (die,)
    assert reading.doubtful.get(spot) in asked_as, reading.view.get(spot)


def _board() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two blobs (1 at left, 2 at right) and a shadow beside each."""
    components = np.zeros((40, 80), np.int32)
    components[10:20, 5:15] = 1
    components[10:20, 60:70] = 2
    shade = np.zeros(components.shape, bool)
    shade[12:22, 15:22] = True  # blob 1's shadow
    shade[12:22, 53:60] = True  # blob 2's shadow
    stats = np.array([[0, 0, 80, 40, 0], [5, 10, 10, 10, 100], [60, 10, 10, 10, 100]])
    return shade, components, stats


def test_only_the_shadow_nearest_a_silent_blob_is_cast_by_nothing() -> None:
    shade, components, stats = _board()
    found = cast_by_nothing(shade, components, stats, [1])
    assert found is not None
    assert found[12:22, 15:22].all()  # its shadow
    assert not found[:, 40:].any()  # blob 2's shadow is blob 2's
    assert found[10:20, 5:15].any() and not found[10:20, 5:6].any()  # its own pixels beside the shadow only


def test_no_shadow_near_a_silent_blob_is_none() -> None:
    shade, components, stats = _board()
    shade[:, :40] = False
    assert cast_by_nothing(shade, components, stats, [1]) is None


def test_shade_with_no_blob_within_reach_is_cast_by_no_blob() -> None:
    """Blob 1's shadow has a blob beside it; a second patch of shade 30 px from every blob
    (past a reach of 20) has none: only that one is cast by nothing, all of it."""
    shade, components, _stats = _board()
    components[components == 2] = 0
    shade[12:22, 53:60] = False
    shade[30:36, 50:58] = True
    found = cast_by_no_blob(shade, components, 20)
    assert found is not None
    assert found[30:36, 50:58].all()
    assert int(found.sum()) == 6 * 8  # (not blob 1's shadow)


def test_shade_joined_to_shade_near_a_blob_is_that_blobs() -> None:
    """A shadow's far end, past the reach, joined to its near end: cast by the blob beside it."""
    shade, components, _stats = _board()
    shade[:] = False
    shade[14:16, 15:60] = True  # from blob 1 out to 45 px away, one part
    assert cast_by_no_blob(shade, components, 20) is None
    assert cast_by_no_blob(np.zeros_like(shade), components, 20) is None



def test_a_pale_chips_shadow_is_not_taken_for_a_flat_neighbours() -> None:
    frame, reading = kept_reading("jivecat-t30-b118", "test")
    assert reading.view is not None
    assert frame.view["C01"] == (Piece("white", 0),)
    assert reading.doubtful.get("C01") == OVER, reading.view.get("C01")


def test_a_dies_long_shadow_on_a_pale_place_is_still_light() -> None:
    """King of Clubs, held-out board 112 at 20 degrees: a red 5 on its pale Nightclub place, its
    shadow's far end 6 mm and more from its blob (its near end taken for shade by colour)."""
    frame, reading = kept_reading("king_of_clubs-t20-b112", "test")
    assert reading.view is not None
    assert frame.view["p1_d3"] == (Piece("red", 5),)
    assert reading.view.get("p1_d3") == (Piece("red", 5),), reading.doubtful.get("p1_d3")


def test_a_blob_within_reach_of_a_patch() -> None:
    blobs = np.zeros((40, 40), np.int32)
    blobs[10:20, 30:35] = 3
    own = np.ones((4, 4), bool)
    assert blob_within(own, 20, 12, blobs, 7)  # the patch's right edge at x 23, the blob at 30: 7 px
    assert not blob_within(own, 20, 12, blobs, 6)
    assert not blob_within(own, 2, 12, blobs, 20)  # 25 px off
