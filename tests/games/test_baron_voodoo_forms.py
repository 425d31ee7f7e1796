"""Baron Voodoo on the tablet: every action has a form, every legal value a label in the game's words,
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

from companion.games.baron_voodoo import BaronVoodoo
from companion.games.baron_voodoo.rules import _HANDLERS

GAME = BaronVoodoo()
CARD_ID = re.compile(r"\b(vp|mami|papa|gran|erzulie)\b|"
                     r"\b(white|red|blue|yellow|purple) (offering|steal|swap|protection|change)\b")
"""A face or a Deity by its internal name (the labels say "VP", "Offering", "Mami Wata")."""


@pytest.fixture(scope="module")
def played() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    # the mats show most step C moves now; what players declare when the mats are out of
    # view (a mat covered, a camera that sees the grid only) is measured too
    return declared_in_a_simulated_game("baron_voodoo", 3, 1, also=("effect", "send",
                                                                   "change_face", "extra_turn"))


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
    assert len(every) >= 30 and {"effect", "take_offering", "send"} <= set(counts)
    assert statistics.median(every) <= 3, counts
