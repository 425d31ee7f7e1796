"""A piece's cast shadow on the empty board is light, not a thing (``cast_shadow``): the print
dimmed alike in every channel, its detail still showing, with a piece near enough to cast it.
A dark piece, a hand's colour, or a patch with no caster stays in doubt."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from committed_frames import read_right

from companion.vision.cast_shadow import SHADOW_REACH_MM, cast_shadow, missed_light
from companion.vision.empty_board import EMPTY_TOLERANCE, EmptyBoard
from companion.vision.reading import SCALE

BOARD = np.array([175, 205, 220], np.float32)  # the print's beige (BGR)


def _judge(seen: np.ndarray, reference: np.ndarray, caster_gap: int | None = 4) -> bool:
    """The patch rows 20-39, columns 20-39 of ``seen`` judged against ``reference``, a piece's
    blob ``caster_gap`` px to its right (None: no piece at all)."""
    components = np.zeros(reference.shape[:2], np.int32)
    components[20:40, 20:40] = 1
    blobs = np.zeros(reference.shape[:2], np.int32)
    if caster_gap is not None:
        blobs[20:40, 40 + caster_gap:56 + caster_gap] = 1
    detail = SimpleNamespace(_reference=reference)
    return cast_shadow(seen, reference, components, 1, np.array([20, 20, 20, 20, 400]), blobs,
                       lambda region, x, y, flat: EmptyBoard._print_detail(detail, region, x, y, flat))


def _board(lines: bool = False) -> np.ndarray:
    board = np.tile(BOARD, (100, 100, 1))
    if lines:  # a printed line every 6 px: detail the shadow must keep
        board[:, ::6] *= 0.55
    return board.astype(np.uint8)


def _dimmed(reference: np.ndarray, by: tuple[float, float, float]) -> np.ndarray:
    seen = reference.astype(np.float32).copy()
    seen[20:40, 20:40] *= np.array(by, np.float32)
    return np.clip(seen, 0, 255).astype(np.uint8)


def test_the_board_dimmed_alike_beside_a_piece_is_its_shadow() -> None:
    plain, lined = _board(), _board(lines=True)
    assert _judge(_dimmed(plain, (0.8, 0.8, 0.8)), plain)
    assert _judge(_dimmed(lined, (0.7, 0.72, 0.7)), lined)  # the print's lines show through it


def test_a_dark_piece_a_tinted_patch_or_no_caster_is_no_shadow() -> None:
    plain, lined = _board(), _board(lines=True)
    assert not _judge(_dimmed(plain, (0.15, 0.15, 0.15)), plain)  # darker than a shadow: a black piece
    assert not _judge(_dimmed(plain, (0.6, 0.75, 0.95)), plain)  # a hand's warmth, not the board dimmed
    assert not _judge(_dimmed(plain, (0.8, 0.8, 0.8)), plain, caster_gap=None)  # nothing casts it
    far = int(SHADOW_REACH_MM * SCALE) + 2
    assert not _judge(_dimmed(plain, (0.8, 0.8, 0.8)), plain, caster_gap=far)
    flat_over_lines = lined.copy()
    flat_over_lines[20:40, 20:40] = (BOARD * 0.7).astype(np.uint8)  # the lines hidden: a thing over it
    assert not _judge(flat_over_lines, lined)
    spotted = _dimmed(plain, (0.8, 0.8, 0.8))
    spotted[22:38, 22:30] = (60, 90, 140)  # another colour inside it
    assert not _judge(spotted, plain)


def test_the_dice_shadows_on_empty_places_are_read_through() -> None:
    # Baron Voodoo from straight above under a low lamp: the dice's shadows on empty places
    # A7, C6 and D2 were "something over it (a hand, a shadow)?"
    read_right("baron_voodoo-t00-b0-falloff", ("A7", "C6", "D2"))


# light the fit missed (``missed_light``): a pale surface (cream) set in a darker one (tan)
CREAM = np.array([190, 225, 235], np.float32)
TAN = np.array([110, 150, 175], np.float32)
PIECES = np.array([[40, 40, 200], [200, 90, 40], [235, 235, 235]], np.float32)  # red, blue, white (BGR)


Light = tuple[float, float, float]


def _print_in_light(by: Light, around: Light) -> tuple[np.ndarray, ...]:
    """A cream patch (rows and columns 20-39) in a tan print, the cream lit ``by`` times the
    fitted light and the tan round it ``around`` times; (seen, reference, components, box)."""
    reference = np.tile(TAN, (60, 60, 1))
    reference[20:40, 20:40] = CREAM
    seen = reference * np.array(around, np.float32)
    seen[20:40, 20:40] = CREAM * np.array(by, np.float32)
    components = np.zeros((60, 60), np.int32)
    components[20:40, 20:40] = 1
    box = np.array([20, 20, 20, 20, 400])
    return np.clip(seen, 0, 255).astype(np.uint8), reference.astype(np.uint8), components, box


def _missed(seen: np.ndarray, reference: np.ndarray, components: np.ndarray, box: np.ndarray) -> bool:
    no_pieces = np.zeros(components.shape, np.int32)
    return missed_light(seen, reference, components, 1, box, no_pieces, PIECES, EMPTY_TOLERANCE, 12.0)


def test_a_print_lit_as_the_print_round_it_is_light_the_fit_missed() -> None:
    # a reading lamp's pool with a sharp rim: the cream 14 % past the fit, the tan round it as
    # much (within the empty board's tolerance there), or both dimmed by a tenth
    assert _missed(*_print_in_light((1.14, 1.13, 1.04), (1.13, 1.12, 1.05)))
    assert _missed(*_print_in_light((0.88, 0.88, 0.86), (0.9, 0.89, 0.87)))


def test_a_patch_lit_unlike_the_print_round_it_is_a_thing() -> None:
    # the print round it as fitted: whatever lifts or dims the cream alone is on it
    assert not _missed(*_print_in_light((1.14, 1.13, 1.04), (1.0, 1.0, 1.0)))
    assert not _missed(*_print_in_light((0.8, 0.8, 0.8), (1.0, 1.0, 1.0)))  # (a shadow with no caster)
    # lit far past any lamp's pool the fit could miss: a reflection's, judged as glare
    assert not _missed(*_print_in_light((1.5, 1.5, 1.45), (1.5, 1.5, 1.45)))


def test_a_piece_on_a_print_under_light_the_fit_missed_is_a_thing() -> None:
    # (and where a piece passes for the print, the print round a patch may be that piece:
    # ``Arms._missed_light`` does not ask, ``test_vision_hotspot``'s narrow patches)
    seen, reference, components, box = _print_in_light((1.1, 1.1, 1.05), (1.1, 1.1, 1.05))
    chip = seen.copy()
    chip[24:36, 24:36] = (60, 60, 215)  # a red chip within the lit cream
    assert not _missed(chip, reference, components, box)
    # a white chip filling the patch, where the tan round it is lit alike: its colour is a piece's
    white = seen.copy()
    white[20:40, 20:40] = np.clip(np.array([235, 235, 235]) * np.array([1.1, 1.1, 1.05]), 0, 255)
    assert not _missed(white, reference, components, box)


def test_a_reading_lamps_pool_leaves_no_place_in_doubt() -> None:
    # Swing State under a reading lamp to one side: its pool's rim left the rings' pale spaces
    # a seventh lighter than the fit, or a tenth darker, the spaces round them alike within
    # the empty board's tolerance: "glare?" and "something over it" on 60 empty places
    read_right("swing_state-t30-b0-side", ("r1-01-blue", "r1-02-blue", "r2-04-blue", "r2-06-blue"))
    read_right("swing_state-t10-b2-side", ("r1-22-blue", "r2-16-blue", "r3-11-blue", "r3-14-blue"))
