"""What a glossy table shows the reader: a sheen over a piece read as the piece's colour, a
pale tinted face never taken for a white one, a die's lit edge never counted as a mark, and
a doubt reaching only the places near what made it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.games import load_game
from companion.vision.pips import count_pips
from companion.vision.reader import BoardReader
from companion.vision.reading import BESIDE_MM, SCALE, UNKNOWN

DATA = Path(__file__).parent / "data" / "vision"


def reader_of(game_name: str) -> BoardReader:
    game = load_game(game_name)
    layout = game.layout(game.setup(game.min_players, None, 0))
    return BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))


def label_of(reader: BoardReader, bgr: tuple[float, float, float]) -> str:
    pixel = np.array([[bgr]], np.float32).clip(0, 255).astype(np.uint8)
    label = int(reader._classify(pixel)[0, 0])
    names = reader._piece_names + reader._surface_names
    return "unknown" if label == UNKNOWN else names[label]


def test_a_sheened_face_is_its_colour_and_a_reflections_white_core_is_none():
    reader = reader_of("baron_voodoo")
    for name in ("blue", "red", "purple"):
        colour = reader._piece_bgr[reader._piece_names.index(name)]
        assert label_of(reader, tuple(colour)) == name
        for share in (0.3, 0.45, 0.55):  # the lamp's white mixed in: paler, lighter, same tint
            sheened = (1 - share) * colour + share * 255.0
            assert label_of(reader, tuple(sheened)) == name, (name, share, sheened)
        # so much white that next to nothing of its tint is left: a reflection's core, no die
        assert label_of(reader, tuple(0.08 * colour + 0.92 * 255.0)) != name
    # a lifted blue that clipped its blue channel still points blue's way
    assert label_of(reader, (255, 198, 195)) == "blue"
    # the board's own print lifted by a reflection is not a piece
    board = np.array(reader._centroid_bgr[len(reader._piece_names) + reader._surface_names.index("board")])
    assert label_of(reader, tuple(0.6 * board + 0.4 * 255.0)) not in reader._piece_names


def test_a_pale_tinted_face_is_no_white_piece():
    reader = reader_of("jivecat")  # white and yellow chips both
    assert label_of(reader, (245, 245, 245)) == "white"
    assert label_of(reader, (236, 244, 246)) == "white"  # a white face's slight cast
    # a yellow chip under a sheen: B 30 below G and R, near white in lightness
    assert label_of(reader, (222, 255, 255)) != "white"
    # (which piece it is, the board's yellowish print leaves open: its tint points that way too)
    assert label_of(reader, (200, 250, 252)) not in ("white", "grey")


def test_a_dies_lit_edge_is_no_mark():
    """A blue die of a rendered frame (Baron Voodoo, tuning split, from straight above), as
    the reader crops it at 4 px a mm: two pips, and its rounded left edge catching the lamp
    in a streak that peaks like a third mark.  The count is unclear, never three."""
    crop = cv2.imread(str(DATA / "lit_edge_die.png"), cv2.IMREAD_GRAYSCALE)
    assert crop is not None
    half = crop.shape[1] // 2
    gray, mask = crop[:, :half], (crop[:, half:] > 127).astype(np.uint8)
    count, sure = count_pips(mask, gray)
    assert not sure or count == 2


def test_a_doubt_reaches_only_the_places_near_what_made_it():
    reader = reader_of("baron_voodoo")
    index = reader._spot_index["D4"]
    rows, cols = np.nonzero(reader._spot_map == index)
    y0, y1, x0, x1 = rows.min(), rows.max() + 1, cols.min(), cols.max() + 1
    cy, cx = (y0 + y1) // 2, (x0 + x1) // 2
    # a patch in the middle of its place (a die's own sheen): no neighbour is near it
    assert reader._reached([(cy - 5, cy + 5, cx - 5, cx + 5)], "D4") == []
    # a patch at the place's right edge reaches the place to the right, not the one left of it
    reach = int(round(BESIDE_MM * SCALE))
    near = reader._reached([(cy - 5, cy + 5, x1 - 6, x1 - reach + 2)], "D4")
    right = int(reader._spot_map[cy, x1 + 2 * reach])
    left = int(reader._spot_map[cy, x0 - 2 * reach])
    assert right >= 0 and reader._spot_ids[right] in near
    assert left < 0 or reader._spot_ids[left] not in near
    # what made it doubtful not known: every place beside it, as before
    assert reader._reached(None, "D4") == reader._beside["D4"]
