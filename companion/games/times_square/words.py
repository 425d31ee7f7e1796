"""Times Square: the game's words (history lines, prompts, Details, the tablet's forms)."""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
    ActionForm,
    FieldForm,
    Prompt,
    State,
)
from companion.games.times_square.rules import (
    SIDE_NAMES,
    _figure_name,
    _toward,
    _type_name,
)


class TimesSquareWords:
    """Mixin of the game class; see ``__init__.py``."""

    def prompts(self, state: State) -> list[Prompt]:
        phase = state["phase"]
        out: list[Prompt] = []
        if phase == "over":
            result = state["result"]
            who = " and ".join(SIDE_NAMES[w] for w in result["winners"])
            verdict = "Draw" if len(result["winners"]) == 2 else f"{who} wins"
            return [Prompt(f"Game over: {verdict} ({result['reason']}).", "info")]
        if phase == "setup":
            total = len(self.data.cards)
            rest = total - 2 * self.data.hand_size
            out.append(Prompt(
                "Set up: Saucy Sue on the sewer-cover space, Champagne Charlie beside her on the "
                "dark edge, a Bodyguard two spaces either side of Sue. One player hides Handsome "
                "Hal and Dancing Deb in his fists, the other picks one; each places his figure "
                "between Sue and the Bodyguard on his side. Shuffle, deal 8 cards each, "
                f"{rest} stay as the supply. Then press the button.", "turn"))
            out.append(Prompt("Who holds Handsome Hal (he begins)?", "choice", None,
                              self.legal_actions(state)))
            return out
        player = int(state["turn"])
        name = SIDE_NAMES[player]
        out += self._draw_chores(state)
        if phase == "charlie":
            due = state["charlie_due"]
            target = state["pos"]["charlie"] + due * _toward(player)
            out.append(Prompt(
                f"{name}: move Champagne Charlie {due} space{'s' if due != 1 else ''} toward "
                f"{name} (to space {target}), then press the button; press without moving him "
                "to decline.", "chore", player))
            out.append(Prompt(f"{name}'s turn: move Champagne Charlie.", "turn", player))
            return out
        lock = state["joker"][player]
        deb = ("Deb cards move " + _type_name(lock)) if lock else "Deb cards move Deb or a joker"
        usable = self._deb_between(state["pos"], player, self.deb_on_sue_between(state))
        deb += " (joker usable now)" if usable \
            else " (joker not usable now: Deb is not between Sue and your end)"
        out.append(Prompt(
            f"{name}'s turn: play cards of one colour one at a time on your reader and move the "
            "figures, or lure Sue or a Bodyguard to Hal, or tap cards to trade on the shared "
            "reader" + (" (or pass on the tablet)" if self.house_rule(state, "zero_trade")
                        == "allowed" else "")
            + f"; then draw back to 8, move Charlie if due, press the button. {deb}.",
            "turn", player))
        return out

    def _draw_chores(self, state: State) -> list[Prompt]:
        last = state.get("last")
        if not last or (not last["drawn"] and not last["reshuffled"]):
            return []
        who = SIDE_NAMES[last["player"]]
        if last["reshuffled"]:
            text = (f"{who}: draw {last['drawn']} card{'s' if last['drawn'] != 1 else ''}; the "
                    f"supply is then empty: shuffle the discard stack ({last['reshuffled']} "
                    "cards) face-down as the new supply")
            if last["after_reshuffle"]:
                text += f" and draw {last['after_reshuffle']} more"
            text += f" ({state['supply']} left)."
        else:
            text = (f"{who}: draw {last['drawn']} card{'s' if last['drawn'] != 1 else ''} to "
                    f"hold 8 again ({state['supply']} left in the supply).")
        return [Prompt(text, "chore", last["player"])]

    def summary(self, state: State) -> dict[str, Any]:
        """The Details panel in words: where each figure stands, the cards counted, each
        player's Deb joker, Charlie's due move and the house rules (never a hand)."""
        pos, mid = state["pos"], self.data.middle
        figures = {
            "Saucy Sue": self._where(pos["sue"]),
            "Handsome Hal": self._where(pos["hal"]),
            "Dancing Deb": self._where(pos["deb"]),
            "Bodyguards": f"spaces {pos['bodyguard_left']} and {pos['bodyguard_right']}",
            "Champagne Charlie": self._where(pos["charlie"]),
        }
        runs = state["exhausted"]
        supply = f"{state['supply']} card{'s' if state['supply'] != 1 else ''}"
        supply += (", not run out yet" if runs == 0 else
                   ", ran out once: the game ends when it runs out again" if runs == 1 else
                   ", ran out twice")
        jokers = {}
        for seat in (0, 1):
            lock = state["joker"][seat]
            jokers[SIDE_NAMES[seat]] = (f"move {_type_name(lock)} only" if lock else
                                        "move Dancing Deb, or a joker not chosen yet")
        out: dict[str, Any] = {
            "turn": self.phase_label(state),
            "figures": figures,
            "hands": {SIDE_NAMES[s]: f"{n} card{'s' if n != 1 else ''}"
                      for s, n in enumerate(state["hands"])},
            "supply": supply,
            "discard stack": f"{len(state['discard'])} face up",
            "Deb cards": jokers,
            "nightclubs": (f"A's entrances are spaces {_spaces(self.data.entrances[0])}, B's "
                           f"{_spaces(self.data.entrances[1])}; the middle (sewer) is space "
                           f"{mid}"),
        }
        if state["phase"] == "charlie":
            due = state["charlie_due"]
            out["Champagne Charlie"] = (f"may move {due} space{'s' if due != 1 else ''} toward "
                                        f"{SIDE_NAMES[state['turn']]} now")
        elif state["phase"] == "play":
            due = self.charlie_due(pos, int(state["turn"]))
            out["Champagne Charlie"] = (f"would move {due} space{'s' if due != 1 else ''} toward "
                                        f"{SIDE_NAMES[state['turn']]} if the turn ended now")
        out["score"] = "spaces Saucy Sue and Champagne Charlie stand on each side of the middle"
        out["house rules"] = {rule.title: rule.choices[self.house_rule(state, rule.id)]
                              for rule in self.house_rules}
        return out

    def _where(self, space: int | None) -> str:
        """A space in words: its number and whose side of the middle it is on."""
        if space is None:
            return "not on the strip yet"
        owner = self.entrance_owner(space)
        if owner is not None:
            return f"space {space}, {SIDE_NAMES[owner]}'s entrance"
        if space == self.data.middle:
            return f"space {space}, the middle (sewer)"
        side = SIDE_NAMES[0 if space < self.data.middle else 1]
        return f"space {space}, {side}'s side"

    # --- the tablet's forms ------------------------------------------------------------------

    def phase_label(self, state: State) -> str:
        phase = state["phase"]
        if phase == "setup":
            return "Set-up: who holds Handsome Hal?"
        if phase == "over":
            return "Game over"
        who = SIDE_NAMES[int(state["turn"])]
        if phase == "charlie":
            return f"{who}'s turn: move Champagne Charlie"
        return f"{who}'s turn: play cards, lure, trade or pass"

    def action_forms(self) -> dict[str, ActionForm]:
        seat = FieldForm("player", "Who")
        charlie = FieldForm("charlie", "Champagne Charlie's move")
        forms = (
            ActionForm("setup", "Set-up", (FieldForm("hal_player", "Who holds Handsome Hal "
                                                     "(and begins)?"),), declared=False,
                       hint="The camera reads it when the button is pressed."),
            ActionForm("play", "Play cards", (seat, FieldForm("steps", "Cards and moves"),
                                              charlie), declared=False,
                       hint="Read from the cards tapped and the figures moved; as a correction "
                            "the page offers the one-card plays (each as one button)."),
            ActionForm("lure", "Lure to Handsome Hal",
                       (seat, FieldForm("figure", "Who goes to Handsome Hal"), charlie),
                       declared=False, hint="The camera reads it when the button is pressed."),
            ActionForm("trade", "Trade cards", (seat, FieldForm("cards", "Cards discarded"),
                                                charlie), declared=False,
                       hint="Read from the cards tapped on the shared reader; as a correction "
                            "the page offers one-card trades (each as one button)."),
            ActionForm("pass", "Pass (trade no cards)", (seat, charlie),
                       hint="The table cannot see a pass: declare it here."),
            ActionForm("charlie", "Move Champagne Charlie",
                       (seat, FieldForm("spaces", "Spaces toward your nightclub")),
                       declared=False, hint="The camera reads it when the button is pressed."),
        )
        return {form.type: form for form in forms}

    def value_label(self, state: State, action_type: str, field_name: str, value: Any) -> str:
        if field_name in ("player", "hal_player") and value in (0, 1) \
                and not isinstance(value, bool):
            return SIDE_NAMES[value]
        if field_name == "figure" and isinstance(value, str):
            return {"bodyguard_left": "Left Bodyguard",
                    "bodyguard_right": "Right Bodyguard"}.get(value, _figure_name(value))
        if field_name == "cards" and isinstance(value, list):
            if not value:
                return "no cards (a pass)"
            return ", ".join(self.data.cards[c].label() if c in self.data.cards else str(c)
                             for c in value)
        if field_name == "steps" and isinstance(value, list):
            try:
                return "; ".join(self._step_words(step) for step in value)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                return "a play of the table's cards"
        if field_name in ("charlie", "spaces") and isinstance(value, int):
            if value == 0:
                return "leave him where he is"
            who = SIDE_NAMES[int(state["turn"])] if state.get("turn") is not None else "you"
            return f"{value} space{'s' if value != 1 else ''} toward {who}"
        return str(value)

    def describe(self, state: State, action: Action) -> str:
        try:
            return self._describe(action)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return super().describe(state, action)

    def _describe(self, action: Action) -> str:
        kind = action["type"]
        if kind == "setup":
            hal = SIDE_NAMES[action["hal_player"]]
            return f"Set-up: {hal} holds Handsome Hal and begins"
        who = SIDE_NAMES[action["player"]]
        tail = ""
        if action.get("charlie"):
            n = action["charlie"]
            tail = f"; Charlie {n} space{'s' if n != 1 else ''} toward {who}"
        if kind == "charlie":
            n = action["spaces"]
            return f"{who} moves Champagne Charlie {n} toward {who}" if n else \
                f"{who} leaves Champagne Charlie where he is"
        if kind == "lure":
            return f"{who} lures {_figure_name(action['figure'])} to Handsome Hal{tail}"
        if kind == "pass" or (kind == "trade" and not action["cards"]):
            return f"{who} passes (trades no cards){tail}"
        if kind == "trade":
            labels = ", ".join(self.data.cards[c].label() for c in action["cards"])
            n = len(action["cards"])
            return f"{who} trades {n} card{'' if n == 1 else 's'}: {labels}{tail}"
        return f"{who} plays " + "; ".join(self._step_words(step) for step in action["steps"]) \
            + tail

    def _step_words(self, step: dict[str, Any]) -> str:
        """One step of a play in words ("Hal 3: Handsome Hal toward A")."""
        cards = [self.data.cards[c] for c in step["cards"]]
        figure = step["figure"]
        if figure == "group":
            what = "Sue+Sue: Sue and both Bodyguards"
        else:
            what = cards[0].label()
            if cards[0].colour == "deb" and figure != "deb":
                what += " as joker"
            what += f": {_figure_name(figure)}"
        if cards[0].sewer:
            return what + " to the middle"
        return what + f" toward {SIDE_NAMES[0 if step['direction'] < 0 else 1]}"


def _spaces(spaces: tuple[int, ...]) -> str:
    return " and ".join(str(s) for s in spaces)
