"""A hand paler than the print under it: the arm is seen short of its fingertip, and the shade
on the unseen fingertip is the colour of a black piece (issue 40's tuning ledger entry)."""

from __future__ import annotations

from committed_frames import reading_of

from companion.vision.reading import UNDER_A_HAND


def test_a_black_piece_where_a_pale_fingertip_lies_is_under_the_hand_not_read() -> None:
    frame, layout, reading = reading_of("tune", "swing_state-t10-b0-hand")
    assert reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert doubtful.get("r2-10-red") == UNDER_A_HAND  # the fingertip's shade, not a black pawn
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_without_a_hand_a_black_piece_is_read_as_before() -> None:
    """No arm over the board: the black pawns of a Swing State board are read, not doubted."""
    frame, _layout, reading = reading_of("tune", "swing_state-t10-b1")
    assert not reading.hand and reading.view is not None
    blacks = [spot for spot, held in frame.view.items() if any(p.colour == "black" for p in held)]
    assert blacks
    assert all(reading.view.get(spot) == frame.view.get(spot) for spot in blacks)


def test_a_glossy_papers_sheen_at_the_boards_edge_is_no_arm() -> None:
    """Jivecat, tuning split, 30 degrees, a desk lamp on silk paper: the lamp's broad sheen
    lifts the print at the board's near edge evenly and smoothly, over a hand's size, and no
    arm crosses the margin.  It is the board under a reflection, not a light sleeve: no hand,
    no place "under a hand or arm" (eight were, and the board was kept from the stabiliser),
    nothing read wrong."""
    frame, layout, reading = reading_of("tune", "jivecat-t30-b2")
    assert not frame.hand
    assert not reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert UNDER_A_HAND not in doubtful.values()
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_glossy_prints_sheen_washing_it_pale_at_the_boards_edge_is_no_sleeve() -> None:
    """Jivecat, tuning split's side scenes: a desk lamp's sheen on a gloss print washes the
    mats at the board's edge pale, over a hand's size, and no arm crosses the margin.  The
    print's lines show through it, faint: the board under a sheen ("glare?"), not a light
    sleeve reaching in (the frame was read as a hand over the board, its places under it)."""
    frame, layout, reading = reading_of("tune", "jivecat-t10-b0-side")
    assert not frame.hand and frame.truth["scene"]["paper"] == "gloss"
    assert not reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert UNDER_A_HAND not in doubtful.values() and "glare?" in doubtful.values()
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_the_board_under_a_near_lamps_light_shows_its_print_a_pale_sleeve_hides_it() -> None:
    """A lamp close to the table lights the board nearest it more than the light fitted to
    the margin gives it: a patch lighter than the empty board whose print's lines are all
    there is the board (not an arm reaching in), one that hides them (a pale sleeve, a
    white card) is not; under a glossy print's sheen they show faint, where the print has them."""
    import numpy as np

    from companion.games import load_game
    from companion.vision.arms import PRINT_FAINT, PRINT_THROUGH
    from companion.vision.reader import BoardReader

    game = load_game("swing_state")
    layout = game.layout(game.setup(3, None, 0))
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))
    ref = reader._reference
    x, y, w, h = 60, 200, 50, 110  # the board's left column, over printed tiles and their lines
    region = np.ones((h, w), bool)
    lit = np.clip(ref.astype(np.float32) * 1.3 + 10, 0, 255).astype(np.uint8)
    corr, share = reader._print_detail(region, x, y, lit)
    assert corr >= PRINT_THROUGH[0] and PRINT_THROUGH[1] <= share <= PRINT_THROUGH[2]  # the board
    sleeve = ref.copy()
    sleeve[y:y + h, x:x + w] = (228, 232, 238)
    corr, share = reader._print_detail(region, x, y, sleeve)
    assert corr < PRINT_FAINT[0] and share < PRINT_FAINT[1]  # no print shows, not even faintly
    rng = np.random.default_rng(2)
    noisy = np.clip(sleeve.astype(np.float32) + rng.normal(0, 4, sleeve.shape), 0, 255).astype(np.uint8)
    corr, share = reader._print_detail(region, x, y, noisy)
    assert corr < PRINT_FAINT[0]
    # a glossy print's sheen washing it pale: its lines faint but where the print has them
    sheen = ref.astype(np.float32) * 0.15 + 200 + rng.normal(0, 3, ref.shape)
    corr, share = reader._print_detail(region, x, y, np.clip(sheen, 0, 255).astype(np.uint8))
    assert corr >= PRINT_FAINT[0] and share >= PRINT_FAINT[1] and share < PRINT_THROUGH[1]


def test_a_bulb_near_the_table_lights_its_side_of_the_board_and_is_no_arm() -> None:
    """Swing State, tuning split's more scenes, 30 degrees: a bare bulb low on the left lights
    that side of the board far more than the margin's fit says; no arm crosses the margin.
    The lighter board shows its print, so no hand and no place "under a hand or arm" (38
    were), and nothing read wrong."""
    frame, layout, reading = reading_of("tune", "swing_state-t30-b2-more")
    assert not frame.hand and frame.truth["scene"]["lamp"] == "bulb"
    assert not reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert UNDER_A_HAND not in doubtful.values()
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_a_sheen_lifting_a_dark_print_just_past_the_tolerance_hides_nothing() -> None:
    """A lamp's sheen over Swing State's dark labels lifts them a little past what the empty
    board explains (about 27, 18 and 15 levels): read as "glare?" over empty places, it left
    two tuning frames doubted.  A patch so near the print and far from every piece's colour
    is the print; the same stray towards white over a pale print is what a small white chip
    shows, and stays in doubt; a piece's own colour is no faint stray at all."""
    import numpy as np

    from companion.games import load_game
    from companion.vision.empty_board import EMPTY_TOLERANCE
    from companion.vision.reader import BoardReader

    for name in ("swing_state-t20-b1-more", "swing_state-t20-b1-falloff"):
        frame, layout, reading = reading_of("tune", name)
        assert reading.view is not None and not reading.doubtful, name
        assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots), name

    game = load_game("swing_state")
    layout = game.layout(game.setup(3, None, 0))
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))
    ref = reader._reference
    dark = np.flatnonzero((np.abs(ref.astype(np.int16) - (80, 105, 125)) <= 3).all(axis=2).ravel())
    pale = np.flatnonzero((np.abs(ref.astype(np.int16) - (175, 206, 220)) <= 3).all(axis=2).ravel())
    assert len(dark) and len(pale)

    def faint(at: int, lift: tuple[int, int, int]) -> bool:
        y, x = divmod(int(at), ref.shape[1])
        components = np.zeros(ref.shape[:2], np.int32)
        components[y:y + 3, x:x + 3] = 1
        flat = ref.astype(np.int16)
        flat[y:y + 3, x:x + 3] += lift
        box = np.array([x, y, 3, 3, 9])
        return reader._faint_stray(np.clip(flat, 0, 255).astype(np.uint8), components, 1, box)

    at_dark = next(i for i in dark if (np.abs(ref[i // ref.shape[1]:i // ref.shape[1] + 3,
                                                  i % ref.shape[1]:i % ref.shape[1] + 3].astype(np.int16)
                                              - (80, 105, 125)) <= 3).all())
    at_pale = next(i for i in pale if (np.abs(ref[i // ref.shape[1]:i // ref.shape[1] + 3,
                                                  i % ref.shape[1]:i % ref.shape[1] + 3].astype(np.int16)
                                              - (175, 206, 220)) <= 3).all())
    assert faint(at_dark, (27, 18, 15))  # the sheen on the dark labels
    assert not faint(at_dark, (2 * EMPTY_TOLERANCE, 0, 0))  # further: not the print
    assert not faint(at_pale, (17, 11, 8))  # a white chip's blurred edge over the pale print
    assert not faint(at_dark, (-40, -60, 80))  # a red piece's colour
