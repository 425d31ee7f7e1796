"""Set-up on the tablet: start a game, resume an unfinished one, the archive and its exports.

The web app holds a :class:`TableRef`, so set-up can swap the running game without
rebuilding the app: dashboards (SSE subscribers) and listeners (LEDs, buzzer) move to the
new table and see its state at once.  The service wraps :class:`TableSwitch` to rebind
its own readers too (camera layout, card tags, seat mapping).
"""

from __future__ import annotations

import csv
import io
import json
import threading
from pathlib import Path
from typing import Any, Protocol

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from companion.games import GAMES, load_game
from companion.games.base import MalformedAction, RuleError
from companion.profile import apply_board_map, read_board_map
from companion.seats import DEFAULT_COLOURS, NAMED_COLOURS, check_setup, game_colours
from companion.store import EventLog, GameRecord
from companion.table import Table, TableOptions
from companion.web.forms import authorised, refuse, words

bp = Blueprint("setup", __name__)


class TableRef:
    """Forwards every attribute to the running table; :meth:`swap` changes which one."""

    def __init__(self, table: Table) -> None:
        object.__setattr__(self, "current", table)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "current"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "current"), name, value)

    def swap(self, table: Table) -> Table:
        """Make ``table`` the running one; watchers and listeners follow it.  Returns the old."""
        old: Table = object.__getattribute__(self, "current")
        with old._lock, table._lock:
            table._listeners.extend(old._listeners)
            old._listeners.clear()
            table._watchers.extend(old._watchers)  # live streams: their next delta resyncs them
            old._watchers.clear()
            object.__setattr__(self, "current", table)
        watched = old._ticker is not None
        old.close()
        if watched:  # the clock watcher moves with the game
            table.watch_clocks()
        table._publish("game")
        return old


class Switcher(Protocol):
    def new_game(self, game: str, players: int, variant: str | None, seed: int,
                 house_rules: dict[str, str] | None, setup: dict[str, Any] | None) -> Table: ...

    def resume(self, game_id: int) -> Table: ...


class TableSwitch:
    """Start or resume games on one log, swapping the :class:`TableRef` the app serves."""

    def __init__(self, ref: TableRef, options: TableOptions | None = None) -> None:
        self.ref = ref
        self.options = options
        self._lock = threading.Lock()

    @property
    def log(self) -> EventLog:
        return self.ref.current.log

    def new_game(self, game: str, players: int, variant: str | None, seed: int,
                 house_rules: dict[str, str] | None, setup: dict[str, Any] | None) -> Table:
        """Validate everything, log the new game, make it the running one."""
        with self._lock:
            table = Table.open(game, None, players, variant, seed, resume=False,
                               options=self.options, log=self.log, house_rules=house_rules,
                               setup=setup)
            self.ref.swap(table)
            return table

    def resume(self, game_id: int) -> Table:
        """Make an unfinished game of the log the running one again (replayed from its log)."""
        with self._lock:
            record = self.log.game(game_id)
            if record.finished:
                raise ValueError(f"game {game_id} is finished: it is in the archive")
            table = Table(load_game(record.name), self.log, record, self.options)
            self.ref.swap(table)
            return table


# ---------------------------------------------------------------------------- reading the log


def replay_scores(log: EventLog, record: GameRecord) -> dict[str, Any]:
    """A game's scores after every effective action, its end and its details in words."""
    table = Table(load_game(record.name), log, record)
    game = table.game
    state = game.start(record.players, record.variant, record.seed,
                       record.options.get("house_rules"))
    points = [{"seq": 0, "at": record.created, "scores": list(game.scores(state))}]
    for entry in table.history:
        if entry.undone or entry.kind == "keep_record":  # a "record is right" line moves nothing
            continue
        try:
            state = game.apply(state, entry.action)
        except (RuleError, MalformedAction):
            continue
        points.append({"seq": entry.seq, "at": entry.at, "scores": list(game.scores(state))})
    public = table.public()
    return {
        "id": record.id, "game": record.name, "title": game.title, "variant": record.variant,
        "players": [{"name": p["name"], "colour": p["colour"], "score": p["score"]}
                    for p in public["players"]],
        "points": points, "over": public["over"], "winner": public["winner"],
        "reason": public["reason"], "summary": public["summary"],
        "house_rules": house_rule_words(game, public["house_rules"]),
        "created": record.created, "finished": record.finished,
        "moves": sum(1 for h in table.history if not h.undone and h.kind != "keep_record"),
    }


def house_rule_words(game: Any, chosen: dict[str, str]) -> dict[str, str]:
    """House rules as title -> chosen label, for the details panel and the archive."""
    out = {}
    for rule in game.house_rules:
        if rule.id in chosen:
            out[rule.title] = rule.choices.get(chosen[rule.id], chosen[rule.id])
    return out


def game_row(log: EventLog, record: GameRecord) -> dict[str, Any]:
    game = load_game(record.name)
    table = Table(game, log, record)
    public = table.public()
    return {"id": record.id, "game": record.name, "title": game.title, "variant": record.variant,
            "created": record.created, "finished": record.finished,
            "moves": sum(1 for h in table.history if not h.undone and h.kind != "keep_record"),
            "players": [{"name": p["name"], "score": p["score"], "colour": p["colour"]}
                        for p in public["players"]],
            "winner": public["winner"], "reason": public["reason"]}


# ---------------------------------------------------------------------------- what this table can play


def _fits(board: Path, game_name: str, players: int, variant: str | None) -> bool:
    """Whether the board map places every one of its spots on this game's layout."""
    game = load_game(game_name)
    try:
        apply_board_map(game.layout(game.start(players, variant, 0)), board)
    except ValueError:
        return False
    return True


def _counts_words(counts: list[int]) -> str:
    """[4] -> "4 players"; [2, 3] -> "2 or 3 players"."""
    if not counts:
        return "no player count"
    head = ", ".join(map(str, counts[:-1]))
    return f"{head} or {counts[-1]} players" if head else f"{counts[-1]} players"


def board_map_problem(board: Path | None, game_name: str, players: int,
                      variant: str | None = None) -> str | None:
    """Why a table whose profile maps its board in ``board`` cannot play ``game_name`` at
    ``players``, said as what to do about it; None when it can (or there is no map: the
    drawn layout serves)."""
    if board is None:
        return None
    try:
        mapped = json.loads(Path(board).read_text()).get("game") or game_name
        read_board_map(Path(board), None)
    except (OSError, ValueError, AttributeError):
        return ("This table's board map cannot be read. Lay out the board, then run "
                "`companion calibrate board` again.")
    if mapped == game_name and _fits(Path(board), game_name, players, variant):
        return None
    title = load_game(game_name).title
    if mapped in GAMES:
        other = load_game(mapped)
        counts = [n for n in other.player_counts() if _fits(Path(board), mapped, n, None)]
        where = f"{other.title} at {_counts_words(counts)}"
    else:
        where = "another board"
    return (f"This table is calibrated for {where}. To play {title} with {players} players, "
            f"print and lay out the {title} sheet (`companion calibrate markers`), then run "
            "`companion calibrate board`.")


def _board_map() -> Path | None:
    """The running service's board map (its profile's ``board``); a bare table has none."""
    config = getattr(current_app.config.get("TABLE_SETUP"), "config", None)
    board = getattr(config, "board", None)
    return Path(board) if board else None


# ---------------------------------------------------------------------------- routes


def _table() -> Any:
    return current_app.config["TABLE"]


@bp.get("/setup")
def setup_page() -> str:
    return render_template("setup.html")


def lan_address() -> str | None:
    """This machine's address on the local network (a UDP "connect" sends nothing)."""
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        return str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()


@bp.get("/api/address")
def address() -> Response:
    """The dashboard's address for the joining QR code: as this page was reached, unless that
    was the machine itself (127.0.0.1, localhost), then the address other devices can use."""
    url = request.host_url
    host = request.host.rsplit(":", 1)[0].strip("[]")
    if host in ("127.0.0.1", "localhost", "::1"):
        lan = lan_address()
        if lan and not lan.startswith("127."):
            port = request.host.rsplit(":", 1)[1] if ":" in request.host else "80"
            return jsonify({"url": f"http://{lan}:{port}/", "local": url})
    return jsonify({"url": url, "local": url})


@bp.get("/api/games")
def games() -> Response:
    """Every game with its player counts, variants, house rules and default colours."""
    out = []
    board = _board_map()
    for name in GAMES:
        game = load_game(name)
        blocked = {str(n): board_map_problem(board, name, n) for n in game.player_counts()}
        out.append({"name": name, "title": game.title, "min_players": game.min_players,
                    "blocked": {n: why for n, why in blocked.items() if why},
                    "max_players": game.max_players, "player_counts": list(game.player_counts()),
                    "variants": [{"value": v, "label": words(v)} for v in game.variants],
                    "house_rules": [r.to_json() for r in game.house_rules],
                    "default_names": game.player_names(start := game.start(game.max_players, None, 0)),
                    "default_colours": game_colours(game, start)})
    swatches = list(dict.fromkeys([*DEFAULT_COLOURS, *NAMED_COLOURS.values()]))
    return jsonify({"games": out, "colours": swatches, "running": _table().record.id})


@bp.get("/api/setup/players")
def known_players() -> Response:
    """The venue's known players for the name picker, and the venue link's state (none: the
    table publishes to no venue).  A named seat is a person in the venue's league."""
    link = current_app.config.get("VENUE_LINK")
    if link is None:
        return jsonify({"venue": None, "players": []})
    return jsonify({"venue": link.link_state(), "players": list(link.known_players)})


@bp.get("/api/log")
def log_games() -> Response:
    """The log's games: unfinished ones to resume, finished ones for the archive."""
    log = _table().log
    rows = [game_row(log, record) for record in log.games()[:60]]
    return jsonify({"running": _table().record.id,
                    "unfinished": [r for r in rows if not r["finished"]],
                    "finished": [r for r in rows if r["finished"]]})


def _record(game_id: int) -> GameRecord | None:
    try:
        return _table().log.game(game_id)
    except KeyError:
        return None


@bp.get("/api/archive/<int:game_id>")
def archive_game(game_id: int) -> Response | tuple[Response, int]:
    record = _record(game_id)
    if record is None:
        return refuse(404, f"no game {game_id} in the log")
    return jsonify(replay_scores(_table().log, record))


@bp.get("/api/archive/<int:game_id>.json")
def export_json(game_id: int) -> Response | tuple[Response, int]:
    record = _record(game_id)
    if record is None:
        return refuse(404, f"no game {game_id} in the log")
    log = _table().log
    body = {"game": record.name, "id": record.id, "players": record.players,
            "variant": record.variant, "seed": record.seed, "created": record.created,
            "finished": record.finished, "options": record.options,
            "events": [{"seq": e.seq, "kind": e.kind, "action": e.action, "source": e.source,
                        "at": e.at} for e in log.events(game_id)],
            "result": replay_scores(log, record)}
    return Response(json.dumps(body, indent=1), mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="{record.name}-{record.id}.json"'})


@bp.get("/api/archive/<int:game_id>.csv")
def export_csv(game_id: int) -> Response | tuple[Response, int]:
    record = _record(game_id)
    if record is None:
        return refuse(404, f"no game {game_id} in the log")
    log = _table().log
    result = replay_scores(log, record)
    table = Table(load_game(record.name), log, record)
    scores_at = {p["seq"]: p["scores"] for p in result["points"]}
    out = io.StringIO()
    writer = csv.writer(out)
    names = [p["name"] for p in result["players"]]
    writer.writerow(["seq", "at", "source", "move", "undone"] + [f"score {n}" for n in names])
    for entry in table.history:
        writer.writerow([entry.seq, f"{entry.at:.3f}", entry.source, entry.text,
                         "yes" if entry.undone else ""] + list(scores_at.get(entry.seq, [""] * len(names))))
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{record.name}-{record.id}.csv"'})


def _switcher() -> Switcher:
    return current_app.config["TABLE_SETUP"]


@bp.post("/api/setup/new")
def new_game() -> tuple[Response, int]:
    body = request.get_json(silent=True)
    allowed = {"game", "players", "variant", "seed", "house_rules", "names", "colours", "seats",
               "request_id"}
    if not isinstance(body, dict) or set(body) - allowed:
        return refuse(400, f"the body is an object with {', '.join(sorted(allowed))}")
    if not authorised():
        return refuse(403, "the table PIN is required to start a game")
    game = body.get("game")
    players = body.get("players")
    seed = body.get("seed", 0)
    if game not in GAMES:
        return refuse(400, f"game is one of {', '.join(GAMES)}")
    if isinstance(players, bool) or not isinstance(players, int):
        return refuse(400, "players is a number")
    if isinstance(seed, bool) or not isinstance(seed, int):
        return refuse(400, "seed is a number")
    variant = body.get("variant")
    if variant is not None and not isinstance(variant, str):
        return refuse(400, "variant is a name")
    rules = body.get("house_rules") or {}
    if not isinstance(rules, dict) or not all(isinstance(v, str) for v in rules.values()):
        return refuse(400, "house_rules maps a rule to a choice")
    setup = {k: body[k] for k in ("names", "colours", "seats") if k in body}
    rulebook = load_game(game)
    if players not in rulebook.player_counts():
        return refuse(400, f"{rulebook.title} is played by {_counts_words(list(rulebook.player_counts()))}.")
    if variant is not None and variant not in rulebook.variants:
        return refuse(400, f"{rulebook.title} has no variant called {words(variant)}: choose "
                      f"{' or '.join(words(v) for v in rulebook.variants)}.")
    why = board_map_problem(_board_map(), game, players, variant)
    if why:  # checked before anything changes: the running game goes on
        return refuse(409, why)
    try:
        check_setup(setup, players)
        table = _switcher().new_game(game, players, variant, seed, rules, setup)
    except ValueError as err:
        return refuse(400, str(err))
    return jsonify({"ok": True, "game_id": table.record.id}), 200


@bp.post("/api/setup/resume")
def resume_game() -> tuple[Response, int]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or set(body) - {"game_id", "request_id"} \
            or isinstance(body.get("game_id"), bool) or not isinstance(body.get("game_id"), int):
        return refuse(400, 'the body is {"game_id": N}')
    if not authorised():
        return refuse(403, "the table PIN is required to resume a game")
    if _record(body["game_id"]) is None:
        return refuse(404, f"no game {body['game_id']} in the log")
    try:
        table = _switcher().resume(body["game_id"])
    except ValueError as err:
        return refuse(409, str(err))
    return jsonify({"ok": True, "game_id": table.record.id}), 200
