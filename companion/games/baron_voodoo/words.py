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
    describe_dice,
    valid_groups,
)
from companion.games.baron_voodoo.powers import (
    captures,
    params_text,
    power_options,
)
from companion.games.base import (
    Action,
    Prompt,
    RuleError,
    State,
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
        out += [Prompt(note, "chore", self.current_player(state)) for note in state["notes"]]
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
                text += f" (best: {describe_dice(best)} = {self.facts.group_vp[len(best)]} VP)"
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
            text = (f"{who}: after the capture of {turn['captured'][0]} "
                    f"({self.facts.face_names[turn['captured'][1]]}): C1-C5 in order on the "
                    f"tablet")
            if self.power_open(state, seat):
                text += ", a Deity power at the end (D)"
            text += ", then press the button to end the turn"
            out.append(Prompt(text, "turn", seat))
            menu = options[:11] + [{"type": "end_turn", "player": seat}]
            out.append(Prompt("What does the player do next (the tracker cannot see tokens or "
                              "the Deity boards)?", "choice", seat, menu))
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
        f = self.facts
        names = self.side_names(state)
        sides = []
        for s in range(state["sides"]):
            seats = self._side_seats(state, s)
            caught = state["caught"][s]
            groups = valid_groups(caught, f)
            best = groups[0] if groups else []
            vp = state["vp"][s]
            sides.append({
                "side": s,
                "name": names[s],
                "seats": seats,
                "deities": [f.deities[state["colours"][x]]["name"] for x in seats],
                "colours": [state["colours"][x] for x in seats],
                "vp": vp,
                "x20": vp // 20,
                "track": vp % 20,
                "offerings": state["offerings"][s],
                "protection": {state["colours"][x]: state["protection"][state["colours"][x]]
                               for x in seats},
                "caught": caught,
                "underworld": state["underworld"][s],
                "white_in_underworld": sum(1 for d in state["underworld"][s] if d[0] == WHITE),
                "best_group": {"dice": best, "vp": f.group_vp[len(best)] if best else 0},
                "best_plan_vp": best_plan(caught, f),
                "groups_possible": len(groups),
            })
        board = state["board"]
        turn = state["turn"]
        legal_captures: list[dict[str, Any]] = []
        power_targets: dict[str, dict[str, Any]] = {}
        if state["phase"] == "play":
            for seat in self._possible_actors(state):
                if turn["step"] != "C":
                    legal_captures += [{"player": seat, "from": a, "over": b, "to": c}
                                       for a, b, c in captures(state, f, state["colours"][seat])]
                if turn["step"] != "B" and self.power_open(state, seat):
                    for deity in self.usable_powers(state, seat):
                        if deity in power_targets:
                            continue
                        options = [p for p, _ in power_options(
                            board, f, deity, self.house_rule(state, "legba_line"))]
                        power_targets[deity] = {"cost": self.power_cost(state, seat, deity),
                                                "count": len(options), "first": options[:12]}
        return {
            "legal_captures": legal_captures,
            "power_targets": power_targets,
            "variant": state["variant"],
            "layout": state["layout"],
            "phase": self.phase(state),
            "round": state["round"],
            "threshold": self.threshold(state),
            "sides": sides,
            "supply": state["supply"],
            "baron_samedi": state["samedi"],
            "baron_samedi_name": (self.player_names(state)[state["samedi"]]
                                  if state["samedi"] is not None else None),
            "end": state["end"],
            "bonuses": state["bonuses"],
            "turn": None if turn is None else {
                "side": turn["side"], "actor": turn["actor"], "step": turn["step"],
                "power_used": turn["power_used"], "captured": turn["captured"],
                "c_step": turn["c_step"], "extra": turn["extra"]},
            "grid": {cell: board[cell] for cell in f.cells if board[cell]},
            "heights": {cell: len(board[cell]) for cell in f.cells if board[cell]},
            "dice_on_board": sum(len(v) for v in board.values()),
        }

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
                text += f": {describe_dice([action['die']])} -> {fn[action['new_face']]}"
            elif face == "steal":
                text += f": {describe_dice([action['die']])} from {names[action['victim']]}"
            elif face == "swap":
                text += (f": {names[action['a']]}'s {describe_dice([action['a_die']])} <-> "
                         f"{names[action['b']]}'s {describe_dice([action['b_die']])}")
            return text
        if kind == "extra_turn":
            return f"{who} pays 2 Offerings for another turn"
        if kind == "send":
            dice = action["dice"]
            vp = self.facts.group_vp.get(len(dice), 0)
            return f"{who} sends {describe_dice(dice)} to the Underworld: +{vp} VP"
        if kind == "final_group":
            dice = action["dice"]
            if not dice:
                return f"{who}: final scoring, no group"
            return f"{who}: final group {describe_dice(dice)} +" \
                   f"{self.facts.group_vp.get(len(dice), 0)} VP"
        if kind == "end_turn":
            return f"{who} ends the turn"
        if kind == "stuck":
            return f"{who} cannot capture: the end is triggered"
        return super().describe(state, action)
