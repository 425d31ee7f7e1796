"""Jivecat on the tablet: every action has a form, every legal value a label in the game's words,
Details in words, and declared actions reached in a few taps (measured on a simulated game)."""

from __future__ import annotations

import json
import re
import statistics
from typing import Any

import pytest
from forms_checks import (
    RAW,
    check_details_and_the_end,
    check_labels_over,
    declared_in_a_simulated_game,
    taps_by_type,
)

from companion.games.jivecat import JivecatGame

GAME = JivecatGame()
CARD_ID = re.compile(r"\b(cheval|voodoo|zombie|rada|jivecat|skull|trend)-\d")


@pytest.fixture(scope="module")
def played() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    # the table reads nearly every move now (Trend powers from the mats, the first player from
    # the first Starter chip): the Trend powers it read are what players would
    # declare with the camera's view of them lost, and the first player is declared at the start
    also = ("trend_power",)
    start = GAME.start(3)
    return [(start, {"type": "first_player", "player": 1})] + \
        declared_in_a_simulated_game("jivecat", 3, 1, also) + \
        declared_in_a_simulated_game("jivecat", 3, 2, also)


def test_every_action_type_has_a_form_in_the_games_words() -> None:
    forms = GAME.action_forms()
    assert set(forms) == set(GAME.handlers)
    for kind, form in forms.items():
        assert form.label and not RAW.search(form.label), kind
        assert all(f.label and not RAW.search(f.label) for f in form.fields), kind
        json.dumps(form.to_json())
    declared = {k for k, f in forms.items() if f.declared}
    assert declared == {"first_player", "trend_power", "end_turn"}
    fields = GAME.action_fields()
    assert fields["reveal"] >= {"type", "row", "card", "code", "slot"}
    assert fields["lay_zombie"] >= {"code", "slot", "card"}


def test_every_legal_value_of_a_played_game_has_a_label(
        played: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    check_labels_over(GAME, GAME.start(3), played, CARD_ID)


def test_details_in_words_and_no_chore_left_after_the_game(
        played: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    check_details_and_the_end(GAME, played, CARD_ID)


def test_median_taps_per_declared_action(
        played: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    counts = taps_by_type(GAME, played)
    every = [n for ns in counts.values() for n in ns]
    assert len(every) >= 10 and {"first_player", "trend_power"} <= set(counts)
    assert statistics.median(every) <= 3, counts
