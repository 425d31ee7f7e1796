"""The simulated King of Clubs table: the truth and scripted players.

The world knows every Dancer's place, the Nightclub pile and the Moves pile in
order, and every hand.  It reaches the companion only as a table would: the
board the camera sees (Nightclubs laid, cards face down, flips, Move cards laid
on a Dancer), Move cards tapped on a seat's reader, the passing player's seat
button, and a tablet declaration for the one thing no camera sees (a swap of
two face-down cards).  It uses the rules module's pure helpers (comparisons,
the night's tie-breakers, the reveal order) as players know the rules, and
keeps its own score from its own truth.  Its state is plain attributes (no
generators), so a demo can pickle it beside the log and resume.
"""

from __future__ import annotations

import re
from typing import Any

from companion.games.base import Action, BoardView, Game, Piece, make_view
from companion.games.king_of_clubs.rules import (
    ALL_SLOTS,
    BACKUP,
    LETTERS,
    SLOTS,
)
from companion.sim.players.king_of_clubs_night import KingOfClubsNight, Step
from companion.sim.world import (
    STRAIGHTEN_FRAMES,
    BoardChange,
    HandOver,
    PhysicalEvent,
    World,
    key_of,
)

CLUB_VALUE = re.compile(r" \((?:\d+|\?)\)")  # a Nightclub's value in a line: "Nightclub 3 (5)", "(?)"
TABLE_MOVES = ("nightclubs", "place", "lead_reveal", "reveal", "clear")  # moves the table shows, no press
NIGHT_END_TRIES = 4  # how often players show the night's table again before clearing it anyway


class KingOfClubsWorld(KingOfClubsNight, World):
    """Two players, or four in teams (seats 0+2 against 1+3), playing whole games."""

    compares_board = True

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        super().__init__(game, players, variant, seed)
        self.variant = variant or game.variants[0]
        self.data: dict[str, Any] = game.data  # type: ignore[attr-defined]
        self.colours: dict[str, str] = self.data["colours"]
        self.rules: dict[str, Any] = self.data["rules"]
        self.draw_value = {int(d["skill"]): int(d["draw"]) for d in self.data["dancers"]}
        self.club_pile = [int(c["value"]) for c in self.data["nightclubs"]]
        self.move_pile = [m["id"] for m in self.data["moves"]]
        self.rng.shuffle(self.move_pile)
        self.discard: list[str] = []
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.points = [0, 0]
        self.lead: int | None = None
        self.night = 1
        self.night_winners: list[int | None] = []
        self.winners: list[int] = []
        self.reason = ""
        # where the night stands: plain data, so the world pickles beside a demo's log
        self.stage = "clubs"
        self.cursor = 0
        self.dances: list[dict[str, Any]] = []
        self.prestige = [0, 0]
        self.exchange: dict[str, Any] | None = None
        self.clubs: list[int] = []
        self.placed: dict[int, dict[str, int]] = {}
        self.face_up: set[tuple[int, str]] = set()
        self.boost: dict[tuple[int, str], list[str]] = {}
        self.moves_played = [0, 0]

    # --- the World contract --------------------------------------------------------------
    def unrecorded_as(self, option: Any, waiting: list[Action], tablet: dict[str, Any]) -> Action | None:
        """A button whose words say a pass of their side ("A (Disco): Pass") is the pass
        they pressed for, when the record has not moved since (their press forgotten: the
        tablet still offers the pass).  King of Clubs seed 3, cafe, passive: the swap's pass
        was forgotten, and the players read past it offered as one tap."""
        made = super().unrecorded_as(option, waiting, tablet)
        if made is not None or any(isinstance(p, dict) and str(p.get("text", "")).startswith("Press noted")
                                   for p in tablet.get("prompts") or []):
            return made  # or the tablet has their press, and counts it once the camera sees
        made_at = getattr(self, "unrecorded_at", {})
        total = tablet.get("history_total")
        text = self.option_text(option)  # "A (Disco): Pass"
        return next((a for a in waiting if a.get("type") == "pass" and isinstance(a.get("seat"), int)
                     and isinstance(total, int) and made_at.get(key_of(a)) == total
                     and any(self.wording().option({"type": "pass", "player": p}) == text
                             for p in self._seats(self._side(a["seat"])))), None)

    def as_declared(self, action: Action) -> Action:
        """A pass declared on the tablet names the player who pressed for it (its form asks
        whose pass it is; a declaration without one is refused).  King of Clubs seed 3, cafe,
        passive: the swap's pass was pressed and forgotten, and its declaration, with no
        player, was refused every time until the game wedged."""
        seat = action.get("seat")
        if action.get("type") == "pass" and isinstance(seat, int):
            return {"type": "pass", "player": seat}
        return action

    def start(self) -> list[PhysicalEvent]:
        """The table starts empty: Nightclub and Moves piles shuffled beside it."""
        return []

    def act(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """A Move card tapped that the tablet neither lists nor names in an entry since (its
        tap recorded the reveal the camera had missed, and the card went with it) is tapped
        again, before anything else; then as in every game (:meth:`World.act`).  Seed 59
        with faults: the Twist was lost so, and the hands parted from the record for good."""
        made = getattr(self, "_taps_made", None)
        if made is not None:
            taps, total = made
            recorded = tablet.get("history_total")
            if isinstance(total, int) and isinstance(recorded, int) and recorded > total:
                missed = [t for t in taps if not self.card_shown(tablet, t.card, total)]
                if missed and self.notices(("tap", total, tuple(t.card for t in missed))):
                    self._taps_made, self.repeated = None, True
                    return list(missed)
        return super().act(tablet)

    def card_shown(self, tablet: dict[str, Any], card: str, total: int) -> bool:
        """Whether the tablet lists ``card`` as read, or an entry after its first ``total``
        ones (left standing) names it."""
        if any(isinstance(t, dict) and t.get("card") == card for t in tablet.get("taps") or []):
            return True
        standing = World.standing_since(tablet, total)
        if standing is None:
            return True  # nothing to read: players assume it was
        if any(isinstance(h.get("action"), dict) for h in standing):  # a tablet given as data
            return any((h.get("action") or {}).get("card") == card for h in standing)
        name = {m["id"]: m["name"] for m in self.data["moves"]}.get(card, card)  # "The Robot"
        return any(name in str(h.get("text", "")) for h in standing)

    def entry_says(self, entry: dict[str, Any], action: Action) -> bool:
        """A pass is said three ways by the table, after what went before ("keeps their
        Dancers where they are", "hands over to the other side", "passes"), and a swap
        names the Nightclubs: players recognise any of them as their pass, and a swap by
        its side (the simulation's reading of a line; see :meth:`World.entry_says`)."""
        who, seat = action.get("player"), action.get("seat")
        if action.get("type") == "pass" and isinstance(seat, int) and not isinstance(who, int):
            # pressed on this seat's button: a pass of its side, whichever seat it names
            side = self._seats(self._side(seat))
            if isinstance(entry.get("action"), dict):
                return entry["action"].get("type") == "pass" and entry["action"].get("player") in side
            return any(self.entry_says(entry, {"type": "pass", "player": p}) for p in side)
        if isinstance(entry.get("action"), dict):
            return super().entry_says(entry, action)
        text = str(entry.get("text", ""))
        letters = [LETTERS[p] for p in range(self.players)] if not isinstance(who, int) else [LETTERS[who]]
        if action.get("type") == "pass":
            return any(text in (f"{n} keeps their Dancers where they are",
                                f"{n} hands over to the other side",
                                f"{n} passes (no more Moves at this dance)") for n in letters)
        if action.get("type") == "swap":
            return any(text.startswith(f"{n} swaps their Dancers at ") for n in letters)
        if action.get("type") == "move":
            # "A plays Cha-Cha (+1) on their Dancer at Nightclub 3 (5)": their card on their
            # Dancer at that Nightclub, whatever value the record gives the Nightclub (seed 9,
            # cafe, passive: the Nightclub worded "(?)" in their memory, every Move line read as
            # missing, and Moves the record held were declared again)
            return CLUB_VALUE.sub("", text) in {CLUB_VALUE.sub("", w) for w in self.words_for(action)}
        return super().entry_says(entry, action)

    def not_yet_recorded(self, action: Action) -> None:
        """A move made again (a pass pressed a second time) is the same move in the players'
        memory, not one more: seed 9, cafe, passive, A's pass pressed twice pushed the Move
        card the reader had missed out of mind, and it was never declared."""
        self.unrecorded = [a for a in getattr(self, "unrecorded", []) if a != action]
        super().not_yet_recorded(action)

    def step(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """One recordable thing the players do; the truth is settled before returning, so
        :meth:`finished` is true right after the step that ends the game.  After the last
        move they still mend what the tablet did not take, as at any other point."""
        answer = self.answer_prompt(tablet)
        if answer:
            return answer
        again = self.again(tablet)  # a pass or a Move card the tablet does not show: once more
        if again:
            return again
        if self.winners:
            return [] if tablet.get("over", True) else self.catch_the_tablet_up(tablet)
        if self.stage == "clear" and not self.night_over_on(tablet):
            catch_up = self.catch_the_tablet_up(tablet)
            if catch_up:
                return catch_up
        score = self._score_cards()
        events: Step = getattr(self, f"_stage_{self.stage}")()
        if self._score_cards() != score:
            # the night is over: its point card taken and the Lead Dancer card handed over
            # once the last move is made, in view of the camera
            events.append(BoardChange(self._view()))
        self.remember_move(tablet, events)
        return events

    @staticmethod
    def night_over_on(tablet: dict[str, Any]) -> bool:
        """Whether the tablet has scored the night ("Night over: take every card off the
        table", or the game over): players read who won it there before they clear."""
        return bool(tablet.get("over")) or any(
            isinstance(p, dict) and p.get("kind") == "turn"
            and str(p.get("text", "")).startswith("Night over") for p in tablet.get("prompts") or [])

    def catch_the_tablet_up(self, tablet: dict[str, Any]) -> Step:
        """The night is over at the table but not on the tablet (a hand or a dropout hid
        some of its moves, so the camera saw them run together): before the cards leave the
        table, the players straighten it (and press again for a move that waits), then lay
        the night's moves again from where the tablet draws the table
        (:meth:`lay_again_since`), a few times in all; then they go on, and the prompt stays
        for whoever reads the tablet.  Seen in seeds 59, 94 and 98 with faults: the players
        went on for nights while the tablet refused every table."""
        night, tries = getattr(self, "_caught_up", (self.night, 0))
        tries = tries if night == self.night else 0
        if tries >= NIGHT_END_TRIES:
            return []
        self._caught_up = (self.night, tries + 1)
        view = self._view()
        # first a look again (the camera may only be a frame behind), then the moves again
        relay = self.lay_again_since(tablet, view, behind=1) if tries else []
        if relay:
            return relay
        return [HandOver(STRAIGHTEN_FRAMES), BoardChange(view), *self.press_again()]

    def _score_cards(self) -> tuple[list[int], int | None]:
        return list(self.points), self.lead

    def finished(self) -> bool:
        return bool(self.winners)

    def table_moves(self) -> list[Action]:
        """The readings their table bears out, as a button would name them: tonight's
        Nightclubs in their order, each Lead Dancer's card face up with its value, and each
        dance's Dancers (the Backup Dancers) face up with theirs, seat by seat, slot by slot.
        King of Clubs seed 1, a red 3 the camera could never read: "Can't read B at Nightclub
        3 ... Tap the move the table shows" offered B's 1, 2, 3 and 4 at Solo 5, and the
        players, who knew only the reveals a line or a press of theirs had said, tapped none."""
        moves: list[Action] = [{"type": "clear"}]  # last night's cards taken off the table
        # each seat's Dancers laid face down tonight, though some are turned up since: under a
        # lamp over A's Dancer at Nightclub 1 all evening (bench truth --faults lamp, seed 300),
        # "A placed their Dancers face down" was offered while the first dance was turned up
        # and nobody tapped it; the record waited for it all night
        moves += [{"type": "place", "player": p} for p in sorted(self.placed)]
        if self.stage != "clubs" and self.clubs:
            moves.append({"type": "nightclubs", "values": list(self.clubs)})
        for player, slot in sorted(self.face_up, key=str):
            skill = self.placed.get(player, {}).get(slot)
            if skill is not None:
                moves.append({"type": "lead_reveal", "player": player, "slot": slot, "skill": skill})
        shown = [[SLOTS[c] for c in dance["clubs"]] for dance in self.dances] + [[BACKUP]]
        for slots in shown:
            cards = [{"player": p, "slot": slot, "skill": self.placed[p][slot]}
                     for p in sorted(self.placed) for slot in ALL_SLOTS if slot in slots
                     and (p, slot) in self.face_up and slot in self.placed[p]]
            # the whole dance, or all but the Lead Dancer's card turned up before it
            moves += [{"type": "reveal", "cards": [c for c in cards if c is not lead]}
                      for lead in (None, *cards) if len(cards) > (lead is not None)]
        return [m for m in moves if self.recognises(m)]

    def recognises_made(self, action: Action) -> bool:
        """A move of the table's they remember (the Nightclubs laid, cards turned up, the table
        cleared) is theirs while the table bears it out: tonight's, not an earlier night's.
        Under a lamp over A's Backup all evening, last night's "Backup Dancers: A 4, B 5",
        tapped then, was tapped again for tonight's A 5, B 5, and the record went wrong."""
        return self.recognises(action) if action.get("type") in TABLE_MOVES else True

    def recognises(self, action: Any) -> bool:
        """A reading offered as a correction is ours when the table shows it: the night's
        Nightclubs with those values in that order; a seat's Dancers laid tonight; a reveal
        whose every card lies face up with that value."""
        if not isinstance(action, dict):
            return False
        if action.get("type") == "clear":
            # they took the last night's cards off, and tonight is not over yet: under a lamp
            # over Nightclub 3 all evening, "Table cleared after night 1" was offered while
            # they laid night 2, nobody tapped it, and the record stayed at night 1's end
            return self.night > 1 and self.stage != "clear"
        if action.get("type") == "nightclubs":
            return self.stage != "clubs" and action.get("values") == self.clubs
        if action.get("type") == "place":
            return action.get("player") in self.placed  # tonight's, until the table is cleared
        if action.get("type") == "lead_reveal":
            return (action.get("player"), action.get("slot")) in self.face_up \
                and self.placed.get(action.get("player"), {}).get(action.get("slot")) == action.get("skill")
        if action.get("type") != "reveal":
            return False
        cards = action.get("cards") or []
        return bool(cards) and all(
            isinstance(c, dict) and (c.get("player"), c.get("slot")) in self.face_up
            and self.placed.get(c.get("player"), {}).get(c.get("slot")) == c.get("skill")
            for c in cards)

    def board(self) -> BoardView:
        return self._view()

    def truth(self) -> dict[str, Any]:
        scores = [self.points[self._side(p)] for p in range(self.players)]
        return {"scores": scores, "winners": list(self.winners), "points": list(self.points),
                "nights": self.night, "night_winners": list(self.night_winners),
                "reason": self.reason, "hands": [len(h) for h in self.hands],
                "pile": len(self.move_pile), "discard": len(self.discard)}

    # --- what the camera sees ----------------------------------------------------------------
    def _view(self) -> BoardView:
        items: dict[str, list[Piece]] = {}
        for i, value in enumerate(self.clubs):
            items[f"club{i}"] = [Piece(self.colours["nightclub"], value)]
        for side in (0, 1):  # the Disco Ball Point cards won, the Lead Dancer card
            if self.points[side]:
                items[f"points{side}"] = [Piece(self.colours["point"], 0)] * self.points[side]
            if self.lead == side:
                items[f"lead{side}"] = [Piece(self.colours["lead"], 0)]
        styles = self.data["dancer_styles"]
        for p, places in self.placed.items():
            for slot in ALL_SLOTS:
                card = (Piece(styles[p]["colour"], places[slot]) if (p, slot) in self.face_up
                        else Piece(self.colours["face_down"], 0))
                moves = [Piece(self.colours["move"], 1)] * len(self.boost.get((p, slot), []))
                items[f"p{p}_{slot}"] = [card, *moves]
        return make_view(items)

    # --- small helpers ---------------------------------------------------------------------
    def _side(self, seat: int) -> int:
        return seat % 2

    def _seats(self, side: int) -> list[int]:
        return [side] if self.players == 2 else [side, side + 2]

    def _skill(self, seat: int, slot: str) -> int:
        return self.placed[seat][slot] + len(self.boost.get((seat, slot), []))

    def _side_skills(self, side: int, dance: dict[str, Any]) -> list[int]:
        return sorted(self._skill(p, SLOTS[c]) for p in self._seats(side) for c in dance["clubs"])


WORLD_CLASS = KingOfClubsWorld
