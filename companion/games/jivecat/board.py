"""Swinging Jivecat Voodoo Lounge: the table as the camera sees it (a mixin of the game).

Where the spots are and what the camera should see for a tracked state (which actions
explain a change seen on the table: :mod:`.explaining`).  Runs on the rules' data and helpers.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    BoardView,
    Layout,
    Piece,
    Spot,
    State,
    make_view,
)
from companion.games.jivecat.facts import (
    CODE_COLOURS,
    COLOURS,
    MAX_CODE_PIPS,
    MONKEY_WORTH,
    ROWS,
    SKULL_COLOUR,
    STAFF,
    STAFF_COLOUR,
    is_mat_place,
    mat_place,
    tableau_spot,
    trend_pile,
)

MAT_KINDS = (("skull", "skull_places"), ("five", "five_places"), ("one", "one_places"))
MAT_COLOURS = {"skull": SKULL_COLOUR, "five": "blue", "one": "orange"}  # what lies on each kind of place


class JivecatBoard:
    """``layout``, ``board_view`` and the tallies; mixed into :class:`JivecatGame`
    (which moves explain a change the table shows: :mod:`.explaining`)."""

    board: Any
    clique: Any
    skull_cards: Any
    trend_cards: Any
    code_of: Any
    clique_by_code: Any
    row_by_code: Any

    # ------------------------------------------------------------------ the physical table
    def layout(self, state: State) -> Layout:
        """The places and what may stand on each (``Spot.takes``): a player's chip, or at 2
        and 3 players a white Staff chip, on a Lounge Lizard, a Staff place or a Portal; a
        card (its face code's colour) in a row, a tableau or a Trend pile; on a mat, black
        Skulls on its Skull places, blue Monkeys on its 5-point and orange on its 1-point."""
        b = self.board
        spots: list[Spot] = []
        h = b.spot_mm / 2
        chips = frozenset(COLOURS[: state["players"]]) | (
            frozenset({STAFF_COLOUR}) if state["players"] <= 3 else frozenset())
        cards = frozenset(CODE_COLOURS)
        for liz in b.lizards.values():
            if liz.kind == "jivecat":
                label, fill = "J", "dark_fill"
            elif liz.kind == "hipster":
                label, fill = f"{liz.number}*", "light_fill"
            elif liz.kind == "starter":
                label, fill = f"({liz.number})", "light_fill"
            else:
                label, fill = str(liz.number), "board"
            spots.append(Spot(liz.id, liz.x - h, liz.y - h, b.spot_mm, b.spot_mm, label, fill, takes=chips))
        sh = b.staff_mm / 2
        for sid, sp in b.staff.items():
            spots.append(Spot(sid, sp["x"] - sh, sp["y"] - sh, b.staff_mm, b.staff_mm, "Staff",
                              "dark_fill", takes=chips))
        for pid, pt in b.portals.items():
            spots.append(Spot(pid, pt["x"] - h, pt["y"] - h, b.spot_mm, b.spot_mm, "Portal",
                              "dark_fill", takes=chips))
        for row in ROWS:
            for i, slot in enumerate(b.rows[row]):
                spots.append(Spot(f"{row}-{i}", slot["x"], slot["y"], slot["w"], slot["h"],
                                  slot["name"], "light_fill", takes=cards))
        names = self.player_names(state)
        for q in range(state["players"]):
            for k, (x, y) in enumerate(b.tab_seats[q][: b.tab_slots]):
                spots.append(Spot(tableau_spot(q, k), x, y, b.tab_w, b.tab_h,
                                  names[q] if k == 0 else "", "light_fill", takes=cards))
            if q < len(b.trend_piles):
                x, y = b.trend_piles[q]
                spots.append(Spot(trend_pile(q), x, y, b.tab_w, b.tab_h, "Trends",
                                  "light_fill", takes=cards))
        spots += self._mat_spots(state)
        pieces = {c: f"{c.title()} player's chips" for c in COLOURS[: state["players"]]}
        if state["players"] <= 3:
            pieces[STAFF_COLOUR] = "Staff chips"
        shapes = {c: "disc" for c in pieces}
        marks = {c: (0, 0) for c in pieces}  # chips are plain: no marks looked for
        for c in CODE_COLOURS:
            pieces[c] = "face code of a card in a row or a tableau (colour and pips)"
            shapes[c] = "square"
            marks[c] = (0, MAX_CODE_PIPS)
        pieces[SKULL_COLOUR] += "; Skull tokens on a mat"
        pieces["orange"] += "; 1-point Monkeys on a mat"
        pieces["blue"] = pieces.get("blue", "") + "; 5-point Monkeys on a mat"
        shapes.setdefault("blue", "disc")
        marks.setdefault("blue", (0, 0))
        width = max(b.width, float(b.mats["x"]) + int(b.mats["cols"]) * self._mat_pitch())
        return Layout(width, b.height, tuple(spots), pieces, shapes, marks)

    def _mat_pitch(self) -> float:
        m = self.board.mats
        return float(m["token_mm"]) + float(m["gap_mm"])

    def _mat_spots(self, state: State) -> list[Spot]:
        """Per seat, a band right of the board: rows of Skull places, then of 5-point
        Monkey places, then of 1-point ones ('cols' to a row), a token to a place."""
        m = self.board.mats
        tok, pitch, cols = float(m["token_mm"]), self._mat_pitch(), int(m["cols"])
        names = self.player_names(state)
        words = {"skull": "Skull", "five": "5-point Monkey", "one": "1-point Monkey"}
        out = []
        for q in range(state["players"]):
            n = 0
            for kind, key in MAT_KINDS:
                for i in range(int(m[key])):
                    row, col = divmod(n, cols)
                    n += 1
                    out.append(Spot(mat_place(q, kind, i), float(m["x"]) + col * pitch,
                                    q * float(m["band_mm"]) + row * pitch, tok, tok,
                                    f"{names[q]}'s mat, {words[kind]} {i + 1}", "light_fill",
                                    holds=1, takes=frozenset({MAT_COLOURS[kind]})))
        return out

    def _mat_counts(self, state: State, q: int) -> dict[str, tuple[int, bool]]:
        """How many Skulls, blue and orange Monkeys lay out seat ``q``'s record on its mat
        (blue Monkeys first), each clipped to its places, and whether it fits."""
        m = self.board.mats
        mp = int(state["mp"][q])
        counts = {"skull": int(state["skulls"][q]), "five": mp // 5, "one": mp % 5}
        return {kind: (min(counts[kind], int(m[key])), counts[kind] <= int(m[key]))
                for kind, key in MAT_KINDS}

    def score_place(self, spot: str) -> bool:
        return is_mat_place(spot)

    def tallies(self, state: State, view: BoardView) -> dict[str, int]:
        """Each player's Skull tokens and Monkey Points as the mats show them (a Monkey is
        worth its colour wherever it lies on the mat); a count the mat cannot hold is left out."""
        names = self.player_names(state)
        out: dict[str, int] = {}
        for q in range(state["players"]):
            fits = {kind: ok for kind, (_, ok) in self._mat_counts(state, q).items()}
            skulls = monkeys = 0
            for spot, pieces in view.items():
                if not spot.startswith(f"mat{q}-"):
                    continue
                on_skulls = spot.startswith(f"mat{q}-skull")
                for piece in pieces:
                    if on_skulls:
                        # only Skulls lie on a mat's Skull places: one read in another colour
                        # (black read brown all evening, seed 13) is a Skull still; a Monkey's
                        # colour there is a Monkey out of place, counted nowhere
                        skulls += piece.colour == SKULL_COLOUR or piece.colour not in MONKEY_WORTH
                    else:
                        monkeys += MONKEY_WORTH.get(piece.colour, 0)
            if fits["skull"]:
                out[f"{names[q]}: Skulls"] = skulls
            if fits["five"] and fits["one"]:
                out[f"{names[q]}: Monkey Points"] = monkeys
        return out

    def board_view(self, state: State) -> BoardView:
        s = state
        items: dict[str, list[Piece]] = {
            spot: [Piece(STAFF_COLOUR if owner == STAFF else COLOURS[owner])]
            for spot, owner in s["board"].items()}
        for row in ROWS:
            for i, card in enumerate(s[f"{row}_row"]):
                if card is not None:
                    items[f"{row}-{i}"] = [self.code_of[card]]
        for q in range(s["players"]):
            for k, card in self.tableau_slots(s, q).items():
                items[tableau_spot(q, k)] = [self.code_of[card]]
            if s["trends"][q] and q < len(self.board.trend_piles):
                items[trend_pile(q)] = [self.code_of[s["trends"][q][-1]["card"]]]
            for kind, (count, _) in self._mat_counts(s, q).items():
                for i in range(count):
                    items[mat_place(q, kind, i)] = [Piece(MAT_COLOURS[kind])]
        return make_view(items)
