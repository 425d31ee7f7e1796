"""Times Square on the tablet: every action has a form, every legal action's fields are
asked for, every value reads in the game's words, Details have no internal names, no chore
survives the end, and a declared action takes few taps.

The helpers here (``play_out``, ``taps``, ``label_problems``, ``raw_words``) are shared by
the King of Clubs and Swing State form tests, which import them from this module.
"""

from __future__ import annotations

import json
import random
import re
import statistics
from typing import Any

from companion.games.base import Game
from companion.games.times_square import GAME_CLASS

GAME = GAME_CLASS()


def play_out(game: Game, state: dict[str, Any], seed: int, limit: int,
             prefer: tuple[str, ...] = ()) -> list[tuple[dict[str, Any], dict[str, Any]]]:
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


def taps(game: Game, state: dict[str, Any], action: dict[str, Any]) -> int:
    """Taps to enter ``action`` on the generic form: the type, one per field that still has
    more than one legal value once the fields before it are picked, and the confirm."""
    legal = [a for a in game.legal_actions(state) if a["type"] == action["type"]]
    count = 2
    for field in game.action_forms()[action["type"]].fields:
        values = {json.dumps(a.get(field.name), sort_keys=True) for a in legal}
        if len(values) > 1:
            count += 1
        legal = [a for a in legal if a.get(field.name) == action.get(field.name)]
    assert action in legal, action
    return count


RAW = re.compile(r"_|\bNone\b|\bTrue\b|\bFalse\b|\bnull\b|\btrue\b|\bfalse\b|[{}\[\]]")


def label_problems(game: Game, state: dict[str, Any], action: dict[str, Any]) -> list[str]:
    """Fields of ``action`` whose label is raw: an internal id, None/True, JSON."""
    bad = []
    for name, value in action.items():
        if name == "type":
            continue
        label = game.value_label(state, action["type"], name, value)
        if not label or RAW.search(label) or (isinstance(value, str) and "-" in value
                                               and label == value):
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


def check_forms_over(game: Game, played: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[int]:
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
                counts.append(taps(game, state, action))
        assert not raw_words(game.summary(state)), raw_words(game.summary(state))
        assert not RAW.search(game.phase_label(state)), game.phase_label(state)
    return counts


# --------------------------------------------------------------------------- Times Square


def played_game(seed: int = 3) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return play_out(GAME, GAME.start(2), seed, 400, prefer=("trade", "pass"))


def test_every_action_type_has_a_form_in_the_games_words():
    forms = GAME.action_forms()
    assert set(forms) == set(GAME.action_fields()) == {"setup", "play", "lure", "trade",
                                                       "pass", "charlie"}
    assert [f for f, form in forms.items() if form.declared] == ["pass"]
    assert all(form.label and not RAW.search(form.label) for form in forms.values())


def test_a_played_out_game_speaks_in_words_and_ends_without_chores():
    played = played_game()
    final = played[-1][0]
    assert GAME.outcome(final) is not None
    counts = check_forms_over(GAME, played)
    assert counts and statistics.median(counts) <= 3
    assert not [p for p in GAME.prompts(final) if p.kind == "chore"]
    assert GAME.phase_label(final) == "Game over"


def test_values_read_as_the_table_names_them():
    state = played_game()[5][0]
    label = GAME.value_label
    assert label(state, "lure", "figure", "bodyguard_left") == "Left Bodyguard"
    assert label(state, "trade", "cards", ["hal-3a", "deb-sewer-a"]) == "Hal 3, Deb sewer"
    assert label(state, "trade", "cards", []) == "no cards (a pass)"
    assert label(state, "play", "steps", [{"cards": ["sue-1a", "sue-1b"], "figure": "group",
                                           "direction": 1}]) == \
        "Sue+Sue: Sue and both Bodyguards toward B"
    assert label(state, "setup", "hal_player", 1) == "B"
    assert label(state, "charlie", "spaces", 0) == "leave him where he is"


def test_phase_names_the_step_of_the_turn():
    state = GAME.apply(GAME.start(2), {"type": "setup", "hal_player": 0})
    assert GAME.phase(state) == "cards" and GAME.phase_label(state) == \
        "A's turn: play cards, lure, trade or pass"
    state["pos"].update(deb=1)  # Deb on A's entrance: Charlie is due after A's pass
    asked = GAME.apply(state, {"type": "pass", "player": 0})
    assert GAME.phase(asked) == "charlie" and GAME.current_player(asked) == 0
    assert GAME.phase_label(asked) == "A's turn: move Champagne Charlie"
    done = GAME.apply(asked, {"type": "charlie", "player": 0, "spaces": 1})
    assert GAME.phase_label(done).startswith("B's turn") and GAME.current_player(done) == 1
