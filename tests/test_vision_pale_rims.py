"""A flat piece lit as pale as its print, told only by its rim (stop 85).  On fresh tuning boards
two of Baron Voodoo's brown x20 markers, lit a pinkish grey on the tan mat, and a peach-lit
Offering passed for the empty board pixel by pixel; their dark rims were too thin to stay in
what is unexplained.  Rays from a one-token place's middle that cross something darker than
the empty board, most of them round it, are a rim: the place is asked (``PaleRims``)."""

from __future__ import annotations

from committed_frames import kept_reading, reading_of

from companion.games.base import Piece
from companion.vision.pale_rims import PALE_RIM, RIM_RAYS, RIM_TINT_RAYS


def test_a_marker_lit_as_pale_as_the_mat_is_asked_by_its_rim() -> None:
    frame, reading = kept_reading("baron_voodoo-t00-b14")
    assert reading.view is not None
    assert frame.view["x20-0-0"] == (Piece("brown", 0),)
    assert reading.doubtful.get("x20-0-0") == PALE_RIM, reading.view.get("x20-0-0")


def test_offerings_lit_peach_are_asked_by_their_orange_rims() -> None:
    """Stop 87: three Offerings lit peach from above, their rims no darker than the mat but
    still orange, had been read as empty places.  Since stop 113 one of them, its peach top
    ringed by the print, is read as the orange its place holds (``_sheen_lit_chips``, a chip
    with rivals); the other two are still asked by their rims."""
    frame, reading = kept_reading("baron_voodoo-t00-b6")
    assert reading.view is not None
    for spot in ("offer0-1", "offer1-0", "offer1-2"):
        assert frame.view[spot] == (Piece("orange", 0),)
    assert "offer0-1" not in reading.doubtful and reading.view["offer0-1"] == frame.view["offer0-1"]
    for spot in ("offer1-0", "offer1-2"):
        assert reading.doubtful.get(spot) == PALE_RIM, (spot, reading.view.get(spot))


def test_empty_token_places_show_no_rim() -> None:
    """The empty token places of committed frames under three lamps and from the side are
    read empty: their print's own lines and the shadows beside them make no ring."""
    assert 0.39 < RIM_RAYS < 0.61  # (the tuning frames' empty places and pale markers)
    assert 0.29 < RIM_TINT_RAYS < 0.79  # (their empty places, and the peach Offerings)
    for stem in ("baron_voodoo-t00-b0", "baron_voodoo-t10-b1-track", "baron_voodoo-t30-b2-side",
                 "baron_voodoo-t10-b1-falloff", "jivecat-t10-b0-side"):
        frame, layout, reading = reading_of("tune", stem)
        assert reading.view is not None
        empty = [s.id for s in layout.spots if s.holds == 1 and not frame.view.get(s.id)
                 and s.id.startswith(("offer", "x20", "track", "mat"))]
        asked = [s for s in empty if reading.doubtful.get(s) == PALE_RIM]
        assert not asked, (stem, asked)
        assert sum(not reading.view.get(s) and s not in reading.doubtful for s in empty) >= 10, stem
