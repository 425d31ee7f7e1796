"""Who may change the game: the table PIN, paired devices, and a limit on guessing.

A PIN of at least 6 digits, with per-client lockout, holds against a phone on the
same network: 5 wrong guesses lock a client out for 60 s, doubling with each further
lockout up to 15 min, and 20 wrong guesses from anyone within 10 min suspend PIN
entry for everyone for 5 min (paired devices keep working: they carry a token, not
the PIN).  Pairing is the easy path: the console prints a one-time pairing URL (a paired
tablet can show it as a QR code); opening it sets an HttpOnly cookie whose token is
kept (hashed) in the data directory, so a paired tablet stays paired after a restart.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PIN_DIGITS = 6
MAX_FAILS = 5  # wrong guesses per client before a lockout
LOCKOUT_S = 60.0  # the first lockout; doubles with each further one
LOCKOUT_MAX_S = 900.0
FORGET_S = 900.0  # a client's wrong guesses are forgotten after this long without one
GLOBAL_FAILS = 20  # wrong guesses from all clients within GLOBAL_WINDOW_S ...
GLOBAL_WINDOW_S = 600.0
GLOBAL_LOCKOUT_S = 300.0  # ... suspend PIN entry for everyone this long
COOKIE = "companion_token"


def check_pin(pin: str) -> str:
    """The PIN if it is acceptable; ValueError with the reason otherwise."""
    if not pin.isdigit() or not pin.isascii() or len(pin) < PIN_DIGITS:
        raise ValueError(f"the table PIN must be at least {PIN_DIGITS} digits (0-9); "
                         f"leave it out for a random one")
    return pin


def random_pin() -> str:
    return f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"


@dataclass
class _Client:
    fails: int = 0
    lockouts: int = 0
    locked_until: float = 0.0
    last_fail: float = 0.0


class Verdict:
    """What the guard decided about one request: ``ok``, or a refusal with its status."""

    def __init__(self, ok: bool, status: int = 200, message: str = "",
                 attempts_left: int | None = None, retry_after: float | None = None) -> None:
        self.ok = ok
        self.status = status
        self.message = message
        self.attempts_left = attempts_left
        self.retry_after = retry_after

    def body(self) -> dict[str, object]:
        out: dict[str, object] = {"ok": self.ok, "error": self.message}
        if self.attempts_left is not None:
            out["attempts_left"] = self.attempts_left
        if self.retry_after is not None:
            out["retry_after"] = int(self.retry_after + 0.999)
        return out


class Guard:
    """The PIN, the paired devices' tokens, the one-time pairing code and the limits."""

    def __init__(self, pin: str, tokens_file: Path | None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pin = pin
        self.tokens_file = tokens_file
        self.clock = clock
        self._lock = threading.Lock()
        self._clients: dict[str, _Client] = {}
        self._recent: list[float] = []
        self._global_until = 0.0
        self._tokens: set[str] = self._load()
        self.code = secrets.token_urlsafe(9)

    # ------------------------------------------------------------------ tokens
    @staticmethod
    def _hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def _load(self) -> set[str]:
        if self.tokens_file is None or not self.tokens_file.exists():
            return set()
        try:
            data = json.loads(self.tokens_file.read_text())
            return {str(h) for h in data.get("devices", [])}
        except (ValueError, OSError, AttributeError):
            return set()  # an unreadable file unpairs devices: they pair again

    def _save(self) -> None:
        if self.tokens_file is None:
            return
        tmp = self.tokens_file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"devices": sorted(self._tokens)}))
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.tokens_file)

    def paired(self, token: str | None) -> bool:
        if not token or len(token) > 200:
            return False
        digest = self._hash(token)
        with self._lock:
            return any(hmac.compare_digest(digest, known) for known in self._tokens)

    def new_token(self) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._tokens.add(self._hash(token))
            self._save()
        return token

    # ------------------------------------------------------------------ guessing
    def _client(self, who: str, now: float) -> _Client:
        client = self._clients.setdefault(who, _Client())
        if client.fails and now - client.last_fail > FORGET_S:
            client.fails = 0
        return client

    def _locked(self, client: _Client, now: float) -> Verdict | None:
        wait = max(client.locked_until, self._global_until) - now
        if wait > 0:
            return Verdict(False, 429, "too many wrong PIN or pairing attempts: wait, or use a "
                           "paired device", retry_after=wait)
        return None

    def attempt(self, who: str, secret: str | None, expected: str, what: str) -> Verdict:
        """Check ``secret`` from client ``who`` against ``expected``, counting wrong ones."""
        now = self.clock()
        with self._lock:
            client = self._client(who, now)
            locked = self._locked(client, now)
            if locked is not None:
                return locked
            if isinstance(secret, str) and hmac.compare_digest(secret.encode(),
                                                               expected.encode()):
                client.fails = 0
                return Verdict(True)
            client.fails += 1
            client.last_fail = now
            self._recent = [t for t in self._recent if now - t < GLOBAL_WINDOW_S] + [now]
            if len(self._recent) >= GLOBAL_FAILS:
                self._global_until = now + GLOBAL_LOCKOUT_S
                self._recent = []
            if client.fails >= MAX_FAILS:
                client.fails = 0
                client.lockouts += 1
                client.locked_until = now + min(LOCKOUT_MAX_S,
                                                LOCKOUT_S * 2 ** (client.lockouts - 1))
                return self._locked(client, now) or Verdict(False, 403, f"wrong {what}")
            locked = self._locked(client, now)
            if locked is not None:
                return locked
            return Verdict(False, 403, f"wrong {what}", attempts_left=MAX_FAILS - client.fails)

    def check_pin(self, who: str, given: str | None) -> Verdict:
        return self.attempt(who, given, self.pin, "table PIN")

    def use_code(self, who: str, given: str | None) -> Verdict:
        """A one-time pairing code: right once, then a new one is drawn."""
        code = self.code
        verdict = self.attempt(who, given, code, "pairing code")
        if verdict.ok:
            with self._lock:
                if self.code != code:  # another device used it a moment ago
                    return Verdict(False, 403, "this pairing code was just used")
                self.code = secrets.token_urlsafe(9)
        return verdict
