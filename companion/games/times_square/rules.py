"""Times Square (Kosmos two-player strip game): the rules tracker.

The companion sees six figures on a strip and the cards tapped on the readers.
It never knows a hand: it counts hand sizes, the supply and the face-up discard
stack, validates every card of a play one at a time against the board, computes
Champagne Charlie's movement and asks for what it cannot see.

Order of this file (as OpenSpiel's game files): facts about the game as data,
the rule quotes refusals cite, the Game class, then helpers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.base import (
    Action,
    Game,
    HouseRule,
    MalformedAction,
    Outcome,
    RuleError,
    State,
    check_json,
    counted,
    json_copy,
    require,
)

# --------------------------------------------------------------------------- facts as data

DATA_PATH = Path(__file__).parent / "data" / "board.json"

FIGURES = ("sue", "hal", "deb", "bodyguard_left", "bodyguard_right")
"""The five figures of the light strip, as named in positions and actions."""

STEP_FIGURES = (*FIGURES, "group", "charlie")
"""What a step of a play may name; "group" = Sue and both Bodyguards, "charlie" is refused."""

COLOURS = ("sue", "hal", "deb", "bodyguard")
"""Card colours = the figure type a card moves."""

LURABLE = ("sue", "bodyguard_left", "bodyguard_right")

ACTION_TYPES = ("setup", "play", "lure", "trade", "pass", "charlie")

SIDE_NAMES = ("A", "B")
MAX_SEARCH_NODES = 20_000


@dataclass(frozen=True)
class Card:
    """One of the 55 cards: its colour is the figure type it moves, value the spaces;
    a sewer-cover card moves its figure to the middle space instead."""

    id: str
    colour: str
    value: int | None
    sewer: bool

    def label(self) -> str:
        name = {"sue": "Sue", "hal": "Hal", "deb": "Deb", "bodyguard": "Bodyguard"}[self.colour]
        return f"{name} sewer" if self.sewer else f"{name} {self.value}"


@dataclass(frozen=True)
class BoardData:
    """The physical facts of the data file (strip, entrances, start, cards, sizes)."""

    spaces: int
    middle: int
    entrances: tuple[tuple[int, ...], tuple[int, ...]]
    start: dict[str, Any]
    hand_size: int
    pieces: dict[str, str]
    layout: dict[str, float]
    cards: dict[str, Card]

    @classmethod
    def load(cls, path: Path) -> BoardData:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        cards: dict[str, Card] = {}
        for entry in raw["cards"]:
            card = Card(str(entry["id"]), str(entry["colour"]), entry.get("value"),
                        bool(entry.get("sewer", False)))
            if card.colour not in COLOURS:
                raise ValueError(f"card {card.id}: unknown colour {card.colour!r}")
            if not card.sewer and not isinstance(card.value, int):
                raise ValueError(f"card {card.id}: needs an int value or sewer: true")
            if card.id in cards:
                raise ValueError(f"card id {card.id} appears twice")
            cards[card.id] = card
        spaces = int(raw["spaces"])
        entrances = (tuple(raw["entrances"][0]), tuple(raw["entrances"][1]))
        if spaces < 7 or not 0 < int(raw["middle"]) < spaces - 1:
            raise ValueError("the strip needs at least 7 spaces and a middle space inside it")
        if any(not 0 <= s < spaces for side in entrances for s in side):
            raise ValueError("entrance spaces must lie on the strip")
        return cls(spaces, int(raw["middle"]), entrances, dict(raw["start"]),
                   int(raw["hand_size"]), dict(raw["pieces"]), dict(raw["layout"]), cards)


# --------------------------------------------------------------------------- the rules quoted

R_TURNS = "The player who has Handsome Hal on his side of the board begins. The players then " \
          "alternate turns."
R_ORDER = "On a player's turn he executes, in order: 1. play cards, or lure a figure to " \
          "Handsome Hal, or trade cards; 2. draw cards (only after playing or trading); " \
          "3. move Champagne Charlie."
R_SETUP = "Each player places his figure (Handsome Hal or Dancing Deb) in the empty space " \
          "between Saucy Sue and the Bodyguard closest to his side of the board."
R_SAME_COLOUR = "If he plays several cards, they must all be the same color."
R_CARD_FIGURE = "Each card represents one of the four figures. By playing a card, the player " \
                "can move the corresponding figure."
R_COMPLETE = "A player may not play a card that cannot be completely executed."
R_DIFFERENT = "Saucy Sue and her Bodyguards must always be on three different spaces; they may " \
              "not stand on the same space nor be moved to the same space."
R_BETWEEN = "Saucy Sue must always be on a space between the two Bodyguards."
R_GROUP = "When a player plays two Saucy Sue cards at the same time, he moves Saucy Sue and her " \
          "2 Bodyguards as a group: each of the 3 figures 1 space in the same direction."
R_DISCARD = "Players place played cards face-up on a discard stack next to the supply " \
            "(a card on the discard stack is not in anyone's hand)."
R_HAND = "Each player holds 8 cards after drawing; he cannot play or discard more cards than " \
         "he holds."
R_DEB_JOKER = "A player can use a Dancing Deb card as a joker to move one of the other figures " \
              "(Saucy Sue, Handsome Hal, or one of the Bodyguards - but not Champagne Charlie)."
R_DEB_POSITION = "Dancing Deb must be between Saucy Sue and the player's end of the board to " \
                 "use this function."
R_DEB_LOCK = "If a player uses a Dancing Deb card to move another figure, he must always move " \
             "the figure type chosen and not Dancing Deb when he plays a Dancing Deb card in " \
             "the rest of the game."
R_DEB_SUE = "If the player chooses to use Dancing Deb to move Saucy Sue, Dancing Deb must always " \
            "be between Saucy Sue and the player's end of the board."
R_LURE = "Instead of playing cards, a player may move Saucy Sue or one of her Bodyguards to the " \
         "space where Handsome Hal is standing."
R_LURE_DEB = "Dancing Deb knows Handsome Hal's game and cannot be attracted by his charm."
R_TRADE = "Instead of playing cards or luring, a player may discard any number of cards " \
          "face-up on the discard stack."
R_CHARLIE = "The player may move Champagne Charlie toward his nightclub: 1 space for each " \
            "figure on either of his entrance spaces, and 1 space when Saucy Sue and both " \
            "Bodyguards stand on his side of the middle space."
R_END = "The game ends immediately when a player moves either Champagne Charlie or Saucy Sue " \
        "to one of his 2 entrance spaces. This player wins the game."
R_END_SUPPLY = "If no player manages this before the card supply is twice exhausted, the game " \
               "ends then."
R_WINNER = "The winner will be the player who is best at attracting the famous!"


# --------------------------------------------------------------------------- house rules

HOUSE_RULES = (
    HouseRule(
        "zero_trade", "A trade of no cards (a pass)",
        {"allowed": "Allowed: a player may trade no cards and so pass",
         "refused": "Refused: a trade discards at least one card"},
        "allowed",
        "Instead of playing card(s) or moving a Saucy Sue or one of her Bodyguards to Handsome "
        "Hal, a player may discard any number of cards face-up on the discard stack."),
    HouseRule(
        "deb_on_sue", "Dancing Deb on Saucy Sue's space",
        {"not_between": "Not between: Deb on Sue's space cannot be used as a joker",
         "between": "Between: Deb on Sue's space may be used as a joker"},
        "not_between",
        "Dancing Deb must be between Saucy Sue and the player's end of the board to use this "
        "function."),
    HouseRule(
        "supply_end", "The winner when the supply runs out twice",
        {"sue_side": "Saucy Sue's side of the middle wins (Sue on the middle: Champagne "
                     "Charlie's side; both on the middle: a draw)",
         "charlie_side": "Champagne Charlie's side of the middle wins (Charlie on the middle: "
                         "Saucy Sue's side; both on the middle: a draw)",
         "draw": "Nobody wins: a draw"},
        "sue_side",
        "If no player manages this before the card supply is twice exhausted, the game ends "
        "then. (The winner will be the player who is best at attracting the famous!)"),
)


# --------------------------------------------------------------------------- the game


class TimesSquareRules(Game):
    """Referee of a Times Square table: validates plays card by card, counts the supply,
    computes Charlie's move and both ends of the game."""

    name = "times_square"
    title = "Times Square"
    min_players = 2
    max_players = 2
    variants = ("standard",)
    house_rules = HOUSE_RULES
    own_readers = True  # each player plays only from their own hand on their own reader

    def __init__(self, data_path: str | Path | None = None) -> None:
        self.data = BoardData.load(Path(data_path) if data_path else DATA_PATH)

    # --- set-up and turn structure -----------------------------------------------------------

    def setup(self, players: int, variant: str | None = None, seed: int = 0) -> State:
        if players != 2:
            raise ValueError("Times Square is a game for exactly 2 players")
        variant = variant or self.variants[0]
        if variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}; choose one of {self.variants}")
        start = self.data.start
        state: State = {
            "players": 2,
            "variant": variant,
            "phase": "setup",
            "turn": None,
            "turn_no": 0,
            "pos": {
                "sue": start["sue"], "hal": None, "deb": None,
                "bodyguard_left": start["bodyguard_left"],
                "bodyguard_right": start["bodyguard_right"],
                "charlie": start["charlie"],
            },
            "hal_player": None,
            "joker": [None, None],
            "hands": [0, 0],
            "supply": len(self.data.cards),
            "discard": [],
            "exhausted": 0,
            "charlie_due": 0,
            "last": None,
            "result": None,
        }
        check_json(state)
        return state

    def player_names(self, state: State) -> list[str]:
        return list(SIDE_NAMES)

    def current_player(self, state: State) -> int | None:
        if state["phase"] in ("setup", "over"):
            return None
        return int(state["turn"])

    # --- moves --------------------------------------------------------------------------------

    def apply(self, state: State, action: Action) -> State:
        if not isinstance(action, dict):
            raise MalformedAction("an action is a JSON object with a 'type'")
        kind = require(action, "type", str)
        handler = {
            "setup": self._apply_setup, "play": self._apply_play, "lure": self._apply_lure,
            "trade": self._apply_trade, "pass": self._apply_pass, "charlie": self._apply_charlie,
        }.get(kind)
        if handler is None:
            raise MalformedAction(f"unknown action type {kind!r}; Times Square knows "
                                  f"{', '.join(ACTION_TYPES)}")
        if state["phase"] == "over":
            raise RuleError("the game is over", R_END)
        new = handler(state, action)
        check_json(new)
        return new

    def _apply_setup(self, state: State, action: Action) -> State:
        hal_player = require(action, "hal_player", int)
        if hal_player not in (0, 1):
            raise MalformedAction("hal_player must be 0 (A) or 1 (B)")
        if state["phase"] != "setup":
            raise RuleError("the table is already set up", R_SETUP)
        new = json_copy(state)
        near_a, near_b = self.data.start["hal_deb"]
        new["pos"]["hal"], new["pos"]["deb"] = (near_a, near_b) if hal_player == 0 \
            else (near_b, near_a)
        new["hal_player"] = hal_player
        new["turn"] = hal_player
        new["phase"] = "play"
        new["hands"] = [self.data.hand_size, self.data.hand_size]
        new["supply"] = len(self.data.cards) - 2 * self.data.hand_size
        return new

    def _start_turn_action(self, state: State, action: Action) -> int:
        player = require(action, "player", int)
        if player not in (0, 1):
            raise MalformedAction("player must be 0 (A) or 1 (B)")
        if state["phase"] == "setup":
            raise RuleError("set the table up first (who holds Handsome Hal?)", R_TURNS)
        if player != state["turn"]:
            raise RuleError(f"it is {SIDE_NAMES[state['turn']]}'s turn", R_TURNS)
        if state["phase"] == "charlie":
            raise RuleError("finish the turn first: move Champagne Charlie or decline", R_ORDER)
        if "charlie" in action:
            require(action, "charlie", int)
        return player

    def _apply_play(self, state: State, action: Action) -> State:
        player = self._start_turn_action(state, action)
        raw_steps = require(action, "steps", list)
        if not raw_steps:
            raise MalformedAction("a play needs at least one step")
        steps = [self._parse_step(s) for s in raw_steps]
        ids = [cid for step in steps for cid in step["cards"]]
        self._check_cards(state, player, ids, same_colour=True)
        pos, lock, winner = self._run_steps(state, player, steps, check=True)
        new = json_copy(state)
        new["pos"].update(pos)
        new["joker"][player] = lock
        new["hands"][player] -= len(ids)
        new["discard"] += ids
        if winner is not None:
            return self._finish_by_entrance(new, action, winner, "Saucy Sue")
        self._draw(new, player)
        return self._charlie_step(new, action, player)

    def _apply_lure(self, state: State, action: Action) -> State:
        player = self._start_turn_action(state, action)
        figure = require(action, "figure", str)
        if figure == "deb":
            raise RuleError("Dancing Deb cannot be lured", R_LURE_DEB)
        if figure == "hal":
            raise RuleError("Handsome Hal cannot lure himself", R_LURE)
        if figure not in LURABLE:
            raise MalformedAction(f"figure must be one of {', '.join(LURABLE)}")
        pos = dict(state["pos"])
        if pos[figure] == pos["hal"]:
            raise RuleError(f"{_figure_name(figure)} already stands on Handsome Hal's space",
                            R_LURE)
        pos[figure] = pos["hal"]
        _check_spacing(pos)
        new = json_copy(state)
        new["pos"] = pos
        winner = self.entrance_owner(pos["sue"])
        if winner is not None:
            return self._finish_by_entrance(new, action, winner, "Saucy Sue")
        new["last"] = {"player": player, "drawn": 0, "after_reshuffle": 0, "reshuffled": 0}
        return self._charlie_step(new, action, player)

    def _apply_trade(self, state: State, action: Action) -> State:
        player = self._start_turn_action(state, action)
        ids = require(action, "cards", list)
        if not ids and self.house_rule(state, "zero_trade") == "refused":
            raise RuleError("a trade discards at least one card: this table plays without "
                            "passing (house rule)", R_TRADE)
        self._check_cards(state, player, ids, same_colour=False)
        new = json_copy(state)
        new["hands"][player] -= len(ids)
        new["discard"] += ids
        self._draw(new, player)
        return self._charlie_step(new, action, player)

    def _apply_pass(self, state: State, action: Action) -> State:
        """A trade of no cards: the turn passes to Charlie's move (if the house rule allows)."""
        return self._apply_trade(state, {**action, "type": "trade", "cards": []})

    def _apply_charlie(self, state: State, action: Action) -> State:
        player = require(action, "player", int)
        spaces = require(action, "spaces", int)
        if player not in (0, 1):
            raise MalformedAction("player must be 0 (A) or 1 (B)")
        if state["phase"] != "charlie":
            raise RuleError("Champagne Charlie moves only at the end of a turn", R_ORDER)
        if player != state["turn"]:
            raise RuleError(f"it is {SIDE_NAMES[state['turn']]}'s turn", R_TURNS)
        new = json_copy(state)
        new["phase"] = "play"
        return self._charlie_step(new, {"charlie": spaces}, player)

    # --- steps of a play ------------------------------------------------------------------------

    def _parse_step(self, step: Any) -> dict[str, Any]:
        """Check a step's schema; return it with its cards resolved."""
        if not isinstance(step, dict):
            raise MalformedAction("each step is an object with cards, figure, direction")
        cards = require(step, "cards", list)
        figure = require(step, "figure", str)
        if figure not in STEP_FIGURES:
            raise MalformedAction(f"figure must be one of {', '.join(STEP_FIGURES)}")
        if not 1 <= len(cards) <= 2 or not all(isinstance(c, str) for c in cards):
            raise MalformedAction("a step plays one card id, or two Sue card ids as a group")
        for cid in cards:
            if cid not in self.data.cards:
                raise MalformedAction(f"unknown card id {cid!r}")
        if len(cards) == 2 and figure != "group":
            raise MalformedAction("two cards in one step are a group move: figure 'group'")
        if figure == "group" and len(cards) != 2:
            raise RuleError("a group move takes two Saucy Sue cards", R_GROUP)
        sewer = any(self.data.cards[c].sewer for c in cards)
        if sewer:
            if "direction" in step:
                raise MalformedAction("a sewer-cover card moves to the middle space: leave out "
                                      "direction")
            direction = None
        else:
            direction = require(step, "direction", int)
            if direction not in (-1, 1):
                raise MalformedAction("direction is -1 (toward A) or 1 (toward B)")
        return {"cards": list(cards), "figure": figure, "direction": direction}

    def _check_cards(self, state: State, player: int, ids: list[Any], same_colour: bool) -> None:
        """Everything about the cards that does not depend on the board."""
        for cid in ids:
            if not isinstance(cid, str) or cid not in self.data.cards:
                raise MalformedAction(f"unknown card id {cid!r}")
        if len(set(ids)) != len(ids):
            raise RuleError("the same card is played twice", R_DISCARD)
        public = set(state["discard"])
        for cid in ids:
            if cid in public:
                raise RuleError(f"{self.data.cards[cid].label()} ({cid}) lies face-up on the "
                                "discard stack", R_DISCARD)
        if len(ids) > state["hands"][player]:
            raise RuleError(f"{SIDE_NAMES[player]} holds only {counted(state['hands'][player], 'card')}",
                            R_HAND)
        if same_colour and len({self.data.cards[c].colour for c in ids}) > 1:
            raise RuleError("the cards are of different colours", R_SAME_COLOUR)

    def _run_steps(
        self, state: State, player: int, steps: list[dict[str, Any]], check: bool
    ) -> tuple[dict[str, int], str | None, int | None]:
        """Execute a play's steps one at a time; return positions, joker lock, Sue's winner."""
        pos = {f: state["pos"][f] for f in FIGURES}
        lock = state["joker"][player]
        winner = None
        for step in steps:
            if winner is not None:
                raise RuleError("Saucy Sue reached an entrance: the game ended before this card",
                                R_END)
            cards = [self.data.cards[c] for c in step["cards"]]
            pos, lock = self.move(pos, lock, player, step["figure"], step["direction"], cards,
                                  check, self.deb_on_sue_between(state))
            winner = self.entrance_owner(pos["sue"])
        return pos, lock, winner

    def move(
        self, pos: dict[str, int], lock: str | None, player: int, figure: str,
        direction: int | None, cards: list[Card], check: bool = True,
        on_sue_between: bool = False,
    ) -> tuple[dict[str, int], str | None]:
        """One step: one card (or two Sue cards as a group) moving ``figure``.

        Returns the new positions and the player's Deb joker choice; raises RuleError
        naming the rule.  ``check=False`` only does the arithmetic (for explain's
        fallback, whose candidates apply() then refuses with the rule).  ``on_sue_between``:
        the house rule that counts Deb on Sue's space as between Sue and the player's end.
        """
        pos = dict(pos)
        card = cards[0]
        if figure == "group":
            if check and any(c.colour != "sue" for c in cards):
                raise RuleError("a group move takes two Saucy Sue cards", R_GROUP)
            step = direction or 0
            for f in ("sue", "bodyguard_left", "bodyguard_right"):
                pos[f] += step
                if check:
                    self._check_on_strip(pos[f], f, 1, step)
            if check:
                _check_spacing(pos)
            return pos, lock
        if figure == "charlie":
            raise RuleError("Champagne Charlie is not moved by playing cards", R_DEB_JOKER)
        kind = _figure_type(figure)
        if card.colour == "deb" and kind != "deb":
            if check:
                if lock is not None and lock != kind:
                    raise RuleError(f"{SIDE_NAMES[player]} chose Dancing Deb as a joker for "
                                    f"{_type_name(lock)}", R_DEB_LOCK)
                if not self._deb_between(pos, player, on_sue_between):
                    raise RuleError(f"Dancing Deb is not between Saucy Sue and "
                                    f"{SIDE_NAMES[player]}'s end of the board", R_DEB_POSITION)
            lock = kind
        elif card.colour == "deb":
            if check and lock is not None:
                raise RuleError(f"{SIDE_NAMES[player]}'s Deb cards now move "
                                f"{_type_name(lock)}, not Dancing Deb", R_DEB_LOCK)
        elif check and card.colour != kind:
            raise RuleError(f"a {card.label()} card cannot move {_figure_name(figure)}",
                            R_CARD_FIGURE)
        if card.sewer:
            if check and pos[figure] == self.data.middle:
                raise RuleError(f"{_figure_name(figure)} already stands on the middle space",
                                R_COMPLETE)
            pos[figure] = self.data.middle
        else:
            value = int(card.value or 0)
            pos[figure] += (direction or 0) * value
            if check:
                self._check_on_strip(pos[figure], figure, value, direction or 0)
        if check:
            if kind in ("sue", "bodyguard"):
                _check_spacing(pos)
            if card.colour == "deb" and kind == "sue" and not self._deb_between(pos, player, on_sue_between):
                raise RuleError("Saucy Sue would pass Dancing Deb", R_DEB_SUE)
        return pos, lock

    def _check_on_strip(self, where: int, figure: str, value: int, direction: int) -> None:
        if not 0 <= where < self.data.spaces:
            side = SIDE_NAMES[0 if direction < 0 else 1]
            raise RuleError(f"{_figure_name(figure)} cannot move {value} "
                            f"space{'s' if value != 1 else ''} toward {side}: the strip ends",
                            R_COMPLETE)

    def _deb_between(self, pos: dict[str, int], player: int, on_sue_between: bool = False) -> bool:
        """Deb between Sue and the player's end (A's end is space 0): strictly, or with Deb
        on Sue's space counting too under the house rule."""
        if on_sue_between and pos["deb"] == pos["sue"]:
            return True
        return pos["deb"] < pos["sue"] if player == 0 else pos["deb"] > pos["sue"]

    def deb_on_sue_between(self, state: State) -> bool:
        """The table's house rule: does Deb on Sue's space count as between?"""
        return self.house_rule(state, "deb_on_sue") == "between"

    # --- draw, Charlie and the end ------------------------------------------------------------

    def _draw(self, new: State, player: int) -> None:
        """Draw back to 8, reshuffling the discard at the first exhaustion; the second ends it."""
        need = self.data.hand_size - new["hands"][player]
        drawn = after = reshuffled = 0
        while need > 0 and new["phase"] != "over":
            take = min(need, new["supply"])
            new["supply"] -= take
            new["hands"][player] += take
            need -= take
            if new["exhausted"]:
                after += take
            else:
                drawn += take
            if new["supply"] == 0:
                new["exhausted"] += 1
                if new["exhausted"] == 1:
                    reshuffled = len(new["discard"])
                    new["supply"] = reshuffled
                    new["discard"] = []
                else:
                    self._finish_by_supply(new)
        new["last"] = {"player": player, "drawn": drawn, "after_reshuffle": after,
                       "reshuffled": reshuffled}

    def charlie_due(self, pos: dict[str, int | None], player: int) -> int:
        """Spaces Charlie may move toward ``player`` now, capped at the strip's end."""
        own = self.data.entrances[player]
        due = sum(1 for f in FIGURES if pos[f] in own)
        trio = [pos["sue"], pos["bodyguard_left"], pos["bodyguard_right"]]
        if all(_side(self.data.middle, x) == player for x in trio if x is not None):
            due += 1
        charlie = int(pos["charlie"] or 0)
        room = charlie if player == 0 else self.data.spaces - 1 - charlie
        return min(due, room)

    def _charlie_step(self, new: State, action: Action, player: int) -> State:
        """Step 3 of a turn: Charlie's move if the action carries it, else ask for it."""
        if new["phase"] == "over":
            if action.get("charlie", 0) != 0:
                raise RuleError("the supply ran out for the second time: the game ended before "
                                "Champagne Charlie's move", R_END_SUPPLY)
            return new
        due = self.charlie_due(new["pos"], player)
        if "charlie" not in action:
            if due > 0:
                new["phase"] = "charlie"
                new["charlie_due"] = due
                return new
            return self._end_turn(new, player)
        spaces = int(action["charlie"])
        if spaces < 0:
            raise RuleError("Champagne Charlie moves toward the player's own nightclub", R_CHARLIE)
        if spaces > due:
            raise RuleError(f"Champagne Charlie may move at most {due} space"
                            f"{'s' if due != 1 else ''} toward {SIDE_NAMES[player]} now",
                            R_CHARLIE)
        new["pos"]["charlie"] += spaces * _toward(player)
        new["charlie_due"] = 0
        if self.entrance_owner(new["pos"]["charlie"]) == player:
            return self._finish_by_entrance(new, {}, player, "Champagne Charlie")
        return self._end_turn(new, player)

    def _end_turn(self, new: State, player: int) -> State:
        new["phase"] = "play"
        new["charlie_due"] = 0
        new["turn"] = 1 - player
        new["turn_no"] += 1
        return new

    def entrance_owner(self, space: int | None) -> int | None:
        for seat, spaces in enumerate(self.data.entrances):
            if space in spaces:
                return seat
        return None

    def _finish_by_entrance(self, new: State, action: Action, winner: int, who: str) -> State:
        if action.get("charlie", 0) != 0:
            raise RuleError(f"{who} reached an entrance: the game ended before Champagne "
                            "Charlie's move", R_END)
        new["phase"] = "over"
        new["charlie_due"] = 0
        new["result"] = {"winners": [winner],
                         "reason": f"{who} reached {SIDE_NAMES[winner]}'s entrance"}
        return new

    def _finish_by_supply(self, new: State) -> None:
        """Second exhaustion, decided by the house rule: Sue's side then Charlie's (the
        default), Charlie's side then Sue's, or a draw."""
        mid = self.data.middle
        sue_side = _side(mid, new["pos"]["sue"])
        charlie_side = _side(mid, new["pos"]["charlie"])
        rule = self.house_rule(new, "supply_end")
        if rule == "draw":
            sue_side = charlie_side = None
        if rule == "charlie_side" and charlie_side is not None:
            result = {"winners": [charlie_side], "reason": "the supply ran out twice; Champagne "
                      f"Charlie stands on {SIDE_NAMES[charlie_side]}'s side"}
        elif rule == "charlie_side" and sue_side is not None:
            result = {"winners": [sue_side], "reason": "the supply ran out twice; Champagne "
                      "Charlie is on the middle space and Saucy Sue on "
                      f"{SIDE_NAMES[sue_side]}'s side"}
        elif rule == "draw":
            result = {"winners": [0, 1], "reason": "the supply ran out twice: a draw (house "
                      "rule: nobody wins)"}
        elif sue_side is not None:
            result = {"winners": [sue_side], "reason": "the supply ran out twice; Saucy Sue "
                      f"stands on {SIDE_NAMES[sue_side]}'s side"}
        elif charlie_side is not None:
            result = {"winners": [charlie_side], "reason": "the supply ran out twice; Saucy Sue "
                      "is on the middle space and Champagne Charlie on "
                      f"{SIDE_NAMES[charlie_side]}'s side"}
        else:
            result = {"winners": [0, 1], "reason": "the supply ran out twice with Saucy Sue and "
                      "Champagne Charlie on the middle space: a draw"}
        new["phase"] = "over"
        new["charlie_due"] = 0
        new["result"] = result

    # --- what is legal ------------------------------------------------------------------------

    def legal_actions(self, state: State) -> list[Action]:
        """Set-up choices; in a turn a representative list: for every kind of card (colour and
        value) that can still be in a hand, one card of that kind on every figure and direction
        it may legally move; every Sue pair's group move; every legal lure; a one-card trade
        per kind.  Each carries Charlie's full computed move.  In Charlie's step: 0..due."""
        phase = state["phase"]
        if phase == "over":
            return []
        if phase == "setup":
            return [{"type": "setup", "hal_player": 0}, {"type": "setup", "hal_player": 1}]
        player = int(state["turn"])
        if phase == "charlie":
            return [{"type": "charlie", "player": player, "spaces": k}
                    for k in range(state["charlie_due"] + 1)]
        actions: list[Action] = []
        kinds = self._kinds_in_play(state)
        for card in kinds.values():
            for figure in self.figures_for(card, state["joker"][player]):
                for direction in ((None,) if card.sewer else (-1, 1)):
                    step = {"cards": [card.id], "figure": figure, "direction": direction}
                    actions += self._legal_play(state, player, [step])
        sue_free = [c for c in self.data.cards if c not in set(state["discard"])
                    and self.data.cards[c].colour == "sue"]
        if len(sue_free) >= 2 and state["hands"][player] >= 2:
            for direction in (-1, 1):
                step = {"cards": sue_free[:2], "figure": "group", "direction": direction}
                actions += self._legal_play(state, player, [step])
        for figure in LURABLE:
            action = {"type": "lure", "player": player, "figure": figure}
            actions += self._with_charlie(state, action)
        for card in kinds.values():
            action = {"type": "trade", "player": player, "cards": [card.id]}
            actions += self._with_charlie(state, action)
        actions += self._with_charlie(state, {"type": "pass", "player": player})
        return actions

    def phase(self, state: State) -> str:
        """The step of the turn, for the turn timer: "setup", "cards" (play, lure, trade or
        pass), "charlie" (his move is due), "over"."""
        return {"play": "cards"}.get(state["phase"], str(state["phase"]))

    def _kinds_in_play(self, state: State) -> dict[tuple[str, int | None, bool], Card]:
        public = set(state["discard"])
        kinds: dict[tuple[str, int | None, bool], Card] = {}
        for card in self.data.cards.values():
            if card.id not in public:
                kinds.setdefault((card.colour, card.value, card.sewer), card)
        return kinds

    def figures_for(self, card: Card, lock: str | None) -> list[str]:
        if card.colour == "bodyguard":
            return ["bodyguard_left", "bodyguard_right"]
        if card.colour != "deb":
            return [card.colour]
        jokers = ["sue", "hal", "bodyguard_left", "bodyguard_right"]
        if lock is None:
            return ["deb", *jokers]
        return [f for f in jokers if _figure_type(f) == lock]

    def _legal_play(self, state: State, player: int, steps: list[dict[str, Any]]) -> list[Action]:
        clean = [{k: v for k, v in s.items() if not (k == "direction" and v is None)}
                 for s in steps]
        action = {"type": "play", "player": player, "steps": clean}
        return self._with_charlie(state, action)

    def _with_charlie(self, state: State, action: Action) -> list[Action]:
        """The action with Charlie's full move filled in, or [] if it is illegal."""
        try:
            after = self.apply(state, action)
        except (RuleError, MalformedAction):
            return []
        if after["phase"] == "charlie":
            action = {**action, "charlie": after["charlie_due"]}
        return [action]

    # --- scores, prompts, the end -------------------------------------------------------------

    def scores(self, state: State) -> list[float]:
        """Pull of each side: spaces Sue and Charlie stand on that side of the middle."""
        pos, mid = state["pos"], self.data.middle
        pulls = [0.0, 0.0]
        for figure in ("sue", "charlie"):
            where = pos[figure]
            if where < mid:
                pulls[0] += mid - where
            elif where > mid:
                pulls[1] += where - mid
        return pulls

    def outcome(self, state: State) -> Outcome | None:
        result = state.get("result")
        if not result:
            return None
        return Outcome(tuple(result["winners"]), result["reason"])

    # --- the physical table -------------------------------------------------------------------


    def card_ids(self) -> list[str]:
        return list(self.data.cards)

    # --- words ----------------------------------------------------------------------------------


# --------------------------------------------------------------------------- helpers


def _check_spacing(pos: dict[str, int]) -> None:
    left, sue, right = pos["bodyguard_left"], pos["sue"], pos["bodyguard_right"]
    if len({left, sue, right}) < 3:
        raise RuleError("Saucy Sue and a Bodyguard would share a space", R_DIFFERENT)
    if not left < sue < right:
        raise RuleError("Saucy Sue would not stand between the two Bodyguards", R_BETWEEN)


def _figure_type(figure: str) -> str:
    return "bodyguard" if figure.startswith("bodyguard") else figure


def _figure_name(figure: str) -> str:
    return {"sue": "Saucy Sue", "hal": "Handsome Hal", "deb": "Dancing Deb",
            "bodyguard_left": "the left Bodyguard", "bodyguard_right": "the right Bodyguard",
            "group": "Sue and her Bodyguards", "charlie": "Champagne Charlie"}.get(figure, figure)


def _type_name(kind: str | None) -> str:
    return {"sue": "Saucy Sue", "hal": "Handsome Hal", "bodyguard": "the Bodyguards",
            "deb": "Dancing Deb"}.get(kind or "", str(kind))


def _toward(player: int) -> int:
    """Direction of a player's nightclub along the strip: A is at space 0."""
    return -1 if player == 0 else 1


def _side(middle: int, where: int | None) -> int | None:
    if where is None or where == middle:
        return None
    return 0 if where < middle else 1


