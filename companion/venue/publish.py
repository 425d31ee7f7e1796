"""The table-side MQTT publisher: the table's public state and its logged events.

The table never waits for the broker.  The table's listener only drops the newest
public state into a one-slot mailbox and wakes this publisher's own thread; that
thread reads the *log* for events it has not handed to the broker yet, so the log,
not memory, is the buffer while the broker is away.  Events are handed to paho only
while connected, each exactly once, with its log sequence number; paho keeps every
unacknowledged QoS 1 message and resends it (with DUP) after reconnecting, and the
PUBACKs (``on_publish``) move :attr:`TablePublisher.acked_seq`, noted beside the log so
a restarted table does not send again what the broker already has.  After a reconnect
the publisher marks the table online again, republishes its retained state, its newest
finished result and discovery, and hands over the events logged while the broker was gone.

A broker that crashes loses what it held only in memory: the venue's queued events and
the retained messages.  The venue then asks for what it lacks (``backfill``: the seqs it
has of a game) and the publisher answers from the log.  The state is published only when
what it shows changes; the retained ``status`` carries a heartbeat with the newest seq
handed over, so a venue notices a gap even when nothing changes.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from companion.games.base import Prompt
from companion.table import Table
from companion.venue import topics
from companion.venue.settings import MqttSettings, configure_client

log = logging.getLogger(__name__)

RECONNECT_MIN_S = 0.2
RECONNECT_MAX_S = 1  # recovery within ~1 s of the broker's return
MAX_INFLIGHT = 200
NOTICE_AFTER_S = 5.0  # the tablet says the venue link is down once it has been down this long
BACKFILL_MAX = 5000  # events sent for one backfill request at most
RESULTS_KEPT = 20  # finished games kept beside the log and sent again when a venue lacks them


class VenueLink:
    """The table's link to the venue's broker as the tablet shows it: a standing notice on the
    table's status once the link has been down a while (cleared when it is back), and the
    state the set-up page shows.  Play never waits for it."""

    def __init__(self, table: Any, where: str, notice_after_s: float = NOTICE_AFTER_S) -> None:
        self.table = table
        self.state = "connecting"  # connecting, connected, down, refused
        self.detail = where
        self.notice_after_s = notice_after_s
        self._since = time.monotonic()
        self._at = time.time()
        self._noticed = False

    def set(self, state: str, detail: str) -> None:
        if state != self.state:
            self._since, self._at = time.monotonic(), time.time()
        self.state, self.detail = state, detail
        if state == "connected":
            self._notice(None)

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "detail": self.detail,
                "since_s": round(time.monotonic() - self._since, 1)}

    def check(self) -> None:
        """Called about once a second while the link is not up."""
        if self.state == "connected" or time.monotonic() - self._since < self.notice_after_s:
            return
        what = "refused" if self.state == "refused" else "unreachable"
        self._notice(f"Venue link {what} since {time.strftime('%H:%M', time.localtime(self._at))} "
                     f"({self.detail}): play goes on, the venue catches up when it is back.")

    def _notice(self, text: str | None) -> None:
        notice = getattr(self.table, "notice", None)
        if notice is None or (text is None and not self._noticed):
            return
        try:
            notice("venue", Prompt(text, "info") if text else None)
            self._noticed = text is not None
        except Exception:  # noqa: BLE001 - the tablet's notice must never stop the publisher
            log.exception("could not show the venue link's state on the tablet")


class TablePublisher:
    """Publish one table to a broker; add it with ``table.add_listener(publisher)``."""

    def __init__(self, table: Table, settings: MqttSettings, clock: Any = time.time) -> None:
        self.table = table
        self.settings = settings
        self.clock = clock
        self._latest: dict[str, Any] | None = None  # the one-slot mailbox
        # the last view that showed a game over, with its start and people: see _flush
        self._ended: tuple[dict[str, Any], float, list[str | None]] | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()
        self._game_id: int | None = None
        self._handed_seq = 0  # newest event seq handed to paho for the current game
        self._handed: list[int] = []  # handed, not yet acknowledged, in order
        self._acked: set[int] = set()
        self._inflight: dict[int, int] = {}  # paho mid -> event seq
        self._early_acks: set[int] = set()  # mids acknowledged before they were noted
        self._not_events: set[int] = set()  # mids of state, status, result, discovery
        self.acked_seq = 0  # every event of the game up to this seq reached the broker
        self._result_sent: int | None = None
        self._saved_ack: tuple[int | None, int] = (None, 0)
        self.ack_file = self._ack_file()
        self.connections = 0
        self.coalesced = 0  # changes folded into a flush already due
        self.backfilled = 0  # events sent again because a venue asked
        self.states_sent = 0
        self._state_key: str | None = None  # what the last published state showed (no clocks)
        self._handed_count = 0  # events of the game up to _handed_seq
        self._results: dict[int, dict[str, Any]] = {}  # the newest finished games by id, oldest first
        self._heartbeat_at = 0.0
        self._requests: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=100)
        self.known_players: list[str] = []  # the venue's list, for the set-up's name picker
        self.link = VenueLink(table, f"{settings.host}:{settings.port}")
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{settings.table}", daemon=True)
        client = mqtt.Client(CallbackAPIVersion.VERSION2,
                             client_id=f"companion-{settings.venue}-{settings.table}",
                             protocol=mqtt.MQTTv311, clean_session=True)
        client.will_set(topics.topic(settings, "status"), topics.dumps({"status": topics.OFFLINE}),
                        qos=1, retain=True)
        configure_client(client, settings)
        client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
        client.max_inflight_messages_set(MAX_INFLIGHT)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        client.on_connect_fail = self._on_connect_fail
        self.client = client

    # ------------------------------------------------------------------ life
    def _ack_file(self) -> Path | None:
        """Beside the log: the newest seq the broker acknowledged, so a restart does not resend."""
        if self.table.log.path == ":memory:":
            return None
        return Path(self.table.log.path).parent / f"mqtt-{self.settings.venue}-{self.settings.table}.json"

    def _load_ack(self) -> None:
        if self.ack_file is None or not self.ack_file.exists():
            return
        try:
            saved = json.loads(self.ack_file.read_text())
            game_id, seq = int(saved["game_id"]), int(saved["acked_seq"])
        except (OSError, ValueError, KeyError, TypeError):
            log.warning("ignored an unreadable %s: every event of the game is sent again", self.ack_file)
            return
        for result in saved.get("results") or []:
            if isinstance(result, dict) and isinstance(result.get("game_id"), int):
                self._results[result["game_id"]] = result
        if self._results:
            self._result_sent = list(self._results)[-1]
        if game_id == self.table.record.id:
            self._game_id, self._handed_seq, self.acked_seq = game_id, seq, seq
            self._handed_count = sum(1 for e in self.table.log.events(game_id) if e.seq <= seq)
            self._saved_ack = (game_id, seq)

    def _save_ack(self, force: bool = False) -> None:
        with self._lock:
            current = (self._game_id, self.acked_seq)
            results = list(self._results.values())
        if self.ack_file is None or (current == self._saved_ack and not force) or current[0] is None:
            return
        try:
            tmp = self.ack_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({"game_id": current[0], "acked_seq": current[1], "results": results}))
            tmp.replace(self.ack_file)
            self._saved_ack = current
        except OSError as err:  # a full disk must not stop the table
            log.warning("could not note the broker's acknowledgements in %s: %s", self.ack_file, err)

    def start(self) -> TablePublisher:
        """Connect in the background (a missing broker is retried, never waited for)."""
        self._load_ack()
        self.client.connect_async(self.settings.host, self.settings.port, self.settings.keepalive)
        self.client.loop_start()
        self._thread.start()
        self("start", self.table.public())
        return self

    def close(self, timeout: float = 2.0, grace: float = 5.0) -> None:
        """Hand over what the broker lacks, say offline (retained), disconnect.

        A table stopped while its broker is away (a game ended during a broker restart)
        waits up to ``grace`` seconds for the broker to return, so the game's last events
        reach the venue now rather than at the table's next start; then up to ``timeout``
        for their acknowledgements.  Whatever is still unacknowledged is noted beside the
        log and sent again when the table starts next.
        """
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=timeout)
        if self._unsent() and not self._connected.is_set():
            self._connected.wait(grace)
        if self._connected.is_set():
            try:
                self._flush()
            except Exception:  # noqa: BLE001 - closing must not fail on a last bad flush
                log.exception("could not hand the last events to the broker")
            deadline = time.monotonic() + timeout
            while self._unsent() and self._connected.is_set() and time.monotonic() < deadline:
                time.sleep(0.02)
            info = self._publish_other(topics.topic(self.settings, "status"),
                                       topics.dumps(self._status(topics.OFFLINE)), retain=True)
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError):
                pass
        self._save_ack()
        self.client.disconnect()
        self.client.loop_stop()

    def _unsent(self) -> bool:
        """Whether the log holds an event of this game that the broker has not acknowledged."""
        game_id = self.table.record.id
        events = self.table.log.events(game_id)
        if not events:
            return False
        with self._lock:
            acked = self.acked_seq if self._game_id == game_id else 0
        return events[-1].seq > acked

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # ------------------------------------------------------------------ the table's side
    def __call__(self, kind: str, public: dict[str, Any]) -> None:
        """The table listener: never blocks, never raises, whatever the broker does."""
        if self._wake.is_set():
            self.coalesced += 1  # the next flush reads the log anyway: nothing is lost
        if public.get("over"):  # kept apart: the next game's views may come before the next flush
            self._ended = (public, self.table.record.created, _people(self.table))
        self._latest = public
        self._wake.set()

    # ------------------------------------------------------------------ paho's callbacks
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.warning("broker %s:%s refused the table: %s", self.settings.host, self.settings.port, reason)
            self.link.set("refused", f"the broker refused the table: {reason}")
            return
        self.connections += 1
        client.subscribe([(topics.topic(self.settings, "backfill"), 1),
                          (topics.players_topic(self.settings), 1)])
        with self._lock:
            self._state_key = None  # the broker may have lost the retained state: send it again
        self._publish_other(topics.topic(self.settings, "status"), topics.dumps(self._status(topics.ONLINE)),
                            retain=True)
        self._heartbeat_at = 0.0  # again after the first flush, with the events handed by then
        for name, config in topics.discovery_messages(self.settings):
            self._publish_other(name, topics.dumps(config), retain=True)
        if self._results:  # a crashed broker forgot it; a fresh venue needs it
            self._publish_other(topics.topic(self.settings, "result"), topics.dumps(self._last_result()),
                                retain=True)
        self._connected.set()
        self.link.set("connected", f"{self.settings.host}:{self.settings.port}")
        self._wake.set()

    def _on_connect_fail(self, client: Any, userdata: Any) -> None:
        """TCP or TLS failed before MQTT: nothing was sent.  Say why on the tablet."""
        detail = f"{self.settings.host}:{self.settings.port} unreachable"
        if self.settings.tls:
            detail += " or its TLS certificate not verified (nothing was sent)"
        self.link.set("down", detail)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._connected.clear()
        if not self._stopping.is_set():
            log.info("broker gone (%s); the table goes on and catches up on reconnect", reason)
            if self.link.state != "refused":  # a refused CONNECT is followed by a disconnect
                self.link.set("down", f"{self.settings.host}:{self.settings.port} unreachable")

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """A venue's backfill request, or the venue's list of known players."""
        try:
            data = json.loads(message.payload) if message.payload else None
        except ValueError:
            log.warning("ignored a malformed message on %s", message.topic)
            return
        if message.topic == topics.players_topic(self.settings):
            if isinstance(data, list) and all(isinstance(n, str) for n in data):
                self.known_players = data[:500]
            return
        if not _request_ok(data):
            log.warning("ignored a malformed backfill request: %r", data)
            return
        try:
            self._requests.put_nowait(data)
            self._wake.set()
        except queue.Full:
            log.warning("too many backfill requests waiting; this one is dropped (the venue asks again)")

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self._lock:
            if mid in self._not_events:
                self._not_events.discard(mid)
                return
            seq = self._inflight.pop(mid, None)
            if seq is None:
                self._early_acks.add(mid)  # acknowledged before the publishing thread noted it
                return
            self._ack(seq)

    def _publish_other(self, name: str, payload: bytes | str, retain: bool) -> Any:
        """Publish a message that is not a live event, so its PUBACK moves nothing."""
        info = self.client.publish(name, payload, qos=1, retain=retain)
        with self._lock:
            if info.mid in self._early_acks:
                self._early_acks.discard(info.mid)
            else:
                self._not_events.add(info.mid)
        return info

    def _ack(self, seq: int) -> None:
        """Move acked_seq over every event acknowledged without a gap (call with the lock)."""
        self._acked.add(seq)
        while self._handed and self._handed[0] in self._acked:
            done = self._handed.pop(0)
            self._acked.discard(done)
            self.acked_seq = done

    def _status(self, status: str) -> dict[str, Any]:
        """The retained status: online or offline, the newest event handed over and the games
        finished lately (the heartbeat: a venue sees what it lacks)."""
        with self._lock:
            return {"status": status, "game_id": self._game_id, "last_seq": self._handed_seq,
                    "events": self._handed_count, "results": list(self._results),
                    "at": round(self.clock(), 1)}

    def _last_result(self) -> dict[str, Any]:
        with self._lock:
            return self._results[list(self._results)[-1]]

    def link_state(self) -> dict[str, Any]:
        """What the tablet's set-up shows of the link to the venue's broker."""
        return self.link.to_json()

    # ------------------------------------------------------------------ the publisher's thread
    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(timeout=1.0)
            if self._stopping.is_set():
                return
            self._wake.clear()
            if self._connected.is_set():
                try:
                    self._flush()
                    self._backfill()
                    self._heartbeat()
                except Exception:  # noqa: BLE001 - the publisher must outlive any one bad flush
                    log.exception("publishing the table failed; retrying on the next change")
            else:
                self.link.check()
            self._save_ack()

    def _heartbeat(self) -> None:
        if time.monotonic() - self._heartbeat_at >= topics.HEARTBEAT_S:
            self._heartbeat_at = time.monotonic()
            self._publish_other(topics.topic(self.settings, "status"),
                                topics.dumps(self._status(topics.ONLINE)), retain=True)

    def _texts(self, public: dict[str, Any] | None) -> dict[int, str]:
        texts = {h.seq: h.text for h in list(self.table.history)}
        texts.update({h["seq"]: h["text"] for h in (public or {}).get("history") or []})
        return texts

    def _backfill(self) -> None:
        """Answer the venue's requests: every handed event of the game it lacks, from the log."""
        while True:
            try:
                request = self._requests.get_nowait()
            except queue.Empty:
                return
            if "results" in request:  # games the venue lacks: sent again, not retained
                for game_id in request["results"]:
                    if game_id in self._results and self._connected.is_set():
                        self._publish_other(topics.topic(self.settings, "result"),
                                            topics.dumps(self._results[game_id]), retain=False)
                continue
            game_id = int(request["game_id"])
            have = request.get("have") or []
            with self._lock:
                through = self._handed_seq if game_id == self._game_id else None
            missing = [e for e in self.table.log.events(game_id)
                       if (through is None or e.seq <= through) and not _in_ranges(e.seq, have)]
            texts = self._texts(self._latest) if game_id == self.table.record.id else {}
            for event in missing[:BACKFILL_MAX]:
                if not self._connected.is_set():
                    return
                text = "Undo" if event.kind == "undo" else texts.get(event.seq, "")
                payload = topics.event_payload(self.settings.table, game_id, event.seq, event.kind, text,
                                               event.source, event.at)
                self._publish_other(topics.topic(self.settings, "events"), topics.dumps(payload),
                                    retain=False)
                self.backfilled += 1

    def _flush(self) -> None:
        """Hand the events not handed yet (from the log), then the state if it changed, then a result.

        A game that ended and was replaced by the next before this thread woke (a loaded Pi, a
        quick "new game") is finished first, from the public view it ended with: the one-slot
        mailbox holds only the new game's, and its result would never reach the league."""
        ended = self._ended
        if ended is not None and ended[0]["game_id"] != self.table.record.id \
                and self._result_sent != ended[0]["game_id"]:
            self._flush_game(ended[0]["game_id"], ended[0], ended[1], ended[2])
        public = self._latest
        if public is None:
            return
        self._flush_game(self.table.record.id, public, self.table.record.created, _people(self.table))

    def _flush_game(self, game_id: int, public: dict[str, Any], started: float,
                    people: list[str | None]) -> None:
        if game_id != self._game_id:
            with self._lock:
                self._game_id = game_id
                self._handed_seq = 0
                self._handed_count = 0
                self._handed.clear()
                self._acked.clear()
                self.acked_seq = 0
        settings = self.settings
        logged = self.table.log.events(game_id)
        events = [e for e in logged if e.seq > self._handed_seq]
        if not events:
            texts = {}
        elif game_id == self.table.record.id:
            texts = self._texts(public)
        else:  # an ended game's lines: the table's own history is the next game's now
            texts = {h["seq"]: h["text"] for h in public.get("history") or []}
        for event in events:
            if not self._connected.is_set():
                return  # the rest comes from the log after the reconnect
            text = "Undo" if event.kind == "undo" else texts.get(event.seq, "")
            payload = topics.event_payload(settings.table, game_id, event.seq, event.kind, text,
                                           event.source, event.at)
            # never hold our lock inside paho: its thread holds its own while calling on_publish
            info = self.client.publish(topics.topic(settings, "events"), topics.dumps(payload), qos=1)
            if info.rc not in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
                log.warning("event %s not handed to the broker (%s); retrying later", event.seq, info.rc)
                return
            # NO_CONN: paho keeps it and sends it after reconnecting, so it is handed.
            with self._lock:
                self._handed.append(event.seq)
                self._handed_seq = event.seq
                self._handed_count += 1
                if info.mid in self._early_acks:  # the PUBACK beat us here
                    self._early_acks.discard(info.mid)
                    self._ack(event.seq)
                else:
                    self._inflight[info.mid] = event.seq
        # the retained state only when what it shows changed (a running clock is not a change:
        # a screen adds now - at to the clock of the player on turn)
        state = topics.state_payload(public, settings.table, self._handed_seq, self.clock(),
                                     self._handed_count, _people(self.table))
        key = topics.state_key(state)
        with self._lock:
            changed = key != self._state_key
            self._state_key = key
        if changed:
            self._publish_other(topics.topic(settings, "state"), topics.dumps(state), retain=True)
            self.states_sent += 1
        if public["over"] and self._result_sent != game_id:
            result = topics.result_payload(public, settings.table, started, self.clock(),
                                           self._handed_seq, self._handed_count, people)
            info = self._publish_other(topics.topic(settings, "result"), topics.dumps(result), retain=True)
            if info.rc in (MQTTErrorCode.MQTT_ERR_SUCCESS, MQTTErrorCode.MQTT_ERR_NO_CONN):
                self._result_sent = game_id
                with self._lock:  # the paho thread reads them for the status
                    self._results.pop(game_id, None)
                    self._results[game_id] = result
                    while len(self._results) > RESULTS_KEPT:
                        self._results.pop(next(iter(self._results)))
                self._save_ack(force=True)


def _people(table: Any) -> list[str | None]:
    """The person at each seat, as the set-up named them (None: a seat nobody named)."""
    chosen = table.record.options.get("names") or []
    return [str(chosen[i]).strip() or None if i < len(chosen) and chosen[i] else None
            for i in range(table.record.players)]


def _request_ok(data: Any) -> bool:
    """``{"game_id": N, "have": [[low, high], ...]}`` (events) or ``{"results": [game ids]}``."""
    if not isinstance(data, dict):
        return False
    if "results" in data:
        ids = data["results"]
        return isinstance(ids, list) and len(ids) <= RESULTS_KEPT and all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids)
    return isinstance(data.get("game_id"), int) and not isinstance(data.get("game_id"), bool) \
        and _ranges_ok(data.get("have", []))


def _ranges_ok(ranges: Any) -> bool:
    return isinstance(ranges, list) and len(ranges) <= 10000 and all(
        isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in r)
        for r in ranges)


def _in_ranges(seq: int, ranges: list[list[int]]) -> bool:
    return any(low <= seq <= high for low, high in ranges)

