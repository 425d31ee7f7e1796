"""Issue 13, defect 3: idle dashboards hold no worker thread, so the API still answers
(the figure for 500 is ``companion bench sse --idle 500``; this checks the shape)."""

from __future__ import annotations

import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from waiting import wait_until

from companion.service import Service, ServiceConfig

IDLE = 120  # more than waitress's 64 threads, which the old server starved with


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    config = ServiceConfig(game="times_square", players=2, data_dir=tmp_path, port=0,
                           pin="246810", gpio=False)
    running = Service(config).start()
    yield running
    running.stop()


def open_stream(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    return sock


def read_event(sock: socket.socket, buffer: bytearray) -> tuple[str, dict]:
    """The next SSE event (HTTP/1.0: no chunked encoding to undo)."""
    while True:
        if buffer.startswith(b": keepalive\n\n"):
            del buffer[:13]
        if b"\n\n" in buffer and not buffer.startswith((b"HTTP/", b":")):
            break
        chunk = sock.recv(65536)
        assert chunk, "stream closed"
        buffer += chunk
        if buffer.startswith(b"HTTP/") and b"\r\n\r\n" in buffer:
            head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
            assert b" 200 " in head.split(b"\r\n")[0]
            buffer[:] = rest
    block, _, rest = bytes(buffer).partition(b"\n\n")
    buffer[:] = rest
    lines = block.decode().split("\n")
    event = next(line[7:] for line in lines if line.startswith("event: "))
    data = "".join(line[6:] for line in lines if line.startswith("data: "))
    return event, json.loads(data)


def test_idle_dashboards_leave_the_api_answering(service: Service) -> None:
    streams = [open_stream(service.port) for _ in range(IDLE)]
    try:
        buffers = [bytearray() for _ in streams]
        firsts = [read_event(s, b) for s, b in zip(streams, buffers, strict=True)]
        assert all(event == "state" for event, _ in firsts)
        assert wait_until(lambda: service._server.app.streams == IDLE)
        with urllib.request.urlopen(f"{service.url}/api/state", timeout=10) as reply:
            state = json.loads(reply.read())
        table = service.table
        action = table.game.legal_actions(table.state)[0]
        request = urllib.request.Request(
            f"{service.url}/api/actions", data=json.dumps(action).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-Table-Pin": service.pin})
        with urllib.request.urlopen(request, timeout=10) as reply:
            assert reply.status == 200
        for sock, buffer in zip(streams[:10], buffers[:10], strict=True):
            event, delta = read_event(sock, buffer)
            assert event == "delta" and delta["base"] == state["rev"]
            assert len(delta["history"]["add"]) == 1
    finally:
        for sock in streams:
            sock.close()
    assert wait_until(lambda: service._server.app.streams == 0, 10)
