"""Baron Voodoo and Swing State under a cafe's faults: one regression test per wedge cause
found on the bench (issue 39, ``companion bench truth --faults cafe``).

Scripted boards on the real rules and the table's own pieces; no simulated world, no camera.
"""

from __future__ import annotations

from companion.games import load_game
from companion.games.baron_voodoo.board import track_place
from companion.games.base import BoardView, Piece, State
from companion.table.disagreement import Overrides


def baron_at(vp: int) -> tuple[State, BoardView]:
    """A Baron Voodoo game set up, Mami Wata's side at ``vp``: the record and its board."""
    game = load_game("baron_voodoo")
    name = sorted(game.facts.layouts)[0]
    board = {cell: [list(die)] for cell, die in game.facts.layouts[name].items()}
    state = game.apply(game.setup(2, None, 8), {"type": "setup", "layout": name, "board": board})
    state = {**state, "vp": [vp, *state["vp"][1:]]}
    return state, game.board_view(state)


def test_a_knocked_score_marker_set_aside_is_not_drawn_at_its_old_place_after_it_moves() -> None:
    """Baron Voodoo seed 8, cafe, typical: the score marker was knocked from 9 onto 10 and the
    players said the record was right (9).  The next move took the marker from 10 to 12; the
    camera read 9 empty, as before, so the set-aside there stood and drew a second marker at
    9: every press after it was refused, and "the record is right" tapped 485 times ran the
    game over budget.  Seen where the record had it (10 empty), the decision ends whole."""
    game = load_game("baron_voodoo")
    at9, record9 = baron_at(9)
    nine, ten, twelve = track_place(0, 9), track_place(0, 10), track_place(0, 12)
    assert record9.get(nine) and not record9.get(ten)
    knocked = dict(record9)
    knocked[ten] = knocked.pop(nine)
    overrides = Overrides()
    assert overrides.keep(game, at9, knocked) == sorted([nine, ten])
    assert overrides.apply(knocked) == record9  # the knocked marker read where it belongs

    _, moved = baron_at(12)  # the move made on the table, not yet recorded
    seen = overrides.apply(moved)  # the record has not moved yet: the marker read at 12 alone
    assert seen == moved and not seen.get(nine) and seen.get(twelve)
    assert overrides.places == {}


def test_a_place_read_otherwise_ends_only_its_own_set_aside() -> None:
    """A place of the decision read as neither the camera read it then nor the record had it
    (a stack changed by another move) is read afresh alone: the rest of the decision stands
    while the camera still reads it so."""
    game = load_game("baron_voodoo")
    at9, record9 = baron_at(9)
    nine, ten = track_place(0, 9), track_place(0, 10)
    knocked = dict(record9)
    knocked[ten] = knocked.pop(nine)
    cell = next(p for p in sorted(record9) if p in game.facts.coord)
    other = dict(record9)
    other.pop(cell)  # a die the camera misread as gone, set aside with the marker
    other[ten] = other.pop(nine)
    overrides = Overrides()
    overrides.keep(game, at9, other)
    assert set(overrides.places) == {nine, ten, cell}
    changed = dict(other)
    die = record9[cell][0]
    changed[cell] = (Piece(die.colour, die.pips % 6 + 1),)
    seen = overrides.apply(changed)
    assert set(overrides.places) == {nine, ten}
    assert seen.get(nine) == record9[nine] and not seen.get(ten) and seen[cell] == changed[cell]
