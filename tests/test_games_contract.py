"""Every game keeps the contract the rest of the companion relies on."""

from __future__ import annotations

import copy
import json
import random

import pytest

from companion.games import GAMES, load_game
from companion.games.base import Game, MalformedAction, RuleError, Spot, check_json
from companion.sim.headless import play
from companion.vision.geometry import MARGIN_MM, canvas_size_mm
from companion.vision.palette import PIECE_COLOURS


def configurations() -> list[tuple[str, int, str]]:
    out = []
    for name in sorted(GAMES):
        game = load_game(name)
        for players in range(game.min_players, game.max_players + 1):
            for variant in game.variants:
                try:
                    game.setup(players, variant, 0)
                except ValueError:
                    continue  # e.g. a team variant only at 4
                out.append((name, players, variant))
    return out


CONFIGS = configurations()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_player_counts_are_exactly_what_set_up_accepts(name: str) -> None:
    """The set-up screen and the benchmarks offer only counts the rulebook allows."""
    game = load_game(name)
    accepted = set()
    for players in range(1, game.max_players + 2):
        for variant in game.variants:
            try:
                game.setup(players, variant, 0)
            except ValueError:
                continue
            accepted.add(players)
    assert set(game.player_counts()) == accepted


@pytest.mark.parametrize("name", sorted(GAMES))
def test_identity_and_bad_setups(name: str) -> None:
    game = load_game(name)
    assert game.name == name and game.title and game.variants
    with pytest.raises(ValueError):
        game.setup(game.max_players + 1, None, 0)
    with pytest.raises(ValueError):
        game.setup(game.min_players, "no-such-variant", 0)


@pytest.mark.parametrize("name, players, variant", CONFIGS)
def test_states_are_plain_json_and_moves_never_mutate(name: str, players: int, variant: str) -> None:
    game: Game = load_game(name)
    state = game.setup(players, variant, 0)
    rng = random.Random(f"{name}{players}{variant}")
    for _ in range(25):
        check_json(state)
        assert len(game.scores(state)) == players == len(game.player_names(state))
        if game.outcome(state) is not None:
            break
        assert any(p.kind in ("turn", "choice") for p in game.prompts(state)), game.prompts(state)
        actions = game.legal_actions(state)
        assert actions, "no legal action in a running game"
        action = rng.choice(actions)
        json.dumps(action)
        frozen = copy.deepcopy(state)
        assert isinstance(game.describe(state, action), str)
        try:
            new_state = game.apply(state, action)
        except (RuleError, MalformedAction) as err:
            pytest.fail(f"legal_actions offered {action} but apply refused it: {err}")
        assert state == frozen, "apply() changed its input"
        state = new_state


@pytest.mark.parametrize("name, players, variant", CONFIGS)
def test_layout_fits_the_camera(name: str, players: int, variant: str) -> None:
    game = load_game(name)
    state = game.setup(players, variant, 0)
    layout = game.layout(state)
    # a 1280 x 720 frame gives the table at least the scale a 700 x 500 mm table has (a
    # wider table is fine while its height, not its width, sets the scale)
    width, height = canvas_size_mm(layout)
    least = 1280 / max(700 + 2 * MARGIN_MM, (500 + 2 * MARGIN_MM) * 16 / 9)
    assert 1280 / max(width, height * 16 / 9) >= least
    ids = [s.id for s in layout.spots]
    assert len(ids) == len(set(ids))
    for spot in layout.spots:
        assert min(spot.w, spot.h) >= 15, spot
        assert 0 <= spot.x and spot.x + spot.w <= layout.width + 0.01, spot
        assert 0 <= spot.y and spot.y + spot.h <= layout.height + 0.01, spot
    for spot_id, pieces in game.board_view(state).items():
        assert spot_id in ids
        for piece in pieces:
            assert piece.colour in PIECE_COLOURS and 0 <= piece.pips <= 9


@pytest.mark.parametrize("name, players, variant", CONFIGS)
def test_every_piece_stands_where_its_place_takes_it(name: str, players: int, variant: str) -> None:
    """A place's ``takes`` (the colours the rules put there; the reader trusts it to tell a
    die's side in shade from a token against it) holds every piece the game's own boards put
    there, through 120 random legal moves."""
    game: Game = load_game(name)
    state = game.setup(players, variant, 0)
    rng = random.Random(f"takes{name}{players}{variant}")
    for _ in range(120):
        layout = game.layout(state)
        for spot_id, pieces in game.board_view(state).items():
            spot = layout.spot(spot_id)
            for piece in pieces:
                assert spot.may_hold(piece.colour), (spot_id, piece, sorted(spot.takes))
        actions = game.legal_actions(state) if game.outcome(state) is None else []
        if not actions:
            break
        state = game.apply(state, rng.choice(actions))


def test_a_place_that_takes_some_colours_holds_no_other() -> None:
    baron = load_game("baron_voodoo")
    layout = baron.layout(baron.setup(2, None, 0))
    cell, track = layout.spot("A1"), layout.spot("track0-0")
    assert cell.may_hold("red") and cell.may_hold("white") and not cell.may_hold("black")
    assert track.may_hold("black") and not track.may_hold("red")
    assert Spot("x", 0, 0, 20, 20).may_hold("anything")  # (no takes: any colour)


@pytest.mark.parametrize("name, players, variant", CONFIGS)
def test_a_simulated_game_ends_and_the_companion_agrees_with_the_table(
        name: str, players: int, variant: str) -> None:
    result = play(name, players, variant, seed=11, max_steps=3000)
    tablet = result.tablet
    assert tablet["over"], (result.steps, tablet["prompts"][:3])
    truth = result.world_truth.get("winners")
    assert truth is not None and sorted(truth) == sorted(tablet["winner"])
    assert result.refusals == [], result.refusals[:3]
