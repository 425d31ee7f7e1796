"""Baron Voodoo (Yann Dentil, Yoka by Tsume 2019): the rules tracker.

Read like an OpenSpiel game file: facts about the game as data (loaded from
``data/baron_voodoo.json``), the rule quotes every refusal cites, the Game
class, then helpers on the grid, the powers and the scoring groups.

What the companion sees is the 7x7 grid from above: the top die of every cell,
its colour and its face icon.  It knows every die underneath because it saw
the set-up (every stack one high) and every move since, so stack heights come
from the tracker plus what is seen, and a board no legal move explains becomes
a prompt.  Dice off the grid (each player's Caught Souls zone and Underworld)
and all tokens (Offering, Protection, Baron Samedi, VP) are declared on the
tablet; the tracker keeps the Offering supply and computes every group's VP.

State layout (plain JSON): ``board`` cell -> dice bottom-to-top, each die a
``[colour, face]`` pair; per *side* (a seat, or a team of two seats in the team
variant) ``vp``, ``offerings``, ``caught`` and ``underworld``; ``protection``
per Deity colour; ``samedi`` (the token holder's seat); ``turn`` (whose turn,
step A/B/C, what was done); ``end`` once the end is triggered.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    Game,
    Layout,
    MalformedAction,
    Outcome,
    Piece,
    Prompt,
    RuleError,
    Spot,
    State,
    Tap,
    Trigger,
    json_copy,
    make_view,
    require,
)

# --------------------------------------------------------------------------- facts as data

DATA_PATH = Path(__file__).parent / "data" / "baron_voodoo.json"

WHITE = "white"
POWERS = ("mami_wata", "gran_bwa", "papa_legba", "erzulie_freda")
DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))
STACK_MAX = 3

# The rule each refusal cites: the rulebook's sentence, rendered in English
# (the Polish original is the authority; short Polish quotes where they decide).
RULES: dict[str, str] = {
    "setup": "Set-up 3: roll all 48 Soul Dice and place them on the board minding the colours "
    "printed on the main board ('zwracając uwagę na kolory na planszy głównej'); the centre "
    "space stays empty",
    "layout": "Variable layout: instead of rolling, lay the dice out as the pictured Balanced or "
    "Chaos layout ('ułożyć je zgodnie z poniższymi układami')",
    "deities": "Set-up 2: each player chooses a Deity; team variant: each team takes a two-Deity "
    "board of one of the two pictured pairings",
    "order": "Turns go clockwise, the oldest player first (Przygotowanie 5)",
    "team_turn": "Team variant: turns alternate between the teams; the turn is taken by one "
    "player of the team ('tura jest wykonywana przez jednego z graczy w zespole')",
    "must_capture": "B: the player must capture a die on the main board ('musi przechwycić kość')",
    "one_capture": "B: capture 1 Soul Die (one capture per turn)",
    "capture_colour": "Capture I: choose a die of your colour ('Kość w swoim kolorze')",
    "capture_top": "Only the top die of a column, or a single die on the board, may be "
    "captured; a die lying under others is not available",
    "capture_jump": "Capture II: move the chosen die in a line, jumping an adjacent die or "
    "column ('skok nad sąsiadującą Kością lub kolumną')",
    "capture_landing": "Capture I: the space to jump to is either an empty space or an "
    "incomplete column ('albo pustym miejscem, albo niepełną kolumną')",
    "stack_max": "A column holds at most 3 Soul Dice; a fourth die may never be added",
    "protection": "Protection: until your next turn nobody may capture dice of your colour on "
    "the main board nor steal dice from your Deity board",
    "power_once": "A: use a Deity power at the start of the turn; D: only if no power was used "
    "in A, at the end of the turn",
    "power_cost": "A: use your own Deity's power, or spend 1 Offering token to use another "
    "Deity's power; the Baron Samedi holder uses every Deity's power without paying",
    "power_in_play": "Spend 1 Offering token to use the power of another Deity (another "
    "player's); only the Baron Samedi holder commands all four Deities",
    "power_moves": "A Deity power moves one or more Soul Dice on the main board",
    "mami_wata": "Mami Wata: slide all Soul Dice of a chosen line to one edge of the board",
    "papa_legba": "Papa Legba: move 1 chosen Soul Die to any empty space in the same row",
    "gran_bwa": "Gran Bwa: move all Soul Dice of a chosen column except the one lying directly "
    "on the board, and put them on any other die",
    "erzulie_freda": "Erzulie Freda: swap the places of two separated ('oddzielone') Soul Dice",
    "c_order": "C: after the capture, the actions 1-5 in the given order ('w podanej kolejności')",
    "c1": "C1: take 1 Offering token from the supply if the captured Soul Die is your "
    "Deity's colour",
    "c2": "C2: spend 1 Offering token to change the face of the captured Soul Die",
    "c3": "C3: apply the effect of the captured die's face, only at the moment of capture",
    "c4": "C4: spend 2 Offering tokens to play another turn (only once per turn)",
    "c5": "C5: send Soul Dice from the Caught Souls zone to the Underworld to score VP",
    "group": "Groups: dice of different colours with the same icon, or of the same colour with "
    "different icons; 2 dice = 1 VP, 3 dice = 3 VP, 4 dice = 5 VP; white dice are jokers "
    "for colour",
    "pay": "You can spend only the Offering tokens you have",
    "supply": "The 20 Offering tokens are limited; take only what the common supply has",
    "change": "Change face: turn any die in your Caught Souls zone to another face",
    "steal": "Steal: take a soul from an opponent's Underworld; not from an opponent protected "
    "by a Protection token",
    "swap": "Swap: exchange dice between the Caught Souls zones of 2 players, any players, "
    "yourself included",
    "stuck": "The game ends when a player cannot make the main action, a capture, by any "
    "means, checking every Deity power they may use or pay for",
    "final": "End: each player moves their Caught Souls to the Underworld; of several groups "
    "only one may score",
    "over": "The game is over",
    "not_setup": "The set-up is done once, before the first turn",
}


@dataclass(frozen=True)
class Facts:
    """The physical game as read from the data file (see its ``_note``)."""

    rows: int
    cols: int
    cell_mm: float
    margin_mm: float
    cells: tuple[str, ...]
    coord: dict[str, tuple[int, int]]
    printed: dict[str, str]
    face_pips: dict[str, int]
    pips_face: dict[int, str]
    face_names: dict[str, str]
    dice: dict[str, int]
    start_height: int
    deities: dict[str, dict[str, str]]
    power_colour: dict[str, str]
    seat_order: tuple[str, ...]
    pairings: tuple[tuple[tuple[str, str], tuple[str, str]], ...]
    offering_tokens: int
    start_offerings: int
    thresholds: dict[str, int]
    group_vp: dict[int, int]
    majority_vp: int
    majority_tie_vp: int
    majority_colours: tuple[str, ...]
    team_white_bonus_vp: int
    readings: dict[str, Any]
    layouts: dict[str, dict[str, list[str]]]

    @property
    def faces(self) -> tuple[str, ...]:
        return tuple(self.face_pips)

    @property
    def colours(self) -> tuple[str, ...]:
        return tuple(self.dice)

    def at(self, r: int, c: int) -> str | None:
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return f"{chr(ord('A') + c)}{r + 1}"
        return None

    def step(self, cell: str, d: tuple[int, int], k: int = 1) -> str | None:
        r, c = self.coord[cell]
        return self.at(r + d[0] * k, c + d[1] * k)

    def neighbours(self, cell: str) -> list[str]:
        return [n for d in DIRS if (n := self.step(cell, d)) is not None]

    def row_labels(self) -> list[str]:
        return [str(r + 1) for r in range(self.rows)]

    def col_labels(self) -> list[str]:
        return [chr(ord("A") + c) for c in range(self.cols)]


def load_facts(path: Path | str | None = None) -> Facts:
    """Read the data file; every rule below takes its numbers from here."""
    raw = json.loads(Path(path or DATA_PATH).read_text(encoding="utf-8"))
    grid = raw["grid"]
    rows, cols = int(grid["rows"]), int(grid["cols"])
    codes = raw["colour_codes"]
    fcodes = raw["face_codes"]
    cells: list[str] = []
    coord: dict[str, tuple[int, int]] = {}
    for r in range(rows):
        for c in range(cols):
            cell = f"{chr(ord('A') + c)}{r + 1}"
            cells.append(cell)
            coord[cell] = (r, c)
    printed: dict[str, str] = {}
    for r, line in enumerate(grid["printed"]):
        for c, code in enumerate(line.split()):
            printed[f"{chr(ord('A') + c)}{r + 1}"] = "black" if code == "." else codes[code]
    layouts: dict[str, dict[str, list[str]]] = {}
    for name, lines in raw.get("layouts", {}).items():
        board: dict[str, list[str]] = {}
        for r, line in enumerate(lines):
            for c, code in enumerate(line.split()):
                if code != ".":
                    board[f"{chr(ord('A') + c)}{r + 1}"] = [codes[code[0]], fcodes[code[1:]]]
        layouts[name] = board
    faces = {k: int(v) for k, v in raw["faces"].items() if not k.startswith("_")}
    deities = raw["deities"]
    pairings = tuple(
        (tuple(p[0]), tuple(p[1])) for p in raw["team_pairings"]["pairings"]
    )
    return Facts(
        rows=rows,
        cols=cols,
        cell_mm=float(grid["cell_mm"]),
        margin_mm=float(grid["margin_mm"]),
        cells=tuple(cells),
        coord=coord,
        printed=printed,
        face_pips=faces,
        pips_face={v: k for k, v in faces.items()},
        face_names=dict(raw["face_names"]),
        dice={k: int(v) for k, v in raw["dice"].items() if not k.startswith("_")},
        start_height=int(raw.get("start_height", 1)),
        deities=deities,
        power_colour={v["power"]: k for k, v in deities.items()},
        seat_order=tuple(raw["seat_order"]),
        pairings=pairings,  # type: ignore[arg-type]
        offering_tokens=int(raw["offering_tokens"]),
        start_offerings=int(raw["start_offerings"]),
        thresholds={k: int(v) for k, v in raw["thresholds"].items() if not k.startswith("_")},
        group_vp={int(k): int(v) for k, v in raw["group_vp"].items() if not k.startswith("_")},
        majority_vp=int(raw["majority_vp"]),
        majority_tie_vp=int(raw["majority_tie_vp"]),
        majority_colours=tuple(raw["majority_colours"]["colours"]),
        team_white_bonus_vp=int(raw["team_white_bonus_vp"]),
        readings={k: v for k, v in raw["readings"].items() if not k.startswith("_")},
        layouts=layouts,
    )


# --------------------------------------------------------------------------- the game


class BaronVoodoo(Game):
    """Baron Voodoo's referee: validates captures and powers seen on the grid, keeps the
    Offering supply, VP, Protection and the Baron Samedi token, and scores the end."""

    name = "baron_voodoo"
    title = "Baron Voodoo"
    min_players = 2
    max_players = 4
    variants = ("standard", "team", "balanced", "chaos")

    def __init__(self, data_path: Path | str | None = None) -> None:
        self.facts = load_facts(data_path)

    # --- set-up and turn structure -----------------------------------------------------------
    def setup(self, players: int, variant: str | None = None, seed: int = 0) -> State:
        variant = variant or self.variants[0]
        if variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}; choose one of {self.variants}")
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            raise ValueError(f"Baron Voodoo is for {self.min_players}-{self.max_players} players")
        team = variant == "team"
        if team and players != 4:
            raise ValueError("the team variant is for 4 players in two teams of two")
        f = self.facts
        sides = 2 if team else players
        if team:
            (a, b), (c, d) = f.pairings[0]
            colours = [a, b, c, d]
        else:
            colours = list(f.seat_order[:players])
        start = f.start_offerings
        return {
            "players": players,
            "variant": variant,
            "team": team,
            "seed": seed,
            "phase": "setup",
            "colours": colours,
            "sides": sides,
            "layout": None,
            "board": {cell: [] for cell in f.cells},
            "vp": [0] * sides,
            "offerings": [start] * sides,
            "supply": f.offering_tokens - start * sides,
            "caught": [[] for _ in range(sides)],
            "underworld": [[] for _ in range(sides)],
            "protection": {colour: False for colour in colours},
            "samedi": None,
            "turn": None,
            "round": 1,
            "turns_taken": 0,
            "last_actor": [None] * sides,
            "end": None,
            "final_done": [False] * sides,
            "bonuses": [],
            "notes": [],
        }

    def player_names(self, state: State) -> list[str]:
        names = [self.facts.deities[c]["name"] for c in state["colours"]]
        if state["team"]:
            return [f"{n} (team {i // 2 + 1})" for i, n in enumerate(names)]
        return names

    def side_names(self, state: State) -> list[str]:
        names = self.player_names(state)
        if state["team"]:
            return [f"Team {t + 1} ({names[2 * t].split(' (')[0]} & "
                    f"{names[2 * t + 1].split(' (')[0]})" for t in range(2)]
        return names

    def current_player(self, state: State) -> int | None:
        phase = state["phase"]
        if phase == "play":
            turn = state["turn"]
            return turn["actor"] if turn["actor"] is not None else turn["default"]
        if phase == "final":
            side = state["final_done"].index(False)
            return self._side_seats(state, side)[0]
        return None

    def phase(self, state: State) -> str:
        if state["phase"] == "play":
            return str(state["turn"]["step"])
        return str(state["phase"])

    # --- moves --------------------------------------------------------------------------------
    def legal_actions(self, state: State) -> list[Action]:
        """Every legal action, with two documented caps (ACTIONS.md): in set-up, the
        representative set-ups are the data file's fixed layouts; ``send`` and
        ``final_group`` offer at most 40 groups, the best first."""
        phase = state["phase"]
        if phase == "over":
            return []
        if phase == "setup":
            out: list[Action] = [{"type": "deities", "colours": c} for c in self._deity_choices(state)]
            for name, board in self.facts.layouts.items():
                out.append({"type": "setup", "layout": name,
                            "board": {cell: [die] for cell, die in board.items()}})
            return [a for a in out if self.is_legal(state, a)]
        if phase == "final":
            seat = self.current_player(state)
            assert seat is not None
            side = self._side(state, seat)
            groups = valid_groups(state["caught"][side], self.facts)[:40]
            return [{"type": "final_group", "player": seat, "dice": g} for g in groups] + [
                {"type": "final_group", "player": seat, "dice": []}
            ]
        turn = state["turn"]
        actors = self._possible_actors(state)
        out = []
        step = turn["step"]
        if step in ("A", "B"):
            for seat in actors:
                for frm, over, to in captures(state, self.facts, state["colours"][seat]):
                    out.append({"type": "capture", "player": seat, "from": frm, "over": over,
                                "to": to})
            if step == "A":
                for seat in actors:
                    out += self._power_actions(state, seat)
            for seat in actors:
                if self.is_legal(state, {"type": "stuck", "player": seat}):
                    out.append({"type": "stuck", "player": seat})
            return out
        seat = turn["actor"]
        for action in self._c_actions(state, seat):
            out.append(action)
        if not turn["power_used"]:
            out += self._power_actions(state, seat)
        out.append({"type": "end_turn", "player": seat})
        return out

    def apply(self, state: State, action: Action) -> State:
        if not isinstance(action, dict):
            raise MalformedAction("an action is a JSON object")
        kind = require(action, "type", str)
        handler = _HANDLERS.get(kind)
        if handler is None:
            raise MalformedAction(f"unknown action type {kind!r} (see ACTIONS.md)")
        if state["phase"] == "over":
            raise RuleError("the game is over", RULES["over"])
        new = _copy(state)
        new["notes"] = []
        handler(self, new, action)
        return new

    # --- action handlers (edit ``state``, already a copy) ------------------------------------
    def _do_deities(self, state: State, action: Action) -> None:
        colours = require(action, "colours", list)
        if state["phase"] != "setup":
            raise RuleError("Deities are chosen before the set-up", RULES["deities"])
        f = self.facts
        if len(colours) != state["players"] or not all(isinstance(c, str) for c in colours):
            raise MalformedAction(f"'colours' needs {state['players']} Deity colours, one a seat")
        for c in colours:
            if c not in f.deities:
                raise MalformedAction(f"{c!r} is not a Deity colour ({', '.join(f.deities)})")
        if len(set(colours)) != len(colours):
            raise RuleError("each player takes a different Deity", RULES["deities"])
        if state["team"]:
            teams = {frozenset(colours[:2]), frozenset(colours[2:])}
            if not any(teams == {frozenset(p[0]), frozenset(p[1])} for p in f.pairings):
                raise RuleError("the teams' Deities must be one of the pictured pairings",
                                RULES["deities"])
        state["colours"] = list(colours)
        state["protection"] = {c: False for c in colours}

    def _do_setup(self, state: State, action: Action) -> None:
        f = self.facts
        layout = action.get("layout", "random")
        if not isinstance(layout, str) or (layout != "random" and layout not in f.layouts):
            raise MalformedAction(f"'layout' is 'random' or one of {', '.join(f.layouts)}")
        if "board" not in action and layout in f.layouts:
            board = {cell: [die] for cell, die in f.layouts[layout].items()}
        else:
            board = require(action, "board", dict)
        if state["phase"] != "setup":
            raise RuleError("the dice are already set up", RULES["not_setup"])
        clean: dict[str, list[list[str]]] = {cell: [] for cell in f.cells}
        for cell, stack in board.items():
            if cell not in f.coord:
                raise MalformedAction(f"{cell!r} is not a space of the {f.rows}x{f.cols} grid")
            if not isinstance(stack, list):
                raise MalformedAction(f"board[{cell!r}] must be a list of dice")
            clean[cell] = [self._die(d) for d in stack]
        counts = Counter(d[0] for stack in clean.values() for d in stack)
        want = {c: n for c, n in f.dice.items()}
        if dict(counts) != {c: n for c, n in want.items() if n}:
            got = ", ".join(f"{counts.get(c, 0)} {c}" for c in want)
            raise RuleError(f"the board must hold all {sum(want.values())} Soul Dice "
                            f"({', '.join(f'{n} {c}' for c, n in want.items())}); seen {got}",
                            RULES["setup"])
        for cell, stack in clean.items():
            printed = f.printed[cell]
            if stack and len(stack) != f.start_height:
                raise RuleError(f"{cell} holds {len(stack)} dice; every space starts with "
                                f"{f.start_height}", RULES["setup"])
            if stack and printed == "black":
                raise RuleError(f"{cell} (the centre) stays empty at set-up", RULES["setup"])
            for die in stack:
                if die[0] != printed:
                    raise RuleError(f"the {die[0]} die on {cell} stands on a {printed} space",
                                    RULES["setup"])
        expected = state["variant"] if state["variant"] in f.layouts else None
        if layout in f.layouts or expected:
            name = expected or layout
            target = {cell: [die] for cell, die in f.layouts[name].items()}
            actual = {cell: stack for cell, stack in clean.items() if stack}
            if actual != target:
                wrong = sorted(c for c in f.cells if actual.get(c) != target.get(c))
                raise RuleError(f"the board is not the {name} layout (differs on "
                                f"{', '.join(wrong[:6])}{'...' if len(wrong) > 6 else ''})",
                                RULES["layout"])
            layout = name
        state["board"] = clean
        state["layout"] = layout
        state["phase"] = "play"
        self._start_turn(state, 0)

    def _do_capture(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        frm = self._cell(action, "from")
        to = self._cell(action, "to")
        over = self._cell(action, "over") if "over" in action else None
        self._check_actor(state, seat)
        turn = state["turn"]
        if turn["step"] == "C":
            raise RuleError("you have already captured this turn", RULES["one_capture"])
        f = self.facts
        board = state["board"]
        colour = state["colours"][seat]
        r0, c0 = f.coord[frm]
        r1, c1 = f.coord[to]
        dr, dc = r1 - r0, c1 - c0
        if not ((abs(dr) == 2 and dc == 0) or (abs(dc) == 2 and dr == 0)):
            raise RuleError(f"{frm} -> {to} is not a jump over one adjacent space in a line",
                            RULES["capture_jump"])
        mid = f.at(r0 + dr // 2, c0 + dc // 2)
        assert mid is not None
        if over is not None and over != mid:
            raise RuleError(f"jumping {frm} -> {to} passes over {mid}, not {over}",
                            RULES["capture_jump"])
        if not board[frm]:
            raise RuleError(f"there is no die on {frm}", RULES["capture_colour"])
        if board[frm][-1][0] != colour:
            raise RuleError(f"the die on top of {frm} is {board[frm][-1][0]}, not your colour "
                            f"({colour})", RULES["capture_colour"])
        if not board[mid]:
            raise RuleError(f"{mid} is empty: there is nothing to jump", RULES["capture_jump"])
        if len(board[to]) >= STACK_MAX:
            raise RuleError(f"{to} is a full column of {STACK_MAX}", RULES["stack_max"])
        victim = board[mid][-1]
        if state["protection"].get(victim[0]):
            owner = self.player_names(state)[state["colours"].index(victim[0])]
            raise RuleError(f"{owner}'s {victim[0]} dice are protected until their next turn",
                            RULES["protection"])
        mover = board[frm].pop()
        board[mid].pop()
        board[to].append(mover)
        side = self._side(state, seat)
        state["caught"][side].append(victim)
        turn.update(actor=seat, step="C", captured=list(victim),
                    captured_index=len(state["caught"][side]) - 1, c_step=0)
        state["notes"].append(
            f"Put the captured {victim[0]} die ({self.facts.face_names[victim[1]]}) in the "
            f"Caught Souls zone of {self.side_names(state)[side]}")

    def _do_power(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        deity = require(action, "deity", str)
        if deity not in POWERS:
            raise MalformedAction(f"'deity' is one of {', '.join(POWERS)}")
        params = self._power_params(deity, action)
        self._check_actor(state, seat)
        turn = state["turn"]
        if turn["power_used"]:
            raise RuleError("a Deity power was already used this turn", RULES["power_once"])
        if turn["step"] == "B":
            raise RuleError("a power at the start of the turn comes before the capture; the "
                            "next one may come only at the end of the turn", RULES["power_once"])
        cost = self.power_cost(state, seat, deity)
        side = self._side(state, seat)
        if state["offerings"][side] < cost:
            raise RuleError(f"another Deity's power costs {cost} Offering token; you have "
                            f"{state['offerings'][side]}", RULES["pay"])
        changes = power_result(state["board"], self.facts, deity, params)
        state["board"].update(changes)
        state["offerings"][side] -= cost
        state["supply"] += cost
        if cost:
            state["notes"].append("Put 1 Offering token back in the supply")
        at_end = turn["step"] == "C"
        turn.update(actor=seat, power_used=True)
        if at_end:
            self._end_turn(state)
        else:
            turn["step"] = "B"

    def _do_stuck(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        self._check_actor(state, seat)
        turn = state["turn"]
        if turn["step"] == "C":
            raise RuleError("you have captured this turn", RULES["stuck"])
        for s in self._possible_actors(state):
            way = self.capture_way(state, s)
            if way is not None:
                raise RuleError(f"{self.player_names(state)[s]} can still capture: {way}",
                                RULES["stuck"])
        turn["actor"] = seat
        if state["end"] is None:
            state["end"] = {"by": seat, "reason": "stuck", "round": state["round"]}
            state["notes"].append("The end is triggered: finish the round")
        self._end_turn(state)

    def _do_take_offering(self, state: State, action: Action) -> None:
        seat = self._c_check(state, action, 1, "c1")
        turn = state["turn"]
        colour = state["colours"][seat]
        if turn["captured"][0] != colour:
            raise RuleError(f"the captured die is {turn['captured'][0]}, not your colour "
                            f"({colour})", RULES["c1"])
        self._take_from_supply(state, seat, RULES["c1"])
        turn["c_step"] = 1

    def _do_change_face(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        face = self._face(action, "face")
        self._check_actor(state, seat)
        turn = state["turn"]
        if turn["step"] != "C":
            raise RuleError("capture first", RULES["must_capture"])
        late = (self.facts.readings.get("offering_then_change_face") and turn["c_step"] == 3
                and turn["effect"] == "offering" and not turn["changed"])
        if turn["c_step"] >= 2 and not late:
            raise RuleError("changing the captured die's face is step C2; a later step was "
                            "already taken", RULES["c_order"])
        side = self._side(state, seat)
        index = turn["captured_index"]
        die = state["caught"][side][index] if index is not None else None
        if die is None or die != turn["captured"]:
            raise RuleError("the captured die is no longer in your Caught Souls zone",
                            RULES["c2"])
        if face == die[1]:
            raise RuleError(f"the captured die already shows {face}", RULES["c2"])
        self._pay(state, seat, 1, RULES["c2"])
        die[1] = face
        turn["captured"] = list(die)
        turn["changed"] = True
        turn["c_step"] = max(turn["c_step"], 2)
        state["notes"].append(f"Turn the captured {die[0]} die to {self.facts.face_names[face]}")

    def _do_effect(self, state: State, action: Action) -> None:
        seat = self._c_check(state, action, 3, "c3")
        turn = state["turn"]
        face = turn["captured"][1]
        if "face" in action and action["face"] != face:
            raise RuleError(f"the captured die shows {face}, not {action['face']}", RULES["c3"])
        side = self._side(state, seat)
        names = self.side_names(state)
        if face == "offering":
            self._take_from_supply(state, seat, RULES["c3"])
        elif face == "vp":
            self._gain_vp(state, seat, 1)
        elif face == "change":
            die = self._die(require(action, "die", list))
            new_face = self._face(action, "new_face")
            zone = state["caught"][side]
            if die not in zone:
                raise RuleError(f"no {die[0]} {die[1]} die in your Caught Souls zone",
                                RULES["change"])
            if new_face == die[1]:
                raise RuleError("turn the die to another face", RULES["change"])
            zone[zone.index(die)] = [die[0], new_face]
            state["notes"].append(f"Turn your {die[0]} {die[1]} die to {new_face}")
        elif face == "protection":
            state["protection"][state["colours"][seat]] = True
            state["notes"].append("Flip your Protection token to its active side")
        elif face == "steal":
            victim = require(action, "victim", int)
            die = self._die(require(action, "die", list))
            if not 0 <= victim < state["players"]:
                raise MalformedAction(f"'victim' is a seat 0-{state['players'] - 1}")
            vside = self._side(state, victim)
            if vside == side:
                raise RuleError("steal from an opponent", RULES["steal"])
            if self._side_protected(state, vside):
                raise RuleError(f"{names[vside]} is protected by a Protection token",
                                RULES["steal"])
            if die not in state["underworld"][vside]:
                raise RuleError(f"no {die[0]} {die[1]} die in {names[vside]}'s Underworld",
                                RULES["steal"])
            state["underworld"][vside].remove(die)
            dest = "caught" if self.facts.readings.get("steal_to") == "caught" else "underworld"
            state[dest][side].append(die)
            self._update_samedi(state)
            where = "Caught Souls zone" if dest == "caught" else "Underworld"
            state["notes"].append(f"Move the {die[0]} {die[1]} die from {names[vside]}'s "
                                  f"Underworld to your {where}")
        elif face == "swap":
            a = require(action, "a", int)
            b = require(action, "b", int)
            a_die = self._die(require(action, "a_die", list))
            b_die = self._die(require(action, "b_die", list))
            for s in (a, b):
                if not 0 <= s < state["players"]:
                    raise MalformedAction(f"'a' and 'b' are seats 0-{state['players'] - 1}")
            sa, sb = self._side(state, a), self._side(state, b)
            if sa == sb:
                raise RuleError("swap between the boards of 2 players", RULES["swap"])
            if self.facts.readings.get("protection_blocks_swap"):
                for s in (sa, sb):
                    if s != side and self._side_protected(state, s):
                        raise RuleError(f"{names[s]} is protected", RULES["protection"])
            if a_die not in state["caught"][sa]:
                raise RuleError(f"no {a_die[0]} {a_die[1]} die in {names[sa]}'s Caught Souls "
                                "zone", RULES["swap"])
            if b_die not in state["caught"][sb]:
                raise RuleError(f"no {b_die[0]} {b_die[1]} die in {names[sb]}'s Caught Souls "
                                "zone", RULES["swap"])
            state["caught"][sa].remove(a_die)
            state["caught"][sb].remove(b_die)
            state["caught"][sa].append(b_die)
            state["caught"][sb].append(a_die)
            state["notes"].append(f"Swap {names[sa]}'s {a_die[0]} {a_die[1]} with "
                                  f"{names[sb]}'s {b_die[0]} {b_die[1]}")
        turn["c_step"] = 3
        turn["effect"] = face

    def _do_extra_turn(self, state: State, action: Action) -> None:
        seat = self._c_check(state, action, 4, "c4")
        turn = state["turn"]
        self._pay(state, seat, 2, RULES["c4"])
        turn["extra"] = True
        turn["c_step"] = 4
        state["notes"].append("Put 2 Offering tokens back in the supply: another turn follows")

    def _do_send(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        dice = [self._die(d) for d in require(action, "dice", list)]
        self._check_actor(state, seat)
        turn = state["turn"]
        if turn["step"] != "C":
            raise RuleError("capture first", RULES["must_capture"])
        side = self._side(state, seat)
        self._move_group(state, side, dice, RULES["c5"])
        turn["c_step"] = 5
        self._gain_vp(state, seat, self.facts.group_vp[len(dice)])
        self._update_samedi(state)

    def _do_end_turn(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        self._check_actor(state, seat)
        if state["turn"]["step"] != "C":
            raise RuleError("you must capture a die before the turn ends (or declare that no "
                            "capture is possible)", RULES["must_capture"])
        self._end_turn(state)

    def _do_final_group(self, state: State, action: Action) -> None:
        seat = self._seat(state, action)
        dice = [self._die(d) for d in require(action, "dice", list)]
        if state["phase"] != "final":
            raise RuleError("the last group is scored when the game has ended", RULES["final"])
        side = self._side(state, seat)
        pending = state["final_done"].index(False)
        if side != pending:
            raise RuleError(f"{self.side_names(state)[pending]} scores first (seat order)",
                            RULES["order"])
        if dice:
            self._move_group(state, side, dice, RULES["final"])
            state["vp"][side] += self.facts.group_vp[len(dice)]
        state["underworld"][side] += state["caught"][side]
        state["caught"][side] = []
        state["final_done"][side] = True
        state["notes"].append("Move every die of the Caught Souls zone to the Underworld")
        if all(state["final_done"]):
            self._finish(state)

    # --- turn flow ----------------------------------------------------------------------------
    def _start_turn(self, state: State, side: int, extra: bool = False) -> None:
        seats = self._side_seats(state, side)
        if not extra or self.facts.readings.get("extra_turn_counts_as_next_turn", True):
            for seat in seats:
                state["protection"][state["colours"][seat]] = False
        if state["team"]:
            last = state["last_actor"][side]
            default = seats[0] if last is None else (seats[1] if last == seats[0] else seats[0])
            actor = None
        else:
            default = actor = side
        state["turn"] = {
            "side": side,
            "actor": actor,
            "default": default,
            "step": "A",
            "power_used": False,
            "captured": None,
            "captured_index": None,
            "c_step": 0,
            "effect": None,
            "changed": False,
            "extra": False,
            "number": state["turns_taken"] + 1,
        }

    def _end_turn(self, state: State) -> None:
        turn = state["turn"]
        side = turn["side"]
        state["turns_taken"] += 1
        if state["team"] and turn["actor"] is not None:
            state["last_actor"][side] = turn["actor"]
        if turn["extra"]:
            self._start_turn(state, side, extra=True)
            if state["team"]:
                state["turn"]["default"] = turn["actor"]
            return
        nxt = (side + 1) % state["sides"]
        if nxt == 0:
            if state["end"] is not None:
                state["phase"] = "final"
                state["turn"] = None
                state["notes"].append("Game over: each side moves its Caught Souls to the "
                                      "Underworld and scores one group")
                return
            state["round"] += 1
        self._start_turn(state, nxt)

    def _finish(self, state: State) -> None:
        """Colour majorities, the team variant's white bonus, then the game is over."""
        f = self.facts
        names = self.side_names(state)
        bonuses: list[dict[str, Any]] = []
        for colour in f.majority_colours:
            counts = [sum(1 for d in zone if d[0] == colour) for zone in state["underworld"]]
            top = max(counts)
            if top == 0:
                continue
            leaders = [s for s, n in enumerate(counts) if n == top]
            vp = f.majority_vp if len(leaders) == 1 else f.majority_tie_vp
            for s in leaders:
                state["vp"][s] += vp
                bonuses.append({"side": s, "why": f"most {colour} ({top})", "vp": vp})
        if state["team"]:
            whites = [sum(1 for d in zone if d[0] == WHITE) for zone in state["underworld"]]
            top = max(whites)
            leaders = [s for s, n in enumerate(whites) if n == top]
            if top and (len(leaders) == 1 or f.readings.get("team_white_tie") == "all"):
                for s in leaders:
                    state["vp"][s] += f.team_white_bonus_vp
                    bonuses.append({"side": s, "why": f"most white dice ({top})",
                                    "vp": f.team_white_bonus_vp})
        else:
            self._update_samedi(state)
        state["bonuses"] = bonuses
        state["phase"] = "over"
        for b in bonuses:
            state["notes"].append(f"{names[b['side']]}: +{b['vp']} VP for {b['why']}")

    # --- scores and the end ----------------------------------------------------------------------
    def scores(self, state: State) -> list[float]:
        return [float(state["vp"][self._side(state, s)]) for s in range(state["players"])]

    def outcome(self, state: State) -> Outcome | None:
        if state["phase"] != "over":
            return None
        vp = state["vp"]
        best = max(vp)
        leaders = [s for s, v in enumerate(vp) if v == best]
        names = self.side_names(state)
        trigger = state["end"]["by"] if state["end"] else 0
        tside = self._side(state, trigger)
        order = [(tside + k) % state["sides"] for k in range(state["sides"])]
        winner = next(s for s in order if s in leaders)
        reason = f"{names[winner]} wins with {best} VP"
        if len(leaders) > 1:
            how = ("who triggered the end" if winner == tside
                   else "the first on the left of the player who triggered the end")
            reason += f" (tie with {', '.join(names[s] for s in leaders if s != winner)}, " \
                      f"won by {how})"
        return Outcome(winners=tuple(self._side_seats(state, winner)), reason=reason)

    def prompts(self, state: State) -> list[Prompt]:
        phase = state["phase"]
        names = self.player_names(state)
        out: list[Prompt] = []
        if phase == "setup":
            out.append(Prompt(
                "Set-up: roll the 48 Soul Dice and place each on a space of its colour (the "
                "centre stays empty), or lay out the Balanced or Chaos layout; then press the "
                "button. Deities: " + ", ".join(f"seat {i + 1} {n}" for i, n in
                                                enumerate(names)), "turn", None))
            return out
        out += [Prompt(note, "chore", self.current_player(state)) for note in state["notes"]]
        if phase == "over":
            result = self.outcome(state)
            assert result is not None
            out.append(Prompt(f"Game over: {result.reason}", "info", None))
            return out
        if phase == "final":
            seat = self.current_player(state)
            assert seat is not None
            side = self._side(state, seat)
            options = self.legal_actions(state)[:12]
            best = options[0]["dice"] if options and options[0]["dice"] else []
            text = (f"Final scoring: {self.side_names(state)[side]} moves the Caught Souls to "
                    f"the Underworld and scores one group")
            if best:
                text += f" (best: {describe_dice(best)} = {self.facts.group_vp[len(best)]} VP)"
            out.append(Prompt(text, "turn", seat))
            out.append(Prompt("Declare the group that scores (or none)", "choice", seat, options))
            return out
        turn = state["turn"]
        seat = self.current_player(state)
        assert seat is not None
        who = names[seat]
        side = self._side(state, seat)
        step = turn["step"]
        if step in ("A", "B"):
            seats = self._possible_actors(state)
            caps = [c for s in seats for c in captures(state, self.facts, state["colours"][s])]
            can = ("may first use a Deity power (own free, another for 1 Offering); "
                   if step == "A" else "")
            who_text = " or ".join(names[s] for s in seats)
            out.append(Prompt(f"{who_text}: {can}capture a die of your colour by jumping an "
                              f"adjacent die ({len(caps)} capture{'s' if len(caps) != 1 else ''}"
                              f" on the board now), then press the button", "turn", seat))
            if not caps:
                ways = [self.capture_way(state, s) for s in seats]
                way = next((w for w in ways if w), None)
                if way:
                    out.append(Prompt(f"No capture on the board as it stands: use a Deity power "
                                      f"first, e.g. {way}", "warning", seat))
                else:
                    out.append(Prompt(f"{who_text} cannot capture by any means: press the "
                                      f"button (or declare 'stuck'); this triggers the end of "
                                      f"the game", "warning", seat))
        else:
            options = self._c_actions(state, seat)
            text = (f"{who}: after the capture of {turn['captured'][0]} "
                    f"({self.facts.face_names[turn['captured'][1]]}): C1-C5 in order on the "
                    f"tablet")
            if not turn["power_used"]:
                text += ", a Deity power at the end (D)"
            text += ", then press the button to end the turn"
            out.append(Prompt(text, "turn", seat))
            menu = options[:11] + [{"type": "end_turn", "player": seat}]
            out.append(Prompt("What does the player do next (the tracker cannot see tokens or "
                              "the Deity boards)?", "choice", seat, menu))
        nxt = self._next_side(state)
        if nxt is not None and state["end"] is None:
            nseats = self._side_seats(state, nxt)
            if not any(captures(state, self.facts, state["colours"][s]) for s in nseats):
                out.append(Prompt(f"Heads-up: {self.side_names(state)[nxt]} has no capture on "
                                  "the board as it stands", "warning", nseats[0]))
        threshold = self.threshold(state)
        if state["end"] is None:
            need = threshold - state["vp"][side]
            if 0 < need <= 3:
                out.append(Prompt(f"{self.side_names(state)[side]} needs {need} VP to trigger "
                                  f"the end ({threshold} VP)", "info", seat))
        else:
            by = names[state["end"]["by"]]
            why = "reached the VP threshold" if state["end"]["reason"] == "threshold" \
                else "could not capture"
            out.append(Prompt(f"The end is triggered ({by} {why}): finish the round, then "
                              "final scoring", "info", None))
        return out

    def summary(self, state: State) -> dict[str, Any]:
        f = self.facts
        names = self.side_names(state)
        sides = []
        for s in range(state["sides"]):
            seats = self._side_seats(state, s)
            caught = state["caught"][s]
            groups = valid_groups(caught, f)
            best = groups[0] if groups else []
            vp = state["vp"][s]
            sides.append({
                "side": s,
                "name": names[s],
                "seats": seats,
                "deities": [f.deities[state["colours"][x]]["name"] for x in seats],
                "colours": [state["colours"][x] for x in seats],
                "vp": vp,
                "x20": vp // 20,
                "track": vp % 20,
                "offerings": state["offerings"][s],
                "protection": {state["colours"][x]: state["protection"][state["colours"][x]]
                               for x in seats},
                "caught": caught,
                "underworld": state["underworld"][s],
                "white_in_underworld": sum(1 for d in state["underworld"][s] if d[0] == WHITE),
                "best_group": {"dice": best, "vp": f.group_vp[len(best)] if best else 0},
                "best_plan_vp": best_plan(caught, f),
                "groups_possible": len(groups),
            })
        board = state["board"]
        turn = state["turn"]
        legal_captures: list[dict[str, Any]] = []
        power_targets: dict[str, dict[str, Any]] = {}
        if state["phase"] == "play":
            for seat in self._possible_actors(state):
                if turn["step"] != "C":
                    legal_captures += [{"player": seat, "from": a, "over": b, "to": c}
                                       for a, b, c in captures(state, f, state["colours"][seat])]
                if turn["step"] != "B" and not turn["power_used"]:
                    for deity in self.usable_powers(state, seat):
                        if deity in power_targets:
                            continue
                        options = [p for p, _ in power_options(board, f, deity)]
                        power_targets[deity] = {"cost": self.power_cost(state, seat, deity),
                                                "count": len(options), "first": options[:12]}
        return {
            "legal_captures": legal_captures,
            "power_targets": power_targets,
            "variant": state["variant"],
            "layout": state["layout"],
            "phase": self.phase(state),
            "round": state["round"],
            "threshold": self.threshold(state),
            "sides": sides,
            "supply": state["supply"],
            "baron_samedi": state["samedi"],
            "baron_samedi_name": (self.player_names(state)[state["samedi"]]
                                  if state["samedi"] is not None else None),
            "end": state["end"],
            "bonuses": state["bonuses"],
            "turn": None if turn is None else {
                "side": turn["side"], "actor": turn["actor"], "step": turn["step"],
                "power_used": turn["power_used"], "captured": turn["captured"],
                "c_step": turn["c_step"], "extra": turn["extra"]},
            "grid": {cell: board[cell] for cell in f.cells if board[cell]},
            "heights": {cell: len(board[cell]) for cell in f.cells if board[cell]},
            "dice_on_board": sum(len(v) for v in board.values()),
        }

    def threshold(self, state: State) -> int:
        key = "team" if state["team"] else str(state["players"])
        return self.facts.thresholds[key]

    # --- the physical table -----------------------------------------------------------------------
    def layout(self, state: State) -> Layout:
        f = self.facts
        size, margin = f.cell_mm, f.margin_mm
        spots = []
        for cell in f.cells:
            r, c = f.coord[cell]
            printed = f.printed[cell]
            fill = "dark_fill" if printed == "black" else (
                "light_fill" if (r + c) % 2 == 0 else "board")
            spots.append(Spot(cell, margin + c * size + 1, margin + r * size + 1, size - 2,
                              size - 2, f"{cell} {printed}", fill))
        pieces = {colour: f"{info['name']} Soul Die" for colour, info in f.deities.items()}
        pieces[WHITE] = "white Soul Die (joker)"
        return Layout(
            width=2 * margin + f.cols * size,
            height=2 * margin + f.rows * size,
            spots=tuple(spots),
            pieces=pieces,
            shapes={colour: "square" for colour in f.dice},
        )

    def board_view(self, state: State) -> BoardView:
        return make_view({cell: [self.piece(stack[-1])] for cell, stack in
                          state["board"].items() if stack})

    def piece(self, die: list[str]) -> Piece:
        """The camera's reading of a die: its colour and its face icon as pips."""
        return Piece(die[0], self.facts.face_pips[die[1]])

    def explain(self, state: State, seen: BoardView, taps: list[Tap],
                trigger: Trigger) -> list[Action]:
        """Board changes are recorded on the button (a half-done Mami Wata slide is a stable
        board too).  The candidates are every physically possible capture and power that
        turns the tracked grid into ``seen``, legal or not: apply() refuses the illegal ones
        with their rule, which becomes the prompt."""
        if trigger != "button":
            return []
        phase = state["phase"]
        if phase == "setup":
            return [self._setup_from_view(seen)]
        if phase != "play":
            return []
        turn = state["turn"]
        expected = self.board_view(state)
        if dict(seen) == dict(expected):
            seat = self.current_player(state)
            if turn["step"] == "C":
                return [{"type": "end_turn", "player": seat}]
            return [{"type": "stuck", "player": seat}]
        seen_top: dict[str, Piece | None] = {}
        for cell, pieces in seen.items():
            if cell not in self.facts.coord or len(pieces) != 1:
                return []
            seen_top[cell] = pieces[0]
        exp_top = {cell: pieces[0] for cell, pieces in expected.items()}
        changed = {c for c in set(seen_top) | set(exp_top) if seen_top.get(c) != exp_top.get(c)}
        out: list[Action] = []
        for action, new_cells in self._physical_moves(state, changed):
            if not changed <= new_cells.keys():
                continue
            if all((self.piece(st[-1]) if st else None) == seen_top.get(cell)
                   for cell, st in new_cells.items()):
                if action not in out:
                    out.append(action)
        return out

    # --- descriptions ---------------------------------------------------------------------------
    def describe(self, state: State, action: Action) -> str:
        try:
            return self._describe(state, action)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return super().describe(state, action)

    def _describe(self, state: State, action: Action) -> str:
        kind = action.get("type")
        names = self.player_names(state)
        who = names[action["player"]] if isinstance(action.get("player"), int) and \
            0 <= action["player"] < state["players"] else "table"
        fn = self.facts.face_names
        if kind == "setup":
            layout = self.facts.layouts.get(action.get("layout", ""), {})
            n = sum(len(v) for v in action["board"].values()) if "board" in action \
                else len(layout)
            return f"Set-up: {action.get('layout', 'random')} layout, {n} dice on the grid"
        if kind == "deities":
            return "Deities: " + ", ".join(
                f"seat {i + 1} {self.facts.deities[c]['name']}"
                for i, c in enumerate(action["colours"]))
        if kind == "capture":
            frm, to = action["from"], action["to"]
            mid = action.get("over") or self._mid(frm, to)
            stack = state["board"].get(mid) if mid else None
            what = f"{stack[-1][0]} ({fn[stack[-1][1]]})" if stack else "a die"
            return f"{who} captures {what} on {mid}: {frm} -> {to}"
        if kind == "power":
            deity = action["deity"]
            dname = self.facts.deities[self.facts.power_colour[deity]]["name"]
            try:
                cost = self.power_cost(state, action["player"], deity)
            except RuleError:
                cost = 1
            paid = " (1 Offering)" if cost else ""
            own = self.facts.deities[state["colours"][action["player"]]]["power"] == deity
            power = "own power" if own else f"{dname}'s power"
            return f"{who} uses {power}{paid}: {_params_text(deity, action)}"
        if kind == "take_offering":
            return f"{who} takes 1 Offering token (captured own colour)"
        if kind == "change_face":
            return f"{who} pays 1 Offering: captured die turned to {fn[action['face']]}"
        if kind == "effect":
            face = state["turn"]["captured"][1] if state.get("turn") else "?"
            text = f"{who} applies {fn.get(face, face)}"
            if face == "change":
                text += f": {describe_dice([action['die']])} -> {fn[action['new_face']]}"
            elif face == "steal":
                text += f": {describe_dice([action['die']])} from {names[action['victim']]}"
            elif face == "swap":
                text += (f": {names[action['a']]}'s {describe_dice([action['a_die']])} <-> "
                         f"{names[action['b']]}'s {describe_dice([action['b_die']])}")
            return text
        if kind == "extra_turn":
            return f"{who} pays 2 Offerings for another turn"
        if kind == "send":
            dice = action["dice"]
            vp = self.facts.group_vp.get(len(dice), 0)
            return f"{who} sends {describe_dice(dice)} to the Underworld: +{vp} VP"
        if kind == "final_group":
            dice = action["dice"]
            if not dice:
                return f"{who}: final scoring, no group"
            return f"{who}: final group {describe_dice(dice)} +" \
                   f"{self.facts.group_vp.get(len(dice), 0)} VP"
        if kind == "end_turn":
            return f"{who} ends the turn"
        if kind == "stuck":
            return f"{who} cannot capture: the end is triggered"
        return super().describe(state, action)

    # --- queries the dashboard and the world use ----------------------------------------------
    def power_cost(self, state: State, seat: int, deity: str) -> int:
        """0 for one's own Deity or for the Baron Samedi holder, else 1 (refused if the
        Deity is not another player's, per the data file's reading)."""
        colour = state["colours"][seat]
        if self.facts.deities[colour]["power"] == deity:
            return 0
        if not state["team"] and state["samedi"] == seat:
            return 0
        dcolour = self.facts.power_colour[deity]
        if self.facts.readings.get("other_powers") == "in_play" and dcolour not in \
                state["colours"]:
            raise RuleError(f"no player has {self.facts.deities[dcolour]['name']}",
                            RULES["power_in_play"])
        return 1

    def usable_powers(self, state: State, seat: int) -> list[str]:
        """The Deity powers ``seat`` may use now, by what they cost and what they hold."""
        side = self._side(state, seat)
        out = []
        for deity in POWERS:
            try:
                cost = self.power_cost(state, seat, deity)
            except RuleError:
                continue
            if cost <= state["offerings"][side]:
                out.append(deity)
        return out

    def capture_way(self, state: State, seat: int) -> str | None:
        """A way for ``seat`` to capture now (directly or after a power), or None: stuck."""
        f = self.facts
        colour = state["colours"][seat]
        direct = captures(state, f, colour)
        if direct:
            frm, over, to = direct[0]
            return f"{frm} over {over} to {to}"
        turn = state["turn"]
        if turn is None or turn["power_used"]:
            return None
        protected = {c for c, on in state["protection"].items() if on}
        for deity in self.usable_powers(state, seat):
            for params, changes in power_options(state["board"], f, deity):
                board = {**state["board"], **changes}
                if _captures_on(board, f, colour, protected):
                    name = f.deities[f.power_colour[deity]]["name"]
                    return f"{name}'s power ({_params_text(deity, params)}), then capture"
        return None

    # --- helpers ----------------------------------------------------------------------------------
    def _side(self, state: State, seat: int) -> int:
        return seat // 2 if state["team"] else seat

    def _side_seats(self, state: State, side: int) -> list[int]:
        return [2 * side, 2 * side + 1] if state["team"] else [side]

    def _side_protected(self, state: State, side: int) -> bool:
        seats = self._side_seats(state, side)
        active = [state["protection"][state["colours"][s]] for s in seats]
        if state["team"] and self.facts.readings.get("team_protection_blocks_steal") != \
                "any_member":
            return all(active)
        return any(active)

    def _next_side(self, state: State) -> int | None:
        turn = state["turn"]
        if turn is None:
            return None
        return (turn["side"] + 1) % state["sides"]

    def _possible_actors(self, state: State) -> list[int]:
        turn = state["turn"]
        if turn["actor"] is not None:
            return [turn["actor"]]
        seats = self._side_seats(state, turn["side"])
        return sorted(seats, key=lambda s: s != turn["default"])

    def _seat(self, state: State, action: Action) -> int:
        seat = require(action, "player", int)
        if not 0 <= seat < state["players"]:
            raise MalformedAction(f"'player' is a seat 0-{state['players'] - 1}")
        return seat

    def _check_actor(self, state: State, seat: int) -> None:
        if state["phase"] != "play":
            raise RuleError("the dice are not set up yet" if state["phase"] == "setup"
                            else "the game has ended; only final scoring remains",
                            RULES["order"])
        turn = state["turn"]
        names = self.player_names(state)
        if self._side(state, seat) != turn["side"]:
            raise RuleError(f"it is {self.side_names(state)[turn['side']]}'s turn, not "
                            f"{names[seat]}'s", RULES["team_turn" if state["team"] else "order"])
        if turn["actor"] is not None and turn["actor"] != seat:
            raise RuleError(f"{names[turn['actor']]} is taking this team turn",
                            RULES["team_turn"])

    def _c_check(self, state: State, action: Action, step: int, rule: str) -> int:
        seat = self._seat(state, action)
        self._check_actor(state, seat)
        turn = state["turn"]
        if turn["step"] != "C":
            raise RuleError("capture first: the C actions follow the capture",
                            RULES["must_capture"])
        if turn["c_step"] >= step:
            raise RuleError(f"step C{step} is past: C{turn['c_step']} was already taken (C1-C5 "
                            f"go in order, each once)", RULES["c_order"] + "; " + RULES[rule])
        return seat

    def _cell(self, action: Action, key: str) -> str:
        cell = require(action, key, str)
        if cell not in self.facts.coord:
            raise MalformedAction(f"{key}={cell!r} is not a space of the grid (A1-"
                                  f"{self.facts.cells[-1]})")
        return cell

    def _face(self, action: Action, key: str) -> str:
        face = require(action, key, str)
        if face not in self.facts.face_pips:
            raise MalformedAction(f"{key}={face!r}: a face is one of "
                                  f"{', '.join(self.facts.face_pips)}")
        return face

    def _die(self, die: Any) -> list[str]:
        if (not isinstance(die, list) or len(die) != 2 or die[0] not in self.facts.dice
                or die[1] not in self.facts.face_pips):
            raise MalformedAction(f"a die is [colour, face] with colour in "
                                  f"{', '.join(self.facts.dice)} and face in "
                                  f"{', '.join(self.facts.face_pips)}; got {die!r}")
        return [die[0], die[1]]

    def _mid(self, frm: str, to: str) -> str | None:
        f = self.facts
        r0, c0 = f.coord[frm]
        r1, c1 = f.coord[to]
        return f.at((r0 + r1) // 2, (c0 + c1) // 2)

    def _pay(self, state: State, seat: int, n: int, rule: str) -> None:
        side = self._side(state, seat)
        if state["offerings"][side] < n:
            raise RuleError(f"this costs {n} Offering token{'s' if n > 1 else ''}; you have "
                            f"{state['offerings'][side]}", RULES["pay"] + "; " + rule)
        state["offerings"][side] -= n
        state["supply"] += n

    def _take_from_supply(self, state: State, seat: int, rule: str) -> None:
        if state["supply"] <= 0:
            raise RuleError("the supply has no Offering token left", RULES["supply"])
        state["offerings"][self._side(state, seat)] += 1
        state["supply"] -= 1
        state["notes"].append("Take 1 Offering token from the supply")

    def _gain_vp(self, state: State, seat: int, n: int) -> None:
        side = self._side(state, seat)
        before = state["vp"][side]
        state["vp"][side] += n
        if before // 20 < state["vp"][side] // 20:
            state["notes"].append("Take a x20 marker and restart the score track")
        if state["end"] is None and state["vp"][side] >= self.threshold(state):
            state["end"] = {"by": seat, "reason": "threshold", "round": state["round"]}
            state["notes"].append(f"{self.player_names(state)[seat]} reached "
                                  f"{self.threshold(state)} VP: finish the turn and the round")

    def _move_group(self, state: State, side: int, dice: list[list[str]], rule: str) -> None:
        zone = list(state["caught"][side])
        for die in dice:
            if die not in zone:
                raise RuleError(f"{describe_dice([die])} is not in the Caught Souls zone "
                                f"(or not that many)", rule)
            zone.remove(die)
        error = group_error(dice, self.facts)
        if error:
            raise RuleError(error, RULES["group"])
        state["caught"][side] = zone
        state["underworld"][side] += dice
        state["notes"].append(f"Move {describe_dice(dice)} to the Underworld")

    def _update_samedi(self, state: State) -> None:
        """The token goes to the one player with the most white dice in their Underworld;
        on a tie for most it stays with a tied holder, otherwise goes back to the supply."""
        if state["team"]:
            return
        whites = [sum(1 for d in zone if d[0] == WHITE) for zone in state["underworld"]]
        top = max(whites)
        leaders = [s for s, n in enumerate(whites) if n == top]
        holder = state["samedi"]
        if top == 0:
            new = None
        elif len(leaders) == 1:
            new = leaders[0]
        else:
            new = holder if holder in leaders else None
        if new != holder:
            names = self.player_names(state)
            state["notes"].append(
                f"The Baron Samedi token goes to {names[new]}" if new is not None
                else "The Baron Samedi token goes back to the supply")
        state["samedi"] = new

    def _deity_choices(self, state: State) -> list[list[str]]:
        f = self.facts
        if state["team"]:
            out = []
            for p0, p1 in f.pairings:
                for t0, t1 in ((p0, p1), (p1, p0)):
                    out.append([t0[0], t0[1], t1[0], t1[1]])
            return out
        return [list(p) for p in itertools.permutations(f.deities, state["players"])]

    def _power_params(self, deity: str, action: Action) -> dict[str, str]:
        f = self.facts
        if deity == "mami_wata":
            line = require(action, "line", str)
            edge = require(action, "edge", str)
            if line in f.row_labels():
                if edge not in ("left", "right"):
                    raise MalformedAction("a row slides to the 'left' or 'right' edge")
            elif line in f.col_labels():
                if edge not in ("top", "bottom"):
                    raise MalformedAction("a column slides to the 'top' or 'bottom' edge")
            else:
                raise MalformedAction(f"'line' is a row 1-{f.rows} or a column A-"
                                      f"{f.col_labels()[-1]}")
            return {"line": line, "edge": edge}
        keys = ("a", "b") if deity == "erzulie_freda" else ("from", "to")
        return {k: self._cell(action, k) for k in keys}

    def _power_actions(self, state: State, seat: int) -> list[Action]:
        out = []
        for deity in self.usable_powers(state, seat):
            for params, _ in power_options(state["board"], self.facts, deity):
                out.append({"type": "power", "player": seat, "deity": deity, **params})
        return out

    def _c_actions(self, state: State, seat: int) -> list[Action]:
        """The C actions legal now, in C1-C5 order (for menus and the world)."""
        f = self.facts
        side = self._side(state, seat)
        base = {"player": seat}
        early: list[Action] = [{"type": "take_offering", **base}]
        early += [{"type": "change_face", **base, "face": face} for face in f.faces]
        late: list[Action] = [{"type": "extra_turn", **base}]
        late += [{"type": "send", **base, "dice": g}
                 for g in valid_groups(state["caught"][side], f)[:10]]
        effects = self._effect_options(state, seat)
        if effects and not self.is_legal(state, effects[0]):
            effects = []  # built legal by construction, so one check stands for all
        return ([a for a in early if self.is_legal(state, a)] + effects
                + [a for a in late if self.is_legal(state, a)])

    def _effect_options(self, state: State, seat: int) -> list[Action]:
        turn = state["turn"]
        if turn["step"] != "C" or turn["c_step"] >= 3:
            return []
        face = turn["captured"][1]
        side = self._side(state, seat)
        base: Action = {"type": "effect", "player": seat}
        if face in ("offering", "vp", "protection"):
            return [base]
        out: list[Action] = []
        if face == "change":
            for die in _distinct(state["caught"][side]):
                for new in self.facts.faces:
                    if new != die[1]:
                        out.append({**base, "die": die, "new_face": new})
        elif face == "steal":
            for victim in range(state["players"]):
                vside = self._side(state, victim)
                if vside == side or self._side_protected(state, vside) or (
                        state["team"] and victim != self._side_seats(state, vside)[0]):
                    continue
                for die in _distinct(state["underworld"][vside]):
                    out.append({**base, "victim": victim, "die": die})
        elif face == "swap":
            seats = [self._side_seats(state, s)[0] for s in range(state["sides"])]
            for a, b in itertools.combinations(seats, 2):
                for a_die in _distinct(state["caught"][self._side(state, a)]):
                    for b_die in _distinct(state["caught"][self._side(state, b)]):
                        out.append({**base, "a": a, "a_die": a_die, "b": b, "b_die": b_die})
        return out

    def _physical_moves(self, state: State,
                        changed: set[str]) -> Iterator[tuple[Action, dict[str, list]]]:
        """Every capture and power the hands could have made, whatever the rules say."""
        f = self.facts
        board = state["board"]
        turn = state["turn"]
        actors = self._possible_actors(state)
        by_colour = {state["colours"][s]: s for s in actors}
        fallback = actors[0]
        if changed:
            for frm in f.cells:
                if not board[frm]:
                    continue
                seat = by_colour.get(board[frm][-1][0], fallback)
                for d in DIRS:
                    mid, to = f.step(frm, d, 1), f.step(frm, d, 2)
                    if mid is None or to is None or not board[mid]:
                        continue
                    cells = {frm: board[frm][:-1], mid: board[mid][:-1],
                             to: board[to] + [board[frm][-1]]}
                    yield ({"type": "capture", "player": seat, "from": frm, "over": mid,
                            "to": to}, cells)
        if turn["power_used"] or len(changed) == 0:
            return
        for deity in POWERS:
            seat = by_colour.get(f.power_colour[deity], turn["actor"] if turn["actor"]
                                 is not None else fallback)
            for params, cells in physical_power_options(board, f, deity, changed):
                yield {"type": "power", "player": seat, "deity": deity, **params}, cells

    def _setup_from_view(self, seen: BoardView) -> Action:
        f = self.facts
        board: dict[str, list[list[Any]]] = {}
        for cell, pieces in seen.items():
            board[cell] = [[p.colour, f.pips_face.get(p.pips, f"pips {p.pips}")]
                           for p in pieces]
        layout = "random"
        for name, lay in f.layouts.items():
            if {c: [d] for c, d in lay.items()} == board:
                layout = name
        return {"type": "setup", "layout": layout, "board": board}


_HANDLERS = {
    "deities": BaronVoodoo._do_deities,
    "setup": BaronVoodoo._do_setup,
    "capture": BaronVoodoo._do_capture,
    "power": BaronVoodoo._do_power,
    "stuck": BaronVoodoo._do_stuck,
    "take_offering": BaronVoodoo._do_take_offering,
    "change_face": BaronVoodoo._do_change_face,
    "effect": BaronVoodoo._do_effect,
    "extra_turn": BaronVoodoo._do_extra_turn,
    "send": BaronVoodoo._do_send,
    "end_turn": BaronVoodoo._do_end_turn,
    "final_group": BaronVoodoo._do_final_group,
}


# --------------------------------------------------------------------------- grid helpers


def captures(state: State, f: Facts, colour: str) -> list[tuple[str, str, str]]:
    """Legal captures (from, over, to) for dice of ``colour`` on the tracked board."""
    protected = {c for c, on in state["protection"].items() if on}
    return list(_iter_captures(state["board"], f, colour, protected))


def _iter_captures(board: dict[str, list], f: Facts, colour: str,
                   protected: set[str]) -> Iterator[tuple[str, str, str]]:
    for frm in f.cells:
        stack = board[frm]
        if not stack or stack[-1][0] != colour:
            continue
        for d in DIRS:
            mid, to = f.step(frm, d, 1), f.step(frm, d, 2)
            if mid is None or to is None:
                continue
            if not board[mid] or board[mid][-1][0] in protected:
                continue
            if len(board[to]) >= STACK_MAX:
                continue
            yield frm, mid, to


def _captures_on(board: dict[str, list], f: Facts, colour: str, protected: set[str]) -> bool:
    return next(_iter_captures(board, f, colour, protected), None) is not None


def line_cells(f: Facts, line: str, edge: str) -> list[str]:
    """The cells of a row or column, ordered from ``edge`` inwards."""
    if line in f.row_labels():
        r = int(line) - 1
        cells = [f.at(r, c) for c in range(f.cols)]
        if edge == "right":
            cells.reverse()
    else:
        c = ord(line) - ord("A")
        cells = [f.at(r, c) for r in range(f.rows)]
        if edge == "bottom":
            cells.reverse()
    return [c for c in cells if c is not None]


def _isolated(board: dict[str, list], f: Facts, cell: str) -> bool:
    return all(not board[n] for n in f.neighbours(cell))


def _same_line(f: Facts, a: str, b: str) -> bool:
    (ra, ca), (rb, cb) = f.coord[a], f.coord[b]
    if f.readings.get("legba_line") == "row":
        return ra == rb
    return ra == rb or ca == cb


def power_result(board: dict[str, list], f: Facts, deity: str,
                 params: dict[str, str]) -> dict[str, list]:
    """The cells a power changes (cell -> new stack), or RuleError citing the power."""
    rule = RULES[deity]
    if deity == "mami_wata":
        cells = line_cells(f, params["line"], params["edge"])
        stacks = [board[c] for c in cells if board[c]]
        changes = {c: [list(d) for d in stacks[i]] if i < len(stacks) else []
                   for i, c in enumerate(cells)}
        if f.readings.get("power_must_move") and all(changes[c] == board[c] for c in cells):
            raise RuleError(f"no die of line {params['line']} would move to the "
                            f"{params['edge']} edge", RULES["power_moves"] + "; " + rule)
        return changes
    if deity == "papa_legba":
        frm, to = params["from"], params["to"]
        if not board[frm]:
            raise RuleError(f"there is no die on {frm}", rule)
        if board[to]:
            raise RuleError(f"{to} is not an empty space", rule)
        if frm == to or not _same_line(f, frm, to):
            raise RuleError(f"{to} is not in the same row as {frm}", rule)
        return {frm: [list(d) for d in board[frm][:-1]], to: [list(board[frm][-1])]}
    if deity == "gran_bwa":
        frm, to = params["from"], params["to"]
        if len(board[frm]) < 2:
            raise RuleError(f"{frm} is not a column: only the die lying on the board is there",
                            rule)
        if frm == to or not board[to]:
            raise RuleError(f"{to} holds no other die to put the column on", rule)
        if len(board[to]) + len(board[frm]) - 1 > STACK_MAX:
            raise RuleError(f"{to} would hold {len(board[to]) + len(board[frm]) - 1} dice",
                            RULES["stack_max"])
        return {frm: [list(board[frm][0])],
                to: [list(d) for d in board[to]] + [list(d) for d in board[frm][1:]]}
    a, b = params["a"], params["b"]
    if a == b or not board[a] or not board[b]:
        raise RuleError("choose two different spaces with dice", rule)
    if f.readings.get("erzulie_separated") == "apart":
        if b in f.neighbours(a):
            raise RuleError(f"{a} and {b} are side by side, not separated", rule)
    else:
        for cell in (a, b):
            if not _isolated(board, f, cell):
                raise RuleError(f"the die on {cell} is not separated: it has a die beside it",
                                rule)
    if f.readings.get("power_must_move") and board[a][-1] == board[b][-1]:
        raise RuleError("the two dice look the same: nothing would change",
                        RULES["power_moves"])
    return {a: [list(d) for d in board[a][:-1]] + [list(board[b][-1])],
            b: [list(d) for d in board[b][:-1]] + [list(board[a][-1])]}


def power_options(board: dict[str, list], f: Facts,
                  deity: str) -> Iterator[tuple[dict[str, str], dict[str, list]]]:
    """Every legal use of a Deity's power on ``board`` (parameters, changed cells)."""
    for params in _power_params_space(board, f, deity, None):
        try:
            yield params, power_result(board, f, deity, params)
        except RuleError:
            continue


def physical_power_options(board: dict[str, list], f: Facts, deity: str,
                           changed: set[str]) -> Iterator[tuple[dict[str, str], dict[str, list]]]:
    """Every way hands could have carried out ``deity``'s power, legal or not, that could
    account for the ``changed`` cells (used by explain; apply() judges them)."""
    for params in _power_params_space(board, f, deity, changed):
        yield params, _power_physical(board, f, deity, params)


def _power_params_space(board: dict[str, list], f: Facts, deity: str,
                        changed: set[str] | None) -> Iterator[dict[str, str]]:
    occupied = [c for c in f.cells if board[c]]
    if deity == "mami_wata":
        for line in f.row_labels():
            for edge in ("left", "right"):
                yield {"line": line, "edge": edge}
        for line in f.col_labels():
            for edge in ("top", "bottom"):
                yield {"line": line, "edge": edge}
    elif deity == "papa_legba":
        if changed is None:
            for frm in occupied:
                for to in f.cells:
                    if not board[to] and to != frm and _same_line(f, frm, to):
                        yield {"from": frm, "to": to}
        else:
            for to in changed:
                if not board[to]:
                    for frm in occupied:
                        yield {"from": frm, "to": to}
    elif deity == "gran_bwa":
        for frm in occupied:  # the target may look unchanged (same top): try every one
            if len(board[frm]) >= 2:
                for to in occupied:
                    if to != frm:
                        yield {"from": frm, "to": to}
    else:
        pool = occupied if changed is None else [c for c in occupied if c in changed]
        if changed is None:
            pool = [c for c in pool if f.readings.get("erzulie_separated") == "apart"
                    or _isolated(board, f, c)]
        for a, b in itertools.combinations(pool, 2):
            yield {"a": a, "b": b}


def _power_physical(board: dict[str, list], f: Facts, deity: str,
                    params: dict[str, str]) -> dict[str, list]:
    """What the hands did, without the power's conditions (kept for apply to judge)."""
    if deity == "mami_wata":
        cells = line_cells(f, params["line"], params["edge"])
        stacks = [board[c] for c in cells if board[c]]
        return {c: stacks[i] if i < len(stacks) else [] for i, c in enumerate(cells)}
    if deity == "papa_legba":
        frm, to = params["from"], params["to"]
        return {frm: board[frm][:-1], to: board[to] + board[frm][-1:]}
    if deity == "gran_bwa":
        frm, to = params["from"], params["to"]
        return {frm: board[frm][:1], to: board[to] + board[frm][1:]}
    a, b = params["a"], params["b"]
    return {a: board[a][:-1] + board[b][-1:], b: board[b][:-1] + board[a][-1:]}


def _params_text(deity: str, params: dict[str, str]) -> str:
    if deity == "mami_wata":
        return f"line {params['line']} to the {params['edge']}"
    if deity == "erzulie_freda":
        return f"{params['a']} <-> {params['b']}"
    return f"{params['from']} -> {params['to']}"


# --------------------------------------------------------------------------- groups


def group_error(dice: list[list[str]], f: Facts) -> str | None:
    """Why ``dice`` is not a scoring group, or None.  White dice stand for any colour."""
    n = len(dice)
    if n not in f.group_vp:
        sizes = "/".join(str(k) for k in sorted(f.group_vp))
        return f"a group has {sizes} dice, not {n}"
    colours = [d[0] for d in dice if d[0] != WHITE]
    faces = [d[1] for d in dice]
    same_icon = len(set(faces)) == 1 and len(set(colours)) == len(colours) \
        and n <= len(f.majority_colours)
    same_colour = len(set(colours)) <= 1 and len(set(faces)) == n
    if same_icon or same_colour:
        return None
    return (f"{describe_dice(dice)} is neither one icon in different colours nor one colour "
            "with different icons")


def valid_groups(zone: list[list[str]], f: Facts) -> list[list[list[str]]]:
    """Every distinct scoring group that can be made from ``zone``, best VP first (fewer
    white jokers first among equals)."""
    counts = Counter((d[0], d[1]) for d in zone)
    whites = {face: counts[(WHITE, face)] for face in f.faces}
    seen: set[tuple[tuple[str, str], ...]] = set()
    out: list[list[list[str]]] = []
    sizes = sorted(f.group_vp)
    biggest = max(sizes)

    def add(group: list[tuple[str, str]]) -> None:
        key = tuple(sorted(group))
        if len(group) in f.group_vp and key not in seen:
            seen.add(key)
            out.append([list(d) for d in key])

    # one icon, different colours (white jokers of that icon fill missing colours)
    for face in f.faces:
        coloured = sorted({c for (c, fc) in counts if fc == face and c != WHITE})
        for k in range(0, min(len(coloured), biggest) + 1):
            for cols in itertools.combinations(coloured, k):
                for w in range(0, whites[face] + 1):
                    if k + w <= min(biggest, len(f.majority_colours)):
                        add([(c, face) for c in cols] + [(WHITE, face)] * w)
    # one colour, different icons (white jokers of the missing icons)
    for colour in sorted({c for (c, _) in counts if c != WHITE}) + [None]:
        own = sorted({fc for (c, fc) in counts if c == colour}) if colour else []
        for k in range(0, min(len(own), biggest) + 1):
            for faces in itertools.combinations(own, k):
                free = [fc for fc in f.faces if whites[fc] and fc not in faces]
                for w in range(0, biggest - k + 1):
                    for wf in itertools.combinations(free, w):
                        add([(colour, fc) for fc in faces] + [(WHITE, fc) for fc in wf])
    out.sort(key=lambda g: (-f.group_vp[len(g)], sum(1 for d in g if d[0] == WHITE), g))
    return out


def best_plan(zone: list[list[str]], f: Facts, limit: int = 12) -> int:
    """The most VP the zone could score if sent as disjoint groups: exact (a DP over how
    many dice of each kind remain, with the groups listed once) up to ``limit`` dice,
    greedy beyond."""
    if len(zone) > limit:
        total, rest = 0, [list(d) for d in zone]
        while groups := valid_groups(rest, f):
            total += f.group_vp[len(groups[0])]
            for d in groups[0]:
                rest.remove(d)
        return total
    kinds = sorted({(d[0], d[1]) for d in zone})
    index = {k: i for i, k in enumerate(kinds)}
    counts = [0] * len(kinds)
    for d in zone:
        counts[index[(d[0], d[1])]] += 1
    options: list[tuple[list[int], int]] = []
    for group in valid_groups(zone, f):
        need = [0] * len(kinds)
        for d in group:
            need[index[(d[0], d[1])]] += 1
        options.append((need, f.group_vp[len(group)]))
    # the groups that hold a die of kind i and none of a kind before i: when kind i is the
    # first kind left, either such a group is sent next or no die of kind i is ever used
    starting: list[list[tuple[list[int], int]]] = [
        [(need, vp) for need, vp in options if need[i] and not any(need[:i])]
        for i in range(len(kinds))]
    memo: dict[tuple[int, ...], int] = {}

    def solve(left: tuple[int, ...]) -> int:
        first = next((i for i, n in enumerate(left) if n), None)
        if first is None:
            return 0
        if left in memo:
            return memo[left]
        best = solve((0,) * (first + 1) + left[first + 1:])
        for need, vp in starting[first]:
            if all(n <= m for n, m in zip(need, left, strict=True)):
                best = max(best, vp + solve(tuple(m - n for n, m in zip(need, left,
                                                                           strict=True))))
        memo[left] = best
        return best

    return solve(tuple(counts))


def _copy(state: State) -> State:
    """A deep copy of a plain-JSON state (what base.json_copy does, through the JSON codec,
    which is ~15x faster than copy.deepcopy on these nested lists)."""
    try:
        return json.loads(json.dumps(state))
    except (TypeError, ValueError):
        return json_copy(state)


def describe_dice(dice: list[list[str]]) -> str:
    return " + ".join(f"{d[0]} {d[1]}" for d in dice)


def _distinct(zone: list[list[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    for die in zone:
        if die not in out:
            out.append(list(die))
    return out
