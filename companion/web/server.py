"""The dashboard served event-driven, and no client able to starve it.

uvicorn runs one asyncio loop.  ``/api/events`` is served natively async (a dashboard
waiting for the next change is a coroutine and a socket, not a worker thread); every
other route is the Flask app, mounted with a2wsgi on a bounded pool of worker threads
that the streams never use.  500 idle dashboards leave that pool to the API.

A client on the cafe's network may be hostile, so nothing a client sends can hold a
resource for long (issue 42):

- a request's body is read on the event loop, with a size and a time limit, before a
  worker thread is taken for it (a2wsgi alone reads it on the worker, where an unfinished
  body held the thread for as long as the client liked);
- a connection must deliver its request headers within :data:`HEADER_S` of opening or of
  its previous answer, and an idle kept-alive connection closes after :data:`IDLE_S`;
- the server keeps at most :func:`connection_cap` connections, below the process's
  file limit; when full, the oldest connection that has not yet handed a whole request
  to the app (half-open, trickling headers or a body, idle) is closed for the newcomer,
  so half-open connections can never lock a real tablet out, and ``accept`` never meets
  ``EMFILE``.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import uvicorn
from a2wsgi import WSGIMiddleware
from flask import Flask
from uvicorn.protocols.http.h11_impl import H11Protocol

from companion.table import Table
from companion.web import sse
from companion.web.app import KEEPALIVE_S, dumps

log = logging.getLogger(__name__)

API_WORKERS = 16  # threads for the Flask routes (never held by a stream)
QUEUE = 200  # changes waiting for one slow dashboard before it is resynced whole
HEADER_S = 10.0  # a request's headers must arrive within this long
BODY_S = 10.0  # ... and its body within this long after them
IDLE_S = 15.0  # a kept-alive connection with nothing to say closes after this long
BODY_BYTES = 64 * 1024  # the largest body any route takes (Flask's MAX_CONTENT_LENGTH too)
MAX_CONNECTIONS = 4000  # when the file limit allows it
WAITING_PER_ADDRESS = 256  # connections one address may hold before handing a request over
GRACE_S = 1.0  # a new connection has this long to send its request before it may be evicted
ACCEPT_BACKLOG = 128  # how many connections asyncio accepts in one go
LISTEN_QUEUE = 2048  # connections the kernel holds until they are accepted
RESERVED_FILES = 124 + 2 * ACCEPT_BACKLOG  # the log, camera, serial port, pipes, an accept burst

Scope = dict[str, Any]


def connection_cap(wanted: int = MAX_CONNECTIONS, reserve: int = RESERVED_FILES) -> int:
    """How many connections the server keeps open: below the process's file limit, with
    room for everything else the service opens."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(16, min(wanted, soft - reserve))


@dataclass
class Limits:
    header_s: float = HEADER_S
    body_s: float = BODY_S
    idle_s: float = IDLE_S
    body_bytes: int = BODY_BYTES
    connections: int = MAX_CONNECTIONS
    waiting_per_address: int = WAITING_PER_ADDRESS
    grace_s: float = GRACE_S


class Connections:
    """Every open connection, and those that have not yet handed a whole request to the app
    (half-open, trickling headers or a body, idle between requests), oldest first: one of
    those may be closed to make room.  Used on the event loop only."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.open: set[GuardedH11] = set()
        self.by_client: dict[tuple[str, int], GuardedH11] = {}
        self.waiting: OrderedDict[GuardedH11, None] = OrderedDict()
        self.waiting_by: dict[str, OrderedDict[GuardedH11, None]] = {}  # per address
        self.evicted = 0  # closed to make room for a newer one
        self.timed_out = 0  # closed for headers or a body too slow
        self.refused = 0  # closed at once: every slot held by a request being answered

    def opened(self, conn: GuardedH11) -> None:
        self.open.add(conn)
        if conn.client is not None:
            self.by_client[conn.client] = conn
        self.set_waiting(conn, True)
        own = self.waiting_by.get(conn.address, OrderedDict())
        if len(own) > self.limits.waiting_per_address:
            # one address holding many unfinished requests: its own oldest makes room
            self._make_room(conn, own, grace_s=0.0)
        if len(self.open) > self.limits.connections and conn in self.open:
            self._make_room(conn, self.waiting, self.limits.grace_s)

    def _make_room(self, conn: GuardedH11, candidates: OrderedDict[GuardedH11, None],
                   grace_s: float) -> None:
        """Close the oldest candidate past its grace (it had time to send its request and
        did not), else the newcomer itself: a tablet's fresh connection is never evicted
        by a storm of newer ones from elsewhere before it could speak."""
        now = conn.loop.time()
        victim = next(iter(candidates), None)
        if victim is None or victim is conn or now - victim.waiting_since < grace_s:
            self.refused += 1
            victim = conn
        else:
            self.evicted += 1
        self.close(victim)

    def close(self, conn: GuardedH11) -> None:
        self.drop(conn)
        conn.transport.close()

    def set_waiting(self, conn: GuardedH11, waiting: bool) -> None:
        if conn not in self.open:
            return
        own = self.waiting_by.setdefault(conn.address, OrderedDict())
        if waiting:  # at the end: the newest to have started waiting
            self.waiting[conn] = None
            self.waiting.move_to_end(conn)
            own[conn] = None
            own.move_to_end(conn)
            conn.waiting_since = conn.loop.time()
        else:
            self.waiting.pop(conn, None)
            own.pop(conn, None)
        if not own:
            del self.waiting_by[conn.address]
        conn.waiting = waiting

    def drop(self, conn: GuardedH11) -> None:
        if conn not in self.open:
            return
        self.set_waiting(conn, False)
        self.open.discard(conn)
        if conn.client is not None and self.by_client.get(conn.client) is conn:
            del self.by_client[conn.client]

    def busy(self, client: Any) -> None:
        """The request from ``client`` is whole and goes to the app: keep its connection."""
        conn = self.by_client.get(tuple(client)) if client else None
        if conn is not None:
            self.set_waiting(conn, False)


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a header deadline and a place in :class:`Connections`
    (the class is made per server by :func:`guarded_protocol`)."""

    connections_kept: Connections

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.waiting = False  # Connections.opened makes it waiting
        self.waiting_since = 0.0
        self.address = self.client[0] if self.client else ""
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()
        self.connections_kept.opened(self)

    def _arm(self, seconds: float | None = None) -> None:
        self._disarm()
        limit = self.connections_kept.limits.header_s if seconds is None else seconds
        self._deadline = self.loop.call_later(limit, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _in_request(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._deadline is not None and self._in_request():
            self._disarm()  # the headers are in; the body has its own limit (EventStreams)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self._in_request():
            self.connections_kept.set_waiting(self, True)
            self._arm(self.connections_kept.limits.idle_s)  # idle, then the next request's headers

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.connections_kept.drop(self)
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.connections_kept.timed_out += 1
            self.transport.close()


def guarded_protocol(kept: Connections) -> type[GuardedH11]:
    return type("GuardedH11ForServer", (GuardedH11,), {"connections_kept": kept})


class EventStreams:
    """The ASGI app: ``/api/events`` natively, everything else to the Flask app once its
    body is read whole (within the size and time limits, on the event loop)."""

    def __init__(self, table: Table, flask_app: Flask, keepalive_s: float = KEEPALIVE_S,
                 workers: int = API_WORKERS, kept: Connections | None = None) -> None:
        self.table = table
        self.wsgi = WSGIMiddleware(flask_app, workers=workers)
        self.keepalive_s = keepalive_s
        self.kept = kept or Connections(Limits())
        self.streams = 0
        self.stopping = asyncio.Event()  # set on the loop when the server stops: streams end

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/api/events" and scope["method"] == "GET":
            self.kept.busy(scope.get("client"))
            await self.events(receive, send)
            return
        body = await self._read_body(scope, receive, send)
        if body is None:
            return
        self.kept.busy(scope.get("client"))
        given = False

        async def replay() -> dict[str, Any]:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        await self.wsgi(scope, replay, send)

    async def _read_body(self, scope: Scope, receive: Any, send: Any) -> bytes | None:
        """The whole body, or None once the client was answered 413/408 (or went away)."""
        limits = self.kept.limits
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > limits.body_bytes:
            await self._refuse(send, 413, "request body too large")
            return None
        chunks: list[bytes] = []
        size = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limits.body_s
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                self.kept.timed_out += 1
                await self._refuse(send, 408, "the request body did not arrive in time")
                return None
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limits.body_bytes:
                await self._refuse(send, 413, "request body too large")
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    @staticmethod
    async def _refuse(send: Any, status: int, message: str) -> None:
        body = dumps({"ok": False, "error": message}).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"connection", b"close"),
            (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body, "more_body": False})

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
        gone = asyncio.ensure_future(sse.disconnected(receive))
        stop = asyncio.ensure_future(self.stopping.wait())
        try:
            await send(sse.START)
            await send(self._body("state", first))
            while not gone.done() and not stop.done():
                got, message = await sse.next_message(queue, gone, stop, self.keepalive_s, send)
                if not got:
                    continue
                event, data = message
                if event == "resync":
                    event, data = "state", dumps(await asyncio.to_thread(self.table.public))
                await send(self._body(event, data))
            if stop.done() and not gone.done():  # the server stops: end the stream cleanly
                await send(sse.END)
        except OSError:
            pass  # the client went away mid-write
        finally:
            gone.cancel()
            stop.cancel()
            self.streams -= 1
            self.table.unwatch(watcher)

    @staticmethod
    def _body(event: str, data: str) -> dict[str, Any]:
        return {"type": "http.response.body", "more_body": True,
                "body": f"event: {event}\ndata: {data}\n\n".encode()}


class DashboardServer:
    """uvicorn on its own thread; ``port`` 0 binds any free port."""

    def __init__(self, table: Table, flask_app: Flask, host: str, port: int,
                 workers: int = API_WORKERS, limits: Limits | None = None) -> None:
        keepalive = float(flask_app.config.get("KEEPALIVE_S", KEEPALIVE_S))
        self.limits = limits or Limits(connections=connection_cap())
        self.kept = Connections(self.limits)
        self.app = EventStreams(table, flask_app, keepalive, workers, self.kept)
        self.socket = socket.create_server((host, port), reuse_port=False, backlog=ACCEPT_BACKLOG)
        self.port = int(self.socket.getsockname()[1])
        config = uvicorn.Config(self.app, lifespan="off", log_level="warning", log_config=None,
                                access_log=False, timeout_graceful_shutdown=2,
                                timeout_keep_alive=int(self.limits.idle_s), backlog=ACCEPT_BACKLOG,
                                loop="asyncio", http=guarded_protocol(self.kept), ws="none",
                                proxy_headers=False)  # no spoofed client ids
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> DashboardServer:
        self._thread = threading.Thread(target=self._run, name="web", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except OSError:  # closed while stopping
            pass

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self.server.serve(sockets=[self.socket])

    def wait_started(self, timeout: float = 5.0) -> bool:
        deadline = threading.Event()
        for _ in range(int(timeout / 0.01)):
            if self.server.started:
                break
            deadline.wait(0.01)
        if self.server.started:
            # asyncio listened with ACCEPT_BACKLOG, which is also how many it accepts in one
            # go; a longer queue in the kernel keeps a tablet's connection from waiting for
            # a SYN resend while others connect in a storm
            try:
                self.socket.listen(LISTEN_QUEUE)
            except OSError:
                pass
        return self.server.started

    def close(self) -> None:
        """Stop within a few seconds, streams ended cleanly first: no task is cancelled
        mid-write, so no traceback on a normal stop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.app.stopping.set)
            except RuntimeError:  # the loop closed meanwhile
                pass
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.socket.close()
        # a2wsgi's pool of Flask workers outlives the loop unless shut down: a finished demo
        # (or every test's server) would leave its idle threads behind.  Not waited for: a
        # worker still busy ends with its request
        self.app.wsgi.executor.shutdown(wait=False, cancel_futures=True)
