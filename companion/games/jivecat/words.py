"""Swinging Jivecat Voodoo Lounge: the game's words (a mixin of the game).

What the tablet says: the history line of each action, the prompts, the Details
panel, the action forms and the labels of their values.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
    ActionForm,
    FieldForm,
    Prompt,
    State,
    counted,
)
from companion.games.jivecat.facts import (
    CHIPS,
    STAFF,
    STAFF_CHIPS,
    WIN_MP,
    config_text,
    expression,
    power_text,
    skulls,
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
                                  f"({self.card_name(pend['card'])}) on one of: {where}; then "
                                  "press the turn "
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
                    "(tap the card), claim Trends (tap the Trend card), use a Trend's power (do "
                    "it on the board or the mats, tap the Trend card); press the turn button "
                    "after each; press it with nothing new to end the turn (or end it on the "
                    "tablet to discard cards).", "turn", p))
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
        """The Details panel, shallow and in words (as Swing State's): where everyone stands,
        the two rows, the decks and the Staff; never a hand."""
        s = state
        names = [self._name(s, q) for q in range(s["players"])]
        out: dict[str, Any] = {}
        if s["phase"] == "over":
            o = self.outcome(s)
            out["Result"] = o.reason if o else "Game over."
        else:
            out["Now"] = self.phase_label(s)
        standing: dict[str, str] = {}
        tableaux: dict[str, str] = {}
        trends: dict[str, str] = {}
        for q, name in enumerate(names):
            on = self.chip_count(s, q)
            standing[name] = (f"{counted(s['mp'][q], 'Monkey Point')}, {skulls(s['skulls'][q])}, "
                              f"{counted(s['hand'][q], 'card')} in hand, {counted(on, 'chip')} on the board "
                              f"({CHIPS - on} in the glass)")
            cards = [self.card_name(t["card"]) + (" (twisted)" if t["used"] else "")
                     for t in s["tableau"][q]]
            tableaux[name] = ", ".join(cards) or "empty"
            held = []
            for t in s["trends"][q]:
                state_word = "active" if t["active"] else "inactive"
                if t["used"]:
                    state_word += ", power used this turn"
                held.append(f"{self.trend_cards[t['card']]['name']} ({state_word})")
            trends[name] = ", ".join(held) or "none"
        out["Players"] = standing
        out["Tableaux"] = tableaux
        out["Trend cards set"] = trends
        skull_row: dict[str, str] = {}
        for i, c in enumerate(s["skull_row"]):
            pos = self.board.rows["skull"][i]
            skull_row[f"{pos['name']} ({skulls(pos['skulls'])})"] = (
                self.card_name(c) if c else "empty")
        trend_row: dict[str, str] = {}
        for i, c in enumerate(s["trend_row"]):
            pos = self.board.rows["trend"][i]
            key = f"{pos['name']} ({pos['points']} point{'s' if pos['points'] != 1 else ''})"
            if c:
                info = self.trend_cards[c]
                trend_row[key] = (f"{info['name']}: needs {config_text(info['config'])}; "
                                  f"{power_text(info['power'])}")
            else:
                trend_row[key] = "empty"
        out["Skull row"] = skull_row
        out["Trend row"] = trend_row
        top = f", top {self.card_name(s['discard'][-1])}" if s["discard"] else ""
        again = f", reshuffled {counted(s['reshuffles'], 'time')}" if s["reshuffles"] else ""
        out["Decks"] = (f"Clique {s['deck']} left, {len(s['discard'])} discarded{top}{again}; "
                        f"Skull {s['skull_deck']} left; Trend {s['trend_deck']} left")
        out["Skull supply"] = skulls(s["supply"])
        if s["staff"] is not None:
            on = self.chip_count(s, STAFF)
            st = s["staff"]
            text = f"{counted(on, 'Staff chip')} on the board, {STAFF_CHIPS - on} left"
            if st["purge_by"] is not None:
                text += f"; {self._name(s, st['purge_by'])} removes five"
            elif st["pending"]:
                where = ", ".join(self._spot_label(x) for x in st["pending"]["spots"])
                text += f"; a chip for the {st['pending']['value']} goes on {where}"
            elif s["phase"] == "staff":
                text += f"; {counted(st['flips_left'], 'card')} to flip"
            out["The Staff"] = text
        if s["final_from"] is not None and s["phase"] != "over":
            out["Last round"] = (f"{self._name(s, s['final_from'])} reached {WIN_MP} Monkey "
                                 "Points: everyone else has one more turn")
        if s["bonus"]:
            out["End bonus"] = {names[q]: f"+{b} for active Trend cards"
                                for q, b in enumerate(s["bonus"])}
        out["House rules"] = {
            rule.title: rule.choices[self.house_rule(s, rule.id)] for rule in self.house_rules}
        return out

    # ------------------------------------------------------------------ the tablet's forms
    def phase_label(self, state: State) -> str:
        s = state
        phase = s["phase"]
        if phase == "over":
            return "Game over"
        if phase == "setup":
            return "Set-up: starting chips and the rows"
        who = self._name(s, self.current_player(s))
        if phase == "staff":
            return f"The Staff, after {self._name(s, s['turn'])}'s turn" if \
                s["staff"]["purge_by"] is None else f"The Staff: {who} removes five chips"
        last = "Last round, " if s["final_from"] is not None else ""
        return f"{last}turn {s['turn_no']}: {who}"

    def action_forms(self) -> dict[str, ActionForm]:
        who = FieldForm("player", "Who")
        return {f.type: f for f in (
            ActionForm("first_player", "First player", (who,),
                       hint="Chosen any way you like, before the first chip is placed."),
            ActionForm("place_starter", "Starting chip", (who, FieldForm("spot", "On")),
                       declared=False),
            ActionForm("reveal", "Card flipped onto a row",
                       (FieldForm("row", "Row"), FieldForm("card", "Card"),
                        FieldForm("slot", "Position")), declared=False),
            ActionForm("buy", "Buy a drink",
                       (who, FieldForm("spot", "For"), FieldForm("cards", "With"),
                        FieldForm("signs", "Sums"), FieldForm("portal", "Reach")),
                       declared=False,
                       hint="Seen by the camera and the readers; one-card drinks are offered "
                            "(a combined drink is read from the taps)."),
            ActionForm("lay_zombie", "Lay a Zombie", (who, FieldForm("card", "Card")),
                       declared=False),
            ActionForm("lay_rada", "Lay a Rada", (who, FieldForm("card", "Card")),
                       declared=False),
            ActionForm("discard_tableau", "Discard from the tableau",
                       (who, FieldForm("card", "Card")), declared=False),
            ActionForm("voodoo", "Voodoo Spell",
                       (who, FieldForm("effect", "Spell"), FieldForm("spot", "Chip"),
                        FieldForm("target", "Opponent"), FieldForm("victim", "Their card"),
                        FieldForm("card", "Voodoo card")), declared=False),
            ActionForm("cheval", "Cheval Spell",
                       (who, FieldForm("from", "Move the chip on"), FieldForm("to", "To"),
                        FieldForm("portals", "Voodoo Portals"), FieldForm("card", "Cheval card")),
                       declared=False),
            ActionForm("jivecat", "Jivecat Spell",
                       (who, FieldForm("spot", "Jivecat"), FieldForm("remove", "Chips removed"),
                        FieldForm("portal", "Reach"), FieldForm("card", "Jivecat card")),
                       declared=False),
            ActionForm("claim_trend", "Set a Trend", (who, FieldForm("card", "Trend card")),
                       declared=False),
            ActionForm("trend_power", "Use a Trend card's power",
                       (who, FieldForm("to", "Move a chip to"), FieldForm("from", "From"),
                        FieldForm("target", "Opponent"), FieldForm("slot", "Row card"),
                        FieldForm("spot", "Staff chip"), FieldForm("card", "Card taken"),
                        FieldForm("trend", "Trend card")),
                       hint="Once a turn per active Trend card. Tap what the power does; the "
                            "Trend card is asked only when two could do it."),
            ActionForm("end_turn", "End the turn",
                       (who, FieldForm("discard", "Discard", many=True), FieldForm("remove", "Chips back "
                                                                         "to the glass")),
                       hint="The turn button ends a turn without discarding; here you tap each "
                            "card you discard, then Done."),
            ActionForm("staff_flip", "Staff card flipped", (who, FieldForm("card", "Card")),
                       declared=False),
            ActionForm("staff_place", "Staff chip placed", (who, FieldForm("spot", "On")),
                       declared=False),
            ActionForm("staff_remove", "Five Staff chips removed",
                       (who, FieldForm("spots", "From")), declared=False),
        )}

    def action_fields(self) -> dict[str, frozenset[str]]:
        """The forms' fields and what the camera adds: face codes and positions it read."""
        fields = super().action_fields()  # type: ignore[misc]
        extra = {"reveal": {"code"}, "lay_zombie": {"code", "slot"},
                 "lay_rada": {"code", "slot"}, "claim_trend": {"code"}}
        return {k: v | extra.get(k, set()) for k, v in fields.items()}

    def value_label(self, state: State, action_type: str, field_name: str, value: Any) -> str:
        s = state
        try:
            return self._value_label(s, action_type, field_name, value)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return str(value)

    def _value_label(self, s: State, kind: str, name: str, value: Any) -> str:
        if name in ("player", "target") and isinstance(value, int):
            return self._name(s, value)
        if name in ("spot", "from", "to"):
            return self._spot_label(value)
        if name in ("remove", "spots"):
            return " and ".join(self._spot_label(x) for x in value) or "none"
        if name == "discard" and isinstance(value, str):  # one card toggled on the tablet
            return self.card_name(value)
        if name == "discard":
            return ("Discard " + ", ".join(self.card_name(c) for c in value)) if value \
                else "Keep every card"
        if name == "cards":
            return " + ".join(self.card_name(c) for c in value)
        if name == "signs":
            return " ".join("plus" if x > 0 else "minus" for x in value)
        if name in ("card", "victim", "trend"):
            return self.card_name(value)
        if name == "portal":
            return "Through a Voodoo Portal (1 Skull)" if value else "Adjacent to your chips"
        if name == "portals":
            return "No Portal" if not value else f"{value} Portal{'s' if value > 1 else ''} " \
                                                 f"({skulls(value)})"
        if name == "effect":
            return {"chip": "Remove a chip", "zombie": "Discard a Zombie",
                    "rada": "Discard a Rada"}[value]
        if name == "row":
            return f"{value.title()} row"
        if name == "slot" and kind == "reveal":
            return self.board.rows["skull"][value]["name"] + " / " + \
                self.board.rows["trend"][value]["name"]
        if name == "slot":
            rows = [f"{self.board.rows[r][value]['name']}: {self.card_name(c)}"
                    for r in ("skull", "trend") if (c := s[f"{r}_row"][value])]
            return "; ".join(rows) or f"position {value + 1}"
        if name == "code":
            return f"a card showing {value[0]} {value[1]}"
        return str(value)

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
            first = " and goes first" if self.first_chip_names_first(s) else ""
            return f"{name} starts on {spot(a['spot'])}{first}"
        if kind == "first_player":
            return f"{name} goes first"
        card = self.card_name(a["card"]) if a.get("card") else \
            "showing code {} {}".format(*a.get("code", ["?", "?"]))
        if kind == "reveal":
            return f"{card} flipped face up onto the {a['row'].title()} row"
        if kind == "lay_zombie":
            return f"{name} lays {card}" if a.get("card") else f"{name} lays a Zombie {card}"
        if kind == "lay_rada":
            return f"{name} lays {card}" if a.get("card") else f"{name} lays a Rada {card}"
        if kind == "discard_tableau":
            return f"{name} discards {card} from the tableau"
        if kind == "voodoo":
            if a["effect"] == "chip":
                return f"{name} casts {card}: chip off {spot(a['spot'])}"
            return (f"{name} casts {card}: {self._name(s, a['target'])} discards "
                    f"{self.card_name(a['victim'])}")
        if kind == "cheval":
            return f"{name} casts {card}: {spot(a['from'])} -> {spot(a['to'])}"
        if kind == "jivecat":
            rem = " and ".join(spot(x) for x in a.get("remove", []))
            return f"{name} casts {card} onto {spot(a['spot'])}, dropping {rem}"
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
            return f"Staff card {card} flipped"
        if kind == "staff_place":
            return f"Staff chip placed on {spot(a['spot'])}"
        if kind == "staff_remove":
            return f"{name} removes five Staff chips"
        return super().describe(s, a)
