"""Baron Voodoo: the game's words (a mixin of the game).

What the tablet says: the history line of each action, the prompts, the Details
panel, the action forms and the labels of their values.
"""

from __future__ import annotations

from typing import Any

from companion.games.baron_voodoo.facts import (
    WHITE,
)
from companion.games.baron_voodoo.groups import (
    best_plan,
    valid_groups,
)
from companion.games.baron_voodoo.powers import (
    captures,
    params_text,
    power_options,
)
from companion.games.base import (
    Action,
    ActionForm,
    FieldForm,
    Prompt,
    RuleError,
    State,
    counted,
)


class BaronVoodooWords:
    """``describe``, ``prompts``, ``summary``, ``action_forms``, ``value_label``, ``phase_label``."""

    facts: Any

    def prompts(self, state: State) -> list[Prompt]:
        phase = state["phase"]
        names = self.player_names(state)
        out: list[Prompt] = []
        if phase == "setup":
            out.append(Prompt(
                "Set-up: roll the 48 Soul Dice and place each on a space of its colour (the "
                "centre stays empty), or lay out the Balanced or Chaos layout; then press the "
                "button. Deities: " + ", ".join(f"seat {i + 1} {n}" for i, n in
                                                enumerate(names)), "turn", None))
            return out
        kind = "info" if phase == "over" else "chore"  # the scoring is said, nothing is left to do
        out += [Prompt(note, kind, self.current_player(state)) for note in state["notes"]]
        if phase == "over":
            result = self.outcome(state)
            assert result is not None
            out.append(Prompt(f"Game over: {result.reason}", "info", None))
            return out
        if phase == "final":
            seat = self.current_player(state)
            assert seat is not None
            side = self._side(state, seat)
            options = self.legal_actions(state)[:12]
            best = options[0]["dice"] if options and options[0]["dice"] else []
            text = (f"Final scoring: {self.side_names(state)[side]} moves the Caught Souls to "
                    f"the Underworld and scores one group")
            if best:
                text += f" (best: {self.dice_text(best)} = {self.facts.group_vp[len(best)]} VP)"
            out.append(Prompt(text, "turn", seat))
            out.append(Prompt("Declare the group that scores (or none)", "choice", seat, options))
            return out
        turn = state["turn"]
        seat = self.current_player(state)
        assert seat is not None
        who = names[seat]
        side = self._side(state, seat)
        step = turn["step"]
        if step in ("A", "B"):
            seats = self._possible_actors(state)
            caps = [c for s in seats for c in captures(state, self.facts, state["colours"][s])]
            can = ("may first use a Deity power (own free, another for 1 Offering); "
                   if step == "A" else "")
            who_text = " or ".join(names[s] for s in seats)
            out.append(Prompt(f"{who_text}: {can}capture a die of your colour by jumping an "
                              f"adjacent die ({len(caps)} capture{'s' if len(caps) != 1 else ''}"
                              f" on the board now), then press the button", "turn", seat))
            if not caps:
                ways = [self.capture_way(state, s) for s in seats]
                way = next((w for w in ways if w), None)
                if way:
                    out.append(Prompt(f"No capture on the board as it stands: use a Deity power "
                                      f"first, e.g. {way}", "warning", seat))
                else:
                    out.append(Prompt(f"{who_text} cannot capture by any means: press the "
                                      f"button (or declare 'stuck'); this triggers the end of "
                                      f"the game", "warning", seat))
        else:
            options = self._c_actions(state, seat)
            text = (f"{who} captured {turn['captured'][0]} "
                    f"({self.facts.face_names[turn['captured'][1]]}). Now, in this order and "
                    "each on the mat with a press of the button: an Offering token, turning "
                    "the die, its effect, another turn, a group to the Underworld")
            if self.power_open(state, seat):
                text += "; then a Deity power if you like"
            text += ". Press the button on an untouched table to end the turn."
            out.append(Prompt(text, "turn", seat))
            menu = options[:11] + [{"type": "end_turn", "player": seat}]
            out.append(Prompt("Or tap what the player does next (a choice the mat does not "
                              "show, or a mat out of the camera's view):", "choice", seat, menu))
        nxt = self._next_side(state)
        if nxt is not None and state["end"] is None:
            nseats = self._side_seats(state, nxt)
            if not any(captures(state, self.facts, state["colours"][s]) for s in nseats):
                out.append(Prompt(f"Heads-up: {self.side_names(state)[nxt]} has no capture on "
                                  "the board as it stands", "warning", nseats[0]))
        threshold = self.threshold(state)
        if state["end"] is None:
            need = threshold - state["vp"][side]
            if 0 < need <= 3:
                out.append(Prompt(f"{self.side_names(state)[side]} needs {need} VP to trigger "
                                  f"the end ({threshold} VP)", "info", seat))
        else:
            by = names[state["end"]["by"]]
            why = "reached the VP threshold" if state["end"]["reason"] == "threshold" \
                else "could not capture"
            out.append(Prompt(f"The end is triggered ({by} {why}): finish the round, then "
                              "final scoring", "info", None))
        return out

    def summary(self, state: State) -> dict[str, Any]:
        """The Details panel, shallow and in words (as Swing State's): each side's VP, tokens
        and dice, the Baron Samedi token, what may be done now and the house rules."""
        f = self.facts
        names = self.side_names(state)
        out: dict[str, Any] = {}
        if state["phase"] == "over":
            result = self.outcome(state)
            out["Result"] = result.reason if result else "Game over"
        else:
            out["Now"] = self.phase_label(state)
        threshold = self.threshold(state)
        out["Victory Points"] = {
            names[s]: str(vp) + (f" (x{vp // 20 * 20} marker, {vp % 20} on the track)"
                                 if vp >= 20 else "")
            for s, vp in enumerate(state["vp"])}
        out["The end comes at"] = f"{threshold} VP"
        out["Offering tokens"] = {names[s]: state["offerings"][s] for s in range(state["sides"])}
        out["Offering supply"] = counted(state["supply"], "token")
        seats = self.player_names(state)
        out["Protection"] = {seats[x]: "active" if state["protection"][state["colours"][x]]
                             else "not active" for x in range(state["players"])}
        caught: dict[str, str] = {}
        underworld: dict[str, str] = {}
        best: dict[str, str] = {}
        for s in range(state["sides"]):
            zone = state["caught"][s]
            caught[names[s]] = self.dice_text(zone) or "empty"
            under = state["underworld"][s]
            whites = sum(1 for d in under if d[0] == WHITE)
            underworld[names[s]] = (f"{len(under)} dice, {whites} white" if under else "empty")
            groups = valid_groups(zone, f)
            if groups:
                best[names[s]] = (f"{self.dice_text(groups[0])} = "
                                  f"{f.group_vp[len(groups[0])]} VP (all groups: up to "
                                  f"{best_plan(zone, f)} VP)")
        out["Caught Souls"] = caught
        out["Underworld"] = underworld
        if best:
            out["Best group to send"] = best
        if not state["team"]:
            holder = state["samedi"]
            where = ("sent to the Underworld"
                       if self.house_rule(state, "samedi_goes_to") == "sent" else
                       "in the Underworld")
            out["Baron Samedi"] = (f"{seats[holder]} (most white dice {where})"
                                   if holder is not None else "in the supply")
        if state["phase"] == "play":
            turn = state["turn"]
            ways: list[str] = []
            powers: dict[str, str] = {}
            for seat in self._possible_actors(state):
                if turn["step"] != "C":
                    ways += [f"{a} over {b} to {c}"
                             for a, b, c in captures(state, f, state["colours"][seat])]
                if turn["step"] != "B" and self.power_open(state, seat):
                    for deity in self.usable_powers(state, seat):
                        name = f"{self.deity_name(deity)}'s power"
                        if name in powers:
                            continue
                        count = sum(1 for _ in power_options(
                            state["board"], f, deity, self.house_rule(state, "legba_line")))
                        cost = self.power_cost(state, seat, deity)
                        powers[name] = (f"{'free' if cost == 0 else '1 Offering'}, "
                                        f"{count} way{'s' if count != 1 else ''}")
            if turn["step"] != "C":
                out["Captures now"] = "; ".join(ways[:8]) + (" ..." if len(ways) > 8 else "") \
                    if ways else "none on the board as it stands"
            if powers:
                out["Powers now"] = powers
        if state["end"] is not None and state["phase"] != "over":
            by = seats[state["end"]["by"]]
            why = ("reached the VP threshold" if state["end"]["reason"] == "threshold"
                   else "could not capture")
            out["End"] = f"triggered by {by} ({why}): finish the round, then final scoring"
        if state["bonuses"]:
            out["End bonuses"] = {f"{names[b['side']]}, {b['why']}": f"+{b['vp']} VP"
                                  for b in state["bonuses"]}
        layout = state["layout"]
        out["Dice"] = (f"{sum(len(v) for v in state['board'].values())} on the grid"
                       + (f", {layout} layout" if layout and layout != "random" else ""))
        out["House rules"] = {rule.title: rule.choices[self.house_rule(state, rule.id)]
                              for rule in self.house_rules}
        return out

    # --- the tablet's forms -------------------------------------------------------------------
    def phase_label(self, state: State) -> str:
        phase = state["phase"]
        if phase == "setup":
            return "Set-up: Deities and the dice"
        if phase == "final":
            return "Final scoring"
        if phase == "over":
            return "Game over"
        turn = state["turn"]
        who = self.player_names(state)[self.current_player(state)]
        step = {"A": "a Deity power or the capture", "B": "the capture",
                "C": "after the capture"}[turn["step"]]
        return f"Round {state['round']}, {who}: {step}"

    def action_forms(self) -> dict[str, ActionForm]:
        who = FieldForm("player", "Who")
        whole = " Each choice is a whole group: tap it."
        return {f.type: f for f in (
            ActionForm("deities", "Deities at the table", (FieldForm("colours", "Seats"),),
                       hint="Each seat's Deity, seat by seat."),
            ActionForm("setup", "Dice set up", (FieldForm("layout", "Layout"),
                                                 FieldForm("board", "Dice")), declared=False),
            ActionForm("capture", "Capture", (who, FieldForm("to", "Land on"),
                                               FieldForm("from", "Jump from"),
                                               FieldForm("over", "Over")), declared=False),
            ActionForm("power", "Deity power",
                       (who, FieldForm("deity", "Power"), FieldForm("line", "Line"),
                        FieldForm("edge", "To the edge"), FieldForm("from", "Move the die on"),
                        FieldForm("to", "To"), FieldForm("a", "Swap the die on"),
                        FieldForm("b", "With the die on")), declared=False),
            ActionForm("stuck", "No capture possible", (who,), declared=False,
                       hint="Triggers the end of the game."),
            ActionForm("take_offering", "Take an Offering token", (who,),
                       hint="The captured die is your Deity's colour."),
            ActionForm("change_face", "Turn the captured die (1 Offering)",
                       (who, FieldForm("face", "To")),),
            ActionForm("effect", "The captured die's effect",
                       (who, FieldForm("victim", "Steal from"), FieldForm("a", "Swap between"),
                        FieldForm("b", "And"), FieldForm("die", "Die"),
                        FieldForm("new_face", "Turn it to"), FieldForm("a_die", "Their die"),
                        FieldForm("b_die", "For the die")),
                       hint="Only the fields the captured face needs are asked; each die "
                            "choice is one die."),
            ActionForm("extra_turn", "Another turn (2 Offerings)", (who,)),
            ActionForm("send", "Send a group to the Underworld",
                       (who, FieldForm("dice", "Group")), hint="Scores 1, 3 or 5 VP." + whole),
            ActionForm("end_turn", "End the turn", (who,), declared=False),
            ActionForm("final_group", "Final scoring: the one group that scores",
                       (who, FieldForm("dice", "Group")), hint="Or no group." + whole),
        )}

    def deity_name(self, power: str) -> str:
        f = self.facts
        return str(f.deities[f.power_colour[power]]["name"])

    def die_text(self, die: list[str]) -> str:
        """A die as the players say it: "white VP", "red Change face"."""
        return f"{die[0]} {self.facts.face_names.get(die[1], die[1])}"

    def dice_text(self, dice: list[list[str]]) -> str:
        return " + ".join(self.die_text(d) for d in dice)

    def cell_text(self, state: State, cell: str) -> str:
        """A space with what lies on top: "C4 (yellow Offering, 2 high)", "D4 (empty)"."""
        stack = state["board"].get(cell) or []
        if not stack:
            return f"{cell} (empty)"
        high = f", {len(stack)} high" if len(stack) > 1 else ""
        return f"{cell} ({self.die_text(stack[-1])}{high})"

    def part_label(self, state: State, action_type: str, field_name: str, index: int,
                   part: Any) -> str | None:
        """One part of a combination, as the tablet asks it part by part: "Seat 2"."""
        if field_name == "colours":
            return f"Seat {index + 1}"
        return None

    def value_label(self, state: State, action_type: str, field_name: str, value: Any) -> str:
        try:
            return self._value_label(state, action_type, field_name, value)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return str(value)

    def _value_label(self, state: State, kind: str, name: str, value: Any) -> str:
        f = self.facts
        seats = self.player_names(state)
        if name in ("player", "victim") or (kind == "effect" and name in ("a", "b")):
            return seats[value]
        if name in ("from", "to", "over", "a", "b"):
            return self.cell_text(state, value)
        if name == "deity":
            return f"{self.deity_name(value)}'s power"
        if name == "line":
            return f"Row {value}" if value in f.row_labels() else f"Column {value}"
        if name == "edge":
            return {"left": "Left", "right": "Right", "top": "Top", "bottom": "Bottom"}[value]
        if name in ("face", "new_face"):
            return f.face_names[value]
        if name in ("die", "a_die", "b_die"):
            return self.die_text(value)
        if name == "dice":
            if not value:
                return "No group"
            return f"{self.dice_text(value)} ({f.group_vp[len(value)]} VP)"
        if name == "colours":
            return ", ".join(f"{i + 1}: {f.deities[c]['name']}" for i, c in enumerate(value))
        if name == "layout":
            return "Rolled at random" if value == "random" else f"{value.title()} layout"
        if name == "board":
            return f"{sum(len(v) for v in value.values())} dice on the grid"
        return str(value)

    # --- descriptions ---------------------------------------------------------------------------
    def describe(self, state: State, action: Action) -> str:
        try:
            return self._describe(state, action)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return super().describe(state, action)

    def _describe(self, state: State, action: Action) -> str:
        kind = action.get("type")
        names = self.player_names(state)
        who = names[action["player"]] if isinstance(action.get("player"), int) and \
            0 <= action["player"] < state["players"] else "table"
        fn = self.facts.face_names
        if kind == "setup":
            layout = self.facts.layouts.get(action.get("layout", ""), {})
            n = sum(len(v) for v in action["board"].values()) if "board" in action \
                else len(layout)
            return f"Set-up: {action.get('layout', 'random')} layout, {n} dice on the grid"
        if kind == "deities":
            return "Deities: " + ", ".join(
                f"seat {i + 1} {self.facts.deities[c]['name']}"
                for i, c in enumerate(action["colours"]))
        if kind == "capture":
            frm, to = action["from"], action["to"]
            mid = action.get("over") or self._mid(frm, to)
            stack = state["board"].get(mid) if mid else None
            what = f"{stack[-1][0]} ({fn[stack[-1][1]]})" if stack else "a die"
            return f"{who} captures {what} on {mid}: {frm} -> {to}"
        if kind == "power":
            deity = action["deity"]
            dname = self.facts.deities[self.facts.power_colour[deity]]["name"]
            try:
                cost = self.power_cost(state, action["player"], deity)
            except RuleError:
                cost = 1
            paid = " (1 Offering)" if cost else ""
            own = self.facts.deities[state["colours"][action["player"]]]["power"] == deity
            power = "own power" if own else f"{dname}'s power"
            return f"{who} uses {power}{paid}: {params_text(deity, action)}"
        if kind == "take_offering":
            return f"{who} takes 1 Offering token (captured own colour)"
        if kind == "change_face":
            return f"{who} pays 1 Offering: captured die turned to {fn[action['face']]}"
        if kind == "effect":
            face = state["turn"]["captured"][1] if state.get("turn") else "?"
            text = f"{who} applies {fn.get(face, face)}"
            if face == "change":
                text += f": {self.dice_text([action['die']])} -> {fn[action['new_face']]}"
            elif face == "steal":
                text += f": {self.dice_text([action['die']])} from {names[action['victim']]}"
            elif face == "swap":
                text += (f": {names[action['a']]}'s {self.dice_text([action['a_die']])} <-> "
                         f"{names[action['b']]}'s {self.dice_text([action['b_die']])}")
            return text
        if kind == "extra_turn":
            return f"{who} pays 2 Offerings for another turn"
        if kind == "send":
            dice = action["dice"]
            vp = self.facts.group_vp.get(len(dice), 0)
            return f"{who} sends {self.dice_text(dice)} to the Underworld: +{vp} VP"
        if kind == "final_group":
            dice = action["dice"]
            if not dice:
                return f"{who}: final scoring, no group"
            return f"{who}: final group {self.dice_text(dice)} +" \
                   f"{self.facts.group_vp.get(len(dice), 0)} VP"
        if kind == "end_turn":
            return f"{who} ends the turn"
        if kind == "stuck":
            return f"{who} cannot capture: the end is triggered"
        return super().describe(state, action)
