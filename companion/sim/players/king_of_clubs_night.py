"""King of Clubs' simulated night, stage by stage: the Nightclubs laid, the Dancers placed and
revealed, the exchange of Moves, each dance resolved from the truth, the night scored.

A part of :class:`~companion.sim.players.king_of_clubs.KingOfClubsWorld` (the world keeps the
truth, talks to the tablet and draws the table; this is how the night unfolds on it), apart so
that neither is one long class.
"""

from __future__ import annotations

import random
from typing import Any

from companion.games.base import Action
from companion.games.king_of_clubs.rules import (
    BACKUP,
    SKILLS,
    SLOTS,
    compare_lowest_first,
    lead_after_night,
    make_dances,
    night_winner,
)
from companion.sim.world import BoardChange, CardTap, Declare, PhysicalEvent

Step = list[PhysicalEvent]

MAX_MOVES_ON_A_DANCER = 4  # a card slot shows a Dancer and up to four Moves legibly


def pass_on(seat: int) -> Action:
    """What ``seat``'s button says (no swap, no more Moves), as the players remember it: any
    seat of the side may be the one the record names, so the players look for a pass entry of
    their side (:meth:`KingOfClubsWorld.entry_says`), and name the seat when they declare it."""
    return {"type": "pass", "seat": seat}


class KingOfClubsNight:
    """The night's stages on the world's table (its truth: clubs, placed Dancers, hands, piles).

    The world supplies the rest: ``_view`` (what the camera sees), ``_seats`` / ``_skill`` /
    ``_side_skills`` (the sides' Dancers) and the players' memory (``press_for``,
    ``remember_made``, ``not_yet_recorded``)."""

    rng: random.Random
    rules: dict[str, Any]
    players: int
    variant: str
    stage: str
    cursor: int
    night: int
    lead: int | None
    clubs: list[int]
    club_pile: list[int]
    dances: list[dict[str, Any]]
    placed: dict[int, dict[str, int]]
    face_up: set[tuple[int, str]]
    boost: dict[tuple[int, str], list[str]]
    hands: list[list[str]]
    move_pile: list[str]
    discard: list[str]
    draw_value: dict[int, int]
    moves_played: list[int]
    prestige: list[int]
    points: list[int]
    night_winners: list[int | None]
    winners: list[int]
    reason: str
    exchange: dict[str, Any] | None
    pending: Any
    pending_seat: int | None

    # --- the night, stage by stage ----------------------------------------------------------
    def _stage_clubs(self) -> Step:
        if isinstance(self.pending, dict) and self.pending.get("type") == "swap":
            self.pending = None  # last night's swap, never offered again: it is past
        pile = list(self.club_pile)
        self.rng.shuffle(pile)
        self.clubs = pile[:4]
        self.dances = make_dances(self.clubs, str(self.rules.get("reveal_order", "solo_first")))
        self.stage, self.cursor = "place", 0
        return [BoardChange(self._view())]

    def _stage_place(self) -> Step:
        self.placed[self.cursor] = self._choose_places()
        self.cursor += 1
        if self.cursor == self.players:
            self.stage = "lead_reveal" if self.lead is not None else "reveal"
            self.cursor = 0
        return [BoardChange(self._view())]

    def _stage_lead_reveal(self) -> Step:
        assert self.lead is not None
        self.face_up.add((self._seats(self.lead)[0], self.rng.choice(SLOTS)))
        self.stage = "swap"
        return [BoardChange(self._view())]

    def _stage_swap(self) -> Step:
        assert self.lead is not None
        opp = self._seats(1 - self.lead)[0]
        self.stage, self.cursor = "reveal", 0
        if self.rng.random() < 0.5:
            a, b = sorted(self.rng.sample(SLOTS, 2), key=SLOTS.index)  # as the tablet lists them
            self.placed[opp][a], self.placed[opp][b] = self.placed[opp][b], self.placed[opp][a]
            # tapped on the tablet: should the tablet refuse it (the Lead Dancer's reveal not
            # seen yet), it is tapped again once the tablet offers it (answer_prompt)
            swap = {"type": "swap", "player": opp, "slots": [a, b]}
            self.pending, self.pending_seat = swap, None
            return [Declare(swap)]
        return [self.press_for(pass_on(opp), opp)]  # no swap

    def _stage_reveal(self) -> Step:
        dance = self.dances[self.cursor]
        for p in range(self.players):
            for c in dance["clubs"]:
                self.face_up.add((p, SLOTS[c]))
        events: Step = [BoardChange(self._view())]
        if self.variant == "advanced":
            turn = self.lead if self.lead is not None else 0
            self.exchange = {"turn": turn, "passed": [False, False], "played": 0}
            self.stage = "exchange"
            self._settle_exchange()
        else:
            self._resolve()
        return events

    def _stage_exchange(self) -> Step:
        """Raise your weakest Dancer while not ahead (mostly), else pass; Lead first."""
        ex = self.exchange
        assert ex is not None
        dance = self.dances[self.cursor]
        turn = ex["turn"]
        mine = self._side_skills(turn, dance)
        behind = compare_lowest_first(mine, self._side_skills(1 - turn, dance)) <= 0
        target = min(((p, SLOTS[c]) for p in self._seats(turn) for c in dance["clubs"]),
                     key=lambda ps: self._skill(*ps))
        room = len(self.boost.get(target, [])) < MAX_MOVES_ON_A_DANCER
        if behind and room and self.rng.random() < 0.85:
            seat = max(self._seats(turn), key=lambda p: len(self.hands[p]))
            card = self.hands[seat].pop(0)
            self.boost.setdefault(target, []).append(card)
            self.moves_played[turn] += 1
            ex["played"] += 1
            # the Move they played, kept in mind to know it on a button ("the seat a card
            # was meant for": laid on the neighbour's reader)
            played = {"type": "move", "player": seat, "card": card, "target": target[0], "slot": target[1]}
            self.remember_made(played)
            # and, should the reader miss the card, declared when the tablet asks for it
            self.not_yet_recorded(played)
            events: Step = [BoardChange(self._view()), CardTap(card, seat)]
        else:
            if ex["played"] == 0 or ex["passed"][1 - turn]:
                ex["passed"][turn] = True
            ex["turn"], ex["played"] = 1 - turn, 0
            events = [self.press_for(pass_on(self._seats(turn)[0]), self._seats(turn)[0])]
        self._settle_exchange()
        return events

    def _stage_backups(self) -> Step:
        self.face_up.update((p, BACKUP) for p in range(self.players))
        self._resolve()
        return [BoardChange(self._view())]

    def _stage_clear(self) -> Step:
        self.clubs, self.placed, self.face_up, self.boost = [], {}, set(), {}
        self.moves_played, self.prestige = [0, 0], [0, 0]
        self.night += 1
        self.stage = "clubs"
        return [BoardChange(self._view())]

    def _settle_exchange(self) -> None:
        """As the rules say: a side with no Moves is out; both out ends the exchange."""
        ex = self.exchange
        assert ex is not None
        for side in (0, 1):
            if not any(self.hands[p] for p in self._seats(side)):
                ex["passed"][side] = True
        if all(ex["passed"]):
            self.exchange = None
            self._resolve()
        elif ex["passed"][ex["turn"]]:
            ex["turn"], ex["played"] = 1 - ex["turn"], 0

    def _resolve(self) -> None:
        """Compare the dance from the truth; Basic ties need the Backups flipped first."""
        dance = self.dances[self.cursor]
        cmp = compare_lowest_first(self._side_skills(0, dance), self._side_skills(1, dance))
        if cmp == 0 and self.variant == "basic":
            if any((p, BACKUP) not in self.face_up for p in range(self.players)):
                self.stage = "backups"
                return
            backups = [[self.placed[p][BACKUP] for p in self._seats(s)] for s in (0, 1)]
            cmp = compare_lowest_first(backups[0], backups[1])
        if cmp:
            self.prestige[0 if cmp > 0 else 1] += dance["prestige"]
        self.cursor += 1
        if self.cursor < len(self.dances):
            self.stage = "reveal"
        else:
            self._score_night()

    def _score_night(self) -> None:
        backups = [[self.placed[p][BACKUP] for p in self._seats(s)] for s in (0, 1)]
        winner, _ = night_winner(self.prestige, backups, self.moves_played, self.lead)
        self.night_winners.append(winner)
        self.stage = "clear"
        if winner is not None:
            self.points[winner] += 1
            if self.points[winner] >= int(self.rules["points_to_win"]):
                self._end(winner, "five points")
                return
        if self.night >= int(self.rules["max_nights"]):
            best = max(self.points)
            leaders = [s for s in (0, 1) if self.points[s] == best]
            self._end(leaders[0] if len(leaders) == 1 else winner, "nine nights")
            return
        self.lead = lead_after_night(self.points, winner, self.lead)
        self._new_night_draws()

    def _end(self, side: int | None, reason: str) -> None:
        self.winners = list(range(self.players)) if side is None else self._seats(side)
        self.reason = reason

    def _new_night_draws(self) -> None:
        """Advanced: played Moves to the discard pile, draw by Backup Dancer, hand limit."""
        if self.variant != "advanced":
            return
        for cards in self.boost.values():
            self.discard += cards
        limit = int(self.rules["hand_limit"])
        first = self.lead if self.lead is not None else 0
        for p in [(first + i) % self.players for i in range(self.players)]:
            for _ in range(self.draw_value[self.placed[p][BACKUP]]):
                if not self.move_pile:
                    if not self.discard:
                        break
                    self.move_pile, self.discard = self.discard, []
                    self.rng.shuffle(self.move_pile)
                self.hands[p].append(self.move_pile.pop())
            while len(self.hands[p]) > limit:
                self.discard.append(self.hands[p].pop(self.rng.randrange(len(self.hands[p]))))

    # --- the players' choices ----------------------------------------------------------------
    def _choose_places(self) -> dict[str, int]:
        """A Backup Dancer, then the strongest Dancers at the richest dances (with noise)."""
        skills = list(SKILLS)
        backup = self.rng.choice([1, 5, self.rng.choice(SKILLS)])
        skills.remove(backup)
        if self.rng.random() < 0.4:
            self.rng.shuffle(skills)
            order = list(range(4))
        else:
            skills.sort()
            clubs = sorted(range(4), key=lambda c: (self.clubs[c], self.rng.random()))
            order = clubs
        places = {SLOTS[c]: s for c, s in zip(order, skills, strict=True)}
        places[BACKUP] = backup
        return places
