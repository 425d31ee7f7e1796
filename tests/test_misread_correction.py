"""A move the camera was sure of, then contradicted by the next frames: asked, never guessed.

Issue 12: a Dancer's value misread for a second was recorded (legal, and the camera was
confident); the true value then read was refused as a second Dancer of that skill, and the
game stuck.  The table now asks whether the move was the one the board shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games.base import RuleError
from companion.reconcile import changed_places
from companion.store import EventLog
from companion.table import RECONSIDER_FRAMES, Table

PLAYERS, VARIANT = 2, "advanced"


def at_first_reveal(tmp_path: Path) -> Table:
    table = Table.open("king_of_clubs", tmp_path, PLAYERS, VARIANT, 0)
    for _ in range(20):
        if table.state["phase"] == "reveal":
            return table
        table.declare(table.game.legal_actions(table.state)[0])
    raise AssertionError("never reached a reveal")


def two_readings(table: Table) -> tuple[dict, dict]:
    """Two reveals of the same cards that differ only in one Dancer's value."""
    options = table.game.legal_actions(table.state)
    first = options[0]
    for other in options[1:]:
        places = [(c["player"], c["slot"]) for c in other["cards"]]
        if places == [(c["player"], c["slot"]) for c in first["cards"]]:
            return first, other
    raise AssertionError("no second reading of the same cards")


def test_a_recorded_reveal_the_board_then_contradicts_becomes_a_correction_to_tap(
        tmp_path: Path) -> None:
    table = at_first_reveal(tmp_path)
    game, before = table.game, table.state
    misread, true = two_readings(table)
    entry = table.board_seen(game.board_view(game.apply(before, misread)))
    assert entry is not None and entry.action == misread and entry.source == "camera"
    recorded = table.state

    assert table.board_seen(game.board_view(game.apply(before, true))) is None
    assert table.state == recorded  # nothing changed on the camera's word alone
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "choice"
    assert prompt.options == [{"type": "correct", "action": true}]
    assert game.describe(before, true) in prompt.text and "was recorded" in prompt.text

    table.declare(prompt.options[0])  # the players tap it
    assert table.state == game.apply(before, true)
    assert [h.undone for h in table.history[-2:]] == [True, False]
    assert table.history[-1].kind == "correct"


def test_the_question_goes_when_the_table_reads_as_recorded_again(tmp_path: Path) -> None:
    """The record was right and the other reading a misread for a moment: once the table
    reads as recorded, the question is moot and leaves the tablet; the record stands."""
    table = at_first_reveal(tmp_path)
    game, before = table.game, table.state
    recorded_move, passing = two_readings(table)
    table.board_seen(game.board_view(game.apply(before, recorded_move)))
    recorded = table.state
    table.board_seen(game.board_view(game.apply(before, passing)))
    assert table.table_prompt is not None and table.table_prompt.options[0]["type"] == "correct"
    table.board_seen(game.board_view(recorded))
    assert table.table_prompt is None and table.state == recorded
    assert not any(p.options and p.options[0].get("type") == "correct" for p in table.prompts())


def test_a_change_beyond_the_recorded_move_is_not_taken_for_a_misread(tmp_path: Path) -> None:
    table = at_first_reveal(tmp_path)
    game, before = table.game, table.state
    misread, true = two_readings(table)
    entry = table.board_seen(game.board_view(game.apply(before, misread)))
    assert entry is not None
    touched = {spot for spot, stack in game.board_view(table.state).items()
               if stack != game.board_view(before).get(spot)}
    seen = dict(game.board_view(game.apply(before, true)))
    other = next(s.id for s in game.layout(table.state).spots if s.id not in touched)
    seen[other] = seen[sorted(touched)[0]]  # and a card turned where the move never was
    table.board_seen(seen)
    prompt = table.table_prompt
    assert prompt is None or not any(o.get("type") == "correct" for o in prompt.options or [])


def test_an_old_move_is_not_reconsidered(tmp_path: Path) -> None:
    """How old a move is counts in camera frames, never the wall clock."""
    log = EventLog(tmp_path / "log.sqlite")
    table = Table.open("king_of_clubs", None, PLAYERS, VARIANT, 0, log=log)
    for _ in range(20):
        if table.state["phase"] == "reveal":
            break
        table.declare(table.game.legal_actions(table.state)[0])
    game, before = table.game, table.state
    misread, true = two_readings(table)
    table.board_seen(game.board_view(game.apply(before, misread)))
    for _ in range(RECONSIDER_FRAMES):  # the camera's frames go by, whatever the clock says
        table.frame_taken()
    # the value changes that much later: that is the players, not a misread
    table.board_seen(game.board_view(game.apply(before, true)))
    prompt = table.table_prompt
    assert prompt is None or not any(o.get("type") == "correct" for o in prompt.options or [])


def test_players_tap_the_correction_of_a_nightclub_value_the_camera_misread() -> None:
    """Issue 12 (King of Clubs, seed 4 with faults): a Nightclub's 5 read as a 4 for a moment
    was recorded as the night's Nightclubs; the table then asked whether the night was the
    one it now shows, and nobody answered, so the night's dances were wrong from then on.
    The players tap the correction when it names the Nightclubs lying on their table, in
    their order, and leave one that does not."""
    from companion.games import load_game
    from companion.sim.world import Declare, TapOption, load_world

    game = load_game("king_of_clubs")
    world = load_world("king_of_clubs", game, PLAYERS, VARIANT, 4)
    world.step({"prompts": [], "history": [], "history_total": 0})  # the Nightclubs laid
    laid = list(world.clubs)
    wrong = [laid[0] + (1 if laid[0] < 7 else -1), *laid[1:]]

    def asking(values: list[int]) -> dict:
        option = {"type": "correct", "action": {"type": "nightclubs", "values": values}}
        return {"history": [], "history_total": 1,
                "prompts": [{"kind": "choice", "text": "The table now shows ...", "options": [option]}]}

    # the players read the button's words ("Correct it: Nightclubs laid out: ..."); handed
    # the tablet as data, the world taps that data
    words = world.option_text(asking(laid)["prompts"][0]["options"][0])
    assert world.step(asking(laid)) == [Declare(asking(laid)["prompts"][0]["options"][0])]
    assert world.step({**asking(laid), "prompts": [{**asking(laid)["prompts"][0], "options": [words]}]}) \
        == [TapOption(words)]
    assert world.recognised(words) == {"type": "nightclubs", "values": laid}
    assert world.recognised(world.option_text(
        asking(wrong)["prompts"][0]["options"][0])) is None
    assert not world.recognises({"type": "nightclubs", "values": wrong})
    assert not world.recognises({"type": "nightclubs", "values": list(reversed(laid))}) \
        or laid == list(reversed(laid))


def test_players_tap_the_correction_of_the_lead_dancers_card_only_as_it_lies() -> None:
    """The Lead Dancer's card turned face up and read as another value: the players tap the
    correction that names that card with the value it shows, not another value or card."""
    from companion.games import load_game
    from companion.sim.world import load_world

    game = load_game("king_of_clubs")
    world = load_world("king_of_clubs", game, PLAYERS, VARIANT, 4)
    quiet = {"prompts": [], "history": [], "history_total": 0}
    for _ in range(200):
        if world.face_up and world.stage == "swap":
            break
        world.step(quiet)
    else:
        raise AssertionError("never reached a Lead Dancer's reveal")
    (player, slot), = world.face_up
    skill = world.placed[player][slot]
    assert world.recognises({"type": "lead_reveal", "player": player, "slot": slot, "skill": skill})
    assert not world.recognises({"type": "lead_reveal", "player": player, "slot": slot,
                                 "skill": skill % 5 + 1})
    other = next(s for s in world.placed[player] if s != slot)
    assert not world.recognises({"type": "lead_reveal", "player": player, "slot": other,
                                 "skill": world.placed[player][other]})


# --- a card laid moves ago that stays put: King of Clubs' Nightclubs ----------------------------
TRUE_CLUBS = {"type": "nightclubs", "values": [2, 4, 7, 2]}  # Couples 2+2, Solo 4, Solo 7
MISREAD_CLUBS = {"type": "nightclubs", "values": [2, 4, 7, 3]}  # the last 2 read as a 3


def nightclubs_misread_then_placed(data_dir: Path | None) -> tuple[Table, int]:
    """The camera read the last Nightclub as a 3 for a moment and the reading was recorded;
    both sides then placed their Dancers, and the camera, reading the 2 again, recorded
    each placement (seed 76 of the King of Clubs bench, night 8)."""
    table = Table.open("king_of_clubs", data_dir, PLAYERS, "basic", 0)
    game = table.game
    truth = game.apply(table.state, TRUE_CLUBS)
    entry = table.board_seen(game.board_view(game.apply(table.state, MISREAD_CLUBS)))
    assert entry is not None and entry.action == MISREAD_CLUBS
    for player in range(PLAYERS):
        truth = game.apply(truth, {"type": "place", "player": player})
        placed = table.board_seen(game.board_view(truth))
        assert placed is not None and placed.action == {"type": "place", "player": player}
    return table, entry.seq


def test_a_nightclub_misread_moves_ago_is_asked_about_by_name(tmp_path: Path) -> None:
    table, misread_seq = nightclubs_misread_then_placed(tmp_path)
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "choice", prompt
    # the camera's reading first, then the Nightclub's other values (it may misread it
    # still), and "the record is right"
    assert prompt.options[0] == {"type": "correct", "action": TRUE_CLUBS, "entry": misread_seq}
    assert prompt.options[-1] == {"type": "keep_record"}
    assert all(o["type"] == "correct" and o["entry"] == misread_seq
               and [v for v, w in zip(o["action"]["values"], TRUE_CLUBS["values"], strict=True)
                    if v != w] for o in prompt.options[1:-1])
    assert "Nightclubs 2, 4, 7, 2" in prompt.text and "Nightclubs 2, 4, 7, 3" in prompt.text
    assert prompt.text.startswith("Nightclub 4 reads otherwise now.") and "2 moves ago" in prompt.text
    assert table.state["clubs"] == [2, 4, 7, 3]  # asked, never changed on the camera's word


def test_the_correction_replaces_that_move_and_the_moves_since_stand_after_a_restart(
        tmp_path: Path) -> None:
    table, misread_seq = nightclubs_misread_then_placed(tmp_path)
    game = table.game
    prompt = table.table_prompt
    assert prompt is not None and prompt.options
    standing_before = [h for h in table.history if not h.undone]

    entry = table.declare(prompt.options[0])  # the players tap it

    truth = game.apply(game.apply(game.apply(
        game.start(PLAYERS, "basic", 0), TRUE_CLUBS), {"type": "place", "player": 0}),
        {"type": "place", "player": 1})
    assert table.state == truth
    assert entry is not None and entry.action == TRUE_CLUBS and entry.kind == "correct"
    standing = [h for h in table.history if not h.undone]
    assert [h.action for h in standing] == [TRUE_CLUBS] + [h.action for h in standing_before[1:]]
    assert [h.source for h in standing[1:]] == ["camera", "camera"]  # made again as they were
    assert all(h.undone for h in standing_before)
    assert any("Solo 4 -> Solo 7 -> Couples 2+2" in p.text
               for p in game.prompts(table.state))  # the reveal order of the table itself
    # a restart replays the same record
    again = Table.open("king_of_clubs", tmp_path, PLAYERS, "basic", 0)
    assert again.state == truth
    assert [(h.seq, h.action, h.undone) for h in again.history] == \
        [(h.seq, h.action, h.undone) for h in table.history]


def test_a_correction_the_moves_since_would_not_survive_changes_nothing(
        tmp_path: Path) -> None:
    table = Table.open("king_of_clubs", tmp_path, PLAYERS, "basic", 0)
    game = table.game
    clubs = table.declare({"type": "nightclubs", "values": [2, 3, 4, 5]})  # Solo 2 first
    assert clubs is not None
    for player in range(PLAYERS):
        table.declare({"type": "place", "player": player})
    reveal = next(a for a in game.legal_actions(table.state) if a["type"] == "reveal")
    table.declare(reveal)  # the Dancers at Nightclub 1 (Solo 2)
    before = (table.state, [(h.seq, h.undone) for h in table.history],
              len(table.log.events(table.record.id)))
    # with a 6 at Nightclub 1, Solo 3 comes first: the reveal at Nightclub 1 was out of turn
    with pytest.raises(RuleError, match=f"with move {table.ledger.move_number(clubs.seq)} corrected, move"):
        table.declare({"type": "correct", "entry": clubs.seq,
                       "action": {"type": "nightclubs", "values": [6, 3, 4, 5]}})
    assert (table.state, [(h.seq, h.undone) for h in table.history],
            len(table.log.events(table.record.id))) == before


def baron_set_up_misread(tmp_path: Path) -> tuple[Table, dict, dict, dict, dict]:
    """A Baron Voodoo table after the Deities' choice, with its true set-up (a random
    layout), the same set-up with one die read a face off, and a first capture that is legal
    after either and never goes near that die."""
    table = Table.open("baron_voodoo", tmp_path, 2, None, 0)
    game = table.game
    table.declare(next(a for a in game.legal_actions(table.state) if a["type"] == "deities"))
    base = table.state
    faces = list(game.facts.faces)

    def other_face(setup: dict, cell: str) -> dict:
        colour, face = setup["board"][cell][0]
        board = {**setup["board"], cell: [[colour, faces[(faces.index(face) + 1) % len(faces)]]]}
        return {**setup, "layout": "random", "board": board}

    true_setup = other_face(next(a for a in game.legal_actions(base) if a["type"] == "setup"), "A1")
    truth = game.apply(base, true_setup)
    for cell in sorted(true_setup["board"]):
        misread = other_face(true_setup, cell)
        if not game.is_legal(base, misread):
            continue
        for capture in (a for a in game.legal_actions(truth) if a["type"] == "capture"):
            moved = changed_places(game.board_view(truth), game.board_view(game.apply(truth, capture)))
            if cell not in moved and game.is_legal(game.apply(base, misread), capture):
                return table, base, true_setup, misread, capture
    raise AssertionError("no capture clear of a misread die")


def test_a_set_up_die_read_right_again_is_asked_about_and_corrected(tmp_path: Path) -> None:
    """A set-up is recorded on a press, not from the board alone: its misread die, read
    right again a moment later, is asked about all the same."""
    table, base, true_setup, misread, _ = baron_set_up_misread(tmp_path)
    game = table.game
    table.board_seen(game.board_view(game.apply(base, misread)))
    table.button()
    assert table.history[-1].action == misread
    table.board_seen(game.board_view(game.apply(base, true_setup)))
    prompt = table.table_prompt
    assert prompt is not None and prompt.options == [{"type": "correct", "action": true_setup}]
    table.declare(prompt.options[0])
    assert table.state == game.apply(base, true_setup)


def test_a_set_up_die_misread_then_the_first_capture_is_asked_about_and_corrected(
        tmp_path: Path) -> None:
    """Issue 12, Baron Voodoo seed 82: one of the 48 set-up dice was read a face off for a
    moment, the set-up was recorded so, and the first capture was made before the next
    frames read the die right.  No legal move explains the table (the record is wrong where
    the capture never went), and the game stuck.  The table now asks by name whether the
    set-up was the one the table shows with that capture made after it; the players' tap
    corrects the set-up, and the press they made for the capture, judged again, records it."""
    table, base, true_setup, misread, capture = baron_set_up_misread(tmp_path)
    game = table.game
    truth = game.apply(base, true_setup)

    table.board_seen(game.board_view(game.apply(base, misread)))
    table.button()  # the set-up is recorded as the camera read it
    assert table.history[-1].action == misread
    recorded = table.state

    table.board_seen(game.board_view(game.apply(truth, capture)))  # the die reads right now
    # a board alone may be a move under way: every legal next move is tried only on a press
    assert table.table_prompt is None or table.table_prompt.kind != "choice"
    table.button()  # the players press for their capture: the question stays the answer
    assert table.state == recorded  # nothing changed on the camera's word alone
    prompt = table.table_prompt
    assert prompt is not None and prompt.kind == "choice", prompt
    assert prompt.options == [{"type": "correct", "action": true_setup}]
    assert "reads otherwise now" in prompt.text and "was recorded" in prompt.text

    table.declare(prompt.options[0])  # the players tap it: their press is judged again
    assert table.state == game.apply(truth, capture)
    assert [h.action for h in table.history[-2:]] == [true_setup, capture]
    assert table.history[-1].source == "table"
