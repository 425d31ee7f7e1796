"""Swinging Jivecat Voodoo Lounge: the rules tracker.

The companion sees chips on Lounge Lizard spots (camera), the face-up Skull and
Trend rows and every tableau's Zombie and Rada cards by their face codes (camera;
a tap of a row card on the shared reader works too), Clique cards tapped on the
seat readers, and declarations on the tablet.  It never knows a hand: it
counts the Clique deck, the discard pile and every hand's size, knows the
tableaux (Zombies, Radas, Trends) because they are face up, and computes the
chores (slides, refills, Rada payments, Staff chips, hand refills, the Skull
cap).  Physical facts the rulebook leaves out (the board graph, the card lists)
come from ``data/jivecat.json``, a marked reconstruction a user may replace.

Order of this file, as in OpenSpiel's games: facts as data, the Game class,
then helpers.
"""

from __future__ import annotations

import itertools
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
    diff_views,
    json_copy,
    make_view,
    require,
)

# --------------------------------------------------------------------------- facts as data

DATA_PATH = Path(__file__).parent / "data" / "jivecat.json"

COLOURS = ("red", "blue", "yellow", "green", "purple")
STAFF = "staff"
STAFF_COLOUR = "white"
HAND_SIZE = 4
CHIPS = 15
STAFF_CHIPS = 15
START_SKULLS = 3
SKULL_TOKENS = 25
SKULL_CAP = 5
WIN_MP = 15
MAX_ZOMBIES = 2
SUITS = ("zombie", "rada", "voodoo", "cheval", "jivecat")
ROWS = ("skull", "trend")
QUIET = ("reveal", "staff_flip", "staff_place", "staff_remove")
"""Table chores between turns: they keep the ending player's chores (draw, cap) on show."""
MAX_NOTICES = 8
CODE_COLOURS = ("orange", "cyan", "pink", "brown", "black", "grey")
"""Face-code colours of the cards: none is a chip colour, so cards are drawn and read as squares."""
MAX_CODE_PIPS = 9

R = {
    "turn": "The first player takes his/her turn and play proceeds clockwise, thereafter.",
    "starter": "Beginning with the first player and moving clockwise, each player puts one chip "
    "on a Starter Lounge Lizard. Then, starting with the last player, the process is repeated in "
    "reverse giving each player two chips on the board.",
    "first": "Select a first player through any method you like.",
    "rows": "At the start of the next player's turn, slide the remaining Skull cards down to fill "
    "any open positions then refill the empty positions at the top from the Skull deck (and the "
    "same for the Trend cards).",
    "adjacent": "When you add a chip to the board, it must be placed on a Lounge Lizard that is "
    "adjacent to a Lounge Lizard that already has one of your chips on it.",
    "one_chip": "Only one chip may occupy each Lounge Lizard position on the board.",
    "staff_space": "Chips may never be placed on Staff spaces.",
    "not_lizard": "Chips are placed on Lounge Lizards; a Voodoo Portal is not a Lounge Lizard.",
    "two_chips": "You may never have fewer than two chips on the board, either through your "
    "actions or the actions of other players.",
    "no_remove": "You may not arbitrarily remove your chips from the board.",
    "fifteen": "If, at the end of your turn, you have all 15 of your chips on the board you must "
    "immediately remove five of your chips from the board and return them to your cocktail glass.",
    "glass": "15 Chips for Each Player Color: a chip is added to the board from your cocktail "
    "glass.",
    "buy": "Use one Clique card for its face value and place a chip on a Lounge Lizard of that "
    "value, or play two or more Clique cards and use addition and/or subtraction to adjust the "
    "value of your play.",
    "one_use": "Only one use may be employed for each card you play.",
    "card_source": "You may play some or all of the Clique cards in your hand and tableau.",
    "jivecat_number": "Jivecat Lounge Lizards have no numbers at all: a chip reaches them only "
    "by a Jivecat Spell.",
    "portal": "If you have a chip adjacent to a Voodoo Portal, you can pay 1 Skull to open the "
    "Voodoo Portal and be magically adjacent to any Lounge Lizard that is adjacent to any other "
    "Voodoo Portal.",
    "pay": "Skull tokens represent your Voodoo power, allowing you to cast Voodoo Spells and to "
    "purchase certain game actions: you must have the Skulls to pay.",
    "zombie_lay": "Place a Zombie card from your hand face-up on the table and pay one Skull to "
    "the supply.",
    "zombie_max": "You may have a maximum of two Zombie cards in your tableau at any time.",
    "zombie_use": "The Zombie may be used for its number value once each turn: pay one Skull "
    "token to the supply and twist the card a quarter-turn.",
    "zombie_discard": "Unused Zombie cards may be discarded from your tableau on your turn to "
    "make way for new Zombie cards.",
    "rada_pay": "All opponents must pay you one Skull to play or use any Clique card from their "
    "hand or tableau with a matching value. If an opponent cannot make the payment, he/she cannot "
    "play or use a card that matches your Rada.",
    "rada_one": "You may have only one Rada card in your tableau.",
    "rada_discard": "You may discard a Rada card in your own tableau on your turn to make way for "
    "a new Rada card.",
    "voodoo": "Play a Voodoo card from your hand and pay one Skull token to the opponent you are "
    "targeting. You may then activate one of the card's three possible spell effects.",
    "cheval": "Play a Cheval card to move one of your chips already on the board to an empty "
    "Typical or Hipster Lounge Lizard that is two adjacent Lounge Lizards away from its original "
    "position.",
    "jivecat": "You may use a Jivecat Spell to place a chip on any unclaimed Jivecat Lounge "
    "Lizard on the board that is adjacent to any of your other chips on the board. You must then "
    "remove two of your chips from the board.",
    "jivecat_lounge": "The chips you remove must be from different Lounges than the one where "
    "the new Jivecat Lounge Lizard is located.",
    "suit": "Clique cards have special Voodoo Spell powers by suit.",
    "trend_claim": "At any point in your turn you may claim a face-up Trend card from the right "
    "side of the board if your chips on the board match the configuration shown on the card.",
    "trend_power": "You may use the power described on each of your active Trend cards once each "
    "turn.",
    "hand": "When your turn is over, you may keep or discard any Clique cards remaining in your "
    "hand, then refill your hand to four cards.",
    "public": "A card can only be played from a hand or a tableau; this card is face up "
    "elsewhere.",
    "staff_flip": "At the end of each turn, after you have refilled your hand to four cards, flip "
    "over the top card (or top 2 cards in a 2 player game) on the Clique deck.",
    "staff_place": "Place a Staff chip on an unclaimed Lounge Lizard of a matching number that is "
    "adjacent to a Staff icon or an existing Staff chip. If the drawn Clique card is a '1,' place "
    "the Staff chip on an adjacent Jivecat Lounge Lizard.",
    "staff_15": "When you place the 15th Staff chip on the board, the player with the lowest "
    "score immediately removes five Staff chips from the board and then play resumes.",
    "over": "The game is over.",
    "trend_place": "Place the claimed card face-up in your tableau.",
    "tableau": "Zombie and Rada cards are placed face-up on the table in front of you (your "
    "tableau); you may have at most two Zombies and one Rada there.",
}

TIE_BREAKERS = ("most active Trend cards", "most Skull tokens", "fewest chips on the game board")

POWER_TEXT = {
    "draw": "pay {cost} Skull to the supply: draw 1 Clique card",
    "skull": "take 1 Skull from the supply",
    "steal_skull": "take 1 Skull from an opponent",
    "move": "pay {cost} Skull: move one of your chips to an adjacent empty Typical or Hipster "
    "Lounge Lizard",
    "skull_card": "pay {cost} Skull: discard a face-up Skull card",
    "staff_remove": "pay {cost} Skull: remove a Staff chip adjacent to one of your chips",
    "undermine": "pay {cost} Skulls: an opponent with more Monkey Points loses 1",
    "cash_in": "lose 1 Monkey Point: take 2 Skulls from the supply",
    "trend_discard": "pay {cost} Skull: discard a face-up Trend card",
    "recover": "pay {cost} Skull: take the top card of the Clique discard pile",
}

CONFIG_TEXT = {
    "lounges": "chips in {n} different Lounges",
    "one_lounge": "{n} chips in one Lounge",
    "each_lounge": "{n} chips in every Lounge",
    "hipsters": "{n} chips on Hipsters",
    "jivecats": "{n} chips on Jivecats",
    "starters": "{n} chips on Starter Lounge Lizards",
    "party": "{n} chips in Private Parties",
    "chain": "{n} chips in one connected group",
    "same_number": "{n} chips on Lounge Lizards of one number",
    "run": "chips on {n} consecutive numbers",
    "portals": "chips next to {n} different Voodoo Portals",
    "staff": "{n} chips next to Staff spaces",
}


@dataclass(frozen=True)
class Lizard:
    """One Lounge Lizard spot: its Lounge, kind and number (None for a Jivecat)."""

    id: str
    lounge: str
    kind: str
    number: int | None
    x: float
    y: float
    glass: str = ""

    def label(self) -> str:
        what = f"{self.glass} Jivecat".strip() if self.kind == "jivecat" else str(self.number)
        return f"{self.lounge.title()} {what} ({self.id})"


class BoardData:
    """The board graph as the rules use it: adjacency with Private Parties and Staff spaces."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.width = float(raw["width"])
        self.height = float(raw["height"])
        self.spot_mm = float(raw.get("spot_mm", 26))
        self.staff_mm = float(raw.get("staff_mm", 20))
        self.lounges: list[str] = list(raw["lounges"])
        self.lizards: dict[str, Lizard] = {}
        edges: dict[str, set[str]] = {}
        for entry in raw["lizards"]:
            liz = Lizard(
                entry["id"], entry["lounge"], entry["kind"], entry.get("number"),
                float(entry["x"]), float(entry["y"]), entry.get("glass", ""),
            )
            if liz.id in self.lizards:
                raise ValueError(f"board data: duplicate lizard {liz.id}")
            if liz.lounge not in self.lounges:
                raise ValueError(f"board data: {liz.id} in unknown Lounge {liz.lounge}")
            if liz.kind not in ("typical", "starter", "hipster", "jivecat"):
                raise ValueError(f"board data: {liz.id} has unknown kind {liz.kind}")
            if (liz.kind == "jivecat") != (liz.number is None):
                raise ValueError(f"board data: {liz.id}: only Jivecats have no number")
            self.lizards[liz.id] = liz
            edges[liz.id] = set(entry.get("adjacent", []))
        for a, near in list(edges.items()):
            for b in near:
                if b not in self.lizards:
                    raise ValueError(f"board data: {a} adjacent to unknown {b}")
                edges[b].add(a)
        self.parties: dict[str, dict[str, Any]] = {}
        self.party_of: dict[str, str] = {}
        for party in raw.get("parties", []):
            members = list(party["members"])
            touching = list(party.get("touching", []))
            self.parties[party["id"]] = {"lounge": party.get("lounge", ""), "members": members,
                                         "touching": touching}
            for m in members:
                self.party_of[m] = party["id"]
                for other in members + touching:
                    if other != m:
                        edges[m].add(other)
                        edges[other].add(m)
        self.staff: dict[str, dict[str, Any]] = {}
        for space in raw.get("staff", []):
            self.staff[space["id"]] = {"x": float(space["x"]), "y": float(space["y"]),
                                       "next_to": list(space["next_to"])}
            for a, b in space.get("separates", []):
                edges[a].discard(b)
                edges[b].discard(a)
        self.portals: dict[str, dict[str, Any]] = {}
        self.portals_near: dict[str, set[str]] = {k: set() for k in self.lizards}
        for portal in raw.get("portals", []):
            self.portals[portal["id"]] = {"x": float(portal["x"]), "y": float(portal["y"]),
                                          "lounge": portal.get("lounge", ""),
                                          "adjacent": list(portal["adjacent"])}
            for liz in portal["adjacent"]:
                self.portals_near[liz].add(portal["id"])
        self.adj: dict[str, frozenset[str]] = {k: frozenset(v) for k, v in edges.items()}
        self.staff_next: frozenset[str] = frozenset(
            x for s in self.staff.values() for x in s["next_to"])
        self.rows: dict[str, list[dict[str, Any]]] = raw["rows"]
        tab = raw["tableau"]
        self.tab_w = float(tab["w"])
        self.tab_h = float(tab["h"])
        self.tab_seats: list[list[tuple[float, float]]] = [
            [(float(x), float(y)) for x, y in seat] for seat in tab["seats"]]
        self.tab_slots = min(len(seat) for seat in self.tab_seats)
        self.trend_piles: list[tuple[float, float]] = [
            (float(x), float(y)) for x, y in tab.get("trends", [])]
        """Per seat, where its claimed Trend cards are stacked (an older file may lack them)."""
        self.portal_reach: dict[str, frozenset[str]] = {
            a: frozenset(b for b in self.lizards if b != a and self.portal_linked(a, b))
            if self.portals_near[a] else frozenset() for a in self.lizards}
        self._jumps: dict[str, dict[str, int]] = {}

    def portal_linked(self, a: str, b: str) -> bool:
        """True when a Portal next to ``a`` and another Portal next to ``b`` join them."""
        pa, pb = self.portals_near[a], self.portals_near[b]
        return any(x != y for x in pa for y in pb)

    def steps(self, a: str) -> dict[str, int]:
        """Every lizard one step from ``a``: 0 Skulls if adjacent, 1 through a Portal."""
        out = {b: 1 for b in self.portal_reach[a]}
        out.update({b: 0 for b in self.adj[a]})
        return out

    def jumps(self, src: str) -> dict[str, int]:
        """Lizards two steps from ``src`` (a Cheval jump) with the fewest Portals needed."""
        if src not in self._jumps:
            best: dict[str, int] = {}
            for mid, c1 in self.steps(src).items():
                for dst, c2 in self.steps(mid).items():
                    if dst != src and c1 + c2 < best.get(dst, 3):
                        best[dst] = c1 + c2
            self._jumps[src] = best
        return self._jumps[src]

    def hop(self, a: str, b: str) -> int | None:
        """Skulls to step from ``a`` to ``b``: 0 adjacent, 1 through a Portal, None never."""
        if a == b:
            return None
        if b in self.adj[a]:
            return 0
        if self.portal_linked(a, b):
            return 1
        return None


@dataclass(frozen=True)
class CliqueCard:
    id: str
    suit: str
    value: int


class JivecatGame(Game):
    """The Swinging Jivecat Voodoo Lounge tracker (2-5 players, Staff chips at 2-3)."""

    name = "jivecat"
    title = "Swinging Jivecat Voodoo Lounge"
    min_players = 2
    max_players = 5
    variants = ("standard",)

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
        s["turn"] = p
        s["setup_queue"] = snake(p, s["players"])

    def _a_place_starter(self, s: State, a: Action) -> None:
        p = self._seat(s, a)
        spot = self._spot(a, "spot")
        if s["phase"] != "setup" or not s["setup_queue"]:
            raise RuleError("Every player already has two starting chips.", R["starter"])
        due = s["setup_queue"][0]
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
            raise RuleError(f"{card} is already {where}; it cannot come off the deck.",
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
                    f"{self._name(s, p)} takes {got} Skull(s) from the supply for the {where} "
                    f"Skull card {card}{short}; discard the card.")

    # --- spells
    def _a_lay_zombie(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = self._laid_card(a)
        self._need_suit(card, "zombie")
        sources = self._sources(s, p, [card], allow_tableau=False)
        zombies = [t for t in s["tableau"][p] if self.clique[t["card"]].suit == "zombie"]
        if len(zombies) >= MAX_ZOMBIES:
            raise RuleError("You already have two Zombie cards in your tableau; discard an "
                            "unused one first.", R["zombie_max"])
        slot = self._tableau_slot(s, p, a)
        self._charge(s, p, [card], sources, supply=1, supply_why=f"laying Zombie {card}")
        s["hand"][p] -= 1
        s["tableau"][p].append({"card": card, "used": False, "slot": slot})

    def _a_lay_rada(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = self._laid_card(a)
        self._need_suit(card, "rada")
        sources = self._sources(s, p, [card], allow_tableau=False)
        if any(self.clique[t["card"]].suit == "rada" for t in s["tableau"][p]):
            raise RuleError("You already have a Rada card in your tableau; discard it first.",
                            R["rada_one"])
        slot = self._tableau_slot(s, p, a)
        self._charge(s, p, [card], sources)
        s["hand"][p] -= 1
        s["tableau"][p].append({"card": card, "used": False, "slot": slot})
        value = self.clique[card].value
        s["notices"].append(f"Rada {value} ({self._name(s, p)}): every opponent pays "
                            f"{self._name(s, p)} 1 Skull to play or use a {value}.")

    def _a_discard_tableau(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = self._card(a, "card")
        entry = next((t for t in s["tableau"][p] if t["card"] == card), None)
        if entry is None:
            raise RuleError(f"{card} is not in your tableau.", R["zombie_discard"])
        suit = self.clique[card].suit
        if suit == "zombie" and entry["used"]:
            raise RuleError(f"{card} was used this turn; only unused Zombies may be discarded.",
                            R["zombie_discard"])
        s["tableau"][p].remove(entry)
        s["discard"].append(card)

    def _a_voodoo(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = self._card(a, "card")
        self._need_suit(card, "voodoo")
        effect = require(a, "effect", str)
        sources = self._sources(s, p, [card], allow_tableau=False)
        if effect == "chip":
            spot = self._spot(a, "spot")
            if spot not in s["board"]:
                raise RuleError(f"There is no chip on {self._spot_label(spot)}.", R["voodoo"])
            owner = s["board"][spot]
            if owner != STAFF and self.chip_count(s, owner) <= 2:
                raise RuleError(f"{self._name(s, owner)} has only two chips on the board.",
                                R["two_chips"])
            payee = None if owner in (STAFF, p) else owner
            if payee is None:
                self._charge(s, p, [card], sources, supply=1, supply_why=f"Voodoo {card}")
            else:
                self._charge(s, p, [card], sources, to={payee: 1}, to_why=f"Voodoo {card}")
            del s["board"][spot]
            who = "a Staff chip" if owner == STAFF else f"{self._name(s, owner)}'s chip"
            s["notices"].append(f"Take {who} off {self._spot_label(spot)}.")
        elif effect in ("zombie", "rada"):
            target = require(a, "target", int)
            victim = self._card(a, "victim")
            if not 0 <= target < s["players"] or target == p:
                raise RuleError("A Voodoo Spell that discards a card targets an opponent.",
                                R["voodoo"])
            entry = next((t for t in s["tableau"][target] if t["card"] == victim), None)
            if entry is None or self.clique[victim].suit != effect:
                raise RuleError(f"{victim} is not a {effect.title()} card in "
                                f"{self._name(s, target)}'s tableau.", R["voodoo"])
            self._charge(s, p, [card], sources, to={target: 1}, to_why=f"Voodoo {card}")
            s["tableau"][target].remove(entry)
            s["discard"].append(victim)
            s["notices"].append(f"{self._name(s, target)} discards {victim} from the tableau.")
        else:
            raise MalformedAction("field 'effect' must be 'zombie', 'rada' or 'chip'")
        s["hand"][p] -= 1
        s["discard"].append(card)

    def _a_cheval(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = self._card(a, "card")
        self._need_suit(card, "cheval")
        src = self._spot(a, "from")
        dst = self._spot(a, "to")
        portals = a.get("portals", 0)
        if not isinstance(portals, int) or isinstance(portals, bool) or not 0 <= portals <= 2:
            raise MalformedAction("field 'portals' must be 0, 1 or 2")
        sources = self._sources(s, p, [card], allow_tableau=False)
        self._check_lizard(src)
        self._check_lizard(dst)
        if s["board"].get(src) != p:
            raise RuleError(f"You have no chip on {self._spot_label(src)}.", R["cheval"])
        liz = self.board.lizards[dst]
        if liz.kind not in ("typical", "hipster"):
            raise RuleError(f"{liz.label()} is not a Typical or Hipster Lounge Lizard.",
                            R["cheval"])
        if dst in s["board"]:
            raise RuleError(f"{liz.label()} is not empty.", R["cheval"])
        need = self.jump_cost(src, dst)
        if need is None or need > portals:
            why = "even through the Voodoo Portals" if need is None else "without a Portal"
            raise RuleError(f"{liz.label()} is not two adjacent Lounge Lizards away from "
                            f"{self._spot_label(src)} {why}.", R["cheval"] + " " + R["portal"])
        self._charge(s, p, [card], sources, portal=portals)
        del s["board"][src]
        s["board"][dst] = p
        s["hand"][p] -= 1
        s["discard"].append(card)

    def _a_jivecat(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = self._card(a, "card")
        self._need_suit(card, "jivecat")
        spot = self._spot(a, "spot")
        remove = a.get("remove", [])
        if not isinstance(remove, list) or any(not isinstance(x, str) for x in remove):
            raise MalformedAction("field 'remove' must list spot ids")
        portal = self._flag(a, "portal")
        sources = self._sources(s, p, [card], allow_tableau=False)
        self._check_lizard(spot)
        liz = self.board.lizards[spot]
        if liz.kind != "jivecat":
            raise RuleError(f"{liz.label()} is not a Jivecat Lounge Lizard.", R["jivecat"])
        self._check_placement(s, p, spot, portal)
        if len(remove) != 2 or len(set(remove)) != 2:
            raise RuleError("A Jivecat Spell removes exactly two of your other chips.",
                            R["jivecat"])
        for x in remove:
            if s["board"].get(x) != p:
                raise RuleError(f"You have no chip on {self._spot_label(x)} to remove.",
                                R["jivecat"])
            if self.board.lizards[x].lounge == liz.lounge:
                raise RuleError(f"{self._spot_label(x)} is in the {liz.lounge.title()} Lounge "
                                f"with the new Jivecat.", R["jivecat_lounge"])
        if self.chip_count(s, p) + 1 - 2 < 2:
            raise RuleError("You would be left with fewer than two chips on the board.",
                            R["two_chips"])
        self._charge(s, p, [card], sources, portal=1 if portal else 0)
        s["board"][spot] = p
        both = all(self.board.lizards[x].kind == "jivecat" for x in remove)
        for x in remove:
            del s["board"][x]
        gain = 3 if both else 2
        s["mp"][p] += gain
        s["hand"][p] -= 1
        s["discard"].append(card)
        s["notices"].append(f"{self._name(s, p)} scores {gain} Monkey Points for the Jivecat "
                            f"{liz.label()}; take the chips off "
                            f"{' and '.join(self._spot_label(x) for x in remove)}.")

    # --- Trends
    def _a_claim_trend(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        seen = self._code_field(a) if "code" in a else None
        if "card" not in a and seen is not None:
            raise RuleError(f"A card showing face code {seen.colour} {seen.pips}"
                            f"{self._row_code_name(seen)} lies on your Trend pile, but no Trend "
                            "card left the Trend row.", R["trend_place"] + " " + R["trend_claim"])
        card = require(a, "card", str)
        if card not in self.trend_cards:
            raise MalformedAction(f"{card!r} is not a Trend card")
        if card not in s["trend_row"]:
            raise RuleError(f"{card} is not face up in the Trend row.", R["trend_claim"])
        if seen is not None and seen != self.code_of[card]:
            raise RuleError(f"{card} left the Trend row, but the card on your Trend pile shows "
                            f"face code {seen.colour} {seen.pips}{self._row_code_name(seen)}: "
                            f"put {card} there.", R["trend_place"])
        info = self.trend_cards[card]
        if not self.config_met(s, p, info["config"]):
            raise RuleError(f"Your chips do not show {info['name']}'s configuration "
                            f"({config_text(info['config'])}).", R["trend_claim"])
        slot = s["trend_row"].index(card)
        points = int(self.board.rows["trend"][slot]["points"])
        s["trend_row"][slot] = None
        s["trends"][p].append({"card": card, "active": True, "used": False})
        s["mp"][p] += points
        where = self.board.rows["trend"][slot]["name"]
        s["notices"].append(f"{self._name(s, p)} sets the Trend {info['name']} from {where}: "
                            f"{points} Monkey Point(s).")

    def _a_trend_power(self, s: State, a: Action) -> None:
        p = self._actor(s, a)
        card = require(a, "trend", str)
        if card not in self.trend_cards:
            raise MalformedAction(f"{card!r} is not a Trend card")
        entry = next((t for t in s["trends"][p] if t["card"] == card), None)
        info = self.trend_cards[card]
        if entry is None:
            raise RuleError(f"{info['name']} is not in your tableau.", R["trend_power"])
        if not entry["active"]:
            raise RuleError(f"{info['name']} is inactive: your chips no longer show its "
                            "configuration.", R["trend_power"])
        if entry["used"]:
            raise RuleError(f"{info['name']}'s power was already used this turn.",
                            R["trend_power"])
        power = info["power"]["kind"]
        cost = int(info["power"].get("cost", 0))
        name = self._name(s, p)
        if power == "draw":
            self._pay(s, p, {"supply": cost})
            s["notices"].append(f"{name}: draw 1 Clique card. " + self._draw(s, p, 1))
        elif power == "skull":
            if s["supply"] <= 0:
                raise RuleError("The Skull supply is empty.", R["trend_power"])
            s["supply"] -= 1
            s["skulls"][p] += 1
        elif power == "steal_skull":
            target = self._target(s, a, p)
            if s["skulls"][target] <= 0:
                raise RuleError(f"{self._name(s, target)} has no Skull token.", R["trend_power"])
            s["skulls"][target] -= 1
            s["skulls"][p] += 1
            s["notices"].append(f"{self._name(s, target)} gives {name} 1 Skull.")
        elif power == "move":
            src = self._spot(a, "from")
            dst = self._spot(a, "to")
            self._check_lizard(src)
            self._check_lizard(dst)
            if s["board"].get(src) != p:
                raise RuleError(f"You have no chip on {self._spot_label(src)}.", R["trend_power"])
            liz = self.board.lizards[dst]
            if (dst in s["board"] or liz.kind not in ("typical", "hipster")
                    or dst not in self.board.adj[src]):
                raise RuleError(f"{liz.label()} is not an empty Typical or Hipster Lounge Lizard "
                                f"adjacent to {self._spot_label(src)}.", R["trend_power"])
            self._pay(s, p, {"supply": cost})
            del s["board"][src]
            s["board"][dst] = p
        elif power == "skull_card":
            slot = self._slot(a, s["skull_row"], "Skull")
            self._pay(s, p, {"supply": cost})
            s["skull_discard"].append(s["skull_row"][slot])
            s["skull_row"][slot] = None
        elif power == "trend_discard":
            slot = self._slot(a, s["trend_row"], "Trend")
            self._pay(s, p, {"supply": cost})
            s["trend_discard"].append(s["trend_row"][slot])
            s["trend_row"][slot] = None
        elif power == "staff_remove":
            spot = self._spot(a, "spot")
            if s["board"].get(spot) != STAFF:
                raise RuleError(f"There is no Staff chip on {self._spot_label(spot)}.",
                                R["trend_power"])
            if not any(s["board"].get(x) == p for x in self.board.adj.get(spot, ())):
                raise RuleError(f"The Staff chip on {self._spot_label(spot)} is not adjacent to "
                                "one of your chips.", R["trend_power"])
            self._pay(s, p, {"supply": cost})
            del s["board"][spot]
        elif power == "undermine":
            target = self._target(s, a, p)
            if s["mp"][target] <= s["mp"][p]:
                raise RuleError(f"{self._name(s, target)} does not have more Monkey Points than "
                                "you.", R["trend_power"])
            self._pay(s, p, {"supply": cost})
            s["mp"][target] -= 1
            s["notices"].append(f"{self._name(s, target)} loses 1 Monkey Point ({info['name']}).")
        elif power == "cash_in":
            if s["mp"][p] <= 0:
                raise RuleError("You have no Monkey Point to cash in.", R["trend_power"])
            s["mp"][p] -= 1
            got = min(2, s["supply"])
            s["supply"] -= got
            s["skulls"][p] += got
            s["notices"].append(f"{name} returns 1 Monkey Point and takes {got} Skulls.")
        elif power == "recover":
            card_id = self._card(a, "card")
            if not s["discard"] or s["discard"][-1] != card_id:
                raise RuleError(f"{card_id} is not the top card of the Clique discard pile.",
                                R["trend_power"])
            self._pay(s, p, {"supply": cost})
            s["discard"].pop()
            s["hand"][p] += 1
        else:  # pragma: no cover - the data loader refuses unknown powers
            raise MalformedAction(f"unknown Trend power {power!r}")
        entry["used"] = True

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
            raise RuleError(f"{name} holds only {s['hand'][p]} card(s).", R["hand"])
        for c in discard:
            where = self._clique_location(s, c)
            if where:
                raise RuleError(f"{c} is {where}, not in your hand.", R["public"])
        for x in remove:
            del s["board"][x]
        if remove:
            s["notices"].append(f"{name} returns five chips to the cocktail glass.")
        s["hand"][p] -= len(discard)
        s["discard"].extend(discard)
        need = HAND_SIZE - s["hand"][p]
        if need > 0:
            s["notices"].append(f"{name}: draw {need} Clique card(s) back to four. "
                                + self._draw(s, p, need))
        for t in s["tableau"][p]:
            if t["used"]:
                t["used"] = False
                s["notices"].append(f"{name}: twist {t['card']} back upright.")
        for t in s["trends"][p]:
            t["used"] = False
        if s["skulls"][p] > SKULL_CAP:
            extra = s["skulls"][p] - SKULL_CAP
            s["skulls"][p] = SKULL_CAP
            s["supply"] += extra
            s["notices"].append(f"{name}: return {extra} Skull(s) to the supply (five at most).")
        if s["final_from"] is None and s["mp"][p] >= WIN_MP:
            s["final_from"] = p
            s["notices"].append(f"{name} has {s['mp'][p]} Monkey Points: every other player "
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

    # --- the Staff (2 and 3 players)
    def _a_staff_flip(self, s: State, a: Action) -> None:
        p = self._seat(s, a)
        card = self._card(a, "card")
        staff = s["staff"]
        if s["phase"] != "staff" or staff is None or staff["pending"] or staff["purge_by"] is not None:
            raise RuleError("No Staff card is to be flipped now.", R["staff_flip"])
        if p != s["turn"]:
            raise RuleError(f"{self._name(s, s['turn'])} flips the Staff card.", R["staff_flip"])
        if s["deck"] <= 0:
            self._reshuffle(s)
            s["notices"].append("The Clique deck is exhausted: shuffle the discards into a new "
                                "deck.")
        where = self._clique_location(s, card)
        if where:
            raise RuleError(f"{card} is {where}; it cannot be the top of the deck.", R["public"])
        s["deck"] -= 1
        s["discard"].append(card)
        value = self.clique[card].value
        spots = self.staff_spots(s, value)
        if spots:
            staff["pending"] = {"card": card, "value": value, "spots": spots}
        else:
            staff["flips_left"] -= 1
            s["notices"].append(f"Staff card {card} ({value}): no suitable Lounge Lizard, no Staff "
                                "chip is placed.")
            self._staff_continue(s)

    def _a_staff_place(self, s: State, a: Action) -> None:
        p = self._seat(s, a)
        spot = self._spot(a, "spot")
        staff = s["staff"]
        if s["phase"] != "staff" or staff is None or not staff["pending"]:
            raise RuleError("No Staff chip is waiting to be placed.", R["staff_place"])
        if p != s["turn"]:
            raise RuleError(f"{self._name(s, s['turn'])} places the Staff chip.",
                            R["staff_place"])
        pending = staff["pending"]
        if spot not in pending["spots"]:
            where = ", ".join(self._spot_label(x) for x in pending["spots"])
            raise RuleError(f"The Staff chip for a {pending['value']} goes on one of: {where}; "
                            f"not {self._spot_label(spot)}.", R["staff_place"])
        s["board"][spot] = STAFF
        staff["pending"] = None
        staff["flips_left"] -= 1
        if self.chip_count(s, STAFF) >= STAFF_CHIPS:
            low = min(s["mp"])
            n = s["players"]
            order = [(s["turn"] + k) % n for k in range(n)]
            staff["purge_by"] = next(q for q in order if s["mp"][q] == low)
            s["notices"].append(f"That was the 15th Staff chip: {self._name(s, staff['purge_by'])}"
                                " (lowest score) removes five Staff chips.")
        self._staff_continue(s)

    def _a_staff_remove(self, s: State, a: Action) -> None:
        p = self._seat(s, a)
        spots = a.get("spots")
        if not isinstance(spots, list) or any(not isinstance(x, str) for x in spots):
            raise MalformedAction("field 'spots' must list spot ids")
        staff = s["staff"]
        if staff is None or staff["purge_by"] is None:
            raise RuleError("No Staff chips are to be removed now.", R["staff_15"])
        if p != staff["purge_by"]:
            raise RuleError(f"{self._name(s, staff['purge_by'])} (lowest score) removes the Staff "
                            "chips.", R["staff_15"])
        if len(spots) != 5 or len(set(spots)) != 5 or any(s["board"].get(x) != STAFF
                                                           for x in spots):
            raise RuleError("Remove exactly five Staff chips.", R["staff_15"])
        for x in spots:
            del s["board"][x]
        staff["purge_by"] = None
        self._staff_continue(s)

    def _staff_continue(self, s: State) -> None:
        staff = s["staff"]
        if staff["pending"] or staff["purge_by"] is not None:
            return
        if staff["flips_left"] > 0 and s["deck"] + len(s["discard"]) > 0:
            return
        staff["flips_left"] = 0
        self._begin_turn(s, (s["turn"] + 1) % s["players"])

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
                    notes.append(f"Slide {row.title()} card {c} from {names[i]} down to "
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
        """' (the Skull card skull-03)' for a code a row card carries, '' otherwise."""
        card = self.row_by_code.get(code)
        if card is None:
            return " (no Trend card)"
        deck = "Skull" if card in self.skull_cards else "Trend"
        return f" (the {deck} card {card})"

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
            raise RuleError(f"{card} is a {self.clique[card].suit.title()} card, not a "
                            f"{suit.title()} card.", R["suit"])

    def _name(self, s: State, p: Any) -> str:
        if p == STAFF:
            return "The Staff"
        return COLOURS[int(p)].title()

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

    def jump_cost(self, src: str, dst: str) -> int | None:
        """Fewest Portal openings for a Cheval jump src -> (any lizard) -> dst, or None."""
        if src not in self.board.lizards or dst not in self.board.lizards:
            return None
        return self.board.jumps(src).get(dst)

    def _sources(self, s: State, p: int, cards: list[str],
                 allow_tableau: bool = True) -> list[str]:
        """Where each played card comes from ("hand" or "tableau"); refuse impossible plays."""
        sources = []
        for c in cards:
            own = next((t for t in s["tableau"][p] if t["card"] == c), None)
            if own is not None and allow_tableau:
                if self.clique[c].suit != "zombie":
                    raise RuleError(f"{c} is a Rada in your tableau; only Zombies there are "
                                    "played for their value.", R["card_source"])
                if own["used"]:
                    raise RuleError(f"{c} was already used this turn.", R["zombie_use"])
                sources.append("tableau")
                continue
            where = self._clique_location(s, c)
            if where:
                raise RuleError(f"{c} is {where}, not in your hand.", R["public"])
            sources.append("hand")
        if sources.count("hand") > s["hand"][p]:
            raise RuleError(f"{self._name(s, p)} holds only {s['hand'][p]} card(s).",
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
                    why.setdefault(q, []).append(f"Rada {value} for {c}")
        rada = sum(owed.values())
        if rada > s["skulls"][p]:
            raise RuleError(f"{self._name(s, p)} cannot pay the Rada (needs {rada} Skull(s), "
                            f"has {s['skulls'][p]}).", R["rada_pay"])
        parts = [supply_why] if supply else []
        zombies = [c for c, src in zip(cards, sources, strict=True) if src == "tableau"]
        parts += [f"Zombie {z}" for z in zombies]
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
            raise RuleError(f"{self._name(s, p)} needs {total} Skull(s) and has "
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

    def staff_spots(self, s: State, value: int) -> list[str]:
        """Unclaimed lizards a Staff chip for ``value`` may take (a 1 goes to a Jivecat)."""
        anchors = set(self.board.staff_next)
        for spot, owner in s["board"].items():
            if owner == STAFF:
                anchors |= self.board.adj[spot]
        out = []
        for spot in sorted(anchors):
            liz = self.board.lizards[spot]
            if spot in s["board"]:
                continue
            if (value == 1 and liz.kind == "jivecat") or (value != 1 and liz.number == value):
                out.append(spot)
        return out

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
        return [a for a in out if self.is_legal(s, a)]

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

    def _voodoo_options(self, s: State, p: int, card: str) -> list[Action]:
        out: list[Action] = [{"type": "voodoo", "player": p, "card": card, "effect": "chip",
                              "spot": x} for x in sorted(s["board"])]
        for q in range(s["players"]):
            if q == p:
                continue
            for t in s["tableau"][q]:
                suit = self.clique[t["card"]].suit
                out.append({"type": "voodoo", "player": p, "card": card, "effect": suit,
                            "target": q, "victim": t["card"]})
        return out

    def _cheval_options(self, s: State, p: int, card: str) -> list[Action]:
        out = []
        for src in self.chips_of(s, p):
            for dst, need in sorted(self.board.jumps(src).items()):
                if dst in s["board"] or self.board.lizards[dst].kind not in ("typical", "hipster"):
                    continue
                if need is not None:
                    out.append({"type": "cheval", "player": p, "card": card, "from": src,
                                "to": dst, "portals": need})
        return out

    def _jivecat_options(self, s: State, p: int, card: str) -> list[Action]:
        out = []
        chips = self.chips_of(s, p)
        for spot, liz in self.board.lizards.items():
            if liz.kind != "jivecat" or spot in s["board"]:
                continue
            how = self.reach(s, p, spot)
            away = [c for c in chips if self.board.lizards[c].lounge != liz.lounge]
            if how is None or len(away) < 2:
                continue
            away.sort(key=lambda c: self.board.lizards[c].kind != "jivecat")
            out.append({"type": "jivecat", "player": p, "card": card, "spot": spot,
                        "remove": away[:2], "portal": how == 1})
        return out

    def _power_options(self, s: State, p: int, trend: str) -> list[Action]:
        power = self.trend_cards[trend]["power"]["kind"]
        base = {"type": "trend_power", "player": p, "trend": trend}
        others = [q for q in range(s["players"]) if q != p]
        if power in ("draw", "skull", "cash_in"):
            return [base]
        if power in ("steal_skull", "undermine"):
            return [{**base, "target": q} for q in others]
        if power == "move":
            return [{**base, "from": a, "to": b} for a in self.chips_of(s, p)
                    for b in sorted(self.board.adj[a])
                    if b not in s["board"] and self.board.lizards[b].kind in ("typical", "hipster")]
        if power == "skull_card":
            return [{**base, "slot": i} for i in range(3) if s["skull_row"][i]]
        if power == "trend_discard":
            return [{**base, "slot": i} for i in range(3) if s["trend_row"][i]]
        if power == "staff_remove":
            return [{**base, "spot": k} for k, v in sorted(s["board"].items()) if v == STAFF]
        if power == "recover":
            return [{**base, "card": s["discard"][-1]}] if s["discard"] else []
        return []  # pragma: no cover

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
            return Outcome(winners, f"{names} wins with {best[0]} Monkey Points and is crowned "
                                    "King or Queen of the Voodoo Lounge.")
        for level, label in enumerate(TIE_BREAKERS, start=1):
            top = max(keys[q][: level + 1] for q in tied)
            tied = [q for q in tied if keys[q][: level + 1] == top]
            if len(tied) == 1:
                return Outcome(winners, f"{names} wins the tie at {best[0]} Monkey Points on "
                                        f"tie-breaker {level}: {label}.")
        return Outcome(winners, f"{names} share the win at {best[0]} Monkey Points, tied on all "
                                "three tie-breakers.")

    def prompts(self, state: State) -> list[Prompt]:
        s = state
        out: list[Prompt] = []
        phase = s["phase"]
        if phase == "over":
            o = self.outcome(s)
            return [Prompt(o.reason if o else "Game over.", "info")]
        p = self.current_player(s)
        name = self._name(s, p)
        if phase == "setup":
            if s["setup_queue"]:
                out.append(Prompt(f"{name}: put a chip on an empty Starter Lounge Lizard "
                                  "(white balloon), then press the turn button.", "turn", p))
            else:
                out.append(Prompt("Flip the Skull and Trend cards face up onto their positions, "
                                  "one at a time.", "turn", p))
        elif phase == "staff":
            staff = s["staff"]
            if staff["purge_by"] is not None:
                out.append(Prompt(f"{name} (lowest score): remove five Staff chips from the "
                                  "board, then press the turn button.", "turn", p))
            elif staff["pending"]:
                pend = staff["pending"]
                where = ", ".join(self._spot_label(x) for x in pend["spots"])
                out.append(Prompt(f"{name}: place a Staff chip for the {pend['value']} "
                                  f"({pend['card']}) on one of: {where}; then press the turn "
                                  "button.", "turn", p))
            else:
                total = 2 if s["players"] == 2 else 1
                k = total - staff["flips_left"] + 1
                out.append(Prompt(f"{name}: flip the top Clique card for the Staff ({k} of "
                                  f"{total}) and tap it on the shared reader.", "turn", p))
        else:
            if s["refill"]["skull"] or s["refill"]["trend"]:
                out.append(Prompt(f"{name}'s turn: first slide and refill the Skull and Trend "
                                  "rows.", "turn", p))
            else:
                out.append(Prompt(
                    f"{name}'s turn: buy drinks (chip on the board + tap the cards), cast spells "
                    "(tap the card), claim Trends (tap the Trend card); press the turn button "
                    "after each; press it with nothing new to end the turn (declare end_turn to "
                    "discard cards).", "turn", p))
        for note in s["row_notes"]:
            out.append(Prompt(note, "chore", p))
        for note in s["notices"]:
            out.append(Prompt(note, "chore", p))
        if phase == "play" and self.chip_count(s, p) >= CHIPS:
            out.append(Prompt(f"{name} has all 15 chips on the board: remove five chips before "
                              "ending the turn.", "chore", p))
        for q in range(s["players"]):
            for t in s["tableau"][q]:
                if self.clique[t["card"]].suit == "rada":
                    v = self.clique[t["card"]].value
                    out.append(Prompt(f"Rada {v} ({self._name(s, q)}): opponents pay "
                                      f"{self._name(s, q)} 1 Skull to play or use a {v}.", "info"))
        if s["final_from"] is not None:
            out.append(Prompt(f"Last round: {self._name(s, s['final_from'])} reached "
                              f"{WIN_MP} Monkey Points.", "info"))
        return out

    def summary(self, state: State) -> dict[str, Any]:
        s = state
        players = []
        for q in range(s["players"]):
            players.append({
                "seat": q,
                "name": self._name(s, q),
                "colour": COLOURS[q],
                "monkey_points": s["mp"][q],
                "skulls": s["skulls"][q],
                "hand": s["hand"][q],
                "chips_on_board": self.chip_count(s, q),
                "chips_in_glass": CHIPS - self.chip_count(s, q),
                "tableau": [{"card": t["card"], "suit": self.clique[t["card"]].suit,
                             "value": self.clique[t["card"]].value, "twisted": t["used"]}
                            for t in s["tableau"][q]],
                "trends": [{"card": t["card"], "name": self.trend_cards[t["card"]]["name"],
                            "active": t["active"], "used": t["used"]} for t in s["trends"][q]],
                "active_trends": sum(1 for t in s["trends"][q] if t["active"]),
                "bonus": s["bonus"][q] if s["bonus"] else None,
            })
        skull_row = []
        for i, c in enumerate(s["skull_row"]):
            info = self.skull_cards.get(c) if c else None
            skull_row.append({"position": self.board.rows["skull"][i]["name"],
                              "skulls": self.board.rows["skull"][i]["skulls"], "card": c,
                              "number": info["number"] if info else None,
                              "lounges": info["lounges"] if info else None})
        trend_row = []
        for i, c in enumerate(s["trend_row"]):
            info = self.trend_cards.get(c) if c else None
            trend_row.append({"position": self.board.rows["trend"][i]["name"],
                              "points": self.board.rows["trend"][i]["points"], "card": c,
                              "name": info["name"] if info else None,
                              "needs": config_text(info["config"]) if info else None,
                              "power": power_text(info["power"]) if info else None})
        staff = None
        if s["staff"] is not None:
            on = self.chip_count(s, STAFF)
            st = s["staff"]
            staff = {"on_board": on, "in_supply": STAFF_CHIPS - on,
                     "flips_left": st["flips_left"],
                     "flip_card": st["pending"]["card"] if st["pending"] else None,
                     "wants": st["pending"]["value"] if st["pending"] else None,
                     "legal_spots": list(st["pending"]["spots"]) if st["pending"] else [],
                     "purge_by": (self._name(s, st["purge_by"])
                                  if st["purge_by"] is not None else None)}
        chores = [p.text for p in self.prompts(s) if p.kind == "chore"]
        return {
            "players": players,
            "turn": self._name(s, s["turn"]) if s["phase"] != "over" else None,
            "turn_no": s["turn_no"],
            "phase": s["phase"],
            "skull_row": skull_row,
            "trend_row": trend_row,
            "decks": {"clique": s["deck"], "clique_discard": len(s["discard"]),
                      "clique_discard_top": s["discard"][-1] if s["discard"] else None,
                      "reshuffles": s["reshuffles"], "skull": s["skull_deck"],
                      "trend": s["trend_deck"]},
            "skull_supply": s["supply"],
            "staff": staff,
            "chores": chores,
            "final_round": s["final_from"] is not None,
        }

    # ------------------------------------------------------------------ the physical table
    def layout(self, state: State) -> Layout:
        b = self.board
        spots: list[Spot] = []
        h = b.spot_mm / 2
        for liz in b.lizards.values():
            if liz.kind == "jivecat":
                label, fill = "J", "dark_fill"
            elif liz.kind == "hipster":
                label, fill = f"{liz.number}*", "light_fill"
            elif liz.kind == "starter":
                label, fill = f"({liz.number})", "light_fill"
            else:
                label, fill = str(liz.number), "board"
            spots.append(Spot(liz.id, liz.x - h, liz.y - h, b.spot_mm, b.spot_mm, label, fill))
        sh = b.staff_mm / 2
        for sid, sp in b.staff.items():
            spots.append(Spot(sid, sp["x"] - sh, sp["y"] - sh, b.staff_mm, b.staff_mm, "Staff",
                              "dark_fill"))
        for pid, pt in b.portals.items():
            spots.append(Spot(pid, pt["x"] - h, pt["y"] - h, b.spot_mm, b.spot_mm, "Portal",
                              "dark_fill"))
        for row in ROWS:
            for i, slot in enumerate(b.rows[row]):
                spots.append(Spot(f"{row}-{i}", slot["x"], slot["y"], slot["w"], slot["h"],
                                  slot["name"], "light_fill"))
        names = self.player_names(state)
        for q in range(state["players"]):
            for k, (x, y) in enumerate(b.tab_seats[q][: b.tab_slots]):
                spots.append(Spot(tableau_spot(q, k), x, y, b.tab_w, b.tab_h,
                                  names[q] if k == 0 else "", "light_fill"))
            if q < len(b.trend_piles):
                x, y = b.trend_piles[q]
                spots.append(Spot(trend_pile(q), x, y, b.tab_w, b.tab_h, "Trends",
                                  "light_fill"))
        pieces = {c: f"{c.title()} player's chips" for c in COLOURS[: state["players"]]}
        if state["players"] <= 3:
            pieces[STAFF_COLOUR] = "Staff chips"
        shapes = {c: "disc" for c in pieces}
        for c in CODE_COLOURS:
            pieces[c] = "face code of a card in a row or a tableau (colour and pips)"
            shapes[c] = "square"
        return Layout(b.width, b.height, tuple(spots), pieces, shapes)

    def board_view(self, state: State) -> BoardView:
        s = state
        items: dict[str, list[Piece]] = {
            spot: [Piece(STAFF_COLOUR if owner == STAFF else COLOURS[owner])]
            for spot, owner in s["board"].items()}
        for row in ROWS:
            for i, card in enumerate(s[f"{row}_row"]):
                if card is not None:
                    items[f"{row}-{i}"] = [self.code_of[card]]
        for q in range(s["players"]):
            for k, card in self.tableau_slots(s, q).items():
                items[tableau_spot(q, k)] = [self.code_of[card]]
            if s["trends"][q] and q < len(self.board.trend_piles):
                items[trend_pile(q)] = [self.code_of[s["trends"][q][-1]["card"]]]
        return make_view(items)

    def explain(self, state: State, seen: BoardView, taps: list[Tap],
                trigger: Trigger) -> list[Action]:
        s = state
        phase = s["phase"]
        if phase == "over":
            return []
        expected = self.board_view(s)
        cards_came, cards_gone = self._card_changes(s, expected, seen)
        if trigger == "tap":
            return self._explain_tap(s, taps)
        claim = self._explain_claim(s, cards_came, cards_gone, taps)
        if claim is not None:
            return claim
        if trigger == "board":
            return self._explain_rows(s, cards_came)
        p = self.current_player(s)
        if any(k.startswith(("skull-", "trend-")) for k in cards_came):
            return self._explain_rows(s, cards_came)
        if phase == "play" and cards_came:
            return self._explain_lay(s, p, cards_came, cards_gone, taps)
        if phase == "play" and not cards_came and len(cards_gone) == 1:
            spot = next(iter(cards_gone))
            if spot.startswith("tableau-"):
                return self._explain_tableau_gone(s, p, spot, taps)
        colour = {COLOURS[q]: q for q in range(s["players"])}
        colour[STAFF_COLOUR] = STAFF
        added: list[tuple[Any, str]] = []
        removed: list[tuple[Any, str]] = []
        chips_before = {k: v for k, v in expected.items() if not is_card_spot(k)}
        chips_seen = {k: v for k, v in seen.items() if not is_card_spot(k)}
        for move in diff_views(chips_before, chips_seen):
            who = colour.get(move.piece.colour, move.piece.colour)
            if move.source is not None:
                removed.append((who, move.source))
            if move.target is not None:
                added.append((who, move.target))
        cards = []
        for t in taps:
            if t.card in self.clique and t.seat in (None, p) and t.card not in cards:
                cards.append(t.card)
        if phase == "setup":
            if len(added) == 1 and not removed and s["setup_queue"]:
                return [{"type": "place_starter", "player": added[0][0]
                         if isinstance(added[0][0], int) else p, "spot": added[0][1]}]
            return []
        if phase == "staff":
            staff = s["staff"]
            if staff["purge_by"] is not None and not added and len(removed) == 5:
                return [{"type": "staff_remove", "player": p,
                         "spots": sorted(x for _, x in removed)}]
            if staff["pending"] and len(added) == 1 and not removed:
                return [{"type": "staff_place", "player": p, "spot": added[0][1]}]
            return []
        return self._explain_play(s, p, added, removed, cards)

    def _card_changes(self, s: State, expected: BoardView, seen: BoardView
                      ) -> tuple[dict[str, Piece], dict[str, Piece]]:
        """Cards that appeared on / left a row or tableau position, spot by spot.

        A position holds one card, so a card is compared per position, never paired
        across spots (a Clique code may equal a row card's code).
        """
        came: dict[str, Piece] = {}
        gone: dict[str, Piece] = {}
        for spot in sorted(set(expected) | set(seen)):
            if not is_card_spot(spot):
                continue
            old = expected.get(spot, ())
            new = seen.get(spot, ())
            if old == new:
                continue
            if old:
                gone[spot] = old[0]
            if new:
                came[spot] = new[-1]
        return came, gone

    def _explain_claim(self, s: State, came: dict[str, Piece], gone: dict[str, Piece],
                       taps: list[Tap]) -> list[Action] | None:
        """A card newly on top of a seat's Trend pile: that seat claims the card that left
        the Trend row (the pile's code must be that card's).  None: no pile changed."""
        piles = [k for k in came if k.startswith("trends-")]
        if not piles:
            return None
        if len(piles) != 1 or s["phase"] != "play":
            return []
        spot = piles[0]
        seat = int(spot.split("-")[1])
        piece = came[spot]
        code = [piece.colour, piece.pips]
        left = [k for k in gone if k.startswith("trend-")]
        if len(left) > 1:
            return []
        if not left:
            return [{"type": "claim_trend", "player": seat, "code": code}]
        card = s["trend_row"][int(left[0].split("-")[1])]
        tapped = [t.card for t in taps if t.card in self.trend_cards and t.seat in (None, seat)
                  and t.card in s["trend_row"]]  # a tap confirming an earlier claim is stale
        if card is None or (tapped and tapped[-1] != card):
            return []  # the tap names another Trend card: ask, do not guess
        return [{"type": "claim_trend", "player": seat, "card": card, "code": code}]

    def _explain_rows(self, s: State, came: dict[str, Piece]) -> list[Action]:
        """A stable board with a card on an empty row position: that card was flipped up."""
        for spot, piece in came.items():
            row, _, index = spot.partition("-")
            if row not in ROWS:
                continue
            if s[f"{row}_row"][int(index)] is not None:
                continue  # a card swapped for another: wait for the button or a correction
            code = [piece.colour, piece.pips]
            card = self.row_by_code.get(piece)
            known = self.skull_cards if row == "skull" else self.trend_cards
            if card is not None and card in known:
                return [{"type": "reveal", "row": row, "card": card, "slot": int(index)}]
            return [{"type": "reveal", "row": row, "code": code, "slot": int(index)}]
        return []

    def _explain_lay(self, s: State, p: int, came: dict[str, Piece], gone: dict[str, Piece],
                     taps: list[Tap]) -> list[Action]:
        """A Zombie or Rada laid on a tableau position (with its tap, or none)."""
        if len(came) != 1 or gone:
            return []
        spot, piece = next(iter(came.items()))
        seat, slot = tableau_seat(spot)
        card = self.clique_by_code.get(piece)
        base: Action = {"player": seat, "slot": slot}
        if card is None:
            return [{"type": "lay_zombie", **base, "code": [piece.colour, piece.pips]}]
        tapped = [t.card for t in taps if t.card in self.clique]
        if tapped and tapped[-1] != card:
            return []  # the tap names another card: ask, do not guess
        suit = self.clique[card].suit
        if suit == "rada":
            return [{"type": "lay_rada", **base, "card": card}]
        if suit == "zombie":
            return [{"type": "lay_zombie", **base, "card": card}]
        return [{"type": "lay_zombie", **base, "card": card},
                {"type": "lay_rada", **base, "card": card}]

    def _explain_tableau_gone(self, s: State, p: int, spot: str, taps: list[Tap]
                              ) -> list[Action]:
        """A tableau card left the table: its owner discarded it, or a Voodoo Spell did."""
        seat, slot = tableau_seat(spot)
        card = self.tableau_slots(s, seat).get(slot)
        if card is None:
            return []
        voodoo = [t.card for t in taps if t.card in self.clique
                  and self.clique[t.card].suit == "voodoo" and t.seat in (None, p)]
        if seat == p and not voodoo:
            return [{"type": "discard_tableau", "player": p, "card": card}]
        if seat != p and len(set(voodoo)) == 1:
            return [{"type": "voodoo", "player": p, "card": voodoo[0],
                     "effect": self.clique[card].suit, "target": seat, "victim": card}]
        return []

    def _explain_tap(self, s: State, taps: list[Tap]) -> list[Action]:
        if not taps:
            return []
        tap = taps[-1]
        card = tap.card
        phase = s["phase"]
        for row, known in (("skull", self.skull_cards), ("trend", self.trend_cards)):
            if card in known and s["refill"][row]:
                return [{"type": "reveal", "row": row, "card": card}]
        if card in self.trend_cards and phase == "play":
            seat = tap.seat if tap.seat is not None else s["turn"]
            if 0 <= seat < s["players"] and any(t["card"] == card for t in s["trends"][seat]):
                return []  # the tap confirms a claim the camera already recorded
            return [{"type": "claim_trend", "player": seat, "card": card}]
        if (card in self.clique and phase == "staff" and s["staff"]["purge_by"] is None
                and not s["staff"]["pending"] and tap.seat in (None, s["turn"])):
            return [{"type": "staff_flip", "player": s["turn"], "card": card}]
        return []

    def _explain_play(self, s: State, p: int, added: list[tuple[Any, str]],
                      removed: list[tuple[Any, str]], cards: list[str]) -> list[Action]:
        own_added = [x for who, x in added if who == p]
        own_removed = [x for who, x in removed if who == p]
        if not added and not removed:
            if not cards:
                return [{"type": "end_turn", "player": p}]
            if len(cards) != 1:
                return []
            card = cards[0]
            suit = self.clique[card].suit
            if any(t["card"] == card for t in s["tableau"][p]):
                return []
            if suit == "zombie":
                return [{"type": "lay_zombie", "player": p, "card": card}]
            if suit == "rada":
                return [{"type": "lay_rada", "player": p, "card": card}]
            if suit == "voodoo":
                return [o for o in self._voodoo_options(s, p, card) if o["effect"] != "chip"]
            return []
        if len(added) == 1 and not removed:
            who, spot = added[0]
            if who != p:
                return self._wrong_colour(who, spot)
            if spot in self.board.lizards and self.board.lizards[spot].kind == "jivecat" and (
                    cards and self.clique[cards[0]].suit == "jivecat" and len(cards) == 1):
                return [{"type": "jivecat", "player": p, "card": cards[0], "spot": spot,
                         "remove": [], "portal": self.reach(s, p, spot) == 1}]
            return [self._buy_candidate(s, p, cards, spot)]
        if len(own_added) == 1 and len(own_removed) == 2 and len(added) == 1 and len(removed) == 2:
            spot = own_added[0]
            card = cards[0] if cards else ""
            if not card:
                return []
            return [{"type": "jivecat", "player": p, "card": card, "spot": spot,
                     "remove": sorted(own_removed), "portal": self.reach(s, p, spot) == 1}]
        if len(own_added) == 1 and len(own_removed) == 1 and len(added) == 1 and len(removed) == 1:
            src, dst = own_removed[0], own_added[0]
            if cards:
                need = self.jump_cost(src, dst)
                return [{"type": "cheval", "player": p, "card": cards[0], "from": src, "to": dst,
                         "portals": need or 0}]
            return [{"type": "trend_power", "player": p, "trend": t["card"], "from": src,
                     "to": dst} for t in s["trends"][p]
                    if self.trend_cards[t["card"]]["power"]["kind"] == "move"]
        if not added and len(removed) == 1:
            who, spot = removed[0]
            if cards:
                return [{"type": "voodoo", "player": p, "card": cards[0], "effect": "chip",
                         "spot": spot}]
            if who == STAFF:
                return [{"type": "trend_power", "player": p, "trend": t["card"], "spot": spot}
                        for t in s["trends"][p]
                        if self.trend_cards[t["card"]]["power"]["kind"] == "staff_remove"]
            return []
        if not added and len(own_removed) == 5 and len(removed) == 5 and not cards:
            return [{"type": "end_turn", "player": p, "remove": sorted(own_removed)}]
        return []

    def _wrong_colour(self, who: Any, spot: str) -> list[Action]:
        """A chip of another colour appeared: its buy is refused as out of turn."""
        if isinstance(who, int):
            return [{"type": "buy", "player": who, "cards": [], "spot": spot}]
        return []

    def _buy_candidate(self, s: State, p: int, cards: list[str], spot: str) -> Action:
        liz = self.board.lizards.get(spot)
        signs = [1] * len(cards)
        if liz is not None and liz.number is not None and cards:
            found = find_signs([self.clique[c].value for c in cards], liz.number)
            if found is not None:
                signs = found
        portal = liz is not None and self.reach(s, p, spot) == 1
        return {"type": "buy", "player": p, "cards": cards, "signs": signs, "spot": spot,
                "portal": portal}

    def describe(self, state: State, action: Action) -> str:
        try:
            return self._describe(state, action)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            fields = ", ".join(f"{k}={v}" for k, v in action.items() if k != "type")
            return f"table: {action.get('type')} {fields}".strip()

    def _describe(self, s: State, a: Action) -> str:
        kind = a.get("type")
        who = a.get("player")
        name = self._name(s, who) if isinstance(who, int) and 0 <= who < s["players"] else "Table"
        spot = self._spot_label
        if kind == "buy":
            values = [self.clique[c].value for c in a["cards"]]
            signs = a.get("signs", [1] * len(values))
            expr = expression(signs, values) if values else "no card"
            via = " through a Voodoo Portal" if a.get("portal") else ""
            return f"{name} buys a drink ({expr}) for {spot(a['spot'])}{via}"
        if kind == "place_starter":
            return f"{name} starts on {spot(a['spot'])}"
        if kind == "first_player":
            return f"{name} goes first"
        card = a.get("card") or "showing code {} {}".format(*a.get("code", ["?", "?"]))
        if kind == "reveal":
            return f"{a['row'].title()} card {card} flipped face up"
        if kind == "lay_zombie":
            return f"{name} lays Zombie {card}"
        if kind == "lay_rada":
            return f"{name} lays Rada {card}"
        if kind == "discard_tableau":
            return f"{name} discards {a['card']} from the tableau"
        if kind == "voodoo":
            if a["effect"] == "chip":
                return f"{name} casts Voodoo {a['card']}: chip off {spot(a['spot'])}"
            return (f"{name} casts Voodoo {a['card']}: {self._name(s, a['target'])} discards "
                    f"{a['victim']}")
        if kind == "cheval":
            return f"{name} casts Cheval {a['card']}: {spot(a['from'])} -> {spot(a['to'])}"
        if kind == "jivecat":
            rem = " and ".join(spot(x) for x in a.get("remove", []))
            return f"{name} casts Jivecat {a['card']} onto {spot(a['spot'])}, dropping {rem}"
        if kind == "claim_trend" and "card" not in a:
            return f"{name} puts a card {card} on the Trend pile"
        if kind == "claim_trend":
            return f"{name} sets the Trend {self.trend_cards[a['card']]['name']}"
        if kind == "trend_power":
            return f"{name} uses {self.trend_cards[a['trend']]['name']}"
        if kind == "end_turn":
            extra = f", discarding {len(a['discard'])}" if a.get("discard") else ""
            return f"{name} ends the turn{extra}"
        if kind == "staff_flip":
            return f"Staff card {a['card']} ({self.clique[a['card']].value}) flipped"
        if kind == "staff_place":
            return f"Staff chip placed on {spot(a['spot'])}"
        if kind == "staff_remove":
            return f"{name} removes five Staff chips"
        return super().describe(s, a)

    def card_ids(self) -> list[str]:
        return list(self.clique) + list(self.skull_cards) + list(self.trend_cards)


# --------------------------------------------------------------------------- helpers


def face_code(card: dict[str, Any]) -> Piece:
    """The [colour, pips] printed (or stuck) on a card, checked against the palette."""
    raw = card.get("face_code")
    if (not isinstance(raw, list) or len(raw) != 2 or raw[0] not in CODE_COLOURS
            or not isinstance(raw[1], int) or not 0 <= raw[1] <= MAX_CODE_PIPS):
        raise ValueError(f"card data: {card.get('id')} needs a face_code [colour, 0-"
                         f"{MAX_CODE_PIPS}] with a colour of {CODE_COLOURS}")
    return Piece(raw[0], raw[1])


def tableau_spot(seat: int, slot: int) -> str:
    return f"tableau-{seat}-{slot}"


def trend_pile(seat: int) -> str:
    """The spot where ``seat`` stacks its claimed Trend cards (top card face up)."""
    return f"trends-{seat}"


def tableau_seat(spot: str) -> tuple[int, int]:
    """(seat, position) of a tableau spot id."""
    _, seat, slot = spot.split("-")
    return int(seat), int(slot)


def is_card_spot(spot: str) -> bool:
    """Row and tableau positions hold cards (read by face code), not chips."""
    return spot.startswith(("skull-", "trend-", "tableau-", "trends-"))


def snake(first: int, n: int) -> list[int]:
    """Starter placement order: clockwise from the first player, then back."""
    order = [(first + k) % n for k in range(n)]
    return order + order[::-1]


def skulls(n: int) -> str:
    return f"{n} Skull" + ("" if n == 1 else "s")


def expression(signs: list[int], values: list[int]) -> str:
    """'7+5-2' for signs [1, 1, -1] and values [7, 5, 2]."""
    out = ""
    for i, (sg, v) in enumerate(zip(signs, values, strict=True)):
        if i == 0:
            out += f"{'-' if sg < 0 else ''}{v}"
        else:
            out += f"{'+' if sg > 0 else '-'}{v}"
    return out


def find_signs(values: list[int], target: int) -> list[int] | None:
    """Signs that make the card values add up to ``target`` (all plus first), or None."""
    for signs in itertools.product((1, -1), repeat=len(values)):
        if sum(sg * v for sg, v in zip(signs, values, strict=True)) == target:
            return list(signs)
    return None


def largest_group(chips: list[str], adj: dict[str, frozenset[str]]) -> int:
    """Size of the largest connected group of chips."""
    left = set(chips)
    best = 0
    while left:
        stack = [left.pop()]
        size = 1
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if y in left:
                    left.remove(y)
                    stack.append(y)
                    size += 1
        best = max(best, size)
    return best


def config_text(config: dict[str, Any]) -> str:
    return CONFIG_TEXT[config["kind"]].format(n=config["n"])


def power_text(power: dict[str, Any]) -> str:
    return POWER_TEXT[power["kind"]].format(cost=power.get("cost", 0))
