"""The physical events a simulated table's players make (and the straightening's length)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.games.base import Action, BoardView

STRAIGHTEN_FRAMES = 12  # a hand straightening the pieces: a second and a half of frames at 8 fps


@dataclass(frozen=True)
class BoardChange:
    """Players moved pieces: the whole board now really looks like ``view``."""

    view: BoardView


@dataclass(frozen=True)
class HandOver:
    """An arm passes over the board for a while (the camera sees a hand)."""

    frames: int = 3


@dataclass(frozen=True)
class CardTap:
    """A card laid on a reader of the serial device (seat None: the shared reader)."""

    card: str
    seat: int | None = None


@dataclass(frozen=True)
class SeatButton:
    """A seat button on the serial device pressed."""

    seat: int


@dataclass(frozen=True)
class TurnButton:
    """The Pi's GPIO turn button pressed: "my step is done, record it"."""


@dataclass(frozen=True)
class Declare:
    """A player declares on the tablet (POST /api/actions with the table PIN)."""

    action: Action


@dataclass(frozen=True)
class TapOption:
    """A player taps the button of a prompt that reads ``words`` (what they read on it,
    never the data behind it); a button no longer shown is tapped in vain."""

    words: str


@dataclass(frozen=True)
class Tidy:
    """A player clears the board of what is not the game's (a cup) and puts back a piece
    knocked aside: the table as the players laid it again."""


PhysicalEvent = BoardChange | HandOver | CardTap | SeatButton | TurnButton | Declare | TapOption | Tidy
