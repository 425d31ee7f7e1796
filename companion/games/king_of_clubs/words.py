"""King of Clubs: the game's words (history lines, prompts, Details, the tablet's forms)."""

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
from companion.games.king_of_clubs.rules import (
    BACKUP,
    LETTERS,
    SLOTS,
    _dance_name,
    _effective,
    _seats,
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

    def describe_unsure(self, state: State, action: Action, others: list[Action]) -> str:
        """Nightclubs the table could no longer tell apart, taken for the record: the place
        unsure named with its values ("Nightclub 2: 3, 5 or 2"), else the other readings in
        full, never as if seen."""
        said = self.describe(state, action)
        values = action.get("values")
        other = [o.get("values") for o in others]
        if action.get("type") != "nightclubs" or not isinstance(values, list) or not other \
                or not all(isinstance(v, list) and len(v) == len(values) for v in other):
            return super().describe_unsure(state, action, others)  # type: ignore[misc]
        at = {i for v in other for i, (x, y) in enumerate(zip(v, values, strict=True)) if x != y}
        if len(at) == 1:
            (i,) = at
            shown = [values[i], *(v[i] for v in other)]
            return (f"{said}; Nightclub {i + 1}: {', '.join(map(str, shown[:-1]))} or {shown[-1]} "
                    f"(the table no longer shows which; recorded as {values[i]})")
        readings = [", ".join(map(str, v)) for v in other]
        return (f"{said}; or {' or '.join(readings)} "
                f"(the table no longer shows which; recorded as {', '.join(map(str, values))})")

    def prompts(self, state: State) -> list[Prompt]:
        """Whose turn and what they may do; reveal order; Moves exchange; chores."""
        out: list[Prompt] = []
        phase = state["phase"]
        cur = self.current_player(state)
        if phase == "over":  # the game is over: what is left to do is said, not a chore
            out.append(Prompt(state["reason"], "info"))
            out += [Prompt(text, "info") for text in state["chores"]]
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
                f"Move and lay it on the Dancer it raises). {held} Move{'' if held == 1 else 's'} in hand.",
                "turn", cur, [{"type": "pass", "player": cur}]))
            out.append(Prompt(self._standing_text(state), "info"))
        elif phase == "night_over":
            out.append(Prompt(
                "Night over: take every card off the table (Dancers back to hands, Nightclubs "
                "shuffled back into the pile).", "turn"))
            out += [Prompt(text, "chore") for text in state["chores"]]
        return out

    def summary(self, state: State) -> dict[str, Any]:
        """The Details panel in words: points and nights won per side, the Lead Dancer,
        tonight's dances with the Dancers the table has revealed and their results, last
        night's point, the Moves counted and the house rules (never a face-down card)."""
        names = [self.side_name(state, side) for side in (0, 1)]
        points = {}
        for side in (0, 1):
            won = sum(1 for w in state["night_winners"] if w == side)
            points[names[side]] = (f"{counted(state['points'][side], 'point')}, "
                                   f"{counted(won, 'night')} won")
        dances: dict[str, str] = {}
        for i, dance in enumerate(state["dances"]):
            shown = []
            for p in range(state["players"]):
                vals = [_effective(state, p, SLOTS[c]) for c in dance["clubs"]
                        if SLOTS[c] in state["revealed"][p]]
                if vals:
                    shown.append(f"{LETTERS[p]} {' and '.join(map(str, vals))}")
            text = ", ".join(shown) if shown else "face down"
            if i < len(state["results"]):
                res = state["results"][i]
                text += ": " + (f"{names[res['winner']]} wins {dance['prestige']} prestige"
                                + (" (Backup Dancers)" if res["by"] == "backup" else "")
                                if res["winner"] is not None else
                                "a draw, nobody wins" if res["by"] == "draw" else
                                "tied, nobody wins")
            elif i == state["dance"] and state["phase"] in ("reveal", "moves", "backups"):
                text += " (now)"
            dances[f"{_dance_name(state, dance)} ({self._clubs_label(state, dance)})"] = text
        out: dict[str, Any] = {
            "night": f"{state['night']} of at most {self.max_nights} "
                     f"({self.points_to_win} points win)",
            "now": self.phase_label(state),
            "points": points,
            "Lead Dancer": (names[state["lead"]] if state["lead"] is not None
                            else "nobody yet"),
        }
        if dances:
            out["tonight's dances"] = dances
            out["prestige tonight"] = {names[side]: str(state["prestige"][side])
                                       for side in (0, 1)}
        backups = {LETTERS[p]: str(state["revealed"][p][BACKUP])
                   for p in range(state["players"]) if BACKUP in state["revealed"][p]}
        if backups:
            out["Backup Dancers shown"] = backups
        last = state["last_night"]
        if last is not None:
            score = f"prestige {last['prestige'][0]} to {last['prestige'][1]}"
            out["last night"] = (f"nobody earned the point ({score})" if last["winner"] is None
                                 else f"{names[last['winner']]} earned the point "
                                      f"({_BY[last['by']]}; {score})")
        if state["variant"] == "advanced":
            out["Moves in hand"] = {LETTERS[p]: str(state["hands"][p])
                                    for p in range(state["players"])}
            out["Moves pile"] = (f"{state['deck']} in the pile, {state['discard']} discarded"
                                 + (f", reshuffled {counted(state['reshuffles'], 'time')}"
                                    if state["reshuffles"] else ""))
        out["house rules"] = {rule.title: rule.choices[self.house_rule(state, rule.id)]
                              for rule in self.house_rules}
        return out

    # --- the tablet's forms ------------------------------------------------------------------

    def phase_label(self, state: State) -> str:
        phase = state["phase"]
        if phase == "over":
            return "Game over"
        night = f"Night {state['night']}"
        cur = self.current_player(state)
        who = LETTERS[cur] if cur is not None else ""
        dance = (_dance_name(state, state["dances"][state["dance"]])
                 if state["dances"] and state["dance"] < len(state["dances"]) else "")
        return {
            "scene": f"{night}: lay out the Nightclubs",
            "placement": f"{night}: place Dancers face down",
            "lead_reveal": f"{night}: {who} (Lead Dancer) reveals a Dancer",
            "swap": f"{night}: {who} may swap two Dancers",
            "reveal": f"{night}: reveal {dance}",
            "moves": f"{night}: {who} plays Moves at {dance}",
            "backups": f"{night}: Backup Dancers for {dance}",
            "night_over": f"{night} is over: clear the table",
        }.get(phase, night)

    def action_forms(self) -> dict[str, ActionForm]:
        seat = FieldForm("player", "Who")
        forms = (
            ActionForm("nightclubs", "Nightclubs laid out", (FieldForm("values", "Nightclubs, "
                                                                      "slot by slot"),),
                       declared=False, hint="The camera reads the four Nightclubs."),
            ActionForm("place", "Dancers placed face down", (seat,), declared=False,
                       hint="The camera sees five face-down cards in front of a seat."),
            ActionForm("lead_reveal", "The Lead Dancer's reveal",
                       (seat, FieldForm("slot", "At which Nightclub"),
                        FieldForm("skill", "Which Dancer")), declared=False,
                       hint="The camera reads the flipped Dancer."),
            ActionForm("swap", "Swap two Dancers",
                       (seat, FieldForm("slots", "Which two Dancers")),
                       hint="The camera cannot see a swap of face-down cards: declare it here "
                            "(each pair of Nightclubs is one button)."),
            ActionForm("pass", "Pass", (seat,), declared=False,
                       hint="The turn button: no swap, or no more Moves now."),
            ActionForm("reveal", "Dancers revealed", (FieldForm("cards", "Dancers shown"),),
                       declared=False, hint="The camera reads the flipped Dancers."),
            ActionForm("move", "Play a Move",
                       (seat, FieldForm("card", "Which Move"),
                        FieldForm("target", "On whose Dancer"),
                        FieldForm("slot", "At which Nightclub")), declared=False,
                       hint="Tap the Move on your reader and lay it on the Dancer."),
            ActionForm("clear", "Table cleared", (), declared=False,
                       hint="The camera sees the table empty after the night."),
        )
        return {form.type: form for form in forms}

    def part_label(self, state: State, action_type: str, field_name: str, index: int,
                   part: Any) -> str | None:
        """One part of a combination, as the tablet asks it part by part: "Nightclub 2",
        "A's Dancer"."""
        if field_name == "values":
            return f"Nightclub {index + 1}"
        if field_name == "cards" and isinstance(part, dict) and part.get("player") in range(len(LETTERS)):
            return f"{LETTERS[part['player']]}'s Dancer"
        return None

    def value_label(self, state: State, action_type: str, field_name: str, value: Any) -> str:
        n = state["players"]
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if field_name in ("player", "target") and is_int and 0 <= value < n:
            return self.player_names(state)[value]
        if field_name == "slot" and value in (*SLOTS, BACKUP):
            return "Backup Dancer" if value == BACKUP else self._club_label(state, value)
        if field_name == "skill" and is_int:
            return f"Dancer {value}"
        if field_name == "slots" and isinstance(value, list) and len(value) == 2:
            return " and ".join(self.value_label(state, action_type, "slot", v) for v in value)
        if field_name == "card" and isinstance(value, str):
            return self.move_names.get(value, "an unknown Move card")
        if field_name == "values" and isinstance(value, list):
            return ", ".join(map(str, value))
        if field_name == "cards" and isinstance(value, list):
            try:
                return ", ".join(
                    f"{LETTERS[c['player']]} Dancer {c['skill']} at "
                    f"{self.value_label(state, action_type, 'slot', c['slot'])}" for c in value)
            except (KeyError, TypeError, IndexError):
                return "Dancers revealed"
        return super().value_label(state, action_type, field_name, value)

    def _pair_word(self, state: State) -> str:
        return "Line" if state["players"] == 4 else "Couples"

    def _order_text(self, state: State) -> str:
        names = [_dance_name(state, d) for d in state["dances"][state["dance"]:]]
        return "Reveal order: " + " -> ".join(names) if names else "All dances revealed."

    def _standing_text(self, state: State) -> str:
        dance = state["dances"][state["dance"]]
        parts = [f"{self.side_name(state, s)} {_side_skills(state, s, dance)}" for s in (0, 1)]
        return f"{_dance_name(state, dance)} now: " + " vs ".join(parts)


_BY = {"prestige": "most prestige", "backup": "tie broken by the higher Backup Dancer",
       "moves": "tie broken by fewer Moves played", "not_lead": "tie broken: not the Lead Dancer",
       "tie": "tied"}
