"""Times Square's house rules: each choice decides a position differently, on the tracker
and through a replay script (docs/examples/times_square_<rule>.jsonl)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.games.base import RuleError
from companion.games.times_square import GAME_CLASS
from companion.games.times_square import rules as ts
from companion.replay import run_replay

GAME = GAME_CLASS()
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def at(house: dict[str, str] | None = None, turn: int = 0, **pos: int) -> dict[str, Any]:
    """A set-up state under these house rules, figures moved to ``pos``."""
    state = GAME.apply(GAME.start(2, None, 0, house), {"type": "setup", "hal_player": 0})
    state["pos"].update(pos)
    state["turn"] = turn
    return state


def joker(state: dict[str, Any], card: str, figure: str, direction: int) -> dict[str, Any]:
    return {"type": "play", "player": state["turn"],
            "steps": [{"cards": [card], "figure": figure, "direction": direction}]}


def replay(rule: str, choice: str) -> Any:
    lines = (EXAMPLES / f"times_square_{rule}.jsonl").read_text(encoding="utf-8").splitlines()
    return run_replay("times_square", lines, house_rules={rule: choice})


def test_house_rules_are_declared_with_the_rulebooks_sentences():
    rules = {rule.id: rule for rule in GAME.house_rules}
    assert set(rules) == {"zero_trade", "deb_on_sue", "supply_end"}
    assert rules["zero_trade"].default == "allowed" and "any number of cards" in \
        rules["zero_trade"].sentence
    assert rules["deb_on_sue"].default == "not_between"
    assert rules["supply_end"].default == "sue_side" and "twice exhausted" in \
        rules["supply_end"].sentence
    assert GAME.start(2)["house_rules"] == {"zero_trade": "allowed", "deb_on_sue": "not_between",
                                            "supply_end": "sue_side"}
    with pytest.raises(ValueError):
        GAME.start(2, house_rules={"supply_end": "coin"})


# --------------------------------------------------------------------------- both choices


def test_zero_trade_allowed_is_a_pass_refused_is_refused():
    allowed = at({"zero_trade": "allowed"})
    after = GAME.apply(allowed, {"type": "pass", "player": 0})
    assert after["turn"] == 1 and after["hands"] == [8, 8] and after["supply"] == 39
    assert GAME.apply(allowed, {"type": "trade", "player": 0, "cards": []})["turn"] == 1
    assert {"type": "pass", "player": 0} in GAME.legal_actions(allowed)
    refused = at({"zero_trade": "refused"})
    with pytest.raises(RuleError) as info:
        GAME.apply(refused, {"type": "pass", "player": 0})
    assert info.value.rule == ts.R_TRADE
    assert all(a["type"] != "pass" for a in GAME.legal_actions(refused))


def test_deb_on_sues_space_counts_as_between_only_under_the_house_rule():
    strict = at({"deb_on_sue": "not_between"}, sue=8, deb=8)
    with pytest.raises(RuleError) as info:
        GAME.apply(strict, joker(strict, "deb-2a", "hal", -1))
    assert info.value.rule == ts.R_DEB_POSITION
    loose = at({"deb_on_sue": "between"}, sue=8, deb=8)
    assert GAME.apply(loose, joker(loose, "deb-2a", "hal", -1))["pos"]["hal"] == 5
    # Deb as a joker on Sue: Sue may end on Deb's space only when that counts as between
    strict = at({"deb_on_sue": "not_between"}, sue=8, deb=6, bodyguard_left=3,
                bodyguard_right=12)
    with pytest.raises(RuleError) as info:
        GAME.apply(strict, joker(strict, "deb-2a", "sue", -1))
    assert info.value.rule == ts.R_DEB_SUE
    loose = at({"deb_on_sue": "between"}, sue=8, deb=6, bodyguard_left=3, bodyguard_right=12)
    assert GAME.apply(loose, joker(loose, "deb-2a", "sue", -1))["pos"]["sue"] == 6


@pytest.mark.parametrize(("choice", "winners", "word"), [
    ("sue_side", (0,), "Saucy Sue"), ("charlie_side", (1,), "Champagne Charlie"),
    ("draw", (0, 1), "draw")])
def test_supply_out_twice_decided_by_the_house_rule(choice, winners, word):
    state = at({"supply_end": choice}, sue=7, bodyguard_left=5, bodyguard_right=9, charlie=12)
    state["exhausted"], state["supply"] = 1, 1
    after = GAME.apply(state, {"type": "trade", "player": 0, "cards": ["hal-1a"]})
    outcome = GAME.outcome(after)
    assert outcome.winners == winners and word in outcome.reason


# --------------------------------------------------------------------------- replay lines


def test_replay_pass_applied_when_allowed_refused_when_not():
    allowed, refused = replay("zero_trade", "allowed"), replay("zero_trade", "refused")
    assert allowed.refused == 0 and allowed.report[-1] == "line 4: applied: A passes (trades no cards)"
    assert refused.refused == 1 and refused.report[-1].startswith("line 4: refused: a trade "
                                                                  "discards at least one card")


def test_replay_deb_on_sue_joker_applied_only_when_it_counts_as_between():
    strict, loose = replay("deb_on_sue", "not_between"), replay("deb_on_sue", "between")
    assert strict.report[-1].startswith("line 6: refused: Dancing Deb is not between")
    assert loose.report[-1] == "line 6: applied: B plays Deb 2 as joker: Handsome Hal toward A"


def test_replay_supply_out_twice_has_a_winner_per_choice():
    results = {choice: replay("supply_end", choice) for choice in ("sue_side", "charlie_side",
                                                                    "draw")}
    assert all(r.refused == 0 for r in results.values())
    winners = {c: GAME.outcome(r.final["state"]).winners for c, r in results.items()}
    assert winners == {"sue_side": (0,), "charlie_side": (1,), "draw": (0, 1)}
    assert results["draw"].final["house_rules"]["supply_end"] == "draw"
