"""Swing State Steal, Round 4 (the Challenge): the Black Wild cards kept, the Incumbent's
pawn advanced by the banker, Evidence played and the States' answers, each hand settled.

A mixin of the game class (see ``__init__.py``), kept apart from ``rules.py`` because the
Challenge is a game of its own inside the game: no die, no pawns racing, a hand per week.
"""

from __future__ import annotations

from companion.games.base import (
    Action,
    MalformedAction,
    RuleError,
    State,
    require,
)
from companion.games.swing_state.rules import (
    R4_ADVANCE,
    R4_DISCARD,
    R4_EVIDENCE,
    R4_KEEP,
    R4_MATCH,
    R4_PLAY,
    R4_TRUMP,
    R4_WILD_MUST,
    R_EVIDENCE_HOLD,
    R_OVER,
    R_TURN,
    _first_pending,
    _rounds_text,
    _s,
)


class SwingStateChallenge:
    """Mixin of the game class: Round 4's handlers and checks."""

    # ---- handlers: round 4
    def _do_keep_wilds(self, st: State, action: Action, p: int) -> None:
        count = require(action, "count", int)
        if st["round"] != 4 or st["step"] != "wilds":
            raise RuleError("Black Wild cards are declared as Round 4 begins.", R4_KEEP)
        r4 = st["r4"]
        if p == 0 or r4["declared"][p]:
            raise RuleError("Each State declares its Black Wild cards once.", R4_KEEP)
        if p != _first_pending(r4["declared"]):
            raise RuleError("States declare in turn order.", R_TURN)
        if count < 0:
            raise MalformedAction("count must be >= 0")
        most = self._max_wilds(st, p)
        if count > most:
            raise RuleError(
                f"{self.player_names(st)[p]} can hold at most {most} Black Wild card{_s(most)}.",
                R4_KEEP,
            )
        self._declare_wilds(st, p, count)
        self._after_wilds(st)

    def _do_advance(self, st: State, action: Action, p: int) -> None:
        to = require(action, "to", str)
        if st["round"] != 4 or st["step"] != "advance":
            raise RuleError("The pawn advances at the start of a Round 4 turn.", R4_ADVANCE)
        if p != 0:
            raise RuleError("Only the Incumbent's pawn is used in Round 4.", R4_ADVANCE)
        r4 = st["r4"]
        expected = self.r4_spots[r4["space"] + 1]
        if to != expected:
            raise RuleError(f"One space only: to {self._spot_name(expected)}.", R4_ADVANCE)
        r4["space"] += 1
        st["pawn"][0] = to
        st["step"] = "evidence"

    def _do_evidence(self, st: State, action: Action, p: int) -> None:
        card_id = require(action, "card", str)
        card = self.evidence_cards.get(card_id)
        if card is None:
            raise MalformedAction(f"{card_id!r} is not an Evidence card")
        if st["round"] != 4:
            raise RuleError("Evidence cards are held for Round 4.", R_EVIDENCE_HOLD)
        if p != 0:
            raise RuleError("Only the Incumbent plays Evidence cards.", R_EVIDENCE_HOLD)
        if st["step"] != "evidence":
            raise RuleError(
                "The Incumbent plays one Evidence card per turn, after the pawn advances.", R4_EVIDENCE
            )
        r4 = st["r4"]
        if st["evidence_held"] <= 0:
            raise RuleError("The Incumbent holds no Evidence cards.", R_OVER)
        if card_id in r4["evidence_played"]:
            raise RuleError(f"{card['title']} ({card_id}) was played already this round.", R4_DISCARD)
        st["evidence_held"] -= 1
        r4["evidence_played"].append(card_id)
        r4["evidence"] = card_id
        r4["responses"] = {}
        r4["responded"] = [True] + [False] * (st["players"] - 1)
        st["step"] = "respond"
        st["last"]["notes"].append(f"Incumbent plays {self._evidence_text(card)}.")
        for seat in range(1, st["players"]):
            if self._responses_possible(st, seat) == [None]:
                self._record_response(st, seat, None)
        if all(r4["responded"]):
            self._settle_hand(st)

    def _do_respond(self, st: State, action: Action, p: int) -> None:
        if "card" not in action:
            raise MalformedAction("action 'respond' needs field 'card' (a card id or null)")
        card_id = action["card"]
        if card_id is not None and not isinstance(card_id, str):
            raise MalformedAction("field 'card' must be a card id or null")
        if card_id is not None and card_id not in self.cheats:
            raise MalformedAction(f"{card_id!r} is not a Cheat card")
        if st["round"] != 4 or st["step"] != "respond":
            raise RuleError("States answer once the Incumbent has played an Evidence card.", R4_PLAY)
        r4 = st["r4"]
        if p == 0 or r4["responded"][p]:
            raise RuleError("Each State plays one card per hand.", R4_PLAY)
        self._check_response(st, p, card_id)
        self._record_response(st, p, card_id)
        if all(r4["responded"]):
            self._settle_hand(st)

    def _declare_wilds(self, st: State, seat: int, count: int) -> None:
        r4 = st["r4"]
        discarded = st["cheat_held"][seat] - count
        r4["declared"][seat] = True
        r4["wilds"][seat] = count
        st["cheat_held"][seat] = count
        if discarded:
            st["last"]["notes"].append(
                f"{self.player_names(st)[seat]}: discard {discarded} unplayed Cheat card{_s(discarded)}; "
                f"keep {count} Black Wild card{_s(count)}."
            )

    def _after_wilds(self, st: State) -> None:
        if all(st["r4"]["declared"]):
            st["step"] = "advance"

    def _end_hand(self, st: State) -> None:
        """End of a Round 4 turn: discard, then Jan 6th or no Evidence ends the game."""
        r4 = st["r4"]
        if r4["evidence"]:
            st["evidence_deck"] += 1
        r4["evidence"] = None
        r4["responses"] = {}
        r4["responded"] = [True] * st["players"]
        if r4["space"] >= len(self.r4_spots) - 1 or st["evidence_held"] == 0:
            st["over"] = self.final_result(st)
            st["phase"] = "over"
            st["step"] = "over"
            return
        r4["hand"] += 1
        st["step"] = "advance"

    def _max_wilds(self, state: State, p: int | None) -> int:
        if p is None:
            return 0
        claimed = sum(state["r4"]["wilds"])
        return max(0, min(state["cheat_held"][p], len(self.blacks) - claimed))

    def _matching(self, state: State, p: int) -> list[str]:
        r4 = state["r4"]
        card = self.evidence_cards[r4["evidence"]]
        return [
            cid
            for cid in state["played"][p]
            if cid not in r4["used"] and (card.get("trump") or self.cheats[cid]["round"] in card["rounds"])
        ]

    def _responses_possible(self, state: State, p: int) -> list[str | None]:
        r4 = state["r4"]
        options: list[str | None] = list(self._matching(state, p))
        if r4["wilds"][p] > 0:
            options += [b for b in self.blacks if b not in r4["used"]]
        return options or [None]

    def _check_response(self, st: State, p: int, card_id: str | None) -> None:
        r4 = st["r4"]
        name = self.player_names(st)[p]
        evidence = self.evidence_cards[r4["evidence"]]
        matching = self._matching(st, p)
        if card_id is None:
            if matching:
                raise RuleError(f"{name} holds a matching face-up Cheat card and must play one.", R4_PLAY)
            if r4["wilds"][p] > 0:
                raise RuleError(
                    f"{name} has no matching Cheat card and must play a Black Wild card.", R4_WILD_MUST
                )
            return
        card = self.cheats[card_id]
        if card_id in r4["used"]:
            raise RuleError(f"{card['title']} was played already this round.", R4_DISCARD)
        if card["colour"] == "black":
            if r4["wilds"][p] <= 0:
                raise RuleError(f"{name} declared no Black Wild cards.", R4_KEEP)
            return
        if card_id not in st["played"][p]:
            raise RuleError(f"{card['title']} is not among {name}'s face-up played Cheat cards.", R4_KEEP)
        if card_id not in matching:
            rule = R4_TRUMP if evidence.get("trump") else R4_MATCH
            raise RuleError(
                f"{card['title']} is a Round {card['round']} ({card['colour']}) cheat; "
                f"{evidence['title']} is valid for {_rounds_text(evidence)}.",
                rule,
            )

    def _record_response(self, st: State, p: int, card_id: str | None) -> None:
        r4 = st["r4"]
        r4["responses"][str(p)] = card_id
        r4["responded"][p] = True
        if card_id is not None:
            r4["used"].append(card_id)

    def _settle_hand(self, st: State) -> None:
        """Returns of the hand: lesser/equal cheats return their value, greater ones the difference;
        a Black Wild protects its State (or every State, unless Trump)."""
        r4 = st["r4"]
        evidence = self.evidence_cards[r4["evidence"]]
        trump = bool(evidence.get("trump"))
        names = self.player_names(st)
        cards = {int(k): v for k, v in r4["responses"].items()}
        shield = next((names[s] for s, c in cards.items() if c and self.cheats[c].get("wild") == "all"), None)
        for seat in sorted(cards):
            card_id = cards[seat]
            if card_id is None:
                continue
            card = self.cheats[card_id]
            colour = st["colours"][seat]
            if card["colour"] == "black":
                r4["wilds"][seat] -= 1
                st["cheat_held"][seat] -= 1
                st["last"]["notes"].append(f"{names[seat]}'s {card['title']} defeats the Evidence.")
                continue
            st["played"][seat].remove(card_id)
            if shield and not trump:
                st["last"]["notes"].append(f"{names[seat]} is protected by {shield}'s Black Wild card.")
                continue
            value = card["value"]
            owed = value if trump or value <= evidence["value"] else value - evidence["value"]
            got = self._transfer(st, "state", "pile", colour, owed)
            st["last"]["notes"].append(
                f"{names[seat]}'s {card['title']} ({value}) against {evidence['title']} "
                f"({'Trump' if trump else evidence['value']}): return {owed} V"
                + ("" if got == owed else f" (has only {got})")
                + "."
            )
        st["last"]["notes"].append("End of the hand: all cards played go to their decks' discards.")
        self._end_hand(st)
