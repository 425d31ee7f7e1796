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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    Game,
    Layout,
    MalformedAction,
    Outcome,
    Piece,
    Prompt,
    RuleError,
    Spot,
    State,
    Tap,
    Trigger,
    check_json,
    json_copy,
    make_view,
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


# --------------------------------------------------------------------------- the game


class TimesSquare(Game):
    """Referee of a Times Square table: validates plays card by card, counts the supply,
    computes Charlie's move and both ends of the game."""

    name = "times_square"
    title = "Times Square"
    min_players = 2
    max_players = 2
    variants = ("standard",)

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
            "trade": self._apply_trade, "charlie": self._apply_charlie,
        }.get(kind)
        if handler is None:
            raise MalformedAction(f"unknown action type {kind!r}; Times Square knows setup, "
                                  "play, lure, trade, charlie")
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
        if not ids:
            raise MalformedAction("a trade discards at least one card")
        self._check_cards(state, player, ids, same_colour=False)
        new = json_copy(state)
        new["hands"][player] -= len(ids)
        new["discard"] += ids
        self._draw(new, player)
        return self._charlie_step(new, action, player)

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
            raise RuleError(f"{SIDE_NAMES[player]} holds only {state['hands'][player]} cards",
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
                                  check)
            winner = self.entrance_owner(pos["sue"])
        return pos, lock, winner

    def move(
        self, pos: dict[str, int], lock: str | None, player: int, figure: str,
        direction: int | None, cards: list[Card], check: bool = True,
    ) -> tuple[dict[str, int], str | None]:
        """One step: one card (or two Sue cards as a group) moving ``figure``.

        Returns the new positions and the player's Deb joker choice; raises RuleError
        naming the rule.  ``check=False`` only does the arithmetic (for explain's
        fallback, whose candidates apply() then refuses with the rule).
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
                if not self._deb_between(pos, player):
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
            if card.colour == "deb" and kind == "sue" and not self._deb_between(pos, player):
                raise RuleError("Saucy Sue would pass Dancing Deb", R_DEB_SUE)
        return pos, lock

    def _check_on_strip(self, where: int, figure: str, value: int, direction: int) -> None:
        if not 0 <= where < self.data.spaces:
            side = SIDE_NAMES[0 if direction < 0 else 1]
            raise RuleError(f"{_figure_name(figure)} cannot move {value} "
                            f"space{'s' if value != 1 else ''} toward {side}: the strip ends",
                            R_COMPLETE)

    def _deb_between(self, pos: dict[str, int], player: int) -> bool:
        """Deb strictly between Sue and the player's end (A's end is space 0)."""
        return pos["deb"] < pos["sue"] if player == 0 else pos["deb"] > pos["sue"]

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
        """Second exhaustion: Sue's side decides, then Charlie's; both in the middle: a draw."""
        mid = self.data.middle
        sue_side = _side(mid, new["pos"]["sue"])
        charlie_side = _side(mid, new["pos"]["charlie"])
        if sue_side is not None:
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
        return actions

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

    def prompts(self, state: State) -> list[Prompt]:
        phase = state["phase"]
        out: list[Prompt] = []
        if phase == "over":
            result = state["result"]
            who = " and ".join(SIDE_NAMES[w] for w in result["winners"])
            verdict = "Draw" if len(result["winners"]) == 2 else f"{who} wins"
            return [Prompt(f"Game over: {verdict} ({result['reason']}).", "info")]
        if phase == "setup":
            total = len(self.data.cards)
            rest = total - 2 * self.data.hand_size
            out.append(Prompt(
                "Set up: Saucy Sue on the sewer-cover space, Champagne Charlie beside her on the "
                "dark edge, a Bodyguard two spaces either side of Sue. One player hides Handsome "
                "Hal and Dancing Deb in his fists, the other picks one; each places his figure "
                "between Sue and the Bodyguard on his side. Shuffle, deal 8 cards each, "
                f"{rest} stay as the supply. Then press the button.", "turn"))
            out.append(Prompt("Who holds Handsome Hal (he begins)?", "choice", None,
                              self.legal_actions(state)))
            return out
        player = int(state["turn"])
        name = SIDE_NAMES[player]
        out += self._draw_chores(state)
        if phase == "charlie":
            due = state["charlie_due"]
            target = state["pos"]["charlie"] + due * _toward(player)
            out.append(Prompt(
                f"{name}: move Champagne Charlie {due} space{'s' if due != 1 else ''} toward "
                f"{name} (to space {target}), then press the button; press without moving him "
                "to decline.", "chore", player))
            out.append(Prompt(f"{name}'s turn: move Champagne Charlie.", "turn", player))
            return out
        lock = state["joker"][player]
        deb = ("Deb cards move " + _type_name(lock)) if lock else "Deb cards move Deb or a joker"
        deb += " (joker usable now)" if self._deb_between(state["pos"], player) \
            else " (joker not usable now: Deb is not between Sue and your end)"
        out.append(Prompt(
            f"{name}'s turn: play cards of one colour one at a time on your reader and move the "
            "figures, or lure Sue or a Bodyguard to Hal, or tap cards to trade on the shared "
            f"reader; then draw back to 8, move Charlie if due, press the button. {deb}.",
            "turn", player))
        return out

    def _draw_chores(self, state: State) -> list[Prompt]:
        last = state.get("last")
        if not last or (not last["drawn"] and not last["reshuffled"]):
            return []
        who = SIDE_NAMES[last["player"]]
        if last["reshuffled"]:
            text = (f"{who}: draw {last['drawn']} card{'s' if last['drawn'] != 1 else ''}; the "
                    f"supply is then empty: shuffle the discard stack ({last['reshuffled']} "
                    "cards) face-down as the new supply")
            if last["after_reshuffle"]:
                text += f" and draw {last['after_reshuffle']} more"
            text += f" ({state['supply']} left)."
        else:
            text = (f"{who}: draw {last['drawn']} card{'s' if last['drawn'] != 1 else ''} to "
                    f"hold 8 again ({state['supply']} left in the supply).")
        return [Prompt(text, "chore", last["player"])]

    def summary(self, state: State) -> dict[str, Any]:
        pos = state["pos"]
        player = state["turn"]
        return {
            "positions": dict(pos),
            "middle": self.data.middle,
            "entrances": {SIDE_NAMES[i]: list(e) for i, e in enumerate(self.data.entrances)},
            "hands": list(state["hands"]),
            "supply": state["supply"],
            "discard": len(state["discard"]),
            "supply_exhausted": state["exhausted"],
            "deb_joker": {SIDE_NAMES[i]: state["joker"][i] for i in range(2)},
            "charlie_due": state["charlie_due"],
            "charlie_if_now": (self.charlie_due(pos, player)
                               if state["phase"] == "play" else 0),
            "scores_mean": "spaces Sue and Charlie stand on each side of the middle",
        }

    # --- the physical table -------------------------------------------------------------------

    def layout(self, state: State) -> Layout:
        geo = self.data.layout
        margin, w, h = geo["margin_mm"], geo["space_w_mm"], geo["space_h_mm"]
        gap, ch, row_gap = geo["gap_mm"], geo["charlie_row_h_mm"], geo["row_gap_mm"]
        spots: list[Spot] = []
        for i in range(self.data.spaces):
            x = margin + i * (w + gap)
            label = str(i)
            if i in self.data.entrances[0]:
                label = "A"
            elif i in self.data.entrances[1]:
                label = "B"
            elif i == self.data.middle:
                label = "sewer"
            spots.append(Spot(space_spot(i), x, margin, w, h, label, "light_fill"))
        for i in range(self.data.spaces):
            x = margin + i * (w + gap)
            spots.append(Spot(charlie_spot(i), x, margin + h + row_gap, w, ch, "", "dark_fill"))
        width = 2 * margin + self.data.spaces * (w + gap) - gap
        height = 2 * margin + h + row_gap + ch
        colours = self.data.pieces
        pieces = {colours["sue"]: "Saucy Sue", colours["hal"]: "Handsome Hal",
                  colours["deb"]: "Dancing Deb", colours["bodyguard"]: "Bodyguard (two)",
                  colours["charlie"]: "Champagne Charlie"}
        shapes = {c: "disc" for c in pieces}
        return Layout(width, height, tuple(spots), pieces, shapes)

    def board_view(self, state: State) -> BoardView:
        return view_of(self.data, state["pos"])

    def explain(
        self, state: State, seen: BoardView, taps: list[Tap], trigger: Trigger
    ) -> list[Action]:
        """Set-up and whole turns are explained on the turn button only (figures are moved by
        hand one after another; a stable board in between is not yet a move)."""
        if trigger != "button" or state["phase"] == "over":
            return []
        after = read_view(self.data, seen)
        if after is None:
            return []
        if state["phase"] == "setup":
            return self._explain_setup(state, after)
        if after["hal"] is None or after["deb"] is None:
            return []
        player = int(state["turn"])
        before = state["pos"]
        ids = list(dict.fromkeys(t.card for t in taps))
        moved = [f for f in FIGURES if after[f] != before[f]]
        charlie = (after["charlie"] - before["charlie"]) * _toward(player)
        extra = {"charlie": charlie} if charlie else {}
        if state["phase"] == "charlie":
            if moved or ids:
                return []
            return [{"type": "charlie", "player": player, "spaces": charlie}]
        if not moved:
            if not ids:
                return []
            return [{"type": "trade", "player": player, "cards": ids, **extra}]
        if not ids:
            return self._explain_lure(before, after, player, extra)
        return self._explain_play(state, after, player, ids, extra)

    def _explain_setup(self, state: State, after: dict[str, Any]) -> list[Action]:
        out = []
        for hal_player in (0, 1):
            action = {"type": "setup", "hal_player": hal_player}
            if self.board_view(self._apply_setup(state, action)) == view_of(self.data, after):
                out.append(action)
        return out

    def _explain_lure(self, before: dict[str, Any], after: dict[str, Any], player: int,
                      extra: dict[str, int]) -> list[Action]:
        if after["hal"] != before["hal"] or after["deb"] != before["deb"]:
            return []
        if after["sue"] != before["sue"]:
            if [after[f] for f in LURABLE[1:]] != [before[f] for f in LURABLE[1:]]:
                return []
            figure = "sue"
        else:
            old = Counter([before["bodyguard_left"], before["bodyguard_right"]])
            new = Counter([after["bodyguard_left"], after["bodyguard_right"]])
            gone, came = list((old - new).elements()), list((new - old).elements())
            if len(gone) != 1 or came != [before["hal"]]:
                return []
            figure = "bodyguard_left" if gone[0] == before["bodyguard_left"] \
                else "bodyguard_right"
        if figure == "sue" and after["sue"] != before["hal"]:
            return []
        return [{"type": "lure", "player": player, "figure": figure, **extra}]

    def _explain_play(self, state: State, after: dict[str, Any], player: int, ids: list[str],
                      extra: dict[str, int]) -> list[Action]:
        """Find card-by-card moves from the tracked board to the seen one, in tap order."""
        try:
            self._check_cards(state, player, ids, same_colour=True)
        except MalformedAction:
            return [{"type": "play", "player": player,
                     "steps": [{"cards": [c], "figure": "sue", "direction": 1} for c in ids]}]
        except RuleError:
            return [self._naive_play(player, ids, extra)]
        cards = [self.data.cards[c] for c in ids]
        target = {f: after[f] for f in FIGURES}
        found = _search(self, state, player, cards, target, check=True)
        if not found:
            found = _search(self, state, player, cards, target, check=False)
            found = dict(list(found.items())[:1])
        return [{"type": "play", "player": player, "steps": steps, **extra}
                for steps in found.values()]

    def _naive_play(self, player: int, ids: list[str], extra: dict[str, int]) -> Action:
        """A candidate that apply() refuses before looking at the board (colour, discard, hand)."""
        steps = []
        for cid in ids:
            card = self.data.cards[cid]
            figure = "bodyguard_left" if card.colour == "bodyguard" else card.colour
            step: dict[str, Any] = {"cards": [cid], "figure": figure}
            if not card.sewer:
                step["direction"] = _toward(player)
            steps.append(step)
        return {"type": "play", "player": player, "steps": steps, **extra}

    def card_ids(self) -> list[str]:
        return list(self.data.cards)

    # --- words ----------------------------------------------------------------------------------

    def describe(self, state: State, action: Action) -> str:
        try:
            return self._describe(action)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return super().describe(state, action)

    def _describe(self, action: Action) -> str:
        kind = action["type"]
        if kind == "setup":
            hal = SIDE_NAMES[action["hal_player"]]
            return f"Set-up: {hal} holds Handsome Hal and begins"
        who = SIDE_NAMES[action["player"]]
        tail = ""
        if action.get("charlie"):
            n = action["charlie"]
            tail = f"; Charlie {n} space{'s' if n != 1 else ''} toward {who}"
        if kind == "charlie":
            n = action["spaces"]
            return f"{who} moves Champagne Charlie {n} toward {who}" if n else \
                f"{who} leaves Champagne Charlie where he is"
        if kind == "lure":
            return f"{who} lures {_figure_name(action['figure'])} to Handsome Hal{tail}"
        if kind == "trade":
            labels = ", ".join(self.data.cards[c].label() for c in action["cards"])
            return f"{who} trades {len(action['cards'])} card(s): {labels}{tail}"
        parts = []
        for step in action["steps"]:
            cards = [self.data.cards[c] for c in step["cards"]]
            figure = step["figure"]
            if figure == "group":
                what = "Sue+Sue: Sue and both Bodyguards"
            else:
                what = cards[0].label()
                if cards[0].colour == "deb" and figure != "deb":
                    what += " as joker"
                what += f": {_figure_name(figure)}"
            if cards[0].sewer:
                what += " to the middle"
            else:
                what += f" toward {SIDE_NAMES[0 if step['direction'] < 0 else 1]}"
            parts.append(what)
        return f"{who} plays " + "; ".join(parts) + tail


# --------------------------------------------------------------------------- helpers


def space_spot(i: int) -> str:
    """Spot id of strip space ``i`` (0 = A's end)."""
    return f"s{i}"


def charlie_spot(i: int) -> str:
    """Spot id of Charlie's dark-edge spot beside strip space ``i``."""
    return f"c{i}"


def view_of(data: BoardData, pos: dict[str, Any]) -> BoardView:
    """What the camera sees for these positions (Bodyguards look alike)."""
    colours = data.pieces
    items: dict[str, list[Piece]] = {}
    for figure in FIGURES:
        where = pos.get(figure)
        if where is not None:
            colour = colours[_figure_type(figure)]
            items.setdefault(space_spot(where), []).append(Piece(colour))
    if pos.get("charlie") is not None:
        items.setdefault(charlie_spot(pos["charlie"]), []).append(Piece(colours["charlie"]))
    return make_view(items)


def read_view(data: BoardData, seen: BoardView) -> dict[str, Any] | None:
    """Positions from a seen board, or None if it is not a Times Square board
    (a figure missing or doubled, a piece off its strip, an unknown colour)."""
    by_colour = {v: k for k, v in data.pieces.items()}
    found: dict[str, list[int]] = {k: [] for k in data.pieces}
    for spot_id, pieces in seen.items():
        row, number = spot_id[:1], spot_id[1:]
        if row not in ("s", "c") or not number.isdigit() or int(number) >= data.spaces:
            return None
        for piece in pieces:
            kind = by_colour.get(piece.colour)
            if kind is None or (row == "c") != (kind == "charlie"):
                return None
            found[kind].append(int(number))
    if len(found["sue"]) != 1 or len(found["charlie"]) != 1 or len(found["bodyguard"]) != 2:
        return None
    if len(found["hal"]) > 1 or len(found["deb"]) > 1:
        return None
    left, right = sorted(found["bodyguard"])
    return {"sue": found["sue"][0], "hal": (found["hal"] or [None])[0],
            "deb": (found["deb"] or [None])[0], "bodyguard_left": left,
            "bodyguard_right": right, "charlie": found["charlie"][0]}


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


def _search(game: TimesSquare, state: State, player: int, cards: list[Card],
            target: dict[str, int], check: bool) -> dict[str | None, list[dict[str, Any]]]:
    """Depth-first search for step lists (in tap order) that turn the tracked strip into
    ``target``.  Only figures that moved are tried; each figure's remaining distance, the
    total distance and its parity bound the search.  Returns the first step list found,
    keyed by the Deb joker choice it leaves (empty if none within the node budget)."""
    start = {f: state["pos"][f] for f in FIGURES}
    moved = {f for f in FIGURES if start[f] != target[f]}
    colour = cards[0].colour
    jokers = {_figure_type(f) for f in moved} - {"deb"}
    if colour == "deb" and len(jokers) > 1:
        return {}
    n = len(cards)
    inf = 10 * game.data.spaces
    cap = [{f: 0 for f in FIGURES} for _ in range(n + 1)]
    total = [0.0] * (n + 1)
    parity = [0] * (n + 1)  # -1: a sewer or Sue card ahead makes the parity unknowable
    for i in range(n - 1, -1, -1):
        card = cards[i]
        reach = inf if card.sewer else int(card.value or 0)
        cap[i] = dict(cap[i + 1])
        for f in _movable(card, jokers):
            cap[i][f] += reach
        total[i] = total[i + 1] + (1.5 if card.colour == "sue" else reach)
        known = parity[i + 1] >= 0 and not card.sewer and card.colour != "sue"
        parity[i] = (parity[i + 1] + reach) % 2 if known else -1
    results: dict[str | None, list[dict[str, Any]]] = {}
    nodes = 0

    def options(i: int, lock: str | None) -> list[tuple[str, list[Card]]]:
        card = cards[i]
        figs = [f for f in _movable(card, jokers) if f in moved]
        if card.colour == "sue":
            guards = {"bodyguard_left", "bodyguard_right"} <= moved
            found = [("sue", [card])] if "sue" in moved or guards else []
            if guards and i + 1 < n and cards[i + 1].colour == "sue":
                found.append(("group", [card, cards[i + 1]]))
            return found
        if check and card.colour == "deb" and lock is not None:
            figs = [f for f in figs if _figure_type(f) == lock]
        return [(f, [card]) for f in figs]

    def dfs(i: int, pos: dict[str, int], lock: str | None, steps: list[dict[str, Any]]) -> bool:
        """True once a step list is found: the resulting joker choice is fixed by which
        figures moved, so every other list leads to the same state."""
        nonlocal nodes
        nodes += 1
        if nodes > MAX_SEARCH_NODES:
            return True
        if i == n:
            if pos == target:
                results[lock] = list(steps)
                return True
            return False
        gaps = [abs(target[f] - pos[f]) for f in FIGURES]
        if any(g > cap[i][f] for g, f in zip(gaps, FIGURES, strict=True)):
            return False
        if sum(gaps) > total[i] or (parity[i] >= 0 and sum(gaps) % 2 != parity[i]):
            return False
        tries = []
        for figure, used in options(i, lock):
            for direction in ((None,) if used[0].sewer else (-1, 1)):
                try:
                    new, new_lock = game.move(pos, lock, player, figure, direction, used, check)
                except RuleError:
                    continue
                if check and i + len(used) < n and game.entrance_owner(new["sue"]) is not None:
                    continue
                dist = sum(abs(target[f] - new[f]) for f in FIGURES)
                step = {"cards": [c.id for c in used], "figure": figure}
                if direction is not None:
                    step["direction"] = direction
                tries.append((dist, len(tries), step, new, new_lock, len(used)))
        for _, _, step, new, new_lock, used_n in sorted(tries, key=lambda t: t[:2]):
            if dfs(i + used_n, new, new_lock, steps + [step]):
                return True
        return False

    dfs(0, start, state["joker"][player], [])
    return results


def _movable(card: Card, jokers: set[str]) -> list[str]:
    """Figures a card may move (Deb: herself or the one joker type that moved)."""
    if card.colour == "sue":
        return ["sue", "bodyguard_left", "bodyguard_right"]
    if card.colour == "bodyguard":
        return ["bodyguard_left", "bodyguard_right"]
    if card.colour == "hal":
        return ["hal"]
    figs = ["deb"]
    for kind in jokers:
        figs += ["bodyguard_left", "bodyguard_right"] if kind == "bodyguard" else [kind]
    return figs
