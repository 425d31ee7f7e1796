"""A way out of every disagreement between the table and the record, for a person.

When what the camera sees differs from the record and no legal move explains it, the
players are told where (the place's printed name, what the table shows there, what the
record has) and offered each way out as one tap:

- the correction of the entry that explains it (searched among the older entries, not only
  the newest): a re-reading of that entry from what the table shows, or another value of
  it after which the table and the score pieces are as the record would then have them;
  the moves since stand (``{"type": "correct", "entry": seq, "action": ...}``);
- the newest entry taken back, when the table recorded it and the record without it is the
  table: a move nobody made (``{"type": "undo", "seq": seq}``);
- "the record is right, the table is wrong: I'll set it as the record says"
  (``{"type": "keep_record"}``): the camera's reading of those places is set aside until it
  reads something else there (a piece put back, a camera that misreads one place all
  evening); logged as a line of the history that moves no move, so a restart sets the same
  readings aside where the record still has what it had;
- "read the table again" (``{"type": "reread"}``): the correction the camera's view now
  explains, logged as a correction of that entry (one decision), replayed the same after a
  restart.

It never asks players to copy onto the table a value it is unsure of: the record's value
is named only as what the record has, beside what the table shows, for the players to judge.
Pure functions over the game's rules; :class:`Overrides` is the referee's small state.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations

from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Piece,
    Prompt,
    RuleError,
    State,
    Tap,
    Trigger,
)
from companion.reconcile import (
    NextMoves,
    RecordedMove,
    changed_places,
    place_names,
    reconcile,
    reread,
    tally_mismatch,
)
from companion.table.ledger import UNSURE, HistoryEntry, Ledger, NothingToUndo, canonical

NOT_READ = "not among the cards read"  # the tablet lists the cards its readers read
KEEP_RECORD: Action = {"type": "keep_record"}
REREAD: Action = {"type": "reread"}
TABLE_ACTIONS = frozenset({"keep_record", "reread"})
"""Table actions of a disagreement prompt besides ``correct`` (never a game's own types)."""
EARLIER = 40  # how many standing moves back the entry that explains a difference is searched
TRIES = 1500  # moves applied at most in one search (each candidate replays the moves since)
JUDGED = 60  # candidate records set against the table at most in one search
OTHER_READINGS = 3  # the newest camera-read entries whose every other legal reading is tried
MANY = 40  # an entry with more other legal readings than this is not guessed among
SHOWN = 4  # corrections offered at most (several readings of one entry)
ONE_OFF = 24  # an older entry with more one-value misreadings than this is not guessed among
MADE_KEPT = 4000  # corrected records kept between searches at most (then forgotten at once)
ONE_OFF_PLACES = 12  # differing places whose pieces are read a mark off, for a refused reading


def key(action: Action) -> str:
    return json.dumps(action, sort_keys=True)


def pieces_words(stack: tuple[Piece, ...] | None) -> str:
    """A place's pieces as the camera tells them apart: "purple (2)", or "nothing"."""
    if not stack:
        return "nothing"
    return ", ".join(p.colour + (f" ({p.pips})" if p.pips else "") for p in stack)


def pieces_json(stack: tuple[Piece, ...]) -> list[list[object]]:
    """A place's pieces for the log, in their order: [[colour, pips], ...]."""
    return [[p.colour, p.pips] for p in stack]


def pieces_from(data: object) -> tuple[Piece, ...]:
    """:func:`pieces_json` back (ValueError for anything else)."""
    if not isinstance(data, list) or not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
            and isinstance(p[1], int) and not isinstance(p[1], bool) for p in data):
        raise ValueError("a place's pieces are [[colour, pips], ...]")
    return tuple(Piece(colour, pips) for colour, pips in data)


def kept_record(game: Game, state: State, seen: BoardView, places: list[str]) -> Action:
    """The logged "the record is right" decision for ``places``: what the record has and
    the camera read there, and the history's line in the players' words."""
    labels = place_names(game, state)
    board = game.board_view(state)
    where = "; ".join(f"{labels.get(p, p)} as the record has it, {pieces_words(board.get(p))} "
                      f"(the camera read {pieces_words(seen.get(p))})" for p in places)
    return {"type": "keep_record",
            "text": f"The record is right, the table to be set as it says: {where}.",
            "places": {p: {"camera": pieces_json(seen.get(p, ())),
                           "record": pieces_json(board.get(p, ()))} for p in places}}


def differing(game: Game, state: State, seen: BoardView) -> set[str]:
    """The places (no score places) where the table and the record differ."""
    return {p for p in changed_places(game.board_view(state), seen) if not game.score_place(p)}


def fits(game: Game, state: State, seen: BoardView, taps: list[Tap],
         misread: frozenset[str] = frozenset()) -> bool:
    """Whether the table is the record ``state``, or it with one legal move made since,
    except at the places ``misread`` (those of an entry the camera misread, which it may
    misread still)."""
    table = {p: pieces for p, pieces in seen.items() if p not in misread}
    board = game.board_view(state)
    if not {p for p in changed_places(board, table) if not game.score_place(p)} - misread:
        return tally_mismatch(game, state, seen) is None and as_many(board, seen, misread)
    if misread:  # the record's reading there: the move made since is read from the rest
        table.update({p: v for p, v in board.items() if p in misread})
    made: dict[str, State] = {}  # what a press would record (reconcile's one legal move)
    for action in game.explain(state, table, list(taps), "button"):
        try:
            made.setdefault(key(action), game.apply(state, action))
        except (RuleError, MalformedAction):
            continue
    if len(made) != 1:
        return False
    after = next(iter(made.values()))
    return not differing(game, after, table) - misread and tally_mismatch(game, after, seen) is None \
        and as_many(game.board_view(after), seen, misread)


def as_many(board: BoardView, seen: BoardView, misread: frozenset[str]) -> bool:
    """Whether the table has as many pieces as the record at each place left out as misread:
    a misread changes what a piece reads as, never adds or takes one (a Move card laid on a
    Dancer is not a reveal read wrong)."""
    return all(len(seen.get(p) or ()) == len(board.get(p) or ()) for p in misread)


@dataclass
class Search:
    """One search for the entry that explains the table, with its budget of moves applied."""

    game: Game
    moves: list[RecordedMove]
    seen: BoardView
    taps: list[Tap]
    tries: int = 0
    judged: int = 0
    readings: dict[int, list[Action]] | None = None
    """Each entry's other legal readings by seq, kept between searches (an entry's seq is
    never reused, so they stay true)."""
    made: dict[tuple[object, ...], State | None] | None = None
    """The records corrections make, kept between searches: (seq, reading) -> the state
    that reading of entry seq makes; (seq, reading, seq of a later standing move) -> the
    record replayed from it up to that move.  A standing move's predecessors never change
    while it stands (the record is a stack; a correction makes new entries), so they stay
    true; a search on the next record replays only the move made since."""

    def corrected(self, index: int, action: Action) -> State | None:
        """The state move ``index`` made as ``action`` makes (None: the rules refuse it)."""
        move, memo = self.moves[index], self.made
        step = (move.seq, key(action))
        if memo is not None and step in memo:
            return memo[step]
        self.tries += 1
        try:
            state: State | None = self.game.apply(move.before, action)
        except (RuleError, MalformedAction, KeyError, TypeError, ValueError):
            state = None
        self._keep(step, state)
        return state

    def replayed(self, index: int, action: Action) -> State | None:
        """The record with move ``index`` made as ``action`` and every move since as it was
        (but those that only read it again, as :meth:`Ledger.amend` leaves them out)."""
        memo, reading = self.made, key(action)
        start, state = index, self.corrected(index, action)
        if memo is not None:  # the longest replay kept: on the next record, one move more
            for later in range(len(self.moves) - 1, index, -1):
                kept = (self.moves[index].seq, reading, self.moves[later].seq)
                if kept in memo:
                    start, state = later, memo[kept]
                    break
        try:
            for later in range(start + 1, len(self.moves)):
                if state is None:
                    break
                move = self.moves[later]
                if self.game.read_again(state, move.action, move.source):
                    continue
                self.tries += 1
                state = self.game.apply(state, move.action)
        except (RuleError, MalformedAction, KeyError, TypeError, ValueError):
            state = None
        if len(self.moves) > index + 1:
            self._keep((self.moves[index].seq, reading, self.moves[-1].seq), state)
        return state

    def laid(self, index: int, action: Action) -> frozenset[str]:
        """The places move ``index`` read as ``action`` changes."""
        before = self.moves[index].before
        after = self.corrected(index, action)
        if after is None:
            return frozenset()
        return frozenset(changed_places(self.game.board_view(before), self.game.board_view(after)))

    def _keep(self, step: tuple[object, ...], state: State | None) -> None:
        if self.made is None:
            return
        if len(self.made) >= MADE_KEPT:
            self.made.clear()
        self.made[step] = state

    def rereading(self, index: int, differ: set[str], since: set[str]) -> Action | None:
        """Move ``index`` read anew from the table at the places it laid that differ now, and
        at those that differ where no move since went (``since``: the places the moves after
        it changed): a chip recorded on one lizard that stands on another moves ago."""
        move, game = self.moves[index], self.game
        touched = changed_places(game.board_view(move.before), game.board_view(move.after))
        if not touched & differ:
            return None
        for places in ((touched & differ) | (differ - since), touched & differ):
            view = dict(game.board_view(move.after))
            for place in places:
                if self.seen.get(place):
                    view[place] = self.seen[place]
                else:
                    view.pop(place, None)
            action = reread(game, move.before, view, []).action
            if action is not None and action.get("type") == move.action.get("type") \
                    and key(action) != key(move.action):
                return action
            if places == touched & differ:
                break
        return None

    def others(self, index: int) -> list[Action]:
        """The other legal readings of move ``index``: its type and player, another value."""
        move, game = self.moves[index], self.game
        if self.readings is not None and move.seq in self.readings:
            return self.readings[move.seq]
        out = []
        for action in game.legal_actions(move.before):
            if action.get("type") == move.action.get("type") \
                    and action.get("player") == move.action.get("player") \
                    and set(action) == set(move.action) and key(action) != key(move.action):
                out.append(action)
        if self.readings is not None:
            if len(self.readings) >= 64:
                self.readings.pop(next(iter(self.readings)))
            self.readings[move.seq] = out
        return out

    def misreadings(self, index: int) -> list[Action]:
        """Move ``index`` with one value of one of its lists read as another (a card misread
        by glare: "Nightclubs 6, 4, 4, 7" for 6, 5, 4, 7), the values drawn from the legal
        readings of its type; the rules judge each when it is replayed."""
        move, game = self.moves[index], self.game
        lists = [f for f, v in move.action.items() if isinstance(v, list) and v
                 and all(isinstance(x, int) and not isinstance(x, bool) for x in v)]
        if not lists:
            return []
        values: dict[str, set[int]] = {f: set() for f in lists}
        for action in game.legal_actions(move.before):
            if action.get("type") == move.action.get("type"):
                for f in lists:
                    if isinstance(action.get(f), list):
                        values[f].update(x for x in action[f] if isinstance(x, int))
        out: list[Action] = []
        for f in lists:
            for i, old in enumerate(move.action[f]):
                for value in sorted(values[f] - {old}):
                    changed = list(move.action[f])
                    changed[i] = value
                    out.append({**move.action, f: changed})
        return out

    def explaining(self, differ: set[str]) -> tuple[RecordedMove, list[Action]] | None:
        """The entry the camera or the button recorded that explains the table: first the
        newest whose re-reading from the table makes the record the table; else the newest
        of the last few one of whose other legal readings does (with the places that entry
        laid, which the camera may misread still, left out when none fits exactly)."""
        game = self.game
        read = [i for i, m in reversed(list(enumerate(self.moves)))
                if m.source in ("camera", "table")]
        since: dict[int, set[str]] = {}  # by move: the places the moves after it changed
        went: set[str] = set()
        for index in range(len(self.moves) - 1, -1, -1):
            since[index] = set(went)
            move = self.moves[index]
            went |= changed_places(game.board_view(move.before), game.board_view(move.after))
        for index in read:
            if self.tries > TRIES or self.judged > JUDGED:
                return None
            again = self.rereading(index, differ, since[index])
            state = self.replayed(index, again) if again is not None else None
            if again is not None and state is not None:
                self.judged += 1
                if fits(game, state, self.seen, self.taps):
                    return self.moves[index], [again]
        for index in read[:OTHER_READINGS]:
            move = self.moves[index]
            recorded = frozenset(changed_places(game.board_view(move.before), game.board_view(move.after)))
            others = self.others(index)
            if len(others) > MANY:
                continue  # too many readings to tell one from the table
            judged = self.fitting(index, others, recorded)
            if judged is None:
                return None
            exact, near = judged
            if exact or near:
                return move, (exact or near)[:SHOWN]
        return self.misread_earlier(read)

    def never_made(self) -> RecordedMove | None:
        """The newest entry, when the table recorded it and the record without it is the
        table: a move nobody made (Swing State seed 4, cafe: the die, untouched, read as
        another colour for a moment and back, became "Incumbent picks up the die" and
        "Incumbent rolls 3"; he then picked it up, and the table, no die, fitted no reading
        of the roll).  None otherwise."""
        if not self.moves or self.moves[-1].source not in ("camera", "table"):
            return None
        move = self.moves[-1]
        self.judged += 1
        return move if fits(self.game, move.before, self.seen, self.taps) else None

    def fitting(self, index: int, readings: list[Action],
                recorded: frozenset[str]) -> tuple[list[Action], list[Action]] | None:
        """Which other ``readings`` of entry ``index`` make the record fit the table: exactly,
        or with that entry's places left out (the camera may still misread them).  None: the
        search ran out of its budget."""
        exact: list[Action] = []
        near: list[Action] = []
        for action in readings:
            if self.tries > TRIES or self.judged > JUDGED:
                return None
            state = self.replayed(index, action)
            if state is None:
                continue
            self.judged += 1
            if fits(self.game, state, self.seen, self.taps):
                exact.append(action)
            elif fits(self.game, state, self.seen, self.taps, self.laid(index, action) | recorded):
                near.append(action)
        return exact, near

    def misread_earlier(self, read: list[int]) -> tuple[RecordedMove, list[Action]] | None:
        """The newest older entry one misread value of which explains the table (the places
        that entry laid left out, as the camera may misread them still): an entry read
        confidently wrong nights ago whose consequences only now refuse a move."""
        game = self.game
        for index in read:
            move = self.moves[index]
            options = self.misreadings(index)
            if not options or len(options) > ONE_OFF:
                continue
            recorded = frozenset(changed_places(game.board_view(move.before), game.board_view(move.after)))
            judged = self.fitting(index, options, recorded)
            if judged is None:
                return None
            found = judged[0] + judged[1]
            if found:
                return move, found[:SHOWN]
        return None


@dataclass(frozen=True)
class Laid:
    """A piece an entry laid that the record has otherwise than the table shows it now."""

    place: str  # where the entry laid it
    was: Piece  # as the record has it
    now: Piece  # as the table shows it


def misread_when_laid(search: Search, differ: set[str]) -> tuple[RecordedMove, list[Action], Laid] | None:
    """The newest entry that laid a piece the record has otherwise than the table shows it
    at a differing place (the same colour, other pips: a die misread when the set-up was
    read, its true face seen once it moved), read as the table shows it, after which the
    record fits the table (:func:`fits`); ``search`` holds every standing move, however
    old (:meth:`Game.laid_otherwise`).  None when no such reading fits, or its budget ran out."""
    if not search.moves:
        return None
    game, seen = search.game, search.seen
    board = game.board_view(search.moves[-1].after)
    recorded = {piece for p in differ for piece in board.get(p, ())}
    shown = {piece for p in differ for piece in seen.get(p, ())}
    pairs = sorted((was, now) for was in recorded for now in shown
                   if was.colour == now.colour and was.pips != now.pips)
    for index in range(len(search.moves) - 1, -1, -1):
        move = search.moves[index]
        if move.source not in ("camera", "table"):
            continue
        found: list[tuple[Action, Laid]] = []
        for was, now in pairs:
            for place, action in game.laid_otherwise(move.action, was, now):
                if search.tries > TRIES or len(found) >= SHOWN:
                    return None if not found else (move, [a for a, _ in found], found[0][1])
                state = search.replayed(index, action)
                search.judged += 1
                if state is not None and fits(game, state, seen, search.taps):
                    found.append((action, Laid(place, was, now)))
        if found:
            return move, [a for a, _ in found], found[0][1]
    return None


def two_moves(game: Game, state: State, seen: BoardView, taps: list[Tap],
              differ: set[str], next_moves: NextMoves | None = None) -> list[Action]:
    """A press forgotten: the table shows two moves since the record.  The one legal move
    now, changing places that differ, after which one legal move shows the table exactly
    (the second is recorded by the press judged again); [] for none or several.  The first
    may change places the second puts back as they were (a night cleared, the same
    Nightclubs laid again)."""
    found = [first for first in first_moves(game, state, seen, taps, differ, next_moves)
             if tapped_first(game, state, first, taps)]
    return found if len(found) == 1 else []


def tapped_first(game: Game, state: State, first: Action, taps: list[Tap]) -> bool:
    """Whether the cards read support ``first`` as a move made before the next: the board
    it leaves reads as it with the cards tapped first (none, for a move made without
    cards), and where readers hold only their seat's cards (:attr:`Game.own_readers`) those
    are on the first mover's reader and the rest on the next mover's.  A move whose card no
    reader read is a guess, never offered: Times Square, cafe, seed 8: B's Deb moved 2 then
    3 with only the second card read was offered as "B plays Deb 2 ..., then another", a
    move nobody made."""
    after = game.apply(state, first)
    board = game.board_view(after)
    movers = game.current_player(state), game.current_player(after)
    for count in range(len(taps) + 1):
        if game.own_readers and (any(t.seat not in (None, movers[0]) for t in taps[:count])
                                 or any(t.seat not in (None, movers[1]) for t in taps[count:])):
            continue
        if reconcile(game, state, board, list(taps[:count]), "button").state == after:
            return True
    return False


def first_moves(game: Game, state: State, seen: BoardView, taps: list[Tap],
                differ: set[str], next_moves: NextMoves | None = None) -> list[Action]:
    """Every legal move now, changing places that differ, after which one legal move (with
    ``taps``) shows the table exactly (:func:`two_moves`)."""
    actions = (next_moves or NextMoves()).of(game, state, MANY * 3)
    if len(actions) > MANY * 3:
        return []
    found: dict[str, Action] = {}
    for action, after in actions:
        if after is None:
            continue
        moved = {p for p in changed_places(game.board_view(state), game.board_view(after))
                 if not game.score_place(p)}
        if not moved & differ:
            continue
        verdict = reconcile(game, after, seen, list(taps), "button")
        if verdict.state is not None and not differing(game, verdict.state, seen) \
                and tally_mismatch(game, verdict.state, seen) is None:
            found[key(action)] = action
    return list(found.values())


def press_then_next(game: Game, state: State, seen: BoardView, earlier: list[Tap], later: list[Tap],
                    next_moves: NextMoves | None = None) -> Action | None:
    """A press held while the camera could not see, judged on a board that shows its move and
    the next one under way (``later``: the cards tapped since the press).  The one legal move
    that the press with its own cards (``earlier``) reads from the board it leaves, after which
    the later cards and the board explain one legal move exactly; None for none or several."""
    differ = differing(game, state, seen)
    found = []
    for first in first_moves(game, state, seen, later, differ, next_moves):
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


def other_seats(game: Game, state: State, seen: BoardView, taps: list[Tap],
                trigger: Trigger) -> list[Action]:
    """A card tapped on the wrong seat's reader: the refused move read from it, as another
    seat's, where that is legal; or the move the table shows read with the cards laid on
    another seat's reader (a Clique card on the neighbour's reader for one's own drink):
    each a tap that records it."""
    if not taps:
        return []
    seats = range(len(game.player_names(state)))
    out: dict[str, Action] = {}
    for action in game.explain(state, seen, list(taps), trigger):
        who = action.get("player")
        if not isinstance(who, int) or game.is_legal(state, action):
            continue
        for seat in seats:
            other = {**action, "player": seat}
            if seat != who and game.is_legal(state, other):
                out.setdefault(key(other), other)
    for seat in seats:
        moved = [Tap(t.card, seat) if t.seat is not None else t for t in taps]
        if moved == list(taps):
            continue
        for action in game.explain(state, seen, moved, trigger):
            if game.is_legal(state, action):
                out.setdefault(key(action), action)
    return list(out.values())[:SHOWN]


def one_off(game: Game, state: State, seen: BoardView, taps: list[Tap],
            trigger: Trigger) -> dict[str, tuple[Action, tuple[str, ...]]]:
    """A reading the rules refuse, read with one piece at one place a mark off (a card
    misread by glare: Nightclubs 6, 6, 7, 4, where the pile has one 6, for 6, 5, 7, 4): each
    legal move one such reading shows (by :func:`key`), with the places read otherwise for
    it.  The camera is unsure which: the players, who see the table, tap the one it shows.
    King of Clubs seed 13, cafe: Nightclub 2 read a pip high all evening; night 5's reading
    was refused with no reading to tap, and the game wedged."""
    board = game.board_view(state)
    out: dict[str, tuple[Action, tuple[str, ...]]] = {}
    for place in sorted(changed_places(board, seen))[:ONE_OFF_PLACES]:
        if game.score_place(place):
            continue
        stack = tuple(seen.get(place, ()))
        for index, piece in enumerate(stack):
            for pips in (piece.pips - 1, piece.pips + 1) if piece.pips > 0 else ():
                if pips <= 0:
                    continue
                read = (*stack[:index], replace(piece, pips=pips), *stack[index + 1:])
                verdict = reconcile(game, state, {**seen, place: read}, list(taps), trigger)
                if verdict.action is None or verdict.state is None:
                    continue
                action, places = out.get(key(verdict.action), (verdict.action, ()))
                out[key(action)] = action, tuple(sorted({*places, place}))
    return dict(list(out.items())[:SHOWN])


def disagreement(game: Game, moves: list[RecordedMove], state: State, seen: BoardView,
                 taps: list[Tap], camera: bool = True,
                 readings: dict[int, list[Action]] | None = None,
                 next_moves: NextMoves | None = None,
                 made: dict[tuple[object, ...], State | None] | None = None,
                 number: Callable[[int], int | None] = lambda seq: seq) -> Prompt | None:
    """The warning, with its ways out, for a table that differs from the record (``None``
    when it does not).  ``moves`` are the standing moves, oldest first; ``readings``,
    ``next_moves`` and ``made`` keep what a search works out for the next one; ``number``
    gives a move's number as the history shows it (:meth:`Ledger.move_number`)."""
    differ = differing(game, state, seen)
    tally = tally_mismatch(game, state, seen)
    if not differ and tally is None:
        return None
    labels = place_names(game, state)
    board = game.board_view(state)
    search = Search(game, moves[-EARLIER:], seen, list(taps), readings=readings, made=made)
    found = search.explaining(differ)
    laid: Laid | None = None
    if found is None and differ:  # a piece misread when it was laid, however long ago
        whole = Search(game, moves, seen, list(taps), readings=readings, made=made)
        if (hit := misread_when_laid(whole, differ)) is not None:
            found, laid, search = (hit[0], hit[1]), hit[2], whole
    named, since = differ, False
    if found is not None:  # name the places the correction changes; the move made since apart
        index = next(i for i, m in enumerate(search.moves) if m.seq == found[0].seq)
        fixed = search.replayed(index, found[1][0])
        mended = differ & changed_places(board, game.board_view(fixed)) if fixed else set()
        named, since = (mended, mended != differ) if mended else (differ, False)
    parts = [f"{labels.get(p, p)} shows {pieces_words(seen.get(p))} on the table, "
             f"{pieces_words(board.get(p))} in the record" for p in sorted(named)]
    if tally is not None:
        parts.append(f"the score pieces differ: {tally}")
    text = "The table does not match the record: " + "; ".join(parts) + "."
    options: list[Action] = []
    if found is not None:
        move, shown = found
        was = game.describe(move.before, move.action)
        shows = "the table shows " + " or ".join(game.describe(move.before, a) for a in shown)
        if laid is not None:
            shows = (f"the piece it laid on {labels.get(laid.place, laid.place)} was read "
                     f"{pieces_words((laid.was,))}; the table shows {pieces_words((laid.now,))} now")
        text += (f" Entry #{number(move.seq)} ({was}) explains it: {shows}. "
                 f"If the table is right, correct entry #{number(move.seq)}")
        text += ("; the moves since stand" if move.seq != moves[-1].seq else "")
        text += ("; the move made since is recorded next." if since else ".")
        options = [{"type": "correct", "entry": move.seq, "action": a} for a in shown]
    elif differ and (unmade := search.never_made()) is not None:
        was = game.describe(unmade.before, unmade.action)
        text += (f" Entry #{number(unmade.seq)} ({was}) explains it: the table shows it was never made. "
                 f"If the table is right, undo entry #{number(unmade.seq)}.")
        options = [{"type": "undo", "seq": unmade.seq}]
    elif differ and (first := two_moves(game, state, seen, list(taps), differ, next_moves)):
        text += (" Were two moves made since the record's last, "
                 f"{game.describe(state, first[0])}, then another (a press forgotten)? "
                 "If so, record the first: the second follows.") + missed_card(game)
        options = list(first)
    elif differ:  # a move made without its press that no tap names: the players know it
        text += missed_card(game)
        text += " If a move was made on the table without its press, declare it: the press is judged again."
    text += " If the table is wrong, tap that the record is right and set the table as it says."
    options.append(dict(KEEP_RECORD))
    if camera:
        options.append(dict(REREAD))
    return Prompt(text, "warning", game.current_player(state), options)


def missed_card(game: Game) -> str:
    """The ask for a card laid that its reader missed, in a game played with cards: laid
    again, the press that raised the warning is judged with it (:meth:`Referee.tap`)."""
    if not game.card_ids():
        return ""
    return f" If a card you played is {NOT_READ}, lay it on your reader again: the press is judged with it."


def rereading(game: Game, moves: list[RecordedMove], state: State, seen: BoardView,
              made: dict[tuple[object, ...], State | None] | None = None) -> Action | None:
    """"Read the table again": the one correction of an entry the camera's view explains
    (``{"type": "correct", "entry": seq, "action": ...}``), or the newest entry taken back
    when the table shows it never made (``{"type": "undo", "seq": seq}``), or None.  Raises
    ``ValueError`` (in words) when the table and the record agree, or no single correction
    of an entry makes them agree."""
    differ = differing(game, state, seen)
    if not differ and tally_mismatch(game, state, seen) is None:
        raise ValueError("the camera reads the table as the record has it: nothing to correct")
    search = Search(game, moves[-EARLIER:], seen, [], made=made)
    found = search.explaining(differ)
    unsure: list[Action] = []
    if found is None and differ:  # a piece misread when it was laid, however long ago
        whole = Search(game, moves, seen, [], made=made)
        if (hit := misread_when_laid(whole, differ)) is not None:
            found, search = (hit[0], hit[1]), whole
    if found is not None and 1 < len(found[1]) < SHOWN:
        taken = alike(search, found[0], found[1])
        unsure = [a for a in found[1] if a not in taken] if len(taken) == 1 else []
        found = found[0], taken
    if found is None and differ and (unmade := search.never_made()) is not None:
        return {"type": "undo", "seq": unmade.seq}
    if found is None or len(found[1]) != 1:
        raise ValueError("no one correction of an entry makes the record what the camera "
                         "sees; tap the correction that is your table, or that the record is right")
    move, (action,) = found
    if unsure:  # logged with the readings it was taken among: its line says so (ledger.UNSURE)
        action = {**action, UNSURE: unsure}
    return {"type": "correct", "entry": move.seq, "action": action}


def alike(search: Search, move: RecordedMove, readings: list[Action]) -> list[Action]:
    """Readings of an older entry the table cannot tell apart, since the camera sees them no
    more, and that leave the same record now (its board, score pieces, scores, whose turn and
    legal moves): the one nearest the camera's reading, as good as any for the game; else
    all of them.  King of Clubs seed 10, cafe, passive: last night's Nightclubs, read 2, 4,
    4, 6, were 3, 4, 4, 6, 5, 4, 4, 6 or 2, 4, 4, 7 by the point cards on the table; the
    players could not tell, "Read the table again" changed nothing, and the game wedged."""
    game = search.game
    index = next(i for i, m in enumerate(search.moves) if m.seq == move.seq)
    made = [state for action in readings if (state := search.replayed(index, action)) is not None]
    if len(made) != len(readings):
        return readings

    def now(state: State) -> tuple[object, ...]:
        view = game.board_view(state)
        return (view, game.tallies(state, view), game.scores(state), game.current_player(state),
                sorted(key(a) for a in game.legal_actions(state)))

    first = now(made[0])
    if any(now(state) != first for state in made[1:]):
        return readings
    return [min(readings, key=lambda action: distance(move.action, action))]


def distance(recorded: Action, other: Action) -> int:
    """How far a reading lies from the recorded one: pips apart in its lists of values, one
    for each other field that differs."""
    out = 0
    for field in set(recorded) | set(other):
        a, b = recorded.get(field), other.get(field)
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) \
                and all(isinstance(x, int) for x in a + b):
            out += sum(abs(x - y) for x, y in zip(a, b, strict=True))
        elif a != b:
            out += 1
    return out


def set_aside(game: Game, state: State, seen: BoardView, taps: list[Tap]) -> set[str]:
    """The fewest places (one or two) whose camera reading, replaced by the record's, leave
    a table that is the record or it with one legal move made (a piece knocked aside while
    a move was made: the move stands); every differing place when none do."""
    board = game.board_view(state)
    places = sorted(changed_places(board, seen))
    if len(places) <= 1:
        return set(places)

    def fixed(chosen: tuple[str, ...]) -> bool:
        view = {p: v for p, v in seen.items() if p not in chosen}
        view.update({p: board[p] for p in chosen if p in board})
        return fits(game, state, view, taps)

    for size in (1, 2):
        for chosen in combinations(places, size):
            if fixed(chosen):
                return set(chosen)
    return set(places)


def one_piece_misread(camera: tuple[Piece, ...], record: tuple[Piece, ...]) -> tuple[Piece, Piece] | None:
    """The one piece the camera read as another at a place (what it read, what the players
    said it is), when that is all that differs; None otherwise."""
    read, kept = list(camera), list(record)
    for piece in camera:
        if piece in kept:
            kept.remove(piece)
            read.remove(piece)
    return (read[0], kept[0]) if len(read) == 1 and len(kept) == 1 else None


class Overrides:
    """Places whose camera reading the players said is wrong (the record is right there):
    place -> (what the camera reads, what the record had).  A reading is set aside only
    while the camera reads exactly that there; anything else there ends it.

    Where the game only moves its pieces about (:meth:`Game.keeps_pieces`), a place where
    the players said the camera read one piece as another stays ``misread`` all evening:
    when it reads there what the rest of the board cannot hold beside it, the pieces it
    holds are the ones the rest of the board lacks (their number as the camera counts it)."""

    def __init__(self) -> None:
        self.places: dict[str, tuple[tuple[Piece, ...], tuple[Piece, ...]]] = {}
        self.together: dict[str, frozenset[str]] = {}  # the places one decision set aside
        self.misread: set[str] = set()  # places the camera reads one piece wrong at, all evening
        self.whole: Counter[Piece] | None = None  # every piece of a game that keeps its pieces
        # per place, the last reading the players said is one piece read as another there: set
        # aside again whenever the camera reads that again where the record still has that
        self.learned: dict[str, tuple[tuple[Piece, ...], tuple[Piece, ...]]] = {}

    def keep(self, game: Game, state: State, seen: BoardView,
             only: set[str] | frozenset[str] | None = None) -> list[str]:
        """Set aside the camera's reading (``seen``, as it reads) wherever it differs from
        the record now (or at those of ``only``)."""
        board = game.board_view(state)
        kept = sorted(p for p in changed_places(board, seen)  # the score pieces' places too
                      if only is None or p in only)
        for place in kept:
            self.places[place] = (seen.get(place, ()), board.get(place, ()))
            self._learn(place, *self.places[place])
        self.together.update((place, frozenset(kept)) for place in kept)
        self._misread(game, state, board)
        return kept

    def _misread(self, game: Game, state: State, board: BoardView) -> None:
        """Where the game keeps its pieces, the places set aside as one piece read as another."""
        if not game.keeps_pieces(state):
            return
        self.whole = Counter(piece for stack in board.values() for piece in stack)
        self.misread |= {p for p, (camera, record) in self.places.items()
                         if one_piece_misread(camera, record) is not None}

    def restore(self, game: Game, state: State, kept: list[Action]) -> None:
        """Set aside again, after a restart, the readings the players' logged "the record is
        right" decisions set aside (``kept``, oldest first), where the record still has what
        it had then (``state`` is the record's now); elsewhere the record moved since.  The
        places where one piece was read as another stay misread where the game keeps its
        pieces.  The places of one decision stay one group, as :meth:`keep` left them."""
        board = game.board_view(state)
        for decision in kept:
            places = decision.get("places")
            restored: list[str] = []
            for place, read in (places.items() if isinstance(places, dict) else ()):
                try:
                    camera, record = pieces_from(read["camera"]), pieces_from(read["record"])
                except (KeyError, TypeError, ValueError):
                    continue  # a line the log cannot give back: nothing set aside there
                if one_piece_misread(camera, record) is not None and game.keeps_pieces(state):
                    self.misread.add(place)
                self._learn(place, camera, record)
                if board.get(place, ()) == record:
                    self.places[place] = (camera, record)
                    restored.append(place)
                else:
                    self.places.pop(place, None)
                    self.together.pop(place, None)
            # grouped as :meth:`keep` grouped them, so one place read as the record had it
            # ends the decision at all its places after a restart too (:meth:`_lapse`)
            self.together.update((place, frozenset(restored)) for place in restored)
        if self.misread:
            self.whole = Counter(piece for stack in board.values() for piece in stack)

    def apply(self, seen: BoardView) -> BoardView:
        """``seen`` with each reading the players set aside replaced by the record's.  Where
        they set aside one piece read as another (pink read blue) and the camera still reads
        that piece there among others (a figure laid beside it), that piece is read as they
        said: the place is misread every time it is seen (Times Square seed 13, cafe: the
        sewer's pink read blue all evening; with Deb laid in the sewer the reading lapsed,
        and Deb's move went unexplained until the game wedged)."""
        if not self.places:
            return self._from_the_rest(seen)
        self._lapse(seen)
        out = dict(seen)
        for place, (camera, record) in list(self.places.items()):
            swapped = one_piece_misread(camera, record)
            now = seen.get(place, ())
            if now != camera and swapped is not None and now.count(swapped[0]) == 1:
                rest = list(now)
                rest.remove(swapped[0])
                out[place] = tuple(sorted((*rest, swapped[1])))  # the piece misread, read as they said
                continue
            if now != camera:
                del self.places[place]  # the camera reads it otherwise now: the fault is gone
                continue
            if record:
                out[place] = record
            else:
                out.pop(place, None)
        return self._from_the_rest(out)

    def _from_the_rest(self, view: BoardView) -> BoardView:
        """``view`` with the one place misread all evening whose reading the rest of the board
        contradicts read as what the rest lacks: the rest holds only pieces of the game, and
        lacks as many as the camera counts there (Times Square seed 6, cafe: space 10 read
        black for a Bodyguard, then black, black for a Bodyguard and Hal, then black for Hal;
        "the record is right" held for the first reading only, and 16 of the game's 32 entries
        were declared).  Two places that could be it: neither is guessed."""
        if self.whole is None or not self.misread:
            return view
        found: dict[str, tuple[Piece, ...]] = {}
        for place in sorted(self.misread):
            rest = Counter(piece for where, stack in view.items() if where != place for piece in stack)
            lacks = self.whole - rest
            here = view.get(place, ())
            if not rest - self.whole and lacks.total() == len(here) and Counter(here) != lacks:
                found[place] = tuple(sorted(lacks.elements()))
        if len(found) != 1:
            return view
        return {**view, **found}

    def _learn(self, place: str, camera: tuple[Piece, ...], record: tuple[Piece, ...]) -> None:
        if one_piece_misread(camera, record) is not None:
            self.learned[place] = (camera, record)

    def recall(self, board: BoardView, seen: BoardView) -> None:
        """Set aside again a reading the players said is one piece read as another (the
        record's ``board`` still has there what it had, the camera reads there what it read),
        after a passing reading there ended it: a place the camera misreads is not asked
        about again for the same reading."""
        for place, (camera, record) in self.learned.items():
            if place not in self.places and seen.get(place, ()) == camera and board.get(place, ()) == record:
                self.places[place] = (camera, record)
                self.together[place] = frozenset({place})

    def clear(self) -> None:
        self.places.clear()
        self.together.clear()
        self.misread.clear()
        self.learned.clear()

    def _lapse(self, seen: BoardView) -> None:
        """One place of a decision read as the record had it: the players set those pieces
        right (or a move took the piece away), so the decision ends at all its places.
        (Baron Voodoo seed 8, cafe, typical: the score marker knocked from 9 onto 10, "the
        record is right"; the next move took it from 10 to 12, and 9, read empty as before,
        went on being drawn with the marker: every press after it was refused, and "the
        record is right" was tapped 485 times.)"""
        for place, (camera, record) in list(self.places.items()):
            now = seen.get(place, ())
            if place in self.places and now != camera and now == record:
                for other in self.together.get(place, frozenset()) | {place}:
                    self.places.pop(other, None)
                    self.together.pop(other, None)


class Disagreements:
    """The referee's desk for disagreements: the warning and its ways out (a part of
    :class:`~companion.table.referee.Referee`, which holds the state it reads)."""

    game: Game
    ledger: Ledger
    overrides: Overrides
    taps: list[Tap]
    seen: BoardView | None
    raw_seen: BoardView | None
    table_prompt: Prompt | None
    _press_waiting: bool
    _pressing: int | None = None  # the seat of the press judged now (None: the turn button)
    _press_seat: int | None = None  # the seat of the press that waits for its answer
    _asked: tuple[str, Prompt | None] | None
    _warned: tuple[str, Prompt | None] | None
    _readings: dict[int, list[Action]]
    _one_off: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the refused reading's offers, by key
    _made: dict[tuple[object, ...], State | None]
    next_moves: NextMoves
    notices: dict[str, Prompt]

    def publish(self, kind: str) -> None: ...
    def after_move(self, kind: str, corrected: HistoryEntry | None = None,
                   replaced: BoardView | None = None, answered: bool = False) -> None: ...
    def _reconcile(self, trigger: Trigger, source: str) -> HistoryEntry | None: ...
    def _standing(self, seen: BoardView, after: State) -> bool: ...

    def _press_fits(self, seen: BoardView) -> bool:
        """Whether a press now would record a move with the table matching the record."""
        verdict = reconcile(self.game, self.ledger.state, seen, list(self.taps), "button")
        return verdict.state is not None and not self._standing(seen, verdict.state)

    def _laid_again(self) -> bool:
        """Whether a card just tapped lets the press the warning held record its move (the
        card its reader missed, laid again as :func:`missed_card` asks: Times Square seed 8,
        cafe, passive): the press is then judged now, its question gone."""
        if not self._press_waiting or self.seen is None or not self._press_fits(self.seen):
            return False
        self._press_waiting = False
        self.table_prompt = None
        return True

    def press_still_waits(self) -> bool:
        """Whether a press that raised a question still waits to be judged again.  A seat's
        button says that seat's step is done; once the record waits on another side (the
        players declared that step themselves) the press is used up, and judged again it
        would end the other side's step.  King of Clubs seed 6, cafe, passive: A's pass,
        pressed with a Move card the reader missed, was asked about; the players declared
        the card and the pass, and A's press, judged again after B's next Move was declared,
        recorded B's pass; B's own press then passed A for good, and the record ran a dance
        ahead of the table until the game wedged."""
        if self._press_waiting and self._press_seat is not None \
                and not self.game.seat_may_press(self.ledger.state, self._press_seat):
            self._press_waiting = False
        return self._press_waiting

    def press_owed_after(self, kind: str) -> bool:
        """Whether the players' answer (a correction, or a move declared: ``kind``) leaves the
        press that raised the question still owed, so it is judged again on the corrected
        record (their move or step is recorded, or asked about anew).  A move declared that
        leaves the table as the record was the press's own, unless the game's presses never
        record such a move (:meth:`Game.press_owed`)."""
        if self.seen is None:
            return False
        newest = self.ledger.frames[-1].entry
        return kind == "correct" or bool(differing(self.game, self.ledger.state, self.seen)) or (
            newest is not None and self.game.press_owed(self.ledger.state, newest.action, self._press_seat))

    def one_off_answered(self) -> None:
        """The players tapped a reading a refusal offered with a place read a mark off
        (:func:`one_off`): the camera's reading there is set aside while it reads that, as
        "the record is right" sets it aside (it misreads that card all evening)."""
        newest = self.ledger.frames[-1].entry
        asked = self.table_prompt
        places = dict(self._one_off).get(key(newest.action)) if newest is not None else None
        if not places or asked is None or newest is None or self.raw_seen is None \
                or key(newest.action) not in {key(o) for o in asked.options}:
            return
        if self.overrides.keep(self.game, self.ledger.state, self.raw_seen, set(places)):
            self.seen = self.overrides.apply(self.raw_seen)

    def spent_on_a_tapped_move(self, since: int | None) -> bool:
        """Whether a press held while the camera settled was spent on a move the players
        tapped on the tablet since (an entry newer than ``since``), the table now showing the
        record: the move it was pressed for.  Judged on that table it would record the next
        step (Baron Voodoo seed 3, cafe, attentive: "another turn" pressed with a hand resting
        on the mat was held; the players tapped it; the held press, judged when the hand left,
        recorded "ends the turn", the extra turn's Steal and Swap were refused as out of turn,
        and the game ended 24 against a true 27)."""
        tapped = False
        for frame in reversed(self.ledger.frames):
            if frame.entry is None or (since is not None and frame.entry.seq <= since):
                break
            tapped = tapped or frame.entry.source == "tablet"
        state = self.ledger.state
        return tapped and self.seen is not None and not differing(self.game, state, self.seen) \
            and tally_mismatch(self.game, state, self.seen) is None

    def judge_waiting_press(self) -> HistoryEntry | None:
        """The press that waited for the players' answer, judged again as its seat's press."""
        self._pressing = self._press_seat
        return self._reconcile("button", "table")

    def other_readings(self, asked: Prompt | None) -> Prompt | None:
        """A card laid moves ago that reads otherwise now (:func:`reconsider_earlier`), asked
        with every other value of it the rules allow beside the camera's reading, and "the
        record is right": the camera may misread it still.  King of Clubs seed 6, cafe,
        typical: Nightclub 2, a 6, read 4 when laid and 5 since; the tablet offered only 5,
        which the players could not confirm, and held every press until the game wedged."""
        if asked is None:
            return None
        search = Search(self.game, self._moves(EARLIER), {}, [], made=self._made)
        options = list(asked.options)
        for option in asked.options:
            index = next((i for i, m in enumerate(search.moves) if option.get("type") == "correct"
                          and m.seq == option.get("entry")), None)
            if index is None:
                continue
            read, recorded = option["action"], search.moves[index].action
            at = {(f, i) for f, v in recorded.items() if isinstance(v, list)
                  and isinstance(read.get(f), list) and len(read[f]) == len(v)
                  for i, x in enumerate(v) if read[f][i] != x}
            for other in search.misreadings(index):
                moved = {(f, i) for f, v in recorded.items() if isinstance(v, list)
                         for i, x in enumerate(v) if other[f][i] != x}
                if moved <= at and key(other) != key(read) and search.replayed(index, other) is not None:
                    options.append({"type": "correct", "entry": option["entry"], "action": other})
        text = asked.text + " If it shows another value, tap that one; if the table is wrong, tap " \
            "that the record is right."
        return replace(asked, text=text, options=[*options, dict(KEEP_RECORD)])

    def check_tallies(self, board_changed: bool = False) -> bool:
        """Set or clear the standing warning that the score pieces on the table differ from
        the record.  It is raised only when the table changed (``board_changed``) and still
        differs: right after a move is recorded the players have yet to take its point or
        move its marker, and a difference a press of the button would record as a move (the
        marker moved before the press) is a move under way.  True when it changed."""
        if not board_changed and "tally" not in self.notices:
            return False
        text, asked = None, None
        state = self.ledger.state
        if self.seen is not None and self.game.outcome(state) is None:
            differ = tally_mismatch(self.game, state, self.seen)
            pressed = reconcile(self.game, state, self.seen, list(self.taps), "button") \
                if differ is not None else None
            # a move under way: a press would record a move that leaves the counts right (or
            # the table fits several moves); a press that leaves them wrong explains nothing
            under_way = pressed is not None and (
                (pressed.state is not None
                 and tally_mismatch(self.game, pressed.state, self.seen) is None)
                or (pressed.prompt is not None and pressed.prompt.kind == "choice"))
            if pressed is not None and not under_way:
                asked = self._disagreement(self.seen, "board")
                shown = self.table_prompt.text if self.table_prompt is not None else None
                text = asked.text if asked is not None and asked.text != shown else None
        current = self.notices.get("tally")
        if (current.text if current else None) == text:
            return False
        if text is None:
            del self.notices["tally"]
        else:
            self.notices["tally"] = asked if asked is not None else Prompt(text, "warning")
        return True

    def _moves(self, back: int) -> list[RecordedMove]:
        frames = self.ledger.frames[-(back + 1):]
        return [RecordedMove(f.entry.seq, f.entry.action, f.entry.source, prev.state, f.state)
                for prev, f in zip(frames, frames[1:], strict=False) if f.entry is not None]

    def _disagreement(self, seen: BoardView, trigger: Trigger,
                      refusals: list[str] | tuple[str, ...] = ()) -> Prompt | None:
        """Where the table differs from the record, the entry that explains it and each way
        out as a tap (:func:`disagreement`); worked out once per record and table."""
        state = self.ledger.state
        newest = self.ledger.frames[-1].entry
        table = repr((newest.seq if newest else None, len(self.ledger.frames),
                      sorted(seen.items()), self.taps))
        asked = repr((table, trigger, refusals))
        if self._asked is None or self._asked[0] != asked:
            prompt = self._warning(table, seen)
            refused = "Not allowed: " + "; ".join(refusals) + ". "
            seats = other_seats(self.game, state, seen, self.taps, trigger) if refusals else []
            if prompt is None and refusals and self.taps:
                prompt = Prompt(refused + ("If a card was laid on the wrong seat's reader, tap "
                                           "whose it is; " if seats else "")
                                + "a card tapped by mistake can be forgotten.", "warning",
                                self.game.current_player(state), [])
            elif prompt is not None and refusals:
                prompt.text = refused + ("If a card was laid on the wrong seat's reader, tap the "
                                         "move as it was meant. " if seats else "") + prompt.text
            offers = one_off(self.game, state, seen, self.taps, trigger) if refusals else {}
            if prompt is not None and offers:
                labels = place_names(self.game, state)
                places = sorted({p for _, at in offers.values() for p in at})
                prompt.text = prompt.text.replace(refused, refused + (
                    f"The camera may have misread {' or '.join(labels.get(p, p) for p in places)} "
                    "by one: if so, tap the reading the table shows. "), 1)
                prompt.options[:0] = [action for action, _ in offers.values()]
            self._one_off = tuple((k, at) for k, (_, at) in offers.items())
            if prompt is not None:
                prompt.options[:0] = seats
            if prompt is not None and self.taps:
                prompt.options.append({"type": "forget_taps"})
            self._asked = (asked, prompt)
        return self._asked[1]

    def _warning(self, table: str, seen: BoardView) -> Prompt | None:
        """:func:`disagreement` for the record and the ``table`` seen, worked out once for
        both the settled board and the press that follows it (a copy: callers add to it)."""
        if self.raw_seen is None:
            return None
        if self._warned is None or self._warned[0] != table:
            self._warned = (table, disagreement(
                self.game, self._moves(len(self.ledger.frames)), self.ledger.state, seen, self.taps, True,
                self._readings, self.next_moves, self._made, self.ledger.move_number))
        warned = self._warned[1]
        return None if warned is None else replace(warned, options=list(warned.options))

    def _trust(self, entry: HistoryEntry, replaced: BoardView) -> None:
        """The players' correction of ``entry`` stands against the camera at the places where
        it differs from the move it replaced (which laid ``replaced``), and no move changed
        since, where the camera counts the pieces the record has there (a misread changes
        what a piece reads as: a place the camera shows emptied is a move made since, which a
        press still waiting records; Baron Voodoo seed 5, cafe: the set-up corrected for the
        die that had just left E1)."""
        frames, view = self.ledger.frames, self.game.board_view
        index = self.ledger.frame_of(entry.seq)
        if index is None or self.raw_seen is None:
            return
        after, now = view(frames[index].state), view(self.ledger.state)
        places = {p for p in changed_places(replaced, after) if now.get(p) == after.get(p)
                  and len(self.raw_seen.get(p) or ()) == len(after.get(p) or ())}
        if self.overrides.keep(self.game, self.ledger.state, self.raw_seen, places):
            self.seen = self.overrides.apply(self.raw_seen)

    def keep_record(self, source: str = "tablet", request_id: str | None = None) -> HistoryEntry:
        """"The record is right, the table is wrong": the camera's reading where it differs
        is set aside until it reads otherwise there.  Logged (the history says it in words,
        a restart sets the same readings aside); the record's moves stand as they are."""
        if self.raw_seen is None:
            raise NothingToUndo("the camera has given no picture of the table yet")
        state = self.ledger.state
        places = set_aside(self.game, state, self.raw_seen, self.taps)
        chosen = sorted(p for p in changed_places(self.game.board_view(state), self.raw_seen)
                        if p in places)
        if not chosen:
            raise NothingToUndo("the table reads as the record has it: nothing to set aside")
        entry = self.ledger.note("keep_record", kept_record(self.game, state, self.raw_seen, chosen),
                                 source, request_id)
        self.overrides.keep(self.game, state, self.raw_seen, set(chosen))
        self.seen = self.overrides.apply(self.raw_seen)
        self.table_prompt = None
        self.check_tallies()
        self.publish("keep_record")
        waiting, self._press_waiting = self.press_still_waits(), False
        if waiting and differing(self.game, self.ledger.state, self.seen):
            self.judge_waiting_press()  # the press that raised it, on the table set right
        return entry

    def reread(self, source: str, request_id: str | None) -> HistoryEntry:
        """"Read the table again": the correction the camera's view explains now, logged as a
        correction of that entry (one decision); the readings set aside are forgotten."""
        if self.raw_seen is None:
            raise NothingToUndo("the camera has given no picture of the table yet")
        try:
            fix = rereading(self.game, self._moves(len(self.ledger.frames)), self.ledger.state,
                            self.raw_seen, self._made)
        except ValueError as err:
            raise NothingToUndo(str(err)) from None
        assert fix is not None
        if fix["type"] == "undo":  # the newest entry, which the table shows never made
            taken = self.ledger.undo(source, request_id, fix["seq"])
            self.overrides.clear()
            self.seen = self.raw_seen
            self.after_move("undo")
            return taken
        newest = self.ledger.frames[-1].entry
        replaced = self.game.board_view(self.ledger.frames[self.ledger.frame_of(fix["entry"]) or -1].state)
        if newest is not None and newest.seq == fix["entry"]:
            made = self.ledger.correct(canonical(fix["action"]), source, request_id, None)
        else:
            made = self.ledger.amend(fix["entry"], canonical(fix["action"]), source, request_id)
        self.overrides.clear()
        self.seen = self.raw_seen
        self.after_move("correct", made, replaced)
        return made

