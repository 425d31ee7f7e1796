"""Times Square on the tablet: every action has a form, every legal action's fields are
asked for, every value reads in the game's words, Details have no internal names, no chore
survives the end, and a declared action takes few taps.

"""

from __future__ import annotations

import statistics
from typing import Any

from forms_checks import RAW, check_forms_over, play_out

from companion.games.times_square import GAME_CLASS

GAME = GAME_CLASS()


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
