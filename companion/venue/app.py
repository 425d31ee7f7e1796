"""``companion venue``: the room's big screen, fed from the broker, and the league.

A Flask app (the same shape as the tablet's) served by waitress: the page, the room
as JSON, a Server-Sent Events feed of every change, and the league's exports.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request
from waitress.server import create_server

from companion.venue.feed import Room, VenueSubscriber
from companion.venue.league import League
from companion.venue.settings import MqttSettings

KEEPALIVE_S = 10.0


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
        return jsonify({"evening": evening, "evenings": room.league.evenings(),
                        "standings": room.league.standings(evening)})

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

    @app.get("/events")
    def events() -> Response:
        def stream() -> Iterator[str]:
            q = room.subscribe()
            try:
                yield f"data: {json.dumps(room.snapshot())}\n\n"
                while True:
                    try:
                        message = q.get(timeout=KEEPALIVE_S)
                    except queue.Empty:
                        yield ": keepalive\n\n"  # also how a gone screen frees its thread
                        continue
                    if message is None:  # the venue is stopping: end the stream cleanly
                        return
                    yield f"data: {json.dumps(message)}\n\n"
            finally:
                room.unsubscribe(q)

        return Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return app


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
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        port = self._server.effective_port if self._server is not None else self.config.port
        return f"http://{self.config.host}:{port}"

    def start(self) -> VenueService:
        self.subscriber.start()
        app = create_venue_app(self.room)
        self._server = create_server(app, host=self.config.host, port=self.config.port, threads=32,
                                     connection_limit=100, channel_timeout=30)
        self._thread = threading.Thread(target=self._serve, name="venue-web", daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        try:
            self._server.run()
        except OSError:  # closed while stopping
            pass

    def stop(self) -> None:
        """End the live streams first, so no worker writes to a server that is closing."""
        self.subscriber.close()
        self.room.end_feeds()
        deadline = time.monotonic() + 2.0
        while self.room.feeds() and time.monotonic() < deadline:
            time.sleep(0.02)
        if self._server is not None:
            self._server.close()
        if self._thread is not None:
            self._thread.join(timeout=3)
        self.league.close()
