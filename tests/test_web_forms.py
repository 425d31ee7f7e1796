"""GET /api/forms: every legal action of the moment, grouped by type, rebuilt exactly from
the compact rows, labelled in words (never as data), described types first."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.games import GAMES, load_game
from companion.games.base import ActionForm, FieldForm
from companion.games.times_square import TimesSquare
from companion.sim.headless import deliver
from companion.sim.world import load_world
from companion.table import Table
from companion.web.app import create_app
from companion.web.forms import STEP_LIMIT, build_forms, group_labels, label_value, state_key

PIN = "246810"


def rebuild(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The actions the page can reach from the compact answer."""
    out = []
    for t in body["types"]:
        for row in t["rows"]:
            action = {"type": t["type"]}
            for f, index in zip(t["fields"], row, strict=True):
                if index >= 0:
                    value = f["values"][index]["v"]
                    if "part_of" in f:  # one part of a combination, asked part by part
                        action.setdefault(f["part_of"], []).insert(f["part"], value)
                    else:
                        action[f["name"]] = [value] if f.get("many") else value
            out.append(action)
    return out


def mid_game(game: str, steps: int) -> Table:
    table = Table.open(game, None, 2, None, 1, resume=False)
    world = load_world(game, table.game, 2, None, 1)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    for _ in range(steps):
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    return table


@pytest.mark.parametrize("game", list(GAMES))
def test_forms_hold_exactly_the_legal_actions_in_words(game: str) -> None:
    table = mid_game(game, 25)
    body = build_forms(table.game, table.state)
    legal = table.game.legal_actions(table.state)
    key = lambda a: json.dumps(a, sort_keys=True)  # noqa: E731
    reached = rebuild(body)
    assert set(map(key, legal)) <= set(map(key, reached))
    # beyond them only other orders of a combination, which the game takes too
    extra = [a for a in reached if key(a) not in set(map(key, legal))]
    assert all(table.game.is_legal(table.state, a) for a in extra)
    assert body["count"] == len(legal)
    for t in body["types"]:
        assert t["label"] and "_" not in t["label"]
        for f in t["fields"]:
            assert f["label"] and "_" not in f["label"]
            labels = [v["label"] for v in f["values"]]
            assert all(isinstance(x, str) and x for x in labels)
            assert not any(x.startswith(("{", "[")) or x in ("None", "True", "False") for x in labels)
            assert len({key(v["v"]) for v in f["values"]}) == len(f["values"])  # each value once


def test_compact_for_thousands_of_actions() -> None:
    table = mid_game("baron_voodoo", 10)
    legal = table.game.legal_actions(table.state)
    body = build_forms(table.game, table.state)
    assert len(json.dumps(body)) < len(json.dumps(legal)) + 2000


def test_described_forms_lead_and_name_their_fields() -> None:
    class Described(TimesSquare):
        def action_forms(self) -> dict[str, ActionForm]:
            return {"setup": ActionForm("setup", "Who plays Hal", (FieldForm("hal_player", "Hal is"),),
                                        hint="the player with Hal's card")}

        def value_label(self, state: Any, action_type: str, field: str, value: Any) -> str:
            return f"seat {value + 1}" if field == "hal_player" else super().value_label(
                state, action_type, field, value)

    game = Described()
    body = build_forms(game, game.start(2))
    first = body["types"][0]
    assert first["type"] == "setup" and first["label"] == "Who plays Hal" and first["described"]
    assert first["fields"][0]["label"] == "Hal is"
    assert [v["label"] for v in first["fields"][0]["values"]] == ["seat 1", "seat 2"]


def test_values_without_words_are_still_words() -> None:
    game = load_game("king_of_clubs")
    state = game.start(2)
    assert label_value(game, state, "x", "things", ["d0", "d2"]) == "d0, d2"  # no words for it
    assert label_value(game, state, "swap", "slots", ["d0", "d2"]) == game.value_label(
        state, "swap", "slots", ["d0", "d2"])  # the game's own words win
    assert label_value(game, state, "x", "flag", True) == "yes"
    assert label_value(game, state, "x", "thing", None) == "none"
    assert label_value(game, state, "x", "player", 1) == game.player_names(state)[1]


@pytest.fixture
def table() -> Table:
    return Table.open("times_square", None, 2, None, 0, resume=False)


@pytest.fixture
def client(table: Table) -> FlaskClient:
    return create_app(table, PIN, {"TESTING": True}).test_client()


def test_forms_route_and_corrections(client: FlaskClient, table: Table) -> None:
    body = client.get("/api/forms").get_json()
    assert body["key"] == state_key(table.history) == "0" and not body["correct"]
    assert client.get("/api/forms?correct=1").status_code == 409  # nothing to correct yet
    first = table.game.legal_actions(table.state)[0]
    table.declare(first)
    corrected = client.get("/api/forms?correct=1").get_json()
    assert first in rebuild(corrected)  # the choices the newest move was made from
    assert client.get("/api/forms").get_json()["key"] == str(table.history[0].seq)
    table.undo()
    assert client.get("/api/forms").get_json()["key"] == "0"
    # an earlier move, by its number: the choices it was made from (the moves since stand)
    table.declare(first)
    table.declare(table.game.legal_actions(table.state)[0])
    earlier = table.history[-2]
    body = client.get(f"/api/forms?entry={earlier.seq}").get_json()
    assert body["correct"] and first in rebuild(body)
    assert earlier.seq != table.history[-1].seq
    assert client.get("/api/forms?entry=999").status_code == 409
    assert client.get("/api/forms?entry=first").status_code == 400


def test_no_forms_once_the_game_is_over() -> None:
    table = mid_game("times_square", 200)
    assert table.public()["over"]
    assert build_forms(table.game, table.state)["types"] == []


def test_clock_route_needs_the_pin_and_a_clear_body(client: FlaskClient, table: Table) -> None:
    assert client.post("/api/clock", json={"clock": "pause"}).status_code == 403
    assert client.post("/api/clock", json={"clock": "stop"}, headers={"X-Table-Pin": PIN}).status_code == 400
    assert client.post("/api/clock", json={"clock": "pause", "x": 1},
                       headers={"X-Table-Pin": PIN}).status_code == 400
    assert not table.paused
    ok = client.post("/api/clock", json={"clock": "pause"}, headers={"X-Table-Pin": PIN})
    assert ok.status_code == 200 and ok.get_json()["paused"] and table.paused
    again = client.post("/api/clock", json={"clock": "pause"}, headers={"X-Table-Pin": PIN})
    assert again.status_code == 409 and "already paused" in again.get_json()["error"]


def test_no_pause_once_the_game_is_over() -> None:
    """A finished game's clocks have stopped: a pause is refused in words and not logged."""
    table = mid_game("times_square", 200)
    assert table.public()["over"]
    events = len(table.log.events(table.record.id))
    client = create_app(table, PIN, {"TESTING": True}).test_client()
    refused = client.post("/api/clock", json={"clock": "pause"}, headers={"X-Table-Pin": PIN})
    assert refused.status_code == 409 and refused.get_json()["error"].startswith("The game is over")
    assert not table.paused and len(table.log.events(table.record.id)) == events


def steps_of(field: dict[str, Any]) -> list[int]:
    """The options each step of narrowing one field shows: its groups level by level (a
    group alone is stepped through), then the values of a group."""
    counts = []

    def walk(members: list[dict[str, Any]], level: int) -> None:
        if len(members) <= STEP_LIMIT or any(len(v.get("group", [])) <= level for v in members):
            counts.append(len(members))
            return
        keys = list(dict.fromkeys(v["group"][level] for v in members))
        if len(keys) > 1:
            counts.append(len(keys))
        for k in keys:
            walk([v for v in members if v["group"][level] == k], level + 1)

    walk(field["values"], 0)
    return counts


@pytest.mark.parametrize("game", list(GAMES))
def test_no_step_offers_more_than_eight(game: str) -> None:
    """Issue 41: a combination is asked part by part, a long list by its groups: every step
    of every form, at several moments of a game, offers at most eight options."""
    table = Table.open(game, None, 2, "basic" if game == "king_of_clubs" else None, 1, resume=False)
    world = load_world(game, table.game, 2, table.record.variant, 1)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    worst: dict[str, int] = {}
    for _ in range(6):
        for t in build_forms(table.game, table.state)["types"]:
            for f in t["fields"]:
                worst[f"{t['label']}: {f['label']}"] = max(worst.get(f"{t['label']}: {f['label']}", 0),
                                                         *steps_of(f))
        for _ in range(8):
            if world.finished():
                break
            for event in world.step(table.public()):
                deliver(table, event, refusals)
    assert worst and max(worst.values()) <= STEP_LIMIT == 8, worst


def test_long_lists_are_grouped_by_what_the_labels_share() -> None:
    deck = [f"{kind} {n}" for kind in ("Zombie", "Rada", "Cheval") for n in range(1, 13)]
    paths = group_labels(deck)
    assert {p[0] for p in paths} == {"Zombie", "Rada", "Cheval"}
    zombies = [p[1] for p, label in zip(paths, deck, strict=True) if label.startswith("Zombie")]
    assert zombies[0] == "Zombie 1 – 6" and zombies[-1] == "Zombie 7 – 12"
    colours = ("purple", "red", "blue", "white")
    dice = [f"{c}{r} ({colours[(i + r) % 4]} Steal)" for i, c in enumerate("ABCDEFG") for r in (1, 2, 3)]
    assert [p[0] for p in group_labels(dice)] == [label.split("(")[1].split()[0] for label in dice]
    assert group_labels(["a", "b"]) == [[], []]  # few values: no groups
