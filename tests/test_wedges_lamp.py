"""Whole games under a lamp's hot spot over a few places all evening that never ended right
(``scripts/lamp_games.py mixed`` and ``ts-charlie-held``): one regression test per cause.

Each is played through the camera loop with the reader's edge stubbed
(:class:`doubting_camera.LampReader`), the table, rules and players real, the players answering
only the tablet's words; the game ends with the tablet showing it over with the world's scores.
"""

from __future__ import annotations

from doubting_camera import play_doubted


def assert_ended_right(game: str, seed: int, lamp: tuple[str, ...], as_glare: bool) -> None:
    played = play_doubted(game, 2, None, seed, lambda _place, _stack: False,
                          lamp=frozenset(lamp), lamp_as_glare=as_glare)
    tablet = played.tablet
    assert tablet["over"], [p["text"] for p in tablet["prompts"]]
    assert sorted(tablet["winner"]) == sorted(played.truth["winners"])
    assert [round(s) for s in tablet["scores"]] == [round(s) for s in played.truth["scores"]]


def test_a_card_said_under_a_lamp_then_slid_down_by_the_record_is_asked_again() -> None:
    """Jivecat with a lamp over Mambo and Vogue all evening.  Vogue was said to show Bossa
    Nova, as the record had it, and the same tap let the held press record the Staff chip,
    whose turn's start slid Bossa Nova down to Passe in the record.  The answer stood for
    Vogue all evening: "Vogue shows cyan (8)" beside the record's nothing, "the record is
    right" tapped, and the refill the players then laid there was never seen; the record
    waited for it for ever.  Now a place said as the record has it is vouched for at once, so
    the move that changes it ends that, and Vogue is asked again; and the colours said of a
    card that a reach may since have replaced are asked again too (Bossa Nova's cyan said
    before the slide; the marks then offered were cyan ones only)."""
    assert_ended_right("jivecat", 3, ("trend-0", "skull-0"), False)
