"""The simulated deck's NFC stickers: which tag UID each physical card carries.

A real table's cards carry stickers with UIDs nobody chose; the owner registers them once
(``companion calibrate cards``: tap each card when asked) and the companion keeps the result
in the profile's ``tags.json``.  The simulated table does the same: its stickers are drawn
at random from the world's own seed (never from the companion's factory sheet), and the
registration the owner would have made is written to a ``tags.json`` the service loads.
The world lays its cards by its own sheet; the companion knows them only through that file.
"""

from __future__ import annotations

import random
from pathlib import Path

from companion.sensors.tags import TagRegistry


class StickerSheet:
    """UID per card of one game's physical deck, distinct, from ``seed``."""

    def __init__(self, game: str, cards: list[str], seed: int) -> None:
        rng = random.Random(f"stickers:{game}:{seed}")
        self.game = game
        self.uids: dict[str, str] = {}
        used: set[str] = set()
        for card in cards:
            uid = f"{rng.getrandbits(32):08x}"
            while uid in used:
                uid = f"{rng.getrandbits(32):08x}"
            used.add(uid)
            self.uids[card] = uid

    def uid(self, card: str) -> bytes:
        """The UID on ``card``'s sticker, as a reader reads it."""
        try:
            return bytes.fromhex(self.uids[card])
        except KeyError:
            raise KeyError(f"the simulated {self.game} deck has no card {card!r}") from None

    def register(self, path: Path) -> Path:
        """Write what registering every card would leave in the profile (``tags.json``)."""
        TagRegistry.save(path, self.game, {uid: card for card, uid in self.uids.items()})
        return path
