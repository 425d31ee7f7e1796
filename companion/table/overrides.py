"""The places whose camera reading the players said is wrong ("the record is right").

The referee's small state beside the record: what the camera reads there and what the
record had, set aside while the camera reads exactly that; a place misread all evening; a
misreading learned, and a place's standing offset (a piece read a mark off there, whatever
piece it is).  Kept in the log as "the record is right" lines, so a restart restores it.
"""

from __future__ import annotations

from collections import Counter

from companion.games.base import Action, BoardView, Game, Piece, State
from companion.reconcile import changed_places, place_names


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
        # per place, the standing offset the players' answer showed there: the camera reads a
        # piece of that colour a mark off (colour, pips it reads over), whatever piece it is
        self.offsets: dict[str, tuple[str, int]] = {}
        self.agreeing: dict[str, int] = {}  # boards in a row read as the record at such a place

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

    def apply(self, seen: BoardView, board: BoardView | None = None) -> BoardView:
        """``seen`` with each reading the players set aside replaced by the record's.  Where
        they set aside one piece read as another (pink read blue) and the camera still reads
        that piece there among others (a figure laid beside it), that piece is read as they
        said: the place is misread every time it is seen (Times Square seed 13, cafe: the
        sewer's pink read blue all evening; with Deb laid in the sewer the reading lapsed,
        and Deb's move went unexplained until the game wedged).  With the record's ``board``,
        the places' standing offsets are read back too (:meth:`_offset`)."""
        if not self.places:
            return self._from_the_rest(self._offset(dict(seen), set(), board))
        self._lapse(seen)
        out = dict(seen)
        for place, (camera, record) in list(self.places.items()):
            swapped = one_piece_misread(camera, record)
            now = seen.get(place, ())
            if board is not None and now == board.get(place, ()) != record:
                # the record came to what the camera reads there (a move recorded since):
                # nothing is set aside, as after a restart (:meth:`restore`).  Swing State seed
                # 8, cafe, typical: Blue's two 1 V chips, laid before their News card was
                # recorded, were set aside as "the record is right"; recorded, they were still
                # read as nothing, "Blue: V 17 on the table, 19 in the record" stood, "the
                # record is right" found nothing to set aside, and the game wedged
                self.places.pop(place)
                self.together.pop(place, None)
                continue
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
        return self._from_the_rest(self._offset(out, set(self.places), board))

    def _offset(self, view: dict[str, tuple[Piece, ...]], kept: set[str],
                board: BoardView | None) -> BoardView:
        """``view`` with each place whose standing offset the players' answer showed read
        back by it (but those of ``kept``, set aside as the record has them): the one piece
        of the colour misread there, its pips the offset less, never below one, where the
        camera reads the place otherwise than the record's ``board`` has it: a piece laid or
        changed there is read back, the record's older piece there or not (the next night's
        Nightclubs seen before the last night's clearing is recorded).  A reading equal to
        the record's is not moved off it (a passing misread over the standing one); two boards
        in a row so read end the offset (:meth:`recall`).
        King of Clubs seed 17, cafe, typical: Nightclub 2 read a pip high all evening; each
        night's Nightclubs were refused or recorded wrong there and asked about again, though
        the players had answered on night 1 (13 of the game's 123 entries declared)."""
        for place, (colour, delta) in list(self.offsets.items()):
            stack = view.get(place, ())
            at = [i for i, piece in enumerate(stack) if piece.colour == colour]
            if board is None or place in kept or len(at) != 1:
                continue
            if stack == board.get(place, ()):
                continue  # read as the record has it (:meth:`recall` counts the boards so read)
            if stack[at[0]].pips - delta < 1:
                continue
            view[place] = tuple(sorted((*stack[:at[0]], Piece(colour, stack[at[0]].pips - delta),
                                        *stack[at[0] + 1:])))
        return view

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
        """The players said the camera read one piece as another at ``place``: that reading
        is learned, and where it is the same piece a mark off, the place's standing offset."""
        swapped = one_piece_misread(camera, record)
        if swapped is None:
            return
        self.learned[place] = (camera, record)
        read, kept = swapped
        if read.colour == kept.colour and kept.pips > 0 and abs(read.pips - kept.pips) == 1:
            self.offsets[place] = (read.colour, read.pips - kept.pips)

    def recall(self, board: BoardView, seen: BoardView, vouched: frozenset[str] = frozenset()) -> None:
        """Set aside again a reading the players said is one piece read as another (the
        record's ``board`` still has there what it had, the camera reads there what it read),
        after a passing reading there ended it: a place the camera misreads is not asked
        about again for the same reading.  The ``vouched`` places of ``seen`` are not the
        camera's reading (it cannot read them; the players said what lies there)."""
        for place, (camera, record) in self.learned.items():
            if place not in self.places and seen.get(place, ()) == camera and board.get(place, ()) == record:
                self.places[place] = (camera, record)
                self.together[place] = frozenset({place})
        for place, (colour, _) in list(self.offsets.items()):
            # the camera reads the place as the record has it, a piece of that colour there, on
            # two boards in a row: the answer the offset was learned from was about a passing
            # misread (a pip misread for a moment at the press), and it would read every later
            # piece laid there a pip off.  One such board is a passing misread over the standing one
            now = seen.get(place, ())
            if place in vouched:
                continue
            if now and now == board.get(place, ()) and sum(p.colour == colour for p in now) == 1:
                self.agreeing[place] = self.agreeing.get(place, 0) + 1
                if self.agreeing[place] >= 2:
                    del self.offsets[place]
                    del self.agreeing[place]
            else:
                self.agreeing.pop(place, None)

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


def pieces_words(stack: tuple[Piece, ...] | None) -> str:
    """A place's pieces as the camera tells them apart: "purple (2)", or "nothing"."""
    if not stack:
        return "nothing"
    return ", ".join(p.colour + (f" ({p.pips})" if p.pips else "") for p in stack)


def kept_record(game: Game, state: State, seen: BoardView, places: list[str],
                said: frozenset[str] = frozenset()) -> Action:
    """The logged "the record is right" decision for ``places``: what the record has and
    the camera read there, and the history's line in the players' words.  ``said``: places the
    camera could not read, their content the players' own answer, named as theirs (a line
    "the camera read cyan (8)" of a place it read nothing at misleads whoever checks it)."""
    labels = place_names(game, state)
    board = game.board_view(state)
    where = "; ".join(f"{labels.get(p, p)} as the record has it, {pieces_words(board.get(p))} "
                      f"({'you said' if p in said else 'the camera read'} {pieces_words(seen.get(p))})"
                      for p in places)
    return {"type": "keep_record",
            "text": f"The record is right, the table to be set as it says: {where}.",
            "places": {p: {"camera": pieces_json(seen.get(p, ())),
                           "record": pieces_json(board.get(p, ()))} for p in places}}
