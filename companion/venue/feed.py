"""The venue's side of the broker: every table of the room, live, from MQTT messages.

:class:`Room` is the model (pure bookkeeping, no I/O): it takes broker messages,
de-duplicates events by (table, game id, seq), notices the events of a game it lacks
(a table's state, heartbeat and result say how many there are) and says what to ask
for, and hands each change to the page's live feeds.  It knows whether the broker is
reachable and which tables went silent.  :class:`VenueSubscriber` is the paho client
that feeds it and sends its backfill requests.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.venue import topics
from companion.venue.league import BadResult, League
from companion.venue.settings import MqttSettings, configure_client

log = logging.getLogger(__name__)
RECENT_EVENTS = 12
ASK_AGAIN_S = 3.0  # a backfill unanswered this long is asked again (on the next message or sweep)
SILENT_AFTER_S = 2.5 * topics.HEARTBEAT_S  # an online table not heard from this long is unreachable

Feed = Callable[[dict[str, Any]], None]
Asks = list[tuple[str, dict[str, Any]]]  # (table, backfill request)


@dataclass
class TableView:
    """What the room screen knows of one table."""

    name: str
    status: str = topics.OFFLINE
    state: dict[str, Any] | None = None
    recent: list[dict[str, Any]] = field(default_factory=list)  # newest last
    event_count: int = 0  # distinct events of the current game
    game_id: int | None = None
    heard: float = 0.0  # when the venue last heard from the table
    silent: bool = False  # online, but no heartbeat for SILENT_AFTER_S
    expected: dict[int, tuple[int, int]] = field(default_factory=dict)  # game -> (last_seq, events)

    def to_json(self) -> dict[str, Any]:
        return {"table": self.name, "status": self.status, "silent": self.silent, "state": self.state,
                "recent": self.recent, "event_count": self.event_count, "game_id": self.game_id}


def ranges(seqs: Iterable[int]) -> list[list[int]]:
    """Sorted seqs as [low, high] runs: how a backfill request names what the venue has."""
    out: list[list[int]] = []
    for seq in sorted(seqs):
        if out and seq == out[-1][1] + 1:
            out[-1][1] = seq
        else:
            out.append([seq, seq])
    return out


class Room:
    """Every table of one venue; thread-safe; tells the live feeds each change."""

    def __init__(self, venue: str, league: League, clock: Callable[[], float] = time.time) -> None:
        self.venue = venue
        self.league = league
        self.clock = clock
        self.tables: dict[str, TableView] = {}
        self.seen: dict[tuple[str, int], set[int]] = {}  # (table, game_id) -> seqs
        self.duplicates = 0  # live events that arrived more than once (QoS 1 is at least once)
        self.filled = 0  # events the venue learnt from a state's history, not live
        self.rejected = 0
        self.backfills = 0  # requests sent to tables for events the venue lacked
        self.broker: dict[str, Any] = {"up": False, "since": clock(), "detail": "connecting"}
        self.ask: Callable[[str, dict[str, Any]], None] | None = None  # (table, request): the subscriber's
        self._asked: dict[tuple[str, int], float] = {}
        self._lock = threading.Lock()
        self._feeds: list[Feed] = []

    # ------------------------------------------------------------------ the feeds
    def subscribe(self, feed: Feed) -> dict[str, Any]:
        """Add a live feed (called with each change, on the broker's thread); the snapshot now."""
        with self._lock:
            self._feeds.append(feed)
        return self.snapshot()

    def unsubscribe(self, feed: Feed) -> None:
        with self._lock:
            if feed in self._feeds:
                self._feeds.remove(feed)

    def feeds(self) -> int:
        with self._lock:
            return len(self._feeds)

    def _tell(self, message: dict[str, Any]) -> None:
        for feed in list(self._feeds):
            try:
                feed(message)
            except Exception:  # noqa: BLE001 - one bad screen must not stop the room
                log.exception("a live feed failed; it is dropped")
                self.unsubscribe(feed)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            tables = []
            for name in sorted(self.tables):
                view = self.tables[name]
                seqs = sorted(self.seen.get((name, view.game_id or 0), ()))
                tables.append({**view.to_json(), "seqs": seqs})
            broker = dict(self.broker)
        return {"type": "snapshot", "venue": self.venue, "tables": tables, "broker": broker,
                **self._league()}

    def _league(self) -> dict[str, Any]:
        return {"league": self.league.standings(), "kinds": self.league.standings_by_game(),
                "results": self.league.results(limit=10)}

    def events_of(self, table: str, game_id: int) -> list[int]:
        with self._lock:
            return sorted(self.seen.get((table, game_id), ()))

    # ------------------------------------------------------------------ the broker link
    def broker_link(self, up: bool, detail: str) -> None:
        """The venue's own link to the broker: the screen says when it is unreachable."""
        with self._lock:
            if self.broker["up"] == up and self.broker["detail"] == detail:
                return
            since = self.broker["since"] if self.broker["up"] == up else self.clock()
            self.broker = {"up": up, "since": since, "detail": detail}
            broker = dict(self.broker)
            if up:  # what each table says is fresh again once it is heard
                for view in self.tables.values():
                    view.heard = self.clock()
        self._tell({"type": "broker", "broker": broker})

    def sweep(self) -> None:
        """Called every few seconds: tables gone silent, and backfills still unanswered."""
        now = self.clock()
        changed, asks = [], []
        with self._lock:
            up = self.broker["up"]
            for view in self.tables.values():
                silent = up and view.status == topics.ONLINE and now - view.heard > SILENT_AFTER_S
                if silent != view.silent:
                    view.silent = silent
                    changed.append(view)
                for game_id, (last_seq, count) in view.expected.items():
                    asks += self._gap(view.name, game_id, last_seq, count)
        for view in changed:
            self._tell({"type": "status", "table": view.name, "status": view.status, "silent": view.silent})
        self._send(asks)

    # ------------------------------------------------------------------ broker messages
    def handle(self, name: str, payload: bytes) -> None:
        """One broker message; anything malformed is counted and changes nothing."""
        parsed = topics.parse_topic(name)
        if parsed is None or parsed[0] != self.venue:
            return
        _, table, leaf = parsed
        try:
            if leaf == "backfill":  # our own requests to the tables
                return
            if leaf == "status":
                if payload:
                    self._status(table, topics.parse_status(payload))
                return
            data = json.loads(payload) if payload else None
            if data is None:  # a cleared retained message
                return
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            if leaf == "state":
                self._state(table, data)
            elif leaf == "events":
                self._event(table, data)
            elif leaf == "result":
                self._result(table, data)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, BadResult) as err:
            self.rejected += 1
            log.warning("ignored a malformed %s message from table %s: %s", leaf, table, err)

    def _view(self, table: str) -> TableView:
        view = self.tables.get(table)
        if view is None:
            view = self.tables[table] = TableView(table)
        view.heard = self.clock()
        return view

    def _expect(self, view: TableView, game_id: Any, last_seq: Any, count: Any) -> Asks:
        """Note how many events a game has up to a seq (call with the lock); what to ask for."""
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (game_id, last_seq, count)):
            return []
        known = view.expected.get(game_id, (0, 0))
        if (last_seq, count) <= known:
            return self._gap(view.name, game_id, *known)
        view.expected[game_id] = (last_seq, count)
        return self._gap(view.name, game_id, last_seq, count)

    def _gap(self, table: str, game_id: int, last_seq: int, count: int) -> Asks:
        seen = self.seen.get((table, game_id), set())
        if sum(1 for s in seen if s <= last_seq) >= count:
            self._asked.pop((table, game_id), None)
            return []
        now = self.clock()
        if now - self._asked.get((table, game_id), float("-inf")) < ASK_AGAIN_S:
            return []
        self._asked[(table, game_id)] = now
        self.backfills += 1
        return [(table, {"game_id": game_id, "have": ranges(seen)})]

    def _lacking_results(self, table: str, lacking: list[int]) -> Asks:
        """Finished games the table says it has and the league lacks (call with the lock)."""
        if not lacking:
            return []
        key = (table, -1)  # one pending request per table for its results
        if self.clock() - self._asked.get(key, float("-inf")) < ASK_AGAIN_S:
            return []
        self._asked[key] = self.clock()
        self.backfills += 1
        return [(table, {"results": lacking})]

    def _send(self, asks: Asks) -> None:
        if self.ask is None:
            return
        for table, request in asks:
            self.ask(table, request)

    def _status(self, table: str, status: dict[str, Any]) -> None:
        finished = status.get("results") or []
        lacking = [g for g in finished if isinstance(g, int) and not self.league.has(self.venue, table, g)]
        with self._lock:
            view = self._view(table)
            view.status = status["status"]
            view.silent = False
            asks = self._expect(view, status.get("game_id"), status.get("last_seq"), status.get("events"))
            asks += self._lacking_results(table, lacking)
        self._tell({"type": "status", "table": table, "status": view.status, "silent": False})
        self._send(asks)

    def _new_game(self, view: TableView, game_id: int) -> None:
        if view.game_id != game_id:
            view.game_id = game_id
            view.recent = []
            view.event_count = len(self.seen.get((view.name, game_id), ()))

    def _state(self, table: str, state: dict[str, Any]) -> None:
        game_id = int(state["game_id"])
        filled = []
        with self._lock:
            view = self._view(table)
            self._new_game(view, game_id)
            view.state = state
            # a live event missed (the broker was away) is filled from the state's history
            for entry in state.get("history") or []:
                if entry["seq"] <= int(state.get("last_seq", 0)):
                    event = topics.event_payload(table, game_id, int(entry["seq"]), "action",
                                                 str(entry["text"]), "state", float(entry["at"]))
                    if self._remember(view, event, live=False):
                        filled.append(event)
                        self.filled += 1
            asks = self._expect(view, game_id, state.get("last_seq"), state.get("events"))
        self._tell({"type": "state", "table": table, "state": state})
        for event in filled:
            self._tell({"type": "event", **event})
        self._send(asks)

    def _remember(self, view: TableView, event: dict[str, Any], live: bool = True) -> bool:
        seqs = self.seen.setdefault((view.name, int(event["game_id"])), set())
        if event["seq"] in seqs:
            if live:  # the state's history repeats known events by design; only count repeats
                self.duplicates += 1
            return False
        seqs.add(event["seq"])
        if event["game_id"] == view.game_id:
            view.event_count += 1
            view.recent.append(event)
            view.recent.sort(key=lambda e: e["seq"])
            del view.recent[:-RECENT_EVENTS]
        return True

    def _event(self, table: str, data: dict[str, Any]) -> None:
        event = topics.event_payload(table, int(data["game_id"]), int(data["seq"]), str(data["kind"]),
                                     str(data["text"]), str(data["source"]), float(data["at"]))
        with self._lock:
            view = self._view(table)
            if view.game_id is None or event["game_id"] > view.game_id:
                self._new_game(view, event["game_id"])
            fresh = self._remember(view, event)
        if fresh:
            self._tell({"type": "event", **event, "received": self.clock()})

    def _result(self, table: str, data: dict[str, Any]) -> None:
        if data.get("table") != table:
            raise ValueError(f"a result for table {data.get('table')!r} on {table}'s topic")
        recorded = self.league.record(self.venue, data)
        with self._lock:
            asks = self._expect(self._view(table), data.get("game_id"), data.get("last_seq"),
                                data.get("events"))
        if recorded:
            self._tell({"type": "league", **self._league()})
            if self.ask is not None:
                self.ask("", {"players": self.league.people()})
        self._send(asks)


class VenueSubscriber:
    """The paho client of the venue: subscribes to the venue's tables and feeds the room.

    A persistent session (``clean_session=False``, a fixed client id) lets a broker that
    keeps its sessions queue what tables publish while the venue is away; what a crashed
    broker lost, the room asks the tables for (``backfill``).  It also publishes the
    league's known players (retained) for the tables' set-up.
    """

    def __init__(self, room: Room, settings: MqttSettings, client_id: str | None = None) -> None:
        self.room = room
        self.settings = settings
        self.connected = threading.Event()
        client = mqtt.Client(CallbackAPIVersion.VERSION2,
                             client_id=client_id or f"companion-venue-{settings.venue}",
                             protocol=mqtt.MQTTv311, clean_session=False)
        configure_client(client, settings)
        client.reconnect_delay_set(0.2, 1)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client
        room.ask = self._ask

    def start(self) -> VenueSubscriber:
        self.client.connect_async(self.settings.host, self.settings.port, self.settings.keepalive)
        self.client.loop_start()
        return self

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _where(self) -> str:
        return f"{self.settings.host}:{self.settings.port}"

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("broker refused the venue: %s", reason)
            self.room.broker_link(False, f"{self._where()} refused the venue: {reason}")
            return
        client.subscribe(f"companion/{self.settings.venue}/+/+", qos=1)
        self._ask("", {"players": self.room.league.people()})
        self.connected.set()
        self.room.broker_link(True, self._where())

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        detail = f"{self._where()} unreachable"
        if self.settings.tls:
            detail += " or its TLS certificate not verified"
        self.room.broker_link(False, detail)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()
        self.room.broker_link(False, f"{self._where()} unreachable")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self.room.handle(message.topic, message.payload)

    def _ask(self, table: str, request: dict[str, Any]) -> None:
        """A backfill request to one table, or (table "") the known players to every table."""
        if table:
            name = f"companion/{self.settings.venue}/{table}/backfill"
            self.client.publish(name, topics.dumps(request), qos=1)
        else:
            self.client.publish(topics.players_topic(self.settings), topics.dumps(request["players"]),
                                 qos=1, retain=True)
