"""Issue 39: the world's players answer a disagreement between table and record as people do.

They read the tablet's words only (the prompt, the words on its buttons, the history's
lines) and check their own table and what they remember doing: a correction naming their
move is tapped; a piece they did not put there, or a cup, is set right with "the record is
right"; a camera that misreads a place the record has right gets "the record is right"; a
line none of them made is undone; unsure, they ask the table to be read again.
"""

from __future__ import annotations

from typing import Any

from companion.games import load_game
from companion.sim.players.swing_state import SwingStateWorld
from companion.sim.words import KEEP_RECORD_WORDS, REREAD_WORDS
from companion.sim.world import STRAIGHTEN_FRAMES, BoardChange, Declare, HandOver, TapOption, Tidy
from companion.sim.worldproc import as_seen

ROLL_3 = {"type": "roll", "player": 1, "value": 3}


def swing_world(die: int | None = 3) -> SwingStateWorld:
    """Swing State's table with Red's roll of 3 made (the die shows it) and remembered."""
    world = SwingStateWorld(load_game("swing_state"), 3, None, 2)
    world.remember_made(ROLL_3)
    world.die = die
    return world


def disagreement(shows: str, kept: str, seq: int = 44, was: str = "Red rolls 4",
                 options: list[dict[str, Any]] | None = None, total: int = 44) -> dict[str, Any]:
    """The tablet as the players see it (:func:`as_seen`) with one disagreement on the die."""
    world = swing_world()
    text = (f"The table does not match the record: Die shows {shows} on the table, {kept} in the "
            f"record. Entry #{seq} ({was}) explains it: the table shows Red rolls 3. If the table "
            f"is right, correct entry #{seq}. If the table is wrong, tap that the record is right "
            "and set the table as it says.")
    options = options if options is not None else [
        {"type": "correct", "entry": seq, "action": ROLL_3}, {"type": "keep_record"}, {"type": "reread"}]
    tablet = {"history": [{"seq": seq, "text": was, "source": "camera", "undone": False,
                           "action": {"type": "roll", "player": 1, "value": 4}}],
              "history_total": total, "scores": [10, 0, 0],
              "prompts": [{"kind": "warning", "text": text, "options": options}]}
    return as_seen(tablet, world.wording())


def test_players_tap_the_correction_that_names_the_move_they_made() -> None:
    """Red rolled 3, the camera read 4 and it was recorded: the tablet names entry #44 and
    offers "Correct #44: Red: Roll: rolled 3", which is what Red did: tapped."""
    tablet = disagreement("white (3)", "white (4)")
    assert swing_world().answer_disagreement(tablet) == [TapOption("Correct #44: Red: Roll: rolled 3")]
    # the die picked up since (the table shows nothing there): Red still remembers the roll
    tablet = disagreement("nothing", "white (4)")
    assert swing_world(die=None).answer_disagreement(tablet) == \
        [TapOption("Correct #44: Red: Roll: rolled 3")]


def test_a_correction_naming_a_move_nobody_made_is_not_tapped() -> None:
    """Red rolled 3 but the button offers 5: no such roll; the table shows what the record
    does not and no button names their move, so, unsure, they ask for the table read again."""
    five = {"type": "correct", "entry": 44, "action": {**ROLL_3, "value": 5}}
    tablet = disagreement("white (3)", "white (4)",
                          options=[five, {"type": "keep_record"}, {"type": "reread"}])
    assert swing_world().answer_disagreement(tablet) == [TapOption(REREAD_WORDS)]


def test_a_knocked_piece_is_put_back_and_the_record_kept() -> None:
    """The die was knocked off its place as the hand withdrew: the players see it lying
    where they did not put it, tap that the record is right and lay the table as it was."""
    world = swing_world()
    laid = world.table_now()
    assert laid is not None
    die_spot = world.rules.die_spot
    knocked = {p: v for p, v in laid.items() if p != die_spot}
    world.look_at_table({"knocked": knocked})
    answer = world.answer_disagreement(disagreement("nothing", "white (3)", was="Red rolls 3"))
    assert answer == [TapOption(KEEP_RECORD_WORDS), Tidy(), HandOver(STRAIGHTEN_FRAMES), BoardChange(laid)]
    assert world.table_off is None  # put right


def test_a_cup_on_a_named_place_is_taken_away_and_the_record_kept() -> None:
    world = swing_world()
    world.look_at_table({"cup": world.rules.die_spot})
    answer = world.answer_disagreement(disagreement("nothing", "white (3)", was="Red rolls 3"))
    assert answer[:2] == [TapOption(KEEP_RECORD_WORDS), Tidy()]


def test_a_place_the_camera_misreads_gets_the_record_is_right() -> None:
    """Glare on the die all evening: the camera reads 4 where the die shows 3 and the record
    has 3.  The players see 3 on their table, as the record says: the record is right."""
    world = swing_world()
    tablet = disagreement("white (4)", "white (3)", was="Red rolls 3",
                          options=[{"type": "keep_record"}, {"type": "reread"}])
    assert world.answer_disagreement(tablet) == [TapOption(KEEP_RECORD_WORDS)]


def test_a_line_none_of_them_made_is_undone() -> None:
    """The die read a pip off while it lay still became "Blue rolls 5" though Blue never
    rolled: the tablet names entry #45; it names no move of theirs, so they undo it."""
    world = swing_world()
    blue_5 = {"type": "correct", "entry": 45, "action": {"type": "roll", "player": 2, "value": 3}}
    tablet = disagreement("white (3)", "white (5)", seq=45, was="Blue rolls 5",
                          options=[blue_5, {"type": "keep_record"}, {"type": "reread"}], total=45)
    assert world.answer_disagreement(tablet) == [Declare({"type": "undo", "seq": 45})]


def test_one_disagreement_is_answered_twice_at_most() -> None:
    """The same words at the same point of the game: two answers, then the players leave
    it to the other remedies (straightening, pressing again)."""
    world = swing_world()
    tablet = disagreement("white (3)", "white (4)",
                          options=[{"type": "keep_record"}, {"type": "reread"}])
    assert world.answer_disagreement(tablet) == [TapOption(REREAD_WORDS)]
    assert world.answer_disagreement(tablet) == [TapOption(REREAD_WORDS)]
    assert world.answer_disagreement(tablet) == []
    assert world.answer_disagreement({**tablet, "history_total": 45}) == [TapOption(REREAD_WORDS)]


def test_attentive_players_count_their_score_pieces_against_the_tablet() -> None:
    """The tablet's scores unlike the players' count of their V chips at two glances of the
    same record: attentive players count (and then read every line as if asked); passive
    ones never; a difference at one glance only (a move not on the tablet yet) is none."""
    world = swing_world()
    counted = world.truth()["scores"]
    wrong = {"history_total": 10, "scores": [counted[0] + 2, *counted[1:]], "prompts": [], "history": []}
    world.set_temperament("passive")
    assert not world.counts_score_pieces(wrong) and not world.counts_score_pieces(wrong)
    seen = []
    for total in range(10, 30):
        world = swing_world()
        world.set_temperament("attentive")
        glance = {**wrong, "history_total": total}
        assert not world.counts_score_pieces(glance)  # the first glance: maybe not recorded yet
        seen.append(world.counts_score_pieces(glance))
        assert not world.counts_score_pieces({**glance, "scores": counted})
    assert 10 <= sum(seen) < 20  # at a human rate, not always


def test_a_record_behind_their_table_is_not_read_again() -> None:
    """Times Square seed 1, cafe: the tablet named an entry of theirs, as they made it, to
    explain a table that was only ahead of the record (their press not taken yet); reading
    the table again rewrote that older move with the newer one's pieces and the game ended
    wrong.  Now an entry of theirs as they made it is left standing: they press again."""
    world = swing_world()
    tablet = disagreement("white (3)", "white (4)", was="Red rolls 3",
                          options=[{"type": "keep_record"}, {"type": "reread"}])
    assert world.answer_disagreement(tablet) == []
    # and with no entry named at all, nothing to read again either
    plain = {**tablet, "prompts": [{**tablet["prompts"][0],
                                    "text": tablet["prompts"][0]["text"].split(" Entry #")[0]}]}
    assert world.answer_disagreement(plain) == []


def test_pieces_the_record_lacks_are_declared_as_moves_it_lacks() -> None:
    """Jivecat seed 1, cafe (a forgotten press): "9 shows yellow on the table, nothing in the
    record" with no entry to correct: the players declare the moves they pressed for that no
    line shows, as for "Fix it or declare it", once the ask stands at two glances."""
    world = SwingStateWorld(load_game("swing_state"), 3, None, 2)
    world.set_temperament("passive")
    move = {"type": "move", "player": 1, "to": "r1-01-red"}
    world.press_for(move)
    warned = {"history_total": 3, "taps": [], "history": [], "prompts": [
        {"kind": "warning", "text": "The table does not match the record: 9 shows yellow on the "
                                    "table, nothing in the record.", "options": [KEEP_RECORD_WORDS]}]}
    assert world.declare_missing(warned) == []  # the press may still be on its way
    assert world.declare_missing(warned) == [Declare(move)]
    # a place that shows nothing where the record has a piece asks for no declaration
    gone = {**warned, "prompts": [{"kind": "warning", "text": "The table does not match the record: "
                                   "9 shows nothing on the table, yellow in the record."}]}
    world.press_for(move)
    assert world.declare_missing(gone) == [] and world.declare_missing(gone) == []


def test_their_move_is_known_by_the_words_of_its_line() -> None:
    """A history line reaches the players as words: their move is known by the line the
    record prints for it (noted from the table as it was when they made it)."""
    world = swing_world()
    assert world.entry_says({"seq": 5, "text": "Red rolls 3"}, ROLL_3)
    assert not world.entry_says({"seq": 5, "text": "Red rolls 4"}, ROLL_3)
    assert not world.entry_says({"seq": 5, "text": "Blue rolls 3"}, ROLL_3)


def test_a_move_is_known_by_its_line_as_the_log_keeps_it_keys_sorted() -> None:
    """Swing State seed 1, cafe, passive (wedged at 136 actions): the Incumbent's choice
    {"red": 2, "blue": 1} is logged with its keys sorted and its line reads "Incumbent chooses
    1 blue, 2 red"; the players worded it "2 red, 1 blue", took it for unrecorded and declared
    it again, refused, for good.  The line is matched as the log words it."""
    world = swing_world()
    choice = {"type": "allocate", "player": 0, "piles": {"red": 2, "blue": 1}}
    world.remember_made(choice)
    logged = {"type": "allocate", "player": 0, "piles": {"blue": 1, "red": 2}}
    line = world.game.describe(world.public, logged)
    assert line == "Incumbent chooses 1 blue, 2 red"
    assert world.entry_says({"seq": 3, "text": line}, choice)


def test_a_button_words_a_move_one_way_whatever_the_order_of_its_data() -> None:
    """The Incumbent's choice offered on a button reads the same as the players word the
    choice they made, whichever order its colours came in."""
    world = swing_world()
    made = {"type": "allocate", "player": 0, "piles": {"red": 2, "blue": 1}}
    offered = {"type": "allocate", "player": 0, "piles": {"blue": 1, "red": 2}}
    assert world.wording().action(made) == world.wording().option(offered)


def test_a_cup_does_not_make_the_record_right_where_they_laid_the_table_otherwise() -> None:
    """King of Clubs seed 2, cafe, passive: a knocked piece was one of the places a
    disagreement named, and the players tapped "the record is right" for all of them, the
    night's points and Lead Dancer card on the wrong side included.  Here a cup stands on
    the die and the record has a chip at Start that their table does not: they take the cup
    away and lay their table again, but do not say the record is right."""
    world = swing_world()
    laid = world.table_now()
    assert laid is not None
    world.look_at_table({"cup": world.rules.die_spot})
    text = ("The table does not match the record: Die shows nothing on the table, white (3) in the "
            "record; Start shows black, blue, red on the table, black, blue, red, red in the record. "
            "If the table is wrong, tap that the record is right and set the table as it says.")
    tablet = as_seen({"history": [], "history_total": 44, "scores": [10, 0, 0],
                      "prompts": [{"kind": "warning", "text": text,
                                   "options": [{"type": "keep_record"}, {"type": "reread"}]}]},
                     world.wording())
    assert world.answer_disagreement(tablet) == [Tidy(), HandOver(STRAIGHTEN_FRAMES), BoardChange(laid)]
    assert world.table_off is None


def tally_warning(table_count: int, record_count: int) -> dict[str, Any]:
    text = ("The table does not match the record: the score pieces differ: Incumbent's pile for Red: V "
            f"{table_count} on the table, {record_count} in the record. If the table is wrong, tap that "
            "the record is right and set the table as it says.")
    return {"history": [], "history_total": 40, "scores": [10, 0, 0],
            "prompts": [{"kind": "warning", "text": text,
                         "options": [{"type": "keep_record"}, {"type": "reread"}]}]}


def test_score_pieces_the_camera_misreads_are_counted_and_the_record_kept() -> None:
    """Jivecat seed 1, cafe, passive: the camera misread Monkey Points on Yellow's mat and the
    tablet warned "the score pieces differ" without naming a place; passive players did
    nothing, and the warning stood under every later move.  The warning asks them to count:
    they count their pieces, find the record's count, and tap that the record is right; a
    count the camera has right (the record wrong) is not theirs to keep."""
    world = swing_world()
    assert world.game.tallies(world.words_state(), world.table_now())["Incumbent's pile for Red: V"] == 6
    asked = as_seen(tally_warning(5, 6), world.wording())
    assert world.answer_disagreement(asked) == [TapOption(KEEP_RECORD_WORDS)]
    record_wrong = as_seen(tally_warning(6, 5), swing_world().wording())
    assert swing_world().answer_disagreement(record_wrong) == []


def test_a_move_card_laid_on_the_neighbours_reader_is_tapped_as_theirs() -> None:
    """King of Clubs seed 2, cafe, passive: B's Move card was read on A's reader; the tablet
    refused "A plays Moonwalk ..." and offered it as B's move, one tap.  The players did not
    know the button: a Move played (a card tapped and laid, no press) was not kept in mind.
    Now it is, and the button naming it is tapped."""
    from companion.sim.headless import deliver
    from companion.sim.world import CardTap, load_world
    from companion.table import Table

    table = Table.open("king_of_clubs", None, 2, "advanced", 2, resume=False)
    world = load_world("king_of_clubs", table.game, 2, "advanced", 2)
    for event in world.start():
        deliver(table, event, [])
    for _ in range(200):
        events = world.step(table.public())
        tap = next((e for e in events if isinstance(e, CardTap) and e.card.startswith("move-")), None)
        if tap is not None:
            break
        for event in events:
            deliver(table, event, [])
    else:
        raise AssertionError("no Move played in 200 steps")
    made = world.made_moves[-1]
    assert made["type"] == "move" and made["card"] == tap.card and made["player"] == tap.seat
    words = world.wording().action(made)
    text = (f"Not allowed: {words}: it is another seat's turn (rule: ...). The table does not match "
            "the record: ... If the table is wrong, tap that the record is right and set the table "
            "as it says.")
    tablet = {"history": [], "history_total": 20, "scores": [0, 0],
              "prompts": [{"kind": "warning", "text": text,
                           "options": [made, {"type": "keep_record"}, {"type": "reread"}]}]}
    assert world.answer_disagreement(as_seen(tablet, world.wording())) == [TapOption(words)]
    # King of Clubs seed 2 again, at its last night: the reader missed B's Move card; the
    # tablet said the table shows it on B's Dancer, not the record, and to declare a move
    # made without its press.  The players declare the Move they played, when asked twice
    asking = {"history": [], "history_total": 20, "scores": [0, 0],
              "prompts": [{"kind": "warning", "text": "The table does not match the record: B at "
                           "Nightclub 2 shows red (5), white (1) on the table, red (5) in the record. "
                           "If a move was made on the table without its press, declare it: the press "
                           "is judged again.", "options": []}]}
    assert world.declare_missing(asking) == []  # their move may still be on its way
    assert world.declare_missing(asking) == [Declare(made)]


def test_a_double_press_takes_no_camera_frame_between_its_two_presses() -> None:
    """Jivecat seed 1, cafe: the bounce came 20 ms after the press, and at the bench's full
    speed a still board's frames cost next to nothing, so the camera took more than the
    guard's 3 frames between them and the bounce recorded "Yellow ends the turn".  The
    camera is held off while both presses are made (its frame source waits), as no frame
    passes between a finger's bounce at a real table."""
    from companion.sim.faults import FaultModel
    from companion.sim.world import TurnButton
    from tests.test_truth import cafe_table

    table, _, _, log, presses = cafe_table(FaultModel(double_press=1.0))
    held: list[bool] = []
    count = presses.drive_low

    def drive_low() -> None:
        held.append(table._guard.locked())  # a frame read now would wait for the presses
        count()

    presses.drive_low = drive_low  # type: ignore[method-assign]
    waited: list[int] = []
    table.after_hand = lambda check: waited.append(presses.presses)  # type: ignore[method-assign]
    table.deliver(TurnButton())
    assert held == [True, True] and log.counts["double_press"] == 1 and waited == [2]


def test_a_cup_the_camera_cannot_see_past_is_taken_away() -> None:
    """Times Square seed 5, cafe, passive: a cup stood on the board for minutes; the tablet
    said "Hand over the board: can't see 11 (and 2 more places); waiting" and held every
    press, and the players, answering only questions, played on until their game was over.
    The tablet waits on what it cannot see and the cup is on their board: they take it."""
    world = swing_world()
    world.look_at_table({"cup": world.rules.die_spot})
    waiting = {"history": [], "history_total": 40, "scores": [10, 0, 0], "taps": [],
               "prompts": [{"kind": "info", "text": "Hand over the board: can't see Die (and 2 more "
                            "places); waiting."}]}
    assert world.clear_the_view(waiting) == [Tidy()]
    assert world.table_off is None
    assert world.clear_the_view(waiting) == []  # taken away: nothing more to do
    world.look_at_table({"cup": world.rules.die_spot})
    assert world.clear_the_view({**waiting, "prompts": []}) == []  # the tablet sees the board


def test_a_move_worded_like_an_older_line_is_declared_when_asked() -> None:
    """King of Clubs seed 3, cafe, passive: B's press to pass at Solo 4 was forgotten; the
    tablet asked to declare a move made without its press, but "B passes (no more Moves at
    this dance)" stood in the history from the dance before, so the players took their pass
    for recorded and played on, the record a dance behind to the end.  A move is looked for
    in the lines recorded after the glance before it was made."""
    world = swing_world()
    world.glance_total = 10
    world.press_for(ROLL_3)
    older = {"seq": 9, "text": "Red rolls 3", "source": "table", "undone": False, "action": ROLL_3}
    newer = {**older, "seq": 11}
    ask = {"kind": "warning", "options": [],
           "text": "The table does not match any legal move (...). Fix it or declare it."}

    def tablet(lines: list[dict[str, Any]]) -> dict[str, Any]:
        return {"history": lines, "history_total": 8 + len(lines), "prompts": [ask], "scores": [0, 0, 0]}

    assert world.declare_missing(tablet([older, {**older, "seq": 10, "action": {"type": "pass"}}])) == []
    assert world.declare_missing(tablet([older, {**older, "seq": 10, "action": {"type": "pass"}}])) \
        == [Declare(ROLL_3)]
    world.press_for(ROLL_3)
    recorded = tablet([older, {**older, "seq": 10, "action": {"type": "pass"}}, newer])
    assert world.declare_missing(recorded) == [] and world.declare_missing(recorded) == []


def test_a_choice_naming_a_move_they_made_that_no_line_shows_is_tapped() -> None:
    """King of Clubs seed 3, cafe, passive: A's press to keep the Dancers where they were (no
    swap) was forgotten; the tablet asked "The camera cannot see a swap of face-down cards:
    declare it, or pass" and the players, who answered choices only for the move they had
    just pressed for, played the night on.  The button naming their unrecorded move is tapped."""
    world = swing_world()
    world.press_for(ROLL_3)
    world.pending = None  # a later move has been pressed for since
    choice = {"kind": "choice", "text": "Which was it?",
              "options": [{**ROLL_3, "value": 5}, ROLL_3]}
    tablet = as_seen({"history": [], "history_total": 40, "scores": [0, 0, 0], "prompts": [choice]},
                     world.wording())
    words = world.wording().action(ROLL_3)
    assert world.choose_unrecorded(tablet) == [TapOption(words)]
    assert world.choose_unrecorded(tablet) == []  # once


def test_a_pass_whose_press_was_forgotten_is_tapped_where_the_tablet_offers_it() -> None:
    """King of Clubs seed 3, cafe, passive: A's press for "no swap" was forgotten; the tablet
    went on offering "A (...): Pass" as one tap, which the players read past (their pass was
    remembered without its seat), and their declaration of it named no player and was refused
    every time until the game wedged.  The button naming their pass is tapped; declared, the
    pass names the seat that pressed for it."""
    from companion.sim.headless import deliver
    from companion.sim.world import SeatButton, load_world
    from companion.table import Table

    table = Table.open("king_of_clubs", None, 2, "advanced", 3, resume=False)
    world = load_world("king_of_clubs", table.game, 2, "advanced", 3)
    for event in world.start():
        deliver(table, event, [])
    for _ in range(200):
        seen = as_seen(table.public(), world.wording())
        events = world.act(seen)
        if table.game.phase(table.state) == "swap" and any(isinstance(e, SeatButton) for e in events):
            break  # the pass pressed for; the press never made
        for event in events:
            deliver(table, event, [])
    else:
        raise AssertionError("no pass at a swap in 200 steps")
    seat = next(e.seat for e in events if isinstance(e, SeatButton))
    assert world.as_declared(world.pending) == {"type": "pass", "player": seat}
    words = world.wording().option({"type": "pass", "player": seat})
    answer = world.act(as_seen(table.public(), world.wording()))
    assert answer == [TapOption(words)]


def test_a_place_named_by_its_order_among_like_labels_is_looked_at_on_the_table() -> None:
    """Jivecat seed 1, cafe, typical: "Neptune 2 (1st from the left) shows red on the table,
    nothing in the record" named Red's chip, really there; the players looked for a place
    labelled "Neptune 2 (1st from the left)", found none, took it for empty as recorded and
    tapped that the record is right.  The record then stayed on Red's turn while they played
    Yellow's.  The place is found by its order among the places labelled "Neptune 2"."""
    from companion.games.base import Piece, place_names
    from companion.sim.world import load_world

    game = load_game("jivecat")
    world = load_world("jivecat", game, 3, None, 1)
    names = place_names(game, world.wording().state)
    spot, name = next((s, n) for s, n in sorted(names.items()) if n.endswith("(1st from the left)"))
    chip = (Piece("red", 0),)
    world.shown = {**world.table_now(), spot: chip}
    text = (f"The table does not match the record: {name} shows red on the table, nothing in the "
            "record. If a move was made on the table without its press, declare it: the press is "
            "judged again. If the table is wrong, tap that the record is right and set the table "
            "as it says.")
    assert world.places_named(text) == {spot: ("red", "nothing")}
    assert world.answer_for(text, [KEEP_RECORD_WORDS, REREAD_WORDS], {"history": []}) == []
    world.shown = {p: s for p, s in world.table_now().items() if p != spot}  # not there: the record is right
    assert world.answer_for(text, [KEEP_RECORD_WORDS, REREAD_WORDS], {"history": []}) == \
        [TapOption(KEEP_RECORD_WORDS)]


def test_a_hand_left_resting_on_the_board_is_lifted_when_the_tablet_cannot_see() -> None:
    """Times Square seed 4, cafe, typical: a hand rested on the board after the game's last
    move; the tablet said "Hand over the board: can't see 10 (and 7 more places); waiting"
    and held the press, and the players, their game over, had nothing more to do.  They see
    their own hand there: they lift it, and the camera sees the board clear."""
    from companion.games.base import Piece
    from companion.sim.faults import FaultModel
    from tests.test_truth import cafe_table

    table, _, source, log, _ = cafe_table(FaultModel(resting_hand=1.0))
    lifted: list[int] = []
    source.hand_over = lambda frames, resting=False: lifted.append(frames)  # type: ignore[method-assign]
    told: list[Any] = []
    table.world = type("Players", (), {"look_at_table": lambda self, off: told.append(off)})()
    table.source.show({"A1": (Piece("red", 3),)})
    assert log.counts["resting_hand"] == 1 and lifted == [36]
    table.glance()
    assert told == [{"hand": True}]
    table.tidy()
    assert lifted == [36, 0] and log.counts["hand_lifted"] == 1
    table.glance()
    assert told == [{"hand": True}, None]

    world = swing_world()
    waiting = {"history": [], "history_total": 40, "scores": [10, 0, 0], "taps": [],
               "prompts": [{"kind": "info", "text": "Hand over the board: can't see Die (and 2 more "
                            "places); waiting."}]}
    assert world.clear_the_view(waiting) == []  # no hand of theirs there: nothing to lift
    world.look_at_table({"hand": True})
    assert world.clear_the_view(waiting) == [Tidy()]
    assert world.clear_the_view(waiting) == []  # lifted


def jivecat_until(wanted: Any) -> tuple[Any, dict[str, Any], list[Any]]:
    """Jivecat seed 1 played by its world through a headless table until, in the play phase,
    the players' next events are ``wanted`` (a test on them): the world, the tablet as they
    last read it, and those events, not yet delivered."""
    from companion.sim.headless import deliver
    from companion.sim.world import load_world
    from companion.table import Table

    table = Table.open("jivecat", None, 3, None, 1, resume=False)
    world = load_world("jivecat", table.game, 3, None, 1)
    for event in world.start():
        deliver(table, event, [])
    for _ in range(200):
        tablet = table.public()
        events = world.act(as_seen(tablet, world.wording()))
        if wanted(events) and table.game.phase(table.state) == "play":
            return world, tablet, events
        for event in events:
            deliver(table, event, [])
    raise AssertionError("no such move in 200 steps")


def test_a_move_whose_press_the_tablet_holds_is_not_pressed_again() -> None:
    """Jivecat seed 1, cafe, typical: Red's press for a drink was held under a resting hand
    ("Press noted: it counts once the camera sees the table clear of hands"); the players,
    seeing no line for the drink yet, made the move again with its press, and the second
    press, come after the first was judged, recorded "Red ends the turn" before Red's second
    drink.  They straighten the table and press no more.  (Returning only the table, as
    first tried, made each look a step of the demo that recorded nothing: a stall.)"""
    from companion.sim.world import TurnButton

    world, tablet, events = jivecat_until(lambda events: any(isinstance(e, TurnButton) for e in events))
    held = as_seen({**tablet, "prompts": [*tablet["prompts"], {
        "kind": "info", "text": "Press noted: it counts once the camera sees the table clear of hands."}]},
        world.wording())
    for _ in range(3):
        again = world.again(held)
        assert again and not any(isinstance(e, TurnButton) for e in again), again
        assert isinstance(again[-1], BoardChange) or any(isinstance(e, HandOver) for e in again)


def test_a_card_the_tablet_did_not_read_is_laid_again_when_it_asks() -> None:
    """Times Square seed 8, cafe, passive: Deb 3 missed B's reader, and the passive players,
    who do not check the list of cards read unasked, declared their move.  When the warning
    asks for a card played that is not among the cards read, they lay the one missing from
    the list again, once."""
    from companion.sim.players.times_square import TimesSquareWorld
    from companion.sim.reading import NOT_READ
    from companion.sim.world import CardTap, TurnButton

    world = TimesSquareWorld(load_game("times_square"), 2, None, 8)
    world.set_temperament("passive")
    world.last_move = ([CardTap("deb-3b", 1), CardTap("deb-2a", 1), TurnButton()], 1, 0)
    tablet = {"history_total": 1, "history": [], "taps": [{"card": "deb-2a", "seat": 1}],
              "prompts": [{"kind": "warning", "text": f"The table does not match the record: ... If a "
                           f"card you played is {NOT_READ}, lay it on your reader again: the press is "
                           "judged with it.", "options": [{"type": "keep_record"}]}]}
    assert world.act(tablet) == [CardTap("deb-3b", 1)]
    assert world.lay_missed_cards(tablet) == []  # once for that move
    assert world.lay_missed_cards({**tablet, "prompts": []}) == []  # and only when asked


def test_a_card_that_missed_its_reader_before_a_press_is_laid_again_before_the_pass_is_tapped() -> None:
    """King of Clubs seed 17, cafe, typical: A's Twist missed the reader, A pressed to pass,
    and the warning ("If a card you played is not among the cards read, lay it ...") offered
    "A (Disco): Pass" as one tap.  The players tapped it: the Twist was never recorded and the
    game wedged a dance later.  The card laid before the press (a step of its own) is laid
    again first, once; the pass is the players' answer after that."""
    from companion.sim.players.king_of_clubs import KingOfClubsWorld
    from companion.sim.reading import NOT_READ
    from companion.sim.world import CardTap, SeatButton

    world = KingOfClubsWorld(load_game("king_of_clubs"), 2, "advanced", 17)
    world.set_temperament("typical")
    at = {"history_total": 50, "history": [], "taps": [], "prompts": []}
    world.remember_move(at, [BoardChange({}), CardTap("move-twist", 0)])  # the card missed the reader
    world.remember_move(at, [SeatButton(0)])  # then A's button, for the pass
    world.pending, world.pending_seat = {"type": "pass", "seat": 0}, 0
    warning = {"kind": "warning", "options": [{"type": "pass", "player": 0}, {"type": "keep_record"}],
               "text": "The camera may have misread A at Nightclub 1 in its colour: if so, tap the "
                       "reading the table shows. The table does not match the record: A at Nightclub 1 "
                       "shows purple (3), white (1) on the table, purple (3) in the record. If a card "
                       f"you played is {NOT_READ}, lay it on your reader again: the press is judged with it."}
    tablet = {**at, "prompts": [warning]}
    assert world.lay_missed_cards(tablet) == [CardTap("move-twist", 0)]
    assert world.lay_missed_cards(tablet) == []  # once
    # an entry since (the Twist recorded late): not this move's question any more
    world.remember_move(at, [SeatButton(0)])
    assert world.lay_missed_cards({**tablet, "history_total": 51}) == []


def test_a_drink_whose_cards_were_read_in_another_order_is_known_as_theirs() -> None:
    """Jivecat seed 7, cafe, passive (wedged after 15 actions): Yellow laid the 7 and the 3
    for Tiki 10; the 7 missed the reader and was laid again, so the record read them 3 then 7
    and printed "Yellow buys a drink (3+7) ...".  The players, who had made "(7+3)", took their
    drink for unrecorded and made it again; its press, with nothing new on the table, ended
    Yellow's turn.  A drink is known by its cards and its place, in whatever order its sum
    names them."""
    from companion.sim.headless import deliver
    from companion.sim.world import CardTap, TurnButton, load_world
    from companion.table import Table

    for seed in range(1, 30):
        table = Table.open("jivecat", None, 3, None, seed, resume=False)
        world = load_world("jivecat", table.game, 3, None, seed)
        world.set_temperament("passive")
        for event in world.start():
            deliver(table, event, [])
        for _ in range(120):
            tablet = table.public()
            events = world.act(as_seen(tablet, world.wording()))
            taps = [e for e in events if isinstance(e, CardTap)]
            pending = world.pending or {}
            if pending.get("type") == "buy" and len(taps) == 2 \
                    and pending.get("signs") == [1, 1]:
                break
            for event in events:
                deliver(table, event, [])
        else:
            continue
        break
    else:
        raise AssertionError("no drink of two cards added up in 29 seeds")
    total = tablet["history_total"]
    # the pieces, then the second card before the first (the first missed its reader), the press
    pieces = [e for e in events if not isinstance(e, (CardTap, TurnButton))]
    for event in [*pieces, *taps[::-1], TurnButton()]:
        deliver(table, event, [])
    seen = as_seen(table.public(), world.wording())
    (line,) = [h for h in seen["history"] if h["seq"] > total]
    assert "buys a drink" in line["text"] and line["text"] != world.game.describe(world.state, pending)
    assert not world.nothing_stands_since(seen, total, pending)
    again = world.act(seen)
    assert not any(isinstance(e, CardTap) and e in taps for e in again), again


def test_their_own_the_record_is_right_line_is_no_move_to_correct() -> None:
    """Jivecat seed 12, cafe, typical (19.1 % declared): Blue's Hula Hoop was pressed while a
    piece lay knocked aside; the players tapped "The record is right" and that decision became
    the history's newest line.  Taking it for a wrong record of their move, they corrected it,
    and the correction replaced the move before it ("Blue uses Tiki Mugs"): Rada 5, recovered,
    went back to the discard pile in the record, the drink bought with it was refused for the
    rest of the game, and the players declared every move after (23 of the 30 declared).  A
    decision line is no move: nothing is corrected, the move is made again."""
    from companion.sim.world import TurnButton

    world = swing_world()
    world.pending = world.move_pending = ROLL_3
    world.last_move = ([TurnButton()], 44, 0)
    kept = ("The record is right, the table to be set as it says: Die as the record has it, "
            "white (4) (the camera read white (3)).")
    tablet = as_seen({"history": [{"seq": 45, "source": "tablet", "undone": False, "text": kept}],
                      "history_total": 45, "prompts": [], "taps": []}, world.wording())
    assert world.correct_record(tablet, 44) == []
    assert world.nothing_stands_since(tablet, 44, ROLL_3)  # their roll is not recorded: made again


def test_a_move_whose_press_the_tablet_holds_is_left_on_the_table_as_made() -> None:
    """Jivecat seed 12, cafe, typical (wedged): Red's Hi-Fi Stereo press was held ("Press
    noted: it counts once the camera sees the table clear of hands"); the players, seeing no
    line for it, forgot the Trend card tapped, put the Skull paid back on the mat and took it
    off again.  The held press was judged on the Skull put back and recorded "Red ends the
    turn".  With a press held they leave the table as the move left it, forget no card and
    lay again only one the tablet does not list."""
    from companion.sim.world import CardTap, Declare, TurnButton

    world, tablet, events = jivecat_until(lambda events: any(isinstance(e, TurnButton) for e in events)
                                          and any(isinstance(e, CardTap) for e in events))
    made = [e for e in events if isinstance(e, BoardChange)][-1].view
    taps = [e for e in events if isinstance(e, CardTap)]
    held = as_seen({**tablet, "taps": [{"card": taps[0].card, "seat": taps[0].seat}],
                    "prompts": [*tablet["prompts"], {"kind": "info", "text": "Press noted: it "
                                "counts once the camera sees the table clear of hands."}]},
                   world.wording())
    for _ in range(3):
        again = world.again(held)
        assert [e for e in again if isinstance(e, BoardChange)] == [BoardChange(made)] == again[-1:]
        assert again[:-1] == taps[1:]  # the cards the tablet does not list; none forgotten
        assert not any(isinstance(e, (TurnButton, Declare, HandOver)) for e in again)


def test_the_table_cleared_is_known_once_cleared_and_a_reveal_only_on_its_own_night() -> None:
    """King of Clubs under a lamp all evening: "Table cleared after night 1" offered while the
    players laid night 2, and nobody tapped it (the record stayed at night 1's end); and last
    night's Backup reveal, tapped then, was tapped again for tonight's other Backups.  Players
    know the clear-up once they made it, before tonight is over, and a reveal they remember
    only while the cards lie so."""
    from companion.sim.players.king_of_clubs import KingOfClubsWorld

    world = KingOfClubsWorld(load_game("king_of_clubs"), 2, "basic", 1)
    button = world.wording().action({"type": "clear"})
    assert world.recognised(button) is None  # night 1: nothing cleared yet
    world.placed = {0: {"d0": 3, "d1": 4, "d2": 1, "d3": 2, "backup": 5},
                    1: {"d0": 2, "d1": 5, "d2": 3, "d3": 1, "backup": 4}}
    world.face_up = {(0, "backup"), (1, "backup")}
    backups = {"type": "reveal", "cards": [{"player": 0, "slot": "backup", "skill": 5},
                                           {"player": 1, "slot": "backup", "skill": 4}]}
    world.remember_made(backups)
    assert world.recognised(world.wording().action(backups)) == backups
    world.stage = "clear"  # the night scored, its cards still on the table
    assert world.recognised(button) is None
    world._stage_clear()
    assert world.recognised(button) == {"type": "clear"}
    assert world.recognised(world.wording().action(backups)) is None  # last night's cards
    world.placed = {0: {"d0": 1, "d1": 2, "d2": 3, "d3": 5, "backup": 4}}
    world.face_up = {(0, "backup")}
    assert world.recognised(world.wording().action(backups)) is None


def test_a_pick_up_of_the_die_is_known_only_as_the_players_newest_move() -> None:
    """Swing State under a lamp over the die: "Incumbent picks up the die" was offered while
    Red's roll still lay on the tray, and the players tapped it for the Incumbent's pick-up
    of a turn before; Red's 5 was then recorded as the Incumbent's roll.  A pick-up is theirs
    as their newest move, or just before its roll, never once a pawn has moved since."""
    world = SwingStateWorld(load_game("swing_state"), 2, None, 2)
    pick_up = {"type": "pick_up_die", "player": 0}
    button = world.wording().action(pick_up)
    world.remember_made(pick_up)
    assert world.recognised(button) == pick_up
    world.remember_made({"type": "roll", "player": 0, "value": 3})
    assert world.recognised(button) == pick_up  # picked up, then rolled: the record may lag both
    world.remember_made({"type": "move", "player": 0, "to": "r1-03"})
    assert world.recognised(button) is None
    world.remember_made({"type": "pick_up_die", "player": 1})
    world.remember_made({"type": "roll", "player": 1, "value": 5})
    assert world.recognised(button) is None  # a turn before, with Red's roll since


def test_dancers_placed_tonight_are_theirs_to_tap_though_a_dance_is_turned_up_since() -> None:
    """King of Clubs under a lamp over A's Dancer at Nightclub 1 all evening (``bench truth
    --faults lamp``, seeds 300 and 302).  "A placed their Dancers face down", offered once the
    first dance was turned up, was tapped by nobody: the players knew only the reveals their
    table shows, and the record waited for it all night.  Players know tonight's placings as
    theirs until the table is cleared."""
    from companion.sim.players.king_of_clubs import KingOfClubsWorld

    world = KingOfClubsWorld(load_game("king_of_clubs"), 2, "advanced", 1)
    placed_a = world.wording().action({"type": "place", "player": 0})
    assert world.recognised(placed_a) is None  # nothing placed yet
    world.stage, world.cursor, world.lead = "place", 0, 0
    world.clubs = [3, 5, 6, 7]
    world.dances = [{"clubs": [i]} for i in range(4)]
    world._stage_place()
    assert world.recognised(placed_a) == {"type": "place", "player": 0}
    assert world.recognised(world.wording().action({"type": "place", "player": 1})) is None
    world._stage_place()
    world._stage_lead_reveal()  # a Dancer turned up since: the placing is still theirs
    assert world.recognised(placed_a) == {"type": "place", "player": 0}
    world.stage = "clear"
    world._stage_clear()
    assert world.recognised(placed_a) is None  # last night's placing
