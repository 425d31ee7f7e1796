"""A way out of every disagreement between the table and the record, for a person.

When what the camera sees differs from the record and no legal move explains it, the
players are told where (the place's printed name, what the table shows there, what the
record has) and offered each way out as one tap:

- the correction of the entry that explains it (searched among the older entries, not only
  the newest): a re-reading of that entry from what the table shows, or another value of
  it after which the table and the score pieces are as the record would then have them;
  the moves since stand (``{"type": "correct", "entry": seq, "action": ...}``);
- the newest entry taken back, when the table recorded it and the record without it is the
  table: a move nobody made (``{"type": "undo", "seq": seq}``); or the newest two at once
  (``"through"``: the older), a piece knocked and put back read as two moves;
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
The search for the entry that explains it is :mod:`companion.table.search`'s; the readings the
players set aside are :mod:`companion.table.overrides`'.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from companion.games.base import (
    Action,
    BoardView,
    Game,
    Prompt,
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
    tally_mismatch,
)
from companion.table.ledger import UNSURE, HistoryEntry, Ledger, NothingToUndo, canonical
from companion.table.misreads import one_off
from companion.table.overrides import Overrides, kept_record, pieces_words
from companion.table.presses import second_taps, two_moves
from companion.table.search import (
    EARLIER,
    SHOWN,
    TAKEN_BACK,
    Laid,
    Search,
    alike,
    differing,
    due_move_shown,
    key,
    misread_when_laid,
    other_seats,
    partly,
    set_aside,
    taken_by_another,
    with_score_places,
)

NOT_READ = "not among the cards read"  # the tablet lists the cards its readers read
TWO_MOVES = "Were two moves made since the record's last"  # a press forgotten, asked
KEEP_RECORD: Action = {"type": "keep_record"}
REREAD: Action = {"type": "reread"}
TABLE_ACTIONS = frozenset({"keep_record", "reread"})
"""Table actions of a disagreement prompt besides ``correct`` (never a game's own types)."""


def two_moves_words(game: Game, state: State, first: Action, lower: bool = False) -> str:
    """The question of two moves since the record, the first named (after "Or", ``lower``)."""
    asked = f"{TWO_MOVES[0].lower()}{TWO_MOVES[1:]}" if lower else TWO_MOVES
    return (f" {asked}, {game.describe(state, first)}, then another (a press forgotten)? "
            "If so, record the first: the second follows.")


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
    unmade = search.never_made() if found is None and differ else []
    # two moves since, a press held or forgotten, are asked beside an older entry's correction
    # that explains the table too: the players know which they made (Baron Voodoo seed 6,
    # cafe, passive: a capture and its die's Swap were offered only as a correction of the
    # Swap before, which no one had made, and the game wedged)
    first = two_moves(game, state, seen, list(taps), differ, next_moves) \
        if differ and not unmade else None
    part = False  # the correction explains the places only: the score pieces still differ after it
    if found is None and differ and tally is not None and not unmade and not first:
        found, laid, search = partly(game, moves, seen, list(taps), differ, readings, made)
        part = found is not None
    named, since = differ, False
    if found is not None:  # name the places the correction changes; the move made since apart
        index = next(i for i, m in enumerate(search.moves) if m.seq == found[0].seq)
        fixed = search.replayed(index, found[1][0])
        mended = differ & changed_places(board, game.board_view(fixed)) if fixed else set()
        named, since = (mended, mended != differ) if mended else (differ, False)
        named = differ if first else named  # (the two moves change every differing place)
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
        where = " and ".join(labels.get(p, p) for p in sorted(named))
        text += (f" Entry #{number(move.seq)} ({was}) explains it" + (f" at {where}" if part else "")
                 + f": {shows}. If the table is right, correct entry #{number(move.seq)}")
        text += ("; the moves since stand" if move.seq != moves[-1].seq else "")
        text += ("; the move made since is recorded next." if since else ".")
        if part:
            text += (" It leaves the score pieces as the record has them: they still differ after "
                     f"it ({tally}), asked on their own.")
        options = [{"type": "correct", "entry": move.seq, "action": a} for a in shown]
        if first:
            text += " Or" + two_moves_words(game, state, first[0], lower=True)
            options += list(first)
    elif unmade:
        text += never_made_words(game, unmade, number)
        options = [undo_option(unmade)]
    elif first:
        text += two_moves_words(game, state, first[0]) + missed_card(game)
        options = list(first)
    elif differ:  # a move made without its press that no tap names: the players know it
        text += missed_card(game)
        text += " If a move was made on the table without its press, declare it: the press is judged again."
    text += " If the table is wrong, tap that the record is right and set the table as it says."
    options.append(dict(KEEP_RECORD))
    if camera:
        options.append(dict(REREAD))
    return Prompt(text, "warning", game.current_player(state), options)


def never_made_words(game: Game, unmade: list[RecordedMove], number: Callable[[int], int | None]) -> str:
    """The entries the table shows never made, in words: the oldest named as the entry that
    explains the table, the one after it beside it."""
    first, *rest = unmade
    text = f" Entry #{number(first.seq)} ({game.describe(first.before, first.action)}) explains it"
    if not rest:
        return text + (f": the table shows it was never made. If the table is right, undo entry "
                       f"#{number(first.seq)}.")
    later = ", ".join(f"#{number(m.seq)} ({game.describe(m.before, m.action)})" for m in rest)
    return text + (f", with entry {later} after it: the table shows neither was made (a piece moved "
                   f"and put back, read as moves). If the table is right, undo entries #{number(first.seq)} "
                   f"and #{number(unmade[-1].seq)}.")


def undo_option(unmade: list[RecordedMove]) -> Action:
    """The one tap that takes back the entries the table shows never made (the newest, and
    the older ones with it: ``through``)."""
    option: Action = {"type": "undo", "seq": unmade[-1].seq}
    if len(unmade) > 1:
        option["through"] = unmade[0].seq
    return option


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
    if found is None and differ and (unmade := search.never_made()):
        return undo_option(unmade)
    if found is None or len(found[1]) != 1:
        raise ValueError("no one correction of an entry makes the record what the camera "
                         "sees; tap the correction that is your table, or that the record is right")
    move, (action,) = found
    if unsure:  # logged with the readings it was taken among: its line says so (ledger.UNSURE)
        action = {**action, UNSURE: unsure}
    return {"type": "correct", "entry": move.seq, "action": action}


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
    _press_again: bool
    _again: bool
    _pressing: int | None = None  # the seat of the press judged now (None: the turn button)
    _press_seat: int | None = None  # the seat of the press that waits for its answer
    _asked: tuple[str, Prompt | None] | None
    _warned: tuple[str, Prompt | None] | None
    _readings: dict[int, list[Action]]
    _one_off: tuple[tuple[str, tuple[str, ...]], ...] = ()  # the refused reading's offers, by key
    _made: dict[tuple[object, ...], State | None]
    next_moves: NextMoves
    notices: dict[str, Prompt]
    record_right_where_said: Callable[[set[str]], frozenset[str]]  # (the doubt flow's)

    def outlasting_taps(self) -> list[Tap]:
        """The cards tapped that outlast the move the players just declared
        (:meth:`Game.tap_outlasts`): read with the table after their answer, not spent on it."""
        newest = self.ledger.frames[-1].entry
        if newest is None:
            return []
        state = self.ledger.state
        return [t for t in self.taps if self.game.tap_outlasts(state, newest.action, t.card, t.seat)]

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

    def second_of_two(self, asked: Prompt | None) -> list[Tap] | None:
        """The players recorded the first of the two moves a warning asked about (a press
        forgotten): the cards tapped for the second, kept for the press that raised it, which
        is judged again and records it (Times Square seed 17, cafe, passive: B's move, its
        press forgotten, then A's trade on the shared reader; with the taps cleared, A's
        trade, which no camera sees, was lost).  None when the answer was not that."""
        newest = self.ledger.frames[-1].entry
        if asked is None or TWO_MOVES not in asked.text or newest is None or len(self.ledger.frames) < 2 \
                or key(newest.action) not in {key(o) for o in asked.options}:
            return None
        return second_taps(self.game, self.ledger.frames[-2].state, newest.action, self.taps)

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
            self.seen = self.overrides.apply(self.raw_seen, self.game.board_view(self.ledger.state))

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
        self._pressing, self._again = self._press_seat, self._press_again
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
                                + "A card tapped by mistake can be forgotten.", "warning",
                                self.game.current_player(state), [])
            elif prompt is not None and refusals:
                prompt.text = refused + ("If a card was laid on the wrong seat's reader, tap the "
                                         "move as it was meant. " if seats else "") + prompt.text
            # a refused card an entry recorded as another seat's: laid first on the wrong reader
            taken = taken_by_another(self.game, self._moves(TAKEN_BACK), self.taps) \
                if refusals and self.taps else []
            if prompt is not None and taken:
                named = "; ".join(f"entry #{self.ledger.move_number(move.seq)} "
                                  f"({self.game.describe(move.before, move.action)})" for move, _ in taken)
                prompt.text = prompt.text.replace(refused, refused + (
                    f"The card is in {named}: if it was laid on the wrong seat's reader, tap the "
                    "correction. "), 1)
                prompt.options[:0] = [{"type": "correct", "entry": move.seq, "action": other}
                                      for move, other in taken]
            # a reading refused, or a press the table does not match and no entry's correction
            # or undoing explains: the readings a mark off at one place that the rules allow
            # (Baron Voodoo seed 17, cafe, passive: B7 read a pip high, a capture pressed that
            # left its die there so was not matched, declared, then B7 set aside: two entries)
            unexplained = prompt is not None and trigger == "button" \
                and not any(o.get("type") in ("correct", "undo") for o in prompt.options)
            offers = one_off(self.game, state, seen, self.taps, trigger) \
                if refusals or unexplained else {}
            if prompt is not None and offers:
                labels = place_names(self.game, state)
                places = sorted({p for _, at, _ in offers.values() for p in at})
                how = " or ".join(sorted({h for _, _, h in offers.values()}))
                said = (f"The camera may have misread {' or '.join(labels.get(p, p) for p in places)} "
                        f"{how}: if so, tap the reading the table shows. ")
                prompt.text = prompt.text.replace(refused, refused + said, 1) if refusals \
                    else said + prompt.text
                prompt.options[:0] = [action for action, _, _ in offers.values()]
            self._one_off = tuple((k, at) for k, (_, at, _) in offers.items())
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
            self.seen = self.overrides.apply(self.raw_seen, self.game.board_view(self.ledger.state))

    def keep_record(self, source: str = "tablet", request_id: str | None = None) -> HistoryEntry:
        """"The record is right, the table is wrong": the camera's reading where it differs
        is set aside until it reads otherwise there.  Logged (the history says it in words,
        a restart sets the same readings aside); the record's moves stand as they are."""
        if self.raw_seen is None:
            raise NothingToUndo("the camera has given no picture of the table yet")
        state = self.ledger.state
        if due_move_shown(self.game, state, self.raw_seen, self.taps) is not None:
            return self._due_move_recorded()
        board = self.game.board_view(state)
        read = self.overrides.apply(self.raw_seen, board)
        places = with_score_places(self.game, state, self.raw_seen, read,
                                   set_aside(self.game, state, self.raw_seen, self.taps))
        chosen = sorted(p for p in changed_places(board, self.raw_seen) if p in places)
        if not chosen:
            raise NothingToUndo("the table reads as the record has it: nothing to set aside")
        said = self.record_right_where_said(set(chosen))  # read from the players' answers, not the camera
        entry = self.ledger.note("keep_record", kept_record(self.game, state, self.raw_seen, chosen, said),
                                 source, request_id)
        self.overrides.keep(self.game, state, self.raw_seen, set(chosen))
        self.seen = self.overrides.apply(self.raw_seen, self.game.board_view(self.ledger.state))
        self.table_prompt = None
        self.check_tallies()
        self.publish("keep_record")
        waiting, self._press_waiting = self.press_still_waits(), False
        if waiting and differing(self.game, self.ledger.state, self.seen):
            self.judge_waiting_press()  # the press that raised it, on the table set right
        return entry

    def _due_move_recorded(self) -> HistoryEntry:
        """"The record is right" tapped with the table showing the one move the record waits
        for (the misread the question named read right again): nothing is set aside, the
        question is gone, and the press it held is judged as the move the table shows."""
        self.table_prompt = None
        self._press_waiting = False
        self.publish("prompt")
        entry = self.judge_waiting_press()
        if entry is None:
            raise NothingToUndo("the table shows the move the record waits for: press the button "
                                "to record it; nothing is set aside")
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
        if fix["type"] == "undo":  # the newest entries, which the table shows never made
            taken = self.ledger.undo(source, request_id, fix["seq"], fix.get("through"))
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

