"""Baron Voodoo: the grid as the camera sees it (a mixin of the game).

Where the spaces are, what the camera should see for a tracked state, and which
captures or powers explain a change seen on the grid.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from companion.games.baron_voodoo.facts import (
    DIRS,
    POWERS,
    STACK_MAX,
    WHITE,
)
from companion.games.baron_voodoo.powers import (
    physical_power_options,
)
from companion.games.base import (
    Action,
    BoardView,
    Layout,
    MalformedAction,
    Piece,
    RuleError,
    Spot,
    State,
    Tap,
    Trigger,
    make_view,
)

MAT_PREFIXES = ("souls", "offer", "track", "x20-", "guard", "under")
MAT_DIE_PREFIXES = ("souls", "offer", "under")  # places counted as a side's pile: "souls0-3"
ONE = 1
"""A mat's place holds one piece, never a column: the rules stack Soul Dice only on the
main board ("Kolumna": dice stacked on one another there, at most STACK_MAX), and the
mats lay each caught die, Offering token, marker and Protection token on a place of its
own (``board_view``)."""
MAT_MOVES = ("take_offering", "change_face", "effect", "extra_turn", "send", "final_group",
             "end_turn", "stuck")
"""Step C moves, the final group and the turn's end: what they change lies on the mats (the
next player's Protection token flipped back when a turn ends), not the grid."""


def soul_place(side: int, index: int) -> str:
    return f"souls{side}-{index}"


def token_place(side: int, index: int) -> str:
    return f"offer{side}-{index}"


def track_place(side: int, vp: int) -> str:
    return f"track{side}-{vp}"


def x20_place(side: int, index: int) -> str:
    return f"x20-{side}-{index}"


def guard_place(seat: int) -> str:
    return f"guard{seat}"


def underworld_place(side: int, index: int) -> str:
    return f"under{side}-{index}"


@dataclass(frozen=True)
class MatSeen:
    """One side's mat as the camera sees it: Caught Souls (sorted: where a die lies on the
    mat says nothing), Offering tokens, VP (None when no score marker is seen) and each of
    the side's Protection tokens (True active, False inactive, None not seen), and the dice
    in its Underworld (sorted; None when every place holds a die: more may lie beside)."""

    souls: tuple[Piece, ...]
    tokens: int
    vp: int | None
    guards: tuple[bool | None, ...]
    underworld: tuple[Piece, ...] | None


class BaronVoodooBoard:
    """``layout``, ``board_view`` and ``explain``; mixed into :class:`BaronVoodoo`."""

    facts: Any

    # --- the physical table -----------------------------------------------------------------------
    def layout(self, state: State) -> Layout:
        f = self.facts
        size, margin = f.cell_mm, f.margin_mm
        spots = []
        dice = frozenset(f.dice)  # (the white joker among them)
        for cell in f.cells:
            r, c = f.coord[cell]
            printed = f.printed[cell]
            fill = "dark_fill" if printed == "black" else (
                "light_fill" if (r + c) % 2 == 0 else "board")
            spots.append(Spot(cell, margin + c * size + 1, margin + r * size + 1, size - 2,
                              size - 2, f"{cell} {printed}", fill, STACK_MAX, dice))
        pieces = {colour: f"{info['name']} Soul Die" for colour, info in f.deities.items()}
        pieces[WHITE] = "white Soul Die (joker)"
        marks = {colour: (min(f.face_pips.values()), max(f.face_pips.values())) for colour in pieces}
        shapes = {colour: "square" for colour in f.dice}
        mat = f.mats
        token = mat["token_colour"]
        pieces[token] = "Offering token"
        shapes[token] = "disc"
        for name in (mat["marker_colour"], mat["x20_colour"], *mat["protection_colours"].values()):
            shapes[name] = "disc"
        pieces[mat["marker_colour"]] = "score marker"
        pieces[mat["x20_colour"]] = "x20 score marker"
        pieces[mat["protection_colours"]["inactive"]] = "Protection token (inactive side)"
        pieces[mat["protection_colours"]["active"]] = "Protection token (active side)"
        for name in shapes.keys() - set(f.dice):
            marks[name] = (0, 0)  # plain tokens and markers
        names = self.side_names(state)
        seat_names = self.player_names(state)  # type: ignore[attr-defined]
        die, tok, rows = mat["die_mm"], mat["token_mm"], mat["track_rows"]
        marker, x20 = frozenset({mat["marker_colour"]}), frozenset({mat["x20_colour"]})
        guards = frozenset(mat["protection_colours"].values())
        x = 2 * margin + f.cols * size  # the mats stand in a row right of the main board
        for side in range(state["sides"]):
            owner = names[side].split(" (")[0]
            for i in range(mat["caught_places"]):
                spots.append(Spot(soul_place(side, i), x, margin + i * die, die, die,
                                  f"{owner}: Caught Soul {i + 1}", "light_fill", ONE, dice))
            for i in range(mat["offering_places"]):
                spots.append(Spot(token_place(side, i), x + die, margin + i * die, tok, die,
                                  f"{owner}: Offering {i + 1}", "light_fill", ONE, frozenset({token})))
            track_x = x + die + tok + 2
            for vp in range(mat["track_places"]):
                col, row = divmod(vp, rows)
                spots.append(Spot(track_place(side, vp), track_x + col * tok, margin + row * tok,
                                  tok, tok, f"{owner}: score {vp}", "light_fill", ONE, marker))
            below = margin + rows * tok + 2
            for i in range(mat["x20_places"]):
                spots.append(Spot(x20_place(side, i), track_x + i * tok, below, tok, tok,
                                  f"{owner}: x20 marker {i + 1}", "light_fill", ONE, x20))
            for i, seat in enumerate(self._side_seats(state, side)):  # type: ignore[attr-defined]
                spots.append(Spot(guard_place(seat), track_x + i * tok, below + tok + 2, tok, tok,
                                  f"{seat_names[seat].split(' (')[0]}: Protection token",
                                  "light_fill", ONE, guards))
            x = track_x + max(mat["track_places"] // rows, mat["x20_places"], 2) * tok + mat["gap_mm"]
        width = x - mat["gap_mm"] + margin
        strip_y = margin + f.rows * size + mat["gap_mm"]  # the Underworlds: a strip below it all
        gap = mat["gap_mm"]
        share = (width - 2 * margin + gap) / state["sides"] - gap  # each side's part of the strip
        cols = int(share // die)
        for side in range(state["sides"]):
            owner = names[side].split(" (")[0]
            for i in range(cols * mat["underworld_rows"]):
                row, col = divmod(i, cols)
                spots.append(Spot(underworld_place(side, i), margin + side * (share + gap) + col * die,
                                  strip_y + row * die, die, die,
                                  f"{owner}: Underworld {i + 1}", "light_fill", ONE, dice))
        return Layout(
            width=width,
            height=strip_y + mat["underworld_rows"] * die + margin,
            spots=tuple(spots),
            pieces=pieces,
            marks=marks,
            shapes=shapes,
        )

    def underworld_places(self, state: State) -> int:
        """How many die places each side's Underworld has on the table (the strip's share
        depends only on how many sides and seats there are)."""
        key = (state["sides"], state["team"])
        cache: dict[tuple[int, bool], int] = self.__dict__.setdefault("_underworld_places", {})
        if key not in cache:
            cache[key] = sum(1 for spot in self.layout(state).spots if spot.id.startswith("under0-"))
        return cache[key]

    def board_view(self, state: State) -> BoardView:
        """The top die of every cell, and on each side's mat its Caught Souls (from the top
        place down), its Offering tokens, its score marker and x20 markers, each player's
        Protection token, and the dice in its Underworld, as far as the mat has places."""
        items: dict[str, list[Piece]] = {cell: [self.piece(stack[-1])] for cell, stack in
                                         state["board"].items() if stack}
        mat = self.facts.mats
        places = self.underworld_places(state)
        for side in range(state["sides"]):
            # in a fixed order: where on the mat a die lies says nothing
            for i, die in enumerate(sorted(state["caught"][side])[:mat["caught_places"]]):
                items[soul_place(side, i)] = [self.piece(die)]
            for i in range(min(state["offerings"][side], mat["offering_places"])):
                items[token_place(side, i)] = [Piece(mat["token_colour"], 0)]
            x20, on_track = divmod(state["vp"][side], mat["track_places"])
            items[track_place(side, on_track)] = [Piece(mat["marker_colour"], 0)]
            for i in range(min(x20, mat["x20_places"])):
                items[x20_place(side, i)] = [Piece(mat["x20_colour"], 0)]
            for seat in self._side_seats(state, side):  # type: ignore[attr-defined]
                active = state["protection"][state["colours"][seat]]
                items[guard_place(seat)] = [
                    Piece(mat["protection_colours"]["active" if active else "inactive"], 0)]
            for i, die in enumerate(sorted(state["underworld"][side])[:places]):
                items[underworld_place(side, i)] = [self.piece(die)]
        return make_view(items)

    def mats_seen(self, view: BoardView, state: State) -> list[MatSeen] | None:
        """Each side's mat as the camera sees it; None when the camera sees no mat at all
        (a table whose mats are out of view, or a replay that names the grid only)."""
        if not any(spot.startswith(MAT_PREFIXES) for spot in view):
            return None
        mat = self.facts.mats
        sides = mat["protection_colours"]
        places = self.underworld_places(state)
        # each mat's places by kind and side, in one pass over the view (a game whose doubted
        # die is explained move by move asks this of thousands of views)
        on_mat: dict[str, list[Piece]] = {}
        for spot, pieces in view.items():
            if spot.startswith(MAT_DIE_PREFIXES):
                on_mat.setdefault(spot.partition("-")[0], []).extend(pieces)
        out = []
        for side in range(state["sides"]):
            souls = sorted(on_mat.get(f"souls{side}", ()), key=lambda p: (p.colour, p.pips))
            tokens = len(on_mat.get(f"offer{side}", ()))
            marks = [vp for vp in range(mat["track_places"]) if view.get(track_place(side, vp))]
            x20 = sum(len(view.get(x20_place(side, i), ())) for i in range(mat["x20_places"]))
            vp = x20 * mat["track_places"] + marks[0] if len(marks) == 1 else None
            guards = []
            for seat in self._side_seats(state, side):  # type: ignore[attr-defined]
                token = view.get(guard_place(seat))
                colour = token[0].colour if token and len(token) == 1 else None
                guards.append(True if colour == sides["active"] else
                              False if colour == sides["inactive"] else None)
            under = sorted(on_mat.get(f"under{side}", ()), key=lambda p: (p.colour, p.pips))
            out.append(MatSeen(tuple(souls), tokens, vp, tuple(guards),
                               tuple(under) if len(under) < places else None))
        return out

    def tallies(self, state: State, view: BoardView) -> dict[str, int]:
        """Each side's VP (the score marker and x20 markers), Offering tokens and Soul Dice
        in the Underworld by colour, as far as the mat shows them (a marker out of sight: no
        VP count; a full Underworld block: no dice count)."""
        mats = self.mats_seen(view, state)
        if mats is None:
            return {}
        names = [name.split(" (")[0] for name in self.side_names(state)]
        out: dict[str, int] = {}
        for side, mat in enumerate(mats):
            if mat.vp is not None:
                out[f"{names[side]}: VP"] = mat.vp
            if state["offerings"][side] <= self.facts.mats["offering_places"]:
                out[f"{names[side]}: Offering tokens"] = mat.tokens
            if mat.underworld is not None:
                for colour in self.facts.dice:
                    out[f"{names[side]}: {colour} Soul Dice in the Underworld"] = sum(
                        1 for p in mat.underworld if p.colour == colour)
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
        mats = self.mats_seen(seen, state)
        mats_changed = mats is not None and mats != self.mats_seen(expected, state)
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
        return self._as_the_mats_say(state, out, mats) if mats is not None else out

    def _as_the_mats_say(self, state: State, moves: list[Action],
                         mats: list[MatSeen]) -> list[Action]:
        """Of several grid moves, those that leave the mats as seen (who paid an Offering
        token for a power); all of them when none does, so that the rule or the mismatch is
        what the players hear."""
        if len(moves) < 2:
            return moves
        fits = []
        for action in moves:
            try:
                after = self.apply(state, action)  # type: ignore[attr-defined]
            except (RuleError, MalformedAction):
                continue  # a refused move cannot be what the mats show
            if self.mats_seen(self.board_view(after), after) == mats:
                fits.append(action)
        return fits or moves

    def _explain_mats(self, state: State, seen: BoardView) -> list[Action]:
        """The grid untouched, a mat changed: the step C move (or final group) whose Caught
        Souls and Offering tokens are the ones seen.  The dice gone from the mat are the
        group sent (the rules judge it); otherwise every legal move of the player's that
        leaves the mats as seen."""
        want = self.mats_seen(seen, state)
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
            if self.mats_seen(self.board_view(after), after) == want and action not in out:
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
        want = self.mats_seen(seen, state)
        before = self.mats_seen(self.board_view(state), state)
        if not gone or want is None or before is None or any(
                want[s] != before[s] for s in range(state["sides"]) if s != side) \
                or want[side].tokens != before[side].tokens \
                or want[side].guards != before[side].guards:
            return None
        dice = [[p.colour, self.facts.pips_face.get(p.pips, f"pips {p.pips}")] for p in gone]
        key = sorted(map(tuple, dice))
        for action in self.legal_actions(state):  # type: ignore[attr-defined]
            if action["type"] == "send" and sorted(map(tuple, action["dice"])) == key:
                after = self.apply(state, action)  # type: ignore[attr-defined]
                shown = self.mats_seen(self.board_view(after), after)
                if want[side].vp is not None and after["vp"][side] != want[side].vp:
                    return None  # the score marker says otherwise: a mismatch to show
                if shown is not None and None not in (want[side].underworld, shown[side].underworld) \
                        and want[side].underworld != shown[side].underworld:
                    return None  # the dice did not arrive in the Underworld: a mismatch to show
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
                    if mid is None or to is None or not board[mid] or not changed <= {frm, mid, to}:
                        continue  # (a capture that leaves a changed cell as it was explains nothing)
                    cells = {frm: board[frm][:-1], mid: board[mid][:-1],
                             to: board[to] + [board[frm][-1]]}
                    yield ({"type": "capture", "player": seat, "from": frm, "over": mid,
                            "to": to}, cells)
        if not self.power_open(state, turn["actor"] if turn["actor"] is not None
                               else turn["default"]) or len(changed) == 0:
            return
        for deity in POWERS:
            # the Deity's own player first (free); a team-mate may pay for it instead, which
            # only the Offering tokens on the mat tell apart
            own = by_colour.get(f.power_colour[deity])
            seats = [own] if own is not None else []
            seats += [s for s in actors if s != own]
            for params, cells in physical_power_options(board, f, deity, changed):
                for seat in seats:
                    yield {"type": "power", "player": seat, "deity": deity, **params}, cells

    def laid_otherwise(self, action: Action, was: Piece, now: Piece) -> list[tuple[str, Action]]:
        """The set-up read with one die that reads ``was`` read as ``now``: a die of the same
        colour, its face one the dice have (Baron Voodoo seed 5, cafe: E1's purple Swap read
        as a Steal from the set-up on; moved by Papa Legba's power, it showed its Swap, and
        no move of the last forty explained it: 40 % of the game was declared)."""
        board = action.get("board")
        face = self.facts.pips_face.get(now.pips)
        if action.get("type") != "setup" or not isinstance(board, dict) or face is None \
                or was.colour != now.colour or was.pips == now.pips:
            return []
        out: list[tuple[str, Action]] = []
        for cell, stack in sorted(board.items()):
            top = stack[-1] if isinstance(stack, list) and stack else None
            if not isinstance(top, list) or len(top) != 2 or top[0] != was.colour \
                    or self.facts.face_pips.get(top[1]) != was.pips:
                continue
            out.append((cell, {**action, "board": {**board, cell: [*stack[:-1], [top[0], face]]}}))
        return out

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
