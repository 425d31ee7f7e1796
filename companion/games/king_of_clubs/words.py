"""King of Clubs: the game's words (history lines, prompts, Details, the tablet's forms)."""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
    Prompt,
    State,
)
from companion.games.king_of_clubs.rules import (
    BACKUP,
    LETTERS,
    SLOTS,
    _dance_name,
    _effective,
    _seats,
    _side,
    _side_skills,
)


class KingOfClubsWords:
    """Mixin of the game class; see ``__init__.py``."""

    def describe(self, state: State, action: Action) -> str:
        kind = action.get("type")
        names = [LETTERS[s] for s in range(state["players"])]
        who = action.get("player")
        name = names[who] if isinstance(who, int) and 0 <= who < len(names) else "?"
        try:
            if kind == "nightclubs":
                vals = action["values"]
                dances = ", ".join(_dance_name(state, d) for d in self._dances(state, vals))
                return f"Night {state['night']}: Nightclubs {', '.join(map(str, vals))} ({dances})"
            if kind == "place":
                return f"{name} placed their Dancers face down"
            if kind == "lead_reveal":
                return (f"{name} (Lead Dancer) reveals a {action['skill']} at "
                        f"{self._club_label(state, action['slot'])}")
            if kind == "swap":
                a, b = action["slots"]
                return (f"{name} swaps their Dancers at {self._club_label(state, a)} and "
                        f"{self._club_label(state, b)}")
            if kind == "pass":
                if state["phase"] == "swap":
                    return f"{name} keeps their Dancers where they are"
                ex = state.get("exchange") or {}
                if ex.get("played") and not ex["passed"][1 - ex["turn"]]:
                    return f"{name} hands over to the other side"
                return f"{name} passes (no more Moves at this dance)"
            if kind == "reveal":
                parts = [f"{names[c['player']]} {c['skill']}"
                         + ("" if c["slot"] != BACKUP else " (Backup)")
                         for c in action["cards"]]
                where = ("Backup Dancers" if state["phase"] == "backups"
                         else _dance_name(state, state["dances"][state["dance"]])
                         if state["dances"] and state["dance"] < len(state["dances"])
                         else "reveal")
                return f"{where}: " + ", ".join(parts)
            if kind == "move":
                card = self.move_names.get(action["card"], action["card"])
                target = action.get("target", who)
                whose = "their" if target == who else f"{names[target]}'s"
                where = (self._club_label(state, action["slot"]) if "slot" in action
                         else "the Nightclub")
                return f"{name} plays {card} (+1) on {whose} Dancer at {where}"
            if kind == "clear":
                return f"Table cleared after night {state['night']}"
        except (KeyError, TypeError, IndexError, ValueError):
            pass
        return super().describe(state, action)

    def prompts(self, state: State) -> list[Prompt]:
        """Whose turn and what they may do; reveal order; Moves exchange; chores."""
        out: list[Prompt] = []
        phase = state["phase"]
        cur = self.current_player(state)
        if phase == "over":
            out.append(Prompt(state["reason"], "info"))
            out += [Prompt(text, "chore") for text in state["chores"]]
            return out
        if phase == "scene":
            out.append(Prompt(
                f"Night {state['night']}: lay the top four Nightclubs face up in the four "
                "Nightclub slots (equal values pair into a "
                f"{'Line' if state['players'] == 4 else 'Couples'} Dance).", "turn"))
            out += [Prompt(text, "chore") for text in state["chores"]]
        elif phase == "placement":
            waiting = [LETTERS[p] for p in range(state["players"]) if not state["placed"][p]]
            out.append(Prompt(
                "Everyone: secretly place one Dancer face down facing each Nightclub (two at a "
                f"{self._pair_word(state)} Dance) and one Backup Dancer face down. Waiting for: "
                + ", ".join(waiting) + ".", "turn"))
            out.append(Prompt(self._order_text(state), "info"))
        elif phase == "lead_reveal":
            out.append(Prompt(
                f"{self.side_name(state, state['lead'])} (Lead Dancer): reveal one of your "
                "non-Backup Dancers.", "turn", cur))
        elif phase == "swap":
            opp = 1 - state["lead"]
            out.append(Prompt(
                f"{self.side_name(state, opp)}: you may swap two of your own face-down Dancers "
                "(declare which) or pass.", "turn", cur))
            out.append(Prompt(
                "The camera cannot see a swap of face-down cards: declare it, or pass.",
                "choice", cur, self.legal_actions(state)))
        elif phase == "reveal":
            dance = state["dances"][state["dance"]]
            out.append(Prompt(
                f"Everyone: reveal your Dancers at {_dance_name(state, dance)} "
                f"({self._clubs_label(state, dance)}).", "turn"))
            out.append(Prompt(self._order_text(state), "info"))
        elif phase == "backups":
            out.append(Prompt(
                f"Tie at {_dance_name(state, state['dances'][state['dance']])}: everyone reveal "
                "your Backup Dancer.", "turn"))
        elif phase == "moves":
            ex = state["exchange"]
            side = ex["turn"]
            dance = state["dances"][state["dance"]]
            held = sum(state["hands"][p] for p in _seats(state, side))
            verb = "play more Moves or pass to hand over" if ex["played"] else "play Moves or pass"
            out.append(Prompt(
                f"{self.side_name(state, side)}: {verb} at {_dance_name(state, dance)} (tap each "
                f"Move and lay it on the Dancer it raises). {held} Move(s) in hand.",
                "turn", cur, [{"type": "pass", "player": cur}]))
            out.append(Prompt(self._standing_text(state), "info"))
        elif phase == "night_over":
            out.append(Prompt(
                "Night over: take every card off the table (Dancers back to hands, Nightclubs "
                "shuffled back into the pile).", "turn"))
            out += [Prompt(text, "chore") for text in state["chores"]]
        return out

    def summary(self, state: State) -> dict[str, Any]:
        """Points, nights won, tonight's prestige, Lead Dancer, whose move; only revealed cards."""
        sides = []
        for side in (0, 1):
            sides.append({
                "name": self.side_name(state, side),
                "seats": _seats(state, side),
                "points": state["points"][side],
                "nights_won": sum(1 for w in state["night_winners"] if w == side),
                "prestige": state["prestige"][side],
                "moves_played": sum(state["moves_played"][p] for p in _seats(state, side)),
            })
        dances = []
        for i, dance in enumerate(state["dances"]):
            shown: dict[str, list[int]] = {}
            for p in range(state["players"]):
                vals = [_effective(state, p, SLOTS[c]) for c in dance["clubs"]
                        if SLOTS[c] in state["revealed"][p]]
                if vals:
                    shown[LETTERS[p]] = vals
            result = None
            if i < len(state["results"]):
                res = state["results"][i]
                result = (self.side_name(state, res["winner"]) if res["winner"] is not None
                          else res["by"])
            dances.append({"name": _dance_name(state, dance), "prestige": dance["prestige"],
                           "dancers": shown, "result": result,
                           "current": i == state["dance"] and state["phase"] in
                           ("reveal", "moves", "backups")})
        cur = self.current_player(state)
        whose = (self.side_name(state, _side(state, cur)) if cur is not None
                 else "everyone" if state["phase"] in ("placement", "reveal", "backups")
                 else None if state["over"] else "table")
        out: dict[str, Any] = {
            "night": state["night"],
            "max_nights": self.max_nights,
            "points_to_win": self.points_to_win,
            "phase": state["phase"],
            "sides": sides,
            "night_winners": [None if w is None else self.side_name(state, w)
                              for w in state["night_winners"]],
            "lead_dancer": None if state["lead"] is None else self.side_name(state, state["lead"]),
            "whose_move": whose,
            "nightclubs": list(state["clubs"]),
            "placed": [LETTERS[p] for p in range(state["players"]) if state["placed"][p]],
            "dances": dances,
            "backups_shown": {LETTERS[p]: state["revealed"][p][BACKUP]
                              for p in range(state["players"]) if BACKUP in state["revealed"][p]},
        }
        last = state["last_night"]
        if last is not None:
            out["last_night"] = {
                "prestige": list(last["prestige"]),
                "winner": None if last["winner"] is None else self.side_name(state, last["winner"]),
                "by": last["by"]}
        if state["variant"] == "advanced":
            out["moves"] = {"hands": list(state["hands"]), "pile": state["deck"],
                            "discard": state["discard"], "reshuffles": state["reshuffles"]}
        return out

    def _pair_word(self, state: State) -> str:
        return "Line" if state["players"] == 4 else "Couples"

    def _order_text(self, state: State) -> str:
        names = [_dance_name(state, d) for d in state["dances"][state["dance"]:]]
        return "Reveal order: " + " -> ".join(names) if names else "All dances revealed."

    def _standing_text(self, state: State) -> str:
        dance = state["dances"][state["dance"]]
        parts = [f"{self.side_name(state, s)} {_side_skills(state, s, dance)}" for s in (0, 1)]
        return f"{_dance_name(state, dance)} now: " + " vs ".join(parts)
