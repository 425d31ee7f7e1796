"""Jivecat's scripted players on their turn: claims, powers, Jivecats, buys, spells.

A part of :class:`~companion.sim.players.jivecat.JivecatWorld` (the world keeps the truth
and the table; these are its players' choices), apart so that neither is one long class.
"""

from __future__ import annotations

import itertools
from typing import Any

from companion.games.base import (
    Action,
    State,
)
from companion.games.jivecat import JivecatGame
from companion.games.jivecat.facts import (
    CHIPS,
    HAND_SIZE,
    STAFF,
    find_signs,
)
from companion.sim.world import (
    BoardChange,
    CardTap,
    Declare,
    PhysicalEvent,
    TurnButton,
)

MOVES_PER_TURN = 6
SEEN_POWERS = ("move", "staff_remove", "skull_card", "trend_discard")
"""Trend powers whose whole effect lies on the table (ACTIONS.md: camera + button)."""


class JivecatTurns:
    """A Jivecat player's turn, made on the world's table (its state, hands and decks)."""

    rules: JivecatGame
    state: State
    hands: list[list[str]]
    players: int
    rng: Any
    pending: Action | None

    # ------------------------------------------------------------------ a player's turn
    def _turn(self, p: int) -> list[PhysicalEvent]:
        if self.moves < MOVES_PER_TURN:
            for plan in (self._claim, self._powers, self._jivecat, self._buy, self._spell):
                events = plan(p)
                if events:
                    self.moves += 1
                    return events
        return self._end_turn(p)

    def _claim(self, p: int) -> list[PhysicalEvent]:
        for card in self.state["trend_row"]:
            if card is None:
                continue
            action = {"type": "claim_trend", "player": p, "card": card}
            if self._legal(action):
                claimed = sum(len(t) for t in self.state["trends"])
                self._commit(action)
                # the card goes from its row position onto the seat's Trend pile in one
                # change the camera sees; every other claim is also tapped on the seat reader
                if claimed % 2:
                    return [BoardChange(self.view(full=True))]
                return [BoardChange(self.view(full=True)), CardTap(card, p)]
        return []

    def _powers(self, p: int) -> list[PhysicalEvent]:
        s = self.state
        opponents = sorted((q for q in range(self.players) if q != p),
                           key=lambda q: (-s["mp"][q], q))
        for t in s["trends"][p]:
            if not t["active"] or t["used"] or t["card"] in self.tried:
                continue
            kind = self.rules.trend_cards[t["card"]]["power"]["kind"]
            base = {"type": "trend_power", "player": p, "trend": t["card"]}
            options: list[Action] = []
            if kind == "skull" and s["skulls"][p] < 5:
                options = [base]
            elif kind == "steal_skull":
                richest = sorted((q for q in opponents if s["skulls"][q] > 0),
                                 key=lambda q: -s["skulls"][q])
                options = [{**base, "target": q} for q in richest[:1]]
            elif kind == "draw" and s["skulls"][p] >= 2:
                options = [base]
            elif kind == "recover" and s["skulls"][p] >= 2 and s["discard"]:
                options = [{**base, "card": s["discard"][-1]}]
            elif kind == "undermine" and s["skulls"][p] >= 3:
                options = [{**base, "target": q} for q in opponents if s["mp"][q] > s["mp"][p]]
            elif kind == "cash_in" and s["skulls"][p] == 0 and s["mp"][p] >= 3:
                options = [base]
            elif kind == "staff_remove" and s["skulls"][p] >= 2:
                options = [{**base, "spot": k} for k, v in sorted(s["board"].items())
                           if v == STAFF]
            elif kind == "move" and s["skulls"][p] >= 2:
                options = self._power_moves(p, base)
            elif kind == "skull_card" and s["skulls"][p] >= 3:
                options = [{**base, "slot": i} for i in range(3) if s["skull_row"][i]][:1]
            elif kind == "trend_discard" and s["skulls"][p] >= 3:
                options = [{**base, "slot": i} for i in range(3) if s["trend_row"][i]][:1]
            for action in options:
                if self._legal(action):
                    self.tried.add(t["card"])
                    before = self.view(full=True, mats=False)
                    self._commit(action)
                    if kind == "recover":
                        self.hands[p].append(action["card"])
                    elif kind == "draw":
                        self._draw(p, 1, list(s["discard"]))
                    if self.view(full=True, mats=False) == before:
                        return self._mat_power(p, t["card"], action)
                    if kind in SEEN_POWERS:  # a chip moved or gone, a row card taken: the button
                        return [BoardChange(self.view(full=True)), CardTap(t["card"], p),
                                self.press_for(action)]
                    return [BoardChange(self.view(full=True)), Declare(action)]
        return []

    def _mat_power(self, p: int, card: str, action: Action) -> list[PhysicalEvent]:
        """A power whose effect on the table is Skulls or Monkeys (a hand aside): the player
        takes, steals or pays them on the mats, taps the Trend card used and presses; declared
        when the mats cannot show it."""
        old = self.view(full=True)
        self.mats_shown = self.state
        new = self.view(full=True)
        if new == old:
            return [Declare(action)]
        return [BoardChange(new), CardTap(card, p), self.press_for(action)]

    def _power_moves(self, p: int, base: Action) -> list[Action]:
        """A Trend move toward an unclaimed Jivecat or onto a Hipster."""
        s = self.state
        b = self.rules.board
        out = []
        for src in self.rules.chips_of(s, p):
            if b.lizards[src].kind in ("jivecat", "hipster"):
                continue
            for dst in sorted(b.adj[src]):
                if dst in s["board"] or b.lizards[dst].kind not in ("typical", "hipster"):
                    continue
                if b.lizards[dst].kind == "hipster" or self._near_free_jivecat(dst):
                    out.append({**base, "from": src, "to": dst})
        return out[:3]

    def _near_free_jivecat(self, spot: str) -> bool:
        b = self.rules.board
        return any(b.lizards[x].kind == "jivecat" and x not in self.state["board"]
                   for x in b.adj[spot])

    def _jivecat(self, p: int) -> list[PhysicalEvent]:
        s = self.state
        b = self.rules.board
        cards = [c for c in self.hands[p] if self.rules.clique[c].suit == "jivecat"]
        if not cards:
            return []
        chips = self.rules.chips_of(s, p)
        for spot, liz in sorted(b.lizards.items()):
            if liz.kind != "jivecat" or spot in s["board"]:
                continue
            how = self.rules.reach(s, p, spot)
            if how is None or (how == 1 and s["skulls"][p] < 1):
                continue
            away = [c for c in chips if b.lizards[c].lounge != liz.lounge]
            jives = [c for c in away if b.lizards[c].kind == "jivecat"]
            plain = [c for c in away if b.lizards[c].kind in ("typical", "starter")]
            if len(jives) >= 2:
                remove = jives[:2]
            elif len(plain) >= 2:
                remove = self.rng.sample(plain, 2)
            else:
                continue
            for card in cards:
                action = {"type": "jivecat", "player": p, "card": card, "spot": spot,
                          "remove": sorted(remove), "portal": how == 1}
                if self._legal(action):
                    self._commit(action)
                    self.hands[p].remove(card)
                    return [BoardChange(self.view()), CardTap(card, p), TurnButton()]
        return []

    def _buy(self, p: int) -> list[PhysicalEvent]:
        s = self.state
        rules = self.rules
        if rules.chip_count(s, p) >= CHIPS:
            return []
        zombies = [t["card"] for t in s["tableau"][p]
                   if rules.clique[t["card"]].suit == "zombie" and not t["used"]]
        pool = list(self.hands[p]) + (zombies if s["skulls"][p] >= 2 else [])
        targets: dict[str, int] = {}
        for spot, liz in rules.board.lizards.items():
            if liz.number is None or spot in s["board"]:
                continue
            how = rules.reach(s, p, spot)
            if how is None or (how == 1 and s["skulls"][p] < 2):
                continue
            targets[spot] = self._worth(p, spot) - 2 * how
        if not targets:
            return []
        options: list[tuple[int, float, list[str], str]] = []
        for size in (1, 2, 3):
            for combo in itertools.combinations(pool, size):
                values = [rules.clique[c].value for c in combo]
                for spot, worth in targets.items():
                    number = rules.board.lizards[spot].number
                    assert number is not None
                    if find_signs(values, number) is None:
                        continue
                    score = worth - 2 * size - 2 * sum(1 for c in combo if c in zombies)
                    options.append((score, self.rng.random(), list(combo), spot))
        options.sort(key=lambda o: (-o[0], o[1]))
        best = options[0][0] if options else None
        if best is None or best < -3:
            return []
        for score, _, combo, spot in options[:12]:
            if score < best - 2 and score < 0:
                break
            number = rules.board.lizards[spot].number
            assert number is not None
            signs = find_signs([rules.clique[c].value for c in combo], number)
            action = {"type": "buy", "player": p, "cards": combo, "signs": signs, "spot": spot,
                      "portal": rules.reach(s, p, spot) == 1}
            if self._legal(action):
                self._commit(action)
                for c in combo:
                    if c in self.hands[p]:
                        self.hands[p].remove(c)
                return [BoardChange(self.view())] + [CardTap(c, p) for c in combo] + [
                    TurnButton()]
        return []

    def _worth(self, p: int, spot: str) -> int:
        """How much a scripted player wants a chip on ``spot``."""
        s = self.state
        b = self.rules.board
        liz = b.lizards[spot]
        worth = 0
        if liz.kind == "hipster":
            worth += 8
        for slot, card in enumerate(s["skull_row"]):
            if card:
                info = self.rules.skull_cards[card]
                if info["number"] == liz.number and liz.lounge in info["lounges"]:
                    worth += 2 + 2 * slot
        if self._near_free_jivecat(spot):
            worth += 3
        if any(b.lizards[x].kind == "hipster" and x not in s["board"] for x in b.adj[spot]):
            worth += 1
        lounges = {b.lizards[c].lounge for c in self.rules.chips_of(s, p)}
        if liz.lounge not in lounges:
            worth += 2
        return worth

    def _spell(self, p: int) -> list[PhysicalEvent]:
        """Now and then a Zombie, a Rada, a Voodoo Spell or a Cheval jump."""
        s = self.state
        rules = self.rules
        hand = sorted(self.hands[p])
        roll = self.rng.random()
        for card in hand:
            suit = rules.clique[card].suit
            action: Action | None = None
            tap = True
            own = [t["card"] for t in s["tableau"][p] if rules.clique[t["card"]].suit == suit
                   and not t["used"]]
            if suit in ("zombie", "rada") and roll < 0.25 and (
                    len(own) >= 2 if suit == "zombie" else own):
                action = {"type": "discard_tableau", "player": p, "card": own[0]}
                if self._legal(action):
                    self._commit(action)
                    return [BoardChange(self.view()), TurnButton()]
            if suit == "zombie" and s["skulls"][p] >= 3 and roll < 0.5:
                action = {"type": "lay_zombie", "player": p, "card": card}
            elif suit == "rada" and roll < 0.5 and not any(
                    rules.clique[t["card"]].suit == "rada" for t in s["tableau"][p]):
                action = {"type": "lay_rada", "player": p, "card": card}
                tap = roll >= 0.25  # otherwise laid without a tap: the camera alone sees it
            elif suit == "voodoo" and s["skulls"][p] >= 2:
                action = self._voodoo(p, card)
            elif suit == "cheval" and roll < 0.7:
                action = self._cheval(p, card)
            if action is None or not self._legal(action):
                continue
            self._commit(action)
            self.hands[p].remove(card)
            return [BoardChange(self.view())] + ([CardTap(card, p)] if tap else []) + [
                TurnButton()]
        return []

    def _voodoo(self, p: int, card: str) -> Action | None:
        s = self.state
        rules = self.rules
        leaders = sorted((q for q in range(self.players) if q != p), key=lambda q: -s["mp"][q])
        for q in leaders:
            if rules.chip_count(s, q) < 3:
                continue
            for spot in rules.chips_of(s, q):
                if rules.board.lizards[spot].kind == "jivecat":
                    return {"type": "voodoo", "player": p, "card": card, "effect": "chip",
                            "spot": spot}
        for q in leaders:
            for t in s["tableau"][q]:
                suit = rules.clique[t["card"]].suit
                if suit == "zombie" and self.rng.random() < 0.5:
                    return {"type": "voodoo", "player": p, "card": card, "effect": "zombie",
                            "target": q, "victim": t["card"]}
                if suit == "rada" and any(rules.clique[c].value == rules.clique[t["card"]].value
                                          for c in self.hands[p] if c != card):
                    return {"type": "voodoo", "player": p, "card": card, "effect": "rada",
                            "target": q, "victim": t["card"]}
        return None

    def _cheval(self, p: int, card: str) -> Action | None:
        s = self.state
        rules = self.rules
        b = rules.board
        for src in rules.chips_of(s, p):
            if b.lizards[src].kind in ("jivecat", "hipster"):
                continue
            for dst, liz in sorted(b.lizards.items()):
                if dst in s["board"] or liz.kind not in ("typical", "hipster"):
                    continue
                if not (liz.kind == "hipster" or self._near_free_jivecat(dst)):
                    continue
                need = rules.jump_cost(src, dst)
                if need is None or need > 0:
                    continue
                return {"type": "cheval", "player": p, "card": card, "from": src, "to": dst,
                        "portals": 0}
        return None

    def _end_turn(self, p: int) -> list[PhysicalEvent]:
        s = self.state
        rules = self.rules
        remove: list[str] = []
        if rules.chip_count(s, p) >= CHIPS:
            chips = rules.chips_of(s, p)
            plain = [c for c in chips if rules.board.lizards[c].kind in ("typical", "starter")]
            rest = [c for c in chips if c not in plain]
            remove = sorted((plain + rest)[:5])
        discard: list[str] = []
        if len(self.hands[p]) >= HAND_SIZE and self.rng.random() < 0.3:
            discard = [max(self.hands[p], key=lambda c: (abs(rules.clique[c].value - 6), c))]
        action: Action = {"type": "end_turn", "player": p}
        if discard:
            action["discard"] = discard
        if remove:
            action["remove"] = remove
        pile = list(s["discard"]) + discard
        for c in discard:
            self.hands[p].remove(c)
        self._commit(action)
        self._draw(p, HAND_SIZE - len(self.hands[p]), pile)
        self.moves = 0
        self.tried = set()
        events: list[PhysicalEvent] = [BoardChange(self.view())] if remove else []
        if discard:
            return events + [Declare(action)]
        return events + [TurnButton()]

    def _draw(self, p: int, n: int, pile: list[str]) -> None:
        for _ in range(max(0, n)):
            card = self._take(pile)
            if card is None:
                break
            self.hands[p].append(card)
