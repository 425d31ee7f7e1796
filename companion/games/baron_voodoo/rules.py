"""Baron Voodoo (Yann Dentil, Yoka by Tsume 2019): the rules tracker.

Read like an OpenSpiel game file: the house rules, the Game class (set-up, whose
turn, legal actions, apply and its handlers, scores, the end), then helpers.  The
facts live in :mod:`.facts`, captures and the Deity powers in :mod:`.powers`, the
scoring groups in :mod:`.groups`, the table the camera sees in :mod:`.board` and
the game's words in :mod:`.words`.

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
from pathlib import Path
from typing import Any

from companion.games.baron_voodoo.facts import (
    RULES,
    STACK_MAX,
    WHITE,
    load_facts,
)
from companion.games.baron_voodoo.groups import (
    describe_dice,
    distinct_dice,
    group_error,
    valid_groups,
)
from companion.games.baron_voodoo.powers import (
    BaronVoodooPowers,
    captures,
)
from companion.games.base import (
    Action,
    Game,
    HouseRule,
    MalformedAction,
    Outcome,
    RuleError,
    State,
    json_copy,
    require,
)

# --------------------------------------------------------------------------- house rules

HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "other_powers",
        "Paying 1 Offering for another Deity's power",
        {"any": "Any of the four Deities, played or not",
         "in_play": "Only a Deity another player has"},
        "any",
        "Na początku swojej tury gracz może użyć mocy swojego Bóstwa lub wydać 1 (oddaje go do "
        "wspólnej puli), aby użyć mocy innego Bóstwa.",
        "At the start of their turn a player may use the power of their own Deity, or spend 1 "
        "[Offering token] (returning it to the common supply) to use the power of another Deity.",
    ),
    HouseRule(
        "legba_line",
        "Papa Legba moves a die within",
        {"row": "Its row", "row_or_column": "Its row or its column"},
        "row",
        "Przenieś 1 wybraną Kość Duszy na dowolne, puste miejsce w tym samym rzędzie na planszy "
        "głównej.",
        "Move 1 chosen Soul Die to any empty space in the same row of the main board.",
    ),
    HouseRule(
        "white_majority",
        "White dice in the colour majorities at the end",
        {"no": "No: white dice are jokers; the most white dice earn Baron Samedi (team: 3 VP)",
         "yes": "Yes: white is a colour too (3 VP for the most, 1 VP each on a tie)"},
        "no",
        "Porównajcie liczbę zgromadzonych Kości Dusz we wszystkich kolorach u każdego z graczy. "
        "Gracz, który zgromadzi najwięcej Kości w danym kolorze, otrzymuje 3 Punkty Zwycięstwa "
        "za każdy kolor.",
        "Compare the number of Soul Dice each player has collected in every colour. The player "
        "who has collected the most dice of a colour receives 3 Victory Points for each colour.",
    ),
    HouseRule(
        "samedi_powers",
        "Baron Samedi's holder uses a power",
        {"turn": "Once a turn: in step A, or in step D if none was used in A",
         "step": "Once a step: one in step A and another in step D"},
        "turn",
        "Gracz posiadający znacznik Barona Samedi włada mocami wszystkich Bóstw. Może je "
        "wykorzystać podczas kroków A lub D w swojej turze, bez konieczności uiszczenia opłaty "
        "w formie Znaczników Ofiarowania ☞.",
        "The player holding the Baron Samedi token wields the powers of all the Deities. They may "
        "use them during steps A or D of their turn, without paying Offering tokens.",
    ),
    HouseRule(
        "team_protection",
        "Team game: a steal from the shared Deity board is blocked by",
        {"either": "Either team-mate's active Protection",
         "both": "Only both team-mates' Protection (one player's never covers the other)"},
        "either",
        "Do następnej Twojej tury nie można przechwycić Kości Duszy w Twoim kolorze na planszy "
        "głównej oraz nie można ukraść Ci kości z planszeczki Bóstwa.",
        "Until your next turn, Soul Dice of your colour on the main board cannot be captured, "
        "and no die can be stolen from your Deity board.",
    ),
    HouseRule(
        "samedi_goes_to",
        "The Baron Samedi token goes to the player who",
        {"sent": "Has sent the most white dice to the Underworld (a steal takes none back)",
         "held": "Holds the most white dice in the Underworld now"},
        "sent",
        "Gracz, który wysła najwięcej Białych Kości Dusz do Zaświatów, zdobywa znacznik Barona "
        "Samedi i zdobywa jego moce.",
        "The player who sends the most White Soul Dice to the Underworld takes the Baron Samedi "
        "token and gains its powers.",
    ),
)
"""Where the Polish rulebook reads two ways; each default is argued in ACTIONS.md.  Each
quotes the Polish as printed (its Offering icon is a picture, missing from the text, so the
English marks it "[Offering token]") with an English rendering after baron-voodoo.en.md."""


class BaronVoodooRules(BaronVoodooPowers, Game):
    """Baron Voodoo's referee: validates captures and powers seen on the grid, keeps the
    Offering supply, VP, Protection and the Baron Samedi token, and scores the end."""

    name = "baron_voodoo"
    title = "Baron Voodoo"
    min_players = 2
    max_players = 4
    variants = ("standard", "team", "balanced", "chaos")
    house_rules = HOUSE_RULES

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
            "white_sent": [0] * sides,
            "notes": [],
        }

    def player_names(self, state: State) -> list[str]:
        names = [self.facts.deities[c]["name"] for c in state["colours"]]
        if state["team"]:
            return [f"{n} (team {i // 2 + 1})" for i, n in enumerate(names)]
        return names

    def seat_colours(self, state: State) -> list[str | None]:
        return list(state["colours"])  # each Deity's dice colour

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
        if self.power_open(state, seat):
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
            # the spaces with no die, for players who see a die on each: the camera misses it
            empty = [c for c in f.cells if not clean[c] and f.printed[c] != "black"]
            bare = f"; no die on {', '.join(empty[:6])}{'...' if len(empty) > 6 else ''}" if empty else ""
            raise RuleError(f"the board must hold all {sum(want.values())} Soul Dice "
                            f"({', '.join(f'{n} {c}' for c, n in want.items())}); seen {got}{bare}",
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
        self._to_underworld(state, side, state["caught"][side])
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
        colours = list(f.majority_colours)
        if self.house_rule(state, "white_majority") == "yes":
            colours.append(WHITE)
        for colour in colours:
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

    def threshold(self, state: State) -> int:
        key = "team" if state["team"] else str(state["players"])
        return self.facts.thresholds[key]

    # --- helpers ----------------------------------------------------------------------------------
    def _side(self, state: State, seat: int) -> int:
        return seat // 2 if state["team"] else seat

    def _side_seats(self, state: State, side: int) -> list[int]:
        return [2 * side, 2 * side + 1] if state["team"] else [side]

    def _side_protected(self, state: State, side: int) -> bool:
        seats = self._side_seats(state, side)
        active = [state["protection"][state["colours"][s]] for s in seats]
        if state["team"] and self.house_rule(state, "team_protection") == "both":
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
        self._to_underworld(state, side, dice)
        state["notes"].append(f"Move {describe_dice(dice)} to the Underworld")

    def _to_underworld(self, state: State, side: int, dice: list[list[str]]) -> None:
        """Dice a side sends to its Underworld; white ones count towards Baron Samedi."""
        state["underworld"][side] += dice
        sent = state.setdefault("white_sent", [0] * state["sides"])
        sent[side] += sum(1 for d in dice if d[0] == WHITE)

    def _update_samedi(self, state: State) -> None:
        """The token goes to the one player with the most white dice, counted as the house
        rule ``samedi_goes_to`` says (sent to the Underworld so far, or held there now); on a
        tie for most it stays with a tied holder, otherwise goes back to the supply."""
        if state["team"]:
            return
        if self.house_rule(state, "samedi_goes_to") == "sent":
            whites = list(state.get("white_sent") or [0] * state["sides"])
        else:
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
            for die in distinct_dice(state["caught"][side]):
                for new in self.facts.faces:
                    if new != die[1]:
                        out.append({**base, "die": die, "new_face": new})
        elif face == "steal":
            for victim in range(state["players"]):
                vside = self._side(state, victim)
                if vside == side or self._side_protected(state, vside) or (
                        state["team"] and victim != self._side_seats(state, vside)[0]):
                    continue
                for die in distinct_dice(state["underworld"][vside]):
                    out.append({**base, "victim": victim, "die": die})
        elif face == "swap":
            seats = [self._side_seats(state, s)[0] for s in range(state["sides"])]
            for a, b in itertools.combinations(seats, 2):
                for a_die in distinct_dice(state["caught"][self._side(state, a)]):
                    for b_die in distinct_dice(state["caught"][self._side(state, b)]):
                        out.append({**base, "a": a, "a_die": a_die, "b": b, "b_die": b_die})
        return out



_HANDLERS = {
    "deities": BaronVoodooRules._do_deities,
    "setup": BaronVoodooRules._do_setup,
    "capture": BaronVoodooRules._do_capture,
    "power": BaronVoodooRules._do_power,
    "stuck": BaronVoodooRules._do_stuck,
    "take_offering": BaronVoodooRules._do_take_offering,
    "change_face": BaronVoodooRules._do_change_face,
    "effect": BaronVoodooRules._do_effect,
    "extra_turn": BaronVoodooRules._do_extra_turn,
    "send": BaronVoodooRules._do_send,
    "end_turn": BaronVoodooRules._do_end_turn,
    "final_group": BaronVoodooRules._do_final_group,
}


def _copy(state: State) -> State:
    """A deep copy of a plain-JSON state (what base.json_copy does, through the JSON codec,
    which is ~15x faster than copy.deepcopy on these nested lists)."""
    try:
        return json.loads(json.dumps(state))
    except (TypeError, ValueError):
        return json_copy(state)
