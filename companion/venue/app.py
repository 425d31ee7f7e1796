"""``companion venue``: the room's big screen, fed from the broker, and the league.

A Flask app (the same shape as the tablet's): the page, the room as JSON and the
league's exports.  Served as the tablet's dashboard is (companion.web.server): uvicorn
runs one asyncio loop, the Server-Sent Events feed (``/events``) is served natively
async, so an open screen is a coroutine and a socket, never a thread, and the Flask
routes run on a bounded pool of threads the screens never hold.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from a2wsgi import WSGIMiddleware
from flask import Flask, Response, abort, jsonify, render_template, request

from companion.venue.feed import Room, VenueSubscriber
from companion.venue.league import League
from companion.venue.settings import MqttSettings
from companion.web import sse

KEEPALIVE_S = 10.0
API_WORKERS = 8  # threads for the Flask routes (never held by a screen)
QUEUE = 500  # changes waiting for one slow screen before it is resynced whole
ENCODED_KEPT = 256  # recent changes kept encoded (every screen sends the same bytes)
BATCH = 50  # changes sent to one screen in one write at most
SWEEP_S = 2.0  # how often silent tables and unanswered backfills are looked at


def _evening() -> str | None:
    evening = request.args.get("evening") or None
    if evening is not None and not (len(evening) == 10 and evening[4] == "-" and evening[7] == "-"):
        abort(400, f"evening={evening!r}: use YYYY-MM-DD")
    return evening


def create_venue_app(room: Room) -> Flask:
    app = Flask(__name__)

    @app.get("/")
    def page() -> str:
        return render_template("venue.html", venue=room.venue)

    @app.get("/api/room")
    def room_json() -> Response:
        return jsonify(room.snapshot())

    @app.get("/api/league")
    def league_json() -> Response:
        evening = _evening()
        game = request.args.get("game") or None
        return jsonify({"evening": evening, "evenings": room.league.evenings(), "game": game,
                        "standings": room.league.standings(evening, game),
                        "kinds": room.league.standings_by_game(evening)})

    @app.get("/api/players")
    def players() -> Response:
        return jsonify({"players": room.league.people()})

    @app.get("/league.csv")
    def league_csv() -> Response:
        evening = _evening()
        name = f"league-{room.venue}-{evening or 'all'}.csv"
        return Response(room.league.export_csv(evening), mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename={name}"})

    @app.get("/league.json")
    def league_export() -> Response:
        evening = _evening()
        name = f"league-{room.venue}-{evening or 'all'}.json"
        return Response(room.league.export_json(evening), mimetype="application/json",
                        headers={"Content-Disposition": f"attachment; filename={name}"})

    return app


Scope = dict[str, Any]


class RoomStreams:
    """The ASGI app: ``/events`` natively (no thread per screen), everything else to Flask."""

    def __init__(self, room: Room, flask_app: Flask, keepalive_s: float = KEEPALIVE_S) -> None:
        self.room = room
        self.wsgi = WSGIMiddleware(flask_app, workers=API_WORKERS)
        self.keepalive_s = keepalive_s
        self.stopping = asyncio.Event()
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once a screen came
        self._encoded: dict[int, tuple[dict[str, Any], bytes]] = {}  # kept: their ids stay unique
        self._queues: set[asyncio.Queue[dict[str, Any] | None]] = set()  # one per open screen

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/events" and scope["method"] == "GET":
            await self.events(receive, send)
        else:
            await self.wsgi(scope, receive, send)

    @property
    def screens(self) -> int:
        """Room screens on the live feed now."""
        return len(self._queues)

    def _feed(self, message: dict[str, Any]) -> None:
        """The room's one feed (on the broker's thread): one wake-up of the loop per change,
        however many screens are open."""
        loop = self.loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._fan_out, message)
        except RuntimeError:  # the loop is gone: the server stopped
            self.room.unsubscribe(self._feed)

    def _fan_out(self, message: dict[str, Any]) -> None:
        for queue in list(self._queues):
            if queue.full():  # too slow to keep up: skip to a fresh snapshot
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(None)
            else:
                queue.put_nowait(message)

    async def events(self, receive: Any, send: Any) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            self.room.subscribe(self._feed)
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(maxsize=QUEUE)
        self._queues.add(queue)  # before the snapshot: a change meanwhile is sent again, not lost
        first = await asyncio.to_thread(self.room.snapshot)
        gone = asyncio.ensure_future(sse.disconnected(receive))
        stopping = asyncio.ensure_future(self.stopping.wait())
        try:
            await send(sse.START)
            await send(self._body(first))
            while not gone.done() and not stopping.done():
                got, message = await sse.next_message(queue, gone, stopping, self.keepalive_s, send)
                if not got:
                    continue
                # what queued up meanwhile goes in the same write: a busy room costs fewer sends
                messages = [message]
                while not queue.empty() and len(messages) < BATCH:
                    messages.append(queue.get_nowait())
                if None in messages:  # resynced: a fresh snapshot replaces what was queued
                    messages = [await asyncio.to_thread(self.room.snapshot)]
                chunks = [self._encode(m) for m in messages if m is not None]
                await send({"type": "http.response.body", "more_body": True, "body": b"".join(chunks)})
            await send(sse.END)
        except OSError:
            pass  # the screen went away mid-write
        finally:
            gone.cancel()
            stopping.cancel()
            self._queues.discard(queue)

    def _body(self, message: dict[str, Any]) -> dict[str, Any]:
        return {"type": "http.response.body", "more_body": True, "body": self._encode(message)}

    def _encode(self, message: dict[str, Any]) -> bytes:
        """Each change is told to every screen: encode it once, not once per screen."""
        cached = self._encoded.get(id(message))
        if cached is None or cached[0] is not message:
            cached = (message, f"data: {json.dumps(message)}\n\n".encode())
            self._encoded[id(message)] = cached
            while len(self._encoded) > ENCODED_KEPT:
                self._encoded.pop(next(iter(self._encoded)))
        return cached[1]


@dataclass
class VenueConfig:
    mqtt: MqttSettings
    league_db: Path = Path("companion-data/venue-league.sqlite")
    host: str = "127.0.0.1"
    port: int = 8100
    client_id: str | None = None


class VenueService:
    """The room model, its broker subscriber and its web server, started and stopped together."""

    def __init__(self, config: VenueConfig) -> None:
        self.config = config
        self.league = League(config.league_db)
        self.room = Room(config.mqtt.venue, self.league)
        self.subscriber = VenueSubscriber(self.room, config.mqtt, config.client_id)
        self._server: Any = None
        self._socket: socket.socket | None = None
        self.streams: RoomStreams | None = None
        self._thread: threading.Thread | None = None
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    @property
    def port(self) -> int:
        return int(self._socket.getsockname()[1]) if self._socket is not None else self.config.port

    def start(self) -> VenueService:
        self.subscriber.start()
        self.streams = RoomStreams(self.room, create_venue_app(self.room))
        self._socket = socket.create_server((self.config.host, self.config.port), backlog=2048)
        config = uvicorn.Config(self.streams, lifespan="off", log_level="warning", access_log=False,
                                timeout_graceful_shutdown=1, timeout_keep_alive=30, backlog=2048,
                                loop="asyncio", http="h11", ws="none", proxy_headers=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="venue-web", daemon=True)
        self._thread.start()
        self._sweeper = threading.Thread(target=self._sweep, name="venue-sweep", daemon=True)
        self._sweeper.start()
        for _ in range(500):
            if self._server.started:
                break
            self._stop.wait(0.01)
        return self

    def _serve(self) -> None:
        try:
            self._server.run(sockets=[self._socket])
        except OSError:  # closed while stopping
            pass

    def _sweep(self) -> None:
        while not self._stop.wait(SWEEP_S):
            self.room.sweep()

    def stop(self) -> None:
        """End the live streams first, so no screen waits on a server that is closing."""
        self._stop.set()
        self.subscriber.close()
        if self._server is not None:
            if self.streams is not None and self.streams.loop is not None:
                try:
                    self.streams.loop.call_soon_threadsafe(self.streams.stopping.set)
                except RuntimeError:  # the loop already ended
                    pass
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._sweeper is not None:
            self._sweeper.join(timeout=SWEEP_S + 1)
        if self._socket is not None:
            self._socket.close()
        self.league.close()
