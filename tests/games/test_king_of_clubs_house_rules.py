"""King of Clubs' house rules: each choice decides a position differently, on the tracker
and through replay scripts (docs/examples/king_of_clubs_*.jsonl)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.games.base import RuleError
from companion.games.king_of_clubs import GAME_CLASS
from companion.games.king_of_clubs.rules import R_ORDER
from companion.replay import run_replay

G = GAME_CLASS()
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
COUPLES_CLUBS = [2, 5, 2, 7]


def replay(script: str, rule: str, choice: str) -> Any:
    lines = (EXAMPLES / f"king_of_clubs_{script}.jsonl").read_text(encoding="utf-8").splitlines()
    return run_replay("king_of_clubs", lines, house_rules={rule: choice})


def test_house_rules_are_declared_with_the_rulebooks_sentences():
    rules = {rule.id: rule for rule in G.house_rules}
    assert set(rules) == {"reveal_order", "nine_nights"}
    assert rules["reveal_order"].default == "solo_first"
    assert "Solo Dances before Couples Dances" in rules["reveal_order"].sentence
    assert rules["nine_nights"].default == "last_night"
    assert "up to nine nights" in rules["nine_nights"].sentence
    assert G.start(2)["house_rules"] == {"reveal_order": "solo_first",
                                         "nine_nights": "last_night"}


@pytest.mark.parametrize(("choice", "order"), [("solo_first", [5, 7, 4]),
                                               ("by_value", [4, 5, 7])])
def test_reveal_order_by_the_house_rule(choice: str, order: list[int]) -> None:
    state = G.start(2, "basic", house_rules={"reveal_order": choice})
    state = G.apply(state, {"type": "nightclubs", "values": COUPLES_CLUBS})
    assert [d["prestige"] for d in state["dances"]] == order
    state = G.apply(G.apply(state, {"type": "place", "player": 0}),
                    {"type": "place", "player": 1})
    solo5 = {"type": "reveal", "cards": [{"player": 0, "slot": "d1", "skill": 3},
                                         {"player": 1, "slot": "d1", "skill": 4}]}
    if choice == "solo_first":
        assert G.apply(state, solo5)["results"][0]["winner"] == 1
    else:
        with pytest.raises(RuleError) as info:
            G.apply(state, solo5)
        assert info.value.rule == R_ORDER


def ninth_night(choice: str, points: list[int]) -> dict[str, Any]:
    """The last dance of the ninth night, which B is about to win (Solo 7: B 5 against A 4)."""
    state = G.start(2, "basic", house_rules={"nine_nights": choice})
    state = G.apply(state, {"type": "nightclubs", "values": [4, 5, 6, 7]})
    state.update(night=9, points=points, lead=0,
                 night_winners=[None] * (9 - 1 - sum(points)) + [0, 1] * 4)
    state["night_winners"] = state["night_winners"][:8]
    state["placed"] = [True, True]
    state["revealed"] = [{"d0": 1, "d1": 2, "d2": 3}, {"d0": 2, "d1": 3, "d2": 4}]
    state["results"] = [{"winner": 1, "by": "skill", "skills": [[1], [2]]}] * 3
    state["prestige"] = [0, 15]
    state["dance"], state["phase"] = 3, "reveal"
    return G.apply(state, {"type": "reveal", "cards": [
        {"player": 0, "slot": "d3", "skill": 4}, {"player": 1, "slot": "d3", "skill": 5}]})


@pytest.mark.parametrize(("choice", "points", "winners"), [
    ("last_night", [4, 3], (1,)), ("draw", [4, 3], (0, 1)), ("five_only", [4, 3], (0, 1)),
    ("last_night", [4, 2], (0,)), ("draw", [4, 2], (0,)), ("five_only", [4, 2], (0, 1)),
])
def test_winner_after_nine_nights_by_the_house_rule(choice: str, points: list[int],
                                                    winners: tuple[int, ...]) -> None:
    state = ninth_night(choice, points)
    assert state["over"] and state["points"] == [points[0], points[1] + 1]
    outcome = G.outcome(state)
    assert outcome is not None and outcome.winners == winners
    if len(winners) == 2:
        assert "nobody is crowned" in outcome.reason


# --------------------------------------------------------------------------- replay lines


def test_replay_solo_reveal_applied_solo_first_refused_by_value() -> None:
    solo, by_value = replay("reveal_order", "reveal_order", "solo_first"), \
        replay("reveal_order", "reveal_order", "by_value")
    assert solo.refused == 0 and solo.report[-1] == "line 8: applied: Solo 5: A 3, B 4"
    assert by_value.refused == 1 and by_value.report[-1].startswith(
        "line 8: refused: A's card at Nightclub 2 (5) stays face down: Couples 2+2")


@pytest.mark.parametrize(("script", "expected"), [
    ("nine_nights_tie", {"last_night": (1,), "draw": (0, 1), "five_only": (0, 1)}),
    ("nine_nights_lead", {"last_night": (0,), "draw": (0,), "five_only": (0, 1)}),
])
def test_replay_nine_nights_decided_per_choice(script: str,
                                               expected: dict[str, tuple[int, ...]]) -> None:
    for choice, winners in expected.items():
        result = replay(script, "nine_nights", choice)
        assert result.refused == 0
        outcome = G.outcome(result.final["state"])
        assert outcome is not None and outcome.winners == winners, choice
        assert result.final["state"]["night"] == 9
