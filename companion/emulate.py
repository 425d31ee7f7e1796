"""``companion emulate``: the table device on a pseudo-terminal, driven from the keyboard or a script.

The real firmware loop runs under CPython (``companion.sim.device``); a person
types what their hands would do at the table::

    tap 2 0a0b0c0d      lay the card with tag 0a0b0c0d on reader 2 (and lift it)
    tap 6 zombie-1      the same, by card id (with --game: the factory tag sheet's tag)
    cards               list the game's card ids (with --game)
    press 1             press seat 1's button
    leds                show the seat LEDs the host has set
    unplug / replug     pull the USB cable out / put it back (the --link path follows)
    wait 1.5            pause (in scripts)
    wait-host [S]       wait until the host has opened the port and said hello
    help / quit

so an owner can rehearse ``companion serve --serial PATH`` with a webcam or a
video file and no device.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

import click

from companion.games import GAMES, load_game
from companion.sensors.tags import factory_uid
from companion.sim.device import DeviceEmulator

HELP = __doc__.split("::", 1)[1].split("so an owner")[0].strip("\n").rstrip() if __doc__ else ""
LED_NAMES = {0: "off", 1: "on"}


class EmulatedTable:
    """The device on the bench: the emulator, its stable link path and what was typed."""

    def __init__(self, link: Path | None = None, game: str | None = None, readers: int = 7,
                 seats: int = 6) -> None:
        self.link = link
        self.game = game
        self.cards = set(load_game(game).card_ids()) if game else set()
        self.readers = readers
        self.seats = seats
        self.device: DeviceEmulator | None = None
        self.greeted = threading.Event()
        self.plug()

    @property
    def path(self) -> str:
        """What the host opens: the link if there is one (it survives a replug), else the pty."""
        if self.link is not None:
            return str(self.link)
        return self.device.port if self.device else ""

    def plug(self) -> None:
        self.device = DeviceEmulator(readers=self.readers, seats=self.seats).start()
        self.greeted.clear()
        original = self.device.app.hello

        def hello() -> None:  # the host pinged: it has the port open
            original()
            self.greeted.set()

        self.device.app.hello = hello
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.device.port)
            tmp.replace(self.link)

    def unplug(self) -> None:
        if self.device is not None:
            self.device.stop()
            self.device = None
        if self.link is not None:
            self.link.unlink(missing_ok=True)

    def close(self) -> None:
        self.unplug()

    def _uid(self, text: str) -> bytes:
        if text in self.cards and self.game:
            return bytes.fromhex(factory_uid(self.game, text))
        try:
            uid = bytes.fromhex(text)
        except ValueError:
            uid = b""
        if not 4 <= len(uid) <= 10:
            known = (f"a card id of {self.game} (type cards for the list)" if self.game
                 else "a card id (start with --game GAME to tap cards by id)")
            raise ValueError(f"{text!r} is neither a tag UID in hex (e.g. 0a0b0c0d) nor {known}")
        return uid

    def _number(self, text: str, what: str, count: int) -> int:
        if not text.isdigit() or int(text) >= count:
            raise ValueError(f"{what} must be 0 to {count - 1}, not {text!r}")
        return int(text)

    def do(self, line: str) -> str | None:
        """Carry out one typed line; returns what to print.  Raises ValueError for a bad line,
        StopIteration for quit."""
        words = line.split("#", 1)[0].split()
        if not words:
            return None
        command, args = words[0].lower(), words[1:]
        if command in ("quit", "exit"):
            raise StopIteration
        if command == "help":
            return HELP
        if command == "cards":
            if not self.game:
                raise ValueError("no game chosen: start with --game GAME to tap cards by id")
            return card_list(self.game)
        if command == "replug":
            if self.device is not None:
                return "already plugged in"
            self.plug()
            return f"plugged in again: {self.path}"
        if command == "wait-host":
            timeout = float(args[0]) if args else 30.0
            if self.device is None:
                raise ValueError("unplugged: replug first")
            if not self.greeted.wait(timeout):
                raise ValueError(f"no host opened {self.path} within {timeout:g} s")
            return "host connected"
        if command == "wait":
            if len(args) != 1:
                raise ValueError("wait SECONDS")
            time.sleep(float(args[0]))
            return None
        if self.device is None:
            raise ValueError("the device is unplugged: type replug")
        if command == "tap":
            if len(args) != 2:
                raise ValueError("tap READER CARD-OR-UID, e.g. tap 2 0a0b0c0d")
            reader = self._number(args[0], "reader", self.readers)
            uid = self._uid(args[1])
            self.device.lay_card(reader, uid)
            return f"tapped {uid.hex()} on reader {reader}"
        if command == "press":
            if len(args) != 1:
                raise ValueError("press SEAT, e.g. press 1")
            seat = self._number(args[0], "seat", self.seats)
            self.device.press(seat)
            return f"pressed seat {seat}"
        if command == "leds":
            return "  ".join(f"seat {i}: {LED_NAMES.get(self.device.led(i), '?')}"
                             for i in range(self.seats))
        if command == "unplug":
            self.unplug()
            return "unplugged"
        raise ValueError(f"unknown command {command!r}: type help")


def card_list(game: str) -> str:
    """The game's card ids, as ``tap`` takes them, a few to a line."""
    ids = list(load_game(game).card_ids())
    if not ids:
        return f"{game} has no cards with tags (its table shows no cards to a reader)"
    rows = [" ".join(ids[i:i + 8]) for i in range(0, len(ids), 8)]
    return f"{len(ids)} card ids of {game}:\n" + "\n".join(rows)


def run_lines(table: EmulatedTable, lines: Iterable[str], out: TextIO, stop_on_error: bool) -> int:
    """Each line in turn; returns 0, or 1 after the first bad line when ``stop_on_error``."""
    for number, line in enumerate(lines, 1):
        try:
            said = table.do(line)
        except StopIteration:
            return 0
        except (ValueError, OSError) as err:
            print(f"line {number}: {err}" if stop_on_error else str(err), file=out, flush=True)
            if stop_on_error:
                return 1
            continue
        if said:
            print(said, file=out, flush=True)
    return 0


def keyboard_lines(interactive: bool) -> Iterator[str]:
    while True:
        if interactive:
            click.echo("> ", nl=False)
        line = sys.stdin.readline()
        if not line:
            return
        yield line


@click.command()
@click.option("--script", type=click.File("r"), default=None,
              help="A file of lines to carry out (else they are read from the keyboard).")
@click.option("--link", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A stable path (symlink) to the device, kept across unplug/replug.")
@click.option("--game", type=click.Choice(sorted(GAMES)), default=None,
              help="Let 'tap' take card ids (the factory tag sheet's tags).")
@click.option("--readers", type=click.IntRange(1, 16), default=7, show_default=True)
@click.option("--seats", type=click.IntRange(1, 8), default=6, show_default=True)
@click.option("--list-cards", is_flag=True, help="Print the --game's card ids and stop.")
def emulate(script: TextIO | None, link: Path | None, game: str | None, readers: int, seats: int,
            list_cards: bool) -> None:
    """The table device emulated on a pseudo-terminal: tap cards and press buttons by typing.

    Example: companion emulate --game jivecat --link /tmp/table-device, then type
    "tap 6 zombie-1" (companion emulate --game jivecat --list-cards lists the card ids).
    """
    if list_cards:
        if not game:
            raise click.UsageError("--list-cards needs --game GAME")
        click.echo(card_list(game))
        return
    if link is not None and link.exists() and not link.is_symlink():
        raise click.ClickException(f"{link} exists and is not a symlink: choose another --link")
    table = EmulatedTable(link, game, readers, seats)
    try:
        click.echo(f"table device emulated on {table.device.port if table.device else '?'}"
                   + (f" (link {link})" if link else ""))
        click.echo(f"  companion serve --serial {table.path} ...   (type help for the commands)")
        sys.stdout.flush()
        if script is not None:
            code = run_lines(table, script, sys.stdout, stop_on_error=True)
        else:
            code = run_lines(table, keyboard_lines(os.isatty(0)), sys.stdout, stop_on_error=False)
    except KeyboardInterrupt:
        code = 0
    finally:
        table.close()
    sys.exit(code)
