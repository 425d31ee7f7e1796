"""Baron Voodoo: the grid as the camera sees it (a mixin of the game).

Where the spaces are, what the camera should see for a tracked state, and which
captures or powers explain a change seen on the grid.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from companion.games.baron_voodoo.facts import (
    DIRS,
    POWERS,
    WHITE,
)
from companion.games.baron_voodoo.powers import (
    physical_power_options,
)
from companion.games.base import (
    Action,
    BoardView,
    Layout,
    Piece,
    Spot,
    State,
    Tap,
    Trigger,
    make_view,
)


class BaronVoodooBoard:
    """``layout``, ``board_view`` and ``explain``; mixed into :class:`BaronVoodoo`."""

    facts: Any

    # --- the physical table -----------------------------------------------------------------------
    def layout(self, state: State) -> Layout:
        f = self.facts
        size, margin = f.cell_mm, f.margin_mm
        spots = []
        for cell in f.cells:
            r, c = f.coord[cell]
            printed = f.printed[cell]
            fill = "dark_fill" if printed == "black" else (
                "light_fill" if (r + c) % 2 == 0 else "board")
            spots.append(Spot(cell, margin + c * size + 1, margin + r * size + 1, size - 2,
                              size - 2, f"{cell} {printed}", fill))
        pieces = {colour: f"{info['name']} Soul Die" for colour, info in f.deities.items()}
        pieces[WHITE] = "white Soul Die (joker)"
        return Layout(
            width=2 * margin + f.cols * size,
            height=2 * margin + f.rows * size,
            spots=tuple(spots),
            pieces=pieces,
            marks={colour: (min(f.face_pips.values()), max(f.face_pips.values())) for colour in pieces},
            shapes={colour: "square" for colour in f.dice},
        )

    def board_view(self, state: State) -> BoardView:
        return make_view({cell: [self.piece(stack[-1])] for cell, stack in
                          state["board"].items() if stack})

    def piece(self, die: list[str]) -> Piece:
        """The camera's reading of a die: its colour and its face icon as pips."""
        return Piece(die[0], self.facts.face_pips[die[1]])

    def explain(self, state: State, seen: BoardView, taps: list[Tap],
                trigger: Trigger) -> list[Action]:
        """Board changes are recorded on the button (a half-done Mami Wata slide is a stable
        board too).  The candidates are every physically possible capture and power that
        turns the tracked grid into ``seen``, legal or not: apply() refuses the illegal ones
        with their rule, which becomes the prompt."""
        if trigger != "button":
            return []
        phase = state["phase"]
        if phase == "setup":
            return [self._setup_from_view(seen)]
        if phase != "play":
            return []
        turn = state["turn"]
        expected = self.board_view(state)
        if dict(seen) == dict(expected):
            seat = self.current_player(state)
            if turn["step"] == "C":
                return [{"type": "end_turn", "player": seat}]
            return [{"type": "stuck", "player": seat}]
        seen_top: dict[str, Piece | None] = {}
        for cell, pieces in seen.items():
            if cell not in self.facts.coord or len(pieces) != 1:
                return []
            seen_top[cell] = pieces[0]
        exp_top = {cell: pieces[0] for cell, pieces in expected.items()}
        changed = {c for c in set(seen_top) | set(exp_top) if seen_top.get(c) != exp_top.get(c)}
        out: list[Action] = []
        for action, new_cells in self._physical_moves(state, changed):
            if not changed <= new_cells.keys():
                continue
            if all((self.piece(st[-1]) if st else None) == seen_top.get(cell)
                   for cell, st in new_cells.items()):
                if action not in out:
                    out.append(action)
        return out


    def _physical_moves(self, state: State,
                        changed: set[str]) -> Iterator[tuple[Action, dict[str, list]]]:
        """Every capture and power the hands could have made, whatever the rules say."""
        f = self.facts
        board = state["board"]
        turn = state["turn"]
        actors = self._possible_actors(state)
        by_colour = {state["colours"][s]: s for s in actors}
        fallback = actors[0]
        if changed:
            for frm in f.cells:
                if not board[frm]:
                    continue
                seat = by_colour.get(board[frm][-1][0], fallback)
                for d in DIRS:
                    mid, to = f.step(frm, d, 1), f.step(frm, d, 2)
                    if mid is None or to is None or not board[mid]:
                        continue
                    cells = {frm: board[frm][:-1], mid: board[mid][:-1],
                             to: board[to] + [board[frm][-1]]}
                    yield ({"type": "capture", "player": seat, "from": frm, "over": mid,
                            "to": to}, cells)
        if not self.power_open(state, turn["actor"] if turn["actor"] is not None
                               else turn["default"]) or len(changed) == 0:
            return
        for deity in POWERS:
            seat = by_colour.get(f.power_colour[deity], turn["actor"] if turn["actor"]
                                 is not None else fallback)
            for params, cells in physical_power_options(board, f, deity, changed):
                yield {"type": "power", "player": seat, "deity": deity, **params}, cells

    def _setup_from_view(self, seen: BoardView) -> Action:
        f = self.facts
        board: dict[str, list[list[Any]]] = {}
        for cell, pieces in seen.items():
            board[cell] = [[p.colour, f.pips_face.get(p.pips, f"pips {p.pips}")]
                           for p in pieces]
        layout = "random"
        for name, lay in f.layouts.items():
            if {c: [d] for c, d in lay.items()} == board:
                layout = name
        return {"type": "setup", "layout": layout, "board": board}
