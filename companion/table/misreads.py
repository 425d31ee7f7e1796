"""A reading the rules refuse, read with one piece otherwise: a mark off, or in another colour.

The camera is unsure of a piece's marks or colour under glare or a warm lamp; where the
reading it has is refused (or a press the table does not match), each legal move that such
a reading one piece off shows is offered to the players, who see the table, to tap.  Pure
functions over the game's rules: the words and the ways out are
:mod:`companion.table.disagreement`'s.
"""

from __future__ import annotations

from dataclasses import replace

from companion.games.base import Action, BoardView, Game, State, Tap, Trigger
from companion.reconcile import changed_places, reconcile
from companion.table.search import SHOWN, key

ONE_OFF_PLACES = 12  # differing places whose pieces are read one piece off, for a refused reading


def one_off(game: Game, state: State, seen: BoardView, taps: list[Tap],
            trigger: Trigger) -> dict[str, tuple[Action, tuple[str, ...], str]]:
    """A reading the rules refuse, read with one piece at one place a mark off (a card
    misread by glare: Nightclubs 6, 6, 7, 4, where the pile has one 6, for 6, 5, 7, 4) or in
    another of the colours such pieces have on the table (a pawn's blue read red under a
    warm lamp): each legal move one such reading shows (by :func:`key`), with the places read
    otherwise for it and how ("by one", "in its colour").  The camera is unsure which: the
    players, who see the table, tap the one it shows.  King of Clubs seed 13, cafe:
    Nightclub 2 read a pip high all evening; night 5's reading was refused with no reading
    to tap, and the game wedged.  Swing State seed 13, cafe, typical: Blue's pawn read red
    where it landed; "Red moves" was refused (Blue's turn) with no reading to tap, and the
    game wedged.  A reading is offered only where the move it shows leaves the place as
    read so: King of Clubs seed 17, cafe, typical: a Move card on A's Dancer whose tap was
    lost, the white read "in its colour" as a Dancer's 1 explained a pass (no Move card
    seen), and the pass tapped set the camera's reading there aside: the Move card the record
    lacked was never warned about again."""
    board = game.board_view(state)
    # the colours each kind of piece (by its marks) has on the table or in the record
    colours: dict[int, set[str]] = {}
    for view in (board, seen):
        for stack in view.values():
            for piece in stack:
                colours.setdefault(piece.pips, set()).add(piece.colour)
    out: dict[str, tuple[Action, tuple[str, ...], str]] = {}
    for place in sorted(changed_places(board, seen))[:ONE_OFF_PLACES]:
        if game.score_place(place):
            continue
        stack = tuple(seen.get(place, ()))
        for index, piece in enumerate(stack):
            others = [replace(piece, pips=pips) for pips in (piece.pips - 1, piece.pips + 1)
                      if piece.pips > 0 and pips > 0]
            others += [replace(piece, colour=colour)
                       for colour in sorted(colours.get(piece.pips, set()) - {piece.colour})]
            for other in others:
                read = (*stack[:index], other, *stack[index + 1:])
                verdict = reconcile(game, state, {**seen, place: read}, list(taps), trigger)
                if verdict.action is None or verdict.state is None \
                        or tuple(game.board_view(verdict.state).get(place, ())) != read:
                    continue  # a move that leaves the place otherwise: the reading explains it not
                how = "by one" if other.colour == piece.colour else "in its colour"
                action, places, _ = out.get(key(verdict.action), (verdict.action, (), how))
                out[key(action)] = action, tuple(sorted({*places, place})), how
    return dict(list(out.items())[:SHOWN])
