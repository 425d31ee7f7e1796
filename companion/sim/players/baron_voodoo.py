"""Baron Voodoo's simulated table: the true grid and Deity boards, and scripted players.

The world keeps its own truth as a state of the game's rules (players know the rules),
evolved by the moves its players choose; it never reads the companion's state.  It
reaches the companion only as a real table would:

* dice moved on the grid (a capture, a Deity power) -> ``BoardChange`` (the whole table as
  the camera sees it: the top die of every cell, each side's mat) and the turn button;
* Caught Souls, Offering tokens, the score marker and Protection tokens moved on a side's
  mat (a token taken or paid, a face changed, a VP, a group sent, a die stolen or swapped,
  a Protection token flipped) -> ``BoardChange`` and the button when the mats alone tell
  the move, else declared as well;
* a turn ended with the grid untouched -> the turn button (after a capture "end of turn";
  before a capture, "I cannot capture"), the next player's Protection token flipped back
  first when it was active;
* what the camera cannot see (the Underworld, the Deity choice) -> ``Declare`` on the
  tablet.

When a grid change could be read as another move too (two powers leaving the same grid,
a team turn whose player the dice do not tell, a move that leaves the tops unchanged),
the players declare the move on the tablet after moving the dice, as they would answer
the companion's question.  Players are simple heuristics driven by the seeded generator,
so a seed replays the same game.
"""

from __future__ import annotations

from typing import Any

from companion.games.baron_voodoo import BaronVoodoo
from companion.games.baron_voodoo.groups import best_plan, valid_groups
from companion.games.baron_voodoo.powers import captures, power_options
from companion.games.base import Action, BoardView, Game, State
from companion.sim.world import (
    BoardChange,
    Declare,
    HandOver,
    PhysicalEvent,
    World,
)

FACE_WEIGHT = {"vp": 3.0, "offering": 2.0, "steal": 2.0, "swap": 1.0, "change": 1.0,
               "protection": 1.5}



def side_of(state: State, seat: int) -> int:
    """The side a seat plays for (teams of two in the four-player game): the rulebook's own
    pairing, worked out by the players rather than asked of the tracker."""
    return seat // 2 if state["team"] else seat


def possible_actors(state: State) -> list[int]:
    """Who may act this turn: the seat that began it, else the side's seats, default first."""
    turn = state["turn"]
    if turn["actor"] is not None:
        return [turn["actor"]]
    side = turn["side"]
    seats = [2 * side, 2 * side + 1] if state["team"] else [side]
    return sorted(seats, key=lambda s: s != turn["default"])


class BaronVoodooWorld(World):
    """The true table of one Baron Voodoo game and its scripted players."""

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        super().__init__(game, players, variant, seed)
        if not isinstance(game, BaronVoodoo):
            raise TypeError("BaronVoodooWorld needs the Baron Voodoo rules")
        self.rules: BaronVoodoo = game
        self.state: State = game.setup(players, variant, seed)
        self.plan: dict[str, Any] = {}

    # --- the contract ---------------------------------------------------------------------
    def start(self) -> list[PhysicalEvent]:
        """Choose Deities (sometimes not the default ones), roll and place the dice."""
        events: list[PhysicalEvent] = []
        g, f = self.rules, self.rules.facts
        choices = [a for a in g.legal_actions(self.state) if a["type"] == "deities"]
        if choices and self.rng.random() < 0.5:
            action = self.rng.choice(choices)
            events += self._act(action)
        name = self.state["variant"]
        if name in f.layouts:
            board = {cell: [list(die)] for cell, die in f.layouts[name].items()}
            layout = name
        else:
            board = {cell: [[colour, self.rng.choice(f.faces)]]
                     for cell, colour in f.printed.items() if colour != "black"}
            layout = "random"
        self._apply({"type": "setup", "layout": layout, "board": board})
        self.laid = board  # the dice as the players rolled and placed them
        self.laid_setup = {"type": "setup", "layout": layout, "board": board}
        # pressed for like any move: a set-up the tablet does not show (a die misread as the
        # press came) is made again, and declared when the tablet asks (Baron Voodoo seed 17,
        # cafe, passive: two dice the camera never saw; the set-up was refused at every press,
        # and the players went on playing a game the tablet never started); the history held
        # the Deities' choice, if any, before it
        setup: list[PhysicalEvent] = [BoardChange(g.board_view(self.state)), self.press_for(self.laid_setup)]
        self.last_move = (setup, sum(isinstance(e, Declare) for e in events), 0)
        return events + setup

    def step(self, tablet: dict[str, Any]) -> list[PhysicalEvent]:
        """Answer the tablet's question, or correct or make again a move it did not record
        as made; else the next move."""
        mend = self.mend_last_move(tablet)
        if mend:
            return mend
        if self.state["phase"] == "over":
            self.pending = None  # nothing asks about the last move: the table took it
            return []
        stray = self.forget_stray_taps(tablet, when_warned=True)
        if stray:
            return stray
        phase = self.state["phase"]
        if phase == "final":
            events = self._act(self._final_group())
        elif self.state["turn"]["step"] in ("A", "B"):
            events = self._start_of_turn()
        else:
            events = self._after_capture()
        self.remember_move(tablet, events)
        return events

    def table_moves(self) -> list[Action]:
        """The set-up on their table, every die where they put it, as a button names it."""
        setup = getattr(self, "laid_setup", None)
        return [setup] if setup is not None else []

    def recognises(self, action: Any) -> bool:
        """A set-up offered as a correction is ours when it is the one on the table: every
        die where the players put it, showing the face they rolled."""
        laid = getattr(self, "laid", None)  # a world pickled before it existed
        return isinstance(action, dict) and action.get("type") == "setup" and laid is not None \
            and action.get("board") == laid

    def over_at_table(self) -> bool:
        return self.state["phase"] == "over"

    def finished(self) -> bool:
        """Over by the world's truth, and no question about the last move left unanswered."""
        return self.state["phase"] == "over" and self.pending is None

    def board(self) -> BoardView | None:
        """The real grid now (the camera's view of it), for a demo that restarts."""
        if self.state["phase"] == "setup":
            return None
        return self.rules.board_view(self.state)

    def judged_board(self) -> BoardView | None:
        return self.board()

    def truth(self) -> dict[str, Any]:
        g = self.rules
        # the players' own count: each seat's side's score marker on the track
        scores = [float(self.state["vp"][side_of(self.state, seat)]) for seat in range(self.state["players"])]
        out: dict[str, Any] = {"scores": scores, "vp": list(self.state["vp"]),
                               "phase": self.state["phase"], "end": self.state["end"]}
        result = g.outcome(self.state)
        if result is not None:
            out["winners"] = list(result.winners)
            out["reason"] = result.reason
        return out

    # --- the players' choices ----------------------------------------------------------------
    def _start_of_turn(self) -> list[PhysicalEvent]:
        s = self.state
        turn = s["turn"]
        seats = possible_actors(s)
        best = self._best_capture(seats)
        if turn["step"] == "A":
            enabling = None if best else self._enabling_power(seats)
            if enabling is not None:
                return self._board_move(enabling)
            if best and self.rng.random() < 0.15:
                voluntary = self._voluntary_power(best[0])
                if voluntary is not None:
                    return self._board_move(voluntary)
        if best is None:
            return self._button_or_declare({"type": "stuck", "player": seats[0]})
        seat, frm, over, to = best
        return self._board_move({"type": "capture", "player": seat, "from": frm, "over": over,
                                 "to": to})

    def _after_capture(self) -> list[PhysicalEvent]:
        g, s = self.rules, self.state
        turn = s["turn"]
        seat = turn["actor"]
        side = side_of(s, seat)
        key = f"{turn['number']}"
        if self.plan.get("key") != key:
            self.plan = {
                "key": key,
                "change": self.rng.random() < 0.25,
                "effect": self.rng.random() < 0.9,
                "extra": self.rng.random() < 0.3,
                "power": self.rng.random() < 0.12,
                "sends": 0,
            }
        plan = self.plan
        legal = [a for a in g.legal_actions(s) if a.get("player") == seat]
        by_type: dict[str, list[Action]] = {}
        for a in legal:
            by_type.setdefault(a["type"], []).append(a)
        if "take_offering" in by_type:
            return self._act(by_type["take_offering"][0])
        if plan["change"] and "change_face" in by_type and turn["c_step"] < 2 \
                and s["offerings"][side] >= 2 and turn["captured"][1] != "vp":
            plan["change"] = False
            return self._act({"type": "change_face", "player": seat, "face": "vp"})
        if plan["effect"] and "effect" in by_type:
            plan["effect"] = False
            return self._act(self._choose_effect(seat, by_type["effect"]))
        if plan["extra"] and "extra_turn" in by_type and s["offerings"][side] >= 4:
            plan["extra"] = False
            return self._act(by_type["extra_turn"][0])
        sends = by_type.get("send", [])
        if sends and plan["sends"] < 3:
            group = sends[0]["dice"]
            vp = g.facts.group_vp[len(group)]
            zone = len(s["caught"][side])
            if vp >= 3 or zone >= 6 or (s["end"] is not None) or self.rng.random() < 0.3:
                plan["sends"] += 1
                return self._act(sends[0])
            plan["sends"] = 3
        if plan["power"] and not turn["power_used"]:
            plan["power"] = False
            own = [a for a in by_type.get("power", []) if g.power_cost(s, seat, a["deity"]) == 0]
            if own:
                return self._board_move(self.rng.choice(own))
        return self._button_or_declare({"type": "end_turn", "player": seat})

    def _final_group(self) -> Action:
        g, s = self.rules, self.state
        seat = g.current_player(s)
        assert seat is not None
        groups = valid_groups(s["caught"][side_of(s, seat)], g.facts)
        return {"type": "final_group", "player": seat, "dice": groups[0] if groups else []}

    def _best_capture(self, seats: list[int]) -> tuple[int, str, str, str] | None:
        g, s = self.rules, self.state
        board = s["board"]
        best: tuple[float, tuple[int, str, str, str]] | None = None
        for seat in seats:
            colour = s["colours"][seat]
            zone = s["caught"][side_of(s, seat)]
            for frm, over, to in captures(s, g.facts, colour):
                victim = board[over][-1]
                score = FACE_WEIGHT[victim[1]] + (2.0 if victim[0] == colour else 0.0)
                score += 0.5 * sum(1 for d in zone if d[0] == victim[0] or d[1] == victim[1])
                score += self.rng.random()
                if best is None or score > best[0]:
                    best = (score, (seat, frm, over, to))
        return best[1] if best else None

    def _enabling_power(self, seats: list[int]) -> Action | None:
        """A power after which a capture exists (own power first, then a paid one)."""
        g, s = self.rules, self.state
        for seat in seats:
            colour = s["colours"][seat]
            powers = sorted(g.usable_powers(s, seat), key=lambda d: g.power_cost(s, seat, d))
            for deity in powers:
                for params, changes in power_options(s["board"], g.facts, deity):
                    trial = dict(s, board={**s["board"], **changes})
                    if captures(trial, g.facts, colour):
                        return {"type": "power", "player": seat, "deity": deity, **params}
        return None

    def _voluntary_power(self, seat: int) -> Action | None:
        """A free power of one's own Deity that still leaves a capture."""
        g, s = self.rules, self.state
        colour = s["colours"][seat]
        own = [d for d in g.usable_powers(s, seat) if g.power_cost(s, seat, d) == 0]
        options = [(d, p, c) for d in own for p, c in power_options(s["board"], g.facts, d)]
        self.rng.shuffle(options)
        for deity, params, changes in options[:20]:
            trial = dict(s, board={**s["board"], **changes})
            if captures(trial, g.facts, colour):
                return {"type": "power", "player": seat, "deity": deity, **params}
        return None

    def _choose_effect(self, seat: int, options: list[Action]) -> Action:
        g, s = self.rules, self.state
        face = s["turn"]["captured"][1]
        if len(options) == 1 or face not in ("change", "steal", "swap"):
            return options[0]
        side = side_of(s, seat)
        sample = options if len(options) <= 40 else self.rng.sample(options, 40)

        def value(action: Action) -> float:
            zone = [list(d) for d in s["caught"][side]]
            if face == "change":
                zone[zone.index(action["die"])] = [action["die"][0], action["new_face"]]
            elif face == "steal":
                zone.append(action["die"])
                return best_plan(zone, g.facts, limit=8) + (1 if action["die"][0] == "white"
                                                            else 0)
            elif face == "swap":
                mine = side_of(s, action["a"]) == side
                give, take = (action["a_die"], action["b_die"]) if mine else \
                    (action["b_die"], action["a_die"])
                if side in (side_of(s, action["a"]), side_of(s, action["b"])):
                    zone.remove(give)
                    zone.append(take)
            return float(best_plan(zone, g.facts, limit=8))

        scored = [(value(a) + 0.01 * self.rng.random(), i) for i, a in enumerate(sample)]
        return sample[max(scored)[1]]

    # --- physical events -------------------------------------------------------------------
    def _apply(self, action: Action) -> State:
        before = self.state
        self.note_words(before, action)
        self.state = self.rules.apply(before, action)
        return before

    def _act(self, action: Action) -> list[PhysicalEvent]:
        """A step C move or the final group: tokens, Caught Souls, the score marker and the
        Protection token moved on the mats as the move says, then the button when the table
        alone tells which move it was, else declared on the tablet (a choice the mats do not
        show)."""
        shown = self.rules.board_view(self.state)
        before = self._apply(action)
        view = self.rules.board_view(self.state)
        if view == shown:
            return [Declare(action)]
        if self._plain_from_board(before, action, view):
            return [BoardChange(view), self.press_for(action)]
        return [BoardChange(view), Declare(action)]

    def _board_move(self, action: Action) -> list[PhysicalEvent]:
        """Dice moved by hand, then the button; declared as well when the grid alone would
        not tell the companion which move it was."""
        before = self._apply(action)
        view = self.rules.board_view(self.state)
        events: list[PhysicalEvent] = []
        if self.rng.random() < 0.1:
            events.append(HandOver(frames=2))
        events.append(BoardChange(view))
        plain = self._plain_from_board(before, action, view)
        events.append(self.press_for(action) if plain else Declare(action))
        return events

    def _plain_from_board(self, before: State, action: Action, view: BoardView) -> bool:
        """Would anyone watching the mats know it was this move?  People do not enumerate
        every legal move: a move that changes the mats is shown and pressed for (should the
        table fit several, the tablet asks which, and they tap theirs); a move that leaves
        them as they were is declared."""
        return view != self.rules.board_view(before)

    def _button_or_declare(self, action: Action) -> list[PhysicalEvent]:
        """The grid is untouched: the button says it.  The table's manual (ACTIONS.md, the
        dashboard) says what the button means on an untouched grid (after the capture: "my
        turn ends"; before it: "I cannot capture"), so the player whose turn it is presses it
        whatever else the moment allows; a team-mate acting in the other's place declares."""
        shown = self.rules.board_view(self.state)
        before = self._apply(action)
        view = self.rules.board_view(self.state)
        by_convention = action["type"] in ("end_turn", "stuck") \
            and action.get("player") == self.rules.current_player(before)
        plain = by_convention or self._plain_from_board(before, action, view)
        # the next player's Protection token flipped back as their turn begins
        events: list[PhysicalEvent] = [BoardChange(view)] if view != shown else []
        return events + [self.press_for(action) if plain else Declare(action)]


WORLD_CLASS = BaronVoodooWorld
