"""Swinging Jivecat Voodoo Lounge: which moves explain a change seen on the table (a mixin
of the game, beside :mod:`.board`).

Jivecat's table changes in more ways than the other games' (claims, rows, tableaux, Trend
piles, the mats, and cards tapped on a reader), so the search for the actions that explain a
change has a file of its own rather than making the board's class twice the size of the others.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    MalformedAction,
    Piece,
    RuleError,
    State,
    Tap,
    Trigger,
    diff_views,
)
from companion.games.jivecat.facts import (
    COLOURS,
    MONKEY_WORTH,
    ROWS,
    STAFF,
    STAFF_COLOUR,
    find_signs,
    is_card_spot,
    is_mat_place,
    tableau_seat,
)

MAT_POWERS = ("skull", "steal_skull", "cash_in", "undermine", "draw", "recover")
"""Trend powers whose whole effect the table shows on the mats (Skulls taken, stolen or paid,
Monkey Points lost or cashed in) beside a hand or a pile the camera does not see."""


class JivecatExplaining:
    """``explain`` and its helpers; mixed into :class:`JivecatGame`."""

    board: Any
    clique: Any
    skull_cards: Any
    trend_cards: Any
    code_of: Any
    clique_by_code: Any
    row_by_code: Any

    def explain(self, state: State, seen: BoardView, taps: list[Tap],
                trigger: Trigger) -> list[Action]:
        s = state
        phase = s["phase"]
        if phase == "over":
            return []
        # Skulls and Monkeys are counted against the record; only a press with nothing else
        # changed reads them, as a Trend power that changes nothing but the mats
        with_mats = seen
        seen = self.without_score_places(seen)
        expected = self.without_score_places(self.board_view(s))
        cards_came, cards_gone = self._card_changes(s, expected, seen)
        if trigger == "tap":
            return self._explain_tap(s, taps)
        claim = self._explain_claim(s, cards_came, cards_gone, taps)
        if claim is not None:
            return claim
        if trigger == "board":
            return self._explain_rows(s, cards_came)
        p = self.current_player(s)
        if any(k.startswith(("skull-", "trend-")) for k in cards_came):
            return self._explain_rows(s, cards_came)
        if phase == "play" and cards_came:
            return self._explain_lay(s, p, cards_came, cards_gone, taps)
        if phase == "play" and not cards_came and len(cards_gone) == 1:
            spot = next(iter(cards_gone))
            if spot.startswith("tableau-"):
                return self._explain_tableau_gone(s, p, spot, taps)
            if spot.partition("-")[0] in ROWS:
                return self._named_by_tap(self._explain_row_gone(s, p, spot), taps, p)
        colour = {COLOURS[q]: q for q in range(s["players"])}
        colour[STAFF_COLOUR] = STAFF
        added: list[tuple[Any, str]] = []
        removed: list[tuple[Any, str]] = []
        chips_before = {k: v for k, v in expected.items() if not is_card_spot(k)}
        chips_seen = {k: v for k, v in seen.items() if not is_card_spot(k)}
        for move in diff_views(chips_before, chips_seen):
            who = colour.get(move.piece.colour, move.piece.colour)
            if move.source is not None:
                removed.append((who, move.source))
            if move.target is not None:
                added.append((who, move.target))
        cards = []
        for t in taps:
            if t.card in self.clique and t.seat in (None, p) and t.card not in cards:
                cards.append(t.card)
        if phase == "setup":
            if len(added) == 1 and not removed and s["setup_queue"]:
                return [{"type": "place_starter", "player": added[0][0]
                         if isinstance(added[0][0], int) else p, "spot": added[0][1]}]
            return []
        if phase == "staff":
            staff = s["staff"]
            if staff["purge_by"] is not None and not added and len(removed) == 5:
                return [{"type": "staff_remove", "player": p,
                         "spots": sorted(x for _, x in removed)}]
            if staff["pending"] and len(added) == 1 and not removed:
                return [{"type": "staff_place", "player": p, "spot": added[0][1]}]
            return []
        if phase == "play" and not added and not removed and not cards:
            return self._explain_mats(s, p, with_mats, taps)
        return self._named_by_tap(self._explain_play(s, p, added, removed, cards), taps, p)

    def _explain_mats(self, s: State, p: int, seen: BoardView, taps: list[Tap]) -> list[Action]:
        """A press with nothing moved on the board and no Clique card tapped ends the turn,
        unless the mats show Skulls or Monkeys changed exactly as one of the player's Trend
        powers changes them (a Skull taken or stolen, one paid for a card drawn or recovered,
        Monkey Points undermined or cashed in): then that power.  Several that fit are asked
        about, unless a Trend card tapped on the player's reader names one.  A mat change no
        power explains is the standing warning's, not a move: the turn ends."""
        end: Action = {"type": "end_turn", "player": p}
        if self._mats_agree(s, seen):
            # a Trend card tapped while a mat shows a piece its counts leave out: the power's
            # Skull read in a Monkey's colour, perhaps; never the end of the turn unasked (seed
            # 13, cafe, typical: Red's Skull taken for Beatnik Poetry was read brown all evening,
            # counted nowhere then, and the press ended Red's turn a turn ahead of the table)
            tapped = any(t.card in self.trend_cards and t.seat in (None, p) for t in taps)
            return [] if tapped and self._mats_hold_uncounted(seen) else [end]
        fits: list[Action] = []
        for option in [end] + [o for t in s["trends"][p]
                               if t["active"] and not t["used"]
                               and self.trend_cards[t["card"]]["power"]["kind"] in MAT_POWERS
                               for o in self._power_options(s, p, t["card"])]:
            try:
                after = self.apply(s, option)
            except (RuleError, MalformedAction):
                continue
            if self._mats_agree(after, seen) or self._mats_show_change(s, after, seen):
                fits.append(option)
        named = self._named_by_tap(fits, taps, p)
        if named:
            return named
        if any(t.card in self.trend_cards and t.seat in (None, p) for t in taps):
            # a Trend card tapped names a power: a press with it never ends the turn unasked
            # (seed 10, cafe, typical: Blue paid a Skull for Cha-Cha, tapped it and pressed; a
            # misread on Red's mat kept the power from fitting, and the press ended Blue's turn)
            return []
        return [end]

    def _mats_show_change(self, before: State, after: State, seen: BoardView) -> bool:
        """Whether the mats show every count the move to ``after`` changes as it leaves it
        (it changes one at least); a count it leaves alone may differ as it did before (a
        place misread all evening on another mat is the standing warning's, not this move's)."""
        was = self.tallies(before, self.board_view(before))
        now = self.tallies(after, self.board_view(after))
        read = self.tallies(after, seen)
        changed = [k for k in now if now[k] != was.get(k)]
        return bool(changed) and all(read.get(k) == now[k] for k in changed)

    def _named_by_tap(self, options: list[Action], taps: list[Tap], p: int) -> list[Action]:
        """The options of the Trend card the player tapped last (a tap names the power used
        when several fit), or all of them when no tapped Trend card is among them."""
        for tap in reversed(taps):
            if tap.card in self.trend_cards and tap.seat in (None, p):
                named = [o for o in options if o.get("trend") == tap.card]
                if named:
                    return named
        return options

    @staticmethod
    def _mats_hold_uncounted(seen: BoardView) -> bool:
        """Whether a mat place shows a piece the mats' counts leave out (:meth:`tallies`): a
        Monkey's colour on a Skull place, another colour on a Monkey place."""
        return any(is_mat_place(k) and any((p.colour in MONKEY_WORTH) == ("-skull" in k) for p in v)
                   for k, v in seen.items())

    def _mats_agree(self, state: State, seen: BoardView) -> bool:
        """The Skulls and Monkeys the mats show are the record's (those the mats can hold)."""
        return self.tallies(state, seen) == self.tallies(state, self.board_view(state))

    def _card_changes(self, s: State, expected: BoardView, seen: BoardView
                      ) -> tuple[dict[str, Piece], dict[str, Piece]]:
        """Cards that appeared on / left a row or tableau position, spot by spot.

        A position holds one card, so a card is compared per position, never paired
        across spots (a Clique code may equal a row card's code).
        """
        came: dict[str, Piece] = {}
        gone: dict[str, Piece] = {}
        for spot in sorted(set(expected) | set(seen)):
            if not is_card_spot(spot):
                continue
            old = expected.get(spot, ())
            new = seen.get(spot, ())
            if old == new:
                continue
            if old:
                gone[spot] = old[0]
            if new:
                came[spot] = new[-1]
        return came, gone

    def _explain_claim(self, s: State, came: dict[str, Piece], gone: dict[str, Piece],
                       taps: list[Tap]) -> list[Action] | None:
        """A card newly on top of a seat's Trend pile: that seat claims the card that left
        the Trend row (the pile's code must be that card's).  None: no pile changed."""
        piles = [k for k in came if k.startswith("trends-")]
        if not piles:
            return None
        if len(piles) != 1 or s["phase"] != "play":
            return []
        spot = piles[0]
        seat = int(spot.split("-")[1])
        piece = came[spot]
        code = [piece.colour, piece.pips]
        left = [k for k in gone if k.startswith("trend-")]
        if len(left) > 1:
            return []
        if not left:
            return [{"type": "claim_trend", "player": seat, "code": code}]
        card = s["trend_row"][int(left[0].split("-")[1])]
        tapped = [t.card for t in taps if t.card in self.trend_cards and t.seat in (None, seat)
                  and t.card in s["trend_row"]]  # a tap confirming an earlier claim is stale
        if card is None or (tapped and tapped[-1] != card):
            return []  # the tap names another Trend card: ask, do not guess
        return [{"type": "claim_trend", "player": seat, "card": card, "code": code}]

    def _explain_rows(self, s: State, came: dict[str, Piece]) -> list[Action]:
        """A stable board with a card on an empty row position: that card was flipped up."""
        for spot, piece in came.items():
            row, _, index = spot.partition("-")
            if row not in ROWS:
                continue
            if s[f"{row}_row"][int(index)] is not None:
                continue  # a card swapped for another: wait for the button or a correction
            code = [piece.colour, piece.pips]
            card = self.row_by_code.get(piece)
            known = self.skull_cards if row == "skull" else self.trend_cards
            if card is not None and card in known:
                return [{"type": "reveal", "row": row, "card": card, "slot": int(index)}]
            return [{"type": "reveal", "row": row, "code": code, "slot": int(index)}]
        return []

    def _explain_row_gone(self, s: State, p: int, spot: str) -> list[Action]:
        """A row card taken away on the button: a Trend power that discards a Skull card
        (Cat-Eye Glasses, Bouffant) or a Trend card (Pillbox Hats) from that position; one
        candidate per active Trend of the player's that could, the rules judge the rest."""
        row, _, index = spot.partition("-")
        kind = "skull_card" if row == "skull" else "trend_discard"
        return [{"type": "trend_power", "player": p, "trend": t["card"], "slot": int(index)}
                for t in s["trends"][p]
                if t["active"] and not t["used"] and self.trend_cards[t["card"]]["power"]["kind"] == kind]

    def _explain_lay(self, s: State, p: int, came: dict[str, Piece], gone: dict[str, Piece],
                     taps: list[Tap]) -> list[Action]:
        """A Zombie or Rada laid on a tableau position (with its tap, or none)."""
        if len(came) != 1 or gone:
            return []
        spot, piece = next(iter(came.items()))
        seat, slot = tableau_seat(spot)
        card = self.clique_by_code.get(piece)
        base: Action = {"player": seat, "slot": slot}
        if card is None:
            return [{"type": "lay_zombie", **base, "code": [piece.colour, piece.pips]}]
        tapped = [t.card for t in taps if t.card in self.clique]
        if tapped and tapped[-1] != card:
            return []  # the tap names another card: ask, do not guess
        suit = self.clique[card].suit
        if suit == "rada":
            return [{"type": "lay_rada", **base, "card": card}]
        if suit == "zombie":
            return [{"type": "lay_zombie", **base, "card": card}]
        return [{"type": "lay_zombie", **base, "card": card},
                {"type": "lay_rada", **base, "card": card}]

    def _explain_tableau_gone(self, s: State, p: int, spot: str, taps: list[Tap]
                              ) -> list[Action]:
        """A tableau card left the table: its owner discarded it, or a Voodoo Spell did."""
        seat, slot = tableau_seat(spot)
        card = self.tableau_slots(s, seat).get(slot)
        if card is None:
            return []
        voodoo = [t.card for t in taps if t.card in self.clique
                  and self.clique[t.card].suit == "voodoo" and t.seat in (None, p)]
        if seat == p and not voodoo:
            return [{"type": "discard_tableau", "player": p, "card": card}]
        if seat != p and len(set(voodoo)) == 1:
            return [{"type": "voodoo", "player": p, "card": voodoo[0],
                     "effect": self.clique[card].suit, "target": seat, "victim": card}]
        return []

    def _explain_tap(self, s: State, taps: list[Tap]) -> list[Action]:
        if not taps:
            return []
        tap = taps[-1]
        card = tap.card
        phase = s["phase"]
        for row, known in (("skull", self.skull_cards), ("trend", self.trend_cards)):
            if card in known and s["refill"][row]:
                return [{"type": "reveal", "row": row, "card": card}]
        if card in self.trend_cards and phase == "play":
            seat = tap.seat if tap.seat is not None else s["turn"]
            if 0 <= seat < s["players"] and any(t["card"] == card for t in s["trends"][seat]):
                return []  # the tap confirms a claim the camera already recorded
            return [{"type": "claim_trend", "player": seat, "card": card}]
        if (card in self.clique and phase == "staff" and s["staff"]["purge_by"] is None
                and not s["staff"]["pending"] and tap.seat in (None, s["turn"])):
            return [{"type": "staff_flip", "player": s["turn"], "card": card}]
        return []

    def _explain_play(self, s: State, p: int, added: list[tuple[Any, str]],
                      removed: list[tuple[Any, str]], cards: list[str]) -> list[Action]:
        own_added = [x for who, x in added if who == p]
        own_removed = [x for who, x in removed if who == p]
        if not added and not removed:
            if len(cards) != 1:
                return []
            card = cards[0]
            suit = self.clique[card].suit
            if any(t["card"] == card for t in s["tableau"][p]):
                return []
            if suit == "zombie":
                return [{"type": "lay_zombie", "player": p, "card": card}]
            if suit == "rada":
                return [{"type": "lay_rada", "player": p, "card": card}]
            if suit == "voodoo":
                return [o for o in self._voodoo_options(s, p, card) if o["effect"] != "chip"]
            return []
        if len(added) == 1 and not removed:
            who, spot = added[0]
            if who != p:
                return self._wrong_colour(who, spot)
            if spot in self.board.lizards and self.board.lizards[spot].kind == "jivecat" and (
                    cards and self.clique[cards[0]].suit == "jivecat" and len(cards) == 1):
                return [{"type": "jivecat", "player": p, "card": cards[0], "spot": spot,
                         "remove": [], "portal": self.reach(s, p, spot) == 1}]
            return [self._buy_candidate(s, p, cards, spot)]
        if len(own_added) == 1 and len(own_removed) == 2 and len(added) == 1 and len(removed) == 2:
            spot = own_added[0]
            card = cards[0] if cards else ""
            if not card:
                return []
            return [{"type": "jivecat", "player": p, "card": card, "spot": spot,
                     "remove": sorted(own_removed), "portal": self.reach(s, p, spot) == 1}]
        if len(own_added) == 1 and len(own_removed) == 1 and len(added) == 1 and len(removed) == 1:
            src, dst = own_removed[0], own_added[0]
            if cards:
                need = self.jump_cost(src, dst, s)
                return [{"type": "cheval", "player": p, "card": cards[0], "from": src, "to": dst,
                         "portals": need or 0}]
            return [{"type": "trend_power", "player": p, "trend": t["card"], "from": src,
                     "to": dst} for t in s["trends"][p]
                    if self.trend_cards[t["card"]]["power"]["kind"] == "move"]
        if not added and len(removed) == 1:
            who, spot = removed[0]
            if cards:
                return [{"type": "voodoo", "player": p, "card": cards[0], "effect": "chip",
                         "spot": spot}]
            if who == STAFF:
                return [{"type": "trend_power", "player": p, "trend": t["card"], "spot": spot}
                        for t in s["trends"][p]
                        if self.trend_cards[t["card"]]["power"]["kind"] == "staff_remove"]
            return []
        if not added and len(own_removed) == 5 and len(removed) == 5 and not cards:
            return [{"type": "end_turn", "player": p, "remove": sorted(own_removed)}]
        return []

    def _wrong_colour(self, who: Any, spot: str) -> list[Action]:
        """A chip of another colour appeared: its buy is refused as out of turn."""
        if isinstance(who, int):
            return [{"type": "buy", "player": who, "cards": [], "spot": spot}]
        return []

    def _buy_candidate(self, s: State, p: int, cards: list[str], spot: str) -> Action:
        liz = self.board.lizards.get(spot)
        signs = [1] * len(cards)
        if liz is not None and liz.number is not None and cards:
            found = find_signs([self.clique[c].value for c in cards], liz.number)
            if found is not None:
                signs = found
        portal = liz is not None and self.reach(s, p, spot) == 1
        return {"type": "buy", "player": p, "cards": cards, "signs": signs, "spot": spot,
                "portal": portal}
