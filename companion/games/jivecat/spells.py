"""Swinging Jivecat Voodoo Lounge: the spells and the Trend cards (a mixin of the rules).

Laying Zombies and Radas, Voodoo, Cheval and Jivecat Spells, claiming Trend cards
and using their powers, with the legal options of each.  The mixin runs on the
rules' state helpers (``_actor``, ``_charge``, ``reach``...), defined in
:mod:`companion.games.jivecat.rules`.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
    MalformedAction,
    RuleError,
    State,
    counted,
    require,
)
from companion.games.jivecat.facts import (
    MAX_ZOMBIES,
    STAFF,
    R,
    config_text,
)


class JivecatSpells:
    """Spell and Trend handlers; mixed into :class:`JivecatRules`, whose helpers they use."""

    board: Any
    clique: Any
    trend_cards: Any

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
        self._charge(s, p, [card], sources, supply=1, supply_why=f"laying {self.card_name(card)}")
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
            raise RuleError(f"{self.card_name(card)} is not in your tableau.", R["zombie_discard"])
        suit = self.clique[card].suit
        if suit == "zombie" and entry["used"]:
            raise RuleError(f"{self.card_name(card)} was used this turn; only unused Zombies may be "
                            "discarded.",
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
                self._charge(s, p, [card], sources, supply=1, supply_why=self.card_name(card))
            else:
                self._charge(s, p, [card], sources, to={payee: 1}, to_why=self.card_name(card))
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
                raise RuleError(f"{self.card_name(victim)} is not a {effect.title()} card in "
                                f"{self._name(s, target)}'s tableau.", R["voodoo"])
            self._charge(s, p, [card], sources, to={target: 1}, to_why=self.card_name(card))
            s["tableau"][target].remove(entry)
            s["discard"].append(victim)
            s["notices"].append(f"{self._name(s, target)} discards {self.card_name(victim)} "
                                "from the tableau.")
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
        need = self.jump_cost(src, dst, s)
        most = self.max_portals(s)
        how = ("a jump over one Lounge Lizard in a line"
               if self.house_rule(s, "cheval_path") == "line_jump" else "two adjacent steps")
        if need is None or need > portals:
            why = "even through the Voodoo Portals" if need is None else "without a Portal"
            raise RuleError(f"{liz.label()} is not two adjacent Lounge Lizards away from "
                            f"{self._spot_label(src)} ({how}) {why}.",
                            R["cheval"] + " " + R["cheval_portal"])
        if portals > most:
            raise RuleError(f"This table's house rule opens at most one Voodoo Portal on a "
                            f"Cheval; {liz.label()} needs {need}.", R["cheval_portal"])
        self._charge(s, p, [card], sources, portal=portals)
        del s["board"][src]
        s["board"][dst] = p
        s["hand"][p] -= 1
        s["discard"].append(card)
        self._landed(s, p, dst)

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
            raise RuleError(f"{self.card_name(card)} is not face up in the Trend row.", R["trend_claim"])
        if seen is not None and seen != self.code_of[card]:
            raise RuleError(f"{self.card_name(card)} left the Trend row, but the card on your Trend "
                            "pile shows "
                            f"face code {seen.colour} {seen.pips}{self._row_code_name(seen)}: "
                            f"put {self.card_name(card)} there.", R["trend_place"])
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
                            f"{counted(points, 'Monkey Point')}.")

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
            self._landed(s, p, dst)
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

    # ------------------------------------------------------------------ spell options
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
            line = self.house_rule(s, "cheval_path") == "line_jump"
            for dst, need in sorted(self.board.jumps(src, line=line).items()):
                if dst in s["board"] or self.board.lizards[dst].kind not in ("typical", "hipster"):
                    continue
                if need <= self.max_portals(s):
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
