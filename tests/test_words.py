"""Plurals in everything players read: a count says its noun in the right number ("1 Move",
"3 Moves"), never "Move(s)" nor "1 Monkey Points"."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from companion.games.base import counted
from companion.sim.headless import deliver
from companion.sim.world import load_world
from companion.table import Table

GAMES = [("times_square", 2, None, 5), ("king_of_clubs", 2, "basic", 2), ("king_of_clubs", 2, "advanced", 2),
         ("jivecat", 2, None, 5), ("baron_voodoo", 2, None, 4), ("swing_state", 2, None, 5)]
COUNTED_NOUNS = ("Move", "card", "Skull", "Monkey Point", "point", "token", "chip", "Staff chip",
                 "night", "space", "time", "Offering", "Clique card", "Evidence card", "Cheat card",
                 "State", "way", "capture", "place", "die")
ONE_PLURAL = re.compile(r"(?<![\d.:/])\b1 (" + "|".join(re.escape(n) for n in COUNTED_NOUNS) + r")s\b")


def test_counted_says_the_noun_in_the_right_number() -> None:
    assert [counted(n, "Move") for n in (0, 1, 2)] == ["0 Moves", "1 Move", "2 Moves"]
    assert counted(1, "Monkey Point") == "1 Monkey Point"
    assert [counted(n, "die", "dice") for n in (1, 3)] == ["1 die", "3 dice"]


def texts(value: Any) -> Iterator[str]:
    """Every string in a public state's words (keys of the details too)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)


def read(public: dict[str, Any]) -> Iterator[str]:
    """What the tablet shows in words: prompts, history lines, details, phase, outcome."""
    yield from (p["text"] for p in public["prompts"])
    yield from (h["text"] for h in public["history"])
    yield from texts(public["summary"])
    yield from (t for t in (public.get("phase_label"), public.get("reason")) if t)


@pytest.mark.parametrize("game, players, variant, seed", GAMES, ids=[f"{g[0]}-{g[2]}" for g in GAMES])
def test_a_whole_game_says_every_count_in_the_right_number(game: str, players: int,
                                                           variant: str | None, seed: int) -> None:
    table = Table.open(game, None, players, variant, seed, resume=False)
    world = load_world(game, table.game, players, variant, seed)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    wrong: set[str] = set()
    seen = 0
    for _ in range(3000):  # (a game ends in a few hundred steps)
        for text in read(table.public(history=5)):
            seen += 1
            if "(s)" in text or ONE_PLURAL.search(text):
                wrong.add(text)
        if world.finished():
            break
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    assert world.finished() and seen > 100
    assert not wrong, sorted(wrong)[:30]
    table.close()
