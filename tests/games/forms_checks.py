"""Checks of the tablet's form contract shared by every game's form tests.

The page asks for an action type, then narrows the legal actions field by field; these
helpers play games, count the taps that takes and look for raw internal words.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from companion.games.base import Game
from companion.sim.headless import deliver
from companion.sim.world import Declare, load_world
from companion.table import Table

Played = list[tuple[dict[str, Any], dict[str, Any]]]

RAW = re.compile(r"_|\bNone\b|\bTrue\b|\bFalse\b|\bnull\b|\btrue\b|\bfalse\b|[{}\[\]]")
"""Internal names, Python/JSON literals or JSON punctuation in a text meant for players."""


def play_out(game: Game, state: dict[str, Any], seed: int, limit: int,
             prefer: tuple[str, ...] = ()) -> Played:
    """(state, action) pairs of a game played by random legal actions until it ends (or
    ``limit`` actions); action types in ``prefer`` are picked when legal, to reach the end."""
    rng = random.Random(seed)
    played = []
    for _ in range(limit):
        legal = game.legal_actions(state)
        if not legal:
            break
        liked = [a for a in legal if a["type"] in prefer]
        action = rng.choice(liked or legal)
        played.append((state, action))
        state = game.apply(state, action)
    played.append((state, {}))
    return played


def declared_in_a_simulated_game(name: str, players: int, seed: int,
                                 also: tuple[str, ...] = ()) -> Played:
    """(state before, action) for every action the simulated players declared on the tablet,
    and every recorded action of the types in ``also`` however the table told it (what
    players would declare with the camera's view of them lost)."""
    table = Table.open(name, None, players, None, seed, resume=False)
    world = load_world(name, table.game, players, None, seed)
    out: Played = []
    refusals: list[str] = []

    def send(events: list[Any]) -> None:
        for event in events:
            state, known = table.state, len(table.history)
            deliver(table, event, refusals)
            if isinstance(event, Declare):
                out.append((state, event.action))
            elif len(table.history) == known + 1 and table.history[-1].action["type"] in also:
                out.append((state, table.history[-1].action))

    send(world.start())
    for _ in range(3000):
        if world.finished():
            break
        events = world.step(table.public())
        if not events:
            break
        send(events)
    assert world.finished() and refusals == []
    return out


def taps(game: Game, state: dict[str, Any], action: dict[str, Any]) -> int | None:
    """Taps to declare ``action`` on the generic form: the type, one per field that still has
    more than one legal value once the fields before it are picked (a field no remaining
    legal action carries is skipped), and the confirm.  None when ``action`` is not legal."""
    candidates = [a for a in game.legal_actions(state) if a["type"] == action["type"]]
    count = 2
    for form_field in game.action_forms()[action["type"]].fields:
        name = form_field.name
        values = {json.dumps(a[name], sort_keys=True) for a in candidates if name in a}
        if len(values) > 1:
            count += 1
        candidates = [a for a in candidates if a.get(name) == action.get(name)]
    return count if action in candidates else None


def label_problems(game: Game, state: dict[str, Any], action: dict[str, Any],
                   card_id: re.Pattern[str] | None = None) -> list[str]:
    """Fields of ``action`` whose label is raw: an internal id, None/True, JSON, or (with
    ``card_id``) a card's internal id."""
    bad = []
    for name, value in action.items():
        if name == "type":
            continue
        label = game.value_label(state, action["type"], name, value)
        raw = not label or RAW.search(label) or (card_id is not None and card_id.search(label))
        if raw or (isinstance(value, str) and "-" in value and label == value):
            bad.append(f"{action['type']}.{name}={value!r} -> {label!r}")
    return bad


def raw_words(value: Any) -> list[str]:
    """Keys and texts of a Details panel that read as internal names or raw JSON."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if RAW.search(str(key)):
                found.append(str(key))
            found += raw_words(inner)
    elif isinstance(value, list):
        for inner in value:
            found += raw_words(inner)
    elif value is None or isinstance(value, bool):
        found.append(repr(value))
    elif isinstance(value, str) and re.search(r"_|\bNone\b|\bnull\b|\btrue\b|\bfalse\b", value):
        found.append(value)
    return found


def check_forms_over(game: Game, played: Played) -> list[int]:
    """Assert the form contract over a played game; return the taps of each legal declared
    action at every position."""
    forms = game.action_forms()
    schema = game.action_fields()
    counts = []
    for state, _ in played:
        for action in game.legal_actions(state):
            form = forms[action["type"]]
            asked = {f.name for f in form.fields}
            assert set(action) - {"type"} <= asked, (action, asked)
            assert set(action) <= schema[action["type"]]
            assert not label_problems(game, state, action), label_problems(game, state, action)
            if form.declared:
                count = taps(game, state, action)
                assert count is not None, action
                counts.append(count)
        assert not raw_words(game.summary(state)), raw_words(game.summary(state))
        assert not RAW.search(game.phase_label(state)), game.phase_label(state)
    return counts


def legal_values_are_labelled(game: Game, state: dict[str, Any], card_id: re.Pattern[str]) -> int:
    """Assert every legal action's fields are asked for, in the schema and labelled in words
    (never the raw value); return how many values were checked."""
    forms, schema = game.action_forms(), game.action_fields()
    checked = 0
    for action in game.legal_actions(state):
        kind = action["type"]
        asked = {f.name for f in forms[kind].fields}
        assert set(action) - {"type"} <= asked, action
        assert set(action) <= schema[kind], action
        for name, value in action.items():
            if name == "type":
                continue
            label = game.value_label(state, kind, name, value)
            assert not label_problems(game, state, {"type": kind, name: value}, card_id), action
            assert label != str(value), (action, name)
            checked += 1
    return checked


def check_labels_over(game: Game, start: dict[str, Any], played: Played,
                      card_id: re.Pattern[str]) -> None:
    """Every legal value at the start and at every third position of a played game reads in
    words (and enough of them were checked to mean something)."""
    assert legal_values_are_labelled(game, start, card_id)
    checked = sum(legal_values_are_labelled(game, state, card_id) for state, _ in played[::3])
    assert checked > 100


def check_details_and_the_end(game: Game, played: Played, card_id: re.Pattern[str]) -> None:
    """Details and phase names in words along the game; played on to its end, only
    information is left (no chore), and the Details say the result."""
    for state, _ in played[::5]:
        summary = game.summary(state)
        assert not raw_words(summary) and not card_id.search(json.dumps(summary)), summary
        assert not RAW.search(game.phase_label(state))
    over = played[-1][0]
    while over["phase"] != "over":
        over = game.apply(over, game.legal_actions(over)[0])
    assert game.phase_label(over) == "Game over"
    assert game.prompts(over) and all(p.kind == "info" for p in game.prompts(over))
    assert "Result" in game.summary(over) and "Now" not in game.summary(over)


def taps_by_type(game: Game, played: Played) -> dict[str, list[int]]:
    """Taps of each declared action of a played game, by action type."""
    counts: dict[str, list[int]] = {}
    for state, action in played:
        n = taps(game, state, action)
        assert n is not None, action
        counts.setdefault(action["type"], []).append(n)
    return counts
