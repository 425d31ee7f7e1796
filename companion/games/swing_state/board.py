"""Swing State Steal: what the table shows (the rings of spaces, pawns, V piles, the die)
and how a change seen on it or a card tapped is explained."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    Layout,
    Piece,
    Spot,
    State,
    Tap,
    Trigger,
    diff_views,
    make_view,
)
from companion.games.swing_state.rules import (
    BLUE_OPS,
    RED_OPS,
    _check_ops,
)


def vote_place(seat: int, value: int, i: int) -> str:
    """The i-th place for ``value`` V chips (5 or 1) in a State's own V tray."""
    return f"votes{seat}-{value}v{i}"


def pile_place(seat: int, value: int, i: int) -> str:
    """The i-th place for ``value`` V chips in the Incumbent's V tray for the State at ``seat``."""
    return f"pile{seat}-{value}v{i}"


def tray_place(spot: str) -> bool:
    """A chip place of a V tray (the score pieces), not a space of the board."""
    return spot.startswith(("votes", "pile"))


def chips(value: int, fives: int, ones: int) -> tuple[int, int] | None:
    """How many 5 V and 1 V chips lay out a pile of ``value`` V (5 V chips first), or None
    when the tray's ``fives`` and ``ones`` places cannot hold them."""
    laid = (value // 5, value % 5)
    return laid if laid[0] <= fives and laid[1] <= ones else None


class SwingStateBoard:
    """Mixin of the game class; see ``__init__.py``."""

    def _build_board(self) -> None:
        """Lay every ring out as spots and record each track's spot order."""
        spots: list[Spot] = []
        self.spaces: dict[str, dict[str, Any]] = {}
        self.tracks: dict[int, dict[str, list[str]]] = {}
        for rnd in (1, 2, 3):
            ring = self.rounds[rnd]
            cells = _ring_cells(ring)
            positions = ring["positions"]
            if len(positions) != len(cells):
                raise ValueError(f"ring {rnd}: {len(positions)} positions for {len(cells)} cells")
            red: list[str] = []
            blue: list[str] = []
            for idx, (pos, (x, y, w, h, side)) in enumerate(zip(positions, cells, strict=True)):
                base = f"r{rnd}-{idx:02d}"
                if pos["track"] == "shared":
                    _check_ops(pos.get("red", []), RED_OPS, base)
                    _check_ops(pos.get("blue", []), BLUE_OPS, base)
                    self.spaces[base] = {
                        "label": pos["label"],
                        "short": pos["short"],
                        "round": rnd,
                        "red": pos.get("red", []),
                        "blue": pos.get("blue", []),
                    }
                    spots.append(Spot(base, x, y, w, h, pos["short"], "board"))
                    red.append(base)
                    blue.append(base)
                    continue
                if side == "corner":
                    raise ValueError(f"{base}: corner spaces must be shared")
                (rx, ry, rw, rh), (bx, by, bw, bh) = _split_cell(x, y, w, h, side)
                for track, rect, fill, out in (
                    ("red", (rx, ry, rw, rh), "dark_fill", red),
                    ("blue", (bx, by, bw, bh), "light_fill", blue),
                ):
                    sid = f"{base}-{track}"
                    space = pos[track]
                    _check_ops(space["ops"], RED_OPS if track == "red" else BLUE_OPS, sid)
                    self.spaces[sid] = {
                        "label": space["label"],
                        "short": space["short"],
                        "round": rnd,
                        track: space["ops"],
                    }
                    spots.append(Spot(sid, *rect, space["short"], fill))
                    out.append(sid)
            self.tracks[rnd] = {"red": red, "blue": blue}
        ring4 = self.rounds[4]
        cells = _ring_cells(ring4)
        if len(cells) != len(ring4["weeks"]):
            raise ValueError("ring 4: one week label per space")
        self.r4_spots: list[str] = []
        for idx, ((x, y, w, h, _side), label) in enumerate(zip(cells, ring4["weeks"], strict=True)):
            sid = f"r4-{idx:02d}"
            self.spaces[sid] = {"label": label, "short": label.split(":")[0], "round": 4}
            spots.append(Spot(sid, x, y, w, h, label.split(":")[0], "board"))
            self.r4_spots.append(sid)
        die = self.data["board"]["die_spot"]
        self.die_spot = str(die["id"])
        # the game's one die lies there alone: no column ever stands on it
        spots.append(Spot(self.die_spot, die["x"], die["y"], die["w"], die["h"], die["label"], "light_fill",
                          holds=1, takes=frozenset({self.die_colour})))
        self.spots = tuple(spots)
        self.trays = dict(self.data["vote_trays"])
        cols, rows, five_rows = (int(self.trays[k]) for k in ("cols", "rows", "five_rows"))
        self.tray_fives, self.tray_ones = cols * five_rows, cols * (rows - five_rows)

    def _tray_spots(self, state: State) -> list[Spot]:
        """Per State, a band right of the board: its own V tray, then the Incumbent's; in a
        tray, rows of places for 5 V chips, then rows for 1 V chips."""
        t = self.trays
        tok, gap, cols = float(t["token_mm"]), float(t["gap_mm"]), int(t["cols"])
        names = self.player_names(state)
        tray_w = cols * (tok + gap)
        out = []
        for seat in range(1, state["players"]):
            y0 = (seat - 1) * float(t["band_mm"])
            for k, (place, label) in enumerate(((vote_place, f"{names[seat]}'s votes"),
                                                 (pile_place, f"Incumbent's pile for {names[seat]}"))):
                x0 = float(t["x"]) + k * (tray_w + float(t["tray_gap_mm"]))
                slots = [(5, i) for i in range(self.tray_fives)] + [(1, i) for i in range(self.tray_ones)]
                for n, (value, i) in enumerate(slots):
                    row, col = divmod(n, cols)
                    out.append(Spot(place(seat, value, i), x0 + col * (tok + gap), y0 + row * (tok + gap),
                                    tok, tok, f"{label}, {value} V chip {i + 1}", "light_fill",
                                    takes=frozenset({state["colours"][seat]})))
        return out

    def _tray_width(self) -> float:
        t = self.trays
        return float(t["x"]) + 2 * int(t["cols"]) * (float(t["token_mm"]) + float(t["gap_mm"])) \
            + float(t["tray_gap_mm"])

    def layout(self, state: State) -> Layout:
        """The places and what may stand on each (``Spot.takes``): the pawns on the rings'
        spaces, one of each player's at most (``Spot.one_each``: a player has one pawn), the
        die on its place, a State's own V chips in its two trays."""
        names = self.player_names(state)
        pawns = frozenset(state["colours"])
        spaces = tuple(spot if spot.id == self.die_spot else replace(spot, takes=pawns, one_each=pawns)
                       for spot in self.spots)
        pieces = {colour: f"{names[i]}'s pawn" for i, colour in enumerate(state["colours"])}
        pieces[self.die_colour] = "the die (pips = the face up)"
        shapes = {colour: "disc" for colour in state["colours"]}
        shapes[self.die_colour] = "square"
        board = self.data["board"]
        marks = {colour: (0, 0) for colour in state["colours"]}  # pawns and V chips are plain
        for seat in range(1, state["players"]):
            pieces[state["colours"][seat]] = f"{names[seat]}'s pawn and V chips"
        marks[self.die_colour] = (1, 6)
        return Layout(max(float(board["width"]), self._tray_width()), float(board["height"]),
                      spaces + tuple(self._tray_spots(state)), pieces, shapes, marks)

    def board_view(self, state: State) -> BoardView:
        """Pawns, the die, and the V chips in the trays (5 V chips first)."""
        items: dict[str, list[Piece]] = {}
        for seat, spot in enumerate(state["pawn"]):
            items.setdefault(spot, []).append(Piece(state["colours"][seat], 0))
        if state["die"] is not None:
            items.setdefault(self.die_spot, []).append(Piece(self.die_colour, int(state["die"])))
        for seat in range(1, state["players"]):
            colour = state["colours"][seat]
            for place, value in ((vote_place, state["votes"][colour]), (pile_place, state["piles"][colour])):
                fives, ones = chips(int(value), self.tray_fives, self.tray_ones) or (0, 0)
                for worth, count in ((5, fives), (1, ones)):
                    for i in range(count):
                        items[place(seat, worth, i)] = [Piece(colour, 0)]
        return make_view(items)

    def score_place(self, spot: str) -> bool:
        return tray_place(spot)

    def tallies(self, state: State, view: BoardView) -> dict[str, int]:
        """Each State's V and the Incumbent's pile for it: 5 V for a chip on a 5 V place, 1 V
        on a 1 V place; a pile the record says is too big for its tray is left out."""
        names = self.player_names(state)
        out: dict[str, int] = {}
        for seat in range(1, state["players"]):
            colour = state["colours"][seat]
            for place, value, name in ((vote_place, state["votes"][colour], f"{names[seat]}: V"),
                                       (pile_place, state["piles"][colour],
                                        f"Incumbent's pile for {names[seat]}: V")):
                if chips(int(value), self.tray_fives, self.tray_ones) is None:
                    continue
                out[name] = sum(worth for worth, places in ((5, self.tray_fives), (1, self.tray_ones))
                                for i in range(places) for p in view.get(place(seat, worth, i), ())
                                if p.colour == colour)
        return out

    def explain(self, state: State, seen: BoardView, taps: list[Tap], trigger: Trigger) -> list[Action]:
        if state["over"]:
            return []
        seen = self.without_score_places(seen)  # the V chips are counted against the record, never a move
        expected = self.without_score_places(self.board_view(state))
        out: list[Action] = []
        roller = self._roller(state)
        who = roller if roller is not None else self.current_player(state)
        if trigger in ("board", "button"):
            dice = [p for p in seen.get(self.die_spot, ()) if p.colour == self.die_colour and p.pips > 0]
            if len(dice) == 1 and dice[0].pips != state["die"]:
                out.append({"type": "roll", "player": who, "value": dice[0].pips})
            elif not dice and state["die"] is not None:
                out.append({"type": "pick_up_die", "player": who})
            seat_of = {c: i for i, c in enumerate(state["colours"])}
            for move in diff_views(expected, seen):
                if move.piece.pips or move.piece.colour not in seat_of or not move.target:
                    continue
                seat = seat_of[move.piece.colour]
                if state["round"] == 4:
                    out.append({"type": "advance", "player": seat, "to": move.target})
                elif trigger == "button":
                    out.append({"type": "move", "player": seat, "to": move.target})
        if trigger in ("tap", "button"):
            for tap in taps:
                out.append(self._tap_action(state, tap))
        if trigger == "button" and not out and not taps and expected == seen:
            if state["round"] <= 3 and state["step"] == "waiting":
                out.append({"type": "pass", "player": state["turn"]})
            if state["round"] == 4 and state["step"] == "respond":
                out.append({"type": "respond", "player": self.current_player(state), "card": None})
        return out

    def read_again(self, state: State, action: Action, source: str) -> bool:
        """The camera records a roll only when the die's face changes (or lands after a
        pick-up), so a roll read from the table showing the face the record already gives
        the die, never picked up since, is no roll: it is the corrected roll's die read
        again (seed 2, cafe: "Incumbent rolls 6", a pip high, made the true 5 read as
        "Red rolls 5"; corrected to 5, Red's roll stood and Red's Cheat card was refused)."""
        return source != "tablet" and action.get("type") == "roll" \
            and state.get("die") is not None and action.get("value") == state["die"]

    def _tap_action(self, state: State, tap: Tap) -> Action:
        """A card on a reader: a News draw, a cheat, an Evidence play or a Round 4 answer."""
        current = self.current_player(state)
        seat = tap.seat if tap.seat is not None else current
        if tap.card in self.news:
            return {"type": "draw_news", "player": current, "card": tap.card}
        if tap.card in self.evidence_cards:
            return {"type": "evidence", "player": 0 if tap.seat is None else tap.seat, "card": tap.card}
        if state["round"] == 4:
            return {"type": "respond", "player": seat, "card": tap.card}
        return {"type": "cheat", "player": seat, "card": tap.card}


# --------------------------------------------------------------------------- helpers


def _ring_cells(ring: dict[str, Any]) -> list[tuple[float, float, float, float, str]]:
    """The cells of a rectangular ring, clockwise from the lower-left corner.

    Each cell is (x, y, w, h, side) with side "corner", "left", "top", "right" or "bottom".
    A ring may list its cells instead ([x, y, w, h] or [x, y, w, h, side]; no side means a
    space both tracks share).
    """
    if "cells" in ring:
        return [
            (float(c[0]), float(c[1]), float(c[2]), float(c[3]), str(c[4]) if len(c) > 4 else "corner")
            for c in ring["cells"]
        ]
    x0, y0, x1, y1 = (float(v) for v in ring["rect"])
    band = float(ring["band"])
    nt, ns = int(ring["top_cells"]), int(ring["side_cells"])
    cw = (x1 - x0 - 2 * band) / nt
    ch = (y1 - y0 - 2 * band) / ns
    cells: list[tuple[float, float, float, float, str]] = [(x0, y1 - band, band, band, "corner")]
    cells += [(x0, y1 - band - (i + 1) * ch, band, ch, "left") for i in range(ns)]
    cells.append((x0, y0, band, band, "corner"))
    cells += [(x0 + band + i * cw, y0, cw, band, "top") for i in range(nt)]
    cells.append((x1 - band, y0, band, band, "corner"))
    cells += [(x1 - band, y0 + band + i * ch, band, ch, "right") for i in range(ns)]
    cells.append((x1 - band, y1 - band, band, band, "corner"))
    cells += [(x1 - band - (i + 1) * cw, y1 - band, cw, band, "bottom") for i in range(nt)]
    return cells


def _split_cell(
    x: float, y: float, w: float, h: float, side: str
) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
    """Split a cell of a ring into its outer (red) and inner (blue) halves."""
    if side in ("top", "bottom"):
        top, bottom = (x, y, w, h / 2), (x, y + h / 2, w, h / 2)
        return (top, bottom) if side == "top" else (bottom, top)
    left, right = (x, y, w / 2, h), (x + w / 2, y, w / 2, h)
    return (left, right) if side == "left" else (right, left)
