"""Times Square: the game's words (history lines, prompts, Details, the tablet's forms)."""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
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
        deb += " (joker usable now)" if self._deb_between(state["pos"], player) \
            else " (joker not usable now: Deb is not between Sue and your end)"
        out.append(Prompt(
            f"{name}'s turn: play cards of one colour one at a time on your reader and move the "
            "figures, or lure Sue or a Bodyguard to Hal, or tap cards to trade on the shared "
            f"reader; then draw back to 8, move Charlie if due, press the button. {deb}.",
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
        pos = state["pos"]
        player = state["turn"]
        return {
            "positions": dict(pos),
            "middle": self.data.middle,
            "entrances": {SIDE_NAMES[i]: list(e) for i, e in enumerate(self.data.entrances)},
            "hands": list(state["hands"]),
            "supply": state["supply"],
            "discard": len(state["discard"]),
            "supply_exhausted": state["exhausted"],
            "deb_joker": {SIDE_NAMES[i]: state["joker"][i] for i in range(2)},
            "charlie_due": state["charlie_due"],
            "charlie_if_now": (self.charlie_due(pos, player)
                               if state["phase"] == "play" else 0),
            "scores_mean": "spaces Sue and Charlie stand on each side of the middle",
        }

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
        if kind == "trade":
            labels = ", ".join(self.data.cards[c].label() for c in action["cards"])
            return f"{who} trades {len(action['cards'])} card(s): {labels}{tail}"
        parts = []
        for step in action["steps"]:
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
                what += " to the middle"
            else:
                what += f" toward {SIDE_NAMES[0 if step['direction'] < 0 else 1]}"
            parts.append(what)
        return f"{who} plays " + "; ".join(parts) + tail
