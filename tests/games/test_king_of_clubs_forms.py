"""King of Clubs on the tablet: forms for every action, values and Details in words, clocks
for every seat of a four-player game, no chore after the end, few taps per declaration.
The shared checks live in ``test_times_square_forms``."""

from __future__ import annotations

import statistics

import pytest
from forms_checks import RAW, check_forms_over, play_out

from companion.games.king_of_clubs import GAME_CLASS

G = GAME_CLASS()


def test_every_action_type_has_a_form():
    forms = G.action_forms()
    assert set(forms) == {"nightclubs", "place", "lead_reveal", "swap", "pass", "reveal",
                          "move", "clear"}
    assert [t for t, form in forms.items() if form.declared] == ["swap"]
    assert all(form.label and not RAW.search(form.label) for form in forms.values())


@pytest.mark.parametrize(("players", "variant", "seed", "most_taps"), [
    (2, "advanced", 1, 3), (4, "basic", 2, 4)])
def test_a_played_out_game_speaks_in_words(players, variant, seed, most_taps):
    played = play_out(G, G.start(players, variant), seed, 1500)
    final = played[-1][0]
    assert G.outcome(final) is not None
    counts = check_forms_over(G, played)
    assert counts and statistics.median(counts) <= most_taps
    assert not [p for p in G.prompts(final) if p.kind == "chore"]
    assert G.phase_label(final) == "Game over"
    if players == 4:  # every seat acts for its team at some point, so every clock runs
        acting = {G.current_player(state) for state, _ in played} - {None}
        assert acting == {0, 1, 2, 3}


def test_values_in_the_games_words():
    state = G.apply(G.start(2), {"type": "nightclubs", "values": [2, 5, 2, 7]})
    label = G.value_label
    assert label(state, "swap", "slots", ["d0", "d3"]) == "Nightclub 1 (2) and Nightclub 4 (7)"
    assert label(state, "lead_reveal", "skill", 3) == "Dancer 3"
    assert label(state, "lead_reveal", "slot", "backup") == "Backup Dancer"
    assert label(state, "move", "card", "move-robot") == "The Robot"
    assert label(state, "move", "target", 1) == "B (Salsa)"
    assert G.phase_label(state) == "Night 1: place Dancers face down"
