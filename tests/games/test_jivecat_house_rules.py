"""Jivecat's house rules: each reading decides a position differently, in the rules and in replay."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from companion.games.base import RuleError
from companion.games.jivecat import JivecatGame
from companion.games.jivecat.facts import R, snake
from companion.replay import run_replay

GAME = JivecatGame()
RED, BLUE = 0, 1
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def started(house: dict[str, str] | None = None) -> dict[str, Any]:
    """Two players after set-up (Red on C24 and L04), with the table's house rules."""
    s = GAME.start(2, house_rules=house)
    starters = sorted(k for k, v in GAME.board.lizards.items() if v.kind == "starter")
    for seat in snake(0, 2):
        s = GAME.apply(s, {"type": "place_starter", "player": seat, "spot": starters.pop(0)})
    for row in ("skull", "trend"):
        for i in (1, 2, 3):
            s = GAME.apply(s, {"type": "reveal", "row": row, "card": f"{row}-{i:02d}"})
    return s


def cheval(src: str, dst: str, portals: int = 0) -> dict[str, Any]:
    return {"type": "cheval", "player": RED, "card": "cheval-5", "from": src, "to": dst,
            "portals": portals}


def test_every_house_rule_has_its_choices_default_and_the_rulebook_sentence() -> None:
    rulebook = (Path("/work/shared/rules/jivecat-voodoo-lounge.txt"))
    text = rulebook.read_text() if rulebook.exists() else ""
    assert [r.id for r in GAME.house_rules] == ["cheval_path", "moved_hipster",
                                                "skull_cards_pay", "cheval_portals"]
    for rule in GAME.house_rules:
        assert rule.default in rule.choices and len(rule.choices) == 2
        assert rule.title and rule.sentence.endswith(".")
        if text:
            assert rule.sentence in " ".join(text.split()), rule.id
    assert GAME.start(2)["house_rules"] == {r.id: r.default for r in GAME.house_rules}
    with pytest.raises(ValueError, match="one of"):
        GAME.start(2, house_rules={"cheval_path": "teleport"})


def test_cheval_path_any_two_steps_or_a_jump_in_a_line() -> None:
    assert "C17" in GAME.board.jumps("C24") and "C17" not in GAME.board.jumps("C24", line=True)
    path = GAME.apply(started(), cheval("C24", "C17"))
    assert path["board"]["C17"] == RED and "C24" not in path["board"]
    line = started({"cheval_path": "line_jump"})
    with pytest.raises(RuleError) as err:
        GAME.apply(line, cheval("C24", "C17"))
    assert "in a line" in err.value.reason and err.value.rule.startswith(R["cheval"])
    straight = GAME.apply(line, cheval("C24", "C22"))  # C24 -> C23 -> C22 runs on in a line
    assert straight["board"]["C22"] == RED
    options = {(a["from"], a["to"]) for a in GAME.legal_actions(line) if a["type"] == "cheval"}
    assert ("C24", "C22") in options and ("C24", "C17") not in options


def test_a_chip_moved_onto_a_hipster_scores_only_under_its_house_rule() -> None:
    assert GAME.board.lizards["C22"].kind == "hipster"
    plain = GAME.apply(started(), cheval("C24", "C22"))
    assert plain["mp"][RED] == 0
    scoring = GAME.apply(started({"moved_hipster": "scores"}), cheval("C24", "C22"))
    assert scoring["mp"][RED] == 1
    assert any("Hipster" in n and "house rule" in n for n in scoring["notices"])


def test_skull_cards_pay_on_a_drink_or_on_any_chip_that_lands() -> None:
    bokor = GAME.skull_cards["skull-01"]
    assert bokor["number"] == GAME.board.lizards["C14"].number == 3
    drink = GAME.apply(started(), cheval("C24", "C14"))
    assert drink["skulls"][RED] == 3 and "skull-01" in drink["skull_row"]
    landed = GAME.apply(started({"skull_cards_pay": "any_chip"}), cheval("C24", "C14"))
    assert landed["skulls"][RED] == 6 and landed["skull_row"][2] is None
    assert landed["skull_discard"] == ["skull-01"]


def test_one_or_two_portals_on_one_cheval() -> None:
    def near_portal(house: dict[str, str] | None) -> dict[str, Any]:
        s = started(house)
        for card, spot in (("voodoo-9", "L08"), ("voodoo-4", "L14"), ("voodoo-6", "L17")):
            s = GAME.apply(s, {"type": "buy", "player": RED, "cards": [card], "spot": spot})
        return s

    assert GAME.jump_cost("L17", "L25") == 2
    one = near_portal(None)
    before = copy.deepcopy(one)
    with pytest.raises(RuleError) as err:
        GAME.apply(one, cheval("L17", "L25", portals=2))
    assert one == before and err.value.rule == R["cheval_portal"]
    assert not any(a["type"] == "cheval" and a["to"] == "L25" for a in GAME.legal_actions(one))
    two = near_portal({"cheval_portals": "two"})
    moved = GAME.apply(two, cheval("L17", "L25", portals=2))
    assert moved["board"]["L25"] == RED and moved["skulls"][RED] == two["skulls"][RED] - 2
    assert any(a["type"] == "cheval" and a["to"] == "L25" and a["portals"] == 2
               for a in GAME.legal_actions(two))


@pytest.mark.parametrize(("rule", "applied_under", "refused_under"), [
    ("cheval_path", "any_path", "line_jump"),
    ("cheval_portals", "two", "one"),
])
def test_replay_line_applied_under_one_choice_and_refused_under_the_other(
        rule: str, applied_under: str, refused_under: str) -> None:
    lines = (EXAMPLES / f"jivecat_house_{rule}.jsonl").read_text().splitlines()
    yes = run_replay("jivecat", lines, house_rules={rule: applied_under})
    no = run_replay("jivecat", lines, house_rules={rule: refused_under})
    assert yes.refused == 0 and yes.report[-1].startswith(f"line {len(lines)}: applied: Red casts "
                                                          "Cheval")
    assert no.refused == 1 and no.report[-1].startswith(f"line {len(lines)}: refused:")
    assert yes.final["house_rules"][rule] == applied_under
    assert no.final["house_rules"][rule] == refused_under


@pytest.mark.parametrize(("rule", "plain", "changed", "field", "values"), [
    ("moved_hipster", "no_point", "scores", "mp", (0, 1)),
    ("skull_cards_pay", "drink", "any_chip", "skulls", (3, 6)),
])
def test_replay_line_scored_differently_under_each_choice(
        rule: str, plain: str, changed: str, field: str, values: tuple[int, int]) -> None:
    lines = (EXAMPLES / f"jivecat_house_{rule}.jsonl").read_text().splitlines()
    first = run_replay("jivecat", lines, house_rules={rule: plain})
    second = run_replay("jivecat", lines, house_rules={rule: changed})
    assert first.refused == second.refused == 0
    assert first.report[-1] == second.report[-1]
    assert (first.final["state"][field][RED], second.final["state"][field][RED]) == values
