"""A place the camera cannot read, frame after frame: named, and its readings offered.

The stabiliser commits no board while any place is doubtful ("Can't see Nightclub 4
clearly: marks unclear"): a card under glare all evening, a cup's shadow, would hold every
move and every press of the game.  After :data:`DOUBT_FRAMES` camera frames of the same
reading, the places read confidently are set against the record, and the players are
asked, as a warning naming the place, which reading the table shows: each legal move (or
the pressed move) that the confident places and one content of the doubted place explain,
one tap each.  Nothing is recorded until they tap one (confident or silent: never a guess).

A reading they tapped vouches for the doubted place's content as the record then has it:
while the record still has that content there and the camera still cannot read it, the
board is read with the record's content at that place (the players told what lies there,
and no move since changed it), so the rest of the game is not asked about move by move.
A move that changes the place ends the vouching; it is asked about again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Piece,
    Prompt,
    State,
    Tap,
    Trigger,
    place_names,
)
from companion.reconcile import NEXT_MOVES_TRIED, NextMoves, reconcile
from companion.table.fills import Fill, fewest_changes_first, moved_in, moved_within, place_by_place
from companion.table.ledger import Ledger
from companion.table.overrides import Overrides, pieces_from, pieces_json, pieces_words
from companion.table.pace import SETTLE_FRAMES
from companion.table.presses import HELD_PRESS, HELD_PRESS_ASKED_TEXT, HELD_PRESS_TEXT

DOUBT_FRAMES = 2 * SETTLE_FRAMES  # frames one doubted reading stands before the players are asked
VOUCHED_FRAMES = 3  # frames a reading with only vouched-for doubts stands before it is read
READINGS_SHOWN = 6  # readings offered at most as taps
ANSWERS_SHOWN = 12  # what a place may hold, offered at most as taps (a die's six faces, nothing, ...)
MANY_PLACES = 3  # places asked about at once from which every one is also offered as recorded, one tap
FILLS_TRIED = 120  # contents of the doubted places set against the rules at most
READS = "reads"  # the players' answer of what the doubted places hold (a table action, never a move)


@dataclass
class Doubt:
    """The camera's reading while some places stay doubtful: how long it has stood, and the
    places the players vouched for (their content as the record had it when they said)."""

    view: BoardView | None = None
    places: frozenset[str] = frozenset()
    frames: int = 0  # frames read with these places doubtful (a hand's frames between them too)
    still: int = 0  # frames the reading has stood as it is
    vouched: dict[str, tuple[Piece, ...]] = field(default_factory=dict)
    said: Fill = field(default_factory=dict)  # what the players said a place holds, not yet recorded
    colours: dict[str, tuple[str, ...]] = field(default_factory=dict)  # colours said, marks not yet
    asked: Prompt | None = None  # the warning shown for the reading, while it stands
    asked_for: tuple[object, ...] | None = None  # the record, taps and press it was worked out on
    at_press: BoardView | None = None  # the reading as it stood when a press came (held since)
    pressed: object | None = None  # the held press whose places in play were unvouched
    recheck: frozenset[str] = frozenset()  # places to be asked by what they hold (a press came)
    reached: bool = False  # a hand passed over the board since the reading was last looked at

    def see(self, view: BoardView | None, places: frozenset[str]) -> int:
        """A frame read ``view`` with ``places`` doubtful (no doubt: it is gone; None: a hand
        hid the board, which neither ends the doubt nor shows the table still): how many
        frames these places have stood doubtful."""
        if view is None:
            self.still = 0
            self.reached = self.view is not None
            return self.frames if self.view is not None else 0
        if not places:
            self.view, self.places, self.frames, self.still = None, frozenset(), 0, 0
            return 0
        if places != self.places:
            self.places, self.frames, self.view, self.still, self.reached = places, 0, None, 0, False
            self.said = {p: stack for p, stack in self.said.items() if p in places}
            self.colours = {p: colours for p, colours in self.colours.items() if p in places}
            self.recheck &= places
        self.frames += 1
        self.still = self.still + 1 if view == self.view else 1
        self.view = view
        return self.frames

    def filled(self, record: BoardView) -> BoardView | None:
        """The reading with each doubted place as the record has it, when the players
        vouched for every one of them and the record still has that content there."""
        if self.view is None or any(p not in self.said and self.vouched.get(p) != record.get(p, ())
                                    for p in self.places):
            return None
        board = dict(self.view)
        for place in self.places:
            stack = self.said.get(place, record.get(place, ()))
            if stack:
                board[place] = stack
            else:
                board.pop(place, None)
        return board

    def vouch(self, record: BoardView, before: BoardView) -> None:
        """The players tapped a reading the warning offered: the doubted places the move
        tapped changed (from ``before``) hold what the record now has there.  A doubted place
        the move leaves as it was is not told by it (the reading was worked out with some
        content there, one of several that give the move), so it stays unread, and is asked
        again by what it holds: vouched as the record had it, a Move card laid there whose
        tap was lost would never be seen (King of Clubs seed 14, cafe, typical: A's Twist laid
        on a Dancer the camera then could not read, Vogue tapped as the reading on the other
        Dancer, the Twist's +1 vouched away and the night's winner recorded wrong)."""
        for place in self.places:
            if record.get(place, ()) != before.get(place, ()):
                self.vouched[place] = tuple(record.get(place, ()))
        self.asked = None
        # what was tapped was made before the tap, and the table may have gone on since where the
        # camera cannot read: judged as after a reach (``_recheck_after_reach``), a vouched place a
        # next move could change unseen is asked again (King of Clubs, a lamp over A's Dancer at
        # Nightclub 1, seed 300: A's Lead Dancer turned it up before the placings were tapped)
        self.reached = True

    def vouched_doubted(self) -> frozenset[str]:
        """The doubted places the players vouched for."""
        return frozenset(self.vouched) & self.places

    def unvouch(self, places: frozenset[str]) -> None:
        """``places`` are vouched for no more: what they hold is asked again."""
        for place in places:
            del self.vouched[place]

    def said_as_recorded(self, record: BoardView, places: frozenset[str]) -> None:
        """The players said the record is right where they had said otherwise (they set the
        table as it says): those places hold the record's content, vouched for as any other,
        so a move that may change them asks them again.  Left as said, the old answer stood
        for the place after the table changed there (Jivecat seed 302 under a lamp over
        Yellow's Skull 6: said empty, the record right that it held a Skull; that Skull was
        later paid for Drive-In, and the press, judged on the old answer set right, recorded
        the end of her turn)."""
        for place in places & set(self.said):
            del self.said[place]
            self.vouched[place] = tuple(record.get(place, ()))

    def unsay(self, record: BoardView) -> None:
        """The table read with the players' answers explains no move: an answer that differs
        from the record is asked again, as a place vouched for is: true when given, the table
        may have changed there since, unseen (Jivecat seed 3 under a lamp over Red's Skulls 4-6,
        ``scripts/lamp_games.py jv-mats``: two said empty just as a move gave Red two Skulls,
        then laid there unseen; the answers stood for the table, and the record wedged)."""
        for place in [p for p, stack in self.said.items() if tuple(record.get(p, ())) != stack]:
            del self.said[place]
            self.recheck |= {place}
            self.asked_for = None

    def forget_moved(self, record: BoardView) -> None:
        """Vouching ends for a place whose content the record changed; what the players said
        a place holds is vouched for once the record has it there."""
        self.vouched = {p: s for p, s in self.vouched.items() if record.get(p, ()) == s}
        for place, stack in list(self.said.items()):
            if record.get(place, ()) == stack:
                self.vouched[place] = self.said.pop(place)


def contents(game: Game, state: State, place: str, next_moves: NextMoves,
             hidden: frozenset[str] = frozenset()) -> list[tuple[Piece, ...]]:
    """What a doubted place may hold: what the record has there, nothing, each content a
    legal next move gives a place it changes (the Nightclubs' values whichever slot: the
    moves list each set of values once, in one order), and what the record has at the other
    ``hidden`` places (a piece moved from one to another under a lamp: the rules list one
    card of a kind, so Times Square's Charlie, moved by a play of two cards, is in no move
    of theirs)."""
    moved = next_moves.moved(game, state, NEXT_MOVES_TRIED)
    found = [tuple(moved.record.get(place, ())), ()]
    for stack in [*moved.stacks, *(tuple(moved.record.get(p, ())) for p in sorted(hidden))]:
        if stack not in found:
            found.append(stack)
    return found


def moves_read(game: Game, state: State, board: BoardView, taps: list[Tap], trigger: Trigger) -> list[Action]:
    """The moves that explain ``board`` (its places with pieces) by ``trigger``: the one the
    record would take, or each of several it fits (a choice)."""
    verdict = reconcile(game, state, board, list(taps), trigger)
    if verdict.action is not None and verdict.state is not None:
        return [verdict.action]
    prompt = verdict.prompt
    return list(prompt.options) if prompt is not None and prompt.kind == "choice" else []


def explains_a_move(game: Game, state: State, board: BoardView, taps: list[Tap]) -> bool:
    """Does a legal move explain ``board``, made now or once a press says it is done?"""
    return any(moves_read(game, state, board, taps, trigger) for trigger in ("board", "button"))


def in_play(game: Game, state: State, places: frozenset[str], next_moves: NextMoves) -> frozenset[str]:
    """The ``places`` a legal next move changes (a Move card may be laid there now)."""
    return places & next_moves.moved(game, state, NEXT_MOVES_TRIED).places


def readings(game: Game, state: State, view: BoardView, places: frozenset[str], taps: list[Tap],
             pressed: bool, next_moves: NextMoves) -> list[Action]:
    """The moves the table may show: for each content each doubted place may hold, the
    move the camera would read (and, with a press waiting, the move the press would
    record), or each of several it fits."""
    return [move for move, _ in read_fills(game, state, view, places, taps, pressed, next_moves)]


def read_fills(game: Game, state: State, view: BoardView, places: frozenset[str], taps: list[Tap],
               pressed: bool, next_moves: NextMoves,
               hidden: frozenset[str] = frozenset()) -> list[tuple[Action, Fill]]:
    """:func:`readings`, each with the content of the doubted places it was read with (and
    with what the record has at any ``hidden`` place, a said one too, among their contents)."""
    key = ("read_fills", frozenset(view.items()), places, tuple(taps), pressed, hidden)
    if (kept := next_moves.remembered(state, key)) is not None:  # (once a record: NextMoves.keep)
        return list(kept)
    held = {place: contents(game, state, place, next_moves, places | hidden) for place in places}
    fills = place_by_place(held, FILLS_TRIED)
    if len(fills) == FILLS_TRIED:  # cut: those that change fewer places from the record too
        fills += [f for f in fewest_changes_first(held, FILLS_TRIED) if f not in fills]
    record = next_moves.moved(game, state, NEXT_MOVES_TRIED).record  # (worked out once a state)
    fills += [f for f in [*moved_within(record, places), *moved_in(record, view, places)] if f not in fills]
    triggers: tuple[Trigger, ...] = ("board", "button") if pressed else ("board",)
    found: dict[str, tuple[Action, Fill]] = {}
    for fill in fills:
        board = {p: s for p, s in {**view, **fill}.items() if s}
        for trigger in triggers:
            for move in moves_read(game, state, board, taps, trigger):
                found.setdefault(json.dumps(move, sort_keys=True), (move, fill))
    next_moves.keep(state, key, read := list(found.values()))
    return list(read)


def place_answers(read: list[tuple[Action, Fill]], labels: Mapping[str, str],
                  more: Sequence[tuple[Piece, ...]] = (),
                  colours: Mapping[str, tuple[str, ...]] | None = None) -> list[Action]:
    """The readings as what a doubted place holds, one tap each (the table's own answer,
    ``reads``), the first place by name (the next is asked once it is said): asked so when
    two readings of the move read alike on the tablet (Baron Voodoo's set-up rolled at
    random, a die never read: six set-ups, each "48 dice on the grid", told apart by that
    die alone; a tap among them would be a guess).  Where the players said the place's
    colours, only contents of those colours."""
    place = min(labels, key=lambda p: (labels[p], p))
    said = (colours or {}).get(place)
    answers: dict[str, Action] = {}
    for stack in [*(fill.get(place, ()) for _, fill in read), *more]:  # the readings' first
        if said is not None and tuple(p.colour for p in stack) != said:
            continue
        says = f"{labels[place]} shows {pieces_words(stack)}"
        answers.setdefault(says, {"type": READS, "places": {place: pieces_json(stack)}, "says": says})
    return list(answers.values())


def as_recorded(record: BoardView, places: frozenset[str]) -> Action:
    """One tap for every doubted place at once, each as the record has it: what the players
    say when nothing moved under what hides them (a hand left resting on the board, a lamp's
    reflection over a row of places), rather than one tap a place, a dozen or more."""
    return {"type": READS, "places": {p: pieces_json(tuple(record.get(p, ()))) for p in sorted(places)},
            "says": f"All {len(places)} places as the record has them: nothing moved there"}


def colour_answers(answers: list[Action], labels: Mapping[str, str]) -> list[Action]:
    """More contents than fit as taps, asked in two taps: the place's colours first ("A7 red
    shows red (?)"), its marks next (the contents of that colour).  A colour only one content
    has is that content, one tap.  None when the colours are too many, or tell nothing apart
    (one colour, or one content each).  Baron Voodoo seed 1, the set-up rolled at random, a
    red 3 never read: 29 contents for A7, cut at 12, and red (3) was not among them; nothing
    the players could tap, and the game never left its set-up."""
    groups: dict[str, list[Action]] = {}
    for answer in answers:
        ((place, stack),) = answer["places"].items()
        pieces = pieces_from(stack)
        shown = ", ".join(f"{p.colour} (?)" if p.pips else p.colour for p in pieces) or "nothing"
        groups.setdefault(f"{labels[place]} shows {shown}", []).append(answer)
    if len(groups) > ANSWERS_SHOWN or len(groups) in (1, len(answers)):
        return []
    out: list[Action] = []
    for says, members in groups.items():
        if len(members) == 1:
            out.append(members[0])
            continue
        ((place, stack),) = members[0]["places"].items()
        out.append({"type": READS, "colours": {place: [p.colour for p in pieces_from(stack)]}, "says": says})
    return out


def doubt_prompt(game: Game, state: State, labels: Mapping[str, str], why: str,
                 options: list[Action]) -> Prompt:
    """The warning: the place named, each reading one tap (or, with none, what to do)."""
    named = ", ".join(labels.get(p, p) for p in sorted(labels))
    player = game.current_player(state)
    if not options:
        return Prompt(f"Can't read {named} ({why}): nothing is recorded while it cannot be "
                      "read. Clear what covers it, or declare the move.", "warning", player)
    shown = options[:READINGS_SHOWN]
    if all(a.get("type") == READS for a in options):
        shown = options[:ANSWERS_SHOWN]
        steps = ", its colour first, then its marks" if any("colours" in a for a in shown) else ""
        text = (f"Can't read {named} ({why}): nothing is recorded until you say what it shows. "
                f"Tap what the table shows there{steps}: " + " | ".join(str(a["says"]) for a in shown))
        return Prompt(text, "warning", player, shown)
    text = (f"Can't read {named} ({why}): nothing is recorded until you say what it shows. "
            "Tap the move the table shows: " + " | ".join(game.describe(state, a) for a in shown))
    return Prompt(text, "warning", player, shown)


class Doubting:
    """The referee's desk for places the camera cannot read (a part of
    :class:`~companion.table.referee.Referee`, which holds the state it reads)."""

    game: Game
    ledger: Ledger
    taps: list[Tap]
    raw_seen: BoardView | None
    seen: BoardView | None
    overrides: Overrides
    table_prompt: Prompt | None
    next_moves: NextMoves
    doubt: Doubt

    def record_right_where_said(self, chosen: set[str]) -> frozenset[str]:
        """"The record is right" tapped where the table differs at ``chosen`` places: those the
        camera cannot read, whose content there was the players' answer, not the camera's
        reading.  From now on they hold what the record has there (:meth:`Doubt.said_as_recorded`)."""
        said = self.doubt.places & chosen
        self.doubt.said_as_recorded(self.game.board_view(self.ledger.state), said)
        return said

    def publish(self, kind: str) -> None: ...
    def notice(self, key: str, prompt: Prompt | None) -> None: ...
    def board_seen(self, view: BoardView, vouched: frozenset[str] = frozenset()) -> object: ...
    def _board_settled(self) -> None: ...
    def _drop_held_press(self) -> None: ...
    def _disagreement(self, seen: BoardView, trigger: Trigger) -> Prompt | None: ...
    held_press: object | None  # the referee's press waiting for the camera to settle
    notices: dict[str, Prompt]

    def board_doubted(self, view: BoardView | None, doubtful: Mapping[str, str]) -> None:
        """A camera frame read ``view`` with the places in ``doubtful`` (by id, with why)
        unreadable and no hand over the board; None or no doubt: the stabiliser's own
        commits speak.  Counted in frames: the table's pace, never the wall clock."""
        if self.held_press is None:
            self.doubt.at_press = None
        elif self.doubt.at_press is None:
            # the press is for the table as it stood then, as read before this frame: players
            # carry on (Baron Voodoo seed 6, cafe: the set-up's press held under a doubt, the
            # first capture made before the doubt was asked about; the set-up read from the
            # grid after it fitted nothing, and the game wedged)
            self.doubt.at_press = self.doubt.view
        frames = self.doubt.see(view, frozenset(doubtful) if view is not None else frozenset())
        if not frames:
            if self.doubt.asked is not None and self.table_prompt is self.doubt.asked:
                self.table_prompt = None  # the place reads clearly again: the question is moot
                self.publish("prompt")
            self.doubt.asked = self.doubt.asked_for = None
            self._held_press_says(HELD_PRESS_TEXT)  # the camera judges the press once it settles
            return
        if self.doubt.still < VOUCHED_FRAMES:
            return  # a hand just lifted, a piece still settling: the table is read once it stands
        record = self.game.board_view(self.ledger.state)
        self.doubt.forget_moved(record)
        self._recheck_at_press()
        self._recheck_after_reach(record)
        filled = self.doubt.filled(record)
        if filled is not None:
            if filled != self.raw_seen:
                self.board_seen(filled, self.doubt.places)  # those places as vouched, not as read
                self._unvouch_if_it_explains_nothing(filled)
            elif self.held_press is not None:
                self._board_settled()  # the board as it stood is the one the press is judged on
            return
        newest = self.ledger.frames[-1].entry
        asked_for = (len(self.ledger.frames), newest.seq if newest is not None else None,
                     len(self.taps), self.held_press is not None, self.doubt.view)
        if frames < DOUBT_FRAMES or asked_for == self.doubt.asked_for:
            return
        self.doubt.asked_for = asked_for
        assert self.doubt.view is not None
        said = {p: s for p, s in self.doubt.said.items() if s}  # the places the players said
        open_places = frozenset(p for p in self.doubt.places if p not in self.doubt.said)
        places = self.doubt.places
        read = read_fills(self.game, self.ledger.state, {**self.doubt.view, **said}, open_places,
                          self.taps, self.held_press is not None, self.next_moves, places)
        if self.held_press is not None and self.doubt.at_press not in (None, self.doubt.view):
            assert self.doubt.at_press is not None
            pressed = read_fills(self.game, self.ledger.state, {**self.doubt.at_press, **said}, open_places,
                                 self.taps, True, self.next_moves, places)
            read = [*pressed, *(r for r in read if r[0] not in [m for m, _ in pressed])]  # the press's first
        options = [move for move, _ in read]
        names = place_names(self.game, self.ledger.state)
        labels = {p: names.get(p, p) for p in open_places}
        said = [self.game.describe(self.ledger.state, o) for o in options[:READINGS_SHOWN]]
        if len(set(said)) < len(said) or len(options) > READINGS_SHOWN or (not options and open_places) \
                or open_places & self.doubt.recheck:
            # two taps alike, more readings than taps (the one the table shows may be cut off),
            # or no reading of a move at all (the places' contents together explain nothing,
            # each alone unknown): asked by what a place holds, one place at a time
            # (a place vouched for is asked last: the players said it, and the record has it
            # there still; asked first, it was asked again and again while the other place
            # waited, the answer vouching for it each time: King of Clubs seed 3, cafe, typical)
            unsaid = {p: label for p, label in labels.items() if p not in self.doubt.vouched} or labels
            first = min(unsaid, key=lambda p: (unsaid[p], p))
            more = contents(self.game, self.ledger.state, first, self.next_moves, self.doubt.places)
            options = place_answers(read, unsaid, more, self.doubt.colours)
            if len(options) > ANSWERS_SHOWN:
                options = colour_answers(options, unsaid) or options
            asked_apart = self.doubt.recheck | set(self.doubt.colours)  # (each by what it holds)
            if len(open_places) >= MANY_PLACES and not open_places & asked_apart:
                options = [as_recorded(record, open_places), *options]
        why = "; ".join(sorted({str(doubtful[p]) for p in self.doubt.places}))
        prompt = doubt_prompt(self.game, self.ledger.state, labels, why, options)
        self.doubt.asked = self.table_prompt = prompt
        self.publish("prompt")
        if prompt.options:  # the press waits on the players' tap, not on the camera
            self._held_press_says(HELD_PRESS_ASKED_TEXT)

    def _unvouch_if_it_explains_nothing(self, board: BoardView) -> None:
        """The board read with the vouched places as the record has them differs from the record,
        and no move explains it, made now or once a press says it is done: what a vouched place
        holds may have changed under what hides it, as the record could not follow, so a place a
        legal move changes is vouched for no more, and asked (King of Clubs seed 1 under a lamp
        over Nightclub 3 and two Dancers all evening: said empty before the Nightclubs were laid,
        Nightclub 3 stayed so, the four laid read as three, no move, and the game never began)."""
        state = self.ledger.state
        recorded = self.game.board_view(state)
        shown, record = ({p: s for p, s in b.items() if s} for b in (board, recorded))
        if shown == record or explains_a_move(self.game, state, shown, self.taps):
            return
        vouched = self.doubt.vouched_doubted()
        if vouched:
            self.doubt.unvouch(in_play(self.game, state, vouched, self.next_moves))
        self.doubt.unsay(recorded)

    def _recheck_at_press(self) -> None:
        """A press came while a place the players vouched for cannot be read, and a legal move
        may change it (a Move card laid on that Dancer): what it holds now is asked, once for
        the press, before the press is judged.  Judged on the place as vouched, a card laid
        there since, its tap lost, was never seen (King of Clubs seed 18, cafe, passive, with
        the face-step rule: B's Hustle on a Dancer vouched for three Moves, its tap lost; B's
        pass was recorded, and the night's point went the other way)."""
        if self.held_press is None or self.doubt.pressed is self.held_press:
            return
        self.doubt.pressed = self.held_press
        vouched = self.doubt.vouched_doubted()
        stale = in_play(self.game, self.ledger.state, vouched, self.next_moves) if vouched else frozenset()
        self.doubt.unvouch(stale)
        self.doubt.recheck = stale

    def _recheck_after_reach(self, record: BoardView) -> None:
        """A hand passed over the board, and a legal move that changes a vouched place could be
        what the table shows now (every place read otherwise than the record is as that move
        lays it; nothing, for a move made wholly where the camera cannot read): what those
        places hold now is asked again.  Read as vouched, such a move is never seen (King of
        Clubs seed 1 under a lamp over both Dancers at Nightclub 3 all evening: the Dancers
        turned up there, and the record waited for that reveal for ever; seed 2, a Move card
        laid under it, the night's point card then taken in view, and the record waited for
        that Move)."""
        if not self.doubt.reached or self.doubt.view is None:
            return
        self.doubt.reached = False
        if self.doubt.colours:
            # the colours said were of the card that lay there before the reach: its marks,
            # asked among those colours only, may no longer be what lies there (Jivecat seed 3
            # under a lamp over Mambo and Vogue: Bossa Nova's cyan said, then slid down and
            # Vogue refilled pink; the marks asked were cyan ones only, and the game never
            # went on)
            self.doubt.colours.clear()
            self.doubt.asked_for = None
        places = self.doubt.places
        vouched = self.doubt.vouched_doubted()
        if not vouched:
            return
        view = self.doubt.view
        shown = {p: tuple(view.get(p, ())) for p in {*view, *record} - places
                 if tuple(view.get(p, ())) != tuple(record.get(p, ()))}
        moved = self.next_moves.moved(self.game, self.ledger.state, NEXT_MOVES_TRIED)
        unseen = vouched & moved.unseen_within(places, shown)
        if self.taps or self.held_press is not None:
            unseen |= self._read_otherwise(vouched, view)
        self.doubt.unvouch(unseen)
        if unseen:
            self.doubt.recheck |= unseen
            self.doubt.asked_for = None

    def _read_otherwise(self, vouched: frozenset[str], view: BoardView) -> frozenset[str]:
        """The vouched places that a move the cards tapped (or the press) could make lays
        otherwise than vouched: a legal reading of the table with other contents there.  The
        rules list one card of a kind (a hand is never known), so a play of several cards that
        also moved a piece under the lamp is found only so (Times Square, Champagne Charlie
        moved within three places under a lamp as Hal went five spaces on two cards: read with
        Charlie as vouched, the press recorded that he stayed)."""
        places = self.doubt.places
        read = read_fills(self.game, self.ledger.state, {p: s for p, s in view.items() if p not in places},
                          places, self.taps, self.held_press is not None, self.next_moves)
        return frozenset(p for _, fill in read for p in vouched if fill.get(p, ()) != self.doubt.vouched[p])

    def _held_press_says(self, text: str) -> None:
        """The held press's notice, in words that say what it waits for (King of Clubs seed 4,
        the README's demo: "it counts once the camera sees the table clear of hands" beside
        a doubt's warning that offered the press's move as one tap: the players waited)."""
        held = self.held_press
        if held is not None and HELD_PRESS in self.notices:
            self.notice(HELD_PRESS, Prompt(text, "info", getattr(held, "seat", None)))

    def doubt_reads(self, places: object, colours: object = None) -> None:
        """The players tapped what the doubted places hold (``reads``: {place: pieces}): the
        table is read with those places so, as a frame read whole would be, and they stay
        so while the record has that there and the camera still cannot read them.  Or they
        tapped a place's colours (``colours``: {place: [colour, ...]}): it is asked again
        with only the contents of those colours."""
        if colours is not None and places is None:
            self._doubt_colours(colours)
            return
        if not isinstance(places, dict) or self.doubt.view is None or not places \
                or not set(places) <= set(self.doubt.places):
            raise MalformedAction("reads: places the camera cannot read now, each with its pieces")
        try:
            said = {str(p): pieces_from(stack) for p, stack in places.items()}
        except ValueError as err:
            raise MalformedAction(f"reads: {err}") from None
        self.doubt.said.update(said)
        self.doubt.recheck -= set(said)
        for place in said:  # (its colours were said to ask its marks: told whole, they are moot)
            self.doubt.colours.pop(place, None)
        self.doubt.asked = self.doubt.asked_for = None  # the places left are asked about afresh
        if self.table_prompt is not None and any(o.get("type") == READS for o in self.table_prompt.options):
            self.table_prompt = None
        self.publish("prompt")
        record = self.game.board_view(self.ledger.state)
        # a place said as the record has it is vouched for now, before the board it completes
        # is judged: a move that press records and that changes the place then ends it, and the
        # place is asked again.  Left as said, it stood for the table all evening (Jivecat seed
        # 3 under a lamp over Mambo and Vogue: Vogue said as Bossa Nova, the Staff chip's press
        # then slid Bossa Nova down in the record; Vogue read as Bossa Nova still, its refill
        # was never seen, and the record waited for it for ever)
        self.doubt.forget_moved(record)
        board = self.doubt.filled(record)
        if board is None:
            return  # a place is left to say
        if board != self.raw_seen:
            self.board_seen(board, frozenset(self.doubt.places))
        elif self.held_press is not None:
            self._board_settled()
        self._said_differs()

    def _said_differs(self) -> None:
        """A place the players said holds what the record does not, and nothing recorded or
        asked for it, no card waiting: the difference is warned about at once, as the camera's
        own reading of it would be at the next press, with its ways out.  Left quiet, the next
        card tapped is read with it (King of Clubs seed 9, cafe, typical: a Move card missed
        the reader under a Dancer the camera could not read, the players said the Dancer's
        two Moves, the next card's tap was read as the one laid already, and the record stayed
        a Move short all night while the table was read as the players had said it)."""
        if self.table_prompt is not None or self.taps or self.seen is None:
            return
        record = self.game.board_view(self.ledger.state)
        if not any(record.get(p, ()) != stack for p, stack in self.doubt.said.items()):
            return
        warned = self._disagreement(self.seen, "board")
        if warned is not None:
            self.table_prompt = warned
            self.publish("prompt")

    def _doubt_colours(self, colours: object) -> None:
        """A doubted place's colours said (the first of two taps): asked again, by its marks."""
        if not isinstance(colours, dict) or self.doubt.view is None or len(colours) != 1 \
                or not set(colours) <= set(self.doubt.places) \
                or not all(isinstance(c, list) and c and all(isinstance(x, str) for x in c)
                           for c in colours.values()):
            raise MalformedAction("reads: one place the camera cannot read now, "
                                  "with the colours of its pieces")
        ((place, said),) = colours.items()
        self.doubt.colours[str(place)] = tuple(said)
        self.doubt.asked = self.doubt.asked_for = None  # asked afresh, with that colour
        if self.table_prompt is not None and any(o.get("type") == READS for o in self.table_prompt.options):
            self.table_prompt = None
        self.publish("prompt")

    def doubt_answered(self) -> None:
        """The players declared a move while the doubt's warning stood: the doubted places
        hold what the record now has there, and a press held for the move is answered."""
        if self.doubt.asked is None or self.table_prompt is not self.doubt.asked:
            return
        record = self.game.board_view(self.ledger.state)
        frames = self.ledger.frames
        self.doubt.vouch(record, self.game.board_view(frames[-2].state) if len(frames) > 1 else record)
        self.doubt.asked_for = None
        filled = self.doubt.filled(record)
        if filled is not None:
            # the table as the camera reads it now, the doubted places as answered, is the
            # board seen: not the board committed before the doubt, which the move answered
            # changed (Swing State seed 2, the die's 5 never read: the die picked up was the
            # board seen; set against the roll tapped, it read as "Red picks up the die")
            self.raw_seen = filled
            self.overrides.recall(record, filled, self.doubt.places)
            self.seen = self.overrides.apply(filled, record)
        if self.held_press is not None:
            self._drop_held_press()
