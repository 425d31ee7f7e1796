"""A whole simulated game through the camera loop, with a camera that cannot read one die's
face all evening: the reader's edge stubbed, everything after it real (the camera loop, its
stabiliser and notices, the table, the referee, the rules, the world's players).

The stub reads the world's table exactly, except that every place holding a piece the test
picks (a die showing one face, say) is doubtful in every frame ("marks unclear: blur?"), as
a die whose marks the reader cannot make out is: never a guess, a place named.  A hand over
the board is a few frames of no board, as the reader gives.  Counted in frames, never time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from companion.games.base import BoardView, Piece, place_names
from companion.sim import headless
from companion.sim.world import BoardChange, HandOver, PhysicalEvent, Tidy, World, load_world
from companion.table import Table
from companion.table.doubt import DOUBT_FRAMES
from companion.vision.pipeline import VisionLoop
from companion.vision.reading import UNDER_A_HAND, Reading

GLARE = "glare?"  # the reader's reason for a place under a lamp's hot spot it tells as glare

Doubts = Callable[[str, tuple[Piece, ...]], bool]
"""Whether the reader cannot make out the place's pieces (its id and what lies there)."""
HAND_FRAMES = 3  # an arm over the board while pieces are moved
EVENT_FRAMES = 4  # frames between two things a player does (a tap, a press, a piece)
THINK_FRAMES = DOUBT_FRAMES + 8  # frames between two steps: a doubt that stands is asked by then
LAST_TRACED = 40  # lines of the game's trace a failing test shows (its last 20 steps unlike the one before)
LINE_SHOWN = 600  # characters of each (a board's every place is long)
GLANCES_AFTER_END = 6  # the world's game over: how often players mend their last move, at most


class _Source:
    def __init__(self) -> None:
        self.taken = 0

    def read(self) -> np.ndarray:
        self.taken += 1
        return np.zeros((1, 1), np.uint8)


class DoubtingReader:
    """The reader's edge: the table as it lies, the places ``doubts`` picks doubtful."""

    def __init__(self, table: Table, doubts: Doubts) -> None:
        self.table = table
        self.doubts = doubts
        self.view: BoardView = {}
        self._names: tuple[object, dict[str, str]] = (None, {})  # the state they were named in
        self.hand = 0  # frames an arm is still over the board
        self.doubted = 0  # frames read with a place doubtful

    def read(self, frame: Any) -> Reading:
        if self.hand:
            self.hand -= 1
            return Reading(None, hand=True)
        doubtful = {p: "marks unclear: blur?" for p, stack in self.view.items()
                    if stack and self.doubts(p, stack)}
        self.doubted += bool(doubtful)
        return Reading({p: s for p, s in self.view.items() if p not in doubtful}, doubtful=doubtful)

    def arm_across_margin(self, frame: Any) -> bool:
        return self.hand > 0

    def spot_label(self, spot: str) -> str:
        """The place as the tablet names it (named again only once the record moved on: the
        camera loop asks every frame, and a game's names cost its whole layout)."""
        state = self.table.state
        if self._names[0] is not state:
            self._names = (state, place_names(self.table.game, state))
        return self._names[1].get(spot, spot)


class LampReader(DoubtingReader):
    """The reader's edge with a lamp's hot spot over ``places`` all evening that it takes for a
    hand (or, ``as_glare``, tells as glare): every frame but an arm's reads the table as it lies
    round them, a hand (or glare) over them."""

    def __init__(self, table: Table, places: frozenset[str], as_glare: bool = False) -> None:
        super().__init__(table, lambda _place, _stack: False)
        self.places = places
        self.as_glare = as_glare

    def read(self, frame: Any) -> Reading:
        if self.hand:
            self.hand -= 1
            return Reading(None, hand=True)
        self.doubted += 1
        return Reading({p: s for p, s in self.view.items() if p not in self.places}, hand=not self.as_glare,
                       doubtful=dict.fromkeys(self.places, GLARE if self.as_glare else UNDER_A_HAND))


@dataclass
class Played:
    tablet: dict[str, Any]
    truth: dict[str, Any]
    steps: int
    doubted_frames: int
    asked: list[str] = field(default_factory=list)  # the doubts' warnings the players saw
    alike: list[str] = field(default_factory=list)  # prompts with two buttons worded alike
    refusals: list[str] = field(default_factory=list)
    last: list[str] = field(default_factory=list)  # the game's last steps as traced, for a failure's message


def play_doubted(game_name: str, players: int, variant: str | None, seed: int, doubts: Doubts,
                 temperament: str | None = "passive", max_steps: int = 600,
                 trace: list[str] | None = None, lamp: frozenset[str] = frozenset(),
                 lamp_as_glare: bool = False) -> Played:
    """Play one whole game with ``doubts``'s places unreadable all evening (or, given ``lamp``,
    those places under a lamp's hot spot the reader takes for a hand, or tells as glare)."""
    table = Table.open(game_name, None, players, variant, seed, resume=False)
    world: World = load_world(game_name, table.game, players, variant, seed)
    if temperament is not None:
        world.set_temperament(temperament)
    reader = LampReader(table, lamp, lamp_as_glare) if lamp else DoubtingReader(table, doubts)
    loop = VisionLoop(table, _Source(), reader, fps=0)  # type: ignore[arg-type]
    refusals: list[str] = []

    def frames(count: int) -> None:
        for _ in range(count):
            loop.step()

    def deliver(event: PhysicalEvent) -> None:
        if isinstance(event, BoardChange):  # to the camera; the rest as the headless table takes them
            reader.hand = HAND_FRAMES
            reader.view = dict(event.view)
        elif isinstance(event, HandOver):
            reader.hand = event.frames
        elif not isinstance(event, Tidy):  # a table without faults has nothing to tidy
            headless.deliver(table, event, refusals)
        frames(EVENT_FRAMES + (reader.hand if isinstance(event, (BoardChange, HandOver)) else 0))

    asked: list[str] = []
    alike: list[str] = []
    last: deque[str] = deque(maxlen=LAST_TRACED)
    for event in world.start():
        deliver(event)
    frames(THINK_FRAMES)
    steps = after_end = 0
    while steps < max_steps:
        tablet = table.public()
        if tablet["over"]:
            break
        if world.finished():
            after_end += 1
            if after_end > GLANCES_AFTER_END:
                break
        asked += [str(p["text"]) for p in tablet["prompts"]
                  if str(p.get("text", "")).startswith("Can't read") and p["text"] not in asked]
        for prompt in tablet["prompts"]:  # a person tells buttons apart by their words alone
            buttons = [world.wording().option(o) for o in prompt.get("options") or []]
            if len(set(buttons)) < len(buttons) and prompt["text"] not in alike:
                alike.append(str(prompt["text"]))
        events = world.act(tablet)
        shown = tablet["history"][-1]["text"] if tablet["history"] else None
        step = [f"#{tablet['history_total']} {shown} | " + " || ".join(
            f"{p['kind']}: {p['text']}" + (f" {p['options']}" if p.get("options") else "")
            for p in tablet["prompts"]), f"   -> {events}"]
        cut = [line[:LINE_SHOWN] for line in step]
        if cut != list(last)[-2:]:  # (a step like the last one left out: a wedge's window reaches back)
            last.extend(cut)
        if trace is not None:
            trace.extend(step)
        if not events and world.finished():
            frames(THINK_FRAMES)
            continue
        for event in events:
            deliver(event)
        steps += 1
        frames(THINK_FRAMES)
    return Played(table.public(history=None), world.truth(), steps, reader.doubted, asked, alike, refusals,
                  list(last))


def nightclubs_under_glare() -> tuple[Table, dict[str, Any], Callable[[int], None]]:
    """King of Clubs at the night's start with two Nightclub dice under glare: more readings of
    the night than the tablet shows as moves.  The table, the true move, and ``frames(n)``
    that hands the table n frames of that doubtful board."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 5, resume=False)
    opened = table.clock()
    table.clock = lambda: opened  # (its clocks stand still: no verdict waits on the wall clock)
    game = table.game
    clubs = {"type": "nightclubs", "values": [6, 4, 2, 2]}
    view = game.board_view(game.apply(table.state, clubs))
    glare = {"club2": "marks unclear", "club3": "marks unclear"}
    partial = {p: s for p, s in view.items() if p not in glare}

    def frames(count: int) -> None:
        for _ in range(count):
            table.frame_taken()
            table.board_doubted(partial, glare)

    return table, clubs, frames
