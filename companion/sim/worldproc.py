"""The world in a process of its own, where the companion's runtime cannot be imported.

The players and their truth (a :class:`~companion.sim.world.World`) run in a child
interpreter started as ``python -m companion.sim.worldproc``.  Before anything else it
puts :class:`RuntimeBlocker` first on ``sys.meta_path``: importing the tracker's
runtime (``companion.table``, ``companion.reconcile``, ``companion.web``,
``companion.service``, ``companion.store``) raises ImportError there, so a world
that tries to ask the companion what it would do is stopped, not trusted.  The world
may use the games' rules (``companion.games``), as players know the rules.

The parent (:class:`WorldProcess`) holds the physical channels (the camera, the
device's pseudo-terminal, the mock pins, HTTP) and passes the world only what a
person sees of the tablet (:func:`as_seen`), getting back physical events.  Messages
are pickles, length-prefixed, on the child's stdin and stdout.
"""

from __future__ import annotations

import importlib
import importlib.abc
import pickle
import struct
import subprocess
import sys
import threading
from typing import IO, Any

from companion.sim.trace import Trace, open_trace
from companion.sim.words import Wording

BLOCKED = ("companion.table", "companion.reconcile", "companion.web", "companion.service",
           "companion.store")
"""The companion's runtime: what the table recorded and why, which no player can look into."""

UNSEEN = ("board", "seen", "seen_mismatch", "game_id", "rev")
"""Fields of the tablet's JSON that are not words on its screen: the tracker's drawing of
the board and the camera's, which places differ, ids."""


class WorldCrashed(RuntimeError):
    """The world's process failed (or tried to reach into the companion): the game stops."""


class RuntimeBlocker(importlib.abc.MetaPathFinder):
    """Refuses every import of the companion's runtime in the world's process."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if any(name == b or name.startswith(b + ".") for b in BLOCKED):
            raise ImportError(f"{name}: the simulated world reaches the companion only through "
                              "its channels (frames, serial bytes, pins, HTTP), never its runtime")
        return None


def install_blocker() -> None:
    """Block the runtime in this process; a runtime module already loaded is an error."""
    loaded = [m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BLOCKED)]
    if loaded:
        raise RuntimeError(f"the companion's runtime is already loaded here: {loaded}")
    sys.meta_path.insert(0, RuntimeBlocker())


def as_seen(tablet: dict[str, Any], wording: Wording | None = None) -> dict[str, Any]:
    """The tablet as a person sees it: its words (prompts and the words on their buttons,
    history lines, scores, cards listed as read), not the tracker's board JSON, the
    camera's, ids, or the data behind a button or a line."""
    if not isinstance(tablet, dict):
        return tablet
    seen = {k: v for k, v in tablet.items() if k not in UNSEEN}
    if isinstance(seen.get("history"), list):  # a line's words, number, source; not its data
        seen["history"] = [{k: v for k, v in h.items() if k != "action"} if isinstance(h, dict) else h
                           for h in seen["history"]]
    if wording is not None and isinstance(seen.get("prompts"), list):
        seen["prompts"] = [
            {**p, "options": [wording.option(o, tablet) for o in p.get("options") or []]}
            if isinstance(p, dict) else p for p in seen["prompts"]]
    return seen


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message)
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(4)
    if len(head) < 4:
        return None
    (size,) = struct.unpack(">I", head)
    return pickle.loads(stream.read(size))


def _open_world(game_name: str, players: int, variant: str | None, seed: int,
                world_class: str | None) -> Any:
    from companion.games import load_game

    if world_class is None:
        from companion.sim.world import load_world

        return load_world(game_name, load_game(game_name), players, variant, seed)
    module, _, name = world_class.partition(":")
    return getattr(importlib.import_module(module), name)(load_game(game_name), players, variant, seed)


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """The child's loop: open or load a world, then answer calls on it until stdin closes."""
    world: Any = None
    trace = open_trace("world")  # None unless COMPANION_SIM_TRACE names a file
    while True:
        message = _receive(inp)
        if message is None:
            return
        number, op, args = message
        try:
            if op == "open":
                world, value = _open_world(*args), None
            elif op == "load":
                world, value = pickle.loads(args[0]), None
            elif op == "dump":
                value = pickle.dumps(world)
            elif op == "get":
                value = getattr(world, args[0], None)
            else:
                name, call_args = args
                value = getattr(world, name)(*call_args)
                if trace is not None:
                    _traced(trace, name, call_args, value)
            _send(out, (number, "ok", value))
        except Exception as err:  # the world failed: the parent stops the game
            _send(out, (number, "error", f"{type(err).__name__}: {err}"))


def _traced(trace: Trace, name: str, args: tuple[Any, ...], value: Any) -> None:
    """The players' physical events as they made them, and what they noticed on their table."""
    if name in ("start", "act"):
        for event in value or []:
            trace.event(event, verb="made: ")
    elif name == "look_at_table":
        trace.line(f"noticed on the table: {args[0] if args else None}")


class WorldProcess:
    """A world in its own process, called as if it were here (``act``, ``start``, ...).

    Pickling one (the runner's checkpoint) pickles the child's world; unpickling starts
    a new process with it."""

    def __init__(self, game_name: str, players: int, variant: str | None, seed: int,
                 world_class: str | None = None, saved: bytes | None = None) -> None:
        self.game_name, self.players, self.variant, self.seed = game_name, players, variant, seed
        self.world_class = world_class
        self._lock = threading.Lock()
        self._asked = 0  # each request's number, echoed with its reply
        self._child = subprocess.Popen(
            [sys.executable, "-m", "companion.sim.worldproc"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE)
        if saved is None:
            self._ask("open", (game_name, players, variant, seed, world_class))
        else:
            self._ask("load", (saved,))

    def _ask(self, op: str, args: tuple[Any, ...]) -> Any:
        """Send one request and wait for its own reply.  A reply to an earlier request whose
        wait was interrupted (Ctrl-C or SIGTERM while the world was thinking) still comes
        first: it is passed over by its number, not taken for this one's."""
        with self._lock:
            child = self._child
            assert child.stdin is not None and child.stdout is not None
            self._asked += 1
            number = self._asked
            try:
                _send(child.stdin, (number, op, args))
                reply = _receive(child.stdout)
                while reply is not None and reply[0] != number:
                    reply = _receive(child.stdout)
            except (BrokenPipeError, OSError) as err:
                raise WorldCrashed(f"the world's process is gone: {err}") from err
        if reply is None:
            raise WorldCrashed(f"the world's process ended (exit {child.poll()})")
        _, status, value = reply
        if status != "ok":
            raise WorldCrashed(value)
        return value

    def _call(self, name: str, *args: Any) -> Any:
        return self._ask("call", (name, args))

    # the world's contract, as the runner and the bench use it
    def start(self) -> list[Any]:
        return self._call("start")

    def act(self, tablet: dict[str, Any]) -> list[Any]:
        return self._call("act", as_seen(tablet, self.wording()))

    def wording(self) -> Wording:
        """How the tablet's buttons are worded for the players (as the world words them)."""
        wording = self.__dict__.get("_wording")
        if wording is None:
            from companion.games import load_game

            wording = self._wording = Wording(load_game(self.game_name), self.players,
                                              self.variant, self.seed)
        return wording

    def look_at_table(self, off: dict[str, Any] | None) -> None:
        self._call("look_at_table", off)

    def finished(self) -> bool:
        return self._call("finished")

    def board(self) -> Any:
        return self._call("board")

    def truth(self) -> dict[str, Any]:
        return self._call("truth")

    def judged_board(self) -> Any:
        return self._call("judged_board")

    def set_temperament(self, kind: str) -> None:
        self._call("set_temperament", kind)

    @property
    def repeated(self) -> bool:
        return bool(self._ask("get", ("repeated",)))

    def close(self) -> None:
        child = self._child
        if child.poll() is None:
            if child.stdin is not None:
                child.stdin.close()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if child.stdout is not None:
            child.stdout.close()

    def __reduce__(self) -> tuple[Any, ...]:
        return (WorldProcess, (self.game_name, self.players, self.variant, self.seed,
                               self.world_class, self._ask("dump", ())))

    def __del__(self) -> None:  # a process left behind is a leak
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit anything may be gone
            pass


def main() -> None:
    install_blocker()
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print in a world must not corrupt the channel
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
