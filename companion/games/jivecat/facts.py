"""Swinging Jivecat Voodoo Lounge: the game's facts as data.

Numbers and rule quotes from the rulebook, the texts of Trend configurations and
powers, the board graph read from ``data/jivecat.json`` (a marked reconstruction
a user may replace) and small pure helpers on spots, cards and sums.  Every
other module of the game reads its facts from here.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.games.base import Piece

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
SKULL_COLOUR = "black"
"""Skull tokens on a player's mat: black squares without pips (black is a card face code
colour too, but a mat holds no cards)."""
MONKEY_WORTH = {"blue": 5, "orange": 1}
"""Monkey Points by a Monkey's colour (rulebook: "Orange = 1 Monkey Pt. Blue = 5 Monkey Pts.")."""
LINE_COS = 0.85
"""cos 30 degrees-ish: a Cheval jump that turns less than this runs on in a line."""

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
    "cheval_portal": "As usual, you may activate a Voodoo Portal (by paying 1 Skull) to create a "
    "temporary adjacency to the Lounge Lizard you are jumping over, or to the Lounge Lizard you "
    "are landing on.",
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
    where: str = ""
    """Which of the Lounge's same-numbered spots this is, in words ("2nd from the left");
    empty when its number is the only one of its Lounge."""

    def name(self) -> str:
        """The spot as printed: its Lounge and number (or Jivecat glass)."""
        what = f"{self.glass} Jivecat".strip() if self.kind == "jivecat" else str(self.number)
        return f"{self.lounge.title()} {what}"

    def label(self) -> str:
        """The printed name, told apart from a same-named spot by its place, never by an id."""
        return f"{self.name()} ({self.where})" if self.where else self.name()


ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th")


def _places(same: list[Lizard]) -> list[str]:
    """Words that tell same-named spots apart: their order from the left, else from the top,
    else their order row by row as read; more than eight: the board's own id."""
    xs, ys = [round(liz.x) for liz in same], [round(liz.y) for liz in same]
    if len(same) <= len(ORDINALS):
        for coords, side in ((xs, "from the left"), (ys, "from the top")):
            if len(set(coords)) == len(same):
                rank = sorted(coords)
                return [f"{ORDINALS[rank.index(c)]} {side}" for c in coords]
        order = sorted(range(len(same)), key=lambda i: (ys[i], xs[i]))  # row by row, as read
        return [f"{ORDINALS[order.index(i)]} of {len(same)}, row by row from the top"
                for i in range(len(same))]
    return [f"spot {liz.id}" for liz in same]


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
        named: dict[str, list[Lizard]] = {}
        for liz in self.lizards.values():
            named.setdefault(liz.name(), []).append(liz)
        for same in named.values():
            if len(same) > 1:
                for liz, where in zip(same, _places(same), strict=True):
                    self.lizards[liz.id] = replace(liz, where=where)
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
        self.mats: dict[str, Any] = dict(raw["mats"])
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

    def jumps(self, src: str, line: bool = False) -> dict[str, int]:
        """Lizards two steps from ``src`` (a Cheval jump) with the fewest Portals needed.

        ``line``: the house rule that reads the jump as one over a single Lounge Lizard, in a
        line away from the start; two plain steps must then run on (see :meth:`in_line`), a
        step through a Portal has no direction on the board and is not held to it.
        """
        key = f"{src}|{'line' if line else 'path'}"
        if key not in self._jumps:
            best: dict[str, int] = {}
            for mid, c1 in self.steps(src).items():
                for dst, c2 in self.steps(mid).items():
                    if dst == src or c1 + c2 >= best.get(dst, 3):
                        continue
                    if line and c1 == 0 and c2 == 0 and not self.in_line(src, mid, dst):
                        continue
                    best[dst] = c1 + c2
            self._jumps[key] = best
        return self._jumps[key]

    def in_line(self, src: str, mid: str, dst: str) -> bool:
        """Does ``src`` -> ``mid`` -> ``dst`` run on in one direction, away from ``src``?

        On the board's staggered rows the six neighbour directions are about 60 degrees
        apart, so a turn of under ~30 degrees is straight on.  A jump over a Private Party
        (every lizard touching it is adjacent to its members) only has to land beyond it.
        """
        a, m, d = self.lizards[src], self.lizards[mid], self.lizards[dst]
        ux, uy = m.x - a.x, m.y - a.y
        vx, vy = d.x - m.x, d.y - m.y
        if mid in self.party_of:
            return ux * (d.x - a.x) + uy * (d.y - a.y) > 0 and \
                math.hypot(d.x - a.x, d.y - a.y) > math.hypot(ux, uy)
        norm = math.hypot(ux, uy) * math.hypot(vx, vy)
        return norm > 0 and (ux * vx + uy * vy) / norm >= LINE_COS

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


def mat_place(seat: int, kind: str, i: int) -> str:
    """The i-th place of ``kind`` ("skull", "five", "one") on ``seat``'s mat."""
    return f"mat{seat}-{kind}{i}"


def is_mat_place(spot: str) -> bool:
    """A place of a player's mat (Skull tokens and Monkeys: score pieces, never a move)."""
    return spot.startswith("mat")


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
