"""Issue 13, defect 12: state goes out as deltas, history is paged, and a long game costs
what a short one does (no whole-history rebuild per change)."""

from __future__ import annotations

import json
from typing import Any

from flask.testing import FlaskClient

from companion.table import HISTORY_SHOWN, Table
from companion.web.app import create_app

TIMED = ("players", "phase_s")  # clocks tick between snapshots


def long_table(entries: int) -> Table:
    """A table whose history holds ``entries`` entries (declare and undo in turn)."""
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    table.declare(table.game.legal_actions(table.state)[0])
    again = table.game.legal_actions(table.state)[0]  # the same state after each undo
    while len(table.history) < entries:
        table.declare(again)
        if len(table.history) < entries:
            table.undo()
    return table


def apply(state: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    assert delta["base"] == state["rev"], "a client at another rev would refetch"
    out = {**state, **delta["set"], "rev": delta["rev"]}
    undone = set(delta["history"]["undone"])
    out["history"] = [{**h, "undone": True} if h["seq"] in undone else h
                      for h in state["history"]] + delta["history"]["add"]
    return out


def test_deltas_rebuild_the_state_a_client_would_fetch() -> None:
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    got: list[tuple[str, str]] = []
    state = json.loads(table.watch(lambda event, data: got.append((event, data))))
    table.declare(table.game.legal_actions(table.state)[0])
    options = table.game.legal_actions(table.state)
    table.declare(options[0])
    table.correct(options[1])
    table.undo()
    table.declare(table.game.legal_actions(table.state)[0])
    table.notice("device", None)  # nothing changed: nothing sent
    assert all(event == "delta" for event, _ in got) and len(got) == 5
    for _, data in got:
        state = apply(state, json.loads(data))
    fresh = table.public(history=None)
    for key in set(fresh) - set(TIMED):
        assert state[key] == fresh[key], key


def test_a_correction_of_an_earlier_move_arrives_as_one_delta() -> None:
    """Replacing a move three back undoes it and the two since, and adds the correction and
    those two again: one delta that a client applies to the state it would fetch."""
    table = Table.open("king_of_clubs", None, 2, "basic", 0, resume=False)
    clubs = table.declare({"type": "nightclubs", "values": [2, 4, 7, 3]})
    for player in (0, 1):
        table.declare({"type": "place", "player": player})
    assert clubs is not None
    got: list[tuple[str, str]] = []
    state = json.loads(table.watch(lambda event, data: got.append((event, data))))
    table.declare({"type": "correct", "entry": clubs.seq,
                   "action": {"type": "nightclubs", "values": [2, 4, 7, 2]}})
    assert len(got) == 1
    delta = json.loads(got[0][1])
    assert len(delta["history"]["undone"]) == 3 and len(delta["history"]["add"]) == 3
    state = apply(state, delta)
    fresh = table.public(history=None)
    for key in set(fresh) - set(TIMED):
        assert state[key] == fresh[key], key


def test_a_snapshot_at_move_1000_is_as_small_as_at_move_50() -> None:
    table = long_table(1000)
    snapshot = table.public()
    assert snapshot["history_total"] == 1000 and len(snapshot["history"]) == HISTORY_SHOWN
    assert len(json.dumps(snapshot)) < 40_000  # 149 kB at move 877 before
    got: list[str] = []
    table.watch(lambda _event, data: got.append(data))
    table.declare(table.game.legal_actions(table.state)[0])
    assert len(got[-1]) < 8_000


def test_history_pages_back_to_the_start() -> None:
    table = long_table(230)
    client: FlaskClient = create_app(table, "246810", {"TESTING": True}).test_client()
    state = client.get("/api/state?history=10").get_json()
    assert len(state["history"]) == 10 and state["history_total"] == 230
    seen = list(state["history"])
    while True:
        page = client.get(f"/api/history?before={seen[0]['seq']}&limit=60").get_json()
        seen = page["entries"] + seen
        if not page["more"]:
            break
    assert [h["seq"] for h in seen] == [h.seq for h in table.history]
    assert client.get("/api/history?limit=abc").status_code == 400
    assert len(client.get("/api/state?history=999999").get_json()["history"]) <= 500


def test_nobody_watching_means_no_snapshot_per_change() -> None:
    """A replay of a long log builds no public state per event (88 s of 104 s before)."""
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    calls = 0
    public = table.public

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        nonlocal calls
        calls += 1
        return public(*args, **kwargs)

    table.public = counted  # type: ignore[method-assign]
    first = table.game.legal_actions(table.state)[0]
    for _ in range(50):
        table.declare(first)
        table.undo()
    assert calls == 0 and table.rev == 100
