"""Moves made around a press: two moves with one press (the first's press forgotten), a
held press whose board shows the next move under way, a move ended without its press.  Pure
functions over the game's rules, the table and the cards tapped: which move each card belongs
to, where each seat's cards are read on its own reader, is told by where it was tapped."""

from __future__ import annotations

from companion.games.base import Action, BoardView, Game, State, Tap
from companion.reconcile import NextMoves, changed_places, reconcile, tally_mismatch
from companion.table.search import MANY, differing, key

FIRST_MOVES_LISTED = MANY * 10
"""The most legal moves a first of two moves is looked for among: a Baron Voodoo turn's
start has about 175 (captures, and each Deity's power on every line and edge), of which
the few that change a differing place are tried (at most ``MANY * 3``).  Cut at 120 legal
moves, a capture whose press a resting hand held, then the captured die's Swap and its
press, was never offered as two moves (Baron Voodoo seed 6, cafe, passive: wedged)."""
HELD_PRESS = "press"  # the notice shown while a press waits for the camera to settle
HELD_PRESS_TEXT = "Press noted: it counts once the camera sees the table clear of hands."
HELD_PRESS_ASKED_TEXT = "Press noted: it counts as the move you tap where the camera can't read the table."
"""The held press's notice while the camera cannot read a place and the players are asked
which move the table shows (:mod:`companion.table.doubt`): the camera will not settle on
its own, so "once the camera sees the table clear of hands" would send them waiting."""


def two_moves(game: Game, state: State, seen: BoardView, taps: list[Tap],
              differ: set[str], next_moves: NextMoves | None = None) -> list[Action]:
    """A press forgotten: the table shows two moves since the record.  The one legal move
    now, changing places that differ, after which one legal move shows the table exactly
    (the second is recorded by the press judged again); [] for none or several.  The first
    may change places the second puts back as they were (a night cleared, the same
    Nightclubs laid again)."""
    found = [first for first, counts in first_moves(game, state, seen, taps, differ, next_moves)
             if tapped_first(game, state, first, taps, counts)]
    return found if len(found) == 1 else []


def tapped_first(game: Game, state: State, first: Action, taps: list[Tap],
                 counts: list[int] | None = None) -> bool:
    """Whether the cards read support ``first`` as a move made before the next: the board
    it leaves reads as it with the cards tapped first (none, for a move made without
    cards; ``counts``: how many may be its, every number when not given), and where readers
    hold only their seat's cards (:attr:`Game.own_readers`) those are on the first mover's
    reader and the rest on the next mover's (:func:`seat_splits`).  A move whose card no
    reader read is a guess, never offered: Times Square, cafe, seed 8: B's Deb moved 2 then
    3 with only the second card read was offered as "B plays Deb 2 ..., then another", a
    move nobody made."""
    return first_cards(game, state, first, taps, counts) is not None


def first_cards(game: Game, state: State, first: Action, taps: list[Tap],
                counts: list[int] | None = None) -> int | None:
    """How many of ``taps`` (the first ones) read ``first`` on the board it leaves, split
    as :func:`seat_splits` allows (and among ``counts`` when given); None when no split does."""
    after = game.apply(state, first)
    board = game.board_view(after)
    for count in seat_splits(game, state, after, taps):
        if counts is not None and count not in counts:
            continue
        if reconcile(game, state, board, list(taps[:count]), "button").state == after:
            return count
    return None


def seat_splits(game: Game, state: State, after: State, taps: list[Tap]) -> list[int]:
    """How many of ``taps`` (the first ones) may be the cards of the move from ``state`` to
    ``after``, the rest the next move's: any number, except where readers hold only their
    seat's cards (:attr:`Game.own_readers`): there the first ones lie on that move's mover's
    reader and the rest on the next mover's (the shared reader's, seat None, on either)."""
    if not game.own_readers:
        return list(range(len(taps) + 1))
    movers = game.current_player(state), game.current_player(after)
    return [count for count in range(len(taps) + 1)
            if all(t.seat in (None, movers[0]) for t in taps[:count])
            and all(t.seat in (None, movers[1]) for t in taps[count:])]


def first_moves(game: Game, state: State, seen: BoardView, taps: list[Tap],
                differ: set[str], next_moves: NextMoves | None = None,
                later: bool = False) -> list[tuple[Action, list[int]]]:
    """Every legal move now, changing places that differ, after which one legal move shows
    the table exactly (:func:`two_moves`), each with how many of ``taps`` (the first ones)
    may be its cards while the rest read the second.  Where readers hold only their seat's
    cards (:attr:`Game.own_readers`) the second is read only from cards on its mover's
    reader or the shared one (Times Square seed 17, cafe, passive: B's move whose press was
    forgotten, then A's trade on the shared reader and A's press, was read with B's card as
    part of A's move, no move, and nothing recorded B's); elsewhere from every card, as a
    reader there takes any seat's.  ``later``: every one of ``taps`` is the second's (the
    cards tapped after a held press, :func:`press_then_next`)."""
    actions = (next_moves or NextMoves()).of(game, state, FIRST_MOVES_LISTED)
    if len(actions) > FIRST_MOVES_LISTED:
        return []
    board = game.board_view(state)
    tried = []
    for action, after in actions:
        if after is None:
            continue
        moved = {p for p in changed_places(board, game.board_view(after)) if not game.score_place(p)}
        if moved & differ:
            tried.append((action, after))
    if len(tried) > MANY * 3:
        return []
    found: dict[str, tuple[Action, list[int]]] = {}
    for action, after in tried:
        splits = seat_splits(game, state, after, taps) if game.own_readers else [0]
        counts = []
        for count in [c for c in splits if c == 0] if later else splits:
            verdict = reconcile(game, after, seen, list(taps[count:]), "button")
            if verdict.state is not None and not differing(game, verdict.state, seen) \
                    and tally_mismatch(game, verdict.state, seen) is None:
                counts.append(count)
        if counts:
            found[key(action)] = (action, counts if game.own_readers else list(range(len(taps) + 1)))
    return list(found.values())


def press_then_next(game: Game, state: State, seen: BoardView, earlier: list[Tap], later: list[Tap],
                    next_moves: NextMoves | None = None) -> Action | None:
    """A press held while the camera could not see, judged on a board that shows its move and
    the next one under way (``later``: the cards tapped since the press).  The one legal move
    that the press with its own cards (``earlier``) reads from the board it leaves, after which
    the later cards and the board explain one legal move exactly; None for none or several."""
    differ = differing(game, state, seen)
    found = []
    for first, _counts in first_moves(game, state, seen, later, differ, next_moves, later=True):
        after = game.apply(state, first)
        read = reconcile(game, state, game.board_view(after), list(earlier), "button")
        if read.state is not None and read.state == after:
            found.append(first)
    return found[0] if len(found) == 1 else None


def ended_unpressed(game: Game, state: State, seen: BoardView | None, taps: list[Tap],
                    seat: int | None) -> tuple[Action, State] | None:
    """A card on ``seat``'s reader while the record still waits for the move before it: where
    readers hold only their seat's cards (:attr:`Game.own_readers`), that move ended without its
    press.  The move (and the state it leaves) when the cards tapped so far, all on the mover's
    reader (none, for a move made without cards: Champagne Charlie's), and the board explain
    exactly one legal move that leaves the table as the record and passes the turn to
    ``seat``; None otherwise (the later press asks).  (Times Square seed 13, cafe, passive: B's
    Charlie, knocked a space back as B pressed, was recorded a space short; A's move put him
    back and on, so the record still waited for A's Charlie when B tapped, and every press
    after it was refused: the game wedged.)"""
    mover = game.current_player(state)
    if not game.own_readers or seat is None or mover is None or seat == mover or seen is None \
            or any(t.seat != mover for t in taps):
        return None
    verdict = reconcile(game, state, seen, list(taps), "button")
    if verdict.action is None or verdict.state is None \
            or game.current_player(verdict.state) != seat or differing(game, verdict.state, seen):
        return None
    return verdict.action, verdict.state


def second_taps(game: Game, state: State, first: Action, taps: list[Tap]) -> list[Tap] | None:
    """The cards of ``taps`` that are the second of two moves once the players recorded the
    first, ``first`` (from ``state``): those after the first ones that read it on the board
    it leaves, on their seats' readers as :func:`seat_splits` says.  None when no split reads
    it (the players declared another move than the one asked about)."""
    count = first_cards(game, state, first, taps)
    return None if count is None else list(taps[count:])
