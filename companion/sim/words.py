"""What a person reads on the tablet: its buttons' words, and the words it prints for pieces.

The simulated players never see the tablet's JSON fields behind a button (an option's
action dict, an entry's action): :func:`companion.sim.worldproc.as_seen` turns each of a
prompt's options into the words on its button here, and a player who taps one names it by
those words (:class:`~companion.sim.world.TapOption`).  The words follow the dashboard's
``labelAction`` (dashboard.js): the table's own ways out in fixed words, a correction as
"Correct #N: ..." and a game's action as its form's label with each value in the game's
words.  One deviation, said here: the seat's name leads a game action's words (the
dashboard leaves it to the prompt's text), so that a tap offered as another seat's reads
differently from one's own.  Only the games' rules are used (no companion runtime), so the
world's process can word its own moves the same way to recognise them on a button.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from companion.games.base import Action, Game, Piece, State

KEEP_RECORD_WORDS = "The record is right: I'll set the table as it says"
REREAD_WORDS = "Read the table again"
FORGET_TAPS_WORDS = "Forget the cards tapped"
TABLE_WORDS = {"keep_record": KEEP_RECORD_WORDS, "reread": REREAD_WORDS,
               "forget_taps": FORGET_TAPS_WORDS}


def words(name: str) -> str:
    """An internal name in words: ``end_turn`` -> "End turn" (as the tablet's forms do)."""
    text = str(name).replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def value_words(game: Game, state: State, action_type: str, field: str, value: Any) -> str:
    """A field's value in the game's words; lists, yes/no and nothing in words, never as data."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    try:
        label = game.value_label(state, action_type, field, value)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        label = str(value)
    if isinstance(value, (list, dict)) and label == str(value):  # the game has no words for it
        if isinstance(value, list):
            return ", ".join(value_words(game, state, action_type, field, v) for v in value) or "none"
        return "; ".join(f"{words(k)} {value_words(game, state, action_type, k, v)}"
                         for k, v in value.items())
    return label


def action_words(game: Game, state: State, action: Action) -> str:
    """A game action as its button reads: the seat, the form's label, each value in words
    (of the action as the log keeps it, keys sorted, so that one move reads one way)."""
    action = json.loads(json.dumps(action, sort_keys=True))
    kind = str(action.get("type"))
    form = game.action_forms().get(kind)
    who = action.get("player")
    try:
        names = game.player_names(state)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        names = []
    parts = [names[who]] if isinstance(who, int) and not isinstance(who, bool) \
        and 0 <= who < len(names) else []
    if form is None:
        parts.append(words(kind))
        parts += [f"{words(k)} {value_words(game, state, kind, k, v)}"
                  for k, v in action.items() if k not in ("type", "player")]
        return ": ".join(parts)
    parts.append(form.label)
    for field in form.fields:
        if field.name != "player" and field.name in action:
            parts.append(value_words(game, state, kind, field.name, action[field.name]))
    return ": ".join(parts)


def entry_number(tablet: Mapping[str, Any] | None, seq: int) -> int:
    """The number the tablet prints beside entry ``seq`` (the dashboard's ``moveNumber``): its
    history line's own number, else counted back from the newest; the log's ``seq`` itself
    with no tablet to read it from (a test wording a button alone)."""
    if not isinstance(tablet, Mapping):
        return seq
    history = [h for h in tablet.get("history") or [] if isinstance(h, Mapping)]
    line = next((h for h in history if h.get("seq") == seq), None)
    if line is not None and isinstance(line.get("move"), int) and line["move"]:
        return int(line["move"])
    total = tablet.get("history_total")
    total = total if isinstance(total, int) else len(history)
    return total - sum(1 for h in history if isinstance(h.get("seq"), int) and h["seq"] > seq)


def option_words(game: Game, state: State, option: Any, tablet: Mapping[str, Any] | None = None) -> str:
    """The words on a prompt option's button; an entry by the number the ``tablet`` prints
    beside it in the history ("Undo #138" beside "138 Red ends the turn"), never the log's."""
    if not isinstance(option, dict):
        return str(option)
    kind = option.get("type")
    if kind == "correct" and isinstance(option.get("action"), dict):
        entry = option.get("entry")
        number = entry_number(tablet, entry) if isinstance(entry, int) and entry else entry
        return f"Correct {f'#{number}' if number else 'it'}: {action_words(game, state, option['action'])}"
    if kind == "undo" and isinstance(option.get("through"), int) and isinstance(option.get("seq"), int):
        # two moves nobody made
        return f"Undo #{entry_number(tablet, option['through'])} and #{entry_number(tablet, option['seq'])}"
    if kind == "undo" and isinstance(option.get("seq"), int):
        return f"Undo #{entry_number(tablet, option['seq'])}"  # a move nobody made, taken back
    if kind in TABLE_WORDS:
        return TABLE_WORDS[str(kind)]
    if kind == "reads" and isinstance(option.get("says"), str):
        return str(option["says"])  # what a place the camera cannot read holds, as the tablet says
    return action_words(game, state, option)


def pieces_words(stack: tuple[Piece, ...] | list[Piece] | None) -> str:
    """A place's pieces as the tablet prints them: "purple (2)", or "nothing"."""
    if not stack:
        return "nothing"
    return ", ".join(p.colour + (f" ({p.pips})" if p.pips else "") for p in stack)


class Wording:
    """One table's words for buttons: the game's rules and the state its names come from
    (the set-up's, on both sides of the world's channel, so that both word a move alike)."""

    def __init__(self, game: Game, players: int, variant: str | None, seed: int) -> None:
        self.game = game
        try:
            self.state: State = game.start(players, variant, seed)
        except (ValueError, KeyError, TypeError):  # a table the rules do not set up (a test's)
            self.state = {"players": players}

    def option(self, option: Any, tablet: Mapping[str, Any] | None = None) -> str:
        """A button's words, its entries numbered as the ``tablet`` shows its history."""
        return option_words(self.game, self.state, option, tablet)

    def action(self, action: Action) -> str:
        return action_words(self.game, self.state, action)

    def find(self, tablet: dict[str, Any], text: str) -> Action | None:
        """The option whose button reads ``text`` among the tablet's prompts (None: no such
        button now; the tablet moved on since the player read it)."""
        for prompt in tablet.get("prompts") or []:
            for option in prompt.get("options") or [] if isinstance(prompt, dict) else []:
                if isinstance(option, dict) and self.option(option, tablet) == text:
                    return option
        return None
