"""Swing State Steal's house rule "may a waiting State cheat": both choices on the tracker,
the old variant ``waiting_skips`` read as the house rule, and a replay line
(docs/examples/swing_state_waiting.jsonl) that each choice decides differently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.games.base import RuleError
from companion.games.swing_state import GAME_CLASS
from companion.games.swing_state import rules as R
from companion.replay import run_replay

GAME = GAME_CLASS()
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
CHEAT = [c["id"] for c in GAME.data["cheats"] if c["round"] == 1 and c["value"] == 2][0]


def waiting_red(house: dict[str, str] | None = None, variant: str | None = None) -> dict[str, Any]:
    """Red has finished Round 1 and holds a Cheat card; the Incumbent is about to move."""
    state = GAME.start(3, variant, 0, house)
    state["finished"][1] = True
    state["pawn"][1] = "r2-00"
    state["cheat_held"][1] = 1
    state = GAME.apply(state, {"type": "roll", "player": 0, "value": 1})
    return GAME.apply(state, {"type": "move", "player": 0, "to": state["dest"]})


def test_the_house_rule_quotes_both_sentences():
    (rule,) = GAME.house_rules
    assert rule.id == "waiting" and rule.default == "cheat" and set(rule.choices) == {"cheat",
                                                                                     "skip"}
    assert R.R_WAIT_CHEAT in rule.sentence and R.R_WAIT_SKIP in rule.sentence


def test_a_waiting_state_may_cheat_under_the_default():
    state = waiting_red({"waiting": "cheat"})
    assert state["step"] == "waiting" and GAME.current_player(state) == 1
    assert {"type": "cheat", "player": 1, "card": CHEAT} in GAME.legal_actions(state)
    cheated = GAME.apply(state, {"type": "cheat", "player": 1, "card": CHEAT})
    assert cheated["votes"]["red"] == 2 and GAME.current_player(cheated) == 2


@pytest.mark.parametrize(("house", "variant"), [({"waiting": "skip"}, None),
                                                (None, "waiting_skips")])
def test_a_waiting_state_skips_under_the_house_rule_or_the_old_variant(house, variant):
    state = waiting_red(house, variant)
    assert GAME.waiting_skips(state) and state["house_rules"] == {"waiting": "skip"}
    assert GAME.current_player(state) == 2  # Red's turn is skipped
    with pytest.raises(RuleError) as info:
        GAME.apply(state, {"type": "cheat", "player": 1, "card": CHEAT})
    assert info.value.rule == R.R_WAIT_SKIP
    assert GAME.summary(state)["house rules"] == {
        "May a waiting State cheat?": "No: a waiting State skips its turns and plays no Cheat "
                                      "card"}


def replay(**options: Any) -> Any:
    lines = (EXAMPLES / "swing_state_waiting.jsonl").read_text(encoding="utf-8").splitlines()
    return run_replay("swing_state", lines, **options)


def test_replay_the_waiting_cheat_applied_or_refused():
    cheat = replay(house_rules={"waiting": "cheat"})
    skip = replay(house_rules={"waiting": "skip"})
    old = replay(variant="waiting_skips")
    assert cheat.refused == 0 and cheat.report[-1] == \
        "line 150: applied: Red plays Fake endorsement (green, 1 V)"
    assert skip.refused == 1 and skip.report[-1].startswith(
        "line 150: refused: Red is waiting for the next round.")
    assert old.report == skip.report and old.final["state"] == skip.final["state"] | {
        "variant": "waiting_skips"}
