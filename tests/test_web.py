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
    # (the colours the rules put on a place, as a list: Champagne Charlie's strip takes his)
    charlie = next(s for s in layout["spots"] if s["id"] == "c0")
    assert charlie["takes"] == ["yellow"]


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


def test_cards_tapped_are_shown_by_name_and_taken_back_by_a_tap(client: FlaskClient, table: Table) -> None:
    """A card that missed its move (or was tapped twice) would be read into every later
    press: the tablet lists the cards tapped and takes one, or all, back."""
    first, second = table.game.card_ids()[:2]
    table.tap(first, 0)
    table.tap(second, 0)
    state = client.get("/api/state").get_json()
    assert [t["card"] for t in state["taps"]] == [first, second]
    assert all(t["name"] for t in state["taps"])
    body = {"type": "forget_taps", "card": first}
    assert client.post("/api/actions", json=body).status_code == 403  # a change: PIN or pairing
    response = client.post("/api/actions", json=body, headers={"X-Table-Pin": PIN})
    assert response.status_code == 200
    assert [t["card"] for t in response.get_json()["state"]["taps"]] == [second]
    assert len(table.history) == 0  # taps are no record: nothing logged
    for bad, status in (({"type": "forget_taps", "card": 7}, 400),
                        ({"type": "forget_taps", "card": first}, 409),  # not tapped now
                        ({"type": "forget_taps", "colour": "red"}, 400)):
        assert client.post("/api/actions", json=bad, headers={"X-Table-Pin": PIN}).status_code == status
    assert [t.card for t in table.taps] == [second]  # refused: nothing changed
    response = client.post("/api/actions", json={"type": "forget_taps"}, headers={"X-Table-Pin": PIN})
    assert response.status_code == 200 and response.get_json()["state"]["taps"] == []
    again = client.post("/api/actions", json={"type": "forget_taps"}, headers={"X-Table-Pin": PIN})
    assert again.status_code == 409 and "no cards tapped" in again.get_json()["error"]


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


def test_a_refusal_names_moves_as_the_history_numbers_them(client: FlaskClient, table: Table) -> None:
    """An undo is logged as an event of its own, so after one the log's sequence numbers run
    ahead of the history's: a refusal names the moves by the numbers players read beside
    them (their place in the history), never by the log's."""
    pin = {"X-Table-Pin": PIN}
    for _ in range(2):
        assert client.post("/api/actions", json=legal(client), headers=pin).status_code == 200
    assert client.post("/api/actions", json={"type": "undo"}, headers=pin).status_code == 200
    for _ in range(2):
        assert client.post("/api/actions", json=legal(client), headers=pin).status_code == 200
    history = client.get("/api/state").get_json()["history"]
    seen, newest = history[-2]["seq"], history[-1]["seq"]
    assert (seen, newest) == (4, 5) and [h["undone"] for h in history] == [False, True, False, False]
    assert [h["move"] for h in history] == [1, 2, 3, 4]  # the numbers beside them on the page
    response = client.post("/api/actions", json={"type": "undo", "seq": seen}, headers=pin)
    assert response.status_code == 409
    error = response.get_json()["error"]
    assert error.startswith("move 3 can no longer be undone: move 4 ("), error
    response = client.post("/api/actions", json={"type": "correct", "entry": 99, "action": legal(client)},
                           headers=pin)
    assert "that move is not in the record" in response.get_json()["error"]


def test_undo_and_replace_name_the_move_and_refuse_when_another_came_since(
        client: FlaskClient, table: Table) -> None:
    """A player reads the newest move, taps "Undo this move" and confirms; the camera may
    record another move in between, and an unnamed undo would take back the move nobody
    looked at.  Naming the move (its ``seq``, as the dashboard does) refuses that with a
    clear message and changes nothing; the named newest move is undone or replaced."""
    pin = {"X-Table-Pin": PIN}
    client.post("/api/actions", json=legal(client), headers=pin)  # set-up: move 1
    seen = client.get("/api/state").get_json()["history"][-1]["seq"]
    options = client.get("/api/legal").get_json()["actions"]
    client.post("/api/actions", json=options[0], headers=pin)  # recorded before the tap lands
    newest = client.get("/api/state").get_json()["history"][-1]["seq"]
    before = [(h.seq, h.undone) for h in table.history]
    for body in ({"type": "undo", "seq": seen},
                 {"type": "correct", "action": options[-1], "seq": seen}):
        response = client.post("/api/actions", json=body, headers=pin)
        assert response.status_code == 409, response.get_json()
        error = response.get_json()["error"]
        assert f"move {table.ledger.move_number(seen)} can no longer be" in error \
            and f"move {table.ledger.move_number(newest)} (" in error
        assert [(h.seq, h.undone) for h in table.history] == before  # refused: nothing changed
    for bad in ({"type": "undo", "seq": "last"}, {"type": "undo", "seq": True},
                {"type": "correct", "action": options[-1], "seq": 2.5},
                {"type": "correct", "action": options[-1], "entry": "1"}):
        assert client.post("/api/actions", json=bad, headers=pin).status_code == 400
    assert [(h.seq, h.undone) for h in table.history] == before
    response = client.post("/api/actions", json={"type": "correct", "action": options[-1],
                                                 "seq": newest}, headers=pin)
    assert response.status_code == 200, response.get_json()
    replaced = response.get_json()["entry"]["seq"]
    response = client.post("/api/actions", json={"type": "undo", "seq": replaced}, headers=pin)
    assert response.status_code == 200, response.get_json()
    assert [h.action for h in table.history if not h.undone] == [table.history[0].action]


@pytest.fixture
def server(table: Table) -> Iterator[int]:
    app = create_app(table, PIN, {"KEEPALIVE_S": 0.5})
    srv = create_server(app, host="127.0.0.1", port=0, threads=8)

    def serve() -> None:
        try:
            srv.run()
        except OSError:  # its sockets closed under its select loop while stopping
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.effective_port
    srv.close()
    thread.join(timeout=5)


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
    assert events[0]["history"] == [] and events[0]["history_total"] == 0
    delta = events[1]
    assert delta["base"] == events[0]["rev"] and delta["rev"] > delta["base"]
    assert len(delta["history"]["add"]) == 1 and delta["set"]["history_total"] == 1
    conn.close()


# --- issue 13, defect 4: the PIN holds ----------------------------------------------------
def _guarded(table: Table, now: list[float]) -> FlaskClient:
    from companion.web.auth import Guard

    guard = Guard("246810", None, clock=lambda: now[0])
    return create_app(table, "246810", {"TESTING": True, "GUARD": guard}).test_client()


def test_wrong_pins_lock_the_client_out_even_for_the_right_pin(table: Table) -> None:
    from companion.web import auth

    now = [1000.0]
    client = _guarded(table, now)
    action = {"type": "setup", "hal_player": 0}
    lefts = []
    for guess in range(auth.MAX_FAILS):
        reply = client.post("/api/actions", json=action, headers={"X-Table-Pin": f"{guess:06d}"})
        lefts.append(reply.get_json().get("attempts_left"))
    assert lefts[:-1] == list(range(auth.MAX_FAILS - 1, 0, -1))
    locked = client.post("/api/actions", json=action, headers={"X-Table-Pin": "246810"})
    assert locked.status_code == 429 and locked.get_json()["retry_after"] == auth.LOCKOUT_S
    assert table.log.events(table.record.id) == []
    now[0] += auth.LOCKOUT_S + 1
    assert client.post("/api/actions", json=legal(client),
                       headers={"X-Table-Pin": "246810"}).status_code == 200
    for guess in range(auth.MAX_FAILS):  # a second lockout lasts twice as long
        client.post("/api/actions", json=action, headers={"X-Table-Pin": f"{guess:06d}"})
    again = client.post("/api/actions", json=action, headers={"X-Table-Pin": "246810"})
    assert again.get_json()["retry_after"] == 2 * auth.LOCKOUT_S


def test_a_brute_force_gets_few_guesses_an_hour(table: Table) -> None:
    """Count how many guesses are even looked at in an hour of trying every second."""
    from companion.web import auth

    now = [0.0]
    client = _guarded(table, now)
    checked = 0
    for second in range(3600):
        now[0] = float(second)
        reply = client.post("/api/pair", json={"pin": f"{second:06d}"})
        checked += reply.status_code == 403
    assert checked <= 6 * auth.MAX_FAILS, checked  # 1,000 a second before: about 30 now


def test_short_pins_are_refused_at_start_up(tmp_path) -> None:
    from companion.service import Service, ServiceConfig

    for pin in ("1234", "12345", "abcdef", "12 456"):
        with pytest.raises(ValueError, match="at least 6 digits"):
            Service(ServiceConfig(game="times_square", data_dir=tmp_path, pin=pin, gpio=False))
    service = Service(ServiceConfig(game="times_square", data_dir=tmp_path, gpio=False))
    assert len(service.pin) >= 6 and service.pin.isdigit()
    service.table.log.close()


def test_pairing_sets_a_cookie_that_survives_a_restart(tmp_path) -> None:
    first = Table.open("times_square", tmp_path, 2, None, 0)
    client = create_app(first, "246810", {"TESTING": True}).test_client()
    assert client.get("/api/whoami").get_json() == {"paired": False}
    wrong = client.post("/api/pair", json={"pin": "000000"})
    assert wrong.status_code == 403 and wrong.get_json()["attempts_left"] == 4
    reply = client.post("/api/pair", json={"pin": "246810"})
    cookie = reply.headers["Set-Cookie"]
    assert reply.status_code == 200 and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "companion_token=" in cookie and "Path=/" in cookie
    assert client.get("/api/whoami").get_json() == {"paired": True}
    assert client.post("/api/actions", json=legal(client)).status_code == 200  # no PIN
    token = cookie.split(";")[0].split("=", 1)[1]
    first.log.close()
    again = Table.open("times_square", tmp_path, 2, None, 0)
    restarted = create_app(again, "246810", {"TESTING": True}).test_client()
    restarted.set_cookie("companion_token", token)
    assert restarted.get("/api/whoami").get_json() == {"paired": True}
    stranger = create_app(again, "246810", {"TESTING": True}).test_client()
    assert stranger.post("/api/actions", json=legal(stranger)).status_code == 403


def test_a_pairing_code_works_once(table: Table) -> None:
    app = create_app(table, "246810", {"TESTING": True})
    client = app.test_client()
    code = app.extensions["guard"].code
    reply = client.get(f"/pair?code={code}")
    assert reply.status_code == 302 and reply.headers["Location"].endswith("/")
    url = client.get("/api/pairing").get_json()["url"]
    assert "/pair?code=" in url and code not in url
    other = app.test_client()
    assert other.get(f"/pair?code={code}").status_code == 403
    assert other.get("/api/pairing").status_code == 403
