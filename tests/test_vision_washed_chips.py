"""A coloured chip washed pale, from a coarse frame (stop 84).  On fresh Jivecat boards through
a 640x480 webcam (0.55-0.63 px a mm), two blue chips under a lamp were read as white: their
faces, flattened, kept a tint of 16-19 toward blue, under the 24 a colourless face may show.
There a white piece takes on the print's tint (a tan board's warmth: up to 19 on the tuning
frames) and no other; a tint of ``COARSE_TINT_MAX`` any other way, toward a colour the place
may hold, leaves the colour unclear (``Classifying.tinted_toward``).

From a frame fine enough for a piece's rim (stop 85) the print no longer bleeds into a face's
median: a fresh Jivecat board's yellow chip lit pale at 1.07 px a mm kept a tint of 23.7 toward
yellow and was read white; white faces there show 10.4 at most, the flat camera's 16.3
(``FINE_WHITE_TINT_MAX``, 20).

A plain white token's print round it is asked however fine the frame (stop 86): on fresh Jivecat
boards at 1.03 px a mm two blue chips lit pale kept tints of 14.4 and 20.1 pointing away from
the print and were read white; the white chips tinted 10 or more at 1 px a mm or more all
pointed the print's way (up to 15.9).  A die's face and a dark token keep the fine bound."""

from __future__ import annotations

import pytest
from committed_frames import kept_reading, reading_of

from companion.games.base import Piece
from companion.vision.classifying import (
    COARSE_TINT_MAX,
    FINE_WHITE_TINT_MAX,
    GREY_TINT_MAX,
    SURROUNDINGS_COSINE,
)


@pytest.mark.parametrize(("stem", "spot"), [("jivecat-t10-b21-vga", "L05"), ("jivecat-t10-b25-vga", "T23")])
def test_a_blue_chip_washed_pale_is_not_read_white(stem: str, spot: str) -> None:
    frame, reading = kept_reading(stem)
    assert reading.view is not None
    assert frame.view[spot] == (Piece("blue", 0),)
    assert reading.doubtful.get(spot) == "colour unclear", reading.view.get(spot)


@pytest.mark.parametrize(("stem", "spot"), [("jivecat-t00-b20-vga", "L28"), ("jivecat-t20-b18-vga", "N25"),
                                            ("jivecat-t10-b13-vga", "T16")])
def test_a_white_chip_warmed_by_the_print_is_still_white(stem: str, spot: str) -> None:
    """Committed VGA frames' white chips whose faces take the tan print's tint (13-19, the
    most of the tuning frames' whites): the tint points the print's way, so they are read."""
    assert COARSE_TINT_MAX < GREY_TINT_MAX
    frame, _layout, reading = reading_of("tune", stem)
    assert reading.view is not None
    assert frame.view[spot] == (Piece("white", 0),)
    assert spot not in reading.doubtful and reading.view[spot] == frame.view[spot]


def test_a_yellow_chip_lit_pale_on_a_fine_frame_is_not_read_white() -> None:
    frame, reading = kept_reading("jivecat-t20-b10")
    assert reading.view is not None
    assert frame.view["N12"] == (Piece("yellow", 0),)
    assert reading.doubtful.get("N12") == "colour unclear", reading.view.get("N12")


def test_a_blue_chip_lit_pale_on_a_fine_frame_is_not_read_white() -> None:
    frame, reading = kept_reading("jivecat-t10-b19")
    assert reading.view is not None
    assert frame.view["T22"] == (Piece("blue", 0),)
    assert reading.doubtful.get("T22") == "colour unclear", reading.view.get("T22")
    # a white chip of the same frame, under the same lamp, is still white
    assert frame.view["L13"] == (Piece("white", 0),)
    assert "L13" not in reading.doubtful and reading.view["L13"] == frame.view["L13"]


def test_a_chip_lit_pale_tinted_toward_no_colour_closely_is_not_read_white() -> None:
    """Stop 89: a blue chip of the same frame, lit pale (178 light), tinted 21.6 away from the
    print: past a white face's bound, yet only 0.82 of blue's way (``TINT_COSINE`` 0.9), so no
    colour was named and it was read white.  A white face tinted that far is no white."""
    frame, reading = kept_reading("jivecat-t10-b19")
    assert reading.view is not None
    assert frame.view["T27"] == (Piece("blue", 0),)
    assert reading.doubtful.get("T27") == "colour unclear", reading.view.get("T27")


def test_red_chips_lit_pale_whose_tint_half_follows_the_print_are_not_read_white() -> None:
    """Stop 89: a fresh Jivecat board at 0.81 px a mm under a strip lamp, glossy chips: two red
    chips lit pale pink kept tints of 18.8 and 23.4 pointing 0.80-0.81 of the tan print's way,
    taken as the print's warmth on a white chip and read white.  A white chip warmed by the
    print follows it closely (0.94 or nearer on the tuning frames; ``SURROUNDINGS_COSINE`` 0.9),
    while red's own way lies near 0.8 of the tan's.  The frame's white chips are still white."""
    assert SURROUNDINGS_COSINE == 0.9
    frame, reading = kept_reading("jivecat-t10-b43")
    assert reading.view is not None
    for spot in ("N03", "T20"):
        assert frame.view[spot] == (Piece("red", 0),)
        assert reading.doubtful.get(spot) == "colour unclear", (spot, reading.view.get(spot))
    for spot in ("C04", "C05", "C07", "C08"):
        assert frame.view[spot] == (Piece("white", 0),)
        assert spot not in reading.doubtful and reading.view[spot] == frame.view[spot]


def test_an_offering_lit_white_on_a_fine_frame_is_its_orange() -> None:
    """Pale orange offerings lit white, on places that take no white piece, keep more tint
    than ``FINE_WHITE_TINT_MAX``: they are read as their orange (they were asked as blurred; so
    were two more on fresh tuning boards)."""
    assert FINE_WHITE_TINT_MAX < GREY_TINT_MAX
    stem, spot = "baron_voodoo-t00-b0-hand", "offer1-1"
    frame, _layout, reading = reading_of("tune", stem)
    assert reading.view is not None
    assert frame.view[spot] == (Piece("orange", 0),)
    assert spot not in reading.doubtful and reading.view[spot] == frame.view[spot]
