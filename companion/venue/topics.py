"""The topic tree and the payloads a table publishes (see docs/mqtt.md).

Only what :meth:`companion.table.Table.public` shows ever leaves the table, and only
the parts a room screen needs: never the board, taps or anything a tracker keeps of
a hand.  Everything is JSON, UTF-8.

``companion/<venue>/<table>/status``  "online" / "offline"   QoS 1, retained, last will
``companion/<venue>/<table>/state``   the public state        QoS 1, retained
``companion/<venue>/<table>/events``  one logged event        QoS 1, not retained
``companion/<venue>/<table>/result``  a finished game         QoS 1, retained
``companion/<venue>/<table>/backfill`` the venue asks for the events it lacks   QoS 1, not retained
``companion/<venue>/players``         the venue's known players (set-up's picker)   QoS 1, retained
``<discovery>/sensor|binary_sensor/companion_<venue>_<table>/<key>/config``  HA discovery, QoS 1, retained
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from companion import __version__
from companion.venue.settings import MqttSettings

ONLINE = "online"
HEARTBEAT_S = 30.0  # a table sends its status again this often: a venue sees gaps and silence
OFFLINE = "offline"


@dataclass(frozen=True)
class TopicSpec:
    """One leaf of the tree with the delivery it is published with."""

    leaf: str
    qos: int
    retain: bool
    what: str


TREE = (
    TopicSpec("status", 1, True, 'online (and a heartbeat with the newest seq) or offline (the last will)'),
    TopicSpec("state", 1, True, "the table's public state when what it shows changes"),
    TopicSpec("events", 1, False, "each logged event with its log sequence number"),
    TopicSpec("result", 1, True, "the result of the game that finished last, sent on every connect"),
    TopicSpec("backfill", 1, False, "from the venue: the seqs of a game it has; the table sends the rest"),
)
SPEC = {spec.leaf: spec for spec in TREE}


def topic(settings: MqttSettings, leaf: str) -> str:
    if leaf not in SPEC:
        raise KeyError(f"no topic {leaf!r} in the tree; known: {', '.join(SPEC)}")
    return f"{settings.base}/{leaf}"


def players_topic(settings: MqttSettings) -> str:
    """The venue's list of known players (retained), read by each table's set-up."""
    return f"companion/{settings.venue}/players"


def parse_status(payload: bytes | str) -> dict[str, Any]:
    """A status message: JSON ``{"status", "game_id", "last_seq", "events", "at"}``, or the bare
    word (``online``/``offline``) of tables from before the heartbeat."""
    text = payload.decode() if isinstance(payload, bytes) else payload
    if text in (ONLINE, OFFLINE):
        return {"status": text}
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("status") not in (ONLINE, OFFLINE):
        raise ValueError(f"status {text[:40]!r}")
    return data


def parse_topic(name: str) -> tuple[str, str, str] | None:
    """``companion/<venue>/<table>/<leaf>`` -> (venue, table, leaf); None for anything else."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != "companion" or parts[3] not in SPEC:
        return None
    return parts[1], parts[2], parts[3]


def state_payload(public: dict[str, Any], table: str, last_seq: int, at: float, events: int = 0,
                  people: list[str | None] | None = None) -> dict[str, Any]:
    """The room's view of one table: game, players, scores, whose turn, clocks, result.

    ``history`` is the newest entries' text with their sequence numbers, so a venue that
    missed a live event can still fill the gap from the retained state; ``events`` counts
    the game's events up to ``last_seq``, so it can tell that it lacks some and ask.
    ``player`` is the person the set-up named at a seat (None: nobody named them).
    """
    history = public.get("history") or []
    people = people or []
    return {
        "table": table,
        "game": public["game"],
        "title": public["title"],
        "game_id": public["game_id"],
        "variant": public["variant"],
        "players": [{"seat": p["seat"], "name": p["name"], "score": p["score"], "clock_s": p["clock_s"],
                     "player": people[p["seat"]] if p["seat"] < len(people) else None}
                    for p in public["players"]],
        "turn": public["turn"],
        "turn_name": public["turn_name"],
        "paused": bool(public.get("paused")),
        "phase": public["phase"],
        "phase_label": public.get("phase_label", public["phase"]),
        "phase_s": public["phase_s"],
        "over": public["over"],
        "winner": public["winner"],
        "reason": public["reason"],
        "history": [{"seq": h["seq"], "text": h["text"], "undone": h["undone"], "at": h["at"]}
                    for h in history[-20:]],
        "history_total": public.get("history_total", len(history)),
        "last_seq": last_seq,
        "events": events,
        "at": at,
    }


def state_key(state: dict[str, Any]) -> str:
    """What a state shows, without what only time changes (clocks, the phase's age, when):
    two states with the same key need not both be sent."""
    still = {k: v for k, v in state.items() if k not in ("at", "phase_s")}
    still["players"] = [{k: v for k, v in p.items() if k != "clock_s"} for p in state["players"]]
    return json.dumps(still, sort_keys=True)


def event_payload(table: str, game_id: int, seq: int, kind: str, text: str, source: str,
                  at: float) -> dict[str, Any]:
    """One logged event: its text as the history shows it, never the raw action."""
    return {"table": table, "game_id": game_id, "seq": seq, "kind": kind, "text": text,
            "source": source, "at": at}


def result_payload(public: dict[str, Any], table: str, started: float, at: float, last_seq: int = 0,
                   events: int = 0, people: list[str | None] | None = None) -> dict[str, Any]:
    """A finished game for the league: seat names, the people at them, scores and winners by
    seat; ``last_seq`` and ``events`` let a venue ask for the game's events it lacks."""
    people = people or []
    return {
        "table": table,
        "game": public["game"],
        "title": public["title"],
        "game_id": public["game_id"],
        "started": started,
        "finished": at,
        "players": [{"name": p["name"], "score": p["score"],
                     "player": people[i] if i < len(people) else None}
                    for i, p in enumerate(public["players"])],
        "winner": list(public["winner"] or []),
        "reason": public["reason"],
        "last_seq": last_seq,
        "events": events,
    }


def dumps(payload: Any) -> bytes:
    return json.dumps(payload, sort_keys=True, allow_nan=False).encode()


# ---------------------------------------------------------------------- Home Assistant
ATTRIBUTES = ("{% set ns = namespace(players=[]) %}{% for p in value_json.players %}"
              "{% set ns.players = ns.players + [{'name': p.name, 'player': p.player, 'score': p.score}] %}"
              "{% endfor %}{{ {'players': ns.players, 'winner': value_json.winner} | tojson }}")
"""The Game sensor's attributes: who plays and their scores, no clock (no history row a second)."""

def discovery_messages(settings: MqttSettings) -> list[tuple[str, dict[str, Any]]]:
    """Home Assistant MQTT discovery: the table as a device with a few entities.

    Each entity reads the retained ``state`` topic through a value template and is
    unavailable while ``status`` says offline (the last will).  Attributes carry names,
    people and scores, never the running clocks (Home Assistant keeps a history row for
    each change of an attribute).  ``default_entity_id`` replaces the deprecated ``object_id``.
    """
    if not settings.discovery_prefix:
        return []
    node = f"companion_{settings.venue}_{settings.table}"
    device = {
        "identifiers": [node],
        "name": f"{settings.venue} {settings.table}",
        "manufacturer": "Table Companion",
        "model": "Table Companion",
        "sw_version": __version__,
    }
    common = {
        "availability_topic": topic(settings, "status"),
        "availability_template": "{{ value_json.status }}",
        "payload_available": ONLINE,
        "payload_not_available": OFFLINE,
        "device": device,
    }
    state = topic(settings, "state")
    entities: list[tuple[str, str, dict[str, Any]]] = [
        ("sensor", "game", {"name": "Game", "icon": "mdi:dice-multiple",
                            "value_template": "{{ value_json.title }}",
                            "json_attributes_topic": state,
                            "json_attributes_template": ATTRIBUTES}),
        ("sensor", "turn", {"name": "Whose turn", "icon": "mdi:account-clock",
                            "value_template": "{{ value_json.turn_name or 'nobody' }}"}),
        ("sensor", "phase", {"name": "Phase", "value_template": "{{ value_json.phase_label }}"}),
        ("sensor", "leader", {"name": "Leader", "icon": "mdi:trophy",
                              "value_template": "{% set p = value_json.players | sort(attribute='score',"
                                                " reverse=true) %}{{ p[0].name if p else '' }}"}),
        ("binary_sensor", "over", {"name": "Game over", "payload_on": "ON", "payload_off": "OFF",
                                   "value_template": "{{ 'ON' if value_json.over else 'OFF' }}"}),
    ]
    out = []
    for component, key, extra in entities:
        config = {"unique_id": f"{node}_{key}", "default_entity_id": f"{component}.{node}_{key}",
                  "state_topic": state,
                  **common, **extra}
        out.append((f"{settings.discovery_prefix}/{component}/{node}/{key}/config", config))
    return out
