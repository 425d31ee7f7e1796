"""What a simulated table does, as physical events, and the world contract per game.

A world is one game's table with its players: it holds the truth (hands, deck
order, real positions) and scripted players who act on it.  It never reads the
companion's state except the public tablet JSON (what ``GET /api/state``
returns), as a player glances at the tablet.  Each game supplies a ``World``
subclass in ``companion/sim/players/<game>.py`` exposing ``WORLD_CLASS``.  How the
players read the tablet's words is :mod:`companion.sim.reading`; how they put the table
right when it is refused or drawn otherwise, :mod:`companion.sim.mending`.
"""

from __future__ import annotations

import importlib
import json
import random
from abc import ABC, abstractmethod
from typing import Any

from companion.games.base import Action, BoardView, Game
from companion.sim.events import (  # noqa: F401 - the events, named here for the worlds and tests
    STRAIGHTEN_FRAMES,
    BoardChange,
    CardTap,
    Declare,
    HandOver,
    PhysicalEvent,
    SeatButton,
    TapOption,
    Tidy,
    TurnButton,
)
from companion.sim.mending import Mending
from companion.sim.reading import (  # noqa: F401 - the reading's words, named here too
    COUNT,
    DISAGREEMENT,
    LACKS,
    NOT_READ,
    TABLE_TYPES,
    Reading,
)

KEPT_LINE = "The record is right, the table to be set as it says"
"""How the history words the players' "the record is right": their decision, not a move."""
MOVE_TRIES = 3  # how often players make again a move the tablet does not show, before going on
RECENT_MOVES = 4  # the moves given up on that an entry recorded late may still be for
RECENT_BOARDS = 8  # the tables the last moves left that players can lay again, one at a time
NOTICE = {"passive": 0.0, "typical": 0.5, "attentive": 0.9}
"""How likely players are to notice, unasked, that a history line about their own move reads
wrong or that their move is missing from it (once per line or move, seeded): passive players
only answer what the tablet asks and follow its remedies."""


class World(Reading, Mending, ABC):
    """One game's simulated table.  ``game`` is the rules as the players know them;
    the truth (hands, decks) is the world's own."""

    compares_board = False
    """Whether the players compare the tablet's drawing of the table with the table after
    each move (worlds whose every piece the tracker draws)."""

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        self.game = game
        self.players = players
        self.variant = variant
        self.seed = seed
        self.rng = random.Random(seed)
        self.pending: Action | None = None  # made and pressed for; not yet in the history
        self.pending_seat: int | None = None  # whose device button it was pressed on (None: the turn button)
        self._taps_made: tuple[list[CardTap], Any] | None = None  # the last step's cards
        self.repeated = False  # the last act() laid cards again instead of a new step
        self.move_pending: Action | None = None  # what the last move pressed for
        self.given_up: list[Action] = []  # moves last made again in vain (see give_up())
        # moves laid again one at a time (lay_next): the table the last one left, the tables
        # still to lay, how often the last one was straightened
        self.relay: tuple[BoardView, list[BoardView], int] | None = None
        # None: players who read every line (the rules' tests and the headless harness); the
        # bench seats passive, typical or attentive ones
        self.temperament: str | None = None

    def set_temperament(self, kind: str) -> None:
        """Which players sit at this table: passive, typical or attentive (:data:`NOTICE`)."""
        if kind not in NOTICE:
            raise ValueError(f"unknown players {kind!r}: one of {', '.join(NOTICE)}")
        self.temperament = kind

    def notices(self, key: Any) -> bool:
        """Whether the players notice, unasked, the wrong or missing line ``key`` (decided
        once per line, at their temperament's rate, on a seeded draw of their own)."""
        kind = getattr(self, "temperament", None)
        if kind is None or getattr(self, "counting", False):
            return True
        rate = NOTICE[kind]
        noticed = self.__dict__.setdefault("_noticed", {})
        if key not in noticed:
            draw = random.Random(f"{self.seed}:{key}").random()
            noticed[key] = draw < rate
        return noticed[key]

    def over_at_table(self) -> bool:
        """Whether the game is over by the world's truth, a question about the last move
        still open or not (:meth:`finished` may wait for that answer)."""
        return self.finished()

    def judged_board(self) -> BoardView | None:
        """The board as a right record draws it, for the bench's judge (never the players):
        the real board where the tracker draws every piece; None where it draws less."""
        return self.board() if self.compares_board else None

    def act(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """:meth:`step`, as players at a table take it: a card they laid that the tablet
        neither recorded nor lists among the cards read (it missed the reader) is laid
        again, once, before anything else."""
        total = tablet.get("history_total") if isinstance(tablet, dict) else None
        self.glance_total = total if isinstance(total, int) else None
        made = getattr(self, "_taps_made", None)  # a world pickled before act() existed
        self._taps_made = None
        self.repeated = False
        if made is not None:
            taps, total = made
            listed = {t.get("card") for t in tablet.get("taps") or [] if isinstance(t, dict)}
            missed = [t for t in taps if t.card not in listed]
            if tablet.get("history_total") == total and missed \
                    and self.notices(("tap", total, tuple(t.card for t in missed))):
                self.repeated = True  # not a new step of the game: the same cards again
                return list(missed)
        again = self.lay_missed_cards(tablet)
        if again:
            self.repeated = True
            return again
        self.counting = self.counts_score_pieces(tablet)
        events = self.clear_the_view(tablet) or self.answer_disagreement(tablet) or self.step(tablet)
        for event in events:
            if isinstance(event, Declare) and event.action.get("type") not in TABLE_TYPES:
                self.remember_made(event.action)
        taps = [e for e in events if isinstance(e, CardTap)]
        if taps:
            self._taps_made = (taps, tablet.get("history_total"))
        return events

    def lay_missed_cards(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The tablet warns that its press fits no move and asks whether a card played is not
        among the cards it read: the cards they laid since the history last moved that its list
        lacks (a card that missed its reader) are laid again, once for that move.  King of
        Clubs seed 17, cafe, typical: A's Twist missed the reader, A pressed to pass, and the
        warning offered the pass as one tap; the Twist was never recorded and the game
        wedged a dance later.  Passive players do it
        too: the tablet asked (Times Square seed 8, cafe, passive: Deb 3 missed B's reader,
        and the move was declared on the tablet)."""
        if not any(isinstance(p, dict) and p.get("kind") == "warning" and NOT_READ in str(p.get("text", ""))
                   for p in tablet.get("prompts") or []):
            return []
        events, total, _ = getattr(self, "last_move", ([], None, 0))
        if total is None or tablet.get("history_total") != total:
            return []  # an entry came since the move: not this move's question
        at, since = getattr(self, "cards_at", (None, []))
        cards = [*(since if at == total else []), *(e for e in events if isinstance(e, CardTap))]
        cards = list({e.card: e for e in cards}.values())  # each card once, in the order laid
        listed = {t.get("card") for t in tablet.get("taps") or [] if isinstance(t, dict)}
        missed = [e for e in cards if e.card not in listed]
        laid = self.__dict__.setdefault("_laid_again", set())
        made = (total, tuple(e.card for e in cards))
        if not missed or made in laid:
            return []
        laid.add(made)
        return missed

    def clear_the_view(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The tablet says it cannot see part of the board ("Hand over the board: can't see
        11 ...; waiting") and a cup stands on the board, or a hand of theirs still rests on
        it: the players take the cup away, lift the hand.  Times Square seed 4, cafe, typical:
        a hand rested on the board after the game's last move, the tablet held its press, and
        the players, their game over, waited on the tablet for good."""
        off = getattr(self, "table_off", None)
        if not off or (off.get("cup") is None and not off.get("hand")):
            return []
        if not any(isinstance(p, dict) and ("can't see" in str(p.get("text", "")).lower()
                                            or "can't read" in str(p.get("text", "")).lower())
                   for p in tablet.get("prompts") or []):
            return []
        self.table_off = {k: v for k, v in off.items() if k not in ("cup", "hand")} or None
        return [Tidy()]

    def nothing_stands_since(self, tablet: dict[str, Any], total: int,
                             action: Action | None = None) -> bool:
        """Whether the tablet shows no entry (left standing, not undone) after its first
        ``total`` ones: the move the players made when the history held ``total`` entries
        was not recorded (or they undid what was).  Given the move's ``action``, only an
        entry that says that move counts: an earlier move the camera recorded late (a card
        flipped onto a row) is not theirs."""
        standing = self.standing_since(tablet, total)
        if standing is None:
            return False  # nothing to read: players assume it was
        return not any(action is None or self.entry_says(h, action) for h in standing)

    @staticmethod
    def standing_since(tablet: dict[str, Any], total: int) -> list[dict[str, Any]] | None:
        """The entries after the tablet's first ``total`` ones that stand (not undone), of
        those the tablet shows; None when it shows no history to read."""
        history = tablet.get("history")
        if not isinstance(history, list):
            return None
        first = tablet.get("history_total", len(history)) - len(history)
        return [h for i, h in enumerate(history, first)
                if i >= total and isinstance(h, dict) and not h.get("undone")]


    def press_for(self, action: Action, seat: int | None = None) -> TurnButton | SeatButton:
        """The button pressed for ``action`` (the turn button, or ``seat``'s button on the
        device): remembered until the tablet's history shows it, so that a question the
        table asks about it can be answered and a press that recorded nothing is made again."""
        self.pending, self.pending_seat = action, seat
        self.remember_made(action)
        self.not_yet_recorded(action)
        return TurnButton() if seat is None else SeatButton(seat)

    def not_yet_recorded(self, action: Action) -> None:
        """A move made without a declaration (pressed for, a card laid), kept in mind with
        the history's length at the glance before it, until a line after that shows it."""
        self.unrecorded = [*getattr(self, "unrecorded", []), action][-RECENT_MOVES:]
        made_at = dict(getattr(self, "unrecorded_at", {}))
        made_at.pop(key_of(action), None)  # the newest making of it counts
        made_at[key_of(action)] = getattr(self, "glance_total", None)
        self.unrecorded_at = dict(list(made_at.items())[-RECENT_MOVES:])

    def declare_missing(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The tablet warns that the table fits no move and says to declare it ("Fix it or
        declare it"), or the game is over at the table and not on the tablet: the players
        declare, oldest first, the moves they pressed for that no
        line of the history shows (a hand hid one, two ran together for the camera), each
        once, when the ask still stands at their next glance.  Passive players do it too:
        the tablet asked."""
        history = [h for h in tablet.get("history") or [] if isinstance(h, dict) and not h.get("undone")]
        made_at = getattr(self, "unrecorded_at", {})
        missing = [a for a in getattr(self, "unrecorded", []) if not any(
            self.entry_says(h, a) for h in self.lines_since(tablet, made_at.get(key_of(a))))]
        self.unrecorded = missing
        # "Fix it or declare it", or the table showing pieces the record lacks ("... shows
        # yellow on the table, nothing in the record"): the players' moves not in the record
        asked = any(isinstance(p, dict) and p.get("kind") == "warning"
                    and ("declare it" in str(p.get("text", "")).lower()
                         or LACKS.search(str(p.get("text", ""))) is not None)
                    for p in tablet.get("prompts") or [])
        # the game is over at the table: everyone reads the tablet for the result, and when it
        # does not show the end, looks for their last moves in the history
        asked = asked or (tablet.get("over") is False and self.over_at_table())
        # they act on what stands: the same record and the same ask at two glances (a press
        # just made may still be on its way to the record)
        glance = (tablet.get("history_total"), len(history), asked)
        standing, self._asked_at = glance == getattr(self, "_asked_at", None), glance
        if not asked or not missing or not standing:
            return []
        action = missing[0]
        self.unrecorded = missing[1:]
        if action == self.pending:
            self.pending = None
        return [Declare(self.as_declared(action))]

    def pressed_for(self, words: str) -> bool:
        """Whether the button reading ``words`` is the move they pressed for, not in the
        history yet, as they would fill the tablet's form for it (:meth:`as_declared`: the
        seat whose button it was).  King of Clubs seed 4, the README's demo: B's pass was
        held under a doubted die, and the warning "Can't read B at Nightclub 3 ... Tap the
        move the table shows" offered "B (Salsa): Pass"; the players, who remember a press
        of B's button, not B's name on a form, never tapped it, went on with the next
        dance, and the game wedged."""
        return self.pending is not None and words == self.wording().action(self.as_declared(self.pending))

    def as_declared(self, action: Action) -> Action:
        """``action`` as the players fill in the tablet's form for it: what a button press
        leaves unsaid (whose button it was) they say on the tablet."""
        return action

    def answer_prompt(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """A player glances at the tablet after pressing: when the table asks which move it
        saw ("the table fits several moves; choose one") and offers the one they made, they
        tap it.  Nothing when the history already shows the move or nothing asks."""
        confirmed = self.confirm_reading(tablet) or self.declare_missing(tablet) \
            or self.choose_unrecorded(tablet)
        if confirmed:
            return confirmed
        relay = self.lay_next(tablet) or self.straighten(tablet)
        if relay:
            return relay
        if self.pending is None:
            return []
        wanted = self.wording().action(self.pending)
        if any(isinstance(h, dict) and self.entry_says(h, self.pending) and not h.get("undone")
               for h in (tablet.get("history") or [])[-3:]):
            self.pending = None
            return []
        for prompt in tablet.get("prompts") or []:
            for option in prompt.get("options") or []:
                if self.option_text(option) == wanted:
                    self.pending = None
                    return [self.pressed(option)]
        return []

    def choose_unrecorded(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The tablet asks a choice ("... declare it, or pass") and one button names a move
        they made that no line shows yet (its press forgotten, its card missed): they tap it."""
        waiting = getattr(self, "unrecorded", [])
        for prompt in tablet.get("prompts") or []:
            if not isinstance(prompt, dict) or prompt.get("kind") != "choice":
                continue
            for option in prompt.get("options") or []:
                action = self.unrecorded_as(option, waiting, tablet)
                if action is not None:
                    self.unrecorded = [a for a in waiting if a != action]
                    if action == self.pending:
                        self.pending = None
                    return [self.pressed(option)]
        return []

    def unrecorded_as(self, option: Any, waiting: list[Action], tablet: dict[str, Any]) -> Action | None:
        """The move of ``waiting`` (made, in no line yet) that the button ``option`` names."""
        action = self.recognised(self.option_text(option))
        return action if action is not None and action in waiting else None

    def confirm_reading(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """"The table now shows ..., but ... was recorded": when a correction offered names a
        move the players made (:meth:`recognised`), they tap it; otherwise nothing."""
        for prompt in tablet.get("prompts") or []:
            for option in prompt.get("options") or []:
                words = self.option_text(option)
                if words.startswith("Correct ") and self.recognised(words) is not None:
                    return [self.pressed(option)]
        return []

    def mend_last_move(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """What players do about their last move before the next one: answer the tablet's
        question about it, correct an entry that is not it, or make it again when the tablet
        shows nothing for it; [] when it stands recorded."""
        answer = self.answer_prompt(tablet)
        if answer:
            return answer
        made_at = getattr(self, "last_move", ([], None, 0))[1]
        return self.correct_record(tablet, made_at) or self.again(tablet)

    def lines_since(self, tablet: dict[str, Any], total: int | None) -> list[dict[str, Any]]:
        """The standing lines a move made when the history held ``total`` entries may be
        recorded in: those after it (a pass is worded alike at every dance: an older line
        is an older pass); every line shown when that point is unknown or no longer shown."""
        history = [h for h in tablet.get("history") or [] if isinstance(h, dict) and not h.get("undone")]
        lines = tablet.get("history") or []
        shown = tablet.get("history_total", len(lines)) - len(lines)
        if total is None or total < shown:
            return history
        return self.standing_since(tablet, total) or []

    def remember_move(self, tablet: dict[str, Any], events: list[PhysicalEvent]) -> None:
        """The move just made and how long the history was before it, so that the players
        can tell, at their next glance at the tablet, whether it was recorded."""
        total = tablet.get("history_total") if isinstance(tablet, dict) else None
        self.last_move = (events, total if isinstance(total, int) else None, 0)
        # every card laid while the history stood at this length: a press after a card that
        # missed its reader is a move of its own, and the card is still theirs to lay again
        at, since = getattr(self, "cards_at", (None, []))
        taps = [e for e in events if isinstance(e, CardTap)]
        self.cards_at = (total, [*(since if at == total and isinstance(total, int) else []), *taps])
        pressed = any(isinstance(e, (TurnButton, SeatButton)) for e in events)
        self.move_pending = self.pending if pressed else None  # what this move pressed for
        boards = [e.view for e in events if isinstance(e, BoardChange)]
        if boards:  # the table after each of the last moves, should they have to be laid again
            self.recent_boards = [*getattr(self, "recent_boards", []), boards[-1]][-RECENT_BOARDS:]

    def again(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The last move once more when the tablet shows no entry for it since it was made
        (the camera misread the pieces for a moment, the press came too early, a card missed
        its reader): a hand straightens the pieces so the camera looks again, then the same
        cards and presses.  Three times at most, then players give it up and go on.  A move
        made on the tablet alone is not made again: nothing on the table was lost; nor is a
        press the tablet says it holds until the hands are off the table."""
        events, total, tries = getattr(self, "last_move", ([], None, 0))
        action = getattr(self, "move_pending", None)
        if not events or total is None or not self.nothing_stands_since(tablet, total, action):
            return []
        if not self.notices(("missing", total, json.dumps(action, sort_keys=True))):
            return []  # nobody looked for it in the history
        if self.out_of_tries(action):
            return []
        if not any(isinstance(e, (TurnButton, SeatButton, CardTap)) for e in events):
            return []
        view = self.board()
        if view is None:
            return []
        self.last_move = (events, total, tries + 1)
        if self.press_held(tablet):
            # "Press noted: it counts once the camera sees the table clear of hands": the hand
            # comes off the board, nobody presses again (a second press is another move)
            return [BoardChange(view)]
        moves = [e for e in events if not isinstance(e, BoardChange)]
        return [*self.forget_stray_taps(tablet), HandOver(STRAIGHTEN_FRAMES), BoardChange(view), *moves]

    @staticmethod
    def press_held(tablet: dict[str, Any]) -> bool:
        """Whether the tablet says it holds a press until the table is clear of hands."""
        return any(isinstance(p, dict) and str(p.get("text", "")).startswith("Press noted")
                   for p in tablet.get("prompts") or [])

    @staticmethod
    def forget_stray_taps(tablet: dict[str, Any], when_warned: bool = False) -> list[PhysicalEvent]:
        """The tablet lists cards tapped though the players are making a move again: those
        taps belong to no move they are making now (a card that missed its move, one tapped
        twice), so they take them back first.  Starting a new move (``when_warned``), they
        look at the list only when the tablet warns of something: a card tapped after the
        camera recorded its move may still serve the next one (a Trend set, then used)."""
        if not isinstance(tablet, dict) or not tablet.get("taps"):
            return []
        warned = any(isinstance(p, dict) and p.get("kind") == "warning" for p in tablet.get("prompts") or [])
        return [Declare({"type": "forget_taps"})] if warned or not when_warned else []

    def correct_record(self, tablet: dict[str, Any], made_at: int | None) -> list[PhysicalEvent]:
        """The history shows entries recorded since the players made the move still pending
        (when it held ``made_at`` entries), and none of them is that move: the press recorded
        something else (pressed before the pieces were down, a piece misread).  They read
        the entries' words, not a warning (the warning that the mats differ may come a frame
        later, after they have looked away): an entry for a move they gave up making again is
        the camera catching up; the others are not theirs, so they undo all but the oldest
        of those and correct that one to what they did, once.  An entry of theirs newer than
        a wrong one is left for the tablet's warning: undoing it would lose it."""
        standing = self.standing_since(tablet, made_at) if made_at is not None else None
        if standing is not None:  # their own "the record is right" is a decision, no move
            standing = [h for h in standing if not str(h.get("text", "")).startswith(KEPT_LINE)]
        if self.pending is None or standing is None \
                or self.pending != getattr(self, "move_pending", None):
            return []  # nothing pressed for, or an older move's press: not what this move did
        if not standing or any(self.entry_says(h, self.pending) for h in standing):
            return []
        late = getattr(self, "given_up", [])
        ours = [any(self.entry_says(h, a) for a in late) for h in standing]
        if all(ours) or any(ours[ours.index(False):]):
            return []  # only late entries of earlier moves, or one of ours after a wrong one
        wrong = standing[ours.index(False):]
        if not self.notices(("wrong", wrong[-1].get("seq"))):
            return []  # the line was not read, or did not read wrong to them
        corrected = getattr(self, "_corrected", set())
        if wrong[-1].get("seq") in corrected:
            return []
        self._corrected = corrected | {wrong[-1].get("seq")}
        action, self.pending = self.pending, None
        undo: list[PhysicalEvent] = [Declare({"type": "undo"}) for _ in wrong[1:]]
        return [*undo, Declare({"type": "correct", "action": self.as_declared(action)})]

    def out_of_tries(self, action: Action | None) -> bool:
        """Whether the last move was made again :data:`MOVE_TRIES` times already; the first
        time this is seen, the players give ``action`` up."""
        events, total, tries = self.last_move
        if tries < MOVE_TRIES:
            return False
        if tries == MOVE_TRIES:
            self.give_up(action)
            self.last_move = (events, total, tries + 1)
        return True

    def give_up(self, action: Action | None) -> None:
        """The players stop making ``action`` again (the tablet never showed it): should the
        camera record it late, the entry is theirs, not a misreading of their next move."""
        if action is not None:
            self.given_up = [*getattr(self, "given_up", []), action][-RECENT_MOVES:]

    @abstractmethod
    def start(self) -> list[PhysicalEvent]:
        """Set the table up: the events that place the pieces and record the set-up."""

    @abstractmethod
    def step(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The next thing the players do, given the tablet's public JSON.

        One step is one recordable move: pieces moved, cards tapped, then the
        button pressed (or a declaration).  The harness checks after each step
        that the companion recorded it; ``tablet`` then shows it in
        ``history``.  Return [] only when :meth:`finished`.
        """

    @abstractmethod
    def finished(self) -> bool:
        """True when the world's game is over (by its own truth)."""

    def board(self) -> BoardView | None:
        """The real board now, so a restarted demo can show the camera the table again."""
        return None

    def table_now(self) -> BoardView | None:
        """The table as the players left it, which a hand straightening the pieces puts
        back: the real board, unless the world leaves chores (rows slid, tokens taken) until
        the tablet shows the move that causes them recorded."""
        return self.board()

    def truth(self) -> dict[str, Any]:
        """The world's own view of the result, for tests comparing it to the tablet:
        at least ``{"scores": [...], "winners": [...]}`` once finished."""
        return {}


def key_of(action: Action) -> str:
    return json.dumps(action, sort_keys=True)


def load_world(game_name: str, game: Game, players: int, variant: str | None, seed: int) -> World:
    module = importlib.import_module(f"companion.sim.players.{game_name}")
    return module.WORLD_CLASS(game, players, variant, seed)
