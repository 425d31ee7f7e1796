"""Who may change the game: the table PIN, paired devices, and a limit on guessing.

A PIN of at least 6 digits, with per-client lockout, holds against a phone on the
same network: 5 wrong guesses lock that client out for 60 s, doubling with each further
lockout up to 15 min.  A lockout is never shared (issue 42): a client that never guessed
wrong, and a paired device (it carries a token, not the PIN), are never locked out.  Many
wrong guesses from everyone within 10 min (several addresses guessing) only shorten the
patience with those who guessed wrong: while that alarm lasts, one more wrong guess from
such a client locks it out at once.

Pairing is the easy path: the console prints a pairing URL whose code is good once and
for :data:`CODE_TTL_S` (a paired tablet can show a fresh one as a QR code); opening it
sets an HttpOnly cookie for :data:`COOKIE_MAX_AGE_S` (renewed while the tablet is in
use) whose token is kept (hashed) in the data directory with the device's name and
when it paired, so the set-up page lists paired tablets and can unpair one.
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
from dataclasses import asdict, dataclass
from pathlib import Path

PIN_DIGITS = 6
MAX_FAILS = 5  # wrong guesses per client before a lockout
LOCKOUT_S = 60.0  # the first lockout; doubles with each further one
LOCKOUT_MAX_S = 900.0
FORGET_S = 900.0  # a client's wrong guesses are forgotten after this long without one
GLOBAL_FAILS = 20  # wrong guesses from all clients within GLOBAL_WINDOW_S ...
GLOBAL_WINDOW_S = 600.0
GLOBAL_ALARM_S = 300.0  # ... make one more wrong guess a lockout for this long
CLIENTS_KEPT = 4096  # clients remembered (the least recently failed are forgotten first)
CODE_TTL_S = 600.0  # a pairing code is good this long (and once)
COOKIE = "companion_token"
COOKIE_MAX_AGE_S = 180 * 86400  # about six months, renewed while the device is in use
DEVICE_NAME_MAX = 60


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


@dataclass
class Device:
    """A paired device as the set-up page lists it (its token is kept only hashed)."""

    id: str
    name: str
    paired_at: float  # wall-clock seconds
    digest: str = ""
    last_seen: float = 0.0

    def public(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "paired_at": self.paired_at,
                "last_seen": self.last_seen or None}


def device_name(user_agent: str | None) -> str:
    """A short name an owner recognises, from the browser's User-Agent."""
    text = (user_agent or "").strip()
    for marker, name in (("iPad", "iPad"), ("iPhone", "iPhone"), ("Android", "Android"),
                         ("CrOS", "Chromebook"), ("Windows", "Windows"), ("Macintosh", "Mac"),
                         ("Linux", "Linux")):
        if marker in text:
            browser = next((b for b in ("Firefox", "Edg", "Chrome", "Safari") if b in text), "")
            return f"{name} {'Edge' if browser == 'Edg' else browser}".strip()
    return text[:DEVICE_NAME_MAX] or "unknown device"


class Guard:
    """The PIN, the paired devices' tokens, the pairing code and the limits."""

    def __init__(self, pin: str, tokens_file: Path | None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.pin = pin
        self.tokens_file = tokens_file
        self.clock = clock
        self.wall = wall
        self._lock = threading.Lock()
        self._clients: dict[str, _Client] = {}
        self._recent: list[float] = []
        self._alarm_until = 0.0
        self._devices: dict[str, Device] = {d.digest: d for d in self._load()}
        self._code = secrets.token_urlsafe(9)
        self._code_drawn = clock()

    # ------------------------------------------------------------------ tokens
    @staticmethod
    def _hash(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def _load(self) -> list[Device]:
        if self.tokens_file is None or not self.tokens_file.exists():
            return []
        try:
            data = json.loads(self.tokens_file.read_text())
            out = []
            for item in data.get("devices", []):
                if isinstance(item, str):  # kept before devices had names
                    out.append(Device(item[:8], "a tablet paired earlier", 0.0, item))
                else:
                    out.append(Device(str(item["id"]), str(item["name"]),
                                      float(item["paired_at"]), str(item["digest"])))
            return out
        except (ValueError, OSError, AttributeError, KeyError, TypeError):
            return []  # an unreadable file unpairs devices: they pair again

    def _save(self) -> None:
        if self.tokens_file is None:
            return
        tmp = self.tokens_file.with_suffix(".tmp")
        rows = [{k: v for k, v in asdict(d).items() if k != "last_seen"}
                for d in self._devices.values()]
        tmp.write_text(json.dumps({"devices": rows}))
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.tokens_file)

    def device(self, token: str | None) -> Device | None:
        """The paired device this token belongs to, or None."""
        if not token or len(token) > 200:
            return None
        digest = self._hash(token)
        with self._lock:
            for known, device in self._devices.items():
                if hmac.compare_digest(digest, known):
                    device.last_seen = self.wall()
                    return device
        return None

    def paired(self, token: str | None) -> bool:
        return self.device(token) is not None

    def new_token(self, name: str = "unknown device") -> str:
        token = secrets.token_urlsafe(32)
        digest = self._hash(token)
        with self._lock:
            self._devices[digest] = Device(secrets.token_hex(4), name[:DEVICE_NAME_MAX],
                                           self.wall(), digest, self.wall())
            self._save()
        return token

    def devices(self) -> list[Device]:
        with self._lock:
            return sorted(self._devices.values(), key=lambda d: d.paired_at)

    def unpair(self, device_id: str) -> bool:
        """Forget one paired device; False when no device has this id."""
        with self._lock:
            digest = next((k for k, d in self._devices.items() if d.id == device_id), None)
            if digest is None:
                return False
            del self._devices[digest]
            self._save()
        return True

    # ------------------------------------------------------------------ the pairing code
    @property
    def code(self) -> str:
        """The current pairing code: a fresh one once the last is older than CODE_TTL_S."""
        with self._lock:
            if self.clock() - self._code_drawn >= CODE_TTL_S:
                self._draw()
            return self._code

    def code_expires_in(self) -> float:
        return max(0.0, CODE_TTL_S - (self.clock() - self._code_drawn))

    def _draw(self) -> None:
        self._code = secrets.token_urlsafe(9)
        self._code_drawn = self.clock()

    # ------------------------------------------------------------------ guessing
    def _client(self, who: str, now: float) -> _Client:
        client = self._clients.get(who)
        if client is None:
            if len(self._clients) >= CLIENTS_KEPT:  # forget the calmest clients first
                calm = sorted(self._clients, key=lambda k: max(self._clients[k].last_fail,
                                                               self._clients[k].locked_until))
                for key in calm[:len(calm) // 4]:
                    del self._clients[key]
            client = self._clients[who] = _Client()
        if client.fails and now - client.last_fail > FORGET_S:
            client.fails = 0
        return client

    @staticmethod
    def _locked(client: _Client, now: float) -> Verdict | None:
        wait = client.locked_until - now
        if wait > 0:
            return Verdict(False, 429, "too many wrong PIN or pairing attempts from this device: "
                           "wait, or use a paired device", retry_after=wait)
        return None

    def _lock_out(self, client: _Client, now: float, seconds: float) -> None:
        client.fails = 0
        client.lockouts += 1
        client.locked_until = now + seconds

    def attempt(self, who: str, secret: str | None, expected: str, what: str) -> Verdict:
        """Check ``secret`` from client ``who`` against ``expected``, counting wrong ones
        against that client only."""
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
                self._alarm_until = now + GLOBAL_ALARM_S
                self._recent = []
            if client.fails >= MAX_FAILS:
                self._lock_out(client, now, min(LOCKOUT_MAX_S,
                                                LOCKOUT_S * 2 ** client.lockouts))
            elif now < self._alarm_until and client.fails >= 2:
                self._lock_out(client, now, GLOBAL_ALARM_S)  # many guessers: less patience
            locked = self._locked(client, now)
            if locked is not None:
                return locked
            return Verdict(False, 403, f"wrong {what}", attempts_left=MAX_FAILS - client.fails)

    def check_pin(self, who: str, given: str | None) -> Verdict:
        return self.attempt(who, given, self.pin, "table PIN")

    def use_code(self, who: str, given: str | None) -> Verdict:
        """A pairing code: right once and within CODE_TTL_S, then a new one is drawn."""
        code = self.code
        verdict = self.attempt(who, given, code, "or expired pairing code")
        if verdict.ok:
            with self._lock:
                if self._code != code:  # another device used it a moment ago
                    return Verdict(False, 403, "this pairing code was just used")
                self._draw()
        return verdict
