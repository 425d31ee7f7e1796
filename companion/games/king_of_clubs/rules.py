"""King of Clubs: a referee of nights of secret Dancers, reveals and Moves.

The tracker never knows a hand: it sees the Nightclubs drawn, face-down cards
as "a card is here", each Dancer when it is flipped, the Move cards tapped on a
seat reader (and laid on a Dancer), and passes.  Each player owns exactly one
Dancer of each skill 1-5, so once a night's four Dancers are revealed the
Backup Dancer is known too; the tracker uses that only after the last reveal
(night tie-break, Advanced draws).  The Moves pile is counted, not known.

Order of this file (OpenSpiel's): facts as data, the Game class, helpers.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from companion.games.base import (
    Action,
    Game,
    HouseRule,
    MalformedAction,
    Outcome,
    RuleError,
    State,
    counted,
    json_copy,
    require,
)

# --------------------------------------------------------------------------- facts as data

DATA_PATH = Path(__file__).parent / "data" / "cards.json"

SLOTS = ("d0", "d1", "d2", "d3")
BACKUP = "backup"
ALL_SLOTS = (*SLOTS, BACKUP)
SKILLS = (1, 2, 3, 4, 5)
LETTERS = "ABCD"

R_CLUBS = "There are two Nightclubs of each value 2, 3, and 4 and one of each value 5, 6, and 7."
R_SCENE = (
    "Each night (round of play), place the top four Nightclubs from the Nightclub pile "
    "face up between the players."
)
R_PLACE = (
    "Each player secretly selects one Dancer to send to each Nightclub ... placing one "
    "Dancer face down in front of the Nightclub ... The remaining fifth Dancer will stay "
    "behind as a Backup Dancer."
)
R_LEAD = "Once all Dancers are committed, the Lead Dancer must reveal one non-Backup Dancer."
R_SWAP = "Their opponent may then swap any two of their own non-Backup Dancers."
R_ORDER = (
    "Starting with the lowest prestige value Nightclub, players simultaneously reveal their "
    "selected Dancer ... in increasing prestige value order, Solo Dances before Couples Dances."
)
R_TEAM = "Each player selects a team of five Dancer cards (skill value 1 through 5)."
R_BACKUP = (
    "In the case of a tie for skill value at a Nightclub, players reveal their Backup Dancers."
)
R_MOVES = (
    "After revealing Dancers at a Nightclub, the Lead Dancer may play any number of Moves "
    "from their hand on their Dancer ... The opposing player may now choose to play any "
    "number of Moves on their own Dancer."
)
R_TEAM_MOVES = (
    "Beginning with the Lead Dancer, Teams take turns playing Moves on any of the Dancers "
    "until both teams pass."
)
R_PASS = (
    "Once a player passes without playing a Move, they may not play any more Moves on "
    "that Dancer."
)
R_BASIC = "In the Basic version, the Moves cards are not used."
R_CARD = (
    "20 Move cards: a Move already on a Dancer or in the discard pile cannot be played "
    "from a hand."
)
R_NEW_NIGHT = (
    "All Dancers return to the players' hands and all Nightclubs are shuffled back in to "
    "the Nightclub pile."
)
R_OVER = "Once a player earns five points, they are declared the King of Clubs."
R_NIGHTS = "King of Clubs is played in up to nine nights (rounds) of dance competitions."

# --------------------------------------------------------------------------- house rules

HOUSE_RULES = (
    HouseRule(
        "reveal_order", "The order of the dances",
        {"solo_first": "All Solo Dances first, lowest prestige up, then the Couples (Line) "
                       "Dances",
         "by_value": "Strictly by prestige, lowest first; a Solo Dance before a Couples "
                     "(Line) Dance of equal prestige"},
        "solo_first",
        "This phase is repeated for each remaining Nightclub in increasing prestige value "
        "order, Solo Dances before Couples Dances, until all dance competitions are complete."),
    HouseRule(
        "nine_nights", "The winner after nine nights",
        {"last_night": "The side with more points; equal points: the side that won the ninth "
                       "night",
         "draw": "The side with more points; equal points: nobody is crowned (a draw)",
         "five_only": "Nobody: only five points crown a King (a draw)"},
        "last_night",
        "King of Clubs is played in up to nine nights (rounds) of dance competitions. ... "
        "Once a player earns five points, they are declared the King of Clubs."),
)

PHASES = ("scene", "placement", "lead_reveal", "swap", "reveal", "moves", "backups",
          "night_over", "over")


def load_data(path: str | Path | None = None) -> dict[str, Any]:
    """The physical facts (Nightclubs, Dancer draw values, Move cards, colours)."""
    with open(path or DATA_PATH, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    for key in ("nightclubs", "dancer_styles", "dancers", "moves", "colours", "rules"):
        if key not in data:
            raise ValueError(f"King of Clubs data file lacks {key!r}")
    return data


# --------------------------------------------------------------------------- the game


class KingOfClubsRules(Game):
    """King of Clubs, 2 players or 4 in two teams (seats 0+2 against 1+3)."""

    name = "king_of_clubs"
    title = "King of Clubs"
    min_players = 2
    max_players = 4

    @classmethod
    def player_counts(cls) -> tuple[int, ...]:
        """Two players, or four in two teams: never three."""
        return (2, 4)
    variants = ("basic", "advanced")
    house_rules = HOUSE_RULES

    def __init__(self, data_path: str | Path | None = None) -> None:
        self.data = load_data(data_path)
        self.club_values: list[int] = sorted(int(c["value"]) for c in self.data["nightclubs"])
        self.draw_value: dict[int, int] = {
            int(d["skill"]): int(d["draw"]) for d in self.data["dancers"]
        }
        self.styles: list[dict[str, str]] = list(self.data["dancer_styles"])
        self.move_names: dict[str, str] = {m["id"]: m["name"] for m in self.data["moves"]}
        self.colours: dict[str, str] = dict(self.data["colours"])
        rules = self.data["rules"]
        self.points_to_win = int(rules["points_to_win"])
        self.max_nights = int(rules["max_nights"])
        self.hand_limit = int(rules["hand_limit"])

    # --- set-up and turn structure -------------------------------------------------------
    def setup(self, players: int, variant: str | None = None, seed: int = 0) -> State:
        """An empty table before the first night; nothing random: the draws arrive as actions."""
        if players not in (2, 4):
            raise ValueError("King of Clubs is played by 2 players, or 4 in two teams")
        variant = variant or self.variants[0]
        if variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}; choose one of {self.variants}")
        return {
            "players": players,
            "variant": variant,
            "night": 1,
            "phase": "scene",
            "points": [0, 0],
            "night_winners": [],
            "lead": None,
            "last_night": None,
            "hands": [0] * players,
            "deck": len(self.move_names),
            "discard": 0,
            "discard_known": [],
            "reshuffles": 0,
            "chores": [],
            "over": False,
            "winners": None,
            "reason": "",
            "actor": _night_actors(players, 1),
            **_fresh_night(players),
        }

    def player_names(self, state: State) -> list[str]:
        return [f"{LETTERS[s]} ({self.styles[s]['name']})" for s in range(state["players"])]

    def side_name(self, state: State, side: int) -> str:
        """"A" in a 2-player game, "A & C" for a team."""
        return " & ".join(LETTERS[s] for s in _seats(state, side))

    def current_player(self, state: State) -> int | None:
        """The seat that acts now for its side.  With teams either teammate may act: the
        seat named is the one that acted for the team last tonight, else the teammates take
        the first action of a night in turn (A and B on odd nights, C and D on even ones),
        so every seat's clock runs."""
        phase = state["phase"]
        side = (state["lead"] if phase == "lead_reveal" else
                1 - state["lead"] if phase == "swap" else
                state["exchange"]["turn"] if phase == "moves" else None)
        if side is None:
            return None
        actor = state.get("actor") or _night_actors(state["players"], state["night"])
        return int(actor[side])

    # --- moves ---------------------------------------------------------------------------
    def legal_actions(self, state: State) -> list[Action]:
        """Every legal action, except reveals: those list a representative set of skill
        assignments (each seat's unrevealed skills, rotated), as all of them run to
        thousands in a Line Dance."""
        phase = state["phase"]
        n = state["players"]
        out: list[Action] = []
        if phase == "scene":
            seen: set[tuple[int, ...]] = set()
            for combo in itertools.combinations(self.club_values, 4):
                if combo not in seen:
                    seen.add(combo)
                    out.append({"type": "nightclubs", "values": list(combo)})
        elif phase == "placement":
            out = [{"type": "place", "player": p} for p in range(n) if not state["placed"][p]]
        elif phase == "lead_reveal":
            for p in _seats(state, state["lead"]):
                for slot in SLOTS:
                    for skill in SKILLS:
                        out.append(
                            {"type": "lead_reveal", "player": p, "slot": slot, "skill": skill}
                        )
        elif phase == "swap":
            for p in _seats(state, 1 - state["lead"]):
                out.append({"type": "pass", "player": p})
                for a, b in itertools.combinations(SLOTS, 2):
                    out.append({"type": "swap", "player": p, "slots": [a, b]})
        elif phase in ("reveal", "backups"):
            out = self._reveal_options(state)
        elif phase == "moves":
            side = state["exchange"]["turn"]
            seats = _seats(state, side)
            out.append({"type": "pass", "player": seats[0]})
            free = [c for c in self.move_names if c not in _accounted(state)]
            dance = state["dances"][state["dance"]]
            for p in seats:
                if state["hands"][p] <= 0:
                    continue
                for card in free:
                    for target in seats:
                        for club in dance["clubs"]:
                            out.append({"type": "move", "player": p, "card": card,
                                        "target": target, "slot": SLOTS[club]})
        elif phase == "night_over":
            out = [{"type": "clear"}]
        return [a for a in out if self.is_legal(state, a)]

    def apply(self, state: State, action: Action) -> State:
        """Validate the schema, then the rules; return the new state."""
        if not isinstance(action, dict):
            raise MalformedAction("an action must be a JSON object")
        kind = require(action, "type", str)
        handler = getattr(self, f"_do_{kind}", None)
        if kind not in ACTION_TYPES or handler is None:
            raise MalformedAction(
                f"unknown action type {kind!r}; King of Clubs knows {', '.join(ACTION_TYPES)}"
            )
        self._check_fields(state, action, kind)
        if state["over"]:
            raise RuleError("the game is over", R_OVER)
        new = json_copy(state)
        handler(new, action)
        if kind in ("lead_reveal", "swap", "pass", "move") and "actor" in new:
            new["actor"][_side(new, action["player"])] = action["player"]
        return new

    # --- scores and the end ------------------------------------------------------------------
    def scores(self, state: State) -> list[float]:
        return [float(state["points"][_side(state, s)]) for s in range(state["players"])]

    def outcome(self, state: State) -> Outcome | None:
        if not state["over"]:
            return None
        return Outcome(tuple(state["winners"]), state["reason"])

    # --- the physical table ------------------------------------------------------------------


    def card_ids(self) -> list[str]:
        return list(self.move_names)

    def card_name(self, card: str) -> str:
        return self.move_names.get(card, card)

    # --- action handlers (state is already a copy) -----------------------------------------
    def _check_fields(self, state: State, action: Action, kind: str) -> None:
        """Schema checks shared by every handler: types, seats, slots, card ids."""
        n = state["players"]
        if kind in ("place", "lead_reveal", "swap", "pass", "move"):
            p = require(action, "player", int)
            if not 0 <= p < n:
                raise MalformedAction(f"player must be a seat 0..{n - 1}, got {p}")
        if kind == "nightclubs":
            values = require(action, "values", list)
            if len(values) != 4 or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in values
            ):
                raise MalformedAction("nightclubs needs 'values': four integers, slot by slot")
        if kind == "lead_reveal":
            if require(action, "slot", str) not in ALL_SLOTS:
                raise MalformedAction(f"slot must be one of {ALL_SLOTS}")
            require(action, "skill", int)
        if kind == "swap":
            slots = require(action, "slots", list)
            if len(slots) != 2 or not all(s in ALL_SLOTS for s in slots):
                raise MalformedAction(f"swap needs 'slots': two of {ALL_SLOTS}")
        if kind == "reveal":
            cards = require(action, "cards", list)
            if not cards:
                raise MalformedAction("reveal needs at least one card")
            for card in cards:
                if not isinstance(card, dict):
                    raise MalformedAction("each revealed card is {player, slot, skill}")
                p = require(card, "player", int)
                if not 0 <= p < n:
                    raise MalformedAction(f"player must be a seat 0..{n - 1}, got {p}")
                if require(card, "slot", str) not in ALL_SLOTS:
                    raise MalformedAction(f"slot must be one of {ALL_SLOTS}")
                require(card, "skill", int)
        if kind == "move":
            card = require(action, "card", str)
            if card not in self.move_names:
                raise MalformedAction(f"unknown Move card {card!r}")
            if "target" in action:
                t = require(action, "target", int)
                if not 0 <= t < n:
                    raise MalformedAction(f"target must be a seat 0..{n - 1}, got {t}")
            if "slot" in action and require(action, "slot", str) not in SLOTS:
                raise MalformedAction(f"slot must be one of {SLOTS}")

    def _need_phase(self, state: State, *phases: str, rule: str, what: str) -> None:
        if state["phase"] not in phases:
            raise RuleError(f"{what} is not possible now ({_phase_text(state)})", rule)

    def _do_nightclubs(self, state: State, action: Action) -> None:
        self._need_phase(state, "scene", rule=R_SCENE, what="Laying out Nightclubs")
        values = list(action["values"])
        pool = list(self.club_values)
        for v in values:
            if v not in pool:
                raise RuleError(f"Nightclub values {values} are not four cards of the pile",
                                R_CLUBS)
            pool.remove(v)
        state["clubs"] = values
        state["dances"] = self._dances(state, values)
        state["chores"] = []
        state["phase"] = "placement"

    def _do_place(self, state: State, action: Action) -> None:
        p = action["player"]
        self._need_phase(state, "placement", rule=R_PLACE, what="Placing Dancers")
        if state["placed"][p]:
            raise RuleError(f"{LETTERS[p]} has already placed their Dancers", R_PLACE)
        state["placed"][p] = True
        if all(state["placed"]):
            if state["lead"] is None:
                self._start_dance(state)
            else:
                state["phase"] = "lead_reveal"

    def _do_lead_reveal(self, state: State, action: Action) -> None:
        p, slot, skill = action["player"], action["slot"], action["skill"]
        self._need_phase(state, "lead_reveal", rule=R_LEAD, what="The Lead Dancer's reveal")
        if _side(state, p) != state["lead"]:
            raise RuleError(f"{LETTERS[p]} is not the Lead Dancer", R_LEAD)
        if slot == BACKUP:
            raise RuleError("the Backup Dancer stays secret", R_LEAD)
        _check_skill(state, p, skill)
        state["revealed"][p][slot] = skill
        state["lead_revealed"] = {"player": p, "slot": slot}
        state["phase"] = "swap"

    def _do_swap(self, state: State, action: Action) -> None:
        p = action["player"]
        a, b = action["slots"]
        self._need_phase(state, "swap", rule=R_SWAP, what="Swapping Dancers")
        if _side(state, p) == state["lead"]:
            raise RuleError("the Lead Dancer's side does not swap", R_SWAP)
        if a == b or BACKUP in (a, b):
            raise RuleError("swap two different non-Backup Dancers", R_SWAP)
        if a in state["revealed"][p] or b in state["revealed"][p]:
            raise RuleError("only face-down Dancers can be swapped", R_SWAP)
        state["swap"] = {"player": p, "slots": [a, b]}
        self._start_dance(state)

    def _do_pass(self, state: State, action: Action) -> None:
        p = action["player"]
        if state["phase"] == "swap":
            if _side(state, p) == state["lead"]:
                raise RuleError("it is the Lead Dancer's opponent who may swap", R_SWAP)
            state["swap"] = "pass"
            self._start_dance(state)
            return
        self._need_phase(state, "moves", rule=R_MOVES, what="Passing")
        ex = state["exchange"]
        side = _side(state, p)
        if side != ex["turn"]:
            raise RuleError(f"it is {self.side_name(state, ex['turn'])}'s turn to play Moves",
                            R_TEAM_MOVES if state["players"] == 4 else R_MOVES)
        if ex["played"] == 0 or ex["passed"][1 - side]:
            ex["passed"][side] = True
        ex["played"] = 0
        ex["turn"] = 1 - side
        self._settle_exchange(state)

    def _do_reveal(self, state: State, action: Action) -> None:
        cards = action["cards"]
        phase = state["phase"]
        rule = R_BACKUP if phase == "backups" else R_ORDER
        if phase == "lead_reveal":
            raise RuleError("the Lead Dancer reveals exactly one Dancer", R_LEAD)
        self._need_phase(state, "reveal", "backups", rule=rule, what="Revealing Dancers")
        expected = set(self._expected_reveal(state))
        got = [(c["player"], c["slot"]) for c in cards]
        if len(set(got)) != len(got):
            raise RuleError("a card is revealed twice", rule)
        extra = set(got) - expected
        if extra:
            p, slot = sorted(extra)[0]
            now = ("only the Backup Dancers flip now" if phase == "backups" else
                   f"{_dance_name(state, state['dances'][state['dance']])} "
                   f"({self._clubs_label(state, state['dances'][state['dance']])}) is revealed "
                   "first")
            raise RuleError(
                f"{LETTERS[p]}'s card at {self._club_label(state, slot)} stays face down: {now}",
                rule)
        if set(got) != expected:
            raise RuleError("every Dancer here is revealed at once", rule)
        for c in cards:
            _check_skill(state, c["player"], c["skill"])
            state["revealed"][c["player"]][c["slot"]] = c["skill"]
        if phase == "backups":
            self._resolve_dance(state)
        else:
            self._after_reveal(state)

    def _do_move(self, state: State, action: Action) -> None:
        p, card = action["player"], action["card"]
        if state["variant"] == "basic":
            raise RuleError("there are no Moves in the Basic version", R_BASIC)
        self._need_phase(state, "moves", rule=R_MOVES, what="Playing a Move")
        ex = state["exchange"]
        side = _side(state, p)
        team = state["players"] == 4
        if side != ex["turn"]:
            raise RuleError(f"it is {self.side_name(state, ex['turn'])}'s turn to play Moves",
                            R_TEAM_MOVES if team else R_MOVES)
        if state["hands"][p] <= 0:
            raise RuleError(f"{LETTERS[p]} has no Moves in hand", R_MOVES)
        if card in _accounted(state):
            raise RuleError(f"{self.move_names[card]} is already on the table or discarded",
                            R_CARD)
        dance = state["dances"][state["dance"]]
        targets = [(t, SLOTS[c]) for t in _seats(state, side) for c in dance["clubs"]]
        target = action.get("target")
        slot = action.get("slot")
        fits = [(t, s) for t, s in targets
                if (target is None or t == target) and (slot is None or s == slot)]
        if not fits:
            raise RuleError(
                "a Move raises one of your "
                f"{'team' if team else 'own'} Dancers at "
                f"{_dance_name(state, dance)}", R_TEAM_MOVES if team else R_MOVES)
        if len(fits) > 1:
            raise MalformedAction("name the Dancer the Move raises: 'target' seat and 'slot'")
        t, s = fits[0]
        state["boost"][t][s] = state["boost"][t].get(s, 0) + 1
        state["hands"][p] -= 1
        state["in_play"].append(card)
        state["moves_played"][p] += 1
        ex["played"] += 1
        self._settle_exchange(state)

    def _do_clear(self, state: State, action: Action) -> None:
        self._need_phase(state, "night_over", rule=R_NEW_NIGHT, what="Clearing the table")
        night = state["night"] + 1
        state.update(_fresh_night(state["players"]))
        state["night"] = night
        state["actor"] = _night_actors(state["players"], night)
        state["phase"] = "scene"

    # --- the night's flow ---------------------------------------------------------------------
    def _dances(self, state: State, values: list[int]) -> list[dict[str, Any]]:
        return make_dances(values, self.house_rule(state, "reveal_order"))

    def _start_dance(self, state: State) -> None:
        """Go to the reveal of the current dance (or straight on if nothing is face down)."""
        state["phase"] = "reveal"
        if not self._expected_reveal(state):
            self._after_reveal(state)

    def _after_reveal(self, state: State) -> None:
        if state["variant"] == "advanced":
            lead = state["lead"] if state["lead"] is not None else 0
            state["exchange"] = {"turn": lead, "passed": [False, False], "played": 0}
            state["phase"] = "moves"
            self._settle_exchange(state)
        else:
            self._resolve_dance(state)

    def _settle_exchange(self, state: State) -> None:
        """Sides with no Moves in hand are out; the turn skips a side that passed."""
        ex = state["exchange"]
        for side in (0, 1):
            if sum(state["hands"][p] for p in _seats(state, side)) == 0:
                ex["passed"][side] = True
        if all(ex["passed"]):
            state["exchange"] = None
            self._resolve_dance(state)
            return
        if ex["passed"][ex["turn"]]:
            ex["turn"] = 1 - ex["turn"]
            ex["played"] = 0

    def _resolve_dance(self, state: State) -> None:
        dance = state["dances"][state["dance"]]
        skills = [_side_skills(state, side, dance) for side in (0, 1)]
        cmp = compare_lowest_first(skills[0], skills[1])
        winner: int | None = None
        by = "skill"
        if cmp:
            winner = 0 if cmp > 0 else 1
        elif state["variant"] == "advanced":
            by = "draw"
        else:
            if any(BACKUP not in state["revealed"][p] for p in range(state["players"])):
                state["phase"] = "backups"
                return
            backups = [sorted(state["revealed"][p][BACKUP] for p in _seats(state, side))
                       for side in (0, 1)]
            cmp = compare_lowest_first(backups[0], backups[1])
            by = "backup" if cmp else "tie"
            winner = None if not cmp else 0 if cmp > 0 else 1
        state["results"].append({"winner": winner, "by": by, "skills": skills})
        if winner is not None:
            state["prestige"][winner] += dance["prestige"]
        state["dance"] += 1
        if state["dance"] < len(state["dances"]):
            self._start_dance(state)
        else:
            self._end_night(state)

    def _end_night(self, state: State) -> None:
        """The point, the victory dance, the end, the Lead Dancer, the draws (Advanced)."""
        n = state["players"]
        backups = [backup_skill(state["revealed"][p]) for p in range(n)]
        moves = [sum(state["moves_played"][p] for p in _seats(state, s)) for s in (0, 1)]
        side_backups = [[backups[p] for p in _seats(state, s)] for s in (0, 1)]
        winner, by = night_winner(state["prestige"], side_backups, moves, state["lead"])
        chores: list[str] = []
        state["night_winners"].append(winner)
        state["last_night"] = {"prestige": list(state["prestige"]), "winner": winner, "by": by,
                               "backups": backups, "moves": moves}
        if winner is None:
            chores.append("Nobody earns a point tonight: prestige, Backup Dancers and Moves "
                          "are all tied and there is no Lead Dancer yet.")
        else:
            state["points"][winner] += 1
            why = {"prestige": "most prestige", "backup": "tie broken by the higher Backup "
                   "Dancer", "moves": "tie broken by fewer Moves played",
                   "not_lead": "tie broken: not the Lead Dancer"}[by]
            verb = "earn" if state["players"] == 4 else "earns"
            chores.append(f"{self.side_name(state, winner)} {verb} a point ({why}): take a Disco "
                          "Ball Point card and do a victory dance!")
        points = state["points"]
        if winner is not None and points[winner] >= self.points_to_win:
            self._finish(state, winner,
                         f"{self.side_name(state, winner)} earned {self.points_to_win} points "
                         f"and {_crowned(state)}: final celebratory dance!")
            state["chores"] = chores
            return
        if state["night"] >= self.max_nights:
            best = max(points)
            leaders = [s for s in (0, 1) if points[s] == best]
            top = leaders[0] if len(leaders) == 1 else winner
            rule = self.house_rule(state, "nine_nights")
            if rule == "five_only" or (rule == "draw" and len(leaders) > 1):
                self._finish(state, None, f"{self.max_nights} nights danced "
                             f"({points[0]}-{points[1]}) and nobody earned "
                             f"{self.points_to_win} points: nobody is crowned (house rule).")
            elif top is None:
                self._finish(state, None, f"{self.max_nights} nights danced, points tied.")
            else:
                self._finish(state, top,
                             f"After {self.max_nights} nights {self.side_name(state, top)} "
                             f"leads {points[top]}-{points[1 - top]} and {_crowned(state)}"
                             + (" (tie: won the last night)" if len(leaders) > 1 else "")
                             + ": final celebratory dance!")
            state["chores"] = chores
            return
        new_lead = lead_after_night(points, winner, state["lead"])
        if new_lead != state["lead"] and new_lead is not None:
            chores.append(f"Give the Lead Dancer card to {self.side_name(state, new_lead)}.")
        state["lead"] = new_lead
        if state["variant"] == "advanced":
            chores += self._draw_moves(state, backups)
        state["chores"] = chores
        state["phase"] = "night_over"

    def _draw_moves(self, state: State, backups: list[int]) -> list[str]:
        """Discard the night's Moves, then draw by Backup Dancer, seat order from the Lead
        Dancer; reshuffle when the pile is empty; discard down to the hand limit."""
        chores: list[str] = []
        state["discard"] += len(state["in_play"])
        state["discard_known"] += state["in_play"]
        if state["in_play"]:
            chores.append(f"Put the {counted(len(state['in_play']), 'Move')} played tonight on the "
                          "discard pile.")
        state["in_play"] = []
        n = state["players"]
        first = state["lead"] if state["lead"] is not None else 0
        for p in [(first + i) % n for i in range(n)]:
            want = self.draw_value.get(backups[p], 0)
            got = 0
            while got < want:
                if state["deck"] == 0:
                    if state["discard"] == 0:
                        break
                    state["deck"], state["discard"] = state["discard"], 0
                    state["discard_known"] = []
                    state["reshuffles"] += 1
                    chores.append("The Moves pile is empty: shuffle the discard pile into a new "
                                  "Moves pile.")
                state["deck"] -= 1
                got += 1
            state["hands"][p] += got
            short = "" if got == want else f" (only {got} left)"
            chores.append(f"{LETTERS[p]} draws {counted(got, 'Move')}: Backup Dancer {backups[p]} "
                          f"draws {want}{short}.")
            over = state["hands"][p] - self.hand_limit
            if over > 0:
                state["hands"][p] = self.hand_limit
                state["discard"] += over
                chores.append(f"{LETTERS[p]} discards {counted(over, 'Move')} down to the hand limit of "
                              f"{self.hand_limit}.")
        return chores

    def _finish(self, state: State, side: int | None, reason: str) -> None:
        state["over"] = True
        state["phase"] = "over"
        state["winners"] = (list(range(state["players"])) if side is None
                            else _seats(state, side))
        state["reason"] = reason
        state["exchange"] = None

    # --- explaining the table --------------------------------------------------------------

    def _expected_reveal(self, state: State) -> list[tuple[int, str]]:
        """The face-down cards that must flip now."""
        n = state["players"]
        if state["phase"] == "backups":
            return [(p, BACKUP) for p in range(n) if BACKUP not in state["revealed"][p]]
        if state["phase"] != "reveal":
            return []
        dance = state["dances"][state["dance"]]
        return [(p, SLOTS[c]) for p in range(n) for c in dance["clubs"]
                if SLOTS[c] not in state["revealed"][p]]

    def _reveal_options(self, state: State) -> list[Action]:
        expected = self._expected_reveal(state)
        by_seat: dict[int, list[str]] = {}
        for p, slot in expected:
            by_seat.setdefault(p, []).append(slot)
        options: list[Action] = []
        for r, step in itertools.product(range(len(SKILLS)), (0, 1, 2)):
            cards = []
            for p, slots in sorted(by_seat.items()):
                free = [s for s in SKILLS if s not in state["revealed"][p].values()]
                k = (r + step * p) % len(free)
                free = free[k:] + free[:k]
                cards += [{"player": p, "slot": slot, "skill": skill}
                          for slot, skill in zip(slots, free, strict=False)]
            action = {"type": "reveal", "cards": cards}
            if action not in options:
                options.append(action)
        return options

    # --- words -------------------------------------------------------------------------------
    def _club_label(self, state: State, slot: str) -> str:
        if slot == BACKUP:
            return "the Backup slot"
        i = SLOTS.index(slot)
        value = state["clubs"][i] if state["clubs"] else "?"
        return f"Nightclub {i + 1} ({value})"

    def _clubs_label(self, state: State, dance: dict[str, Any]) -> str:
        return " + ".join(f"Nightclub {c + 1}" for c in dance["clubs"])


ACTION_TYPES = ("nightclubs", "place", "lead_reveal", "swap", "pass", "reveal", "move", "clear")


# --------------------------------------------------------------------------- helpers


def make_dances(values: list[int], reveal_order: str = "solo_first") -> list[dict[str, Any]]:
    """Group equal Nightclub values (slot by slot) into Couples/Line Dances worth their sum,
    in reveal order: lowest prestige first, Solo Dances before Couples Dances."""
    groups: dict[int, list[int]] = {}
    for slot, value in enumerate(values):
        groups.setdefault(value, []).append(slot)
    dances = [{"clubs": slots, "prestige": value * len(slots), "values": [value] * len(slots)}
              for value, slots in groups.items()]
    if reveal_order == "by_value":
        dances.sort(key=lambda d: (d["prestige"], len(d["clubs"])))
    else:
        dances.sort(key=lambda d: (len(d["clubs"]), d["prestige"]))
    return dances


def compare_lowest_first(a: list[int], b: list[int]) -> int:
    """1 if ``a`` wins, -1 if ``b`` wins, 0 on a full tie: the least skilled Dancers are
    compared first, each tie broken by the next higher ones (Couples, Line, teams)."""
    for x, y in zip(sorted(a), sorted(b), strict=True):
        if x != y:
            return 1 if x > y else -1
    return 0


def compare_highest_first(a: list[int], b: list[int]) -> int:
    """1 if ``a`` wins, -1 if ``b`` wins: the highest values compared first."""
    for x, y in zip(sorted(a, reverse=True), sorted(b, reverse=True), strict=True):
        if x != y:
            return 1 if x > y else -1
    return 0


def night_winner(prestige: list[int], backups: list[list[int]], moves: list[int],
                 lead: int | None) -> tuple[int | None, str]:
    """Who earns the night's point and why: most prestige; ties by the highest Backup Dancer
    (a team's highest first), then fewer Moves played this night, then not the Lead Dancer."""
    if prestige[0] != prestige[1]:
        return (0 if prestige[0] > prestige[1] else 1), "prestige"
    cmp = compare_highest_first(backups[0], backups[1])
    if cmp:
        return (0 if cmp > 0 else 1), "backup"
    if moves[0] != moves[1]:
        return (0 if moves[0] < moves[1] else 1), "moves"
    if lead is not None:
        return 1 - lead, "not_lead"
    return None, "tie"


def lead_after_night(points: list[int], night_winner_side: int | None,
                     lead: int | None) -> int | None:
    """The points leader takes the Lead Dancer card; a tie goes to the night's winner
    (and stays put if nobody won the night)."""
    if points[0] != points[1]:
        return 0 if points[0] > points[1] else 1
    return night_winner_side if night_winner_side is not None else lead


def backup_skill(revealed: dict[str, int]) -> int:
    """The Backup Dancer: shown, or the one skill of 1-5 not revealed at a Nightclub."""
    if BACKUP in revealed:
        return revealed[BACKUP]
    missing = [s for s in SKILLS if s not in revealed.values()]
    if len(missing) != 1:
        raise ValueError("the Backup Dancer is known only once the four Dancers are revealed")
    return missing[0]


def _fresh_night(players: int) -> dict[str, Any]:
    return {
        "clubs": [],
        "dances": [],
        "dance": 0,
        "results": [],
        "prestige": [0, 0],
        "placed": [False] * players,
        "revealed": [{} for _ in range(players)],
        "boost": [{} for _ in range(players)],
        "lead_revealed": None,
        "swap": None,
        "exchange": None,
        "moves_played": [0] * players,
        "in_play": [],
    }


def _night_actors(players: int, night: int) -> list[int]:
    """The seat that first acts for each side on this night: with teams, A and B on odd
    nights, C and D on even ones."""
    if players == 2:
        return [0, 1]
    return [0, 1] if night % 2 else [2, 3]


def _side(state: State, seat: int) -> int:
    return seat % 2


def _seats(state: State, side: int) -> list[int]:
    return [side] if state["players"] == 2 else [side, side + 2]


def _effective(state: State, seat: int, slot: str) -> int:
    return int(state["revealed"][seat][slot]) + int(state["boost"][seat].get(slot, 0))


def _side_skills(state: State, side: int, dance: dict[str, Any]) -> list[int]:
    return sorted(_effective(state, p, SLOTS[c]) for p in _seats(state, side)
                  for c in dance["clubs"] if SLOTS[c] in state["revealed"][p])


def _accounted(state: State) -> set[str]:
    return set(state["in_play"]) | set(state["discard_known"])


def _check_skill(state: State, seat: int, skill: int) -> None:
    if skill not in SKILLS:
        raise RuleError(f"a Dancer's skill is 1 to 5, not {skill}", R_TEAM)
    if skill in state["revealed"][seat].values():
        raise RuleError(f"{LETTERS[seat]} has only one Dancer of skill {skill}, already "
                        "revealed tonight", R_TEAM)


def _crowned(state: State) -> str:
    return "are the Kings of Clubs" if state["players"] == 4 else "is the King of Clubs"


def _dance_name(state: State, dance: dict[str, Any]) -> str:
    if len(dance["clubs"]) == 1:
        return f"Solo {dance['prestige']}"
    kind = "Line" if state["players"] == 4 else "Couples"
    return f"{kind} {'+'.join(map(str, dance['values']))}"


def _phase_text(state: State) -> str:
    return {
        "scene": "the Nightclubs are being laid out",
        "placement": "Dancers are being placed face down",
        "lead_reveal": "the Lead Dancer reveals one Dancer",
        "swap": "the Lead Dancer's opponent may swap two Dancers",
        "reveal": "the next dance's Dancers are being revealed",
        "moves": "Moves are being played",
        "backups": "Backup Dancers are being revealed for a tie",
        "night_over": "the night is over",
        "over": "the game is over",
    }.get(state["phase"], state["phase"])
