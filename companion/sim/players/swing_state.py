"""Swing State Steal's simulated table: shuffled decks, hidden hands, pawns, the die.

The world holds the truth: the News deck's order (a queue: a drawn card goes to the
bottom), the Cheat and Evidence decks, each State's hidden Cheat cards, the
Incumbent's Evidence cards, where every pawn stands and what the die shows.  Its
scripted players know the rules (they keep their own copy of the public game in
``self.public``, as players keep the bank in their heads) and reach the companion
only through physical events: the die picked up and landing, pawns moved with the
turn button, cards tapped on the readers, and declarations on the tablet.

Players' heuristics: a State cheats with its best playable card whenever it can
(doubled after Stop Counting is best); the Incumbent gives its colour choices to the
piles furthest behind and takes losses from the piles furthest ahead; in Round 4 he
rolls for Evidence on the first turn when he holds fewer than three, and plays his
strongest card first; a State answers with the card that returns the fewest votes and
spends a Black Wild card when a hand would cost it 3 V or more.

Like people at a table, the players glance at the tablet: when its history shows that the
last move was not recorded (the camera had not settled when the button was pressed), they
show the board and press the button again, tap the card again or declare again.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import Action, BoardView, Game, Piece, make_view
from companion.games.swing_state.board import pile_place, vote_place
from companion.sim.world import (
    BoardChange,
    CardTap,
    Declare,
    PhysicalEvent,
    TurnButton,
    World,
)


def roll_due(state: dict[str, Any]) -> str | None:
    """What a roll now would be for, as the players read the rulebook: a move at the start of
    a turn, a die's worth of V when a space asks for it, the Evidence roll in Round 4."""
    if state["over"]:
        return None
    if state["round"] <= 3:
        if state["step"] == "start":
            return "move"
        pending = state["await"]
        return "amount" if state["step"] == "effects" and pending and pending["kind"] == "roll" else None
    r4 = state["r4"]
    return "evidence" if state["step"] == "evidence" and r4["hand"] == 1 and not r4["rolled"] else None


class SwingStateWorld(World):
    """The table's truth and its players, deterministic from the seed."""

    compares_board = True
    remembers_every_move = True

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        super().__init__(game, players, variant, seed)
        self.public = game.setup(players, variant, seed)
        g: Any = game
        self.rules = g
        self.news_deck = list(g.news_order)
        self.cheat_deck = list(g.cheats)
        self.evidence_deck = list(g.evidence_cards)
        self.rng.shuffle(self.news_deck)
        self.rng.shuffle(self.cheat_deck)
        self.rng.shuffle(self.evidence_deck)
        self.cheat_hand: list[list[str]] = [[] for _ in range(players)]
        self.evidence_hand: list[str] = []
        self.pawn: list[str] = list(self.public["pawn"])
        self.die: int | None = None
        self.colours: list[str] = list(self.public["colours"])
        # the tablet's history_total when the last action was made: the companion also records
        # entries of its own ("Red loses this turn"), so only "nothing new since" means unrecorded
        self.total_at_send: int | None = None
        self.last_events: list[PhysicalEvent] = []
        self.made: list[tuple[Any, ...]] = []  # the gist of the players' last few moves
        self.undone_seqs: set[Any] = set()  # entries they undid as never made
        self.retries = 0

    # --- the physical table --------------------------------------------------------------
    def view(self) -> BoardView:
        items: dict[str, list[Piece]] = {}
        for seat, spot in enumerate(self.pawn):
            items.setdefault(spot, []).append(Piece(self.colours[seat], 0))
        if self.die is not None:
            items.setdefault(self.rules.die_spot, []).append(Piece(self.rules.die_colour, self.die))
        # the V chips in the trays: the banker lays a pile as 5 V chips, then 1 V chips, each
        # on a place for its value (as many as the tray holds)
        for seat in range(1, self.players):
            colour = self.colours[seat]
            for place, value in ((vote_place, self.public["votes"][colour]),
                                 (pile_place, self.public["piles"][colour])):
                for worth, count, room in ((5, value // 5, self.rules.tray_fives),
                                           (1, value % 5, self.rules.tray_ones)):
                    for i in range(min(count, room)):
                        items[place(seat, worth, i)] = [Piece(colour, 0)]
        return make_view(items)

    def start(self) -> list[PhysicalEvent]:
        return [BoardChange(self.view())]

    def board(self) -> BoardView | None:
        return self.view()

    def finished(self) -> bool:
        return self.game.outcome(self.public) is not None

    def recognises_made(self, action: Action) -> bool:
        """A roll of theirs named on a button is their last roll (a die left showing an
        earlier State's roll is no roll of the player the tablet names): an earlier roll
        of the same face is not what a correction of this one means.  A pick-up of the die is
        theirs only as their newest move, or just before the roll it was for: under a lamp
        over the die all evening, "Incumbent picks up the die" offered while Red's roll still
        lay there was tapped for the Incumbent's pick-up of a turn before, and Red's 5 was
        then recorded as the Incumbent's roll."""
        made = getattr(self, "made_moves", [])
        if action.get("type") == "pick_up_die":
            return action in made[-1:] or (action in made[-2:-1] and made[-1].get("type") == "roll")
        if action.get("type") != "roll":
            return True
        rolls = [a for a in made if a.get("type") == "roll"]
        return bool(rolls) and rolls[-1] == action

    def last_roll_at(self) -> int | None:
        """Where the players' last roll stands among the moves they remember (``made``)."""
        made = getattr(self, "made", [])  # a world pickled before it existed
        return max((i for i, m in enumerate(made) if m[0] == "roll"), default=None)

    def truth(self) -> dict[str, Any]:
        outcome = self.game.outcome(self.public)
        return {
            "scores": self.count_chips(),
            "winners": list(outcome.winners) if outcome else [],
            "reason": outcome.reason if outcome else None,
            "piles": dict(self.public["piles"]),
            "votes": dict(self.public["votes"]),
            "pot": dict(self.public["pot"]),
            "cheat_hands": [list(h) for h in self.cheat_hand],
            "evidence_hand": list(self.evidence_hand),
        }

    def count_chips(self) -> list[float]:
        """The scores as players count them on the table: the Incumbent the V chips in all
        his piles, each State the V chips in its own tray."""
        colours = self.public["colours"][1:]
        return [float(sum(self.public["piles"].values()))] + [float(self.public["votes"][c]) for c in colours]

    def step(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The next move; or, when the tablet shows the last one was not recorded (the camera
        had not settled, a button press came too early), do it again as players would."""
        if isinstance(tablet, dict):
            # a reading to confirm first; then an entry nobody made goes before anything is
            # straightened (straightening would only show the camera a table it misreads again)
            answer = self.confirm_reading(tablet)
            stray = None if answer else self.stray_entry(tablet)
            if stray is not None:
                answer = [Declare(self.mend_entry(tablet, stray))]
            answer = answer or self.answer_prompt(tablet)
            if answer:
                return answer
        history = tablet.get("history") if isinstance(tablet, dict) else None
        # the tablet shows the newest entries only; history_total counts them all
        recorded = tablet.get("history_total", len(history)) if isinstance(history, list) else None
        sent_at = getattr(self, "total_at_send", None)  # a world pickled before it existed
        if recorded is not None and self.last_events and sent_at is not None \
                and self.nothing_stands_since(tablet, sent_at, getattr(self, "last_action", None)) \
                and not self.newest_line_says(tablet, getattr(self, "last_action", None)):
            self.retries += 1  # nothing recorded since the last move (or only what we undid)
            # a card the tablet still lists (read twice, the second read left over) would
            # spoil the move made again: they take it back first, as in every game
            return [*self.forget_stray_taps(tablet), *self.repeat_last()]
        if self.finished():
            return []
        stray = self.forget_stray_taps(tablet, when_warned=True)
        if stray:
            return stray
        action = self.choose()
        self.remember_made(action)
        self.last_action = action  # an entry since that is not this move (a correction) is not it
        events = self.enact(action)
        before = self.public
        self.public = self.game.apply(before, action)
        self.settle_hidden(before, action)
        self.total_at_send = recorded
        self.made = [*getattr(self, "made", [])[-3:], self.gist(action)]
        if (before["votes"], before["piles"]) != (self.public["votes"], self.public["piles"]):
            events = [*events, BoardChange(self.view())]  # then the V chips change hands
        self.last_events = events
        return events

    def newest_line_says(self, tablet: dict[str, Any], action: Action | None) -> bool:
        """Whether the newest standing line of the history says the move just made: it is
        recorded, though the line came before they made it (seed 4, cafe: the die, untouched,
        read as another colour for a moment became "Incumbent picks up the die"; the roll
        read with it was undone, and when the Incumbent then picked the die up, players who
        looked only at lines newer than their move pressed again for it, a hundred times)."""
        standing = [h for h in tablet.get("history") or [] if isinstance(h, dict) and not h.get("undone")]
        if action is None or not standing or not (isinstance(standing[-1].get("text"), str)
                                                  or isinstance(standing[-1].get("action"), dict)):
            return False  # no line to read (a harness counting entries): nothing said
        return self.entry_says(standing[-1], action)

    CAMERA_MOVES = ("roll", "pick_up_die", "move", "advance")

    @staticmethod
    def gist(action: Action) -> tuple[Any, ...]:
        """What players remember of a move they made: its kind, who, the die's face, the space."""
        return action.get("type"), action.get("player"), action.get("value"), action.get("to")

    def stray_entry(self, tablet: dict[str, Any]) -> dict[str, Any] | None:
        """The newest entry on the tablet when it is a move the camera recorded that none of
        the players made (a die misread a pip off for a moment became "Blue rolls 4" though
        nobody had rolled): players see it and mend it (:meth:`mend_entry`), once.  A roll
        is theirs only as their last roll: the die shows no other, so "Red rolls 5" for
        Red's roll of 4 is a misreading even when Red rolled 5 the turn before."""
        shown = [h for h in tablet.get("history") or [] if isinstance(h, dict) and not h.get("undone")]
        if not shown:
            return None
        newest = shown[-1]
        action = self.read_line(newest)
        undone = getattr(self, "undone_seqs", set())
        made = getattr(self, "made_moves", [])[-4:]
        rolls = [a for a in getattr(self, "made_moves", []) if a.get("type") == "roll"]
        ours = (bool(rolls) and self.entry_says(newest, rolls[-1])) if action.get("type") == "roll" \
            else any(self.entry_says(newest, a) for a in made)
        if newest.get("source") != "camera" or action.get("type") not in self.CAMERA_MOVES \
                or ours or newest.get("seq") in undone:
            return None
        if not self.notices(("stray", newest.get("seq"))):
            return None  # the line was not read, or did not read wrong to them
        self.undone_seqs = undone | {newest.get("seq")}
        return newest

    def none_made(self, said: str) -> bool:
        """A roll, pick-up or pawn move none of them made: the line names a seat that made
        no such move of late (a roll: not the newest roll at the table, the die shows one)."""
        line = self.read_line({"text": said})
        if not line:
            return False
        made = [a for a in getattr(self, "made_moves", []) if a.get("type") == line.get("type")
                or {a.get("type"), line.get("type")} == {"move", "advance"}]
        if line.get("type") == "roll":  # the die shows one roll: the newest
            return not made or made[-1].get("player") != line.get("player")
        return not any(a.get("player") == line.get("player") for a in made)

    def read_line(self, entry: dict[str, Any]) -> Action:
        """What a history line says was done, as far as players read it: a pick-up of the
        die, a roll and its face, a pawn moved to a space, by whom (its words; {} for any
        other line).  A tablet handed over as data (a test) gives the entry's action."""
        if isinstance(entry.get("action"), dict):
            return entry["action"]
        text = str(entry.get("text", ""))
        lines = getattr(self, "_lines", None)
        if lines is None:
            lines = self._lines = {}
            for p in range(self.players):
                said: list[Action] = [{"type": "pick_up_die", "player": p}]
                said += [{"type": "roll", "player": p, "value": v} for v in range(1, 7)]
                said += [{"type": kind, "player": p, "to": to} for to in self.rules.spaces
                         for kind in ("move", "advance")]
                for action in said:
                    lines.setdefault(self.game.describe(self.public, action), action)
        return dict(lines.get(text, {}))

    def mend_entry(self, tablet: dict[str, Any], entry: dict[str, Any]) -> Action:
        """What players tap on an entry that is none of their moves, naming it (a move the
        camera records meanwhile is not taken back instead).  The roll that follows the
        tablet's record of their last pick-up of the die, read a pip off, is replaced by the
        roll the die shows; anything else is undone (a roll nobody made, though the die
        shows the last roller's face, is no reading of that roll)."""
        action = self.read_line(entry)
        made = self.made
        last = self.last_roll_at()
        standing = [h for h in tablet.get("history") or [] if isinstance(h, dict) and not h.get("undone")]
        before = self.read_line(standing[-2]) if len(standing) > 1 and standing[-1] is entry else {}
        if last is not None and last > 0 and action.get("type") == "roll" \
                and made[last - 1] == ("pick_up_die", made[last][1], None, None) \
                and before.get("type") == "pick_up_die" \
                and action.get("player") == before.get("player") == made[last][1] \
                and self.die == made[last][2]:
            roll = {"type": "roll", "player": made[last][1], "value": made[last][2]}
            return {"type": "correct", "action": roll, "seq": entry.get("seq")}
        return {"type": "undo", "seq": entry.get("seq")}

    def repeat_last(self) -> list[PhysicalEvent]:
        """Show the table again and press the button; tap the card or declare once more."""
        events: list[PhysicalEvent] = [
            BoardChange(self.view()) if isinstance(e, BoardChange) else e for e in self.last_events
        ]
        moved = any(isinstance(e, BoardChange) for e in events)
        if moved and not any(isinstance(e, TurnButton) for e in events):
            events.append(TurnButton())  # the board may already be seen: explain it now
        return events

    # --- what the players do -----------------------------------------------------------------
    def choose(self) -> Action:
        """The next action by the players' heuristics, always legal by the rules they know."""
        st = self.public
        g = self.rules
        if roll_due(st) and self.wants_roll(st):
            roller = g.current_player(st)
            if self.die is not None:
                return {"type": "pick_up_die", "player": roller}
            return {"type": "roll", "player": roller, "value": self.rng.randint(1, 6)}
        rnd, step = st["round"], st["step"]
        if rnd <= 3:
            p = st["turn"]
            if step in ("start", "waiting"):
                card = self.best_cheat(st, p)
                if card:
                    return {"type": "cheat", "player": p, "card": card}
                return {"type": "pass", "player": p}
            if step == "move":
                return {"type": "move", "player": p, "to": st["dest"]}
            kind = st["await"]["kind"]
            if kind == "news":
                return {"type": "draw_news", "player": p, "card": self.news_deck[0]}
            return {"type": "allocate", "player": 0, "piles": self.allocation(st)}
        r4 = st["r4"]
        if step == "wilds":
            p = g.current_player(st)
            return {"type": "keep_wilds", "player": p, "count": len(self.wilds_in_hand(p))}
        if step == "advance":
            return {"type": "advance", "player": 0, "to": g.r4_spots[r4["space"] + 1]}
        if step == "evidence":
            return {"type": "evidence", "player": 0, "card": self.best_evidence()}
        p = g.current_player(st)
        return {"type": "respond", "player": p, "card": self.best_response(st, p)}

    def wants_roll(self, st: dict[str, Any]) -> bool:
        """Rolls are due on every move; in Round 4 the first-turn roll is a choice."""
        if st["round"] <= 3:
            if st["step"] == "start" and st["turn"] != 0:
                return self.best_cheat(st, st["turn"]) is None
            return True
        return len(self.evidence_hand) < 3

    def best_cheat(self, st: dict[str, Any], p: int) -> str | None:
        g = self.rules
        if p == 0 or st["cheated"] or st["round"] > 3:
            return None
        if st["step"] == "waiting" and g.waiting_skips(st):
            return None
        if st["piles"][self.colours[p]] <= 0:
            return None
        playable = [
            c
            for c in self.cheat_hand[p]
            if g.cheats[c]["colour"] != "black" and g.cheats[c]["round"] <= st["round"]
        ]
        if not playable:
            return None
        return max(playable, key=lambda c: (g.cheats[c]["value"], c))

    def allocation(self, st: dict[str, Any]) -> dict[str, int]:
        """Gains to the piles furthest behind their State; losses from the piles furthest ahead."""
        pending = st["await"]
        piles = dict(st["piles"])
        pot = dict(st["pot"])
        out: dict[str, int] = {}
        for _ in range(pending["amount"]):
            if pending["dir"] == "gain":
                options = [c for c in piles if pot[c] > 0]
                colour = max(options, key=lambda c: (st["votes"][c] - piles[c], c))
                pot[colour] -= 1
                piles[colour] += 1
            else:
                options = [c for c in piles if piles[c] > 0]
                colour = max(options, key=lambda c: (piles[c] - st["votes"][c], c))
                piles[colour] -= 1
            out[colour] = out.get(colour, 0) + 1
        return out

    def wilds_in_hand(self, p: int) -> list[str]:
        return [c for c in self.cheat_hand[p] if self.rules.cheats[c]["colour"] == "black"]

    def best_evidence(self) -> str:
        g = self.rules
        return max(
            self.evidence_hand,
            key=lambda c: (bool(g.evidence_cards[c].get("trump")), g.evidence_cards[c]["value"], c),
        )

    def best_response(self, st: dict[str, Any], p: int) -> str | None:
        """The card that returns the fewest votes; a Black Wild when a hand would cost 3 V+."""
        g = self.rules
        evidence = g.evidence_cards[st["r4"]["evidence"]]
        card = g.evidence_cards[st["r4"]["evidence"]]
        matching = [cid for cid in st["played"][p] if cid not in st["r4"]["used"]
                    and (card.get("trump") or g.cheats[cid]["round"] in card["rounds"])]
        wilds = self.wilds_in_hand(p)

        def cost(card_id: str) -> int:
            value = g.cheats[card_id]["value"]
            if evidence.get("trump") or value <= evidence["value"]:
                return value
            return value - evidence["value"]

        best = min(matching, key=lambda c: (cost(c), c)) if matching else None
        if wilds and (best is None or cost(best) >= 3):
            return max(wilds, key=lambda c: (g.cheats[c].get("wild") == "all", c))
        return best

    # --- physical events and the hidden truth --------------------------------------------------
    def enact(self, action: Action) -> list[PhysicalEvent]:
        """Change the real table for ``action`` and say what the companion's channels get."""
        kind = action["type"]
        if kind == "pick_up_die":
            self.die = None
            return [BoardChange(self.view())]
        if kind == "roll":
            self.die = action["value"]
            return [BoardChange(self.view())]
        if kind == "move":
            self.pawn[action["player"]] = action["to"]
            return [BoardChange(self.view()), TurnButton()]
        if kind == "advance":
            self.pawn[0] = action["to"]
            return [BoardChange(self.view())]
        if kind == "pass":
            return [TurnButton()]
        if kind == "draw_news":
            return [CardTap(action["card"], None)]
        if kind in ("cheat", "respond") and action.get("card"):
            return [CardTap(action["card"], action["player"])]
        if kind == "evidence":
            return [CardTap(action["card"], 0)]
        return [Declare(dict(action))]

    def settle_hidden(self, before: dict[str, Any], action: Action) -> None:
        """Draw, play and discard the real cards the public record says moved."""
        after = self.public
        kind = action["type"]
        if kind == "draw_news":
            self.news_deck.append(self.news_deck.pop(0))
        if kind == "cheat":
            self.cheat_hand[action["player"]].remove(action["card"])
        if kind == "evidence":
            self.evidence_hand.remove(action["card"])
            self.evidence_deck.append(action["card"])
        if kind == "respond" and action.get("card") in self.cheat_hand[action["player"]]:
            self.cheat_hand[action["player"]].remove(action["card"])
        if kind == "keep_wilds" or (before["r4"] is None and after["r4"] is not None):
            for seat in range(1, self.players):
                declared = after["r4"]["declared"][seat] and not (
                    before["r4"] and before["r4"]["declared"][seat]
                )
                if declared:
                    self.cheat_hand[seat] = self.wilds_in_hand(seat)
        for seat in range(1, self.players):
            drawn = after["cheat_held"][seat] - before["cheat_held"][seat]
            if kind in ("cheat", "keep_wilds", "respond", "evidence") or drawn <= 0:
                continue
            for _ in range(drawn):
                self.cheat_hand[seat].append(self.cheat_deck.pop(0))
        drawn = after["evidence_held"] - before["evidence_held"]
        if kind != "evidence" and drawn > 0:
            for _ in range(drawn):
                self.evidence_hand.append(self.evidence_deck.pop(0))


WORLD_CLASS = SwingStateWorld
