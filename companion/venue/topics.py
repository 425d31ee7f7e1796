"""The topic tree and the payloads a table publishes (see docs/mqtt.md).

Only what :meth:`companion.table.Table.public` shows ever leaves the table, and only
the parts a room screen needs: never the board, taps or anything a tracker keeps of
a hand.  Everything is JSON, UTF-8.

``companion/<venue>/<table>/status``  "online" / "offline"   QoS 1, retained, last will
``companion/<venue>/<table>/state``   the public state        QoS 1, retained
``companion/<venue>/<table>/events``  one logged event        QoS 1, not retained
``companion/<venue>/<table>/result``  a finished game         QoS 1, retained
``<discovery>/sensor|binary_sensor/companion_<venue>_<table>/<key>/config``  HA discovery, QoS 1, retained
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from companion import __version__
from companion.venue.settings import MqttSettings

ONLINE = "online"
OFFLINE = "offline"


@dataclass(frozen=True)
class TopicSpec:
    """One leaf of the tree with the delivery it is published with."""

    leaf: str
    qos: int
    retain: bool
    what: str


TREE = (
    TopicSpec("status", 1, True, '"online" while connected; the last will sets "offline"'),
    TopicSpec("state", 1, True, "the table's public state after each change"),
    TopicSpec("events", 1, False, "each logged event with its log sequence number"),
    TopicSpec("result", 1, True, "the result of the game that finished last"),
)
SPEC = {spec.leaf: spec for spec in TREE}


def topic(settings: MqttSettings, leaf: str) -> str:
    if leaf not in SPEC:
        raise KeyError(f"no topic {leaf!r} in the tree; known: {', '.join(SPEC)}")
    return f"{settings.base}/{leaf}"


def parse_topic(name: str) -> tuple[str, str, str] | None:
    """``companion/<venue>/<table>/<leaf>`` -> (venue, table, leaf); None for anything else."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != "companion" or parts[3] not in SPEC:
        return None
    return parts[1], parts[2], parts[3]


def state_payload(public: dict[str, Any], table: str, last_seq: int, at: float) -> dict[str, Any]:
    """The room's view of one table: game, players, scores, whose turn, clocks, result.

    ``history`` is the newest entries' text with their sequence numbers, so a venue that
    missed a live event can still fill the gap from the retained state.
    """
    history = public.get("history") or []
    return {
        "table": table,
        "game": public["game"],
        "title": public["title"],
        "game_id": public["game_id"],
        "variant": public["variant"],
        "players": [{"seat": p["seat"], "name": p["name"], "score": p["score"], "clock_s": p["clock_s"]}
                    for p in public["players"]],
        "turn": public["turn"],
        "turn_name": public["turn_name"],
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
        "at": at,
    }


def event_payload(table: str, game_id: int, seq: int, kind: str, text: str, source: str,
                  at: float) -> dict[str, Any]:
    """One logged event: its text as the history shows it, never the raw action."""
    return {"table": table, "game_id": game_id, "seq": seq, "kind": kind, "text": text,
            "source": source, "at": at}


def result_payload(public: dict[str, Any], table: str, started: float, at: float) -> dict[str, Any]:
    """A finished game for the league: names, scores and winners by seat."""
    return {
        "table": table,
        "game": public["game"],
        "title": public["title"],
        "game_id": public["game_id"],
        "started": started,
        "finished": at,
        "players": [{"name": p["name"], "score": p["score"]} for p in public["players"]],
        "winner": list(public["winner"] or []),
        "reason": public["reason"],
    }


def dumps(payload: Any) -> bytes:
    return json.dumps(payload, sort_keys=True, allow_nan=False).encode()


# ---------------------------------------------------------------------- Home Assistant
def discovery_messages(settings: MqttSettings) -> list[tuple[str, dict[str, Any]]]:
    """Home Assistant MQTT discovery: the table as a device with a few entities.

    Each entity reads the retained ``state`` topic through a value template and is
    unavailable while ``status`` says offline (the last will).
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
        "payload_available": ONLINE,
        "payload_not_available": OFFLINE,
        "device": device,
    }
    state = topic(settings, "state")
    entities: list[tuple[str, str, dict[str, Any]]] = [
        ("sensor", "game", {"name": "Game", "icon": "mdi:dice-multiple",
                            "value_template": "{{ value_json.title }}",
                            "json_attributes_topic": state,
                            "json_attributes_template":
                                "{{ {'players': value_json.players, 'winner': value_json.winner}"
                                " | tojson }}"}),
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
        config = {"unique_id": f"{node}_{key}", "object_id": f"{node}_{key}", "state_topic": state,
                  **common, **extra}
        out.append((f"{settings.discovery_prefix}/{component}/{node}/{key}/config", config))
    return out
