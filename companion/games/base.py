"""The contract every game tracker implements.

A tracker is a referee of what the table shows, never a simulator of hidden
information: it does not know a hand or a deck order. It validates what is
visible (the board, cards played or tapped, dice as they land, declarations),
counts what can be counted (cards left in a supply, reshuffles) and asks the
players for the rest through prompts.

Rules are pure functions of plain data, in the manner of OpenSpiel's games and
boardgame.io's moves:

* a state is a JSON-serialisable ``dict`` (lists, dicts, str, int, float,
  bool, None; no tuples, no sets), so the log can replay it after a power cut;
* an action is a JSON ``dict`` with a ``"type"`` key, and usually ``"player"``
  (a 0-based seat).  The same dicts arrive from the tablet, from replay
  scripts and from the reconciler's explanations;
* :meth:`Game.apply` never mutates its input: it returns a new state or raises
  :class:`RuleError` (citing the rule) or :class:`MalformedAction`;
* chance is an action: a die that landed, a card that was revealed, the board
  as it was set up all enter the log as actions, so replay never rolls.

Physical facts the rulebooks leave out live in data files beside each game.
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal

Action = dict[str, Any]
State = dict[str, Any]

Trigger = Literal["button", "board", "tap"]


class RuleError(ValueError):
    """The rules refuse an action; ``rule`` quotes or cites the rulebook."""

    def __init__(self, reason: str, rule: str) -> None:
        super().__init__(f"{reason} [rule: {rule}]")
        self.reason = reason
        self.rule = rule


class MalformedAction(ValueError):
    """The action is not of the game's schema (unknown type, missing or bad field)."""


# --------------------------------------------------------------------------- physical table


@dataclass(frozen=True, order=True)
class Piece:
    """Something the camera can see on a spot: a figure, chip, pawn, die or card.

    ``colour`` is a palette name (see :mod:`companion.vision.palette`); ``pips``
    is the number of marks on its top (a die's face, a card's value), 0 if plain.
    Two pieces of one colour and pips are indistinguishable to the camera.
    """

    colour: str
    pips: int = 0


@dataclass(frozen=True)
class Spot:
    """A place on the board where pieces stand, as a rectangle in millimetres.

    Coordinates are board coordinates: origin at the top-left corner of the
    board's printed area, x to the right, y down.  ``holds``: the most pieces the game's
    rules ever stack on it (1: one die or token, never a column); 0 when the rules leave it
    open (as tall as any game stacks).  The reader rules out a column taller than that
    standing there, so a die leaning from the next place is never taken for one.
    ``takes``: the piece colours the rules ever put there (empty: any); a patch of another
    colour seen there is no piece of its own (a die's side in shade reads as a score
    marker's black, and no score marker stands on a grid cell).  ``one_of``: colours of which
    the rules put one piece at most there (King of Clubs' Dancer places: one Dancer card,
    face down or revealed, with any Moves played on it); a second seen is no piece of its own.
    ``one_each``: colours of which the rules put one piece at most there each (Swing State's
    spaces: each player has one pawn, so two of a colour seen there are one and its shade).
    """

    id: str
    x: float
    y: float
    w: float
    h: float
    label: str = ""
    fill: str = "board"
    holds: int = 0
    takes: frozenset[str] = frozenset()
    one_of: frozenset[str] = frozenset()
    one_each: frozenset[str] = frozenset()

    def may_hold(self, colour: str) -> bool:
        """May a piece of ``colour`` stand here, by the game's rules?"""
        return not self.takes or colour in self.takes

    def may_hold_all(self, colours: Sequence[str]) -> bool:
        """May pieces of all these colours stand here at once, by the game's rules: no more
        than it ``holds``, one at most of ``one_of``, one at most of each of ``one_each``?"""
        return len(colours) <= (self.holds or len(colours)) and sum(c in self.one_of for c in colours) <= 1 \
            and len(each := [c for c in colours if c in self.one_each]) == len(set(each))


@dataclass(frozen=True)
class Layout:
    """Everything the renderer and the reader need to know about a game's table.

    ``pieces`` names what each piece colour means at this table (for
    calibration screens and prompts), ``shapes`` says how a colour is drawn
    ("disc" or "square"); colours not named there are drawn as discs.
    ``marks`` gives the pip counts a piece of a colour can show (a die: 1 to 6), so
    a count no such piece has is a doubtful reading, never a piece; ``(0, 0)`` is a plain
    token, whose face the reader does not search for marks.
    """

    width: float
    height: float
    spots: tuple[Spot, ...]
    pieces: dict[str, str] = field(default_factory=dict)
    shapes: dict[str, str] = field(default_factory=dict)
    marks: dict[str, tuple[int, int]] = field(default_factory=dict)

    def spot(self, spot_id: str) -> Spot:
        return self._spots_by_id[spot_id]  # (a KeyError names an unknown place)

    @cached_property
    def _spots_by_id(self) -> dict[str, Spot]:
        """The places by id, indexed once: the reader asks for a place per piece read, every
        frame, and a walk down a Baron Voodoo board's places cost half a millisecond a frame.
        The first of two places with one id wins, as the walk found it."""
        out: dict[str, Spot] = {}
        for spot in self.spots:
            out.setdefault(spot.id, spot)
        return out


BoardView = dict[str, tuple[Piece, ...]]
"""Spot id -> the pieces standing there, sorted; spots with nothing are absent."""


def make_view(items: dict[str, Any]) -> BoardView:
    """Normalise a mapping of spot -> pieces (any iterable) into a :data:`BoardView`."""
    view: BoardView = {}
    for spot_id, pieces in items.items():
        ordered = tuple(sorted(pieces))
        if ordered:
            view[spot_id] = ordered
    return view


def view_to_json(view: BoardView) -> dict[str, list[list[Any]]]:
    return {k: [[p.colour, p.pips] for p in v] for k, v in sorted(view.items())}


def view_from_json(data: dict[str, list[list[Any]]]) -> BoardView:
    return make_view({k: [Piece(str(c), int(p)) for c, p in v] for k, v in data.items()})


@dataclass(frozen=True)
class PieceMove:
    """One piece that left ``source`` and appeared on ``target`` (None: off/onto the board)."""

    piece: Piece
    source: str | None
    target: str | None


def diff_views(before: BoardView, after: BoardView) -> list[PieceMove]:
    """Pair disappearances with appearances of the same piece.

    When several identical pieces moved the pairing is by spot order, which is
    enough for games whose identical pieces are interchangeable (two Bodyguards,
    chips of one colour).  Unpaired changes come back with ``None`` on one side.
    """
    gone: list[tuple[Piece, str]] = []
    came: list[tuple[Piece, str]] = []
    for spot_id in sorted(set(before) | set(after)):
        old = list(before.get(spot_id, ()))
        new = list(after.get(spot_id, ()))
        for piece in list(old):
            if piece in new:
                new.remove(piece)
                old.remove(piece)
        gone += [(p, spot_id) for p in old]
        came += [(p, spot_id) for p in new]
    moves: list[PieceMove] = []
    for piece, source in gone:
        for i, (other, target) in enumerate(came):
            if other == piece:
                moves.append(PieceMove(piece, source, target))
                del came[i]
                break
        else:
            moves.append(PieceMove(piece, source, None))
    moves += [PieceMove(piece, None, target) for piece, target in came]
    return moves


@dataclass(frozen=True)
class Tap:
    """A card laid on a reader of the serial device (``seat`` None: the shared reader)."""

    card: str
    seat: int | None = None


# --------------------------------------------------------------------------- what the tracker says


@dataclass
class Prompt:
    """What should happen now, for the dashboard, the LEDs and the buzzer.

    ``kind``: "turn" (whose turn, what may be done), "chore" (a physical task
    such as "draw back to 8"), "warning" (a rule mistake on the table),
    "choice" (the players must pick one of ``options``, each a legal action),
    "info".
    """

    text: str
    kind: str = "info"
    player: int | None = None
    options: list[Action] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Outcome:
    """The end of a game: winning seats (several for a team or a shared win) and why."""

    winners: tuple[int, ...]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "reason": self.reason}


# --------------------------------------------------------------------------- house rules and forms


@dataclass(frozen=True)
class HouseRule:
    """A place where the rulebook honestly reads two ways; the table picks one at set-up.

    ``choices`` maps each value to its label in the game's words; ``default`` is the
    reading the rulebook's text supports best; ``sentence`` quotes the rulebook sentence
    the choice rests on (in the rulebook's own language), shown beside the choice;
    ``translation`` renders it in English where the rulebook is in another language (the
    original stays the authority and is shown beside it).
    """

    id: str
    title: str
    choices: dict[str, str]
    default: str
    sentence: str
    translation: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FieldForm:
    """One field of an action as the tablet asks for it (its choices come from the legal actions).

    ``many``: the field is a list the players build by toggling items ("discard any number
    of cards").  The legal actions list each item alone (``[card]``) or none, so the choices
    stay few; the tablet lets several be chosen and the rules judge the combination.
    """

    name: str
    label: str
    many: bool = False


@dataclass(frozen=True)
class ActionForm:
    """How the tablet offers one action type, in the game's words.

    The choices for each field are never listed here: the page narrows the legal
    actions of the moment field by field, so only what is legal now can be tapped.
    ``declared`` is False for what the table itself senses (camera, card readers,
    the turn button): the tablet offers those only as corrections.
    """

    type: str
    label: str
    fields: tuple[FieldForm, ...] = ()
    declared: bool = True
    hint: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "label": self.label, "declared": self.declared,
                "hint": self.hint, "fields": [asdict(f) for f in self.fields]}


# --------------------------------------------------------------------------- the contract


class Game(ABC):
    """One game's rules tracker.  Pure logic: no I/O, no clock, no threads, no randomness
    outside :meth:`setup`'s seed.  An instance holds only the game's static data."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    variants: ClassVar[tuple[str, ...]] = ("standard",)
    house_rules: ClassVar[tuple[HouseRule, ...]] = ()
    own_readers: ClassVar[bool] = False
    """Whether a card on a seat's reader is always that seat's own play (so a card on the next
    seat's reader ends the turn before it); False where a card may be laid on another seat's
    reader for one's own move (a Clique card on the neighbour's reader)."""

    @classmethod
    def player_counts(cls) -> tuple[int, ...]:
        """Every number of players the rulebook allows (a game with gaps overrides this)."""
        return tuple(range(cls.min_players, cls.max_players + 1))

    # --- set-up and turn structure -------------------------------------------------------
    @abstractmethod
    def setup(self, players: int, variant: str | None = None, seed: int = 0) -> State:
        """The state before the first action; raise ``ValueError`` for a bad count or variant."""

    def start(self, players: int, variant: str | None = None, seed: int = 0,
              house_rules: dict[str, str] | None = None) -> State:
        """:meth:`setup` with the table's house rules resolved into ``state["house_rules"]``.

        Raises ``ValueError`` for an unknown house rule or choice.  Games without house
        rules get the plain set-up, so their states are unchanged.
        """
        chosen = self.resolve_house_rules(house_rules)
        state = self.setup(players, variant, seed)
        if chosen:
            state["house_rules"] = chosen
        return state

    def resolve_house_rules(self, house_rules: dict[str, str] | None) -> dict[str, str]:
        """Every house rule of this game with its chosen value (the default where not chosen)."""
        given = dict(house_rules or {})
        known = {rule.id: rule for rule in self.house_rules}
        for rule_id, value in given.items():
            if rule_id not in known:
                raise ValueError(f"{self.title} has no house rule {rule_id!r} "
                                 f"(known: {', '.join(known) or 'none'})")
            if value not in known[rule_id].choices:
                raise ValueError(f"house rule {rule_id!r} is one of "
                                 f"{', '.join(known[rule_id].choices)}, not {value!r}")
        return {rule_id: given.get(rule_id, rule.default) for rule_id, rule in known.items()}

    def house_rule(self, state: State, rule_id: str) -> str:
        """The value of a house rule in this game (its default when the state names none)."""
        chosen = state.get("house_rules") or {}
        if rule_id in chosen:
            return str(chosen[rule_id])
        for rule in self.house_rules:
            if rule.id == rule_id:
                return rule.default
        raise KeyError(f"{self.name} has no house rule {rule_id!r}")

    @abstractmethod
    def player_names(self, state: State) -> list[str]:
        """A label per seat, as the table knows them ("A", "B"; a colour; a Deity)."""

    def seat_colours(self, state: State) -> list[str | None]:
        """The colour each seat plays with on the table ("yellow" for Mami Wata's dice), for
        the dashboard's banner; None where the game gives a seat no colour of its own."""
        return [None] * len(self.player_names(state))

    @abstractmethod
    def current_player(self, state: State) -> int | None:
        """The seat that must act now, or None (game over, simultaneous step)."""

    def seat_may_press(self, state: State, seat: int) -> bool:
        """Whether a press of ``seat``'s own button can be the step the record waits for now.
        Where any seat's button ends any step (the default) it always can; a game whose
        seat buttons say "my side is done" (King of Clubs' passes) says no while the step
        waiting is the other side's."""
        return True

    def press_owed(self, state: State, declared: Action, seat: int | None) -> bool:
        """Whether a press the table asked about still says its step once the players
        answered by declaring ``declared`` (the record now ``state``), the table then as
        recorded.  By default not: the move declared was the press's own.  A game whose
        presses never record that kind of move (King of Clubs' Moves, recorded by their
        cards' taps) says yes: the press said the side is done, after it."""
        return False

    def tap_outlasts(self, state: State, declared: Action, card: str, seat: int | None) -> bool:
        """Whether ``card``, read on ``seat``'s reader before the players declared
        ``declared`` (the record now ``state``), is the next step's card rather than part of
        the move declared.  By default not: the taps since the last entry are the declared
        move's.  A game whose sides lay their own cards in turn (King of Clubs' Moves) keeps
        the other side's card: it was laid after the move the players declared."""
        return False

    def phase(self, state: State) -> str:
        """A short name of the current phase, for the phase clock."""
        return str(state.get("phase", "play"))

    def phase_label(self, state: State) -> str:
        """The current phase in the game's words, for the dashboard ("Round 1", "Night 3")."""
        return self.phase(state).replace("_", " ").capitalize()

    # --- moves ---------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, state: State) -> list[Action]:
        """The legal actions given what the tracker knows.

        Where an action depends on something hidden (a card in a hand), every
        card that could still be there is offered.  Must list at least one
        action of each legal type while the game is not over.
        """

    @abstractmethod
    def apply(self, state: State, action: Action) -> State:
        """Return the state after ``action``; raise RuleError / MalformedAction, changing nothing."""

    def is_legal(self, state: State, action: Action) -> bool:
        try:
            self.apply(state, action)
        except (RuleError, MalformedAction):
            return False
        return True

    def describe(self, state: State, action: Action) -> str:
        """One line for the history, in the table's words (state is the one before)."""
        fields = ", ".join(f"{k}={v}" for k, v in action.items() if k not in ("type", "player"))
        who = action.get("player")
        name = self.player_names(state)[who] if isinstance(who, int) else "table"
        return f"{name}: {action.get('type')} {fields}".strip()

    def describe_unsure(self, state: State, action: Action, others: list[Action]) -> str:
        """The words of a line recorded as ``action`` where the table could not tell it from
        ``others`` (a reading taken for them all: "Read the table again" long after): each
        named, never worded as if seen."""
        said = " or ".join(self.describe(state, other) for other in others)
        return f"{self.describe(state, action)} (or {said}: the table no longer shows which)" if said \
            else self.describe(state, action)

    # --- the tablet's forms ------------------------------------------------------------------
    def action_forms(self) -> dict[str, ActionForm]:
        """Every action type by name, described once in the game's words for the tablet."""
        return {}

    def value_label(self, state: State, action_type: str, field_name: str, value: Any) -> str:
        """A field's value in the game's words ("Tiki 8", "Mami Wata", "Cocoa 6")."""
        if isinstance(value, int) and not isinstance(value, bool) and field_name == "player":
            names = self.player_names(state)
            if 0 <= value < len(names):
                return names[value]
        return str(value)

    def action_fields(self) -> dict[str, frozenset[str]]:
        """Each action type with the fields it may carry: the strict schema at the web edge.

        Derived from :meth:`action_forms` ("type" and "player" always allowed); a game
        whose actions carry fields the tablet never asks for overrides this.  An empty
        mapping means the game describes no schema and only generic checks apply.
        """
        return {
            name: frozenset({"type", "player"} | {f.name for f in form.fields})
            for name, form in self.action_forms().items()
        }

    # --- scores and the end ------------------------------------------------------------------
    @abstractmethod
    def scores(self, state: State) -> list[float]:
        """A number per seat (points, VP, votes); the dashboard's headline."""

    @abstractmethod
    def prompts(self, state: State) -> list[Prompt]:
        """What should happen now: whose turn and what they may do, chores, warnings."""

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """None while the game goes on; the winners with the printed tie-breakers applied."""

    def summary(self, state: State) -> dict[str, Any]:
        """The game's own dashboard panel: public facts only, never a hidden card."""
        return {}

    # --- the physical table ------------------------------------------------------------------
    @abstractmethod
    def layout(self, state: State) -> Layout:
        """Where the board's spots are, for the renderer, the reader and calibration."""

    @abstractmethod
    def board_view(self, state: State) -> BoardView:
        """What the camera should see if the table agrees with the tracker."""

    def score_place(self, spot: str) -> bool:
        """Is ``spot`` a place for score pieces only (a tray of chips), which ``tallies``
        counts and no move is read from?"""
        return False

    def without_score_places(self, view: BoardView) -> BoardView:
        """``view`` without its score places: what a move is read from."""
        return {spot: pieces for spot, pieces in view.items() if not self.score_place(spot)}

    def fixed_places(self, state: State) -> frozenset[str]:
        """Places whose pieces no move changes at this point of the game (King of Clubs'
        Nightclubs during a night): a reading there that differs from the record, with
        nothing else changed, says that the move which laid them was misread, however many
        moves ago (:func:`companion.reconcile.reconsider_earlier`).  None by default."""
        return frozenset()

    def read_again(self, state: State, action: Action, source: str) -> bool:
        """Whether ``action``, read from the table (``source`` is not the tablet) after an
        earlier move that a correction has since made ``state``, is only that earlier
        move's pieces read a second time (a Swing State die showing the face the corrected
        roll now says): no move of its own, so the correction takes it back with the
        misreading instead of making it again.  Never, by default."""
        return False

    def laid_otherwise(self, action: Action, was: Piece, now: Piece) -> list[tuple[str, Action]]:
        """``action`` read with one piece it laid that reads ``was`` in the record read as
        ``now`` instead: each (the place it laid that piece on, that reading).  A die the
        camera misread when the set-up was read (a place it misreads all evening) shows its
        true face once it moves, however many moves later; the set-up read so is the entry
        that explains it (:mod:`companion.table.search`).  None by default."""
        return []

    def keeps_pieces(self, state: State) -> bool:
        """Whether every move from ``state`` only moves the pieces on the board, none laid or
        taken away (Times Square's six figures once set up): the pieces a place holds can
        then be told from the rest of the board, where the players said the camera misreads
        that place all evening (:class:`companion.table.overrides.Overrides`)."""
        return False

    def tallies(self, state: State, view: BoardView) -> dict[str, int]:
        """The score pieces ``view`` shows, counted, by name in the game's words ("Mami
        Wata: VP"); a count the view cannot tell (pieces out of sight) is left out.  The
        table sets the camera's counts against the record's: a difference that no move of
        the players explains is shown as a warning, never silently kept."""
        return {}

    @abstractmethod
    def explain(
        self, state: State, seen: BoardView, taps: list[Tap], trigger: Trigger
    ) -> list[Action]:
        """Candidate actions that would turn the tracked table into what is seen.

        ``seen`` is the stable board, ``taps`` the cards tapped since the last
        applied action, ``trigger`` what woke the reconciler: "button" (a player
        says the step is done), "board" (a stable change), "tap" (a card laid on
        a reader).  Return [] when there is nothing to explain yet; return
        actions that :meth:`apply` may still refuse: the refusal's rule becomes
        the prompt.  The reconciler applies a candidate only when exactly one is
        legal.
        """

    def card_ids(self) -> list[str]:
        """Every card id a reader may report (for the tag registry)."""
        return []

    def card_name(self, card: str) -> str:
        """A card as the players call it (a game with better words overrides this)."""
        return card.replace("-", " ").replace("_", " ").capitalize()


def json_copy(state: State) -> State:
    """A deep copy, so apply() can edit freely without touching its input."""
    return copy.deepcopy(state)


def check_json(state: State) -> None:
    """Raise TypeError unless ``state`` survives a JSON round trip unchanged."""
    if json.loads(json.dumps(state)) != state:
        raise TypeError("state is not plain JSON data (tuples, sets or non-str keys?)")


def require(action: Action, key: str, kind: type | tuple[type, ...]) -> Any:
    """Fetch a field of an action or raise MalformedAction saying what is wrong."""
    if key not in action:
        raise MalformedAction(f"action {action.get('type')!r} needs field {key!r}")
    value = action[key]
    if isinstance(value, bool) and kind is int:
        raise MalformedAction(f"field {key!r} must be {kind.__name__}, got {value!r}")
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise MalformedAction(f"field {key!r} must be {names}, got {value!r}")
    return value


def counted(n: int | None, noun: str, plural: str | None = None) -> str:
    """A count with its noun in the right number, for every text players read: "1 Move",
    "3 Moves", "0 Skulls", "1 die" / "2 dice" (``plural`` for a noun that does not take an
    -s).  Never "Move(s)": the count is known when the words are written."""
    many = plural if plural is not None else noun + "s"
    return f"{n} {noun if n == 1 else many}"


ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th", "10th")


def place_names(game: Game, state: State) -> dict[str, str]:
    """Each place as players name it: its printed label; where several places print the
    same label, the game's own words for the place (Jivecat's "Cocoa 7 (2nd from the
    left)"), else the label with its order among them from the left or the top; never an id
    (unless the place has no label at all)."""
    spots = game.layout(state).spots
    names = {spot.id: spot.label or spot.id for spot in spots}
    shared: dict[str, list[Any]] = {}
    for spot in spots:
        shared.setdefault(names[spot.id], []).append(spot)
    for label, same in shared.items():
        if len(same) < 2:
            continue
        words = {spot.id: game.value_label(state, "", "spot", spot.id) for spot in same}
        if all(w != spot.id for spot, w in zip(same, words.values(), strict=True)) \
                and len(set(words.values())) == len(same):
            names.update(words)
            continue
        across = len({round(spot.x) for spot in same}) == len(same)
        ordered = sorted(same, key=(lambda sp: sp.x) if across else (lambda sp: sp.y))
        side = "left" if across else "top"
        for rank, spot in enumerate(ordered):
            nth = ORDINALS[rank] if rank < len(ORDINALS) else f"{rank + 1}th"
            names[spot.id] = f"{label} ({nth} from the {side})"
    return names
