"""The simulated Jivecat table: the truth (hands, deck orders) and scripted players.

The world keeps the public game state by applying its own moves with the rules
(players know the rules) and, beside it, what only the table knows: every hand,
the order of the Clique, Skull and Trend decks.  It reaches the companion only
through physical events: a chip put on a Lounge Lizard is a BoardChange, a
Clique card played is a CardTap on the player's seat reader, a Skull or Trend
card flipped face up onto its row position is a BoardChange (the camera reads
its face code), a Zombie or Rada laid in (or taken from) a tableau is a
BoardChange plus its tap, a Trend claimed is the Trend card taken off its row
and laid on the player's Trend pile in one BoardChange (every other claim also
tapped on the seat reader), and each step ends with the turn button.  Table
chores the tracker computes (sliding the rows down at a turn's start, a Skull
card collected) follow as a last BoardChange once the move is recorded.  A Trend
power is made on the table (its chip moved, its row card taken, or its Skulls and
Monkeys taken or paid on the mats), its Trend card tapped and the button pressed;
the first player is whoever lays the first Starter chip.  What the camera cannot
see (cards discarded at the end of a turn) is declared on the tablet.

The scripted players are simple and greedy: set a Trend when they can, cast a
Jivecat Spell when it pays, buy Hipsters and Skull-card lizards, otherwise grow
toward unclaimed Jivecats and Hipsters; now and then a Zombie, a Rada, a Voodoo
Spell on a leader's Jivecat chip or a Cheval jump.  Deterministic from the seed.
"""

from __future__ import annotations

import itertools
from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    Game,
    MalformedAction,
    Piece,
    RuleError,
    State,
    make_view,
)
from companion.games.jivecat import JivecatGame
from companion.games.jivecat.facts import (
    COLOURS,
    HAND_SIZE,
    ROWS,
    SKULL_COLOUR,
    STAFF,
    STAFF_COLOUR,
    find_signs,
    mat_place,
    tableau_spot,
    trend_pile,
)
from companion.sim.players.jivecat_turns import JivecatTurns
from companion.sim.world import (
    STRAIGHTEN_FRAMES,
    BoardChange,
    CardTap,
    HandOver,
    PhysicalEvent,
    TurnButton,
    World,
)

MOVES_PER_TURN = 6
SEEN_POWERS = ("move", "staff_remove", "skull_card", "trend_discard")
"""Trend powers whose whole effect lies on the table (ACTIONS.md: camera + button)."""


class JivecatWorld(JivecatTurns, World):
    """Truth and scripted players of a Swinging Jivecat Voodoo Lounge table."""

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        super().__init__(game, players, variant, seed)
        if not isinstance(game, JivecatGame):
            raise TypeError("the Jivecat world needs the Jivecat rules")
        self.rules: JivecatGame = game
        self.state: State = game.setup(players, variant, seed)
        deck = list(game.clique)
        self.rng.shuffle(deck)
        self.hands: list[list[str]] = [[deck.pop() for _ in range(HAND_SIZE)]
                                       for _ in range(players)]
        self.deck = deck  # the top card is the end of the list
        self.skull_deck = list(game.skull_cards)
        self.rng.shuffle(self.skull_deck)
        self.trend_deck = list(game.trend_cards)
        self.rng.shuffle(self.trend_deck)
        self.moves = 0
        self.tried: set[str] = set()
        self.rows_shown: State = self.state
        """The state whose Skull and Trend rows lie on the table until the move is recorded."""
        self.mats_shown: State | None = None
        """The state whose Skulls and Monkeys lie on the mats during a move (None: the truth):
        players take or pay them once the move is done, with the chores."""
        self.shown: BoardView = {}
        self.before_move: BoardView | None = None  # the table the last move was made on

    # ------------------------------------------------------------------ the contract
    def start(self) -> list[PhysicalEvent]:
        # the first player is whoever lays the first Starter chip: nothing to declare
        first = self.rng.randrange(self.players)
        self.state = self.rules.apply(self.state, {"type": "first_player", "player": first})
        return []

    def over_at_table(self) -> bool:
        return self.state["phase"] == "over"

    def finished(self) -> bool:
        """Over by the world's truth, and no question about the last move left unanswered."""
        return self.state["phase"] == "over" and self.pending is None

    def board(self) -> BoardView:
        """The real board now (a restarted demo shows it to the camera again)."""
        return self.view(full=True)

    def table_now(self) -> BoardView:
        """The table as the last move left it: its chores (rows slid, Skulls and Monkeys
        taken) wait until the tablet shows the move recorded."""
        return self.shown or self.board()

    def judged_board(self) -> BoardView:
        return self.rules.board_view(self.state)

    def truth(self) -> dict[str, Any]:
        outcome = self.rules.outcome(self.state)
        return {
            "scores": list(self.state["mp"]),
            "winners": list(outcome.winners) if outcome else [],
            "skulls": list(self.state["skulls"]),
            "hands": [sorted(h) for h in self.hands],
            "board": dict(self.state["board"]),
        }

    def step(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """One move's events; the row chores it caused, as a BoardChange of their own, once the
        tablet shows the move recorded; the move again when it shows nothing recorded."""
        mend = self.mend_last_move(tablet)
        if mend:
            return mend
        stray = self.forget_stray_taps(tablet, when_warned=True)
        if stray:
            return stray
        # the last move stands recorded: first the chores it caused (rows slid, Skulls and
        # Monkeys taken), which players do when the tablet tells them to
        real = self.view(full=True)
        chores: list[PhysicalEvent] = [BoardChange(real)] if real != self.shown else []
        self.shown = self.before_move = real
        if self.state["phase"] == "over":
            self.pending = None  # nothing asks about the last move: the table took it
            return chores
        self.rows_shown = self.mats_shown = self.state
        try:
            events = chores + self._step()
        finally:
            self.mats_shown = None
        for event in events:
            if isinstance(event, BoardChange):
                self.shown = event.view
        real = self.view(full=True)
        if self.state["phase"] == "over" and real != self.shown:
            events.append(BoardChange(real))  # the last move's chores: nothing comes after
            self.shown = real
        total = tablet.get("history_total") if isinstance(tablet, dict) else None
        self.last_move = (events, total if isinstance(total, int) else None, 0)
        self.move_pending = self.pending  # every move of this world is pending until recorded
        return events

    def again(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """The last move once more when the tablet shows no entry for it (the camera had not
        settled, the button was pressed too early, a card missed its reader; an entry for an
        earlier move the camera recorded late is not it): the table as it is, the same cards
        and presses; from the second time, the move's pieces taken back and laid again.  Three
        times at most, then players go on."""
        events, total, tries = getattr(self, "last_move", ([], None, 0))
        if not events or total is None or not self.nothing_stands_since(tablet, total, self.pending):
            return []
        if self.out_of_tries(self.pending):
            return []
        self.last_move = (events, total, tries + 1)
        # a hand straightens the pieces (the camera looks again), then the same cards and
        # presses: the table as the move left it (a row card it took stays taken; the Skulls it
        # pays leave the mat only with the chores, once it is recorded)
        moves = [e for e in events if not isinstance(e, BoardChange)]
        boards = [e.view for e in events if isinstance(e, BoardChange)]
        self.shown = boards[-1] if boards else self.view()
        if self.press_held(tablet):
            # "Press noted: it counts once the camera sees the table clear of hands": the hands
            # come off the table as the move left it, the press not made again (seed 1, cafe,
            # typical: a second press, come after the first was judged, recorded "Red ends the
            # turn" before Red's second drink), a card the tablet does not list laid again.  No
            # piece is taken back and laid again, no card forgotten: the press held is judged on
            # the table they leave (seed 12: judged on the Skull put back on the mat for a
            # moment, Hi-Fi Stereo's press recorded "Red ends the turn")
            listed = {t.get("card") for t in tablet.get("taps") or [] if isinstance(t, dict)}
            return [*(e for e in moves if isinstance(e, CardTap) and e.card not in listed),
                    BoardChange(self.shown)]
        before = getattr(self, "before_move", None)
        if tries and before is not None and before != self.shown:
            # straightening did not do: the move ran together with its chores for the camera
            # (made at once after them), so its pieces are taken back, then laid again
            return [*self.forget_stray_taps(tablet), HandOver(STRAIGHTEN_FRAMES), BoardChange(before),
                    HandOver(), BoardChange(self.shown), *moves]
        return [*self.forget_stray_taps(tablet), HandOver(STRAIGHTEN_FRAMES), BoardChange(self.shown), *moves]

    def words_for(self, action: Action) -> set[str]:
        """The history lines that say ``action``, its cards named in any order: the record
        names a drink's cards in the order they were read (a card that missed its reader and
        was laid again comes last: "(3+7)" for the 7 and the 3 laid in that order), and
        players know their drink by its cards and its place, not by the order of its sum
        (passive s7: "#13 Yellow buys a drink (3+7)" was not taken for their 7 and 3, so
        they made it again, and its press ended the turn)."""
        said = super().words_for(action)
        cards = action.get("cards")
        if not isinstance(cards, list) or not 1 < len(cards) <= 3 \
                or not all(c in self.rules.clique for c in cards):
            return said
        values = [self.rules.clique[c].value for c in cards]
        signs = action.get("signs")
        total = sum(sg * v for sg, v in zip(signs, values, strict=False)) if isinstance(signs, list) else None
        for order in itertools.permutations(range(len(cards))):
            move = {**action, "cards": [cards[i] for i in order]}
            if total is not None:
                found = find_signs([values[i] for i in order], total)
                if found is None:
                    continue
                move["signs"] = found
            said |= super().words_for(move)
        return said

    def _step(self) -> list[PhysicalEvent]:
        s = self.state
        if s["phase"] == "setup":
            if s["setup_queue"]:
                return self._place_starter(s["setup_queue"][0])
            return self._reveal()
        if s["phase"] == "staff":
            return self._staff()
        if s["refill"]["skull"] or s["refill"]["trend"]:
            return self._reveal()
        return self._turn(s["turn"])

    # ------------------------------------------------------------------ truth keeping
    def _commit(self, action: Action) -> State:
        """Apply one of our own moves to the truth; a refusal here is a bug of the world.
        Remembered until the tablet's history shows it, should the table ask about it."""
        self.note_words(self.state, action)
        self.state = self.rules.apply(self.state, action)
        self.pending = action
        return self.state

    def _legal(self, action: Action) -> bool:
        try:
            self.rules.apply(self.state, action)
        except (RuleError, MalformedAction):
            return False
        return True

    def view(self, full: bool = False, mats: bool = True) -> BoardView:
        """The table: chips, tableau cards, each player's Skulls and Monkeys on their mat
        (unless not ``mats``) and (until the move is recorded, unless ``full``) the rows as
        they lay before it, since sliding them is a chore that follows."""
        s = self.state
        rows = s if full else self.rows_shown
        items: dict[str, list[Piece]] = {
            spot: [Piece(STAFF_COLOUR if o == STAFF else COLOURS[o])]
            for spot, o in s["board"].items()}
        for row in ROWS:
            for i, card in enumerate(rows[f"{row}_row"]):
                if card is not None:
                    items[f"{row}-{i}"] = [self.rules.code_of[card]]
        for q in range(self.players):
            for t in s["tableau"][q]:
                items[tableau_spot(q, t["slot"])] = [self.rules.code_of[t["card"]]]
            if s["trends"][q] and q < len(self.rules.board.trend_piles):
                items[trend_pile(q)] = [self.rules.code_of[s["trends"][q][-1]["card"]]]
            if mats:
                self._lay_mat(items, q)
        return make_view(items)

    def _lay_mat(self, items: dict[str, list[Piece]], q: int) -> None:
        """The Skull tokens and Monkeys seat ``q`` holds, laid on its mat as its player lays
        them: blue Monkeys before orange ones, as many as the mat has places for."""
        mats = self.rules.board.mats
        held = getattr(self, "mats_shown", None) or self.state
        mp = int(held["mp"][q])
        for kind, count, colour, room in (
                ("skull", int(held["skulls"][q]), SKULL_COLOUR, mats["skull_places"]),
                ("five", mp // 5, "blue", mats["five_places"]),
                ("one", mp % 5, "orange", mats["one_places"])):
            for i in range(min(count, int(room))):
                items[mat_place(q, kind, i)] = [Piece(colour)]

    def _take(self, pile: list[str]) -> str | None:
        """The top Clique card; shuffle ``pile`` (the public discards) in when the deck is out."""
        if not self.deck:
            if not pile:
                return None
            self.deck = list(pile)
            self.rng.shuffle(self.deck)
            pile.clear()
        return self.deck.pop()

    # ------------------------------------------------------------------ set-up, rows, Staff
    def _place_starter(self, p: int) -> list[PhysicalEvent]:
        free = [x for x, liz in self.rules.board.lizards.items()
                if liz.kind == "starter" and x not in self.state["board"]]
        spot = self.rng.choice(sorted(free))
        self._commit({"type": "place_starter", "player": p, "spot": spot})
        return [BoardChange(self.view()), TurnButton()]

    def _reveal(self) -> list[PhysicalEvent]:
        s = self.state
        row = "skull" if s["refill"]["skull"] else "trend"
        deck = self.skull_deck if row == "skull" else self.trend_deck
        if len(deck) < s[f"{row}_deck"]:  # the tracker's rule: Skull discards reshuffled
            extra = [c for c in self.rules.skull_cards if c not in deck
                     and c not in s["skull_row"]]
            self.rng.shuffle(extra)
            deck[:0] = extra
        card = deck.pop()
        flip = {"type": "reveal", "row": row, "card": card, "slot": s["refill"][row][0]}
        self._commit(flip)
        # made without a press, yet theirs: a correction that names it is recognised (passive
        # s19: Beatnik Poetry, read a pip high and recorded as Tiki Mugs, was flipped again and
        # again while the tablet offered its correction)
        self.remember_made(flip)
        return [BoardChange(self.view(full=True))]

    def _staff(self) -> list[PhysicalEvent]:
        s = self.state
        staff = s["staff"]
        p = s["turn"]
        if staff["purge_by"] is not None:
            spots = sorted(k for k, v in s["board"].items() if v == STAFF)
            self.rng.shuffle(spots)
            action = {"type": "staff_remove", "player": staff["purge_by"],
                      "spots": sorted(spots[:5])}
            self._commit(action)
            return [BoardChange(self.view()), TurnButton()]
        if staff["pending"]:
            spot = self.rng.choice(staff["pending"]["spots"])
            self._commit({"type": "staff_place", "player": p, "spot": spot})
            return [BoardChange(self.view()), TurnButton()]
        pile = list(s["discard"])
        card = self._take(pile)
        assert card is not None, "the tracker would not ask for a flip with no cards"
        self._commit({"type": "staff_flip", "player": p, "card": card})
        return [CardTap(card, None)]

WORLD_CLASS = JivecatWorld
