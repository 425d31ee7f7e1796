"""Baron Voodoo on the tablet: every action has a form, every legal value a label in the game's words,
Details in words, and declared actions reached in a few taps (measured on a simulated game)."""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

import pytest

from companion.games.baron_voodoo import BaronVoodoo
from companion.games.baron_voodoo.rules import _HANDLERS
from companion.games.base import Game
from companion.sim.headless import deliver
from companion.sim.world import Declare, load_world
from companion.table import Table

GAME = BaronVoodoo()
RAW = re.compile(r"_|\bNone\b|\bTrue\b|\bFalse\b|\bnull\b|\btrue\b|\bfalse\b")
CARD_ID = re.compile(r"\b(vp|mami|papa|gran|erzulie)\b|"
                     r"\b(white|red|blue|yellow|purple) (offering|steal|swap|protection|change)\b")
"""A face or a Deity by its internal name (the labels say "VP", "Offering", "Mami Wata")."""


def taps(game: Game, state: dict[str, Any], action: dict[str, Any]) -> int | None:
    """Taps to declare ``action`` from the legal actions: the type, one per field that still
    has more than one choice when the page asks it (fields in form order), and the confirm.
    None when the action is not among the legal ones."""
    candidates = [a for a in game.legal_actions(state) if a["type"] == action["type"]]
    count = 2
    for form_field in game.action_forms()[action["type"]].fields:
        name = form_field.name
        values = {json.dumps(a[name], sort_keys=True) for a in candidates if name in a}
        if len(values) > 1:
            count += 1
        candidates = [a for a in candidates if a.get(name) == action.get(name)]
    return count if action in candidates else None


def declared_in_a_simulated_game(name: str, players: int, seed: int
                                 ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(state before, action) for every action the simulated players declared on the tablet."""
    table = Table.open(name, None, players, None, seed, resume=False)
    world = load_world(name, table.game, players, None, seed)
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    refusals: list[str] = []

    def send(events: list[Any]) -> None:
        for event in events:
            if isinstance(event, Declare):
                out.append((table.state, event.action))
            deliver(table, event, refusals)

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


@pytest.fixture(scope="module")
def played() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return declared_in_a_simulated_game("baron_voodoo", 3, 1)


def test_every_action_type_has_a_form_in_the_games_words() -> None:
    forms = GAME.action_forms()
    assert set(forms) == set(_HANDLERS)
    for kind, form in forms.items():
        assert form.label and not RAW.search(form.label), kind
        assert all(f.label and not RAW.search(f.label) for f in form.fields), kind
        json.dumps(form.to_json())
    declared = {k for k, f in forms.items() if f.declared}
    assert declared == {"deities", "take_offering", "change_face", "effect", "extra_turn",
                        "send", "final_group"}
    fields = GAME.action_fields()
    assert fields["effect"] >= {"type", "player", "victim", "die", "new_face", "a", "a_die",
                                "b", "b_die"}
    assert fields["power"] >= {"deity", "line", "edge", "from", "to", "a", "b"}


def legal_values_are_labelled(state: dict[str, Any]) -> int:
    forms, schema = GAME.action_forms(), GAME.action_fields()
    checked = 0
    for action in GAME.legal_actions(state):
        kind = action["type"]
        asked = {f.name for f in forms[kind].fields}
        assert set(action) - {"type"} <= asked, action
        assert set(action) <= schema[kind], action
        for name, value in action.items():
            if name == "type":
                continue
            label = GAME.value_label(state, kind, name, value)
            assert label and not RAW.search(label) and not CARD_ID.search(label), (action, label)
            assert label != str(value), (action, name)
            checked += 1
    return checked


def test_every_legal_value_of_a_played_game_has_a_label(
        played: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    s = GAME.start(3)
    assert legal_values_are_labelled(s)  # the Deities and the layouts
    checked = 0
    for state, _ in played[::3]:
        checked += legal_values_are_labelled(state)
    assert checked > 100


def test_details_in_words_and_no_chore_left_after_the_game(
        played: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    for state, _ in played[::5]:
        text = json.dumps(GAME.summary(state))
        assert not RAW.search(text) and not CARD_ID.search(text), text
        assert not RAW.search(GAME.phase_label(state))
    last = played[-1][0]
    over = last
    for action in GAME.legal_actions(last)[:1]:
        over = GAME.apply(last, action)
    while over["phase"] != "over":
        over = GAME.apply(over, GAME.legal_actions(over)[0])
    assert GAME.phase_label(over) == "Game over"
    assert GAME.prompts(over) and all(p.kind == "info" for p in GAME.prompts(over))
    assert "Result" in GAME.summary(over) and "Now" not in GAME.summary(over)


def test_median_taps_per_declared_action(
        played: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    counts: dict[str, list[int]] = {}
    for state, action in played:
        n = taps(GAME, state, action)
        assert n is not None, action
        counts.setdefault(action["type"], []).append(n)
    every = [n for ns in counts.values() for n in ns]
    assert len(every) >= 30 and {"effect", "send", "take_offering"} <= set(counts)
    assert statistics.median(every) <= 3, counts
