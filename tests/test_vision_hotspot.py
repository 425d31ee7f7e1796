"""A lamp's hotspot on the board's paper (``glare.Glare.board_under`` with ``SHEEN_MIN``).

Under a lamp's hotspot the print's dark cells are lifted a little in every channel, evenly
and smoothly, as a reflection lifts the board but fainter than one: that is light, not
something over the cells.  A committed tuning frame of Swing State whose dark cells under
the hotspot were doubted as "glare?" (nine of them) is read there, and nothing read wrong.
"""

from __future__ import annotations

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
