"""Server-sent events over ASGI: the parts the table's live stream and the venue's room
screen share (headers, keepalives, noticing that the client left).

Both streams wait on three things at once (the next change, the client going away, the
server stopping) and send a comment line when nothing happened for a while, so that a proxy
or a tablet's browser never takes a quiet stream for a dead one.
"""

from __future__ import annotations

import asyncio
from typing import Any

START: dict[str, Any] = {"type": "http.response.start", "status": 200, "headers": [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")]}
KEEPALIVE: dict[str, Any] = {"type": "http.response.body", "body": b": keepalive\n\n", "more_body": True}
END: dict[str, Any] = {"type": "http.response.body", "body": b"", "more_body": False}


async def disconnected(receive: Any) -> None:
    """Returns once the client has gone away."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def next_message(queue: asyncio.Queue[Any], gone: asyncio.Future[Any], stop: asyncio.Future[Any],
                       keepalive_s: float, send: Any) -> tuple[bool, Any]:
    """``(True, message)`` with the queue's next message; ``(False, None)`` when the client
    left or the server stops first, or after a keepalive sent for ``keepalive_s`` of quiet."""
    getter = asyncio.ensure_future(queue.get())
    done, _ = await asyncio.wait({getter, gone, stop}, timeout=keepalive_s,
                                 return_when=asyncio.FIRST_COMPLETED)
    if getter in done:
        return True, getter.result()
    getter.cancel()
    if not done:
        await send(KEEPALIVE)
    return False, None
