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

MAT_PREFIXES = ("souls", "offer")
MAT_MOVES = ("take_offering", "change_face", "effect", "extra_turn", "send", "final_group")
"""Step C moves and the final group: what they change lies on the mats, not the grid."""


def soul_place(side: int, index: int) -> str:
    return f"souls{side}-{index}"


def token_place(side: int, index: int) -> str:
    return f"offer{side}-{index}"


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
        marks = {colour: (min(f.face_pips.values()), max(f.face_pips.values())) for colour in pieces}
        shapes = {colour: "square" for colour in f.dice}
        mat = f.mats
        token = mat["token_colour"]
        pieces[token] = "Offering token"
        shapes[token] = "disc"
        names = self.side_names(state)
        x = 2 * margin + f.cols * size  # the mats stand in a row right of the main board
        for side in range(state["sides"]):
            owner = names[side].split(" (")[0]
            for i in range(mat["caught_places"]):
                spots.append(Spot(soul_place(side, i), x, margin + i * mat["die_mm"], mat["die_mm"],
                                  mat["die_mm"], f"{owner}: Caught Soul {i + 1}", "light_fill"))
            for i in range(mat["offering_places"]):
                spots.append(Spot(token_place(side, i), x + mat["die_mm"], margin + i * mat["die_mm"],
                                  mat["token_mm"], mat["die_mm"], f"{owner}: Offering {i + 1}",
                                  "light_fill"))
            x += mat["die_mm"] + mat["token_mm"] + mat["gap_mm"]
        return Layout(
            width=x - mat["gap_mm"] + margin,
            height=2 * margin + f.rows * size,
            spots=tuple(spots),
            pieces=pieces,
            marks=marks,
            shapes=shapes,
        )

    def board_view(self, state: State) -> BoardView:
        """The top die of every cell, and on each side's mat its Caught Souls (from the top
        place down) and its Offering tokens, as far as the mat has places."""
        items: dict[str, list[Piece]] = {cell: [self.piece(stack[-1])] for cell, stack in
                                         state["board"].items() if stack}
        mat = self.facts.mats
        for side in range(state["sides"]):
            # in a fixed order: where on the mat a die lies says nothing
            for i, die in enumerate(sorted(state["caught"][side])[:mat["caught_places"]]):
                items[soul_place(side, i)] = [self.piece(die)]
            for i in range(min(state["offerings"][side], mat["offering_places"])):
                items[token_place(side, i)] = [Piece(mat["token_colour"], 0)]
        return make_view(items)

    def mats_seen(self, view: BoardView, sides: int) -> list[tuple[list[Piece], int]] | None:
        """Each side's Caught Souls (as a sorted list: where on the mat a die lies does not
        matter) and its count of Offering tokens; None when the camera sees no mat at all
        (a table whose mats are out of view, or a replay that names the grid only)."""
        if not any(spot.startswith(MAT_PREFIXES) for spot in view):
            return None
        out = []
        for side in range(sides):
            souls = sorted((p for spot, ps in view.items() if spot.startswith(f"souls{side}-")
                            for p in ps), key=lambda p: (p.colour, p.pips))
            tokens = sum(len(ps) for spot, ps in view.items() if spot.startswith(f"offer{side}-"))
            out.append((souls, tokens))
        return out

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
        grid = {cell: pieces for cell, pieces in seen.items() if cell in self.facts.coord}
        if phase == "setup":
            return [self._setup_from_view(make_view(grid))]
        if phase not in ("play", "final"):
            return []
        expected = self.board_view(state)
        mats = self.mats_seen(seen, state["sides"])
        mats_changed = mats is not None and mats != self.mats_seen(expected, state["sides"])
        exp_grid = {cell: pieces for cell, pieces in expected.items() if cell in self.facts.coord}
        if grid == exp_grid and mats_changed:
            return self._explain_mats(state, seen)
        if phase == "final":
            return []
        turn = state["turn"]
        if grid == exp_grid:
            seat = self.current_player(state)
            if turn["step"] == "C":
                return [{"type": "end_turn", "player": seat}]
            return [{"type": "stuck", "player": seat}]
        seen_top: dict[str, Piece | None] = {}
        for cell, pieces in grid.items():
            if len(pieces) != 1:
                return []
            seen_top[cell] = pieces[0]
        exp_top = {cell: pieces[0] for cell, pieces in exp_grid.items()}
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

    def _explain_mats(self, state: State, seen: BoardView) -> list[Action]:
        """The grid untouched, a mat changed: the step C move (or final group) whose Caught
        Souls and Offering tokens are the ones seen.  The dice gone from the mat are the
        group sent (the rules judge it); otherwise every legal move of the player's that
        leaves the mats as seen."""
        sides = state["sides"]
        want = self.mats_seen(seen, sides)
        seat = self.current_player(state)
        if seat is None:
            return []
        sent = self._sent_group(state, seat, seen)
        if sent is not None:
            return [sent]
        out: list[Action] = []
        for action in self.legal_actions(state):  # type: ignore[attr-defined]
            if action["type"] not in MAT_MOVES or action.get("player") != seat:
                continue
            after = self.apply(state, action)  # type: ignore[attr-defined]
            if self.mats_seen(self.board_view(after), sides) == want and action not in out:
                out.append(action)
        return out

    def _sent_group(self, state: State, seat: int, seen: BoardView) -> Action | None:
        """Dice that left the player's Caught Souls, all else on the mats as it was: a group
        sent to the Underworld (or the final group).  None when that is not what changed."""
        if state["phase"] != "play":
            return None  # the final group: every Caught Soul leaves, the player names the group
        side = self._side(state, seat)  # type: ignore[attr-defined]
        caught = state["caught"][side]
        if len(caught) > self.facts.mats["caught_places"]:
            return None  # some Caught Souls lie beyond the watched places
        here = [p for spot, ps in seen.items() if spot.startswith(f"souls{side}-") for p in ps]
        gone = [self.piece(d) for d in caught]
        for piece in here:
            if piece not in gone:
                return None  # a die came: not a group sent
            gone.remove(piece)
        want = self.mats_seen(seen, state["sides"])
        before = self.mats_seen(self.board_view(state), state["sides"])
        if not gone or want is None or before is None or any(
                want[s] != before[s] for s in range(state["sides"]) if s != side) \
                or want[side][1] != before[side][1]:
            return None
        dice = [[p.colour, self.facts.pips_face.get(p.pips, f"pips {p.pips}")] for p in gone]
        key = sorted(map(tuple, dice))
        for action in self.legal_actions(state):  # type: ignore[attr-defined]
            if action["type"] == "send" and sorted(map(tuple, action["dice"])) == key:
                return action  # the same group in the rules' own order
        return {"type": "send", "player": seat, "dice": dice}  # refused with the rule it breaks

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
