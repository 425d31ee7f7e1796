"""Swing State Steal on the tablet: forms for every action, values and Details in words, no
chore after the end, few taps per declaration.  The shared checks live in
``test_times_square_forms``."""

from __future__ import annotations

import statistics

import pytest
from forms_checks import RAW, check_forms_over, play_out

from companion.games.swing_state import GAME_CLASS

G = GAME_CLASS()


def test_every_action_type_has_a_form():
    forms = G.action_forms()
    assert set(forms) == {"pick_up_die", "roll", "move", "pass", "cheat", "draw_news",
                          "allocate", "keep_wilds", "advance", "evidence", "respond"}
    assert sorted(t for t, form in forms.items() if form.declared) == ["allocate", "keep_wilds"]
    assert all(form.label and not RAW.search(form.label) for form in forms.values())


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (5, 2)])
def test_a_played_out_game_speaks_in_words(players, seed):
    played = play_out(G, G.start(players), seed, 3000)
    final = played[-1][0]
    assert G.outcome(final) is not None
    counts = check_forms_over(G, played)
    assert counts and statistics.median(counts) <= 3
    assert not [p for p in G.prompts(final) if p.kind == "chore"]
    assert G.phase_label(final) == "Game over"


def test_values_in_the_games_words():
    state = G.start(3)
    label = G.value_label
    assert label(state, "cheat", "card", "cheat-g01") == "Fake endorsement (green, 1 V)"
    assert label(state, "respond", "card", None) == "nothing to play"
    assert label(state, "draw_news", "card", "news-01") == "Movie Star Endorsement"
    assert label(state, "allocate", "piles", {"red": 2, "blue": 0, "green": 1}) == "2 Red, 1 Green"
    assert label(state, "evidence", "card", "ev-18") == "Trump Card (Trump)"
    assert G.phase_label(state) == "Round 1: The Campaign, Incumbent's turn"
