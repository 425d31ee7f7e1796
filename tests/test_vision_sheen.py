"""What a glossy table shows the reader: a pale tinted face never taken for a white one, a
die's lit edge never counted as a mark, and a doubt reaching only the places near what
made it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from committed_frames import reading_of

from companion.games import load_game
from companion.vision.dark_sheen import mixed_with_grey
from companion.vision.palette import bgr as bgr_of
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


def test_a_pale_tinted_face_is_the_one_colour_its_place_takes_where_no_white_piece_stands():
    """A Baron Voodoo Protection token (cyan or green, on its own place) lit near white keeps
    cyan's tint: no white piece stands on that place (``Spot.takes``), so it is read cyan; on a
    grid cell, where the white joker die may stand, the same face stays unclear."""
    reader = reader_of("baron_voodoo", 2)
    white, cyan = reader._piece_names.index("white"), reader._piece_names.index("cyan")
    own = np.ones((20, 20), bool)
    lit = np.clip(np.array((250, 246, 214), np.float32)
                  + np.random.default_rng(5).normal(0, 6, (20, 20, 3)), 0, 255).astype(np.uint8)
    box = (0, 0, 20, 20)
    assert reader.colour_under_a_sheen(white, "guard0", lit, box, own) == cyan
    assert reader.colour_under_a_sheen(white, "A1", lit, box, own) is None
    plain = np.full((20, 20, 3), 245, np.uint8)
    assert reader.colour_under_a_sheen(white, "A1", plain, box, own) == white
    # a dark patch tinted red's way on a cell (a white die's side in its shade) is no lit red
    # die: a sheen lifts a colour toward white, never toward black
    black = reader._piece_names.index("black")
    shade = np.clip(np.array((60, 64, 96), np.float32)
                    + np.random.default_rng(6).normal(0, 4, (20, 20, 3)), 0, 255).astype(np.uint8)
    assert reader.colour_under_a_sheen(black, "A1", shade, box, own) is None


def test_protection_tokens_lit_white_on_their_places_are_read():
    """Baron Voodoo at 20 degrees, tuning split: both Protection tokens, their tops lit near
    white, were "colour unclear"."""
    from committed_frames import read_right

    read_right("baron_voodoo-t20-b1", ("guard0", "guard1"))


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

    frame, layout, reading = reading_of("tune", "jivecat-t20-b1")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in ("mat2-skull0", "mat2-skull2", "mat2-skull5"):
        assert spot not in doubtful and reading.view.get(spot, ()) == frame.view.get(spot, ()), spot
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def _black_face_under_a_sheen(pips: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """A 68 px black face (a 17 mm tile at 4 px a mm) on light print, a lamp's broad sheen
    lifting it from 40 to 95 (hueless) right of its middle, with white marks at ``pips``; and
    the colour mask of its black, as the crop's labels give it (the sheen is no colour's)."""
    crop = np.full((84, 84, 3), (175, 205, 220), np.float32)
    ys, xs = np.mgrid[0:68, 0:68]
    crop[8:76, 8:76] = (40 + 55 * np.exp(-((xs - 50) ** 2 + (ys - 40) ** 2) / (2 * 16.0 ** 2)))[..., None]
    for x, y in pips:
        cv2.circle(crop, (x, y), 5, (235, 235, 235), -1)
    crop = cv2.GaussianBlur(crop, (0, 0), 1.0) + np.random.default_rng(5).normal(0, 6, crop.shape)
    crop = np.clip(crop, 0, 255).astype(np.uint8)
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    mask = (gray < 62).astype(np.uint8)  # black as far as the sheen lets it be, speckled at its edge
    return crop, mask


def test_a_black_tiles_sheen_is_neither_a_mark_nor_another_colour_on_its_crop() -> None:
    """A glossy black tile's marks are counted on a crop of it: the lamp's broad sheen over
    the tile is the tile (its colour mask is joined over it) and no mark (taken off as
    light, the marks stand alone): a blank tile reads a sure 0, a card of one white mark a
    sure 1 (both "marks unclear" before: the sheen peaked faintly like a mark), of two a
    sure 2."""
    reader = reader_of("jivecat", 3)
    black = reader._piece_names.index("black")
    for marks, count in (([], 0), ([(42, 42)], 1), ([(25, 25), (59, 59)], 2)):
        crop, mask = _black_face_under_a_sheen(marks)
        gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
        if count < 2:
            assert count_pips(mask, gray)[1] is False  # as it was read before
        whole = reader._black_sheen_on_crop(crop, mask, black, (8, 76, 8, 76))
        assert whole[8:76, 8:76].mean() > 0.85  # the sheen joined to the tile (the marks are holes)
        assert count_pips(whole, reader._sheen_taken_off(gray, whole, black)) == (count, True)
    # another colour's mask and brightness are left as they are
    crop, mask = _black_face_under_a_sheen([])
    blue = reader._piece_names.index("blue")
    assert reader._black_sheen_on_crop(crop, mask, blue, (8, 76, 8, 76)) is mask
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    assert reader._sheen_taken_off(gray, mask, blue) is gray


@pytest.mark.parametrize("name, spots", [
    ("jivecat-t10-b2", ("mat0-skull1", "mat1-skull0", "mat1-skull1", "trend-0")),
    ("jivecat-t20-b2", ("mat2-skull1",)),  # a streak of sheen down the tile's middle
    ("jivecat-t00-b1", ("mat1-skull1",)),
])
def test_glossy_skull_tiles_of_a_rendered_frame_read_blank(name: str, spots: tuple[str, ...]) -> None:
    """Jivecat, tuning split: skull tiles and a black card whose sheen made their marks
    unclear (doubted each) are read, and nothing wrong."""

    frame, layout, reading = reading_of("tune", name)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    for spot in spots:
        assert spot not in doubtful and reading.view.get(spot, ()) == frame.view.get(spot, ()), spot
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)



@pytest.mark.parametrize("name", ["jivecat-t00-b2", "jivecat-t30-b2"])
def test_a_pale_tiles_shaded_bevel_is_no_mark(name: str) -> None:
    """Jivecat, tuning split: a 1-point Monkey (an orange tile; orange is a card colour too,
    so its marks are counted) whose shaded bevel and the lamp's light falling off across it
    peaked faintly like a mark ("marks unclear", doubted) reads blank once that broad or
    linear shade is taken off as light; nothing is read wrong."""

    frame, layout, reading = reading_of("tune", name)
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "mat0-one0" not in doubtful and reading.view.get("mat0-one0") == frame.view.get("mat0-one0")
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_dark_print_beside_a_black_tile_is_no_sheen_of_it() -> None:
    """A black tile turned in its place (the flat camera's turned condition) leaves its box's
    corners on the print; dark hueless print there, joined to the tile, is no sheen of the
    tile: the tile's mask never reaches past its box (it did, and its marks turned unclear)."""
    reader = reader_of("jivecat", 3)
    black = reader._piece_names.index("black")
    crop, mask = _black_face_under_a_sheen([])
    crop[0:84, 76:84] = (60, 60, 60)  # dark grey print right of the box, touching the tile
    whole = reader._black_sheen_on_crop(crop, mask, black, (8, 76, 8, 76))
    assert not whole[:, 77:].any()
    assert whole[8:76, 8:76].mean() > 0.9


def test_a_dark_colour_mixed_with_the_sheens_grey_keeps_its_hue() -> None:
    """A brown card under its sheen is brown mixed with a grey; a tan print dimmed by a
    shadow to the same lightness has far less tint, and an orange piece under a lamp more
    than any brown mixed so: neither is taken for brown, and the orange passes for orange
    when another colour is ruled out (``loose``)."""
    brown = np.array(bgr_of("brown"), np.float32)
    orange = np.array(bgr_of("orange"), np.float32)
    seen = np.array([
        0.54 * brown + 0.46 * 176.0,  # the card, as a physically based frame shows it
        brown,  # the card as painted
        0.55 * np.array(bgr_of("light_fill"), np.float32),  # pale tan print in a shadow
        (145.0, 191.0, 255.0),  # an orange chip under a lamp
        (120.0, 120.0, 120.0),  # grey: no hue at all
    ], np.float32)
    assert mixed_with_grey(seen, brown).tolist() == [True, True, False, False, False]
    assert mixed_with_grey(seen[3:4], orange, loose=True).all()
    assert not mixed_with_grey(seen[:1], orange, loose=True).any()  # a brown card is no orange's


@pytest.mark.parametrize("name", ["jivecat-t10-b2", "jivecat-t20-b2", "jivecat-t20-b1"])
def test_a_brown_card_under_its_sheen_is_read(name: str) -> None:
    """Jivecat, tuning split: the brown trend card's sheen lifts it to the print's outline
    colour ("something over it (a hand, a shadow)?", doubted); read as the brown card it is,
    and nothing read wrong."""
    from committed_frames import read_right

    read_right(name, ("trend-2",))


@pytest.mark.parametrize("name, spot", [("jivecat-t00-b1", "trend-2"), ("jivecat-t10-b1", "mat0-skull1"),
                                        ("jivecat-t00-b2-more", "mat2-skull0")])
def test_a_flat_pieces_rim_is_no_faint_mark(name: str, spot: str) -> None:
    """Jivecat, tuning split: a card's or a tile's rim catching the light peaks faintly at its
    very edge, where no printed mark lies (a face's marks stand a quarter of its width in):
    the count stays clear (a brown 4 was "pieces touching?", skull tiles "marks unclear")."""
    from committed_frames import read_right

    read_right(name, (spot,))


def test_a_dies_shaded_side_is_no_brown_piece() -> None:
    """Baron Voodoo, tuning split: a red die's side in shade is a dark red near brown, and
    the print beside it passes for brown's sheen; a patch touching a die is never taken for
    a brown piece under its sheen (C6 was read a brown token, sure)."""

    frame, _layout, reading = reading_of("tune", "baron_voodoo-t10-b1-more")
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert "C6" in doubtful or reading.view.get("C6") == frame.view.get("C6")


def _chip_board(reader: BoardReader, spot_id: str,
                top_bgr: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """The empty board flat with a chip's disc of ``top_bgr`` on a place, labelled as no
    colour and not the empty board; its box."""
    from companion.vision.geometry import MARGIN_MM
    from companion.vision.reading import UNKNOWN

    flat = reader._reference.copy()
    labels = np.full(flat.shape[:2], len(reader._piece_names), np.uint8)
    as_empty = np.ones(flat.shape[:2], bool)
    spot = reader.layout.spot(spot_id)
    cx, cy = int(spot.x + spot.w / 2 + MARGIN_MM), int(spot.y + spot.h / 2 + MARGIN_MM)
    disc = np.zeros(flat.shape[:2], np.uint8)
    cv2.circle(disc, (cx, cy), 8, 1, -1)
    flat[disc > 0] = top_bgr
    labels[disc > 0] = UNKNOWN
    as_empty[disc > 0] = False
    return flat, labels, as_empty, (slice(cy - 5, cy + 5), slice(cx - 5, cx + 5))


def test_a_chip_lit_pale_by_its_sheen_is_its_colour_and_a_fingertip_or_white_is_not() -> None:
    """A glossy chip under a broad lamp shows its colour mixed with the lamp's white over its
    top (a lilac blue, a pink red), its own colour only at a rim the blur mixes with the print:
    taken for the chip (``Classifying._sheen_lit_chips``).  A white chip keeps no such tint,
    and a fingertip's pale orange is a hand's skin as much as any chip's."""
    reader = reader_of("jivecat", 3)
    blue, red = reader._piece_names.index("blue"), reader._piece_names.index("red")

    def lit(colour: str, keep: float, white: float = 250.0) -> tuple[int, int, int]:
        bgr = reader._centroid_bgr[reader._piece_names.index(colour)]
        return tuple(int(round(keep * c + (1 - keep) * white)) for c in bgr)

    for colour, index in (("blue", blue), ("red", red)):
        flat, labels, as_empty, core = _chip_board(reader, "T25", lit(colour, 0.45))
        assert (reader._sheen_lit_chips(flat, labels, as_empty)[core] == index).all(), colour
    for top in ((238, 240, 242),  # a white chip, its light flattened
                lit("red", 0.08),  # white with the faintest warm cast
                (190, 212, 240)):  # a fingertip, lit
        flat, labels, as_empty, core = _chip_board(reader, "T25", top)
        assert (reader._sheen_lit_chips(flat, labels, as_empty) == labels).all(), top


@pytest.mark.parametrize("name, spots", [("jivecat-t00-b2", ("T26", "N02", "N03", "C28", "N01")),
                                         ("jivecat-t00-b0-more", ("T25", "T26"))])
def test_chips_under_a_broad_sheen_of_a_rendered_frame_are_read(name: str, spots: tuple[str, ...]) -> None:
    from committed_frames import read_right

    read_right(name, spots)


def _dark_tile_lit_at_its_edge(mark: tuple[int, int] | None) -> tuple[np.ndarray, np.ndarray]:
    """A black tile on a light print, blurred, its colour's outline reaching up into the blur
    of its top edge (a lit edge joined to the tile as its sheen), with a light mark or none."""
    gray = np.full((68, 68), 200, np.uint8)
    gray[12:58, 10:58] = 34
    if mark is not None:
        cv2.circle(gray, mark, 3, 220, -1)
    gray = cv2.GaussianBlur(gray, (0, 0), 2.0)
    mask = (gray < 60).astype(np.uint8)
    mask[7:14, 14:52] = gray[7:14, 14:52] < 190
    return gray, mask


def test_a_flat_pieces_edge_blurred_into_the_board_is_no_mark():
    """Where a dark flat piece's outline reaches into its edge's blur, the contrast rises on
    past the rim's inset out to the board: no mark (the tile was read as three unclear), and
    a mark anywhere on it, by the lit edge too, is still counted."""
    gray, mask = _dark_tile_lit_at_its_edge(None)
    assert count_pips(mask, gray) == (0, True)
    for mark in ((34, 35), (34, 22), (20, 22), (20, 48)):
        gray, mask = _dark_tile_lit_at_its_edge(mark)
        assert count_pips(mask, gray) == (1, True), mark


def test_a_skull_token_lit_at_its_edge_is_read_on_the_tuning_frames():
    from committed_frames import read_right

    read_right("jivecat-t20-b1", ("mat0-skull2",))  # "marks unclear" before


def test_a_sheen_that_washes_nothing_out_hides_no_mark():
    """A dark face under a broad sheen lifted to mid grey hides no light mark (the mark is
    lifted with it); one washed out to near white over a mark's width may."""
    from companion.vision.pips import outline, washes_out_a_mark

    crop = np.full((68, 68, 3), 34, np.uint8)
    mask = np.zeros((68, 68), np.uint8)
    mask[10:58, 10:58] = 1
    for x in range(10, 58):  # a sheen rising across the face to a mid grey
        crop[10:58, x] = 34 + (x - 10) * 2
    face = outline(mask)
    assert face is not None
    assert not washes_out_a_mark(crop, face)
    cv2.circle(crop, (45, 30), 6, (235, 240, 245), -1)  # its core washed out
    assert washes_out_a_mark(crop, face)


def test_a_skull_token_under_a_sheen_that_washes_nothing_out_is_read_on_the_tuning_frames():
    from committed_frames import read_right

    read_right("jivecat-t20-b0-more", ("mat1-skull2",))  # "glare?" before
