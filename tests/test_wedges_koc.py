"""King of Clubs under a cafe's faults: one regression test per wedge cause found on the bench
(issue 39, ``companion bench truth --game king_of_clubs --faults cafe``).

Scripted boards, taps and presses on the real rules and the table's own pieces; no simulated
world, no camera.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.games.base import Action, BoardView, Piece, State
from companion.table import Table


def koc_in_moves(seed: int = 6) -> Table:
    """An Advanced two-player King of Clubs table, played on the tablet up to a Moves
    exchange of night 2 where both sides hold Moves and neither has played or passed yet;
    the camera has seen the table as the record has it."""
    table = Table.open("king_of_clubs", None, 2, "advanced", seed, resume=False)
    game = table.game
    for _ in range(200):
        state = table.state
        ex = state.get("exchange") or {}
        if state["phase"] == "moves" and min(state["hands"]) > 1 and not ex["played"] \
                and not any(ex["passed"]):
            table.board_seen(game.board_view(state))
            return table
        actions = game.legal_actions(state)
        # passes end the nights fast; the strongest reveals leave the 1 as Backup (draws 4)
        table.declare(next((a for a in actions if a["type"] == "pass"), None)
                      or max(actions, key=lambda a: sum(c["skill"] for c in a.get("cards", []))))
    raise AssertionError("no Moves exchange with Moves in both hands")


def move_of(table: Table, side: int, avoid: tuple[Action, ...] = ()) -> Action:
    """A legal Move of ``side``'s seat now, with a card none of ``avoid`` plays."""
    used = {a["card"] for a in avoid}
    return next(a for a in table.game.legal_actions(table.state)
                if a["type"] == "move" and a["player"] == side and a["card"] not in used)


def with_move_card(view: BoardView, move: Action) -> BoardView:
    """The table with ``move``'s card laid on its Dancer."""
    place = f"p{move['target']}_{move['slot']}"
    out: dict[str, Any] = dict(view)
    out[place] = (*view[place], Piece("white", 1))
    return out


def newest(table: Table) -> dict[str, Any]:
    entry = table.history[-1]
    return {"action": entry.action, "source": entry.source}


def test_a_press_asked_about_is_used_up_once_the_players_declare_its_pass() -> None:
    """King of Clubs seed 6, cafe, passive: A laid a Move card the reader missed and pressed
    (A hands over); the table asked.  B had laid its next card meanwhile (refused: A's turn).
    The players declared A's Move, then A's pass, then B's Move.  A's press, still waiting,
    was judged again after B's Move and recorded "B hands over"; B's own press then recorded
    A's final pass, the record ran a dance ahead of the table, and the game wedged.  A seat's
    press is its own side's step: used up once the record waits on the other side."""
    table = koc_in_moves()
    game = table.game
    state: State = table.state
    a = game.current_player(state)
    assert a is not None
    b = 1 - a
    first = move_of(table, a)  # the side to act first plays a Move and hands over
    later = {**move_of(table, a, (first,)), "target": first["target"], "slot": first["slot"]}
    board = with_move_card(game.board_view(state), first)
    table.board_seen(board)
    table.tap(first["card"], a)
    assert newest(table)["action"]["card"] == first["card"]
    table.button(a)
    assert newest(table)["action"] == {"type": "pass", "player": a}

    missed = move_of(table, b, (first, later))  # the other side's card: the reader misses it
    board = with_move_card(board, missed)
    table.board_seen(board)
    table.button(b)  # "b hands over", the card not read: asked
    assert table.table_prompt is not None and table.table_prompt.kind == "warning"
    assert newest(table)["action"] == {"type": "pass", "player": a}

    # meanwhile the first side lays its next card: refused (b's turn)
    later_board = with_move_card(board, later)
    table.board_seen(later_board)
    table.tap(later["card"], a)

    table.declare(missed)  # the players declare the card the reader missed ...
    assert newest(table)["action"]["card"] == missed["card"]
    table.declare({"type": "pass", "player": b})  # ... and the pass they pressed for
    assert newest(table)["action"] == {"type": "pass", "player": b}
    table.declare(later)  # and the first side's next Move, refused before
    assert newest(table)["action"].get("card") == later["card"], "the waiting press judged again"
    table.button(a)  # the first side hands over with its own press
    assert newest(table) == {"action": {"type": "pass", "player": a}, "source": "table"}
    assert game.current_player(table.state) == b


def test_the_players_know_their_move_line_and_keep_a_missed_card_in_mind() -> None:
    """King of Clubs seed 9, cafe, passive: A laid the Hustle (the reader missed it), then the
    Cha-Cha and the Sprinkler (read), and pressed twice.  Asked to declare the move made
    without its press, the players declared the Cha-Cha and the Sprinkler again (refused:
    their lines, "... at Nightclub 3 (5)", did not read as theirs, remembered as "(?)"), and
    the second press had pushed the Hustle out of mind: it was never declared, and the record
    fell a dance behind the table for good.  A person knows their card in its line, and the
    same pass pressed twice is one move to remember."""
    from companion.games import load_game
    from companion.sim.world import load_world

    world = load_world("king_of_clubs", load_game("king_of_clubs"), 2, "advanced", 9)
    world.set_temperament("passive")
    hustle, cha_cha, sprinkler = ({"type": "move", "player": 0, "card": card, "target": 0,
                                   "slot": "d2"}
                                  for card in ("move-hustle", "move-cha-cha", "move-sprinkler"))
    for move in (hustle, cha_cha, sprinkler):
        world.remember_made(move)
        world.not_yet_recorded(move)
    for _ in range(2):  # the pass, pressed a second time
        world.not_yet_recorded({"type": "pass", "seat": 0})
    assert hustle in world.unrecorded
    assert world.entry_says({"text": "A plays Cha-Cha (+1) on their Dancer at Nightclub 3 (5)"}, cha_cha)
    assert not world.entry_says({"text": "A plays Cha-Cha (+1) on their Dancer at Nightclub 3 (5)"}, hustle)
    assert not world.entry_says({"text": "A plays Cha-Cha (+1) on their Dancer at Nightclub 2 (5)"}, cha_cha)


def night_one(game: Any, state: State, skills: list[dict[str, int]]) -> list[Action]:
    """Night 1's Dancers placed and revealed dance by dance (nobody holds a Move yet)."""
    from companion.games.king_of_clubs.rules import SLOTS

    actions: list[Action] = [{"type": "place", "player": 0}, {"type": "place", "player": 1}]
    for action in actions:
        state = game.apply(state, action)
    while state["phase"] == "reveal":
        dance = state["dances"][state["dance"]]
        reveal = {"type": "reveal", "cards": [
            {"player": p, "slot": SLOTS[c], "skill": skills[p][SLOTS[c]]}
            for p in (0, 1) for c in dance["clubs"] if SLOTS[c] not in state["revealed"][p]]}
        actions.append(reveal)
        state = game.apply(state, reveal)
    return [*actions, {"type": "clear"}]


def test_read_the_table_again_takes_the_nearest_of_readings_the_table_cannot_tell_apart(
        tmp_path: Path) -> None:
    """King of Clubs seed 10, cafe, passive: one Nightclub misread all evening (read a pip
    low).  Nights later the point cards on the table showed a night won by the other side,
    and the tablet named the entry: last night's Nightclubs, read 2, 4, 4, 6, were 3, 4, 4, 6,
    5, 4, 4, 6 or 2, 4, 4, 7 by the point cards.  Gone from the table, they could not be told
    apart; "Read the table again" changed nothing and the game wedged.  Each reading leaves the
    same record now, so reading the table again takes the nearest and the score pieces are
    as the camera sees them, logged as a correction.  Its line says the readings it was taken
    among, never as if the table showed it, after a restart too."""
    table = Table.open("king_of_clubs", tmp_path, 2, "advanced", 10, resume=False)
    game = table.game
    skills = [{"d0": 4, "d1": 1, "d2": 2, "d3": 5, "backup": 3},
              {"d0": 2, "d1": 5, "d2": 3, "d3": 1, "backup": 4}]
    read, true = [2, 4, 3, 5], [2, 4, 3, 6]  # Nightclub 4 read a pip low
    start = table.state
    table.board_seen(game.board_view(game.apply(start, {"type": "nightclubs", "values": read})))
    assert table.history[-1].source == "camera"
    recorded = game.apply(start, {"type": "nightclubs", "values": read})
    for action in night_one(game, recorded, skills):
        table.declare(action)
    truth = game.apply(start, {"type": "nightclubs", "values": true})
    for action in night_one(game, truth, skills):
        truth = game.apply(truth, action)
    assert truth["points"] != table.state["points"]  # the misread gave the night to the other side
    truth = game.apply(truth, {"type": "nightclubs", "values": [4, 5, 6, 7]})
    table.board_seen(game.board_view(truth))  # night 2 laid; the point cards as the truth has them
    asked = table.prompts()
    assert any("Entry #1" in p.text and "explains it" in p.text for p in asked), [p.text for p in asked]
    fixed = table.declare({"type": "reread"})
    assert fixed is not None and fixed.action == {"type": "nightclubs", "values": true}
    assert table.state["points"] == truth["points"] and table.state["lead"] == truth["lead"]
    assert fixed.text.endswith("; Nightclub 4: 6 or 7 (the table no longer shows which; "
                               "recorded as 6)"), fixed.text
    state, text = table.state, fixed.text
    table.close()
    again = Table.open("king_of_clubs", tmp_path, resume=True)
    assert again.state == state
    line = next(e for e in again.history if e.seq == fixed.seq)
    assert (line.text, line.action) == (text, fixed.action)
    again.close()


def test_a_nightclub_that_reads_otherwise_now_is_offered_with_its_other_values() -> None:
    """King of Clubs seed 6, cafe, typical: Nightclub 2, a 6, was read 4 when laid and 5
    from then on (a card misread all evening).  The tablet asked "Nightclub 2 reads otherwise
    now" offering only the 5, which the players could not confirm, and every press waited on
    the answer until the game wedged.  Its other values are offered too, and "the record is
    right"; the 6 tapped, the camera's 5 there is set aside and nothing more is asked."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 6, resume=False)
    game = table.game
    start = table.state
    laid = game.apply(start, {"type": "nightclubs", "values": [4, 4, 3, 2]})
    table.board_seen(game.board_view(laid))  # read 4 where the 6 lies
    assert table.history[-1].source == "camera"
    for seat in (0, 1):
        table.declare({"type": "place", "player": seat})
    placed = dict(game.board_view(table.state))
    placed["club1"] = (Piece("orange", 5),)  # read 5 since
    table.board_seen(placed)
    asked = table.table_prompt
    assert asked is not None and "Nightclub 2 reads otherwise now" in asked.text, asked
    readings = [o["action"]["values"] for o in asked.options if o.get("type") == "correct"]
    assert [4, 5, 3, 2] in readings and [4, 6, 3, 2] in readings, readings
    assert {"type": "keep_record"} in asked.options
    six = next(o for o in asked.options if o.get("action", {}).get("values") == [4, 6, 3, 2])
    table.declare(six)
    assert table.state["clubs"] == [4, 6, 3, 2]
    assert table.referee.seen is not None and table.referee.seen["club1"] == (Piece("orange", 6),)
    assert table.table_prompt is None or "Nightclub 2" not in table.table_prompt.text


def test_a_refused_nightclubs_reading_offers_the_readings_a_mark_off() -> None:
    """King of Clubs seed 13, cafe, passive: Nightclub 2 read a pip high all evening.  Night
    5's Nightclubs, 6, 5, 7, 4, read 6, 6, 7, 4, which the rules refuse (the pile has one
    6); the tablet said "Not allowed ... declare it" with no reading to tap, and the game
    wedged.  The readings with one card read a mark off that the rules allow are offered,
    the places named, beside "the record is right"; the one tapped stands against the
    camera's 6 there, and the players' Dancers laid next are read without a question."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 13, resume=False)
    game = table.game
    start = table.state
    true = game.apply(start, {"type": "nightclubs", "values": [6, 5, 7, 4]})
    seen = dict(game.board_view(true))
    seen["club1"] = (Piece("orange", 6),)  # the 5 read a pip high
    table.board_seen(seen)
    assert table.history == []
    asked = table.table_prompt
    assert asked is not None and "Nightclub 1 or Nightclub 2 by one" in asked.text, asked
    offered = [o.get("values") for o in asked.options if o.get("type") == "nightclubs"]
    assert offered == [[5, 6, 7, 4], [6, 5, 7, 4]], asked.options
    assert {"type": "keep_record"} in asked.options
    table.declare({"type": "nightclubs", "values": [6, 5, 7, 4]})
    assert table.state["clubs"] == [6, 5, 7, 4]
    assert table.table_prompt is None
    placed = game.apply(table.state, {"type": "place", "player": 0})
    seen = dict(game.board_view(placed))
    seen["club1"] = (Piece("orange", 6),)  # the camera still reads 6 there
    table.board_seen(seen)
    assert table.history[-1].action == {"type": "place", "player": 0}
    assert table.history[-1].source == "camera"
    assert table.table_prompt is None



def test_a_press_asked_about_a_move_card_not_read_is_the_pass_once_the_move_is_declared() -> None:
    """King of Clubs seed 6, cafe, passive: A laid a Move card whose tap missed the reader
    and pressed (A hands over); the table asked.  The players declared the Move, and the
    press was spent on it: A's hand-over was never recorded, B's next card was refused (A's
    turn still), and night 4's exchange was declared move by move (20.9 % of the game's
    actions declared).  A press never records a Move (its card's tap does): with the Move
    declared, the press is A's pass, and B's next card is read from its tap."""
    table = koc_in_moves()
    game = table.game
    a = game.current_player(table.state)
    assert a is not None
    b = 1 - a
    missed = move_of(table, a)
    board = with_move_card(game.board_view(table.state), missed)
    table.board_seen(board)  # the card laid; its tap never reached the reader
    table.button(a)
    asked = table.table_prompt
    assert asked is not None and "does not match the record" in asked.text, asked
    assert table.history[-1].action.get("type") != "move"

    table.declare(missed)
    assert [(e.action, e.source) for e in table.history[-2:]] == [
        (missed, "tablet"), ({"type": "pass", "player": a}, "table")]
    assert game.current_player(table.state) == b and table.table_prompt is None

    reply = move_of(table, b)
    table.board_seen(with_move_card(board, reply))
    table.tap(reply["card"], b)
    assert (table.history[-1].action, table.history[-1].source) == (reply, "cards")


def test_a_night_cleared_with_its_last_passes_never_pressed_is_read_past_them() -> None:
    """King of Clubs seed 19, cafe, passive: at night 1's last dance B played a Move and
    pressed to hand over, and the press never reached the table.  The players ended the
    night, cleared it and laid night 2; the record stayed on B's hand-over, read night 2's
    cards as Moves of night 1's last dance, and the game wedged.  A table cleared of the
    night while only passes stand between the record and the night's end shows those passes
    made: each is read in turn, then the clearing and the next Nightclubs."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 19, resume=False)
    game = table.game
    for _ in range(300):  # the tablet's moves, up to the last dance's Moves
        state = table.state
        if state["phase"] == "moves" and state["dance"] == len(state["dances"]) - 1:
            break
        actions = game.legal_actions(state)
        table.declare(next((a for a in actions if a["type"] == "pass"), None)
                      or max(actions, key=lambda a: sum(c["skill"] for c in a.get("cards", []))))
    else:
        raise AssertionError("no last dance with Moves")
    state = table.state
    table.board_seen(game.board_view(state))
    ended, passes = state, []
    while ended["phase"] == "moves":  # the passes that end the night, never pressed
        passes.append({"type": "pass", "player": game.current_player(ended)})
        ended = game.apply(ended, passes[-1])
    assert ended["phase"] == "night_over"
    cleared = game.apply(ended, {"type": "clear"})
    laid = game.apply(cleared, {"type": "nightclubs", "values": [4, 7, 5, 3]})
    table.board_seen(game.board_view(laid))  # night 2's Nightclubs on a cleared table
    shown = [(e.action, e.source) for e in table.history if not e.undone][-len(passes) - 2:]
    assert shown == [*((p, "camera") for p in passes), ({"type": "clear"}, "camera"),
                     ({"type": "nightclubs", "values": [4, 7, 5, 3]}, "camera")]
    assert table.state == laid and table.table_prompt is None



def test_a_card_refused_as_out_of_turn_is_read_once_the_missed_move_before_it_is_declared() -> None:
    """King of Clubs seed 17, cafe, passive: B laid the Cha-Cha (its tap missed the reader)
    and the Sprinkler (read), its last Moves, so its side was done; A then laid the Twist,
    refused ("it is B's turn": the record had B holding a Move still).  The players declared
    the Cha-Cha, and the Twist's tap went with the answer: A's press found the table showing
    a card no tap named, and the Twist was declared too.  A card laid on the other side's
    reader before the answer is that side's next step: it is read with the table."""
    table = koc_in_moves()
    game = table.game
    a = game.current_player(table.state)
    assert a is not None
    b = 1 - a

    def own_move(side: int, avoid: tuple[Action, ...] = ()) -> Action:
        used = {m["card"] for m in avoid}
        return next(m for m in game.legal_actions(table.state) if m["type"] == "move"
                    and m["player"] == side and m["target"] == side and m["card"] not in used)

    held = table.state["hands"][a]
    assert isinstance(held, int) and held >= 2, held
    missed = own_move(a)
    board = with_move_card(game.board_view(table.state), missed)
    table.board_seen(board)  # laid; its tap never reached the reader
    played: list[Action] = [missed]
    for _ in range(held - 1):  # a's other Moves, read from their taps
        move = own_move(a, tuple(played))
        board = with_move_card(board, move)
        table.board_seen(board)
        table.tap(move["card"], a)
        assert newest(table) == {"action": move, "source": "cards"}
        played.append(move)
    assert game.current_player(table.state) == a  # the record: a holds one Move still

    reply = next(m for m in game.legal_actions(game.apply(table.state, {"type": "pass", "player": a}))
                 if m["type"] == "move" and m["target"] == b and m["card"] not in {p["card"] for p in played})
    board = with_move_card(board, reply)
    table.board_seen(board)
    table.tap(reply["card"], b)  # refused: a's turn on the record
    asked = table.table_prompt
    assert asked is not None and asked.kind == "warning", asked
    assert newest(table)["action"] == played[-1]

    table.declare(missed)  # the players declare the card the reader missed
    assert [(e.action, e.source) for e in table.history[-2:]] == [
        (missed, "tablet"), (reply, "camera")], [e.text for e in table.history[-3:]]
    assert game.current_player(table.state) == b


def test_a_nightclub_place_read_a_mark_off_is_read_back_by_it_on_later_nights() -> None:
    """King of Clubs seed 17, cafe, typical: Nightclub 2 read a pip high all evening.  The
    players tapped the reading a mark off on night 1, but every later night's Nightclubs were
    read a pip high there again: refused and asked, or (a 3 read 4 beside a 4, which the pile
    allows) recorded wrong and undone (13 of the game's 123 entries declared).  The offset the
    players' answer showed is the place's: night 2's Nightclubs are read back by it, from the
    camera, with no question."""
    table = Table.open("king_of_clubs", None, 2, "advanced", 13, resume=False)
    game = table.game
    true = game.apply(table.state, {"type": "nightclubs", "values": [6, 5, 7, 4]})
    seen = dict(game.board_view(true))
    seen["club1"] = (Piece("orange", 6),)  # the 5 read a pip high: refused (one 6 in the pile)
    table.board_seen(seen)
    asked = table.table_prompt
    assert asked is not None and {"type": "nightclubs", "values": [6, 5, 7, 4]} in asked.options
    table.declare({"type": "nightclubs", "values": [6, 5, 7, 4]})

    def camera(state: State) -> BoardView:  # the table as the camera reads it: Nightclub 2 a pip high
        view = dict(game.board_view(state))
        if "club1" in view:
            view["club1"] = (Piece("orange", view["club1"][0].pips + 1),)
        return view

    for _ in range(200):  # night 1 played on the tablet, the camera seeing it, up to its end
        if table.state["phase"] == "night_over":
            break
        actions = game.legal_actions(table.state)
        table.declare(next((a for a in actions if a["type"] == "pass"), actions[0]))
        table.board_seen(camera(table.state))
    assert table.state["phase"] == "night_over" and len(table.history) > 2, table.state["phase"]
    # night 2's Nightclubs seen before the clearing is recorded (Nightclub 2 still a 5 in the
    # record): a 3 there read 4 beside a 4, which the pile allows (2, 4, 4, 5)
    cleared = game.apply(table.state, {"type": "clear"})
    table.board_seen(camera(game.apply(cleared, {"type": "nightclubs", "values": [2, 3, 4, 5]})))
    assert [(h.action, h.source) for h in table.history[-2:]] == [
        ({"type": "clear"}, "camera"), ({"type": "nightclubs", "values": [2, 3, 4, 5]}, "camera")]
    assert table.table_prompt is None
    # a passing misread over the standing one reads the 3 as it is: not moved off the record
    # (seed 17 again: a 7 there read 8, unreadable, then 7 for a moment, was drawn as a 6 and
    # the record was undone back to night 3 until the game wedged)
    table.board_seen({**camera(table.state), "club1": (Piece("orange", 3),)})
    assert table.referee.seen is not None and table.referee.seen["club1"] == (Piece("orange", 3),)
    assert table.table_prompt is None and table.history[-1].action["type"] == "nightclubs"



def test_dancers_turned_up_before_the_last_move_was_tapped_are_read_once_it_is() -> None:
    """King of Clubs seed 206, cafe, passive: B laid its last Move card, whose tap the reader
    dropped, and the players went on to the next dance and turned its Dancers up.  The camera's
    board was refused (Moves were still being played on the record).  B laid the card again and
    it was recorded, but the board that showed the Dancers turned up was not read again: the
    warning went, the tablet waited for the reveal the table already showed, and the game
    wedged.  A card tapped after the table moved on is read with what the table shows since."""
    table = koc_in_moves()
    game = table.game
    for _ in range(60):  # on the tablet, up to a Move in hand whose play ends the dance's Moves
        state = table.state
        side = game.current_player(state)
        own = [a for a in game.legal_actions(state) if a["type"] == "move" and a["target"] == side]
        if state["phase"] == "moves" and own and state["hands"][own[0]["player"]] == 1 \
                and game.apply(state, own[0])["phase"] == "reveal":
            last = own[0]
            break
        actions = game.legal_actions(state)
        # the side to act first passes; the other plays its Moves down to its last one
        playing = own and state["hands"][own[0]["player"]] > 1 and any(state["exchange"]["passed"])
        table.declare(own[0] if playing else next((a for a in actions if a["type"] == "pass"), None)
                      or actions[0])
    else:
        raise AssertionError("no last Move that ends a dance's Moves")
    view = with_move_card(game.board_view(state), last)
    table.board_seen(view)  # laid; its tap dropped
    shown = game.apply(state, last)
    reveal = game.legal_actions(shown)[0]
    shown = game.apply(shown, reveal)
    table.board_seen(game.board_view(shown))  # the next dance's Dancers turned up: refused
    asked = table.table_prompt
    assert asked is not None and asked.kind == "warning" and "not possible now" in asked.text, asked
    table.tap(last["card"], last["player"])  # laid again
    made = [(e.action, e.source) for e in table.history if not e.undone][-2:]
    assert made == [(last, "cards"), (reveal, "camera")], made
    assert table.state == shown and table.table_prompt is None
