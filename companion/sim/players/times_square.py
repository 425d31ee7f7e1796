"""The simulated Times Square table: the real deck and hands, and two scripted players.

The world holds the truth (deck order, both hands, the discard stack, where the
figures stand) and acts only through physical events: cards tapped on a seat's
reader in play order (the shared reader for a trade), the figures moved (one
BoardChange of the whole board), Charlie moved as the rules say, the turn button.
The players know the rules: they use the game's rules object to check their own
moves, and keep their own copy of the game (``self.rules_state``) built from their
own actions, never the companion's.

Players are greedy: for each colour in hand they add the card step that most
improves a simple evaluation (Charlie and Sue toward their club, the others too,
the opponent's Charlie chances down), compare with luring and trading, and pick
the best with a little seeded noise.  They never lure twice running, so every
other turn draws cards and the supply runs out twice in a bounded number of steps.
"""

from __future__ import annotations

import json
from typing import Any

from companion.games.base import Action, Game, MalformedAction, RuleError, State
from companion.games.times_square import TimesSquare
from companion.games.times_square.board import view_of
from companion.games.times_square.rules import FIGURES, LURABLE, Card
from companion.sim.world import (
    BoardChange,
    CardTap,
    HandOver,
    PhysicalEvent,
    World,
)

WIN = 1_000_000.0
SAME_TURN_TRIED = 3000  # legal readings of a turn looked through at most for one like theirs
KEYS = ("pos", "joker", "hands", "supply", "exhausted", "phase", "turn", "result")


class TimesSquareWorld(World):
    """Truth and players of one Times Square table."""

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        super().__init__(game, players, variant, seed)
        if not isinstance(game, TimesSquare):
            raise TypeError("the Times Square world needs the Times Square rules")
        self.rules: TimesSquare = game
        self.rules_state: State = game.setup(players, variant, seed)
        deck = game.card_ids()
        self.rng.shuffle(deck)
        size = self.rules.data.hand_size
        self.hands: list[list[str]] = [deck[:size], deck[size:2 * size]]
        self.supply: list[str] = deck[2 * size:]
        self.discard: list[str] = []
        self.exhausted = 0
        self.hal_player = self.rng.randrange(2)
        self.lured_last = [False, False]
        self.winners: list[int] | None = None
        self.reason = ""
        self.last: tuple[State, Action] | None = None

    # --- the contract ----------------------------------------------------------------------

    def start(self) -> list[PhysicalEvent]:
        """Place the figures (Hal on the side of the player who holds him) and press."""
        action = {"type": "setup", "hal_player": self.hal_player}
        before = self.rules_state
        self.note_words(before, action)
        self.rules_state = self.rules.apply(before, action)
        self.last = (before, action)
        events: list[PhysicalEvent] = [BoardChange(self._view()), self.press_for(action)]
        self.remember_move({"history_total": 0}, events)
        return events

    def step(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """Answer the tablet's question, or correct or make again a move it did not record
        as made; else the next move."""
        mend = self.mend_last_move(tablet)
        if mend:
            return mend
        if self.winners is not None:
            self.pending = None  # nothing asks about the last move: the table took it
            return []
        stray = self.forget_stray_taps(tablet, when_warned=True)
        if stray:
            return stray
        state = self.rules_state
        player = int(state["turn"])
        if state["phase"] == "charlie":
            events = self._do({"type": "charlie", "player": player,
                               "spaces": state["charlie_due"]}, [], None)
        else:
            events = next(self._do(action, _cards_of(action), seat)
                          for action, seat in self._choices(player) if self._playable(action))
        self.remember_move(tablet, events)
        return events

    def over_at_table(self) -> bool:
        return self.winners is not None

    def finished(self) -> bool:
        """Over by the world's truth, and no question about the last move left unanswered."""
        return self.winners is not None and self.pending is None

    def board(self) -> Any:
        return self._view()

    def judged_board(self) -> Any:
        return self.rules.board_view(self.rules_state)

    def truth(self) -> dict[str, Any]:
        pos = self.rules_state["pos"]
        mid = self.rules.data.middle
        scores = [0.0, 0.0]
        for figure in ("sue", "charlie"):
            if pos[figure] < mid:
                scores[0] += mid - pos[figure]
            elif pos[figure] > mid:
                scores[1] += pos[figure] - mid
        return {
            "scores": scores,
            "winners": list(self.winners) if self.winners is not None else [],
            "reason": self.reason,
            "positions": dict(pos),
            "hands": [len(h) for h in self.hands],
            "supply": len(self.supply),
            "discard": len(self.discard),
            "exhausted": self.exhausted,
        }

    # --- reading the tablet ----------------------------------------------------------------

    def entry_says(self, entry: dict[str, Any], action: Action) -> bool:  # type: ignore[override]
        """Whether a history entry records ``action``: the companion may read the same turn
        with its steps in another order or pairing (the same state follows), so an entry
        of the last move is judged by what it does to the table and the hands."""
        if super().entry_says(entry, action):
            return True
        recorded = entry.get("action")
        if self.last is None or action != self.last[1]:
            return False
        if not isinstance(recorded, dict):  # the line's words: one of the readings like theirs
            return entry.get("text") in self.same_turn_words(lines=True)
        before = self.last[0]
        wanted = self._effect(before, action)
        return wanted is not None and self._effect(before, recorded) == wanted

    def answer_prompt(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The table fits several readings of the turn ("choose one"): the players tap the
        one that does what they did (the order of steps may differ from theirs)."""
        if self.pending is not None and self.last is not None:
            for prompt in tablet.get("prompts") or []:
                if prompt.get("kind") != "choice":
                    continue
                for option in prompt.get("options") or []:
                    if self.option_text(option) in self.same_turn_words():
                        self.pending = None
                        return [self.pressed(option)]
        return super().answer_prompt(tablet)

    def same_turn_words(self, lines: bool = False) -> set[str]:
        """How a button (or, ``lines``, a history line) may word the players' last turn:
        every legal reading of it that does what they did to the table and the hands (its
        steps in another order or pairing), as they would recognise it read out.  Worked
        out once per turn."""
        if self.last is None:
            return set()
        before, action = self.last
        key = json.dumps(action, sort_keys=True)
        cached = getattr(self, "_same_turn", None)
        if cached is None or cached[0] != key:
            wanted = self._effect(before, action)
            readings = [action]
            if wanted is not None:
                readings += [other for other in self.rules.legal_actions(before)[:SAME_TURN_TRIED]
                             if other.get("type") == action.get("type")
                             and other.get("player") == action.get("player")
                             and other != action and self._effect(before, other) == wanted]
            buttons = {self.wording().action(a) for a in readings}
            said = {self.rules.describe(before, a) for a in readings}
            cached = self._same_turn = (key, buttons, said)
        return cached[2] if lines else cached[1]

    def _effect(self, state: State, action: Action) -> dict[str, Any] | None:
        try:
            after = self.rules.apply(state, action)
        except (RuleError, MalformedAction):
            return None
        return {k: after[k] for k in KEYS}

    # --- choosing a move ---------------------------------------------------------------------

    def _choices(self, player: int) -> list[tuple[Action, int | None]]:
        """Candidate actions, best first; a trade always closes the list."""
        state = self.rules_state
        pos = {f: state["pos"][f] for f in FIGURES}
        base = self._value(pos, player)
        scored: list[tuple[float, int, Action, int | None]] = []
        hand = self.hands[player]
        for colour in ("sue", "hal", "deb", "bodyguard"):
            cards = [self.rules.data.cards[c] for c in hand if c.startswith(colour + "-")]
            steps, value = self._greedy(pos, player, cards)
            if steps:
                action = {"type": "play", "player": player, "steps": steps}
                scored.append((value + self._noise(), len(scored), action, player))
        if not self.lured_last[player]:
            for figure in LURABLE:
                action = {"type": "lure", "player": player, "figure": figure}
                after = self._effect(state, action)
                if after is not None:
                    value = self._value(after["pos"], player) - 0.5
                    scored.append((value + self._noise(), len(scored), action, player))
        scored.sort(key=lambda t: (-t[0], t[1]))
        out = []
        for value, _, action, seat in scored:
            if value > base + 0.3:
                try:
                    out.append((self._with_charlie(action), seat))
                except (RuleError, MalformedAction):
                    continue
        out.append((self._with_charlie(self._trade(player)), None))
        return out

    def _greedy(self, pos: dict[str, int], player: int,
                cards: list[Card]) -> tuple[list[dict[str, Any]], float]:
        """Add the best improving step, one card (or Sue pair) at a time."""
        lock = self.rules_state["joker"][player]
        steps: list[dict[str, Any]] = []
        left = list(cards)
        value = self._value(pos, player)
        while left:
            best = None
            seen: set[tuple[Any, ...]] = set()
            for i, card in enumerate(left):
                kind = (card.value, card.sewer)
                if kind in seen:
                    continue
                seen.add(kind)
                uses = [(f, [card]) for f in self.rules.figures_for(card, lock)]
                if card.colour == "sue" and len(left) > 1:
                    other = next(c for j, c in enumerate(left) if j != i)
                    uses.append(("group", [card, other]))
                for figure, used in uses:
                    for direction in ((None,) if card.sewer else (-1, 1)):
                        try:
                            new, new_lock = self.rules.move(pos, lock, player, figure,
                                                            direction, used)
                        except RuleError:
                            continue
                        score = self._value(new, player)
                        if best is None or score > best[0]:
                            best = (score, figure, direction, used, new, new_lock)
            if best is None or best[0] <= value + 0.2:
                break
            value, figure, direction, used, pos, lock = best
            step: dict[str, Any] = {"cards": [c.id for c in used], "figure": figure}
            if direction is not None:
                step["direction"] = direction
            steps.append(step)
            for card in used:
                left.remove(card)
            if self.rules.entrance_owner(pos["sue"]) is not None:
                break
        return steps, value

    def _value(self, pos: dict[str, Any], player: int) -> float:
        """How good a strip is for ``player`` once Charlie has moved as due."""
        data = self.rules.data
        mid = data.middle
        sue_owner = self.rules.entrance_owner(pos["sue"])
        if sue_owner is not None:
            return WIN if sue_owner == player else -WIN
        full = dict(pos)
        full["charlie"] = self.rules_state["pos"]["charlie"]
        due = self.rules.charlie_due(full, player)
        charlie = full["charlie"] + due * (-1 if player == 0 else 1)
        if self.rules.entrance_owner(charlie) == player:
            return WIN
        full["charlie"] = charlie
        sign = 1 if player == 0 else -1

        def adv(x: int) -> float:
            return float((mid - x) * sign)

        threat = self.rules.charlie_due(full, 1 - player)
        return (5 * adv(charlie) + 3 * adv(pos["sue"]) + adv(pos["hal"]) + adv(pos["deb"])
                + 0.7 * (adv(pos["bodyguard_left"]) + adv(pos["bodyguard_right"]))
                - 2.5 * threat)

    def _noise(self) -> float:
        return self.rng.random() * 0.3

    def _trade(self, player: int) -> Action:
        hand = self.hands[player]
        count = min(len(hand), 1 + self.rng.randrange(3))
        return {"type": "trade", "player": player, "cards": self.rng.sample(hand, count)}

    def _with_charlie(self, action: Action) -> Action:
        """Fill in Charlie's full due move, as a player who knows the rules would."""
        after = self.rules.apply(self.rules_state, action)
        if after["phase"] == "charlie":
            return {**action, "charlie": after["charlie_due"]}
        return action

    def _playable(self, action: Action) -> bool:
        """A move the rules allow.  The players do not ask the companion whether it could read
        it: when the tablet asks which move it was, they answer (see :meth:`_answer`)."""
        return self._effect(self.rules_state, action) is not None

    # --- acting on the truth ---------------------------------------------------------------

    def _do(self, action: Action, ids: list[str], seat: int | None) -> list[PhysicalEvent]:
        """Execute the move on the true table and return its physical events."""
        before = self.rules_state
        player = int(before["turn"])
        self.note_words(before, action)
        self.rules_state = self.rules.apply(before, action)
        self.last = (before, action)
        events: list[PhysicalEvent] = [CardTap(c, seat) for c in ids]
        hand = self.hands[player]
        for cid in ids:
            hand.remove(cid)
            self.discard.append(cid)
        self.lured_last[player] = action["type"] == "lure"
        pos = self.rules_state["pos"]
        sue_owner = self.rules.entrance_owner(pos["sue"])
        if sue_owner is not None:
            self._end([sue_owner], "Saucy Sue reached an entrance")
        elif action["type"] in ("play", "trade"):
            self._draw(hand)
        if self.winners is None and self.rules.entrance_owner(pos["charlie"]) == player:
            self._end([player], "Champagne Charlie reached an entrance")
        if before["pos"] != pos:
            events += [HandOver(2), BoardChange(self._view())]
        events.append(self.press_for(action))
        return events

    def _draw(self, hand: list[str]) -> None:
        while len(hand) < self.rules.data.hand_size and self.supply:
            hand.append(self.supply.pop(0))
            if not self.supply:
                self.exhausted += 1
                if self.exhausted == 1:
                    self.supply = list(self.discard)
                    self.rng.shuffle(self.supply)
                    self.discard = []
                else:
                    self._end_by_supply()
                    return

    def _end_by_supply(self) -> None:
        pos, mid = self.rules_state["pos"], self.rules.data.middle
        for figure in ("sue", "charlie"):
            if pos[figure] != mid:
                self._end([0 if pos[figure] < mid else 1], f"supply ran out twice ({figure})")
                return
        self._end([0, 1], "supply ran out twice: draw")

    def _end(self, winners: list[int], reason: str) -> None:
        self.winners = winners
        self.reason = reason

    def _view(self) -> Any:
        return view_of(self.rules.data, self.rules_state["pos"])


def _cards_of(action: Action) -> list[str]:
    if action["type"] == "play":
        return [c for step in action["steps"] for c in step["cards"]]
    if action["type"] == "trade":
        return list(action["cards"])
    return []


WORLD_CLASS = TimesSquareWorld
