"""Swinging Jivecat Voodoo Lounge: the rules tracker.

The companion sees chips on Lounge Lizard spots (camera), the face-up Skull and
Trend rows and every tableau's Zombie and Rada cards by their face codes (camera;
a tap of a row card on the shared reader works too), Clique cards tapped on the
seat readers, and declarations on the tablet.  It never knows a hand: it
counts the Clique deck, the discard pile and every hand's size, knows the
tableaux (Zombies, Radas, Trends) because they are face up, and computes the
chores (slides, refills, Rada payments, Staff chips, hand refills, the Skull
cap).

The game is split by concern, the same way in every game: :mod:`.facts` (data),
this module (set-up, turns, legal actions, apply, scores, the end), :mod:`.spells`
(the spell and Trend handlers), :mod:`.board` (the table the camera sees and how a
change is explained) and :mod:`.words` (the game's words for the tablet).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from companion.games.base import (
    Action,
    Game,
    HouseRule,
    MalformedAction,
    Outcome,
    Piece,
    RuleError,
    State,
    check_json,
    counted,
    json_copy,
    require,
)
from companion.games.jivecat.facts import (
    CHIPS,
    COLOURS,
    CONFIG_TEXT,
    DATA_PATH,
    HAND_SIZE,
    MAX_NOTICES,
    POWER_TEXT,
    QUIET,
    ROWS,
    SKULL_CAP,
    SKULL_TOKENS,
    STAFF,
    START_SKULLS,
    SUITS,
    TIE_BREAKERS,
    WIN_MP,
    BoardData,
    CliqueCard,
    Lizard,
    R,
    expression,
    face_code,
    largest_group,
    skulls,
    snake,
)
from companion.games.jivecat.spells import JivecatSpells
from companion.games.jivecat.staff import JivecatStaff

# --------------------------------------------------------------------------- house rules

HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "cheval_path",
        "Cheval: what \"two adjacent Lounge Lizards away\" means",
        {"any_path": "Any two steps from Lounge Lizard to adjacent Lounge Lizard",
         "line_jump": "A jump over one Lounge Lizard, in a line away from the start"},
        "any_path",
        "Play a Cheval card to move one of your chips already on the board to an empty Typical "
        "or Hipster Lounge Lizard that is two adjacent Lounge Lizards away from its original "
        "position.",
    ),
    HouseRule(
        "moved_hipster",
        "Cheval: a chip moved onto a Hipster",
        {"no_point": "Scores nothing: only a chip placed from your glass scores",
         "scores": "Scores the Hipster's Monkey Point"},
        "no_point",
        "A Hipster Lounge Lizard (numbered 2 and 10) scores 1 Monkey Point when you place a chip "
        "on it.",
    ),
    HouseRule(
        "skull_cards_pay",
        "Skull cards pay for",
        {"drink": "A bought drink only",
         "any_chip": "Any chip of yours that lands on the number (a Cheval or a Trend's move "
                     "too)"},
        "drink",
        "Skull tokens are earned when you buy a drink for the specific Lounge Lizards in one of "
        "the Lounges noted on the face-up Skull cards along the left edge of the game board.",
    ),
    HouseRule(
        "cheval_portals",
        "Cheval: Voodoo Portals on one jump",
        {"one": "One Portal, for the Lounge Lizard jumped over or the one landed on",
         "two": "Up to two Portals, one for each step"},
        "one",
        "As usual, you may activate a Voodoo Portal (by paying 1 Skull) to create a temporary "
        "adjacency to the Lounge Lizard you are jumping over, or to the Lounge Lizard you are "
        "landing on.",
    ),
)
"""Where the rulebook reads two ways; each default is argued in ACTIONS.md."""



class JivecatRules(JivecatSpells, JivecatStaff, Game):
    """The Swinging Jivecat Voodoo Lounge tracker (2-5 players, Staff chips at 2-3)."""

    name = "jivecat"
    title = "Swinging Jivecat Voodoo Lounge"
    min_players = 2
    max_players = 5
    variants = ("standard",)
    house_rules = HOUSE_RULES

    def __init__(self, data_path: str | Path | None = None) -> None:
        raw = json.loads(Path(data_path or DATA_PATH).read_text())
        self.board = BoardData(raw["board"])
        cards = raw["cards"]
        self.clique: dict[str, CliqueCard] = {}
        for c in cards["clique"]:
            if c["suit"] not in SUITS:
                raise ValueError(f"card data: {c['id']} has unknown suit {c['suit']}")
            self.clique[c["id"]] = CliqueCard(c["id"], c["suit"], int(c["value"]))
        self.skull_cards: dict[str, dict[str, Any]] = {c["id"]: c for c in cards["skull"]}
        self.trend_cards: dict[str, dict[str, Any]] = {c["id"]: c for c in cards["trend"]}
        for t in self.trend_cards.values():
            if t["config"]["kind"] not in CONFIG_TEXT or t["power"]["kind"] not in POWER_TEXT:
                raise ValueError(f"card data: {t['id']} uses an unknown configuration or power")
        all_ids = list(self.clique) + list(self.skull_cards) + list(self.trend_cards)
        if len(set(all_ids)) != len(all_ids):
            raise ValueError("card data: card ids must be unique across the three decks")
        self.code_of: dict[str, Piece] = {}
        self.clique_by_code: dict[Piece, str] = {}
        self.row_by_code: dict[Piece, str] = {}
        for deck, by_code in ((cards["clique"], self.clique_by_code),
                              (cards["skull"] + cards["trend"], self.row_by_code)):
            for c in deck:
                code = face_code(c)
                if code in by_code:
                    raise ValueError(f"card data: {c['id']} repeats the face code of "
                                     f"{by_code[code]}")
                by_code[code] = c["id"]
                self.code_of[c["id"]] = code
        self.handlers = {
            "first_player": self._a_first_player,
            "place_starter": self._a_place_starter,
            "reveal": self._a_reveal,
            "buy": self._a_buy,
            "lay_zombie": self._a_lay_zombie,
            "lay_rada": self._a_lay_rada,
            "discard_tableau": self._a_discard_tableau,
            "voodoo": self._a_voodoo,
            "cheval": self._a_cheval,
            "jivecat": self._a_jivecat,
            "claim_trend": self._a_claim_trend,
            "trend_power": self._a_trend_power,
            "end_turn": self._a_end_turn,
            "staff_flip": self._a_staff_flip,
            "staff_place": self._a_staff_place,
            "staff_remove": self._a_staff_remove,
        }

    # ------------------------------------------------------------------ set-up and turns
    def setup(self, players: int, variant: str | None = None, seed: int = 0) -> State:
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.title} is for 2 to 5 players, not {players!r}")
        variant = variant or self.variants[0]
        if variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}; choose one of {self.variants}")
        n = players
        state: State = {
            "players": n,
            "variant": variant,
            "seed": seed,
            "phase": "setup",
            "first": 0,
            "turn": 0,
            "turn_no": 0,
            "setup_queue": snake(0, n),
            "board": {},
            "mp": [0] * n,
            "skulls": [START_SKULLS] * n,
            "supply": SKULL_TOKENS - START_SKULLS * n,
            "hand": [HAND_SIZE] * n,
            "tableau": [[] for _ in range(n)],
            "trends": [[] for _ in range(n)],
            "deck": len(self.clique) - HAND_SIZE * n,
            "discard": [],
            "reshuffles": 0,
            "skull_row": [None, None, None],
            "skull_deck": len(self.skull_cards),
            "skull_discard": [],
            "trend_row": [None, None, None],
            "trend_deck": len(self.trend_cards),
            "trend_discard": [],
            "refill": {"skull": [2, 1, 0], "trend": [2, 1, 0]},
            "row_notes": ["Deal three Skull cards and three Trend cards along the edges: flip "
                          "each face up onto its position (or tap it on the shared reader)."],
            "staff": {"flips_left": 0, "pending": None, "purge_by": None} if n <= 3 else None,
            "final_from": None,
            "bonus": None,
            "notices": [],
        }
        check_json(state)
        return state

    def player_names(self, state: State) -> list[str]:
        return [c.title() for c in COLOURS[: state["players"]]]

    def current_player(self, state: State) -> int | None:
        phase = state["phase"]
        if phase == "over":
            return None
        if phase == "setup":
            queue = state["setup_queue"]
            return queue[0] if queue else state["first"]
        staff = state["staff"]
        if phase == "staff" and staff and staff["purge_by"] is not None:
            return int(staff["purge_by"])
        return int(state["turn"])

    def phase(self, state: State) -> str:
        return str(state["phase"])

    # ------------------------------------------------------------------ applying actions
    def apply(self, state: State, action: Action) -> State:
        if not isinstance(action, dict):
            raise MalformedAction("an action is a JSON object")
        kind = require(action, "type", str)
        handler = self.handlers.get(kind)
        if handler is None:
            raise MalformedAction(f"unknown action type {kind!r} for {self.title}")
        if state["phase"] == "over":
            raise RuleError("The game is over.", R["over"])
        s = json_copy(state)
        if kind not in QUIET:
            s["notices"] = []
        handler(s, action)
        s["notices"] = s["notices"][-MAX_NOTICES:]
        self._refresh_trends(s)
        return s

    # --- set-up
    def _a_first_player(self, s: State, a: Action) -> None:
        p = self._seat(s, a)
        if s["phase"] != "setup" or len(s["setup_queue"]) != 2 * s["players"] or s["board"]:
            raise RuleError("The first player is chosen before any chip is placed.", R["first"])
        s["first"] = p
        s["first_named"] = True
        s["turn"] = p
        s["setup_queue"] = snake(p, s["players"])

    @staticmethod
    def first_chip_names_first(s: State) -> bool:
        """"Beginning with the first player ... each player puts one chip on a Starter": with
        no first player declared, the first chip on the board names the first player."""
        return not s["board"] and not s.get("first_named")

    def _a_place_starter(self, s: State, a: Action) -> None:
        p = self._seat(s, a)
        spot = self._spot(a, "spot")
        if s["phase"] != "setup" or not s["setup_queue"]:
            raise RuleError("Every player already has two starting chips.", R["starter"])
        due = s["setup_queue"][0]
        if self.first_chip_names_first(s):
            self._a_first_player(s, {"type": "first_player", "player": p})
            due = p
        if p != due:
            raise RuleError(f"It is {self._name(s, due)}'s turn to place a starting chip.",
                            R["starter"])
        self._check_lizard(spot)
        liz = self.board.lizards[spot]
        if liz.kind != "starter":
            raise RuleError(f"{liz.label()} is not a Starter Lounge Lizard.", R["starter"])
        if spot in s["board"]:
            raise RuleError(f"{liz.label()} already has a chip.", R["one_chip"])
        s["board"][spot] = p
        s["setup_queue"].pop(0)
        self._maybe_start(s)

    def _a_reveal(self, s: State, a: Action) -> None:
        row = require(a, "row", str)
        if row not in ROWS:
            raise MalformedAction("field 'row' must be 'skull' or 'trend'")
        known = self.skull_cards if row == "skull" else self.trend_cards
        card = a["card"] if "card" in a or "code" not in a else self._card_by_code(a, row)
        card = require({**a, "card": card}, "card", str)
        if card not in known:
            raise MalformedAction(f"{card!r} is not a {row.title()} card")
        pending = s["refill"][row]
        if not pending:
            raise RuleError(f"No {row.title()} position is waiting for a card.", R["rows"])
        slot = a.get("slot", pending[0])
        if not isinstance(slot, int) or isinstance(slot, bool) or slot not in pending:
            raise RuleError(f"{row.title()} position {slot!r} is not waiting for a card.",
                            R["rows"])
        where = self._row_card_location(s, row, card)
        if where:
            raise RuleError(f"{self.card_name(card)} is already {where}; it cannot come off the deck.",
                            R["public"])
        if s[f"{row}_deck"] <= 0:
            raise RuleError(f"The {row.title()} deck is empty.", R["rows"])
        s[f"{row}_deck"] -= 1
        s[f"{row}_row"][slot] = card
        pending.remove(slot)
        if not s["refill"]["skull"] and not s["refill"]["trend"]:
            s["row_notes"] = []
        self._maybe_start(s)

    def _maybe_start(self, s: State) -> None:
        if (s["phase"] == "setup" and not s["setup_queue"] and not s["refill"]["skull"]
                and not s["refill"]["trend"]):
            self._begin_turn(s, s["first"])

    # --- buying drinks
    def _a_buy(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        cards = self._card_list(a, "cards")
        spot = self._spot(a, "spot")
        signs = a.get("signs", [1] * len(cards))
        if (not isinstance(signs, list) or len(signs) != len(cards)
                or any(x not in (1, -1) or isinstance(x, bool) for x in signs)):
            raise MalformedAction("field 'signs' must list +1 or -1 for each card")
        portal = self._flag(a, "portal")
        self._check_lizard(spot)
        if not cards:
            raise RuleError("A drink needs at least one Clique card.", R["buy"])
        liz = self.board.lizards[spot]
        if liz.number is None:
            raise RuleError(f"{liz.label()} has no number: use a Jivecat Spell to reach it.",
                            R["jivecat_number"])
        value = sum(sg * self.clique[c].value for sg, c in zip(signs, cards, strict=True))
        if value != liz.number:
            raise RuleError(
                f"{expression(signs, [self.clique[c].value for c in cards])} = {value}, "
                f"but {liz.label()} is a {liz.number}.", R["buy"])
        self._check_placement(s, p, spot, portal)
        sources = self._sources(s, p, cards)
        self._charge(s, p, cards, sources, portal=1 if portal else 0)
        self._use_cards(s, p, cards, sources)
        s["board"][spot] = p
        if liz.kind == "hipster":
            s["mp"][p] += 1
            s["notices"].append(f"{self._name(s, p)} scores 1 Monkey Point for the Hipster "
                                f"{liz.label()}: hang an orange Monkey on the glass.")
        self._collect_skull_cards(s, p, liz)

    def _collect_skull_cards(self, s: State, p: int, liz: Lizard) -> None:
        for slot, card in enumerate(s["skull_row"]):
            if card is None:
                continue
            info = self.skull_cards[card]
            if info["number"] == liz.number and liz.lounge in info["lounges"]:
                want = int(self.board.rows["skull"][slot]["skulls"])
                got = min(want, s["supply"])
                s["supply"] -= got
                s["skulls"][p] += got
                s["skull_row"][slot] = None
                s["skull_discard"].append(card)
                where = self.board.rows["skull"][slot]["name"]
                short = "" if got == want else f" (the supply had only {got})"
                s["notices"].append(
                    f"{self._name(s, p)} takes {counted(got, 'Skull')} from the supply for the {where} "
                    f"{self.card_name(card)}{short}; discard the card.")

    # --- end of turn
    def _a_end_turn(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        discard = a.get("discard", [])
        remove = a.get("remove", [])
        if not isinstance(discard, list) or any(not isinstance(c, str) for c in discard):
            raise MalformedAction("field 'discard' must list card ids")
        if not isinstance(remove, list) or any(not isinstance(x, str) for x in remove):
            raise MalformedAction("field 'remove' must list spot ids")
        for c in discard:
            if c not in self.clique:
                raise MalformedAction(f"unknown Clique card {c!r}")
        name = self._name(s, p)
        count = self.chip_count(s, p)
        if count >= CHIPS:
            if len(remove) != 5 or len(set(remove)) != 5:
                raise RuleError(f"{name} has all 15 chips on the board: remove five before the "
                                "turn ends.", R["fifteen"])
        elif remove:
            raise RuleError("Chips leave the board only by a spell or the 15-chip rule.",
                            R["no_remove"])
        for x in remove:
            if s["board"].get(x) != p:
                raise RuleError(f"You have no chip on {self._spot_label(x)}.", R["fifteen"])
        if len(set(discard)) != len(discard) or len(discard) > s["hand"][p]:
            raise RuleError(f"{name} holds only {counted(s['hand'][p], 'card')}.", R["hand"])
        for c in discard:
            where = self._clique_location(s, c)
            if where:
                raise RuleError(f"{self.card_name(c)} is {where}, not in your hand.", R["public"])
        for x in remove:
            del s["board"][x]
        if remove:
            s["notices"].append(f"{name} returns five chips to the cocktail glass.")
        s["hand"][p] -= len(discard)
        s["discard"].extend(discard)
        need = HAND_SIZE - s["hand"][p]
        if need > 0:
            s["notices"].append(f"{name}: draw {counted(need, 'Clique card')} back to four. "
                                + self._draw(s, p, need))
        for t in s["tableau"][p]:
            if t["used"]:
                t["used"] = False
                s["notices"].append(f"{name}: twist {self.card_name(t['card'])} back upright.")
        for t in s["trends"][p]:
            t["used"] = False
        if s["skulls"][p] > SKULL_CAP:
            extra = s["skulls"][p] - SKULL_CAP
            s["skulls"][p] = SKULL_CAP
            s["supply"] += extra
            s["notices"].append(f"{name}: return {counted(extra, 'Skull')} to the supply (five at most).")
        if s["final_from"] is None and s["mp"][p] >= WIN_MP:
            s["final_from"] = p
            s["notices"].append(f"{name} has {counted(s['mp'][p], 'Monkey Point')}: every other player "
                                "gets one more turn.")
        if s["final_from"] is not None and (p + 1) % s["players"] == s["final_from"]:
            self._finish(s)
            return
        if s["staff"] is not None:
            s["phase"] = "staff"
            s["staff"]["flips_left"] = 2 if s["players"] == 2 else 1
            self._staff_continue(s)
        else:
            self._begin_turn(s, (p + 1) % s["players"])

    # --- turn boundaries
    def _begin_turn(self, s: State, p: int) -> None:
        """A turn starts: slide the Skull and Trend rows down and ask for refills."""
        s["phase"] = "play"
        s["turn"] = p
        s["turn_no"] += 1
        notes: list[str] = []
        for row in ROWS:
            cards = [c for c in s[f"{row}_row"] if c is not None]
            new = [None] * (3 - len(cards)) + cards
            names = [r["name"] for r in self.board.rows[row]]
            for i, c in enumerate(s[f"{row}_row"]):
                if c is not None and new.index(c) != i:
                    notes.append(f"Slide {self.card_name(c)} from {names[i]} down to "
                                 f"{names[new.index(c)]}.")
            s[f"{row}_row"] = new
            empty = [i for i in range(2, -1, -1) if new[i] is None]
            if row == "skull" and len(empty) > s["skull_deck"] and s["skull_discard"]:
                s["skull_deck"] += len(s["skull_discard"])
                s["skull_discard"] = []
                notes.append("Shuffle the Skull discards into a new Skull deck.")
            pending = empty[: s[f"{row}_deck"]]
            s["refill"][row] = pending
            if pending:
                notes.append(f"Refill {', '.join(names[i] for i in pending)} from the "
                             f"{row.title()} deck: flip each card face up onto its position.")
        s["row_notes"] = notes

    def _finish(self, s: State) -> None:
        self._refresh_trends(s)
        bonus = [sum(1 for t in s["trends"][q] if t["active"]) for q in range(s["players"])]
        for q in range(s["players"]):
            s["mp"][q] += bonus[q]
        s["bonus"] = bonus
        s["phase"] = "over"
        s["refill"] = {"skull": [], "trend": []}
        s["row_notes"] = []
        s["notices"].append("Game over: each active Trend card scores 1 bonus Monkey Point.")

    def _refresh_trends(self, s: State) -> None:
        """Trends turn inactive as soon as the configuration breaks; the owner's turn revives."""
        if s["phase"] == "over":
            return
        for q in range(s["players"]):
            for t in s["trends"][q]:
                ok = self.config_met(s, q, self.trend_cards[t["card"]]["config"])
                name = self.trend_cards[t["card"]]["name"]
                if t["active"] and not ok:
                    t["active"] = False
                    s["notices"].append(f"{self._name(s, q)}: turn {name} sideways (inactive).")
                elif (not t["active"] and ok and s["phase"] == "play" and q == s["turn"]):
                    t["active"] = True
                    s["notices"].append(f"{self._name(s, q)}: {name} is active again (no points).")

    # ------------------------------------------------------------------ rules helpers
    def _seat(self, s: State, a: Action) -> int:
        p = require(a, "player", int)
        if not 0 <= p < s["players"]:
            raise MalformedAction(f"no seat {p} at a {s['players']}-player table")
        return p

    def _actor(self, s: State, a: Action) -> int:
        """The acting seat of a turn action: it must be that player's turn in play."""
        p = self._seat(s, a)
        if s["phase"] != "play":
            raise RuleError(f"This is not done during {s['phase']}.", R["turn"])
        if p != s["turn"]:
            raise RuleError(f"It is {self._name(s, s['turn'])}'s turn, not "
                            f"{self._name(s, p)}'s.", R["turn"])
        if s["refill"]["skull"] or s["refill"]["trend"]:
            raise RuleError("Refill the Skull and Trend rows first.", R["rows"])
        return p

    def _spot(self, a: Action, key: str) -> str:
        spot = require(a, key, str)
        if (spot not in self.board.lizards and spot not in self.board.staff
                and spot not in self.board.portals):
            raise MalformedAction(f"unknown spot {spot!r}")
        return spot

    def _check_lizard(self, spot: str) -> None:
        if spot in self.board.staff:
            raise RuleError(f"{spot} is a Staff space.", R["staff_space"])
        if spot in self.board.portals:
            raise RuleError(f"{spot} is a Voodoo Portal.", R["not_lizard"])

    def _card(self, a: Action, key: str) -> str:
        card = require(a, key, str)
        if card not in self.clique:
            raise MalformedAction(f"unknown Clique card {card!r}")
        return card

    def _card_list(self, a: Action, key: str) -> list[str]:
        cards = require(a, key, list)
        for c in cards:
            if not isinstance(c, str) or c not in self.clique:
                raise MalformedAction(f"unknown Clique card {c!r}")
        if len(set(cards)) != len(cards):
            raise RuleError("The same card cannot be played twice.", R["one_use"])
        return cards

    def _flag(self, a: Action, key: str) -> bool:
        value = a.get(key, False)
        if not isinstance(value, bool):
            raise MalformedAction(f"field {key!r} must be true or false")
        return value

    def _slot(self, a: Action, row: list[str | None], what: str) -> int:
        slot = require(a, "slot", int)
        if not 0 <= slot < 3 or row[slot] is None:
            raise RuleError(f"There is no face-up {what} card in position {slot}.",
                            R["trend_power"])
        return slot

    def _target(self, s: State, a: Action, p: int) -> int:
        target = self._seat(s, {"player": a.get("target")})
        if target == p:
            raise RuleError("The target must be an opponent.", R["trend_power"])
        return target

    def _card_by_code(self, a: Action, row: str | None) -> str:
        """The card whose face code the camera read (``row`` None: the Clique deck)."""
        raw = a.get("code")
        if (not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[0], str)
                or not isinstance(raw[1], int) or isinstance(raw[1], bool)):
            raise MalformedAction("field 'code' must be [colour, pips]")
        code = Piece(raw[0], raw[1])
        deck = "Clique" if row is None else row.title()
        if row is None:
            found = self.clique_by_code.get(code)
            rule = R["tableau"]
        else:
            found = self.row_by_code.get(code)
            known = self.skull_cards if row == "skull" else self.trend_cards
            rule = R["rows"]
            if found is not None and found not in known:
                other = "Skull" if found in self.skull_cards else "Trend"
                raise RuleError(f"The card showing face code {code.colour} {code.pips} is the "
                                f"{other} card {found}, not a {deck} card.", rule)
        if found is None:
            raise RuleError(f"No {deck} card shows face code {code.colour} {code.pips}.", rule)
        return found

    def _code_field(self, a: Action) -> Piece:
        """The face code [colour, pips] the camera read, from an action's 'code' field."""
        raw = a.get("code")
        if (not isinstance(raw, list) or len(raw) != 2 or not isinstance(raw[0], str)
                or not isinstance(raw[1], int) or isinstance(raw[1], bool)):
            raise MalformedAction("field 'code' must be [colour, pips]")
        return Piece(raw[0], raw[1])

    def _row_code_name(self, code: Piece) -> str:
        """The card a row code names, in words: ' (Skull card 3 (Cocoa or Lava))'."""
        card = self.row_by_code.get(code)
        if card is None:
            return " (no Trend card)"
        return f" ({self.card_name(card)})"

    def _laid_card(self, a: Action) -> str:
        """A tableau card named by id (tablet, tap) or by the face code the camera read."""
        if "card" not in a and "code" in a:
            return self._card_by_code(a, None)
        return self._card(a, "card")

    def tableau_slots(self, s: State, p: int) -> dict[int, str]:
        """Tableau position -> card; entries without a recorded position take the first free."""
        out: dict[int, str] = {}
        loose = []
        for t in s["tableau"][p]:
            slot = t.get("slot")
            if isinstance(slot, int) and slot not in out:
                out[slot] = t["card"]
            else:
                loose.append(t["card"])
        for card in loose:
            out[next(i for i in range(len(out) + 1) if i not in out)] = card
        return out

    def _tableau_slot(self, s: State, p: int, a: Action) -> int:
        """Where the laid card lies: the position the camera saw, or the first free one."""
        taken = self.tableau_slots(s, p)
        free = [i for i in range(self.board.tab_slots) if i not in taken]
        slot = a.get("slot", free[0] if free else 0)
        if not isinstance(slot, int) or isinstance(slot, bool):
            raise MalformedAction("field 'slot' must be an int")
        if slot not in free:
            raise RuleError(f"Tableau position {slot + 1} is not free.", R["tableau"])
        return slot

    def _need_suit(self, card: str, suit: str) -> None:
        if self.clique[card].suit != suit:
            raise RuleError(f"{self.card_name(card)} is a {self.clique[card].suit.title()} card, not a "
                            f"{suit.title()} card.", R["suit"])

    def _name(self, s: State, p: Any) -> str:
        if p == STAFF:
            return "The Staff"
        return COLOURS[int(p)].title()

    def card_name(self, card: str) -> str:
        """A card as the players call it: "Cheval 5", "Skull card 3 (Cocoa or Lava)", a Trend's
        name."""
        if card in self.clique:
            info = self.clique[card]
            twin = " (second)" if card.endswith("-b") else ""
            return f"{info.suit.title()} {info.value}{twin}"
        if card in self.skull_cards:
            info = self.skull_cards[card]
            lounges = " or ".join(x.title() for x in info["lounges"])
            return f"Skull card {info['number']} ({lounges})"
        if card in self.trend_cards:
            return f"Trend {self.trend_cards[card]['name']}"
        return f"card {card}"

    def _spot_label(self, spot: str) -> str:
        if spot in self.board.lizards:
            return self.board.lizards[spot].label()
        if spot in self.board.staff:
            return f"Staff space {spot}"
        return f"Voodoo Portal {spot}"

    def chip_count(self, s: State, owner: Any) -> int:
        """Chips of a seat (or of the Staff) on the board."""
        return sum(1 for v in s["board"].values() if v == owner)

    def chips_of(self, s: State, p: int) -> list[str]:
        return sorted(k for k, v in s["board"].items() if v == p)

    def reach(self, s: State, p: int, spot: str) -> int | None:
        """0 if ``spot`` is adjacent to one of p's chips, 1 if only through a Portal, else None."""
        best: int | None = None
        for chip in self.chips_of(s, p):
            h = self.board.hop(chip, spot)
            if h == 0:
                return 0
            if h == 1:
                best = 1
        return best

    def _check_placement(self, s: State, p: int, spot: str, portal: bool) -> None:
        liz = self.board.lizards[spot]
        if spot in s["board"]:
            raise RuleError(f"{liz.label()} already has a chip.", R["one_chip"])
        if self.chip_count(s, p) >= CHIPS:
            raise RuleError("You have no chip left in your cocktail glass.", R["glass"])
        how = self.reach(s, p, spot)
        if how is None or (how == 1 and not portal):
            raise RuleError(f"{self._name(s, p)} chip on {liz.label()} is not adjacent to your "
                            "Clique" + (" (even through a Voodoo Portal)" if portal else "") + ".",
                            R["adjacent"] + (" " + R["portal"] if portal else ""))

    def jump_cost(self, src: str, dst: str, state: State | None = None) -> int | None:
        """Fewest Portal openings for a Cheval jump src -> (a lizard) -> dst, or None.

        With a state, its house rules decide what a jump is (``cheval_path``); without one,
        the default reading.
        """
        if src not in self.board.lizards or dst not in self.board.lizards:
            return None
        line = state is not None and self.house_rule(state, "cheval_path") == "line_jump"
        return self.board.jumps(src, line=line).get(dst)

    def max_portals(self, state: State) -> int:
        """How many Voodoo Portals one Cheval may open (house rule ``cheval_portals``)."""
        return 2 if self.house_rule(state, "cheval_portals") == "two" else 1

    def _landed(self, s: State, p: int, spot: str) -> None:
        """A chip of ``p`` moved onto ``spot``: what the house rules say it earns."""
        liz = self.board.lizards[spot]
        if liz.kind == "hipster" and self.house_rule(s, "moved_hipster") == "scores":
            s["mp"][p] += 1
            s["notices"].append(f"{self._name(s, p)} scores 1 Monkey Point for the Hipster "
                                f"{liz.label()} (house rule): hang an orange Monkey on the glass.")
        if self.house_rule(s, "skull_cards_pay") == "any_chip":
            self._collect_skull_cards(s, p, liz)

    def _sources(self, s: State, p: int, cards: list[str],
                 allow_tableau: bool = True) -> list[str]:
        """Where each played card comes from ("hand" or "tableau"); refuse impossible plays."""
        sources = []
        for c in cards:
            own = next((t for t in s["tableau"][p] if t["card"] == c), None)
            if own is not None and allow_tableau:
                if self.clique[c].suit != "zombie":
                    raise RuleError(f"{self.card_name(c)} is a Rada in your tableau; only Zombies there are "
                                    "played for their value.", R["card_source"])
                if own["used"]:
                    raise RuleError(f"{self.card_name(c)} was already used this turn.", R["zombie_use"])
                sources.append("tableau")
                continue
            where = self._clique_location(s, c)
            if where:
                raise RuleError(f"{self.card_name(c)} is {where}, not in your hand.", R["public"])
            sources.append("hand")
        if sources.count("hand") > s["hand"][p]:
            raise RuleError(f"{self._name(s, p)} holds only {counted(s['hand'][p], 'card')}.",
                            R["card_source"])
        return sources

    def _charge(self, s: State, p: int, cards: list[str], sources: list[str], *,
                supply: int = 0, supply_why: str = "", portal: int = 0,
                to: dict[Any, int] | None = None, to_why: str = "") -> None:
        """Pay every Skull a play costs: Rada payments, Zombie twists, Portals, spell prices."""
        owed: dict[Any, int] = {}
        why: dict[Any, list[str]] = {}
        for c in cards:
            value = self.clique[c].value
            for q in range(s["players"]):
                if q != p and any(self.clique[t["card"]].suit == "rada"
                                  and self.clique[t["card"]].value == value
                                  for t in s["tableau"][q]):
                    owed[q] = owed.get(q, 0) + 1
                    why.setdefault(q, []).append(f"Rada {value} for {self.card_name(c)}")
        rada = sum(owed.values())
        if rada > s["skulls"][p]:
            raise RuleError(f"{self._name(s, p)} cannot pay the Rada (needs {counted(rada, 'Skull')}, "
                            f"has {s['skulls'][p]}).", R["rada_pay"])
        parts = [supply_why] if supply else []
        zombies = [c for c, src in zip(cards, sources, strict=True) if src == "tableau"]
        parts += [self.card_name(z) for z in zombies]
        if portal:
            parts.append("Voodoo Portal" + (f" x{portal}" if portal > 1 else ""))
        if supply + len(zombies) + portal:
            owed["supply"] = supply + len(zombies) + portal
            why["supply"] = parts
        for q, n in (to or {}).items():
            owed[q] = owed.get(q, 0) + n
            why.setdefault(q, []).append(to_why)
        self._pay(s, p, owed, why)

    def _pay(self, s: State, p: int, cost: dict[Any, int],
             why: dict[Any, list[str]] | None = None) -> None:
        total = sum(cost.values())
        if total > s["skulls"][p]:
            raise RuleError(f"{self._name(s, p)} needs {counted(total, 'Skull')} and has "
                            f"{s['skulls'][p]}.", R["pay"])
        s["skulls"][p] -= total
        for who, n in cost.items():
            if n <= 0:
                continue
            reason = ", ".join(x for x in (why or {}).get(who, []) if x)
            reason = f" ({reason})" if reason else ""
            if who == "supply":
                s["supply"] += n
                s["notices"].append(f"{self._name(s, p)} pays {skulls(n)} to the supply{reason}.")
            else:
                s["skulls"][who] += n
                s["notices"].append(f"{self._name(s, p)} pays {skulls(n)} to "
                                    f"{self._name(s, who)}{reason}.")

    def _use_cards(self, s: State, p: int, cards: list[str], sources: list[str]) -> None:
        for c, src in zip(cards, sources, strict=True):
            if src == "tableau":
                for t in s["tableau"][p]:
                    if t["card"] == c:
                        t["used"] = True
            else:
                s["hand"][p] -= 1
                s["discard"].append(c)

    def _clique_location(self, s: State, card: str) -> str:
        """Where a Clique card is publicly known to be ('' when it may be in a hand)."""
        if card in s["discard"]:
            return "in the discard pile"
        for q in range(s["players"]):
            if any(t["card"] == card for t in s["tableau"][q]):
                return f"in {self._name(s, q)}'s tableau"
        return ""

    def _row_card_location(self, s: State, row: str, card: str) -> str:
        if card in s[f"{row}_row"]:
            return f"face up in the {row.title()} row"
        if card in s[f"{row}_discard"]:
            return "in the discard"
        if row == "trend":
            for q in range(s["players"]):
                if any(t["card"] == card for t in s["trends"][q]):
                    return f"in {self._name(s, q)}'s tableau"
        return ""

    def _reshuffle(self, s: State) -> None:
        s["deck"] += len(s["discard"])
        s["discard"] = []
        s["reshuffles"] += 1

    def _draw(self, s: State, p: int, n: int) -> str:
        """Move ``n`` cards from the Clique deck to p's hand, reshuffling when it runs out."""
        notes = []
        got = 0
        while got < n:
            if s["deck"] <= 0:
                if not s["discard"]:
                    notes.append("The deck and the discards are empty: draw no more.")
                    break
                self._reshuffle(s)
                notes.append("The Clique deck is exhausted: shuffle the discards into a new "
                             "deck.")
            take = min(n - got, s["deck"])
            s["deck"] -= take
            s["hand"][p] += take
            got += take
        return " ".join(notes)

    def config_met(self, s: State, p: int, config: dict[str, Any]) -> bool:
        """Do p's chips show a Trend configuration (see CONFIG_TEXT for the vocabulary)?"""
        chips = self.chips_of(s, p)
        lz = self.board.lizards
        kind = config["kind"]
        n = int(config["n"])
        per_lounge = Counter(lz[c].lounge for c in chips)
        if kind == "lounges":
            return len(per_lounge) >= n
        if kind == "one_lounge":
            return max(per_lounge.values(), default=0) >= n
        if kind == "each_lounge":
            return all(per_lounge[x] >= n for x in self.board.lounges)
        if kind in ("hipsters", "jivecats", "starters"):
            return sum(1 for c in chips if lz[c].kind == kind[:-1]) >= n
        if kind == "party":
            return sum(1 for c in chips if c in self.board.party_of) >= n
        if kind == "chain":
            return largest_group(chips, self.board.adj) >= n
        numbers = [lz[c].number for c in chips if lz[c].number is not None]
        if kind == "same_number":
            return max(Counter(numbers).values(), default=0) >= n
        if kind == "run":
            have = set(numbers)
            return any(all(k + i in have for i in range(n)) for k in have)
        if kind == "portals":
            return len({x for c in chips for x in self.board.portals_near[c]}) >= n
        if kind == "staff":
            return sum(1 for c in chips if c in self.board.staff_next) >= n
        raise MalformedAction(f"unknown Trend configuration {kind!r}")

    # ------------------------------------------------------------------ legal actions
    def possible_cards(self, s: State, suit: str | None = None) -> list[str]:
        """Clique cards that may be in a hand: every card not face up somewhere."""
        return [c for c, info in self.clique.items()
                if (suit is None or info.suit == suit) and not self._clique_location(s, c)]

    def legal_actions(self, state: State) -> list[Action]:
        """Every legal action with one card; spells with one representative card per suit.

        Drinks of one card are listed for every card that may be in the hand;
        combined drinks, which would be too many to list, are legal too but
        not listed.  Spells are listed with the first unseen card of their
        suit (any unseen card of that suit may be used the same way).
        """
        s = state
        phase = s["phase"]
        out: list[Action] = []
        if phase == "over":
            return out
        if phase == "setup":
            if s["setup_queue"]:
                p = s["setup_queue"][0]
                if not s["board"] and len(s["setup_queue"]) == 2 * s["players"]:
                    out += [{"type": "first_player", "player": q} for q in range(s["players"])]
                out += [{"type": "place_starter", "player": p, "spot": x}
                        for x, liz in self.board.lizards.items()
                        if liz.kind == "starter" and x not in s["board"]]
            out += self._reveal_options(s)
            return [a for a in out if self.is_legal(s, a)]
        if phase == "staff":
            staff = s["staff"]
            p = self.current_player(s)
            if staff["purge_by"] is not None:
                spots = sorted(k for k, v in s["board"].items() if v == STAFF)
                return [{"type": "staff_remove", "player": p, "spots": spots[:5]}]
            if staff["pending"]:
                return [{"type": "staff_place", "player": p, "spot": x}
                        for x in staff["pending"]["spots"]]
            return [{"type": "staff_flip", "player": p, "card": c}
                    for c in self.possible_cards(s)]
        if s["refill"]["skull"] or s["refill"]["trend"]:
            return [a for a in self._reveal_options(s) if self.is_legal(s, a)]
        p = s["turn"]
        out.append({"type": "end_turn", "player": p})
        hand_cards = self.possible_cards(s) if s["hand"][p] > 0 else []
        for c in hand_cards:
            out += self._buy_options(s, p, c)
        for t in s["tableau"][p]:
            if self.clique[t["card"]].suit == "zombie":
                out += self._buy_options(s, p, t["card"])
            out.append({"type": "discard_tableau", "player": p, "card": t["card"]})
        reps = {suit: next(iter(self.possible_cards(s, suit)), None) for suit in SUITS}
        if s["hand"][p] > 0:
            if reps["zombie"]:
                out.append({"type": "lay_zombie", "player": p, "card": reps["zombie"]})
            if reps["rada"]:
                out.append({"type": "lay_rada", "player": p, "card": reps["rada"]})
            if reps["voodoo"]:
                out += self._voodoo_options(s, p, reps["voodoo"])
            if reps["cheval"]:
                out += self._cheval_options(s, p, reps["cheval"])
            if reps["jivecat"]:
                out += self._jivecat_options(s, p, reps["jivecat"])
        for c in s["trend_row"]:
            if c is not None:
                out.append({"type": "claim_trend", "player": p, "card": c})
        for t in s["trends"][p]:
            out += self._power_options(s, p, t["card"])
        if self.chip_count(s, p) >= CHIPS:
            out[0]["remove"] = self.chips_of(s, p)[:5]
        out = [a for a in out if self.is_legal(s, a)]
        if out and out[0]["type"] == "end_turn" and s["hand"][p] > 0:
            # discarding one card that may be in the hand: legal whenever ending is
            out[1:1] = [{**out[0], "discard": [c]} for c in hand_cards]
        return out

    def _reveal_options(self, s: State) -> list[Action]:
        out = []
        for row in ROWS:
            if s["refill"][row]:
                known = self.skull_cards if row == "skull" else self.trend_cards
                out += [{"type": "reveal", "row": row, "card": c} for c in known
                        if not self._row_card_location(s, row, c)]
        return out

    def _buy_options(self, s: State, p: int, card: str) -> list[Action]:
        value = self.clique[card].value
        out = []
        for spot, liz in self.board.lizards.items():
            if liz.number == value and spot not in s["board"]:
                how = self.reach(s, p, spot)
                if how is not None:
                    out.append({"type": "buy", "player": p, "cards": [card], "signs": [1],
                                "spot": spot, "portal": how == 1})
        return out

    # ------------------------------------------------------------------ scores, end, prompts
    def scores(self, state: State) -> list[float]:
        return [float(x) for x in state["mp"]]

    def outcome(self, state: State) -> Outcome | None:
        if state["phase"] != "over":
            return None
        n = state["players"]

        def key(q: int) -> tuple[int, int, int, int]:
            active = sum(1 for t in state["trends"][q] if t["active"])
            return (state["mp"][q], active, state["skulls"][q], -self.chip_count(state, q))

        keys = {q: key(q) for q in range(n)}
        best = max(keys.values())
        winners = tuple(q for q in range(n) if keys[q] == best)
        names = " and ".join(self._name(state, q) for q in winners)
        tied = [q for q in range(n) if keys[q][0] == best[0]]
        if len(tied) == 1:
            return Outcome(winners, f"{names} wins with {counted(best[0], 'Monkey Point')} and is crowned "
                                    "King or Queen of the Voodoo Lounge.")
        for level, label in enumerate(TIE_BREAKERS, start=1):
            top = max(keys[q][: level + 1] for q in tied)
            tied = [q for q in tied if keys[q][: level + 1] == top]
            if len(tied) == 1:
                return Outcome(winners, f"{names} wins the tie at {counted(best[0], 'Monkey Point')} on "
                                        f"tie-breaker {level}: {label}.")
        return Outcome(winners, f"{names} share the win at {counted(best[0], 'Monkey Point')}, tied on all "
                                "three tie-breakers.")

    def card_ids(self) -> list[str]:
        return list(self.clique) + list(self.skull_cards) + list(self.trend_cards)
