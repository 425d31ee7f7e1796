"""Baron Voodoo's house rules: each reading decides a position differently, in the rules and in
replay (the scripts are docs/examples/baron_voodoo_house_<rule>.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.games.baron_voodoo import BaronVoodoo
from companion.games.baron_voodoo.facts import RULES
from companion.games.base import RuleError
from companion.replay import run_replay

GAME = BaronVoodoo()
F = GAME.facts
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
POLISH = Path("/work/shared/rules/baron-voodoo.pl.txt")


def started(players: int = 2, variant: str = "balanced",
            house: dict[str, str] | None = None) -> dict[str, Any]:
    state = GAME.start(players, variant, house_rules=house)
    return GAME.apply(state, {"type": "setup", "layout": "balanced"})


def on_board(state: dict[str, Any], cells: dict[str, list[tuple[str, str]]]) -> dict[str, Any]:
    new = json.loads(json.dumps(state))
    new["board"] = {cell: [list(d) for d in cells.get(cell, [])] for cell in F.cells}
    return new


def with_rule(state: dict[str, Any], rule: str, choice: str) -> dict[str, Any]:
    new = json.loads(json.dumps(state))
    new["house_rules"] = {**new.get("house_rules", {}), rule: choice}
    return new


def seat_to_move(state: dict[str, Any], seat: int) -> dict[str, Any]:
    new = json.loads(json.dumps(state))
    side = GAME._side(new, seat)
    new["turn"].update(side=side, actor=seat, default=seat)
    return new


def power(seat: int, deity: str, **params: str) -> dict[str, Any]:
    return {"type": "power", "player": seat, "deity": deity, **params}


def test_every_house_rule_quotes_the_polish_rulebook_and_defaults_to_it() -> None:
    assert [r.id for r in GAME.house_rules] == ["other_powers", "legba_line", "white_majority",
                                                "samedi_powers", "team_protection",
                                                "samedi_goes_to"]
    text = " ".join(POLISH.read_text(encoding="utf-8").replace("**", "").split()) \
        if POLISH.exists() else ""
    for rule in GAME.house_rules:
        assert rule.default in rule.choices and len(rule.choices) == 2 and rule.title
        if text:
            assert rule.sentence in text, rule.id
        assert rule.translation and rule.translation != rule.sentence, rule.id  # English beside it
    assert GAME.start(2)["house_rules"] == {r.id: r.default for r in GAME.house_rules}


def test_another_deitys_power_for_one_offering_even_if_nobody_plays_it() -> None:
    state = started()
    assert "red" not in state["colours"], "nobody plays Papa Legba at two"
    move = power(0, "papa_legba", **{"from": "C4", "to": "D4"})
    paid = GAME.apply(state, move)
    assert paid["board"]["D4"] and paid["offerings"][0] == state["offerings"][0] - 1
    assert "papa_legba" in GAME.usable_powers(state, 0)
    in_play = with_rule(state, "other_powers", "in_play")
    with pytest.raises(RuleError) as err:
        GAME.apply(in_play, move)
    assert err.value.rule == RULES["power_in_play"]
    assert "papa_legba" not in GAME.usable_powers(in_play, 0)
    assert not any(a["type"] == "power" and a["deity"] == "papa_legba"
                   for a in GAME.legal_actions(in_play))


def test_papa_legba_in_its_row_or_in_its_row_or_column() -> None:
    state = on_board(started(), {"B2": [("white", "vp"), ("red", "vp")], "F2": [("blue", "vp")]})
    column = power(0, "papa_legba", **{"from": "B2", "to": "B7"})
    with pytest.raises(RuleError, match="same row as B2"):
        GAME.apply(state, column)
    assert GAME.apply(state, power(0, "papa_legba", **{"from": "B2", "to": "G2"}))
    either = with_rule(state, "legba_line", "row_or_column")
    assert GAME.apply(either, column)["board"]["B7"] == [["red", "vp"]]
    assert {a.get("to") for a in GAME.legal_actions(either)
            if a.get("deity") == "papa_legba" and a.get("from") == "B2"} >= {"B7", "G2"}


def final_with(underworld: list[list[list[str]]], rule: str | None = None) -> dict[str, Any]:
    """Two sides at the final scoring with nothing caught, the Underworlds given."""
    state = started()
    if rule:
        state = with_rule(state, "white_majority", rule)
    state.update(phase="final", turn=None, final_done=[False, False], underworld=underworld,
                 caught=[[], []])
    for seat in (0, 1):
        state = GAME.apply(state, {"type": "final_group", "player": seat, "dice": []})
    return state


def test_white_dice_in_the_colour_majorities_or_not() -> None:
    zones = [[["white", "vp"], ["white", "swap"]], [["white", "offering"], ["blue", "vp"]]]
    plain = final_with(zones)
    assert plain["phase"] == "over" and plain["vp"] == [0, 3], "blue only"
    white = final_with(zones, "yes")
    assert white["vp"] == [3, 3]
    assert {"side": 0, "why": "most white (2)", "vp": 3} in white["bonuses"]


def after_capture(state: dict[str, Any], seat: int, face: str, victim_colour: str = "yellow"
                  ) -> dict[str, Any]:
    """``seat`` has captured a ``face`` die by jumping A1 -> A3 over A2."""
    colour = state["colours"][seat]
    board = on_board(state, {"A1": [(colour, "vp")], "A2": [(victim_colour, face)],
                             "G7": [("purple", "vp")], "E5": [("blue", "vp")]})
    board = seat_to_move(board, seat)
    return GAME.apply(board, {"type": "capture", "player": seat, "from": "A1", "to": "A3"})


def test_baron_samedi_powers_once_a_turn_or_once_a_step() -> None:
    state = after_capture(started(), 0, "vp", "blue")
    state["samedi"] = 0
    state["turn"]["power_used"] = True  # one was used in step A
    second = power(0, "mami_wata", line="A", edge="bottom")
    with pytest.raises(RuleError, match="already used"):
        GAME.apply(state, second)
    assert not any(a["type"] == "power" for a in GAME.legal_actions(state))
    step = with_rule(state, "samedi_powers", "step")
    done = GAME.apply(step, second)
    assert done["board"]["A7"] == [["yellow", "vp"]] and done["turn"]["side"] == 1
    assert any(a["type"] == "power" for a in GAME.legal_actions(step))
    step["samedi"] = None
    with pytest.raises(RuleError, match="already used"):
        GAME.apply(step, second)


def test_team_mates_protection_blocks_a_steal_from_the_shared_board_or_not() -> None:
    state = started(4, "team")
    assert state["colours"][:2] == ["yellow", "red"] and state["colours"][2] == "blue"
    state = after_capture(state, 2, "steal", "purple")
    state["underworld"][0] = [["white", "vp"]]
    state["protection"]["yellow"] = True  # seat 0 protected, seat 1 (red) not
    steal = {"type": "effect", "player": 2, "victim": 0, "die": ["white", "vp"]}
    with pytest.raises(RuleError, match="protected"):
        GAME.apply(state, steal)
    both = with_rule(state, "team_protection", "both")
    taken = GAME.apply(both, steal)
    assert taken["underworld"][0] == [] and ["white", "vp"] in taken["caught"][1]
    both["protection"]["red"] = True
    with pytest.raises(RuleError, match="protected"):
        GAME.apply(both, steal)


def test_baron_samedi_to_the_most_white_dice_sent_or_held() -> None:
    state = after_capture(started(), 0, "steal", "blue")
    state["underworld"][1] = [["white", "vp"]]
    state["white_sent"] = [0, 1]
    state["samedi"] = 1
    steal = {"type": "effect", "player": 0, "victim": 1, "die": ["white", "vp"]}
    sent = GAME.apply(state, steal)
    assert sent["samedi"] == 1, "a steal takes back no die Gran Bwa sent"
    held = GAME.apply(with_rule(state, "samedi_goes_to", "held"), steal)
    assert held["samedi"] is None and any("back to the supply" in n for n in held["notes"])
    sends = after_capture(started(), 0, "vp", "white")
    sends["caught"][0] = [["white", "vp"], ["yellow", "vp"]]
    sends["turn"]["captured_index"] = 0
    scored = GAME.apply(sends, {"type": "send", "player": 0,
                                "dice": [["white", "vp"], ["yellow", "vp"]]})
    assert scored["white_sent"] == [1, 0] and scored["samedi"] == 0


# --------------------------------------------------------------------------- replay lines

REFUSALS = [
    ("other_powers", "any", "in_play"),
    ("legba_line", "row_or_column", "row"),
    ("samedi_powers", "step", "turn"),
    ("team_protection", "both", "either"),
]


@pytest.mark.parametrize(("rule", "applied_under", "refused_under"), REFUSALS)
def test_replay_line_applied_under_one_choice_and_refused_under_the_other(
        rule: str, applied_under: str, refused_under: str) -> None:
    lines = (EXAMPLES / f"baron_voodoo_house_{rule}.jsonl").read_text().splitlines()
    yes = run_replay("baron_voodoo", lines, house_rules={rule: applied_under})
    no = run_replay("baron_voodoo", lines, house_rules={rule: refused_under})
    last = f"line {len(lines)}: "
    assert yes.refused == 0 and yes.report[-1].startswith(last + "applied: ")
    assert no.refused == 1 and no.report[-1].startswith(last + "refused: ")
    assert no.report[:-1] == yes.report[:-1], "only the last line is decided differently"
    assert yes.final["house_rules"][rule] == applied_under


def test_replay_the_baron_samedi_token_after_a_steal_sent_or_held() -> None:
    lines = (EXAMPLES / "baron_voodoo_house_samedi_goes_to.jsonl").read_text().splitlines()
    sent = run_replay("baron_voodoo", lines, house_rules={"samedi_goes_to": "sent"})
    held = run_replay("baron_voodoo", lines, house_rules={"samedi_goes_to": "held"})
    assert sent.refused == held.refused == 0
    assert sent.report[-1] == held.report[-1] and "Steal: white" in sent.report[-1]
    assert (sent.final["state"]["samedi"], held.final["state"]["samedi"]) == (0, 1)


def test_replay_a_whole_game_scored_with_and_without_the_white_majority() -> None:
    lines = (EXAMPLES / "baron_voodoo_house_white_majority.jsonl").read_text().splitlines()
    plain = run_replay("baron_voodoo", lines, house_rules={"white_majority": "no"})
    white = run_replay("baron_voodoo", lines, house_rules={"white_majority": "yes"})
    assert plain.refused == white.refused == 0
    assert plain.final["state"]["phase"] == white.final["state"]["phase"] == "over"
    assert [b + 1 for b in plain.final["state"]["vp"]] == white.final["state"]["vp"]
    assert not any("white" in b["why"] for b in plain.final["state"]["bonuses"])
