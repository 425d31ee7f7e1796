"""A glossy die's top that the lamp lifts past its colour (a red top lit pink) is the die's
colour inside a rim of that colour, and only there: its white pips stay marks, and the same
pink with no such rim, or a top greyed rather than lit, stays no colour at all."""

from __future__ import annotations

import numpy as np
import pytest
from committed_frames import kept_reading, reading_of

from companion.games import load_game
from companion.games.base import Piece
from companion.vision.reader import BoardReader

BOARD = (120, 160, 184)  # Baron Voodoo's tan print (BGR)
WHITE = np.array([250.0, 250.0, 250.0])


def reader_of(game_name: str) -> BoardReader:
    game = load_game(game_name)
    layout = game.layout(game.setup(game.min_players, None, 0))
    return BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))


def lit(colour: np.ndarray, t: float, toward: np.ndarray = WHITE) -> tuple[int, ...]:
    """A colour mixed ``t`` of the way toward a lamp's white (or another colour)."""
    return tuple(int(v) for v in np.round(colour + t * (toward - colour)))


def die(rim: tuple[int, ...] | list[tuple[int, ...]], top: tuple[int, ...], px: int = 16) -> np.ndarray:
    """A die seen from above on the board at ``px`` a face: a rim three pixels wide (one
    colour, or one a side), its top's middle ``top``, and a white pip in the middle."""
    picture = np.zeros((px + 20, px + 20, 3), np.uint8)
    picture[:] = BOARD
    rims = rim if isinstance(rim, list) else [rim] * 4
    a, b = 10, 10 + px
    picture[a:b, a:b] = rims[0]
    picture[a:a + 3, a:b], picture[b - 3:b, a:b] = rims[0], rims[1]
    picture[a:b, a:a + 3], picture[a:b, b - 3:b] = rims[2], rims[3]
    picture[a + 3:b - 3, a + 3:b - 3] = top
    m = (a + b) // 2
    picture[m - 1:m + 2, m - 1:m + 2] = (250, 250, 250)
    return picture


def test_a_red_tops_lit_middle_is_red_inside_its_red_rim() -> None:
    reader = reader_of("baron_voodoo")
    red = reader._piece_names.index("red")
    colour = reader._piece_bgr[red].astype(np.float64)
    picture = die(tuple(int(v) for v in colour), lit(colour, 0.7))
    top = np.zeros(picture.shape[:2], bool)
    top[13:23, 13:23] = True
    top[17:20, 17:20] = False  # the pip
    # the lamp lifts the top past red: the tan print or white, pixel by pixel
    assert not (reader._classify(picture)[top] == red).any()
    labels = reader._classify_seen(picture, picture, 1.0)
    assert (labels[top] == red).all()
    assert not (labels[17:20, 17:20] == red).any()  # the white pip stays a mark


def test_a_lit_top_with_no_rim_of_its_colour_stays_unknown() -> None:
    reader = reader_of("baron_voodoo")
    names = reader._piece_names
    red, purple = names.index("red"), names.index("purple")
    colour = reader._piece_bgr[red].astype(np.float64)
    pink = lit(colour, 0.7)
    middle = (slice(13, 23), slice(13, 23))
    two = [tuple(int(v) for v in colour), tuple(int(v) for v in reader._piece_bgr[purple])] * 2
    for rim in (BOARD, two):  # pink ringed by the print (no die's rim), or by two colours
        picture = die(rim, pink)
        assert not (reader._classify_seen(picture, picture, 1.0)[middle] == red).any()
    # a red top greyed (a film, a mist), not lit toward white, stays unknown in a red rim too
    greyed = lit(colour, 0.55, np.array([150.0, 150.0, 150.0]))
    picture = die(tuple(int(v) for v in colour), greyed)
    assert reader._classify(picture)[18, 14] != red
    assert not (reader._classify_seen(picture, picture, 1.0)[middle] == red).any()


def test_a_red_die_lit_pink_on_a_rendered_frame_is_counted() -> None:
    """Baron Voodoo, tuning split, tilt 20: a glossy red 5 whose lit top read as no colour
    (its count unclear, doubted) is read again with its lit top taken for it, and counted;
    nothing on the board is read wrong."""

    frame, layout, reading = reading_of("tune", "baron_voodoo-t20-b0")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "C1" not in doubtful and reading.view.get("C1", ()) == frame.view.get("C1", ())
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def _board_with(top: tuple[int, ...], size: tuple[int, int] = (16, 16),
                around: tuple[int, ...] = (150, 185, 205)
                ) -> tuple[np.ndarray, np.ndarray, tuple[slice, slice]]:
    """King of Clubs' cream place print at a pixel a millimetre with a patch of ``top`` on it
    (a 16 mm die's top, or longer), ringed by ``around``; where the empty board is not seen
    (the patch and a blurred rim round it); and the patch."""
    picture = np.zeros((60, 70, 3), np.uint8)
    picture[:] = (150, 185, 205)
    patch = (slice(20, 20 + size[0]), slice(20, 20 + size[1]))
    picture[18:22 + size[0], 18:22 + size[1]] = around
    picture[patch] = top
    empty = np.ones(picture.shape[:2], bool)
    empty[17:23 + size[0], 17:23 + size[1]] = False
    return picture, empty, patch


LIT_RED_ALL_OVER = (150, 152, 252)  # a red die's top and rim lit pink, no pixel of it red (BGR)


def test_a_die_lit_all_over_alone_on_the_board_is_its_colour() -> None:
    """A red die lit pink all over, its rim blurred into the print (King of Clubs from straight
    above): no pixel of it red, no ring of red round it, and yet a die's size and shape on the
    print, lit red's way: the board reader takes it for the red die (it was something over
    the board)."""
    reader = reader_of("king_of_clubs")
    red = reader._piece_names.index("red")
    picture, empty, patch = _board_with(LIT_RED_ALL_OVER)
    assert not (reader._classify(picture)[patch] == red).any()
    assert (reader._classify_board(picture, picture, empty)[patch] == red).mean() > 0.9


@pytest.mark.parametrize(("size", "around"), [
    ((16, 38), (150, 185, 205)),  # longer than a die: a finger, a pale sleeve's edge
    ((16, 16), (190, 121, 250)),  # ringed by a pink piece, not the print: part of it, or beside it
])
def test_a_lit_patch_no_die_could_be_stays_unknown(size: tuple[int, int], around: tuple[int, ...]) -> None:
    reader = reader_of("king_of_clubs")
    red = reader._piece_names.index("red")
    picture, empty, patch = _board_with(LIT_RED_ALL_OVER, size, around)
    assert not (reader._classify_board(picture, picture, empty)[patch] == red).any()


def test_a_die_lit_all_over_on_a_rendered_frame_is_read() -> None:
    """King of Clubs, tuning split, straight above: a red 2 lit pink all over was something over
    the board; it is the red die (``_lit_dice_alone``), its top whole on its crop (``_lit_on_from``),
    read as the 2 it is; nothing read wrong."""

    frame, layout, reading = reading_of("tune", "king_of_clubs-t00-b0")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "p1_d1" not in doubtful and reading.view.get("p1_d1") == frame.view.get("p1_d1")
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_top_lit_on_past_half_a_die_from_its_only_rim_is_the_die_all_over() -> None:
    """A red die's top lit pink all over, its colour kept only along one edge (the rest of its
    rim blurred into the print): on its crop (4 px a mm, a 64 px face) the whole lit top is
    the die, not only the half within half a die of that edge (it was cut off there, straight,
    with the pip beyond it: King of Clubs from straight above, a red 2 read as a 1)."""
    reader = reader_of("baron_voodoo")
    red = reader._piece_names.index("red")
    colour = reader._piece_bgr[red].astype(np.float64)
    pink = lit(colour, 0.6)
    picture = die([pink, pink, tuple(int(v) for v in colour), pink], pink, px=64)
    labels = reader._classify_seen(picture, picture, 4.0)
    assert (labels[13:71, 40:71] == red).mean() > 0.95  # the far half, past 32 px from the red edge
    # on the board (a pixel a millimetre, the whole board judged) only within reach, as before
    wide = np.zeros((200, 200, 3), np.uint8)
    wide[:] = BOARD
    wide[60:124, 60:124] = picture[10:74, 10:74]
    board = reader._classify_board(wide, wide)
    assert not (board[60:124, 110:124] == red).any()


def test_a_lit_patch_past_a_dies_size_is_no_die_top() -> None:
    """The same pink running on past a die's face (a lit sleeve of the die's way beside it):
    nothing of it is taken for the die beyond its colour's reach."""
    reader = reader_of("baron_voodoo")
    red = reader._piece_names.index("red")
    colour = reader._piece_bgr[red].astype(np.float64)
    pink = lit(colour, 0.6)
    picture = np.zeros((84, 200, 3), np.uint8)
    picture[:] = BOARD
    picture[10:74, 10:13] = tuple(int(v) for v in colour)
    picture[10:74, 13:190] = pink
    labels = reader._classify_seen(picture, picture, 4.0)
    assert not (labels[10:74, 60:190] == red).any()


def test_a_lone_mark_left_on_a_top_the_lamp_washed_out_is_no_sure_one() -> None:
    """Stop 89: a King of Clubs red 4 at 0.91 px a mm, glossy under the desk lamp, showed no
    marks at all; read again with its lit top taken for it, one mark stood out clearly and it
    was read a sure 1.  What the lamp left of a face may be one pip of any: asked."""
    frame, reading = kept_reading("king_of_clubs-t10-b44")
    assert reading.view is not None
    assert frame.view["p1_d3"] == (Piece("red", 4),)
    assert reading.doubtful.get("p1_d3") == "marks unclear: blur?", reading.view.get("p1_d3")
