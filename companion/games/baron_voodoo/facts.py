"""Baron Voodoo: the game's facts as data, and the rule each refusal cites.

The physical game (grid, printed colours, faces, Deities, Offering tokens, VP
thresholds, layouts) is read from ``data/baron_voodoo.json``; the rule quotes are
the Polish rulebook's sentences rendered in English (the Polish is the authority).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

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
    "samedi_powers": "Baron Samedi: the holder wields the powers of all Deities and may use them "
    "in steps A or D of the turn without paying Offering tokens ('podczas kroków A lub D')",
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
    mats: dict[str, Any]
    """Each side's mat beside the board: Caught Souls and Offering token places (see the data)."""

    @property
    def faces(self) -> tuple[str, ...]:
        return tuple(self.face_pips)

    @property
    def colours(self) -> tuple[str, ...]:
        return tuple(self.dice)

    @cached_property
    def _names(self) -> tuple[tuple[str, ...], ...]:
        """Every cell's name by row and column, named once (the reconciler asks millions of
        times in a game whose doubted die it explains move by move)."""
        return tuple(tuple(f"{chr(ord('A') + c)}{r + 1}" for c in range(self.cols)) for r in range(self.rows))

    def at(self, r: int, c: int) -> str | None:
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return self._names[r][c]
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
        mats={k: v for k, v in raw["mats"].items() if not k.startswith("_")},
    )
