"""King of Clubs: what the table shows (Nightclub slots, each seat's Dancer slots, Moves
laid on Dancers) and how a change seen on it is explained."""

from __future__ import annotations

from typing import Any

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
from companion.games.king_of_clubs.rules import (
    ALL_SLOTS,
    BACKUP,
    LETTERS,
    SLOTS,
    _seats,
    _side,
)


def points_place(side: int) -> str:
    return f"points{side}"


def lead_place(side: int) -> str:
    return f"lead{side}"


def _score_place(spot: str) -> bool:
    """A side's Points or Lead Dancer place: they stay on the table from night to night."""
    return spot.startswith(("points", "lead"))


class KingOfClubsBoard:
    """Mixin of the game class; see ``__init__.py``."""

    def layout(self, state: State) -> Layout:
        """Four Nightclub slots in a middle row; per seat a row of four Dancer slots, each
        facing its Nightclub, and a Backup slot at the row's left; 600 x 400 mm."""
        n = state["players"]
        col_x = [150.0 + 100.0 * i for i in range(4)]
        backup_x = 30.0
        w, h = 40.0, 56.0
        if n == 2:
            rows = {1: 40.0, "clubs": 172.0, 0: 304.0}
        else:
            rows = {1: 20.0, 3: 96.0, "clubs": 172.0, 2: 248.0, 0: 324.0}
        # (a Nightclub's place takes its card; the Dancer and Backup places a Dancer card, face
        # down or revealed, one at most, and the Moves played on it: never a Nightclub, a Point
        # or the Lead Dancer card, which lie on their own places or by the pile)
        dancers = frozenset({self.colours["face_down"], *(self.styles[p]["colour"] for p in range(n))})
        on_a_dancer = dancers | {self.colours["move"]}
        spots = [Spot(f"club{i}", col_x[i], rows["clubs"], w, h, f"Nightclub {i + 1}",
                      "dark_fill", takes=frozenset({self.colours["nightclub"]})) for i in range(4)]
        for p in range(n):
            y = rows[p]
            spots.append(Spot(f"p{p}_{BACKUP}", backup_x, y, w, h, f"{LETTERS[p]} Backup",
                              "board", takes=on_a_dancer, one_of=dancers))
            for i in range(4):
                spots.append(Spot(f"p{p}_{SLOTS[i]}", col_x[i], y, w, h, f"{LETTERS[p]} at Nightclub {i + 1}",
                                  "light_fill", takes=on_a_dancer, one_of=dancers))
        for side in (0, 1):  # each side's Points and Lead Dancer places end its row
            y, name = rows[side], self.side_name(state, side)
            spots.append(Spot(points_place(side), 500.0, y, 55.0, h, f"{name}: points", "board",
                              takes=frozenset({self.colours["point"]})))
            spots.append(Spot(lead_place(side), 560.0, y, 36.0, h, f"{name}: Lead Dancer card",
                              "board", takes=frozenset({self.colours["lead"]})))
        pieces = {self.colours["nightclub"]: "Nightclub (pips: prestige value)",
                  self.colours["face_down"]: "a face-down card",
                  self.colours["move"]: "a Move card played on a Dancer (+1)",
                  self.colours["point"]: "a Disco Ball Point card",
                  self.colours["lead"]: "the Lead Dancer card"}
        # the marks each card can show: a count no such card has is a misread to ask about
        skills = sorted(self.draw_value)
        marks = {self.colours["nightclub"]: (min(self.club_values), max(self.club_values)),
                 self.colours["move"]: (1, 1),
                 self.colours["face_down"]: (0, 0), self.colours["point"]: (0, 0),
                 self.colours["lead"]: (0, 0)}
        for p in range(n):
            pieces[self.styles[p]["colour"]] = (
                f"{LETTERS[p]}'s {self.styles[p]['name']} Dancer (pips: skill)")
            marks[self.styles[p]["colour"]] = (skills[0], skills[-1])
        return Layout(600.0, 400.0, tuple(spots), pieces, {c: "square" for c in pieces}, marks)

    def board_view(self, state: State) -> BoardView:
        """The Nightclubs and Dancers of the night, Moves laid on Dancers, and each side's
        Disco Ball Point cards and the Lead Dancer card."""
        items: dict[str, list[Piece]] = {}
        for side in (0, 1):
            if state["points"][side]:
                items[points_place(side)] = [Piece(self.colours["point"], 0)] * state["points"][side]
            if state["lead"] == side:
                items[lead_place(side)] = [Piece(self.colours["lead"], 0)]
        if state["phase"] == "scene":
            return make_view(items)
        for i, value in enumerate(state["clubs"]):
            items[f"club{i}"] = [Piece(self.colours["nightclub"], value)]
        for p in range(state["players"]):
            if not state["placed"][p]:
                continue
            for slot in ALL_SLOTS:
                skill = state["revealed"][p].get(slot)
                card = (Piece(self.colours["face_down"], 0) if skill is None
                        else Piece(self.styles[p]["colour"], skill))
                boosts = state["boost"][p].get(slot, 0)
                items[f"p{p}_{slot}"] = [card] + [Piece(self.colours["move"], 1)] * boosts
        return make_view(items)

    def explain(
        self, state: State, seen: BoardView, taps: list[Tap], trigger: Trigger
    ) -> list[Action]:
        """Nightclubs laid, a seat's five cards down, flips, Moves tapped/laid, passes, clear."""
        phase = state["phase"]
        if phase == "over":
            return []
        if phase == "scene":
            return self._explain_scene(state, seen)
        if phase == "night_over":
            return [{"type": "clear"}] if self._cleared(state, seen) else []
        if phase == "placement":
            for p in range(state["players"]):
                if not state["placed"][p] and self._laid(p, seen):
                    return [{"type": "place", "player": p}]
            return []
        if phase == "moves":
            return self._explain_moves_phase(state, seen, taps, trigger)
        flips = self._flips(state, seen)
        if flips:
            return self._explain_flips(state, flips, trigger)
        if taps and trigger == "tap":  # a Move tapped when no Move may be played: refused
            tap = taps[-1]
            player = tap.seat if tap.seat is not None else self.current_player(state) or 0
            return [{"type": "move", "player": player, "card": tap.card}]
        if trigger == "button" and phase == "swap" and not self._added_moves(state, seen):
            return [{"type": "pass", "player": self.current_player(state)}]
        return []

    def seat_may_press(self, state: State, seat: int) -> bool:
        """A seat's button says its side is done (no swap, no more Moves): while the swap or
        a Moves turn waits on the other side, that press is not theirs to end."""
        current = self.current_player(state)
        if state["phase"] not in ("swap", "moves") or current is None \
                or not 0 <= seat < state["players"]:
            return True
        return _side(state, seat) == _side(state, current)

    def press_owed(self, state: State, declared: Action, seat: int | None) -> bool:
        """A Move is recorded by its card's tap, never by a press: a press asked about while
        a Move card lay unread (its tap missed the reader) said the side is done.  With the
        Move declared, that press is the side's pass, while the Moves turn is still theirs.
        King of Clubs seed 6, cafe, passive: A's press after a missed tap was spent on the
        declared Move; B's next card was refused (A's turn still), and night 4's exchange was
        declared move by move (10 entries)."""
        return declared.get("type") == "move" and state["phase"] == "moves" \
            and (seat is None or self.seat_may_press(state, seat))

    def tap_outlasts(self, state: State, declared: Action, card: str, seat: int | None) -> bool:
        """A Move card laid on the other side's reader while the record still waited on the
        side whose missed Move the players then declared is that other side's next Move.
        King of Clubs seed 17, cafe, passive: B's Cha-Cha missed the reader; A's Twist, laid
        next, was refused (B's turn on the record); the Cha-Cha declared, the Twist's tap went
        with the answer, and the Twist was declared too."""
        return declared.get("type") == "move" and state["phase"] == "moves" \
            and card != declared.get("card") and seat is not None and 0 <= seat < state["players"] \
            and isinstance(declared.get("player"), int) \
            and _side(state, seat) != _side(state, declared["player"])

    def _laid(self, seat: int, seen: BoardView) -> bool:
        """Whether ``seat``'s five cards lie face down, one of them perhaps turned up already
        (the camera missed the table between the last card laid and the Lead Dancer's reveal:
        a hand over it; the reveal is read from the same board next)."""
        down = (Piece(self.colours["face_down"], 0),)
        stacks = [seen.get(f"p{seat}_{slot}", ()) for slot in ALL_SLOTS]
        up = [s for s in stacks if s != down]
        return len(up) <= 1 and all(len(s) == 1 and s[0].colour == self.styles[seat]["colour"] for s in up)

    def fixed_places(self, state: State) -> frozenset[str]:
        """The Nightclubs stay as laid from their reading until the table is cleared."""
        if state["phase"] in ("scene", "night_over", "over") or not state["clubs"]:
            return frozenset()
        return frozenset(f"club{i}" for i in range(len(state["clubs"])))

    def tallies(self, state: State, view: BoardView) -> dict[str, int]:
        """Each side's Disco Ball Point cards, and whether it holds the Lead Dancer card."""
        out: dict[str, int] = {}
        for side in (0, 1):
            name = self.side_name(state, side)
            out[f"{name}: points"] = sum(1 for p in view.get(points_place(side), ())
                                         if p.colour == self.colours["point"])
            out[f"{name}: Lead Dancer card"] = sum(1 for p in view.get(lead_place(side), ())
                                                   if p.colour == self.colours["lead"])
        return out

    def _cleared(self, state: State, seen: BoardView) -> bool:
        """Whether the night just over is off the table: nothing but the score cards, or
        (the camera missed the bare table, a hand over it while the next Nightclubs were
        laid) no Dancer of the night turned up any more and other Nightclubs than its own.
        A misread never takes every turned-up Dancer off the table at once."""
        if not any(pieces for spot, pieces in seen.items() if not _score_place(spot)):
            return True
        hidden = (self.colours["face_down"], self.colours["move"])
        turned_up = any(piece.colour not in hidden for spot, pieces in seen.items()
                        if spot[:1] == "p" and spot[1:2].isdigit() for piece in pieces)
        clubs = [seen.get(f"club{i}", ()) for i in range(4)]
        own = [(Piece(self.colours["nightclub"], value),) for value in state["clubs"]]
        return not turned_up and clubs != own

    def _explain_scene(self, state: State, seen: BoardView) -> list[Action]:
        """The Nightclubs laid (Dancers already laid face down for them are the next step's)."""
        face_down = (Piece(self.colours["face_down"], 0),)
        if any(pieces and not k.startswith("club") and not _score_place(k) and pieces != face_down
               for k, pieces in seen.items()):
            return []
        values = []
        for i in range(4):
            pieces = seen.get(f"club{i}", ())
            if len(pieces) != 1 or pieces[0].colour != self.colours["nightclub"]:
                return []
            values.append(pieces[0].pips)
        return [{"type": "nightclubs", "values": values}]

    def _flips(self, state: State, seen: BoardView) -> list[dict[str, Any]]:
        """Face-down cards the camera now sees face up: {player, slot, skill}."""
        flips = []
        for p in range(state["players"]):
            if not state["placed"][p]:
                continue
            for slot in ALL_SLOTS:
                if slot in state["revealed"][p]:
                    continue
                faces = [pc for pc in seen.get(f"p{p}_{slot}", ())
                         if pc.colour not in (self.colours["face_down"], self.colours["move"])]
                if len(faces) == 1:
                    flips.append({"player": p, "slot": slot, "skill": faces[0].pips})
        return flips

    def _added_moves(self, state: State, seen: BoardView) -> list[tuple[int, str]]:
        """Dancer slots where the camera sees more Move cards than recorded."""
        added = []
        for p in range(state["players"]):
            for slot in SLOTS:
                count = sum(1 for pc in seen.get(f"p{p}_{slot}", ())
                            if pc.colour == self.colours["move"])
                if count > state["boost"][p].get(slot, 0):
                    added.append((p, slot))
        return added

    def _explain_flips(self, state: State, flips: list[dict[str, Any]],
                       trigger: Trigger) -> list[Action]:
        phase = state["phase"]
        if phase == "lead_reveal" and len(flips) == 1:
            return [{"type": "lead_reveal", **flips[0]}]
        if phase in ("reveal", "backups"):
            expected = set(self._expected_reveal(state))
            got = {(f["player"], f["slot"]) for f in flips}
            if got < expected and trigger != "button":
                return []
            if phase == "reveal" and expected and got > expected:
                # this dance's cards and a later dance's face up (the camera missed the table
                # between the two reveals): this dance's reveal first, the next read after it
                return [{"type": "reveal", "cards": [f for f in flips
                                                     if (f["player"], f["slot"]) in expected]}]
        return [{"type": "reveal", "cards": flips}]

    def _explain_moves_phase(self, state: State, seen: BoardView, taps: list[Tap],
                             trigger: Trigger) -> list[Action]:
        """A tap (with the card laid on a Dancer), a pass by button, or an early flip.

        Only the newest tap counts: an older one is still listed only if it was
        refused.  On the button, a tap that fits no legal Move is ignored and the
        press is a pass."""
        if trigger != "tap" and self._past_the_night(state, seen):
            return [{"type": "pass", "player": self.current_player(state)}]
        added = self._added_moves(state, seen)
        if taps and (trigger == "tap" or added or trigger == "button"):
            candidates = self._explain_move(state, seen, taps[-1], trigger)
            if trigger != "button" or any(self.is_legal(state, c) for c in candidates):
                return candidates
        flips = self._flips(state, seen)
        reveal = {"type": "reveal", "cards": flips}
        if flips and (trigger != "button" or added or self.is_legal(state, reveal)):
            return [reveal]
        if trigger == "button" and not added:
            # a pass, the next dance's cards perhaps turned up already (players ahead of the
            # record): they are read once it is recorded
            return [{"type": "pass", "player": self.current_player(state)}]
        return []

    def _past_the_night(self, state: State, seen: BoardView) -> bool:
        """The table cleared of this night (:meth:`_cleared`) while the record waits on its
        last dance's passes, which end the night: the players passed, their presses
        forgotten, and went on (each pass is read in turn, then the clearing).  King of Clubs
        seed 19, cafe, passive: B's hand-over at night 1's last dance was never pressed; the
        record stayed on it, read night 2's cards as that dance's Moves, and the game wedged."""
        if not self._cleared(state, seen):
            return False
        after = state
        for _ in range(2 * state["players"]):
            seat = self.current_player(after)
            if after["phase"] != "moves" or seat is None:
                break
            try:
                after = self.apply(after, {"type": "pass", "player": seat})
            except (RuleError, MalformedAction):
                return False
        return after["phase"] in ("night_over", "over")

    def _explain_move(self, state: State, seen: BoardView, tap: Tap,
                      trigger: Trigger) -> list[Action]:
        player = tap.seat if tap.seat is not None else self.current_player(state)
        base = {"type": "move", "player": player, "card": tap.card}
        added = self._added_moves(state, seen)
        if added:
            return [{**base, "target": t, "slot": s} for t, s in added]
        dance = state["dances"][state["dance"]]
        side = _side(state, player) if player is not None else 0
        targets = [(t, SLOTS[c]) for t in _seats(state, side) for c in dance["clubs"]]
        if len(targets) == 1:
            return [{**base, "target": targets[0][0], "slot": targets[0][1]}]
        if trigger == "button":
            return [{**base, "target": t, "slot": s} for t, s in targets]
        return []
