"""`companion replay`: per line applied or refused with the reason, then the final state."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from companion.cli import main
from companion.table import Table


def test_replay_prints_applied_refused_malformed_and_final_state(tmp_path: Path) -> None:
    table = Table.open("times_square", None, 2, None, 0, resume=False)
    setup = table.game.legal_actions(table.state)[0]
    table.declare(setup)
    move = table.game.legal_actions(table.state)[0]
    out_of_turn = dict(move, player=1 - move["player"])
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join([
        json.dumps({"meta": {"players": 2}}),
        json.dumps(setup),
        json.dumps(out_of_turn),
        "{not json",
        json.dumps({"action": move}),
        json.dumps({"type": "undo"}),
    ]) + "\n")
    result = CliRunner().invoke(main, ["replay", "--game", "times_square", str(script)])
    assert result.exit_code == 1, result.output  # issue 42: a malformed line is named, non-zero
    assert "1 malformed line(s) skipped (line 4)" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("line 2: applied")
    assert lines[1].startswith("line 3: refused") and "rule:" in lines[1]
    assert lines[2].startswith("line 4: malformed: not JSON")
    assert lines[3].startswith("line 5: applied")
    assert lines[4].startswith("line 6: applied: undo")
    final = json.loads("\n".join(lines[5:]))
    assert final["game"] == "times_square"
    assert [h["undone"] for h in final["history"]] == [False, True]


def test_games_lists_all_five() -> None:
    result = CliRunner().invoke(main, ["games"])
    assert result.exit_code == 0
    for name in ("times_square", "jivecat", "baron_voodoo", "king_of_clubs", "swing_state"):
        assert name in result.output


def test_replay_refuses_an_unknown_house_rule_clearly(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"type": "undo"}\n')
    result = CliRunner().invoke(main, ["replay", "--game", "times_square",
                                       "--house-rule", "no_such_rule=yes", str(script)])
    assert result.exit_code != 0
    assert "no house rule 'no_such_rule'" in result.output
    bad = CliRunner().invoke(main, ["replay", "--game", "times_square", "--house-rule", "oops",
                                    str(script)])
    assert bad.exit_code != 0 and "use RULE=CHOICE" in bad.output
