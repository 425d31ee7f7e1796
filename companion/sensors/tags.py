"""Card tags: which physical sticker (UID) is which card of the game.

A user registers their own deck with ``companion calibrate cards`` (tap each
card when asked); until then the factory sheet applies: each card's tag UID is
the first four bytes of SHA-1 of "<game>:<card id>", which is how the tag
sheets shipped with the device are written (and how the simulated table's
cards carry their tags).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def factory_uid(game: str, card: str) -> str:
    return hashlib.sha1(f"{game}:{card}".encode()).digest()[:4].hex()


class TagRegistry:
    """UID (hex) -> card id, for one game."""

    def __init__(self, game: str, cards: list[str], path: str | Path | None = None) -> None:
        self.game = game
        self.by_uid = {factory_uid(game, c): c for c in cards}
        if path is not None and Path(path).exists():
            data = json.loads(Path(path).read_text())
            self.by_uid.update({str(k).lower(): str(v) for k, v in data.get(game, {}).items()})

    def card(self, uid_hex: str) -> str | None:
        return self.by_uid.get(uid_hex.lower())

    @staticmethod
    def save(path: str | Path, game: str, mapping: dict[str, str]) -> None:
        p = Path(path)
        data = json.loads(p.read_text()) if p.exists() else {}
        data[game] = mapping
        p.write_text(json.dumps(data, indent=1, sort_keys=True))
