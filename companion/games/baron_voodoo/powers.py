"""Baron Voodoo: captures and the Deity powers on the grid.

Pure functions on the board (which captures exist, what a power does, every way
a power may be used) and the powers' part of the rules (a mixin: using a power,
its cost, who may use which).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from companion.games.baron_voodoo.facts import (
    DIRS,
    POWERS,
    RULES,
    STACK_MAX,
    Facts,
)
from companion.games.base import (
    Action,
    MalformedAction,
    RuleError,
    State,
    require,
)


class BaronVoodooPowers:
    """The Deity powers' rules; mixed into :class:`BaronVoodooRules`, whose helpers they use."""

    facts: Any

    def _do_power(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        deity = require(action, "deity", str)
        if deity not in POWERS:
            raise MalformedAction(f"'deity' is one of {', '.join(POWERS)}")
        params = self._power_params(deity, action)
        self._check_actor(state, seat)
        turn = state["turn"]
        if not self.power_open(state, seat):
            raise RuleError("a Deity power was already used this turn", RULES["power_once"]
                            + "; " + RULES["samedi_powers"])
        if turn["step"] == "B":
            raise RuleError("a power at the start of the turn comes before the capture; the "
                            "next one may come only at the end of the turn", RULES["power_once"])
        cost = self.power_cost(state, seat, deity)
        side = self._side(state, seat)
        if state["offerings"][side] < cost:
            raise RuleError(f"another Deity's power costs {cost} Offering token; you have "
                            f"{state['offerings'][side]}", RULES["pay"])
        changes = power_result(state["board"], self.facts, deity, params,
                               self.house_rule(state, "legba_line"))
        state["board"].update(changes)
        state["offerings"][side] -= cost
        state["supply"] += cost
        if cost:
            state["notes"].append("Put 1 Offering token back in the supply")
        at_end = turn["step"] == "C"
        turn.update(actor=seat, power_used=True)
        if at_end:
            self._end_turn(state)
        else:
            turn["step"] = "B"


    # --- queries the dashboard and the world use ----------------------------------------------
    def power_cost(self, state: State, seat: int, deity: str) -> int:
        """0 for one's own Deity or for the Baron Samedi holder, else 1 (refused for a Deity
        no player has under the house rule ``other_powers`` = ``in_play``)."""
        colour = state["colours"][seat]
        if self.facts.deities[colour]["power"] == deity:
            return 0
        if not state["team"] and state["samedi"] == seat:
            return 0
        dcolour = self.facts.power_colour[deity]
        if self.house_rule(state, "other_powers") == "in_play" and dcolour not in \
                state["colours"]:
            raise RuleError(f"no player has {self.facts.deities[dcolour]['name']}",
                            RULES["power_in_play"])
        return 1

    def usable_powers(self, state: State, seat: int) -> list[str]:
        """The Deity powers ``seat`` may use now, by what they cost and what they hold."""
        side = self._side(state, seat)
        out = []
        for deity in POWERS:
            try:
                cost = self.power_cost(state, seat, deity)
            except RuleError:
                continue
            if cost <= state["offerings"][side]:
                out.append(deity)
        return out

    def power_open(self, state: State, seat: int) -> bool:
        """May ``seat`` still use a Deity power this turn?  One per turn (A, or D if none in
        A); under the house rule ``samedi_powers`` = ``step`` the Baron Samedi holder may use
        one in A and another in D."""
        turn = state["turn"]
        if turn is None:
            return False
        if not turn["power_used"]:
            return True
        return (turn["step"] == "C" and not state["team"] and state["samedi"] == seat
                and self.house_rule(state, "samedi_powers") == "step")

    def capture_way(self, state: State, seat: int) -> str | None:
        """A way for ``seat`` to capture now (directly or after a power), or None: stuck."""
        f = self.facts
        colour = state["colours"][seat]
        direct = captures(state, f, colour)
        if direct:
            frm, over, to = direct[0]
            return f"{frm} over {over} to {to}"
        turn = state["turn"]
        if turn is None or turn["power_used"]:
            return None
        protected = {c for c, on in state["protection"].items() if on}
        for deity in self.usable_powers(state, seat):
            for params, changes in power_options(state["board"], f, deity,
                                                 self.house_rule(state, "legba_line")):
                board = {**state["board"], **changes}
                if captures_on(board, f, colour, protected):
                    name = f.deities[f.power_colour[deity]]["name"]
                    return f"{name}'s power ({params_text(deity, params)}), then capture"
        return None


    def _power_params(self, deity: str, action: Action) -> dict[str, str]:
        f = self.facts
        if deity == "mami_wata":
            line = require(action, "line", str)
            edge = require(action, "edge", str)
            if line in f.row_labels():
                if edge not in ("left", "right"):
                    raise MalformedAction("a row slides to the 'left' or 'right' edge")
            elif line in f.col_labels():
                if edge not in ("top", "bottom"):
                    raise MalformedAction("a column slides to the 'top' or 'bottom' edge")
            else:
                raise MalformedAction(f"'line' is a row 1-{f.rows} or a column A-"
                                      f"{f.col_labels()[-1]}")
            return {"line": line, "edge": edge}
        keys = ("a", "b") if deity == "erzulie_freda" else ("from", "to")
        return {k: self._cell(action, k) for k in keys}

    def _power_actions(self, state: State, seat: int) -> list[Action]:
        out = []
        for deity in self.usable_powers(state, seat):
            for params, _ in power_options(state["board"], self.facts, deity,
                                           self.house_rule(state, "legba_line")):
                out.append({"type": "power", "player": seat, "deity": deity, **params})
        return out



# --------------------------------------------------------------------------- grid helpers


def captures(state: State, f: Facts, colour: str) -> list[tuple[str, str, str]]:
    """Legal captures (from, over, to) for dice of ``colour`` on the tracked board."""
    protected = {c for c, on in state["protection"].items() if on}
    return list(_iter_captures(state["board"], f, colour, protected))


def _iter_captures(board: dict[str, list], f: Facts, colour: str,
                   protected: set[str]) -> Iterator[tuple[str, str, str]]:
    for frm in f.cells:
        stack = board[frm]
        if not stack or stack[-1][0] != colour:
            continue
        for d in DIRS:
            mid, to = f.step(frm, d, 1), f.step(frm, d, 2)
            if mid is None or to is None:
                continue
            if not board[mid] or board[mid][-1][0] in protected:
                continue
            if len(board[to]) >= STACK_MAX:
                continue
            yield frm, mid, to


def captures_on(board: dict[str, list], f: Facts, colour: str, protected: set[str]) -> bool:
    return next(_iter_captures(board, f, colour, protected), None) is not None


def line_cells(f: Facts, line: str, edge: str) -> list[str]:
    """The cells of a row or column, ordered from ``edge`` inwards (a copy: the caller's)."""
    lines: dict[tuple[str, str], list[str]] = f.__dict__.setdefault("_line_cells", {})
    if (line, edge) not in lines:
        lines[line, edge] = _line_cells(f, line, edge)
    return list(lines[line, edge])


def _line_cells(f: Facts, line: str, edge: str) -> list[str]:
    if line in f.row_labels():
        r = int(line) - 1
        cells = [f.at(r, c) for c in range(f.cols)]
        if edge == "right":
            cells.reverse()
    else:
        c = ord(line) - ord("A")
        cells = [f.at(r, c) for r in range(f.rows)]
        if edge == "bottom":
            cells.reverse()
    return [c for c in cells if c is not None]


def _isolated(board: dict[str, list], f: Facts, cell: str) -> bool:
    return all(not board[n] for n in f.neighbours(cell))


def _same_line(f: Facts, a: str, b: str, legba: str = "row") -> bool:
    """Papa Legba's line: the same row, or (house rule ``legba_line``) row or column."""
    (ra, ca), (rb, cb) = f.coord[a], f.coord[b]
    if legba == "row":
        return ra == rb
    return ra == rb or ca == cb


def power_result(board: dict[str, list], f: Facts, deity: str,
                 params: dict[str, str], legba: str = "row") -> dict[str, list]:
    """The cells a power changes (cell -> new stack), or RuleError citing the power."""
    rule = RULES[deity]
    if deity == "mami_wata":
        cells = line_cells(f, params["line"], params["edge"])
        stacks = [board[c] for c in cells if board[c]]
        changes = {c: [list(d) for d in stacks[i]] if i < len(stacks) else []
                   for i, c in enumerate(cells)}
        if f.readings.get("power_must_move") and all(changes[c] == board[c] for c in cells):
            raise RuleError(f"no die of line {params['line']} would move to the "
                            f"{params['edge']} edge", RULES["power_moves"] + "; " + rule)
        return changes
    if deity == "papa_legba":
        frm, to = params["from"], params["to"]
        if not board[frm]:
            raise RuleError(f"there is no die on {frm}", rule)
        if board[to]:
            raise RuleError(f"{to} is not an empty space", rule)
        if frm == to or not _same_line(f, frm, to, legba):
            line = "row" if legba == "row" else "row or column"
            raise RuleError(f"{to} is not in the same {line} as {frm}", rule)
        return {frm: [list(d) for d in board[frm][:-1]], to: [list(board[frm][-1])]}
    if deity == "gran_bwa":
        frm, to = params["from"], params["to"]
        if len(board[frm]) < 2:
            raise RuleError(f"{frm} is not a column: only the die lying on the board is there",
                            rule)
        if frm == to or not board[to]:
            raise RuleError(f"{to} holds no other die to put the column on", rule)
        if len(board[to]) + len(board[frm]) - 1 > STACK_MAX:
            raise RuleError(f"{to} would hold {len(board[to]) + len(board[frm]) - 1} dice",
                            RULES["stack_max"])
        return {frm: [list(board[frm][0])],
                to: [list(d) for d in board[to]] + [list(d) for d in board[frm][1:]]}
    a, b = params["a"], params["b"]
    if a == b or not board[a] or not board[b]:
        raise RuleError("choose two different spaces with dice", rule)
    if f.readings.get("erzulie_separated") == "apart":
        if b in f.neighbours(a):
            raise RuleError(f"{a} and {b} are side by side, not separated", rule)
    else:
        for cell in (a, b):
            if not _isolated(board, f, cell):
                raise RuleError(f"the die on {cell} is not separated: it has a die beside it",
                                rule)
    if f.readings.get("power_must_move") and board[a][-1] == board[b][-1]:
        raise RuleError("the two dice look the same: nothing would change",
                        RULES["power_moves"])
    return {a: [list(d) for d in board[a][:-1]] + [list(board[b][-1])],
            b: [list(d) for d in board[b][:-1]] + [list(board[a][-1])]}


def power_options(board: dict[str, list], f: Facts, deity: str,
                  legba: str = "row") -> Iterator[tuple[dict[str, str], dict[str, list]]]:
    """Every legal use of a Deity's power on ``board`` (parameters, changed cells);
    ``legba`` is the table's reading of Papa Legba's line (house rule ``legba_line``)."""
    for params in _power_params_space(board, f, deity, None, legba):
        try:
            yield params, power_result(board, f, deity, params, legba)
        except RuleError:
            continue


def physical_power_options(board: dict[str, list], f: Facts, deity: str,
                           changed: set[str]) -> Iterator[tuple[dict[str, str], dict[str, list]]]:
    """Every way hands could have carried out ``deity``'s power, legal or not, that could
    account for the ``changed`` cells (used by explain; apply() judges them)."""
    for params in _power_params_space(board, f, deity, changed):
        if changed and not changed <= _touched(f, deity, params):
            continue  # leaves a changed cell as it was: cannot account for it
        yield params, _power_physical(board, f, deity, params)


def _touched(f: Facts, deity: str, params: dict[str, str]) -> set[str]:
    """The cells ``deity``'s power with ``params`` lays hands on (what it may change)."""
    if deity == "mami_wata":
        return set(line_cells(f, params["line"], params["edge"]))
    if deity == "erzulie_freda":
        return {params["a"], params["b"]}
    return {params["from"], params["to"]}


def _power_params_space(board: dict[str, list], f: Facts, deity: str,
                        changed: set[str] | None, legba: str = "row") -> Iterator[dict[str, str]]:
    occupied = [c for c in f.cells if board[c]]
    if deity == "mami_wata":
        for line in f.row_labels():
            for edge in ("left", "right"):
                yield {"line": line, "edge": edge}
        for line in f.col_labels():
            for edge in ("top", "bottom"):
                yield {"line": line, "edge": edge}
    elif deity == "papa_legba":
        if changed is None:
            for frm in occupied:
                for to in f.cells:
                    if not board[to] and to != frm and _same_line(f, frm, to, legba):
                        yield {"from": frm, "to": to}
        else:
            for to in changed:
                if not board[to]:
                    for frm in occupied:
                        yield {"from": frm, "to": to}
    elif deity == "gran_bwa":
        for frm in occupied:  # the target may look unchanged (same top): try every one
            if len(board[frm]) >= 2:
                for to in occupied:
                    if to != frm:
                        yield {"from": frm, "to": to}
    else:
        pool = occupied if changed is None else [c for c in occupied if c in changed]
        if changed is None:
            pool = [c for c in pool if f.readings.get("erzulie_separated") == "apart"
                    or _isolated(board, f, c)]
        for a, b in itertools.combinations(pool, 2):
            yield {"a": a, "b": b}


def _power_physical(board: dict[str, list], f: Facts, deity: str,
                    params: dict[str, str]) -> dict[str, list]:
    """What the hands did, without the power's conditions (kept for apply to judge)."""
    if deity == "mami_wata":
        cells = line_cells(f, params["line"], params["edge"])
        stacks = [board[c] for c in cells if board[c]]
        return {c: stacks[i] if i < len(stacks) else [] for i, c in enumerate(cells)}
    if deity == "papa_legba":
        frm, to = params["from"], params["to"]
        return {frm: board[frm][:-1], to: board[to] + board[frm][-1:]}
    if deity == "gran_bwa":
        frm, to = params["from"], params["to"]
        return {frm: board[frm][:1], to: board[to] + board[frm][1:]}
    a, b = params["a"], params["b"]
    return {a: board[a][:-1] + board[b][-1:], b: board[b][:-1] + board[a][-1:]}


def params_text(deity: str, params: dict[str, str]) -> str:
    if deity == "mami_wata":
        return f"line {params['line']} to the {params['edge']}"
    if deity == "erzulie_freda":
        return f"{params['a']} <-> {params['b']}"
    return f"{params['from']} -> {params['to']}"
