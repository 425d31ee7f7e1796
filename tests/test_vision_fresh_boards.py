"""Fresh boards (stop 83), rendered as a check after stop 82's mends: 75 frames through a
640x480 webcam on tuning boards 6-20, then kept as tuning frames; and boards past the
committed plan's (``render3d --fresh``), read but not kept.  Before this stop's mends, 9 of
the VGA frames read a place confidently wrong; each place is now asked, with its reason.
Each test here fails with its mend taken out."""

from __future__ import annotations

from committed_frames import reading_of

from companion.bench.vision import game_layout, make_reader
from companion.games.base import Piece
from companion.vision.reading import COUNT_PX_PER_MM, MARKS_PX_PER_MM

SMALL = "marks too small for the camera"


def _asked(stem: str, spot: str, truth: tuple[Piece, ...], why: str) -> None:
    frame, _layout, reading = reading_of("tune", stem)
    assert reading.view is not None
    assert frame.view.get(spot, ()) == truth, (stem, spot)  # the place as the scene laid it
    assert reading.doubtful.get(spot, "").startswith(why), (stem, spot, reading.doubtful.get(spot))


def test_no_count_of_marks_is_taken_under_count_px_per_mm() -> None:
    """Under 0.6 px a mm a pip is a pixel and a half across: the counts read there on these
    boards were wrong 7 times in 94 (a purple 5 read as a 4, a code's 3 and 4 as no marks,
    a code's 7 as a 6).  A die's pips and a card's code are asked there, a 0 as much as a 5."""
    assert 0.5 < COUNT_PX_PER_MM < MARKS_PX_PER_MM
    _asked("king_of_clubs-t30-b12-vga", "p0_d2", (Piece("purple", 5),), f"{SMALL} (0.59")
    _asked("jivecat-t30-b11-vga", "skull-0", (Piece("orange", 3),), f"{SMALL} (0.53")
    _asked("jivecat-t30-b11-vga", "skull-1", (Piece("orange", 4),), f"{SMALL} (0.53")
    _asked("jivecat-t30-b7-vga", "skull-2", (Piece("orange", 7),), f"{SMALL} (0.52")


def test_a_coarse_dies_marks_are_not_counted_in_its_tops_square() -> None:
    """``die_square.low_face`` reads a face of 1-3 inside a die's top's square where its count
    is unclear.  Under ``MARKS_PX_PER_MM`` a 4's and a 6's marks run together into two there:
    a red 4 (lit, at 0.67 px a mm) and a yellow 4 (at 0.68) were read as 2s."""
    _asked("baron_voodoo-t10-b7-vga", "C1", (Piece("red", 4),), f"{SMALL} (0.67")
    _asked("baron_voodoo-t00-b18-vga", "B1", (Piece("yellow", 4),), f"{SMALL} (0.68")


def test_a_pool_of_light_too_big_for_a_piece_hides_what_it_washed_out() -> None:
    """King of Clubs at 0.54 px a mm: a lamp's pool on a card's white is one blob of white, too
    big for any piece, and a purple die's top in it is washed out.  What of the pool is not
    the board lifted was taken for a piece's (the blob's), so the pool hid nothing and the die's
    place read empty; a blob read as no piece now leaves what it covers unseen."""
    _asked("king_of_clubs-t30-b20-vga", "p0_d0", (Piece("purple", 3),), "glare?")


def test_a_patch_with_a_pieces_marks_in_it_is_as_wide_as_the_piece() -> None:
    """Baron Voodoo at 0.69 px a mm: a white 6 on a cream print is unexplained as a lit patch
    whose six pips pass for the print, holes that left it nowhere as wide as a die
    (``_hides_no_piece``), and its place read empty.  Its holes are filled before it is measured."""
    _asked("baron_voodoo-t00-b10-vga", "F1", (Piece("white", 6),), "glare?")


def test_a_standing_figures_shaded_foot_is_no_piece_of_a_shadows_colour() -> None:
    """Swing State at 0.57 px a mm: a blue pawn's foot in its own shade, with its shadow, seen
    apart from its lit body on the next space, was read as a black pawn there (``_figure_shades``)."""
    _asked("swing_state-t20-b13-vga", "r1-29-red", (), "a standing piece's shade, or another piece?")


def test_a_white_piece_clipped_from_under_a_px_a_mm_may_be_a_coloured_one_washed_white() -> None:
    """A fresh Jivecat board at 10 degrees (0.86 px a mm, a 720p camera far off): a glossy blue
    chip and a red one under a bright lamp, clipped white but for a rim a pixel wide, were read
    as white chips.  Under ``RIM_PX_PER_MM`` a white chip clipped is doubted where a coloured
    one may stand; from nearer its rim shows its colour and it is read."""
    from companion.vision.coarse_marks import RIM_PX_PER_MM

    layout, colours, _players = game_layout("jivecat")
    reader = make_reader(layout, colours)
    white = reader._piece_names.index("white")
    spot = next(s.id for s in layout.spots if s.may_hold("white") and s.may_hold("blue"))
    for px, hides in ((0.86, True), (RIM_PX_PER_MM - 0.01, True), (RIM_PX_PER_MM, False), (1.3, False)):
        reader.frame_px_per_mm = px
        assert reader._clipping_hides(white, spot) is hides, px
