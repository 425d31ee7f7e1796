"""Swinging Jivecat Voodoo Lounge: every rule, the rulebook's examples, playouts."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import load_game
from companion.games.base import (
    MalformedAction,
    Piece,
    RuleError,
    Tap,
    check_json,
    make_view,
)
from companion.games.jivecat import GAME_CLASS, JivecatGame
from companion.games.jivecat.facts import (
    CODE_COLOURS,
    DATA_PATH,
    R,
    expression,
    find_signs,
    is_mat_place,
    mat_place,
    snake,
    trend_pile,
)
from companion.reconcile import reconcile, tally_mismatch
from companion.sim.headless import play
from companion.sim.players.jivecat import WORLD_CLASS
from companion.vision.geometry import canvas_size_mm

GAME = JivecatGame()
RED, BLUE, YELLOW, GREEN, PURPLE = range(5)


# --------------------------------------------------------------------------- helpers


def started(n: int = 3, first: int = 0) -> dict[str, Any]:
    """A game after set-up: two starting chips each, rows filled with the first cards."""
    s = GAME.setup(n)
    if first:
        s = GAME.apply(s, {"type": "first_player", "player": first})
    starters = sorted(k for k, v in GAME.board.lizards.items() if v.kind == "starter")
    for seat in snake(first, n):
        s = GAME.apply(s, {"type": "place_starter", "player": seat, "spot": starters.pop(0)})
    for i in (1, 2, 3):
        s = GAME.apply(s, {"type": "reveal", "row": "skull", "card": f"skull-{i:02d}"})
    for i in (1, 2, 3):
        s = GAME.apply(s, {"type": "reveal", "row": "trend", "card": f"trend-{i:02d}"})
    return s


def arrange(s: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A copy of ``s`` with fields replaced (a scenario the rulebook describes)."""
    s = copy.deepcopy(s)
    for key, value in changes.items():
        s[key] = copy.deepcopy(value)
    if "skulls" in changes and "supply" not in changes:
        s["supply"] = 25 - sum(s["skulls"])
    return s


def zombie(card: str, used: bool = False) -> dict[str, Any]:
    return {"card": card, "used": used}


def refused(s: dict[str, Any], action: dict[str, Any], rule_key: str, text: str = "") -> RuleError:
    before = copy.deepcopy(s)
    with pytest.raises(RuleError) as err:
        GAME.apply(s, action)
    assert s == before, "a refused action must change nothing"
    assert err.value.rule.startswith(R[rule_key]) or R[rule_key] in err.value.rule
    assert text.lower() in err.value.reason.lower()
    return err.value


def view_with(s: dict[str, Any], add: dict[str, str] | None = None,
              remove: tuple[str, ...] = ()) -> Any:
    """The board the camera would see after chips were added or taken away."""
    items = {k: list(v) for k, v in GAME.board_view(s).items()}
    for spot in remove:
        items.pop(spot)
    for spot, colour in (add or {}).items():
        items.setdefault(spot, []).append(Piece(colour))
    return make_view(items)


def chips(s: dict[str, Any], seat: Any) -> list[str]:
    return sorted(k for k, v in s["board"].items() if v == seat)


# --------------------------------------------------------------------------- data and layout


def test_data_is_a_marked_replaceable_reconstruction(tmp_path: Path) -> None:
    raw = json.loads(DATA_PATH.read_text())
    assert "reconstruction" in raw["_note"].lower()
    assert "reconstruction" in raw["board"]["_note"].lower()
    assert "reconstruction" in raw["cards"]["_note"].lower()
    assert len(GAME.board.lizards) == 116
    assert len(GAME.clique) == 54 and len(GAME.skull_cards) == 16 and len(GAME.trend_cards) == 24
    assert {c.suit for c in GAME.clique.values()} == {"zombie", "rada", "voodoo", "cheval",
                                                       "jivecat"}
    counts = {suit: sum(1 for c in GAME.clique.values() if c.suit == suit)
              for suit in ("zombie", "rada", "voodoo", "cheval", "jivecat")}
    assert len(set(counts.values())) > 1, "some suits have more cards than others"
    kinds = {v.kind for v in GAME.board.lizards.values()}
    assert kinds == {"typical", "starter", "hipster", "jivecat"}
    for liz in GAME.board.lizards.values():
        if liz.kind == "hipster":
            assert liz.number in (2, 10)
        if liz.kind == "typical":
            assert 3 <= liz.number <= 9
        if liz.kind == "jivecat":
            assert liz.number is None and liz.glass in ("blue", "yellow", "pink")
    # a user's own mapping replaces the file
    raw["board"]["lizards"][0]["number"] = 10
    raw["board"]["lizards"][0]["kind"] = "hipster"
    own = tmp_path / "my_board.json"
    own.write_text(json.dumps(raw))
    mine = GAME_CLASS(data_path=own)
    first = raw["board"]["lizards"][0]["id"]
    assert mine.board.lizards[first].number == 10
    raw["board"]["lizards"][0]["adjacent"] = ["nowhere"]
    own.write_text(json.dumps(raw))
    with pytest.raises(ValueError, match="unknown"):
        GAME_CLASS(data_path=own)


def test_layout_fits_the_table_and_every_spot_is_readable() -> None:
    s = started(3)
    layout = GAME.layout(s)
    # the board within 600 x 420 mm, the players' mats right of it at no cost in pixels
    assert layout.height <= 420
    assert all(sp.x + sp.w <= 600 for sp in layout.spots if not is_mat_place(sp.id))
    width, height = canvas_size_mm(layout)
    assert 1280 / max(width, height * 16 / 9) == pytest.approx(720 / height)
    ids = [sp.id for sp in layout.spots]
    assert len(ids) == len(set(ids))
    assert set(GAME.board.lizards) <= set(ids)
    assert set(GAME.board.staff) <= set(ids) and set(GAME.board.portals) <= set(ids)
    for sp in layout.spots:
        assert min(sp.w, sp.h) >= (17 if is_mat_place(sp.id) else 18)
        assert 0 <= sp.x and sp.x + sp.w <= layout.width
        assert 0 <= sp.y and sp.y + sp.h <= layout.height
        assert sp.fill in ("board", "light_fill", "dark_fill")
    for a in layout.spots:  # no two spots overlap: the camera reads each alone
        for b in layout.spots:
            if a.id < b.id:
                apart = (a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y
                         or b.y + b.h <= a.y)
                assert apart, (a.id, b.id)
    chips = {c for c, shape in layout.shapes.items() if shape == "disc"}
    assert chips == {"red", "blue", "yellow", "white"}
    assert set(layout.pieces) - chips == set(CODE_COLOURS)
    assert all(layout.shapes[c] == "square" for c in CODE_COLOURS)
    assert "white" not in GAME.layout(started(4)).pieces
    five = GAME.layout(started(5))
    assert len({c for c, shape in five.shapes.items() if shape == "disc"}) == 5
    for seat in range(5):  # three card positions per tableau, each at least 30 x 40 mm
        for k in range(3):
            spot = five.spot(f"tableau-{seat}-{k}")
            assert spot.w >= 30 and spot.h >= 40
    for row in ("skull", "trend"):
        assert all(min(five.spot(f"{row}-{i}").w, five.spot(f"{row}-{i}").h) >= 30
                   for i in range(3))


def test_card_ids_cover_the_three_decks_and_load_game_finds_the_module() -> None:
    assert load_game("jivecat").name == "jivecat"
    ids = GAME.card_ids()
    assert len(ids) == len(set(ids)) == 54 + 16 + 24


# --------------------------------------------------------------------------- set-up


def test_setup_counts_variants_and_json() -> None:
    for bad in (1, 6, "3"):
        with pytest.raises(ValueError):
            GAME.setup(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        GAME.setup(3, "advanced")
    for n in range(2, 6):
        s = GAME.setup(n)
        check_json(s)
        assert s["players"] == n and s["variant"] == "standard"
        assert s["hand"] == [4] * n and s["skulls"] == [3] * n
        assert s["deck"] == 54 - 4 * n and s["supply"] == 25 - 3 * n
        assert (s["staff"] is not None) == (n <= 3)


def test_snake_placement_of_starter_chips() -> None:
    s = GAME.setup(3)
    assert s["setup_queue"] == [0, 1, 2, 2, 1, 0]
    s = GAME.apply(s, {"type": "first_player", "player": 1})
    assert s["setup_queue"] == [1, 2, 0, 0, 2, 1]
    refused(s, {"type": "place_starter", "player": 0, "spot": "C24"}, "starter", "blue's turn")
    refused(s, {"type": "place_starter", "player": 1, "spot": "C04"}, "starter",
            "not a starter")
    s = GAME.apply(s, {"type": "place_starter", "player": 1, "spot": "C24"})
    refused(s, {"type": "place_starter", "player": 2, "spot": "C24"}, "one_chip")
    refused(s, {"type": "first_player", "player": 0}, "first")
    full = started(3, first=1)
    assert full["phase"] == "play" and full["turn"] == 1
    assert all(len(chips(full, q)) == 2 for q in range(3))
    assert all(GAME.board.lizards[x].kind == "starter" for x in full["board"])


def test_rows_are_revealed_by_taps_and_checked() -> None:
    s = GAME.setup(2)
    assert s["refill"] == {"skull": [2, 1, 0], "trend": [2, 1, 0]}
    acts = GAME.explain(s, GAME.board_view(s), [Tap("skull-05", None)], "tap")
    assert acts == [{"type": "reveal", "row": "skull", "card": "skull-05"}]
    s = GAME.apply(s, acts[0])
    assert s["skull_row"] == [None, None, "skull-05"] and s["skull_deck"] == 15
    refused(s, {"type": "reveal", "row": "skull", "card": "skull-05"}, "public")
    refused(s, {"type": "reveal", "row": "skull", "card": "skull-06", "slot": 2}, "rows")
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "reveal", "row": "skull", "card": "trend-01"})
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "reveal", "row": "dice", "card": "skull-01"})


# --------------------------------------------------------------------------- buying drinks


def test_davids_eight_adjacent_to_his_cocoa_six_but_not_the_tiki_eight() -> None:
    s = started(3)
    lz = GAME.board.lizards
    assert lz["C17"].lounge == "cocoa" and lz["C17"].number == 6
    assert lz["C11"].lounge == "cocoa" and lz["C11"].number == 8
    assert lz["T05"].lounge == "tiki" and lz["T05"].number == 8
    s = arrange(s, board={"C17": BLUE, "C24": BLUE, "N01": RED, "L04": YELLOW}, turn=BLUE)
    ok = GAME.apply(s, {"type": "buy", "player": BLUE, "cards": ["voodoo-8"], "spot": "C11"})
    assert ok["board"]["C11"] == BLUE and "voodoo-8" in ok["discard"] and ok["hand"][BLUE] == 3
    err = refused(s, {"type": "buy", "player": BLUE, "cards": ["voodoo-8"], "spot": "T05"},
                  "adjacent", "not adjacent to your clique")
    assert "Tiki 8" in err.reason
    # the same refusal when the camera sees the chip: nothing applied, the rule in the prompt
    seen = view_with(s, add={"T05": "blue"})
    verdict = reconcile(GAME, s, seen, [Tap("voodoo-8", BLUE)], "button")
    assert verdict.action is None and verdict.prompt is not None
    assert "not adjacent to your Clique" in verdict.prompt.text
    assert R["adjacent"] in verdict.prompt.text
    seen = view_with(s, add={"C11": "blue"})
    verdict = reconcile(GAME, s, seen, [Tap("voodoo-8", BLUE)], "button")
    assert verdict.action == {"type": "buy", "player": BLUE, "cards": ["voodoo-8"], "signs": [1],
                              "spot": "C11", "portal": False}


def test_seven_plus_five_minus_two_and_seven_minus_five_plus_two() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "N01": BLUE, "L04": YELLOW})
    cards = ["cheval-7", "voodoo-5", "zombie-2"]
    assert GAME.board.lizards["C22"].number == 10 and GAME.board.lizards["C22"].kind == "hipster"
    assert GAME.board.lizards["C13"].number == 4
    ten = GAME.apply(s, {"type": "buy", "player": RED, "cards": cards, "signs": [1, 1, -1],
                         "spot": "C22"})
    assert ten["board"]["C22"] == RED and ten["mp"][RED] == 1 and ten["hand"][RED] == 1
    four = GAME.apply(s, {"type": "buy", "player": RED, "cards": cards, "signs": [1, -1, 1],
                          "spot": "C13"})
    assert four["board"]["C13"] == RED and four["mp"][RED] == 0
    err = refused(s, {"type": "buy", "player": RED, "cards": cards, "signs": [1, 1, 1],
                      "spot": "C22"}, "buy")
    assert "7+5+2 = 14" in err.reason
    assert expression([1, 1, -1], [7, 5, 2]) == "7+5-2"
    assert find_signs([7, 5, 2], 10) == [1, 1, -1] and find_signs([7, 5, 2], 4) == [1, -1, 1]
    assert find_signs([7, 5], 3) is None
    # from the table: the chip and the three taps, the signs found by the companion
    acts = GAME.explain(s, view_with(s, add={"C13": "red"}),
                        [Tap(c, RED) for c in cards], "button")
    assert acts[0]["signs"] == [1, -1, 1]
    assert GAME.apply(s, acts[0])["board"]["C13"] == RED


def test_one_chip_per_spot_staff_spaces_and_portals_are_not_lizards() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "C11": BLUE, "N01": BLUE,
                                   "L04": YELLOW, "L05": YELLOW})
    refused(s, {"type": "buy", "player": RED, "cards": ["voodoo-8"], "spot": "C11"}, "one_chip")
    refused(s, {"type": "buy", "player": RED, "cards": ["voodoo-8"], "spot": "S1"}, "staff_space")
    refused(s, {"type": "buy", "player": RED, "cards": ["voodoo-8"], "spot": "PC"}, "not_lizard")
    refused(s, {"type": "buy", "player": RED, "cards": [], "spot": "C13"}, "buy")
    refused(s, {"type": "buy", "player": RED, "cards": ["jivecat-3"], "spot": "C12"},
            "jivecat_number")
    verdict = reconcile(GAME, s, view_with(s, add={"S1": "red"}), [Tap("voodoo-8", RED)],
                        "button")
    assert verdict.action is None and "Chips may never be placed on Staff spaces" in \
        verdict.prompt.text
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "buy", "player": RED, "cards": ["nope-1"], "spot": "C13"})
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "buy", "player": RED, "cards": ["rada-4"], "spot": "X99"})
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "buy", "player": RED, "cards": ["rada-4"], "spot": "C13",
                       "signs": [2]})
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "teleport", "player": RED})
    refused(s, {"type": "buy", "player": BLUE, "cards": ["rada-4"], "spot": "C13"}, "turn",
            "red's turn")
    refused(s, {"type": "buy", "player": RED, "cards": ["rada-4", "rada-4"], "spot": "C13"},
            "one_use")


def test_staff_spaces_break_adjacency_and_private_parties_act_as_one_spotlight() -> None:
    b = GAME.board
    assert ["C01", "C02"] == b.staff["S1"]["next_to"]
    assert "C02" not in b.adj["C01"] and "C01" not in b.adj["C02"]
    s = arrange(started(3), board={"C01": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW})
    refused(s, {"type": "buy", "player": RED, "cards": ["rada-8"], "spot": "C02"}, "adjacent")
    party = b.parties["party-cocoa"]
    blue_jivecat = next(m for m in party["members"] if b.lizards[m].kind == "jivecat")
    assert b.lizards[blue_jivecat].glass == "blue"
    for other in party["members"] + party["touching"]:
        if other != blue_jivecat:
            assert other in b.adj[blue_jivecat]
    # a chip touching the party reaches a lizard touching the party's far side
    far = next(t for t in party["touching"] if t != "C07" and t not in b.adj["C07"]
               and t not in b.adj["C24"] and b.lizards[t].number)
    liz = b.lizards[far]
    s = arrange(s, board={"C07": RED, "C24": RED, "N01": BLUE, "N02": BLUE, "L04": YELLOW,
                          "L05": YELLOW})
    assert far not in GAME.board.adj["C07"]
    card = next(c for c, info in GAME.clique.items() if info.value == liz.number)
    refused(s, {"type": "buy", "player": RED, "cards": [card], "spot": far}, "adjacent")
    s = arrange(s, board={**s["board"], "C13": RED})
    assert GAME.apply(s, {"type": "buy", "player": RED, "cards": [card],
                          "spot": far})["board"][far] == RED


def test_voodoo_portal_costs_a_skull_and_closes_after_use() -> None:
    b = GAME.board
    assert "C02" in b.portals["PC"]["adjacent"] and "T05" in b.portals["PT"]["adjacent"]
    s = arrange(started(3), board={"C02": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW})
    assert GAME.board.lizards["T05"].number == 8
    refused(s, {"type": "buy", "player": RED, "cards": ["rada-8"], "spot": "T05"}, "adjacent")
    via = GAME.apply(s, {"type": "buy", "player": RED, "cards": ["rada-8"], "spot": "T05",
                         "portal": True})
    assert via["skulls"][RED] == 2 and via["supply"] == s["supply"] + 1
    assert any("supply" in n for n in via["notices"])
    acts = GAME.explain(s, view_with(s, add={"T05": "red"}), [Tap("rada-8", RED)], "button")
    assert acts[0]["portal"] is True
    broke = arrange(s, skulls=[0, 3, 3])
    refused(broke, {"type": "buy", "player": RED, "cards": ["rada-8"], "spot": "T05",
                    "portal": True}, "pay")
    # closes after use: the next trip through pays again
    other = next(x for x in GAME.board.portals["PT"]["adjacent"]
                 if x not in via["board"] and GAME.reach(via, RED, x) == 1)
    card = next(c for c, i in GAME.clique.items() if i.value == GAME.board.lizards[other].number
                and c != "rada-8")
    again = GAME.apply(via, {"type": "buy", "player": RED, "cards": [card], "spot": other,
                             "portal": True})
    assert again["skulls"][RED] == 1
    refused(s, {"type": "buy", "player": RED, "cards": ["rada-8"], "spot": "N01",
                "portal": True}, "one_chip")


def test_chips_come_from_the_glass_and_never_fewer_than_two() -> None:
    lizards = [k for k, v in GAME.board.lizards.items() if v.lounge == "cocoa"]
    board = {x: RED for x in lizards[:15]}
    board.update({"N01": BLUE, "N02": BLUE, "L04": YELLOW, "L05": YELLOW})
    s = arrange(started(3), board=board)
    free = next(x for c in lizards for x in sorted(GAME.board.adj[c]) if x not in board
                and GAME.board.lizards[x].number)
    card = next(c for c, i in GAME.clique.items() if i.value == GAME.board.lizards[free].number)
    refused(s, {"type": "buy", "player": RED, "cards": [card], "spot": free}, "glass")


# --------------------------------------------------------------------------- Zombie and Rada


def test_zombie_lay_use_twist_maximum_and_discard() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW})
    laid = GAME.apply(s, {"type": "lay_zombie", "player": RED, "card": "zombie-6"})
    assert laid["skulls"][RED] == 2 and laid["hand"][RED] == 3
    assert laid["tableau"][RED] == [{**zombie("zombie-6"), "slot": 0}]
    refused(s, {"type": "lay_zombie", "player": RED, "card": "rada-6"}, "suit")
    two = arrange(laid, tableau=[[zombie("zombie-6"), zombie("zombie-2")], [], []])
    refused(two, {"type": "lay_zombie", "player": RED, "card": "zombie-3"}, "zombie_max")
    # use from the tableau: 1 Skull to the supply, twisted, once a turn
    assert GAME.board.lizards["C11"].number == 8
    used = GAME.apply(two, {"type": "buy", "player": RED, "cards": ["zombie-6", "zombie-2"],
                            "spot": "C11"})
    assert used["skulls"][RED] == two["skulls"][RED] - 2 and used["hand"][RED] == 3
    assert all(t["used"] for t in used["tableau"][RED])
    eight = next(x for x, liz in GAME.board.lizards.items() if liz.number == 8
                 and x not in used["board"] and GAME.reach(used, RED, x) == 0)
    refused(used, {"type": "buy", "player": RED, "cards": ["zombie-6", "zombie-2"],
                   "spot": eight}, "zombie_use")
    refused(used, {"type": "discard_tableau", "player": RED, "card": "zombie-6"},
            "zombie_discard")
    ended = GAME.apply(used, {"type": "end_turn", "player": RED})
    assert not any(t["used"] for t in ended["tableau"][RED])
    assert any("twist Zombie 6 back" in n for n in ended["notices"])
    dropped = GAME.apply(two, {"type": "discard_tableau", "player": RED, "card": "zombie-2"})
    assert dropped["tableau"][RED] == [zombie("zombie-6")] and "zombie-2" in dropped["discard"]
    refused(two, {"type": "discard_tableau", "player": RED, "card": "zombie-9"},
            "zombie_discard")
    # a Zombie card tapped with nothing moved is laid
    acts = GAME.explain(s, GAME.board_view(s), [Tap("zombie-6", RED)], "button")
    assert acts == [{"type": "lay_zombie", "player": RED, "card": "zombie-6"}]


def test_james_zombie_two_under_a_rada_two() -> None:
    s = arrange(started(3), turn=BLUE,
                board={"C08": BLUE, "C24": BLUE, "N01": RED, "N02": RED, "L04": YELLOW,
                       "L05": YELLOW},
                tableau=[[zombie("rada-2")], [zombie("zombie-2")], []])
    assert GAME.board.lizards["C09"].number == 2 and GAME.board.lizards["C09"].kind == "hipster"
    after = GAME.apply(s, {"type": "buy", "player": BLUE, "cards": ["zombie-2"], "spot": "C09"})
    assert after["skulls"][BLUE] == 1, "one Skull for the Rada, one to activate the Zombie"
    assert after["skulls"][RED] == 4 and after["supply"] == s["supply"] + 1
    assert after["mp"][BLUE] == 1
    assert "Blue pays 1 Skull to Red (Rada 2 for Zombie 2)." in after["notices"]
    assert "Blue pays 1 Skull to the supply (Zombie 2)." in after["notices"]
    poor = arrange(s, skulls=[3, 1, 3])
    refused(poor, {"type": "buy", "player": BLUE, "cards": ["zombie-2"], "spot": "C09"}, "pay")
    broke = arrange(s, skulls=[3, 0, 3])
    refused(broke, {"type": "buy", "player": BLUE, "cards": ["zombie-2"], "spot": "C09"},
            "rada_pay", "cannot pay the rada")
    # the Rada's owner does not pay their own Rada
    own = arrange(s, turn=RED, board={**s["board"], "C08": RED},
                  tableau=[[zombie("rada-2")], [], []])
    paid = GAME.apply(own, {"type": "buy", "player": RED, "cards": ["cheval-2"], "spot": "C09"})
    assert paid["skulls"][RED] == 3


def test_saras_cheval_two_pays_the_rada_first() -> None:
    s = arrange(started(3), turn=YELLOW,
                board={"C17": YELLOW, "C24": YELLOW, "N01": RED, "N02": RED, "L04": BLUE,
                       "L05": BLUE},
                tableau=[[zombie("rada-2")], [], []])
    dst = next(x for x, liz in GAME.board.lizards.items() if liz.kind in ("typical", "hipster")
               and x not in s["board"] and x not in GAME.board.adj["C17"]
               and GAME.jump_cost("C17", x) == 0)
    after = GAME.apply(s, {"type": "cheval", "player": YELLOW, "card": "cheval-2",
                           "from": "C17", "to": dst})
    assert after["board"][dst] == YELLOW and "C17" not in after["board"]
    assert after["skulls"][YELLOW] == 2 and after["skulls"][RED] == 4
    broke = arrange(s, skulls=[3, 3, 0])
    refused(broke, {"type": "cheval", "player": YELLOW, "card": "cheval-2", "from": "C17",
                    "to": dst}, "rada_pay")
    # the camera sees the jump; the tapped Cheval card makes it a spell
    seen = view_with(s, add={dst: "yellow"}, remove=("C17",))
    acts = GAME.explain(s, seen, [Tap("cheval-2", YELLOW)], "button")
    assert acts == [{"type": "cheval", "player": YELLOW, "card": "cheval-2", "from": "C17",
                     "to": dst, "portals": 0}]


def test_cheval_destinations() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "C11": BLUE, "N01": BLUE,
                                   "L04": YELLOW, "L05": YELLOW})
    lz = GAME.board.lizards
    jive = next(x for x in lz if lz[x].kind == "jivecat" and GAME.jump_cost("C17", x) == 0)
    refused(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "C17", "to": jive},
            "cheval", "typical or hipster")
    starter = next(x for x in lz if lz[x].kind == "starter" and x not in s["board"]
                   and GAME.jump_cost("C17", x) == 0)
    refused(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "C17",
                "to": starter}, "cheval")
    refused(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "C17", "to": "C11"},
            "cheval", "not empty")
    refused(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "N01", "to": "C02"},
            "cheval", "no chip")
    far = "N29"
    assert GAME.jump_cost("C17", far) is None
    refused(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "C17", "to": far},
            "cheval", "two adjacent")
    refused(s, {"type": "cheval", "player": RED, "card": "voodoo-5", "from": "C17", "to": "C27"},
            "suit")
    # jumping over the whole Private Party: C07 touches it, C22 touches it too
    assert "C22" not in GAME.board.adj["C07"]
    party = arrange(s, board={**s["board"], "C07": RED})
    assert GAME.apply(party, {"type": "cheval", "player": RED, "card": "cheval-5",
                              "from": "C07", "to": "C22"})["board"]["C22"] == RED
    # through a Portal: pay one Skull for the step
    portal_dst = next(x for x in lz if lz[x].kind == "typical" and x not in s["board"]
                      and GAME.jump_cost("C17", x) == 1)
    refused(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "C17",
                "to": portal_dst}, "cheval", "without a portal")
    jumped = GAME.apply(s, {"type": "cheval", "player": RED, "card": "cheval-5", "from": "C17",
                            "to": portal_dst, "portals": 1})
    assert jumped["skulls"][RED] == 2


def test_jons_jivecat_two_under_a_rada_two() -> None:
    s = arrange(started(4), turn=GREEN,
                board={"T11": GREEN, "C24": GREEN, "L04": GREEN, "N01": RED, "N02": RED,
                       "L05": BLUE, "L10": BLUE, "C28": YELLOW, "C29": YELLOW},
                tableau=[[zombie("rada-2")], [], [], []])
    after = GAME.apply(s, {"type": "jivecat", "player": GREEN, "card": "jivecat-2",
                           "spot": "T12", "remove": ["C24", "L04"]})
    assert after["skulls"][GREEN] == 2 and after["skulls"][RED] == 4
    assert after["mp"][GREEN] == 2 and chips(after, GREEN) == ["T11", "T12"]
    broke = arrange(s, skulls=[3, 3, 3, 0])
    refused(broke, {"type": "jivecat", "player": GREEN, "card": "jivecat-2", "spot": "T12",
                    "remove": ["C24", "L04"]}, "rada_pay")


def test_tiki_jivecat_removes_chips_from_the_other_lounges_only() -> None:
    lz = GAME.board.lizards
    assert lz["T12"].kind == "jivecat" and lz["T12"].lounge == "tiki"
    s = arrange(started(3), board={"T11": RED, "T20": RED, "C24": RED, "L04": RED,
                                   "N01": BLUE, "N02": BLUE, "L05": YELLOW, "L10": YELLOW})
    refused(s, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T12",
                "remove": ["T20", "C24"]}, "jivecat_lounge", "tiki lounge")
    ok = GAME.apply(s, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T12",
                        "remove": ["C24", "L04"]})
    assert ok["mp"][RED] == 2 and chips(ok, RED) == ["T11", "T12", "T20"]
    refused(s, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T12",
                "remove": ["C24"]}, "jivecat", "exactly two")
    refused(s, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T13",
                "remove": ["C24", "L04"]}, "jivecat", "not a jivecat")
    far = arrange(s, board={"T20": RED, "C24": RED, "L04": RED, "N01": BLUE, "N02": BLUE,
                            "L05": YELLOW, "L10": YELLOW})
    refused(far, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T12",
                  "remove": ["C24", "L04"]}, "adjacent")
    two = arrange(s, board={"T11": RED, "C24": RED, "N01": BLUE, "N02": BLUE, "L05": YELLOW,
                            "L10": YELLOW})
    refused(two, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T12",
                  "remove": ["C24", "T11"]}, "jivecat_lounge")
    # both removed chips on Jivecats: three Monkey Points
    cats = arrange(s, board={"T11": RED, "C12": RED, "L13": RED, "N01": BLUE, "N02": BLUE,
                             "L05": YELLOW, "L10": YELLOW})
    three = GAME.apply(cats, {"type": "jivecat", "player": RED, "card": "jivecat-5",
                              "spot": "T12", "remove": ["C12", "L13"]})
    assert three["mp"][RED] == 3
    # from the table: chip on the Jivecat, two chips gone, the Jivecat card tapped
    seen = view_with(s, add={"T12": "red"}, remove=("C24", "L04"))
    acts = GAME.explain(s, seen, [Tap("jivecat-5", RED)], "button")
    assert acts == [{"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "T12",
                     "remove": ["C24", "L04"], "portal": False}]
    # the chip on the Jivecat without the removals is refused with the rule
    verdict = reconcile(GAME, s, view_with(s, add={"T12": "red"}), [Tap("jivecat-5", RED)],
                        "button")
    assert verdict.action is None and "remove two of your chips" in verdict.prompt.text


def test_jivecat_spell_keeps_two_chips_on_the_board() -> None:
    s = arrange(started(3), board={"C02": RED, "L04": RED, "N01": BLUE, "N02": BLUE,
                                   "L05": YELLOW, "L10": YELLOW})
    # through the Portals to the Neptune Jivecat, dropping both chips would leave one
    assert GAME.board.lizards["N27"].kind == "jivecat" and GAME.reach(s, RED, "N27") == 1
    refused(s, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "N27",
                "remove": ["C02", "L04"], "portal": True}, "two_chips")
    three = arrange(s, board={**s["board"], "C24": RED})
    ok = GAME.apply(three, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "N27",
                            "remove": ["C02", "L04"], "portal": True})
    assert chips(ok, RED) == ["C24", "N27"] and ok["skulls"][RED] == 2 and ok["mp"][RED] == 2
    refused(s, {"type": "jivecat", "player": RED, "card": "jivecat-5", "spot": "N27",
                "remove": ["C02", "C02"], "portal": True}, "jivecat", "exactly two")


def test_voodoo_spell_three_effects_and_payments() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "C11": RED, "N01": BLUE, "N02": BLUE,
                                   "N03": BLUE, "L04": YELLOW, "L05": YELLOW, "T02": "staff"},
                tableau=[[], [zombie("zombie-3"), zombie("rada-4")], []])
    hit = GAME.apply(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "chip",
                         "spot": "N03"})
    assert "N03" not in hit["board"] and hit["skulls"][RED] == 2 and hit["skulls"][BLUE] == 4
    own = GAME.apply(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "chip",
                         "spot": "C11"})
    assert own["skulls"][RED] == 2 and own["supply"] == s["supply"] + 1
    staff = GAME.apply(s, {"type": "voodoo", "player": RED, "card": "voodoo-6",
                           "effect": "chip", "spot": "T02"})
    assert "T02" not in staff["board"] and staff["supply"] == s["supply"] + 1
    refused(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "chip",
                "spot": "L04"}, "two_chips")
    z = GAME.apply(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "zombie",
                       "target": BLUE, "victim": "zombie-3"})
    assert z["tableau"][BLUE] == [zombie("rada-4")] and "zombie-3" in z["discard"]
    r = GAME.apply(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "rada",
                       "target": BLUE, "victim": "rada-4"})
    assert r["tableau"][BLUE] == [zombie("zombie-3")] and r["skulls"][BLUE] == 4
    refused(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "rada",
                "target": BLUE, "victim": "zombie-3"}, "voodoo")
    refused(arrange(s, skulls=[0, 3, 3]), {"type": "voodoo", "player": RED, "card": "voodoo-6",
                                           "effect": "chip", "spot": "N03"}, "pay")
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "curse"})
    # a tapped Voodoo card with a chip gone; a tapped Voodoo card alone offers the victims
    acts = GAME.explain(s, view_with(s, remove=("N03",)), [Tap("voodoo-6", RED)], "button")
    assert acts == [{"type": "voodoo", "player": RED, "card": "voodoo-6", "effect": "chip",
                     "spot": "N03"}]
    verdict = reconcile(GAME, s, GAME.board_view(s), [Tap("voodoo-6", RED)], "button")
    assert verdict.prompt is not None and verdict.prompt.kind == "choice"
    assert len(verdict.prompt.options) == 2


def test_rada_only_one_discard_to_make_way_and_discards_without_paying() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW},
                tableau=[[zombie("rada-4")], [zombie("rada-9")], []])
    refused(s, {"type": "lay_rada", "player": RED, "card": "rada-6"}, "rada_one")
    refused(s, {"type": "buy", "player": RED, "cards": ["rada-9"], "spot": "C16"}, "public",
            "blue's tableau")
    gone = GAME.apply(s, {"type": "discard_tableau", "player": RED, "card": "rada-4"})
    laid = GAME.apply(gone, {"type": "lay_rada", "player": RED, "card": "rada-6"})
    assert laid["tableau"][RED] == [{**zombie("rada-6"), "slot": 0}]
    # playing a 9 (here laying a Zombie 9) under Blue's Rada 9 pays Blue
    payer = arrange(s, tableau=[[], [zombie("rada-9")], []])
    nine = next(c for c, i in GAME.clique.items() if i.value == 9 and i.suit == "zombie")
    paid = GAME.apply(payer, {"type": "lay_zombie", "player": RED, "card": nine})
    assert paid["skulls"][BLUE] == 4 and paid["skulls"][RED] == 1
    # discarding a matching card at the end of the turn costs nothing
    ended = GAME.apply(payer, {"type": "end_turn", "player": RED, "discard": [nine]})
    assert ended["skulls"][RED] == 3 and ended["skulls"][BLUE] == 3
    prompts = [p.text for p in GAME.prompts(s)]
    assert any("Rada 9 (Blue)" in t for t in prompts)


# --------------------------------------------------------------------------- Skull cards


def test_skull_cards_pay_by_position_and_slide_at_the_next_turn() -> None:
    s = started(3)
    assert s["skull_row"] == ["skull-03", "skull-02", "skull-01"]  # Mambo, Houngan, Bokor
    bokor = GAME.skull_cards["skull-01"]
    assert bokor["number"] == 3 and bokor["lounges"] == ["cocoa", "lava"]
    s = arrange(s, board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE, "L04": YELLOW,
                          "L05": YELLOW})
    three = next(x for x in GAME.board.adj["C17"] if GAME.board.lizards[x].number == 3)
    after = GAME.apply(s, {"type": "buy", "player": RED, "cards": ["rada-3"], "spot": three})
    assert after["skulls"][RED] == 6 and after["skull_row"] == ["skull-03", "skull-02", None]
    assert after["skull_discard"] == ["skull-01"]
    assert any("Bokor Skull card" in n for n in after["notices"])
    ended = GAME.apply(after, {"type": "end_turn", "player": RED})
    assert ended["skulls"][RED] == 5 and ended["supply"] == after["supply"] + 1
    assert any("return 1 Skull" in n for n in ended["notices"])
    s2 = GAME.apply(ended, {"type": "staff_flip", "player": RED, "card": "cheval-10"})
    assert s2["phase"] == "play" or s2["staff"]["pending"]
    if s2["staff"]["pending"]:
        s2 = GAME.apply(s2, {"type": "staff_place", "player": RED,
                             "spot": s2["staff"]["pending"]["spots"][0]})
    assert s2["turn"] == BLUE
    assert s2["skull_row"] == [None, "skull-03", "skull-02"] and s2["refill"]["skull"] == [0]
    chores = [p.text for p in GAME.prompts(s2) if p.kind == "chore"]
    assert any(f"Slide {GAME.card_name('skull-03')} from Mambo down to Houngan" in c for c in chores)
    assert any("Refill Mambo" in c for c in chores)
    assert any("draw 1 Clique card" in c for c in chores), "the end-of-turn chores stay shown"
    refused(s2, {"type": "end_turn", "player": BLUE}, "rows")
    s3 = GAME.apply(s2, {"type": "reveal", "row": "skull", "card": "skull-09"})
    assert s3["skull_row"] == ["skull-09", "skull-03", "skull-02"] and s3["skull_deck"] == 12


def test_skull_deck_is_rebuilt_from_its_discards() -> None:
    s = arrange(started(4), skull_deck=0, skull_discard=["skull-01", "skull-07"],
                skull_row=["skull-03", None, "skull-02"], turn=RED)
    ended = GAME.apply(s, {"type": "end_turn", "player": RED})
    assert ended["skull_deck"] == 2 and ended["skull_discard"] == []
    assert ended["skull_row"] == [None, "skull-03", "skull-02"]
    assert any("Shuffle the Skull discards" in n for n in ended["row_notes"])
    empty = arrange(s, trend_deck=0, trend_row=[None, "trend-01", None])
    ended = GAME.apply(empty, {"type": "end_turn", "player": RED})
    assert ended["trend_row"] == [None, None, "trend-01"] and ended["refill"]["trend"] == []


# --------------------------------------------------------------------------- Trends


def test_trend_claim_points_by_position_and_configuration() -> None:
    s = started(3)
    assert s["trend_row"] == ["trend-03", "trend-02", "trend-01"]  # Vogue, Passe, Retro
    assert GAME.trend_cards["trend-01"]["config"] == {"kind": "lounges", "n": 3}
    s = arrange(s, board={"C24": RED, "N01": RED, "L04": RED, "N02": BLUE, "T20": BLUE,
                          "L05": YELLOW, "L10": YELLOW})
    claimed = GAME.apply(s, {"type": "claim_trend", "player": RED, "card": "trend-01"})
    assert claimed["mp"][RED] == 2 and claimed["trend_row"][2] is None
    assert claimed["trends"][RED] == [{"card": "trend-01", "active": True, "used": False}]
    refused(s, {"type": "claim_trend", "player": RED, "card": "trend-02"}, "trend_claim",
            "configuration")
    refused(s, {"type": "claim_trend", "player": RED, "card": "trend-09"}, "trend_claim",
            "not face up")
    passe = arrange(s, trend_row=["trend-03", "trend-01", "trend-02"])
    assert GAME.apply(passe, {"type": "claim_trend", "player": RED,
                              "card": "trend-01"})["mp"][RED] == 1
    acts = GAME.explain(s, GAME.board_view(s), [Tap("trend-01", RED)], "tap")
    assert acts == [{"type": "claim_trend", "player": RED, "card": "trend-01"}]


def test_trend_inactive_when_broken_reactivated_on_own_turn_and_end_bonus() -> None:
    s = arrange(started(3), board={"C24": RED, "N01": RED, "L04": RED, "N02": BLUE, "T20": BLUE,
                                   "N06": BLUE, "L05": YELLOW, "L10": YELLOW})
    s = GAME.apply(s, {"type": "claim_trend", "player": RED, "card": "trend-01"})
    blue = arrange(s, turn=BLUE, phase="play")
    hit = GAME.apply(blue, {"type": "voodoo", "player": BLUE, "card": "voodoo-2",
                            "effect": "chip", "spot": "L04"})
    assert hit["trends"][RED][0]["active"] is False and hit["mp"][RED] == 2
    assert any("sideways" in n for n in hit["notices"])
    red_again = arrange(hit, turn=RED, board={**hit["board"], "L04": RED})
    power = {"type": "trend_power", "player": RED, "trend": "trend-01"}
    refused(arrange(hit, turn=RED), power, "trend_power", "inactive")
    revived = GAME.apply(red_again, {"type": "buy", "player": RED, "cards": ["rada-10"],
                                     "spot": "C19"})
    assert revived["trends"][RED][0]["active"] is True
    assert revived["mp"][RED] == 3, "only the Hipster scores: reactivation pays nothing"
    # the end bonus: each active Trend card earns 1
    over = arrange(revived, final_from=BLUE)
    over = GAME.apply(over, {"type": "end_turn", "player": RED})
    assert over["phase"] == "over" and over["bonus"] == [1, 0, 0] and over["mp"][RED] == 4


def test_trend_powers_once_a_turn() -> None:
    base = arrange(started(3), board={"C24": RED, "N01": RED, "L04": RED, "C17": RED,
                                      "N02": BLUE, "T20": BLUE, "N06": BLUE, "L05": YELLOW,
                                      "L10": YELLOW, "T02": "staff"},
                   mp=[1, 4, 0], skulls=[3, 2, 0], discard=["rada-7"])

    def with_trend(card: str) -> dict[str, Any]:
        return arrange(base, trends=[[{"card": card, "active": True, "used": False}], [], []])

    def use(trend: str, **extra: Any) -> dict[str, Any]:
        return GAME.apply(with_trend(trend), {"type": "trend_power", "player": RED,
                                              "trend": trend, **extra})

    kinds = {c: t["power"]["kind"] for c, t in GAME.trend_cards.items()}
    by = {k: next(c for c, kk in kinds.items() if kk == k) for k in set(kinds.values())}
    drew = use(by["draw"])
    assert drew["hand"][RED] == 5 and drew["deck"] == base["deck"] - 1 and drew["skulls"][RED] == 2
    refused(drew, {"type": "trend_power", "player": RED, "trend": by["draw"]}, "trend_power",
            "already used")
    assert use(by["skull"])["skulls"][RED] == 4
    stolen = use(by["steal_skull"], target=BLUE)
    assert stolen["skulls"] == [4, 1, 0]
    refused(with_trend(by["steal_skull"]), {"type": "trend_power", "player": RED,
                                            "trend": by["steal_skull"], "target": YELLOW},
            "trend_power", "no skull")
    dst = next(x for x in sorted(GAME.board.adj["C17"]) if x not in base["board"]
               and GAME.board.lizards[x].kind == "typical")
    moved = use(by["move"], **{"from": "C17", "to": dst})
    assert moved["board"][dst] == RED and moved["skulls"][RED] == 2
    gone = use(by["skull_card"], slot=0)
    assert gone["skull_row"][0] is None and gone["skull_discard"] == ["skull-03"]
    gone = use(by["trend_discard"], slot=1)
    assert gone["trend_row"][1] is None and gone["trend_discard"] == ["trend-02"]
    assert "T02" in GAME.board.staff["S3"]["next_to"]
    refused(with_trend(by["staff_remove"]), {"type": "trend_power", "player": RED,
                                             "trend": by["staff_remove"], "spot": "T02"},
            "trend_power", "not adjacent")
    near = arrange(with_trend(by["staff_remove"]), board={**base["board"], "T03": RED})
    cleared = GAME.apply(near, {"type": "trend_power", "player": RED,
                                "trend": by["staff_remove"], "spot": "T02"})
    assert "T02" not in cleared["board"]
    hurt = use(by["undermine"], target=BLUE)
    assert hurt["mp"][BLUE] == 3 and hurt["skulls"][RED] == 1
    refused(with_trend(by["undermine"]), {"type": "trend_power", "player": RED,
                                          "trend": by["undermine"], "target": YELLOW},
            "trend_power", "more monkey points")
    cashed = use(by["cash_in"])
    assert cashed["mp"][RED] == 0 and cashed["skulls"][RED] == 5
    back = use(by["recover"], card="rada-7")
    assert back["hand"][RED] == 5 and back["discard"] == []
    refused(with_trend(by["recover"]), {"type": "trend_power", "player": RED,
                                        "trend": by["recover"], "card": "rada-8"},
            "trend_power", "top card")
    refused(base, {"type": "trend_power", "player": RED, "trend": by["draw"]}, "trend_power",
            "not in your tableau")
    # a Trend move seen on the board, no card tapped
    seen = view_with(base, add={dst: "red"}, remove=("C17",))
    acts = GAME.explain(with_trend(by["move"]), seen, [], "button")
    assert acts == [{"type": "trend_power", "player": RED, "trend": by["move"], "from": "C17",
                     "to": dst}]


def test_a_row_card_taken_away_on_the_button_is_the_trend_power_that_discards_it() -> None:
    """Cat-Eye Glasses (a Skull card) and Pillbox Hats (a Trend card) discard a row card:
    the camera sees the position empty, the button says the move; without such a Trend the
    empty position is no move at all (never an end of turn)."""
    base = arrange(started(3), skulls=[3, 2, 0])
    kinds = {c: t["power"]["kind"] for c, t in GAME.trend_cards.items()}
    for kind, row, slot in (("skull_card", "skull", 1), ("trend_discard", "trend", 2)):
        trend = next(c for c, k in kinds.items() if k == kind)
        owner = arrange(base, trends=[[{"card": trend, "active": True, "used": False}], [], []])
        seen = make_view({k: v for k, v in GAME.board_view(owner).items() if k != f"{row}-{slot}"})
        acts = GAME.explain(owner, seen, [], "button")
        assert acts == [{"type": "trend_power", "player": RED, "trend": trend, "slot": slot}]
        after = GAME.apply(owner, acts[0])
        # the camera's move: the row card gone (the Skulls paid are counted on the mat apart)
        assert after[f"{row}_row"][slot] is None
        assert GAME.without_score_places(GAME.board_view(after)) == GAME.without_score_places(seen)
        assert GAME.explain(owner, seen, [], "board") == []  # a stable board alone: wait
        spent = arrange(owner, trends=[[{"card": trend, "active": True, "used": True}], [], []])
        assert GAME.explain(spent, seen, [], "button") == []
        bare = make_view({k: v for k, v in GAME.board_view(base).items() if k != f"{row}-{slot}"})
        assert GAME.explain(base, bare, [], "button") == []


def mats_after(owner: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """The table as ``owner``'s record shows it, with the mats as ``action`` leaves them (the
    player took, stole or paid the Skulls and pressed)."""
    after = GAME.apply(owner, action)
    view = {k: v for k, v in GAME.board_view(owner).items() if not is_mat_place(k)}
    view.update({k: v for k, v in GAME.board_view(after).items() if is_mat_place(k)})
    return make_view(view)


def test_trend_powers_read_from_the_mats_on_the_button() -> None:
    """Beatnik Poetry (a Skull taken), Hula Hoop (one stolen), Bossa Nova and Tiki Mugs (one
    paid for a card drawn or recovered), Martini Hour (two paid, a rival's Monkey Point lost),
    Exotica (a Monkey Point for two Skulls): nothing moves on the board, the mats change as the
    power changes them, and the press records that power."""
    by = {t["power"]["kind"]: c for c, t in GAME.trend_cards.items()}
    base = arrange(started(3), skulls=[3, 2, 1], mp=[2, 6, 0], discard=["cheval-3"])
    for kind, extra in (("skull", {}), ("steal_skull", {"target": BLUE}), ("draw", {}),
                        ("recover", {"card": "cheval-3"}), ("undermine", {"target": BLUE}),
                        ("cash_in", {})):
        owner = arrange(base, trends=[[{"card": by[kind], "active": True, "used": False}], [], []])
        power = {"type": "trend_power", "player": RED, "trend": by[kind], **extra}
        seen = mats_after(owner, power)
        assert GAME.explain(owner, seen, [], "button") == [power], kind
        verdict = reconcile(GAME, owner, seen, [], "button")
        assert verdict.action == power and verdict.state is not None, kind
        assert GAME.tallies(verdict.state, seen) == GAME.tallies(verdict.state,
                                                                 GAME.board_view(verdict.state))
        # the mats as recorded: the turn ends; a used power, or none: the turn ends too
        assert GAME.explain(owner, GAME.board_view(owner), [], "button") == [
            {"type": "end_turn", "player": RED}]
        spent = arrange(owner, trends=[[{"card": by[kind], "active": True, "used": True}], [], []])
        assert GAME.explain(spent, seen, [], "button") == [{"type": "end_turn", "player": RED}]
        assert GAME.explain(owner, seen, [], "board") == []  # the mats alone are no move
    # a Skull stolen from Yellow, who has one: the target is read from whose mat lost it
    owner = arrange(base, trends=[[{"card": by["steal_skull"], "active": True, "used": False}],
                                  [], []])
    steal = {"type": "trend_power", "player": RED, "trend": by["steal_skull"], "target": YELLOW}
    assert GAME.explain(owner, mats_after(owner, steal), [], "button") == [steal]


def test_mats_that_fit_several_powers_are_asked_about_unless_a_trend_tap_names_one() -> None:
    """Two Trends that each cost a Skull (Bossa Nova draws, Tiki Mugs recovers): the mats
    cannot tell them apart, so the table asks, unless the player tapped the Trend card used.
    A turn's end that returns a sixth Skull looks the same as a Skull paid: asked too."""
    by: dict[str, list[str]] = {}
    for c, t in GAME.trend_cards.items():
        by.setdefault(t["power"]["kind"], []).append(c)
    trends = [{"card": by["draw"][0], "active": True, "used": False},
              {"card": by["recover"][0], "active": True, "used": False}]
    owner = arrange(started(3), skulls=[3, 2, 1], discard=["cheval-3"], trends=[trends, [], []])
    draw = {"type": "trend_power", "player": RED, "trend": by["draw"][0]}
    recover = {"type": "trend_power", "player": RED, "trend": by["recover"][0], "card": "cheval-3"}
    seen = mats_after(owner, draw)
    assert GAME.explain(owner, seen, [], "button") == [draw, recover]
    verdict = reconcile(GAME, owner, seen, [], "button")
    assert verdict.action is None and verdict.prompt is not None
    assert verdict.prompt.kind == "choice" and verdict.prompt.options == [draw, recover]
    assert GAME.explain(owner, seen, [Tap(by["recover"][0], RED)], "button") == [recover]
    # the last Trend tapped names it (an earlier tap confirmed a claim)
    taps = [Tap(by["recover"][0], RED), Tap(by["draw"][0], RED)]
    assert GAME.explain(owner, seen, taps, "button") == [draw]
    # another seat's tap names nothing
    assert GAME.explain(owner, seen, [Tap(by["recover"][0], BLUE)], "button") == [draw, recover]
    six = arrange(owner, skulls=[6, 2, 1])
    seen = mats_after(six, draw)
    end = {"type": "end_turn", "player": RED}
    assert GAME.explain(six, seen, [], "button") == [end, draw, recover]
    assert GAME.explain(six, seen, [Tap(by["draw"][0], RED)], "button") == [draw]
    # a mat change no power explains is no move: the turn ends (the warning stays)
    odd = make_view({**GAME.board_view(owner), mat_place(BLUE, "skull", 5): (Piece("black"),)})
    assert GAME.explain(owner, odd, [], "button") == [end]


def test_a_trend_power_shown_on_the_mats_is_read_beside_a_misread_on_another_mat() -> None:
    """Jivecat seed 10, cafe, typical (wedged): Blue paid a Skull for Cha-Cha (recover), tapped
    it and pressed, while Red's mat read one Skull short all evening (a place misread).  The
    mats as a whole never matched the power, so the press ended Blue's turn and the record fell
    a round behind the table.  The power fits where the mats show every count it changes; a
    press with a Trend card tapped whose power they do not show ends nothing."""
    by = {t["power"]["kind"]: c for c, t in GAME.trend_cards.items()}
    base = arrange(started(3), skulls=[3, 2, 1], discard=["cheval-3"])
    owner = arrange(base, trends=[[{"card": by["recover"], "active": True, "used": False}], [], []])
    recover = {"type": "trend_power", "player": RED, "trend": by["recover"], "card": "cheval-3"}
    paid = mats_after(owner, recover)
    misread = make_view({k: v for k, v in paid.items() if k != mat_place(BLUE, "skull", 0)})
    assert GAME.tallies(owner, misread)["Blue: Skulls"] == 1  # Blue's mat a Skull short
    tapped = [Tap(by["recover"], RED)]
    assert GAME.explain(owner, misread, tapped, "button") == [recover]
    assert GAME.explain(owner, misread, [], "button") == [recover]
    # the Trend card tapped, the mats as recorded but for the other mat's misread: nothing
    # explains the press (never "Red ends the turn"); untapped, it is the end of the turn
    unpaid = make_view({k: v for k, v in GAME.board_view(owner).items()
                        if k != mat_place(BLUE, "skull", 0)})
    assert GAME.explain(owner, unpaid, tapped, "button") == []
    assert GAME.explain(owner, unpaid, [], "button") == [{"type": "end_turn", "player": RED}]


def test_a_skull_read_in_another_colour_on_its_place_is_a_skull() -> None:
    """Jivecat seed 13, cafe, typical (wedged): the camera read Red's third Skull place black
    as brown all evening.  Red took a Skull there for Beatnik Poetry, tapped it and pressed;
    the brown piece counted as nothing, the mats as recorded, and the press recorded "Red
    ends the turn", which nobody made: the record ran a turn ahead of the table.  Only Skulls
    lie on a mat's Skull places: one read in another colour is counted a Skull, and the
    power is read.  A Monkey's colour there is counted nowhere: with a Trend card tapped,
    the press is asked, never the end of the turn."""
    by = {t["power"]["kind"]: c for c, t in GAME.trend_cards.items()}
    owner = arrange(started(3), skulls=[1, 2, 1],
                    trends=[[{"card": by["skull"], "active": True, "used": False}], [], []])
    take = {"type": "trend_power", "player": RED, "trend": by["skull"]}
    taken = mats_after(owner, take)
    (place,) = [k for k in taken if taken[k] != GAME.board_view(owner).get(k)]
    tapped = [Tap(by["skull"], RED)]
    end = {"type": "end_turn", "player": RED}
    brown = make_view({**taken, place: (Piece("brown"),)})  # the Skull taken, read brown
    assert GAME.tallies(owner, brown) == GAME.tallies(owner, taken)
    assert GAME.explain(owner, brown, tapped, "button") == [take]
    assert reconcile(GAME, owner, brown, tapped, "button").action == take
    assert GAME.explain(owner, brown, [], "button") == [take]
    # the set-up's Skull read brown: as recorded, no warning
    (first,) = [k for k, v in GAME.board_view(owner).items() if k.startswith("mat0-skull")]
    setup = make_view({**GAME.board_view(owner), first: (Piece("brown"),)})
    assert reconcile(GAME, owner, setup, [], "button").action == end
    assert tally_mismatch(GAME, owner, setup) is None
    # read in a Monkey's colour: counted nowhere; tapped, asked; untapped, the turn ends
    orange = make_view({**taken, place: (Piece("orange"),)})
    assert GAME.tallies(owner, orange) == GAME.tallies(owner, GAME.board_view(owner))
    assert GAME.explain(owner, orange, tapped, "button") == []
    assert reconcile(GAME, owner, orange, tapped, "button").action is None
    assert GAME.explain(owner, orange, [], "button") == [end]
    # the mats as recorded: the turn ends, a Trend tapped or not (the tap that confirmed a
    # claim the camera recorded is still among the cards tapped when the player ends it)
    assert GAME.explain(owner, GAME.board_view(owner), tapped, "button") == [end]
    assert GAME.explain(owner, setup, tapped, "button") == [end]


def test_the_first_starter_chip_names_the_first_player() -> None:
    """"Beginning with the first player ... each player puts one chip on a Starter": with no
    first player declared, whoever lays the first chip goes first and the snake follows; a
    declared first player is kept (another colour's chip is refused)."""
    s = GAME.setup(3)
    starters = sorted(k for k, v in GAME.board.lizards.items() if v.kind == "starter")
    seen = make_view({**GAME.board_view(s), starters[0]: (Piece("yellow"),)})
    acts = GAME.explain(s, seen, [], "button")
    assert acts == [{"type": "place_starter", "player": YELLOW, "spot": starters[0]}]
    assert GAME.describe(s, acts[0]).endswith("and goes first")
    after = GAME.apply(s, acts[0])
    assert after["first"] == YELLOW and after["setup_queue"] == snake(YELLOW, 3)[1:]
    refused(after, {"type": "first_player", "player": RED}, "first")
    refused(after, {"type": "place_starter", "player": BLUE, "spot": starters[1]}, "starter")
    declared = GAME.apply(s, {"type": "first_player", "player": BLUE})
    refused(declared, {"type": "place_starter", "player": YELLOW, "spot": starters[0]}, "starter")
    assert not GAME.describe(declared, {"type": "place_starter", "player": BLUE,
                                        "spot": starters[0]}).endswith("goes first")


def test_every_trend_configuration_is_checked_on_the_board() -> None:
    s = started(3)
    board = {"C12": RED, "C13": RED, "C17": RED, "C22": RED, "C19": RED, "C24": RED,
             "T20": RED, "T15": RED, "N01": RED, "L04": RED, "C02": RED, "C11": RED}
    s = arrange(s, board=board)
    met = {kind: GAME.config_met(s, RED, {"kind": kind, "n": n}) for kind, n in [
        ("lounges", 4), ("one_lounge", 8), ("hipsters", 3), ("jivecats", 1),
        ("starters", 4), ("party", 3), ("chain", 5), ("same_number", 2), ("run", 2),
        ("portals", 1), ("staff", 1)]}
    assert all(met.values()), met
    assert not GAME.config_met(s, RED, {"kind": "each_lounge", "n": 2})
    assert not GAME.config_met(s, RED, {"kind": "chain", "n": 6})
    assert not GAME.config_met(s, RED, {"kind": "run", "n": 9})
    assert not GAME.config_met(s, RED, {"kind": "portals", "n": 2})
    assert not GAME.config_met(s, BLUE, {"kind": "chain", "n": 1})
    with pytest.raises(MalformedAction):
        GAME.config_met(s, RED, {"kind": "moonwalk", "n": 1})


# --------------------------------------------------------------------------- end of turn


def test_end_turn_refills_the_hand_and_reshuffles_the_discards() -> None:
    s = arrange(started(4), board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW, "T20": GREEN, "T25": GREEN})
    s = GAME.apply(s, {"type": "buy", "player": RED, "cards": ["voodoo-8"], "spot": "C11"})
    ended = GAME.apply(s, {"type": "end_turn", "player": RED, "discard": ["rada-1"]})
    assert ended["hand"][RED] == 4 and ended["deck"] == s["deck"] - 2
    assert ended["discard"] == ["voodoo-8", "rada-1"] and ended["turn"] == BLUE
    assert any("draw 2 Clique card" in n for n in ended["notices"])
    refused(s, {"type": "end_turn", "player": RED, "discard": ["voodoo-8"]}, "public")
    refused(s, {"type": "end_turn", "player": RED,
                "discard": ["rada-1", "rada-2", "rada-3", "rada-4"]}, "hand")
    low = arrange(s, deck=0, discard=["voodoo-8", "cheval-1", "cheval-2"])
    ended = GAME.apply(low, {"type": "end_turn", "player": RED})
    assert ended["reshuffles"] == 1 and ended["discard"] == [] and ended["deck"] == 2
    assert ended["hand"][RED] == 4
    assert any("shuffle the discards" in n for n in ended["notices"])
    acts = GAME.explain(s, GAME.board_view(s), [], "button")
    assert acts == [{"type": "end_turn", "player": RED}]
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "end_turn", "player": RED, "discard": ["joker"]})


def test_fifteen_chip_rule_and_no_arbitrary_removal() -> None:
    lizards = [k for k, v in GAME.board.lizards.items() if v.lounge == "cocoa"][:15]
    board = {x: RED for x in lizards}
    board.update({"N01": BLUE, "N02": BLUE, "L04": YELLOW, "L05": YELLOW, "T20": GREEN,
                  "T25": GREEN})
    s = arrange(started(4), board=board)
    refused(s, {"type": "end_turn", "player": RED}, "fifteen", "remove five")
    refused(s, {"type": "end_turn", "player": RED, "remove": lizards[:4]}, "fifteen")
    ended = GAME.apply(s, {"type": "end_turn", "player": RED, "remove": lizards[:5]})
    assert len(chips(ended, RED)) == 10
    seen = view_with(s, remove=tuple(lizards[:5]))
    assert GAME.explain(s, seen, [], "button") == [
        {"type": "end_turn", "player": RED, "remove": sorted(lizards[:5])}]
    prompts = [p.text for p in GAME.prompts(s)]
    assert any("all 15 chips" in t for t in prompts)
    fewer = arrange(s, board={**{x: RED for x in lizards[:6]}, "N01": BLUE, "N02": BLUE,
                              "L04": YELLOW, "L05": YELLOW, "T20": GREEN, "T25": GREEN})
    refused(fewer, {"type": "end_turn", "player": RED, "remove": lizards[:5]}, "no_remove")


# --------------------------------------------------------------------------- the Staff


def test_staff_flip_names_the_legal_spots_and_checks_the_placement() -> None:
    s = started(3)
    ended = GAME.apply(s, {"type": "end_turn", "player": RED})
    assert ended["phase"] == "staff" and ended["staff"]["flips_left"] == 1
    assert GAME.current_player(ended) == RED
    assert GAME.explain(ended, GAME.board_view(ended), [Tap("zombie-7", None)], "tap") == [
        {"type": "staff_flip", "player": RED, "card": "zombie-7"}]
    flipped = GAME.apply(ended, {"type": "staff_flip", "player": RED, "card": "zombie-7"})
    spots = flipped["staff"]["pending"]["spots"]
    assert spots == GAME.staff_spots(ended, 7) and spots
    for x in spots:
        liz = GAME.board.lizards[x]
        assert liz.number == 7 and x in GAME.board.staff_next
    prompt = GAME.prompts(flipped)[0]
    assert prompt.kind == "turn" and all(GAME.board.lizards[x].label() in prompt.text for x in spots)
    wrong = next(x for x, v in GAME.board.lizards.items() if v.number == 7 and x not in spots)
    refused(flipped, {"type": "staff_place", "player": RED, "spot": wrong}, "staff_place",
            "goes on one of")
    seen = view_with(flipped, add={spots[0]: "white"})
    acts = GAME.explain(flipped, seen, [], "button")
    assert acts == [{"type": "staff_place", "player": RED, "spot": spots[0]}]
    placed = GAME.apply(flipped, acts[0])
    assert placed["board"][spots[0]] == "staff" and placed["turn"] == BLUE
    assert placed["phase"] == "play"
    # the next Staff chip may also go next to an existing Staff chip
    beside = next(x for x in sorted(GAME.board.adj[spots[0]])
                  if x not in GAME.board.staff_next and x not in placed["board"])
    liz = GAME.board.lizards[beside]
    assert beside in GAME.staff_spots(placed, liz.number or 1)
    assert beside not in GAME.staff_spots(ended, liz.number or 1)


def test_staff_one_goes_to_a_jivecat_and_no_spot_means_no_chip() -> None:
    s = started(2)
    ended = GAME.apply(s, {"type": "end_turn", "player": RED})
    assert ended["staff"]["flips_left"] == 2
    ones = GAME.staff_spots(ended, 1)
    assert ones == ["T01"] and GAME.board.lizards["T01"].kind == "jivecat"
    placed = GAME.apply(GAME.apply(ended, {"type": "staff_flip", "player": RED,
                                           "card": "jivecat-1"}),
                        {"type": "staff_place", "player": RED, "spot": "T01"})
    assert placed["phase"] == "staff" and placed["staff"]["flips_left"] == 1
    # with T01 taken no Jivecat is next to a Staff icon or chip: no Staff chip is placed
    assert GAME.staff_spots(placed, 1) == []
    skipped = GAME.apply(placed, {"type": "staff_flip", "player": RED, "card": "zombie-1"})
    assert skipped["phase"] == "play" and skipped["turn"] == BLUE
    assert any("no Staff chip is placed" in n for n in skipped["notices"])
    refused(skipped, {"type": "staff_flip", "player": BLUE, "card": "zombie-2"}, "staff_flip")


def test_fifteenth_staff_chip_makes_the_lowest_score_remove_five() -> None:
    s = started(3)
    staff_spots = [x for x, v in GAME.board.lizards.items()
                   if v.lounge == "lava" and x not in s["board"]][:14]
    s = arrange(s, board={**s["board"], **{x: "staff" for x in staff_spots}}, mp=[4, 1, 1],
                phase="staff", staff={"flips_left": 1, "pending": None, "purge_by": None})
    value = next(v for v in range(2, 11) if GAME.staff_spots(s, v))
    card = next(c for c, i in GAME.clique.items() if i.value == value)
    s = GAME.apply(s, {"type": "staff_flip", "player": RED, "card": card})
    s = GAME.apply(s, {"type": "staff_place", "player": RED,
                       "spot": s["staff"]["pending"]["spots"][0]})
    assert s["staff"]["purge_by"] == BLUE, "Blue and Yellow tie: Blue comes first after Red"
    assert GAME.current_player(s) == BLUE
    assert any("15th Staff chip" in n for n in s["notices"])
    refused(s, {"type": "staff_remove", "player": YELLOW, "spots": staff_spots[:5]},
            "staff_15")
    refused(s, {"type": "staff_remove", "player": BLUE, "spots": staff_spots[:4]}, "staff_15")
    seen = view_with(s, remove=tuple(staff_spots[:5]))
    acts = GAME.explain(s, seen, [], "button")
    assert acts == [{"type": "staff_remove", "player": BLUE, "spots": sorted(staff_spots[:5])}]
    done = GAME.apply(s, acts[0])
    assert sum(1 for v in done["board"].values() if v == "staff") == 10
    assert done["phase"] == "play" and done["turn"] == BLUE


# --------------------------------------------------------------------------- the end


def test_fifteen_points_give_everyone_else_one_more_turn() -> None:
    s = arrange(started(4), mp=[0, 15, 3, 2], turn=BLUE)
    s = GAME.apply(s, {"type": "end_turn", "player": BLUE})
    assert s["final_from"] == BLUE and s["phase"] == "play"
    assert any("one more turn" in n for n in s["notices"])
    for seat in (YELLOW, GREEN, RED):
        assert GAME.outcome(s) is None
        for slot in list(s["refill"]["skull"]):
            s = GAME.apply(s, {"type": "reveal", "row": "skull", "card": "skull-1" + str(slot)})
        s = GAME.apply(s, {"type": "end_turn", "player": seat})
    assert s["phase"] == "over"
    outcome = GAME.outcome(s)
    assert outcome is not None and outcome.winners == (BLUE,)
    assert "15 Monkey Points" in outcome.reason
    refused(s, {"type": "end_turn", "player": BLUE}, "over")
    assert GAME.current_player(s) is None and GAME.legal_actions(s) == []


def over_with(**fields: Any) -> dict[str, Any]:
    s = arrange(started(3), phase="over", **fields)
    return s


def test_tie_breakers_in_order() -> None:
    trend = [{"card": "trend-01", "active": True, "used": False}]
    dead = [{"card": "trend-02", "active": False, "used": False}]
    s = over_with(mp=[16, 16, 10], trends=[dead, trend, []])
    o = GAME.outcome(s)
    assert o.winners == (BLUE,) and "most active Trend cards" in o.reason
    s = over_with(mp=[16, 16, 10], skulls=[2, 4, 0])
    o = GAME.outcome(s)
    assert o.winners == (BLUE,) and "most Skull tokens" in o.reason
    board = dict(started(3)["board"])
    board["C11"] = RED
    s = over_with(mp=[16, 16, 10], skulls=[3, 3, 0], board=board)
    o = GAME.outcome(s)
    assert o.winners == (BLUE,) and "fewest chips" in o.reason
    s = over_with(mp=[16, 16, 10], skulls=[3, 3, 0])
    o = GAME.outcome(s)
    assert o.winners == (RED, BLUE) and "share" in o.reason


# --------------------------------------------------------------------------- table and tablet


def test_prompts_summary_and_history_lines() -> None:
    s = started(3)
    prompts = GAME.prompts(s)
    assert prompts[0].kind == "turn" and prompts[0].player == RED
    summary = GAME.summary(s)
    check_json(summary)
    assert summary["Players"]["Red"].startswith("0 Monkey Points, 3 Skulls, 4 cards in hand")
    assert summary["Skull row"]["Bokor (3 Skulls)"] == "Skull card 3 (Cocoa or Lava)"
    assert summary["Trend row"]["Vogue (2 points)"].startswith("Beatnik Poetry: needs 3 chips")
    assert summary["The Staff"].startswith("0 Staff chips on the board, 15 left")
    assert summary["Decks"].startswith("Clique 42 left")
    assert "hands" not in json.dumps(summary)
    assert "The Staff" not in GAME.summary(started(4))
    line = GAME.describe(s, {"type": "buy", "player": RED, "cards": ["cheval-7", "voodoo-5",
                                                                    "zombie-2"],
                             "signs": [1, -1, 1], "spot": "C13"})
    assert line == "Red buys a drink (7-5+2) for Cocoa 4 (2nd from the top)"
    assert "Jivecat" in GAME.describe(s, {"type": "jivecat", "player": RED, "card": "jivecat-2",
                                          "spot": "T12", "remove": ["C24", "L04"]})
    assert GAME.describe(s, {"type": "buy", "player": 9}) .startswith("table")
    assert GAME.player_names(s) == ["Red", "Blue", "Yellow"]
    assert GAME.scores(s) == [0.0, 0.0, 0.0]


def test_wrong_colour_or_wrong_turn_is_refused_with_the_rule() -> None:
    s = started(3)
    spot = next(x for x in GAME.board.adj["C24"] if x not in s["board"])
    verdict = reconcile(GAME, s, view_with(s, add={spot: "blue"}), [], "button")
    assert verdict.action is None and "Red's turn" in verdict.prompt.text
    verdict = reconcile(GAME, s, GAME.board_view(s), [], "board")
    assert verdict.action is None and verdict.prompt is None


def test_legal_actions_apply_and_cover_every_action_type() -> None:
    s = arrange(started(3), tableau=[[zombie("zombie-5")], [zombie("rada-3")], []],
                trends=[[{"card": "trend-07", "active": True, "used": False}], [], []],
                board={"C24": RED, "C17": RED, "C19": RED, "L10": RED, "N06": RED,
                       "T20": BLUE, "N01": BLUE, "L04": YELLOW, "L05": YELLOW, "C11": BLUE})
    acts = GAME.legal_actions(s)
    kinds = {a["type"] for a in acts}
    assert {"end_turn", "buy", "lay_zombie", "lay_rada", "voodoo", "cheval", "jivecat",
            "discard_tableau", "trend_power"} <= kinds
    for a in acts:
        GAME.apply(s, a)
    assert GAME.legal_actions(GAME.setup(2))[0]["type"] == "first_player"


# --------------------------------------------------------------------------- replay


def test_replay_script_with_a_refused_line() -> None:
    """The ACTIONS.md script: every line applies but the two that break a rule."""
    script = """
{"type": "first_player", "player": 1}
{"type": "place_starter", "player": 1, "spot": "C24"}
{"type": "place_starter", "player": 0, "spot": "T20"}
{"type": "place_starter", "player": 0, "spot": "C04"}
{"type": "place_starter", "player": 0, "spot": "N01"}
{"type": "place_starter", "player": 1, "spot": "L04"}
{"type": "reveal", "row": "skull", "card": "skull-01"}
{"type": "reveal", "row": "skull", "card": "skull-02"}
{"type": "reveal", "row": "skull", "card": "skull-03"}
{"type": "reveal", "row": "trend", "card": "trend-01"}
{"type": "reveal", "row": "trend", "card": "trend-02"}
{"type": "reveal", "row": "trend", "card": "trend-03"}
{"type": "buy", "player": 1, "cards": ["voodoo-8"], "spot": "T05"}
{"type":"buy","player":1,"cards":["cheval-7","voodoo-5","zombie-2"],"signs":[1,1,-1],"spot":"C19"}
{"type": "end_turn", "player": 1}
""".strip().splitlines()
    s = GAME.setup(2)
    results = []
    for line in script:
        try:
            s = GAME.apply(s, json.loads(line))
            results.append("applied")
        except RuleError as err:
            results.append(f"refused: {err.reason}")
    refusals = {i + 1: r for i, r in enumerate(results) if r != "applied"}
    assert refusals == {
        4: "refused: Cocoa 6 (1st from the top) is not a Starter Lounge Lizard.",
        13: "refused: Blue chip on Tiki 8 (3rd from the left) is not adjacent to your Clique.",
    }
    assert s["mp"] == [0, 1] and s["phase"] == "staff", "2 players: the Staff card is next"
    assert script[0] in (Path(DATA_PATH).parent.parent / "ACTIONS.md").read_text()


# --------------------------------------------------------------------------- whole games


def check_invariants(game: JivecatGame, before: dict[str, Any], action: dict[str, Any],
                     after: dict[str, Any]) -> None:
    """What must hold after every recorded action of a whole game."""
    check_json(after)
    n = after["players"]
    for spot, owner in after["board"].items():
        assert spot in game.board.lizards, "chips stand only on Lounge Lizards"
        assert owner == "staff" or 0 <= owner < n
    for q in range(n):
        on = sum(1 for v in after["board"].values() if v == q)
        assert on <= 15
        if after["phase"] != "setup" or not after["setup_queue"]:
            assert on >= 2, "never fewer than two chips"
    assert sum(1 for v in after["board"].values() if v == "staff") <= 15
    assert sum(after["skulls"]) + after["supply"] == 25 and min(after["skulls"]) >= 0
    assert after["supply"] >= 0
    if action["type"] == "end_turn":
        p = action["player"]
        assert after["skulls"][p] <= 5, "the five-Skull cap at the end of the turn"
        assert sum(1 for v in after["board"].values() if v == p) < 15
    for q in range(n):
        if after["mp"][q] < before["mp"][q]:
            assert action["type"] == "trend_power", "scores fall only by a Trend power"
    tableau = sum(len(t) for t in after["tableau"])
    assert after["deck"] + len(after["discard"]) + sum(after["hand"]) + tableau == 54
    assert min(after["hand"]) >= 0 and after["deck"] >= 0


def replay_checked(game: JivecatGame, players: int, history: list[dict[str, Any]]) -> None:
    s = game.setup(players)
    for entry in history:
        after = game.apply(s, entry["action"])
        check_invariants(game, s, entry["action"], after)
        s = after
    assert game.outcome(s) is not None


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_headless_games_end_with_the_worlds_winner(players: int) -> None:
    for seed in range(3):
        result = play("jivecat", players, None, seed)
        tablet = result.tablet
        assert tablet["over"], (players, seed)
        assert result.stalls == 0 and result.refusals == []
        assert tablet["winner"] == result.world_truth["winners"]
        assert tablet["scores"] == result.world_truth["scores"]
        assert max(tablet["scores"]) >= 15
        kinds = {h["action"]["type"] for h in tablet["history"]}
        assert {"place_starter", "reveal", "buy", "end_turn"} <= kinds
        if players <= 3:
            assert {"staff_flip"} <= kinds
        assert "Monkey Points" in tablet["summary"]["Players"]["Red"]


@settings(max_examples=20, deadline=None)
@given(players=st.integers(min_value=2, max_value=5), seed=st.integers(0, 10_000))
def test_playouts_keep_the_invariants(players: int, seed: int) -> None:
    result = play("jivecat", players, None, seed)
    assert result.tablet["over"] and result.stalls == 0 and not result.refusals
    assert result.tablet["winner"] == result.world_truth["winners"]
    replay_checked(GAME, players, result.tablet["history"])


@settings(max_examples=10, deadline=None)
@given(players=st.integers(min_value=2, max_value=5), data=st.data())
def test_random_legal_actions_never_crash(players: int, data: st.DataObject) -> None:
    """The tracker alone, fed random actions from its own legal list."""
    s = GAME.setup(players)
    for _ in range(100):
        acts = GAME.legal_actions(s)
        if not acts:
            break
        action = data.draw(st.sampled_from(acts))
        after = GAME.apply(s, action)
        check_invariants(GAME, s, action, after)
        GAME.prompts(after)
        GAME.summary(after)
        s = after


def test_world_keeps_its_own_truth() -> None:
    world = WORLD_CLASS(GAME, 3, None, 7)
    world.start()
    for _ in range(40):
        world.step({})
    truth = world.truth()
    assert sum(len(h) for h in truth["hands"]) == sum(world.state["hand"])
    assert len(world.deck) == world.state["deck"]



def test_players_tap_the_correction_that_names_the_card_they_flipped_onto_a_row() -> None:
    """Jivecat seed 19, cafe, passive (wedged): Beatnik Poetry (pink 1), flipped onto the
    Trend row, was read a pip high for a frame and recorded as Tiki Mugs; the tablet asked
    "The table now shows Trend Beatnik Poetry flipped ..., but Trend Tiki Mugs ... was
    recorded. If the table is right, correct it." with that correction as one tap.  The
    players, who had flipped Beatnik Poetry, did not know the button for their own move
    (a flip is made without a press, so it was not among the moves they remembered): they
    flipped it again and again, and the record stayed a card wrong.  They tap it."""
    from companion.sim.world import TapOption
    from companion.sim.worldproc import as_seen

    world = WORLD_CLASS(GAME, 3, None, 7)
    world.start()
    for _ in range(200):
        if world.state["phase"] == "play" and (world.state["refill"]["trend"]
                                               or world.state["refill"]["skull"]):
            break
        world.step({})
    else:
        raise AssertionError("no row to refill in 200 steps")
    world.step({})
    flipped = world.pending
    assert flipped is not None and flipped["type"] == "reveal"
    correct = {"type": "correct", "entry": 40, "action": flipped}
    tablet = {"history_total": 40, "taps": [],
              "history": [{"seq": 40, "move": 40, "source": "camera", "undone": False,
                           "text": "Trend Tiki Mugs flipped face up onto the Trend row"}],
              "prompts": [{"kind": "choice", "text": "The table now shows ... If the table is right, "
                           "correct it.", "options": [correct]}]}
    seen = as_seen(tablet, world.wording())
    (words,) = seen["prompts"][0]["options"]
    assert words.startswith("Correct #40: ")
    assert world.confirm_reading(seen) == [TapOption(words)]


def test_players_make_a_trend_power_on_the_mats_and_press() -> None:
    """The simulated players take a Skull for Beatnik Poetry on their mat, tap the Trend card
    and press (nothing declared); the companion reads that press as the power.  Nobody
    declares the first player: the world's first Starter chip names it."""
    from companion.sim.world import BoardChange, CardTap, Declare, TurnButton

    world = WORLD_CLASS(GAME, 3, None, 7)
    assert world.start() == []
    skull = next(c for c, t in GAME.trend_cards.items() if t["power"]["kind"] == "skull")
    world.state = arrange(started(3), skulls=[1, 0, 0],
                          trends=[[{"card": skull, "active": True, "used": False}], [], []])
    before = world.state
    world.rows_shown = world.mats_shown = before
    events = world._powers(RED)
    world.mats_shown = None
    assert [type(e) for e in events] == [BoardChange, CardTap, TurnButton], events
    assert not any(isinstance(e, Declare) for e in events)
    board, tap = events[0], events[1]
    assert isinstance(board, BoardChange) and isinstance(tap, CardTap) and tap.card == skull
    verdict = reconcile(GAME, before, board.view, [Tap(skull, RED)], "button")
    assert verdict.action == {"type": "trend_power", "player": RED, "trend": skull}
    assert verdict.state is not None and verdict.state["skulls"][RED] == 2


# --------------------------------------------------------------------------- the camera reads cards


def code(card: str) -> Piece:
    return GAME.code_of[card]


def with_cards(s: dict[str, Any], add: dict[str, Piece] | None = None,
               remove: tuple[str, ...] = ()) -> Any:
    """The board the camera would see after cards were laid on or taken off positions."""
    items = {k: list(v) for k, v in GAME.board_view(s).items()}
    for spot in remove:
        items.pop(spot)
    for spot, piece in (add or {}).items():
        items[spot] = [piece]
    return make_view(items)


def before_rows(n: int = 3) -> dict[str, Any]:
    """Set-up with every starting chip placed and the six row positions still empty."""
    s = GAME.setup(n)
    starters = sorted(k for k, v in GAME.board.lizards.items() if v.kind == "starter")
    for seat in snake(0, n):
        s = GAME.apply(s, {"type": "place_starter", "player": seat, "spot": starters.pop(0)})
    return s


def test_face_codes_are_unique_per_deck_and_in_the_data_file() -> None:
    raw = json.loads(DATA_PATH.read_text())
    assert "face code" in raw["_note"].lower()
    clique = [tuple(c["face_code"]) for c in raw["cards"]["clique"]]
    rows = [tuple(c["face_code"]) for c in raw["cards"]["skull"] + raw["cards"]["trend"]]
    assert len(set(clique)) == len(clique) == 54 and len(set(rows)) == len(rows) == 40
    assert all(c in CODE_COLOURS and 0 <= p <= 9 for c, p in clique + rows)
    broken = copy.deepcopy(raw)
    broken["cards"]["skull"][1]["face_code"] = broken["cards"]["skull"][0]["face_code"]
    path = Path(__file__).parent / "_jivecat_dup_codes.json"
    try:
        path.write_text(json.dumps(broken))
        with pytest.raises(ValueError, match="face code"):
            JivecatGame(data_path=path)
    finally:
        path.unlink(missing_ok=True)


def test_board_view_shows_row_and_tableau_cards_by_face_code() -> None:
    s = arrange(started(3), tableau=[[zombie("zombie-6"), zombie("rada-2")], [], []])
    view = GAME.board_view(s)
    assert view["skull-0"] == (code(s["skull_row"][0]),)
    assert view["trend-2"] == (code(s["trend_row"][2]),)
    assert view["tableau-0-0"] == (code("zombie-6"),) and view["tableau-0-1"] == (code("rada-2"),)
    assert not any(k.startswith("tableau-1") for k in view)
    layout = GAME.layout(s)
    for spot in view:
        layout.spot(spot)  # every position the view names is drawn


def test_reveal_from_the_camera_and_from_a_tap() -> None:
    s = before_rows()
    assert s["refill"]["skull"] == [2, 1, 0]
    # the camera: a card lies face up on an empty position (a stable board change)
    seen = with_cards(s, add={"skull-1": code("skull-05")})
    verdict = reconcile(GAME, s, seen, [], "board")
    assert verdict.action == {"type": "reveal", "row": "skull", "card": "skull-05", "slot": 1}
    s2 = verdict.state
    assert s2["skull_row"][1] == "skull-05" and s2["refill"]["skull"] == [2, 0]
    assert GAME.board_view(s2) == seen
    # the shared reader still works: the tap names the card, the top empty position takes it
    verdict = reconcile(GAME, s2, GAME.board_view(s2), [Tap("skull-07")], "tap")
    assert verdict.action == {"type": "reveal", "row": "skull", "card": "skull-07"}
    assert verdict.state["skull_row"][2] == "skull-07"
    # the button with a Trend card on its position is the same reveal
    seen = with_cards(s2, add={"trend-0": code("trend-04")})
    verdict = reconcile(GAME, s2, seen, [], "button")
    assert verdict.action == {"type": "reveal", "row": "trend", "card": "trend-04", "slot": 0}
    # all six by camera starts the first turn
    t = s
    for row, slot, card in (("skull", 2, "skull-01"), ("skull", 1, "skull-02"),
                            ("skull", 0, "skull-03"), ("trend", 2, "trend-01"),
                            ("trend", 1, "trend-02"), ("trend", 0, "trend-03")):
        verdict = reconcile(GAME, t, with_cards(t, add={f"{row}-{slot}": code(card)}), [], "board")
        assert verdict.action is not None, verdict.prompt
        t = verdict.state
    assert t["phase"] == "play" and t["turn"] == 0


def test_a_wrong_card_code_on_a_row_is_refused_with_the_rule() -> None:
    s = before_rows()
    # a Trend card laid in the Skull row
    seen = with_cards(s, add={"skull-2": code("trend-05")})
    verdict = reconcile(GAME, s, seen, [], "board")
    assert verdict.action is None and verdict.prompt is not None
    assert verdict.prompt.kind == "warning"
    assert "trend-05" in verdict.prompt.text and R["rows"] in verdict.prompt.text
    # a code no Skull or Trend card carries (the plain grey Clique card)
    seen = with_cards(s, add={"trend-2": Piece("grey", 0)})
    verdict = reconcile(GAME, s, seen, [], "board")
    assert verdict.action is None and "No Trend card shows face code grey 0" in verdict.prompt.text
    refused(s, {"type": "reveal", "row": "skull", "code": ["grey", 0], "slot": 2}, "rows",
            "no skull card")
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "reveal", "row": "skull", "code": "grey", "slot": 2})
    # a card already face up cannot come off the deck again
    one = GAME.apply(s, {"type": "reveal", "row": "skull", "card": "skull-05", "slot": 2})
    verdict = reconcile(GAME, one, with_cards(one, add={"skull-1": code("skull-05")}), [], "board")
    assert verdict.action is None and "already face up" in verdict.prompt.text
    # a card on a row position when no position waits for one (mid-turn)
    p = started(3)
    empty = arrange(p, skull_row=[None] + p["skull_row"][1:])
    verdict = reconcile(GAME, empty, with_cards(empty, add={"skull-0": code("skull-09")}), [],
                        "board")
    assert verdict.action is None and "No Skull position is waiting" in verdict.prompt.text
    assert R["rows"] in verdict.prompt.text


def test_lay_zombie_and_lay_rada_from_the_board() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW})
    seen = with_cards(s, add={"tableau-0-0": code("zombie-6")})
    # a stable board alone waits for the button
    assert reconcile(GAME, s, seen, [], "board").action is None
    # the card on the tableau position plus its tap, then the button
    verdict = reconcile(GAME, s, seen, [Tap("zombie-6", RED)], "button")
    assert verdict.action == {"type": "lay_zombie", "player": RED, "slot": 0, "card": "zombie-6"}
    laid = verdict.state
    assert laid["skulls"][RED] == 2
    assert GAME.without_score_places(GAME.board_view(laid)) == GAME.without_score_places(seen)
    # a Rada laid without a tap: the camera alone names it
    seen2 = with_cards(laid, add={"tableau-0-2": code("rada-4")})
    verdict = reconcile(GAME, laid, seen2, [], "button")
    assert verdict.action == {"type": "lay_rada", "player": RED, "slot": 2, "card": "rada-4"}
    assert GAME.without_score_places(GAME.board_view(verdict.state)) == GAME.without_score_places(seen2)
    # the tap naming another card than the one on the table: nothing is guessed
    assert GAME.explain(s, seen, [Tap("zombie-2", RED)], "button") == []
    # the tap path alone still lays the card on the first free position
    tapped = reconcile(GAME, s, GAME.board_view(s), [Tap("zombie-6", RED)], "button")
    assert tapped.action == {"type": "lay_zombie", "player": RED, "card": "zombie-6"}
    assert GAME.board_view(tapped.state)["tableau-0-0"] == (code("zombie-6"),)


def test_tableau_cards_where_the_rules_forbid_them_are_refused() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW},
                tableau=[[zombie("zombie-6"), zombie("zombie-2")], [], []])
    # a third Zombie
    verdict = reconcile(GAME, s, with_cards(s, add={"tableau-0-2": code("zombie-9")}), [],
                        "button")
    assert verdict.action is None and R["zombie_max"] in verdict.prompt.text
    # a Cheval card is no tableau card
    verdict = reconcile(GAME, s, with_cards(s, add={"tableau-0-2": code("cheval-5")}), [],
                        "button")
    assert verdict.action is None and R["suit"] in verdict.prompt.text
    # a card in another player's tableau on Red's turn
    verdict = reconcile(GAME, s, with_cards(s, add={"tableau-1-0": code("zombie-9")}), [],
                        "button")
    assert verdict.action is None and "Red's turn" in verdict.prompt.text
    # a face code no Clique card carries (brown 8 is left out of every deck)
    acts = GAME.explain(s, with_cards(s, add={"tableau-0-2": Piece("brown", 8)}), [], "button")
    assert acts == [{"type": "lay_zombie", "player": RED, "slot": 2, "code": ["brown", 8]}]
    refused(s, acts[0], "tableau", "no clique card shows face code brown 8")
    # a second Rada
    r = arrange(s, tableau=[[zombie("rada-2")], [], []])
    verdict = reconcile(GAME, r, with_cards(r, add={"tableau-0-1": code("rada-4")}), [],
                        "button")
    assert verdict.action is None and R["rada_one"] in verdict.prompt.text
    # a card on a taken position is refused too
    refused(r, {"type": "lay_zombie", "player": RED, "card": "zombie-9", "slot": 0}, "tableau",
            "not free")


def test_tableau_cards_taken_away_are_explained_from_the_board() -> None:
    s = arrange(started(3), board={"C17": RED, "C24": RED, "N01": BLUE, "N02": BLUE,
                                   "L04": YELLOW, "L05": YELLOW},
                tableau=[[zombie("zombie-6"), zombie("zombie-2")], [zombie("rada-4")], []])
    # the owner takes an unused Zombie away and presses the button: discard_tableau
    verdict = reconcile(GAME, s, with_cards(s, remove=("tableau-0-1",)), [], "button")
    assert verdict.action == {"type": "discard_tableau", "player": RED, "card": "zombie-2"}
    # the positions do not shift: the other Zombie stays where it lies
    assert GAME.board_view(verdict.state)["tableau-0-0"] == (code("zombie-6"),)
    # Blue's Rada gone with Red's Voodoo tapped: the Voodoo Spell on that card
    verdict = reconcile(GAME, s, with_cards(s, remove=("tableau-1-0",)), [Tap("voodoo-6", RED)],
                        "button")
    assert verdict.action == {"type": "voodoo", "player": RED, "card": "voodoo-6",
                              "effect": "rada", "target": BLUE, "victim": "rada-4"}
    # Blue's card gone without a Voodoo: nothing to explain, the players are told the mismatch
    verdict = reconcile(GAME, s, with_cards(s, remove=("tableau-1-0",)), [], "button")
    assert verdict.action is None and "missing from tableau-1-0" in verdict.prompt.text
    # a used Zombie may not be discarded: refused with the rule
    used = arrange(s, tableau=[[zombie("zombie-6", True), zombie("zombie-2")], [], []])
    verdict = reconcile(GAME, used, with_cards(used, remove=("tableau-0-0",)), [], "button")
    assert verdict.action is None and R["zombie_discard"] in verdict.prompt.text


def test_every_face_code_is_read_by_the_real_renderer_and_reader() -> None:
    from companion.sim.camera.render import Camera
    from companion.vision.reader import BoardReader

    s = GAME.setup(5)
    layout = GAME.layout(s)
    reader = BoardReader(layout, colours=tuple(sorted(set(layout.pieces) | set(layout.shapes))))
    spots = [sp.id for sp in layout.spots if sp.id.startswith(("skull", "trend", "tableau"))]
    assert len(spots) == 6 + 5 * 3 + 5  # rows, three tableau positions and a Trend pile each
    codes = list(GAME.clique_by_code) + list(GAME.row_by_code)
    for start in range(0, len(codes), len(spots)):
        view = make_view({spot: [c] for spot, c in zip(spots, codes[start:start + len(spots)],
                                                         strict=False)})
        view.update(GAME.board_view(started(5)))  # chips beside the cards
        reading = reader.read(Camera(layout, seed=start).frame(view))
        assert reading.view == view, reading.problem


def test_headless_table_reads_rows_and_tableaux_by_camera_and_ends_in_agreement() -> None:
    from companion.sim.headless import deliver
    from companion.sim.world import BoardChange
    from companion.table import Table

    for players, seed in ((2, 3), (5, 6)):  # seeds with Zombies, Radas and a Voodoo on one
        table = Table.open("jivecat", None, players, None, seed, resume=False)
        world = WORLD_CLASS(table.game, players, None, seed)
        refusals: list[str] = []
        for event in world.start():
            deliver(table, event, refusals)
        laid = 0
        while not world.finished():
            events = world.step(table.public())
            laid += sum(1 for e in events if isinstance(e, BoardChange)
                        and any(k.startswith("tableau") for k in e.view))
            for event in events:
                deliver(table, event, refusals)
            # after every move the tracker's table is the real one, or it asks which move
            # it saw (two Trends that move a chip alike) and the players answer next
            asking = any(p.options for p in table.prompts())
            assert asking or table.game.board_view(table.state) == world.board()
        assert not refusals and table.seen == world.board()
        sources = {(h.action["type"], h.source) for h in table.history}
        assert ("reveal", "camera") in sources and ("reveal", "cards") not in sources
        assert table.game.outcome(table.state).winners == tuple(world.truth()["winners"])
        assert laid


# --------------------------------------------------------------------------- claimed Trend piles


def code_list(card: str) -> list[Any]:
    """A card's face code as an action's 'code' field."""
    return [code(card).colour, code(card).pips]


def red_can_claim() -> dict[str, Any]:
    """Red shows three Lounges: Retro's trend-01 (chips in 3 different Lounges) is claimable."""
    return arrange(started(3), board={"C24": RED, "N01": RED, "L04": RED, "N02": BLUE,
                                      "T20": BLUE, "L05": YELLOW, "L10": YELLOW})


def test_trend_piles_fit_the_table_and_show_the_newest_claim() -> None:
    for n in (2, 3, 4, 5):
        layout = GAME.layout(started(n))
        for seat in range(n):
            pile = layout.spot(trend_pile(seat))
            assert pile.w >= 40 and pile.h >= 40  # 9 pips read reliably at this size
            assert 0 <= pile.x and pile.x + pile.w <= 600 and pile.y + pile.h <= 420
        assert not any(sp.id == trend_pile(n) for sp in layout.spots)
    s = red_can_claim()
    assert trend_pile(RED) not in GAME.board_view(s)
    one = GAME.apply(s, {"type": "claim_trend", "player": RED, "card": "trend-01"})
    assert GAME.board_view(one)[trend_pile(RED)] == (code("trend-01"),)
    assert "trend-2" not in GAME.board_view(one)
    # a second claim goes on top: the camera sees only the newest card
    two = arrange(one, trends=[[{"card": "trend-01", "active": True, "used": False},
                                {"card": "trend-07", "active": True, "used": False}], [], []])
    assert GAME.board_view(two)[trend_pile(RED)] == (code("trend-07"),)


def test_claim_trend_from_the_camera_alone() -> None:
    s = red_can_claim()
    seen = with_cards(s, add={trend_pile(RED): code("trend-01")}, remove=("trend-2",))
    for trigger in ("board", "button"):
        verdict = reconcile(GAME, s, seen, [], trigger)
        assert verdict.action == {"type": "claim_trend", "player": RED, "card": "trend-01",
                                  "code": code_list("trend-01")}, verdict.prompt
        claimed = verdict.state
        assert claimed["mp"][RED] == 2 and claimed["trend_row"][2] is None
        assert GAME.without_score_places(GAME.board_view(claimed)) == GAME.without_score_places(seen)
    # a later tap of the same card on the seat reader only confirms it: nothing more happens
    assert GAME.explain(claimed, seen, [Tap("trend-01", RED)], "tap") == []
    assert reconcile(GAME, claimed, seen, [Tap("trend-01", RED)], "tap").prompt is None
    # a second claim later lands on top of the first
    more = arrange(claimed, trend_row=["trend-03", "trend-02", "trend-22"])
    assert GAME.config_met(more, RED, GAME.trend_cards["trend-22"]["config"])  # 2 Starters
    seen2 = with_cards(more, add={trend_pile(RED): code("trend-22")}, remove=("trend-2",))
    verdict = reconcile(GAME, more, seen2, [], "board")
    assert verdict.action is not None and verdict.action["card"] == "trend-22", verdict.prompt
    assert [t["card"] for t in verdict.state["trends"][RED]] == ["trend-01", "trend-22"]
    assert GAME.without_score_places(GAME.board_view(verdict.state)) == GAME.without_score_places(seen2)


def test_claim_trend_with_the_seat_tap_and_the_tap_path_alone() -> None:
    s = red_can_claim()
    seen = with_cards(s, add={trend_pile(RED): code("trend-01")}, remove=("trend-2",))
    verdict = reconcile(GAME, s, seen, [Tap("trend-01", RED)], "button")
    assert verdict.action == {"type": "claim_trend", "player": RED, "card": "trend-01",
                              "code": code_list("trend-01")}
    assert GAME.without_score_places(GAME.board_view(verdict.state)) == GAME.without_score_places(seen)
    # a tap naming another face-up Trend card than the one that moved: nothing is guessed
    assert GAME.explain(s, seen, [Tap("trend-02", RED)], "button") == []
    # the tap path with no camera: the tap alone claims, the pile then shows the card
    tapped = reconcile(GAME, s, GAME.board_view(s), [Tap("trend-01", RED)], "tap")
    assert tapped.action == {"type": "claim_trend", "player": RED, "card": "trend-01"}
    assert GAME.without_score_places(GAME.board_view(tapped.state)) == GAME.without_score_places(seen)
    # the camera then seeing the card on the pile is no new move
    assert reconcile(GAME, tapped.state, seen, [], "board").action is None
    # a claim of a configuration Red does not show is refused whatever the camera sees
    bad = with_cards(s, add={trend_pile(RED): code("trend-02")}, remove=("trend-1",))
    verdict = reconcile(GAME, s, bad, [], "board")
    assert verdict.action is None and R["trend_claim"] in verdict.prompt.text


def test_a_wrong_card_on_the_trend_pile_is_refused_with_the_rule() -> None:
    s = red_can_claim()
    # Retro's trend-01 left the row but another Trend card lies on Red's pile
    seen = with_cards(s, add={trend_pile(RED): code("trend-09")}, remove=("trend-2",))
    verdict = reconcile(GAME, s, seen, [], "board")
    assert verdict.action is None and verdict.prompt.kind == "warning"
    assert R["trend_place"] in verdict.prompt.text and GAME.card_name("trend-09") in verdict.prompt.text
    # a Skull card's code on the pile
    seen = with_cards(s, add={trend_pile(RED): code("skull-07")}, remove=("trend-2",))
    verdict = reconcile(GAME, s, seen, [], "button")
    assert verdict.action is None and GAME.card_name("skull-07") in verdict.prompt.text
    assert R["trend_place"] in verdict.prompt.text
    # a Clique-only code (the plain grey card) on the pile with no row card gone
    seen = with_cards(s, add={trend_pile(RED): Piece("grey", 0)})
    verdict = reconcile(GAME, s, seen, [], "board")
    assert verdict.action is None and "no Trend card left the Trend row" in verdict.prompt.text
    assert R["trend_place"] in verdict.prompt.text
    refused(s, {"type": "claim_trend", "player": RED, "code": code_list("trend-01")},
            "trend_place", "no trend card left")
    refused(s, {"type": "claim_trend", "player": RED, "card": "trend-01",
                "code": code_list("trend-02")}, "trend_place", f"put {GAME.card_name('trend-01')} there")
    with pytest.raises(MalformedAction):
        GAME.apply(s, {"type": "claim_trend", "player": RED, "card": "trend-01", "code": "x"})
    # another seat's pile on Red's turn is out of turn
    seen = with_cards(s, add={trend_pile(BLUE): code("trend-01")}, remove=("trend-2",))
    verdict = reconcile(GAME, s, seen, [], "board")
    assert verdict.action is None and "Red's turn" in verdict.prompt.text


def test_headless_claims_by_camera_keep_the_tracker_on_the_real_board() -> None:
    from companion.sim.headless import deliver
    from companion.sim.world import BoardChange, CardTap
    from companion.table import Table

    claims = {"camera": 0, "tapped": 0}
    for players, seed in ((2, 1), (4, 0), (5, 2)):
        table = Table.open("jivecat", None, players, None, seed, resume=False)
        world = WORLD_CLASS(table.game, players, None, seed)
        refusals: list[str] = []
        for event in world.start():
            deliver(table, event, refusals)
        while not world.finished():
            events = world.step(table.public())
            for event in events:
                deliver(table, event, refusals)
            piles = [e for e in events if isinstance(e, BoardChange)
                     and any(k.startswith("trends-") for k in e.view)]
            if piles and table.history and table.history[-1].action["type"] == "claim_trend":
                tapped = any(isinstance(e, CardTap) for e in events)
                claims["tapped" if tapped else "camera"] += 1
            # after every move the tracker's table is the real one, or it asks which move
            # it saw (two Trends that move a chip alike) and the players answer next
            asking = any(p.options for p in table.prompts())
            assert asking or table.game.board_view(table.state) == world.board()
        assert not refusals and table.seen == world.board()
        assert table.state["phase"] == "over"
        assert table.game.outcome(table.state).winners == tuple(world.truth()["winners"])
        assert any(h.action["type"] == "claim_trend" and h.source == "camera"
                   for h in table.history)
    assert claims["camera"] and claims["tapped"]


def test_players_read_card_names_never_card_ids() -> None:
    """Notices, prompts, history and details name cards as players call them ("Cheval 5",
    "Skull card 3 (Cocoa or Lava)"), never by the tracker's ids ("cheval-5", "skull-03")."""
    import re

    from companion.sim.headless import deliver
    from companion.sim.world import load_world
    from companion.table import Table

    ids = set(GAME.clique) | set(GAME.skull_cards) | set(GAME.trend_cards)
    seen: dict[str, str] = {}
    texts = 0
    for seed in (1, 2):
        table = Table.open("jivecat", None, 3, None, seed, resume=False)
        world = load_world("jivecat", load_game("jivecat"), 3, None, seed)
        refusals: list[str] = []
        for event in world.start():
            deliver(table, event, refusals)
        for _ in range(150):
            if world.finished():
                break
            public = table.public()
            shown = [p.get("text", "") for p in public.get("prompts", [])]
            shown += [h["text"] for h in public.get("history", [])]
            shown += [str(v) for v in (public.get("details") or {}).values()] + refusals
            for text in shown:
                texts += 1
                for word in re.findall(r"[a-z]+-[0-9]+(?:-b)?", text):
                    if word in ids:
                        seen[word] = text
            for event in world.step(public):
                deliver(table, event, refusals)
    assert texts > 500 and not seen, seen


def test_skulls_and_monkeys_on_the_mats_that_differ_from_the_record_are_a_warning() -> None:
    """Issue 12: each player's Skull tokens and Monkeys lie on a mat beside the board and are
    counted against the record (a Monkey is worth its colour: blue 5, orange 1).  A Skull
    missing from a mat is a standing warning naming the player and both counts, and never a
    move; set right, the warning goes.  The mats are no move for ``explain`` either."""
    from companion.table import Table

    table = Table.open("jivecat", None, 3, None, 4, resume=False)
    world = WORLD_CLASS(load_game("jivecat"), 3, None, 4)
    from companion.sim.headless import deliver

    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    for _ in range(400):  # play on until someone holds a Monkey Point, between moves
        state = table.state
        if state["phase"] == "play" and any(state["mp"]) and table.seen == table.game.board_view(state):
            break
        for event in world.step(table.public()):
            deliver(table, event, refusals)
    else:
        pytest.fail("nobody scored in 400 steps")
    state = table.state
    right = GAME.board_view(state)
    q = next(q for q in range(3) if state["mp"][q])
    name = GAME.player_names(state)[q]

    def warning() -> str | None:
        texts = [p["text"] for p in table.public()["prompts"] if "score pieces differ" in p["text"]]
        return texts[0] if texts else None

    assert warning() is None
    assert GAME.tallies(state, right)[f"{name}: Monkey Points"] == state["mp"][q]
    assert GAME.explain(state, right, [], "button") == GAME.explain(
        state, {k: v for k, v in right.items() if not is_mat_place(k)}, [], "button")
    short = dict(right)
    skulls = state["skulls"][q]
    assert skulls >= 1
    del short[mat_place(q, "skull", skulls - 1)]
    table.board_seen(make_view(short))
    text = warning()
    assert text is not None and f"{name}: Skulls {skulls - 1} on the table, {skulls} in the record" in text
    assert table.state == state  # a warning, never a change to the record
    table.board_seen(right)
    assert warning() is None


def test_players_making_a_move_again_show_the_table_as_the_move_left_it() -> None:
    """Issue 12 (seed 2 with faults): a Trend power that takes a row card and pays Skulls
    was refused on a transient misread; made again, the table showed the row card back in its
    row and the Skulls already paid, a table no move explains, three times, and the game
    parted from its record.  Made again, the table is the one the move left."""
    from companion.sim.world import STRAIGHTEN_FRAMES, BoardChange, HandOver

    differed = 0
    for seed in range(1, 6):
        world = WORLD_CLASS(GAME, 3, None, seed)
        world.start()
        for _ in range(150):
            events = world.step({})
            boards = [e.view for e in events if isinstance(e, BoardChange)]
            if not boards or not any(not isinstance(e, BoardChange) for e in events):
                continue
            world.last_move = (events, 0, 0)
            differed += boards[-1] != world.view()
            again = world.again({"history_total": 0, "history": [], "taps": []})
            assert again[:2] == [HandOver(STRAIGHTEN_FRAMES), BoardChange(boards[-1])]
            world.last_move = (events, None, 0)
    assert differed  # moves whose table the old "again" (the rows before the move) got wrong


def started_headless(seed: int) -> tuple[Any, Any, list[str]]:
    """A three-player table and its world, set up through the headless path (no frames)."""
    from companion.sim.headless import deliver
    from companion.table import Table

    table = Table.open("jivecat", None, 3, None, seed, resume=False)
    world = WORLD_CLASS(load_game("jivecat"), 3, None, seed)
    refusals: list[str] = []
    for event in world.start():
        deliver(table, event, refusals)
    return table, world, refusals


def test_players_straighten_the_table_as_their_move_left_it_not_with_its_chores_done() -> None:
    """Issue 12 (seed 2 with faults): a move was refused and the players straightened the
    pieces, laying the table as the truth stands, with the move's chores already done (the
    rows slid, the Skulls it pays on the mat).  The camera then saw the move and its chores
    at once, which no legal move explains.  A straightening puts back the table as the move
    left it; the chores follow once the tablet shows the move recorded."""
    from companion.sim.headless import deliver
    from companion.sim.world import STRAIGHTEN_FRAMES, BoardChange, HandOver

    table, world, refusals = started_headless(2)
    for _ in range(400):  # play on until a move leaves chores to do
        for event in world.step(table.public()):
            deliver(table, event, refusals)
        if world.board() != world.shown and not world.finished():
            break
    assert world.board() != world.shown, "no move left chores in 400 steps"
    refused = {**table.public(), "prompts": [
        {"kind": "warning", "text": "Not allowed: the move as the camera read it (...)"}]}
    events = world.straighten(refused)
    assert events[:2] == [HandOver(STRAIGHTEN_FRAMES), BoardChange(world.shown)]


def test_players_take_back_and_lay_again_a_move_straightening_did_not_get_recorded() -> None:
    """Issue 12 (seed 6 with faults): the chores of a move (a Trend row slid, a Skull paid)
    and the next move (a Staff chip) were made at once; the camera saw both in one board,
    which no legal move explains, and straightening the pieces showed it the same board
    again.  The first time the tablet shows nothing for a move the pieces are straightened;
    from the second, the move's pieces are taken back and laid again, so the camera sees the
    table before it and after it."""
    from companion.sim.headless import deliver
    from companion.sim.world import STRAIGHTEN_FRAMES, BoardChange, HandOver

    table, world, refusals = started_headless(6)
    made: list[Any] = []
    for _ in range(400):  # play on until a move changes the table
        made = world.step(table.public())
        if world.before_move is not None and world.before_move != world.shown \
                and not world.finished():
            break
        for event in made:
            deliver(table, event, refusals)
    before, after = world.before_move, world.shown
    assert before is not None and before != after
    total = world.last_move[1]
    nothing = {"history_total": total, "history": [], "taps": [], "prompts": []}
    moves = [e for e in made if not isinstance(e, BoardChange)]
    assert world.step(nothing) == [HandOver(STRAIGHTEN_FRAMES), BoardChange(after), *moves]
    assert world.step(nothing) == [HandOver(STRAIGHTEN_FRAMES), BoardChange(before), HandOver(),
                                   BoardChange(after), *moves]
