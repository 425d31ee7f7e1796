"""The dashboard API: watching is free, changing needs the PIN, bad requests are clear 4xx
and change nothing, and changes stream live over SSE."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient
from waitress.server import create_server

from companion.table import Table
from companion.web.app import create_app

PIN = "1357"


@pytest.fixture
def table() -> Table:
    return Table.open("times_square", None, 2, None, 0, resume=False)


@pytest.fixture
def client(table: Table) -> FlaskClient:
    return create_app(table, PIN, {"TESTING": True}).test_client()


def legal(client: FlaskClient) -> dict:
    return client.get("/api/legal").get_json()["actions"][0]


def test_state_has_the_promised_keys(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    for key in ("game", "players", "turn", "scores", "prompts", "history", "over", "winner"):
        assert key in state
    assert state["game"] == "times_square" and len(state["players"]) == 2


def test_dashboard_page_and_layout(client: FlaskClient) -> None:
    assert b"Table Companion" in client.get("/").data
    layout = client.get("/api/layout").get_json()
    assert layout["spots"] and layout["width"] > 0


@pytest.mark.parametrize("headers, body, status", [
    ({}, {"type": "setup"}, 403),
    ({"X-Table-Pin": "0000"}, {"type": "setup"}, 403),
    ({"X-Table-Pin": PIN}, [1, 2], 400),
    ({"X-Table-Pin": PIN}, {"type": 5}, 400),
    ({"X-Table-Pin": PIN}, {"type": "fly-to-the-moon", "player": 0}, 400),
])
def test_refused_requests_change_nothing(client: FlaskClient, table: Table, headers: dict,
                                         body: object, status: int) -> None:
    before = json.dumps(table.state, sort_keys=True)
    response = client.post("/api/actions", json=body, headers=headers)
    assert response.status_code == status
    assert response.get_json()["error"]
    assert json.dumps(table.state, sort_keys=True) == before and not table.history


def test_not_json_is_a_400(client: FlaskClient) -> None:
    response = client.post("/api/actions", data=b"{nope", headers={"X-Table-Pin": PIN,
                                                                   "Content-Type": "application/json"})
    assert response.status_code == 400


def test_declare_then_undo(client: FlaskClient, table: Table) -> None:
    action = legal(client)
    response = client.post("/api/actions", json={"action": action, "pin": PIN})
    assert response.status_code == 200 and response.get_json()["entry"]["action"] == action
    assert len(table.history) == 1
    response = client.post("/api/actions", json={"type": "undo"}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 200
    assert client.get("/api/state").get_json()["history"][0]["undone"] is True
    again = client.post("/api/actions", json={"type": "undo"}, headers={"X-Table-Pin": PIN})
    assert again.status_code == 409


def test_an_illegal_move_is_409_with_the_rule(client: FlaskClient, table: Table) -> None:
    client.post("/api/actions", json=legal(client), headers={"X-Table-Pin": PIN})  # set-up
    state = client.get("/api/state").get_json()
    action = dict(legal(client), player=1 - state["turn"])
    response = client.post("/api/actions", json=action, headers={"X-Table-Pin": PIN})
    assert response.status_code == 409 and response.get_json()["rule"]
    assert len(table.history) == 1


def test_correct_replaces_the_newest_action(client: FlaskClient, table: Table) -> None:
    client.post("/api/actions", json=legal(client), headers={"X-Table-Pin": PIN})
    options = client.get("/api/legal").get_json()["actions"]
    client.post("/api/actions", json=options[0], headers={"X-Table-Pin": PIN})
    response = client.post("/api/actions", json={"type": "correct", "action": options[-1]},
                           headers={"X-Table-Pin": PIN})
    assert response.status_code == 200, response.get_json()
    effective = [h.action for h in table.history if not h.undone]
    assert effective[-1] == options[-1] and len(effective) == 2


@pytest.fixture
def server(table: Table) -> Iterator[int]:
    app = create_app(table, PIN, {"KEEPALIVE_S": 0.5})
    srv = create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield srv.effective_port
    srv.close()


def test_sse_stream_delivers_a_change(server: int, table: Table) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=10)
    conn.request("GET", "/api/events")
    response = conn.getresponse()
    assert response.getheader("Content-Type").startswith("text/event-stream")
    events = []
    while len(events) < 2:
        line = response.fp.readline()
        if line.startswith(b"data:"):
            events.append(json.loads(line[5:]))
            if len(events) == 1:
                table.declare(table.game.legal_actions(table.state)[0])
    assert events[0]["history"] == [] and len(events[1]["history"]) == 1
    conn.close()
