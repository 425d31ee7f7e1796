"""A glossy chip whose colour has rivals, lit pale by a lamp (stop 113).  Baron Voodoo's orange
offerings under the physically based frames' lamps show pale orange tops; orange's way is all
but brown's and a hand's skin's (``CHIP_RIVAL_COSINE``), so the sheen-lit chip check passed them
by and they were asked as "something over it" (8 places on the tuning frames at 720p).  Lit so,
the place tells which of the rivals it is: an offering's place holds only orange.  A place
that may hold two of them, or a patch beside a piece of theirs, stays asked."""

from __future__ import annotations

import dataclasses

import pytest
from committed_frames import read_right, reading_of

from companion.bench.vision3d import frame_layout
from companion.games.base import Piece
from companion.sim.camera.frames3d import committed
from companion.vision.arms import OVER
from companion.vision.reader import BoardReader

STEM = "baron_voodoo-t10-b0"


def test_a_chip_with_rivals_is_one_group_with_them_and_a_chip_without_is_alone() -> None:
    layout, colours = frame_layout("baron_voodoo", 3)
    reader = BoardReader(layout, colours=colours)
    chips = reader._lit_chip_table()
    assert chips is not None
    names = list(reader._piece_names)
    orange, brown, cyan = (names.index(n) for n in ("orange", "brown", "cyan"))
    group = int(chips.group_of[orange])
    assert chips.group_of[brown] == group and chips.group_of[-1] == group  # (the last way: skin's)
    assert sorted(chips.pieces[group]) == sorted([orange, brown]) and chips.with_rivals[group + 1]
    assert chips.pieces[int(chips.group_of[cyan])] == (cyan,)
    assert not chips.with_rivals[int(chips.group_of[cyan]) + 1]


@pytest.mark.parametrize(("stem", "spots"), [(STEM, ("offer0-1", "offer0-2")),
                                             ("baron_voodoo-t00-b1", ("offer0-1", "offer1-2"))])
def test_an_offering_lit_pale_is_read_as_its_orange(stem: str, spots: tuple[str, ...]) -> None:
    frame, _layout, _reading = reading_of("tune", stem)
    assert all(frame.view[spot] == (Piece("orange", 0),) for spot in spots)
    read_right(stem, spots)


def test_a_place_that_may_hold_two_of_the_rivals_is_still_asked() -> None:
    """The same frame with the offering's place taking brown too: which rival it is, lit so,
    no place tells, and it is asked as before."""
    frame = next(f for f in committed() if f.split == "tune" and f.path.stem == STEM)
    layout, colours = frame_layout(frame.game, int(frame.truth["players"]))
    spots = tuple(dataclasses.replace(s, takes=frozenset({"orange", "brown"})) if s.id == "offer0-1" else s
                  for s in layout.spots)
    reading = BoardReader(dataclasses.replace(layout, spots=spots), colours=colours,
                          lens=frame.lens).read(frame.image())
    assert reading.view is not None
    assert reading.doubtful.get("offer0-1") == OVER
