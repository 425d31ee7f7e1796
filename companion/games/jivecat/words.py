"""Swinging Jivecat Voodoo Lounge: the game's words (a mixin of the game).

What the tablet says: the history line of each action, the prompts, the Details
panel, the action forms and the labels of their values.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
    Prompt,
    State,
)
from companion.games.jivecat.facts import (
    CHIPS,
    COLOURS,
    STAFF,
    STAFF_CHIPS,
    WIN_MP,
    config_text,
    expression,
    power_text,
)


class JivecatWords:
    """``describe``, ``prompts``, ``summary``, ``action_forms``, ``value_label``, ``phase_label``."""

    board: Any
    clique: Any
    skull_cards: Any
    trend_cards: Any

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
