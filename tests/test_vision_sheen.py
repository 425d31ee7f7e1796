"""What a glossy table shows the reader: a pale tinted face never taken for a white one, a
die's lit edge never counted as a mark, and a doubt reaching only the places near what
made it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.games import load_game
from companion.vision.pips import count_pips
from companion.vision.reader import BoardReader
from companion.vision.reading import BESIDE_MM, SCALE

DATA = Path(__file__).parent / "data" / "vision"


def reader_of(game_name: str, players: int | None = None) -> BoardReader:
    game = load_game(game_name)
    layout = game.layout(game.setup(players or game.min_players, None, 0))
    return BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))


def test_a_pale_tinted_face_is_no_white_piece():
    """A yellow chip under a glossy sheen is near white pixel by pixel, but its face keeps
    yellow's tint; a white face, its sensor noise averaged over it, keeps none."""
    reader = reader_of("jivecat", 3)  # white and yellow chips both
    white = reader._piece_names.index("white")
    own = np.ones((20, 20), bool)
    rng = np.random.default_rng(3)

    def face(bgr: tuple[int, int, int]) -> np.ndarray:
        noisy = np.array(bgr, np.float32) + rng.normal(0, 8, (20, 20, 3))
        return np.clip(noisy, 0, 255).astype(np.uint8)

    assert not reader.tinted_grey(white, face((245, 245, 245)), own)
    assert not reader.tinted_grey(white, face((236, 244, 246)), own)  # a slight cast
    assert reader.tinted_grey(white, face((222, 255, 255)), own)  # B 30 below G and R: yellow's way
    assert not reader.tinted_grey(reader._piece_names.index("yellow"), face((222, 255, 255)), own)


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


def test_a_black_tiles_sheen_is_the_tile() -> None:
    """A lamp's sheen over part of a glossy black skull tile lifts it to a dark grey no piece
    is, still without hue and far darker than the print: joined to the tile's black it is the
    tile, not a second piece touching it (each of these places was doubted so before), and
    nothing is read wrong for it."""
    from committed_frames import read_committed

    frame, layout, _reader, reading = read_committed("tune", "jivecat-t20-b1")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in ("mat2-skull0", "mat2-skull2", "mat2-skull5"):
        assert spot not in doubtful and reading.view.get(spot, ()) == frame.view.get(spot, ()), spot
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)
