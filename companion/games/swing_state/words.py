"""Swing State Steal: the game's words (history lines, prompts, Details, the tablet's forms)."""

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
from companion.games.swing_state.rules import (
    _s,
)


class SwingStateWords:
    """Mixin of the game class; see ``__init__.py``."""

    def prompts(self, state: State) -> list[Prompt]:
        out: list[Prompt] = []
        names = self.player_names(state)
        chore = "info" if state["over"] else "chore"  # after the end nothing is left as a chore
        for tr in state["last"]["transfers"]:
            out.append(Prompt(self._transfer_text(state, tr), chore, _transfer_player(state, tr)))
        chore_heads = tuple(f"{n}:" for n in [*names, "Banker", "States", "News"])
        for note in state["last"]["notes"]:
            out.append(Prompt(note, chore if note.startswith(chore_heads) else "info"))
        if state["over"]:
            out.append(Prompt("Game over. " + state["over"]["reason"], "info"))
            return out
        p = self.current_player(state)
        who = names[p] if p is not None else "table"
        rnd = state["round"]
        step = state["step"]
        due = self._roll_due(state)
        if due and due != "evidence" and state["die"] is not None:
            out.append(Prompt(f"{who}: pick up the die, then roll it onto its tray.", "chore", p))
        if rnd <= 3:
            lap = self._lap(state, p)
            head = f"Round {rnd} ({self.rounds[rnd]['name']}), {who}'s turn"
            head += f", lap {lap}" if self.rounds[rnd]["laps"] > 1 else ""
            if step == "start":
                text = head + ": " + ("play one Cheat card (tap it) or " if p else "") + "roll the die."
                if state["double_now"] and p:
                    text += " A Cheat played now counts double (Stop Counting)."
            elif step == "waiting":
                text = (
                    head + ": waiting for the others; play a Cheat card (tap it) or press the button to pass."
                )
            elif step == "move":
                text = head + f": rolled {state['roll']}, move your pawn."
                out.append(
                    Prompt(
                        f"{who}: move your pawn {state['roll']} space{_s(state['roll'])} to "
                        f"{self._spot_name(state['dest'])}, then press the button.",
                        "chore",
                        p,
                    )
                )
            else:
                pending = state["await"] or {}
                kind = pending.get("kind")
                if kind == "news":
                    text = head + ": draw the top News card and tap it on the shared reader."
                elif kind == "roll":
                    text = head + ": roll the die for votes."
                else:
                    text = head + ": the Incumbent chooses colours."
                    options = [
                        {"type": "allocate", "player": 0, "piles": a} for a in self._allocations(state)
                    ]
                    verb = "take from the pot" if pending.get("dir") == "gain" else "return to the pot"
                    out.append(
                        Prompt(
                            f"Incumbent: choose which piles' colours to {verb}: "
                            f"{pending.get('amount')} V in all.",
                            "choice",
                            0,
                            options,
                        )
                    )
            out.append(Prompt(text, "turn", p))
            return out
        r4 = state["r4"]
        head = f"Round 4 (The Challenge), week {r4['space']}"
        if step == "wilds":
            most = self._max_wilds(state, p)
            options = [{"type": "keep_wilds", "player": p, "count": c} for c in range(most + 1)]
            out.append(
                Prompt(
                    f"{who}: discard every unplayed Cheat card except Black Wild cards, then say how "
                    "many Black Wild cards you keep.",
                    "choice",
                    p,
                    options,
                )
            )
            out.append(Prompt(f"{head}: {who} declares Black Wild cards.", "turn", p))
        elif step == "advance":
            out.append(
                Prompt(
                    f"Banker: advance the Incumbent's pawn one space to "
                    f"{self._spot_name(self.r4_spots[r4['space'] + 1])}.",
                    "chore",
                    0,
                )
            )
            out.append(Prompt(f"{head}: the banker advances the Incumbent's pawn.", "turn", 0))
        elif step == "evidence":
            extra = " or roll the die for extra Evidence cards (first turn only)" if due else ""
            out.append(Prompt(f"{head}: the Incumbent plays an Evidence card (tap it){extra}.", "turn", 0))
        else:
            card = self.evidence_cards[r4["evidence"]]
            out.append(
                Prompt(
                    f"{head}: {who} answers {self._evidence_text(card)} with a Cheat card or a "
                    "Black Wild card (tap it).",
                    "turn",
                    p,
                )
            )
        return out

    def summary(self, state: State) -> dict[str, Any]:
        """The dashboard panel, kept shallow so a generic table shows it: the votes, the
        Incumbent's pile per State against that State's, and who is ahead there, the round and laps, and
        card counts (never a hidden card)."""
        names = self.player_names(state)
        rnd = state["round"]
        ring = self.rounds[rnd]
        piles: dict[str, str] = {}
        beaten = 0
        for seat in range(1, state["players"]):
            colour = state["colours"][seat]
            pile, votes = state["piles"][colour], state["votes"][colour]
            ahead = "Incumbent" if pile >= votes else names[seat]
            beaten += ahead == "Incumbent"
            piles[names[seat]] = f"Incumbent {pile}, {names[seat]} {votes}: {ahead} ahead"
        if rnd <= 3:
            laps = {
                names[seat]: f"{self._lap(state, seat)}/{ring['laps']}"
                + (" waiting" if state["finished"][seat] else "")
                for seat in range(state["players"])
            }
        else:
            week = state["r4"]["space"]
            label = self.spaces[state["pawn"][0]]["label"]
            laps = {"Incumbent": f"week {week} of {len(self.r4_spots) - 1} ({label})"}
        held = {"Incumbent": counted(state["evidence_held"], "Evidence card")}
        for seat in range(1, state["players"]):
            kind = "Black Wild card" if state["r4"] else "Cheat card"
            held[names[seat]] = counted(state["cheat_held"][seat], kind)
        need = self.majority[state["players"] - 1]
        return {
            "round": f"{rnd}: {ring['name']}",
            "laps": laps,
            "votes": piles,
            "Incumbent beats": f"{beaten} of {state['players'] - 1} (needs {need})",
            "cards held": held,
            "cheats face up": {names[s]: len(state["played"][s]) for s in range(1, state["players"])},
            "decks": (
                f"News {len(state['news_drawn'])} drawn, Cheat {state['cheat_deck']} left, "
                f"Evidence {state['evidence_deck']} left"
            ),
            "house rules": {rule.title: rule.choices[self.house_rule(state, rule.id)]
                            for rule in self.house_rules},
        }

    # --- the tablet's forms ------------------------------------------------------------------

    def phase_label(self, state: State) -> str:
        if state["over"]:
            return "Game over"
        rnd = state["round"]
        head = f"Round {rnd}: {self.rounds[rnd]['name']}"
        p = self.current_player(state)
        if rnd <= 3 and p is not None:
            return f"{head}, {self.player_names(state)[p]}'s turn"
        step = {"wilds": "Black Wild cards kept", "advance": "the Incumbent advances",
                "evidence": "the Incumbent plays Evidence",
                "respond": "the States answer"}.get(state["step"], "")
        return f"{head}, {step}" if step else head

    def action_forms(self) -> dict[str, ActionForm]:
        seat = FieldForm("player", "Who")
        card = FieldForm("card", "Which card")
        forms = (
            ActionForm("pick_up_die", "Pick up the die", (seat,), declared=False,
                       hint="The camera sees the die leave its tray."),
            ActionForm("roll", "Roll", (seat, FieldForm("value", "The die shows")),
                       declared=False, hint="The camera reads the die on its tray."),
            ActionForm("move", "Move the pawn", (seat, FieldForm("to", "To")), declared=False,
                       hint="The camera reads the pawn when the button is pressed."),
            ActionForm("pass", "Wait (pass the turn)", (seat,), declared=False,
                       hint="The turn button: a waiting State plays no Cheat card."),
            ActionForm("cheat", "Play a Cheat card", (seat, card), declared=False,
                       hint="Tap the card on your seat's reader."),
            ActionForm("draw_news", "News card drawn", (seat, card), declared=False,
                       hint="Tap the News card on the shared reader."),
            ActionForm("allocate", "The Incumbent's colours",
                       (seat, FieldForm("piles", "Votes per colour")),
                       hint="Each listed split of the votes is one button."),
            ActionForm("keep_wilds", "Black Wild cards kept",
                       (seat, FieldForm("count", "How many to keep"))),
            ActionForm("advance", "Advance the Incumbent", (seat, FieldForm("to", "To")),
                       declared=False, hint="The camera reads the Incumbent's pawn."),
            ActionForm("evidence", "Play an Evidence card", (seat, card), declared=False,
                       hint="Tap the card on a reader."),
            ActionForm("respond", "Answer the Evidence", (seat, card), declared=False,
                       hint="Tap the card on your seat's reader; the button says you have "
                            "nothing to play."),
        )
        return {form.type: form for form in forms}

    def value_label(self, state: State, action_type: str, field_name: str, value: Any) -> str:
        if field_name == "card":
            if value is None:
                return "nothing to play"
            if isinstance(value, str) and value in self.cheats:
                c = self.cheats[value]
                worth = "wild" if c.get("wild") else f"{c['value']} V"
                return f"{c['title']} ({c['colour']}, {worth})"
            if isinstance(value, str) and value in self.news:
                return self.news[value]["title"]
            if isinstance(value, str) and value in self.evidence_cards:
                return self._evidence_text(self.evidence_cards[value])
            return "an unknown card"
        if field_name == "to" and isinstance(value, str) and value in self.spaces:
            return str(self.spaces[value]["label"]) or "the next space"
        if field_name == "piles" and isinstance(value, dict):
            parts = [f"{n} {colour.capitalize()}" for colour, n in value.items() if n]
            return ", ".join(parts) or "nothing"
        if field_name == "count" and isinstance(value, int) and not isinstance(value, bool):
            return f"keep {value}"
        if field_name == "value" and isinstance(value, int) and not isinstance(value, bool):
            return f"rolled {value}"
        return super().value_label(state, action_type, field_name, value)

    def describe(self, state: State, action: Action) -> str:
        names = self.player_names(state)
        who = action.get("player")
        name = names[who] if isinstance(who, int) and 0 <= who < len(names) else "table"
        kind = action.get("type")
        card = action.get("card")
        if kind == "pick_up_die":
            return f"{name} picks up the die"
        if kind == "roll":
            return f"{name} rolls {action.get('value')}"
        if kind in ("move", "advance"):
            return f"{name} moves to {self._spot_name(str(action.get('to')))}"
        if kind in ("cheat", "respond") and isinstance(card, str) and card in self.cheats:
            c = self.cheats[card]
            worth = (
                f"wild, protects {'all States' if c.get('wild') == 'all' else 'itself'}"
                if c.get("wild")
                else f"{c['value']} V"
            )
            return f"{name} plays {c['title']} ({c['colour']}, {worth})"
        if kind == "respond" and card is None:
            return f"{name} has no card to play"
        if kind == "draw_news" and isinstance(card, str) and card in self.news:
            return f"{name} draws News: {self.news[card]['title']}"
        if kind == "evidence" and isinstance(card, str) and card in self.evidence_cards:
            return f"Incumbent plays {self._evidence_text(self.evidence_cards[card])}"
        if kind == "allocate" and isinstance(action.get("piles"), dict):
            parts = ", ".join(f"{v} {k}" for k, v in action["piles"].items() if v)
            return f"Incumbent chooses {parts or 'nothing'}"
        if kind == "keep_wilds":
            count = action.get("count")
            return f"{name} keeps {count} Black Wild card{'' if count == 1 else 's'}"
        if kind == "pass":
            return f"{name} waits (passes)"
        return super().describe(state, action)

    def _transfer_text(self, state: State, tr: dict[str, Any]) -> str:
        colour = tr["colour"]
        state_name = colour.capitalize()
        n = tr["amount"]
        chips = f"{n} {colour} vote{_s(n)}"
        pile = f"the Incumbent's {state_name} pile"
        return {
            ("pot", "state"): f"Banker: pay {chips} from the pot to {state_name}",
            ("pot", "pile"): f"Banker: pay {chips} from the pot to {pile}",
            ("pile", "state"): f"Incumbent: hand {chips} to {state_name}",
            ("state", "pile"): f"{state_name}: hand {chips} to {pile}",
            ("pile", "pot"): f"Incumbent: return {chips} from the {state_name} pile to the pot",
            ("state", "pot"): f"{state_name}: return {chips} to the pot",
        }[(tr["from"], tr["to"])]


# --------------------------------------------------------------------------- helpers


def _transfer_player(state: State, tr: dict[str, Any]) -> int | None:
    """Who hands the chips over for a transfer (None: the banker)."""
    if tr["from"] == "pile":
        return 0
    if tr["from"] == "state":
        return state["colours"].index(tr["colour"])
    return None
