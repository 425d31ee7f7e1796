"""A hand paler than the print under it: the arm is seen short of its fingertip, and the shade
on the unseen fingertip is the colour of a black piece (issue 40's tuning ledger entry)."""

from __future__ import annotations

from companion.games import load_game
from companion.sim.camera.frames3d import committed
from companion.vision.reader import BoardReader
from companion.vision.reading import UNDER_A_HAND


def _read(split: str, stem: str):
    frame = next(f for f in committed() if f.split == split and f.path.stem == stem)
    game = load_game(frame.game)
    layout = game.layout(game.setup(int(frame.truth["players"]), None, 0))
    camera = frame.truth["camera"]
    lens = {"matrix": camera["matrix"], "distortion": camera["distortion"], "size": camera["size"],
            "rms_px": 0.0, "photos_used": 0}
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))), lens=lens)
    return frame, layout, reader, reader.read(frame.image())


def test_a_black_piece_where_a_pale_fingertip_lies_is_under_the_hand_not_read() -> None:
    frame, layout, _reader, reading = _read("tune", "swing_state-t10-b0-hand")
    assert reading.hand and reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert doubtful.get("r2-10-red") == UNDER_A_HAND  # the fingertip's shade, not a black pawn
    assert all(reading.view.get(s.id, ()) == frame.view.get(s.id, ()) for s in layout.spots
               if s.id not in doubtful)


def test_without_a_hand_a_black_piece_is_read_as_before() -> None:
    """No arm over the board: the black pawns of a Swing State board are read, not doubted."""
    frame, _layout, _reader, reading = _read("tune", "swing_state-t10-b1")
    assert not reading.hand and reading.view is not None
    blacks = [spot for spot, held in frame.view.items() if any(p.colour == "black" for p in held)]
    assert blacks
    assert all(reading.view.get(spot) == frame.view.get(spot) for spot in blacks)
