"""Set-up on the tablet: a new game with names, colours, seats and house rules (logged in
the game's options), resume, the archive with its exports and score over time, and the
service switching its running game (readers, tags, dashboards follow)."""

from __future__ import annotations

import csv
import io
import json
import queue
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from companion.games.base import HouseRule
from companion.games.times_square import TimesSquare
from companion.service import Service, ServiceConfig
from companion.sim.headless import deliver
from companion.sim.world import load_world
from companion.table import Table
from companion.web.app import create_app
from companion.web.setup import TableRef

PIN = "975310"
AUTH = {"X-Table-Pin": PIN}


@pytest.fixture
def table(tmp_path: Path) -> TableRef:
    return TableRef(Table.open("times_square", tmp_path, 2, None, 0, resume=False))


@pytest.fixture
def client(table: Table) -> FlaskClient:
    return create_app(table, PIN, {"TESTING": True}).test_client()


def new_game(client: FlaskClient, **body: Any) -> Any:
    return client.post("/api/setup/new", json=body, headers=AUTH)


def test_games_catalogue(client: FlaskClient) -> None:
    body = client.get("/api/games").get_json()
    names = {g["name"] for g in body["games"]}
    assert names == {"times_square", "king_of_clubs", "jivecat", "baron_voodoo", "swing_state"}
    koc = next(g for g in body["games"] if g["name"] == "king_of_clubs")
    assert [v["value"] for v in koc["variants"]] == ["basic", "advanced"]
    assert koc["variants"][0]["label"] == "Basic" and len(body["colours"]) >= 6


def test_each_seat_shows_the_colour_it_plays_with(client: FlaskClient) -> None:
    """Baron Voodoo's seats are Deities: Mami Wata's banner is her dice's yellow, not the
    palette's first red, at set-up and in play."""
    from companion.seats import NAMED_COLOURS

    body = client.get("/api/games").get_json()
    baron = next(g for g in body["games"] if g["name"] == "baron_voodoo")
    deities = ["yellow", "blue", "red", "purple"]
    assert baron["default_colours"] == [NAMED_COLOURS[c] for c in deities]
    assert new_game(client, game="baron_voodoo", players=2).status_code == 200
    players = client.get("/api/state").get_json()["players"]
    assert [p["colour"] for p in players] == [NAMED_COLOURS["yellow"], NAMED_COLOURS["blue"]]


def test_a_new_game_keeps_names_colours_and_seats(client: FlaskClient, table: Any) -> None:
    response = new_game(client, game="king_of_clubs", players=2, variant="basic",
                        names=["Ann", ""], colours=["#112233", ""],
                        seats={"readers": {"3": 0, "1": 1}, "buttons": {"0": 1, "1": 0}})
    assert response.status_code == 200, response.get_json()
    state = client.get("/api/state").get_json()
    assert state["game"] == "king_of_clubs" and state["game_id"] == response.get_json()["game_id"]
    assert state["players"][0]["name"] == "Ann" and state["players"][1]["name"] == "B (Salsa)"
    assert state["players"][0]["colour"] == "#112233"
    record = table.current.record
    assert record.options["seats"] == {"readers": {"3": 0, "1": 1}, "buttons": {"0": 1, "1": 0}}


@pytest.mark.parametrize("body, status", [
    ({"game": "chess", "players": 2}, 400),
    ({"game": "jivecat", "players": 9}, 400),
    ({"game": "jivecat", "players": 2, "variant": "nope"}, 400),
    ({"game": "jivecat", "players": 2, "names": ["one"]}, 400),
    ({"game": "jivecat", "players": 2, "colours": ["red", "blue"]}, 400),
    ({"game": "jivecat", "players": 2, "seats": {"readers": {"0": 5}}}, 400),
    ({"game": "jivecat", "players": 2, "house_rules": {"nope": "x"}}, 400),
    ({"game": "jivecat", "players": 2, "extra": 1}, 400),
])
def test_bad_set_up_changes_nothing(client: FlaskClient, table: Any, body: dict, status: int) -> None:
    before = table.current
    games = len(table.log.games())
    response = new_game(client, **body)
    assert response.status_code == status and response.get_json()["error"]
    assert table.current is before and len(table.log.games()) == games


def test_set_up_needs_the_pin(client: FlaskClient, table: Any) -> None:
    before = table.current
    response = client.post("/api/setup/new", json={"game": "jivecat", "players": 2})
    assert response.status_code == 403 and table.current is before


def test_house_rules_chosen_at_set_up_are_logged(tmp_path: Path, monkeypatch: Any) -> None:
    class WithRule(TimesSquare):
        house_rules = (HouseRule("bodyguards", "Bodyguards", {"two": "Two", "one": "One"}, "two",
                                 "Each player has two Bodyguards."),)

    import companion.table as table_module
    import companion.web.setup as setup_module
    monkeypatch.setattr(table_module, "load_game", lambda name: WithRule())
    monkeypatch.setattr(setup_module, "load_game", lambda name: WithRule())
    table = Table.open("times_square", tmp_path, 2, resume=False)
    client = create_app(table, PIN, {"TESTING": True}).test_client()
    assert new_game(client, game="times_square", players=2,
                    house_rules={"bodyguards": "one"}).status_code == 200
    state = client.get("/api/state").get_json()
    assert state["house_rules"] == {"bodyguards": "one"}
    archived = client.get(f"/api/archive/{state['game_id']}").get_json()
    assert archived["house_rules"] == {"Bodyguards": "One"}


def play_to_the_end(table: Table, game: str = "times_square", seed: int = 5) -> None:
    world = load_world(game, table.game, 2, None, seed)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    while not world.finished():
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    assert table.public()["over"] and not refusals


def test_resume_the_archive_and_its_exports(tmp_path: Path) -> None:
    table = Table.open("times_square", tmp_path, 2, None, 5, resume=False)
    client = create_app(table, PIN, {"TESTING": True}).test_client()
    first = table.record.id
    play_to_the_end(table)
    assert new_game(client, game="jivecat", players=2).status_code == 200
    jivecat = client.get("/api/state").get_json()["game_id"]
    assert new_game(client, game="king_of_clubs", players=2).status_code == 200
    listing = client.get("/api/log").get_json()
    assert [g["id"] for g in listing["finished"]] == [first]
    assert jivecat in [g["id"] for g in listing["unfinished"]]
    resumed = client.post("/api/setup/resume", json={"game_id": jivecat}, headers=AUTH)
    assert resumed.status_code == 200 and client.get("/api/state").get_json()["game"] == "jivecat"
    refused = client.post("/api/setup/resume", json={"game_id": first}, headers=AUTH)
    assert refused.status_code == 409 and "archive" in refused.get_json()["error"]
    assert client.post("/api/setup/resume", json={"game_id": 999}, headers=AUTH).status_code == 404

    archived = client.get(f"/api/archive/{first}").get_json()
    assert archived["over"] and archived["points"][0]["seq"] == 0
    assert archived["points"][-1]["scores"] == [p["score"] for p in archived["players"]]
    assert len(archived["points"]) == archived["moves"] + 1
    exported = client.get(f"/api/archive/{first}.json")
    assert "attachment" in exported.headers["Content-Disposition"]
    body = json.loads(exported.data)
    assert body["game"] == "times_square" and len(body["events"]) >= archived["moves"]
    rows = list(csv.reader(io.StringIO(client.get(f"/api/archive/{first}.csv").data.decode())))
    assert rows[0][:4] == ["seq", "at", "source", "move"] and len(rows) == len(body["events"]) + 1
    assert client.get("/api/archive/999.csv").status_code == 404


def test_the_service_switches_its_running_game(tmp_path: Path) -> None:
    config = ServiceConfig(game="times_square", players=2, data_dir=tmp_path, port=0, pin=PIN,
                           gpio=False, resume=False)
    service = Service(config).start()
    try:
        old = service.table.current
        heard: queue.Queue[tuple[str, str]] = queue.Queue()
        service.table.watch(lambda event, data: heard.put((event, data)))  # a live dashboard
        table = service.new_game("king_of_clubs", 2, "basic", 0, None,
                                 {"seats": {"readers": {"4": 1}, "buttons": {"2": 0}}})
        assert service.table.current is table and table is not old
        assert table._ticker is not None and old._ticker is None  # time-up alerts follow
        assert service.registry.game == "king_of_clubs"
        event, data = heard.get(timeout=30)  # a hang guard  # dashboards follow: the first delta resyncs
        assert event == "delta" and json.loads(data)["set"]["game"] == "king_of_clubs"
        assert service._seat("readers", 4) == 1 and service._seat("buttons", 2) == 0
        assert service._seat("readers", 0) == 0  # unmapped: the device's own number
        service.resume(old.record.id)
        assert service.table.record.id == old.record.id
    finally:
        service.stop()


def test_the_joining_address_is_one_other_devices_can_use(client: FlaskClient) -> None:
    reached = client.get("/api/address", base_url="http://192.168.1.20:8000").get_json()
    assert reached["url"] == "http://192.168.1.20:8000/"
    local = client.get("/api/address", base_url="http://127.0.0.1:8000").get_json()
    assert local["local"] == "http://127.0.0.1:8000/" and local["url"].endswith(":8000/")


def test_seats_take_the_colour_their_name_says(tmp_path: Path) -> None:
    from companion.seats import NAMED_COLOURS

    table = Table.open("swing_state", tmp_path, 3, resume=False)
    colours = [p["colour"] for p in table.public()["players"]]
    names = [p["name"] for p in table.public()["players"]]
    assert names[1:] == ["Red", "Blue"]
    assert colours[1:] == [NAMED_COLOURS["red"], NAMED_COLOURS["blue"]]
    assert colours[0] not in colours[1:]  # the Incumbent gets a colour nobody else has


def _board_map(tmp_path: Path, game_name: str, players: int) -> Path:
    """A board map as 'companion calibrate board' writes it, for this game at this count."""
    from companion.games import load_game
    from companion.profile import board_map_json

    game = load_game(game_name)
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board_map_json(game_name, game.layout(game.start(players, None, 0)), {})))
    return path


class _MappedSwitch:
    """The service's switcher as set-up sees it: it starts games and carries the profile."""

    def __init__(self, ref: TableRef, board: Path) -> None:
        from companion.web.setup import TableSwitch

        self._switch = TableSwitch(ref)
        self.config = ServiceConfig(board=board)
        self.started: list[str] = []

    def new_game(self, *args: Any) -> Table:
        self.started.append(args[0])
        return self._switch.new_game(*args)

    def resume(self, game_id: int) -> Table:
        return self._switch.resume(game_id)


def test_set_up_offers_only_what_the_tables_board_map_fits_and_says_what_to_do(
        table: TableRef, tmp_path: Path) -> None:
    """A table calibrated for Jivecat at 4: the catalogue marks every other game (and any
    count whose layout the map does not fit) with what to do in words, and starting one
    is refused with that sentence before anything changes; Jivecat at 4 starts."""
    switch = _MappedSwitch(table, _board_map(tmp_path, "jivecat", 4))
    client = create_app(table, PIN, {"TESTING": True}, switcher=switch).test_client()
    games = {g["name"]: g for g in client.get("/api/games").get_json()["games"]}
    assert "4" not in games["jivecat"]["blocked"]
    why = games["king_of_clubs"]["blocked"]["2"]
    assert why.startswith("This table is calibrated for Swinging Jivecat Voodoo Lounge at ") \
        and "4" in why and "print and lay out the King of Clubs sheet" in why \
        and "`companion calibrate board`" in why, why
    assert "[" not in why and "'" not in why  # a sentence, no list syntax or ids
    running = table.record.id
    answer = new_game(client, game="king_of_clubs", players=2)
    assert answer.status_code == 409 and answer.get_json()["error"] == why
    assert table.record.id == running and switch.started == []
    answer = new_game(client, game="jivecat", players=4)
    assert answer.status_code == 200 and switch.started == ["jivecat"]
    assert table.record.name == "jivecat"


def test_set_up_refusals_are_sentences_in_the_games_words(client: FlaskClient) -> None:
    answer = new_game(client, game="king_of_clubs", players=3)
    assert answer.status_code == 400
    assert answer.get_json()["error"] == "King of Clubs is played by 2 or 4 players."
    answer = new_game(client, game="king_of_clubs", players=2, variant="expert")
    assert answer.get_json()["error"] == \
        "King of Clubs has no variant called Expert: choose Basic or Advanced."
