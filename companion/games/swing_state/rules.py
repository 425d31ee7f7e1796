"""Swing State Steal: the rules tracker, with the companion as the vote banker.

One player is the Incumbent (seat 0); the others are Swing States (seats 1..5, each
named by its colour).  The companion keeps the bank: the pot (per State colour),
each State's own votes and the Incumbent's separate pile per State, which never
mix.  Every transfer is said as a chore ("Incumbent: hand 3 blue votes to Blue")
so the chips on the table match the bank.

What the tracker sees: pawns on the rings and the die on its tray (camera), News
cards drawn (shared reader), Cheat cards played (seat readers), Evidence cards
played in Round 4, and declarations (the Incumbent's choice of colours, the
Black Wild cards kept for Round 4).  It never sees a hand: Cheat and Evidence
draws are counted, and a played card is checked only against what is public.

Order of this file (OpenSpiel's): facts as data, the Game class, helpers.
"""

from __future__ import annotations

import json
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
    json_copy,
    require,
)

# --------------------------------------------------------------------------- facts as data

DATA_PATH = Path(__file__).parent / "data" / "swing_state.json"

RED_OPS = {
    "gain",
    "gain_each",
    "lose",
    "lose_each",
    "take_each",
    "give_each",
    "gain_roll",
    "gain_roll_each",
    "evidence",
    "skip",
    "news",
}
BLUE_OPS = {"gain", "lose", "take", "give", "gain_roll", "cheat", "skip", "double", "news"}

ALL_SPLITS_UP_TO = 24
"""The tablet lists every split of the Incumbent's votes up to this many (one button each)."""

ACTION_TYPES = (
    "pick_up_die",
    "roll",
    "move",
    "cheat",
    "draw_news",
    "allocate",
    "pass",
    "keep_wilds",
    "advance",
    "evidence",
    "respond",
)

# The rulebook's sentences that refusals quote.
R_TURN = "Players take turns with the Incumbent going first and then proceed clock-wise around the table."
R_ROLL = "Each player rolls the single die and advances that many spaces along their respective tracks."
R_WAIT = (
    "When the player rolls past the end of the round, that player advances to the starting "
    "location of the next round and waits for the other players to catch up."
)
R_WAIT_SKIP = (
    "If a State has completed a round and is waiting for other players to catch up, that State "
    "must skip its turn and may not play any more Cheat Cards until the next round begins."
)
R_WAIT_CHEAT = (
    "If a State has completed a round and is waiting for other players to complete the round, "
    "the State can still use its turn to play a Cheat Card but cannot roll to advance to the "
    "next round until all the other players have completed the round."
)
R_CHEAT_STATE = "Each Cheat Card is color coded by round and can only be drawn by a State."
R_CHEAT_ROUND = (
    "A State may play a Cheat Card that is color coded for the round he/she is currently in, or "
    "any previous round. Cheat Cards for future rounds may be kept but cannot be played until "
    "the State is in that round."
)
R_CHEAT_BEFORE = (
    "If the State chooses to play a Cheat Card, it must be played at the beginning of a State's "
    "turn, before the die is rolled."
)
R_CHEAT_ONE = "States can play only one cheat per turn."
R_CHEAT_ONCE = "A Cheat Card may only be played once."
R_CHEAT_EMPTY = (
    "When the Incumbent's pile for one State is exhausted, the State cannot cheat the "
    "Incumbent of any more Vs."
)
R_CHEAT_DRAW = (
    "When a State lands on a Cheat Card space (marked with a 'C'), he draws and keeps a Cheat "
    "Card from the deck."
)
R_BLACK = "Black Cheat Cards are WILD and saved for Round 4. States can only use Black Wild Cards in round 4."
R_NO_STEAL_R4 = "Alas, the States can no longer take Vs from the Incumbent in Round 4."
R_NEWS = (
    "If a player lands on a News Card (marked with an 'N'), the player draws the top card from the News Deck."
)
R_NEWS_BOTTOM = "News Cards are discarded to the bottom of the News Deck after play."
R_CHOOSE = (
    "Unless specifically instructed otherwise, the Incumbent can choose any color(s) to take "
    "or put in the pot."
)
R_PILES = (
    "If an Incumbent's pile of V chips for a particular Swing State is empty, he cannot transfer "
    "any more Vs to that State even if he has Vs stored for other states. The piles remain "
    "separate."
)
R_POT = "When a Swing State takes Vs from the pot, he takes them in his color only."
R_EVIDENCE_HOLD = (
    "When the Incumbent lands on an Evidence Card space (marked with an 'E'), he draws an "
    "Evidence Card and holds it for Round 4. (States do not get Evidence Cards)"
)
R4_KEEP = (
    "Before Round 4 starts, all States keep only the face-up Cheat Cards they have already "
    "played and any Black Wild Cards they may have accumulated. All other unused Cheat cards "
    "are discarded."
)
R4_ADVANCE = (
    "The pawn is simply a marker that traverses the round one space at a time after each card "
    "hand is played. To keep the Incumbent honest, the banker advances the pawn one space at "
    "the start of each turn. There is no dice roll."
)
R4_FIRST = (
    "For the First Turn Only: The Incumbent may choose to use this turn to roll for additional "
    "Evidence Cards instead of playing an Evidence Card."
)
R4_EVIDENCE = "The Incumbent plays an Evidence Card. He can choose any Evidence Card in his hand to play."
R4_PLAY = "Each State then plays either a Cheat Card, or a Black Wild Card if they have one to play."
R4_MATCH = (
    "States must play a Cheat Card that matches the color of one of the colors on the "
    "Incumbent's Evidence Card."
)
R4_WILD_MUST = (
    "If he has one, a State has the option of playing a Black Wild Card on any turn instead of a "
    "matching Cheat Card. However, if the State lacks a matching Cheat Card they MUST play any "
    "Black Wild Card they have in their hand."
)
R4_TRUMP = (
    "If the Incumbent plays a Trump Card, all States must play either a Cheat Card of their "
    "choice or a Black Wild Card."
)
R4_DISCARD = "At the end of each turn, all cards are discarded to their respective decks."
R_OVER = (
    "Play is over after the Jan 6th space is reached and the last hand is played, or the "
    "Incumbent runs out of Evidence Cards."
)


def load_data(path: str | Path | None = None) -> dict[str, Any]:
    """The board, decks and tables; a user's own mapping may replace the default file."""
    with open(path or DATA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


# --------------------------------------------------------------------------- house rules

HOUSE_RULES = (
    HouseRule(
        "waiting", "May a waiting State cheat?",
        {"cheat": "Yes: on its turn a waiting State may still play a Cheat card (it cannot "
                  "roll)",
         "skip": "No: a waiting State skips its turns and plays no Cheat card"},
        "cheat",
        R_WAIT_CHEAT + " (Elsewhere: " + R_WAIT_SKIP + ")"),
)


# --------------------------------------------------------------------------- the game


class SwingStateRules(Game):
    """Swing State Steal for 2-6 players: seat 0 is the Incumbent, seats 1.. are States."""

    name = "swing_state"
    title = "Swing State Steal"
    min_players = 2
    max_players = 6
    variants = ("standard", "waiting_skips")
    """``waiting_skips`` is the house rule ``waiting=skip`` by its old name (older logs)."""
    house_rules = HOUSE_RULES

    def __init__(
        self,
        data_path: str | Path | None = None,
        starting_votes: dict[int, int] | None = None,
    ) -> None:
        data = load_data(data_path)
        self.data = data
        table = {int(k): int(v) for k, v in data["starting_votes"].items()}
        if starting_votes is not None:
            table.update({int(k): int(v) for k, v in starting_votes.items()})
        self.starting_votes = table
        self.majority = {int(k): int(v) for k, v in data["majority"].items()}
        self.supply = int(data["bank_votes_per_colour"])
        self.incumbent_colour = str(data["incumbent_colour"])
        self.state_colours = [str(c) for c in data["state_colours"]]
        self.die_colour = str(data["die_colour"])
        self.news = {c["id"]: c for c in data["news"]}
        self.news_order = [c["id"] for c in data["news"]]
        self.cheats = {c["id"]: c for c in data["cheats"]}
        self.evidence_cards = {c["id"]: c for c in data["evidence"]}
        self.rounds = {int(r["round"]): r for r in data["rounds"]}
        self.blacks = [cid for cid, c in self.cheats.items() if c["colour"] == "black"]
        self._build_board()

    # --- static board -------------------------------------------------------------------

    def _start_spot(self, rnd: int) -> str:
        return self.r4_spots[0] if rnd == 4 else self.tracks[rnd]["red"][0]

    # --- set-up and turn structure -------------------------------------------------------
    def setup(self, players: int, variant: str | None = None, seed: int = 0) -> State:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise ValueError(f"Swing State Steal is for 2-6 players, not {players!r}")
        variant = variant or self.variants[0]
        if variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(self.variants)}")
        n_states = players - 1
        if n_states not in self.starting_votes:
            raise ValueError(f"no starting votes for {n_states} States in the table")
        start = self.starting_votes[n_states]
        if start > self.supply:
            raise ValueError("the bank's supply per colour is smaller than the starting pile")
        colours = self.state_colours[:n_states]
        return {
            "players": players,
            "variant": variant,
            "phase": "round1",
            "round": 1,
            "turn": 0,
            "step": "start",
            "colours": [self.incumbent_colour, *colours],
            "pawn": [self._start_spot(1)] * players,
            "progress": [0] * players,
            "finished": [False] * players,
            "skip": [False] * players,
            "double": [False] * players,
            "double_now": False,
            "cheated": False,
            "die": None,
            "roll": None,
            "dest": None,
            "pending": [],
            "await": None,
            "pot": {c: self.supply - start for c in colours},
            "piles": {c: start for c in colours},
            "votes": {c: 0 for c in colours},
            "cheat_held": [0] * players,
            "cheat_deck": len(self.cheats),
            "evidence_held": 0,
            "evidence_deck": len(self.evidence_cards),
            "played": [[] for _ in range(players)],
            "news_drawn": [],
            "news_card": None,
            "r4": None,
            "over": None,
            "last": {"transfers": [], "notes": [f"Round 1: {self.rounds[1]['name']} begins."]},
        }

    def start(self, players: int, variant: str | None = None, seed: int = 0,
              house_rules: dict[str, str] | None = None) -> State:
        """The base set-up; the old variant ``waiting_skips`` still means ``waiting=skip``."""
        state = super().start(players, variant, seed, house_rules)
        if state["variant"] == "waiting_skips":
            state["house_rules"]["waiting"] = "skip"
        return state

    def waiting_skips(self, state: State) -> bool:
        """The table's house rule (or the old variant): a waiting State skips its turns."""
        return state["variant"] == "waiting_skips" or self.house_rule(state, "waiting") == "skip"

    def card_name(self, card: str) -> str:
        """A card by its printed title ("Electors' slate"), as the players call it."""
        for deck in (self.cheats, self.evidence_cards, self.news):
            if card in deck and deck[card].get("title"):
                return str(deck[card]["title"])
        return super().card_name(card)

    def player_names(self, state: State) -> list[str]:
        return ["Incumbent"] + [c.capitalize() for c in state["colours"][1:]]

    def current_player(self, state: State) -> int | None:
        if state["over"]:
            return None
        if state["round"] <= 3:
            return int(state["turn"])
        r4 = state["r4"]
        if state["step"] == "wilds":
            return _first_pending(r4["declared"])
        if state["step"] == "respond":
            return _first_pending(r4["responded"])
        return 0

    def phase(self, state: State) -> str:
        return str(state["phase"])

    # --- moves ---------------------------------------------------------------------------
    def apply(self, state: State, action: Action) -> State:
        if not isinstance(action, dict):
            raise MalformedAction("an action is a JSON object with a 'type'")
        kind = require(action, "type", str)
        if kind not in ACTION_TYPES:
            raise MalformedAction(f"unknown action type {kind!r}; see ACTIONS.md")
        player = require(action, "player", int)
        if not 0 <= player < state["players"]:
            raise MalformedAction(f"no seat {player} at a {state['players']}-player table")
        if state["over"]:
            raise RuleError("The game is over.", R_OVER)
        st = json_copy(state)
        st["last"] = {"transfers": [], "notes": []}
        getattr(self, f"_do_{kind}")(st, action, player)
        return st

    def legal_actions(self, state: State) -> list[Action]:
        """Every legal action given what is public.  Card plays offer every card that could
        still be in the hand; allocations offer a representative list (each colour first,
        and an even spread)."""
        if state["over"]:
            return []
        out: list[Action] = []
        rnd = state["round"]
        step = state["step"]
        if rnd <= 3:
            p = state["turn"]
            if step in ("start", "waiting"):
                out += [{"type": "cheat", "player": p, "card": c} for c in self._cheats_possible(state, p)]
            if step == "waiting":
                out.append({"type": "pass", "player": p})
            if step == "move":
                out.append({"type": "move", "player": p, "to": state["dest"]})
            if step == "effects" and state["await"]:
                kind = state["await"]["kind"]
                if kind == "news":
                    out += [{"type": "draw_news", "player": p, "card": c} for c in self._news_possible(state)]
                if kind == "allocate":
                    out += [{"type": "allocate", "player": 0, "piles": a} for a in self._allocations(state)]
        else:
            r4 = state["r4"]
            if step == "wilds":
                p = _first_pending(r4["declared"])
                for count in range(self._max_wilds(state, p) + 1):
                    out.append({"type": "keep_wilds", "player": p, "count": count})
            if step == "advance":
                out.append({"type": "advance", "player": 0, "to": self.r4_spots[r4["space"] + 1]})
            if step == "evidence" and state["evidence_held"] > 0:
                out += [
                    {"type": "evidence", "player": 0, "card": c}
                    for c in self.evidence_cards
                    if c not in r4["evidence_played"]
                ]
            if step == "respond":
                for seat in range(1, state["players"]):
                    if not r4["responded"][seat]:
                        out += [
                            {"type": "respond", "player": seat, "card": c}
                            for c in self._responses_possible(state, seat)
                        ]
        due = self._roll_due(state)
        if due:
            roller = self._roller(state)
            if state["die"] is not None:
                out.append({"type": "pick_up_die", "player": roller})
            out += [{"type": "roll", "player": roller, "value": v} for v in range(1, 7)]
        return out

    # ---- handlers: the die and the pawns
    def _do_pick_up_die(self, st: State, action: Action, p: int) -> None:
        """The die left its tray: the next landing is a roll even if it shows the same face."""
        if not self._roll_due(st):
            raise RuleError("No roll is due now: leave the die on its tray.", R_ROLL)
        self._check_roller(st, p)
        if st["die"] is None:
            raise RuleError("The die is not on its tray.", R_ROLL)
        st["die"] = None

    def _do_roll(self, st: State, action: Action, p: int) -> None:
        value = require(action, "value", int)
        if not 1 <= value <= 6:
            raise MalformedAction(f"a d6 shows 1..6, not {value}")
        due = self._roll_due(st)
        if not due:
            raise RuleError("No roll is due now.", R_ROLL)
        self._check_roller(st, p)
        st["die"] = value
        name = self.player_names(st)[p]
        if due == "move":
            st["roll"] = value
            st["dest"] = self._destination(st, p, value)
            st["step"] = "move"
            return
        if due == "amount":
            op = st["pending"].pop(0)
            st["await"] = None
            concrete = "gain_each" if op["op"] == "gain_roll_each" else "gain"
            st["pending"].insert(0, {"op": concrete, "amount": value})
            st["last"]["notes"].append(f"{name} rolled {value}.")
            self._resolve(st)
            return
        # Round 4, first turn: roll for extra Evidence cards instead of playing one.
        drawn = min(value, st["evidence_deck"])
        st["evidence_deck"] -= drawn
        st["evidence_held"] += drawn
        st["r4"]["rolled"] = True
        st["last"]["notes"].append(
            f"Incumbent: draw {drawn} Evidence card{_s(drawn)} (rolled {value})"
            + ("" if drawn == value else f"; the deck had only {drawn}")
            + "."
        )
        self._end_hand(st)

    def _do_move(self, st: State, action: Action, p: int) -> None:
        to = require(action, "to", str)
        if st["round"] > 3:
            raise RuleError("Round 4 has no dice: the banker advances the Incumbent's pawn.", R4_ADVANCE)
        if p != st["turn"]:
            raise RuleError(f"It is {self.player_names(st)[st['turn']]}'s turn.", R_TURN)
        if st["step"] != "move":
            raise RuleError("Roll the die before moving your pawn.", R_ROLL)
        if to != st["dest"]:
            raise RuleError(
                f"{self.player_names(st)[p]} rolled {st['roll']}: the pawn goes to "
                f"{self._spot_name(st['dest'])}, not {self._spot_name(to)}.",
                R_ROLL,
            )
        rnd = st["round"]
        ring = self.rounds[rnd]
        length = len(self.tracks[rnd]["red"])
        st["progress"][p] += st["roll"]
        st["pawn"][p] = to
        st["roll"] = None
        st["dest"] = None
        name = self.player_names(st)[p]
        if st["progress"][p] >= length * ring["laps"]:
            st["finished"][p] = True
            st["last"]["notes"].append(
                f"{name} completes Round {rnd} and waits at the start of Round {rnd + 1}."
            )
            self._end_turn(st)
            return
        space = self.spaces[to]
        side = "red" if p == 0 else "blue"
        st["step"] = "effects"
        st["pending"] = [dict(op) for op in space.get(side, [])]
        self._resolve(st)

    # ---- handlers: cards of rounds 1-3
    def _do_cheat(self, st: State, action: Action, p: int) -> None:
        card_id = require(action, "card", str)
        card = self.cheats.get(card_id)
        if card is None:
            raise MalformedAction(f"{card_id!r} is not a Cheat card")
        names = self.player_names(st)
        if st["round"] > 3:
            raise RuleError("Cheats no longer steal votes in Round 4.", R_NO_STEAL_R4)
        if p == 0:
            raise RuleError("The Incumbent cannot cheat.", R_CHEAT_STATE)
        if st["finished"][p] and self.waiting_skips(st):
            raise RuleError(f"{names[p]} is waiting for the next round.", R_WAIT_SKIP)
        if p != st["turn"]:
            raise RuleError(f"It is {names[st['turn']]}'s turn.", R_TURN)
        if st["step"] == "waiting" and self.waiting_skips(st):
            raise RuleError(f"{names[p]} is waiting for the next round.", R_WAIT_SKIP)
        if st["step"] not in ("start", "waiting"):
            raise RuleError("A Cheat card comes before the die is rolled.", R_CHEAT_BEFORE)
        if st["cheated"]:
            raise RuleError(f"{names[p]} already cheated this turn.", R_CHEAT_ONE)
        if card["colour"] == "black":
            raise RuleError(f"{card['title']} is a Black Wild card.", R_BLACK)
        if card["round"] > st["round"]:
            raise RuleError(
                f"{card['title']} is a Round {card['round']} ({card['colour']}) cheat; this is "
                f"Round {st['round']}.",
                R_CHEAT_ROUND,
            )
        if any(card_id in stack for stack in st["played"]):
            raise RuleError(f"{card['title']} ({card_id}) was played already.", R_CHEAT_ONCE)
        if st["cheat_held"][p] <= 0:
            raise RuleError(f"{names[p]} holds no Cheat cards.", R_CHEAT_DRAW)
        colour = st["colours"][p]
        if st["piles"][colour] <= 0:
            raise RuleError(f"The Incumbent's {names[p]} pile is empty.", R_CHEAT_EMPTY)
        value = card["value"] * (2 if st["double_now"] else 1)
        st["cheat_held"][p] -= 1
        st["played"][p].append(card_id)
        st["cheated"] = True
        got = self._transfer(st, "pile", "state", colour, value)
        st["last"]["notes"].append(
            f"{names[p]} cheats: {card['title']} (Round {card['round']}, {card['value']} V"
            + (", doubled after Stop Counting" if st["double_now"] else "")
            + f"); steals {got} V. Keep the card face up for Round 4."
        )
        if st["step"] == "waiting":
            self._end_turn(st)

    def _do_draw_news(self, st: State, action: Action, p: int) -> None:
        card_id = require(action, "card", str)
        card = self.news.get(card_id)
        if card is None:
            raise MalformedAction(f"{card_id!r} is not a News card")
        if st["round"] > 3 or not st["await"] or st["await"]["kind"] != "news":
            raise RuleError("Nobody is on a News space now.", R_NEWS)
        if p != st["turn"]:
            raise RuleError(f"{self.player_names(st)[st['turn']]} draws this News card.", R_NEWS)
        drawn = st["news_drawn"]
        size = len(self.news_order)
        if len(drawn) < size:
            if card_id in drawn:
                raise RuleError(
                    f"{card['title']} was drawn already and went to the bottom of the deck.",
                    R_NEWS_BOTTOM,
                )
        elif card_id != drawn[len(drawn) - size]:
            top = self.news[drawn[len(drawn) - size]]["title"]
            raise RuleError(f"The top of the News deck is {top}, not {card['title']}.", R_NEWS_BOTTOM)
        drawn.append(card_id)
        st["news_card"] = card_id
        st["pending"].pop(0)
        st["await"] = None
        side = "red" if p == 0 else "blue"
        st["pending"][0:0] = [dict(op) for op in card[side]["ops"]]
        st["last"]["notes"].append(
            f"News: {card['title']}. {card['text']} {self.player_names(st)[p]} follows the "
            f"{side} paragraph: {card[side]['text']} Then put the card at the bottom of the deck."
        )
        self._resolve(st)

    def _do_allocate(self, st: State, action: Action, p: int) -> None:
        piles = require(action, "piles", dict)
        pending = st["await"]
        if st["round"] > 3 or not pending or pending["kind"] != "allocate":
            raise RuleError("No choice of colours is due now.", R_CHOOSE)
        if p != 0:
            raise RuleError("Only the Incumbent chooses colours.", R_CHOOSE)
        source = "pot" if pending["dir"] == "gain" else "piles"
        total = 0
        for colour, amount in piles.items():
            if colour not in st["piles"]:
                raise MalformedAction(f"{colour!r} is not a State colour at this table")
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise MalformedAction(f"piles[{colour!r}] must be a whole number >= 0")
            if amount > st[source][colour]:
                where = "the pot has" if source == "pot" else "the pile holds"
                raise RuleError(f"Only {st[source][colour]} {colour} V: {where} no more.", R_PILES)
            total += amount
        if total != pending["amount"]:
            raise RuleError(f"Choose exactly {pending['amount']} V, not {total}.", R_CHOOSE)
        for colour in st["piles"]:
            amount = piles.get(colour, 0)
            if amount:
                if pending["dir"] == "gain":
                    self._transfer(st, "pot", "pile", colour, amount)
                else:
                    self._transfer(st, "pile", "pot", colour, amount)
        st["await"] = None
        self._resolve(st)

    def _do_pass(self, st: State, action: Action, p: int) -> None:
        if st["round"] > 3 or st["step"] != "waiting":
            raise RuleError("Only a State waiting for the next round may pass its turn.", R_WAIT)
        if p != st["turn"]:
            raise RuleError(f"It is {self.player_names(st)[st['turn']]}'s turn.", R_TURN)
        st["last"]["notes"].append(f"{self.player_names(st)[p]} waits.")
        self._end_turn(st)

    # --- scores and the end ----------------------------------------------------------------
    def scores(self, state: State) -> list[float]:
        """The Incumbent: the V in all his piles; a State: its own V."""
        colours = state["colours"][1:]
        return [float(sum(state["piles"].values()))] + [float(state["votes"][c]) for c in colours]

    def outcome(self, state: State) -> Outcome | None:
        over = state["over"]
        if not over:
            return None
        return Outcome(tuple(over["winners"]), over["reason"])

    def final_result(self, state: State) -> dict[str, Any]:
        """The final tally: the Incumbent against each State (he wins ties), the majority."""
        names = self.player_names(state)
        n_states = state["players"] - 1
        beaten = []
        for seat in range(1, state["players"]):
            colour = state["colours"][seat]
            if state["piles"][colour] >= state["votes"][colour]:
                beaten.append(seat)
        need = self.majority[n_states]
        if len(beaten) >= need:
            return {
                "winners": [0],
                "reason": (
                    f"The Incumbent defeats {len(beaten)} of {n_states} State{_s(n_states)} "
                    f"(needs {need}; he wins ties): {', '.join(names[s] for s in beaten)}."
                ),
            }
        ranking = sorted(range(1, state["players"]), key=lambda s: (-state["votes"][state["colours"][s]], s))
        order = ", ".join(f"{names[s]} {state['votes'][state['colours'][s]]} V" for s in ranking)
        return {
            "winners": ranking,
            "reason": (
                f"The Incumbent defeats only {len(beaten)} of {n_states} State{_s(n_states)} "
                f"(needs {need}). The States win, ranked by retained votes: {order}."
            ),
        }

    # --- the physical table ------------------------------------------------------------------

    def card_ids(self) -> list[str]:
        return [*self.news_order, *self.cheats, *self.evidence_cards]

    # --- helpers: turn order -----------------------------------------------------------------
    def _end_turn(self, st: State) -> None:
        """Close the turn; start the next round when everyone has finished this one."""
        st["cheated"] = False
        st["double_now"] = False
        st["roll"] = None
        st["dest"] = None
        st["pending"] = []
        st["await"] = None
        st["news_card"] = None
        if all(st["finished"]):
            self._start_round(st, st["round"] + 1)
            return
        self._begin_turn(st, (st["turn"] + 1) % st["players"])

    def _begin_turn(self, st: State, seat: int) -> None:
        """Hand the turn on clockwise, skipping lost turns and waiting players who cannot act."""
        names = self.player_names(st)
        n = st["players"]
        for _ in range(2 * n + 2):
            st["turn"] = seat
            if st["skip"][seat]:
                st["skip"][seat] = False
                st["last"]["notes"].append(f"{names[seat]} loses this turn.")
                seat = (seat + 1) % n
                continue
            if st["finished"][seat]:
                colour = st["colours"][seat]
                if (
                    seat == 0
                    or self.waiting_skips(st)
                    or st["cheat_held"][seat] == 0
                    or st["piles"][colour] == 0
                ):
                    seat = (seat + 1) % n
                    continue
                st["step"] = "waiting"
                return
            st["double_now"] = st["double"][seat]
            st["double"][seat] = False
            st["step"] = "start"
            return
        raise AssertionError("no player can take a turn")  # pragma: no cover

    def _start_round(self, st: State, rnd: int) -> None:
        st["round"] = rnd
        st["phase"] = f"round{rnd}"
        st["progress"] = [0] * st["players"]
        st["finished"] = [False] * st["players"]
        st["double"] = [False] * st["players"]
        st["last"]["notes"].append(f"Round {rnd}: {self.rounds[rnd]['name']} begins.")
        if rnd <= 3:
            self._begin_turn(st, 0)
            return
        st["skip"] = [False] * st["players"]
        st["turn"] = 0
        st["step"] = "wilds"
        st["r4"] = {
            "space": 0,
            "hand": 1,
            "rolled": False,
            "declared": [True] + [False] * (st["players"] - 1),
            "wilds": [0] * st["players"],
            "evidence": None,
            "evidence_played": [],
            "responses": {},
            "responded": [True] * st["players"],
            "used": [],
        }
        st["last"]["notes"].append(
            "States: keep only your face-up played Cheat cards and your Black Wild cards; "
            "discard every other Cheat card."
        )
        for seat in range(1, st["players"]):
            if st["cheat_held"][seat] == 0:
                self._declare_wilds(st, seat, 0)
        self._after_wilds(st)

    # --- helpers: the die and the tracks ------------------------------------------------------
    def _roll_due(self, state: State) -> str | None:
        """What a roll now would be for: "move", "amount" (a die's worth of V), "evidence"."""
        if state["over"]:
            return None
        if state["round"] <= 3:
            if state["step"] == "start":
                return "move"
            if state["step"] == "effects" and state["await"] and state["await"]["kind"] == "roll":
                return "amount"
            return None
        r4 = state["r4"]
        if state["step"] == "evidence" and r4["hand"] == 1 and not r4["rolled"]:
            return "evidence"
        return None

    def _roller(self, state: State) -> int | None:
        return self.current_player(state) if self._roll_due(state) else None

    def _check_roller(self, st: State, p: int) -> None:
        roller = self._roller(st)
        if p != roller:
            names = self.player_names(st)
            raise RuleError(f"It is {names[roller] if roller is not None else 'nobody'}'s roll.", R_TURN)

    def _destination(self, st: State, p: int, roll: int) -> str:
        rnd = st["round"]
        track = self.tracks[rnd]["red" if p == 0 else "blue"]
        target = st["progress"][p] + roll
        if target >= len(track) * self.rounds[rnd]["laps"]:
            return self._start_spot(rnd + 1)
        return track[target % len(track)]

    def _lap(self, state: State, seat: int | None) -> int:
        if seat is None or state["round"] > 3:
            return 0
        length = len(self.tracks[state["round"]]["red"])
        laps = self.rounds[state["round"]]["laps"]
        return min(state["progress"][seat] // length + 1, laps)

    def _spot_name(self, spot: str | None) -> str:
        """A space by its printed words, told apart from a same-named one by its place on
        the track ("Evidence, space 6 of the red track"), never by an internal id."""
        if spot is None or spot not in self.spaces:
            return "a space not on this board"
        label = str(self.spaces[spot]["label"])
        parts = spot.split("-")
        if len(parts) >= 2 and parts[1].isdigit() and int(parts[1]) > 0:
            track = f" of the {parts[2]} track" if len(parts) > 2 else ""
            return f"{label}, space {int(parts[1])}{track}"
        return label

    # --- helpers: effects and the bank ------------------------------------------------------
    def _resolve(self, st: State) -> None:
        """Carry out the pending effects until one needs the table (a card, a roll, a choice)."""
        p = st["turn"]
        names = self.player_names(st)
        name = names[p]
        colour = st["colours"][p]
        while st["pending"] and st["await"] is None:
            op = st["pending"][0]
            kind = op["op"]
            amount = int(op.get("amount", 0))
            if kind == "news":
                st["await"] = {"kind": "news"}
                break
            if kind in ("gain_roll", "gain_roll_each"):
                st["await"] = {"kind": "roll"}
                break
            st["pending"].pop(0)
            if kind in ("gain", "lose") and p == 0:
                self._incumbent_choice(st, kind, amount)
            elif kind == "gain":
                got = self._transfer(st, "pot", "state", colour, amount)
                if got < amount:
                    st["last"]["notes"].append(f"The pot has no more {colour} V ({got} of {amount} paid).")
            elif kind == "lose":
                self._transfer(st, "state", "pot", colour, amount)
            elif kind == "take":
                self._transfer(st, "pile", "state", colour, amount)
            elif kind == "give":
                self._transfer(st, "state", "pile", colour, amount)
            elif kind in ("gain_each", "lose_each", "take_each", "give_each"):
                src, dst = {
                    "gain_each": ("pot", "pile"),
                    "lose_each": ("pile", "pot"),
                    "take_each": ("state", "pile"),
                    "give_each": ("pile", "state"),
                }[kind]
                for c in st["piles"]:
                    self._transfer(st, src, dst, c, amount)
            elif kind == "evidence":
                drawn = min(amount, st["evidence_deck"])
                st["evidence_deck"] -= drawn
                st["evidence_held"] += drawn
                them = "them" if drawn > 1 else "it"
                st["last"]["notes"].append(
                    f"Incumbent: draw {drawn} Evidence card{_s(drawn)} and keep {them} hidden for Round 4."
                    if drawn
                    else "The Evidence deck is empty: nothing to draw."
                )
            elif kind == "cheat":
                drawn = min(amount, st["cheat_deck"])
                st["cheat_deck"] -= drawn
                st["cheat_held"][p] += drawn
                them = "them" if drawn > 1 else "it"
                st["last"]["notes"].append(
                    f"{name}: draw {drawn} Cheat card{_s(drawn)} and keep {them} hidden."
                    if drawn
                    else "The Cheat deck is empty: nothing to draw."
                )
            elif kind == "skip":
                st["skip"][p] = True
                st["last"]["notes"].append(f"{name} will lose the next turn.")
            elif kind == "double":
                st["double"][p] = True
                st["last"]["notes"].append(
                    f"Stop Counting: a Cheat card {name} plays next turn yields twice its value."
                )
        if not st["pending"] and st["await"] is None and st["step"] == "effects":
            self._end_turn(st)

    def _incumbent_choice(self, st: State, kind: str, amount: int) -> None:
        """The Incumbent picks the colours, unless the bank leaves only one way to do it."""
        source = "pot" if kind == "gain" else "piles"
        limits = {c: st[source][c] for c in st["piles"]}
        total = min(amount, sum(limits.values()))
        if total == 0:
            return
        open_colours = [c for c, v in limits.items() if v > 0]
        if total == sum(limits.values()) or len(open_colours) == 1:
            for c in open_colours:
                take = min(limits[c], total)
                total -= take
                if kind == "gain":
                    self._transfer(st, "pot", "pile", c, take)
                else:
                    self._transfer(st, "pile", "pot", c, take)
            return
        st["await"] = {"kind": "allocate", "dir": kind, "amount": total}

    def _allocations(self, state: State) -> list[dict[str, int]]:
        """The legal colour choices for the tablet: each colour first, an even spread, then
        every other split when there are at most ``ALL_SPLITS_UP_TO`` of them."""
        pending = state["await"] or {}
        if pending.get("kind") != "allocate":
            return []
        source = "pot" if pending["dir"] == "gain" else "piles"
        colours = list(state["piles"])
        limits = {c: state[source][c] for c in colours}
        options: list[dict[str, int]] = []
        for first in colours:
            order = [first] + [c for c in colours if c != first]
            options.append(_fill(order, limits, pending["amount"]))
        spread: dict[str, int] = {c: 0 for c in colours}
        left = pending["amount"]
        while left:
            for c in colours:
                if left and spread[c] < limits[c]:
                    spread[c] += 1
                    left -= 1
        options.append({c: v for c, v in spread.items() if v})
        options += _splits(colours, limits, pending["amount"], ALL_SPLITS_UP_TO)
        unique: list[dict[str, int]] = []
        for option in options:
            if option not in unique:
                unique.append(option)
        return unique

    def _transfer(self, st: State, src: str, dst: str, colour: str, amount: int) -> int:
        """Move up to ``amount`` V of one colour between the pot, a pile and a State; say so."""
        key = {"pot": "pot", "pile": "piles", "state": "votes"}
        have = st[key[src]][colour]
        moved = min(amount, have)
        if moved <= 0:
            return 0
        st[key[src]][colour] -= moved
        st[key[dst]][colour] += moved
        st["last"]["transfers"].append({"from": src, "to": dst, "colour": colour, "amount": moved})
        return moved

    # --- helpers: what could be in a hand --------------------------------------------------
    def _cheats_possible(self, state: State, p: int) -> list[str]:
        """Cheat cards a State could legally play now (rounds 1-3), from what is public."""
        if (
            p == 0
            or state["cheated"]
            or state["cheat_held"][p] <= 0
            or state["piles"][state["colours"][p]] <= 0
            or (state["step"] == "waiting" and self.waiting_skips(state))
        ):
            return []
        played = {c for stack in state["played"] for c in stack}
        return [
            cid
            for cid, c in self.cheats.items()
            if c["colour"] != "black" and c["round"] <= state["round"] and cid not in played
        ]

    def _news_possible(self, state: State) -> list[str]:
        drawn = state["news_drawn"]
        size = len(self.news_order)
        if len(drawn) >= size:
            return [drawn[len(drawn) - size]]
        return [c for c in self.news_order if c not in drawn]

    def _evidence_text(self, card: dict[str, Any]) -> str:
        if card.get("trump"):
            return f"{card['title']} (Trump)"
        return f"{card['title']} ({card['value']}, {_rounds_text(card)})"


# --------------------------------------------------------------------------- helpers


def _s(n: int | None) -> str:
    return "" if n == 1 else "s"


def _first_pending(flags: list[bool]) -> int | None:
    for seat, done in enumerate(flags):
        if not done:
            return seat
    return None


def _rounds_text(card: dict[str, Any]) -> str:
    names = {1: "Round 1 (green)", 2: "Round 2 (blue)", 3: "Round 3 (purple)"}
    return " or ".join(names[r] for r in card["rounds"]) or "no round"


def _splits(colours: list[str], limits: dict[str, int], amount: int,
            most: int) -> list[dict[str, int]]:
    """Every way to take ``amount`` V from the colours within their limits (zeros left out),
    or [] when there are more than ``most`` of them."""
    found: list[dict[str, int]] = []

    def walk(i: int, left: int, chosen: dict[str, int]) -> bool:
        if len(found) > most:
            return False
        if i == len(colours):
            if left == 0:
                found.append({c: v for c, v in chosen.items() if v})
            return True
        for take in range(min(left, limits[colours[i]]), -1, -1):
            if not walk(i + 1, left - take, {**chosen, colours[i]: take}):
                return False
        return True

    return found if walk(0, amount, {}) and len(found) <= most else []


def _fill(order: list[str], limits: dict[str, int], amount: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for colour in order:
        take = min(limits[colour], amount)
        if take:
            out[colour] = take
            amount -= take
    return out


def _check_ops(ops: list[dict[str, Any]], allowed: set[str], where: str) -> None:
    for op in ops:
        if op.get("op") not in allowed:
            raise ValueError(f"{where}: op {op.get('op')!r} does not fit this track")


