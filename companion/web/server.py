"""The dashboard served event-driven: the live stream holds no thread per client.

uvicorn runs one asyncio loop.  ``/api/events`` is served natively async (a dashboard
waiting for the next change is a coroutine and a socket, not a worker thread); every
other route is the Flask app, mounted with a2wsgi on a bounded pool of worker threads
that the streams never use.  500 idle dashboards leave that pool to the API.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import Any

import uvicorn
from a2wsgi import WSGIMiddleware
from flask import Flask

from companion.table import Table
from companion.web.app import KEEPALIVE_S, dumps

log = logging.getLogger(__name__)

API_WORKERS = 16  # threads for the Flask routes (never held by a stream)
QUEUE = 200  # changes waiting for one slow dashboard before it is resynced whole

Scope = dict[str, Any]


class EventStreams:
    """The ASGI app: ``/api/events`` natively, everything else to the Flask app."""

    def __init__(self, table: Table, flask_app: Flask, keepalive_s: float = KEEPALIVE_S,
                 workers: int = API_WORKERS) -> None:
        self.table = table
        self.wsgi = WSGIMiddleware(flask_app, workers=workers)
        self.keepalive_s = keepalive_s
        self.streams = 0

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if (scope["type"] == "http" and scope["path"] == "/api/events"
                and scope["method"] == "GET"):
            await self.events(receive, send)
        else:
            await self.wsgi(scope, receive, send)

    async def events(self, receive: Any, send: Any) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue(maxsize=QUEUE)

        def put(event: str, data: str) -> None:
            if queue.full():  # too slow to keep up: skip to a fresh full state
                while not queue.empty():
                    queue.get_nowait()
                event, data = "resync", ""
            queue.put_nowait((event, data))

        def watcher(event: str, data: str) -> None:  # on the thread that changed the table
            try:
                loop.call_soon_threadsafe(put, event, data)
            except RuntimeError:  # the loop is gone: the server stopped
                self.table.unwatch(watcher)

        first = await asyncio.to_thread(self.table.watch, watcher)
        self.streams += 1
        gone = asyncio.ensure_future(self._disconnected(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]})
            await send(self._body("state", first))
            while not gone.done():
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, gone}, timeout=self.keepalive_s,
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    if not done:
                        await send({"type": "http.response.body", "body": b": keepalive\n\n",
                                    "more_body": True})
                    continue
                event, data = getter.result()
                if event == "resync":
                    event, data = "state", dumps(await asyncio.to_thread(self.table.public))
                await send(self._body(event, data))
        except OSError:
            pass  # the client went away mid-write
        finally:
            gone.cancel()
            self.streams -= 1
            self.table.unwatch(watcher)

    async def _disconnected(self, receive: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return

    @staticmethod
    def _body(event: str, data: str) -> dict[str, Any]:
        return {"type": "http.response.body", "more_body": True,
                "body": f"event: {event}\ndata: {data}\n\n".encode()}


class DashboardServer:
    """uvicorn on its own thread; ``port`` 0 binds any free port."""

    def __init__(self, table: Table, flask_app: Flask, host: str, port: int,
                 workers: int = API_WORKERS) -> None:
        keepalive = float(flask_app.config.get("KEEPALIVE_S", KEEPALIVE_S))
        self.app = EventStreams(table, flask_app, keepalive, workers)
        self.socket = socket.create_server((host, port), reuse_port=False, backlog=2048)
        self.port = int(self.socket.getsockname()[1])
        config = uvicorn.Config(self.app, lifespan="off", log_level="warning",
                                access_log=False, timeout_graceful_shutdown=1,
                                timeout_keep_alive=30, backlog=2048, loop="asyncio",
                                http="h11", ws="none", proxy_headers=False)  # no spoofed client ids
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def start(self) -> DashboardServer:
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.server.run(sockets=[self.socket])
        except OSError:  # closed while stopping
            pass

    def wait_started(self, timeout: float = 5.0) -> bool:
        deadline = threading.Event()
        for _ in range(int(timeout / 0.01)):
            if self.server.started:
                return True
            deadline.wait(0.01)
        return self.server.started

    def close(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.socket.close()
