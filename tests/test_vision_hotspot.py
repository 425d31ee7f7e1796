"""A lamp's hotspot on the board's paper (``glare.Glare.board_under`` with ``SHEEN_MIN``).

Under a lamp's hotspot the print's dark cells are lifted a little in every channel, evenly
and smoothly, as a reflection lifts the board but fainter than one: that is light, not
something over the cells.  A committed tuning frame of Swing State whose dark cells under
the hotspot were doubted as "glare?" (nine of them) is read there, and nothing read wrong.
"""

from __future__ import annotations

import pytest
from committed_frames import read_committed

UNDER_THE_HOTSPOT = ("r1-19-red", "r1-20-red", "r1-23-red", "r1-24-red", "r2-15-red", "r2-16-red",
                     "r2-18-red", "r3-11-red", "r3-12-red")


def test_dark_cells_under_a_lamps_hotspot_are_read_as_the_board() -> None:
    frame, layout, _reader, reading = read_committed("tune", "swing_state-t20-b2")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in UNDER_THE_HOTSPOT:
        assert spot not in doubtful and reading.view.get(spot, ()) == frame.view.get(spot, ()) == ()
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


@pytest.mark.parametrize("stem", ["times_square-t20-b2-falloff", "swing_state-t30-b2-falloff",
                                  "jivecat-t20-b0-falloff"])
def test_a_lamps_hotspot_washed_out_on_a_print_that_shines_is_glare_not_a_hand(stem: str) -> None:
    """A reading lamp's pool on a glossy print, its core washed out, reaching the board's edge,
    with nothing across the margin: the board round the core is seen as the board lifted, so
    it is a reflection (what the core may hide is doubted as "glare?"), not a pale sleeve.
    These tuning frames read a hand where none was (stop 57), on a quarter to half a narrow
    board lighter than the empty one (``LIGHTER_ALL_OVER``) or a core too deep to hide nothing."""
    frame, layout, _reader, reading = read_committed("tune", stem)
    assert reading.view is not None and not reading.hand
    doubtful = dict(reading.doubtful or {})
    assert "under a hand or arm" not in doubtful.values()
    assert any(why.endswith("glare?") for why in doubtful.values())
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)
