"""The search for what explains a table that differs from the record.

The entry that explains it, searched among the older entries (each other legal reading of
an entry, or one value a mark off, replayed with the moves since and set against the table);
a piece misread when it was laid, however long ago.  Pure functions over the game's rules and
the record's moves: the words and the ways out are :mod:`companion.table.disagreement`'s, the
moves made around a press (two with one press, one without) :mod:`companion.table.presses`'.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Piece,
    RuleError,
    State,
    Tap,
    Trigger,
)
from companion.reconcile import (
    RecordedMove,
    changed_places,
    reread,
    tally_mismatch,
)

EARLIER = 40  # how many standing moves back the entry that explains a difference is searched
TRIES = 1500  # moves applied at most in one search (each candidate replays the moves since)
JUDGED = 60  # candidate records set against the table at most in one search
OTHER_READINGS = 3  # the newest camera-read entries whose every other legal reading is tried
MANY = 40  # an entry with more other legal readings than this is not guessed among
SHOWN = 4  # corrections offered at most (several readings of one entry)
ONE_OFF = 24  # an older entry with more one-value misreadings than this is not guessed among
MADE_KEPT = 4000  # corrected records kept between searches at most (then forgotten at once)
TAKEN_BACK = 12  # standing moves searched for the entry that took a refused card (laid on the wrong reader)

def key(action: Action) -> str:
    return json.dumps(action, sort_keys=True)


def differing(game: Game, state: State, seen: BoardView) -> set[str]:
    """The places (no score places) where the table and the record differ."""
    return {p for p in changed_places(game.board_view(state), seen) if not game.score_place(p)}


def fits(game: Game, state: State, seen: BoardView, taps: list[Tap],
         misread: frozenset[str] = frozenset(), choice: bool = False, tallies: bool = True) -> bool:
    """Whether the table is the record ``state``, or it with one legal move made since,
    except at the places ``misread`` (those of an entry the camera misread, which it may
    misread still).  With ``choice``, a table several legal moves explain fits too (the
    press asks which: an Offering token taken, or an Offering die's effect).  Without
    ``tallies``, the score pieces the camera counts are not set against it (a correction
    that explains the places, the score pieces' own difference left for its own offer)."""
    table = {p: pieces for p, pieces in seen.items() if p not in misread}
    board = game.board_view(state)
    if not {p for p in changed_places(board, table) if not game.score_place(p)} - misread:
        return (not tallies or tally_mismatch(game, state, seen) is None) and as_many(board, seen, misread)
    if misread:  # the record's reading there: the move made since is read from the rest
        table.update({p: v for p, v in board.items() if p in misread})
    made: dict[str, State] = {}  # what a press would record (reconcile's one legal move)
    for action in game.explain(state, table, list(taps), "button"):
        try:
            made.setdefault(key(action), game.apply(state, action))
        except (RuleError, MalformedAction):
            continue
    if len(made) != 1 and not (choice and made):
        return False
    return any(not differing(game, after, table) - misread
               and (not tallies or tally_mismatch(game, after, seen) is None)
               and as_many(game.board_view(after), seen, misread) for after in made.values())


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
    tallies: bool = True
    """Whether a corrected record must have the score pieces the camera counts.  False: a
    correction that explains the places and leaves the record's score pieces as they are,
    their difference named as what stays different and asked on its own (a roll misread while
    a score chip lies off its place: no correction explains both, and none was offered; Swing
    State seed 8, cafe, typical, had "the die and Blue's V chips differ" with no entry named)."""

    def fit(self, state: State, misread: frozenset[str] = frozenset(), choice: bool = False) -> bool:
        """:func:`fits` for this search: without :attr:`tallies`, the corrected record must
        keep the score pieces the record has now (their difference stays as it is named)."""
        game = self.game
        if not self.tallies and self.moves:
            now = self.moves[-1].after
            if game.tallies(state, game.board_view(state)) != game.tallies(now, game.board_view(now)):
                return False
        return fits(game, state, self.seen, self.taps, misread, choice, self.tallies)

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

    def seeable(self, index: int, action: Action) -> bool:
        """Whether move ``index`` read as ``action`` is a move the camera could have recorded:
        one the camera read (it records a change of the board) changes some place read so.  A
        reading that leaves the board as it was is no reading of what it saw: the entry is one
        nobody made (:meth:`never_made`).  Swing State seed 8, cafe, typical: the die, showing
        Blue's 3 on its tray, read 2 for a moment, became "Blue rolls 2"; the tablet offered
        it corrected to "Blue rolls 3", a second roll nobody made with the die never picked up,
        the players tapped it, and their pick-up for the roll the record no longer awaited
        was refused until the game wedged."""
        return self.moves[index].source != "camera" or bool(self.laid(index, action))

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
        """The other legal readings of move ``index``: its type and player, another value;
        where each seat's cards are read on its own reader (:attr:`Game.own_readers`), with
        the cards read for it.  A reading with other cards names cards no reader read (Times
        Square seed 12, cafe, passive: A's first Hal card missed the reader, and the tablet
        offered to correct B's older "Hal 3; Hal 1" to "B plays Hal 1", a move nobody made,
        where the card missed now explained the table)."""
        move, game = self.moves[index], self.game
        if self.readings is not None and move.seq in self.readings:
            return self.readings[move.seq]
        out = []
        cards = cards_read(game, move.action) if game.own_readers else None
        for action in game.legal_actions(move.before):
            if action.get("type") == move.action.get("type") \
                    and action.get("player") == move.action.get("player") \
                    and set(action) == set(move.action) and key(action) != key(move.action) \
                    and (cards is None or cards_read(game, action) == cards):
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
            state = self.replayed(index, again) if again is not None and self.seeable(index, again) else None
            if again is not None and state is not None:
                self.judged += 1
                if self.fit(state):
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
            if not exact and near and self.never_made():
                return None  # the table is the record without the newest entries: not a near reading
            if exact or near:
                return move, (exact or near)[:SHOWN]
        return self.misread_earlier(read)

    def never_made(self) -> list[RecordedMove]:
        """The newest entries, one or two, read from the table, when the record without them
        is the table: moves nobody made, oldest first (Swing State seed 4, cafe: the die,
        untouched, read as another colour for a moment and back, became "Incumbent picks up
        the die" and "Incumbent rolls 3"; he then picked it up, and the table, no die, fitted
        no reading of the roll).  Two when a piece knocked aside as a press came was read as
        a move and, put back at the next press, as another (Baron Voodoo seed 12, cafe,
        passive: "Gran Bwa uses Papa Legba's power: B1 -> A1", then "Erzulie Freda uses Papa
        Legba's power: A1 -> B1", for Gran Bwa's Offering; the table fitted neither alone,
        and the game wedged).  Where each seat's cards are read on its own reader, none while
        cards of another seat than the newest move's are read (Times Square, cafe: B's move
        back, a card missed, read as A's never made).  [] otherwise."""
        if self.moves and self.game.own_readers:
            mover = self.game.current_player(self.moves[-1].before)
            if any(t.seat not in (None, mover) for t in self.taps):
                return []  # the next player's cards read: they saw that move made
        for count in (1, 2):
            newest = self.moves[-count:]
            if len(newest) < count or any(m.source not in ("camera", "table") for m in newest):
                return []
            self.judged += 1
            if self.fit(newest[0].before, choice=count > 1):
                return newest
        return []

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
            state = self.replayed(index, action) if self.seeable(index, action) else None
            if state is None:
                continue
            self.judged += 1
            if self.fit(state):
                exact.append(action)
            elif self.fit(state, self.laid(index, action) | recorded):
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
                if state is not None and search.fit(state):
                    found.append((action, Laid(place, was, now)))
        if found:
            return move, [a for a, _ in found], found[0][1]
    return None


def partly(game: Game, moves: list[RecordedMove], seen: BoardView, taps: list[Tap], differ: set[str],
           readings: dict[int, list[Action]] | None,
           made: dict[tuple[object, ...], State | None] | None) -> tuple[
               tuple[RecordedMove, list[Action]] | None, Laid | None, Search]:
    """The correction of an entry that explains every differing place but not the score
    pieces, and leaves those as the record has them (:attr:`Search.tallies`): the entry, its
    readings and the piece it laid otherwise (or None), and the search that found it."""
    search = Search(game, moves[-EARLIER:], seen, taps, readings=readings, made=made, tallies=False)
    found = search.explaining(differ)
    if found is not None:
        return found, None, search
    whole = Search(game, moves, seen, taps, readings=readings, made=made, tallies=False)
    if (hit := misread_when_laid(whole, differ)) is not None:
        return (hit[0], hit[1]), hit[2], whole
    return None, None, search


def cards_read(game: Game, action: Action) -> Counter[str]:
    """The card ids ``action`` names anywhere in it (each as often as named)."""
    known = set(game.card_ids())
    found: Counter[str] = Counter()
    todo: list[object] = [action]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, str) and item in known:
            found[item] += 1
    return found


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


def taken_by_another(game: Game, moves: list[RecordedMove],
                     taps: list[Tap]) -> list[tuple[RecordedMove, Action]]:
    """A card tapped on a seat's reader that a recent entry (of ``moves``, oldest first)
    recorded as another seat's move: that card was first laid on the wrong seat's reader.
    Each such entry, the newest that names the card, with its move read as the tapping seat's
    where the record replayed from it stands.  Swing State seed 9, cafe, typical: Red's Black
    Wild laid on Blue's reader was recorded "Blue plays Missing hard drive"; Red's tap of it on
    her own reader was refused as played already this round, no entry was named, and the game
    wedged."""
    search = Search(game, moves[-TAKEN_BACK:], {}, [])
    out: dict[str, tuple[RecordedMove, Action]] = {}
    for tap in taps:
        for index in range(len(search.moves) - 1, -1, -1):
            move = search.moves[index]
            if tap.card not in cards_read(game, move.action):
                continue
            who = move.action.get("player")
            if tap.seat is not None and isinstance(who, int) and who != tap.seat:
                other = {**move.action, "player": tap.seat}
                if search.replayed(index, other) is not None:
                    out.setdefault(key(other), (move, other))
            break  # the newest entry that names the card
    return list(out.values())[:SHOWN]


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


def due_move_shown(game: Game, state: State, seen: BoardView, taps: list[Tap]) -> Action | None:
    """The one move the rules allow now (a pawn's move after its roll), when the table as
    read is the record with that move made: its places are the move, never a misread to set
    aside (Swing State seed 6, cafe, typical: Blue's 6 read 5 at the press of his pawn's
    move, refused; with the die read 6 again, "the record is right" set aside the pawn's old
    and new places, the camera saw his move no more, and every press after it found nothing
    to record until the game wedged)."""
    due = game.legal_actions(state)
    if len(due) != 1 or not changed_places(game.board_view(state), seen):
        return None
    return due[0] if fits(game, state, seen, taps) else None


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


def with_score_places(game: Game, state: State, raw: BoardView, seen: BoardView,
                      places: set[str]) -> set[str]:
    """``places`` to set aside as "the record is right", with the differing score pieces'
    places too where the table would still count them otherwise (``seen``: as read with the
    places set aside before; ``raw``: as the camera reads).  Swing State seed 17, cafe,
    typical: a 1 V chip knocked onto the 5 V row beside a 5 V chip set aside as misread
    blue; only the chip's empty place was set aside, the warning stood, and the players'
    same tap was logged 500 times."""
    board = game.board_view(state)
    kept = {p: v for p, v in seen.items() if p not in places}
    kept.update({p: board[p] for p in places if p in board})  # as the table will read after
    if tally_mismatch(game, state, kept) is None:
        return places
    return places | {p for p in changed_places(board, raw) if game.score_place(p)}
