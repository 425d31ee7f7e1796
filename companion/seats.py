"""The seats as set up: each player's name, banner colour, and the card reader and seat
button that are theirs.  Checked once, when a game is opened; the table logs what passed.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import Game, State

DEFAULT_COLOURS = ("#e5484d", "#3e8ed0", "#f5c542", "#46a758", "#8e4ec6", "#f76b15")
"""A banner colour per seat when the set-up named none."""

NAMED_COLOURS = {"red": "#e5484d", "blue": "#3e8ed0", "yellow": "#f5c542", "green": "#46a758",
                 "purple": "#8e4ec6", "orange": "#f76b15", "white": "#d8dde6", "black": "#3a3f47",
                 "pink": "#e93d82"}


def seat_colours(names: list[str]) -> list[str]:
    """A colour per seat: the one a seat's name says ("Red", "Blue (Salsa)"), else the next
    palette colour no other seat has taken."""
    said = []
    for name in names:
        found = [c for word, c in NAMED_COLOURS.items() if word in name.lower().replace("(", " ").split()]
        said.append(found[0] if found else None)
    spare = [c for c in DEFAULT_COLOURS if c not in said]
    out = []
    for colour in said:
        out.append(colour or (spare.pop(0) if spare else DEFAULT_COLOURS[len(out) % len(DEFAULT_COLOURS)]))
    return out


def game_colours(game: Game, state: State) -> list[str]:
    """A banner colour per seat: the colour the seat plays with on the table (a Deity's
    dice), else the one its name says, else the palette's."""
    own = seat_colours(game.player_names(state))
    played = game.seat_colours(state)
    return [NAMED_COLOURS.get(str(played[i]), own[i]) if i < len(played) else own[i]
            for i in range(len(own))]


def check_setup(setup: dict[str, Any] | None, players: int) -> dict[str, Any]:
    """Validate what set-up chose beside the rules: names, colours and seats.

    ``names``/``colours``: one string per seat (empty: the game's own); ``seats``:
    ``{"readers": {reader: seat}, "buttons": {button: seat}}`` (device numbers as strings),
    which the service uses to map a card reader or a seat button to a player.
    Raises ValueError with a clear message; returns only the keys that were given.
    """
    if not setup:
        return {}
    if not isinstance(setup, dict):
        raise ValueError("set-up options are an object with names, colours and seats")
    unknown = set(setup) - {"names", "colours", "seats"}
    if unknown:
        raise ValueError(f"unknown set-up option{'s' if len(unknown) > 1 else ''}: "
                         f"{', '.join(sorted(unknown))}")
    out: dict[str, Any] = {}
    for key in ("names", "colours"):
        if key in setup:
            values = setup[key]
            if (not isinstance(values, list) or len(values) != players
                    or not all(isinstance(v, str) and len(v) <= 24 for v in values)):
                raise ValueError(f"{key}: one text of at most 24 characters per player ({players})")
            if key == "colours" and not all(v == "" or _is_hex_colour(v) for v in values):
                raise ValueError("colours are written #rrggbb")
            out[key] = [v.strip() for v in values]
    if "seats" in setup:
        seats = setup["seats"]
        if not isinstance(seats, dict) or set(seats) - {"readers", "buttons"}:
            raise ValueError('seats: {"readers": {reader: seat}, "buttons": {button: seat}}')
        clean: dict[str, dict[str, int]] = {}
        for kind, mapping in seats.items():
            if not isinstance(mapping, dict):
                raise ValueError(f"seats.{kind} maps a device number to a seat")
            clean[kind] = {}
            for device, seat in mapping.items():
                if not str(device).isdigit() or isinstance(seat, bool) or not isinstance(seat, int) \
                        or not 0 <= seat < players:
                    raise ValueError(f"seats.{kind}: {device!r} -> {seat!r} is not a device "
                                     f"number and a seat 0..{players - 1}")
                clean[kind][str(int(device))] = seat
        out["seats"] = clean
    return out


def _is_hex_colour(value: str) -> bool:
    return len(value) == 7 and value[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in value[1:])
