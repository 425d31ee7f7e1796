"""The venue over MQTT: settings, topic tree, payloads, Home Assistant discovery, the league,
the room's de-duplication, and a table publishing through a real Mosquitto on loopback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_until

from companion.table import Table
from companion.venue import topics
from companion.venue.broker import LocalBroker
from companion.venue.feed import Room, VenueSubscriber
from companion.venue.league import BadResult, League, evening_of, placing_points, placings
from companion.venue.publish import TablePublisher
from companion.venue.settings import MqttSettings, MqttSettingsError

# ---------------------------------------------------------------------- settings


def test_settings_from_a_profile_section_with_url_and_credentials() -> None:
    s = MqttSettings.from_mapping({"url": "mqtt://club:s%40cret@broker.local:1884", "venue": "cafe",
                                   "table": "t-3", "keepalive": 30})
    assert (s.host, s.port, s.username, s.password) == ("broker.local", 1884, "club", "s@cret")
    assert s.base == "companion/cafe/t-3" and not s.tls
    assert MqttSettings.from_url("mqtts://h").port == 8883


@pytest.mark.parametrize("section, message", [
    ({"hots": "x"}, "unknown setting(s) hots"),
    ({"port": 0}, "mqtt.port"),
    ({"port": "1883"}, "mqtt.port"),
    ({"venue": "a/b"}, "mqtt.venue"),
    ({"table": "#"}, "mqtt.table"),
    ({"username": "u"}, "username and mqtt.password go together"),
    ({"keepalive": 1}, "mqtt.keepalive"),
    ({"url": "http://x"}, "mqtt.url"),
    ({"url": "mqtt://x:notaport"}, "bad port"),
    ({"tls_ca": "/nonexistent/ca.pem"}, "no such file"),
    ({"tls_cert": "c.pem"}, "tls_cert and mqtt.tls_key go together"),
])
def test_bad_settings_are_refused_by_name(section: dict[str, Any], message: str) -> None:
    with pytest.raises(MqttSettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        MqttSettings.from_mapping(section)


def test_tls_settings_need_their_files_and_a_ca(tmp_path: Path) -> None:
    for name in ("ca.pem", "cert.pem", "key.pem"):
        (tmp_path / name).write_text("x")
    # a client certificate without a CA file: TLS on, the broker checked against the system's CAs
    assert MqttSettings.from_mapping({"tls_cert": str(tmp_path / "cert.pem"),
                                      "tls_key": str(tmp_path / "key.pem")}).tls
    assert MqttSettings.from_url("mqtts://h").tls and not MqttSettings.from_url("mqtt://h").tls
    (tmp_path / "secret").write_text("s3cret\nignored\n")
    s = MqttSettings.from_mapping({"url": "mqtt://club@h", "password_file": str(tmp_path / "secret")})
    assert (s.username, s.password) == ("club", "s3cret") and "s3cret" not in repr(s)
    with pytest.raises(MqttSettingsError, match="give one of them"):
        MqttSettings.from_mapping({"username": "u", "password": "p",
                                   "password_file": str(tmp_path / "secret")})
    with pytest.raises(MqttSettingsError, match="password_file: cannot read"):
        MqttSettings.from_mapping({"username": "u", "password_file": str(tmp_path / "none")})
    s = MqttSettings.from_mapping({"tls_ca": str(tmp_path / "ca.pem"), "tls_cert": str(tmp_path / "cert.pem"),
                                   "tls_key": str(tmp_path / "key.pem")})
    assert s.tls and s.tls_key == tmp_path / "key.pem"


# ---------------------------------------------------------------------- topics and payloads


def played_table(actions: int = 3) -> Table:
    """A King of Clubs table a few logged actions in, played by the simulated world."""
    from companion.sim.headless import deliver
    from companion.sim.world import load_world

    table = Table.open("king_of_clubs", None, 2, "basic", 3, resume=False)
    world = load_world("king_of_clubs", table.game, 2, "basic", 3)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    while len(table.history) < actions:
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    assert refusals == []
    return table


def test_topic_tree_and_parse() -> None:
    s = MqttSettings(venue="cafe", table="t1")
    assert [topics.topic(s, leaf) for leaf in ("status", "state", "events", "result")] == [
        "companion/cafe/t1/status", "companion/cafe/t1/state", "companion/cafe/t1/events",
        "companion/cafe/t1/result"]
    assert {spec.leaf: (spec.qos, spec.retain) for spec in topics.TREE} == {
        "status": (1, True), "state": (1, True), "events": (1, False), "result": (1, True),
        "backfill": (1, False)}
    assert topics.players_topic(s) == "companion/cafe/players"
    assert topics.parse_topic("companion/cafe/players") is None  # not a table's
    assert topics.parse_topic("companion/cafe/t1/state") == ("cafe", "t1", "state")
    assert topics.parse_topic("companion/cafe/t1/board") is None
    assert topics.parse_topic("homeassistant/sensor/x/config") is None
    with pytest.raises(KeyError):
        topics.topic(s, "hand")


def test_state_payload_carries_only_what_the_room_needs() -> None:
    table = played_table(4)
    public = table.public()
    state = topics.state_payload(public, "t1", 9, 100.0, 4, ["Ann", None])
    assert set(state) == {"table", "game", "title", "game_id", "variant", "players", "turn", "turn_name",
                          "phase", "phase_label", "phase_s", "over", "winner", "reason", "history",
                          "history_total", "last_seq", "events", "at", "paused"}
    for player in state["players"]:
        assert set(player) == {"seat", "name", "score", "clock_s", "player"}
    assert [p["player"] for p in state["players"]] == ["Ann", None]
    for entry in state["history"]:
        assert set(entry) == {"seq", "text", "undone", "at"}  # the text, never the raw action
    assert [h["text"] for h in state["history"]] == [h["text"] for h in public["history"]][-20:]
    raw = json.dumps(state)
    assert "board" not in state and "taps" not in raw and "seen" not in state


def test_home_assistant_discovery_describes_the_table_as_a_device() -> None:
    s = MqttSettings(venue="cafe", table="t1")
    messages = dict(topics.discovery_messages(s))
    assert set(messages) == {
        "homeassistant/sensor/companion_cafe_t1/game/config",
        "homeassistant/sensor/companion_cafe_t1/turn/config",
        "homeassistant/sensor/companion_cafe_t1/phase/config",
        "homeassistant/sensor/companion_cafe_t1/leader/config",
        "homeassistant/binary_sensor/companion_cafe_t1/over/config",
    }
    ids = set()
    for name, config in messages.items():
        assert config["state_topic"] == "companion/cafe/t1/state"
        assert config["availability_topic"] == "companion/cafe/t1/status"
        assert config["availability_template"] == "{{ value_json.status }}"
        assert (config["payload_available"], config["payload_not_available"]) == ("online", "offline")
        assert config["device"]["identifiers"] == ["companion_cafe_t1"]
        assert config["value_template"].startswith("{")
        assert "object_id" not in config  # deprecated by Home Assistant
        assert config["default_entity_id"] == config["unique_id"].join(
            ["binary_sensor." if "/binary_sensor/" in name else "sensor.", ""])
        ids.add(config["unique_id"])
    assert len(ids) == 5
    # attributes: names, people and scores; never the clocks that tick every second
    attributes = messages["homeassistant/sensor/companion_cafe_t1/game/config"]["json_attributes_template"]
    assert "clock" not in attributes and "p.score" in attributes and "p.player" in attributes
    assert topics.discovery_messages(MqttSettings(discovery_prefix="")) == []


# ---------------------------------------------------------------------- the league


def result(table: str, game_id: int, names: list[str], scores: list[float], winner: list[int],
           finished: float, game: str = "times_square", people: list[str | None] | None = None
           ) -> dict[str, Any]:
    people = people if people is not None else list(names)
    return {"table": table, "game": game, "title": game, "game_id": game_id, "started": finished - 600,
            "finished": finished,
            "players": [{"name": n, "score": s, "player": who}
                        for n, s, who in zip(names, scores, people, strict=True)],
            "winner": winner, "reason": "test"}


def test_placings_winners_first_ties_shared() -> None:
    # Swing State: the Incumbent's 31 is the best score but the States won
    assert placings([31, 25, 23], [1, 2]) == [3, 1, 1]
    assert placings([5, 9, 9, 1], [1]) == [3, 1, 2, 4]  # the runner-up is placed by score
    assert placings([4, 4, 2], []) == [1, 1, 3]
    assert [placing_points(p, 3) for p in (1, 1, 3)] == [1.0, 1.0, 0.0]
    assert [placing_points(p, 4) for p in (1, 2, 3, 4)] == [1.0, 0.6667, 0.3333, 0.0]


def test_league_counts_people_by_placing_per_game_and_overall(tmp_path: Path) -> None:
    league = League(tmp_path / "league.sqlite")
    monday = time.mktime((2026, 11, 23, 21, 0, 0, 0, 0, -1))
    tuesday = monday + 86400
    assert league.record("cafe", result("t1", 1, ["Ann", "Bob"], [7, 1], [0], monday))
    assert league.record("cafe", result("t2", 1, ["Bob", "Cy", "Ann"], [40, 20, 10], [0], monday,
                                        "baron_voodoo"))
    assert not league.record("cafe", result("t2", 1, ["Bob", "Cy", "Ann"], [40, 20, 10], [0], monday,
                                            "baron_voodoo"))  # the same result again counts once
    assert league.record("cafe", result("t1", 2, ["Cy", "Ann"], [0, 0], [1], tuesday))
    # seats nobody named count for nobody: "Red" of two tables is not one person
    assert league.record("cafe", result("t3", 7, ["Red", "Blue"], [3, 9], [1], tuesday, "jivecat",
                                        [None, "Bob"]))
    assert league.record("cafe", result("t4", 8, ["Red", "Blue"], [3, 9], [1], tuesday, "jivecat",
                                        [None, None]))
    table = {row["name"]: row for row in league.standings()}
    assert set(table) == {"Ann", "Bob", "Cy"}
    # Ann: 1st of 2 (1), 3rd of 3 (0), 1st of 2 (1) = 2; Bob: 2nd of 2 (0), 1st of 3 (1), 1st (1) = 2
    assert table["Ann"] == {"rank": 1, "name": "Ann", "games": 3, "wins": 2, "points": 2.0,
                            "points_per_game": 0.667}
    assert table["Bob"]["rank"] == 1 and table["Bob"]["points"] == 2.0  # equal points, equal rank
    assert table["Cy"] == {"rank": 3, "name": "Cy", "games": 2, "wins": 0, "points": 0.5,
                           "points_per_game": 0.25}
    assert league.evenings() == [evening_of(monday), evening_of(tuesday)]
    assert [r["name"] for r in league.standings(evening_of(tuesday))] == ["Ann", "Bob", "Cy"]
    kinds = {k["game"]: k["standings"] for k in league.standings_by_game()}
    assert set(kinds) == {"times_square", "baron_voodoo", "jivecat"}
    assert [(r["rank"], r["name"], r["points"]) for r in kinds["baron_voodoo"]] == [
        (1, "Bob", 1.0), (2, "Cy", 0.5), (3, "Ann", 0.0)]
    assert [r["name"] for r in kinds["jivecat"]] == ["Bob"]
    assert league.people()[0] in ("Bob", "Ann", "Cy") and sorted(league.people()) == ["Ann", "Bob", "Cy"]
    lines = league.export_csv().splitlines()
    assert lines[0] == "rank,name,games,wins,points,points_per_game"
    assert lines[1:3] == ["1,Ann,3,2,2.0,0.667", "1,Bob,3,2,2.0,0.667"]
    exported = json.loads(league.export_json(evening_of(monday)))
    assert len(exported["results"]) == 2
    assert [r["points"] for r in exported["standings"]] == [1.0, 1.0, 0.5]
    # a game past midnight still belongs to the evening it started in
    assert evening_of(monday + 4 * 3600) == evening_of(monday)


def test_a_league_from_before_placings_is_placed_again(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO result VALUES (1, 'cafe', 't1', 3, 'swing_state', 'Swing State', 0, 10,"
               " '2026-11-23', 'x')")
    db.executemany("INSERT INTO result_player VALUES (1, ?, ?, ?, ?, ?)",
                   [(0, "Incumbent", 31, 1.0, 0), (1, "Red", 21, 0.68, 1), (2, "Blue", 16, 0.52, 1)])
    db.commit()
    db.close()
    league = League(path)
    players = league.results()[0]["players"]
    assert [(p["placing"], p["points"], p["player"]) for p in players] == [
        (3, 0.0, None), (1, 1.0, None), (1, 1.0, None)]
    assert league.standings() == []  # seat names were never people


OLD_SCHEMA = """
CREATE TABLE result (id INTEGER PRIMARY KEY, venue TEXT NOT NULL, table_name TEXT NOT NULL,
    game_id INTEGER NOT NULL, game TEXT NOT NULL, title TEXT NOT NULL, started REAL NOT NULL,
    finished REAL NOT NULL, evening TEXT NOT NULL, reason TEXT, UNIQUE (venue, table_name, game_id, started));
CREATE TABLE result_player (result_id INTEGER NOT NULL REFERENCES result(id), seat INTEGER NOT NULL,
    name TEXT NOT NULL, score REAL NOT NULL, points REAL NOT NULL, won INTEGER NOT NULL,
    PRIMARY KEY (result_id, seat));
"""


@pytest.mark.parametrize("bad, message", [
    ({"table": "t1"}, "needs 'game'"),
    ({"players": []}, "non-empty list"),
    ({"players": [{"name": "", "score": 1}]}, "name and a numeric score"),
    ({"players": [{"name": "A", "score": "7"}]}, "name and a numeric score"),
    ({"winner": [5]}, "winner must list seats"),
    ({"finished": "today"}, "'finished' must be a number"),
    ({"players": [{"name": "A", "score": 1, "player": 7}]}, "person is a name"),
    ({"players": [{"name": "A", "score": 1, "player": "x" * 41}]}, "at most 40"),
])
def test_a_bad_result_is_refused_and_changes_nothing(tmp_path: Path, bad: dict[str, Any],
                                                     message: str) -> None:
    league = League(tmp_path / "league.sqlite")
    good = result("t1", 1, ["Ann", "Bob"], [7, 1], [0], 1.8e9)
    payload = bad if list(bad) == ["table"] else {**good, **bad}
    with pytest.raises(BadResult, match=message):
        league.record("cafe", payload)
    assert league.standings() == [] and league.results() == []


# ---------------------------------------------------------------------- the room


def test_room_keeps_each_event_once_and_fills_gaps_from_the_state(tmp_path: Path) -> None:
    room = Room("cafe", League(tmp_path / "l.sqlite"))
    told: list[dict[str, Any]] = []
    room.subscribe(told.append)

    def event(seq: int) -> bytes:
        return topics.dumps(topics.event_payload("t1", 4, seq, "action", f"move {seq}", "tablet", 1.0))

    room.handle("companion/cafe/t1/events", event(1))
    room.handle("companion/cafe/t1/events", event(1))
    room.handle("companion/cafe/t1/events", event(3))
    room.handle("companion/other/t1/events", event(2))  # another venue's table
    room.handle("companion/cafe/t1/events", b"{not json")
    room.handle("companion/cafe/t1/status", b"maybe")
    assert room.events_of("t1", 4) == [1, 3] and room.duplicates == 1 and room.rejected == 2
    public = played_table(2).public()
    state = topics.state_payload({**public, "game_id": 4, "history": [
        {"seq": 2, "text": "move 2", "undone": False, "at": 1.0},
        {"seq": 3, "text": "move 3", "undone": False, "at": 1.0}]}, "t1", 3, 2.0)
    room.handle("companion/cafe/t1/state", topics.dumps(state))
    assert room.events_of("t1", 4) == [1, 2, 3] and room.duplicates == 1 and room.filled == 1
    assert [m["type"] for m in told] == ["event", "event", "state", "event"]
    view = room.snapshot()["tables"][0]
    assert view["event_count"] == 3 and view["seqs"] == [1, 2, 3]


# ---------------------------------------------------------------------- with a real broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    with LocalBroker(tmp_path / "broker") as running:
        yield running


@pytest.fixture
def room(broker: LocalBroker, tmp_path: Path) -> Iterator[Room]:
    room = Room("cafe", League(tmp_path / "league.sqlite"))
    subscriber = VenueSubscriber(room, MqttSettings(port=broker.port, venue="cafe"), "test-venue").start()
    assert subscriber.connected.wait(10)
    yield room
    subscriber.close()


def retained(broker: LocalBroker, name: str) -> bytes | None:
    """What a newcomer gets on ``name``: the retained message, or None."""
    got: list[bytes] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"probe-{time.monotonic_ns()}")
    client.on_connect = lambda c, *_: c.subscribe(name, qos=1)
    client.on_message = lambda c, u, m: got.append(m.payload)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        wait_until(lambda: bool(got), 5)
    finally:
        client.disconnect()
        client.loop_stop()
    return got[0] if got else None


def test_table_publishes_retained_state_status_and_discovery(broker: LocalBroker, room: Room,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # the heartbeat catches up with events a busy machine handed over after the first one
    # within a second, not 30 s: the waits below are hang guards, never verdicts
    monkeypatch.setattr(topics, "HEARTBEAT_S", 1.0)
    table = played_table(3)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="t1")).start()
    table.add_listener(publisher)
    try:
        assert wait_until(lambda: len(room.events_of("t1", table.record.id)) == 3, 10), "three events"
        # the state follows the events it counts: a newcomer gets it retained
        assert wait_until(lambda: json.loads(retained(broker, "companion/cafe/t1/state") or b"{}").get(
            "last_seq") == table.history[-1].seq, 10)
        state = json.loads(retained(broker, "companion/cafe/t1/state") or b"{}")
        assert state["game"] == "king_of_clubs" and state["events"] == 3
        expected = {"status": "online", "game_id": table.record.id, "last_seq": table.history[-1].seq,
                    "events": 3}  # the heartbeat: how many events the venue should have
        assert wait_until(lambda: expected.items() <= json.loads(
            retained(broker, "companion/cafe/t1/status") or b"{}").items(), 5)
        config = json.loads(retained(broker, "homeassistant/sensor/companion_cafe_t1/turn/config") or b"{}")
        assert config["unique_id"] == "companion_cafe_t1_turn"
        assert wait_until(lambda: publisher.acked_seq == table.history[-1].seq, 5), "PUBACK of every event"
    finally:
        publisher.close()
    assert json.loads(retained(broker, "companion/cafe/t1/status") or b"{}")["status"] == "offline"


KILLED_TABLE = """
import sys, time
from companion.table import Table
from companion.venue.publish import TablePublisher
from companion.venue.settings import MqttSettings
table = Table.open("times_square", None, 2, None, 0, resume=False)
publisher = TablePublisher(table, MqttSettings(port=int(sys.argv[1]), venue="cafe", table="gone")).start()
while not publisher.connected:
    time.sleep(0.01)
print("up", flush=True)
time.sleep(60)
"""


def test_a_killed_table_shows_offline_by_its_last_will(broker: LocalBroker, room: Room) -> None:
    process = subprocess.Popen([sys.executable, "-c", KILLED_TABLE, str(broker.port)],
                               stdout=subprocess.PIPE, cwd=Path(__file__).parent.parent)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == b"up"
        assert wait_until(lambda: "gone" in room.tables and room.tables["gone"].status == "online", 5)
        os.kill(process.pid, signal.SIGKILL)
        assert wait_until(lambda: room.tables["gone"].status == "offline", 5), "the last will"
    finally:
        process.kill()
        process.wait()
        if process.stdout:
            process.stdout.close()


# ---------------------------------------------------------------------- who waits for the broker

BLOCKING_CALLS = ("connect", "reconnect", "publish", "subscribe", "loop", "disconnect")


def calls_on_this_thread(publisher: TablePublisher) -> list[str]:
    """Record each paho call the calling thread makes: play must hand work over, never make one.

    Whether the table waits for a broker is a question of who calls paho, not of how long a
    move took, so the answer does not depend on the machine's load.
    """
    caller = threading.get_ident()
    made: list[str] = []
    for name in BLOCKING_CALLS:
        original = getattr(publisher.client, name)

        def recorded(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            if threading.get_ident() == caller:
                made.append(_name)
            return _original(*args, **kwargs)

        setattr(publisher.client, name, recorded)
    return made


def test_broker_down_changes_nothing_for_play_and_everything_arrives_once(broker: LocalBroker,
                                                                          room: Room) -> None:
    from companion.sim.headless import deliver
    from companion.sim.world import load_world

    table = Table.open("king_of_clubs", None, 2, "basic", 5, resume=False)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="t2")).start()
    table.add_listener(publisher)
    world = load_world("king_of_clubs", table.game, 2, "basic", 5)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)

    def play(actions: int) -> None:
        goal = len(table.history) + actions
        while len(table.history) < goal and not world.finished():
            for event in world.step(table.public()):
                deliver(table, event, refusals)

    try:
        assert wait_until(lambda: publisher.connected, 5), "connected"
        play(3)
        game = table.record.id
        assert wait_until(lambda: len(room.events_of("t2", game)) == 3, 5), "the first events"
        assert wait_until(lambda: publisher.acked_seq == table.history[-1].seq, 5), "their PUBACKs"
        broker.stop()
        assert wait_until(lambda: not publisher.connected, 5), "the publisher notices"
        made = calls_on_this_thread(publisher)
        play(6)  # the table plays on with the broker gone, and never waits for it
        assert made == []  # each move only wakes the publisher's thread; a wait would call paho here
        logged = [e.seq for e in table.log.events(game)]
        assert len(logged) == 9 and len(room.events_of("t2", game)) == 3
        broker.start()
        assert wait_until(lambda: room.events_of("t2", game) == logged, 10), "every event after the restart"
        assert wait_until(lambda: publisher.acked_seq == logged[-1], 5), "PUBACKs after the restart"
        # QoS 1 is at least once: a broker stopped before the venue's PUBACK arrived sends the
        # message again after its restart; the venue keeps each (table, game, seq) once
        assert room.tables["t2"].event_count == len(logged) and refusals == []
        # the retained state follows the events it counts (a rare race under load: stop 78's
        # suite saw the venue still holding the state from before the broker stopped)
        assert wait_until(lambda: (room.tables["t2"].state or {}).get("last_seq") == logged[-1], 5), \
            room.tables["t2"].state
        assert publisher.connections == 2
    finally:
        publisher.close()


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A throw-away CA and a server certificate for 127.0.0.1, made with openssl."""
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "server.key", "server.csr",
                                                       "server.pem"))
    extensions = folder / "san.cnf"
    extensions.write_text("subjectAltName=IP:127.0.0.1\n")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca),
        "-days", "2", "-subj", "/CN=venue test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr),
        "-subj", "/CN=127.0.0.1")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(cert), "-days", "2", "-extfile", str(extensions))
    return ca, cert, key


def test_credentials_and_tls_reach_a_locked_broker_and_wrong_ones_change_nothing(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    with LocalBroker(tmp_path / "broker", users={"venue": "v-pass", "t1": "t-pass"},
                     tls=(ca, cert, key)) as broker:
        url = f"mqtts://127.0.0.1:{broker.port}"
        room = Room("cafe", League(tmp_path / "league.sqlite"))
        venue = VenueSubscriber(room, MqttSettings.from_mapping(
            {"url": url.replace("//", "//venue:v-pass@"), "venue": "cafe", "tls_ca": str(ca)})).start()
        good_table, bad_table = played_table(2), played_table(2)
        good = TablePublisher(good_table, MqttSettings.from_mapping(
            {"url": url, "username": "t1", "password": "t-pass", "tls_ca": str(ca), "venue": "cafe",
             "table": "t1"})).start()
        bad = TablePublisher(bad_table, MqttSettings.from_mapping(
            {"url": url, "username": "t1", "password": "wrong", "tls_ca": str(ca), "venue": "cafe",
             "table": "t9"})).start()
        bad_table.add_listener(bad)
        try:
            assert venue.connected.wait(10)
            assert wait_until(lambda: room.events_of("t1", good_table.record.id) == [
                h.seq for h in good_table.history], 10), "events over TLS with a password"
            action = bad_table.game.legal_actions(bad_table.state)[0]
            bad_table.declare(action, "tablet")  # a refused broker changes nothing for play
            assert len(bad_table.history) == 3 and not bad.connected and "t9" not in room.tables
            assert wait_until(lambda: bad.link.state == "refused", 10)  # what the tablet shows
            assert "refused the table" in bad.link.detail
        finally:
            good.close(0.5)
            bad.close(0.5)
            venue.close()


def broker_log(broker: LocalBroker) -> str:
    return (broker.folder / "mosquitto.log").read_text(errors="replace")


def test_tls_cannot_fall_back_an_unverified_broker_gets_nothing(tmp_path: Path) -> None:
    """mqtts:// without a CA file checks the broker against the system's CAs: a broker with a
    certificate of our own CA fails that check, and not even the CONNECT (user name,
    password) reaches it; the tablet's link state and the doctor say why.  With the CA
    file the same settings connect, subscribe, publish and receive."""
    from companion.venue.probe import probe_broker

    ca, cert, key = make_certificates(tmp_path)
    (tmp_path / "password").write_text("t-pass\n")
    with LocalBroker(tmp_path / "broker", users={"t1": "t-pass"}, tls=(ca, cert, key)) as broker, \
            LocalBroker(tmp_path / "plain") as plain:
        url = f"mqtts://t1@127.0.0.1:{broker.port}"
        unverified = MqttSettings.from_mapping({"url": url, "password_file": str(tmp_path / "password"),
                                                "venue": "cafe", "table": "t9"})
        assert unverified.tls and unverified.tls_ca is None
        table = played_table(2)
        publisher = TablePublisher(table, unverified).start()
        table.add_listener(publisher)
        try:
            assert wait_until(lambda: publisher.link.state == "down", 10), publisher.link.state
            assert "TLS certificate not verified" in publisher.link.detail
            table.declare(table.game.legal_actions(table.state)[0], "tablet")  # play goes on
            check = probe_broker(unverified, timeout=5)
            assert not check.ok and "certificate was not verified" in check.detail and "tls_ca" in check.fix
            assert publisher.connections == 0
        finally:
            publisher.close(timeout=0.5, grace=0.5)
        log_text = broker_log(broker)
        # the TCP connection came (mosquitto logs it as new once accepted; a handshake that fails
        # within the accept, its ClientHello already there on a loaded machine, is logged only as
        # that connection failing) ...
        assert any(line in log_text for line in ("New connection from 127.0.0.1",
                                                 "Client connection from 127.0.0.1 failed"))
        assert "New client connected" not in log_text and "t9" not in log_text  # ... no CONNECT
        # mqtts:// to a plain listener: the handshake fails, nothing is sent in the clear
        check = probe_broker(MqttSettings.from_mapping({"url": f"mqtts://t1:t-pass@127.0.0.1:{plain.port}",
                                                        "tls_ca": str(ca)}), timeout=5)
        assert not check.ok and "nothing was sent" in check.detail
        assert "New client connected" not in broker_log(plain)
        verified = MqttSettings.from_mapping({"url": url, "password_file": str(tmp_path / "password"),
                                              "tls_ca": str(ca), "venue": "cafe", "table": "t1"})
        check = probe_broker(verified, timeout=5)
        assert check.ok and "connect, subscribe, publish and receive" in check.detail, check.detail


def test_doctor_checks_the_broker_named_on_its_command_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from companion.doctor import doctor

    with LocalBroker(tmp_path / "broker") as broker:
        out = CliRunner().invoke(doctor, ["--gpio", "off", "--camera", "none", "--mqtt-url", broker.url,
                                          "--venue", "cafe", "--table-name", "t1"])
        line = next(li for li in out.output.splitlines() if "broker" in li)
        assert line.startswith("[ok  ] broker") and "connect, subscribe, publish and receive" in line
        port = broker.port
    out = CliRunner().invoke(doctor, ["--gpio", "off", "--camera", "none", "--mqtt-url",
                                      f"mqtt://127.0.0.1:{port}"])
    assert out.exit_code == 1 and "[FAIL] broker" in out.output and "unreachable" in out.output


def test_venue_command_exports_the_league_and_demo_refuses_a_bad_broker_url(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from companion.cli import main

    league = League(tmp_path / "league.sqlite")
    league.record("cafe", result("t1", 1, ["Ann", "Bob"], [7, 1], [0], 1.8e9))
    league.close()
    runner = CliRunner()
    out = runner.invoke(main, ["venue", "--league", str(tmp_path / "league.sqlite"), "--export", "csv"])
    assert out.exit_code == 0 and out.output.splitlines()[1] == "1,Ann,1,1,1.0,1.0"
    out = runner.invoke(main, ["venue", "--league", str(tmp_path / "league.sqlite"), "--export", "json"])
    assert json.loads(out.output)["standings"][1]["name"] == "Bob"
    out = runner.invoke(main, ["demo", "--mqtt-url", "http://nowhere", "--data", str(tmp_path / "d")])
    assert out.exit_code == 2 and "mqtt://host" in out.output
    # a password on the command line shows in ps: refused, for the tables and the venue
    for command in (["demo", "--data", str(tmp_path / "d")], ["serve"], ["venue"]):
        out = runner.invoke(main, [*command, "--mqtt-url", "mqtt://club:s3cret@127.0.0.1"])
        assert out.exit_code == 2 and "password_file" in out.output, command
    assert not (tmp_path / "d").exists()  # refused before anything started


def test_a_table_started_before_its_broker_plays_on_and_catches_up(tmp_path: Path) -> None:
    broker = LocalBroker(tmp_path / "broker")  # configured, not started: nobody listens yet
    table = played_table(1)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="early"))
    made = calls_on_this_thread(publisher)
    publisher.start()
    table.add_listener(publisher)
    assert made == [] and not publisher.connected  # connect_async: paho's own thread dials
    before = len(table.history)
    action = table.game.legal_actions(table.state)[0]
    table.declare(action, "tablet")
    assert len(table.history) == before + 1  # play and the log go on without a broker
    try:
        broker.start()
        room = Room("cafe", League(tmp_path / "league.sqlite"))
        venue = VenueSubscriber(room, MqttSettings(port=broker.port, venue="cafe"), "late-venue").start()
        try:
            seqs = [e.seq for e in table.log.events(table.record.id)]
            # the retained state and the events (republished from the log) reach a venue that came later
            assert wait_until(lambda: room.tables.get("early") is not None
                              and room.tables["early"].state is not None
                              and room.tables["early"].state["last_seq"] == seqs[-1], 10)
            assert room.tables["early"].status == "online"
            assert room.events_of("early", table.record.id) == seqs
        finally:
            venue.close()
    finally:
        publisher.close(0.5)
        broker.stop()


def test_a_restarted_table_sends_only_what_the_broker_has_not_acknowledged(
        broker: LocalBroker, room: Room, tmp_path: Path) -> None:
    settings = MqttSettings(port=broker.port, venue="cafe", table="t5")

    def run_table(actions: int) -> Table:
        table = Table.open("times_square", tmp_path / "table", 2, None, 1)  # resumes the same game
        publisher = TablePublisher(table, settings).start()
        table.add_listener(publisher)
        try:
            for _ in range(actions):
                table.declare(table.game.legal_actions(table.state)[0], "tablet")
            seqs = [e.seq for e in table.log.events(table.record.id)]
            assert wait_until(lambda: publisher.acked_seq == seqs[-1], 5), "acknowledged"
        finally:
            publisher.close()
            table.log.close()
        return table

    first = run_table(2)
    assert json.loads((tmp_path / "table" / "mqtt-cafe-t5.json").read_text()) == {
        "game_id": first.record.id, "acked_seq": 2, "results": []}
    second = run_table(1)
    assert second.record.id == first.record.id
    assert wait_until(lambda: room.events_of("t5", first.record.id) == [1, 2, 3], 5)
    assert room.duplicates == 0  # the restart did not send events 1 and 2 again


def test_a_table_stopped_while_its_broker_is_away_hands_over_when_it_returns(
        broker: LocalBroker, room: Room) -> None:
    """A game that ends during a broker restart: closing waits (bounded) for the broker."""
    table = played_table(2)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="t6")).start()
    table.add_listener(publisher)
    game = table.record.id
    assert wait_until(lambda: len(room.events_of("t6", game)) == 2, 10), "the first events"
    broker.stop()
    assert wait_until(lambda: not publisher.connected, 5), "the publisher notices"
    for _ in range(2):
        table.declare(table.game.legal_actions(table.state)[0], "tablet")
    logged = [e.seq for e in table.log.events(game)]
    returning = threading.Timer(1.0, broker.start)
    returning.start()
    try:
        publisher.close(timeout=2.0, grace=8.0)
    finally:
        returning.join()
    assert publisher.acked_seq == logged[-1]
    assert wait_until(lambda: room.events_of("t6", game) == logged, 10), "the events of the outage"
    assert wait_until(lambda: room.tables["t6"].status == "offline", 5)


def test_closing_with_no_broker_gives_up_after_the_grace(tmp_path: Path) -> None:
    """With the broker gone for good, closing is bounded: the log keeps what was never sent."""
    table = Table.open("times_square", tmp_path / "table", 2, None, 1)
    broker = LocalBroker(tmp_path / "nobroker")  # configured, never started
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="t7")).start()
    table.add_listener(publisher)
    table.declare(table.game.legal_actions(table.state)[0], "tablet")
    waited: list[float | None] = []
    wait_for_broker = publisher._connected.wait
    publisher._connected.wait = lambda timeout=None: (waited.append(timeout), wait_for_broker(timeout))[1]
    publisher.close(timeout=0.5, grace=0.5)
    assert waited == [0.5]  # one wait, bounded by the grace given, not close's defaults
    assert publisher.acked_seq == 0
    table.log.close()


# ---------------------------------------------------------------------- a broker crash


def crash(broker: LocalBroker) -> None:
    """SIGKILL: the broker saves nothing; its sessions, queues and retained messages are gone."""
    assert broker.process is not None
    broker.process.kill()
    broker.process.wait()
    broker.process = None


def play_on(table: Table, world: Any, actions: int, refusals: list[str]) -> None:
    from companion.sim.headless import deliver

    goal = len(table.history) + actions
    for _ in range(actions * 20):
        if len(table.history) >= goal or world.finished():
            return
        for event in world.step(table.public()):
            deliver(table, event, refusals)


@pytest.mark.parametrize("late", ["venue", "table"])
def test_a_broker_crash_loses_no_event_and_no_result_whoever_comes_back_last(tmp_path: Path,
                                                                             late: str) -> None:
    """The broker is killed mid-game; the table plays on and finishes; the broker comes back
    with nothing, and the venue or the table reconnects last.  The venue asks for what it
    lacks (backfill) and gets every event once; the finished game's result reaches it and a
    venue started fresh afterwards, because the table republishes it on every connect."""
    from companion.sim.world import load_world

    broker = LocalBroker(tmp_path / "broker").start()
    room = Room("cafe", League(tmp_path / "league.sqlite"))
    venue = VenueSubscriber(room, MqttSettings(port=broker.port, venue="cafe"), "crash-venue").start()
    table = Table.open("king_of_clubs", tmp_path / "table", 2, "basic", 5, resume=False)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="t1")).start()
    table.add_listener(publisher)
    world = load_world("king_of_clubs", table.game, 2, "basic", 5)
    refusals: list[str] = []
    from companion.sim.headless import deliver

    for event in world.start():
        deliver(table, event, refusals)
    fresh: VenueSubscriber | None = None
    try:
        assert venue.connected.wait(10) and wait_until(lambda: publisher.connected, 10)
        play_on(table, world, 5, refusals)
        game = table.record.id
        assert wait_until(lambda: len(room.events_of("t1", game)) == 5, 10)
        crash(broker)
        assert wait_until(lambda: not publisher.connected and not venue.connected.is_set(), 10)
        assert not room.broker["up"]  # the room screen's banner
        late_client = venue.client if late == "venue" else publisher.client
        late_client.loop_stop()
        play_on(table, world, 500, refusals)  # to the end, with no broker
        assert table.public()["over"], "the game should end while the broker is away"
        logged = [e.seq for e in table.log.events(game)]
        broker.start()
        other = publisher if late == "venue" else None
        if other is not None:
            assert wait_until(lambda: other.connected, 10)
        else:
            assert venue.connected.wait(10)
        late_client.loop_start()
        assert wait_until(lambda: room.events_of("t1", game) == logged, 20), (
            f"{len(logged) - len(room.events_of('t1', game))} events lost")
        assert wait_until(lambda: [r["game_id"] for r in room.league.results()] == [game], 10), "a result"
        if late == "venue":
            assert room.backfills >= 1 and publisher.backfilled >= 1  # the gap was asked for
        # a second crash wipes the retained result; the table sends it again on connecting, so a
        # venue that starts fresh afterwards still counts the game
        crash(broker)
        assert wait_until(lambda: not publisher.connected, 10)
        broker.start()
        assert wait_until(lambda: publisher.connected, 10)
        league = League(tmp_path / "fresh.sqlite")
        fresh = VenueSubscriber(Room("cafe", league), MqttSettings(port=broker.port, venue="cafe"),
                                "fresh-venue").start()
        assert wait_until(lambda: [r["game_id"] for r in league.results()] == [game], 10), "fresh venue"
        assert wait_until(lambda: fresh.room.events_of("t1", game) == logged, 20), "fresh venue's backfill"
        assert refusals == []
    finally:
        publisher.close(timeout=0.5, grace=0.5)
        venue.close()
        if fresh is not None:
            fresh.close()
        broker.stop()


def test_state_is_published_only_when_what_it_shows_changes(broker: LocalBroker) -> None:
    table = played_table(2)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="q1")).start()
    try:
        assert wait_until(lambda: publisher.connected and publisher.states_sent == 1, 10)
        publisher._stopping.set()  # the publisher's own thread stops: only this test flushes now
        publisher._wake.set()
        publisher._thread.join(5)
        public = table.public()
        for second in range(1, 6):  # the clocks run; nothing else changes
            ticking = {**public, "phase_s": public["phase_s"] + second,
                       "players": [{**p, "clock_s": p["clock_s"] + second} for p in public["players"]]}
            publisher("clock", ticking)
            publisher._flush()
        assert publisher.states_sent == 1
        table.declare(table.game.legal_actions(table.state)[0], "tablet")
        publisher._flush()
        assert publisher.states_sent == 2
    finally:
        publisher.close(timeout=0.5)


def test_room_asks_for_a_gap_notices_silence_and_the_broker(tmp_path: Path) -> None:
    now = [1000.0]
    room = Room("cafe", League(tmp_path / "l.sqlite"), clock=lambda: now[0])
    asked: list[tuple[str, dict[str, Any]]] = []
    told: list[dict[str, Any]] = []
    room.ask = lambda table, request: asked.append((table, request))
    room.subscribe(told.append)
    room.broker_link(True, "127.0.0.1:1883")
    for seq in (10, 11, 14):
        room.handle("companion/cafe/t1/events",
                    topics.dumps(topics.event_payload("t1", 3, seq, "action", "x", "tablet", 1.0)))
    status = {"status": "online", "game_id": 3, "last_seq": 15, "events": 6, "at": 1.0}
    room.handle("companion/cafe/t1/status", topics.dumps(status))
    assert asked == [("t1", {"game_id": 3, "have": [[10, 11], [14, 14]]})]
    room.handle("companion/cafe/t1/status", topics.dumps(status))
    assert len(asked) == 1  # not again at once
    now[0] += 5
    room.sweep()
    assert len(asked) == 2  # still missing: asked again
    for seq in (12, 13, 15):
        room.handle("companion/cafe/t1/events",
                    topics.dumps(topics.event_payload("t1", 3, seq, "action", "x", "backfill", 1.0)))
    now[0] += 5
    room.sweep()
    assert len(asked) == 2 and room.events_of("t1", 3) == [10, 11, 12, 13, 14, 15]
    # an online table not heard from for 2.5 heartbeats is unreachable on the screen
    now[0] += topics.HEARTBEAT_S * 2.5 + 1
    room.sweep()
    assert room.snapshot()["tables"][0]["silent"] and told[-1] == {
        "type": "status", "table": "t1", "status": "online", "silent": True}
    room.broker_link(False, "127.0.0.1:1883 unreachable")
    assert told[-1]["type"] == "broker" and not told[-1]["broker"]["up"]
    assert room.snapshot()["broker"]["detail"] == "127.0.0.1:1883 unreachable"


def test_the_tablet_shows_the_venue_link_and_the_set_up_offers_known_players(tmp_path: Path) -> None:
    """No broker: a standing notice on the tablet (play goes on); the set-up's API gives the
    link's state and the venue's known players (published retained by the venue)."""
    from companion.web.app import create_app

    broker = LocalBroker(tmp_path / "broker")  # not started yet
    table = played_table(1)
    publisher = TablePublisher(table, MqttSettings(port=broker.port, venue="cafe", table="t1"))
    publisher.link.notice_after_s = 0.0
    publisher.start()
    table.add_listener(publisher)
    app = create_app(table, "111111", {"VENUE_LINK": publisher})
    client = app.test_client()
    try:
        # (the notice may show while the first attempt is still under way, "connecting", on a
        # loaded machine: the set-up page is asked once that attempt has failed)
        assert wait_until(lambda: publisher.link.state == "down" and any(
            "Venue link unreachable" in p["text"] for p in table.public()["prompts"]), 30)
        body = client.get("/api/setup/players").get_json()
        assert body["venue"]["state"] == "down" and body["players"] == []
        league = League(tmp_path / "league.sqlite")
        league.record("cafe", result("t9", 1, ["Red", "Blue"], [1, 2], [1], 1.8e9, people=["Zoe", "Yan"]))
        broker.start()
        venue = VenueSubscriber(Room("cafe", league), MqttSettings(port=broker.port, venue="cafe")).start()
        try:
            assert wait_until(lambda: publisher.known_players == ["Zoe", "Yan"] or
                              publisher.known_players == ["Yan", "Zoe"], 10)
            body = client.get("/api/setup/players").get_json()
            assert body["venue"]["state"] == "connected" and sorted(body["players"]) == ["Yan", "Zoe"]
            assert not any(p["text"].startswith("Venue link") for p in table.public()["prompts"])
        finally:
            venue.close()
    finally:
        publisher.close(timeout=0.5, grace=0.2)
        broker.stop()
    assert create_app(played_table(1), "111111").test_client().get("/api/setup/players").get_json() == {
        "venue": None, "players": []}


def test_forty_screens_open_and_the_room_still_answers(tmp_path: Path) -> None:
    """More screens than the old 32 server threads: each is a coroutine, the API still answers."""
    import http.client

    from companion.venue.app import VenueConfig, VenueService

    with LocalBroker(tmp_path / "broker") as broker:
        venue = VenueService(VenueConfig(MqttSettings(port=broker.port, venue="cafe"),
                                         league_db=tmp_path / "league.sqlite", port=0)).start()
        screens: list[http.client.HTTPConnection] = []
        try:
            for _ in range(40):
                conn = http.client.HTTPConnection("127.0.0.1", venue.port, timeout=20)
                conn.request("GET", "/events")
                response = conn.getresponse()
                assert response.status == 200 and response.readline().startswith(b"data: ")
                screens.append(conn)
            assert wait_until(lambda: venue.streams is not None and venue.streams.screens == 40, 10)
            api = http.client.HTTPConnection("127.0.0.1", venue.port, timeout=20)
            api.request("GET", "/api/room")
            answer = api.getresponse()
            assert answer.status == 200 and json.loads(answer.read())["type"] == "snapshot"
            api.close()
        finally:
            for conn in screens:
                conn.close()
            venue.stop()


def test_the_shipped_venue_broker_config_keeps_retained_messages_and_refuses_strangers(
        tmp_path: Path) -> None:
    """deploy/mosquitto.conf, its paths and ports moved to a scratch folder: it starts, refuses an
    anonymous client, serves a table with a password over loopback and a verified TLS
    listener, and a restart keeps the retained state (persistence)."""
    import pwd

    from companion.venue.broker import free_port, mosquitto_binary
    from companion.venue.probe import probe_broker

    ca, cert, key = make_certificates(tmp_path)
    passwords = tmp_path / "passwd"
    passwords.write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(passwords), "t1", "t-pass"], check=True,
                   capture_output=True)
    plain, tls = free_port(), free_port()
    shipped = (Path(__file__).parent.parent / "deploy" / "mosquitto.conf").read_text()
    assert "persistence true" in shipped and "autosave_interval 60" in shipped
    config = (shipped.replace("/var/lib/mosquitto/", f"{tmp_path}/")
              .replace("/etc/mosquitto/passwd", str(passwords))
              .replace("/etc/mosquitto/certs/ca.pem", str(ca))
              .replace("/etc/mosquitto/certs/server.pem", str(cert))
              .replace("/etc/mosquitto/certs/server.key", str(key))
              .replace("listener 1883 127.0.0.1", f"listener {plain} 127.0.0.1")
              .replace("listener 8883", f"listener {tls} 127.0.0.1")
              .replace("log_dest stderr", f"log_dest file {tmp_path}/mosquitto.log"))
    (tmp_path / "mosquitto.conf").write_text(config + f"user {pwd.getpwuid(os.geteuid()).pw_name}\n")

    def start() -> subprocess.Popen[bytes]:
        process = subprocess.Popen([mosquitto_binary(), "-c", str(tmp_path / "mosquitto.conf")],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert wait_until(lambda: probe_broker(MqttSettings(port=plain, username="t1", password="t-pass"),
                                               timeout=2).ok, 10), broker_log_at(tmp_path)
        return process

    process = start()
    try:
        stranger = probe_broker(MqttSettings(port=plain), timeout=5)
        assert not stranger.ok and "refused" in stranger.detail
        verified = MqttSettings.from_mapping({"url": f"mqtts://t1@127.0.0.1:{tls}", "password": "t-pass",
                                              "tls_ca": str(ca), "venue": "cafe", "table": "t1"})
        assert probe_broker(verified, timeout=5).ok
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="keeper")
        client.username_pw_set("t1", "t-pass")
        client.connect("127.0.0.1", plain)
        client.loop_start()
        client.publish("companion/cafe/t1/state", b'{"kept": true}', qos=1,
                       retain=True).wait_for_publish(5)
        client.disconnect()
        client.loop_stop()
        process.terminate()  # a clean stop saves the persistence file
        process.wait(10)
        assert (tmp_path / "mosquitto.db").exists()
        process = start()
        got: list[bytes] = []
        reader = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="reader")
        reader.username_pw_set("t1", "t-pass")
        reader.on_connect = lambda c, *_: c.subscribe("companion/cafe/t1/state", qos=1)
        reader.on_message = lambda c, u, m: got.append(m.payload)
        reader.connect("127.0.0.1", plain)
        reader.loop_start()
        try:
            assert wait_until(lambda: got == [b'{"kept": true}'], 10)
        finally:
            reader.disconnect()
            reader.loop_stop()
    finally:
        process.kill()
        process.wait()


def broker_log_at(folder: Path) -> str:
    log_file = folder / "mosquitto.log"
    return log_file.read_text(errors="replace") if log_file.exists() else "(no log)"


def play_to_the_end(table: Any, variant: str | None, seed: int) -> None:
    """A whole two-player game of the table's game, played by the simulated table straight in."""
    from companion.sim.headless import deliver
    from companion.sim.world import load_world

    world = load_world(table.game.name, table.game, 2, variant, seed)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    for _ in range(2000):
        if table.public()["over"]:
            break
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    assert table.public()["over"] and refusals == []


def test_a_game_replaced_before_the_publisher_woke_still_sends_its_result(tmp_path: Path) -> None:
    """A loaded Pi: the game ends and the next starts before the publisher's thread runs once.
    The ended game's result still reaches the broker (the mailbox holds only the newest view)."""
    from companion.web.setup import TableRef

    broker = LocalBroker(tmp_path / "broker").start()
    first = Table.open("times_square", tmp_path / "table", 2, None, 3, resume=False)
    ref = TableRef(first)
    publisher = TablePublisher(ref, MqttSettings(port=broker.port, venue="cafe", table="t9"))
    asleep = threading.Event()
    flush = publisher._flush
    publisher._flush = lambda: (asleep.wait(60), flush())[1]  # the thread does not get to run
    publisher.start()
    ref.add_listener(publisher)
    try:
        assert wait_until(lambda: publisher.connected, 10)
        play_to_the_end(ref, None, 3)
        ended = first.record.id
        ref.swap(Table.open("times_square", None, 2, None, 4, resume=False, log=first.log))
        ref.declare(ref.game.legal_actions(ref.state)[0], "tablet")  # the next game's views come
        assert ended not in publisher._results
        asleep.set()
        assert wait_until(lambda: ended in publisher._results, 10)
        assert publisher._results[ended]["game_id"] == ended
    finally:
        asleep.set()
        publisher.close(timeout=1.0, grace=0.0)
        broker.stop()
        first.log.close()


def test_a_fresh_venue_after_a_crash_counts_every_game_the_table_finished_lately(
        tmp_path: Path) -> None:
    """Two games finish at one table; the broker is killed (it held only the newest result);
    a venue that starts fresh afterwards sees the finished games in the table's heartbeat,
    asks for the one it lacks, and counts both."""
    from companion.web.setup import TableRef

    broker = LocalBroker(tmp_path / "broker").start()
    first = Table.open("king_of_clubs", tmp_path / "table", 2, "basic", 5, resume=False)
    ref = TableRef(first)
    publisher = TablePublisher(ref, MqttSettings(port=broker.port, venue="cafe", table="t1")).start()
    ref.add_listener(publisher)
    venue: VenueSubscriber | None = None
    try:
        assert wait_until(lambda: publisher.connected, 10)
        play_to_the_end(ref, "basic", 5)
        ref.swap(Table.open("king_of_clubs", None, 2, "basic", 6, resume=False, log=first.log))
        play_to_the_end(ref, "basic", 6)
        games = [first.record.id, ref.record.id]
        assert wait_until(lambda: list(publisher._results) == games, 10)
        crash(broker)
        broker.start()
        assert wait_until(lambda: publisher.connected, 10)
        league = League(tmp_path / "fresh.sqlite")
        room = Room("cafe", league)
        venue = VenueSubscriber(room, MqttSettings(port=broker.port, venue="cafe"), "fresh").start()
        assert wait_until(lambda: sorted(r["game_id"] for r in league.results()) == games, 15), \
            league.results()
        assert room.backfills >= 1  # the older game was asked for
    finally:
        publisher.close(timeout=0.5, grace=0.5)
        if venue is not None:
            venue.close()
        broker.stop()
        first.log.close()
