"""The venue's side of the broker: every table of the room, live, from MQTT messages.

:class:`Room` is the model (pure bookkeeping, no I/O): it takes broker messages,
de-duplicates events by (table, game id, seq) and hands each change to the page's
live feed.  :class:`VenueSubscriber` is the paho client that feeds it.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.venue import topics
from companion.venue.league import BadResult, League
from companion.venue.settings import MqttSettings, configure_client

log = logging.getLogger(__name__)
RECENT_EVENTS = 12


@dataclass
class TableView:
    """What the room screen knows of one table."""

    name: str
    status: str = topics.OFFLINE
    state: dict[str, Any] | None = None
    recent: list[dict[str, Any]] = field(default_factory=list)  # newest last
    event_count: int = 0  # distinct events of the current game
    game_id: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"table": self.name, "status": self.status, "state": self.state,
                "recent": self.recent, "event_count": self.event_count, "game_id": self.game_id}


class Room:
    """Every table of one venue; thread-safe; tells subscribers (the SSE feed) each change."""

    def __init__(self, venue: str, league: League, clock: Callable[[], float] = time.time) -> None:
        self.venue = venue
        self.league = league
        self.clock = clock
        self.tables: dict[str, TableView] = {}
        self.seen: dict[tuple[str, int], set[int]] = {}  # (table, game_id) -> seqs
        self.duplicates = 0  # live events that arrived more than once (QoS 1 is at least once)
        self.filled = 0  # events the venue learnt from a state's history, not live
        self.rejected = 0
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue[dict[str, Any] | None]] = []

    # ------------------------------------------------------------------ the feed
    def subscribe(self) -> queue.Queue[dict[str, Any] | None]:
        q: queue.Queue[dict[str, Any] | None] = queue.Queue(maxsize=1000)
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any] | None]) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def end_feeds(self) -> None:
        """Tell every live feed to end (the venue is stopping)."""
        for q in list(self._subscribers):
            try:
                q.put_nowait(None)
            except queue.Full:
                pass

    def feeds(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def _tell(self, message: dict[str, Any]) -> None:
        for q in list(self._subscribers):
            try:
                q.put_nowait(message)
            except queue.Full:  # a stalled screen must not stall the room
                pass

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            tables = []
            for name in sorted(self.tables):
                view = self.tables[name]
                seqs = sorted(self.seen.get((name, view.game_id or 0), ()))
                tables.append({**view.to_json(), "seqs": seqs})
        return {"type": "snapshot", "venue": self.venue, "tables": tables,
                "league": self.league.standings(), "results": self.league.results()[:10]}

    def events_of(self, table: str, game_id: int) -> list[int]:
        with self._lock:
            return sorted(self.seen.get((table, game_id), ()))

    # ------------------------------------------------------------------ broker messages
    def handle(self, name: str, payload: bytes) -> None:
        """One broker message; anything malformed is counted and changes nothing."""
        parsed = topics.parse_topic(name)
        if parsed is None or parsed[0] != self.venue:
            return
        _, table, leaf = parsed
        try:
            if leaf == "status":
                self._status(table, payload.decode())
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
        return view

    def _status(self, table: str, status: str) -> None:
        if status not in (topics.ONLINE, topics.OFFLINE):
            raise ValueError(f"status {status!r}")
        with self._lock:
            view = self._view(table)
            view.status = status
        self._tell({"type": "status", "table": table, "status": status})

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
        self._tell({"type": "state", "table": table, "state": state})
        for event in filled:
            self._tell({"type": "event", **event})

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
        if self.league.record(self.venue, data):
            self._tell({"type": "league", "league": self.league.standings(),
                        "results": self.league.results()[:10]})


class VenueSubscriber:
    """The paho client of the venue: subscribes to the venue's tables and feeds the room.

    A persistent session (``clean_session=False``, a fixed client id) lets a broker that
    keeps its sessions queue what tables publish while the venue is away.
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
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        self.client = client

    def start(self) -> VenueSubscriber:
        self.client.connect_async(self.settings.host, self.settings.port, self.settings.keepalive)
        self.client.loop_start()
        return self

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("broker refused the venue: %s", reason)
            return
        client.subscribe(f"companion/{self.settings.venue}/+/+", qos=1)
        self.connected.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self.room.handle(message.topic, message.payload)
