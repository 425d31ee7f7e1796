"""Play a simulated table straight into a :class:`~companion.table.Table`, no devices.

The same Table, reconciler and declaration path as the service, with the
physical channels short-circuited: a BoardChange arrives as the board the
stabiliser would commit, taps and buttons as the serial and GPIO paths would
deliver them, declarations through :meth:`Table.declare` as the web API does.
Fast enough for hypothesis playouts; the full path (rendered frames, a serial
pseudo-terminal, mock pins, HTTP) is :mod:`companion.sim.runner`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.base import MalformedAction, RuleError
from companion.sim.world import (
    BoardChange,
    CardTap,
    Declare,
    HandOver,
    PhysicalEvent,
    SeatButton,
    TurnButton,
    load_world,
)
from companion.table import Table


@dataclass
class HeadlessResult:
    tablet: dict[str, Any]
    world_truth: dict[str, Any]
    steps: int
    stalls: int
    refusals: list[str] = field(default_factory=list)
    questions: int = 0  # steps where the table asked which move it saw (answered next step)


def deliver(table: Table, event: PhysicalEvent, refusals: list[str]) -> None:
    """Hand one physical event to the table the way its channel would."""
    if isinstance(event, BoardChange):
        table.board_seen(event.view)
    elif isinstance(event, CardTap):
        table.tap(event.card, event.seat)
    elif isinstance(event, (SeatButton, TurnButton)):
        table.button(getattr(event, "seat", None))
    elif isinstance(event, Declare):
        try:
            table.declare(event.action, "tablet")
        except (RuleError, MalformedAction, ValueError) as err:
            refusals.append(f"{event.action}: {err}")
    elif isinstance(event, HandOver):
        pass  # no camera here: a hand hides nothing from a short-circuited board
    else:  # pragma: no cover - a new event kind must be wired here
        raise TypeError(f"unknown physical event {event!r}")


def play(
    game_name: str,
    players: int,
    variant: str | None = None,
    seed: int = 0,
    max_steps: int = 5000,
) -> HeadlessResult:
    """Run one whole simulated game into an in-memory table and return what the tablet shows."""
    table = Table.open(game_name, None, players, variant, seed, resume=False)
    world = load_world(game_name, table.game, players, variant, seed)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    steps = stalls = questions = 0
    while steps < max_steps and not world.finished():
        before = len(table.history)
        events = world.step(table.public())
        if not events:
            break
        for event in events:
            deliver(table, event, refusals)
        steps += 1
        if len(table.history) == before:
            if any(p.options for p in table.prompts()):
                questions += 1
            else:
                stalls += 1
    return HeadlessResult(table.public(history=None), world.truth(), steps, stalls, refusals, questions)
