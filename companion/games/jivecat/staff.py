"""Swinging Jivecat Voodoo Lounge: the Staff at 2 and 3 players (a mixin of the rules).

After each turn the top Clique card is flipped for the Staff and a white Staff chip
is placed on a matching Lounge Lizard; the 15th makes the lowest score remove five.
Runs on the rules' helpers (``_seat``, ``_card``, ``_begin_turn``...).
"""

from __future__ import annotations

from typing import Any

from companion.games.base import Action, MalformedAction, RuleError, State
from companion.games.jivecat.facts import STAFF, STAFF_CHIPS, R


class JivecatStaff:
    """The Staff's handlers; mixed into :class:`JivecatRules`, whose helpers they use."""

    board: Any
    clique: Any

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
            raise RuleError(f"{self.card_name(card)} is {where}; it cannot be the top of the deck.",
                            R["public"])
        s["deck"] -= 1
        s["discard"].append(card)
        value = self.clique[card].value
        spots = self.staff_spots(s, value)
        if spots:
            staff["pending"] = {"card": card, "value": value, "spots": spots}
        else:
            staff["flips_left"] -= 1
            s["notices"].append(f"Staff card {self.card_name(card)}: no suitable Lounge Lizard, no Staff "
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

