"""A die's count the reader is sure of only where its marks are the count's face.

A 2's pips are a face's opposite corners, a 3's those and the middle.  Two marks only half
that far apart are a corner and the middle of a 3 (or of a 5) whose other corner went with
its corner's colour under a lamp's sheen: counted, they make a confident 2 of a 3 (issue
40's silent misread class), so the count is no clear one (``pips._a_pip_half_seen``).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from committed_frames import read_committed

import companion.vision.piece_marks as piece_marks
from companion.vision.geometry import MARGIN_MM
from companion.vision.pips import DIE_FACES, _a_pip_half_seen
from companion.vision.reading import SCALE

FACE_PX = 64.0  # a 16 mm die at 4 px a mm
STEP = 0.27 * FACE_PX


def _contrast(points: np.ndarray, size: int = 120) -> np.ndarray:
    out = np.zeros((size, size), np.float32)
    for x, y in points:
        cv2.circle(out, (int(round(x)), int(round(y))), 4, 1.0, -1)
    return cv2.GaussianBlur(out, (0, 0), 2.0)


def _face(pips: int, turn_deg: float) -> np.ndarray:
    t = np.deg2rad(turn_deg)
    rotation = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return np.array(DIE_FACES[pips], np.float64) @ rotation.T * STEP + 60.0


@pytest.mark.parametrize("turn", [0.0, 30.0, 45.0, 110.0])
def test_a_corner_and_the_middle_are_no_clear_two(turn: float) -> None:
    """A 3 with one corner lost leaves its middle and a corner: no clear count; a 2's two
    corners, and a 3's three marks, with nothing between them, are."""
    three = _face(3, turn)
    corner_and_middle = three[1:]
    assert _a_pip_half_seen(corner_and_middle, FACE_PX, _contrast(corner_and_middle))
    two = _face(2, turn)
    assert not _a_pip_half_seen(two, FACE_PX, _contrast(two))
    assert not _a_pip_half_seen(three, FACE_PX, _contrast(three))


def _counts_at(monkeypatch: pytest.MonkeyPatch, stem: str) -> tuple[dict, object, object]:
    """Read the tuning frame ``stem``, keeping each die's count (and whether it was sure) by
    the place its crop was taken at."""
    counted: dict[str, list[tuple[int, bool]]] = {}
    place: list[str | None] = [None]
    count_pips, read_pips = piece_marks.count_pips, piece_marks.PieceMarks._read_pips

    def reading_pips(self, frame, index, bx, by, bw, bh, *rest, **named):  # type: ignore[no-untyped-def]
        x, y = (bx + bw / 2) / SCALE - MARGIN_MM, (by + bh / 2) / SCALE - MARGIN_MM
        place[0] = next((s.id for s in self.layout.spots if s.x <= x <= s.x + s.w and s.y <= y <= s.y + s.h),
                        None)
        return read_pips(self, frame, index, bx, by, bw, bh, *rest, **named)

    def counting(*args, **named):  # type: ignore[no-untyped-def]
        result = count_pips(*args, **named)
        counted.setdefault(place[0] or "?", []).append(result)
        return result

    monkeypatch.setattr(piece_marks.PieceMarks, "_read_pips", reading_pips)
    monkeypatch.setattr(piece_marks, "count_pips", counting)
    frame, layout, _reader, reading = read_committed("tune", stem)
    return counted, frame, reading


@pytest.mark.parametrize(("stem", "spot"), [("baron_voodoo-t00-b0-hand", "C2"), ("baron_voodoo-t10-b1", "F7"),
                                            ("baron_voodoo-t10-b0", "souls0-1")])
def test_a_four_or_five_with_pips_lost_is_never_counted_a_sure_two_or_three(
        monkeypatch: pytest.MonkeyPatch, stem: str, spot: str) -> None:
    """Tuning frames' dice (a 4, a 5, a 5) whose pips a lamp's sheen took with part of the
    colour, leaving marks half a face's diagonal apart, were counted a sure 2 or 3 (other
    checks doubted them after): they are no sure count, and nothing on the board is wrong."""
    counted, frame, reading = _counts_at(monkeypatch, stem)
    truth = frame.view.get(spot)
    assert truth and truth[0].pips >= 4 and counted.get(spot)
    assert all(not sure or pips == truth[0].pips for pips, sure in counted[spot]), counted[spot]
    assert reading.view is not None
    doubtful = dict(reading.doubtful or {})
    assert all(reading.view.get(s, ()) == frame.view.get(s, ()) for s in frame.view if s not in doubtful)
