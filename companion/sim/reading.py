"""How a simulated table's players read the tablet's words and answer it (issue 39).

A part of :class:`~companion.sim.world.World`: history lines known by their words, buttons
by the words on them, a disagreement between table and record answered from the players'
own table and memory, their score pieces counted against the tablet's scores.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from companion.games.base import Action, BoardView, Game, place_names
from companion.sim.events import (
    STRAIGHTEN_FRAMES,
    BoardChange,
    Declare,
    HandOver,
    PhysicalEvent,
    TapOption,
    Tidy,
)
from companion.sim.words import KEEP_RECORD_WORDS, REREAD_WORDS, Wording, pieces_words

COUNT = {"passive": 0.0, "typical": 0.3, "attentive": 0.8}
"""How likely players are, once the tablet's scores have stood unlike their own count of
their score pieces at two glances, to count them against it (once per record and scores):
then they read every line of the history about their moves, as if asked."""

DISAGREEMENT = "The table does not match the record"
SHOWS = re.compile(r"(?:^|; )([^;]+?) shows (.+?) on the table, (.+?) in the record(?=;|\.(?: |$))")
TABLE_TYPES = frozenset({"undo", "correct", "forget_taps", "keep_record", "reread", "reads"})
LACKS = re.compile(r" shows (?!nothing )[^;]+? on the table, nothing in the record")
NOT_READ = "not among the cards read"  # "If a card you played is not among the cards read, lay it ..."
MARKS = re.compile(r"\(\d+\)")  # a piece's marks in the tablet's words: "red (3)"
TALLIES = "the score pieces differ: "
TALLY = re.compile(r"(.+?) (\d+) on the table, (\d+) in the record(?:; |$)")
EXPLAINS = re.compile(r"Entry #(\d+) \((.+?)\) explains it")
SAID_KEPT = 64  # the players' moves whose history words they keep in mind
MADE_KEPT = 8  # the players' own moves they remember, to recognise one offered on a button
ANSWERS = 2  # how often players answer one disagreement (the same words at one point of the game)


class Reading:
    """The players' reading of the tablet (mixed into :class:`~companion.sim.world.World`,
    which holds the table's truth these methods look at)."""

    game: Game
    players: int
    variant: str | None
    seed: int
    temperament: str | None

    def truth(self) -> dict[str, Any]:  # the World's own count (overridden there)
        return {}

    def table_now(self) -> BoardView | None:  # the table as the players left it (World's)
        return None

    def counts_score_pieces(self, tablet: dict[str, Any]) -> bool:
        """Whether the players, counting their score pieces (chips, tokens, cards won) at
        this glance, find the tablet's scores unlike their count: only when the same record
        and scores stood at two glances (a move just made may not be on it yet), and at
        their temperament's rate (:data:`COUNT`), decided once per record and scores."""
        kind = getattr(self, "temperament", None)
        shown = tablet.get("scores")
        if kind is None or not COUNT[kind] or not isinstance(shown, list):
            return False
        glance = (tablet.get("history_total"), json.dumps(shown))
        standing, self._scores_at = glance == getattr(self, "_scores_at", None), glance
        counted = self.truth().get("scores")
        if not standing or not isinstance(counted, list) or len(counted) != len(shown) \
                or all(abs(float(a) - float(b)) < 1e-9 for a, b in zip(counted, shown, strict=True)):
            return False
        draw = random.Random(f"{self.seed}:count:{glance}").random()
        return draw < COUNT[kind]

    def entry_says(self, entry: dict[str, Any], action: Action) -> bool:
        """Whether a history line records ``action``, read as players read it: its words are
        what they would say of their move (:meth:`words_for`).  A tablet handed over as
        data (a test calling a world directly) is judged on the entry's action: it may add
        what the table read (a Trend card's printed code), never change what they did."""
        recorded = entry.get("action")
        if isinstance(recorded, dict):
            return all(recorded.get(k) == v for k, v in action.items())
        if not isinstance(entry.get("text"), str):
            return True  # a line with nothing to read (a harness counting entries): assumed theirs
        return entry["text"] in self.words_for(action)

    def words_for(self, action: Action) -> set[str]:
        """The history lines that say ``action``: the words noted when it was made (from the
        table as it was then), and as the game would say it now."""
        said = set(getattr(self, "_said", {}).get(json.dumps(action, sort_keys=True), ()))
        # the record words the move as its log keeps it, keys sorted ("1 blue, 2 red")
        logged = json.loads(json.dumps(action, sort_keys=True))
        for state in (self.words_state(), self.wording().state):
            for move in (action, logged):
                try:
                    said.add(self.game.describe(state, move))
                except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                    continue
        return said

    def words_state(self) -> Any:
        """The rules' state the players keep of the game, to word a move as the record
        would (the set-up's for a world that keeps none)."""
        for name in ("public", "state", "rules_state"):
            state = self.__dict__.get(name)
            if isinstance(state, dict):
                return state
        return self.wording().state

    def note_words(self, before: Any, action: Action) -> None:
        """How the record words ``action`` made on the table as it was (``before``): kept to
        recognise its line in the history later."""
        try:  # as the log keeps it, keys sorted: the history's line
            words = self.game.describe(before, json.loads(json.dumps(action, sort_keys=True)))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return
        said = getattr(self, "_said", {})
        key = json.dumps(action, sort_keys=True)
        said[key] = {*said.pop(key, ()), words}
        while len(said) > SAID_KEPT:
            said.pop(next(iter(said)))
        self._said = said

    # ------------------------------------------------------------------ reading the tablet's words

    def wording(self) -> Wording:
        """How this table's buttons word a move (the same on both sides of the channel)."""
        wording = self.__dict__.get("_wording")
        if wording is None:
            wording = self._wording = Wording(self.game, self.players, self.variant, self.seed)
        return wording

    def option_text(self, option: Any) -> str:
        """The words on a button: a player reads words; a tablet given here as data (a test
        calling a world directly) is worded as the tablet words it."""
        return option if isinstance(option, str) else self.wording().option(option)

    @staticmethod
    def pressed(option: Any) -> PhysicalEvent:
        """The tap on a button, by the words the players read on it; a tablet handed over as
        data (a test or the headless harness calling a world directly) gets its data back."""
        return Declare(option) if isinstance(option, dict) else TapOption(str(option))

    def remember_made(self, action: Action) -> None:
        """A move the players made, kept in mind to recognise it on a button (newest last)
        and in the history (its words from the table as it is now)."""
        self.note_words(self.words_state(), action)
        made = [a for a in getattr(self, "made_moves", []) if a != action]
        self.made_moves = [*made, dict(action)][-MADE_KEPT:]

    def recognised(self, words: str) -> Action | None:
        """The move of theirs a button's words name (a correction's "Correct #N: ..." or a
        move offered as it is), the newest first; None when they made no such move."""
        _, _, said = words.partition(": ") if words.startswith("Correct ") else ("", "", words)
        for action in reversed(getattr(self, "made_moves", [])):
            if self.wording().action(action) == said and self.recognises_made(action):
                return action
        for action in self.table_moves():  # a correction, or a reading of a place it cannot see
            if self.wording().action(action) == said:
                return action
        return None

    def table_moves(self) -> list[Action]:
        """Readings their table bears out that they made without a press or a declaration
        (cards laid out, dice set up): what a correction naming them would read."""
        return []

    def shows_as_laid(self, words: str) -> bool:
        """Whether a button saying what places hold ("A3 red shows red (3)", the tablet
        asking what a place it cannot read holds; "red (?)", its colour asked first) says
        what their own table has there."""
        laid = self.table_now()
        parts = [part.rpartition(" shows ") for part in words.split("; ")]
        if laid is None or not all(name and shown for name, _, shown in parts):
            return False
        try:
            names = {name: spot for spot, name in place_names(self.game, self.wording().state).items()}
        except (KeyError, TypeError, ValueError, AttributeError):
            return False
        return all(name in names and shown in (pieces_words(laid.get(names[name])),
                                               MARKS.sub("(?)", pieces_words(laid.get(names[name]))))
                   for name, _, shown in parts)

    def pressed_for(self, words: str) -> bool:
        """Whether a button's words name the move they pressed for and see in no line yet,
        as they would declare it (the World's: a press names no player, the button does)."""
        return False

    def recognises_made(self, action: Action) -> bool:
        """Whether the table still bears out a move they remember making (a world whose
        pieces say more, a die still showing the roll, overrides this)."""
        return True

    def look_at_table(self, off: dict[str, Any] | None) -> None:
        """What the players see on their table that they did not lay (told by the table's
        physical side): ``{"knocked": view}`` a piece knocked aside, the table as it lies;
        ``{"cup": place}`` a cup standing on a place; None when it is as they laid it."""
        self.table_off = off or None

    def answer_disagreement(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """"The table does not match the record": players look at the places the tablet
        names on their own table, and at what they remember doing.  A piece they did not
        put there (knocked aside) or a cup on the board: they tap that the record is right
        and set the table right.  Else a button that names a move of theirs (a correction,
        the seat a card was meant for, a press forgotten): they tap it.  Else, the record
        naming what they see on the place and the camera not: the record is right.  Else,
        unsure: "Read the table again".  At most :data:`ANSWERS` times for the same words
        at one point of the game; then they leave it to the other remedies."""
        for prompt in tablet.get("prompts") or []:
            if not isinstance(prompt, dict) or prompt.get("kind") != "warning":
                continue
            text = str(prompt.get("text", ""))
            options = [self.option_text(o) for o in prompt.get("options") or []]
            if not options:
                continue
            key = f"{tablet.get('history_total')}: {text}"
            answered = getattr(self, "_disagreed", {})
            if answered.get(key, 0) >= ANSWERS:
                continue
            answer = self.answer_for(text, options, tablet)
            if answer:
                self._disagreed = {key: answered.get(key, 0) + 1}
                given = dict(zip(options, prompt.get("options") or [], strict=False))
                return [self.pressed(given.get(e.words, e.words)) if isinstance(e, TapOption) else e
                        for e in answer]
        return []

    def answer_for(self, text: str, options: list[str], tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """What players do about one warning with buttons (:meth:`answer_disagreement`)."""
        named = self.places_named(text)
        off = getattr(self, "table_off", None)
        laid = self.table_now()
        if named and off and laid is not None and KEEP_RECORD_WORDS in options:
            cup = off.get("cup")
            knocked = off.get("knocked")
            moved = {p for p in named if p == cup or (knocked is not None and knocked.get(p) != laid.get(p))}
            if moved:
                self.table_off = None
                # the record is right only if the cup or the knocked piece is all it names: a
                # place they laid otherwise than it says is not theirs to set as it says
                others_kept = all(kept == pieces_words(laid.get(p))
                                  for p, (_, kept) in named.items() if p not in moved)
                tidy = [Tidy(), HandOver(STRAIGHTEN_FRAMES), BoardChange(laid)]
                return [TapOption(KEEP_RECORD_WORDS), *tidy] if others_kept else tidy
        for option in options:
            if option not in (KEEP_RECORD_WORDS, REREAD_WORDS) \
                    and (self.recognised(option) is not None or self.pressed_for(option)
                         or self.shows_as_laid(option)):
                return [TapOption(option)]
        if not named and laid is not None and KEEP_RECORD_WORDS in options \
                and self.counted_as_recorded(text, laid):
            return [TapOption(KEEP_RECORD_WORDS)]  # their pieces, counted, are as recorded
        if not named or laid is None or DISAGREEMENT not in text:
            return []
        stray = self.stray_named(text, tablet)
        if stray is not None:
            return [Declare({"type": "undo", "seq": stray})]
        camera_right = all(shown == pieces_words(laid.get(p)) for p, (shown, _) in named.items())
        record_right = all(kept == pieces_words(laid.get(p)) for p, (_, kept) in named.items())
        if record_right and not camera_right and KEEP_RECORD_WORDS in options:
            return [TapOption(KEEP_RECORD_WORDS)]
        found = EXPLAINS.search(text)
        if found is None or self.made_as_said(found.group(2)):
            # no entry named, or the one named is a move of theirs as they made it: the record
            # is behind the table (their press not taken yet), not wrong: pressing again,
            # declaring, straightening are the remedies, not a re-reading of an older move
            return []
        if REREAD_WORDS in options:  # an entry that reads wrong to them, no button naming theirs
            return [TapOption(REREAD_WORDS)]
        return []

    def counted_as_recorded(self, text: str, laid: BoardView) -> bool:
        """"The score pieces differ: Yellow: Skulls 2 on the table, 1 in the record": the
        players count those pieces on their own table, as the warning asks; True when each
        count is the record's and not what the camera read (it misreads them)."""
        body = text.partition(TALLIES)[2].split(". ")[0]
        counts = TALLY.findall(body)
        if not counts:
            return False
        try:
            own = self.game.tallies(self.words_state(), laid)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return False
        return all(name in own and own[name] == int(kept) != int(shown) for name, shown, kept in counts)

    def made_as_said(self, said: str) -> bool:
        """Whether a line's words are a move of theirs as they made it."""
        return any(said in self.words_for(a) for a in getattr(self, "made_moves", []))

    remembers_every_move = False
    """Whether the players remember every move the table records of them (each made through
    :meth:`remember_made`), so that an entry naming a move none of them made is not theirs."""

    def stray_named(self, text: str, tablet: dict[str, Any]) -> int | None:
        """The entry a disagreement names ("Entry #N (...) explains it") when its words are no
        move the players made and it is the newest line standing: nobody made it (a die read
        a pip off became a roll), so they undo it.  None otherwise."""
        found = EXPLAINS.search(text)
        if found is None or not self.remembers_every_move:
            return None
        number, said = int(found.group(1)), found.group(2)
        if not self.none_made(said):
            return None
        standing = [h for h in tablet.get("history") or [] if isinstance(h, dict) and not h.get("undone")]
        newest = standing[-1] if standing else None  # the line players read that number beside
        if newest is None or newest.get("move", newest.get("seq")) != number:
            return None
        return newest.get("seq")  # its undo button's

    def none_made(self, said: str) -> bool:
        """Whether a line's words name a move none of the players made (not one of theirs
        misread: that is corrected, not undone)."""
        return not any(self.move_words(a) == said and self.recognises_made(a)
                       for a in getattr(self, "made_moves", []))

    def move_words(self, action: Action) -> str:
        """A move of theirs as a history line says it."""
        return self.game.describe(self.wording().state, action)

    def places_named(self, text: str) -> dict[str, tuple[str, str]]:
        """The places a disagreement names, by id: what the table shows there and what the
        record has, in the tablet's words ("white (3)", "nothing")."""
        body = text.partition(DISAGREEMENT + ": ")[2]
        if not body:
            return {}
        labels: dict[str, list[str]] = {}
        try:
            state = self.wording().state
            for spot in self.game.layout(state).spots:
                labels.setdefault(spot.label or spot.id, []).append(spot.id)
            # a place whose label is printed on several is named by its order among them, as
            # the tablet words it ("Neptune 2 (1st from the left)")
            for spot_id, name in place_names(self.game, state).items():
                labels[name] = [spot_id]
        except (KeyError, TypeError, ValueError, AttributeError):
            return {}
        named: dict[str, tuple[str, str]] = {}
        for label, shown, kept in SHOWS.findall(body):
            for place in labels.get(label.strip(), [label.strip()]):
                named[place] = (shown, kept)
        return named
